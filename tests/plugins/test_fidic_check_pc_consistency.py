"""fidic_check_pc_consistency: references, conflicts, redefinitions, risk shifts (EN + ZH)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from contract_review.models import DocumentRole, DocumentStructure, TaskDocument
from contract_review.parties import party_roles
from contract_review.plugins.fidic.skills.check_pc_consistency import REGISTRATION, check_merged
from contract_review.plugins.fidic.skills.merge_gc_pc import merge_documents
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.structure_parser import StructureParser

ROOT = Path(__file__).resolve().parents[2]
PLANTED = json.loads((ROOT / "tests/fixtures/planted/fidic_en.json").read_text())
GC = StructureParser().parse((ROOT / PLANTED["documents"]["gc"]).read_text())
PC = StructureParser().parse((ROOT / PLANTED["documents"]["pc"]).read_text())

ZH_GC = StructureParser().parse(
    """通用条件（示例，虚构文本）

第1条 一般规定

1.1 定义
“不可预见”是指一个有经验的承包人在基准日期前无法合理预见的。

第4条 承包人

4.1 不可预见的物质条件
承包人遇到不可预见的物质条件时，有权获得工期延长。发包人承担该风险。

4.2 变更程序
承包人有权就每项变更调整合同价格。

第8条 竣工

8.1 误期损害赔偿费
误期损害赔偿费总额不超过合同数据中规定的最高限额。

8.2 工期延长
承包人应在知道延误后28天内发出延误通知。
"""
)
ZH_PC = StructureParser().parse(
    """专用条件（示例，虚构文本）

第1条 一般规定

1.1 定义
将“一个有经验的承包人在基准日期前无法合理预见的”改为“任何人在任何时候均无法预见的”。

第4条 承包人

4.1 不可预见的物质条件
删除第4.1款并替换为：承包人承担全部物质条件的风险，无权获得工期延长或费用补偿。

4.2 变更程序
删除第4.2款。

4.3 现场协调
新增第4.3款：协调变更按第4.2款估价。承包人应在知道延误后14天内发出延误通知。

第8条 竣工

8.1 误期损害赔偿费
删除第8.1款并替换为：误期损害赔偿费不设上限。

8.2 工期延长
在第8.2款末尾增加：对于不可预见的障碍，仅在有经验的承包人在基准日期前无法合理预见时方可延长工期。
"""
)


def _state(gc: DocumentStructure | None, pc: DocumentStructure | None) -> dict[str, Any]:
    docs = [
        TaskDocument(document_id=i, role=r, filename=i, structure=s)
        for i, r, s in (("gc", DocumentRole.BASELINE, gc), ("pc", DocumentRole.SUPPLEMENT, pc))
        if s is not None
    ]
    return {"our_party": "Contractor", "documents": docs}


def _call(
    clause_id: str, state: dict[str, Any], **args: Any
) -> tuple[bool, dict[str, Any], str | None]:
    dispatcher = SkillDispatcher()
    dispatcher.register(REGISTRATION)
    result = asyncio.run(
        dispatcher.prepare_and_call(
            "fidic_check_pc_consistency", clause_id, None, state, llm_arguments=args
        )
    )
    return result.success, result.data, result.error


def _rules(findings: list[Any]) -> dict[str, list[list[str]]]:
    out: dict[str, list[list[str]]] = {}
    for f in findings:
        out.setdefault(f.rule, []).append(f.clause_ids)
    return out


def test_planted_issues_found() -> None:
    merged = merge_documents(GC, PC)
    findings = check_merged(merged, party_roles(GC, PLANTED["our_party"]))
    for issue in PLANTED["issues"]:
        if issue["detected_by"] == "fidic_check_pc_consistency":
            assert any(
                issue["clause"] in f.clause_ids
                for f in findings
                if issue["expect"] in (f.rule, f.kind)
            ), issue
        elif issue["detected_by"] == "fidic_merge_gc_pc":
            c = merged.get(issue["clause"])
            assert c is not None
            assert issue["expect"] == c.status or issue["expect"] in {p.kind for p in c.problems}, (
                issue
            )
    assert merged.deleted_ids == PLANTED["deleted_sub_clauses"]


def test_sample_findings_exact() -> None:
    rules = _rules(check_merged(merge_documents(GC, PC), party_roles(GC, "Contractor")))
    assert rules == {
        "risk_shift:unforeseeable_risk": [["4.12"]],
        "risk_shift:cap_removed": [["8.8"]],
        "risk_shift:indemnity_regardless_of_cause": [["17.1"]],
        "risk_shift:notice_shortened": [["20.1"]],
        "reference_to_deleted": [["4.25", "13.3"]],
        "conflicting_values": [["4.25", "8.5"]],
        "definition_used_in_old_sense": [["8.5", "1.1"]],
        "risk_shift:entitlement_deleted": [["13.3"]],
        "risk_shift:payment_period_extended": [["14.7"]],
        "text_not_found": [["4.2"]],
    }


def test_quotes_are_verbatim() -> None:
    merged = merge_documents(GC, PC)
    for f in check_merged(merged, party_roles(GC, "Contractor")):
        for q in f.quotes:
            c = merged.get(q.clause_id)
            assert c is not None
            source = {"GC": c.gc_text, "PC": c.pc_instruction, "effective": c.effective_text}
            assert q.text in source[q.source], (f.rule, q)


def test_conflicting_periods_quote_both_sentences() -> None:
    f = next(
        f
        for f in check_merged(merge_documents(GC, PC), party_roles(GC, "Contractor"))
        if f.kind == "conflicting_values"
    )
    texts = [q.text for q in f.quotes]
    assert any("within 28 days" in t for t in texts)
    assert any("within 14 days" in t for t in texts)


def test_chinese_findings() -> None:
    rules = _rules(check_merged(merge_documents(ZH_GC, ZH_PC), party_roles(ZH_GC, "Contractor")))
    assert rules["risk_shift:unforeseeable_risk"] == [["4.1"]]
    assert rules["risk_shift:cap_removed"] == [["8.1"]]
    assert rules["reference_to_deleted"] == [["4.3", "4.2"]]
    assert rules["conflicting_values"] == [["4.3", "8.2"]]
    assert rules["definition_used_in_old_sense"] == [["8.2", "1.1"]]
    assert rules["risk_shift:entitlement_deleted"] == [["4.2"]]


def test_dispatcher_one_clause() -> None:
    ok, data, error = _call("20.1", _state(GC, PC))
    assert ok, error
    assert data["status"] == "amended"
    assert [f["rule"] for f in data["findings"]] == ["risk_shift:notice_shortened"]
    assert data["findings"][0]["quotes"][0]["text"].endswith(
        "within 14 days after it became aware of the event or circumstance."
    )
    assert data["deleted_sub_clauses"] == ["13.3"]


def test_dispatcher_whole_set() -> None:
    ok, data, error = _call("1.1", _state(GC, PC), whole_set=True)
    assert ok, error
    assert data["clause_id"] == "*"
    assert len(data["findings"]) == 10
    assert data["findings"][0]["severity"] == "high"


def test_dispatcher_unchanged_clause_has_no_findings() -> None:
    ok, data, error = _call("21.1", _state(GC, PC))
    assert ok, error
    assert data["status"] == "unchanged"
    assert data["findings"] == []


def test_dispatcher_errors() -> None:
    ok, _, error = _call("20.1", _state(GC, None))
    assert not ok
    assert error == "no Particular Conditions: load them as the supplement document"
    ok, _, error = _call("99.1", _state(GC, PC))
    assert not ok
    assert error is not None
    assert error.startswith("sub-clause '99.1' is in neither")


def test_tool_definition_hides_internal_fields() -> None:
    params = REGISTRATION.to_tool_definition()["function"]["parameters"]
    assert set(params["properties"]) == {"clause_id", "whole_set"}
