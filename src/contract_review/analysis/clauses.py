"""Looking a clause up by id, with an error that helps whoever asked (often a model) correct
the id."""

from __future__ import annotations

from contract_review.errors import SkillError
from contract_review.models import ClauseNode, DocumentStructure

__all__ = ["require_clause"]


def require_clause(structure: DocumentStructure | None, clause_id: str) -> ClauseNode:
    """The clause, or a `SkillError` naming nearby ids so an LLM can correct itself."""
    if structure is None:
        raise SkillError("no document structure is available")
    clause = structure.get_clause(clause_id)
    if clause is not None:
        return clause
    ids = [c.clause_id for c in structure.iter_clauses()]
    head = clause_id.split(".")[0].split("(")[0]
    near = [i for i in ids if i.split(".")[0].split("(")[0] == head][:8] or ids[:8]
    raise SkillError(f"clause '{clause_id}' not found; existing ids include: {', '.join(near)}")
