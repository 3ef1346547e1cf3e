"""Readable titles of risk types, in English and Chinese (`risk_titles.yaml`).

A risk's `risk_type` is a machine key ('uncapped damages', 'deviation from baseline:
cap_removed_on_us', 'no_veto_new_issuance:issuance'): risks are deduplicated and looked up by
it, so it never changes with the review's language. `risk_title` is what a reader sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from contract_review.playbook.parse import read_yaml

__all__ = ["has_title", "risk_title", "topic_title"]


@dataclass(frozen=True, slots=True)
class _Table:
    titles: dict[str, tuple[str, str]]
    prefixes: tuple[tuple[str, tuple[str, str]], ...]
    """Longest first."""
    topics: dict[str, tuple[str, str]]


def _pairs(section: dict[str, dict[str, str]]) -> dict[str, tuple[str, str]]:
    return {key: (names["en"], names["zh"]) for key, names in section.items()}


def _load() -> _Table:
    """The table, read from the packaged YAML."""
    data = read_yaml(Path(__file__).with_name("risk_titles.yaml").read_text("utf-8"))
    prefixes = _pairs(data["prefixes"])
    return _Table(
        titles=_pairs(data["titles"]),
        prefixes=tuple(sorted(prefixes.items(), key=lambda kv: -len(kv[0]))),
        topics=_pairs(data["topics"]),
    )


_TABLE = _load()
"""Read once, at import: a table of names is data, no lookup reads a file."""


def _table() -> _Table:
    """The table."""
    return _TABLE


def _pick(names: tuple[str, str], language: str) -> str:
    return names[1] if language.lower().startswith("zh") else names[0]


def _words(key: str) -> str:
    """A machine key as words ('cap_removed_on_us' → 'cap removed on us')."""
    return " ".join(key.replace("_", " ").replace(":", " ").split())


def topic_title(topic: str, language: str = "en") -> str:
    """A data word of a risk type ('tax', 'issuance') in `language`; unknown words as words."""
    names = _table().topics.get(topic)
    return _pick(names, language) if names is not None else _words(topic)


def _lookup(risk_type: str, language: str) -> str | None:
    table = _table()
    names = table.titles.get(risk_type)
    if names is not None:
        return _pick(names, language)
    for prefix, pattern in table.prefixes:
        if risk_type.startswith(prefix) and len(risk_type) > len(prefix):
            data = risk_type[len(prefix) :].strip()
            shown = topic_title(data, language) if data in table.topics else data
            return _pick(pattern, language).replace("{}", shown)
    code, colon, topic = risk_type.partition(":")
    names = table.titles.get(code) if colon and topic else None
    if names is not None:  # a gap on one topic: 'short_claims_period:tax'
        shown = topic_title(topic, language)
        zh = language.lower().startswith("zh")
        return f"{_pick(names, language)}（{shown}）" if zh else f"{names[0]} ({shown})"
    return None


def has_title(risk_type: str) -> bool:
    """Whether the table names `risk_type` (exactly, by a prefix, or by its gap code)."""
    return _lookup(risk_type, "en") is not None


def risk_title(risk_type: str, language: str = "en") -> str:
    """The title of `risk_type` in `language` ('en' or 'zh…'); a type the table does not know
    as words ('some_new_rule' → 'some new rule')."""
    found = _lookup(risk_type, language)
    return found if found is not None else _words(risk_type)
