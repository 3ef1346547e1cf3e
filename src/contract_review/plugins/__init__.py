"""Domain plugins: parser profile, checklist, baselines and skills of one contract domain."""

from __future__ import annotations


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
