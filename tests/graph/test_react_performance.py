"""SPEC-35 (ReAct performance) and LLM-mode merging, on whole review-graph runs.

Models are in-process doubles (`FunctionModel`, `ScriptedModel`); timings are asserted only
loosely (a loaded 2-core CI machine must pass), concurrency by counters.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig

from contract_review.config import Settings
from contract_review.errors import LLMError
from contract_review.graph.builder import build_review_graph
from contract_review.graph.events import EventType, ReviewEvent
from contract_review.graph.react_agent import run_react_agent
from contract_review.models import ClauseFindings, DocumentStructure, RiskLevel
from contract_review.plugins import create_dispatcher
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.schema import SkillResult
from contract_review.structure_parser import StructureParser
from contract_review.testing import (
    CallInfo,
    FunctionModel,
    ModelTurn,
    RecordingDispatcher,
    ScriptedModel,
)
from tests.graph.contracts import SERVICES_HEAD

CONTRACT = (
    SERVICES_HEAD
    + """
4. Confidentiality
Each party shall keep the other party's confidential information secret.

5. Intellectual Property
All intellectual property created in performing the Services belongs to the Customer.

6. Termination
Either party may terminate this Agreement on 30 days' written notice.

7. Governing Law
This Agreement is governed by the laws of England and Wales.
"""
)

STRUCTURE: DocumentStructure = StructureParser().parse(CONTRACT, document_id="doc-perf")
CLAUSES = [c.clause_id for c in STRUCTURE.clauses if c.kind.value != "preamble"]
STATE: dict[str, Any] = {
    "task_id": "task-perf",
    "our_party": "Supplier",
    "language": "en",
    "domain_id": "generic",
    "documents": [],
}
_REACT_LOGGER = "contract_review.graph.react_agent"


@pytest.fixture(scope="module")
def dispatcher() -> SkillDispatcher:
    """The real dispatcher with every built-in skill (shared: tool schemas are costly)."""
    return create_dispatcher()


def _settings(**overrides: Any) -> Settings:
    # The agent on every clause with the configured budget: the orchestrator, which varies
    # both, has its own tests (test_orchestrator.py).
    values: dict[str, Any] = {
        "use_react_agent": True,
        "react_clause_timeout": 30.0,
        "orchestrator": False,
    }
    values.update(overrides)
    return Settings(**values)


def _item(clause_id: str, skills: list[str]) -> dict[str, Any]:
    return {
        "clause_id": clause_id,
        "clause_name": "",
        "priority": "high",
        "required_skills": skills,
        "description": f"Review clause {clause_id}",
    }


def _review_state(checklist: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    """Review input; no checklist means the generic one (one item per clause)."""
    return {
        "task_id": f"task-{uuid.uuid4().hex[:8]}",
        "our_party": "Supplier",
        "language": "en",
        "domain_id": "generic",
        "documents": [],
        "primary_structure": STRUCTURE,
        "review_checklist": checklist or [],
        "approval_policy": "all",
        **extra,
    }


def _config(max_concurrency: int = 8) -> RunnableConfig:
    """Like `review._config`: the cap on clauses reviewed at once is `max_concurrency`."""
    return {
        "configurable": {"thread_id": f"t-{uuid.uuid4().hex}"},
        "max_concurrency": max_concurrency,
        "recursion_limit": 50 + 10 * len(CLAUSES),
    }


async def _review(
    model: FunctionModel,
    settings: Settings,
    dispatcher: SkillDispatcher,
    *,
    checklist: list[dict[str, Any]] | None = None,
    max_concurrency: int = 8,
    **extra: Any,
) -> dict[str, Any]:
    graph = build_review_graph(
        interrupt_before=[], dispatcher=dispatcher, settings=settings, llm=model
    )
    result: dict[str, Any] = await graph.ainvoke(
        _review_state(checklist, **extra), _config(max_concurrency)
    )
    assert result["is_complete"] is True
    return result


def _findings(result: dict[str, Any]) -> dict[str, ClauseFindings]:
    findings: dict[str, ClauseFindings] = result["findings"]
    return findings


def _answer(text: str) -> FunctionModel:
    """A model that answers `text` at once, every time."""
    return FunctionModel(lambda messages, info: text)


# --------------------------------------------------------------------------------------------
# AC-1: clause time limit → deterministic fallback
# --------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_react_clause_timeout_triggers_fallback(dispatcher: SkillDispatcher) -> None:
    latency = 5.0
    model = FunctionModel(lambda messages, info: "[]", latency=latency)
    settings = _settings(react_clause_timeout=0.3)
    started = time.perf_counter()
    result = await _review(model, settings, dispatcher)
    elapsed = time.perf_counter() - started

    findings = _findings(result)
    assert set(findings) == set(CLAUSES)
    for clause_id, finding in findings.items():
        assert finding.analysis_mode == "deterministic", clause_id
        assert "timed out" in finding.mode_reason
        assert "0.3" in finding.mode_reason
        assert finding.agent is not None
        assert finding.agent.stop_reason == "timeout"
    # the rule findings are kept
    assert [r.risk_type for r in findings["3"].risks] == ["uncapped damages"]
    assert [r.risk_type for r in findings["2"].risks] == ["retention above market"]
    assert {r.risk_type for r in result["all_risks"]} == {
        "uncapped damages",
        "retention above market",
    }
    assert len(model.calls) == len(CLAUSES)
    # clauses time out concurrently: far below one model latency, let alone latency × clauses
    assert elapsed < latency, elapsed


# --------------------------------------------------------------------------------------------
# AC-2: the tool calls of one round run concurrently
# --------------------------------------------------------------------------------------------


class _SlowDispatcher(RecordingDispatcher):
    """Built-in skills offered as tools; each call sleeps, counting calls in flight."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay
        self.active = 0
        self.peak = 0

    @property
    def calls(self) -> int:
        """Calls made so far."""
        return len(self.seen)

    async def respond(self, skill_id: str, clause_id: str) -> SkillResult:
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.active -= 1
        return SkillResult(skill_id=skill_id, success=True, data={"clause_id": clause_id})


@pytest.mark.asyncio
async def test_react_tool_calls_concurrent() -> None:
    slow = _SlowDispatcher(0.3)
    model = ScriptedModel(
        [
            ModelTurn(
                tool_calls=[
                    {"name": "get_clause_context", "id": "c1", "arguments": {"clause_id": "2"}},
                    {"name": "extract_financial_terms", "id": "c2", "arguments": {}},
                    {"name": "cross_reference_check", "id": "c3", "arguments": {}},
                ]
            ),
            "[]",
        ]
    )
    outcome = await run_react_agent(model, slow, [], "2", STRUCTURE, STATE)
    assert slow.calls == 3
    assert slow.peak == 3
    assert outcome.info.stop_reason == "final_answer"
    assert set(outcome.skill_context) == {
        "get_clause_context",
        "extract_financial_terms",
        "cross_reference_check",
    }


# --------------------------------------------------------------------------------------------
# AC-3: the prompt names the suggested skills and the round limit
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "header", "rounds"),
    [("en", "Suggested tools", "at most 4 rounds"), ("zh-CN", "建议工具", "最多 4 轮")],
)
@pytest.mark.asyncio
async def test_react_prompt_includes_suggested_skills(
    dispatcher: SkillDispatcher, language: str, header: str, rounds: str
) -> None:
    model = _answer("[]")
    skills = ["get_clause_context", "extract_financial_terms"]
    await _review(
        model,
        _settings(react_max_iterations=4),
        dispatcher,
        checklist=[_item("2", skills)],
        language=language,
    )
    (first_messages, info), *_ = model.calls
    system = first_messages[0]["content"]
    assert first_messages[0]["role"] == "system"
    assert header in system
    for skill in skills:
        assert f"- {skill}" in system
    assert rounds in system
    assert "retention of 10%" in first_messages[1]["content"]
    offered = {t["function"]["name"] for t in info.tools}
    assert set(skills) <= offered


# --------------------------------------------------------------------------------------------
# AC-4: one structured log line per model step
# --------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_react_iteration_logging(
    dispatcher: SkillDispatcher, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=_REACT_LOGGER)
    model = ScriptedModel(
        [
            ModelTurn(
                tool_calls=[
                    {"name": "get_clause_context", "id": "c1", "arguments": {"clause_id": "2"}},
                    {"name": "extract_financial_terms", "id": "c2", "arguments": {}},
                ]
            ),
            ModelTurn(tool_calls=[{"name": "cross_reference_check", "id": "c3", "arguments": {}}]),
            "[]",
        ]
    )
    outcome = await run_react_agent(model, dispatcher, [], "2", STRUCTURE, STATE)
    lines = [
        r.getMessage()
        for r in caplog.records
        if r.name == _REACT_LOGGER and r.getMessage().startswith("react iteration=")
    ]
    assert len(lines) == outcome.info.steps_taken == len(model.calls) == 3
    for step, line in enumerate(lines, start=1):
        assert f"iteration={step} " in line
        assert "clause=2 " in line
        assert "tools_called=" in line
        assert "elapsed=" in line
    assert "tools_called=['get_clause_context', 'extract_financial_terms']" in lines[0]
    assert "tools_called=['cross_reference_check']" in lines[1]
    assert "tools_called=[]" in lines[2]


# --------------------------------------------------------------------------------------------
# AC-6: clauses reviewed concurrently, up to the run's max_concurrency
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("max_concurrency", [6, 1])
@pytest.mark.asyncio
async def test_clauses_reviewed_concurrently_up_to_max_concurrency(
    dispatcher: SkillDispatcher, max_concurrency: int
) -> None:
    assert len(CLAUSES) > 6
    active = 0
    peak = 0
    full = asyncio.Event()

    async def slow_answer(messages: list[dict[str, Any]], info: CallInfo) -> str:
        # The model's 0.2 s latency is spent here, so overlapping calls are counted.
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        if active >= max_concurrency:
            full.set()
        try:
            # Wait (briefly) for the cap to fill, so a slow machine still reaches it.
            await asyncio.wait_for(full.wait(), 2.0)
            await asyncio.sleep(0.2)
        finally:
            active -= 1
        return "[]"

    model = FunctionModel(slow_answer)
    result = await _review(model, _settings(), dispatcher, max_concurrency=max_concurrency)
    findings = _findings(result)
    assert len(model.calls) == len(CLAUSES)
    assert {f.analysis_mode for f in findings.values()} == {"llm"}
    assert peak == max_concurrency


# --------------------------------------------------------------------------------------------
# LLM mode: the model's risks checked and merged with the rule findings
# --------------------------------------------------------------------------------------------


async def _payment_clause(answer: str, dispatcher: SkillDispatcher) -> ClauseFindings:
    """The findings on clause 2 (payment) when the model gives `answer` and the rules run
    extract_financial_terms."""
    result = await _review(
        _answer(answer),
        _settings(),
        dispatcher,
        checklist=[_item("2", ["extract_financial_terms"])],
    )
    return _findings(result)["2"]


@pytest.mark.asyncio
async def test_llm_risks_are_checked_and_merged(dispatcher: SkillDispatcher) -> None:
    answer = """[
      {"risk_level": "high", "risk_type": "payment period", "description": "Long payment period.",
       "reason": "Cash flow.", "original_text": "within 30 days of receipt"},
      {"risk_level": "medium", "risk_type": "payment trigger", "description": "Invoice trigger.",
       "original_text": "The Customer  shall\\n pay each   invoice"},
      {"risk_level": "high", "risk_type": "governing law", "description": "Invented quote.",
       "original_text": "Governed by the laws of the planet Mars, exclusively."},
      {"risk_level": "medium", "risk_type": "retention", "description": "Retention again.",
       "original_text": "retention of 10%"},
      {"risk_level": "low", "risk_type": "retention", "description": "Retention, lower.",
       "original_text": "10% of each payment"}
    ]"""
    finding = await _payment_clause(answer, dispatcher)
    assert finding.analysis_mode == "llm"
    assert finding.mode_reason == ""
    info = finding.agent
    assert info is not None
    assert info.stop_reason == "final_answer"
    assert info.risks_proposed == 5
    assert info.risks_kept == 2
    assert info.quotes_verbatim == 3
    assert info.quotes_repaired == 1
    assert info.quotes_dropped == 1
    assert info.duplicates == 2

    by_type = {r.risk_type: r for r in finding.risks}
    assert set(by_type) == {"payment period", "payment trigger", "retention above market"}
    verbatim = by_type["payment period"]
    assert verbatim.source_skills[0] == "react_agent"
    assert verbatim.risk_level is RiskLevel.HIGH
    assert verbatim.location is not None
    assert verbatim.location.original_text == "within 30 days of receipt"
    repaired = by_type["payment trigger"]
    assert "react_agent" in repaired.source_skills
    assert repaired.location is not None
    assert repaired.location.original_text == "The Customer shall pay each invoice"
    for risk in finding.risks:
        loc = risk.location
        assert loc is not None
        assert loc.start_offset is not None
        assert loc.end_offset is not None
        assert CONTRACT[loc.start_offset : loc.end_offset] == loc.original_text
    assert by_type["retention above market"].source_skills == ["extract_financial_terms"]
    levels = [r.risk_level for r in finding.risks]
    assert levels == sorted(levels, key=[RiskLevel.HIGH, RiskLevel.MEDIUM, RiskLevel.LOW].index)
    assert any("re-anchored" in note for note in finding.notes)


@pytest.mark.asyncio
async def test_llm_risk_above_the_rule_level_on_its_quote_is_kept(
    dispatcher: SkillDispatcher,
) -> None:
    answer = (
        '[{"risk_level": "high", "risk_type": "retention", "description": "Retention far too '
        'high.", "original_text": "retention of 10%"}]'
    )
    finding = await _payment_clause(answer, dispatcher)
    assert [(r.risk_type, r.risk_level) for r in finding.risks] == [
        ("retention", RiskLevel.HIGH),
        ("retention above market", RiskLevel.MEDIUM),
    ]
    assert finding.agent is not None
    assert finding.agent.duplicates == 0


@pytest.mark.asyncio
async def test_empty_llm_answer_keeps_the_rule_risks(dispatcher: SkillDispatcher) -> None:
    result = await _review(_answer("[]"), _settings(), dispatcher)
    findings = _findings(result)
    assert {f.analysis_mode for f in findings.values()} == {"llm"}
    assert [r.risk_type for r in findings["2"].risks] == ["retention above market"]
    assert [r.risk_type for r in findings["3"].risks] == ["uncapped damages"]
    assert findings["2"].agent is not None
    assert findings["2"].agent.risks_proposed == 0
    assert findings["2"].agent.risks_kept == 0


# --------------------------------------------------------------------------------------------
# LLM errors → rules only
# --------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_llm_error_on_every_call_falls_back_for_every_clause(
    dispatcher: SkillDispatcher,
) -> None:
    def fail(messages: list[dict[str, Any]], info: CallInfo) -> str:
        raise LLMError("HTTP 500 from the endpoint")

    model = FunctionModel(fail)
    # the circuit breaker (next test) is set out of reach: every clause asks and falls back
    result = await _review(model, _settings(llm_max_consecutive_failures=100), dispatcher)
    findings = _findings(result)
    assert set(findings) == set(CLAUSES)
    for finding in findings.values():
        assert finding.analysis_mode == "deterministic"
        assert finding.mode_reason.startswith("LLM error"), finding.mode_reason
        assert "HTTP 500" in finding.mode_reason
        assert finding.agent is not None
        assert finding.agent.stop_reason == "llm_error"
    assert len(model.calls) == len(CLAUSES)
    assert [r.risk_type for r in findings["3"].risks] == ["uncapped damages"]


@pytest.mark.asyncio
@pytest.mark.parametrize("failure", ["error", "timeout"])
async def test_endpoint_failing_clause_after_clause_is_given_up(
    dispatcher: SkillDispatcher, failure: str
) -> None:
    async def fail(messages: list[dict[str, Any]], info: CallInfo) -> str:
        if failure == "timeout":
            await asyncio.sleep(5)
        raise LLMError("HTTP 503 from the endpoint")

    model = FunctionModel(fail)
    settings = _settings(llm_max_consecutive_failures=3, react_clause_timeout=0.2)
    graph = build_review_graph(
        interrupt_before=[], dispatcher=dispatcher, settings=settings, llm=model
    )
    config = _config(1)  # one clause at a time: "in a row" is the checklist order
    warnings = [
        part
        async for part in graph.astream(_review_state(), config, stream_mode="custom")
        if isinstance(part, ReviewEvent) and part.type is EventType.WARNING
    ]
    findings = _findings((await graph.aget_state(config)).values)
    assert len(model.calls) == 3
    reasons = [findings[c].mode_reason for c in CLAUSES]
    expected = "timed out after 0.2 s" if failure == "timeout" else "HTTP 503"
    assert all(expected in r for r in reasons[:3]), reasons
    assert all(
        r.startswith("LLM endpoint unusable: 3 clauses in a row failed") for r in reasons[3:]
    )
    assert len(warnings) == 1
    assert warnings[0].text is not None
    assert "3 clauses in a row failed" in warnings[0].text
    # the rules still ran everywhere
    assert [r.risk_type for r in findings["3"].risks] == ["uncapped damages"]
