"""`contract-review timebars`: the periods Particular Conditions set, the conditions in force
with --baseline, no deadline counted from an invented date, whole-sentence summaries, and bad
options refused before any work."""

from __future__ import annotations

import csv
import re
from datetime import date, timedelta
from pathlib import Path

import pytest
from icalendar import Calendar
from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.documents import load_task_documents
from contract_review.errors import InputError
from contract_review.exports.timebars import summary, write_timebars
from contract_review.parties import party_roles
from contract_review.plugins import load_builtin_plugins
from contract_review.plugins.fidic.skills.time_bar import TimeBar, time_bars_for_document
from contract_review.plugins.registry import require_plugin
from tests.conftest import EXAMPLES, run_cli

runner = CliRunner()
FIDIC = EXAMPLES / "fidic"
AMENDING = FIDIC / "particular_conditions_amending_en.txt"
PC = FIDIC / "particular_conditions_en.txt"
GC = FIDIC / "general_conditions_en.txt"
ZH = EXAMPLES / "cn" / "construction_contract_zh.txt"


def _rows(tmp_path: Path, *args: str) -> list[dict[str, str]]:
    out = tmp_path / "deadlines.csv"
    result = runner.invoke(app, ["timebars", *args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    with out.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _bars(path: Path, *, baseline: Path | None = None) -> list[TimeBar]:
    load_builtin_plugins()
    plugin = require_plugin("fidic")
    docs = load_task_documents(path, baseline=baseline, parser_config=plugin.parser_config)
    if baseline is not None:
        assert plugin.prepare_documents is not None
        docs = plugin.prepare_documents(docs, plugin.parser_config)
    assert docs[0].structure is not None
    return time_bars_for_document(
        docs[0].structure,
        roles=party_roles(docs[0].structure, "Contractor"),
        baseline_of=plugin.baseline,
    )


def test_particular_conditions_alone_give_the_periods_their_amendments_set(
    tmp_path: Path,
) -> None:
    rows = _rows(tmp_path, str(AMENDING), "--party", "Contractor")
    by_clause = {r["clause_id"]: r for r in rows}
    assert len(rows) == len(by_clause) == 5  # one limit per sub-clause, none deleted
    claim = by_clause["20.1"]
    assert (claim["period"], claim["unit"], claim["replaces"]) == ("14", "days", "within 28 days")
    # the amendment states the period only: trigger and time bar from the FIDIC standard
    assert claim["trigger"] == "after it became aware"
    assert claim["consequence"] == "time_bar"
    assert claim["due"] == "14 days after it became aware"
    assert by_clause["4.2"]["period"] == "14"
    assert by_clause["4.2"]["trigger"] == "after receipt of the Letter of Acceptance"
    assert by_clause["14.7"]["period"] == "90"
    assert by_clause["14.7"]["trigger"] == "after the Engineer receives the Statement"
    assert by_clause["8.5"]["period"] == "14"  # added text: the limit as written
    assert by_clause["8.5"]["replaces"] == ""


def test_a_bare_period_amendment_is_the_standard_limit_shortened(tmp_path: Path) -> None:
    pc = tmp_path / "pc.txt"
    pc.write_text(
        "PARTICULAR CONDITIONS\n\nClause 20 Claims\n\n"
        "Sub-Clause 20.2 Claims for Payment and/or EOT\n"
        'In Sub-Clause 20.2, delete "28 days" and replace with "14 days".\n\n'
        "Sub-Clause 11.3 Extension of Defects Notification Period\n"
        'In Sub-Clause 11.3, delete "730 days" and replace with "365 days".\n',
        encoding="utf-8",
    )
    (bar,) = _bars(pc)  # the 365 days replace no time limit of the standard
    assert (bar.clause_id, bar.value, bar.replaces) == ("20.2", 14, "28 days")
    assert bar.consequence == "time_bar"
    assert {"trigger", "consequence"} <= set(bar.from_standard)
    assert bar.shorter_than_standard is True


def test_baseline_exports_the_limits_of_the_conditions_in_force(tmp_path: Path) -> None:
    gc_rows = _rows(tmp_path, str(GC))
    rows = _rows(tmp_path, str(AMENDING), "--baseline", str(GC), "--party", "Contractor")
    periods = {(r["clause_id"], r["period"]) for r in rows}
    assert ("20.1", "14") in periods
    assert ("20.1", "28") not in periods  # shortened by the PC
    claim = next(r for r in rows if r["clause_id"] == "20.1")
    assert claim["who"] == "Contractor"
    assert claim["consequence"] == "time_bar"  # the GC's own time bar, in force
    assert claim["trigger"] == "after it became aware of the event or circumstance"
    assert ("14.7", "90") in periods
    assert ("14.7", "56") in periods
    assert ("8.5", "14") in periods  # added by the PC
    assert ("4.25", "28") in periods
    for unchanged in (("18.1", "14"), ("20.2", "84"), ("21.1", "28"), ("10.1", "28")):
        assert unchanged in periods  # the GC's limits the PC leaves alone
    assert not any(r["clause_id"] == "13.3" for r in rows)  # deleted by the PC
    assert len(gc_rows) == 14
    assert len(rows) == len(gc_rows) - 1 + 2


def test_csv_without_start_date_keeps_deadlines_relative(tmp_path: Path) -> None:
    rows = _rows(tmp_path, str(PC), "--party", "Contractor")
    assert rows
    assert all(r["deadline"] == "" for r in rows)
    notice = next(r for r in rows if r["clause_id"] == "20.1(a)")
    assert notice["due"] == "28 days after the Contractor first knew"
    commencement = next(r for r in rows if r["clause_id"] == "8.1")
    assert commencement["due"] == "7 days before the event (not stated in the clause)"
    dated = _rows(tmp_path, str(PC), "--start-date", "2025-01-03")
    notice = next(r for r in dated if r["clause_id"] == "20.1(a)")
    assert notice["deadline"] == "2025-01-31"


def test_ics_without_start_date_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "deadlines.ics"
    result = runner.invoke(app, ["timebars", str(PC), "--out", str(out)])
    assert result.exit_code == 2
    assert "--start-date" in result.output
    assert not out.exists()
    with pytest.raises(InputError, match="start date"):
        write_timebars(_bars(PC), out)
    assert not out.exists()


def test_ics_with_start_date_dates_each_limit(tmp_path: Path) -> None:
    out = tmp_path / "deadlines.ics"
    result = runner.invoke(
        app, ["timebars", str(AMENDING), "--out", str(out), "--start-date", "2025-01-03"]
    )
    assert result.exit_code == 0, result.output
    events = list(Calendar.from_ical(out.read_bytes()).walk("VEVENT"))
    by_title = {str(e.get("SUMMARY")).split(":")[0]: e for e in events}
    assert len(by_title) == len(events) == 5
    start = date(2025, 1, 3)
    for label, days in (("Sub-Clause 20.1", 14), ("Sub-Clause 4.2", 14), ("Sub-Clause 14.7", 90)):
        assert by_title[label].decoded("DTSTART") == start + timedelta(days=days), label
    claim = by_title["Sub-Clause 20.1"]
    assert str(claim.get("SUMMARY")) == (
        "Sub-Clause 20.1: Give notice within 14 days after it became aware "
        "(set by the Particular Conditions in place of “within 28 days”)."
    )
    description = str(claim.get("DESCRIPTION"))
    assert "counted from 2025-01-03 (assumed start date)" in description
    assert "time-barred" in description
    assert "from the standard position" in description


_DANGLING_END = re.compile(r"\b(?:of|the|a|an|to|and|or|than|with|by|for|in|that|which)[.。]$")


@pytest.mark.parametrize(
    ("path", "baseline"),
    [(PC, None), (GC, None), (AMENDING, None), (AMENDING, GC), (ZH, None)],
    ids=["pc", "gc", "amending_pc", "amending_pc_with_gc", "zh"],
)
def test_summaries_are_whole_sentences(path: Path, baseline: Path | None) -> None:
    bars = _bars(path, baseline=baseline)
    assert bars
    for bar in bars:
        title = summary(bar)
        assert title.endswith((".", "。")), title
        assert "(s)" not in title, title
        assert not _DANGLING_END.search(title), title
        if bar.replaces is not None or title.endswith("(see the clause)."):
            continue
        # a run of the contract's own sentence, ending at its end or at a clause boundary
        sentence = " ".join(bar.sentence.split())
        body = title.split(": ", 1)[-1] if title.isascii() else title.split("：", 1)[-1]
        body = body[:-1]
        at = sentence.find(body[1:])
        assert at >= 0, (title, sentence)
        after = sentence[at + len(body) - 1 : at + len(body)]
        assert after in ("", ",", ";", ":", "，", "；", "："), (title, sentence)
    if path == PC:  # its 20.1(a) summary was cut at a fixed length before
        (notice,) = [b for b in bars if b.clause_id == "20.1(a)"]
        assert "identifying the relevant event or circumstance promptly" in summary(notice)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--domain", "nope"), "--domain"),
        (("--subtype", "gold_book"), "--subtype"),
        (("--domain", "fidic", "--subtype", "spa"), "--subtype spa is not a subtype of fidic"),
        (("--out", "{tmp}/deadlines.xlsx"), ".ics or .csv"),
        (("--out", "{tmp}/no-such-folder/deadlines.csv"), "does not exist"),
        (("--out", "{tmp}/deadlines.ics"), "--start-date"),
    ],
)
def test_a_bad_option_is_one_error_line_before_any_work(
    tmp_path: Path, options: tuple[str, ...], message: str
) -> None:
    args = [o.format(tmp=tmp_path) for o in options]
    if "--out" not in args:
        args += ["--out", str(tmp_path / "deadlines.csv")]
    # the contract does not exist: the error shows the options are checked before it is read
    done = run_cli(tmp_path, "timebars", str(tmp_path / "missing.txt"), *args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    assert message in lines[0]
    assert "missing.txt" not in lines[0]
    assert not [p for p in tmp_path.iterdir() if p.name != "state"]  # nothing written
