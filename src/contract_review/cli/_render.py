"""Human-readable renderings for the terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

from contract_review.graph.events import EventType, ReviewEvent, short
from contract_review.models import ClauseNode, DocumentStructure, LoadedText


def _label(node: ClauseNode) -> str:
    size = node.end_offset - node.start_offset
    title = f" [bold]{escape(node.title)}[/]" if node.title else ""
    number = (
        f" [dim]({escape(node.number)})[/]" if node.number and node.number != node.clause_id else ""
    )
    return f"[cyan]{escape(node.clause_id)}[/]{title}{number} [dim]{size:,} chars[/]"


def _add(tree: Tree, nodes: list[ClauseNode]) -> None:
    for node in nodes:
        _add(tree.add(_label(node)), node.children)


def render_tree(console: Console, structure: DocumentStructure, loaded: LoadedText) -> None:
    """The clause tree with ids, titles and sizes, then definitions and reference checks."""
    root = Tree(
        f"[bold]{escape(structure.document_id)}[/] [dim]{loaded.format.value}, "
        f"{structure.language}, {structure.text_length:,} chars, "
        f"{structure.total_clauses} clauses[/]"
    )
    _add(root, structure.clauses)
    console.print(root)
    if structure.definitions:
        terms = ", ".join(sorted(structure.definitions))
        console.print(f"[bold]Definitions ({len(structure.definitions)}):[/] {escape(terms)}")
    refs = structure.cross_references
    invalid = [r for r in refs if not r.is_valid]
    console.print(f"[bold]Cross-references:[/] {len(refs)}, {len(invalid)} to missing clauses")
    for r in invalid:
        console.print(
            f"  [red]✗[/] {escape(r.reference_text)} in clause {escape(r.source_clause_id or '-')}"
            f" → {escape(r.target_clause_id)} not found"
        )
    for h in loaded.hidden_spans:
        console.print(f"[yellow]hidden text ({h.reason}):[/] {escape(h.text[:120])}")


def render_skills(console: Console, rows: list[dict[str, Any]]) -> None:
    """Skills as a table: id, domain, category, parameters, description."""
    table = Table(show_lines=True)
    for col in ("skill", "domain", "category", "parameters", "description"):
        table.add_column(col, overflow="fold")
    for row in rows:
        params = row["parameters"].get("properties", {})
        required = set(row["parameters"].get("required", []))
        names = ", ".join(f"{n}{'*' if n in required else ''}" for n in params)
        table.add_row(
            escape(row["skill_id"]),
            row["domain"],
            row["category"],
            escape(names),
            escape(row["description"]),
        )
    console.print(table)
    console.print("[dim]* required parameter[/]")


def render_playbook(console: Console, rows: list[dict[str, Any]]) -> None:
    """Playbook positions as a table: id, topic, subtypes, severity, standard position."""
    table = Table(show_lines=True)
    for col in ("position", "topic", "subtypes", "severity", "standard"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(
            escape(row["id"]),
            escape(row["topic"]),
            escape(", ".join(row.get("subtypes", [])) or "all"),
            row["severity"],
            escape(row["standard"]),
        )
    console.print(table)


def render_checklist(console: Console, rows: list[dict[str, Any]]) -> None:
    """Checklist items as a table."""
    table = Table()
    for col in ("clause", "title", "topic", "priority", "skills", "offsets", "text"):
        table.add_column(col, overflow="fold")
    for row in rows:
        text = " ".join(row["text"].split())
        table.add_row(
            escape(row["clause_id"]),
            escape(row["clause_name"]),
            escape(row["topic"] or "-"),
            row["priority"],
            escape(", ".join(row["required_skills"])),
            f"{row['start_offset']}-{row['end_offset']}",
            escape(text[:80]),
        )
    console.print(table)
    console.print(f"[dim]{len(rows)} items[/]")


def render_inventory(console: Console, rows: list[dict[str, Any]]) -> None:
    """Inventory entries as a table: category, present, clauses, value."""
    table = Table()
    for col in ("category", "present", "clauses", "value"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(
            escape(row["category"]),
            "yes" if row["present"] else "[dim]no[/]",
            escape(", ".join(row["clause_ids"][:4])),
            escape(row["value"]),
        )
    console.print(table)
    present = sum(1 for r in rows if r["present"])
    console.print(f"[dim]{present} of {len(rows)} categories present[/]")


# --------------------------------------------------------------------------------------------
# Live review events
# --------------------------------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _value(value: Any) -> str:
    """A tool argument as the model would write it: strings quoted, the rest as JSON-ish."""
    return repr(value) if isinstance(value, str) else str(value)


_DEPTHS = ("deep", "standard", "quick", "skip")


class EventPrinter:
    """Prints review events on `console`, one line each (the `--verbose` view of a review).

    Warnings are always printed, each text once however often it is reported; everything else
    only when `verbose`. LLM tokens are counted per clause and shown in the clause's done line.
    Contract and tool text is printed literally (no markup, no emoji codes, no highlighting).
    """

    def __init__(self, console: Console, *, verbose: bool = False) -> None:
        self.console = console
        self.verbose = verbose
        self._warned: set[str] = set()
        self._tokens: dict[str, int] = {}

    def __call__(self, event: ReviewEvent) -> None:
        if event.type is EventType.WARNING:
            self.warning(event.text or "")
            return
        if event.type is EventType.LLM_TOKEN:
            key = event.clause_id or ""
            self._tokens[key] = self._tokens.get(key, 0) + 1
            return
        if not self.verbose:
            return
        line, style = self._line(event)
        if line:
            self._print(line, style)

    def warning(self, text: str) -> None:
        """`warning: <text>` in yellow, unless this text was already printed."""
        text = " ".join(text.split())
        if not text or text in self._warned:
            return
        self._warned.add(text)
        self._print(f"warning: {text}", "yellow")

    def _print(self, line: str, style: str) -> None:
        self.console.print(
            line,
            style=style or None,
            markup=False,
            emoji=False,
            highlight=False,
            soft_wrap=True,
        )

    def _line(self, event: ReviewEvent) -> tuple[str, str]:
        prefix = f"[clause {event.clause_id}] " if event.clause_id else ""
        data = event.data
        match event.type:
            case EventType.NODE_START | EventType.NODE_END:
                node = event.node or ""
                if not node or node.startswith("__") or (node == "clause_review" and not prefix):
                    return "", ""  # a clause branch without its clause says nothing
                verb = "start" if event.type is EventType.NODE_START else "end"
                return f"{prefix}{verb} {node}", "dim"
            case EventType.TOOL_START:
                args = ", ".join(f"{k}={_value(v)}" for k, v in (event.arguments or {}).items())
                return f"{prefix}tool {event.tool or '?'}({short(args, 120)}) …", ""
            case EventType.TOOL_END:
                outcome = "ok" if event.ok else "error"
                detail = short(event.text or "", 120)
                line = f"{prefix}tool {event.tool or '?'} → {outcome}"
                return (f"{line}: {detail}" if detail else line), "" if event.ok else "red"
            case EventType.CLAUSE_DONE:
                return prefix + self._done(event), "bold"
            case EventType.DIFF_PROPOSED:
                return prefix + "redline proposed: " + self._redline(data), ""
            case EventType.INTERRUPT:
                n = int(data.get("diffs", 0) or 0)
                return f"waiting for approval of {n} redline(s)", "bold"
            case EventType.PLAN:
                counts = data.get("counts") or {}
                spread = ", ".join(f"{counts.get(d, 0)} {d}" for d in _DEPTHS)
                note = f" ({data['note']})" if data.get("note") else ""
                return f"plan by the {data.get('source', '?')}: {spread}{note}", "bold"
            case EventType.REPLAN:
                raised = ", ".join(str(k) for k in data.get("raised") or [])
                risk = short(str(data.get("risk") or ""), 80)
                return f"{prefix}re-plan: high risk ({risk}) → deep: {raised}", "bold"
        return "", ""

    def _done(self, event: ReviewEvent) -> str:
        data = event.data
        mode = str(data.get("mode") or "deterministic")
        reason = " ".join(str(data.get("reason") or "").split())
        parts = [
            ("llm" if mode == "llm" else "rules only")
            + (f" ({data['depth']})" if data.get("depth") else ""),
            _plural(int(data.get("risks", 0) or 0), "risk"),
            _plural(int(data.get("diffs", 0) or 0), "redline"),
        ]
        tokens = self._tokens.pop(event.clause_id or "", 0)
        if tokens:
            parts.append(f"{tokens} tokens streamed")
        why = f" — {reason}" if reason and mode != "llm" else ""
        return "done: " + ", ".join(parts) + why

    @staticmethod
    def _redline(diff: dict[str, Any]) -> str:
        action = str(diff.get("action_type") or "replace")
        original = short(str(diff.get("original_text") or ""), 60)
        proposed = short(str(diff.get("proposed_text") or ""), 60)
        if action == "delete":
            return f"delete '{original}'"
        if action == "insert":
            return f"insert '{proposed}' after '{original}'"
        return f"{action} '{original}' → '{proposed}'"
