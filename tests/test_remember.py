"""Decisions that teach: a lawyer's edit and rejection with feedback kept as amended positions
in a playbook file they name; a later review with that file proposes their wording, gives
their reasons, and says which remembered positions applied; a review without it is
unchanged; the agent's prompt carries the remembered wording; the web API keeps each key's
remembered playbooks apart."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient
from pydantic import SecretStr

from contract_review.config import Settings
from contract_review.graph.prompts import build_react_agent_messages
from contract_review.playbook import Position, Remembered, Wording, load_playbook
from contract_review.web.app import create_app
from tests.conftest import EXAMPLES, run_cli

SUPPLY = EXAMPLES / "generic" / "supply_agreement_en.txt"
WORDING = "the Supplier may adjust prices only with the Buyer's prior written consent."
FEEDBACK = "Our client accepts repair as the sole remedy for minor defects; add a refund right."
OTHER = """DISTRIBUTION AGREEMENT

This Distribution Agreement is made between Northfield Instruments GmbH (the "Supplier") and Coastal Medical Supplies Ltd (the "Buyer").

1. PRODUCTS
1.1 The Supplier shall sell the Products listed in Annex A to the Buyer.

2. PRICES
2.1 The prices are set out in Annex B.
2.2 The Supplier may increase the prices at any time by written notice to the Buyer.

3. GOVERNING LAW
3.1 This Agreement is governed by the laws of Germany.
"""


def _diffs(out: Path) -> list[dict[str, Any]]:
    data = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    return [
        {
            **d,
            "position_id": next(
                (r.get("position_id") for r in c["findings"]["risks"] if r["id"] == d["risk_id"]),
                None,
            ),
        }
        for c in data["clauses"]
        for d in c["findings"]["diffs"]
    ]


def _task(tmp_path: Path) -> str:
    return sorted((tmp_path / "state" / "tasks").glob("*.json"))[-1].stem


def test_edits_and_reasons_teach_the_clients_playbook(tmp_path: Path) -> None:
    first = tmp_path / "o1"
    done = run_cli(tmp_path, "review", str(SUPPLY), "--party", "Buyer", "--approve", "none",
                   "--out", str(first))  # fmt: skip
    assert done.returncode == 0, done.stderr
    task = _task(tmp_path)
    diffs = {d["position_id"]: d for d in _diffs(first)}
    price, exclusion = diffs["one_sided_price_change"], diffs["one_sided_exclusion"]
    decisions = [
        {"diff_id": price["diff_id"], "decision": "edit", "text": WORDING},
        {"diff_id": exclusion["diff_id"], "decision": "reject", "feedback": FEEDBACK},
    ]
    decisions += [
        {"diff_id": d["diff_id"], "decision": "approve"}
        for d in _diffs(first)
        if d["diff_id"] not in (price["diff_id"], exclusion["diff_id"])
    ]
    file = tmp_path / "decisions.json"
    file.write_text(json.dumps(decisions), encoding="utf-8")
    memory = tmp_path / "client-x.yaml"
    done = run_cli(tmp_path, "approve", task, "--decisions", str(file), "--remember", str(memory))
    assert done.returncode == 0, done.stderr
    assert "remembered 2 decision(s)" in done.stderr
    book = load_playbook(memory)
    kept = {p.id: p for p in book.positions}
    assert set(kept) == {"one_sided_price_change", "one_sided_exclusion"}
    edited = kept["one_sided_price_change"]
    assert edited.redline is not None
    assert edited.redline.en == WORDING
    assert edited.remembered is not None
    assert edited.remembered.decision == "edit"
    assert edited.remembered.task_id == task
    assert price["original_text"] in edited.remembered.original_text
    rejected = kept["one_sided_exclusion"]
    assert rejected.rationale is not None
    assert rejected.rationale.en == FEEDBACK
    assert rejected.remembered is not None
    assert rejected.remembered.decision == "reject"

    # Another contract of the same client: the lawyer's wording and the report says so.
    other = tmp_path / "other.txt"
    other.write_text(OTHER, encoding="utf-8")
    second = tmp_path / "o2"
    done = run_cli(tmp_path, "review", str(other), "--party", "Buyer", "--approve", "none",
                   "--criteria", str(memory), "--out", str(second))  # fmt: skip
    assert done.returncode == 0, done.stderr
    (proposal,) = [d for d in _diffs(second) if d["position_id"] == "one_sided_price_change"]
    assert proposal["original_text"].startswith("The Supplier may increase")  # number kept
    assert proposal["proposed_text"].rstrip(".") == WORDING.rstrip(".")
    report = (second / "report.md").read_text(encoding="utf-8")
    assert "Remembered position applied: Price Changes" in report
    assert task in report
    # Without the client's file, the same contract gets our standard redline.
    plain = tmp_path / "o3"
    done = run_cli(tmp_path, "review", str(other), "--party", "Buyer", "--approve", "none",
                   "--out", str(plain))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert all(WORDING.rstrip(".") not in d["proposed_text"] for d in _diffs(plain))
    assert "Remembered position" not in (plain / "report.md").read_text(encoding="utf-8")


def test_remember_refuses_what_it_cannot_keep(tmp_path: Path) -> None:
    flat = run_cli(tmp_path, "remember", "no-task", str(tmp_path / "client.csv"))
    assert flat.returncode == 2
    assert flat.stderr.startswith("error: --remember")
    assert len(flat.stderr.strip().splitlines()) == 1
    unknown = run_cli(tmp_path, "remember", "no-such-task", str(tmp_path / "client.yaml"))
    assert unknown.returncode == 2
    assert not (tmp_path / "client.yaml").exists()


def test_the_agents_prompt_carries_the_remembered_wording() -> None:
    position = Position(
        id="late_payment",
        topic="Late Payment",
        standard=Wording(en="Interest on late payment at a statutory rate."),
        redline=Wording(en="Late sums carry interest at 8% a year over base rate."),
        remembered=Remembered(
            task_id="t1", clause_id="7", decision="edit", feedback="Client insists on 8%."
        ),
    )
    messages = build_react_agent_messages(
        language="en",
        our_party="Buyer",
        clause_id="7",
        clause_name="Payment",
        description="",
        priority="high",
        clause_text="The Buyer shall pay within 60 days.",
        positions=[position],
    )
    system = messages[0]["content"]
    assert "our lawyer's own wording, to use in a redline: Late sums carry interest" in system
    assert "our lawyer's view: Client insists on 8%." in system


def _wait(client: TestClient, task: str, auth: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state: dict[str, Any] = client.get(f"/api/reviews/{task}", headers=auth).json()
        if state["waiting"] or state["status"] in ("failed", "complete"):
            return state
        time.sleep(0.2)
    pytest.fail("the review did not stop")


def test_the_web_keeps_each_keys_remembered_playbooks(tmp_path: Path) -> None:
    settings = Settings(
        state_dir=tmp_path / "state",
        api_keys=SecretStr("alice=a-key,bob=b-key"),
        use_react_agent=False,
        llm_base_url=None,
    )
    alice, bob = {"Authorization": "Bearer a-key"}, {"Authorization": "Bearer b-key"}
    with TestClient(create_app(settings)) as client:
        files = {"contract": (SUPPLY.name, SUPPLY.read_bytes())}
        task = client.post("/api/reviews", headers=alice, data={"party": "Buyer"}, files=files)
        task_id = task.json()["task_id"]
        assert _wait(client, task_id, alice)["waiting"]
        pending = client.get(f"/api/reviews/{task_id}/diffs?status=pending", headers=alice)
        price = next(d for d in pending.json() if "adjust prices" in d["original_text"])
        r = client.post(
            f"/api/reviews/{task_id}/diffs/{price['diff_id']}/decision",
            headers=alice,
            json={"decision": "edit", "text": WORDING, "remember": "Client X"},
        )
        assert r.status_code == 200, r.text
        assert r.json()["remembered"]["position"] == "one_sided_price_change"
        assert client.get("/api/playbooks", headers=alice).json() == [
            {"name": "Client X", "positions": ["one_sided_price_change"]}
        ]
        assert client.get("/api/playbooks", headers=bob).json() == []
        bad = client.post(
            f"/api/reviews/{task_id}/diffs/x/decision",
            headers=alice,
            json={"decision": "approve", "remember": "../../etc"},
        )
        assert bad.status_code == 422
        upload = {"contract": ("other.txt", OTHER.encode())}
        missing = client.post(
            "/api/reviews",
            headers=bob,
            data={"party": "Buyer", "remembered": "Client X"},
            files=upload,
        )
        assert missing.status_code == 404  # Bob has no such playbook: Alice's is hers
        second = client.post(
            "/api/reviews",
            headers=alice,
            data={"party": "Buyer", "remembered": "Client X"},
            files=upload,
        )
        assert second.status_code == 202, second.text
        second_id = second.json()["task_id"]
        assert _wait(client, second_id, alice)["waiting"]
        proposals = client.get(f"/api/reviews/{second_id}/diffs", headers=alice).json()
        assert any(WORDING.rstrip(".") in d["proposed_text"] for d in proposals)
    stored = tmp_path / "state" / "web" / "playbooks" / "alice" / "Client X.yaml"
    assert yaml.safe_load(stored.read_text(encoding="utf-8"))["positions"][0]["remembered"]


@pytest.mark.parametrize(
    "feedback",
    [
        "Acceptable as drafted: the client can live with one increase a year.",
        "可以接受，无需修改。",
    ],
)
def test_a_rejection_that_accepts_the_wording_is_remembered_as_acceptance(
    tmp_path: Path, feedback: str
) -> None:
    """Before, the acceptance was kept as a rejection and the next review proposed the same
    redline again."""
    first = tmp_path / "o1"
    done = run_cli(tmp_path, "review", str(SUPPLY), "--party", "Buyer", "--approve", "none",
                   "--out", str(first))  # fmt: skip
    assert done.returncode == 0, done.stderr
    price = next(d for d in _diffs(first) if d["position_id"] == "one_sided_price_change")
    decisions = [{"diff_id": price["diff_id"], "decision": "reject", "feedback": feedback}]
    file = tmp_path / "decisions.json"
    file.write_text(json.dumps(decisions), encoding="utf-8")
    memory = tmp_path / "client-y.yaml"
    done = run_cli(tmp_path, "approve", _task(tmp_path), "--decisions", str(file),
                   "--remember", str(memory))  # fmt: skip
    assert done.returncode == 0, done.stderr
    (kept,) = load_playbook(memory).positions
    assert kept.remembered is not None
    assert kept.remembered.decision == "accept"
    assert kept.redline is None or kept.redline.en != price["original_text"]

    second = tmp_path / "o2"
    done = run_cli(tmp_path, "review", str(SUPPLY), "--party", "Buyer", "--approve", "all",
                   "--criteria", str(memory), "--out", str(second))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not [d for d in _diffs(second) if d["position_id"] == "one_sided_price_change"]
    data = json.loads((second / "findings.json").read_text(encoding="utf-8"))
    (risk,) = [
        r
        for c in data["clauses"]
        for r in c["findings"]["risks"]
        if r.get("position_id") == "one_sided_price_change"
    ]
    assert risk["risk_level"] == "low"
    assert "accepted before" in risk["description"]


def test_a_rejection_that_asks_for_a_change_stays_a_rejection(tmp_path: Path) -> None:
    from contract_review.models import ApprovalRequest, DocumentDiff
    from contract_review.playbook.memory import accepts_wording

    diff = DocumentDiff(
        diff_id="d", clause_id="3", action_type="replace", original_text="60", proposed_text="30"
    )
    for text in ("Not acceptable: cap it at 12 months.", "不能接受，请改为30天", "Make it 45 days"):
        request = ApprovalRequest(diff_id="d", decision="reject", feedback=text)
        assert not accepts_wording(request, diff), text
    kept = ApprovalRequest(diff_id="d", decision="approve", user_modified_text=" 60 ")
    assert accepts_wording(kept, diff)
