"""Approved redlines as a Word document with tracked changes and comments.

`write_redline_docx(content, diffs, out, source_docx=...)` writes every APPROVED `DocumentDiff`
as a real Word revision at its exact place: a replace becomes `w:del` + `w:ins`, a delete a
`w:del`, an insert a `w:ins` right after its anchor text; each revision carries a unique `w:id`,
`w:author` and a UTC `w:date`, and each applied diff gets one Word comment holding its reason.

Where a diff goes. `diff.start_offset` indexes `content.text`. With `source_docx` (the .docx
that `content` was read from), the `TextBlock` containing the offset gives the paragraph or
table row (`locator`, resolved with the intake iterators); the part of the line that is not in
the runs (the automatic number label and its suffix, the " | " cell separators) is measured by
comparing the line with the runs' visible text. Without `source_docx` (text or PDF input), a new
document is built with one paragraph per line of `content.text`, and the line is the block.

Runs are split at the exact character boundaries; every piece keeps a copy of the run's `w:rPr`,
and inserted text takes the formatting of the run it replaces or follows. A diff must lie inside
one paragraph and inside plain runs (not field results, math, content controls or existing
tracked changes); a diff that does not, whose `original_text` is not at its offset, or that
overlaps another applied diff, is skipped and reported in `RedlineStats.skipped`, never applied
approximately.

`accept_all_text` / `reject_all_text` read a .docx as if all tracked changes were accepted /
rejected, in the same text form as the intake reader (number labels, " | " between cells).
"""

from __future__ import annotations

import copy
import re
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import docx
from docx.document import Document as DocxDocument
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.part import XmlPart
from lxml import etree

from contract_review.config import get_settings
from contract_review.errors import EmptyDocumentError
from contract_review.intake import body_text, read_docx
from contract_review.models import ActionType, DiffStatus, DocumentDiff, LoadedText, TextBlock
from contract_review.ooxml import (
    INLINE_WRAPPERS,
    follow_field_char,
    iter_block_elements,
    iter_cells,
    iter_table_rows,
    iter_text_boxes,
    symbol_text,
    visible_text,
)
from contract_review.ooxml import M_NS as _M_NS
from contract_review.ooxml import MC_NS as _MC_NS
from contract_review.ooxml import w as _w
from contract_review.ooxml import xml_safe as _xml_safe

__all__ = [
    "CommentNote",
    "Instruction",
    "RedlineStats",
    "SkippedDiff",
    "accept_all_text",
    "clean_copy",
    "reject_all_text",
    "write_redline_docx",
]

_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"


_P, _R, _TBL, _TC, _TR = _w("p"), _w("r"), _w("tbl"), _w("tc"), _w("tr")
_RPR, _TRPR, _T, _DEL_TEXT = _w("rPr"), _w("trPr"), _w("t"), _w("delText")
_INSTR_TEXT, _DEL_INSTR_TEXT = _w("instrText"), _w("delInstrText")
_TAB, _PTAB, _BR, _CR = _w("tab"), _w("ptab"), _w("br"), _w("cr")
_NO_BREAK_HYPHEN, _SYM, _CHAR = _w("noBreakHyphen"), _w("sym"), _w("char")
_FLD_CHAR = _w("fldChar")
_RUBY, _RUBY_BASE = _w("ruby"), _w("rubyBase")
_INS, _DEL, _MOVE_FROM, _MOVE_TO = _w("ins"), _w("del"), _w("moveFrom"), _w("moveTo")
_HYPERLINK, _SDT, _SDT_CONTENT = _w("hyperlink"), _w("sdt"), _w("sdtContent")
_ID, _AUTHOR, _DATE, _VAL = _w("id"), _w("author"), _w("date"), _w("val")
_ALT_CONTENT = f"{{{_MC_NS}}}AlternateContent"
_CHOICE, _FALLBACK = f"{{{_MC_NS}}}Choice", f"{{{_MC_NS}}}Fallback"
_M_OMATH, _M_OMATH_PARA, _M_T = f"{{{_M_NS}}}oMath", f"{{{_M_NS}}}oMathPara", f"{{{_M_NS}}}t"

# Children a run may have and still be split and wrapped in a tracked change.
_PLAIN_RUN_CHILDREN = frozenset(
    {
        _RPR,
        _T,
        _TAB,
        _BR,
        _CR,
        _NO_BREAK_HYPHEN,
        _w("softHyphen"),
        _w("lastRenderedPageBreak"),
    }
)
# Siblings that may sit between the runs of a deleted range (they move into the w:del).
_RANGE_MARKERS = frozenset(
    {
        _w("bookmarkStart"),
        _w("bookmarkEnd"),
        _w("proofErr"),
        _w("commentRangeStart"),
        _w("commentRangeEnd"),
        _w("permStart"),
        _w("permEnd"),
    }
)
# Revision markers inside w:rPr that must not be copied onto new inserted text.
_RPR_REVISION_TAGS = frozenset({_INS, _DEL, _MOVE_FROM, _MOVE_TO, _w("rPrChange")})

_LOCATOR_STEP = re.compile(r"/(p|txbx|tbl|tr)\[(\d+)\]")
_TABLE_LOCATOR = re.compile(r"^table (\d+) row (\d+)$")


# ------------------------------------------------------------------------------------------
# Result
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SkippedDiff:
    """An approved diff that was not applied, and why."""

    diff_id: str
    reason: str


@dataclass(slots=True)
class RedlineStats:
    """What `write_redline_docx` did."""

    applied: int = 0
    """Approved diffs written as tracked changes."""
    comments: int = 0
    """Word comments added."""
    comments_moved: int = 0
    """Comments whose span could not be marked exactly: anchored on its whole paragraph, or
    on the document's first paragraph."""
    instructions: int = 0
    """Paragraphs added as tracked insertions (amendment instructions)."""
    skipped: list[SkippedDiff] = field(default_factory=list)
    """Approved diffs not applied, with the reason."""
    applied_ids: list[str] = field(default_factory=list)
    """`diff_id`s of the applied diffs, in document order."""


class _Skip(Exception):
    """A diff cannot be applied safely; the message says why."""


@dataclass(frozen=True, slots=True)
class CommentNote:
    """A margin comment: the span of the document text it is anchored on, and what it says
    (a bold first line, then one paragraph per line)."""

    start: int
    end: int
    title: str
    lines: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Instruction:
    """A paragraph added as a tracked insertion (an amendment instruction of Particular
    Conditions), after the paragraph holding offset `after` (None: at the end of the
    document), with the comment that explains it."""

    after: int | None
    text: str
    note: CommentNote | None = None


# ------------------------------------------------------------------------------------------
# The visible text of one paragraph, run by run (mirrors the intake reader)
# ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Piece:
    """A stretch of a paragraph's visible text: one run, or uneditable content (math...)."""

    run: etree._Element | None
    start: int
    end: int
    editable: bool


@dataclass(slots=True)
class _Walk:
    pieces: list[_Piece] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    position: int = 0
    fields: list[bool] = field(default_factory=list)

    def add(self, run: etree._Element | None, text: str, editable: bool) -> None:
        self.pieces.append(_Piece(run, self.position, self.position + len(text), editable))
        self.parts.append(text)
        self.position += len(text)


def _paragraph_model(p: etree._Element) -> tuple[str, list[_Piece]]:
    """The visible text of paragraph `p` (runs only, no number label) and its pieces."""
    walk = _Walk()
    _walk_inline(p, walk, editable=True)
    return "".join(walk.parts), walk.pieces


def _walk_inline(parent: etree._Element, walk: _Walk, *, editable: bool) -> None:
    for child in parent:
        tag = child.tag
        if tag == _R:
            _walk_run(child, walk, editable=editable)
        elif tag in INLINE_WRAPPERS:
            # Runs directly in the paragraph or in a hyperlink can be edited; runs in existing
            # tracked insertions, fields, content controls... are left alone.
            _walk_inline(child, walk, editable=editable and tag == _HYPERLINK)
        elif tag == _SDT:
            content = child.find(_SDT_CONTENT)
            if content is not None:
                _walk_inline(content, walk, editable=False)
        elif tag == _ALT_CONTENT:
            chosen = child.find(_CHOICE)
            if chosen is None:
                chosen = child.find(_FALLBACK)
            if chosen is not None:
                _walk_inline(chosen, walk, editable=False)
        elif tag in (_M_OMATH, _M_OMATH_PARA):
            walk.add(None, "".join(t.text or "" for t in child.iter(_M_T)), False)


def _walk_run(run: etree._Element, walk: _Walk, *, editable: bool) -> None:
    parts: list[str] = []
    plain = editable and not walk.fields
    for child in run:
        tag = child.tag
        if tag not in _PLAIN_RUN_CHILDREN:
            plain = False
        if tag == _RPR:
            continue
        if tag == _FLD_CHAR:
            follow_field_char(child, walk.fields)
        elif True in walk.fields:
            continue
        elif tag == _T:
            raw = child.text or ""
            shown = visible_text(raw)
            if len(shown) != len(raw):
                plain = False
            parts.append(shown)
        elif tag in (_TAB, _PTAB):
            parts.append("\t")
        elif tag in (_BR, _CR):
            parts.append("\n")
        elif tag == _NO_BREAK_HYPHEN:
            parts.append("-")
        elif tag == _SYM:
            parts.append(symbol_text(child))
        elif tag == _RUBY:
            base = child.find(_RUBY_BASE)
            if base is not None:
                sub = _Walk(fields=walk.fields)
                _walk_inline(base, sub, editable=False)
                parts.append("".join(sub.parts))
    walk.add(run, "".join(parts), plain)


# ------------------------------------------------------------------------------------------
# Run surgery
# ------------------------------------------------------------------------------------------


def _child_length(child: etree._Element) -> int:
    tag = child.tag
    if tag == _T:
        return len(child.text or "")
    if tag in (_TAB, _BR, _CR, _NO_BREAK_HYPHEN):
        return 1
    return 0


def _split_run(run: etree._Element, at: int) -> None:
    """Split a plain run at character `at` (0 < at < len) into two runs with the same w:rPr."""
    right = copy.deepcopy(run)
    run.addnext(right)
    position = 0
    for left_child, right_child in zip(list(run), list(right), strict=True):
        if left_child.tag == _RPR:
            continue
        length = _child_length(left_child)
        end = position + length
        if end <= at and not (length == 0 and position == at):
            right.remove(right_child)
        elif position >= at:
            run.remove(left_child)
        else:  # a w:t spanning the split point
            text = left_child.text or ""
            left_child.text = text[: at - position]
            right_child.text = text[at - position :]
            left_child.set(_XML_SPACE, "preserve")
            right_child.set(_XML_SPACE, "preserve")
        position = end


def _split_at(p: etree._Element, offset: int) -> None:
    """Make `offset` (in the paragraph's visible text) fall on a run boundary."""
    _, pieces = _paragraph_model(p)
    for piece in pieces:
        if piece.start < offset < piece.end:
            if piece.run is None or not piece.editable:
                raise _Skip(
                    "the text boundary falls inside a field, symbol, math, content control or "
                    "existing tracked revision"
                )
            _split_run(piece.run, offset - piece.start)
            return


def _runs_in(p: etree._Element, start: int, end: int) -> list[etree._Element]:
    """The runs covering exactly [start, end) (boundaries already split), all plain siblings."""
    _, pieces = _paragraph_model(p)
    inside = [x for x in pieces if x.start >= start and x.end <= end and x.end > x.start]
    if not inside or inside[0].start != start or inside[-1].end != end:
        raise _Skip("the text is not made of whole runs")
    for piece in inside:
        if piece.run is None or not piece.editable:
            raise _Skip("the text lies in a field, content control, math or existing revision")
    runs = [x.run for x in inside if x.run is not None]
    parent = runs[0].getparent()
    if any(r.getparent() is not parent for r in runs):
        raise _Skip("the text crosses a hyperlink boundary")
    # Everything between the first and the last run must be runs or range markers.
    element: etree._Element | None = runs[0]
    last = runs[-1]
    while element is not None and element is not last:
        element = element.getnext()
        if element is None:
            raise _Skip("the runs are not contiguous")
        if element.tag != _R and element.tag not in _RANGE_MARKERS:
            raise _Skip("the text crosses an existing tracked change or other markup")
        if element.tag == _R and not _is_plain_run(element):
            raise _Skip("the text crosses a field or drawing")
    return runs


def _is_plain_run(run: etree._Element) -> bool:
    return all(child.tag in _PLAIN_RUN_CHILDREN for child in run)


def _clean_rpr(run: etree._Element) -> etree._Element | None:
    rpr = run.find(_RPR)
    if rpr is None:
        return None
    rpr = copy.deepcopy(rpr)
    for child in list(rpr):
        if child.tag in _RPR_REVISION_TAGS:
            rpr.remove(child)
    return rpr


def _new_run(text: str, template: etree._Element | None) -> etree._Element:
    """A run showing `text` (tabs and line breaks as w:tab / w:br) with the template's w:rPr."""
    run = etree.Element(_R)
    rpr = _clean_rpr(template) if template is not None else None
    if rpr is not None:
        run.append(rpr)
    for token in re.split(r"(\t|\n)", text):
        if token == "\t":
            etree.SubElement(run, _TAB)
        elif token == "\n":
            etree.SubElement(run, _BR)
        elif token:
            t = etree.SubElement(run, _T)
            t.text = token
            t.set(_XML_SPACE, "preserve")
    return run


class _Ids:
    """Allocates `w:id`s for revisions, above every id already in use."""

    def __init__(self, first: int) -> None:
        self._next = first

    def take(self) -> str:
        value = self._next
        self._next += 1
        return str(value)


@dataclass(slots=True)
class _Revision:
    author: str
    date: str
    ids: _Ids

    def wrapper(self, tag: str) -> etree._Element:
        element = etree.Element(tag)
        element.set(_ID, self.ids.take())
        element.set(_AUTHOR, self.author)
        element.set(_DATE, self.date)
        return element


def _delete_runs(runs: list[etree._Element], revision: _Revision) -> etree._Element:
    """Wrap the sibling range runs[0]..runs[-1] in one w:del; w:t becomes w:delText."""
    first, last = runs[0], runs[-1]
    siblings: list[etree._Element] = [first]
    element = first
    while element is not last:
        nxt = element.getnext()
        assert nxt is not None  # checked by _runs_in
        siblings.append(nxt)
        element = nxt
    wrapper = revision.wrapper(_DEL)
    first.addprevious(wrapper)
    for sibling in siblings:
        wrapper.append(sibling)  # moves it
        if sibling.tag == _R:
            for child in sibling:
                if child.tag == _T:
                    child.tag = _DEL_TEXT
                    child.set(_XML_SPACE, "preserve")
    return wrapper


def _insertion(text: str, template: etree._Element | None, revision: _Revision) -> etree._Element:
    wrapper = revision.wrapper(_INS)
    wrapper.append(_new_run(text, template))
    return wrapper


# ------------------------------------------------------------------------------------------
# Locating a diff
# ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Slot:
    """A paragraph inside a block line: `line[pos:pos + len(text)]` is its (stripped) text."""

    p: etree._Element
    pos: int
    length: int
    lead: int  # line breaks at the start of the runs' text that the reader drops


@dataclass(slots=True)
class _Target:
    p: etree._Element
    local: int  # offset of the diff's original_text in the paragraph's visible text


def _resolve_locator(body: etree._Element, locator: str) -> etree._Element:
    """The w:p or w:tr element a `TextBlock.locator` of the intake reader names."""
    match = _TABLE_LOCATOR.match(locator)
    if match:
        steps = [("tbl", int(match.group(1))), ("tr", int(match.group(2)))]
    elif locator.startswith("/body"):
        rest = locator[len("/body") :]
        steps = [(m.group(1), int(m.group(2))) for m in _LOCATOR_STEP.finditer(rest)]
        if "".join(f"/{k}[{n}]" for k, n in steps) != rest:
            raise _Skip(f"unknown block locator {locator!r}")
    else:
        raise _Skip(f"unknown block locator {locator!r}")
    container = body
    current: etree._Element | None = None
    for kind, number in steps:
        found: etree._Element | None = None
        if kind in ("p", "tbl"):
            wanted = _P if kind == "p" else _TBL
            candidates = [e for e in iter_block_elements(container) if e.tag == wanted]
        elif kind == "txbx":
            if current is None or current.tag != _P:
                raise _Skip(f"bad block locator {locator!r}")
            candidates = list(iter_text_boxes(current))
        else:  # tr
            if current is None or current.tag != _TBL:
                raise _Skip(f"bad block locator {locator!r}")
            candidates = list(iter_table_rows(current))
        if 1 <= number <= len(candidates):
            found = candidates[number - 1]
        if found is None:
            raise _Skip(f"block {locator!r} not found in the source document")
        current = found
        if kind == "txbx":
            container = found
    if current is None or current.tag not in (_P, _TR):
        raise _Skip(f"block {locator!r} is not a paragraph or table row")
    return current


def _row_paragraphs(row: etree._Element) -> Iterator[etree._Element]:
    """The paragraphs of a table row in the order the reader joins them into the line."""
    for cell in iter_cells(row):
        yield from _container_paragraphs(cell)


def _container_paragraphs(container: etree._Element) -> Iterator[etree._Element]:
    for block in iter_block_elements(container):
        if block.tag == _P:
            yield block
            for box in iter_text_boxes(block):
                yield from _container_paragraphs(box)
        else:
            for row in iter_table_rows(block):
                tr_pr = row.find(_TRPR)
                if tr_pr is not None and tr_pr.find(_DEL) is not None:
                    continue
                yield from _row_paragraphs(row)


def _stripped(text: str) -> tuple[str, int]:
    """`text` without leading/trailing line breaks, and the number of leading ones dropped."""
    core = text.lstrip("\n")
    lead = len(text) - len(core)
    return core.rstrip("\n"), lead


def _paragraph_slots(p: etree._Element, line: str, label: str | None) -> list[_Slot]:
    """A body paragraph's line is `label + suffix + text`: check it and measure the prefix."""
    text, _ = _paragraph_model(p)
    core, lead = _stripped(text)
    if not line.endswith(core):
        raise _Skip("the paragraph's text in the source differs from the document text")
    prefix = line[: len(line) - len(core)]
    if label is None:
        if prefix:
            raise _Skip("the paragraph's text in the source differs from the document text")
    elif not prefix.startswith(label) or prefix[len(label) :] not in ("", " ", "\t"):
        raise _Skip("the paragraph's number label does not match the document text")
    return [_Slot(p, len(prefix), len(core), lead)]


def _row_slots(row: etree._Element, line: str) -> list[_Slot]:
    """The paragraphs of a table row and where each one's text is in the row's line."""
    slots: list[_Slot] = []
    pointer = 0
    for p in _row_paragraphs(row):
        text, _ = _paragraph_model(p)
        core, lead = _stripped(text)
        if not core.strip():
            continue
        core = core.replace("\n", " ")  # a row is one line
        pos = line.find(core, pointer)
        if pos < 0:
            raise _Skip("the table row's text in the source differs from the document text")
        slots.append(_Slot(p, pos, len(core), lead))
        pointer = pos + len(core)
    return slots


def _target_in(slots: list[_Slot], rel: int, length: int) -> _Target:
    for slot in slots:
        if slot.pos <= rel and rel + length <= slot.pos + slot.length:
            return _Target(slot.p, rel - slot.pos + slot.lead)
    raise _Skip("the text is not inside one paragraph (number label, cell border or line end)")


class _Locator:
    """Finds the paragraph of a diff, from the source .docx blocks or from text lines."""

    def __init__(self, content: LoadedText, body: etree._Element, lines: list[etree._Element]):
        self._content = content
        self._body = body
        self._lines = lines  # paragraphs built from text lines (no source .docx)
        self._slots: dict[int, list[_Slot]] = {}
        self._line_starts: list[int] = []
        if lines:
            position = 0
            for line in content.text.split("\n"):
                self._line_starts.append(position)
                position += len(line) + 1

    def block_key(self, offset: int, length: int) -> tuple[int, int, int]:
        """(block index, block start, block end) of the block containing [offset, +length)."""
        if self._lines:
            index = _last_le(self._line_starts, offset)
            start = self._line_starts[index]
            end = (
                self._line_starts[index + 1] - 1
                if index + 1 < len(self._line_starts)
                else len(self._content.text)
            )
        else:
            index = -1
            for i, block in enumerate(self._content.blocks):
                if block.start <= offset < block.end or (length == 0 and offset == block.end):
                    index = i
                    break
            if index < 0:
                raise _Skip("the offset is not inside any paragraph or table row")
            start, end = self._content.blocks[index].start, self._content.blocks[index].end
        if offset + length > end:
            raise _Skip("the text spans more than one paragraph")
        return index, start, end

    def target(self, offset: int, length: int) -> _Target:
        index, start, end = self.block_key(offset, length)
        slots = self._slots.get(index)
        if slots is None:
            line = self._content.text[start:end]
            if self._lines:
                slots = _paragraph_slots(self._lines[index], _xml_safe(line), None)
            else:
                block: TextBlock = self._content.blocks[index]
                element = _resolve_locator(self._body, block.locator)
                if element.tag == _TR:
                    slots = _row_slots(element, line)
                else:
                    slots = _paragraph_slots(element, line, block.number_label)
            self._slots[index] = slots
        return _target_in(slots, offset - start, length)


def _last_le(values: list[int], x: int) -> int:
    lo, hi = 0, len(values) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if values[mid] <= x:
            lo = mid
        else:
            hi = mid - 1
    return lo


# ------------------------------------------------------------------------------------------
# Applying one diff
# ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Applied:
    first: etree._Element  # first changed element (w:del or w:ins)
    last: etree._Element  # last changed element


def _apply(diff: DocumentDiff, target: _Target, revision: _Revision) -> _Applied:
    p, start = target.p, target.local
    original = diff.original_text
    end = start + len(original)
    text, _ = _paragraph_model(p)
    if text[start:end] != original:
        raise _Skip("original_text is not at this place in the source document")
    if diff.action_type is ActionType.INSERT:
        return _apply_insert(p, start, end, diff.proposed_text, revision)
    _split_at(p, start)
    _split_at(p, end)
    runs = _runs_in(p, start, end)
    template = runs[0]
    deleted = _delete_runs(runs, revision)
    if diff.action_type is ActionType.REPLACE and diff.proposed_text:
        inserted = _insertion(diff.proposed_text, template, revision)
        deleted.addnext(inserted)
        return _Applied(deleted, inserted)
    return _Applied(deleted, deleted)


def _apply_insert(
    p: etree._Element, start: int, end: int, proposed: str, revision: _Revision
) -> _Applied:
    _split_at(p, end)
    _, pieces = _paragraph_model(p)
    if end > start:
        before = [x for x in pieces if x.end == end and x.end > x.start]
        anchor = before[-1] if before else None
        if anchor is None or anchor.run is None or not anchor.editable:
            raise _Skip("the anchor text ends inside a field, math or existing revision")
        inserted = _insertion(proposed, anchor.run, revision)
        anchor.run.addnext(inserted)
        return _Applied(inserted, inserted)
    # No anchor text: insert before the run starting here, else after the run ending here.
    after = [x for x in pieces if x.start == end and x.end > x.start]
    before = [x for x in pieces if x.end == end and x.end > x.start]
    if after and after[0].run is not None and after[0].editable:
        inserted = _insertion(proposed, after[0].run, revision)
        after[0].run.addprevious(inserted)
    elif before and before[-1].run is not None and before[-1].editable:
        inserted = _insertion(proposed, before[-1].run, revision)
        before[-1].run.addnext(inserted)
    elif not pieces:
        inserted = _insertion(proposed, None, revision)
        p.append(inserted)
    else:
        raise _Skip("the insertion point is inside a field, math or existing revision")
    return _Applied(inserted, inserted)


def _anchor_comment(applied: _Applied, comment_id: int) -> None:
    """Comment range markers around the changed elements and the reference run after them."""
    applied.first.addprevious(_marker("commentRangeStart", comment_id))
    end = _marker("commentRangeEnd", comment_id)
    applied.last.addnext(end)
    reference = etree.Element(_R)
    rpr = etree.SubElement(reference, _RPR)
    etree.SubElement(rpr, _w("rStyle")).set(_VAL, "CommentReference")
    etree.SubElement(reference, _w("commentReference")).set(_ID, str(comment_id))
    end.addnext(reference)


def _marker(name: str, comment_id: int) -> etree._Element:
    element = etree.Element(_w(name))
    element.set(_ID, str(comment_id))
    return element


# ------------------------------------------------------------------------------------------
# Public API
# ------------------------------------------------------------------------------------------


def _max_id(*roots: etree._Element | None) -> int:
    highest = -1
    for root in roots:
        if root is None:
            continue
        for element in root.iter():
            value = element.get(_ID)
            if value is not None and value.lstrip("-").isdigit():
                highest = max(highest, int(value))
    return highest


def _existing_comments(document: DocxDocument) -> etree._Element | None:
    try:
        part = document.part.part_related_by(RT.COMMENTS)
    except KeyError:
        return None
    return part.element if isinstance(part, XmlPart) else None


def _text_document(content: LoadedText) -> tuple[DocxDocument, list[etree._Element]]:
    """A new document with one plain paragraph per line of `content.text`."""
    document = docx.Document()
    body = document.element.body
    # Inserted before the section properties in one go: python-docx's add_paragraph looks
    # for them again on every call, which makes a long text quadratic.
    end = body.find(_w("sectPr"))
    paragraphs: list[etree._Element] = []
    for line in content.text.split("\n"):
        paragraph = etree.Element(_w("p"))
        if line:
            paragraph.append(_new_run(_xml_safe(line), None))
        if end is None:
            body.append(paragraph)
        else:
            end.addprevious(paragraph)
        paragraphs.append(paragraph)
    return document, paragraphs


def _iso(when: datetime | None) -> str:
    moment = when or datetime.now(UTC)
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _initials(author: str) -> str:
    words = re.findall(r"[^\W\d_]+", author)
    return "".join(w[0] for w in words).upper()[:4] or author[:2]


def _reference_run(comment_id: int) -> etree._Element:
    reference = etree.Element(_R)
    rpr = etree.SubElement(reference, _RPR)
    etree.SubElement(rpr, _w("rStyle")).set(_VAL, "CommentReference")
    etree.SubElement(reference, _w("commentReference")).set(_ID, str(comment_id))
    return reference


def _mark_at(p: etree._Element, local: int, marker: etree._Element, *, start: bool) -> None:
    """Put a range marker at character `local` of paragraph `p` (splitting a run there)."""
    _split_at(p, local)
    _, pieces = _paragraph_model(p)
    runs = [x for x in pieces if x.run is not None and x.end > x.start]
    if start:
        after = next((x for x in runs if x.start >= local), None)
        if after is not None and after.run is not None:
            after.run.addprevious(marker)
            return
    else:
        before = [x for x in runs if x.end <= local]
        if before and before[-1].run is not None:
            before[-1].run.addnext(marker)
            return
    _mark_paragraph(p, marker, start=start)


def _mark_paragraph(p: etree._Element, marker: etree._Element, *, start: bool) -> None:
    """Put a range marker at the start (after the paragraph properties) or end of `p`."""
    if start:
        ppr = p.find(_w("pPr"))
        if ppr is not None:
            ppr.addnext(marker)
        else:
            p.insert(0, marker)
    else:
        p.append(marker)


def _first_paragraph(body: etree._Element) -> etree._Element:
    for p in body.iter(_P):
        if "".join(t.text or "" for t in p.iter(_T)).strip():
            return p
    first = body.find(_P)
    if first is None:
        first = etree.Element(_P)
        body.insert(0, first)
    return first


def _anchor_note(
    locator: _Locator, body: etree._Element, note: CommentNote, comment_id: int
) -> bool:
    """Mark the note's span with the comment's range and reference; True when the span was
    marked exactly, False when the comment went on a whole paragraph instead."""
    begin, end = _marker("commentRangeStart", comment_id), _marker("commentRangeEnd", comment_id)
    length = max(note.end - note.start, 0)
    exact = True
    try:
        first = locator.target(note.start, 0)
        last = locator.target(note.end - 1, 1) if length else first
        end_local = last.local + 1 if length else first.local
        _mark_at(first.p, first.local, begin, start=True)
        _mark_at(last.p, end_local, end, start=False)
        paragraph = last.p
    except _Skip:
        exact = False
        try:
            paragraph = locator.target(note.start, 0).p
        except _Skip:
            paragraph = _first_paragraph(body)
        for marker in (begin, end):
            if marker.getparent() is not None:
                marker.getparent().remove(marker)  # type: ignore[union-attr]
        _mark_paragraph(paragraph, begin, start=True)
        _mark_paragraph(paragraph, end, start=False)
    paragraph.append(_reference_run(comment_id))
    return exact


class _CommentWriter:
    """Adds comments to a document's comments part, numbering them itself: python-docx looks
    for the highest id among all comments on every addition (quadratic with thousands)."""

    def __init__(self, document: DocxDocument, author: str, date: str) -> None:
        self.part = document.comments._comments_elm  # creates the part when missing
        used = [int(v) for v in self.part.xpath("./w:comment/@w:id") if v.lstrip("-").isdigit()]
        self.next_id = max(used, default=-1) + 1
        self.author, self.initials, self.date = author, _initials(author), date

    def add(self, note: CommentNote, *, bold: bool = True) -> int:
        """A comment holding the note (its title in bold); returns its id."""
        comment_id = self.next_id
        self.next_id += 1
        comment = etree.SubElement(self.part, _w("comment"))
        comment.set(_ID, str(comment_id))
        comment.set(_AUTHOR, self.author)
        comment.set(_w("initials"), self.initials)
        comment.set(_DATE, self.date)
        for n, text in enumerate((note.title, *note.lines)):
            paragraph = etree.SubElement(comment, _P)
            style = etree.SubElement(etree.SubElement(paragraph, _w("pPr")), _w("pStyle"))
            style.set(_VAL, "CommentText")
            if n == 0:  # the mark that ties the comment to its reference in the text
                mark = etree.SubElement(paragraph, _R)
                rstyle = etree.SubElement(etree.SubElement(mark, _RPR), _w("rStyle"))
                rstyle.set(_VAL, "CommentReference")
                etree.SubElement(mark, _w("annotationRef"))
            run = _new_run(_xml_safe(text), None)
            if n == 0 and bold:
                run.insert(0, etree.Element(_RPR))
                etree.SubElement(run[0], _w("b"))
            paragraph.append(run)
        return comment_id


def _insert_paragraph(after: etree._Element, text: str, revision: _Revision) -> etree._Element:
    """A new paragraph after `after`, its text and its paragraph mark tracked insertions."""
    paragraph = etree.Element(_P)
    ppr = etree.SubElement(paragraph, _w("pPr"))
    rpr = etree.SubElement(ppr, _RPR)
    rpr.append(revision.wrapper(_INS))
    paragraph.append(_insertion(_xml_safe(text), None, revision))
    after.addnext(paragraph)
    return paragraph


def _set_properties(document: DocxDocument, title: str, author: str, when: datetime) -> None:
    props = document.core_properties
    props.title = title
    props.author = author
    props.last_modified_by = author
    props.created = when
    props.modified = when
    props.revision = 1
    props.comments = ""


def write_redline_docx(
    content: LoadedText,
    diffs: Sequence[DocumentDiff],
    out: Path,
    *,
    source_docx: Path | None = None,
    author: str = "contract-review",
    when: datetime | None = None,
    notes: Sequence[CommentNote] | None = None,
    instructions: Sequence[Instruction] = (),
    title: str = "",
) -> RedlineStats:
    """Write the APPROVED `diffs` as Word tracked changes, with comments, to `out`.

    `content` is the text the diffs' offsets index; `source_docx`, when given, is the .docx it
    was read from (its formatting, numbering and tables are kept). Pending and rejected diffs
    are ignored. `notes` are the margin comments, each on its span of `content.text` (a span
    that cannot be marked exactly goes on its paragraph); without `notes`, each applied diff
    gets a comment holding its reason. `instructions` are new paragraphs inserted as tracked
    changes with their comments. `author` signs every change and comment and, with `title`,
    goes into the document's properties. See the module docstring for how diffs are placed and
    when they are skipped.
    """
    stats = RedlineStats()
    moment = (when or datetime.now(UTC)).astimezone(UTC)
    approved = [d for d in diffs if d.status is DiffStatus.APPROVED]
    if source_docx is not None:
        document = docx.Document(str(source_docx))
        lines: list[etree._Element] = []
    else:
        document, lines = _text_document(content)
    _set_properties(document, title or out.stem, author, moment.replace(microsecond=0))
    body = document.element.body
    existing = _existing_comments(document)
    revision = _Revision(
        author=author,
        date=_iso(moment),
        ids=_Ids(_max_id(document.element, existing) + 1),
    )
    locator = _Locator(content, body, lines)

    # Comments are marked first, on the untouched text: their ranges are markers the tracked
    # changes step over, so a change inside a commented span still applies.
    # (created only when a comment is written: a document without one gets no comments part)
    writer = _CommentWriter(document, author, revision.date) if notes or instructions else None
    for note in notes or ():
        assert writer is not None
        comment_id = writer.add(note)
        stats.comments += 1
        if not _anchor_note(locator, body, note, comment_id):
            stats.comments_moved += 1
    instruction_comments = [
        writer.add(i.note) if writer is not None and i.note is not None else None
        for i in instructions
    ]
    # Revisions take ids above every comment's: ids of annotations must not collide.
    # (without notes, a comment per applied diff follows: its ids are kept free too)
    reserved = len(approved) if notes is None else 0
    revision.ids = _Ids(_max_id(document.element, _existing_comments(document)) + 1 + reserved)

    # Place every diff first, then apply from the end of the document backwards, so that the
    # offsets of the diffs still to apply stay valid.
    placed: list[tuple[int, int, DocumentDiff]] = []
    for diff in approved:
        try:
            start = _start_offset(diff, content.text)
            length = len(diff.original_text)
            if diff.action_type is not ActionType.INSERT and not diff.original_text:
                raise _Skip("empty original_text")
            if diff.action_type is ActionType.INSERT and not diff.proposed_text:
                raise _Skip("nothing to insert")
            if content.text[start : start + length] != diff.original_text:
                raise _Skip("original_text does not match the document text at start_offset")
            locator.block_key(start, length)
            _check_overlap(diff, start, start + length, placed)
        except _Skip as exc:
            stats.skipped.append(SkippedDiff(diff.diff_id, str(exc)))
            continue
        placed.append((start, start + length, diff))
    placed.sort(key=lambda item: (item[0], item[1]), reverse=True)

    done: list[tuple[DocumentDiff, _Applied]] = []
    floor: int | None = None  # start of the last applied diff (everything after is edited)
    for start, end, diff in placed:
        try:
            if floor is not None and end > floor:
                raise _Skip("overlaps another approved diff")
            target = locator.target(start, end - start)
            applied = _apply(diff, target, revision)
        except _Skip as exc:
            stats.skipped.append(SkippedDiff(diff.diff_id, str(exc)))
            continue
        floor = start
        done.append((diff, applied))

    done.reverse()
    for diff, applied in done:
        if notes is None:
            writer = writer or _CommentWriter(document, author, revision.date)
            reason = CommentNote(0, 0, title=diff.reason or f"Redline {diff.diff_id}")
            _anchor_comment(applied, writer.add(reason, bold=False))
            stats.comments += 1
        stats.applied += 1
        stats.applied_ids.append(diff.diff_id)
    _add_instructions(locator, body, instructions, instruction_comments, revision, stats)
    order = {d.diff_id: i for i, d in enumerate(diffs)}
    stats.skipped.sort(key=lambda s: order.get(s.diff_id, 0))
    document.save(str(out))
    return stats


def _add_instructions(
    locator: _Locator,
    body: etree._Element,
    instructions: Sequence[Instruction],
    comment_ids: Sequence[int | None],
    revision: _Revision,
    stats: RedlineStats,
) -> None:
    """Insert each instruction as a tracked paragraph after its anchor paragraph (in the
    order given when several follow one paragraph), each with its comment on it."""
    # Keyed by the anchor element itself: the key keeps its proxy alive, so lxml hands back
    # the same object for the same paragraph.
    last_after: dict[etree._Element, etree._Element] = {}
    for instruction, comment_id in zip(instructions, comment_ids, strict=True):
        anchor: etree._Element | None = None
        if instruction.after is not None:
            try:
                anchor = locator.target(instruction.after, 0).p
            except _Skip:
                anchor = None
        if anchor is None:
            paragraphs = [p for p in body if p.tag == _P]
            anchor = paragraphs[-1] if paragraphs else _first_paragraph(body)
        paragraph = _insert_paragraph(last_after.get(anchor, anchor), instruction.text, revision)
        last_after[anchor] = paragraph
        stats.instructions += 1
        if comment_id is not None:
            _mark_paragraph(paragraph, _marker("commentRangeStart", comment_id), start=True)
            paragraph.append(_marker("commentRangeEnd", comment_id))
            paragraph.append(_reference_run(comment_id))
            stats.comments += 1


def clean_copy(redline: Path, out: Path) -> None:
    """`redline` with every tracked change accepted and every comment removed: the clean
    version of the contract as the approved changes make it."""
    document = docx.Document(str(redline))
    body = document.element.body
    _accept_all(body)
    for p in body.iter(_w("pPr")):
        rpr = p.find(_RPR)
        if rpr is not None:
            for mark in rpr.findall(_INS):
                rpr.remove(mark)
    for tag in ("commentRangeStart", "commentRangeEnd"):
        for element in list(body.iter(_w(tag))):
            _drop(element)
    for reference in list(body.iter(_w("commentReference"))):
        run = reference.getparent()
        if run is not None and run.tag == _R:
            _drop(run)
    comments = _existing_comments(document)
    if comments is not None:
        for child in list(comments):
            comments.remove(child)
    document.save(str(out))


def _check_overlap(
    diff: DocumentDiff, start: int, end: int, placed: list[tuple[int, int, DocumentDiff]]
) -> None:
    """Refuse a diff touching the text of a diff listed before it (the first one wins)."""
    for other_start, other_end, other in placed:
        if start < other_end and other_start < end:
            raise _Skip(f"overlaps approved diff {other.diff_id}")
        both_insert = diff.action_type is other.action_type is ActionType.INSERT
        if both_insert and end == other_end:
            raise _Skip(f"inserts at the same place as approved diff {other.diff_id}")


def _start_offset(diff: DocumentDiff, text: str) -> int:
    if diff.start_offset is not None:
        return diff.start_offset
    if not diff.original_text:
        raise _Skip("no start_offset and no original_text")
    first = text.find(diff.original_text)
    if first < 0:
        raise _Skip("original_text not found in the document text")
    if text.find(diff.original_text, first + 1) >= 0:
        raise _Skip("no start_offset and original_text occurs more than once")
    return first


# ------------------------------------------------------------------------------------------
# Reading a redline back
# ------------------------------------------------------------------------------------------


def accept_all_text(docx_path: Path) -> str:
    """The document's text with every tracked change accepted (intake reader's text form)."""
    return _read_text(Path(docx_path), reject=False)


def reject_all_text(docx_path: Path) -> str:
    """The document's text with every tracked change rejected (intake reader's text form)."""
    return _read_text(Path(docx_path), reject=True)


def _read_text(path: Path, *, reject: bool) -> str:
    document = docx.Document(str(path))
    body = document.element.body
    if reject:
        _reject_all(body)
    else:
        _accept_all(body)
    with tempfile.TemporaryDirectory() as tmp:
        copy_path = Path(tmp) / "resolved.docx"
        document.save(str(copy_path))
        try:
            return body_text(read_docx(copy_path, get_settings()))
        except EmptyDocumentError:
            return ""


def _unwrap(element: etree._Element) -> None:
    parent = element.getparent()
    if parent is None:
        return
    for child in list(element):
        element.addprevious(child)
    parent.remove(element)


def _drop(element: etree._Element) -> None:
    parent = element.getparent()
    if parent is not None:
        parent.remove(element)


def _accept_all(body: etree._Element) -> None:
    for element in list(body.iter(_DEL, _MOVE_FROM)):
        parent = element.getparent()
        if parent is not None and parent.tag not in (_RPR, _TRPR, _w("pPr")):
            _drop(element)  # paragraph-mark and row markers are left to the reader
    for element in list(body.iter(_INS, _MOVE_TO)):
        parent = element.getparent()
        if parent is not None and parent.tag not in (_RPR, _TRPR, _w("pPr")):
            _unwrap(element)


def _reject_all(body: etree._Element) -> None:
    for row in list(body.iter(_TR)):
        tr_pr = row.find(_TRPR)
        if tr_pr is not None and tr_pr.find(_INS) is not None:
            _drop(row)
        elif tr_pr is not None:
            for marker in tr_pr.findall(_DEL):
                tr_pr.remove(marker)
    for element in list(body.iter(_INS, _MOVE_TO)):
        parent = element.getparent()
        if parent is not None and parent.tag not in (_RPR, _TRPR, _w("pPr")):
            _drop(element)
    for element in list(body.iter(_DEL, _MOVE_FROM)):
        parent = element.getparent()
        if parent is None or parent.tag in (_RPR, _TRPR, _w("pPr")):
            continue
        for text in element.iter(_DEL_TEXT):
            text.tag = _T
        for instr in element.iter(_DEL_INSTR_TEXT):
            instr.tag = _INSTR_TEXT
        _unwrap(element)
