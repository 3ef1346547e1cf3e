"""`--party` on real filings: is every party name and label CUAD's "Parties" answer gives
accepted as the party we act for?

For each labelled contract (the CUAD dev and judgement slices), the contract is read as a
review reads it (intake, the generic parser), its parties are found, and each distinct span of
the "Parties" answer is given to the party resolution `--party` uses. A span is accepted when it
resolves to a party of the contract (not refused, not neutral). A span that quotes labels
('the "Repairer" or "ATR"') counts each label; collective words ('the Parties') count none.
Prints the spans and contracts
accepted per slice, and the refused spans with the parties found, so a miss can be read.

    .venv/bin/python bench/party_acceptance.py [--data DIR ...] [--show N]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from contract_review.documents import load_task_document
from contract_review.models import DocumentRole
from contract_review.parties import PartyRequired, find_parties, resolve_party

ROOT = Path(__file__).resolve().parents[1]
SLICES = [ROOT.parent / "shared" / "data" / name for name in ("cuad_dev", "cuad_judgement")]


_QUOTED = re.compile(r"[\"“”?]([^\"“”?]{1,60})[\"“”?]|(?<!\w)['‘]([^'’]{1,60})['’](?!\w)")
_COLLECTIVE = re.compile(r"^(?:the\s+)?(?:parties|party|each\s+a\s+party)$", re.IGNORECASE)
_EDGES = " \t,;.:()[]"


_ALSO_KNOWN = re.compile(
    r"^(?:d/b/a|doing\s+business\s+as|f/k/a|formerly\s+known\s+as|a\s+subsidiary\s+of)\s+",
    re.IGNORECASE,
)
_NO_NAME = re.compile(r"^[_•\s\[\].]*(?:$|_\s)")
"""A form's blank ('______', '[•]', '_____ and its affiliates'): no name to type."""


def _candidates(span: str) -> list[str]:
    """What a lawyer would type from one CUAD span: the labels it quotes ('the "Repairer" or
    "ATR"' → Repairer, ATR), else the span itself without a leading 'the', 'd/b/a' or
    'formerly known as' and stray punctuation; collective words ('the Parties') are no
    party."""
    text = " ".join(span.split())
    quoted = [(a or b).strip(_EDGES) for a, b in _QUOTED.findall(text)]
    if not quoted and re.match(r"(?:(?:Mr|Mrs|Ms|Dr)\.?\s)", text):
        # 'Mr. Zheng Qing, Mr. Gu Xianwin and Ms. Chen Weijie': each person is typed alone
        quoted = [n.strip(_EDGES) for n in re.split(r",\s*|\s+and\s+", text)]
    found = quoted or [re.sub(r"^the\s+", "", text.strip(_EDGES), flags=re.IGNORECASE)]
    found = [_ALSO_KNOWN.sub("", c) for c in found]
    return [c for c in found if c and not _COLLECTIVE.match(c)]


def names_a_party(span: str) -> bool:
    """Whether a span gives a name or label to type: not a form's blank, nor a description
    ('persons and entities listed on Schedule A', 'its associated chapter 11 debtors')."""
    return not _NO_NAME.match(span) and not span[:1].islower()


def _spans(entry: dict[str, Any]) -> list[str]:
    """The distinct names and labels CUAD's "Parties" answer gives for the contract."""
    parties = entry.get("labels", {}).get("Parties") or {}
    seen: dict[str, str] = {}
    for span in parties.get("spans", []):
        for text in _candidates(str(span.get("text", ""))):
            seen.setdefault(text.casefold(), text)
    return list(seen.values())


def measure(data: Path) -> tuple[int, int, int, int, int, list[tuple[str, str, str]]]:
    """(spans accepted, spans, contracts with every span accepted, contracts, spans that name
    no party, refusals)."""
    entries = json.loads((data / "labels.json").read_text(encoding="utf-8"))
    accepted = total = whole = contracts = nameless = 0
    refused: list[tuple[str, str, str]] = []
    for entry in entries:
        spans = _spans(entry)
        nameless += sum(not names_a_party(s) for s in spans)
        spans = [s for s in spans if names_a_party(s)]
        if not spans:
            continue  # no party named in the answer: nothing to ask for
        path = data / "contracts" / entry["txt_file"]
        structure = load_task_document(path, DocumentRole.PRIMARY).structure
        parties = find_parties(structure)
        found = "; ".join(p.describe() for p in parties) or "none"
        contracts += 1
        ok_all = True
        for span in spans:
            total += 1
            try:
                side = resolve_party(structure, span, parties)
            except PartyRequired:
                side = None
            if side is not None and not side.neutral:
                accepted += 1
            else:
                ok_all = False
                refused.append((path.stem[:60], span, found))
        whole += ok_all
    return accepted, total, whole, contracts, nameless, refused


def main() -> None:
    """Print the acceptance per slice and the first refusals."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="*", default=SLICES)
    parser.add_argument("--show", type=int, default=15, help="refusals listed per slice")
    args = parser.parse_args()
    sums = [0, 0, 0, 0, 0]
    for data in args.data:
        if not (data / "labels.json").is_file():
            print(f"{data}: no labels.json, skipped")
            continue
        accepted, total, whole, contracts, nameless, refused = measure(data)
        for i, n in enumerate((accepted, total, whole, contracts, nameless)):
            sums[i] += n
        print(
            f"{data.name:16} spans accepted {accepted:4}/{total:<4} {accepted / total:6.1%}   "
            f"contracts with every span accepted {whole:3}/{contracts:<3} {whole / contracts:6.1%}"
            f"   (spans naming no party, left out: {nameless})"
        )
        for stem, span, found in refused[: args.show]:
            print(f"    refused {span!r:40} in {stem}  (found: {found[:120]})")
    if sums[1]:
        print(
            f"{'TOTAL':16} spans accepted {sums[0]:4}/{sums[1]:<4} {sums[0] / sums[1]:6.1%}   "
            f"contracts with every span accepted {sums[2]:3}/{sums[3]:<3} {sums[2] / sums[3]:6.1%}"
            f"   (spans naming no party, left out: {sums[4]})"
        )


if __name__ == "__main__":
    main()
