"""Office Open XML for reading and writing Word files: namespaces, the element walk that both
the reader (`intake`) and the redline writer (`exports.redline_docx`) follow — so a position
in one is a position in the other — and the text a run contributes."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lxml import etree

__all__ = [
    "INLINE_WRAPPERS",
    "MC_NS",
    "M_NS",
    "W_NS",
    "choose_alternate",
    "follow_field_char",
    "iter_block_elements",
    "iter_cells",
    "iter_table_rows",
    "iter_text_boxes",
    "symbol_text",
    "visible_text",
    "w",
    "xml_safe",
]

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
"""WordprocessingML."""
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
"""Markup compatibility (mc:AlternateContent)."""
M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
"""Office Math."""


def w(tag: str) -> str:
    """The Clark name of a WordprocessingML tag or attribute ('p' → '{…/main}p')."""
    return f"{{{W_NS}}}{tag}"


_P, _TBL, _TR, _TC, _R = w("p"), w("tbl"), w("tr"), w("tc"), w("r")
_SDT, _SDT_CONTENT, _CUSTOM_XML = w("sdt"), w("sdtContent"), w("customXml")
_DEL, _MOVE_FROM, _CHAR = w("del"), w("moveFrom"), w("char")
_DRAWING, _PICT, _OBJECT = w("drawing"), w("pict"), w("object")
_TXBX_CONTENT = w("txbxContent")
_ALT_CONTENT, _CHOICE, _FALLBACK = (
    f"{{{MC_NS}}}AlternateContent",
    f"{{{MC_NS}}}Choice",
    f"{{{MC_NS}}}Fallback",
)
INLINE_WRAPPERS = frozenset(
    {
        w("hyperlink"),
        w("ins"),
        w("moveTo"),
        w("smartTag"),
        _CUSTOM_XML,
        w("fldSimple"),
        w("dir"),
        w("bdo"),
        _SDT_CONTENT,
    }
)
"""Inline wrappers whose runs are visible text (tracked insertions, links, smart tags...)."""
_DRAWING_TAGS = frozenset({_DRAWING, _PICT, _OBJECT, _ALT_CONTENT})
_BLOCK_WRAPPERS = frozenset({_CUSTOM_XML, _SDT_CONTENT})
# Control characters that cannot be shown; \t and \n survive, the rest of C0 is dropped.
_CONTROL_CHARS = {c: None for c in range(32) if chr(c) not in "\t\n"}
_LINE_BREAKS = str.maketrans({"\r": "\n", "\x0b": "\n", "\x0c": "\n"})


def iter_block_elements(container: etree._Element) -> Iterator[etree._Element]:
    """Yield the `w:p` and `w:tbl` elements of a body, cell or text box, in document order.

    Block-level content controls (`w:sdt`) and custom XML wrappers are looked through; tables'
    content is not (use `iter_table_rows`).
    """
    for child in container:
        tag = child.tag
        if tag in (_P, _TBL):
            yield child
        elif tag == _SDT:
            content = child.find(_SDT_CONTENT)
            if content is not None:
                yield from iter_block_elements(content)
        elif tag in _BLOCK_WRAPPERS:
            yield from iter_block_elements(child)


def iter_table_rows(table: etree._Element) -> Iterator[etree._Element]:
    """Yield the `w:tr` rows of a table in order (looking through `w:sdt`/`w:customXml`)."""
    yield from _iter_wrapped(table, _TR)


def iter_cells(row: etree._Element) -> Iterator[etree._Element]:
    """Yield the `w:tc` cells of a table row in order (looking through wrappers)."""
    yield from _iter_wrapped(row, _TC)


def _iter_wrapped(parent: etree._Element, wanted: str) -> Iterator[etree._Element]:
    for child in parent:
        tag = child.tag
        if tag == wanted:
            yield child
        elif tag == _SDT:
            content = child.find(_SDT_CONTENT)
            if content is not None:
                yield from _iter_wrapped(content, wanted)
        elif tag == _CUSTOM_XML:
            yield from _iter_wrapped(child, wanted)


def iter_text_boxes(paragraph: etree._Element) -> Iterator[etree._Element]:
    """Yield the `w:txbxContent` of the text boxes anchored in a paragraph, in order.

    Deleted content is skipped, and of an `mc:AlternateContent` only the first `mc:Choice` is
    read (its `mc:Fallback` repeats the same text box as VML). Nested text boxes belong to the
    paragraphs of their own text box.
    """
    for child in paragraph:
        tag = child.tag
        if tag == _R:
            for item in child:
                if item.tag in _DRAWING_TAGS:
                    yield from _text_boxes_in(item)
        elif tag == _ALT_CONTENT:
            yield from _text_boxes_in(child)
        elif tag in INLINE_WRAPPERS or tag == _SDT:
            yield from iter_text_boxes(child)


def _text_boxes_in(element: etree._Element) -> Iterator[etree._Element]:
    if element.tag == _TXBX_CONTENT:
        yield element
        return
    if element.tag == _ALT_CONTENT:
        chosen = choose_alternate(element)
        if chosen is not None:
            yield from _text_boxes_in(chosen)
        return
    for child in element:
        if child.tag not in (_DEL, _MOVE_FROM):
            yield from _text_boxes_in(child)


def choose_alternate(alternate: etree._Element) -> etree._Element | None:
    """The branch of an `mc:AlternateContent` we read: the first Choice, else the Fallback."""
    chosen = alternate.find(_CHOICE)
    return chosen if chosen is not None else alternate.find(_FALLBACK)


def visible_text(text: str) -> str:
    """Run text as the reader emits it: line breaks unified, other control characters dropped.

    The reader and the redline writer both use it, so they see exactly the same text."""
    if text.isprintable():
        return text
    return text.replace("\r\n", "\n").translate(_LINE_BREAKS).translate(_CONTROL_CHARS)


def symbol_text(sym: etree._Element) -> str:
    """A `w:sym` character, unless it is a private-use code of a symbol font (Wingdings...)."""
    raw = sym.get(_CHAR)
    if raw is None:
        return ""
    try:
        code = int(raw, 16)
    except ValueError:
        return ""
    if 0xE000 <= code <= 0xF8FF or not 0x20 <= code <= 0x10FFFF:
        return ""
    return chr(code)


_FLD_CHAR_TYPE = w("fldCharType")


def follow_field_char(fld_char: etree._Element, fields: list[bool]) -> None:
    """Track complex fields through a `w:fldChar`: 'begin' opens one (its code, up to
    'separate', is not displayed), 'separate' starts its displayed result, 'end' closes it.
    `fields` holds one flag per open field: True while its code is being read."""
    kind = fld_char.get(_FLD_CHAR_TYPE)
    if kind == "begin":
        fields.append(True)
    elif kind == "separate" and fields:
        fields[-1] = False
    elif kind == "end" and fields:
        fields.pop()


_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_safe(text: str) -> str:
    """`text` with the characters XML cannot hold replaced one for one by U+FFFD."""
    return _XML_INVALID.sub("\ufffd", text)
