"""The task service: the operations on review tasks that every interface calls.

Start a review, see what waits for a decision, decide (one redline or many, each recorded the
moment it is given), carry a task on, read where it stands and its outputs. The command line
calls these; the web app calls the same ones. Nothing here talks to a terminal or to HTTP.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contract_review.config import Settings, get_settings
from contract_review.errors import InputError
from contract_review.models import ApprovalRequest
from contract_review.tasks import ReviewOptions, TaskManifest, list_tasks, load_manifest

if TYPE_CHECKING:
    from contract_review.playbook.memory import Lesson

__all__ = ["ReviewService"]


class ReviewService:
    """Review tasks under one set of settings (state folder, checkpoints, limits)."""

    def __init__(self, settings: Settings | None = None) -> None:
        """A service on `settings` (default: from the environment)."""
        self.settings = settings or get_settings()

    async def start(self, options: ReviewOptions, **hooks: Any) -> TaskManifest:
        """Run a new review (see `contract_review.review.start_review` for the hooks: ask,
        progress, on_event, stream_tokens, reviewer)."""
        from contract_review.review import start_review

        return await start_review(options, settings=self.settings, **hooks)

    async def resume(self, task_id: str, **hooks: Any) -> TaskManifest:
        """Carry a task on from its checkpoint: unfinished clauses, then the approval rounds
        with the decisions given so far (see `contract_review.review.resume_review`)."""
        from contract_review.review import resume_review

        self._not_running(task_id)
        return await resume_review(task_id, settings=self.settings, **hooks)

    async def pending(self, task_id: str) -> list[dict[str, Any]]:
        """The task's redlines waiting for a decision (each with its clause and risk)."""
        from contract_review.review import pending_redlines

        return await pending_redlines(task_id, self.settings)

    async def decide(
        self, task_id: str, requests: Iterable[ApprovalRequest], *, reviewer: str | None = None
    ) -> tuple[list[ApprovalRequest], list[dict[str, Any]]]:
        """Record decisions on pending redlines (all checked first, then each written to the
        task's decision log); `resume` then applies them. Returns the decisions as recorded
        and the redlines still pending."""
        from contract_review.review import record_decisions

        manifest = self._not_running(task_id)
        if manifest.current_status() == "complete":
            raise InputError(f"review task {task_id} is complete: no redline waits for a decision")
        pending = await self.pending(task_id)
        recorded = record_decisions(
            task_id, requests, pending, reviewer=reviewer, settings=self.settings
        )
        decided = {r.diff_id for r in recorded}
        return recorded, [d for d in pending if d.get("diff_id") not in decided]

    async def delete(self, task_id: str) -> None:
        """Remove a task: its checkpoints, manifest and decision log (not its output folder,
        which belongs to whoever chose it)."""
        from contract_review.review import delete_task

        self._not_running(task_id)
        await delete_task(task_id, self.settings)

    def remember(
        self, task_id: str, playbook: Path, diff_ids: Iterable[str] | None = None
    ) -> list[Lesson]:
        """Keep the task's decisions that teach (its edits and rejections with feedback; those
        of `diff_ids` when given) as amended positions in the `playbook` file the lawyer
        names; returns each decision's lesson (an amended position, or why not)."""
        from contract_review.decisions import DecisionLog
        from contract_review.models import ReviewResult
        from contract_review.playbook.memory import lessons, remember
        from contract_review.review import review_positions

        manifest = load_manifest(task_id, self.settings)
        findings = manifest.options.out / "findings.json"
        if not findings.is_file():
            raise InputError(f"review task {task_id} has no findings yet: nothing to remember")
        result = ReviewResult.model_validate_json(findings.read_bytes())
        decisions = DecisionLog(task_id, self.settings).load()
        wanted = list(diff_ids) if diff_ids is not None else None
        unknown = [d for d in wanted or [] if d not in decisions]
        if unknown:
            raise InputError(f"no decision on redline {unknown[0]} in review task {task_id}")
        found = lessons(result, review_positions(manifest.options), decisions, wanted)
        amended = [lesson.position for lesson in found if lesson.position is not None]
        if amended:
            remember(playbook, amended, manifest.options.domain)
        return found

    def status(self, task_id: str) -> TaskManifest:
        """Where a task stands (status, counts, outputs, the command that carries it on)."""
        return load_manifest(task_id, self.settings)

    def tasks(self, problems: list[str] | None = None) -> list[TaskManifest]:
        """Every task, newest first (unreadable manifests reported in `problems`)."""
        return list_tasks(self.settings, problems)

    def outputs(self, task_id: str) -> dict[str, str]:
        """The output files of a task by kind (report, redline, … ), as last written."""
        return dict(load_manifest(task_id, self.settings).outputs)

    def _not_running(self, task_id: str) -> TaskManifest:
        manifest = load_manifest(task_id, self.settings)
        if manifest.current_status() == "running":
            raise InputError(f"review task {task_id} is still running (process {manifest.pid})")
        return manifest
