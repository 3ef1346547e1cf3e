"""Shared helpers of the sha_spa skills: analysed units, sentences, quotes, gaps, party sides."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from contract_review.analysis.financial import FinancialTerms, financial_terms
from contract_review.analysis.titles import topic_title
from contract_review.errors import SkillError
from contract_review.models import ClauseNode, DocumentStructure, RiskPoint
from contract_review.parties import PartyRoles, party_mentions, role_actions
from contract_review.skills.context import ReviewContext, StructureInput, require_clause
from contract_review.skills.risks import RiskFactory, RiskRule, Say
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import review_context

Scope = Literal["clause", "document"]
Severity = Literal["high", "medium", "low"]
SideOrNone = Literal["us", "them", "both", "other", "unspecified"]

SCOPE_DESCRIPTION = (
    "'clause' analyses the clause (with its sub-clauses); 'document' analyses the whole "
    "contract and also reports what is missing (gaps of absence are only reported then)."
)


class ScopedInput(StructureInput):
    """Input shared by the sha_spa skills: a clause (or the whole document) and our party."""

    clause_id: str = Field(description="Clause to analyse, e.g. '7' or '7.1' ('第四条' → '4').")
    scope: Scope = Field("clause", description=SCOPE_DESCRIPTION)
    our_party: str = Field(
        "", description="Party we act for ('Buyer', '投资方'); defaults to the review's."
    )
    review_context: ReviewContext | None = Field(
        None, description="Review facts (filled in by the system)."
    )


class Quote(BaseModel):
    """A verbatim piece of the contract with its place."""

    quote: str = Field(description="Verbatim text from the contract.")
    clause_id: str = Field(description="Smallest clause holding the quote.")
    start: int = Field(ge=0, description="Document offset of the quote.")
    end: int = Field(ge=0, description="Document offset just past the quote.")


class Gap(BaseModel):
    """A coded issue from our party's side."""

    code: str = Field(description="Machine-checkable gap code, e.g. 'cap_below_market'.")
    topic: str | None = Field(None, description="Topic the gap concerns (e.g. 'tax'), if any.")
    severity: Severity = Field(description="high, medium or low, from our party's side.")
    message: str = Field(description="What was found and why it matters, in one sentence.")
    evidence: Quote | None = Field(None, description="The text the gap is about, if any.")
    measured: float | None = Field(
        None, description="The number the gap is about (% of the price, months), if any."
    )
    target: float | None = Field(
        None, description="The market's nearest edge for that number, in the same unit."
    )
    worse: Literal["higher", "lower"] | None = Field(
        None, description="Which way of the number hurts our party."
    )

    @property
    def key(self) -> str:
        """'code' or 'code:topic'."""
        return f"{self.code}:{self.topic}" if self.topic else self.code


class ScopedOutput(BaseModel):
    """What the output of every sha_spa skill starts with: where, for whom, and the gaps."""

    clause_id: str = Field(description="Clause analysed (or where the document scan began).")
    scope: Scope = Field(description="Scope analysed.")
    our_party: str = Field(description="Party we act for.")
    our_roles: list[str] = Field(description="Canonical roles of our party ('buyer'...).")
    gaps: list[Gap] = Field(description="Issues from our party's side, coded.")


def scoped_output(inp: ScopedInput, roles: PartyRoles) -> dict[str, Any]:
    """The `ScopedOutput` fields of an answer to `inp` (gaps excepted)."""
    return {
        "clause_id": inp.clause_id,
        "scope": inp.scope,
        "our_party": roles.our_party,
        "our_roles": list(roles.our_roles),
    }


@dataclass(frozen=True)
class Unit:
    """A piece of contract text analysed as a whole, with its document offset."""

    clause_id: str
    text: str
    offset: int


@dataclass(frozen=True)
class Sentence:
    """One sentence of a unit."""

    text: str
    start: int
    """Document offset."""
    unit: Unit


def say_for(inp: ScopedInput) -> Say:
    """Texts in the review's language (English when the skill is asked without a review)."""
    return Say(inp.review_context.language if inp.review_context else "en")


def topic_in(topic: str, say: Say) -> str:
    """A gap's topic ('tax', 'ip') as the review's language names it."""
    return topic_title(topic, say.language)


def our_roles(inp: ScopedInput, structure: DocumentStructure | None) -> PartyRoles:
    """Our side in `structure` as the run resolved it. A caller without a run, or one naming
    another party in `our_party`, has its party prepared at the edge (`skills.state`)."""
    ctx = inp.review_context
    if ctx is None or (inp.our_party and inp.our_party != ctx.our_party):
        ctx = review_context({"our_party": inp.our_party}, structure=structure)
    return ctx.roles_in(structure)


def units(structure: DocumentStructure | None, clause_id: str, scope: Scope) -> list[Unit]:
    """The text to analyse: the clause, or every top-level clause of the document."""
    if scope == "document":
        if structure is None:
            raise SkillError("no document structure is available")
        return [Unit(c.clause_id, c.text, c.start_offset) for c in structure.clauses]
    clause = require_clause(structure, clause_id)
    return [Unit(clause.clause_id, clause.text, clause.start_offset)]


_SENT_END = re.compile(r"[。；;！？!?\n]|\.(?=\s)")


def sentences(unit: Unit) -> Iterator[Sentence]:
    """Sentences of a unit (split on full stops, semicolons and line ends), stripped."""
    text = unit.text
    pos = 0
    for m in _SENT_END.finditer(text):
        yield from _piece(unit, pos, m.end())
        pos = m.end()
    yield from _piece(unit, pos, len(text))


def _piece(unit: Unit, start: int, end: int) -> Iterator[Sentence]:
    raw = unit.text[start:end]
    stripped = raw.strip()
    if len(stripped) < 2:
        return
    lead = len(raw) - len(raw.lstrip())
    yield Sentence(stripped, unit.offset + start + lead, unit)


class Locator:
    """Finds the smallest clause holding a document offset."""

    def __init__(self, structure: DocumentStructure | None, fallback: str) -> None:
        self.fallback = fallback
        self.spans: list[tuple[int, int, int, str]] = (
            [(c.start_offset, c.end_offset, c.level, c.clause_id) for c in structure.iter_clauses()]
            if structure
            else []
        )

        self.spans.sort(key=lambda x: (x[0], x[2]))
        self.starts = [s for s, _, _, _ in self.spans]
        self.index = {cid: i for i, (_, _, _, cid) in enumerate(self.spans)}
        self.headings: set[int] = set()
        for c in structure.iter_clauses() if structure else []:
            first = c.text.split("\n", 1)[0]
            if c.title and len(first.strip()) <= len(c.number) + len(c.title) + 6:
                self.headings.update(range(c.start_offset, c.start_offset + len(first)))
        self.titles: dict[str, str] = (
            {c.clause_id: c.title for c in structure.iter_clauses() if structure}
            if structure
            else {}
        )
        self.parents: dict[str, str | None] = (
            {c.clause_id: c.parent_id for c in structure.iter_clauses()} if structure else {}
        )

    def sentences(self, unit: Unit) -> Iterator[Sentence]:
        """Sentences of `unit` without the clause headings."""
        return (s for s in sentences(unit) if s.start not in self.headings)

    def title_chain(self, clause_id: str) -> str:
        """Titles of the clause and its ancestors, joined."""
        out: list[str] = []
        cur: str | None = clause_id
        while cur is not None:
            out.append(self.titles.get(cur, ""))
            cur = self.parents.get(cur)
        return " / ".join(x for x in out if x)

    def clause_at(self, pos: int) -> str:
        """Id of the deepest clause whose span holds `pos` (the fallback if none)."""
        i = bisect_right(self.starts, pos) - 1
        while i >= 0:
            s, e, _, cid = self.spans[i]
            if s <= pos < e:
                return cid
            parent = self.parents.get(cid)
            i = self.index.get(parent, -1) if parent else -1
        return self.fallback

    def quote(self, text: str, start: int) -> Quote:
        return Quote(
            quote=text, clause_id=self.clause_at(start), start=start, end=start + len(text)
        )


def sentence_quote(loc: Locator, s: Sentence) -> Quote:
    """The whole sentence as a quote."""
    return loc.quote(s.text, s.start)


def sides_in(text: str, roles: PartyRoles) -> list[tuple[int, SideOrNone, str]]:
    """(offset, side, word) of party words in `text`; role words of other parties as 'other'."""
    found: list[tuple[int, SideOrNone, str]] = [
        (p, side, w) for p, side, w in party_mentions(text, roles)
    ]
    taken = {p for p, _, _ in found}
    for a in role_actions(text):
        if a.start not in taken and not any(p <= a.start < p + len(w) for p, _, w in found):
            found.append((a.start, "other", a.alias))
    found.sort()
    return found


def side_of_subject(text: str, roles: PartyRoles, before: int) -> SideOrNone:
    """Side of the last party word before offset `before` in `text`, else 'unspecified'."""
    hits = [h for h in sides_in(text, roles) if h[0] < before]
    return hits[-1][1] if hits else "unspecified"


def financial(text: str) -> FinancialTerms:
    """The financial terms of an ad-hoc text (offsets index `text`; its first 50,000
    characters, as extract_financial_terms reads)."""
    return financial_terms(text[:50_000])


def months_of(value: float, unit: str) -> float:
    """A period in months."""
    return {"year": value * 12, "month": value, "week": value * 7 / 30, "day": value / 30}.get(
        unit, value / 720
    )


def own_text(node: ClauseNode) -> str:
    """The clause's text before its first sub-clause."""
    if not node.children:
        return node.text
    return node.text[: node.children[0].start_offset - node.start_offset]


def gap_rule(skill_id: str) -> RiskRule:
    """The risk rule of a sha_spa skill: each gap is a risk of its severity on its evidence."""

    def risk_rule(risk: RiskFactory, out: ScopedOutput) -> list[RiskPoint]:
        return [
            risk.risk(
                skill_id,
                g.severity,
                g.key,
                g.message,
                quote=g.evidence.quote if g.evidence else None,
                measured=g.measured,
                worse=g.worse,
                target=g.target,
            )
            for g in out.gaps
        ]

    return risk_rule


def scoped_registration(
    skill_id: str,
    name: str,
    description: str,
    schemas: tuple[type[ScopedInput], type[ScopedOutput]],
    handle: Callable[..., Any],
    prepare_input: Callable[..., Any],
    category: str,
) -> SkillRegistration:
    """The registration of a sha_spa skill: local, its gaps its risks."""
    return SkillRegistration(
        skill_id=skill_id,
        name=name,
        description=description,
        input_schema=schemas[0],
        output_schema=schemas[1],
        backend=SkillBackend.LOCAL,
        local_handler=handle,
        prepare_input_fn=prepare_input,
        domain="sha_spa",
        category=category,
        risk_rule=gap_rule(skill_id),
    )
