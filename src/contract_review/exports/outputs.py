"""Every output of a review, written from one view of its issues.

- `redline.docx`: the contract with the approved changes as tracked changes and a margin
  comment on each issue (medium and high by default; `comments="all"` adds the low ones) — a
  lawyer's note in the contract's language: title, why it matters, what we propose, the
  fallback. A review of amended standard conditions (FIDIC: GC + PC merged into the conditions
  in force) marks up the Particular Conditions instead: each approved change becomes a new
  amendment instruction, inserted as a tracked paragraph with its comment.
- `clean.docx`: the same with every change accepted and no comments.
- `issues-list.docx`: the negotiation issues list (clause, issue, our position, proposed
  wording, status).
- `findings.xlsx`: one row per issue, filterable, for lawyers' trackers.
- `report.html`, `report.md`, `findings.json` (see `exports.report`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import docx
from docx.enum.section import WD_ORIENT
from docx.shared import Cm
from lxml import etree

from contract_review.errors import ExportError, one_line
from contract_review.exports.issues import (
    Issue,
    Messages,
    Proposal,
    ReviewView,
    as_rows,
    build_view,
    decision_text,
    level_label,
    proposal_text,
)
from contract_review.exports.redline_docx import (
    CommentNote,
    Instruction,
    RedlineStats,
    clean_copy,
    write_redline_docx,
)
from contract_review.exports.report import write_reports
from contract_review.models import (
    DiffStatus,
    DocumentDiff,
    DocumentFormat,
    DocumentRole,
    DocumentStructure,
    ReviewResult,
    RiskLevel,
    TaskDocument,
)
from contract_review.ooxml import w, xml_safe
from contract_review.playbook import Position

__all__ = ["CommentLevel", "ExportSettings", "comment_note", "write_all"]

CommentLevel = Literal["all", "medium", "high"]
"""Which issues get a Word comment: every one, medium and high, or high only."""

_SHOWN: dict[str, set[RiskLevel]] = {
    "all": {RiskLevel.HIGH, RiskLevel.MEDIUM, RiskLevel.LOW},
    "medium": {RiskLevel.HIGH, RiskLevel.MEDIUM},
    "high": {RiskLevel.HIGH},
}


@dataclass(frozen=True)
class ExportSettings:
    """How the outputs are written: who signs them, which issues get comments, and what the
    reports say about how the review was made."""

    author: str
    comments: CommentLevel = "medium"
    positions: Sequence[Position] = ()
    playbook_name: str = ""
    user_playbook: str | None = None
    source_docx: Path | None = None
    """The user's .docx of the marked-up document (kept with its formatting); None: text."""
    has_baseline: bool = True
    """False when the review measured a standard form's changes without its text."""


def comment_note(issue: Issue, m: Messages, start: int, end: int) -> CommentNote:
    """The margin comment of an issue: a lawyer's note in the review's language."""
    title = f"{m('comment_risk', level=level_label(m, issue.level))} – {issue.title}"
    if issue.by_model:
        title += f" {m('model_mark')}"
    lines = [f"{m('model_says') if issue.why_by_model else m('why')}{m.colon}{issue.why}"]
    lines += [
        f"{m('model_says') if f.by_model else m('finding')}{m.colon}{f.detail}"
        for f in issue.findings
        if f.detail and f.detail != issue.why
    ]
    if issue.position:
        lines.append(f"{m('our_position')}{m.colon}{issue.position}")
    for p in issue.proposals:
        label = m("proposed_edited") if p.edited else m("proposed")
        line = f"{label}{m.colon}{proposal_text(m, p)}"
        if p.status is not DiffStatus.APPROVED:  # approved: the tracked change itself
            line += f" ({decision_text(m, p)})"
        lines.append(line)
        if p.feedback:
            lines.append(f"{m('feedback')}{m.colon}{p.feedback}")
    if issue.fallback:
        lines.append(f"{m('fallback')}{m.colon}{issue.fallback}")
    return CommentNote(start=start, end=end, title=title, lines=tuple(lines))


def _first_line(text: str) -> tuple[int, int]:
    """The span of the first non-empty line (the document's title)."""
    at = len(text) - len(text.lstrip())
    end = text.find("\n", at)
    return at, end if end >= 0 else len(text)


def _heading_span(
    structure: DocumentStructure | None, clause_id: str | None, text: str
) -> tuple[int, int]:
    """The span of a clause's heading line, or the document's title."""
    clause = structure.get_clause(clause_id) if structure and clause_id else None
    if clause is None:
        return _first_line(text)
    end = text.find("\n", clause.start_offset, clause.end_offset)
    return clause.start_offset, end if end > clause.start_offset else clause.end_offset


def _notes(
    m: Messages, issues: Sequence[Issue], structure: DocumentStructure | None, text: str
) -> list[CommentNote]:
    """A comment for each issue: on its words, else on its clause's heading, else on the
    document's title."""
    notes = []
    for issue in issues:
        if issue.start is not None and issue.end is not None and issue.end <= len(text):
            start, end = issue.start, issue.end
        else:
            start, end = _heading_span(structure, issue.clause_id, text)
        notes.append(comment_note(issue, m, start, end))
    return notes


def _supplement(docs: Sequence[TaskDocument]) -> TaskDocument | None:
    primary = docs[0] if docs else None
    if primary is None or not primary.derived_from_supplement:
        return None
    return next((d for d in docs if d.role is DocumentRole.SUPPLEMENT and d.content), None)


def _pc_instructions(
    view: ReviewView, issues: Sequence[Issue], pc: TaskDocument
) -> tuple[list[CommentNote], list[Instruction]]:
    """Notes and amendment instructions on the Particular Conditions: an approved change of
    the conditions in force becomes an instruction after the PC's own text of its sub-clause
    (or at the end), carrying the issue's comment; other issues are noted on the sub-clause's
    heading in the PC, or on its title."""
    m = view.m
    assert pc.content is not None
    text, structure = pc.content.text, pc.structure
    notes: list[CommentNote] = []
    instructions: list[Instruction] = []
    heading_added = False
    for issue in issues:
        approved = [p for p in issue.proposals if p.status is DiffStatus.APPROVED]
        clause = structure.get_clause(issue.clause_id) if structure and issue.clause_id else None
        start, end = _heading_span(structure, issue.clause_id, text)
        note = comment_note(issue, m, start, end)
        if not approved:
            notes.append(note)
            continue
        after = clause.end_offset - 1 if clause is not None and clause.end_offset else None
        if after is None and not heading_added:
            instructions.append(Instruction(after=None, text=m("pc_heading")))
            heading_added = True
        for n, p in enumerate(approved):
            key = {"delete": "pc_delete", "insert": "pc_insert"}.get(p.action, "pc_replace")
            if p.action == "replace" and not p.proposed:
                key = "pc_delete"
            old, new = _phrase(p)
            line = m(key, id=issue.clause_id or "", old=old, new=new)
            instructions.append(Instruction(after=after, text=line, note=note if n == 0 else None))
    return notes, instructions


_LAST_WORD = re.compile(r"\S+\s+$")
_FIRST_WORD = re.compile(r"^\s*[^\s.,;:。，；：]+")


def _phrase(p: Proposal) -> tuple[str, str]:
    """The words an amendment instruction names: a change of one or two words ('14' → '28')
    is named with the word on each side ('within 14 days' → 'within 28 days') so that the
    instruction finds its place in the conditions without doubt."""
    if p.action == "insert" or len(p.original.split()) >= 3:
        return p.original, p.proposed
    before = _LAST_WORD.search(p.before) if p.original[:1].isalnum() else None
    after = _FIRST_WORD.match(p.after) if p.original[-1:].isalnum() else None
    head = before.group() if before else ""
    tail = after.group() if after else ""
    new = f"{head}{p.proposed}{tail}" if p.proposed else ""
    return f"{head}{p.original}{tail}", new


def _new_clauses(
    view: ReviewView, shown: Sequence[Issue], diffs: Sequence[DocumentDiff]
) -> tuple[list[Instruction], list[Issue]]:
    """Our approved standard clauses for missing protections, as tracked paragraphs after the
    clause they follow (a line each), the first carrying its issue's comment when the issue's
    level is commented; and the issues so commented."""
    approved = {d.diff_id: d for d in diffs if d.new_clause and d.status is DiffStatus.APPROVED}
    instructions: list[Instruction] = []
    commented: list[Issue] = []
    for issue in view.all_issues:
        for p in issue.proposals:
            d = approved.get(p.diff_id)
            if d is None:
                continue
            after = d.start_offset - 1 if d.start_offset else None
            note = comment_note(issue, view.m, 0, 0) if issue in shown else None
            if note is not None and issue not in commented:
                commented.append(issue)
            for n, line in enumerate(d.proposed_text.splitlines()):
                instructions.append(
                    Instruction(after=after, text=line, note=note if n == 0 else None)
                )
    return instructions, commented


def _write_word(
    view: ReviewView,
    docs: Sequence[TaskDocument],
    diffs: Sequence[DocumentDiff],
    settings: ExportSettings,
    folder: Path,
) -> tuple[dict[str, Path], RedlineStats | None]:
    primary = docs[0] if docs else None
    if primary is None or primary.content is None:
        return {}, None
    shown = _SHOWN[settings.comments]
    issues = [i for i in view.all_issues if i.level in shown]
    redline = folder / "redline.docx"
    title = f"{view.title} — {view.contract}"
    pc = _supplement(docs)
    if pc is not None and pc.content is not None:
        notes, instructions = _pc_instructions(view, issues, pc)
        source = settings.source_docx if pc.content.format is DocumentFormat.DOCX else None
        stats = write_redline_docx(
            pc.content,
            [],
            redline,
            source_docx=source,
            author=settings.author,
            notes=notes,
            instructions=instructions,
            title=title,
        )
    else:
        instructions, with_clause = _new_clauses(view, issues, diffs)
        shown_at_clause = [i for i in issues if i not in with_clause]
        notes = _notes(view.m, shown_at_clause, primary.structure, primary.content.text)
        source = settings.source_docx if primary.content.format is DocumentFormat.DOCX else None
        stats = write_redline_docx(
            primary.content,
            [d for d in diffs if not d.new_clause],
            redline,
            source_docx=source,
            author=settings.author,
            notes=notes,
            instructions=instructions,
            title=title,
        )
    clean = folder / "clean.docx"
    clean_copy(redline, clean)
    return {"docx": redline, "clean": clean}, stats


def _small_run(text: str) -> etree._Element:
    """A 9-point run showing `text`, its line breaks as breaks."""
    run = etree.Element(w("r"))
    rpr = etree.SubElement(run, w("rPr"))
    for tag in ("sz", "szCs"):
        etree.SubElement(rpr, w(tag)).set(w("val"), "18")
    for n, line in enumerate(xml_safe(text).split("\n")):
        if n:
            etree.SubElement(run, w("br"))
        t = etree.SubElement(run, w("t"))
        t.text = line
        t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    return run


def _write_issues_list(view: ReviewView, author: str, path: Path) -> None:
    m = view.m
    document = docx.Document()
    section = document.sections[0]
    section.orientation = WD_ORIENT.LANDSCAPE
    section.page_width, section.page_height = section.page_height, section.page_width
    for side in ("left_margin", "right_margin"):
        setattr(section, side, Cm(1.8))
    document.add_heading(m("issues_list_title"), level=1)
    document.add_paragraph(
        f"{m('contract')}{m.colon}{view.contract}\n{m('our_party')}{m.colon}{view.our_party}"
    )
    headers = [
        m("number"),
        m("clause_col"),
        m("issue"),
        m("position_col"),
        m("wording_col"),
        m("status"),
    ]
    table = document.add_table(rows=1, cols=len(headers))
    table.style = "Table Grid"
    for cell, header in zip(table.rows[0].cells, headers, strict=True):
        cell.text = ""
        cell.paragraphs[0].add_run(header).bold = True
    # One row built by python-docx (its cell widths), then copied for every issue: adding
    # rows through python-docx costs milliseconds each, thousands on a long contract.
    prototype = table.add_row()._tr
    for issue in view.all_issues:
        proposal = next(iter(issue.proposals), None)
        status = decision_text(m, proposal) if proposal else ""
        if proposal and proposal.feedback:
            status += f"\n{m('feedback')}{m.colon}{proposal.feedback}"
        wording = proposal_text(m, proposal) if proposal else m("no_proposal")
        values = [
            str(issue.number),
            f"{issue.clause_id or m('document')}\n{issue.clause_title}".strip(),
            f"[{level_label(m, issue.level)}] {issue.title}\n{issue.why}",
            "\n".join(
                x
                for x in (
                    issue.position,
                    issue.fallback and f"{m('fallback')}{m.colon}{issue.fallback}",
                )
                if x
            ),
            wording,
            status,
        ]
        row = copy.deepcopy(prototype)
        for cell, value in zip(row.iter(w("tc")), values, strict=True):
            paragraph = cell.find(w("p"))
            assert paragraph is not None  # python-docx gives every cell a paragraph
            paragraph.append(_small_run(value))
        prototype.addprevious(row)
    prototype.getparent().remove(prototype)
    props = document.core_properties
    now = datetime.now(UTC).replace(microsecond=0)
    props.title = f"{m('issues_list_title')} — {view.contract}"
    props.author = props.last_modified_by = author
    props.created = props.modified = now
    props.revision = 1
    document.save(str(path))


def _write_xlsx(view: ReviewView, path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    m = view.m
    columns = [
        ("number", m("number"), 6),
        ("clause", m("clause_col"), 10),
        ("clause_title", m("clause"), 24),
        ("severity", m("severity"), 9),
        ("issue", m("issue"), 30),
        ("why", m("why"), 45),
        ("quote", m("quote"), 45),
        ("position", m("our_position"), 45),
        ("fallback", m("fallback"), 35),
        ("proposed", m("proposed"), 45),
        ("status", m("status"), 10),
        ("feedback", m("feedback"), 30),
        ("decided_by", m("decision"), 16),
        ("decided_at", m("date"), 20),
    ]
    rows = as_rows(view)
    # Write-only: rows stream to the file (a long contract has thousands of issues).
    book = Workbook(write_only=True)
    sheet = book.create_sheet(m("issues")[:31])
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(columns))}{len(rows) + 1}"
    for index, (_, _, width) in enumerate(columns, 1):
        sheet.column_dimensions[get_column_letter(index)].width = width
    bold, wrap = Font(bold=True), Alignment(wrap_text=True, vertical="top")

    def cell(value: object, style: Font | Alignment) -> WriteOnlyCell:
        made = WriteOnlyCell(sheet, value=value)
        if isinstance(style, Font):
            made.font = style
        else:
            made.alignment = style
        return made

    sheet.append([cell(label, bold) for _, label, _ in columns])
    for row in rows:
        values = [row[key] for key, _, _ in columns]
        sheet.append([cell(xml_safe(v) if isinstance(v, str) else v, wrap) for v in values])
    book.properties.title = f"{m('issues')} — {view.contract}"
    book.properties.creator = view.result.our_party or "contract-review"
    book.save(str(path))


def write_all(
    result: ReviewResult,
    docs: Sequence[TaskDocument],
    diffs: Sequence[DocumentDiff],
    settings: ExportSettings,
    folder: Path,
) -> dict[str, Path]:
    """Write every output of a review into `folder`; returns the paths by kind."""
    view = build_view(
        result,
        settings.positions,
        playbook_name=settings.playbook_name,
        user_playbook=settings.user_playbook,
        has_baseline=settings.has_baseline,
    )
    with _naming("redline.docx"):
        paths, stats = _write_word(view, docs, diffs, settings, folder)
    if stats is not None and stats.skipped:
        view.unplaced = [(s.diff_id, s.reason) for s in stats.skipped]
        view.unchecked = [*view.unchecked, view.m("unplaced", n=len(stats.skipped))]
    with _naming("the reports"):
        paths.update(write_reports(view, folder))
    paths["issues"] = folder / "issues-list.docx"
    with _naming("issues-list.docx"):
        _write_issues_list(view, settings.author, paths["issues"])
    paths["xlsx"] = folder / "findings.xlsx"
    with _naming("findings.xlsx"):
        _write_xlsx(view, paths["xlsx"])
    return paths


@contextmanager
def _naming(what: str) -> Iterator[None]:
    """An output that cannot be written is an ExportError naming it."""
    try:
        yield
    except (OSError, ValueError) as exc:
        raise ExportError(f"{what} could not be written: {one_line(exc)}") from exc
