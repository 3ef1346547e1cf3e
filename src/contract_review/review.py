"""Running a review end to end: documents → graph (durable checkpoints) → outputs.

A review is a *task* with an id. Its manifest (the options, so the documents can be read again)
lives in `<state_dir>/tasks/<id>.json`, its progress in the checkpoint database; documents are
never written into the checkpoints. `resume_review` continues a task after an interruption or a
crash: finished clauses are not redone and decisions already given are kept.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command

from contract_review._lifecycle import (
    changed_inputs,
    clause_stamps,
    read_thread,
    report_saved_writes,
    restart_state,
)
from contract_review.analysis.coverage import coverage_gaps
from contract_review.analysis.kinds import detect_kinds, given_kind
from contract_review.config import Settings, get_settings
from contract_review.decisions import DecisionLog, default_reviewer, stamped
from contract_review.documents import load_task_documents
from contract_review.errors import ExportError, InputError, one_line
from contract_review.exports.outputs import ExportSettings, write_all
from contract_review.graph.builder import (
    build_review_graph,
    decided_findings,
    item_keys,
    review_serde,
)
from contract_review.graph.context import RunContext
from contract_review.graph.events import EventType, ReviewEvent
from contract_review.graph.injection import injection_items
from contract_review.models import (
    ApprovalRequest,
    ClauseInventory,
    DiffStatus,
    DocumentRole,
    DocumentStructure,
    KindMatch,
    ReviewChecklistItem,
    ReviewedClause,
    ReviewPlan,
    ReviewResult,
    TaskDocument,
    TokenUsage,
    one_item_per_clause,
)
from contract_review.parties import OurSide, find_parties, resolve_party
from contract_review.playbook import Position, load_playbook
from contract_review.plugins import create_dispatcher, load_builtin_plugins
from contract_review.plugins.registry import DomainPlugin, get_plugin, require_plugin
from contract_review.skills.context import ReviewContext, positions_in_force, prepare_context
from contract_review.tasks import (
    OutputLock,
    ReviewOptions,
    TaskCounts,
    TaskManifest,
    input_digests,
    list_tasks,
    load_manifest,
    new_task_id,
    save_manifest,
)
from contract_review.text import redact_secrets
from contract_review.transcripts import TranscriptLog, transcript_path

__all__ = [
    "ReviewOptions",
    "TaskManifest",
    "delete_task",
    "list_tasks",
    "load_manifest",
    "pending_redlines",
    "prepared_run",
    "record_decisions",
    "resume_review",
    "review_positions",
    "start_review",
]


_COUNT_EVERY = 1.0
"""Seconds between saves of a running task's clause count."""

AskFn = Callable[[list[dict[str, Any]]], Iterable[dict[str, Any]]]
"""Interactive approval: the undecided diffs (JSON) → decisions (ApprovalRequest-shaped
dicts). Each decision is recorded as soon as it is yielded, so an asker that yields them one by
one (a generator) loses none when the person stops half-way; a redline it gives no decision
stays pending."""
ProgressFn = Callable[[int, int, str], None]
"""(clauses done, clauses in total, the clause just finished)."""
EventFn = Callable[[ReviewEvent], None]
"""Receives every live event of the review (see `contract_review.graph.events`)."""


_PG_READY: set[str] = set()
"""PostgreSQL databases whose checkpoint tables this process has set up."""
_PG_SETUP_LOCK = 0x636F6E7472616374  # an advisory-lock id of our own ("contract")


async def _setup_postgres(pg: AsyncPostgresSaver, url: str) -> None:
    """Create or migrate the checkpoint tables once per process, one process at a time:
    workers starting together would otherwise race on the migration table."""
    if url in _PG_READY:
        return
    import psycopg

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute("SELECT pg_advisory_lock(%s)", (_PG_SETUP_LOCK,))
        try:
            await pg.setup()
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (_PG_SETUP_LOCK,))
    _PG_READY.add(url)


@asynccontextmanager
async def _saver(settings: Settings) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    if settings.postgres_url:
        url = settings.postgres_url.get_secret_value()
        async with AsyncPostgresSaver.from_conn_string(url, serde=review_serde()) as pg:
            await _setup_postgres(pg, url)
            yield pg
        return
    settings.state_dir.mkdir(parents=True, exist_ok=True)
    async with AsyncSqliteSaver.from_conn_string(
        str(settings.state_dir / "checkpoints.sqlite")
    ) as lite:
        lite.serde = review_serde()
        yield lite


def _documents(options: ReviewOptions) -> list[TaskDocument]:
    """The documents the review reads, prepared by the domain (e.g. FIDIC: GC + PC merged
    into the conditions in force); a bad file or playbook fails here, before any work."""
    load_builtin_plugins()
    plugin = require_plugin(options.domain)
    if options.criteria is not None:
        if not options.criteria.is_file():
            raise InputError(f"{options.criteria}: file not found")
        load_playbook(options.criteria)  # PlaybookError (an InputError): one line, exit 2
    docs = load_task_documents(
        options.file,
        baseline=options.baseline,
        supplement=options.supplement,
        references=options.references,
        parser_config=plugin.parser_config,
    )
    if plugin.prepare_documents is not None:
        docs = plugin.prepare_documents(docs, plugin.parser_config)
    return docs


def _checklist(
    plugin: DomainPlugin, subtype: str | None, docs: list[TaskDocument]
) -> list[ReviewChecklistItem]:
    structure = docs[0].structure
    if plugin.build_checklist is None or structure is None:
        return []
    items = one_item_per_clause(plugin.build_checklist(structure, subtype))
    items = plugin.adjust_checklist(items, docs) if plugin.adjust_checklist else items
    return [*items, *injection_items(structure, items)]


def _language(options: ReviewOptions, docs: list[TaskDocument]) -> str:
    structure = docs[0].structure
    return structure.language if structure and options.language == "auto" else options.language


def _our_side(options: ReviewOptions, docs: list[TaskDocument]) -> OurSide:
    """Whom the review acts for, resolved against the parties the documents name (the
    contract first; a merged document has no preamble, so its sources are asked too)."""
    order = (DocumentRole.PRIMARY, DocumentRole.SUPPLEMENT, DocumentRole.BASELINE)
    structures = [d.structure for role in order for d in docs if d.role is role and d.structure]
    for structure in structures:
        parties = find_parties(structure)
        if parties:
            return resolve_party(structure, options.party, parties)
    return resolve_party(structures[0] if structures else None, options.party, [])


def _facts(manifest: TaskManifest, docs: list[TaskDocument], side: OurSide) -> ReviewContext:
    """The review facts of a run, prepared once: our side resolved in every document, the
    playbook in force read and merged (the graph and the outputs both use them)."""
    options = manifest.options
    return prepare_context(
        side=side,
        baselines=require_plugin(options.domain),
        criteria=options.criteria,
        task_id=manifest.task_id,
        language=_language(options, docs),
        domain_id=options.domain,
        domain_subtype=options.subtype,
        documents=docs,
        contract_kind=options.kind,
    )


def _config(task_id: str, settings: Settings, n_items: int) -> RunnableConfig:
    return {
        "configurable": {"thread_id": task_id},
        "max_concurrency": settings.review_max_concurrency,
        "recursion_limit": 50 + 10 * n_items,
    }


def _initial_state(manifest: TaskManifest, docs: list[TaskDocument]) -> dict[str, Any]:
    """The graph input of a task, derived from its manifest and its documents (which stay
    out of the state: the run context carries them)."""
    options = manifest.options
    checklist = _checklist(require_plugin(options.domain), options.subtype, docs)
    return {
        "task_id": manifest.task_id,
        "our_party": options.party,
        "material_type": "contract",
        "language": _language(options, docs),
        "domain_id": options.domain,
        "domain_subtype": options.subtype,
        "contract_kind": options.kind,
        "review_checklist": [i.model_dump(mode="json") for i in checklist],
        "approval_policy": options.approve,
    }


async def start_review(
    options: ReviewOptions,
    *,
    settings: Settings | None = None,
    ask: AskFn | None = None,
    progress: ProgressFn | None = None,
    on_event: EventFn | None = None,
    stream_tokens: bool = False,
    reviewer: str | None = None,
    task: TaskManifest | None = None,
) -> TaskManifest:
    """Run a new review to the end (asking `ask` for decisions when interactive; without an
    `ask`, or with the policy 'none', the task stops waiting for decisions, its outputs written
    as they stand: see `decide`). `reviewer` names who decides (default: the OS user).

    LLM mode is on when `settings` name an endpoint (`LLM_BASE_URL`) and `use_react_agent`
    is true; `on_event` then also sees tool calls, and model tokens with `stream_tokens`.
    `task` is the manifest of a task made beforehand (queued by the web app: its id, owner
    and time are kept)."""
    settings = settings or get_settings()
    options.check()  # a bad option stops here, before any document is read
    inputs = input_digests(options)  # before reading: what is reviewed is what was hashed
    docs = _documents(options)
    side = _our_side(options, docs)  # no party, or none of the contract's: stop before any task
    task_id = task.task_id if task is not None else new_task_id()
    with OutputLock(options.out, task_id):  # another task's folder: stop before any task
        manifest = TaskManifest(
            task_id=task_id,
            created_at=task.created_at if task is not None else datetime.now(UTC).isoformat(),
            options=options,
            owner=task.owner if task is not None else None,
            inputs=inputs,
            clauses=clause_stamps(docs),
        )
        state = _initial_state(manifest, docs)
        hooks = _Hooks(ask, progress, on_event, stream_tokens, reviewer or default_reviewer())
        return await _run(manifest, docs, side, state, settings, hooks)


async def resume_review(
    task_id: str,
    *,
    settings: Settings | None = None,
    ask: AskFn | None = None,
    progress: ProgressFn | None = None,
    on_event: EventFn | None = None,
    stream_tokens: bool = False,
    restart_changed: bool = False,
    reviewer: str | None = None,
) -> TaskManifest:
    """Continue a task from its last checkpoint (after a crash or an interruption).

    An input that changed since the task started stops it (its findings would quote text the
    contract no longer holds) unless `restart_changed`: then the clauses whose text changed are
    reviewed again, the others and the decisions whose words are still there are kept."""
    settings = settings or get_settings()
    manifest = load_manifest(task_id, settings)
    if manifest.current_status() == "running":
        raise InputError(f"review task {task_id} is still running (process {manifest.pid})")
    options = manifest.options
    inputs = input_digests(options)
    changed = changed_inputs(manifest, inputs)
    if changed and not restart_changed:
        what = "has changed" if changed[0] in inputs else "no longer exists"
        raise InputError(
            f"{changed[0]} {what} since review task {task_id} started; resume with "
            "--restart-changed to review the changed clauses again, or start a new review"
        )
    with OutputLock(options.out, task_id):
        docs = _documents(options)
        side = _our_side(options, docs)
        state = None
        if changed:
            async with _saver(settings) as saver:
                old = await read_thread(build_review_graph(checkpointer=saver), manifest.thread)
            state = restart_state(manifest, docs, old, _initial_state(manifest, docs), changed)
            manifest.inputs = inputs
        hooks = _Hooks(ask, progress, on_event, stream_tokens, reviewer or default_reviewer())
        return await _run(manifest, docs, side, state, settings, hooks)


@dataclass(frozen=True)
class _Hooks:
    """How a run talks to its caller (see `start_review`)."""

    ask: AskFn | None
    progress: ProgressFn | None
    on_event: EventFn | None
    stream_tokens: bool
    reviewer: str


async def _run(
    manifest: TaskManifest,
    docs: list[TaskDocument],
    side: OurSide,
    state: dict[str, Any] | None,
    settings: Settings,
    hooks: _Hooks,
) -> TaskManifest:
    """Run (or continue) a task's graph, then write its outputs; the manifest records where the
    task stands at every turn: running, interrupted, failed (with the reason) or complete."""
    manifest.mark_running()
    save_manifest(manifest, settings)
    try:
        facts = _facts(manifest, docs, side)
        result, llm_on, waiting = await _run_graph(manifest, facts, state, settings, hooks)
        usage = manifest.llm_usage if llm_on else None
        model = settings.llm_model if usage is not None else None
        audit = transcript_path(manifest.task_id, settings) if llm_on else None
        outputs = _write_outputs(
            manifest, facts, result, llm_model=model, llm_usage=usage, transcripts=audit
        )
    except BaseException as exc:
        _record_end(manifest, exc)
        save_manifest(manifest, settings)
        if isinstance(exc, ExportError):
            raise ExportError(
                f"review task {manifest.task_id}: {exc}; nothing was written to "
                f"{manifest.options.out}, the review is saved: resume it to write them again"
            ) from exc
        raise
    manifest.outputs, manifest.pid = outputs, None
    manifest.counts = _counts(result, manifest.counts)
    if waiting:
        # Not an error: the outputs show the review as it stands, the redlines pending.
        manifest.status, manifest.waiting = "interrupted", True
        manifest.reason = f"waiting for decisions on {waiting} redline(s)"
    else:
        manifest.status, manifest.reason = "complete", None
    save_manifest(manifest, settings)
    return manifest


def _counts(final: dict[str, Any], before: TaskCounts) -> TaskCounts:
    """Clauses done and redlines by status in a (final or waiting) state."""
    items = final.get("review_checklist", [])
    findings = final.get("findings", {})
    statuses = [d.status for f in findings.values() for d in f.diffs]
    return TaskCounts(
        clauses_done=sum(1 for k in item_keys(items) if k in findings),
        clauses_total=len(items) or before.clauses_total,
        pending=statuses.count(DiffStatus.PENDING),
        approved=statuses.count(DiffStatus.APPROVED),
        rejected=statuses.count(DiffStatus.REJECTED),
    )


async def pending_redlines(task_id: str, settings: Settings | None = None) -> list[dict[str, Any]]:
    """The redlines of a task that wait for a decision (JSON, as an approval round shows them:
    the diff with its clause and risk), decisions already given left out."""
    settings = settings or get_settings()
    manifest = load_manifest(task_id, settings)
    async with _saver(settings) as saver:
        graph = build_review_graph(checkpointer=saver, interrupt_before=[])
        snapshot = await graph.aget_state(_config(manifest.thread, settings, 0))
    decided = DecisionLog(task_id, settings).load()
    return [
        d
        for intr in snapshot.interrupts
        for d in _pending_diffs(intr)
        if d.get("diff_id") not in decided
    ]


async def delete_task(task_id: str, settings: Settings | None = None) -> None:
    """Remove a task's checkpoints (every run's thread), manifest, decision log and
    transcripts."""
    settings = settings or get_settings()
    manifest = load_manifest(task_id, settings)
    threads = [task_id, *(f"{task_id}.r{n}" for n in range(1, manifest.restarts + 1))]
    async with _saver(settings) as saver:
        for thread in threads:
            await saver.adelete_thread(thread)
    DecisionLog(task_id, settings).path.unlink(missing_ok=True)
    transcript_path(task_id, settings).unlink(missing_ok=True)
    (settings.state_dir / "tasks" / f"{task_id}.json").unlink(missing_ok=True)


def record_decisions(
    task_id: str,
    requests: Iterable[ApprovalRequest],
    pending: Iterable[dict[str, Any]],
    *,
    reviewer: str | None = None,
    settings: Settings | None = None,
) -> list[ApprovalRequest]:
    """Record decisions on a task's `pending` redlines (see `pending_redlines`), each stamped
    with who decided and when. All are checked before any is recorded: a decision on a redline
    that is not pending is an InputError naming it."""
    settings = settings or get_settings()
    requests = list(requests)
    known = {str(d.get("diff_id")) for d in pending}
    unknown = [r.diff_id for r in requests if r.diff_id not in known]
    if unknown:
        listed = ", ".join(sorted(known)[:8]) or "none"
        raise InputError(
            f"review task {task_id} has no pending redline {unknown[0]}"
            f"{f' (and {len(unknown) - 1} more)' if len(unknown) > 1 else ''}; "
            f"pending: {listed}"
        )
    log = DecisionLog(task_id, settings)
    who = reviewer or default_reviewer()
    stamped_requests = [stamped(r, who) for r in requests]
    for request in stamped_requests:
        log.record(request)
    return stamped_requests


def _record_end(manifest: TaskManifest, exc: BaseException) -> None:
    """The status of a task whose run ended with `exc`: interrupted when it can simply go on
    (stopped by the user), failed otherwise."""
    manifest.pid = None
    if isinstance(exc, KeyboardInterrupt | asyncio.CancelledError):
        manifest.status, manifest.reason = "interrupted", "stopped by the user"
    else:
        manifest.status = "failed"
        manifest.reason = redact_secrets(one_line(exc), ())


async def _run_graph(
    manifest: TaskManifest,
    facts: ReviewContext,
    state: dict[str, Any] | None,
    settings: Settings,
    hooks: _Hooks,
) -> tuple[dict[str, Any], bool, int]:
    """The task's final graph state, whether a model took part, and how many redlines wait
    for a decision (then the state is the review as it stands, decisions so far applied)."""
    progress, on_event = hooks.progress, hooks.on_event

    def send(event: ReviewEvent) -> None:
        if on_event is not None:
            on_event(event)

    async with AsyncExitStack() as stack:
        saver = await stack.enter_async_context(_saver(settings))
        llm = None
        if settings.use_react_agent and settings.llm_base_url:
            from contract_review.llm_client import LLMClient  # the SDK loads slowly: only when used

            llm = LLMClient.from_settings(settings)
        if llm is not None:
            await stack.enter_async_context(llm)
            before = manifest.llm_usage or TokenUsage()

            def record_usage(usage: TokenUsage) -> None:
                # After every call: a killed run's calls still count.
                manifest.llm_usage = before.plus(usage)
                save_manifest(manifest, settings)

            llm.on_usage = record_usage
            stack.callback(record_usage, llm.usage)  # also when no call was counted
        dispatcher = create_dispatcher(settings)
        run = RunContext(
            facts=facts,
            dispatcher=dispatcher,
            settings=settings,
            plugin=require_plugin(manifest.options.domain),
            transcripts=TranscriptLog(manifest.task_id, settings),
        )
        graph = build_review_graph(
            checkpointer=saver,
            interrupt_before=[],
            dispatcher=dispatcher,
            settings=settings,
            llm=llm,
            stream_tokens=hooks.stream_tokens,
        )
        probe = _config(manifest.thread, settings, 0)
        snapshot = await graph.aget_state(probe)
        if state is None and not snapshot.values:
            # Killed before the first checkpoint: nothing was done, start from the manifest.
            state = _initial_state(manifest, facts.documents)
        items = (state or snapshot.values).get("review_checklist", [])
        config = _config(manifest.thread, settings, len(items))
        carried = (state or {}).get("findings", {})
        total = len(items) - len(carried)
        done = 0 if state is not None else int(snapshot.values.get("current_clause_index", 0) or 0)
        if state is None and snapshot.values.get("is_complete"):
            return dict(snapshot.values), llm is not None, 0
        manifest.counts.clauses_total = len(items)
        last_saved = [time.monotonic()]
        clause_of: dict[str, str] = {}  # clause_review task id → item key, until saved
        saved_first: set[str] = set()  # saved before the stream told us what they are

        def durable(task_id: str, channels: list[str] | None = None) -> None:
            # Progress is reported once a clause's result is in the checkpoint database, not
            # when the graph yields it: a clause reported done is never redone after a kill.
            nonlocal done
            if channels is not None and "findings" not in channels:
                return  # an error or an interrupt of the task, not its result
            key = clause_of.pop(task_id, None)
            if key is None:
                saved_first.add(task_id)
            else:
                done += 1
                manifest.counts.clauses_done = done + len(carried)
                now = time.monotonic()
                if now - last_saved[0] >= _COUNT_EVERY:
                    # `status` shows the clauses done so far: written at most once a second
                    # (the manifest of a long contract is large; once per clause is quadratic)
                    last_saved[0] = now
                    save_manifest(manifest, settings)
                if progress is not None:
                    progress(done, total, key)

        report_saved_writes(saver, durable)
        log = DecisionLog(manifest.task_id, settings)
        payload: Any = state
        if state is None and snapshot.interrupts:
            answers, waiting = _answers(snapshot.interrupts, hooks, log)
            if waiting:
                return _waiting_state(snapshot.values, log), llm is not None, waiting
            payload = Command(resume=answers)
        branches: dict[str, str] = {}  # task id → clause id, for the end events
        while True:
            interrupts: list[Any] = []
            async for part in graph.astream(
                payload,
                config,
                stream_mode=["updates", "custom", "tasks"],
                subgraphs=True,
                context=run,
                # Each step's checkpoint is saved before the next step starts: the clauses'
                # saved results hang on the checkpoint of the step that started them.
                durability="sync",
            ):
                namespace, mode, chunk = cast(tuple[tuple[str, ...], str, Any], part)
                if mode == "custom":
                    if isinstance(chunk, ReviewEvent):
                        send(chunk)
                    continue
                if namespace:
                    continue  # inner steps of a clause speak through custom events
                if mode == "tasks":
                    if chunk.get("name") == "clause_review" and "result" not in chunk:
                        task_id = str(chunk.get("id"))
                        clause_of[task_id] = str(chunk.get("input", {}).get("key"))
                        if task_id in saved_first:
                            durable(task_id)
                    send(_node_event(chunk, branches))
                    continue
                if "__interrupt__" in chunk:
                    interrupts.extend(chunk["__interrupt__"])
            if not interrupts:
                break
            for intr in interrupts:
                n = len(_pending_diffs(intr))
                send(ReviewEvent(type=EventType.INTERRUPT, data={"diffs": n}))
            answers, waiting = _answers(interrupts, hooks, log)
            if waiting:
                values = (await graph.aget_state(config)).values
                return _waiting_state(values, log), llm is not None, waiting
            payload = Command(resume=answers)
        return dict((await graph.aget_state(config)).values), llm is not None, 0


def _node_event(task: dict[str, Any], branches: dict[str, str]) -> ReviewEvent:
    """A LangGraph task event (stream mode "tasks") of a top-level node as a review event;
    `branches` remembers which clause each clause_review task is about."""
    branch = task.get("input") if task.get("name") == "clause_review" else None
    item = branch.get("item") if isinstance(branch, dict) else None
    task_id = str(task.get("id", ""))
    if isinstance(item, ReviewChecklistItem):
        branches[task_id] = item.clause_id
    return ReviewEvent(
        type=EventType.NODE_END if "result" in task else EventType.NODE_START,
        node=str(task.get("name", "")),
        clause_id=branches.get(task_id),
    )


def _pending_diffs(intr: Any) -> list[dict[str, Any]]:
    """The diffs an approval interrupt asks about (JSON)."""
    return intr.value.get("diffs", []) if isinstance(intr.value, dict) else []


def _answers(interrupts: Any, hooks: _Hooks, log: DecisionLog) -> tuple[dict[str, Any], int]:
    """Decisions for every pending interrupt, keyed by interrupt id, and how many redlines
    are still undecided. Decisions come from the task's log first; the rest are asked (each
    recorded in the log the moment it is given)."""
    decided = log.load()
    answers: dict[str, Any] = {}
    waiting = 0
    for intr in interrupts:
        diffs = _pending_diffs(intr)
        ids = {str(d.get("diff_id")) for d in diffs}
        undecided = [d for d in diffs if d.get("diff_id") not in decided]
        if undecided and hooks.ask is not None:
            for raw in hooks.ask(undecided):
                request = stamped(ApprovalRequest.model_validate(raw), hooks.reviewer)
                if request.diff_id in ids:
                    log.record(request)
                    decided[request.diff_id] = request
        waiting += sum(1 for i in ids if i not in decided)
        answers[intr.id] = [decided[i].model_dump(mode="json") for i in ids if i in decided]
    return answers, waiting


def _waiting_state(values: dict[str, Any], log: DecisionLog) -> dict[str, Any]:
    """A state stopped at an approval round, with the decisions given so far applied: what
    the outputs of a task waiting for decisions show."""
    decided = log.load()
    state = {
        **values,
        "user_decisions": {
            **(values.get("user_decisions") or {}),
            **{k: r.decision.value for k, r in decided.items()},
        },
        "user_feedback": {
            **(values.get("user_feedback") or {}),
            **{k: r.feedback for k, r in decided.items() if r.feedback},
        },
        "user_modified_text": {
            **(values.get("user_modified_text") or {}),
            **{
                k: r.user_modified_text
                for k, r in decided.items()
                if r.user_modified_text is not None
            },
        },
        "decision_records": {**(values.get("decision_records") or {}), **decided},
    }
    return {**state, **decided_findings(state)}


def _final_plan(final: dict[str, Any]) -> ReviewPlan | None:
    """The plan as made, with every re-plan the branches recorded."""
    plan: ReviewPlan | None = final.get("review_plan")
    if plan is None:
        return None
    return plan.model_copy(update={"replans": list(final.get("replans") or [])})


def _llm_warnings(findings: list[ReviewedClause], llm_on: bool) -> list[str]:
    """What the reader must know about how the clauses were analysed."""
    warnings = []
    for c in findings:
        for quote in c.findings.injection_flags:
            warnings.append(
                f"Clause {c.item.clause_id} contains text addressed to an AI reviewer "
                f'(not obeyed; reported as a risk): "{quote[:160]}"'
            )
    if llm_on:
        fallback = [
            c
            for c in findings
            if c.findings.analysis_mode != "llm" and not c.findings.planned_rules_only
        ]
        reasons = list(dict.fromkeys(c.findings.mode_reason for c in fallback))
        if fallback:
            warnings.append(
                f"{len(fallback)} of {len(findings)} clause(s) were analysed by the rules only "
                f"(LLM fallback): {'; '.join(r for r in reasons[:3] if r)}"
            )
    return warnings


def _kinds(given: str | None, structure: DocumentStructure | None) -> list[KindMatch]:
    """The contract's kinds: the one the user gave, else those detected (ranked)."""
    if given is not None:
        return [given_kind(given)]
    return detect_kinds(structure) if structure is not None else []


def _inventory(domain: str, structure: DocumentStructure | None) -> ClauseInventory | None:
    plugin = get_plugin(domain)
    if plugin is None or plugin.build_inventory is None or structure is None:
        return None
    return plugin.build_inventory(structure)


def _write_outputs(
    manifest: TaskManifest,
    facts: ReviewContext,
    final: dict[str, Any],
    *,
    llm_model: str | None = None,
    llm_usage: TokenUsage | None = None,
    transcripts: Path | None = None,
) -> dict[str, str]:
    options = manifest.options
    docs = facts.documents
    primary = docs[0]
    structure = primary.structure
    content = primary.content
    items: list[ReviewChecklistItem] = final.get("review_checklist", [])
    findings = final.get("findings", {})
    clauses = []
    for item, key in zip(items, item_keys(items), strict=True):
        if key not in findings:
            continue
        node = structure.get_clause(item.clause_id) if structure else None
        clauses.append(
            ReviewedClause(
                item=item,
                clause_title=node.title if node else "",
                clause_text=node.text if node else "",
                start_offset=node.start_offset if node else 0,
                findings=findings[key],
            )
        )
    result = ReviewResult(
        task_id=manifest.task_id,
        created_at=manifest.created_at,
        our_party=_party_named(facts.side),
        language=final.get("language", "en"),
        domain_id=options.domain,
        domain_subtype=options.subtype,
        primary_filename=primary.filename,
        other_documents=[f"{d.role.value}: {d.filename}" for d in docs[1:]],
        clauses=clauses,
        missing=final.get("missing", []),
        summary_notes=final.get("summary_notes", ""),
        warnings=[
            *(content.warnings if content else []),
            *_llm_warnings(clauses, llm_usage is not None),
            *manifest.stale_decisions,
        ],
        coverage_gaps=coverage_gaps(structure, content, neutral=facts.side.neutral),
        hidden_text=list(content.hidden_spans) if content else [],
        is_complete=bool(final.get("is_complete")),
        inventory=_inventory(options.domain, structure),
        contract_kinds=_kinds(options.kind, structure),
        plan=_final_plan(final),
        llm_model=llm_model,
        llm_usage=llm_usage,
    )
    # Every output is written under a temporary folder and moved into place only once all of
    # them succeeded: a failure leaves nothing that looks finished.
    out = options.out
    staging = out / f".partial-{manifest.task_id}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        staged = _export(result, facts, final, manifest, staging)
        if transcripts is not None and transcripts.is_file():
            # the audit file of the model's work (not part of the client's report)
            staged["transcripts"] = staging / "transcripts.jsonl"
            shutil.copyfile(transcripts, staged["transcripts"])
        for path in staged.values():
            os.replace(path, out / path.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    # task.json is the folder's note of its task, not an output to list
    return {kind: str(out / path.name) for kind, path in staged.items() if kind != "task"}


def _export(
    result: ReviewResult,
    facts: ReviewContext,
    final: dict[str, Any],
    manifest: TaskManifest,
    folder: Path,
) -> dict[str, Path]:
    """Every output of a review, written into `folder`; an ExportError names the one that
    failed and why."""
    options = manifest.options
    docs = facts.documents
    settings = get_settings()
    plugin = require_plugin(options.domain)
    negotiated = options.supplement if docs and docs[0].derived_from_supplement else None
    export = ExportSettings(
        author=options.author or settings.redline_author or _last_reviewer(final),
        comments=options.comments,
        positions=facts.positions,
        playbook_name=plugin.playbook.name if plugin.playbook else "",
        user_playbook=options.criteria.name if options.criteria else None,
        # the user's own Word file is marked up; a text or a derived document gets a new one
        source_docx=negotiated or options.file,
        has_baseline=not plugin.standard_form or any(d.role is DocumentRole.BASELINE for d in docs),
    )
    paths = write_all(result, docs, final.get("all_diffs", []), export, folder)
    paths["task"] = folder / "task.json"
    paths["task"].write_text(json.dumps({"task_id": manifest.task_id}, indent=2))
    return paths


def review_positions(options: ReviewOptions) -> list[Position]:
    """The playbook positions a review with `options` is measured against (the domain's, with
    the user's playbook over them), for showing its issues after the run: titles, why, our
    position, fallback — the same the run prepared."""
    return positions_in_force(require_plugin(options.domain), options.criteria, options.subtype)


def prepared_run(options: ReviewOptions, settings: Settings | None = None) -> RunContext:
    """The run context a review with `options` works in (documents read, our side resolved,
    the playbook in force, the skills), without running it: for checking a finished review's
    findings again (`bench/redline_check.py`). Bad options fail as `start_review` fails."""
    settings = settings or get_settings()
    options.check()
    docs = _documents(options)
    side = _our_side(options, docs)
    manifest = TaskManifest(
        task_id=new_task_id(), created_at=datetime.now(UTC).isoformat(), options=options
    )
    return RunContext(
        facts=_facts(manifest, docs, side),
        dispatcher=create_dispatcher(settings),
        settings=settings,
        plugin=require_plugin(options.domain),
    )


def _party_named(side: OurSide) -> str:
    """How the outputs name our party: as the contract names it ('' when neutral)."""
    return side.party.describe() if side.party is not None else ""


def _last_reviewer(final: dict[str, Any]) -> str:
    """Who gave the latest decision, else the OS user."""
    records = final.get("decision_records") or {}
    named = [r for r in records.values() if r.reviewer]
    latest = max(named, key=lambda r: r.decided_at or "", default=None)
    return latest.reviewer if latest is not None else default_reviewer()
