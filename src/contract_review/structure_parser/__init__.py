"""StructureParser: document text → DocumentStructure (clause tree, definitions, references).

Every clause carries offsets into the text it was parsed from, so that
`text[clause.start_offset:clause.end_offset] == clause.text` and quotes, skills and redlines
can all point back at exact characters.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from itertools import pairwise
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from contract_review.models import (
    ClauseKind,
    ClauseNode,
    CrossReference,
    DefinedTerm,
    DocumentStructure,
)
from contract_review.text import HAN
from contract_review.text.numerals import int_to_roman, roman_to_int

from ._definitions import find_definitions
from ._tree import (
    Node,
    TreeBuilder,
    drop_numbered_recitals,
    find_candidates,
    find_toc_ranges,
)
from ._xrefs import find_references

__all__ = ["DocumentParserConfig", "StructureParser", "detect_language", "fold_for_matching"]

_CJK = HAN
_NOT_LETTERS = bytes(b for b in range(256) if not chr(b).isascii() or not chr(b).isalpha())


class DocumentParserConfig(BaseModel):
    """How to parse one kind of document; a domain plugin may pass its own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    structure_type: str = Field("generic", description="Name of the profile: 'generic', 'fidic'.")
    language: Literal["auto", "en", "zh-CN"] = Field("auto", description="Document language.")
    parse_items: bool = Field(True, description="Make (a)/(i)/（一） list items clauses.")
    max_depth: int = Field(6, ge=1, le=12, description="Deepest clause level kept.")
    detect_toc: bool = Field(True, description="Skip numbers inside a table of contents.")


def detect_language(text: str) -> Literal["en", "zh-CN"]:
    """'zh-CN' when Chinese characters make up a fair share of the letters, else 'en'."""
    sample = text[:30_000]
    cjk = len(_CJK.findall(sample))
    latin = len(sample.encode("ascii", "ignore").translate(None, _NOT_LETTERS))
    return "zh-CN" if cjk and cjk * 3 >= latin else "en"


class StructureParser:
    """Parses normalised document text into a `DocumentStructure`."""

    def __init__(self, config: DocumentParserConfig | None = None) -> None:
        self.config = config or DocumentParserConfig()

    def parse(self, text: str, document_id: str = "document") -> DocumentStructure:
        """The structure of `text`; offsets index into `text` exactly as given."""
        language = detect_language(text) if self.config.language == "auto" else self.config.language
        original, text = text, fold_for_matching(text)
        candidates = drop_numbered_recitals(text, find_candidates(text))
        toc = find_toc_ranges(text, candidates) if self.config.detect_toc else []
        builder = TreeBuilder(text, max_depth=self.config.max_depth)
        ti = 0
        for cand in candidates:
            start = cand.token.start
            while ti < len(toc) and toc[ti][1] <= start:
                ti += 1
            if ti < len(toc) and toc[ti][0] <= start < toc[ti][1]:
                continue
            if not self.config.parse_items and cand.token.kind is ClauseKind.ITEM:
                continue
            builder.add(cand)
        roots = builder.finish()
        clauses = [_to_model(n, original) for n in roots]
        clauses = _with_preamble(clauses, original)
        structure = DocumentStructure(
            document_id=document_id,
            structure_type=self.config.structure_type,
            language=language,
            clauses=clauses,
            total_clauses=0,
            text_length=len(text),
            toc_ranges=toc,
        )
        structure.total_clauses = sum(1 for _ in structure.iter_clauses())
        heading_starts = {n.start for n in builder.order} | {
            _number_start(n, text) for n in builder.order
        }
        structure.definitions = _definitions(structure, text)
        numbered = frozenset(
            text[c.token.number_start : c.token.number_end].strip(".)(（） ") for c in candidates
        )
        structure.cross_references = _references(structure, text, heading_starts, numbered)
        return structure


_LOOKALIKES = str.maketrans({"\u037e": ";", "\u2024": "."})
"""Characters that look like punctuation the patterns read (a Greek question mark for a
semicolon, a one-dot leader for a full stop), each mapped to it one for one."""


def fold_for_matching(text: str) -> str:
    """`text` with look-alike punctuation replaced, character for character: every offset
    into the result is an offset into `text`."""
    if "\u037e" not in text and "\u2024" not in text:
        return text
    return text.translate(_LOOKALIKES)


def _number_start(node: Node, text: str) -> int:
    p = node.start
    while p < len(text) and text[p] in "#*_ \t":
        p += 1
    return p


def _to_model(node: Node, text: str) -> ClauseNode:
    return ClauseNode(
        clause_id=node.clause_id,
        number=node.number,
        title=node.title,
        text=text[node.start : node.end],
        level=node.depth,
        kind=node.kind,
        start_offset=node.start,
        end_offset=node.end,
        body_offset=node.body,
        parent_id=node.parent.clause_id if node.parent and node.parent.clause_id else None,
        children=[_to_model(c, text) for c in node.children],
    )


def _with_preamble(clauses: list[ClauseNode], text: str) -> list[ClauseNode]:
    """Text before the first clause becomes a 'preamble' node (or 'body' if nothing is numbered)."""
    first = clauses[0].start_offset if clauses else len(text)
    start = 0
    while start < first and text[start].isspace():
        start += 1
    end = first
    while end > start and text[end - 1].isspace():
        end -= 1
    if end <= start:
        return clauses
    cid = "preamble" if clauses else "body"
    pre = ClauseNode(
        clause_id=cid,
        number="",
        title="",
        text=text[start:end],
        level=1,
        kind=ClauseKind.PREAMBLE,
        start_offset=start,
        end_offset=end,
        body_offset=start,
    )
    return [pre, *clauses]


class _ClauseLocator:
    """`DocumentStructure.clause_at` for the many offsets of one parse: a binary search among
    siblings (ordered, not overlapping: as the parser builds them) instead of a scan of them,
    which made a document with many sub-clauses quadratic. Siblings that are not so ordered
    are scanned, as `clause_at` does."""

    def __init__(self, structure: DocumentStructure) -> None:
        self.roots = structure.clauses
        self._starts: dict[int, tuple[list[ClauseNode], list[int] | None]] = {}

    def _child_at(self, nodes: list[ClauseNode], offset: int) -> ClauseNode | None:
        entry = self._starts.get(id(nodes))
        if entry is None or entry[0] is not nodes:
            ordered = all(n.start_offset <= n.end_offset for n in nodes) and all(
                a.end_offset <= b.start_offset for a, b in pairwise(nodes)
            )
            entry = (nodes, [n.start_offset for n in nodes] if ordered else None)
            self._starts[id(nodes)] = entry
        starts = entry[1]
        if starts is None:
            return next((n for n in nodes if n.start_offset <= offset < n.end_offset), None)
        i = bisect_right(starts, offset) - 1
        return nodes[i] if i >= 0 and offset < nodes[i].end_offset else None

    def clause_at(self, offset: int) -> ClauseNode | None:
        """The deepest clause whose range contains `offset` (as `DocumentStructure.clause_at`)."""
        found: ClauseNode | None = None
        nodes = self.roots
        while (node := self._child_at(nodes, offset)) is not None:
            found, nodes = node, node.children
        return found


def _definitions(structure: DocumentStructure, text: str) -> dict[str, DefinedTerm]:
    out: dict[str, DefinedTerm] = {}
    locator = _ClauseLocator(structure)
    for d in find_definitions(text):
        if d.term in out:
            continue  # the first definition wins; later ones are usually references back
        clause = locator.clause_at(d.start_offset)
        out[d.term] = d.model_copy(update={"clause_id": clause.clause_id if clause else None})
    return out


def _references(
    structure: DocumentStructure, text: str, heading_starts: set[int], numbered: frozenset[str]
) -> list[CrossReference]:
    refs: list[CrossReference] = []
    resolver = _Resolver(structure, text, numbered)
    locator = _ClauseLocator(structure)
    for raw in find_references(text, heading_starts, _own_names(text, structure.definitions)):
        if any(s <= raw.start < e for s, e in structure.toc_ranges):
            continue
        source = locator.clause_at(raw.start)
        target, valid = resolver.resolve(raw.target, source.clause_id if source else "")
        refs.append(
            CrossReference(
                source_clause_id=source.clause_id if source else None,
                target_clause_id=target,
                reference_text=raw.text,
                start_offset=raw.start,
                end_offset=raw.end,
                is_valid=valid,
            )
        )
    refs.sort(key=lambda r: r.start_offset)
    return refs


_OWN_NAME = re.compile(
    r"(?:\b(?:This|this|THIS)[ \t]+|^[ \t]*)(?P<name>(?:[A-Z][\w&'-]*[ \t]+){0,6}"
    r"(?:Agreement|AGREEMENT|Contract|CONTRACT))\b",
    re.MULTILINE,
)


def _own_names(text: str, definitions: dict[str, DefinedTerm]) -> frozenset[str]:
    """What the contract calls itself, lower-cased: its title ('Collaboration Agreement'),
    'This Supply Agreement', and a short name defined as one of them ('CA')."""
    names = {
        re.sub(r"\s+", " ", m.group("name")).casefold() for m in _OWN_NAME.finditer(text[:3000])
    }
    for term, d in definitions.items():
        words = re.findall(r"[A-Za-z&'-]+", d.definition)
        tail = " ".join(words[-6:]).casefold()
        if term.isupper() and any(
            tail.endswith(n) and (tail == n or tail[-len(n) - 1] == " ")
            for n in names
            if n.count(" ") >= 1
        ):
            names.add(term.casefold())
    return frozenset(names)


_ITEM = re.compile(r"\(([^()]+)\)")
_ROMAN_HEAD = re.compile(r"^([IVXLC]{1,6})((?:[.(].*)?)$")


class _Resolver:
    """Finds the clause a reference's number points to, as the document numbers it: 'Section
    7.02' → 7.2 or 7.02, 'Article IX' → 9, '39.0' → 39, a number in the referring exhibit's
    own numbering first, then the body's, then any annex's; '(b)(i)' as sub-clauses or as
    items written in the clause's text."""

    def __init__(self, structure: DocumentStructure, text: str, numbered: frozenset[str]) -> None:
        self.structure = structure
        self.text = text
        self.numbered = numbered
        """Every number that opens a block of the text, parsed as a clause or not."""
        self._line_numbers: frozenset[str] | None = None
        self._by_tail: dict[str, list[str]] | None = None

    def resolve(self, target: str, source_id: str) -> tuple[str, bool]:
        """(clause id, whether it exists): the id found, or `target` when none is."""
        base, items = _split_items(target)
        scope = source_id.rsplit("/", 1)[0] + "/" if "/" in source_id else ""
        forms = _number_forms(base)
        own = [i for n in forms for i in self._ids(n, scope, anywhere=False)]
        other = [i for n in forms for i in self._ids(n, scope, anywhere=True) if i not in own]
        for clause_id in [*own, *other]:
            found = self._items(clause_id, items)
            if found is not None:
                return found, True
        if own and items and any(self._numbered_again(c, items) for c in own):
            return target, True
        if own or "/" in base:
            return target, False
        for number in forms:
            if number in self.numbered or self._opens_line(number):
                # numbered in the text, though not parsed as a clause
                return number + "".join(f"({i})" for i in items), True
        return target, False

    def _numbered_again(self, clause_id: str, items: tuple[str, ...]) -> bool:
        """Whether another block of the clause's annex (or body) opens with its number and
        lists the items: a schedule may number twice ('2. Services' … '2. Payments: a. …'),
        and the parser keeps the first."""
        node = self.structure.get_clause(clause_id)
        assert node is not None
        number = node.number.strip(" .)")
        scope = self.structure.get_clause(clause_id.rsplit("/", 1)[0]) if "/" in clause_id else None
        start, end = (scope.start_offset, scope.end_offset) if scope else (0, len(self.text))
        for opening in (f"\n{number}. ", f"   {number}. "):
            i = self.text.find(opening, start, end)
            while i != -1:
                if i + 1 != node.start_offset and i + 3 != node.start_offset:
                    after = self.text[i : i + 2000]
                    if all(_item_written(after, r) for r in items):
                        return True
                i = self.text.find(opening, i + 1, end)
        return False

    def _opens_line(self, number: str) -> bool:
        """Whether a line of the text starts with the number ('\n26.2.4 Business …')."""
        if self._line_numbers is None:
            self._line_numbers = frozenset(_LINE_NUMBER.findall(self.text))
        return number in self._line_numbers

    def _ids(self, number: str, scope: str, *, anywhere: bool) -> list[str]:
        """Clauses numbered `number`: in the referring annex or the body, or (`anywhere`) in
        any annex."""
        if "/" in number:
            return [number]
        ids = [scope + number] if scope else []
        ids.append(number)
        if anywhere:
            ids = self._tails().get(number, [])
        return [i for i in dict.fromkeys(ids) if self.structure.get_clause(i) is not None]

    def _tails(self) -> dict[str, list[str]]:
        if self._by_tail is None:
            by_tail: dict[str, list[str]] = {}
            for c in self.structure.iter_clauses():
                if "/" in c.clause_id:
                    by_tail.setdefault(c.clause_id.rsplit("/", 1)[1], []).append(c.clause_id)
            self._by_tail = by_tail
        return self._by_tail

    def _items(self, clause_id: str, items: tuple[str, ...]) -> str | None:
        """The deepest clause the items name under `clause_id`, or None when an item is
        neither a sub-clause nor written in the clause's own text."""
        current = clause_id
        for i, item in enumerate(items):
            child = next(
                (
                    cid
                    for form in dict.fromkeys((item, item.lower(), item.upper()))
                    if self.structure.get_clause(cid := f"{current}({form})") is not None
                ),
                None,
            )
            if child is not None:
                current = child
                continue
            if all(_item_written(self._item_text(current, i > 0), r) for r in items[i:]):
                return current + "".join(f"({r})" for r in items[i:])
            return None
        return current

    def _item_text(self, clause_id: str, deep: bool) -> str:
        """Where a clause's items are written: its own text before its first sub-clause; for
        an item of an item, the next few thousand characters ('(v)' of '14.1(e)(v)' may follow
        a page break the parser ends 14.1(e) at)."""
        node = self.structure.get_clause(clause_id)
        assert node is not None
        if not deep:
            own_end = node.children[0].start_offset if node.children else node.end_offset
            return node.text[: own_end - node.start_offset]
        return self.text[node.start_offset : max(node.end_offset, node.start_offset + 4000)]


_LINE_NUMBER = re.compile(r"\n(\d{1,3}(?:\.\d{1,3})*|[IVXLC]{1,6})(?=[ .\t)])")


@lru_cache(maxsize=4096)
def _split_items(target: str) -> tuple[str, tuple[str, ...]]:
    """'9.4.2(b)(i)' → ('9.4.2', ('b', 'i')); 'XV.C' → ('XV', ('C',))."""
    m = re.match(r"^([^()]*?)((?:\([^()]+\))*)$", target)
    if m is None:
        return target, ()
    base, items = m.group(1), tuple(_ITEM.findall(m.group(2)))
    roman = _ROMAN_HEAD.match(base)
    if roman and roman.group(2).startswith("."):
        return roman.group(1), (*roman.group(2)[1:].split("."), *items)
    return base, items


@lru_cache(maxsize=4096)
def _number_forms(number: str) -> tuple[str, ...]:
    """The spellings a document may number a clause by: as written, without leading zeros
    ('7.02' → '7.2'), without a trailing '.0' ('39.0' → '39'), roman ↔ arabic."""
    prefix, _, num = number.rpartition("/")
    prefix = prefix + "/" if prefix else ""
    forms = [num]
    if re.fullmatch(r"[\d.]+", num):
        parts = num.split(".")
        forms.append(".".join(str(int(p)) if p else p for p in parts))
        while len(parts) > 1 and parts[-1].strip("0") == "":
            parts = parts[:-1]
            forms.append(".".join(parts))
        forms.append(
            ".".join(f"{int(p):02d}" if i and p else p for i, p in enumerate(num.split(".")))
        )
    elif num.isalpha() and (v := roman_to_int(num)):
        forms.append(str(v))
    if num.isdigit() and 0 < int(num) < 40:
        forms.append(int_to_roman(int(num)))  # 'Paragraph 19' where the document numbers 'XIX'
    return tuple(prefix + f for f in dict.fromkeys(forms))


def _item_written(text: str, item: str) -> bool:
    """Whether the clause's text lists an item '(b)', 'b)' or 'b.' (any case)."""
    pattern = r"(?<![\w(])\(?" + re.escape(item) + r"[).]"
    return re.search(pattern, text, re.IGNORECASE) is not None
