"""resolve_definition: the defined terms a clause relies on, and terms it uses undefined.

A thin adapter over `analysis.definitions`, with the risk rule over its output.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from contract_review.analysis.definitions import (
    TermDefinition,
    UndefinedTerm,
    defined_elsewhere,
    defined_terms_used,
    undefined_terms_in,
)
from contract_review.models import RiskLevel, RiskPoint
from contract_review.skills.context import StructureInput, require_clause
from contract_review.skills.risks import RiskFactory
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import input_preparer

SKILL_ID = "resolve_definition"


class ResolveDefinitionInput(StructureInput):
    """Input of resolve_definition."""

    clause_id: str = Field(description="Clause whose terms to resolve, e.g. '4.1'.")
    terms: list[str] = Field(
        default_factory=list,
        description="Specific terms to look up (optional); by default every term the clause uses.",
    )


class ResolveDefinitionOutput(BaseModel):
    """Output of resolve_definition."""

    clause_id: str = Field(description="Clause analysed.")
    defined_terms_used: list[TermDefinition] = Field(description="Defined terms it uses.")
    undefined_terms: list[UndefinedTerm] = Field(
        description="Capitalised/quoted terms used but not defined anywhere."
    )
    not_found: list[str] = Field(description="Requested terms the contract does not define.")
    defined_elsewhere: str = Field(
        "",
        description="The clause's statement that terms not defined in the contract take their "
        "meaning from another document, if it makes one.",
    )


DESCRIPTION = (
    "Resolve the defined terms a clause relies on: returns each defined term used in the clause "
    "with its definition and where it is defined, plus capitalised (English) or quoted "
    "(Chinese) terms the clause uses that the contract never defines — a common source of "
    "ambiguity. Optionally pass 'terms' to look up specific words. Argument: clause_id."
)


prepare_input = input_preparer(ResolveDefinitionInput)
"""Input for `clause_id` of the primary document."""


def handle(inp: ResolveDefinitionInput) -> ResolveDefinitionOutput:
    """Look the clause's terms up in the contract's definitions."""
    structure = inp.document_structure
    clause = require_clause(structure, inp.clause_id)
    assert structure is not None
    return ResolveDefinitionOutput(
        clause_id=clause.clause_id,
        defined_terms_used=defined_terms_used(structure, clause.text, inp.terms),
        undefined_terms=undefined_terms_in(structure, clause),
        defined_elsewhere=defined_elsewhere(structure, clause),
        not_found=[t for t in inp.terms if t not in structure.definitions],
    )


_MAX_UNDEFINED = 5
"""Undefined-term risks reported per clause (the most used terms)."""


def risk_rule(risk: RiskFactory, out: ResolveDefinitionOutput) -> list[RiskPoint]:
    """Each term the contract treats as defined but never defines, once, where it is first
    used (the most used first); a note where the contract defers to another document."""
    terms = sorted((u for u in out.undefined_terms if u.first_use), key=lambda u: -u.occurrences)
    risks = [
        risk.risk(
            SKILL_ID,
            RiskLevel.LOW,
            "undefined term",
            risk.say(
                f"'{u.term}' is used as a defined term but never defined.",
                f"合同将“{u.term}”作为定义术语使用，但未对其作出定义。",
            ),
            quote=u.term,
        )
        for u in terms[:_MAX_UNDEFINED]
    ]
    if out.defined_elsewhere:
        risks.append(
            risk.risk(
                SKILL_ID,
                RiskLevel.LOW,
                "terms defined elsewhere",
                risk.say(
                    "Terms the contract does not define take their meaning from another "
                    "document: check that it is in force, available and consistent with this "
                    "contract.",
                    "本合同未定义的术语援引其他文件的定义：请核实该文件是否有效、可以取得，"
                    "且与本合同一致。",
                ),
                quote=out.defined_elsewhere,
            )
        )
    return risks


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Resolve definitions",
    description=DESCRIPTION,
    input_schema=ResolveDefinitionInput,
    output_schema=ResolveDefinitionOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="*",
    category="context",
    risk_rule=risk_rule,
)
