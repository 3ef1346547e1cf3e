"""The web app's event log: every event of a review, numbered, kept for the task's lifetime.

Reviews run in worker processes (`jobs.review_job` writes this log, the web app reads it);
their events go into one SQLite table in the state folder (WAL mode: writers in several
processes, readers never blocked). The SSE endpoint reads what is new since the last id it sent, so a client that reconnects with `Last-Event-ID` gets every
event it missed, and a server restart loses none.

Event types (the SSE `event:` field) and their `data` (JSON):

| type | data |
| --- | --- |
| `queued` | `{"position": n}` — waiting for a worker |
| `started` | `{}` — a worker took the review (again, after a restart or a resume) |
| `progress` | `{"done": n, "total": m, "clause": "4.2"}` |
| `node` | `{"node": "collect", "phase": "start" \\| "end", "clause": …}` |
| `tool` | `{"tool": "extract_financial_terms", "phase": "start" \\| "end", "clause": …}` |
| `clause_done` | `{"clause": "4.2", "risks": n}` |
| `diff_proposed` | `{"clause": "4.2", "diff_id": …}` |
| `warning` | `{"message": …}` |
| `plan` | `{"source": "model" \\| "playbook" \\| "uniform", "counts": {"deep": n, …}, "note": …}` |
| `replan` | `{"clause": "14.2", "trigger": …, "risk": …, "raised": ["17.1", …]}` |
| `approval_required` | `{"pending": [diff, …]}` — each diff with its clause and risk |
| `decision` | `{"diff_id": …, "decision": "approve" \\| "reject", "reviewer": …, "pending": n}` |
| `review_complete` | `{"outputs": ["report.html", …], "counts": {…}}` |
| `review_failed` | `{"message": …}` |
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["EVENT_TYPES", "EventLog", "StoredEvent"]

EVENT_TYPES = (
    "queued",
    "started",
    "progress",
    "node",
    "tool",
    "clause_done",
    "diff_proposed",
    "warning",
    "plan",
    "replan",
    "approval_required",
    "decision",
    "review_complete",
    "review_failed",
)
"""Every event type the web app sends (see the module docstring)."""


@dataclass(frozen=True)
class StoredEvent:
    """One event as stored: its id (increasing), task, type and data."""

    id: int
    task_id: str
    type: str
    data: dict[str, Any]


class EventLog:
    """The events of every web task, in `<state_dir>/events.sqlite`."""

    def __init__(self, path: Path) -> None:
        """The log at `path` (created with its table when missing)."""
        self.path = path
        self._local = threading.local()
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, "
                "task_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL)"
            )
            db.execute("CREATE INDEX IF NOT EXISTS events_task ON events (task_id, id)")

    def _connect(self) -> sqlite3.Connection:
        # one connection per thread: sqlite3 connections are not shared across threads
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            db.execute("PRAGMA busy_timeout=30000")
            self._local.db = db
        return db

    def append(self, task_id: str, type_: str, data: dict[str, Any] | None = None) -> int:
        """Store one event; returns its id."""
        if type_ not in EVENT_TYPES:
            raise ValueError(f"unknown event type {type_!r}")
        payload = json.dumps(data or {}, ensure_ascii=False, default=str)
        cursor = self._connect().execute(
            "INSERT INTO events (task_id, type, data) VALUES (?, ?, ?)",
            (task_id, type_, payload),
        )
        return int(cursor.lastrowid or 0)

    def since(self, task_id: str, after: int = 0, limit: int = 500) -> list[StoredEvent]:
        """The task's events with an id above `after`, oldest first (at most `limit`)."""
        rows = self._connect().execute(
            "SELECT id, task_id, type, data FROM events WHERE task_id = ? AND id > ? "
            "ORDER BY id LIMIT ?",
            (task_id, after, limit),
        )
        return [StoredEvent(r[0], r[1], r[2], json.loads(r[3])) for r in rows]

    def latest(self, task_id: str) -> StoredEvent | None:
        """The task's last event, if any."""
        row = (
            self._connect()
            .execute(
                "SELECT id, task_id, type, data FROM events WHERE task_id = ? "
                "ORDER BY id DESC LIMIT 1",
                (task_id,),
            )
            .fetchone()
        )
        return StoredEvent(row[0], row[1], row[2], json.loads(row[3])) if row else None

    def delete(self, task_id: str) -> None:
        """Forget a task's events."""
        self._connect().execute("DELETE FROM events WHERE task_id = ?", (task_id,))
