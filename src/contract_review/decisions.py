"""A lawyer's decisions on redlines, kept the moment each is given.

Every decision is appended to the task's decision log (`<state_dir>/tasks/<id>.decisions.jsonl`,
one JSON line each, flushed to disk before the next question): a Ctrl-C or a kill after three
answers loses none of them, and the next session asks only what is still undecided. The log is
the record of who decided what and when; the review graph receives the decisions from it once
every redline of an approval round is decided.

Light on purpose (no LangGraph): reading a decisions file and the log costs nothing at start-up.
"""

from __future__ import annotations

import csv
import getpass
import io
import json
import os
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from contract_review.config import Settings, get_settings
from contract_review.errors import InputError
from contract_review.models import ApprovalRequest

__all__ = [
    "DecisionLog",
    "default_reviewer",
    "read_decisions_file",
    "stamped",
]

_APPROVE = {
    "approve",
    "approved",
    "accept",
    "accepted",
    "yes",
    "y",
    "a",
    "ok",
    "edit",
    "同意",
    "批准",
}
_REJECT = {"reject", "rejected", "decline", "declined", "no", "n", "r", "拒绝", "不同意"}
_ID_KEYS = ("diff_id", "diff id", "diff", "id", "redline")
_TEXT_KEYS = ("user_modified_text", "text", "wording", "edited_text", "your wording")


def default_reviewer() -> str:
    """The person deciding when no name is given: the operating-system user."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name for this uid (containers)
        return "reviewer"


def stamped(request: ApprovalRequest, reviewer: str) -> ApprovalRequest:
    """`request` with who decided (unless it names someone) and when (now, UTC)."""
    return request.model_copy(
        update={
            "reviewer": request.reviewer or reviewer,
            "decided_at": request.decided_at or datetime.now(UTC).isoformat(timespec="seconds"),
        }
    )


class DecisionLog:
    """The decisions given on one task's redlines, in the order given (the last one on a
    redline counts)."""

    def __init__(self, task_id: str, settings: Settings | None = None) -> None:
        """The log of task `task_id` under the settings' state folder."""
        settings = settings or get_settings()
        self.path = settings.state_dir / "tasks" / f"{task_id}.decisions.jsonl"

    def record(self, request: ApprovalRequest) -> None:
        """Append one decision and force it to disk before returning."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = request.model_dump_json() + "\n"
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())

    def load(self) -> dict[str, ApprovalRequest]:
        """Every decision by diff id. A line cut short by a crash mid-write is skipped: it was
        never acknowledged to the person who gave it."""
        if not self.path.is_file():
            return {}
        decided: dict[str, ApprovalRequest] = {}
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                request = ApprovalRequest.model_validate_json(line)
            except ValidationError:
                continue
            decided[request.diff_id] = request
        return decided


def _request(row: Mapping[str, Any], where: str) -> ApprovalRequest:
    """One decision from a row of a decisions file (keys compared case-insensitively)."""
    fields = {str(k).strip().lower(): v for k, v in row.items() if k is not None}
    diff_id = next((str(fields[k]).strip() for k in _ID_KEYS if fields.get(k)), "")
    if not diff_id:
        raise InputError(f"{where}: no diff_id")
    raw = str(fields.get("decision") or "").strip().lower()
    text = next((str(fields[k]) for k in _TEXT_KEYS if fields.get(k) not in (None, "")), None)
    if raw in _APPROVE or (not raw and text is not None):
        decision = "approve"
    elif raw in _REJECT:
        decision = "reject"
    else:
        raise InputError(
            f"{where}: decision for {diff_id} must be approve, reject or edit, got '{raw}'"
        )
    if raw == "edit" and text is None:
        raise InputError(f"{where}: edit of {diff_id} gives no text")
    return ApprovalRequest.model_validate(
        {
            "diff_id": diff_id,
            "decision": decision,
            "feedback": str(fields.get("feedback") or ""),
            "user_modified_text": text if decision == "approve" else None,
            "reviewer": str(fields.get("reviewer") or ""),
        }
    )


def _rows_from_json(data: Any) -> Iterable[Mapping[str, Any]]:
    if isinstance(data, Mapping) and isinstance(data.get("decisions"), list):
        data = data["decisions"]
    if isinstance(data, list):
        for item in data:
            if not isinstance(item, Mapping):
                raise InputError("each decision must be an object with diff_id and decision")
            yield item
    elif isinstance(data, Mapping):  # {diff_id: "approve" | {decision, feedback, text}}
        for key, value in data.items():
            yield {"diff_id": key, **(value if isinstance(value, Mapping) else {"decision": value})}
    else:
        raise InputError("a decisions file holds a list of decisions or a map by diff id")


def read_decisions_file(path: Path) -> list[ApprovalRequest]:
    """The decisions in a JSON or CSV file (columns or keys: diff_id, decision — approve,
    reject or edit — and feedback or text); an InputError names the file and the first
    problem, before anything is recorded."""
    if not path.is_file():
        raise InputError(f"{path}: file not found")
    try:
        raw = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot be read as UTF-8 text ({exc})") from None
    try:
        if path.suffix.lower() == ".json" or raw.lstrip().startswith(("[", "{")):
            try:
                data = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise InputError(f"not valid JSON ({exc})") from None
            rows = list(_rows_from_json(data))
            requests = [_request(row, f"decision {n}") for n, row in enumerate(rows, 1)]
        else:
            reader = csv.DictReader(io.StringIO(raw))
            requests = [_request(row, f"line {n}") for n, row in enumerate(reader, 2)]
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    except ValidationError as exc:
        raise InputError(f"{path}: {exc.errors()[0]['msg']}") from None
    if not requests:
        raise InputError(f"{path}: no decisions in the file")
    return requests
