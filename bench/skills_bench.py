"""Skills benchmark: every generic skill over every clause of the largest dev contract.

Runs each skill's handler on each clause (prepare_input → handle, as the dispatcher would, but
without its thread hop) and then the same through `SkillDispatcher.prepare_and_call`, and
prints the time per skill and in total.

    .venv/bin/python bench/skills_bench.py [--data ../shared/data/cuad_dev]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import time
from pathlib import Path
from typing import Any

from contract_review.models import DocumentRole, TaskDocument
from contract_review.plugins import create_dispatcher, load_builtin_plugins
from contract_review.skills.dispatcher import resolve_handler
from contract_review.structure_parser import StructureParser

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "cuad_dev"


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = ap.parse_args()
    files = sorted((args.data / "contracts").glob("*.txt"), key=lambda p: p.stat().st_size)
    if not files:
        raise SystemExit(f"no contracts under {args.data}/contracts")
    largest = files[-1]
    text = largest.read_text(encoding="utf-8")
    parser = StructureParser()
    structure = parser.parse(text, document_id="primary")
    # A baseline that differs in its periods, so comparisons find real differences.
    baseline_text = re.sub(r"\((\d+)\) days", lambda m: f"({int(m.group(1)) * 2}) days", text)
    baseline = parser.parse(baseline_text, document_id="baseline")
    state: dict[str, Any] = {
        "our_party": "Ceres",
        "language": structure.language,
        "domain_id": "generic",
        "documents": [
            TaskDocument(
                document_id="primary",
                role=DocumentRole.PRIMARY,
                filename=largest.name,
                structure=structure,
            ),
            TaskDocument(
                document_id="baseline",
                role=DocumentRole.BASELINE,
                filename="base.txt",
                structure=baseline,
            ),
            TaskDocument(
                document_id="reference",
                role=DocumentRole.REFERENCE,
                filename="ref.txt",
                structure=structure,
            ),
        ],
        "criteria_path": str(REPO / "examples" / "criteria" / "generic_playbook.csv"),
    }
    load_builtin_plugins()
    dispatcher = create_dispatcher()
    skills = [
        r
        for r in dispatcher.list_skills()
        if r.domain == "*" and r.skill_id != "draft_redline_comment"
    ]
    clauses = [c.clause_id for c in structure.iter_clauses()]
    print(f"contract           {largest.name[:60]} ({len(text) / 1024:.0f} KB)")
    print(f"clauses            {len(clauses)}")
    # Clause by clause, every skill in turn: the order a review runs them in (assess_deviation
    # reuses the comparison compare_with_baseline just made for the same clause).
    runners = []
    for reg in skills:
        assert reg.prepare_input_fn is not None
        assert reg.local_handler is not None
        runners.append(
            (
                reg.skill_id,
                resolve_handler(reg.prepare_input_fn),
                resolve_handler(reg.local_handler),
            )
        )
    per_skill = dict.fromkeys((r[0] for r in runners), 0.0)
    failures = 0
    start_all = time.perf_counter()
    for cid in clauses:
        for skill_id, prepare, handle in runners:
            start = time.perf_counter()
            try:
                handle(prepare(cid, structure, state))
            except Exception:
                failures += 1
            per_skill[skill_id] += time.perf_counter() - start
    total = time.perf_counter() - start_all
    for skill_id, elapsed in per_skill.items():
        print(f"  {skill_id:28s} {elapsed * 1000:8.1f} ms")
    print(
        f"all generic skills {total:.3f} s  ({len(skills)} skills x {len(clauses)} clauses, "
        f"handlers; {failures} skill errors)"
    )

    async def through_dispatcher() -> float:
        start = time.perf_counter()
        for cid in clauses:
            for reg in skills:
                await dispatcher.prepare_and_call(reg.skill_id, cid, structure, state)
        return time.perf_counter() - start

    print(
        f"via dispatcher     {asyncio.run(through_dispatcher()):.3f} s  (validation + thread hop)"
    )


if __name__ == "__main__":
    main()
