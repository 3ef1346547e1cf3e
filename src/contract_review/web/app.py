"""The web app: the HTTP API of SPEC-4 §7 and the page that uses it.

A review is uploaded (`POST /api/reviews`), runs in a worker process (see `jobs`), and its
events stream over Server-Sent Events (`GET /api/reviews/{id}/events`, replayed after
`Last-Event-ID`). At an approval round the review parks; each decision
(`POST …/diffs/{diff_id}/decision`) is recorded on arrival, and the review resumes by itself
once the last pending redline is decided. Every operation goes through the task service, as
the command line's do. A portfolio (`POST /api/portfolios`: many contracts, or zips of them)
runs as one batch into one workbook (see `portfolios`). See `docs/web.md` for the routes,
events and security.

The routes live in `routes` (one router per area), what they depend on in `deps`;
`create_app` only assembles them around one shared `deps.WebState`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from contract_review.config import Settings, get_settings
from contract_review.errors import InputError
from contract_review.service import ReviewService
from contract_review.tasks import list_tasks
from contract_review.web.deps import WebState, web_state
from contract_review.web.jobs import Jobs
from contract_review.web.portfolios import Portfolios
from contract_review.web.routes import ROUTERS

__all__ = ["create_app"]

_MAX_FILES = 8
"""The most files one review upload carries (contract, baseline, supplement, playbook, …)."""


async def _recover(state: WebState, jobs: Jobs) -> None:
    """A restarted server carries on its web tasks: queued ones start, ones cut off while
    running resume from their checkpoints, fully decided ones resume."""
    for m in list_tasks(state.settings):
        if m.owner is None:
            continue
        status = m.current_status()
        if status == "queued":
            jobs.submit("start", m.task_id)
        elif (status == "interrupted" and not m.waiting) or (
            m.waiting and not await state.service.pending(m.task_id)
        ):
            jobs.submit("resume", m.task_id)


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    state: WebState = app.state.web
    jobs = Jobs(state.settings)
    state.jobs = jobs
    await _recover(state, jobs)
    state.portfolios.start()
    try:
        yield
    finally:
        state.portfolios.close()
        jobs.close()


async def _input_error(_: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=400)


async def _limit_size(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    # Refused before the body is read: an upload larger than every file could be.
    settings = web_state(request).settings
    length = request.headers.get("content-length", "")
    limit = settings.max_file_bytes * _MAX_FILES
    if request.url.path == "/api/portfolios":  # zips: bounded by what they unpack to
        limit = max(limit, settings.max_uncompressed_bytes)
    if length.isdigit() and int(length) > limit + (1 << 20):
        return JSONResponse({"detail": "the upload is too large"}, status_code=413)
    return await call_next(request)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The web app on `settings` (default: from the environment)."""
    settings = settings or get_settings()
    app = FastAPI(
        title="contract-review",
        description="Contract review engine: upload, live progress, approve each redline.",
        lifespan=_lifespan,
        docs_url=None,  # served by routes.pages, behind a key like every other route
        openapi_url=None,
    )
    app.state.web = WebState(settings, ReviewService(settings), Portfolios(settings))
    app.add_exception_handler(InputError, _input_error)
    app.middleware("http")(_limit_size)
    for router in ROUTERS:
        app.include_router(router)
    return app
