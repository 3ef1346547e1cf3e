"""Reviews on Celery workers (the local Redis broker, PostgreSQL for checkpoints, locks and
results): a queued batch completes into the same workbook as a local one; a pool process
killed with SIGKILL mid-contract has the contract delivered again and carried on from its
checkpoint, and it completes once; the web app sends its reviews to the same queue."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook

from contract_review.batch import BatchOptions, batch_scope, run_batch
from contract_review.config import Settings
from contract_review.exports.portfolio import PortfolioRow
from contract_review.jobs.celery_app import make_app, ping
from contract_review.jobs.runs import RunStore
from tests.conftest import EXAMPLES, POSTGRES

BROKER = "redis://127.0.0.1:6379/0"


def _reachable(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


pytestmark = pytest.mark.skipif(
    not (_reachable(6379) and _reachable(5432)), reason="needs Redis and PostgreSQL on loopback"
)


def _queue_env(state: Path, **extra: str) -> dict[str, str]:
    return {
        "CELERY_BROKER_URL": BROKER,
        "CELERY_QUEUE": f"contract-review-test-{uuid.uuid4().hex[:8]}",
        "CELERY_LOCK_RETRY_SECONDS": "0.5",
        "POSTGRES_URL": POSTGRES,
        "STATE_DIR": str(state),
        "USE_REACT_AGENT": "false",
        "LLM_BASE_URL": "",
        **extra,
    }


def _settings(env: dict[str, str]) -> Settings:
    return Settings(**{k.lower(): v for k, v in env.items()})  # type: ignore[arg-type]


@contextmanager
def _worker(env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """`contract-review worker --concurrency 1` on `env`'s queue, ready when yielded."""
    worker = subprocess.Popen(
        [sys.executable, "-m", "contract_review.cli", "worker", "--concurrency", "1"],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: killed whole at the end
    )
    try:
        app = make_app(_settings(env))
        deadline = time.monotonic() + 60
        while not ping(app, timeout=0.5):
            if worker.poll() is not None or time.monotonic() > deadline:
                assert worker.stderr is not None
                pytest.fail(f"the worker did not start: {worker.stderr.read().decode()[-2000:]}")
        yield worker
    finally:
        with suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
        assert worker.stderr is not None
        worker.stderr.close()


@pytest.fixture(scope="module")
def queue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """A worker (one pool process) on a queue of this test module's own, and the settings
    that send work to it."""
    env = _queue_env(tmp_path_factory.mktemp("queue-state"))
    with _worker(env):
        yield _settings(env)


def _room(folder: Path) -> Path:
    folder.mkdir(parents=True)
    shutil.copy(EXAMPLES / "generic" / "supply_agreement_en.txt", folder / "supply.txt")
    shutil.copy(EXAMPLES / "generic" / "services_agreement_en.md", folder / "services.md")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7 this is not a pdf")
    return folder


def test_a_queued_batch_completes_each_contract_once(queue: Settings, tmp_path: Path) -> None:
    room, out = _room(tmp_path / "room"), tmp_path / "portfolio"
    options = BatchOptions(paths=[str(room)], out=out, party="Buyer|Customer|Client", queue=True)
    rows = {Path(r.file).name: r for r in run_batch(options, settings=queue)}
    assert rows["supply.txt"].status == "done", rows["supply.txt"].error
    assert rows["supply.txt"].party == "Buyer"
    assert rows["services.md"].status == "done", rows["services.md"].error
    assert rows["broken.pdf"].status == "error"
    assert "pdf" in rows["broken.pdf"].error.lower()
    book = load_workbook(out / "portfolio.xlsx")
    files = [Path(str(r[0])).name for r in book["Contracts"].iter_rows(min_row=2, values_only=True)]
    assert sorted(files) == ["broken.pdf", "services.md", "supply.txt"]
    assert (Path(rows["supply.txt"].outputs) / "redline.docx").is_file()
    with RunStore(POSTGRES) as store:
        scope = batch_scope(options)
        for row in rows.values():
            stats = store.stats(scope, f"{row.sha256}:Buyer|Customer|Client")
            assert (stats["attempts"], stats["completions"]) == (1, 1)
    # Run again: every finished contract comes from the batch's state, the corrupt one is
    # tried again (it fails again), nothing is reviewed twice.
    again = {Path(r.file).name: r for r in run_batch(options, settings=queue)}
    assert again["supply.txt"].status == "done"
    with RunStore(POSTGRES) as store:
        stats = store.stats(
            batch_scope(options), f"{rows['supply.txt'].sha256}:Buyer|Customer|Client"
        )
        assert stats["completions"] == 1
        store.forget(batch_scope(options))


def _large_contract(path: Path, articles: int = 440) -> Path:
    """A supply agreement long enough (about 2 MB) to be killed mid-review: the review must
    outlast the first progress report by more than the time a kill takes to land."""
    lines = [
        "MASTER SUPPLY AGREEMENT",
        'This Agreement is made between Harrow Components Limited (the "Supplier") and '
        'Kestrel Retail Inc. (the "Buyer").',
    ]
    for a in range(1, articles + 1):
        lines.append(f"{a}. OBLIGATIONS PART {a}")
        for s in range(1, 9):
            lines.append(
                f"{a}.{s} The Supplier shall deliver the Goods in lot {a}-{s} within {s + 5} "
                "days of each purchase order, and the Buyer shall pay each undisputed invoice "
                f"within {30 + s} days. The Supplier may terminate this Agreement at any time "
                "for convenience on notice, and the Supplier's total liability shall not exceed "
                "the fees paid in the previous month. The Buyer shall indemnify the Supplier "
                "against all losses of any kind arising in connection with the Goods."
            )
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _wait(predicate: Any, what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_a_worker_killed_mid_contract_still_completes_it_once(
    queue: Settings, tmp_path: Path
) -> None:
    room = tmp_path / "room"
    room.mkdir()
    _large_contract(room / "long.txt")
    out = tmp_path / "portfolio"
    options = BatchOptions(paths=[str(room)], out=out, party="Buyer", queue=True)
    scope = batch_scope(options)
    done: list[PortfolioRow] = []
    runner = threading.Thread(target=lambda: done.extend(run_batch(options, settings=queue)))
    runner.start()
    with RunStore(POSTGRES) as store:
        (key,) = _keys(store, scope)
        _wait(lambda: store.stats(scope, key)["pid"] is not None, "the worker to start")
        pid = store.stats(scope, key)["pid"]
        tasks = list(out.glob("*/.state/tasks/*.json"))

        def started() -> bool:
            tasks[:] = list(out.glob("*/.state/tasks/*.json"))
            return bool(tasks) and '"clauses_done": 0' not in tasks[0].read_text()

        _wait(started, "clauses to be checkpointed")
        first_task = tasks[0].name
        os.kill(pid, signal.SIGKILL)  # the pool process running the contract
        runner.join(timeout=240)
        assert not runner.is_alive(), "the contract was never completed"
        stats = store.stats(scope, key)
        store.forget(scope)
    (row,) = done
    assert row.status == "done", row.error
    assert stats["attempts"] == 2  # delivered again after the kill
    assert stats["completions"] == 1  # and completed once
    # The second delivery carried on the task of the first (from its checkpoint): one task.
    assert [p.name for p in out.glob("*/.state/tasks/*.json")] == [first_task]
    assert row.counts.get("high", 0) >= 1


def _keys(store: RunStore, scope: str) -> list[str]:
    found: list[str] = []

    def registered() -> bool:
        found[:] = store.keys(scope)
        return bool(found)

    _wait(registered, "the batch to be enqueued")
    return found


def test_the_web_app_sends_its_reviews_to_the_queue(queue: Settings) -> None:
    from fastapi.testclient import TestClient
    from pydantic import SecretStr

    from contract_review.web.app import create_app

    settings = queue.model_copy(update={"api_key": SecretStr("queue-key")})
    auth = {"Authorization": "Bearer queue-key"}
    contract = EXAMPLES / "generic" / "supply_agreement_en.txt"
    with TestClient(create_app(settings)) as client:
        r = client.post(
            "/api/reviews",
            headers=auth,
            data={"party": "Buyer"},
            files={"contract": (contract.name, contract.read_bytes())},
        )
        assert r.status_code == 202, r.text
        task = str(r.json()["task_id"])

        def state() -> dict[str, Any]:
            got: dict[str, Any] = client.get(f"/api/reviews/{task}", headers=auth).json()
            return got

        _wait(lambda: state()["waiting"] or state()["status"] == "failed", "the review")
        assert state()["waiting"], state()
        pending = client.get(f"/api/reviews/{task}/diffs?status=pending", headers=auth).json()
        assert pending
        for diff in pending:
            r = client.post(
                f"/api/reviews/{task}/diffs/{diff['diff_id']}/decision",
                headers=auth,
                json={"decision": "approve"},
            )
            assert r.status_code == 200, r.text
        _wait(lambda: state()["status"] in ("complete", "failed"), "the resumed review")
        assert state()["status"] == "complete", state()
        assert state()["counts"]["approved"] == len(pending)
    with RunStore(POSTGRES) as store:
        jobs = [k for k in store.keys("web") if k.startswith(f"{task}:")]
        assert len(jobs) == 2  # start, then resume: each ran once
        assert all(store.stats("web", k)["completions"] == 1 for k in jobs)


def test_a_lost_worker_is_replaced_after_the_visibility_timeout(tmp_path: Path) -> None:
    """The whole worker (main process and pool) dies mid-contract, as a lost machine would:
    the contract waits in the queue's unacknowledged set until the visibility timeout, then
    another worker takes it and carries it on."""
    env = _queue_env(tmp_path / "state", CELERY_VISIBILITY_TIMEOUT="4")
    settings = _settings(env)
    room = tmp_path / "room"
    room.mkdir()
    _large_contract(room / "long.txt")
    options = BatchOptions(paths=[str(room)], out=tmp_path / "out", party="Buyer", queue=True)
    scope = batch_scope(options)
    done: list[PortfolioRow] = []
    runner = threading.Thread(target=lambda: done.extend(run_batch(options, settings=settings)))
    with RunStore(POSTGRES) as store:
        with _worker(env) as first:
            runner.start()
            (key,) = _keys(store, scope)
            _wait(lambda: store.stats(scope, key)["pid"] is not None, "the worker to start")
            time.sleep(1)
            os.killpg(first.pid, signal.SIGKILL)
        assert runner.is_alive()
        with _worker(env):
            runner.join(timeout=120)
            assert not runner.is_alive(), "the contract was never delivered again"
        stats = store.stats(scope, key)
        store.forget(scope)
    (row,) = done
    assert row.status == "done", row.error
    assert (stats["attempts"], stats["completions"]) == (2, 1)
    assert len(list(options.out.glob("*/.state/tasks/*.json"))) == 1
