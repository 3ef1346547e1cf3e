"""Blanks left in a form are reported where they sit; redactions and signing lines are not."""

from __future__ import annotations

from pathlib import Path

from contract_review.analysis.blanks import find_blanks
from contract_review.models import ReviewResult, RiskLevel
from contract_review.structure_parser import StructureParser

FORM = """DISTRIBUTION AGREEMENT

This Agreement is made on ____________, 2024 between Oakridge Tools Inc. (the "Supplier") and \
[●] (the "Distributor").

1. Fees
1.1 The Distributor shall pay an annual fee of $__________.
1.2 Royalties are payable at [●]% of Net Sales.
1.3 The Supplier shall deliver within [***] days of each order.

2. Term
2.1 This Agreement runs for [insert number] years.

3. Notices
3.1 Notices go to the address each party gives in writing.

SIGNED
By: ______________________
Name: ____________________
Oakridge Tools Inc. By____/s/ Anne Ray____
"""


def test_blanks_in_terms_are_found_with_what_they_leave_open() -> None:
    structure = StructureParser().parse(FORM, document_id="c")
    found = {(b.clause_id, b.term) for b in find_blanks(structure)}
    assert ("1.1", "amount") in found
    assert ("1.2", "rate") in found
    assert ("2.1", "period") in found
    # '[***]' is a filing's confidential treatment, not a blank; nor are the signing lines
    assert not [b for b in find_blanks(structure) if b.clause_id == "1.3"]
    assert not [b for b in find_blanks(structure) if "By" in b.sentence or "Name" in b.sentence]


def test_a_clean_contract_has_no_blanks() -> None:
    text = FORM.replace("$__________", "$12,000").replace("[●]%", "5%")
    structure = StructureParser().parse(text, document_id="c")
    assert not [b for b in find_blanks(structure) if b.clause_id in ("1.1", "1.2")]


def test_a_review_reports_each_blank_term_for_either_side(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from contract_review.cli import app

    contract = tmp_path / "form.txt"
    contract.write_text(FORM, encoding="utf-8")
    for party in ("Supplier", "Distributor"):
        out = tmp_path / party
        args = ["review", str(contract), "--party", party, "--approve", "none", "--out", str(out)]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        report = ReviewResult.model_validate_json((out / "findings.json").read_text("utf-8"))
        blanks = {
            r.location.original_text: r.risk_level
            for c in report.clauses
            for r in c.findings.risks
            if r.risk_type == "blank left in the contract" and r.location is not None
        }
        fee = "1.1 The Distributor shall pay an annual fee of $__________."
        assert blanks[fee] is RiskLevel.MEDIUM
        assert not [q for q in blanks if "[***]" in q]
