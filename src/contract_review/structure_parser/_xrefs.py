"""Cross-references in running text: 'Sub-Clause 20.1', 'Section 3(b)', '第十四条', '第3.2条'.

A reference to a statute ('Section 365(n) of the Bankruptcy Code', '42 U.S.C. § 1320a-7',
'Section 2870 of the California Labor Code') or to another agreement ('Section 4.1 of the
Separation Agreement') is not a reference to this contract's clauses and is not returned.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from contract_review.text.numerals import CN_NUMERAL_CHARS, chinese_to_int, roman_to_int

# A clause number, or a statute's section number ('2870', '1320a-7b', '503A', '5-1401'),
# told apart after the match; then its items: '(b)(i)', ' (e) (v)', '.c', 'b)'.
_NUM = (
    r"\d{1,5}[A-Za-z]?(?:-\d{1,5}(?:\.\d{1,3})?[A-Za-z]?)*(?:\.\d{1,3})*"
    r"(?:[ ]?\([a-zA-Z0-9]{1,5}\))*"
)
_EN_REF = re.compile(
    r"(?P<kw>(?:(?:Sub-?[Cc]lauses?|SUB-?CLAUSES?|[Cc]lauses?|CLAUSES?|[Ss]ections?|"
    r"SECTIONS?|[Aa]rticles?|ARTICLES?|[Pp]aragraphs?|PARAGRAPHS?))[ \t\u00a0]+|§§?[ \t\u00a0]*)"
    r"(?P<num>" + _NUM + r"|[IVXLC]{1,6}\b)"
)
_TITLE_AFTER = r"(?:[ \t]+\([A-Z][^()\n]{2,80}\))?"  # 'Section 4.4 (Indemnification)'
_EN_MORE = re.compile(
    _TITLE_AFTER + r"[ \t]*(?:,|and|or|to|through|and/or)[ \t]+"
    r"(?P<ref>(?:(?:Sections?|SECTIONS?|Articles?|ARTICLES?|Clauses?|CLAUSES?)[ \t]+)?"
    r"(?P<num>" + _NUM + r"|\([a-zA-Z0-9]{1,5}\)))"
)
# What follows a statute's or another document's section: 'of the Bankruptcy Code', 'of the
# Food and Drug Administration Amendments Act of 2007', 'of Directive 2001/83/EC', 'of 17
# C.F.R.', 'of the FD&C Act', 'of the PHSA', 'of the Separation Agreement'.
_NAME_WORD = r"(?:[A-Z][\w.&'/-]*|\d[\w./-]*),?"
_EXTERNAL = re.compile(
    _TITLE_AFTER + r"[ \t]*(?:of|under|in)[ \t]+(?:the[ \t]+)?(?:U\.S\.[ \t]+)?"
    r"(?:" + _NAME_WORD + r"[ \t]+(?:(?:and|of|for|on|the|&)[ \t]+)*){0,9}"
    r"(?P<head>Act|Code|Law|Laws|Regulations?|Rules|Statutes?|Convention|Treaty|Directive|"
    r"Order|U\.S\.C\.?|USC|C\.F\.R\.?|CFR|Tariff|(?P<doc>[A-Z][\w&'-]*[ \t]+)?"
    r"(?:Agreement|Contract|Lease|License|Licence|Indenture|Note|Plan|Charter|Bylaws))\b"
    r"|" + _TITLE_AFTER + r"[ \t]*(?:of|under|in)[ \t]+the[ \t]+(?P<acronym>[A-Z][A-Z&]{1,7})\b"
)
# '42 U.S.C. § 1320a-7', '41 C.F.R. §§ 60-1.4', '15 U.S.C. SECTIONS 1051'.
_CODE_BEFORE = re.compile(r"(?:U\.S\.C\.?|USC|C\.F\.R\.?|CFR)[ \t]*$")
_ANNEX_OF = re.compile(
    r"[ \t]*of[ \t]+(?:the[ \t]+|this[ \t]+)?(?P<kw>Exhibit|Schedule|Appendix|Annex|Attachment)"
    r"[ \t]+(?P<id>[A-Z0-9]{1,3})\b"
)
_STATUTE_NUMBER = re.compile(r"^\d{4,}|^\d{3,}[A-Za-z]|-")
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


def find_references(
    text: str, heading_starts: set[int], own_names: frozenset[str] = frozenset()
) -> Iterator[RawRef]:
    """References to clauses, minus clause headings and references to statutes and other
    documents; `own_names` are the names the contract calls itself ('supply agreement', an
    acronym such as 'ca'), lower-cased: 'Section 4 of the Supply Agreement' inside the Supply
    Agreement is internal."""
    yield from _english(text, heading_starts, own_names)
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
    last_end = -1
    for pos in sorted(starts):
        if pos < last_end:
            continue  # '§§' or 'Sections' already read from an earlier start
        m = _EN_REF.match(text, pos)
        if m is not None:
            last_end = m.end()
            yield m


def _external(text: str, start: int, pos: int, own_names: frozenset[str]) -> bool:
    """Whether the reference starting at `start` and read up to `pos` points outside."""
    if _CODE_BEFORE.search(text, max(0, start - 12), start):
        return True
    m = _EXTERNAL.match(text, pos)
    if m is None:
        return False
    if m.group("acronym"):
        return m.group("acronym").casefold() not in own_names
    if m.group("doc") is not None or m.group("head") in ("Agreement", "Contract"):
        name = re.sub(r"\s+", " ", m.group().strip()).casefold()
        name = re.sub(r"^(?:\([^()]*\) )?(?:of|under|in) (?:the )?", "", name)
        return name not in own_names and name != "agreement"
    return True


def _english(text: str, heading_starts: set[int], own_names: frozenset[str]) -> Iterator[RawRef]:
    read_to = 0  # end of the last list read ('Sections 2.1 and Section 2.3')
    for m in _keyword_matches(text):
        if m.start() < read_to:
            continue
        prev = text[m.start() - 1 : m.start()]
        if m.start() in heading_starts or (prev and (prev.isalnum() or prev == "-")):
            continue
        refs = [(m.group("num"), m.start(), m.end())]
        pos = m.end()
        while (more := _EN_MORE.match(text, pos)) is not None:
            if more.group("num").startswith("(") and "(" not in refs[-1][0]:
                break  # 'Article IX and (ii) the …': a list's next item, not 'Section 3(a) and (b)'
            refs.append((more.group("num"), more.start("ref"), more.end("num")))
            pos = more.end()
        read_to = pos
        if _external(text, m.start(), pos, own_names):
            continue
        if any(_STATUTE_NUMBER.search(num) for num, _, _ in refs):
            continue  # 'Section 2870', '§ 1320a-7': a code's section, not a clause
        annex = _ANNEX_OF.match(text, pos)
        prefix = f"{annex.group('kw').title()} {annex.group('id')}/" if annex else ""
        base = ""
        for num, s, e in refs:
            if num.startswith("("):
                num = base + num  # 'Sections 306(a) and (k)': (k) of the same section
            else:
                base = re.sub(r"[ ]?\(.*", "", num)
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
