"""The generic commercial-contract plugin: topic checklist and market-standard positions.

`register_generic_plugin()` registers a `DomainPlugin` with domain_id "generic" whose checklist
comes from topic detection (`topics.py`) and whose baselines are short market-standard positions
per topic, written in our own words. A Chinese contract's checklist says what to check in
Chinese (`description_zh` of `topics.yaml`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from contract_review.models import (
    BaselinePosition,
    DocumentStructure,
    ReviewChecklistItem,
    TaskDocument,
)
from contract_review.playbook import Playbook, packaged_playbook
from contract_review.playbook.parse import read_yaml
from contract_review.plugins.generic.inventory import build_inventory, category_title
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
    topics_anywhere,
)

__all__ = [
    "BASELINES",
    "CUAD_TOPICS",
    "PLAYBOOK",
    "TOPICS",
    "Topic",
    "TopicMatch",
    "build_generic_checklist",
    "build_localised_checklist",
    "category_title",
    "detect_topics",
    "generic_plugin",
    "get_topic",
    "register_generic_plugin",
    "topics_anywhere",
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

GENERIC_DESCRIPTION_ZH = "审阅本条款中的义务、风险以及与市场惯例的偏离。"
"""What to check in a clause no topic reached, in Chinese."""


@cache
def _descriptions_zh() -> dict[str, str]:
    """Topic name → what to check, in Chinese (`description_zh` of `topics.yaml`; read only
    when a Chinese contract needs it)."""
    data = read_yaml(Path(__file__).with_name("topics.yaml").read_text(encoding="utf-8"))
    return {str(t["name"]): str(t.get("description_zh") or "") for t in data["topics"]}


def build_localised_checklist(
    structure: DocumentStructure, subtype: str | None = None
) -> list[ReviewChecklistItem]:
    """`build_generic_checklist`, with what to check (and a topic standing in for a missing
    clause title) in the contract's language: Chinese for a 'zh-CN' structure."""
    items = build_generic_checklist(structure, subtype)
    if not structure.language.startswith("zh"):
        return items
    descriptions = _descriptions_zh()
    out = []
    for item in items:
        if item.topic is None:
            update = {"description": GENERIC_DESCRIPTION_ZH}
        else:
            update = {"description": descriptions.get(item.topic) or item.description}
            if item.clause_name == item.topic:
                update["clause_name"] = PLAYBOOK.topic_text(item.topic, "zh")
        out.append(item.model_copy(update=update))
    return out


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
        build_checklist=build_localised_checklist,
        baselines=list(BASELINES),
        playbook=PLAYBOOK,
        adjust_checklist=with_position_checks,
        build_inventory=build_inventory,
        cross_clause_rules=[one_risk_per_quote, uncapped_liability_raises_indemnities],
        topics_anywhere=topics_anywhere,
        prompt_hints=PROMPT_HINTS,
    )


def register_generic_plugin() -> None:
    """Register (or replace) the generic plugin in the plugin registry."""
    register_plugin(generic_plugin())
