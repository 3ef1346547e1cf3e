"""Skills: self-describing capabilities the review (or an LLM agent) calls through the
dispatcher. `builtin_skills()` are the generic ones; a dispatcher with the domains' skills as
well comes from `contract_review.plugins.create_dispatcher()` (skills know no domain plugin)."""

from __future__ import annotations

from .dispatcher import SkillDispatcher
from .schema import SkillRegistration

__all__ = ["SkillDispatcher", "SkillRegistration", "builtin_skills"]


def builtin_skills() -> list[SkillRegistration]:
    """Registrations of the generic skills shipped with the engine."""
    from .local import (
        assess_deviation,
        check_positions,
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
        check_positions.REGISTRATION,
        draft_redline_comment.REGISTRATION,
    ]
