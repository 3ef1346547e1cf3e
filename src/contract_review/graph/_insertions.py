"""Our standard clause proposed for each medium or high protection the contract lacks.

The clause (`analysis.insertion.new_clause`) goes after the contract's last numbered clause and
is verified before it is proposed: its wording (numbers, defined terms, parties) and the rules
of the clause it follows, run again with it in place; its text must deal with the point (the
domain's topic reader finds the position's topic in it), and a protection that must be ours
(`Position.present`: the cap on our liability) must be held by us or by both once it is in.
A clause that fails is not proposed: the missing protection keeps its comment. A clause that
passes is proposed for the lawyer to decide, never approved unattended.
"""

from __future__ import annotations

from collections.abc import Sequence

from contract_review.analysis.insertion import new_clause
from contract_review.analysis.positions import term_sides
from contract_review.models import (
    ClauseFindings,
    DocumentDiff,
    DocumentStructure,
    ReviewChecklistItem,
    RiskLevel,
    RiskPoint,
)
from contract_review.parties import PartyRoles
from contract_review.playbook import Position
from contract_review.structure_parser import StructureParser

from ._findings import deals_with
from .context import RunContext
from .verify import verify_change

__all__ = ["propose_missing_clauses"]

_PROPOSED_FOR = frozenset({RiskLevel.HIGH, RiskLevel.MEDIUM})


def _on_the_point(
    ctx: RunContext, position: Position, diff: DocumentDiff, roles: PartyRoles | None
) -> bool:
    """Whether the new clause's own words (not its heading) deal with the position's point,
    and give a protection that must be ours to us or to both."""
    body = "\n".join(diff.proposed_text.splitlines()[1:])
    parsed = StructureParser().parse(body, document_id="new-clause")
    reader = ctx.plugin.topics_anywhere if ctx.plugin is not None else None
    if reader is not None and not deals_with(position, set(reader(parsed)), ()):
        return False
    present = position.present
    if present is not None and roles is not None:
        return bool(term_sides(parsed, present.check, roles) & {present.holder, "both"})
    return True


def _reason(risk: RiskPoint, position: Position, zh: bool) -> str:
    title = position.title_text("zh" if zh else "en")
    if zh:
        return f"{risk.description}建议增加我方关于“{title}”的标准条款。"
    return f"{risk.description} Proposed: our standard clause on {title}."


async def propose_missing_clauses(
    ctx: RunContext,
    missing: Sequence[RiskPoint],
    findings: dict[str, ClauseFindings],
    items: Sequence[ReviewChecklistItem],
    keys: Sequence[str],
    anywhere: frozenset[str] = frozenset(),
) -> dict[str, ClauseFindings]:
    """`findings` with our verified standard clause added, as a change of the clause it
    follows, for each medium or high risk of `missing` whose position has one. `anywhere`:
    the topics the contract deals with somewhere (as `missing_protections` read them)."""
    structure: DocumentStructure | None = ctx.primary
    if structure is None:
        return findings
    by_id = {p.id: p for p in ctx.facts.positions}
    roles = ctx.facts.roles_in(structure) if ctx.facts.our_party else None
    zh = ctx.facts.language.startswith("zh")
    out = dict(findings)
    proposed = 0
    for risk in missing:
        position = by_id.get(risk.position_id)
        if risk.risk_level not in _PROPOSED_FOR or position is None or position.clause is None:
            continue
        # the other side alone has it (their cap): ours is asked for, not a second mutual one
        one_way = risk.location is not None or (
            position.present is not None and deals_with(position, set(anywhere), ())
        )
        diff = new_clause(
            structure, position, ctx.facts.language, roles, earlier=proposed, ours_only=one_way
        )
        if diff is None:
            continue
        # held by the deepest reviewed clause the new one follows on from: the clause it
        # follows, or that clause's last sub-clause
        at = diff.start_offset or 0
        held_by = [
            (k, i, c)
            for k, i in zip(keys, items, strict=True)
            if k in out
            and (c := structure.get_clause(i.clause_id)) is not None
            and c.start_offset < at <= c.start_offset + len(c.text.rstrip())
        ]
        if not held_by:
            continue  # the clause it follows was not reviewed: nowhere to hold the change
        key, item, anchor = max(held_by, key=lambda h: h[2].level)
        diff = diff.model_copy(
            update={
                "clause_id": anchor.clause_id,
                "risk_id": risk.id,
                "risk_level": risk.risk_level,
                "reason": _reason(risk, position, zh),
            }
        )
        problems = await verify_change(ctx, item.required_skills, structure, anchor, diff, risk)
        if problems or not _on_the_point(ctx, position, diff, roles):
            continue
        # a whole clause is a commercial term to fit to the deal, and an absence is read from
        # the whole contract, less surely than a term in a clause: the lawyer decides it
        diff = diff.model_copy(update={"for_lawyer": True})
        held = out[key]
        out[key] = held.model_copy(update={"diffs": [*held.diffs, diff]})
        proposed += 1
    return out
