"""Every planted issue of our sample documents is found by the deterministic skills.

Each fixture under tests/fixtures/planted names the clause, the skill expected to catch the
issue and a key its output must carry ("kind:rule", "flag:code", "consequence:x", …).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from contract_review.documents import load_task_document
from contract_review.models import DocumentRole, TaskDocument
from contract_review.plugins import create_dispatcher
from tests.conftest import FIXTURES, REPO


def _consistency(data: dict[str, Any], key: str) -> bool:
    return any(key in (f["kind"], f["rule"]) for f in data["findings"])


def _merge(data: dict[str, Any], key: str) -> bool:
    return data["status"] == key or any(p["kind"] == key for p in data["problems"])


def _time_bar(data: dict[str, Any], key: str) -> bool:
    field, _, value = key.partition(":")
    if field == "period_days":
        return any(t["value"] == float(value) and t["unit"] == "day" for t in data["time_bars"])
    return any(t[field] == value for t in data["time_bars"])


def _compare(data: dict[str, Any], key: str) -> bool:
    _, _, kind = key.partition(":")
    return any(n["kind"] == kind for n in data["changed_numbers"])


def _deviation(data: dict[str, Any], key: str) -> bool:
    _, _, kind = key.partition(":")
    return any(d["deviation_type"] == kind for d in data["deviations"])


def _financial(data: dict[str, Any], key: str) -> bool:
    _, _, code = key.partition(":")
    return any(f["code"] == code for f in data["flags"])


CHECKS: dict[str, Callable[[dict[str, Any], str], bool]] = {
    "fidic_check_pc_consistency": _consistency,
    "fidic_merge_gc_pc": _merge,
    "fidic_calculate_time_bar": _time_bar,
    "compare_with_baseline": _compare,
    "assess_deviation": _deviation,
    "extract_financial_terms": _financial,
}


def _run(skill: str, clause: str, primary: TaskDocument, state: dict[str, Any]) -> dict[str, Any]:
    result = asyncio.run(
        create_dispatcher().prepare_and_call(skill, clause, primary.structure, state)
    )
    assert result.success, result.error
    return result.data


def _fidic_state() -> tuple[dict[str, Any], TaskDocument, dict[str, Any]]:
    fixture = json.loads((FIXTURES / "planted" / "fidic_en.json").read_text(encoding="utf-8"))
    paths = fixture["documents"]
    pc = load_task_document(REPO / paths["pc"], DocumentRole.PRIMARY, document_id="pc")
    gc = load_task_document(REPO / paths["gc"], DocumentRole.BASELINE, document_id="gc")
    er = load_task_document(REPO / paths["er"], DocumentRole.REFERENCE, document_id="er")
    supplement = pc.model_copy(update={"role": DocumentRole.SUPPLEMENT})
    state = {
        "our_party": fixture["our_party"],
        "domain_id": "fidic",
        "documents": [pc, gc, supplement, er],
    }
    return fixture, pc, state


FIDIC_FIXTURE, FIDIC_PC, FIDIC_STATE = _fidic_state()


@pytest.mark.parametrize(
    "issue", FIDIC_FIXTURE["issues"], ids=lambda i: f"{i['clause']}-{i['expect']}"
)
def test_fidic_planted_issue_is_found(issue: dict[str, Any]) -> None:
    data = _run(issue["detected_by"], issue["clause"], FIDIC_PC, FIDIC_STATE)
    assert CHECKS[issue["detected_by"]](data, issue["expect"]), data


def test_fidic_no_false_deleted_sub_clause_claims() -> None:
    data = _run("fidic_check_pc_consistency", "1.1", FIDIC_PC, FIDIC_STATE)
    assert data["deleted_sub_clauses"] == FIDIC_FIXTURE["deleted_sub_clauses"]
    for clause in FIDIC_PC.structure.iter_clauses() if FIDIC_PC.structure else []:
        if not re.fullmatch(r"\d+\.\d+", clause.clause_id):
            continue
        merged = _run("fidic_merge_gc_pc", clause.clause_id, FIDIC_PC, FIDIC_STATE)
        assert (merged["status"] == "deleted") == (clause.clause_id in {"13.3"}), clause.clause_id


def _construction() -> tuple[dict[str, Any], TaskDocument, dict[str, Any]]:
    path = FIXTURES / "planted" / "construction_zh.json"
    fixture = json.loads(path.read_text(encoding="utf-8"))
    doc = load_task_document(REPO / fixture["document"], DocumentRole.PRIMARY)
    state = {"our_party": fixture["our_party"], "domain_id": fixture["domain"], "documents": [doc]}
    return fixture, doc, state


ZH_FIXTURE, ZH_DOC, ZH_STATE = _construction()


@pytest.mark.parametrize(
    "issue", ZH_FIXTURE["issues"], ids=lambda i: f"{i['clause']}-{i['expect']}"
)
def test_chinese_construction_planted_issue_is_found(issue: dict[str, Any]) -> None:
    data = _run(issue["detected_by"], issue["clause"], ZH_DOC, ZH_STATE)
    assert CHECKS[issue["detected_by"]](data, issue["expect"]), data


def test_fixture_documents_exist() -> None:
    for name in ("fidic_en.json", "construction_zh.json"):
        assert (FIXTURES / "planted" / name).is_file()
    assert Path(REPO / ZH_FIXTURE["document"]).is_file()
