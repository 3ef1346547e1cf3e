"""The run context of a review: what its nodes need besides the state, built once per review.

It travels as LangGraph runtime context (`graph.astream(..., context=run)`), so documents and
services never enter the state or a checkpoint, and nothing is looked up in a module-global
store. A caller that invokes the graph SPEC-4 style — documents (or `primary_structure`) in the
state, no context — gets a context derived from the state by `context_from_state`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contract_review.config import Settings
from contract_review.models import DocumentRole, DocumentStructure
from contract_review.parties import OurSide
from contract_review.plugins.registry import DomainPlugin, get_plugin, plugin_for
from contract_review.skills.context import ReviewContext
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.state import review_context
from contract_review.transcripts import TranscriptLog

__all__ = ["RunContext", "context_from_state", "facts_from_state"]


@dataclass(frozen=True)
class RunContext:
    """Everything one review run needs besides its state (LangGraph runtime context)."""

    facts: ReviewContext
    """Task facts and documents as skills read them, prepared once: task id, our side resolved,
    language, domain, subtype, documents with their structures, the playbook in force; with the
    domain's baselines attached."""
    dispatcher: SkillDispatcher
    """Runs the skills (rules and the agent's tools)."""
    settings: Settings
    """All limits and switches."""
    plugin: DomainPlugin | None = None
    """The domain plugin: checklist, baselines, cross-clause rules, prompt hints."""
    max_retries: int = 2
    """Redrafts of a clause's redlines while validation fails."""
    transcripts: TranscriptLog | None = None
    """Where the model's conversations are kept for audit (None: not kept)."""

    @property
    def task_id(self) -> str:
        """The review task's id."""
        return self.facts.task_id

    @property
    def side(self) -> OurSide:
        """Whom the review acts for (a party of the contract, or neutral), resolved once."""
        return self.facts.side

    @property
    def primary(self) -> DocumentStructure | None:
        """The structure of the document under review."""
        return self.facts.structure_of(DocumentRole.PRIMARY)


def facts_from_state(state: Mapping[str, Any]) -> ReviewContext:
    """The task facts of a review state that carries its documents (SPEC-4 callers), through
    the one SPEC-19 adapter (`skills.state.review_context`), the domain's positions attached."""
    return review_context(state, get_plugin)


def context_from_state(
    state: Mapping[str, Any],
    dispatcher: SkillDispatcher,
    settings: Settings,
    facts: ReviewContext | None = None,
) -> RunContext:
    """The run context of a graph invoked without one: facts from the state (or `facts`),
    services from the graph's defaults."""
    # Baselines only of a domain the state names: a review without one compares with none.
    facts = review_context(facts or state, get_plugin)
    return RunContext(
        facts=facts,
        dispatcher=dispatcher,
        settings=settings,
        plugin=plugin_for(facts.domain_id),
        max_retries=int(state.get("max_retries", 2)),
    )
