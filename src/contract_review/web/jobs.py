"""The web app's reviews run in worker processes, never in the server's event loop.

`Jobs` keeps a process pool (`WEB_WORKERS` processes, spawned) and a queue in front of it:
a review is a job (`start` or `resume`) for one task at a time, which a worker runs
(`contract_review.jobs.review_job`); with a broker configured, the jobs go to the Celery queue
instead (`contract_review.jobs.celery_app`).
"""

from __future__ import annotations

import multiprocessing
import threading
import uuid
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from contract_review.config import Settings
from contract_review.jobs.review_job import JobKind, event_log, run_job

__all__ = ["Jobs"]


class Jobs:
    """The review workers and the jobs they run, one at a time per task: a local process
    pool, or the Celery queue when a broker is configured (`contract_review.jobs`)."""

    def __init__(self, settings: Settings) -> None:
        """A pool of `settings.web_workers` spawned processes, or a client of the queue."""
        self.settings = settings
        self._lock = threading.Lock()
        self._active: dict[str, Future[str]] = {}
        self.log = event_log(settings)
        self._queue: Any = None
        self._store: Any = None
        if settings.celery_broker_url:
            from contract_review.jobs.celery_app import make_app
            from contract_review.jobs.runs import RunStore, require_queue

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
        from contract_review.jobs.celery_app import WEB_TASK

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
