"""What a skill may know about the review beyond its clause: the typed task facts.

A review prepares one `ReviewContext` (part of its run context, `prepare_context`): our party
resolved against the contract, the playbook in force read and merged once. The dispatcher
hands it to every skill's `prepare_input(clause_id, primary_structure, state)`; callers that
pass the review state as a mapping (SPEC-19) meet the one adapter, `skills.state` — inside a
skill everything is typed.

The domain's baseline positions reach skills through the context (`baselines`), set by whoever
knows the domain plugins, so skills never import plugins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from contract_review.analysis.clauses import require_clause
from contract_review.analysis.kinds import main_kind_of
from contract_review.models import (
    BaselinePosition,
    DocumentRole,
    DocumentStructure,
    TaskDocument,
)
from contract_review.parties import OurSide, Party, PartyRoles, party_roles
from contract_review.playbook import Playbook, Position, load_playbook, merge_positions
from contract_review.playbook.criteria import Criterion, load_criteria
from contract_review.playbook.plain import compiled_positions

__all__ = [
    "BaselineSource",
    "ClauseSkillInput",
    "ReviewContext",
    "SkillState",
    "StructureInput",
    "merge_positions",
    "positions_in_force",
    "prepare_context",
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
    """The review facts skills read, prepared once per run (`prepare_context`): who we act for,
    resolved against the contract; the language, domain and documents; the playbook in force.

    A plain typed model: a SPEC-19 caller's state mapping is turned into one at the edge
    (`skills.state.review_context`), never read inside a skill."""

    model_config = ConfigDict(extra="forbid")

    task_id: str = Field("", description="Review task id.")
    side: OurSide = Field(
        default_factory=OurSide, description="Whom the review acts for (a party, or neutral)."
    )
    roles: dict[str, PartyRoles] = Field(
        default_factory=dict,
        description="Our party's and the other side's words in each document, by document id, "
        "resolved once (empty when neutral).",
    )
    language: str = Field("en", description="'en' or 'zh-CN'.")
    domain_id: str | None = Field(None, description="'generic', 'fidic', 'sha_spa' or None.")
    domain_subtype: str | None = Field(None, description="e.g. 'silver_book'.")
    contract_kind: str | None = Field(
        None,
        description="The contract kind the user gave (`--kind`, an id of analysis/kinds.yaml); "
        "None: the kinds detected in the contract are used.",
    )
    documents: list[TaskDocument] = Field(default_factory=list, description="Task documents.")
    positions: list[Position] = Field(
        default_factory=list,
        description="The playbook in force: the domain's positions with the user's (and their "
        "remembered ones) merged over them, those of this subtype.",
    )
    criteria_path: str | None = Field(None, description="The user's playbook file, if any.")
    criteria: tuple[Criterion, ...] = Field(
        (),
        description="The user's playbook as review criteria (what to check, preferred and "
        "fallback positions, risk level), read once.",
    )

    # Not data: the domain's positions by clause, attached by `prepare_context` (never
    # serialised).
    _baselines: BaselineSource | None = PrivateAttr(default=None)

    @property
    def our_party(self) -> str:
        """Our party as the user named it ('' when neutral)."""
        return self.side.our_party

    @property
    def baselines(self) -> BaselineSource | None:
        """The domain's standard positions, when the run knows the domain."""
        return self._baselines

    def with_baselines(self, source: BaselineSource | None) -> ReviewContext:
        """A copy of this context for `source`'s domain: its positions by clause attached and
        the playbook in force taken from it (with the user's file over it)."""
        copy = self.model_copy(
            update={
                "positions": positions_in_force(source, self.criteria_path, self.domain_subtype)
            }
        )
        copy._baselines = source
        return copy

    def roles_in(self, structure: DocumentStructure | None) -> PartyRoles:
        """Our party's and the other side's words in `structure` (one of the run's documents;
        another structure gets the primary document's): unresolved when neutral."""
        if structure is not None and structure.document_id in self.roles:
            return self.roles[structure.document_id]
        primary = self.structure_of(DocumentRole.PRIMARY)
        if primary is not None and primary.document_id in self.roles:
            return self.roles[primary.document_id]
        return next(iter(self.roles.values()), PartyRoles(our_party="", resolved=False))

    def kind_of(self, structure: DocumentStructure | None) -> str | None:
        """The contract's kind: the one the user gave, else the main one detected in
        `structure` (read once per document)."""
        return self.contract_kind or main_kind_of(structure)

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


def prepare_context(
    *,
    side: OurSide | str = "",
    baselines: BaselineSource | None = None,
    criteria: Path | str | None = None,
    structure: DocumentStructure | None = None,
    task_id: str = "",
    language: str | None = None,
    domain_id: str | None = None,
    domain_subtype: str | None = None,
    documents: Sequence[TaskDocument] = (),
    contract_kind: str | None = None,
) -> ReviewContext:
    """The review facts of a run, prepared once: our side resolved in every document (and in
    `structure`, a contract reviewed without documents), the playbook in force read, merged
    and validated (the domain's positions from `baselines`, the user's `criteria` file over
    them), and the domain's positions by clause attached.

    `side` is the party already resolved against the contract, or the word a caller names our
    party by (taken as it is: no preamble is read for it)."""
    if isinstance(side, str):
        word = side.strip()
        side = (
            OurSide(party=Party(name=word, labels=(word,)), our_party=word) if word else OurSide()
        )
    structures = [d.structure for d in documents if d.structure is not None]
    if structure is not None:
        structures.append(structure)
    roles = (
        {s.document_id: party_roles(s, side.our_party) for s in structures}
        if side.our_party
        else {}
    )
    # A language left unset stays unset: a drafted comment then follows the contract's.
    given = {"language": language} if language is not None else {}
    context = ReviewContext(
        task_id=task_id,
        criteria=load_criteria(criteria)[1] if criteria else (),
        side=side,
        roles=roles,
        domain_id=domain_id,
        domain_subtype=domain_subtype,
        contract_kind=contract_kind,
        documents=list(documents),
        criteria_path=str(criteria) if criteria else None,
        **given,
    )
    return context.with_baselines(baselines)


def positions_in_force(
    baselines: BaselineSource | None, criteria: Path | str | None, subtype: str | None
) -> list[Position]:
    """The playbook in force: the domain's positions (`baselines`), the user's `criteria` file
    merged over them (read once per file version), those of `subtype`."""
    playbook = baselines.playbook if baselines is not None else None
    positions = list(playbook.positions) if playbook is not None else []
    if criteria:
        # a position written in words only takes over the built-in checks it is about
        user = compiled_positions(_user_positions(str(criteria)), positions)
        positions = merge_positions(positions, user)
    return [p for p in positions if not p.subtypes or subtype in p.subtypes]


def _user_positions(path: str) -> list[Position]:
    file = Path(path)
    try:
        stamp = file.stat().st_mtime_ns
    except OSError:
        return []  # checked before the review started; a file removed since adds nothing
    return _read_positions(path, stamp)


@lru_cache(maxsize=16)
def _read_positions(path: str, stamp: int) -> list[Position]:
    """The positions of a user playbook (cached per file version: a run and its exports, or a
    batch's contracts, read it once)."""
    del stamp  # part of the cache key only
    return list(load_playbook(Path(path)).positions)


SkillState = ReviewContext | Mapping[str, Any]
"""What `prepare_input(clause_id, primary_structure, state)` receives: the review's context as
a mapping (`skills.state.StateView`, from the dispatcher), a review state mapping (SPEC-19
callers) or the context itself; `skills.state.review_context` gives its typed facts."""


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
