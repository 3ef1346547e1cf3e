"""The HTTP API (SPEC-4 §7): every route, keys and ownership, upload limits, decisions one at
a time with the review resuming by itself, SSE replay after Last-Event-ID, a restarted server
carrying on, deletion."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from contract_review.config import Settings
from contract_review.exports.redline_docx import accept_all_text
from contract_review.models import ApprovalRequest, Decision
from contract_review.review import record_decisions
from contract_review.tasks import load_manifest
from contract_review.web.app import create_app
from tests.conftest import EXAMPLES

FIDIC = EXAMPLES / "fidic"
ALICE = {"Authorization": "Bearer alice-key"}
BOB = {"Authorization": "Bearer bob-key"}


def _settings(tmp_path: Path, **extra: Any) -> Settings:
    return Settings(
        state_dir=tmp_path / "state",
        api_keys=SecretStr("alice=alice-key,bob=bob-key"),
        use_react_agent=False,
        llm_base_url=None,
        web_workers=2,
        **extra,
    )


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(tmp_path))) as c:
        yield c


def _fidic(c: TestClient, headers: dict[str, str] = ALICE) -> str:
    pc = FIDIC / "particular_conditions_amending_en.txt"
    gc = FIDIC / "general_conditions_en.txt"
    r = c.post(
        "/api/reviews",
        headers=headers,
        data={"party": "Contractor", "domain": "fidic"},
        files={"contract": (pc.name, pc.read_bytes()), "baseline": (gc.name, gc.read_bytes())},
    )
    assert r.status_code == 202, r.text
    return str(r.json()["task_id"])


def _until(
    c: TestClient, task_id: str, done: Any, headers: dict[str, str] = ALICE
) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state: dict[str, Any] = c.get(f"/api/reviews/{task_id}", headers=headers).json()
        if done(state):
            return state
        time.sleep(0.2)
    pytest.fail(f"review {task_id} did not get there: {state}")


def _waiting(state: dict[str, Any]) -> bool:
    return bool(state["waiting"]) or state["status"] in ("failed", "complete")


def _events(c: TestClient, task_id: str, headers: dict[str, str]) -> list[tuple[int, str]]:
    with c.stream("GET", f"/api/reviews/{task_id}/events", headers=headers) as response:
        assert response.status_code == 200
        text = "".join(response.iter_text())
    events: list[tuple[int, str]] = []
    current: dict[str, Any] = {}
    for line in text.splitlines():
        if line.startswith("id:"):
            current["id"] = int(line[3:].strip())
        elif line.startswith("event:"):
            current["event"] = line[6:].strip()
        elif not line.strip() and current:
            if "id" in current:
                events.append((current["id"], current["event"]))
            current = {}
    return events


def test_keys_guard_every_route_but_health_and_the_page(client: TestClient) -> None:
    assert client.get("/health").status_code == 200
    page = client.get("/")
    assert page.status_code == 200
    assert "<script>" in page.text
    assert "cdn" not in page.text.lower()
    for method, path in [
        ("GET", "/api/reviews"),
        ("POST", "/api/reviews"),
        ("GET", "/api/reviews/x"),
        ("GET", "/api/reviews/x/events"),
        ("POST", "/api/reviews/x/diffs/d/decision"),
        ("DELETE", "/api/reviews/x"),
    ]:
        assert client.request(method, path).status_code == 401, path
        wrong = {"Authorization": "Bearer nope"}
        response = client.request(method, path, headers=wrong)
        assert response.status_code == 401, path
        assert response.json()["detail"]
    assert client.get("/docs").status_code == 401  # like every route: a key first
    docs = client.get("/docs", headers=ALICE)
    assert docs.status_code == 200
    assert "/api/reviews/{task_id}/diffs/{diff_id}/decision" in docs.text
    assert "cdn" not in docs.text.lower()
    schema = client.get("/openapi.json", headers=ALICE).json()
    assert "/api/reviews/{task_id}/events" in schema["paths"]


def test_uploads_are_checked_before_any_work(tmp_path: Path) -> None:
    with TestClient(create_app(_settings(tmp_path, max_file_mb=0.01))) as c:
        big = c.post(
            "/api/reviews",
            headers=ALICE,
            data={"party": "Buyer"},
            files={"contract": ("big.txt", b"x" * 20_000)},
        )
        assert big.status_code == 413
        exe = c.post(
            "/api/reviews",
            headers=ALICE,
            data={"party": "Buyer"},
            files={"contract": ("tool.exe", b"MZ...")},
        )
        assert exe.status_code == 415
        assert "unsupported type" in exe.json()["detail"]
        bad = c.post(
            "/api/reviews",
            headers=ALICE,
            data={"party": "Buyer", "domain": "fidic", "subtype": "spa"},
            files={"contract": ("a.txt", b"1. Terms\n")},
        )
        assert bad.status_code == 422
        assert c.get("/api/reviews", headers=ALICE).json() == []
    # a file name is never a path: '../../x.txt' lands in the task's own folder
    with TestClient(create_app(_settings(tmp_path / "b"))) as c:
        contract = (EXAMPLES / "generic" / "supply_agreement_en.txt").read_bytes()
        r = c.post(
            "/api/reviews",
            headers=ALICE,
            data={"party": "Buyer"},
            files={"contract": ("../../escape.txt", contract)},
        )
        assert r.status_code == 202
        manifest = load_manifest(r.json()["task_id"], _settings(tmp_path / "b"))
        stored = manifest.options.file.resolve()
        assert stored.is_relative_to((tmp_path / "b" / "state" / "web").resolve())
        assert stored.name == "escape.txt"
        assert not (tmp_path / "escape.txt").exists()


def test_a_review_from_upload_to_decisions_to_the_redline(client: TestClient) -> None:
    task = _fidic(client)
    state = _until(client, task, _waiting)
    assert state["waiting"], state
    assert "report.html" in state["outputs"]
    pending = client.get(f"/api/reviews/{task}/diffs?status=pending", headers=ALICE).json()
    assert len(pending) >= 3
    first, second, third, *rest = pending
    decisions = [
        (first, {"decision": "approve"}),
        (second, {"decision": "reject", "feedback": "Keep it as drafted"}),
        (third, {"decision": "edit", "text": "within 35 days"}),
        *((d, {"decision": "approve"}) for d in rest),
    ]
    for n, (diff, body) in enumerate(decisions):
        r = client.post(
            f"/api/reviews/{task}/diffs/{diff['diff_id']}/decision", headers=ALICE, json=body
        )
        assert r.status_code == 200, r.text
        assert r.json()["pending"] == len(decisions) - n - 1
        assert r.json()["resumed"] == (n == len(decisions) - 1)
    state = _until(client, task, lambda s: s["status"] in ("complete", "failed"))
    assert state["status"] == "complete", state
    assert state["counts"]["rejected"] == 1
    docx = client.get(f"/api/reviews/{task}/outputs/redline.docx", headers=ALICE)
    assert docx.status_code == 200
    path = Path(client.app.state.web.settings.state_dir) / "dl.docx"  # type: ignore[attr-defined]
    path.write_bytes(docx.content)
    accepted = accept_all_text(path)
    assert '"within 35 days"' in accepted  # the edit, as an amendment instruction
    diffs = {
        d["diff_id"]: d for d in client.get(f"/api/reviews/{task}/diffs", headers=ALICE).json()
    }
    assert diffs[second["diff_id"]]["status"] == "rejected"
    assert diffs[second["diff_id"]]["feedback"] == "Keep it as drafted"
    assert diffs[first["diff_id"]]["decided_by"] == "alice"
    findings = client.get(f"/api/reviews/{task}/findings", headers=ALICE)
    assert findings.json()["is_complete"] is True
    # decisions after the end, and on unknown redlines, are refused
    late = client.post(
        f"/api/reviews/{task}/diffs/{first['diff_id']}/decision",
        headers=ALICE,
        json={"decision": "approve"},
    )
    assert late.status_code == 409
    edit = client.post(
        f"/api/reviews/{task}/diffs/x/decision", headers=ALICE, json={"decision": "edit"}
    )
    assert edit.status_code == 422
    # every event has an id; a client that reconnects gets what it missed
    events = _events(client, task, ALICE)
    kinds = [kind for _, kind in events]
    for kind in (
        "queued",
        "started",
        "progress",
        "approval_required",
        "decision",
        "review_complete",
    ):
        assert kind in kinds, kind
    ids = [i for i, _ in events]
    assert ids == sorted(ids)
    middle = ids[len(ids) // 2]
    with client.stream(
        "GET", f"/api/reviews/{task}/events", headers={**ALICE, "Last-Event-ID": str(middle)}
    ) as response:
        replay = "".join(response.iter_text())
    replayed = [int(line[3:]) for line in replay.splitlines() if line.startswith("id:")]
    assert replayed == [i for i in ids if i > middle]


def test_a_task_is_visible_only_to_its_key(client: TestClient) -> None:
    contract = EXAMPLES / "generic" / "supply_agreement_en.txt"
    r = client.post(
        "/api/reviews",
        headers=ALICE,
        data={"party": "Buyer"},
        files={"contract": (contract.name, contract.read_bytes())},
    )
    task = r.json()["task_id"]
    for method, path in [
        ("GET", f"/api/reviews/{task}"),
        ("GET", f"/api/reviews/{task}/events"),
        ("GET", f"/api/reviews/{task}/diffs"),
        ("GET", f"/api/reviews/{task}/outputs/report.html"),
        ("DELETE", f"/api/reviews/{task}"),
    ]:
        assert client.request(method, path, headers=BOB).status_code == 404, path
    assert client.get("/api/reviews", headers=BOB).json() == []
    assert [t["task_id"] for t in client.get("/api/reviews", headers=ALICE).json()] == [task]
    _until(client, task, _waiting)
    # resume is for reviews stopped otherwise: a complete one is refused, a waiting one parks
    # again at the same decisions
    assert client.post(f"/api/reviews/{task}/resume", headers=BOB).status_code == 404
    again = client.post(f"/api/reviews/{task}/resume", headers=ALICE)
    assert again.status_code == 202
    state = _until(client, task, _waiting)
    assert state["waiting"]
    assert client.delete(f"/api/reviews/{task}", headers=ALICE).status_code == 204
    assert client.get(f"/api/reviews/{task}", headers=ALICE).status_code == 404
    folder = Path(client.app.state.web.settings.state_dir) / "web" / task  # type: ignore[attr-defined]
    assert not folder.exists()


def test_the_page_session_needs_its_csrf_token(client: TestClient) -> None:
    assert client.post("/api/session", json={"key": "wrong"}).status_code == 401
    signed = client.post("/api/session", json={"key": "alice-key"})
    assert signed.status_code == 200
    cookie = signed.headers["set-cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie or "SameSite=Strict" in cookie
    csrf = signed.json()["csrf"]
    assert client.get("/api/reviews").status_code == 200  # the cookie signs GETs
    assert client.get("/api/session").json() == {"name": "alice", "csrf": csrf}
    contract = EXAMPLES / "generic" / "supply_agreement_en.txt"
    files = {"contract": (contract.name, contract.read_bytes())}
    refused = client.post("/api/reviews", data={"party": "Buyer"}, files=files)
    assert refused.status_code == 403
    accepted = client.post(
        "/api/reviews", data={"party": "Buyer"}, files=files, headers={"X-CSRF-Token": csrf}
    )
    assert accepted.status_code == 202


def test_a_restarted_server_carries_on(tmp_path: Path) -> None:
    """Decisions recorded while no server ran (or just before it stopped) are applied by the
    next server, which resumes the review from its checkpoint."""
    settings = _settings(tmp_path)
    with TestClient(create_app(settings)) as first:
        task = _fidic(first)
        _until(first, task, _waiting)
        pending = first.get(f"/api/reviews/{task}/diffs?status=pending", headers=ALICE).json()
    # the server is gone; the decisions arrived (recorded in the task's log) before it stopped
    record_decisions(
        task,
        [ApprovalRequest(diff_id=d["diff_id"], decision=Decision.APPROVE) for d in pending],
        pending,
        reviewer="alice",
        settings=settings,
    )
    with TestClient(create_app(settings)) as second:
        state = _until(second, task, lambda s: s["status"] in ("complete", "failed"))
        assert state["status"] == "complete", state
        assert state["counts"]["approved"] == len(pending)


def test_a_review_cut_off_while_running_is_resumed_by_the_next_server(tmp_path: Path) -> None:
    """A server killed mid-review leaves a task 'running' whose process is gone: the next
    server resumes it from its checkpoint (here: killed before the first one)."""
    import socket
    import subprocess
    import sys

    from contract_review.tasks import ReviewOptions, TaskManifest, save_manifest

    settings = _settings(tmp_path)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    contract = tmp_path / "supply.txt"
    contract.write_bytes((EXAMPLES / "generic" / "supply_agreement_en.txt").read_bytes())
    manifest = TaskManifest(
        task_id="20990101-000000-abcdef",
        created_at="2099-01-01T00:00:00+00:00",
        options=ReviewOptions(file=contract, party="Buyer", approve="none", out=tmp_path / "out"),
        status="running",
        owner="alice",
        pid=int(gone.stdout),
        host=socket.gethostname(),
    )
    save_manifest(manifest, settings)
    with TestClient(create_app(settings)) as c:
        state = _until(c, manifest.task_id, _waiting)
        assert state["waiting"], state
        assert state["counts"]["pending"] > 0


def test_serve_refuses_to_listen_beyond_this_machine_without_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from typer.testing import CliRunner

    from contract_review.cli import app
    from contract_review.config import get_settings

    monkeypatch.delenv("API_KEYS", raising=False)
    monkeypatch.delenv("API_KEY", raising=False)
    get_settings.cache_clear()
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"])
    get_settings.cache_clear()
    assert result.exit_code == 2
    assert "set API_KEYS or API_KEY" in result.output
