"""Batch benchmark: a folder of contracts reviewed with 1 and 2 local worker processes, and
with `contract-review worker` Celery workers on loopback (Redis broker, PostgreSQL checkpoints),
each run on fresh output folders.

Prints per run: contracts, wall time, contracts per second, per-contract CPU time (median and
max, from each worker's own measure), peak RSS of the largest worker, and the speed-up of 2
workers over 1. The local runs call `jobs.contract.review_one` in a process pool (the engine's work);
the Celery run is a whole `batch --queue` (enqueue, reviews, collecting rows, the workbook),
with the worker started, and ready, before the clock starts.

    .venv/bin/python bench/batch_bench.py [--data ../shared/data/cuad_dev/contracts]
        [--workers 1,2] [--celery 1,2] [--broker redis://127.0.0.1:6379/0]
        [--postgres postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _review(path: str, out: str, state: str) -> tuple[float, float, str]:
    """(CPU seconds, peak RSS MB of this worker so far, status) of one contract."""
    from contract_review.config import Settings
    from contract_review.jobs.contract import review_one

    settings = Settings(state_dir=Path(state), use_react_agent=False, llm_base_url=None)
    start = time.process_time()
    row: dict[str, Any] = review_one(
        path, ["neutral"], {"domain": "generic", "criteria": None}, out, settings
    )
    cpu = time.process_time() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return cpu, rss, str(row.get("status"))


def _run(files: list[Path], workers: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as work:
        started = time.perf_counter()
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
            # the largest first, as `batch` does: a long contract started last is the tail
            order = sorted(files, key=lambda f: f.stat().st_size, reverse=True)
            futures = [
                pool.submit(_review, str(f), f"{work}/out{n}", f"{work}/state")
                for n, f in enumerate(order)
            ]
            results = [f.result() for f in futures]
        wall = time.perf_counter() - started
    cpus = [r[0] for r in results]
    return {
        "workers": workers,
        "contracts": len(files),
        "errors": sum(1 for r in results if r[2] != "done"),
        "wall": wall,
        "cpu_median": statistics.median(cpus),
        "cpu_max": max(cpus),
        "rss": max(r[1] for r in results),
    }


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(c) for c in text.split()]


def _peak_rss_mb(pid: int) -> float:
    """VmHWM (peak resident set) of a live process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _celery(files: list[Path], workers: int, broker: str, postgres: str) -> dict[str, Any]:
    """A queued batch on one `contract-review worker --concurrency N` started for it."""
    from contract_review.batch import BatchOptions, batch_scope, run_batch
    from contract_review.config import Settings
    from contract_review.jobs.celery_app import make_app, ping
    from contract_review.jobs.runs import RunStore

    with tempfile.TemporaryDirectory() as work:
        env = {
            "CELERY_BROKER_URL": broker,
            "CELERY_QUEUE": f"batch-bench-{uuid.uuid4().hex[:8]}",
            "POSTGRES_URL": postgres,
            "STATE_DIR": f"{work}/state",
            "USE_REACT_AGENT": "false",
            "LLM_BASE_URL": "",
        }
        settings = Settings(**{k.lower(): v for k, v in env.items()})  # type: ignore[arg-type]
        worker = subprocess.Popen(
            [sys.executable, "-m", "contract_review.cli", "worker", f"--concurrency={workers}"],
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            while not ping(make_app(settings), timeout=0.5):
                if worker.poll() is not None:
                    raise SystemExit("the Celery worker did not start")
            room = Path(work) / "room"
            room.mkdir()
            for f in files:
                shutil.copy(f, room / f.name)
            options = BatchOptions(
                paths=[str(room)], out=Path(work) / "out", party="neutral", queue=True
            )
            started = time.perf_counter()
            rows = run_batch(options, settings=settings)
            wall = time.perf_counter() - started
            rss = max((_peak_rss_mb(c) for c in _children(worker.pid)), default=0.0)
            with RunStore(postgres) as store:
                scope = batch_scope(options)
                cpus = [float(store.stats(scope, k)["cpu_seconds"] or 0) for k in store.keys(scope)]
                store.forget(scope)
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait()
    return {
        "workers": f"{workers} Celery",
        "contracts": len(files),
        "errors": sum(1 for r in rows if r.status != "done"),
        "wall": wall,
        "cpu_median": statistics.median(cpus),
        "cpu_max": max(cpus),
        "rss": rss,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", default=str(ROOT.parent / "shared" / "data" / "cuad_dev" / "contracts")
    )
    parser.add_argument("--workers", default="1,2")
    parser.add_argument(
        "--celery", default="1,2", help="Celery pool sizes to run, comma-separated ('': none)."
    )
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    files = sorted(
        p for p in Path(args.data).iterdir() if p.suffix in (".txt", ".md", ".docx", ".pdf")
    )
    if not files:
        raise SystemExit(f"no contracts in {args.data}")
    runs = [_run(files, int(w)) for w in args.workers.split(",")]
    local = len(runs)
    for size in filter(None, args.celery.split(",")):
        runs.append(_celery(files, int(size), args.broker, args.postgres))
    print(
        "workers  contracts  errors   wall s  contracts/s  CPU/contract median  max   worker RSS MB"
    )
    for r in runs:
        print(
            f"{r['workers']!s:>7}  {r['contracts']:9d}  {r['errors']:6d}  {r['wall']:7.1f}  "
            f"{r['contracts'] / r['wall']:11.2f}  {r['cpu_median']:19.3f}  {r['cpu_max']:5.2f}  "
            f"{r['rss']:13.0f}"
        )
    for group in (runs[:local], runs[local:]):
        for other in group[1:]:
            print(
                f"speed-up {other['workers']} vs {group[0]['workers']} workers: "
                f"{group[0]['wall'] / other['wall']:.2f}x"
            )
    if local and len(runs) > local:
        print(
            f"{runs[-1]['workers']} vs {runs[0]['workers']} local: "
            f"{runs[0]['wall'] / runs[-1]['wall']:.2f}x"
        )


if __name__ == "__main__":
    main()
