"""`serve`: the web app and its HTTP API."""

from __future__ import annotations

from typing import Annotated

import typer

from contract_review.errors import InputError

from ._common import _err, user_errors

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (loopback by default).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="Port.")] = 8000,
) -> None:
    """Run the web app and its HTTP API (upload, live progress, approve each redline).

    API clients send Authorization: Bearer <key>; keys come from API_KEYS (name=key pairs)
    or API_KEY. Listening beyond this machine needs a key."""
    from contract_review.config import get_settings

    with user_errors():
        settings = get_settings()
        try:
            keys = settings.named_api_keys()
        except ValueError as exc:
            raise InputError(str(exc)) from None
        if host not in _LOOPBACK and not keys:
            raise InputError(
                f"--host {host} reaches beyond this machine: set API_KEYS or API_KEY first"
            )
        try:
            import uvicorn

            from contract_review.web.app import create_app
        except ImportError as exc:
            raise InputError(
                f"the web app needs the server extra (pip install 'contract-review[server]'): "
                f"{exc.name} is missing"
            ) from None
    if not keys:
        _err.print("warning: no API key set (API_KEYS / API_KEY): no one can sign in", markup=False)
    uvicorn.run(create_app(settings), host=host, port=port, log_level="warning")
