"""The OpenAI wire forms both test models produce (tool calls, streamed words)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = ["wire_tool_calls", "words"]


def wire_tool_calls(calls: Sequence[dict[str, Any]], id_prefix: str) -> list[dict[str, Any]]:
    """`{"name", "arguments": dict | str, "id"?}` items in OpenAI wire form; missing ids are
    `<id_prefix><index>`."""
    out: list[dict[str, Any]] = []
    for i, call in enumerate(calls):
        arguments = call.get("arguments", {})
        out.append(
            {
                "id": call.get("id", f"{id_prefix}{i}"),
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": arguments
                    if isinstance(arguments, str)
                    else json.dumps(arguments, ensure_ascii=False),
                },
            }
        )
    return out


def words(text: str) -> list[str]:
    """`text` split into words, each keeping its trailing space (joins back to `text`)."""
    parts = text.split(" ")
    return [p + " " for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
