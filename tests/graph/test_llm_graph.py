"""The review graph in LLM mode, on every checkpointer: agent findings merged with the rules,
and a rejected redline redrafted by the model from the reviewer's feedback."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command

from contract_review.config import Settings
from contract_review.graph.builder import build_review_graph
from contract_review.models import DiffStatus
from contract_review.testing import CallInfo, FunctionModel, ModelTurn, clause_text_of
from contract_review.testing import stand_in_reviewer as reviewer
from tests.graph.test_review_graph import chinese_review_state


def _state(**extra: Any) -> dict[str, Any]:
    return chinese_review_state(**extra)


def _config() -> RunnableConfig:
    return {"configurable": {"thread_id": f"t-{uuid.uuid4().hex}"}, "max_concurrency": 8}


def _model(messages: list[dict[str, Any]], info: CallInfo) -> ModelTurn:
    """The stand-in reviewer; as redrafter, it puts the number of the feedback "改为N天" in
    place of the quote's first number of days."""
    if '"comment"' not in messages[0]["content"]:
        return reviewer(messages, info)
    user = messages[-1]["content"]
    quote = re.search(r"相关原文：(.*)", user)
    wanted = re.search(r"改为(\d+)", user)
    assert quote is not None
    assert wanted is not None
    original = quote.group(1).strip()
    edit = {
        "original_text": original,
        "suggested_text": re.sub(r"\d+(?=天)", wanted.group(1), original, count=1),
        "comment": "按审查意见修改。",
    }
    assert edit["original_text"] in clause_text_of(messages)
    return ModelTurn(text=json.dumps(edit, ensure_ascii=False))


@pytest.mark.asyncio
async def test_llm_review_merges_agent_and_rule_findings(saver: BaseCheckpointSaver[Any]) -> None:
    model = FunctionModel(_model)
    graph = build_review_graph(
        checkpointer=saver, interrupt_before=[], settings=Settings(orchestrator=False), llm=model
    )
    state = _state(approval_policy="all")
    result = await graph.ainvoke(state, _config())
    assert result["is_complete"] is True
    findings = result["findings"]
    assert {f.analysis_mode for f in findings.values()} == {"llm"}
    assert all(
        f.agent is not None and f.agent.stop_reason == "final_answer" for f in findings.values()
    )
    sources = {s for r in result["all_risks"] for s in r.source_skills}
    assert "react_agent" in sources
    assert "fidic_calculate_time_bar" in sources  # the rules still run
    text = state["documents"][0].content.text
    for risk in result["all_risks"]:
        assert risk.location is not None
        loc = risk.location
        assert text[loc.start_offset : loc.end_offset] == loc.original_text
    assert model.usage.calls == 2 * len(findings)


@pytest.mark.asyncio
async def test_rejected_redline_is_redrafted_by_the_model(saver: BaseCheckpointSaver[Any]) -> None:
    model = FunctionModel(_model)
    graph = build_review_graph(
        checkpointer=saver, interrupt_before=[], settings=Settings(orchestrator=False), llm=model
    )
    config = _config()
    first = await graph.ainvoke(_state(approval_policy="interactive"), config)
    (pending,) = first["__interrupt__"]
    diffs = pending.value["diffs"]
    target = next(d for d in diffs if d["original_text"] == "28")
    answer = [{"diff_id": d["diff_id"], "decision": "approve"} for d in diffs if d is not target]
    answer.append({"diff_id": target["diff_id"], "decision": "reject", "feedback": "改为35天"})
    calls_before = model.usage.calls
    second = await graph.ainvoke(Command(resume=answer), config)
    assert model.usage.calls == calls_before + 1  # one redraft request
    (again,) = second["__interrupt__"]
    (redraft,) = again.value["diffs"]
    assert (redraft["original_text"], redraft["proposed_text"]) == ("28", "35")  # minimal edit
    final = await graph.ainvoke(Command(resume={redraft["diff_id"]: "approve"}), config)
    statuses = {d.diff_id: d.status for f in final["findings"].values() for d in f.diffs}
    assert statuses[target["diff_id"]] is DiffStatus.REJECTED
    assert statuses[redraft["diff_id"]] is DiffStatus.APPROVED
