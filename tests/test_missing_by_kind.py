"""A protection is missing only where the contract's kind calls for it."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.models import ReviewResult

LEASE = """LEASE OF OFFICE PREMISES

This Lease is made between Harrowgate Estates plc (the "Landlord") and Quillon Analytics Ltd \
(the "Tenant").

1. Premises
1.1 The Landlord lets to the Tenant the second floor of 4 Dock Street, Leeds (the "Premises").

2. Term and Rent
2.1 The term is five years from 1 March 2025 and ends on 28 February 2030.
2.2 The Tenant shall pay the annual rent of GBP 48,000 quarterly in advance.
2.3 The Tenant shall pay a security deposit equal to three months' rent.

3. Repair
3.1 The Tenant shall keep the interior of the Premises in good repair.

4. Law
4.1 This Lease is governed by the laws of England and Wales.
"""


def _missing(tmp_path: Path, *extra: str) -> set[str]:
    contract = tmp_path / "lease.txt"
    contract.write_text(LEASE, encoding="utf-8")
    out = tmp_path / ("out" + "".join(extra).replace("-", ""))
    args = ["review", str(contract), "--party", "Tenant", "--approve", "none", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, *extra])
    assert result.exit_code == 0, result.output
    report = ReviewResult.model_validate_json((out / "findings.json").read_text("utf-8"))
    assert report.contract_kinds, "the kind is shown"
    return {r.position_id for r in report.missing}


def test_a_lease_that_ends_at_its_term_lacks_no_termination_clause(tmp_path: Path) -> None:
    missing = _missing(tmp_path)
    assert "termination" not in missing
    assert "confidentiality" not in missing


def test_the_kind_given_decides_what_is_missing(tmp_path: Path) -> None:
    """`--kind services`: the same text read as a services contract lacks a termination
    clause."""
    assert "termination" in _missing(tmp_path, "--kind", "services")
