"""Recognising a clause number at a given position of the text.

A *token* is the numbering that opens a clause: `1.1`, `Sub-Clause 20.1`, `ARTICLE IV`, `(a)`,
`第十四条`, `（一）`, `Exhibit A`... One token may be read several ways — `(i)` is the ninth letter or
Roman one — so a token carries alternatives; the tree builder picks the one that fits the
surrounding numbering.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from contract_review.models import ClauseKind
from contract_review.text import HAN
from contract_review.text.numerals import (
    CN_NUMERAL_CHARS,
    chinese_to_int,
    english_words_to_int,
    letters_to_int,
    roman_to_int,
)

# Styles whose numbers form decimal paths ("Clause 4" and "4.2" belong to one numbering).
PATH_STYLES = frozenset(
    {
        "dec",
        "dec1",
        "kw:article",
        "kw:section",
        "kw:clause",
        "kw:subclause",
        "kw:paragraph",
        "cn_article",
    }
)
GROUP_STYLES = frozenset({"cn_chapter", "cn_section", "kw:part", "kw:chapter"})


@dataclass(frozen=True, slots=True)
class Alt:
    """One reading of a token."""

    style: str
    value: int
    label: str
    path: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Token:
    """A clause number found at a position of the text."""

    start: int
    """Where the clause starts (markdown decoration included)."""
    number_start: int
    number_end: int
    end: int
    """Just past the number and its punctuation."""
    alts: tuple[Alt, ...]
    keyword: bool
    """Whether an explicit word marks it (Clause, Section, 第…条): strong evidence."""
    kind: ClauseKind


_KEYWORDS = {
    "article": "kw:article",
    "section": "kw:section",
    "clause": "kw:clause",
    "sub-clause": "kw:subclause",
    "subclause": "kw:subclause",
    "paragraph": "kw:paragraph",
    "part": "kw:part",
    "chapter": "kw:chapter",
    "schedule": "annex",
    "exhibit": "annex",
    "appendix": "annex",
    "annex": "annex",
    "attachment": "annex",
    "addendum": "annex",
    "annexure": "annex",
}
_MD_PREFIX = re.compile(r"(?:#{1,6}[ \t]+)?(?:\*\*|__)?")
_KW_RE = re.compile(
    r"(?P<kw>[Ss][Uu][Bb]-?[Cc][Ll][Aa][Uu][Ss][Ee]|[A-Za-z]+)[ \t\u00a0]+"
    r"(?P<num>\d{1,3}(?:\.\d{1,3}){0,5}|[IVXLCDMivxlcdm]{1,7}|[A-Z](?![A-Za-z])|[A-Z]{3,9})"
    r"(?P<punct>[.:)]?)"
)
_SECT_RE = re.compile(r"§{1,2}[ \t]*(?P<num>\d{1,3}(?:\.\d{1,3}){0,5})(?P<punct>\.?)")
_CN_RE = re.compile(
    r"第[ \t]*(?P<num>[" + CN_NUMERAL_CHARS + r"\d]{1,6})[ \t]*(?P<unit>章|编|部分|节|条)"
)
_CN_ANNEX_RE = re.compile(
    r"(?P<kw>附件|附录|附表)[ \t]*(?P<num>[" + CN_NUMERAL_CHARS + r"\d]{0,4})"
)
_DEC_RE = re.compile(r"(?P<num>\d{1,3}(?:\.\d{1,3}){0,5})(?P<punct>\.(?!\d)|\)|、|．)?")
_PAREN_RE = re.compile(
    r"[(（][ \t]?(?P<num>[A-Za-z]{1,4}|\d{1,3}|[" + CN_NUMERAL_CHARS + r"]{1,4})[ \t]?[)）]"
)
_CN_ENUM_RE = re.compile(r"(?P<num>[" + CN_NUMERAL_CHARS + r"]{1,4})[、．]")
_LETTER_RE = re.compile(r"(?P<num>[A-Za-z]{1,2}|[IVXivx]{1,5})(?P<punct>[.)])")

_CJK = HAN
# Words that follow a number that is a quantity, not a clause number.
_QUANTITY_WORDS = frozenset(
    [
        "days",
        "day",
        "business",
        "calendar",
        "working",
        "months",
        "month",
        "years",
        "year",
        "weeks",
        "week",
        "hours",
        "hour",
        "minutes",
        "percent",
        "per",
        "million",
        "billion",
        "thousand",
        "dollars",
        "usd",
        "eur",
        "gbp",
        "rmb",
        "times",
        "x",
    ]
)


def _next_char(text: str, pos: int) -> str:
    return text[pos] if pos < len(text) else ""


def _is_boundary(text: str, pos: int) -> bool:
    """A clause number must be followed by whitespace, end of text, or a CJK character."""
    ch = _next_char(text, pos)
    return ch == "" or ch in " \t\n\u3000\u00a0" or bool(_CJK.match(ch))


def _run_in(text: str, num: str, punct: str, end: int) -> bool:
    """'1.PROMOTION OFFER:', '11.1Warranty.': a dotted number run into a capitalised word, as
    text extracted from PDF loses the tab after it. Two letters at least ('2.B' is no word)."""
    if "." not in num and punct != ".":
        return False
    word = text[end : end + 2]
    return len(word) == 2 and word[0].isupper() and word[1].isalpha() and word.isascii()


def _skip_space(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] in " \t\u3000\u00a0":
        pos += 1
    return pos


def _first_word(text: str, pos: int) -> str:
    pos = _skip_space(text, pos)
    end = pos
    n = len(text)
    while end < n and end - pos < 20 and (text[end].isalpha() or text[end] == "'"):
        end += 1
    return text[pos:end]


def _starts_lower(text: str, pos: int) -> bool:
    pos = _skip_space(text, pos)
    ch = _next_char(text, pos)
    return ch.isascii() and ch.islower()


def _path_of(num: str) -> tuple[int, ...]:
    path = tuple(int(p) for p in num.split("."))
    # "1.0 DEFINITIONS" heads clause 1 (whose sub-clauses are 1.1, 1.2...).
    while len(path) > 1 and path[-1] == 0:
        path = path[:-1]
    return path


def match_token(text: str, pos: int, *, allow_items: bool = True) -> Token | None:
    """The clause-number token starting at `pos`, or None."""
    md = _MD_PREFIX.match(text, pos)
    p = md.end() if md else pos
    ch = _next_char(text, p)
    if not ch:
        return None
    if ch.isdigit():
        return _match_decimal(text, pos, p)
    if ch in "(（":
        return _match_paren(text, pos, p) if allow_items else None
    if ch == "第":
        return _match_cn(text, pos, p)
    if ch == "§":
        return _match_sect(text, pos, p)
    if ch in "附":
        return _match_cn_annex(text, pos, p)
    if ch in CN_NUMERAL_CHARS:
        return _match_cn_enum(text, pos, p) if allow_items else None
    if ch.isascii() and ch.isalpha():
        return _match_keyword(text, pos, p) or (
            _match_letter(text, pos, p) if allow_items else None
        )
    return None


def _match_decimal(text: str, start: int, p: int) -> Token | None:
    m = _DEC_RE.match(text, p)
    if not m:
        return None
    num, punct = m.group("num"), m.group("punct") or ""
    end = m.end()
    nxt = _next_char(text, end)
    if nxt.isdigit() or nxt in "%,/-$":
        return None
    if not _is_boundary(text, end) and not _run_in(text, num, punct, end):
        return None
    word = _first_word(text, end).lower()
    if word in _QUANTITY_WORDS:
        return None
    path = _path_of(num)
    if len(path) == 1:
        if "." in num and punct not in ("", "."):
            return None
        if punct == ")":
            alt = Alt("rparen_num", path[0], num)
            return Token(start, p, end, end, (alt,), False, ClauseKind.ITEM)
        if punct in ("、", "．"):
            alt = Alt("dun_num", path[0], num)
            return Token(start, p, end, end, (alt,), False, ClauseKind.CLAUSE)
        if not punct:
            # "1 DEFINITIONS": a bare number is a clause number only before a capitalised word.
            after = _skip_space(text, end)
            if after == end or path[0] > 300:
                return None
            if after - end > 8:
                return None  # '1' and a wide gap before 'EXHIBIT 10.17': a page number
            ch = _next_char(text, after)
            if not (ch.isupper() or _CJK.match(ch)):
                return None
        if path[0] == 0:
            return None
        alt = Alt("dec1", path[0], str(path[0]), path)
        return Token(start, p, end, end, (alt,), False, ClauseKind.CLAUSE)
    if punct == ")":
        return None
    return Token(start, p, end, end, (Alt("dec", path[-1], num, path),), False, ClauseKind.CLAUSE)


def _match_paren(text: str, start: int, p: int) -> Token | None:
    m = _PAREN_RE.match(text, p)
    if not m or not _is_boundary(text, m.end()):
        return None
    num = m.group("num")
    alts: list[Alt] = []
    if num.isdigit():
        alts.append(Alt("paren_num", int(num), num))
    elif num[0] in CN_NUMERAL_CHARS:
        v = chinese_to_int(num, extended=False, digit_string=False, bare_units=True, arabic=True)
        if v:
            alts.append(Alt("paren_cn", v, str(v)))
    else:
        lower = num.islower()
        if not (num.islower() or num.isupper()):
            return None
        r = roman_to_int(num)
        a = letters_to_int(num)
        # Try the letter reading first for one letter, the Roman one for longer tokens.
        if a is not None and len(num) == 1:
            alts.append(Alt("paren_alpha" if lower else "paren_ALPHA", a, num))
        if r is not None and r < 40:
            alts.append(Alt("paren_roman" if lower else "paren_ROMAN", r, num))
        if a is not None and len(num) > 1:
            alts.append(Alt("paren_alpha" if lower else "paren_ALPHA", a, num))
    if not alts:
        return None
    return Token(start, p, m.end(), m.end(), tuple(alts), False, ClauseKind.ITEM)


def _match_cn(text: str, start: int, p: int) -> Token | None:
    m = _CN_RE.match(text, p)
    if not m:
        return None
    v = chinese_to_int(
        m.group("num"), extended=False, digit_string=False, bare_units=True, arabic=True
    )
    if not v:
        return None
    unit = m.group("unit")
    end = m.end()
    nxt = _next_char(text, end)
    if nxt in "第款项":
        # "第三条第二款" is a reference, not a heading.
        return None
    if unit == "条":
        alt = Alt("cn_article", v, str(v), (v,))
        return Token(start, p, end, end, (alt,), True, ClauseKind.CLAUSE)
    if unit == "节":
        return Token(start, p, end, end, (Alt("cn_section", v, str(v)),), True, ClauseKind.CHAPTER)
    return Token(start, p, end, end, (Alt("cn_chapter", v, str(v)),), True, ClauseKind.CHAPTER)


def _match_cn_annex(text: str, start: int, p: int) -> Token | None:
    m = _CN_ANNEX_RE.match(text, p)
    if not m:
        return None
    num = m.group("num")
    v = (
        chinese_to_int(num, extended=False, digit_string=False, bare_units=True, arabic=True)
        if num
        else 1
    )
    if v is None:
        return None
    label = m.group("kw") + (str(v) if num else "")
    return Token(start, p, m.end(), m.end(), (Alt("annex", v, label),), True, ClauseKind.ANNEX)


def _match_sect(text: str, start: int, p: int) -> Token | None:
    m = _SECT_RE.match(text, p)
    if not m or not _is_boundary(text, m.end()):
        return None
    num = m.group("num")
    path = _path_of(num)
    style = "dec" if len(path) > 1 else "kw:section"
    alt = Alt(style, path[-1], num, path)
    return Token(start, p, m.end(), m.end(), (alt,), True, ClauseKind.CLAUSE)


def _word_number(word: str) -> int | None:
    """'ONE' → 1 … 'TWENTY' → 20 (as in 'ARTICLE ONE'): a single number word up to twenty."""
    v = english_words_to_int(word) if word.isascii() and word.isalpha() else None
    return v if v is not None and 1 <= v <= 20 else None


def _match_keyword(text: str, start: int, p: int) -> Token | None:
    m = _KW_RE.match(text, p)
    if not m:
        return None
    kw_raw = m.group("kw")
    # Keywords are Title case or upper case ("Section", "SECTION"), never "section" mid-sentence.
    if not (kw_raw[0].isupper()):
        return None
    style = _KEYWORDS.get(kw_raw.lower())
    if style is None:
        return None
    num = m.group("num")
    end = m.end()
    if not _is_boundary(text, end) and _next_char(text, end) not in "-–—:":
        return None
    kind = ClauseKind.CLAUSE
    if style == "annex":
        kind = ClauseKind.ANNEX
    elif style in GROUP_STYLES:
        kind = ClauseKind.CHAPTER
    if num[0].isdigit():
        path = _path_of(num)
        if style == "annex":
            alt = Alt("annex", path[0], f"{_title(kw_raw)} {num}")
        elif len(path) > 1:
            alt = Alt("dec", path[-1], num, path)
        else:
            alt = Alt(style, path[0], str(path[0]), path if style in PATH_STYLES else None)
        return Token(start, p, end, end, (alt,), True, kind)
    if style == "annex":
        v = letters_to_int(num) if len(num) == 1 else roman_to_int(num)
        if v is None:
            return None
        return Token(start, p, end, end, (Alt("annex", v, f"{_title(kw_raw)} {num}"),), True, kind)
    v = roman_to_int(num) or _word_number(num)
    if v is None:
        return None
    word_path: tuple[int, ...] | None = (v,) if style in PATH_STYLES else None
    return Token(start, p, end, end, (Alt(style, v, str(v), word_path),), True, kind)


def _title(word: str) -> str:
    return word[:1].upper() + word[1:].lower()


def _match_letter(text: str, start: int, p: int) -> Token | None:
    m = _LETTER_RE.match(text, p)
    if not m:
        return None
    end = m.end()
    # "A. AUTHORITY", "a) the Buyer": the letter must be followed by a space, not "U.S."
    if _next_char(text, end) not in (" ", "\t", "\u00a0"):
        return None
    num, punct = m.group("num"), m.group("punct")
    if not (num.islower() or num.isupper()):
        return None
    lower = num.islower()
    alts: list[Alt] = []
    a = letters_to_int(num) if len(num) == 1 or len(set(num)) == 1 else None
    r = roman_to_int(num)
    suffix = "dot" if punct == "." else "rparen"
    if a is not None and len(num) == 1:
        alts.append(Alt(f"{suffix}_{'alpha' if lower else 'ALPHA'}", a, num))
    if r is not None and r < 40:
        alts.append(Alt(f"{suffix}_{'roman' if lower else 'ROMAN'}", r, num))
    if not alts:
        return None
    return Token(
        start, p, end, end, tuple(alts), False, ClauseKind.ITEM if lower else ClauseKind.CLAUSE
    )


def _match_cn_enum(text: str, start: int, p: int) -> Token | None:
    m = _CN_ENUM_RE.match(text, p)
    if not m:
        return None
    v = chinese_to_int(
        m.group("num"), extended=False, digit_string=False, bare_units=True, arabic=True
    )
    if not v:
        return None
    alt = Alt("cn_enum", v, str(v))
    return Token(start, p, m.end(), m.end(), (alt,), False, ClauseKind.CLAUSE)
