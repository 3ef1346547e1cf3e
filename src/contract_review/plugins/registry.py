"""The plugin registry: which domains the engine knows, and their baseline positions."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from contract_review.errors import InputError
from contract_review.models import DocumentStructure, ReviewChecklistItem
from contract_review.skills.schema import SkillRegistration
from contract_review.structure_parser import DocumentParserConfig

__all__ = [
    "BaselinePosition",
    "DomainPlugin",
    "clear_plugins",
    "get_baseline",
    "get_baseline_for_clause",
    "get_baseline_text",
    "get_plugin",
    "list_plugins",
    "register_plugin",
    "require_plugin",
]

ChecklistBuilder = Callable[[DocumentStructure, str | None], list[ReviewChecklistItem]]
"""(structure, subtype) → checklist items."""

BaselineKeyFinder = Callable[[DocumentStructure, str], str | None]
"""(structure, clause id) → the baseline key that clause corresponds to (e.g. a 1999-numbered
'19.1 Force Majeure' → '18.1'), or None when it corresponds to none."""


class BaselinePosition(BaseModel):
    """The standard position for one clause or topic, in our own words (never FIDIC wording)."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(description="Clause id ('20.1') or topic name ('Governing Law').")
    title: str = Field(description="Short title.")
    text: str = Field(description="The standard position, summarised in our own words.")
    subtypes: list[str] = Field(
        default_factory=list, description="Subtypes it applies to; empty = all."
    )
    source: str = Field("", description="Where the position comes from (facts, not wording).")


class DomainPlugin(BaseModel):
    """Everything one domain contributes to a review."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    domain_id: str = Field(description="'generic', 'fidic', 'sha_spa'.")
    name: str = Field(description="Human-readable name.")
    description: str = Field("", description="What contracts the plugin is for.")
    subtypes: list[str] = Field(default_factory=list, description="e.g. FIDIC books.")
    parser_config: DocumentParserConfig = Field(
        default_factory=DocumentParserConfig, description="How to parse its documents."
    )
    build_checklist: ChecklistBuilder | None = Field(
        None, description="Builds the review checklist from a structure."
    )
    baselines: list[BaselinePosition] = Field(
        default_factory=list, description="Standard positions."
    )
    skills: list[SkillRegistration] = Field(
        default_factory=list, description="Domain skills (domain == domain_id)."
    )
    baseline_key: BaselineKeyFinder | None = Field(
        None,
        description="Maps a document clause to its baseline key when numbering differs; "
        "None = baselines are keyed by the document's own clause ids.",
    )

    def baseline(self, key: str, subtype: str | None = None) -> BaselinePosition | None:
        """The baseline for a clause id or topic (subtype-specific first)."""
        matches = [b for b in self.baselines if b.key == key]
        if subtype:
            for b in matches:
                if subtype in b.subtypes:
                    return b
        return next((b for b in matches if not b.subtypes or subtype is None), None)


_PLUGINS: dict[str, DomainPlugin] = {}


def register_plugin(plugin: DomainPlugin) -> None:
    """Register (or replace) a domain plugin."""
    _PLUGINS[plugin.domain_id] = plugin


def get_plugin(domain_id: str | None) -> DomainPlugin | None:
    """The plugin of `domain_id`, or None."""
    return _PLUGINS.get(domain_id) if domain_id else None


def require_plugin(domain_id: str) -> DomainPlugin:
    """The plugin of `domain_id`, or an InputError naming the known domains."""
    plugin = get_plugin(domain_id)
    if plugin is None:
        known = ", ".join(p.domain_id for p in list_plugins())
        raise InputError(f"unknown domain '{domain_id}'; known domains: {known}")
    return plugin


def list_plugins() -> list[DomainPlugin]:
    """All registered plugins."""
    return list(_PLUGINS.values())


def clear_plugins() -> None:
    """Forget all plugins (tests)."""
    _PLUGINS.clear()


def get_baseline(
    domain_id: str | None, key: str, subtype: str | None = None
) -> BaselinePosition | None:
    """Baseline position of a clause id or topic in a domain, or None."""
    plugin = get_plugin(domain_id)
    return plugin.baseline(key, subtype) if plugin else None


def get_baseline_for_clause(
    domain_id: str | None, structure: DocumentStructure, clause_id: str, subtype: str | None = None
) -> BaselinePosition | None:
    """Baseline position of one clause of a document, numbering differences resolved."""
    plugin = get_plugin(domain_id)
    if plugin is None:
        return None
    if plugin.baseline_key is None:
        return plugin.baseline(clause_id, subtype)
    key = plugin.baseline_key(structure, clause_id)
    return plugin.baseline(key, subtype) if key else None


def get_baseline_text(
    domain_id: str | None, clause_id: str, subtype: str | None = None
) -> str | None:
    """Text of the baseline position of a clause (or topic) in a domain, or None."""
    baseline = get_baseline(domain_id, clause_id, subtype)
    return baseline.text if baseline else None
