"""Domain plugins: parser profile, checklist, baselines and skills of one contract domain."""

from __future__ import annotations


def load_builtin_plugins() -> None:
    """Register the plugins shipped with the engine (idempotent)."""
    from .fidic import register_fidic_plugin
    from .generic import register_generic_plugin
    from .sha_spa import register_sha_spa_plugin

    register_generic_plugin()
    register_fidic_plugin()
    register_sha_spa_plugin()
