"""Run records and per-contract locks of queued work, in PostgreSQL.

Every queued run (a batch's contract, a web task's job) is a row of the `contract_review_runs`
table, keyed by (scope, key): its attempts, the process running it, its result (written once)
and how many times it completed. A run holds an advisory lock while it works; the server drops
it when the process holding it dies, so a run cut short is never left locked.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from contract_review.config import Settings
from contract_review.errors import InputError

if TYPE_CHECKING:
    import psycopg

__all__ = ["RunStore", "require_queue"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS contract_review_runs (
    scope text NOT NULL,
    run_key text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    completions integer NOT NULL DEFAULT 0,
    pid integer,
    host text,
    started_at timestamptz,
    finished_at timestamptz,
    result jsonb,
    PRIMARY KEY (scope, run_key)
);
ALTER TABLE contract_review_runs ADD COLUMN IF NOT EXISTS cpu_seconds double precision
"""


_SCHEMA_READY: set[str] = set()
"""Databases whose run table this process has made sure of."""
_SCHEMA_LOCK = 0x72756E7374  # an advisory-lock id of our own ("runst")


def require_queue(settings: Settings) -> tuple[str, str]:
    """The broker and PostgreSQL URLs, or an InputError saying which setting is missing."""
    if not settings.celery_broker_url:
        raise InputError(
            "no queue configured: set CELERY_BROKER_URL (e.g. redis://127.0.0.1:6379/0)"
        )
    if settings.postgres_url is None:
        raise InputError(
            "the queue keeps checkpoints, locks and results in PostgreSQL: set POSTGRES_URL"
        )
    return settings.celery_broker_url, settings.postgres_url.get_secret_value()


def _lock_id(scope: str, key: str) -> int:
    """A signed 64-bit advisory-lock id for (scope, key)."""
    digest = hashlib.sha256(f"{scope}\0{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class RunStore:
    """Runs of queued work in PostgreSQL: one row per (scope, key) with its attempts, its
    result (written once) and how many times it completed."""

    def __init__(self, url: str) -> None:
        """A store on the PostgreSQL database at `url` (table created when missing)."""
        import psycopg

        self._conn: psycopg.Connection[Any] = psycopg.connect(url, autocommit=True)
        if url not in _SCHEMA_READY:
            # once per process, one process at a time: concurrent CREATE TABLE IF NOT EXISTS
            # can still collide in the catalogue
            self._conn.execute("SELECT pg_advisory_lock(%s)", (_SCHEMA_LOCK,))
            try:
                self._conn.execute(_SCHEMA)
            finally:
                self._conn.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))
            _SCHEMA_READY.add(url)

    def close(self) -> None:
        """Close the connection (its locks go with it)."""
        self._conn.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextmanager
    def lock(self, scope: str, key: str) -> Iterator[bool]:
        """Hold the lock of (scope, key) while the block runs; yields False at once when
        another process holds it. The server releases it if this process dies."""
        lock = _lock_id(scope, key)
        row = self._conn.execute("SELECT pg_try_advisory_lock(%s)", (lock,)).fetchone()
        got = bool(row and row[0])
        try:
            yield got
        finally:
            if got and not self._conn.closed:
                self._conn.execute("SELECT pg_advisory_unlock(%s)", (lock,))

    def expect(self, scope: str, keys: Sequence[str]) -> None:
        """Register runs that were enqueued (no attempt yet)."""
        with self._conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO contract_review_runs (scope, run_key) VALUES (%s, %s) "
                "ON CONFLICT DO NOTHING",
                [(scope, k) for k in keys],
            )

    def retry_failed(self, scope: str, keys: Sequence[str]) -> None:
        """Clear the results among `keys` that are errors, so they run again (a batch run
        again retries its failed contracts, as a local one does)."""
        self._conn.execute(
            "UPDATE contract_review_runs SET result = NULL, attempts = 0 WHERE scope = %s "
            "AND run_key = ANY(%s) AND result->>'status' IS DISTINCT FROM 'done'",
            (scope, list(keys)),
        )

    def attempt(self, scope: str, key: str) -> int:
        """Record that this process starts a run; returns the attempt number."""
        row = self._conn.execute(
            "INSERT INTO contract_review_runs AS r (scope, run_key, attempts, pid, host, "
            "started_at) VALUES (%s, %s, 1, %s, %s, now()) ON CONFLICT (scope, run_key) DO "
            "UPDATE SET attempts = r.attempts + 1, pid = EXCLUDED.pid, host = EXCLUDED.host, "
            "started_at = now() RETURNING attempts",
            (scope, key, os.getpid(), socket.gethostname()),
        ).fetchone()
        return int(row[0]) if row else 1

    def finish(
        self, scope: str, key: str, result: dict[str, Any], cpu_seconds: float | None = None
    ) -> bool:
        """Record a run's result (and the CPU time it took), once: False when a result was
        already there."""
        cur = self._conn.execute(
            "UPDATE contract_review_runs SET result = %s, completions = completions + 1, "
            "finished_at = now(), pid = NULL, cpu_seconds = %s WHERE scope = %s "
            "AND run_key = %s AND result IS NULL",
            (json.dumps(result, ensure_ascii=False), cpu_seconds, scope, key),
        )
        return cur.rowcount == 1

    def result(self, scope: str, key: str) -> dict[str, Any] | None:
        """A finished run's result, or None."""
        row = self._conn.execute(
            "SELECT result FROM contract_review_runs WHERE scope = %s AND run_key = %s",
            (scope, key),
        ).fetchone()
        return dict(row[0]) if row and row[0] is not None else None

    def results(self, scope: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The finished runs among `keys`, by key."""
        rows = self._conn.execute(
            "SELECT run_key, result FROM contract_review_runs WHERE scope = %s "
            "AND run_key = ANY(%s) AND result IS NOT NULL",
            (scope, list(keys)),
        ).fetchall()
        return {str(k): dict(v) for k, v in rows}

    def unfinished(self, scope: str, prefix: str = "") -> int:
        """Runs of `scope` (whose key starts with `prefix`) without a result."""
        row = self._conn.execute(
            "SELECT count(*) FROM contract_review_runs WHERE scope = %s AND result IS NULL "
            "AND starts_with(run_key, %s)",
            (scope, prefix),
        ).fetchone()
        return int(row[0]) if row else 0

    def stats(self, scope: str, key: str) -> dict[str, Any]:
        """Attempts, completions and the pid of the process running it (for tests, benches
        and people watching a queue)."""
        row = self._conn.execute(
            "SELECT attempts, completions, pid, cpu_seconds FROM contract_review_runs "
            "WHERE scope = %s AND run_key = %s",
            (scope, key),
        ).fetchone()
        if row is None:
            return {"attempts": 0, "completions": 0, "pid": None, "cpu_seconds": None}
        return {"attempts": row[0], "completions": row[1], "pid": row[2], "cpu_seconds": row[3]}

    def keys(self, scope: str) -> list[str]:
        """Every run key of a scope."""
        rows = self._conn.execute(
            "SELECT run_key FROM contract_review_runs WHERE scope = %s ORDER BY run_key",
            (scope,),
        ).fetchall()
        return [str(r[0]) for r in rows]

    def forget(self, scope: str) -> None:
        """Drop every run of a scope."""
        self._conn.execute("DELETE FROM contract_review_runs WHERE scope = %s", (scope,))
