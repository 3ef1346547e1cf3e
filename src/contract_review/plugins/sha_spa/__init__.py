"""The sha_spa plugin: share purchase agreements (SPA) and shareholders' agreements (SHA).

`register_sha_spa_plugin()` registers a `DomainPlugin` with domain_id "sha_spa", subtypes
"spa" and "sha", a checklist per subtype (`checklists.py`; the subtype is detected from the
text when not given), one market-standard `BaselinePosition` per checklist topic — written in
our own words, with its `source` — and the four sha_spa skills.
"""

from __future__ import annotations

from pathlib import Path

from contract_review.domains import SUBTYPES, Domain
from contract_review.models import BaselinePosition
from contract_review.playbook import Playbook, packaged_playbook
from contract_review.plugins.registry import DomainPlugin, register_plugin
from contract_review.plugins.rules import uncapped_liability_raises_indemnities
from contract_review.plugins.sha_spa.skills import (
    conditions,
    governance,
    indemnity,
    reps_warranties,
)
from contract_review.structure_parser import DocumentParserConfig

from .checklists import (
    MISSING_TOPIC,
    SHA_CHECKLIST,
    SPA_CHECKLIST,
    ChecklistSpec,
    build_sha_spa_checklist,
    detect_subtype,
    find_clause,
)
from .prompts import PROMPT_HINTS

__all__ = [
    "BASELINES",
    "MISSING_TOPIC",
    "PLAYBOOK",
    "SHA_CHECKLIST",
    "SPA_CHECKLIST",
    "ChecklistSpec",
    "build_sha_spa_checklist",
    "detect_subtype",
    "find_clause",
    "register_sha_spa_plugin",
    "sha_spa_plugin",
]

PLAYBOOK: Playbook = packaged_playbook(Path(__file__).with_name("playbook.yaml"))
"""The SPA/SHA playbook (`playbook.yaml`): one market-standard position per checklist topic
and subtype, and the position on protections missing altogether."""

BASELINES: list[BaselinePosition] = PLAYBOOK.baselines()
"""The positions as baselines, keyed by checklist topic."""


def sha_spa_plugin() -> DomainPlugin:
    """The SPA / SHA plugin."""
    return DomainPlugin(
        domain_id="sha_spa",
        name="Share purchase and shareholders' agreements",
        description=(
            "Share purchase agreements (SPA, 股权转让协议) and shareholders' agreements (SHA, "
            "股东协议), English or Chinese: conditions, warranties, limitations and "
            "indemnities; board, vetoes and transfer rights."
        ),
        subtypes=list(SUBTYPES[Domain.SHA_SPA]),
        parser_config=DocumentParserConfig(structure_type="sha_spa"),
        build_checklist=build_sha_spa_checklist,
        baselines=list(BASELINES),
        playbook=PLAYBOOK,
        skills=[
            conditions.REGISTRATION,
            reps_warranties.REGISTRATION,
            indemnity.REGISTRATION,
            governance.REGISTRATION,
        ],
        cross_clause_rules=[uncapped_liability_raises_indemnities],
        prompt_hints=PROMPT_HINTS,
    )


def register_sha_spa_plugin() -> None:
    """Register (or replace) the sha_spa plugin in the plugin registry."""
    register_plugin(sha_spa_plugin())
