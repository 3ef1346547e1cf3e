"""Defined terms: English '"X" means …', glossary tables, Chinese 'X指/是指/系指 …'."""

from __future__ import annotations

import re
from collections.abc import Iterator

from contract_review.models import DefinedTerm
from contract_review.text import ZH_SHORT_NAME

from ._tokens import match_token

# '"X" means', '"X" shall mean', '"X": means', and a glossary's '"X"' on its own line with
# 'Means …' or 'Shall mean …' under it.
# One pattern per opening quote: a pattern that opens with one literal character is scanned
# for at C speed, one that opens with a character class is tried at every position.
_EN_DEF = tuple(
    re.compile(
        q + r"(?P<term>[A-Z0-9][^\"”\n]{0,80}?)[”\"][ \t]*(?:\([^)\n]{0,60}\)[ \t]*)?[,:]?"
        r"[ \t]*(?:\n[ \t]*){0,4}"
        r"(?P<verb>(?i:shall\s+mean|means|mean|shall\s+include|includes|is\s+defined\s+as|"
        r"shall\s+have\s+the\s+meaning|has\s+the\s+meaning|shall\s+refer\s+to|refers\s+to))"
        r"\b[ \t:,]*",
    )
    for q in ('"', "“")
)
# A glossary line whose term is not quoted: '1.2 Acceptance Date - the first Business Day
# after …', 'Territory: means the United States', 'Fees – all amounts payable …'. The
# meaning starts in lower case (or with 'means'), which a heading's sentence does not.
_VERB = r"(?:[Mm]eans|MEANS|[Ss]hall\s+mean|SHALL\s+MEAN)\b"
_TERM_WORD = r"(?!" + _VERB + r")[A-Z0-9][\w'’&/]*(?:-[\w'’&/]+)*"
_LINE_DEF = re.compile(
    r"^[ \t]*(?:(?:Section|SECTION|Article|ARTICLE)[ \t]+)?(?:\d{1,3}(?:\.\d{1,3}){0,3}\.?[ \t]+)?"
    r"(?P<term>(?!" + _VERB + r")[A-Z][\w'’&/]*(?:-[\w'’&/]+)*"
    r"(?:[ \t]+(?:(?:of|and|or|for|the|to|in|on)[ \t]+)?" + _TERM_WORD + r"){0,6})"
    r"(?:[ \t]*:?[ \t]*(?=" + _VERB + r")|[ \t]*[-–—][ \t]+(?=[a-z(][^\n]{20}))",
    re.MULTILINE,
)
# '"Affiliate"' alone on its line and its meaning in the paragraph below.
_TERM_LINE = re.compile(
    r"^[ \t]*(?:\d{1,3}(?:\.\d{1,3}){0,3}\.?[ \t]+)?[“\"](?P<term>[A-Z0-9][^\"”\n]{0,80}?)[”\"]"
    r"[ \t]*\n(?:[ \t]*\n){0,4}[ \t]*(?=[A-Za-z(])",
    re.MULTILINE,
)
_ABBREVIATIONS = frozenset(
    [
        "inc",
        "ltd",
        "co",
        "corp",
        "no",
        "nos",
        "u.s",
        "e.g",
        "i.e",
        "etc",
        "mr",
        "mrs",
        "ms",
        "dr",
        "st",
        "s.a",
        "l.p",
        "n.v",
        "b.v",
        "p.c",
        "l.l.c",
        "sec",
        "art",
        "para",
        "cl",
        "vs",
        "approx",
    ]
)
# Where a definition ends: a full stop before the next sentence or the line end, a list
# semicolon at the end of a line ("; and"), or a blank line — not a plain sentence end.
_DEFINITION_END = re.compile(
    r"\.(?=[ \t\u00a0]+[A-Z“\"(]|[ \t]*\n|[ \t]*$)|;[ \t]*(?:and|or)?[ \t]*(?=\n|$)|\n[ \t]*\n"
)
_MAX_DEF = 2000

_ZH_DEF = re.compile(
    r"[ \t\u3000]*(?:本(?:合同|协议)(?:中|所称)?[，,]?)?[“\"「『]?"
    r"(?P<term>[^“”\"「」『』，,。：:；;\s]{1,30}?)[”\"」』]?[ \t]*[，,：:]?[ \t]*"
    r"(?P<verb>是指|系指|意指|指)(?![定示导令明出派标挥南引])"
)
_TABLE_SEP = re.compile(r"^[\s|:\-]+$")
_GLOSSARY_HEAD = re.compile(r"term|defined|术语|名词|词语|用语", re.IGNORECASE)
_GLOSSARY_MEANING = re.compile(r"mean|definition|description|含义|定义|释义|解释", re.IGNORECASE)


def find_definitions(text: str) -> Iterator[DefinedTerm]:
    """All definitions in the text, in order (clause ids are filled in by the caller); a
    term's "means" definition comes before the parenthesis that names it in passing."""
    yield from _english(text)
    yield from _chinese(text)
    yield from _glossary(text)
    yield from _glossary_lines(text)
    yield from _inline(text)


def _each(patterns: tuple[re.Pattern[str], ...], text: str) -> list[re.Match[str]]:
    """The matches of every pattern, in text order."""
    return sorted((m for p in patterns for m in p.finditer(text)), key=lambda m: m.start())


def _glossary_lines(text: str) -> Iterator[DefinedTerm]:
    """Glossary entries without 'means': a quoted term on its own line above its meaning,
    and an unquoted term with a dash or colon before a meaning in lower case."""
    # Only lines holding a separator or a closing quote at their end are tried: a scan of
    # every line start would cost more than the rest of the definitions together.
    candidates = (
        (_TERM_LINE, "quoted", _line_starts(text, ('"\n', "”\n", '" \n', "” \n"))),
        (_LINE_DEF, "glossary_line", _line_starts(text, _SEPARATORS)),
    )
    for pattern, source, starts in candidates:
        for line_start in starts:
            m = pattern.match(text, line_start)
            if m is None:
                continue
            start = m.end()
            end = _sentence_end(text, start)
            definition = _LEADING_VERB.sub("", text[start:end].strip().rstrip(".;").strip())
            term = m.group("term").strip()
            if definition and len(term) > 2 and term.casefold() not in _NOT_TERMS:
                yield DefinedTerm(
                    term=term,
                    definition=definition,
                    start_offset=m.start("term"),
                    end_offset=end,
                    source=source,
                )


_LEADING_VERB = re.compile(r"^(?:means|shall\s+mean)\b[ \t:,]*", re.IGNORECASE)
_SEPARATORS = ("- ", "– ", "— ", "mean", "Mean", "MEAN")


def _line_starts(text: str, needles: tuple[str, ...]) -> list[int]:
    """Offsets of the lines holding any of `needles` (plain substring search: fast)."""
    starts: set[int] = set()
    for needle in needles:
        i = text.find(needle)
        while i != -1:
            starts.add(text.rfind("\n", 0, i) + 1)
            i = text.find(needle, i + 1)
    return sorted(starts)


_NOT_TERMS = frozenset(["note", "notes", "provided", "attention", "example", "whereas"])


# 'the initial term (the "Initial Term")', 'Acme Ltd ("Acme")', '(hereinafter referred to as
# "Seller")', '(each a "Party" and together the "Parties")', '（以下简称“甲方”）'
_PAREN = tuple(re.compile(re.escape(p) + r"([^()（）\n]{2,120})[)）]") for p in "(（")
_QUOTED = re.compile(r"[“\"]\s*([A-Z0-9][^\"“”\n]{0,60}?)\s*[”\"]")
_LINKING = frozenset(  # the only words a defining parenthesis holds besides its terms
    [
        "the",
        "a",
        "an",
        "each",
        "any",
        "together",
        "collectively",
        "jointly",
        "severally",
        "individually",
        "hereinafter",
        "herein",
        "hereafter",
        "referred",
        "to",
        "as",
        "called",
        "named",
        "known",
        "also",
        "and",
        "or",
        "respectively",
    ]
)
_ZH_SHORT = re.compile(
    r"^\s*" + ZH_SHORT_NAME + r"\s*[：:]?\s*[“\"]?([^”\"\s，,。；]{1,12}?)[”\"]?\s*$"
)
_CLAUSE_START = re.compile(r"(?:[.;:](?=\s)|[。；：\n])\s*")
_LEADING_JOIN = re.compile(r"^(?:,?\s*(?:and|or)\b|[,，、])\s*", re.IGNORECASE)
_NUMBER_LEAD = re.compile(r"^(?:\d+(?:\.\d+)*\.?|\(?[A-Za-z0-9]{1,3}\))\s+")
_INLINE_LOOKBACK = 300


def _inline(text: str) -> Iterator[DefinedTerm]:
    """Terms a parenthesis names after the words they stand for: the definition is what comes
    before it in its sentence (at most a few hundred characters)."""
    for m in _each(_PAREN, text):
        inside = m.group(1)
        zh = _ZH_SHORT.match(inside)
        if zh is not None:
            terms = [zh.group(1)]
        else:
            # '(each, a "Renewal Term," and …)': US style puts the comma inside the quotes
            terms = [t.strip().rstrip(",.;").strip() for t in _QUOTED.findall(inside)]
            first = _QUOTED.search(inside)
            lead = re.sub(r"[,;，；]", " ", inside[: first.start()] if first else inside)
            if not terms or any(w.casefold() not in _LINKING for w in lead.split()):
                continue  # '(see "Fees" below)', '(as defined in the Lease)': no definition
            rest = re.sub(r"[,;，；]", " ", _QUOTED.sub(" ", inside))
            if len([w for w in rest.split() if w.casefold() not in _LINKING]) > 6:
                continue  # a sentence in brackets that happens to quote a term
        head_from = max(0, m.start() - _INLINE_LOOKBACK)
        starts = [x.end() for x in _CLAUSE_START.finditer(text, head_from, m.start())]
        start = starts[-1] if starts else head_from
        # after the parenthesis before it: 'A Ltd (the "Founder") and B LP (the "Investor")'
        start = max(
            start, text.rfind(")", start, m.start()) + 1, text.rfind("）", start, m.start()) + 1
        )
        definition = _LEADING_JOIN.sub("", _NUMBER_LEAD.sub("", text[start : m.start()].strip()))
        if not definition:
            continue
        for term in terms:
            yield DefinedTerm(
                term=term,
                definition=definition,
                start_offset=start,
                end_offset=m.end(),
                source="inline",
            )


# '"Good Manufacturing Practices" or "GMP" means': the terms before the one 'means' follows.
_ALSO = re.compile(r"[“\"]([A-Z0-9][^\"”\n]{0,80}?)[”\"][ \t]*,?[ \t]*(?:(?:or|and)[ \t]+)?$")


def _english(text: str) -> Iterator[DefinedTerm]:
    for m in _each(_EN_DEF, text):
        start = m.end()
        end = _sentence_end(text, start)
        definition = text[start:end].strip().rstrip(".;").strip()
        if not definition:
            continue
        terms = [(m.group("term").strip(), m.start())]
        head = m.start()
        while (also := _ALSO.search(text, max(0, head - 90), head)) is not None:
            terms.append((also.group(1).strip(), also.start()))
            head = also.start()
        for term, at in terms:
            yield DefinedTerm(
                term=term, definition=definition, start_offset=at, end_offset=end, source="quoted"
            )


def _sentence_end(text: str, start: int) -> int:
    limit = min(len(text), start + _MAX_DEF)
    pos = start
    while True:
        m = _DEFINITION_END.search(text, pos, limit)
        if m is None:
            return limit
        if m.group().startswith("."):
            word = re.search(r"([A-Za-z.]+)$", text[max(start, m.start() - 12) : m.start()])
            if word and (word.group(1).lower() in _ABBREVIATIONS or len(word.group(1)) == 1):
                pos = m.end()
                continue
            return m.start() + 1
        return m.start()


def _lines(text: str) -> Iterator[tuple[int, str]]:
    pos = 0
    for line in text.split("\n"):
        yield pos, line
        pos += len(line) + 1


def _lines_with(text: str, needle: str) -> Iterator[tuple[int, str]]:
    """(offset, line) of each line containing `needle`, without walking every line."""
    i = text.find(needle)
    while i != -1:
        pos = text.rfind("\n", 0, i) + 1
        end = text.find("\n", i)
        end = len(text) if end == -1 else end
        yield pos, text[pos:end]
        i = text.find(needle, end)


def _chinese(text: str) -> Iterator[DefinedTerm]:
    for pos, line in _lines_with(text, "指"):
        start = pos
        while start < pos + len(line) and line[start - pos] in " \t\u3000":
            start += 1
        tok = match_token(text, start)
        if tok is not None:
            start = tok.end
        m = _ZH_DEF.match(text, start, pos + len(line))
        if not m:
            continue
        d_start = m.end()
        stop = text.find("。", d_start, pos + len(line))
        d_end = stop if stop != -1 else pos + len(line)
        definition = text[d_start:d_end].strip().rstrip("；;，,").strip()
        if definition:
            yield DefinedTerm(
                term=m.group("term"),
                definition=definition,
                start_offset=m.start("term"),
                end_offset=d_end,
                source="zh",
            )


def _cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in s.split("|")]


def _glossary(text: str) -> Iterator[DefinedTerm]:
    """Two-column tables whose header names a term and its meaning."""
    if "|" not in text:
        return
    in_glossary = False
    for pos, line in _lines(text):
        if "|" not in line:
            in_glossary = False
            continue
        if _TABLE_SEP.match(line):
            continue
        cells = _cells(line)
        if len(cells) < 2:
            in_glossary = False
            continue
        if _GLOSSARY_HEAD.search(cells[0]) and _GLOSSARY_MEANING.search(cells[1]):
            in_glossary = True
            continue
        if not in_glossary:
            continue
        term = cells[0].strip("*_“”\"' ")
        definition = cells[1].strip("*_ ").rstrip(".。").strip()
        if term and definition and len(term) <= 60:
            start = pos + line.find(cells[0])
            yield DefinedTerm(
                term=term,
                definition=definition,
                start_offset=start,
                end_offset=pos + len(line),
                source="glossary_table",
            )
