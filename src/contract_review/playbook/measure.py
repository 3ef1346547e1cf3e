"""Numbers in contract terms, as the playbook's number checks measure them: a rate as % a year
(a rate per day, week or month annualised; 千分之/万分之 read), a period in days, a cap in
months of fees. Shared by the checks (`check_positions`) and the redlines that set a term's
number to the position's standard."""

from __future__ import annotations

import re
from collections.abc import Callable

from contract_review.text.numerals import chinese_to_decimal

__all__ = ["MEASURES", "annual_rate", "days", "months_of_fees", "percent"]

_PERCENT = re.compile(
    r"(?<![\d.])(?:(\d+)\s+(?=\d+\s*/))?(\d+(?:\.\d+)?)(?:\s*/\s*(\d+))?"
    r"\s*(?:%|per\s?cent\b|percent\b)",
    re.I,
)
"""A percentage in figures, a mixed fraction included ('1 1/2%' is 1.5 %)."""


def _percent_value(m: re.Match[str]) -> float:
    whole, number, denominator = m.groups()
    value = float(number) / (float(denominator) if denominator and float(denominator) else 1.0)
    return value + (float(whole) if whole else 0.0)


_ZH_FRACTION = re.compile(r"(百分之|千分之|万分之)([零〇一二两三四五六七八九十百\d.]+)")
_EN_PERIOD = re.compile(
    r"\b(?:per|a|each|every)\s+(?:calendar\s+)?(hour|day|week|month|annum|year)\b"
    r"|\b(hourly|daily|weekly|monthly|annually|yearly)\b",
    re.I,
)
_ZH_PERIOD = re.compile(
    r"(每(?:逾期|迟延|延迟|延误)?(?:一)?小时|每(?:逾期|迟延|延迟|延误)?(?:一)?日|每天|按日|日利率"
    r"|每周|每月|按月|月利率|每年|按年|年利率|年化)"
)
_PER_YEAR = {"hour": 8760.0, "hourly": 8760.0, "day": 365.0, "daily": 365.0, "week": 52.0}
_PER_YEAR |= {"weekly": 52.0, "month": 12.0}
_PER_YEAR |= {"monthly": 12.0, "annum": 1.0, "year": 1.0, "annually": 1.0, "yearly": 1.0}
_DAYS = re.compile(
    r"\(?(\d+)\)?\s*(?:calendar\s+|business\s+|working\s+)?(hours?|days?|weeks?|months?|years?)\b"
    r"|(\d+|[一二两三四五六七八九十百]+)\s*(?:个)?(小时|日|天|工作日|周|月|年)",
    re.I,
)
_UNIT_DAYS = {"hour": 1 / 24, "day": 1, "week": 7, "month": 30, "year": 365, "小时": 1 / 24}
_UNIT_DAYS |= {"日": 1, "天": 1, "工作日": 1, "周": 7, "月": 30, "年": 365}
_COMPOUNDED = re.compile(r"\bcompound\w*|复利|利滚利", re.I)


def annual_rate(sentence: str) -> float | None:
    """The first rate of `sentence` as % a year (a rate per day or month annualised)."""
    m = _PERCENT.search(sentence)
    if m is not None:
        rate = _percent_value(m)
        period = _EN_PERIOD.search(sentence, m.end(), m.end() + 60)
        unit = (period.group(1) or period.group(2)).lower() if period else "year"
        per_year = _PER_YEAR.get(unit, 1.0)
        if per_year > 1 and _COMPOUNDED.search(sentence, m.end(), m.end() + 120):
            # '3% per month, compounded monthly' is 42.6% a year, not 36%
            return round(float((1 + rate / 100) ** per_year - 1) * 100, 2)
        return rate * per_year
    z = _ZH_FRACTION.search(sentence)
    if z is None:
        return None
    number = chinese_to_decimal(z.group(2))
    if number is None:
        return None
    base = {"百分之": 1.0, "千分之": 0.1, "万分之": 0.01}[z.group(1)]
    period = _ZH_PERIOD.search(sentence)
    word = period.group(1) if period else "年"
    per_year = (
        8760.0
        if "小时" in word
        else 365.0
        if "日" in word or "天" in word
        else 52.0
        if "周" in word
        else 12.0
        if "月" in word
        else 1.0
    )
    return float(number) * base * per_year


def days(sentence: str) -> float | None:
    """The first period of `sentence`, in days."""
    m = _DAYS.search(sentence)
    if m is None:
        return None
    if m.group(1):
        unit = m.group(2).lower().rstrip("s")
        return float(m.group(1)) * _UNIT_DAYS[unit]
    number = chinese_to_decimal(m.group(3))
    return float(number) * _UNIT_DAYS[m.group(4)] if number is not None else None


def months_of_fees(sentence: str) -> float | None:
    """The first period of `sentence`, in months (a cap of 'the fees of N months')."""
    n = days(sentence)
    return n / 30 if n is not None else None


_TIMES = re.compile(
    r"\b(double|twice|triple|treble|three times|four times|five times)\b"
    r"|\(?(\d+(?:\.\d+)?)\)?\s*times\b|([\d.]+|[一二两三四五六七八九十]+)\s*倍",
    re.I,
)
_TIMES_WORDS = {"double": 2.0, "twice": 2.0, "triple": 3.0, "treble": 3.0, "three times": 3.0}
_TIMES_WORDS |= {"four times": 4.0, "five times": 5.0}


def percent(sentence: str) -> float | None:
    """The first percentage of `sentence` ('six percent (6%)', '百分之三十'), or a multiple as
    a percentage ('twice', '3 times', '两倍' → 200, 300, 200)."""
    m = _PERCENT.search(sentence)
    z = _ZH_FRACTION.search(sentence)
    t = _TIMES.search(sentence)
    first = min((x for x in (m, z, t) if x is not None), key=lambda x: x.start(), default=None)
    if first is None:
        return None
    if first is m:
        return _percent_value(m)
    if first is z:
        number = chinese_to_decimal(z.group(2))
        base = {"百分之": 1.0, "千分之": 0.1, "万分之": 0.01}[z.group(1)]
        return float(number) * base if number is not None else None
    assert t is not None
    if t.group(1):
        return 100.0 * _TIMES_WORDS[t.group(1).lower()]
    times = float(t.group(2)) if t.group(2) else chinese_to_decimal(t.group(3))
    return 100.0 * float(times) if times is not None else None


MEASURES: dict[str, Callable[[str], float | None]] = {
    "annual_rate": annual_rate,
    "days": days,
    "months_of_fees": months_of_fees,
    "percent": percent,
}
"""Each NumberCheck measure and the function that reads it from a sentence."""
