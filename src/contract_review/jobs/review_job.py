"""One job of a review task (its start, or its resume after approval decisions), run in the
process that takes it: a web worker process or a Celery worker.

The task runs through the same task runner as the CLI, with the approval policy 'none' (the
review parks at each approval round with its outputs written), and writes the review's events
to the event log the web app streams.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from contract_review.config import Settings
from contract_review.errors import one_line
from contract_review.jobs.events import EventLog

__all__ = ["JobKind", "event_log", "run_job"]

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
