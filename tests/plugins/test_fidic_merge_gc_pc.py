"""fidic_merge_gc_pc: GC + PC instructions (English and Chinese), provenance, errors."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from contract_review.errors import SkillError
from contract_review.models import DocumentRole, DocumentStructure, TaskDocument
from contract_review.plugins.fidic.skills.merge_gc_pc import (
    REGISTRATION,
    MergeGcPcInput,
    handle,
    merge_documents,
)
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.state import review_context
from contract_review.structure_parser import StructureParser
from tests.conftest import example_structure

ROOT = Path(__file__).resolve().parents[2]
GC = StructureParser().parse((ROOT / "examples/fidic/general_conditions_en.txt").read_text())
PC = example_structure("fidic/particular_conditions_amending_en.txt")

ZH_GC = StructureParser().parse(
    """通用条件（示例，虚构文本）

第4条 承包人

4.1 一般义务
承包人应按照合同设计和施工。工程竣工后应符合发包人要求中规定的用途。

4.2 履约担保
承包人应在收到中标函后28天内提交履约担保。

4.3 不可预见的物质条件
承包人遇到不可预见的物质条件时，应尽快通知工程师。发包人承担该风险。

第8条 竣工

8.1 竣工时间
承包人应在竣工时间内完成全部工程。

8.2 误期损害赔偿费
误期损害赔偿费总额不超过合同数据中规定的最高限额。
"""
)
ZH_PC = StructureParser().parse(
    """专用条件（示例，虚构文本）

第4条 承包人

4.1 一般义务
在第4.1款末尾增加：承包人应在每月5日前提交进度报告。

4.2 履约担保
将“28天”改为“14天”。

4.3 不可预见的物质条件
删除第4.3款并替换为：承包人承担全部物质条件的风险。

4.4 现场协调
新增第4.4款：承包人应与其他承包人协调施工。

第8条 竣工

8.1 竣工时间
删除第8.1款。

8.2 误期损害赔偿费
将“最高限额百分之十”改为“百分之五”。
"""
)


def _state(gc: DocumentStructure | None = GC, pc: DocumentStructure | None = PC) -> dict[str, Any]:
    docs = []
    if gc is not None:
        docs.append(
            TaskDocument(document_id="gc", role=DocumentRole.BASELINE, filename="gc", structure=gc)
        )
    if pc is not None:
        docs.append(
            TaskDocument(
                document_id="pc", role=DocumentRole.SUPPLEMENT, filename="pc", structure=pc
            )
        )
    return {"our_party": "Contractor", "documents": docs}


def _run(clause_id: str, state: dict[str, Any]) -> dict[str, Any]:
    dispatcher = SkillDispatcher()
    dispatcher.register(REGISTRATION)
    result = asyncio.run(dispatcher.prepare_and_call("fidic_merge_gc_pc", clause_id, None, state))
    assert result.success, result.error
    return result.data


def test_delete_and_replace_en() -> None:
    c = merge_documents(GC, PC).get("4.12")
    assert c is not None
    assert c.status == "replaced"
    assert c.effective_text.startswith("The Contractor is deemed to have obtained all information")
    assert "The Employer bears the risk" in c.gc_text
    assert "The Employer bears the risk" not in c.effective_text
    assert {s.source for s in c.sentences} == {"PC"}
    assert c.pc_instruction.startswith("Delete Sub-Clause 4.12 and replace with:")


def test_add_at_end_en_keeps_gc_sentences_first() -> None:
    c = merge_documents(GC, PC).get("8.5")
    assert c is not None
    assert c.status == "appended"
    assert [s.source for s in c.sentences] == ["GC", "GC", "PC", "PC"]
    assert c.sentences[2].text == (
        "The Contractor shall give notice of any delay to the Engineer within 14 days after "
        "the delay began."
    )
    assert c.sentences[2].pc_clause_id == "8.5"
    for s in c.sentences:
        assert c.effective_text[s.start : s.start + len(s.text)] == s.text


def test_delete_replace_words_en() -> None:
    c = merge_documents(GC, PC).get("20.1")
    assert c is not None
    assert c.status == "amended"
    assert "within 14 days after it became aware" in c.effective_text
    assert "28 days" not in c.effective_text
    assert [s.source for s in c.sentences] == ["PC", "GC"]


def test_amend_as_follows_applies_each_replacement() -> None:
    c = merge_documents(GC, PC).get("17.1")
    assert c is not None
    assert c.status == "amended"
    assert "arising out of or in connection with the Works, regardless of cause" in c.effective_text
    assert "The indemnity applies even where the loss was caused" in c.effective_text
    assert "reduced to the extent" not in c.effective_text


def test_text_not_found_keeps_gc_text() -> None:
    c = merge_documents(GC, PC).get("4.2")
    assert c is not None
    assert c.status == "unchanged"
    assert c.effective_text == c.gc_text
    assert [p.kind for p in c.problems] == ["text_not_found"]
    assert "within 28 days after receipt of the Letter of Acceptance" in c.problems[0].quote


def test_new_sub_clauses_and_unchanged() -> None:
    merged = merge_documents(GC, PC)
    new = [c.clause_id for c in merged.clauses if c.status == "new"]
    assert new == ["4.25", "14.16"]
    c = merged.get("14.16")
    assert c is not None
    assert c.title == "Currency of Payment"
    assert c.gc_text == ""
    unchanged = merged.get("21.1")
    assert unchanged is not None
    assert unchanged.status == "unchanged"
    assert unchanged.pc_instruction == ""
    assert {s.source for s in unchanged.sentences} == {"GC"}


def test_no_false_deleted_claims() -> None:
    merged = merge_documents(GC, PC)
    assert merged.deleted_ids == ["13.3"]
    c = merged.get("13.3")
    assert c is not None
    assert c.effective_text == ""
    assert c.sentences == []
    assert "Variation" in c.gc_text


def test_merge_is_cached_per_identity() -> None:
    assert merge_documents(GC, PC) is merge_documents(GC, PC)
    copy = GC.model_copy(deep=True)
    assert merge_documents(copy, PC) is not merge_documents(GC, PC)


def test_chinese_instructions() -> None:
    merged = merge_documents(ZH_GC, ZH_PC)
    status = {c.clause_id: c.status for c in merged.clauses}
    assert status == {
        "4.1": "appended",
        "4.2": "amended",
        "4.3": "replaced",
        "4.4": "new",
        "8.1": "deleted",
        "8.2": "unchanged",
    }
    c41 = merged.get("4.1")
    assert c41 is not None
    assert [s.source for s in c41.sentences] == ["GC", "GC", "PC"]
    assert c41.sentences[-1].text == "承包人应在每月5日前提交进度报告。"
    c42 = merged.get("4.2")
    assert c42 is not None
    assert c42.effective_text == "承包人应在收到中标函后14天内提交履约担保。"
    c43 = merged.get("4.3")
    assert c43 is not None
    assert c43.effective_text == "承包人承担全部物质条件的风险。"
    c44 = merged.get("4.4")
    assert c44 is not None
    assert c44.effective_text == "承包人应与其他承包人协调施工。"
    assert merged.deleted_ids == ["8.1"]
    c82 = merged.get("8.2")
    assert c82 is not None
    assert [p.kind for p in c82.problems] == ["text_not_found"]


def test_dispatcher_call() -> None:
    data = _run("8.8", _state())
    assert data["status"] == "replaced"
    assert "not be subject to any maximum amount" in data["effective_text"]
    assert data["pc_clause_ids"] == ["8.8"]
    assert all(s["source"] == "PC" for s in data["sentences"])


def test_dispatcher_chinese() -> None:
    data = _run("4.2", _state(ZH_GC, ZH_PC))
    assert data["status"] == "amended"
    assert data["pc_instruction"] == "将“28天”改为“14天”。"


@pytest.mark.parametrize(
    ("state", "error"),
    [
        (_state(pc=None), "no Particular Conditions: load them as the supplement document"),
        (_state(gc=None), "no General Conditions: load them as the baseline document"),
    ],
)
def test_missing_documents(state: dict[str, Any], error: str) -> None:
    dispatcher = SkillDispatcher()
    dispatcher.register(REGISTRATION)
    result = asyncio.run(dispatcher.prepare_and_call("fidic_merge_gc_pc", "20.1", None, state))
    assert not result.success
    assert result.error == error


def test_unknown_sub_clause() -> None:
    inp = MergeGcPcInput(
        clause_id="20.9", baseline_structure=GC, review_context=review_context(_state())
    )
    with pytest.raises(SkillError, match=r"sub-clause '20.9' .* 20.1, 20.2"):
        handle(inp)


def test_tool_definition_hides_internal_fields() -> None:
    params = REGISTRATION.to_tool_definition()["function"]["parameters"]
    assert set(params["properties"]) == {"clause_id"}
