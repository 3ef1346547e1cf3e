"""Deterministic mode: skill outputs → `RiskPoint`s, by explicit rules.

Each rule reads one skill's output (as returned in `SkillResult.data`), decides whether it is
a risk for our party and how severe, and anchors it on a verbatim quote of the clause. A quote
that is not verbatim clause text is re-anchored on the nearest verbatim span or dropped (the
risk keeps no location then): a risk never shows a lawyer words the contract does not contain.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from difflib import SequenceMatcher
from typing import Any

from contract_review.models import ClauseNode, RiskLevel, RiskPoint, TextLocation

__all__ = [
    "RULES",
    "SEVERITY_ORDER",
    "anchor_quote",
    "location_in",
    "risk_id",
    "risks_from_skill_outputs",
]

Output = Mapping[str, Any]
Rule = Callable[["_Ctx", Output], list[RiskPoint]]

_MIN_ANCHOR = 12
"""Shortest verbatim span a paraphrased quote may be re-anchored on."""
_MAX_FUZZY = 20_000
"""Longest clause searched fuzzily for a paraphrased quote."""
_MAX_UNDEFINED = 5
"""Undefined-term risks reported per clause (the most used terms)."""


def anchor_quote(clause_text: str, quote: str) -> tuple[str, int] | None:
    """(verbatim text, offset in the clause) for `quote`, or None.

    Exact text first; else whitespace-normalised; else the longest common span with the quote
    if it is substantial. Offsets are relative to `clause_text`.
    """
    quote = quote.strip()
    if not quote:
        return None
    at = clause_text.find(quote)
    if at != -1:
        return quote, at
    words = quote.split()
    flexible = re.search(r"\s+".join(map(re.escape, words)), clause_text)
    if flexible is not None:
        return flexible.group(), flexible.start()
    if len(clause_text) > _MAX_FUZZY:
        return None  # a fuzzy search over a very long clause costs more than it finds
    matcher = SequenceMatcher(None, clause_text, quote, autojunk=False)
    m = matcher.find_longest_match(0, len(clause_text), 0, len(quote))
    if m.size >= max(_MIN_ANCHOR, len(quote) // 2):
        return clause_text[m.a : m.a + m.size], m.a
    return None


SEVERITY_ORDER = {RiskLevel.HIGH: 0, RiskLevel.MEDIUM: 1, RiskLevel.LOW: 2}
"""Sort key of risk levels, most severe first."""


def risk_id(clause_id: str, source: str, risk_type: str, description: str) -> str:
    """A stable risk id: the same finding gets the same id on every run."""
    digest = hashlib.sha256(f"{clause_id}|{source}|{risk_type}|{description}".encode())
    return f"risk-{digest.hexdigest()[:12]}"


def location_in(clause: ClauseNode, text: str, rel: int) -> TextLocation:
    """The location of verbatim clause text found at offset `rel` of the clause."""
    start = clause.start_offset + rel
    return TextLocation(
        clause_id=clause.clause_id,
        original_text=text,
        start_offset=start,
        end_offset=start + len(text),
    )


class _Ctx:
    """The clause being judged and a factory for its risks."""

    def __init__(self, clause: ClauseNode) -> None:
        self.clause = clause

    def risk(
        self,
        skill: str,
        level: RiskLevel | str,
        risk_type: str,
        description: str,
        *,
        reason: str = "",
        analysis: str = "",
        quote: str | None = None,
    ) -> RiskPoint:
        anchored = anchor_quote(self.clause.text, quote) if quote else None
        location = location_in(self.clause, *anchored) if anchored is not None else None
        return RiskPoint(
            id=risk_id(self.clause.clause_id, skill, risk_type, description),
            clause_id=self.clause.clause_id,
            risk_level=RiskLevel(level),
            risk_type=risk_type,
            description=description,
            reason=reason,
            analysis=analysis,
            location=location,
            source_skills=[skill],
        )


# --------------------------------------------------------------------------------------------
# Rules, one per skill
# --------------------------------------------------------------------------------------------

_FINANCIAL_FLAGS: dict[str, tuple[RiskLevel, str]] = {
    "uncapped_damages": (RiskLevel.HIGH, "uncapped damages"),
    "words_figures_mismatch": (RiskLevel.HIGH, "amount in words differs from figures"),
    "retention_above_cn_3_percent": (RiskLevel.MEDIUM, "retention above the statutory cap"),
    "retention_above_5_percent": (RiskLevel.MEDIUM, "retention above market"),
    "no_late_payment_interest": (RiskLevel.MEDIUM, "no interest on late payment"),
}


def _financial(ctx: _Ctx, out: Output) -> list[RiskPoint]:
    risks = []
    for flag in out.get("flags", []):
        level, kind = _FINANCIAL_FLAGS.get(flag["code"], (RiskLevel.LOW, flag["code"]))
        risks.append(
            ctx.risk(
                "extract_financial_terms", level, kind, flag["message"], quote=flag.get("quote")
            )
        )
    return risks


def _deviation(ctx: _Ctx, out: Output) -> list[RiskPoint]:
    risks = []
    for dev in out.get("deviations", []):
        if dev.get("direction") == "in_our_favour" or not dev.get("severity"):
            continue
        quote = dev.get("quote") or dev.get("actual_text") or None
        risks.append(
            ctx.risk(
                "assess_deviation",
                dev["severity"],
                f"deviation from baseline: {dev.get('rule') or dev['deviation_type']}",
                dev.get("reason") or f"The clause {dev['deviation_type']} against its baseline.",
                reason=dev.get("reason", ""),
                analysis=f"Baseline: {dev.get('baseline_quote') or dev.get('baseline_text', '')}",
                quote=quote,
            )
        )
    return risks


def _time_bar(ctx: _Ctx, out: Output) -> list[RiskPoint]:
    risks = []
    for bar in out.get("time_bars", []):
        ours = bar.get("who_side") == "us"
        consequence = bar.get("consequence")
        period = f"{bar['value']:g} {bar['unit']}(s)"
        if ours and consequence == "time_bar":
            level, kind = RiskLevel.HIGH, "time bar"
            text = f"Our party loses its entitlement if it does not act within {period}."
        elif ours and bar.get("shorter_than_standard"):
            level, kind = RiskLevel.HIGH, "shortened period"
            text = (
                f"Our party must act within {period}; the standard period is "
                f"{bar.get('standard_days'):g} days."
            )
        elif consequence == "deemed_rejection" and not ours:
            level, kind = RiskLevel.MEDIUM, "deemed rejection"
            text = f"The other side's silence for {period} counts as rejection, not acceptance."
        elif ours and consequence in ("deemed_approval", "final_and_binding"):
            level, kind = RiskLevel.MEDIUM, consequence.replace("_", " ")
            text = (
                f"If our party does not respond within {period}, the matter is settled against it."
            )
        else:
            continue
        risks.append(
            ctx.risk(
                "fidic_calculate_time_bar",
                level,
                kind,
                text,
                reason=bar.get("consequence_quote") or "",
                analysis=f"Trigger: {bar.get('trigger') or 'not stated'}",
                quote=bar.get("sentence") or bar.get("quote"),
            )
        )
    return risks


def _cross_refs(ctx: _Ctx, out: Output) -> list[RiskPoint]:
    risks = []
    for ref in out.get("references", []):
        if ref["status"] not in ("missing", "deleted"):
            continue
        risks.append(
            ctx.risk(
                "cross_reference_check",
                RiskLevel.MEDIUM if ref["status"] == "deleted" else RiskLevel.LOW,
                f"reference to a {ref['status']} clause",
                f"'{ref['text']}' refers to clause {ref['target_clause_id']}, which is "
                + ("deleted." if ref["status"] == "deleted" else "not in the contract."),
                quote=ref["text"],
            )
        )
    return risks


def _definitions(ctx: _Ctx, out: Output) -> list[RiskPoint]:
    terms = sorted(out.get("undefined_terms", []), key=lambda u: -u["occurrences"])
    return [
        ctx.risk(
            "resolve_definition",
            RiskLevel.LOW,
            "undefined term",
            f"'{u['term']}' is used as a defined term but never defined.",
            quote=u["term"],
        )
        for u in terms[:_MAX_UNDEFINED]
    ]


def _consistency(ctx: _Ctx, out: Output) -> list[RiskPoint]:
    risks = []
    for f in out.get("findings", []):
        quotes = f.get("quotes", [])
        quote = next(
            (q["text"] for q in quotes if q.get("clause_id") == ctx.clause.clause_id), None
        )
        risks.append(
            ctx.risk(
                "fidic_check_pc_consistency",
                f["severity"],
                f["rule"] or f["kind"],
                f["explanation"],
                quote=quote,
            )
        )
    return risks


def _gaps(skill: str) -> Rule:
    def rule(ctx: _Ctx, out: Output) -> list[RiskPoint]:
        return [
            ctx.risk(
                skill,
                g["severity"],
                g["code"] if not g.get("topic") else f"{g['code']}:{g['topic']}",
                g["message"],
                quote=(g.get("evidence") or {}).get("quote"),
            )
            for g in out.get("gaps", [])
        ]

    return rule


RULES: dict[str, Rule] = {
    "extract_financial_terms": _financial,
    "assess_deviation": _deviation,
    "fidic_calculate_time_bar": _time_bar,
    "cross_reference_check": _cross_refs,
    "resolve_definition": _definitions,
    "fidic_check_pc_consistency": _consistency,
    "spa_extract_conditions": _gaps("spa_extract_conditions"),
    "spa_extract_reps_warranties": _gaps("spa_extract_reps_warranties"),
    "spa_indemnity_analysis": _gaps("spa_indemnity_analysis"),
    "sha_governance_check": _gaps("sha_governance_check"),
}
"""Skill id → rule. Skills without a rule (context, retrieval, criteria) inform drafting and
the LLM but raise no risk by themselves."""


def risks_from_skill_outputs(clause: ClauseNode, outputs: Mapping[str, Output]) -> list[RiskPoint]:
    """All risks the rules find in the successful skill outputs of one clause, most severe
    first, one per (type, quote)."""
    ctx = _Ctx(clause)
    risks: list[RiskPoint] = []
    seen: set[tuple[str, str]] = set()
    for skill, output in outputs.items():
        rule = RULES.get(skill)
        if rule is None:
            continue
        for risk in rule(ctx, output):
            key = (risk.risk_type, risk.location.original_text if risk.location else risk.id)
            if key not in seen:
                seen.add(key)
                risks.append(risk)
    risks.sort(key=lambda r: SEVERITY_ORDER[r.risk_level])
    return risks
