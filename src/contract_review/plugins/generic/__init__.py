"""The generic commercial-contract plugin: topic checklist and market-standard positions.

`register_generic_plugin()` registers a `DomainPlugin` with domain_id "generic" whose checklist
comes from topic detection (`topics.py`) and whose baselines are short market-standard positions
per topic, written in our own words.
"""

from __future__ import annotations

from pathlib import Path

from contract_review.models import BaselinePosition, ReviewChecklistItem, TaskDocument
from contract_review.playbook import Playbook, packaged_playbook
from contract_review.plugins.generic.inventory import build_inventory
from contract_review.plugins.registry import DomainPlugin, register_plugin
from contract_review.plugins.rules import one_risk_per_quote, uncapped_liability_raises_indemnities

from .prompts import PROMPT_HINTS
from .topics import (
    CUAD_TOPICS,
    TOPICS,
    Topic,
    TopicMatch,
    build_generic_checklist,
    detect_topics,
    get_topic,
)

__all__ = [
    "BASELINES",
    "CUAD_TOPICS",
    "PLAYBOOK",
    "TOPICS",
    "Topic",
    "TopicMatch",
    "build_generic_checklist",
    "detect_topics",
    "generic_plugin",
    "get_topic",
    "register_generic_plugin",
]

PLAYBOOK: Playbook = packaged_playbook(Path(__file__).with_name("playbook.yaml"))
"""The generic playbook (`playbook.yaml`): one market-standard position per topic."""

BASELINES: list[BaselinePosition] = PLAYBOOK.baselines()
"""The positions as baselines, keyed by topic name."""


def with_position_checks(
    items: list[ReviewChecklistItem], docs: list[TaskDocument]
) -> list[ReviewChecklistItem]:
    """Every clause's item also checks the playbook's one-sided terms (the checklist has one
    item per clause: a clause under two topics is checked once)."""
    del docs
    seen: set[str] = set()
    out = []
    for item in items:
        if item.clause_id not in seen and CHECK_POSITIONS not in item.required_skills:
            item = item.model_copy(
                update={"required_skills": [*item.required_skills, CHECK_POSITIONS]}
            )
        seen.add(item.clause_id)
        out.append(item)
    return out


CHECK_POSITIONS = "check_positions"


def generic_plugin() -> DomainPlugin:
    """The generic commercial-contract plugin."""
    return DomainPlugin(
        domain_id="generic",
        name="Generic commercial contract",
        description=(
            "Commercial contracts of any kind (supply, services, licence, distribution, "
            "collaboration), in English or Chinese: topic-based checklist and market-standard "
            "positions."
        ),
        build_checklist=build_generic_checklist,
        baselines=list(BASELINES),
        playbook=PLAYBOOK,
        adjust_checklist=with_position_checks,
        build_inventory=build_inventory,
        cross_clause_rules=[one_risk_per_quote, uncapped_liability_raises_indemnities],
        prompt_hints=PROMPT_HINTS,
    )


def register_generic_plugin() -> None:
    """Register (or replace) the generic plugin in the plugin registry."""
    register_plugin(generic_plugin())
