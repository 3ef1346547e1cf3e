"""search_reference_doc: BM25 search over the clauses of the review's reference documents.

The adapter over `analysis.reference`: the reference documents of the review and a query (or
the current clause, whose title and text are the query) → the ranked passages.
"""

from __future__ import annotations

from pydantic import Field

from contract_review.analysis.reference import (
    ReferencePassage,
    ReferenceSearch,
    search_references,
    searchable_documents,
)
from contract_review.errors import SkillError
from contract_review.models import TaskDocument
from contract_review.skills.context import StructureInput, require_clause
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import input_preparer

__all__ = [
    "REGISTRATION",
    "SKILL_ID",
    "ReferencePassage",
    "SearchReferenceDocInput",
    "SearchReferenceDocOutput",
    "handle",
    "prepare_input",
]

SKILL_ID = "search_reference_doc"


class SearchReferenceDocInput(StructureInput):
    """Input of search_reference_doc."""

    query: str | None = Field(
        None,
        description="What to look for, in English or Chinese (e.g. 'tests on completion', "
        "'误期赔偿金'). Omit to search with the current clause's title and text.",
    )
    top_k: int = Field(5, ge=1, le=50, description="Most passages returned.")
    document_id: str | None = Field(
        None, description="Search only this reference document (its id); omit to search all."
    )
    clause_id: str = Field(
        "",
        description="Contract clause whose title and text form the query when no query is given.",
    )
    reference_documents: list[TaskDocument] = Field(
        default_factory=list, description="Reference documents (filled in by the system)."
    )


SearchReferenceDocOutput = ReferenceSearch
"""Output of search_reference_doc: the passages found (`analysis.reference.ReferenceSearch`)."""


DESCRIPTION = (
    "Search the review's reference documents (e.g. Employer's Requirements, technical "
    "specifications, 发包人要求/技术要求) for the passages most relevant to a query, ranked by "
    "BM25 with legal synonyms (违约金 ~ 误期赔偿金, retention ~ 质量保证金). Returns each "
    "passage's document, clause id, title, verbatim text (cut to 800 characters), score and the "
    "terms it matched. Call it to check what the reference documents require on a topic the "
    "contract clause deals with (standards, tests, guarantees, site data, payment, delay). "
    "Arguments: query (words or a phrase, English or Chinese; omit to search with the current "
    "clause's text), top_k (default 5), document_id (optional, to search one document)."
)


prepare_input = input_preparer(SearchReferenceDocInput)
"""Input searching the reference documents of the review with `clause_id`'s text."""


def handle(inp: SearchReferenceDocInput) -> SearchReferenceDocOutput:
    """Rank the reference passages for the query."""
    docs = searchable_documents(inp.reference_documents, inp.document_id)
    if inp.query is not None:
        return search_references(docs, inp.query, top_k=inp.top_k)
    if not inp.clause_id:
        raise SkillError("give a query, or a clause_id whose text to search with")
    clause = require_clause(inp.document_structure, inp.clause_id)
    return search_references(docs, clause=clause, top_k=inp.top_k)


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Search reference documents",
    description=DESCRIPTION,
    input_schema=SearchReferenceDocInput,
    output_schema=SearchReferenceDocOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="*",
    category="retrieval",
)
