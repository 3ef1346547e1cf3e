"""LLMClient against a local fake OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from contract_review.config import Settings
from contract_review.errors import ContractReviewError
from contract_review.llm_client import LLMClient, LLMError, TokenUsage
from contract_review.testing import FakeLLM, Hang, HttpError, InvalidJSON, Reply, Step, free_port

T = TypeVar("T")

MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You review contracts."},
    {"role": "user", "content": "Is clause 4 risky?"},
]
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "search_clause",
            "description": "Find a clause.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }
]


def _settings(base_url: str | None, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "llm_base_url": base_url,
        "llm_api_key": "sk-test-secret",
        "llm_model": "test-model",
        "llm_timeout_seconds": 2.0,
        "llm_max_retries": 3,
        "llm_backoff_base_seconds": 0.01,
    }
    values.update(overrides)
    return Settings(**values)


def _run(
    script: list[Step],
    use: Callable[[LLMClient], Awaitable[T]],
    **overrides: Any,
) -> tuple[T, FakeLLM, LLMClient]:
    """Serve `script`, make a client of it, run `use(client)`; the result, server and client."""
    with FakeLLM(script) as fake:
        client = LLMClient.from_settings(_settings(fake.base_url, **overrides))
        assert client is not None

        async def main() -> T:
            async with client:
                return await use(client)

        result = asyncio.run(main())
    return result, fake, client


def test_chat_returns_text() -> None:
    text, fake, _ = _run([Reply(text="Yes, it caps liability.")], lambda c: c.chat(MESSAGES))
    assert text == "Yes, it caps liability."
    assert len(fake.requests) == 1
    assert fake.requests[0]["messages"] == MESSAGES


def test_request_carries_model_temperature_tools_and_key() -> None:
    _, fake, _ = _run(
        [Reply(text="ok")], lambda c: c.chat_with_tools(MESSAGES, TOOLS, temperature=0.3)
    )
    sent = fake.requests[0]
    assert sent["model"] == "test-model"
    assert sent["temperature"] == 0.3
    assert sent["tools"] == TOOLS
    assert sent["messages"] == MESSAGES
    assert fake.headers[0]["authorization"] == "Bearer sk-test-secret"


def test_chat_caps_the_answer_at_the_setting_unless_told() -> None:
    async def use(c: LLMClient) -> None:
        await c.chat(MESSAGES)
        await c.chat(MESSAGES, max_tokens=64)
        await c.chat_with_tools(MESSAGES, TOOLS)

    _, fake, _ = _run(
        [Reply(text="a"), Reply(text="b"), Reply(text="c")], use, llm_max_answer_tokens=300
    )
    assert fake.requests[0]["max_tokens"] == 300  # LLM_MAX_ANSWER_TOKENS
    assert "tools" not in fake.requests[0]
    assert "tool_choice" not in fake.requests[0]
    assert fake.requests[1]["max_tokens"] == 64
    # tools are offered with tool_choice "auto" (llama-cpp-python ignores them otherwise)
    assert fake.requests[2]["tool_choice"] == "auto"
    assert fake.requests[2]["max_tokens"] == 300
    assert fake.requests[0]["temperature"] == 0.1


def test_chat_with_tools_returns_dict_tool_calls() -> None:
    reply = Reply(
        text=None,
        tool_calls=[{"id": "call_a", "name": "search_clause", "arguments": {"query": "indemnity"}}],
    )
    (text, calls), _, _ = _run([reply], lambda c: c.chat_with_tools(MESSAGES, TOOLS))
    assert text == ""
    assert calls == [
        {
            "id": "call_a",
            "type": "function",
            "function": {"name": "search_clause", "arguments": '{"query": "indemnity"}'},
        }
    ]
    assert isinstance(calls[0]["function"]["arguments"], str)
    assert json.loads(calls[0]["function"]["arguments"]) == {"query": "indemnity"}


def test_chat_with_tools_several_calls_in_one_turn() -> None:
    reply = Reply(
        text="Checking both.",
        tool_calls=[
            {"name": "search_clause", "arguments": {"query": "cap"}},
            {"name": "search_clause", "arguments": {"query": "termination"}},
            {"name": "compare", "arguments": "{}"},
        ],
    )
    (text, calls), _, _ = _run([reply], lambda c: c.chat_with_tools(MESSAGES, TOOLS))
    assert text == "Checking both."
    assert [c["function"]["name"] for c in calls] == ["search_clause", "search_clause", "compare"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [
        {"query": "cap"},
        {"query": "termination"},
        {},
    ]
    assert len({c["id"] for c in calls}) == 3
    assert all(c["type"] == "function" for c in calls)


def test_chat_with_tools_no_calls_gives_empty_list() -> None:
    (text, calls), _, _ = _run(
        [Reply(text="No tools needed.")], lambda c: c.chat_with_tools(MESSAGES)
    )
    assert (text, calls) == ("No tools needed.", [])


def test_retries_429_then_500_then_success() -> None:
    script: list[Step] = [HttpError(429), HttpError(500), Reply(text="finally")]
    text, fake, client = _run(script, lambda c: c.chat(MESSAGES))
    assert text == "finally"
    assert len(fake.requests) == 3
    assert client.usage.calls == 1


def test_gives_up_after_max_retries() -> None:
    script: list[Step] = [HttpError(503)] * 5
    with pytest.raises(LLMError, match=r"after 3 attempts.*HTTP 503"):
        _run(script, lambda c: c.chat(MESSAGES), llm_max_retries=2)


def test_no_retry_on_400() -> None:
    script: list[Step] = [HttpError(400, "bad request"), Reply(text="never")]
    with FakeLLM(script) as fake:
        client = LLMClient.from_settings(_settings(fake.base_url))
        assert client is not None

        async def main() -> str:
            async with client:
                return await client.chat(MESSAGES)

        with pytest.raises(LLMError, match="HTTP 400") as info:
            asyncio.run(main())
    assert len(fake.requests) == 1
    assert isinstance(info.value, ContractReviewError)
    message = str(info.value)
    assert "\n" not in message
    assert "sk-test-secret" not in message


def test_timeout_is_retried_then_llm_error() -> None:
    script: list[Step] = [Hang(3), Hang(3), Reply(text="too late")]
    with FakeLLM(script) as fake:
        client = LLMClient.from_settings(
            _settings(fake.base_url, llm_timeout_seconds=0.2, llm_max_retries=1)
        )
        assert client is not None

        async def main() -> str:
            async with client:
                return await client.chat(MESSAGES)

        start = time.monotonic()
        with pytest.raises(LLMError, match="timed out"):
            asyncio.run(main())
        elapsed = time.monotonic() - start
    assert len(fake.requests) == 2
    assert elapsed < 2.5


def test_timeout_then_success() -> None:
    text, fake, _ = _run(
        [Hang(3), Reply(text="second try")], lambda c: c.chat(MESSAGES), llm_timeout_seconds=0.2
    )
    assert text == "second try"
    assert len(fake.requests) == 2


def test_connection_refused_is_llm_error() -> None:
    client = LLMClient(
        base_url=f"http://127.0.0.1:{free_port()}/v1",
        timeout_seconds=1.0,
        max_retries=1,
        backoff_base_seconds=0.01,
    )

    async def main() -> str:
        async with client:
            return await client.chat(MESSAGES)

    with pytest.raises(LLMError, match="cannot connect"):
        asyncio.run(main())


def test_invalid_json_body_is_llm_error() -> None:
    with pytest.raises(LLMError, match="invalid response"):
        _run([InvalidJSON(), Reply(text="unused")], lambda c: c.chat(MESSAGES))


def test_stream_yields_tokens_in_order() -> None:
    async def use(c: LLMClient) -> list[str]:
        return [token async for token in c.stream_chat(MESSAGES, temperature=0.2)]

    reply = Reply(text="The cap is low.", chunks=["The", " cap", " is", " low", "."])
    tokens, fake, client = _run([reply], use)
    assert tokens == ["The", " cap", " is", " low", "."]
    assert fake.requests[0]["stream"] is True
    assert fake.requests[0]["temperature"] == 0.2
    assert client.usage == TokenUsage(prompt_tokens=10, completion_tokens=5, calls=1)


def test_stream_retries_opening() -> None:
    async def use(c: LLMClient) -> str:
        return "".join([token async for token in c.stream_chat(MESSAGES)])

    text, fake, _ = _run([HttpError(502), Reply(text="after a retry")], use)
    assert text == "after a retry"
    assert len(fake.requests) == 2


def test_usage_counted_across_calls() -> None:
    async def use(c: LLMClient) -> None:
        await c.chat(MESSAGES)
        await c.chat_with_tools(MESSAGES, TOOLS)

    script: list[Step] = [
        Reply(text="a", prompt_tokens=100, completion_tokens=20),
        Reply(text="b", prompt_tokens=50, completion_tokens=7),
    ]
    _, _, client = _run(script, use)
    assert client.usage.prompt_tokens == 150
    assert client.usage.completion_tokens == 27
    assert client.usage.calls == 2
    assert client.usage.total_tokens == 177


def test_from_settings_none_without_base_url() -> None:
    assert LLMClient.from_settings(_settings(None)) is None


def test_settings_read_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("LLM_MODEL", "qwen")
    monkeypatch.setenv("LLM_TIMEOUT_SECONDS", "5")
    monkeypatch.setenv("LLM_MAX_RETRIES", "1")
    settings = Settings()
    assert settings.llm_base_url == "http://127.0.0.1:1/v1"
    assert settings.llm_model == "qwen"
    assert settings.llm_timeout_seconds == 5.0
    assert settings.llm_max_retries == 1
    client = LLMClient.from_settings(settings)
    assert client is not None
    assert client.model == "qwen"
    asyncio.run(client.aclose())


def test_chat_with_tools_streams_tokens_and_assembles_tool_calls() -> None:
    tokens: list[str] = []
    reply = Reply(
        text="Checking the clause first.",
        tool_calls=[
            {"id": "call_a", "name": "search_clause", "arguments": {"query": "cap"}},
            {"id": "call_b", "name": "search_clause", "arguments": {"query": "indemnity"}},
        ],
        prompt_tokens=21,
        completion_tokens=9,
    )
    (text, calls), fake, client = _run(
        [reply], lambda c: c.chat_with_tools(MESSAGES, tools=TOOLS, on_token=tokens.append)
    )
    assert fake.requests[0]["stream"] is True
    assert fake.requests[0]["tools"] == TOOLS
    assert text == "Checking the clause first."
    assert "".join(tokens) == text
    assert len(tokens) > 1
    assert [c["id"] for c in calls] == ["call_a", "call_b"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [
        {"query": "cap"},
        {"query": "indemnity"},
    ]
    assert all(c["type"] == "function" and c["function"]["name"] == "search_clause" for c in calls)
    assert (client.usage.calls, client.usage.prompt_tokens, client.usage.completion_tokens) == (
        1,
        21,
        9,
    )


def test_streamed_call_is_retried_as_a_whole() -> None:
    tokens: list[str] = []
    (text, calls), fake, _ = _run(
        [HttpError(502), Reply(text="[]")],
        lambda c: c.chat_with_tools(MESSAGES, tools=TOOLS, on_token=tokens.append),
    )
    assert (text, calls) == ("[]", [])
    assert len(fake.requests) == 2


@pytest.mark.parametrize(
    ("step", "down"),
    [(HttpError(401), True), (HttpError(404), True), (HttpError(500), False), (Hang(3), False)],
    ids=["401", "404", "500", "timeout"],
)
def test_errors_say_whether_the_endpoint_is_down(step: Step, down: bool) -> None:
    with pytest.raises(LLMError) as info:
        _run([step, step], lambda c: c.chat(MESSAGES), llm_max_retries=1, llm_timeout_seconds=0.3)
    assert info.value.endpoint_down is down


def test_connection_refused_means_endpoint_down() -> None:
    client = LLMClient(base_url=f"http://127.0.0.1:{free_port()}/v1", max_retries=0)

    async def main() -> str:
        async with client:
            return await client.chat(MESSAGES)

    with pytest.raises(LLMError) as info:
        asyncio.run(main())
    assert info.value.endpoint_down is True
