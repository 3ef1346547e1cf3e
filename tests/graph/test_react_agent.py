"""The ReAct agent (SPEC-20 §7) on a small parsed contract, with in-process model doubles."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from contract_review.errors import LLMError
from contract_review.graph.events import EventType, ReviewEvent
from contract_review.graph.prompts import final_answer_instruction
from contract_review.graph.react_agent import (
    MAX_TOOL_RESULT_CHARS,
    _parse_final_response,
    _parse_risk_list,
    _serialize_tool_result,
    _truncate,
    react_agent_loop,
    run_react_agent,
)
from contract_review.models import DocumentStructure
from contract_review.plugins import create_dispatcher
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.schema import SkillResult
from contract_review.structure_parser import StructureParser
from contract_review.testing import (
    CallInfo,
    FunctionModel,
    ModelTurn,
    RecordingDispatcher,
    ScriptedModel,
)
from tests.graph.contracts import SERVICES_HEAD

CONTRACT = (
    SERVICES_HEAD
    + """
4. Termination
Either party may terminate this Agreement on 30 days' written notice.
"""
)

STRUCTURE: DocumentStructure = StructureParser().parse(CONTRACT, document_id="doc-react")
STATE: dict[str, Any] = {
    "task_id": "task-react",
    "our_party": "Supplier",
    "language": "en",
    "domain_id": "generic",
    "documents": [],
}
CLAUSE = "2"


def _messages() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "You review contract clauses."},
        {"role": "user", "content": "Review clause 2."},
    ]


def _call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "id": call_id, "arguments": arguments}


def _tool_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m.get("role") == "tool"]


@pytest.fixture(scope="module")
def dispatcher() -> SkillDispatcher:
    """The real dispatcher with every built-in skill (shared: tool schemas are costly)."""
    return create_dispatcher()


class _FakeDispatcher(RecordingDispatcher):
    """Answers every call with `respond`; subclasses say how."""

    async def respond(self, skill_id: str, clause_id: str) -> SkillResult:
        raise NotImplementedError


class _RaisingDispatcher(_FakeDispatcher):
    async def respond(self, skill_id: str, clause_id: str) -> SkillResult:
        raise RuntimeError("工具崩溃 (tool crashed)")


class _BigDispatcher(_FakeDispatcher):
    async def respond(self, skill_id: str, clause_id: str) -> SkillResult:
        return SkillResult(skill_id=skill_id, success=True, data={"blob": "x" * 10_000})


# --------------------------------------------------------------------------------------------
# The loop
# --------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_single_iteration_no_tools(dispatcher: SkillDispatcher) -> None:
    answer = '[{"risk_level": "low", "description": "no major risk"}]'
    model = ScriptedModel([answer])
    risks, skill_context, final = await react_agent_loop(
        model, dispatcher, _messages(), CLAUSE, STRUCTURE, STATE
    )
    assert risks == [{"risk_level": "low", "description": "no major risk"}]
    assert skill_context == {}
    assert [m["role"] for m in final] == ["system", "user", "assistant"]
    assert final[-1]["content"] == answer

    outcome = await run_react_agent(
        ScriptedModel([answer]), dispatcher, _messages(), CLAUSE, STRUCTURE, STATE
    )
    assert outcome.parsed is True
    assert outcome.info.stop_reason == "final_answer"
    assert outcome.info.llm_calls == 1
    assert outcome.info.steps_taken == 1
    assert outcome.info.tools_used == []
    assert outcome.info.risks_proposed == 1


@pytest.mark.asyncio
async def test_tool_call_then_final_response(dispatcher: SkillDispatcher) -> None:
    model = ScriptedModel(
        [
            ModelTurn(tool_calls=[_call("get_clause_context", "call_ctx", clause_id=CLAUSE)]),
            '[{"risk_level": "high", "description": "retention is high"}]',
        ]
    )
    outcome = await run_react_agent(model, dispatcher, _messages(), CLAUSE, STRUCTURE, STATE)
    assert [r["risk_level"] for r in outcome.risks] == ["high"]
    final = outcome.messages
    assert [m["role"] for m in final] == ["system", "user", "assistant", "tool", "assistant"]
    assert final[2]["tool_calls"][0]["id"] == "call_ctx"
    assert final[3]["tool_call_id"] == "call_ctx"
    context = outcome.skill_context["get_clause_context"]
    assert context["clause_id"] == CLAUSE
    assert context["title"] == "Payment"
    assert "retention of 10%" in context["text"]
    assert context["next"] == {"clause_id": "3", "title": "Delay"}
    # the model read the real skill output in the tool message
    assert json.loads(final[3]["content"]) == context
    second_messages, second_info = model.calls[1]
    assert second_messages[-1]["tool_call_id"] == "call_ctx"
    assert second_info.tools  # still offered tools
    assert outcome.info.stop_reason == "final_answer"
    assert outcome.info.tools_used == ["get_clause_context"]
    assert outcome.info.llm_calls == 2


@pytest.mark.asyncio
async def test_multiple_tool_calls_in_one_round(dispatcher: SkillDispatcher) -> None:
    model = ScriptedModel(
        [
            ModelTurn(
                tool_calls=[
                    _call("get_clause_context", "call_1", clause_id=CLAUSE),
                    _call("extract_financial_terms", "call_2", clause_id=CLAUSE),
                ]
            ),
            "[]",
        ]
    )
    risks, skill_context, final = await react_agent_loop(
        model, dispatcher, _messages(), CLAUSE, STRUCTURE, STATE
    )
    assert risks == []
    assert set(skill_context) == {"get_clause_context", "extract_financial_terms"}
    assert skill_context["get_clause_context"]["clause_id"] == CLAUSE
    assert any(
        f["code"] == "retention_above_5_percent"
        for f in skill_context["extract_financial_terms"]["flags"]
    )
    assert len(final) == 6
    assert [m["tool_call_id"] for m in _tool_messages(final)] == ["call_1", "call_2"]


@pytest.mark.asyncio
async def test_tool_messages_follow_call_order_not_completion_order() -> None:
    class _SlowFirst(_FakeDispatcher):
        async def respond(self, skill_id: str, clause_id: str) -> SkillResult:
            await asyncio.sleep(0.2 if skill_id == "get_clause_context" else 0.0)
            return SkillResult(skill_id=skill_id, success=True, data={"skill": skill_id})

    model = ScriptedModel(
        [
            ModelTurn(
                tool_calls=[
                    _call("get_clause_context", "call_slow"),
                    _call("extract_financial_terms", "call_fast"),
                ]
            ),
            "[]",
        ]
    )
    outcome = await run_react_agent(model, _SlowFirst(), _messages(), CLAUSE, STRUCTURE, STATE)
    tools = _tool_messages(outcome.messages)
    assert [m["tool_call_id"] for m in tools] == ["call_slow", "call_fast"]
    assert [json.loads(m["content"])["skill"] for m in tools] == [
        "get_clause_context",
        "extract_financial_terms",
    ]


@pytest.mark.asyncio
async def test_max_iterations_reached(dispatcher: SkillDispatcher) -> None:
    # A different tool (and arguments) each round, so loop detection does not fire first.
    cycle = [
        ("get_clause_context", {"clause_id": "1"}),
        ("extract_financial_terms", {"clause_id": "3"}),
        ("cross_reference_check", {"clause_id": "4"}),
    ]

    def always_a_tool(messages: list[dict[str, Any]], info: CallInfo) -> ModelTurn:
        name, arguments = cycle[info.index % len(cycle)]
        return ModelTurn(tool_calls=[_call(name, f"call_{info.index}", **arguments)])

    model = FunctionModel(always_a_tool)
    outcome = await run_react_agent(
        model, dispatcher, _messages(), CLAUSE, STRUCTURE, STATE, max_iterations=3
    )
    assert len(model.calls) == 3
    assert model.calls[0][1].tools
    assert model.calls[1][1].tools
    last_messages, last_info = model.calls[2]
    assert last_info.tools == []
    assert last_messages[-1] == {
        "role": "user",
        "content": final_answer_instruction("en", reason="round_limit"),
    }
    assert outcome.risks == []
    assert outcome.info.stop_reason == "max_iterations"
    assert outcome.info.llm_calls == 3
    assert outcome.info.steps_taken == 3
    assert outcome.info.tools_used == ["get_clause_context", "extract_financial_terms"]
    assert set(outcome.skill_context) == {"get_clause_context", "extract_financial_terms"}
    # the tool calls of the forced last answer are not run
    assert len(_tool_messages(outcome.messages)) == 2
    assert "tool_calls" not in outcome.messages[-1]

    risks, skill_context, _ = await react_agent_loop(
        FunctionModel(always_a_tool),
        dispatcher,
        _messages(),
        CLAUSE,
        STRUCTURE,
        STATE,
        max_iterations=3,
    )
    assert risks == []
    assert "get_clause_context" in skill_context


@pytest.mark.asyncio
async def test_forced_final_answer_is_used(dispatcher: SkillDispatcher) -> None:
    model = ScriptedModel(
        [
            ModelTurn(tool_calls=[_call("get_clause_context", "call_1", clause_id=CLAUSE)]),
            '[{"risk_level": "medium", "description": "retention", "original_text": "10%"}]',
        ]
    )
    outcome = await run_react_agent(
        model, dispatcher, _messages(), CLAUSE, STRUCTURE, STATE, max_iterations=2
    )
    assert model.calls[1][1].tools == []
    assert model.calls[1][0][-1]["role"] == "user"
    assert outcome.risks == [
        {"risk_level": "medium", "description": "retention", "original_text": "10%"}
    ]
    assert outcome.parsed is True
    assert outcome.info.stop_reason == "max_iterations"
    assert outcome.info.llm_calls == 2


@pytest.mark.asyncio
async def test_llm_failure_breaks_loop(dispatcher: SkillDispatcher) -> None:
    model = ScriptedModel([LLMError("API timeout")])
    outcome = await run_react_agent(model, dispatcher, _messages(), CLAUSE, STRUCTURE, STATE)
    assert outcome.risks == []
    assert outcome.skill_context == {}
    assert outcome.parsed is False
    assert outcome.endpoint_down is False
    assert outcome.info.stop_reason == "llm_error"
    assert "API timeout" in outcome.info.error
    assert outcome.info.llm_calls == 1

    risks, skill_context, _ = await react_agent_loop(
        ScriptedModel([LLMError("API timeout")]), dispatcher, _messages(), CLAUSE, STRUCTURE, STATE
    )
    assert (risks, skill_context) == ([], {})


@pytest.mark.asyncio
async def test_llm_failure_after_a_tool_round(dispatcher: SkillDispatcher) -> None:
    model = ScriptedModel(
        [
            ModelTurn(tool_calls=[_call("get_clause_context", "call_1", clause_id=CLAUSE)]),
            LLMError("connection refused", endpoint_down=True),
        ]
    )
    outcome = await run_react_agent(model, dispatcher, _messages(), CLAUSE, STRUCTURE, STATE)
    assert outcome.risks == []
    assert outcome.info.stop_reason == "llm_error"
    assert outcome.endpoint_down is True
    assert "connection refused" in outcome.info.error


@pytest.mark.asyncio
async def test_unknown_tool_error_reaches_the_model(dispatcher: SkillDispatcher) -> None:
    model = ScriptedModel(
        [
            ModelTurn(tool_calls=[_call("broken_tool", "call_1")]),
            '[{"risk_level": "medium", "description": "test"}]',
        ]
    )
    risks, skill_context, final = await react_agent_loop(
        model, dispatcher, _messages(), CLAUSE, STRUCTURE, STATE
    )
    assert len(risks) == 1
    assert skill_context == {}
    (tool,) = _tool_messages(final)
    assert tool["tool_call_id"] == "call_1"
    error = json.loads(tool["content"])["error"]
    assert "broken_tool" in error
    assert "get_clause_context" in error  # the model is told what it can call
    assert model.calls[1][0][-1] == tool


@pytest.mark.asyncio
async def test_tool_exception_reaches_the_model_and_loop_continues() -> None:
    fake = _RaisingDispatcher()
    model = ScriptedModel(
        [
            ModelTurn(tool_calls=[_call("get_clause_context", "call_1", clause_id=CLAUSE)]),
            '[{"risk_level": "medium", "description": "test"}]',
        ]
    )
    outcome = await run_react_agent(model, fake, _messages(), CLAUSE, STRUCTURE, STATE)
    assert len(outcome.risks) == 1
    assert outcome.skill_context == {}
    (tool,) = _tool_messages(outcome.messages)
    assert "工具崩溃" in tool["content"]
    assert "RuntimeError" in tool["content"]
    assert model.calls[1][0][-1] == tool
    assert outcome.info.stop_reason == "final_answer"
    assert fake.seen == [("get_clause_context", CLAUSE, {"clause_id": CLAUSE})]


@pytest.mark.asyncio
async def test_no_tools_available() -> None:
    model = ScriptedModel(["[]"])
    outcome = await run_react_agent(model, SkillDispatcher(), _messages(), CLAUSE, STRUCTURE, STATE)
    assert model.calls == []
    assert outcome.risks == []
    assert outcome.skill_context == {}
    assert outcome.parsed is False
    assert outcome.info.stop_reason == "no_tools"
    assert outcome.info.llm_calls == 0

    risks, skill_context, final = await react_agent_loop(
        model, SkillDispatcher(), _messages(), CLAUSE, STRUCTURE, STATE
    )
    assert (risks, skill_context) == ([], {})
    assert final == _messages()
    assert model.calls == []


@pytest.mark.asyncio
async def test_loop_detection_forces_the_answer(dispatcher: SkillDispatcher) -> None:
    def repeat(messages: list[dict[str, Any]], info: CallInfo) -> ModelTurn | str:
        if not info.tools:
            return '[{"risk_level": "low", "description": "done"}]'
        return ModelTurn(
            tool_calls=[_call("get_clause_context", f"call_{info.index}", clause_id=CLAUSE)]
        )

    model = FunctionModel(repeat)
    outcome = await run_react_agent(model, dispatcher, _messages(), CLAUSE, STRUCTURE, STATE)
    assert len(model.calls) == 3
    assert model.calls[1][1].tools
    last_messages, last_info = model.calls[2]
    assert last_info.tools == []
    assert last_messages[-1] == {
        "role": "user",
        "content": final_answer_instruction("en", reason="loop_detected"),
    }
    assert outcome.info.stop_reason == "loop_detected"
    assert outcome.info.steps_taken == 3
    assert outcome.parsed is True
    assert outcome.risks == [{"risk_level": "low", "description": "done"}]


@pytest.mark.asyncio
async def test_unparseable_final_answer(dispatcher: SkillDispatcher) -> None:
    reply = "I think this clause is fine for the Supplier."
    outcome = await run_react_agent(
        ScriptedModel([reply]), dispatcher, _messages(), CLAUSE, STRUCTURE, STATE
    )
    assert outcome.parsed is False
    assert outcome.risks == []
    assert outcome.info.stop_reason == "unparseable"
    assert "not a JSON list" in outcome.info.error

    risks, _, final = await react_agent_loop(
        ScriptedModel([reply]), dispatcher, _messages(), CLAUSE, STRUCTURE, STATE
    )
    assert risks == []
    assert final[-1]["content"] == reply


@pytest.mark.asyncio
async def test_long_tool_results_are_cut() -> None:
    model = ScriptedModel([ModelTurn(tool_calls=[_call("get_clause_context", "call_1")]), "[]"])
    outcome = await run_react_agent(model, _BigDispatcher(), _messages(), CLAUSE, STRUCTURE, STATE)
    (tool,) = _tool_messages(outcome.messages)
    full = json.dumps({"blob": "x" * 10_000})
    assert tool["content"].startswith(full[:MAX_TOOL_RESULT_CHARS])
    assert len(tool["content"]) < MAX_TOOL_RESULT_CHARS + 100
    assert str(len(full)) in tool["content"]
    assert model.calls[1][0][-1]["content"] == tool["content"]
    # the skill context keeps the whole result; only the model's view is cut
    assert outcome.skill_context["get_clause_context"]["blob"] == "x" * 10_000


@pytest.mark.asyncio
async def test_too_many_tool_calls_in_one_round(dispatcher: SkillDispatcher) -> None:
    model = ScriptedModel(
        [
            ModelTurn(
                tool_calls=[
                    _call("get_clause_context", "call_1", clause_id=CLAUSE),
                    _call("extract_financial_terms", "call_2", clause_id=CLAUSE),
                    _call("cross_reference_check", "call_3", clause_id=CLAUSE),
                ]
            ),
            "[]",
        ]
    )
    outcome = await run_react_agent(
        model,
        dispatcher,
        _messages(),
        CLAUSE,
        STRUCTURE,
        STATE,
        max_tool_calls_per_step=2,
    )
    tools = _tool_messages(outcome.messages)
    assert [m["tool_call_id"] for m in tools] == ["call_1", "call_2", "call_3"]
    assert "error" not in json.loads(tools[0]["content"])
    assert "error" not in json.loads(tools[1]["content"])
    error = json.loads(tools[2]["content"])["error"]
    assert "at most 2" in error
    assert set(outcome.skill_context) == {"get_clause_context", "extract_financial_terms"}


@pytest.mark.asyncio
async def test_internal_fields_ignored_and_clause_id_retargets(
    dispatcher: SkillDispatcher,
) -> None:
    model = ScriptedModel(
        [
            ModelTurn(
                tool_calls=[
                    _call(
                        "get_clause_context",
                        "call_1",
                        clause_id="3",
                        document_structure={"document_id": "forged", "clauses": []},
                        state_snapshot={"our_party": "Customer"},
                    )
                ]
            ),
            "[]",
        ]
    )
    outcome = await run_react_agent(model, dispatcher, _messages(), CLAUSE, STRUCTURE, STATE)
    (tool,) = _tool_messages(outcome.messages)
    assert "error" not in json.loads(tool["content"])
    context = outcome.skill_context["get_clause_context"]
    assert context["clause_id"] == "3"
    assert context["title"] == "Delay"
    assert "liquidated damages" in context["text"]


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def test_truncate() -> None:
    assert _truncate("hello", 100) == "hello"
    assert _truncate("x" * 100, 100) == "x" * 100
    cut = _truncate("x" * 5000, 100)
    assert cut.startswith("x" * 100)
    assert not cut.startswith("x" * 101)
    assert len(cut) < 200
    assert "5000" in cut
    assert _truncate("y" * (MAX_TOOL_RESULT_CHARS + 1)).startswith("y" * MAX_TOOL_RESULT_CHARS)
    # SPEC-20's notice when no language is given; the review's language otherwise
    assert cut.endswith("\n... (截断，原文 5000 字符)")
    assert _truncate("x" * 5000, 100, "zh-CN").endswith("(截断，原文 5000 字符)")
    assert _truncate("x" * 5000, 100, "en").endswith("\n... (truncated; 5000 characters in full)")
    assert _serialize_tool_result("z" * 5000, "en").endswith("characters in full)")


def test_serialize_tool_result() -> None:
    assert _serialize_tool_result(None) == "{}"
    assert json.loads(_serialize_tool_result({"key": "value", "n": 1})) == {"key": "value", "n": 1}
    assert _serialize_tool_result({"term": "预付款"}) == '{"term": "预付款"}'
    assert _serialize_tool_result("hello") == "hello"
    long = _serialize_tool_result({"blob": "z" * 5000})
    assert len(long) < MAX_TOOL_RESULT_CHARS + 100


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[{"risk_level": "high", "description": "test"}]', [{"risk_level": "high"}]),
        ("[]", []),
        ("", []),
        ("not json", []),
        ('[{"a": 1}, "string", 42, null, [1]]', [{"a": 1}]),
        ('```json\n[{"risk_level": "low"}]\n```', [{"risk_level": "low"}]),
        ('{"risks": [{"risk_level": "medium"}]}', [{"risk_level": "medium"}]),
        ('Here is my analysis:\n[{"risk_level": "high"}]', [{"risk_level": "high"}]),
        ('{"risks": "none"}', []),
    ],
)
def test_parse_final_response(text: str, expected: list[dict[str, Any]]) -> None:
    parsed = _parse_final_response(text)
    assert len(parsed) == len(expected)
    for got, want in zip(parsed, expected, strict=True):
        assert want.items() <= got.items()


def test_parse_final_response_skips_bracketed_numbers_in_prose() -> None:
    text = 'Clause 2 [1] sets a retention. Risks: [{"risk_level": "high"}]'
    assert _parse_final_response(text) == [{"risk_level": "high"}]
    # a citation alone is not an answer; a bare [] is ("no risks")
    assert _parse_risk_list("See clause [1] and [2].") is None
    assert _parse_risk_list("No risks: []") == []


# --------------------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------------------


class _Outer(TypedDict, total=False):
    risks: list[dict[str, Any]]
    stop_reason: str


@pytest.mark.asyncio
async def test_events_are_streamed_from_a_graph_run(dispatcher: SkillDispatcher) -> None:
    model = ScriptedModel(
        [
            ModelTurn(
                text="Reading the clause first.",
                tool_calls=[_call("get_clause_context", "call_ctx", clause_id=CLAUSE)],
            ),
            '[{"risk_level": "low", "description": "ok"}]',
        ]
    )

    async def review(state: _Outer) -> dict[str, Any]:
        outcome = await run_react_agent(model, dispatcher, _messages(), CLAUSE, STRUCTURE, STATE)
        return {"risks": outcome.risks, "stop_reason": outcome.info.stop_reason}

    g = StateGraph(_Outer)
    g.add_node("review", review)
    g.add_edge(START, "review")
    g.add_edge("review", END)
    graph = g.compile()

    events: list[ReviewEvent] = []
    async for _namespace, chunk in graph.astream({}, stream_mode="custom", subgraphs=True):
        assert isinstance(chunk, ReviewEvent)
        events.append(chunk)

    assert events
    assert all(e.clause_id == CLAUSE for e in events)
    types = [e.type for e in events]
    starts = [e for e in events if e.type is EventType.TOOL_START]
    ends = [e for e in events if e.type is EventType.TOOL_END]
    assert [(e.tool, e.call_id) for e in starts] == [("get_clause_context", "call_ctx")]
    assert starts[0].arguments == {"clause_id": CLAUSE}
    assert [(e.tool, e.call_id, e.ok) for e in ends] == [("get_clause_context", "call_ctx", True)]
    assert types.index(EventType.TOOL_START) < types.index(EventType.TOOL_END)
    tokens = "".join(e.text or "" for e in events if e.type is EventType.LLM_TOKEN)
    assert "Reading the clause first." in tokens
    assert '"description": "ok"' in tokens
    nodes = [e.node for e in events if e.type is EventType.NODE_START]
    assert nodes == ["agent", "tools", "agent"]
