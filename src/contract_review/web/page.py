"""The web page: one self-contained HTML file (styles and script inline, nothing from a CDN)
that signs in with an API key and drives the API: upload, live progress, the risks, each
redline with Approve / Reject / Edit, downloads. English and Chinese."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["render_docs", "render_page"]


@lru_cache(maxsize=1)
def render_page() -> str:
    """The page's HTML (static: every dynamic part comes from the API)."""
    return resources.files(__package__).joinpath("templates/page.html").read_text("utf-8")


def render_docs(schema: dict[str, Any]) -> str:
    """The API's routes as one HTML page: method, path, summary, parameters, request body."""
    import jinja2

    template = jinja2.Environment(autoescape=True).from_string(
        resources.files(__package__).joinpath("templates/docs.html").read_text("utf-8")
    )
    return template.render(schema=schema)
