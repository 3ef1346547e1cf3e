"""A skill dispatcher for agent tests: the built-in skills offered as tools, every call recorded
and answered by `respond` instead of running the skill."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contract_review.models import DocumentStructure
from contract_review.skills import builtin_skills
from contract_review.skills.context import SkillState
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.schema import SkillResult


class RecordingDispatcher(SkillDispatcher):
    """The built-in skills as tools; `prepare_and_call` records (skill, clause, arguments) and
    returns what `respond` gives (override it in a subclass)."""

    def __init__(self) -> None:
        super().__init__()
        for registration in builtin_skills():
            self.register(registration)
        self.seen: list[tuple[str, str, dict[str, Any]]] = []
        """Each call: skill id, clause id, the model's arguments."""

    async def respond(self, skill_id: str, clause_id: str) -> SkillResult:
        """The result of one call (default: success with the clause id)."""
        return SkillResult(skill_id=skill_id, success=True, data={"clause_id": clause_id})

    async def prepare_and_call(
        self,
        skill_id: str,
        clause_id: str,
        primary_structure: DocumentStructure | None,
        state: SkillState,
        *,
        llm_arguments: Mapping[str, Any] | None = None,
    ) -> SkillResult:
        """Record the call and answer it with `respond`."""
        self.seen.append((skill_id, clause_id, dict(llm_arguments or {})))
        return await self.respond(skill_id, clause_id)
