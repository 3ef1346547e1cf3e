"""The review routes: upload and start, list and status, the live events (SSE, replayed after
`Last-Event-ID`), findings, redlines and their decisions, the playbooks of remembered
decisions, the model's transcripts, resume and delete. Every operation goes through the task
service, as the command line's do."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, HTTPException, Request, Response, UploadFile
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse, ServerSentEvent

from contract_review.config import Settings
from contract_review.domains import SUBTYPES, check_domain
from contract_review.errors import InputError
from contract_review.models import ApprovalRequest, Decision
from contract_review.tasks import (
    ReviewOptions,
    TaskManifest,
    list_tasks,
    new_task_id,
    save_manifest,
)
from contract_review.transcripts import read_transcripts, summary
from contract_review.web.deps import (
    JobsDep,
    KeyDep,
    ReviewDep,
    ServiceDep,
    SettingsDep,
    owned_review,
)
from contract_review.web.portfolios import CONTRACT_TYPES, safe_name

__all__ = [
    "PLAYBOOK_TYPES",
    "DecisionIn",
    "clause_transcript",
    "decide",
    "delete",
    "diffs",
    "events",
    "findings",
    "playbooks",
    "resume",
    "review",
    "reviews",
    "router",
    "submit",
    "transcripts",
]

PLAYBOOK_TYPES = frozenset({".yaml", ".yml", ".json", ".csv", ".tsv", ".xlsx"})
_POLL_SECONDS = 0.25
_HEARTBEAT_SECONDS = 10
_END_EVENTS = frozenset({"review_complete", "review_failed"})

router = APIRouter()
_OWNED = Depends(owned_review)
"""For a route that only checks the review is the caller's."""


def _folder(settings: Settings, task_id: str) -> Path:
    return settings.state_dir / "web" / task_id


def _memory(settings: Settings, owner: str, name: str) -> Path:
    """The playbook of remembered decisions `name` of the key `owner` (each key its own
    folder: nothing is shared across clients or keys)."""
    cleaned = safe_name(name, "playbook")
    if not re.fullmatch(r"[\w][\w .-]{0,79}", cleaned):
        raise HTTPException(422, "playbook names are letters, digits, spaces, '.', '-' and '_'")
    return settings.state_dir / "web" / "playbooks" / safe_name(owner, "key") / f"{cleaned}.yaml"


async def _save(upload: UploadFile, folder: Path, allowed: frozenset[str], limit: int) -> Path:
    """Store an uploaded file in `folder`; 415 for a type the engine does not read, 413 when
    it exceeds the size limit."""
    suffix = Path(upload.filename or "").suffix.lower()
    if suffix not in allowed:
        kinds = ", ".join(sorted(allowed))
        raise HTTPException(415, f"{upload.filename or 'the file'}: unsupported type (use {kinds})")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / safe_name(upload.filename, f"file{suffix}")
    size = 0
    with path.open("wb") as out:
        while chunk := await upload.read(1 << 20):
            size += len(chunk)
            if size > limit:
                raise HTTPException(413, f"{upload.filename}: larger than {limit // (1 << 20)} MB")
            out.write(chunk)
    if size == 0:
        raise HTTPException(400, f"{upload.filename}: the file is empty")
    return path


class DecisionIn(BaseModel):
    """A decision on one pending redline."""

    decision: Literal["approve", "reject", "edit"] = Field(description="What the lawyer decided.")
    feedback: str = Field("", max_length=4000, description="Why (a rejection's feedback).")
    text: str | None = Field(None, max_length=20000, description="The lawyer's wording (edit).")
    remember: str | None = Field(
        None,
        pattern=r"^[\w][\w .-]{0,79}$",
        description="Keep this decision (an edit, or a rejection with feedback) in your playbook "
        "of this name (one per client or matter): later reviews given it as `remembered` use "
        "your wording and your reasons.",
    )


def _summary(m: TaskManifest, busy: bool) -> dict[str, Any]:
    """A task for the API; `busy` while a job of it is queued or running (its status then
    says so even when the task has just recorded where it stopped)."""
    outputs = sorted({Path(p).name for p in m.outputs.values()})
    status = m.current_status()
    if busy and status not in ("queued", "running"):
        status = "running"
    return {
        "task_id": m.task_id,
        "created_at": m.created_at,
        "status": status,
        "waiting": m.waiting and not busy,
        "reason": m.reason,
        "contract": m.options.file.name,
        "party": m.options.party,
        "domain": m.options.domain,
        "counts": m.counts.model_dump(),
        "outputs": outputs,
    }


@router.post("/api/reviews", status_code=202)
async def submit(
    who: KeyDep,
    settings: SettingsDep,
    jobs: JobsDep,
    contract: Annotated[UploadFile, File(description="The contract: .docx, .pdf, .txt, .md.")],
    party: Annotated[str, Form(description="Whom we act for.")],
    domain: Annotated[str, Form(description="generic, fidic or sha_spa.")] = "generic",
    subtype: Annotated[str | None, Form(description="Domain subtype.")] = None,
    language: Annotated[Literal["auto", "en", "zh-CN"], Form()] = "auto",
    approve: Annotated[
        Literal["none", "all"],
        Form(description="none: every redline waits for a decision; all: approve them all."),
    ] = "none",
    baseline: Annotated[UploadFile | None, File()] = None,
    supplement: Annotated[UploadFile | None, File()] = None,
    references: Annotated[list[UploadFile] | None, File()] = None,
    playbook: Annotated[UploadFile | None, File()] = None,
    remembered: Annotated[
        str | None,
        Form(description="Your playbook of remembered decisions to review with (by name)."),
    ] = None,
) -> dict[str, Any]:
    """Upload a contract (and its other documents) and start its review."""
    if domain not in SUBTYPES:
        raise HTTPException(422, f"domain must be one of {', '.join(SUBTYPES)}")
    try:
        check_domain(domain, subtype or None)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from None
    if not party.strip():
        raise HTTPException(422, "party: name whom the review acts for")
    memory = None
    if remembered:
        if playbook is not None and playbook.filename:
            raise HTTPException(422, "give a playbook file or a remembered playbook, not both")
        memory = _memory(settings, who, remembered)
        if not memory.is_file():
            raise HTTPException(404, f"no remembered playbook '{remembered}'")
    if jobs.waiting() >= settings.web_queue_limit:
        raise HTTPException(503, "too many reviews waiting; try again later")
    task_id = new_task_id()
    folder = _folder(settings, task_id)
    limit = settings.max_file_bytes
    try:
        uploads = folder / "uploads"
        main = await _save(contract, uploads / "contract", CONTRACT_TYPES, limit)
        others: dict[str, Path | None] = {}
        for role, upload in (("baseline", baseline), ("supplement", supplement)):
            others[role] = (
                await _save(upload, uploads / role, CONTRACT_TYPES, limit)
                if upload is not None and upload.filename
                else None
            )
        refs = [
            await _save(u, uploads / f"reference-{n}", CONTRACT_TYPES, limit)
            for n, u in enumerate(references or [])
            if u.filename
        ]
        rules = (
            await _save(playbook, uploads / "playbook", PLAYBOOK_TYPES, limit)
            if playbook is not None and playbook.filename
            else None
        )
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    options = ReviewOptions(
        file=main,
        domain=domain,
        subtype=subtype or None,
        party=party.strip(),
        language=language,
        baseline=others["baseline"],
        supplement=others["supplement"],
        references=refs,
        criteria=rules or memory,
        approve=approve,
        out=folder / "out",
    )
    manifest = TaskManifest(
        task_id=task_id,
        created_at=datetime.now(UTC).isoformat(),
        options=options,
        status="queued",
        owner=who,
    )
    save_manifest(manifest, settings)
    jobs.submit("start", task_id)
    return {"task_id": task_id, "status": "queued", "events": f"/api/reviews/{task_id}/events"}


@router.get("/api/reviews")
async def reviews(who: KeyDep, settings: SettingsDep, jobs: JobsDep) -> list[dict[str, Any]]:
    """The caller's reviews, newest first."""
    return [_summary(m, jobs.busy(m.task_id)) for m in list_tasks(settings) if m.owner == who]


@router.get("/api/reviews/{task_id}")
async def review(task_id: str, manifest: ReviewDep, jobs: JobsDep) -> dict[str, Any]:
    """Where a review stands: status, counts, outputs."""
    return _summary(manifest, jobs.busy(task_id))


@router.get("/api/reviews/{task_id}/events", dependencies=[_OWNED])
async def events(task_id: str, request: Request, jobs: JobsDep) -> EventSourceResponse:
    """The review's events as Server-Sent Events; after `Last-Event-ID`, those missed."""
    header = request.headers.get("last-event-id", "") or request.query_params.get("after", "")
    after = int(header) if header.isdigit() else 0
    log = jobs.log

    async def stream() -> AsyncIterator[ServerSentEvent]:
        last = after
        # The review has ended when its last event is an end and no job of it is left.
        latest = await asyncio.to_thread(log.latest, task_id)
        ended = latest is not None and latest.type in _END_EVENTS
        while True:
            busy = jobs.busy(task_id)  # asked before reading: no event is cut off
            batch = await asyncio.to_thread(log.since, task_id, last)
            for event in batch:
                last, ended = event.id, event.type in _END_EVENTS
                yield ServerSentEvent(
                    data=json.dumps(event.data, ensure_ascii=False, default=str),
                    event=event.type,
                    id=str(event.id),
                )
            if batch:
                continue
            if (ended and not busy) or await request.is_disconnected():
                return
            await asyncio.sleep(_POLL_SECONDS)

    return EventSourceResponse(stream(), ping=_HEARTBEAT_SECONDS)


@router.get("/api/reviews/{task_id}/findings")
async def findings(manifest: ReviewDep) -> Response:
    """The review's findings (findings.json) as they stand."""
    path = manifest.options.out / "findings.json"
    if not path.is_file():
        raise HTTPException(409, "the review has no findings yet")
    return Response(path.read_bytes(), media_type="application/json")


@router.get("/api/reviews/{task_id}/transcripts", dependencies=[_OWNED])
async def transcripts(task_id: str, settings: SettingsDep) -> list[dict[str, Any]]:
    """Per clause the model worked on: runs, rounds, tool calls, tokens, seconds (audit)."""
    return summary(await asyncio.to_thread(read_transcripts, task_id, settings))


@router.get("/api/reviews/{task_id}/transcripts/{clause_id}", dependencies=[_OWNED])
async def clause_transcript(
    task_id: str, clause_id: str, settings: SettingsDep
) -> list[dict[str, Any]]:
    """A clause's conversations with the model ('(plan)': the review's plan): messages,
    tool calls with arguments and results, final answer, timing, tokens."""
    entries = await asyncio.to_thread(read_transcripts, task_id, settings, clause_id)
    if not entries:
        raise HTTPException(404, f"no transcript of clause {clause_id}")
    return entries


@router.get("/api/reviews/{task_id}/diffs")
async def diffs(
    task_id: str,
    who: KeyDep,
    settings: SettingsDep,
    jobs: JobsDep,
    service: ServiceDep,
    status: Literal["pending", "approved", "rejected", "all"] = "all",
) -> list[dict[str, Any]]:
    """The review's redlines; `status=pending` lists those waiting for a decision, each
    with its clause and risk."""
    # Looked up here, not as a dependency: a wrong `status` is a 422 before any 404.
    manifest = owned_review(task_id, who, settings)
    if status == "pending":
        if jobs.busy(task_id):
            return []
        return await service.pending(task_id)
    path = manifest.options.out / "findings.json"
    if not path.is_file():
        return []
    from contract_review.models import ReviewResult

    result = ReviewResult.model_validate_json(path.read_bytes())
    return [
        d.model_dump(mode="json")
        for c in result.clauses
        for d in c.findings.diffs
        if status == "all" or d.status.value == status
    ]


@router.post("/api/reviews/{task_id}/diffs/{diff_id}/decision")
async def decide(
    task_id: str,
    diff_id: str,
    body: DecisionIn,
    who: KeyDep,
    settings: SettingsDep,
    jobs: JobsDep,
    service: ServiceDep,
) -> dict[str, Any]:
    """Decide one pending redline (recorded on arrival); the review resumes by itself once
    none is left pending."""
    # Looked up here, not as a dependency: a malformed body is a 422 before any 404.
    owned_review(task_id, who, settings)
    if jobs.busy(task_id):
        raise HTTPException(409, "the review is running; decide once it waits for you")
    if body.decision == "edit" and not (body.text or "").strip():
        raise HTTPException(422, "an edit needs its text")
    request = ApprovalRequest(
        diff_id=diff_id,
        decision=Decision.REJECT if body.decision == "reject" else Decision.APPROVE,
        feedback=body.feedback,
        user_modified_text=body.text if body.decision == "edit" else None,
    )
    try:
        (recorded,), left = await service.decide(task_id, [request], reviewer=who)
    except InputError as exc:
        raise HTTPException(409, str(exc)) from None
    jobs.log.append(
        task_id,
        "decision",
        {
            "diff_id": diff_id,
            "decision": recorded.decision.value,
            "reviewer": recorded.reviewer,
            "pending": len(left),
        },
    )
    remembered = None
    if body.remember:
        found = await asyncio.to_thread(
            service.remember, task_id, _memory(settings, who, body.remember), [diff_id]
        )
        lesson = found[0] if found else None
        remembered = {
            "playbook": body.remember,
            "position": lesson.position.id if lesson and lesson.position else None,
            "why_not": (lesson.why_not if lesson else "nothing to remember: an approval"),
        }
    resumed = not left and jobs.submit("resume", task_id)
    return {
        "diff_id": diff_id,
        "pending": len(left),
        "resumed": resumed,
        "remembered": remembered,
    }


@router.get("/api/playbooks")
async def playbooks(who: KeyDep, settings: SettingsDep) -> list[dict[str, Any]]:
    """Your playbooks of remembered decisions: name and the positions each holds."""
    from contract_review.playbook import load_playbook

    folder = _memory(settings, who, "x").parent
    out = []
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        book = await asyncio.to_thread(load_playbook, path)
        out.append({"name": path.stem, "positions": [p.id for p in book.positions]})
    return out


@router.post("/api/reviews/{task_id}/resume", status_code=202)
async def resume(task_id: str, manifest: ReviewDep, jobs: JobsDep) -> dict[str, Any]:
    """Carry on a review interrupted otherwise than by waiting for decisions."""
    if manifest.current_status() == "complete":
        raise HTTPException(409, "the review is complete")
    if not jobs.submit("resume", task_id):
        raise HTTPException(409, "the review is already queued or running")
    return {"task_id": task_id, "status": "queued"}


@router.delete("/api/reviews/{task_id}", status_code=204, dependencies=[_OWNED])
async def delete(
    task_id: str, settings: SettingsDep, jobs: JobsDep, service: ServiceDep
) -> Response:
    """Remove the review: its task, checkpoints, events, uploads and outputs."""
    if jobs.busy(task_id):
        raise HTTPException(409, "the review is running; delete it once it stops")
    await service.delete(task_id)
    jobs.log.delete(task_id)
    shutil.rmtree(_folder(settings, task_id), ignore_errors=True)
    return Response(status_code=204)
