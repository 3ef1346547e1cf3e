"""Clause inventory against the CUAD labels: presence F1 per category and value accuracy.

By default on the 139 labelled filings (the dev and judgement slices); give folders to score
others.

Presence: a category is present in a contract when CUAD labels a span for it; the inventory
predicts it present or not. F1 per category over the contracts; macro F1 over the categories
with at least 8 positive contracts in the dev slice (the rarer ones are reported as counts).
With `--folds K` every figure is also given per fixed held-out fold (the split of
`score_cuad_topics.fold_of`): the protocol for changing the recognisers is to develop on the other
folds and read the held-out one.

Values, where CUAD's answer holds one (Document Name, Parties, Agreement Date, Effective Date,
Expiration Date, Renewal Term, Notice Period to Terminate Renewal, Governing Law): dates to
ISO, periods to a number and a unit, jurisdictions to their name (a country after the place
ignored: 'Ontario, Canada' is 'Ontario'), names compared without case, punctuation and spaces
('&' as 'and'), a period in months as in years ('12 months' is '1 year'), a party's without its legal form ('Sibannac, Inc.' is CUAD's 'Sibannac') and
allowing CUAD's misspellings ('Phamaceuticals'; nine tenths alike); a date CUAD gives as left blank ('[]/[]/2019') is right when the inventory gives
no date and quotes a blank date; accuracy = right values / contracts whose answer is not empty.

With `--blind` the values are scored instead on the English and Chinese contracts of
`tests/fixtures/inventory_blind*/`, written (with their answers) by someone who had not seen the
inventory's rules: every value, also where the right answer is that there is none.

    .venv/bin/python bench/inventory_eval.py [data_dir] [--folds 5] [--show CATEGORY] [--blind]
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import statistics
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from contract_review.models import ClauseInventory
from contract_review.plugins.generic.inventory import (
    CATEGORIES,
    VALUE_CATEGORIES,
    build_inventory,
    has_blank_date,
    normalise_jurisdiction,
    normalise_period,
)
from contract_review.structure_parser import StructureParser
from score_cuad_topics import ALL_DATA, Data, fold_of, labelled

MIN_POSITIVES = 8


@dataclass
class _Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def f1(self) -> float | None:
        if self.tp + self.fp + self.fn == 0:
            return None
        return 2 * self.tp / (2 * self.tp + self.fp + self.fn)


def _plain(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.casefold()).strip()


def _cuad_date(answer: str) -> str:
    m = re.search(r"(\d{1,2})/(\d{1,2})/(\d{4})", answer)
    if m is None:
        return "perpetual" if "perpetu" in answer.lower() else ""
    try:
        return date(int(m.group(3)), int(m.group(1)), int(m.group(2))).isoformat()
    except ValueError:
        return ""


# CUAD writes a date the contract leaves blank with '[]' ('[]/[]/2019')
_CUAD_BLANK = re.compile(r"\[\]")


def _in_months(period: str) -> str:
    """'1 year' as '12 months' ('twelve (12) months' and 'one year' are one period)."""
    m = re.fullmatch(r"(\d+) years?", period)
    return f"{12 * int(m.group(1))} months" if m else re.sub(r"^1 month$", "1 months", period)


def value_right(category: str, predicted: str, answer: str, quote: str = "") -> bool:
    """Whether the inventory's value matches CUAD's answer, both normalised. A date the
    contract leaves blank is answered right by no date, quoting the blank line (`quote`)."""
    if category in ("Agreement Date", "Effective Date", "Expiration Date"):
        if _CUAD_BLANK.search(answer) and not predicted:
            return has_blank_date(quote)
        return bool(predicted) and predicted == _cuad_date(answer)
    if category in ("Renewal Term", "Notice Period to Terminate Renewal"):
        gold = "perpetual" if "perpetu" in answer.lower() else normalise_period(answer)
        return bool(predicted) and _in_months(predicted) == _in_months(gold)
    if category == "Governing Law":
        gold_place = normalise_jurisdiction(answer)
        # 'Ontario' answers 'Province of Ontario, Canada': the country after the place adds nothing
        return _plain(predicted) in (_plain(gold_place), _plain(gold_place.split(",")[0]))
    if category == "Document Name":
        # CUAD's answers are sometimes cut short ('JOINT VENTURE AGREEMEN'): a name holding
        # the other and almost as long counts
        # '&' is 'and', and CUAD's copies lose spaces ('VIRTUALNETWORK'): compare without them
        got, gold_name = (
            _plain(re.sub("&", " and ", x)).replace(" ", "") for x in (predicted, answer)
        )
        short, long_ = sorted((got, gold_name), key=len)
        return bool(got) and short in long_ and len(short) >= 0.85 * len(long_)
    # Parties: every party found is named in the answer, and at least two are found.
    names = [n for n in predicted.split("; ") if n]
    gold = _plain(answer)
    gold_parties = [k for part in answer.split(";") if (k := _party_key(part))]
    return len(names) >= 2 and all(
        _plain(n) in gold
        or _party_key(n) in gold.replace(" ", "")
        or any(difflib.SequenceMatcher(None, _party_key(n), k).ratio() >= 0.9 for k in gold_parties)
        for n in names
    )


# legal forms a party's name may be given with or without ('Sibannac, Inc.', 'Sibannac Inc')
_LEGAL_FORMS = frozenset(
    {"inc", "incorporated", "corp", "corporation", "co", "company", "llc", "l", "c", "ltd",
     "limited", "plc", "lp", "p", "llp", "gmbh", "ag", "bv", "b", "v", "nv", "n", "sa", "s", "a",
     "spa", "pty"}
)  # fmt: skip


def _party_key(name: str) -> str:
    """A party's name to compare: its labels ('("Bravatek")'), legal form, case, punctuation
    and spaces dropped ('IndeLiving' is 'Inde Living')."""
    name = re.sub(r"\([^)]*\)?|[\"“][^\"”]*[\"”]?", " ", name)
    words = _plain(name).split()
    while len(words) > 1 and words[-1] in _LEGAL_FORMS:
        words.pop()
    return "".join(words)


def evaluate(data_dir: Data, k: int = 0) -> dict[str, Any]:
    """Presence counts and value results per category (and per fold when `k`)."""
    parser = StructureParser()
    presence: dict[tuple[int, str], _Counts] = {}
    values: dict[tuple[int, str], list[bool]] = {}
    positives: dict[str, int] = dict.fromkeys(CATEGORIES, 0)
    misses: dict[str, list[str]] = {c: [] for c in CATEGORIES}
    seconds = 0.0
    contracts = labelled(data_dir)
    for record, path in contracts:
        name = str(record["txt_file"])
        fold = fold_of(name, k) if k else 0
        text = path.read_text(encoding="utf-8")
        structure = parser.parse(text, document_id=name)
        t0 = time.perf_counter()
        inventory: ClauseInventory = build_inventory(structure)
        seconds += time.perf_counter() - t0
        labels: dict[str, Any] = record["labels"]
        for category in CATEGORIES:
            label = labels.get(category, {})
            gold = bool(label.get("spans"))
            entry = inventory.get(category)
            assert entry is not None
            positives[category] += gold
            for key in ((fold, category), (-1, category)):
                c = presence.setdefault(key, _Counts())
                c.tp += gold and entry.present
                c.fp += entry.present and not gold
                c.fn += gold and not entry.present
                c.tn += not gold and not entry.present
            answer = str(label.get("answer") or "")
            if category in VALUE_CATEGORIES and gold and answer.strip():
                right = value_right(category, entry.value, answer, entry.quote)
                for key in ((fold, category), (-1, category)):
                    values.setdefault(key, []).append(right)
                if not right:
                    misses[category].append(f"{name[:40]}: got {entry.value!r}, CUAD {answer!r}")
            elif gold != entry.present:
                misses[category].append(
                    f"{name[:40]}: {'missed' if gold else 'false'} {entry.clause_ids[:3]}"
                )
    return {
        "presence": presence,
        "values": values,
        "positives": positives,
        "misses": misses,
        "folds": k,
        "contracts": len(contracts),
        "seconds": seconds,
    }


def _fmt(x: float | None) -> str:
    return "   -  " if x is None else f"{x:6.3f}"


def report(result: dict[str, Any]) -> str:
    """The figures as a printable table."""
    presence: dict[tuple[int, str], _Counts] = result["presence"]
    values: dict[tuple[int, str], list[bool]] = result["values"]
    positives: dict[str, int] = result["positives"]
    k: int = result["folds"]
    lines = [
        f"{'category':<36} {'pos':>4} {'tp':>4} {'fp':>4} {'fn':>4} {'F1':>6}  {'value':>11}",
        "-" * 78,
    ]
    main = [c for c in CATEGORIES if positives[c] >= MIN_POSITIVES]
    for category in CATEGORIES:
        c = presence[(-1, category)]
        v = values.get((-1, category))
        value = f"{sum(v):>3}/{len(v):<3} {sum(v) / len(v):.2f}" if v else ""
        mark = "" if category in main else " *"
        lines.append(
            f"{category + mark:<36} {positives[category]:>4} {c.tp:>4} {c.fp:>4} {c.fn:>4} "
            f"{_fmt(c.f1())}  {value:>11}"
        )
    lines.append("-" * 78)
    f1s = [f for c in main if (f := presence[(-1, c)].f1()) is not None]
    lines.append(
        f"macro F1 over the {len(main)} categories with >= {MIN_POSITIVES} positives: "
        f"{statistics.fmean(f1s):.3f}   (* rarer: counts only)"
    )
    all_values = [x for c in VALUE_CATEGORIES for x in values.get((-1, c), [])]
    if all_values:
        lines.append(
            f"value accuracy, {len(VALUE_CATEGORIES)} categories pooled: "
            f"{sum(all_values)}/{len(all_values)} = {sum(all_values) / len(all_values):.3f}"
        )
    for fold in range(k):
        fold_f1 = [
            f for c in main if (fc := presence.get((fold, c))) and (f := fc.f1()) is not None
        ]
        fold_v = [x for c in VALUE_CATEGORIES for x in values.get((fold, c), [])]
        lines.append(
            f"fold {fold + 1} held out: macro F1 {statistics.fmean(fold_f1):.3f}, value accuracy "
            f"{sum(fold_v) / len(fold_v) if fold_v else 0:.3f} ({len(fold_v)} values)"
        )
    lines.append(f"{result['contracts']} contracts; inventory time {result['seconds']:.2f} s")
    return "\n".join(lines)


FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
BLIND = FIXTURES / "inventory_blind"
_BLIND_FIELDS = {
    "document_name": "Document Name",
    "parties": "Parties",
    "agreement_date": "Agreement Date",
    "effective_date": "Effective Date",
    "expiration_date": "Expiration Date",
    "renewal_term": "Renewal Term",
    "renewal_notice": "Notice Period to Terminate Renewal",
    "governing_law": "Governing Law",
}


def _same_name(a: str, b: str) -> bool:
    """Names equal without case, punctuation and spacing (Chinese kept)."""

    def key(text: str) -> str:
        return re.sub(r"[\W_]+", "", text.casefold())

    return key(a) == key(b)


def evaluate_blind(folder: Path = BLIND) -> dict[str, Any]:
    """The inventory's values against contracts written blind (`folder`: NAME.txt with its
    answers in NAME.json, format in the folder's README): per field, right / stated, and each
    mismatch. A field the answer leaves empty must come out empty too."""
    parser = StructureParser()
    right: dict[str, int] = dict.fromkeys(_BLIND_FIELDS, 0)
    total: dict[str, int] = dict.fromkeys(_BLIND_FIELDS, 0)
    misses: list[str] = []
    for answers in sorted(folder.glob("*.json")):
        gold: dict[str, Any] = json.loads(answers.read_text("utf-8"))
        text = answers.with_suffix(".txt").read_text("utf-8")
        inventory = build_inventory(parser.parse(text, document_id=answers.stem))
        got = {e.category: e.value for e in inventory.entries}
        for field_name, category in _BLIND_FIELDS.items():
            want = gold.get(field_name, "")
            value = got.get(category, "")
            if field_name == "parties":
                names = [n for n in value.split("; ") if n]
                ok = len(names) == len(want) and all(
                    any(_same_name(n, w) for n in names) for w in want
                )
            elif field_name == "document_name":
                ok = _same_name(value, want)
            elif field_name == "governing_law":
                ok = _same_name(value, normalise_jurisdiction(want)) if want else not value
            else:
                ok = value == want
            total[field_name] += 1
            right[field_name] += ok
            if not ok:
                misses.append(f"{answers.stem[:40]} {field_name}: got {value!r}, want {want!r}")
    return {"right": right, "total": total, "misses": misses}


def main() -> None:
    """Run the evaluation and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("data_dir", nargs="*", type=Path, default=list(ALL_DATA))
    ap.add_argument("--folds", type=int, default=0)
    ap.add_argument("--show", default="", help="Print the misses of this category.")
    ap.add_argument(
        "--blind", action="store_true", help=f"Score the contracts written blind ({BLIND.name})."
    )
    args = ap.parse_args()
    if args.blind:
        for folder in sorted(FIXTURES.glob("inventory_blind*")):
            blind = evaluate_blind(folder)
            print(f"{folder.name}")
            for name in _BLIND_FIELDS:
                print(f"  {name:<20} {blind['right'][name]:>3}/{blind['total'][name]}")
            done = sum(blind["right"].values())
            print(f"  {'all values':<20} {done:>3}/{sum(blind['total'].values())}")
            print("\n".join(f"  {miss}" for miss in blind["misses"]))
        return
    for folder in args.data_dir:
        if not (folder / "labels.json").exists():
            raise SystemExit(f"no labels.json under {folder}")
    result = evaluate(args.data_dir, args.folds)
    print(report(result))
    if args.show:
        print("\n".join(result["misses"].get(args.show, [])))


if __name__ == "__main__":
    main()
