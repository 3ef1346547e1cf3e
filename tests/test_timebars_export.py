"""Calendar (.ics) and CSV export of a contract's time limits."""

from __future__ import annotations

import csv
from datetime import date, timedelta
from pathlib import Path

import pytest
from icalendar import Calendar

from contract_review.errors import InputError
from contract_review.exports.timebars import CSV_COLUMNS, write_timebars
from contract_review.parties import party_roles
from contract_review.plugins.fidic.skills.time_bar import time_bars_for_document
from tests.conftest import example_structure

FIDIC = example_structure("fidic/particular_conditions_en.txt")


def test_ics_events(tmp_path: Path) -> None:
    bars = time_bars_for_document(
        FIDIC, roles=party_roles(FIDIC, "Contractor"), trigger_dates={"20.1": date(2025, 1, 3)}
    )
    out = tmp_path / "deadlines.ics"
    n = write_timebars(bars, out, start_date=date(2025, 2, 1), title_prefix="[Desal] ")
    assert n == len(bars) > 10
    cal = Calendar.from_ical(out.read_bytes())
    events = list(cal.walk("VEVENT"))
    assert len(events) == n
    notice = next(e for e in events if "20.1(a)" in str(e.get("summary")))
    assert str(notice.get("summary")) == (
        "[Desal] Sub-Clause 20.1(a): The Contractor shall send the Employer a written notice "
        "identifying the relevant event or circumstance promptly, and not later than 28 days "
        "after the Contractor first knew, or with reasonable diligence would have known, of it."
    )
    assert notice.decoded("dtstart") == date(2025, 1, 31)
    assert notice.decoded("dtend") == date(2025, 2, 1)
    desc = str(notice.get("description"))
    assert "Trigger: after the Contractor first knew" in desc
    assert "Who acts: Contractor (our side)" in desc
    assert 'time-barred: the entitlement is lost — "loses any right"' in desc
    assert "not later than 28 days after the Contractor first knew" in desc
    assert "assumed start date" not in desc
    (alarm,) = notice.walk("VALARM")
    assert alarm.decoded("trigger") == timedelta(days=-3)
    # no trigger date: counted from the start date, and said so
    daab = next(e for e in events if str(e.get("summary")).startswith("[Desal] Sub-Clause 21.1"))
    assert daab.decoded("dtstart") == date(2025, 3, 1)
    assert "counted from 2025-02-01 (assumed start date)" in str(daab.get("description"))
    # stable ids: a second export gives the same UIDs
    again = tmp_path / "again.ics"
    write_timebars(bars, again, start_date=date(2025, 2, 1))
    uids = [str(e.get("uid")) for e in Calendar.from_ical(again.read_bytes()).walk("VEVENT")]
    assert uids == [str(e.get("uid")) for e in events]
    assert len(set(uids)) == n


def test_csv_round_trip(tmp_path: Path) -> None:
    zh = example_structure("cn/construction_contract_zh.txt")
    bars = time_bars_for_document(zh, roles=party_roles(zh, "乙方"))
    out = tmp_path / "deadlines.csv"
    n = write_timebars(bars, out, start_date=date(2025, 1, 1))
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert n == len(rows) == len(bars)
    assert tuple(rows[0]) == CSV_COLUMNS
    claim = next(r for r in rows if r["clause_id"] == "15.1")
    assert claim == {
        "clause_id": "15.1",
        "who": "乙方",
        "period": "28",
        "unit": "days",
        "trigger": "其知道或者应当知道相关事件之日起",
        "due": "其知道或者应当知道相关事件之日起28天内",
        "deadline": "2025-01-29",
        "consequence": "time_bar",
        "summary": "第15.1条：乙方主张追加付款或延长工期的，应自其知道或者应当知道相关事件之日起28天内"
        "书面通知监理人，说明事件经过及主张依据；超过该期限未通知的，乙方无权再就该事件主张追加付款"
        "或延长工期。",
        "quote": "28天内",
        "replaces": "",
    }


def test_bad_suffix(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"\.ics or \.csv"):
        write_timebars([], tmp_path / "deadlines.xlsx")
