"""The web app's reviews run in worker processes, never in the server's event loop.

`Jobs` keeps a process pool (`WEB_WORKERS` processes, spawned) and a queue in front of it:
a review is a job (`start` or `resume`) for one task at a time. A worker runs the task through
the same task runner as the CLI, with the approval policy 'none' (the review parks at each
approval round with its outputs written) and writes the review's events to the event log.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
import uuid
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Literal

from contract_review.config import Settings
from contract_review.errors import one_line
from contract_review.web.events import EventLog

__all__ = ["JobKind", "Jobs", "event_log", "run_job"]

JobKind = Literal["start", "resume"]


def event_log(settings: Settings) -> EventLog:
    """The event log of the web tasks under `settings`' state folder."""
    return EventLog(settings.state_dir / "events.sqlite")


def _on_event(log: EventLog, task_id: str) -> Any:
    from contract_review.graph.events import EventType, ReviewEvent

    def send(event: ReviewEvent) -> None:
        kind, clause = event.type, event.clause_id
        if kind in (EventType.NODE_START, EventType.NODE_END):
            phase = "start" if kind is EventType.NODE_START else "end"
            log.append(task_id, "node", {"node": event.node, "phase": phase, "clause": clause})
        elif kind in (EventType.TOOL_START, EventType.TOOL_END):
            phase = "start" if kind is EventType.TOOL_START else "end"
            tool = {"tool": event.tool, "phase": phase, "clause": clause, "ok": event.ok}
            log.append(task_id, "tool", tool)
        elif kind is EventType.CLAUSE_DONE:
            log.append(task_id, "clause_done", {"clause": clause, **event.data})
        elif kind is EventType.DIFF_PROPOSED:
            diff = event.data
            proposed = {"clause": clause, "diff_id": diff.get("diff_id"), "diff": diff}
            log.append(task_id, "diff_proposed", proposed)
        elif kind is EventType.WARNING:
            log.append(task_id, "warning", {"message": event.text or ""})
        elif kind in (EventType.PLAN, EventType.REPLAN):
            log.append(task_id, kind.value, {"clause": clause, **event.data})
        # model tokens are not stored (live only; the web app does not stream them)

    return send


def run_job(kind: JobKind, task_id: str, settings: Settings) -> str:
    """Run one job of a task in this (worker) process; returns the task's status after it.
    Every outcome is an event: approval required, review complete or review failed."""
    from contract_review.review import pending_redlines, resume_review, start_review
    from contract_review.tasks import load_manifest, save_manifest

    log = event_log(settings)
    log.append(task_id, "started", {})

    def progress(done: int, total: int, clause: str) -> None:
        log.append(task_id, "progress", {"done": done, "total": total, "clause": clause})

    hooks: dict[str, Any] = {"progress": progress, "on_event": _on_event(log, task_id)}
    try:
        manifest = load_manifest(task_id, settings)
        reviewer = manifest.owner
        if kind == "start":
            coro = start_review(
                manifest.options, settings=settings, task=manifest, reviewer=reviewer, **hooks
            )
        else:
            coro = resume_review(task_id, settings=settings, reviewer=reviewer, **hooks)
        done = asyncio.run(coro)
    except BaseException as exc:  # a worker must report every failure, then carry on
        message = one_line(exc)
        manifest = load_manifest(task_id, settings)
        if manifest.status in ("queued", "running"):
            manifest.status, manifest.reason, manifest.pid = "failed", message, None
            save_manifest(manifest, settings)
        log.append(task_id, "review_failed", {"message": message})
        if not isinstance(exc, Exception):
            raise
        return "failed"
    if done.waiting:
        pending = asyncio.run(pending_redlines(task_id, settings))
        log.append(task_id, "approval_required", {"pending": pending})
    elif done.status == "complete":
        names = sorted({path.rsplit("/", 1)[-1] for path in done.outputs.values()})
        log.append(
            task_id, "review_complete", {"outputs": names, "counts": done.counts.model_dump()}
        )
    return done.status


class Jobs:
    """The review workers and the jobs they run, one at a time per task: a local process
    pool, or the Celery queue when a broker is configured (`contract_review.workqueue`)."""

    def __init__(self, settings: Settings) -> None:
        """A pool of `settings.web_workers` spawned processes, or a client of the queue."""
        self.settings = settings
        self._lock = threading.Lock()
        self._active: dict[str, Future[str]] = {}
        self.log = event_log(settings)
        self._queue: Any = None
        self._store: Any = None
        if settings.celery_broker_url:
            from contract_review.workqueue import RunStore, make_app, require_queue

            _, url = require_queue(settings)
            self._queue, self._store = make_app(settings), RunStore(url)
            self._pool = None
        else:
            self._pool = ProcessPoolExecutor(
                max_workers=settings.web_workers, mp_context=multiprocessing.get_context("spawn")
            )

    def busy(self, task_id: str) -> bool:
        """Whether a job of the task is queued or running."""
        with self._lock:
            if self._store is not None:
                return bool(self._store.unfinished("web", f"{task_id}:"))
            return task_id in self._active

    def waiting(self) -> int:
        """Jobs not finished (queued or running)."""
        with self._lock:
            if self._store is not None:
                return int(self._store.unfinished("web"))
            return len(self._active)

    def submit(self, kind: JobKind, task_id: str) -> bool:
        """Queue a job for the task; False when one is already queued or running."""
        with self._lock:
            if self._store is not None:
                return self._enqueue(kind, task_id)
            if task_id in self._active:
                return False
            assert self._pool is not None
            future = self._pool.submit(run_job, kind, task_id, self.settings)
            self._active[task_id] = future
            position = len(self._active)
        self.log.append(task_id, "queued", {"position": position})
        future.add_done_callback(lambda _: self._finished(task_id))
        return True

    def _enqueue(self, kind: JobKind, task_id: str) -> bool:
        """Send the job to the Celery workers (the lock is held by the caller)."""
        from contract_review.workqueue import WEB_TASK

        if self._store.unfinished("web", f"{task_id}:"):
            return False
        job = f"{task_id}:{uuid.uuid4().hex[:12]}"
        self._store.expect("web", [job])  # busy from now on, until a worker records its end
        self._queue.send_task(
            WEB_TASK, args=[kind, task_id], task_id=job, queue=self.settings.celery_queue
        )
        self.log.append(task_id, "queued", {"position": self._store.unfinished("web")})
        return True

    def _finished(self, task_id: str) -> None:
        with self._lock:
            self._active.pop(task_id, None)

    def close(self) -> None:
        """Stop: jobs not started are dropped and running ones end with the server (their
        checkpoints let the next server carry on what was cut, as after a crash). Jobs sent
        to the Celery queue stay there."""
        if self._pool is not None:
            # The executor keeps no handle to end its workers with: an idle worker of a server
            # gone would wait for work forever (it holds both ends of its queue's pipe).
            workers = list(getattr(self._pool, "_processes", {}).values())
            self._pool.shutdown(wait=False, cancel_futures=True)
            for worker in workers:
                worker.terminate()
            self._pool.shutdown(wait=True)
        if self._store is not None:
            self._store.close()
