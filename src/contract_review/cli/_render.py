"""Human-readable renderings for the terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

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
