"""Whole-review benchmark: every CUAD dev contract reviewed (generic domain, auto-approve).

Prints total time, per-contract median and max, peak RSS, and the checkpoint database size of
the largest contract. Each contract gets its own state folder, so sizes are per review.

    .venv/bin/python bench/review_bench.py [--data ../shared/data/cuad_dev] [--limit N]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import tempfile
import time
from pathlib import Path

from contract_review.config import Settings
from contract_review.review import ReviewOptions, start_review

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cuad_dev"


async def _review_all(files: list[Path], work: Path) -> list[tuple[str, float, int, int]]:
    rows = []
    for i, path in enumerate(files):
        state = work / f"state{i}"
        settings = Settings(state_dir=state)
        options = ReviewOptions(
            file=path, domain="generic", party="neutral", approve="all", out=work / f"out{i}"
        )
        start = time.perf_counter()
        await start_review(options, settings=settings)
        elapsed = time.perf_counter() - start
        db = state / "checkpoints.sqlite"
        rows.append((path.name, elapsed, path.stat().st_size, db.stat().st_size))
    return rows


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    files = sorted((args.data / "contracts").glob("*.txt"))
    if args.limit:
        files = files[: args.limit]
    if not files:
        raise SystemExit(f"no contracts under {args.data}/contracts")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        rows = asyncio.run(_review_all(files, Path(tmp)))
        total = time.perf_counter() - start
    times = [r[1] for r in rows]
    largest = max(rows, key=lambda r: r[2])
    slowest = max(rows, key=lambda r: r[1])
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"contracts reviewed      {len(rows)}")
    print(f"total time              {total:.2f} s")
    print(f"per contract median     {statistics.median(times):.3f} s")
    print(f"per contract max        {slowest[1]:.3f} s  ({slowest[0][:50]})")
    print(f"peak RSS                {peak_mb:.0f} MB")
    print(
        f"checkpoints, largest    {largest[3] / 1e6:.2f} MB  "
        f"({largest[0][:50]}, {largest[2] / 1e3:.0f} KB of text)"
    )


if __name__ == "__main__":
    main()
