"""The orchestrator (SPEC-21): how much model work each clause gets, with which tools, in
what order — and a change of plan when a high risk turns up.

`playbook_plan` is the deterministic plan: a clause's depth follows its checklist priority
and whether the playbook holds positions on it (boilerplate with neither is 'skip'). With an
LLM, `model_plan` asks the model for the plan (the structure and the checklist, never the
clause text beyond a short excerpt) and validates every entry: an unknown clause or depth
is dropped, rounds are bounded, a critical clause is never skipped, and what the model left
out or got wrong keeps its deterministic entry. The rules run on every clause whatever the
plan; 'skip' only spares the model.

`Planner` holds the plan while the review runs: a branch takes its entry when it starts, and
the first high risk found re-plans, once, the clauses not yet started that bear on it (a
shared topic or topic family, or a cross-reference either way) to 'deep'.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field, ValidationError

from contract_review.config import Settings
from contract_review.errors import one_line
from contract_review.models import (
    ClausePlan,
    Depth,
    DocumentStructure,
    Priority,
    Replan,
    ReviewChecklistItem,
    ReviewPlan,
    RiskLevel,
    RiskPoint,
)
from contract_review.transcripts import PLAN
from contract_review.types import ChatModel

from ._json import json_values
from .events import short
from .prompts import build_plan_messages

__all__ = [
    "Planner",
    "model_plan",
    "plan_summary",
    "playbook_plan",
    "rounds_for",
    "uniform_plan",
]

QUICK_CATEGORIES = ("context", "analysis", "criteria")
"""The tools of a quick look: the clause's context, the analyses, the playbook."""
_FIRST = {Depth.DEEP: 0, Depth.STANDARD: 1, Depth.QUICK: 2, Depth.SKIP: 3}
"""Start order: the clauses that matter most first, so their findings can re-plan the rest
and a review cut short has done the important work."""


def rounds_for(depth: Depth, settings: Settings) -> int:
    """Agent rounds of a depth: none, two, the configured budget, or twice it (at most 12)."""
    base = settings.react_max_iterations
    return {
        Depth.SKIP: 0,
        Depth.QUICK: min(2, base),
        Depth.STANDARD: base,
        Depth.DEEP: min(max(base * 2, base + 1), 12),
    }[depth]


def _entry(
    key: str, item: ReviewChecklistItem, depth: Depth, reason: str, settings: Settings
) -> ClausePlan:
    return ClausePlan(
        key=key,
        clause_id=item.clause_id,
        depth=depth,
        categories=list(QUICK_CATEGORIES) if depth is Depth.QUICK else [],
        max_iterations=rounds_for(depth, settings),
        reason=reason,
    )


def _ordered(entries: list[ClausePlan]) -> list[ClausePlan]:
    ranked = sorted(enumerate(entries), key=lambda e: (_FIRST[e[1].depth], e[0]))
    return [e.model_copy(update={"order": n}) for n, (_, e) in enumerate(ranked)]


def _playbook_depth(
    item: ReviewChecklistItem, positions: int, text_length: int
) -> tuple[Depth, str]:
    if text_length == 0:
        return Depth.SKIP, "no text"
    if item.priority is Priority.CRITICAL:
        return Depth.DEEP, "critical"
    if item.priority is Priority.HIGH:
        return Depth.STANDARD, "high priority"
    if positions:
        return Depth.STANDARD, f"{positions} playbook position(s)"
    if item.priority is Priority.MEDIUM:
        return Depth.QUICK, "medium priority"
    return Depth.SKIP, "boilerplate: low priority, no playbook position"


def playbook_plan(
    items: Sequence[ReviewChecklistItem],
    keys: Sequence[str],
    structure: DocumentStructure | None,
    positions: Mapping[str, int],
    settings: Settings,
    *,
    note: str = "",
) -> ReviewPlan:
    """The deterministic plan from the checklist priorities and the playbook (`positions`:
    item key → positions on it)."""
    entries = []
    for key, item in zip(keys, items, strict=True):
        clause = structure.get_clause(item.clause_id) if structure else None
        depth, reason = _playbook_depth(
            item, positions.get(key, 0), len(clause.text) if clause else 0
        )
        entries.append(_entry(key, item, depth, reason, settings))
    return ReviewPlan(source="playbook", note=note, clauses=_ordered(entries))


def uniform_plan(
    items: Sequence[ReviewChecklistItem], keys: Sequence[str], settings: Settings
) -> ReviewPlan:
    """Every clause at the standard depth, in document order (the orchestrator switched off)."""
    entries = [
        _entry(key, item, Depth.STANDARD, "orchestrator off", settings)
        for key, item in zip(keys, items, strict=True)
    ]
    for n, e in enumerate(entries):
        e.order = n
    return ReviewPlan(source="uniform", clauses=entries)


class _Answer(BaseModel):
    """One entry of the model's plan, as it may write it."""

    key: str = Field(min_length=1)
    depth: Depth
    categories: list[str] = Field(default_factory=list)
    max_iterations: int | None = None
    reason: str = ""


def _answer_entries(text: str) -> list[Any] | None:
    """The plan entries of the model's answer: a JSON list holding objects, or an object
    holding such a list (entries that are not objects are dropped later, as invalid)."""
    for value in json_values(text):
        if isinstance(value, dict):
            value = value.get("clauses") or value.get("plan")
        if isinstance(value, list) and any(isinstance(v, dict) for v in value):
            return value
    return None


async def model_plan(
    llm: ChatModel,
    items: Sequence[ReviewChecklistItem],
    keys: Sequence[str],
    structure: DocumentStructure | None,
    positions: Mapping[str, int],
    settings: Settings,
    *,
    our_party: str,
    language: str,
    categories: Sequence[str],
    record: Callable[[dict[str, Any]], None] | None = None,
) -> ReviewPlan:
    """The model's plan, validated entry by entry over the deterministic one; the
    deterministic plan (with the reason in `note`) when the model fails or answers no plan."""
    fallback = playbook_plan(items, keys, structure, positions, settings)
    limit = settings.orchestrator_max_clauses
    base = {e.key: e for e in fallback.clauses}
    rows = []
    for key, item in list(zip(keys, items, strict=True))[:limit]:
        clause = structure.get_clause(item.clause_id) if structure else None
        text = " ".join((clause.text if clause else "").split())
        rows.append(
            {
                "key": key,
                "title": item.clause_name or (clause.title if clause else ""),
                "topics": item.topics,
                "priority": item.priority.value,
                "positions": positions.get(key, 0),
                "chars": len(text),
                "excerpt": text[:160],
                "suggested": base[key].depth.value,
            }
        )
    messages = build_plan_messages(
        language=language,
        our_party=our_party,
        clauses=rows,
        categories=list(categories),
        max_rounds=rounds_for(Depth.DEEP, settings),
    )
    before = (llm.usage.calls, llm.usage.prompt_tokens, llm.usage.completion_tokens)
    started = time.perf_counter()
    answer, error = "", ""
    try:
        answer = await llm.chat(messages, temperature=0.0)
    except Exception as exc:  # the plan is an optimisation: a failed call falls back
        error = short(one_line(exc), 200)
    spent = {
        "llm_calls": llm.usage.calls - before[0],
        "tokens": llm.usage.total_tokens - before[1] - before[2],
    }
    if record is not None:  # the conversation, for audit (transcripts)
        record(
            {
                "kind": "plan",
                "clause_id": PLAN,
                "ended_at": datetime.now(UTC).isoformat(),
                "stop_reason": "llm_error" if error else "final_answer",
                "elapsed_seconds": round(time.perf_counter() - started, 3),
                "messages": [*messages, {"role": "assistant", "content": answer}],
                "final_answer": answer,
                "error": error,
                "tokens": {
                    "prompt": llm.usage.prompt_tokens - before[1],
                    "completion": llm.usage.completion_tokens - before[2],
                },
            }
        )
    if error:
        return fallback.model_copy(update={"note": f"the model could not plan: {error}"})
    raw = _answer_entries(answer)
    if raw is None:
        note = "the model's plan was unreadable (no JSON list of clauses)"
        return fallback.model_copy(update={"note": note, **spent})
    known, planned = set(categories), {}
    by_key = dict(zip(keys, items, strict=True))
    dropped = 0
    for entry in raw:
        try:
            got = _Answer.model_validate(entry)
        except ValidationError:
            dropped += 1
            continue
        item_plan = base.get(got.key)
        if item_plan is None or got.key in planned:
            dropped += 1
            continue
        planned[got.key] = _checked(got, item_plan, by_key[got.key], known, settings)
    entries = [planned.get(e.key, e) for e in fallback.clauses]
    # The model's order is the order it listed its entries in; the rest follow as planned.
    listed = {k: n for n, k in enumerate(planned)}
    entries.sort(key=lambda e: (0, listed[e.key]) if e.key in listed else (1, e.order))
    note = (
        f"{dropped} entr{'y' if dropped == 1 else 'ies'} of the model's plan dropped"
        if dropped
        else ""
    )
    if len(keys) > limit:
        note = "; ".join(
            filter(None, [note, f"clauses after the first {limit} planned by the playbook"])
        )
    if not planned:
        return fallback.model_copy(update={"note": note or "the model planned no clause", **spent})
    return ReviewPlan(
        source="model",
        note=note,
        clauses=[e.model_copy(update={"order": n}) for n, e in enumerate(entries)],
        **spent,
    )


def _checked(
    got: _Answer,
    default: ClausePlan,
    item: ReviewChecklistItem,
    known: set[str],
    settings: Settings,
) -> ClausePlan:
    """A model's entry made safe: a critical clause is not skipped, rounds stay within the
    depth's bounds, categories are ones that exist."""
    depth = got.depth
    reason = got.reason.strip()[:120] or "planned by the model"
    if depth is Depth.SKIP and item.priority is Priority.CRITICAL:
        depth, reason = Depth.QUICK, "critical: never skipped"
    ceiling = rounds_for(Depth.DEEP, settings)
    rounds = rounds_for(depth, settings)
    if got.max_iterations is not None and depth is not Depth.SKIP:
        rounds = max(1, min(got.max_iterations, ceiling))
    categories = [c for c in dict.fromkeys(got.categories) if c in known]
    if depth is Depth.QUICK and not categories:
        categories = [c for c in QUICK_CATEGORIES if c in known]
    return default.model_copy(
        update={
            "depth": depth,
            "categories": categories if depth is not Depth.SKIP else [],
            "max_iterations": rounds if depth is not Depth.SKIP else 0,
            "reason": reason,
        }
    )


# --- while the review runs -----------------------------------------------------------------


@cache
def _families() -> tuple[tuple[str, ...], ...]:
    """Groups of topic stems that bear on each other (data: plan_families.yaml)."""
    data = yaml.safe_load((Path(__file__).with_name("plan_families.yaml")).read_text("utf-8"))
    return tuple(tuple(str(s).lower() for s in group) for group in data["families"])


def _family_ids(words: str) -> set[int]:
    text = words.lower()
    return {n for n, group in enumerate(_families()) if any(stem in text for stem in group)}


class Planner:
    """The plan of a running review: entries taken as branches start, one re-plan."""

    def __init__(
        self,
        plan: ReviewPlan,
        items: Sequence[ReviewChecklistItem],
        keys: Sequence[str],
        structure: DocumentStructure | None,
        settings: Settings,
    ) -> None:
        """A planner over `plan` for the checklist `items` (by `keys`); a uniform plan (the
        orchestrator off) is never changed."""
        self.plan = plan
        self.settings = settings
        self.started: set[str] = set()
        self.replanned = bool(plan.replans) or plan.source == "uniform"
        self._items = dict(zip(keys, items, strict=True))
        self._structure = structure
        self._links = _links(structure)

    def start(self, key: str) -> ClausePlan | None:
        """The entry of a branch that starts now (its depth is final from here on)."""
        self.started.add(key)
        return self.plan.of(key)

    def after(self, key: str, risks: Sequence[RiskPoint]) -> Replan | None:
        """A branch's findings: the first high risk re-plans the clauses it bears on."""
        high = next((r for r in risks if r.risk_level is RiskLevel.HIGH), None)
        if high is None or self.replanned or key not in self._items:
            return None
        raised = []
        families = _family_ids(self._words(key))
        for entry in self.plan.clauses:
            if entry.key in self.started or entry.depth is Depth.DEEP:
                continue
            if self._bears_on(key, families, entry.key):
                entry.depth, entry.categories = Depth.DEEP, []
                entry.max_iterations = rounds_for(Depth.DEEP, self.settings)
                entry.reason = f"re-planned: high risk in {self._items[key].clause_id}"
                raised.append(entry.key)
        if not raised:
            return None
        self.replanned = True
        what = " ".join(f"{high.risk_type}: {high.description}".split())[:160]
        record = Replan(trigger=key, risk=what, raised=raised)
        self.plan.replans.append(record)
        return record

    def _words(self, key: str) -> str:
        item = self._items[key]
        clause = self._structure.get_clause(item.clause_id) if self._structure else None
        return " ".join([*item.topics, item.clause_name, clause.title if clause else ""])

    def _bears_on(self, source: str, families: set[int], target: str) -> bool:
        """Whether `target` shares a topic, a cross-reference or a risk family (`families`:
        the source's) with `source`."""
        a, b = self._items[source], self._items[target]
        if a.clause_id == b.clause_id or set(a.topics) & set(b.topics):
            return True
        if (a.clause_id, b.clause_id) in self._links or (b.clause_id, a.clause_id) in self._links:
            return True
        return bool(families & _family_ids(self._words(target)))


def _links(structure: DocumentStructure | None) -> set[tuple[str, str]]:
    """(from, to) clause pairs joined by a valid cross-reference, parents standing for their
    sub-clauses ('see 14.2' made in 9.1(a) links 9.1 and 14)."""
    if structure is None:
        return set()
    links = set()
    for ref in structure.cross_references:
        if ref.is_valid and ref.source_clause_id:
            for source in _ancestry(structure, ref.source_clause_id):
                for target in _ancestry(structure, ref.target_clause_id):
                    links.add((source, target))
    return links


def _ancestry(structure: DocumentStructure, clause_id: str) -> list[str]:
    """A clause id and its parents' in the clause tree ('14.2.1' → 14.2.1, 14.2, 14)."""
    chain = [clause_id]
    node = structure.get_clause(clause_id)
    while node is not None and node.parent_id is not None and len(chain) < 20:
        chain.append(node.parent_id)
        node = structure.get_clause(node.parent_id)
    return chain


def plan_summary(plan: ReviewPlan) -> dict[str, Any]:
    """The plan in an event: source, counts per depth, note."""
    return {"source": plan.source, "counts": plan.counts(), "note": plan.note}
