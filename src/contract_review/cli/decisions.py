"""Deciding redlines: the terminal's questions (each redline shown, approve / reject / edit /
skip), `approve` and `remember`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from contract_review.errors import InputError

from ._common import _REVIEWER_HELP, _err, _run, user_errors
from .live import _VERBOSE_HELP, _live_output, _Progress, _report_task, _stopped_by_user


class _TerminalAsk:
    """Asks at the terminal, redline by redline: approve, reject (with feedback), edit or
    skip (decide later). Each answer is handed back as soon as it is given (and recorded by
    the engine before the next question); the live progress is paused while asking."""

    def __init__(self, progress: _Progress | None = None) -> None:
        self.progress = progress

    def __call__(self, diffs: list[dict[str, object]]) -> Iterator[dict[str, object]]:
        if self.progress is not None:
            self.progress.pause()
        console = Console(highlight=False)
        try:
            for n, d in enumerate(diffs, 1):
                _show_redline(console, d, n, len(diffs))
                answer = _prompt_decision(d)
                if answer is not None:
                    yield answer
        except typer.Abort:  # Ctrl-C or end of input at a prompt
            raise KeyboardInterrupt from None
        finally:
            if self.progress is not None:
                self.progress.resume()


def _show_redline(console: Console, d: dict[str, object], n: int, total: int) -> None:
    """One redline in its sentence, with its risk and reason."""
    console.rule(
        f"[bold]Redline {n}/{total} · clause {escape(str(d['clause_id']))}[/]  "
        f"{escape(str(d.get('risk_level') or ''))}"
    )
    if d.get("clause_title"):
        console.print(f"[bold]{escape(str(d['clause_title']))}[/]")
    clause_text = str(d.get("clause_text", ""))
    original, proposed = str(d["original_text"]), str(d["proposed_text"])
    at = clause_text.find(original) if original else -1
    if at >= 0:
        # The redline in its sentence: context, deletion in red, insertion in green.
        before = clause_text[max(0, at - 160) : at]
        after = clause_text[at + len(original) : at + len(original) + 160]
        removed = (
            escape(original)
            if d.get("action_type") == "insert"
            else f"[red strike]{escape(original)}[/]"
        )
        console.print(
            f"…{escape(before)}{removed}[green underline]{escape(proposed)}[/]{escape(after)}…"
        )
    else:
        console.print(f"[red strike]{escape(original)}[/] [green underline]{escape(proposed)}[/]")
    if d.get("risk_description"):
        console.print(f"[yellow]Risk:[/] {escape(str(d['risk_description']))}")
    if d.get("reason"):
        console.print(f"[dim]Why:[/] {escape(str(d.get('reason', '')))}")


def _prompt_decision(d: dict[str, object]) -> dict[str, object] | None:
    """The reviewer's decision on one redline, or None to decide it later."""
    choice = typer.prompt("[a]pprove / [r]eject / [e]dit / [s]kip", default="a").strip().lower()
    if choice.startswith("r"):
        feedback = typer.prompt("Feedback for a redraft (empty: none)", default="")
        return {"diff_id": d["diff_id"], "decision": "reject", "feedback": feedback}
    if choice.startswith("e"):
        text = typer.prompt("Your wording", default=str(d["proposed_text"]))
        return {"diff_id": d["diff_id"], "decision": "approve", "user_modified_text": text}
    if choice.startswith("s"):
        return None
    return {"diff_id": d["diff_id"], "decision": "approve"}


_REMEMBER_HELP = (
    "Keep your edits and rejections with feedback as amended positions in this playbook file "
    "(.yaml/.json; one per client or matter), for later reviews' --criteria."
)


def approve(
    task_id: Annotated[str, typer.Argument(help="Task id (see 'list').")],
    decisions: Annotated[
        Path | None,
        typer.Option(
            help="JSON or CSV of decisions: diff_id, decision (approve, reject, edit), "
            "feedback or text. Without it, each pending redline is asked here."
        ),
    ] = None,
    reviewer: Annotated[str | None, typer.Option(help=_REVIEWER_HELP)] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help=_VERBOSE_HELP)] = False,
    remember: Annotated[Path | None, typer.Option(help=_REMEMBER_HELP)] = None,
) -> None:
    """Decide a review's pending redlines — at the terminal, or from a file — then write its
    outputs again (a rejection with feedback is redrafted and asked about in turn)."""
    from contract_review.decisions import read_decisions_file
    from contract_review.service import ReviewService

    service = ReviewService()
    with user_errors():
        if remember is not None:
            _check_memory(remember)
        manifest = service.status(task_id)
        if manifest.current_status() == "complete":
            raise InputError(f"review task {task_id} is complete: no redline waits for a decision")
        if decisions is not None:
            requests = read_decisions_file(decisions)  # every problem before any is recorded
            _run(service.decide(task_id, requests, reviewer=reviewer))
    with user_errors(), _stopped_by_user(), _live_output(verbose) as (progress, printer):
        manifest = _run(
            service.resume(
                task_id,
                ask=None if decisions is not None else _TerminalAsk(progress),
                progress=progress,
                on_event=printer,
                stream_tokens=verbose,
                reviewer=reviewer,
            )
        )
    _report_task(manifest)
    if remember is not None:
        with user_errors():
            _say_lessons(service.remember(task_id, remember), remember)


def _check_memory(path: Path) -> None:
    """A playbook file that can hold remembered positions, checked before any work."""
    from contract_review.playbook import PlaybookError
    from contract_review.playbook.memory import check_memory_path

    try:
        check_memory_path(path)
    except PlaybookError as exc:
        raise InputError(f"--remember {exc}") from None


def _say_lessons(found: list[Any], path: Path) -> None:
    kept = [lesson for lesson in found if lesson.position is not None]
    for lesson in found:
        if lesson.position is None:
            _err.print(
                f"  redline {lesson.diff_id} (clause {lesson.clause_id}) not remembered: "
                f"{lesson.why_not}",
                markup=False,
                soft_wrap=True,
            )
    if kept:
        ids = ", ".join(dict.fromkeys(lesson.position.id for lesson in kept))
        _err.print(
            f"remembered {len(kept)} decision(s) in {path}: {ids}", markup=False, soft_wrap=True
        )
    elif not found:
        _err.print("nothing to remember: no edit and no rejection with feedback", markup=False)


def remember_decisions(
    task_id: Annotated[str, typer.Argument(help="Task id.")],
    playbook: Annotated[Path, typer.Argument(help="Playbook file to keep them in (.yaml/.json).")],
    diff: Annotated[
        list[str] | None, typer.Option(help="Only this redline's decision (repeatable).")
    ] = None,
) -> None:
    """Keep a review's edits and rejections with feedback as amended positions of a playbook
    file you name (your wording becomes the redline language, your feedback the rationale);
    later reviews use it with --criteria."""
    from contract_review.service import ReviewService

    with user_errors():
        _check_memory(playbook)
        found = ReviewService().remember(task_id, playbook, diff)
    _say_lessons(found, playbook)
