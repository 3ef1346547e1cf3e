"""Parser benchmark: StructureParser over the CUAD dev contracts.

Prints total time, throughput in MB/s (UTF-8 bytes of text parsed per second) and the slowest
contract. Best of N rounds, to keep one-off noise out of the figure.

    .venv/bin/python bench/parser_bench.py [--rounds 5] [--data ../shared/data/cuad_dev]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from contract_review.intake import load_document
from contract_review.structure_parser import StructureParser

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cuad_dev"


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = ap.parse_args()
    files = sorted((args.data / "contracts").glob("*.txt"))
    if not files:
        raise SystemExit(f"no contracts under {args.data}/contracts")
    t0 = time.perf_counter()
    texts = [(f.name, load_document(f).text) for f in files]
    intake_s = time.perf_counter() - t0
    size_mb = sum(len(t.encode("utf-8")) for _, t in texts) / 1e6
    parser = StructureParser()
    best = float("inf")
    per_file: dict[str, float] = {}
    clauses = 0
    for _ in range(args.rounds):
        start = time.perf_counter()
        clauses = 0
        for name, text in texts:
            s = time.perf_counter()
            structure = parser.parse(text)
            per_file[name] = min(per_file.get(name, float("inf")), time.perf_counter() - s)
            clauses += structure.total_clauses
        best = min(best, time.perf_counter() - start)
    slowest = max(per_file, key=per_file.__getitem__)
    print(f"contracts          {len(texts)}")
    print(f"text size          {size_mb:.2f} MB")
    print(f"clauses found      {clauses}")
    print(f"intake (txt)       {intake_s:.3f} s")
    print(f"parse total        {best:.3f} s   (best of {args.rounds})")
    print(f"throughput         {size_mb / best:.2f} MB/s")
    print(f"slowest contract   {per_file[slowest] * 1000:.1f} ms  {slowest[:60]}")


if __name__ == "__main__":
    main()
