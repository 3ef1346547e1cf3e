"""Every change a review proposes, verified again: does it leave the contract better for us?

Reviews a set of contracts (deterministic, every redline approved), then runs verification
(`contract_review.graph.verify.verify_change`) again on each proposed and approved change: the
change applied to its clause, the clause's checks run from our side on the result, the wording
checked. Prints the failures by kind (aim: 0) and how many medium/high issues got a change.

Sets: `examples` (the bundled samples, for each side), `fixtures` (the planted-term evaluation
contracts, `tests/fixtures/playbook_eval`, for each party), `filings` (the real filings of the
answer key, `tests/fixtures/filings_judgement`, for the party the key acts for).

    .venv/bin/python bench/redline_check.py [--sets examples,fixtures,filings] [--verbose]
        [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections import Counter
from dataclasses import dataclass, field, fields
from pathlib import Path

import yaml

from contract_review.analysis.verify import Judgement, for_the_lawyer
from contract_review.config import Settings
from contract_review.errors import InputError
from contract_review.graph.verify import verify_change
from contract_review.models import DiffStatus, ReviewResult, RiskLevel
from contract_review.review import ReviewOptions, prepared_run, start_review

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "fixtures" / "playbook_eval"
KEY = ROOT / "tests" / "fixtures" / "filings_judgement"
SERIOUS = (RiskLevel.MEDIUM, RiskLevel.HIGH)


@dataclass(frozen=True)
class Job:
    """One review to run: a contract, the side we act for and how to read it."""

    name: str
    file: Path
    party: str
    domain: str = "generic"
    baseline: Path | None = None


@dataclass
class Tally:
    """What the checks found over a set of reviews."""

    reviews: int = 0
    refused: int = 0
    proposed: int = 0
    approved: int = 0
    for_lawyer: int = 0
    failed: int = 0
    serious: int = 0
    serious_changed: int = 0
    missing: int = 0
    missing_changed: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    lines: list[str] = field(default_factory=list)


def _examples() -> list[Job]:
    fidic = EXAMPLES / "fidic"
    jobs = [
        Job(
            f"fidic ({p})",
            fidic / "particular_conditions_amending_en.txt",
            p,
            "fidic",
            fidic / "general_conditions_en.txt",
        )
        for p in ("Contractor", "Employer")
    ]
    jobs += [
        Job(f"services ({p})", EXAMPLES / "generic" / "services_agreement_en.md", p)
        for p in ("Provider", "Customer")
    ]
    jobs += [
        Job(f"supply ({p})", EXAMPLES / "generic" / "supply_agreement_en.txt", p)
        for p in ("Supplier", "Purchaser")
    ]
    jobs += [
        Job(f"construction zh ({p})", EXAMPLES / "cn" / "construction_contract_zh.txt", p)
        for p in ("发包人", "承包人")
    ]
    jobs += [
        Job(f"spa ({p})", EXAMPLES / "sha_spa" / "spa_en.txt", p, "sha_spa")
        for p in ("Buyer", "Seller")
    ]
    return jobs


def _fixtures() -> list[Job]:
    jobs = []
    for spec_file in sorted(FIXTURES.rglob("*.json")):
        if spec_file.name.startswith("clauses"):
            continue
        spec = json.loads(spec_file.read_text(encoding="utf-8"))
        contract = spec_file.parent / spec["contract"]
        jobs += [
            Job(f"{spec_file.stem} ({p['label']})", contract, p["label"]) for p in spec["parties"]
        ]
    return jobs


def _filings() -> list[Job]:
    jobs = []
    for path in sorted(KEY.glob("*.yaml")):
        key = yaml.safe_load(path.read_text(encoding="utf-8"))
        jobs.append(Job(path.stem, KEY / "contracts" / key["contract"], key["acting_for"]))
    return jobs


SETS = {"examples": _examples, "fixtures": _fixtures, "filings": _filings}


async def _check(job: Job, work: Path, tally: Tally, verbose: bool) -> None:
    options = ReviewOptions(
        file=job.file,
        party=job.party,
        domain=job.domain,
        baseline=job.baseline,
        approve="all",
        out=work / "out",
    )
    settings = Settings(state_dir=work / "state")
    try:
        await start_review(options, settings=settings)
    except InputError as exc:
        tally.refused += 1
        tally.lines.append(f"{job.name}: refused ({exc})")
        return
    tally.reviews += 1
    result = ReviewResult.model_validate_json((work / "out" / "findings.json").read_text("utf-8"))
    ctx = prepared_run(options, settings)
    structure = ctx.primary
    assert structure is not None
    missing = [r for r in result.missing if r.risk_level in SERIOUS]
    tally.missing += len(missing)
    ours = {d.risk_id for c in result.clauses for d in c.findings.diffs}
    tally.missing_changed += sum(r.id in ours for r in missing)
    for reviewed in result.clauses:
        f = reviewed.findings
        serious = [r for r in f.risks if r.risk_level in SERIOUS and r.location is not None]
        tally.serious += len(serious)
        tally.serious_changed += sum(any(d.risk_id == r.id for d in f.diffs) for r in serious)
        if not f.diffs:
            continue
        clause = structure.get_clause(f.clause_id)
        if clause is None:
            continue
        skills = reviewed.item.required_skills
        judged: dict[str, Judgement] = {}
        risks = {r.id: r for r in f.risks}
        for d in f.diffs:
            tally.proposed += 1
            tally.approved += d.status is DiffStatus.APPROVED
            tally.for_lawyer += for_the_lawyer(d)
            risk = risks.get(d.risk_id or "")
            problems = await verify_change(ctx, skills, structure, clause, d, risk, judged)
            if not problems:
                continue
            tally.failed += 1
            for kind in dict.fromkeys(p.failure.value for p in problems):
                tally.kinds[kind] += 1
            if verbose:
                what = "; ".join(f"{p.failure.value}: {p.detail}" for p in problems)
                tally.lines.append(
                    f"{job.name} [{f.clause_id}] {d.status.value} {d.action_type.value} "
                    f"{d.original_text[:70]!r} -> {d.proposed_text[:90]!r}\n      {what}"
                )


async def _run(sets: list[str], verbose: bool) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in sets:
            tally = out[name] = Tally()
            for n, job in enumerate(SETS[name]()):
                await _check(job, Path(tmp) / f"{name}-{n}", tally, verbose)
    return out


def _print(name: str, t: Tally) -> None:
    pct = f"{100 * t.serious_changed / t.serious:.1f} %" if t.serious else "-"
    print(
        f"{name:9} reviews {t.reviews:3} (refused {t.refused})  changes {t.proposed:4} "
        f"(approved {t.approved}, for the lawyer {t.for_lawyer})  failed {t.failed:3}  "
        f"medium/high issues with a change {t.serious_changed}/{t.serious} ({pct})  "
        f"missing protections (m/h) with our clause {t.missing_changed}/{t.missing}"
    )
    for kind, n in t.kinds.most_common():
        print(f"    {kind:18} {n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="examples,fixtures,filings")
    parser.add_argument("--verbose", action="store_true", help="print every failing change")
    parser.add_argument("--json", type=Path, help="write the figures as JSON")
    args = parser.parse_args()
    sets = [s for s in args.sets.split(",") if s]
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        raise SystemExit(f"unknown set {unknown[0]}: choose from {', '.join(SETS)}")
    tallies = asyncio.run(_run(sets, args.verbose))
    for t in tallies.values():
        for line in t.lines:
            print(line)
    total = Tally()
    counted = [f.name for f in fields(Tally) if f.type in (int, "int")]
    for name, t in tallies.items():
        _print(name, t)
        for f in counted:
            setattr(total, f, getattr(total, f) + getattr(t, f))
        total.kinds.update(t.kinds)
    if len(tallies) > 1:
        _print("total", total)
    if args.json:
        figures = {
            name: {
                "reviews": t.reviews,
                "changes": t.proposed,
                "approved": t.approved,
                "for_lawyer": t.for_lawyer,
                "failed": t.failed,
                "failures": dict(t.kinds),
                "serious": t.serious,
                "serious_changed": t.serious_changed,
                "missing": t.missing,
                "missing_changed": t.missing_changed,
            }
            for name, t in {**tallies, "total": total}.items()
        }
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
