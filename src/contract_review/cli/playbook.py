"""`playbook show` / `export` / `validate` and `checklist`: the positions a domain reviews
against, and the checklist they make of a contract."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from contract_review.domains import Domain, Subtype, check_domain
from contract_review.errors import InputError

from ._common import (
    _DOMAIN_HELP,
    _SUBTYPE_HELP,
    TableOrJson,
    _err,
    _parser_config,
    _table_console,
    user_errors,
)

if TYPE_CHECKING:
    from contract_review.playbook import Playbook

playbook_app = typer.Typer(help="Show, export or validate review playbooks.")


def _builtin_playbook(domain: str) -> Playbook:
    from contract_review.plugins import load_builtin_plugins
    from contract_review.plugins.registry import require_plugin

    load_builtin_plugins()
    playbook = require_plugin(domain).playbook
    if playbook is None:
        raise InputError(f"domain '{domain}' has no playbook")
    return playbook


@playbook_app.command("show")
def playbook_show(
    domain: Annotated[Domain, typer.Option(help=_DOMAIN_HELP)] = Domain.GENERIC,
    fmt: Annotated[TableOrJson, typer.Option("--format", "-f")] = TableOrJson.TABLE,
) -> None:
    """Print a domain's built-in playbook: each position, its subtypes, severity, standard."""
    with user_errors():
        playbook = _builtin_playbook(domain)
    rows = [
        {
            "id": p.id,
            "topic": p.topic,
            "subtypes": p.subtypes,
            "severity": p.severity,
            "standard": p.standard.text("en"),
        }
        for p in playbook.positions
    ]
    if fmt is TableOrJson.JSON:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    else:
        from ._render import render_playbook  # rich tables load only when printed

        render_playbook(_table_console(), rows)


@playbook_app.command("export")
def playbook_export(
    domain: Annotated[Domain, typer.Option(help=_DOMAIN_HELP)] = Domain.GENERIC,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="YAML file to write (default: stdout).")
    ] = None,
) -> None:
    """Write a domain's built-in playbook as YAML, for a lawyer to edit and load again."""
    from contract_review.playbook import dump_playbook

    with user_errors():
        text = dump_playbook(_builtin_playbook(domain))
        if out is None:
            sys.stdout.write(text)
            return
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"{out}: cannot write ({exc.strerror})") from None
    _err.print(f"playbook written to {out}", markup=False)


@playbook_app.command("validate")
def playbook_validate(
    file: Annotated[Path, typer.Argument(help="Playbook: .yaml/.yml/.json, or .csv/.tsv/.xlsx.")],
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Also show what each position written in words compiles into: the built-in "
            "checks it takes over and the tiers read from its numbers.",
        ),
    ] = False,
    domain: Annotated[
        Domain, typer.Option(help="The domain whose built-in positions it compiles against.")
    ] = Domain.GENERIC,
) -> None:
    """Check a playbook file: one line naming the file, position and field of a problem."""
    from contract_review.playbook import load_playbook

    with user_errors():
        playbook = load_playbook(file)
        built_in = _builtin_playbook(domain) if explain else None
    sys.stdout.write(
        f"{file.name}: ok, {len(playbook.positions)} position(s) for domain {playbook.domain}\n"
    )
    if built_in is not None:
        sys.stdout.write(_explained(playbook, built_in))


def _explained(playbook: Playbook, built_in: Playbook) -> str:
    """What each plain position compiles into, as `validate --explain` prints it."""
    from contract_review.playbook.plain import compile_plain

    lines = []
    compiled = {c.source.id: c for c in compile_plain(playbook.positions, built_in.positions)}
    own = {p.id for p in built_in.positions}
    for position in playbook.positions:
        head = f"{position.id} ({position.topic})"
        done = compiled.get(position.id)
        if done is None:
            kind = "replaces the built-in position" if position.id in own else "a new position"
            checks = (
                f"{len(position.checks)} check(s) of its own" if position.checks else "no check"
            )
            lines.append(f"{head}: {kind}, {checks}")
        elif done.targets:
            names = ", ".join(t.id for t in done.targets)
            lines.append(f"{head} -> {names}")
            lines += list(done.lines)
        else:
            lines.append(
                f"{head}: compiles into no check; located by its title and keywords and listed "
                "in the report as a point to check against your playbook"
            )
    return "".join(f"{line}\n" for line in lines)


def checklist(
    file: Annotated[Path, typer.Argument(help="The contract.")],
    domain: Annotated[Domain, typer.Option(help=_DOMAIN_HELP)] = Domain.GENERIC,
    subtype: Annotated[Subtype | None, typer.Option(help=_SUBTYPE_HELP)] = None,
    fmt: Annotated[TableOrJson, typer.Option("--format", "-f")] = TableOrJson.TABLE,
) -> None:
    """Print the review checklist built for a contract: clause, topic, priority, skills."""
    from contract_review.documents import load_task_document
    from contract_review.models import DocumentRole
    from contract_review.plugins.registry import get_plugin

    with user_errors():
        check_domain(domain, subtype)
        config = _parser_config(domain)
        doc = load_task_document(file, DocumentRole.PRIMARY, parser_config=config)
        plugin = get_plugin(domain)
        assert plugin is not None  # _parser_config checked the domain
        assert doc.structure is not None
        if plugin.build_checklist is None:
            raise InputError(f"domain '{domain}' has no checklist")
        items = plugin.build_checklist(doc.structure, subtype.value if subtype else None)
    rows = []
    for item in items:
        clause = doc.structure.get_clause(item.clause_id)
        rows.append(
            {
                **item.model_dump(mode="json"),
                "start_offset": clause.start_offset if clause else None,
                "end_offset": clause.end_offset if clause else None,
                "text": clause.text if clause else "",
            }
        )
    if fmt is TableOrJson.JSON:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    else:
        from ._render import render_checklist  # rich tables load only when printed

        render_checklist(_table_console(), rows)
