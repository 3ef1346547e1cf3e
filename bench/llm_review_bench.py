"""SPEC-35 benchmark: LLM-mode reviews against a local endpoint with a fixed latency.

Runs whole reviews (`start_review`: intake, checklist, graph with SQLite checkpoints, reports,
redlined .docx) of generated N-clause contracts against `contract_review.testing.FakeLLM`,
whose stand-in reviewer makes two model calls per clause (tools, then the answer). For each
(N, concurrency) it prints the wall time, the ideal critical path ceil(N/C) x rounds x latency,
their ratio, the model calls and tokens.

    .venv/bin/python bench/llm_review_bench.py                 # latency 0.5 s, C = 12 and 16
    .venv/bin/python bench/llm_review_bench.py --latency 1 --quick
"""

from __future__ import annotations

import argparse
import asyncio
import math
import multiprocessing
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from pathlib import Path

from contract_review.config import Settings
from contract_review.models import ReviewResult
from contract_review.review import ReviewOptions, start_review
from contract_review.testing import FakeLLM, stand_in_responder

ROUNDS = 2
"""Model calls per clause made by the stand-in reviewer."""


def contract(n: int) -> str:
    """A generated supply contract of `n` numbered clauses."""
    parts = ["SUPPLY AGREEMENT", ""]
    for k in range(1, n + 1):
        parts += [
            f"{k}. Obligation {k}",
            f"The Supplier shall deliver lot {k} of the Goods within {k + 10} days of the "
            f"Customer's order and shall bear all costs of lot {k} until delivery. "
            f"The Customer shall pay the price of lot {k} within 60 days of its invoice.",
            "",
        ]
    return "\n".join(parts)


def _serve(latency: float, conn: Connection) -> None:
    """Child process: run the endpoint until told to stop, then report its request count."""
    with FakeLLM(responder=stand_in_responder, latency=latency) as fake:
        conn.send(fake.base_url)
        conn.recv()
        conn.send(len(fake.requests))


@contextmanager
def endpoint(latency: float) -> Iterator[tuple[str, list[int]]]:
    """(base URL, [request count, filled in on exit]) of an endpoint in its own process, so its
    work does not compete with the review for this process's interpreter lock."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    process = ctx.Process(target=_serve, args=(latency, child), daemon=True)
    process.start()
    count: list[int] = []
    try:
        yield parent.recv(), count
    finally:
        parent.send("stop")
        count.append(parent.recv())
        process.join(timeout=10)


async def review(
    folder: Path, n: int, concurrency: int, latency: float
) -> tuple[float, int, int, int]:
    """(wall seconds, clauses reviewed, model calls, tokens) of one review."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"contract-{n}.txt"
    path.write_text(contract(n), encoding="utf-8")
    with endpoint(latency) as (base_url, requests):
        settings = Settings(
            llm_base_url=base_url,
            review_max_concurrency=concurrency,
            react_clause_timeout=max(60.0, 10 * latency * ROUNDS),
            state_dir=folder / "state",
        )
        options = ReviewOptions(
            file=path, party="Supplier", approve="all", out=folder / f"out-{n}-{concurrency}"
        )
        start = time.perf_counter()
        manifest = await start_review(options, settings=settings)
        wall = time.perf_counter() - start
    calls = requests[0]
    result = ReviewResult.model_validate_json(Path(manifest.outputs["json"]).read_text("utf-8"))
    modes = {c.findings.analysis_mode for c in result.clauses}
    if modes != {"llm"}:
        raise SystemExit(f"expected every clause in LLM mode, got {modes}")
    usage = result.llm_usage
    tokens = usage.prompt_tokens + usage.completion_tokens if usage else 0
    return wall, len(result.clauses), calls, tokens


def main() -> None:
    """Run the scenarios and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per model call")
    parser.add_argument("--cap", type=int, nargs="*", default=[12, 16], help="concurrency caps")
    parser.add_argument("--quick", action="store_true", help="skip the 100-clause serial run")
    args = parser.parse_args()
    scenarios = [(12, 1), *((12, c) for c in args.cap), *((100, c) for c in args.cap)]
    if not args.quick:
        scenarios.append((100, 1))
    print(f"latency {args.latency:.2f} s per model call, {ROUNDS} calls per clause")
    print(
        f"{'clauses':>7} {'cap':>4} {'wall s':>8} {'ideal s':>8} {'ratio':>6} "
        f"{'calls':>6} {'tokens':>8}"
    )
    serial: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        asyncio.run(review(folder / "warm", 2, 2, 0.0))  # imports and first compilation
        for n, cap in scenarios:
            wall, clauses, calls, tokens = asyncio.run(review(folder, n, cap, args.latency))
            ideal = math.ceil(clauses / cap) * ROUNDS * args.latency
            if cap == 1:
                serial[n] = wall
            speedup = f"  {serial[n] / wall:5.1f}x vs cap 1" if cap > 1 and n in serial else ""
            print(
                f"{clauses:>7} {cap:>4} {wall:>8.2f} {ideal:>8.2f} {wall / ideal:>6.2f} "
                f"{calls:>6} {tokens:>8}{speedup}"
            )


if __name__ == "__main__":
    main()
