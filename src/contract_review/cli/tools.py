"""The tools around a review: `parse`, `skills list` / `skills run`, `inventory`, `timebars`
and `llm-check`."""

from __future__ import annotations

import json
import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from contract_review.domains import Domain, Subtype, check_domain
from contract_review.errors import InputError, LLMError

from ._common import (
    _DOMAIN_HELP,
    _SUBTYPE_HELP,
    TableOrJson,
    _err,
    _parser_config,
    _run,
    _table_console,
    user_errors,
)


class OutputFormat(StrEnum):
    """How `parse` prints the structure."""

    TREE = "tree"
    JSON = "json"


def parse(
    file: Annotated[Path, typer.Argument(help="Contract file: .docx, .pdf, .txt or .md.")],
    fmt: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="tree (readable) or json.")
    ] = OutputFormat.TREE,
) -> None:
    """Print the clause structure of a contract."""
    from contract_review.intake import load_document
    from contract_review.structure_parser import StructureParser

    with user_errors():
        loaded = load_document(file)
        structure = StructureParser().parse(loaded.text, document_id=file.stem)
    for warning in loaded.warnings:
        _err.print(f"warning: {warning}", markup=False)
    if fmt is OutputFormat.JSON:
        sys.stdout.write(structure.model_dump_json(indent=2) + "\n")
        return
    out = Console(highlight=False, soft_wrap=True)
    from ._render import render_tree  # rich tables load only when printed

    render_tree(out, structure, loaded)


skills_app = typer.Typer(help="List the skills or run one on a contract clause.")


@skills_app.command("list")
def skills_list(
    fmt: Annotated[TableOrJson, typer.Option("--format", "-f")] = TableOrJson.TABLE,
    domain: Annotated[
        Domain | None, typer.Option(help="Only generic skills and those of this domain.")
    ] = None,
) -> None:
    """List the skills with their domain, category, description and tool parameters."""
    from contract_review.plugins import create_dispatcher

    dispatcher = create_dispatcher()
    tools = {t["function"]["name"]: t for t in dispatcher.get_tool_definitions()}
    rows = []
    for reg in dispatcher.list_skills():
        if domain and reg.domain not in ("*", domain):
            continue
        params = tools.get(reg.skill_id, reg.to_tool_definition())["function"]["parameters"]
        rows.append(
            {
                "skill_id": reg.skill_id,
                "name": reg.name,
                "domain": reg.domain,
                "category": reg.category,
                "backend": reg.backend.value,
                "status": reg.status,
                "description": reg.description,
                "parameters": params,
            }
        )
    if fmt is TableOrJson.JSON:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    else:
        from ._render import render_skills  # rich tables load only when printed

        render_skills(_table_console(), rows)


def _parse_args(args: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep or not key:
            raise InputError(f"--arg expects key=value, got '{arg}'")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


@skills_app.command("run")
def skills_run(
    skill: Annotated[str, typer.Argument(help="Skill id (see 'skills list').")],
    file: Annotated[Path, typer.Argument(help="The contract (primary document).")],
    clause: Annotated[str, typer.Option("--clause", "-c", help="Clause id, e.g. 14.2.")],
    arg: Annotated[
        list[str] | None,
        typer.Option("--arg", "-a", help="Business argument key=value (JSON values allowed)."),
    ] = None,
    party: Annotated[str, typer.Option(help="The party we act for.")] = "",
    domain: Annotated[Domain | None, typer.Option(help=_DOMAIN_HELP)] = None,
    subtype: Annotated[Subtype | None, typer.Option(help=_SUBTYPE_HELP)] = None,
    baseline: Annotated[Path | None, typer.Option(help="Baseline document.")] = None,
    reference: Annotated[
        list[Path] | None, typer.Option(help="Reference document (repeatable).")
    ] = None,
    criteria: Annotated[Path | None, typer.Option(help="Review playbook file.")] = None,
) -> None:
    """Run one skill on one clause and print its result as JSON."""
    from contract_review.documents import load_task_documents
    from contract_review.plugins import create_dispatcher

    with user_errors():
        config = _parser_config(domain)
        llm_arguments = _parse_args(arg or [])
        documents = load_task_documents(
            file, baseline=baseline, references=reference or [], parser_config=config
        )
        primary = documents[0]
        if criteria is not None and not criteria.is_file():
            raise InputError(f"{criteria}: file not found")
        structure = primary.structure
        state = {
            "our_party": party,
            "language": structure.language if structure else "en",
            "domain_id": domain,
            "domain_subtype": subtype,
            "documents": documents,
            "criteria_path": str(criteria) if criteria else None,
        }
        dispatcher = create_dispatcher()
        if dispatcher.get_registration(skill) is None:
            raise InputError(f"unknown skill '{skill}'; see 'contract-review skills list'")
        result = _run(
            dispatcher.prepare_and_call(
                skill, clause, structure, state, llm_arguments=llm_arguments
            )
        )
        if not result.success:
            raise InputError(f"{skill}: {result.error}")
    sys.stdout.write(json.dumps(result.data, ensure_ascii=False, indent=2) + "\n")


class InventoryFormat(StrEnum):
    """How the inventory prints."""

    TABLE = "table"
    JSON = "json"
    CSV = "csv"


def inventory(
    file: Annotated[Path, typer.Argument(help="The contract.")],
    domain: Annotated[Domain, typer.Option(help=_DOMAIN_HELP)] = Domain.GENERIC,
    fmt: Annotated[InventoryFormat, typer.Option("--format", "-f")] = InventoryFormat.TABLE,
) -> None:
    """Print the clause inventory of a contract: its kind (licence, lease, loan …, ranked),
    then each of the 41 CUAD categories, present or not, the clauses and the value (governing
    law, dates, renewal, notice period …)."""
    import csv

    from contract_review.analysis.kinds import detect_kinds
    from contract_review.documents import load_task_document
    from contract_review.models import DocumentRole
    from contract_review.plugins.registry import get_plugin

    with user_errors():
        config = _parser_config(domain)
        plugin = get_plugin(domain)
        assert plugin is not None  # _parser_config checked the domain
        if plugin.build_inventory is None:
            raise InputError(f"domain '{domain}' has no clause inventory")
        doc = load_task_document(file, DocumentRole.PRIMARY, parser_config=config)
        assert doc.structure is not None
        result = plugin.build_inventory(doc.structure)
        kinds = detect_kinds(doc.structure)
    # The kind leads as a row of its own: the ids ranked, the main kind's evidence as quote.
    kind_row = {
        "category": "Contract Kind",
        "present": bool(kinds),
        "clause_ids": [],
        "value": "; ".join(f"{k.kind} ({k.confidence:.2f})" for k in kinds),
        "quote": "; ".join(f"{e.source}: {e.words}" for e in kinds[0].evidence) if kinds else "",
    }
    rows = [kind_row, *(e.model_dump(mode="json") for e in result.entries)]
    if fmt is InventoryFormat.JSON:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    elif fmt is InventoryFormat.CSV:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(["category", "present", "clauses", "value", "quote"])
        for row in rows:
            present, clauses = "yes" if row["present"] else "no", " ".join(row["clause_ids"])
            writer.writerow([row["category"], present, clauses, row["value"], row["quote"]])
    else:
        from ._render import render_inventory  # rich tables load only when printed

        console = _table_console()
        console.print(f"Contract kind: {kind_row['value'] or 'not recognised'}", markup=False)
        render_inventory(console, rows[1:])


def timebars(
    file: Annotated[Path, typer.Argument(help="The contract (or Particular Conditions).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="deadlines.ics or deadlines.csv")],
    party: Annotated[str, typer.Option(help="The party we act for.")] = "",
    domain: Annotated[
        Domain, typer.Option(help="Domain whose standard periods to compare.")
    ] = Domain.FIDIC,
    subtype: Annotated[Subtype | None, typer.Option(help=_SUBTYPE_HELP)] = None,
    start_date: Annotated[
        str | None,
        typer.Option(
            help="Date (YYYY-MM-DD) the limits whose trigger is not dated are counted from; "
            "needed for .ics (without it a .csv keeps deadlines relative)."
        ),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            help="General Conditions that FILE (Particular Conditions) amends: the limits of "
            "the conditions in force are exported."
        ),
    ] = None,
) -> None:
    """Export every time limit of a contract (notice periods, time bars) as a calendar or CSV."""
    from datetime import date

    from contract_review.documents import load_task_documents
    from contract_review.exports.timebars import check_output, write_timebars
    from contract_review.parties import party_roles
    from contract_review.plugins.fidic.skills.time_bar import time_bars_for_document
    from contract_review.plugins.registry import require_plugin

    with user_errors():
        try:
            start = date.fromisoformat(start_date) if start_date else None
        except ValueError:
            raise InputError(f"--start-date must be YYYY-MM-DD, got '{start_date}'") from None
        check_domain(domain, subtype)
        config = _parser_config(domain)
        plugin = require_plugin(domain)
        book = subtype.value if subtype else None
        if baseline is not None and plugin.prepare_documents is None:
            raise InputError(
                f"--baseline: domain '{domain}' does not merge General and Particular Conditions"
            )
        check_output(out, start_date=start)
        docs = load_task_documents(file, baseline=baseline, parser_config=config)
        primary = docs[0]
        if baseline is not None and plugin.prepare_documents is not None:
            docs = plugin.prepare_documents(docs, plugin.parser_config)
        structure = docs[0].structure
        assert structure is not None
        bars = time_bars_for_document(
            structure,
            roles=party_roles(structure, party) if party else None,
            baseline_of=lambda key: plugin.baseline(key, book),
        )
        count = write_timebars(bars, out, start_date=start)
    if baseline is not None:
        if docs[0] is primary:
            _err.print(
                f"warning: {file.name} holds no amendment instructions; "
                f"{baseline.name} was not merged",
                markup=False,
                soft_wrap=True,
            )
        for warning in docs[0].content.warnings if docs[0].content else []:
            _err.print(f"warning: {warning}", markup=False, soft_wrap=True)
    _err.print(f"{count} time limit{'' if count == 1 else 's'} written to {out}", markup=False)


_ECHO_TOOL = {
    "type": "function",
    "function": {
        "name": "echo",
        "description": "Repeat the given text.",
        "parameters": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
}


async def _probe_llm() -> tuple[str, float, bool, int]:
    """(model, seconds, whether the model called the tool, tokens) of one tiny request."""
    from contract_review.config import get_settings
    from contract_review.llm_client import LLMClient  # the SDK loads slowly: only when used

    client = LLMClient.from_settings(get_settings())
    if client is None:
        raise InputError("LLM_BASE_URL is not set: reviews run in deterministic mode")
    async with client:
        start = time.perf_counter()
        _, calls = await client.chat_with_tools(
            [{"role": "user", "content": "Call the echo tool with the text 'ok'."}],
            tools=[_ECHO_TOOL],
            temperature=0,
        )
        elapsed = time.perf_counter() - start
    return client.model, elapsed, bool(calls), client.usage.total_tokens


def llm_check() -> None:
    """Check the LLM endpoint (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL): one small request that
    offers a tool, as the review agent does."""
    with user_errors():
        try:
            model, elapsed, tools, tokens = _run(_probe_llm())
        except LLMError as exc:
            _err.print(f"error: {exc}", markup=False, highlight=False)
            raise typer.Exit(1) from None
    calls = (
        "calls tools" if tools else "answered without calling the tool (agent rounds may be weak)"
    )
    sys.stdout.write(f"LLM endpoint ok: model {model}, {elapsed:.2f} s, {tokens} tokens; {calls}\n")
