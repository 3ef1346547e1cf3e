"""#30: every party the fixtures name — the blind inventory contracts' parties, the playbook
evaluation contracts' labels and names, and the answer key's parties on real filings — is
accepted by `--party`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from contract_review.documents import load_task_document
from contract_review.models import DocumentRole
from contract_review.parties import PartyRequired, find_parties, resolve_party
from tests.conftest import FIXTURES


def _named() -> list[tuple[Path, str]]:
    rows: list[tuple[Path, str]] = []
    for spec in sorted(FIXTURES.glob("inventory_blind*/*.json")):
        names = json.loads(spec.read_text(encoding="utf-8")).get("parties") or []
        rows += [(spec.with_suffix(".txt"), str(n)) for n in names]
    for spec in sorted((FIXTURES / "playbook_eval").rglob("*.json")):
        if spec.name.startswith("clauses"):
            continue
        data = json.loads(spec.read_text(encoding="utf-8"))
        for party in data["parties"]:
            rows += [
                (spec.parent / data["contract"], str(party[k]))
                for k in ("label", "name")
                if party.get(k)
            ]
    for key in sorted((FIXTURES / "filings_judgement").glob("*.yaml")):
        data = yaml.safe_load(key.read_text(encoding="utf-8"))
        contract = key.parent / "contracts" / data["contract"]
        rows += [(contract, str(data["acting_for"])), (contract, str(data["party_name"]))]
    return rows


NAMED = _named()


@pytest.mark.parametrize(
    ("contract", "party"), NAMED, ids=[f"{c.parent.name}/{c.stem}:{p}" for c, p in NAMED]
)
def test_every_party_a_fixture_names_is_accepted(contract: Path, party: str) -> None:
    structure = load_task_document(contract, DocumentRole.PRIMARY).structure
    try:
        side = resolve_party(structure, party)
    except PartyRequired as exc:
        found = [p.describe() for p in find_parties(structure)]
        pytest.fail(f"{party!r} refused ({exc}); found {found}")
    assert not side.neutral


CONTRACTS = sorted((FIXTURES / "filings_judgement" / "contracts").glob("*.txt"))


@pytest.mark.parametrize("contract", CONTRACTS, ids=[c.stem for c in CONTRACTS])
def test_every_word_the_party_list_offers_names_that_party(contract: Path) -> None:
    """#30: what the refusal message lists (each party found, by name and labels) is accepted,
    and names that party — not another whose name holds it ('Photronics, Inc.' inside
    'Photronics DNP Photomask Corporation')."""
    structure = load_task_document(contract, DocumentRole.PRIMARY).structure
    parties = find_parties(structure)
    for party in parties:
        for word in (party.name, *party.labels):
            side = resolve_party(structure, word, parties)
            assert side.party is not None, word
            assert side.party.name == party.name, word
