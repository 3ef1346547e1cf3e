"""Deterministic mode: skill outputs become risks with verbatim, checked quotes."""

from __future__ import annotations

import asyncio
from typing import Any

from contract_review.documents import load_task_document
from contract_review.models import DocumentRole, RiskLevel, RiskPoint, TaskDocument
from contract_review.plugins import create_dispatcher
from contract_review.skills.risks import anchor_quote, risks_from_skill_outputs
from tests.conftest import EXAMPLES


def _risks(
    doc: TaskDocument, clause_id: str, skills: list[str], state: dict[str, Any]
) -> list[RiskPoint]:
    dispatcher = create_dispatcher()
    assert doc.structure is not None
    outputs = []
    for skill in skills:
        result = asyncio.run(dispatcher.prepare_and_call(skill, clause_id, doc.structure, state))
        assert result.success, result.error
        registration = dispatcher.get_registration(skill)
        assert registration is not None
        assert registration.risk_rule is not None
        outputs.append((registration, result.data))
    clause = doc.structure.get_clause(clause_id)
    assert clause is not None
    risks = risks_from_skill_outputs(clause, outputs)
    text = doc.content.text if doc.content else ""
    for risk in risks:
        assert risk.clause_id == clause_id
        if risk.location is not None:
            loc = risk.location
            assert loc.start_offset is not None
            assert loc.end_offset is not None
            assert text[loc.start_offset : loc.end_offset] == loc.original_text
            assert loc.original_text in clause.text
    return risks


ZH = load_task_document(EXAMPLES / "cn" / "construction_contract_zh.txt", DocumentRole.PRIMARY)
ZH_STATE: dict[str, Any] = {"our_party": "承包人", "domain_id": "fidic", "documents": [ZH]}


def test_time_bar_against_us_is_a_high_risk_quoting_the_sentence() -> None:
    risks = _risks(ZH, "15.1", ["fidic_calculate_time_bar"], ZH_STATE)
    (risk,) = risks
    assert (risk.risk_level, risk.risk_type) == (RiskLevel.HIGH, "time bar")
    assert risk.location is not None
    assert "28天内" in risk.location.original_text
    assert risk.source_skills == ["fidic_calculate_time_bar"]


def test_financial_flags_become_risks() -> None:
    uncapped = _risks(ZH, "16.1", ["extract_financial_terms"], ZH_STATE)
    assert [(r.risk_level, r.risk_type) for r in uncapped] == [(RiskLevel.HIGH, "uncapped damages")]
    retention = _risks(ZH, "6.1", ["extract_financial_terms"], ZH_STATE)
    assert {r.risk_type for r in retention} == {"retention above the statutory cap"}
    assert len(retention) == 1  # the same quote twice is one risk
    interest = _risks(ZH, "5", ["extract_financial_terms"], ZH_STATE)
    assert [r.risk_type for r in interest] == ["no interest on late payment"]


def test_a_clean_clause_yields_no_risk() -> None:
    assert _risks(ZH, "2", ["extract_financial_terms", "cross_reference_check"], ZH_STATE) == []


def test_fidic_pc_findings_and_deviations() -> None:
    pc = load_task_document(
        EXAMPLES / "fidic" / "particular_conditions_amending_en.txt", DocumentRole.PRIMARY
    )
    gc = load_task_document(EXAMPLES / "fidic" / "general_conditions_en.txt", DocumentRole.BASELINE)
    state: dict[str, Any] = {
        "our_party": "Contractor",
        "domain_id": "fidic",
        "documents": [pc, gc, pc.model_copy(update={"role": DocumentRole.SUPPLEMENT})],
    }
    risks = _risks(pc, "8.8", ["fidic_check_pc_consistency"], state)
    assert [(r.risk_level, r.risk_type) for r in risks] == [
        (RiskLevel.HIGH, "risk_shift:cap_removed")
    ]
    assert risks[0].location is not None  # quoted from the PC text itself
    ordered = _risks(pc, "20.1", ["fidic_check_pc_consistency", "fidic_calculate_time_bar"], state)
    levels = [r.risk_level for r in ordered]
    assert levels == sorted(levels, key=[RiskLevel.HIGH, RiskLevel.MEDIUM, RiskLevel.LOW].index)
    assert any(r.risk_type == "risk_shift:notice_shortened" for r in ordered)


def test_sha_spa_gaps_become_risks() -> None:
    spa = load_task_document(EXAMPLES / "sha_spa" / "spa_en.txt", DocumentRole.PRIMARY)
    risks = _risks(spa, "7", ["spa_indemnity_analysis"], {"our_party": "Buyer"})
    assert any(r.risk_type == "cap_below_market" and r.risk_level is RiskLevel.HIGH for r in risks)


def test_anchor_quote() -> None:
    clause = "The Contractor shall give notice within 28 days after the event."
    assert anchor_quote(clause, "within 28 days") == ("within 28 days", 33)
    assert anchor_quote(clause, "give  notice\nwithin") == ("give notice within", 21)
    # A paraphrase keeps its longest verbatim part when substantial, else no anchor.
    assert anchor_quote(clause, "Contractor shall give notice promptly") == (
        "Contractor shall give notice ",
        4,
    )
    assert anchor_quote(clause, "payment within 56 days") is None
    assert anchor_quote(clause, "   ") is None
