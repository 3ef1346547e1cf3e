"""SPEC-20 §7.1.1 (core loop), §7.1.2 (prompt construction) and §7.1.3 (builder
integration), case by case.

Seed: /work/shared/seeds/000_9236cc9a47977cf7.txt. §7.1.1 and §7.1.2 keep the seed's classes,
test names, fakes (`AsyncMock` model answering `(text, None)` when it calls no tool,
`MagicMock` dispatcher), calls and assertions; the assertions added after "# ours:" check
what the seed's only imply. The one change in §7.1.1: the seed passes `{}` as the primary
structure, ours is typed `DocumentStructure | None`, so "no structure" is `None`.
§7.1.3 is adapted: see its class docstring.
"""

from __future__ import annotations

import json
from typing import Any, NoReturn
from unittest.mock import AsyncMock, MagicMock

import pytest
from langchain_core.runnables import RunnableConfig

from contract_review.config import Settings
from contract_review.graph.builder import build_review_graph
from contract_review.graph.react_agent import (
    MAX_TOOL_RESULT_CHARS,
    _parse_final_response,
    _serialize_tool_result,
    _truncate,
    react_agent_loop,
)
from contract_review.models import DocumentStructure, RiskLevel
from contract_review.skills.schema import SkillResult
from contract_review.structure_parser import StructureParser
from contract_review.testing import CallInfo, FunctionModel, ModelTurn

# --- 辅助工具 ---


def _make_fake_llm(responses: list[Any]) -> Any:
    """创建一个按顺序返回预设响应的 fake LLM client。

    responses 中每个元素是 (text, tool_calls) 元组。
    """
    client = AsyncMock()
    client.chat_with_tools = AsyncMock(side_effect=responses)
    return client


def _make_fake_dispatcher(
    skill_ids: list[str], results: dict[str, dict[str, Any]] | None = None
) -> Any:
    """创建一个 fake dispatcher。

    results: {skill_id: data_dict} 映射，prepare_and_call 返回对应的 SkillResult。
    """
    dispatcher = MagicMock()
    dispatcher.skill_ids = skill_ids
    dispatcher.get_tool_definitions.return_value = [
        {
            "type": "function",
            "function": {
                "name": sid,
                "description": f"Tool {sid}",
                "parameters": {"type": "object", "properties": {}, "required": []},
            },
        }
        for sid in skill_ids
    ]

    results = results or {}

    async def fake_prepare_and_call(
        skill_id: str, clause_id: str, primary_structure: Any, state: Any, **kwargs: Any
    ) -> SkillResult:
        data = results.get(skill_id, {"status": "ok"})
        return SkillResult(skill_id=skill_id, success=True, data=data)

    dispatcher.prepare_and_call = AsyncMock(side_effect=fake_prepare_and_call)
    return dispatcher


# --- 核心循环测试 ---


class TestReactAgentLoop:
    @pytest.mark.asyncio
    async def test_single_iteration_no_tools(self) -> None:
        """LLM 第一轮就返回文本（不调用工具），循环立即结束。"""
        llm = _make_fake_llm(
            [
                ('[{"risk_level": "low", "description": "无重大风险"}]', None),
            ]
        )
        dispatcher = _make_fake_dispatcher(["get_clause_context"])
        messages = [{"role": "system", "content": "test"}, {"role": "user", "content": "test"}]

        risks, skill_ctx, final_msgs = await react_agent_loop(
            llm,
            dispatcher,
            messages,
            "4.1",
            None,
            {},
        )

        assert len(risks) == 1
        assert risks[0]["risk_level"] == "low"
        assert skill_ctx == {}  # 没有调用工具
        assert len(final_msgs) == 3  # system + user + assistant
        # ours: the answer closes the history; the model was offered the tools; the caller's
        # list is not modified
        assert final_msgs[-1]["role"] == "assistant"
        assert final_msgs[-1]["content"] == '[{"risk_level": "low", "description": "无重大风险"}]'
        assert llm.chat_with_tools.await_count == 1
        assert llm.chat_with_tools.await_args.kwargs["tools"][0]["function"]["name"] == (
            "get_clause_context"
        )
        assert len(messages) == 2
        dispatcher.prepare_and_call.assert_not_awaited()

    @pytest.mark.asyncio
    async def test_tool_call_then_final_response(self) -> None:
        """LLM 先调用一个工具，再返回最终结果。典型的 2 轮循环。"""
        tool_calls = [
            {
                "id": "call_1",
                "function": {"name": "get_clause_context", "arguments": '{"clause_id": "4.1"}'},
            },
        ]
        llm = _make_fake_llm(
            [
                ("", tool_calls),  # 第 1 轮：调用工具
                (
                    '[{"risk_level": "high", "description": "义务范围被扩大"}]',
                    None,
                ),  # 第 2 轮：最终结果
            ]
        )
        dispatcher = _make_fake_dispatcher(
            ["get_clause_context"],
            {"get_clause_context": {"context_text": "条款 4.1 全文..."}},
        )
        messages = [{"role": "system", "content": "test"}, {"role": "user", "content": "test"}]

        risks, skill_ctx, final_msgs = await react_agent_loop(
            llm,
            dispatcher,
            messages,
            "4.1",
            None,
            {},
        )

        assert len(risks) == 1
        assert risks[0]["risk_level"] == "high"
        assert "get_clause_context" in skill_ctx
        # messages: system + user + assistant(tool_calls) + tool + assistant(final)
        assert len(final_msgs) == 5
        # ours: the tool ran on the clause with the model's arguments; its result went back
        # to the model as a tool message answering that call, and into the skill context
        assert skill_ctx["get_clause_context"] == {"context_text": "条款 4.1 全文..."}
        (call,) = dispatcher.prepare_and_call.await_args_list
        assert call.args[:2] == ("get_clause_context", "4.1")
        assert call.kwargs["llm_arguments"] == {"clause_id": "4.1"}
        assert [m["role"] for m in final_msgs] == [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
        ]
        assert final_msgs[2]["tool_calls"] == tool_calls
        assert final_msgs[3]["tool_call_id"] == "call_1"
        assert json.loads(final_msgs[3]["content"]) == {"context_text": "条款 4.1 全文..."}
        second_call_messages = llm.chat_with_tools.await_args_list[1].args[0]
        assert second_call_messages[-1] == final_msgs[3]

    @pytest.mark.asyncio
    async def test_multiple_tool_calls_in_one_round(self) -> None:
        """LLM 在一轮中同时调用多个工具。"""
        tool_calls = [
            {
                "id": "call_1",
                "function": {"name": "compare_with_baseline", "arguments": '{"clause_id": "4.1"}'},
            },
            {
                "id": "call_2",
                "function": {
                    "name": "extract_financial_terms",
                    "arguments": '{"clause_id": "4.1"}',
                },
            },
        ]
        llm = _make_fake_llm(
            [
                ("", tool_calls),
                ("[]", None),  # 无风险
            ]
        )
        dispatcher = _make_fake_dispatcher(
            ["compare_with_baseline", "extract_financial_terms"],
            {
                "compare_with_baseline": {"modification_type": "unmodified"},
                "extract_financial_terms": {"terms": []},
            },
        )
        messages = [{"role": "system", "content": "test"}, {"role": "user", "content": "test"}]

        risks, skill_ctx, final_msgs = await react_agent_loop(
            llm,
            dispatcher,
            messages,
            "4.1",
            None,
            {},
        )

        assert risks == []
        assert "compare_with_baseline" in skill_ctx
        assert "extract_financial_terms" in skill_ctx
        # messages: system + user + assistant(2 tool_calls) + tool + tool + assistant(final)
        assert len(final_msgs) == 6
        # ours: each result answers its own call, in call order
        tool_msgs = [m for m in final_msgs if m.get("role") == "tool"]
        assert [m["tool_call_id"] for m in tool_msgs] == ["call_1", "call_2"]
        assert json.loads(tool_msgs[0]["content"]) == {"modification_type": "unmodified"}
        assert json.loads(tool_msgs[1]["content"]) == {"terms": []}

    @pytest.mark.asyncio
    async def test_max_iterations_reached(self) -> None:
        """达到最大循环次数时，返回空 risks + 已收集的 skill_context。"""
        tool_calls = [
            {"id": "call_1", "function": {"name": "get_clause_context", "arguments": "{}"}},
        ]
        # LLM 永远返回 tool_calls，不返回最终结果
        llm = _make_fake_llm([("", tool_calls)] * 3)
        dispatcher = _make_fake_dispatcher(["get_clause_context"])
        messages = [{"role": "system", "content": "test"}, {"role": "user", "content": "test"}]

        risks, skill_ctx, _ = await react_agent_loop(
            llm,
            dispatcher,
            messages,
            "4.1",
            None,
            {},
            max_iterations=3,
        )

        assert risks == []
        assert "get_clause_context" in skill_ctx
        # ours: exactly max_iterations model calls; the last is made without tools, and the
        # tool calls it returns anyway are not run
        assert llm.chat_with_tools.await_count == 3
        assert llm.chat_with_tools.await_args_list[-1].kwargs["tools"] is None
        assert dispatcher.prepare_and_call.await_count == 2

    @pytest.mark.asyncio
    async def test_llm_failure_breaks_loop(self) -> None:
        """LLM 调用失败时，循环中断，返回已收集的结果。"""
        llm = _make_fake_llm([Exception("API timeout")])
        dispatcher = _make_fake_dispatcher(["get_clause_context"])
        messages = [{"role": "system", "content": "test"}, {"role": "user", "content": "test"}]

        risks, skill_ctx, _ = await react_agent_loop(
            llm,
            dispatcher,
            messages,
            "4.1",
            None,
            {},
        )

        assert risks == []
        assert skill_ctx == {}
        assert llm.chat_with_tools.await_count == 1  # ours: not retried in the loop

    @pytest.mark.asyncio
    async def test_tool_execution_failure_continues(self) -> None:
        """单个工具执行失败时，循环继续（不中断）。"""
        tool_calls = [
            {"id": "call_1", "function": {"name": "broken_tool", "arguments": "{}"}},
        ]
        llm = _make_fake_llm(
            [
                ("", tool_calls),
                ('[{"risk_level": "medium", "description": "test"}]', None),
            ]
        )
        dispatcher = _make_fake_dispatcher(["broken_tool"])
        # 让 prepare_and_call 抛异常
        dispatcher.prepare_and_call = AsyncMock(side_effect=RuntimeError("工具崩溃"))
        messages = [{"role": "system", "content": "test"}, {"role": "user", "content": "test"}]

        risks, skill_ctx, final_msgs = await react_agent_loop(
            llm,
            dispatcher,
            messages,
            "4.1",
            None,
            {},
        )

        assert len(risks) == 1
        # 工具失败的错误信息被传回给 LLM
        tool_msg = [m for m in final_msgs if m.get("role") == "tool"][0]  # noqa: RUF015
        assert "工具崩溃" in tool_msg["content"]
        # ours: as a JSON error answering the call, which the model read before answering
        assert tool_msg["tool_call_id"] == "call_1"
        assert "工具崩溃" in json.loads(tool_msg["content"])["error"]
        assert skill_ctx == {}
        assert llm.chat_with_tools.await_args_list[1].args[0][-1] == tool_msg

    @pytest.mark.asyncio
    async def test_no_tools_available(self) -> None:
        """没有可用工具时，直接返回空结果。"""
        llm = _make_fake_llm([])
        dispatcher = MagicMock()
        dispatcher.get_tool_definitions.return_value = []
        messages = [{"role": "system", "content": "test"}]

        risks, skill_ctx, _ = await react_agent_loop(
            llm,
            dispatcher,
            messages,
            "4.1",
            None,
            {},
        )

        assert risks == []
        assert skill_ctx == {}
        llm.chat_with_tools.assert_not_awaited()  # ours: the model is not asked at all


# --- 辅助函数测试 ---


class TestParseResponse:
    def test_valid_json_array(self) -> None:
        text = '[{"risk_level": "high", "description": "test"}]'
        result = _parse_final_response(text)
        assert len(result) == 1
        assert result[0] == {"risk_level": "high", "description": "test"}  # ours

    def test_empty_array(self) -> None:
        assert _parse_final_response("[]") == []

    def test_empty_string(self) -> None:
        assert _parse_final_response("") == []

    def test_invalid_json(self) -> None:
        assert _parse_final_response("not json") == []

    def test_filters_non_dict(self) -> None:
        text = '[{"a": 1}, "string", 42]'
        result = _parse_final_response(text)
        assert len(result) == 1
        assert result == [{"a": 1}]  # ours


class TestTruncate:
    def test_short_text_unchanged(self) -> None:
        assert _truncate("hello", 100) == "hello"

    def test_long_text_truncated(self) -> None:
        text = "x" * 5000
        result = _truncate(text, 100)
        assert len(result) < 200
        assert "截断" in result
        # ours: SPEC-20's exact notice, after the first max_chars characters
        assert result == "x" * 100 + "\n... (截断，原文 5000 字符)"
        assert _truncate("y" * (MAX_TOOL_RESULT_CHARS + 1)).startswith(
            "y" * MAX_TOOL_RESULT_CHARS + "\n... (截断"
        )


class TestSerializeToolResult:
    def test_none(self) -> None:
        assert _serialize_tool_result(None) == "{}"

    def test_dict(self) -> None:
        result = _serialize_tool_result({"key": "value"})
        assert "key" in result
        assert json.loads(result) == {"key": "value"}  # ours: JSON the model can read

    def test_string(self) -> None:
        assert _serialize_tool_result("hello") == "hello"


# ============================================================================================
# §7.1.2 Prompt 构造测试
# ============================================================================================


class TestBuildReactAgentMessages:
    def test_basic_structure(self) -> None:
        """返回 [system, user] 两条消息。"""
        from contract_review.graph.prompts import build_react_agent_messages

        msgs = build_react_agent_messages(
            language="zh-CN",
            our_party="承包商",
            clause_id="4.1",
            clause_name="承包商义务",
            description="检查义务范围",
            priority="critical",
            clause_text="The Contractor shall...",
        )
        assert len(msgs) == 2
        assert msgs[0]["role"] == "system"
        assert msgs[1]["role"] == "user"
        # ours: the user message carries the checklist item and the clause text
        user = msgs[1]["content"]
        for part in ("4.1", "承包商义务", "检查义务范围", "critical", "The Contractor shall..."):
            assert part in user

    def test_system_contains_tool_instructions(self) -> None:
        """system prompt 包含工具使用指引。"""
        from contract_review.graph.prompts import build_react_agent_messages

        msgs = build_react_agent_messages(
            language="zh-CN",
            our_party="承包商",
            clause_id="4.1",
            clause_name="test",
            description="test",
            priority="medium",
            clause_text="test",
        )
        system = msgs[0]["content"]
        assert "工具" in system
        assert "clause_id" in system
        # ours: the rule names the current clause id and the round limit
        assert "当前条款编号：4.1" in system
        assert "最多 5 轮" in system

    def test_suggested_skills_included(self) -> None:
        """传入 suggested_skills 和 dispatcher 时，prompt 包含建议工具。"""
        from unittest.mock import MagicMock

        from contract_review.graph.prompts import build_react_agent_messages
        from contract_review.skills.schema import SkillBackend, SkillRegistration

        dispatcher = MagicMock()
        dispatcher.get_registration.return_value = SkillRegistration(
            skill_id="compare_with_baseline",
            name="基线对比",
            description="将条款与标准模板对比",
            backend=SkillBackend.LOCAL,
            local_handler="some.module.handler",
        )

        msgs = build_react_agent_messages(
            language="zh-CN",
            our_party="承包商",
            clause_id="4.1",
            clause_name="test",
            description="test",
            priority="medium",
            clause_text="test",
            suggested_skills=["compare_with_baseline"],
            dispatcher=dispatcher,
        )
        system = msgs[0]["content"]
        assert "compare_with_baseline" in system
        assert "建议工具" in system
        # ours: listed with the description its registration gives
        assert "- compare_with_baseline: 将条款与标准模板对比" in system
        dispatcher.get_registration.assert_called_with("compare_with_baseline")

    def test_fidic_domain_instruction(self) -> None:
        """domain_id='fidic' 时，包含 FIDIC 专项指引。"""
        from contract_review.graph.prompts import build_react_agent_messages

        msgs = build_react_agent_messages(
            language="zh-CN",
            our_party="承包商",
            clause_id="4.1",
            clause_name="test",
            description="test",
            priority="medium",
            clause_text="test",
            domain_id="fidic",
        )
        system = msgs[0]["content"]
        assert "FIDIC" in system
        assert "fidic_merge_gc_pc" in system
        # ours: only with the FIDIC domain
        generic = build_react_agent_messages(
            language="zh-CN",
            our_party="承包商",
            clause_id="4.1",
            clause_name="test",
            description="test",
            priority="medium",
            clause_text="test",
        )[0]["content"]
        assert "fidic_merge_gc_pc" not in generic


# ============================================================================================
# §7.1.3 Builder 集成测试
# ============================================================================================

# A contract with the seed's clause 1.1, worded so that a rule flags it: a retention above 5%
# (extract_financial_terms), so "reviewed by the rules" shows in the findings.
CONTRACT = """SERVICES AGREEMENT

1. General
1.1 The Supplier shall hold a retention of 10% of each payment until final acceptance.
1.2 This Agreement is governed by English law.
"""
STRUCTURE: DocumentStructure = StructureParser().parse(CONTRACT, document_id="seed-20")


def _seed_state() -> dict[str, Any]:
    """The seed's state, with the document the clause is read from and a skill whose rule
    can raise a risk (the seed's `required_skills: []` would leave the rules nothing to do)."""
    return {
        "review_checklist": [
            {
                "clause_id": "1.1",
                "clause_name": "test",
                "required_skills": ["extract_financial_terms"],
            }
        ],
        "current_clause_index": 0,
        "our_party": "承包商",
        "language": "zh-CN",
        "primary_structure": STRUCTURE,
    }


def _config(name: str) -> RunnableConfig:
    return {"configurable": {"thread_id": name}}


def _assert_reviewed_by_the_rules(result: dict[str, Any]) -> None:
    """Clause 1.1 carries the rule's risk: the 10% retention (the review's language is
    Chinese, so the description is too)."""
    finding = result["findings"]["1.1"]
    rule_risks = [r for r in finding.risks if "extract_financial_terms" in r.source_skills]
    assert len(rule_risks) == 1
    assert rule_risks[0].risk_level is RiskLevel.MEDIUM
    assert "10%" in rule_risks[0].description
    assert "保留金" in rule_risks[0].description


class TestReactBranchFallback:
    """测试 node_clause_analyze 的 ReAct 分支和回退机制。

    Adapted: the seed calls a module-level `node_clause_analyze(state)` after monkeypatching
    `builder.get_settings` and `builder._run_react_branch`. Our graph takes its settings and
    model as `build_review_graph(settings=..., llm=...)` (read through LangGraph's runtime
    context, not a module global), the clause node is a method of a per-graph object, and the
    agent (`react_agent.run_react_agent`) and its fallback live elsewhere; the rules always
    run and the agent only adds findings. So each case runs the real graph on a one-clause
    contract and checks the clause's findings: `findings["1.1"]` stands for the seed's
    `current_clause_id == "1.1"`, and a rule risk shows the clause was reviewed by the
    rules."""

    @pytest.mark.asyncio
    async def test_react_disabled_uses_hardcoded(self) -> None:
        """use_react_agent=False 时，走原有硬编码分支。

        Ours: USE_REACT_AGENT=false → the clause is reviewed by the rules alone and the
        model is never asked, even though one is given."""
        model = FunctionModel(lambda messages, info: "[]")
        settings = Settings(use_react_agent=False, orchestrator=False)
        graph = build_review_graph(interrupt_before=[], settings=settings, llm=model)

        result = await graph.ainvoke(_seed_state(), _config("react-off"))
        assert result["findings"]["1.1"].clause_id == "1.1"
        finding = result["findings"]["1.1"]
        assert finding.analysis_mode == "deterministic"
        assert "USE_REACT_AGENT=false" in finding.mode_reason
        assert model.calls == []
        _assert_reviewed_by_the_rules(result)

    @pytest.mark.asyncio
    async def test_react_failure_falls_back(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """ReAct 分支抛异常时，自动回退到硬编码分支。

        Ours: the seed's `_run_react_branch` is `run_react_agent` as the builder calls it;
        made to raise, the clause must still be reviewed by the rules."""

        # mock _run_react_branch 抛异常
        async def failing_react(*args: Any, **kwargs: Any) -> NoReturn:
            raise RuntimeError("ReAct 模拟失败")

        monkeypatch.setattr("contract_review.graph.builder.run_react_agent", failing_react)
        model = FunctionModel(lambda messages, info: "[]")
        settings = Settings(use_react_agent=True, orchestrator=False)
        graph = build_review_graph(interrupt_before=[], settings=settings, llm=model)

        # 不应抛异常，应该回退到硬编码分支
        result = await graph.ainvoke(_seed_state(), _config("react-raises"))
        assert result["findings"]["1.1"].clause_id == "1.1"
        assert result["findings"]["1.1"].analysis_mode == "deterministic"
        assert "ReAct 模拟失败" in result["findings"]["1.1"].mode_reason
        _assert_reviewed_by_the_rules(result)

    @pytest.mark.asyncio
    async def test_react_failure_falls_back_when_the_model_fails(self) -> None:
        """ReAct 分支抛异常时，自动回退到硬编码分支 — the failure our agent is built to
        absorb: the model call raises. The agent stops, and the clause keeps the rules'
        findings, with the reason recorded."""

        def failing_model(messages: list[dict[str, Any]], info: CallInfo) -> ModelTurn:
            raise RuntimeError("ReAct 模拟失败")

        model = FunctionModel(failing_model)
        settings = Settings(use_react_agent=True, orchestrator=False)
        graph = build_review_graph(interrupt_before=[], settings=settings, llm=model)

        result = await graph.ainvoke(_seed_state(), _config("react-model-fails"))
        finding = result["findings"]["1.1"]
        assert finding.clause_id == "1.1"
        assert len(model.calls) == 1  # the agent did run
        assert finding.analysis_mode == "deterministic"
        assert "ReAct 模拟失败" in finding.mode_reason
        assert finding.agent is not None
        assert finding.agent.stop_reason == "llm_error"
        _assert_reviewed_by_the_rules(result)
        assert result["is_complete"] is True
