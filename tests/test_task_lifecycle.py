"""#13: a task's life — its states, the output folder it holds, outputs written as a set,
clauses saved when reported done, and resume on changed inputs."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.config import Settings
from contract_review.errors import InputError
from contract_review.exports.redline_docx import accept_all_text
from contract_review.models import ReviewResult
from contract_review.review import ReviewOptions, resume_review, start_review
from contract_review.tasks import OutputLock, TaskManifest, list_tasks, load_manifest
from contract_review.testing import FakeLLM, stand_in_responder
from tests.conftest import EXAMPLES, REPO

runner = CliRunner()
SUPPLY = EXAMPLES / "generic" / "supply_agreement_en.txt"


@pytest.fixture(autouse=True)
def _state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))


def _settings(tmp_path: Path, **extra: Any) -> Settings:
    return Settings(state_dir=tmp_path / "state", **extra)


def _review(contract: Path, out: Path, *extra: str) -> Any:
    args = ["review", str(contract), "--party", "Buyer", "--approve", "all", "--out", str(out)]
    return runner.invoke(app, [*args, *extra])


def _findings(out: Path) -> ReviewResult:
    return ReviewResult.model_validate_json((out / "findings.json").read_text("utf-8"))


# --- the output folder ---------------------------------------------------------------------


def test_a_folder_another_task_holds_stops_the_review_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with OutputLock(out, "20261126-101010-abcdef"):
        result = _review(SUPPLY, out)
        assert result.exit_code == 2
        assert "in use by review task 20261126-101010-abcdef" in result.output
        assert "Traceback" not in result.output
        assert not (tmp_path / "state" / "tasks").exists()  # no task was started
        assert not (out / "findings.json").exists()
    assert _review(SUPPLY, out).exit_code == 0  # released with its holder


def test_a_lock_left_by_a_killed_review_is_released(tmp_path: Path) -> None:
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from pathlib import Path\n"
            "from contract_review.tasks import OutputLock\n"
            "with OutputLock(Path(sys.argv[1]), 'killed-task'):\n"
            "    print('held', flush=True)\n"
            "    time.sleep(60)\n",
            str(out),
        ],
        stdout=subprocess.PIPE,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == b"held"
    assert "killed-task" in _review(SUPPLY, out).output  # held: refused, holder named
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    holder.stdout.close()
    result = _review(SUPPLY, out)
    assert result.exit_code == 0, result.output


def test_concurrent_reviews_into_one_folder_never_mix_their_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {**os.environ, "STATE_DIR": str(tmp_path / "state")}
    contracts = [SUPPLY, EXAMPLES / "generic" / "services_agreement_en.md"] * 2
    options = ["--party", "neutral", "--approve", "all", "--out", str(out)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "contract_review.cli", "review", str(c), *options],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for c in contracts
    ]
    errors = [p.communicate(timeout=300)[1].decode() for p in procs]
    codes = [p.returncode for p in procs]
    assert set(codes) <= {0, 2}, errors
    assert 0 in codes
    for code, err in zip(codes, errors, strict=True):
        if code == 2:
            assert "is in use by review task" in err
    task = json.loads((out / "task.json").read_text())["task_id"]
    review = _findings(out)
    assert review.task_id == task  # findings and task note of one review
    manifest = load_manifest(task, _settings(tmp_path))
    assert manifest.status == "complete"
    assert review.primary_filename == Path(manifest.options.file).name
    assert not list(out.glob(".partial-*"))


# --- outputs as a set, task states -----------------------------------------------------------


def test_a_failed_export_writes_nothing_and_the_task_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"

    def broken(*args: Any, **kwargs: Any) -> None:
        raise ValueError("All strings must be XML compatible")

    monkeypatch.setattr("contract_review.exports.outputs.write_redline_docx", broken)
    result = _review(SUPPLY, out)
    assert result.exit_code == 1
    assert "redline.docx could not be written: All strings must be XML compatible" in (
        result.output
    )
    assert "Traceback" not in result.output
    assert sorted(p.name for p in out.iterdir()) == [".contract-review.lock"]
    (task,) = list_tasks(_settings(tmp_path))
    assert task.current_status() == "failed"
    assert "redline.docx" in (task.reason or "")
    status = runner.invoke(app, ["status", task.task_id])
    assert "failed (" in status.output

    monkeypatch.undo()
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))
    resumed = runner.invoke(app, ["resume", task.task_id])
    assert resumed.exit_code == 0, resumed.output
    assert load_manifest(task.task_id, _settings(tmp_path)).status == "complete"
    for name in ("findings.json", "report.md", "report.html", "redline.docx", "task.json"):
        assert (out / name).is_file(), name
    assert _findings(out).is_complete


def test_a_review_stopped_or_waiting_is_interrupted(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    options = ReviewOptions(file=SUPPLY, party="Buyer", approve="interactive", out=tmp_path / "o")

    def walk_away(diffs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(start_review(options, settings=settings, ask=walk_away))
    (task,) = list_tasks(settings)
    assert (task.current_status(), task.reason) == ("interrupted", "stopped by the user")
    assert task.pid is None

    # Nobody to ask: the task waits for decisions (not an error), its outputs show the review
    # as it stands with every redline pending, and it names the command that decides them.
    waiting = asyncio.run(resume_review(task.task_id, settings=settings, ask=None))
    task = load_manifest(task.task_id, settings)
    assert task.status == "interrupted"
    assert task.waiting
    assert task.reason == f"waiting for decisions on {task.counts.pending} redline(s)"
    assert task.counts.pending > 0
    assert task.counts.approved == task.counts.rejected == 0
    assert task.next_step() == f"contract-review approve {task.task_id}"
    assert set(waiting.outputs) >= {"json", "docx", "html", "md"}


def test_a_task_whose_process_is_gone_shows_as_interrupted(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    from contract_review.tasks import save_manifest

    alive = TaskManifest(
        task_id="t-alive",
        created_at="2026-11-26T00:00:00+00:00",
        options=ReviewOptions(file=SUPPLY),
    )
    alive.mark_running()  # this test's own process: alive
    save_manifest(alive, settings)
    manifest = alive.model_copy(update={"task_id": "t-gone", "pid": int(gone.stdout)})
    save_manifest(manifest, settings)
    listing = runner.invoke(app, ["list"])
    lines = {line.split()[0]: line.split()[1] for line in listing.stdout.splitlines()}
    assert lines == {"t-gone": "interrupted", "t-alive": "running"}
    result = runner.invoke(app, ["resume", "t-alive"])
    assert result.exit_code == 2
    assert "still running" in result.output


# --- durable clauses, usage --------------------------------------------------------------------

_KILL_AFTER = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from pathlib import Path
    from contract_review.config import Settings
    from contract_review.review import ReviewOptions, start_review

    contract, out, state, k = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

    def progress(done, total, key):
        print(key, flush=True)
        if done == k:
            os.kill(os.getpid(), signal.SIGKILL)  # the moment the clause is reported done

    options = ReviewOptions(file=Path(contract), party="Buyer", approve="all", out=Path(out))
    asyncio.run(start_review(options, settings=Settings(state_dir=Path(state)), progress=progress))
    """
)


def _killed_after(contract: Path, tmp_path: Path, k: int, env: dict[str, str]) -> list[str]:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _KILL_AFTER,
            str(contract),
            str(tmp_path / "o"),
            str(tmp_path / "state"),
            str(k),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, **env},
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    return proc.stdout.split()


def test_a_clause_reported_done_is_never_redone_after_a_kill(tmp_path: Path) -> None:
    before = _killed_after(SUPPLY, tmp_path, 3, {})
    assert len(before) == 3
    (task,) = list_tasks(_settings(tmp_path))
    assert task.current_status() == "interrupted"
    redone: list[str] = []
    done = asyncio.run(
        resume_review(
            task.task_id,
            settings=_settings(tmp_path),
            progress=lambda n, total, key: redone.append(key),
        )
    )
    assert done.status == "complete"
    assert not set(before) & set(redone)
    reviewed = [c.item.clause_id for c in _findings(tmp_path / "o").clauses]
    assert sorted([*before, *redone]) == sorted(reviewed)


def test_model_calls_of_a_killed_run_still_count(tmp_path: Path) -> None:
    with FakeLLM(responder=stand_in_responder) as llm:
        env = {"LLM_BASE_URL": llm.base_url, "LLM_MODEL": "stand-in", "REVIEW_MAX_CONCURRENCY": "1"}
        _killed_after(SUPPLY, tmp_path, 2, env)
        served_first = len(llm.requests)
        (task,) = list_tasks(_settings(tmp_path))
        assert task.llm_usage is not None
        # Counted after each call: at most the one call in flight at the kill is missing.
        assert served_first - 1 <= task.llm_usage.calls <= served_first
        settings = _settings(tmp_path, llm_base_url=llm.base_url, llm_model="stand-in")
        done = asyncio.run(resume_review(task.task_id, settings=settings))
        served = len(llm.requests)
    assert done.llm_usage is not None
    assert served - 1 <= done.llm_usage.calls <= served
    assert done.llm_usage.calls > served - served_first  # the first run's calls are in it


# --- changed inputs ----------------------------------------------------------------------------


def _decide(decisions: dict[str, str], asked: list[list[str]]) -> Any:
    def ask(diffs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        asked.append([d["diff_id"] for d in diffs])
        return [
            {"diff_id": d["diff_id"], "decision": decisions.get(d["original_text"], "approve")}
            for d in diffs
        ]

    return ask


def test_resume_refuses_a_changed_contract(tmp_path: Path) -> None:
    contract = tmp_path / "supply.txt"
    contract.write_text(SUPPLY.read_text("utf-8"), "utf-8")
    assert _review(contract, tmp_path / "out").exit_code == 0
    (task,) = list_tasks(_settings(tmp_path))
    contract.write_text(contract.read_text("utf-8").replace("40,000 units", "400,000 units"))
    result = runner.invoke(app, ["resume", task.task_id])
    assert result.exit_code == 2
    assert f"{contract} has changed since review task {task.task_id} started" in result.output
    assert "--restart-changed" in result.output
    contract.unlink()
    gone = runner.invoke(app, ["resume", task.task_id])
    assert f"{contract} no longer exists" in gone.output


def test_restart_changed_redoes_only_the_edited_clauses_and_keeps_decisions(
    tmp_path: Path,
) -> None:
    settings = _settings(tmp_path)
    contract = tmp_path / "supply.txt"
    text = SUPPLY.read_text("utf-8")
    contract.write_text(text, "utf-8")
    price = text[text.index("Thereafter, the Supplier may adjust") :].split("\n")[0]
    sole = "Such repair, replacement or credit is the Buyer's sole and exclusive remedy"
    disclaimer = text[text.index("EXCEPT AS EXPRESSLY SET FORTH") :].split("\n")[0]
    options = ReviewOptions(file=contract, party="Buyer", approve="interactive", out=tmp_path / "o")
    asked: list[list[str]] = []
    first = asyncio.run(
        start_review(options, settings=settings, ask=_decide({price: "reject"}, asked))
    )
    reviewed = _findings(tmp_path / "o").clauses
    decided = {
        d.original_text: (d.diff_id, d.status.value) for c in reviewed for d in c.findings.diffs
    }
    assert decided[price][1] == "rejected"
    assert decided[disclaimer][1] == "approved"
    assert any(k.startswith(sole) for k in decided)

    edited = text.replace("40,000 units", "400,000 units").replace(
        sole, "Such repair, replacement or credit is the Buyer's only remedy"
    )
    contract.write_text(edited, "utf-8")
    with pytest.raises(InputError, match="has changed"):
        asyncio.run(resume_review(first.task_id, settings=settings, ask=_decide({}, [])))
    redone: list[str] = []
    asked_again: list[list[str]] = []
    done = asyncio.run(
        resume_review(
            first.task_id,
            settings=settings,
            ask=_decide({}, asked_again),
            progress=lambda n, total, key: redone.append(key),
            restart_changed=True,
        )
    )
    assert done.status == "complete"
    review = _findings(tmp_path / "o")
    # Redone: minimum purchase and warranty, whose text changed, and any clause the shorter
    # warranty article now gives an item of its own; nothing reviewed before and unchanged.
    new_items = {c.item.clause_id for c in review.clauses} - {c.item.clause_id for c in reviewed}
    assert sorted(redone) == sorted({"2", "5", *new_items})
    old_ids = {diff_id for diff_id, _ in decided.values()}
    assert not {i for batch in asked_again for i in batch} & old_ids  # asked only what is new

    after = {d.original_text: d for c in review.clauses for d in c.findings.diffs}
    assert after[price].status.value == "rejected"  # kept, clause unchanged
    assert after[disclaimer].status.value == "approved"  # kept, its words still there
    for diff in (after[price], after[disclaimer]):
        assert diff.start_offset == edited.index(diff.original_text)  # moved with the text
    assert any("no longer applies" in w and sole[:40] in w for w in review.warnings)
    assert "400,000 units" in accept_all_text(tmp_path / "o" / "redline.docx")

    # The same risks as a fresh review of the edited contract, at the same places.
    fresh_out = tmp_path / "fresh"
    fresh = _review(contract, fresh_out)
    assert fresh.exit_code == 0, fresh.output

    def risks(result: ReviewResult) -> list[tuple[str, str, Any]]:
        return sorted(
            (c.item.clause_id, r.description, r.location and r.location.model_dump())
            for c in result.clauses
            for r in c.findings.risks
        )

    assert risks(review) == risks(_findings(fresh_out))
