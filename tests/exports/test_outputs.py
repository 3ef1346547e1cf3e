"""What the lawyer reads: every medium/high risk in a Word comment on its words, the comment a
lawyer's note that agrees with the tracked change, the clean copy, the issues list, the
spreadsheet, a FIDIC review marking up the Particular Conditions, and a report in one
language throughout."""

from __future__ import annotations

import json
import re
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import docx
import pytest
from lxml import etree
from openpyxl import load_workbook
from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.exports.redline_docx import accept_all_text
from contract_review.models import DiffStatus, ReviewResult, RiskLevel
from contract_review.text import has_cjk
from tests.conftest import EXAMPLES

runner = CliRunner()
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
ENGLISH_RUN = re.compile(r"(?:[A-Za-z][A-Za-z'’\-]*[\s,;:()]+){4}[A-Za-z][A-Za-z'’\-]*")
"""Five or more consecutive English words."""


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))


def _review(tmp_path: Path, name: str, *args: str) -> Path:
    out = tmp_path / name
    result = runner.invoke(app, ["review", *args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _comments(path: Path) -> dict[str, dict[str, str]]:
    """Comment id → {author, date, text} of a .docx."""
    with zipfile.ZipFile(path) as z:
        if "word/comments.xml" not in z.namelist():
            return {}
        root = etree.fromstring(z.read("word/comments.xml"))
    out = {}
    for c in root.iter(f"{W}comment"):
        paragraphs = ["".join(t.text or "" for t in p.iter(f"{W}t")) for p in c.iter(f"{W}p")]
        out[str(c.get(f"{W}id"))] = {
            "author": str(c.get(f"{W}author")),
            "date": str(c.get(f"{W}date")),
            "text": "\n".join(paragraphs),
        }
    return out


def _anchored_text(path: Path) -> dict[str, str]:
    """Comment id → the document text between its range start and end (deleted and inserted
    text both in: a comment sits on the words even when an approved change deletes them)."""
    with zipfile.ZipFile(path) as z:
        body = etree.fromstring(z.read("word/document.xml"))
    open_ids: set[str] = set()
    spans: dict[str, list[str]] = {}
    for element in body.iter():
        tag = element.tag
        if tag == f"{W}commentRangeStart":
            open_ids.add(str(element.get(f"{W}id")))
            spans.setdefault(str(element.get(f"{W}id")), [])
        elif tag == f"{W}commentRangeEnd":
            open_ids.discard(str(element.get(f"{W}id")))
        elif tag in (f"{W}t", f"{W}delText") and open_ids:
            for cid in open_ids:
                spans[cid].append(element.text or "")
        elif tag == f"{W}p" and open_ids:
            for cid in open_ids:
                spans[cid].append("\n")
    return {k: "".join(v) for k, v in spans.items()}


def _supply(tmp_path: Path, approve: str, *options: str) -> Path:
    """The bundled supply agreement reviewed for the Buyer into `tmp_path/out`."""
    supply = str(EXAMPLES / "generic" / "supply_agreement_en.txt")
    return _review(tmp_path, "out", supply, "--party", "Buyer", "--approve", approve, *options)


def _result(out: Path) -> ReviewResult:
    return ReviewResult.model_validate_json((out / "findings.json").read_text(encoding="utf-8"))


def _squash(text: str) -> str:
    return " ".join(text.split())


def test_every_medium_and_high_risk_is_a_comment_on_its_words(tmp_path: Path) -> None:
    out = _supply(tmp_path, "all", "--author", "Jane Roe")
    result = _result(out)
    comments = _comments(out / "redline.docx")
    anchored = _anchored_text(out / "redline.docx")
    texts = [_squash(c["text"]) for c in comments.values()]
    risks = [r for c in result.clauses for r in c.findings.risks] + list(result.missing)
    serious = [r for r in risks if r.risk_level in (RiskLevel.HIGH, RiskLevel.MEDIUM)]
    assert serious
    for risk in serious:
        # the risk's finding is in a comment, and that comment sits on the risk's own words
        holders = [
            cid for cid, c in comments.items() if _squash(risk.description) in _squash(c["text"])
        ]
        assert holders, risk.description
        if risk.location is not None and risk.location.original_text:
            quote = _squash(risk.location.original_text)
            assert any(quote in _squash(anchored.get(cid, "")) for cid in holders), quote
    low_only = [r for r in risks if r.risk_level is RiskLevel.LOW]
    for risk in low_only:
        assert not any(_squash(risk.description) in t for t in texts if "Low risk" in t)
    # a lawyer's note: a title with the level, why it matters, no machine codes
    for text in texts:
        assert re.match(r"^(High|Medium) risk – ", text), text
        assert "Why it matters:" in text
        assert not re.search(r"\b[a-z]+_[a-z_]+:", text), text  # no 'risk_shift:' codes
    assert {c["author"] for c in comments.values()} == {"Jane Roe"}
    document = docx.Document(str(out / "redline.docx"))
    props = document.core_properties
    assert props.author == "Jane Roe"
    assert props.title
    assert "supply_agreement_en.txt" in props.title
    assert props.created is not None
    created = props.created.replace(tzinfo=UTC) if props.created.tzinfo is None else props.created
    assert abs((datetime.now(UTC) - created).total_seconds()) < 600
    with zipfile.ZipFile(out / "redline.docx") as z:
        body = z.read("word/document.xml").decode()
    # acting for the Buyer every change needs the lawyer (strikes, new clauses): none tracked;
    # acting for the Supplier its 45-day payment term is shortened unattended, by Jane Roe
    assert set(re.findall(r'w:author="([^"]*)"', body)) <= {"Jane Roe"}
    supply = str(EXAMPLES / "generic" / "supply_agreement_en.txt")
    seller = _review(
        tmp_path,
        "seller",
        supply,
        "--party",
        "Supplier",
        "--approve",
        "all",
        "--author",
        "Jane Roe",
    )
    with zipfile.ZipFile(seller / "redline.docx") as z:
        body = z.read("word/document.xml").decode()
    assert set(re.findall(r'w:author="([^"]*)"', body)) == {"Jane Roe"}


def test_comment_levels_and_missing_protections(tmp_path: Path) -> None:
    contract = tmp_path / "terms.txt"
    contract.write_text(
        'SUPPLY TERMS\n\nThis agreement is made between Northwind Ltd (the "Supplier") and '
        'Contoso LLC (the "Buyer").\n\n1. Payment\n1.1 The Buyer shall pay within 120 days '
        "of invoice.\n\n2. Warranty\n2.1 THE SUPPLIER MAKES NO WARRANTY OF ANY KIND.\n",
        encoding="utf-8",
    )
    common = [str(contract), "--party", "Buyer", "--approve", "none"]
    everything = _review(tmp_path, "all", *common, "--comments", "all")
    high = _review(tmp_path, "high", *common, "--comments", "high")
    medium = _review(tmp_path, "medium", *common)
    result = _result(everything)
    levels = [r.risk_level for c in result.clauses for r in c.findings.risks]
    levels += [r.risk_level for r in result.missing]
    assert RiskLevel.LOW in levels
    assert RiskLevel.MEDIUM in levels
    all_texts = [c["text"] for c in _comments(everything / "redline.docx").values()]
    medium_texts = [c["text"] for c in _comments(medium / "redline.docx").values()]
    high_texts = [c["text"] for c in _comments(high / "redline.docx").values()]
    assert any(t.startswith("Low risk") for t in all_texts)
    assert not any(t.startswith("Low risk") for t in medium_texts)
    assert all(t.startswith("High risk") for t in high_texts)
    assert len(high_texts) < len(medium_texts) < len(all_texts)
    # a protection the contract lacks has no words to sit on: it goes on the title
    assert result.missing
    anchored = _anchored_text(everything / "redline.docx")
    comments = _comments(everything / "redline.docx")
    missing_title = result.missing[0].description
    (cid,) = [k for k, c in comments.items() if _squash(missing_title) in _squash(c["text"])]
    assert anchored[cid].strip() == "SUPPLY TERMS"


def test_an_edit_is_what_the_comment_proposes_and_clean_copy_has_no_revisions(
    tmp_path: Path,
) -> None:
    out = _supply(tmp_path, "none")
    task = json.loads((out / "task.json").read_text())["task_id"]
    result = _result(out)
    diffs = [d for c in result.clauses for d in c.findings.diffs]
    serious = (RiskLevel.HIGH, RiskLevel.MEDIUM)
    first = next(d for d in diffs if d.risk_level in serious)  # one with a comment
    rest = [d for d in diffs if d is not first]
    decisions = tmp_path / "d.json"
    decisions.write_text(
        json.dumps(
            [{"diff_id": first.diff_id, "decision": "edit", "text": "OUR OWN AGREED WORDS"}]
            + [{"diff_id": d.diff_id, "decision": "approve"} for d in rest]
        ),
        encoding="utf-8",
    )
    done = runner.invoke(app, ["approve", task, "--decisions", str(decisions)])
    assert done.exit_code == 0, done.output
    texts = [c["text"] for c in _comments(out / "redline.docx").values()]
    holder = [t for t in texts if "OUR OWN AGREED WORDS" in t]
    assert len(holder) == 1
    assert "reviewer's wording" in holder[0]
    if first.proposed_text:
        assert first.proposed_text not in holder[0]  # the machine's proposal is gone
    else:  # the machine proposed a deletion: the reviewer's words replace the text instead
        assert 'with "OUR OWN AGREED WORDS"' in holder[0]
    accepted = accept_all_text(out / "redline.docx")
    assert "OUR OWN AGREED WORDS" in accepted
    assert f"{first.original_text}OUR OWN" not in accepted  # replaced, not glued on

    with zipfile.ZipFile(out / "clean.docx") as z:
        body = z.read("word/document.xml").decode()
        comments = (
            z.read("word/comments.xml").decode() if "word/comments.xml" in z.namelist() else ""
        )
    for tag in ("<w:ins ", "<w:del ", "<w:commentRangeStart", "<w:commentReference"):
        assert tag not in body, tag
    assert "<w:comment " not in comments
    assert accept_all_text(out / "clean.docx") == accepted


def test_issues_list_and_spreadsheet_have_a_row_per_issue(tmp_path: Path) -> None:
    out = _supply(tmp_path, "all")
    document = docx.Document(str(out / "issues-list.docx"))
    (table,) = document.tables
    header = [c.text for c in table.rows[0].cells]
    assert header == ["No.", "Clause", "Issue", "Our position", "Proposed wording", "Status"]
    rows = table.rows[1:]
    book = load_workbook(out / "findings.xlsx")
    sheet = book.active
    assert sheet.auto_filter.ref is not None
    assert sheet.freeze_panes == "A2"
    assert sheet.max_row - 1 == len(rows) > 0
    numbers = [str(sheet.cell(row=i, column=1).value) for i in range(2, sheet.max_row + 1)]
    assert numbers == [r.cells[0].text for r in rows]
    statuses = {r.cells[5].text.split(" ")[0] for r in rows if r.cells[5].text}
    assert statuses <= {"Approved", "Pending", "Rejected"}


def test_a_fidic_review_marks_up_the_particular_conditions(tmp_path: Path) -> None:
    pc = EXAMPLES / "fidic" / "particular_conditions_amending_en.txt"
    out = _review(
        tmp_path,
        "out",
        str(pc),
        "--domain",
        "fidic",
        "--baseline",
        str(EXAMPLES / "fidic" / "general_conditions_en.txt"),
        "--party",
        "Contractor",
        "--approve",
        "all",
    )
    result = _result(out)
    approved = [
        d for c in result.clauses for d in c.findings.diffs if d.status is DiffStatus.APPROVED
    ]
    assert approved
    rejected = accept_all_text(out / "redline.docx")
    original = _squash(pc.read_text(encoding="utf-8"))
    with zipfile.ZipFile(out / "redline.docx") as z:
        body = z.read("word/document.xml").decode()
    assert "<w:del " not in body  # the PC's own words are untouched
    from contract_review.exports.redline_docx import reject_all_text

    assert _squash(reject_all_text(out / "redline.docx")) == original
    lines = rejected.splitlines()
    for diff in approved:
        # 'Sub-Clause 20.1: delete "within 14 days" and replace with "within 28 days".'
        (line,) = [x for x in lines if x.startswith(f"Sub-Clause {diff.clause_id}: delete ")]
        old, new = re.findall(r'"([^"]*)"', line)
        assert diff.original_text in old
        assert diff.proposed_text in new
        assert old.replace(diff.original_text, diff.proposed_text, 1) == new
        assert len(old.split()) >= min(3, len(diff.original_text.split()) + 2)
    # each inserted instruction carries its comment
    anchored = _anchored_text(out / "redline.docx")
    comments = _comments(out / "redline.docx")
    instruction_text = re.compile(r"^Sub-Clause [\d.]+: (delete|after) ")
    on_instructions = [cid for cid, text in anchored.items() if instruction_text.match(text)]
    assert len(on_instructions) >= len({d.risk_id for d in approved})
    for cid in on_instructions:
        assert "Proposed change:" in comments[cid]["text"]


def _english_runs(text: str, allowed: list[str]) -> list[str]:
    for phrase in sorted(allowed, key=len, reverse=True):
        if phrase:
            text = text.replace(phrase, " ")
    return ENGLISH_RUN.findall(text)


@pytest.mark.parametrize(
    ("contract", "options"),
    [
        (EXAMPLES / "cn" / "construction_contract_zh.txt", ["--party", "乙方"]),
        (
            EXAMPLES / "sha_spa" / "shareholders_agreement_zh.txt",
            ["--domain", "sha_spa", "--party", "投资方"],
        ),
    ],
)
def test_a_chinese_report_is_chinese_throughout(
    tmp_path: Path, contract: Path, options: list[str]
) -> None:
    out = _review(tmp_path, "out", str(contract), *options, "--approve", "all")
    result = _result(out)
    allowed = [contract.name, result.our_party]
    allowed += [c.clause_text for c in result.clauses]  # quotes are the contract's words
    allowed += [
        r.location.original_text for c in result.clauses for r in c.findings.risks if r.location
    ]
    md = (out / "report.md").read_text(encoding="utf-8")
    offending = [
        line
        for line in md.splitlines()
        if _english_runs(line, allowed) and not line.startswith(">")
    ]
    assert offending == [], offending[:5]
    for comment in _comments(out / "redline.docx").values():
        assert _english_runs(comment["text"], allowed) == [], comment["text"]
    page = re.sub(
        r"<style>.*?</style>|<[^>]+>", "\n", (out / "report.html").read_text("utf-8"), flags=re.S
    )
    page = page.replace("&#34;", '"').replace("&#39;", "'").replace("&amp;", "&")
    assert [x for x in page.splitlines() if _english_runs(x, allowed)] == []
    document = docx.Document(str(out / "issues-list.docx"))
    cells = [c.text for t in document.tables for r in t.rows for c in r.cells]
    assert [c for c in cells if _english_runs(c, allowed)] == []
    sheet = load_workbook(out / "findings.xlsx").active
    values = [str(v) for row in sheet.iter_rows(values_only=True) for v in row if v]
    assert [v for v in values if _english_runs(v, allowed)] == []


def test_an_english_report_is_english_throughout(tmp_path: Path) -> None:
    contract = EXAMPLES / "generic" / "supply_agreement_en.txt"
    out = _review(tmp_path, "out", str(contract), "--party", "Buyer", "--approve", "all")
    md = (out / "report.md").read_text(encoding="utf-8")
    assert not [line for line in md.splitlines() if has_cjk(line) and not line.startswith(">")]


def test_a_rejection_and_its_feedback_are_in_the_comment(tmp_path: Path) -> None:
    out = _supply(tmp_path, "none")
    task = json.loads((out / "task.json").read_text())["task_id"]
    diffs = [d for c in _result(out).clauses for d in c.findings.diffs]
    decisions = tmp_path / "d.csv"
    decisions.write_text(
        "diff_id,decision,feedback\n"
        + "".join(
            f"{d.diff_id},reject,Client accepts this risk {n}\n" for n, d in enumerate(diffs)
        ),
        encoding="utf-8",
    )
    done = runner.invoke(
        app, ["approve", task, "--decisions", str(decisions), "--reviewer", "J. Roe"]
    )
    assert done.exit_code == 0, done.output
    texts = "\n".join(c["text"] for c in _comments(out / "redline.docx").values())
    assert "(Rejected by J. Roe, " in texts
    for n, diff in enumerate(diffs):
        if diff.risk_level in (RiskLevel.HIGH, RiskLevel.MEDIUM):
            assert f"Feedback: Client accepts this risk {n}" in texts
    with zipfile.ZipFile(out / "redline.docx") as z:
        assert "<w:del " not in z.read("word/document.xml").decode()  # nothing approved


def test_an_issue_without_words_is_noted_on_its_clause_heading(tmp_path: Path) -> None:
    from contract_review.exports.issues import Issue, messages
    from contract_review.exports.outputs import _notes
    from contract_review.structure_parser import StructureParser

    text = "SERVICES TERMS\n\n1. Scope\n1.1 The Supplier provides the Services.\n\n2. Fees\n2.1 Fees are due monthly.\n"
    structure = StructureParser().parse(text, document_id="t")
    issue = Issue(
        number=1,
        clause_id="2",
        clause_title="Fees",
        level=RiskLevel.MEDIUM,
        title="Late payment interest",
        why="No interest runs on late payment.",
        position="",
        fallback="",
        quote="",
        start=None,
        end=None,
    )
    (note,) = _notes(messages("en"), [issue], structure, text)
    assert text[note.start : note.end] == "2. Fees"


def test_a_standard_form_without_its_text_says_what_was_not_checked(tmp_path: Path) -> None:
    out = _review(
        tmp_path,
        "out",
        str(EXAMPLES / "fidic" / "particular_conditions_en.txt"),
        "--domain",
        "fidic",
        "--party",
        "Contractor",
        "--approve",
        "all",
    )
    md = (out / "report.md").read_text(encoding="utf-8")
    unchecked = md[md.index("### What could not be checked") : md.index("## Clause by clause")]
    assert "No baseline document was given" in unchecked
    with_gc = _review(
        tmp_path,
        "gc",
        str(EXAMPLES / "fidic" / "particular_conditions_amending_en.txt"),
        "--domain",
        "fidic",
        "--baseline",
        str(EXAMPLES / "fidic" / "general_conditions_en.txt"),
        "--party",
        "Contractor",
        "--approve",
        "all",
    )
    assert "No baseline document" not in (with_gc / "report.md").read_text(encoding="utf-8")


def _unchecked(md: str, head: str = "### What could not be checked") -> str:
    return md[md.index(head) : md.index("## ", md.index(head) + len(head))]


def test_a_contract_read_as_one_clause_is_not_given_a_clean_bill(tmp_path: Path) -> None:
    """#30: nothing numbered, so nothing could be checked clause by clause; the report says so
    and the verdict does not claim that no issue was found against the playbook."""
    paragraph = (
        "The Supplier shall deliver the goods described in the order to the Buyer's premises "
        "within the time stated in the order, and the Buyer shall pay the price stated there."
    )
    text = (
        'SUPPLY LETTER\n\nThis letter is between Alder Mills Ltd ("Supplier") and Birch Foods '
        'plc ("Buyer").\n\n' + "\n\n".join([paragraph] * 12) + "\n"
    )
    letter = tmp_path / "letter.txt"
    letter.write_text(text, encoding="utf-8")
    out = _review(tmp_path, "out", str(letter), "--party", "Buyer", "--approve", "none")
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "it was read as one clause" in _unchecked(md)
    verdict = md[
        md.index("## Verdict") : md.index("### Top issues")
        if "### Top issues" in md
        else md.index("### What was checked")
    ]
    assert "cannot vouch for what it did not find" in verdict
    assert "No issue found against the playbook" not in verdict
    assert [g.kind.value for g in _result(out).coverage_gaps] == ["one_clause"]


def test_a_numbered_contract_has_no_structure_gap(tmp_path: Path) -> None:
    out = _supply(tmp_path, "none")
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "read as one clause" not in md
    assert "cannot vouch" not in md
    assert _result(out).coverage_gaps == []
