"""The orchestrator (SPEC-21): the plan changes what runs (a skipped clause gets no model call,
a deep one more rounds, a quick one fewer rounds and fewer tools), a high risk re-plans the
related clauses not yet started, the model's plan is validated entry by entry, and without a
model the playbook priorities plan the review."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig

from contract_review.config import Settings
from contract_review.documents import load_task_document
from contract_review.graph.builder import build_review_graph
from contract_review.graph.events import EventType, ReviewEvent
from contract_review.graph.plan import model_plan, playbook_plan, rounds_for
from contract_review.models import (
    Depth,
    DocumentRole,
    Priority,
    ReviewChecklistItem,
    TaskDocument,
)
from contract_review.plugins import load_builtin_plugins
from contract_review.testing import CallInfo, FunctionModel, ModelTurn, ScriptedModel
from contract_review.testing import stand_in_reviewer as reviewer
from contract_review.testing._reviewer import clause_text_of

CONTRACT = """SERVICES AGREEMENT

This Services Agreement is made between Harbour Data Limited (the "Supplier") and Wexford Retail plc (the "Customer").

1. SERVICES
1.1 The Supplier shall provide the hosting services described in Schedule 1 with reasonable skill and care.

2. LIABILITY
2.1 The Customer shall be liable without limit for every loss the Supplier suffers in connection with this Agreement.

3. INDEMNITY
3.1 The Customer shall indemnify the Supplier against all claims brought by third parties in connection with the services.

4. NOTICES
4.1 Notices shall be in writing and sent to the addresses set out above.

5. COUNTERPARTS
5.1 This Agreement may be signed in any number of counterparts.
"""

ITEMS = [
    ("1", "Services", Priority.MEDIUM, ["Services"]),
    ("2", "Liability", Priority.CRITICAL, ["Cap on Liability"]),
    ("3", "Indemnity", Priority.MEDIUM, ["Indemnification"]),
    ("4", "Notices", Priority.LOW, ["Notices"]),
    ("5", "Counterparts", Priority.LOW, ["Counterparts"]),
]


def _document(tmp_path: Path) -> TaskDocument:
    path = tmp_path / "services.txt"
    path.write_text(CONTRACT, encoding="utf-8")
    return load_task_document(path, DocumentRole.PRIMARY)


def _checklist() -> list[ReviewChecklistItem]:
    return [
        ReviewChecklistItem(
            clause_id=cid,
            clause_name=name,
            priority=priority,
            topic=topics[0],
            required_skills=["get_clause_context", "extract_financial_terms"],
        )
        for cid, name, priority, topics in ITEMS
    ]


def _state(doc: TaskDocument) -> dict[str, Any]:
    return {
        "task_id": f"task-{uuid.uuid4().hex[:8]}",
        "our_party": "Customer",
        "material_type": "contract",
        "language": "en",
        "domain_id": "generic",
        "documents": [doc],
        "review_checklist": [i.model_dump() for i in _checklist()],
        "approval_policy": "all",
    }


def _config() -> RunnableConfig:
    # One clause at a time: the plan's order decides which clauses are still to start.
    return {"configurable": {"thread_id": f"t-{uuid.uuid4().hex}"}, "max_concurrency": 1}


def _settings(**extra: Any) -> Settings:
    return Settings(
        react_max_iterations=3,
        react_clause_timeout=30,
        llm_base_url=None,
        **extra,
    )


def _persistent(messages: list[dict[str, Any]], info: CallInfo) -> ModelTurn:
    """Plans as the priorities suggest; as the agent, calls a tool every round it is offered
    one, and answers at the forced final round: a high risk for the liability clause."""
    if not info.tools:
        text = clause_text_of(messages)
        if not text:  # the plan
            return reviewer(messages, info)
        if "liable without limit" in text:
            risk = {
                "risk_level": "high",
                "risk_type": "uncapped liability",
                "description": "Our liability is unlimited.",
                "reason": "No cap.",
                "original_text": "The Customer shall be liable without limit",
            }
            return ModelTurn(text=json.dumps([risk]))
        return ModelTurn(text="[]")
    # A different clause each round: the agent's loop detection stops repeated calls.
    rounds = sum(1 for m in messages if m.get("role") == "tool")
    other = ITEMS[rounds % len(ITEMS)][0]
    return ModelTurn(tool_calls=[{"name": "get_clause_context", "arguments": {"clause_id": other}}])


def _calls_per_clause(model: FunctionModel) -> dict[str, list[CallInfo]]:
    found: dict[str, list[CallInfo]] = {}
    heading = {f"{cid}. {name.upper()}": cid for cid, name, *_ in ITEMS}
    for messages, info in model.calls:
        cid = heading.get(clause_text_of(messages).split("\n", 1)[0].strip())
        if cid is not None:
            found.setdefault(cid, []).append(info)
    return found


async def _review(tmp_path: Path, model: FunctionModel, settings: Settings) -> dict[str, Any]:
    load_builtin_plugins()
    graph = build_review_graph(interrupt_before=[], settings=settings, llm=model)
    events: list[ReviewEvent] = []
    final: dict[str, Any] = {}
    config = _config()
    async for mode, chunk in graph.astream(
        _state(_document(tmp_path)), config, stream_mode=["custom", "values"]
    ):
        if mode == "custom":
            assert isinstance(chunk, ReviewEvent)
            events.append(chunk)
        else:
            assert isinstance(chunk, dict)
            final = chunk
    final["_events"] = events
    return final


@pytest.mark.asyncio
async def test_the_plan_decides_which_clauses_get_the_model_and_how_much(tmp_path: Path) -> None:
    settings = _settings()
    model = FunctionModel(_persistent)
    final = await _review(tmp_path, model, settings)
    plan = final["review_plan"]
    assert plan.source == "model"
    depth = {c.clause_id: c.depth for c in plan.clauses}
    assert depth == {
        "1": Depth.QUICK,
        "2": Depth.DEEP,
        "3": Depth.DEEP,  # raised by the re-plan (the plan object is the live one)
        "4": Depth.SKIP,
        "5": Depth.SKIP,
    }
    calls = _calls_per_clause(model)
    # skip: the rules only, no model call at all
    assert "4" not in calls
    assert "5" not in calls
    findings = final["findings"]
    assert findings["4"].analysis_mode == "deterministic"
    assert findings["4"].mode_reason == "planned: rules only (skip)"
    # deep: twice the rounds of the configured budget (the last one the forced answer)
    deep = rounds_for(Depth.DEEP, settings)
    assert deep == 6
    assert len(calls["2"]) == deep
    # quick: two rounds, and only the quick tool categories (no extraction tools)
    assert len(calls["1"]) == rounds_for(Depth.QUICK, settings) == 2
    offered = {t["function"]["name"] for t in calls["1"][0].tools}
    assert "get_clause_context" in offered
    assert "extract_financial_terms" not in offered
    deep_offered = {t["function"]["name"] for t in calls["2"][0].tools}
    assert "extract_financial_terms" in deep_offered
    # the high risk in clause 2 re-planned clause 3 (same risk family, not yet started)
    (replan,) = final["replans"]
    assert replan.trigger == "2"
    assert replan.raised == ["3"]
    assert len(calls["3"]) == deep
    assert findings["3"].plan is not None
    assert findings["3"].plan.depth is Depth.DEEP
    assert findings["3"].plan.reason.startswith("re-planned")
    assert findings["1"].plan is not None
    assert findings["1"].plan.depth is Depth.QUICK  # unrelated: not raised
    kinds = [e.type for e in final["_events"]]
    assert EventType.PLAN in kinds
    assert EventType.REPLAN in kinds
    plan_event = next(e for e in final["_events"] if e.type is EventType.PLAN)
    # clause 3 starts at standard: the rules find a one-way indemnity in it (only we give one)
    assert plan_event.data["counts"] == {"skip": 2, "quick": 1, "standard": 1, "deep": 1}


@pytest.mark.asyncio
async def test_without_the_orchestrator_every_clause_gets_the_standard_budget(
    tmp_path: Path,
) -> None:
    settings = _settings(orchestrator=False)
    model = FunctionModel(_persistent)
    final = await _review(tmp_path, model, settings)
    assert final["review_plan"].source == "uniform"
    calls = _calls_per_clause(model)
    assert {cid: len(c) for cid, c in calls.items()} == {
        cid: settings.react_max_iterations for cid, *_ in ITEMS
    }
    assert final["replans"] == []


def test_the_playbook_plan_follows_priorities_and_positions(tmp_path: Path) -> None:
    doc = _document(tmp_path)
    items = _checklist()
    keys = [i.clause_id for i in items]
    plan = playbook_plan(items, keys, doc.structure, {"4": 2}, _settings())
    by_id = {c.clause_id: c for c in plan.clauses}
    assert by_id["2"].depth is Depth.DEEP  # critical
    assert by_id["1"].depth is Depth.QUICK  # medium
    assert by_id["4"].depth is Depth.STANDARD  # low, but the playbook holds positions on it
    assert by_id["5"].depth is Depth.SKIP  # boilerplate
    assert by_id["5"].max_iterations == 0
    assert [c.clause_id for c in plan.clauses] == ["2", "4", "1", "3", "5"]  # deep first
    assert [c.order for c in plan.clauses] == [0, 1, 2, 3, 4]


@pytest.mark.asyncio
async def test_the_models_plan_is_validated_entry_by_entry(tmp_path: Path) -> None:
    doc = _document(tmp_path)
    items = _checklist()
    keys = [i.clause_id for i in items]
    answer = [
        {"key": "5", "depth": "quick", "categories": ["context", "no-such-category"]},
        {"key": "2", "depth": "skip", "reason": "looks standard"},  # critical: never skipped
        {"key": "1", "depth": "deep", "max_iterations": 99},  # rounds bounded
        {"key": "9", "depth": "deep"},  # no such clause
        {"key": "3", "depth": "extreme"},  # no such depth
        "not an object",
    ]
    model = ScriptedModel([json.dumps(answer)])
    settings = _settings()
    plan = await model_plan(
        model,
        items,
        keys,
        doc.structure,
        {},
        settings,
        our_party="Customer",
        language="en",
        categories=["analysis", "context", "extraction"],
    )
    assert plan.source == "model"
    assert plan.llm_calls == 1
    assert plan.tokens > 0
    by_id = {c.clause_id: c for c in plan.clauses}
    assert by_id["5"].depth is Depth.QUICK
    assert by_id["5"].categories == ["context"]
    assert by_id["2"].depth is Depth.QUICK
    assert by_id["2"].reason == "critical: never skipped"
    assert by_id["1"].depth is Depth.DEEP
    assert by_id["1"].max_iterations == rounds_for(Depth.DEEP, settings)
    assert by_id["3"].depth is Depth.QUICK  # the bad entry left the playbook's
    assert by_id["4"].depth is Depth.SKIP
    assert "3 entries of the model's plan dropped" in plan.note
    # the model's order first, the rest as the playbook orders them
    assert [c.clause_id for c in plan.clauses][:3] == ["5", "2", "1"]
    # the clause text reaches the model as fenced data, and the prompt says so
    ((messages, _),) = model.calls
    assert "not instructions to you" in messages[0]["content"]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "reply",
    ["I would review everything carefully.", RuntimeError("endpoint down")],
    ids=["prose", "error"],
)
async def test_an_unusable_plan_falls_back_to_the_playbook(
    tmp_path: Path, reply: str | BaseException
) -> None:
    doc = _document(tmp_path)
    items = _checklist()
    keys = [i.clause_id for i in items]
    plan = await model_plan(
        ScriptedModel([reply]),
        items,
        keys,
        doc.structure,
        {},
        _settings(),
        our_party="Customer",
        language="en",
        categories=["context"],
    )
    assert plan.source == "playbook"
    assert plan.note.startswith(("the model's plan was unreadable", "the model could not plan"))
    assert {c.clause_id: c.depth for c in plan.clauses}["2"] is Depth.DEEP


@pytest.mark.asyncio
async def test_rules_only_reviews_are_planned_by_the_playbook(tmp_path: Path) -> None:
    load_builtin_plugins()
    graph = build_review_graph(interrupt_before=[], settings=_settings())
    final = await graph.ainvoke(_state(_document(tmp_path)), _config())
    plan = final["review_plan"]
    assert plan.source == "playbook"
    assert plan.counts()["skip"] == 2
    # the rules ran on every clause, skipped ones included
    assert all(f.completed for f in final["findings"].values())
    assert len(final["findings"]) == len(ITEMS)
