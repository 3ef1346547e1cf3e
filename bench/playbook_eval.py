"""How well the review finds one-sided terms from our side, on contracts written for it.

Each fixture under `tests/fixtures/playbook_eval/` (format: its README) names a contract, its
parties, the terms planted against each party (verbatim spans) and balanced control clauses.
Every contract is reviewed once for each party (deterministic, generic domain), and:

* found — a planted term burdening the party we act for has a medium or high risk whose quote
  overlaps the planted span (aim ≥ 90 %);
* side switch — a planted term burdening the other party has no such risk (aim ≥ 95 %);
* controls — a control clause has such a risk (false alarm; aim ≤ 5 %).

Figures per contract and in total; fixtures marked blind (written without seeing the rules)
are totalled separately, and each folder of fixtures (a round written at one time) too.

    .venv/bin/python bench/playbook_eval.py [--fixtures DIR] [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contract_review.config import Settings
from contract_review.errors import InputError
from contract_review.models import ReviewResult, RiskLevel
from contract_review.review import ReviewOptions, start_review

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "playbook_eval"
SERIOUS = (RiskLevel.MEDIUM, RiskLevel.HIGH)


@dataclass
class Tally:
    """Counts of one contract (or a total)."""

    found: int = 0
    planted_for_us: int = 0
    switched_ok: int = 0
    planted_for_them: int = 0
    false_alarms: int = 0
    controls: int = 0
    missed: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Add another tally's counts."""
        self.found += other.found
        self.planted_for_us += other.planted_for_us
        self.switched_ok += other.switched_ok
        self.planted_for_them += other.planted_for_them
        self.false_alarms += other.false_alarms
        self.controls += other.controls

    def line(self, name: str) -> str:
        """One row of the table."""

        def pct(n: int, d: int) -> str:
            return f"{n:3d}/{d:<3d} {100 * n / d:5.1f}%" if d else "    -          "

        return (
            f"{name:32} found {pct(self.found, self.planted_for_us)}   "
            f"side switch {pct(self.switched_ok, self.planted_for_them)}   "
            f"controls flagged {pct(self.false_alarms, self.controls)}"
        )


def _span(text: str, quote: str) -> tuple[int, int] | None:
    """Where `quote` stands in the reviewed text (whitespace may differ after intake)."""
    at = text.find(quote)
    if at >= 0:
        return at, at + len(quote)
    m = re.search(r"\s+".join(map(re.escape, quote.split())), text)
    return (m.start(), m.end()) if m else None


def _serious_spans(result: ReviewResult) -> list[tuple[int, int, str]]:
    spans = []
    # a missing protection may quote where the contract gives it to the other side only
    for risk in [r for c in result.clauses for r in c.findings.risks] + list(result.missing):
        loc = risk.location
        if risk.risk_level in SERIOUS and loc and loc.start_offset is not None:
            end = loc.end_offset if loc.end_offset is not None else loc.start_offset
            spans.append((loc.start_offset, end, risk.risk_type))
    return spans


def _hit(spans: list[tuple[int, int, str]], where: tuple[int, int] | None) -> bool:
    return where is not None and any(s < where[1] and where[0] < e for s, e, _ in spans)


async def _review(contract: Path, party: str, work: Path) -> tuple[ReviewResult, str]:
    options = ReviewOptions(
        file=contract, domain="generic", party=party, approve="none", out=work / "out"
    )
    await start_review(options, settings=Settings(state_dir=work / "state"))
    result = ReviewResult.model_validate_json((work / "out" / "findings.json").read_text())
    from contract_review.intake import load_document

    return result, load_document(contract).text


async def _evaluate(fixture: Path, work: Path, verbose: bool) -> Tally:
    spec: dict[str, Any] = json.loads(fixture.read_text(encoding="utf-8"))
    contract = fixture.parent / spec["contract"]
    tally = Tally()
    for n, party in enumerate(spec["parties"]):
        us = party["label"]
        try:
            result, text = await _review(contract, us, work / f"{fixture.stem}-{n}")
        except InputError as exc:  # the review refused the party: every term counts as missed
            tally.missed.append(f"review for {us} refused: {exc}")
            tally.planted_for_us += sum(i["burdens"] == us for i in spec["planted"])
            continue
        spans = _serious_spans(result)
        for item in spec["planted"]:
            hit = _hit(spans, _span(text, item["span"]))
            if item["burdens"] == us:
                tally.planted_for_us += 1
                tally.found += hit
                if not hit:
                    tally.missed.append(f"missed for {us}: {item['id']} {item['topic']}")
            else:
                tally.planted_for_them += 1
                tally.switched_ok += not hit
                if hit:
                    tally.missed.append(
                        f"flagged for {us} (favours it): {item['id']} {item['topic']}"
                    )
        for item in spec["controls"]:
            tally.controls += 1
            alarm = _hit(spans, _span(text, item["span"]))
            tally.false_alarms += alarm
            if alarm:
                tally.missed.append(f"control flagged for {us}: {item['id']} {item['topic']}")
    if verbose:
        for miss in tally.missed:
            print(f"    {miss}")
    return tally


async def _main(fixtures: Path, verbose: bool) -> None:
    files = sorted(f for f in fixtures.rglob("*.json") if not f.name.startswith("clauses"))
    if not files:
        raise SystemExit(f"no fixtures under {fixtures}")
    total, blind = Tally(), Tally()
    by_language: dict[str, Tally] = {}
    by_round: dict[str, Tally] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for fixture in files:
            tally = await _evaluate(fixture, Path(tmp), verbose)
            spec = json.loads(fixture.read_text(encoding="utf-8"))
            is_blind = bool(spec.get("blind"))
            print(tally.line(fixture.stem + (" (blind)" if is_blind else "")))
            total.add(tally)
            language = str(spec.get("language", "en"))[:2]
            for key in (language, f"{language} blind") if is_blind else (language,):
                by_language.setdefault(key, Tally()).add(tally)
            if is_blind:
                blind.add(tally)
            # each folder of fixtures is a round written at one time ('blind', 'blind2')
            by_round.setdefault(fixture.parent.relative_to(fixtures).as_posix(), Tally()).add(tally)
    for key in sorted(by_language):
        print(by_language[key].line(f"  {key}"))
    if len(by_round) > 1:
        for key in sorted(by_round):
            print(by_round[key].line(f"  round {key if key != '.' else '(top)'}"))
    print(total.line("TOTAL"))
    if blind.planted_for_us:
        print(blind.line("TOTAL blind"))


def main() -> None:
    """Run the evaluation and print its figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixtures", type=Path, default=FIXTURES)
    ap.add_argument(
        "--verbose", action="store_true", help="list misses, wrong-side flags, control alarms"
    )
    args = ap.parse_args()
    asyncio.run(_main(args.fixtures, args.verbose))


if __name__ == "__main__":
    main()
