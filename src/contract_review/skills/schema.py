"""What a skill is: its registration (self-description), its result, and the generic input.

A skill is one capability the review can call — deterministic code in this package (local) or a
workflow on a remote service. Its registration carries everything an LLM needs to call it as a
tool (`to_tool_definition`) and everything the dispatcher needs to run it.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from enum import StrEnum
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PydanticUserError

from contract_review.models import DocumentStructure

from .risks import FavourableRule, RiskRule

logger = logging.getLogger(__name__)

__all__ = [
    "INTERNAL_FIELDS",
    "GenericSkillInput",
    "SkillBackend",
    "SkillRegistration",
    "SkillResult",
]

INTERNAL_FIELDS: frozenset[str] = frozenset(
    {
        "document_structure",
        "state_snapshot",
        "criteria_data",
        "criteria_file_path",
        "review_context",
        "baseline_structure",
        "reference_documents",
    }
)
"""Input fields the system fills in itself; never shown to an LLM nor overwritten by it."""


class SkillBackend(StrEnum):
    """Where a skill runs."""

    LOCAL = "local"
    """A Python function of this package (sync or async)."""
    REMOTE = "remote"
    """A workflow on an HTTP service (the seeds' "Refly" backend)."""


class SkillResult(BaseModel):
    """The outcome of one skill call. Failures are results too: no exception leaves a call."""

    model_config = ConfigDict(extra="forbid")

    skill_id: str = Field(description="Skill called.")
    success: bool = Field(description="Whether the call produced valid output.")
    data: dict[str, Any] = Field(
        default_factory=dict, description="The output, as JSON-compatible data (output_schema)."
    )
    error: str | None = Field(None, description="Why the call failed, in one line.")
    duration_ms: float = Field(0.0, ge=0, description="Wall-clock duration of the call.")


class GenericSkillInput(BaseModel):
    """Input of a skill that declares no input schema of its own."""

    model_config = ConfigDict(extra="allow")

    clause_id: str = Field(description="Clause to work on.")
    document_structure: DocumentStructure | None = Field(
        None, description="Structure of the contract (filled in by the system)."
    )
    state_snapshot: dict[str, Any] = Field(
        default_factory=dict, description="Extra arguments (filled in by the system)."
    )


HandlerRef = str | Callable[..., Any]
"""A handler given as a dotted path ('package.module.function') or as the function itself."""


class SkillRegistration(BaseModel):
    """Self-description of one skill (SPEC-19)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    skill_id: str = Field(description="Unique id; also the tool name an LLM calls.")
    name: str = Field(description="Human-readable name.")
    description: str = Field("", description="What the skill does, written for an LLM.")
    input_schema: type[BaseModel] | None = Field(None, description="Pydantic model of the input.")
    output_schema: type[BaseModel] | None = Field(None, description="Pydantic model of the output.")
    backend: SkillBackend = Field(SkillBackend.LOCAL, description="local or remote.")
    local_handler: HandlerRef | None = Field(
        None, description="Handler of a local skill: dotted path or callable."
    )
    remote_workflow_id: str | None = Field(
        None, description="Workflow id on the remote service (remote skills)."
    )
    domain: str = Field("*", description="'*' (generic), 'fidic' or 'sha_spa'.")
    category: str = Field("general", description="e.g. 'analysis', 'extraction', 'drafting'.")
    status: str = Field("active", description="'active' skills are offered; others are not.")
    prepare_input_fn: HandlerRef | None = Field(
        None,
        description="Builds the input from (clause_id, primary_structure, state): dotted path "
        "or callable.",
    )
    timeout_seconds: float | None = Field(
        None, gt=0, description="Per-call time limit; defaults to the dispatcher's."
    )
    risk_rule: RiskRule | None = Field(
        None,
        exclude=True,
        description="Turns the skill's typed output into risks (deterministic mode); None for "
        "skills that inform (context, retrieval) without raising risks themselves.",
    )
    judges_given_text: bool = Field(
        True,
        description="Whether its findings come from the clause text it is given, so a change "
        "to that text is checked by running it again on the changed text; False when they come "
        "from another document (the FIDIC Particular Conditions' instructions).",
    )
    favourable_rule: FavourableRule | None = Field(
        None,
        exclude=True,
        description="Turns the skill's typed output into the terms in our favour it found "
        "(the report's 'favourable to us'); None for most skills.",
    )

    def to_tool_definition(self) -> dict[str, Any]:
        """This skill as an OpenAI function-calling tool, internal fields removed."""
        parameters: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
        if self.input_schema is not None:
            try:
                parameters = copy.deepcopy(_tool_parameters(self.input_schema))
            except PydanticUserError as exc:  # SPEC-19 §3.1: a schema pydantic cannot describe
                logger.warning("skill %s: no tool parameters (%s)", self.skill_id, exc)
        return {
            "type": "function",
            "function": {
                "name": self.skill_id,
                "description": self.description,
                "parameters": parameters,
            },
        }


@cache
def _tool_parameters(model: type[BaseModel]) -> dict[str, Any]:
    """The business parameters of an input model as JSON Schema (cached: generating a schema
    takes ~40 ms, and every review's agent needs all of them)."""
    schema = model.model_json_schema()
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": copy.deepcopy(schema.get("properties", {})),
        "required": list(schema.get("required", [])),
    }
    if "$defs" in schema:
        parameters["$defs"] = copy.deepcopy(schema["$defs"])
    strip_fields(parameters, INTERNAL_FIELDS)
    return parameters


def strip_fields(parameters: dict[str, Any], names: frozenset[str]) -> None:
    """Remove `names` from a JSON-Schema object in place, and `$defs` nothing uses any more."""
    props: dict[str, Any] = parameters.get("properties", {})
    required: list[str] = parameters.get("required", [])
    for name in names:
        props.pop(name, None)
        if name in required:
            required.remove(name)
    defs: dict[str, Any] | None = parameters.get("$defs")
    if defs is None:
        return
    used: set[str] = set()
    todo = [props]
    while todo:
        node = todo.pop()
        for ref in _refs(node):
            name = ref.rsplit("/", 1)[-1]
            if name not in used and name in defs:
                used.add(name)
                todo.append(defs[name])
    for name in list(defs):
        if name not in used:
            del defs[name]
    if not defs:
        del parameters["$defs"]


def _refs(node: Any) -> list[str]:
    out: list[str] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            ref = cur.get("$ref")
            if isinstance(ref, str):
                out.append(ref)
            stack.extend(cur.values())
        elif isinstance(cur, list):
            stack.extend(cur)
    return out
