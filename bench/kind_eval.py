"""Contract kind detection (`analysis/kinds.py`) against gold kinds.

On the 139 labelled CUAD filings (dev + judgement slices): the gold kind comes from the
contract's own name — CUAD's 'Document Name' answer, else the category in its record title —
through the small explicit table `GOLD_WORDS` below; a name that names two kinds ('Licence,
Development and Commercialization Agreement') accepts either, and every such name is printed.
A few filings are of no kind in the table (a joint filing agreement, a split-dollar insurance
endorsement): their gold is 'none', right when nothing is claimed.

With `--folds 5` each fold is scored separately (folds by a hash of the file name, as
`score_cuad_topics.fold_of`); rules are developed on folds 1-4 and fold 5 is read as held out.
Then every fixture contract (tests/fixtures/kinds.yaml gives each its gold kind) and every
example under examples/.

    .venv/bin/python bench/kind_eval.py [--folds 5] [--show-gold] [--misses]
"""

from __future__ import annotations

import argparse
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from contract_review.analysis.kinds import detect_kinds
from contract_review.parties import find_parties
from contract_review.playbook.parse import read_yaml
from contract_review.structure_parser import StructureParser
from score_cuad_topics import ALL_DATA, fold_of, labelled

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "kinds.yaml"

GOLD_WORDS: list[tuple[str, str | None]] = [
    # a name of no kind of ours first: these words decide alone
    (r"joint filing", None),
    (r"split-dollar", None),
    (r"net investment income maintenance", None),
    (r"orderly marketing", None),  # a lock-up on selling shares, not marketing
    (r"non-disclosure|confidentiality", "nda"),
    (r"co-branding|branding", "co_branding"),
    (r"affiliate", "affiliate"),
    (r"endorsement", "endorsement"),
    (r"sponsorship", "sponsorship"),
    (r"promotion|marketing|advertising", "marketing"),
    (r"distribut|reseller|dealer", "distribution"),
    (r"agency", "agency"),
    (r"franchise", "franchise"),
    (r"licens", "licence"),
    (r"hosting", "saas"),
    (r"consulting", "consulting"),
    (r"maintenance|support", "maintenance"),
    (r"outsourcing|servic", "services"),
    (r"development|research", "development"),
    (r"manufactur", "manufacturing"),
    (r"supply|purchase", "supply"),
    (r"transportation", "logistics"),
    (r"collaborat|alliance|joint venture|cooperation", "collaboration"),
    (r"intellectual property", "ip_assignment"),
    (r"construction", "construction"),
    (r"guarantee", "guarantee"),
]
"""A word of the contract's name → its kind (None: no kind of ours)."""

ALSO: dict[str, set[str]] = {"ip_assignment": {"licence"}}
"""Gold kinds a second kind may stand for: an 'Intellectual Property Agreement' of a
spin-off allocates ownership and licenses back."""


def gold_of(name: str) -> set[str | None]:
    """The kinds a contract's name names (empty: the table knows none of its words)."""
    low = name.lower()
    out: set[str | None] = set()
    for pattern, kind in GOLD_WORDS:
        if re.search(pattern, low):
            if kind is None:
                return {None}
            out.add(kind)
            out |= ALSO.get(kind, set())
    return out


def cuad_gold(record: dict[str, Any]) -> tuple[set[str | None], str]:
    """(gold kinds, the name they came from) of a CUAD record."""
    name = str(record["labels"].get("Document Name", {}).get("answer", "")).strip()
    gold = gold_of(name)
    if gold:
        return gold, name
    category = re.split(r"[-_]", str(record["title"]))[-1]
    return gold_of(category), category


def _predict(parser: StructureParser, text: str, name: str) -> tuple[str | None, float, str]:
    structure = parser.parse(text, document_id=name)
    kinds = detect_kinds(structure, find_parties(structure))
    if not kinds:
        return None, 0.0, ""
    main = kinds[0]
    why = "; ".join(f"{e.source}:{e.words}" for e in main.evidence[:4])
    others = ", ".join(f"{k.kind} {k.confidence:.2f}" for k in kinds[1:])
    return main.kind, main.confidence, why + (f" | also {others}" if others else "")


def run_cuad(k: int, show_gold: bool, misses: bool) -> None:
    parser = StructureParser()
    per_fold: list[list[bool]] = [[] for _ in range(k)]
    confusion: Counter[tuple[str, str]] = Counter()
    rows = []
    for record, path in labelled(ALL_DATA):
        name = str(record["txt_file"])
        gold, source = cuad_gold(record)
        if show_gold and (len(gold) != 1 or None in gold):
            print(f"  gold {sorted(map(str, gold))} from '{source}'  ({name[:60]})")
        kind, confidence, why = _predict(parser, path.read_text("utf-8"), name)
        ok = kind in gold
        fold = fold_of(name, k)
        per_fold[fold].append(ok)
        if not ok:
            confusion[("/".join(sorted(map(str, gold))), str(kind))] += 1
            rows.append((fold + 1, name, source, gold, kind, confidence, why))
    total = sum(len(f) for f in per_fold)
    right = sum(sum(f) for f in per_fold)
    print(f"CUAD main kind: {right}/{total} = {right / total:.1%}")
    for n, scored in enumerate(per_fold, 1):
        note = "  (held out)" if n == k and k > 1 else ""
        print(
            f"  fold {n}: {sum(scored)}/{len(scored)} = {sum(scored) / max(len(scored), 1):.1%}{note}"
        )
    if k > 1:
        dev = [hit for scored in per_fold[:-1] for hit in scored]
        print(f"  folds 1-{k - 1}: {sum(dev)}/{len(dev)} = {sum(dev) / len(dev):.1%}")
    print("Confusion (gold -> detected):")
    for (gold_kind, got), n in confusion.most_common():
        print(f"  {gold_kind} -> {got}: {n}")
    if misses:
        for fold, name, source, gold, kind, confidence, why in sorted(rows):
            if k > 1 and fold == k:
                print(f"  [fold {fold}, held out] {name[:70]}: miss")
                continue
            print(f"  [fold {fold}] {source[:50]!r} gold {sorted(map(str, gold))} got {kind}")
            print(f"      {confidence:.2f} {why[:220]}")


def run_fixtures(misses: bool) -> None:
    parser = StructureParser()
    table: dict[str, str] = read_yaml(FIXTURES.read_text("utf-8"))["contracts"]
    right = 0
    for rel, gold in table.items():
        path = ROOT / rel
        kind, confidence, why = _predict(parser, path.read_text("utf-8"), path.name)
        ok = kind == gold
        right += ok
        if not ok or misses:
            mark = "ok  " if ok else "MISS"
            print(f"  {mark} {rel}: gold {gold}, got {kind} {confidence:.2f}  {why[:160]}")
    print(f"Fixtures and examples: {right}/{len(table)} = {right / len(table):.1%}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--show-gold", action="store_true", help="print names of two kinds or none")
    ap.add_argument("--misses", action="store_true", help="list the misses with the evidence")
    args = ap.parse_args()
    started = time.perf_counter()
    run_cuad(args.folds, args.show_gold, args.misses)
    run_fixtures(args.misses)
    print(f"({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
