"""A stand-in reviewer: a deterministic, plausible ReAct agent for end-to-end tests and the
LLM benchmark. It never runs in a real review.

Round 1 calls the clause tools it is offered (context and financial terms, together); round 2
answers with one medium risk quoting the clause's first full sentence verbatim. So a review
against it makes exactly two model calls per clause the plan gives the model, like a
well-behaved model. Asked for the review's plan (SPEC-21), it keeps the depth the priorities
suggest for each clause, in the order given: one call per review.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ._endpoint import Reply
from ._models import CallInfo, ModelTurn

__all__ = ["clause_text_of", "stand_in_responder", "stand_in_reviewer"]

_FIRST_ROUND_TOOLS = ("get_clause_context", "extract_financial_terms")
_CLAUSE = re.compile(r"<<<CLAUSE (\w+) START>>>\n?(.*?)\n?<<<CLAUSE \1 END>>>", re.DOTALL)
_SENTENCE = re.compile(r"[^\n.;。；]{20,}[.;。；]?")


def clause_text_of(messages: list[dict[str, Any]]) -> str:
    """The clause text between the prompt's CLAUSE delimiters ('' when there is none)."""
    for message in messages:
        if message.get("role") == "user":
            found = _CLAUSE.search(str(message.get("content") or ""))
            if found:
                return found.group(2)
    return ""


def _plan_rows(messages: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The clause rows of a planning request (None for any other request)."""
    user = next((m for m in messages if m.get("role") == "user"), None)
    content = str(user.get("content") or "") if user else ""
    if not content.startswith(("Clauses (one JSON object per line", "条款（每行一个 JSON")):
        return None
    rows = []
    for line in content.splitlines()[1:]:
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def stand_in_reviewer(messages: list[dict[str, Any]], info: CallInfo) -> ModelTurn:
    """The stand-in's answer to one agent turn (usable as a `FunctionModel` function)."""
    plan = _plan_rows(messages) if not info.tools else None
    if plan is not None:
        entries = [
            {"key": r.get("key"), "depth": r.get("suggested", "standard"), "reason": "suggested"}
            for r in plan
        ]
        return ModelTurn(text=json.dumps(entries, ensure_ascii=False))
    offered = {t["function"]["name"] for t in info.tools}
    called = any(m.get("role") == "tool" for m in messages)
    wanted = [t for t in _FIRST_ROUND_TOOLS if t in offered]
    if not called and wanted:
        return ModelTurn(tool_calls=[{"name": t, "arguments": {}} for t in wanted])
    text = clause_text_of(messages)
    lines = text.split("\n", 1)
    body = lines[1] if len(lines) > 1 else text
    sentence = _SENTENCE.search(body) or _SENTENCE.search(text)
    if sentence is None:
        return ModelTurn(text="[]")
    quote = sentence.group().strip()[:160].strip()
    risk = {
        "risk_level": "medium",
        "risk_type": "review point",
        "description": "The obligation in this sentence should be checked against our position.",
        "reason": "Stand-in reviewer finding.",
        "analysis": "Produced by the stand-in reviewer used in tests and benchmarks.",
        "original_text": quote,
    }
    return ModelTurn(text=json.dumps([risk], ensure_ascii=False))


def stand_in_responder(body: dict[str, Any]) -> Reply:
    """The stand-in's answer to one chat-completions request (a `FakeLLM` responder)."""
    messages = list(body.get("messages") or [])
    info = CallInfo(tools=list(body.get("tools") or []), temperature=0.0, index=0)
    turn = stand_in_reviewer(messages, info)
    prompt_tokens = max(1, len(json.dumps(messages, ensure_ascii=False)) // 4)
    return Reply(
        text=turn.text or None,
        tool_calls=turn.tool_calls,
        prompt_tokens=prompt_tokens,
        completion_tokens=max(1, len(turn.text) // 4 + 10 * len(turn.tool_calls)),
    )
