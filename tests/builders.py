"""Builders of test documents (PDF, .docx), generated in temporary folders, never committed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

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
