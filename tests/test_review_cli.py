"""`contract-review review / resume / status / list`: the main job end to end."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from contract_review.cli import app
from contract_review.exports.redline_docx import accept_all_text
from contract_review.models import ReviewResult
from contract_review.review import ReviewOptions, resume_review, start_review
from tests.conftest import EXAMPLES

runner = CliRunner()


FIDIC = EXAMPLES / "fidic"
CONTRACTOR = ("--domain", "fidic", "--party", "Contractor")
"""A FIDIC review for the Contractor."""
AUTO = ("--approve", "all")
"""Every redline approved."""


def _review_cli(file: object, out: Path, *options: str) -> Result:
    """`contract-review review FILE OPTIONS --out OUT` through the CLI runner."""
    return runner.invoke(app, ["review", str(file), *options, "--out", str(out)])


@pytest.fixture(autouse=True)
def _state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))


def test_review_writes_the_four_outputs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _review_cli(FIDIC / "particular_conditions_en.txt", out, *CONTRACTOR, *AUTO)
    assert result.exit_code == 0, result.output
    for name in ("redline.docx", "report.html", "report.md", "findings.json"):
        assert (out / name).is_file(), name
    review = ReviewResult.model_validate_json((out / "findings.json").read_text(encoding="utf-8"))
    assert review.is_complete
    approved = [d for c in review.clauses for d in c.findings.diffs if d.status.value == "approved"]
    assert approved
    accepted = accept_all_text(out / "redline.docx")
    for diff in approved:
        assert diff.proposed_text in accepted
    assert "Uncapped damages" in (out / "report.md").read_text(encoding="utf-8")
    for name in ("clean.docx", "issues-list.docx", "findings.xlsx"):
        assert (out / name).is_file(), name
    listing = runner.invoke(app, ["list"])
    assert review.task_id in listing.output
    status = runner.invoke(app, ["status", review.task_id])
    assert status.exit_code == 0
    assert "complete" in status.output


def test_review_user_errors(tmp_path: Path) -> None:
    path = str(EXAMPLES / "fidic" / "particular_conditions_en.txt")
    assert runner.invoke(app, ["review", path, "--domain", "nope"]).exit_code == 2
    assert runner.invoke(app, ["review", path, "--language", "fr"]).exit_code == 2
    assert runner.invoke(app, ["status", "no-such-task"]).exit_code == 2


class _Stop(Exception):
    pass


def test_interrupted_review_resumes_with_decisions_kept(tmp_path: Path) -> None:
    options = ReviewOptions(
        file=EXAMPLES / "cn" / "construction_contract_zh.txt",
        domain="fidic",
        party="承包人",
        approve="interactive",
        out=tmp_path / "out",
    )
    seen: list[list[dict[str, Any]]] = []

    def stop(diffs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        seen.append(diffs)
        raise _Stop  # the reviewer walks away at the first question

    with pytest.raises(_Stop):
        asyncio.run(start_review(options, ask=stop))
    assert seen
    pending = seen[0]
    task_dir = Path(str(tmp_path / "state" / "tasks"))
    (manifest,) = task_dir.glob("*.json")
    task_id = json.loads(manifest.read_text())["task_id"]

    def reject_first(diffs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {"diff_id": d["diff_id"], "decision": "reject" if i == 0 else "approve"}
            for i, d in enumerate(diffs)
        ]

    done = asyncio.run(resume_review(task_id, ask=reject_first))
    assert done.status == "complete"
    review = ReviewResult.model_validate_json(Path(done.outputs["json"]).read_text())
    statuses = {d.diff_id: d.status.value for c in review.clauses for d in c.findings.diffs}
    assert statuses[pending[0]["diff_id"]] == "rejected"
    assert all(statuses[d["diff_id"]] == "approved" for d in pending[1:])


def test_fidic_review_reads_the_conditions_in_force(tmp_path: Path) -> None:
    """GC + PC: the merged conditions are reviewed; the planted PC changes are high risks."""
    out = tmp_path / "out"
    result = _review_cli(
        str(EXAMPLES / "fidic" / "particular_conditions_amending_en.txt"),
        out,
        "--domain",
        "fidic",
        "--baseline",
        str(EXAMPLES / "fidic" / "general_conditions_en.txt"),
        "--reference",
        str(EXAMPLES / "fidic" / "employers_requirements_en.txt"),
        "--party",
        "Contractor",
        "--approve",
        "all",
    )
    assert result.exit_code == 0, result.output
    review = ReviewResult.model_validate_json((out / "findings.json").read_text(encoding="utf-8"))
    assert "conditions in force" in review.primary_filename
    high = {
        (c.item.clause_id, r.risk_type)
        for c in review.clauses
        for r in c.findings.risks
        if r.risk_level.value == "high"
    }
    for expected in [
        ("4.12", "risk_shift:unforeseeable_risk"),
        ("8.8", "risk_shift:cap_removed"),
        ("17.1", "risk_shift:indemnity_regardless_of_cause"),
        ("20.1", "risk_shift:notice_shortened"),
        ("20.1", "time bar"),
    ]:
        assert expected in high, expected
    deleted = next(c for c in review.clauses if c.item.clause_id == "13.3")
    assert "[Deleted by the Particular Conditions]" in deleted.clause_text
    accepted = accept_all_text(out / "redline.docx")
    for c in review.clauses:
        for d in c.findings.diffs:
            if d.status.value == "approved":
                assert d.proposed_text in accepted


def test_interactive_review_in_the_terminal(tmp_path: Path) -> None:
    """Reject the first redline with feedback, approve the rest and the redraft."""
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        [
            "review",
            str(EXAMPLES / "cn" / "construction_contract_zh.txt"),
            "--domain",
            "fidic",
            "--party",
            "承包人",
            "--approve",
            "interactive",
            "--out",
            str(out),
        ],
        input="r\n请改为3%\n" + "a\n" * 60,
    )
    assert result.exit_code == 0, result.output
    assert "[a]pprove / [r]eject / [e]dit / [s]kip" in result.output
    review = ReviewResult.model_validate_json((out / "findings.json").read_text(encoding="utf-8"))
    diffs = [d for c in review.clauses for d in c.findings.diffs]
    statuses = [d.status.value for d in diffs]
    assert statuses.count("rejected") == 1
    assert statuses.count("approved") == len(diffs) - 1


def test_review_with_postgres_checkpoints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
    out = tmp_path / "out"
    result = _review_cli(
        EXAMPLES / "generic" / "supply_agreement_en.txt", out, "--party", "Buyer", *AUTO
    )
    assert result.exit_code == 0, result.output
    review = ReviewResult.model_validate_json((out / "findings.json").read_text(encoding="utf-8"))
    assert review.is_complete
    again = runner.invoke(app, ["resume", review.task_id])  # already complete: outputs rewritten
    assert again.exit_code == 0, again.output


def test_review_of_a_word_file_redlines_the_original(tmp_path: Path) -> None:
    import docx

    source = tmp_path / "contract.docx"
    doc = docx.Document()
    doc.add_paragraph("1. Delay Damages")
    para = doc.add_paragraph("The Contractor shall pay delay damages of 0.5% per day. ")
    run = para.add_run("Delay damages are not subject to any maximum.")
    run.bold = True
    doc.add_paragraph("2. Claims")
    doc.add_paragraph(
        "The Contractor shall give notice within 14 days, failing which it loses any right "
        "to additional time or payment."
    )
    doc.save(str(source))
    out = tmp_path / "out"
    result = _review_cli(source, out, *CONTRACTOR, *AUTO)
    assert result.exit_code == 0, result.output
    review = ReviewResult.model_validate_json((out / "findings.json").read_text(encoding="utf-8"))
    approved = [d for c in review.clauses for d in c.findings.diffs if d.status.value == "approved"]
    assert approved
    accepted = accept_all_text(out / "redline.docx")
    for d in approved:
        assert d.proposed_text in accepted
    redlined = docx.Document(str(out / "redline.docx"))
    assert redlined.paragraphs[0].text == "1. Delay Damages"  # untouched paragraphs unchanged
    # every approved change is proposed in a comment (one per medium or high issue)
    comments = [c.text for c in redlined.comments]
    assert len(comments) >= len(approved)
    for d in approved:
        assert any(d.proposed_text in c for c in comments), d.proposed_text


def test_resume_of_a_task_that_never_reached_a_checkpoint(tmp_path: Path) -> None:
    """A review killed before its first checkpoint resumes from its manifest."""
    from contract_review.config import get_settings
    from contract_review.tasks import TaskManifest
    from contract_review.tasks import save_manifest as _save

    options = ReviewOptions(
        file=EXAMPLES / "generic" / "supply_agreement_en.txt",
        party="Buyer",
        approve="all",
        out=tmp_path / "o",
    )
    manifest = TaskManifest(
        task_id="early-crash", created_at="2026-01-01T00:00:00+00:00", options=options
    )
    _save(manifest, get_settings())
    result = runner.invoke(app, ["resume", "early-crash"])
    assert result.exit_code == 0, result.output
    review = ReviewResult.model_validate_json((tmp_path / "o" / "findings.json").read_text())
    assert review.is_complete
    assert review.clauses


def test_a_truncated_manifest_hides_no_other_task(tmp_path: Path) -> None:
    """#13: manifests are written atomically; one that is damaged anyway (a disk full, a
    hand edit) is named by `list` and `status`, and the other tasks still show."""
    from contract_review.config import Settings
    from contract_review.tasks import ReviewOptions as Options
    from contract_review.tasks import TaskManifest, save_manifest

    settings = Settings(state_dir=tmp_path / "state")
    good = TaskManifest(
        task_id="good1", created_at="2026-01-02T00:00:00", options=Options(file=Path("a.txt"))
    )
    save_manifest(good, settings)
    folder = tmp_path / "state" / "tasks"
    assert [p.name for p in folder.iterdir()] == ["good1.json"]  # no temporary file left
    (folder / "bad1.json").write_text('{"task_id": "bad1", "created_at": "2026-01-0', "utf-8")
    listing = runner.invoke(app, ["list"])
    assert listing.exit_code == 0
    assert "good1" in listing.stdout
    assert "bad1.json cannot be read" in listing.stderr
    status = runner.invoke(app, ["status", "bad1"])
    assert status.exit_code == 2
    assert "bad1.json cannot be read" in status.output
    assert "Traceback" not in status.output
