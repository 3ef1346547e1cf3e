"""Cross-clause rules the built-in domains share: rules that need every clause's findings at
once, applied after the clauses are reviewed (their order of completion cannot matter)."""

from __future__ import annotations

from collections.abc import Mapping

from contract_review.models import ClauseFindings, RiskLevel

__all__ = ["uncapped_liability_raises_indemnities"]

_UNCAPPED = ("uncapped", "cap_removed", "cap removed")
"""Risk types that mean an exposure without a cap."""


def uncapped_liability_raises_indemnities(
    findings: Mapping[str, ClauseFindings],
) -> dict[str, ClauseFindings]:
    """An uncapped exposure anywhere in the contract makes every indemnity risk high: nothing
    limits what an indemnity can cost us then."""
    out = dict(findings)
    uncapped = any(
        any(u in r.risk_type for u in _UNCAPPED) for f in findings.values() for r in f.risks
    )
    if not uncapped:
        return out
    for key, f in findings.items():
        risks = [
            r.model_copy(
                update={
                    "risk_level": RiskLevel.HIGH,
                    "reason": (r.reason + " " if r.reason else "")
                    + "Raised: liability elsewhere in the contract is uncapped.",
                }
            )
            if "indemn" in r.risk_type.lower() and r.risk_level is not RiskLevel.HIGH
            else r
            for r in f.risks
        ]
        out[key] = f.model_copy(update={"risks": risks})
    return out
