"""The sha_spa skills: conditions, warranties, indemnities (SPA) and governance (SHA)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from contract_review.errors import SkillError
from contract_review.models import DocumentStructure
from contract_review.plugins.sha_spa.skills import (
    conditions,
    governance,
    indemnity,
    reps_warranties,
)
from contract_review.plugins.sha_spa.skills.conditions import ConditionsInput
from contract_review.plugins.sha_spa.skills.governance import GovernanceInput
from contract_review.plugins.sha_spa.skills.indemnity import MARKET_STANDARDS, IndemnityInput
from contract_review.plugins.sha_spa.skills.reps_warranties import WarrantiesInput
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.structure_parser import StructureParser
from tests.conftest import EXAMPLES, FIXTURES, REPO

SPA_ZH = """股权转让协议

转让方：海澜控股有限公司（以下简称“卖方”）
受让方：北辰资本有限公司（以下简称“买方”）

第一条 定义
1.1 “转让价款”指人民币壹亿元整（¥100,000,000.00）。

第二条 交割先决条件
2.1 交割以下列条件全部满足（或被豁免）为前提：
（一）买方取得国家市场监督管理总局关于经营者集中的批准；
（二）目标公司未发生重大不利变化；
（三）卖方取得目标公司重大合同相对方的书面同意函。
2.2 第2.1条第（二）项条件仅可由卖方书面豁免。
2.3 如上述条件未能在2025年9月30日（“最终截止日”）前全部满足，买方有权解除本协议。

第三条 陈述与保证
3.1 卖方向买方作出如下陈述与保证，且该等陈述与保证于交割日重复作出：
（一）权属：卖方合法持有目标股权，不存在任何质押或其他权利负担；
（二）税务：据卖方所知，目标公司已依法缴纳全部税款；
（三）财务报表：目标公司财务报表在所有重大方面真实、准确地反映其财务状况。
3.2 上述陈述与保证以披露函所披露的事项为限。

第四条 赔偿责任限制
4.1 卖方就违反陈述与保证承担的赔偿总额不超过转让价款的百分之二十。
4.2 买方的索赔累计金额超过转让价款的百分之一时，卖方仅就超出部分承担赔偿责任。
4.3 买方应在交割日后二十四个月内书面通知卖方提出索赔。
4.4 对于南岭诉讼给目标公司造成的全部损失，卖方应向买方全额赔偿。
"""

SHA_EN = """SHAREHOLDERS' AGREEMENT

This Agreement is made between Alder Founders Ltd (the "Founder") and Birchwood Ventures LP (the "Investor") in respect of Cedar Robotics Ltd (the "Company").

1. Board

1.1 The Board shall consist of five directors.

1.2 The Founder shall be entitled to appoint three directors; and the Investor shall be entitled to appoint one director.

1.3 A quorum at any board meeting shall be three directors, which must include the director appointed by the Investor.

2. Reserved Matters

2.1 The Company shall not take any of the following actions without the prior written consent of the Investor:

(a) any issue of new shares or other securities;

(b) any amendment to the articles of association;

(c) the winding up of the Company.

3. Deadlock

3.1 If a deadlock continues for 30 days, either shareholder may refer the matter to mediation; the chairman shall have no casting vote.

4. Transfers

4.1 Each Shareholder shall have a right of pre-emption on any issue of new shares pro rata to its holding.

4.2 The Founder shall not transfer any shares for a lock-up period of 24 months after the date of this Agreement.

4.3 If the Founder proposes to sell shares carrying more than 50% of the voting rights, the Investor shall be entitled to sell its shares on the same terms (tag-along).

4.4 If holders of 75% of the shares accept an offer for the whole of the Company, they may require all other shareholders to sell (drag-along), provided that the price per share is not less than the price paid by the Investor.

4.5 A Founder who leaves as a bad leaver shall sell his shares at the lower of cost and fair value.
"""


def _parse(text: str) -> DocumentStructure:
    return StructureParser().parse(text, document_id="test")


@pytest.fixture(scope="module")
def spa_en() -> DocumentStructure:
    return _parse((EXAMPLES / "sha_spa" / "spa_en.txt").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def sha_zh() -> DocumentStructure:
    return _parse(
        (EXAMPLES / "sha_spa" / "shareholders_agreement_zh.txt").read_text(encoding="utf-8")
    )


@pytest.fixture(scope="module")
def spa_zh() -> DocumentStructure:
    return _parse(SPA_ZH)


@pytest.fixture(scope="module")
def sha_en() -> DocumentStructure:
    return _parse(SHA_EN)


def _codes(gaps: list[Any]) -> set[str]:
    return {g.code for g in gaps} | {g.key for g in gaps}


def _call(
    reg: Any, clause_id: str, structure: DocumentStructure, state: dict[str, Any], **args: Any
) -> dict[str, Any]:
    dispatcher = SkillDispatcher()
    dispatcher.register(reg)
    result = asyncio.run(
        dispatcher.prepare_and_call(
            reg.skill_id, clause_id, structure, state, llm_arguments=args or None
        )
    )
    assert result.success, result.error
    return result.data


# --------------------------------------------------------------------------------------------
# spa_extract_conditions
# --------------------------------------------------------------------------------------------


def test_conditions_en(spa_en: DocumentStructure) -> None:
    out = conditions.handle(
        ConditionsInput(clause_id="3", our_party="Buyer", document_structure=spa_en)
    )
    by_id = {c.clause_id: c for c in out.conditions}
    assert [c.kind for c in out.conditions] == [
        "regulatory",
        "no_mac",
        "third_party_consent",
        "deliverable",
    ]
    assert by_id["3.1(a)"].responsible == "us"
    assert by_id["3.1(a)"].not_waivable
    assert by_id["3.1(b)"].waivable_by == ["them"]
    assert by_id["3.1(c)"].responsible == "them"
    assert by_id["3.1(c)"].waivable_by == ["us"]
    assert out.termination_rights[0].holders == ["them"]
    assert "mac_waivable_only_by_other_side" in _codes(out.gaps)
    text = (EXAMPLES / "sha_spa" / "spa_en.txt").read_text(encoding="utf-8")
    q = by_id["3.1(b)"].text
    assert text[q.start : q.end] == q.quote


def test_conditions_document_scope_long_stop(spa_en: DocumentStructure) -> None:
    out = conditions.handle(
        ConditionsInput(
            clause_id="3", scope="document", our_party="Buyer", document_structure=spa_en
        )
    )
    assert out.long_stop is not None
    assert out.long_stop.period_months == 4
    assert out.long_stop.extendable_by == ["them"]
    assert "long_stop_extendable_by_other_side" in _codes(out.gaps)
    assert "no_long_stop_date" not in _codes(out.gaps)


def test_conditions_zh(spa_zh: DocumentStructure) -> None:
    out = conditions.handle(
        ConditionsInput(clause_id="2", our_party="买方", document_structure=spa_zh)
    )
    kinds = {c.clause_id: (c.kind, c.responsible, c.waivable_by) for c in out.conditions}
    assert kinds["2.1(1)"] == ("regulatory", "us", [])
    assert kinds["2.1(2)"] == ("no_mac", "unspecified", ["them"])
    assert kinds["2.1(3)"][:2] == ("third_party_consent", "them")
    assert out.long_stop is not None
    assert out.long_stop.date == "2025年9月30日"
    assert out.termination_rights[0].holders == ["us"]
    assert "mac_waivable_only_by_other_side" in _codes(out.gaps)
    assert "no_termination_right_for_us" not in _codes(out.gaps)


def test_conditions_seller_side_has_no_mac_gap(spa_en: DocumentStructure) -> None:
    out = conditions.handle(
        ConditionsInput(clause_id="3", our_party="Seller", document_structure=spa_en)
    )
    assert "mac_waivable_only_by_other_side" not in _codes(out.gaps)
    assert "no_termination_right_for_us" not in _codes(out.gaps)


def test_conditions_through_dispatcher(spa_en: DocumentStructure) -> None:
    data = _call(conditions.REGISTRATION, "3", spa_en, {"our_party": "Buyer"})
    assert data["our_roles"] == ["buyer"]
    assert len(data["conditions"]) == 4


def test_unknown_clause_is_a_skill_error(spa_en: DocumentStructure) -> None:
    with pytest.raises(SkillError, match="not found"):
        conditions.handle(ConditionsInput(clause_id="99", document_structure=spa_en))
    with pytest.raises(SkillError, match="no document structure"):
        governance.handle(GovernanceInput(clause_id="1", scope="document"))
    dispatcher = SkillDispatcher()
    dispatcher.register(indemnity.REGISTRATION)
    result = asyncio.run(dispatcher.prepare_and_call(indemnity.SKILL_ID, "99", spa_en, {}))
    assert not result.success
    assert result.error is not None
    assert "not found" in result.error


# --------------------------------------------------------------------------------------------
# spa_extract_reps_warranties
# --------------------------------------------------------------------------------------------


def test_warranties_en(spa_en: DocumentStructure) -> None:
    out = reps_warranties.handle(
        WarrantiesInput(clause_id="6", our_party="Buyer", document_structure=spa_en)
    )
    assert out.topics == [
        "title",
        "capacity",
        "accounts",
        "tax",
        "litigation",
        "ip",
        "employees",
        "compliance",
    ]
    by_topic = {w.topic: w for w in out.warranties}
    assert by_topic["tax"].knowledge_qualifier == "so far as the Seller is aware"
    assert by_topic["accounts"].materiality_qualifier == "in all material respects"
    assert by_topic["title"].knowledge_qualifier is None
    assert by_topic["litigation"].specific_exception == "save for the Eastfield Claim"
    assert out.repeated_at_completion is False
    assert out.disclosure
    assert {"warranties_not_repeated", "knowledge_qualified_key_warranty:tax"} <= _codes(out.gaps)


def test_warranties_zh(spa_zh: DocumentStructure) -> None:
    out = reps_warranties.handle(
        WarrantiesInput(clause_id="3", our_party="买方", document_structure=spa_zh)
    )
    by_topic = {w.topic: w for w in out.warranties}
    assert set(by_topic) == {"title", "tax", "accounts"}
    assert by_topic["tax"].knowledge_qualifier == "据卖方所知"
    assert by_topic["accounts"].materiality_qualifier == "重大方面"
    assert out.repeated_at_completion is True
    assert len(out.disclosure) == 1
    assert "knowledge_qualified_key_warranty:tax" in _codes(out.gaps)
    assert "warranties_not_repeated" not in _codes(out.gaps)


def test_warranties_seller_view(spa_zh: DocumentStructure) -> None:
    out = reps_warranties.handle(
        WarrantiesInput(clause_id="3", our_party="卖方", document_structure=spa_zh)
    )
    assert "warranties_repeated_at_completion" in _codes(out.gaps)
    assert "knowledge_qualified_key_warranty" not in _codes(out.gaps)


def test_warranties_through_dispatcher(spa_en: DocumentStructure) -> None:
    data = _call(
        reps_warranties.REGISTRATION, "6", spa_en, {"our_party": "Buyer"}, scope="document"
    )
    assert data["scope"] == "document"
    assert data["repeated_at_completion"] is False
    assert not any(g["code"] == "missing_core_warranty" for g in data["gaps"])


# --------------------------------------------------------------------------------------------
# spa_indemnity_analysis
# --------------------------------------------------------------------------------------------


def test_indemnity_en(spa_en: DocumentStructure) -> None:
    out = indemnity.handle(
        IndemnityInput(clause_id="7", our_party="Buyer", document_structure=spa_en)
    )
    assert out.purchase_price == 40_000_000
    assert [c.percent_of_price for c in out.caps] == [5.0]
    assert out.basket is not None
    assert (out.basket.basket_type, out.basket.percent_of_price) == ("tipping", 2.0)
    assert out.de_minimis is not None
    assert out.de_minimis.amount == 25_000
    assert [(t.months, t.applies_to) for t in out.time_limits] == [(18, "general"), (48, "tax")]
    assert out.fraud_carve_out
    assert {"cap_below_market", "short_claims_period", "basket_above_market"} <= _codes(out.gaps)
    assert out.market_standards["source"].startswith("market practice summary, our words")


def test_indemnity_zh(spa_zh: DocumentStructure) -> None:
    out = indemnity.handle(
        IndemnityInput(clause_id="4", our_party="买方", document_structure=spa_zh)
    )
    assert out.purchase_price == 100_000_000
    assert [c.percent_of_price for c in out.caps] == [20.0]
    assert out.basket is not None
    assert (out.basket.basket_type, out.basket.percent_of_price) == ("deductible", 1.0)
    assert [(t.months, t.applies_to) for t in out.time_limits] == [(24, "general")]
    assert [s.topic for s in out.specific_indemnities] == ["litigation"]
    codes = _codes(out.gaps)
    assert "deductible_basket" in codes
    assert not {"cap_below_market", "short_claims_period", "basket_above_market"} & codes


def test_indemnity_seller_view(spa_en: DocumentStructure) -> None:
    out = indemnity.handle(
        IndemnityInput(clause_id="7", our_party="Seller", document_structure=spa_en)
    )
    codes = _codes(out.gaps)
    assert "tipping_basket" in codes
    assert "cap_below_market" not in codes


def test_indemnity_through_dispatcher(spa_en: DocumentStructure) -> None:
    data = _call(
        indemnity.REGISTRATION, "8", spa_en, {"our_party": "Buyer"}, purchase_price=50_000_000
    )
    assert data["purchase_price"] == 50_000_000
    assert data["specific_indemnities"][0]["topic"] == "tax"
    assert data["specific_indemnities"][0]["within_cap"] is True


def test_market_standards_are_data() -> None:
    assert MARKET_STANDARDS["cap_percent_of_price"] == {"low": 10.0, "high": 30.0}
    assert MARKET_STANDARDS["claims_period_months"]["high"] == 24.0


# --------------------------------------------------------------------------------------------
# sha_governance_check
# --------------------------------------------------------------------------------------------


def test_governance_zh(sha_zh: DocumentStructure) -> None:
    out = governance.handle(
        GovernanceInput(clause_id="2", our_party="投资方", document_structure=sha_zh)
    )
    assert out.board_size == 5
    seats = [(a.side, a.role, a.seats) for a in out.appointments]
    assert ("them", "director", 4) in seats
    assert ("us", "observer", 1) in seats
    assert ("them", "chair", 1) in seats
    assert "no_board_seat_for_us" in _codes(out.gaps)


def test_governance_zh_reserved_and_transfers(sha_zh: DocumentStructure) -> None:
    out = governance.handle(
        GovernanceInput(
            clause_id="1", scope="document", our_party="投资方", document_structure=sha_zh
        )
    )
    veto = out.reserved_matters[0]
    assert veto.holders == ["us"]
    assert len(veto.matters) == 4
    assert "issuance" not in veto.topics
    assert "liquidation" in veto.topics
    kinds = {r.kind: r for r in out.rights}
    assert kinds["lock_up"].months == 36
    assert kinds["lock_up"].holders == ["them"]
    drag = next(r for r in out.rights if r.kind == "drag_along" and r.threshold_percent)
    assert drag.threshold_percent == 50
    assert drag.minimum_price is False
    assert any(r.kind == "preemption" and r.holders == ["both"] for r in out.rights)
    codes = _codes(out.gaps)
    assert {"no_veto_new_issuance", "casting_vote_other_side", "no_tag_along_for_us"} <= codes
    assert "no_preemption_for_us" not in codes


def test_governance_en(sha_en: DocumentStructure) -> None:
    out = governance.handle(
        GovernanceInput(
            clause_id="1", scope="document", our_party="Investor", document_structure=sha_en
        )
    )
    assert out.board_size == 5
    assert ("us", "director", 1) in [(a.side, a.role, a.seats) for a in out.appointments]
    veto = out.reserved_matters[0]
    assert veto.holders == ["us"]
    assert veto.topics == ["issuance", "articles", "liquidation"]
    kinds = {r.kind: r for r in out.rights}
    assert kinds["tag_along"].holders == ["us"]
    assert kinds["drag_along"].threshold_percent == 75
    assert kinds["drag_along"].minimum_price is True
    assert kinds["lock_up"].months == 24
    assert out.gaps == []


def test_governance_founder_view(sha_en: DocumentStructure) -> None:
    data = _call(governance.REGISTRATION, "2", sha_en, {"our_party": "Founder"})
    assert [g["code"] for g in data["gaps"]] == ["minority_veto_over_issuance"]


def test_tool_definitions_hide_internal_fields() -> None:
    for reg in (
        conditions.REGISTRATION,
        reps_warranties.REGISTRATION,
        indemnity.REGISTRATION,
        governance.REGISTRATION,
    ):
        params = reg.to_tool_definition()["function"]["parameters"]["properties"]
        assert "document_structure" not in params
        assert "review_context" not in params
        assert {"clause_id", "scope", "our_party"} <= set(params)
        assert reg.domain == "sha_spa"


# --------------------------------------------------------------------------------------------
# Planted issues
# --------------------------------------------------------------------------------------------

_SKILLS = {
    r.skill_id: r
    for r in (
        conditions.REGISTRATION,
        reps_warranties.REGISTRATION,
        indemnity.REGISTRATION,
        governance.REGISTRATION,
    )
}


@pytest.mark.parametrize("fixture", ["spa_en.json", "sha_zh.json"])
def test_planted_issues_are_found(fixture: str) -> None:
    planted = json.loads((FIXTURES / "planted" / fixture).read_text(encoding="utf-8"))
    text = (REPO / planted["document"]).read_text(encoding="utf-8")
    structure = _parse(text)
    state = {"our_party": planted["our_party"]}
    found: dict[str, set[str]] = {}
    for skill_id in {i["detected_by"] for i in planted["issues"]}:
        first = structure.clauses[0].clause_id
        data = _call(_SKILLS[skill_id], first, structure, state, scope="document")
        found[skill_id] = {g["code"] for g in data["gaps"]} | {
            f"{g['code']}:{g['topic']}" for g in data["gaps"] if g["topic"]
        }
    missed = [
        (i["clause"], i["expect"])
        for i in planted["issues"]
        if i["expect"] not in found[i["detected_by"]]
    ]
    assert missed == []
    assert all(i["severity"] in ("high", "medium", "low") for i in planted["issues"])
