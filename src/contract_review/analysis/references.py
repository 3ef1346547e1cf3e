"""Cross-references: whether a clause's references to other clauses are sound.

Each reference made inside a clause is checked against the contract's clauses (and, when the
review has one, the baseline's): its target exists, was deleted (a '[Deleted]' clause, or one
only the baseline has), is missing, or is the clause itself. Circular reference chains that run
through the clause are found on the document's reference graph, built once per document.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Literal

from pydantic import BaseModel, Field

from contract_review.analysis.cache import per_structure
from contract_review.models import ClauseNode, DocumentStructure

__all__ = ["CheckedReference", "RefStatus", "ReferenceCheck", "check_references"]

RefStatus = Literal["ok", "missing", "deleted", "self"]

_DELETED = re.compile(
    r"\[?\s*(?:deleted|not used|intentionally (?:omitted|left blank)|reserved|omitted)\s*\]?"
    r"|删除|不适用|本条空缺|此条删除",
    re.IGNORECASE,
)
_MAX_CYCLE = 6


class CheckedReference(BaseModel):
    """One reference made by the clause, checked."""

    text: str = Field(description="The reference as written (verbatim).")
    target_clause_id: str = Field(description="Clause referred to.")
    status: RefStatus = Field(
        description="ok; missing (no such clause); deleted (clause deleted or only in the "
        "baseline); self (refers to itself)."
    )
    target_title: str = Field("", description="Title of the target, if it exists.")
    start_offset: int = Field(description="Offset of the reference in the document text.")


class ReferenceCheck(BaseModel):
    """The references out of a clause, checked, and the cycles through it."""

    references: list[CheckedReference] = Field(description="References out of the clause.")
    cycles: list[list[str]] = Field(
        description="Circular reference chains through this clause, e.g. ['8.5', '20.1', '8.5']."
    )
    issues: list[str] = Field(description="Problems found, one line each.")


def _is_deleted(node: ClauseNode) -> bool:
    body = node.body.strip() or node.title
    return len(body) <= 60 and bool(_DELETED.search(body))


def check_references(
    structure: DocumentStructure, clause: ClauseNode, baseline: DocumentStructure | None = None
) -> ReferenceCheck:
    """Check every reference made inside `clause` (of `structure`); a target only `baseline`
    has counts as deleted."""
    start, end = clause.start_offset, clause.end_offset
    checked: list[CheckedReference] = []
    issues: list[str] = []
    refs = structure.cross_references
    offsets = _ref_offsets(structure)
    for ref in refs[bisect_left(offsets, start) : bisect_left(offsets, end)]:
        target = structure.get_clause(ref.target_clause_id)
        status: RefStatus
        if target is not None and _within(target, clause):
            status = "self" if target.clause_id == clause.clause_id else "ok"
        elif target is not None:
            status = "deleted" if _is_deleted(target) else "ok"
        elif ref.is_valid:
            status = "ok"  # e.g. "Section 3(b)" where (b) is an inline item of clause 3
        elif baseline is not None and baseline.get_clause(ref.target_clause_id) is not None:
            status = "deleted"
        else:
            status = "missing"
        checked.append(
            CheckedReference(
                text=ref.reference_text,
                target_clause_id=ref.target_clause_id,
                status=status,
                target_title=target.title if target else "",
                start_offset=ref.start_offset,
            )
        )
        if status == "missing":
            issues.append(
                f"'{ref.reference_text}' refers to clause {ref.target_clause_id}, "
                "which does not exist in this contract"
            )
        elif status == "deleted":
            issues.append(
                f"'{ref.reference_text}' refers to clause {ref.target_clause_id}, "
                "which has been deleted from these conditions"
            )
    cycles = _cycles(structure, clause.clause_id)
    for cycle in cycles:
        issues.append("circular reference: " + " → ".join(cycle))
    return ReferenceCheck(references=checked, cycles=cycles, issues=issues)


def _within(node: ClauseNode, clause: ClauseNode) -> bool:
    return clause.start_offset <= node.start_offset < clause.end_offset


@per_structure()
def _ref_offsets(structure: DocumentStructure) -> list[int]:
    """Start offsets of the (sorted) cross-references, for range lookups."""
    return [r.start_offset for r in structure.cross_references]


@per_structure()
def _graph(structure: DocumentStructure) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for ref in structure.cross_references:
        source, target = ref.source_clause_id, ref.target_clause_id
        if source and source != target and structure.get_clause(target) is not None:
            edges.setdefault(source, set()).add(target)
    return edges


def _cycles(structure: DocumentStructure, start: str) -> list[list[str]]:
    """Simple cycles start → … → start of at most _MAX_CYCLE hops (each reported once)."""
    edges = _graph(structure)
    out: list[list[str]] = []
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    while stack:
        node, path = stack.pop()
        for nxt in sorted(edges.get(node, ())):
            if nxt == start:
                out.append([*path, start])
            elif nxt not in path and len(path) < _MAX_CYCLE:
                stack.append((nxt, [*path, nxt]))
    out.sort(key=len)
    return out[:10]
