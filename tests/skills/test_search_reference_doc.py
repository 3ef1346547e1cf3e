"""search_reference_doc: BM25 over the clauses of reference documents, English and Chinese."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from contract_review.analysis import reference as srd
from contract_review.errors import SkillError
from contract_review.models import DocumentRole, DocumentStructure, TaskDocument
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.local.search_reference_doc import (
    REGISTRATION,
    SearchReferenceDocInput,
    SearchReferenceDocOutput,
    handle,
    prepare_input,
)
from contract_review.structure_parser import StructureParser
from tests.conftest import CUAD, EXAMPLES

ER_EN = """EMPLOYER'S REQUIREMENTS

1. General

1.1 Scope of the Works
The Works comprise the design, supply, installation, testing and commissioning of a 50 MW solar photovoltaic power plant at Kestrel Flats, including the 33 kV substation and the overhead line to the grid connection point.

1.2 Documents to be Submitted
The Contractor shall submit the design documents listed in Appendix A for review by the Employer at least 28 days before the related work starts.

2. Design Criteria

2.1 Design Standards
All design shall comply with the Eurocodes, IEC 61215 and IEC 62446 and the local building regulations. The design life of the plant shall be not less than 25 years.

2.2 Wind and Seismic Loads
Mounting structures and foundations shall be designed for a basic wind speed of 38 m/s and for seismic zone 2 ground accelerations.

3. Performance Guarantees

3.1 Guaranteed Performance Ratio
The Contractor guarantees a performance ratio of not less than 82 per cent, measured during the Performance Test over 30 consecutive days of operation.

3.2 Performance Damages
If the guaranteed performance ratio is not achieved, the Contractor shall pay performance damages of USD 50,000 for each 0.1 per cent of shortfall.

4. Tests on Completion
The following tests shall be carried out before the Works are taken over.

4.1 Test Procedures
The Contractor shall submit detailed procedures for the Tests on Completion not less than 42 days before the tests start. The tests include insulation resistance, string polarity and open-circuit voltage measurements.

4.2 Reliability Run
After the individual tests have been passed, the plant shall operate for a reliability run of 14 consecutive days without interruption.

5. Site Data

5.1 Geotechnical Investigation
The Employer has made available a geotechnical investigation report with 24 boreholes and soil resistivity results. The Contractor is responsible for interpreting the site data and for any additional investigation it needs.

5.2 Access and Utilities
Access to the Site is from the regional road R45. Construction water and power are to be provided by the Contractor.

6. Programme

6.1 Time for Completion
The Works shall be completed within 540 days from the Commencement Date.

6.2 Delay Damages
Delay damages are payable at 0.1 per cent of the Contract Price for each day of delay, up to a maximum of 10 per cent of the Contract Price.
"""

ER_ZH = """发包人要求

第一章 总体要求

第一条 工程范围
1.1 本工程为滨江新城第三小学教学综合楼施工总承包，包括土建、安装、室外管网及绿化工程。
1.2 承包人应按照施工图纸和本要求完成全部工程内容，并提交竣工图。

第二章 技术标准和要求

第二条 施工质量标准
2.1 工程施工应符合《建筑工程施工质量验收统一标准》GB 50300及现行国家和地方标准规范。
2.2 主体结构混凝土强度等级不低于C30，钢筋采用HRB400级。

第三条 材料与设备
承包人采购的主要材料和设备应具有出厂合格证及检测报告，进场前报监理人验收；未经验收的材料不得使用。

第三章 工期与进度

第四条 工期要求
4.1 计划工期为480日历天，自监理人发出的开工通知载明的开工日期起算。
4.2 承包人未能按期竣工的，应按每日合同价款的万分之五向发包人支付误期赔偿金，误期赔偿金累计不超过合同价款的5%。

第四章 质量与验收

第五条 竣工验收
工程具备竣工验收条件后，承包人应提交竣工验收申请报告；发包人应在收到报告后28天内组织竣工验收。

第六条 质量保证金
发包人按结算价款的3%预留质量保证金，缺陷责任期满后14天内无息返还。

第五章 现场条件

第七条 现场数据
发包人向承包人提供的地质勘察报告和地下管线资料仅供参考，承包人应自行核实现场条件。
"""

PARSER = StructureParser()
EN_STRUCT = PARSER.parse(ER_EN, document_id="er")
ZH_STRUCT = PARSER.parse(ER_ZH, document_id="fbr")
EN_DOC = TaskDocument(
    document_id="er", role=DocumentRole.REFERENCE, filename="er.txt", structure=EN_STRUCT
)
ZH_DOC = TaskDocument(
    document_id="fbr", role=DocumentRole.REFERENCE, filename="发包人要求.txt", structure=ZH_STRUCT
)
CONTRACT_ZH = PARSER.parse(
    (EXAMPLES / "cn" / "construction_contract_zh.txt").read_text(encoding="utf-8")
)


def search(query: str | None, docs: list[TaskDocument], **kw: Any) -> SearchReferenceDocOutput:
    return handle(SearchReferenceDocInput(query=query, reference_documents=docs, **kw))


def ids(out: SearchReferenceDocOutput) -> list[str]:
    return [p.clause_id for p in out.passages]


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("tests on completion procedures", "4.1"),
        ("design standards Eurocodes", "2.1"),
        ("boreholes and geotechnical data", "5.1"),
        ("performance ratio guarantee", "3.1"),
        ("reliability run", "4.2"),
        ("delay damages per day", "6.2"),
    ],
)
def test_english_queries_rank_the_right_clause_first(query: str, best: str) -> None:
    out = search(query, [EN_DOC])
    assert ids(out)[0] == best
    assert out.passages[0].document_id == "er"
    assert out.passages[0].filename == "er.txt"
    assert out.documents_searched == ["er"]


def test_english_passage_fields_and_matched_terms() -> None:
    out = search("geotechnical investigation boreholes", [EN_DOC], top_k=1)
    [p] = out.passages
    assert p.clause_id == "5.1"
    assert p.title == "Geotechnical Investigation"
    assert p.text.startswith("5.1 Geotechnical Investigation\nThe Employer has made available")
    assert p.text in ER_EN  # verbatim
    assert not p.truncated
    assert p.matched_terms == ["geotechnical", "investigation", "boreholes"]
    assert p.score > 0
    assert out.query_terms == ["geotechnical", "investigation", "boreholes"]


def test_stemming_matches_other_word_forms() -> None:
    # "guaranteed" / "guarantees" / "guarantee" share a stem; "damage" finds "damages".
    assert ids(search("guaranteed", [EN_DOC]))[0] in {"3.1", "3.2"}
    assert ids(search("damage delay", [EN_DOC]))[0] == "6.2"


def test_parent_lead_in_is_a_passage_of_its_own() -> None:
    out = search("taken over", [EN_DOC])
    assert ids(out)[0] == "4"
    assert out.passages[0].text == (
        "4. Tests on Completion\nThe following tests shall be carried out before the Works "
        "are taken over."
    )
    # Parents without lead-in text ("2. Design Criteria") are not passages, but their title is
    # indexed with their sub-clauses.
    out = search("design criteria", [EN_DOC])
    assert "2" not in ids(out)
    assert set(ids(out)[:2]) == {"2.1", "2.2"}


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("工期", "4.1"),
        ("竣工验收申请", "5"),
        ("地质勘察报告", "7"),
        ("混凝土强度等级", "2.2"),
        ("材料进场验收", "3"),
        ("保证金", "6"),  # a sub-word of 质量保证金
    ],
)
def test_chinese_queries_rank_the_right_clause_first(query: str, best: str) -> None:
    assert ids(search(query, [ZH_DOC]))[0] == best


def test_chinese_synonym_finds_delay_damages() -> None:
    out = search("违约金", [ZH_DOC])
    assert ids(out) == ["4.2"]  # 误期赔偿金: no passage says 违约金
    assert "违约金" not in ER_ZH
    assert out.passages[0].matched_terms == ["误期赔偿金"]
    assert "误期赔偿金" in out.expanded_terms
    assert "误期赔偿金" in out.passages[0].text


def test_synonyms_cross_languages_and_names() -> None:
    out = search("retention money", [ZH_DOC])
    assert ids(out)[0] == "6"
    assert "质量保证金" in out.passages[0].matched_terms
    out = search("liquidated damages", [EN_DOC])
    assert ids(out)[0] == "6.2"  # via "delay damages"
    out = search("质量保证金", [EN_DOC, ZH_DOC])
    assert (out.passages[0].document_id, out.passages[0].clause_id) == ("fbr", "6")


def test_top_k_and_document_filter() -> None:
    both = search("tests completion 竣工验收", [EN_DOC, ZH_DOC], top_k=10)
    assert {p.document_id for p in both.passages} == {"er", "fbr"}
    assert len(search("tests completion 竣工验收", [EN_DOC, ZH_DOC], top_k=2).passages) == 2
    only = search("tests completion 竣工验收", [EN_DOC, ZH_DOC], top_k=10, document_id="fbr")
    assert {p.document_id for p in only.passages} == {"fbr"}
    assert only.documents_searched == ["fbr"]
    assert ids(only)[0] == "5"
    scores = [p.score for p in both.passages]
    assert scores == sorted(scores, reverse=True)
    with pytest.raises(SkillError, match="no reference document 'nope'; reference documents: er"):
        search("x", [EN_DOC, ZH_DOC], document_id="nope")


@pytest.mark.parametrize("query", ["", "   ", "of the and", "zyxwvut quux", "的 了"])
def test_empty_or_unmatched_query_returns_nothing(query: str) -> None:
    out = search(query, [EN_DOC, ZH_DOC])
    assert out.passages == []
    assert out.documents_searched == ["er", "fbr"]


def test_no_reference_documents_is_an_error() -> None:
    with pytest.raises(SkillError, match=r"^no reference documents in this review$"):
        search("x", [])
    unparsed = TaskDocument(document_id="r", role=DocumentRole.REFERENCE, filename="r.pdf")
    with pytest.raises(SkillError, match="have not been parsed"):
        search("x", [unparsed])


def test_default_query_is_the_current_clause() -> None:
    # 第六条 质量保证金 of the contract → the retention clause of the requirements.
    out = handle(
        SearchReferenceDocInput(
            clause_id="6.2", document_structure=CONTRACT_ZH, reference_documents=[ZH_DOC]
        )
    )
    assert ids(out)[0] == "6"
    assert out.query.startswith("缺陷责任期届满且乙方")  # no title: the body
    assert {"缺陷责任期", "质量保证金"} <= set(out.passages[0].matched_terms)
    # 竣工验收 clause of the contract → 竣工验收 of the requirements.
    out = handle(
        SearchReferenceDocInput(
            clause_id="13.2", document_structure=CONTRACT_ZH, reference_documents=[ZH_DOC]
        )
    )
    assert ids(out)[0] == "5"
    # A clause with a title: the title leads the query.
    out = handle(
        SearchReferenceDocInput(
            clause_id="6.2", document_structure=EN_STRUCT, reference_documents=[EN_DOC]
        )
    )
    assert out.query.startswith("Delay Damages\n")
    assert ids(out)[0] == "6.2"


def test_default_query_needs_a_known_clause() -> None:
    with pytest.raises(SkillError, match="clause '99' not found"):
        handle(
            SearchReferenceDocInput(
                clause_id="99", document_structure=CONTRACT_ZH, reference_documents=[ZH_DOC]
            )
        )
    with pytest.raises(SkillError, match="give a query"):
        handle(SearchReferenceDocInput(reference_documents=[ZH_DOC]))


def test_long_passages_are_cut() -> None:
    body = " ".join(f"clause{i} concrete" for i in range(400))
    structure = PARSER.parse(f"1. Concrete\n1.1 Mix Design\n{body}\n1.2 Curing\nKeep wet.\n")
    doc = TaskDocument(
        document_id="long", role=DocumentRole.REFERENCE, filename="l.txt", structure=structure
    )
    [p] = search("concrete", [doc], top_k=1).passages
    assert p.clause_id == "1.1"
    assert p.truncated
    assert len(p.text) == 800


def test_index_is_built_once_per_document() -> None:
    srd.clear_cache()
    search("tests", [EN_DOC])
    index = srd._index_for("er", EN_STRUCT)
    search("site data", [EN_DOC])
    assert srd._index_for("er", EN_STRUCT) is index
    # An equal copy of the structure (e.g. the state reloaded) hits the cache by content.
    assert srd._index_for("er", EN_STRUCT.model_copy(deep=True)) is index
    # A changed document is indexed again.
    changed = PARSER.parse(ER_EN.replace("boreholes", "trial pits"), document_id="er")
    assert srd._index_for("er", changed) is not index
    doc = TaskDocument(
        document_id="er", role=DocumentRole.REFERENCE, filename="er.txt", structure=changed
    )
    assert ids(search("trial pits", [doc]))[0] == "5.1"
    assert search("boreholes", [doc]).passages == []


def test_weighted_scores_agree_with_bm25s() -> None:
    index = srd._index_for("er", EN_STRUCT)
    terms = ["test", "complet", "damag", "design"]
    ours = srd._weighted_scores(index.bm25, [(t, 1.0) for t in terms])
    assert np.allclose(ours, index.bm25.get_scores(terms))
    halved = srd._weighted_scores(index.bm25, [(t, 0.5) for t in terms])
    assert np.allclose(halved, ours / 2)


def test_through_the_dispatcher() -> None:
    dispatcher = SkillDispatcher()
    dispatcher.register(REGISTRATION)
    state = {"documents": [ZH_DOC, EN_DOC]}
    result = asyncio.run(
        dispatcher.prepare_and_call(
            "search_reference_doc",
            "16.1",
            CONTRACT_ZH,
            state,
            llm_arguments={"query": "误期赔偿金", "top_k": 1, "document_id": "fbr"},
        )
    )
    assert result.success, result.error
    [passage] = result.data["passages"]
    assert (passage["document_id"], passage["clause_id"]) == ("fbr", "4.2")
    # Default query (the clause's text), and no references → a one-line failure.
    result = asyncio.run(
        dispatcher.prepare_and_call("search_reference_doc", "13.1", CONTRACT_ZH, state)
    )
    assert result.success, result.error
    assert result.data["passages"][0]["clause_id"] == "5"
    result = asyncio.run(
        dispatcher.prepare_and_call("search_reference_doc", "13.1", CONTRACT_ZH, {})
    )
    assert not result.success
    assert result.error == "no reference documents in this review"
    tool = REGISTRATION.to_tool_definition()["function"]["parameters"]["properties"]
    assert set(tool) == {"query", "top_k", "document_id", "clause_id"}


def test_prepare_input_takes_reference_documents_only() -> None:
    primary = TaskDocument(
        document_id="p", role=DocumentRole.PRIMARY, filename="p.txt", structure=CONTRACT_ZH
    )
    inp = prepare_input("6.2", CONTRACT_ZH, {"documents": [primary, ZH_DOC]})
    assert [d.document_id for d in inp.reference_documents] == ["fbr"]
    assert inp.document_structure is CONTRACT_ZH


@pytest.mark.skipif(not CUAD.exists(), reason="CUAD dev set not available")
def test_large_english_reference_document() -> None:
    path = next((CUAD / "contracts").glob("CERES*.txt"))
    structure: DocumentStructure = PARSER.parse(path.read_text(encoding="utf-8"))
    doc = TaskDocument(
        document_id="ceres", role=DocumentRole.REFERENCE, filename=path.name, structure=structure
    )
    out = search("exclusivity", [doc], top_k=3)
    assert out.passages[0].title == "EXCLUSIVITY"
    for clause in list(structure.iter_clauses())[:50]:
        handle(prepare_input(clause.clause_id, structure, {"documents": [doc]}))
