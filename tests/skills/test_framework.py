"""The skill framework: registrations as tools, the dispatcher's guarantees, the remote backend."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field

from contract_review.analysis.cache import per_structure
from contract_review.config import Settings
from contract_review.errors import SkillError
from contract_review.models import DocumentStructure
from contract_review.plugins import create_dispatcher
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.schema import (
    INTERNAL_FIELDS,
    GenericSkillInput,
    SkillBackend,
    SkillRegistration,
)
from contract_review.skills.tool_adapter import parse_tool_calls, skills_to_tool_definitions
from contract_review.structure_parser import StructureParser

# --------------------------------------------------------------------------------------------
# A toy skill with every kind of field
# --------------------------------------------------------------------------------------------


class EchoInput(BaseModel):
    clause_id: str = Field(description="Clause.")
    query: str = Field("", description="Free text.")
    top_k: int = Field(3, ge=1, le=10, description="How many.")
    document_structure: DocumentStructure | None = Field(None, description="internal")
    criteria_data: list[dict[str, Any]] = Field(default_factory=list, description="internal")


class EchoOutput(BaseModel):
    clause_id: str
    query: str
    top_k: int
    has_structure: bool
    criteria: int


def echo(inp: EchoInput) -> EchoOutput:
    if inp.query == "fail":
        raise SkillError("asked to fail")
    if inp.query == "bug":
        raise ZeroDivisionError("division by zero")
    if inp.query == "sleep":
        time.sleep(2)
    if inp.query == "bad-output":
        return {"clause_id": inp.clause_id}  # type: ignore[return-value]
    return EchoOutput(
        clause_id=inp.clause_id,
        query=inp.query,
        top_k=inp.top_k,
        has_structure=inp.document_structure is not None,
        criteria=len(inp.criteria_data),
    )


async def aecho(inp: EchoInput) -> EchoOutput:
    if inp.query == "sleep":
        await asyncio.sleep(2)
    return echo(inp)


def prepare_echo(clause_id: str, structure: DocumentStructure | None, state: Any) -> EchoInput:
    if clause_id == "nope":
        raise SkillError("clause 'nope' not found")
    return EchoInput(
        clause_id=clause_id,
        query=str(state.get("default_query", "")),
        document_structure=structure,
        criteria_data=[{"topic": "x"}],
    )


def _reg(**overrides: Any) -> SkillRegistration:
    values: dict[str, Any] = {
        "skill_id": "echo",
        "name": "Echo",
        "description": "Echo the input back.",
        "input_schema": EchoInput,
        "output_schema": EchoOutput,
        "local_handler": echo,
        "prepare_input_fn": prepare_echo,
        "timeout_seconds": 0.5,
    }
    values.update(overrides)
    return SkillRegistration(**values)


def _dispatcher(*regs: SkillRegistration) -> SkillDispatcher:
    d = SkillDispatcher(settings=Settings())
    for r in regs or (_reg(),):
        d.register(r)
    return d


STRUCTURE = StructureParser().parse("1. Scope\nThe Supplier supplies.\n2. Price\nFixed.\n")

# --------------------------------------------------------------------------------------------
# Tool definitions
# --------------------------------------------------------------------------------------------


def test_tool_definition_has_only_business_parameters_and_is_valid_json_schema() -> None:
    tool = _reg().to_tool_definition()
    assert tool["type"] == "function"
    fn = tool["function"]
    assert fn["name"] == "echo"
    assert fn["description"] == "Echo the input back."
    params = fn["parameters"]
    assert set(params["properties"]) == {"clause_id", "query", "top_k"}
    assert params["required"] == ["clause_id"]
    assert "$defs" not in params  # DocumentStructure's definitions went with the field
    Draft202012Validator.check_schema(params)
    Draft202012Validator(params).validate({"clause_id": "1", "top_k": 2})


def test_every_builtin_skill_is_an_llm_ready_tool() -> None:
    dispatcher = create_dispatcher()
    tools = dispatcher.get_tool_definitions()
    assert [t["function"]["name"] for t in tools] == dispatcher.skill_ids
    for tool in tools:
        fn = tool["function"]
        assert len(fn["description"]) > 80, fn["name"]
        Draft202012Validator.check_schema(fn["parameters"])
        assert not set(fn["parameters"]["properties"]) & INTERNAL_FIELDS
        assert "clause_id" in fn["parameters"]["properties"]


def test_filters_by_domain_category_and_status() -> None:
    skills = [
        _reg(skill_id="a"),
        _reg(skill_id="b", domain="fidic", category="validation"),
        _reg(skill_id="c", domain="sha_spa"),
        _reg(skill_id="d", status="deprecated"),
    ]

    def names(**kw: Any) -> list[str]:
        return [t["function"]["name"] for t in skills_to_tool_definitions(skills, **kw)]

    assert names() == ["a", "b", "c"]
    assert names(domain_filter="fidic") == ["a", "b"]
    assert names(category_filter="validation") == ["b"]
    assert names(exclude_internal_fields=frozenset({"query"})) == ["a", "b", "c"]
    stripped = skills_to_tool_definitions(skills[:1], exclude_internal_fields=frozenset({"query"}))
    assert "query" not in stripped[0]["function"]["parameters"]["properties"]
    assert skills_to_tool_definitions([]) == []


def test_registration_without_input_schema() -> None:
    params = _reg(input_schema=None).to_tool_definition()["function"]["parameters"]
    assert params == {"type": "object", "properties": {}, "required": []}


def test_parse_tool_calls() -> None:
    calls: list[dict[str, Any]] = [
        {"id": "c1", "function": {"name": "echo", "arguments": '{"clause_id": "4.1"}'}},
        {"id": "c2", "function": {"name": "echo", "arguments": "{not json"}},
        {"id": "c3", "function": {"name": "echo", "arguments": {"clause_id": "2"}}},
        {"id": "c4", "function": {"name": "echo", "arguments": "[1, 2]"}},
        {"function": {"name": "x"}},
    ]
    assert parse_tool_calls(calls) == [
        {"id": "c1", "skill_id": "echo", "arguments": {"clause_id": "4.1"}},
        {"id": "c2", "skill_id": "echo", "arguments": {}},
        {"id": "c3", "skill_id": "echo", "arguments": {"clause_id": "2"}},
        {"id": "c4", "skill_id": "echo", "arguments": {}},
        {"id": "", "skill_id": "x", "arguments": {}},
    ]


# --------------------------------------------------------------------------------------------
# Dispatcher
# --------------------------------------------------------------------------------------------


def test_registry_methods() -> None:
    d = _dispatcher(_reg(), _reg(skill_id="other"))
    assert d.skill_ids == ["echo", "other"]
    assert d.get_registration("echo") is not None
    assert d.get_registration("missing") is None
    d.register(_reg(description="replaced"))
    reg = d.get_registration("echo")
    assert reg is not None
    assert reg.description == "replaced"
    assert len(d.list_skills()) == 2


def test_call_validates_input_and_returns_output_data() -> None:
    d = _dispatcher()
    result = asyncio.run(d.call("echo", {"clause_id": "1", "query": "hi"}))
    assert result.success, result.error
    assert result.data == {
        "clause_id": "1",
        "query": "hi",
        "top_k": 3,
        "has_structure": False,
        "criteria": 0,
    }
    assert result.duration_ms >= 0


@pytest.mark.parametrize(
    ("skill_id", "payload", "error"),
    [
        ("missing", {"clause_id": "1"}, "unknown skill 'missing'"),
        ("echo", {"query": "x"}, "invalid input for echo: clause_id: Field required"),
        ("echo", {"clause_id": "1", "top_k": 99}, "invalid input for echo: top_k"),
        ("echo", {"clause_id": "1", "query": "fail"}, "asked to fail"),
        ("echo", {"clause_id": "1", "query": "bug"}, "echo failed: ZeroDivisionError"),
        ("echo", {"clause_id": "1", "query": "sleep"}, "echo timed out after 0.5 s"),
        ("echo", {"clause_id": "1", "query": "bad-output"}, "invalid output from echo"),
    ],
)
def test_every_failure_is_a_skill_result(
    skill_id: str, payload: dict[str, Any], error: str
) -> None:
    result = asyncio.run(_dispatcher().call(skill_id, payload))
    assert not result.success
    assert result.error is not None
    assert error in result.error
    assert "\n" not in result.error


def test_async_handler_and_its_timeout() -> None:
    d = _dispatcher(_reg(local_handler=aecho))
    ok = asyncio.run(d.call("echo", {"clause_id": "1", "query": "q"}))
    assert ok.success
    slow = asyncio.run(d.call("echo", {"clause_id": "1", "query": "sleep"}))
    assert not slow.success
    assert slow.error == "echo timed out after 0.5 s"


def test_dotted_path_handlers_and_unimportable_ones() -> None:
    d = _dispatcher(
        _reg(local_handler="tests.skills.test_framework.echo"),
        _reg(skill_id="broken", local_handler="tests.skills.test_framework.nothing_here"),
        _reg(skill_id="off", status="disabled"),
    )
    assert asyncio.run(d.call("echo", {"clause_id": "1"})).success
    broken = asyncio.run(d.call("broken", {"clause_id": "1"}))
    assert broken.error is not None
    assert "handler not importable" in broken.error
    off = asyncio.run(d.call("off", {"clause_id": "1"}))
    assert off.error == "skill 'off' is not active (status: disabled)"


def test_prepare_and_call_applies_business_arguments_only() -> None:
    d = _dispatcher()
    result = asyncio.run(
        d.prepare_and_call(
            "echo",
            "1",
            STRUCTURE,
            {"default_query": "from state"},
            llm_arguments={
                "query": "from llm",
                "top_k": 5,
                "document_structure": "overwritten?",
                "criteria_data": [],
                "unknown": 1,
            },
        )
    )
    assert result.success, result.error
    assert result.data == {
        "clause_id": "1",
        "query": "from llm",
        "top_k": 5,
        "has_structure": True,
        "criteria": 1,
    }


def test_prepare_and_call_keeps_prepared_values_without_llm_arguments() -> None:
    result = asyncio.run(
        _dispatcher().prepare_and_call("echo", "2", STRUCTURE, {"default_query": "s"})
    )
    assert result.data["query"] == "s"
    assert result.data["clause_id"] == "2"


def test_prepare_and_call_retargets_clause_and_reports_errors() -> None:
    d = _dispatcher()
    moved = asyncio.run(
        d.prepare_and_call("echo", "1", STRUCTURE, {}, llm_arguments={"clause_id": "2"})
    )
    assert moved.data["clause_id"] == "2"
    bad = asyncio.run(d.prepare_and_call("echo", "nope", STRUCTURE, {}))
    assert bad.error == "clause 'nope' not found"
    invalid = asyncio.run(
        d.prepare_and_call("echo", "1", STRUCTURE, {}, llm_arguments={"top_k": "x"})
    )
    assert invalid.error is not None
    assert invalid.error.startswith("invalid arguments for echo: top_k")
    unknown = asyncio.run(d.prepare_and_call("nope", "1", STRUCTURE, {}))
    assert unknown.error == "unknown skill 'nope'"


def test_prepare_and_call_without_prepare_input_uses_generic_input() -> None:
    seen: list[GenericSkillInput] = []

    def handler(inp: GenericSkillInput) -> dict[str, Any]:
        seen.append(inp)
        return {"ok": True}

    d = _dispatcher(
        _reg(input_schema=None, output_schema=None, prepare_input_fn=None, local_handler=handler)
    )
    result = asyncio.run(d.prepare_and_call("echo", "1", STRUCTURE, {}, llm_arguments={"q": 1}))
    assert result.success
    assert result.data == {"ok": True}
    assert seen[0].state_snapshot == {"q": 1}
    assert seen[0].document_structure is STRUCTURE


def test_builtin_skills_through_the_dispatcher() -> None:
    d = create_dispatcher()
    ctx = asyncio.run(d.prepare_and_call("get_clause_context", "2", STRUCTURE, {}))
    assert ctx.success
    assert ctx.data["title"] == "Price"
    assert ctx.data["previous"] == {"clause_id": "1", "title": "Scope"}
    missing = asyncio.run(d.prepare_and_call("get_clause_context", "9", STRUCTURE, {}))
    assert missing.error == "clause '9' not found; existing ids include: 1, 2"


# --------------------------------------------------------------------------------------------
# Remote backend against a local HTTP server
# --------------------------------------------------------------------------------------------


class _Service(BaseHTTPRequestHandler):
    runs: ClassVar[dict[str, int]] = {}

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: Any, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        payload = json.loads(self.rfile.read(length))["input"]
        if self.headers.get("Authorization") != "Bearer secret":
            self._send(401, {"error": "no"})
            return
        workflow = self.path.split("/")[3]
        if workflow == "instant":
            self._send(200, {"status": "succeeded", "output": {"echo": payload["clause_id"]}})
        elif workflow == "polled":
            _Service.runs["r1"] = 0
            self._send(202, {"run_id": "r1", "status": "running"})
        elif workflow == "fails":
            self._send(200, {"status": "failed", "error": "model overloaded"})
        elif workflow == "crash":
            self._send(500, {})
        elif workflow == "garbage":
            self._send(200, None, raw=b"<html>")
        elif workflow == "slow":
            time.sleep(1.5)
            self._send(200, {"status": "succeeded", "output": {}})

    def do_GET(self) -> None:
        run_id = self.path.rsplit("/", 1)[-1]
        _Service.runs[run_id] = _Service.runs.get(run_id, 0) + 1
        if _Service.runs[run_id] < 3:
            self._send(200, {"run_id": run_id, "status": "running"})
        else:
            self._send(200, {"run_id": run_id, "status": "succeeded", "output": {"polls": 3}})


@pytest.fixture
def service_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Service)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _remote(url: str, workflow: str, key: str = "secret") -> SkillDispatcher:
    settings = Settings(
        remote_skills_base_url=url, remote_skills_api_key=key, remote_skills_poll_interval=0.01
    )
    d = SkillDispatcher(settings=settings)
    d.register(
        _reg(
            backend=SkillBackend.REMOTE,
            local_handler=None,
            remote_workflow_id=workflow,
            output_schema=None,
            timeout_seconds=1.0,
        )
    )
    return d


def test_remote_skill_answers_at_once(service_url: str) -> None:
    result = asyncio.run(_remote(service_url, "instant").call("echo", {"clause_id": "7"}))
    assert result.success, result.error
    assert result.data == {"echo": "7"}


def test_remote_skill_is_polled_until_done(service_url: str) -> None:
    result = asyncio.run(_remote(service_url, "polled").call("echo", {"clause_id": "7"}))
    assert result.success, result.error
    assert result.data == {"polls": 3}


@pytest.mark.parametrize(
    ("workflow", "key", "error"),
    [
        ("fails", "secret", "remote workflow failed: model overloaded"),
        ("crash", "secret", "remote service answered HTTP 500"),
        ("garbage", "secret", "remote service answered with invalid JSON"),
        ("instant", "wrong", "remote service answered HTTP 401"),
        ("slow", "secret", "echo timed out after 1 s"),
    ],
)
def test_remote_failures_are_results(service_url: str, workflow: str, key: str, error: str) -> None:
    result = asyncio.run(_remote(service_url, workflow, key).call("echo", {"clause_id": "7"}))
    assert not result.success
    assert result.error == error


def test_remote_service_down() -> None:
    result = asyncio.run(_remote("http://127.0.0.1:9", "instant").call("echo", {"clause_id": "1"}))
    assert result.error is not None
    assert result.error.startswith("remote service unreachable")


def test_remote_skill_without_configured_service() -> None:
    d = SkillDispatcher(settings=Settings())
    d.register(_reg(backend=SkillBackend.REMOTE, remote_workflow_id="w", local_handler=None))
    result = asyncio.run(d.call("echo", {"clause_id": "1"}))
    assert (
        result.error
        == "echo runs on the remote skill service, but REMOTE_SKILLS_BASE_URL is not set"
    )


def test_a_document_analysis_is_computed_once_for_concurrent_callers() -> None:
    """Clause branches ask for the same document's analysis at once: one computes it."""
    calls: list[int] = []

    @per_structure()
    def slow(structure: DocumentStructure) -> int:
        calls.append(1)
        time.sleep(0.05)
        return structure.text_length

    structure = DocumentStructure(document_id="d", clauses=[], total_clauses=0, text_length=7)
    results: list[int] = []
    threads = [threading.Thread(target=lambda: results.append(slow(structure))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [7] * 8
    assert len(calls) == 1
