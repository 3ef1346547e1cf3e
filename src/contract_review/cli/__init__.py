"""The `contract-review` command line: the typer app assembled from the command modules
(tools, playbook, review, decisions, tasks, batch, serve) and `main()`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from . import batch, decisions, playbook, review, serve, tasks, tools
from ._common import _err

if TYPE_CHECKING:
    from ._render import EventPrinter

# Start-up time: each command imports the engine parts it uses (LangGraph, the OpenAI SDK, the
# document and retrieval libraries load in ~1 s), so `--help` and `parse` stay fast.

__all__ = ["EventPrinter", "app", "main"]

app = typer.Typer(
    name="contract-review",
    help="Contract review engine: clause structure, risks from your side, approved redlines.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
)

# Registered here, not in the modules: `--help` lists the commands in registration order, which
# follows the workflow (parse … llm-check), not the modules' grouping.
app.command()(tools.parse)
app.command()(playbook.checklist)
app.command()(tools.inventory)
app.command()(tools.timebars)
app.command()(review.review)
app.command()(review.resume)
app.command()(decisions.approve)
app.command("remember")(decisions.remember_decisions)
app.command()(tasks.status)
app.command("list")(tasks.list_reviews)
app.command()(tasks.transcript)
app.command()(batch.batch)
app.command()(batch.worker)
app.command()(serve.serve)
app.command("llm-check")(tools.llm_check)
app.add_typer(tools.skills_app, name="skills")
app.add_typer(playbook.playbook_app, name="playbook")


@app.callback()
def _root() -> None:
    """Contract review engine."""


def __getattr__(name: str) -> object:
    """`EventPrinter` on demand: importing the CLI (for `--help`) loads no model classes."""
    if name == "EventPrinter":
        from ._render import EventPrinter

        return EventPrinter
    raise AttributeError(name)


def main() -> None:
    """Console-script entry point. A mistake on the command line (an unknown option, a value
    that is not one of the choices) is one `error:` line and exit code 2, like every other
    user error."""
    from typer.main import get_command

    try:
        code = get_command(app).main(prog_name="contract-review", standalone_mode=False)
    except typer.TyperException as exc:
        message = str(getattr(exc, "format_message", lambda: "")()).strip()
        if message:  # '' when the help was shown for a command given no arguments
            _err.print(f"error: {message} (see --help)", markup=False, soft_wrap=True)
        sys.exit(int(getattr(exc, "exit_code", 2)))
    except typer.Abort:
        _err.print("aborted", markup=False)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
