"""Shared test fixtures and paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contract_review.config import get_settings

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
FIXTURES = REPO / "tests" / "fixtures"
CUAD = REPO.parent / "shared" / "data" / "cuad_dev"


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
