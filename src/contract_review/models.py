"""Domain models of the contract review engine (pydantic v2).

One representation per domain object: everything that crosses a module boundary is one of these
models, validated at the edges (file intake, CLI/HTTP input, LLM output) and trusted inside.
All models round-trip through JSON (`model_dump_json` / `model_validate_json`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from contract_review.text import clean_untrusted

# --------------------------------------------------------------------------------------------
# Intake: the text of one document as read from disk
# --------------------------------------------------------------------------------------------


class _Model(BaseModel):
    """Base of all models: unknown fields are an error, enums serialise as their values."""

    model_config = ConfigDict(extra="forbid", use_enum_values=False, validate_assignment=False)


class DocumentFormat(StrEnum):
    """File formats the engine reads."""

    DOCX = "docx"
    PDF = "pdf"
    TXT = "txt"
    MD = "md"


class TextBlock(_Model):
    """One source block (paragraph, table row, PDF page...) and where it sits in the text."""

    start: int = Field(ge=0, description="Offset of the block's first character in the text.")
    end: int = Field(ge=0, description="Offset just past the block's last character.")
    kind: str = Field(description="'paragraph', 'heading', 'table_row' or 'page'.")
    locator: str = Field(
        "", description="Where the block is in the source: '/body/p[3]', 'table 1 row 2', 'page 4'."
    )
    number_label: str | None = Field(
        None, description="Automatic number Word displays before the paragraph (e.g. '1.1')."
    )
    style: str | None = Field(None, description="Paragraph style name (Word), if any.")


class HiddenTextSpan(_Model):
    """Text extracted from the file that a reader does not see (a prompt-injection channel)."""

    start: int = Field(ge=0, description="Offset of the hidden text in the document text.")
    end: int = Field(ge=0, description="Offset just past the hidden text.")
    reason: str = Field(description="'vanish', 'tiny_font' or 'white_text'.")
    text: str = Field(description="The hidden text itself, for showing it to the user.")


class LoadedText(_Model):
    """The normalised text of one input file plus what intake learned about it.

    `text` is the single coordinate system: every offset in the engine (clauses, quotes,
    redlines) indexes into it.
    """

    format: DocumentFormat = Field(description="Format the file was read as.")
    text: str = Field(description="Normalised document text ('\\n' line ends, no BOM).")
    blocks: list[TextBlock] = Field(default_factory=list, description="Source blocks, in order.")
    hidden_spans: list[HiddenTextSpan] = Field(
        default_factory=list, description="Hidden text found in the file."
    )
    warnings: list[str] = Field(default_factory=list, description="Things the user should know.")
    encoding: str | None = Field(None, description="Detected encoding of a text file.")
    page_count: int | None = Field(None, description="Number of pages of a PDF.")
    unread_pages: list[int] = Field(
        default_factory=list,
        description="Pages of a PDF whose text could not be read (no text layer, or past the "
        "page limit), 1-based.",
    )


# --------------------------------------------------------------------------------------------
# Structure: the clause tree of one document
# --------------------------------------------------------------------------------------------


class ClauseKind(StrEnum):
    """What a node of the clause tree is."""

    PREAMBLE = "preamble"
    """Text before the first numbered clause (title, parties, recitals)."""
    CHAPTER = "chapter"
    """A grouping heading above clauses (第一章, Part 1)."""
    CLAUSE = "clause"
    """A numbered clause or sub-clause."""
    ITEM = "item"
    """A list item inside a clause ((a), (i), （一）)."""
    ANNEX = "annex"
    """A schedule, exhibit, appendix or 附件 after the main body."""


class ClauseNode(_Model):
    """One clause of a document, with its sub-clauses.

    Offsets index the normalised document text: `text == doc_text[start_offset:end_offset]`,
    and the range of a clause contains the ranges of its children.
    """

    clause_id: str = Field(description="Unique id within the document, e.g. '14.2', '5(1)'.")
    number: str = Field("", description="The number as written: 'Sub-Clause 14.2', '第五条'.")
    title: str = Field("", description="Heading text without the number; '' if none.")
    text: str = Field("", description="Full clause text, heading and sub-clauses included.")
    level: int = Field(1, ge=0, description="Depth in the tree; top-level clauses are 1.")
    kind: ClauseKind = Field(ClauseKind.CLAUSE, description="What kind of node this is.")
    start_offset: int = Field(0, ge=0, description="Offset of the clause's first character.")
    end_offset: int = Field(0, ge=0, description="Offset just past the clause's last character.")
    body_offset: int = Field(
        0, ge=0, description="Offset where the body starts (after number and title)."
    )
    parent_id: str | None = Field(None, description="clause_id of the parent; None at top level.")
    children: list[ClauseNode] = Field(default_factory=list, description="Sub-clauses, in order.")

    @property
    def body(self) -> str:
        """The clause text after its number and title."""
        return self.text[max(0, self.body_offset - self.start_offset) :]


class DefinedTerm(_Model):
    """A term the contract defines, and where."""

    term: str = Field(description="The defined term as written, without quotes.")
    definition: str = Field(description="The definition text as written.")
    clause_id: str | None = Field(None, description="Clause holding the definition.")
    start_offset: int = Field(0, ge=0, description="Offset of the definition's start.")
    end_offset: int = Field(0, ge=0, description="Offset just past the definition.")
    source: str = Field(
        "quoted",
        description="'quoted' ('\"X\" means'), 'glossary_table', 'glossary_line' ('1.2 "
        "Acceptance Date - the first …'), 'zh' ('X是指') or 'inline' ('… (the \"X\")', "
        "'（以下简称“X”）').",
    )


class CrossReference(_Model):
    """A reference in running text to another clause ('see Sub-Clause 20.1', '第十四条')."""

    source_clause_id: str | None = Field(description="Clause the reference appears in.")
    target_clause_id: str = Field(description="Canonical id of the clause referred to.")
    reference_text: str = Field(description="The reference exactly as written.")
    start_offset: int = Field(ge=0, description="Offset of the reference in the document text.")
    end_offset: int = Field(ge=0, description="Offset just past the reference.")
    is_valid: bool = Field(description="Whether the target clause exists in the document.")


class DocumentStructure(_Model):
    """The parsed structure of one document: clause tree, definitions, cross-references."""

    document_id: str = Field(description="Id of the document this structure belongs to.")
    structure_type: str = Field("generic", description="Parser profile used: 'generic', 'fidic'.")
    language: str = Field("en", description="'en' or 'zh-CN'.")
    clauses: list[ClauseNode] = Field(default_factory=list, description="Top-level clauses.")
    definitions: dict[str, DefinedTerm] = Field(
        default_factory=dict, description="Defined terms by term."
    )
    cross_references: list[CrossReference] = Field(
        default_factory=list, description="Cross-references in document order."
    )
    total_clauses: int = Field(0, ge=0, description="Number of nodes in the tree.")
    text_length: int = Field(0, ge=0, description="Length of the document text parsed.")
    toc_ranges: list[tuple[int, int]] = Field(
        default_factory=list, description="Ranges recognised as a table of contents (skipped)."
    )

    def iter_clauses(self) -> Iterator[ClauseNode]:
        """All clauses in document order (pre-order)."""
        stack = list(reversed(self.clauses))
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def get_clause(self, clause_id: str) -> ClauseNode | None:
        """The clause with this id, or None."""
        index = self._index
        if index is None or len(index) != self.total_clauses:
            index = {c.clause_id: c for c in self.iter_clauses()}
            self._index = index
        return index.get(clause_id)

    def leaf_clauses(self) -> list[ClauseNode]:
        """Clauses without children, in document order."""
        return [c for c in self.iter_clauses() if not c.children]

    def clause_at(self, offset: int) -> ClauseNode | None:
        """The deepest clause whose range contains `offset`."""
        found: ClauseNode | None = None
        nodes = self.clauses
        while True:
            for node in nodes:
                if node.start_offset <= offset < node.end_offset:
                    found = node
                    nodes = node.children
                    break
            else:
                return found

    # Lookup cache; excluded from equality and serialisation.
    _index: dict[str, ClauseNode] | None = PrivateAttr(default=None)
    _basis: DocumentStructure | None = PrivateAttr(default=None)

    @property
    def basis(self) -> DocumentStructure:
        """The structure whose document-wide facts this one shares (parties, kind,
        definitions, the statements of each term across the contract): the one it was amended
        from when a change to one clause is verified, else itself."""
        return self._basis if self._basis is not None else self

    def amended_from(self, original: DocumentStructure) -> None:
        """Mark this structure as `original` with one clause changed: it shares the
        original's document-wide facts instead of reading the whole contract again."""
        self._index = None  # a copy's clause index would name the old nodes
        self._basis = original.basis

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DocumentStructure):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]


# --------------------------------------------------------------------------------------------
# Task: the documents of one review
# --------------------------------------------------------------------------------------------


class DocumentRole(StrEnum):
    """The part a document plays in a review."""

    PRIMARY = "primary"
    """The contract under review."""
    BASELINE = "baseline"
    """The standard the contract is compared with (e.g. licensed FIDIC General Conditions)."""
    SUPPLEMENT = "supplement"
    """Amendments to the baseline (e.g. Particular Conditions)."""
    REFERENCE = "reference"
    """Documents searched for context (e.g. Employer's Requirements)."""
    CRITERIA = "criteria"
    """A review playbook (topics, preferred and fallback positions)."""


class TaskDocument(_Model):
    """One document of a review task."""

    document_id: str = Field(description="Unique id of the document within the task.")
    role: DocumentRole = Field(description="The part the document plays.")
    filename: str = Field(description="Original file name.")
    content: LoadedText | None = Field(None, description="Text read from the file.")
    structure: DocumentStructure | None = Field(None, description="Parsed clause structure.")
    derived_from_supplement: bool = Field(
        False,
        description="Whether the domain made this document from the supplement and the "
        "baseline (FIDIC: the conditions in force, merged from GC + PC): the supplement is "
        "then the document negotiated, and the Word output marks it up.",
    )


# --------------------------------------------------------------------------------------------
# Review: risks, redlines, decisions
# --------------------------------------------------------------------------------------------


class RiskLevel(StrEnum):
    """Severity of a risk from our party's side."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Priority(StrEnum):
    """Priority of a checklist item."""

    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class TextLocation(_Model):
    """Where a quote sits in a document; `original_text` is verbatim document text."""

    document_id: str | None = Field(None, description="Document quoted; None = primary.")
    clause_id: str | None = Field(None, description="Clause quoted.")
    original_text: str = Field(description="The quoted text, verbatim.")
    start_offset: int | None = Field(None, ge=0, description="Offset of the quote, if known.")
    end_offset: int | None = Field(None, ge=0, description="Offset just past the quote.")


LLM_SOURCE = "react_agent"
"""The `source_skills` entry of a risk the LLM agent found (its words are the model's)."""


class RiskPoint(_Model):
    """A risk found in a clause, judged from our party's side."""

    id: str = Field(description="Unique risk id.")
    clause_id: str = Field(description="Clause the risk is in.")
    risk_level: RiskLevel = Field(description="Severity from our side.")
    risk_type: str = Field(description="Short category, e.g. 'uncapped liability'.")
    description: str = Field(description="What the risk is, in one or two sentences.")
    reason: str = Field("", description="Why it is a risk for our party.")
    analysis: str = Field("", description="Longer analysis and evidence.")
    location: TextLocation | None = Field(None, description="The verbatim quote supporting it.")
    position_id: str = Field(
        "", description="The playbook position the clause was measured against, if any."
    )
    burdens: str = Field(
        "",
        description="The party the term burdens, in a neutral review ('' when we act for a "
        "party: the risk is ours).",
    )
    measured: float | None = Field(
        None,
        description="The number the risk measured, when it measured one (days, % a year, "
        "months of fees…): how a change is seen to move the term.",
    )
    worse: Literal["higher", "lower"] | None = Field(
        None, description="Which way of `measured` hurts us (None when nothing was measured)."
    )
    target: float | None = Field(
        None,
        description="The number our position asks for instead of `measured`, in its unit (the "
        "playbook's standard, the market's nearest edge); None when there is none.",
    )
    source_skills: list[str] = Field(
        default_factory=list, description="Skills whose output produced this risk."
    )


class FavourableTerm(_Model):
    """A term that burdens the other side — a right only we hold, a duty only they bear: no
    risk for us, listed so the lawyer knows what to keep in negotiation."""

    clause_id: str = Field(description="Clause the term is in.")
    position_id: str = Field(description="The playbook position it was measured against.")
    topic: str = Field(description="The position's topic, e.g. 'Termination for Convenience'.")
    description: str = Field(description="What the term gives us, in one sentence.")
    location: TextLocation | None = Field(None, description="The verbatim quote of the term.")


class ActionType(StrEnum):
    """Kind of edit a redline makes."""

    REPLACE = "replace"
    DELETE = "delete"
    INSERT = "insert"


class DiffStatus(StrEnum):
    """Where a proposed redline stands in human approval."""

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


class DocumentDiff(_Model):
    """A proposed redline: one edit of one span of a clause."""

    diff_id: str = Field(description="Unique diff id.")
    risk_id: str | None = Field(None, description="Risk this edit addresses.")
    clause_id: str = Field(description="Clause edited.")
    action_type: ActionType = Field(description="replace, delete or insert.")
    original_text: str = Field(
        "", description="Verbatim text replaced/deleted; for insert, the anchor text after which."
    )
    proposed_text: str = Field("", description="New text; '' for a delete.")
    status: DiffStatus = Field(DiffStatus.PENDING, description="Approval status.")
    reason: str = Field("", description="Why the change is proposed (becomes the Word comment).")
    risk_level: RiskLevel | None = Field(None, description="Severity of the risk addressed.")
    start_offset: int | None = Field(None, ge=0, description="Offset of original_text, if known.")
    feedback: str = Field("", description="The reviewer's feedback given with the decision.")
    edited: bool = Field(
        False, description="Whether proposed_text is the reviewer's own wording (an edit)."
    )
    for_lawyer: bool = Field(
        False,
        description="Proposed for a lawyer to decide, never approved unattended: it strikes a "
        "whole term whose words show no right of the other side (a blank to fill is also "
        "never approved unattended).",
    )
    new_clause: bool = Field(
        False,
        description="An insertion of a whole clause the contract lacks (our standard clause): "
        "its lines become new paragraphs after the paragraph that ends at start_offset.",
    )
    decided_by: str = Field("", description="Who decided (the reviewer's name); '' if undecided.")
    decided_at: str | None = Field(None, description="When it was decided (ISO 8601, UTC).")


class DiffBatch(_Model):
    """The diffs of one clause submitted together for approval."""

    clause_id: str = Field(description="Clause the diffs belong to.")
    diffs: list[DocumentDiff] = Field(default_factory=list, description="The proposed diffs.")


class ModificationSuggestion(_Model):
    """A suggested rewording of a clause passage, before it becomes a DocumentDiff."""

    risk_id: str = Field(description="Risk addressed.")
    clause_id: str = Field(description="Clause concerned.")
    original_text: str = Field(description="Verbatim text to change.")
    suggested_text: str = Field(description="Suggested wording.")
    modification_reason: str = Field("", description="Why.")
    priority: Priority = Field(Priority.MEDIUM, description="How important the change is.")


class ActionRecommendation(_Model):
    """Something the reviewer should do besides editing text (negotiate, diarise, ask)."""

    action_id: str = Field(description="Unique action id.")
    related_risk_ids: list[str] = Field(default_factory=list, description="Risks it follows from.")
    action_type: str = Field(description="e.g. 'negotiate', 'diarise_deadline', 'clarify'.")
    description: str = Field(description="What to do.")
    urgency: Priority = Field(Priority.MEDIUM, description="How urgent.")
    responsible_party: str = Field("", description="Who should act.")
    deadline: str | None = Field(None, description="When, if there is a deadline.")


class ReviewChecklistItem(_Model):
    """One item of the review plan: a clause to review and the skills to run on it."""

    clause_id: str = Field(description="Clause to review.")
    clause_name: str = Field("", description="Its title or the topic name.")
    priority: Priority = Field(Priority.MEDIUM, description="critical / high / medium / low.")
    required_skills: list[str] = Field(default_factory=list, description="Skills to run.")
    description: str = Field("", description="What to check.")
    topic: str | None = Field(None, description="Detected topic (e.g. 'Governing Law').")
    other_topics: list[str] = Field(
        default_factory=list,
        description="Further topics the clause deals with, reviewed in the same pass "
        "('Termination for Convenience' beside 'Termination').",
    )

    @property
    def topics(self) -> list[str]:
        """Every topic of the item: `topic` first, then `other_topics`."""
        return [*([self.topic] if self.topic else []), *self.other_topics]


_PRIORITY_RANK = {p: i for i, p in enumerate(Priority)}


def one_item_per_clause(items: Sequence[ReviewChecklistItem]) -> list[ReviewChecklistItem]:
    """The checklist with each clause once: a clause listed under several topics is analysed
    in one pass — skills united, the highest priority, every topic and description — at the
    place of its first item."""
    merged: dict[str, ReviewChecklistItem] = {}
    for item in items:
        first = merged.get(item.clause_id)
        if first is None:
            merged[item.clause_id] = item
            continue
        topics = list(dict.fromkeys([*first.topics, *item.topics]))
        descriptions = [first.description]
        if item.description and item.description not in first.description:
            descriptions.append(item.description)
        merged[item.clause_id] = first.model_copy(
            update={
                "priority": min(first.priority, item.priority, key=_PRIORITY_RANK.__getitem__),
                "required_skills": list(
                    dict.fromkeys([*first.required_skills, *item.required_skills])
                ),
                "description": " ".join(d for d in descriptions if d),
                "topic": topics[0] if topics else None,
                "other_topics": topics[1:],
            }
        )
    return list(merged.values())


class BaselinePosition(_Model):
    """The standard position for one clause or topic, in our own words (never FIDIC wording)."""

    key: str = Field(description="Clause id ('20.1') or topic name ('Governing Law').")
    title: str = Field(description="Short title.")
    text: str = Field(description="The standard position, summarised in our own words.")
    subtypes: list[str] = Field(
        default_factory=list, description="Subtypes it applies to; empty = all."
    )
    source: str = Field("", description="Where the position comes from (facts, not wording).")


class Deviation(_Model):
    """How a clause departs from its baseline."""

    clause_id: str = Field(description="Clause compared.")
    deviation_type: str = Field(description="'unmodified', 'modified', 'added' or 'deleted'.")
    baseline_text: str = Field("", description="Baseline wording or position.")
    actual_text: str = Field("", description="The contract's wording.")
    severity: RiskLevel | None = Field(None, description="Rating from our party's side.")
    reason: str = Field("", description="Why it matters.")


class TokenUsage(_Model):
    """Model calls and tokens counted by one chat model (per review: one client per run)."""

    prompt_tokens: int = Field(0, ge=0, description="Tokens sent.")
    completion_tokens: int = Field(0, ge=0, description="Tokens received.")
    calls: int = Field(0, ge=0, description="Requests answered (retries not counted twice).")

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def plus(self, other: TokenUsage) -> TokenUsage:
        """The sum of two counts (a review resumed over several runs)."""
        return TokenUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            calls=self.calls + other.calls,
        )


class AgentRunInfo(_Model):
    """What the LLM agent did for one clause (ReAct metadata and quote checks)."""

    steps_taken: int = Field(0, ge=0, description="Agent (LLM) steps taken.")
    llm_calls: int = Field(0, ge=0, description="Model calls made, the forced final one included.")
    tools_used: list[str] = Field(
        default_factory=list, description="Tools called, first use order."
    )
    stop_reason: str = Field(
        "final_answer",
        description="'final_answer', 'max_iterations', 'loop_detected', 'llm_error', "
        "'unparseable', 'no_tools' or 'timeout'.",
    )
    error: str = Field("", description="The LLM error or parse problem, one line; '' if none.")
    elapsed_seconds: float = Field(0.0, ge=0, description="Wall time of the agent for the clause.")
    risks_proposed: int = Field(0, ge=0, description="Risks the model answered with.")
    risks_kept: int = Field(0, ge=0, description="Of those, risks kept (quote verified, new).")
    quotes_verbatim: int = Field(0, ge=0, description="Quotes found verbatim in the clause.")
    quotes_repaired: int = Field(
        0, ge=0, description="Quotes not verbatim, re-anchored on the nearest verbatim span."
    )
    quotes_dropped: int = Field(
        0, ge=0, description="Risks or redlines dropped: their quote is not in the clause."
    )
    duplicates: int = Field(0, ge=0, description="Risks dropped as repeats of a rule finding.")


class Depth(StrEnum):
    """How much model work a clause gets (SPEC-21). The rules run on every clause whatever
    its depth: 'skip' skips only the model."""

    SKIP = "skip"
    QUICK = "quick"
    STANDARD = "standard"
    DEEP = "deep"


class ClausePlan(_Model):
    """The plan of one checklist item: depth, the agent's tools and rounds, its place."""

    key: str = Field(description="Finding key of the item (clause id, or clause id#n).")
    clause_id: str = Field(description="The clause.")
    depth: Depth = Field(Depth.STANDARD, description="skip / quick / standard / deep.")
    categories: list[str] = Field(
        default_factory=list,
        description="Skill categories whose tools the agent is offered ([]: all of them).",
    )
    max_iterations: int = Field(5, ge=0, description="Most agent rounds (0 with 'skip').")
    order: int = Field(0, ge=0, description="Position in the order clauses start in.")
    reason: str = Field("", description="Why this depth, in a few words.")


class Replan(_Model):
    """A change of plan made while the review ran: a high risk raised the depth of the
    clauses it bears on that had not started yet."""

    trigger: str = Field(description="Key of the clause whose high risk caused it.")
    risk: str = Field(description="That risk's type and description, short.")
    raised: list[str] = Field(default_factory=list, description="Keys of the clauses made deep.")


class ReviewPlan(_Model):
    """The orchestrator's plan of a review (SPEC-21)."""

    source: str = Field(
        "playbook", description="'model' (planned by the LLM) or 'playbook' (deterministic)."
    )
    note: str = Field("", description="Why the deterministic plan was used, when it was.")
    clauses: list[ClausePlan] = Field(default_factory=list, description="In start order.")
    replans: list[Replan] = Field(default_factory=list, description="Changes made on the way.")
    llm_calls: int = Field(0, ge=0, description="Model calls the planning took.")
    tokens: int = Field(0, ge=0, description="Tokens the planning took.")

    def of(self, key: str) -> ClausePlan | None:
        """The plan of one item, by its key."""
        return next((c for c in self.clauses if c.key == key), None)

    def counts(self) -> dict[str, int]:
        """Items per depth."""
        counts = {d.value: 0 for d in Depth}
        for c in self.clauses:
            counts[c.depth.value] += 1
        return counts


class ClauseFindings(_Model):
    """Everything the review found for one clause (the scratchpad entry later clauses read)."""

    clause_id: str = Field(description="Clause reviewed.")
    risks: list[RiskPoint] = Field(default_factory=list, description="Risks found.")
    diffs: list[DocumentDiff] = Field(default_factory=list, description="Redlines, with status.")
    deviations: list[Deviation] = Field(default_factory=list, description="Baseline deviations.")
    favourable: list[FavourableTerm] = Field(
        default_factory=list, description="Terms that burden the other side (not risks)."
    )
    completed: bool = Field(False, description="Whether the clause's review finished.")
    analysis_mode: str = Field("deterministic", description="'deterministic' or 'llm'.")
    mode_reason: str = Field(
        "", description="Why deterministic mode was used (LLM off, timeout, error…); '' for llm."
    )
    agent: AgentRunInfo | None = Field(None, description="The LLM agent's run, when it ran.")
    plan: ClausePlan | None = Field(
        None, description="The plan the clause was reviewed under (after any re-plan)."
    )
    injection_flags: list[str] = Field(
        default_factory=list,
        description="Clause text that tries to instruct an AI reviewer (verbatim), if any.",
    )
    notes: list[str] = Field(default_factory=list, description="Fallbacks, warnings, remarks.")

    @property
    def planned_rules_only(self) -> bool:
        """Whether the plan gave the clause no model work ('skip'): rules only by design."""
        return self.plan is not None and self.plan.depth is Depth.SKIP


class Decision(StrEnum):
    """A reviewer's decision on one diff."""

    APPROVE = "approve"
    REJECT = "reject"


class ApprovalRequest(_Model):
    """A reviewer's decision on one proposed diff."""

    diff_id: str = Field(description="Diff decided on.")
    decision: Decision = Field(description="approve or reject.")
    feedback: str = Field("", description="Why rejected / what to change (drives a redraft).")
    user_modified_text: str | None = Field(
        None, description="Reviewer's own wording to use instead of the proposed text."
    )
    reviewer: str = Field("", description="Who decided (a name; the OS user by default).")
    decided_at: str | None = Field(None, description="When it was decided (ISO 8601, UTC).")

    @field_validator("feedback", "user_modified_text", "reviewer")
    @classmethod
    def _writable(cls, value: str | None) -> str | None:
        # typed in a terminal or sent over HTTP: it goes into the Word file as written
        return clean_untrusted(value) if value is not None else None


# --------------------------------------------------------------------------------------------
# Result: what a finished review hands to the exports
# --------------------------------------------------------------------------------------------


class ReviewedClause(_Model):
    """One checklist item with the clause it targets and what the review found there."""

    item: ReviewChecklistItem = Field(description="The checklist item reviewed.")
    clause_title: str = Field("", description="Title of the clause.")
    clause_text: str = Field("", description="The clause text as reviewed (verbatim).")
    start_offset: int = Field(0, ge=0, description="Offset of the clause in the document text.")
    findings: ClauseFindings = Field(description="Risks, redlines (with status), deviations.")


class InventoryEntry(_Model):
    """One category of the clause inventory (the 41 CUAD categories): whether the contract
    has it, where, and its value when the category has one."""

    category: str = Field(description="CUAD category name, e.g. 'Governing Law'.")
    present: bool = Field(description="Whether the contract has such a clause or value.")
    clause_ids: list[str] = Field(
        default_factory=list, description="Clauses holding it, in document order."
    )
    value: str = Field(
        "",
        description="The normalised value, for categories that have one: a name "
        "('California'), an ISO date ('2016-09-23'), a period ('90 days', '1 year'), "
        "'perpetual'; '' otherwise.",
    )
    quote: str = Field("", description="The contract's words the value was read from.")


class ClauseInventory(_Model):
    """The clause inventory of a contract: every category, present or not, in CUAD order."""

    entries: list[InventoryEntry] = Field(description="One entry per category.")

    def get(self, category: str) -> InventoryEntry | None:
        """The entry of `category`, or None."""
        return next((e for e in self.entries if e.category == category), None)


class KindEvidence(_Model):
    """One piece of evidence for a contract kind: the words that counted, and where."""

    source: str = Field(
        description="'title' (the document's heading), 'role' (what the parties are called), "
        "'term' (an operative term in the text) or 'given' (chosen with --kind)."
    )
    words: str = Field(description="The contract's words that matched, as written.")
    count: int = Field(1, ge=1, description="How often they occur (terms), else 1.")
    weight: float = Field(0.0, ge=0, description="What they added to the kind's score.")


class KindMatch(_Model):
    """A kind the contract is (licence, lease, loan, …), with how sure and why."""

    kind: str = Field(description="Id of the kind in the kind table, e.g. 'licence'.")
    name: str = Field(description="The kind named in English, e.g. 'Licence'.")
    name_zh: str = Field(description="The kind named in Chinese, e.g. '许可'.")
    confidence: float = Field(ge=0, le=1, description="How sure the detection is (0-1).")
    score: float = Field(0.0, ge=0, description="The raw score the kinds were ranked by.")
    evidence: list[KindEvidence] = Field(
        default_factory=list, description="The words that decided it, strongest first."
    )

    def label(self, language: str = "en") -> str:
        """The kind's name in `language` ('en' or 'zh…')."""
        return self.name_zh if language.lower().startswith("zh") else self.name


class GapKind(StrEnum):
    """Why part of a contract could not be checked."""

    ONE_CLAUSE = "one_clause"
    """Nothing was numbered: the whole contract was read as one clause."""
    DOMINANT_CLAUSE = "dominant_clause"
    """One clause's own text covers most of the contract: its terms were not told apart."""
    NO_PARTY = "no_party"
    """No party was found in the preamble: nothing could be judged from a side."""
    UNREAD_PAGES = "unread_pages"
    """Pages whose text could not be read."""


class CoverageGap(_Model):
    """A part of the contract the review could not check properly, for the report's "what
    could not be checked" (and a verdict that does not claim a clean bill)."""

    kind: GapKind = Field(description="What failed.")
    clause_id: str = Field("", description="The clause concerned (dominant clause), if any.")
    share: float = Field(0.0, ge=0, le=1, description="Share of the text that clause covers.")
    pages: list[int] = Field(default_factory=list, description="The pages concerned, 1-based.")


class ReviewResult(_Model):
    """A finished (or partly finished) review, as the exports need it."""

    task_id: str = Field(description="Review task id.")
    created_at: str = Field(description="When the review ran (ISO 8601).")
    our_party: str = Field(
        "", description="The party we act for, as the contract names it ('' when neutral)."
    )
    language: str = Field("en", description="'en' or 'zh-CN'.")
    domain_id: str | None = Field(None, description="Domain plugin used.")
    domain_subtype: str | None = Field(None, description="Domain subtype used.")
    primary_filename: str = Field(description="File name of the contract reviewed.")
    other_documents: list[str] = Field(
        default_factory=list, description="Other task documents: 'role: file name'."
    )
    clauses: list[ReviewedClause] = Field(
        default_factory=list, description="Reviewed items in checklist order."
    )
    missing: list[RiskPoint] = Field(
        default_factory=list,
        description="Protections the contract lacks (a playbook position no clause deals "
        "with), as risks without a quote.",
    )
    summary_notes: str = Field("", description="Overall summary.")
    warnings: list[str] = Field(default_factory=list, description="Things the reader must know.")
    coverage_gaps: list[CoverageGap] = Field(
        default_factory=list,
        description="Parts of the contract that could not be checked properly (structure not "
        "read, no party found, unreadable pages).",
    )
    hidden_text: list[HiddenTextSpan] = Field(
        default_factory=list, description="Hidden text found in the contract file."
    )
    is_complete: bool = Field(True, description="Whether every checklist item was reviewed.")
    inventory: ClauseInventory | None = Field(
        None, description="The contract's clause inventory, when its domain builds one."
    )
    contract_kinds: list[KindMatch] = Field(
        default_factory=list,
        description="What kind of contract it is, ranked: the first is the main kind (given "
        "with --kind, or detected), the others also apply.",
    )
    plan: ReviewPlan | None = Field(
        None, description="The orchestrator's plan (SPEC-21), with the re-plans made on the way."
    )
    llm_model: str | None = Field(None, description="Chat model used, when LLM mode was on.")
    llm_usage: TokenUsage | None = Field(
        None, description="Model calls and tokens of this run, when LLM mode was on."
    )
