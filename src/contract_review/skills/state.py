"""The SPEC-19 edge: a review state given as a mapping, and the mapping a SPEC-19
`prepare_input(clause_id, primary_structure, state)` may read.

Inside the engine the review's facts are one typed `ReviewContext`. SPEC-4/19 callers hand the
dispatcher (or the graph) the review state as a mapping instead; `review_context` turns it into
a context once, here, and `StateView` shows a context as that mapping again to a
`prepare_input` that reads `state.get("our_party")`. Nothing else knows the mapping form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from contract_review.models import DocumentRole, DocumentStructure, TaskDocument
from contract_review.parties import party_roles

from .context import BaselineSource, ReviewContext, SkillState, prepare_context

__all__ = ["StateView", "input_preparer", "review_context"]


class StateView(Mapping[str, Any]):
    """A review context read as the SPEC-19 state mapping: its facts by their state keys
    (`our_party`, `language`, `domain_id`, …), then the other keys of the state it came from."""

    def __init__(self, context: ReviewContext, extras: Mapping[str, Any] | None = None) -> None:
        self.context = context
        """The typed facts (what the engine's own `prepare_input` functions read)."""
        self._extras = dict(extras or {})

    def _facts(self) -> dict[str, Any]:
        ctx = self.context
        return {
            "task_id": ctx.task_id,
            "our_party": ctx.our_party,
            "language": ctx.language,
            "domain_id": ctx.domain_id,
            "domain_subtype": ctx.domain_subtype,
            "contract_kind": ctx.contract_kind,
            "documents": ctx.documents,
            "criteria_path": ctx.criteria_path,
        }

    def __getitem__(self, key: str) -> Any:
        facts = self._facts()
        return facts[key] if key in facts else self._extras[key]

    def __iter__(self) -> Iterator[str]:
        return iter({**self._extras, **self._facts()})

    def __len__(self) -> int:
        return len({**self._extras, **self._facts()})


def review_context(
    state: SkillState | None,
    baselines_of: Callable[[str | None], BaselineSource | None] | None = None,
    structure: DocumentStructure | None = None,
) -> ReviewContext:
    """The typed facts of what a skill was given: the context itself, the context behind a
    `StateView`, or a SPEC-4/19 state mapping prepared once (its documents, or a bare
    `primary_structure` as the primary document; our party as the state names it, no preamble
    read; the domain's positions from `baselines_of`).

    `structure` is the contract a caller outside a run hands the skill beside the state: our
    side is resolved in it too when the context has not seen it (a run's context has every
    document already). A context without its domain's positions gets them from
    `baselines_of`."""
    if isinstance(state, StateView):
        state = state.context
    if isinstance(state, ReviewContext):
        context = _seeing(state, structure)
        if context.baselines is None and baselines_of is not None:
            # a context that lost its domain's positions (serialised, or built bare): attached
            source = baselines_of(context.domain_id)
            context = context.with_baselines(source) if source is not None else context
        return context
    state = state or {}
    documents = [TaskDocument.model_validate(d) for d in state.get("documents") or []]
    given = state.get("primary_structure")
    if given is not None and not any(d.role is DocumentRole.PRIMARY for d in documents):
        given = DocumentStructure.model_validate(given)
        primary = TaskDocument(
            document_id=given.document_id or "primary",
            role=DocumentRole.PRIMARY,
            filename="",
            structure=given,
        )
        documents = [primary, *documents]
    domain = state.get("domain_id")
    return prepare_context(
        side=str(state.get("our_party") or ""),
        baselines=baselines_of(domain) if baselines_of is not None else None,
        criteria=state.get("criteria_path"),
        task_id=str(state.get("task_id") or ""),
        language=state.get("language") or None,
        domain_id=domain,
        domain_subtype=state.get("domain_subtype"),
        contract_kind=state.get("contract_kind"),
        documents=documents,
        structure=structure,
    )


def _seeing(context: ReviewContext, structure: DocumentStructure | None) -> ReviewContext:
    """`context`, with our side resolved in `structure` as well when it was not."""
    if structure is None or not context.our_party or structure.document_id in context.roles:
        return context
    roles = {**context.roles, structure.document_id: party_roles(structure, context.our_party)}
    return context.model_copy(update={"roles": roles})  # the baselines go with the copy


InputT = TypeVar("InputT", bound=BaseModel)


def input_preparer(
    model: type[InputT],
) -> Callable[[str, DocumentStructure | None, SkillState], InputT]:
    """The `prepare_input` of a skill whose input is `model`: the clause id, and each internal
    field `model` declares filled from the review's context — `document_structure` (the
    contract), `baseline_structure`, `reference_documents`, `review_context`,
    `criteria_file_path` (the user's playbook)."""
    fields = model.model_fields

    def prepare_input(
        clause_id: str, primary_structure: DocumentStructure | None, state: SkillState
    ) -> InputT:
        ctx = review_context(state)
        offered = {
            "clause_id": clause_id,
            "document_structure": primary_structure or ctx.structure_of(DocumentRole.PRIMARY),
            "baseline_structure": ctx.structure_of(DocumentRole.BASELINE),
            "reference_documents": ctx.with_role(DocumentRole.REFERENCE),
            "review_context": ctx,
            "criteria_file_path": ctx.criteria_path,
        }
        return model(**{k: v for k, v in offered.items() if k in fields})

    prepare_input.__doc__ = f"Input of {model.__name__} for a clause, from the review's context."
    return prepare_input
