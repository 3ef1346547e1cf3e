"""The web app: the HTTP API of SPEC-4 §7 and the page that uses it.

A review is uploaded (`POST /api/reviews`), runs in a worker process (see `jobs`), and its
events stream over Server-Sent Events (`GET /api/reviews/{id}/events`, replayed after
`Last-Event-ID`). At an approval round the review parks; each decision
(`POST …/diffs/{diff_id}/decision`) is recorded on arrival, and the review resumes by itself
once the last pending redline is decided. Every operation goes through the task service, as
the command line's do. A portfolio (`POST /api/portfolios`: many contracts, or zips of them)
runs as one batch into one workbook (see `portfolios`). See `docs/web.md` for the routes,
events and security.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse, ServerSentEvent

from contract_review.config import Settings, get_settings
from contract_review.domains import SUBTYPES, check_domain
from contract_review.errors import InputError
from contract_review.models import ApprovalRequest, Decision
from contract_review.service import ReviewService
from contract_review.tasks import (
    ReviewOptions,
    TaskManifest,
    list_tasks,
    load_manifest,
    new_task_id,
    save_manifest,
)
from contract_review.transcripts import read_transcripts, summary
from contract_review.web.auth import (
    COOKIE,
    Caller,
    authenticate,
    csrf_token,
    key_name,
    session_cookie,
)
from contract_review.web.jobs import Jobs
from contract_review.web.portfolios import CONTRACT_TYPES, Portfolios, safe_name

__all__ = ["create_app"]

PLAYBOOK_TYPES = frozenset({".yaml", ".yml", ".json", ".csv", ".tsv", ".xlsx"})
_MAX_FILES = 8
_POLL_SECONDS = 0.25
_HEARTBEAT_SECONDS = 10
_END_EVENTS = frozenset({"review_complete", "review_failed"})


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


class SessionIn(BaseModel):
    """Signing in the page with an API key."""

    key: str = Field(description="An API key.")


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


def _caller(request: Request) -> Caller:
    settings: Settings = request.app.state.settings
    return authenticate(request, settings)


Authed = Annotated[Caller, Depends(_caller)]
"""A route's caller: a valid API key or session (401 / 403 otherwise)."""


def create_app(settings: Settings | None = None) -> FastAPI:
    """The web app on `settings` (default: from the environment)."""
    settings = settings or get_settings()
    service = ReviewService(settings)
    portfolios = Portfolios(settings)
    state: dict[str, Jobs] = {}

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        jobs = Jobs(settings)
        state["jobs"] = jobs
        await _recover(jobs)
        portfolios.start()
        try:
            yield
        finally:
            portfolios.close()
            jobs.close()

    async def _recover(jobs: Jobs) -> None:
        """A restarted server carries on its web tasks: queued ones start, ones cut off while
        running resume from their checkpoints, fully decided ones resume."""
        for m in list_tasks(settings):
            if m.owner is None:
                continue
            status = m.current_status()
            if status == "queued":
                jobs.submit("start", m.task_id)
            elif (status == "interrupted" and not m.waiting) or (
                m.waiting and not await service.pending(m.task_id)
            ):
                jobs.submit("resume", m.task_id)

    app = FastAPI(
        title="contract-review",
        description="Contract review engine: upload, live progress, approve each redline.",
        lifespan=lifespan,
        docs_url=None,  # served below, behind a key like every other route
        openapi_url=None,
    )
    app.state.settings = settings

    def jobs() -> Jobs:
        return state["jobs"]

    def own(task_id: str, who: Caller) -> TaskManifest:
        try:
            manifest = load_manifest(task_id, settings)
        except InputError:
            raise HTTPException(404, f"no review {task_id}") from None
        if manifest.owner != who.name:
            raise HTTPException(404, f"no review {task_id}")  # another key's task is not shown
        return manifest

    @app.exception_handler(InputError)
    async def _input_error(_: Request, exc: InputError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.middleware("http")
    async def _limit_size(request: Request, call_next: Any) -> Response:
        # Refused before the body is read: an upload larger than every file could be.
        length = request.headers.get("content-length", "")
        limit = settings.max_file_bytes * _MAX_FILES
        if request.url.path == "/api/portfolios":  # zips: bounded by what they unpack to
            limit = max(limit, settings.max_uncompressed_bytes)
        if length.isdigit() and int(length) > limit + (1 << 20):
            return JSONResponse({"detail": "the upload is too large"}, status_code=413)
        response: Response = await call_next(request)
        return response

    @app.get("/health")
    async def health() -> dict[str, Any]:
        """Liveness: no key needed."""
        return {"status": "ok", "queued_or_running": jobs().waiting()}

    @app.post("/api/session")
    async def sign_in(body: SessionIn, request: Request, response: Response) -> dict[str, str]:
        """Sign the page in with an API key: sets the session cookie, returns the CSRF token."""
        keys = settings.named_api_keys()
        name = key_name(keys, body.key)
        if name is None:
            raise HTTPException(401, "the API key is not valid")
        cookie = session_cookie(name, keys[name])
        response.set_cookie(
            COOKIE,
            cookie,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",  # behind TLS, never sent in clear
            path="/",
        )
        return {"name": name, "csrf": csrf_token(cookie, keys[name])}

    @app.get("/api/session")
    async def session(request: Request, who: Authed) -> dict[str, str]:
        """Who the session is, and its CSRF token."""
        cookie = request.cookies.get(COOKIE, "")
        key = settings.named_api_keys()[who.name]
        return {"name": who.name, "csrf": csrf_token(cookie, key) if cookie else ""}

    @app.post("/api/reviews", status_code=202)
    async def submit(
        who: Authed,
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
            memory = _memory(settings, who.name, remembered)
            if not memory.is_file():
                raise HTTPException(404, f"no remembered playbook '{remembered}'")
        if jobs().waiting() >= settings.web_queue_limit:
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
            owner=who.name,
        )
        save_manifest(manifest, settings)
        jobs().submit("start", task_id)
        return {"task_id": task_id, "status": "queued", "events": f"/api/reviews/{task_id}/events"}

    @app.get("/api/reviews")
    async def reviews(who: Authed) -> list[dict[str, Any]]:
        """The caller's reviews, newest first."""
        return [
            _summary(m, jobs().busy(m.task_id)) for m in list_tasks(settings) if m.owner == who.name
        ]

    @app.get("/api/reviews/{task_id}")
    async def review(task_id: str, who: Authed) -> dict[str, Any]:
        """Where a review stands: status, counts, outputs."""
        return _summary(own(task_id, who), jobs().busy(task_id))

    @app.get("/api/reviews/{task_id}/events")
    async def events(task_id: str, request: Request, who: Authed) -> EventSourceResponse:
        """The review's events as Server-Sent Events; after `Last-Event-ID`, those missed."""
        own(task_id, who)
        header = request.headers.get("last-event-id", "") or request.query_params.get("after", "")
        after = int(header) if header.isdigit() else 0
        log = jobs().log

        async def stream() -> AsyncIterator[ServerSentEvent]:
            last = after
            # The review has ended when its last event is an end and no job of it is left.
            latest = await asyncio.to_thread(log.latest, task_id)
            ended = latest is not None and latest.type in _END_EVENTS
            while True:
                busy = jobs().busy(task_id)  # asked before reading: no event is cut off
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

    @app.get("/api/reviews/{task_id}/findings")
    async def findings(task_id: str, who: Authed) -> Response:
        """The review's findings (findings.json) as they stand."""
        manifest = own(task_id, who)
        path = manifest.options.out / "findings.json"
        if not path.is_file():
            raise HTTPException(409, "the review has no findings yet")
        return Response(path.read_bytes(), media_type="application/json")

    @app.get("/api/reviews/{task_id}/transcripts")
    async def transcripts(task_id: str, who: Authed) -> list[dict[str, Any]]:
        """Per clause the model worked on: runs, rounds, tool calls, tokens, seconds (audit)."""
        own(task_id, who)
        return summary(await asyncio.to_thread(read_transcripts, task_id, settings))

    @app.get("/api/reviews/{task_id}/transcripts/{clause_id}")
    async def clause_transcript(task_id: str, clause_id: str, who: Authed) -> list[dict[str, Any]]:
        """A clause's conversations with the model ('(plan)': the review's plan): messages,
        tool calls with arguments and results, final answer, timing, tokens."""
        own(task_id, who)
        entries = await asyncio.to_thread(read_transcripts, task_id, settings, clause_id)
        if not entries:
            raise HTTPException(404, f"no transcript of clause {clause_id}")
        return entries

    @app.get("/api/reviews/{task_id}/diffs")
    async def diffs(
        task_id: str, who: Authed, status: Literal["pending", "approved", "rejected", "all"] = "all"
    ) -> list[dict[str, Any]]:
        """The review's redlines; `status=pending` lists those waiting for a decision, each
        with its clause and risk."""
        manifest = own(task_id, who)
        if status == "pending":
            if jobs().busy(task_id):
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

    @app.post("/api/reviews/{task_id}/diffs/{diff_id}/decision")
    async def decide(task_id: str, diff_id: str, body: DecisionIn, who: Authed) -> dict[str, Any]:
        """Decide one pending redline (recorded on arrival); the review resumes by itself once
        none is left pending."""
        own(task_id, who)
        if jobs().busy(task_id):
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
            (recorded,), left = await service.decide(task_id, [request], reviewer=who.name)
        except InputError as exc:
            raise HTTPException(409, str(exc)) from None
        jobs().log.append(
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
                service.remember, task_id, _memory(settings, who.name, body.remember), [diff_id]
            )
            lesson = found[0] if found else None
            remembered = {
                "playbook": body.remember,
                "position": lesson.position.id if lesson and lesson.position else None,
                "why_not": (lesson.why_not if lesson else "nothing to remember: an approval"),
            }
        resumed = not left and jobs().submit("resume", task_id)
        return {
            "diff_id": diff_id,
            "pending": len(left),
            "resumed": resumed,
            "remembered": remembered,
        }

    @app.get("/api/playbooks")
    async def playbooks(who: Authed) -> list[dict[str, Any]]:
        """Your playbooks of remembered decisions: name and the positions each holds."""
        from contract_review.playbook import load_playbook

        folder = _memory(settings, who.name, "x").parent
        out = []
        for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
            book = await asyncio.to_thread(load_playbook, path)
            out.append({"name": path.stem, "positions": [p.id for p in book.positions]})
        return out

    @app.post("/api/reviews/{task_id}/resume", status_code=202)
    async def resume(task_id: str, who: Authed) -> dict[str, Any]:
        """Carry on a review interrupted otherwise than by waiting for decisions."""
        manifest = own(task_id, who)
        if manifest.current_status() == "complete":
            raise HTTPException(409, "the review is complete")
        if not jobs().submit("resume", task_id):
            raise HTTPException(409, "the review is already queued or running")
        return {"task_id": task_id, "status": "queued"}

    @app.get("/api/reviews/{task_id}/outputs/{name}")
    async def output(task_id: str, name: str, who: Authed) -> FileResponse:
        """Download one output (report.html, redline.docx, clean.docx, issues-list.docx,
        findings.xlsx, report.md, findings.json)."""
        manifest = own(task_id, who)
        files = {Path(p).name: Path(p) for p in manifest.outputs.values()}
        if name not in files or not files[name].is_file():
            raise HTTPException(404, f"no output {name} for review {task_id}")
        return FileResponse(files[name], filename=name)

    @app.delete("/api/reviews/{task_id}", status_code=204)
    async def delete(task_id: str, who: Authed) -> Response:
        """Remove the review: its task, checkpoints, events, uploads and outputs."""
        own(task_id, who)
        if jobs().busy(task_id):
            raise HTTPException(409, "the review is running; delete it once it stops")
        await service.delete(task_id)
        jobs().log.delete(task_id)
        shutil.rmtree(_folder(settings, task_id), ignore_errors=True)
        return Response(status_code=204)

    @app.post("/api/portfolios", status_code=202)
    async def new_portfolio(
        who: Authed,
        files: Annotated[
            list[UploadFile],
            File(description="Contracts (.docx, .pdf, .txt, .md) and/or .zip archives of them."),
        ],
        party: Annotated[
            str, Form(description="Whom we act for: a name, a role, aliases 'A|B', or neutral.")
        ] = "neutral",
        domain: Annotated[str, Form(description="generic, fidic or sha_spa.")] = "generic",
        inventory_only: Annotated[
            bool, Form(description="Read only each contract's clause inventory (no risks).")
        ] = False,
    ) -> dict[str, Any]:
        """Upload a portfolio (zips unpacked safely) and start its batch review."""
        return await portfolios.create(who.name, files, party, domain, inventory_only)

    @app.get("/api/portfolios")
    async def portfolio_list(who: Authed) -> list[dict[str, Any]]:
        """The caller's portfolios, newest first."""
        return await asyncio.to_thread(portfolios.mine, who.name)

    @app.get("/api/portfolios/{portfolio_id}")
    async def portfolio(portfolio_id: str, who: Authed) -> dict[str, Any]:
        """Where a portfolio stands: status, done/total; once complete, a row per contract."""
        return await asyncio.to_thread(portfolios.get, portfolio_id, who.name)

    @app.get("/api/portfolios/{portfolio_id}/portfolio.xlsx")
    async def portfolio_xlsx(portfolio_id: str, who: Authed) -> FileResponse:
        """The portfolio's workbook (409 until it is complete)."""
        path = portfolios.download(portfolio_id, who.name, "portfolio.xlsx")
        return FileResponse(path, filename=path.name)

    @app.get("/api/portfolios/{portfolio_id}/portfolio.json")
    async def portfolio_json(portfolio_id: str, who: Authed) -> FileResponse:
        """The portfolio's rows as JSON (409 until it is complete)."""
        path = portfolios.download(portfolio_id, who.name, "portfolio.json")
        return FileResponse(path, filename=path.name)

    @app.delete("/api/portfolios/{portfolio_id}", status_code=204)
    async def portfolio_delete(portfolio_id: str, who: Authed) -> Response:
        """Remove a portfolio that is not running: uploads, outputs, state."""
        await asyncio.to_thread(portfolios.delete, portfolio_id, who.name)
        return Response(status_code=204)

    @app.get("/openapi.json", include_in_schema=False)
    async def openapi(who: Authed) -> JSONResponse:
        """The OpenAPI schema."""
        return JSONResponse(app.openapi())

    @app.get("/docs", include_in_schema=False)
    async def docs(who: Authed) -> HTMLResponse:
        """The API's routes, read from its OpenAPI schema (a page of our own: Swagger UI
        would load from a CDN, and the app works offline)."""
        from contract_review.web.page import render_docs

        return HTMLResponse(render_docs(app.openapi()))

    @app.get("/", response_class=HTMLResponse)
    async def page() -> HTMLResponse:
        """The page (it signs in with a key, then uses the API)."""
        from contract_review.web.page import render_page

        return HTMLResponse(render_page())

    return app
