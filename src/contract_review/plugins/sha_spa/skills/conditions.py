"""spa_extract_conditions: conditions precedent, long-stop date, waivers and termination.

Conditions are the sub-clauses of a clause whose lead text makes completion conditional
("conditional on", "conditions precedent", "先决条件", "以下列条件…为前提"). Each is classified
(regulatory, no MAC, third-party consent...), tied to the party who must satisfy it and to the
parties who may waive it (waiver sentences naming its clause id, or its kind, e.g. 'Material
Adverse Change'). Gaps are judged from our party's side; gaps of absence (no long-stop date,
no MAC condition) only with scope 'document'.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from contract_review.models import ClauseNode, DocumentStructure
from contract_review.parties import PartyRoles
from contract_review.skills.risks import Say
from contract_review.skills.state import input_preparer

from ._common import (
    Gap,
    Locator,
    Quote,
    Scope,
    ScopedInput,
    ScopedOutput,
    Sentence,
    SideOrNone,
    financial,
    our_roles,
    own_text,
    say_for,
    scoped_output,
    scoped_registration,
    sides_in,
    units,
)

SKILL_ID = "spa_extract_conditions"

ConditionKind = Literal[
    "regulatory",
    "no_mac",
    "third_party_consent",
    "shareholder_approval",
    "financing",
    "warranties_true",
    "deliverable",
    "other",
]


class ConditionsInput(ScopedInput):
    """Input of spa_extract_conditions."""


class Condition(BaseModel):
    """One condition precedent."""

    clause_id: str = Field(description="Clause holding the condition.")
    text: Quote = Field(description="The condition, verbatim.")
    kind: ConditionKind = Field(description="What the condition is about.")
    responsible: SideOrNone = Field(
        description="Who must satisfy it: 'us', 'them', 'both', 'other' or 'unspecified'."
    )
    waivable_by: list[SideOrNone] = Field(
        description="Who may waive it (from waiver sentences); empty = not stated."
    )
    not_waivable: bool = Field(description="Whether the contract says it may not be waived.")


class Waiver(BaseModel):
    """A waiver provision."""

    text: Quote = Field(description="The waiver sentence, verbatim.")
    waived_by: list[SideOrNone] = Field(description="Who may waive.")
    only: bool = Field(description="Whether the right is exclusive ('only', '仅').")
    not_waivable: bool = Field(description="Whether it says the condition may not be waived.")
    condition_ids: list[str] = Field(description="Conditions it names, by clause id or kind.")


class LongStop(BaseModel):
    """The long-stop (cut-off) date."""

    text: Quote = Field(description="Where the long-stop date is set or used.")
    date: str | None = Field(None, description="Calendar date as written, if any.")
    period_months: float | None = Field(None, description="Period in months, if a period.")
    extendable_by: list[SideOrNone] = Field(description="Who may extend it alone, if stated.")


class TerminationRight(BaseModel):
    """A right to terminate if conditions are not met."""

    text: Quote = Field(description="The sentence, verbatim.")
    holders: list[SideOrNone] = Field(description="Who may terminate.")


class ConditionsOutput(ScopedOutput):
    """Output of spa_extract_conditions."""

    conditions: list[Condition] = Field(description="Conditions precedent, in order.")
    waivers: list[Waiver] = Field(description="Waiver provisions.")
    long_stop: LongStop | None = Field(description="The long-stop date, if found.")
    termination_rights: list[TerminationRight] = Field(
        description="Rights to terminate if conditions are unmet."
    )


DESCRIPTION = (
    "Extract the conditions precedent of a share purchase (English or Chinese): each condition "
    "with its kind (regulatory, no_mac, third_party_consent, shareholder_approval, financing, "
    "warranties_true, deliverable, other), who must satisfy it and who may waive it; the "
    "long-stop date (date or period, who may extend it); and who may terminate if conditions "
    "are unmet. Gaps from our party's side carry codes such as mac_waivable_only_by_other_side, "
    "no_long_stop_date, long_stop_extendable_by_other_side, no_termination_right_for_us, "
    "no_mac_condition. Call it on the conditions clause, or with scope='document'. Arguments: "
    "clause_id, scope ('clause' or 'document'), our_party (optional)."
)


_I = re.IGNORECASE
_CP_LEAD = re.compile(
    r"conditional\s+(?:up)?on|conditions?\s+precedent|subject\s+to\s+the\s+(?:following\s+)?"
    r"conditions|先决条件|交割条件|前提条件|以下列条件|下列条件",
    _I,
)
_KINDS: list[tuple[ConditionKind, re.Pattern[str]]] = [
    ("no_mac", re.compile(r"material\s+adverse|\bMAC\b|\bMAE\b|重大不利", _I)),
    (
        "regulatory",
        re.compile(
            r"clearance|regulator|antitrust|competition|merger\s+control|governmental|authorit"
            r"|审批|批准|核准|备案|反垄断|经营者集中|主管部门|监管",
            _I,
        ),
    ),
    ("third_party_consent", re.compile(r"consent|counterpart|第三方|同意函|同意", _I)),
    (
        "shareholder_approval",
        re.compile(r"shareholders?'?\s+(?:approval|resolution)|board\s+approval|股东会|董事会", _I),
    ),
    ("financing", re.compile(r"financing|funding|融资", _I)),
    (
        "warranties_true",
        re.compile(r"warrant\w*\s+(?:being|are|is|remain)|陈述与保证|陈述和保证", _I),
    ),
    ("deliverable", re.compile(r"deliver|交付|提供", _I)),
]
_WAIVE = re.compile(r"waiv|豁免|放弃", _I)
_NOT_WAIVABLE = re.compile(
    r"(?:may|shall|can)\s*not\s+be\s+waived|cannot\s+be\s+waived|不得(?:被)?豁免|不可(?:被)?豁免"
    r"|不能(?:被)?豁免",
    _I,
)
_ONLY = re.compile(r"\bonly\b|\bsolely\b|\bexclusively\b|仅|只能|唯有", _I)
_BY_BEFORE = re.compile(r"(?:waiv\w*|extend\w*)\s+(?:\w+\s+){0,2}by\s+(?:the\s+)?$|由$", _I)
_MAY_AFTER = re.compile(
    r"\s*(?:may|shall\s+be\s+entitled\s+to|has\s+the\s+right\s+to)\s+(?:\w+\s+){0,4}?waive"
    r"|(?:有权|可以|可)(?:以)?(?:书面)?(?:豁免|放弃)",
    _I,
)
_JOINT = re.compile(
    r"(?:agreement|consent)\s+of\s+(?:both|all|the)\s+parties|双方(?:书面)?(?:同意|协商)", _I
)
_REF_EN = re.compile(r"(\d+(?:\.\d+)+)\s*(\([a-z]{1,4}\))", _I)
_REF_ZH = re.compile(r"(\d+(?:\.\d+)+)\s*条?\s*第?\s*[（(]([一二三四五六七八九十]+)[）)]")
_ZH_ORD = "一二三四五六七八九十"
_LONG_STOP = re.compile(
    r"long[\s-]?stop|cut[\s-]?off\s+date|end\s+date|最终截止日|最后截止日|截止日|最晚交割日|终止日期",
    _I,
)
_DATE = re.compile(
    r"\d{1,2}\s+(?:January|February|March|April|May|June|July|August|September|October"
    r"|November|December)\s+\d{4}|(?:January|February|March|April|May|June|July|August"
    r"|September|October|November|December)\s+\d{1,2},\s*\d{4}|\d{4}年\d{1,2}月\d{1,2}日",
)
_EXTEND = re.compile(r"later\s+date|extend|延长|顺延|延期", _I)
_TERMINATE = re.compile(r"terminat|rescind|终止|解除", _I)
_UNMET = re.compile(
    r"not\s+(?:been\s+)?(?:satisfied|fulfilled)|long[\s-]?stop|未(?:能)?(?:全部)?(?:满足|成就|达成)"
    r"|截止日",
    _I,
)
_TERM_RIGHT_AFTER = re.compile(
    r"\s*(?:may|shall\s+be\s+entitled\s+to|has\s+the\s+right\s+to)\s+(?:\w+\s+){0,3}?terminat"
    r"|(?:有权|可以|可)(?:\S{0,6})?(?:终止|解除)",
    _I,
)
_EITHER = re.compile(r"either\s+party|each\s+party|任何一方|任一方|双方均", _I)


def _kind(text: str) -> ConditionKind:
    return next((k for k, rx in _KINDS if rx.search(text)), "other")


def _cp_clauses(structure: DocumentStructure | None, unit_ids: set[str]) -> list[ClauseNode]:
    if structure is None:
        return []
    found = [n for n in structure.iter_clauses() if n.children and _CP_LEAD.search(own_text(n))]
    ids = {n.clause_id for n in found}
    deepest = [
        n
        for n in found
        if not any(_inside(structure, m, {n.clause_id}) for m in found if m is not n)
    ]
    return [n for n in deepest if n.clause_id in ids and _inside(structure, n, unit_ids)]


def _inside(structure: DocumentStructure, node: ClauseNode, ids: set[str]) -> bool:
    cur: ClauseNode | None = node
    while cur is not None:
        if cur.clause_id in ids:
            return True
        cur = structure.get_clause(cur.parent_id) if cur.parent_id else None
    return False


def _parties_waiving(s: Sentence, roles: PartyRoles) -> list[SideOrNone]:
    out: list[SideOrNone] = []
    for pos, side, word in sides_in(s.text, roles):
        before = s.text[max(0, pos - 40) : pos]
        after = s.text[pos + len(word) : pos + len(word) + 40]
        if _BY_BEFORE.search(before) or _MAY_AFTER.match(after):
            out.append(side)
    if _JOINT.search(s.text):
        out.append("both")
    return list(dict.fromkeys(out))


def _refs(text: str) -> list[str]:
    ids = [m.group(1) + m.group(2).lower() for m in _REF_EN.finditer(text)]
    ids += [
        f"{m.group(1)}({_ZH_ORD.index(m.group(2)) + 1})"
        for m in _REF_ZH.finditer(text)
        if len(m.group(2)) == 1
    ]
    return ids


def _holders(s: Sentence, roles: PartyRoles, rx: re.Pattern[str]) -> list[SideOrNone]:
    out: list[SideOrNone] = []
    if _EITHER.search(s.text):
        out.append("both")
    for pos, side, word in sides_in(s.text, roles):
        if rx.match(s.text, pos + len(word)):
            out.append(side)
    return list(dict.fromkeys(out))


def handle(inp: ConditionsInput) -> ConditionsOutput:
    """Extract the conditions, waivers, long-stop date and termination rights."""
    structure = inp.document_structure
    roles = our_roles(inp, structure)
    us = units(structure, inp.clause_id, inp.scope)
    loc = Locator(structure, inp.clause_id)
    conditions: list[Condition] = []
    for cp in _cp_clauses(structure, {u.clause_id for u in us}):
        for leaf in cp.children:
            text = leaf.text.strip()
            start = leaf.start_offset + leaf.text.find(text[:20])
            hits = sides_in(text, roles)
            conditions.append(
                Condition(
                    clause_id=leaf.clause_id,
                    text=loc.quote(text, start),
                    kind=_kind(text),
                    responsible=hits[0][1] if hits else "unspecified",
                    waivable_by=[],
                    not_waivable=False,
                )
            )
    waivers: list[Waiver] = []
    terminations: list[TerminationRight] = []
    long_stop: LongStop | None = None
    for unit in us:
        for s in loc.sentences(unit):
            if _WAIVE.search(s.text) and (conditions or re.search(r"condition|条件", s.text, _I)):
                named = [i for i in _refs(s.text) if any(c.clause_id == i for c in conditions)]
                named += [
                    c.clause_id
                    for c in conditions
                    if c.kind == "no_mac"
                    and _KINDS[0][1].search(s.text)
                    and c.clause_id not in named
                ]
                waiver = Waiver(
                    text=loc.quote(s.text, s.start),
                    waived_by=_parties_waiving(s, roles),
                    only=bool(_ONLY.search(s.text)),
                    not_waivable=bool(_NOT_WAIVABLE.search(s.text)),
                    condition_ids=named,
                )
                if waiver.waived_by or waiver.not_waivable or named:
                    waivers.append(waiver)
                for c in conditions:
                    if c.clause_id in named:
                        c.not_waivable = c.not_waivable or waiver.not_waivable
                        c.waivable_by = list(dict.fromkeys([*c.waivable_by, *waiver.waived_by]))
            if long_stop is None and _LONG_STOP.search(s.text):
                long_stop = _long_stop(s, roles, loc, structure)
            if _TERMINATE.search(s.text) and _UNMET.search(s.text):
                terminations.append(
                    TerminationRight(
                        text=loc.quote(s.text, s.start),
                        holders=_holders(s, roles, _TERM_RIGHT_AFTER),
                    )
                )
    gaps = _gaps(inp.scope, roles, conditions, long_stop, terminations, say_for(inp))
    return ConditionsOutput(
        **scoped_output(inp, roles),
        conditions=conditions,
        waivers=waivers,
        long_stop=long_stop,
        termination_rights=terminations,
        gaps=gaps,
    )


def _long_stop(
    s: Sentence, roles: PartyRoles, loc: Locator, structure: DocumentStructure | None
) -> LongStop:
    text = s.text
    if structure is not None and not _DATE.search(text):
        for term in structure.definitions.values():
            if _LONG_STOP.search(term.term) and term.term in text:
                text = term.definition
                break
    date = _DATE.search(text)
    periods = financial(text).periods
    ext: list[SideOrNone] = []
    m = _EXTEND.search(text)
    if m:
        after = [h for h in sides_in(text, roles) if h[0] >= m.start()]
        if after:
            ext.append(after[0][1])
    return LongStop(
        text=loc.quote(s.text, s.start),
        date=date.group(0) if date else None,
        period_months=(
            periods[0].value * {"year": 12.0, "month": 1.0}.get(periods[0].unit, 1 / 30)
            if periods and not date
            else None
        ),
        extendable_by=ext,
    )


def _gaps(
    scope: Scope,
    roles: PartyRoles,
    conditions: list[Condition],
    long_stop: LongStop | None,
    terminations: list[TerminationRight],
    say: Say,
) -> list[Gap]:
    gaps: list[Gap] = []
    buyer = "buyer" in roles.our_roles or "investor" in roles.our_roles
    for c in conditions:
        if c.kind == "no_mac" and buyer and c.waivable_by and set(c.waivable_by) == {"them"}:
            gaps.append(
                Gap(
                    code="mac_waivable_only_by_other_side",
                    topic="no_mac",
                    severity="high",
                    message=say(
                        "The no-MAC condition protects the buyer but only the other side may "
                        "waive it, so it can force or refuse completion on it.",
                        "“无重大不利变化”条件本为保护买方而设，却仅对方有权放弃，"
                        "对方可借此强行交割或拒绝交割。",
                    ),
                    evidence=c.text,
                )
            )
    if long_stop and "them" in long_stop.extendable_by:
        gaps.append(
            Gap(
                code="long_stop_extendable_by_other_side",
                severity="medium",
                message=say(
                    "The other side can extend the long-stop date alone, keeping us bound.",
                    "对方可单方延长最终截止日，使我方持续受合同约束。",
                ),
                evidence=long_stop.text,
            )
        )
    holders = {h for t in terminations for h in t.holders}
    if terminations and not holders & {"us", "both"}:
        gaps.append(
            Gap(
                code="no_termination_right_for_us",
                severity="medium",
                message=say(
                    "Only the other side may terminate if the conditions are unmet.",
                    "先决条件未满足时，仅对方有权解除合同。",
                ),
                evidence=terminations[0].text,
            )
        )
    if scope == "document" and conditions:
        if long_stop is None:
            gaps.append(
                Gap(
                    code="no_long_stop_date",
                    severity="medium",
                    message=say(
                        "Conditions precedent with no long-stop date: no exit if unmet.",
                        "先决条件未设最终截止日，条件未满足时我方无从退出。",
                    ),
                )
            )
        if buyer and not any(c.kind == "no_mac" for c in conditions):
            gaps.append(
                Gap(
                    code="no_mac_condition",
                    severity="medium",
                    message=say(
                        "No condition protects the buyer against a material adverse change.",
                        "没有任何先决条件保护买方免受重大不利变化的影响。",
                    ),
                )
            )
    return gaps


prepare_input = input_preparer(ConditionsInput)
"""Input for a clause of the primary document."""

REGISTRATION = scoped_registration(
    SKILL_ID,
    "SPA conditions precedent",
    DESCRIPTION,
    (ConditionsInput, ConditionsOutput),
    handle,
    prepare_input,
    "extraction",
)
