"""Transcripts of the model's work, for audit: what the model was shown, which tools it called
with what and got back, what it answered, how long it took and how many tokens it used.

One JSON line per conversation (a clause's agent run, the review's plan) in the task store
(`<state_dir>/tasks/<id>.transcripts.jsonl`), appended when the conversation ends: outside the
checkpoints, so the review's hot path never carries them, and deleted with the task. Every
line is redacted before it is written (the configured keys and anything shaped like a key).
A review in LLM mode also exports the file as `transcripts.jsonl` beside its outputs; the
client's report never includes it.

Light on purpose (no LangGraph): the `transcript` command starts fast.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from contract_review.config import Settings, get_settings
from contract_review.text import redact_secrets

__all__ = [
    "PLAN",
    "TranscriptLog",
    "configured_secrets",
    "read_transcripts",
    "summary",
    "transcript_path",
]

PLAN = "(plan)"
"""The clause name of the orchestrator's planning conversation."""


def transcript_path(task_id: str, settings: Settings | None = None) -> Path:
    """Where a task's transcripts are kept."""
    settings = settings or get_settings()
    return settings.state_dir / "tasks" / f"{task_id}.transcripts.jsonl"


def configured_secrets(settings: Settings) -> list[str]:
    """Every secret the settings hold (never written into a transcript)."""
    values = [settings.llm_api_key, settings.remote_skills_api_key, settings.api_key]
    values += [settings.api_keys, settings.postgres_url]
    secrets = [v.get_secret_value() for v in values if v is not None]
    return [*secrets, *settings.named_api_keys().values()]


class TranscriptLog:
    """The transcripts of one task (appended from any coroutine of its run)."""

    def __init__(self, task_id: str, settings: Settings) -> None:
        """The log of `task_id` under `settings`' state folder."""
        self.task_id = task_id
        self.path = transcript_path(task_id, settings)
        self._secrets = configured_secrets(settings)
        self._lock = threading.Lock()

    def append(self, entry: dict[str, Any]) -> None:
        """Add one conversation (redacted; the task id is added)."""
        line = json.dumps({"task_id": self.task_id, **entry}, ensure_ascii=False, default=str)
        line = redact_secrets(line, self._secrets)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")


def read_transcripts(
    task_id: str, settings: Settings | None = None, clause: str | None = None
) -> list[dict[str, Any]]:
    """A task's transcripts in the order they ended (those of one clause, when named; a
    line cut short by a crash is skipped)."""
    path = transcript_path(task_id, settings)
    if not path.is_file():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict) and (clause is None or entry.get("clause_id") == clause):
            entries.append(entry)
    return entries


def summary(entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per clause: runs, rounds, tool calls, tokens, seconds, the last stop reason."""
    rows: dict[str, dict[str, Any]] = {}
    for e in entries:
        row = rows.setdefault(
            str(e.get("clause_id")),
            {"clause_id": e.get("clause_id"), "runs": 0, "rounds": 0, "tool_calls": 0},
        )
        row["runs"] += 1
        row["rounds"] += len(e.get("turns") or [])
        row["tool_calls"] += len(e.get("tool_calls") or [])
        tokens = e.get("tokens") or {}
        row["prompt_tokens"] = row.get("prompt_tokens", 0) + int(tokens.get("prompt", 0))
        row["completion_tokens"] = row.get("completion_tokens", 0) + int(
            tokens.get("completion", 0)
        )
        row["seconds"] = round(row.get("seconds", 0.0) + float(e.get("elapsed_seconds", 0)), 3)
        row["stop_reason"] = e.get("stop_reason", "")
    return list(rows.values())
