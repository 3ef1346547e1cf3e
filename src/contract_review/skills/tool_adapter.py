"""Registered skills ⇄ OpenAI function-calling tools (SPEC-19)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from .schema import INTERNAL_FIELDS, SkillRegistration, strip_fields

__all__ = ["INTERNAL_FIELDS", "parse_tool_calls", "skills_to_tool_definitions"]

logger = logging.getLogger(__name__)


def skills_to_tool_definitions(
    skills: Iterable[SkillRegistration],
    *,
    domain_filter: str | None = None,
    category_filter: str | None = None,
    exclude_internal_fields: frozenset[str] = INTERNAL_FIELDS,
) -> list[dict[str, Any]]:
    """Active skills as an OpenAI `tools` array.

    `domain_filter` keeps generic ('*') skills plus those of that domain; `category_filter`
    keeps one category; `exclude_internal_fields` are removed from every parameter schema.
    """
    tools: list[dict[str, Any]] = []
    for skill in skills:
        if skill.status != "active":
            continue
        if domain_filter and skill.domain not in ("*", domain_filter):
            continue
        if category_filter and skill.category != category_filter:
            continue
        tool = skill.to_tool_definition()
        strip_fields(tool["function"]["parameters"], exclude_internal_fields)
        tools.append(tool)
    return tools


def parse_tool_calls(tool_calls: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-style tool calls → `[{"id", "skill_id", "arguments"}]`.

    Arguments that are not a JSON object (malformed JSON, a list, a number) become `{}` with a
    warning, so one bad call cannot break a whole agent turn.
    """
    parsed: list[dict[str, Any]] = []
    for tc in tool_calls:
        func = tc.get("function") or {}
        skill_id = str(func.get("name", ""))
        raw = func.get("arguments", "{}")
        arguments: Any
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except (json.JSONDecodeError, TypeError):
            logger.info("unparseable tool-call arguments: skill=%s raw=%.200r", skill_id, raw)
            arguments = {}
        if not isinstance(arguments, dict):
            logger.info("tool-call arguments are not an object: skill=%s", skill_id)
            arguments = {}
        parsed.append({"id": str(tc.get("id", "")), "skill_id": skill_id, "arguments": arguments})
    return parsed
