"""The FIDIC plugin: 2017 Silver, Yellow and Red Book checklist, baselines and skills.

`register_fidic_plugin()` registers a `DomainPlugin` with domain_id "fidic": the FIDIC parser
profile, the checklist of key sub-clauses (`checklist.py`), book-specific baseline positions
written in our own words (`baselines.py`), the conditions in force merged from General and
Particular Conditions (`conditions.py`), the agent's domain guidance (`prompts.py`) and the
FIDIC skills of `contract_review.plugins.fidic.skills`.
"""

from __future__ import annotations

from contract_review.analysis.cache import per_structure
from contract_review.models import DocumentStructure
from contract_review.plugins.fidic.skills import (
    check_pc_consistency,
    merge_gc_pc,
    search_er,
    time_bar,
)
from contract_review.plugins.registry import DomainPlugin, register_plugin
from contract_review.plugins.rules import uncapped_liability_raises_indemnities
from contract_review.skills.schema import SkillRegistration
from contract_review.structure_parser import DocumentParserConfig

from .baselines import ALL_BOOKS, BASELINES, NUMBERING_1999, PLAYBOOK, RED, SILVER, YELLOW
from .checklist import (
    CHECKLIST,
    FROM_1999,
    ChecklistEntry,
    build_fidic_checklist,
    checklist_entry,
    match_clauses,
    uses_1999_numbering,
)
from .conditions import amendment_checklist, conditions_in_force
from .prompts import PROMPT_HINTS

__all__ = [
    "ALL_BOOKS",
    "BASELINES",
    "CHECKLIST",
    "NUMBERING_1999",
    "RED",
    "SILVER",
    "YELLOW",
    "ChecklistEntry",
    "baseline_key",
    "build_fidic_checklist",
    "checklist_entry",
    "fidic_plugin",
    "match_clauses",
    "register_fidic_plugin",
    "uses_1999_numbering",
]


def _fidic_skills() -> list[SkillRegistration]:
    """Registrations of the FIDIC skills."""
    return [
        merge_gc_pc.REGISTRATION,
        time_bar.REGISTRATION,
        check_pc_consistency.REGISTRATION,
        search_er.REGISTRATION,
    ]


@per_structure()
def _matches(structure: DocumentStructure) -> dict[str, ChecklistEntry]:
    return match_clauses(structure)


def baseline_key(structure: DocumentStructure, clause_id: str) -> str | None:
    """The 2017 sub-clause a document clause stands for (by id, title or 1999 numbering)."""
    entry = _matches(structure).get(clause_id)
    if entry is not None:
        return entry.key
    if uses_1999_numbering(structure):
        return FROM_1999.get(clause_id)
    return clause_id


def fidic_plugin() -> DomainPlugin:
    """The FIDIC plugin."""
    return DomainPlugin(
        domain_id="fidic",
        name="FIDIC construction contract",
        description=(
            "Construction and EPC contracts on the FIDIC 2017 Silver (EPC/Turnkey), Yellow "
            "(Plant and Design-Build) and Red (Construction) Books, including Particular "
            "Conditions, contracts on the 1999 numbering and Chinese construction contracts: "
            "sub-clause checklist, book-specific baseline positions and FIDIC skills."
        ),
        subtypes=[SILVER, YELLOW, RED],
        parser_config=DocumentParserConfig(structure_type="fidic"),
        build_checklist=build_fidic_checklist,
        baselines=list(BASELINES),
        playbook=PLAYBOOK,
        skills=_fidic_skills(),
        baseline_key=baseline_key,
        prepare_documents=conditions_in_force,
        standard_form=True,
        adjust_checklist=amendment_checklist,
        cross_clause_rules=[uncapped_liability_raises_indemnities],
        prompt_hints=PROMPT_HINTS,
    )


def register_fidic_plugin() -> None:
    """Register (or replace) the FIDIC plugin in the plugin registry."""
    register_plugin(fidic_plugin())
