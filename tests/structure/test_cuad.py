"""The parser on 39 real EDGAR contracts (CUAD dev slice, CC BY 4.0)."""

from __future__ import annotations

from typing import Any

import pytest

from contract_review.models import ClauseKind, DocumentStructure
from contract_review.structure_parser import StructureParser
from tests.conftest import CUAD, cuad_records

RECORDS = cuad_records()
pytestmark = pytest.mark.skipif(not RECORDS, reason="CUAD dev data not available")


def _parse(record: dict[str, Any]) -> tuple[str, DocumentStructure]:
    text = (CUAD / "contracts" / record["txt_file"]).read_text(encoding="utf-8")
    return text, StructureParser().parse(text, document_id=record["title"])


def test_the_dev_slice_is_complete() -> None:
    assert len(RECORDS) == 39


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: str(r["title"])[:40])
def test_offsets_slice_back_exactly(record: dict[str, Any]) -> None:
    text, structure = _parse(record)
    ids = set()
    for clause in structure.iter_clauses():
        assert text[clause.start_offset : clause.end_offset] == clause.text
        assert clause.start_offset <= clause.body_offset <= clause.end_offset
        assert clause.clause_id not in ids
        ids.add(clause.clause_id)
        for child in clause.children:
            assert clause.start_offset <= child.start_offset < child.end_offset <= clause.end_offset
            assert child.parent_id == clause.clause_id
    assert structure.total_clauses == len(ids)
    for ref in structure.cross_references:
        assert text[ref.start_offset : ref.end_offset] == ref.reference_text


@pytest.mark.parametrize(
    "record",
    [r for r in RECORDS if r["labels"].get("Governing Law", {}).get("spans")],
    ids=lambda r: str(r["title"])[:40],
)
def test_governing_law_gold_span_lies_in_one_leaf_clause(record: dict[str, Any]) -> None:
    _, structure = _parse(record)
    leaves = structure.leaf_clauses()
    for span in record["labels"]["Governing Law"]["spans"]:
        holders = [
            leaf.clause_id
            for leaf in leaves
            if leaf.start_offset <= span["start"] and span["end"] <= leaf.end_offset
        ]
        assert len(holders) == 1, (span["text"][:80], holders)


def test_most_contracts_have_at_least_five_top_level_clauses() -> None:
    counts = []
    for record in RECORDS:
        _, structure = _parse(record)
        counts.append(sum(1 for c in structure.clauses if c.kind is not ClauseKind.PREAMBLE))
    assert sum(1 for n in counts if n >= 5) >= 0.8 * len(RECORDS), counts
