"""What a skill may know about the review beyond its clause, read from the graph state.

`prepare_input(clause_id, primary_structure, state)` functions receive the review state as a
mapping (SPEC-19); `ReviewContext.from_state` validates the parts skills use, once, at that
edge — inside a skill everything is typed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from contract_review.errors import SkillError
from contract_review.models import ClauseNode, DocumentRole, DocumentStructure, TaskDocument

__all__ = ["ReviewContext", "require_clause"]


class ReviewContext(BaseModel):
    """The review facts skills use: who we act for, language, domain, and the documents."""

    model_config = ConfigDict(extra="ignore")

    task_id: str = Field("", description="Review task id.")
    our_party: str = Field("", description="The party we act for, as named in the contract.")
    language: str = Field("en", description="'en' or 'zh-CN'.")
    domain_id: str | None = Field(None, description="'generic', 'fidic', 'sha_spa' or None.")
    domain_subtype: str | None = Field(None, description="e.g. 'silver_book'.")
    documents: list[TaskDocument] = Field(default_factory=list, description="Task documents.")
    criteria_path: str | None = Field(None, description="Review playbook file, if any.")

    @classmethod
    def from_state(cls, state: Mapping[str, Any] | None) -> ReviewContext:
        """Validate the relevant keys of a review state (unknown keys are ignored)."""
        return cls.model_validate(dict(state or {}))

    def with_role(self, role: DocumentRole) -> list[TaskDocument]:
        """Documents playing `role`, in task order."""
        return [d for d in self.documents if d.role is role]

    def structure_of(self, role: DocumentRole) -> DocumentStructure | None:
        """Structure of the first document with `role` that has been parsed."""
        return next((d.structure for d in self.with_role(role) if d.structure), None)


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
