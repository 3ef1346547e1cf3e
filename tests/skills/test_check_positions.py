"""check_positions: one-sided terms judged from our side — against us, favourable, or balanced."""

from __future__ import annotations

import asyncio

import pytest

from contract_review.models import RiskLevel
from contract_review.plugins import create_dispatcher, load_builtin_plugins
from contract_review.plugins.registry import get_plugin
from contract_review.skills.context import prepare_context
from contract_review.skills.local.check_positions import (
    CheckPositionsOutput,
    favourable_rule,
    risk_rule,
)
from contract_review.skills.risks import RiskFactory
from contract_review.structure_parser import StructureParser

EN = """SERVICES AGREEMENT

This Agreement is made between Nordlicht Software GmbH (the "Supplier") and Harbourside Foods Ltd (the "Client").

1. Termination
1.1 The Supplier may terminate this Agreement for convenience at any time by written notice.
1.2 The Client may terminate this Agreement for convenience on ninety (90) days' notice.
1.3 Either party may terminate this Agreement for convenience on ninety (90) days' notice.
1.4 Either party may terminate this Agreement if the other party commits a material breach and fails to remedy it within thirty (30) days.

2. Liability
2.1 The Client shall indemnify the Supplier against all losses arising from the Services, regardless of whether they were caused by the negligence of the Supplier.
2.2 Each party shall indemnify the other against losses caused by its own negligence.
"""

ZH = """技术服务合同

甲方（委托方）：宁波海曙智能科技有限公司
乙方（受托方）：成都天府数码服务有限公司

第一条 解除
乙方可以在任何时候单方解除本合同。
任何一方严重违约的，对方有权解除本合同。

第二条 变更
乙方另行书面通知的内容即构成本合同的组成部分。

第三条 排他
甲方不得向任何第三方采购同类服务。
"""


def _findings(text: str, party: str, clause_id: str) -> CheckPositionsOutput:
    load_builtin_plugins()
    plugin = get_plugin("generic")
    assert plugin is not None
    structure = StructureParser().parse(text, document_id="c")
    ctx = prepare_context(side=party, domain_id="generic", baselines=plugin, structure=structure)
    result = asyncio.run(
        create_dispatcher().prepare_and_call("check_positions", clause_id, structure, ctx)
    )
    assert result.success, result.error
    return CheckPositionsOutput.model_validate(result.data)


def _effects(out: CheckPositionsOutput) -> list[tuple[str, str, RiskLevel]]:
    return [(f.position_id, f.effect, f.level) for f in out.findings]


def test_a_right_only_they_hold_is_against_us() -> None:
    out = _findings(EN, "Client", "1.1")
    assert _effects(out) == [
        ("one_sided_termination_for_convenience", "against_us", RiskLevel.HIGH)
    ]
    assert "at any time" in out.findings[0].breadth
    assert out.findings[0].quote.startswith("1.1 The Supplier may terminate")
    assert out.findings[0].holder == "Supplier"


def test_the_same_right_for_us_favours_us_and_for_both_is_balanced() -> None:
    assert _effects(_findings(EN, "Supplier", "1.1")) == [
        ("one_sided_termination_for_convenience", "favourable", RiskLevel.HIGH)
    ]
    mine = _findings(EN, "Client", "1.2")
    assert [f.effect for f in mine.findings] == ["favourable"]
    assert mine.findings[0].level is RiskLevel.MEDIUM  # no breadth: the position's level
    assert _findings(EN, "Client", "1.3").findings == []  # either party: balanced
    assert _findings(EN, "Client", "1.4").findings == []  # termination for breach: no term


def test_a_duty_only_we_bear_is_against_us() -> None:
    assert _effects(_findings(EN, "Client", "2.1")) == [
        ("one_sided_indemnity", "against_us", RiskLevel.HIGH)
    ]
    assert _effects(_findings(EN, "Supplier", "2.1")) == [
        ("one_sided_indemnity", "favourable", RiskLevel.HIGH)
    ]
    assert _findings(EN, "Client", "2.2").findings == []


@pytest.mark.parametrize(
    ("party", "clause", "expected"),
    [
        ("甲方", "1", ["against_us"]),  # 乙方可以在任何时候单方解除; 任何一方…对方有权 is balanced
        ("乙方", "1", ["favourable"]),
        ("甲方", "2", ["against_us"]),  # no modal: held by the party the sentence names first
        ("甲方", "3", ["against_us"]),
        ("乙方", "3", ["favourable"]),
    ],
)
def test_chinese(party: str, clause: str, expected: list[str]) -> None:
    assert [f.effect for f in _findings(ZH, party, clause).findings] == expected


def test_a_neutral_review_names_whom_each_term_burdens() -> None:
    """Neutral: one-sided terms against either party, each naming the party it is against;
    mutual terms stay balanced."""
    out = _findings(EN, "", "1")
    assert out.our_party == ""
    burdened = {(f.quote.split()[0], f.burdens) for f in out.findings}
    assert ("1.1", "Client") in burdened  # the Supplier alone may terminate at any time
    assert ("1.2", "Supplier") in burdened  # the Client alone may terminate
    assert not any(q in ("1.3", "1.4") for q, _ in burdened)
    assert all(f.effect == "against_us" for f in out.findings)
    indemnity = _findings(EN, "", "2")
    assert [(f.quote.split()[0], f.burdens) for f in indemnity.findings] == [("2.1", "Client")]


def test_terms_against_the_other_side_are_favourable_terms() -> None:
    load_builtin_plugins()
    plugin = get_plugin("generic")
    assert plugin is not None
    structure = StructureParser().parse(EN, document_id="c")
    clause = structure.get_clause("1.1")
    assert clause is not None
    for party, favourable, risky in (("Supplier", 1, 0), ("Client", 0, 1)):
        out = _findings(EN, party, "1.1")
        factory = RiskFactory(clause)
        terms = favourable_rule(factory, out)
        assert len(terms) == favourable
        assert len(risk_rule(factory, out)) == risky
    (term,) = favourable_rule(RiskFactory(clause), _findings(EN, "Supplier", "1.1"))
    assert term.position_id == "one_sided_termination_for_convenience"
    assert term.location is not None
    assert EN[term.location.start_offset : term.location.end_offset] == term.location.original_text


COMMON = """SUPPLY AGREEMENT

This Agreement is made between Nordlicht Software GmbH (the "Supplier") and Harbourside Foods Ltd (the "Client").

1. Common Wording
1.1 The Supplier shall indemnify the Client against all losses, including without limitation legal fees and other liabilities, caused by its negligence.
1.2 The courts of England shall have exclusive jurisdiction over any dispute.
1.3 All Deliverables shall be the exclusive property of the Client upon payment.
1.4 The Client shall pay each invoice within thirty (30) days.
1.5 The Supplier will indemnify the Client from any and all third party claims, liability, damages and costs (including, but not limited to, reasonable attorneys' fees) arising from its breach.
1.6 The Supplier is not responsible for any delay caused by the Client's failure to provide data on time.
1.7 The Client shall indemnify the Supplier against third party claims arising from its breach.
"""


@pytest.mark.parametrize("party", ["Supplier", "Client"])
def test_common_wording_is_no_one_sided_term(party: str) -> None:
    """'including without limitation', 'including, but not limited to', 'exclusive
    jurisdiction', 'exclusive property' and a payment term are ordinary drafting, whichever
    side we act for (each side gives an indemnity: 1.7 answers 1.1 and 1.5)."""
    for clause in ("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7"):
        assert _findings(COMMON, party, clause).findings == [], clause


NUMBERS = """SUBSCRIPTION AGREEMENT

This Agreement is made between Nordlicht Software GmbH (the "Supplier") and Harbourside Foods Ltd (the "Client").

1. Payment
1.1 The Client shall pay each invoice within thirty (30) days.
1.2 Any amount not paid when due bears interest at two percent (2%) per month.
1.3 Any amount not paid when due bears interest at four percent (4%) per annum.

2. Liability
2.1 The Supplier's total liability shall not exceed the fees paid in the one (1) month before the claim.
2.2 The Supplier's total liability shall not exceed the fees paid in the twelve (12) months before the claim.

3. Term
3.1 This Agreement renews automatically for further periods of one year unless the Client gives notice of non-renewal at least one hundred and twenty-five (125) days before the end of the term.
"""


@pytest.mark.parametrize(
    ("party", "clause", "expected"),
    [
        # 2% a month is 24% a year: beyond the 18% fallback; the payer is the Client
        ("Client", "1.2", [("late_payment_interest", "against_us", RiskLevel.MEDIUM)]),
        ("Supplier", "1.2", [("late_payment_interest", "favourable", RiskLevel.MEDIUM)]),
        ("Client", "1.3", []),  # 4% a year: within the standard
        # a cap of one month's fees on the Supplier: below the 3-month walk-away, for the Client
        ("Client", "2.1", [("liability_cap_level", "against_us", RiskLevel.HIGH)]),
        ("Supplier", "2.1", [("liability_cap_level", "favourable", RiskLevel.HIGH)]),
        ("Client", "2.2", []),  # twelve months: the standard
        ("Client", "3.1", [("non_renewal_notice", "against_us", RiskLevel.HIGH)]),
    ],
)
def test_numbers_against_the_tiers(
    party: str, clause: str, expected: list[tuple[str, str, RiskLevel]]
) -> None:
    assert _effects(_findings(NUMBERS, party, clause)) == expected


def test_a_chinese_daily_rate_is_annualised() -> None:
    text = "买卖合同\n\n甲方（买方）：华东精密仪器有限公司\n乙方（卖方）：北岭机电设备有限公司\n\n第一条 付款\n甲方逾期付款的，每逾期一日按逾期金额的千分之三支付违约金。\n"
    out = _findings(text, "甲方", "1")
    assert _effects(out) == [("late_payment_interest", "against_us", RiskLevel.HIGH)]
    assert out.findings[0].value == pytest.approx(109.5)  # 0.3% a day = 109.5% a year
    assert out.findings[0].measure == "annual_rate"


OWNERSHIP = """EQUIPMENT PURCHASE AGREEMENT

This Agreement is made between Vantor Robotics AG (the "Seller") and Pinecrest Packaging LLC (the "Buyer").

1. Price
1.1 The total price for the Equipment is EUR 2,000,000.
1.2 The Buyer shall pay the price within thirty (30) days of delivery.

2. Intellectual Property
2.1 All intellectual property in any improvements to the Equipment made by the Buyer shall vest in the Seller.
2.2 All intellectual property in any improvements to the Equipment made by the Buyer shall vest in the Buyer.
2.3 Each party retains ownership of its pre-existing intellectual property.

3. Disputes
3.1 Any dispute shall be submitted to the courts of the Seller's registered office.
3.2 Any dispute shall be submitted to the courts of Geneva, Switzerland.

4. Liability
4.1 The Seller's aggregate liability under this Agreement shall not exceed EUR 20,000.
4.2 The Seller's aggregate liability under this Agreement shall not exceed EUR 2,000,000.
"""

OWNERSHIP_ZH = """设备采购合同

甲方（买方）：宁波海曙智能科技有限公司
乙方（卖方）：成都天府数码设备有限公司

第一条 价款
1.1 合同总价款为人民币伍佰万元整（¥5,000,000.00）。
1.2 甲方于验收合格后三十日内向乙方支付全部价款。

第二条 知识产权
2.1 甲方对设备所作改进的知识产权归乙方所有。
2.2 双方各自原有的知识产权仍归各自所有。

第三条 争议
3.1 因本合同发生的争议，由乙方所在地人民法院管辖。

第四条 责任
4.1 乙方的赔偿责任总额不超过人民币五万元。
"""


@pytest.mark.parametrize(
    ("text", "party", "clause", "expected"),
    [
        # IP in the payer's improvements vesting in the party paid: against the payer
        (OWNERSHIP, "Buyer", "2.1", [("one_sided_ip_ownership", "against_us")]),
        (OWNERSHIP, "Seller", "2.1", [("one_sided_ip_ownership", "favourable")]),
        # the payer owning the results it pays for is market standard, for either side
        (OWNERSHIP, "Seller", "2.2", []),
        (OWNERSHIP, "Buyer", "2.3", []),
        # a forum at the other side's seat; a neutral forum is nobody's
        (OWNERSHIP, "Buyer", "3.1", [("one_sided_forum", "against_us")]),
        (OWNERSHIP, "Seller", "3.1", [("one_sided_forum", "favourable")]),
        (OWNERSHIP, "Buyer", "3.2", []),
        # a cap of 1 % of the price on the Seller's liability; the whole price is the standard
        (OWNERSHIP, "Buyer", "4.1", [("liability_cap_amount", "against_us")]),
        (OWNERSHIP, "Buyer", "4.2", []),
        (OWNERSHIP_ZH, "甲方", "2.1", [("one_sided_ip_ownership", "against_us")]),
        (OWNERSHIP_ZH, "乙方", "2.2", []),
        (OWNERSHIP_ZH, "甲方", "3.1", [("one_sided_forum", "against_us")]),
        (OWNERSHIP_ZH, "乙方", "3.1", [("one_sided_forum", "favourable")]),
        (OWNERSHIP_ZH, "甲方", "4.1", [("liability_cap_amount", "against_us")]),
    ],
)
def test_ownership_forum_and_cap_amount(
    text: str, party: str, clause: str, expected: list[tuple[str, str]]
) -> None:
    out = _findings(text, party, clause)
    assert [(f.position_id, f.effect) for f in out.findings] == expected


MORE = """SUPPLY AGREEMENT

This Agreement is made between Halden Components Ltd (the "Supplier") and Brightwater Foods Inc. (the "Customer").

1. Payment
1.1 The Customer shall pay each invoice within one hundred and twenty (120) days of receipt.
1.2 The Customer shall pay each invoice within thirty (30) days of receipt.

2. Delay
2.1 If the Supplier fails to deliver on time, the Supplier shall pay liquidated damages of one per cent (1%) of the price for each day of delay.
2.2 If the Supplier fails to deliver on time, the Supplier shall pay liquidated damages of 0.05% of the price for each day of delay.

3. Warranty
3.1 The Supplier warrants the Products for a period of thirty (30) days from delivery.

4. People and prices
4.1 The Customer shall not solicit or hire any employee of the Supplier during the term and for two (2) years after.
4.2 The Supplier shall offer the Customer prices no less favourable than those it offers any other customer.
4.3 The Supplier may terminate this Agreement upon a change of control of the Customer.
"""

MORE_ZH = """采购合同

甲方（买方）：苏州恒远精密制造有限公司
乙方（卖方）：杭州锐达自动化设备有限公司

第一条 价款
1.1 合同总价款为人民币壹佰万元整（¥1,000,000.00）。
1.2 甲方应于合同签订后三日内向乙方支付合同总价款的30%作为定金。

第二条 质量
2.1 质保期为自验收合格之日起三个月。
2.2 剩余10%作为质量保证金，在质保期满后十五日内支付。
"""


@pytest.mark.parametrize(
    ("text", "party", "clause", "expected"),
    [
        # 120 days to pay: past the 90-day walk-away for the party paid, a gain for the payer
        (MORE, "Supplier", "1.1", [("payment_term", "against_us", RiskLevel.HIGH)]),
        (MORE, "Customer", "1.1", [("payment_term", "favourable", RiskLevel.HIGH)]),
        (MORE, "Supplier", "1.2", []),
        # 1 % a day is 365 % a year of delay damages, borne by the Supplier
        (MORE, "Supplier", "2.1", [("delay_damages_rate", "against_us", RiskLevel.HIGH)]),
        (MORE, "Customer", "2.1", [("delay_damages_rate", "favourable", RiskLevel.HIGH)]),
        (MORE, "Supplier", "2.2", []),  # 0.05 % a day: the standard
        # a 30-day warranty given by the Supplier: short for the Customer
        (MORE, "Customer", "3.1", [("warranty_period", "against_us", RiskLevel.HIGH)]),
        (MORE, "Supplier", "3.1", [("warranty_period", "favourable", RiskLevel.HIGH)]),
        (MORE, "Customer", "4.1", [("one_sided_non_solicit", "against_us", RiskLevel.MEDIUM)]),
        (MORE, "Supplier", "4.2", [("one_sided_mfn", "against_us", RiskLevel.MEDIUM)]),
        (
            MORE,
            "Customer",
            "4.3",
            [("one_sided_change_of_control", "against_us", RiskLevel.MEDIUM)],
        ),
        # a 定金 of 30 % of the price: above the 20 % statutory maximum, for the payer
        (MORE_ZH, "甲方", "1.2", [("deposit_share", "against_us", RiskLevel.HIGH)]),
        (MORE_ZH, "乙方", "1.2", [("deposit_share", "favourable", RiskLevel.HIGH)]),
        # a three-month warranty with no party named is the seller's (the party paid)
        (MORE_ZH, "甲方", "2.1", [("warranty_period", "against_us", RiskLevel.MEDIUM)]),
        # '质保期满后十五日内支付' is a payment date, not a 15-day warranty
        (MORE_ZH, "甲方", "2.2", []),
    ],
)
def test_payment_delay_warranty_deposit_and_restrictions(
    text: str, party: str, clause: str, expected: list[tuple[str, str, RiskLevel]]
) -> None:
    assert _effects(_findings(text, party, clause)) == expected


POSSESSIVE = """NETWORK AFFILIATE AGREEMENT

This Agreement is made between Marquee Media, LLC ("Marquee") and Riverside Theatres Corp. (the "Affiliate").

6. Exclusivity
Subject only to the Exclusivity Exceptions, Marquee shall be the Affiliate's exclusive provider of on-screen advertising in the Theatres.

7. Remedies
The obligations under this Section 7 state the entire liability of Marquee and are the Affiliate's sole and exclusive remedy for any infringement claim.
"""


@pytest.mark.parametrize(
    ("clause", "position"),
    [("6", "one_sided_exclusivity"), ("7", "one_sided_exclusion")],
)
def test_whose_exclusive_representative_or_sole_remedy_it_is(clause: str, position: str) -> None:
    """'Marquee shall be the Affiliate's exclusive representative', 'the Affiliate's sole
    remedy': the restriction is the Affiliate's, though Marquee is named first."""
    for party, effect in (("Affiliate", "against_us"), ("Marquee", "favourable")):
        found = {(p, e) for p, e, _ in _effects(_findings(POSSESSIVE, party, clause))}
        assert (position, effect) in found, (party, found)
        assert all(e == effect for p, e in found if p == position)


BANK = """SOFTWARE SERVICES AGREEMENT

This Agreement is made between Larkspur Bank, N.A. ("Bank") and Tidewater Systems, Inc. (the "Supplier").

9. Audit
9.1 Once a year, the Bank may audit the Supplier's books and records on ten (10) days' notice. The Bank may also audit the Supplier's facilities used for the Services. If an audit shows a breach, the Bank may audit the Supplier again at the Supplier's expense.

10. Personnel and warranties
10.1 The Supplier shall inform its personnel that they are not employees of the Bank for any purpose, and that the Bank shall not be liable to any of them as an employer for any claims arising out of their assignment.
10.2 The Bank makes no representation as to the Supplier Marks; the Supplier makes no representation as to the Bank Materials.
10.4 The Bank makes no representation as to the hosting services it procures.

11. Services
11.1 The Bank shall not be liable for any losses whatsoever arising from the Services.
"""


def test_liability_to_ones_own_personnel_is_no_exclusion_against_us() -> None:
    positions = {p for p, e, _ in _effects(_findings(BANK, "Supplier", "10.1"))}
    assert "one_sided_exemption" not in positions
    control = _effects(_findings(BANK, "Supplier", "11.1"))
    assert ("one_sided_exemption", "against_us") in {(p, e) for p, e, _ in control}


def test_a_disclaimer_about_our_own_property_is_not_against_us() -> None:
    """Each side disclaims the other's property ('the Bank makes no representation as to the
    Supplier Marks'): a disclaimer of what is ours is no term against us, for either side."""
    control = _effects(_findings(BANK, "Supplier", "10.4"))
    assert ("one_sided_exclusion", "against_us") in {(p, e) for p, e, _ in control}
    for party in ("Supplier", "Bank"):
        found = [
            (p, e)
            for p, e, _ in _effects(_findings(BANK, party, "10.2"))
            if p == "one_sided_exclusion"
        ]
        assert ("one_sided_exclusion", "against_us") not in found, party


def test_a_stake_is_no_late_payment_rate() -> None:
    text = BANK.replace(
        "11.1 The Bank",
        '11.2 "Affiliate" means any company in which the Bank holds at least a 19% ownership, '
        "equity, control or financial interest.\n11.1 The Bank",
    )
    positions = {p for p, _, _ in _effects(_findings(text, "Supplier", "11.2"))}
    assert "late_payment_interest" not in positions


LEASE_ZH = """房屋租赁合同

出租方：杭州云帆置业有限公司
承租方：温州海澄建设工程有限公司

第五条 保证金
承租方应于本合同签订之日起七日内向出租方支付租赁保证金，金额相当于三个月租金。
"""


def test_the_payment_period_is_the_one_before_paying_not_an_amount_in_months() -> None:
    out = _findings(LEASE_ZH, "出租方", "5")
    values = [f.value for f in out.findings if f.position_id == "payment_term"]
    assert 90 not in values
    assert all(v is None or v <= 7 for v in values)


HOSTING = """HOSTING AGREEMENT

This Agreement is entered into by Lakefield Cloud Corporation ("Lakefield") and Ortega Retail Corporation ("Customer").

5. Fees
5.1 Customer shall pay Lakefield the monthly hosting fees within thirty (30) days of invoice.

6. Warranties
6.3 EXCEPT AS PROVIDED IN SECTION 6.1, THE HOSTING SERVICES ARE MADE AVAILABLE TO CUSTOMER "AS IS".
"""


def test_a_disclaimer_made_to_the_customer_is_held_by_the_provider() -> None:
    """'… are made available to Customer "as is"': Customer receives the disclaimer, the
    provider holds it."""
    for party, effect in (("Customer", "against_us"), ("Lakefield", "favourable")):
        found = {(p, e) for p, e, _ in _effects(_findings(HOSTING, party, "6"))}
        assert ("one_sided_exclusion", effect) in found, (party, found)
