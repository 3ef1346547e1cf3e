"""Playbook data as it comes from YAML or JSON, validated into a `Playbook`; every mistake
reported on one line naming the source, the position and the field."""

from __future__ import annotations

import re
from typing import Any

import yaml
from pydantic import ValidationError

from contract_review.errors import InputError

from .schema import Playbook

__all__ = ["PlaybookError", "parse_playbook", "read_yaml"]

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(text: str) -> Any:
    """Safe YAML, with libyaml's loader when PyYAML has it (ten times faster: the packaged
    catalogues and playbooks are read at every start)."""
    return yaml.load(text, Loader=_LOADER)


class PlaybookError(InputError):
    """A playbook file that cannot be used (one line: file, position, field, problem)."""


def _where(data: Any, loc: tuple[int | str, ...]) -> str:
    """'position 3 ('cap'): standard.en' for an error location in a playbook mapping."""
    if len(loc) >= 2 and loc[0] == "positions" and isinstance(loc[1], int):
        entries = data.get("positions") if isinstance(data, dict) else None
        entry = entries[loc[1]] if isinstance(entries, list) and loc[1] < len(entries) else None
        name = f" ('{entry['id']}')" if isinstance(entry, dict) and "id" in entry else ""
        field = ".".join(str(p) for p in loc[2:]) or "entry"
        return f"position {loc[1] + 1}{name}: {field}"
    return ".".join(str(p) for p in loc) or "file"


def parse_playbook(data: Any, source: str) -> Playbook:
    """A playbook from parsed YAML/JSON; `PlaybookError` names `source`, the position and the
    field of the first problem."""
    if not isinstance(data, dict):
        raise PlaybookError(f"{source}: a playbook is a mapping with 'domain' and 'positions'")
    try:
        return Playbook.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        message = str(first["msg"]).removeprefix("Value error, ")
        where = _where(data, tuple(first["loc"]))
        named = _NAMED.match(message)
        if named and where.endswith(": entry"):
            # a position's own check names its field first ('title: …')
            where, message = where.removesuffix("entry") + named[1], message[named.end() :]
        raise PlaybookError(f"{source}: {where}: {message}{more}") from None


_NAMED = re.compile(r"([a-z_]+(?:\.[a-z_]+)*): ")
