"""resolve_definition: the defined terms a clause relies on, and terms it uses undefined."""

from __future__ import annotations

from pydantic import BaseModel, Field

from contract_review.models import ClauseNode, DocumentStructure, RiskLevel, RiskPoint
from contract_review.skills.context import SkillState, StructureInput, require_clause
from contract_review.skills.risks import RiskFactory
from contract_review.skills.schema import SkillBackend, SkillRegistration

from ._undefined import document_undefined, incorporation

SKILL_ID = "resolve_definition"


class ResolveDefinitionInput(StructureInput):
    """Input of resolve_definition."""

    clause_id: str = Field(description="Clause whose terms to resolve, e.g. '4.1'.")
    terms: list[str] = Field(
        default_factory=list,
        description="Specific terms to look up (optional); by default every term the clause uses.",
    )


class TermDefinition(BaseModel):
    """A defined term used in the clause."""

    term: str = Field(description="The defined term.")
    definition: str = Field(description="Its definition, as written.")
    defined_in: str | None = Field(description="Clause holding the definition.")
    occurrences: int = Field(description="Times the term appears in the clause.")


class UndefinedTerm(BaseModel):
    """A capitalised or quoted term the clause uses that the contract never defines."""

    term: str = Field(description="The term as written.")
    occurrences: int = Field(description="Times it appears in the clause.")
    quote: str = Field(description="Verbatim snippet around its first use.")
    first_use: bool = Field(
        False, description="Whether the contract uses the term here for the first time."
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


def prepare_input(
    clause_id: str, primary_structure: DocumentStructure | None, state: SkillState
) -> ResolveDefinitionInput:
    """Input for `clause_id` of the primary document."""
    return ResolveDefinitionInput(clause_id=clause_id, document_structure=primary_structure)


def _count(text: str, term: str) -> int:
    n = 0
    i = text.find(term)
    while i != -1:
        before = text[i - 1 : i]
        after = text[i + len(term) : i + len(term) + 1]
        ascii_word = term[:1].isascii()
        if not ascii_word or (not before.isalnum() and not after.isalnum()):
            n += 1
        i = text.find(term, i + len(term))
    return n


def handle(inp: ResolveDefinitionInput) -> ResolveDefinitionOutput:
    """Look the clause's terms up in the contract's definitions."""
    structure = inp.document_structure
    clause = require_clause(structure, inp.clause_id)
    assert structure is not None
    text = clause.text
    defs = structure.definitions
    wanted = inp.terms or list(defs)
    used = [
        TermDefinition(term=d.term, definition=d.definition, defined_in=d.clause_id, occurrences=n)
        for term in wanted
        if (d := defs.get(term)) is not None and (n := _count(text, term)) > 0
    ]
    not_found = [t for t in inp.terms if t not in defs]
    return ResolveDefinitionOutput(
        clause_id=clause.clause_id,
        defined_terms_used=sorted(used, key=lambda t: -t.occurrences),
        undefined_terms=_undefined(structure, clause),
        defined_elsewhere=_elsewhere(structure, clause),
        not_found=not_found,
    )


def _undefined(structure: DocumentStructure, clause: ClauseNode) -> list[UndefinedTerm]:
    """The document's undefined terms this clause uses; `first_use` marks those it uses first."""
    out = []
    for use in document_undefined(structure).values():
        n = sum(_count(clause.text, form) for form in use.forms)
        if not n:
            continue
        here = clause.start_offset <= use.first < clause.end_offset
        p = (
            use.first - clause.start_offset
            if here
            else min(i for form in use.forms if (i := clause.text.find(form)) != -1)
        )
        out.append(
            UndefinedTerm(
                term=use.term,
                occurrences=n,
                quote=clause.text[max(0, p - 40) : p + len(use.term) + 40],
                first_use=here,
            )
        )
    return out


def _elsewhere(structure: DocumentStructure, clause: ClauseNode) -> str:
    found = incorporation(structure)
    if found is None or not clause.start_offset <= found[0] < clause.end_offset:
        return ""
    return found[1]


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
