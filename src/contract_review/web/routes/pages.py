"""The page, and the API's own description: `/docs` and `/openapi.json` (behind a key like
every API route, so they are left out of the schema they serve)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse

from contract_review.web.deps import KeyDep

__all__ = ["docs", "openapi", "page", "router"]

router = APIRouter()


@router.get("/openapi.json", include_in_schema=False)
async def openapi(request: Request, who: KeyDep) -> JSONResponse:
    """The OpenAPI schema."""
    return JSONResponse(request.app.openapi())


@router.get("/docs", include_in_schema=False)
async def docs(request: Request, who: KeyDep) -> HTMLResponse:
    """The API's routes, read from its OpenAPI schema (a page of our own: Swagger UI
    would load from a CDN, and the app works offline)."""
    from contract_review.web.page import render_docs

    return HTMLResponse(render_docs(request.app.openapi()))


@router.get("/", response_class=HTMLResponse)
async def page() -> HTMLResponse:
    """The page (it signs in with a key, then uses the API)."""
    from contract_review.web.page import render_page

    return HTMLResponse(render_page())
