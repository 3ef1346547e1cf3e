"""Domain plugins: parser profile, checklist, baselines and skills of one contract domain."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from contract_review.config import Settings
    from contract_review.skills.dispatcher import SkillDispatcher

__all__ = ["create_dispatcher", "load_builtin_plugins"]


def load_builtin_plugins() -> None:
    """Register the plugins shipped with the engine that are not registered yet."""
    from .fidic import register_fidic_plugin
    from .generic import register_generic_plugin
    from .registry import get_plugin
    from .sha_spa import register_sha_spa_plugin

    for domain_id, register in (
        ("generic", register_generic_plugin),
        ("fidic", register_fidic_plugin),
        ("sha_spa", register_sha_spa_plugin),
    ):
        if get_plugin(domain_id) is None:
            register()


def create_dispatcher(settings: Settings | None = None) -> SkillDispatcher:
    """A dispatcher with the generic skills and the skills of every registered domain plugin;
    skills called with a bare state mapping see their domain's baselines through it."""
    from contract_review.skills import builtin_skills
    from contract_review.skills.dispatcher import SkillDispatcher

    from .registry import get_plugin, list_plugins

    load_builtin_plugins()
    dispatcher = SkillDispatcher(settings=settings, baselines_of=get_plugin)
    for registration in builtin_skills():
        dispatcher.register(registration)
    for plugin in list_plugins():
        for registration in plugin.skills:
            dispatcher.register(registration)
    return dispatcher
