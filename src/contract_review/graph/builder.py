"""The review graph (SPEC-4 behaviour, built for concurrency).

    START → init → parse_document ─┬─ Send(clause_review) per checklist item ─→ collect
                                   ├─ (all clauses kept from a restarted run) → collect
                                   └─ (nothing to review) ────────────────────→ summarize
    collect → human_approval → (rejected with feedback, once) redraft → human_approval
            → save_clause → summarize → END

`clause_review` runs per item: clause_analyze → clause_generate_diffs → clause_validate
(→ clause_generate_diffs again while invalid, up to max_retries) → clause_done. Validation
verifies every draft (`verify.verify_change`): a change is proposed only when the clause's
rules, run again on the changed text, find it better for us and its wording sound.
Branches run concurrently (cap: the run config's `max_concurrency`) and hand back only their
findings. Documents and services come from the run context (`context.RunContext`, LangGraph
runtime context), so they stay out of the state and the checkpoints; a graph invoked SPEC-4
style, with its documents in the state, derives one from the state. Human approval is one parent-level
node, so `interrupt_before=["human_approval"]` and `interrupt()` both work (docs/
design-review-graph.md explains why it is not inside the branches).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send, interrupt

from contract_review import models
from contract_review.analysis.verify import (
    Judgement,
    for_the_lawyer,
    strike_needs_lawyer,
    wording_needs_lawyer,
)
from contract_review.config import Settings, get_settings
from contract_review.errors import LLMError
from contract_review.models import (
    ActionType,
    AgentRunInfo,
    ApprovalRequest,
    ClauseFindings,
    ClauseNode,
    ClausePlan,
    Depth,
    DiffStatus,
    DocumentDiff,
    DocumentRole,
    DocumentStructure,
    ReviewChecklistItem,
    RiskLevel,
    RiskPoint,
    TaskDocument,
)
from contract_review.playbook import Position, applicable
from contract_review.plugins import create_dispatcher
from contract_review.skills.context import ReviewContext
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.risks import (
    SEVERITY_ORDER,
    location_in,
)
from contract_review.types import ChatModel

from ._findings import checked_llm_risks, missing_protections
from ._insertions import propose_missing_clauses
from ._json import json_values
from .context import RunContext, context_from_state, facts_from_state
from .events import EventType, ReviewEvent, emit, short
from .plan import Planner, model_plan, plan_summary, playbook_plan, uniform_plan
from .prompts import build_react_agent_messages, build_redline_messages
from .react_agent import AgentOutcome, run_react_agent
from .state import ClauseIn, ClauseState, ReviewGraphState
from .verify import clause_rules, first_verified

__all__ = ["build_review_graph", "item_keys", "review_serde", "route_validation"]

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------
# Parent nodes
# --------------------------------------------------------------------------------------------


async def node_init(state: ReviewGraphState) -> dict[str, Any]:
    """Defaults, and the edge validation of what the caller passed in."""
    checklist = [ReviewChecklistItem.model_validate(i) for i in state.get("review_checklist", [])]
    structure = state.get("primary_structure")
    return {
        "task_id": state.get("task_id") or "task",
        "review_checklist": checklist,
        "primary_structure": (
            DocumentStructure.model_validate(structure) if structure is not None else None
        ),
        "documents": [TaskDocument.model_validate(d) for d in state.get("documents", [])],
        "current_clause_index": 0,
        "global_issues": [],
        "all_risks": [],
        "all_diffs": [],
        "all_actions": [],
        "max_retries": state.get("max_retries", 2),
        "approval_policy": state.get("approval_policy", "state"),
        "redrafted": False,
        "is_complete": False,
        "error": None,
    }


class _ParentNodes:
    """Parent nodes that read the run context (or derive it from the state: SPEC-4 callers)."""

    def __init__(self, nodes: _ClauseNodes) -> None:
        self.nodes = nodes

    def context(self, state: ReviewGraphState, runtime: Runtime[RunContext]) -> RunContext:
        """The run's context, or one derived from the state."""
        if runtime.context is not None:
            return runtime.context
        return context_from_state(state, self.nodes.dispatcher, self.nodes.settings)

    async def parse_document(
        self, state: ReviewGraphState, runtime: Runtime[RunContext]
    ) -> dict[str, Any]:
        """The checklist (a generic per-clause one when none is given); a bare
        `primary_structure` in the state becomes its primary document."""
        update: dict[str, Any] = {"primary_structure": None}
        if runtime.context is None:
            facts = facts_from_state(state)
            if facts.documents:
                update["documents"] = facts.documents
            structure = facts.structure_of(DocumentRole.PRIMARY)
        else:
            structure = runtime.context.primary
        checklist = state.get("review_checklist", [])
        if not checklist and structure is not None:
            checklist = _generic_checklist(structure)
        return {**update, "review_checklist": checklist}

    async def plan(self, state: ReviewGraphState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        """The orchestrator (SPEC-21): the review's plan, by the model in LLM mode (validated,
        the playbook's plan where it fails), else from the playbook priorities."""
        items = state.get("review_checklist", [])
        if state.get("error") or not items:
            return {}
        run = self.context(state, runtime)
        nodes, settings = self.nodes, self.nodes.settings
        keys = item_keys(items)
        structure = run.primary
        if not settings.orchestrator:
            plan = uniform_plan(items, keys, settings)
        elif nodes.llm is not None and nodes.health.down_reason is None:
            positions = {
                key: len(nodes.positions(run, clause, item))
                for key, item in zip(keys, items, strict=True)
                if structure and (clause := structure.get_clause(item.clause_id))
            }
            categories = sorted({r.category for r in run.dispatcher.list_skills()})
            plan = await model_plan(
                nodes.llm,
                items,
                keys,
                structure,
                positions,
                settings,
                our_party=run.facts.our_party,
                language=run.facts.language,
                categories=categories,
                record=run.transcripts.append if run.transcripts else None,
            )
        else:  # rules only: the depth changes nothing, the priorities plan it (cheaply)
            plan = playbook_plan(items, keys, structure, {}, settings)
        nodes.planners[run.task_id] = Planner(plan, items, keys, structure, settings)
        emit(ReviewEvent(type=EventType.PLAN, data=plan_summary(plan)))
        return {"review_plan": plan}

    async def collect(
        self, state: ReviewGraphState, runtime: Runtime[RunContext]
    ) -> dict[str, Any]:
        """Join the branches: the domain's cross-clause rules, the protections the contract
        lacks (playbook positions no clause deals with), then the diffs awaiting approval in
        checklist order.

        Cross-clause rules see all findings at once, so the order branches finished in cannot
        change the outcome."""
        run = self.context(state, runtime)
        plugin = run.plugin
        findings = dict(state.get("findings", {}))
        for key, diffs in (state.get("carried_diffs") or {}).items():
            if key in findings:
                findings[key] = _with_carried(findings[key], diffs)
        for rule in plugin.cross_clause_rules if plugin else []:
            findings = rule(findings, run.facts.language)
        items = state.get("review_checklist", [])
        anywhere = (
            plugin.topics_anywhere(run.primary)
            if plugin is not None and plugin.topics_anywhere and run.primary is not None
            else frozenset()
        )
        missing = missing_protections(
            run.facts.positions,
            items,
            run.primary,
            run.side,
            run.facts.language,
            anywhere,
            run.facts.kind_of(run.primary),
        )
        keys = item_keys(items)
        # a protection the contract lacks gets our standard clause, verified like any change
        findings = await propose_missing_clauses(run, missing, findings, items, keys, anywhere)
        pending = [
            d
            for key in keys
            if key in findings
            for d in findings[key].diffs
            if d.status is DiffStatus.PENDING
        ]
        return {"findings": findings, "pending_diffs": pending, "missing": missing}

    async def human_approval(
        self, state: ReviewGraphState, runtime: Runtime[RunContext]
    ) -> dict[str, Any]:
        """Decisions on the pending diffs: from `interrupt()` (a person decides: policies
        'interactive' and 'none', the latter deciding later), the policy 'all', or the
        `user_decisions` given through `update_state` (SPEC-4)."""
        pending = state.get("pending_diffs", [])
        policy = state.get("approval_policy", "state")
        decisions = dict(state.get("user_decisions") or {})
        feedback = dict(state.get("user_feedback") or {})
        modified = dict(state.get("user_modified_text") or {})
        records = dict(state.get("decision_records") or {})
        undecided = [d for d in pending if d.diff_id not in decisions]
        if undecided and policy in ("interactive", "none"):
            structure = self.context(state, runtime).primary
            payload = _approval_payload(state, structure, undecided)
            answer = interrupt({"type": "approval", "diffs": payload})
            for req in _approval_requests(answer):
                decisions[req.diff_id] = req.decision.value
                records[req.diff_id] = req
                if req.feedback:
                    feedback[req.diff_id] = req.feedback
                if req.user_modified_text is not None:
                    modified[req.diff_id] = req.user_modified_text
        elif policy == "all":
            for d in pending:
                if for_the_lawyer(d):
                    continue  # a blank to fill, a whole term struck: the lawyer's to decide
                decisions.setdefault(d.diff_id, "approve")
        return {
            "user_decisions": decisions,
            "user_feedback": feedback,
            "user_modified_text": modified,
            "decision_records": records,
        }


def _with_carried(findings: ClauseFindings, carried: Sequence[DocumentDiff]) -> ClauseFindings:
    """A clause's new findings with the redlines decided before its text changed (their words
    still in it): a new proposal of the same change gives way to the decided one."""
    same = {(d.original_text, d.proposed_text) for d in carried}
    fresh = [d for d in findings.diffs if (d.original_text, d.proposed_text) not in same]
    return findings.model_copy(update={"diffs": [*fresh, *carried]})


def _clause_positions(
    facts: ReviewContext, clause: ClauseNode, item: ReviewChecklistItem
) -> list[Position]:
    """The playbook positions on the clause's points (what the agent's prompt carries)."""
    return applicable(facts.positions, clause.text, clause.title or item.clause_name, item.topics)


def _generic_checklist(structure: DocumentStructure) -> list[ReviewChecklistItem]:
    return [
        ReviewChecklistItem(
            clause_id=c.clause_id,
            clause_name=c.title,
            required_skills=["get_clause_context", "extract_financial_terms"],
            description=f"Review clause {c.clause_id}",
        )
        for c in structure.clauses
        if c.kind.value != "preamble"
    ]


def item_keys(items: Sequence[ReviewChecklistItem]) -> list[str]:
    """Finding keys of checklist items: the clause id, 'id#2' for a second item on it."""
    seen: dict[str, int] = {}
    keys = []
    for item in items:
        n = seen.get(item.clause_id, 0) + 1
        seen[item.clause_id] = n
        keys.append(item.clause_id if n == 1 else f"{item.clause_id}#{n}")
    return keys


def _start_order(branch: ClauseIn) -> int:
    entry = branch.get("plan")
    return entry.order if entry is not None else 1 << 30


def route_fan_out(state: ReviewGraphState) -> list[Send] | str:
    """One clause branch per checklist item (or straight to the summary)."""
    items = state.get("review_checklist", [])
    if state.get("error") or not items:
        return "summarize"
    # A run with a context keeps documents out of the state: branches read the context. A
    # graph given its documents in the state hands them to each branch instead.
    facts = facts_from_state(state) if state.get("documents") else None
    retries = state.get("max_retries", 2)
    kept = state.get("findings") or {}  # a restarted task's unchanged clauses
    plan = state.get("review_plan")
    branches = [
        ClauseIn(
            item=item,
            key=key,
            max_retries=retries,
            facts=facts,
            plan=plan.of(key) if plan is not None else None,
        )
        for item, key in zip(items, item_keys(items), strict=True)
        if key not in kept
    ]
    if plan is not None:  # the plan's start order
        branches.sort(key=_start_order)
    return [Send("clause_review", b) for b in branches] or "collect"


def _approval_payload(
    state: ReviewGraphState, structure: DocumentStructure | None, pending: Sequence[DocumentDiff]
) -> list[dict[str, Any]]:
    """Each pending diff with what a reviewer needs to decide: the clause and the risk."""
    risks = {r.id: r for f in state.get("findings", {}).values() for r in f.risks}
    risks.update((r.id, r) for r in state.get("missing", []))  # our clause for what is missing
    out = []
    for d in pending:
        clause = structure.get_clause(d.clause_id) if structure else None
        risk = risks.get(d.risk_id or "")
        out.append(
            {
                **d.model_dump(mode="json"),
                "clause_title": clause.title if clause else "",
                "clause_text": clause.text if clause else "",
                "risk_description": risk.description if risk else "",
            }
        )
    return out


def _approval_requests(answer: Any) -> list[ApprovalRequest]:
    """A resume value: a list of ApprovalRequest-shaped dicts, or {diff_id: decision | dict}."""
    if isinstance(answer, dict):
        items = [
            {"diff_id": k, **(v if isinstance(v, dict) else {"decision": v})}
            for k, v in answer.items()
        ]
    elif isinstance(answer, list):
        items = answer
    else:
        items = []
    return [ApprovalRequest.model_validate(i) for i in items]


def route_after_approval(state: ReviewGraphState) -> str:
    """Redraft once what the reviewer rejected with feedback; otherwise save."""
    if state.get("redrafted"):
        return "save_clause"
    decisions = state.get("user_decisions") or {}
    feedback = state.get("user_feedback") or {}
    wanted = [d for d in state.get("pending_diffs", []) if decisions.get(d.diff_id) == "reject"]
    return "redraft" if any(feedback.get(d.diff_id) for d in wanted) else "save_clause"


class _Redraft:
    """The redraft node (it needs the run context, and the model in LLM mode)."""

    def __init__(self, parents: _ParentNodes) -> None:
        self.parents = parents
        self.nodes = parents.nodes

    async def _llm_edit(
        self, facts: ReviewContext, clause: ClauseNode, risk: RiskPoint, instruction: str
    ) -> tuple[RiskPoint, str] | None:
        """The model's minimal edit for the reviewer's feedback: the risk re-quoted on the
        words to change, and their replacement; None when the model gives no usable edit."""
        llm, settings = self.nodes.llm, self.nodes.settings
        if llm is None or self.nodes.health.down_reason is not None:
            return None
        messages = build_redline_messages(
            language=facts.language,
            our_party=facts.our_party,
            clause_id=clause.clause_id,
            clause_text=clause.text,
            risk=risk,
            instruction=instruction,
        )
        try:
            answer = await asyncio.wait_for(
                llm.chat(messages, temperature=settings.react_temperature),
                timeout=settings.react_clause_timeout,
            )
        except (TimeoutError, LLMError) as exc:
            logger.info("LLM redraft of clause %s failed: %s", clause.clause_id, exc)
            return None
        edit = next((v for v in json_values(answer) if isinstance(v, dict)), None)
        original = str((edit or {}).get("original_text") or "").strip()
        proposed = str((edit or {}).get("suggested_text") or "").strip()
        at = clause.text.find(original) if original else -1
        if at == -1 or not proposed or proposed == original:
            return None  # an edit of words the clause does not contain is no edit
        return risk.model_copy(update={"location": location_in(clause, original, at)}), proposed

    async def __call__(
        self, state: ReviewGraphState, runtime: Runtime[RunContext]
    ) -> dict[str, Any]:
        """One new draft per diff rejected with feedback, using the feedback as instruction."""
        decisions = state.get("user_decisions") or {}
        feedback = state.get("user_feedback") or {}
        findings = dict(state.get("findings", {}))
        ctx = self.parents.context(state, runtime)
        structure = ctx.primary
        checklist = state.get("review_checklist", [])
        items = dict(zip(item_keys(checklist), checklist, strict=True))
        new_pending: list[DocumentDiff] = []
        for key, f in findings.items():
            added: list[DocumentDiff] = []
            notes: list[str] = []
            for diff in f.diffs:
                text = feedback.get(diff.diff_id)
                if decisions.get(diff.diff_id) != "reject" or not text:
                    continue
                risk = next((r for r in f.risks if r.id == diff.risk_id), None)
                if risk is None:
                    continue
                arguments: dict[str, Any] = {"instruction": text}
                clause = structure.get_clause(f.clause_id) if structure else None
                edit = await self._llm_edit(ctx.facts, clause, risk, text) if clause else None
                if edit is not None:
                    risk, arguments["proposed_text"] = edit
                result = await ctx.dispatcher.prepare_and_call(
                    "draft_redline_comment",
                    f.clause_id,
                    structure,
                    ctx.facts,
                    llm_arguments={"risk": risk.model_dump(mode="json"), **arguments},
                )
                drafts = _drafts_from(result.data) if result.success else []
                drafts = [d for d in drafts if d.diff_id != diff.diff_id]
                item = items.get(key)
                redraft = drafts[0] if drafts else None
                if drafts and structure is not None and clause is not None and item is not None:
                    # verified like any change: the reviewer's wish does not make it safe
                    redraft, problems = await first_verified(
                        ctx, item.required_skills, structure, clause, drafts, risk
                    )
                    if redraft is None:
                        what = "; ".join(dict.fromkeys(p.detail for p in problems))
                        notes.append(
                            f"redraft of {diff.diff_id} not proposed ({what}): the wording is "
                            "left to the lawyer"
                        )
                if redraft is not None:
                    added.append(redraft)
            if added or notes:
                findings[key] = f.model_copy(
                    update={"diffs": [*f.diffs, *added], "notes": [*f.notes, *notes]}
                )
                new_pending.extend(added)
        return {"findings": findings, "pending_diffs": new_pending, "redrafted": True}


async def node_save_clause(state: ReviewGraphState) -> dict[str, Any]:
    """Apply the decisions to every diff; collect risks and approved diffs in checklist order."""
    return decided_findings(state)


def decided_findings(state: Mapping[str, Any]) -> dict[str, Any]:
    """`findings` with the decisions applied to their diffs (status, the reviewer's wording,
    feedback, who decided and when), and the risks and approved diffs in checklist order.

    An undecided diff counts as approved (SPEC-4) when decisions come through the state or
    every redline is approved ('all'); when a person decides ('interactive', 'none') it stays
    pending. Also used for the outputs of a review still waiting for decisions."""
    decisions = state.get("user_decisions") or {}
    modified = state.get("user_modified_text") or {}
    feedback = state.get("user_feedback") or {}
    records: Mapping[str, ApprovalRequest] = state.get("decision_records") or {}
    person = state.get("approval_policy") in ("interactive", "none")
    findings = dict(state.get("findings", {}))
    all_risks: list[RiskPoint] = []
    all_diffs: list[DocumentDiff] = []
    for key in item_keys(state.get("review_checklist", [])):
        f = findings.get(key)
        if f is None:
            continue
        diffs = []
        for d in f.diffs:
            undecided = "approve" if d.status is DiffStatus.PENDING and not person else ""
            if undecided == "approve" and for_the_lawyer(d):
                undecided = ""  # never approved by default: a lawyer decides it
            decision = decisions.get(d.diff_id, undecided)
            update: dict[str, Any] = {}
            if decision == "approve":
                update["status"] = DiffStatus.APPROVED
                if d.diff_id in modified:
                    text = modified[d.diff_id]
                    update["proposed_text"] = text
                    update["edited"] = text != d.proposed_text
                    if d.action_type is not ActionType.INSERT:
                        # the reviewer's words replace the original (a proposed deletion
                        # given words becomes a replacement; no words, a deletion)
                        update["action_type"] = ActionType.REPLACE if text else ActionType.DELETE
            elif decision == "reject":
                update["status"] = DiffStatus.REJECTED
            if d.diff_id in feedback:
                update["feedback"] = feedback[d.diff_id]
            record = records.get(d.diff_id)
            if record is not None:
                update["decided_by"] = record.reviewer
                update["decided_at"] = record.decided_at
            diffs.append(d.model_copy(update=update) if update else d)
        findings[key] = f.model_copy(update={"diffs": diffs})
        all_risks.extend(f.risks)
        all_diffs.extend(d for d in diffs if d.status is DiffStatus.APPROVED)
    return {"findings": findings, "all_risks": all_risks, "all_diffs": all_diffs}


async def node_summarize(state: ReviewGraphState) -> dict[str, Any]:
    """The closing summary (Chinese and English)."""
    findings = state.get("findings", {})
    risks = state.get("all_risks", [])
    diffs = state.get("all_diffs", [])
    high = sum(1 for r in risks if r.risk_level is RiskLevel.HIGH)
    summary = (
        f"审查完成。共审查 {len(findings)} 个条款，发现 {len(risks)} 个风险点，"
        f"生成 {len(diffs)} 条修改建议。\n"
        f"Review complete: {len(findings)} clause(s) reviewed, {len(risks)} risk(s) found "
        f"({high} high), {len(diffs)} redline(s) approved."
    )
    logger.info(summary.splitlines()[-1])
    return {"summary_notes": summary, "is_complete": True}


# --------------------------------------------------------------------------------------------
# Clause branch
# --------------------------------------------------------------------------------------------


def _drafts_from(data: dict[str, Any]) -> list[DocumentDiff]:
    """The drafting skill's diff and its alternatives, best first."""
    first = _diff_from(data)
    others = [DocumentDiff.model_validate(a) for a in data.get("alternatives") or []]
    return [first, *others] if first is not None else []


def _diff_from(data: dict[str, Any]) -> DocumentDiff | None:
    raw = data.get("diff")
    return DocumentDiff.model_validate(raw) if raw else None


class _LLMHealth:
    """Whether the LLM endpoint is usable in this graph's runs. After a failure every request
    would repeat (unreachable, key refused), or after `max_failures` clauses in a row timed out
    or failed, clauses stop asking it — a review against a dead or hopelessly slow endpoint
    finishes on the rules instead of waiting out every clause — and the user is warned once."""

    def __init__(self, max_failures: int) -> None:
        self.down_reason: str | None = None
        self.max_failures = max_failures
        self.failures = 0

    def mark_down(self, reason: str) -> bool:
        """Record the endpoint as unusable; True the first time (warn then)."""
        first = self.down_reason is None
        self.down_reason = self.down_reason or reason
        return first

    def record(self, ok: bool, reason: str = "") -> bool:
        """Count a clause's outcome; True when this failure marks the endpoint down."""
        if ok:
            self.failures = 0
            return False
        self.failures += 1
        if self.failures < self.max_failures:
            return False
        return self.mark_down(f"{self.failures} clauses in a row failed, the last: {reason}")


class _ClauseNodes:
    """The nodes of a clause branch (they need the dispatcher, and the model in LLM mode)."""

    def __init__(
        self,
        dispatcher: SkillDispatcher,
        llm: ChatModel | None = None,
        settings: Settings | None = None,
        off_reason: str = "",
        stream_tokens: bool = False,
    ) -> None:
        self.dispatcher = dispatcher
        self.llm = llm
        self.settings = settings or get_settings()
        self.off_reason = off_reason
        self.stream_tokens = stream_tokens and self.settings.llm_stream
        self.health = _LLMHealth(self.settings.llm_max_consecutive_failures)
        self.planners: dict[str, Planner] = {}
        """The plan of each running review, by task id (branches take their entry from it)."""
        self._positions: dict[tuple[str, str, str, tuple[str, ...]], list[Position]] = {}

    def positions(
        self, ctx: RunContext, clause: ClauseNode, item: ReviewChecklistItem
    ) -> list[Position]:
        """The playbook positions on the item's points (the plan counts them, the agent's
        prompt carries them, its findings are checked against them): found once per run."""
        key = (ctx.task_id, clause.clause_id, item.clause_name, tuple(item.topics))
        found = self._positions.get(key)
        if found is None:
            found = self._positions[key] = _clause_positions(ctx.facts, clause, item)
        return found

    async def clause_analyze(self, s: ClauseState, ctx: RunContext) -> dict[str, Any]:
        """Rules over the item's skills always run; in LLM mode the ReAct agent adds its
        checked findings, and any failure of the agent leaves the rule findings alone."""
        item = s["item"]
        structure = ctx.primary
        clause = structure.get_clause(item.clause_id) if structure else None
        if structure is None or clause is None:
            return {
                "risks": [],
                "diffs": [],
                "notes": [f"clause {item.clause_id} is not in the contract"],
                "retry_count": 0,
                "mode_reason": "clause not found",
            }
        planner = self.planners.get(ctx.task_id)
        plan = planner.start(s["key"]) if planner is not None else s.get("plan")
        skip = plan is not None and plan.depth is Depth.SKIP
        # The agent's first request goes out before the rules run, so their CPU time overlaps
        # the model's latency instead of adding to every clause's critical path (SPEC-35).
        agent: asyncio.Task[AgentOutcome | dict[str, Any]] | None = None
        if self.llm is not None and self.health.down_reason is None and not skip:
            agent = asyncio.create_task(self._run_agent(s, clause, structure, ctx, plan))
        try:
            rules = await clause_rules(ctx, item.required_skills, clause, structure)
            outcome = await self._agent_outcome(agent, clause.clause_id)
        finally:
            if agent is not None and not agent.done():
                agent.cancel()
        risks, notes = rules.risks, rules.notes
        out: dict[str, Any] = {
            "risks": risks,
            "diffs": [],
            "notes": notes,
            "retry_count": 0,
            "injection_flags": rules.flags,
            "favourable": rules.favourable,
            "mode": "deterministic",
            "mode_reason": self.off_reason,
            "plan": plan,
        }
        if self.llm is not None and skip:
            out["mode_reason"] = "planned: rules only (skip)"
        elif self.llm is not None and outcome is None:
            out["mode_reason"] = f"LLM endpoint unusable: {self.health.down_reason}"
        elif isinstance(outcome, dict):  # fell back: reason and agent info
            out.update(outcome)
        elif outcome is not None:
            offered = frozenset(p.id for p in self.positions(ctx, clause, s["item"]))
            out.update(self._merge(clause, outcome, risks, notes, offered))
        replan = planner.after(s["key"], out["risks"]) if planner is not None else None
        if replan is not None:
            emit(
                ReviewEvent(
                    type=EventType.REPLAN,
                    clause_id=clause.clause_id,
                    data=replan.model_dump(mode="json"),
                )
            )
            out["replans"] = [replan]
        return out

    async def _agent_outcome(
        self, agent: asyncio.Task[AgentOutcome | dict[str, Any]] | None, clause_id: str
    ) -> AgentOutcome | dict[str, Any] | None:
        """The agent's outcome; any failure of the agent (a bug, a tool that cannot describe
        itself…) is that clause's fallback to the rules, never the review's end (SPEC-20)."""
        if agent is None:
            return None
        try:
            return await agent
        except GraphBubbleUp:
            raise
        except Exception as exc:
            error = short(f"{type(exc).__name__}: {exc}", 300)
            logger.warning("react clause=%s: the agent failed (%s); rules only", clause_id, error)
            if self.health.record(False, error):
                self._warn_down(clause_id)
            return {
                "mode_reason": f"LLM agent failed: {error}",
                "agent": AgentRunInfo(stop_reason="llm_error", error=error),
            }

    async def _run_agent(
        self,
        s: ClauseState,
        clause: ClauseNode,
        structure: DocumentStructure,
        ctx: RunContext,
        plan: ClausePlan | None = None,
    ) -> AgentOutcome | dict[str, Any]:
        """The ReAct agent on the clause within the clause time limit (SPEC-35), with the
        plan's rounds and tools: its outcome, or the fallback's `mode_reason` and agent
        info."""
        assert self.llm is not None
        item, facts, settings = s["item"], ctx.facts, self.settings
        rounds = plan.max_iterations if plan is not None else settings.react_max_iterations
        # More rounds need more time: the limit grows with the rounds beyond the default.
        timeout = settings.react_clause_timeout * max(1.0, rounds / settings.react_max_iterations)
        messages = build_react_agent_messages(
            language=facts.language,
            our_party=facts.our_party,
            clause_id=clause.clause_id,
            clause_name=item.clause_name or clause.title,
            description=item.description,
            priority=item.priority.value,
            clause_text=clause.text,
            domain_id=facts.domain_id,
            suggested_skills=item.required_skills,
            dispatcher=ctx.dispatcher,
            max_iterations=rounds,
            domain_subtype=facts.domain_subtype,
            positions=self.positions(ctx, clause, item),
        )
        try:
            outcome = await asyncio.wait_for(
                run_react_agent(
                    self.llm,
                    ctx.dispatcher,
                    messages,
                    clause.clause_id,
                    structure,
                    facts,
                    max_iterations=rounds,
                    temperature=settings.react_temperature,
                    max_tool_calls_per_step=settings.react_max_tool_calls_per_step,
                    stream_tokens=self.stream_tokens,
                    categories=plan.categories if plan is not None else (),
                ),
                timeout=timeout,
            )
        except TimeoutError:
            self._transcript(ctx, s, plan, messages, None, timeout)
            limit = f"{timeout:g}"
            logger.info("react clause=%s timed out after %s s; rules only", clause.clause_id, limit)
            if self.health.record(False, f"timed out after {limit} s"):
                self._warn_down(clause.clause_id)
            return {
                "mode_reason": f"LLM agent timed out after {limit} s",
                "agent": AgentRunInfo(stop_reason="timeout", elapsed_seconds=timeout),
            }
        info = outcome.info
        self._transcript(ctx, s, plan, messages, outcome, info.elapsed_seconds)
        # a model that answers garbage for clause after clause is as unusable as a dead one
        failed = info.stop_reason in ("llm_error", "unparseable")
        reason = info.error or ("answer unreadable" if info.stop_reason == "unparseable" else "")
        if (outcome.endpoint_down and self.health.mark_down(info.error)) or self.health.record(
            not failed, reason
        ):
            self._warn_down(clause.clause_id)
        if not outcome.parsed:
            why = {
                "llm_error": "LLM error",
                "unparseable": "LLM answer unreadable",
                "no_tools": "no tools for the agent",
            }.get(info.stop_reason, f"LLM agent stopped ({info.stop_reason}) without an answer")
            detail = f": {info.error}" if info.error else ""
            return {"mode_reason": why + detail, "agent": info}
        return outcome

    def _transcript(
        self,
        ctx: RunContext,
        s: ClauseState,
        plan: ClausePlan | None,
        prompt: list[dict[str, Any]],
        outcome: AgentOutcome | None,
        seconds: float,
    ) -> None:
        """Keep the clause's conversation for audit (a timed-out run keeps its prompt)."""
        if ctx.transcripts is None:
            return
        turns = outcome.turns if outcome else []
        messages = outcome.messages if outcome else prompt
        last = messages[-1] if messages else {}
        ctx.transcripts.append(
            {
                "kind": "agent",
                "clause_id": s["item"].clause_id,
                "key": s["key"],
                "ended_at": datetime.now(UTC).isoformat(),
                "model": self.settings.llm_model,
                "plan": plan.model_dump(mode="json") if plan else None,
                "stop_reason": outcome.info.stop_reason if outcome else "timeout",
                "elapsed_seconds": round(seconds, 3),
                "messages": messages,
                "tool_calls": outcome.tool_calls if outcome else [],
                "turns": turns,
                "final_answer": str(last.get("content") or "")
                if last.get("role") == "assistant"
                else "",
                "tokens": {
                    "prompt": sum(t.get("prompt_tokens") or 0 for t in turns),
                    "completion": sum(t.get("completion_tokens") or 0 for t in turns),
                },
                "risks_proposed": outcome.info.risks_proposed if outcome else 0,
            }
        )

    def _warn_down(self, clause_id: str) -> None:
        """The one warning of a review whose endpoint went down."""
        message = (
            f"LLM endpoint unusable ({self.health.down_reason}); the review continues in "
            "deterministic mode for every remaining clause."
        )
        logger.warning(message)
        emit(ReviewEvent(type=EventType.WARNING, clause_id=clause_id, text=message))

    @staticmethod
    def _merge(
        clause: ClauseNode,
        outcome: AgentOutcome,
        risks: list[RiskPoint],
        notes: list[str],
        offered: frozenset[str],
    ) -> dict[str, Any]:
        """The agent's checked findings added to the rules' (`notes` gets the quote counts);
        `offered`: the ids of the positions the agent's prompt carried."""
        info = outcome.info
        kept, suggestions, info = checked_llm_risks(clause, outcome.risks, risks, info, offered)
        if info.quotes_repaired or info.quotes_dropped:
            notes.append(
                f"LLM quotes: {info.quotes_verbatim} verbatim, {info.quotes_repaired} re-anchored "
                f"on the nearest verbatim text, {info.quotes_dropped} not in the clause (dropped)"
            )
        merged = sorted([*risks, *kept], key=lambda r: SEVERITY_ORDER[r.risk_level])
        return {
            "risks": merged,
            "suggestions": suggestions,
            "mode": "llm",
            "mode_reason": "",
            "agent": info,
        }

    async def clause_generate_diffs(self, s: ClauseState, ctx: RunContext) -> dict[str, Any]:
        """The smallest redline for each quoted risk (a clause with no finding gets none).

        A model's suggested replacement is used on the first draft (the drafting skill trims it
        to the words that change); a redraft after failed validation uses the rules alone.
        """
        structure = ctx.primary
        suggestions = s.get("suggestions", {}) if s.get("retry_count", 0) == 0 else {}
        quoted = [r for r in s.get("risks", []) if r.location is not None]
        results = await asyncio.gather(
            *(
                ctx.dispatcher.prepare_and_call(
                    "draft_redline_comment",
                    r.clause_id,
                    structure,
                    ctx.facts,
                    llm_arguments={"risk": r.model_dump(mode="json")}
                    | ({"proposed_text": suggestions[r.id]} if r.id in suggestions else {}),
                )
                for r in quoted
            )
        )
        diffs: list[DocumentDiff] = []
        alternatives: dict[str, list[DocumentDiff]] = {}
        seen: set[tuple[int | None, str, str]] = set()
        for r in results:
            drafts = _drafts_from(r.data) if r.success else []
            if not drafts:
                continue
            d = drafts[0]
            # two risks on the same words (a rule's and the model's) may ask for the same
            # edit: one redline serves both
            if (d.start_offset, d.original_text, d.proposed_text) not in seen:
                seen.add((d.start_offset, d.original_text, d.proposed_text))
                diffs.append(d)
                if drafts[1:]:
                    alternatives[d.diff_id] = drafts[1:]
        return {"diffs": diffs, "alternatives": alternatives}

    async def clause_validate(self, s: ClauseState, ctx: RunContext) -> dict[str, Any]:
        """Keep diffs that quote the clause verbatim, change something, leave the contract
        better for us once made (`verify.verify_change`) and do not overlap.

        A draft that fails verification is not proposed: its issue keeps its comment, the
        wording left to the lawyer. Only a model's draft is redrafted for it (by the rules); a
        rule's draft would come out the same."""
        # The clause text is looked up, not carried in the branch state: clause texts would
        # multiply the checkpoint size.
        structure = ctx.primary
        clause = structure.get_clause(s["item"].clause_id) if structure else None
        text = clause.text if clause else ""
        notes = list(s.get("notes", []))
        diffs = s.get("diffs", [])
        sound = [d for d in diffs if _diff_problem(d, text) is None]
        notes += [
            f"redline {d.diff_id} dropped: {_diff_problem(d, text)}"
            for d in diffs
            if d not in sound
        ]
        failed = len(sound) < len(diffs)
        verified = sound
        if structure is not None and clause is not None and sound:
            verified = []
            suggested = s.get("suggestions", {}) if s.get("retry_count", 0) == 0 else {}
            alternatives = s.get("alternatives", {})
            risks = {r.id: r for r in s.get("risks", [])}
            judged: dict[str, Judgement] = {}  # each sub-clause judged once as it stands
            for d in sound:
                # another draft for the same risk may pass where the first did not
                others = [a for a in alternatives.get(d.diff_id, []) if not _diff_problem(a, text)]
                passed, found = await first_verified(
                    ctx,
                    s["item"].required_skills,
                    structure,
                    clause,
                    [d, *others],
                    risks.get(d.risk_id or ""),
                    judged,
                )
                if passed is not None:
                    verified.append(passed)
                    continue
                what = "; ".join(dict.fromkeys(p.detail for p in found))
                notes.append(
                    f"redline {d.diff_id} not proposed ({what}): the wording is left to the lawyer"
                )
                failed = failed or (d.risk_id or "") in suggested
        roles = ctx.facts.roles_in(structure) if structure and ctx.facts.our_party else None
        verified = [
            d.model_copy(update={"for_lawyer": True})
            if strike_needs_lawyer(d)
            or (clause is not None and wording_needs_lawyer(clause, d, roles))
            else d
            for d in verified
        ]
        kept: list[DocumentDiff] = []
        spans: list[tuple[int, int]] = []
        for d in verified:
            span = _span(d)
            if span is not None and any(span[0] < e and s0 < span[1] for s0, e in spans):
                notes.append(
                    f"redline {d.diff_id} dropped: overlaps another redline of this clause"
                )
                failed = True
                continue
            if span is not None:
                spans.append(span)
            kept.append(d)
        retries = s.get("retry_count", 0)
        return {
            "diffs": kept,
            "notes": notes,
            "validation_result": "fail" if failed else "pass",
            "retry_count": retries + 1 if failed else retries,
        }

    async def clause_done(self, s: ClauseState) -> dict[str, Any]:
        """Hand the clause's findings back to the review."""
        item = s["item"]
        finding = ClauseFindings(
            clause_id=item.clause_id,
            risks=s.get("risks", []),
            diffs=s.get("diffs", []),
            completed=True,
            analysis_mode=s.get("mode", "deterministic"),
            mode_reason=s.get("mode_reason", ""),
            agent=s.get("agent"),
            plan=s.get("plan"),
            injection_flags=s.get("injection_flags", []),
            favourable=s.get("favourable", []),
            notes=s.get("notes", []),
        )
        for diff in finding.diffs:
            emit(
                ReviewEvent(
                    type=EventType.DIFF_PROPOSED,
                    clause_id=item.clause_id,
                    data=diff.model_dump(mode="json"),
                )
            )
        emit(
            ReviewEvent(
                type=EventType.CLAUSE_DONE,
                clause_id=item.clause_id,
                data={
                    "key": s["key"],
                    "mode": finding.analysis_mode,
                    "reason": finding.mode_reason,
                    "risks": len(finding.risks),
                    "diffs": len(finding.diffs),
                    "depth": finding.plan.depth.value if finding.plan else None,
                },
            )
        )
        return {
            "findings": {s["key"]: finding},
            "current_clause_index": 1,
            "replans": s.get("replans", []),
        }


def _span(d: DocumentDiff) -> tuple[int, int] | None:
    if d.start_offset is None:
        return None
    if d.action_type is ActionType.INSERT:
        end = d.start_offset + len(d.original_text)
        return end, end
    return d.start_offset, d.start_offset + len(d.original_text)


def _diff_problem(d: DocumentDiff, clause_text: str) -> str | None:
    if d.action_type is not ActionType.INSERT and not d.original_text:
        return "nothing to replace or delete"
    if d.original_text and d.original_text not in clause_text:
        return "its original text is not verbatim clause text"
    if d.action_type is ActionType.INSERT and not d.proposed_text.strip():
        return "it inserts nothing"
    if d.action_type is ActionType.REPLACE and d.proposed_text == d.original_text:
        return "it changes nothing"
    return None


def route_validation(state: ClauseState) -> str:
    """SPEC-4: redraft while validation fails, up to max_retries; then keep what is valid."""
    if state.get("validation_result", "pass") == "pass":
        return "clause_done"
    if state.get("retry_count", 0) < state.get("max_retries", 2):
        return "clause_generate_diffs"
    return "clause_done"


class _ClauseReview:
    """One checklist item reviewed: analyze → generate diffs → validate (redrafting while
    invalid, up to max_retries) → done.

    One graph node per item, not a subgraph: LangGraph's per-subgraph overhead (≈ 3.5 ms a
    branch) cost more than the deterministic analysis itself, and the steps are cheap to redo,
    so a branch is the unit that is checkpointed and resumed.
    """

    def __init__(self, nodes: _ClauseNodes) -> None:
        self.nodes = nodes

    async def _step(self, name: str, state: ClauseState, ctx: RunContext) -> None:
        clause_id = state["item"].clause_id
        emit(ReviewEvent(type=EventType.NODE_START, clause_id=clause_id, node=name))
        step = getattr(self.nodes, name)
        state.update(cast(ClauseState, await step(state, ctx)))
        emit(ReviewEvent(type=EventType.NODE_END, clause_id=clause_id, node=name))

    async def __call__(self, branch: ClauseIn, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        if ctx is None:  # a graph invoked with its documents in the state (SPEC-4 callers)
            facts = branch.get("facts") or ReviewContext()
            ctx = context_from_state(
                {"max_retries": branch.get("max_retries", 2)},
                self.nodes.dispatcher,
                self.nodes.settings,
                facts,
            )
        state = cast(ClauseState, {k: v for k, v in branch.items() if k != "facts"})
        await self._step("clause_analyze", state, ctx)
        while True:
            await self._step("clause_generate_diffs", state, ctx)
            await self._step("clause_validate", state, ctx)
            if route_validation(state) == "clause_done":
                return await self.nodes.clause_done(state)


# --------------------------------------------------------------------------------------------
# The graph
# --------------------------------------------------------------------------------------------


def review_serde() -> JsonPlusSerializer:
    """The checkpoint serializer, with our domain models allowed (and nothing else added)."""
    allowed = [
        ("contract_review.models", name)
        for name, obj in vars(models).items()
        if isinstance(obj, type) and obj.__module__ == models.__name__
    ]
    # The task facts a branch carries when the graph runs without a run context.
    allowed.append((ReviewContext.__module__, ReviewContext.__name__))
    return JsonPlusSerializer(allowed_msgpack_modules=allowed)


def build_review_graph(
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    interrupt_before: list[str] | None = None,
    *,
    dispatcher: SkillDispatcher | None = None,
    settings: Settings | None = None,
    llm: ChatModel | None = None,
    stream_tokens: bool = False,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled review graph.

    `interrupt_before` defaults to `["human_approval"]` (SPEC-4); pass `[]` for unattended
    runs. `checkpointer` defaults to an in-memory saver. With `llm` (and `use_react_agent` on
    in `settings`) each clause is analysed by the ReAct agent as well as by the rules;
    `stream_tokens` streams the model's answers as `llm_token` events (it costs CPU: only
    when someone shows them).
    """
    if interrupt_before is None:
        interrupt_before = ["human_approval"]
    settings = settings or get_settings()
    dispatcher = dispatcher or create_dispatcher(settings)
    if not settings.use_react_agent:
        llm, off_reason = None, "LLM agent switched off (USE_REACT_AGENT=false)"
    elif llm is None:
        off_reason = "no LLM endpoint configured (LLM_BASE_URL)"
    else:
        off_reason = ""
    nodes = _ClauseNodes(dispatcher, llm, settings, off_reason, stream_tokens)
    parents = _ParentNodes(nodes)
    g = StateGraph(ReviewGraphState, context_schema=RunContext)
    g.add_node("init", node_init)
    g.add_node("parse_document", parents.parse_document)
    g.add_node("clause_review", _ClauseReview(nodes))  # type: ignore[call-overload]
    g.add_node("collect", parents.collect)
    g.add_node("human_approval", parents.human_approval)
    g.add_node("redraft", _Redraft(parents))
    g.add_node("save_clause", node_save_clause)
    g.add_node("summarize", node_summarize)
    g.add_edge(START, "init")
    g.add_edge("init", "parse_document")
    g.add_node("plan", parents.plan)
    g.add_edge("parse_document", "plan")
    g.add_conditional_edges("plan", route_fan_out, ["clause_review", "collect", "summarize"])
    g.add_edge("clause_review", "collect")
    g.add_edge("collect", "human_approval")
    g.add_conditional_edges(
        "human_approval", route_after_approval, {"redraft": "redraft", "save_clause": "save_clause"}
    )
    g.add_edge("redraft", "human_approval")
    g.add_edge("save_clause", "summarize")
    g.add_edge("summarize", END)
    return g.compile(
        checkpointer=checkpointer or InMemorySaver(serde=review_serde()),
        interrupt_before=interrupt_before,
    )
