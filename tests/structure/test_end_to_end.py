"""Files of every format through intake and the parser."""

from __future__ import annotations

from pathlib import Path

import docx

from contract_review.config import Settings
from contract_review.intake import load_document
from contract_review.structure_parser import StructureParser
from tests.builders import (
    CJK_FONT,
    add_abstract_num,
    add_num,
    make_pdf,
    numbered_paragraph,
    numbering_level,
)
from tests.conftest import EXAMPLES


def _ids(path: Path) -> list[str]:
    loaded = load_document(path, Settings())
    structure = StructureParser().parse(loaded.text)
    for c in structure.iter_clauses():
        assert loaded.text[c.start_offset : c.end_offset] == c.text
    return [c.clause_id for c in structure.iter_clauses()]


def test_pdf_contract_parses_into_clauses_without_running_lines(tmp_path: Path) -> None:
    pages = [
        [
            "MASTER SERVICES AGREEMENT",
            "1. Services",
            "1.1 The Supplier shall provide the Ser-",
            "vices described in Schedule 1.",
            "1.2 The Supplier shall use skilled staff.",
        ],
        [
            "2. Fees",
            "2.1 The Customer shall pay within 30 days.",
            "(a) invoices are monthly;",
            "(b) late payment bears interest.",
        ],
        ["3. Governing Law", "This Agreement is governed by the laws of England."],
    ]
    path = make_pdf(tmp_path / "msa.pdf", pages, header="MSA - CONFIDENTIAL", footer="Page {n}")
    loaded = load_document(path, Settings())
    assert "CONFIDENTIAL" not in loaded.text
    assert "Services described" in loaded.text
    assert _ids(path) == ["preamble", "1", "1.1", "1.2", "2", "2.1", "2.1(a)", "2.1(b)", "3"]


def test_chinese_pdf_articles(tmp_path: Path) -> None:
    pages = [
        ["采购合同", "第一条 合同标的", "甲方向乙方采购设备。", "第二条 价款", "（一）设备价款；"],
        ["（二）安装费用。", "第三条 争议解决", "适用中华人民共和国法律。"],
    ]
    path = make_pdf(tmp_path / "zh.pdf", pages, font=CJK_FONT)
    assert _ids(path) == ["preamble", "1", "2", "2(1)", "2(2)", "3"]


def test_gbk_text_file(tmp_path: Path) -> None:
    text = (EXAMPLES / "cn" / "construction_contract_zh.txt").read_text(encoding="utf-8")
    path = tmp_path / "gbk.txt"
    path.write_bytes(text.replace("¥", "").encode("gbk", errors="strict"))
    ids = _ids(path)
    assert "第1章" in ids
    assert "14" in ids


def test_markdown_sample_skips_its_table_of_contents() -> None:
    ids = _ids(EXAMPLES / "generic" / "services_agreement_en.md")
    assert len(ids) == len(set(ids))
    assert ids[:2] == ["preamble", "1"]


def test_docx_automatic_numbering_becomes_clause_ids(tmp_path: Path) -> None:
    """Numbers Word shows but the paragraph text lacks: clauses "1", "1.1", "1.2", "2"."""
    doc = docx.Document()
    add_abstract_num(doc, 90, numbering_level(0, "%1."), numbering_level(1, "%1.%2"))
    add_num(doc, 91, 90)
    numbered_paragraph(doc, "Definitions", 91, 0)
    numbered_paragraph(doc, "Words have the meanings given in this Clause.", 91, 1)
    numbered_paragraph(doc, "Headings do not affect interpretation.", 91, 1)
    numbered_paragraph(doc, "Payment", 91, 0)
    doc.add_paragraph("The Employer shall pay within 56 days.")
    path = tmp_path / "numbered.docx"
    doc.save(str(path))
    assert "1.1" not in "".join(p.text for p in docx.Document(str(path)).paragraphs)
    loaded = load_document(path, Settings())
    structure = StructureParser().parse(loaded.text)
    clauses = list(structure.iter_clauses())
    assert [(c.clause_id, c.parent_id) for c in clauses] == [
        ("1", None),
        ("1.1", "1"),
        ("1.2", "1"),
        ("2", None),
    ]
    assert [c.title for c in clauses] == ["Definitions", "", "", "Payment"]
    payment = structure.get_clause("2")
    assert payment is not None
    assert payment.body == "The Employer shall pay within 56 days."


def test_chinese_docx_numbering(tmp_path: Path) -> None:
    doc = docx.Document()
    add_abstract_num(
        doc,
        80,
        numbering_level(0, "第%1条", "chineseCounting"),
        numbering_level(1, "（%2）", "chineseCounting"),
    )
    add_num(doc, 81, 80)
    for _ in range(10):
        numbered_paragraph(doc, "一般约定", 81, 0)
    numbered_paragraph(doc, "付款", 81, 0)
    numbered_paragraph(doc, "预付款为合同价款的10%。", 81, 1)
    numbered_paragraph(doc, "进度款按月支付。", 81, 1)
    path = tmp_path / "zh.docx"
    doc.save(str(path))
    structure = StructureParser().parse(load_document(path, Settings()).text)
    ids = [c.clause_id for c in structure.iter_clauses()]
    assert ids == [*[str(i) for i in range(1, 12)], "11(1)", "11(2)"]
    eleventh = structure.get_clause("11")
    assert eleventh is not None
    assert (eleventh.number, eleventh.title) == ("第十一条", "付款")
