"""Our own sample contracts, checked clause by clause against hand-written expectations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contract_review.models import ClauseKind, DocumentStructure
from contract_review.structure_parser import StructureParser
from tests.conftest import FIXTURES, REPO

CASES = sorted((FIXTURES / "structure").glob("*.json"))


def _load(path: Path) -> tuple[dict[str, Any], str, DocumentStructure]:
    fixture: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    text = (REPO / fixture["document"]).read_text(encoding="utf-8")
    return fixture, text, StructureParser().parse(text, document_id=path.stem)


def test_there_are_english_and_chinese_fixtures() -> None:
    names = {p.stem for p in CASES}
    assert {"construction_contract_zh", "particular_conditions_en"} <= names


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_clause_tree_matches_clause_by_clause(path: Path) -> None:
    fixture, text, structure = _load(path)
    got = [c for c in structure.iter_clauses() if c.kind is not ClauseKind.PREAMBLE]
    assert [c.clause_id for c in got] == [c["id"] for c in fixture["clauses"]]
    for clause, expected in zip(got, fixture["clauses"], strict=True):
        assert clause.number == expected["number"], clause.clause_id
        assert clause.title == expected["title"], clause.clause_id
        assert clause.parent_id == expected["parent"], clause.clause_id
        assert text[clause.start_offset : clause.end_offset] == clause.text


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_definitions_match(path: Path) -> None:
    fixture, _, structure = _load(path)
    got = {term: d.definition for term, d in structure.definitions.items()}
    assert got == fixture["definitions"]


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_cross_references_match_with_validity(path: Path) -> None:
    fixture, text, structure = _load(path)
    got = [(r.reference_text, r.target_clause_id, r.is_valid) for r in structure.cross_references]
    expected = [(r["text"], r["target"], r["valid"]) for r in fixture["cross_references"]]
    assert got == expected
    assert any(not valid for _, _, valid in expected)
    for ref in structure.cross_references:
        assert text[ref.start_offset : ref.end_offset] == ref.reference_text
        source = structure.get_clause(ref.source_clause_id or "")
        assert source is not None
        assert source.start_offset <= ref.start_offset < source.end_offset
