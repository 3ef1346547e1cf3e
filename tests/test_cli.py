"""The `contract-review parse` command."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.models import DocumentStructure
from tests.conftest import EXAMPLES

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
