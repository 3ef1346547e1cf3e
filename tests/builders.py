"""Builders of test documents (PDF, .docx) and reviews of them, generated in temporary
folders, never committed."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docx.document import Document as DocxDocument
from docx.oxml.parser import parse_xml
from docx.text.paragraph import Paragraph
from lxml import etree
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

from contract_review.config import Settings
from contract_review.review import ReviewOptions, start_review

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS_DECLS = f'xmlns:w="{W_NS}" xmlns:v="urn:schemas-microsoft-com:vml"'
CJK_FONT = "STSong-Light"
"""reportlab's built-in Chinese CID font."""


def make_pdf(
    path: Path,
    pages: Sequence[Sequence[str]],
    *,
    font: str = "Helvetica",
    header: str | None = None,
    footer: str | None = None,
) -> Path:
    """Write a PDF with one page per entry of `pages`, one drawn line per string.

    `footer` may contain "{n}" and "{m}" for the page number and the page count.
    """
    if font == CJK_FONT:
        pdfmetrics.registerFont(UnicodeCIDFont(CJK_FONT))
    width, height = A4
    pdf = canvas.Canvas(str(path), pagesize=A4)
    for number, lines in enumerate(pages, start=1):
        pdf.setFont(font, 11)
        if header is not None:
            pdf.drawString(72, height - 40, header)
        y = height - 100
        for line in lines:
            pdf.drawString(72, y, line)
            y -= 16
        if footer is not None:
            pdf.drawCentredString(width / 2, 30, footer.format(n=number, m=len(pages)))
        pdf.showPage()
    pdf.save()
    return path


def xml_element(snippet: str) -> etree._Element:
    """Parse one WordprocessingML element written with the w: (and v:) prefixes."""
    return parse_xml(re.sub(r"^<([\w:]+)", rf"<\1 {NS_DECLS}", snippet, count=1))


def numbering_level(
    ilvl: int,
    text: str,
    fmt: str = "decimal",
    *,
    start: int = 1,
    extra: str = "",
) -> str:
    return (
        f'<w:lvl w:ilvl="{ilvl}"><w:start w:val="{start}"/><w:numFmt w:val="{fmt}"/>'
        f'{extra}<w:lvlText w:val="{text}"/></w:lvl>'
    )


def add_abstract_num(doc: DocxDocument, abstract_id: int, *levels: str, link: str = "") -> None:
    """Add a w:abstractNum (before the first w:num, as the schema wants)."""
    numbering = doc.part.numbering_part.element
    abstract = xml_element(
        f'<w:abstractNum w:abstractNumId="{abstract_id}">'
        f'<w:multiLevelType w:val="multilevel"/>{link}{"".join(levels)}</w:abstractNum>'
    )
    first_num = numbering.find(f"{{{W_NS}}}num")
    if first_num is None:
        numbering.append(abstract)
    else:
        first_num.addprevious(abstract)


def add_num(doc: DocxDocument, num_id: int, abstract_id: int, overrides: str = "") -> None:
    doc.part.numbering_part.element.append(
        xml_element(
            f'<w:num w:numId="{num_id}"><w:abstractNumId w:val="{abstract_id}"/>{overrides}</w:num>'
        )
    )


def numbered_paragraph(
    doc: DocxDocument, text: str, num_id: int, ilvl: int | None = 0
) -> Paragraph:
    """A paragraph with direct numbering (numPr in its pPr)."""
    paragraph = doc.add_paragraph(text)
    ilvl_xml = f'<w:ilvl w:val="{ilvl}"/>' if ilvl is not None else ""
    num_pr = xml_element(f'<w:numPr>{ilvl_xml}<w:numId w:val="{num_id}"/></w:numPr>')
    paragraph._p.get_or_add_pPr().append(num_pr)
    return paragraph


def review_findings(tmp_path: Path, text: str, party: str) -> dict[str, Any]:
    """A rules review of `text` (generic domain, every redline approved) acting for `party`:
    its findings.json; the reports are in `tmp_path / "out"`."""
    contract = tmp_path / "contract.txt"
    contract.write_text(text, encoding="utf-8")
    options = ReviewOptions(
        file=contract, domain="generic", party=party, approve="all", out=tmp_path / "out"
    )
    asyncio.run(start_review(options, settings=Settings(state_dir=tmp_path / "state")))
    findings: dict[str, Any] = json.loads((tmp_path / "out" / "findings.json").read_text("utf-8"))
    return findings
