"""Clause-location score of the generic topic checklist on CUAD's labelled contracts.

By default on the 139 labelled filings (the dev and judgement slices); give folders to score
others.

For each of the twelve CUAD categories the generic plugin names verbatim, a prediction is a
checklist item with that topic; its text is the clause's [start_offset, end_offset) slice of
the contract. A gold excerpt is each span CUAD labels for that category. Three match rules:

- `smallest` (the headline): the predicted clause is the smallest parsed clause that holds the
  gold span, or the token-set Jaccard of their texts is >= 0.5;
- `contain`: the gold span lies anywhere inside the predicted clause (rewards huge clauses),
  or Jaccard >= 0.5;
- `jaccard`: Jaccard >= 0.5 alone.

Precision = matched predictions / predictions; recall = matched gold spans / gold spans. With
`--folds K` the contracts are split into K folds (by a hash of the file name, so the split is
fixed) and each fold is scored as held out: the protocol for changing the rules is to develop
on the other folds and read the held-out figure.

    .venv/bin/python bench/score_cuad_topics.py [data_dir] [--rule smallest] [--folds 5]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract_review.models import DocumentStructure
from contract_review.plugins.generic.topics import (
    CUAD_TOPICS,
    build_generic_checklist,
    detect_topics,
)
from contract_review.structure_parser import StructureParser

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cuad_dev"
ALL_DATA = (DEFAULT_DATA, DEFAULT_DATA.parent / "cuad_judgement")
"""The 139 labelled filings: the dev slice and the judgement slice."""
Data = Path | Sequence[Path]


def labelled(data: Data) -> list[tuple[dict[str, Any], Path]]:
    """Every labelled contract of one data folder or several: (its CUAD record, its text
    file)."""
    dirs = [data] if isinstance(data, Path) else list(data)
    out = []
    for folder in dirs:
        records: list[dict[str, Any]] = json.loads((folder / "labels.json").read_text("utf-8"))
        out += [(r, folder / "contracts" / str(r["txt_file"])) for r in records]
    return out


_TOKEN = re.compile(r"\w+")


@dataclass
class _Counts:
    predictions: int = 0
    matched_predictions: int = 0
    gold: int = 0
    matched_gold: int = 0


def _tokens(text: str) -> set[str]:
    return {t.lower() for t in _TOKEN.findall(text)}


def _jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


RULES = ("smallest", "contain", "jaccard")

_Pred = tuple[int, int, set[str], str]  # start, end, tokens, clause id
_Gold = tuple[int, int, set[str], str]  # start, end, tokens, id of the smallest clause holding it


def _match(pred: _Pred, gold: _Gold, rule: str) -> bool:
    ps, pe, pt, pid = pred
    gs, ge, gt, gid = gold
    if _jaccard(pt, gt) >= 0.5:
        return True
    if rule == "smallest":
        return pid == gid
    if rule == "contain":
        return ps <= gs and ge <= pe
    return False


def _smallest_holding(structure: DocumentStructure, start: int, end: int) -> str:
    """Id of the smallest parsed clause that holds [start, end), '' when none does."""
    node = structure.clause_at(start)
    while node is not None and node.end_offset < end:
        node = structure.get_clause(node.parent_id) if node.parent_id else None
    return node.clause_id if node is not None else ""


def fold_of(name: str, k: int) -> int:
    """The fixed fold (0 … k-1) of a contract file name, by a hash of the name."""
    return int(hashlib.sha256(name.encode()).hexdigest(), 16) % k


def folds(data_dir: Data, k: int) -> list[set[str]]:
    """The contracts' file names in `k` fixed folds (`fold_of`)."""
    out: list[set[str]] = [set() for _ in range(k)]
    for record, _ in labelled(data_dir):
        name = str(record["txt_file"])
        out[fold_of(name, k)].add(name)
    return out


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _located(structure: DocumentStructure) -> dict[str, list[str]]:
    """Per topic, the clauses where it is written: a matched clause's sub-clauses that carry
    the topic (`TopicMatch.parts`), else the clause."""
    out: dict[str, list[str]] = {}
    for m in detect_topics(structure):
        ids = out.setdefault(m.topic, [])
        ids.extend(i for i in (m.parts or (m.clause_id,)) if i not in ids)
    return out


def score(
    data_dir: Data = DEFAULT_DATA,
    files: set[str] | None = None,
    rule: str = "smallest",
    where: str = "located",
) -> dict[str, Any]:
    """Per-category and averaged precision/recall under `rule` (one of RULES); `files`
    restricts to these txt file names; `where`: 'located' scores the clauses where each topic
    is written (`TopicMatch.parts`), 'checklist' the checklist items' clauses.

    Returns {"categories": {name: {predictions, matched_predictions, gold, matched_gold,
    precision, recall}}, "macro": {precision, recall}, "micro": {...}, "contracts": n,
    "seconds": total checklist time, "slowest": (file, seconds)}.
    """
    parser = StructureParser()
    counts = {c: _Counts() for c in CUAD_TOPICS}
    n = 0
    total_s = 0.0
    slowest: tuple[str, float] = ("", 0.0)
    for record, path in labelled(data_dir):
        name = str(record["txt_file"])
        if files is not None and name not in files:
            continue
        text = path.read_text(encoding="utf-8")
        n += 1
        structure = parser.parse(text, document_id=name)
        t0 = time.perf_counter()
        items = build_generic_checklist(structure)
        located = _located(structure) if where == "located" else {}
        elapsed = time.perf_counter() - t0
        total_s += elapsed
        if elapsed > slowest[1]:
            slowest = (name, elapsed)
        labels: dict[str, Any] = record["labels"]
        for category in CUAD_TOPICS:
            preds: list[_Pred] = []
            ids = (
                located.get(category, [])
                if where == "located"
                else [i.clause_id for i in items if category in i.topics]
            )
            for clause_id in ids:
                node = structure.get_clause(clause_id)
                if node is None:
                    continue
                s, e = node.start_offset, node.end_offset
                preds.append((s, e, _tokens(text[s:e]), node.clause_id))
            golds: list[_Gold] = [
                (
                    int(sp["start"]),
                    int(sp["end"]),
                    _tokens(str(sp["text"])),
                    _smallest_holding(structure, int(sp["start"]), int(sp["end"])),
                )
                for sp in labels.get(category, {}).get("spans", [])
            ]
            c = counts[category]
            c.predictions += len(preds)
            c.gold += len(golds)
            c.matched_predictions += sum(1 for p in preds if any(_match(p, g, rule) for g in golds))
            c.matched_gold += sum(1 for g in golds if any(_match(p, g, rule) for p in preds))
    categories: dict[str, dict[str, Any]] = {}
    for category, c in counts.items():
        categories[category] = {
            "predictions": c.predictions,
            "matched_predictions": c.matched_predictions,
            "gold": c.gold,
            "matched_gold": c.matched_gold,
            "precision": _ratio(c.matched_predictions, c.predictions),
            "recall": _ratio(c.matched_gold, c.gold),
        }
    precisions = [v["precision"] for v in categories.values() if v["precision"] is not None]
    recalls = [v["recall"] for v in categories.values() if v["recall"] is not None]
    tp = sum(c.predictions for c in counts.values())
    mp = sum(c.matched_predictions for c in counts.values())
    tg = sum(c.gold for c in counts.values())
    mg = sum(c.matched_gold for c in counts.values())
    return {
        "contracts": n,
        "categories": categories,
        "macro": {
            "precision": sum(precisions) / len(precisions) if precisions else 0.0,
            "recall": sum(recalls) / len(recalls) if recalls else 0.0,
        },
        "micro": {
            "predictions": tp,
            "matched_predictions": mp,
            "gold": tg,
            "matched_gold": mg,
            "precision": _ratio(mp, tp) or 0.0,
            "recall": _ratio(mg, tg) or 0.0,
        },
        "seconds": total_s,
        "slowest": slowest,
    }


def _fmt(value: float | None) -> str:
    return "   -  " if value is None else f"{value:6.3f}"


def report(result: dict[str, Any]) -> str:
    """The score as a printable table."""
    lines = [
        f"{'category':<30} {'pred':>5} {'ok':>5} {'prec':>6}   {'gold':>5} {'ok':>5} {'recall':>6}",
        "-" * 72,
    ]
    for name, v in result["categories"].items():
        lines.append(
            f"{name:<30} {v['predictions']:>5} {v['matched_predictions']:>5} {_fmt(v['precision'])}"
            f"   {v['gold']:>5} {v['matched_gold']:>5} {_fmt(v['recall'])}"
        )
    lines.append("-" * 72)
    macro, micro = result["macro"], result["micro"]
    lines.append(
        f"{'macro average':<30} {'':>5} {'':>5} {_fmt(macro['precision'])}   {'':>5} {'':>5} {_fmt(macro['recall'])}"
    )
    lines.append(
        f"{'micro total':<30} {micro['predictions']:>5} {micro['matched_predictions']:>5} "
        f"{_fmt(micro['precision'])}   {micro['gold']:>5} {micro['matched_gold']:>5} {_fmt(micro['recall'])}"
    )
    slow_name, slow_s = result["slowest"]
    lines.append(
        f"{result['contracts']} contracts; checklist time {result['seconds']:.2f} s total, "
        f"slowest {slow_s * 1000:.0f} ms ({slow_name[:50]})"
    )
    return "\n".join(lines)


def cross_validated(data_dir: Data, k: int, rule: str) -> dict[str, Any]:
    """Each fold scored as held out: per category the mean and the lowest fold's precision
    and recall, and the micro figures pooled over the held-out folds."""
    results = [score(data_dir, fold, rule) for fold in folds(data_dir, k)]
    categories: dict[str, dict[str, Any]] = {}
    for name in CUAD_TOPICS:
        per = [r["categories"][name] for r in results]
        ps = [v["precision"] for v in per if v["precision"] is not None]
        rs = [v["recall"] for v in per if v["recall"] is not None]
        categories[name] = {
            "precision_mean": statistics.fmean(ps) if ps else None,
            "precision_min": min(ps) if ps else None,
            "recall_mean": statistics.fmean(rs) if rs else None,
            "recall_min": min(rs) if rs else None,
        }
    return {"folds": [r["micro"] for r in results], "categories": categories}


def cv_report(result: dict[str, Any], rule: str) -> str:
    """The cross-validated score as a printable table."""
    lines = [
        f"held-out folds, rule '{rule}'",
        f"{'category':<30} {'P mean':>7} {'P min':>7}   {'R mean':>7} {'R min':>7}",
        "-" * 64,
    ]
    for name, v in result["categories"].items():
        lines.append(
            f"{name:<30} {_fmt(v['precision_mean']):>7} {_fmt(v['precision_min']):>7}   "
            f"{_fmt(v['recall_mean']):>7} {_fmt(v['recall_min']):>7}"
        )
    lines.append("-" * 64)
    for i, micro in enumerate(result["folds"], 1):
        lines.append(
            f"fold {i}: micro precision {micro['precision']:.3f}, recall {micro['recall']:.3f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Score the contracts under the data dir and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("data_dir", nargs="*", type=Path, default=list(ALL_DATA))
    ap.add_argument("--rule", choices=RULES, default="smallest")
    ap.add_argument("--folds", type=int, default=0, help="Score K held-out folds.")
    ap.add_argument("--where", choices=("located", "checklist"), default="located")
    args = ap.parse_args(argv)
    for folder in args.data_dir:
        if not (folder / "labels.json").exists():
            raise SystemExit(f"no labels.json under {folder}")
    if args.folds:
        print(cv_report(cross_validated(args.data_dir, args.folds, args.rule), args.rule))
    else:
        print(f"rule '{args.rule}', predictions: {args.where}")
        print(report(score(args.data_dir, rule=args.rule, where=args.where)))


if __name__ == "__main__":
    main()
