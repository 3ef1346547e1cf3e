"""Every domain model survives a JSON round trip unchanged."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from contract_review import models as m


def _structure() -> m.DocumentStructure:
    child = m.ClauseNode(
        clause_id="14.2",
        number="Sub-Clause 14.2",
        title="Advance Payment",
        text="x" * 10,
        level=2,
        start_offset=30,
        end_offset=40,
        body_offset=32,
        parent_id="14",
    )
    parent = m.ClauseNode(
        clause_id="14",
        number="Clause 14",
        title="Payment",
        text="y" * 30,
        level=1,
        start_offset=10,
        end_offset=40,
        body_offset=20,
        children=[child],
    )
    return m.DocumentStructure(
        document_id="pc",
        structure_type="fidic",
        clauses=[parent],
        definitions={"Works": m.DefinedTerm(term="Works", definition="all works", clause_id="1.1")},
        cross_references=[
            m.CrossReference(
                source_clause_id="14",
                target_clause_id="20.1",
                reference_text="Sub-Clause 20.1",
                start_offset=12,
                end_offset=27,
                is_valid=False,
            )
        ],
        total_clauses=2,
        text_length=40,
        toc_ranges=[(0, 5)],
    )


def _risk() -> m.RiskPoint:
    return m.RiskPoint(
        id="r1",
        clause_id="14.2",
        risk_level=m.RiskLevel.HIGH,
        risk_type="advance payment",
        description="No advance payment guarantee reduction.",
        reason="cash flow",
        location=m.TextLocation(
            clause_id="14.2", original_text="xxxx", start_offset=30, end_offset=34
        ),
        source_skills=["extract_financial_terms"],
    )


def _diff() -> m.DocumentDiff:
    return m.DocumentDiff(
        diff_id="d1",
        risk_id="r1",
        clause_id="14.2",
        action_type=m.ActionType.REPLACE,
        original_text="28 days",
        proposed_text="56 days",
        reason="longer notice",
        risk_level=m.RiskLevel.MEDIUM,
        start_offset=31,
    )


INSTANCES: list[BaseModel] = [
    m.LoadedText(
        format=m.DocumentFormat.DOCX,
        text="1.1\tText",
        encoding=None,
        blocks=[
            m.TextBlock(
                start=0,
                end=8,
                kind="paragraph",
                locator="/body/p[0]",
                number_label="1.1",
                style="Heading 2",
            )
        ],
        hidden_spans=[m.HiddenTextSpan(start=4, end=8, reason="vanish", text="Text")],
        warnings=["1 hidden text run"],
    ),
    _structure(),
    m.TaskDocument(
        document_id="d", role=m.DocumentRole.SUPPLEMENT, filename="pc.docx", structure=_structure()
    ),
    _risk(),
    _diff(),
    m.DiffBatch(clause_id="14.2", diffs=[_diff()]),
    m.ModificationSuggestion(
        risk_id="r1",
        clause_id="14.2",
        original_text="28 days",
        suggested_text="56 days",
        priority=m.Priority.HIGH,
    ),
    m.ActionRecommendation(
        action_id="a1",
        related_risk_ids=["r1"],
        action_type="diarise",
        description="Diarise the 28-day notice.",
        deadline="2026-12-01",
    ),
    m.ReviewChecklistItem(
        clause_id="14.2",
        clause_name="预付款",
        priority=m.Priority.CRITICAL,
        required_skills=["get_clause_context"],
        topic="Payment",
    ),
    m.Deviation(
        clause_id="20.1",
        deviation_type="modified",
        baseline_text="28 days",
        actual_text="14 days",
        severity=m.RiskLevel.HIGH,
        reason="shorter period",
    ),
    m.ClauseFindings(clause_id="14.2", risks=[_risk()], diffs=[_diff()], completed=True),
    m.ApprovalRequest(diff_id="d1", decision=m.Decision.REJECT, feedback="keep 28 days"),
    m.ReviewResult(
        task_id="t1",
        created_at="2026-01-01T00:00:00+00:00",
        our_party="Contractor",
        primary_filename="pc.docx",
        other_documents=["baseline: gc.docx"],
        clauses=[
            m.ReviewedClause(
                item=m.ReviewChecklistItem(clause_id="14.2", topic="Advance payment"),
                clause_title="Advance Payment",
                clause_text="xxxx",
                findings=m.ClauseFindings(clause_id="14.2", risks=[_risk()], diffs=[_diff()]),
            )
        ],
        warnings=["1 hidden run"],
        hidden_text=[m.HiddenTextSpan(start=0, end=2, reason="vanish", text="xx")],
    ),
]


@pytest.mark.parametrize("instance", INSTANCES, ids=lambda i: type(i).__name__)
def test_json_round_trip(instance: BaseModel) -> None:
    again = type(instance).model_validate_json(instance.model_dump_json())
    assert again == instance
    assert again.model_dump() == instance.model_dump()


def test_structure_lookups_survive_round_trip() -> None:
    structure = _structure()
    assert structure.get_clause("14.2") is not None
    again = m.DocumentStructure.model_validate_json(structure.model_dump_json())
    assert again == structure
    found = again.clause_at(35)
    assert found is not None
    assert found.clause_id == "14.2"
    assert [c.clause_id for c in again.leaf_clauses()] == ["14.2"]
    assert again.get_clause("missing") is None


def test_seed_style_dicts_validate() -> None:
    """SPEC-20's example state passes plain dicts; they validate into the models."""
    structure = m.DocumentStructure.model_validate(
        {
            "clauses": [{"clause_id": "4.1", "text": "The Contractor shall...", "children": []}],
            "document_id": "test",
            "structure_type": "fidic",
            "definitions": {},
            "cross_references": [],
            "total_clauses": 1,
        }
    )
    assert structure.get_clause("4.1") is not None
    item = m.ReviewChecklistItem.model_validate(
        {
            "clause_id": "14.2",
            "clause_name": "预付款",
            "priority": "high",
            "required_skills": ["get_clause_context"],
            "description": "核查预付款条款",
        }
    )
    assert item.priority is m.Priority.HIGH


def test_unknown_fields_and_bad_values_are_rejected() -> None:
    with pytest.raises(ValidationError):
        m.ApprovalRequest.model_validate({"diff_id": "d", "decision": "maybe"})
    with pytest.raises(ValidationError):
        m.RiskPoint.model_validate(
            {
                "id": "r",
                "clause_id": "1",
                "risk_level": "high",
                "risk_type": "x",
                "description": "d",
                "colour": "red",
            }
        )
