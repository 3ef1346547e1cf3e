"""get_clause_context: a clause with its place in the contract."""

from __future__ import annotations

from pydantic import BaseModel, Field

from contract_review.models import ClauseNode, DocumentStructure
from contract_review.skills.context import StructureInput, require_clause
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import input_preparer

SKILL_ID = "get_clause_context"


class ClauseContextInput(StructureInput):
    """Input of get_clause_context."""

    clause_id: str = Field(description="Id of the clause, e.g. '14.2', '4.1(a)', '5(1)'.")
    max_chars: int = Field(
        6000, ge=200, le=50_000, description="Longest clause text returned; longer is cut."
    )


class ClauseRef(BaseModel):
    """A neighbouring clause: id and title."""

    clause_id: str = Field(description="Clause id.")
    title: str = Field("", description="Clause title.")


class DefinitionUsed(BaseModel):
    """A defined term the clause uses."""

    term: str = Field(description="The defined term.")
    definition: str = Field(description="Its definition.")
    defined_in: str | None = Field(None, description="Clause holding the definition.")


class ReferenceOut(BaseModel):
    """A reference from this clause to another."""

    text: str = Field(description="The reference as written.")
    target_clause_id: str = Field(description="Clause referred to.")
    is_valid: bool = Field(description="Whether the target exists.")


class ReferenceIn(BaseModel):
    """A reference to this clause from elsewhere."""

    source_clause_id: str | None = Field(description="Clause the reference is in.")
    text: str = Field(description="The reference as written.")


class ClauseContextOutput(BaseModel):
    """Output of get_clause_context."""

    clause_id: str = Field(description="Clause id.")
    number: str = Field(description="Number as written.")
    title: str = Field(description="Title.")
    text: str = Field(description="Clause text (cut to max_chars).")
    truncated: bool = Field(description="Whether the text was cut.")
    level: int = Field(description="Depth in the clause tree.")
    parent: ClauseRef | None = Field(description="Parent clause.")
    children: list[ClauseRef] = Field(description="Sub-clauses.")
    previous: ClauseRef | None = Field(description="Previous sibling.")
    next: ClauseRef | None = Field(description="Next sibling.")
    definitions_used: list[DefinitionUsed] = Field(description="Defined terms used in the text.")
    references_out: list[ReferenceOut] = Field(description="References made by the clause.")
    references_in: list[ReferenceIn] = Field(description="References made to the clause.")


DESCRIPTION = (
    "Get the full text of one contract clause with its context: title, parent and sub-clauses, "
    "neighbouring clauses, the defined terms it uses with their definitions, the clauses it "
    "refers to (and whether they exist) and the clauses that refer to it. Call this first to "
    "read a clause before judging it. Argument: clause_id (e.g. '14.2', '4.1(a)')."
)


prepare_input = input_preparer(ClauseContextInput)
"""Input for `clause_id` of the primary document."""


def _ref(node: ClauseNode | None) -> ClauseRef | None:
    return ClauseRef(clause_id=node.clause_id, title=node.title) if node else None


def _siblings(structure: DocumentStructure, clause: ClauseNode) -> list[ClauseNode]:
    parent = structure.get_clause(clause.parent_id) if clause.parent_id else None
    return parent.children if parent else structure.clauses


def _uses(text: str, term: str) -> bool:
    i = text.find(term)
    while i != -1:
        before = text[i - 1 : i]
        after = text[i + len(term) : i + len(term) + 1]
        if not (before.isalnum() and before.isascii()) and not (
            after.isalnum() and after.isascii()
        ):
            return True
        i = text.find(term, i + 1)
    return False


def handle(inp: ClauseContextInput) -> ClauseContextOutput:
    """Collect the clause's context from the structure."""
    structure = inp.document_structure
    clause = require_clause(structure, inp.clause_id)
    assert structure is not None  # require_clause checked it
    siblings = _siblings(structure, clause)
    idx = next(i for i, c in enumerate(siblings) if c.clause_id == clause.clause_id)
    parent = structure.get_clause(clause.parent_id) if clause.parent_id else None
    defs = [
        DefinitionUsed(term=d.term, definition=d.definition, defined_in=d.clause_id)
        for d in structure.definitions.values()
        if d.clause_id != clause.clause_id and _uses(clause.text, d.term)
    ]
    start, end = clause.start_offset, clause.end_offset
    out_refs = [
        ReferenceOut(
            text=r.reference_text, target_clause_id=r.target_clause_id, is_valid=r.is_valid
        )
        for r in structure.cross_references
        if start <= r.start_offset < end
    ]
    in_refs = [
        ReferenceIn(source_clause_id=r.source_clause_id, text=r.reference_text)
        for r in structure.cross_references
        if r.target_clause_id == clause.clause_id and not start <= r.start_offset < end
    ]
    return ClauseContextOutput(
        clause_id=clause.clause_id,
        number=clause.number,
        title=clause.title,
        text=clause.text[: inp.max_chars],
        truncated=len(clause.text) > inp.max_chars,
        level=clause.level,
        parent=_ref(parent),
        children=[ClauseRef(clause_id=c.clause_id, title=c.title) for c in clause.children],
        previous=_ref(siblings[idx - 1] if idx > 0 else None),
        next=_ref(siblings[idx + 1] if idx + 1 < len(siblings) else None),
        definitions_used=defs,
        references_out=out_refs,
        references_in=in_refs,
    )


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Clause context",
    description=DESCRIPTION,
    input_schema=ClauseContextInput,
    output_schema=ClauseContextOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="*",
    category="context",
)
