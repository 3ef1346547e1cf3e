"""Skills: self-describing capabilities the review (or an LLM agent) calls through the
dispatcher. `create_dispatcher()` returns one with every built-in skill registered."""

from __future__ import annotations

from contract_review.config import Settings

from .dispatcher import SkillDispatcher
from .schema import SkillRegistration

__all__ = ["SkillDispatcher", "SkillRegistration", "builtin_skills", "create_dispatcher"]


def builtin_skills() -> list[SkillRegistration]:
    """Registrations of the generic skills shipped with the engine."""
    from .local import (
        assess_deviation,
        clause_context,
        compare_with_baseline,
        cross_reference_check,
        draft_redline_comment,
        extract_financial_terms,
        load_review_criteria,
        resolve_definition,
        search_reference_doc,
    )

    return [
        clause_context.REGISTRATION,
        resolve_definition.REGISTRATION,
        compare_with_baseline.REGISTRATION,
        cross_reference_check.REGISTRATION,
        extract_financial_terms.REGISTRATION,
        search_reference_doc.REGISTRATION,
        load_review_criteria.REGISTRATION,
        assess_deviation.REGISTRATION,
        draft_redline_comment.REGISTRATION,
    ]


def create_dispatcher(settings: Settings | None = None) -> SkillDispatcher:
    """A dispatcher with the generic skills and the skills of every built-in domain plugin."""
    from contract_review.plugins import load_builtin_plugins
    from contract_review.plugins.registry import list_plugins

    dispatcher = SkillDispatcher(settings=settings)
    for registration in builtin_skills():
        dispatcher.register(registration)
    load_builtin_plugins()
    for plugin in list_plugins():
        for registration in plugin.skills:
            dispatcher.register(registration)
    return dispatcher
