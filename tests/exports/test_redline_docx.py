"""Approved redlines written as Word tracked changes + comments (`exports.redline_docx`)."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import docx
import pytest
from lxml import etree

from contract_review.exports.redline_docx import (
    RedlineStats,
    accept_all_text,
    reject_all_text,
    write_redline_docx,
)
from contract_review.intake import body_text, load_document
from contract_review.models import (
    ActionType,
    DiffStatus,
    DocumentDiff,
    LoadedText,
)
from tests.builders import (
    add_abstract_num,
    add_num,
    numbered_paragraph,
    numbering_level,
    xml_element,
)

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = {"w": W}
WHEN = datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)

PLAIN_1 = "The Supplier "
BOLD = "shall"
PLAIN_2 = " deliver the "
ITALIC = "Goods"
PLAIN_3 = " within thirty days."


# ------------------------------------------------------------------------------------------
# Builders and helpers
# ------------------------------------------------------------------------------------------


def _source(tmp_path: Path) -> Path:
    """A contract with mixed formatting, a numbered paragraph and a table."""
    doc = docx.Document()
    doc.add_paragraph("Supply Agreement")
    paragraph = doc.add_paragraph()
    paragraph.add_run(PLAIN_1)
    paragraph.add_run(BOLD).bold = True
    paragraph.add_run(PLAIN_2)
    paragraph.add_run(ITALIC).italic = True
    paragraph.add_run(PLAIN_3)
    add_abstract_num(doc, 10, numbering_level(0, "%1."))
    add_num(doc, 10, 10)
    numbered_paragraph(doc, "The Buyer shall pay the Price.", 10)
    numbered_paragraph(doc, "Liability of the Supplier is unlimited.", 10)
    table = doc.add_table(rows=2, cols=2)
    for row, (key, value) in zip(
        table.rows, [("Term", "Twelve months"), ("Fee", "USD 100")], strict=True
    ):
        row.cells[0].text = key
        row.cells[1].text = value
    path = tmp_path / "source.docx"
    doc.save(str(path))
    return path


def _diff(
    content: LoadedText,
    action: ActionType,
    original: str,
    proposed: str = "",
    *,
    status: DiffStatus = DiffStatus.APPROVED,
    diff_id: str = "d1",
    offset: int | None = None,
) -> DocumentDiff:
    if offset is None:
        offset = content.text.find(original)
        assert offset >= 0, original
    return DocumentDiff(
        diff_id=diff_id,
        clause_id="1",
        action_type=action,
        original_text=original,
        proposed_text=proposed,
        status=status,
        reason=f"reason for {diff_id}",
        start_offset=offset,
    )


def _expected(text: str, diffs: Sequence[DocumentDiff]) -> str:
    """`text` with the approved diffs applied (what accepting all changes must give)."""
    approved = [d for d in diffs if d.status is DiffStatus.APPROVED]
    for d in sorted(approved, key=lambda d: d.start_offset or 0, reverse=True):
        start = d.start_offset or 0
        end = start + len(d.original_text)
        if d.action_type is ActionType.INSERT:
            text = text[:end] + d.proposed_text + text[end:]
        else:
            text = text[:start] + d.proposed_text + text[end:]
    return text


def _document_xml(path: Path) -> etree._Element:
    with zipfile.ZipFile(path) as zf:
        return etree.fromstring(zf.read("word/document.xml"))


def _comments_xml(path: Path) -> etree._Element:
    with zipfile.ZipFile(path) as zf:
        return etree.fromstring(zf.read("word/comments.xml"))


def _run_text(run: etree._Element) -> str:
    return "".join(t.text or "" for t in run.iter(f"{{{W}}}t", f"{{{W}}}delText"))


def _flag(run: etree._Element, name: str) -> bool:
    return run.find(f"w:rPr/w:{name}", NS) is not None


def _redline(
    tmp_path: Path, content: LoadedText, diffs: Sequence[DocumentDiff], source: Path | None
) -> tuple[Path, RedlineStats]:
    out = tmp_path / "redline.docx"
    stats = write_redline_docx(content, diffs, out, source_docx=source, when=WHEN)
    return out, stats


# ------------------------------------------------------------------------------------------
# Tests
# ------------------------------------------------------------------------------------------


def test_replace_is_one_del_ins_pair_with_comment(tmp_path: Path) -> None:
    source = _source(tmp_path)
    content = load_document(source)
    diff = _diff(content, ActionType.REPLACE, "deliver", "supply")

    out, stats = _redline(tmp_path, content, [diff], source)

    assert stats.applied == 1
    assert stats.comments == 1
    assert stats.skipped == []
    root = _document_xml(out)
    dels = root.findall(".//w:del", NS)
    inss = root.findall(".//w:ins", NS)
    assert len(dels) == 1
    assert len(inss) == 1
    assert "".join(_run_text(r) for r in dels[0].findall("w:r", NS)) == "deliver"
    assert "".join(_run_text(r) for r in inss[0].findall("w:r", NS)) == "supply"
    assert dels[0].getnext() is inss[0]
    for change in (dels[0], inss[0]):
        assert change.get(f"{{{W}}}author") == "contract-review"
        assert change.get(f"{{{W}}}date") == "2024-05-06T07:08:09Z"
    comments = _comments_xml(out).findall("w:comment", NS)
    assert len(comments) == 1
    assert "".join(str(t) for t in comments[0].itertext()) == "reason for d1"
    comment_id = comments[0].get(f"{{{W}}}id")
    start = root.find(".//w:commentRangeStart", NS)
    assert start is not None
    assert start.get(f"{{{W}}}id") == comment_id
    assert start.getnext() is dels[0]
    end = root.find(".//w:commentRangeEnd", NS)
    assert end is not None
    assert end.getprevious() is inss[0]
    assert root.find(f".//w:commentReference[@w:id='{comment_id}']", NS) is not None

    assert accept_all_text(out) == _expected(content.text, [diff])
    assert reject_all_text(out) == content.text


def test_formatting_is_kept_on_split_and_untouched_runs(tmp_path: Path) -> None:
    source = _source(tmp_path)
    content = load_document(source)
    # Replace the middle of the bold run, insert after the italic run.
    inner = content.text.find(BOLD) + 1
    diffs = [
        _diff(content, ActionType.REPLACE, "hal", "HAL", offset=inner, diff_id="bold"),
        _diff(content, ActionType.INSERT, "Goods", " and Services", diff_id="italic"),
    ]

    out, stats = _redline(tmp_path, content, diffs, source)

    assert stats.applied == 2
    root = _document_xml(out)
    paragraph = root.findall(".//w:body/w:p", NS)[1]
    runs = paragraph.findall(".//w:r", NS)
    texts = [(_run_text(r), _flag(r, "b"), _flag(r, "i")) for r in runs if _run_text(r)]
    assert texts == [
        (PLAIN_1, False, False),
        ("s", True, False),
        ("hal", True, False),  # deleted piece keeps bold
        ("HAL", True, False),  # inserted text takes the formatting of the replaced run
        ("l", True, False),
        (PLAIN_2, False, False),
        (ITALIC, False, True),
        (" and Services", False, True),  # inserted text follows the italic anchor run
        (PLAIN_3, False, False),
    ]
    assert len(root.findall(".//w:del", NS)) == 1
    assert len(root.findall(".//w:ins", NS)) == 2
    assert len(_comments_xml(out).findall("w:comment", NS)) == 2
    assert accept_all_text(out) == _expected(content.text, diffs)
    assert reject_all_text(out) == content.text


def test_diff_across_two_runs(tmp_path: Path) -> None:
    source = _source(tmp_path)
    content = load_document(source)
    diff = _diff(content, ActionType.REPLACE, "Supplier shall deliver", "Seller may supply")

    out, stats = _redline(tmp_path, content, [diff], source)

    assert stats.applied == 1
    root = _document_xml(out)
    (deleted,) = root.findall(".//w:del", NS)
    (inserted,) = root.findall(".//w:ins", NS)
    pieces = [(_run_text(r), _flag(r, "b")) for r in deleted.findall("w:r", NS)]
    assert pieces == [("Supplier ", False), ("shall", True), (" deliver", False)]
    assert deleted.find(".//w:t", NS) is None  # deleted text is w:delText only
    (new_run,) = inserted.findall("w:r", NS)
    assert _run_text(new_run) == "Seller may supply"
    assert accept_all_text(out) == _expected(content.text, [diff])
    assert reject_all_text(out) == content.text


def test_numbered_paragraph_label_offset(tmp_path: Path) -> None:
    source = _source(tmp_path)
    content = load_document(source)
    assert "1.\tThe Buyer shall pay the Price." in content.text.split("\n")
    diff = _diff(content, ActionType.REPLACE, "the Price", "the Contract Price")
    # Insertion right at the start of the clause text (anchor = the clause's first words).
    insert = _diff(content, ActionType.INSERT, "Liability", " (other than for fraud)", diff_id="i")

    out, stats = _redline(tmp_path, content, [diff, insert], source)

    assert stats.applied == 2
    accepted = accept_all_text(out)
    assert "1.\tThe Buyer shall pay the Contract Price." in accepted.split("\n")
    assert "2.\tLiability (other than for fraud) of the Supplier is unlimited." in accepted
    assert accepted == _expected(content.text, [diff, insert])
    assert reject_all_text(out) == content.text


def test_table_row_cell(tmp_path: Path) -> None:
    source = _source(tmp_path)
    content = load_document(source)
    assert "Term | Twelve months" in content.text
    diff = _diff(content, ActionType.REPLACE, "Twelve", "Twenty-four")
    delete = _diff(content, ActionType.DELETE, "USD 100", diff_id="x")

    out, stats = _redline(tmp_path, content, [diff, delete], source)

    assert stats.applied == 2
    root = _document_xml(out)
    cells = root.findall(".//w:tbl/w:tr/w:tc", NS)
    assert cells[1].find(".//w:del", NS) is not None
    assert cells[1].find(".//w:ins", NS) is not None
    assert cells[3].find(".//w:del", NS) is not None
    assert cells[3].find(".//w:ins", NS) is None
    assert accept_all_text(out) == _expected(content.text, [diff, delete])
    assert reject_all_text(out) == content.text


def test_delete_and_insert_counts(tmp_path: Path) -> None:
    source = _source(tmp_path)
    content = load_document(source)
    diffs = [
        _diff(content, ActionType.DELETE, " within thirty days", diff_id="del"),
        _diff(content, ActionType.INSERT, "Supply Agreement", " (Amended)", diff_id="ins"),
    ]

    out, stats = _redline(tmp_path, content, diffs, source)

    assert stats.applied == 2
    assert sorted(stats.applied_ids) == ["del", "ins"]
    root = _document_xml(out)
    assert len(root.findall(".//w:del", NS)) == 1
    assert len(root.findall(".//w:ins", NS)) == 1
    assert len(_comments_xml(out).findall("w:comment", NS)) == 2
    assert accept_all_text(out) == _expected(content.text, diffs)
    assert reject_all_text(out) == content.text


def test_pending_and_rejected_are_not_applied(tmp_path: Path) -> None:
    source = _source(tmp_path)
    content = load_document(source)
    diffs = [
        _diff(content, ActionType.REPLACE, "Goods", "Products", status=DiffStatus.PENDING),
        _diff(content, ActionType.DELETE, "unlimited", status=DiffStatus.REJECTED, diff_id="r"),
        _diff(content, ActionType.REPLACE, "Buyer", "Purchaser", diff_id="ok"),
    ]

    out, stats = _redline(tmp_path, content, diffs, source)

    assert stats.applied == 1
    assert stats.applied_ids == ["ok"]
    assert stats.skipped == []
    root = _document_xml(out)
    assert len(root.findall(".//w:del", NS)) == 1
    assert len(root.findall(".//w:ins", NS)) == 1
    assert len(_comments_xml(out).findall("w:comment", NS)) == 1
    accepted = accept_all_text(out)
    assert "Goods" in accepted
    assert "unlimited" in accepted
    assert accepted == _expected(content.text, diffs)


def test_mismatching_and_spanning_diffs_are_skipped(tmp_path: Path) -> None:
    source = _source(tmp_path)
    content = load_document(source)
    offset = content.text.find("Goods")
    across = content.text.find("days.")
    diffs = [
        _diff(content, ActionType.REPLACE, "Wares", "Items", offset=offset, diff_id="wrong"),
        _diff(
            content,
            ActionType.DELETE,
            content.text[across : across + 12],
            offset=across,
            diff_id="span",
        ),
        _diff(content, ActionType.REPLACE, "Supplier shall", "Seller", diff_id="good"),
        _diff(content, ActionType.REPLACE, "shall", "must", diff_id="overlap"),
        _diff(content, ActionType.INSERT, "Supply", "!", diff_id="first-insert", offset=0),
        _diff(content, ActionType.INSERT, "Supply", "?", diff_id="same-place", offset=0),
        _diff(content, ActionType.DELETE, "", diff_id="empty", offset=0),
    ]

    out, stats = _redline(tmp_path, content, diffs, source)

    assert stats.applied == 2
    assert stats.applied_ids == ["first-insert", "good"]
    reasons = {s.diff_id: s.reason for s in stats.skipped}
    assert list(reasons) == ["wrong", "span", "overlap", "same-place", "empty"]
    assert "does not match" in reasons["wrong"]
    assert "more than one paragraph" in reasons["span"]
    assert "overlaps" in reasons["overlap"]
    assert "first-insert" in reasons["same-place"]
    assert accept_all_text(out) == _expected(content.text, [diffs[2], diffs[4]])
    assert reject_all_text(out) == content.text


def test_source_paragraph_differing_from_text_is_skipped(tmp_path: Path) -> None:
    source = _source(tmp_path)
    content = load_document(source)
    # The content comes from another version of the document: the run text is different.
    changed = content.model_copy(
        update={"text": content.text.replace("Buyer shall", "Buyer SHALL")}
    )
    diff = _diff(changed, ActionType.REPLACE, "SHALL", "must")

    out, stats = _redline(tmp_path, changed, [diff], source)

    assert stats.applied == 0
    assert [s.diff_id for s in stats.skipped] == ["d1"]
    assert "differs" in stats.skipped[0].reason
    assert _document_xml(out).find(".//w:ins", NS) is None


def test_existing_revisions_and_hyperlinks(tmp_path: Path) -> None:
    doc = docx.Document()
    paragraph = doc.add_paragraph("Notices go to ")
    paragraph._p.append(
        xml_element(
            '<w:ins w:id="41" w:author="Other" w:date="2024-01-01T00:00:00Z">'
            "<w:r><w:t>the Engineer</w:t></w:r></w:ins>"
        )
    )
    paragraph._p.append(
        xml_element(
            '<w:hyperlink w:anchor="x"><w:r><w:t xml:space="preserve"> at the Site</w:t></w:r></w:hyperlink>'
        )
    )
    source = tmp_path / "revisions.docx"
    doc.save(str(source))
    content = load_document(source)
    assert content.text == "Notices go to the Engineer at the Site"
    diffs = [
        _diff(content, ActionType.REPLACE, "Engineer", "Employer", diff_id="in-ins"),
        _diff(content, ActionType.REPLACE, "Site", "Works", diff_id="in-link"),
        _diff(content, ActionType.REPLACE, "Notices", "All notices", diff_id="plain"),
    ]

    out, stats = _redline(tmp_path, content, diffs, source)

    assert stats.applied_ids == ["plain", "in-link"]
    assert [s.diff_id for s in stats.skipped] == ["in-ins"]
    assert "revision" in stats.skipped[0].reason
    root = _document_xml(out)
    link = root.find(".//w:hyperlink", NS)
    assert link is not None
    assert link.find("w:del", NS) is not None
    assert link.find("w:ins", NS) is not None
    ids = [e.get(f"{{{W}}}id") for e in root.iter(f"{{{W}}}ins", f"{{{W}}}del")]
    assert len(set(ids)) == len(ids) == 5
    assert accept_all_text(out) == "All notices go to the Engineer at the Works"
    # Rejecting everything also rejects the document's own earlier insertion.
    assert reject_all_text(out) == "Notices go to  at the Site"


def test_text_input_without_source_docx(tmp_path: Path) -> None:
    source = tmp_path / "contract.txt"
    source.write_text(
        "采购合同\n\n第一条 卖方应在三十日内交付货物。\n第二条 买方应支付价款。\n",
        encoding="utf-8",
    )
    content = load_document(source)
    diffs = [
        _diff(content, ActionType.REPLACE, "三十日", "十五日"),
        _diff(content, ActionType.INSERT, "支付价款", "及利息", diff_id="ins"),
        _diff(content, ActionType.DELETE, "采购", diff_id="del"),
    ]

    out, stats = _redline(tmp_path, content, diffs, None)

    assert stats.applied == 3
    assert stats.comments == 3
    root = _document_xml(out)
    assert len(root.findall(".//w:del", NS)) == 2
    assert len(root.findall(".//w:ins", NS)) == 2
    # The reader drops blank lines: compare the non-blank lines.
    expected = [line for line in _expected(content.text, diffs).split("\n") if line.strip()]
    assert accept_all_text(out).split("\n") == expected
    original = [line for line in content.text.split("\n") if line.strip()]
    assert reject_all_text(out).split("\n") == original


def test_output_is_well_formed_and_ids_unique(tmp_path: Path) -> None:
    source = _source(tmp_path)
    content = load_document(source)
    diffs = [
        _diff(content, ActionType.REPLACE, "deliver", "supply", diff_id="a"),
        _diff(content, ActionType.DELETE, "unlimited", diff_id="b"),
        _diff(content, ActionType.INSERT, "Fee", " (net)", diff_id="c"),
        _diff(content, ActionType.REPLACE, "Price", "price", diff_id="d"),
    ]

    out, stats = _redline(tmp_path, content, diffs, source)

    assert stats.applied == 4
    with zipfile.ZipFile(out) as zf:
        for name in zf.namelist():
            if name.endswith((".xml", ".rels")):
                etree.fromstring(zf.read(name))  # raises when malformed
        rels = zf.read("word/_rels/document.xml.rels").decode()
        types = zf.read("[Content_Types].xml").decode()
    assert "relationships/comments" in rels
    assert "/word/comments.xml" in types
    reopened = docx.Document(str(out))
    assert len(list(reopened.comments)) == 4
    assert {c.text for c in reopened.comments} == {f"reason for {x}" for x in "abcd"}
    root = _document_xml(out)
    revision_ids = [e.get(f"{{{W}}}id") for e in root.iter(f"{{{W}}}ins", f"{{{W}}}del")]
    comment_ids = [c.get(f"{{{W}}}id") for c in _comments_xml(out).findall("w:comment", NS)]
    all_ids = revision_ids + comment_ids
    assert len(revision_ids) == 6
    assert len(set(all_ids)) == len(all_ids)
    for comment_id in comment_ids:
        for tag in ("commentRangeStart", "commentRangeEnd", "commentReference"):
            assert len(root.findall(f".//w:{tag}[@w:id='{comment_id}']", NS)) == 1
    # Reading the redline with the intake reader shows the accepted text, then its comments
    # in the annex the reader adds after the body.
    read = load_document(out)
    assert body_text(read) == _expected(content.text, diffs)
    annex = read.text[len(body_text(read)) :].splitlines()
    assert annex[1] == "Comments"
    assert [line[:4] for line in annex[2:]] == ["[1] ", "[2] ", "[3] ", "[4] "]
    assert {line[4:] for line in annex[2:]} == {f"reason for {x}" for x in "abcd"}


def test_no_approved_diffs_copies_the_document(tmp_path: Path) -> None:
    source = _source(tmp_path)
    content = load_document(source)

    out, stats = _redline(tmp_path, content, [], source)

    assert stats == RedlineStats()
    assert accept_all_text(out) == content.text
    assert reject_all_text(out) == content.text


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) not installed")
def test_libreoffice_converts_the_redline(tmp_path: Path) -> None:
    source = _source(tmp_path)
    content = load_document(source)
    diff = _diff(content, ActionType.REPLACE, "deliver", "supply")
    out, _ = _redline(tmp_path, content, [diff], source)
    soffice = shutil.which("soffice")
    assert soffice is not None
    subprocess.run(
        [soffice, "--headless", "--convert-to", "pdf", "--outdir", str(tmp_path), str(out)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert (tmp_path / "redline.pdf").stat().st_size > 0
