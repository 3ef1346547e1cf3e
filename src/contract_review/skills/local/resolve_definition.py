"""resolve_definition: the defined terms a clause relies on, and terms it uses undefined."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from contract_review.models import DocumentStructure, RiskLevel, RiskPoint
from contract_review.skills.cache import per_structure
from contract_review.skills.context import SkillState, StructureInput, require_clause
from contract_review.skills.risks import RiskFactory
from contract_review.skills.schema import SkillBackend, SkillRegistration

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


class ResolveDefinitionOutput(BaseModel):
    """Output of resolve_definition."""

    clause_id: str = Field(description="Clause analysed.")
    defined_terms_used: list[TermDefinition] = Field(description="Defined terms it uses.")
    undefined_terms: list[UndefinedTerm] = Field(
        description="Capitalised/quoted terms used but not defined anywhere."
    )
    not_found: list[str] = Field(description="Requested terms the contract does not define.")


DESCRIPTION = (
    "Resolve the defined terms a clause relies on: returns each defined term used in the clause "
    "with its definition and where it is defined, plus capitalised (English) or quoted "
    "(Chinese) terms the clause uses that the contract never defines — a common source of "
    "ambiguity. Optionally pass 'terms' to look up specific words. Argument: clause_id."
)

# Capitalised words that are ordinary in contracts and do not need a definition.
_COMMON = frozenset(
    [
        "agreement",
        "party",
        "parties",
        "clause",
        "clauses",
        "sub-clause",
        "section",
        "sections",
        "article",
        "articles",
        "schedule",
        "schedules",
        "exhibit",
        "exhibits",
        "appendix",
        "appendices",
        "annex",
        "annexes",
        "paragraph",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "the",
        "this",
        "that",
        "these",
        "those",
        "such",
        "any",
        "each",
        "all",
        "no",
        "if",
        "in",
        "on",
        "at",
        "by",
        "for",
        "of",
        "to",
        "and",
        "or",
        "a",
        "an",
        "as",
        "upon",
        "under",
        "within",
        "where",
        "when",
        "provided",
        "notwithstanding",
        "subject",
        "unless",
        "except",
        "including",
        "whereas",
        "now",
        "therefore",
        "i",
        "ii",
        "iii",
        "iv",
        "v",
        "vi",
        "vii",
        "viii",
        "ix",
        "x",
        "usd",
        "us",
        "eur",
        "gbp",
        "rmb",
        "inc",
        "ltd",
        "llc",
        "co",
        "corp",
        "plc",
        "limited",
        "company",
        "state",
        "states",
        "united",
        "kingdom",
        "china",
        "people's",
        "republic",
        "english",
        "chinese",
    ]
)
_SMALL = frozenset({"of", "for", "and", "the", "to", "in", "on", "de"})
_CAP_PHRASE = re.compile(
    r"(?<![\w.])([A-Z][a-z][\w'’-]*(?:[ \t]+(?:(?:of|for|and|the|to|in|on)[ \t]+)?[A-Z][\w'’-]+)*)"
)
_ZH_QUOTED = re.compile(r"[“\"「]([^”\"」\n]{1,20})[”\"」]")


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
        undefined_terms=_undefined(structure, clause.clause_id, text, clause.title),
        not_found=not_found,
    )


@per_structure()
def _preamble(structure: DocumentStructure) -> str:
    first = structure.clauses[0] if structure.clauses else None
    return first.text if first is not None and first.kind.value == "preamble" else ""


@per_structure()
def _known(structure: DocumentStructure) -> tuple[frozenset[str], frozenset[str], re.Pattern[str]]:
    """Lower-cased defined terms, clause titles, and a pattern finding any defined term."""
    defined = frozenset(t.lower() for t in structure.definitions)
    titles = frozenset(c.title.lower() for c in structure.iter_clauses() if c.title)
    long_terms = sorted((re.escape(d) for d in defined if len(d) > 3), key=len, reverse=True)
    pattern = re.compile("|".join(long_terms) if long_terms else r"(?!)")
    return defined, titles, pattern


def _undefined(
    structure: DocumentStructure, clause_id: str, text: str, title: str
) -> list[UndefinedTerm]:
    defined, titles, defined_inside = _known(structure)
    preamble = _preamble(structure)
    found: dict[str, list[int]] = {}
    for m in _CAP_PHRASE.finditer(text):
        words = m.group(1).rstrip("'’-").split()
        while words and words[0].lower() in _COMMON and len(words) > 1:
            words = words[1:]  # "The Taking-Over Certificate" → "Taking-Over Certificate"
        phrase = " ".join(words)
        key = phrase.lower()
        if key in defined or key in titles or key == title.lower():
            continue
        if all(w.lower() in _COMMON or w.lower() in _SMALL for w in words):
            continue
        if len(words) == 1 and _sentence_start(text, m.start()):
            continue
        if len(words) == 1 and words[0].lower() in _COMMON:
            continue
        if defined_inside.search(key):
            continue
        if phrase in preamble:
            continue  # parties, places and the project are named in the preamble  # "Contractor's Equipment" when "Contractor" is defined: fine
        found.setdefault(phrase, []).append(m.start())
    for m in _ZH_QUOTED.finditer(text):
        term = m.group(1)
        if term.lower() not in defined and _count(text, term):
            found.setdefault(term, []).append(m.start())
    out: list[UndefinedTerm] = []
    for term, positions in found.items():
        # A single capitalised word used once is usually a name; report repeated or multiword.
        if len(term.split()) == 1 and len(positions) < 2 and term[:1].isascii():
            continue
        p = positions[0]
        out.append(
            UndefinedTerm(
                term=term,
                occurrences=len(positions),
                quote=text[max(0, p - 40) : p + len(term) + 40],
            )
        )
    return out


def _sentence_start(text: str, pos: int) -> bool:
    j = pos - 1
    while j >= 0 and text[j] in ' \t"“(':
        j -= 1
    return j < 0 or text[j] in ".;:\n!?)"


_MAX_UNDEFINED = 5
"""Undefined-term risks reported per clause (the most used terms)."""


def risk_rule(risk: RiskFactory, out: ResolveDefinitionOutput) -> list[RiskPoint]:
    """The most used terms the clause treats as defined but the contract never defines."""
    terms = sorted(out.undefined_terms, key=lambda u: -u.occurrences)
    return [
        risk.risk(
            SKILL_ID,
            RiskLevel.LOW,
            "undefined term",
            f"'{u.term}' is used as a defined term but never defined.",
            quote=u.term,
        )
        for u in terms[:_MAX_UNDEFINED]
    ]


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
