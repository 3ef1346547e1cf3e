"""Judgement on real filings: the review measured against a lawyer's answer key.

The key (`tests/fixtures/filings_judgement/`, its README says how it was written) gives, for
40 SEC filings of 15 kinds, the party a lawyer acts for and the points that lawyer raises at
medium or high. Each contract is reviewed for that party (rules, no model, nothing approved),
and every medium or high finding is looked up in the readers' classification
(`classification/<slug>.yaml`: keep, wrong level, wrong side or noise, and the key points a
finding raises). Prints, for folds 1-3 (rules may be changed after reading them) and fold 4
(held out):

- party acceptance: the key's `acting_for` and `party_name` given to `--party`;
- recall: key points raised by a medium/high finding, and by a finding at any level;
- precision: the share of classified medium/high findings worth raising (keep), with the count
  of findings no reader has classified yet (a rule change brings new ones: `--unclassified`
  writes them out for a reader);
- a table per contract kind, and the missed points grouped by cause.

    .venv/bin/python bench/filings_judgement.py [--folds 1,2,3,4] [--unclassified FILE]
        [--keep-findings DIR] [--json FILE] [--misses]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from contract_review.config import Settings
from contract_review.documents import load_task_document
from contract_review.errors import InputError
from contract_review.models import DocumentRole, DocumentStructure
from contract_review.parties import PartyRequired, find_parties, resolve_party
from contract_review.review import ReviewOptions, start_review

ROOT = Path(__file__).resolve().parents[1]
KEY = ROOT / "tests" / "fixtures" / "filings_judgement"
HELD_OUT = 4
RAISED = ("keep", "wrong_level")
"""Verdicts of a finding that raises the point it names (at another level, for wrong_level)."""


@dataclass
class Finding:
    """One risk of the review, with what a reader said of it."""

    id: str
    clause: str
    level: str
    title: str
    quote: str
    description: str = ""
    """What the finding says (a missing protection has no quote: its reader needs this)."""
    verdict: str = ""
    points: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    """One contract of the key, reviewed."""

    slug: str
    kind: str
    fold: int
    accepted: bool
    name_accepted: bool
    points: list[dict[str, Any]]
    findings: list[Finding]
    clause_of: dict[str, str]
    """Key point id → the clause that holds its quote in today's parse."""
    skipped: set[str]
    """Clauses the plan found no topic or position for (low priority: in LLM mode the agent
    skips them; the rules run on every clause)."""
    gaps: list[dict[str, Any]]
    error: str = ""

    @property
    def strong(self) -> list[Finding]:
        return [f for f in self.findings if f.level in ("high", "medium")]

    def raised(self, levels: tuple[str, ...]) -> set[str]:
        """Key points a present finding at one of `levels` raises."""
        return {
            p for f in self.findings if f.level in levels and f.verdict in RAISED for p in f.points
        }


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _find(text: str, quote: str) -> int:
    """Offset of `quote` in `text`, spacing aside; -1 when absent."""
    words = quote.split()
    if not words:
        return -1
    m = re.search(r"\s+".join(map(re.escape, words)), text)
    return m.start() if m else -1


def load_key(folds: set[int]) -> list[dict[str, Any]]:
    """The key's contracts in the given folds, with their classification."""
    out = []
    for path in sorted(KEY.glob("*.yaml")):
        key = yaml.safe_load(path.read_text(encoding="utf-8"))
        if int(key["fold"]) not in folds:
            continue
        key["slug"] = path.stem
        cls = KEY / "classification" / path.name
        key["classified"] = (
            yaml.safe_load(cls.read_text(encoding="utf-8")) or [] if cls.is_file() else []
        )
        out.append(key)
    return out


def _accepts(structure: DocumentStructure, wanted: str) -> bool:
    try:
        side = resolve_party(structure, wanted, find_parties(structure))
    except PartyRequired:
        return False
    return side is not None and not side.neutral


def _entry_for(f: Finding, entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The reader's entry for a finding: by its id (one id may stand at several quotes of a
    clause: then the entry whose quote overlaps the finding's), else by clause, title and
    quote, for a finding whose wording (so id) a change reworded."""
    quote = _norm(f.quote)

    def overlaps(e: dict[str, Any]) -> bool:
        q = _norm(str(e.get("quote") or ""))
        return (bool(q) and (q in quote or quote in q)) or (not q and not quote)

    same = [e for e in entries if str(e["id"]) == f.id]
    if len(same) == 1:
        return same[0]
    same = [e for e in same if overlaps(e)]
    if same:
        return same[0]
    return next(
        (
            e
            for e in entries
            if str(e.get("clause") or "") == f.clause
            and str(e.get("title", "")) == f.title
            and overlaps(e)
        ),
        None,
    )


def _findings(result: dict[str, Any], entries: list[dict[str, Any]]) -> list[Finding]:
    risks = [r for c in result["clauses"] for r in c["findings"]["risks"]]
    risks += list(result.get("missing") or [])
    out = []
    for r in risks:
        loc = r.get("location") or {}
        f = Finding(
            id=r["id"],
            clause=r["clause_id"],
            level=r["risk_level"],
            title=r["risk_type"],
            quote=str(loc.get("original_text") or ""),
            description=str(r.get("description") or ""),
        )
        entry = _entry_for(f, entries)
        if entry is not None and entry.get("level", f.level) == f.level:
            f.verdict = str(entry.get("verdict", ""))
            f.points = [str(p) for p in entry.get("points") or []]
        out.append(f)
    return out


async def _review_one(key: dict[str, Any], work: Path, keep: Path | None) -> Outcome:
    path = KEY / "contracts" / key["contract"]
    doc = load_task_document(path, DocumentRole.PRIMARY)
    structure = doc.structure
    if structure is None:
        raise SystemExit(f"{path.name}: no structure")
    text = doc.content.text if doc.content else path.read_text(encoding="utf-8")
    clause_of: dict[str, str] = {}
    for p in key["points"]:
        if p.get("quote"):
            at = _find(text, p["quote"])
            node = structure.clause_at(at) if at >= 0 else None
            clause_of[p["id"]] = node.clause_id if node else "?"
    outcome = Outcome(
        slug=key["slug"],
        kind=key["kind"],
        fold=int(key["fold"]),
        accepted=_accepts(structure, key["acting_for"]),
        name_accepted=_accepts(structure, key["party_name"]),
        points=key["points"],
        findings=[],
        clause_of=clause_of,
        skipped=set(),
        gaps=[],
    )
    if not outcome.accepted:
        return outcome
    out = work / key["slug"]
    options = ReviewOptions(file=path, party=key["acting_for"], approve="none", out=out)
    try:
        await start_review(options, settings=Settings(state_dir=work / f"{key['slug']}-state"))
    except InputError as exc:
        outcome.error = str(exc)
        return outcome
    result = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"{key['slug']}.json").write_text(json.dumps(result, indent=1), "utf-8")
    outcome.findings = _findings(result, key["classified"])
    outcome.skipped = {
        c["item"]["clause_id"]
        for c in result["clauses"]
        if (c["findings"].get("plan") or {}).get("depth") == "skip"
    }
    outcome.gaps = list(result.get("coverage_gaps") or [])
    return outcome


async def run(keys: list[dict[str, Any]], keep: Path | None) -> list[Outcome]:
    with tempfile.TemporaryDirectory() as tmp:
        return [await _review_one(k, Path(tmp), keep) for k in keys]


def _within(clause: str, other: str) -> bool:
    """Whether one clause id is the other or inside it ('7(b)' in '7')."""
    return bool(clause) and bool(other) and (clause == other or clause.startswith(other + "."))


def miss_cause(o: Outcome, point: dict[str, Any]) -> str:
    """Why a key point was not raised at medium or high, as far as the outputs tell."""
    if not o.accepted:
        return "party refused"
    if o.error:
        return "review refused"
    pid = point["id"]
    if point.get("missing"):
        return "missing protection not reported"
    clause = o.clause_of.get(pid, "?")
    if clause == "?":
        return "quote not in today's parse"
    for gap in o.gaps:
        if gap.get("kind") == "one_clause" or (
            gap.get("kind") == "dominant_clause" and gap.get("clause_id") == clause
        ):
            return "structure: clause not told apart"
    if pid in o.raised(("low",)):
        return "raised at low only"
    if clause in o.skipped:
        return "clause of no known topic (no position applied)"
    near = [f for f in o.findings if _within(f.clause, clause) or _within(clause, f.clause)]
    if any(f.level in ("high", "medium") for f in near):
        return "other finding in the clause"
    if near:
        return "only low findings in the clause"
    return "nothing found in the clause"


def figures(outcomes: list[Outcome]) -> dict[str, Any]:
    """Recall, precision and party acceptance over some contracts."""
    points = sum(len(o.points) for o in outcomes)
    mh = sum(len(o.raised(("high", "medium"))) for o in outcomes)
    anyl = sum(len(o.raised(("high", "medium", "low"))) for o in outcomes)
    verdicts = Counter(f.verdict or "unclassified" for o in outcomes for f in o.strong)
    classified = sum(n for v, n in verdicts.items() if v != "unclassified")
    return {
        "contracts": len(outcomes),
        "acting_for_accepted": sum(o.accepted for o in outcomes),
        "party_name_accepted": sum(o.name_accepted for o in outcomes),
        "points": points,
        "recall_medium_high": mh / points if points else 0.0,
        "recall_any_level": anyl / points if points else 0.0,
        "found_medium_high": mh,
        "found_any_level": anyl,
        "findings_medium_high": sum(len(o.strong) for o in outcomes),
        "verdicts": dict(verdicts),
        "precision": verdicts["keep"] / classified if classified else 0.0,
        "unclassified": verdicts["unclassified"],
    }


def _line(name: str, f: dict[str, Any]) -> str:
    v = f["verdicts"]
    return (
        f"{name:18} {f['contracts']:3}  party {f['acting_for_accepted']:2}/{f['contracts']:<2} "
        f"(name {f['party_name_accepted']:2})  recall m/h {f['found_medium_high']:3}/"
        f"{f['points']:<3} {f['recall_medium_high']:5.1%}  any {f['recall_any_level']:5.1%}  "
        f"precision {v.get('keep', 0):3}/{f['findings_medium_high'] - f['unclassified']:<3} "
        f"{f['precision']:5.1%}  (wrong level {v.get('wrong_level', 0)}, wrong side "
        f"{v.get('wrong_side', 0)}, noise {v.get('noise', 0)}, unclassified {f['unclassified']})"
    )


def _unclassified(outcomes: list[Outcome], path: Path) -> None:
    """Medium and high findings no reader has classified, as entries to fill in."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for o in outcomes:
        todo: list[dict[str, Any]] = [
            {
                "id": f.id,
                "clause": f.clause,
                "level": f.level,
                "title": f.title,
                "quote": f.quote,
                # a missing protection may quote the other side's version: its words say what
                **(
                    {"description": f.description}
                    if not f.quote or f.title.startswith("missing")
                    else {}
                ),
                "verdict": None,
                "points": [],
                "reason": None,
            }
            for f in o.strong
            if not f.verdict
        ]
        if todo:
            rows[o.slug] = todo
    path.write_text(yaml.safe_dump(rows, allow_unicode=True, sort_keys=False), "utf-8")


def main() -> None:
    """Review every contract of the key and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--folds", default="1,2,3,4", help="folds to run (comma-separated)")
    ap.add_argument("--unclassified", type=Path, help="write unclassified findings here")
    ap.add_argument("--keep-findings", type=Path, help="keep each findings.json here")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument(
        "--misses", action="store_true", help="list every missed point of folds 1-3 (not 4)"
    )
    args = ap.parse_args()
    folds = {int(f) for f in args.folds.split(",")}
    keys = load_key(folds)
    outcomes = asyncio.run(run(keys, args.keep_findings))
    tuned = [o for o in outcomes if o.fold != HELD_OUT]
    held = [o for o in outcomes if o.fold == HELD_OUT]
    report: dict[str, Any] = {}
    for name, group in (("folds 1-3", tuned), ("fold 4 (held out)", held), ("all", outcomes)):
        if group:
            report[name] = figures(group)
            print(_line(name, report[name]))
    print()
    kinds: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        kinds[o.kind].append(o)
    print(f"{'kind':24} contracts points  recall m/h  precision")
    for kind in sorted(kinds):
        f = figures(kinds[kind])
        print(
            f"{kind:24} {f['contracts']:9} {f['points']:6}  {f['recall_medium_high']:10.1%}  "
            f"{f['precision']:9.1%}"
        )
    report["kinds"] = {k: figures(v) for k, v in kinds.items()}
    print()
    for name, group in (("folds 1-3", tuned), ("fold 4 (held out)", held)):
        causes = Counter(
            miss_cause(o, p)
            for o in group
            for p in o.points
            if p["id"] not in o.raised(("high", "medium"))
        )
        if causes:
            print(f"misses by cause, {name}:")
            for cause, n in causes.most_common():
                print(f"  {n:4}  {cause}")
            report.setdefault("misses", {})[name] = dict(causes)
    if args.misses:
        for o in tuned:  # the held-out fold is measured, never read
            for p in o.points:
                if p["id"] not in o.raised(("high", "medium")):
                    print(
                        f"  {o.slug[:28]:28} {p['id']:4} {o.clause_of.get(p['id'], '-'):10} "
                        f"{miss_cause(o, p):34} {p['what'][:70]}"
                    )
    if args.unclassified:
        _unclassified(outcomes, args.unclassified)
    # which points each contract raises (medium/high), to compare two runs point by point
    report["raised"] = {o.slug: sorted(o.raised(("high", "medium"))) for o in outcomes}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), "utf-8")


if __name__ == "__main__":
    main()
