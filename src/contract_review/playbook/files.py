"""Playbook files: YAML/JSON in the full format (`parse`), CSV/TSV/XLSX in the flat form lawyers keep in
spreadsheets; every mistake reported on one line naming the file, the position and the field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from contract_review.errors import SkillError
from contract_review.text import has_cjk

from .criteria import read_criteria_file
from .parse import PlaybookError, parse_playbook, read_yaml
from .schema import Playbook, Position, Recognition, Wording

__all__ = [
    "PlaybookError",
    "dump_playbook",
    "load_playbook",
    "packaged_playbook",
    "parse_playbook",
    "read_yaml",
]

FULL_FORMAT = (".yaml", ".yml", ".json")
FLAT_FORM = (".csv", ".tsv", ".xlsx", ".xlsm")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower() or "position"


def _wording(text: str) -> Wording | None:
    text = text.strip()
    if not text:
        return None
    return Wording(zh=text) if has_cjk(text) else Wording(en=text)


def _flat(path: Path) -> Playbook:
    """The flat form (topic, clause, criterion, preferred, fallback, risk level, keywords) as
    positions: the preferred position is the standard, the criterion the rationale."""
    try:
        rows = read_criteria_file(path)
    except SkillError as exc:
        raise PlaybookError(str(exc)) from None
    positions = []
    for row in rows:
        standard = _wording(row.preferred_position) or _wording(row.criterion)
        if standard is None:
            raise PlaybookError(f"{path.name}: {row.source}: no preferred position or criterion")
        topic = row.topic or row.criterion[:60]
        positions.append(
            Position(
                id=_slug(row.criterion_id),
                topic=topic,
                recognise=Recognition(
                    clauses=list(row.clause_ids),
                    titles=[re.escape(row.topic)] if row.topic else [],
                    keywords=list(row.keywords),
                ),
                standard=standard,
                fallback=_wording(row.fallback_position),
                severity=row.risk_level.value if row.risk_level else "medium",
                rationale=_wording(row.criterion),
                source=row.source,
            )
        )
    return Playbook(domain="*", name=path.name, positions=positions)


def load_playbook(path: Path) -> Playbook:
    """A playbook file: full format (.yaml/.yml/.json) or flat form (.csv/.tsv/.xlsx/.xlsm)."""
    if not path.is_file():
        raise PlaybookError(f"{path}: file not found")
    suffix = path.suffix.lower()
    if suffix in FLAT_FORM:
        return _flat(path)
    if suffix not in FULL_FORMAT:
        known = ", ".join(FULL_FORMAT + FLAT_FORM)
        raise PlaybookError(f"{path.name}: unsupported playbook type '{suffix}' (use {known})")
    text = path.read_text(encoding="utf-8-sig")
    try:
        data = json.loads(text) if suffix == ".json" else read_yaml(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        line = str(exc).strip().splitlines()
        raise PlaybookError(f"{path.name}: not valid {suffix[1:].upper()}: {line[0]}") from None
    # A criteria list (the flat form written as YAML) has no 'positions'.
    if isinstance(data, dict) and "positions" not in data and suffix != ".json":
        return _flat(path)
    if isinstance(data, list):
        return _flat(path)
    return parse_playbook(data, path.name)


def packaged_playbook(path: Path) -> Playbook:
    """A playbook shipped with a domain plugin (a malformed one is a bug: it fails loudly)."""
    return parse_playbook(read_yaml(path.read_text(encoding="utf-8")), path.name)


def dump_playbook(playbook: Playbook) -> str:
    """The playbook as YAML a lawyer can edit and load again."""
    data = playbook.model_dump(mode="json", exclude_defaults=True)
    data.setdefault("positions", [])
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100)
