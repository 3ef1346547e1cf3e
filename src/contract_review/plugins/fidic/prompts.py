"""Guidance for the LLM agent on FIDIC construction contracts: what to focus on and which tools help."""

from __future__ import annotations

__all__ = ["PROMPT_HINTS"]

PROMPT_HINTS: dict[str, str] = {
    "en": (
        "## Domain: FIDIC construction contract\n"
        "This contract is built on FIDIC conditions. Focus on how risk is allocated between "
        "Employer and Contractor; time bars and notice periods (a late notice can forfeit a "
        "claim); where the Particular Conditions amend the General Conditions, review the "
        "amended position that actually applies; and whether the clause is consistent with "
        "the Employer's Requirements.\n"
        "Useful tools: fidic_merge_gc_pc (effective text after the Particular Conditions), "
        "fidic_calculate_time_bar (the time limits in the clause), "
        "fidic_check_pc_consistency (Particular vs General Conditions), "
        "fidic_search_er (what the Employer's Requirements say).\n"
        "When you refer to the standard conditions, cite the sub-clause number only; do not "
        "restate their wording."
    ),
    "zh": (
        "【领域：FIDIC 工程合同】\n"
        "本合同以 FIDIC 条件为基础。重点关注：发包人与承包商之间的风险分配；"
        "索赔时效与通知期限（逾期通知可能导致丧失索赔权）；专用条件对通用条件的修改"
        "（以修改后的实际约定为准进行审查）；条款与发包人要求是否一致。\n"
        "可用工具：fidic_merge_gc_pc（专用条件修改后的有效条款文本）、"
        "fidic_calculate_time_bar（条款中的各项期限）、"
        "fidic_check_pc_consistency（专用条件与通用条件的一致性）、"
        "fidic_search_er（发包人要求中的相关内容）。\n"
        "提及标准条件时只引用子条款编号，不要复述其措辞。"
    ),
}
"""The domain section of the agent's prompt, by language ('en', 'zh')."""
