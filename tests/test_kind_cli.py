"""The contract's kind in the review: `--kind` overrides detection (an unknown kind stops the
review before any work, naming the kinds), and the report, findings.json and the inventory
show it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.exports.issues import build_view
from contract_review.models import KindEvidence, KindMatch, ReviewResult
from tests.conftest import EXAMPLES

runner = CliRunner()
SUPPLY = EXAMPLES / "generic" / "supply_agreement_en.txt"


@pytest.fixture(autouse=True)
def _state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))


def _review(out: Path, *options: str) -> tuple[int, str]:
    args = ["review", str(SUPPLY), "--party", "Buyer", "--approve", "all", "--out", str(out)]
    result = runner.invoke(app, [*args, *options])
    return result.exit_code, result.output


def test_an_unknown_kind_is_one_line_exit_2_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, output = _review(out, "--kind", "lease")
    assert code == 2
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith("error: --kind lease")
    assert "property_lease" in lines[0]
    assert "supply" in lines[0]
    assert not out.exists()
    assert not (tmp_path / "state" / "tasks").exists()


def test_the_report_shows_the_detected_kind_and_a_given_one_overrides_it(tmp_path: Path) -> None:
    code, output = _review(tmp_path / "detected")
    assert code == 0, output
    found = ReviewResult.model_validate_json((tmp_path / "detected" / "findings.json").read_bytes())
    assert found.contract_kinds[0].kind == "supply"
    report = (tmp_path / "detected" / "report.md").read_text("utf-8")
    assert "**Contract kind**: Supply / purchase (confidence" in report
    html = (tmp_path / "detected" / "report.html").read_text("utf-8")
    assert "<dt>Contract kind</dt><dd>Supply / purchase" in html

    code, output = _review(tmp_path / "given", "--kind", "distribution")
    assert code == 0, output
    given = ReviewResult.model_validate_json((tmp_path / "given" / "findings.json").read_bytes())
    assert [k.kind for k in given.contract_kinds] == ["distribution"]
    report = (tmp_path / "given" / "report.md").read_text("utf-8")
    assert "Distribution / reseller (as given with --kind)" in report


def test_the_chinese_report_names_the_kind_in_chinese() -> None:
    kind = KindMatch(
        kind="property_lease",
        name="Lease (property)",
        name_zh="房屋 / 场地租赁",
        confidence=0.8,
        evidence=[KindEvidence(source="title", words="房屋租赁", weight=9)],
    )
    also = KindMatch(kind="services", name="Services", name_zh="服务", confidence=0.4)
    result = ReviewResult(
        task_id="t",
        created_at="2025-01-01T00:00:00",
        language="zh-CN",
        primary_filename="租赁.txt",
        contract_kinds=[kind, also],
    )
    line = build_view(result).kind
    assert line.startswith("房屋 / 场地租赁（置信度 0.80；标题“房屋租赁”）")
    assert "兼有：服务 (0.40)" in line


def test_the_inventory_leads_with_the_kind() -> None:
    lease = Path(__file__).parent / "fixtures" / "inventory_blind2" / "zh_fangwu_zulin_ruijia.txt"
    out = runner.invoke(app, ["inventory", str(lease), "--format", "json"])
    assert out.exit_code == 0, out.output
    first = json.loads(out.stdout)[0]
    assert first["category"] == "Contract Kind"
    assert first["value"].startswith("property_lease (")
    table = runner.invoke(app, ["inventory", str(lease)])
    assert "Contract kind: property_lease" in table.stdout
