"""The `contract-review parse` command."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.models import DocumentStructure
from tests.conftest import EXAMPLES, GENERIC_SKILLS

runner = CliRunner()


def test_parse_prints_a_readable_tree() -> None:
    result = runner.invoke(app, ["parse", str(EXAMPLES / "cn" / "construction_contract_zh.txt")])
    assert result.exit_code == 0, result.output
    assert "第1章" in result.output
    assert "第四十五条" in result.output  # the reference to a missing article is reported
    assert "chars" in result.output


def test_parse_json_is_a_document_structure() -> None:
    path = EXAMPLES / "fidic" / "particular_conditions_en.txt"
    result = runner.invoke(app, ["parse", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    structure = DocumentStructure.model_validate(json.loads(result.stdout))
    assert structure.get_clause("20.1") is not None
    text = path.read_text(encoding="utf-8")
    for clause in structure.iter_clauses():
        assert text[clause.start_offset : clause.end_offset] == clause.text


def test_unknown_option_value_is_a_usage_error() -> None:
    result = runner.invoke(app, ["parse", "x.txt", "--format", "xml"])
    assert result.exit_code == 2


def test_skills_list_json_has_every_skill_with_business_parameters() -> None:
    result = runner.invoke(app, ["skills", "list", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    ids = {r["skill_id"] for r in rows}
    assert ids >= GENERIC_SKILLS
    for row in rows:
        assert row["description"]
        assert "document_structure" not in row["parameters"]["properties"]
    table = runner.invoke(app, ["skills", "list"])
    assert table.exit_code == 0
    assert "extract_financial_terms" in table.output


def test_skills_run_prints_the_result() -> None:
    path = EXAMPLES / "fidic" / "particular_conditions_en.txt"
    result = runner.invoke(
        app, ["skills", "run", "extract_financial_terms", str(path), "--clause", "8.8"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [p["value"] for p in data["percentages"]][:1] == [0.2]
    assert data["percentages"][0]["category"] == "delay_damages"


def test_skills_run_with_baseline_party_and_arguments(tmp_path: Path) -> None:
    contract = tmp_path / "contract.txt"
    contract.write_text("1. Claims\nThe Contractor shall give notice within 14 days.\n")
    baseline = tmp_path / "baseline.txt"
    baseline.write_text("1. Claims\nThe Contractor shall give notice within 28 days.\n")
    result = runner.invoke(
        app,
        [
            "skills",
            "run",
            "assess_deviation",
            str(contract),
            "--clause",
            "1",
            "--baseline",
            str(baseline),
            "--party",
            "Contractor",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["max_severity"] == "high"
    args = runner.invoke(
        app,
        [
            "skills",
            "run",
            "search_reference_doc",
            str(contract),
            "--clause",
            "1",
            "--reference",
            str(baseline),
            "--arg",
            "query=notice",
            "--arg",
            "top_k=1",
        ],
    )
    assert args.exit_code == 0, args.output
    assert json.loads(args.stdout)["passages"][0]["clause_id"] == "1"


def test_skills_run_user_errors_exit_2() -> None:
    path = EXAMPLES / "fidic" / "particular_conditions_en.txt"
    cases = [
        ["skills", "run", "get_clause_context", str(path), "--clause", "99.9"],
        ["skills", "run", "no_such_skill", str(path), "--clause", "1"],
        ["skills", "run", "compare_with_baseline", str(path), "--clause", "8.8"],
        ["skills", "run", "get_clause_context", str(path), "--clause", "1", "--arg", "oops"],
        ["skills", "run", "get_clause_context", str(path), "--clause", "1", "--domain", "x"],
    ]
    for argv in cases:
        result = runner.invoke(app, argv)
        assert result.exit_code == 2, (argv, result.output)
        assert "error" in result.output.lower()  # a bad --domain is a usage error of the parser


def test_checklist_json_carries_topics_offsets_and_text() -> None:
    path = EXAMPLES / "generic" / "supply_agreement_en.txt"
    result = runner.invoke(app, ["checklist", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    text = path.read_text(encoding="utf-8")
    assert rows
    for row in rows:
        assert text[row["start_offset"] : row["end_offset"]] == row["text"]
        assert row["required_skills"]
    assert "Governing Law" in {r["topic"] for r in rows}
    table = runner.invoke(app, ["checklist", str(path)])
    assert table.exit_code == 0
    assert "Governing Law" in table.output


def test_timebars_writes_a_calendar_a_lawyer_can_import(tmp_path: Path) -> None:
    from icalendar import Calendar

    out = tmp_path / "deadlines.ics"
    path = EXAMPLES / "fidic" / "particular_conditions_en.txt"
    result = runner.invoke(
        app,
        [
            "timebars",
            str(path),
            "--out",
            str(out),
            "--party",
            "Contractor",
            "--start-date",
            "2025-01-03",
        ],
    )
    assert result.exit_code == 0, result.output
    calendar = Calendar.from_ical(out.read_bytes())
    events = {str(e.get("SUMMARY")): e for e in calendar.walk("VEVENT")}
    claim = next(e for s, e in events.items() if s.startswith("Sub-Clause 20.1(a)"))
    assert claim.decoded("DTSTART").isoformat() == "2025-01-31"
    assert "loses any right" in str(claim.get("DESCRIPTION"))
    csv_out = tmp_path / "deadlines.csv"
    assert runner.invoke(app, ["timebars", str(path), "--out", str(csv_out)]).exit_code == 0
    assert csv_out.read_text(encoding="utf-8").splitlines()[0].startswith("clause_id")
    bad = runner.invoke(app, ["timebars", str(path), "--out", str(tmp_path / "x.txt")])
    assert bad.exit_code == 2
    date_error = runner.invoke(
        app, ["timebars", str(path), "--out", str(out), "--start-date", "3 Jan"]
    )
    assert date_error.exit_code == 2
