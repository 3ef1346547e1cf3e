"""Clause-location score of the generic topic checklist on the CUAD dev contracts.

For each of the twelve CUAD categories the generic plugin names verbatim, a prediction is a
checklist item with that topic; its text is the clause's [start_offset, end_offset) slice of
the contract. A gold excerpt is each span CUAD labels for that category. A prediction matches a
gold span when the token-set Jaccard of their texts is >= 0.5 or the gold span lies inside the
clause (by offsets) — the README's rule. Precision = matched predictions / predictions;
recall = matched gold spans / gold spans.

    .venv/bin/python bench/score_cuad_topics.py [data_dir]
"""

from __future__ import annotations

import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract_review.plugins.generic.topics import CUAD_TOPICS, build_generic_checklist
from contract_review.structure_parser import StructureParser

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cuad_dev"

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


def _match(pred: tuple[int, int, set[str]], gold: tuple[int, int, set[str]]) -> bool:
    ps, pe, pt = pred
    gs, ge, gt = gold
    return (ps <= gs and ge <= pe) or _jaccard(pt, gt) >= 0.5


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def score(data_dir: Path = DEFAULT_DATA, files: set[str] | None = None) -> dict[str, Any]:
    """Per-category and averaged precision/recall; `files` restricts to these txt file names.

    Returns {"categories": {name: {predictions, matched_predictions, gold, matched_gold,
    precision, recall}}, "macro": {precision, recall}, "micro": {...}, "contracts": n,
    "seconds": total checklist time, "slowest": (file, seconds)}.
    """
    records: list[dict[str, Any]] = json.loads((data_dir / "labels.json").read_text("utf-8"))
    parser = StructureParser()
    counts = {c: _Counts() for c in CUAD_TOPICS}
    n = 0
    total_s = 0.0
    slowest: tuple[str, float] = ("", 0.0)
    for record in records:
        name = str(record["txt_file"])
        if files is not None and name not in files:
            continue
        text = (data_dir / "contracts" / name).read_text(encoding="utf-8")
        n += 1
        structure = parser.parse(text, document_id=name)
        t0 = time.perf_counter()
        items = build_generic_checklist(structure)
        elapsed = time.perf_counter() - t0
        total_s += elapsed
        if elapsed > slowest[1]:
            slowest = (name, elapsed)
        labels: dict[str, Any] = record["labels"]
        for category in CUAD_TOPICS:
            preds: list[tuple[int, int, set[str]]] = []
            for item in items:
                if item.topic != category:
                    continue
                node = structure.get_clause(item.clause_id)
                if node is None:
                    continue
                s, e = node.start_offset, node.end_offset
                preds.append((s, e, _tokens(text[s:e])))
            golds = [
                (int(sp["start"]), int(sp["end"]), _tokens(str(sp["text"])))
                for sp in labels.get(category, {}).get("spans", [])
            ]
            c = counts[category]
            c.predictions += len(preds)
            c.gold += len(golds)
            c.matched_predictions += sum(1 for p in preds if any(_match(p, g) for g in golds))
            c.matched_gold += sum(1 for g in golds if any(_match(p, g) for p in preds))
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


def main(argv: list[str] | None = None) -> None:
    """Score the contracts under the data dir (first argument) and print the table."""
    args = sys.argv[1:] if argv is None else argv
    data_dir = Path(args[0]) if args else DEFAULT_DATA
    if not (data_dir / "labels.json").exists():
        raise SystemExit(f"no labels.json under {data_dir}")
    print(report(score(data_dir)))


if __name__ == "__main__":
    main()
