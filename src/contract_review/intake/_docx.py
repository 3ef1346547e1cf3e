"""Read a Word .docx into `LoadedText`.

What the reader sees is what a lawyer sees in Word (tracked changes accepted):

* the body in document order: paragraphs, tables (one line per row, cells joined by " | ",
  nested tables flattened into their cell), content controls (`w:sdt`), text boxes;
* Word's automatic numbers ("1.1", "(a)", "第一条"), recovered from numbering.xml by
  `NumberingResolver` and written in front of the paragraph text as Word lays them out:
  `label + suffix + text` (suffix "\\t", " " or "");
* inserted text (`w:ins`) and field results; never deleted text (`w:del`, `w:moveFrom`) nor
  field codes (`w:instrText`);
* hidden text (vanished, tiny or white runs) is extracted too but reported as `HiddenTextSpan`s,
  because it is a channel for hiding instructions from the human reader;
* after the body, an annex: footnotes, endnotes, the distinct texts of headers and footers, and
  comments, each under its own heading ("Footnotes", "脚注" …) and numbered "[1] ": their terms
  are reviewed and scanned like the body's, but their locators ("/footnotes/1/p[1]") name no
  body paragraph, so no redline is ever written into them.

Blocks and locators. Every emitted line is exactly one `TextBlock` (`text[start:end]` is the
line, number label included). Paragraphs that render as nothing (no text, no number) produce no
line and no block, but still count in the locator indexes:

* ``/body/p[N]``: the N-th (1-based) `w:p` yielded by `iter_block_elements(body)`, i.e. the
  paragraphs directly in `w:body` or inside block-level `w:sdt`/`w:customXml` wrappers, not
  those inside tables or text boxes. It is not an XPath when such wrappers are present: use
  `iter_block_elements` to find the paragraph again.
* ``table T row R``: the T-th `w:tbl` yielded by `iter_block_elements(body)` and its R-th row
  as yielded by `iter_table_rows(tbl)`.
* ``/body/p[N]/txbx[K]/p[M]`` and ``/body/p[N]/txbx[K]/tbl[T]/tr[R]``: content of the K-th
  text box of body paragraph N, as yielded by `iter_text_boxes(p)`; the same counting rules
  apply inside the text box (`iter_block_elements(txbx_content)`).

Text boxes inside table cells are flattened into the cell text.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import docx
from docx.document import Document as DocxDocument
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.exceptions import OpcError
from docx.opc.part import XmlPart
from docx.oxml.parser import parse_xml
from docx.styles import BabelFish
from lxml import etree

from contract_review.config import Settings
from contract_review.errors import CorruptDocumentError, EmptyDocumentError
from contract_review.intake._numbering import NumberingResolver, NumberLabel
from contract_review.models import DocumentFormat, HiddenTextSpan, LoadedText, TextBlock
from contract_review.ooxml import (
    INLINE_WRAPPERS,
    choose_alternate,
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
from contract_review.text import has_cjk

__all__ = ["read_docx"]

_VAL = _w("val")
_P, _TBL, _TR, _TC, _R = _w("p"), _w("tbl"), _w("tr"), _w("tc"), _w("r")
_PPR, _RPR, _TRPR, _TCPR = _w("pPr"), _w("rPr"), _w("trPr"), _w("tcPr")
_PSTYLE, _RSTYLE = _w("pStyle"), _w("rStyle")
_NUMPR, _NUM_ID, _ILVL = _w("numPr"), _w("numId"), _w("ilvl")
_SDT, _SDT_CONTENT, _CUSTOM_XML = _w("sdt"), _w("sdtContent"), _w("customXml")
_DEL, _MOVE_FROM = _w("del"), _w("moveFrom")
_T, _TAB, _PTAB, _BR, _CR = _w("t"), _w("tab"), _w("ptab"), _w("br"), _w("cr")
_NO_BREAK_HYPHEN, _SYM, _CHAR = _w("noBreakHyphen"), _w("sym"), _w("char")
_FLD_CHAR = _w("fldChar")
_RUBY, _RUBY_BASE = _w("ruby"), _w("rubyBase")
_DRAWING, _PICT, _OBJECT = _w("drawing"), _w("pict"), _w("object")
_TXBX_CONTENT = _w("txbxContent")
_VANISH, _SZ, _COLOR, _SHD, _HIGHLIGHT = (
    _w("vanish"),
    _w("sz"),
    _w("color"),
    _w("shd"),
    _w("highlight"),
)
_THEME_COLOR, _THEME_SHADE, _FILL = _w("themeColor"), _w("themeShade"), _w("fill")
_STYLE, _STYLE_ID, _TYPE, _DEFAULT = _w("style"), _w("styleId"), _w("type"), _w("default")
_NAME, _BASED_ON = _w("name"), _w("basedOn")
_DOC_DEFAULTS, _RPR_DEFAULT = _w("docDefaults"), _w("rPrDefault")
_BACKGROUND = _w("background")
_ALT_CONTENT, _CHOICE, _FALLBACK = (
    f"{{{_MC_NS}}}AlternateContent",
    f"{{{_MC_NS}}}Choice",
    f"{{{_MC_NS}}}Fallback",
)
_M_OMATH, _M_OMATH_PARA, _M_T = f"{{{_M_NS}}}oMath", f"{{{_M_NS}}}oMathPara", f"{{{_M_NS}}}t"

_TINY_FONT_HALF_POINTS = 4  # 2 pt: unreadable when printed
_WHITE_LUMINANCE = 0.94  # font colours at least this light count as white
_DARK_LUMINANCE = 0.6  # backgrounds darker than this make white text readable
_DARK_HIGHLIGHTS = frozenset(
    {
        "black",
        "blue",
        "darkBlue",
        "darkCyan",
        "darkGray",
        "darkGreen",
        "darkMagenta",
        "darkRed",
        "green",
        "magenta",
        "red",
    }
)
_HEADING_STYLE = re.compile(r"^(?:heading|标题)\s*[1-9]$", re.IGNORECASE)
_HEX_COLOR = re.compile(r"^[0-9A-Fa-f]{6}$")
_Segment = tuple[str, str | None]  # (text, hidden reason or None)


# ------------------------------------------------------------------------------------------
# Public element iterators: they define the locator indexes (see the module docstring).
# ------------------------------------------------------------------------------------------


# ------------------------------------------------------------------------------------------
# Formatting relevant to hidden text
# ------------------------------------------------------------------------------------------


def _on(el: etree._Element | None) -> bool | None:
    """OOXML on/off property: None when absent."""
    if el is None:
        return None
    return el.get(_VAL, "true").strip().lower() not in {"false", "0", "off", "none"}


def _int_val(el: etree._Element | None) -> int | None:
    if el is None:
        return None
    raw = el.get(_VAL)
    if raw is None:
        return None
    try:
        return int(raw.strip())
    except ValueError:
        return None


def _luminance(hex_color: str) -> float:
    red, green, blue = (int(hex_color[i : i + 2], 16) for i in (0, 2, 4))
    return (0.299 * red + 0.587 * green + 0.114 * blue) / 255


def _half_points(el: etree._Element | None) -> int | None:
    """`w:sz` in half-points; strict OOXML may write a measure like "1pt"."""
    if el is None:
        return None
    raw = (el.get(_VAL) or "").strip()
    try:
        if raw.endswith("pt"):
            return round(float(raw[:-2]) * 2)
        return int(raw)
    except ValueError:
        return None


def _is_white(color: etree._Element | None) -> bool | None:
    if color is None:
        return None
    theme = color.get(_THEME_COLOR)
    if theme is not None:  # the theme colour wins over the cached w:val
        return theme in {"background1", "light1"} and color.get(_THEME_SHADE) is None
    value = color.get(_VAL, "auto")
    return bool(_HEX_COLOR.match(value)) and _luminance(value) >= _WHITE_LUMINANCE


def _shading_dark(shd: etree._Element | None) -> bool | None:
    """Whether a `w:shd` paints a dark background (None: no shading element)."""
    if shd is None:
        return None
    pattern = shd.get(_VAL, "clear")
    if pattern == "nil":
        return False
    color = shd.get(_COLOR, "auto")
    if pattern == "solid" and _HEX_COLOR.match(color):
        return _luminance(color) < _DARK_LUMINANCE
    fill = shd.get(_FILL, "auto")
    return bool(_HEX_COLOR.match(fill)) and _luminance(fill) < _DARK_LUMINANCE


@dataclass(frozen=True, slots=True)
class _RunProps:
    """The run properties that can hide text; None means "not set at this level"."""

    vanish: bool | None = None
    size: int | None = None  # half-points
    white: bool | None = None
    shading_dark: bool | None = None
    highlight_dark: bool | None = None

    def over(self, base: _RunProps) -> _RunProps:
        """These properties applied on top of `base` (set values win)."""
        if self is _NO_PROPS:
            return base
        return _RunProps(
            vanish=base.vanish if self.vanish is None else self.vanish,
            size=base.size if self.size is None else self.size,
            white=base.white if self.white is None else self.white,
            shading_dark=base.shading_dark if self.shading_dark is None else self.shading_dark,
            highlight_dark=(
                base.highlight_dark if self.highlight_dark is None else self.highlight_dark
            ),
        )

    def hidden_reason(self, background_dark: bool) -> str | None:
        """Why text with these properties is invisible, or None when it is visible."""
        if self.vanish:
            return "vanish"
        if self.size is not None and self.size <= _TINY_FONT_HALF_POINTS:
            return "tiny_font"
        if self.white:
            dark = (
                self.highlight_dark is True
                or self.shading_dark is True
                or (self.shading_dark is None and background_dark)
            )
            if not dark:
                return "white_text"
        return None


_NO_PROPS = _RunProps()


def _parse_rpr(rpr: etree._Element | None) -> tuple[_RunProps, str | None]:
    """The hiding-relevant properties of a `w:rPr` and its character style id.

    One pass over the children: this runs for every run of the document.
    """
    if rpr is None:
        return _NO_PROPS, None
    vanish: bool | None = None
    size: int | None = None
    white: bool | None = None
    shading: bool | None = None
    highlight: bool | None = None
    run_style: str | None = None
    for prop in rpr:
        tag = prop.tag
        if tag == _SZ:
            size = _half_points(prop)
        elif tag == _RSTYLE:
            run_style = prop.get(_VAL)
        elif tag == _VANISH:
            vanish = _on(prop)
        elif tag == _COLOR:
            white = _is_white(prop)
        elif tag == _SHD:
            shading = _shading_dark(prop)
        elif tag == _HIGHLIGHT:
            highlight = prop.get(_VAL) in _DARK_HIGHLIGHTS
    if vanish is None and size is None and white is None and shading is None and highlight is None:
        return _NO_PROPS, run_style
    return _RunProps(vanish, size, white, shading, highlight), run_style


def _child(parent: etree._Element, tag: str) -> etree._Element | None:
    """First child with `tag` (a plain loop beats `find`, which goes through ElementPath)."""
    for child in parent:
        if child.tag == tag:
            return child
    return None


# ------------------------------------------------------------------------------------------
# Styles
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Style:
    name: str | None
    based_on: str | None
    run_props: _RunProps
    paragraph_shading_dark: bool | None
    num_id: int | None
    ilvl: int | None


@dataclass(frozen=True, slots=True)
class _ParagraphStyleInfo:
    name: str | None
    is_heading: bool
    shading_dark: bool | None


_MAX_STYLE_DEPTH = 20  # basedOn chains are short; longer ones are cycles or hostile


class _StyleSheet:
    """styles.xml indexed once: names, basedOn chains, numbering and hiding properties."""

    def __init__(self, styles: etree._Element | None) -> None:
        self._styles: dict[str, _Style] = {}
        self.default_paragraph_style: str | None = None
        self._defaults = _NO_PROPS
        self._run_cache: dict[tuple[str | None, str | None], _RunProps] = {}
        self._chain_cache: dict[str, tuple[_Style, ...]] = {}
        self._numbering_cache: dict[str | None, tuple[int | None, int | None, str | None]] = {}
        self._info_cache: dict[str | None, _ParagraphStyleInfo] = {}
        if styles is None:
            return
        defaults = styles.find(_DOC_DEFAULTS)
        if defaults is not None:
            rpr_default = defaults.find(_RPR_DEFAULT)
            if rpr_default is not None:
                self._defaults = _parse_rpr(rpr_default.find(_RPR))[0]
        for style in styles.iterfind(_STYLE):
            style_id = style.get(_STYLE_ID)
            if style_id is None:
                continue
            if style.get(_TYPE, "paragraph") == "paragraph" and style.get(_DEFAULT) in {
                "1",
                "true",
                "on",
            }:
                self.default_paragraph_style = style_id
            name_el, based_el = style.find(_NAME), style.find(_BASED_ON)
            ppr = style.find(_PPR)
            num_pr = ppr.find(_NUMPR) if ppr is not None else None
            self._styles[style_id] = _Style(
                name=name_el.get(_VAL) if name_el is not None else None,
                based_on=based_el.get(_VAL) if based_el is not None else None,
                run_props=_parse_rpr(style.find(_RPR))[0],
                paragraph_shading_dark=_shading_dark(ppr.find(_SHD)) if ppr is not None else None,
                num_id=_int_val(num_pr.find(_NUM_ID)) if num_pr is not None else None,
                ilvl=_int_val(num_pr.find(_ILVL)) if num_pr is not None else None,
            )

    def __contains__(self, style_id: str) -> bool:
        return style_id in self._styles

    def chain(self, style_id: str | None) -> tuple[_Style, ...]:
        """The style and its `w:basedOn` ancestors, nearest first (cycle-safe)."""
        if style_id is None:
            return ()
        cached = self._chain_cache.get(style_id)
        if cached is not None:
            return cached
        styles: list[_Style] = []
        seen: set[str] = set()
        current: str | None = style_id
        while current is not None and current not in seen and len(styles) < _MAX_STYLE_DEPTH:
            seen.add(current)
            style = self._styles.get(current)
            if style is None:
                break
            styles.append(style)
            current = style.based_on
        result = tuple(styles)
        self._chain_cache[style_id] = result
        return result

    def name(self, style_id: str | None) -> str | None:
        """The style's name as Word shows it ("Heading 1"), or its id when it has no name."""
        if style_id is None:
            return None
        style = self._styles.get(style_id)
        if style is None or style.name is None:
            return style_id
        return BabelFish.internal2ui(style.name)

    def numbering(self, style_id: str | None) -> tuple[int | None, int | None, str | None]:
        """(numId, ilvl, id of the style giving the numId) inherited from a paragraph style."""
        cached = self._numbering_cache.get(style_id)
        if cached is None:
            cached = self._numbering_cache[style_id] = self._inherited_numbering(style_id)
        return cached

    def _inherited_numbering(
        self, style_id: str | None
    ) -> tuple[int | None, int | None, str | None]:
        num_id: int | None = None
        ilvl: int | None = None
        source: str | None = None
        current = style_id
        for style in self.chain(style_id):
            if num_id is None and style.num_id is not None:
                num_id, source = style.num_id, current
            if ilvl is None and style.ilvl is not None:
                ilvl = style.ilvl
            current = style.based_on
        return num_id, ilvl, source

    def own_num_ids(self) -> dict[str, int]:
        """Style id -> the numId in the style's own numPr (targets of `w:numStyleLink`)."""
        return {sid: s.num_id for sid, s in self._styles.items() if s.num_id is not None}

    def paragraph_info(self, style_id: str | None) -> _ParagraphStyleInfo:
        """Name, heading-ness and shading of a paragraph style (cached)."""
        info = self._info_cache.get(style_id)
        if info is None:
            name = self.name(style_id)
            info = _ParagraphStyleInfo(
                name=name,
                is_heading=name is not None and bool(_HEADING_STYLE.match(name)),
                shading_dark=self._paragraph_shading_dark(style_id),
            )
            self._info_cache[style_id] = info
        return info

    def _paragraph_shading_dark(self, style_id: str | None) -> bool | None:
        for style in self.chain(style_id):
            if style.paragraph_shading_dark is not None:
                return style.paragraph_shading_dark
        return None

    def run_props(self, paragraph_style: str | None, run_style: str | None) -> _RunProps:
        """Defaults, then the paragraph style chain, then the character style chain."""
        key = (paragraph_style, run_style)
        cached = self._run_cache.get(key)
        if cached is not None:
            return cached
        props = self._defaults
        for style in reversed(self.chain(paragraph_style)):
            props = style.run_props.over(props)
        for style in reversed(self.chain(run_style)):
            props = style.run_props.over(props)
        self._run_cache[key] = props
        return props


# ------------------------------------------------------------------------------------------
# Reading
# ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _ParagraphState:
    """What the run walk of one paragraph collects."""

    style_id: str | None
    background_dark: bool
    segments: list[_Segment] = field(default_factory=list)
    # Open complex fields of this paragraph; True while between "begin" and "separate", where
    # everything is field code, not displayed text.
    fields: list[bool] = field(default_factory=list)

    def add(self, text: str, reason: str | None) -> None:
        if not text:
            return
        text = visible_text(text)
        if self.segments and self.segments[-1][1] == reason:
            self.segments[-1] = (self.segments[-1][0] + text, reason)
        else:
            self.segments.append((text, reason))


@dataclass(frozen=True, slots=True)
class _Paragraph:
    """One paragraph as displayed: its number label and text segments."""

    segments: list[_Segment]
    label: NumberLabel | None
    style_name: str | None
    is_heading: bool


def _strip_breaks(segments: list[_Segment]) -> list[_Segment]:
    """Drop line/page breaks at the very start or end of a paragraph: they add no text."""
    while segments and segments[0][0].startswith("\n"):
        text, reason = segments[0]
        text = text.lstrip("\n")
        segments = [(text, reason), *segments[1:]] if text else segments[1:]
    while segments and segments[-1][0].endswith("\n"):
        text, reason = segments[-1]
        text = text.rstrip("\n")
        segments = [*segments[:-1], (text, reason)] if text else segments[:-1]
    return segments


def _is_deleted_row(row: etree._Element) -> bool:
    """Whether a table row is a tracked deletion (`w:trPr/w:del`)."""
    tr_pr = _child(row, _TRPR)
    return tr_pr is not None and _child(tr_pr, _DEL) is not None


def _is_blank(segments: list[_Segment]) -> bool:
    return all(not text.strip() for text, _ in segments)


_ANNEX_TITLES = {
    "footnotes": ("Footnotes", "脚注"),
    "endnotes": ("Endnotes", "尾注"),
    "headers": ("Headers and footers", "页眉和页脚"),
    "comments": ("Comments", "批注"),
}
"""Headings of the annex the reader adds after the body (English, Chinese)."""
_ANNEX_PARTS = {
    RT.FOOTNOTES: "footnotes",
    RT.ENDNOTES: "endnotes",
    RT.HEADER: "headers",
    RT.FOOTER: "headers",
    RT.COMMENTS: "comments",
}


class _DocxReader:
    """Walks one document and accumulates text lines, blocks and hidden spans."""

    def __init__(self, document: DocxDocument) -> None:
        # A package whose w:document has no w:body reads as an empty document.
        body = document.element.body
        self._body: etree._Element = body if body is not None else etree.Element(_w("body"))
        # One C-level scan spares looking for text boxes in every paragraph of most documents.
        self._has_text_boxes = next(self._body.iter(_TXBX_CONTENT), None) is not None
        self._styles = _StyleSheet(_part_element(document, RT.STYLES))
        self._numbering = NumberingResolver(
            _part_element(document, RT.NUMBERING), self._styles.own_num_ids()
        )
        background = document.element.find(_BACKGROUND)
        page_color = background.get(_COLOR, "auto") if background is not None else "auto"
        self._page_dark = bool(_HEX_COLOR.match(page_color)) and (
            _luminance(page_color) < _DARK_LUMINANCE
        )
        self._document = document
        self.lines: list[str] = []
        self.blocks: list[TextBlock] = []
        self.hidden: list[HiddenTextSpan] = []
        self._offset = 0

    def read(self) -> None:
        """Read the whole body, then the annex: footnotes, endnotes, headers and footers,
        comments (their terms are reviewed, and a hidden instruction can sit in any of them)."""
        self._walk(self._body, None, self._page_dark)
        zh = any(has_cjk(line) for line in self.lines[:200])
        for kind, notes in self._annex():
            paragraphs = [
                (n, k, para)
                for n, note in enumerate(notes, start=1)
                for k, p in enumerate(note.iter(_P), start=1)
                if (para := self._paragraph(p, self._page_dark)) is not None
                and not _is_blank(para.segments)
            ]
            if not paragraphs:
                continue
            title = _ANNEX_TITLES[kind][1 if zh else 0]
            self._emit([(title, None)], kind="heading", locator=f"/{kind}", label=None, style=None)
            for n, k, para in paragraphs:
                mark = [(f"[{n}] ", None)] if k == 1 else []
                self._emit(
                    [*mark, *para.segments],
                    kind="paragraph",
                    locator=f"/{kind}/{n}/p[{k}]",  # not a body locator: never redlined
                    label=None,
                    style=para.style_name,
                )

    def _annex(self) -> list[tuple[str, list[etree._Element]]]:
        """The notes, headers and footers (each distinct text once) and comments."""
        found: dict[str, list[etree._Element]] = {kind: [] for kind in _ANNEX_TITLES}
        seen: set[str] = set()
        for rel in self._document.part.rels.values():
            kind = _ANNEX_PARTS.get(rel.reltype)
            if kind is None or rel.is_external:
                continue
            part = rel.target_part
            # python-docx has no part class for notes: it keeps them as bytes.
            root = part.element if isinstance(part, XmlPart) else parse_xml(part.blob)
            if kind in ("footnotes", "endnotes"):
                tag = _w(kind[:-1])
                found[kind].extend(
                    n for n in root.iter(tag) if n.get(_w("type")) in (None, "normal")
                )
            elif kind == "comments":
                found[kind].extend(root.iter(_w("comment")))
            else:
                text = "".join(str(t) for t in root.itertext()).strip()
                if text and not text.isdigit() and text not in seen:
                    seen.add(text)
                    found[kind].append(root)
        return [(kind, notes) for kind, notes in found.items() if notes]

    # --- blocks -------------------------------------------------------------------------

    def _walk(self, container: etree._Element, prefix: str | None, dark: bool) -> None:
        paragraphs = tables = 0
        for block in iter_block_elements(container):
            if block.tag == _P:
                paragraphs += 1
                base = "/body" if prefix is None else prefix
                self._block_paragraph(block, f"{base}/p[{paragraphs}]", dark)
            else:
                tables += 1
                self._block_table(block, tables, prefix, dark)

    def _block_paragraph(self, p: etree._Element, locator: str, dark: bool) -> None:
        paragraph = self._paragraph(p, dark)
        if paragraph is not None and not _is_blank(paragraph.segments):
            self._emit(
                paragraph.segments,
                kind="heading" if paragraph.is_heading else "paragraph",
                locator=locator,
                label=paragraph.label.text if paragraph.label is not None else None,
                style=paragraph.style_name,
            )
        # Text boxes come after their anchor paragraph (Word draws them as separate stories).
        if self._has_text_boxes:
            for index, box in enumerate(iter_text_boxes(p), start=1):
                self._walk(box, f"{locator}/txbx[{index}]", dark)

    def _block_table(
        self, table: etree._Element, number: int, prefix: str | None, dark: bool
    ) -> None:
        for row_number, row in enumerate(iter_table_rows(table), start=1):
            segments = self._row_segments(row, dark)
            if segments is None or _is_blank(segments):
                continue
            locator = (
                f"table {number} row {row_number}"
                if prefix is None
                else f"{prefix}/tbl[{number}]/tr[{row_number}]"
            )
            self._emit(segments, kind="table_row", locator=locator, label=None, style=None)

    def _row_segments(self, row: etree._Element, dark: bool) -> list[_Segment] | None:
        """A row's cells joined by " | "; None for a row deleted as a tracked change."""
        if _is_deleted_row(row):
            return None
        segments: list[_Segment] = []
        for index, cell in enumerate(iter_cells(row)):
            if index:
                segments.append((" | ", None))
            segments.extend(self._cell_segments(cell, dark))
        return segments

    def _cell_segments(self, cell: etree._Element, dark: bool) -> list[_Segment]:
        """All text of a cell on one line: paragraphs, text boxes, nested tables, joined by " "."""
        tc_pr = cell.find(_TCPR)
        cell_dark = _shading_dark(tc_pr.find(_SHD)) if tc_pr is not None else None
        if cell_dark is not None:
            dark = cell_dark
        parts: list[list[_Segment]] = []
        self._collect_flat(cell, dark, parts)
        segments: list[_Segment] = []
        for part in parts:
            if segments:
                segments.append((" ", None))
            # A row is one line: line breaks inside a cell become spaces.
            segments.extend((text.replace("\n", " "), reason) for text, reason in part)
        return segments

    def _collect_flat(
        self, container: etree._Element, dark: bool, parts: list[list[_Segment]]
    ) -> None:
        for block in iter_block_elements(container):
            if block.tag == _P:
                paragraph = self._paragraph(block, dark)
                if paragraph is not None and not _is_blank(paragraph.segments):
                    parts.append(paragraph.segments)
                if self._has_text_boxes:
                    for box in iter_text_boxes(block):
                        self._collect_flat(box, dark, parts)
            else:
                # A nested table: its cells join the outer cell's text like paragraphs, so the
                # " | " separators of the line stay those of the outer row.
                for row in iter_table_rows(block):
                    if _is_deleted_row(row):
                        continue
                    for cell in iter_cells(row):
                        cell_segments = self._cell_segments(cell, dark)
                        if not _is_blank(cell_segments):
                            parts.append(cell_segments)

    # --- paragraphs ---------------------------------------------------------------------

    def _paragraph(self, p: etree._Element, dark: bool) -> _Paragraph | None:
        """The paragraph as displayed; None when a tracked change deleted it entirely.

        Advances the numbering counters (call it once per paragraph, in document order).
        """
        p_pr: etree._Element | None = None
        style_id: str | None = None
        num_pr: etree._Element | None = None
        shading: bool | None = None
        mark_deleted = False
        for first in p:  # w:pPr, when present, is the first child
            if first.tag == _PPR:
                p_pr = first
            break
        if p_pr is not None:
            for prop in p_pr:
                tag = prop.tag
                if tag == _PSTYLE:
                    style_id = prop.get(_VAL)
                elif tag == _NUMPR:
                    num_pr = prop
                elif tag == _SHD:
                    shading = _shading_dark(prop)
                elif tag == _RPR:
                    mark_deleted = _child(prop, _DEL) is not None
        if style_id is None or style_id not in self._styles:
            style_id = self._styles.default_paragraph_style
        info = self._styles.paragraph_info(style_id)
        if shading is None:
            shading = info.shading_dark
        state = _ParagraphState(style_id, dark if shading is None else shading)
        self._inline(p, state)
        segments = _strip_breaks(state.segments)
        if mark_deleted and _is_blank(segments):
            return None  # the whole paragraph is a tracked deletion: Word does not number it
        label = self._label(num_pr, style_id)
        if label is not None:
            segments = [(label.text + label.suffix, None), *segments]
        return _Paragraph(
            segments=segments, label=label, style_name=info.name, is_heading=info.is_heading
        )

    def _label(self, num_pr: etree._Element | None, style_id: str | None) -> NumberLabel | None:
        """Word's number for a paragraph with direct `w:numPr` `num_pr` and style `style_id`."""
        num_id: int | None = None
        ilvl: int | None = None
        if num_pr is not None:
            for prop in num_pr:
                if prop.tag == _NUM_ID:
                    num_id = _int_val(prop)
                elif prop.tag == _ILVL:
                    ilvl = _int_val(prop)
        style_num_id, style_ilvl, source_style = self._styles.numbering(style_id)
        if num_id is None:
            num_id = style_num_id
        if num_id is None or num_id == 0:
            return None
        if ilvl is None:
            ilvl = style_ilvl
        # Without an explicit level, a level linked to the style (w:lvl/w:pStyle) applies.
        for candidate in (style_id, source_style):
            if ilvl is None and candidate is not None:
                ilvl = self._numbering.level_of_style(num_id, candidate)
        return self._numbering.next_label(num_id, ilvl if ilvl is not None else 0)

    def _inline(self, parent: etree._Element, state: _ParagraphState) -> None:
        """Collect the displayed text of a paragraph's inline content."""
        for child in parent:
            tag = child.tag
            if tag == _R:
                self._run(child, state)
            elif tag in INLINE_WRAPPERS:
                self._inline(child, state)
            elif tag == _SDT:
                content = child.find(_SDT_CONTENT)
                if content is not None:
                    self._inline(content, state)
            elif tag == _ALT_CONTENT:
                chosen = choose_alternate(child)
                if chosen is not None:
                    self._inline(chosen, state)
            elif tag in (_M_OMATH, _M_OMATH_PARA):
                state.add("".join(t.text or "" for t in child.iter(_M_T)), None)
            # w:del / w:moveFrom (deleted), w:pPr, bookmarks, comments, proofing: no text.

    def _run(self, run: etree._Element, state: _ParagraphState) -> None:
        reason: str | None = None
        resolved = False
        for child in run:
            tag = child.tag
            if not resolved:
                # Run properties come first (w:rPr is the run's first child when present).
                rpr = child if tag == _RPR else None
                direct, run_style = _parse_rpr(rpr)
                base = self._styles.run_props(state.style_id, run_style)
                reason = direct.over(base).hidden_reason(state.background_dark)
                resolved = True
                if rpr is not None:
                    continue
            if tag == _FLD_CHAR:
                follow_field_char(child, state.fields)
            elif True in state.fields:
                continue  # field code between "begin" and "separate": not displayed
            elif tag == _T:
                state.add(child.text or "", reason)
            elif tag in (_TAB, _PTAB):
                state.add("\t", reason)
            elif tag in (_BR, _CR):
                state.add("\n", reason)
            elif tag == _NO_BREAK_HYPHEN:
                state.add("-", reason)
            elif tag == _SYM:
                state.add(symbol_text(child), reason)
            elif tag == _RUBY:
                ruby_base = _child(child, _RUBY_BASE)
                if ruby_base is not None:
                    self._inline(ruby_base, state)
            # w:instrText, w:delText, w:softHyphen, drawings (text boxes are read separately),
            # footnote references...: no text.

    # --- output -------------------------------------------------------------------------

    def _emit(
        self,
        segments: list[_Segment],
        *,
        kind: str,
        locator: str,
        label: str | None,
        style: str | None,
    ) -> None:
        start = position = self._offset
        pieces: list[str] = []
        for text, reason in segments:
            if not text:
                continue
            if reason is not None and text.strip():
                last = self.hidden[-1] if self.hidden else None
                if last is not None and last.end == position and last.reason == reason:
                    last.end += len(text)
                    last.text += text
                else:
                    self.hidden.append(
                        HiddenTextSpan(
                            start=position, end=position + len(text), reason=reason, text=text
                        )
                    )
            pieces.append(text)
            position += len(text)
        self.lines.append("".join(pieces))
        self.blocks.append(
            TextBlock(
                start=start,
                end=position,
                kind=kind,
                locator=locator,
                number_label=label,
                style=style,
            )
        )
        self._offset = position + 1  # the "\n" between lines


def _part_element(document: DocxDocument, reltype: str) -> etree._Element | None:
    """Root element of a related XML part, without creating a default one when it is absent."""
    try:
        part = document.part.part_related_by(reltype)
    except KeyError:
        return None
    return part.element if isinstance(part, XmlPart) else None


def _open(path: Path) -> DocxDocument:
    """Open the package with python-docx, turning its failures into one-line input errors."""
    reason: str
    try:
        return docx.Document(str(path))
    except OpcError:
        reason = "not a Word package"
    except zipfile.BadZipFile:
        reason = "damaged zip archive"
    except (zlib.error, EOFError):
        reason = "damaged compressed data"
    except etree.XMLSyntaxError as exc:
        reason = f"malformed XML ({exc.msg})" if exc.msg else "malformed XML"
    except KeyError as exc:
        detail = str(exc.args[0]) if exc.args else ""
        reason = f"a required part is missing ({detail[:120]})" if detail else "a part is missing"
    except ValueError as exc:
        text = str(exc)
        reason = "not a Word document" if "content type" in text else text[:120]
    raise CorruptDocumentError(f"{path.name} is not a readable .docx: {reason}")


def read_docx(path: Path, settings: Settings) -> LoadedText:
    """Read the .docx at `path` into `LoadedText` (see the module docstring for the rules).

    The package has already passed the intake safety checks (zip limits, no DTD); `settings`
    is accepted for a uniform reader signature. One `TextBlock` per emitted paragraph or table
    row, whose `locator` finds the element again (module docstring); `number_label` is Word's
    automatic number. Hidden runs are kept in the text and listed in `hidden_spans`.

    Raises:
        CorruptDocumentError: python-docx cannot read the package.
        EmptyDocumentError: the document has no text at all.
    """
    del settings  # limits are enforced before the package reaches this reader
    document = _open(path)
    reader = _DocxReader(document)
    reader.read()
    text = "\n".join(reader.lines)
    if not text.strip():
        raise EmptyDocumentError(f"{path.name}: the document contains no text")
    warnings: list[str] = []
    if reader.hidden:
        warnings.append(
            f"{len(reader.hidden)} hidden text run(s) found (vanished, tiny or white text): "
            "shown in the report"
        )
    return LoadedText(
        format=DocumentFormat.DOCX,
        text=text,
        blocks=reader.blocks,
        hidden_spans=reader.hidden,
        warnings=warnings,
    )


def body_text(content: LoadedText) -> str:
    """The text of a read document without the annex the reader adds after the body."""
    for block in content.blocks:
        if block.locator.lstrip("/").split("/")[0] in _ANNEX_TITLES:
            return content.text[: max(0, block.start - 1)]
    return content.text
