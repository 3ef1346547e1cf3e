"""The plugin registry: which domains the engine knows, and their baseline positions."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pydantic import BaseModel, ConfigDict, Field

from contract_review.errors import InputError
from contract_review.models import (
    BaselinePosition,
    ClauseFindings,
    ClauseInventory,
    DocumentStructure,
    ReviewChecklistItem,
    TaskDocument,
)
from contract_review.playbook import Playbook
from contract_review.skills.schema import SkillRegistration
from contract_review.structure_parser import DocumentParserConfig

__all__ = [
    "DEFAULT_DOMAIN",
    "BaselinePosition",
    "DomainPlugin",
    "clear_plugins",
    "get_baseline",
    "get_baseline_for_clause",
    "get_baseline_text",
    "get_plugin",
    "list_plugins",
    "plugin_for",
    "register_plugin",
    "require_plugin",
]

ChecklistBuilder = Callable[[DocumentStructure, str | None], list[ReviewChecklistItem]]
"""(structure, subtype) → checklist items."""

BaselineKeyFinder = Callable[[DocumentStructure, str], str | None]
"""(structure, clause id) → the baseline key that clause corresponds to (e.g. a 1999-numbered
'19.1 Force Majeure' → '18.1'), or None when it corresponds to none."""

DocumentPreparer = Callable[[list[TaskDocument], DocumentParserConfig], list[TaskDocument]]
"""(task documents, parser profile) → the documents to review (e.g. FIDIC: the conditions in
force merged from General and Particular Conditions become the primary document)."""

ChecklistAdjuster = Callable[
    [list[ReviewChecklistItem], list[TaskDocument]], list[ReviewChecklistItem]
]
"""(checklist, task documents) → the checklist adapted to the documents given (e.g. amendment
skills on every item when Particular Conditions amend a baseline)."""

InventoryBuilder = Callable[[DocumentStructure], ClauseInventory]
"""structure → the contract's clause inventory (categories present, clauses, values)."""
TopicEvidence = Callable[[DocumentStructure], frozenset[str]]
"""structure → the topics (ids and names, lower case) its text deals with anywhere."""

CrossClauseRule = Callable[[Mapping[str, ClauseFindings], str], dict[str, ClauseFindings]]
"""(all findings of a review (item key → findings), the review's language) → the findings after
a rule that needs the whole contract at once (e.g. an uncapped liability anywhere makes
indemnities weigh more); what the rule writes is in that language ('en' or 'zh-CN')."""


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
    prepare_documents: DocumentPreparer | None = Field(
        None, description="Turns the task's documents into the documents reviewed."
    )
    standard_form: bool = Field(
        False,
        description="Whether its contracts amend a standard form whose licensed text the user "
        "may load as the baseline document; without one, the report says the changes were "
        "measured against our summary of the standard positions.",
    )
    adjust_checklist: ChecklistAdjuster | None = Field(
        None, description="Adapts the checklist to the documents given."
    )
    build_inventory: InventoryBuilder | None = Field(
        None, description="The clause inventory of a contract (present, clauses, values)."
    )
    cross_clause_rules: list[CrossClauseRule] = Field(
        default_factory=list, description="Rules applied to all findings once clauses are done."
    )
    topics_anywhere: TopicEvidence | None = Field(
        None,
        description="The topics a contract deals with anywhere in its text (ids and names, "
        "lower case), read before a protection is reported missing.",
    )
    playbook: Playbook | None = Field(
        None, description="The domain's positions (its baselines are derived from them)."
    )
    prompt_hints: dict[str, str] = Field(
        default_factory=dict,
        description="Domain guidance for the LLM agent's prompt, by language ('en', 'zh').",
    )

    def baseline(self, key: str, subtype: str | None = None) -> BaselinePosition | None:
        """The baseline for a clause id or topic (subtype-specific first)."""
        matches = [b for b in self.baselines if b.key == key]
        if subtype:
            for b in matches:
                if subtype in b.subtypes:
                    return b
        return next((b for b in matches if not b.subtypes or subtype is None), None)

    def baseline_for_clause(
        self, structure: DocumentStructure, clause_id: str, subtype: str | None = None
    ) -> BaselinePosition | None:
        """The baseline of one clause of a document, numbering differences resolved."""
        if self.baseline_key is None:
            return self.baseline(clause_id, subtype)
        key = self.baseline_key(structure, clause_id)
        return self.baseline(key, subtype) if key else None


_PLUGINS: dict[str, DomainPlugin] = {}


def register_plugin(plugin: DomainPlugin) -> None:
    """Register (or replace) a domain plugin."""
    _PLUGINS[plugin.domain_id] = plugin


def get_plugin(domain_id: str | None) -> DomainPlugin | None:
    """The plugin of `domain_id`, or None."""
    return _PLUGINS.get(domain_id) if domain_id else None


DEFAULT_DOMAIN = "generic"
"""The domain of a review that names none."""


def plugin_for(domain_id: str | None) -> DomainPlugin | None:
    """The plugin of `domain_id`, else that of the default domain (None if neither is
    registered): what a review without a (known) domain is reviewed as."""
    return get_plugin(domain_id) or get_plugin(DEFAULT_DOMAIN)


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
    return plugin.baseline_for_clause(structure, clause_id, subtype) if plugin else None


def get_baseline_text(
    domain_id: str | None, clause_id: str, subtype: str | None = None
) -> str | None:
    """Text of the baseline position of a clause (or topic) in a domain, or None."""
    baseline = get_baseline(domain_id, clause_id, subtype)
    return baseline.text if baseline else None
