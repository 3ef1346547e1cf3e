"""Load benchmark of the web API (loopback only, bounded).

Starts `contract-review serve` on a free loopback port with a fresh state folder, submits N
reviews of a bundled contract at once (every redline approved, so each runs to the end),
follows each one's Server-Sent Events to its end and prints: reviews completed and failed,
HTTP errors, p50/p95 time from submit to the first event (queued) and to the first progress
event (a worker on it), p50/p95 time to completion, total
wall time, and the peak memory (VmHWM) of the server and of its worker processes.

    .venv/bin/python bench/api_load.py [--reviews 50] [--workers 2] [--timeout 600]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from contract_review.testing import running_server

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "examples" / "generic" / "supply_agreement_en.txt"
KEY = "bench-key"


def _peak_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    try:
        out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    except OSError:
        return []
    return [int(x) for x in out.stdout.split()]


async def _one(client: httpx.AsyncClient, n: int) -> tuple[float, float, str, float]:
    """(seconds to the first event, seconds to the end, outcome, seconds to the first
    progress event — a worker reviewing it) of one review."""
    start = time.perf_counter()
    headers = {"Authorization": f"Bearer {KEY}"}
    r = await client.post(
        "/api/reviews",
        headers=headers,
        data={"party": "Buyer", "approve": "all"},
        files={"contract": (f"supply-{n}.txt", CONTRACT.read_bytes())},
    )
    if r.status_code != 202:
        return 0.0, 0.0, f"http {r.status_code}", 0.0
    task = r.json()["task_id"]
    first = working = 0.0
    outcome = "no end event"
    async with client.stream("GET", f"/api/reviews/{task}/events", headers=headers) as stream:
        async for line in stream.aiter_lines():
            if line.startswith("event:"):
                if not first:
                    first = time.perf_counter() - start
                kind = line[6:].strip()
                if kind == "progress" and not working:
                    working = time.perf_counter() - start
                if kind in ("review_complete", "review_failed", "approval_required"):
                    outcome = kind
                    break
    return first, time.perf_counter() - start, outcome, working


async def _run(url: str, reviews: int, timeout: float) -> list[tuple[float, float, str, float]]:
    limits = httpx.Limits(max_connections=reviews + 10)
    async with httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits) as client:
        return await asyncio.gather(*(_one(client, n) for n in range(reviews)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reviews", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state:
        env = {
            "STATE_DIR": state,
            "API_KEY": KEY,
            "WEB_WORKERS": str(args.workers),
            "USE_REACT_AGENT": "false",
            "LLM_BASE_URL": "",
        }
        with running_server(env) as server:
            started = time.perf_counter()
            results = asyncio.run(_run(server.url, args.reviews, args.timeout))
            wall = time.perf_counter() - started
            workers = [_peak_kb(pid) for pid in _children(server.process.pid)]
            server_kb = _peak_kb(server.process.pid)
    done = [r for r in results if r[2] == "review_complete"]
    failed = [r for r in results if r[2] != "review_complete"]
    firsts = sorted(r[0] for r in done)
    ends = sorted(r[1] for r in done)
    working = sorted(r[3] for r in done if r[3])

    def pct(values: list[float], q: float) -> float:
        return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0

    print(f"reviews submitted      {args.reviews} (workers {args.workers})")
    print(f"completed              {len(done)}")
    print(f"errors                 {len(failed)}  {sorted({r[2] for r in failed})}")
    print(f"first event  p50/p95   {pct(firsts, 0.5):.2f} s / {pct(firsts, 0.95):.2f} s")
    print(f"first progress p50/p95 {pct(working, 0.5):.2f} s / {pct(working, 0.95):.2f} s")
    print(f"completion   p50/p95   {pct(ends, 0.5):.2f} s / {pct(ends, 0.95):.2f} s")
    print(f"wall time              {wall:.1f} s  ({len(done) / wall:.2f} reviews/s)")
    print(f"server peak RSS        {server_kb / 1024:.0f} MB")
    if workers:
        print(f"worker peak RSS        max {max(workers) / 1024:.0f} MB over {len(workers)}")
    if firsts:
        print(f"mean first event       {statistics.mean(firsts):.2f} s")


if __name__ == "__main__":
    main()
