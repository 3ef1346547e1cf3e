"""Reviews on Celery workers: `batch --queue` and the web app send them here when a broker is
configured, and `contract-review worker` runs them, on this machine or any other.

Delivery is at least once: a task is acknowledged only when it has finished
(`task_acks_late`), and a pool process killed mid-review has its task delivered again
(`task_reject_on_worker_lost`; a whole worker lost is re-delivered after
`CELERY_VISIBILITY_TIMEOUT`). So that a second delivery never runs beside the first or counts
twice, every run holds a PostgreSQL advisory lock on its contract (the server drops it when the
process holding it dies), and records its result once in the `contract_review_runs` table; a
delivery that finds the result there returns it without working. A review cut short carries on
from its checkpoint (PostgreSQL), so a re-delivered contract is not reviewed from the start.

Workers need the same `POSTGRES_URL` and see the same files (contracts, output folders, the
state folder) as whoever enqueued the work: one machine, or a shared file system.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from contract_review.config import Settings, get_settings
from contract_review.errors import InputError, one_line

if TYPE_CHECKING:
    import psycopg
    from celery import Celery

__all__ = [
    "BATCH_TASK",
    "WEB_TASK",
    "RunStore",
    "make_app",
    "ping",
    "require_queue",
]

BATCH_TASK = "contract_review.batch_contract"
"""The Celery task that reviews one contract of a batch (see `batch.review_one`)."""
WEB_TASK = "contract_review.web_job"
"""The Celery task that runs one job (start or resume) of a web review task."""
MAX_DELIVERIES = 3
"""A contract whose worker was lost this many times (say, killed for memory) is recorded as an
error instead of being delivered again and again."""

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


def _once(
    task: Any,
    scope: str,
    key: str,
    work: Callable[[int], dict[str, Any]],
    lock: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """Run `work(attempt)` for the run (scope, key) once, whatever the deliveries: a finished
    run's result is returned as recorded; a run another delivery holds (the lock: the run's
    own, or `lock`) is retried later, never beside it; the result is recorded once."""
    settings = get_settings()
    _, url = require_queue(settings)
    with RunStore(url) as store:
        done = store.result(scope, key)
        if done is not None:
            return done  # a duplicate delivery of a finished run
        with store.lock(*(lock or (scope, key))) as got:
            if not got:  # another delivery is on it: come back later, never beside it
                raise task.retry(countdown=settings.celery_lock_retry_seconds, max_retries=None)
            done = store.result(scope, key)
            if done is not None:
                return done
            attempt = store.attempt(scope, key)
            cpu = time.process_time()
            result = work(attempt)
            store.finish(scope, key, result, time.process_time() - cpu)
            return result


def _batch_contract(
    task: Any,
    scope: str,
    key: str,
    file: str,
    aliases: list[str],
    options: dict[str, Any],
    out: str,
) -> dict[str, Any]:
    """Review one contract of a batch, once, whatever the deliveries."""
    from contract_review.batch import review_one

    def work(attempt: int) -> dict[str, Any]:
        if attempt > MAX_DELIVERIES:
            return {"status": "error", "error": f"its worker was lost {attempt - 1} times"}
        try:
            return review_one(file, aliases, options, out, get_settings())
        except Exception as exc:  # that contract's error; the batch goes on
            return {"status": "error", "error": one_line(exc)}

    return _once(task, scope, key, work)


def _web_job(task: Any, kind: str, task_id: str) -> str:
    """Run one job of a web review task, once, whatever the deliveries (one job of a task
    at a time: the lock is the task's)."""
    from contract_review.tasks import load_manifest, take_over
    from contract_review.web.jobs import run_job

    def work(_: int) -> dict[str, Any]:
        settings = get_settings()
        manifest = load_manifest(task_id, settings)
        if kind == "start" and (manifest.waiting or manifest.status == "complete"):
            status: str = manifest.status  # a start delivered again after it ran
        else:
            # a start whose first delivery was cut off is carried on
            resume = kind != "start" or manifest.status != "queued"
            take_over(manifest, settings)
            status = run_job("resume" if resume else "start", task_id, settings)
        return {"status": status, "task_id": task_id}

    job = str(task.request.id)
    return str(_once(task, "web", job, work, lock=("web-task", task_id)).get("status", ""))


def make_app(settings: Settings | None = None) -> Celery:
    """The Celery app on the configured broker, with the review tasks registered."""
    from celery import Celery

    settings = settings or get_settings()
    broker, _ = require_queue(settings)
    visibility = settings.celery_visibility_timeout
    app = Celery("contract_review", broker=broker)
    app.conf.update(
        task_default_queue=settings.celery_queue,
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,  # results live in PostgreSQL (RunStore)
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # a long review must not hold other contracts back
        worker_hijack_root_logger=False,
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            "visibility_timeout": settings.celery_visibility_timeout,
            # Sweep for the messages of lost workers a few times per timeout (kombu's default
            # sweep is every ~100 s whatever the timeout).
            "unacked_restore_interval": max(1, min(60, int(visibility / 4))),
            "unacked_restore_throttle": 1,
        },
    )
    app.task(name=BATCH_TASK, bind=True)(_batch_contract)
    app.task(name=WEB_TASK, bind=True)(_web_job)
    return app


def ping(app: Celery, timeout: float = 1.0) -> int:
    """How many workers answer on the broker within `timeout` seconds."""
    answers = app.control.ping(timeout=timeout)
    return len(answers or [])
