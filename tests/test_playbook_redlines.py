"""Redlines from our side (#11): on the evaluation contracts, acting for each party in turn,
every redline drafted for a playbook risk moves the clause toward our position — re-checked
after the edit, the clause has no new medium/high risk for us and is no better for the other
side; no redline limits our own protection; and a redline with a blank is never approved
unattended."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.intake import load_document
from contract_review.models import ActionType, DiffStatus, DocumentDiff, ReviewResult
from contract_review.parties import party_mentions, party_roles
from contract_review.plugins import create_dispatcher, load_builtin_plugins
from contract_review.plugins.registry import get_plugin
from contract_review.skills.context import prepare_context
from contract_review.skills.local.check_positions import CheckPositionsOutput
from contract_review.structure_parser import StructureParser
from contract_review.text import has_placeholder
from tests.conftest import FIXTURES

runner = CliRunner()
EVAL = FIXTURES / "playbook_eval"
SPECS = sorted(p for p in EVAL.glob("*.json") if not p.name.startswith("clauses"))
SERIOUS = ("medium", "high")


def _review(contract: Path, party: str, tmp_path: Path) -> ReviewResult:
    out = tmp_path / f"out-{party}"
    args = ["review", str(contract), "--party", party, "--approve", "all", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return ReviewResult.model_validate_json((out / "findings.json").read_text(encoding="utf-8"))


def _apply(text: str, diff: DocumentDiff) -> str:
    assert diff.start_offset is not None
    start, end = diff.start_offset, diff.start_offset + len(diff.original_text)
    assert text[start:end] == diff.original_text  # verbatim
    if diff.action_type is ActionType.INSERT:
        return text[:end] + diff.proposed_text + text[end:]
    return text[:start] + diff.proposed_text + text[end:]


def _against(text: str, party: str, clause_id: str) -> list[tuple[str, str]]:
    """(position, level) of the medium/high playbook findings against `party` in the clause."""
    load_builtin_plugins()
    plugin = get_plugin("generic")
    assert plugin is not None
    structure = StructureParser().parse(text, document_id="c")
    if structure.get_clause(clause_id) is None:
        return []
    ctx = prepare_context(side=party, domain_id="generic", baselines=plugin, structure=structure)
    result = asyncio.run(
        create_dispatcher().prepare_and_call("check_positions", clause_id, structure, ctx)
    )
    assert result.success, result.error
    out = CheckPositionsOutput.model_validate(result.data)
    return sorted(
        (f.position_id, f.level.value)
        for f in out.findings
        if f.effect == "against_us" and f.level.value in SERIOUS
    )


@pytest.mark.parametrize("spec_path", SPECS, ids=[p.stem for p in SPECS])
def test_redlines_move_toward_our_side(
    spec_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))
    spec: dict[str, Any] = json.loads(spec_path.read_text(encoding="utf-8"))
    contract = spec_path.parent / spec["contract"]
    text = load_document(contract).text
    labels = [p["label"] for p in spec["parties"]]
    checked = 0
    for us in labels:
        (them,) = [label for label in labels if label != us]
        result = _review(contract, us, tmp_path)
        risks = {r.id: r for c in result.clauses for r in c.findings.risks}
        structure = StructureParser().parse(text, document_id="c")
        roles = party_roles(structure, us)
        for clause in result.clauses:
            for diff in clause.findings.diffs:
                risk = risks.get(diff.risk_id or "")
                # every change proposed, approved or for the lawyer, moves our way; a blank
                # or a whole new clause is the lawyer's to fit
                if risk is None or diff.new_clause or has_placeholder(diff.proposed_text):
                    continue
                edited = _apply(text, diff)
                # no redline puts a limit on the other side's liability to us
                added = diff.proposed_text
                if "exceed" in added or "不超过" in added:
                    named = [side for _, side, _ in party_mentions(added, roles)]
                    assert "them" not in named[:1], (us, diff.proposed_text)
                if not risk.position_id:
                    continue
                checked += 1
                # the comment says what we want and what we could accept instead
                assert "Our position:" in diff.reason or "我方立场" in diff.reason, diff.reason
                cid = diff.clause_id
                before_us, after_us = _against(text, us, cid), _against(edited, us, cid)
                assert set(after_us) <= set(before_us), (us, diff.proposed_text, after_us)
                before_them, after_them = _against(text, them, cid), _against(edited, them, cid)
                assert len(after_them) >= len(before_them), (us, diff.proposed_text)
    assert checked >= 3


def test_a_redline_with_a_blank_is_not_approved_unattended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Uncapped delay damages we pay, with no cap wording to use, get a cap with a blank ([●]):
    with --approve all it stays pending."""
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))
    contract = tmp_path / "c.txt"
    contract.write_text(
        "SERVICES AGREEMENT\n\nThis Agreement is made between Kestrel Analytics Ltd (the "
        '"Supplier") and Moorland Water plc (the "Client").\n\n9. Delay\nIf the Supplier misses '
        "a Milestone, the Supplier shall pay the Client delay damages of 0.5% of the Contract "
        'Price for each day of delay.\n\n10. Definitions\n"Contract Price" means the price '
        "stated in the Order.\n",
        encoding="utf-8",
    )
    result = _review(contract, "Supplier", tmp_path)
    diffs = [d for c in result.clauses for d in c.findings.diffs]
    blanks = [d for d in diffs if "[●]" in d.proposed_text]
    assert blanks, [d.proposed_text for d in diffs]
    assert all(d.status is DiffStatus.PENDING for d in blanks)
    assert all(d.status is DiffStatus.APPROVED for d in diffs if d not in blanks)
