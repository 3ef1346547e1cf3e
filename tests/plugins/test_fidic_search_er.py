"""fidic_search_er: the Employer's Requirements on a clause's subject, English and Chinese."""

from __future__ import annotations

import asyncio

import pytest

from contract_review.errors import SkillError
from contract_review.models import DocumentRole, DocumentStructure, TaskDocument
from contract_review.plugins.fidic.skills.search_er import (
    REGISTRATION,
    SearchErInput,
    SearchErOutput,
    handle,
    prepare_input,
    topic_expansion,
)
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.structure_parser import StructureParser

PARSER = StructureParser()

ER_EN = """EMPLOYER'S REQUIREMENTS

1. Design

1.1 Design Criteria
All design shall comply with the Eurocodes and the specifications in Appendix B. The design life of the intake structures shall be 50 years.

2. Performance Guarantees

2.1 Guaranteed Output
The plant shall produce 100,000 cubic metres of potable water per day, demonstrated during the Tests on Completion over 7 consecutive days.

3. Site Data

3.1 Geotechnical Information
The geotechnical report with 12 boreholes and the sub-surface survey of the seabed are attached as Appendix C.

4. Training

4.1 Operator Training
The Contractor shall train 20 operators of the Employer before Taking Over.
"""

ER_ZH = """发包人要求

第一条 设计要求
1.1 设计标准应符合现行国家规范，技术要求详见附件一。

第二条 现场条件
2.1 发包人提供的地质勘察报告和地下管线资料仅供参考。

第三条 培训
3.1 承包人应在竣工前培训发包人运行人员二十名。
"""

CONTRACT_EN = PARSER.parse(
    "Clause 4 The Contractor\n\n"
    "Sub-Clause 4.1 Contractor's General Obligations\n"
    "The Contractor shall design, execute and complete the Works so that they are fit for the "
    "purposes for which they are intended.\n\n"
    "Sub-Clause 4.12 Unforeseeable Physical Conditions\n"
    "The Contractor shall be deemed to have obtained all information on the Site and the "
    "physical conditions it encounters.\n",
    document_id="pc",
)
CONTRACT_ZH = PARSER.parse(
    "第四条 承包人的一般义务\n4.1 承包人应负责工程的设计，并对设计的完整性负责。\n\n"
    "第五条 现场\n5.1 承包人应自行查勘现场，发包人提供的资料仅供参考。\n",
    document_id="zh",
)
EN_DOC = TaskDocument(
    document_id="er",
    role=DocumentRole.REFERENCE,
    filename="er.txt",
    structure=PARSER.parse(ER_EN, document_id="er"),
)
ZH_DOC = TaskDocument(
    document_id="fbr",
    role=DocumentRole.REFERENCE,
    filename="发包人要求.txt",
    structure=PARSER.parse(ER_ZH, document_id="fbr"),
)


def search(
    structure: DocumentStructure, clause_id: str, docs: list[TaskDocument]
) -> SearchErOutput:
    return handle(
        SearchErInput(
            clause_id=clause_id,
            document_structure=structure,
            reference_documents=docs,
            top_k=2,
        )
    )


def test_topic_expansion() -> None:
    topics, terms = topic_expansion("Design and performance of the Works on the Site")
    assert topics == ["design", "performance", "site"]
    assert terms[:2] == ["design criteria", "design standards"]
    assert "geotechnical" in terms
    assert "tests on completion" in terms
    assert all(t.isascii() for t in terms)
    zh_topics, zh_terms = topic_expansion("承包人应负责工程的设计")
    assert zh_topics == ["design"]
    assert zh_terms == ["设计标准", "技术要求"]


def test_english_design_clause_finds_design_criteria() -> None:
    out = search(CONTRACT_EN, "4.1", [EN_DOC])
    assert out.topics == ["design", "performance"]
    assert "design criteria" in out.topic_terms
    by_id = {p.clause_id: p for p in out.passages}
    assert set(by_id) == {"1.1", "2.1"}  # design criteria and performance guarantees
    assert "All design shall comply with the Eurocodes" in by_id["1.1"].text
    assert {"design", "criteria", "specifications"} <= set(by_id["1.1"].matched_terms)
    assert out.documents_searched == ["er"]


def test_english_site_clause_finds_site_data() -> None:
    out = search(CONTRACT_EN, "4.12", [EN_DOC])
    assert out.topics == ["site"]
    assert out.passages[0].clause_id == "3.1"
    assert "geotechnical" in out.passages[0].matched_terms


def test_chinese_clauses() -> None:
    design = search(CONTRACT_ZH, "4.1", [ZH_DOC])
    assert design.topics == ["design"]
    assert design.topic_terms == ["设计标准", "技术要求"]
    assert design.passages[0].clause_id == "1.1"
    site = search(CONTRACT_ZH, "5.1", [ZH_DOC])
    assert "site" in site.topics
    assert "地质勘察" in site.topic_terms
    assert site.passages[0].clause_id == "2.1"


def test_no_employers_requirements() -> None:
    with pytest.raises(SkillError, match="no Employer's Requirements"):
        search(CONTRACT_EN, "4.1", [])


def test_unknown_clause() -> None:
    with pytest.raises(SkillError, match="not found"):
        search(CONTRACT_EN, "9.9", [EN_DOC])


def test_through_the_dispatcher() -> None:
    dispatcher = SkillDispatcher()
    dispatcher.register(REGISTRATION)
    state = {"documents": [EN_DOC, ZH_DOC]}
    assert len(prepare_input("4.1", CONTRACT_EN, state).reference_documents) == 2
    result = asyncio.run(dispatcher.prepare_and_call("fidic_search_er", "4.12", CONTRACT_EN, state))
    assert result.success, result.error
    assert result.data["topics"] == ["site"]
    assert result.data["passages"][0]["clause_id"] == "3.1"
    none = asyncio.run(dispatcher.prepare_and_call("fidic_search_er", "4.1", CONTRACT_EN, {}))
    assert not none.success
    assert none.error is not None
    assert "Employer's Requirements" in none.error
