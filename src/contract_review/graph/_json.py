"""Reading JSON out of a model's answer (which may wrap it in prose or a code fence)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["json_values"]


def json_values(text: str) -> list[Any]:
    """JSON values found in `text`: the whole text, else each value starting at a '[' or '{'
    (left to right; values nested in one already found are skipped)."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.strip("`")
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
    try:
        return [json.loads(stripped)]
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    found: list[Any] = []
    i = 0
    while i < len(stripped):
        if stripped[i] in "[{":
            try:
                value, end = decoder.raw_decode(stripped, i)
            except ValueError:
                i += 1
                continue
            found.append(value)
            i = end
        else:
            i += 1
    return found
