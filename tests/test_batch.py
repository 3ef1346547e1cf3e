"""Portfolio review: a folder of contracts (one corrupt, one a duplicate, one legacy .doc)
into one workbook; run again, the finished contracts are skipped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from openpyxl import load_workbook
from typer.testing import CliRunner

from contract_review.batch import collect_files
from contract_review.cli import app
from tests.conftest import EXAMPLES

runner = CliRunner()


@pytest.fixture
def room(tmp_path: Path) -> Path:
    folder = tmp_path / "data room"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(EXAMPLES / "generic" / "supply_agreement_en.txt", folder / "supply.txt")
    shutil.copy(EXAMPLES / "generic" / "supply_agreement_en.txt", folder / "sub" / "copy.txt")
    shutil.copy(EXAMPLES / "generic" / "services_agreement_en.md", folder / "services.md")
    (folder / "broken.docx").write_bytes(b"PK\x03\x04 not a zip at all")
    (folder / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0 legacy")
    (folder / "notes.png").write_bytes(b"\x89PNG")
    return folder


def _batch(room: Path, out: Path, *extra: str) -> str:
    result = runner.invoke(
        app,
        [
            "batch",
            str(room),
            "--party",
            "Buyer|Customer|Client",
            "--out",
            str(out),
            "--workers",
            "2",
            *extra,
        ],
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_a_folder_becomes_one_workbook(
    room: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))
    out = tmp_path / "portfolio"
    said = _batch(room, out)
    assert "5 contract(s): 2 reviewed, 1 duplicate(s), 2 error(s)" in said
    book = load_workbook(out / "portfolio.xlsx")
    assert book.sheetnames == ["Contracts", "Issues", "Heat map"]
    contracts = book["Contracts"]
    header = [c.value for c in contracts[1]]
    rows = {
        Path(str(r[0])).name: dict(zip(header, r, strict=True))
        for r in contracts.iter_rows(min_row=2, values_only=True)
    }
    assert set(rows) == {"supply.txt", "copy.txt", "services.md", "broken.docx", "old.doc"}
    supply = rows["supply.txt"]
    assert supply["Status"] == "done"
    assert supply["Acting for"] == "Buyer"
    assert (supply["Kind"], rows["services.md"]["Kind"]) == ("supply", "services")
    assert rows["copy.txt"]["Kind"] == "supply"
    assert supply["Governing Law"] == "Michigan"
    assert supply["Medium"] >= 1
    assert "Price Changes" in str(supply["Top issues"])
    assert rows["copy.txt"]["Status"] == "duplicate"
    assert str(rows["copy.txt"]["Error / same as"]).endswith("supply.txt")
    assert rows["broken.docx"]["Status"] == "error"
    assert "not a readable .docx" in str(rows["broken.docx"]["Error / same as"])
    assert "legacy .doc" in str(rows["old.doc"]["Error / same as"])
    issues = list(book["Issues"].iter_rows(min_row=2, values_only=True))
    assert any(Path(str(i[0])).name == "supply.txt" and i[4] == "Price Changes" for i in issues)
    heat = book["Heat map"]
    topics = [c.value for c in heat[1]][1:]
    assert "Price Changes" in topics
    column = topics.index("Price Changes") + 2
    supply_row = next(
        r for r in range(2, heat.max_row + 1) if str(heat.cell(r, 1).value).endswith("supply.txt")
    )
    assert heat.cell(supply_row, column).value == "Medium"
    assert heat.cell(supply_row, column).fill.fgColor.rgb.endswith("F9D29D")
    data = json.loads((out / "portfolio.json").read_text(encoding="utf-8"))
    assert len(data) == 5
    # each reviewed contract has its own outputs, its redlines pending
    findings = json.loads(
        (out / str(supply["Outputs"]) / "findings.json").read_text(encoding="utf-8")
    )
    assert not Path(str(supply["Outputs"])).is_absolute()  # the workbook travels with its folder
    statuses = {d["status"] for c in findings["clauses"] for d in c["findings"]["diffs"]}
    assert statuses == {"pending"}

    # run again: the finished contracts are not reviewed a second time
    before = {p: p.stat().st_mtime_ns for p in out.rglob("findings.json")}
    again = _batch(room, out)
    assert "2 reviewed" in again
    assert {p: p.stat().st_mtime_ns for p in out.rglob("findings.json")} == before


def test_files_are_collected_without_leaving_their_folder(room: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("1. Secret\n", encoding="utf-8")
    (room / "link.txt").symlink_to(outside)
    (room / "linked-dir").symlink_to(tmp_path, target_is_directory=True)
    names = sorted(p.name for p in collect_files([str(room)]))
    assert names == ["broken.docx", "copy.txt", "old.doc", "services.md", "supply.txt"]
    assert [p.name for p in collect_files([str(room / "*.md")])] == ["services.md"]


def test_inventory_only_reads_no_risks(
    room: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))
    out = tmp_path / "inventory"
    _batch(room, out, "--inventory-only")
    book = load_workbook(out / "portfolio.xlsx")
    header = [c.value for c in book["Contracts"][1]]
    rows = [
        dict(zip(header, r, strict=True))
        for r in book["Contracts"].iter_rows(min_row=2, values_only=True)
    ]
    supply = next(r for r in rows if str(r["File"]).endswith("supply.txt"))
    assert supply["Governing Law"] == "Michigan"
    assert supply["Kind"] == "supply"
    assert supply["High"] == supply["Medium"] == supply["Low"] == 0
    assert book["Issues"].max_row == 1
