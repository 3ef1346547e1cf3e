"""Human-readable renderings for the terminal."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
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
