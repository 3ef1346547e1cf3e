"""Interfaces shared across the engine (no heavy imports here: the CLI loads this eagerly)."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, Protocol

from contract_review.models import TokenUsage

__all__ = [
    "ChatModel",
    "TokenCallback",
    "clear_call_usage",
    "last_call_usage",
    "record_call_usage",
]

_CALL_USAGE: ContextVar[TokenUsage | None] = ContextVar("call_usage", default=None)


def record_call_usage(prompt_tokens: int, completion_tokens: int) -> None:
    """What a chat model's call just used, for its caller (per asyncio task: concurrent
    clauses each read their own call's)."""
    _CALL_USAGE.set(
        TokenUsage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, calls=1)
    )


def clear_call_usage() -> None:
    """Forget the last call's usage (before a call whose model may not report any)."""
    _CALL_USAGE.set(None)


def last_call_usage() -> TokenUsage | None:
    """The usage of the last model call made in this task (None when the model said none)."""
    return _CALL_USAGE.get()


TokenCallback = Callable[[str], None]
"""Called with each text delta of a streamed answer, in order."""


class ChatModel(Protocol):
    """What the engine needs of a chat model: `LLMClient`, or a test double from
    `contract_review.testing`."""

    usage: TokenUsage
    """Calls and tokens counted so far."""

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float = 0.1,
        max_tokens: int | None = None,
    ) -> str:
        """The assistant's text answer to `messages`."""
        ...

    async def chat_with_tools(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float = 0.1,
        *,
        on_token: TokenCallback | None = None,
    ) -> tuple[str, list[dict[str, Any]] | None]:
        """(text, tool calls in OpenAI dict form: None or [] when it calls none) for
        `messages`; `on_token` sees the text as it streams."""
        ...
