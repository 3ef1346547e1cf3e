"""Numeral conversions used by clause numbering: Roman, Chinese, letters."""

from __future__ import annotations

import re

_ROMAN_RE = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}

_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
CN_NUMERAL_CHARS = "零〇一二两三四五六七八九十百千"

_WORD_NUMBERS = {
    w: i
    for i, w in enumerate(
        [
            "ONE",
            "TWO",
            "THREE",
            "FOUR",
            "FIVE",
            "SIX",
            "SEVEN",
            "EIGHT",
            "NINE",
            "TEN",
            "ELEVEN",
            "TWELVE",
            "THIRTEEN",
            "FOURTEEN",
            "FIFTEEN",
            "SIXTEEN",
            "SEVENTEEN",
            "EIGHTEEN",
            "NINETEEN",
            "TWENTY",
        ],
        start=1,
    )
}


def roman_to_int(s: str) -> int | None:
    """Value of a Roman numeral (any case), or None if `s` is not a valid one."""
    u = s.upper()
    if not u or not _ROMAN_RE.match(u):
        return None
    total = 0
    prev = 0
    for ch in reversed(u):
        v = _ROMAN_VALUES[ch]
        total = total - v if v < prev else total + v
        prev = max(prev, v)
    return total


def cn_to_int(s: str) -> int | None:
    """Value of a Chinese numeral ('十四' → 14, '一百零一' → 101) or Arabic digits."""
    if s.isdigit():
        return int(s)
    if not s or any(ch not in _CN_DIGITS and ch not in _CN_UNITS for ch in s):
        return None
    total = 0
    current = 0
    for ch in s:
        if ch in _CN_DIGITS:
            current = _CN_DIGITS[ch]
        else:
            unit = _CN_UNITS[ch]
            total += (current or 1) * unit
            current = 0
    return total + current


def letters_to_int(s: str) -> int | None:
    """'a' → 1 … 'z' → 26; repeated letters 'aa' → 27, 'bb' → 28 (US contract style)."""
    low = s.lower()
    if not low.isalpha() or not low.isascii():
        return None
    if len(low) == 1:
        return ord(low) - ord("a") + 1
    if len(set(low)) == 1:
        return 26 * (len(low) - 1) + ord(low[0]) - ord("a") + 1
    return None


def word_to_int(s: str) -> int | None:
    """'ONE' → 1 … 'TWENTY' → 20 (as in 'ARTICLE ONE')."""
    return _WORD_NUMBERS.get(s.upper())
