"""Deterministic mode: skill outputs → `RiskPoint`s, by explicit rules.

Each skill that raises risks has its rule beside it (`SkillRegistration.risk_rule`): the rule
reads the skill's typed output, decides whether it is a risk for our party and how severe, and
anchors it on a verbatim quote of the clause through a `RiskFactory`. A quote that is not
verbatim clause text is re-anchored on the nearest verbatim span or dropped (the risk keeps no
location then): a risk never shows a lawyer words the contract does not contain.

Every text a rule writes is in the review's language: the factory knows it, and `risk.say(en,
zh)` picks the rule's English or Chinese wording (`Say` does the same for a skill handler that
writes its own messages). The risk type stays a machine key in English whatever the language
(`titles.risk_title` names it for a reader).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from contract_review.models import (
    ClauseNode,
    FavourableTerm,
    RiskLevel,
    RiskPoint,
    TextLocation,
)
from contract_review.text.language import Say, is_chinese

__all__ = [
    "SEVERITY_ORDER",
    "FavourableRule",
    "RiskFactory",
    "RiskRule",
    "RuledSkill",
    "Say",
    "anchor_quote",
    "favourable_from_skill_outputs",
    "is_chinese",
    "location_in",
    "risk_id",
    "risks_from_skill_outputs",
]


_MIN_ANCHOR = 12
"""Shortest verbatim span a paraphrased quote may be re-anchored on."""
_MAX_FUZZY = 20_000
"""Longest clause searched fuzzily for a paraphrased quote."""
_MAX_UNDEFINED = 5
"""Undefined-term risks reported per clause (the most used terms)."""


def anchor_quote(clause_text: str, quote: str) -> tuple[str, int] | None:
    """(verbatim text, offset in the clause) for `quote`, or None.

    Exact text first; else whitespace-normalised; else the longest common span with the quote
    if it is substantial. Offsets are relative to `clause_text`.
    """
    quote = quote.strip()
    if not quote:
        return None
    at = clause_text.find(quote)
    if at != -1:
        return quote, at
    words = quote.split()
    flexible = re.search(r"\s+".join(map(re.escape, words)), clause_text)
    if flexible is not None:
        return flexible.group(), flexible.start()
    if len(clause_text) > _MAX_FUZZY:
        return None  # a fuzzy search over a very long clause costs more than it finds
    matcher = SequenceMatcher(None, clause_text, quote, autojunk=False)
    m = matcher.find_longest_match(0, len(clause_text), 0, len(quote))
    if m.size >= max(_MIN_ANCHOR, len(quote) // 2):
        return clause_text[m.a : m.a + m.size], m.a
    return None


SEVERITY_ORDER = {RiskLevel.HIGH: 0, RiskLevel.MEDIUM: 1, RiskLevel.LOW: 2}
"""Sort key of risk levels, most severe first."""


def risk_id(clause_id: str, source: str, risk_type: str, description: str) -> str:
    """A stable risk id: the same finding gets the same id on every run."""
    digest = hashlib.sha256(f"{clause_id}|{source}|{risk_type}|{description}".encode())
    return f"risk-{digest.hexdigest()[:12]}"


def location_in(clause: ClauseNode, text: str, rel: int) -> TextLocation:
    """The location of verbatim clause text found at offset `rel` of the clause."""
    start = clause.start_offset + rel
    return TextLocation(
        clause_id=clause.clause_id,
        original_text=text,
        start_offset=start,
        end_offset=start + len(text),
    )


class RiskFactory:
    """The clause being judged, and risks on it quoted verbatim, in the review's language."""

    def __init__(self, clause: ClauseNode, language: str = "en") -> None:
        self.clause = clause
        self.language = language
        self.say = Say(language)
        """`say(en, zh)`: the text for the review's language."""

    def risk(
        self,
        skill: str,
        level: RiskLevel | str,
        risk_type: str,
        description: str,
        *,
        reason: str = "",
        analysis: str = "",
        quote: str | None = None,
        position_id: str = "",
        burdens: str = "",
        at: int | None = None,
        measured: float | None = None,
        worse: Literal["higher", "lower"] | None = None,
        target: float | None = None,
    ) -> RiskPoint:
        """A risk found by `skill`, anchored on `quote` when the clause contains it (at `at`,
        its offset in the clause text, when the skill knows it: '5%' written twice is two
        terms)."""
        if quote and at is not None and self.clause.text[at : at + len(quote)] == quote:
            anchored: tuple[str, int] | None = (quote, at)
        else:
            anchored = anchor_quote(self.clause.text, quote) if quote else None
        location = location_in(self.clause, *anchored) if anchored is not None else None
        return RiskPoint(
            id=risk_id(self.clause.clause_id, skill, risk_type, description),
            clause_id=self.clause.clause_id,
            risk_level=RiskLevel(level),
            risk_type=risk_type,
            description=description,
            reason=reason,
            analysis=analysis,
            location=location,
            position_id=position_id,
            burdens=burdens,
            measured=measured,
            worse=worse if measured is not None else None,
            target=target if measured is not None else None,
            source_skills=[skill],
        )

    def favourable(
        self, position_id: str, topic: str, description: str, quote: str
    ) -> FavourableTerm:
        """A term in our favour, anchored on `quote` when the clause contains it."""
        anchored = anchor_quote(self.clause.text, quote)
        return FavourableTerm(
            clause_id=self.clause.clause_id,
            position_id=position_id,
            topic=topic,
            description=description,
            location=location_in(self.clause, *anchored) if anchored is not None else None,
        )


RiskRule = Callable[[RiskFactory, Any], list[RiskPoint]]
"""(factory for the clause's risks, the skill's typed output) → the risks it shows."""

FavourableRule = Callable[[RiskFactory, Any], list[FavourableTerm]]
"""(factory for the clause, the skill's typed output) → the terms in our favour it shows."""


class RuledSkill(Protocol):
    """What the collectors read of a skill's registration (`SkillRegistration`): its output
    model and its rules."""

    @property
    def output_schema(self) -> type[BaseModel] | None:
        """The skill's output model."""
        ...

    @property
    def risk_rule(self) -> RiskRule | None:
        """Its output → risks."""
        ...

    @property
    def favourable_rule(self) -> FavourableRule | None:
        """Its output → terms in our favour."""
        ...


def favourable_from_skill_outputs(
    clause: ClauseNode,
    results: Sequence[tuple[RuledSkill, Mapping[str, Any]]],
    language: str = "en",
) -> list[FavourableTerm]:
    """The terms in our favour the skills' rules find on one clause, one per (position, quote),
    described in the review's `language`."""
    factory = RiskFactory(clause, language)
    terms: dict[tuple[str, str], FavourableTerm] = {}
    for registration, data in results:
        rule = registration.favourable_rule
        if rule is None:
            continue
        schema = registration.output_schema
        output = schema.model_validate(data) if schema is not None else data
        for term in rule(factory, output):
            quote = term.location.original_text if term.location else term.description
            terms.setdefault((term.position_id, quote), term)
    return list(terms.values())


def risks_from_skill_outputs(
    clause: ClauseNode,
    results: Sequence[tuple[RuledSkill, Mapping[str, Any]]],
    language: str = "en",
) -> list[RiskPoint]:
    """All risks the skills' rules find in their successful outputs (`SkillResult.data`,
    validated once into each skill's output model) on one clause, most severe first, one per
    (type, quote), written in the review's `language` ('en' or 'zh-CN')."""
    factory = RiskFactory(clause, language)
    found: list[RiskPoint] = []
    for registration, data in results:
        rule = registration.risk_rule
        if rule is None:
            continue
        schema = registration.output_schema
        output = schema.model_validate(data) if schema is not None else data
        found += rule(factory, output)
    found.sort(key=lambda r: SEVERITY_ORDER[r.risk_level])  # stable: the most severe kept
    risks: list[RiskPoint] = []
    seen: set[tuple[str, str]] = set()
    for risk in found:
        key = (risk.risk_type, risk.location.original_text if risk.location else risk.id)
        if key not in seen:
            seen.add(key)
            risks.append(risk)
    return risks
