"""Position checks: the playbook's one-sided-term checks on a text, judged from our side.

For each position with checks, every sentence (or semicolon-separated part) of the text that
states the term is read for who holds the right or bears the duty (`parties.party_actions`):
a right only the other side holds, or a duty only we bear, is against us — worse when it is
also broad (any time, any reason, no notice, sole discretion, regardless of fault, perpetual);
the same right or duty held by both sides is balanced; the mirror image favours us. Number
checks measure the term (a rate a year, a period in days, a cap as a share of the price or in
months of fees) against the position's tiers, for the party that bears it. Our party arrives
resolved (`PartyRoles`); without one (a neutral review) each term is judged against whichever
of the contract's parties it burdens.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field

from contract_review.analysis.cache import parties_of, per_structure
from contract_review.analysis.financial import analyse
from contract_review.models import ClauseKind, DocumentStructure, RiskLevel
from contract_review.parties import (
    AMOUNT_PAID_BY,
    PartyRoles,
    Side,
    coordinated,
    is_pronoun,
    party_actions,
    party_mentions,
    party_places,
    party_roles,
    payer_of,
)
from contract_review.playbook import ANY_GROUND, BREADTH, NumberCheck, PartyCheck, Position
from contract_review.playbook.measure import MEASURES
from contract_review.text import LEADING_NUMBER, SEGMENT_END, has_cjk
from contract_review.text.literals import GatedPattern, fold

__all__ = [
    "Effect",
    "PositionFinding",
    "contract_price",
    "contract_value",
    "number_at",
    "position_findings",
    "term_held_by",
    "term_sides",
]

Effect = Literal["against_us", "favourable"]

_RIGHT_KINDS = frozenset({"right", "exempt"})
"""A right, or an exemption from liability, held by one side."""
_DUTY_KINDS = frozenset({"obligation", "bears", "denial"})


class PositionFinding(BaseModel):
    """A term of the clause measured against a playbook position."""

    position_id: str = Field(description="The position.")
    topic: str = Field(description="Its topic (English: part of the risk type, a stable key).")
    title: str = Field("", description="The position's title in the review's language (zh).")
    effect: Effect = Field(description="'against_us' or 'favourable' (to us).")
    check: str = Field(description="'their_right' or 'our_duty'.")
    level: RiskLevel = Field(description="Weight of the term (for against_us).")
    holder: str = Field(description="The party word that holds the right or bears the duty.")
    quote: str = Field(description="The sentence stating the term, verbatim.")
    breadth: list[str] = Field(description="Words that make it broad ('at any time').")
    value: float | None = Field(
        None, description="The number measured (% a year, days, or months of fees)."
    )
    measure: str = Field("", description="What `value` measures.")
    standard: str = Field(description="Our standard position.")
    fallback: str = Field("", description="What we accept without escalating.")
    rationale: str = Field("", description="Why it matters.")
    burdens: str = Field(
        "", description="In a neutral review: the party the term is against ('' otherwise)."
    )
    worse: Literal["higher", "lower", ""] = Field(
        "", description="For a measured number: which way of it hurts the bearer."
    )
    target: float | None = Field(
        None, description="For a measured number: our standard for it, in its unit."
    )
    accepted: str = Field(
        "",
        description="Who accepted this wording in an earlier review and when ('' if no one): "
        "the term then weighs low and gets no redline.",
    )
    period: float | None = Field(
        None,
        description="For a term fair only with time enough to act (`fair_from_days`): the days "
        "it gives, too few; `target` is then the days that would make it fair.",
    )


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_BREADTH = re.compile(BREADTH, re.IGNORECASE)

_INNER_DOT = re.compile(
    r"(?<=\d)\.(?=\d)"  # 'Section 5.3', '$1.05 million'
    r"|(?<![\w.])(?:Inc|Ltd|Co|Corp|No|Nos|Sec|Secs|Art|Para|St|Mr|Mrs|Ms|Dr|vs|v|e\.g|i\.e|etc)\."
    r"(?=\s*[\w,(])"  # 'Inc., a Delaware corporation', 'No. 5'
    r"|(?<!\w)[A-Z]\.(?=[A-Z]\.|\s+[A-Z]?[a-z])",  # 'U.S. Dollars', 'J. Smith'
)
"""Full stops that end no sentence: inside numbers, abbreviations and initials."""


@lru_cache(maxsize=16384)
def _plain(sentence: str) -> str:
    """`sentence` with the full stops that end no sentence read as another mark, the same
    length: a pattern that stops at a full stop ('[^.;]*') reads on past 'paragraphs 5.3 and
    5.5(c),' and 'U.S. Dollars'; every offset stays the sentence's own."""
    return _INNER_DOT.sub(lambda m: m.group().replace(".", "\u2024"), sentence)


def _segments(text: str) -> list[tuple[int, int]]:
    """Sentence parts (ending at 。！？；; . ! ? or a line end), as spans of `text`."""
    spans, start = [], 0
    for m in SEGMENT_END.finditer(text):
        if text[start : m.end()].strip():
            spans.append((start, m.end()))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def _judge(
    check: PartyCheck,
    sentence: str,
    roles: PartyRoles,
    payer: tuple[str, str] | None,
    places: dict[str, Side],
    structure: DocumentStructure | None = None,
) -> tuple[Effect, str] | None:
    """Whether the term in `sentence` is against us or favourable, and who holds it.

    The holder is the subject of the modal that states the term ("the Supplier may…", "乙方有权
    …"); a sentence with no modal at all ("the Customer's liability is unlimited", "乙方另行
    通知的内容即构成本合同的组成部分") is held by the first party it names."""
    if check.kind == "their_right" and _DEEMED_BREACH.search(sentence):
        return None  # 'an attempted termination … shall be deemed a breach': no right at all
    if check.subject_after is not None and _about_ours(check.subject_after, sentence, roles):
        return None
    actors = _holders(check, sentence, roles, payer, places)
    sides = {side for side, _ in actors or ()}
    if actors is None or not sides or "both" in sides or sides == {"us", "them"}:
        return None  # no party holds it, or both do: balanced
    (side,) = sides
    if check.period_ratio is not None:
        by_period = _by_period(check, sentence, side, roles, payer, places, structure)
        return None if by_period is None else (by_period, actors[0][1])
    if _market_standard(check, sentence, roles, side, payer):
        return None
    if check.mirror == "document" and structure is not None:
        other: Side = "us" if side == "them" else "them"
        ledger = _document_sides(structure, check, roles, payer, places)
        theirs = {g for g, held in ledger.items() if held & {other, "both"}}
        if ANY_GROUND in theirs or all(
            g in theirs or (g in check.balanced_by_any and theirs)
            for g in _grounds(check, sentence)
        ):
            return None  # the contract gives the other side the same term elsewhere
    against = (side == "them") if check.kind == "their_right" else (side == "us")
    holder = actors[0][1]
    return ("against_us" if against else "favourable"), (
        _word(roles, side) if is_pronoun(holder) else holder
    )


def _document_sides(
    structure: DocumentStructure,
    check: PartyCheck,
    roles: PartyRoles,
    payer: tuple[str, str] | None,
    places: dict[str, Side],
) -> dict[str, frozenset[str]]:
    """The sides that hold (or bear) `check`'s term anywhere in the contract ('us', 'them',
    'both'), by the term's kind (`check.grounds`)."""
    sides: dict[str, set[str]] = {}
    for term in _document_terms(structure, check, roles, payer, places):
        if check.kind == "their_right" and term.deemed_breach:
            continue
        for ground in term.grounds:
            sides.setdefault(ground, set()).update(term.holders)
    return {ground: frozenset(held) for ground, held in sides.items()}


@dataclass(frozen=True)
class _Stated:
    """One sentence of the contract stating a check's term, as read for one party."""

    holders: frozenset[Side]
    grounds: tuple[str, ...]
    days: float | None
    """Its period (`PartyCheck.period_ratio` checks only)."""
    deemed_breach: bool
    """'an attempted termination … shall be deemed a breach': no right at all."""


def _stating(structure: DocumentStructure, check: PartyCheck) -> list[str]:
    """The contract's sentences that state `check`'s term (whoever holds it)."""
    patterns = [_compile(p) for p in check.patterns]
    return [
        sentence
        for sentence in _document_sentences(structure)
        if any(p.search(_plain(sentence)) for p in patterns)
    ]


def _document_terms(
    structure: DocumentStructure,
    check: PartyCheck,
    roles: PartyRoles,
    payer: tuple[str, str] | None,
    places: dict[str, Side],
) -> tuple[_Stated, ...]:
    """Every statement of `check`'s term in the contract, read once per contract, check and
    party (a contract amended for verification: its original's)."""
    structure = structure.basis
    key = (id(structure), id(check), roles, payer, tuple(sorted(places.items())))
    hit = _LEDGER.get(key)
    if hit is not None and hit[0] is structure and hit[1] is check:
        return hit[2]
    terms = tuple(
        _Stated(
            holders=frozenset(side for side, _ in _holders(check, s, roles, payer, places) or ()),
            grounds=tuple(_grounds(check, s)),
            days=_period_days(s) if check.period_ratio is not None else None,
            deemed_breach=bool(_DEEMED_BREACH.search(s)),
        )
        for s in _stating(structure, check)
    )
    if len(_LEDGER) >= 512:
        _LEDGER.clear()
    _LEDGER[key] = (structure, check, terms)
    return terms


_LEDGER: dict[tuple[object, ...], tuple[DocumentStructure, PartyCheck, tuple[_Stated, ...]]] = {}
"""Statements of a term across a contract, by (contract, check, party); the objects kept so a
reused id is told apart."""


_PERIOD = re.compile(
    r"\bwithin\s+(?:a\s+(?:further\s+)?period\s+of\s+)?[^.;]{0,40}?\b(?:hours?|days?|weeks?|months?)\b"
    r"|\b[\w-]+\s+(?:\(\d+\)\s+)?(?:calendar\s+|business\s+|working\s+)?(?:hours?|days?|weeks?|months?)"
    r"(?:['’]s?)?\s+(?:prior\s+|advance\s+)?(?:written\s+)?notice\b"
    r"|(?:\d+|[一二两三四五六七八九十百]+)\s*(?:个)?(?:小时|日|天|工作日|周|月)内"
    r"|(?:超过|满|提前)\s*(?:\d+|[一二两三四五六七八九十百]+)\s*(?:个)?(?:日|天|工作日|周|月)",
    re.IGNORECASE,
)
"""The period a term runs on: 'within ninety (90) days', "seven (7) days' written notice",
'三日内', '逾期超过十五日'."""

# Periods for different kinds of breach (a payment default against any other) differ in the
# market itself: thirty days against ten is no asymmetry. Between such periods only a gap of
# this ratio matters, and only when one leaves no real time (five days to put a breach right)
# or the other keeps a party bound for a season (sixty days).
_KIND_RATIO = 4.0
_SHORT_DAYS = 5.0
_LONG_DAYS = 60.0
_SAME_KIND_GAP = 14.0
"""Periods for the same kind of breach must also differ by two weeks at least to matter."""


def _period_days(sentence: str) -> float | None:
    """The days of the first period `sentence` states, if any."""
    m = _PERIOD.search(sentence)
    return MEASURES["days"](m.group()) if m else None


Period = tuple[float, frozenset[str]]
"""A period in days, and the kinds of breach it is for (`PartyCheck.grounds`)."""


def _by_period(
    check: PartyCheck,
    sentence: str,
    side: Side,
    roles: PartyRoles,
    payer: tuple[str, str] | None,
    places: dict[str, Side],
    structure: DocumentStructure | None,
) -> Effect | None:
    """The term held by `side` judged by its period against the other side's versions of it
    (`check.period_ratio`): the holder of a right waits its period before acting, so a long
    wait for us, or a short one for them, is against us."""
    days = _period_days(sentence)
    if not days or structure is None or check.period_ratio is None:
        return None
    own: Period = (days, frozenset(_grounds(check, sentence)))
    waits = _document_periods(structure, check, roles, payer, places)
    other: Side = "us" if side == "them" else "them"
    ratio = check.period_ratio
    pairs = [(own, w) if side == "us" else (w, own) for w in waits.get(other, ())]
    if any(_far_apart(ours, theirs, ratio) for ours, theirs in pairs):
        return "against_us"
    if any(_far_apart(theirs, ours, ratio) for ours, theirs in pairs):
        return "favourable"
    return None


def _far_apart(long: Period, short: Period, ratio: float) -> bool:
    """Whether `long` is far longer than `short`: by `ratio` and two weeks for the same kind
    of breach, by `_KIND_RATIO` and to an extreme for different kinds."""
    (days, kinds), (other_days, other_kinds) = long, short
    if other_days <= 0:
        return False
    if kinds == other_kinds:
        return days >= ratio * other_days and days - other_days >= _SAME_KIND_GAP
    return days >= _KIND_RATIO * other_days and (other_days <= _SHORT_DAYS or days >= _LONG_DAYS)


def _document_periods(
    structure: DocumentStructure,
    check: PartyCheck,
    roles: PartyRoles,
    payer: tuple[str, str] | None,
    places: dict[str, Side],
) -> dict[str, tuple[Period, ...]]:
    """The periods of `check`'s term anywhere in the contract, by the side ('us', 'them') that
    alone holds it there."""
    found: dict[str, list[Period]] = {}
    for term in _document_terms(structure, check, roles, payer, places):
        if term.days and len(term.holders) == 1 and term.holders <= {"us", "them"}:
            (side,) = term.holders
            found.setdefault(side, []).append((term.days, frozenset(term.grounds)))
    return {side: tuple(values) for side, values in found.items()}


def term_sides(
    structure: DocumentStructure, check: PartyCheck, roles: PartyRoles
) -> frozenset[str]:
    """The sides ('us', 'them', 'both') that hold or bear `check`'s term anywhere in the
    contract: whose liability a cap limits, who gives a warranty. A sentence stating the term
    without naming a party binds both; one that denies it ('Supplier makes no warranty') gives
    it to nobody."""
    patterns = [_compile(p) for p in check.patterns]
    payer = payer_of(structure, roles)
    sides: set[str] = set()
    for sentence in _stating(structure, check):
        # "The Architect's liability shall not exceed …, and the Owner's liability shall be
        # limited to the same amount": each part that states the term is read for its holder
        parts = [
            part
            for part in _JOINED.split(sentence)
            if any(p.search(_plain(part)) for p in patterns)
        ]
        for part in parts if len(parts) > 1 else [sentence]:
            holders = _holders(check, part, roles, payer, {})
            if holders is not None:
                sides.update({side for side, _ in holders} or {"both"})
    return frozenset(sides)


_JOINED = re.compile(r",\s*(?:and|while|whereas|but)\s+|；|;|，(?:而|且|但)", re.IGNORECASE)
"""Where a sentence joins two statements of a term, each for its own party."""


def term_held_by(
    structure: DocumentStructure, check: PartyCheck, roles: PartyRoles, side: Side
) -> tuple[str, str] | None:
    """(clause id, sentence as written) of the first place the contract gives `check`'s term
    to `side` alone — the cap on the other side's liability, when ours has none."""
    patterns = [_compile(p) for p in check.patterns]
    payer = payer_of(structure, roles)
    leads = _lead_ins(structure)
    for clause in structure.iter_clauses():
        text = clause.text
        if clause.children:  # the parent's own lines, before its first sub-clause
            text = text[: max(0, clause.children[0].start_offset - clause.start_offset)]
        for read, own, _ in _read(text, leads.get(clause.text, "")):
            sentence = LEADING_NUMBER.sub("", read, count=1)
            if not any(p.search(_plain(sentence)) for p in patterns):
                continue
            holders = _holders(check, sentence, roles, payer, {})
            if holders and {s for s, _ in holders} == {side}:
                return clause.clause_id, own
    return None


def _grounds(check: PartyCheck, sentence: str) -> list[str]:
    """The kinds of term `sentence` states (`check.grounds`: a right to terminate for breach
    or insolvency), [''] for none named."""
    return [g for g, p in check.grounds.items() if _compile(p).search(_plain(sentence))] or [""]


@per_structure()
def _document_sentences(structure: DocumentStructure) -> tuple[str, ...]:
    """Every sentence part of the contract's clauses, once (a clause's text holds its
    sub-clauses': only clauses without children are read, with their parents' own lines)."""
    seen: dict[str, None] = {}
    leads = _lead_ins(structure)
    for clause in structure.iter_clauses():
        text = clause.text
        if clause.children:  # the parent's own lines, before its first sub-clause
            text = text[: max(0, clause.children[0].start_offset - clause.start_offset)]
        for read, _, _ in _read(text, leads.get(clause.text, "")):
            sentence = LEADING_NUMBER.sub("", read, count=1)
            if sentence:
                seen.setdefault(sentence, None)
    return tuple(seen)


def _read(text: str, lead: str = "") -> list[tuple[str, str, str]]:
    """The sentence parts of `text` as read (the lead-in of a list before each of its items:
    '… may terminate … for: (a) any failure of Distributor …'), as written, and the lead-in
    read before them ('' for none). `lead`: the words the whole text completes, as a list
    item of its parent."""
    out = []
    for n, (s, e) in enumerate(_marked(text)):
        own = text[s:e].strip()
        body = LEADING_NUMBER.sub("", own, count=1)
        mark = _ITEM.match(own)
        if lead and (n == 0 or mark):
            # the item's words without its mark: 'i.' is no full stop of the sentence read
            out.append((f"{lead} {own[mark.end() :].lstrip() if mark else body}", own, lead))
            if n == 0:
                lead = ""  # the parent's lead-in completes the item's first words only
            continue
        out.append((own, own, ""))
        if _LEAD_IN.search(body) and not _NO_LEAD_IN.search(body):
            lead = " ".join(body.split())
        elif not _ITEM.match(own) and not _JOINER.fullmatch(body):
            lead = ""
    return out


_JOINER = re.compile(r"\s*(?:or|and|and/or|或|或者|及|以及|和)\s*[,，]?\s*", re.IGNORECASE)
"""What stands between two items ('…; or'): the list goes on."""
_NO_LEAD_IN = re.compile(
    r"\bas\s+follows\b|\bwitness\w*|\bhereby\s+agree|\bagree(?:s|d)?\s*[:：]|\bmeanings?\b"
    r"|\bdefin\w*|(?:约定|协商一致|同意|协议)如下|达成(?:如下)?协议",
    re.IGNORECASE,
)
"""A colon that opens the contract's terms or its definitions, not a list one term makes
('NOW, THEREFORE, the parties agree as follows:')."""


def _marked(text: str) -> list[tuple[int, int]]:
    """`_segments`, a bare item mark ('i.', '(a)') joined to the words after it."""
    spans: list[tuple[int, int]] = []
    pending: int | None = None
    for s, e in _segments(text):
        if _ITEM.fullmatch(text[s:e].strip()):
            pending = s if pending is None else pending
            continue
        # '… warrants that:   i.', '… arising from:   (a) the use …': the lead-in apart
        split = _MARK_AFTER_COLON.search(text, s, e)
        if split is not None:
            spans.append((s if pending is None else pending, split.start(1)))
            if _ITEM.fullmatch(text[split.end(1) : e].strip()):
                pending = split.end(1)  # a bare mark: it joins the next part
                continue
            s, pending = split.end(1), None
        spans.append((s if pending is None else pending, e))
        pending = None
    if pending is not None:
        spans.append((pending, len(text)))
    return spans


_MARK_AFTER_COLON = re.compile(
    r"[:：](\s+)(?=[(（][\w\u4e00-\u9fff]{1,4}[)）]|(?:[a-z]{1,3}|\d{1,2})[.)、](?![\d.]))"
)
"""A lead-in and the list's first mark in one sentence part ('… arising from:   (a) the use
…', or 'that:   i.' cut off by the full stop after the mark)."""
_ITEM = re.compile(r"\s*(?:[(（][\w\u4e00-\u9fff]{1,4}[)）]|(?:[a-z]{1,3}|\d{1,2})[.)、](?![\d.]))")
"""A list item's mark: '(a)', '(iii)', 'b.', 'ii)', '（一）', '1、'."""
_LEAD_IN = re.compile(r"[:：]\s*$|[—–]\s*$")
"""A sentence part a list completes: it ends in a colon or a dash ('WGT may terminate the Term
by giving Distributor written notice for:')."""


@per_structure()
def _lead_ins(structure: DocumentStructure) -> dict[str, str]:
    """Each list item's lead-in, by the item's text: the last sentence part of its parent's
    own lines when it ends in a colon ('… may terminate … for:' before '(a) any failure of
    Distributor …'). An item alone does not say who may do what to whom."""
    out: dict[str, str] = {}
    for clause in structure.iter_clauses():
        if not clause.children:
            continue
        own = clause.text[: max(0, clause.children[0].start_offset - clause.start_offset)]
        spans = _segments(own)
        if not spans:
            continue
        last = own[spans[-1][0] : spans[-1][1]].strip()
        if len(spans) > 1 and _LEAD_IN.fullmatch(last):  # a bare ':' on its own line
            last = own[spans[-2][0] : spans[-1][1]].strip()
        if not _LEAD_IN.search(last) or _NO_LEAD_IN.search(last):
            continue
        lead = LEADING_NUMBER.sub("", " ".join(last.split()), count=1)
        for child in clause.children:
            out.setdefault(child.text, lead)
    return out


def _holders(
    check: PartyCheck,
    sentence: str,
    roles: PartyRoles,
    payer: tuple[str, str] | None,
    places: dict[str, Side],
) -> list[tuple[Side, str]] | None:
    """Who holds the term of `sentence` (side, word): the party it benefits or that stands
    next to it, the party at whose seat it is, the payer or payee it belongs to, the subjects
    of the modals that state it, else the party it names. None: nobody holds it (a place of
    neither side; a right the sentence denies)."""
    kinds = _RIGHT_KINDS if check.kind == "their_right" else _DUTY_KINDS
    near = _beneficiary(check, sentence, roles) or _holder_near(check, sentence, roles)
    if near is None and check.holder_at_seat:
        near = _holder_at_seat(sentence, places, roles)
        if near is None:
            return None  # a place of neither side, or of both: nobody's home ground
    actions = party_actions(sentence, roles)
    if near is None and check.owner != "actor" and payer is not None:
        side_paid: Side = "them" if payer[0] == "us" else "us"
        near = payer if check.owner == "payer" else (side_paid, _word(roles, side_paid))  # type: ignore[assignment]
    if near is not None:
        return [near]
    if actions:
        return [(a.side, a.alias) for a in actions if a.kind in kinds]
    actors = _named_at_term(check, sentence, roles)
    if check.kind == "their_right" and _negated(check, sentence):
        return None  # 'prices can't be increased by the Supplier': no right at all
    if (
        not actors
        and check.unnamed is not None
        and payer is not None
        and _STATEMENT.search(sentence)  # not a heading ('Price adjustment')
    ):
        # No party named: the term is the payer's or the payee's (a price increase by itself
        # is the payee's).
        payee: Side = "them" if payer[0] == "us" else "us"
        side_of: Side = payer[0] if check.unnamed == "payer" else payee  # type: ignore[assignment]
        actors = [(side_of, payer[1] if check.unnamed == "payer" else _word(roles, side_of))]
    return actors


def _market_standard(
    check: PartyCheck,
    sentence: str,
    roles: PartyRoles,
    side: Side,
    payer: tuple[str, str] | None,
) -> bool:
    """Whether the term `side` holds is fair as written: held by the party that pays, with a
    period long enough to act in, excused for what the other side caused, or covering one's
    own fault only."""
    if check.holder_must_be == "payee" and payer is not None and side == payer[0]:
        return True
    if check.fair_if is not None and _qualified(check.fair_if, sentence):
        return True
    if check.fair_from_days is not None:
        period = _window_days(sentence)
        if period is not None and period >= check.fair_from_days:
            return True
    other: Side = "us" if side == "them" else "them"
    if check.fair_if_caused_by_other and _caused_by(sentence, roles, other):
        return True
    return bool(check.only_if_caused_by_other and not _caused_by(sentence, roles, other))


_DENIED_BEFORE = re.compile(
    r"(?:whether\s+or\s+not|regardless\s+of|irrespective\s+of|even\s+(?:if|though|where)"
    r"|without\s+(?:being|having\s+been|the\s+need)|无论|不论|无需|不必)[^.;。；]{0,60}$",
    re.IGNORECASE,
)


def _qualified(pattern: str, sentence: str) -> bool:
    """Whether `sentence` states the qualifier `pattern` as a condition of the term ('amounts
    agreed in writing'), not as what the term overrides ('whether or not such claim is
    disputed or has been finally determined')."""
    plain = _plain(sentence)
    return any(
        not _DENIED_BEFORE.search(plain, 0, m.start()) for m in _compile(pattern).finditer(plain)
    )


def _about_ours(subject_after: str, sentence: str, roles: PartyRoles) -> bool:
    """Whether the term is about something named after us ('… as to the King Trademarks',
    '… regarding Licensee's Materials')."""
    m = _compile(subject_after).search(sentence)
    if m is None:
        return False
    after = sentence[m.end() : m.end() + 60]
    # five words, or a dozen characters of Chinese ('关于甲方商标')
    window = after[:12] if has_cjk(after[:4]) else " ".join(after.split()[:5])
    return any(
        re.search(rf"(?<![\w-]){re.escape(alias)}(?:['’]s?)?(?![\w-])", window)
        for alias in roles.our_aliases
        if alias and not is_pronoun(alias)
    )


def _named_at_term(check: PartyCheck, sentence: str, roles: PartyRoles) -> list[tuple[Side, str]]:
    """The party a sentence without a modal names for the term: the one the term's words name
    as its owner ('the liability of the Licensee shall not be limited'), else the first one
    named in the sentence — or, in a sentence contrasting two parties ('…, whereas the
    Licensee's liability is unlimited'), in the part that states the term."""
    spans = [m.span() for p in check.patterns if (m := _compile(p).search(_plain(sentence)))]
    mentions = [
        (at, "both" if coordinated(sentence, found, at, side) else side, w)
        for found in (party_mentions(sentence, roles),)
        for at, side, w in found
    ]
    if not mentions:
        return []
    if not spans:
        return [(mentions[0][1], mentions[0][2])]
    if check.kind == "our_duty":  # '… all collection costs … will be payable by Distributor'
        bearer = [
            (side, w)
            for at, side, w in mentions
            if _BORNE_BY.search(sentence, max(0, at - 40), at)
            # not an amount the term is measured by ('exceed the Fees actually paid by Client')
            and not AMOUNT_PAID_BY.search(sentence, max(0, at - 60), at)
        ]
        if bearer:
            return bearer[:1]
    start, end = min(spans)
    owner = [
        (side, w)
        for at, side, w in mentions
        if start <= at < end and re.search(r"\bof\s+(?:the\s+)?$", sentence[start:at])
    ]
    turn = max((m.end() for m in _CONTRAST.finditer(sentence, 0, start)), default=0)
    # a party the term is given to ('… are made available to Customer "as is"') receives it:
    # it is not the one that holds it
    given = {at for at, _, _ in mentions if _GIVEN_TO.search(sentence, max(0, at - 12), at)}
    part = [(side, w) for at, side, w in mentions if at >= turn and at not in given]
    if not owner and not part and len(given) == len(mentions):
        return []
    return owner[:1] or part[:1] or [(mentions[0][1], mentions[0][2])]


_BORNE_BY = re.compile(
    r"\b(?:(?:payable|paid|borne|owed|reimbursed|chargeable)\s+(?:solely\s+|entirely\s+|in\s+full\s+)?by"
    r"|for\s+the\s+(?:sole\s+)?account\s+of|at\s+the\s+(?:sole\s+)?(?:cost|expense)\s+of)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
"""Where a sentence without a modal names the party that bears a cost."""
_GIVEN_TO = re.compile(r"(?:\b(?:to|for|towards)\s+(?:the\s+)?|向|给)$", re.IGNORECASE)


def _negated(check: PartyCheck, sentence: str) -> bool:
    """Whether the term a check's pattern matches first is stated in the negative, in its
    words or just before them ('prices can't be increased', 'the licences shall not
    terminate for any reason')."""
    found = [m for p in check.patterns if (m := _compile(p).search(_plain(sentence)))]
    if not found:
        return False
    term = min(found, key=lambda m: m.start())
    return bool(
        _NEGATED.search(term.group())
        or _NOT_BEFORE.search(sentence, max(0, term.start() - 16), term.start())
    )


_NOT_BEFORE = re.compile(r"\b(?:not|never|cannot)\s+(?:be\s+)?$|(?:不得|不能|无权)$", re.I)


_DEEMED_BREACH = re.compile(
    r"\b(?:shall|will|is|are)\s+(?:be\s+)?(?:deemed|treated\s+as|considered|regarded\s+as)\s+"
    r"(?:to\s+be\s+)?[^.;]{0,50}?\b(?:a\s+|an\s+)?(?:material\s+)?breach\b"
    r"|\b(?:shall|will)\s+constitute\s+(?:a\s+|an\s+)?(?:material\s+)?breach\b"
    r"|(?<![不未])视为[^。；，]{0,6}违约|(?<![不未])构成[^。；，]{0,4}违约",
    re.IGNORECASE,
)
"""An act the sentence declares a breach is no right of whoever does it."""
_STATEMENT = re.compile(r"\b(?:shall|will|may|must|is|are|be|can)\b|应|将|可|须|予以", re.I)
_NEGATED = re.compile(r"\b(?:not|cannot|can't|never)\b|不得|不能|无权")
_CONTRAST = re.compile(r"\b(?:whereas|while)\b|,\s*but\b|而(?!且)|但是|相反", re.I)


def _word(roles: PartyRoles, side: Side) -> str:
    """The word to show for a side: its first alias that is not a pronoun ('Franchisee' for a
    party the contract calls "you"), else the pronoun in quotes."""
    aliases = roles.their_aliases if side == "them" else roles.our_aliases
    shown = [a for a in aliases if not is_pronoun(a)] or [f'"{a.lower()}"' for a in aliases]
    return shown[0] if shown else str(side)


def _holder_at_seat(
    sentence: str, places: dict[str, Side], roles: PartyRoles
) -> tuple[Side, str] | None:
    """(side, party word) when the sentence names places of one side's address only ('the
    courts of Munich' for a party seated in Munich)."""
    named = [
        (side, place)
        for place, side in places.items()
        if (
            place in sentence if has_cjk(place) else re.search(rf"\b{re.escape(place)}\b", sentence)
        )
    ]
    if len({side for side, _ in named}) != 1:
        return None
    return named[0][0], _word(roles, named[0][0])


def _beneficiary(check: PartyCheck, sentence: str, roles: PartyRoles) -> tuple[Side, str] | None:
    """(side, word) the term burdens when it names whom it benefits ('the Lessor may keep the
    Deposit' burdens the Hirer): the party other than the one named at `beneficiary_near`."""
    if check.beneficiary_near is None:
        return None
    named = _named_next_to(check.beneficiary_near, "either", sentence, roles, sides_only=True)
    if named is None:
        return None
    other: Side = "us" if named[0] == "them" else "them"
    return other, _word(roles, other)


def _holder_near(check: PartyCheck, sentence: str, roles: PartyRoles) -> tuple[Side, str] | None:
    """(side, word) of the party the term names next to `check.holder_near` ('vest in the
    Supplier', '归乙方所有', "the Supplier's domicile", '乙方所在地'), if any."""
    if check.holder_near is None:
        return None
    return _named_next_to(check.holder_near, check.holder_side, sentence, roles)


def _named_next_to(
    pattern: str,
    where: Literal["after", "before", "either"],
    sentence: str,
    roles: PartyRoles,
    sides_only: bool = False,
) -> tuple[Side, str] | None:
    """(side, word) of the party named within 12 characters after (else, for 'either', before)
    a match of `pattern` — of one side only, with `sides_only`."""
    mentions = [
        (at, side, w)
        for at, side, w in party_mentions(sentence, roles)
        if not sides_only or side in ("us", "them")
    ]
    found: list[tuple[Side, str]] = []
    for m in _compile(pattern).finditer(sentence):
        after = [(at, side, w) for at, side, w in mentions if m.end() <= at <= m.end() + 12]
        before = [
            (at, side, w) for at, side, w in mentions if m.start() - 12 <= at + len(w) <= m.start()
        ]
        named = (
            after[0]
            if where in ("after", "either") and after
            else before[-1]
            if where in ("before", "either") and before
            else None
        )
        if named is not None:
            at, side, word = named
            # 'the liability of the Contractor and of the Employer': both are named there
            found.append(("both" if coordinated(sentence, mentions, at, side) else side, word))
    if not found:
        return None
    # "The Architect's liability shall not exceed …, and the Owner's liability …": the term is
    # named next to each side in turn
    if {"us", "them"} <= {side for side, _ in found}:
        return ("both", found[0][1])
    return found[0]


_CAUSE_BEFORE = re.compile(
    r"(?:\b(?:caused|occasioned|attributable|due|owing|resulting|arising)\s+(?:by|to|from)"
    r"|\bby\s+reason\s+of|因|由于|系因|归因于)\s*(?:the\s+|any\s+)?$",
    re.IGNORECASE,
)
_CAUSE_AFTER = re.compile(
    r"(?:['’]s)?\s*(?:own\s+)?(?:\b(?:breach|negligen\w*|acts?|omissions?|failures?|fault|default"
    r"|instructions?|delay|wilful|misuse|improper)\b|(?:的)?(?:自身|本身)?(?:原因|过错|过失|违约|责任|提供|未"
    r"|要求|指示|行为|延误|迟延|违章|违规|管理不善|疏忽|故意|操作不当|使用不当|不当))",
    re.IGNORECASE,
)


_WINDOW = re.compile(
    r"\bwithin\s+(?:a\s+period\s+of\s+)?[^.;]{0,40}?\b(?:hours?|days?|weeks?|months?)\b"
    r"|(?:\d+|[一二两三四五六七八九十百]+)\s*(?:个)?(?:小时|日|天|工作日|周|月)内",
    re.IGNORECASE,
)


def _window_days(sentence: str) -> float | None:
    """The time the sentence gives to act ('within 15 working days', '二个工作日内'), in days
    — not any other period it names (an extension of twelve months)."""
    m = _WINDOW.search(sentence)
    return MEASURES["days"](m.group()) if m else None


def _caused_by(sentence: str, roles: PartyRoles, side: Side) -> bool:
    """Whether `sentence` puts the cause of its term on `side` ('因甲方原因', 'caused by the
    Customer's breach')."""
    return any(
        s == side
        and (
            (
                _CAUSE_BEFORE.search(sentence, max(0, at - 24), at)
                and _CAUSE_AFTER.match(sentence, at + len(w))
            )
            or _FAULT_OF.search(sentence, max(0, at - 40), at)
        )
        for at, s, w in party_mentions(sentence, roles)
    )


_FAULT_OF = re.compile(
    r"\b(?:negligen\w*|fault|default|breach|acts?|omissions?|misconduct)\s+(?:(?:or|and|and/or)\s+"
    r"(?:\w+\s+){0,2})?of\s+(?:the\s+|any\s+)?$",
    re.IGNORECASE,
)
"""'the negligence or default of (the Franchisor)'."""


def _finding(
    position: Position,
    check: PartyCheck | NumberCheck,
    sentence: str,
    effect: Effect,
    holder: str,
    level: str,
    breadth: list[str],
    value: float | None = None,
    language: str | None = None,
) -> PositionFinding:
    """The finding, with our position's wording in the review's `language` (None: in the
    sentence's)."""
    if language is None:
        language = "zh" if has_cjk(sentence) else "en"
    accepted = ""
    if effect == "against_us" and position.accepts(sentence) and position.remembered:
        r = position.remembered
        accepted = ", ".join(x for x in (r.reviewer, r.decided_at[:10], r.task_id) if x)
        level = RiskLevel.LOW.value  # the client's remembered view: this wording is acceptable
    return PositionFinding(
        position_id=position.id,
        topic=position.topic,
        title=position.title_text(language),
        effect=effect,
        check=check.kind,
        level=RiskLevel(level),
        holder=holder,
        quote=sentence,
        breadth=breadth,
        value=value,
        measure=check.measure if isinstance(check, NumberCheck) else "",
        worse=check.worse if isinstance(check, NumberCheck) else "",
        target=check.standard if isinstance(check, NumberCheck) else None,
        standard=position.standard.text(language),
        fallback=position.fallback.text(language) if position.fallback else "",
        rationale=position.rationale.text(language) if position.rationale else "",
        accepted=accepted,
    )


Match = tuple[Position, PartyCheck | NumberCheck, str]
"""A sentence of the clause that states a position's term."""


def _matches(positions: list[Position], sentences: list[tuple[str, str, str]]) -> list[Match]:
    """The sentences (`_read`) stating each position's terms (whoever holds them): found once
    per clause, then judged for each party."""
    table = _table(positions)
    hits = [
        (i, sentence)
        for sentence, _, _ in sentences
        # '11.1 The Bank shall not …': the clause number is no part of the sentence's wording
        for i in _sentence_hits(_plain(LEADING_NUMBER.sub("", sentence, count=1)), table)
    ]
    hits.sort(key=lambda hit: hit[0])  # position order, then text order
    return [(*table.checks[i], sentence) for i, sentence in hits]


@dataclass(frozen=True, eq=False)
class _Table:
    """The checks of a list of positions, compiled once: (position, check), each check's
    patterns as one regular expression, and which checks each vocabulary word admits."""

    checks: tuple[tuple[Position, PartyCheck | NumberCheck], ...]
    patterns: tuple[tuple[GatedPattern, ...], ...]
    """Each check's patterns, each with its literal pre-filter (tried one by one: a pattern
    whose words a sentence lacks is skipped, which one combined expression cannot do)."""
    words: dict[str, tuple[int, ...]]
    always: tuple[int, ...]
    """Checks without a vocabulary: tried on every sentence."""
    starts: dict[str, tuple[str, ...]]
    """Vocabulary words by their first four characters (a sentence's four-character pieces
    name the few words worth looking for)."""
    short: tuple[str, ...]
    """Vocabulary words shorter than four characters (or starting with a space), looked for
    one by one."""
    short_latin: tuple[str, ...]
    """Those without Chinese characters (all a sentence without them can hold)."""


_TABLES: dict[tuple[int, ...], tuple[list[Position], _Table]] = {}
_GRAM = 4
_WORD_START = re.compile(r"\b(?=(\w.{3}))", re.DOTALL)
"""The four characters from each word start (lookahead: starts closer than four count too)."""


def _table(positions: list[Position]) -> _Table:
    key = tuple(id(p) for p in positions)
    hit = _TABLES.get(key)
    if hit is not None:  # the ids are of the very positions: the entry keeps them alive
        return hit[1]
    checks = tuple((p, c) for p in positions for c in p.checks)
    words: dict[str, list[int]] = {}
    for i, (_, check) in enumerate(checks):
        for word in check.vocab:
            words.setdefault(word.lower(), []).append(i)
    starts: dict[str, list[str]] = {}
    short: list[str] = []
    for word in words:
        if len(word) >= _GRAM and word[0].isalnum():
            starts.setdefault(word[:_GRAM], []).append(word)
        else:
            short.append(word)
    table = _Table(
        checks=checks,
        patterns=tuple(
            tuple(GatedPattern.of(re.compile(p, re.IGNORECASE)) for p in c.patterns)
            for _, c in checks
        ),
        words={w: tuple(ids) for w, ids in words.items()},
        always=tuple(i for i, (_, c) in enumerate(checks) if not c.vocab),
        starts={g: tuple(ws) for g, ws in starts.items()},
        short=tuple(short),
        short_latin=tuple(w for w in short if not has_cjk(w)),
    )
    if len(_TABLES) >= 16:
        _TABLES.clear()
    _TABLES[key] = (list(positions), table)  # the positions kept alive: their ids stay theirs
    return table


@lru_cache(maxsize=16384)
def _sentence_hits(sentence: str, table: _Table) -> tuple[int, ...]:
    """Which checks a sentence matches: only the checks whose vocabulary it contains are tried
    (substring tests are far cheaper than the patterns). Cached: a clause's sentences are read
    again as its sub-clauses'."""
    low = fold(sentence)
    candidates = set(table.always)
    if has_cjk(low):
        pieces = {low[i : i + _GRAM] for i in range(len(low) - _GRAM + 1)}
        short = table.short
    else:  # Latin words are looked for where a word starts (a stem, not the end of another)
        pieces = set(_WORD_START.findall(low))
        short = table.short_latin
    present = [w for g in pieces & table.starts.keys() for w in table.starts[g] if w in low]
    for word in (*present, *(w for w in short if w in low)):
        candidates.update(table.words[word])
    return tuple(
        i
        for i in sorted(candidates)
        if any(gate.search(sentence, low) for gate in table.patterns[i])
    )


def _judged(
    matches: list[Match],
    roles: PartyRoles,
    payer: tuple[str, str] | None,
    price: float | None,
    places: dict[str, Side],
    language: str | None,
    structure: DocumentStructure | None = None,
) -> list[PositionFinding]:
    """The matched terms judged from the side of `roles`' party (each term once: a clause's
    sentences come again as its sub-clauses'), our positions worded in `language`."""
    setting = (roles, payer, price, tuple(sorted(places.items())), language)
    out = []
    for position, check, sentence in matches:
        # a term judged against the whole contract is judged again for each contract
        whole = (
            structure.basis
            if structure is not None
            and isinstance(check, PartyCheck)
            and (check.mirror == "document" or check.period_ratio is not None)
            else None
        )
        key = (id(position), id(check), sentence, setting, id(whole))
        hit = _JUDGED.get(key)
        if hit is None or hit[0] is not position or hit[1] is not check or hit[2]() is not whole:
            if len(_JUDGED) >= 8192:
                _JUDGED.clear()
            found = _judged_one(
                position, check, sentence, roles, payer, price, places, language, structure
            )
            # the contract by a weak reference: a batch's contracts are not kept alive
            hit = _JUDGED[key] = (position, check, _ref(whole), found)
        if hit[3] is not None:
            out.append(hit[3].model_copy())  # callers may annotate their copy
    # two checks of a position may read the same term (a rate, and a margin over base): the
    # risks keep the gravest once
    return _specific_first(out, {p.id for p, _, _ in matches if p.catch_all})


_JUDGED: dict[
    tuple[object, ...],
    tuple[
        Position,
        PartyCheck | NumberCheck,
        Callable[[], DocumentStructure | None],
        PositionFinding | None,
    ],
] = {}
"""Terms judged, by (position, check, sentence, setting, contract — for a term judged against
the whole contract); the objects kept to tell a reused id from the same one."""


def _ref(structure: DocumentStructure | None) -> Callable[[], DocumentStructure | None]:
    return weakref.ref(structure) if structure is not None else lambda: None


def _judged_one(
    position: Position,
    check: PartyCheck | NumberCheck,
    sentence: str,
    roles: PartyRoles,
    payer: tuple[str, str] | None,
    price: float | None,
    places: dict[str, Side],
    language: str | None,
    structure: DocumentStructure | None = None,
) -> PositionFinding | None:
    if isinstance(check, NumberCheck):
        return _measured(position, check, sentence, roles, payer, price, language)
    judged = _judge(check, sentence, roles, payer, places, structure)
    if judged is None:
        return None
    effect, holder = judged
    breadth = list(dict.fromkeys(m.group().lower() for m in _BREADTH.finditer(sentence)))
    level = check.breadth_level if breadth else check.level
    found = _finding(position, check, sentence, effect, holder, level, breadth, language=language)
    window = _window_days(sentence) if check.fair_from_days is not None else None
    if effect == "against_us" and window is not None and window < (check.fair_from_days or 0):
        # too short to act in: the time it gives is what a change can lengthen
        found.period, found.target, found.worse = window, check.fair_from_days, "lower"
    return found


def _specific_first(findings: list[PositionFinding], general: set[str]) -> list[PositionFinding]:
    """The findings without those of catch-all positions on a sentence a specific position
    judged already, and one finding per catch-all position and sentence."""
    if not general:
        return findings
    specific = {f.quote for f in findings if f.position_id not in general}
    seen: set[str] = set()
    out = []
    for f in findings:
        if f.position_id in general:
            if f.quote in specific or f.quote in seen:
                continue
            seen.add(f.quote)
        out.append(f)
    return out


# --------------------------------------------------------------------------------------------
# Numbers: rates a year, periods in days, caps in months of fees
# --------------------------------------------------------------------------------------------

_PRICE_OF = re.compile(
    r"\b(?:contract|purchase|total|aggregate)\s+(?:price|sum|amount|consideration|value)\b"
    r"|\bprice\b|\bannual\s+rent\b|\b(?:principal|loan|facility)\s+amount\b"
    r"|\b(?:base|annual|yearly)\s+rent\b"
    r"|合同(?:总)?价款|合同(?:总)?价格|合同(?:总)?金额|合同总额|总价|(?:费用|价款|费)总(?:额|金额)"
    r"|年租金|租金总额|总租金|(?:借款|贷款)(?:金额|本金|总额)",
    re.I,
)
"""What states the contract's value: its price, a lease's annual rent, a loan's principal."""


@per_structure()
def contract_price(structure: DocumentStructure) -> float | None:
    """The contract's price: the largest amount stated as a price (None when no clause states
    one, e.g. fees per month)."""
    amounts = []
    for clause in structure.iter_clauses():
        if clause.children or not (named := list(_PRICE_OF.finditer(clause.text))):
            continue
        for item in analyse(clause.text, [])[0]:
            # a price by its category, or any amount the price words introduce ('开发费用总额
            # 为人民币捌拾万元', 'the annual rent is EUR 120,000')
            if item.kind == "amount" and (
                item.category == "price" or any(0 <= item.start - m.end() <= 60 for m in named)
            ):
                amounts.append(float(item.value))
    return max(amounts) if amounts else None


@per_structure()
def contract_value(structure: DocumentStructure) -> float | None:
    """What the contract is worth, for measuring a fixed cap: its price, else the largest
    amount its clauses state (a distributor's annual target, a facility's limit)."""
    price = contract_price(structure)
    if price is not None:
        return price
    amounts = [
        float(item.value)
        for clause in structure.iter_clauses()
        if not clause.children
        and clause.kind is not ClauseKind.PREAMBLE
        and _MONEY.search(clause.text)  # reading amounts is slow: only where money is named
        for item in analyse(clause.text, [])[0]
        if item.kind == "amount"
    ]
    return max(amounts) if amounts else None


_MONEY = re.compile(
    r"[$€£¥]|\b(?:USD|EUR|GBP|RMB|CNY|AUD|CAD|HKD|SGD|JPY|CHF|dollars?|euros?|pounds?)\b|人民币|元",
    re.I,
)


_PART_OF_PRICE = re.compile(r"\bfees?\b|\bcharges\b|\brent\b|费|租金|价款", re.I)
"""A fee or charge: a share of it is at most the same share of the contract's price."""


def _share_of_price(sentence: str, price: float | None) -> float | None:
    """The sentence's amount as % of the contract price: a percentage of the price as written
    (or of a fee, which is part of the price), or a fixed amount divided by the price."""
    items = analyse(sentence, [])[0]
    items.sort(key=lambda item: item.category != "cap")  # the capped amount first
    for item in items:
        if item.kind == "percentage" and (
            _PRICE_OF.search(sentence) or _PART_OF_PRICE.search(sentence)
        ):
            return float(item.value)
        if item.kind == "amount" and price:
            return 100.0 * float(item.value) / price
    return None


def _contrast_part(sentence: str, at: int, roles: PartyRoles) -> tuple[int, int]:
    """The part of a sentence contrasting the two sides ('…, whereas …', '…而…') that holds
    `at`; the whole sentence when it names one side only or contrasts nothing."""
    breaks = [m.span() for m in _CONTRAST.finditer(sentence)]
    if not breaks:
        return 0, len(sentence)
    sides = {side for _, side, _ in party_mentions(sentence, roles)}
    if not {"us", "them"} <= sides:
        return 0, len(sentence)
    start = max((e for s, e in breaks if e <= at), default=0)
    end = min((s for s, e in breaks if s >= at), default=len(sentence))
    return start, end


def _term(check: NumberCheck, sentence: str) -> re.Match[str] | None:
    """The first match of the check's patterns in `sentence`: where the term starts."""
    return min(
        (m for p in check.patterns if (m := _compile(p).search(_plain(sentence)))),
        key=lambda m: m.start(),
        default=None,
    )


def number_at(check: NumberCheck, sentence: str) -> int:
    """Where the number a `NumberCheck` measures is read from in `sentence`: where its term
    starts, or the point a pattern marks with a group 'at' ('renews … (?P<at>unless) …
    notice': the notice period, not the renewal term). 0 when no pattern matches."""
    term = _term(check, sentence)
    if term is None:
        return 0
    if "at" in term.re.groupindex and term.start("at") >= 0:
        return term.start("at")
    return term.start()


def _measured(
    position: Position,
    check: NumberCheck,
    sentence: str,
    roles: PartyRoles,
    payer: tuple[str, str] | None,
    price: float | None,
    language: str | None,
) -> PositionFinding | None:
    """The number of the term against the tiers, for the party that bears the term."""
    # The number is read from where the term starts ('…质保期满后十五日内支付': the period of
    # payment, not of the warranty, comes after '质保期满').
    term = _term(check, sentence)
    first = number_at(check, sentence)
    # 'you must give 180 days' notice, whereas we may do so up to 7 days before': each party's
    # number and its party are in their own part of a contrasting sentence
    start, end = _contrast_part(sentence, first, roles)
    whole, sentence = sentence, sentence[start:end]
    first -= start
    if term is not None and _NOT_THE_TERM.search(sentence, max(0, first - 24), max(0, first)):
        return None  # '…支付的，不构成迟延付款', 'shall not constitute late payment'
    if check.measure == "days" and _looks_back(sentence, first):
        return None  # 'Services used within 180 days before the invoice': a window, no deadline
    if check.measure == "annual_rate" and _SHARE_OF.match(sentence, first):
        return (
            None  # 'overdue payments in excess of ten percent (10%) of the payments owed': a share
        )
    if check.measure == "share_of_price":
        value = _share_of_price(sentence, price)
    else:
        value = MEASURES[check.measure](sentence[first:]) or MEASURES[check.measure](sentence)
    if value is None:
        return None
    level = check.level(value)
    if level is None:
        return None
    actions = [a for a in party_actions(sentence, roles) if a.side in ("us", "them")]
    # a party after a preposition is not the bearer ('costs incurred by the Lessor', '向甲方')
    mentions = [
        (str(side), alias)
        for at, side, alias in party_mentions(sentence, roles)
        if not _OBJECT_BEFORE.search(sentence, max(0, at - 16), at)
    ]
    side: str
    owner = (
        _liability_owner(whole, roles, term.start(), term.end())
        if check.measure in _CAPS and term is not None
        else None
    )
    if owner is not None:  # a cap is on the liability it names ('承租方的赔偿责任以…为限')
        side, holder = owner
    elif (
        actions
        and check.unnamed == "payer"
        and actions[0].kind == "right"
        and _TO_CHARGE.match(sentence, actions[0].end)
    ):
        # 'iPass reserves the right to charge interest of 1.5% per month': the party entitled
        # to the amount is paid it; the other side bears it
        side = "them" if actions[0].side == "us" else "us"
        holder = _word(roles, side)  # type: ignore[arg-type]
    elif actions:
        side, holder = str(actions[0].side), actions[0].alias
    elif check.unnamed == "payer" and (paid_by := _paid_by(sentence, roles)) is not None:
        side, holder = paid_by  # 'not paid by the Borrower when due'
    elif check.unnamed == "payer" and payer is not None and not _PAYER_NAMED.search(sentence):
        # 'Any amount not paid … accrues interest until the Franchisor receives payment': the
        # party named is the one paid; interest on late payment falls on the payer
        side, holder = payer
    elif mentions and mentions[0][0] in ("us", "them"):
        side, holder = mentions[0]
    elif check.unnamed == "payer" and payer is not None:
        side, holder = payer  # interest on late payment falls on the party that pays
    elif check.unnamed == "payee" and payer is not None:
        side = "them" if payer[0] == "us" else "us"  # a warranty period is the payee's
        holder = _word(roles, side)  # type: ignore[arg-type]
    else:
        return None
    if is_pronoun(holder):
        holder = _word(roles, side)  # type: ignore[arg-type]
    effect: Effect = "against_us" if side == check.bearer else "favourable"
    return _finding(position, check, whole, effect, holder, level, [], value, language)


_NOT_THE_TERM = re.compile(
    r"(?:不构成|不视为|不属于|不作为|不算作?|不计入?)$"
    r"|\b(?:not|never)\s+(?:be\s+)?(?:constitute|deemed|treated\s+as|regarded\s+as|count\s+as)"
    r"(?:\s+(?:an?|any))?\s+$",
    re.IGNORECASE,
)
"""Words that deny the term just after them: the sentence says what is not late payment."""

_TO_CHARGE = re.compile(
    r"\W{0,3}(?:\w+\W+){0,3}?(?:charge|levy|impose|collect|recover|receive|claim|demand|"
    r"be\s+paid|interest|收取|要求[^，。；]{0,6}支付)",
    re.IGNORECASE,
)
"""After a right: a right to be paid the amount ('reserves the right to charge interest'), not
a right to do what costs it ('may prepay the Loan …, with a premium of 6%')."""
_SHARE_OF = re.compile(
    r"[^%]{0,80}?%\s*\)?\s*of\s+(?:the\s+|all\s+|any\s+|such\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:payments?|amounts?|sums?|fees|price|royalt\w+|revenues?|sales|invoices?|total)\b"
    # '1% of the price for each day of delay' is a rate
    r"(?![^.;]{0,40}\b(?:per|for\s+each|each|a|every)\s+(?:calendar\s+|business\s+)?"
    r"(?:day|week|month|year|annum)\b)",
    re.IGNORECASE,
)
"""A percentage of an amount ('ten percent (10%) of the payments owed'): a share, not a rate
— unless time runs on it ('1% of the price for each day of delay')."""
_UNIT = re.compile(r"\b(?:days?|months?|years?)\b", re.IGNORECASE)
_BEFORE = re.compile(r"\s+(?:before|prior\s+to|preceding|immediately\s+preceding)\b", re.I)
_WITHIN = re.compile(r"\bwithin\b[^.;]{0,40}$", re.IGNORECASE)


def _looks_back(sentence: str, at: int) -> bool:
    """Whether the first period from `at` looks back from a date ('used within 180 days before
    the date of the invoice'): what it covers, not a time to act in."""
    unit = _UNIT.search(sentence, at)
    return bool(
        unit is not None
        and _BEFORE.match(sentence, unit.end())
        and _WITHIN.search(sentence, at, unit.start())
    )


_PAYER_NAMED = re.compile(
    r"\b(?:by|from)\s+(?:the\s+)?[A-Z]\w*\b|\bif\s+(?:the\s+)?[A-Z]\w*\s+(?:fails|does not)\b"
    r"|\bowed\s+by\b|\bdue\s+from\b|[\u4e00-\u9fff](?:方|人)(?:逾期|未按|迟延|延迟)"
)
"""A late-payment sentence that names who pays late ('not paid by the Buyer', '乙方逾期付款')."""
_PAID_BY = re.compile(r"\b(?:paid|payable|owed|owing|due)\s+(?:by|from)\s+(?:the\s+)?$", re.I)


def _paid_by(sentence: str, roles: PartyRoles) -> tuple[str, str] | None:
    """(side, word) of the party a sentence says pays ('not paid by the Borrower')."""
    for at, side, word in party_mentions(sentence, roles):
        if side in ("us", "them") and _PAID_BY.search(sentence, max(0, at - 24), at):
            return str(side), word
    return None


_OBJECT_BEFORE = re.compile(
    r"(?:\b(?:by|to|of|from|for|with|against|towards)\s+(?:the\s+)?|向|给|对)$", re.IGNORECASE
)
_CAPS = frozenset({"share_of_price", "months_of_fees"})
_OWNS_LIABILITY = re.compile(
    r"(?:的|['’]s\s+)(?:(?:total|aggregate|entire|maximum|cumulative|overall)\s+){0,2}"
    r"(?:赔偿|违约)?(?:责任|liabilit)",
    re.IGNORECASE,
)
_LIABILITY_OF = re.compile(r"\bliabilit\w*\s+of\s+(?:the\s+)?$", re.IGNORECASE)


def _liability_owner(
    sentence: str, roles: PartyRoles, start: int, end: int
) -> tuple[str, str] | None:
    """(side, word) of the one party whose liability the term at [start, end) names ("the
    Supplier's liability", 'liability of the Carrier', '乙方的赔偿责任'); None for none or
    both."""
    owners = {
        (str(side), word)
        for at, side, word in party_mentions(sentence, roles)
        if side in ("us", "them")
        and start - 40 <= at < end
        and (
            _OWNS_LIABILITY.match(sentence, at + len(word))
            or _LIABILITY_OF.search(sentence, max(0, at - 30), at)
        )
    }
    return owners.pop() if len({s for s, _ in owners}) == 1 else None


# --------------------------------------------------------------------------------------------
# A clause's terms, judged for a party or neutrally
# --------------------------------------------------------------------------------------------


def position_findings(
    text: str,
    positions: Sequence[Position],
    structure: DocumentStructure | None,
    roles: PartyRoles | None,
    language: str | None = None,
) -> list[PositionFinding]:
    """The terms of `text` (a clause of `structure`) measured against every position that has
    checks, in text order.

    `roles` is our party, resolved: nothing is judged when the contract does not name it
    (`roles.resolved` false); None is a neutral review (each one-sided term against the party
    it burdens, named in `burdens`). Our positions are worded in `language`; None: in each
    sentence's.
    """
    checked = [p for p in positions if p.checks]
    lead = _lead_ins(structure).get(text, "") if structure is not None else ""
    sentences = _read(text, lead)
    matches = _matches(checked, sentences) if checked else []
    if not matches:
        findings: list[PositionFinding] = []
    elif roles is not None:
        findings = _for_roles(structure, roles, matches, language)
    else:
        findings = _neutral(structure, matches, language)
    read_as = {read: (own, lead) for read, own, lead in sentences if lead}
    listed: set[tuple[str, str, str]] = set()
    kept = []
    leads = {}
    opening = {lead for _, _, lead in sentences if lead}
    for f in findings:  # the quote is the item's own words: the lead-in stands before them
        f.quote, leads[id(f)] = read_as.get(f.quote, (f.quote, ""))
        if not leads[id(f)]:  # the lead-in itself ('Orrin shall indemnify … from:')
            words = " ".join(LEADING_NUMBER.sub("", f.quote, count=1).split())
            leads[id(f)] = words if words in opening else ""
    findings.sort(key=lambda f: text.find(f.quote))
    for f in findings:
        lead = leads[id(f)]
        if lead:  # a list's items state one term: one finding for it, on its first item
            if (f.position_id, f.effect, lead) in listed:
                continue
            listed.add((f.position_id, f.effect, lead))
        kept.append(f)
    return kept


def _for_roles(
    structure: DocumentStructure | None,
    roles: PartyRoles,
    matches: list[Match],
    language: str | None = None,
) -> list[PositionFinding]:
    """The clause's terms judged for the party of `roles` (nothing when the contract does not
    name it)."""
    if not roles.resolved:
        return []
    payer = payer_of(structure, roles)
    # the contract's value reads every clause's amounts: only when a cap is to be measured
    price = (
        contract_value(structure)
        if structure is not None
        and any(isinstance(c, NumberCheck) and c.measure == "share_of_price" for _, c, _ in matches)
        else None
    )
    places = (
        party_places(structure, roles)
        if any(isinstance(c, PartyCheck) and c.holder_at_seat for _, c, _ in matches)
        else {}
    )
    return _judged(matches, roles, payer, price, places, language, structure)


def _neutral(
    structure: DocumentStructure | None, matches: list[Match], language: str | None = None
) -> list[PositionFinding]:
    """A neutral review: each one-sided term against whichever party it burdens, named. With
    two parties the terms are judged once: what favours one is against the other."""
    parties = (parties_of(structure) if structure is not None else [])[:4]
    words = [p.labels[0] if p.labels else p.name for p in parties]
    # a party called "you" is shown by its name or role ('Franchisee'), else as "you"
    shown = [
        w if not is_pronoun(w) else p.name if not is_pronoun(p.name) else f'"{w.lower()}"'
        for w, p in zip(words, parties, strict=True)
    ]
    found: dict[tuple[str, str], PositionFinding] = {}
    for n, word in enumerate(words):
        for f in _for_roles(structure, party_roles(structure, word), matches, language):
            burdened = shown[n] if f.effect == "against_us" else ""
            if len(words) == 2 and f.effect == "favourable":
                burdened = shown[1 - n]
            if burdened:
                update = {"burdens": burdened, "effect": "against_us"}
                found.setdefault((f.position_id, f.quote), f.model_copy(update=update))
        if len(words) == 2:
            break
    return list(found.values())
