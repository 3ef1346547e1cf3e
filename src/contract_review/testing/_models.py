"""In-process chat models for tests (in the spirit of pydantic-ai's `FunctionModel`).

They implement `contract_review.llm_client.ChatModel`, so anything that takes an `LLMClient`
takes them: no HTTP, no endpoint, answers computed by a function or read from a script.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from contract_review.errors import LLMError
from contract_review.models import TokenUsage
from contract_review.types import TokenCallback, record_call_usage

from ._wire import wire_tool_calls, words

__all__ = ["CallInfo", "FunctionModel", "ModelTurn", "ScriptedModel", "TurnFunction"]


@dataclass
class ModelTurn:
    """One answer of a model: text and/or tool calls (`{"name", "arguments", "id"?}`)."""

    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class CallInfo:
    """What a turn function is told besides the messages."""

    tools: list[dict[str, Any]]
    """Tool definitions offered with this call ([] when called without tools)."""
    temperature: float
    index: int
    """0-based number of this call on the model."""


TurnFunction = Callable[
    [list[dict[str, Any]], CallInfo], "ModelTurn | str | Awaitable[ModelTurn | str]"
]
"""(messages, info) → the model's answer (a plain string is a text answer). Raise `LLMError`
to act as a failing endpoint."""


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class FunctionModel:
    """A chat model whose every answer comes from `function`.

    `latency` seconds pass before each answer (an `asyncio.sleep`, so concurrent callers
    overlap as they would against a real endpoint). Calls are recorded in `calls`.
    """

    def __init__(self, function: TurnFunction, *, latency: float = 0.0) -> None:
        """A model answering with `function`."""
        self.function = function
        self.latency = latency
        self.usage = TokenUsage()
        self.calls: list[tuple[list[dict[str, Any]], CallInfo]] = []

    async def _turn(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, temperature: float
    ) -> ModelTurn:
        info = CallInfo(tools=list(tools or []), temperature=temperature, index=len(self.calls))
        snapshot = json.loads(json.dumps(messages))  # the caller may mutate its list later
        self.calls.append((snapshot, info))
        if self.latency:
            await asyncio.sleep(self.latency)
        answer = self.function(snapshot, info)
        if inspect.isawaitable(answer):
            answer = await answer
        turn = ModelTurn(text=answer) if isinstance(answer, str) else answer
        prompt = _estimate_tokens(json.dumps(snapshot, ensure_ascii=False))
        completion = _estimate_tokens(turn.text + json.dumps(turn.tool_calls, ensure_ascii=False))
        self.usage.calls += 1
        self.usage.prompt_tokens += prompt
        self.usage.completion_tokens += completion
        record_call_usage(prompt, completion)
        return turn

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float = 0.1,
        max_tokens: int | None = None,
    ) -> str:
        """The text of the function's answer."""
        return (await self._turn(messages, None, temperature)).text

    async def chat_with_tools(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float = 0.1,
        *,
        on_token: TokenCallback | None = None,
    ) -> tuple[str, list[dict[str, Any]]]:
        """The function's answer, tool calls in OpenAI dict form; `on_token` gets its words."""
        turn = await self._turn(messages, tools, temperature)
        if on_token is not None and turn.text:
            for word in words(turn.text):
                on_token(word)
        calls = wire_tool_calls(turn.tool_calls, f"call_{len(self.calls)}_")
        return turn.text, calls


class ScriptedModel(FunctionModel):
    """A chat model answering from a script, in order: `ModelTurn`s, strings (text answers)
    or exceptions (raised). A call after the script's end raises `LLMError`."""

    def __init__(
        self, script: list[ModelTurn | str | BaseException], *, latency: float = 0.0
    ) -> None:
        """A model that plays `script`."""
        self.script = list(script)
        super().__init__(self._next, latency=latency)

    def _next(self, messages: list[dict[str, Any]], info: CallInfo) -> ModelTurn | str:
        if not self.script:
            raise LLMError("scripted model has no more turns")
        step = self.script.pop(0)
        if isinstance(step, BaseException):
            raise step
        return step
