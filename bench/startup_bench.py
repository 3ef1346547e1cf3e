"""Start-up benchmark: wall time of `contract-review --help` and of `parse` on a text sample,
and the slowest imports of the CLI module (`python -X importtime`).

    .venv/bin/python bench/startup_bench.py [--runs 10]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "generic" / "supply_agreement_en.txt"


def _wall(args: list[str], runs: int) -> tuple[float, float]:
    """(median, min) seconds of `python -m contract_review.cli ARGS` over `runs` runs."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "contract_review.cli", *args],
            capture_output=True,
            check=True,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def _import_times(module: str, top: int) -> tuple[float, list[tuple[float, str]]]:
    """(total seconds, the `top` slowest cumulative imports) of importing `module`."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]) / 1e6, parts[2].strip()))
    total = next((t for t, name in rows if name == module), 0.0)
    return total, sorted(rows, reverse=True)[:top]


def main() -> None:
    """Print the figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    for label, argv in (("--help", ["--help"]), ("parse (txt)", ["parse", str(SAMPLE)])):
        median, best = _wall(argv, args.runs)
        print(f"{label:14} median {median:.3f} s   best {best:.3f} s   ({args.runs} runs)")
    total, slowest = _import_times("contract_review.cli", 8)
    print(f"import contract_review.cli: {total:.3f} s cumulative; slowest:")
    for seconds, name in slowest:
        print(f"  {seconds:.3f} s  {name}")


if __name__ == "__main__":
    main()
