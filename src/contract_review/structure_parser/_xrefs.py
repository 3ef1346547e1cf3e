"""Cross-references in running text: 'Sub-Clause 20.1', 'Section 3(b)', '第十四条', '第3.2条'."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from contract_review.text.numerals import CN_NUMERAL_CHARS, chinese_to_int, roman_to_int

_NUM = r"\d{1,3}(?:\.\d{1,3})*(?:[ ]?\([a-zA-Z0-9]{1,5}\))*"
_EN_REF = re.compile(
    r"(?P<kw>(?:(?:Sub-?[Cc]lauses?|SUB-?CLAUSES?|[Cc]lauses?|CLAUSES?|[Ss]ections?|"
    r"SECTIONS?|[Aa]rticles?|ARTICLES?|[Pp]aragraphs?|PARAGRAPHS?))[ \t\u00a0]+|§§?[ \t\u00a0]*)"
    r"(?P<num>" + _NUM + r"|[IVXLC]{1,6}\b)"
)
_EN_MORE = re.compile(r"[ \t]*(?:,|and|or|to|through|and/or)[ \t]+(?P<num>" + _NUM + r")")
_EXTERNAL = re.compile(
    r"[ \t]*(?:of|under|in)[ \t]+(?:the[ \t]+)?(?:[A-Z][\w.&'-]*[ \t]+){0,8}"
    r"(?:Act|Code|Law|Regulations?|Rules|Statutes?|Convention|Treaty|U\.S\.C\.?|USC|CFR|Tariff)\b"
)
_ANNEX_OF = re.compile(
    r"[ \t]*of[ \t]+(?:the[ \t]+)?(?P<kw>Exhibit|Schedule|Appendix|Annex|Attachment)[ \t]+"
    r"(?P<id>[A-Z0-9]{1,3})\b"
)
_ZH_REF = re.compile(
    r"第[ \t]*(?P<num>[" + CN_NUMERAL_CHARS + r"\d]{1,6}(?:\.\d{1,3})*)[ \t]*(?P<unit>条|款|项|章)"
)


@dataclass(frozen=True, slots=True)
class RawRef:
    """A reference found in the text, before validation."""

    target: str
    text: str
    start: int
    end: int


def _canonical(num: str) -> str:
    num = num.replace(" ", "")
    if num.isalpha():
        v = roman_to_int(num)
        return str(v) if v else num
    return num


def find_references(text: str, heading_starts: set[int]) -> Iterator[RawRef]:
    """References to clauses, minus clause headings and statute references."""
    yield from _english(text, heading_starts)
    yield from _chinese(text, heading_starts)


_KEYWORDS = ("clause", "section", "article", "paragraph", "§")


def _keyword_matches(text: str) -> Iterator[re.Match[str]]:
    """`_EN_REF` matches, found by plain substring search first (much faster than a regex scan)."""
    low = text.lower()
    starts: set[int] = set()
    for kw in _KEYWORDS:
        i = low.find(kw)
        while i != -1:
            if low.endswith("sub-", 0, i):
                starts.add(i - 4)
            elif low.endswith("sub", 0, i):
                starts.add(i - 3)
            else:
                starts.add(i)
            i = low.find(kw, i + 1)
    for pos in sorted(starts):
        m = _EN_REF.match(text, pos)
        if m is not None:
            yield m


def _english(text: str, heading_starts: set[int]) -> Iterator[RawRef]:
    for m in _keyword_matches(text):
        prev = text[m.start() - 1 : m.start()]
        if m.start() in heading_starts or (prev and (prev.isalnum() or prev == "-")):
            continue
        after = m.end()
        refs = [(m.group("num"), m.start(), m.end())]
        pos = after
        while (more := _EN_MORE.match(text, pos)) is not None:
            refs.append((more.group("num"), more.start("num"), more.end("num")))
            pos = more.end()
        if _EXTERNAL.match(text, pos):
            continue
        annex = _ANNEX_OF.match(text, pos)
        prefix = f"{annex.group('kw').title()} {annex.group('id')}/" if annex else ""
        for num, s, e in refs:
            yield RawRef(prefix + _canonical(num), text[s:e], s, e)


def _chinese(text: str, heading_starts: set[int]) -> Iterator[RawRef]:
    for m in _ZH_REF.finditer(text):
        if m.start() in heading_starts:
            continue
        num, unit = m.group("num"), m.group("unit")
        if "." in num:
            target = num
        else:
            v = chinese_to_int(
                num, extended=False, digit_string=False, bare_units=True, arabic=True
            )
            if not v:
                continue
            target = f"第{v}章" if unit == "章" else str(v)
        yield RawRef(target, m.group(), m.start(), m.end())
