"""Cross-clause rules the built-in domains share: rules that need every clause's findings at
once, applied after the clauses are reviewed (their order of completion cannot matter)."""

from __future__ import annotations

from collections.abc import Mapping

from contract_review.models import ClauseFindings, RiskLevel
from contract_review.skills.risks import Say

__all__ = ["one_risk_per_quote", "uncapped_liability_raises_indemnities"]

_UNCAPPED = ("uncapped", "cap_removed", "cap removed")
"""Risk types that mean an exposure without a cap."""


def uncapped_liability_raises_indemnities(
    findings: Mapping[str, ClauseFindings], language: str = "en"
) -> dict[str, ClauseFindings]:
    """An uncapped exposure anywhere in the contract makes every indemnity risk high: nothing
    limits what an indemnity can cost us then (the reason says so in the review's `language`)."""
    out = dict(findings)
    uncapped = any(
        any(u in r.risk_type for u in _UNCAPPED) for f in findings.values() for r in f.risks
    )
    if not uncapped:
        return out
    say = Say(language)
    raised = say(
        "Raised: liability elsewhere in the contract is uncapped.",
        "风险等级已上调：合同其他条款约定的责任未设上限。",
    )
    space = say(" ", "")
    for key, f in findings.items():
        risks = [
            r.model_copy(
                update={
                    "risk_level": RiskLevel.HIGH,
                    "reason": (r.reason + space if r.reason else "") + raised,
                }
            )
            if "indemn" in r.risk_type.lower() and r.risk_level is not RiskLevel.HIGH
            else r
            for r in f.risks
        ]
        out[key] = f.model_copy(update={"risks": risks})
    return out


def _depth(clause_id: str) -> int:
    return clause_id.count(".") + clause_id.count("(")


def one_risk_per_quote(
    findings: Mapping[str, ClauseFindings], language: str = "en"
) -> dict[str, ClauseFindings]:
    """A clause reviewed with its sub-clause reports a risk on the same words once: on the
    deepest clause holding them (its redlines go with it); `language` is not needed."""
    del language
    best: dict[tuple[str, int, int], tuple[int, str]] = {}
    for key, f in findings.items():
        for r in f.risks:
            if r.location is None or r.location.start_offset is None:
                continue
            where = (r.risk_type, r.location.start_offset, r.location.end_offset or 0)
            if where not in best or _depth(f.clause_id) > best[where][0]:
                best[where] = (_depth(f.clause_id), key)
    out = dict(findings)
    for key, f in findings.items():
        dropped = {
            r.id
            for r in f.risks
            if r.location is not None
            and r.location.start_offset is not None
            and best[(r.risk_type, r.location.start_offset, r.location.end_offset or 0)][1] != key
        }
        if dropped:
            out[key] = f.model_copy(
                update={
                    "risks": [r for r in f.risks if r.id not in dropped],
                    "diffs": [d for d in f.diffs if d.risk_id not in dropped],
                }
            )
    return out
