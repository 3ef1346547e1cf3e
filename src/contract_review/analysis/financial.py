"""Financial terms in context: the amounts, percentages and periods of a text, classified.

Deterministic: the text is scanned once per token kind (figures, English number words,
Chinese numerals) on a lower-cased copy of the same length, so every offset found indexes the
original text and every quote is a verbatim slice of it. Each term is read in its sentence:
what it is about (cap, payment period, interest, retention, damages...), whether it runs per
period, what a percentage is of, and whom a one-sided flag burdens (from our side, given the
resolved `PartyRoles`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from pydantic import BaseModel, Field

from contract_review.models import ClauseNode, DocumentStructure
from contract_review.parties import PartyRoles, obligor_of, party_mentions, payer_of
from contract_review.text import CJK_IDEOGRAPHS, HAN, SEGMENT_END
from contract_review.text.language import Say
from contract_review.text.numerals import (
    ENGLISH_NUMBER_WORDS,
    ENGLISH_SCALES,
    chinese_to_decimal,
    chinese_to_int,
    english_words_to_int,
)

__all__ = [
    "AmountTerm",
    "CalendarOrWorking",
    "Category",
    "FinancialFlag",
    "FinancialTerms",
    "FlagCode",
    "FoundTerm",
    "PercentageTerm",
    "PeriodTerm",
    "PeriodUnit",
    "RatePeriod",
    "WrittenAs",
    "analyse",
    "financial_terms",
    "title_hits",
]

Category = Literal[
    "cap",
    "payment_period",
    "interest",
    "late_payment",
    "retention",
    "advance_payment",
    "liquidated_damages",
    "delay_damages",
    "guarantee_security",
    "price",
    "other",
]
WrittenAs = Literal["figures", "words", "words_and_figures"]
RatePeriod = Literal["day", "week", "month", "year"]
PeriodUnit = Literal["hour", "day", "week", "month", "year"]
CalendarOrWorking = Literal["calendar", "working", "unspecified"]
_CN_TEXT = HAN
FlagCode = Literal[
    "words_figures_mismatch",
    "uncapped_damages",
    "retention_above_5_percent",
    "retention_above_cn_3_percent",
    "no_late_payment_interest",
]


# --------------------------------------------------------------------------------------------
# Terms and flags
# --------------------------------------------------------------------------------------------


class _Term(BaseModel):
    """Fields shared by every extracted term."""

    quote: str = Field(description="The term exactly as written (verbatim slice of the text).")
    start: int = Field(ge=0, description="Offset of the quote in the analysed text.")
    end: int = Field(ge=0, description="Offset just past the quote: text[start:end] == quote.")
    category: Category = Field(description="What the term is about, judged from its sentence.")
    category_cue: str | None = Field(
        None,
        description="The words (verbatim, from the sentence or the clause heading) that decided "
        "the category; None for 'other'.",
    )
    written_as: WrittenAs = Field(
        description="'figures', 'words' (English words or Chinese numerals) or "
        "'words_and_figures' (one form followed by the other in parentheses)."
    )
    words_value: float | None = Field(None, description="Value of the form written in words.")
    figures_value: float | None = Field(None, description="Value of the form written in figures.")
    words_match_figures: bool | None = Field(
        None, description="For words_and_figures: whether both forms say the same thing."
    )


class AmountTerm(_Term):
    """A sum of money."""

    value: float = Field(
        description="Normalised amount (e.g. 12000000 for 壹仟贰佰万元); when words and figures "
        "are both given, the value in words (which usually prevails)."
    )
    currency: str = Field(description="ISO 4217 code: USD, EUR, GBP, CNY, HKD, JPY...")
    rate_period: RatePeriod | None = Field(
        None, description="Set when the amount accrues per period (e.g. 'USD 5,000 per day')."
    )
    cap_applies_to: Category | None = Field(
        None, description="For category 'cap': what the cap limits, if the sentence says."
    )


class PercentageTerm(_Term):
    """A percentage or rate."""

    value: float = Field(description="In percent: 10% -> 10.0, 万分之一 -> 0.01.")
    of: str | None = Field(
        None,
        description="What it is a percentage of, verbatim ('the Accepted Contract Amount', "
        "'合同价款'); None if not stated next to it.",
    )
    rate_period: RatePeriod | None = Field(
        None, description="Set for a rate per period: '0.2% per day' -> 'day'."
    )
    cap_applies_to: Category | None = Field(
        None, description="For category 'cap': what the cap limits, if the sentence says."
    )


class PeriodTerm(_Term):
    """A period of time."""

    value: float = Field(description="Number of units: 'twenty-eight (28) days' -> 28.")
    unit: PeriodUnit = Field(description="hour, day, week, month or year.")
    calendar_or_working: CalendarOrWorking | None = Field(
        None,
        description="For days: 'calendar' (calendar/clear/日历天/自然日), 'working' "
        "(business/working/工作日) or 'unspecified'; None for other units.",
    )


class FinancialFlag(BaseModel):
    """A factual observation a lawyer will want to check."""

    code: FlagCode = Field(description="Kind of flag.")
    message: str = Field(description="What was found, in one sentence.")
    quote: str = Field(description="The text the flag is about (verbatim).")
    start: int = Field(ge=0, description="Offset of the quote in the analysed text.")
    end: int = Field(ge=0, description="Offset just past the quote.")
    burdens: Literal["us", "them", "both", ""] = Field(
        "",
        description="Whom the term burdens, from our side ('' when unknown or no party is "
        "acted for): uncapped damages the other side pays, or retention withheld from the "
        "other side, are no risk for us.",
    )


class FinancialTerms(BaseModel):
    """The financial terms of a text and its flags."""

    amounts: list[AmountTerm] = Field(description="Sums of money, in text order.")
    percentages: list[PercentageTerm] = Field(description="Percentages, in text order.")
    periods: list[PeriodTerm] = Field(description="Periods of time, in text order.")
    by_category: dict[str, list[str]] = Field(
        description="Terms per category, as references like 'amounts[0]', 'percentages[1]'."
    )
    flags: list[FinancialFlag] = Field(description="Factual flags (mismatches, no cap...).")


# --------------------------------------------------------------------------------------------
# Patterns (all applied to the lower-cased, width-normalised copy of the text)
# --------------------------------------------------------------------------------------------

_WIDE = re.compile("[０-９％＄￥\u00a0\u3000．／]")
_WIDE_MAP = {chr(0xFF10 + i): str(i) for i in range(10)} | {
    "％": "%",
    "＄": "$",
    "￥": "¥",
    "\u00a0": " ",
    "\u3000": " ",
    "．": ".",
    "／": "/",
}

_FIG = re.compile(r"[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?")
_CN_CHARS = "零〇一二两貳三叁參四肆五伍六陆陸七柒八捌九玖十拾百佰千仟万萬亿億壹贰"
_CN_NUM = re.compile(f"[{_CN_CHARS}]+(?:点[零〇一二三四五六七八九]+)?")
_CN_FRACTION = {"百分之": Decimal(1), "千分之": Decimal("0.1"), "万分之": Decimal("0.01")}

_CUR_PRE = re.compile(
    r"(?:(?<![a-z])(?P<code>usd|eur|gbp|cny|rmb|hkd|jpy|chf|aud|cad|sgd|nzd)"
    r"|(?P<sym>u\.[ ]?s\.[ ]?\$|us\$|hk\$|s\$|a\$|au\$|c\$|ca\$|nz\$|\$|€|£|¥)"
    r"|(?P<zh>人民币|美元|欧元|英镑|港币|港元|日元))[ ]?(?:¥[ ]?)?$"
)
_CUR_PRE_LAST = frozenset("$€£¥dryfpb币元镑")
_EN_SCALE = re.compile(r"[ \t]?(?P<s>million|billion|thousand|mn|bn|m|k)(?![a-z])")
_CN_SCALE = re.compile(r"[ ]?(?P<s>[千百]?[万亿]|千)")
_SCALE_VALUES = {
    "million": 10**6,
    "m": 10**6,
    "mn": 10**6,
    "billion": 10**9,
    "bn": 10**9,
    "thousand": 10**3,
    "k": 10**3,
    "千": 10**3,
    "万": 10**4,
    "十万": 10**5,
    "百万": 10**6,
    "千万": 10**7,
    "亿": 10**8,
    "百亿": 10**10,
    "千亿": 10**11,
}
_PCT = re.compile(r"[ \t]?(?:%|per[ \t]?cent(?:um)?(?![a-z])|percent(?![a-z]))")
_CUR_SUF_EN = re.compile(
    r"[ \t]?(?:(?P<q>united[ \t]+states|u\.[ ]?s\.|us|american|hong[ \t]+kong|singapore|australian"
    r"|canadian|new[ \t]+zealand)[ \t]+)?(?P<w>dollars?|euros?|pounds?[ \t]+sterling|pounds?"
    r"|sterling|yuan|renminbi|usd|eur|gbp|rmb|cny|hkd|jpy|chf|aud|cad|sgd)(?![a-z])"
)
_CN_DIGIT_CHARS = "零一二三四五六七八九壹贰叁肆伍陆柒捌玖两"
_CUR_SUF_ZH = re.compile(
    r"[ ]?(?P<c>美元|欧元|英镑|港元|港币|日元|元|圆)"
    rf"(?:零?(?P<j>[{_CN_DIGIT_CHARS}])角)?(?:零?(?P<f>[{_CN_DIGIT_CHARS}])分)?(?:整|正)?"
)
_PERIOD_EN = re.compile(
    r"(?:[ \t]{0,3}|-)(?:(?P<q>calendar|business|working|banking|clear|consecutive)[ \t]+)?"
    r"(?P<u>day|week|month|year|hour)s?(?![a-z])"
)
_PERIOD_ZH = re.compile(
    r"[ ]?(?P<ge>个)?(?P<q>银行工作|工作|营业|日历|自然)?(?P<u>小时|星期|日|天|周|月|年)"
)
_DATE_AFTER_YEAR = re.compile(rf"[0-9{_CN_CHARS}]{{1,3}}月|度")
_OPEN = re.compile(
    r"[ \t]*[(（][ \t]*(?:(?:大写|小写|in words|in figures|金额)[ \t]*[:：]?[ \t]*)?"
)
_CLOSE = re.compile(r"[ \t]*[)）]")
_RANGE = re.compile(r"[ \t]*[-–~][ \t]*[0-9]")
_PERIOD_LEAD = re.compile(r"(?i:within|later than|in|after|before|of|by|net|until|to)[ \t]+$")

_ZH_CURRENCY = {
    "美元": "USD",
    "欧元": "EUR",
    "英镑": "GBP",
    "港元": "HKD",
    "港币": "HKD",
    "日元": "JPY",
    "元": "CNY",
    "圆": "CNY",
    "人民币": "CNY",
}
_SYM_CURRENCY = {
    "us$": "USD",
    "hk$": "HKD",
    "s$": "SGD",
    "a$": "AUD",
    "au$": "AUD",
    "c$": "CAD",
    "ca$": "CAD",
    "nz$": "NZD",
    "€": "EUR",
    "£": "GBP",
    "$": "$",  # resolved from context
    "¥": "¥",  # resolved from context
}
_EN_QUALIFIER = {
    "united states": "USD",
    "u.s.": "USD",
    "us": "USD",
    "american": "USD",
    "hong kong": "HKD",
    "singapore": "SGD",
    "australian": "AUD",
    "canadian": "CAD",
    "new zealand": "NZD",
}
_DOLLAR_CONTEXT = [
    ("HKD", re.compile(r"hong kong dollar|\bhk\$|\bhkd\b")),
    ("SGD", re.compile(r"singapore dollar|(?<![a-z])s\$|\bsgd\b")),
    ("AUD", re.compile(r"australian dollar|\bau?\$|\baud\b")),
    ("CAD", re.compile(r"canadian dollar|\bca?\$|\bcad\b")),
    ("NZD", re.compile(r"new zealand dollar|\bnz\$|\bnzd\b")),
]
_YEN_CONTEXT = re.compile(r"日元|jpy|\byen\b|円")

_SENTENCE_END = SEGMENT_END
_SENTENCE_REACH = 400
_ABBREVIATIONS = frozenset(
    {"no", "co", "inc", "ltd", "corp", "art", "cl", "sec", "para", "e.g", "i.e"}
)

_RATE_AFTER = re.compile(
    r"\b(?:per|for each|for every|in respect of each|in respect of every)[ \t]+"
    r"(?:(?:calendar|working|business)[ \t]+)?(?P<a>day|week|month|annum|year)\b"
    r"|\b(?:each|every)[ \t]+(?:calendar[ \t]+)?(?P<b>day|week|month)[ \t]+(?:of|that|or part)\b"
    r"|\bper diem\b(?P<c>)|\b(?P<d>daily|weekly|monthly|annually|yearly)\b"
)
_RATE_SLASH = re.compile(r"[ \t]*/[ \t]*(?:每)?(?P<u>day|week|month|year|日|天|周|月|年)")
_RATE_BEFORE_EN = re.compile(
    r"\b(?P<u>per annum|annual|annually|yearly|daily|per day|monthly|per month|weekly)[ \t]+"
    r"(?:(?:interest|rate|of|at|a|the|simple|compound)[ \t]+){0,4}$"
)
_RATE_BEFORE_ZH = re.compile(
    r"每(?:逾期|延误|延期|迟延|延迟|超期|拖延)?一?个?(?P<a>日|天|周|星期|月|年)"
    r"|(?P<b>日|月|年)(?:利率|息|费率)|按(?P<c>日|月|年)"
)
_PER_UNIT_BEFORE_ZH = re.compile(r"每(?:逾期|延误|延期|迟延|延迟|超期|拖延)?$")
_RATE_UNITS = {
    "day": "day",
    "diem": "day",
    "per diem": "day",
    "daily": "day",
    "per day": "day",
    "日": "day",
    "天": "day",
    "week": "week",
    "weekly": "week",
    "周": "week",
    "星期": "week",
    "month": "month",
    "monthly": "month",
    "per month": "month",
    "月": "month",
    "annum": "year",
    "per annum": "year",
    "year": "year",
    "annual": "year",
    "annually": "year",
    "yearly": "year",
    "年": "year",
}

_OF_STOP = (
    "for|to|per|until|within|by|that|which|as|on|in|if|when|after|before|shall|will|is|are|be"
    "|from|at|plus|above|below|payable|due|and|or|where|whichever|subject|provided|with|being"
    "|was|were|has|have|may|must|would|should|less|minus|than|then|thereof|so|but"
)
_OF_WORD = rf"(?!(?:{_OF_STOP})(?![\w'’-]))[\w'’-]+"
_OF_EN = re.compile(rf"[ \t]+of[ \t]+(?P<of>{_OF_WORD}(?:[ \t]+{_OF_WORD}){{0,9}})")
_OF_ZH = re.compile(
    rf"(?P<b>[{CJK_IDEOGRAPHS}]{{1,16}})(?:的(?:每[日天月年])?|每[日天月年])$"
    rf"|(?P<c>[{CJK_IDEOGRAPHS}]{{0,14}}(?:价款|金额|总价|合同价|总额|价格|费用|款项))$"
)
_RESTATED = re.compile(
    r"(?:[^。；;\n]{0,12}?[，,])?[ \t]*(?:即|亦即|也即|也就是|i\.e\.,?|that is,?|namely|being"
    r"|equal to|amounting to)[ \t:：]*$"
)
_OF_ZH_STOPS = (
    "按照", "按", "以", "为", "于", "至", "达到", "达", "超过", "预留", "扣回", "扣除", "扣留",
    "支付", "即", "向", "占", "相当于", "等于", "计取", "计算", "的", "在", "从", "由", "将",
    "及", "和", "或", "并",
)  # fmt: skip

_CAP_BEFORE_EN = re.compile(
    r"(?:not[ \t]+(?:to[ \t]+)?exceed(?:ing)?|in[ \t]+no[ \t]+event[ \t]+exceed|no[ \t]+more[ \t]+than"
    r"|not[ \t]+more[ \t]+than|up[ \t]+to[ \t]+(?:a|an|the)[ \t]+(?:maximum|aggregate|total)"
    r"|maximum|capped[ \t]+at|cap[ \t]+of|ceiling[ \t]+of|limited[ \t]+to|limit[ \t]+of"
    r"|at[ \t]+most)(?:[ \t]+[a-z'’]+){0,3}[ \t]*$"
)
_NOT_A_CAP = re.compile(r"\bat least\b|\bminimum\b|\bnot less than\b|至少|不低于|不少于")
_CAP_BEFORE_ZH = re.compile(
    r"(?:最高|上限|不超过|不得超过|不高于|不应超过|封顶|最多)[^，。；,;：:\n]{0,6}$"
)
_CAP_AFTER = re.compile(
    r"[ \t]*(?:as[ \t]+a[ \t]+maximum|at[ \t]+(?:the[ \t]+)?most|in[ \t]+the[ \t]+aggregate[ \t]+at[ \t]+most)"
    r"|[^，。；,;\n]{0,4}?(?:为上限|为限|封顶)"
)
_NO_CAP = re.compile(
    r"not[ \t]+be[ \t]+subject[ \t]+to[ \t]+any[ \t]+(?:maximum|cap|limit)\w*"
    r"|without[ \t]+(?:any[ \t]+)?(?:limit|cap|maximum)\b|no[ \t]+(?:maximum|cap)\b|\bunlimited\b"
    r"|\buncapped\b|不设上限|无上限|不设封顶|不封顶"
)
_LATE_PAYMENT = re.compile(
    r"\blate[ \t]+payment|\bpaid[ \t]+late\b|\boverdue\b|\bnot[ \t]+paid[ \t]+(?:when|by)\b"
    r"|\bunpaid\b|逾期(?:付款|支付|缴纳|还款|归还|偿还)|(?:未按期|未按时|迟延)(?:足额)?(?:付款|支付|还款|归还|偿还)"
)
"""Damages for paying late run until payment, like interest: no cap is expected."""
_NO_INTEREST = re.compile(
    r"\bno[ \t]+interest\b|\bwithout[ \t]+interest\b|\binterest[- ]free\b"
    r"|not[ \t]+(?:be[ \t]+)?(?:liable|obliged|required)[ \t]+to[ \t]+pay[ \t]+(?:any[ \t]+)?interest"
    r"|不承担[^。；\n]{0,12}利息|不计[付]?利息|不计息|不支付[^。；\n]{0,8}利息"
)
_LATE_CUE = re.compile(r"\blate\b|after[ \t]+the[ \t]+due[ \t]+date|overdue|delay|逾期|迟延|延迟")


_KEYWORD_LIST: dict[str, str] = {
    "delay_damages": "delay damages|liquidated damages for delay|damages for delay"
    "|delay liquidated damages|delay penalty|delay penalties|late completion"
    "|误期赔偿费|误期赔偿|误期损害赔偿|逾期竣工违约金|延期竣工违约金|工期延误违约金"
    "|逾期交付违约金|迟延交付违约金|延误违约金",
    "late_payment": "late payment|late payments|overdue|paid late|payment made after the due date"
    "|payments made after the due date|delayed payment|delayed payments|delay in payment"
    "|delay in payments|default interest|past due|late fee|late fees|late charge|late charges"
    "|late payment charge|逾期付款|逾期支付|迟延付款|迟延支付|延迟付款|延迟支付"
    "|延期付款|延期支付|拖欠|滞纳金",
    "retention": "retention|retention money|retention monies|retention amount|retain|retained"
    "|retains|retaining|质量保证金|质保金|保留金|质量保修金|保修金",
    "guarantee_security": "advance payment guarantee|advance payment bond"
    "|advance payment security|performance security|performance bond|performance guarantee"
    "|bank guarantee|bank guarantees|letter of credit|letters of credit|security"
    "|bond|bonds|guarantee|guarantees|deposit|预付款保函|预付款担保|履约保函|履约担保"
    "|履约保证金|投标保证金|保函|担保|保证金|定金|押金",
    "advance_payment": "advance payment|advance payments|mobilisation advance"
    "|mobilization advance|mobilisation payment|mobilization payment|down payment"
    "|down payments|downpayment|prepayment|prepayments|pre-payment|advance|advances"
    "|工程预付款|预付款|预付|备料款",
    "liquidated_damages": "liquidated damages|penalty|penalties|违约金|罚款|罚金|赔偿金",
    "interest": "interest|interest rate|利息|利率|计息|资金占用费",
    "price": "contract price|accepted contract amount|contract sum|contract amount|lump sum"
    "|purchase price|total price|price|prices|consideration|fee|fees|royalty|royalties"
    "|签约合同价|合同价款|合同总价|合同价|合同金额|总价|价款|中标价",
    "cue_delay": "day of delay|days of delay|fail to complete|fails to complete"
    "|failure to complete|delay in completion|late delivery|delay in delivery|逾期竣工"
    "|逾期完工|工期延误|延误工期|延期竣工|未能在合同工期内竣工|未按期竣工|逾期交付|延迟交付"
    "|迟延交付",
    "cue_pay": "pay|pays|paying|paid|payable|payment|payments|remit|remits|remitted|invoice"
    "|invoices|invoiced|付款期限|支付期限|付款周期|账期|支付|付款|付清|拨付|结清|给付|汇付",
}
"""Keywords per category ('cue_*' are hints, not categories). Longest match wins."""
_KEYWORD_CATEGORY = {w: cat for cat, words in _KEYWORD_LIST.items() for w in words.split("|")}
_WEAK_KEYWORDS = frozenset(
    {
        "retain",
        "retained",
        "retains",
        "retaining",
        "advance",
        "advances",
        "security",
        "deposit",
        "interest",
    }
)
"""Keywords with other meanings too ('retain records'): they count only next to the term."""
_WEAK_REACH = 40
_NOT_INTEREST = frozenset(
    {"voting", "equity", "ownership", "controlling", "beneficial", "financial"}
)


def _trie_pattern(words: list[str], *, word_start: bool) -> str:
    """A regex matching any of `words`, longest first, shaped as a trie (one branch per first
    character, so the regex engine rejects most positions with one comparison)."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return "|".join(
        re.escape(ch) + (f"(?<![a-z]{re.escape(ch)})" if word_start else "") + build(child)
        for ch, child in sorted(trie.items())
    )


_EN_NUMBER_WORDS = list(ENGLISH_NUMBER_WORDS)
_EN_NUM = re.compile(
    f"(?:{_trie_pattern(_EN_NUMBER_WORDS, word_start=True)})"
    # words run on across one line break: a PDF wraps 'ten\nmillion dollars'
    rf"(?:(?:(?:[ \t]+|[ \t]*\n[ \t]*)and(?:[ \t]+|[ \t]*\n[ \t]*)|[ \t]*\n[ \t]*|[ \t]+|"
    rf"-[ \t]*\n?[ \t]*)"
    rf"(?:{_trie_pattern(_EN_NUMBER_WORDS, word_start=False)}))*"
)
_KEYWORDS_EN = re.compile(
    _trie_pattern([w for w in _KEYWORD_CATEGORY if w.isascii()], word_start=True)
)
_KEYWORDS_ZH = re.compile(
    _trie_pattern([w for w in _KEYWORD_CATEGORY if not w.isascii()], word_start=False)
)


def _word_before(t: str, pos: int) -> str:
    words = t[max(0, pos - 14) : pos].split()
    return words[-1] if words else ""


def _keyword_hits(t: str, start: int, end: int, cjk: bool) -> list[tuple[int, int, str]]:
    """(start, end, category) of the keywords in t[start:end], in text order."""
    out: list[tuple[int, int, str]] = []
    for m in _KEYWORDS_EN.finditer(t, start, end):
        s, e = m.span()
        if e < len(t) and t[e].isalpha() and t[e].isascii():
            continue
        word = m.group()
        if word.startswith("advance") and (t.endswith("in ", 0, s) or t.startswith(" notice", e)):
            continue  # 'in advance', 'advance notice'
        if word == "interest" and _word_before(t, s) in _NOT_INTEREST:
            continue  # 'voting interest'
        out.append((s, e, _KEYWORD_CATEGORY[word]))
    if cjk:
        out.extend(
            (m.start(), m.end(), _KEYWORD_CATEGORY[m.group()])
            for m in _KEYWORDS_ZH.finditer(t, start, end)
        )
        out.sort()
    return out


_DAMAGES = frozenset({"delay_damages", "liquidated_damages"})
_CATEGORY_LABELS = {
    "delay_damages": ("delay damages", "逾期违约金"),
    "liquidated_damages": ("liquidated damages", "违约金"),
}
"""Damages categories as (English, Chinese) words."""
_PER_ZH = {"day": "每日", "week": "每周", "month": "每月", "year": "每年"}

# --------------------------------------------------------------------------------------------
# Scanning
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Num:
    start: int
    end: int
    value: Decimal
    words: bool


@dataclass(slots=True)
class _Unit:
    kind: str  # "amount" | "percentage" | "period"
    end: int
    currency: str | None = None
    unit: str | None = None
    cow: str | None = None
    factor: Decimal = Decimal(1)
    add: Decimal = Decimal(0)


@dataclass(slots=True)
class _Expr:
    start: int
    end: int
    value: Decimal
    words: bool
    unit: _Unit | None


@dataclass(slots=True)
class FoundTerm:
    """A term as scanned (offsets index the text, values exact): what `analyse` returns and
    `financial_terms` turns into `AmountTerm`, `PercentageTerm` and `PeriodTerm`."""

    kind: str  # "amount" | "percentage" | "period"
    start: int
    end: int
    value: Decimal
    written_as: str
    words_value: Decimal | None = None
    figures_value: Decimal | None = None
    match: bool | None = None
    currency: str | None = None
    unit: str | None = None
    cow: str | None = None
    rate_period: str | None = None
    of_span: tuple[int, int] | None = None
    category: str = "other"
    cue: str | None = None
    cap_applies_to: str | None = None


def _fold(text: str) -> str:
    """Lower-cased, width-normalised copy of `text` with the same length."""
    low = text.lower()
    if len(low) != len(text):  # a few non-ASCII letters lengthen when lowered
        low = "".join(c if len(lc := c.lower()) != 1 else lc for c in text)
    if not text.isascii():
        low = _WIDE.sub(lambda m: _WIDE_MAP[m.group()], low)
    return low


def _numbers(t: str) -> list[_Num]:
    """Every number written in figures, English words or Chinese numerals, in text order."""
    nums: list[_Num] = []
    for m in _FIG.finditer(t):
        s, e = m.span()
        if (s and t[s - 1] in "0123456789.,/") or (
            e < len(t)
            and (t[e] in "0123456789" or (t.startswith("/", e) and t[e + 1 : e + 2].isdigit()))
        ):
            continue  # part of a longer number, a fraction (1 1/2%) or a date (12/31/2020)
        try:
            nums.append(_Num(s, e, Decimal(m.group().replace(",", "")), False))
        except InvalidOperation:  # pragma: no cover - the pattern only admits numbers
            continue
    for m in _EN_NUM.finditer(t):
        s, e = m.span()
        if (s and (t[s - 1].isalpha() or t[s - 1] == "-")) or (e < len(t) and t[e].isalpha()):
            continue
        words = m.group()
        # 'three and four days': an 'and' not after hundred/thousand/... starts a new number
        for am in re.finditer(" and ", words):
            before = words[: am.start()].rsplit(None, 1)[-1].rsplit("-", 1)[-1]
            if before != "hundred" and before not in ENGLISH_SCALES:
                s = m.start() + am.end()
        value = english_words_to_int(t[s:e])
        if value is not None:
            nums.append(_Num(s, e, Decimal(value), True))
    if not t.isascii():
        for m in _CN_NUM.finditer(t):
            s, e = m.span()
            if t.startswith("分之", e) or (s and t[s - 1] == "第"):
                continue
            cn_value = chinese_to_decimal(m.group())
            if cn_value is not None:
                nums.append(_Num(s, e, cn_value, True))
    nums.sort(key=lambda n: n.start)
    return nums


def _unit_after(t: str, pos: int, num: _Num, prefix_currency: str | None) -> _Unit | None:
    """What follows a number at `pos`: a currency, '%', or a period unit."""
    if not num.words:
        sm = _EN_SCALE.match(t, pos) or _CN_SCALE.match(t, pos)
        if sm:
            factor = Decimal(_SCALE_VALUES.get(sm.group("s"), 0))
            cur = _currency_after(t, sm.end())
            if factor and cur:
                return _Unit("amount", cur[1], currency=cur[0], factor=factor, add=cur[2])
            if factor and prefix_currency:
                return _Unit("amount", sm.end(), currency=prefix_currency, factor=factor)
    pm = _PCT.match(t, pos)
    if pm:
        return _Unit("percentage", pm.end())
    cur = _currency_after(t, pos)
    if cur:
        return _Unit("amount", cur[1], currency=cur[0], add=cur[2])
    period = _period_after(t, pos, num)
    if period:
        return period
    if prefix_currency:
        return _Unit("amount", pos, currency=prefix_currency)
    return None


def _currency_after(t: str, pos: int) -> tuple[str, int, Decimal] | None:
    """(currency, end, jiao/fen value) of a currency written after a number."""
    m = _CUR_SUF_ZH.match(t, pos)
    if m:
        add = Decimal(0)
        if m.group("j"):
            add += Decimal(chinese_to_int(m.group("j")) or 0) / 10
        if m.group("f"):
            add += Decimal(chinese_to_int(m.group("f")) or 0) / 100
        return _ZH_CURRENCY[m.group("c")], m.end(), add
    m = _CUR_SUF_EN.match(t, pos)
    if m:
        word = m.group("w")
        if word.startswith("pound") and "sterling" not in word and t.startswith(" of", m.end()):
            return None  # a weight
        qual = m.group("q")
        if word.startswith("dollar"):
            code = _EN_QUALIFIER.get(re.sub(r"[ \t]+", " ", qual), "$") if qual else "$"
        elif word.startswith("euro") or word == "eur":
            code = "EUR"
        elif word.startswith(("pound", "sterling")) or word == "gbp":
            code = "GBP"
        elif word in ("yuan", "renminbi", "rmb", "cny"):
            code = "CNY"
        else:
            code = word.upper()
        return code, m.end(), Decimal(0)
    return None


def _period_after(t: str, pos: int, num: _Num) -> _Unit | None:
    m = _PERIOD_EN.match(t, pos)
    if m:
        if t[max(0, num.start - 4) : num.start] == "-in-":  # 'one-in-ten-year' return period
            return None
        unit = m.group("u")
        qual = m.group("q")
        cow = None
        if unit == "day":
            cow = (
                "working"
                if qual in ("business", "working", "banking")
                else "calendar"
                if qual
                else "unspecified"
            )
        return _Unit("period", m.end(), unit=unit, cow=cow)
    m = _PERIOD_ZH.match(t, pos)
    if not m:
        return None
    u, ge, qual = m.group("u"), m.group("ge"), m.group("q")
    before = t[num.start - 1] if num.start else ""
    if u == "月" and not ge:
        return None  # 9月: a month of the year
    if u == "年" and not ge and (num.value >= 1000 or _DATE_AFTER_YEAR.match(t, m.end())):
        return None  # 2024年 / 2024年9月: a date
    if u == "日" and not qual and before == "月":
        return None  # 9月1日: a date
    if u == "周" and t.startswith("年", m.end()):
        return None  # 周年: an anniversary
    if num.value == 1 and _PER_UNIT_BEFORE_ZH.search(t, max(0, num.start - 4), num.start):
        return None  # 每逾期一天: the unit of a rate, not a period
    unit = {"小时": "hour", "星期": "week", "周": "week", "月": "month", "年": "year"}.get(u, "day")
    cow = None
    if unit == "day":
        cow = (
            "working"
            if qual in ("工作", "营业", "银行工作")
            else "calendar"
            if qual
            else "unspecified"
        )
    return _Unit("period", m.end(), unit=unit, cow=cow)


def _expr(t: str, num: _Num) -> _Expr:
    """The number with what is written around it (currency prefix, unit after)."""
    s = num.start
    frac = t[s - 3 : s] if s >= 3 else ""
    if frac in _CN_FRACTION:  # 百分之五, 万分之一
        return _Expr(
            s - 3, num.end, num.value * _CN_FRACTION[frac], num.words, _Unit("percentage", num.end)
        )
    before = t[max(0, s - 2) : s].rstrip()
    pre = _CUR_PRE.search(t, max(0, s - 14), s) if before and before[-1] in _CUR_PRE_LAST else None
    prefix_currency: str | None = None
    start = s
    if pre:
        start = pre.start()
        if pre.group("code"):
            code = pre.group("code").upper()
            prefix_currency = "CNY" if code == "RMB" else code
        elif pre.group("sym"):
            sym = pre.group("sym").replace(" ", "")
            prefix_currency = "USD" if sym.startswith("u.s.") else _SYM_CURRENCY[sym]
        else:
            prefix_currency = _ZH_CURRENCY[pre.group("zh")]
    unit = _unit_after(t, num.end, num, prefix_currency)
    if unit is None:
        return _Expr(s, num.end, num.value, num.words, None)
    if unit.kind == "amount" and unit.currency == "$" and prefix_currency:
        unit.currency = prefix_currency
    if unit.kind == "amount":
        if _RANGE.match(t, num.end):  # '£30-40K': a range, not £30
            return _Expr(s, num.end, num.value, num.words, None)
        return _Expr(start, unit.end, num.value, num.words, unit)
    return _Expr(s, unit.end, num.value, num.words, unit)


class _Scanner:
    """Finds the terms of one text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.t = _fold(text)
        self.nums = _numbers(self.t)
        self.starts = [n.start for n in self.nums]
        self._dollar: str | None = None
        self._yen: str | None = None

    def currency(self, code: str | None) -> str:
        if code == "$":
            if self._dollar is None:
                self._dollar = next((c for c, rx in _DOLLAR_CONTEXT if rx.search(self.t)), "USD")
            return self._dollar
        if code == "¥":
            if self._yen is None:
                self._yen = "JPY" if _YEN_CONTEXT.search(self.t) else "CNY"
            return self._yen
        return code or "USD"

    def items(self) -> list[FoundTerm]:
        t = self.t
        out: list[FoundTerm] = []
        consumed = 0
        for i, num in enumerate(self.nums):
            if num.start < consumed:
                continue
            e1 = _expr(t, num)
            if e1.start < consumed:
                continue
            item = self._pair(e1, i) or self._single(e1)
            if item is None:
                continue
            out.append(item)
            consumed = item.end
        return out

    def _single(self, e: _Expr) -> FoundTerm | None:
        if e.unit is None:
            return None
        u = e.unit
        value = e.value * u.factor + u.add
        return FoundTerm(
            kind=u.kind,
            start=e.start,
            end=e.end,
            value=value,
            written_as="words" if e.words else "figures",
            words_value=value if e.words else None,
            figures_value=None if e.words else value,
            currency=self.currency(u.currency) if u.kind == "amount" else None,
            unit=u.unit,
            cow=u.cow,
        )

    def _pair(self, e1: _Expr, index: int) -> FoundTerm | None:
        """'Ten Thousand Dollars (US$10,000)', 'thirty (30) days', '¥12,000.00（大写：壹万贰仟元整）'."""
        t = self.t
        om = _OPEN.match(t, e1.end)
        if om is None:
            return None
        j = bisect_left(self.starts, om.end(), lo=index + 1)
        if j >= len(self.nums):
            return None
        num2 = self.nums[j]
        e2 = _expr(t, num2)
        if e2.start != om.end() or e2.words == e1.words:
            return None
        cm = _CLOSE.match(t, e2.end)
        if cm is None:
            return None
        end = cm.end()
        u1, u2 = e1.unit, e2.unit
        if u1 and u2 and u1.kind != u2.kind:
            return None
        unit = u1 or u2
        if unit is None:  # 'thirty (30) days': the unit follows the parentheses
            pos = end + 1 if t.startswith("]", end) else end
            unit = _unit_after(t, pos, num2, None)
            if unit is None:
                return None
            end = unit.end
            u1 = u2 = unit
        v1 = e1.value * (u1.factor if u1 else Decimal(1)) + (u1.add if u1 else 0)
        v2 = e2.value * (u2.factor if u2 else Decimal(1)) + (u2.add if u2 else 0)
        words_v, figs_v = (v1, v2) if e1.words else (v2, v1)
        match = words_v == figs_v
        currency = None
        if unit.kind == "amount":
            c1 = self.currency(u1.currency) if u1 and u1.currency else None
            c2 = self.currency(u2.currency) if u2 and u2.currency else None
            currency = c1 or c2 or "USD"
            if c1 and c2 and c1 != c2:
                match = False
        elif unit.kind == "period" and u1 and u2 and u1.unit != u2.unit:
            match = False
        return FoundTerm(
            kind=unit.kind,
            start=e1.start,
            end=end,
            value=words_v,
            written_as="words_and_figures",
            words_value=words_v,
            figures_value=figs_v,
            match=match,
            currency=currency,
            unit=unit.unit,
            cow=unit.cow,
        )


# --------------------------------------------------------------------------------------------
# Context: sentences, rates, bases, categories
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Hit:
    start: int
    end: int
    group: str
    weak: bool = False


def _rate_period(t: str, item: FoundTerm, lo: int, hi: int) -> str | None:
    """'per day' after the term or 'daily rate of' / '每日' before it, within [lo, hi) (the
    sentence, without the terms before and after)."""
    m = _RATE_SLASH.match(t, item.end)
    if m:
        return _RATE_UNITS.get(m.group("u"))
    m = _RATE_AFTER.search(t, item.end, min(hi, item.end + 80))
    if m:
        word = next(g for g in m.groups() if g is not None) or "diem"
        return _RATE_UNITS.get(word)
    m = _RATE_BEFORE_EN.search(t, max(lo, item.start - 40), item.start)
    if m:
        return _RATE_UNITS.get(m.group("u"))
    last = None
    for found in _RATE_BEFORE_ZH.finditer(t, max(lo, item.start - 20), item.start):
        last = found
    if last:
        return _RATE_UNITS.get(next(g for g in last.groups() if g is not None))
    return None


def _of_span(t: str, item: FoundTerm, ss: int, se: int) -> tuple[int, int] | None:
    m = _OF_EN.match(t, item.end, se)
    if m:
        return m.span("of")
    m = _OF_ZH.search(t, max(ss, item.start - 24), item.start)
    if m is None:
        return None
    base_start, base_end = m.span("b") if m.group("b") else m.span("c")
    base = t[base_start:base_end]
    cut = max((base.rfind(w) + len(w) for w in _OF_ZH_STOPS if w in base), default=0)
    return (base_start + cut, base_end) if cut < len(base) else None


def _nearest(hits: list[_Hit], item: FoundTerm, skip: frozenset[str]) -> tuple[_Hit | None, int]:
    best: _Hit | None = None
    best_d = 1 << 30
    for h in hits:
        if h.group in skip:
            continue
        d = _distance(h, item)
        if d < best_d:
            best, best_d = h, d
    return best, best_d


_CUES = frozenset({"cue_delay", "cue_pay"})
_SKIP_PERIOD = _CUES | {"price"}


def _distance(hit: _Hit, item: FoundTerm) -> int:
    return item.start - hit.end if hit.end <= item.start else hit.start - item.end


def _classify(
    text: str, t: str, item: FoundTerm, hits: list[_Hit], ss: int, title_hits: list[tuple[str, str]]
) -> None:
    own = [
        h
        for h in hits
        if not item.start <= h.start < item.end
        and not (item.of_span and item.of_span[0] <= h.start < item.of_span[1])
        and not (h.weak and _distance(h, item) > _WEAK_REACH)
    ]
    groups = {h.group for h in own}
    skip = _SKIP_PERIOD if item.kind == "period" else _CUES
    hit, dist = _nearest(own, item, skip)
    topical: str | None = hit.group if hit else None
    cue = text[hit.start : hit.end] if hit else None
    if topical in ("liquidated_damages", "interest") and "late_payment" in groups:
        topical = "late_payment"
    elif topical == "liquidated_damages" and "cue_delay" in groups:
        topical = "delay_damages"
    if topical is None:
        for cat, word in title_hits:
            if item.kind != "period" or cat != "price":
                topical, cue = cat, word
                break
    if item.kind in ("amount", "percentage"):
        cap = _cap_cue(t, item, ss)
        if cap:
            item.category, item.cue = "cap", text[cap[0] : cap[1]]
            item.cap_applies_to = topical
            return
    elif item.kind == "period":
        pay, pay_dist = _nearest([h for h in own if _pays_for(text, h, item)], item, frozenset())
        if pay and (topical != "late_payment" or pay_dist < dist):
            item.category, item.cue = "payment_period", text[pay.start : pay.end]
            return
    if topical:
        item.category, item.cue = topical, cue


def _pays_for(text: str, hit: _Hit, item: FoundTerm) -> bool:
    """Whether a payment word governs a period: 'payable within 42 days', '56天内支付',
    '付款期限为30天'."""
    if hit.group != "cue_pay":
        return False
    if text[hit.start].isascii():  # English: the verb comes first, in the same phrase
        gap = text[hit.end : item.start]
        return (
            hit.end <= item.start
            and len(gap) <= 80
            and ", " not in gap
            and _PERIOD_LEAD.search(text, max(hit.end, item.start - 20), item.start) is not None
        )
    if hit.start >= item.end:  # 56天内支付
        return hit.start - item.end <= 12
    return text.endswith(("期限", "周期", "账期"), hit.start, hit.end) and (
        item.start - hit.end <= 12
    )


def _cap_cue(t: str, item: FoundTerm, ss: int) -> tuple[int, int] | None:
    end = item.start
    if item.of_span and item.of_span[1] <= item.start:  # 不超过未付金额的2%
        end = item.of_span[0]
    m = _CAP_BEFORE_EN.search(t, max(ss, end - 60), end) or _CAP_BEFORE_ZH.search(
        t, max(ss, end - 16), end
    )
    if m:
        floor = _NOT_A_CAP.search(t, max(ss, m.start() - 30), m.end())
        if not floor or any(c.isdigit() for c in t[floor.end() : m.start()]):
            return m.start(), m.start() + len(m.group().rstrip())
    after = item.of_span[1] if item.of_span and item.of_span[0] >= item.end else item.end
    m = _CAP_AFTER.match(t, after)
    if m:
        return m.start(), m.end()
    return None


# --------------------------------------------------------------------------------------------
# Terms in context
# --------------------------------------------------------------------------------------------


def _fmt(value: Decimal) -> str:
    text = f"{value.normalize():,f}" if value == value.to_integral() else f"{value:,f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def title_hits(
    structure: DocumentStructure | None, clause: ClauseNode | None
) -> list[tuple[str, str]]:
    """(category, keyword) in the heading of the clause, or of its nearest titled ancestor
    (a list item '(a)' takes its clause's heading)."""
    node = clause
    while node is not None and not node.title:
        node = structure.get_clause(node.parent_id) if structure and node.parent_id else None
    if node is None:
        return []
    folded = _fold(node.title)
    return [
        (cat, node.title[s:e])
        for s, e, cat in _keyword_hits(folded, 0, len(folded), not folded.isascii())
        if cat not in _CUES and folded[s:e] not in _WEAK_KEYWORDS
    ]


def analyse(
    text: str, title_hits: list[tuple[str, str]] | None = None, language: str = "en"
) -> tuple[list[FoundTerm], list[FinancialFlag]]:
    """The terms and flags of `text`, the flags' messages in `language`, with the category
    keywords of the clause heading (`title_hits`) for terms their sentence does not classify:
    the scan `financial_terms` reports, for code that reads the terms themselves."""
    scanner = _Scanner(text)
    items = scanner.items()
    t = scanner.t
    say = Say(language)
    if not items:
        return [], _flags(text, t, items, say)
    sentences: list[tuple[int, int]] = []
    for it in items:
        last = sentences[-1] if sentences else (0, 0)
        sentences.append(last if last[0] <= it.start and it.end <= last[1] else _sentence(t, it))
    # keywords, scanned once over the sentences holding terms
    hits: list[_Hit] = []
    scanned_to = 0
    cjk = not t.isascii()
    for ss, se in sentences:
        lo = max(ss, scanned_to)
        if lo < se:
            hits.extend(
                _Hit(s, e, cat, t[s:e] in _WEAK_KEYWORDS)
                for s, e, cat in _keyword_hits(t, lo, se, cjk)
            )
            scanned_to = se
    hit_starts = [h.start for h in hits]
    titles = title_hits or []
    for idx, (it, (ss, se)) in enumerate(zip(items, sentences, strict=True)):
        if it.kind == "percentage":
            it.of_span = _of_span(t, it, ss, se)
        if it.kind != "period":
            limit = items[idx + 1].start if idx + 1 < len(items) else se
            floor = items[idx - 1].end if idx else 0
            it.rate_period = _rate_period(t, it, max(ss, floor), min(se, limit))
        sentence_hits = hits[bisect_left(hit_starts, ss) : bisect_right(hit_starts, se - 1)]
        _classify(text, t, it, sentence_hits, ss, titles)
        prev = items[idx - 1] if idx else None
        if (
            prev
            and it.kind == "amount"
            and prev.end >= ss
            and _RESTATED.search(t, max(prev.end, prev.of_span[1] if prev.of_span else 0), it.start)
        ):  # '合同价款的10%作为预付款，即人民币…': the amount restates the term before it
            it.category, it.cue, it.cap_applies_to = prev.category, prev.cue, prev.cap_applies_to
    return items, _flags(text, t, items, say)


def _is_sentence_end(t: str, p: int) -> bool:
    if t[p] != ".":
        return True
    word = _word_before(t, p + 1)[:-1].lstrip("(\"'“‘")
    return not (
        len(word) == 1
        or word in _ABBREVIATIONS
        or ("." in word and word.replace(".", "").isalpha())
    )  # 'U.S. $', 'No. 5', 'Ltd. and'


def _sentence(t: str, span: FoundTerm | FinancialFlag | re.Match[str]) -> tuple[int, int]:
    """The sentence around `span` (looked for up to _SENTENCE_REACH characters either side)."""
    start, end = span.span() if isinstance(span, re.Match) else (span.start, span.end)
    lo = max(0, start - _SENTENCE_REACH)
    ss = lo
    for m in _SENTENCE_END.finditer(t, lo, start):
        if _is_sentence_end(t, m.start()):
            ss = m.start() + 1
    se = min(len(t), end + _SENTENCE_REACH)
    for m in _SENTENCE_END.finditer(t, end, se):
        if _is_sentence_end(t, m.start()):
            se = m.start()
            break
    return ss, se


def _flags(text: str, t: str, items: list[FoundTerm], say: Say) -> list[FinancialFlag]:
    flags: list[FinancialFlag] = []
    for it in items:
        if it.match is False:
            what = f" {it.currency}" if it.currency else ""
            cur = f"{it.currency} " if it.currency else ""
            words = _fmt(it.words_value or Decimal(0))
            figures = _fmt(it.figures_value or Decimal(0))
            flags.append(
                FinancialFlag(
                    code="words_figures_mismatch",
                    message=say(
                        f"Words and figures differ: words give{what} {words}, figures "
                        f"give{what} {figures}.",
                        f"金额大写与小写不一致：大写为{cur}{words}，小写为{cur}{figures}。",
                    ),
                    quote=text[it.start : it.end],
                    start=it.start,
                    end=it.end,
                )
            )
    # a cap counts for damages unless its sentence shows it limits something else (a cap
    # written as a share of the price — "capped at 1% of the monthly Fees" — limits them)
    caps = [
        it
        for it in items
        if it.category == "cap" and it.cap_applies_to in (None, "price", *_DAMAGES)
    ]
    no_cap = _NO_CAP.search(t) if any(it.category in _DAMAGES for it in items) else None
    for it in items:
        if (
            it.category in _DAMAGES
            and it.rate_period
            and not caps
            and not _LATE_PAYMENT.search(t[slice(*_sentence(t, it))])
        ):
            unit = "%" if it.kind == "percentage" else ""
            cur = f"{it.currency} " if it.kind == "amount" else ""
            stated = text[no_cap.start() : no_cap.end()] if no_cap else ""
            label, label_zh = _CATEGORY_LABELS[it.category]
            flags.append(
                FinancialFlag(
                    code="uncapped_damages",
                    message=say(
                        f"{label.capitalize()} of {cur}{_fmt(it.value)}{unit} per "
                        f"{it.rate_period} with no cap in this clause"
                        + (f"; the clause states '{stated}'." if stated else "."),
                        f"{label_zh}按{_PER_ZH.get(it.rate_period, it.rate_period)}{cur}"
                        f"{_fmt(it.value)}{unit}计算，本条未约定上限"
                        + (f"，且明确写明“{stated}”。" if stated else "。"),
                    ),
                    quote=text[it.start : it.end],
                    start=it.start,
                    end=it.end,
                )
            )
        if (
            it.category == "retention"
            and it.kind == "percentage"
            and it.value > 3
            and _CN_TEXT.search(text[max(0, it.start - 40) : it.end + 40])
        ):
            # PRC rule for construction retention money (quality guarantee deposit): the
            # total retained may not exceed 3% of the settled contract price (建质〔2017〕138号).
            flags.append(
                FinancialFlag(
                    code="retention_above_cn_3_percent",
                    message=say(
                        f"Retention (quality guarantee deposit) of {_fmt(it.value)}% is above "
                        "3% of the settled contract price, the cap set by PRC rules (Jian Zhi "
                        "[2017] No. 138).",
                        f"质量保证金比例{_fmt(it.value)}%高于工程价款结算总额的3%"
                        "（建质〔2017〕138号规定的上限）。",
                    ),
                    quote=text[it.start : it.end],
                    start=it.start,
                    end=it.end,
                )
            )
        elif it.category == "retention" and it.kind == "percentage" and it.value > 5:
            base = text[it.of_span[0] : it.of_span[1]] if it.of_span else ""
            flags.append(
                FinancialFlag(
                    code="retention_above_5_percent",
                    message=say(
                        f"Retention of {_fmt(it.value)}%"
                        + (f" of {base}" if base else "")
                        + " is above 5%.",
                        "保留金比例"
                        + (f"（以{base}为基数）" if base else "")
                        + f"为{_fmt(it.value)}%，高于5%。",
                    ),
                    quote=text[it.start : it.end],
                    start=it.start,
                    end=it.end,
                )
            )
    seen: set[int] = set()
    for m in _no_interest(t):
        k_start, k_end = _sentence(t, m)
        if k_start not in seen and _LATE_CUE.search(t, k_start, k_end):
            seen.add(k_start)
            sentence = text[k_start:k_end]
            lead = len(sentence) - len(sentence.lstrip())
            quote = sentence.strip()
            flags.append(
                FinancialFlag(
                    code="no_late_payment_interest",
                    message=say("No interest is payable on late payment.", "逾期付款不计付利息。"),
                    quote=quote,
                    start=k_start + lead,
                    end=k_start + lead + len(quote),
                )
            )
    return flags


def _no_interest(t: str) -> list[re.Match[str]]:
    """Matches of _NO_INTEREST, looked for only around 'interest' / '利息' / '计息'."""
    out: list[re.Match[str]] = []
    for word in ("interest", "息"):
        i = t.find(word)
        while i != -1:
            m = _NO_INTEREST.search(t, max(0, i - 60), i + len(word) + 1)
            if m and m.start() <= i < m.end() and (not out or out[-1].start() != m.start()):
                out.append(m)
            i = t.find(word, i + 1)
    return out


def _term_fields(text: str, it: FoundTerm) -> dict[str, Any]:
    return {
        "quote": text[it.start : it.end],
        "start": it.start,
        "end": it.end,
        "category": it.category,
        "category_cue": it.cue,
        "written_as": it.written_as,
        "words_value": float(it.words_value) if it.words_value is not None else None,
        "figures_value": float(it.figures_value) if it.figures_value is not None else None,
        "words_match_figures": it.match,
        "value": float(it.value),
    }


def financial_terms(
    text: str,
    *,
    structure: DocumentStructure | None = None,
    clause: ClauseNode | None = None,
    roles: PartyRoles | None = None,
    language: str = "en",
) -> FinancialTerms:
    """The amounts, percentages and periods of `text`, classified, with the flags a lawyer
    will want to check (messages in `language`).

    `clause` (of `structure`) lends its heading, or its nearest titled ancestor's, to the
    terms its sentences do not classify; `roles` (our party, resolved; None when no party is
    acted for) says whom a one-sided flag burdens.
    """
    items, flags = analyse(text, title_hits(structure, clause), language)
    if roles is not None and roles.resolved and any(f.code in _SIDED for f in flags):
        flags = [_with_burden(text, f, roles, structure) for f in flags]
    amounts: list[AmountTerm] = []
    percentages: list[PercentageTerm] = []
    periods: list[PeriodTerm] = []
    by_category: dict[str, list[str]] = {}
    for it in items:
        fields = _term_fields(text, it)
        if it.kind == "amount":
            ref = f"amounts[{len(amounts)}]"
            amounts.append(
                AmountTerm(
                    **fields,
                    currency=it.currency or "USD",
                    rate_period=it.rate_period,
                    cap_applies_to=it.cap_applies_to,
                )
            )
        elif it.kind == "percentage":
            ref = f"percentages[{len(percentages)}]"
            percentages.append(
                PercentageTerm(
                    **fields,
                    of=text[it.of_span[0] : it.of_span[1]] if it.of_span else None,
                    rate_period=it.rate_period,
                    cap_applies_to=it.cap_applies_to,
                )
            )
        else:
            ref = f"periods[{len(periods)}]"
            periods.append(PeriodTerm(**fields, unit=it.unit, calendar_or_working=it.cow))
        by_category.setdefault(it.category, []).append(ref)
    return FinancialTerms(
        amounts=amounts,
        percentages=percentages,
        periods=periods,
        by_category=by_category,
        flags=flags,
    )


_SIDED = frozenset(
    {"uncapped_damages", "retention_above_5_percent", "retention_above_cn_3_percent"}
)
"""Flags that burden one party: the one who pays the damages, the one retention is withheld
from."""


def _with_burden(
    text: str, flag: FinancialFlag, roles: PartyRoles, structure: DocumentStructure | None
) -> FinancialFlag:
    """`flag` with the side it burdens: the obligor of the damages in the sentence around it;
    for retention, the party paid (the payer withholds it)."""
    if flag.code not in _SIDED:
        return flag
    side: str | None
    if flag.code == "uncapped_damages":
        begin, stop = _sentence(text, flag)
        sentence = text[begin:stop]
        side = obligor_of(sentence, roles)
        if side is None:  # 'If the Supplier is late, damages of 1% a day are payable'
            named = [s for _, s, _ in party_mentions(sentence, roles) if s in ("us", "them")]
            side = named[0] if named else None
    else:
        payer = payer_of(structure, roles)
        side = {"us": "them", "them": "us"}.get(payer[0]) if payer else None
    return flag.model_copy(update={"burdens": side}) if side in ("us", "them", "both") else flag
