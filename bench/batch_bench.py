"""Batch benchmark: a folder of contracts through `contract-review batch` with 1 and 2 local
workers (each run on a fresh state folder and output folder).

Prints per run: contracts, wall time, contracts per second, per-contract CPU time (median and
max, from each worker's own measure), peak RSS of the largest worker, and the speed-up of 2
workers over 1.

    .venv/bin/python bench/batch_bench.py [--data ../shared/data/cuad_dev/contracts] [--workers 1,2]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _review(path: str, out: str, state: str) -> tuple[float, float, str]:
    """(CPU seconds, peak RSS MB of this worker so far, status) of one contract."""
    from contract_review.batch import review_one
    from contract_review.config import Settings

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", default=str(ROOT.parent / "shared" / "data" / "cuad_dev" / "contracts")
    )
    parser.add_argument("--workers", default="1,2")
    args = parser.parse_args()
    files = sorted(
        p for p in Path(args.data).iterdir() if p.suffix in (".txt", ".md", ".docx", ".pdf")
    )
    if not files:
        raise SystemExit(f"no contracts in {args.data}")
    runs = [_run(files, int(w)) for w in args.workers.split(",")]
    print(
        "workers  contracts  errors   wall s  contracts/s  CPU/contract median  max   worker RSS MB"
    )
    for r in runs:
        print(
            f"{r['workers']:7d}  {r['contracts']:9d}  {r['errors']:6d}  {r['wall']:7.1f}  "
            f"{r['contracts'] / r['wall']:11.2f}  {r['cpu_median']:19.3f}  {r['cpu_max']:5.2f}  "
            f"{r['rss']:13.0f}"
        )
    if len(runs) >= 2:
        print(
            f"speed-up {runs[1]['workers']} vs {runs[0]['workers']} workers: "
            f"{runs[0]['wall'] / runs[1]['wall']:.2f}x"
        )


if __name__ == "__main__":
    main()
