"""load_review_criteria: the review playbook's criteria that apply to a clause.

A playbook is a table of review criteria — topic and/or clause number, what to check, our
preferred and fallback positions, a risk level — kept as CSV, XLSX, YAML or JSON
(`playbook.criteria` reads it). The skill is the adapter over `analysis.criteria`, which
matches the criteria to one clause: by clause number (the clause itself or a parent), by its
title, or by keywords in its text.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from contract_review.analysis.criteria import CriterionMatch, match_criteria
from contract_review.errors import SkillError
from contract_review.playbook.criteria import load_criteria
from contract_review.skills.context import ReviewContext, StructureInput, require_clause
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import input_preparer

__all__ = [
    "REGISTRATION",
    "SKILL_ID",
    "CriterionMatch",
    "LoadReviewCriteriaInput",
    "LoadReviewCriteriaOutput",
    "handle",
    "prepare_input",
]

SKILL_ID = "load_review_criteria"


class LoadReviewCriteriaInput(StructureInput):
    """Input of load_review_criteria."""

    clause_id: str = Field(description="Id of the clause, e.g. '14.2', '4.1(a)', '5(1)'.")
    max_results: int = Field(10, ge=1, le=100, description="Most criteria returned.")
    criteria_file_path: str | None = Field(
        None, description="Playbook file chosen by the user (filled in by the system)."
    )
    review_context: ReviewContext | None = Field(
        None, description="Internal: the playbook's criteria, read once for the review."
    )


class LoadReviewCriteriaOutput(BaseModel):
    """Output of load_review_criteria."""

    clause_id: str = Field(description="Clause id.")
    clause_title: str = Field(description="Its title ('' if none).")
    criteria_file: str = Field(description="File name of the playbook.")
    total_criteria: int = Field(description="Number of criteria in the playbook.")
    matches: list[CriterionMatch] = Field(
        description="Criteria that apply, most specific first (clause id, parent clause id, "
        "title, keywords); empty when none does."
    )


DESCRIPTION = (
    "Load the review criteria of the user's playbook that apply to a clause: what to check, "
    "our preferred position, the fallback we can accept and the risk level. A criterion applies "
    "when it names the clause (or a parent clause), when its topic matches the clause title, or "
    "when its topic or key words appear in the clause text; each result says which, with the "
    "evidence. Call it before judging a clause to know the client's positions. Arguments: "
    "clause_id, max_results (default 10). The playbook file is chosen by the user."
)


prepare_input = input_preparer(LoadReviewCriteriaInput)
"""Input for `clause_id`, with the playbook the user chose for the review."""


def handle(inp: LoadReviewCriteriaInput) -> LoadReviewCriteriaOutput:
    """The playbook's criteria that apply to the clause, most specific first."""
    if not inp.criteria_file_path:
        raise SkillError("no review criteria file is configured for this review")
    structure = inp.document_structure
    clause = require_clause(structure, inp.clause_id)
    assert structure is not None  # require_clause checked it
    ctx = inp.review_context
    if ctx is not None and ctx.criteria_path == inp.criteria_file_path:
        name, criteria = Path(inp.criteria_file_path).name, ctx.criteria  # the run's, read once
    else:
        path, criteria = load_criteria(inp.criteria_file_path)  # a caller naming a file
        name = path.name
    return LoadReviewCriteriaOutput(
        clause_id=clause.clause_id,
        clause_title=clause.title,
        criteria_file=name,
        total_criteria=len(criteria),
        matches=match_criteria(criteria, structure, clause, inp.max_results),
    )


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Review criteria",
    description=DESCRIPTION,
    input_schema=LoadReviewCriteriaInput,
    output_schema=LoadReviewCriteriaOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="*",
    category="criteria",
)
