"""The evaluation contracts of bench/playbook_eval.py are what their fixtures say they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contract_review.documents import load_task_document
from contract_review.models import DocumentRole
from contract_review.parties import resolve_party
from tests.conftest import FIXTURES

EVAL = FIXTURES / "playbook_eval"
SPECS = sorted(p for p in EVAL.rglob("*.json") if not p.name.startswith("clauses"))
CLAUSE_SETS = sorted(EVAL.glob("clauses*.json"))


@pytest.mark.parametrize("spec_path", SPECS, ids=[p.stem for p in SPECS])
def test_fixture(spec_path: Path) -> None:
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    contract = spec_path.parent / spec["contract"]
    text = contract.read_text(encoding="utf-8")
    labels = {p["label"] for p in spec["parties"]}
    assert len(labels) == 2
    sides = dict.fromkeys(labels, 0)
    for item in spec["planted"]:
        assert text.count(item["span"]) == 1, item["id"]
        assert item["burdens"] in labels, item["id"]
        sides[item["burdens"]] += 1
    assert all(n > 0 for n in sides.values()), "terms must be planted against each side"
    assert len(spec["controls"]) >= 4
    for item in spec["controls"]:
        assert text.count(item["span"]) == 1, item["id"]
    # the review can act for each party by its label
    structure = load_task_document(contract, DocumentRole.PRIMARY).structure
    for party in spec["parties"]:
        side = resolve_party(structure, party["label"])
        assert side.party is not None
        # 'ACME LTD' as written, 'The University of …' with its article
        assert _plain(party["name"]) == _plain(side.party.name)


def _plain(name: str) -> str:
    name = name.casefold()
    return name[4:] if name.startswith("the ") else name


@pytest.mark.parametrize("path", CLAUSE_SETS, ids=[p.stem for p in CLAUSE_SETS])
def test_clause_set(path: Path) -> None:
    """The clause sets of bench/clause_eval.py: two labelled parties, a burdened party or none."""
    items = json.loads(path.read_text(encoding="utf-8"))["items"]
    assert len({i["id"] for i in items}) == len(items)
    for item in items:
        assert item["burdens"] in ("A", "B", "none"), item["id"]
        assert item["language"] in ("en", "zh"), item["id"]
        for side in ("A", "B"):
            label, name = item["parties"][side]
            assert label, item["id"]
            assert name, item["id"]
        assert item["text"].strip(), item["id"]


CONSISTENCY = FIXTURES / "consistency" / "terms.json"


def test_consistency_set() -> None:
    """The groups of bench/consistency_eval.py: six clauses of one term, in both languages,
    each between two labelled parties it names; a burdened party and level, or a control."""
    groups = json.loads(CONSISTENCY.read_text(encoding="utf-8"))["groups"]
    assert len({g["id"] for g in groups}) == len(groups) >= 20
    for group in groups:
        assert (group["burdens"], group["level"]) in {
            ("A", "high"),
            ("A", "medium"),
            ("B", "high"),
            ("B", "medium"),
            (None, "none"),
        }, group["id"]
        items = group["items"]
        assert len(items) == 6, group["id"]
        assert {i["language"] for i in items} == {"en", "zh"}, group["id"]
        for item in items:
            for side in ("A", "B"):
                label, name = item["parties"][side]
                assert name, item["id"]
                assert label in item["text"], item["id"]
