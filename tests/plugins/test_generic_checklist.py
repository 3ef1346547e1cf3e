"""The generic plugin: topic detection, checklist items, fallback items and the CUAD score."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from contract_review.models import (
    ClauseKind,
    DocumentStructure,
    Priority,
    ReviewChecklistItem,
    one_item_per_clause,
)
from contract_review.plugins.generic import (
    BASELINES,
    CUAD_TOPICS,
    TOPICS,
    build_generic_checklist,
    detect_topics,
    register_generic_plugin,
)
from contract_review.plugins.registry import clear_plugins, get_baseline_text, get_plugin
from contract_review.structure_parser import StructureParser
from tests.builders import review_findings
from tests.conftest import CUAD, EXAMPLES, GENERIC_SKILLS, REPO

SKILLS = GENERIC_SKILLS - {"draft_redline_comment"}


def _parse(text: str) -> DocumentStructure:
    return StructureParser().parse(text, document_id="test")


def _topic_clauses(structure: DocumentStructure, topic: str) -> list[str]:
    return [m.clause_id for m in detect_topics(structure) if m.topic == topic]


# --------------------------------------------------------------------------------------------
# One clause per topic, in English and Chinese, titled and untitled
# --------------------------------------------------------------------------------------------

EN_CASES: list[tuple[str, str, str]] = [
    (
        "Governing Law",
        "Governing Law",
        "This Agreement shall be governed by and construed in accordance with the laws of the "
        "State of New York, without regard to its conflict of laws principles.",
    ),
    (
        "Cap on Liability",
        "Limitation of Liability",
        "In no event shall either party's aggregate liability arising out of this Agreement "
        "exceed the fees paid in the twelve (12) months preceding the claim.",
    ),
    (
        "Anti-Assignment",
        "Assignment",
        "Neither party may assign this Agreement without the prior written consent of the other "
        "party, and any attempted assignment in violation of this Section shall be void.",
    ),
    (
        "Termination for Convenience",
        "Termination for Convenience",
        "The Customer may terminate this Agreement at any time for convenience upon sixty (60) "
        "days' prior written notice to the Supplier.",
    ),
    (
        "Non-Compete",
        "Non-Competition",
        "During the Term and for one (1) year thereafter, the Distributor shall not, directly or "
        "indirectly, market or sell any products that compete with the Products in the Territory.",
    ),
    (
        "Exclusivity",
        "Exclusivity",
        "The Supplier appoints the Distributor as its exclusive distributor of the Products in the "
        "Territory and shall not appoint any other distributor in the Territory during the Term.",
    ),
    (
        "Insurance",
        "Insurance",
        "The Supplier shall maintain, at its own cost, commercial general liability insurance with "
        "limits of not less than $2,000,000 per occurrence and shall provide certificates of "
        "insurance on request.",
    ),
    (
        "Audit Rights",
        "Audit",
        "Upon thirty (30) days' notice, the Licensor may audit the Licensee's books and records "
        "relating to royalties once per calendar year.",
    ),
    (
        "IP Ownership Assignment",
        "Ownership of Deliverables",
        "All Deliverables shall be the sole and exclusive property of the Customer, and the "
        "Supplier hereby assigns to the Customer all right, title and interest in the "
        "Deliverables, including all intellectual property rights.",
    ),
    (
        "License Grant",
        "License",
        "Subject to the terms of this Agreement, the Licensor hereby grants to the Licensee a "
        "non-exclusive, non-transferable license to use the Software for its internal business "
        "purposes.",
    ),
    (
        "Liquidated Damages",
        "Delay Damages",
        "If the Supplier fails to deliver by the Delivery Date, it shall pay liquidated damages of "
        "0.5% of the Contract Price for each week of delay, up to 10% of the Contract Price.",
    ),
    (
        "Change of Control",
        "Change of Control",
        "If a party undergoes a change of control, it shall notify the other party within ten (10) "
        "days, and the other party may terminate this Agreement by written notice.",
    ),
    (
        "Indemnity",
        "Indemnification",
        "The Supplier shall indemnify, defend and hold harmless the Customer from and against any "
        "and all third-party claims arising out of the Supplier's breach of this Agreement.",
    ),
    (
        "Confidentiality",
        "Confidentiality",
        "Each party shall keep the other party's Confidential Information in strict confidence "
        "and shall not disclose it to any third party without prior written consent.",
    ),
    (
        "Warranties",
        "Warranties",
        "The Supplier represents and warrants that the Services will be performed in a "
        "professional and workmanlike manner.",
    ),
    (
        "Payment",
        "Payment",
        "The Customer shall pay each undisputed invoice within thirty (30) days of receipt.",
    ),
    (
        "Force Majeure",
        "Force Majeure",
        "Neither party shall be liable for any delay or failure to perform caused by a force "
        "majeure event, including acts of God, war, flood or epidemic, provided it notifies the "
        "other party promptly.",
    ),
    (
        "Dispute Resolution",
        "Dispute Resolution",
        "Any dispute arising out of this Agreement shall be finally resolved by arbitration "
        "administered by the International Chamber of Commerce in London.",
    ),
    (
        "Termination",
        "Termination",
        "Either party may terminate this Agreement by written notice if the other party "
        "materially breaches this Agreement and fails to cure the breach within thirty (30) days.",
    ),
]

ZH_CASES: list[tuple[str, str, str]] = [
    ("Governing Law", "适用法律", "本合同的订立、效力、解释和履行均适用中华人民共和国法律。"),
    (
        "Cap on Liability",
        "责任限制",
        "任何一方在本合同项下的累计赔偿总额不超过本合同总价款的百分之五十，但因故意或重大过失造成的损失除外。",
    ),
    (
        "Anti-Assignment",
        "合同转让",
        "未经对方书面同意，任何一方不得将本合同项下的权利义务转让给第三方。",
    ),
    (
        "Termination for Convenience",
        "任意解除",
        "甲方可随时提前三十日书面通知乙方解除本合同，无需说明理由。",
    ),
    (
        "Non-Compete",
        "竞业禁止",
        "乙方承诺在合同期内及合同终止后一年内，不得从事与甲方相竞争的业务。",
    ),
    (
        "Exclusivity",
        "独家经销",
        "甲方授予乙方在华东地区的独家经销权，合同期内甲方不得在该地区另行委托其他经销商销售本产品。",
    ),
    ("Insurance", "保险", "乙方应自费投保职业责任保险，保险金额不低于人民币一千万元。"),
    ("Audit Rights", "审计", "甲方有权在提前十日书面通知后审计乙方与本合同有关的账簿和记录。"),
    (
        "IP Ownership Assignment",
        "知识产权",
        "乙方为履行本合同开发的全部成果，其知识产权归甲方所有。",
    ),
    ("License Grant", "软件许可", "乙方授予甲方非独占的、不可转让的软件使用许可，许可期限为三年。"),
    (
        "Liquidated Damages",
        "违约金",
        "乙方逾期交付的，每逾期一日，应按合同总价款的千分之一向甲方支付违约金。",
    ),
    (
        "Change of Control",
        "控制权变更",
        "一方控制权发生变更的，应在十日内书面通知对方，对方有权解除本合同。",
    ),
    (
        "Confidentiality",
        "保密",
        "双方应对在履行本合同过程中知悉的对方商业秘密承担保密义务，未经对方书面同意不得向第三方披露。",
    ),
    (
        "Force Majeure",
        "不可抗力",
        "因不可抗力不能履行合同的，受影响一方应及时通知对方，并根据影响部分或全部免除责任。",
    ),
    (
        "Dispute Resolution",
        "争议解决",
        "因本合同引起的争议，双方应协商解决；协商不成的，提交上海国际仲裁中心仲裁。",
    ),
    (
        "Termination",
        "合同解除",
        "一方严重违约且在收到书面通知后十五日内未纠正的，守约方有权解除本合同。",
    ),
    ("Indemnity", "赔偿", "乙方应赔偿甲方因乙方违约而遭受的全部损失，并使甲方免受第三方的索赔。"),
    ("Warranties", "陈述与保证", "乙方陈述与保证其交付的软件不侵犯任何第三方的知识产权。"),
    ("Payment", "付款", "甲方应在收到乙方开具的发票后三十日内支付服务费。"),
]


def _en_titled(title: str, body: str) -> str:
    return (
        "MASTER AGREEMENT\n\nThis Agreement is made between Alpha Ltd and Beta Inc.\n\n"
        '1. Definitions\n1.1 "Services" means the services described in Schedule 1.\n\n'
        "2. Services\nThe Supplier shall provide the Services with reasonable skill and care "
        "and in accordance with the Specifications.\n\n"
        f"3. {title}\n{body}\n\n"
        "4. Notices\nAll notices under this Agreement shall be in writing and delivered to the "
        "addresses set out above.\n"
    )


def _en_untitled(body: str) -> str:
    return (
        "MASTER AGREEMENT\n\nThis Agreement is made between Alpha Ltd and Beta Inc.\n\n"
        "1. Services\nThe Supplier shall provide the Services with reasonable skill and care "
        "and in accordance with the Specifications.\n\n"
        "2. General\n"
        "2.1 All notices under this Agreement shall be in writing and delivered to the addresses "
        "set out above.\n"
        f"2.2 {body}\n"
        "2.3 This Agreement is the entire agreement of the parties on its subject matter.\n"
    )


def _zh_titled(title: str, body: str) -> str:
    return (
        "服务合同\n\n甲方：星河科技有限公司\n乙方：云帆信息有限公司\n\n"
        "第一条 定义\n1.1 “服务”是指本合同附件一所列的技术服务。\n\n"
        "第二条 服务内容\n乙方应按照甲方的要求提供技术服务，并按月提交服务报告。\n\n"
        f"第三条 {title}\n{body}\n\n"
        "第四条 通知\n本合同项下的通知均应以书面形式送达对方在本合同首部载明的地址。\n"
    )


def _zh_untitled(body: str) -> str:
    return (
        "服务合同\n\n甲方：星河科技有限公司\n乙方：云帆信息有限公司\n\n"
        "第一条 服务内容\n乙方应按照甲方的要求提供技术服务，并按月提交服务报告。\n\n"
        "第二条 其他约定\n"
        "2.1 本合同项下的通知均应以书面形式送达对方在本合同首部载明的地址。\n"
        f"2.2 {body}\n"
        "2.3 本合同一式两份，双方各执一份，具有同等效力。\n"
    )


def test_the_catalogue_covers_the_brief() -> None:
    names = {t.name for t in TOPICS}
    assert set(CUAD_TOPICS) <= names
    assert {"Indemnity", "Confidentiality", "Warranties", "Payment", "Force Majeure"} <= names
    assert {"Dispute Resolution", "Termination"} <= names
    assert len({t.topic_id for t in TOPICS}) == len(TOPICS)
    for topic in TOPICS:
        assert set(topic.skills) <= SKILLS, topic.topic_id
        assert topic.description
        assert "\n" not in topic.description
        assert any(not p.pattern.isascii() for p in topic.titles), f"no Chinese title: {topic.name}"
        assert any(not r.pattern.pattern.isascii() for r in topic.rules), (
            f"no Chinese rule: {topic.name}"
        )


def test_cuad_topic_names_are_the_cuad_category_names_verbatim() -> None:
    csv = CUAD / "category_descriptions.csv"
    if not csv.exists():
        pytest.skip("CUAD dev data not available")
    text = csv.read_text(encoding="utf-8-sig")
    for name in CUAD_TOPICS:
        assert f"Category: {name}," in text, name


@pytest.mark.parametrize(("topic", "title", "body"), EN_CASES, ids=[c[0] for c in EN_CASES])
def test_english_titled_clause(topic: str, title: str, body: str) -> None:
    assert _topic_clauses(_parse(_en_titled(title, body)), topic) == ["3"]


@pytest.mark.parametrize(("topic", "title", "body"), EN_CASES, ids=[c[0] for c in EN_CASES])
def test_english_untitled_sub_clause(topic: str, title: str, body: str) -> None:
    del title
    assert _topic_clauses(_parse(_en_untitled(body)), topic) == ["2.2"]


@pytest.mark.parametrize(("topic", "title", "body"), ZH_CASES, ids=[c[0] for c in ZH_CASES])
def test_chinese_titled_clause(topic: str, title: str, body: str) -> None:
    assert _topic_clauses(_parse(_zh_titled(title, body)), topic) == ["3"]


@pytest.mark.parametrize(("topic", "title", "body"), ZH_CASES, ids=[c[0] for c in ZH_CASES])
def test_chinese_untitled_sub_clause(topic: str, title: str, body: str) -> None:
    del title
    assert _topic_clauses(_parse(_zh_untitled(body)), topic) == ["2.2"]


def test_the_checklist_item_of_a_topic() -> None:
    structure = _parse(_en_titled("Limitation of Liability", EN_CASES[1][2]))
    items = [i for i in build_generic_checklist(structure) if i.topic == "Cap on Liability"]
    assert len(items) == 1
    item = items[0]
    assert item.clause_id == "3"
    assert item.clause_name == "Limitation of Liability"
    assert item.priority is Priority.CRITICAL
    assert "compare_with_baseline" in item.required_skills
    assert set(item.required_skills) <= SKILLS
    assert item.description
    assert "\n" not in item.description


def test_a_clause_may_hold_several_topics() -> None:
    body = (
        "This Agreement shall be governed by the laws of England and Wales, and any dispute "
        "arising out of it shall be resolved by arbitration in London."
    )
    found = {m.topic for m in detect_topics(_parse(_en_titled("Law and Disputes", body)))}
    assert {"Governing Law", "Dispute Resolution"} <= found


# --------------------------------------------------------------------------------------------
# Negatives
# --------------------------------------------------------------------------------------------


def test_a_definition_mentioning_governing_is_not_governing_law() -> None:
    text = (
        "SUPPLY AGREEMENT\n\nAlpha Inc., a corporation organized under the laws of the State of "
        "Delaware, and Beta Ltd agree as follows.\n\n"
        "1. Definitions\n"
        '1.1 "Applicable Law" means all laws governing the performance of this Agreement, as '
        "construed under the laws of any relevant jurisdiction.\n"
        '1.2 "Governing Body" means the board of directors of a party.\n\n'
        "2. Supply\nThe Supplier shall supply the Products ordered by the Buyer under this "
        "Agreement in accordance with the Specifications.\n"
    )
    assert _topic_clauses(_parse(text), "Governing Law") == []


def test_incorporation_under_the_laws_of_a_state_is_not_governing_law() -> None:
    body = (
        "The Supplier is a corporation duly organized and existing under the laws of the State "
        "of Delaware and has full power to enter into this Agreement."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "Governing Law") == []


def test_no_implied_licence_is_not_a_licence_grant() -> None:
    # Decision: a clause that only says no licence is granted is a reservation of rights, not a
    # License Grant (CUAD's category is "a license granted by one party to its counterparty").
    body = (
        "Nothing in this Agreement grants either party any license or other right in the other "
        "party's intellectual property, whether by implication, estoppel or otherwise."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "License Grant") == []
    assert _topic_clauses(_parse(_en_titled("No Implied Licence", body)), "License Grant") == []


def test_an_actual_grant_next_to_a_reservation_is_still_a_licence_grant() -> None:
    body = (
        "The Licensor hereby grants the Licensee a non-exclusive license to use the Marks in the "
        "Territory. No other license is granted by implication or otherwise."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "License Grant") == ["2.2"]


def test_non_exclusive_and_exclusive_remedy_are_not_exclusivity() -> None:
    body = (
        "The Licensor hereby grants the Licensee a non-exclusive license to use the Software. "
        "Repair or replacement is the Licensee's sole and exclusive remedy for defects."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "Exclusivity") == []


def test_termination_for_breach_is_not_termination_for_convenience() -> None:
    body = (
        "Either party may terminate this Agreement upon thirty (30) days' written notice if the "
        "other party materially breaches this Agreement and fails to cure the breach."
    )
    structure = _parse(_en_untitled(body))
    assert _topic_clauses(structure, "Termination for Convenience") == []
    assert _topic_clauses(structure, "Termination") == ["2.2"]


def test_survival_after_termination_for_any_reason_is_not_termination_for_convenience() -> None:
    body = (
        "Upon termination of this Agreement for any reason, Sections 4 (Confidentiality) and 7 "
        "(Limitation of Liability) shall survive."
    )
    structure = _parse(_en_untitled(body))
    assert _topic_clauses(structure, "Termination for Convenience") == []
    assert _topic_clauses(structure, "Cap on Liability") == []


def test_assignment_of_inventions_is_not_anti_assignment() -> None:
    body = (
        "The Consultant hereby assigns to the Company all right, title and interest in all "
        "inventions made in performing the Services."
    )
    structure = _parse(_en_untitled(body))
    assert _topic_clauses(structure, "Anti-Assignment") == []
    assert _topic_clauses(structure, "IP Ownership Assignment") == ["2.2"]


@pytest.mark.parametrize(
    "body",
    [
        "Either party may assign this Agreement without the consent of the other party to a "
        "successor in connection with a merger or the sale of all or substantially all of its "
        "assets.",
        "Either Party may assign this Agreement without the other Party's consent to an "
        "acquiring party in connection with the transfer or sale of all or substantially all of "
        "its business, whether by merger, sale of stock or otherwise.",
    ],
)
def test_assignment_carve_out_without_consent_is_not_change_of_control(body: str) -> None:
    assert _topic_clauses(_parse(_en_untitled(body)), "Change of Control") == []


def test_a_territorial_restraint_is_a_non_compete() -> None:
    body = (
        "The Distributor shall not, directly or indirectly, market, sell or distribute the "
        "Products outside the Territory during the Term."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "Non-Compete") == ["2.2"]


def test_a_restriction_on_promoting_competitors_is_a_non_compete() -> None:
    body = (
        "During the Term, the Publisher will not display any advertising banners or promotional "
        "placements of the Sponsor's Competitors on the Publisher Site."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "Non-Compete") == ["2.2"]


def test_a_right_to_grant_sublicences_does_not_veto_a_licence_grant() -> None:
    body = (
        "The Licensor hereby grants to the Licensee an exclusive, royalty-bearing license, with "
        "the right to grant sublicenses, under the Licensed Patents to develop and sell Products."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "License Grant") == ["2.2"]


def test_a_capacity_warranty_is_not_a_licence_grant() -> None:
    body = (
        "Each party represents that it has the full right and authority to grant the licenses "
        "set out in this Agreement and to perform its obligations."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "License Grant") == []


def test_a_transfer_of_a_majority_interest_is_a_change_of_control() -> None:
    body = (
        "Any transfer of a majority interest in the Franchisee, or of fifty percent (50%) or "
        "more of its capital stock, requires the Franchisor's prior written consent."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "Change of Control") == ["2.2"]


def test_a_press_release_schedule_is_no_evidence_of_terms() -> None:
    text = _en_titled(
        "Exclusivity",
        "During the Term the Supplier shall sell the Products exclusively through the "
        "Distributor and shall not appoint any other distributor in the Territory.",
    ) + (
        "\nSCHEDULE 1\nPRESS RELEASE\nFOR IMMEDIATE RELEASE. Beta Inc. today announced that "
        "it has acquired exclusive worldwide rights to distribute the Products of Alpha Ltd, "
        "becoming the exclusive distributor and sole source of the Products.\n"
    )
    assert _topic_clauses(_parse(text), "Exclusivity") == ["3"]


def test_a_chinese_clause_on_legal_effect_is_not_governing_law() -> None:
    body = "本合同未尽事宜，双方可另行签订补充协议，补充协议与本合同具有同等法律效力。"
    assert _topic_clauses(_parse(_zh_untitled(body)), "Governing Law") == []


# --------------------------------------------------------------------------------------------
# Generic fallback items and ordering
# --------------------------------------------------------------------------------------------

FALLBACK_TEXT = (
    "SERVICES AGREEMENT\n\nThis Agreement is made between Alpha Ltd and Beta Inc.\n\n"
    '1. Definitions\n1.1 "Services" means the services in Schedule 1.\n'
    '1.2 "Fees" means the fees in Schedule 2.\n\n'
    "2. Services\nThe Supplier shall provide the Services with reasonable skill and care and "
    "shall assign suitably qualified personnel to perform them.\n\n"
    "3. Governing Law\nThis Agreement is governed by the laws of England and Wales.\n\n"
    "4. Counterparts\nSigned in two.\n\n"
    "5. Publicity\nNeither party shall issue any press release about this Agreement without the "
    "approval of the other party.\n"
)


def test_clauses_without_a_topic_get_a_generic_item() -> None:
    structure = _parse(FALLBACK_TEXT)
    items = build_generic_checklist(structure)
    by_id = {i.clause_id: i for i in items}
    assert by_id["3"].topic == "Governing Law"
    for cid in ("2", "5"):
        item = by_id[cid]
        assert item.topic is None
        assert item.priority is Priority.LOW
        assert item.required_skills == ["get_clause_context"]
        assert item.description
    assert by_id["5"].clause_name == "Publicity"


def test_no_generic_item_for_preamble_definitions_or_tiny_clauses() -> None:
    structure = _parse(FALLBACK_TEXT)
    ids = {i.clause_id for i in build_generic_checklist(structure)}
    preamble = [c.clause_id for c in structure.clauses if c.kind is ClauseKind.PREAMBLE]
    assert preamble
    assert not ids & set(preamble)
    assert not ids & {"1", "1.1", "1.2"}  # definitions only
    assert "4" not in ids  # "Signed in two." is under 40 characters


def test_items_are_in_document_order() -> None:
    for text in (FALLBACK_TEXT, (EXAMPLES / "cn" / "construction_contract_zh.txt").read_text()):
        structure = _parse(text)
        starts = []
        for item in build_generic_checklist(structure):
            node = structure.get_clause(item.clause_id)
            assert node is not None
            starts.append(node.start_offset)
        assert starts == sorted(starts)


def test_topic_items_cover_their_sub_clauses() -> None:
    text = _en_titled(
        "Insurance",
        "3.1 The Supplier shall maintain commercial general liability insurance of not less than "
        "$1,000,000 per occurrence.\n3.2 The Supplier shall name the Customer as an additional "
        "insured and deliver certificates of insurance on request.",
    )
    items = build_generic_checklist(_parse(text))
    assert [i.clause_id for i in items if i.topic == "Insurance"] == ["3"]
    assert not {"3.1", "3.2"} & {i.clause_id for i in items}


# --------------------------------------------------------------------------------------------
# Chinese contracts
# --------------------------------------------------------------------------------------------

ZH_CONTRACT = """技术服务与许可合同

甲方：上海星河数据科技有限公司
乙方：杭州云帆信息技术有限公司

第一条 定义
1.1 “保密信息”是指一方向另一方披露的、尚未公开的技术信息和经营信息。
1.2 “适用法律”是指中华人民共和国现行有效的法律、行政法规。

第二条 服务内容
乙方应按照甲方的要求提供数据平台的开发、部署和运维服务，并按月提交服务报告。

第三条 费用与支付
3.1 本合同服务费总额为人民币伍佰万元整（¥5,000,000.00）。
3.2 甲方应在收到乙方开具的合法有效发票后三十日内支付当期服务费。

第四条 许可
乙方授予甲方一项非独占的、不可转让的许可，许可甲方在中国境内为内部经营目的使用平台软件。

第五条 知识产权
乙方为履行本合同专门开发的成果，其知识产权归甲方所有。乙方的背景技术仍归乙方所有。

第六条 保密
双方应对在履行本合同过程中知悉的对方保密信息承担保密义务，未经对方书面同意，不得向任何第三方披露。

第七条 排他与竞业禁止
7.1 在本合同有效期内，乙方不得与甲方的竞争对手就同类产品开展合作。
7.2 乙方承诺在合同期内及合同终止后一年内，不得从事与甲方相竞争的业务。

第八条 审计
甲方有权在提前十日书面通知后，审计乙方与本合同有关的账簿和记录。

第九条 保险
乙方应自费投保职业责任保险，保险金额不低于人民币一千万元，并在合同期内保持有效。

第十条 违约责任
10.1 乙方逾期交付的，每逾期一日，应按合同总额的千分之一向甲方支付违约金。
10.2 任何一方在本合同项下的累计赔偿总额不超过本合同总额的百分之百，但因故意或重大过失造成的损失除外。

第十一条 不可抗力
因不可抗力不能履行合同的，受影响一方应及时通知对方，并可根据影响程度部分或全部免除责任。

第十二条 合同的转让
未经对方书面同意，任何一方不得将本合同项下的权利义务转让给第三方。

第十三条 控制权变更
一方控制权发生变更的，应在变更后十日内书面通知对方，对方有权解除本合同。

第十四条 合同的解除
14.1 任何一方可提前三十日书面通知对方解除本合同。
14.2 一方严重违约且在收到通知后十五日内未纠正的，守约方有权解除本合同。

第十五条 适用法律与争议解决
15.1 本合同的订立、效力、解释和履行均适用中华人民共和国法律。
15.2 因本合同引起的争议，双方应协商解决；协商不成的，任何一方均可向上海国际仲裁中心申请仲裁。

第十六条 其他
本合同一式两份，双方各执一份，自双方签字盖章之日起生效。
"""


def test_a_chinese_commercial_contract() -> None:
    structure = _parse(ZH_CONTRACT)
    assert structure.language == "zh-CN"
    found = {(m.topic, m.clause_id) for m in detect_topics(structure)}
    expected = {
        ("Payment", "3"),
        ("License Grant", "4"),
        ("IP Ownership Assignment", "5"),
        ("Confidentiality", "6"),
        ("Exclusivity", "7"),
        ("Non-Compete", "7"),
        ("Audit Rights", "8"),
        ("Insurance", "9"),
        ("Liquidated Damages", "10"),
        ("Cap on Liability", "10.2"),
        ("Force Majeure", "11"),
        ("Anti-Assignment", "12"),
        ("Change of Control", "13"),
        ("Termination", "14"),
        ("Termination for Convenience", "14.1"),
        ("Governing Law", "15"),
        ("Dispute Resolution", "15"),
    }
    assert expected <= found, expected - found
    # The definition of 适用法律 in 1.2 is not a governing-law clause.
    assert not {cid for _, cid in found} & {"1", "1.1", "1.2"}
    items = build_generic_checklist(structure)
    # 第十六条 (30 characters) is substantive at the Chinese threshold (15 characters)
    assert [i.clause_id for i in items if i.topic is None] == ["2", "16"]


def test_the_chinese_construction_example() -> None:
    structure = _parse((EXAMPLES / "cn" / "construction_contract_zh.txt").read_text())
    found = {(m.topic, m.clause_id) for m in detect_topics(structure)}
    assert {
        ("Payment", "4"),
        ("Insurance", "12(4)"),
        ("Liquidated Damages", "16"),
        ("Force Majeure", "17"),
        ("Dispute Resolution", "18"),
        ("Termination", "19"),
    } <= found
    # It has no governing-law clause ("同等法律效力" is about legal effect).
    assert not [t for t, _ in found if t == "Governing Law"]
    items = build_generic_checklist(structure)
    assert all(i.clause_id != "preamble" for i in items)
    assert "1" not in {i.clause_id for i in items}  # 定义: definitions only


# --------------------------------------------------------------------------------------------
# Plugin registration
# --------------------------------------------------------------------------------------------


def test_register_generic_plugin() -> None:
    clear_plugins()
    try:
        register_generic_plugin()
        plugin = get_plugin("generic")
        assert plugin is not None
        assert plugin.build_checklist is not None
        items = plugin.build_checklist(_parse(FALLBACK_TEXT), None)
        assert any(i.topic == "Governing Law" for i in items)
        assert {b.key for b in plugin.baselines} == {t.name for t in TOPICS}
        cap = get_baseline_text("generic", "Cap on Liability")
        assert cap is not None
        assert "12 months" in cap
        assert len(BASELINES) == len(TOPICS)
    finally:
        clear_plugins()


# --------------------------------------------------------------------------------------------
# CUAD dev score
# --------------------------------------------------------------------------------------------


def _load_scorer() -> ModuleType:
    path = REPO / "bench" / "score_cuad_topics.py"
    spec = importlib.util.spec_from_file_location("score_cuad_topics", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["score_cuad_topics"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not (CUAD / "labels.json").exists(), reason="CUAD dev data not available")
def test_cuad_dev_clause_location_score() -> None:
    scorer = _load_scorer()
    result: dict[str, Any] = scorer.score(Path(CUAD))
    print("\n" + scorer.report(result))
    assert result["contracts"] == 39
    assert set(result["categories"]) == set(CUAD_TOPICS)
    # Measured on the 39 dev contracts under the headline rule (the prediction is the smallest
    # parsed clause holding the span, the clauses where each topic is written): micro precision
    # 0.754 / recall 0.822, macro 0.704 / 0.762. The aim (every category >= 0.75 / 0.85) is not
    # reached: IP Ownership Assignment, Liquidated Damages, Change of Control, Exclusivity and
    # Non-Compete are the weak categories. The floors sit about 0.03 under the measured figures.
    assert result["micro"]["precision"] >= 0.72
    assert result["micro"]["recall"] >= 0.79
    assert result["macro"]["recall"] >= 0.73
    assert result["macro"]["precision"] >= 0.67
    contain = scorer.score(Path(CUAD), rule="contain", where="checklist")
    assert contain["micro"]["recall"] >= 0.83  # the checklist's clauses hold the spans (0.853)


# --------------------------------------------------------------------------------------------
# One clause, one analysis
# --------------------------------------------------------------------------------------------

_TWO_TOPICS = """MASTER SERVICES AGREEMENT

1. Services
Provider shall perform the services described in each statement of work.

2. Term and Termination
Either party may terminate this Agreement for material breach not cured within thirty (30)
days of written notice. Customer may also terminate this Agreement at any time, for any reason
or no reason, upon ninety (90) days' prior written notice to Provider.

3. Governing Law
This Agreement is governed by the laws of the State of Delaware.
"""


def test_a_clause_under_several_topics_is_one_item_with_all_of_them() -> None:
    structure = _parse(_TWO_TOPICS)
    items = build_generic_checklist(structure)
    on_21 = [i for i in items if i.clause_id == "2"]
    assert len(on_21) >= 2  # the topic recogniser lists the clause once per topic
    merged = one_item_per_clause(items)
    assert [i.clause_id for i in merged] == list(dict.fromkeys(i.clause_id for i in items))
    (item,) = [i for i in merged if i.clause_id == "2"]
    assert set(item.topics) == {i.topic for i in on_21}
    assert item.topic == on_21[0].topic
    assert set(item.required_skills) == {s for i in on_21 for s in i.required_skills}
    assert all(i.description in item.description for i in on_21)
    low = ReviewChecklistItem(clause_id="9", priority=Priority.LOW, required_skills=["a"])
    high = ReviewChecklistItem(
        clause_id="9", priority=Priority.CRITICAL, required_skills=["b", "a"], topic="Cap"
    )
    (both,) = one_item_per_clause([low, high])
    assert (both.priority, both.required_skills, both.topics) == (
        Priority.CRITICAL,
        ["a", "b"],
        ["Cap"],
    )


def test_a_topic_clause_points_at_the_sub_clauses_that_carry_it() -> None:
    text = (
        "11. Services\nProvider shall perform the services.\n"
        "12. Insurance\n12.1 Provider shall maintain commercial general liability insurance "
        "with limits of not less than $1,000,000 per occurrence.\n"
        "12.2 Notices under this Section go to the addresses below.\n"
        "12.3 Provider shall name Customer as an additional insured on its insurance policies.\n"
    )
    (match,) = [m for m in detect_topics(_parse(text)) if m.topic == "Insurance"]
    assert match.clause_id == "12"
    assert match.parts == ("12.1", "12.3")


def test_a_review_analyses_each_clause_once(tmp_path: Path) -> None:
    findings = review_findings(tmp_path, _TWO_TOPICS, "Customer")
    ids = [c["item"]["clause_id"] for c in findings["clauses"]]
    assert len(ids) == len(set(ids))
    (termination,) = [c for c in findings["clauses"] if c["item"]["clause_id"] == "2"]
    assert {"Termination", "Termination for Convenience"} <= {
        termination["item"]["topic"],
        *termination["item"]["other_topics"],
    }


def test_terminable_on_notice_is_termination_for_convenience() -> None:
    # 'terminable', not 'terminate'
    body = (
        "This Agreement shall be terminable by either party at any time upon sixty (60) days' "
        "written notice to the other party."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "Termination for Convenience") == ["2.2"]


@pytest.mark.parametrize(
    "body",
    [
        # a promise not to deal with anyone else
        "The Association agrees not to grant the right to use its name and logo to anyone other "
        "than the Sponsor in connection with the advertising of beverages.",
        # a licence said to be exclusive after its subject matter
        "The licence granted for the translated content shall be exclusive for display on the "
        "open web.",
        # an exclusive licence whose scope names Confidential Information
        "Northwind hereby grants Brightwater a worldwide, irrevocable, exclusive, sublicensable "
        "and royalty free license to use the Process and the related Northwind Confidential "
        "Information for making the Product.",
    ],
)
def test_exclusivity_written_without_the_usual_words(body: str) -> None:
    assert _topic_clauses(_parse(_en_untitled(body)), "Exclusivity") == ["2.2"]


def test_confidential_information_used_exclusively_is_not_exclusivity() -> None:
    body = (
        "The Recipient shall use the Confidential Information exclusively for the purpose of "
        "evaluating the Transaction."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "Exclusivity") == []


def test_handing_back_domain_names_on_termination_is_ip_ownership_assignment() -> None:
    body = (
        "Upon any termination or expiration of this Agreement, the Distributor shall promptly "
        "transfer the Domain Names back to the Manufacturer."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "IP Ownership Assignment") == ["2.2"]


def test_a_survival_list_does_not_hold_the_topics_it_names() -> None:
    body = (
        "Upon termination, the following provisions shall continue in full force and effect: "
        'Article 1 ("Definitions"), Section 12.3 ("Change of Control") and Article 14 '
        '("Confidentiality").'
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "Change of Control") == []


def test_keeping_records_is_not_an_audit_right() -> None:
    structure = _parse(
        _en_titled(
            "Maintenance of Records",
            "The Distributor shall maintain accurate and up to date records and books of account "
            "showing the quantity and value of the Products sold.",
        )
    )
    assert _topic_clauses(structure, "Audit Rights") == []


def test_having_no_remedy_for_a_statement_is_not_insurance() -> None:
    body = (
        "Each Party acknowledges that it has not relied on, and shall have no right or remedy in "
        "respect of any statement, representation, insurance or warranty other than as "
        "expressly set out in this Agreement."
    )
    assert _topic_clauses(_parse(_en_untitled(body)), "Insurance") == []


@pytest.mark.parametrize(
    "text",
    [
        _en_untitled(
            "The prices are inclusive of packaging, freight and transit insurance to the "
            "delivery point."
        ),
        _zh_untitled("货物单价为含税价，包含增值税、包装费、运输费及运输保险费。"),
    ],
)
def test_a_price_that_includes_insurance_is_not_an_insurance_clause(text: str) -> None:
    assert _topic_clauses(_parse(text), "Insurance") == []
