"""Time limits of a contract as calendar events (.ics) or a spreadsheet (.csv).

`write_timebars(time_bars, path)` takes the `TimeBar`s of
`contract_review.plugins.fidic.skills.time_bar.time_bars_for_document` and writes one all-day event
(with a reminder 3 days before) or one CSV row per time limit. A time limit without a known
trigger date is counted from `start_date` (default: today), and the event says so.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from icalendar import Alarm, Calendar, Event

from contract_review.errors import InputError
from contract_review.plugins.fidic.skills.time_bar import TimeBar, compute_deadline

__all__ = ["CSV_COLUMNS", "write_timebars"]

CSV_COLUMNS = (
    "clause_id",
    "who",
    "period",
    "unit",
    "trigger",
    "deadline",
    "consequence",
    "quote",
)
_REMIND_DAYS = 3
_CONSEQUENCE_TEXT = {
    "time_bar": "time-barred: the entitlement is lost",
    "deemed_approval": "deemed approval",
    "deemed_rejection": "deemed rejection",
    "final_and_binding": "becomes final and binding",
    "interest": "interest becomes payable",
    "damages": "damages become payable",
    "none_stated": "none stated",
}


def _unit_text(bar: TimeBar) -> str:
    unit = bar.unit + ("" if bar.value == 1 else "s")
    if bar.unit == "day" and bar.day_type in ("working", "calendar"):
        return f"{bar.day_type} {unit}"
    return unit


def _deadline(bar: TimeBar, start: date) -> tuple[date, bool]:
    """(deadline, whether it was counted from the start date instead of a known trigger)."""
    if bar.deadline is not None:
        return bar.deadline, False
    return compute_deadline(start, bar.value, bar.unit, bar.day_type, bar.trigger_relation), True


def _uid(bar: TimeBar) -> str:
    key = f"{bar.clause_id}|{bar.clause_start_offset}|{bar.start}|{bar.quote}"
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:24] + "@contract-review"


def _summary(bar: TimeBar, prefix: str) -> str:
    who = f"{bar.who} " if bar.who else ""
    action = bar.action or "act"
    return f"{prefix}{bar.clause_label}: {who}{action} ({bar.value:g} {_unit_text(bar)})"


def _description(bar: TimeBar, deadline: date, assumed: bool, start: date) -> str:
    trigger = bar.trigger or "not stated"
    lines = [
        f"Time limit: {bar.quote} ({bar.value:g} {_unit_text(bar)})",
        f"Trigger: {trigger}",
    ]
    if assumed:
        lines.append(
            f"Trigger date not known: counted from {start.isoformat()} (assumed start date)."
        )
    lines += [
        f"Who acts: {bar.who or 'not stated'}"
        + (f" ({'our side' if bar.who_side == 'us' else 'other side'})" if bar.who_side else ""),
        f"Consequence if missed: {_CONSEQUENCE_TEXT[bar.consequence]}"
        + (f' — "{bar.consequence_quote}"' if bar.consequence_quote else ""),
        f"Deadline: {deadline.isoformat()}",
        f'Clause text: "{bar.sentence}"',
    ]
    return "\n".join(lines)


def write_timebars(
    time_bars: Iterable[TimeBar],
    path: Path,
    *,
    start_date: date | None = None,
    title_prefix: str = "",
) -> int:
    """Write the time limits to `path` (.ics calendar or .csv table, by suffix).

    Returns the number of events or rows written. Raises `InputError` for another suffix.
    """
    suffix = path.suffix.lower()
    if suffix not in (".ics", ".csv"):
        raise InputError(f"cannot export time bars to '{path.name}': use a .ics or .csv file")
    start = start_date or date.today()
    bars = list(time_bars)
    if suffix == ".csv":
        with path.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(CSV_COLUMNS)
            for bar in bars:
                deadline, _ = _deadline(bar, start)
                writer.writerow(
                    [
                        bar.clause_id,
                        bar.who or "",
                        f"{bar.value:g}",
                        _unit_text(bar),
                        bar.trigger or "",
                        deadline.isoformat(),
                        bar.consequence,
                        bar.quote,
                    ]
                )
        return len(bars)
    cal = Calendar()
    cal.add("prodid", "-//contract-review//time bars//EN")
    cal.add("version", "2.0")
    stamp = datetime.now(UTC).replace(microsecond=0)
    for bar in bars:
        deadline, assumed = _deadline(bar, start)
        event = Event()
        event.add("uid", _uid(bar))
        event.add("dtstamp", stamp)
        event.add("summary", _summary(bar, title_prefix))
        event.add("dtstart", deadline)
        event.add("dtend", deadline + timedelta(days=1))
        event.add("description", _description(bar, deadline, assumed, start))
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", f"In {_REMIND_DAYS} days: {_summary(bar, title_prefix)}")
        alarm.add("trigger", timedelta(days=-_REMIND_DAYS))
        event.add_component(alarm)
        cal.add_component(event)
    path.write_bytes(cal.to_ical())
    return len(bars)
