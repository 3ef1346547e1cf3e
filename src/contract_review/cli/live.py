"""What a running review shows at the terminal (`review`, `resume`, `approve`, and the
`batch` progress): the progress bar, the event printer with the engine's warnings routed to
it, what Ctrl-C says, and the report a run ends with (also `status`)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from ._common import _err

if TYPE_CHECKING:
    from contract_review.tasks import TaskManifest

    from ._render import EventPrinter

_VERBOSE_HELP = "Print what the review does, live: nodes, tool calls, clause results, redlines."


class _Progress:
    """A progress bar on stderr: clauses done of total, and the clause just finished."""

    def __init__(self) -> None:
        self.bar = Progress(
            TextColumn("[bold]reviewing[/]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            console=_err,
            transient=True,
        )
        self.task: TaskID | None = None

    def __enter__(self) -> _Progress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def pause(self) -> None:
        """Stop drawing (a question is being asked)."""
        self.bar.stop()

    def resume(self) -> None:
        """Draw again."""
        self.bar.start()

    def __call__(self, done: int, total: int, clause: str) -> None:
        if self.task is None:
            self.task = self.bar.add_task("", total=total)
        self.bar.update(self.task, completed=done, description=f"clause {clause}")


class _LogToPrinter(logging.Handler):
    """Engine log warnings on the review's console, through the printer's once-only warnings.

    Without a handler Python prints them raw on stderr (garbling the progress bar), and a
    warning both logged and reported as an event would show twice.
    """

    def __init__(self, printer: EventPrinter) -> None:
        super().__init__(logging.WARNING)
        self.printer = printer

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                exc = record.exc_info[1]
                text += f" ({type(exc).__name__}: {exc})"
            self.printer.warning(text)
        except Exception:  # a log call must never break the review
            self.handleError(record)


@contextmanager
def _live_output(verbose: bool) -> Iterator[tuple[_Progress, EventPrinter]]:
    """The progress bar and the event printer of a review run, engine warnings routed to it."""
    from ._render import EventPrinter

    printer = EventPrinter(_err, verbose=verbose)
    handler = _LogToPrinter(printer)
    engine_log = logging.getLogger("contract_review")
    engine_log.addHandler(handler)
    try:
        with _Progress() as progress:
            yield progress, printer
    finally:
        engine_log.removeHandler(handler)


def _report_task(manifest: TaskManifest) -> None:
    _err.print(f"review {manifest.task_id}: {manifest.describe_status()}", markup=False)
    _err.print(f"  {manifest.counts.describe()}", markup=False)
    usage = manifest.llm_usage
    if usage is not None:
        _err.print(
            f"  llm   {usage.calls} calls, {usage.prompt_tokens} prompt + "
            f"{usage.completion_tokens} completion tokens",
            markup=False,
        )
    for kind, path in manifest.outputs.items():
        _err.print(f"  {kind:5s} {path}", markup=False)
    step = manifest.next_step()
    if step:
        _err.print(f"  next: {step}", markup=False)


@contextmanager
def _stopped_by_user() -> Iterator[None]:
    """Ctrl-C: say that nothing decided is lost and how to carry on (exit 130)."""
    try:
        yield
    except KeyboardInterrupt:
        from contract_review.tasks import list_tasks

        tasks = [t for t in list_tasks() if t.current_status() == "interrupted"]
        hint = f": {tasks[0].next_step()}" if tasks and tasks[0].next_step() else ""
        _err.print(f"stopped; the decisions given are kept — carry on with{hint}", markup=False)
        raise typer.Exit(130) from None
