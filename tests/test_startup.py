"""Start-up: the CLI loads the heavy engine libraries only in the commands that use them."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "langgraph",
    "langchain_core",
    "langsmith",
    "openai",
    "httpx",
    "pdfplumber",
    "openpyxl",
    "jieba",
    "bm25s",
    "yaml",
)


def _modules(code: str) -> set[str]:
    probe = f"{code}; import sys, json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return {m.split(".")[0] for m in json.loads(out.strip().splitlines()[-1])}


def test_importing_the_cli_loads_no_heavy_library() -> None:
    loaded = _modules("import contract_review.cli")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_help_and_status_work_without_the_engine() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "contract_review.cli", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert "review" in done.stdout
    loaded = _modules("import contract_review.tasks")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_review_module_still_loads_the_engine() -> None:
    """The public import path is unchanged: `contract_review.review` is the engine."""
    assert "langgraph" in _modules("import contract_review.review")
