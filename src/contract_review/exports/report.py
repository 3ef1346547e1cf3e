"""The review report: report.html and report.md from Jinja2 templates, plus findings.json.

Both reports are rendered from one `ReviewView` (see `exports.issues`) in the contract's
language: a first page with the verdict (top issues, counts by severity, what was checked and
how, what could not be), then the issues clause by clause — title, the contract's words, why it
matters, our position and fallback, the change in its sentence, the decision with feedback, who
decided and when. HTML is autoescaped; Markdown escapes what could become markup (raw HTML,
links, images). findings.json is the `ReviewResult` itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from contract_review.exports.issues import ReviewView, build_view, decision_text
from contract_review.models import ReviewResult

__all__ = ["REPORT_FILES", "render_html", "render_markdown", "write_reports"]

REPORT_FILES = {"html": "report.html", "md": "report.md", "json": "findings.json"}
_SPACE = re.compile(r"\s+")


def _md(text: object) -> str:
    """Text for Markdown, on one line: verbatim except `<` (raw HTML cannot take effect) and
    the brackets of links (`[x](javascript:…)` in a contract must not become a live link or
    an image in the report)."""
    escaped = str(text).replace("<", "&lt;").replace("[", "\\[").replace("]", "\\]")
    return _SPACE.sub(" ", escaped)  # spaces at the ends kept: pieces join into a sentence


def _strike(text: object) -> str:
    """Struck-out text (`~~…~~`): the spaces at its ends stay outside the marks, where
    Markdown needs them for the strike to close."""
    escaped = _md(text)
    core = escaped.strip()
    if not core:
        return escaped
    head = escaped[: len(escaped) - len(escaped.lstrip())]
    tail = escaped[len(escaped.rstrip()) :]
    return f"{head}~~{core}~~{tail}"


def _cell(text: object) -> str:
    """Text for a Markdown table cell."""
    return _md(text).replace("|", "\\|")


def _quote(text: object, indent: str = "") -> str:
    """A blockquote holding `text` verbatim, line by line."""
    escaped = str(text).replace("<", "&lt;").replace("[", "\\[").replace("]", "\\]")
    return "\n".join(f"{indent}> {line}".rstrip() for line in escaped.split("\n"))


@lru_cache(maxsize=2)
def _environment(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("contract_review.exports", "templates"),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
        lstrip_blocks=False,
        keep_trailing_newline=True,
    )
    env.filters.update(md=_md, cell=_cell, quote=_quote, strike=_strike)
    return env


def _inventory_rows(view: ReviewView) -> list[dict[str, Any]]:
    inventory = view.result.inventory
    if inventory is None:
        return []
    from contract_review.plugins.generic.inventory import category_title

    return [
        {
            "category": category_title(e.category, view.language),
            "present": e.present,
            "clauses": ", ".join(e.clause_ids),
            "value": e.value,
        }
        for e in inventory.entries
    ]


def _render(view: ReviewView, template: str, autoescape: bool) -> str:
    text = (
        _environment(autoescape)
        .get_template(template)
        .render(
            view=view,
            decision=lambda p: decision_text(view.m, p),
            inventory=_inventory_rows(view),
        )
    )
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n") + "\n"


def render_html(review: ReviewResult | ReviewView) -> str:
    """The report as one self-contained HTML page (styles inline, no scripts)."""
    view = review if isinstance(review, ReviewView) else build_view(review)
    return _render(view, "report.html.j2", autoescape=True)


def render_markdown(review: ReviewResult | ReviewView) -> str:
    """The report as Markdown."""
    view = review if isinstance(review, ReviewView) else build_view(review)
    return _render(view, "report.md.j2", autoescape=False)


def write_reports(review: ReviewResult | ReviewView, out_dir: Path) -> dict[str, Path]:
    """Write findings.json, report.md and report.html into `out_dir` (created if missing).

    Returns the paths by kind: {"html": ..., "md": ..., "json": ...}.
    """
    view = review if isinstance(review, ReviewView) else build_view(review)
    out_dir.mkdir(parents=True, exist_ok=True)
    renderers: dict[str, Callable[[], str]] = {
        "html": lambda: render_html(view),
        "md": lambda: render_markdown(view),
        "json": lambda: view.result.model_dump_json(indent=2) + "\n",
    }
    paths: dict[str, Path] = {}
    for kind, render in renderers.items():
        # One report in memory at a time: those of a large contract run to hundreds of MB.
        path = out_dir / REPORT_FILES[kind]
        path.write_text(render(), encoding="utf-8", newline="\n")
        paths[kind] = path
    return paths
