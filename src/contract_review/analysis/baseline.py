"""Baseline comparison: how a clause departs from its baseline (standard form or position).

The baseline of a clause is, in this order (`BaselineSources`): wording given explicitly; the
clause with the same id — or, failing that, the most similar title — in the baseline document;
the domain's baseline position for the clause id or title. The clause is diffed word by word
(English per word, Chinese per character) on sentence-aligned text, and numbers with their unit
(periods, percentages, amounts) that differ are called out.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from contract_review.analysis.clauses import require_clause
from contract_review.errors import SkillError
from contract_review.models import BaselinePosition, ClauseNode, DocumentStructure
from contract_review.parties import role_actions
from contract_review.text import CJK_IDEOGRAPHS
from contract_review.text.numerals import CN_NUMERAL_CHARS, chinese_to_int

Status = Literal["unmodified", "modified", "added", "deleted"]
BaselineKind = Literal["document", "position"]
MatchedBy = Literal["id", "title", "provided", "position"]
NumberKind = Literal["period", "percentage", "amount"]

_TITLE_MATCH = 0.6
"""Least title similarity for aligning a clause with a baseline clause of another id."""
_SENTENCE_PAIR = 0.5
"""Least similarity for calling two sentences the same sentence, modified."""
_MAX_DIFF_CELLS = 4_000_000
"""Token-diff blocks larger than this (len(a) × len(b)) are reported as one replacement."""


class DiffOp(BaseModel):
    """One step of the word-level diff, baseline → contract."""

    op: Literal["equal", "insert", "delete", "replace"] = Field(description="Kind of step.")
    baseline_text: str = Field(description="Baseline text of the step ('' for an insert).")
    contract_text: str = Field(description="Contract text of the step, verbatim ('' for a delete).")
    contract_offset: int | None = Field(
        description="Offset of contract_text in the contract document text (for a delete: "
        "where the baseline text was removed); None when the clause is absent."
    )


class ChangedNumber(BaseModel):
    """A period, percentage or amount that differs between baseline and contract."""

    kind: NumberKind = Field(description="'period', 'percentage' or 'amount'.")
    baseline: str | None = Field(description="As written in the baseline, e.g. '28 days'.")
    contract: str | None = Field(description="As written in the contract, e.g. '14 days'.")
    baseline_value: float | None = Field(
        description="Baseline value: days for a period, percent, or the amount."
    )
    contract_value: float | None = Field(description="Contract value, same unit.")
    unit: str = Field(description="'days', '%', or the currency ('USD', 'CNY', '' if none).")
    change: Literal["increased", "decreased", "changed", "added", "removed"] = Field(
        description="Direction of the change from baseline to contract."
    )
    context: str = Field(
        description="The contract sentence holding the number, verbatim ('' when removed)."
    )
    baseline_context: str = Field(
        description="The baseline sentence holding the number ('' when added)."
    )
    contract_offset: int | None = Field(
        description="Offset of the contract number in the document text."
    )


class SentenceChange(BaseModel):
    """A sentence added, removed or reworded."""

    change: Literal["added", "removed", "modified"] = Field(description="What happened.")
    baseline_text: str = Field(description="The baseline sentence ('' when added).")
    contract_text: str = Field(description="The contract sentence, verbatim ('' when removed).")
    contract_offset: int | None = Field(description="Offset of the contract sentence.")
    similarity: float = Field(description="Similarity of the two sentences, 0..1.")


class BaselineComparison(BaseModel):
    """A clause compared with its baseline."""

    clause_id: str = Field(description="Contract clause compared.")
    title: str = Field(description="Title of the contract clause (or of the baseline clause).")
    status: Status = Field(
        description="'unmodified', 'modified', 'added' (no baseline counterpart) or 'deleted' "
        "(baseline clause absent or marked deleted / not used in the contract)."
    )
    baseline_kind: BaselineKind | None = Field(
        description="'document' (baseline wording: the diff is exact) or 'position' (a summary "
        "position: only numbers and key obligations are meaningful); None when added."
    )
    matched_by: MatchedBy | None = Field(
        description="How the baseline was found: same 'id', similar 'title', 'provided' "
        "wording, or the domain 'position'."
    )
    baseline_source: str = Field(description="Where the baseline comes from, in words.")
    baseline_document_id: str | None = Field(description="Baseline document id, if any.")
    baseline_clause_id: str | None = Field(description="Baseline clause (or position key).")
    baseline_title: str = Field(description="Title of the baseline clause or position.")
    baseline_text: str = Field(description="Baseline wording or position compared.")
    contract_text: str = Field(description="Contract clause text compared (after its heading).")
    similarity: float = Field(description="Word-level similarity, 0 (different) .. 1 (same).")
    diff: list[DiffOp] = Field(description="Word-level diff, baseline → contract, in order.")
    changed_numbers: list[ChangedNumber] = Field(
        description="Periods, percentages and amounts that differ."
    )
    changed_sentences: list[SentenceChange] = Field(
        description="Sentences added, removed or reworded (document baselines)."
    )
    obligations_not_found: list[str] = Field(
        description="Sentences of a baseline position giving a party an obligation or right "
        "that the clause does not carry (position baselines)."
    )
    notes: list[str] = Field(description="How to read the comparison.")


# --------------------------------------------------------------------------------------------
# Tokens, sentences, diff
# --------------------------------------------------------------------------------------------

_CJK = CJK_IDEOGRAPHS
_TOKEN = re.compile(rf"[A-Za-z0-9]+(?:[.,'’\-/][A-Za-z0-9]+)*|[{_CJK}]|[^\sA-Za-z0-9{_CJK}]")


_FOLD = {i: i - 0xFEE0 for i in range(0xFF01, 0xFF5F)}
_FOLD |= {0x3000: 0x20, 0x2018: 0x27, 0x2019: 0x27, 0x201C: 0x22, 0x201D: 0x22}
"""Full-width forms and curly quotes → ASCII, one character for one (offsets are kept)."""


@lru_cache(maxsize=16384)
def sentence_keys(sentence: str) -> tuple[str, ...]:
    """Token keys of one sentence: words (English), single characters (Chinese) and
    punctuation, case- and width-folded. Cached: parent clauses repeat their sub-clauses."""
    return tuple(map(str.lower, _TOKEN.findall(sentence.translate(_FOLD))))


def _spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the tokens of `text[start:end]`, offsets into `text`."""
    folded = text[start:end].translate(_FOLD)
    return [(start + m.start(), start + m.end()) for m in _TOKEN.finditer(folded)]


_BOUNDARY = re.compile(r"[。；;！？!?]|\.(?=\s|$)|\n")


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or line of `text`, without surrounding blanks.

    Boundaries are found first and spans cut between them: one linear scan (a single regex
    matching whole sentences lazily was the hot spot on long clauses)."""
    out: list[tuple[int, int]] = []
    start = 0

    def add(a: int, b: int) -> None:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            out.append((a, b))

    for m in _BOUNDARY.finditer(text):
        add(start, m.start() if m.group() == "\n" else m.end())
        start = m.end()
    add(start, len(text))
    return out


@dataclass
class RawOp:
    """A diff step as spans: baseline [b0, b1), contract [c0, c1)."""

    op: str
    b0: int
    b1: int
    c0: int
    c1: int


@dataclass
class Unit:
    """Sentences of the baseline and of the contract that changed together."""

    baseline: list[tuple[int, int]] = field(default_factory=list)
    contract: list[tuple[int, int]] = field(default_factory=list)
    pairs: list[tuple[int, int, float]] = field(default_factory=list)
    """(baseline index, contract index, similarity) of sentences that are one reworded."""


def pair_sentences(
    a: Sequence[Sequence[str]], b: Sequence[Sequence[str]], threshold: float = _SENTENCE_PAIR
) -> list[tuple[int, int, float]]:
    """Greedy pairs (i, j, ratio) of token-key lists of `a` and `b` with ratio ≥ threshold."""
    pairs: list[tuple[int, int, float]] = []
    if not a or not b:
        return pairs
    free = set(range(len(b)))
    matcher = SequenceMatcher(None, autojunk=False)
    for i, ka in enumerate(a):
        matcher.set_seq2(ka)
        best: tuple[float, int] | None = None
        for j in sorted(free):
            kb = b[j]
            total = len(ka) + len(kb)
            if total == 0 or 2 * min(len(ka), len(kb)) / total < threshold:
                continue
            matcher.set_seq1(kb)
            if matcher.quick_ratio() < threshold:
                continue
            r = matcher.ratio()
            if r >= threshold and (best is None or r > best[0]):
                best = (r, j)
        if best is not None:
            free.discard(best[1])
            pairs.append((i, best[1], round(best[0], 4)))
    return pairs


def _span(spans: list[tuple[int, int]], i: int, j: int, fallback: int) -> tuple[int, int]:
    if j > i:
        return spans[i][0], spans[j - 1][1]
    pos = spans[i][0] if i < len(spans) else (spans[-1][1] if spans else fallback)
    return pos, pos


def _token_ops(
    a: list[str],
    b: list[str],
    a_spans: list[tuple[int, int]],
    b_spans: list[tuple[int, int]],
    a_at: int,
    b_at: int,
) -> tuple[list[RawOp], int]:
    """Token diff of two blocks (keys and their spans); returns ops and matched tokens."""
    if not a or not b or len(a) * len(b) > _MAX_DIFF_CELLS:
        sa, sb = _span(a_spans, 0, len(a), a_at), _span(b_spans, 0, len(b), b_at)
        tag = "replace" if a and b else ("delete" if a else "insert")
        return ([RawOp(tag, *sa, *sb)] if a or b else []), 0
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    ops: list[RawOp] = []
    matched = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            matched += i2 - i1
        ops.append(RawOp(tag, *_span(a_spans, i1, i2, a_at), *_span(b_spans, j1, j2, b_at)))
    return ops, matched


def _merge_ops(ops: list[RawOp]) -> list[RawOp]:
    out: list[RawOp] = []
    for op in ops:
        if out and out[-1].op == op.op == "equal":
            out[-1].b1, out[-1].c1 = op.b1, op.c1
        else:
            out.append(op)
    return out


@dataclass
class TextDiff:
    """Word diff of two texts, with the sentence blocks that changed."""

    ops: list[RawOp]
    similarity: float
    units: list[Unit]
    b_sentences: list[tuple[int, int]]
    c_sentences: list[tuple[int, int]]
    b_keys: list[tuple[str, ...]]
    c_keys: list[tuple[str, ...]]


def diff_texts(base: str, contract: str, *, pair: bool = True) -> TextDiff:
    """Sentence-aligned word diff of `base` → `contract` (linear for mostly equal texts).

    With `pair`, the sentences of each changed block are paired with their rewording.
    """
    bs, cs = sentences(base), sentences(contract)
    bkeys = [sentence_keys(base[s:e]) for s, e in bs]
    ckeys = [sentence_keys(contract[s:e]) for s, e in cs]
    matcher = SequenceMatcher(
        None, ["\x1f".join(k) for k in bkeys], ["\x1f".join(k) for k in ckeys], autojunk=False
    )
    ops: list[RawOp] = []
    units: list[Unit] = []
    matched = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        b_at = bs[i1][0] if i1 < len(bs) else len(base)
        c_at = cs[j1][0] if j1 < len(cs) else len(contract)
        if tag == "equal":
            matched += sum(len(k) for k in bkeys[i1:i2])
            ops.append(RawOp("equal", bs[i1][0], bs[i2 - 1][1], cs[j1][0], cs[j2 - 1][1]))
            continue
        a = [k for keys in bkeys[i1:i2] for k in keys]
        b = [k for keys in ckeys[j1:j2] for k in keys]
        a_spans = [sp for s, e in bs[i1:i2] for sp in _spans(base, s, e)]
        b_spans = [sp for s, e in cs[j1:j2] for sp in _spans(contract, s, e)]
        block_ops, block_matched = _token_ops(a, b, a_spans, b_spans, b_at, c_at)
        ops += block_ops
        matched += block_matched
        pairs = pair_sentences(bkeys[i1:i2], ckeys[j1:j2]) if pair else []
        units.append(Unit(bs[i1:i2], cs[j1:j2], pairs))
    total = sum(map(len, bkeys)) + sum(map(len, ckeys))
    similarity = 1.0 if total == 0 else 2 * matched / total
    return TextDiff(_merge_ops(ops), round(similarity, 4), units, bs, cs, bkeys, ckeys)


def token_ratio(a: str, b: str) -> float:
    """Similarity of two short texts over their tokens, 0..1."""
    ka, kb = sentence_keys(a), sentence_keys(b)
    if not ka and not kb:
        return 1.0
    return SequenceMatcher(None, ka, kb, autojunk=False).ratio()


# --------------------------------------------------------------------------------------------
# Numbers with units
# --------------------------------------------------------------------------------------------

_ZH_NUM = f"[{CN_NUMERAL_CHARS}]+"


def zh_number(text: str) -> float | None:
    """'二十八' → 28, '一百二十' → 120, '5' → 5; None if not a number."""
    text = text.replace(",", "")
    try:
        return float(text)
    except ValueError:
        pass
    if not text:
        return 0.0
    value = chinese_to_int(text, extended=False, digit_string=False, bare_units=True)
    return float(value) if value is not None else None


_PERIOD_DAYS = {"hour": 1 / 24, "day": 1, "week": 7, "month": 30, "year": 365}
_ZH_PERIOD_DAYS = {"小时": 1 / 24, "天": 1, "日": 1, "日历天": 1, "工作日": 1, "周": 7}
_ZH_PERIOD_DAYS |= {"个月": 30, "月": 30, "年": 365, "个工作日": 1, "个日历天": 1, "个小时": 1 / 24}
_CURRENCY = {
    "usd": "USD",
    "us$": "USD",
    "$": "USD",
    "美元": "USD",
    "dollars": "USD",
    "eur": "EUR",
    "€": "EUR",
    "欧元": "EUR",
    "euros": "EUR",
    "gbp": "GBP",
    "£": "GBP",
    "pounds": "GBP",
    "rmb": "CNY",
    "cny": "CNY",
    "¥": "CNY",
    "￥": "CNY",
    "人民币": "CNY",
    "元": "CNY",
    "hkd": "HKD",
    "sgd": "SGD",
    "jpy": "JPY",
}
_MULTIPLIER = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "万": 1e4, "万元": 1e4}
_MULTIPLIER |= {"亿": 1e8, "亿元": 1e8, "元": 1}

_NUMBER = re.compile(rf"(?<![\d.,])\d+(?:,\d{{3}})*(?:\.\d+)?|百分之(?:{_ZH_NUM}|点)+|{_ZH_NUM}")
_EN_PERIOD_AFTER = re.compile(
    r"\)?[\s-]*(?:calendar\s+|working\s+|business\s+|clear\s+)?(hour|day|week|month|year)s?\b",
    re.IGNORECASE,
)
_ZH_PERIOD_AFTER = re.compile(
    r"\s*(个月|个工作日|个日历天|个小时|日历天|工作日|小时|天|周|年|月|日)"
    r"(内|之内|以内|后|前|以上|以下|届满)?"
)
_PERCENT_AFTER = re.compile(r"\s*[%％]|\s+per\s?cent\b", re.IGNORECASE)
_AMOUNT_AFTER = re.compile(
    r"\s*(万元|亿元|万|亿|元|美元|欧元)|\s+(million|billion|thousand|dollars|euros|pounds)\b",
    re.IGNORECASE,
)
_CURRENCY_BEFORE = re.compile(
    r"(USD|US\$|EUR|GBP|RMB|CNY|HKD|SGD|JPY|\$|€|£|¥|￥|人民币)\s*$", re.IGNORECASE
)


@dataclass(frozen=True)
class NumberMention:
    """A number with its unit, as written in a text."""

    kind: NumberKind
    text: str
    start: int
    end: int
    value: float
    unit: str


def _zh_period_ok(text: str, start: int, value: float, m: re.Match[str]) -> bool:
    unit, follow = m.group(1), m.group(2)
    before = text[max(0, start - 1) : start]
    if unit == "日":
        return before != "月" and follow is not None
    if unit == "月":
        return follow is not None and follow not in ("前", "以上", "以下")
    if unit == "年":
        return value < 100 and before != "年"
    return True


def _mention(text: str, m: re.Match[str], lo: int) -> NumberMention | None:
    """The number `m` with its unit (period, percentage, amount), or None."""
    raw, s, e = m.group(0), m.start(), m.end()
    if raw.startswith("百分之"):
        value = zh_number(raw[3:].replace("点", "."))
        return None if value is None else NumberMention("percentage", raw, s, e, value, "%")
    value = zh_number(raw)
    if value is None:
        return None
    ascii_digits = raw[0].isdigit()
    if ascii_digits and (after := _PERCENT_AFTER.match(text, e)):
        return NumberMention("percentage", text[s : after.end()], s, after.end(), value, "%")
    cur = _CURRENCY_BEFORE.search(text[max(lo, s - 8) : s]) if ascii_digits else None
    money = _AMOUNT_AFTER.match(text, e) if ascii_digits else None
    word = ((money.group(1) or money.group(2)) if money else "").casefold()
    if money is not None and cur is None and word in ("million", "billion", "thousand"):
        money, word = None, ""
    if cur is not None or money is not None:
        currency = _CURRENCY.get(cur.group(1).casefold() if cur else word, "")
        if not currency and word in ("万元", "亿元", "万", "亿"):
            currency = "CNY"
        start = s - len(cur.group(0)) if cur else s
        end = money.end() if money else e
        amount = value * _MULTIPLIER.get(word, 1)
        return NumberMention("amount", text[start:end], start, end, amount, currency)
    if ascii_digits and (after := _EN_PERIOD_AFTER.match(text, e)):
        start = s - 1 if text[s - 1 : s] == "(" else s
        days = value * _PERIOD_DAYS[after.group(1).casefold()]
        return NumberMention("period", text[start : after.end()], start, after.end(), days, "days")
    if (after := _ZH_PERIOD_AFTER.match(text, e)) and _zh_period_ok(text, s, value, after):
        end = after.end(1)
        days = value * _ZH_PERIOD_DAYS[after.group(1)]
        return NumberMention("period", text[s:end], s, end, days, "days")
    return None


def numbers_in(text: str, start: int = 0, end: int | None = None) -> list[NumberMention]:
    """Periods, percentages and amounts in `text[start:end]`, in order."""
    stop = len(text) if end is None else end
    out: list[NumberMention] = []
    for m in _NUMBER.finditer(text, start, stop):
        if out and m.start() < out[-1].end:
            continue
        mention = _mention(text, m, start)
        if mention is not None and mention.end <= stop:
            out.append(mention)
    return out


def _sentence_at(text: str, spans: list[tuple[int, int]], pos: int) -> str:
    for s, e in spans:
        if s <= pos < e:
            return text[s:e]
    return ""


def _change(a: float | None, b: float | None) -> Literal["increased", "decreased", "changed"]:
    if a is None or b is None or a == b:
        return "changed"
    return "increased" if b > a else "decreased"


def _same(a: NumberMention, b: NumberMention) -> bool:
    return a.kind == b.kind and abs(a.value - b.value) < 1e-9 and a.unit == b.unit


def _changed(
    a: NumberMention | None,
    b: NumberMention | None,
    base: str,
    contract: str,
    diff: TextDiff,
    offset: int | None,
) -> ChangedNumber:
    ref = b or a
    assert ref is not None
    if a is not None and b is not None:
        change: Literal["increased", "decreased", "changed", "added", "removed"] = (
            _change(a.value, b.value) if a.unit == b.unit else "changed"
        )
    else:
        change = "added" if a is None else "removed"
    context = _sentence_at(contract, diff.c_sentences, b.start) if b is not None else ""
    baseline_context = _sentence_at(base, diff.b_sentences, a.start) if a is not None else ""
    return ChangedNumber(
        kind=ref.kind,
        baseline=a.text if a else None,
        contract=b.text if b else None,
        baseline_value=a.value if a else None,
        contract_value=b.value if b else None,
        unit=ref.unit,
        change=change,
        context=context,
        baseline_context=baseline_context,
        contract_offset=None if b is None or offset is None else offset + b.start,
    )


def _touches(n: NumberMention, s0: int, s1: int) -> bool:
    """Whether a diff step over [s0, s1) changes the mention (an empty step: inside it)."""
    if s1 > s0:
        return n.start < s1 and n.end > s0
    return n.start < s0 < n.end


def _touching(
    nums: list[NumberMention], first: int, s0: int, s1: int, used: set[int]
) -> list[tuple[int, NumberMention]]:
    """Numbers from index `first` on that the step [s0, s1) changes (mentions are sorted)."""
    out: list[tuple[int, NumberMention]] = []
    stop = s1 if s1 > s0 else s0
    k = first
    while k < len(nums) and nums[k].start < stop:
        if k not in used and _touches(nums[k], s0, s1):
            out.append((k, nums[k]))
        k += 1
    return out


def _numbers_by_diff(
    base: str, contract: str, diff: TextDiff, offset: int | None
) -> list[ChangedNumber]:
    bnums = [n for u in diff.units for s, e in u.baseline for n in numbers_in(base, s, e)]
    cnums = [n for u in diff.units for s, e in u.contract for n in numbers_in(contract, s, e)]
    used_b: set[int] = set()
    used_c: set[int] = set()
    out: list[ChangedNumber] = []
    bi = ci = 0  # numbers before these indexes end before the current step: done with
    for op in diff.ops:
        if op.op == "equal":
            continue
        while bi < len(bnums) and bnums[bi].end <= op.b0:
            bi += 1
        while ci < len(cnums) and cnums[ci].end <= op.c0:
            ci += 1
        bm = _touching(bnums, bi, op.b0, op.b1, used_b)
        cm = _touching(cnums, ci, op.c0, op.c1, used_c)
        for i, n in bm:
            j, m = next(((j, m) for j, m in cm if m.kind == n.kind and j not in used_c), (-1, None))
            used_b.add(i)
            if m is None:
                out.append(_changed(n, None, base, contract, diff, offset))
                continue
            used_c.add(j)
            if not _same(n, m):
                out.append(_changed(n, m, base, contract, diff, offset))
        for j, m in cm:
            if j not in used_c:
                used_c.add(j)
                out.append(_changed(None, m, base, contract, diff, offset))
    return out


def _context_keys(text: str, spans: list[tuple[int, int]], pos: int) -> set[str]:
    return {k for k in sentence_keys(_sentence_at(text, spans, pos)) if not k[:1].isdigit()}


def _numbers_by_context(
    base: str, contract: str, diff: TextDiff, offset: int | None
) -> list[ChangedNumber]:
    """Pair numbers of a position with the clause's by kind and sentence context."""
    bnums, cnums = numbers_in(base), numbers_in(contract)
    cnums_left = [m for m in cnums if not any(_same(n, m) for n in bnums)]
    bnums_left = [n for n in bnums if not any(_same(n, m) for m in cnums)]
    out: list[ChangedNumber] = []
    for n in bnums_left:
        same_kind = [m for m in cnums_left if m.kind == n.kind and m.unit == n.unit]
        if not same_kind:
            continue
        nk = _context_keys(base, diff.b_sentences, n.start)

        def score(m: NumberMention, nk: set[str] = nk) -> float:
            mk = _context_keys(contract, diff.c_sentences, m.start)
            return len(nk & mk) / max(1, len(nk | mk))

        best = max(same_kind, key=score)
        only = len(same_kind) == 1 and sum(1 for x in bnums_left if x.kind == n.kind) == 1
        if score(best) >= 0.15 or only:
            cnums_left.remove(best)
            out.append(_changed(n, best, base, contract, diff, offset))
    return out


# --------------------------------------------------------------------------------------------
# Baseline lookup
# --------------------------------------------------------------------------------------------

_DELETED = re.compile(
    r"^[\W_]*(?:deleted|not\s+used|not\s+applicable|intentionally\s+(?:left\s+blank|omitted|"
    r"deleted)|reserved|omitted|(?:本条|此条|该条)?(?:已)?删除|(?:本条|此条|该条)?不适用|"
    r"(?:本条|此条)?不采用|空)[\W_]*$",
    re.IGNORECASE,
)


def is_deleted(clause: ClauseNode) -> bool:
    """Whether the clause is only a 'Deleted' / 'Not used' / '删除' / '不适用' marker."""
    body = clause.body.strip()
    if body:
        return len(body) <= 60 and bool(_DELETED.match(body))
    return bool(clause.title) and bool(_DELETED.match(clause.title.strip()))


@lru_cache(maxsize=8192)
def _title_key(title: str) -> str:
    return re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", title)).strip().casefold()


def title_similarity(a: str, b: str) -> float:
    """Similarity of two clause titles, 0..1."""
    ka, kb = _title_key(a), _title_key(b)
    if not ka or not kb:
        return 0.0
    return SequenceMatcher(None, ka, kb, autojunk=False).ratio()


_TitleIndex = tuple[DocumentStructure, dict[str, ClauseNode], list[tuple[str, ClauseNode]]]
_TITLES: dict[int, _TitleIndex] = {}
_TITLES_LOCK = threading.Lock()


def _title_index(
    baseline: DocumentStructure,
) -> tuple[dict[str, ClauseNode], list[tuple[str, ClauseNode]]]:
    """Title keys of a baseline's clauses: exact lookup and list (cached per structure)."""
    with _TITLES_LOCK:
        hit = _TITLES.get(id(baseline))
    if hit is not None and hit[0] is baseline:
        return hit[1], hit[2]
    titled = [(_title_key(n.title), n) for n in baseline.iter_clauses() if n.title]
    titled = [(k, n) for k, n in titled if k]
    exact: dict[str, ClauseNode] = {}
    for k, n in titled:
        exact.setdefault(k, n)
    with _TITLES_LOCK:
        while len(_TITLES) >= 4:
            _TITLES.pop(next(iter(_TITLES)))
        _TITLES[id(baseline)] = (baseline, exact, titled)
    return exact, titled


def find_baseline_clause(
    baseline: DocumentStructure, clause_id: str, title: str
) -> tuple[ClauseNode, MatchedBy, float | None] | None:
    """The baseline clause for a contract clause: same id, else the most similar title."""
    same = baseline.get_clause(clause_id)
    same_sim = title_similarity(same.title, title) if same and same.title and title else None
    if same is not None and (same_sim is None or same_sim >= 0.5):
        return same, "id", same_sim
    best: tuple[float, ClauseNode] | None = None
    key = _title_key(title)
    exact, titled = _title_index(baseline)
    if key in exact:
        best = (1.0, exact[key])
    elif key:
        matcher = SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(key)
        for other, node in titled:
            if 2 * min(len(key), len(other)) / (len(key) + len(other)) < _TITLE_MATCH:
                continue
            matcher.set_seq1(other)
            if matcher.quick_ratio() < _TITLE_MATCH:
                continue
            r = matcher.ratio()
            if r >= _TITLE_MATCH and (best is None or r > best[0]):
                best = (r, node)
    if best is not None and (same is None or best[0] >= 0.8):
        return best[1], "title", round(best[0], 4)
    if same is not None:
        return same, "id", same_sim
    return None


@dataclass
class Baseline:
    """The baseline a clause is compared with."""

    kind: BaselineKind
    matched_by: MatchedBy
    text: str
    source: str
    title: str = ""
    clause_id: str | None = None
    document_id: str | None = None
    title_similarity: float | None = None


class PositionSource(Protocol):
    """The domain's baseline positions (a domain plugin)."""

    def baseline(self, key: str, subtype: str | None = None) -> BaselinePosition | None:
        """The position for a clause id or topic."""
        ...

    def baseline_for_clause(
        self, structure: DocumentStructure, clause_id: str, subtype: str | None = None
    ) -> BaselinePosition | None:
        """The position for one clause of a document, numbering differences resolved."""
        ...


@dataclass(frozen=True, eq=False)
class BaselineSources:
    """Where the baseline of a clause may come from, tried in this order."""

    text: str | None = None
    """Baseline wording given explicitly."""
    structure: DocumentStructure | None = None
    """The baseline document (role BASELINE)."""
    positions: PositionSource | None = None
    """The domain's baseline positions."""
    domain_id: str | None = None
    """The domain, named in the source of a position."""
    subtype: str | None = None
    """The contract subtype, for the positions (e.g. 'silver_book')."""


def resolve_baseline(
    structure: DocumentStructure | None,
    clause_id: str,
    clause: ClauseNode | None,
    sources: BaselineSources,
) -> Baseline | None:
    """The baseline of the clause by the documented order of sources, or None."""
    title = clause.title if clause else ""
    if sources.text and sources.text.strip():
        return Baseline("document", "provided", sources.text, "baseline_text argument")
    if sources.structure is not None:
        found = find_baseline_clause(sources.structure, clause_id, title)
        if found is not None:
            node, how, sim = found
            doc = sources.structure.document_id
            return Baseline(
                "document",
                how,
                node.body,
                f"baseline document '{doc}', clause {node.clause_id}",
                node.title,
                node.clause_id,
                doc,
                sim,
            )
    positions, subtype = sources.positions, sources.subtype
    if positions is None:
        by_clause = by_title = None
    else:
        by_clause = (
            positions.baseline_for_clause(structure, clause_id, subtype)
            if structure is not None
            else positions.baseline(clause_id, subtype)
        )
        by_title = positions.baseline(title, subtype) if title else None
    for position in (by_clause, by_title):
        if position is not None:
            source = f"{sources.domain_id} baseline position '{position.key}'"
            if position.source:
                source += f" ({position.source})"
            return Baseline(
                "position", "position", position.text, source, position.title, position.key
            )
    return None


# --------------------------------------------------------------------------------------------
# The comparison
# --------------------------------------------------------------------------------------------


@dataclass
class Comparison:
    """The comparison with what a rating needs besides the output: texts, sentences, units."""

    output: BaselineComparison
    baseline_text: str
    contract_text: str
    contract_offset: int | None
    """Document offset of contract_text[0]; None when the clause is absent."""
    diff: TextDiff
    units: list[Unit]


def _sentence_changes(
    base: str, contract: str, diff: TextDiff, offset: int | None
) -> list[SentenceChange]:
    out: list[SentenceChange] = []
    for unit in diff.units:
        by_c = {j: (i, r) for i, j, r in unit.pairs}
        paired_b = {i for i, _, _ in unit.pairs}
        for i, (s, e) in enumerate(unit.baseline):
            if i not in paired_b:
                out.append(
                    SentenceChange(
                        change="removed",
                        baseline_text=base[s:e],
                        contract_text="",
                        contract_offset=None,
                        similarity=0.0,
                    )
                )
        for j, (s, e) in enumerate(unit.contract):
            at = None if offset is None else offset + s
            i, ratio = by_c.get(j, (-1, 0.0))
            out.append(
                SentenceChange(
                    change="modified" if i >= 0 else "added",
                    baseline_text=base[unit.baseline[i][0] : unit.baseline[i][1]] if i >= 0 else "",
                    contract_text=contract[s:e],
                    contract_offset=at,
                    similarity=ratio,
                )
            )
    return out


_LETTER = re.compile(r"[^\W\d_]")
_CJK_CHAR = re.compile(f"[{_CJK}]")


def _is_cjk(text: str) -> bool:
    """Whether `text` is mostly Chinese (by its first 400 characters)."""
    head = text[:400]
    letters = len(_LETTER.findall(head))
    return letters > 0 and len(_CJK_CHAR.findall(head)) / letters > 0.3


def _obligations_not_found(base: str, contract: str, diff: TextDiff) -> list[str]:
    """Baseline sentences giving a party a duty or right that no contract sentence matches."""
    cross_language = _is_cjk(base) != _is_cjk(contract)

    def content(keys: Sequence[str]) -> set[str]:
        return {k for k in keys if len(k) > 1 or not k.isascii()}

    contract_acts = [
        ({(a.role, a.kind) for a in role_actions(contract[s:e])}, content(keys))
        for (s, e), keys in zip(diff.c_sentences, diff.c_keys, strict=True)
    ]
    missing: list[str] = []
    for (s, e), keys in zip(diff.b_sentences, diff.b_keys, strict=True):
        text = base[s:e]
        acts = {(a.role, a.kind) for a in role_actions(text)}
        if not acts:
            continue
        words = content(keys)
        found = any(
            acts & c_acts
            and (cross_language or len(words & c_words) / max(1, len(words | c_words)) >= 0.2)
            for c_acts, c_words in contract_acts
        )
        if not found:
            missing.append(text)
    return missing


def compare(
    structure: DocumentStructure | None, clause_id: str, sources: BaselineSources
) -> Comparison:
    """Compare clause `clause_id` of `structure` with its baseline from `sources` (raises
    SkillError when the clause is unknown or there is no baseline)."""
    clause = structure.get_clause(clause_id) if structure is not None else None
    baseline = resolve_baseline(structure, clause_id, clause, sources)
    if clause is None and (baseline is None or baseline.matched_by not in ("id", "position")):
        require_clause(structure, clause_id)  # raises: unknown clause
    if baseline is None:
        if sources.structure is None:
            raise SkillError(
                f"no baseline for clause {clause_id}: load a baseline document or choose a "
                "domain with baseline positions"
            )
        assert clause is not None
        return _added(clause_id, clause, sources.structure)
    deleted = clause is None or is_deleted(clause)
    contract = "" if clause is None or deleted else clause.body
    offset = None if clause is None else clause.body_offset
    base = baseline.text
    diff = diff_texts(base, contract, pair=baseline.kind == "document")
    notes: list[str] = []
    obligations: list[str] = []
    if baseline.kind == "position":
        notes.append(
            "The baseline is a position summarised in our own words, not contract wording: the "
            "word diff is indicative only; compare the numbers and key obligations."
        )
        numbers = [] if deleted else _numbers_by_context(base, contract, diff, offset)
        obligations = [] if deleted else _obligations_not_found(base, contract, diff)
        changes: list[SentenceChange] = []
        status: Status = "modified" if numbers or obligations else "unmodified"
        units = [Unit(diff.b_sentences, diff.c_sentences)] if status == "modified" else []
    else:
        numbers = [] if deleted else _numbers_by_diff(base, contract, diff, offset)
        changes = [] if deleted else _sentence_changes(base, contract, diff, offset)
        status = "unmodified" if diff.similarity >= 1.0 else "modified"
        units = diff.units
    if deleted:
        status = "deleted"
        units = [Unit(diff.b_sentences, [])]
        notes.append(
            "The clause is not in the contract."
            if clause is None
            else f"The contract marks the clause as deleted: {clause.text.strip()[:80]!r}."
        )
    if baseline.kind == "document" and contract and _is_cjk(base) != _is_cjk(contract):
        notes.append(
            "Baseline and contract are in different languages: the word diff and similarity "
            "are not meaningful."
        )
    if baseline.matched_by == "title":
        notes.append(
            f"Aligned by title with baseline clause {baseline.clause_id} "
            f"(title similarity {baseline.title_similarity})."
        )
    elif clause and baseline.title and clause.title and (baseline.title_similarity or 1) < 0.5:
        notes.append(f"Titles differ: baseline {baseline.title!r}, contract {clause.title!r}.")
    output = BaselineComparison(
        clause_id=clause_id,
        title=(clause.title if clause else "") or baseline.title,
        status=status,
        baseline_kind=baseline.kind,
        matched_by=baseline.matched_by,
        baseline_source=baseline.source,
        baseline_document_id=baseline.document_id,
        baseline_clause_id=baseline.clause_id,
        baseline_title=baseline.title,
        baseline_text=base,
        contract_text=contract,
        similarity=0.0 if deleted else diff.similarity,
        diff=[_op_out(op, base, contract, offset) for op in diff.ops],
        changed_numbers=numbers,
        changed_sentences=changes,
        obligations_not_found=obligations,
        notes=notes,
    )
    return Comparison(output, base, contract, None if clause is None else offset, diff, units)


def _added(clause_id: str, clause: ClauseNode, baseline: DocumentStructure) -> Comparison:
    contract = clause.body
    diff = diff_texts("", contract)
    doc = baseline.document_id
    output = BaselineComparison(
        clause_id=clause_id,
        title=clause.title,
        status="added",
        baseline_kind=None,
        matched_by=None,
        baseline_source=f"no counterpart in baseline document '{doc}'",
        baseline_document_id=doc,
        baseline_clause_id=None,
        baseline_title="",
        baseline_text="",
        contract_text=contract,
        similarity=0.0,
        diff=[_op_out(op, "", contract, clause.body_offset) for op in diff.ops],
        changed_numbers=[],
        changed_sentences=[],
        obligations_not_found=[],
        notes=["The clause has no counterpart (by id or title) in the baseline document."],
    )
    return Comparison(output, "", contract, clause.body_offset, diff, [Unit([], diff.c_sentences)])


def _op_out(op: RawOp, base: str, contract: str, offset: int | None) -> DiffOp:
    return DiffOp(
        op=op.op,
        baseline_text=base[op.b0 : op.b1],
        contract_text=contract[op.c0 : op.c1],
        contract_offset=None if offset is None else offset + op.c0,
    )


_RECENT: dict[tuple[Any, ...], tuple[tuple[object, ...], Comparison]] = {}
_RECENT_SIZE = 8
_RECENT_LOCK = threading.Lock()


def compare_cached(
    structure: DocumentStructure | None, clause_id: str, sources: BaselineSources
) -> Comparison:
    """`compare`, reusing the same comparison made just before (a review typically runs
    compare_with_baseline and then assess_deviation on one clause). Keyed by the identity of
    the structures and of the positions' source; treat the result as read-only."""
    objects = (structure, sources.structure, sources.positions)
    key: tuple[Any, ...] = (clause_id, sources.text, sources.domain_id, sources.subtype)
    key += tuple(map(id, objects))
    with _RECENT_LOCK:
        hit = _RECENT.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], objects, strict=True)):
        return hit[1]
    result = compare(structure, clause_id, sources)
    with _RECENT_LOCK:
        while len(_RECENT) >= _RECENT_SIZE:
            _RECENT.pop(next(iter(_RECENT)))
        _RECENT[key] = (objects, result)
    return result
