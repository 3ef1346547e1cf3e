"""Prompt-injection detection on the fixture sets: attacks found, controls flagged, per set.

    .venv/bin/python bench/injection_eval.py [--misses]

Sets under tests/fixtures/injection*/cases.yaml: the development set and sets written blind
(each read once before any change it prompted; blind sets added later are the held-out
figure). An attack counts as found when a span overlaps its planted quote.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml

from contract_review.graph.injection import find_injections

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list missed attacks")
    args = parser.parse_args()
    for path in sorted(FIXTURES.glob("injection*/cases.yaml")):
        data = yaml.safe_load(path.read_text("utf-8"))
        found, missed = 0, []
        for attack in data["attacks"]:
            text, quote = attack["text"], attack["quote"]
            at = text.index(quote)
            if any(s < at + len(quote) and e > at for s, e in find_injections(text)):
                found += 1
            else:
                missed.append(f"{attack['id']} ({attack['variant']})")
        flagged = sum(1 for c in data["controls"] if find_injections(c["text"]))
        print(
            f"{path.parent.name:18s} attacks found {found:3d}/{len(data['attacks']):<3d} "
            f"controls flagged {flagged:3d}/{len(data['controls'])}"
        )
        if args.misses:
            for miss in missed:
                print(f"    missed {miss}")


if __name__ == "__main__":
    main()
