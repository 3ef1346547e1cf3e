"""check_positions: the playbook's one-sided-term checks on a clause, judged from our side.

A thin adapter over `analysis.positions` (which reads who holds each right or bears each
duty, how broad it is, and measures numbers against a position's tiers): the clause and the
review's positions in, the findings out, and the rules that make them risks and favourable
terms. Nothing is judged without a party to act for. The whole clause is read (sub-clauses
included); where a clause and its sub-clause are both reviewed, the review keeps one risk per
quote.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from contract_review.analysis.positions import PositionFinding, position_findings
from contract_review.models import FavourableTerm, RiskPoint
from contract_review.skills.context import (
    ClauseSkillInput,
    ReviewContext,
    require_clause,
)
from contract_review.skills.risks import RiskFactory, Say
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import input_preparer

__all__ = [
    "REGISTRATION",
    "SKILL_ID",
    "CheckPositionsInput",
    "CheckPositionsOutput",
    "PositionFinding",
    "handle",
    "prepare_input",
]

SKILL_ID = "check_positions"


class CheckPositionsInput(ClauseSkillInput):
    """Input of check_positions."""


class CheckPositionsOutput(BaseModel):
    """Output of check_positions."""

    clause_id: str = Field(description="Clause checked.")
    our_party: str = Field(description="Party we act for ('' = none: nothing is judged).")
    findings: list[PositionFinding] = Field(description="Terms measured, in text order.")


DESCRIPTION = (
    "Check a clause against the playbook's positions on one-sided terms, from our party's side: "
    "rights only the other side holds (terminate for convenience, suspend, amend by notice, "
    "assign freely, raise prices, use our data) and duties only we bear (indemnify regardless "
    "of fault, unlimited liability, buy exclusively, not compete). Each finding says whether it "
    "is against us or favourable, the party that holds it, whether it is broad (any time, any "
    "reason, no notice), the verbatim sentence and our standard and fallback positions. "
    "Arguments: clause_id."
)


prepare_input = input_preparer(CheckPositionsInput)
"""Input for `clause_id` of the primary document."""


async def handle(inp: CheckPositionsInput) -> CheckPositionsOutput:
    """Check the clause's text against every position that has checks.

    A coroutine, so it runs on the event loop: a clause takes about a millisecond of regular
    expressions (none without a party), not worth a worker-thread hand-off."""
    ctx = inp.review_context or ReviewContext()
    clause = require_clause(inp.document_structure, inp.clause_id)
    out = CheckPositionsOutput(clause_id=clause.clause_id, our_party=ctx.our_party, findings=[])
    kind = ctx.kind_of(inp.document_structure)
    positions = [p for p in ctx.positions if p.checks and kind not in p.except_kinds]
    if not positions:
        return out
    # our positions in the review's language; asked without one, in each sentence's
    language = ctx.language if "language" in ctx.model_fields_set else None
    roles = ctx.roles_in(inp.document_structure) if ctx.our_party else None
    findings = position_findings(clause.text, positions, inp.document_structure, roles, language)
    return out.model_copy(update={"findings": findings})


_MEASURE_WORDS = {
    "annual_rate": ("{}% a year", "年化{}%"),
    "days": ("{} days", "{}天"),
    "months_of_fees": ("{} months of fees", "{}个月的费用"),
    "share_of_price": ("{}% of the contract price", "合同价款的{}%"),
    "percent": ("{}%", "{}%"),
}
"""How a measured number reads, in English and Chinese."""


def _what(f: PositionFinding, say: Say) -> str:
    """What makes the term one-sided or off the tiers, in a few words."""
    if f.value is not None:
        en, zh = _MEASURE_WORDS.get(f.measure, ("{}", "{}"))
        value = f"{f.value:g}"
        return say(f"{en.format(value)} for {f.holder}", f"{zh.format(value)}（{f.holder}）")
    if f.check == "their_right":
        alone = say(f"{f.holder} holds the right alone", f"由{f.holder}单方享有该权利")
    else:
        alone = say(f"{f.holder} bears it alone", f"由{f.holder}单方承担")
    if not f.breadth:
        return alone
    return alone + say(
        f" ({', '.join(f.breadth)})", "（" + "、".join(f"“{b}”" for b in f.breadth) + "）"
    )


def _sentence(text: str, say: Say) -> str:
    """`text` ending as a sentence ends in the review's language."""
    text = text.strip()
    if not text or text[-1] in ".!?。！？；;":
        return text
    return text + say(".", "。")


def risk_rule(risk: RiskFactory, out: CheckPositionsOutput) -> list[RiskPoint]:
    """Each term against us (or, neutral, against either party) is a risk of its level,
    quoted on its sentence and tied to its position."""
    say = risk.say
    risks = []
    for f in out.findings:
        if f.effect != "against_us":
            continue
        if f.value is not None:
            what = _what(f, say)
            if f.burdens:
                what += say(f", against {f.burdens}", f"，对{f.burdens}不利")
        else:
            against = (
                say(f"one-sided against {f.burdens}", f"对{f.burdens}不利的单方条款")
                if f.burdens
                else say("one-sided against us", "对我方不利的单方条款")
            )
            what = say(f"{against}: {_what(f, say)}", f"{against}，{_what(f, say)}")
        if f.accepted:
            what += say(
                f"; this wording was accepted before ({f.accepted}): no change proposed",
                f"；该措辞此前已被接受（{f.accepted}），不再提出修改",
            )
        risks.append(
            risk.risk(
                SKILL_ID,
                f.level,
                f"playbook: {f.topic}",
                say(f"{f.topic}: {what}.", f"{f.title or f.topic}：{what}。"),
                reason=f.rationale,
                analysis=say(
                    f"Standard: {f.standard}" + (f" Fallback: {f.fallback}" if f.fallback else ""),
                    f"我方标准立场：{_sentence(f.standard, say)}"
                    + (f"可接受的退让方案：{_sentence(f.fallback, say)}" if f.fallback else ""),
                ),
                quote=f.quote,
                position_id=f.position_id,
                burdens=f.burdens,
                measured=f.value if f.value is not None else f.period,
                worse=f.worse or None,
                target=f.target,
            )
        )
    return risks


def favourable_rule(risk: RiskFactory, out: CheckPositionsOutput) -> list[FavourableTerm]:
    """Each term that burdens the other side, for the report's 'favourable to us'."""
    say = risk.say
    return [
        risk.favourable(
            f.position_id,
            f.topic,
            say(
                f"{f.topic}: {_what(f, say)}.",
                f"{f.title or f.topic}：{_what(f, say)}。",
            ),
            f.quote,
        )
        for f in out.findings
        if f.effect == "favourable"
    ]


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Playbook positions",
    description=DESCRIPTION,
    input_schema=CheckPositionsInput,
    output_schema=CheckPositionsOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    category="analysis",
    risk_rule=risk_rule,
    favourable_rule=favourable_rule,
)
