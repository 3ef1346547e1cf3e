"""fidic_check_pc_consistency: what the Particular Conditions break or shift.

Works on the merge of General and Particular Conditions (`merge_documents`) and reports:

- `reference_to_deleted` / `reference_to_missing`: a sub-clause in force refers to a
  sub-clause the PC deletes, or to one that exists in neither document;
- `conflicting_values`: two sub-clauses give different periods (or percentages) for the same
  obligation (notice of delay, notice of claim, payment, ...);
- `definition_used_in_old_sense`: a term the PC redefines is used in another PC-changed
  sub-clause together with the wording of its GC definition;
- `risk_shift`: a PC change moves risk to the Contractor — unforeseeable conditions, fitness
  for purpose, a cap removed, an indemnity regardless of cause, a shorter notice period, a
  longer payment period, or a GC entitlement deleted;
- `merge_error`: a PC instruction that could not be applied.

English and Chinese. Quotes are verbatim substrings of the effective (or GC) text.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from contract_review.analysis.baseline import numbers_in, sentences
from contract_review.errors import SkillError
from contract_review.models import DocumentStructure, RiskPoint
from contract_review.parties import PartyRoles, party_actions
from contract_review.plugins.fidic.skills.merge_gc_pc import (
    MergedClause,
    MergedConditions,
    MergeProblem,
    gc_and_pc,
    merge_documents,
)
from contract_review.skills.context import ReviewContext
from contract_review.skills.risks import RiskFactory, Say
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import input_preparer
from contract_review.text import CJK_IDEOGRAPHS

SKILL_ID = "fidic_check_pc_consistency"

Kind = Literal[
    "reference_to_deleted",
    "reference_to_missing",
    "conflicting_values",
    "definition_used_in_old_sense",
    "risk_shift",
    "merge_error",
]
Shift = Literal[
    "entitlement_deleted",
    "unforeseeable_risk",
    "fitness_for_purpose",
    "cap_removed",
    "indemnity_regardless_of_cause",
    "notice_shortened",
    "payment_period_extended",
]
"""What a `risk_shift` finding shifts: its rule is 'risk_shift:<shift>'."""
Severity = Literal["high", "medium", "low"]


class CheckPcConsistencyInput(BaseModel):
    """Input of fidic_check_pc_consistency."""

    clause_id: str = Field(description="Sub-clause to check, e.g. '20.1'.")
    whole_set: bool = Field(
        False, description="Check every sub-clause of GC + PC instead of clause_id only."
    )
    document_structure: DocumentStructure | None = Field(
        None, description="Primary document structure (filled in by the system)."
    )
    baseline_structure: DocumentStructure | None = Field(
        None, description="General Conditions structure (filled in by the system)."
    )
    review_context: ReviewContext | None = Field(
        None, description="Review documents and our party (filled in by the system)."
    )


class Quote(BaseModel):
    """A verbatim passage supporting a finding."""

    clause_id: str = Field(description="Sub-clause quoted.")
    source: Literal["GC", "PC", "effective"] = Field(
        description="'GC' (General Conditions text), 'PC' (instruction) or 'effective' "
        "(text in force after the PC)."
    )
    text: str = Field(description="The passage, verbatim.")


class Finding(BaseModel):
    """One inconsistency or risk shift."""

    kind: Kind = Field(description="What was found.")
    rule: str = Field(description="Machine key: the kind, or 'risk_shift:<what>'.")
    severity: Severity = Field(description="'high', 'medium' or 'low', from the Contractor's side.")
    clause_ids: list[str] = Field(description="Sub-clauses involved, first the one at fault.")
    quotes: list[Quote] = Field(description="Verbatim passages.")
    explanation: str = Field(description="Why it matters, in one or two sentences.")


class CheckPcConsistencyOutput(BaseModel):
    """Output of fidic_check_pc_consistency."""

    clause_id: str = Field(description="Sub-clause checked ('*' for the whole set).")
    status: str = Field(description="Merge status of the sub-clause ('' for the whole set).")
    findings: list[Finding] = Field(description="Findings, most severe first.")
    deleted_sub_clauses: list[str] = Field(description="Sub-clauses the PC deletes.")


DESCRIPTION = (
    "Check the FIDIC Particular Conditions against the General Conditions for one sub-clause "
    "(or the whole set with whole_set=true): references to sub-clauses the PC deletes or that "
    "do not exist, different periods or percentages for the same obligation in two "
    "sub-clauses, terms the PC redefines but still uses in the old sense, and PC changes that "
    "shift risk to the Contractor (unforeseeable conditions, fitness for purpose, cap removed, "
    "indemnity regardless of cause, shorter notice, longer payment period, entitlements "
    "deleted). Each finding has a kind, severity, sub-clauses, verbatim quotes and an "
    "explanation. Arguments: clause_id, whole_set."
)


prepare_input = input_preparer(CheckPcConsistencyInput)
"""Input for `clause_id`: GC (BASELINE), PC (SUPPLEMENT) and our party via the context."""


# --------------------------------------------------------------------------------------------
# References
# --------------------------------------------------------------------------------------------

_REF = re.compile(r"Sub-?Clauses?\s+(\d{1,2}\.\d{1,2})|第\s*(\d{1,2}\.\d{1,2})\s*(?:款|条)")


def _references(merged: MergedConditions, say: Say) -> list[Finding]:
    deleted = set(merged.deleted_ids)
    known = set(merged.ids)
    out: list[Finding] = []
    for c in merged.clauses:
        if c.status == "deleted":
            continue
        for s in c.sentences:
            for m in _REF.finditer(s.text):
                target = m.group(1) or m.group(2)
                if target == c.clause_id:
                    continue
                if target in deleted:
                    kind: Kind = "reference_to_deleted"
                    why = say(
                        f"Sub-Clause {target} is deleted by the Particular Conditions",
                        f"第{target}款已被专用条件删除",
                    )
                elif target not in known:
                    kind = "reference_to_missing"
                    why = say(
                        f"Sub-Clause {target} exists in neither the GC nor the PC",
                        f"通用条件和专用条件中均无第{target}款",
                    )
                else:
                    continue
                out.append(
                    Finding(
                        kind=kind,
                        rule=kind,
                        severity="medium" if s.source == "PC" else "low",
                        clause_ids=[c.clause_id, target],
                        quotes=[Quote(clause_id=c.clause_id, source="effective", text=s.text)],
                        explanation=say(
                            f"Sub-Clause {c.clause_id} relies on Sub-Clause {target}, but "
                            f"{why}; the mechanism it refers to does not work.",
                            f"第{c.clause_id}款援引第{target}款，但{why}，所援引的机制无法运作。",
                        ),
                    )
                )
    return out


# --------------------------------------------------------------------------------------------
# Conflicting values for one obligation
# --------------------------------------------------------------------------------------------

_TOPICS: dict[str, tuple[str, ...]] = {
    "notice of delay": (r"notice|notify|通知", r"delay|延误|延期"),
    "notice of claim": (r"notice\s+of\s+claim|claim\s+notice|索赔通知",),
    "interim payment": (r"\bpay|payment|支付|付款", r"interim|statement|期中|进度款"),
    "retention": (r"retention|保留金|质保金",),
    "performance security": (r"performance\s+security|履约担保|履约保函",),
    "advance payment": (r"advance\s+payment|预付款",),
}
_TOPIC_RE = {k: tuple(re.compile(p, re.IGNORECASE) for p in v) for k, v in _TOPICS.items()}
_TOPICS_ZH = {
    "notice of delay": "延误通知",
    "notice of claim": "索赔通知",
    "interim payment": "期中付款",
    "retention": "保留金",
    "performance security": "履约担保",
    "advance payment": "预付款",
}
_KINDS_ZH = {"period": "期限", "percentage": "比例"}
_EXCLUDE = {"notice of delay": re.compile(r"notice\s+of\s+claim|索赔", re.IGNORECASE)}


def _conflicts(merged: MergedConditions, say: Say) -> list[Finding]:
    out: list[Finding] = []
    for topic, regexes in _TOPIC_RE.items():
        seen: list[tuple[MergedClause, str, str, float, bool]] = []
        for c in merged.clauses:
            for s in c.sentences:
                if not all(r.search(s.text) for r in regexes):
                    continue
                if topic in _EXCLUDE and _EXCLUDE[topic].search(s.text):
                    continue
                for n in numbers_in(s.text):
                    if n.kind in ("period", "percentage"):
                        seen.append((c, s.text, n.kind, n.value, s.source == "PC"))
        for kind in ("period", "percentage"):
            rows = [r for r in seen if r[2] == kind]
            values = {r[3] for r in rows}
            if len(values) < 2 or len({r[0].clause_id for r in rows}) < 2:
                continue
            if not any(r[4] for r in rows):
                continue  # only the GC: not a PC inconsistency
            pc_rows = sorted(rows, key=lambda r: not r[4])
            first = pc_rows[0]
            other = next(r for r in pc_rows if r[3] != first[3])
            ids = list(dict.fromkeys([first[0].clause_id, other[0].clause_id]))
            if len(ids) < 2:
                continue
            out.append(
                Finding(
                    kind="conflicting_values",
                    rule="conflicting_values",
                    severity="medium",
                    clause_ids=ids,
                    quotes=[
                        Quote(clause_id=first[0].clause_id, source="effective", text=first[1]),
                        Quote(clause_id=other[0].clause_id, source="effective", text=other[1]),
                    ],
                    explanation=say(
                        f"Different {kind}s are given for the {topic}: Sub-Clause {ids[0]} and "
                        f"Sub-Clause {ids[1]} disagree; the shorter one may be enforced against "
                        "the Contractor.",
                        f"第{ids[0]}款与第{ids[1]}款就{_TOPICS_ZH[topic]}约定的"
                        f"{_KINDS_ZH[kind]}不一致，可能按较短者对承包人执行。",
                    ),
                )
            )
    return out


# --------------------------------------------------------------------------------------------
# Redefined terms used in the old sense
# --------------------------------------------------------------------------------------------

_DEF = re.compile(r"[\"“]([^\"”\n]{1,60})[\"”]\s*(?:means|shall\s+mean|是指|指|系指)\s*([^\n]+)")
_STOP = frozenset(
    {
        "the",
        "a",
        "an",
        "of",
        "by",
        "to",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "not",
        "any",
        "all",
        "be",
        "is",
        "are",
        "was",
        "were",
        "with",
        "which",
        "that",
        "this",
        "shall",
        "may",
        "its",
        "it",
        "as",
        "from",
    }
)
_WORD = re.compile(rf"[A-Za-z]{{3,}}|[{CJK_IDEOGRAPHS}]{{2,}}")


def _markers(text: str) -> set[str]:
    out: set[str] = set()
    for w in _WORD.findall(text):
        if w.isascii():
            if w.casefold() not in _STOP:
                out.add(w.casefold())
        else:
            out |= {w[i : i + 2] for i in range(len(w) - 1)}
    return out


def _definitions(text: str) -> dict[str, str]:
    return {m.group(1).strip(): m.group(2).strip() for m in _DEF.finditer(text)}


def _old_sense(merged: MergedConditions, say: Say) -> list[Finding]:
    gc_defs: dict[str, tuple[str, str]] = {}
    for c in merged.clauses:
        for term, d in _definitions(c.gc_text).items():
            gc_defs.setdefault(term, (c.clause_id, d))
    out: list[Finding] = []
    for c in merged.clauses:
        for s in c.sentences:
            if s.source != "PC":
                continue
            for term, new_def in _definitions(s.text).items():
                old = gc_defs.get(term)
                if old is None or old[1] == new_def:
                    continue
                marks = _markers(old[1]) - _markers(new_def) - _markers(term)
                need = 2 if term.isascii() else 3
                out += _uses(merged, term, c, s.text, marks, need, say)
    return out


def _uses(
    merged: MergedConditions,
    term: str,
    where: MergedClause,
    def_sentence: str,
    marks: set[str],
    need: int,
    say: Say,
) -> list[Finding]:
    out: list[Finding] = []
    for c in merged.clauses:
        if c.clause_id == where.clause_id or c.status == "unchanged":
            continue
        for s in c.sentences:
            if s.source != "PC" or term not in s.text:
                continue
            hits = _markers(s.text) & marks
            if len(hits) < need:
                continue
            out.append(
                Finding(
                    kind="definition_used_in_old_sense",
                    rule="definition_used_in_old_sense",
                    severity="medium",
                    clause_ids=[c.clause_id, where.clause_id],
                    quotes=[
                        Quote(clause_id=c.clause_id, source="effective", text=s.text),
                        Quote(clause_id=where.clause_id, source="effective", text=def_sentence),
                    ],
                    explanation=say(
                        f"'{term}' is redefined in Sub-Clause {where.clause_id}, but Sub-Clause "
                        f"{c.clause_id} uses it with the wording of the GC definition "
                        f"({', '.join(sorted(hits))}); the two readings conflict.",
                        f"“{term}”已在第{where.clause_id}款中重新定义，但第{c.clause_id}款仍按"
                        "通用条件原定义的措辞使用该术语（"
                        + "、".join(f"“{h}”" for h in sorted(hits))
                        + "），两种理解相互冲突。",
                    ),
                )
            )
    return out


# --------------------------------------------------------------------------------------------
# Risk shifted to the Contractor
# --------------------------------------------------------------------------------------------

_UNFORESEEN = re.compile(r"unforeseeable|foreseen|physical\s+conditions|不可预见|物质条件", re.I)
_FITNESS = re.compile(r"fit\s+for\s+(?:every|any|all)\s+purpose|任何(?:用途|目的)", re.I)
_CAP = re.compile(
    r"shall\s+not\s+exceed|maximum\s+amount|\bcap\b|limited\s+to|上限|不(?:得|应)?超过|最高限额",
    re.I,
)
_NO_CAP = re.compile(
    r"not\s+be\s+subject\s+to\s+any\s+(?:maximum|limit|cap)|without\s+(?:any\s+)?limit|"
    r"unlimited|uncapped|no\s+(?:maximum|limit|cap)|不设(?:上限|限额)|无上限|不受(?:任何)?(?:上限|限额)",
    re.I,
)
_ANY_CAUSE = re.compile(
    r"regardless\s+of\s+(?:the\s+)?cause|howsoever\s+caused|irrespective\s+of\s+(?:the\s+)?cause|"
    r"(?:无论|不论)[^。；]{0,20}原因",
    re.I,
)
_NOTICE = re.compile(r"notice|notify|通知", re.I)
_PAYMENT = re.compile(r"\bpay\b|payment|支付|付款", re.I)


def _periods(text: str, topic: re.Pattern[str]) -> list[tuple[float, str]]:
    out: list[tuple[float, str]] = []
    for s, e in sentences(text):
        sent = text[s:e]
        if topic.search(sent):
            out += [(n.value, sent) for n in numbers_in(sent) if n.kind == "period"]
    return out


def _risk(rule: Shift, c: MergedClause, quote: str, why: str, severity: Severity) -> Finding:
    quotes = [Quote(clause_id=c.clause_id, source="effective", text=quote)] if quote else []
    return Finding(
        kind="risk_shift",
        rule=f"risk_shift:{rule}",
        severity=severity,
        clause_ids=[c.clause_id],
        quotes=quotes,
        explanation=why,
    )


def _pc_sentence(c: MergedClause, regex: re.Pattern[str]) -> str:
    return next((s.text for s in c.sentences if s.source == "PC" and regex.search(s.text)), "")


def _risk_shifts(c: MergedClause, roles: PartyRoles | None, say: Say) -> list[Finding]:
    """What the PC's change of `c` moves onto our side (nothing when acting for nobody)."""
    if c.status == "unchanged" or roles is None:
        return []
    if c.status == "deleted":
        return _entitlement_deleted(c, roles, say)
    return [
        *_unforeseen_risk(c, roles, say),
        *(f for f in _terms_added(c, say) if _burdens_us(f, roles, "obligation")),
        *(f for f in _periods_shifted(c, say) if _burdens_us(f, roles, "obligation")),
    ]


_CONTRACTOR = re.compile(r"contractor|承包人|承包商|乙方", re.I)
_PAYEE_BURDENED: frozenset[str] = frozenset({"risk_shift:payment_period_extended"})
"""Shifts that burden the party paid, not the one that acts (a longer period to pay)."""


def _burdens_us(f: Finding, roles: PartyRoles, kind: str) -> bool:
    """Whether the shift `f` lands on our side: on the party its quoted sentence obliges
    (the payer's payee for a longer payment period), else on the Contractor, whom the GC's
    standard positions protect. Acting for the Employer, a cap removed from the Contractor's
    liability or a shorter notice for its claims is in our favour, not a risk."""
    quote = f.quotes[0].text if f.quotes else ""
    acting = [
        a.side
        for a in party_actions(quote, roles)
        if a.kind in (kind, "bears") and a.side in ("us", "them")
    ]
    contractor_ours = any(_CONTRACTOR.search(r) for r in (*roles.our_roles, *roles.our_aliases))
    side = acting[0] if acting else ("us" if contractor_ours else "them")
    if f.rule in _PAYEE_BURDENED:
        return side == "them" if acting else contractor_ours
    return side == "us"


def _entitlement_deleted(c: MergedClause, roles: PartyRoles, say: Say) -> list[Finding]:
    """A deleted sub-clause that gave us a right or put a risk on the other side."""
    gives_us = [
        sent
        for sent in (c.gc_text[s:e] for s, e in sentences(c.gc_text))
        if any(
            (a.side == "us" and a.kind in ("right", "exempt"))
            or (a.side == "them" and a.kind == "bears")
            for a in party_actions(sent, roles)
        )
    ]
    if not gives_us:
        return []
    f = _risk(
        "entitlement_deleted",
        c,
        "",
        say(
            f"The PC deletes Sub-Clause {c.clause_id}, which gave the Contractor a right "
            "or put a risk on the Employer.",
            f"专用条件删除了第{c.clause_id}款，而该款赋予承包人权利或将风险分配给发包人。",
        ),
        "medium",
    )
    f.quotes = [Quote(clause_id=c.clause_id, source="GC", text=gives_us[0])]
    return [f]


def _unforeseen_risk(c: MergedClause, roles: PartyRoles, say: Say) -> list[Finding]:
    """The risk of unforeseeable conditions, the GC's to the Employer, put on us by the PC."""
    ours_bear = [
        s.text
        for s in c.sentences
        if s.source == "PC"
        and any(
            a.side == "us" and a.kind in ("bears", "denial") for a in party_actions(s.text, roles)
        )
    ]
    if not (_UNFORESEEN.search(c.gc_text + c.title) and ours_bear):
        return []
    hit = next((t for t in ours_bear if _UNFORESEEN.search(t)), ours_bear[0])
    return [
        _risk(
            "unforeseeable_risk",
            c,
            hit,
            say(
                "The risk of unforeseeable physical conditions moves to the Contractor, with "
                "no time or money for them; the GC leaves it with the Employer.",
                "不可预见的物质条件风险转由承包人承担，承包人无权就此获得工期顺延或费用补偿；"
                "通用条件原将该风险分配给发包人。",
            ),
            "high",
        )
    ]


def _terms_added(c: MergedClause, say: Say) -> list[Finding]:
    """Burdens the PC adds that the GC does not carry: fitness for purpose, an uncapped
    liability, an indemnity whatever the cause."""
    out: list[Finding] = []
    pc_text = " ".join(s.text for s in c.sentences if s.source == "PC")
    if (q := _pc_sentence(c, _FITNESS)) and not _FITNESS.search(c.gc_text):
        out.append(
            _risk(
                "fitness_for_purpose",
                c,
                q,
                say(
                    "An open fitness-for-purpose duty is added.",
                    "新增了不设范围限制的“符合任何用途”义务。",
                ),
                "high",
            )
        )
    if _CAP.search(c.gc_text) and (
        (q := _pc_sentence(c, _NO_CAP)) or (c.status == "replaced" and not _CAP.search(pc_text))
    ):
        quote = q or next((s.text for s in c.sentences if s.source == "PC"), "")
        out.append(
            _risk(
                "cap_removed",
                c,
                quote,
                say(
                    "The cap the GC places on this liability is removed: the Contractor's "
                    "exposure is unlimited.",
                    "通用条件对该项责任设定的上限被删除，承包人的责任不设上限。",
                ),
                "high",
            )
        )
    if (q := _pc_sentence(c, _ANY_CAUSE)) and not _ANY_CAUSE.search(c.gc_text):
        out.append(
            _risk(
                "indemnity_regardless_of_cause",
                c,
                q,
                say(
                    "The Contractor must cover losses whatever their cause, including losses "
                    "the Employer causes.",
                    "无论损失因何产生（包括发包人造成的损失），均须由承包人承担。",
                ),
                "high",
            )
        )
    return out


def _periods_shifted(c: MergedClause, say: Say) -> list[Finding]:
    """A notice period the PC shortens, or the Employer's payment period it lengthens."""
    out: list[Finding] = []
    shifts: tuple[tuple[re.Pattern[str], Shift, bool], ...] = (
        (_NOTICE, "notice_shortened", True),
        (_PAYMENT, "payment_period_extended", False),
    )
    for topic, rule, shorter in shifts:
        before = _periods(c.gc_text, topic)
        after = _periods(c.effective_text, topic)
        if not before or not after:
            continue
        b_vals = {v for v, _ in before}
        changed = [
            (v, sent)
            for v, sent in after
            if v not in b_vals
            and (v < max(b_vals) if shorter else v > min(b_vals))
            and any(sent == s.text and s.source == "PC" for s in c.sentences)
        ]
        if changed:
            v, sent = changed[0]
            gc_days = ", ".join(f"{x:g}" for x in sorted(b_vals))
            what = (
                say(
                    f"A notice period is cut to {v:g} days (GC: {gc_days} days).",
                    f"通知期限缩短为{v:g}天（通用条件：{gc_days.replace(', ', '、')}天）。",
                )
                if shorter
                else say(
                    f"The Employer's payment period grows to {v:g} days (GC: {gc_days} days).",
                    f"发包人的付款期限延长至{v:g}天（通用条件：{gc_days.replace(', ', '、')}天）。",
                )
            )
            out.append(_risk(rule, c, sent, what, "high" if shorter else "medium"))
    return out


# --------------------------------------------------------------------------------------------
# Run
# --------------------------------------------------------------------------------------------

_ORDER = {"high": 0, "medium": 1, "low": 2}


def _problem_zh(p: MergeProblem) -> str:
    """A merge problem explained in Chinese."""
    pc, gc = p.pc_clause_id, p.clause_id
    if p.kind == "text_not_found":
        return (
            f"专用条件第{pc}款要求修改的文字“{p.words}”不在通用条件第{gc}款中，仍适用通用条件原文。"
        )
    if p.kind == "unknown_target":
        return f"专用条件第{pc}款的修改指示针对的第{gc}款在通用条件中并不存在。"
    if p.kind == "no_instruction":
        return f"专用条件第{pc}款未载明可识别的修改方式，已按替换通用条件第{gc}款处理。"
    return f"专用条件第{pc}款对第{gc}款的修改指示相互冲突。"


def check_merged(
    merged: MergedConditions,
    roles: PartyRoles | None,
    language: str = "en",
) -> list[Finding]:
    """All findings over the whole merged set, most severe first, explained in `language`;
    `roles` is our side in the General Conditions (None: neutral, no risk shifts judged)."""
    say = Say(language)
    out = _references(merged, say) + _conflicts(merged, say) + _old_sense(merged, say)
    for c in merged.clauses:
        out += _risk_shifts(c, roles, say)
    for p in merged.problems:
        out.append(
            Finding(
                kind="merge_error",
                rule=p.kind,
                severity="low",
                clause_ids=[p.clause_id],
                quotes=[Quote(clause_id=p.pc_clause_id, source="PC", text=p.quote)],
                explanation=say(p.message, _problem_zh(p)),
            )
        )
    out.sort(key=lambda f: _ORDER[f.severity])
    return out


def handle(inp: CheckPcConsistencyInput) -> CheckPcConsistencyOutput:
    """Findings for `inp.clause_id` (or all, with `whole_set`)."""
    gc, pc = gc_and_pc(inp.baseline_structure, inp.document_structure, inp.review_context)
    merged = merge_documents(gc, pc)
    ctx = inp.review_context
    roles = ctx.roles_in(gc) if ctx is not None and ctx.our_party else None
    findings = check_merged(merged, roles, ctx.language if ctx is not None else "en")
    if inp.whole_set:
        return CheckPcConsistencyOutput(
            clause_id="*", status="", findings=findings, deleted_sub_clauses=merged.deleted_ids
        )
    clause = merged.get(inp.clause_id.strip())
    if clause is None:
        near = [i for i in merged.ids if i.split(".")[0] == inp.clause_id.split(".")[0]][:8]
        raise SkillError(
            f"sub-clause '{inp.clause_id}' is in neither the General nor the Particular "
            f"Conditions; existing ids include: {', '.join(near or merged.ids[:8])}"
        )
    return CheckPcConsistencyOutput(
        clause_id=clause.clause_id,
        status=clause.status,
        findings=[f for f in findings if clause.clause_id in f.clause_ids],
        deleted_sub_clauses=merged.deleted_ids,
    )


def risk_rule(risk: RiskFactory, out: CheckPcConsistencyOutput) -> list[RiskPoint]:
    """Each finding is a risk of its severity, quoted on this clause where it has a quote."""
    clause_id = risk.clause.clause_id
    return [
        risk.risk(
            SKILL_ID,
            f.severity,
            f.rule or f.kind,
            f.explanation,
            quote=next((q.text for q in f.quotes if q.clause_id == clause_id), None),
        )
        for f in out.findings
    ]


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="FIDIC PC consistency check",
    description=DESCRIPTION,
    input_schema=CheckPcConsistencyInput,
    output_schema=CheckPcConsistencyOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="fidic",
    category="validation",
    risk_rule=risk_rule,
    judges_given_text=False,  # it reads GC + PC, not the conditions in force it is given
)
