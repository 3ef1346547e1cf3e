"""A playbook written in plain words (#32): its rows compiled into the built-in checks they
are about, with the lawyer's numbers as tiers; what cannot be compiled listed to check by hand;
`playbook validate --explain` shows it all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.playbook import NumberCheck, Position, Wording, load_playbook
from contract_review.playbook.plain import compile_plain, compiled_positions
from contract_review.plugins import load_builtin_plugins
from contract_review.plugins.registry import get_plugin
from tests.conftest import EXAMPLES, FIXTURES

runner = CliRunner()
CSV = EXAMPLES / "criteria" / "generic_playbook.csv"
MSA = FIXTURES / "plain_playbook" / "saas_msa.txt"


def _built_in() -> list[Position]:
    load_builtin_plugins()
    plugin = get_plugin("generic")
    assert plugin is not None
    assert plugin.playbook is not None
    return list(plugin.playbook.positions)


def test_rows_take_over_the_checks_they_are_about() -> None:
    compiled = {c.source.id: c for c in compile_plain(load_playbook(CSV).positions, _built_in())}
    payment = {p.id: p for p in compiled["g7"].targets}
    assert {"payment_term", "late_payment_interest"} <= set(payment)
    (days,) = [c for c in payment["payment_term"].checks if isinstance(c, NumberCheck)]
    assert (days.standard, days.fallback) == (30, 45)  # "within 30 days" / "within 45 days"
    rate = next(c for c in payment["late_payment_interest"].checks if isinstance(c, NumberCheck))
    assert rate.standard == 12  # "1% per month"
    assert payment["payment_term"].standard.text("en").startswith("Payment within 30 days")
    assert payment["payment_term"].severity == "medium"
    # "No termination for convenience by the other party": who holds the right is checked
    (convenience, *_) = compiled["g3"].targets
    assert convenience.id == "one_sided_termination_for_convenience"
    assert [c.kind for c in convenience.checks] == ["their_right"]
    assert compiled["g8"].targets == ()  # IP ownership: nothing to compile it into


def test_numbers_that_run_the_other_way_keep_the_built_in_tiers() -> None:
    # a cap we want lower than the one we would accept is a cap on our own liability, not
    # the cap we need from the other side: its numbers are not tiers of that check
    plain = Position(
        id="p1",
        topic="Limitation of liability",
        standard=Wording(en="Liability capped at 5% of the fees."),
        fallback=Wording(en="Liability capped at 200% of the fees."),
    )
    built_in = _built_in()
    (done,) = compile_plain([plain], built_in)
    amount = next(t for t in done.targets if t.id == "liability_cap_amount")
    before = next(p for p in built_in if p.id == "liability_cap_amount")
    assert amount.checks == before.checks
    assert (
        "  liability_cap_amount: share_of_price: your numbers run the other way; built-in "
        "tiers kept" in done.lines
    )
    # the standard alone fits: it is used, the fallback left as built in
    plain = plain.model_copy(update={"standard": Wording(en="Liability capped at 150% of fees.")})
    (done,) = compile_plain([plain], built_in)
    amount = next(t for t in done.targets if t.id == "liability_cap_amount")
    check = next(c for c in amount.checks if isinstance(c, NumberCheck))
    assert (check.standard, check.fallback) == (150, 50)


def test_a_position_with_checks_of_its_own_is_left_alone() -> None:
    built_in = _built_in()
    own = next(p for p in built_in if p.id == "payment_term")
    assert compiled_positions([own], built_in) == [own]


def test_validate_explain_prints_the_compiled_checks() -> None:
    result = runner.invoke(app, ["playbook", "validate", "--explain", str(CSV)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "g7 (Payment terms) -> " in out
    assert "payment_term: days: standard 30 (built in 30), fallback 45 (built in 60)" in out
    assert "one_sided_termination_for_convenience: one-sided when the other side holds" in out
    assert "g8 (Intellectual property ownership): compiles into no check" in out
    plain = runner.invoke(app, ["playbook", "validate", str(CSV)])
    assert "->" not in plain.output


def _levels(out: Path) -> dict[str, str]:
    data = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    return {
        r["position_id"]: r["risk_level"]
        for c in data["clauses"]
        for r in c["findings"]["risks"]
        if r.get("position_id")
    }


@pytest.mark.parametrize(
    ("party", "position", "without", "with_csv"),
    [
        ("Provider", "payment_term", "low", "medium"),  # 50 days: past the playbook's 45
        ("Customer", "late_payment_interest", "low", None),  # 9 % a year: within its 12 %
    ],
)
def test_the_criteria_file_changes_the_findings(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    party: str,
    position: str,
    without: str,
    with_csv: str | None,
) -> None:
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))
    plain, mine = tmp_path / "plain", tmp_path / "mine"
    args = ["review", str(MSA), "--party", party, "--approve", "none"]
    assert runner.invoke(app, [*args, "--out", str(plain)]).exit_code == 0
    done = runner.invoke(app, [*args, "--criteria", str(CSV), "--out", str(mine)])
    assert done.exit_code == 0, done.output
    assert _levels(plain).get(position) == without
    assert _levels(mine).get(position) == with_csv
    report = (mine / "report.md").read_text(encoding="utf-8")
    assert "To check against your playbook: Intellectual property ownership (clause 4)" in report
