"""assess_deviation: rate how a clause's departures from its baseline affect our party.

The adapter over `analysis.deviation`: runs the comparison of `compare_with_baseline` (its
functions, not the dispatcher), resolves our party, rates each changed passage with the rules
of `analysis.deviation` (which lists them) and applies the playbook's criteria. Each deviation
not in our favour is a risk of type 'deviation from baseline: <rule>'.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from contract_review.analysis.baseline import compare_cached
from contract_review.analysis.deviation import RatedDeviation, Rule, max_severity, rate_deviations
from contract_review.models import DocumentStructure, RiskLevel, RiskPoint
from contract_review.skills.context import ReviewContext, SkillState, StructureInput
from contract_review.skills.local.compare_with_baseline import baseline_sources
from contract_review.skills.local.compare_with_baseline import (
    prepare_input as prepare_comparison,
)
from contract_review.skills.risks import RiskFactory
from contract_review.skills.schema import SkillBackend, SkillRegistration

__all__ = [
    "REGISTRATION",
    "SKILL_ID",
    "AssessDeviationInput",
    "AssessDeviationOutput",
    "RatedDeviation",
    "Rule",
    "handle",
    "prepare_input",
    "risk_rule",
]

SKILL_ID = "assess_deviation"


class AssessDeviationInput(StructureInput):
    """Input of assess_deviation."""

    clause_id: str = Field(description="Id of the contract clause, e.g. '20.1', '15.1'.")
    baseline_text: str | None = Field(
        None,
        description="Baseline wording to compare with, if you have it. Leave empty to use the "
        "loaded baseline document or the domain's baseline position.",
    )
    baseline_structure: DocumentStructure | None = Field(
        None, description="Structure of the baseline document (filled in by the system)."
    )
    review_context: ReviewContext | None = Field(
        None, description="Review facts: our party, domain (filled in by the system)."
    )
    criteria_data: list[dict[str, Any]] | None = Field(
        None,
        description="Playbook criteria: topic, criterion, preferred_position, "
        "fallback_position, risk_level (filled in by the system).",
    )


class AssessDeviationOutput(BaseModel):
    """Output of assess_deviation."""

    clause_id: str = Field(description="Contract clause assessed.")
    status: str = Field(description="'unmodified', 'modified', 'added' or 'deleted'.")
    baseline_kind: str | None = Field(description="'document', 'position' or None (added).")
    baseline_source: str = Field(description="Where the baseline comes from.")
    similarity: float = Field(description="Word-level similarity to the baseline, 0..1.")
    our_party: str = Field(description="The party we act for, as given.")
    our_roles: list[str] = Field(description="Its roles, e.g. ['contractor'].")
    party_resolved: bool = Field(description="Whether our party was found.")
    deviations: list[RatedDeviation] = Field(
        description="Rated deviations: those quoting the contract in clause order, then those "
        "about baseline text missing from the contract."
    )
    max_severity: RiskLevel | None = Field(description="Highest severity; None if none.")
    notes: list[str] = Field(description="How to read the rating.")


DESCRIPTION = (
    "Rate how one contract clause departs from its baseline (standard-form clause or the "
    "domain's baseline position) from our party's side. Returns each deviation with severity "
    "high/medium/low, the rule applied (risk shifted to us, period we must meet shortened, "
    "liability cap removed or raised, obligation added on us, protection of ours removed, "
    "retention/advance/delay-damages figures moved against us...), the reason, a verbatim "
    "quote, and the highest severity. An unmodified clause gives no deviations. Arguments: "
    "clause_id; optional baseline_text with baseline wording to use instead."
)


def prepare_input(
    clause_id: str, primary_structure: DocumentStructure | None, state: SkillState
) -> AssessDeviationInput:
    """Input for `clause_id`: the comparison's inputs and the review playbook's criteria."""
    base = prepare_comparison(clause_id, primary_structure, state)
    ctx = base.review_context
    criteria = (
        [c.model_dump(mode="json") for c in ctx.criteria] if ctx and ctx.criteria_path else None
    )
    return AssessDeviationInput(
        clause_id=clause_id,
        document_structure=base.document_structure,
        baseline_structure=base.baseline_structure,
        review_context=base.review_context,
        criteria_data=criteria,
    )


def handle(inp: AssessDeviationInput) -> AssessDeviationOutput:
    """Compare the clause with its baseline and rate each deviation."""
    ctx = inp.review_context or ReviewContext()
    sources = baseline_sources(inp.baseline_text, inp.baseline_structure, ctx)
    cmp = compare_cached(inp.document_structure, inp.clause_id, sources)
    roles = ctx.roles_in(inp.document_structure)
    devs = rate_deviations(cmp, roles, ctx.language, inp.criteria_data)
    notes = list(cmp.output.notes)
    if not roles.resolved:
        notes.append(
            "Our party is unknown or not found in the contract: directions are unclear and "
            "ratings neutral; set our_party."
        )
    return AssessDeviationOutput(
        clause_id=cmp.output.clause_id,
        status=cmp.output.status,
        baseline_kind=cmp.output.baseline_kind,
        baseline_source=cmp.output.baseline_source,
        similarity=cmp.output.similarity,
        our_party=ctx.our_party,
        our_roles=list(roles.our_roles),
        party_resolved=roles.resolved,
        deviations=devs,
        max_severity=max_severity(devs),
        notes=notes,
    )


# --------------------------------------------------------------------------------------------
# Risk rule
# --------------------------------------------------------------------------------------------


_STATUS_ZH = {"modified": "已被修改", "added": "为新增条款", "deleted": "已被删除"}


def risk_rule(risk: RiskFactory, out: AssessDeviationOutput) -> list[RiskPoint]:
    """Each rated deviation that is not in our favour is a risk of its severity."""
    risks = []
    for dev in out.deviations:
        if dev.direction == "in_our_favour" or not dev.severity:
            continue
        baseline = dev.baseline_quote or dev.baseline_text
        status = dev.deviation_type
        risks.append(
            risk.risk(
                SKILL_ID,
                dev.severity,
                f"deviation from baseline: {dev.rule or dev.deviation_type}",
                dev.reason
                or risk.say(
                    f"The clause {status} against its baseline.",
                    f"本条相对基准文本{_STATUS_ZH.get(status, status)}。",
                ),
                reason=dev.reason,
                # no baseline sentence (a new obligation, an added clause): nothing to show
                analysis=risk.say(f"Baseline: {baseline}", f"基准文本：{baseline}")
                if baseline
                else "",
                quote=dev.quote or dev.actual_text or None,
            )
        )
    return risks


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Assess deviation",
    description=DESCRIPTION,
    input_schema=AssessDeviationInput,
    output_schema=AssessDeviationOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="*",
    category="analysis",
    risk_rule=risk_rule,
)
