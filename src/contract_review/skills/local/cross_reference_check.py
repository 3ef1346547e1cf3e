"""cross_reference_check: are the clause's references to other clauses sound?

A thin adapter over `analysis.references`, with the risk rule over its output.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from contract_review.analysis.references import CheckedReference, check_references
from contract_review.models import DocumentStructure, RiskLevel, RiskPoint
from contract_review.skills.context import StructureInput, require_clause
from contract_review.skills.risks import RiskFactory
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import input_preparer

SKILL_ID = "cross_reference_check"


class CrossReferenceCheckInput(StructureInput):
    """Input of cross_reference_check."""

    clause_id: str = Field(description="Clause whose references to check, e.g. '20.1'.")
    baseline_structure: DocumentStructure | None = Field(
        None, description="Baseline document structure, if the review has one (system)."
    )


class CrossReferenceCheckOutput(BaseModel):
    """Output of cross_reference_check."""

    clause_id: str = Field(description="Clause checked.")
    references: list[CheckedReference] = Field(description="References out of the clause.")
    cycles: list[list[str]] = Field(
        description="Circular reference chains through this clause, e.g. ['8.5', '20.1', '8.5']."
    )
    issues: list[str] = Field(description="Problems found, one line each.")


DESCRIPTION = (
    "Check the cross-references made by a clause: each reference ('Sub-Clause 20.1', "
    "'Section 3(b)', '第十四条') with whether its target exists, was deleted (or exists only in "
    "the baseline conditions), or is the clause itself, plus circular reference chains that run "
    "through the clause. Use it to catch broken or stale references after amendments. "
    "Argument: clause_id."
)


prepare_input = input_preparer(CrossReferenceCheckInput)
"""Input for `clause_id`, with the baseline structure when the review has one."""


def handle(inp: CrossReferenceCheckInput) -> CrossReferenceCheckOutput:
    """Check every reference made inside the clause."""
    structure = inp.document_structure
    clause = require_clause(structure, inp.clause_id)
    assert structure is not None
    found = check_references(structure, clause, inp.baseline_structure)
    return CrossReferenceCheckOutput(
        clause_id=clause.clause_id,
        references=found.references,
        cycles=found.cycles,
        issues=found.issues,
    )


def risk_rule(risk: RiskFactory, out: CrossReferenceCheckOutput) -> list[RiskPoint]:
    """A reference to a deleted clause (medium) or to one the contract lacks (low)."""
    return [
        risk.risk(
            SKILL_ID,
            RiskLevel.MEDIUM if ref.status == "deleted" else RiskLevel.LOW,
            f"reference to a {ref.status} clause",
            risk.say(
                f"'{ref.text}' refers to clause {ref.target_clause_id}, which is "
                + ("deleted." if ref.status == "deleted" else "not in the contract."),
                f"“{ref.text}”援引第{ref.target_clause_id}条，但该条"
                + ("已被删除。" if ref.status == "deleted" else "在合同中并不存在。"),
            ),
            quote=ref.text,
        )
        for ref in out.references
        if ref.status in ("missing", "deleted")
    ]


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Cross-reference check",
    description=DESCRIPTION,
    input_schema=CrossReferenceCheckInput,
    output_schema=CrossReferenceCheckOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="*",
    category="validation",
    risk_rule=risk_rule,
)
