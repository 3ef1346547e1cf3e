"""fidic_calculate_time_bar: every time limit of a clause, who must act, and what missing it costs.

A time limit is a period (found by `analysis.financial.analyse`) with a limit cue around it:
"within 28 days", "not later than 14 days", "at least 7 days before", "7 days in advance",
"28天内", "不迟于…14天", "提前7天". For each one the skill reports the trigger it runs from
("after the Contractor became aware", "收到…后"), the party that must act (`contract_review.parties`), the
consequence of missing it (time bar, deemed approval or rejection, final and binding, interest,
damages, or none stated) — looked for after the limit in its sentence, else in a later sentence
of the (sub-)clause that refers back to it ("If that notice is not sent within the 28-day
period…") — and, when the domain's baseline position for the clause names a number of days, a
comparison with it. Given a trigger date, concrete deadlines are computed.

`time_bars_for_document` runs the same extraction over a whole contract (each part of the text
once) for the calendar export.
"""

from __future__ import annotations

import calendar
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping
from datetime import date, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field

from contract_review.analysis.financial import analyse as analyse_terms
from contract_review.models import (
    BaselinePosition,
    ClauseKind,
    ClauseNode,
    DocumentStructure,
    RiskLevel,
    RiskPoint,
)
from contract_review.parties import (
    GENERIC_LABELS,
    ROLE_SYNONYMS,
    PartyRoles,
    role_actions,
)
from contract_review.plugins.fidic.skills.merge_gc_pc import _SUBST as _SUBSTITUTION
from contract_review.skills.context import ReviewContext, StructureInput, require_clause
from contract_review.skills.risks import RiskFactory
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import input_preparer
from contract_review.text import SENTENCE_OR_LINE_END

__all__ = [
    "REGISTRATION",
    "SKILL_ID",
    "TimeBar",
    "TimeBarInput",
    "TimeBarOutput",
    "compute_deadline",
    "handle",
    "prepare_input",
    "time_bars_for_clause",
    "time_bars_for_document",
]

SKILL_ID = "fidic_calculate_time_bar"

PeriodUnit = Literal["hour", "day", "week", "month", "year"]
DayType = Literal["calendar", "working", "unspecified"]
LimitType = Literal["within", "not_later_than", "at_least", "in_advance"]
Relation = Literal["after", "before"]
StandardPart = Literal["trigger", "who", "action", "consequence"]
Consequence = Literal[
    "time_bar",
    "deemed_approval",
    "deemed_rejection",
    "final_and_binding",
    "interest",
    "damages",
    "none_stated",
]

# --------------------------------------------------------------------------------------------
# Input and output
# --------------------------------------------------------------------------------------------


class TimeBarInput(StructureInput):
    """Input of fidic_calculate_time_bar."""

    clause_id: str = Field(description="Id of the clause, e.g. '20.1', '14.7', '15.1'.")
    trigger_date: date | None = Field(
        None,
        description="Optional ISO date (YYYY-MM-DD) of the triggering event; when given, each "
        "time limit gets a concrete deadline date.",
    )
    review_context: ReviewContext | None = Field(
        None, description="Review facts: our party, domain (filled in by the system)."
    )


class TimeBar(BaseModel):
    """One time limit of a clause."""

    clause_id: str = Field(description="Deepest clause holding the time limit.")
    clause_label: str = Field(description="How to name the clause, e.g. 'Sub-Clause 20.1(a)'.")
    quote: str = Field(
        description="The time limit exactly as written, e.g. 'not later than 28 days', '28天内'."
    )
    start: int = Field(ge=0, description="Offset of the quote in the clause text (clause_id).")
    end: int = Field(ge=0, description="Offset just past the quote in the clause text.")
    clause_start_offset: int = Field(
        ge=0, description="Document offset of the clause text (add to start/end)."
    )
    sentence: str = Field(description="The sentence holding the time limit, verbatim.")
    value: float = Field(description="Number of units: 'twenty-eight (28) days' -> 28.")
    unit: PeriodUnit = Field(description="hour, day, week, month or year.")
    day_type: DayType | None = Field(
        None,
        description="For days: 'calendar', 'working' (business/working days, 工作日) or "
        "'unspecified' (plain 'days'/'天', i.e. calendar days); None for other units.",
    )
    limit_type: LimitType = Field(
        description="'within' (within/内), 'not_later_than' (not/no later than, 不迟于), "
        "'at_least' (at least/not less than) or 'in_advance' (… before / in advance / 提前)."
    )
    promptly: bool = Field(
        description="Whether the act must also be done promptly ('promptly, and in any event "
        "within…', 立即/及时)."
    )
    trigger: str | None = Field(
        None,
        description="The event the period runs from or to, verbatim ('after the Contractor "
        "first knew', '收到监理人审核意见后'); None if not stated.",
    )
    trigger_relation: Relation | None = Field(
        None, description="'after' (period runs from the trigger) or 'before' (ends at it)."
    )
    who: str | None = Field(None, description="Party word that must act, as written.")
    who_role: str | None = Field(
        None, description="Canonical role of who must act ('contractor', 'employer', 'both')."
    )
    who_side: Literal["us", "them", "both"] | None = Field(
        None, description="Whether that is our party or the other side (our party known)."
    )
    action: str = Field("", description="What must be done, verbatim (shortened).")
    consequence: Consequence = Field(
        description="What missing the limit costs: time_bar (entitlement lost), "
        "deemed_approval, deemed_rejection, final_and_binding, interest, damages, none_stated."
    )
    consequence_quote: str | None = Field(
        None, description="The words stating the consequence, verbatim; None if none stated."
    )
    standard_days: float | None = Field(
        None, description="Days the domain's standard position gives for the clause, if any."
    )
    standard_quote: str | None = Field(
        None, description="The period as written in the standard position."
    )
    shorter_than_standard: bool | None = Field(
        None, description="Whether this limit is shorter than the standard; None if no standard."
    )
    deadline: date | None = Field(
        None, description="Last day to act (from the trigger date), when one is known."
    )
    replaces: str | None = Field(
        None,
        description="For a limit set by an amendment ('delete “within 28 days” and replace "
        "with “within 14 days”'): the time limit (or words) it replaces, e.g. 'within 28 "
        "days'; None otherwise.",
    )
    from_standard: list[StandardPart] = Field(
        default_factory=list,
        description="What the amendment setting the limit does not say and the domain's "
        "standard position for the clause gives: 'trigger', 'who', 'action', 'consequence'.",
    )


class TimeBarOutput(BaseModel):
    """Output of fidic_calculate_time_bar."""

    clause_id: str = Field(description="Clause analysed.")
    clause_start_offset: int = Field(description="Document offset of the clause text.")
    trigger_date: date | None = Field(None, description="Trigger date used for deadlines.")
    baseline_key: str | None = Field(
        None, description="Key of the standard position compared with, if one was found."
    )
    time_bars: list[TimeBar] = Field(description="Time limits in text order.")


DESCRIPTION = (
    "Find every time limit in a clause (notice periods, response periods, payment periods: "
    "'within 28 days after…', 'not later than', 'at least 7 days before', '28天内', '不迟于', "
    "'提前7天'), with for each: the verbatim quote, number and unit (calendar or working "
    "days), the trigger event it runs from, who must act (and whether that is our side), the "
    "consequence of missing it (time bar / loss of entitlement, deemed approval, deemed "
    "rejection, final and binding, interest, damages or none stated) and whether it is "
    "shorter than the standard position. Call it on notice, claims, payment, approval and "
    "dispute clauses. Arguments: clause_id; optional trigger_date (YYYY-MM-DD) to get the "
    "concrete deadline dates."
)


prepare_input = input_preparer(TimeBarInput)
"""Input for `clause_id` of the primary document."""


# --------------------------------------------------------------------------------------------
# Patterns (applied to a lower-cased copy of the text, same length)
# --------------------------------------------------------------------------------------------

_EN_CUE = re.compile(
    r"(?P<cue>(?:in\s+any\s+(?:event|case)\s+)?(?:within|(?:by\s+)?n(?:o|ot)\s+later\s+than"
    r"|n(?:o|ot)\s+more\s+than|at\s+least|n(?:o|ot)\s+less\s+than|a\s+minimum\s+of))"
    r"\s+(?:(?:a|the)\s+(?:period|time)\s+of\s+)?$"
)
_EN_AFTER = re.compile(
    r"(?:'s|’s|'|’)?\s*(?:(?:prior\s+)?(?:written\s+)?notice\s+)?"
    r"(?:(?P<adv>in\s+advance)|(?P<rel>after|from|following|of|before|prior\s+to)\s+"
    r"(?P<what>[^,;:.()\n]{1,120}))"
)
_ZH_WITHIN_AFTER = re.compile(r"(?:之内|以内|内)")
_ZH_BEFORE_AFTER = re.compile(r"(?:之前|以前|前)(?![^，。；,;]{0,4}(?:天|日))")
_ZH_LATEST = re.compile(r"(?:不迟于|不晚于|最迟(?:于|在)?|至迟)[^，。；,;：:\n]{0,30}$")
_ZH_ADVANCE = re.compile(r"提前(?:至少|不少于)?$|前(?:至少|不少于)$")
_ZH_AT_LEAST = re.compile(r"(?:至少|不少于|不低于)$")
_ZH_TRIGGER = re.compile(
    r"[在自从于](?P<what>[^，。；,;：:\n]{1,40}?(?:之后|以后|后|之日起|起|之前|以前|前))"
    r"(?:的)?(?:不迟于|不晚于|至少|不少于)?$"
)
_PROMPTLY = re.compile(r"promptly|forthwith|immediately|without\s+delay|立即|及时|立刻|迅速")
_SENTENCE_END = SENTENCE_OR_LINE_END
_PART_END = re.compile(r"[,;，；。:：(\n]")

_CONSEQUENCES: tuple[tuple[Consequence, re.Pattern[str]], ...] = (
    (
        "deemed_rejection",
        re.compile(
            r"deemed\s+to\s+(?:have\s+been\s+|be\s+)?(?:rejected|refused|declined|withdrawn)"
            r"|deemed\s+(?:rejection|refusal)|视为[^，。；,;]{0,20}?(?:拒绝|不同意|不认可|驳回|撤回)"
        ),
    ),
    (
        "time_bar",
        re.compile(
            r"los(?:e|es|ing)\s+(?:any|all|its|the|his|their)?\s*(?:rights?|entitlements?)"
            r"|shall\s+not\s+be\s+entitled|will\s+not\s+be\s+entitled|(?:is|are)\s+not\s+entitled"
            r"|shall\s+have\s+no\s+(?:right|claim|entitlement)|time[- ]barred"
            r"|(?:deemed\s+to\s+have\s+)?waived|forfeit\w*|shall\s+be\s+barred"
            r"|no\s+longer\s+be\s+entitled|丧失[^，。；,;]{0,16}?权利?|无权(?:再)?[^，。；,;]{0,24}?"
            r"(?:主张|要求|索赔|提出)|不得(?:再)?(?:主张|要求|提出|索赔)|视为(?:放弃|弃权)"
            r"|(?:视为)?[^，。；,;]{0,8}?不予(?:受理|顺延|调整|支持|赔偿|补偿|追加|延长)"
        ),
    ),
    (
        "deemed_approval",
        re.compile(
            r"deemed\s+to\s+(?:have\s+been\s+|be\s+|have\s+)?(?:approved|accepted|agreed"
            r"|consented|given\s+(?:its\s+)?(?:approval|consent))|deemed\s+(?:approval|acceptance)"
            r"|treated\s+as\s+(?:approved|accepted)"
            r"|视为[^，。；,;]{0,12}?(?:认可|同意|批准|接受|确认|验收合格|通过)"
        ),
    ),
    (
        "final_and_binding",
        re.compile(
            r"final\s+and\s+binding|no\s+longer\s+be\s+(?:disputed|challenged)"
            r"|(?:shall|will)\s+become\s+final|为最终|不得再(?:提出)?(?:异议|争议)"
        ),
    ),
    (
        "damages",
        re.compile(r"liquidated\s+damages|delay\s+damages|违约金|误期赔偿"),
    ),
    (
        "interest",
        re.compile(
            r"(?<!no )(?<!without )interest|financing\s+charges|(?<![无不计])利息|资金占用费"
        ),
    ),
)
_NEGATED = re.compile(r"(?:\bnot\s+(?:be\s+)?|不)$")
_NO_INTEREST = re.compile(
    r"\bno\s+interest|without\s+interest|not\s+(?:be\s+)?(?:liable|obliged|required)\s+to\s+pay"
    r"\s+(?:any\s+)?interest|无息|不计[付]?利息|不计息|不(?:承担|支付)[^。；;\n]{0,12}利息"
)
_BACK_REF = re.compile(
    r"(?:that|the|such|this|said)\s+(?:[0-9a-z-]+\s+)?(?:period|time\s+limit)"
    r"|\bnot\s+(?:sent|given|submitted|made|served|delivered|issued)\s+within"
    r"|fail(?:s|ed|ure)?\s+to\s+[^.]{0,60}?within|逾期|超过(?:该|上述|前述|此|规定)?期限|未按期|未在"
)

_ROLE_OF: dict[str, str] = {
    **{w: key for key, words in ROLE_SYNONYMS.items() for w in words},
    **GENERIC_LABELS,
}
_ROLE_WORD = re.compile(
    "|".join(
        rf"(?<![A-Za-z]){re.escape(w)}(?![A-Za-z])" if w.isascii() else re.escape(w)
        for w in sorted(_ROLE_OF, key=len, reverse=True)
    )
)
_MODAL = re.compile(r"\b(?:shall|must)\b|应当?|须|必须")
_FOLLOW_UP_CHARS = 2000
_FOLLOW_UP_SENTENCES = 6
"""How far after its sentence a limit's consequence is looked for."""
_UNIT_DAYS: dict[str, int] = {"day": 1, "week": 7}


# --------------------------------------------------------------------------------------------
# Deadlines
# --------------------------------------------------------------------------------------------


def _add_months(d: date, months: int) -> date:
    m = d.month - 1 + months
    year, month = d.year + m // 12, m % 12 + 1
    return date(year, month, min(d.day, calendar.monthrange(year, month)[1]))


def _add_working_days(d: date, n: int) -> date:
    step = 1 if n >= 0 else -1
    left = abs(n)
    while left:
        d += timedelta(days=step)
        if d.weekday() < 5:
            left -= 1
    return d


def compute_deadline(
    trigger: date,
    value: float,
    unit: str,
    day_type: str | None = None,
    relation: str | None = "after",
) -> date:
    """The last day to act: `value` `unit`s after (or, relation 'before', before) `trigger`.

    Calendar days add days; working days skip Saturdays and Sundays; weeks, months and years
    use calendar arithmetic (31 January + 1 month = 28/29 February); hours round up to days.
    """
    sign = -1 if relation == "before" else 1
    n = round(value)
    if unit == "day":
        if day_type == "working":
            return _add_working_days(trigger, sign * n)
        return trigger + timedelta(days=sign * n)
    if unit == "week":
        return trigger + timedelta(weeks=sign * value)
    if unit == "month":
        return _add_months(trigger, sign * n)
    if unit == "year":
        return _add_months(trigger, sign * 12 * n)
    return trigger + timedelta(days=sign * -(-int(value) // 24))


# --------------------------------------------------------------------------------------------
# Extraction
# --------------------------------------------------------------------------------------------


class _Sentences:
    """Sentence boundaries of a text, found once; `bounds(pos)` by binary search."""

    def __init__(self, text: str) -> None:
        marks = list(_SENTENCE_END.finditer(text))
        self._after = [m.end() for m in marks]
        self._at = [m.start() for m in marks]
        self._len = len(text)

    def bounds(self, pos: int) -> tuple[int, int]:
        """(start, end) of the sentence holding `pos` (end: its terminator's offset)."""
        i = bisect_right(self._after, pos)
        j = bisect_left(self._at, pos)
        return (self._after[i - 1] if i else 0), (self._at[j] if j < len(self._at) else self._len)


def _part_end(text: str, pos: int, limit: int) -> int:
    m = _PART_END.search(text, pos, limit)
    return m.start() if m else limit


class _Found(BaseModel):
    start: int
    end: int
    value: float
    unit: PeriodUnit
    day_type: DayType | None
    limit_type: LimitType
    trigger: str | None = None
    trigger_end: int = 0
    relation: Relation | None = None
    amended: tuple[int, int] | None = None
    """For a limit an amendment sets: the range of the new words (offsets index the text)."""
    replaces: str | None = None
    standard: TimeBar | None = None
    """The limit of the standard position the amended one stands for."""


def _find_limits(text: str) -> list[_Found]:
    """The time limits of `text`, in order (offsets index `text`)."""
    items, _ = analyse_terms(text)
    low = _lower(text)
    out: list[_Found] = []
    for it in items:
        if it.kind != "period" or it.unit not in ("hour", "day", "week", "month", "year"):
            continue
        s, e = it.start, it.end
        limit_type: LimitType | None = None
        qstart, qend = s, e
        trigger: str | None = None
        relation: Relation | None = None
        trigger_end = e
        cjk = not text[s:e].isascii() or not text[e - 1 : e].isascii()
        if not cjk:
            cue = _EN_CUE.search(low, max(0, s - 60), s)
            if cue:
                words = " ".join(cue.group("cue").split())
                limit_type = (
                    "within"
                    if words.endswith("within")
                    else "not_later_than"
                    if "later than" in words or "more than" in words
                    else "at_least"
                )
                qstart = cue.start("cue")
            after = _EN_AFTER.match(low, e)
            if after and (limit_type or after.group("adv") or after.group("rel") in ("before",)):
                if after.group("adv"):
                    limit_type, qend = "in_advance", after.end()
                else:
                    rel = " ".join(after.group("rel").split())
                    what_end = after.end("what")
                    what = text[after.start("rel") : what_end].rstrip()
                    if rel in ("before", "prior to"):
                        limit_type, relation = "in_advance", "before"
                    else:
                        relation = "after"
                    trigger, trigger_end = what, after.start("rel") + len(what)
        else:
            seg_start = max(
                (m.end() for m in re.finditer(r"[，。；,;：:\n]", text[max(0, s - 80) : s])),
                default=0,
            ) + max(0, s - 80)
            before = text[seg_start:s]
            within = _ZH_WITHIN_AFTER.match(text, e)
            if within:
                limit_type, qend = "within", within.end()
            latest = _ZH_LATEST.search(before)
            if latest:
                limit_type, qstart = "not_later_than", seg_start + latest.start()
            advance = _ZH_ADVANCE.search(before)
            ahead = _ZH_BEFORE_AFTER.match(text, e)
            at_least = _ZH_AT_LEAST.search(before)
            if advance:
                limit_type, relation = "in_advance", "before"
                qstart = seg_start + advance.start()
            elif ahead and limit_type is None:
                limit_type, relation, qend = "in_advance", "before", ahead.end()
            elif at_least and limit_type is None:
                limit_type, qstart = "at_least", seg_start + at_least.start()
            trig = _ZH_TRIGGER.search(before)
            if trig and limit_type is not None:
                trigger = trig.group("what")
                trigger_end = seg_start + trig.end("what")
                if relation is None:
                    relation = "before" if trigger.endswith("前") else "after"
        if limit_type is None:
            continue
        out.append(
            _Found(
                start=qstart,
                end=qend,
                value=float(it.value),
                unit=it.unit,
                day_type=it.cow,
                limit_type=limit_type,
                trigger=trigger,
                trigger_end=trigger_end,
                relation=relation,
            )
        )
    return out


def _lower(text: str) -> str:
    """Lower-cased copy of `text` with the same length (offsets stay valid)."""
    low = text.lower()
    if len(low) != len(text):  # a few non-ASCII letters lengthen when lowered
        low = "".join(c if len(lc := c.lower()) != 1 else lc for c in text)
    return low


def _consequence_in(low: str, lo: int, hi: int) -> tuple[Consequence, int, int] | None:
    """The first consequence stated in low[lo:hi] (not negated), or None."""
    best: tuple[Consequence, int, int] | None = None
    for kind, pattern in _CONSEQUENCES:
        for m in pattern.finditer(low, lo, hi):
            if _NEGATED.search(low, max(lo, m.start() - 8), m.start()):
                continue
            if kind == "interest" and _NO_INTEREST.search(low, max(lo, m.start() - 30), m.end()):
                continue
            if best is None or m.start() < best[1]:
                best = (kind, m.start(), m.end())
            break
    return best


def _mentions_value(sentence: str, value: float) -> bool:
    n = str(int(value)) if value == int(value) else str(value)
    return (
        re.search(rf"(?<![0-9]){re.escape(n)}(?:\s|-)*(?:day|week|month|天|日|周)", sentence)
        is not None
    )


def _consequences(
    text: str, low: str, sents: _Sentences, found: list[_Found]
) -> list[tuple[Consequence, int, int] | None]:
    starts = [f.start for f in found]
    out: list[tuple[Consequence, int, int] | None] = []
    for i, f in enumerate(found):
        ss, se = sents.bounds(f.start)
        nxt = found[i + 1].start if i + 1 < len(found) and found[i + 1].start < se else se
        hit = _consequence_in(low, f.end, nxt)
        if hit is None:
            prev = found[i - 1].end if i and found[i - 1].end > ss else ss
            hit = _consequence_in(low, prev, f.start)
        if hit is None:
            # a later sentence of the clause referring back: "If that notice is not sent within
            # the 28-day period, the Contractor loses…"
            pos, first = se, True
            later_same = False  # a later limit of the same length takes the reference
            for _ in range(_FOLLOW_UP_SENTENCES):
                if pos >= min(len(text), se + _FOLLOW_UP_CHARS) or hit is not None:
                    break
                ns, ne = sents.bounds(min(pos + 1, len(text) - 1))
                if ne <= pos:
                    break
                lo, hi = bisect_left(starts, ns), bisect_left(starts, ne)
                own = hi > lo
                sentence = text[ns:ne]
                if _BACK_REF.search(low, ns, ne) and (
                    (first and not own)
                    or (not own and not later_same and _mentions_value(sentence, f.value))
                ):
                    hit = _consequence_in(low, ns, ne)
                later_same = later_same or any(g.value == f.value for g in found[lo:hi])
                if sentence.strip():
                    first = False
                pos = ne + 1
        out.append(hit)
    return out


def _who(sentence: str, at: int) -> tuple[str, str, int] | None:
    """(alias, role, end of modal) of the party that must act on a limit at `at`."""
    acts = [a for a in role_actions(sentence) if a.kind in ("obligation", "right", "bears")]
    if not acts:
        # '乙方主张…的，应自…28天内': the party named before a modal further on
        head = sentence[:at]
        modal = _MODAL.search(head)
        if modal is None:
            return None
        words = [(m.start(), m.group()) for m in _ROLE_WORD.finditer(head, 0, modal.start())]
        if not words:
            return None
        pos, word = words[-1]
        return word, _ROLE_OF[word], pos + len(word)
    before = [a for a in acts if a.start <= at]
    a = before[-1] if before else min(acts, key=lambda x: x.start - at)
    return a.alias, a.role, a.end


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split()).strip(" ,;，；.。")
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return cut.rsplit(" ", 1)[0] if " " in cut else cut


def _label(structure: DocumentStructure | None, clause: ClauseNode) -> str:
    node: ClauseNode | None = clause
    while node is not None:
        if node.number.startswith("Sub-Clause"):
            return f"Sub-Clause {clause.clause_id}"
        if node.number.startswith("Clause"):
            return f"Clause {clause.clause_id}"
        node = structure.get_clause(node.parent_id) if structure and node.parent_id else None
    if clause.number.startswith("第"):
        return clause.number
    if structure is not None and structure.language.startswith("zh"):
        return f"第{clause.clause_id}条"
    return f"Clause {clause.clause_id}"


BaselineLookup = Callable[[str], BaselinePosition | None]
"""Clause id → the domain's standard position for it (e.g. `ReviewContext.baseline`)."""


def _standard_position(
    structure: DocumentStructure | None,
    baseline_of: BaselineLookup | None,
    clause: ClauseNode,
) -> tuple[str, BaselinePosition] | None:
    """(clause id, standard position) for the clause or, failing that, for its nearest
    ancestor that has one."""
    node: ClauseNode | None = clause
    while node is not None and baseline_of is not None:
        baseline = baseline_of(node.clause_id)
        if baseline is not None:
            return node.clause_id, baseline
        node = structure.get_clause(node.parent_id) if structure and node.parent_id else None
    return None


def _standard(
    structure: DocumentStructure | None,
    baseline_of: BaselineLookup | None,
    clause: ClauseNode,
) -> tuple[str, float, str] | None:
    """(baseline key, days, period quote) of the standard position for the clause or, failing
    that, for its nearest ancestor that has one."""
    found = _standard_position(structure, baseline_of, clause)
    if found is None:
        return None
    key, baseline = found
    items, _ = analyse_terms(baseline.text)
    for it in items:
        if it.kind == "period" and it.unit in _UNIT_DAYS:
            days = float(it.value * Decimal(_UNIT_DAYS[it.unit]))
            return key, days, baseline.text[it.start : it.end]
    return None


# --------------------------------------------------------------------------------------------
# Amendments: "delete “within 28 days” and replace with “within 14 days”"
# --------------------------------------------------------------------------------------------

_STANDARD_LOSS = re.compile(
    r"\blos(?:e|es|t|ing)\s+the\s+claim|\bclaim\s+is\s+lost|\(time\s+bar\)|\bnotice\s+lapses"
)
"""How the standard positions (short summaries) word a time bar: 'a late notice loses the
claim (time bar)', 'or the claim is lost'."""
_STANDARD_ACTION = re.compile(r"\b(?:shall|must)\s+(?P<act>[^,;:()\n]+?)\s*$")


@lru_cache(maxsize=64)
def _standard_limits(key: str, text: str) -> tuple[TimeBar, ...]:
    """The time limits of a standard position's text, each with the act required before it
    ('The claiming Party must give notice within 28 days…' -> 'give notice') and a time bar
    worded the summaries' way."""
    node = ClauseNode(clause_id=key, text=text, end_offset=len(text))
    out: list[TimeBar] = []
    for bar in _extract(None, node, text, (0, len(text)), None, {}, None):
        at = bar.sentence.find(bar.quote)
        act = _STANDARD_ACTION.search(bar.sentence, 0, max(at, 0))
        update: dict[str, object] = {"action": _short(act.group("act")) if act else ""}
        if bar.consequence == "none_stated":
            loss = _STANDARD_LOSS.search(bar.sentence, max(at, 0) + len(bar.quote))
            if loss:
                update |= {"consequence": "time_bar", "consequence_quote": loss.group()}
        out.append(bar.model_copy(update=update))
    return tuple(out)


def _amended(
    text: str, found: list[_Found], standard: Callable[[], tuple[TimeBar, ...]]
) -> list[_Found]:
    """The limits of `text` once its "delete 'A' and replace with 'B'" instructions are read:
    the limits in A are gone; those in B stay, their triggers ending where B ends. A period
    of B without a limit cue ('delete “28 days” and replace with “14 days”') is a limit when
    the period it replaces is one in the standard position. Each limit of B remembers what it
    replaces and the standard limit it stands for (to give what B does not say)."""
    subs: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for m in _SUBSTITUTION.finditer(text):
        filled = [i + 1 for i, g in enumerate(m.groups()) if g is not None]
        if len(filled) >= 2:
            subs.append((m.span(filled[0]), m.span(filled[1])))
    if not subs:
        return found
    periods = [
        it
        for it in analyse_terms(text)[0]
        if it.kind == "period" and it.unit in ("hour", "day", "week", "month", "year")
    ]
    out = [f for f in found if not any(o[0] <= f.start < o[1] for o, _ in subs)]
    for (os_, oe), (ns, ne) in subs:
        olds = [it for it in periods if os_ <= it.start < oe]
        for i, it in enumerate(p for p in periods if ns <= p.start < ne):
            old = olds[min(i, len(olds) - 1)] if olds else None
            old_limit = (
                next((f for f in found if f.start <= old.start < f.end), None) if old else None
            )
            std = (
                next(
                    (b for b in standard() if b.unit == old.unit and b.value == float(old.value)),
                    None,
                )
                if old
                else None
            )
            f = next((f for f in out if f.start <= it.start < f.end), None)
            if f is None:
                if std is None:
                    continue  # a period, not a time limit of the standard position
                f = _Found(
                    start=it.start,
                    end=it.end,
                    value=float(it.value),
                    unit=it.unit,
                    day_type=it.cow,
                    limit_type=std.limit_type,
                    trigger_end=it.end,
                )
                out.append(f)
            if f.trigger is not None and f.trigger_end > ne:
                begin = f.trigger_end - len(f.trigger)
                f.trigger = text[begin:ne].rstrip(" ,;") or None
                f.trigger_end = ne
                if f.trigger is None and f.limit_type != "in_advance":
                    f.relation = None
            f.amended = (ns, ne)
            if old is not None:
                f.replaces = (
                    text[old_limit.start : old_limit.end]
                    if old_limit is not None
                    else text[old.start : old.end]
                )
            f.standard = std
    return sorted(out, key=lambda f: f.start)


def _context_of(structure: DocumentStructure | None, clause: ClauseNode) -> ClauseNode:
    """The (sub-)clause whose text is searched for consequences: the clause itself, or, for a
    list item, the clause the item belongs to ('(a) … within 28 days' is governed by the
    sub-clause's closing sentence). Never a parent clause: its other sub-clauses have
    consequences of their own."""
    node = clause
    while node.kind is ClauseKind.ITEM and node.parent_id and structure is not None:
        parent = structure.get_clause(node.parent_id)
        if parent is None:
            break
        node = parent
    return node


def _extract(
    structure: DocumentStructure | None,
    context: ClauseNode,
    text: str,
    keep: tuple[int, int],
    roles: PartyRoles | None,
    trigger_dates: Mapping[str, date],
    standard: tuple[str, float, str] | None,
    baseline_of: BaselineLookup | None = None,
) -> list[TimeBar]:
    """Time limits of `text` (context's text, or its lead-in) within document range `keep`,
    each attached to the deepest clause holding it. Amendment instructions in the text are
    read (`_amended`); what an amended limit does not say comes from the standard position
    of `baseline_of` for the clause."""

    def standard_limits() -> tuple[TimeBar, ...]:
        position = _standard_position(structure, baseline_of, context)
        return _standard_limits(position[0], position[1].text) if position else ()

    found = [
        f
        for f in _amended(text, _find_limits(text), standard_limits)
        if keep[0] <= context.start_offset + f.start < keep[1]
    ]
    low = _lower(text)
    sents = _Sentences(text)
    conseqs = _consequences(text, low, sents, found)
    out: list[TimeBar] = []
    for f, cq in zip(found, conseqs, strict=True):
        doc_pos = context.start_offset + f.start
        holder = (structure.clause_at(doc_pos) if structure else None) or context
        base = holder.start_offset - context.start_offset
        ss, se = sents.bounds(f.start)
        sentence = text[ss:se]
        cjk = not text[f.start : f.end].isascii()
        who = _who(sentence, f.start - ss)
        if f.amended is not None:
            # of an instruction, only the new words say who acts and what missing costs
            lo_new, hi_new = f.amended
            if who and not lo_new <= ss + who[2] <= hi_new:
                who = None
            if cq and not lo_new <= cq[1] < hi_new:
                cq = None
        action = ""
        if who and not cjk:
            lo = who[2] + ss
            action = text[lo : _part_end(text, lo, f.start if lo <= f.start else se)]
            action = re.sub(r"^\s*(?:to\s+)?(?:在|于)?", "", action)
        if not action.strip(" ,;，；在于.") and f.amended is None:
            tail = max(f.end, f.trigger_end)
            tail += len(text[tail:se]) - len(text[tail:se].lstrip(" ,，"))
            action = text[tail : _part_end(text, tail, se)]
        action = _short(action)
        who_word, who_role = (who[0], who[1]) if who else (None, None)
        trigger, relation = f.trigger, f.relation
        consequence: Consequence = cq[0] if cq else "none_stated"
        consequence_quote = text[cq[1] : cq[2]] if cq else None
        from_standard: list[StandardPart] = []
        std = f.standard
        if std is not None:
            if trigger is None and std.trigger:
                trigger, relation = std.trigger, std.trigger_relation
                from_standard.append("trigger")
            if who_word is None and std.who:
                who_word, who_role = std.who, std.who_role
                from_standard.append("who")
            if not action and std.action:
                action = std.action
                from_standard.append("action")
            if consequence == "none_stated" and std.consequence != "none_stated":
                consequence, consequence_quote = std.consequence, std.consequence_quote
                from_standard.append("consequence")
        who_side = roles.side_of(who_word) if roles and roles.resolved and who_word else None
        if who_role == "both":
            who_side = "both"
        trigger_on = _trigger_date(holder, structure, trigger_dates)
        deadline = (
            compute_deadline(trigger_on, f.value, f.unit, f.day_type, relation)
            if trigger_on
            else None
        )
        std_days = standard[1] if standard else None
        shorter: bool | None = None
        if std_days is not None and f.unit in _UNIT_DAYS:
            shorter = f.value * _UNIT_DAYS[f.unit] < std_days
        out.append(
            TimeBar(
                clause_id=holder.clause_id,
                clause_label=_label(structure, holder),
                quote=text[f.start : f.end],
                start=f.start - base,
                end=f.end - base,
                clause_start_offset=holder.start_offset,
                sentence=sentence.strip(),
                value=f.value,
                unit=f.unit,
                day_type=f.day_type,
                limit_type=f.limit_type,
                promptly=_PROMPTLY.search(low, ss, f.start) is not None,
                trigger=trigger,
                trigger_relation=relation,
                who=who_word,
                who_role=who_role,
                who_side=who_side,
                action=action,
                consequence=consequence,
                consequence_quote=consequence_quote,
                standard_days=std_days,
                standard_quote=standard[2] if standard else None,
                shorter_than_standard=shorter,
                deadline=deadline,
                replaces=f.replaces,
                from_standard=from_standard,
            )
        )
    return out


def _trigger_date(
    clause: ClauseNode, structure: DocumentStructure | None, dates: Mapping[str, date]
) -> date | None:
    node: ClauseNode | None = clause
    while node is not None:
        if node.clause_id in dates:
            return dates[node.clause_id]
        node = structure.get_clause(node.parent_id) if structure and node.parent_id else None
    return dates.get("*")


def time_bars_for_clause(
    structure: DocumentStructure | None,
    clause_id: str,
    *,
    roles: PartyRoles | None = None,
    trigger_date: date | None = None,
    baseline_of: BaselineLookup | None = None,
) -> tuple[list[TimeBar], str | None]:
    """Time limits of one clause (its sub-clauses included) and the baseline key used;
    `roles` is our side resolved in `structure` (None: nobody's, consequences unjudged)."""
    clause = require_clause(structure, clause_id)
    context = _context_of(structure, clause)
    standard = _standard(structure, baseline_of, clause)
    dates = {clause.clause_id: trigger_date} if trigger_date else {}
    bars = _extract(
        structure,
        context,
        context.text,
        (clause.start_offset, clause.end_offset),
        roles,
        dates,
        standard,
        baseline_of,
    )
    return bars, standard[0] if standard else None


def time_bars_for_document(
    structure: DocumentStructure,
    *,
    roles: PartyRoles | None = None,
    trigger_dates: dict[str, date] | None = None,
    baseline_of: BaselineLookup | None = None,
) -> list[TimeBar]:
    """Every time limit of the contract, each once, attached to the deepest clause holding it.

    Each sub-clause (level 2, or a top-level clause without sub-clauses) is analysed once with
    its sub-clauses (so consequences stated at its end are found); the lead-in of a top-level
    clause with sub-clauses is analysed on its own. `trigger_dates` maps clause ids (a clause or
    an ancestor; '*' for all) to the date its periods run from; `roles` is our side resolved
    in `structure` (None: nobody's).
    """
    dates = trigger_dates or {}
    out: list[TimeBar] = []
    for node in structure.iter_clauses():
        if node.kind is ClauseKind.ITEM:
            continue  # analysed with the clause it belongs to
        sub_clauses = [c for c in node.children if c.kind is not ClauseKind.ITEM]
        if sub_clauses:
            # Only the lead-in: each sub-clause is a unit of its own.
            first = sub_clauses[0].start_offset
            text = node.text[: first - node.start_offset]
            keep = (node.start_offset, first)
        else:
            text = node.text
            keep = (node.start_offset, node.end_offset)
        if not text.strip():
            continue
        standard = _standard(structure, baseline_of, node)
        out.extend(_extract(structure, node, text, keep, roles, dates, standard, baseline_of))
    return out


def handle(inp: TimeBarInput) -> TimeBarOutput:
    """Extract the clause's time limits."""
    ctx = inp.review_context or ReviewContext()
    clause = require_clause(inp.document_structure, inp.clause_id)
    bars, key = time_bars_for_clause(
        inp.document_structure,
        inp.clause_id,
        roles=ctx.roles_in(inp.document_structure) if ctx.our_party else None,
        trigger_date=inp.trigger_date,
        baseline_of=ctx.baseline,
    )
    return TimeBarOutput(
        clause_id=clause.clause_id,
        clause_start_offset=clause.start_offset,
        trigger_date=inp.trigger_date,
        baseline_key=key,
        time_bars=bars,
    )


# --------------------------------------------------------------------------------------------
# Risk rule
# --------------------------------------------------------------------------------------------


def risk_rule(risk: RiskFactory, out: TimeBarOutput) -> list[RiskPoint]:
    """Time limits that cost us: a time bar on our side, a period shorter than the standard,
    the other side's silence counting as rejection, our silence settling the matter."""
    risks = []
    for bar in out.time_bars:
        ours = bar.who_side == "us"
        unit = bar.unit if bar.value == 1 else f"{bar.unit}s"
        period = risk.say(f"{bar.value:g} {unit}", _period_zh(bar))
        if ours and bar.consequence == "time_bar":
            level, kind = RiskLevel.HIGH, "time bar"
            text = risk.say(
                f"Our party loses its entitlement if it does not act within {period}.",
                f"我方如未在{period}内行事，将丧失相应权利。",
            )
        elif ours and bar.shorter_than_standard:
            level, kind = RiskLevel.HIGH, "shortened period"
            text = risk.say(
                f"Our party must act within {period}; the standard period is "
                f"{bar.standard_days or 0:g} days.",
                f"我方须在{period}内行事，而标准期限为{bar.standard_days or 0:g}天。",
            )
        elif bar.consequence == "deemed_rejection" and not ours:
            level, kind = RiskLevel.MEDIUM, "deemed rejection"
            text = risk.say(
                f"The other side's silence for {period} counts as rejection, not acceptance.",
                f"对方在{period}内未予答复的，视为拒绝而非认可。",
            )
        elif ours and bar.consequence in ("deemed_approval", "final_and_binding"):
            level, kind = RiskLevel.MEDIUM, bar.consequence.replace("_", " ")
            text = risk.say(
                f"If our party does not respond within {period}, the matter is settled against it.",
                f"我方如未在{period}内答复，该事项即按对我方不利的结果确定。",
            )
        else:
            continue
        trigger = bar.trigger or risk.say("not stated", "未约定")
        risks.append(
            risk.risk(
                SKILL_ID,
                level,
                kind,
                text,
                reason=bar.consequence_quote or "",
                analysis=risk.say(f"Trigger: {trigger}", f"起算事件：{trigger}"),
                quote=bar.sentence or bar.quote,
                # our time to act: the shorter, the worse (the other side's silence: no way)
                measured=_days(bar) if ours else None,
                worse="lower",
                target=bar.standard_days if ours and bar.standard_days else None,
            )
        )
    return risks


def _days(bar: TimeBar) -> float:
    """The period in days (a month as 30, a working day as 7/5 of a day)."""
    per = {"hour": 1 / 24, "day": 1.0, "week": 7.0, "month": 30.0, "year": 365.0}[bar.unit]
    return bar.value * per * (1.4 if bar.unit == "day" and bar.day_type == "working" else 1.0)


_UNITS_ZH = {"hour": "小时", "day": "天", "week": "周", "month": "个月", "year": "年"}


def _period_zh(bar: TimeBar) -> str:
    """The period in Chinese ('28天', '5个工作日')."""
    unit = "个工作日" if bar.unit == "day" and bar.day_type == "working" else _UNITS_ZH[bar.unit]
    return f"{bar.value:g}{unit}"


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Time bars and deadlines",
    description=DESCRIPTION,
    input_schema=TimeBarInput,
    output_schema=TimeBarOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="fidic",
    category="extraction",
    risk_rule=risk_rule,
)
