"""Shared test fixtures and paths."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from contract_review.config import get_settings

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
FIXTURES = REPO / "tests" / "fixtures"
CUAD = REPO.parent / "shared" / "data" / "cuad_dev"
POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"


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
