"""What the web app's routes depend on, as FastAPI dependencies: the app's shared state (its
settings, the review service, the jobs, the portfolios), the caller's key name (a Bearer key
or the session cookie with its CSRF check, see `auth`) and a review the caller owns.

`create_app` puts one `WebState` on `app.state.web`; the routes read it only through these
dependencies, so nothing here is a module global.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request

from contract_review.config import Settings
from contract_review.errors import InputError
from contract_review.service import ReviewService
from contract_review.tasks import TaskManifest, load_manifest
from contract_review.web.auth import authenticate
from contract_review.web.jobs import Jobs
from contract_review.web.portfolios import Portfolios

__all__ = [
    "JobsDep",
    "KeyDep",
    "PortfoliosDep",
    "ReviewDep",
    "ServiceDep",
    "SettingsDep",
    "StateDep",
    "WebState",
    "app_settings",
    "caller_key",
    "get_jobs",
    "get_portfolios",
    "get_service",
    "owned_review",
    "web_state",
]


@dataclass
class WebState:
    """What every request of one app shares. `jobs` is set while the app runs (its lifespan
    starts the worker processes, so they never outlive or precede the server)."""

    settings: Settings
    service: ReviewService
    portfolios: Portfolios
    jobs: Jobs | None = None


def web_state(request: Request) -> WebState:
    """The app's shared state (also read by the size-limiting middleware, which has no
    dependencies)."""
    state: WebState = request.app.state.web
    return state


StateDep = Annotated[WebState, Depends(web_state)]


def app_settings(state: StateDep) -> Settings:
    """The app's settings."""
    return state.settings


def get_service(state: StateDep) -> ReviewService:
    """The task service every operation goes through (as the command line's do)."""
    return state.service


def get_jobs(state: StateDep) -> Jobs:
    """The queue of review jobs (only while the app runs)."""
    if state.jobs is None:
        raise RuntimeError("the web app's jobs run only inside its lifespan")
    return state.jobs


def get_portfolios(state: StateDep) -> Portfolios:
    """The app's portfolios."""
    return state.portfolios


SettingsDep = Annotated[Settings, Depends(app_settings)]
ServiceDep = Annotated[ReviewService, Depends(get_service)]
JobsDep = Annotated[Jobs, Depends(get_jobs)]
PortfoliosDep = Annotated[Portfolios, Depends(get_portfolios)]


def caller_key(request: Request, settings: SettingsDep) -> str:
    """The name of the key a request acts as: a valid API key or session (401), with the
    session's CSRF token when it changes something (403)."""
    return authenticate(request, settings).name


KeyDep = Annotated[str, Depends(caller_key)]
"""A route's caller, by key name."""


def owned_review(task_id: str, key: KeyDep, settings: SettingsDep) -> TaskManifest:
    """The review `task_id` of the caller; 404 when there is none, and when it is another
    key's (a task is never shown to another key, not even that it exists)."""
    try:
        manifest = load_manifest(task_id, settings)
    except InputError:
        raise HTTPException(404, f"no review {task_id}") from None
    if manifest.owner != key:
        raise HTTPException(404, f"no review {task_id}")
    return manifest


ReviewDep = Annotated[TaskManifest, Depends(owned_review)]
"""The review of the path's `task_id`, owned by the caller."""
