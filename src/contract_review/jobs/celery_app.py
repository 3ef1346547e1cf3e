"""Reviews on Celery workers: `batch --queue` and the web app send them here when a broker is
configured, and `contract-review worker` runs them, on this machine or any other.

Delivery is at least once: a task is acknowledged only when it has finished
(`task_acks_late`), and a pool process killed mid-review has its task delivered again
(`task_reject_on_worker_lost`; a whole worker lost is re-delivered after
`CELERY_VISIBILITY_TIMEOUT`). So that a second delivery never runs beside the first or counts
twice, every run holds a PostgreSQL advisory lock on its contract (the server drops it when the
process holding it dies), and records its result once in the `contract_review_runs` table; a
delivery that finds the result there returns it without working (`jobs.once`). A review cut
short carries on from its checkpoint (PostgreSQL), so a re-delivered contract is not reviewed
from the start.

Workers need the same `POSTGRES_URL` and see the same files (contracts, output folders, the
state folder) as whoever enqueued the work: one machine, or a shared file system.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from contract_review.config import Settings, get_settings
from contract_review.errors import one_line
from contract_review.jobs.contract import review_one
from contract_review.jobs.once import run_once
from contract_review.jobs.review_job import run_job
from contract_review.jobs.runs import require_queue
from contract_review.tasks import load_manifest, take_over

if TYPE_CHECKING:
    from celery import Celery

__all__ = ["BATCH_TASK", "MAX_DELIVERIES", "WEB_TASK", "make_app", "ping"]

BATCH_TASK = "contract_review.batch_contract"
"""The Celery task that reviews one contract of a batch (see `jobs.contract.review_one`)."""
WEB_TASK = "contract_review.web_job"
"""The Celery task that runs one job (start or resume) of a web review task."""
MAX_DELIVERIES = 3
"""A contract whose worker was lost this many times (say, killed for memory) is recorded as an
error instead of being delivered again and again."""


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

    def work(attempt: int) -> dict[str, Any]:
        if attempt > MAX_DELIVERIES:
            return {"status": "error", "error": f"its worker was lost {attempt - 1} times"}
        try:
            return review_one(file, aliases, options, out, get_settings())
        except Exception as exc:  # that contract's error; the batch goes on
            return {"status": "error", "error": one_line(exc)}

    return run_once(task, scope, key, work)


def _web_job(task: Any, kind: str, task_id: str) -> str:
    """Run one job of a web review task, once, whatever the deliveries (one job of a task
    at a time: the lock is the task's)."""

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
    return str(run_once(task, "web", job, work, lock=("web-task", task_id)).get("status", ""))


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
