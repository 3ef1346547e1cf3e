"""Verification of a change before it is proposed: does it leave the contract better for us?

Pure logic over the structure, the change and two judgements of the clause (its checks run from
our side on the text as it is and as the change leaves it; the graph runs them). A change passes
when:

* the risk it answers is gone or lower, no new risk appears and no term in our favour is lost
  (`judgement_problems`);
* its wording is sound (`wording_problems`): every number well formed (words and figures agree,
  no fraction cut in half), every capitalised term it brings in known to the contract, and a
  right made mutual ("Either party may …") not left pointing at one party in the same sentence.

A blank to fill ([●]) is allowed: such a change is for the lawyer to complete, never approved
unattended (see `contract_review.text.has_placeholder`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from contract_review.analysis.cache import per_structure
from contract_review.analysis.financial import financial_terms
from contract_review.models import (
    ActionType,
    ClauseNode,
    DocumentDiff,
    DocumentStructure,
    FavourableTerm,
    RiskLevel,
    RiskPoint,
)
from contract_review.parties import PartyRoles, party_actions, party_mentions
from contract_review.text import has_placeholder
from contract_review.text.numerals import english_words_to_int

__all__ = [
    "Failure",
    "Judgement",
    "Problem",
    "amend",
    "amended_text",
    "changed_node",
    "contract_text",
    "for_the_lawyer",
    "judgement_problems",
    "strike_needs_lawyer",
    "wording_needs_lawyer",
    "wording_problems",
]


class Failure(StrEnum):
    """Why a change is not proposed."""

    NOT_APPLICABLE = "not_applicable"
    """Its original text is not where it says in the clause."""
    RISK_REMAINS = "risk_remains"
    """The risk it answers is still there, as severe, once the change is made."""
    NEW_RISK = "new_risk"
    """The changed clause raises a risk (or a more severe one) the clause did not."""
    FAVOURABLE_LOST = "favourable_lost"
    """A term in our favour is gone or weakened by the change."""
    MALFORMED_NUMBER = "malformed_number"
    """A number the change leaves is not well formed (words against figures, a cut fraction)."""
    UNDEFINED_TERM = "undefined_term"
    """The change brings in a capitalised term the contract neither defines nor uses."""
    PARTY_MIXUP = "party_mixup"
    """A right made mutual while the same sentence still names one party for it."""
    FRAGMENT = "fragment"
    """A deletion that leaves part of a sentence behind."""


@dataclass(frozen=True)
class Problem:
    """One reason a change fails verification."""

    failure: Failure
    """The kind of failure."""
    detail: str
    """What was seen, in a few words (for notes and the bench)."""


@dataclass(frozen=True)
class Judgement:
    """What the clause's checks say from our side: its risks and its terms in our favour."""

    risks: Sequence[RiskPoint]
    """Risks the rules raise on the clause."""
    favourable: Sequence[FavourableTerm]
    """Terms the rules find in our favour."""


_RANK = {RiskLevel.LOW: 1, RiskLevel.MEDIUM: 2, RiskLevel.HIGH: 3}
_SERIOUS = 2
_BLANKS = frozenset({"blanks"})


def _relative(clause: ClauseNode, diff: DocumentDiff) -> int | None:
    """Where the change's original text starts in the clause text (None: not there)."""
    text, original = clause.text, diff.original_text
    if diff.start_offset is not None:
        at = diff.start_offset - clause.start_offset
        if at >= 0 and text[at : at + len(original)] == original:
            return at
    at = text.find(original)
    return at if at != -1 and text.find(original, at + 1) == -1 else None


def _span(clause: ClauseNode, diff: DocumentDiff) -> tuple[int, int, str] | None:
    """(start, end, new text) of the change in clause coordinates."""
    at = _relative(clause, diff)
    if at is None:
        return None
    if diff.action_type is ActionType.INSERT:
        end = at + len(diff.original_text)
        return end, end, diff.proposed_text
    new = "" if diff.action_type is ActionType.DELETE else diff.proposed_text
    return at, at + len(diff.original_text), new


def amended_text(clause: ClauseNode, diff: DocumentDiff) -> str | None:
    """The clause text with the change made (None when its original text is not there)."""
    span = _span(clause, diff)
    if span is None:
        return None
    s, e, new = span
    return clause.text[:s] + new + clause.text[e:]


def _shifted(node: ClauseNode, at: int, end: int, new: str) -> ClauseNode:
    """`node` (and its sub-clauses) with document text [at, end) replaced by `new`."""
    delta = len(new) - (end - at)
    children = [_shifted(c, at, end, new) for c in node.children]
    if node.start_offset >= end and node.start_offset > at:  # wholly after the change
        return node.model_copy(
            update={
                "start_offset": node.start_offset + delta,
                "end_offset": node.end_offset + delta,
                "body_offset": node.body_offset + delta,
                "children": children,
            }
        )
    stop = node.start_offset + len(node.text)
    if node.start_offset <= at and end <= stop:  # holds the change
        s, e = at - node.start_offset, end - node.start_offset
        return node.model_copy(
            update={
                "text": node.text[:s] + new + node.text[e:],
                "end_offset": node.end_offset + delta,
                "children": children,
            }
        )
    return node.model_copy(update={"children": children}) if children != node.children else node


_WHOLE_TERM_WORDS = 8
"""A deletion of this many words or more strikes a whole term, not a phrase."""


def for_the_lawyer(diff: DocumentDiff) -> bool:
    """Whether a change is proposed for a lawyer to decide and is never approved unattended
    (`--approve all`): it leaves a blank to fill ([●]), or verification marked it so
    (`strike_needs_lawyer`)."""
    return diff.for_lawyer or has_placeholder(diff.proposed_text)


def strike_needs_lawyer(diff: DocumentDiff) -> bool:
    """Whether the change strikes a whole term, which only a lawyer can weigh: what a term is
    worth depends on what the parties traded for it ('the exclusive provider' may be our
    prize, a guaranteed minimum the price of our exclusivity), which no rule reads. Even a
    term whose words give the other side a right ('the Supplier may adjust prices') is part
    of a bargain: blind readings of held-out filings found one approved strike in eight
    usable, two harmful."""
    struck = diff.action_type is ActionType.DELETE or (
        diff.action_type is ActionType.REPLACE and not diff.proposed_text.strip()
    )
    return struck and len(diff.original_text.split()) >= _WHOLE_TERM_WORDS


_FIGURE = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])")
_QUALIFIER = re.compile(
    r"reasonabl|consent|to\s+the\s+extent|agreed\s+in\s+writing|finally\s+determined|合理|同意|确认",
    re.IGNORECASE,
)
_ABSOLUTE = re.compile(
    r"\b(?:unconditional(?:ly)?|absolute(?:ly)?|unfettered|freely|solely\s+responsible"
    r"|sole\s+and\s+exclusive|without\s+(?:any\s+)?(?:limitation|restriction))\b|无条件|绝对",
    re.IGNORECASE,
)
"""A qualifier a change adds, and words left in its sentence that deny it: the sentence then
contradicts itself, and a court may let the absolute word prevail."""


def _values(text: str) -> set[float]:
    """The numbers `text` states in figures or in English words ('sixty (60)', 'day sixty')."""
    found = {float(m.group()) for m in _FIGURE.finditer(text)}
    for run in re.finditer(r"[A-Za-z]+(?:[\s-]+[A-Za-z]+)*", text):
        words = run.group().lower().split()
        for i in range(len(words)):  # the longest run of number words from each word
            for j in range(min(len(words), i + 6), i, -1):
                value = english_words_to_int(" ".join(words[i:j]))
                if value is not None:
                    found.add(float(value))
                    break
    return found


def wording_needs_lawyer(
    clause: ClauseNode, diff: DocumentDiff, roles: PartyRoles | None = None
) -> bool:
    """Whether a change that passed verification still needs a lawyer's eye before it goes
    out (never approved unattended): it changes a number the sentence states again elsewhere
    ('within sixty (60) days … if day sixty (60) is not a working day'), or a number in a
    sentence in which no party acts (`roles` given: who bears it was inferred, not read — '(b)
    a copy of the auditors' report within thirty (30) days'), or it makes mutual a right the
    other side holds (on grounds of our conduct, a mutual right would turn on one's own
    breach; in any case the rest of the clause must fit both)."""
    span = _span(clause, diff)
    if span is None:
        return False
    s, e, new = span
    text = clause.text
    sentence = _sentence_around(text, s, e)
    at = text.find(sentence)
    rest = sentence[: max(0, s - at)] + " " + sentence[max(0, e - at) :]
    old_values = _values(text[s:e]) - _values(new)
    if old_values and old_values & _values(rest):
        return True
    if old_values and roles is not None:
        acting = [a for a in party_actions(sentence, roles) if a.side in ("us", "them", "both")]
        if not acting:
            return True
    if _QUALIFIER.search(new) and _ABSOLUTE.search(rest):
        return True  # 'acting reasonably … the unconditional right', 'may freely assign … with consent'
    # a right made either party's: whether our client wants it, and whether the rest of the
    # clause still fits both, is a lawyer's call (a blind reading found 1 in 9 usable as sent)
    return bool(_MUTUAL.match(new.strip()))


def changed_node(clause: ClauseNode, diff: DocumentDiff) -> ClauseNode:
    """The smallest clause under `clause` (itself included) that holds the whole change: the
    clause a change is judged in, so the same term elsewhere in its article does not count."""
    span = _span(clause, diff)
    if span is None:
        return clause
    at, end = clause.start_offset + span[0], clause.start_offset + span[1]
    node = clause
    while True:
        inner = next(
            (
                c
                for c in node.children
                if c.start_offset <= at
                and end <= c.start_offset + len(c.text)
                and (at < c.start_offset + len(c.text) or at == end)
            ),
            None,
        )
        if inner is None:
            return node
        node = inner


def amend(
    structure: DocumentStructure, clause: ClauseNode, diff: DocumentDiff
) -> tuple[DocumentStructure, ClauseNode] | None:
    """The structure and the clause as they read once the change is made (offsets after it
    shifted); None when the change's original text is not in the clause."""
    span = _span(clause, diff)
    if span is None:
        return None
    s, e, new = span
    at, end = clause.start_offset + s, clause.start_offset + e
    clauses = [_shifted(c, at, end, new) for c in structure.clauses]
    amended = structure.model_copy(
        update={
            "clauses": clauses,
            "text_length": structure.text_length + len(new) - (e - s),
        }
    )
    amended.amended_from(structure)
    changed = amended.get_clause(clause.clause_id)
    return (amended, changed) if changed is not None else None


# --------------------------------------------------------------------------------------------
# Judgements compared
# --------------------------------------------------------------------------------------------


def _key(risk: RiskPoint) -> str:
    return risk.position_id or risk.risk_type


def _serious(risks: Iterable[RiskPoint], skip_blanks: bool) -> Counter[tuple[str, int]]:
    """Medium and high risks counted by (what they are about, level)."""
    return Counter(
        (_key(r), _RANK[r.risk_level])
        for r in risks
        if _RANK[r.risk_level] >= _SERIOUS and not (skip_blanks and _BLANKS & set(r.source_skills))
    )


def _at_least(counts: Counter[tuple[str, int]], key: str, rank: int) -> int:
    return sum(n for (k, r), n in counts.items() if k == key and r >= rank)


def _weight(counts: Counter[tuple[str, int]]) -> int:
    return sum(rank * n for (_, rank), n in counts.items())


def _moved_our_way(
    before: Sequence[RiskPoint], after: Sequence[RiskPoint], key: str, rank: int
) -> bool:
    """Whether the numbers the risks of `key` measured all moved our way or stayed, one at
    least our way: a 14-day time bar brought to 28 days is still a time bar, but a lesser one."""

    def measured(risks: Sequence[RiskPoint]) -> list[RiskPoint]:
        return [
            r
            for r in risks
            if _key(r) == key and _RANK[r.risk_level] >= rank and r.measured is not None
        ]

    then, now = measured(before), measured(after)
    if not then or len(then) != len(now) or then[0].worse is None:
        return False
    sign = 1.0 if then[0].worse == "lower" else -1.0  # larger sign * value: better for us
    old = sorted(sign * (r.measured or 0.0) for r in then)
    new = sorted(sign * (r.measured or 0.0) for r in now)
    return all(b >= a for a, b in zip(old, new, strict=True)) and new != old


def judgement_problems(
    before: Judgement, after: Judgement, risk: RiskPoint | None, diff: DocumentDiff
) -> list[Problem]:
    """What the change does to the clause's judgement: the answered `risk` must be gone or
    lower (when the rules raised it: a model's finding they cannot see is not re-judged) unless
    another risk of the clause went (a 14-day time bar brought to 28 days is still a time bar,
    but no longer a cut period); no medium or high risk may appear or rise, and no term in our
    favour may be lost."""
    problems: list[Problem] = []
    placeholder = has_placeholder(diff.proposed_text)  # the blank is the lawyer's to fill
    old, new = _serious(before.risks, placeholder), _serious(after.risks, placeholder)
    if risk is not None and _RANK[risk.risk_level] >= _SERIOUS:
        key, rank = _key(risk), _RANK[risk.risk_level]
        remains = 0 < _at_least(old, key, rank) <= _at_least(new, key, rank)
        if (
            remains
            and _weight(new) >= _weight(old)
            and not _moved_our_way(before.risks, after.risks, key, rank)
        ):
            problems.append(Problem(Failure.RISK_REMAINS, f"{risk.risk_type} still raised"))
    raised = risk is not None and any(k == _key(risk) for k, _ in old)
    answered = _RANK[risk.risk_level] if risk is not None and raised else 0
    better = _weight(new) < _weight(old)
    for key in dict.fromkeys(k for k, _ in new):
        for rank in (3, 2):
            if rank < answered and better:
                break  # a lesser term the answered risk stood over: the clause is still better
            if _at_least(new, key, rank) > _at_least(old, key, rank):
                level = "high" if rank == 3 else "medium"
                problems.append(Problem(Failure.NEW_RISK, f"{level} risk {key} raised"))
                break
    kept = Counter(t.position_id for t in after.favourable)
    for position, n in Counter(t.position_id for t in before.favourable).items():
        if kept[position] < n:
            problems.append(Problem(Failure.FAVOURABLE_LOST, f"term in our favour {position}"))
    return problems


# --------------------------------------------------------------------------------------------
# Wording
# --------------------------------------------------------------------------------------------

_FRACTION_SIDE = re.compile(r"^\s*/\s*[\dlI]|[\dlI]\s*/\s*$")
"""A number written as a fraction ('1 1/2%', OCR'd '1 l/2%'): half of it is no number."""
_BROKEN = re.compile(
    r"\d\.\d+\.\d|%\s*%|\d\s*%\s*\d|\(\s*\)"
    r"|\b(?:one|1)\s*(?:\(\s*1\s*\)\s*)?(?:calendar\s+|business\s+|working\s+)?"
    r"(?:days|weeks|months|years)\b",
    re.I,
)
"""Numbers that cannot be right: '1.5.3', '%%', '1 1/0.67%'-like runs, '()', 'one (1) months'."""
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?:[ -](?:of |the |and )?[A-Z][a-z]+)*\b")
_DETERMINER = re.compile(r"(?:The|This|That|Such|Each|Any|All|Either|Neither|No) ")
_SENTENCE_START = re.compile(r"(?:(?:^|\n)\s*(?:\d+(?:\.\d+)*\.?\s+)?|[.;:!?]\s+|\(\w{1,4}\)\s*)$")
_COMMON = frozenset(
    {
        "Either",
        "Each",
        "Neither",
        "Both",
        "Party",
        "Parties",
        "Agreement",
        "Contract",
        "Clause",
        "Section",
        "Article",
        "Schedule",
        "Annex",
        "Appendix",
        "Sub-Clause",
    }
)
"""Capitalised words any contract uses of itself."""
_DIGIT = re.compile(r"\d|[零〇一二两三四五六七八九十百千万]")
_MUTUAL = re.compile(r"\b(?:either|each|any)\s+party\b|任何一方|双方|各方|每一方", re.I)


def _mismatches(text: str) -> int:
    terms = financial_terms(text)
    return sum(
        1
        for t in (*terms.amounts, *terms.percentages, *terms.periods)
        if t.words_match_figures is False
    )


def _numbers(text: str, s: int, e: int, new: str) -> list[Problem]:
    problems: list[Problem] = []
    original = text[s:e]
    if re.search(r"\d", original) and (
        _FRACTION_SIDE.search(text[max(0, s - 3) : s]) or _FRACTION_SIDE.search(text[e : e + 3])
    ):
        problems.append(
            Problem(Failure.MALFORMED_NUMBER, f"part of a fraction changed: {original}")
        )
    amended = text[:s] + new + text[e:]
    around = amended[max(0, s - 20) : s + len(new) + 20]
    if _BROKEN.search(around) and not _BROKEN.search(text[max(0, s - 20) : e + 20]):
        problems.append(Problem(Failure.MALFORMED_NUMBER, f"broken number: {around.strip()}"))
    numeric = _DIGIT.search(new) or _DIGIT.search(original)
    if numeric and _mismatches(amended) > _mismatches(text):
        problems.append(Problem(Failure.MALFORMED_NUMBER, "words and figures disagree"))
    return problems


@per_structure()
def contract_text(structure: DocumentStructure) -> str:
    """Every clause's text, joined (the words the contract uses): read once per contract, not
    once per change verified or drafted."""
    return "\n".join(c.text for c in structure.clauses)


def _undefined(structure: DocumentStructure, new: str, roles: PartyRoles | None) -> list[Problem]:
    if not new or re.search(r"[A-Za-z]", new) is None:
        return []
    known = contract_text(structure)
    aliases = set(roles.our_aliases + roles.their_aliases) if roles else set()
    defined = {t.casefold() for t in structure.definitions}
    problems: list[Problem] = []
    for m in _CAPITALISED.finditer(new):
        term, start = m.group(), m.start()
        lead = _DETERMINER.match(term)
        if lead is not None:  # 'The Landlord' is the Landlord
            term, start = term[lead.end() :], start + lead.end()
        if (
            term in _COMMON
            or term in aliases
            or term.casefold() in defined
            or (" " not in term and _SENTENCE_START.search(new[:start]) is not None)
            or re.search(rf"\b{re.escape(term)}\b", known) is not None
        ):
            continue
        problems.append(Problem(Failure.UNDEFINED_TERM, f'"{term}" is not a term of the contract'))
    return problems


def _sentence_around(text: str, s: int, e: int) -> str:
    stops = ".;。；\n"
    a = max((text.rfind(c, 0, s) for c in stops), default=-1) + 1
    ends = [i for c in stops if (i := text.find(c, e)) != -1]
    return text[a : min(ends) if ends else len(text)]


_DETERMINED = re.compile(r"\b(?:this|that|such|said|the|each|any|its|their)\s*$", re.I)


def _mixup(amended: str, s: int, e_new: int, new: str, roles: PartyRoles | None) -> list[Problem]:
    # a right made mutual puts 'either party' where the holder was; a qualifier that merely
    # mentions both parties ('经双方书面确认的款项') makes nothing mutual
    if roles is None or not _MUTUAL.match(new.strip()):
        return []
    if _DETERMINED.search(amended[max(0, s - 8) : s]):
        # 'this OMA may be terminated' → 'this either party …': the name was no party
        return [Problem(Failure.PARTY_MIXUP, f'"{amended[max(0, s - 8) : e_new]}" names no party')]
    sentence = _sentence_around(amended, s, e_new)
    named = [w for _, side, w in party_mentions(sentence, roles) if side in ("us", "them")]
    if not named:
        return []
    return [Problem(Failure.PARTY_MIXUP, f'made mutual, yet still names "{named[0]}"')]


_OURS = (("us", ("right", "exempt")), ("them", ("obligation", "bears", "denial")))
"""What a party's words give us: a right or exemption of ours, a duty or burden of theirs."""
_SENTENCE_END = ".;:。；：!?！？"


def _struck(deleted: str, roles: PartyRoles | None) -> list[Problem]:
    """A deletion that strikes a right of ours or a duty of theirs ('the Reseller shall fund a
    minimum of $52,000,000'): the rules may have misread whose term it is, the words cannot."""
    if roles is None or len(deleted.split()) < 3:
        return []
    for action in party_actions(deleted, roles):
        for side, kinds in _OURS:
            if action.side == side and action.kind in kinds:
                whose = "our right" if side == "us" else "their duty"
                return [Problem(Failure.FAVOURABLE_LOST, f'deletes {whose} ("{action.alias}")')]
    return []


def _fragment(text: str, s: int, e: int) -> list[Problem]:
    """A deletion of words that starts or ends inside a sentence ('…, the Company, the' struck
    from a sentence that runs on): a phrase of two words or fewer is an edit, not a cut."""
    deleted = text[s:e].strip()
    if len(deleted.split()) < 3:
        return []
    before = text[:s].rstrip()
    starts = not before or before[-1] in _SENTENCE_END or before.endswith(("\n", ")"))
    marker = re.search(r"(?:^|\n)\s*(?:\(?[0-9a-zA-Z]{1,4}[.)]|[0-9.]+)\s*$", text[:s])
    starts = starts or marker is not None
    after = text[e:].lstrip(" \t")
    ends = deleted[-1] in _SENTENCE_END or not after or after[0] == "\n"
    if starts and ends:
        return []
    return [Problem(Failure.FRAGMENT, f"leaves part of a sentence: {deleted[:60]}")]


def wording_problems(
    structure: DocumentStructure,
    clause: ClauseNode,
    diff: DocumentDiff,
    roles: PartyRoles | None,
) -> list[Problem]:
    """What is wrong with the change's words in their place (an empty list: nothing)."""
    span = _span(clause, diff)
    if span is None:
        return [Problem(Failure.NOT_APPLICABLE, "its original text is not in the clause")]
    s, e, new = span
    text = clause.text
    amended = text[:s] + new + text[e:]
    deleted = text[s:e] if not new.strip() else ""
    # a new clause's heading ('Limitation of Liability') is a title, not a defined term
    words = new.split("\n", 1)[-1] if diff.new_clause else new
    heading = [
        Problem(Failure.FRAGMENT, "strikes the heading only, not the term")
        for title in (clause.title.strip(" .:"),)
        if deleted
        and title
        and title.casefold() in deleted.casefold()
        and len(deleted.split()) <= len(title.split()) + 2
    ]
    return [
        *heading,
        *_numbers(text, s, e, new),
        *_undefined(structure, words, roles),
        *(_mixup(amended, s, s + len(new), new, roles) if not diff.new_clause else []),
        *(_struck(deleted, roles) + _fragment(text, s, e) if deleted else []),
    ]
