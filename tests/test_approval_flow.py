"""Approval that loses nothing: each decision kept when given, decided later with `approve`,
who decided and when recorded, counts and the next step shown by `status` and `list`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.cli.decisions import _TerminalAsk
from contract_review.decisions import DecisionLog, read_decisions_file
from contract_review.errors import InputError
from contract_review.models import DiffStatus, ReviewResult
from tests.conftest import EXAMPLES

runner = CliRunner()

FIDIC = (
    str(EXAMPLES / "fidic" / "particular_conditions_amending_en.txt"),
    "--domain",
    "fidic",
    "--baseline",
    str(EXAMPLES / "fidic" / "general_conditions_en.txt"),
    "--party",
    "Contractor",
)
"""The main job's FIDIC review (six redlines)."""
SUPPLY = (str(EXAMPLES / "generic" / "supply_agreement_en.txt"), "--party", "Buyer")
"""A generic review with three redlines."""


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "state"
    monkeypatch.setenv("STATE_DIR", str(state))
    return state


def _only_task(state: Path) -> str:
    (manifest,) = (state / "tasks").glob("*[0-9a-f].json")
    return str(json.loads(manifest.read_text())["task_id"])


def _result(out: Path) -> ReviewResult:
    return ReviewResult.model_validate_json((out / "findings.json").read_text(encoding="utf-8"))


def _diffs(out: Path) -> dict[str, Any]:
    return {d.diff_id: d for c in _result(out).clauses for d in c.findings.diffs}


def _wait_for(predicate: Any, proc: subprocess.Popen[bytes], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        if proc.poll() is not None:
            pytest.fail(f"the review ended (exit {proc.returncode}) before the test could act")
        time.sleep(0.02)
    pytest.fail("timed out")


def test_a_review_killed_after_three_answers_asks_only_the_fourth_on(
    tmp_path: Path, state_dir: Path
) -> None:
    """Three redlines decided at the terminal, then SIGKILL while the fourth is asked: the
    three are kept, and `approve` asks from the fourth redline on."""
    out = tmp_path / "out"
    env = {**os.environ, "STATE_DIR": str(state_dir), "COLUMNS": "200"}
    command = [sys.executable, "-m", "contract_review.cli", "review", *FIDIC, "--out", str(out)]
    proc = subprocess.Popen(
        [*command, "--approve", "interactive", "--reviewer", "Ada Lovelace"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    # approve, reject with feedback, edit — then the fourth question is left unanswered
    proc.stdin.write(b"a\nr\nKeep the GC period\ne\nwithin 21 days\n")
    proc.stdin.flush()
    tasks = state_dir / "tasks"

    def three_recorded() -> bool:
        logs = list(tasks.glob("*.decisions.jsonl")) if tasks.is_dir() else []
        return bool(logs) and logs[0].read_text(encoding="utf-8").count("\n") == 3

    _wait_for(three_recorded, proc)
    time.sleep(0.3)  # the fourth question is on the screen
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    first_screen = proc.stdout.read().decode()
    proc.stdin.close()
    proc.stdout.close()
    assert "Redline 4/6" in first_screen

    task_id = _only_task(state_dir)
    kept = DecisionLog(task_id).load()
    assert [r.decision.value for r in kept.values()] == ["approve", "reject", "approve"]
    assert {r.reviewer for r in kept.values()} == {"Ada Lovelace"}
    status = runner.invoke(app, ["status", task_id])
    assert "interrupted" in status.output
    assert f"resume {task_id}" in status.output

    again = subprocess.run(
        [sys.executable, "-m", "contract_review.cli", "approve", task_id],
        env=env,
        input=b"a\na\na\n",
        capture_output=True,
        timeout=300,
        check=False,
    )
    screen = again.stdout.decode()
    assert again.returncode == 0, again.stderr.decode()
    assert "Redline 1/3" in screen
    assert "Redline 4/" not in screen
    diffs = _diffs(out)
    for diff_id, request in kept.items():
        diff = diffs[diff_id]
        assert diff.decided_by == "Ada Lovelace"
        assert diff.decided_at == request.decided_at
    rejected = [d for d in diffs.values() if d.status is DiffStatus.REJECTED]
    assert [d.feedback for d in rejected] == ["Keep the GC period"]
    edited = [d for d in diffs.values() if d.edited]
    assert [d.proposed_text for d in edited] == ["within 21 days"]
    assert not [d for d in diffs.values() if d.status is DiffStatus.PENDING]


def test_approve_none_leaves_redlines_pending_then_a_file_decides_them(
    tmp_path: Path, state_dir: Path
) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["review", *SUPPLY, "--approve", "none", "--out", str(out)])
    assert result.exit_code == 0, result.output
    task_id = _only_task(state_dir)
    pending = _diffs(out)
    assert pending
    assert {d.status for d in pending.values()} == {DiffStatus.PENDING}
    assert f"contract-review approve {task_id}" in result.output
    listing = runner.invoke(app, ["list"])
    assert f"redlines: {len(pending)} pending, 0 approved, 0 rejected" in listing.output

    first, second, *rest = sorted(pending)
    decisions = tmp_path / "decisions.csv"
    decisions.write_text(
        "diff_id,decision,feedback,text\n"
        f"{first},reject,Not acceptable to our client,\n"
        f"{second},edit,,our own words\n" + "".join(f"{d},approve,,\n" for d in rest),
        encoding="utf-8",
    )
    done = runner.invoke(
        app, ["approve", task_id, "--decisions", str(decisions), "--reviewer", "J. Roe"]
    )
    assert done.exit_code == 0, done.output
    assert "complete" in done.output
    diffs = _diffs(out)
    assert diffs[first].status is DiffStatus.REJECTED
    assert diffs[first].feedback == "Not acceptable to our client"
    assert diffs[second].status is DiffStatus.APPROVED
    assert diffs[second].edited
    assert diffs[second].proposed_text == "our own words"
    assert all(diffs[d].status is DiffStatus.APPROVED for d in rest)
    assert {diffs[d].decided_by for d in pending} == {"J. Roe"}
    status = runner.invoke(app, ["status", task_id])
    assert "complete" in status.output
    assert "0 pending" in status.output
    again = runner.invoke(app, ["approve", task_id, "--decisions", str(decisions)])
    assert again.exit_code == 2
    assert "complete" in again.output


def test_a_bad_decisions_file_records_nothing(tmp_path: Path, state_dir: Path) -> None:
    out = tmp_path / "out"
    assert (
        runner.invoke(app, ["review", *SUPPLY, "--approve", "none", "--out", str(out)]).exit_code
        == 0
    )
    task_id = _only_task(state_dir)
    some = sorted(_diffs(out))[0]
    bad = tmp_path / "bad.json"
    for content, message in [
        (
            json.dumps(
                [
                    {"diff_id": some, "decision": "approve"},
                    {"diff_id": "rl-nope", "decision": "reject"},
                ]
            ),
            "no pending redline rl-nope",
        ),
        (json.dumps({some: "maybe"}), "must be approve, reject or edit"),
        ("{not json", "not valid JSON"),
    ]:
        bad.write_text(content, encoding="utf-8")
        result = runner.invoke(app, ["approve", task_id, "--decisions", str(bad)])
        assert result.exit_code == 2, result.output
        assert message in result.output
        assert "Traceback" not in result.output
        assert DecisionLog(task_id).load() == {}
    missing = runner.invoke(app, ["approve", task_id, "--decisions", str(tmp_path / "no.csv")])
    assert missing.exit_code == 2
    assert "file not found" in missing.output
    unknown = runner.invoke(app, ["approve", "no-such-task"])
    assert unknown.exit_code == 2


def test_decision_files_in_json_and_csv_forms(tmp_path: Path) -> None:
    forms = {
        "list.json": json.dumps(
            [
                {"diff_id": "rl-1", "decision": "approve"},
                {"diff_id": "rl-2", "decision": "reject", "feedback": "too wide"},
                {"diff_id": "rl-3", "text": "our wording"},
            ]
        ),
        "map.json": json.dumps(
            {
                "rl-1": "approved",
                "rl-2": {"decision": "reject", "feedback": "too wide"},
                "rl-3": {"decision": "edit", "text": "our wording"},
            }
        ),
        "rows.csv": "Diff ID,Decision,Feedback,Text\nrl-1,yes,,\nrl-2,no,too wide,\n"
        "rl-3,edit,,our wording\n",
    }
    for name, content in forms.items():
        path = tmp_path / name
        path.write_text(content, encoding="utf-8")
        got = [
            (r.diff_id, r.decision.value, r.feedback, r.user_modified_text)
            for r in read_decisions_file(path)
        ]
        assert got == [
            ("rl-1", "approve", "", None),
            ("rl-2", "reject", "too wide", None),
            ("rl-3", "approve", "", "our wording"),
        ], name
    empty = tmp_path / "empty.csv"
    empty.write_text("diff_id,decision\n", encoding="utf-8")
    with pytest.raises(InputError, match="no decisions"):
        read_decisions_file(empty)
    no_text = tmp_path / "edit.csv"
    no_text.write_text("diff_id,decision\nrl-1,edit\n", encoding="utf-8")
    with pytest.raises(InputError, match="edit of rl-1 gives no text"):
        read_decisions_file(no_text)


def test_a_log_line_cut_short_by_a_crash_is_skipped(tmp_path: Path) -> None:
    log = DecisionLog("t1")
    log.path.parent.mkdir(parents=True)
    log.path.write_text(
        '{"diff_id":"rl-1","decision":"approve"}\n{"diff_id":"rl-2","decis', encoding="utf-8"
    )
    assert list(log.load()) == ["rl-1"]


class _FakeProgress:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def pause(self) -> None:
        self.calls.append("pause")

    def resume(self) -> None:
        self.calls.append("resume")


def test_the_progress_is_paused_while_asking(monkeypatch: pytest.MonkeyPatch) -> None:
    """The live progress redraws over prompts: it is stopped before the first question and
    started again after the last (also when the person stops half-way)."""
    progress = _FakeProgress()
    answers: Iterator[str] = iter(["a", "s"])

    def prompt(text: str, default: str = "") -> str:
        progress.calls.append("prompt")
        return next(answers)

    monkeypatch.setattr("contract_review.cli.typer.prompt", prompt)
    diff: dict[str, object] = {
        "diff_id": "rl-1",
        "clause_id": "4",
        "original_text": "x",
        "proposed_text": "y",
        "clause_text": "a x b",
    }
    ask = _TerminalAsk(progress)  # type: ignore[arg-type]
    decided = list(ask([diff, {**diff, "diff_id": "rl-2"}]))
    assert [d["diff_id"] for d in decided] == ["rl-1"]  # skipped: decided later
    assert progress.calls == ["pause", "prompt", "prompt", "resume"]
