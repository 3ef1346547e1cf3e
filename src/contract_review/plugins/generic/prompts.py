"""Guidance for the LLM agent on commercial contracts: what to focus on and which tools help."""

from __future__ import annotations

__all__ = ["PROMPT_HINTS"]

PROMPT_HINTS: dict[str, str] = {
    "en": (
        "## Domain: commercial contract\n"
        "Review it as a commercial contract: liability and its limits, payment, breach and "
        "termination, IP and confidentiality, dispute resolution, and terms that are one-sided, "
        "unclear or missing."
    ),
    "zh": (
        "【领域：商业合同】\n"
        "按一般商业合同审查：责任及其限制、付款、违约与解除、知识产权与保密、争议解决，"
        "以及显失公平、含义不清或缺失的约定。"
    ),
}
"""The domain section of the agent's prompt, by language ('en', 'zh')."""
