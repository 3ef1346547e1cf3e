"""get_clause_context, resolve_definition and cross_reference_check on English and Chinese text."""

from __future__ import annotations

import asyncio

from contract_review.models import DocumentRole, TaskDocument
from contract_review.plugins import create_dispatcher
from contract_review.skills.local.clause_context import ClauseContextInput
from contract_review.skills.local.clause_context import handle as context
from contract_review.skills.local.cross_reference_check import CrossReferenceCheckInput
from contract_review.skills.local.cross_reference_check import handle as xref
from contract_review.skills.local.resolve_definition import ResolveDefinitionInput
from contract_review.skills.local.resolve_definition import handle as resolve
from contract_review.structure_parser import StructureParser

EN = StructureParser().parse(
    "1. Definitions\n"
    '1.1 "Works" means the permanent works.\n'
    '1.2 "Contract Price" means the price in the Letter of Acceptance.\n'
    "2. Obligations\n"
    "2.1 The Contractor shall execute the Works. The Taking-Over Certificate is issued under "
    "Clause 5. Payment of the Contract Price follows Clause 3; see also Clause 9.\n"
    "2.2 The Engineer may instruct. Any Taking-Over Certificate must be signed.\n"
    "3. Payment\nPayment is subject to Sub-Clause 2.1.\n"
    "4. Insurance\n[Deleted]\n"
    "5. Completion\nSee Clause 4.\n"
)
ZH = StructureParser().parse(
    "第一条 定义\n1.1 “工程”是指永久工程。\n1.2 “合同价款”系指中标价。\n"
    "第二条 义务\n承包人应完成工程，合同价款按第三条支付，验收按第九条及第二条进行，“竣工证书”由监理人签发。\n"
    "第三条 付款\n付款以第二条为前提。\n"
)


def test_clause_context_english() -> None:
    out = context(ClauseContextInput(clause_id="2.1", document_structure=EN))
    assert out.title == ""
    assert out.parent is not None
    assert out.parent.clause_id == "2"
    assert out.next is not None
    assert out.next.clause_id == "2.2"
    assert out.previous is None
    assert {d.term for d in out.definitions_used} == {"Works", "Contract Price"}
    assert [(r.text, r.is_valid) for r in out.references_out] == [
        ("Clause 5", True),
        ("Clause 3", True),
        ("Clause 9", False),
    ]
    assert [(r.source_clause_id, r.text) for r in out.references_in] == [("3", "Sub-Clause 2.1")]
    assert out.text.startswith("2.1 The Contractor shall")


def test_clause_context_truncates_and_chinese() -> None:
    out = context(ClauseContextInput(clause_id="2", document_structure=ZH, max_chars=200))
    assert out.title == "义务"
    assert {d.term for d in out.definitions_used} == {"工程", "合同价款"}
    assert [r.target_clause_id for r in out.references_out] == ["3", "9", "2"]
    assert [r.source_clause_id for r in out.references_in] == ["3"]
    assert not out.truncated
    short = context(ClauseContextInput(clause_id="2", document_structure=ZH, max_chars=200))
    assert len(short.text) <= 200


def test_resolve_definition_english_finds_used_and_undefined_terms() -> None:
    out = resolve(ResolveDefinitionInput(clause_id="2.1", document_structure=EN))
    assert {(t.term, t.defined_in) for t in out.defined_terms_used} == {
        ("Works", "1.1"),
        ("Contract Price", "1.2"),
    }
    undefined = {u.term: u.occurrences for u in out.undefined_terms}
    assert undefined == {"Taking-Over Certificate": 1}
    assert "Contractor" not in undefined  # single capitalised word used once: a role/name
    asked = resolve(
        ResolveDefinitionInput(clause_id="2.1", terms=["Works", "Site"], document_structure=EN)
    )
    assert [t.term for t in asked.defined_terms_used] == ["Works"]
    assert asked.not_found == ["Site"]


def test_resolve_definition_chinese() -> None:
    out = resolve(ResolveDefinitionInput(clause_id="2", document_structure=ZH))
    assert {t.term for t in out.defined_terms_used} == {"工程", "合同价款"}
    assert [u.term for u in out.undefined_terms] == ["竣工证书"]
    assert "竣工证书" in out.undefined_terms[0].quote


def test_cross_reference_check_statuses_and_cycles() -> None:
    out = xref(CrossReferenceCheckInput(clause_id="2.1", document_structure=EN))
    assert [(r.text, r.status) for r in out.references] == [
        ("Clause 5", "ok"),
        ("Clause 3", "ok"),
        ("Clause 9", "missing"),
    ]
    assert out.cycles == [["2.1", "3", "2.1"]]
    assert any("Clause 9" in i for i in out.issues)
    deleted = xref(CrossReferenceCheckInput(clause_id="5", document_structure=EN))
    assert [(r.target_clause_id, r.status) for r in deleted.references] == [("4", "deleted")]


def test_cross_reference_check_chinese_and_baseline_deleted() -> None:
    out = xref(CrossReferenceCheckInput(clause_id="2", document_structure=ZH))
    assert [(r.text, r.status) for r in out.references] == [
        ("第三条", "ok"),
        ("第九条", "missing"),
        ("第二条", "self"),
    ]
    assert out.cycles == [["2", "3", "2"]]
    baseline = StructureParser().parse("第九条 验收\n按规定验收。\n")
    with_base = xref(
        CrossReferenceCheckInput(clause_id="2", document_structure=ZH, baseline_structure=baseline)
    )
    assert [r.status for r in with_base.references] == ["ok", "deleted", "self"]


def test_through_the_dispatcher_with_state() -> None:
    d = create_dispatcher()
    baseline = StructureParser().parse("9. Tests\nTests on completion.\n")
    state = {
        "documents": [
            TaskDocument(
                document_id="gc", role=DocumentRole.BASELINE, filename="gc.txt", structure=baseline
            ).model_dump(),
        ]
    }
    result = asyncio.run(d.prepare_and_call("cross_reference_check", "2.1", EN, state))
    assert result.success, result.error
    assert [r["status"] for r in result.data["references"]] == ["ok", "ok", "deleted"]
    defs = asyncio.run(d.prepare_and_call("resolve_definition", "2.2", EN, state))
    assert defs.data["undefined_terms"][0]["term"] == "Taking-Over Certificate"
    assert defs.data["undefined_terms"][0]["occurrences"] == 1
