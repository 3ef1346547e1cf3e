"""Findings of the bundled examples, compared between two versions of the engine.

Reviews every bundled example (deterministic, all redlines approved) with this checkout and with
another git revision (checked out in a temporary worktree and run with the same virtualenv),
then prints, per example, whether risks and redlines are identical and what differs.

    .venv/bin/python bench/compare_findings.py --against 5135cf4

Cases whose options the other revision does not know (e.g. `--party neutral`) are reported as
"new"; a case whose findings differ is listed with the risks and redlines only one side has.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

CASES: dict[str, list[str]] = {
    "fidic_gc_pc_er": [
        "examples/fidic/particular_conditions_amending_en.txt",
        "--domain", "fidic",
        "--baseline", "examples/fidic/general_conditions_en.txt",
        "--reference", "examples/fidic/employers_requirements_en.txt",
        "--party", "Contractor",
    ],
    "fidic_gc_pc_er_criteria": [
        "examples/fidic/particular_conditions_amending_en.txt",
        "--domain", "fidic",
        "--baseline", "examples/fidic/general_conditions_en.txt",
        "--party", "Contractor",
        "--criteria", "examples/criteria/generic_playbook.csv",
    ],
    "fidic_pc_only": ["examples/fidic/particular_conditions_en.txt", "--domain", "fidic",
                      "--party", "Contractor"],
    "construction_zh": ["examples/cn/construction_contract_zh.txt", "--domain", "fidic",
                        "--party", "承包人"],
    "construction_zh_criteria": ["examples/cn/construction_contract_zh.txt", "--domain", "fidic",
                                 "--party", "承包人",
                                 "--criteria", "examples/criteria/construction_playbook_zh.yaml"],
    "spa_buyer": ["examples/sha_spa/spa_en.txt", "--domain", "sha_spa", "--party", "Buyer"],
    "spa_seller": ["examples/sha_spa/spa_en.txt", "--domain", "sha_spa", "--party", "Seller"],
    "sha_zh": ["examples/sha_spa/shareholders_agreement_zh.txt", "--domain", "sha_spa",
               "--party", "投资方"],
    "services": ["examples/generic/services_agreement_en.md", "--party", "Customer"],
    "supply": ["examples/generic/supply_agreement_en.txt", "--party", "Buyer"],
    "supply_criteria": ["examples/generic/supply_agreement_en.txt", "--party", "Buyer",
                        "--criteria", "examples/criteria/generic_playbook.csv"],
}  # fmt: skip


def _digest(findings: dict[str, Any]) -> dict[str, list[str]]:
    """Risks and redlines as comparable lines (ids, dates and task facts left out)."""
    risks, diffs = [], []
    for clause in findings["clauses"]:
        f = clause["findings"]
        for r in f["risks"]:
            quote = (r.get("location") or {}).get("original_text", "")
            reason = r.get("reason", "")
            risks.append(
                f"{f['clause_id']} {r['risk_level']} {r['risk_type']} | {quote[:80]}"
                + (f" | reason …{reason[-70:]}" if reason else "")
            )
        for d in f["diffs"]:
            diffs.append(
                f"{f['clause_id']} {d['action_type']} {d['status']} | "
                f"{d['original_text'][:60]!r} -> {d['proposed_text'][:60]!r}"
            )
    return {"risks": sorted(risks), "diffs": sorted(diffs)}


def _run(src: Path, cwd: Path, args: list[str], work: Path) -> dict[str, list[str]] | str:
    """One review with the engine under `src`; the digest, or the error line."""
    out = work / "out"
    env = {**os.environ, "PYTHONPATH": str(src), "STATE_DIR": str(work / "state")}
    env.pop("LLM_BASE_URL", None)
    cmd = [sys.executable, "-m", "contract_review.cli", "review", *args]
    proc = subprocess.run(
        [*cmd, "--approve", "all", "--out", str(out)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        return f"exit {proc.returncode}: {lines[-1] if lines else ''}"
    return _digest(json.loads((out / "findings.json").read_text()))


def main() -> None:
    """Run every case on both versions and print the comparison."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", default="HEAD", help="git revision to compare with")
    ap.add_argument("--case", action="append", help="only these cases")
    args = ap.parse_args()
    cases = {k: v for k, v in CASES.items() if not args.case or k in args.case}
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(old), args.against],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        try:
            same = 0
            for name, case in cases.items():
                before = _run(old / "src", old, case, Path(tmp) / f"{name}-old")
                after = _run(ROOT / "src", ROOT, case, Path(tmp) / f"{name}-new")
                if before == after:
                    same += 1
                    n = len(after["risks"]) if isinstance(after, dict) else 0
                    print(f"{name:26} identical ({n} risks)")
                    continue
                print(f"{name:26} DIFFERENT")
                if isinstance(before, str) or isinstance(after, str):
                    print(f"    {args.against}: {before if isinstance(before, str) else 'ok'}")
                    print(f"    now: {after if isinstance(after, str) else 'ok'}")
                    continue
                for kind in ("risks", "diffs"):
                    gone = sorted(set(before[kind]) - set(after[kind]))
                    new = sorted(set(after[kind]) - set(before[kind]))
                    print(f"    {kind}: {len(before[kind])} -> {len(after[kind])}")
                    for line in gone:
                        print(f"      - {line}")
                    for line in new:
                        print(f"      + {line}")
            print(f"\n{same} of {len(cases)} cases identical to {args.against}")
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=False
            )


if __name__ == "__main__":
    main()
