"""Shared test fixtures and paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from contract_review.config import get_settings
from contract_review.models import DocumentStructure
from contract_review.plugins.registry import (
    DomainPlugin,
    clear_plugins,
    list_plugins,
    register_plugin,
)

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
FIXTURES = REPO / "tests" / "fixtures"
CUAD = REPO.parent / "shared" / "data" / "cuad_dev"
POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
GENERIC_SKILLS = frozenset(
    {
        "get_clause_context",
        "resolve_definition",
        "compare_with_baseline",
        "cross_reference_check",
        "extract_financial_terms",
        "search_reference_doc",
        "load_review_criteria",
        "assess_deviation",
        "draft_redline_comment",
        "check_positions",
    }
)
"""The generic skills the engine ships (the design names them)."""


def example_structure(relative: str) -> DocumentStructure:
    """The clause structure of a bundled example (`examples/<relative>`)."""
    from contract_review.structure_parser import StructureParser

    return StructureParser().parse((EXAMPLES / relative).read_text(encoding="utf-8"))


def cuad_records() -> list[dict[str, Any]]:
    """The CUAD dev labels (one record per contract), or [] when the data set is absent."""
    labels = CUAD / "labels.json"
    if not labels.exists():
        return []
    data: list[dict[str, Any]] = json.loads(labels.read_text(encoding="utf-8"))
    return data


@pytest.fixture(autouse=True)
def _fresh_settings() -> None:
    """Each test sees settings read from its own environment."""
    get_settings.cache_clear()


@pytest_asyncio.fixture(params=["memory", "sqlite", "postgres"])
async def saver(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """Each checkpointer the review graph must work with (the same tests run on all three)."""
    if request.param == "memory":
        yield InMemorySaver()
    elif request.param == "sqlite":
        async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "cp.sqlite")) as s:
            yield s
    else:
        async with AsyncPostgresSaver.from_conn_string(POSTGRES) as s:
            await s.setup()
            yield s


@contextmanager
def registered_plugin(plugin: DomainPlugin) -> Iterator[DomainPlugin]:
    """`plugin` registered for the duration of a test; the plugins registered before it are
    registered again afterwards (and nothing else)."""
    saved = list_plugins()
    register_plugin(plugin)
    try:
        yield plugin
    finally:
        clear_plugins()
        for other in saved:
            register_plugin(other)


def run_cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`contract-review ARGS` in a subprocess (its own state folder under `tmp_path`, a wide
    terminal), as a user runs it: exit code, stdout and stderr."""
    env = {**os.environ, "STATE_DIR": str(tmp_path / "state"), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "contract_review.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
