"""The `contract-review` command line."""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from contract_review.domains import Domain, Subtype, check_domain
from contract_review.errors import ExportError, InputError, LLMError

if TYPE_CHECKING:
    from contract_review.parties import Party
    from contract_review.playbook import Playbook
    from contract_review.structure_parser import DocumentParserConfig
    from contract_review.tasks import TaskManifest

    from ._render import EventPrinter

# Start-up time: each command imports the engine parts it uses (LangGraph, the OpenAI SDK, the
# document and retrieval libraries load in ~1 s), so `--help` and `parse` stay fast.

__all__ = ["EventPrinter", "app", "main"]

T = TypeVar("T")

app = typer.Typer(
    name="contract-review",
    help="Contract review engine: clause structure, risks from your side, approved redlines.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
)
_err = Console(stderr=True, highlight=False)


_DOMAIN_HELP = "The contract's domain."
_SUBTYPE_HELP = "Domain subtype: a FIDIC book (fidic) or spa / sha (sha_spa)."


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


class OutputFormat(StrEnum):
    """How `parse` prints the structure."""

    TREE = "tree"
    JSON = "json"


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


@app.command()
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
app.add_typer(skills_app, name="skills")


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


playbook_app = typer.Typer(help="Show, export or validate review playbooks.")
app.add_typer(playbook_app, name="playbook")


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
) -> None:
    """Check a playbook file: one line naming the file, position and field of a problem."""
    from contract_review.playbook import load_playbook

    with user_errors():
        playbook = load_playbook(file)
    sys.stdout.write(
        f"{file.name}: ok, {len(playbook.positions)} position(s) for domain {playbook.domain}\n"
    )


@app.command()
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


class InventoryFormat(StrEnum):
    """How the inventory prints."""

    TABLE = "table"
    JSON = "json"
    CSV = "csv"


@app.command()
def inventory(
    file: Annotated[Path, typer.Argument(help="The contract.")],
    domain: Annotated[Domain, typer.Option(help=_DOMAIN_HELP)] = Domain.GENERIC,
    fmt: Annotated[InventoryFormat, typer.Option("--format", "-f")] = InventoryFormat.TABLE,
) -> None:
    """Print the clause inventory of a contract: each of the 41 CUAD categories, present or
    not, the clauses and the value (governing law, dates, renewal, notice period …)."""
    import csv

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
    rows = [e.model_dump(mode="json") for e in result.entries]
    if fmt is InventoryFormat.JSON:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    elif fmt is InventoryFormat.CSV:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(["category", "present", "clauses", "value", "quote"])
        for e in result.entries:
            writer.writerow(
                [e.category, "yes" if e.present else "no", " ".join(e.clause_ids), e.value, e.quote]
            )
    else:
        from ._render import render_inventory  # rich tables load only when printed

        render_inventory(_table_console(), rows)


@app.command()
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


class ApprovalMode(StrEnum):
    """How redlines are approved."""

    INTERACTIVE = "interactive"
    ALL = "all"
    NONE = "none"


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


_VERBOSE_HELP = "Print what the review does, live: nodes, tool calls, clause results, redlines."


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


_REVIEWER_HELP = "Who decides (recorded with each decision); default: the OS user."


@app.command()
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


@app.command()
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


_REMEMBER_HELP = (
    "Keep your edits and rejections with feedback as amended positions in this playbook file "
    "(.yaml/.json; one per client or matter), for later reviews' --criteria."
)


@app.command()
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


@app.command("remember")
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


@app.command()
def status(task_id: Annotated[str, typer.Argument(help="Task id.")]) -> None:
    """Where a review stands: status, clauses done, redlines by decision, outputs, next step."""
    from contract_review.tasks import load_manifest

    with user_errors():
        manifest = load_manifest(task_id)
    _report_task(manifest)


@app.command("list")
def list_reviews() -> None:
    """The reviews run from this folder, newest first, with how far each got."""
    from contract_review.tasks import list_tasks

    problems: list[str] = []
    for m in list_tasks(problems=problems):
        step = m.next_step()
        sys.stdout.write(
            f"{m.task_id}  {m.current_status():11s} {m.counts.describe()}  {m.options.file}"
            f"{f'  → {step}' if step else ''}\n"
        )
    for problem in problems:
        _err.print(f"warning: {problem}", markup=False, highlight=False, soft_wrap=True)


@app.command()
def transcript(
    task_id: Annotated[str, typer.Argument(help="Task id.")],
    clause: Annotated[
        str | None,
        typer.Argument(help="Clause id ('(plan)' for the review's plan); none: a summary."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The stored JSON lines.")] = False,
) -> None:
    """What the model was shown and answered (audit): per clause, every message, tool call
    with its arguments and result, the final answer, time and tokens."""
    from contract_review.tasks import load_manifest
    from contract_review.transcripts import read_transcripts, summary

    with user_errors():
        load_manifest(task_id)  # an unknown task is an error, not an empty transcript
        entries = read_transcripts(task_id, clause=clause)
        if clause is not None and not entries:
            raise InputError(f"no transcript of clause {clause} in task {task_id}")
    if as_json:
        for entry in entries:
            sys.stdout.write(json.dumps(entry, ensure_ascii=False) + "\n")
        return
    if clause is None:
        if not entries:
            sys.stdout.write("no transcripts (the review ran without a model)\n")
        for row in summary(entries):
            sys.stdout.write(
                f"{row['clause_id']:>10}  {row['runs']} run(s)  {row['rounds']} round(s)  "
                f"{row['tool_calls']} tool call(s)  {row['prompt_tokens']}+"
                f"{row['completion_tokens']} tokens  {row['seconds']:.1f} s  "
                f"{row['stop_reason']}\n"
            )
        return
    for entry in entries:
        _print_transcript(entry)


def _print_transcript(entry: dict[str, Any]) -> None:
    tokens = entry.get("tokens") or {}
    sys.stdout.write(
        f"== clause {entry.get('clause_id')}  {entry.get('ended_at', '')}  "
        f"model {entry.get('model', '?')}  {entry.get('stop_reason', '')}  "
        f"{entry.get('elapsed_seconds', 0)} s  "
        f"{tokens.get('prompt', 0)}+{tokens.get('completion', 0)} tokens\n"
    )
    for message in entry.get("messages") or []:
        role = str(message.get("role", "?"))
        content = str(message.get("content") or "")
        calls = message.get("tool_calls") or []
        if content:
            sys.stdout.write(f"-- {role}\n{content}\n")
        for call in calls:
            function = call.get("function") or {}
            sys.stdout.write(
                f"-- {role} calls {function.get('name', '?')}({function.get('arguments', '')})\n"
            )


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


@app.command()
def batch(
    paths: Annotated[list[str], typer.Argument(help="Contracts: files, folders, globs.")],
    out: Annotated[Path, typer.Option(help="Output folder (portfolio.xlsx, per contract).")],
    party: Annotated[
        str,
        typer.Option(
            help="Whom we act for in every contract: a role (licensee, buyer, 甲方), aliases "
            "separated by '|', or neutral."
        ),
    ] = "neutral",
    parties: Annotated[
        Path | None, typer.Option(help="CSV of file, party: each contract's own party.")
    ] = None,
    domain: Annotated[Domain, typer.Option(help=_DOMAIN_HELP)] = Domain.GENERIC,
    criteria: Annotated[Path | None, typer.Option(help="Review playbook.")] = None,
    workers: Annotated[int, typer.Option(help="Local worker processes (0: one per core).")] = 0,
    inventory_only: Annotated[
        bool, typer.Option("--inventory-only", help="Only the clause inventory, no risk review.")
    ] = False,
    queue: Annotated[
        bool,
        typer.Option(
            "--queue",
            help="Send the contracts to Celery workers (contract-review worker) instead of "
            "local processes; needs CELERY_BROKER_URL and POSTGRES_URL.",
        ),
    ] = False,
) -> None:
    """Review many contracts into one workbook (portfolio.xlsx, portfolio.json); every redline
    is left pending. Run again, it skips the contracts already done."""
    from contract_review.batch import BatchOptions, run_batch

    with user_errors():
        if criteria is not None and not criteria.is_file():
            raise InputError(f"--criteria {criteria}: file not found")
        if queue:
            _warn_without_workers()
        options = BatchOptions(
            paths=paths,
            out=out,
            party=party,
            parties_file=parties,
            domain=domain.value,
            criteria=criteria,
            workers=workers,
            inventory_only=inventory_only,
            queue=queue,
        )
        with _Progress() as progress:
            rows = run_batch(options, progress=progress)
    done = sum(1 for r in rows if r.status == "done")
    errors = [r for r in rows if r.status == "error"]
    same = sum(1 for r in rows if r.status == "duplicate")
    _err.print(
        f"{len(rows)} contract(s): {done} reviewed, {same} duplicate(s), {len(errors)} error(s)",
        markup=False,
    )
    for row in errors:
        _err.print(f"  {row.file}: {row.error}", markup=False, soft_wrap=True)
    _err.print(f"  portfolio {out / 'portfolio.xlsx'}", markup=False)


def _warn_without_workers() -> None:
    """A queued batch with no worker listening would wait silently: say so (it still waits,
    a worker may be started later)."""
    from contract_review.config import get_settings
    from contract_review.jobs.celery_app import make_app, ping

    if not ping(make_app(get_settings())):
        _err.print(
            "warning: no worker answers on the queue yet; start one with `contract-review "
            "worker` (the contracts wait in the queue)",
            markup=False,
        )


@app.command()
def worker(
    concurrency: Annotated[
        int, typer.Option(help="Reviews run at the same time (pool processes; 0: one per core).")
    ] = 0,
    loglevel: Annotated[str, typer.Option(help="Celery log level.")] = "warning",
) -> None:
    """Run queued reviews (batch --queue, the web app with a broker) on this machine: a Celery
    worker on CELERY_BROKER_URL, with checkpoints, locks and results in POSTGRES_URL."""
    import os

    from contract_review.config import get_settings

    with user_errors():
        from contract_review.jobs.celery_app import make_app

        if concurrency < 0:
            raise InputError("--concurrency must be 0 (one per core) or more")
        settings = get_settings()
        celery = make_app(settings)
        argv = [
            "worker",
            f"--concurrency={concurrency or os.cpu_count() or 1}",
            f"--loglevel={loglevel.upper()}",
            f"--queues={settings.celery_queue}",
            "--hostname=contract-review-%h-" + str(os.getpid()),
            "--without-gossip",
            "--without-mingle",
        ]
    celery.worker_main(argv)


_LOOPBACK = ("127.0.0.1", "localhost", "::1")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (loopback by default).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="Port.")] = 8000,
) -> None:
    """Run the web app and its HTTP API (upload, live progress, approve each redline).

    API clients send Authorization: Bearer <key>; keys come from API_KEYS (name=key pairs)
    or API_KEY. Listening beyond this machine needs a key."""
    from contract_review.config import get_settings

    with user_errors():
        settings = get_settings()
        try:
            keys = settings.named_api_keys()
        except ValueError as exc:
            raise InputError(str(exc)) from None
        if host not in _LOOPBACK and not keys:
            raise InputError(
                f"--host {host} reaches beyond this machine: set API_KEYS or API_KEY first"
            )
        try:
            import uvicorn

            from contract_review.web.app import create_app
        except ImportError as exc:
            raise InputError(
                f"the web app needs the server extra (pip install 'contract-review[server]'): "
                f"{exc.name} is missing"
            ) from None
    if not keys:
        _err.print("warning: no API key set (API_KEYS / API_KEY): no one can sign in", markup=False)
    uvicorn.run(create_app(settings), host=host, port=port, log_level="warning")


@app.command("llm-check")
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
