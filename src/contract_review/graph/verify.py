"""The rules over a clause, and every change verified by running them again on its result.

`clause_rules` is what deterministic analysis raises on a clause (the item's skills with a risk
rule, injection passages, blanks left); `verify_change` applies a change to its clause and runs
the same rules on the amended contract: the change is proposed only if `analysis.verify` finds
nothing wrong with the result (the answered risk gone or lower, no new risk, no term in our
favour lost, its wording sound). The review graph verifies every draft with it;
`bench/redline_check.py` verifies a finished review's changes again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from contract_review.analysis.verify import (
    Judgement,
    Problem,
    amend,
    changed_node,
    judgement_problems,
    wording_problems,
)
from contract_review.models import (
    ClauseNode,
    DocumentDiff,
    DocumentStructure,
    FavourableTerm,
    RiskPoint,
)
from contract_review.skills.risks import favourable_from_skill_outputs, risks_from_skill_outputs
from contract_review.text import PLACEHOLDER

from ._findings import blank_risks, injection_risks
from .context import RunContext

__all__ = ["RuleFindings", "clause_rules", "first_verified", "verify_change"]

_STAND_IN = "100"
"""What a blank ([●]) reads as when a change is verified: the lawyer fills it in; a cap of
100 % of the price, or 100 days, is how such a change is judged meanwhile."""


@dataclass(frozen=True)
class RuleFindings:
    """What the rules find on one clause."""

    risks: list[RiskPoint]
    """Risks, most severe first."""
    notes: list[str]
    """Skills that failed, passages addressed to an AI reviewer."""
    flags: list[str]
    """Quotes of the passages addressed to an AI reviewer."""
    favourable: list[FavourableTerm]
    """Terms that burden the other side."""

    @property
    def judgement(self) -> Judgement:
        """The risks and terms in our favour, as verification compares them."""
        return Judgement(self.risks, self.favourable)


async def clause_rules(
    ctx: RunContext,
    skills: Sequence[str],
    clause: ClauseNode,
    structure: DocumentStructure,
    *,
    verifying: bool = False,
) -> RuleFindings:
    """The rules of the `skills` that turn output into risks, run on `clause` of `structure`,
    with the passages addressed to an AI reviewer and the blanks left to fill; `verifying`:
    only the skills that judge the text they are given (`judges_given_text`), so the same
    rules judge a clause before and after a change."""
    # Deterministic mode runs the skills whose output a rule turns into risks; context and
    # retrieval skills (no rule) serve the LLM agent and drafting, not this step.
    registrations = [
        reg
        for skill in skills
        if (reg := ctx.dispatcher.get_registration(skill)) is not None
        and reg.risk_rule
        and (reg.judges_given_text or not verifying)
    ]
    results = await asyncio.gather(
        *(
            ctx.dispatcher.prepare_and_call(reg.skill_id, clause.clause_id, structure, ctx.facts)
            for reg in registrations
        )
    )
    outputs = [(reg, r.data) for reg, r in zip(registrations, results, strict=True) if r.success]
    notes = [f"{r.skill_id}: {r.error}" for r in results if not r.success]
    language = ctx.facts.language
    injected, flags = injection_risks(clause, language, structure)
    if flags:
        notes.append(
            f"{len(flags)} passage(s) addressed to an AI reviewer; treated as contract text"
        )
    risks = [
        *injected,
        *blank_risks(clause, language, structure),
        *risks_from_skill_outputs(clause, outputs, language),
    ]
    return RuleFindings(
        risks, notes, flags, favourable_from_skill_outputs(clause, outputs, language)
    )


async def verify_change(
    ctx: RunContext,
    skills: Sequence[str],
    structure: DocumentStructure,
    clause: ClauseNode,
    diff: DocumentDiff,
    risk: RiskPoint | None,
    judged: dict[str, Judgement] | None = None,
) -> list[Problem]:
    """What is wrong with making `diff` to `clause` (an empty list: nothing): its wording in
    place, and the rules of `skills` on the smallest sub-clause holding the change, before and
    after it (`judged`: the judgements of sub-clauses as they stand, by clause id, filled in as
    they are made — a caller verifying several changes of one clause passes the same dict).
    `risk` is the risk the change answers (None: not known). A blank the change leaves for the
    lawyer is judged filled with a middling figure."""
    roles = ctx.facts.roles_in(structure) if ctx.facts.our_party else None
    node = changed_node(clause, diff)
    problems = wording_problems(structure, node, diff, roles)
    filled = PLACEHOLDER.sub(_STAND_IN, diff.proposed_text)
    amended = amend(structure, node, diff.model_copy(update={"proposed_text": filled}))
    if amended is None:
        return problems
    judged = judged if judged is not None else {}
    before = judged.get(node.clause_id)
    if before is None:
        before = (await clause_rules(ctx, skills, node, structure, verifying=True)).judgement
        judged[node.clause_id] = before
    after = await clause_rules(ctx, skills, amended[1], amended[0], verifying=True)
    return [*problems, *judgement_problems(before, after.judgement, risk, diff)]


async def first_verified(
    ctx: RunContext,
    skills: Sequence[str],
    structure: DocumentStructure,
    clause: ClauseNode,
    drafts: Sequence[DocumentDiff],
    risk: RiskPoint | None,
    judged: dict[str, Judgement] | None = None,
) -> tuple[DocumentDiff | None, list[Problem]]:
    """The first of `drafts` (one risk's, best first) that passes `verify_change`, and the
    first draft's problems (for the note when none passes)."""
    judged = judged if judged is not None else {}
    first: list[Problem] = []
    for n, draft in enumerate(drafts):
        problems = await verify_change(ctx, skills, structure, clause, draft, risk, judged)
        if not problems:
            return draft, []
        first = problems if n == 0 else first
    return None, first
