"""SPEC-21 benchmark: tokens and wall time of an LLM-mode review with and without the
orchestrator, on a generated 100-clause contract, against the local fake endpoint.

The contract mixes what a real one holds: clauses that can hurt a party (liability, indemnity,
termination, payment, IP, confidentiality) and boilerplate (notices, counterparts, headings,
entire agreement, severability). The endpoint's stand-in reviewer plans as the priorities
suggest and answers each clause in two model calls, after a fixed latency. With the
orchestrator, boilerplate is rules only and the rest gets the depth its priority and the
playbook call for; without it (ORCHESTRATOR=false) every clause gets the standard budget.

Prints per run: wall time, model calls, prompt and completion tokens, clauses by depth, clauses
reviewed by the model, risks found, and the saving.

    .venv/bin/python bench/orchestrator_bench.py [--clauses 100] [--latency 0.2] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from contract_review.config import Settings
from contract_review.models import ReviewResult
from contract_review.review import ReviewOptions, start_review
from llm_review_bench import endpoint

_SUBSTANTIVE = [
    (
        "Limitation of Liability",
        "The Customer's total liability under this Agreement shall be "
        "unlimited, and the Supplier shall not be liable for any loss of profit or revenue.",
    ),
    (
        "Indemnity",
        "The Customer shall indemnify the Supplier against all losses, claims and "
        "costs arising in connection with the Services, however caused.",
    ),
    (
        "Termination",
        "The Supplier may terminate this Agreement at any time for convenience on "
        "seven days' notice; the Customer may terminate only for the Supplier's material breach.",
    ),
    (
        "Payment",
        "The Customer shall pay each invoice within 10 days of its date. Late sums carry "
        "interest at 2% per month. The Supplier may suspend the Services for any late payment.",
    ),
    (
        "Intellectual Property",
        "All intellectual property created under this Agreement, "
        "including the Customer's data models, shall vest in the Supplier.",
    ),
    (
        "Confidentiality",
        "The Customer shall keep the Supplier's information confidential for "
        "ten years; the Supplier may disclose the Customer's information to its affiliates.",
    ),
    ("Price Changes", "The Supplier may increase the fees at any time by notice to the Customer."),
    (
        "Warranties",
        "The Supplier gives no warranty that the Services will be fit for any "
        "purpose, and all warranties implied by law are excluded.",
    ),
]
_BOILERPLATE = [
    ("Notices", "Notices shall be in writing and delivered by hand or by courier to the "
     "addresses set out above."),
    ("Counterparts", "This Agreement may be executed in any number of counterparts, each of "
     "which is an original."),
    ("Headings", "Headings are for convenience only and do not affect the interpretation of "
     "this Agreement."),
    ("Entire Agreement", "This Agreement is the entire agreement of the parties on its subject "
     "matter."),
    ("Severability", "If any provision is held invalid, the remaining provisions remain in full "
     "force."),
    ("Waiver", "No failure to exercise a right is a waiver of it."),
]  # fmt: skip


def contract(n: int) -> str:
    """A generated services contract of `n` clauses: one in three substantive."""
    parts = [
        "MASTER SERVICES AGREEMENT",
        "",
        'This Agreement is made between Orbis Cloud Limited (the "Supplier") and Tallis Retail '
        'plc (the "Customer").',
        "",
    ]
    for k in range(1, n + 1):
        pool = _SUBSTANTIVE if k % 3 == 1 else _BOILERPLATE
        title, body = pool[(k // 3) % len(pool)]
        parts += [f"{k}. {title.upper()}", f"{k}.1 {body} (Lot {k}.)", ""]
    return "\n".join(parts)


async def _review(path: Path, out: Path, settings: Settings) -> ReviewResult:
    options = ReviewOptions(file=path, party="Customer", approve="none", out=out)
    await start_review(options, settings=settings)
    return ReviewResult.model_validate_json((out / "findings.json").read_bytes())


def _run(n: int, latency: float, concurrency: int, orchestrator: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as work, endpoint(latency) as (url, _):
        path = Path(work) / "contract.txt"
        path.write_text(contract(n), encoding="utf-8")
        settings = Settings(
            state_dir=Path(work) / "state",
            llm_base_url=url,
            llm_model="stand-in",
            review_max_concurrency=concurrency,
            orchestrator=orchestrator,
            llm_stream=False,
        )
        started = time.perf_counter()
        result = asyncio.run(_review(path, Path(work) / "out", settings))
        wall = time.perf_counter() - started
    usage = result.llm_usage
    plan = result.plan
    return {
        "orchestrator": "on" if orchestrator else "off",
        "wall": wall,
        "calls": usage.calls if usage else 0,
        "prompt": usage.prompt_tokens if usage else 0,
        "completion": usage.completion_tokens if usage else 0,
        "depths": plan.counts() if plan else {},
        "llm_clauses": sum(1 for c in result.clauses if c.findings.analysis_mode == "llm"),
        "clauses": len(result.clauses),
        "risks": sum(len(c.findings.risks) for c in result.clauses),
        "high": sum(
            1 for c in result.clauses for r in c.findings.risks if r.risk_level.value == "high"
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clauses", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.2, help="Seconds per model answer.")
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    runs = [_run(args.clauses, args.latency, args.concurrency, on) for on in (False, True)]
    print(
        f"{args.clauses}-clause contract, endpoint latency {args.latency:g} s, "
        f"{args.concurrency} clauses at a time"
    )
    print("orchestrator  wall s  calls  prompt tok  completion tok  model clauses  risks (high)"
          "  deep/standard/quick/skip")  # fmt: skip
    for r in runs:
        d = r["depths"]
        spread = "/".join(str(d.get(k, 0)) for k in ("deep", "standard", "quick", "skip"))
        print(
            f"{r['orchestrator']:>12}  {r['wall']:6.1f}  {r['calls']:5d}  {r['prompt']:10d}  "
            f"{r['completion']:14d}  {r['llm_clauses']:6d}/{r['clauses']:<6d}  "
            f"{r['risks']:5d} ({r['high']})  {spread}"
        )
    off, on = runs
    tokens_off = off["prompt"] + off["completion"]
    tokens_on = on["prompt"] + on["completion"]
    print(
        f"with the orchestrator: {1 - tokens_on / tokens_off:.0%} fewer tokens, "
        f"{1 - on['calls'] / off['calls']:.0%} fewer calls, wall {on['wall'] / off['wall']:.2f}x"
    )


if __name__ == "__main__":
    main()
