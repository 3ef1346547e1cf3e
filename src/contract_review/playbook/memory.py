"""Decisions that teach: a lawyer's edit of a redline, or rejection with feedback, kept as an
amendment of the position it was measured against, in a playbook file the lawyer names (one
per client or matter: nothing is shared across clients, and the built-in playbooks are never
written).

The file is an ordinary playbook (full format): each amended position is the position as the
review used it, with the lawyer's wording as its `redline`, their feedback as its `rationale`
and the decision in `remembered`. Given as `--criteria` to a later review, it replaces those
positions (by id): the rules propose the lawyer's wording, the agent's prompt carries it, and
the report names the remembered positions that applied.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from contract_review.fileio import write_atomic
from contract_review.models import ApprovalRequest, DocumentDiff, ReviewResult, RiskPoint

from .files import FULL_FORMAT, PlaybookError, dump_playbook, load_playbook
from .schema import Playbook, Position, Remembered, Wording, merge_positions

__all__ = ["Lesson", "accepts_wording", "check_memory_path", "lessons", "remember"]


@dataclass(frozen=True)
class Lesson:
    """One decision that teaches, and what it makes of its position (or why it cannot)."""

    diff_id: str
    clause_id: str
    position: Position | None
    """The amended position; None when the redline was measured against none."""
    why_not: str = ""


def _wording(text: str, language: str) -> Wording:
    return Wording(zh=text) if language.startswith("zh") else Wording(en=text)


def lessons(
    result: ReviewResult,
    positions: Iterable[Position],
    decisions: Mapping[str, ApprovalRequest],
    diff_ids: Iterable[str] | None = None,
) -> list[Lesson]:
    """The review's decisions that teach (edits, rejections with feedback; those of
    `diff_ids` when given), each with its position amended."""
    by_id = {p.id: p for p in positions}
    risks: dict[str, RiskPoint] = {r.id: r for c in result.clauses for r in c.findings.risks}
    diffs: dict[str, DocumentDiff] = {
        d.diff_id: d for c in result.clauses for d in c.findings.diffs
    }
    wanted = set(diff_ids) if diff_ids is not None else None
    out = []
    for diff_id, request in decisions.items():
        if wanted is not None and diff_id not in wanted:
            continue
        edited = request.user_modified_text is not None
        if not edited and not (request.decision.value == "reject" and request.feedback.strip()):
            continue  # an approval, or a rejection without a word of why, teaches nothing
        diff = diffs.get(diff_id)
        accepted = accepts_wording(request, diff)
        risk = risks.get(diff.risk_id or "") if diff else None
        position = by_id.get(risk.position_id or "") if risk else None
        clause_id = diff.clause_id if diff else ""
        if position is None:
            out.append(Lesson(diff_id, clause_id, None, "its redline follows no playbook position"))
            continue
        language = result.language
        update: dict[str, object] = {
            "remembered": Remembered(
                task_id=result.task_id,
                clause_id=clause_id,
                decision="accept" if accepted else "edit" if edited else "reject",
                reviewer=request.reviewer,
                decided_at=request.decided_at or "",
                original_text=diff.original_text if diff else "",
                wording=request.user_modified_text or "",
                feedback=request.feedback,
            )
        }
        if edited and request.user_modified_text and not accepted:
            update["redline"] = _wording(request.user_modified_text, language)
        if request.feedback.strip():
            update["rationale"] = _wording(request.feedback.strip(), language)
        out.append(Lesson(diff_id, clause_id, position.model_copy(update=update)))
    return out


_ACCEPTS = re.compile(
    r"\b(?:acceptable|accepted)\b"
    r"|\b(?:fine|ok(?:ay)?|agreed|good)\s+(?:as\s+(?:it\s+)?(?:is|stands|drafted|written)|with\s+(?:it|this|us))"
    r"|^\s*(?:fine|ok(?:ay)?|agreed)\s*[.!]?\s*$"
    r"|\b(?:we|client|the\s+client)\s+(?:can\s+|will\s+|do\s+)?(?:accept|agree\s+to\s+(?:it|this)|live\s+with)\b"
    r"|\b(?:keep|leave)\s+(?:it|this|the\s+\w+)\s+as\s+(?:it\s+)?(?:is|stands|drafted)"
    r"|\bno\s+(?:change|amendment)s?\s+(?:is\s+|are\s+)?(?:needed|required|necessary)"
    r"|\bnot\s+(?:a\s+)?(?:concern|an?\s+issue|a\s+problem)\s+for\s+us"
    r"|可以接受|可接受|能够接受|我方接受|予以接受|同意(?:该|此|原)?(?:条款|约定|表述|措辞|原文)"
    r"|无需修改|不需要修改|不必修改|无须修改|保留原(?:条款|文|约定|表述)|维持原(?:条款|文|约定)",
    re.IGNORECASE,
)
"""Feedback that accepts the wording as it stands ('acceptable', 'we can live with it',
'keep it as is', 可以接受, 无需修改)."""
_DENIED = re.compile(
    r"\b(?:not|never|un|isn't|is\s+not|cannot|can't|won't)\s*(?:\w+\s+){0,2}?"
    r"(?:acceptable|accept|agree|fine|ok|live\s+with)"
    r"|不(?:可|能)?接受|无法接受|不同意|不可以接受",
    re.IGNORECASE,
)
"""The same words denied ('not acceptable', 'we cannot accept', 不能接受)."""
_ASKS_CHANGE = re.compile(
    r"(?:^|[.;:,!?]\s*|\bplease\s+|\band\s+)(?:add|change|make|replace|delete|remove|insert|cap"
    r"|limit|shorten|extend|increase|reduce|raise|lower|amend|revise|redraft)\b"
    r"|\b(?:but|however|instead|unless|provided\s+that)\b"
    r"|改为|修改为|增加|删除|调整为|但|然而|除非",
    re.IGNORECASE,
)
"""Feedback that asks for a change besides ('acceptable, but cap it'): no acceptance."""


def accepts_wording(request: ApprovalRequest, diff: DocumentDiff | None) -> bool:
    """Whether the decision accepts the contract's wording as it stands: a rejection whose
    feedback says so ('acceptable as drafted', 可以接受), or the original kept word for word
    as the approved text."""
    if diff is not None and request.user_modified_text is not None:
        kept = " ".join(request.user_modified_text.split())
        if kept and kept == " ".join(diff.original_text.split()):
            return True
    if request.decision.value != "reject":
        return False
    feedback = request.feedback.strip()
    return (
        _ACCEPTS.search(feedback) is not None
        and _DENIED.search(feedback) is None
        and _ASKS_CHANGE.search(feedback) is None
    )


def check_memory_path(path: Path) -> None:
    """A file that can hold remembered positions (a full-format playbook, or none yet), or a
    PlaybookError saying why not: checked before any work."""
    if path.suffix.lower() not in FULL_FORMAT:
        raise PlaybookError(
            f"{path}: remembered positions are kept in a {', '.join(FULL_FORMAT)} playbook "
            "(a flat one cannot hold them)"
        )
    if path.exists() and not path.is_file():
        raise PlaybookError(f"{path}: not a file")


def remember(path: Path, amended: Iterable[Position], domain: str) -> Playbook:
    """Write the amended positions into the playbook file at `path` (made when missing; a
    position of the same id replaced in place); returns the playbook as written. The file must
    be a full-format playbook of the same domain."""
    check_memory_path(path)
    suffix = path.suffix.lower()
    if path.exists():
        book = load_playbook(path)
        if book.domain not in (domain, "*"):
            raise PlaybookError(
                f"{path.name} is a playbook for {book.domain}, not for this {domain} review"
            )
    else:
        book = Playbook(domain=domain, name=f"{path.stem}: remembered decisions", positions=[])
    book = book.model_copy(update={"positions": merge_positions(book.positions, list(amended))})
    text = (
        json.dumps(
            book.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False, indent=2
        )
        if suffix == ".json"
        else dump_playbook(book)
    )
    if suffix != ".json":
        yaml.safe_load(text)  # what we write must read back
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    return book
