"""Running a review end to end: documents → graph (durable checkpoints) → outputs.

A review is a *task* with an id. Its manifest (the options, so the documents can be read again)
lives in `<state_dir>/tasks/<id>.json`, its progress in the checkpoint database; documents are
never written into the checkpoints. `resume_review` continues a task after an interruption or a
crash: finished clauses are not redone and decisions already given are kept.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command

from contract_review.config import Settings, get_settings
from contract_review.documents import load_task_documents
from contract_review.errors import InputError
from contract_review.exports.redline_docx import write_redline_docx
from contract_review.exports.report import write_reports
from contract_review.graph.builder import build_review_graph, item_keys, review_serde
from contract_review.graph.context import RunContext
from contract_review.graph.events import EventType, ReviewEvent
from contract_review.models import (
    ClauseInventory,
    DocumentFormat,
    DocumentRole,
    DocumentStructure,
    ReviewChecklistItem,
    ReviewedClause,
    ReviewResult,
    TaskDocument,
    TokenUsage,
    one_item_per_clause,
)
from contract_review.parties import OurSide, find_parties, resolve_party
from contract_review.playbook import load_playbook
from contract_review.plugins import create_dispatcher, load_builtin_plugins
from contract_review.plugins.registry import DomainPlugin, get_plugin, require_plugin
from contract_review.skills.context import ReviewContext
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.tasks import (
    ReviewOptions,
    TaskManifest,
    list_tasks,
    load_manifest,
    save_manifest,
)

__all__ = [
    "ReviewOptions",
    "TaskManifest",
    "list_tasks",
    "load_manifest",
    "resume_review",
    "start_review",
]


AskFn = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
"""Interactive approval: pending diffs (JSON) → decisions (ApprovalRequest-shaped dicts)."""
ProgressFn = Callable[[int, int, str], None]
"""(clauses done, clauses in total, the clause just finished)."""
EventFn = Callable[[ReviewEvent], None]
"""Receives every live event of the review (see `contract_review.graph.events`)."""


@asynccontextmanager
async def _saver(settings: Settings) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    if settings.postgres_url:
        async with AsyncPostgresSaver.from_conn_string(
            settings.postgres_url.get_secret_value(), serde=review_serde()
        ) as pg:
            await pg.setup()
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
    docs = load_task_documents(
        options.file,
        baseline=options.baseline,
        supplement=options.supplement,
        references=options.references,
        parser_config=plugin.parser_config,
    )
    if options.criteria is not None:
        if not options.criteria.is_file():
            raise InputError(f"{options.criteria}: file not found")
        load_playbook(options.criteria)  # PlaybookError (an InputError): one line, exit 2
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
    return plugin.adjust_checklist(items, docs) if plugin.adjust_checklist else items


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


def _run_context(
    manifest: TaskManifest,
    docs: list[TaskDocument],
    settings: Settings,
    dispatcher: SkillDispatcher,
    side: OurSide,
) -> RunContext:
    """The run context of a task: built once per run, from its manifest and documents."""
    options = manifest.options
    plugin = require_plugin(options.domain)
    facts = ReviewContext(
        task_id=manifest.task_id,
        our_party=side.our_party,
        language=_language(options, docs),
        domain_id=options.domain,
        domain_subtype=options.subtype,
        documents=docs,
        criteria_path=str(options.criteria) if options.criteria else None,
    ).with_baselines(plugin)
    return RunContext(
        facts=facts, dispatcher=dispatcher, settings=settings, plugin=plugin, side=side
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
) -> TaskManifest:
    """Run a new review to the end (asking `ask` for decisions when interactive).

    LLM mode is on when `settings` name an endpoint (`LLM_BASE_URL`) and `use_react_agent`
    is true; `on_event` then also sees tool calls, and model tokens with `stream_tokens`."""
    settings = settings or get_settings()
    docs = _documents(options)
    side = _our_side(options, docs)  # no party, or none of the contract's: stop before any task
    task_id = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
    manifest = TaskManifest(
        task_id=task_id, created_at=datetime.now(UTC).isoformat(), options=options
    )
    save_manifest(manifest, settings)
    state = _initial_state(manifest, docs)
    return await _run(manifest, docs, side, state, settings, ask, progress, on_event, stream_tokens)


async def resume_review(
    task_id: str,
    *,
    settings: Settings | None = None,
    ask: AskFn | None = None,
    progress: ProgressFn | None = None,
    on_event: EventFn | None = None,
    stream_tokens: bool = False,
) -> TaskManifest:
    """Continue a task from its last checkpoint (after a crash or an interruption)."""
    settings = settings or get_settings()
    manifest = load_manifest(task_id, settings)
    docs = _documents(manifest.options)
    side = _our_side(manifest.options, docs)
    return await _run(manifest, docs, side, None, settings, ask, progress, on_event, stream_tokens)


async def _run(
    manifest: TaskManifest,
    docs: list[TaskDocument],
    side: OurSide,
    state: dict[str, Any] | None,
    settings: Settings,
    ask: AskFn | None,
    progress: ProgressFn | None,
    on_event: EventFn | None,
    stream_tokens: bool,
) -> TaskManifest:
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
            client, before = llm, manifest.llm_usage or TokenUsage()

            def record_usage() -> None:
                # Runs however the run ends: an interrupted review's model calls still count.
                nonlocal manifest
                manifest = manifest.model_copy(update={"llm_usage": before.plus(client.usage)})
                save_manifest(manifest, settings)

            stack.callback(record_usage)
        dispatcher = create_dispatcher(settings)
        run = _run_context(manifest, docs, settings, dispatcher, side)
        graph = build_review_graph(
            checkpointer=saver,
            interrupt_before=[],
            dispatcher=dispatcher,
            settings=settings,
            llm=llm,
            stream_tokens=stream_tokens,
        )
        probe = _config(manifest.task_id, settings, 0)
        snapshot = await graph.aget_state(probe)
        if state is None and not snapshot.values:
            # Killed before the first checkpoint: nothing was done, start from the manifest.
            state = _initial_state(manifest, docs)
        items = (state or snapshot.values).get("review_checklist", [])
        config = _config(manifest.task_id, settings, len(items))
        total = len(items)
        done = int(snapshot.values.get("current_clause_index", 0) or 0)
        if state is None and snapshot.values.get("is_complete"):
            result: dict[str, Any] = dict(snapshot.values)
        else:
            payload: Any = state
            if state is None and snapshot.interrupts:
                payload = Command(resume=_answers(snapshot.interrupts, ask))
            branches: dict[str, str] = {}  # task id → clause id, for the end events
            while True:
                interrupts: list[Any] = []
                async for part in graph.astream(
                    payload,
                    config,
                    stream_mode=["updates", "custom", "tasks"],
                    subgraphs=True,
                    context=run,
                ):
                    namespace, mode, chunk = cast(tuple[tuple[str, ...], str, Any], part)
                    if mode == "custom":
                        if isinstance(chunk, ReviewEvent):
                            send(chunk)
                        continue
                    if namespace:
                        continue  # inner steps of a clause speak through custom events
                    if mode == "tasks":
                        send(_node_event(chunk, branches))
                        continue
                    if "__interrupt__" in chunk:
                        interrupts.extend(chunk["__interrupt__"])
                    update = chunk.get("clause_review")
                    if update and progress is not None:
                        done += 1
                        progress(done, total, ", ".join(update.get("findings", {})))
                if not interrupts:
                    break
                for intr in interrupts:
                    n = len(_pending_diffs(intr))
                    send(ReviewEvent(type=EventType.INTERRUPT, data={"diffs": n}))
                payload = Command(resume=_answers(interrupts, ask))
            result = dict((await graph.aget_state(config)).values)
    usage = manifest.llm_usage if llm is not None else None
    model = settings.llm_model if usage is not None else None
    outputs = _write_outputs(manifest, docs, result, llm_model=model, llm_usage=usage)
    manifest = manifest.model_copy(update={"status": "complete", "outputs": outputs})
    save_manifest(manifest, settings)
    return manifest


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


def _answers(interrupts: Any, ask: AskFn | None) -> dict[str, Any]:
    """Decisions for every pending interrupt, keyed by interrupt id."""
    answers: dict[str, Any] = {}
    for intr in interrupts:
        if ask is None:
            raise InputError("this review waits for approval decisions; resume it interactively")
        answers[intr.id] = ask(_pending_diffs(intr))
    return answers


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
        fallback = [c for c in findings if c.findings.analysis_mode != "llm"]
        reasons = list(dict.fromkeys(c.findings.mode_reason for c in fallback))
        if fallback:
            warnings.append(
                f"{len(fallback)} of {len(findings)} clause(s) were analysed by the rules only "
                f"(LLM fallback): {'; '.join(r for r in reasons[:3] if r)}"
            )
    return warnings


def _inventory(domain: str, structure: DocumentStructure | None) -> ClauseInventory | None:
    plugin = get_plugin(domain)
    if plugin is None or plugin.build_inventory is None or structure is None:
        return None
    return plugin.build_inventory(structure)


def _write_outputs(
    manifest: TaskManifest,
    docs: list[TaskDocument],
    final: dict[str, Any],
    *,
    llm_model: str | None = None,
    llm_usage: TokenUsage | None = None,
) -> dict[str, str]:
    options = manifest.options
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
                findings=findings[key],
            )
        )
    result = ReviewResult(
        task_id=manifest.task_id,
        created_at=manifest.created_at,
        our_party=options.party,
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
        ],
        hidden_text=list(content.hidden_spans) if content else [],
        is_complete=bool(final.get("is_complete")),
        inventory=_inventory(options.domain, structure),
        llm_model=llm_model,
        llm_usage=llm_usage,
    )
    out = options.out
    out.mkdir(parents=True, exist_ok=True)
    paths = {kind: str(p) for kind, p in write_reports(result, out).items()}
    if content is not None:
        # Redline the user's own Word file; a text or a derived document gets a new one.
        source = options.file if content.format is DocumentFormat.DOCX else None
        redline = out / "redline.docx"
        write_redline_docx(content, final.get("all_diffs", []), redline, source_docx=source)
        paths["docx"] = str(redline)
    (out / "task.json").write_text(json.dumps({"task_id": manifest.task_id}, indent=2))
    return paths
