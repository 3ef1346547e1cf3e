"""The web page: one self-contained HTML file (styles and script inline, nothing from a CDN)
that signs in with an API key and drives the API: upload, live progress, the risks, each
redline with Approve / Reject / Edit, downloads. English and Chinese."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

__all__ = ["render_page"]


@lru_cache(maxsize=1)
def render_page() -> str:
    """The page's HTML (static: every dynamic part comes from the API)."""
    return resources.files(__package__).joinpath("templates/page.html").read_text("utf-8")
