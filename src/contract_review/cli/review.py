"""`review` and `resume`, and the question of whom the review acts for."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from contract_review.domains import Domain, Subtype

from ._common import _DOMAIN_HELP, _REVIEWER_HELP, _SUBTYPE_HELP, _run, user_errors
from .decisions import _TerminalAsk
from .live import _VERBOSE_HELP, _live_output, _report_task, _stopped_by_user

if TYPE_CHECKING:
    from contract_review.parties import Party


class Language(StrEnum):
    """The contract's language."""

    AUTO = "auto"
    EN = "en"
    ZH_CN = "zh-CN"


class CommentChoice(StrEnum):
    """Which issues get a Word comment."""

    ALL = "all"
    MEDIUM = "medium"
    HIGH = "high"


class ApprovalMode(StrEnum):
    """How redlines are approved."""

    INTERACTIVE = "interactive"
    ALL = "all"
    NONE = "none"


def review(
    file: Annotated[Path, typer.Argument(help="The contract: .docx, .pdf, .txt or .md.")],
    domain: Annotated[Domain, typer.Option(help=_DOMAIN_HELP)] = Domain.GENERIC,
    subtype: Annotated[Subtype | None, typer.Option(help=_SUBTYPE_HELP)] = None,
    party: Annotated[
        str,
        typer.Option(
            help="Whom we act for: a party's name, its label (Supplier, 甲方), a role (buyer, "
            "licensee, 承包人) or neutral. Asked at a terminal when missing."
        ),
    ] = "",
    language: Annotated[
        Language, typer.Option(help="The contract's language; auto: detected.")
    ] = Language.AUTO,
    baseline: Annotated[Path | None, typer.Option(help="Baseline document.")] = None,
    supplement: Annotated[Path | None, typer.Option(help="Particular Conditions etc.")] = None,
    reference: Annotated[list[Path] | None, typer.Option(help="Reference document.")] = None,
    criteria: Annotated[Path | None, typer.Option(help="Review playbook.")] = None,
    approve: Annotated[
        ApprovalMode, typer.Option(help="Approval of redlines.")
    ] = ApprovalMode.INTERACTIVE,
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("out"),
    reviewer: Annotated[str | None, typer.Option(help=_REVIEWER_HELP)] = None,
    author: Annotated[
        str | None,
        typer.Option(
            help="Name on the Word file's tracked changes and comments; default: "
            "REDLINE_AUTHOR, else the reviewer."
        ),
    ] = None,
    comments: Annotated[
        CommentChoice,
        typer.Option(help="Issues that get a Word comment: all, medium (and high) or high."),
    ] = CommentChoice.MEDIUM,
    kind: Annotated[
        str | None,
        typer.Option(
            help="The contract's kind (licence, property_lease, loan, …) instead of the one "
            "detected; an unknown kind is refused with the list."
        ),
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help=_VERBOSE_HELP)] = False,
) -> None:
    """Review a contract: risks from your side, redlines, report and a redlined .docx.

    --approve interactive asks redline by redline (skip: decide later); none leaves every
    redline pending for `contract-review approve TASK_ID`; all approves them."""
    from contract_review.tasks import ReviewOptions

    with user_errors():
        options = ReviewOptions(
            file=file,
            domain=domain.value,
            subtype=subtype.value if subtype else None,
            party=party,
            language=language.value,
            baseline=baseline,
            supplement=supplement,
            references=reference or [],
            criteria=criteria,
            approve=approve.value,
            out=out,
            author=author,
            comments=comments.value,
            kind=kind,
        )
        options.check()  # before the engine loads: a bad option costs nothing
        from contract_review.parties import PartyNotFound, PartyRequired
        from contract_review.service import ReviewService

        service = ReviewService()
        while True:
            try:
                with _stopped_by_user(), _live_output(verbose) as (progress, printer):
                    manifest = _run(
                        service.start(
                            options,
                            ask=_TerminalAsk(progress)
                            if approve is ApprovalMode.INTERACTIVE
                            else None,
                            progress=progress,
                            on_event=printer,
                            stream_tokens=verbose,
                            reviewer=reviewer,
                        )
                    )
                break
            except PartyRequired as exc:
                # Without --party a person at a terminal chooses; a script gets the error.
                if isinstance(exc, PartyNotFound) or not _interactive():
                    raise
                options = options.model_copy(update={"party": _ask_party(exc.parties)})
    _report_task(manifest)


def _interactive() -> bool:
    """Whether a person can answer questions (standard input is a terminal)."""
    return sys.stdin.isatty()


def _ask_party(parties: list[Party]) -> str:
    """Ask at the terminal whom the review acts for."""
    console = Console(highlight=False, stderr=True)
    console.print("Whom do we act for?", markup=False)
    options = [p.labels[0] if p.labels else p.name for p in parties] + ["neutral"]
    for n, party in enumerate(parties, 1):
        console.print(f"  {n}. {party.describe()}", markup=False)
    console.print(f"  {len(options)}. neutral (name whom each term burdens)", markup=False)
    answer = str(typer.prompt("Number, or a party's name or role", err=True)).strip()
    if answer.isdigit() and 1 <= int(answer) <= len(options):
        return options[int(answer) - 1]
    return answer


def resume(
    task_id: Annotated[str, typer.Argument(help="Task id (see 'list').")],
    restart_changed: Annotated[
        bool,
        typer.Option(
            "--restart-changed",
            help="When an input changed since the task started: review the changed clauses "
            "again, keep the rest and the decisions whose words are still there.",
        ),
    ] = False,
    reviewer: Annotated[str | None, typer.Option(help=_REVIEWER_HELP)] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help=_VERBOSE_HELP)] = False,
) -> None:
    """Continue an interrupted review (finished clauses and given decisions are kept)."""
    from contract_review.service import ReviewService

    with user_errors(), _stopped_by_user(), _live_output(verbose) as (progress, printer):
        manifest = _run(
            ReviewService().resume(
                task_id,
                ask=_TerminalAsk(progress),
                progress=progress,
                on_event=printer,
                stream_tokens=verbose,
                restart_changed=restart_changed,
                reviewer=reviewer,
            )
        )
    _report_task(manifest)
