"""Live events of a review, for the CLI's `--verbose` view now and a web client later.

Nodes emit them through LangGraph's custom stream (`get_stream_writer`), so a caller that
streams the graph with `stream_mode="custom"` and `subgraphs=True` receives them in order;
`contract_review.review` turns them into an `on_event` callback. Outside a graph run (a
direct `react_agent_loop` call, a unit test) `emit` does nothing.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

__all__ = ["EventType", "ReviewEvent", "emit", "short"]

logger = logging.getLogger(__name__)

_SHORT = 160


class EventType(StrEnum):
    """Kinds of review events."""

    NODE_START = "node_start"
    NODE_END = "node_end"
    LLM_TOKEN = "llm_token"
    TOOL_START = "tool_start"
    TOOL_END = "tool_end"
    CLAUSE_DONE = "clause_done"
    DIFF_PROPOSED = "diff_proposed"
    INTERRUPT = "interrupt"
    WARNING = "warning"
    PLAN = "plan"
    REPLAN = "replan"


class ReviewEvent(BaseModel):
    """One thing that happened during a review; fields not relevant to the type stay None."""

    type: EventType = Field(description="What happened.")
    clause_id: str | None = Field(None, description="Clause concerned (None for review-level).")
    node: str | None = Field(None, description="Graph node (node_start / node_end).")
    tool: str | None = Field(None, description="Tool (skill) name (tool_start / tool_end).")
    call_id: str | None = Field(None, description="Tool call id given by the model.")
    arguments: dict[str, Any] | None = Field(None, description="Tool call arguments.")
    ok: bool | None = Field(None, description="Whether the tool call succeeded (tool_end).")
    text: str | None = Field(
        None,
        description="The token (llm_token), a short tool result (tool_end), or the message "
        "(warning).",
    )
    data: dict[str, Any] = Field(
        default_factory=dict,
        description="Details: clause_done {mode, risks, diffs, reason, depth}; diff_proposed: "
        "the diff; interrupt {diffs}; plan {source, counts, note}; replan {trigger, risk, "
        "raised}.",
    )


def short(text: str, limit: int = _SHORT) -> str:
    """`text` on one line, cut to `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def emit(event: ReviewEvent) -> None:
    """Send `event` to whoever streams the running graph (no-op outside a graph run)."""
    try:
        from langgraph.config import get_stream_writer  # not at import: the CLI starts faster

        writer = get_stream_writer()
    except RuntimeError:
        return  # not inside a graph run
    writer(event)
