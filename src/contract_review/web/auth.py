"""Who is calling the web app: an API key (Bearer) or the page's session cookie.

Keys come from the settings (`API_KEYS` name=key pairs, `API_KEY` as 'default'). The page signs
in once with a key and gets an HttpOnly, SameSite=Strict cookie — the browser's EventSource
cannot send headers — signed with that key, so a server restart keeps sessions and a key
removed from the settings ends its sessions. A request authenticated by the cookie that
changes something must carry the session's CSRF token in `X-CSRF-Token`.
"""

from __future__ import annotations

import hashlib
import hmac
import time

from fastapi import HTTPException, Request

from contract_review.config import Settings

__all__ = [
    "COOKIE",
    "CSRF_HEADER",
    "Caller",
    "authenticate",
    "csrf_token",
    "key_name",
    "session_cookie",
]

COOKIE = "cr_session"
CSRF_HEADER = "X-CSRF-Token"
_SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


class Caller:
    """The key name a request acts as, and how it proved it."""

    def __init__(self, name: str, by_cookie: bool) -> None:
        """`name` of the key; `by_cookie` when the session cookie carried it."""
        self.name = name
        self.by_cookie = by_cookie


def _sign(key: str, message: str) -> str:
    return hmac.new(key.encode(), message.encode(), hashlib.sha256).hexdigest()


def session_cookie(name: str, key: str) -> str:
    """A session cookie value for key `name`."""
    issued = str(int(time.time()))
    return f"{name}.{issued}.{_sign(key, f'session:{name}:{issued}')}"


def csrf_token(cookie: str, key: str) -> str:
    """The CSRF token of a session."""
    return _sign(key, f"csrf:{cookie}")[:40]


def key_name(keys: dict[str, str], token: str) -> str | None:
    """The name of the key `token` is, compared in constant time; None if it is none."""
    found = None
    for name, key in keys.items():
        if hmac.compare_digest(key.encode(), token.encode()):
            found = name
    return found


def authenticate(request: Request, settings: Settings) -> Caller:
    """The caller of `request`, or a 401 (no or a wrong key) / 403 (a cookie request that
    changes something without its CSRF token)."""
    keys = settings.named_api_keys()
    header = request.headers.get("authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        name = key_name(keys, token.strip()) if scheme.lower() == "bearer" else None
        if name is None:
            raise HTTPException(401, "the API key is not valid")
        return Caller(name, by_cookie=False)
    cookie = request.cookies.get(COOKIE, "")
    name, _, rest = cookie.partition(".")
    issued, _, signature = rest.partition(".")
    key = keys.get(name)
    if (
        not cookie
        or key is None
        or not hmac.compare_digest(signature, _sign(key, f"session:{name}:{issued}"))
    ):
        raise HTTPException(401, "sign in with an API key (Authorization: Bearer <key>)")
    if request.method not in _SAFE:
        sent = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(sent, csrf_token(cookie, key)):
            raise HTTPException(403, f"missing or wrong {CSRF_HEADER} header")
    return Caller(name, by_cookie=True)
