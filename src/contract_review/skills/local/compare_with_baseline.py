"""compare_with_baseline: how a clause departs from its baseline (standard form or position).

The adapter over `analysis.baseline`: the baseline of a clause is, in this order, wording
passed explicitly (`baseline_text`); the clause with the same id — or, failing that, the most
similar title — in the task document with role BASELINE; the domain plugin's baseline position
for the clause id or title. The comparison's result is the skill's output.
"""

from __future__ import annotations

from pydantic import Field

from contract_review.analysis.baseline import (
    BaselineComparison,
    BaselineSources,
    Comparison,
)
from contract_review.analysis.baseline import compare_cached as compare_sources
from contract_review.models import DocumentStructure
from contract_review.skills.context import ReviewContext, StructureInput
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import input_preparer

SKILL_ID = "compare_with_baseline"


class CompareWithBaselineInput(StructureInput):
    """Input of compare_with_baseline."""

    clause_id: str = Field(description="Id of the contract clause, e.g. '20.1', '15.1'.")
    baseline_text: str | None = Field(
        None,
        description="Baseline wording to compare with, if you have it (e.g. the standard-form "
        "text of the clause). Leave empty to use the loaded baseline document or the domain's "
        "baseline position.",
    )
    baseline_structure: DocumentStructure | None = Field(
        None, description="Structure of the baseline document (filled in by the system)."
    )
    review_context: ReviewContext | None = Field(
        None, description="Review facts: domain, subtype, our party (filled in by the system)."
    )


CompareWithBaselineOutput = BaselineComparison
"""Output of compare_with_baseline (`analysis.baseline.BaselineComparison`)."""


DESCRIPTION = (
    "Compare one contract clause with its baseline — the standard-form clause of the loaded "
    "baseline document (matched by id, else by title) or the domain's baseline position — and "
    "return its status (unmodified / modified / added / deleted), a word-level diff, a "
    "similarity score, the sentences added/removed/reworded and the periods, percentages and "
    "amounts that changed (e.g. '28 days' → '14 days'). Call it to see what the drafter "
    "changed before judging a clause. Arguments: clause_id; optional baseline_text with "
    "baseline wording to use instead."
)


prepare_input = input_preparer(CompareWithBaselineInput)
"""Input for `clause_id`: the contract, the baseline document and the review context."""


def baseline_sources(
    baseline_text: str | None,
    baseline_structure: DocumentStructure | None,
    context: ReviewContext | None,
) -> BaselineSources:
    """Where the baseline comes from: the wording given, the baseline document, the review's
    domain positions."""
    ctx = context or ReviewContext()
    return BaselineSources(
        text=baseline_text,
        structure=baseline_structure,
        positions=ctx.baselines,
        domain_id=ctx.domain_id,
        subtype=ctx.domain_subtype,
    )


def compare_cached(inp: CompareWithBaselineInput) -> Comparison:
    """The comparison for the input (`analysis.baseline.compare_cached`: the same comparison
    made just before is reused; treat it as read-only)."""
    sources = baseline_sources(inp.baseline_text, inp.baseline_structure, inp.review_context)
    return compare_sources(inp.document_structure, inp.clause_id, sources)


def handle(inp: CompareWithBaselineInput) -> CompareWithBaselineOutput:
    """Compare the clause with its baseline."""
    return compare_cached(inp).output


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Compare with baseline",
    description=DESCRIPTION,
    input_schema=CompareWithBaselineInput,
    output_schema=CompareWithBaselineOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="*",
    category="analysis",
)
