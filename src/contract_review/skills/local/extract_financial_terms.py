"""extract_financial_terms: the amounts, percentages and periods of a clause, classified.

A thin adapter over `analysis.financial`: the clause (or an ad-hoc text) in, its terms and
flags out, and the risk rule over them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contract_review.analysis.financial import (
    FinancialTerms,
    FlagCode,
    financial_terms,
)
from contract_review.models import ClauseNode, RiskLevel, RiskPoint
from contract_review.skills.context import ReviewContext, StructureInput, require_clause
from contract_review.skills.risks import RiskFactory
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import input_preparer

SKILL_ID = "extract_financial_terms"

# --------------------------------------------------------------------------------------------
# Input and output
# --------------------------------------------------------------------------------------------


class FinancialTermsInput(StructureInput):
    """Input of extract_financial_terms."""

    clause_id: str = Field(description="Id of the clause, e.g. '14.2', '8.8', '4.1(a)', '16'.")
    text: str = Field(
        "",
        max_length=50_000,
        description="Optional text to analyse instead of the clause's own text (ad-hoc use); "
        "offsets then index this text and the clause, if it exists, only lends its heading.",
    )
    review_context: ReviewContext | None = Field(
        None, description="Internal: our party (filled in by the system)."
    )


class FinancialTermsOutput(FinancialTerms):
    """Output of extract_financial_terms: the clause's financial terms and where they are."""

    clause_id: str = Field(description="Clause analysed.")
    source: Literal["clause", "text"] = Field(
        description="'clause' (the clause text) or 'text' (the text given in the input)."
    )
    clause_start_offset: int | None = Field(
        None,
        description="Document offset of the clause text (add it to a term's start/end to get "
        "document offsets); None when source is 'text'.",
    )


DESCRIPTION = (
    "Extract the financial terms of one clause: amounts of money (normalised value and ISO "
    "currency, in figures, English words or Chinese numerals such as 壹仟贰佰万元整), "
    "percentages (with what they are a percentage of and any per-day/per-year rate) and "
    "periods (number, unit, calendar or working days). Each term has a verbatim quote with "
    "offsets and a category: cap, payment_period, interest, late_payment, retention, "
    "advance_payment, liquidated_damages, delay_damages, guarantee_security, price or other. "
    "Amounts written in words and figures are checked against each other. Flags report "
    "words/figures mismatches, damages rates with no cap in the clause, retention above 5% "
    "and exclusion of interest on late payment. Call it on payment, price, security, "
    "retention, damages and liability clauses. Arguments: clause_id; optional text to analyse "
    "instead of the clause."
)


prepare_input = input_preparer(FinancialTermsInput)
"""Input for `clause_id` of the primary document."""


def handle(inp: FinancialTermsInput) -> FinancialTermsOutput:
    """Extract and classify the clause's amounts, percentages and periods."""
    structure = inp.document_structure
    clause: ClauseNode | None
    if inp.text:
        clause = structure.get_clause(inp.clause_id) if structure else None
        text, source, offset = inp.text, "text", None
    else:
        clause = require_clause(structure, inp.clause_id)
        text, source, offset = clause.text, "clause", clause.start_offset
    ctx = inp.review_context
    language = ctx.language if ctx else "en"
    roles = ctx.roles_in(structure) if ctx and ctx.our_party else None
    terms = financial_terms(
        text, structure=structure, clause=clause, roles=roles, language=language
    )
    return FinancialTermsOutput(
        clause_id=inp.clause_id, source=source, clause_start_offset=offset, **dict(terms)
    )


# --------------------------------------------------------------------------------------------
# Risk rule
# --------------------------------------------------------------------------------------------

_FLAG_RISKS: dict[FlagCode, tuple[RiskLevel, str]] = {
    "uncapped_damages": (RiskLevel.HIGH, "uncapped damages"),
    "words_figures_mismatch": (RiskLevel.HIGH, "amount in words differs from figures"),
    "retention_above_cn_3_percent": (RiskLevel.MEDIUM, "retention above the statutory cap"),
    "retention_above_5_percent": (RiskLevel.MEDIUM, "retention above market"),
    "no_late_payment_interest": (RiskLevel.MEDIUM, "no interest on late payment"),
}
"""Flag code → (risk level, risk type); other flags are low risks named by their code."""


def risk_rule(risk: RiskFactory, out: FinancialTermsOutput) -> list[RiskPoint]:
    """Each flag is a risk on its quote — except a term that burdens only the other side."""
    return [
        risk.risk(
            SKILL_ID,
            *_FLAG_RISKS.get(flag.code, (RiskLevel.LOW, flag.code)),
            flag.message,
            quote=flag.quote,
            at=flag.start if out.source == "clause" else None,
        )
        for flag in out.flags
        if flag.burdens != "them"
    ]


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Financial terms",
    description=DESCRIPTION,
    input_schema=FinancialTermsInput,
    output_schema=FinancialTermsOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="*",
    category="extraction",
    risk_rule=risk_rule,
)
