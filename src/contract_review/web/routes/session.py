"""Signing the page in: an API key gives a session cookie and its CSRF token (see `auth`)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field

from contract_review.web.auth import COOKIE, csrf_token, key_name, session_cookie
from contract_review.web.deps import KeyDep, SettingsDep

__all__ = ["SessionIn", "router", "session", "sign_in"]

router = APIRouter()


class SessionIn(BaseModel):
    """Signing in the page with an API key."""

    key: str = Field(description="An API key.")


@router.post("/api/session")
async def sign_in(
    body: SessionIn, request: Request, response: Response, settings: SettingsDep
) -> dict[str, str]:
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


@router.get("/api/session")
async def session(request: Request, who: KeyDep, settings: SettingsDep) -> dict[str, str]:
    """Who the session is, and its CSRF token."""
    cookie = request.cookies.get(COOKIE, "")
    key = settings.named_api_keys()[who]
    return {"name": who, "csrf": csrf_token(cookie, key) if cookie else ""}
