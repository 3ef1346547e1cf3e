"""A review killed with SIGKILL mid-run and resumed gives the same findings as an
uninterrupted one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CUAD

CONTRACT = CUAD / "contracts" / "CERES,INC_01_25_2012-EX-10.20-Collaboration Agreement.txt"
pytestmark = pytest.mark.skipif(not CONTRACT.exists(), reason="CUAD dev data not available")


def _cli(state: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "STATE_DIR": str(state)}
    return subprocess.Popen(
        [sys.executable, "-m", "contract_review.cli", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _clauses(out: Path) -> list[dict[str, Any]]:
    data = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    clauses: list[dict[str, Any]] = data["clauses"]
    return clauses


def test_sigkill_mid_review_then_resume(tmp_path: Path) -> None:
    review = ["review", str(CONTRACT), "--approve", "all", "--party", "Ceres"]
    crashed_state, crashed_out = tmp_path / "s1", tmp_path / "o1"
    proc = _cli(crashed_state, *review, "--out", str(crashed_out))
    db = crashed_state / "checkpoints.sqlite"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists() and db.stat().st_size > 300_000:
            break
        time.sleep(0.02)
    if proc.poll() is not None:
        assert proc.stderr is not None
        proc.stderr.close()
        pytest.fail("the review finished before it could be killed")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.stderr is not None
    proc.stderr.close()
    assert not (crashed_out / "findings.json").exists()

    (manifest,) = (crashed_state / "tasks").glob("*.json")
    task_id = json.loads(manifest.read_text())["task_id"]
    resumed = _cli(crashed_state, "resume", task_id)
    _, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err.decode()
    assert b"complete" in err

    clean_out = tmp_path / "o2"
    clean = _cli(tmp_path / "s2", *review, "--out", str(clean_out))
    _, err = clean.communicate(timeout=300)
    assert clean.returncode == 0, err.decode()
    assert _clauses(crashed_out) == _clauses(clean_out)
