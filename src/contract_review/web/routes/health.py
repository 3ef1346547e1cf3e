"""Liveness: the one API route that needs no key."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from contract_review.web.deps import JobsDep

__all__ = ["health", "router"]

router = APIRouter()


@router.get("/health")
async def health(jobs: JobsDep) -> dict[str, Any]:
    """Liveness: no key needed."""
    return {"status": "ok", "queued_or_running": jobs.waiting()}
