"""SkillDispatcher: registers skills and runs them — locally or remotely — with limits.

Every call ends in a `SkillResult`: unknown skills, invalid input, handler errors, timeouts and
remote failures all come back as `success=False` with a one-line `error`; no exception leaves
`call` or `prepare_and_call` (cancellation excepted).
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import logging
import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ValidationError

from contract_review.config import Settings, get_settings
from contract_review.errors import SkillError
from contract_review.models import DocumentStructure

from ._remote import RemoteSkillClient, RemoteSkillError
from .context import BaselineSource, SkillState
from .schema import (
    INTERNAL_FIELDS,
    GenericSkillInput,
    HandlerRef,
    SkillBackend,
    SkillRegistration,
    SkillResult,
)
from .state import StateView, review_context
from .tool_adapter import skills_to_tool_definitions

__all__ = ["BaselinesOf", "SkillDispatcher", "resolve_handler"]

BaselinesOf = Callable[[str | None], BaselineSource | None]
"""Domain id → that domain's standard positions (the plugin registry provides one)."""

logger = logging.getLogger(__name__)


@lru_cache(maxsize=256)
def _import(path: str) -> Callable[..., Any]:
    module_name, _, attr = path.rpartition(".")
    if not module_name:
        raise ImportError(f"not a dotted path: {path!r}")
    obj = getattr(importlib.import_module(module_name), attr)
    if not callable(obj):
        raise ImportError(f"{path} is not callable")
    return obj  # type: ignore[no-any-return]


def resolve_handler(ref: HandlerRef) -> Callable[..., Any]:
    """The function a registration names (dotted path) or holds."""
    return _import(ref) if isinstance(ref, str) else ref


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def _validation_summary(exc: ValidationError) -> str:
    parts = [f"{'.'.join(map(str, e['loc'])) or 'input'}: {e['msg']}" for e in exc.errors()[:3]]
    more = f" (+{exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
    return "; ".join(parts) + more


class SkillDispatcher:
    """Holds skill registrations and calls them."""

    def __init__(
        self,
        *,
        settings: Settings | None = None,
        remote_client: RemoteSkillClient | None = None,
        baselines_of: BaselinesOf | None = None,
    ) -> None:
        self.settings = settings or get_settings()
        self.baselines_of = baselines_of
        """Gives a context without baselines (a state given as a mapping) its domain's."""
        self._skills: dict[str, SkillRegistration] = {}
        # JSON schemas cost ~40 ms a skill to generate; agents ask for them once per clause.
        self._tool_definitions: dict[tuple[str | None, str | None], list[dict[str, Any]]] = {}
        if remote_client is None and self.settings.remote_skills_base_url:
            remote_client = RemoteSkillClient(
                self.settings.remote_skills_base_url,
                (
                    self.settings.remote_skills_api_key.get_secret_value()
                    if self.settings.remote_skills_api_key
                    else None
                ),
                poll_interval=self.settings.remote_skills_poll_interval,
            )
        self.remote_client = remote_client

    # -- registry -------------------------------------------------------------------------

    def register(self, registration: SkillRegistration) -> None:
        """Add a skill; a later registration of the same id replaces the earlier one."""
        if registration.skill_id in self._skills:
            logger.info("skill %s re-registered", registration.skill_id)
        self._skills[registration.skill_id] = registration
        self._tool_definitions.clear()

    def get_registration(self, skill_id: str) -> SkillRegistration | None:
        """The registration of `skill_id`, or None."""
        return self._skills.get(skill_id)

    def list_skills(self) -> list[SkillRegistration]:
        """All registrations, in registration order."""
        return list(self._skills.values())

    @property
    def skill_ids(self) -> list[str]:
        """Ids of all registered skills."""
        return list(self._skills)

    def get_tool_definitions(
        self, *, domain_filter: str | None = None, category_filter: str | None = None
    ) -> list[dict[str, Any]]:
        """OpenAI tool definitions of the active skills (generic + `domain_filter`).

        Built once per filter and shared: callers must not modify them."""
        key = (domain_filter, category_filter)
        if key not in self._tool_definitions:
            self._tool_definitions[key] = skills_to_tool_definitions(
                self.list_skills(), domain_filter=domain_filter, category_filter=category_filter
            )
        return list(self._tool_definitions[key])

    # -- calls ----------------------------------------------------------------------------

    async def call(self, skill_id: str, input_data: BaseModel | Mapping[str, Any]) -> SkillResult:
        """Run one skill on `input_data` (validated against its input schema)."""
        start = time.perf_counter()

        def fail(message: str) -> SkillResult:
            elapsed = (time.perf_counter() - start) * 1000
            return SkillResult(skill_id=skill_id, success=False, error=message, duration_ms=elapsed)

        reg = self._skills.get(skill_id)
        if reg is None:
            return fail(f"unknown skill '{skill_id}'")
        if reg.status != "active":
            return fail(f"skill '{skill_id}' is not active (status: {reg.status})")
        try:
            payload = _validate_input(reg, input_data)
        except ValidationError as exc:
            return fail(f"invalid input for {skill_id}: {_validation_summary(exc)}")
        timeout = reg.timeout_seconds or self.settings.skill_timeout_seconds
        try:
            raw = await asyncio.wait_for(self._run(reg, payload), timeout)
            data = _validate_output(reg, raw)
        except TimeoutError:
            return fail(f"{skill_id} timed out after {timeout:g} s")
        except (SkillError, RemoteSkillError) as exc:
            return fail(str(exc))
        except ValidationError as exc:
            return fail(f"invalid output from {skill_id}: {_validation_summary(exc)}")
        except Exception as exc:  # a skill bug must not take the review down
            logger.exception("skill %s failed", skill_id)
            return fail(f"{skill_id} failed: {_one_line(exc)}")
        elapsed = (time.perf_counter() - start) * 1000
        return SkillResult(skill_id=skill_id, success=True, data=data, duration_ms=elapsed)

    async def _run(self, reg: SkillRegistration, payload: BaseModel) -> Any:
        if reg.backend is SkillBackend.REMOTE:
            if self.remote_client is None:
                raise SkillError(
                    f"{reg.skill_id} runs on the remote skill service, but "
                    "REMOTE_SKILLS_BASE_URL is not set"
                )
            if not reg.remote_workflow_id:
                raise SkillError(f"{reg.skill_id} has no remote_workflow_id")
            return await self.remote_client.run(
                reg.remote_workflow_id, payload.model_dump(mode="json")
            )
        if reg.local_handler is None:
            raise SkillError(f"{reg.skill_id} has no local handler")
        try:
            handler = resolve_handler(reg.local_handler)
        except (ImportError, AttributeError) as exc:
            raise SkillError(f"{reg.skill_id}: handler not importable ({exc})") from None
        if inspect.iscoroutinefunction(handler):
            return await handler(payload)
        # Sync handlers run in a worker thread so the time limit (and other clauses) still work.
        return await asyncio.to_thread(handler, payload)

    async def prepare_and_call(
        self,
        skill_id: str,
        clause_id: str,
        primary_structure: DocumentStructure | None,
        state: SkillState,
        *,
        llm_arguments: Mapping[str, Any] | None = None,
    ) -> SkillResult:
        """Build the skill's input with its own `prepare_input`, apply the LLM's business
        arguments on top (never internal fields), and call it.

        A `clause_id` among `llm_arguments` retargets the call to that clause.
        """
        reg = self._skills.get(skill_id)
        if reg is None:
            return SkillResult(
                skill_id=skill_id, success=False, error=f"unknown skill '{skill_id}'"
            )
        llm_arguments = dict(llm_arguments or {})
        target = str(llm_arguments.get("clause_id") or clause_id)
        try:
            model = self._prepare(reg, target, primary_structure, state, llm_arguments)
        except ValidationError as exc:
            return SkillResult(
                skill_id=skill_id,
                success=False,
                error=f"invalid arguments for {skill_id}: {_validation_summary(exc)}",
            )
        except SkillError as exc:
            return SkillResult(skill_id=skill_id, success=False, error=str(exc))
        except Exception as exc:
            logger.exception("prepare_input of %s failed", skill_id)
            return SkillResult(
                skill_id=skill_id,
                success=False,
                error=f"could not prepare input for {skill_id}: {_one_line(exc)}",
            )
        return await self.call(skill_id, model)

    def _prepare(
        self,
        reg: SkillRegistration,
        clause_id: str,
        structure: DocumentStructure | None,
        state: SkillState,
        llm_arguments: dict[str, Any],
    ) -> BaseModel:
        if reg.prepare_input_fn is None:
            return GenericSkillInput(
                clause_id=clause_id,
                document_structure=structure,
                state_snapshot={k: v for k, v in llm_arguments.items() if k != "clause_id"},
            )
        context = review_context(state, self.baselines_of, structure)
        # A SPEC-19 prepare_input reads the state as a mapping; ours read the context behind it.
        extras = state if isinstance(state, Mapping) and not isinstance(state, StateView) else None
        view = StateView(context, extras)
        prepared = resolve_handler(reg.prepare_input_fn)(clause_id, structure, view)
        if not isinstance(prepared, BaseModel):
            raise SkillError(f"prepare_input of {reg.skill_id} returned no model")
        fields = type(prepared).model_fields
        business = {
            k: v for k, v in llm_arguments.items() if k in fields and k not in INTERNAL_FIELDS
        }
        if not business:
            return prepared
        # Re-validate with the LLM's values; internal fields keep the prepared objects.
        values = {name: getattr(prepared, name) for name in fields}
        values.update(business)
        return type(prepared).model_validate(values)


def _validate_input(reg: SkillRegistration, data: BaseModel | Mapping[str, Any]) -> BaseModel:
    schema = reg.input_schema
    if schema is None:
        if isinstance(data, BaseModel):
            return data
        return GenericSkillInput.model_validate(dict(data))
    if isinstance(data, schema):
        return data
    if isinstance(data, BaseModel):
        values = {name: getattr(data, name) for name in type(data).model_fields}
        return schema.model_validate(values)
    return schema.model_validate(dict(data))


def _validate_output(reg: SkillRegistration, raw: Any) -> dict[str, Any]:
    schema = reg.output_schema
    if isinstance(raw, BaseModel):
        model = (
            raw
            if schema is None or isinstance(raw, schema)
            else schema.model_validate(raw.model_dump())
        )
        return model.model_dump(mode="json")
    if not isinstance(raw, Mapping):
        raise SkillError(f"{reg.skill_id} returned {type(raw).__name__}, not an object")
    if schema is None:
        return dict(raw)
    return schema.model_validate(dict(raw)).model_dump(mode="json")
