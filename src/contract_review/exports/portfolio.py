"""The portfolio workbook and JSON of a batch review.

`portfolio.xlsx` has three sheets: Contracts (one row per contract: file, status or error,
parties, dates, term and renewal, governing law and the rest of the 41-category inventory,
counts by severity, the top three issues), Issues (every issue of every contract, filterable)
and Heat map (contract × topic, each cell coloured by the most severe issue on that topic).
`portfolio.json` holds the same rows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["PortfolioRow", "write_portfolio"]


@dataclass
class PortfolioRow:
    """One contract of a portfolio, as plain values: the batch fills it in as the contract is
    reviewed, the workbook shows it."""

    file: str
    sha256: str
    status: str = "pending"
    """'done', 'error', 'duplicate' (of `same_as`)."""
    error: str = ""
    same_as: str = ""
    party: str = ""
    parties: list[str] = field(default_factory=list)
    kind: str = ""
    """The contract's main kind ('licence'), '' when none was recognised."""
    inventory: dict[str, str] = field(default_factory=dict)
    """Inventory category → its value, 'yes' or ''."""
    counts: dict[str, int] = field(default_factory=dict)
    """Issues by severity ('high', 'medium', 'low')."""
    top: list[str] = field(default_factory=list)
    issues: list[dict[str, Any]] = field(default_factory=list)
    """The contract's issues as the issues list's rows."""
    outputs: str = ""
    """The contract's output folder."""


_FILL = {"High": "F4A8A1", "Medium": "F9D29D", "Low": "B7E4C7", "高": "F4A8A1", "中": "F9D29D"}
_FILL["低"] = _FILL["Low"]
_RANK = {"High": 0, "Medium": 1, "Low": 2, "高": 0, "中": 1, "低": 2}
"""Severity labels (the issues' own language) → colour and rank."""


def _categories(rows: Sequence[PortfolioRow]) -> list[str]:
    """The inventory's categories in its own order (parties, dates, renewal, governing law
    first), as the rows hold them."""
    seen: dict[str, None] = {}
    for row in rows:
        for category in row.inventory:
            seen.setdefault(category, None)
    return list(seen)


def _beside(outputs: str, folder: Path) -> str:
    """A contract's output folder relative to the workbook's (the folder can be moved or
    shared whole, and a server's own paths are not shown)."""
    if not outputs:
        return ""
    path, root = Path(outputs).resolve(), folder.resolve()
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else outputs


def write_portfolio(rows: Sequence[PortfolioRow], folder: Path) -> dict[str, Path]:
    """Write portfolio.xlsx and portfolio.json into `folder`; returns their paths."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.utils import get_column_letter

    categories = _categories(rows)
    book = Workbook()
    sheet = book.active
    sheet.title = "Contracts"
    header = ["File", "Status", "Error / same as", "Acting for", "Parties", "Kind"]
    header += [c for c in categories if c != "Parties"]
    header += ["High", "Medium", "Low", "Top issues", "Outputs"]
    sheet.append(header)
    for row in rows:
        note = row.error or (row.same_as if row.status == "duplicate" else "")
        values: list[Any] = [row.file, row.status, note, row.party, "; ".join(row.parties)]
        values.append(row.kind)
        values += [row.inventory.get(c, "") for c in categories if c != "Parties"]
        values += [row.counts.get(k, 0) for k in ("high", "medium", "low")]
        values += ["\n".join(row.top), _beside(row.outputs, folder)]
        sheet.append(values)
    issues = book.create_sheet("Issues")
    issue_header = ["File", "No.", "Clause", "Severity", "Issue", "Why it matters", "Quote"]
    issue_header += ["Our position", "Proposed change", "Status"]
    issues.append(issue_header)
    topics: dict[str, None] = {}
    for row in rows:
        for issue in row.issues:
            topics.setdefault(str(issue.get("issue", "")), None)
            issues.append(
                [
                    row.file,
                    issue.get("number"),
                    issue.get("clause"),
                    issue.get("severity"),
                    issue.get("issue"),
                    issue.get("why"),
                    issue.get("quote"),
                    issue.get("position"),
                    issue.get("proposed"),
                    issue.get("status"),
                ]
            )
    heat = book.create_sheet("Heat map")
    heat.append(["File", *topics])
    for row in rows:
        worst: dict[str, str] = {}
        for issue in row.issues:
            topic, level = str(issue.get("issue", "")), str(issue.get("severity", ""))
            if _RANK.get(level, 9) < _RANK.get(worst.get(topic, ""), 9):
                worst[topic] = level
        heat.append([row.file, *(worst.get(t, "") for t in topics)])
        for col, topic in enumerate(topics, 2):
            colour = _FILL.get(worst.get(topic, ""))
            if colour is not None:
                heat.cell(row=heat.max_row, column=col).fill = PatternFill("solid", fgColor=colour)
    for ws in (sheet, issues, heat):
        for cell in ws[1]:
            cell.font = Font(bold=True)
            cell.alignment = Alignment(wrap_text=True, vertical="top")
        ws.freeze_panes = "B2"
        ws.auto_filter.ref = f"A1:{get_column_letter(ws.max_column)}{ws.max_row}"
        ws.column_dimensions["A"].width = 40
    xlsx = folder / "portfolio.xlsx"
    book.save(str(xlsx))
    path = folder / "portfolio.json"
    path.write_text(
        json.dumps([row.__dict__ for row in rows], ensure_ascii=False, indent=1), encoding="utf-8"
    )
    return {"xlsx": xlsx, "json": path}
