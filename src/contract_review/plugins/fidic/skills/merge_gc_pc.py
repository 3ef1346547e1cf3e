"""fidic_merge_gc_pc: the effective text of each sub-clause, General Conditions + Particular
Conditions.

The General Conditions (GC) are the task document with role BASELINE; the Particular
Conditions (PC) the document with role SUPPLEMENT (or, when none is loaded, the primary
document). Each PC sub-clause holds instructions, recognised in English and Chinese:

- "Delete Sub-Clause X and replace with: …" / "删除第X款并替换为：…" — the GC text is replaced;
- "Add at the end of Sub-Clause X: …" / "在第X款末尾增加：…" — text is appended;
- "Delete Sub-Clause X." / "删除第X款。" — the sub-clause is deleted;
- "In Sub-Clause X, delete 'A' and replace with 'B'." / "amend as follows" / "将“A”改为“B”" —
  'A' is replaced by 'B' in the GC text (when 'A' is not there verbatim, the GC text is kept
  and a problem is reported);
- "Add new Sub-Clause X: …" / "新增第X款：…", or a PC sub-clause the GC does not have — new.

A PC sub-clause without a recognised instruction is read as a full replacement of the GC
sub-clause of the same number (and a problem says so). Every sentence of the effective text
carries its provenance: "GC", or "PC" with the PC sub-clause it comes from.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from contract_review.analysis.baseline import sentences
from contract_review.errors import SkillError
from contract_review.models import ClauseNode, DocumentRole, DocumentStructure
from contract_review.skills.context import ReviewContext
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import input_preparer

__all__ = [
    "MergeGcPcInput",
    "MergeProblem",
    "MergedClause",
    "MergedConditions",
    "ProvenancedSentence",
    "gc_and_pc",
    "merge_documents",
    "sub_clause_key",
]

SKILL_ID = "fidic_merge_gc_pc"

Status = Literal["unchanged", "replaced", "amended", "appended", "deleted", "new"]
Source = Literal["GC", "PC"]
ProblemKind = Literal[
    "text_not_found", "unknown_target", "no_instruction", "conflicting_instructions"
]


class MergeGcPcInput(BaseModel):
    """Input of fidic_merge_gc_pc."""

    clause_id: str = Field(description="Sub-clause number, e.g. '20.1', '4.12', '14.16'.")
    document_structure: DocumentStructure | None = Field(
        None, description="Primary document structure (filled in by the system)."
    )
    baseline_structure: DocumentStructure | None = Field(
        None, description="General Conditions structure (filled in by the system)."
    )
    review_context: ReviewContext | None = Field(
        None, description="Review documents, Particular Conditions among them (system)."
    )


class ProvenancedSentence(BaseModel):
    """One sentence of the effective text and where it comes from."""

    text: str = Field(description="The sentence, verbatim from effective_text.")
    start: int = Field(description="Offset of the sentence in effective_text.")
    source: Source = Field(description="'GC' (General Conditions) or 'PC' (Particular Conditions).")
    pc_clause_id: str | None = Field(
        description="PC sub-clause the sentence (or the change in it) comes from; None for GC."
    )


class MergeProblem(BaseModel):
    """Something in the PC that could not be applied as written."""

    kind: ProblemKind = Field(
        description="'text_not_found' (words to replace absent from the GC), 'unknown_target' "
        "(instruction about a GC sub-clause that does not exist), 'no_instruction' (PC text "
        "without a recognised instruction, read as a replacement), 'conflicting_instructions'."
    )
    clause_id: str = Field(description="Sub-clause concerned.")
    pc_clause_id: str = Field(description="PC sub-clause holding the instruction.")
    message: str = Field(description="What went wrong, in one sentence.")
    quote: str = Field(description="The PC wording concerned, verbatim.")
    words: str = Field(
        "", description="For words to replace: the words the GC text does not contain."
    )


class MergedClause(BaseModel):
    """The effective version of one sub-clause."""

    clause_id: str = Field(description="Sub-clause number.")
    title: str = Field(description="Title (PC title for new sub-clauses, else GC title).")
    status: Status = Field(
        description="'unchanged', 'replaced', 'amended' (words replaced), 'appended', "
        "'deleted' or 'new' (PC only)."
    )
    effective_text: str = Field(description="Text in force after the PC ('' when deleted).")
    sentences: list[ProvenancedSentence] = Field(
        description="Sentences of effective_text with their provenance."
    )
    gc_text: str = Field(description="GC text of the sub-clause (after its heading); '' if new.")
    pc_instruction: str = Field(
        description="PC text about the sub-clause, verbatim ('' when unchanged)."
    )
    pc_clause_ids: list[str] = Field(description="PC sub-clauses whose instructions apply.")
    problems: list[MergeProblem] = Field(description="Instructions that could not be applied.")


class MergedConditions(BaseModel):
    """All sub-clauses of GC + PC, in numeric order."""

    clauses: list[MergedClause] = Field(description="Merged sub-clauses.")
    problems: list[MergeProblem] = Field(description="All problems of the merge.")

    def get(self, clause_id: str) -> MergedClause | None:
        """The merged sub-clause, or None."""
        return next((c for c in self.clauses if c.clause_id == clause_id), None)

    @property
    def deleted_ids(self) -> list[str]:
        """Ids of the sub-clauses the PC deletes."""
        return [c.clause_id for c in self.clauses if c.status == "deleted"]

    @property
    def ids(self) -> list[str]:
        """Ids of all merged sub-clauses (deleted ones included)."""
        return [c.clause_id for c in self.clauses]


DESCRIPTION = (
    "Get the effective text of one FIDIC sub-clause after the Particular Conditions amend the "
    "General Conditions: status (unchanged, replaced, amended, appended, deleted, new), the "
    "resulting text with each sentence marked GC or PC, the original GC text, the PC "
    "instruction verbatim and any instruction that could not be applied (e.g. words to replace "
    "not found in the GC). Call it before judging a sub-clause of a FIDIC contract that has "
    "General and Particular Conditions. Argument: clause_id (e.g. '20.1')."
)


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


prepare_input = input_preparer(MergeGcPcInput)
"""Input for `clause_id`: GC (BASELINE), PC (SUPPLEMENT) via the review context."""


def gc_and_pc(
    baseline: DocumentStructure | None,
    primary: DocumentStructure | None,
    ctx: ReviewContext | None,
) -> tuple[DocumentStructure, DocumentStructure]:
    """(GC, PC) of a review, or a `SkillError` saying which is missing."""
    pc = ctx.structure_of(DocumentRole.SUPPLEMENT) if ctx else None
    if pc is None and primary is not None and primary is not baseline:
        pc = primary
    if baseline is None:
        raise SkillError("no General Conditions: load them as the baseline document")
    if pc is None:
        raise SkillError("no Particular Conditions: load them as the supplement document")
    return baseline, pc


# --------------------------------------------------------------------------------------------
# Instructions
# --------------------------------------------------------------------------------------------

_ID = r"(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)"
_SUB_ID = re.compile(r"^\d{1,2}\.\d{1,2}(?:\.\d{1,2})?$")
_EN_SC = rf"Sub-?Clause\s+{_ID}(?:\s*\[[^\]\n]*\])?"
_ZH_SC = rf"第\s*{_ID}\s*(?:款|条)(?:〔[^〕\n]*〕|【[^】\n]*】|\[[^\]\n]*\])?"
_COLON = r"\s*(?:the\s+following\s*)?[:：]?\s*"

_REPLACE = re.compile(
    rf"(?:Delete\s+{_EN_SC}(?:\s+in\s+its\s+entirety)?,?\s+and\s+(?:replace|substitute)\s+"
    rf"(?:it\s+)?(?:with|by)(?:\s+the\s+following)?{_COLON}"
    rf"|删除{_ZH_SC}[，,]?\s*(?:并|并以|并用)?\s*(?:以下(?:内容|条款)?)?\s*(?:替换为|代替|替代){_COLON})",
    re.IGNORECASE,
)
_APPEND = re.compile(
    rf"(?:Add\s+(?:the\s+following\s+)?(?:paragraphs?\s+|sentences?\s+|text\s+)?at\s+the\s+end"
    rf"\s+of\s+{_EN_SC}{_COLON}|At\s+the\s+end\s+of\s+{_EN_SC},?\s+add{_COLON}"
    rf"|在{_ZH_SC}(?:的)?(?:末尾|结尾|最后)(?:增加|添加|补充|增补)(?:以下|如下)?(?:内容|段落)?{_COLON})",
    re.IGNORECASE,
)
_DELETE = re.compile(
    rf"(?:Delete\s+{_EN_SC}(?:\s+in\s+its\s+entirety)?\s*\.?|删除{_ZH_SC}(?:全部内容)?\s*[。.]?)"
    r"\s*$",
    re.IGNORECASE,
)
_NEW = re.compile(
    rf"(?:(?:Add|Insert)\s+(?:the\s+following\s+)?(?:as\s+)?(?:a\s+)?new\s+{_EN_SC}{_COLON}"
    rf"|(?:新增|增加|增设)\s*(?:一款\s*(?:作为|为)\s*)?{_ZH_SC}{_COLON})",
    re.IGNORECASE,
)
_AMEND_HEAD = re.compile(
    rf"(?:In\s+{_EN_SC},?|{_EN_SC}\s+is\s+amended\s+as\s+follows{_COLON}"
    rf"|Amend\s+{_EN_SC}\s+as\s+follows{_COLON}|(?:在|将){_ZH_SC}(?:中)?[，,]?"
    rf"|{_ZH_SC}(?:修改|修订)如下{_COLON})",
    re.IGNORECASE,
)
_Q = r"(?:“([^”\n]+)”|\"([^\"\n]+)\"|‘([^’\n]+?)’(?![A-Za-z])|'([^'\n]+?)'(?![A-Za-z])|「([^」\n]+)」)"
_SUBST = re.compile(
    rf"(?:delete\s+(?:the\s+words?\s+)?{_Q}\s*,?\s+and\s+(?:replace|substitute)\s+(?:it\s+|them\s+)?"
    rf"(?:with|by)\s+{_Q}|replace\s+{_Q}\s+(?:with|by)\s+{_Q}|(?:将|把)?\s*{_Q}\s*(?:修改|改|替换|更改)为\s*{_Q}"
    rf"|删除\s*{_Q}\s*[，,]?\s*(?:并)?替换为\s*{_Q})",
    re.IGNORECASE,
)


def _quoted(m: re.Match[str], first: int) -> str:
    return next(g for g in m.groups()[first : first + 5] if g is not None)


def _substitutions(text: str) -> list[tuple[str, str, str]]:
    """(old, new, verbatim instruction) of each "delete 'A' and replace with 'B'" in text."""
    out: list[tuple[str, str, str]] = []
    for m in _SUBST.finditer(text):
        groups = m.groups()
        filled = [i for i, g in enumerate(groups) if g is not None]
        old, new = groups[filled[0]], groups[filled[1]]
        if old is not None and new is not None:
            out.append((old, new, m.group(0)))
    return out


_Kind = Literal["replace", "append", "delete", "new", "amend", "none"]


@dataclass
class _Instruction:
    kind: _Kind
    target: str
    pc_clause_id: str
    verbatim: str
    text: str = ""
    subst: list[tuple[str, str, str]] = field(default_factory=list)


def _target(m: re.Match[str], own: str) -> str:
    return next((g for g in m.groups() if g and _SUB_ID.match(g)), own)


def _instructions(node: ClauseNode) -> list[_Instruction]:
    """The instructions of one PC sub-clause, in order (one per paragraph group)."""
    body = node.body.strip()
    own = node.clause_id
    if not body:
        return [_Instruction("none", own, own, "")]
    kinds: tuple[tuple[_Kind, re.Pattern[str]], ...] = (
        ("replace", _REPLACE),
        ("append", _APPEND),
        ("new", _NEW),
    )
    for kind, regex in kinds:
        m = regex.match(body)
        if m:
            return [
                _Instruction(
                    kind,
                    _target(m, own),
                    own,
                    body,
                    text=body[m.end() :].strip(),
                )
            ]
    m = _DELETE.match(body)
    if m:
        return [_Instruction("delete", _target(m, own), own, body)]
    subst = _substitutions(body)
    if subst:
        m = _AMEND_HEAD.match(body)
        target = _target(m, own) if m else own
        return [_Instruction("amend", target, own, body, subst=subst)]
    return [_Instruction("none", own, own, body, text=body)]


# --------------------------------------------------------------------------------------------
# Merge
# --------------------------------------------------------------------------------------------


def sub_clause_key(clause_id: str) -> tuple[int, ...]:
    """Numeric sort key of a sub-clause id ('14.16' → (14, 16))."""
    return tuple(int(p) for p in clause_id.split(".") if p.isdigit())


def _sub_clauses(structure: DocumentStructure) -> dict[str, ClauseNode]:
    """Sub-clauses numbered N.N (the merge unit), outermost first."""
    out: dict[str, ClauseNode] = {}
    stack = list(reversed(structure.clauses))
    while stack:
        node = stack.pop()
        if _SUB_ID.match(node.clause_id) and node.clause_id.count(".") == 1:
            out.setdefault(node.clause_id, node)
            continue
        stack.extend(reversed(node.children))
    return out


@dataclass
class _Segment:
    text: str
    source: Source
    pc_id: str | None


def _provenance(segments: list[_Segment]) -> tuple[str, list[ProvenancedSentence]]:
    text = "".join(s.text for s in segments)
    spans: list[tuple[int, int, _Segment]] = []
    pos = 0
    for seg in segments:
        spans.append((pos, pos + len(seg.text), seg))
        pos += len(seg.text)
    out: list[ProvenancedSentence] = []
    for s, e in sentences(text):
        pc = next((seg for a, b, seg in spans if seg.source == "PC" and a < e and b > s), None)
        out.append(
            ProvenancedSentence(
                text=text[s:e],
                start=s,
                source="PC" if pc else "GC",
                pc_clause_id=pc.pc_id if pc else None,
            )
        )
    return text, out


def _apply(
    gc: ClauseNode | None, cid: str, instrs: list[_Instruction], problems: list[MergeProblem]
) -> MergedClause:
    gc_text = gc.body.strip() if gc else ""
    title = gc.title if gc else ""
    segments = [_Segment(gc_text, "GC", None)] if gc else []
    status: Status = "unchanged"
    deleted = False
    for ins in instrs:
        if ins.kind == "delete":
            if gc is None:
                problems.append(
                    _problem(
                        "unknown_target", cid, ins, "deletes a sub-clause the GC does not have"
                    )
                )
            segments, deleted, status = [], True, "deleted"
        elif ins.kind in ("replace", "new", "none"):
            if ins.kind == "none" and gc is not None:
                problems.append(
                    _problem(
                        "no_instruction",
                        cid,
                        ins,
                        "has no recognised instruction; read as replacing the GC sub-clause",
                    )
                )
            if ins.kind == "replace" and gc is None:
                problems.append(
                    _problem(
                        "unknown_target", cid, ins, "replaces a sub-clause the GC does not have"
                    )
                )
            segments = [_Segment(ins.text, "PC", ins.pc_clause_id)]
            deleted = False
            status = "new" if gc is None else "replaced"
        elif ins.kind == "append":
            if gc is None:
                problems.append(
                    _problem(
                        "unknown_target", cid, ins, "adds to a sub-clause the GC does not have"
                    )
                )
            sep = _Segment("\n", "GC", None) if segments else None
            segments = [
                *segments,
                *([sep] if sep else []),
                _Segment(ins.text, "PC", ins.pc_clause_id),
            ]
            status = "new" if gc is None else ("appended" if status == "unchanged" else status)
        else:  # amend
            applied = False
            for old, new, verbatim in ins.subst:
                hit = False
                nxt: list[_Segment] = []
                for seg in segments:
                    if seg.source != "GC" or old not in seg.text:
                        nxt.append(seg)
                        continue
                    hit = True
                    parts = seg.text.split(old)
                    for i, part in enumerate(parts):
                        if i:
                            nxt.append(_Segment(new, "PC", ins.pc_clause_id))
                        if part:
                            nxt.append(_Segment(part, "GC", None))
                segments = nxt
                if hit:
                    applied = True
                else:
                    problems.append(
                        MergeProblem(
                            kind="text_not_found" if gc else "unknown_target",
                            clause_id=cid,
                            pc_clause_id=ins.pc_clause_id,
                            message=f"'{old}' is not in the GC text of Sub-Clause {cid}; "
                            "the GC text is kept",
                            quote=verbatim,
                            words=old,
                        )
                    )
            if applied and status in ("unchanged", "appended"):
                status = "amended"
    if deleted:
        segments = []
    text, sents = _provenance(segments)
    return MergedClause(
        clause_id=cid,
        title=title,
        status=status,
        effective_text=text,
        sentences=sents,
        gc_text=gc_text,
        pc_instruction="\n".join(i.verbatim for i in instrs if i.verbatim),
        pc_clause_ids=list(dict.fromkeys(i.pc_clause_id for i in instrs)),
        problems=[p for p in problems if p.clause_id == cid],
    )


def _problem(kind: ProblemKind, cid: str, ins: _Instruction, what: str) -> MergeProblem:
    return MergeProblem(
        kind=kind,
        clause_id=cid,
        pc_clause_id=ins.pc_clause_id,
        message=f"PC Sub-Clause {ins.pc_clause_id} {what} ({cid})",
        quote=ins.verbatim[:300],
    )


def _merge(gc: DocumentStructure, pc: DocumentStructure) -> MergedConditions:
    gc_subs = _sub_clauses(gc)
    pc_subs = _sub_clauses(pc)
    by_target: dict[str, list[_Instruction]] = {}
    titles: dict[str, str] = {}
    for node in pc_subs.values():
        for ins in _instructions(node):
            by_target.setdefault(ins.target, []).append(ins)
            titles.setdefault(ins.target, node.title)
    problems: list[MergeProblem] = []
    clauses: list[MergedClause] = []
    for cid in sorted(set(gc_subs) | set(by_target), key=sub_clause_key):
        merged = _apply(gc_subs.get(cid), cid, by_target.get(cid, []), problems)
        if not merged.title:
            merged.title = titles.get(cid, "")
        clauses.append(merged)
    return MergedConditions(clauses=clauses, problems=problems)


_CACHE: dict[tuple[int, int], tuple[DocumentStructure, DocumentStructure, MergedConditions]] = {}
_CACHE_SIZE = 8
_CACHE_LOCK = threading.Lock()


def merge_documents(gc: DocumentStructure, pc: DocumentStructure) -> MergedConditions:
    """All sub-clauses of `gc` as amended by `pc`. Cached per (gc, pc) identity: the result
    is shared, do not modify it."""
    key = (id(gc), id(pc))
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is not None and hit[0] is gc and hit[1] is pc:
        return hit[2]
    merged = _merge(gc, pc)
    with _CACHE_LOCK:
        while len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = (gc, pc, merged)
    return merged


def handle(inp: MergeGcPcInput) -> MergedClause:
    """The merged sub-clause `inp.clause_id`."""
    gc, pc = gc_and_pc(inp.baseline_structure, inp.document_structure, inp.review_context)
    merged = merge_documents(gc, pc)
    clause = merged.get(inp.clause_id.strip())
    if clause is None:
        head = inp.clause_id.split(".")[0]
        near = [i for i in merged.ids if i.split(".")[0] == head][:8] or merged.ids[:8]
        raise SkillError(
            f"sub-clause '{inp.clause_id}' is in neither the General nor the Particular "
            f"Conditions; existing ids include: {', '.join(near)}"
        )
    return clause


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="FIDIC GC + PC merge",
    description=DESCRIPTION,
    input_schema=MergeGcPcInput,
    output_schema=MergedClause,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="fidic",
    category="analysis",
)
