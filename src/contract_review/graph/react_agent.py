"""The ReAct agent (SPEC-20), as graph nodes (the ReAct-separation design).

    START → agent ─┬─ (tool calls) → tools → agent …
                   └─ (answer, stop) → finalize → END

`agent` makes one model call. At the step limit, or when the last round repeated an earlier
call with a similar result (`loop_detected`), it calls the model *without* tools, so the answer
comes now. `tools` runs every tool call of the turn concurrently through
`SkillDispatcher.prepare_and_call` (results cut to `MAX_TOOL_RESULT_CHARS`). `finalize` parses
the answer into risk dicts and sums up the run (`AgentRunInfo`).

The subgraph has no checkpointer of its own: a clause branch of the review is the unit that is
checkpointed and redone after a crash. Its dependencies (model, dispatcher, documents) come in
through LangGraph's runtime context, so one compiled graph serves every clause.
"""

from __future__ import annotations

import asyncio
import json
import logging
import operator
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import cache
from typing import Annotated, Any, Literal

from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from contract_review.errors import LLMError
from contract_review.models import AgentRunInfo, DocumentStructure
from contract_review.skills.context import SkillState
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.risks import is_chinese
from contract_review.skills.state import review_context
from contract_review.skills.tool_adapter import parse_tool_calls
from contract_review.types import ChatModel, clear_call_usage, last_call_usage

from ._json import json_values
from .events import EventType, ReviewEvent, emit, short
from .prompts import final_answer_instruction

__all__ = [
    "MAX_TOOL_RESULT_CHARS",
    "AgentContext",
    "AgentOutcome",
    "AgentState",
    "react_agent_loop",
    "run_react_agent",
]

logger = logging.getLogger(__name__)

MAX_TOOL_RESULT_CHARS = 3000
"""Longest tool result the model sees; longer ones are cut (the context window is finite)."""

_SIMILAR = 0.9
"""Similarity (difflib ratio) above which two tool arguments or results count as the same."""


def _merge_context(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    return {**(left or {}), **(right or {})}


class AgentState(TypedDict, total=False):
    """State of one agent run (one clause)."""

    messages: Annotated[list[dict[str, Any]], operator.add]
    """The conversation in OpenAI dict form, system prompt first."""
    current_step: int
    """Model steps taken."""
    max_steps: int
    """Most model steps; the last is made without tools."""
    tool_call_history: Annotated[list[dict[str, Any]], operator.add]
    """Every tool call: {"step", "name", "args"}."""
    tool_result_history: Annotated[list[str], operator.add]
    """The (cut) result of each call in `tool_call_history`, same order."""
    tools_used: Annotated[list[str], operator.add]
    skill_context: Annotated[dict[str, Any], _merge_context]
    """Skill id → data of its last successful call."""
    stop: bool
    stop_reason: str
    error: str
    endpoint_down: bool
    """The model call failed in a way every further call would repeat (see `LLMError`)."""
    final_reply: str
    risks: list[dict[str, Any]]
    parsed: bool
    """Whether the final answer was a JSON list of risks."""
    metadata: AgentRunInfo
    turns: Annotated[list[dict[str, Any]], operator.add]
    """Each model call: {"step", "seconds", "prompt_tokens", "completion_tokens", "forced",
    "error"} (the transcript's timing and tokens)."""


@dataclass
class AgentContext:
    """Run-scoped dependencies of the agent nodes (LangGraph runtime context)."""

    llm: ChatModel
    dispatcher: SkillDispatcher
    clause_id: str
    primary_structure: DocumentStructure | None
    state: SkillState
    """What skills' `prepare_input` reads: task facts and documents."""
    tools: list[dict[str, Any]]
    """Tool definitions offered to the model."""
    temperature: float = 0.1
    language: str = "en"
    max_tool_calls_per_step: int = 8
    stream_tokens: bool = True


@dataclass
class AgentOutcome:
    """Result of one agent run."""

    risks: list[dict[str, Any]]
    """Risk dicts as the model wrote them (SPEC-20 fields), not yet checked."""
    skill_context: dict[str, Any]
    messages: list[dict[str, Any]]
    info: AgentRunInfo
    parsed: bool
    """Whether the final answer was a JSON list of risks."""
    endpoint_down: bool = False
    """The model endpoint is unusable (unreachable, or refuses us)."""
    turns: list[dict[str, Any]] = field(default_factory=list)
    """Each model call's step, seconds and tokens."""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    """Each tool call: step, name, arguments and the result the model read."""


# --------------------------------------------------------------------------------------------
# Helpers (names of SPEC-20)
# --------------------------------------------------------------------------------------------


def _truncate(
    text: str, max_chars: int = MAX_TOOL_RESULT_CHARS, language: str | None = None
) -> str:
    """`text` cut to `max_chars`, saying how long it was: in SPEC-20's words when no language
    is given, in the review's language otherwise."""
    if len(text) <= max_chars:
        return text
    if language is None or is_chinese(language):
        return text[:max_chars] + f"\n... (截断，原文 {len(text)} 字符)"
    return text[:max_chars] + f"\n... (truncated; {len(text)} characters in full)"


def _serialize_tool_result(result_data: Any, language: str | None = None) -> str:
    """A tool result as the model reads it: JSON, cut to `MAX_TOOL_RESULT_CHARS`."""
    if result_data is None:
        return "{}"
    if isinstance(result_data, str):
        return _truncate(result_data, language=language)
    return _truncate(json.dumps(result_data, ensure_ascii=False, default=str), language=language)


def _parse_risk_list(text: str) -> list[dict[str, Any]] | None:
    """The answer's list of risk dicts; None when the answer holds no such list.

    The first list holding a dict wins (prose may cite "[1]" before the real answer); a bare
    `[]` means "no risks"."""
    empty = False
    for value in json_values(text or ""):
        if isinstance(value, dict):
            value = value.get("risks")
        if isinstance(value, list):
            risks = [r for r in value if isinstance(r, dict)]
            if risks:
                return risks
            empty = empty or not value
    return [] if empty else None


def _parse_final_response(response_text: str) -> list[dict[str, Any]]:
    """The answer's risk dicts ([] when it holds none or cannot be read)."""
    return _parse_risk_list(response_text) or []


def _similar(a: str, b: str) -> bool:
    return a == b or SequenceMatcher(None, a, b, autojunk=False).ratio() >= _SIMILAR


def _should_stop_for_loop(calls: list[dict[str, Any]], results: list[str]) -> bool:
    """Whether the last round repeated a call of the round before with a similar result."""
    if not calls:
        return False
    last = calls[-1]["step"]
    current = [(c, r) for c, r in zip(calls, results, strict=True) if c["step"] == last]
    before = [(c, r) for c, r in zip(calls, results, strict=True) if c["step"] == last - 1]
    for call, result in current:
        args = json.dumps(call["args"], sort_keys=True, ensure_ascii=False)
        for prev, prev_result in before:
            if (
                prev["name"] == call["name"]
                and _similar(args, json.dumps(prev["args"], sort_keys=True, ensure_ascii=False))
                and _similar(result, prev_result)
            ):
                return True
    return False


# --------------------------------------------------------------------------------------------
# Nodes
# --------------------------------------------------------------------------------------------


async def node_agent(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """One model step; without tools at the step limit or after a detected loop."""
    ctx = runtime.context
    step = state.get("current_step", 0) + 1
    started = time.perf_counter()
    emit(ReviewEvent(type=EventType.NODE_START, clause_id=ctx.clause_id, node="agent"))
    messages = list(state.get("messages", []))
    added: list[dict[str, Any]] = []
    forced: str | None = None
    if _should_stop_for_loop(
        state.get("tool_call_history", []), state.get("tool_result_history", [])
    ):
        forced = "loop_detected"
    elif step >= state.get("max_steps", 5):
        forced = "max_iterations"
    if forced:
        reason = "loop_detected" if forced == "loop_detected" else "round_limit"
        added.append(
            {"role": "user", "content": final_answer_instruction(ctx.language, reason=reason)}
        )

    def on_token(token: str) -> None:
        emit(ReviewEvent(type=EventType.LLM_TOKEN, clause_id=ctx.clause_id, text=token))

    update: dict[str, Any] = {"current_step": step}  # one model call per step
    clear_call_usage()
    try:
        text, calls = await ctx.llm.chat_with_tools(
            messages + added,
            tools=None if forced else ctx.tools,
            temperature=ctx.temperature,
            on_token=on_token if ctx.stream_tokens else None,
        )
    except GraphBubbleUp:
        raise
    except Exception as exc:  # any model failure ends the run; the caller falls back
        # per clause, not a user warning: the report gives each clause's mode and reason
        logger.info("react clause=%s step=%d LLM call failed: %s", ctx.clause_id, step, exc)
        emit(ReviewEvent(type=EventType.NODE_END, clause_id=ctx.clause_id, node="agent"))
        return {
            **update,
            "turns": [_turn(step, started, forced, short(str(exc), 300))],
            "messages": added,
            "stop": True,
            "stop_reason": "llm_error",
            "error": short(str(exc), 300),
            "endpoint_down": isinstance(exc, LLMError) and exc.endpoint_down,
        }
    calls = list(calls or [])  # SPEC-20: a model that calls no tool may say None
    if forced:
        calls = []  # a model that calls tools anyway gets no more rounds
        update.update(stop=True, stop_reason=forced)
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    logger.info(
        "react iteration=%d clause=%s tools_called=%s skill_count=%d elapsed=%.2fs%s",
        step,
        ctx.clause_id,
        [c["function"]["name"] for c in calls],
        len(state.get("skill_context", {})),
        time.perf_counter() - started,
        f" stop={forced}" if forced else "",
    )
    emit(ReviewEvent(type=EventType.NODE_END, clause_id=ctx.clause_id, node="agent"))
    return {**update, "messages": [*added, message], "turns": [_turn(step, started, forced)]}


def _turn(step: int, started: float, forced: str | None, error: str = "") -> dict[str, Any]:
    """One model call as the transcript records it (tokens as the model reported them)."""
    usage = last_call_usage()
    return {
        "step": step,
        "seconds": round(time.perf_counter() - started, 3),
        "prompt_tokens": usage.prompt_tokens if usage else None,
        "completion_tokens": usage.completion_tokens if usage else None,
        "forced": forced or "",
        "error": error,
    }


def should_continue(state: AgentState) -> Literal["tools", "finalize"]:
    """Tools when the last answer called some (and the run was not stopped), else finalize."""
    if state.get("stop"):
        return "finalize"
    messages = state.get("messages", [])
    last = messages[-1] if messages else {}
    return "tools" if last.get("role") == "assistant" and last.get("tool_calls") else "finalize"


async def _execute_tool(
    ctx: AgentContext, call: dict[str, Any], offered: set[str], allowed: bool
) -> tuple[dict[str, Any], bool, Any, str]:
    """(call, ok, data, content for the model) of one tool call."""
    name, call_id, arguments = call["skill_id"], call["id"], call["arguments"]
    emit(
        ReviewEvent(
            type=EventType.TOOL_START,
            clause_id=ctx.clause_id,
            tool=name,
            call_id=call_id,
            arguments=arguments,
        )
    )
    data: Any = None
    if not allowed:
        error = f"too many tool calls in one round (at most {ctx.max_tool_calls_per_step})"
    elif name not in offered:
        error = f"unknown tool '{name}'; available: {', '.join(sorted(offered))}"
    else:
        try:
            result = await ctx.dispatcher.prepare_and_call(
                name, ctx.clause_id, ctx.primary_structure, ctx.state, llm_arguments=arguments
            )
        except GraphBubbleUp:
            raise
        except Exception as exc:  # a dispatcher stand-in may raise; the model hears why
            logger.info("react clause=%s tool %s raised: %s", ctx.clause_id, name, exc)
            error = short(f"{type(exc).__name__}: {exc}", 300)
        else:
            error = "" if result.success else (result.error or "the tool failed")
            data = result.data if result.success else None
    content = (
        _serialize_tool_result(data, ctx.language)
        if not error
        else json.dumps({"error": error}, ensure_ascii=False)
    )
    emit(
        ReviewEvent(
            type=EventType.TOOL_END,
            clause_id=ctx.clause_id,
            tool=name,
            call_id=call_id,
            ok=not error,
            text=short(error or content),
        )
    )
    return call, not error, data, content


async def node_tools(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Run every tool call of the last answer, concurrently; results go back as tool messages."""
    ctx = runtime.context
    emit(ReviewEvent(type=EventType.NODE_START, clause_id=ctx.clause_id, node="tools"))
    last = state["messages"][-1]
    parsed = parse_tool_calls(last.get("tool_calls") or [])
    offered = {t["function"]["name"] for t in ctx.tools}
    outcomes = await asyncio.gather(
        *(
            _execute_tool(ctx, call, offered, i < ctx.max_tool_calls_per_step)
            for i, call in enumerate(parsed)
        )
    )
    step = state.get("current_step", 0)
    context: dict[str, Any] = {}
    for call, ok, data, _ in outcomes:
        if ok:
            context[call["skill_id"]] = data
    emit(ReviewEvent(type=EventType.NODE_END, clause_id=ctx.clause_id, node="tools"))
    return {
        "messages": [
            {"role": "tool", "tool_call_id": call["id"], "content": content}
            for call, _, _, content in outcomes
        ],
        "tool_call_history": [
            {"step": step, "name": call["skill_id"], "args": call["arguments"]}
            for call, _, _, _ in outcomes
        ],
        "tool_result_history": [content for _, _, _, content in outcomes],
        "tools_used": [call["skill_id"] for call, _, _, _ in outcomes],
        "skill_context": context,
    }


async def node_finalize(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """The final answer parsed into risks, and the run's metadata."""
    ctx = runtime.context
    messages = state.get("messages", [])
    last = messages[-1] if messages else {}
    reply = str(last.get("content") or "") if last.get("role") == "assistant" else ""
    stop_reason = state.get("stop_reason") or "final_answer"
    error = state.get("error", "")
    parsed = None if stop_reason == "llm_error" else _parse_risk_list(reply)
    if parsed is None and stop_reason != "llm_error":
        error = error or f"the answer is not a JSON list of risks: {short(reply, 120)!r}"
        if stop_reason == "final_answer":
            stop_reason = "unparseable"
    risks = parsed or []
    used = list(dict.fromkeys(state.get("tools_used", [])))
    info = AgentRunInfo(
        steps_taken=state.get("current_step", 0),
        llm_calls=state.get("current_step", 0),
        tools_used=used,
        stop_reason=stop_reason,
        error=error,
        risks_proposed=len(risks),
    )
    logger.info(
        "react done clause=%s steps=%d tools=%s stop=%s risks=%d",
        ctx.clause_id,
        info.steps_taken,
        used,
        stop_reason,
        len(risks),
    )
    return {
        "final_reply": reply,
        "risks": risks,
        "parsed": parsed is not None,
        "metadata": info,
        "stop_reason": stop_reason,
    }


@cache
def _agent_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    g = StateGraph(AgentState, context_schema=AgentContext)
    g.add_node("agent", node_agent)
    g.add_node("tools", node_tools)
    g.add_node("finalize", node_finalize)
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", should_continue, ["tools", "finalize"])
    g.add_edge("tools", "agent")
    g.add_edge("finalize", END)
    return g.compile(checkpointer=False, name="react_agent")


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


async def run_react_agent(
    llm_client: ChatModel,
    dispatcher: SkillDispatcher,
    messages: list[dict[str, Any]],
    clause_id: str,
    primary_structure: DocumentStructure | None,
    state: SkillState,
    *,
    max_iterations: int = 5,
    temperature: float = 0.1,
    max_tool_calls_per_step: int = 8,
    stream_tokens: bool = True,
    categories: Sequence[str] = (),
) -> AgentOutcome:
    """Run the agent on one clause; never raises for model or tool failures (the outcome's
    `info.stop_reason` says what happened). `categories` limits the tools offered to those
    skill categories (SPEC-21's `category_filter`; empty: every tool)."""
    started = time.perf_counter()
    facts = review_context(state)
    if categories:
        tools = [
            tool
            for category in dict.fromkeys(categories)
            for tool in dispatcher.get_tool_definitions(
                domain_filter=facts.domain_id, category_filter=category
            )
        ]
    else:
        tools = dispatcher.get_tool_definitions(domain_filter=facts.domain_id)
    if not tools:
        logger.info("react clause=%s: no tools available; agent not run", clause_id)
        return AgentOutcome(
            [], {}, list(messages), AgentRunInfo(stop_reason="no_tools"), parsed=False
        )
    ctx = AgentContext(
        llm=llm_client,
        dispatcher=dispatcher,
        clause_id=clause_id,
        primary_structure=primary_structure,
        state=facts,
        tools=tools,
        temperature=temperature,
        language=facts.language or "en",
        max_tool_calls_per_step=max_tool_calls_per_step,
        stream_tokens=stream_tokens,
    )
    steps = max(1, max_iterations)
    final = await _agent_graph().ainvoke(
        {"messages": list(messages), "current_step": 0, "max_steps": steps},
        {
            "recursion_limit": 4 * steps + 10,
            # The agent keeps no checkpoints, but it inherits the review's durability mode, and
            # LangGraph 1.2 then waits, in "sync" mode, for a checkpoint it never writes.
            "configurable": {_DURABILITY_KEY: "exit"},
        },
        context=ctx,
    )
    info: AgentRunInfo = final["metadata"].model_copy(
        update={"elapsed_seconds": round(time.perf_counter() - started, 3)}
    )
    return AgentOutcome(
        risks=final.get("risks", []),
        skill_context=final.get("skill_context", {}),
        messages=final.get("messages", []),
        info=info,
        parsed=bool(final.get("parsed")),
        endpoint_down=bool(final.get("endpoint_down")),
        turns=final.get("turns", []),
        tool_calls=[
            {**call, "result": result}
            for call, result in zip(
                final.get("tool_call_history", []),
                final.get("tool_result_history", []),
                strict=False,
            )
        ],
    )


_DURABILITY_KEY = "__pregel_durability"
"""LangGraph's run-config key of the durability mode (inherited by nested graphs)."""


async def react_agent_loop(
    llm_client: ChatModel,
    dispatcher: SkillDispatcher,
    messages: list[dict[str, Any]],
    clause_id: str,
    primary_structure: DocumentStructure | None,
    state: SkillState,
    *,
    max_iterations: int = 5,
    temperature: float = 0.1,
) -> tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    """SPEC-20: (risks, skill_context, final_messages) of an agent run on one clause."""
    outcome = await run_react_agent(
        llm_client,
        dispatcher,
        messages,
        clause_id,
        primary_structure,
        state,
        max_iterations=max_iterations,
        temperature=temperature,
    )
    return outcome.risks, outcome.skill_context, outcome.messages
