"""The review graph: SPEC-4 §9 behaviour and a real deterministic review, on every saver."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command

from contract_review.documents import load_task_document
from contract_review.graph.builder import build_review_graph, route_validation
from contract_review.graph.state import ClauseState
from contract_review.models import DiffStatus, DocumentRole, ReviewChecklistItem, RiskLevel
from contract_review.plugins import load_builtin_plugins
from contract_review.plugins.registry import get_plugin
from tests.conftest import EXAMPLES


def _config() -> RunnableConfig:
    return {"configurable": {"thread_id": f"t-{uuid.uuid4().hex}"}, "max_concurrency": 4}


def _state(checklist: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "task_id": f"task-{uuid.uuid4().hex[:8]}",
        "our_party": "承包商",
        "material_type": "contract",
        "language": "en",
        "documents": [],
        "review_checklist": checklist,
        **extra,
    }


def _item(cid: str, name: str = "", skills: list[str] | None = None) -> dict[str, Any]:
    return {
        "clause_id": cid,
        "clause_name": name,
        "priority": "high",
        "required_skills": skills or [],
        "description": "",
    }


def test_build_graph() -> None:
    assert build_review_graph() is not None


@pytest.mark.asyncio
async def test_empty_checklist(saver: BaseCheckpointSaver[Any]) -> None:
    graph = build_review_graph(checkpointer=saver, interrupt_before=[])
    result = await graph.ainvoke(_state([]), _config())
    assert result["is_complete"] is True
    assert "审查完成" in result["summary_notes"]


@pytest.mark.asyncio
async def test_single_clause_no_interrupt(saver: BaseCheckpointSaver[Any]) -> None:
    graph = build_review_graph(checkpointer=saver, interrupt_before=[])
    result = await graph.ainvoke(
        _state([_item("14.2", "预付款", ["get_clause_context"])]), _config()
    )
    assert result["is_complete"] is True
    assert result["current_clause_index"] == 1
    assert "14.2" in result["findings"]
    assert result["findings"]["14.2"].notes == ["clause 14.2 is not in the contract"]


@pytest.mark.asyncio
async def test_interrupt_and_resume(saver: BaseCheckpointSaver[Any]) -> None:
    graph = build_review_graph(checkpointer=saver, interrupt_before=["human_approval"])
    config = _config()
    await graph.ainvoke(_state([_item("17.6", "责任限制")]), config)
    snapshot = await graph.aget_state(config)
    assert snapshot.next == ("human_approval",)
    await graph.aupdate_state(config, {"user_decisions": {}, "user_feedback": {}})
    result = await graph.ainvoke(None, config)
    assert result["is_complete"] is True


@pytest.mark.asyncio
async def test_multiple_clauses(saver: BaseCheckpointSaver[Any]) -> None:
    graph = build_review_graph(checkpointer=saver, interrupt_before=[])
    items = [_item("4.1", "一般义务"), _item("14.2", "预付款"), _item("20.1", "索赔")]
    result = await graph.ainvoke(_state(items), _config())
    assert result["is_complete"] is True
    assert result["current_clause_index"] == 3
    assert len(result["findings"]) == 3


def test_route_validation() -> None:
    def state(result: str, retries: int) -> ClauseState:
        item = ReviewChecklistItem(clause_id="1")
        return {
            "item": item,
            "key": "1",
            "max_retries": 2,
            "validation_result": result,
            "retry_count": retries,
        }

    assert route_validation(state("pass", 0)) == "clause_done"
    assert route_validation(state("fail", 1)) == "clause_generate_diffs"
    assert route_validation(state("fail", 2)) == "clause_done"


def chinese_review_state(**extra: Any) -> dict[str, Any]:
    """A review of the Chinese construction sample with its FIDIC checklist (our side: 承包人)."""
    load_builtin_plugins()
    doc = load_task_document(EXAMPLES / "cn" / "construction_contract_zh.txt", DocumentRole.PRIMARY)
    assert doc.structure is not None
    plugin = get_plugin("fidic")
    assert plugin is not None
    assert plugin.build_checklist is not None
    checklist = [i.model_dump() for i in plugin.build_checklist(doc.structure, None)]
    return _state(
        checklist,
        our_party="承包人",
        language="zh-CN",
        domain_id="fidic",
        documents=[doc],
        **extra,
    )


@pytest.mark.asyncio
async def test_deterministic_review_finds_risks_and_drafts_redlines(
    saver: BaseCheckpointSaver[Any],
) -> None:
    graph = build_review_graph(checkpointer=saver, interrupt_before=[])
    state = chinese_review_state(approval_policy="all")
    result = await graph.ainvoke(state, _config())
    assert result["is_complete"] is True
    assert result["current_clause_index"] == len(state["review_checklist"])
    quoted = {(r.risk_type, r.location.original_text) for r in result["all_risks"] if r.location}
    assert any(t == "time bar" and "28天内" in q for t, q in quoted)
    assert any(t == "uncapped damages" and "0.5%" in q for t, q in quoted)
    text = state["documents"][0].content.text
    for risk in result["all_risks"]:
        if risk.location is not None:
            loc = risk.location
            assert text[loc.start_offset : loc.end_offset] == loc.original_text
    assert result["all_diffs"], "approved redlines expected"
    for diff in result["all_diffs"]:
        assert diff.status is DiffStatus.APPROVED
        assert diff.original_text in text
    high_first = [
        r.risk_level
        for r in result["findings"][
            "16.1" if "16.1" in result["findings"] else next(iter(result["findings"]))
        ].risks
    ]
    assert high_first == sorted(
        high_first, key=[RiskLevel.HIGH, RiskLevel.MEDIUM, RiskLevel.LOW].index
    )


@pytest.mark.asyncio
async def test_interactive_approval_with_reject_feedback_redraft(
    saver: BaseCheckpointSaver[Any],
) -> None:
    graph = build_review_graph(checkpointer=saver, interrupt_before=[])
    config = _config()
    first = await graph.ainvoke(chinese_review_state(approval_policy="interactive"), config)
    (pending,) = first["__interrupt__"]
    diffs = pending.value["diffs"]
    assert diffs
    target = next((d for d in diffs if d["clause_id"] == "6.1"), diffs[0])
    answer = [
        {"diff_id": d["diff_id"], "decision": "approve"} for d in diffs if d is not target
    ] + [{"diff_id": target["diff_id"], "decision": "reject", "feedback": "改为2%"}]
    second = await graph.ainvoke(Command(resume=answer), config)
    # the redraft is offered for approval once more
    (again,) = second["__interrupt__"]
    redrafts = again.value["diffs"]
    assert redrafts
    assert all(r["diff_id"] != target["diff_id"] for r in redrafts)
    final = await graph.ainvoke(
        Command(
            resume={
                r["diff_id"]: {"decision": "approve", "user_modified_text": "2"} for r in redrafts
            }
        ),
        config,
    )
    assert final["is_complete"] is True
    statuses = {d.diff_id: d.status for f in final["findings"].values() for d in f.diffs}
    assert statuses[target["diff_id"]] is DiffStatus.REJECTED
    approved_redrafts = [
        d for d in final["all_diffs"] if d.diff_id in {r["diff_id"] for r in redrafts}
    ]
    assert approved_redrafts
    assert all(d.proposed_text == "2" for d in approved_redrafts)
