"""Real-filings benchmark: structure, definitions, references and noise on the CUAD dev slice.

Prints, over the dev contracts:
- clause length: share of clauses whose own text (before their first sub-clause) is over
  5,000 and 10,000 characters, and the contracts where one clause's own text is over half of
  the document;
- definitions found per contract (median, and contracts with none);
- references reported missing per contract, and against the hand-labelled sample
  (`tests/fixtures/xrefs/cuad_references.json`) the references reported missing that exist;
- parse time (best of N rounds);
- with `--review`: a rules review of every contract (neutral, auto-approve) and its
  "undefined term" risks per contract (median) and duplicate risks (same clause, same
  position or rule, same quoted span).

    .venv/bin/python bench/filings_bench.py [--data ../shared/data/cuad_dev] [--review]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from contract_review.analysis.coverage import own_length
from contract_review.models import DocumentStructure
from contract_review.structure_parser import StructureParser

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "cuad_dev"
LABELLED = ROOT / "tests" / "fixtures" / "xrefs" / "cuad_references.json"


def _structure_figures(texts: dict[str, str], rounds: int) -> dict[str, DocumentStructure]:
    parser = StructureParser()
    best = float("inf")
    structures: dict[str, DocumentStructure] = {}
    for _ in range(rounds):
        start = time.perf_counter()
        structures = {name: parser.parse(text, document_id=name) for name, text in texts.items()}
        best = min(best, time.perf_counter() - start)
    lengths = [own_length(c) for s in structures.values() for c in s.iter_clauses()]
    dominated = [
        name
        for name, s in structures.items()
        if any(own_length(c) * 2 > len(texts[name]) for c in s.iter_clauses())
    ]
    covering = [
        name
        for name, s in structures.items()
        if any(len(c.text) * 2 > len(texts[name]) for c in s.iter_clauses())
    ]
    defs = [len(s.definitions) for s in structures.values()]
    missing = [sum(not r.is_valid for r in s.cross_references) for s in structures.values()]
    n = len(lengths)
    print(f"contracts                        {len(texts)}")
    print(f"clauses                          {n}")
    print(f"clauses over 5,000 chars         {sum(x > 5000 for x in lengths) / n:.1%}")
    print(f"clauses over 10,000 chars        {sum(x > 10000 for x in lengths) / n:.1%}")
    print(
        f"contracts, one clause > half     {len(dominated)} own text, {len(covering)} with sub-clauses"
    )
    print(f"definitions per contract         median {statistics.median(defs):g}")
    print(f"contracts with no definitions    {sum(d == 0 for d in defs)}")
    print(
        f"references reported missing      {sum(missing)} (median {statistics.median(missing):g})"
    )
    print(f"parse time                       {best:.3f} s (best of {rounds})")
    return structures


def _labelled_figures(structures: dict[str, DocumentStructure]) -> None:
    """Hand-labelled references: does the parser call one missing that the document has?"""
    if not LABELLED.exists():
        return
    sample: list[dict[str, Any]] = json.loads(LABELLED.read_text("utf-8"))
    false_missing = true_missing = unfound = internal = 0
    for row in sample:
        s = structures.get(row["file"])
        if s is None:
            continue
        refs = [r for r in s.cross_references if r.start_offset == row["start"]]
        if row["kind"] != "internal":
            if refs:
                internal += 1  # an external reference taken as internal
            continue
        if not refs:
            unfound += 1
            continue
        if not refs[0].is_valid:
            if row["exists"]:
                false_missing += 1
            else:
                true_missing += 1
    print(f"labelled references              {len(sample)}")
    print(f"  reported missing that exist    {false_missing}")
    print(f"  missing, rightly reported      {true_missing}")
    print(f"  internal, not found            {unfound}")
    print(f"  external, taken as internal    {internal}")


async def _review(files: list[Path], work: Path) -> list[dict[str, Any]]:
    from contract_review.config import Settings
    from contract_review.review import ReviewOptions, start_review

    out = []
    for i, path in enumerate(files):
        options = ReviewOptions(
            file=path, domain="generic", party="neutral", approve="all", out=work / f"out{i}"
        )
        await start_review(options, settings=Settings(state_dir=work / f"state{i}"))
        out.append(json.loads((work / f"out{i}" / "findings.json").read_text("utf-8")))
    return out


def _risk_key(risk: dict[str, Any]) -> tuple[str, ...]:
    loc = risk.get("location") or {}
    return (
        risk["clause_id"],
        risk.get("position_id") or risk["risk_type"],
        str(loc.get("start_offset", "")),
        str(loc.get("original_text", "")),
    )


def _review_figures(files: list[Path]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        results = asyncio.run(_review(files, Path(tmp)))
    undefined: list[int] = []
    total = duplicates = references = 0
    for findings in results:
        risks = [r for c in findings["clauses"] for r in c["findings"]["risks"]]
        total += len(risks)
        keys = Counter(_risk_key(r) for r in risks)
        duplicates += sum(n - 1 for n in keys.values())
        undefined.append(sum(r["risk_type"] == "undefined term" for r in risks))
        references += sum(r["risk_type"].startswith("reference to a") for r in risks)
    print(f"risks                            {total}")
    print(f"  undefined term                 {sum(undefined)}")
    print(f"  reference to a missing clause  {references}")
    print(f"  all others                     {total - sum(undefined) - references}")
    print(f"duplicate risks                  {duplicates}")
    print(f"undefined-term risks/contract    median {statistics.median(undefined):g}")


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--review", action="store_true", help="Also review every contract.")
    args = ap.parse_args()
    files = sorted((args.data / "contracts").glob("*.txt"))
    if not files:
        raise SystemExit(f"no contracts under {args.data}/contracts")
    texts = {f.name: f.read_text(encoding="utf-8") for f in files}
    structures = _structure_figures(texts, args.rounds)
    _labelled_figures(structures)
    if args.review:
        _review_figures(files)


if __name__ == "__main__":
    main()
