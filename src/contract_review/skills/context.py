"""What a skill may know about the review beyond its clause: the typed task facts.

A review builds one `ReviewContext` (part of its run context) and the dispatcher hands it to
every skill's `prepare_input(clause_id, primary_structure, state)`. Callers that still pass the
review state as a mapping (SPEC-19) get it validated once, at that edge, by
`ReviewContext.from_state` — inside a skill everything is typed.

The domain's baseline positions reach skills through the context (`baselines`), set by whoever
knows the domain plugins, so skills never import plugins.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from contract_review.analysis.clauses import require_clause
from contract_review.models import (
    BaselinePosition,
    DocumentRole,
    DocumentStructure,
    TaskDocument,
)
from contract_review.playbook import Playbook, Position, load_playbook, merge_positions

__all__ = [
    "BaselineSource",
    "ClauseSkillInput",
    "ReviewContext",
    "SkillState",
    "StructureInput",
    "merge_positions",
    "require_clause",
]


class BaselineSource(Protocol):
    """Where a domain's standard positions come from (a domain plugin)."""

    @property
    def playbook(self) -> Playbook | None:
        """The domain's playbook, whose positions carry checks."""
        ...

    def baseline(self, key: str, subtype: str | None = None) -> BaselinePosition | None:
        """The position for a clause id or topic."""
        ...

    def baseline_for_clause(
        self, structure: DocumentStructure, clause_id: str, subtype: str | None = None
    ) -> BaselinePosition | None:
        """The position for one clause of a document, numbering differences resolved."""
        ...


class ReviewContext(BaseModel):
    """The review facts skills use: who we act for, language, domain, and the documents."""

    # A state mapping's other keys are kept (as extras): a SPEC-19 `prepare_input` may read
    # any key of the state it was given, through `get` / `[]`.
    model_config = ConfigDict(extra="allow")

    task_id: str = Field("", description="Review task id.")
    our_party: str = Field("", description="The party we act for, as named in the contract.")
    language: str = Field("en", description="'en' or 'zh-CN'.")
    domain_id: str | None = Field(None, description="'generic', 'fidic', 'sha_spa' or None.")
    domain_subtype: str | None = Field(None, description="e.g. 'silver_book'.")
    documents: list[TaskDocument] = Field(default_factory=list, description="Task documents.")
    criteria_path: str | None = Field(None, description="Review playbook file, if any.")

    # Not data: the domain's positions, attached by the run (never serialised).
    _baselines: BaselineSource | None = PrivateAttr(default=None)

    @classmethod
    def from_state(cls, state: ReviewContext | Mapping[str, Any] | None) -> ReviewContext:
        """The context itself, or a review state validated (the keys skills use typed, the
        others kept as they are)."""
        if isinstance(state, ReviewContext):
            return state
        return cls.model_validate(dict(state or {}))

    def get(self, key: str, default: Any = None) -> Any:
        """A fact by its state key (SPEC-19 `prepare_input` functions read the state so)."""
        if key in type(self).model_fields:
            return getattr(self, key)
        return (self.model_extra or {}).get(key, default)

    def __getitem__(self, key: str) -> Any:
        marker = object()
        value = self.get(key, marker)
        if value is marker:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return key in type(self).model_fields or key in (self.model_extra or {})

    @property
    def baselines(self) -> BaselineSource | None:
        """The domain's standard positions, when the run knows the domain."""
        return self._baselines

    def with_baselines(self, source: BaselineSource | None) -> ReviewContext:
        """A copy of this context whose skills see `source`'s positions."""
        copy = self.model_copy()
        copy._baselines = source
        return copy

    @property
    def positions(self) -> list[Position]:
        """The positions that apply to this review's subtype: the domain's playbook, with the
        user's playbook (`criteria_path`) replacing positions of the same id and adding new
        ones."""
        playbook = self._baselines.playbook if self._baselines is not None else None
        positions = list(playbook.positions) if playbook is not None else []
        if self.criteria_path:
            positions = merge_positions(positions, _user_positions(self.criteria_path))
        subtype = self.domain_subtype
        return [p for p in positions if not p.subtypes or subtype in p.subtypes]

    def baseline(self, key: str) -> BaselinePosition | None:
        """The domain's position for a clause id or topic (this review's subtype first)."""
        return self._baselines.baseline(key, self.domain_subtype) if self._baselines else None

    def baseline_for_clause(
        self, structure: DocumentStructure, clause_id: str
    ) -> BaselinePosition | None:
        """The domain's position for one clause of `structure`."""
        if self._baselines is None:
            return None
        return self._baselines.baseline_for_clause(structure, clause_id, self.domain_subtype)

    def with_role(self, role: DocumentRole) -> list[TaskDocument]:
        """Documents playing `role`, in task order."""
        return [d for d in self.documents if d.role is role]

    def structure_of(self, role: DocumentRole) -> DocumentStructure | None:
        """Structure of the first document with `role` that has been parsed."""
        return next((d.structure for d in self.with_role(role) if d.structure), None)


def _user_positions(path: str) -> list[Position]:
    file = Path(path)
    try:
        stamp = file.stat().st_mtime_ns
    except OSError:
        return []  # checked before the review started; a file removed since adds nothing
    return _read_positions(path, stamp)


@lru_cache(maxsize=16)
def _read_positions(path: str, stamp: int) -> list[Position]:
    """The positions of a user playbook (cached per file version: read once per run)."""
    del stamp  # part of the cache key only
    return list(load_playbook(Path(path)).positions)


SkillState = ReviewContext | Mapping[str, Any]
"""What `prepare_input(clause_id, primary_structure, state)` receives: the review's typed
context (from the dispatcher), or a review state mapping (SPEC-19 callers)."""


class StructureInput(BaseModel):
    """The input of a skill that reads the contract: its structure, filled in by the system
    (an internal field: never offered to, nor set by, an LLM)."""

    document_structure: DocumentStructure | None = Field(
        None, description="Contract structure (filled in by the system)."
    )


class ClauseSkillInput(StructureInput):
    """The input of a skill that reads one clause and the review's facts."""

    clause_id: str = Field(description="Id of the clause, e.g. '14.2', '4.1(a)', '5(1)'.")
    review_context: ReviewContext | None = Field(
        None, description="Internal: our party, the documents and the domain's positions."
    )
