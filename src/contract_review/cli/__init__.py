"""The `contract-review` command line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from contract_review.errors import InputError
from contract_review.intake import load_document
from contract_review.structure_parser import StructureParser

from ._render import render_tree

app = typer.Typer(
    name="contract-review",
    help="Contract review engine: clause structure, risks from your side, approved redlines.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
_err = Console(stderr=True, highlight=False)


class OutputFormat(StrEnum):
    """How `parse` prints the structure."""

    TREE = "tree"
    JSON = "json"


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn user mistakes into one line on stderr and exit code 2 (no traceback)."""
    try:
        yield
    except InputError as exc:
        _err.print(f"[bold red]error:[/] {exc}", markup=True, soft_wrap=True)
        raise typer.Exit(2) from None


@app.command()
def parse(
    file: Annotated[Path, typer.Argument(help="Contract file: .docx, .pdf, .txt or .md.")],
    fmt: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="tree (readable) or json.")
    ] = OutputFormat.TREE,
) -> None:
    """Print the clause structure of a contract."""
    with user_errors():
        loaded = load_document(file)
        structure = StructureParser().parse(loaded.text, document_id=file.stem)
    for warning in loaded.warnings:
        _err.print(f"warning: {warning}", markup=False)
    if fmt is OutputFormat.JSON:
        sys.stdout.write(structure.model_dump_json(indent=2) + "\n")
        return
    out = Console(highlight=False, soft_wrap=True)
    render_tree(out, structure, loaded)


@app.callback()
def _root() -> None:
    """Contract review engine."""


def main() -> None:
    """Console-script entry point."""
    app()
