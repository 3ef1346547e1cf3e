"""The run context: documents and services reach the graph as LangGraph runtime context, domains
contribute their hooks through the plugin, and `--criteria` reaches the skills."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver

from contract_review.config import Settings
from contract_review.errors import InputError
from contract_review.graph.builder import build_review_graph
from contract_review.graph.context import RunContext
from contract_review.models import ClauseFindings, ReviewResult
from contract_review.plugins import create_dispatcher, load_builtin_plugins
from contract_review.plugins.registry import (
    DomainPlugin,
    clear_plugins,
    get_plugin,
    register_plugin,
    require_plugin,
)
from contract_review.review import ReviewOptions, start_review
from contract_review.skills.context import prepare_context
from tests.conftest import EXAMPLES
from tests.graph.test_review_graph import chinese_review_state

FIDIC = EXAMPLES / "fidic"


def _config() -> RunnableConfig:
    return {"configurable": {"thread_id": f"t-{uuid.uuid4().hex}"}, "max_concurrency": 4}


def _quoted(result: Mapping[str, Any]) -> set[tuple[str, str, str]]:
    return {
        (r.clause_id, r.risk_type, r.location.original_text if r.location else "")
        for r in result["all_risks"]
    }


@pytest.mark.asyncio
async def test_documents_come_from_the_run_context(saver: BaseCheckpointSaver[Any]) -> None:
    """The same review with the documents in the runtime context instead of the state finds
    the same risks, and no checkpoint holds a document."""
    with_documents = chinese_review_state(approval_policy="all")
    docs = with_documents["documents"]
    graph = build_review_graph(checkpointer=saver, interrupt_before=[])
    expected = await graph.ainvoke(with_documents, _config())

    plugin = require_plugin("fidic")
    facts = prepare_context(
        side="承包人",
        baselines=plugin,
        task_id="ctx",
        language="zh-CN",
        domain_id="fidic",
        documents=docs,
    )
    run = RunContext(
        facts=facts, dispatcher=create_dispatcher(), settings=Settings(), plugin=plugin
    )
    state = {**with_documents, "documents": []}
    config = _config()
    result = await graph.ainvoke(state, config, context=run)
    assert result["is_complete"] is True
    assert _quoted(result) == _quoted(expected)
    assert any(t == "time bar" for _, t, _ in _quoted(result))
    text = docs[0].content.text
    clause = next(c for c in docs[0].structure.iter_clauses() if len(c.text) > 80)
    async for checkpoint in saver.alist(config):
        assert clause.text not in json.dumps(checkpoint.checkpoint, default=str, ensure_ascii=False)
    assert text  # the document was real


@pytest.fixture
def marking_plugin() -> Iterator[str]:
    """A domain whose plugin prepares the documents, adjusts the checklist, applies a
    cross-clause rule and gives prompt hints — the graph must run all of them by itself."""
    load_builtin_plugins()
    generic = get_plugin("generic")
    assert generic is not None
    seen: dict[str, int] = {"prepared": 0}

    def prepare(docs: list[Any], config: Any) -> list[Any]:
        seen["prepared"] += 1
        return docs

    def adjust(items: list[Any], docs: list[Any]) -> list[Any]:
        return items[:2]

    def mark(findings: Mapping[str, ClauseFindings], language: str) -> dict[str, ClauseFindings]:
        del language
        return {
            k: f.model_copy(update={"notes": [*f.notes, "marked"]}) for k, f in findings.items()
        }

    register_plugin(
        DomainPlugin(
            domain_id="test_marking",
            name="Marking",
            build_checklist=generic.build_checklist,
            baselines=list(generic.baselines),
            prepare_documents=prepare,
            adjust_checklist=adjust,
            cross_clause_rules=[mark],
            prompt_hints={"en": "MARKING DOMAIN HINT", "zh": "标记"},
        )
    )
    yield "test_marking"
    clear_plugins()
    load_builtin_plugins()
    assert seen["prepared"] >= 1


@pytest.mark.asyncio
async def test_a_domain_plugin_contributes_its_hooks(tmp_path: Path, marking_plugin: str) -> None:
    options = ReviewOptions(
        file=EXAMPLES / "generic" / "supply_agreement_en.txt",
        domain=marking_plugin,
        party="Buyer",
        approve="all",
        out=tmp_path / "out",
    )
    manifest = await start_review(options, settings=Settings(state_dir=tmp_path / "state"))
    result = ReviewResult.model_validate_json((tmp_path / "out" / "findings.json").read_text())
    assert manifest.status == "complete"
    assert len(result.clauses) == 2
    assert all("marked" in c.findings.notes for c in result.clauses)

    from contract_review.graph.prompts import build_react_agent_messages

    prompt: dict[str, Any] = {"language": "en", "our_party": "Buyer", "clause_id": "1"}
    prompt |= {"clause_name": ""}
    prompt |= {"description": "", "priority": "high", "clause_text": "text"}
    messages = build_react_agent_messages(**prompt, domain_id=marking_plugin)
    assert "MARKING DOMAIN HINT" in messages[0]["content"]


async def _review(tmp_path: Path, name: str, criteria: Path | None) -> ReviewResult:
    options = ReviewOptions(
        file=FIDIC / "particular_conditions_amending_en.txt",
        domain="fidic",
        baseline=FIDIC / "general_conditions_en.txt",
        party="Contractor",
        criteria=criteria,
        approve="all",
        out=tmp_path / name,
    )
    await start_review(options, settings=Settings(state_dir=tmp_path / f"{name}-state"))
    return ReviewResult.model_validate_json((tmp_path / name / "findings.json").read_text())


def _risks(result: ReviewResult) -> dict[tuple[str, str, str], tuple[str, str]]:
    """(clause, risk type, quote) → (level, reason)."""
    return {
        (r.clause_id, r.risk_type, r.location.original_text if r.location else ""): (
            r.risk_level.value,
            r.reason,
        )
        for c in result.clauses
        for r in c.findings.risks
    }


@pytest.mark.asyncio
async def test_criteria_change_the_findings(tmp_path: Path) -> None:
    """A user playbook reaches the skills: its criterion raises a deviation on its topic and
    its positions appear in the reason."""
    playbook = tmp_path / "playbook.csv"
    playbook.write_text(
        "Topic,Criterion,Preferred position,Fallback position,Risk level\n"
        "Indemnities,Check who indemnifies whom and for what.,"
        "Each party indemnifies only for losses it causes.,"
        "Indemnity for third-party claims caused by our negligence only.,High\n"
        "Payment,Check payment periods.,Payment within 30 days of each invoice.,"
        "At most 56 days.,High\n",
        encoding="utf-8",
    )
    without = _risks(await _review(tmp_path, "plain", None))
    with_playbook = _risks(await _review(tmp_path, "playbook", playbook))
    changed = {k for k in without if without[k] != with_playbook.get(k)}
    assert changed, "the playbook changed no finding"
    reasons = " ".join(reason for _, reason in with_playbook.values())
    assert "Payment within 30 days of each invoice" in reasons
    assert "Playbook" not in " ".join(reason for _, reason in without.values())
    raised = [k for k in changed if with_playbook[k][0] == "high" and without[k][0] != "high"]
    assert raised, "the criterion's risk level raised no deviation"


@pytest.mark.asyncio
async def test_a_bad_playbook_fails_before_any_work(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("no,useful,columns\n1,2,3\n", encoding="utf-8")
    with pytest.raises(InputError):
        await _review(tmp_path, "bad", bad)
    assert not (tmp_path / "bad-state" / "tasks").exists()
    assert not (tmp_path / "bad").exists()
