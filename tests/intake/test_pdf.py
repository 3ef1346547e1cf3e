"""Tests of PDF intake: the worker process, its limits, and the text post-processing."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

from contract_review.config import Settings
from contract_review.errors import CorruptDocumentError, NoTextLayerError, ParseTimeoutError
from contract_review.intake import _pdf
from contract_review.intake._pdf import (
    _clean_pages,
    _dehyphenate,
    _fix_cjk_spacing,
    _join_pages,
    _normalise_lines,
    _remove_running_lines,
    read_pdf,
)
from contract_review.models import DocumentFormat
from tests.builders import CJK_FONT as _CJK_FONT
from tests.builders import make_pdf as _make_pdf

_WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
_HEADER = "ACME SUPPLY AGREEMENT – CONFIDENTIAL"

# Body lines of each page of the English contract; page 1 breaks "equipment" across two lines.
_CONTRACT_PAGES = [
    [
        "1. Definitions",
        "In this Agreement the Supplier shall deliver the equip-",
        "ment described in Schedule 1 to the Buyer.",
        "The Sino-",
        "British joint venture is not a party.",
    ],
    [
        "2. Price and Payment",
        "The Buyer shall pay the Price within 30 days of invoice.",
        "Late payments bear interest at 4% per annum.",
    ],
    [
        "3. Liability",
        "Neither party is liable for indirect or consequential loss.",
        "Total liability is capped at the Price paid in the last 12 months.",
    ],
]


def _contract_pdf(tmp_path: Path) -> Path:
    return _make_pdf(
        tmp_path / "contract.pdf",
        _CONTRACT_PAGES,
        header=_HEADER,
        footer="Page {n} of {m}",
    )


def _worker_processes(marker: str) -> list[str]:
    """Command lines of live processes whose arguments mention `marker` (Linux /proc)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:  # the process ended while we looked
            continue
        if any(marker.encode() in arg for arg in args):
            found.append(" ".join(arg.decode(errors="replace") for arg in args))
    return found


# --------------------------------------------------------------------------------------------
# read_pdf on generated PDFs
# --------------------------------------------------------------------------------------------


def test_english_contract_drops_running_lines_and_joins_hyphenation(tmp_path: Path) -> None:
    loaded = read_pdf(_contract_pdf(tmp_path), Settings())

    assert loaded.format is DocumentFormat.PDF
    assert loaded.page_count == 3
    assert loaded.warnings == []
    text = loaded.text
    assert "ACME SUPPLY AGREEMENT" not in text
    assert "Page " not in text
    assert "equipment described in Schedule 1" in text
    assert "equip-" not in text
    # A hyphen before an uppercase letter is part of the word: the lines stay apart.
    assert "The Sino-\nBritish joint venture" in text
    positions = [text.index(heading) for heading in ("1. Definitions", "2. Price", "3. Liability")]
    assert positions == sorted(positions)
    assert text.startswith("1. Definitions\n")

    assert [block.locator for block in loaded.blocks] == ["page 1", "page 2", "page 3"]
    assert all(block.kind == "page" for block in loaded.blocks)
    slices = [text[block.start : block.end] for block in loaded.blocks]
    assert "\n\n".join(slices) == text
    assert slices[1] == "\n".join(_CONTRACT_PAGES[1])
    assert slices[2] == "\n".join(_CONTRACT_PAGES[2])


def test_chinese_text_comes_out_in_order_without_spaces(tmp_path: Path) -> None:
    lines = ["第一条 合同标的", "甲方同意向乙方采购设备。", "第二条 价款：人民币100万元（含税）。"]
    path = _make_pdf(tmp_path / "zh.pdf", [lines], font=_CJK_FONT)

    loaded = read_pdf(path, Settings())

    assert loaded.text == "\n".join(lines)
    assert loaded.page_count == 1
    assert [(block.start, block.end) for block in loaded.blocks] == [(0, len(loaded.text))]


def test_letter_spaced_chinese_is_closed_up(tmp_path: Path) -> None:
    # With character spacing above pdfplumber's x_tolerance (3 pt) it puts a space between
    # every pair of characters; the parent removes them again.
    pdfmetrics.registerFont(UnicodeCIDFont(_CJK_FONT))
    path = tmp_path / "spaced.pdf"
    pdf = canvas.Canvas(str(path), pagesize=A4)
    text = pdf.beginText(72, 700)
    text.setFont(_CJK_FONT, 12)
    text.setCharSpace(5)
    text.textLine("甲方同意向乙方采购设备，乙方同意按期交付。")
    pdf.drawText(text)
    pdf.showPage()
    pdf.save()

    assert read_pdf(path, Settings()).text == "甲方同意向乙方采购设备，乙方同意按期交付。"


def test_chinese_page_number_footer_is_removed(tmp_path: Path) -> None:
    pages = [[f"第{n}条 本条内容为第{n}页的正文。"] for n in "一二三"]
    path = _make_pdf(tmp_path / "zh3.pdf", pages, font=_CJK_FONT, footer="第 {n} 页")

    loaded = read_pdf(path, Settings())

    assert loaded.text == "\n\n".join(page[0] for page in pages)


def test_pdf_without_text_raises_no_text_layer(tmp_path: Path) -> None:
    from PIL import Image

    path = tmp_path / "scan.pdf"
    pdf = canvas.Canvas(str(path), pagesize=A4)
    pdf.rect(72, 400, 300, 200, fill=1)
    with Image.new("RGB", (64, 64), "gray") as image:
        pdf.drawImage(ImageReader(image), 72, 100, width=128, height=128)
    pdf.showPage()
    pdf.save()

    with pytest.raises(NoTextLayerError) as excinfo:
        read_pdf(path, Settings())
    assert str(excinfo.value) == "scan.pdf: no text layer (scanned?); OCR is not supported"


def test_random_bytes_after_pdf_header_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "garbage.pdf"
    path.write_bytes(b"%PDF-1.4\n" + random.Random(7).randbytes(8192))

    started = time.monotonic()
    with pytest.raises(CorruptDocumentError) as excinfo:
        read_pdf(path, Settings(parse_timeout_seconds=20))
    assert time.monotonic() - started < 10
    message = str(excinfo.value)
    assert message.startswith("garbage.pdf is not a readable PDF: ")
    assert "\n" not in message
    assert "Traceback" not in message


def test_truncated_pdf_is_corrupt(tmp_path: Path) -> None:
    whole = _contract_pdf(tmp_path).read_bytes()
    path = tmp_path / "truncated.pdf"
    path.write_bytes(whole[: len(whole) // 2])

    started = time.monotonic()
    with pytest.raises(CorruptDocumentError) as excinfo:
        read_pdf(path, Settings(parse_timeout_seconds=20))
    assert time.monotonic() - started < 10
    assert str(excinfo.value).startswith("truncated.pdf is not a readable PDF: ")
    assert "\n" not in str(excinfo.value)


def test_password_protected_pdf_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    pdf = canvas.Canvas(str(path), encrypt="secret")
    pdf.drawString(72, 700, "This agreement is confidential between the parties.")
    pdf.showPage()
    pdf.save()

    with pytest.raises(CorruptDocumentError) as excinfo:
        read_pdf(path, Settings())
    assert str(excinfo.value) == "locked.pdf is not a readable PDF: the file is password-protected"


def test_page_cap_reads_only_the_first_pages(tmp_path: Path) -> None:
    pages = [[f"{n}. Clause number {n} of the agreement."] for n in range(1, 5)]
    path = _make_pdf(tmp_path / "four.pdf", pages)

    loaded = read_pdf(path, Settings(max_pdf_pages=2))

    assert loaded.page_count == 4
    assert [block.locator for block in loaded.blocks] == ["page 1", "page 2"]
    assert "Clause number 2" in loaded.text
    assert "Clause number 3" not in loaded.text
    assert len(loaded.warnings) == 1
    assert "first 2 of 4 pages" in loaded.warnings[0]
    assert "skipped" in loaded.warnings[0]
    assert loaded.unread_pages == [3, 4]


def test_blank_page_inside_a_text_pdf_is_reported(tmp_path: Path) -> None:
    path = _make_pdf(tmp_path / "annex.pdf", [["1. The parties agree as follows."], []])

    loaded = read_pdf(path, Settings())

    assert loaded.text == "1. The parties agree as follows.\n\n"
    assert [block.locator for block in loaded.blocks] == ["page 1", "page 2"]
    assert len(loaded.warnings) == 1
    assert "page(s) 2 have no text layer" in loaded.warnings[0]
    assert loaded.unread_pages == [2]


def test_a_pdf_whose_lines_repeat_on_every_page_is_read(tmp_path: Path) -> None:
    """#13: a notice printed on three pages is text, not a scan without a text layer."""
    page = ["NOTICE OF ASSIGNMENT", "The Assignor assigns all receivables to the Assignee."]
    path = _make_pdf(tmp_path / "notice.pdf", [page, page, page])

    loaded = read_pdf(path, Settings())

    assert loaded.text.count("The Assignor assigns all receivables to the Assignee.") == 3
    assert any("every line repeats on every page" in w for w in loaded.warnings)


def test_timeout_kills_the_worker(tmp_path: Path) -> None:
    path = _contract_pdf(tmp_path)

    with pytest.raises(ParseTimeoutError) as excinfo:
        read_pdf(path, Settings(parse_timeout_seconds=0.01))
    message = str(excinfo.value)
    assert message.startswith("contract.pdf: reading the PDF took longer than 0.01 s")
    assert "\n" not in message
    if sys.platform == "linux":
        assert _worker_processes(str(path)) == []


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is only applied on Linux")
def test_memory_limit_applies_to_the_worker(tmp_path: Path) -> None:
    path = _contract_pdf(tmp_path)

    # No Python interpreter with pdfplumber fits in 16 MB of address space.
    with pytest.raises(CorruptDocumentError) as excinfo:
        read_pdf(path, Settings(pdf_worker_memory_mb=16))
    assert str(excinfo.value).startswith("contract.pdf is not a readable PDF: ")
    assert "\n" not in str(excinfo.value)


def test_parent_does_not_import_pdfplumber(tmp_path: Path) -> None:
    path = _make_pdf(tmp_path / "one.pdf", [["This agreement is made between the parties."]])
    # A fresh interpreter: other test modules of the session may import pdfplumber themselves.
    script = (
        "import sys; from pathlib import Path; from contract_review.config import Settings; "
        "from contract_review.intake._pdf import read_pdf; "
        "print(read_pdf(Path(sys.argv[1]), Settings()).page_count, "
        "sorted(m for m in ('pdfplumber', 'pdfminer') if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(_pdf.__file__).resolve().parents[2])}

    result = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    )

    assert result.stdout.strip() == "1 []"


# --------------------------------------------------------------------------------------------
# Pure post-processing
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "footers",
    [
        [f"Page {n} of 12" for n in range(1, 5)],
        [f"- {n} -" for n in range(1, 5)],
        [f"第 {n} 页" for n in range(1, 5)],
        [f"第{n}页 共12页" for n in (8, 9, 10, 11)],
        [str(n) for n in range(1, 5)],
    ],
)
def test_running_footer_with_page_numbers_is_removed(footers: list[str]) -> None:
    # Body lines differ by more than digits, or they would look like running lines too.
    pages = [
        ["ACME – CONFIDENTIAL", f"Clause {word}", f"Body {word}", footer]
        for word, footer in zip(_WORDS, footers, strict=False)
    ]

    cleaned = _remove_running_lines(pages)

    assert cleaned == [[f"Clause {word}", f"Body {word}"] for word in _WORDS[:4]]


def test_running_lines_need_sixty_percent_of_pages() -> None:
    # The stamp is on 3 of 6 pages (50%): kept. The header is on 4 of 6 (67%): dropped.
    pages = [
        [
            "HEADER" if n <= 4 else f"Intro {word}",
            f"text {word}",
            f"more {word}",
            "DRAFT" if n <= 3 else ".",
        ]
        for n, word in enumerate(_WORDS, start=1)
    ]

    cleaned = _remove_running_lines(pages)

    assert all("HEADER" not in lines for lines in cleaned)
    assert sum("DRAFT" in lines for lines in cleaned) == 3


def test_running_lines_only_in_page_margins() -> None:
    # "Definitions" recurs on every page but in the middle of it: body text, kept.
    pages = [["H", "x", "Definitions", "y", "z"] for _ in range(4)]

    cleaned = _remove_running_lines(pages)

    assert cleaned == [["Definitions"] for _ in range(4)]


def test_short_documents_keep_their_lines() -> None:
    pages = [["ACME", "Page 1 of 2", "body one"], ["ACME", "Page 2 of 2", "body two"]]

    assert _remove_running_lines(pages) == pages


def test_dehyphenation_joins_only_broken_words() -> None:
    lines = [
        "the Supplier shall indem-",
        "nify the Buyer against",
        "a Sino-",
        "British venture under",
        "COVID-",
        "19 rules and the well-",
        "known self-",
        "- 3 -",
    ]

    assert _dehyphenate(lines) == [
        "the Supplier shall indemnify the Buyer against",
        "a Sino-",
        "British venture under",
        "COVID-",
        "19 rules and the wellknown self-",
        "- 3 -",
    ]


def test_dehyphenation_chains_over_several_lines() -> None:
    assert _dehyphenate(["counter-", "sig-", "nature"]) == ["countersignature"]


def test_cjk_spaced_out_lines_are_closed_up() -> None:
    assert _fix_cjk_spacing("甲 方 同 意 向 乙 方 采 购 设 备 。") == "甲方同意向乙方采购设备。"
    assert _fix_cjk_spacing("劳 动 合 同 ABC 1 2") == "劳动合同 ABC 1 2"


def test_cjk_intended_spaces_are_kept() -> None:
    assert _fix_cjk_spacing("第一条 合同标的") == "第一条 合同标的"
    assert _fix_cjk_spacing("合 同") == "合 同"
    assert _fix_cjk_spacing("The Buyer 甲方 agrees") == "The Buyer 甲方 agrees"
    # Korean separates words with spaces: Hangul is not closed up.
    assert _fix_cjk_spacing("계 약 서 본 문") == "계 약 서 본 문"


def test_normalise_lines_strips_controls_and_trailing_spaces() -> None:
    raw = "Clause 1  \r\nthe\x00 Buyer\x07\tpays \rend\x1f\n"

    assert _normalise_lines(raw) == ["Clause 1", "the Buyer\tpays", "end", ""]


def test_clean_pages_and_join_pages_offsets() -> None:
    pages = _clean_pages(["\nIntro-\nduction  \n", "", "Second\r\npage"])
    text, blocks = _join_pages(pages)

    assert pages == ["Introduction", "", "Second\npage"]
    assert text == "Introduction\n\n\n\nSecond\npage"
    assert [text[block.start : block.end] for block in blocks] == pages
    assert [block.locator for block in blocks] == ["page 1", "page 2", "page 3"]
