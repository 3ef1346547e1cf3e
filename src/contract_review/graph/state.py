"""State of the review graph (SPEC-4 names) and of one clause's branch."""

from __future__ import annotations

import operator
from typing import Annotated, NotRequired

from typing_extensions import TypedDict

from contract_review.models import (
    ActionRecommendation,
    AgentRunInfo,
    ApprovalRequest,
    ClauseFindings,
    ClausePlan,
    DocumentDiff,
    DocumentStructure,
    FavourableTerm,
    Replan,
    ReviewChecklistItem,
    ReviewPlan,
    RiskPoint,
    TaskDocument,
)
from contract_review.skills.context import ReviewContext

__all__ = ["ClauseIn", "ClauseState", "ReviewGraphState", "merge_findings"]


def merge_findings(
    left: dict[str, ClauseFindings] | None, right: dict[str, ClauseFindings] | None
) -> dict[str, ClauseFindings]:
    """Reducer of `findings`: branches finish in any order; later writes of a key win."""
    return {**(left or {}), **(right or {})}


class ReviewGraphState(TypedDict, total=False):
    """The review's state (SPEC-4). Per-clause work happens in `ClauseState` branches; only
    their findings and a done-count come back here."""

    # task facts (set at the start, read-only afterwards)
    task_id: str
    our_party: str
    material_type: str
    language: str
    domain_id: str | None
    domain_subtype: str | None
    contract_kind: str | None
    """The contract kind the user gave (`--kind`); None: detected."""
    approval_policy: str
    """'state' (decisions come from user_decisions, default approve), 'interactive'
    (interrupt() asks now), 'none' (interrupt() waits for decisions given later) or 'all'
    (approve everything)."""

    # documents
    documents: list[TaskDocument]
    primary_structure: DocumentStructure | None

    # plan
    review_checklist: list[ReviewChecklistItem]
    review_plan: ReviewPlan | None
    """The orchestrator's plan (SPEC-21): depth, tools and rounds per item, start order."""
    replans: Annotated[list[Replan], operator.add]
    """Changes of plan made while the clauses ran (at most one per run)."""
    current_clause_index: Annotated[int, operator.add]
    """How many checklist items are done (each branch adds one)."""

    # scratchpad
    findings: Annotated[dict[str, ClauseFindings], merge_findings]
    """Item key (clause id, or clause id#n for a second item on one clause) → findings."""
    global_issues: list[str]

    # per-clause working area of the SPEC-4 serial design, kept for compatibility
    current_clause_id: str | None
    current_clause_text: str | None
    current_risks: list[RiskPoint]
    current_diffs: list[DocumentDiff]
    validation_result: str | None
    clause_retry_count: int
    max_retries: int

    # human approval
    missing: list[RiskPoint]
    """Protections the contract lacks: playbook positions no clause deals with."""
    carried_diffs: dict[str, list[DocumentDiff]]
    """A restarted task's decided redlines on clauses whose text changed but still holds their
    words, by item key: merged into the clause's new findings by collect."""
    pending_diffs: list[DocumentDiff]
    user_decisions: dict[str, str]
    user_feedback: dict[str, str]
    user_modified_text: dict[str, str]
    decision_records: dict[str, ApprovalRequest]
    """Each decision as given (who decided and when), by diff id."""
    redrafted: bool

    # results
    all_risks: list[RiskPoint]
    all_diffs: list[DocumentDiff]
    all_actions: list[ActionRecommendation]
    summary_notes: str
    error: str | None
    is_complete: bool


class ClauseIn(TypedDict):
    """What a clause branch receives (small: the item and its key; documents come from the
    run context)."""

    item: ReviewChecklistItem
    key: str
    plan: NotRequired[ClausePlan | None]
    """The item's entry of the plan as made (a re-plan may raise it when the branch starts)."""
    max_retries: int
    """Redrafts of the clause's redlines while validation fails."""
    facts: NotRequired[ReviewContext | None]
    """The task facts and documents, only for a graph invoked without a run context (its
    documents in the state); None otherwise."""


class ClauseState(ClauseIn, total=False):
    """A clause branch's working state."""

    risks: list[RiskPoint]
    diffs: list[DocumentDiff]
    notes: list[str]
    validation_result: str
    retry_count: int
    mode: str
    """'llm' when the agent's findings were used, else 'deterministic'."""
    mode_reason: str
    """Why the clause was reviewed deterministically ('' in LLM mode)."""
    agent: AgentRunInfo
    injection_flags: list[str]
    favourable: list[FavourableTerm]
    """Terms that burden the other side (the report's 'favourable to us')."""
    suggestions: dict[str, str]
    alternatives: dict[str, list[DocumentDiff]]
    """Diff id → other drafts for the same risk, tried in order when it fails verification."""
    """Risk id → the model's minimal replacement of the risk's quote."""
    replans: list[Replan]
    """The change of plan this clause's findings caused (handed to the review's state)."""
