"""SPEC-19 §7.1 (tests/test_tool_adapter.py), §7.2 (prepare_input) and §7.3
(dispatcher.get_tool_definitions), case by case.

Seed: /work/shared/seeds/001_01da5d7a48aeabbe.txt. Same classes, test names, calls and
assertions as the seed; the assertions added after "# ours:" check what the seed's only imply.

Names that differ from the seed's: `_create_dispatcher()` is
`contract_review.plugins.create_dispatcher()` (every registered domain's skills; it takes no
domain id), the dispatcher module's `_import_handler` is `resolve_handler`, and a
`prepare_input_fn` may be the function itself rather than its dotted path (the built-in skills
register the function). §7.2 is adapted: see its class docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field

from contract_review.models import DocumentStructure
from contract_review.plugins import create_dispatcher
from contract_review.plugins.registry import clear_plugins, list_plugins, register_plugin
from contract_review.skills import builtin_skills
from contract_review.skills.dispatcher import SkillDispatcher, resolve_handler
from contract_review.skills.local.clause_context import ClauseContextInput
from contract_review.skills.schema import GenericSkillInput, SkillBackend, SkillRegistration
from contract_review.skills.tool_adapter import (
    INTERNAL_FIELDS,
    parse_tool_calls,
    skills_to_tool_definitions,
)

# ============================================================================================
# §7.1.1 to_tool_definition
# ============================================================================================


class DummyInput(BaseModel):
    """测试用 Input Schema。"""

    clause_id: str
    query: str = ""
    top_k: int = 5
    document_structure: Any = None  # 内部字段，应被剔除
    state_snapshot: dict[str, Any] = Field(default_factory=dict)  # 内部字段，应被剔除


class TestToToolDefinition:
    def test_basic_structure(self) -> None:
        """to_tool_definition 返回 OpenAI Function Calling 标准格式。"""
        reg = SkillRegistration(
            skill_id="test_skill",
            name="测试技能",
            description="这是一个测试技能",
            backend=SkillBackend.LOCAL,
            local_handler="some.module.handler",
            input_schema=DummyInput,
        )
        tool_def = reg.to_tool_definition()

        assert tool_def["type"] == "function"
        assert tool_def["function"]["name"] == "test_skill"
        assert tool_def["function"]["description"] == "这是一个测试技能"
        assert "parameters" in tool_def["function"]
        assert tool_def["function"]["parameters"]["type"] == "object"

    def test_internal_fields_excluded(self) -> None:
        """document_structure 和 state_snapshot 不出现在 parameters 中。"""
        reg = SkillRegistration(
            skill_id="test_skill",
            name="测试",
            backend=SkillBackend.LOCAL,
            local_handler="some.module.handler",
            input_schema=DummyInput,
        )
        tool_def = reg.to_tool_definition()
        props = tool_def["function"]["parameters"]["properties"]

        assert "clause_id" in props
        assert "query" in props
        assert "top_k" in props
        assert "document_structure" not in props
        assert "state_snapshot" not in props
        # ours: the business fields keep their JSON-Schema types and defaults
        assert props["top_k"]["type"] == "integer"
        assert props["top_k"]["default"] == 5

    def test_required_fields_correct(self) -> None:
        """required 列表只包含必填的业务字段，不包含内部字段。"""
        reg = SkillRegistration(
            skill_id="test_skill",
            name="测试",
            backend=SkillBackend.LOCAL,
            local_handler="some.module.handler",
            input_schema=DummyInput,
        )
        tool_def = reg.to_tool_definition()
        required = tool_def["function"]["parameters"]["required"]

        assert "clause_id" in required
        assert "document_structure" not in required
        assert "state_snapshot" not in required
        assert required == ["clause_id"]  # ours: fields with defaults are optional

    def test_no_input_schema(self) -> None:
        """input_schema 为 None 时，返回空 parameters。"""
        reg = SkillRegistration(
            skill_id="test_skill",
            name="测试",
            backend=SkillBackend.LOCAL,
            local_handler="some.module.handler",
            input_schema=None,
        )
        tool_def = reg.to_tool_definition()
        params = tool_def["function"]["parameters"]

        assert params["properties"] == {}
        assert params["required"] == []


# ============================================================================================
# §7.1.2 skills_to_tool_definitions
# ============================================================================================


class TestSkillsToToolDefinitions:
    def _make_skill(
        self,
        skill_id: str,
        domain: str = "*",
        category: str = "general",
        status: str = "active",
    ) -> SkillRegistration:
        return SkillRegistration(
            skill_id=skill_id,
            name=skill_id,
            description=f"Skill {skill_id}",
            backend=SkillBackend.LOCAL,
            local_handler="some.module.handler",
            input_schema=DummyInput,
            domain=domain,
            category=category,
            status=status,
        )

    def test_basic_conversion(self) -> None:
        """多个 Skill 批量转为 tool definitions。"""
        skills = [self._make_skill("a"), self._make_skill("b")]
        tools = skills_to_tool_definitions(skills)

        assert len(tools) == 2
        assert tools[0]["function"]["name"] == "a"
        assert tools[1]["function"]["name"] == "b"
        assert tools[1]["function"]["description"] == "Skill b"  # ours

    def test_inactive_skill_excluded(self) -> None:
        """status != 'active' 的 Skill 被过滤。"""
        skills = [
            self._make_skill("active_one"),
            self._make_skill("disabled_one", status="disabled"),
        ]
        tools = skills_to_tool_definitions(skills)

        assert len(tools) == 1
        assert tools[0]["function"]["name"] == "active_one"

    def test_domain_filter(self) -> None:
        """domain_filter 只保留匹配 domain 和通用 domain='*' 的 Skill。"""
        skills = [
            self._make_skill("generic", domain="*"),
            self._make_skill("fidic_only", domain="fidic"),
            self._make_skill("sha_only", domain="sha_spa"),
        ]
        tools = skills_to_tool_definitions(skills, domain_filter="fidic")

        names = [t["function"]["name"] for t in tools]
        assert "generic" in names  # domain="*" 通过
        assert "fidic_only" in names  # domain="fidic" 通过
        assert "sha_only" not in names  # domain="sha_spa" 被过滤
        # ours: without a filter every domain's skill is offered
        assert len(skills_to_tool_definitions(skills)) == 3

    def test_category_filter(self) -> None:
        """category_filter 只保留匹配 category 的 Skill。"""
        skills = [
            self._make_skill("a", category="analysis"),
            self._make_skill("b", category="validation"),
        ]
        tools = skills_to_tool_definitions(skills, category_filter="validation")

        assert len(tools) == 1
        assert tools[0]["function"]["name"] == "b"

    def test_internal_fields_stripped(self) -> None:
        """INTERNAL_FIELDS 中的字段在最终输出中被剔除。"""
        skills = [self._make_skill("a")]
        tools = skills_to_tool_definitions(skills)

        props = tools[0]["function"]["parameters"]["properties"]
        for field_name in INTERNAL_FIELDS:
            assert field_name not in props
        # ours: the seed's four internal fields are among ours, and the business fields stay
        assert {
            "document_structure",
            "state_snapshot",
            "criteria_data",
            "criteria_file_path",
        } <= INTERNAL_FIELDS
        assert set(props) == {"clause_id", "query", "top_k"}

    def test_empty_input(self) -> None:
        """空 Skill 列表返回空 tools 列表。"""
        assert skills_to_tool_definitions([]) == []


# ============================================================================================
# §7.1.3 parse_tool_calls
# ============================================================================================


class TestParseToolCalls:
    def test_basic_parsing(self) -> None:
        """标准 OpenAI tool_calls 格式解析。"""
        tool_calls = [
            {
                "id": "call_001",
                "function": {
                    "name": "compare_with_baseline",
                    "arguments": '{"clause_id": "4.1", "baseline_text": "原文"}',
                },
            }
        ]
        parsed = parse_tool_calls(tool_calls)

        assert len(parsed) == 1
        assert parsed[0]["id"] == "call_001"
        assert parsed[0]["skill_id"] == "compare_with_baseline"
        assert parsed[0]["arguments"]["clause_id"] == "4.1"
        assert parsed[0]["arguments"]["baseline_text"] == "原文"  # ours

    def test_multiple_tool_calls(self) -> None:
        """多个 tool_calls 同时解析。"""
        tool_calls = [
            {"id": "call_001", "function": {"name": "skill_a", "arguments": "{}"}},
            {"id": "call_002", "function": {"name": "skill_b", "arguments": '{"x": 1}'}},
        ]
        parsed = parse_tool_calls(tool_calls)

        assert len(parsed) == 2
        assert parsed[0]["skill_id"] == "skill_a"
        assert parsed[1]["arguments"]["x"] == 1

    def test_invalid_json_arguments(self) -> None:
        """arguments 不是合法 JSON 时，降级为空 dict。"""
        tool_calls = [
            {"id": "call_001", "function": {"name": "skill_a", "arguments": "not json"}},
        ]
        parsed = parse_tool_calls(tool_calls)

        assert parsed[0]["arguments"] == {}
        assert parsed[0]["skill_id"] == "skill_a"  # ours: the call itself is kept

    def test_dict_arguments(self) -> None:
        """arguments 已经是 dict（非字符串）时，直接使用。"""
        tool_calls = [
            {"id": "call_001", "function": {"name": "skill_a", "arguments": {"key": "val"}}},
        ]
        parsed = parse_tool_calls(tool_calls)

        assert parsed[0]["arguments"]["key"] == "val"

    def test_empty_tool_calls(self) -> None:
        """空列表返回空结果。"""
        assert parse_tool_calls([]) == []

    def test_missing_fields_graceful(self) -> None:
        """缺少 id 或 function 字段时不崩溃。"""
        tool_calls = [{"function": {"name": "skill_a", "arguments": "{}"}}]
        parsed = parse_tool_calls(tool_calls)

        assert parsed[0]["id"] == ""
        assert parsed[0]["skill_id"] == "skill_a"
        # ours: no "function" at all does not crash either
        assert parse_tool_calls([{"id": "call_x"}]) == [
            {"id": "call_x", "skill_id": "", "arguments": {}}
        ]


# ============================================================================================
# §7.2 prepare_input
# ============================================================================================

# The seed's structure {"clauses": [{"clause_id": "4.1", "text": "test", "children": []}]},
# validated into our typed DocumentStructure (which also needs a document id).
SEED_STRUCTURE = DocumentStructure.model_validate(
    {
        "document_id": "seed-19",
        "clauses": [{"clause_id": "4.1", "text": "test", "children": []}],
        "total_clauses": 1,
    }
)
SEED_STATE: dict[str, Any] = {"our_party": "承包商", "language": "zh-CN"}


def _echo(inp: GenericSkillInput) -> dict[str, Any]:
    """Handler of a skill registered without prepare_input_fn: what input it was given."""
    return {
        "input_type": type(inp).__name__,
        "clause_id": inp.clause_id,
        "has_structure": inp.document_structure is not None,
        "state_snapshot": inp.state_snapshot,
    }


class TestPrepareInputFallback:
    """SPEC-19's `_build_skill_input(skill_id, clause_id, structure, state, dispatcher=None)`
    (prepare_input first, then builder.py's hard-coded if/elif chain) does not exist here:
    the chain was removed on purpose — every skill carries its own `prepare_input` — and the
    dispatcher's `prepare_and_call` is the one way inputs are built. The three seed cases test
    the same questions through it: the registered prepare_input is what builds the input; a
    skill registered without one still gets its clause (a `GenericSkillInput`); and a
    prepare_input that fails makes the call fail cleanly (a `SkillResult` naming the error,
    the skill not run) instead of falling back to the removed chain."""

    @pytest.mark.asyncio
    async def test_prepare_input_fn_takes_priority(self) -> None:
        """当 Skill 注册了 prepare_input_fn 时，优先使用它。"""
        # 1. 创建一个带 prepare_input_fn 的 dispatcher
        dispatcher = create_dispatcher()
        reg = dispatcher.get_registration("get_clause_context")

        # ours: every skill registers one (so the seed's "if not, fallback" branch is moot)
        assert reg is not None
        assert reg.prepare_input_fn is not None
        result = resolve_handler(reg.prepare_input_fn)(
            "4.1",
            SEED_STRUCTURE,
            {"our_party": "承包商", "language": "zh-CN"},
        )
        assert result is not None
        assert result.clause_id == "4.1"
        # ours: it builds the skill's own input, with the structure injected
        assert reg.input_schema is ClauseContextInput
        assert isinstance(result, ClauseContextInput)
        assert result.document_structure is SEED_STRUCTURE

        # ours: the dispatcher uses it, and a spy in its place shows it is called
        seen: list[tuple[str, Any]] = []
        real = resolve_handler(reg.prepare_input_fn)

        def spy(clause_id: str, structure: Any, state: Any) -> Any:
            seen.append((clause_id, state.get("our_party")))
            return real(clause_id, structure, state)

        spied = SkillDispatcher()
        spied.register(reg.model_copy(update={"prepare_input_fn": spy}))
        called = await spied.prepare_and_call(
            "get_clause_context", "4.1", SEED_STRUCTURE, SEED_STATE
        )
        assert called.success, called.error
        assert called.data["clause_id"] == "4.1"
        assert called.data["text"] == "test"
        assert seen == [("4.1", "承包商")]

    @pytest.mark.asyncio
    async def test_fallback_when_no_prepare_input(self) -> None:
        """没有 prepare_input_fn 时，走原有 if/elif 分支。

        Ours: there is no if/elif chain to fall back to. A skill registered without
        prepare_input_fn gets a `GenericSkillInput` with the clause id, the structure and the
        LLM's other arguments; no built-in skill relies on it."""
        assert all(reg.prepare_input_fn is not None for reg in create_dispatcher().list_skills())
        dispatcher = SkillDispatcher()
        dispatcher.register(SkillRegistration(skill_id="echo", name="echo", local_handler=_echo))

        result = await dispatcher.prepare_and_call(
            "echo",
            "4.1",
            SEED_STRUCTURE,
            {"our_party": "承包商", "language": "zh-CN"},
            llm_arguments={"query": "预付款"},
        )
        assert result is not None
        assert result.success, result.error
        assert result.data["clause_id"] == "4.1"
        assert result.data["input_type"] == "GenericSkillInput"
        assert result.data["has_structure"] is True
        assert result.data["state_snapshot"] == {"query": "预付款"}

    @pytest.mark.asyncio
    async def test_fallback_when_prepare_input_fails(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """prepare_input_fn 调用失败时，回退到 if/elif 分支。

        Ours: with no chain to fall back to, the call fails cleanly — no exception, a failed
        `SkillResult` that names the skill and the cause (what an agent reads as the tool's
        answer) — and the skill's handler is not run on a half-built input."""
        dispatcher = create_dispatcher()
        reg = dispatcher.get_registration("get_clause_context")

        # 如果有 prepare_input_fn，mock 它抛异常
        if reg and reg.prepare_input_fn:
            import contract_review.skills.dispatcher as disp_mod

            original_import = disp_mod.resolve_handler

            def failing_import(path: str | Callable[..., Any]) -> Callable[..., Any]:
                name = path if isinstance(path, str) else path.__name__
                if "prepare_input" in name:
                    raise ImportError("模拟导入失败")
                return original_import(path)

            monkeypatch.setattr(disp_mod, "resolve_handler", failing_import)

        result = await dispatcher.prepare_and_call(
            "get_clause_context",
            "4.1",
            SEED_STRUCTURE,
            {"our_party": "承包商", "language": "zh-CN"},
        )
        # 即使 prepare_input 失败，... (ours: the call reports the failure instead)
        assert result is not None
        assert result.success is False
        assert result.data == {}
        assert result.error is not None
        assert "get_clause_context" in result.error
        assert "模拟导入失败" in result.error

        # ours: the same call succeeds once prepare_input works again
        monkeypatch.undo()
        again = await dispatcher.prepare_and_call(
            "get_clause_context", "4.1", SEED_STRUCTURE, SEED_STATE
        )
        assert again.success, again.error


# ============================================================================================
# §7.3 dispatcher.get_tool_definitions
# ============================================================================================


@pytest.fixture
def plugin_registry() -> Iterator[None]:
    """The seed clears the global plugin registry; put back what was registered before."""
    saved = list_plugins()
    yield
    clear_plugins()
    for plugin in saved:
        register_plugin(plugin)


class TestDispatcherToolDefinitions:
    """测试 SkillDispatcher.get_tool_definitions() 集成。"""

    def test_get_all_tool_definitions(self) -> None:
        """获取所有已注册 Skill 的 tool 定义。"""
        dispatcher = create_dispatcher()
        tools = dispatcher.get_tool_definitions()

        assert isinstance(tools, list)
        assert len(tools) > 0

        # 每个 tool 都有标准结构
        for tool in tools:
            assert tool["type"] == "function"
            assert "name" in tool["function"]
            assert "description" in tool["function"]
            assert "parameters" in tool["function"]
            assert tool["function"]["description"].strip()  # ours: SPEC-19 §9.3: non-empty

    @pytest.mark.usefixtures("plugin_registry")
    def test_tool_definitions_with_domain_filter(self) -> None:
        """domain_filter 正确过滤。"""
        from contract_review.plugins.fidic import register_fidic_plugin
        from contract_review.plugins.registry import clear_plugins

        clear_plugins()
        register_fidic_plugin()
        dispatcher = create_dispatcher()  # seed: _create_dispatcher(domain_id="fidic")

        # 只获取 fidic 相关的 tools
        tools = dispatcher.get_tool_definitions(domain_filter="fidic")
        names = [t["function"]["name"] for t in tools]

        # 通用 Skill（domain="*"）应该包含
        assert "get_clause_context" in names
        # ours: FIDIC's own skills are in, other domains' skills are out
        assert "fidic_merge_gc_pc" in names
        domains = {
            reg.skill_id: reg.domain for reg in dispatcher.list_skills() if reg.skill_id in names
        }
        assert set(domains.values()) == {"*", "fidic"}
        assert any(reg.domain == "sha_spa" for reg in dispatcher.list_skills())
        assert not any(name.startswith(("spa_", "sha_")) for name in names)

    def test_tool_definitions_names_match_skill_ids(self) -> None:
        """tool definition 的 name 与 skill_id 一一对应。"""
        dispatcher = create_dispatcher()
        tools = dispatcher.get_tool_definitions()
        tool_names = {t["function"]["name"] for t in tools}

        for skill_id in dispatcher.skill_ids:
            reg = dispatcher.get_registration(skill_id)
            if reg and reg.status == "active":
                assert skill_id in tool_names, f"Skill '{skill_id}' 未出现在 tool definitions 中"
        # ours: one tool per active skill, no more
        assert len(tools) == len(tool_names)
        assert tool_names <= set(dispatcher.skill_ids)
        assert {r.skill_id for r in builtin_skills()} <= tool_names

    def test_tool_definitions_passable_to_llm_client(self) -> None:
        """生成的 tools 数组格式可直接传给 LLMClient.chat_with_tools()。"""
        dispatcher = create_dispatcher()
        tools = dispatcher.get_tool_definitions()

        # 验证格式兼容性：每个 tool 的 parameters 都是合法的 JSON Schema
        for tool in tools:
            params = tool["function"]["parameters"]
            assert params["type"] == "object"
            assert isinstance(params.get("properties", {}), dict)
            assert isinstance(params.get("required", []), list)
            # ours: really valid JSON Schema, with no internal field offered to the model
            Draft202012Validator.check_schema(params)
            assert not INTERNAL_FIELDS & set(params["properties"])
            assert set(params["required"]) <= set(params["properties"])


class UndescribableInput(BaseModel):
    """An input pydantic cannot render as JSON Schema (a callable field)."""

    clause_id: str
    callback: Callable[[], None]


def test_a_schema_pydantic_cannot_describe_gives_empty_parameters(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Ours, from SPEC-19 §3.1: `to_tool_definition` never raises for a bad input schema (it
    would take every LLM-mode review down); the tool is offered with empty parameters and the
    problem is logged."""
    reg = SkillRegistration(
        skill_id="odd_skill",
        name="odd",
        backend=SkillBackend.LOCAL,
        local_handler="some.module.handler",
        input_schema=UndescribableInput,
    )
    with caplog.at_level("WARNING"):
        tool = reg.to_tool_definition()
    assert tool["function"]["name"] == "odd_skill"
    assert tool["function"]["parameters"] == {"type": "object", "properties": {}, "required": []}
    assert "odd_skill: no tool parameters" in caplog.text
