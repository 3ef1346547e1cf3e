"""What a task's run needs beyond the graph: clause stamps and changed inputs, restarting a
task on an edited contract, and knowing when a clause's result is saved.

A restarted task keeps the findings of every clause whose text is unchanged (moved to where
the clause now stands) and the lawyer's decisions on redlines whose words the new text still
holds; everything else is reviewed again on a new checkpoint thread, and decisions that no
longer apply are listed as stale.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.pregel import Pregel

from contract_review.graph.builder import item_keys
from contract_review.models import (
    ApprovalRequest,
    ClauseFindings,
    DiffStatus,
    DocumentDiff,
    DocumentStructure,
    ReviewChecklistItem,
    TaskDocument,
)
from contract_review.tasks import ClauseStamp, TaskManifest

__all__ = [
    "PastRun",
    "changed_inputs",
    "clause_stamps",
    "read_thread",
    "report_saved_writes",
    "restart_state",
]


def clause_stamps(docs: Sequence[TaskDocument]) -> dict[str, ClauseStamp]:
    """Each clause of the reviewed document: a hash of its text and where it starts."""
    structure = docs[0].structure if docs else None
    if structure is None:
        return {}
    return {
        c.clause_id: ClauseStamp(
            digest=hashlib.sha256(c.text.encode("utf-8", "surrogatepass")).hexdigest(),
            start=c.start_offset,
        )
        for c in structure.iter_clauses()
    }


def changed_inputs(manifest: TaskManifest, now: dict[str, str]) -> list[str]:
    """The input files of a task that changed (or are gone) since it started."""
    return [path for path, digest in manifest.inputs.items() if now.get(path) != digest]


@dataclass
class PastRun:
    """What a task's earlier run left in its checkpoint thread."""

    branch_findings: dict[str, ClauseFindings] = field(default_factory=dict)
    """Each finished clause's findings as its branch produced them (before the cross-clause
    rules and the decisions), by item key."""
    diffs: dict[str, DocumentDiff] = field(default_factory=dict)
    """Every redline proposed, by diff id."""
    decisions: dict[str, str] = field(default_factory=dict)
    feedback: dict[str, str] = field(default_factory=dict)
    modified: dict[str, str] = field(default_factory=dict)
    records: dict[str, ApprovalRequest] = field(default_factory=dict)
    """Who gave each decision and when, by diff id."""


async def read_thread(graph: Pregel[Any, Any, Any, Any], thread: str) -> PastRun:
    """The findings and decisions a checkpoint thread holds."""
    config: Any = {"configurable": {"thread_id": thread}}
    latest = await graph.aget_state(config)
    values = latest.values or {}
    past = PastRun(
        decisions=dict(values.get("user_decisions") or {}),
        feedback=dict(values.get("user_feedback") or {}),
        modified=dict(values.get("user_modified_text") or {}),
        records=dict(values.get("decision_records") or {}),
    )
    for f in (values.get("findings") or {}).values():
        past.diffs.update((d.diff_id, d) for d in f.diffs)
    async for snap in graph.aget_state_history(config):
        if "collect" in snap.next:  # the branches' findings, before anything joined them
            past.branch_findings = dict(snap.values.get("findings") or {})
            break
    else:  # stopped while clauses ran: the finished ones are the pending writes
        past.branch_findings = dict(values.get("findings") or {})
        for task in latest.tasks:
            result = task.result if task.name == "clause_review" else None
            if isinstance(result, dict):
                past.branch_findings.update(result.get("findings") or {})
    for f in past.branch_findings.values():
        for d in f.diffs:
            past.diffs.setdefault(d.diff_id, d)
    return past


def _shifted(findings: ClauseFindings, delta: int) -> ClauseFindings:
    """The findings of a clause that moved by `delta` characters (its text unchanged)."""
    if delta == 0:
        return findings

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: v + delta if k in ("start_offset", "end_offset") and type(v) is int else walk(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return ClauseFindings.model_validate(walk(findings.model_dump()))


def _reanchored(diff: DocumentDiff, structure: DocumentStructure | None) -> DocumentDiff | None:
    """A redline moved onto its words in the new text of its clause, or None when the clause
    no longer holds them verbatim."""
    clause = structure.get_clause(diff.clause_id) if structure else None
    if clause is None or not diff.original_text or diff.original_text not in clause.text:
        return None
    at = clause.start_offset + clause.text.index(diff.original_text)
    return diff.model_copy(update={"start_offset": at, "status": DiffStatus.PENDING})


def restart_state(
    manifest: TaskManifest,
    docs: Sequence[TaskDocument],
    past: PastRun,
    initial: dict[str, Any],
    changed: Sequence[str],
) -> dict[str, Any]:
    """The graph input of a task restarted on changed inputs (see the module docstring).

    Only the contract (or the supplement merged into it) changing keeps unchanged clauses;
    a changed baseline, reference or playbook bears on every clause, so all are redone.
    `manifest` is updated: new clause stamps, a new thread, the stale decisions."""
    own = {str(manifest.options.file)}
    if manifest.options.supplement is not None:
        own.add(str(manifest.options.supplement))
    redo_all = any(path not in own for path in changed)
    stamps = clause_stamps(docs)
    structure = docs[0].structure if docs else None
    items = [ReviewChecklistItem.model_validate(i) for i in initial["review_checklist"]]
    keys = item_keys(items)
    carried: dict[str, ClauseFindings] = {}
    for item, key in zip(items, keys, strict=True):
        old, new = manifest.clauses.get(item.clause_id), stamps.get(item.clause_id)
        kept = past.branch_findings.get(key)
        if not redo_all and old and new and old.digest == new.digest and kept is not None:
            carried[key] = _shifted(kept, new.start - old.start)
    carried_ids = {d.diff_id for f in carried.values() for d in f.diffs}
    key_of: dict[str, str] = {}  # each clause's first item
    for item, key in zip(items, keys, strict=True):
        key_of.setdefault(item.clause_id, key)
    reanchored: dict[str, list[DocumentDiff]] = {}
    decisions, feedback, modified, stale = {}, {}, {}, []
    records: dict[str, ApprovalRequest] = {}
    for diff_id, decision in past.decisions.items():
        diff = past.diffs.get(diff_id)
        if diff is None:
            continue
        if diff_id not in carried_ids:
            moved = _reanchored(diff, structure)
            if moved is None or diff.clause_id not in key_of:
                stale.append(
                    f"Clause {diff.clause_id}: the decision to {decision} the change of "
                    f'"{diff.original_text[:80]}" no longer applies (the clause was edited)'
                )
                continue
            reanchored.setdefault(key_of[diff.clause_id], []).append(moved)
        decisions[diff_id] = decision
        if diff_id in past.feedback:
            feedback[diff_id] = past.feedback[diff_id]
        if diff_id in past.modified:
            modified[diff_id] = past.modified[diff_id]
        if diff_id in past.records:
            records[diff_id] = past.records[diff_id]
    manifest.clauses = stamps
    manifest.restarts += 1
    manifest.stale_decisions = stale
    return {
        **initial,
        "findings": carried,
        "carried_diffs": reanchored,
        "user_decisions": decisions,
        "user_feedback": feedback,
        "user_modified_text": modified,
        "decision_records": records,
    }


def report_saved_writes(
    saver: BaseCheckpointSaver[Any], saved: Callable[[str, list[str]], None]
) -> None:
    """Call `saved(task_id, channels)` each time `saver` has stored a task's writes.

    LangGraph hands a finished task's writes to the saver in the background and yields the
    task's result at once; a progress report made on the result could name a clause a kill a
    moment later would lose. Reported from here, "done" means saved."""
    store = saver.aput_writes

    async def aput_writes(
        config: Any, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        await store(config, writes, task_id, task_path)
        saved(task_id, [channel for channel, _ in writes])

    setattr(saver, "aput_writes", aput_writes)  # noqa: B010 - this instance only
