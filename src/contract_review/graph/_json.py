"""Reading JSON out of a model's answer (which may wrap it in prose or a code fence)."""

from __future__ import annotations

import json
from typing import Any

from contract_review.text import clean_untrusted

__all__ = ["MAX_ANSWER_CHARS", "json_values"]


MAX_ANSWER_CHARS = 200_000
"""Longest model answer read: a clause's findings fit in far less; a longer answer is a runaway
(or an attack on the parser's time) and is taken as no answer."""


def json_values(text: str) -> list[Any]:
    """JSON values found in `text`: the whole text, else each value starting at a '[' or '{'
    (left to right; values nested in one already found are skipped). Model output is untrusted:
    an answer over `MAX_ANSWER_CHARS`, or nested too deep to parse, gives nothing, and every
    string in it is cleaned (`text.clean_untrusted`) — a control character or a lone surrogate
    in an answer must not reach a hash, a checkpoint or a Word file."""
    if len(text) > MAX_ANSWER_CHARS:
        return []
    try:
        return [_cleaned(value) for value in _values(text)]
    except RecursionError:  # nested deeper than any answer: garbage, and no crash
        return []


def _cleaned(value: Any) -> Any:
    if isinstance(value, str):
        return clean_untrusted(value)
    if isinstance(value, list):
        return [_cleaned(v) for v in value]
    if isinstance(value, dict):
        return {clean_untrusted(str(k)): _cleaned(v) for k, v in value.items()}
    return value


def _values(text: str) -> list[Any]:
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
