"""Transcripts for audit: a review against the local fake endpoint keeps every conversation
(the plan's and each clause's: messages, tool calls with arguments and results, the final
answer, timing, tokens) in the task store; the CLI and the API read them back; the output
folder gets transcripts.jsonl and the report does not; no secret is stored; deleting the task
deletes them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from contract_review.config import Settings
from contract_review.review import delete_task
from contract_review.tasks import list_tasks
from contract_review.testing import FakeLLM, stand_in_responder
from contract_review.transcripts import PLAN, read_transcripts, transcript_path
from contract_review.web.app import create_app
from tests.test_llm_review import SUPPLY

CLI = Path(sys.executable).with_name("contract-review")
SECRET = "sk-audit-secret-0123456789"


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "USE_REACT"))}
    return subprocess.run(
        [str(CLI), *args], env={**base, **env}, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def reviewed(tmp_path: Path) -> tuple[dict[str, str], str, Path]:
    """A review in LLM mode (the fake endpoint's stand-in reviewer): env, task id, output."""
    contract = tmp_path / "supply.txt"
    contract.write_text(SUPPLY.format(injection=""), encoding="utf-8")
    out = tmp_path / "out"
    with FakeLLM(responder=stand_in_responder) as fake:
        env = {
            "LLM_BASE_URL": fake.base_url,
            "LLM_API_KEY": SECRET,
            "LLM_MODEL": "fake-model",
            "STATE_DIR": str(tmp_path / "state"),
        }
        args = ["review", str(contract), "--party", "Supplier", "--approve", "all"]
        done = _cli([*args, "--out", str(out)], env)
    assert done.returncode == 0, done.stderr
    (task,) = list_tasks(Settings(state_dir=tmp_path / "state"))
    return env, task.task_id, out


def test_every_conversation_is_kept_and_read_back(
    reviewed: tuple[dict[str, str], str, Path],
) -> None:
    env, task_id, out = reviewed
    settings = Settings(state_dir=Path(env["STATE_DIR"]))
    entries = read_transcripts(task_id, settings)
    findings = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    llm_clauses = {
        c["item"]["clause_id"]
        for c in findings["clauses"]
        if c["findings"]["analysis_mode"] == "llm"
    }
    assert llm_clauses
    by_clause = {e["clause_id"]: e for e in entries}
    assert set(by_clause) == {PLAN, *llm_clauses}
    plan = by_clause[PLAN]
    assert plan["kind"] == "plan"
    assert plan["messages"][-1]["role"] == "assistant"
    assert json.loads(plan["final_answer"])  # the stand-in's plan, as it answered
    clause = by_clause["2"]
    assert clause["model"] == "fake-model"
    assert clause["messages"][0]["role"] == "system"
    assert "90 days of receipt" in clause["messages"][1]["content"]  # what the model was shown
    calls = clause["tool_calls"]
    assert {c["name"] for c in calls} >= {"get_clause_context"}
    assert all("args" in c and c["result"] for c in calls)  # arguments and what came back
    assert clause["final_answer"].startswith("[")
    assert len(clause["turns"]) == 2
    assert all(t["prompt_tokens"] and t["seconds"] >= 0 for t in clause["turns"])
    assert clause["tokens"]["prompt"] == sum(t["prompt_tokens"] for t in clause["turns"])
    assert clause["plan"]["depth"] in ("quick", "standard", "deep")
    # the audit file beside the outputs; the client's report says nothing of it
    exported = (out / "transcripts.jsonl").read_text(encoding="utf-8")
    assert exported == transcript_path(task_id, settings).read_text(encoding="utf-8")
    system_prompt = clause["messages"][0]["content"][:60]
    for report in ("report.md", "report.html"):
        text = (out / report).read_text(encoding="utf-8")
        assert system_prompt not in text
        assert calls[0]["result"][:40] not in text
    # no secret in the transcript (the key went in every request's header)
    assert SECRET not in exported


def test_the_cli_and_the_api_read_transcripts(
    reviewed: tuple[dict[str, str], str, Path],
) -> None:
    env, task_id, _ = reviewed
    listing = _cli(["transcript", task_id], env)
    assert listing.returncode == 0, listing.stderr
    assert PLAN in listing.stdout
    assert "2  1 run(s)  2 round(s)" in listing.stdout
    one = _cli(["transcript", task_id, "2"], env)
    assert one.returncode == 0, one.stderr
    assert "-- assistant calls get_clause_context(" in one.stdout
    assert "-- tool\n" in one.stdout
    assert "90 days of receipt" in one.stdout
    raw = _cli(["transcript", task_id, "2", "--json"], env)
    assert [json.loads(line)["clause_id"] for line in raw.stdout.splitlines()] == ["2"]
    missing = _cli(["transcript", task_id, "99"], env)
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"error: no transcript of clause 99 in task {task_id}"
    unknown = _cli(["transcript", "no-such-task"], env)
    assert unknown.returncode == 2
    # the API: a task the key does not own is not found; the owner reads the same entries
    settings = Settings(state_dir=Path(env["STATE_DIR"]), api_key=SecretStr("k"))
    manifest_path = Path(env["STATE_DIR"]) / "tasks" / f"{task_id}.json"
    manifest: dict[str, Any] = json.loads(manifest_path.read_text(encoding="utf-8"))
    auth = {"Authorization": "Bearer k"}
    with TestClient(create_app(settings)) as client:
        assert client.get(f"/api/reviews/{task_id}/transcripts", headers=auth).status_code == 404
        manifest["owner"] = "default"
        manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
        rows = client.get(f"/api/reviews/{task_id}/transcripts", headers=auth).json()
        assert {r["clause_id"] for r in rows} >= {PLAN, "2"}
        got = client.get(f"/api/reviews/{task_id}/transcripts/2", headers=auth)
        assert got.status_code == 200
        assert got.json()[0]["tool_calls"]
        none = client.get(f"/api/reviews/{task_id}/transcripts/99", headers=auth)
        assert none.status_code == 404


@pytest.mark.asyncio
async def test_deleting_the_task_deletes_its_transcripts(
    reviewed: tuple[dict[str, str], str, Path],
) -> None:
    env, task_id, _ = reviewed
    settings = Settings(state_dir=Path(env["STATE_DIR"]))
    assert transcript_path(task_id, settings).is_file()
    await delete_task(task_id, settings)
    assert not transcript_path(task_id, settings).exists()
