"""Number conversions shared by the parser, the DOCX reader and the skills.

Pure functions, both ways where callers need them:

* Roman numerals: `roman_to_int` / `int_to_roman`;
* list letters ("a", "z", "aa"): `letters_to_int` / `int_to_letters`;
* English number words: `english_words_to_int` / `int_to_english_words`, `int_to_english_ordinal`;
* Chinese numerals (一二三 and the financial 壹贰叁 forms, 十百千万亿, 零/〇/两):
  `chinese_to_int`, `chinese_to_decimal` / `int_to_chinese`, `int_to_cjk_counting`.
"""

from __future__ import annotations

import re
from decimal import Decimal

__all__ = [
    "CN_NUMERAL_CHARS",
    "ENGLISH_NUMBER_WORDS",
    "ENGLISH_SCALES",
    "chinese_to_decimal",
    "chinese_to_int",
    "english_words_to_int",
    "int_to_chinese",
    "int_to_cjk_counting",
    "int_to_english_ordinal",
    "int_to_english_words",
    "int_to_letters",
    "int_to_roman",
    "letters_to_int",
    "roman_to_int",
]

# ------------------------------------------------------------------------------------------
# Roman numerals and letters
# ------------------------------------------------------------------------------------------

_ROMAN_RE = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_ROMAN = (
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
)


def roman_to_int(s: str) -> int | None:
    """Value of a Roman numeral (any case, 1..3999), or None if `s` is not a valid one."""
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


def int_to_roman(n: int) -> str:
    """Upper-case Roman numeral for `n` (14 → 'XIV'); '' for n <= 0; 4000 and up repeat 'M'."""
    out = []
    for value, numeral in _ROMAN:
        count, n = divmod(n, value)
        out.append(numeral * count)
    return "".join(out)


def letters_to_int(s: str) -> int | None:
    """'a' → 1 … 'z' → 26; repeated letters 'aa' → 27, 'bb' → 28 (US contract style).

    Any case; None for anything else ('ab', digits, non-ASCII letters).
    """
    low = s.lower()
    if not low.isalpha() or not low.isascii():
        return None
    if len(low) == 1:
        return ord(low) - ord("a") + 1
    if len(set(low)) == 1:
        return 26 * (len(low) - 1) + ord(low[0]) - ord("a") + 1
    return None


def int_to_letters(n: int) -> str:
    """Lower-case list letters for `n` >= 1, repeating as Word does: 1 → 'a', 27 → 'aa', 53 → 'aaa'."""
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


# ------------------------------------------------------------------------------------------
# English
# ------------------------------------------------------------------------------------------

_ONES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)  # fmt: skip
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_EN_VALUES: dict[str, int] = {w: i for i, w in enumerate(_ONES)} | {
    w: 10 * i for i, w in enumerate(_TENS) if w
}
ENGLISH_SCALES: dict[str, int] = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
"""Scale words `english_words_to_int` understands, with their values."""
ENGLISH_NUMBER_WORDS: tuple[str, ...] = (*_EN_VALUES, "hundred", *ENGLISH_SCALES)
"""Every word `english_words_to_int` reads as part of a number ('and' aside)."""
_EN_SCALES_DESC = tuple(sorted(((v, k) for k, v in ENGLISH_SCALES.items()), reverse=True))
_EN_WORD_RE = re.compile(r"[a-z]+")
_ORDINAL_WORDS = {
    "one": "first",
    "two": "second",
    "three": "third",
    "five": "fifth",
    "eight": "eighth",
    "nine": "ninth",
    "twelve": "twelfth",
}


def english_words_to_int(words: str) -> int | None:
    """Value of English number words, any case ('two million five hundred thousand' → 2500000).

    'twenty-eight' → 28, 'one hundred and five' → 105; 'and' is ignored and words are split on
    anything that is not a letter. None if a word is not a number word or there is none.
    """
    total = current = 0
    seen = False
    for word in _EN_WORD_RE.findall(words.lower()):
        if word == "and":
            continue
        if word in _EN_VALUES:
            current += _EN_VALUES[word]
        elif word == "hundred":
            current = (current or 1) * 100
        elif word in ENGLISH_SCALES:
            total += (current or 1) * ENGLISH_SCALES[word]
            current = 0
        else:
            return None
        seen = True
    return total + current if seen else None


def int_to_english_words(n: int, *, use_and: bool = False) -> str:
    """English cardinal words in lower case: 28 → 'twenty-eight', 105 → 'one hundred five'.

    With `use_and` (British style) 105 → 'one hundred and five', 1005 → 'one thousand and five'.
    Scales go up to billion (10**12 → 'one thousand billion'). Raises ValueError for n < 0.
    """
    if n < 0:
        raise ValueError(f"no English words for negative number {n}")
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + (f"-{_ONES[ones]}" if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        joint = " and " if use_and else " "
        return f"{_ONES[hundreds]} hundred" + (
            joint + int_to_english_words(rest, use_and=use_and) if rest else ""
        )
    value, name = next(scale for scale in _EN_SCALES_DESC if n >= scale[0])
    head, rest = divmod(n, value)
    tail = ""
    if rest:
        joint = " and " if use_and and rest < 100 else " "
        tail = joint + int_to_english_words(rest, use_and=use_and)
    return f"{int_to_english_words(head, use_and=use_and)} {name}{tail}"


def int_to_english_ordinal(n: int) -> str:
    """English ordinal words in lower case: 1 → 'first', 21 → 'twenty-first', 40 → 'fortieth'."""
    words = int_to_english_words(n)
    head, sep, last = words.rpartition("-") if "-" in words else words.rpartition(" ")
    if last in _ORDINAL_WORDS:
        last = _ORDINAL_WORDS[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return f"{head}{sep}{last}"


# ------------------------------------------------------------------------------------------
# Chinese
# ------------------------------------------------------------------------------------------

CN_NUMERAL_CHARS = "零〇一二两三四五六七八九十百千"
"""The common Chinese numeral characters (no 万/亿, no financial forms): for regex classes."""

_CN_BASIC_DIGITS = {
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
_CN_BASIC_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_DIGITS: dict[str, int] = {
    c: d
    for d, chars in enumerate(
        ("零〇", "一壹", "二贰两貳", "三叁參", "四肆", "五伍", "六陆陸", "七柒", "八捌", "九玖")
    )
    for c in chars
}
_CN_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_CN_LARGE = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
_ZH_DIGITS = "零一二三四五六七八九"
_ZH_FINANCIAL_DIGITS = "零壹贰叁肆伍陆柒捌玖"


def chinese_to_int(
    text: str,
    *,
    extended: bool = True,
    digit_string: bool = True,
    bare_units: bool = False,
    arabic: bool = False,
) -> int | None:
    """Value of a Chinese numeral: '二十八' → 28, '一百零一' → 101, '壹仟贰佰万' → 12000000.

    None for an empty string or any character that is not part of a numeral. Options:

    * `extended` (default): also the financial forms (壹贰叁…, 拾佰仟) and the group units
      万/萬 and 亿/億. False: only 零〇一二两三四五六七八九 and 十百千 (`CN_NUMERAL_CHARS`).
    * `digit_string` (default): a run of bare digits is read digit by digit ('二〇二四' →
      2024). False: each digit replaces the one before ('二〇二四' → 4).
    * `bare_units`: a unit without a digit before it counts as one of it ('百' → 100). False
      (default): only 十/拾 does ('十五' → 15, '百' → 0).
    * `arabic`: a string of digits (`str.isdigit`) is read as an Arabic number ('14' → 14).
    """
    if arabic and text.isdigit():
        return int(text)
    if not text:
        return None
    digits = _CN_DIGITS if extended else _CN_BASIC_DIGITS
    units = _CN_UNITS if extended else _CN_BASIC_UNITS
    if digit_string and all(c in digits for c in text):
        return int("".join(str(digits[c]) for c in text))
    result = wan = section = num = 0
    for ch in text:
        if ch in digits:
            num = digits[ch]
        elif ch in units:
            unit = units[ch]
            if num == 0 and (bare_units or unit == 10):
                num = 1
            section += num * unit
            num = 0
        elif extended and ch in _CN_LARGE:
            if _CN_LARGE[ch] == 10**4:
                wan += (section + num) * 10**4
            else:
                result += (wan + section + num) * 10**8
                wan = 0
            section = num = 0
        else:
            return None
    return result + wan + section + num


def chinese_to_decimal(text: str) -> Decimal | None:
    """Value of a Chinese numeral with an optional decimal part after 点.

    Common or financial forms: '壹仟贰佰万' → 12000000, '一点五' → 1.5, '二〇二四' → 2024.
    None if the text is not such a numeral.
    """
    whole, _, frac = text.partition("点")
    value = chinese_to_int(whole)
    if value is None:
        return None
    if not frac:
        return Decimal(value)
    if not all(c in _CN_DIGITS for c in frac):
        return None
    return Decimal(f"{value}.{''.join(str(_CN_DIGITS[c]) for c in frac)}")


def int_to_cjk_counting(
    n: int,
    digits: str = _ZH_DIGITS,
    units: str = "十百千",
    big_units: str = "万亿",
    *,
    zero: bool = True,
    one_before_units: bool = True,
) -> str:
    """CJK counting numerals for 0 <= n < 10**12: 11 → 十一, 101 → 一百零一, 10001 → 一万零一.

    `digits` are the ten digit characters (0..9), `units` the in-group units for 10/100/1000
    ("十百千"), `big_units` the group units for 10^4 and 10^8 ("万亿"). Japanese style
    (`zero=False, one_before_units=False`) writes 百一 for 101 and omits 一 before 十/百/千.
    Raises ValueError for n < 0.
    """
    if n < 0:
        raise ValueError(f"no counting numeral for negative number {n}")
    if n == 0:
        return digits[0]
    groups: list[int] = []
    while n:
        n, group = divmod(n, 10000)
        groups.append(group)
    out: list[str] = []
    pending_zero = False
    for group_index in range(len(groups) - 1, -1, -1):
        group = groups[group_index]
        if group == 0:
            pending_zero = bool(out)
            continue
        for position in range(3, -1, -1):
            digit = group // 10**position % 10
            if digit == 0:
                pending_zero = pending_zero or bool(out)
                continue
            if pending_zero and zero:
                out.append(digits[0])
            pending_zero = False
            unit = units[position - 1] if position else ""
            if digit != 1 or not unit or one_before_units:
                out.append(digits[digit])
            out.append(unit)
        if group_index:
            out.append(big_units[group_index - 1])
    text = "".join(out)
    if one_before_units and text.startswith(digits[1] + units[0]) and units[0] == "十":
        text = text[1:]  # 10 -> 十, 12 -> 十二, but 110 -> 一百一十
    return text


def int_to_chinese(n: int, *, financial: bool = False) -> str:
    """Chinese counting numeral for 0 <= n < 10**12: 28 → 二十八, 101 → 一百零一, 10 → 十.

    With `financial`, the anti-fraud forms: 1200 → 壹仟贰佰. Raises ValueError for n < 0.
    """
    if financial:
        return int_to_cjk_counting(n, _ZH_FINANCIAL_DIGITS, "拾佰仟", "万亿")
    return int_to_cjk_counting(n)
