"""Run a piece of queued work once, whatever the deliveries (attempts and retries).

Delivery is at least once, so the same run can arrive twice (or arrive while its first delivery
still works): a finished run's recorded result is returned without working, a run another
delivery holds is retried later (never beside it), and the result is recorded once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from contract_review.config import get_settings
from contract_review.jobs.runs import RunStore, require_queue

__all__ = ["run_once"]


def run_once(
    task: Any,
    scope: str,
    key: str,
    work: Callable[[int], dict[str, Any]],
    lock: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """Run `work(attempt)` for the run (scope, key) of the bound Celery `task` once, whatever
    the deliveries: a finished run's result is returned as recorded; a run another delivery
    holds (the lock: the run's own, or `lock`) is retried later, never beside it; the result is
    recorded once."""
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
