"""From text to clause tree: find numbering tokens, drop tables of contents, nest by numbering.

The builder keeps a stack of open clauses. A new number is accepted only where it continues a
numbering sequence already open (next sibling), starts a new one (first item of a list,
nested under the current clause), or carries an explicit keyword ("Sub-Clause 4.2", "第五条").
That sequence test is what keeps "2.5 million" or a wrapped "Section 3 of" from becoming
clauses in messy text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from contract_review.models import ClauseKind
from contract_review.text import is_cjk_char, recital_headings

from ._titles import heading_like, split_title
from ._tokens import GROUP_STYLES, PATH_STYLES, Alt, Token, match_token

STRONG, GAP, WEAK = 3, 2, 1
_BLOCK_END_RE = re.compile(r"\n|[ \t\u3000\u00a0]{3,}|\t")
_TOC_MARKER_RE = re.compile(
    r"(?:table\s+of\s+contents|contents|index|目\s*录)[ \t:：.*]*$", re.IGNORECASE
)
_DOT_LEADER_RE = re.compile(r"(?:\.[ \t]?){4,}[ \t]*\d{1,4}\b|(?:…{2,}|·{4,})[ \t]*\d{1,4}\b")
_FIRST_VALUES = frozenset({1})
_TOP_STYLES = frozenset(
    {"kw:article", "kw:part", "kw:chapter", "cn_chapter", "cn_article", "dot_ROMAN"}
)
# Characters a clause number can start with (lower-case letters are checked separately).
_START_CHARS = frozenset(
    "0123456789(（第§附#*_" + "零〇一二两三四五六七八九十百千" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)
_RECITAL_ITEM_STYLES = frozenset({"paren_ALPHA", "paren_num", "paren_alpha", "paren_roman"})
_LONG_LINE = 250
_MAX_BLOCK = 600


@dataclass(slots=True)
class Candidate:
    """A token at a block start, with how strongly its position suggests a heading."""

    token: Token
    strength: int
    block_end: int


@dataclass(eq=False, slots=True)
class Node:
    """A clause while the tree is being built."""

    clause_id: str
    style: str
    value: int
    path: tuple[int, ...] | None
    kind: ClauseKind
    start: int
    number: str
    token_end: int
    block_end: int
    parent: Node | None
    keyword: bool = False
    children: list[Node] = field(default_factory=list)
    depth: int = 0
    end: int = 0
    title: str = ""
    body: int = 0


_START = r"(?=[0-9(（第§附#*_零〇一二两三四五六七八九十百千A-Z]|[a-z]{1,4}[.)])"
# Patterns that open with one literal character: the regex engine then scans for it at C
# speed; '^' in MULTILINE mode or a character class first is tried at every position. No
# look-behinds either: they defeat the fast scan too.
_LINE_INDENT = r"[ \t\u3000\u00a0\ufeff]*"
_STRONG_POS = re.compile(r"\n" + _LINE_INDENT + _START)
_FIRST_LINE = re.compile(_LINE_INDENT + _START)
_START_RE = re.compile(_START)
_UPPER_OK = re.compile(
    r"[A-Z][.)]|[IVX]{1,5}[.)]|(?i:article|section|clause|sub-?clause|paragraph|part|chapter|"
    r"schedule|exhibit|appendix|annex|attachment|addendum)\b"
)
_NUMBER_NEXT = (
    r"(?=[0-9第§]|(?:Section|SECTION|Article|ARTICLE|Clause|CLAUSE|Sub-Clause|SUB-CLAUSE) )"
)
_WEAK_POS = tuple(re.compile(re.escape(c) + r"[ \u00a0]{1,2}" + _NUMBER_NEXT) for c in ".;:")
_ZH_WEAK_POS = tuple(re.compile(c + r"[ \u3000]{0,2}" + _NUMBER_NEXT) for c in "。；：")


def _strong_positions(text: str) -> Iterator[int]:
    """Line starts (after indentation) where a clause number may begin."""
    first = _FIRST_LINE.match(text)
    if first is not None:
        yield first.end()
    for m in _STRONG_POS.finditer(text):
        yield m.end()


def _weak_positions(text: str) -> list[tuple[int, bool]]:
    """(position, after a Chinese stop) of sentence ends followed by what may be a clause
    number, in order."""
    out = [(m.end(), False) for p in _WEAK_POS for m in p.finditer(text)]
    out += [(m.end(), True) for p in _ZH_WEAK_POS if p.pattern[0] in text for m in p.finditer(text)]
    return sorted(out)


def _gap_ends(text: str) -> list[int]:
    """Ends of runs of 3+ spaces or of tabs inside lines (str.find is much faster than re)."""
    out: list[int] = []
    n = len(text)
    for needle in ("   ", "\t"):
        i = text.find(needle)
        while i != -1:
            blanks = _BLANKS.match(text, i + len(needle))
            j = blanks.end() if blanks else i + len(needle)
            if j < n and i > 0 and text[i - 1] != "\n" and _START_RE.match(text, j):
                out.append(j)
            i = text.find(needle, j)
    return out


_BLANKS = re.compile(r"[ \t\u3000\u00a0]*")


def find_candidates(text: str) -> list[Candidate]:
    """Every position where a block starts with something that reads as a clause number.

    Positions are line starts (strong), ends of wide gaps inside a line — flattened EDGAR text
    separates paragraphs by runs of spaces — (gap), and sentence ends inside very long lines or
    after Chinese full stops (weak).
    """
    starts: dict[int, int] = {}
    for pos in _strong_positions(text):
        starts[pos] = STRONG
    for pos in _gap_ends(text):
        starts.setdefault(pos, GAP)
    for pos, zh in _weak_positions(text):
        if pos in starts:
            continue
        if not zh:
            ls = text.rfind("\n", 0, pos) + 1
            le = text.find("\n", pos)
            if (len(text) if le == -1 else le) - ls <= _LONG_LINE:
                continue
        starts[pos] = WEAK
    found: list[Candidate] = []
    for s in sorted(starts):
        strength = starts[s]
        ch = text[s]
        if "A" <= ch <= "Z" and not _UPPER_OK.match(text, s):
            continue  # most capitalised block starts are ordinary words: skip them cheaply
        tok = match_token(text, s, allow_items=strength > WEAK)
        if tok is None:
            continue
        if tok.kind is not ClauseKind.ITEM and (
            (strength == STRONG and _runs_on(text, s))
            or (strength == GAP and _gap_runs_on(text, s))
        ):
            continue  # '… set forth in\nArticle 9. The Licensee …': a wrapped line
        if strength == WEAK and not _weak_ok(text, tok):
            continue
        found.append(_candidate(text, tok, strength))
    return _with_missed_firsts(text, found)


def _candidate(text: str, tok: Token, strength: int) -> Candidate:
    # A block longer than _MAX_BLOCK is body text anyway; bounding the search keeps flattened
    # (one-line) documents linear.
    limit = min(len(text), tok.end + _MAX_BLOCK)
    be = _BLOCK_END_RE.search(text, tok.end, limit)
    return Candidate(tok, strength, be.start() if be else limit)


_REFERRED = re.compile(
    r"(?i)(?:section|clause|article|paragraph|item|schedule|exhibit|annex|appendix|no\.|number)"
    r"[ \u00a0]*$"
)
_RUN = 3  # '2.0', '3.0', '4.0' in a row: a numbering, not numbers that happen to follow stops
_ONE = re.compile(r"(?<![\w.,$])1(?:\.0)?\.?[ \u00a0]+(?=[A-Z])")


def _with_missed_firsts(text: str, found: list[Candidate]) -> list[Candidate]:
    """Add the '1.0' of a flattened numbering that the sentence-end scan missed.

    In text flattened from PDF a heading often follows a title without a stop ('… Hosting
    Agreement 1.0 Introduction This …'), so only 2.0, 3.0 … are found, and a numbering cannot
    start at 2. When weak candidates 2, 3, 4 … follow one another, the '1' between the previous
    candidate and the 2 is looked for.
    """
    added: list[Candidate] = []
    for i, c in enumerate(found):
        if c.strength != WEAK or _dec1(c.token) != 2:
            continue
        following = [_dec1(d.token) for d in found[i + 1 : i + _RUN] if d.strength == WEAK]
        if following != list(range(3, 2 + _RUN)):
            continue
        lo = found[i - 1].token.end if i else 0
        if i and _dec1(found[i - 1].token) == 1:
            continue
        ones = [
            m
            for m in _ONE.finditer(text, lo, c.token.start)
            if not _REFERRED.search(text, max(0, m.start() - 12), m.start())
        ]
        if len(ones) != 1:
            continue  # none, or several: not knowable which
        tok = match_token(text, ones[0].start(), allow_items=False)
        if tok is None or _dec1(tok) != 1:
            continue
        added.append(_candidate(text, tok, WEAK))
    if not added:
        return found
    return sorted(found + added, key=lambda c: c.token.start)


def _dec1(tok: Token) -> int | None:
    """The value of a one-level decimal number ('2', '2.', '2.0'), else None."""
    for a in tok.alts:
        if a.style == "dec1":
            return a.value
    return None


_OPENING_STYLES = frozenset(
    {"cn_article", "cn_enum", "kw:article", "kw:clause", "kw:section", "dec1"}
)


def drop_numbered_recitals(text: str, found: list[Candidate]) -> list[Candidate]:
    """Without the numbers of recitals listed under '鉴于：' / 'RECITALS' ('1. 甲方为 …', '2. 乙方
    已 …') when the contract's own numbering starts again after them ('第一条'): they are part
    of the preamble, and would otherwise take the clause numbers 1, 2, 3 of the contract."""
    drop: set[int] = set()
    starts = [c.token.start for c in found]
    for _, mark in recital_headings(text):
        first_index = bisect_right(starts, mark)
        run = list(range(first_index, min(len(found), first_index + 30)))
        if not run:
            continue
        first = found[run[0]].token.alts[0]
        if first.style not in ("dec1", "paren_num", "dun_num") or first.value != 1:
            continue
        k = 0
        while k < len(run) and (alt := found[run[k]].token.alts[0]).style == first.style:
            if alt.value != k + 1:
                break
            k += 1
        if k == len(run):
            continue
        nxt = found[run[k]].token.alts[0]
        if (
            nxt.style in _OPENING_STYLES
            and nxt.value == 1
            and (nxt.style != first.style or found[run[k]].token.keyword)
        ):
            drop.update(run[:k])
    return [c for i, c in enumerate(found) if i not in drop] if drop else found


# Words a sentence cannot end on: a line ending with one runs on into the next.
_RUNS_ON = frozenset(
    {
        "in", "of", "to", "under", "and", "or", "the", "a", "an", "by", "with", "for", "per",
        "as", "at", "from", "than", "pursuant", "into", "upon", "between", "within", "without",
        "on", "onto", "via", "including", "toward", "towards",
    }
)  # fmt: skip


_FILING_LABEL = re.compile(r"(?i)exhibit \d{1,3}\.\d{1,3}(?:\(\w\))?$")


def _gap_runs_on(text: str, pos: int) -> bool:
    """Whether the text before a wide gap runs on into what follows it ('… (User Data),
    <gap> Section 13 (Indemnity) …'): a flattened line break inside a sentence."""
    j = pos
    while j > 0 and text[j - 1] in " \t\u00a0":
        j -= 1
    if j == 0 or text[j - 1] == "\n":
        return False
    if text[j - 1] == ",":
        return True
    words = text[max(0, j - 12) : j].split()
    return bool(words) and words[-1] in _RUNS_ON


def _runs_on(text: str, pos: int) -> bool:
    """Whether the line before the one at `pos` ends mid-phrase ('… as set forth in')."""
    line_start = text.rfind("\n", 0, pos)
    if line_start <= 0:
        return False
    prev = text[text.rfind("\n", 0, line_start) + 1 : line_start].rstrip()
    if not prev or prev[-1] in '.;:,)]"”':
        return False
    cut = prev.rfind(" ")
    last = prev[cut + 1 :]
    if last in ("and", "or") and prev[:cut].rstrip()[-1:] in (";", ","):
        return False  # '…; and' closes a list item
    return last in _RUNS_ON


def _weak_ok(text: str, tok: Token) -> bool:
    """Inside a flattened paragraph only clause-level numbers before a capital count."""
    if not any(a.style in PATH_STYLES or a.style in GROUP_STYLES for a in tok.alts):
        return False
    p = tok.end
    while p < len(text) and text[p] in " \t\u3000":
        p += 1
    ch = text[p] if p < len(text) else ""
    return ch.isupper() or (ch != "" and is_cjk_char(ch))


def _block_text(text: str, c: Candidate) -> str:
    return text[c.token.start : c.block_end]


def find_toc_ranges(text: str, cands: list[Candidate]) -> list[tuple[int, int]]:
    """Ranges holding a table of contents, so its numbers do not become clauses.

    A TOC starts at a 'Contents'/'目录' marker (or at the first number of the document) and ends
    where its first entry's number appears again with a real body after it.
    """
    ranges: list[tuple[int, int]] = []
    keys = [_key(c.token) for c in cands]
    markers = [
        m.start()
        for m in re.finditer(
            # 'TABLE OF CONTENTS', 'Contents:', '目录', and 'TABLE OF CONTENTS Page ARTICLE 1
            # Definitions 1' where a filing runs the entries on after the marker
            r"(?im)^[ \t#*]*(?:table\s+of\s+contents|contents|目\s*录)[ \t:：.*]*"
            r"(?:$|   |(?<=contents)[ \t]+page\b)",
            text,
        )
    ]
    for c in cands:
        # Flattened text: "TABLE OF CONTENTS   1. ..." sits on one line.
        if c.strength == GAP:
            seg_start = text.rfind("   ", 0, c.token.start)
            prev = text[max(0, seg_start - 40) : c.token.start]
            if _TOC_MARKER_RE.search(prev.strip()):
                markers.append(max(0, seg_start - 40))
    starts = sorted(set(markers))
    marked = bool(starts)
    if cands and not starts:
        starts = [cands[0].token.start]
    for m in starts:
        if ranges and m < ranges[-1][1]:
            continue
        paged = _page_numbered_range(text, m) if marked else None
        if paged is not None:
            ranges.append(paged)  # entries ending in page numbers: exactly where the list is
            continue
        first = next((i for i, c in enumerate(cands) if c.token.start >= m), None)
        if first is None or cands[first].token.start - m > 3000:
            continue
        k = keys[first]
        for j in range(first + 1, len(cands)):
            if keys[j] == k:
                # The first entry again: the body starts here if the entries so far were short.
                # Without a "Contents" marker, the entry must also repeat its heading text.
                title_key = _heading_key(text, cands[first])
                same_title = bool(title_key) and title_key == _heading_key(text, cands[j])
                if (
                    j - first > 2
                    and _short_entries(text, cands, first, j)
                    and (marked or same_title)
                ):
                    # The TOC ends with its last entry's line, not where the body restarts:
                    # a preamble may sit in between.
                    nl = text.find("\n", cands[j - 1].token.start, cands[j].token.start)
                    ranges.append((m, nl if nl != -1 else cands[j].token.start))
                break
    ranges.extend(_dot_leader_ranges(text))
    return _merge(ranges)


_PAGE_ENTRY = re.compile(r"^[^\n]{3,150}?[ \t](?:\d{1,3}|[ivxlc]{1,6})[ \t]*$", re.IGNORECASE)


def _page_numbered_range(text: str, marker: int) -> tuple[int, int] | None:
    """After a 'Contents' marker, the run of lines that end with a page number ('ARTICLE 9
    Intellectual Property Matters 26'): a contents list whatever its numbering; None when
    fewer than three lines do."""
    pos, end, entries = marker, marker, 0
    while pos < len(text):
        nl = text.find("\n", pos)
        line_end = len(text) if nl == -1 else nl
        line = text[pos:line_end].strip()
        if line:
            if not _PAGE_ENTRY.match(line):
                break
            entries += 1
            end = line_end
        pos = line_end + 1
    return (marker, end) if entries >= 3 else None


def _heading_key(text: str, c: Candidate) -> str:
    words = re.findall(r"\w+", text[c.token.end : c.block_end].lower())
    return " ".join(w for w in words if not w.isdigit())[:40]


def _short_entries(text: str, cands: list[Candidate], i: int, j: int) -> bool:
    span = cands[j].token.start - cands[i].token.start
    return span / max(1, j - i) < 160 or all(len(_block_text(text, c)) < 120 for c in cands[i:j])


def _leaders(text: str) -> Iterator[re.Match[str]]:
    """Dot leaders followed by a page number; found with str.find, as a regex scan is slow."""
    n = len(text)
    for needle in ("....", ". . .", "……", "····"):
        i = text.find(needle)
        while i != -1:
            m = _DOT_LEADER_RE.match(text, i)
            j = i + len(needle)
            while j < n and text[j] in ". \t…·":
                j += 1
            if m is not None:
                yield m
            i = text.find(needle, max(j, m.end() if m else j))


def _dot_leader_ranges(text: str) -> list[tuple[int, int]]:
    """TOC entries with dot leaders and page numbers ("FEES . . . . 12"), even run together."""
    out: list[tuple[int, int]] = []
    group: list[re.Match[str]] = []

    def flush() -> None:
        if len(group) >= 3:
            first = group[0].start()
            line_start = text.rfind("\n", 0, first) + 1
            out.append((max(line_start, first - 200), group[-1].end()))

    for m in sorted(_leaders(text), key=lambda m: m.start()):
        if group and m.start() - group[-1].end() > 300:
            flush()
            group = []
        group.append(m)
    flush()
    return out


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(ranges):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _key(tok: Token) -> tuple[str, str]:
    a = tok.alts[0]
    if a.path is not None:
        return ("path", ".".join(map(str, a.path)))
    return (a.style, str(a.value))


class TreeBuilder:
    """Nests accepted clause numbers into a tree (see the module docstring)."""

    def __init__(self, text: str, *, max_depth: int = 6) -> None:
        self.text = text
        self.max_depth = max_depth
        self.root = Node("", "root", 0, None, ClauseKind.CHAPTER, 0, "", 0, 0, None)
        self.stack: list[Node] = [self.root]
        self.ns_root: Node = self.root
        self.last_by_style: dict[str, Node] = {}
        self.order: list[Node] = []
        self.used_ids: set[str] = set()
        self.any_clause = False

    # -- acceptance ---------------------------------------------------------------------

    def add(self, c: Candidate) -> None:
        """Place a candidate in the tree, or drop it if it does not fit the numbering."""
        tok = c.token
        if tok.kind is not ClauseKind.ITEM and _starts_lower(self.text, tok.end):
            return
        if tok.alts[0].style == "annex":
            self._add_annex(c)
            return
        if tok.kind is ClauseKind.ITEM and c.strength == GAP and not self._after_stop(tok.start):
            # "...agree that   a. ...   b. ..." in flattened text: an enumeration inside a
            # sentence, not list items of their own.
            return
        for alt in tok.alts:
            parent = self._as_sibling(alt, c)
            if parent is not None:
                self._push(c, alt, parent)
                return
        for alt in tok.alts:
            parent = self._as_new_level(alt, c)
            if parent is not None:
                self._push(c, alt, parent)
                return

    def _is_recital(self, node: Node) -> bool:
        """A lettered paragraph with no heading ('B. The Supplier manufactures …'): a recital
        or a list entry, never a section that holds numbered clauses."""
        if node.style not in ("dot_ALPHA", "rparen_ALPHA") and not (
            # '(A) The Rights Holder owns …', '（1）甲方是 …' before 'Clause 1.' / '1. 定义':
            # bracketed recitals at the top of the document
            node.style in _RECITAL_ITEM_STYLES and self._top_items(node) is not None
        ):
            return False
        blanks = _BLANKS.match(self.text, node.token_end)
        start = blanks.end() if blanks else node.token_end
        end = _BLOCK_END_RE.search(self.text, start, start + 200)
        first_line = self.text[start : end.start() if end else start + 200]
        return not (heading_like(first_line) and len(first_line.strip()) <= 80)

    def _top_items(self, node: Node) -> Node | None:
        """The node above a run of bracketed items at the top of the document ('(2) Tideline
        Media Ltd …' holding '(C) The Merchant wishes …'), else None."""
        while node.parent is not None and node.style in _RECITAL_ITEM_STYLES:
            node = node.parent
        return node if node.parent is None and node.style not in _RECITAL_ITEM_STYLES else None

    def _heading_line(self, c: Candidate) -> bool:
        return heading_like(self.text[c.token.end : c.block_end]) and (
            c.block_end - c.token.end <= 80
        )

    def _after_stop(self, pos: int) -> bool:
        while pos > 0 and self.text[pos - 1] in " \t\u3000\u00a0":
            pos -= 1
        return pos == 0 or self.text[pos - 1] in ".:;。：；\n"

    def _gap_ok(self, c: Candidate, prev: int, v: int) -> bool:
        if v <= prev:
            return False
        if c.token.keyword:
            return v - prev <= (3 if c.strength == WEAK else 200)
        if v - prev <= (1 if c.strength == WEAK else 3):
            return True
        # "4.12 Unforeseeable Physical Conditions" after "4.2 …": amending documents skip
        # numbers; a bare number on its own heading line is as good as a keyword.
        return (
            c.strength == STRONG
            and v - prev <= 200
            and c.token.alts[0].style == "dec"
            and self._heading_line(c)
        )

    def _as_sibling(self, alt: Alt, c: Candidate) -> Node | None:
        if alt.style == "dec" and alt.path is not None:
            return self._dec_parent(alt.path, c)
        for node in reversed(self.stack[1:]):
            if node is self.ns_root:
                break
            if node.style == alt.style:
                if node.parent is not None and self._gap_ok(c, node.value, alt.value):
                    return node.parent
                return None
        return None

    def _dec_parent(self, path: tuple[int, ...], c: Candidate) -> Node | None:
        want = path[:-1]
        for node in reversed(self.stack):
            if node.path == want:
                prev = next(
                    (
                        ch
                        for ch in reversed(node.children)
                        if ch.path is not None and len(ch.path) == len(path)
                    ),
                    None,
                )
                if prev is not None and prev.path is not None:
                    return node if self._gap_ok(c, prev.path[-1], path[-1]) else None
                return node if (path[-1] <= 2 or c.token.keyword or self._heading_line(c)) else None
            if node is self.ns_root:
                break
        # No heading for the parent number ("1.2" then "2.1" without "2."): a same-depth sibling.
        for node in reversed(self.stack):
            if node is self.ns_root:
                break
            if node.path is not None and len(node.path) == len(path) and node.parent is not None:
                if path[:-1] == node.path[:-1]:
                    return node.parent if self._gap_ok(c, node.path[-1], path[-1]) else None
                if path > node.path and (
                    c.token.keyword
                    or (
                        self._gap_ok(c, node.path[-2], path[-2])
                        and (path[-1] <= 2 or self._heading_line(c))
                        and c.strength > WEAK
                    )
                ):
                    return node.parent
                return None
        if not any(n.path is not None for n in self.stack) and c.strength > WEAK:
            return self.stack[-1] if (c.token.keyword or path[-1] <= 2) else None
        return None

    def _as_new_level(self, alt: Alt, c: Candidate) -> Node | None:
        if alt.style == "dec":
            return None
        top = self.stack[-1]
        if (
            c.token.keyword
            and alt.value in _FIRST_VALUES
            and c.token.kind is not ClauseKind.ITEM
            and len(self.stack) > 1
            and all(n.kind is ClauseKind.ITEM for n in self.stack[1:] if n is not self.ns_root)
        ):
            # 'SECTION 1 — DEFINITIONS' after the lists of the preamble ('(1) Acme Ltd …',
            # '(A) The Company …'): the contract's first heading, under none of them
            return self.ns_root
        if alt.style in _TOP_STYLES:
            # Articles and chapters never nest under sections or items.
            top = next(
                n
                for n in reversed(self.stack)
                if n is self.root or n is self.ns_root or n.kind is ClauseKind.CHAPTER
            )
            last = self.last_by_style.get(alt.style)
            if last is None:
                return top if alt.value == 1 or c.token.keyword else None
            return top if self._gap_ok(c, last.value, alt.value) else None
        if alt.value in _FIRST_VALUES and (c.strength > WEAK or alt.style in PATH_STYLES):
            if alt.style in PATH_STYLES and self._is_recital(top) and top.parent is not None:
                # 'D. Acme wishes to …' then '1. SPONSORSHIP': the numbered clauses follow the
                # lettered recitals, they do not belong to the last of them — nor to the party
                # listed above bracketed ones ('(2) Tideline Media Ltd' … '(C) …')
                return self._top_items(top) or top.parent
            return top
        last = self.last_by_style.get(alt.style)
        if last is not None and self._gap_ok(c, last.value, alt.value):
            # Numbering that continues across groups (第五条 under 第二章).
            return top
        if alt.path is not None:
            outer = next((n for n in self.stack if n.path is not None), None)
            if outer is not None and outer.path is not None and outer.parent is not None:
                if self._gap_ok(c, outer.path[0], alt.value):
                    return outer.parent
                return None
            if c.token.keyword and last is None and c.strength > WEAK:
                return top
            if (
                not self.any_clause
                and c.strength == STRONG
                and (alt.value <= 3 or self._heading_line(c))
            ):
                # The first clause of an excerpt may be "9. Tests on Completion".
                return top
        return None

    def _add_annex(self, c: Candidate) -> None:
        if c.strength == WEAK or not self.any_clause:
            return
        if c.token.start < 500 and _FILING_LABEL.match(c.token.alts[0].label):
            return  # 'EXHIBIT 10.17' heading a filing: the exhibit number of the whole document
        line = self.text[c.token.end : c.block_end].strip()
        # 'APPENDIX A Statement of Work under … by and between …': a heading in capitals may
        # carry a long title on its line; 'Exhibit A …' in a sentence may not.
        keyword = self.text[c.token.number_start : c.token.number_start + 4]
        if len(line) > (200 if keyword.isupper() else 100):
            return
        alt = c.token.alts[0]
        node = self._make(c, alt, self.root)
        self.stack = [self.root, node]
        self.ns_root = node
        self.last_by_style = {}

    # -- construction -------------------------------------------------------------------

    def _push(self, c: Candidate, alt: Alt, parent: Node) -> None:
        if parent.depth >= self.max_depth:
            return
        while self.stack[-1] is not parent:
            self.stack.pop()
        node = self._make(c, alt, parent)
        self.stack.append(node)
        self.last_by_style[alt.style] = node
        self.any_clause = True

    def _make(self, c: Candidate, alt: Alt, parent: Node) -> Node:
        tok = c.token
        path: tuple[int, ...] | None = None
        if alt.style == "dec":
            path = alt.path
        elif alt.style in PATH_STYLES:
            if parent.path is not None and parent.style != alt.style:
                path = (*parent.path, alt.value)
            else:
                path = (alt.value,)
        node = Node(
            clause_id=self._unique(self._id_for(alt, parent)),
            style=alt.style,
            value=alt.value,
            path=path,
            kind=tok.kind,
            start=tok.start,
            number=self.text[tok.number_start : tok.number_end].strip(),
            token_end=tok.end,
            block_end=c.block_end,
            parent=parent,
            keyword=tok.keyword,
            depth=parent.depth + 1,
        )
        parent.children.append(node)
        self.order.append(node)
        return node

    def _id_for(self, alt: Alt, parent: Node) -> str:
        s = alt.style
        ns = "" if self.ns_root is self.root else self.ns_root.clause_id + "/"
        # Directly under the document, an annex or a chapter, ids carry no parent prefix:
        # articles are numbered document-wide even when grouped in chapters.
        top = parent is self.root or parent is self.ns_root or parent.kind is ClauseKind.CHAPTER
        if s == "annex":
            return alt.label
        if s == "cn_chapter":
            return f"{ns}第{alt.value}章"
        if s == "cn_section":
            base = parent.clause_id if parent.kind is ClauseKind.CHAPTER else ns
            return f"{base}第{alt.value}节"
        if s in ("kw:part", "kw:chapter"):
            return f"{ns}{s[3:].title()} {alt.value}"
        if s == "dec":
            return ns + alt.label
        if s in PATH_STYLES or s in ("cn_enum", "dun_num"):
            label = alt.label if s == "dec1" else str(alt.value)
            return ns + label if top else f"{parent.clause_id}.{label}"
        label = str(alt.value) if s == "paren_cn" else alt.label
        if top:
            return ns + (label if s.startswith("dot_") else f"({label})")
        return f"{parent.clause_id}({label})"

    def _unique(self, cid: str) -> str:
        if cid not in self.used_ids:
            self.used_ids.add(cid)
            return cid
        n = 2
        while f"{cid}~{n}" in self.used_ids:
            n += 1
        self.used_ids.add(f"{cid}~{n}")
        return f"{cid}~{n}"

    # -- finishing ----------------------------------------------------------------------

    def _drop_annex_listings(self) -> None:
        """'Appendix 1: Material  Appendix 2: Plan' lists annexes; only real annexes are nodes."""
        keep: list[Node] = []
        for i, node in enumerate(self.order):
            nxt = self.order[i + 1] if i + 1 < len(self.order) else None
            if (
                node.kind is ClauseKind.ANNEX
                and not node.children
                and nxt is not None
                and nxt.kind is ClauseKind.ANNEX
                and nxt.start - node.start < 200
            ):
                self.root.children.remove(node)
                self.used_ids.discard(node.clause_id)
                continue
            keep.append(node)
        self.order = keep

    def finish(self) -> list[Node]:
        """Set end offsets, titles and body offsets; return the top-level nodes."""
        self._drop_annex_listings()
        text = self.text
        n = len(text)
        open_nodes: list[Node] = []
        for node in self.order:
            while open_nodes and open_nodes[-1].depth >= node.depth:
                open_nodes.pop().end = node.start
            open_nodes.append(node)
        for node in open_nodes:
            node.end = n
        for node in self.order:
            end = node.end
            while end > node.start and text[end - 1].isspace():
                end -= 1
            node.end = end
            limit = node.children[0].start if node.children else node.end
            node.title, node.body = split_title(text, node.token_end, node.block_end, limit)
            node.body = max(node.start, min(node.body, node.end))
        return self.root.children


def _starts_lower(text: str, pos: int) -> bool:
    n = len(text)
    while pos < n and text[pos] in " \t\u3000\u00a0.:)":
        pos += 1
    ch = text[pos] if pos < n else ""
    return ch.isascii() and ch.islower()
