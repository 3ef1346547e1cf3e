"""Time limits of a contract as calendar events (.ics) or a spreadsheet (.csv).

`write_timebars(time_bars, path)` takes the `TimeBar`s of
`contract_review.plugins.fidic.skills.time_bar.time_bars_for_document` and writes one all-day event
(with a reminder 3 days before) or one CSV row per time limit.

No deadline is counted from an invented date: a time limit has a date only when its trigger
date is known or a `start_date` is given (the date the limits without a known trigger date are
counted from, which the event then says). Without one, the CSV keeps each deadline relative
("28 days after the Contractor first knew") and leaves the date empty, and a calendar, which
needs dates, is refused (`check_output`, before any work).

Summaries are whole sentences: the contract's sentence holding the limit, cut (when long) only
at a clause boundary around the limit, or, for a limit an amendment sets, a sentence naming the
period in force and the one it replaces.
"""

from __future__ import annotations

import csv
import hashlib
import os
import re
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from icalendar import Alarm, Calendar, Event

from contract_review.errors import InputError
from contract_review.plugins.fidic.skills.time_bar import TimeBar, compute_deadline

__all__ = ["CSV_COLUMNS", "check_output", "relative_deadline", "summary", "write_timebars"]

CSV_COLUMNS = (
    "clause_id",
    "who",
    "period",
    "unit",
    "trigger",
    "due",
    "deadline",
    "consequence",
    "summary",
    "quote",
    "replaces",
)
_SUFFIXES = (".ics", ".csv")
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
_LIMIT_WORDS = {
    "within": "within",
    "not_later_than": "not later than",
    "at_least": "at least",
    "in_advance": "at least",
}
_SUMMARY_CHARS = 240
"""A sentence longer than this (or one introducing a list) is cut, at clause boundaries, to
the clauses holding the limit and who must act."""
_BOUNDARY = re.compile(r"[,;:](?=\s)|[，；：]")
_INSERTION_CHARS = 40
_MODAL = re.compile(r"\b(?:shall|must|may|will)\b|应当?|须|必须")
_LEAD = re.compile(
    r"^\s*(?:\((?:[a-z]{1,2}|[ivx]{1,5}|\d{1,3})\)\s*|（[一二三四五六七八九十]{1,3}）\s*"
    r"|\d{1,3}(?:\.\d{1,3})+\s+|(?:and|or|but|then)\s+)+",
    re.IGNORECASE,
)
_TRAILING = re.compile(
    r"(?:[\s,;:，；：、.。]|(?<![A-Za-z])(?:and|or)(?![A-Za-z]))+$", re.IGNORECASE
)
"""What closes a list item ('…; and') or a clause: dropped before the full stop."""
_LIST_INTRO = re.compile(
    r"(?<![A-Za-z])(?:of|the|a|an|to|and|or|than|with|by|for|in|on|at|from|between|that|which"
    r"|as|following|including|namely|as\s+follows|set(?:ting)?\s+out|comprising)$",
    re.IGNORECASE,
)
"""A sentence that ends on one of these words introduces a list ('payable within 42 days
after the later of:', 'a statement … setting out:')."""


def _suffix(path: Path) -> str:
    """The export's kind ('.ics' or '.csv'), or an InputError for any other suffix."""
    suffix = path.suffix.lower()
    if suffix not in _SUFFIXES:
        raise InputError(f"cannot export time bars to '{path.name}': use a .ics or .csv file")
    return suffix


def _close_list(text: str) -> str:
    """A trigger or sentence that introduces a list ('after the later of:') points at it."""
    return text + " the following (see the clause)" if _LIST_INTRO.search(text) else text


def check_output(path: Path, *, start_date: date | None) -> None:
    """Refuse, before any work, an output the export cannot write: a suffix other than .ics or
    .csv, a folder that does not exist or cannot be written, a calendar without a start date."""
    suffix = _suffix(path)
    folder = path.parent
    if not folder.is_dir():
        raise InputError(f"cannot write '{path}': folder '{folder}' does not exist")
    if path.is_dir():
        raise InputError(f"cannot write '{path}': it is a folder")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError(f"cannot write '{path}': permission denied")
    if suffix == ".ics" and start_date is None:
        raise InputError(
            "a calendar needs a date to count the time limits from: give --start-date "
            "YYYY-MM-DD, or write a .csv file (deadlines relative to their triggers)"
        )


def _unit_text(bar: TimeBar) -> str:
    unit = bar.unit + ("" if bar.value == 1 else "s")
    if bar.unit == "day" and bar.day_type in ("working", "calendar"):
        return f"{bar.day_type} {unit}"
    return unit


def _period(bar: TimeBar) -> str:
    """'14 days', '1 day', '5 working days'."""
    return f"{bar.value:g} {_unit_text(bar)}"


def _cjk(bar: TimeBar) -> bool:
    return not bar.quote.isascii()


def relative_deadline(bar: TimeBar) -> str:
    """The deadline counted from its trigger: '28 days after the Contractor first knew',
    '7 days before the Commencement Date', '收到索赔报告后42天内'."""
    if _cjk(bar):
        return f"{bar.trigger or ''}{bar.quote}"
    period = _period(bar)
    if bar.trigger:
        trigger = _close_list(_TRAILING.sub("", " ".join(bar.trigger.split())))
        return f"{period} {trigger}"
    if bar.limit_type == "in_advance":
        return f"{period} before the event (not stated in the clause)"
    return f"{period} after the triggering event (not stated in the clause)"


def _deadline(bar: TimeBar, start: date | None) -> tuple[date | None, bool]:
    """(deadline, whether it was counted from the start date instead of a known trigger);
    None when neither is known."""
    if bar.deadline is not None:
        return bar.deadline, False
    if start is None:
        return None, False
    return compute_deadline(start, bar.value, bar.unit, bar.day_type, bar.trigger_relation), True


def _uid(bar: TimeBar) -> str:
    key = f"{bar.clause_id}|{bar.clause_start_offset}|{bar.start}|{bar.quote}"
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:24] + "@contract-review"


def _finish(text: str, cjk: bool) -> str:
    """A clause of the contract as a sentence: list mark and leading conjunction dropped,
    capitalised, closed by a full stop."""
    text = _close_list(_TRAILING.sub("", _LEAD.sub("", text).strip()))
    if text[:1].isascii():
        text = text[:1].upper() + text[1:]
    return text + ("。" if cjk else ".")


def _boundaries(text: str) -> list[re.Match[str]]:
    """The clause boundaries of a sentence: semicolons and colons, and commas except the two
    around a short insertion (', with all supporting documents,')."""
    marks = list(_BOUNDARY.finditer(text))
    weak: set[int] = set()
    for i in range(len(marks) - 1):
        first, second = marks[i], marks[i + 1]
        if (
            first.group() in ",，"
            and second.group() in ",，"
            and second.start() - first.end() <= _INSERTION_CHARS
        ):
            weak |= {i, i + 1}
    return [m for i, m in enumerate(marks) if i not in weak]


def _clause_part(text: str, at: int, end: int) -> str:
    """The clauses of a sentence that hold the limit at text[at:end] and the modal verb of the
    party that must act (the nearest before it, else after it; without one, the sentence's
    start): a clause boundary is the only place it is cut."""
    marks = _boundaries(text)
    before = list(_MODAL.finditer(text, 0, at))
    after = _MODAL.search(text, end)
    lo, hi = end, end
    if before:
        lo = before[-1].start()
    elif after:
        lo, hi = at, after.end()
    else:
        lo = 0
    start = max((m.end() for m in marks if m.end() <= lo), default=0)
    stop = min((m.start() for m in marks if m.start() >= hi), default=len(text))
    return text[start:stop]


def _amended_summary(bar: TimeBar) -> str:
    assert bar.replaces is not None
    if _cjk(bar):
        body = f"{bar.trigger or ''}{bar.quote}{bar.action}（专用条件以此替换“{bar.replaces}”）"
        return body + "。"
    period = _period(bar)
    if bar.action:
        who = f"{bar.who} to " if bar.who else ""
        body = f"{who}{bar.action} {_LIMIT_WORDS[bar.limit_type]} {period}"
    else:
        body = f"time limit of {period}"
    if bar.trigger:
        body += f" {bar.trigger}"
    elif bar.limit_type == "in_advance":
        body += " in advance"
    body = body[:1].upper() + body[1:]
    return f"{body} (set by the Particular Conditions in place of “{bar.replaces}”)."


def summary(bar: TimeBar, prefix: str = "") -> str:
    """One whole sentence naming the clause and the limit, e.g. 'Sub-Clause 20.1(a): The
    Contractor shall send the Employer a written notice … not later than 28 days after the
    Contractor first knew.'"""
    cjk = _cjk(bar)
    head = f"{prefix}{bar.clause_label}{'：' if cjk else ': '}"
    if bar.replaces is not None:
        return head + _amended_summary(bar)
    text = " ".join(bar.sentence.split())
    if len(text) > _SUMMARY_CHARS or _LIST_INTRO.search(_TRAILING.sub("", text)):
        quote = " ".join(bar.quote.split())
        at = text.find(quote)
        if at >= 0:
            end = at + len(quote)
            if bar.trigger:
                trigger = " ".join(bar.trigger.split())
                t_at = text.find(trigger, end)
                end = t_at + len(trigger) if t_at >= 0 else end
            text = _clause_part(text, at, end)
    return head + _finish(text, cjk)


def _from_standard(bar: TimeBar, part: str) -> str:
    return (
        " (not in the amendment: from the standard position)" if part in bar.from_standard else ""
    )


def _description(bar: TimeBar, deadline: date, assumed: bool, start: date | None) -> str:
    lines = [f"Time limit: {bar.quote} ({_period(bar)})."]
    if bar.replaces is not None:
        lines.append(f"Set by the Particular Conditions in place of “{bar.replaces}”.")
    lines.append(f"Trigger: {bar.trigger or 'not stated'}{_from_standard(bar, 'trigger')}.")
    if assumed and start is not None:
        lines.append(
            f"Trigger date not known: counted from {start.isoformat()} (assumed start date)."
        )
    side = f" ({'our side' if bar.who_side == 'us' else 'other side'})" if bar.who_side else ""
    lines += [
        f"Who acts: {bar.who or 'not stated'}{side}{_from_standard(bar, 'who')}.",
        f"Consequence if missed: {_CONSEQUENCE_TEXT[bar.consequence]}"
        + (f' — "{bar.consequence_quote}"' if bar.consequence_quote else "")
        + f"{_from_standard(bar, 'consequence')}.",
        f"Due: {relative_deadline(bar)}.",
        f"Deadline: {deadline.isoformat()}.",
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

    `start_date` is the date limits without a known trigger date are counted from; without
    it the CSV gives those deadlines relative only, and a calendar is refused. Returns the
    number of events or rows written. Raises `InputError` (nothing written) for another
    suffix, or for a calendar with a limit that has no date.
    """
    suffix = _suffix(path)
    bars = list(time_bars)
    if suffix == ".csv":
        with path.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(CSV_COLUMNS)
            for bar in bars:
                deadline, _ = _deadline(bar, start_date)
                writer.writerow(
                    [
                        bar.clause_id,
                        bar.who or "",
                        f"{bar.value:g}",
                        _unit_text(bar),
                        bar.trigger or "",
                        relative_deadline(bar),
                        deadline.isoformat() if deadline else "",
                        bar.consequence,
                        summary(bar),
                        bar.quote,
                        bar.replaces or "",
                    ]
                )
        return len(bars)
    dated = [(bar, *_deadline(bar, start_date)) for bar in bars]
    if any(deadline is None for _, deadline, _ in dated):
        raise InputError(
            "a calendar needs a date to count the time limits from: give a start date, or "
            "write a .csv file (deadlines relative to their triggers)"
        )
    cal = Calendar()
    cal.add("prodid", "-//contract-review//time bars//EN")
    cal.add("version", "2.0")
    stamp = datetime.now(UTC).replace(microsecond=0)
    for bar, deadline, assumed in dated:
        assert deadline is not None
        title = summary(bar, title_prefix)
        event = Event()
        event.add("uid", _uid(bar))
        event.add("dtstamp", stamp)
        event.add("summary", title)
        event.add("dtstart", deadline)
        event.add("dtend", deadline + timedelta(days=1))
        event.add("description", _description(bar, deadline, assumed, start_date))
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", f"In {_REMIND_DAYS} days: {title}")
        alarm.add("trigger", timedelta(days=-_REMIND_DAYS))
        event.add_component(alarm)
        cal.add_component(event)
    path.write_bytes(cal.to_ical())
    return len(bars)
