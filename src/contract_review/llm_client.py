"""Async client of an OpenAI-compatible chat-completions endpoint.

`LLMClient` wraps `openai.AsyncOpenAI` with the SDK's own retries switched off: it retries rate
limits (429), server errors (5xx), timeouts and lost connections itself, with exponential backoff
and jitter, up to `Settings.llm_max_retries` times. Every failure reaches callers as `LLMError`
with a one-line message that never carries the API key. Token usage is counted per client.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from types import TracebackType
from typing import Any, TypeVar

import openai
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessage
from openai.types.completion_usage import CompletionUsage

from contract_review.config import Settings
from contract_review.errors import LLMError
from contract_review.models import TokenUsage
from contract_review.text import redact_secrets
from contract_review.text.matching import TAG_CHARACTERS
from contract_review.types import ChatModel, TokenCallback, record_call_usage

__all__ = ["ChatModel", "LLMClient", "LLMError", "TokenCallback", "TokenUsage"]

_T = TypeVar("_T")

# Local OpenAI-compatible servers often need no key, but the SDK insists on one.
_PLACEHOLDER_API_KEY = "not-needed"
_MAX_BACKOFF_SECONDS = 30.0
_MAX_DETAIL_CHARS = 200


def _endpoint_down(exc: BaseException) -> bool:
    """Whether a failure means the endpoint is unusable for this review."""
    if isinstance(exc, openai.APITimeoutError):
        return False  # slow, not gone
    if isinstance(exc, openai.APIConnectionError):
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code in (401, 403, 404)


def _is_retryable(exc: BaseException) -> bool:
    """Whether a failed request is worth sending again (429, 5xx, timeout, connection)."""
    if isinstance(exc, openai.RateLimitError | openai.APIConnectionError):
        return True  # APITimeoutError is an APIConnectionError
    return isinstance(exc, openai.APIStatusError) and exc.status_code >= 500


def _one_line(text: str) -> str:
    """`text` collapsed to one line of bounded length."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _MAX_DETAIL_CHARS else flat[: _MAX_DETAIL_CHARS - 1] + "…"


def _describe(exc: BaseException, secrets: Sequence[str] = ()) -> str:
    """A short, secret-free description of a failed request (the endpoint's own words with
    the configured key and anything shaped like a secret redacted)."""
    return redact_secrets(_describe_raw(exc), secrets)


def _describe_raw(exc: BaseException) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "request timed out"
    if isinstance(exc, openai.APIConnectionError):
        return "cannot connect to the LLM endpoint"
    if isinstance(exc, openai.APIStatusError):
        detail = exc.message if isinstance(exc.message, str) else ""
        detail = re.sub(r"^Error code: \d+ - ", "", detail)  # the SDK repeats the status
        return (
            _one_line(f"HTTP {exc.status_code}: {detail}") if detail else f"HTTP {exc.status_code}"
        )
    if isinstance(exc, ValueError):
        return "the LLM endpoint returned an invalid response body"
    return _one_line(f"{type(exc).__name__}: {exc}")


def _unhidden(message: dict[str, Any]) -> dict[str, Any]:
    """A message without Unicode tag characters: invisible to a person, read by a model, they
    can carry instructions from a contract the lawyer never sees (the review reports them)."""
    content = message.get("content")
    if isinstance(content, str) and TAG_CHARACTERS.search(content):
        return {**message, "content": TAG_CHARACTERS.sub("", content)}
    return message


class LLMClient:
    """Chat with an OpenAI-compatible endpoint, with our own retries and token counting.

    Use it as an async context manager (or call `aclose()`) so the HTTP connections are closed.
    """

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None = None,
        model: str = "gpt-4o-mini",
        timeout_seconds: float = 60.0,
        max_retries: int = 3,
        backoff_base_seconds: float = 0.5,
        max_answer_tokens: int | None = None,
    ) -> None:
        """Make a client of the endpoint at `base_url` (e.g. `http://host:8000/v1`)."""
        self.model = model
        self.max_answer_tokens = max_answer_tokens
        """Longest answer asked for when a call sets none (a small local model that never
        stops would hold its clause until the timeout)."""
        self.max_retries = max(0, max_retries)
        self.backoff_base_seconds = max(0.0, backoff_base_seconds)
        self.usage = TokenUsage()
        self.on_usage: Callable[[TokenUsage], None] | None = None
        """Called with `usage` after every call is counted (a task saves it there, so a
        killed run's calls still count)."""
        self._secrets = (api_key,) if api_key else ()
        self._client = AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or _PLACEHOLDER_API_KEY,
            timeout=timeout_seconds,
            max_retries=0,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> LLMClient | None:
        """A client configured from `settings`, or None when no `LLM_BASE_URL` is set."""
        if not settings.llm_base_url:
            return None
        return cls(
            base_url=settings.llm_base_url,
            api_key=settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
            model=settings.llm_model,
            timeout_seconds=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
            backoff_base_seconds=settings.llm_backoff_base_seconds,
            max_answer_tokens=settings.llm_max_answer_tokens,
        )

    async def aclose(self) -> None:
        """Close the HTTP connections of this client."""
        await self._client.close()

    async def __aenter__(self) -> LLMClient:
        """Enter: the client itself."""
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Exit: close the HTTP connections."""
        await self.aclose()

    # --- public calls ---

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float = 0.1,
        max_tokens: int | None = None,
    ) -> str:
        """The assistant's text answer to `messages` ("" when it gave none)."""
        completion = await self._complete(messages, temperature=temperature, max_tokens=max_tokens)
        return self._first_message(completion).content or ""

    async def chat_with_tools(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float = 0.1,
        *,
        on_token: TokenCallback | None = None,
    ) -> tuple[str, list[dict[str, Any]]]:
        """The assistant's text and tool calls for `messages`, offering `tools`.

        Tool calls come in OpenAI dict form:
        `[{"id": ..., "type": "function", "function": {"name": ..., "arguments": "<json>"}}]`,
        an empty list when the model called none. With `on_token` the answer is streamed and
        each text delta is passed to it as it arrives (a retried request streams again).
        """
        if on_token is not None:
            return await self._complete_streamed(
                messages, temperature=temperature, tools=tools, on_token=on_token
            )
        completion = await self._complete(messages, temperature=temperature, tools=tools)
        message = self._first_message(completion)
        calls: list[dict[str, Any]] = []
        for call in message.tool_calls or []:
            if call.type != "function":
                continue  # custom (free-form) tools are not used by this engine
            calls.append(
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.function.name,
                        "arguments": call.function.arguments or "{}",
                    },
                }
            )
        return message.content or "", calls

    async def stream_chat(
        self, messages: list[dict[str, Any]], *, temperature: float = 0.1
    ) -> AsyncIterator[str]:
        """Yield the assistant's answer to `messages` as text deltas, in order.

        Opening the stream is retried like any request; a failure after the first delta raises
        `LLMError` without retrying (the caller has already seen part of the answer).
        """

        body = self._body(messages, temperature=temperature, stream=True)

        async def open_stream() -> openai.AsyncStream[ChatCompletionChunk]:
            return await self._client.post(
                "/chat/completions",
                cast_to=ChatCompletion,
                body=body,
                stream=True,
                stream_cls=openai.AsyncStream[ChatCompletionChunk],
            )

        stream = await self._with_retries(open_stream)
        counted = False
        try:
            async for chunk in stream:
                if chunk.usage is not None:
                    self._count(chunk.usage)
                    counted = True
                for choice in chunk.choices:
                    if choice.delta.content:
                        yield choice.delta.content
        except (openai.OpenAIError, ValueError) as exc:
            raise LLMError(f"LLM stream failed: {_describe(exc, self._secrets)}") from exc
        finally:
            await stream.close()
            if not counted:
                self._count(None)

    # --- internals ---

    def _body(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float,
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int | None = None,
        stream: bool = False,
    ) -> dict[str, Any]:
        """The JSON body of a chat-completions request.

        Requests go through the SDK's generic `post` (its documented way to send any body): our
        messages and tool schemas are plain JSON already, and `chat.completions.create` would
        walk them through its typed-parameter transform first — several ms of CPU per call,
        on the critical path when many clauses wait on the model (SPEC-35).
        """
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [_unhidden(m) for m in messages],
            "temperature": temperature,
        }
        if tools:
            body["tools"] = tools
            # said explicitly: some OpenAI-compatible servers (llama-cpp-python's
            # function-calling formats) ignore the tools without it
            body["tool_choice"] = "auto"
        max_tokens = max_tokens if max_tokens is not None else self.max_answer_tokens
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    async def _complete(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float,
        max_tokens: int | None = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> ChatCompletion:
        """One non-streaming completion, retried on transient failures, usage counted."""

        body = self._body(messages, temperature=temperature, tools=tools, max_tokens=max_tokens)

        async def call() -> ChatCompletion:
            return await self._client.post("/chat/completions", cast_to=ChatCompletion, body=body)

        completion = await self._with_retries(call)
        if not isinstance(completion, ChatCompletion):
            raise LLMError("the LLM endpoint returned an invalid response body")
        self._count(completion.usage)
        return completion

    async def _complete_streamed(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float,
        tools: list[dict[str, Any]] | None,
        on_token: TokenCallback,
    ) -> tuple[str, list[dict[str, Any]]]:
        """(text, tool calls) of one streamed completion; retried as a whole on transient
        failures.

        Deltas are joined here rather than by the SDK's `ChatCompletionStreamState`, which
        re-validates the whole message on every chunk (about 1 ms a chunk, so seconds of CPU
        for a long answer when many clauses stream at once).
        """

        body = self._body(messages, temperature=temperature, tools=tools, stream=True)

        async def call() -> tuple[str, list[dict[str, Any]]]:
            stream = await self._client.post(
                "/chat/completions",
                cast_to=ChatCompletion,
                body=body,
                stream=True,
                stream_cls=openai.AsyncStream[ChatCompletionChunk],
            )
            text: list[str] = []
            calls: dict[int, dict[str, Any]] = {}
            usage: CompletionUsage | None = None
            seen = False
            try:
                async for chunk in stream:
                    seen = True
                    usage = chunk.usage or usage
                    if not chunk.choices:
                        continue
                    delta = chunk.choices[0].delta
                    if delta.content:
                        text.append(delta.content)
                        on_token(delta.content)
                    for tc in delta.tool_calls or []:
                        call = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": []})
                        call["id"] = tc.id or call["id"]
                        if tc.function is not None:
                            call["name"] += tc.function.name or ""
                            call["arguments"].append(tc.function.arguments or "")
            finally:
                await stream.close()
            if not seen:
                raise LLMError("the LLM endpoint returned an empty stream")
            self._count(usage)
            return "".join(text), [
                {
                    "id": c["id"] or f"call_{i}",
                    "type": "function",
                    "function": {"name": c["name"], "arguments": "".join(c["arguments"]) or "{}"},
                }
                for i, c in sorted(calls.items())
                if c["name"]
            ]

        return await self._with_retries(call)

    @staticmethod
    def _first_message(completion: ChatCompletion) -> ChatCompletionMessage:
        """The message of the first choice; `LLMError` when the answer holds none."""
        if not completion.choices:
            raise LLMError("the LLM endpoint returned no choices")
        return completion.choices[0].message

    def _count(self, usage: CompletionUsage | None) -> None:
        """Add one call and its tokens (when the endpoint said) to `self.usage`."""
        self.usage.calls += 1
        if usage is not None:
            self.usage.prompt_tokens += usage.prompt_tokens or 0
            self.usage.completion_tokens += usage.completion_tokens or 0
            record_call_usage(usage.prompt_tokens or 0, usage.completion_tokens or 0)
        if self.on_usage is not None:
            self.on_usage(self.usage)

    def _backoff(self, retry: int) -> float:
        """Delay before retry number `retry` (0-based): exponential, with full jitter on top half."""
        ceiling = min(_MAX_BACKOFF_SECONDS, self.backoff_base_seconds * (2.0**retry))
        return ceiling * random.uniform(0.5, 1.0)

    async def _with_retries(self, op: Callable[[], Awaitable[_T]]) -> _T:
        """Run `op`, retrying transient failures; any failure left is raised as `LLMError`."""
        attempt = 0
        while True:
            attempt += 1
            try:
                return await op()
            except (openai.OpenAIError, ValueError) as exc:
                if not _is_retryable(exc) or attempt > self.max_retries:
                    tries = f" after {attempt} attempts" if attempt > 1 else ""
                    raise LLMError(
                        f"LLM request failed{tries}: {_describe(exc, self._secrets)}",
                        endpoint_down=_endpoint_down(exc),
                    ) from exc
                await asyncio.sleep(self._backoff(attempt - 1))
