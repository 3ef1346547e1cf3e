"""What the command modules share: the stderr console, user errors as one line, running a
coroutine, the common option help and the parser set-up of a domain.

The leading-underscore names are the `cli` package's own (used by its modules, no API).
"""

from __future__ import annotations

import sys
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console

from contract_review.errors import ExportError, InputError

if TYPE_CHECKING:
    from contract_review.structure_parser import DocumentParserConfig

T = TypeVar("T")

_err = Console(stderr=True, highlight=False)

_DOMAIN_HELP = "The contract's domain."
_SUBTYPE_HELP = "Domain subtype: a FIDIC book (fidic) or spa / sha (sha_spa)."
_REVIEWER_HELP = "Who decides (recorded with each decision); default: the OS user."


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end (asyncio loads only for the commands that need it)."""
    import asyncio

    return asyncio.run(coroutine)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn user mistakes into one line on stderr and exit code 2 (no traceback)."""
    try:
        yield
    except InputError as exc:
        _err.print(f"[bold red]error:[/] {exc}", markup=True, soft_wrap=True)
        raise typer.Exit(2) from None
    except ExportError as exc:  # the review is saved; the outputs could not be written
        _err.print(f"[bold red]error:[/] {exc}", markup=True, soft_wrap=True)
        raise typer.Exit(1) from None


class TableOrJson(StrEnum):
    """How listings print."""

    TABLE = "table"
    JSON = "json"


def _table_console() -> Console:
    # Off a terminal rich assumes 80 columns, which folds tables into unreadable slivers.
    return Console(highlight=False, width=None if sys.stdout.isatty() else 160)


def _parser_config(domain: str | None) -> DocumentParserConfig | None:
    from contract_review.plugins import load_builtin_plugins
    from contract_review.plugins.registry import require_plugin

    load_builtin_plugins()
    return require_plugin(domain).parser_config if domain is not None else None
