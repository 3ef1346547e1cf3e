"""Playbooks as data: the format, one-line errors, the flat forms, the built-in playbooks the
domains' baselines come from, and `contract-review playbook show|export|validate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.playbook import (
    Playbook,
    PlaybookError,
    dump_playbook,
    load_playbook,
)
from contract_review.playbook.criteria import read_criteria_file
from contract_review.plugins import load_builtin_plugins
from contract_review.plugins.registry import get_plugin
from tests.conftest import EXAMPLES

runner = CliRunner()

GOOD = {
    "domain": "generic",
    "name": "Our supply playbook",
    "positions": [
        {
            "id": "liability_cap",
            "topic": "Cap on Liability",
            "recognise": {"topics": ["limitation_of_liability"], "titles": [r"liabilit"]},
            "standard": {"en": "Each party's liability capped at 12 months' fees."},
            "fallback": {"en": "A cap of up to 24 months' fees."},
            "walk_away": {"en": "Our liability uncapped while theirs is capped."},
            "severity": "high",
            "rationale": {"en": "An uncapped exposure can exceed the contract's value."},
            "redline": {"en": "Each party's total liability shall not exceed the Fees paid."},
        },
        {
            "id": "jurisdiction",
            "topic": "管辖",
            "standard": {"zh": "争议提交我方所在地人民法院管辖。"},
        },
    ],
}


def _write(tmp_path: Path, data: object, name: str = "playbook.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_a_playbook_loads(tmp_path: Path) -> None:
    playbook = load_playbook(_write(tmp_path, GOOD))
    cap, forum = playbook.positions
    assert cap.severity == "high"
    assert cap.fallback is not None
    assert cap.fallback.text("en") == "A cap of up to 24 months' fees."
    assert forum.standard.text("en") == "争议提交我方所在地人民法院管辖。"  # falls back to zh
    assert forum.severity == "medium"
    assert cap.as_baseline().key == "Cap on Liability"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda d: d["positions"][0].pop("standard"),
            "position 1 ('liability_cap'): standard: Field required",
        ),
        (
            lambda d: d["positions"][0].update(severity="fatal"),
            "position 1 ('liability_cap'): severity:",
        ),
        (
            lambda d: d["positions"][1].update(id="liability_cap"),
            "position id 'liability_cap' is used twice",
        ),
        (
            lambda d: d["positions"][0]["recognise"].update(titles=["(unclosed"]),
            "recognise.titles: not a regular expression",
        ),
        (
            # each is a regular expression, but a flag inside the second cannot join the first
            lambda d: d["positions"][0]["recognise"].update(titles=["cap", "(?i)limit"]),
            "recognise.titles: the patterns do not combine into one expression",
        ),
        (
            lambda d: d["positions"][1].update(standard={"en": " "}),
            "position 2 ('jurisdiction'): standard: give the text",
        ),
        (
            lambda d: d["positions"][0].update(colour="red"),
            "position 1 ('liability_cap'): colour: Extra inputs",
        ),
        (
            lambda d: d["positions"][1].update(id="has space"),
            "position 2 ('has space'): id: use letters",
        ),
    ],
)
def test_schema_errors_name_file_position_and_field(
    tmp_path: Path, change: object, expected: str
) -> None:
    data = json.loads(json.dumps(GOOD))
    change(data)  # type: ignore[operator]
    with pytest.raises(PlaybookError) as caught:
        load_playbook(_write(tmp_path, data))
    message = str(caught.value)
    assert message.startswith("playbook.yaml: ")
    assert expected in message
    assert "\n" not in message


def test_file_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("positions: [\n", encoding="utf-8")
    with pytest.raises(PlaybookError, match=r"^broken.yaml: not valid YAML"):
        load_playbook(broken)
    other = tmp_path / "p.docx"
    other.write_bytes(b"x")
    with pytest.raises(PlaybookError, match=r"unsupported playbook type '\.docx'"):
        load_playbook(other)
    with pytest.raises(PlaybookError, match="file not found"):
        load_playbook(tmp_path / "missing.yaml")
    scalar = tmp_path / "odd.json"
    scalar.write_text("3", encoding="utf-8")
    with pytest.raises(PlaybookError, match="a mapping with 'domain' and 'positions'"):
        load_playbook(scalar)
    with pytest.raises(
        PlaybookError, match=r"^wrong.yaml: positions: Input should be a valid list"
    ):
        load_playbook(_write(tmp_path, {"positions": 3, "domain": "x"}, "wrong.yaml"))


def test_flat_forms_become_positions() -> None:
    csv = load_playbook(EXAMPLES / "criteria" / "generic_playbook.csv")
    first = csv.positions[0]
    assert first.id == "g1"
    assert first.topic == "Limitation of liability"
    assert first.severity == "high"
    assert first.standard.text("en").startswith("Aggregate liability of each party capped")
    assert first.fallback is not None
    zh = load_playbook(EXAMPLES / "criteria" / "construction_playbook_zh.yaml")
    assert zh.positions[0].standard.zh.startswith("工期顺延情形涵盖")
    assert zh.positions[0].severity == "high"


@pytest.mark.parametrize("domain", ["generic", "fidic", "sha_spa"])
def test_builtin_playbooks_are_the_domains_baselines(domain: str, tmp_path: Path) -> None:
    load_builtin_plugins()
    plugin = get_plugin(domain)
    assert plugin is not None
    assert plugin.playbook is not None
    assert plugin.baselines == plugin.playbook.baselines()
    assert len(plugin.baselines) >= 19
    # exported, edited and loaded again, it is the same playbook (round trip)
    path = tmp_path / "export.yaml"
    path.write_text(dump_playbook(plugin.playbook), encoding="utf-8")
    assert load_playbook(path) == plugin.playbook


def test_an_exported_playbook_is_a_criteria_file(tmp_path: Path) -> None:
    """`--criteria` takes the exported format: each position is a criterion."""
    load_builtin_plugins()
    plugin = get_plugin("fidic")
    assert plugin is not None
    assert plugin.playbook is not None
    edited = plugin.playbook.model_copy(update={"positions": plugin.playbook.positions[:3]})
    path = tmp_path / "ours.yaml"
    path.write_text(dump_playbook(edited), encoding="utf-8")
    criteria = read_criteria_file(path)
    assert [c.criterion_id for c in criteria] == [p.id for p in edited.positions]
    assert criteria[0].preferred_position == edited.positions[0].standard.text("en")
    assert criteria[0].clause_ids == ("1.1",)


def test_cli_show_export_validate(tmp_path: Path) -> None:
    shown = runner.invoke(app, ["playbook", "show", "--domain", "sha_spa", "--format", "json"])
    assert shown.exit_code == 0, shown.output
    rows = json.loads(shown.stdout)
    assert {r["severity"] for r in rows} <= {"low", "medium", "high"}
    assert any(r["subtypes"] == ["spa"] for r in rows)
    out = tmp_path / "generic.yaml"
    exported = runner.invoke(app, ["playbook", "export", "--domain", "generic", "--out", str(out)])
    assert exported.exit_code == 0, exported.output
    assert Playbook.model_validate(yaml.safe_load(out.read_text(encoding="utf-8"))).domain == (
        "generic"
    )
    ok = runner.invoke(app, ["playbook", "validate", str(out)])
    assert ok.exit_code == 0
    assert "position(s) for domain generic" in ok.stdout
    text = out.read_text(encoding="utf-8").replace("severity: high", "severity: huge", 1)
    out.write_text(text, encoding="utf-8")
    bad = runner.invoke(app, ["playbook", "validate", str(out)])
    assert bad.exit_code == 2
    lines = [line for line in bad.output.splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith("error: generic.yaml: position ")
    assert "severity" in lines[0]
    unknown = runner.invoke(app, ["playbook", "show", "--domain", "nope"])
    assert unknown.exit_code == 2


LATE = """SUPPLY TERMS

These terms are agreed between Brightwater Components Ltd (the "Seller") and Orchard Valley Farms LLC (the "Buyer").

1. Price and payment
1.1 The Buyer shall pay each invoice within thirty (30) days of its date.
1.2 Overdue amounts shall bear interest at one per cent (1%) per month until paid.

2. Law
2.1 This Agreement is governed by the laws of England.
"""


def _late_interest_risks(tmp_path: Path, *criteria: str) -> list[dict[str, object]]:
    contract = tmp_path / "terms.txt"
    contract.write_text(LATE, encoding="utf-8")
    out = tmp_path / f"out{len(criteria)}"
    args = ["review", str(contract), "--party", "Buyer", "--approve", "none", "--out", str(out)]
    result = runner.invoke(app, [*args, *criteria])
    assert result.exit_code == 0, result.output
    found = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    return [
        r
        for c in found["clauses"]
        for r in c["findings"]["risks"]
        if r.get("position_id") == "late_payment_interest"
    ]


def test_a_user_playbook_overrides_a_builtin_position(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """12 % a year is within the built-in fallback (low); a client whose walk-away is 10 %
    gets a high risk, from the exported playbook edited and loaded with --criteria."""
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))
    built_in = _late_interest_risks(tmp_path)
    assert [r["risk_level"] for r in built_in] == ["low"]

    exported = tmp_path / "ours.yaml"
    result = runner.invoke(
        app, ["playbook", "export", "--domain", "generic", "--out", str(exported)]
    )
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(exported.read_text(encoding="utf-8"))
    late = next(p for p in data["positions"] if p["id"] == "late_payment_interest")
    late["checks"][0].update({"standard": 4, "fallback": 6, "walk_away": 10})
    # only the edited position in the user's file: the others stay built in
    data["positions"] = [late]
    exported.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")

    edited = _late_interest_risks(tmp_path, "--criteria", str(exported))
    assert [r["risk_level"] for r in edited] == ["high"]
    assert "12" in str(edited[0]["description"])


def test_a_term_against_the_other_side_is_reported_as_favourable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For the Seller, the Buyer's 12 % late interest is no risk but a term to keep."""
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))
    contract = tmp_path / "terms.txt"
    contract.write_text(LATE, encoding="utf-8")
    out = tmp_path / "out"
    args = ["review", str(contract), "--party", "Seller", "--approve", "none", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    found = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    risks = [r for c in found["clauses"] for r in c["findings"]["risks"]]
    assert not [r for r in risks if r.get("position_id") == "late_payment_interest"]
    terms = [t for c in found["clauses"] for t in c["findings"]["favourable"]]
    assert [t["position_id"] for t in terms] == ["late_payment_interest"]
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Terms in our favour" in report
    assert "one per cent (1%) per month" in report.split("## Terms in our favour")[1]
    assert 'id="favourable"' in (out / "report.html").read_text(encoding="utf-8")


def _missing(tmp_path: Path, party: str) -> dict[str, dict[str, object]]:
    contract = tmp_path / "terms.txt"
    contract.write_text(LATE, encoding="utf-8")
    out = tmp_path / f"out-{party}"
    args = ["review", str(contract), "--party", party, "--approve", "none", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    found = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    report = (out / "report.md").read_text(encoding="utf-8")
    assert ("## Protections the contract lacks" in report) == bool(found["missing"])
    return {str(r["position_id"]): r for r in found["missing"]}


def test_a_protection_the_contract_lacks_is_a_finding_for_the_side_it_protects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No limitation of liability: a high risk for the Seller (whose exposure is unlimited),
    none for the Buyer; no termination clause hurts both; the governing law is there."""
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))
    seller, buyer = _missing(tmp_path, "Seller"), _missing(tmp_path, "Buyer")
    assert seller["limitation_of_liability"]["risk_level"] == "high"
    assert "limitation_of_liability" not in buyer
    assert "warranties" in buyer
    assert "warranties" not in seller
    assert "termination" in seller
    assert "termination" in buyer
    assert "governing_law" not in seller
    assert seller["limitation_of_liability"]["location"] is None
    neutral = _missing(tmp_path, "neutral")
    assert neutral["limitation_of_liability"]["burdens"] == "Seller"


def test_a_check_vocabulary_never_hides_a_pattern_match() -> None:
    """The vocabulary is only a pre-filter: on every sentence of the bundled and evaluation
    contracts, a check's patterns match only where its vocabulary is present."""
    import re

    from contract_review.text import SEGMENT_END
    from tests.conftest import FIXTURES

    load_builtin_plugins()
    texts = [
        p.read_text(encoding="utf-8")
        for folder in (EXAMPLES, FIXTURES / "playbook_eval")
        for p in sorted(folder.rglob("*.txt"))
    ]
    sentences = [s.strip() for t in texts for s in SEGMENT_END.split(t) if s.strip()]
    assert len(sentences) > 500
    for domain in ("generic", "fidic", "sha_spa"):
        plugin = get_plugin(domain)
        assert plugin is not None
        for position in plugin.playbook.positions if plugin.playbook else []:
            for check in position.checks:
                if not check.vocab:
                    continue
                rx = re.compile("|".join(f"(?:{p})" for p in check.patterns), re.I)
                for sentence in sentences:
                    if rx.search(sentence):
                        low = sentence.lower()
                        assert any(w in low for w in check.vocab), (position.id, sentence)


def test_kinds_a_missing_clause_does_not_matter_in_are_known_kinds() -> None:
    """`missing_except_kinds` names kinds of analysis/kinds.yaml (a misspelt id would silently
    never match)."""
    from contract_review.analysis.kinds import kind_ids
    from contract_review.plugins import load_builtin_plugins
    from contract_review.plugins.registry import list_plugins

    load_builtin_plugins()
    known = set(kind_ids())
    for plugin in list_plugins():
        for position in plugin.playbook.positions if plugin.playbook else []:
            assert set(position.missing_except_kinds) <= known, position.id


def test_kinds_a_position_does_not_apply_in_are_known_kinds() -> None:
    from contract_review.analysis.kinds import kind_ids
    from contract_review.plugins import load_builtin_plugins
    from contract_review.plugins.registry import list_plugins

    load_builtin_plugins()
    known = set(kind_ids())
    for plugin in list_plugins():
        for position in plugin.playbook.positions if plugin.playbook else []:
            assert set(position.except_kinds) <= known, position.id
