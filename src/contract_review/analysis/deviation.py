"""Deviation rating: how a clause's departures from its baseline affect our party.

Takes the comparison of `analysis.baseline` and our party resolved (`parties.PartyRoles`),
works out who does what in each changed sentence (`contract_review.parties`), and applies
explicit rules to each changed passage:

| rule | severity |
|---|---|
| risk_shifted_to_us — a cost or risk now borne by us / the other side's liability excluded | high |
| unconditional_risk — "regardless of cause" / "无论何种原因" added to our burden | high |
| period_shortened_for_us — a period within which we must act goes down | high |
| period_lengthened_for_them — a period the other side has goes up | medium |
| cap_removed_on_us / cap_raised_on_us — the cap on our liability goes or goes up | high |
| cap_lowered_on_them / cap_added_on_them — the other side's liability limited further | medium |
| obligation_added_for_us — a new "Contractor shall…" / "承包人应…" on our side | medium |
| protection_removed — an entitlement, payment, interest, extension or exclusion of ours goes | high |
| right_added_for_them — a new "the Employer may…" / "发包人有权…" | medium |
| amount_against_us — retention/delay damages/security up or advance/payment/interest down | medium; high from ±50 % |
| *_in_our_favour, *_for_them mirrors — the same changes the other way round | low |
| period_changed / amount_changed / cap_changed — direction unknown | medium |
| period_changed — a period both parties have alike ("either party … 45 days") | low |
| clause_deleted / clause_added / wording_changed — no rule matched | medium / low / low |
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from pydantic import Field

from contract_review.analysis.baseline import ChangedNumber, Comparison, Unit, token_ratio
from contract_review.models import Deviation, RiskLevel
from contract_review.parties import (
    PartyAction,
    PartyRoles,
    Side,
    obligor_of,
    party_actions,
    party_mentions,
    role_actions,
)
from contract_review.text.language import Say

__all__ = [
    "PAYEE_ROLES",
    "PAYER_ROLES",
    "Direction",
    "RatedDeviation",
    "Rule",
    "max_severity",
    "rate_deviations",
]

Direction = Literal["against_us", "in_our_favour", "unclear"]
Rule = Literal[
    "risk_shifted_to_us",
    "risk_shifted_to_them",
    "unconditional_risk",
    "unconditional_risk_for_them",
    "period_shortened_for_us",
    "period_lengthened_for_us",
    "period_shortened_for_them",
    "period_lengthened_for_them",
    "period_changed",
    "cap_removed_on_us",
    "cap_removed_on_them",
    "cap_removed",
    "cap_raised_on_us",
    "cap_lowered_on_us",
    "cap_raised_on_them",
    "cap_lowered_on_them",
    "cap_added_on_us",
    "cap_added_on_them",
    "cap_changed",
    "obligation_added_for_us",
    "obligation_removed_for_us",
    "obligation_added_for_them",
    "obligation_removed_for_them",
    "protection_removed",
    "right_added_for_us",
    "right_added_for_them",
    "right_removed_for_them",
    "amount_against_us",
    "amount_in_our_favour",
    "amount_changed",
    "clause_deleted",
    "clause_added",
    "wording_changed",
]
"""The rating rules (`RatedDeviation.rule`); a deviation not in our favour is a risk of type
'deviation from baseline: <rule>'."""

_ORDER = {RiskLevel.LOW: 0, RiskLevel.MEDIUM: 1, RiskLevel.HIGH: 2}
_BIG_CHANGE = 0.5
"""Relative change of a percentage or amount from which a change against us is high."""

PAYEE_ROLES = frozenset({"contractor", "seller", "supplier", "provider", "licensor", "lessor"})
"""Roles paid under the contract (and performing it): retention, delay damages hit them."""
PAYER_ROLES = frozenset({"employer", "buyer", "customer", "licensee", "lessee"})
"""Roles paying under the contract."""


_NOTICE_PERIOD = re.compile(
    r"\b(?:days?|weeks?|months?)['’]?\s+(?:prior\s+|advance\s+)?(?:written\s+)?notice\b"
    r"|\bnotice\s+(?:period\s+)?of\s+(?:not\s+less\s+than\s+)?\S+\s+\(?\d*\)?\s*(?:days?|weeks?|months?)"
    r"|提前[^。；，]{0,12}(?:日|天|个月|月|周)[^。；，]{0,6}通知",
    re.IGNORECASE,
)
"""A period of notice given by the party exercising a right."""


class RatedDeviation(Deviation):
    """A deviation with the rule that rated it and the verbatim text it rests on."""

    rule: str = Field(description="Id of the rule that rated the deviation.")
    direction: Direction = Field(
        description="'against_us', 'in_our_favour' or 'unclear' (from our party's side)."
    )
    quote: str | None = Field(
        description="Verbatim contract text showing the deviation (None when it was deleted)."
    )
    quote_offset: int | None = Field(description="Offset of the quote in the document text.")
    baseline_quote: str | None = Field(description="The baseline text it departs from.")
    criterion: str | None = Field(None, description="Playbook criterion the deviation touches.")

    def to_deviation(self) -> Deviation:
        """The plain `Deviation` (for `ClauseFindings.deviations`)."""
        return Deviation.model_validate(self.model_dump(include=set(Deviation.model_fields)))


# --------------------------------------------------------------------------------------------
# What a sentence says
# --------------------------------------------------------------------------------------------

_AGGRAVATOR = re.compile(
    r"regardless\s+of\s+(?:the\s+)?(?:cause|reason|fault|whether)|howsoever\s+(?:caused|arising)"
    r"|however\s+caused|whatever\s+the\s+cause|irrespective\s+of\s+(?:the\s+)?(?:cause|fault|"
    r"whether)|under\s+any\s+circumstances|in\s+any\s+event|whether\s+or\s+not\s+foreseeable"
    r"|(?:无论|不论|不管)(?:何种|任何|是否|什么)|任何情况下|任何原因|一切风险|全部风险",
    re.IGNORECASE,
)
_CAP = re.compile(
    r"(?:shall|will|does)\s+not\s+exceed|not\s+to\s+exceed|limited\s+to|(?:maximum|aggregate|"
    r"total)\s+(?:aggregate\s+)?(?:amount|liability)|\bcap(?:ped)?\b|limitation\s+of\s+liability"
    r"|不(?:得)?超过|以.{1,20}为限|上限|最高限额|责任限额",
    re.IGNORECASE,
)
_LIABILITY = re.compile(
    r"liabilit|liable|damages|compensation|indemnit|责任|赔偿|违约金", re.IGNORECASE
)
_UNCAPPED = re.compile(
    r"unlimited|uncapped|without\s+(?:any\s+)?(?:limit|cap|maximum|ceiling)"
    r"|no\s+(?:cap|limit|maximum|ceiling|upper\s+limit)\b|not\s+be\s+(?:subject\s+to|limited\s+by)"
    r"\s+any\s+(?:[\w-]+\s+)?(?:cap|limit|maximum|ceiling)|不设(?:上限|限额)|无上限|不受.{0,10}限制",
    re.IGNORECASE,
)
_PROTECTION = re.compile(
    r"extension\s+of\s+(?:the\s+)?time|entitle|interest|payment|\bpa(?:y|id)\b|reimburs"
    r"|compensat|limitation|exclu|顺延|延长工期|利息|支付|付款|补偿|赔偿|有权|责任限额|免责",
    re.IGNORECASE,
)
_TOPICS: tuple[tuple[str, int, re.Pattern[str]], ...] = (
    (
        "retention",
        +1,
        re.compile(r"retention|retain|保留金|质量保证金|质保金|预留", re.IGNORECASE),
    ),
    ("advance", -1, re.compile(r"advance\s+payment|预付款|预付", re.IGNORECASE)),
    (
        "delay_damages",
        +1,
        re.compile(
            r"delay\s+damages|liquidated\s+damages|late\s+delivery|误期|逾期竣工|违约金",
            re.IGNORECASE,
        ),
    ),
    (
        "security",
        +1,
        re.compile(r"performance\s+(?:security|bond|guarantee)|履约|保函", re.IGNORECASE),
    ),
    ("interest", -1, re.compile(r"interest|利息|利率|financing\s+charge", re.IGNORECASE)),
    ("payment", -1, re.compile(r"\bpa(?:y|id|yment)|支付|付款|进度款", re.IGNORECASE)),
)
"""Topic of a changed figure and the sign of a change that hurts the paid party (+1: up)."""
_TOPIC_ZH = {
    "retention": "保留金",
    "advance": "预付款",
    "delay_damages": "逾期违约金",
    "security": "履约担保",
    "interest": "利息",
    "payment": "付款",
}
"""The topics in Chinese."""


@dataclass
class Sentence:
    """One sentence with what the rules look at."""

    text: str
    start: int
    """Offset in its text (baseline or contract clause body)."""
    actions: list[PartyAction]
    aggravators: int
    cap_sides: list[Side | None]
    uncapped: bool
    protection: bool
    counts: Mapping[tuple[str, str], int]
    """Number of actions by (kind, side)."""
    partner: Sentence | None = field(default=None, repr=False, compare=False)
    """The same sentence reworded on the other side (set from the comparison's pairs)."""

    def count(self, kind: str, side: str) -> int:
        """Number of actions of `kind` with `side` as subject."""
        return self.counts.get((kind, side), 0)


def _first_side(text: str, roles: PartyRoles) -> Side | None:
    """Side of the first party named in `text` ('each Party' / '双方' → 'both')."""
    found = party_mentions(text, roles)
    return found[0][1] if found else None


_Features = tuple[
    tuple[PartyAction, ...], int, tuple[Side | None, ...], bool, bool, Mapping[tuple[str, str], int]
]


@lru_cache(maxsize=8192)
def _features(text: str, roles: PartyRoles) -> _Features:
    """What the rules look at in one sentence (cached: parents repeat their sub-clauses)."""
    is_cap = bool(_CAP.search(text) and _LIABILITY.search(text))
    actions = tuple(party_actions(text, roles))
    return (
        actions,
        len(_AGGRAVATOR.findall(text)),
        (_first_side(text, roles),) if is_cap else (),
        bool(_UNCAPPED.search(text)),
        bool(_PROTECTION.search(text)),
        Counter((a.kind, a.side) for a in actions),
    )


def _sentence(text: str, start: int, roles: PartyRoles) -> Sentence:
    actions, aggravators, cap_sides, uncapped, protection, counts = _features(text, roles)
    return Sentence(
        text=text,
        start=start,
        actions=list(actions),
        aggravators=aggravators,
        cap_sides=list(cap_sides),
        uncapped=uncapped,
        protection=protection,
        counts=counts,
    )


def _sentences(text: str, spans: Iterable[tuple[int, int]], roles: PartyRoles) -> list[Sentence]:
    return [_sentence(text[s:e], s, roles) for s, e in spans]


Score = Callable[[Sentence], int]


_Finding = tuple[Rule, RiskLevel, Direction, str, str]
"""(rule, severity, direction, reason in English, in Chinese) of a change in obligations or
rights."""

_OBLIGATION_ADDED_FOR_US: _Finding = (
    "obligation_added_for_us",
    RiskLevel.MEDIUM,
    "against_us",
    "Adds an obligation on our party.",
    "增加了我方的义务。",
)
_OBLIGATION_REMOVED_FOR_US: _Finding = (
    "obligation_removed_for_us",
    RiskLevel.LOW,
    "in_our_favour",
    "Favourable to us: removes an obligation of ours.",
    "对我方有利：删除了我方的一项义务。",
)
_OBLIGATION_ADDED_FOR_THEM: _Finding = (
    "obligation_added_for_them",
    RiskLevel.LOW,
    "in_our_favour",
    "Favourable to us: adds an obligation on the other side.",
    "对我方有利：增加了对方的义务。",
)
_OBLIGATION_REMOVED_FOR_THEM: _Finding = (
    "obligation_removed_for_them",
    RiskLevel.MEDIUM,
    "against_us",
    "Removes an obligation of the other side.",
    "删除了对方的一项义务。",
)
_PROTECTION_DUTY_REMOVED: _Finding = (
    "protection_removed",
    RiskLevel.HIGH,
    "against_us",
    "Removes a duty of the other side that protects us (payment, interest, extension of time, "
    "compensation).",
    "删除了对方一项保护我方的义务（付款、利息、工期顺延或补偿）。",
)
_ENTITLEMENT_DENIED: _Finding = (
    "protection_removed",
    RiskLevel.HIGH,
    "against_us",
    "Excludes an entitlement of ours ('shall not be entitled').",
    "排除了我方的一项权利（如“无权”）。",
)
_ENTITLEMENT_REMOVED: _Finding = (
    "protection_removed",
    RiskLevel.HIGH,
    "against_us",
    "Removes an entitlement of ours.",
    "删除了我方的一项权利。",
)
_RIGHT_ADDED_FOR_US: _Finding = (
    "right_added_for_us",
    RiskLevel.LOW,
    "in_our_favour",
    "Favourable to us: gives our party a new right.",
    "对我方有利：赋予我方一项新的权利。",
)
_RIGHT_ADDED_FOR_THEM: _Finding = (
    "right_added_for_them",
    RiskLevel.MEDIUM,
    "against_us",
    "Gives the other side a new right against us.",
    "赋予对方一项针对我方的新权利。",
)
_RIGHT_REMOVED_FOR_THEM: _Finding = (
    "right_removed_for_them",
    RiskLevel.LOW,
    "in_our_favour",
    "Favourable to us: removes a right of the other side.",
    "对我方有利：删除了对方的一项权利。",
)


def _total(sents: list[Sentence], kind: str, side: str) -> int:
    return sum(s.count(kind, side) for s in sents)


# --------------------------------------------------------------------------------------------
# Rating
# --------------------------------------------------------------------------------------------


@dataclass
class _Found:
    rule: Rule
    severity: RiskLevel
    direction: Direction
    reason: str
    quote: Sentence | None
    baseline: Sentence | None
    order: tuple[int, int]


class _Rater:
    def __init__(self, cmp: Comparison, roles: PartyRoles, say: Say) -> None:
        self.cmp = cmp
        self.roles = roles
        self.say = say
        self.found: list[_Found] = []
        self.payee: bool | None = (
            True
            if set(roles.our_roles) & PAYEE_ROLES
            else False
            if set(roles.our_roles) & PAYER_ROLES
            else None
        )

    def add(
        self,
        rule: Rule,
        severity: RiskLevel,
        direction: Direction,
        reason: str,
        quote: Sentence | None,
        baseline: Sentence | None,
    ) -> None:
        order = (0, quote.start) if quote else (1, baseline.start if baseline else 0)
        self.found.append(_Found(rule, severity, direction, reason, quote, baseline, order))

    def add_finding(
        self, finding: _Finding, quote: Sentence | None, baseline: Sentence | None
    ) -> None:
        """`add` a finding given with its reason in both languages."""
        rule, severity, direction, en, zh = finding
        self.add(rule, severity, direction, self.say(en, zh), quote, baseline)

    # -- helpers --------------------------------------------------------------------------

    @staticmethod
    def _pair(s: Sentence, others: list[Sentence]) -> Sentence | None:
        """The sentence of `others` that is `s` reworded (paired by the comparison), if any."""
        return s.partner if s.partner is not None and s.partner in others else None

    def _pick(
        self, cs: list[Sentence], bs: list[Sentence], score: Score
    ) -> tuple[Sentence | None, Sentence | None]:
        """The first contract sentence scoring more than its baseline counterpart."""
        for c in cs:
            b = self._pair(c, bs)
            if score(c) > (score(b) if b else 0):
                return c, b
        first = next((c for c in cs if score(c) > 0), cs[0] if cs else None)
        return first, (self._pair(first, bs) if first else None)

    def _pick_removed(
        self, bs: list[Sentence], cs: list[Sentence], score: Score
    ) -> Sentence | None:
        for b in bs:
            c = self._pair(b, cs)
            if score(b) > (score(c) if c else 0):
                return b
        return next((b for b in bs if score(b) > 0), None)

    # -- rules ----------------------------------------------------------------------------

    def unit(self, unit: Unit, position: bool) -> None:
        base, contract = self.cmp.baseline_text, self.cmp.contract_text
        bs = _sentences(base, unit.baseline, self.roles)
        cs = _sentences(contract, unit.contract, self.roles)
        for i, j, _ in unit.pairs:
            bs[i].partner, cs[j].partner = cs[j], bs[i]
        before = len(self.found)
        self._risk(bs, cs)
        self._aggravators(bs, cs)
        self._caps(bs, cs)
        if not position:
            self._obligations(bs, cs)
            self._rights(bs, cs)
        self._numbers(cs, bs)
        if len(self.found) == before and not position:
            self._fallback(bs, cs)

    def _risk(self, bs: list[Sentence], cs: list[Sentence]) -> None:
        def ours(s: Sentence) -> int:
            return s.count("bears", "us") + s.count("exempt", "them")

        def theirs(s: Sentence) -> int:
            return s.count("bears", "them") + s.count("exempt", "us")

        d_us = sum(map(ours, cs)) - sum(map(ours, bs))
        d_them = sum(map(theirs, cs)) - sum(map(theirs, bs))
        if d_us > 0:
            c, b = self._pick(cs, bs, ours)
            self.add(
                "risk_shifted_to_us",
                RiskLevel.HIGH,
                "against_us",
                self.say(
                    "Moves a cost, risk or liability onto our party (or excludes the other side's).",
                    "将费用、风险或责任转移给我方（或免除了对方的相应责任）。",
                ),
                c,
                b,
            )
        elif d_them > 0:
            c, b = self._pick(cs, bs, theirs)
            self.add(
                "risk_shifted_to_them",
                RiskLevel.LOW,
                "in_our_favour",
                self.say(
                    "Favourable to us: moves a cost or risk onto the other side.",
                    "对我方有利：将费用或风险转移给对方。",
                ),
                c,
                b,
            )
        if _total(cs, "exempt", "us") < _total(bs, "exempt", "us") and d_us <= 0:
            b = self._pick_removed(bs, cs, lambda s: s.count("exempt", "us"))
            self.add(
                "protection_removed",
                RiskLevel.HIGH,
                "against_us",
                self.say(
                    "Removes an exclusion of our liability.",
                    "删除了我方的一项免责约定。",
                ),
                None,
                b,
            )

    def _side(self, s: Sentence) -> Side | None:
        sides = {a.side for a in s.actions if a.kind in ("bears", "obligation", "denial")}
        sides |= {"them" if a.side == "us" else "us" for a in s.actions if a.kind == "exempt"}
        if "us" in sides:
            return "us"
        if "them" in sides:
            return "them"
        return "both" if "both" in sides else None

    def _aggravators(self, bs: list[Sentence], cs: list[Sentence]) -> None:
        if sum(s.aggravators for s in cs) <= sum(s.aggravators for s in bs):
            return
        c, b = self._pick(cs, bs, lambda s: s.aggravators)
        side = self._side(c) if c else None
        if side == "us":
            self.add(
                "unconditional_risk",
                RiskLevel.HIGH,
                "against_us",
                self.say(
                    "Makes our burden unconditional (e.g. 'regardless of cause').",
                    "使我方承担的义务或风险不附任何条件（如“无论何种原因”）。",
                ),
                c,
                b,
            )
        elif side == "them":
            self.add(
                "unconditional_risk_for_them",
                RiskLevel.LOW,
                "in_our_favour",
                self.say(
                    "Favourable to us: makes the other side's burden unconditional.",
                    "对我方有利：使对方承担的义务或风险不附任何条件。",
                ),
                c,
                b,
            )
        else:
            self.add(
                "unconditional_risk",
                RiskLevel.MEDIUM,
                "unclear",
                self.say(
                    "Adds an unconditional wording ('regardless of cause'); who bears it is unclear.",
                    "增加了不附条件的表述（如“无论何种原因”），但由哪一方承担尚不明确。",
                ),
                c,
                b,
            )

    def _caps(self, bs: list[Sentence], cs: list[Sentence]) -> None:
        b_caps = {side: s for s in bs for side in s.cap_sides}
        c_caps = {side: s for s in cs for side in s.cap_sides if not s.uncapped}
        uncapped = next((s for s in cs if s.uncapped), None)
        for side, b in b_caps.items():
            if side in c_caps or (side in ("us", "both") and "both" in c_caps):
                continue
            quote = uncapped
            if side in ("us", "both"):
                self.add(
                    "cap_removed_on_us",
                    RiskLevel.HIGH,
                    "against_us",
                    self.say(
                        "Removes the cap on our liability.",
                        "删除了我方的责任上限。",
                    ),
                    quote,
                    b,
                )
            elif side == "them":
                self.add(
                    "cap_removed_on_them",
                    RiskLevel.LOW,
                    "in_our_favour",
                    self.say(
                        "Favourable to us: removes the cap on the other side's liability.",
                        "对我方有利：删除了对方的责任上限。",
                    ),
                    quote,
                    b,
                )
            else:
                self.add(
                    "cap_removed",
                    RiskLevel.MEDIUM,
                    "unclear",
                    self.say(
                        "Removes a liability cap; whose liability it limited is unclear.",
                        "删除了一项责任上限，但原上限限制的是哪一方的责任尚不明确。",
                    ),
                    quote,
                    b,
                )
        for side, c in c_caps.items():
            if side in b_caps:
                continue
            if side == "them":
                self.add(
                    "cap_added_on_them",
                    RiskLevel.MEDIUM,
                    "against_us",
                    self.say(
                        "Limits the other side's liability to us.",
                        "限制了对方对我方承担的责任。",
                    ),
                    c,
                    self._pair(c, bs),
                )
            elif side == "us":
                self.add(
                    "cap_added_on_us",
                    RiskLevel.LOW,
                    "in_our_favour",
                    self.say(
                        "Favourable to us: caps our liability.",
                        "对我方有利：为我方的责任设定了上限。",
                    ),
                    c,
                    self._pair(c, bs),
                )

    def _gained(
        self, cs: list[Sentence], bs: list[Sentence], score: Score, finding: _Finding
    ) -> None:
        """Report `finding` on the contract sentence that gained what `score` counts."""
        c, b = self._pick(cs, bs, score)
        self.add_finding(finding, c, b)

    def _lost(
        self, bs: list[Sentence], cs: list[Sentence], score: Score, finding: _Finding
    ) -> None:
        """Report `finding` on the baseline sentence that lost what `score` counts."""
        b = self._pick_removed(bs, cs, score)
        self.add_finding(finding, self._pair(b, cs) if b else None, b)

    def _obligations(self, bs: list[Sentence], cs: list[Sentence]) -> None:
        def ob(side: str) -> Score:
            return lambda s: s.count("obligation", side)

        d_us = _total(cs, "obligation", "us") - _total(bs, "obligation", "us")
        d_them = _total(cs, "obligation", "them") - _total(bs, "obligation", "them")
        if d_us > 0:
            self._gained(cs, bs, ob("us"), _OBLIGATION_ADDED_FOR_US)
        elif d_us < 0:
            self._lost(bs, cs, ob("us"), _OBLIGATION_REMOVED_FOR_US)
        if d_them > 0:
            self._gained(cs, bs, ob("them"), _OBLIGATION_ADDED_FOR_THEM)
        elif d_them < 0:
            b = self._pick_removed(bs, cs, ob("them"))
            protects = b is not None and b.protection
            finding = _PROTECTION_DUTY_REMOVED if protects else _OBLIGATION_REMOVED_FOR_THEM
            self.add_finding(finding, self._pair(b, cs) if b else None, b)

    def _rights(self, bs: list[Sentence], cs: list[Sentence]) -> None:
        def right(side: str) -> Score:
            return lambda s: s.count("right", side)

        lost = _total(bs, "right", "us") - _total(cs, "right", "us")
        denied = _total(cs, "denial", "us") - _total(bs, "denial", "us")
        if denied > 0:
            self._gained(cs, bs, lambda s: s.count("denial", "us"), _ENTITLEMENT_DENIED)
        elif lost > 0:
            self._lost(bs, cs, right("us"), _ENTITLEMENT_REMOVED)
        elif lost < 0:
            self._gained(cs, bs, right("us"), _RIGHT_ADDED_FOR_US)
        d_them = _total(cs, "right", "them") - _total(bs, "right", "them")
        if d_them > 0:
            self._gained(cs, bs, right("them"), _RIGHT_ADDED_FOR_THEM)
        elif d_them < 0:
            self._lost(bs, cs, right("them"), _RIGHT_REMOVED_FOR_THEM)
        if cs or any(f.rule == "protection_removed" for f in self.found):
            return
        removed = next((b for b in bs if self._our_protection(b)), None)
        if removed is not None:
            self.add(
                "protection_removed",
                RiskLevel.HIGH,
                "against_us",
                self.say(
                    "Deletes a protection of ours (payment, interest, extension of time, limitation).",
                    "删除了我方的一项保护性约定（付款、利息、工期顺延或责任限制）。",
                ),
                None,
                removed,
            )

    @staticmethod
    def _our_protection(s: Sentence) -> bool:
        """A right or exclusion of ours, a protective duty of theirs, or a neutral protection."""
        if any(a.side == "us" and a.kind in ("right", "exempt") for a in s.actions):
            return True
        if not s.protection:
            return False
        if any(a.side == "them" and a.kind in ("obligation", "bears") for a in s.actions):
            return True
        return not s.actions

    def _numbers(self, cs: list[Sentence], bs: list[Sentence]) -> None:
        offset = self.cmp.contract_offset or 0
        for n in self.cmp.output.changed_numbers:
            if n.contract_offset is None or n.baseline_value is None:
                continue
            if n.contract_value is None:
                continue
            local = n.contract_offset - offset
            c = next((s for s in cs if s.start <= local < s.start + len(s.text)), None)
            if c is None:
                continue
            b = next((s for s in bs if s.text == n.baseline_context), None) or self._pair(c, bs)
            if n.kind == "period":
                self._period(n, c, b)
            else:
                self._figure(n, c, b)

    def _period(self, n: ChangedNumber, c: Sentence, b: Sentence | None) -> None:
        side = obligor_of(c.text, self.roles)
        shorter = n.change == "decreased"
        if side is None:
            rights = {a.side for a in c.actions if a.kind in ("right", "denial")}
            side = "us" if "us" in rights else ("them" if "them" in rights else None)
            side = "both" if side is None and "both" in rights else side
            if side is not None and _NOTICE_PERIOD.search(c.text):
                # the notice the holder of a right gives ('may terminate on 5 days' notice'):
                # a shorter one is the holder's gain and the other side's loss
                side = "them" if side == "us" else "us"
        what = f"{n.baseline} → {n.contract}"
        if side == "both":  # 'either party may …', '双方': the same period for each side
            self.add(
                "period_changed",
                RiskLevel.LOW,
                "unclear",
                self.say(
                    f"Changes a period ({what}) that applies to both parties alike.",
                    f"修改了双方同等适用的期限（{what}）。",
                ),
                c,
                b,
            )
        elif n.change not in ("increased", "decreased") or side is None:
            self.add(
                "period_changed",
                RiskLevel.MEDIUM,
                "unclear",
                self.say(
                    f"Changes a period ({what}); who must act within it is unclear.",
                    f"修改了期限（{what}），但由哪一方在该期限内履行尚不明确。",
                ),
                c,
                b,
            )
        elif side == "us":
            if shorter:
                self.add(
                    "period_shortened_for_us",
                    RiskLevel.HIGH,
                    "against_us",
                    self.say(
                        f"Shortens a period our party must meet ({what}).",
                        f"缩短了我方须遵守的期限（{what}）。",
                    ),
                    c,
                    b,
                )
            else:
                self.add(
                    "period_lengthened_for_us",
                    RiskLevel.LOW,
                    "in_our_favour",
                    self.say(
                        f"Favourable to us: gives our party longer ({what}).",
                        f"对我方有利：延长了我方的期限（{what}）。",
                    ),
                    c,
                    b,
                )
        elif shorter:
            self.add(
                "period_shortened_for_them",
                RiskLevel.LOW,
                "in_our_favour",
                self.say(
                    f"Favourable to us: shortens the other side's period ({what}).",
                    f"对我方有利：缩短了对方的期限（{what}）。",
                ),
                c,
                b,
            )
        else:
            self.add(
                "period_lengthened_for_them",
                RiskLevel.MEDIUM,
                "against_us",
                self.say(
                    f"Lengthens the other side's period ({what}).",
                    f"延长了对方的期限（{what}）。",
                ),
                c,
                b,
            )

    def _figure(self, n: ChangedNumber, c: Sentence, b: Sentence | None) -> None:
        what = f"{n.baseline} → {n.contract}"
        up = n.change == "increased"
        if n.change not in ("increased", "decreased"):
            self.add(
                "amount_changed",
                RiskLevel.MEDIUM,
                "unclear",
                self.say(f"Changes {what}.", f"修改了数值（{what}）。"),
                c,
                b,
            )
            return
        assert n.baseline_value is not None
        assert n.contract_value is not None
        big = abs(n.contract_value - n.baseline_value) >= _BIG_CHANGE * abs(n.baseline_value)
        if c.cap_sides:
            side = c.cap_sides[0]
            if side is None and _TOPICS[2][2].search(c.text) and self.payee is not None:
                side = "us" if self.payee else "them"
            if side in ("us", "both"):
                if up:
                    self.add(
                        "cap_raised_on_us",
                        RiskLevel.HIGH,
                        "against_us",
                        self.say(
                            f"Raises the cap on our liability ({what}).",
                            f"提高了我方的责任上限（{what}）。",
                        ),
                        c,
                        b,
                    )
                else:
                    self.add(
                        "cap_lowered_on_us",
                        RiskLevel.LOW,
                        "in_our_favour",
                        self.say(
                            f"Favourable to us: lowers the cap on our liability ({what}).",
                            f"对我方有利：降低了我方的责任上限（{what}）。",
                        ),
                        c,
                        b,
                    )
            elif side == "them":
                if up:
                    self.add(
                        "cap_raised_on_them",
                        RiskLevel.LOW,
                        "in_our_favour",
                        self.say(
                            f"Favourable to us: raises the cap on the other side's liability ({what}).",
                            f"对我方有利：提高了对方的责任上限（{what}）。",
                        ),
                        c,
                        b,
                    )
                else:
                    self.add(
                        "cap_lowered_on_them",
                        RiskLevel.MEDIUM,
                        "against_us",
                        self.say(
                            f"Lowers the cap on the other side's liability ({what}).",
                            f"降低了对方的责任上限（{what}）。",
                        ),
                        c,
                        b,
                    )
            else:
                self.add(
                    "cap_changed",
                    RiskLevel.MEDIUM,
                    "unclear",
                    self.say(
                        f"Changes a liability cap ({what}); whose liability is unclear.",
                        f"修改了责任上限（{what}），但限制的是哪一方的责任尚不明确。",
                    ),
                    c,
                    b,
                )
            return
        topic = next(((name, sign) for name, sign, rx in _TOPICS if rx.search(c.text)), None)
        if topic is None or self.payee is None:
            self.add(
                "amount_changed",
                RiskLevel.MEDIUM,
                "unclear",
                self.say(
                    f"Changes a figure ({what}); its effect on us is unclear.",
                    f"修改了一项数值（{what}），对我方的影响尚不明确。",
                ),
                c,
                b,
            )
            return
        name, sign = topic
        hurts_payee = (sign > 0) == up
        against = hurts_payee if self.payee else not hurts_payee
        label = name.replace("_", " ")
        label_zh = _TOPIC_ZH.get(name, label)  # a topic without a Chinese name never fails
        if against:
            self.add(
                "amount_against_us",
                RiskLevel.HIGH if big else RiskLevel.MEDIUM,
                "against_us",
                self.say(
                    f"Moves the {label} figure against us ({what}"
                    + (", a change of 50 % or more)." if big else ")."),
                    f"{label_zh}的数值变动对我方不利（{what}"
                    + ("，变动幅度达50%或以上）。" if big else "）。"),
                ),
                c,
                b,
            )
        else:
            self.add(
                "amount_in_our_favour",
                RiskLevel.LOW,
                "in_our_favour",
                self.say(
                    f"Favourable to us: moves the {label} figure our way ({what}).",
                    f"对我方有利：{label_zh}的数值变动有利于我方（{what}）。",
                ),
                c,
                b,
            )

    def _fallback(self, bs: list[Sentence], cs: list[Sentence]) -> None:
        status = self.cmp.output.status
        if status == "deleted":
            self.add(
                "clause_deleted",
                RiskLevel.MEDIUM,
                "unclear",
                self.say(
                    "The baseline clause is deleted; check what it provided.",
                    "基准条款已被删除，请核查其原有约定。",
                ),
                None,
                bs[0] if bs else None,
            )
        elif status == "added":
            self.add(
                "clause_added",
                RiskLevel.LOW,
                "unclear",
                self.say(
                    "New clause without a baseline counterpart; no rule matched.",
                    "新增条款，基准文本中无对应条款，未适用任何评级规则。",
                ),
                cs[0] if cs else None,
                None,
            )
        elif cs or bs:
            c = cs[0] if cs else None
            self.add(
                "wording_changed",
                RiskLevel.LOW,
                "unclear",
                self.say(
                    "Wording changed; no rating rule matched.",
                    "措辞有所修改，未适用任何评级规则。",
                ),
                c,
                self._pair(c, bs) if c else (bs[0] if bs else None),
            )

    def position_obligations(self) -> None:
        for text in self.cmp.output.obligations_not_found:
            acts = role_actions(text)
            b = _sentence(text, 0, self.roles)
            ours = [a for a in acts if a.role in self.roles.our_roles]
            theirs = [a for a in acts if a.role in self.roles.their_roles]
            if any(a.kind in ("right", "exempt") for a in ours) or (
                b.protection and any(a.kind in ("obligation", "bears") for a in theirs)
            ):
                self.add(
                    "protection_removed",
                    RiskLevel.HIGH,
                    "against_us",
                    self.say(
                        "A protection of ours in the baseline position is not in the clause.",
                        "基准立场中保护我方的约定未见于本条。",
                    ),
                    None,
                    b,
                )
            elif any(a.kind in ("obligation", "bears") for a in theirs):
                self.add(
                    "obligation_removed_for_them",
                    RiskLevel.MEDIUM,
                    "against_us",
                    self.say(
                        "An obligation of the other side in the baseline position is not in "
                        "the clause.",
                        "基准立场中对方的一项义务未见于本条。",
                    ),
                    None,
                    b,
                )
            elif ours:
                self.add(
                    "obligation_removed_for_us",
                    RiskLevel.LOW,
                    "in_our_favour",
                    self.say(
                        "Favourable to us: an obligation of ours in the baseline position is "
                        "not in the clause.",
                        "对我方有利：基准立场中我方的一项义务未见于本条。",
                    ),
                    None,
                    b,
                )


# --------------------------------------------------------------------------------------------
# Playbook criteria
# --------------------------------------------------------------------------------------------


def _risk_level(value: Any) -> RiskLevel | None:
    try:
        return RiskLevel(str(value).strip().lower())
    except ValueError:
        return None


def _criteria_for(
    criteria: list[dict[str, Any]] | None, title: str, text: str
) -> list[dict[str, Any]]:
    out = []
    for crit in criteria or []:
        topic = str(crit.get("topic") or "").strip()
        if not topic:
            continue
        folded = topic.casefold()
        if (
            folded in title.casefold()
            or (title and token_ratio(topic, title) >= 0.6)
            or (not title and folded in text.casefold())
        ):
            out.append(crit)
    return out


def _apply_criteria(devs: list[RatedDeviation], criteria: list[dict[str, Any]], say: Say) -> None:
    for crit in criteria:
        level = _risk_level(crit.get("risk_level"))
        label = str(crit.get("criterion") or crit.get("topic"))
        extra = say(
            f" Playbook ({crit.get('topic')}): {label}.",
            f"审查标准（{crit.get('topic')}）：{label}。",
        )
        if crit.get("preferred_position"):
            extra += say(
                f" Preferred: {crit['preferred_position']}.",
                f"首选立场：{crit['preferred_position']}。",
            )
        if crit.get("fallback_position"):
            extra += say(
                f" Fallback: {crit['fallback_position']}.",
                f"可接受的退让方案：{crit['fallback_position']}。",
            )
        for dev in devs:
            if dev.direction == "in_our_favour" or dev.criterion is not None:
                continue
            dev.criterion = label
            dev.reason += extra
            if level is not None and dev.severity and _ORDER[level] > _ORDER[dev.severity]:
                dev.severity = level


# --------------------------------------------------------------------------------------------
# The rating
# --------------------------------------------------------------------------------------------

_NEUTRAL = PartyRoles(our_party="", resolved=False)
"""No party: directions unclear, ratings neutral."""


def _assess(cmp: Comparison, roles: PartyRoles, language: str = "en") -> list[RatedDeviation]:
    """Rated deviations of a comparison from the side of `roles`, their reasons in the review's
    `language`."""
    out = cmp.output
    if out.status == "unmodified":
        return []
    rater = _Rater(cmp, roles, Say(language))
    # A deleted clause is rated on what the baseline gave, position or wording alike.
    position = out.baseline_kind == "position" and out.status != "deleted"
    for unit in cmp.units:
        rater.unit(unit, position)
    if position:
        rater.position_obligations()
    base = cmp.contract_offset
    devs: list[RatedDeviation] = []
    seen: set[tuple[str, str | None, str | None]] = set()
    for f in sorted(rater.found, key=lambda f: f.order):
        quote = f.quote.text if f.quote else None
        key = (f.rule, quote, f.baseline.text if f.baseline else None)
        if key in seen:
            continue
        seen.add(key)
        devs.append(
            RatedDeviation(
                clause_id=out.clause_id,
                deviation_type=out.status,
                baseline_text=f.baseline.text if f.baseline else "",
                actual_text=quote or "",
                severity=f.severity,
                reason=f.reason,
                rule=f.rule,
                direction=f.direction,
                quote=quote,
                quote_offset=None if f.quote is None or base is None else base + f.quote.start,
                baseline_quote=f.baseline.text if f.baseline else None,
            )
        )
    return devs


def rate_deviations(
    cmp: Comparison,
    roles: PartyRoles | None,
    language: str = "en",
    criteria: list[dict[str, Any]] | None = None,
) -> list[RatedDeviation]:
    """The deviations of a comparison rated from the side of `roles` (None: neutral), their
    reasons in the review's `language`: those quoting the contract in clause order, then those
    about baseline text missing from it. The playbook `criteria` (topic, criterion,
    preferred_position, fallback_position, risk_level) whose topic matches the clause add
    their positions to the reasons and may raise the severity of deviations against us."""
    devs = _assess(cmp, roles or _NEUTRAL, language)
    crits = _criteria_for(criteria, cmp.output.title, cmp.contract_text)
    _apply_criteria(devs, crits, Say(language))
    return devs


def max_severity(devs: Iterable[RatedDeviation]) -> RiskLevel | None:
    """The highest severity of the deviations; None if none has one."""
    levels = [d.severity for d in devs if d.severity is not None]
    return max(levels, key=_ORDER.__getitem__) if levels else None
