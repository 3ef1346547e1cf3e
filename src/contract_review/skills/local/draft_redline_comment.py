"""draft_redline_comment: the smallest sensible redline for one risk, with its Word comment.

The adapter over `analysis.drafting.draft_redline` (the strategies, tried in order, are
described there; the comment's text is `analysis.comments`'s): it finds the clause, resolves
our party against the contract, picks the playbook position the risk refers to, and returns
the redline as the skill's output.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from contract_review.analysis.drafting import RedlineStrategy, draft_redline
from contract_review.errors import SkillError
from contract_review.models import DocumentDiff, DocumentStructure, RiskPoint, TextLocation
from contract_review.playbook import Position
from contract_review.skills.context import ReviewContext, SkillState, StructureInput, require_clause
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import review_context

SKILL_ID = "draft_redline_comment"


class DraftRedlineInput(StructureInput):
    """Input of draft_redline_comment."""

    clause_id: str = Field(description="Id of the clause to edit, e.g. '14.2', '4.1(a)', '5(1)'.")
    risk: RiskPoint = Field(
        description="The risk to address. Its location.original_text must be a verbatim quote "
        "of the clause: the edit is made inside that quote."
    )
    instruction: str = Field(
        "",
        max_length=2000,
        description="What the reviewer wants, overriding the defaults: e.g. 'extend to 56 "
        "days', 'cap at 100% of the Contract Price', 'reduce to 3%', 'delete', "
        '\'replace "sole opinion" with "reasonable opinion"\', or the feedback on a rejected '
        "redline ('use 42 days').",
    )
    proposed_text: str | None = Field(
        None,
        max_length=20_000,
        description="Exact new wording for the quoted text, if the reviewer gave one; only the "
        "part that differs from the quote is redlined.",
    )
    review_context: ReviewContext | None = Field(
        None, description="Review facts: our party, language (filled in by the system)."
    )


class DraftRedlineOutput(BaseModel):
    """Output of draft_redline_comment."""

    clause_id: str = Field(description="Clause edited.")
    risk_id: str = Field(description="Risk addressed.")
    strategy: RedlineStrategy = Field(
        description="Rule that produced the edit: proposed_text, instruction_edit, delete, cap, "
        "fault_based, reasonableness, period, percentage, position (toward the playbook "
        "position's standard), or comment_only (no diff)."
    )
    diff: DocumentDiff | None = Field(
        description="The proposed redline (None for comment_only). original_text is verbatim "
        "clause text at start_offset (absolute document offset); for insert it is the anchor "
        "the new text follows."
    )
    comment: str = Field(
        description="Word comment: the risk, the change, and why it serves our party; in the "
        "review language if set, else the contract's."
    )
    language: str = Field(description="Language of the comment: 'en' or 'zh-CN'.")
    quote: TextLocation = Field(
        description="The risk's quote as found in the clause (verbatim, absolute offsets); "
        "where a comment-only suggestion is anchored."
    )
    alternatives: list[DocumentDiff] = Field(
        default_factory=list, description="Other edits that address the same risk instead."
    )
    related: list[DocumentDiff] = Field(
        default_factory=list,
        description="Other mentions of the same value in the clause that probably need the "
        "same change to stay consistent (check before applying).",
    )
    notes: list[str] = Field(
        default_factory=list, description="Remarks: fuzzy quote match, instruction not used..."
    )


DESCRIPTION = (
    "Draft the smallest sensible redline for ONE risk in ONE clause, plus a Word comment "
    "explaining it from our party's side (English or Chinese, like the contract). Returns "
    "`diff` (action replace/delete/insert, original_text verbatim from the clause, "
    "proposed_text, start_offset), `comment`, `strategy`, `alternatives` and `related` "
    "(same value elsewhere in the clause). Deterministic rules: shorter/longer periods change "
    "only the number ('14' in 'within 14 days'), percentages only the number, uncapped "
    "liability gets a cap, 'whatever the cause' becomes fault-based, 'sole opinion' becomes "
    "'acting reasonably'. Call it after a risk is found, or again after a reviewer rejects a "
    "redline, passing their feedback as `instruction`. Arguments: clause_id; risk (the "
    "RiskPoint, whose location.original_text quotes the clause verbatim); optional "
    "instruction ('extend to 56 days', 'cap at 100% of the Contract Price', 'delete'); "
    "optional proposed_text (exact new wording for the quote). When no rule fits, `diff` is "
    "null and the comment asks for negotiation: call again with proposed_text to get a redline."
)


def prepare_input(
    clause_id: str, primary_structure: DocumentStructure | None, state: SkillState
) -> DraftRedlineInput:
    """Input for `clause_id` of the primary document, without the risk.

    The review state cannot say which risk to redraft, so `risk` comes from the caller's
    (LLM's) arguments, which the dispatcher applies and validates on top of this partial,
    not-yet-validated model; `handle` refuses a call that never received one.
    """
    values: dict[str, Any] = {
        "clause_id": clause_id,
        "risk": None,
        "instruction": "",
        "proposed_text": None,
        "document_structure": primary_structure,
        "review_context": review_context(state),
    }
    return DraftRedlineInput.model_construct(**values)


# --------------------------------------------------------------------------------------------
# Handler
# --------------------------------------------------------------------------------------------


def handle(inp: DraftRedlineInput) -> DraftRedlineOutput:
    """Pick a strategy for the risk and build its diff and comment."""
    structure = inp.document_structure
    clause = require_clause(structure, inp.clause_id)
    assert structure is not None  # require_clause checked it
    risk = inp.risk
    if not isinstance(risk, RiskPoint):
        raise SkillError("risk is required: pass the RiskPoint to address as the 'risk' argument")
    rc = inp.review_context
    roles = rc.roles_in(structure) if rc and rc.our_party else None
    redline = draft_redline(
        structure,
        clause,
        risk,
        roles,
        instruction=inp.instruction,
        proposed_text=inp.proposed_text,
        position=_position_of(rc, risk),
        language=rc.language if rc is not None and "language" in rc.model_fields_set else None,
    )
    return DraftRedlineOutput(
        clause_id=clause.clause_id,
        risk_id=risk.id,
        strategy=redline.strategy,
        diff=redline.diff,
        comment=redline.comment,
        language=redline.language,
        quote=redline.quote,
        alternatives=redline.alternatives,
        related=redline.related,
        notes=redline.notes,
    )


def _position_of(rc: ReviewContext | None, risk: RiskPoint) -> Position | None:
    """The playbook position the risk refers to (`risk.position_id`), if the review has it."""
    if rc is None or not risk.position_id:
        return None
    return next((p for p in rc.positions if p.id == risk.position_id), None)


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Draft redline and comment",
    description=DESCRIPTION,
    input_schema=DraftRedlineInput,
    output_schema=DraftRedlineOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="*",
    category="drafting",
)
