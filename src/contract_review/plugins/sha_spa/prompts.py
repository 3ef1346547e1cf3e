"""Guidance for the LLM agent on share purchase and shareholders' agreements: what to focus on and which tools help."""

from __future__ import annotations

__all__ = ["PROMPT_HINTS"]

PROMPT_HINTS: dict[str, str] = {
    "en": (
        "## Domain: share purchase / shareholders' agreement\n"
        "This is a share purchase or shareholders' agreement. Focus on conditions precedent "
        "and the long-stop date; the scope and qualification of the warranties; the seller's "
        "limits of liability (cap, basket, claim periods) and the indemnities; and governance "
        "and transfer rights (board, reserved matters, pre-emption, drag and tag).\n"
        "Useful tools: spa_extract_conditions (conditions precedent), "
        "spa_extract_reps_warranties (warranties), "
        "spa_indemnity_analysis (liability limits and indemnities), "
        "sha_governance_check (governance and transfer terms)."
    ),
    "zh": (
        "【领域：股权收购 / 股东协议】\n"
        "本合同为股权收购协议或股东协议。重点关注：交割先决条件与最后期限；"
        "陈述与保证的范围及其限定；出售方责任限制（上限、起赔额、索赔期限）与赔偿安排；"
        "公司治理与股权转让权利（董事会、保留事项、优先购买权、领售权与随售权）。\n"
        "可用工具：spa_extract_conditions（先决条件）、"
        "spa_extract_reps_warranties（陈述与保证）、"
        "spa_indemnity_analysis（责任限制与赔偿）、"
        "sha_governance_check（治理与转让条款）。"
    ),
}
"""The domain section of the agent's prompt, by language ('en', 'zh')."""
