"""One term, one judgement: the same term in different wordings, layouts and languages.

`tests/fixtures/consistency/terms.json` (written blind) holds groups of six clauses, each
stating one term — three in English, three in Chinese, with different parties, sentence
structures and headings — marked with the party it burdens and the level a lawyer gives it
(controls: balanced, level "none"). Each clause becomes a short contract (as in
`clause_eval.py`) reviewed for the burdened party, and, for a control, for both. Prints:

* consistent — groups whose six clauses get the same judgement (the highest medium/high level
  found, or none);
* found — burdened clauses with a medium or high risk; level as the reader's — found at the
  reader's level;
* controls flagged — balanced clauses with a medium or high risk for either party.

    .venv/bin/python bench/consistency_eval.py [--file F] [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from clause_eval import contract_text, serious_risks

FILE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "consistency" / "terms.json"


def _level(risks: list[str]) -> str:
    """The highest level among 'level type' strings, 'none' without any."""
    levels = {r.split(" ", 1)[0] for r in risks}
    return "high" if "high" in levels else "medium" if "medium" in levels else "none"


async def _judged(item: dict[str, Any], party: str, work: Path) -> list[str]:
    work.mkdir(parents=True)
    return await serious_risks(contract_text(item), party, work)


async def _main(path: Path, verbose: bool) -> None:
    groups: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["groups"]
    consistent = found = as_reader = burdened = flagged = controls = 0
    with tempfile.TemporaryDirectory() as tmp:
        for group in groups:
            levels = []
            for item in group["items"]:
                work = Path(tmp) / item["id"]
                if group["burdens"] is None:
                    risks = [
                        r
                        for side in ("A", "B")
                        for r in await _judged(item, item["parties"][side][0], work / side)
                    ]
                    controls += 1
                    flagged += bool(risks)
                else:
                    risks = await _judged(item, item["parties"][group["burdens"]][0], work)
                    burdened += 1
                    found += bool(risks)
                    as_reader += _level(risks) == group["level"]
                levels.append(_level(risks))
            same = len(set(levels)) == 1
            consistent += same
            if verbose and not same:
                print(f"  {group['id']} {group['term'][:50]:50} {' '.join(levels)}")
    print(f"consistent        {consistent:3}/{len(groups):<3} groups")
    print(f"found             {found:3}/{burdened:<3} burdened clauses")
    print(f"level as reader's {as_reader:3}/{burdened:<3}")
    print(f"controls flagged  {flagged:3}/{controls:<3}")


def main() -> None:
    """Run the consistency evaluation and print its figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", type=Path, default=FILE)
    ap.add_argument("--verbose", action="store_true", help="list the groups judged unevenly")
    args = ap.parse_args()
    asyncio.run(_main(args.file, args.verbose))


if __name__ == "__main__":
    main()
