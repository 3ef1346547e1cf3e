"""How well the review judges single clauses from each side: a clause set written for it.

Each item of `tests/fixtures/playbook_eval/clauses*.json` is one or two sentences between two
parties (labels and names), marked with the party it burdens or "none" (a balanced clause).
Each item becomes a short contract (a preamble naming the parties, then the clause) reviewed
for each party in turn (deterministic, generic domain):

* found — a burdened item has a medium or high risk on its text acting for the party it
  burdens;
* side switch — no such risk acting for the other party;
* false alarms — a balanced item with such a risk, for either party.

    .venv/bin/python bench/clause_eval.py [--file F] [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from contract_review.config import Settings
from contract_review.models import ReviewResult, RiskLevel
from contract_review.review import ReviewOptions, start_review

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "playbook_eval"
SERIOUS = (RiskLevel.MEDIUM, RiskLevel.HIGH)


def contract_text(item: dict[str, Any]) -> str:
    """The item as a short contract: a preamble naming its two parties, then the clause."""
    (a_label, a_name), (b_label, b_name) = item["parties"]["A"], item["parties"]["B"]
    if item["language"].startswith("zh"):
        return (
            f"合同\n\n{a_name}（以下简称“{a_label}”）\n{b_name}（以下简称“{b_label}”）\n\n"
            f"第一条 约定\n1.1 {item['text']}\n"
        )
    return (
        f'AGREEMENT\n\nThis Agreement is made between {a_name} (the "{a_label}") and '
        f'{b_name} (the "{b_label}").\n\n1. Terms\n1.1 {item["text"]}\n'
    )


async def serious_risks(text: str, party: str, work: Path) -> list[str]:
    """'level type' of each medium or high risk a review of `text` for `party` finds."""
    contract = work / "c.txt"
    contract.write_text(text, encoding="utf-8")
    out = work / "out"
    options = ReviewOptions(file=contract, domain="generic", party=party, approve="none", out=out)
    await start_review(options, settings=Settings(state_dir=work / "state"))
    result = ReviewResult.model_validate_json((out / "findings.json").read_text())
    # a missing protection may quote where the contract gives it to the other side only
    return [
        f"{r.risk_level.value} {r.risk_type}"
        for r in [r for c in result.clauses for r in c.findings.risks] + list(result.missing)
        if r.risk_level in SERIOUS and r.location is not None
    ]


async def _main(path: Path, verbose: bool) -> None:
    items: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["items"]
    tally = {"found": 0, "burdened": 0, "switch_ok": 0, "alarms": 0, "balanced": 0}
    by_lang: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n, item in enumerate(items):
            text = contract_text(item)
            lang = by_lang.setdefault(item["language"][:2], dict.fromkeys(tally, 0))
            flagged = {}
            for side in ("A", "B"):
                work = Path(tmp) / f"{n}{side}"
                work.mkdir()
                flagged[side] = await serious_risks(text, item["parties"][side][0], work)
            burdens = item["burdens"]
            if burdens == "none":
                alarm = bool(flagged["A"] or flagged["B"])
                for t in (tally, lang):
                    t["balanced"] += 1
                    t["alarms"] += alarm
                if alarm and verbose:
                    print(f"  false alarm {item['id']} {item.get('why', '')[:40]}: {flagged}")
                continue
            other = "B" if burdens == "A" else "A"
            found, switched = bool(flagged[burdens]), not flagged[other]
            for t in (tally, lang):
                t["burdened"] += 1
                t["found"] += found
                t["switch_ok"] += switched
            if verbose and not found:
                print(f"  missed {item['id']} {item.get('why', '')[:40]}: {item['text'][:110]}")
            if verbose and not switched:
                print(f"  wrong side {item['id']} {item.get('why', '')[:40]}: {flagged[other]}")

    def line(name: str, t: dict[str, int]) -> str:
        def pct(a: int, b: int) -> str:
            return f"{a:3d}/{b:<3d} {100 * a / b:5.1f}%" if b else "    -          "

        return (
            f"{name:8} found {pct(t['found'], t['burdened'])}   side switch "
            f"{pct(t['switch_ok'], t['burdened'])}   balanced flagged "
            f"{pct(t['alarms'], t['balanced'])}"
        )

    for name, t in sorted(by_lang.items()):
        print(line(name, t))
    print(line("TOTAL", tally))


def main() -> None:
    """Run the clause evaluation and print its figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", type=Path, default=FIXTURES / "clauses_blind.json")
    ap.add_argument("--verbose", action="store_true", help="list misses and false alarms")
    args = ap.parse_args()
    asyncio.run(_main(args.file, args.verbose))


if __name__ == "__main__":
    main()
