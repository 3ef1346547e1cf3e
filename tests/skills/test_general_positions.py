"""The general positions: unbounded discretion, open-ended duties, rights of one side alone,
restrictive covenants, a forum at one side's home, and the numbers of loans and leases —
each judged by who holds the right or bears the duty, flipping with the side we act for."""

from __future__ import annotations

import asyncio

import pytest

from contract_review.models import RiskLevel
from contract_review.parties import find_parties, party_actions, party_places, party_roles, payer_of
from contract_review.playbook.measure import percent
from contract_review.plugins import create_dispatcher, load_builtin_plugins
from contract_review.plugins.registry import get_plugin
from contract_review.skills.context import prepare_context
from contract_review.skills.local.check_positions import CheckPositionsOutput
from contract_review.structure_parser import StructureParser

LEASE = """LEASE

THIS LEASE is made BETWEEN Harrowgate Estates plc, a company registered in England and Wales \
(number 01234567), whose registered office is at 4 Dock Street, Leeds LS1 4AB (hereinafter \
"Landlord"), AND Quillon Analytics Ltd, whose registered office is at 9 Rose Lane, Norwich \
NR1 1AA (hereinafter referred to as the "Tenant").

1. Rent
1.1 The Tenant shall pay the rent quarterly in advance within fourteen (14) days of each invoice.
1.2 Landlord may enter the Premises at any time, without notice, for any purpose it thinks fit.
1.3 Either party may enter into discussions about renewal at any time.
1.4 The Tenant shall provide a rent deposit equal to twelve (12) months' rent.
1.5 If the Tenant remains in occupation after the end of the Term it shall pay an occupation charge of three hundred per cent (300%) of the daily rent.
1.6 The rent cannot be increased by the Landlord during the Term.
1.7 Rent review

2. Liability and disputes
2.1 The Landlord shall indemnify the Tenant against all losses of whatever nature arising from any interruption of services.
2.2 Each party shall indemnify the other against losses of whatever nature caused by its breach.
2.3 The courts of Leeds shall have exclusive jurisdiction over any dispute.
2.4 The courts of England shall have exclusive jurisdiction over any dispute.
2.5 Only the Tenant may extend the Term, for the benefit of the Tenant only.
2.6 The Tenant shall not, during the Term, let or provide office space to any other business engaged in data analytics.
2.7 The Landlord may terminate this Lease for convenience at any time by notice.
"""

LOAN = """LOAN AGREEMENT

This Agreement is made by and between:

MERIDEN CAPITAL LLC, a Delaware limited liability company ("Lender"); and

OSTRAVA FOUNDRY s.r.o., with its registered office in Ostrava, Czech Republic ("Borrower").

1. Repayment
1.1 Borrower shall repay the Loan in eight quarterly instalments.
1.2 Each prepayment shall be accompanied by a premium equal to five percent (5%) of the amount prepaid.
1.3 Any amount not paid when due shall bear interest at the Base Rate plus ten percent (10%) per annum.
1.4 If any amount remains unpaid two (2) days after its due date, Lender may declare the Loan immediately due.
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


def _against(text: str, party: str, clause_id: str) -> list[tuple[str, RiskLevel]]:
    out = _findings(text, party, clause_id)
    return [(f.position_id, f.level) for f in out.findings if f.effect == "against_us"]


def _burdens_only(text: str, clause_id: str, burdened: str, other: str, position: str) -> None:
    """`position` is a medium or high risk acting for `burdened` and no risk for `other`."""
    against = [p for p, level in _against(text, burdened, clause_id) if level != RiskLevel.LOW]
    assert position in against
    assert position not in [p for p, _ in _against(text, other, clause_id)]


def test_parties_with_parentheses_capitals_and_hereinafter_referred_to_as_the() -> None:
    structure = StructureParser().parse(LEASE, document_id="c")
    assert [(p.name, p.labels[0]) for p in find_parties(structure)] == [
        ("Harrowgate Estates plc", "Landlord"),
        ("Quillon Analytics Ltd", "Tenant"),
    ]


def test_places_of_each_side_come_from_its_address_not_its_incorporation() -> None:
    structure = StructureParser().parse(LEASE, document_id="c")
    places = party_places(structure, party_roles(structure, "Tenant"))
    assert places.get("Leeds") == "them"
    assert places.get("Norwich") == "us"
    assert "England" not in places  # 'registered in England and Wales' is no address


@pytest.mark.parametrize(
    ("clause_id", "burdened", "position"),
    [
        ("1.2", "Tenant", "one_sided_discretion"),
        ("2.1", "Landlord", "one_sided_open_duty"),
        ("2.3", "Tenant", "one_sided_forum"),
        ("2.5", "Landlord", "one_sided_renewal_option"),  # the specific reading of a reserved right
        ("2.6", "Tenant", "one_sided_restrictive_covenant"),
    ],
)
def test_a_general_term_is_against_the_side_it_burdens_only(
    clause_id: str, burdened: str, position: str
) -> None:
    other = "Landlord" if burdened == "Tenant" else "Tenant"
    assert [p for p, _ in _against(LEASE, burdened, clause_id)] == [position]
    assert _against(LEASE, other, clause_id) == []
    favourable = [f.position_id for f in _findings(LEASE, other, clause_id).findings]
    assert favourable == [position]


@pytest.mark.parametrize("clause_id", ["1.3", "1.6", "1.7", "2.2", "2.4"])
@pytest.mark.parametrize("party", ["Landlord", "Tenant"])
def test_mutual_neutral_negated_or_heading_terms_are_nobodys(clause_id: str, party: str) -> None:
    """Either party's right, a mutual indemnity, a forum at neither side's home, a right that
    'cannot' be used and a bare heading are no one-sided term."""
    assert _findings(LEASE, party, clause_id).findings == []


def test_a_catch_all_position_yields_to_the_specific_one() -> None:
    assert _against(LEASE, "Tenant", "2.7") == [
        ("one_sided_termination_for_convenience", RiskLevel.HIGH)
    ]


@pytest.mark.parametrize(
    ("text", "clause_id", "position", "value"),
    [
        (LEASE, "1.4", "security_deposit", 12.0),
        (LEASE, "1.5", "holding_over_charge", 300.0),
        (LOAN, "1.2", "prepayment_fee", 5.0),
        (LOAN, "1.3", "late_payment_interest", 10.0),
        (LOAN, "1.4", "payment_default_grace", 2.0),
    ],
)
def test_numbers_of_leases_and_loans_burden_the_payer(
    text: str, clause_id: str, position: str, value: float
) -> None:
    payer, payee = ("Tenant", "Landlord") if text is LEASE else ("Borrower", "Lender")
    found = [f for f in _findings(text, payer, clause_id).findings if f.position_id == position]
    assert found
    assert all(f.effect == "against_us" for f in found)
    assert value in [f.value for f in found]
    assert {f.level for f in found} & {RiskLevel.MEDIUM, RiskLevel.HIGH}
    assert not [
        f
        for f in _findings(text, payee, clause_id).findings
        if f.position_id == position and f.effect == "against_us"
    ]


def test_the_payer_is_the_subject_nearest_the_paying_verb() -> None:
    text = (
        'AGREEMENT\n\nThis Agreement is made between Ardent Ltd (the "Provider") and Bolt Ltd '
        '(the "Client").\n\n1. Fees\n1.1 The Provider shall invoice monthly, and the Client '
        "shall pay each invoice within thirty (30) days.\n"
    )
    structure = StructureParser().parse(text, document_id="c")
    assert payer_of(structure, party_roles(structure, "Provider")) == ("them", "Client")
    loan = StructureParser().parse(LOAN, document_id="c")
    assert payer_of(loan, party_roles(loan, "Lender")) == ("them", "Borrower")


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("a premium of six percent (6%) of the amount prepaid", 6.0),
        ("an occupation charge of twice the daily rent", 200.0),
        ("按租金的两倍支付占用费", 200.0),
        ("按提前还款金额的百分之三支付补偿金", 3.0),
        ("no number here", None),
    ],
)
def test_percent_reads_percentages_and_multiples(words: str, value: float | None) -> None:
    assert percent(words) == value


def test_the_most_severe_risk_is_kept_when_two_checks_quote_the_same_words() -> None:
    """Interest of 'the Base Rate plus 10%' is low as a rate but high as a default margin:
    the clause keeps the high risk, once."""
    from contract_review.skills.local.check_positions import REGISTRATION
    from contract_review.skills.risks import risks_from_skill_outputs

    structure = StructureParser().parse(LOAN, document_id="c")
    clause = structure.get_clause("1.3")
    assert clause is not None
    out = _findings(LOAN, "Borrower", "1.3")
    assert {f.level for f in out.findings} == {RiskLevel.LOW, RiskLevel.HIGH}
    risks = risks_from_skill_outputs(clause, [(REGISTRATION, out.model_dump())])
    assert [r.risk_level for r in risks] == [RiskLevel.HIGH]


SERVICES = """SERVICES AGREEMENT

This Agreement is entered into between Corvane Systems GmbH, whose registered office is at \
Hafenstrasse 3, Bremen (the "Provider"), and Lindqvist Retail AB, whose registered office is \
at Kungsgatan 12, Malmo (the "Client").

1. Remedies
1.1 The Provider warrants that the Software shall remain free from all defects and errors for as long as the Client uses it.
1.2 The payment of delay damages by the Provider is without prejudice to the right of the Client to claim its actual losses in full.
1.3 The aggregate Service Credits in any month are capped at three percent (3%) of the monthly Fees.
1.4 The Client shall have a right of first refusal over any sale of the Provider's hosting business.
1.5 All tools, know-how and methodologies owned by the Provider prior to this Agreement shall vest in the Client on payment of the first invoice.
1.6 If the Client orders fewer units than the Minimum Volume in a year, it shall pay for the shortfall as if those units had been ordered.
1.7 The Provider's obligations of confidentiality shall continue in perpetuity.
1.8 The Client's recourse against the Provider shall be limited solely to the amounts held in the Escrow Account.
1.9 Each party's obligations of confidentiality shall continue in perpetuity.
1.10 The Provider warrants that the Software will perform materially in accordance with the Documentation for twelve (12) months from acceptance.
1.11 The Client shall pay the Fees monthly in arrears.
"""

SERVICES_ZH = """技术服务合同

甲方：宁波海曙远景物流有限公司，住所：浙江省宁波市海曙区中山西路100号
乙方：成都天府云算科技有限公司，住所：四川省成都市高新区天府大道200号

第一条 约定
1.1 乙方保证所交付的系统终身免费保修。
1.2 乙方支付违约金后，仍应赔偿甲方因此遭受的全部损失。
1.3 甲方年度采购量未达到最低采购量的，应就差额部分按合同单价向乙方补足货款。
1.4 乙方在本合同签订前已有的软件著作权及专有技术，自甲方支付首期款之日起归甲方所有。
1.5 甲方的保密义务永久有效。
1.6 乙方出售其数据中心业务的，甲方在同等条件下享有优先购买权。
1.7 双方的保密义务在本合同终止后三年内继续有效。
"""


@pytest.mark.parametrize(
    ("text", "clause_id", "burdened", "other", "position"),
    [
        (SERVICES, "1.1", "Provider", "Client", "open_ended_warranty"),
        (SERVICES, "1.2", "Provider", "Client", "liquidated_damages_not_exclusive"),
        (SERVICES, "1.3", "Client", "Provider", "service_credit_cap"),
        (SERVICES, "1.4", "Provider", "Client", "one_sided_first_refusal"),
        (SERVICES, "1.5", "Provider", "Client", "background_ip_transfer"),
        (SERVICES, "1.6", "Client", "Provider", "take_or_pay"),
        (SERVICES, "1.7", "Provider", "Client", "perpetual_confidentiality"),
        (SERVICES, "1.8", "Client", "Provider", "limited_recourse"),
        (SERVICES_ZH, "1.1", "乙方", "甲方", "open_ended_warranty"),
        (SERVICES_ZH, "1.2", "乙方", "甲方", "liquidated_damages_not_exclusive"),
        (SERVICES_ZH, "1.3", "甲方", "乙方", "take_or_pay"),
        (SERVICES_ZH, "1.4", "乙方", "甲方", "background_ip_transfer"),
        (SERVICES_ZH, "1.5", "甲方", "乙方", "perpetual_confidentiality"),
        (SERVICES_ZH, "1.6", "乙方", "甲方", "one_sided_first_refusal"),
    ],
)
def test_remedies_recourse_and_commitments_burden_one_side(
    text: str, clause_id: str, burdened: str, other: str, position: str
) -> None:
    _burdens_only(text, clause_id, burdened, other, position)


@pytest.mark.parametrize(
    ("text", "clause_id"), [(SERVICES, "1.9"), (SERVICES, "1.10"), (SERVICES_ZH, "1.7")]
)
@pytest.mark.parametrize("side", [0, 1])
def test_balanced_remedies_are_nobodys(text: str, clause_id: str, side: int) -> None:
    party = (("Provider", "Client") if text is SERVICES else ("甲方", "乙方"))[side]
    assert _against(text, party, clause_id) == []


# Written in the forms the blind Chinese contracts used: a role word with the short label in
# brackets, subjects carried over from the opening of the sentence, caps on a named liability.
LEASE_ZH = """厂房租赁合同

出租方（以下简称“甲方”）：无锡东港置业有限公司
住所：江苏省无锡市锡山区东港镇港下路18号
承租方（以下简称“乙方”）：合肥科远机电有限公司
住所：安徽省合肥市蜀山区长江西路66号

第一条 租赁物及租金
1.1 甲方将其位于江苏省无锡市锡山区东港镇港下路18号的厂房出租给乙方使用。
1.2 年租金为人民币壹佰贰拾万元整（¥1,200,000.00）。
1.3 乙方未按期支付租金的，每逾期一日，应按欠付金额的千分之五向甲方支付违约金。
1.4 乙方因任何原因提前退租的，押金不予退还。
1.5 甲方应在厂房交还之日起二日内完成验收，逾期未提出书面异议的，视为甲方确认厂房完好，此后甲方不得再向乙方主张任何权利。
1.6 乙方的赔偿责任累计以人民币伍仟元整（¥5,000.00）为限。
1.7 因乙方员工的个人行为造成厂房损坏的，乙方不承担任何责任。
1.8 因甲方原因导致厂房无法使用的，乙方不承担任何责任。
1.9 与本合同有关的一切税费，包括依法应由乙方缴纳的税费，均由甲方承担。
1.10 乙方可将本合同项下的权利转让给其关联公司，仅需书面通知甲方即可。
1.11 甲方、乙方任何一方均不得未经对方书面同意转让本合同。
1.12 因本合同引起的争议，任何一方均可提交无锡仲裁委员会仲裁。
1.13 乙方违约的，无论是否给甲方造成实际损失，均应向甲方支付违约金人民币伍拾万元。
1.14 甲方有权根据市场行情调整物业服务费，调整后的价格自通知送达之日起生效。
1.15 本合同期内及期满后三年内，乙方不得在租赁厂房周边经营同类业务。
"""


@pytest.mark.parametrize(
    ("clause_id", "burdened", "other", "position"),
    [
        ("1.3", "乙方", "甲方", "late_payment_interest"),
        ("1.4", "乙方", "甲方", "deposit_forfeiture"),
        ("1.5", "甲方", "乙方", "one_sided_deemed_acceptance"),
        ("1.5", "甲方", "乙方", "one_sided_claims_bar"),
        ("1.6", "甲方", "乙方", "liability_cap_amount"),
        ("1.7", "甲方", "乙方", "one_sided_exemption"),
        ("1.9", "甲方", "乙方", "shifted_taxes_and_costs"),
        ("1.10", "甲方", "乙方", "one_sided_assignment"),
        ("1.13", "乙方", "甲方", "liquidated_damages_not_exclusive"),
        ("1.14", "乙方", "甲方", "one_sided_price_change"),
        ("1.15", "乙方", "甲方", "one_sided_exclusivity"),
    ],
)
def test_chinese_forms_burden_one_side(
    clause_id: str, burdened: str, other: str, position: str
) -> None:
    _burdens_only(LEASE_ZH, clause_id, burdened, other, position)


@pytest.mark.parametrize("clause_id", ["1.8", "1.11", "1.12"])
@pytest.mark.parametrize("party", ["甲方", "乙方", "出租方", "承租方"])
def test_chinese_balanced_forms_are_nobodys(clause_id: str, party: str) -> None:
    """An excuse for what the other side caused, a restriction on both named together, and a
    forum where the premises are (not just where one side sits) are fair."""
    assert _against(LEASE_ZH, party, clause_id) == []


def test_cap_is_on_the_liability_the_sentence_names() -> None:
    """'乙方的赔偿责任…为限' caps 乙方: measured against the annual rent, 0.4 %."""
    out = _findings(LEASE_ZH, "甲方", "1.6")
    (cap,) = [f for f in out.findings if f.position_id == "liability_cap_amount"]
    assert cap.holder == "乙方"
    assert cap.value is not None
    assert round(cap.value, 2) == 0.42


def test_english_parties_named_together_share_a_right() -> None:
    text = (
        'AGREEMENT\n\nThis Agreement is made between Alder Ltd (the "Reseller") and Birch Inc '
        '(the "Vendor").\n\n1. Terms\n'
        "1.1 Either the Reseller or the Vendor may assign this Agreement to an affiliate upon "
        "written notice to the other.\n"
        "1.2 This Agreement may be terminated for convenience by the Reseller or by the Vendor "
        "on ninety (90) days' notice.\n"
        "1.3 The Vendor may assign this Agreement to any of its affiliates upon written notice.\n"
    )
    for party in ("Reseller", "Vendor"):
        assert _against(text, party, "1.1") == []
        assert _against(text, party, "1.2") == []
    assert "one_sided_assignment" in [p for p, _ in _against(text, "Reseller", "1.3")]
    assert _against(text, "Vendor", "1.3") == []


def test_late_payment_is_no_uncapped_damages_and_damages_fall_on_the_party_in_default() -> None:
    """Interest-like damages for paying late run until payment: no 'uncapped damages' flag;
    delay damages are the defaulting party's, named at the opening of the sentence."""
    from contract_review.skills.local.extract_financial_terms import (
        FinancialTermsInput,
        handle,
    )

    late = "1.16 乙方逾期交货的，每逾期一日，按合同总价的百分之五向甲方支付违约金。\n"
    structure = StructureParser().parse(LEASE_ZH + late, document_id="c")
    for party, clause_id, flagged in (
        ("乙方", "1.3", False),
        ("甲方", "1.3", False),
        ("乙方", "1.16", True),
        ("甲方", "1.16", False),
    ):
        ctx = prepare_context(side=party, domain_id="generic", structure=structure)
        out = handle(
            FinancialTermsInput(
                clause_id=clause_id, document_structure=structure, review_context=ctx
            )
        )
        codes = [f.code for f in out.flags if f.burdens != "them"]
        assert ("uncapped_damages" in codes) is flagged, (party, clause_id)


HIRE = """PLANT HIRE AGREEMENT

This Agreement is made between Harlow Plant Limited, whose registered office is at 3 Mill \
Road, Leeds (the "Owner"), and Fenwick Build Ltd, whose registered office is at 8 Quay \
Street, Bristol (the "Contractor").

1. Hire
1.1 The Contractor shall pay the hire charges within thirty (30) days of each invoice.
1.2 The Deposit is non-refundable in every circumstance and the Owner may keep it in full even where this Agreement is terminated for the Owner's breach.
1.3 The Owner must notify the Contractor of any damage within forty-eight (48) hours after collection, failing which the Owner shall be treated as having accepted the Equipment in good condition.
1.4 The Contractor shall inspect the Equipment within fifteen (15) working days after delivery, failing which the Equipment shall be treated as accepted, save for latent defects.
1.5 The Contractor may end this Agreement for any reason at any time on twenty-four (24) hours' notice.
1.6 The Contractor may withhold from any hire charges any sum it claims the Owner owes it.
1.7 Any amount not paid when due shall bear interest at three percent (3%) per month, compounded monthly, together with all collection costs incurred by the Owner.
1.8 The Owner shall not hire or lend any excavator to any other contractor within thirty (30) miles of the Site.
"""


@pytest.mark.parametrize(
    ("clause_id", "burdened", "other", "position"),
    [
        ("1.2", "Contractor", "Owner", "deposit_forfeiture"),
        ("1.3", "Owner", "Contractor", "one_sided_deemed_acceptance"),
        ("1.5", "Owner", "Contractor", "one_sided_termination_for_convenience"),
        ("1.6", "Owner", "Contractor", "one_sided_set_off"),
        ("1.7", "Contractor", "Owner", "late_payment_interest"),
        ("1.8", "Owner", "Contractor", "one_sided_restrictive_covenant"),
    ],
)
def test_english_forms_from_a_blind_hire_contract(
    clause_id: str, burdened: str, other: str, position: str
) -> None:
    _burdens_only(HIRE, clause_id, burdened, other, position)


@pytest.mark.parametrize("party", ["Owner", "Contractor"])
def test_deemed_acceptance_after_a_fair_window_is_nobodys(party: str) -> None:
    assert _against(HIRE, party, "1.4") == []


def test_interest_compounded_monthly_is_annualised_by_compounding() -> None:
    out = _findings(HIRE, "Contractor", "1.7")
    (interest,) = [f for f in out.findings if f.position_id == "late_payment_interest"]
    assert interest.holder == "Contractor"  # the payer, not the Owner whose costs it names
    assert interest.value == 42.58
    assert interest.level is RiskLevel.HIGH


SOFTWARE_ZH = """软件许可使用合同

许可方：北京衡石软件有限公司
住所：北京市海淀区中关村大街1号
被许可方：苏州德辉精密制造有限公司
住所：江苏省苏州市工业园区星湖街2号

第一条 许可
1.1 许可费为人民币贰佰万元整（¥2,000,000.00），首年维护费为人民币贰拾万元整（¥200,000.00）。
1.2 许可方在本合同项下承担的全部赔偿责任累计不超过被许可方已支付的首年维护费的百分之十。
1.3 许可方在本合同有效期内对许可软件所作的全部升级与改进，其知识产权均归被许可方所有。
1.4 许可方对许可软件承担自验收之日起十年的免费质量保证责任。
1.5 被许可方在其区域内开展的全部推广活动费用，均由许可方承担，被许可方无需分摊。
1.6 本合同终止后三年内，许可方不得向任何其他企业许可或销售与许可软件功能类似的软件。
"""


@pytest.mark.parametrize(
    ("clause_id", "burdened", "other", "position"),
    [
        ("1.2", "被许可方", "许可方", "liability_cap_amount"),
        ("1.3", "许可方", "被许可方", "background_ip_transfer"),
        ("1.4", "许可方", "被许可方", "warranty_period"),
        ("1.5", "许可方", "被许可方", "shifted_taxes_and_costs"),
        ("1.6", "许可方", "被许可方", "one_sided_exclusivity"),
    ],
)
def test_chinese_forms_from_a_blind_licence(
    clause_id: str, burdened: str, other: str, position: str
) -> None:
    _burdens_only(SOFTWARE_ZH, clause_id, burdened, other, position)


FREIGHT_ZH = """货物运输合同

托运人：江苏恒川化工有限公司
住所：江苏省张家港市港丰路18号
承运人：上海通衡物流有限公司
住所：上海市浦东新区川沙路5588号

第一条 运输
1.1 托运人应于收到发票后三十日内支付运费。
1.2 承运人发生任何违约情形的，托运人均有权没收全部履约保证金。
1.3 托运人发生任何违约情形的，无论情节轻重，该保证金均不予退还，由承运人全额没收。
1.4 托运人对货物有异议的，须在交付后二十四小时内书面提出，逾期未提出的视为货物完好交付。
1.5 承运人未按约定时间送达货物的，每迟延一小时，应按该批次运费的百分之二十向托运人支付违约金。
1.6 本合同有效期内，承运人不得为托运人以外的任何化工企业提供运输服务。
1.7 托运人有权从应付承运人的任何款项中直接扣减其认定的违约金。
1.8 承运人应赔偿并使托运人免受一切损失，包括因托运人自身过错造成的损失。
1.9 承运人应赔偿因其自身过错给托运人造成的损失，包括因承运人原因造成的货损。
1.10 因本合同引起的争议，任何一方均可提交上海仲裁委员会仲裁。
"""


@pytest.mark.parametrize(
    ("clause_id", "burdened", "other", "position"),
    [
        ("1.2", "承运人", "托运人", "deposit_forfeiture"),
        ("1.3", "托运人", "承运人", "deposit_forfeiture"),
        ("1.4", "托运人", "承运人", "one_sided_deemed_acceptance"),
        ("1.5", "承运人", "托运人", "delay_damages_rate"),
        ("1.6", "承运人", "托运人", "one_sided_exclusivity"),
        ("1.7", "承运人", "托运人", "one_sided_set_off"),
        ("1.8", "承运人", "托运人", "one_sided_indemnity"),
    ],
)
def test_chinese_forms_from_a_blind_freight_contract(
    clause_id: str, burdened: str, other: str, position: str
) -> None:
    """Role words the table learnt (托运人/承运人); a deposit burdens whoever the other side may
    confiscate it from; damages per hour; an indemnity covering the indemnified party's fault."""
    _burdens_only(FREIGHT_ZH, clause_id, burdened, other, position)


@pytest.mark.parametrize("party", ["托运人", "承运人"])
def test_own_fault_indemnity_and_arbitration_in_one_city_are_not_serious(party: str) -> None:
    """Indemnifying one's own fault is fair; an arbitral institution in one side's city is
    worth a low note at most."""
    assert _against(FREIGHT_ZH, party, "1.9") == []
    assert all(level is RiskLevel.LOW for _, level in _against(FREIGHT_ZH, party, "1.10"))


FRANCHISE = """FRANCHISE AGREEMENT

This Agreement is made between Bellbird Coffee Systems Pty Ltd (the "Franchisor") and \
Harbourline Hospitality Pty Ltd (the "Franchisee").

1. Terms
1.1 The Franchisee shall pay the Royalty within fourteen (14) days after the end of each month.
1.2 Any amount not paid by its due date accrues interest at four per cent (4%) per month, compounding daily, until the Franchisor receives payment in full.
1.3 The Franchisee must indemnify the Franchisor against every loss, however caused, including where the loss is caused wholly or partly by the negligence or default of the Franchisor.
1.4 During the Term and for five (5) years afterwards, the Franchisor must not own, operate or franchise any coffee shop anywhere in the State of New South Wales other than the Outlet.
1.5 The Franchisor is barred from bringing any claim against the Franchisee unless it has given written notice of that claim within fourteen (14) days after the event giving rise to it.
1.6 All right, title and interest in the Manuals shall vest in and remain with the Franchisee.
"""


@pytest.mark.parametrize(
    ("clause_id", "burdened", "other", "position"),
    [
        ("1.2", "Franchisee", "Franchisor", "late_payment_interest"),
        ("1.3", "Franchisee", "Franchisor", "one_sided_indemnity"),
        ("1.4", "Franchisor", "Franchisee", "one_sided_exclusivity"),
        ("1.5", "Franchisor", "Franchisee", "one_sided_claims_bar"),
    ],
)
def test_english_forms_from_a_blind_franchise(
    clause_id: str, burdened: str, other: str, position: str
) -> None:
    _burdens_only(FRANCHISE, clause_id, burdened, other, position)


MIXED = """AGREEMENT

This Agreement is made between Orchard Build Ltd (the "Contractor") and Fernway Fitout Ltd \
(the "Subcontractor").

1. Terms
1.1 The Contractor shall pay each invoice within thirty (30) days of receipt.
1.2 The Subcontractor shall be paid only if and when the Contractor has received payment from the Employer for the Subcontract Works.
1.3 The Subcontractor hereby waives all rights of set-off, counterclaim and suspension.
1.4 The Contractor may engage any sub-contractor without notice to or approval by the Subcontractor.
1.5 Upon termination of this Agreement for any reason whatsoever, all unpaid commission shall be forfeited by the Subcontractor.
1.6 Any amount not paid by the Contractor when due shall bear interest at five percent (5%) per month.
1.7 The Subcontractor grants the Contractor a licence to use the Project Data for any purpose.
"""


@pytest.mark.parametrize(
    ("clause_id", "burdened", "other", "position"),
    [
        ("1.2", "Subcontractor", "Contractor", "pay_when_paid"),
        ("1.3", "Subcontractor", "Contractor", "waiver_of_remedies"),
        ("1.4", "Subcontractor", "Contractor", "one_sided_assignment"),
        ("1.5", "Subcontractor", "Contractor", "deposit_forfeiture"),
        ("1.6", "Contractor", "Subcontractor", "late_payment_interest"),
        ("1.7", "Subcontractor", "Contractor", "one_sided_data_licence"),
    ],
)
def test_remedies_payment_and_data_terms_burden_one_side(
    clause_id: str, burdened: str, other: str, position: str
) -> None:
    _burdens_only(MIXED, clause_id, burdened, other, position)


def test_a_reference_to_termination_for_any_reason_is_no_right_to_terminate() -> None:
    for party in ("Contractor", "Subcontractor"):
        positions = [p for p, _ in _against(MIXED, party, "1.5")]
        assert "one_sided_termination_for_convenience" not in positions


LOAN_ZH = """借款合同

出借人：成都锦程小额贷款有限公司
借款人：成都川味坊餐饮管理有限公司

第一条 借款
1.1 借款金额为人民币伍佰万元整（¥5,000,000.00）。
1.2 借款人应在借款发放前向出借人支付借款本金百分之十的服务费，该费用从借款本金中预先扣除。
1.3 借款人同意，即使出借人迟延放款，借款人亦不得解除本合同。
1.4 出借人保留随时变更还款计划的权利。
1.5 借款人任何一笔款项逾期的，出借人有权中止履行与借款人之间的其他一切合同。
1.6 借款人在本合同项下产生的全部数据，出借人均可无偿用于任何目的。
"""


@pytest.mark.parametrize(
    ("clause_id", "position"),
    [
        ("1.2", "upfront_deduction"),
        ("1.3", "waiver_of_remedies"),
        ("1.4", "one_sided_reserved_right"),
        ("1.5", "one_sided_suspension"),
        ("1.6", "one_sided_data_licence"),
    ],
)
def test_chinese_loan_terms_burden_the_borrower(clause_id: str, position: str) -> None:
    _burdens_only(LOAN_ZH, clause_id, "借款人", "出借人", position)


RESEARCH = """RESEARCH AGREEMENT

This Agreement is made between Calder Pharma Ltd (the "Sponsor") and Northmoor Research \
Ltd (the "University").

1. Terms
1.1 During the term and for five (5) years afterwards, the University shall not conduct any research in the Field for any third party.
1.2 For three (3) years after termination, the University shall not disclose the Sponsor's Confidential Information to any third party.
1.3 All methods owned by the University before the Effective Date shall become the sole and exclusive property of the Sponsor.
"""


def test_restrictions_that_outlast_the_contract() -> None:
    """A restriction on doing business after the end is a non-compete; keeping secrets after
    the end is not."""
    assert "one_sided_exclusivity" in [p for p, _ in _against(RESEARCH, "University", "1.1")]
    assert _against(RESEARCH, "Sponsor", "1.1") == []
    assert "one_sided_exclusivity" not in [p for p, _ in _against(RESEARCH, "University", "1.2")]
    assert "background_ip_transfer" in [p for p, _ in _against(RESEARCH, "University", "1.3")]
    assert _against(RESEARCH, "Sponsor", "1.3") == []
    zh = LEASE_ZH + "1.16 乙方在本合同终止后三年内，不得为周边的任何其他企业提供同等服务。\n"
    assert "one_sided_exclusivity" in [p for p, _ in _against(zh, "乙方", "1.16")]


PURCHASE = """PURCHASE ORDER

This Purchase Order is made between Kembla Steel Pty Ltd (the "Company") and Rotherham \
Presses Ltd (the "Vendor").

1. Terms
1.1 The Company shall pay the Contract Price within thirty (30) days after each invoice.
1.2 The Vendor warrants that the Equipment shall:
(i) conform to the Specification;
for a period of sixty (60) months from Final Acceptance (the "Warranty Period").
1.3 THE WARRANTIES IN THIS CLAUSE ARE IN LIEU OF ALL OTHER WARRANTIES, EXPRESS OR IMPLIED, ALL OF WHICH ARE HEREBY EXCLUDED.
1.4 Before selling the Plant, the Vendor shall first offer it to the Company, and the Company shall have sixty (60) days within which to accept.
1.5 The Vendor may require the Company to take delivery at another site which the Vendor considers broadly comparable.
1.6 The handling charge shall include all costs incurred by the Vendor of whatever nature and shall not be subject to any cap.
"""


@pytest.mark.parametrize(
    ("clause_id", "burdened", "other", "position"),
    [
        ("1.2", "Vendor", "Company", "warranty_period"),
        ("1.3", "Company", "Vendor", "one_sided_exclusion"),
        ("1.4", "Vendor", "Company", "one_sided_first_refusal"),
        ("1.5", "Company", "Vendor", "one_sided_discretion"),
        ("1.6", "Company", "Vendor", "one_sided_open_duty"),
    ],
)
def test_terms_that_name_no_party_or_a_judgement_of_one(
    clause_id: str, burdened: str, other: str, position: str
) -> None:
    """A warranty period on its own line, a disclaimer in capitals naming nobody, time given
    to accept an offer (a right, not a duty), 'which the Vendor considers', and charges with
    no ceiling that the payer bears though the sentence names the payee."""
    _burdens_only(PURCHASE, clause_id, burdened, other, position)


TERMS = """ONLINE SELLING TERMS

These terms are made between Larkspur Market Ltd, whose registered office is at 1 Quay Street, \
Bristol ("we", "us" or "our"), and Fennick Crafts Ltd, whose registered office is at 8 Mill \
Lane, Exeter ("you" or "your").

1. Term
1.1 These terms renew automatically for a further period of 24 months unless you give us notice of non-renewal at least 180 days before the end of the current term, whereas we may prevent renewal by notice to you at any time up to 7 days before that date.
1.2 Either party may prevent renewal by notice given at least 30 days before the end of the current term.
1.3 If there is any dispute about a payout, the amount will be determined by you in your sole discretion.
"""


def test_a_number_is_read_in_the_part_of_a_contrasting_sentence_that_states_it() -> None:
    """The 180-day window is the one 'you' must meet (not the 24-month renewal term, not our
    7 days): against the party called "you", favourable to "we"; 30 days for both is none."""
    _burdens_only(TERMS, "1.1", "You", "We", "non_renewal_notice")
    assert "non_renewal_notice" not in [p for p, _ in _against(TERMS, "You", "1.2")]


def test_a_party_named_by_pronouns_holds_its_discretion() -> None:
    _burdens_only(TERMS, "1.3", "We", "You", "one_sided_discretion")


DEVELOPMENT = """技术开发合同

委托方（以下简称“甲方”）：宁波澄远机电有限公司
研究开发方（以下简称“乙方”）：杭州砚川软件有限公司

第一条 验收与付款
1.1 成果是否达到技术指标，以乙方自行组织测试后出具的测试报告为准。
1.2 成果是否达到技术指标，以双方共同委托的检测机构出具的报告为准。
1.3 验收合格后一百八十日内，甲方支付剩余百分之三十的经费，甲方在该期限内支付的，均不构成迟延付款。
1.4 乙方有权将甲方应付的任何款项与乙方应向甲方支付的违约金直接相互抵销。
1.5 乙方在本合同项下向甲方承担的全部责任，累计以人民币十万元为限。
"""


def test_one_sides_own_test_report_settles_acceptance() -> None:
    """'以乙方自行…出具的测试报告为准' is the developer's alone; a report of a body both parties
    appointed is fair to each."""
    _burdens_only(DEVELOPMENT, "1.1", "甲方", "乙方", "one_sided_discretion")
    assert not _against(DEVELOPMENT, "甲方", "1.2")
    assert not _against(DEVELOPMENT, "乙方", "1.2")


def test_what_is_not_late_payment_is_no_late_payment_rate() -> None:
    """'…不构成迟延付款': the 30 % is a share of the fee, not an interest rate; the 180 days
    to pay burden the developer."""
    assert "late_payment_interest" not in [p for p, _ in _against(DEVELOPMENT, "甲方", "1.3")]
    _burdens_only(DEVELOPMENT, "1.3", "乙方", "甲方", "payment_term")


def test_chinese_set_off_of_one_side_and_the_object_of_a_liability() -> None:
    _burdens_only(DEVELOPMENT, "1.4", "甲方", "乙方", "one_sided_set_off")
    roles = party_roles(StructureParser().parse(DEVELOPMENT, document_id="c"), "甲方")
    actions = party_actions("乙方在本合同项下向甲方承担的全部责任", roles)
    assert [(a.side, a.alias) for a in actions] == [("them", "乙方")]  # 向甲方: the object


BREACH = """SERVICES AGREEMENT

This Agreement is made between Tallow Reach Ltd (the "Supplier") and Ormond Dairy plc (the \
"Customer").

1. Term
1.1 Any attempted termination of this Agreement by the Customer without cause shall be deemed a material breach of this Agreement.
1.2 The Customer may terminate this Agreement at any time without cause, and such termination shall not be deemed a breach of this Agreement.
"""


def test_an_act_declared_a_breach_is_no_right() -> None:
    """'An attempted termination … without cause shall be deemed a breach' grants nothing; 'may
    terminate … without cause, and … shall not be deemed a breach' is the right itself."""
    assert "one_sided_termination_for_convenience" not in [
        p for p, _ in _against(BREACH, "Supplier", "1.1")
    ]
    _burdens_only(BREACH, "1.2", "Supplier", "Customer", "one_sided_termination_for_convenience")


ENDINGS = """LICENCE AGREEMENT

This Agreement is made between Tallow Reach Ltd (the "Licensor") and Ormond Dairy plc (the \
"Licensee").

1. Term
1.1 The licences granted in this Agreement shall not terminate for any reason unless the Licensee fails to pay the fees.
1.2 Upon expiration or termination of this Agreement for any reason or at the written request of the Licensor, all Documentation shall be returned.
1.3 The Licensor may terminate this Agreement for any reason on seven (7) days' notice.
"""


@pytest.mark.parametrize("clause_id", ["1.1", "1.2"])
@pytest.mark.parametrize("party", ["Licensor", "Licensee"])
def test_no_termination_right_where_termination_is_denied_or_already_over(
    clause_id: str, party: str
) -> None:
    """'shall not terminate for any reason' denies the right; 'upon expiration or termination …
    for any reason' says what follows an ending. Neither is a termination for convenience."""
    assert "one_sided_termination_for_convenience" not in [
        p for p, _ in _against(ENDINGS, party, clause_id)
    ]
    _burdens_only(ENDINGS, "1.3", "Licensee", "Licensor", "one_sided_termination_for_convenience")


ONE_WAY = """SUPPLY AGREEMENT

This Agreement is made between Tamberlane Coatings Inc., a Florida corporation whose registered \
office is 12 Bay Road, Tampa (the "Supplier"), and Northcliff Marine plc, a company registered \
under the laws of England and Wales (the "Customer").

1. Indemnity
1.1 The Customer shall indemnify and hold harmless the Supplier against all claims arising out of \
the Customer's use of the Products.

2. Term and Termination
2.1 Either party may terminate this Agreement if the Products are withdrawn from the market by \
a regulator.
2.2 The Supplier may terminate this Agreement on thirty (30) days' notice if the Customer \
breaches any of its obligations.

3. Law
3.1 This Agreement shall be governed by the laws of the State of Florida.
"""


def test_a_term_only_one_side_holds_anywhere_in_the_contract_is_one_way() -> None:
    """An indemnity only we give, and a right to terminate for breach only they hold, are
    against us wherever their clauses sit; a mutual right to end the contract on one narrow
    event does not balance a right to end it for any breach. Acting for the other side they
    favour it."""
    assert ("one_way_indemnity", RiskLevel.MEDIUM) in _against(ONE_WAY, "Customer", "1.1")
    assert ("one_way_termination", RiskLevel.MEDIUM) in _against(ONE_WAY, "Customer", "2.2")
    assert _against(ONE_WAY, "Supplier", "1.1") == []
    assert _against(ONE_WAY, "Supplier", "2.2") == []
    assert _against(ONE_WAY, "Customer", "2.1") == []  # mutual
    favourable = [f.position_id for f in _findings(ONE_WAY, "Supplier", "1.1").findings]
    assert "one_way_indemnity" in favourable


def test_the_same_term_given_to_the_other_side_elsewhere_balances_it() -> None:
    mutual = ONE_WAY.replace(
        "3. Law\n",
        "2.3 The Customer may terminate this Agreement for convenience on ninety (90) days' "
        "notice.\n2.4 The Supplier shall indemnify the Customer against all third party claims "
        "arising from defects in the Products.\n\n3. Law\n",
    )
    assert _against(mutual, "Customer", "1.1") == []
    # a right to terminate for any reason covers a right to terminate for breach
    assert _against(mutual, "Customer", "2.2") == []


def test_the_law_of_the_state_a_party_is_organised_in_is_its_home_ground() -> None:
    """'a Florida corporation': the laws of Florida are the Supplier's; 'registered under the
    laws of England and Wales': England is the Customer's."""
    structure = StructureParser().parse(ONE_WAY, document_id="c")
    places = party_places(structure, party_roles(structure, "Customer"))
    assert places.get("Florida") == "them"
    assert places.get("Tampa") == "them"
    assert places.get("England") == "us"
    assert ("one_sided_governing_law", RiskLevel.MEDIUM) in _against(ONE_WAY, "Customer", "3.1")
    assert _against(ONE_WAY, "Supplier", "3.1") == []


GUARANTY = """GUARANTY

This Guaranty is made by Vantage Holdings Corp. ("Guarantor") in favor of Meridian Yards LLC \
("Landlord").

1. Guaranty
1.1 The liability of the Guarantor shall not be affected by any amendment, extension or renewal \
of the Lease or any indulgence granted to the Tenant.
1.2 A certificate of the Landlord as to the amount due shall be conclusive evidence against the \
Guarantor.
1.3 Notices shall be in writing.
"""

GUARANTY_ZH = """最高额保证合同

保证人（甲方）：常州远景控股有限公司
债权人（乙方）：上海铂川贸易有限公司

第一条 保证责任
1.1 保证人放弃债务人对债权人享有的一切抗辩权。
1.2 主合同的变更、展期无需经保证人同意，不影响保证人的保证责任。
1.3 主债权的数额以债权人出具的对账单为准。
1.4 本合同自双方签字盖章之日起生效。
"""


@pytest.mark.parametrize(
    ("text", "guarantor", "creditor", "clause_id", "position"),
    [
        (GUARANTY, "Guarantor", "Landlord", "1.1", "guarantee_unconsented_variation"),
        (GUARANTY, "Guarantor", "Landlord", "1.2", "conclusive_certificate"),
        (GUARANTY_ZH, "保证人", "债权人", "1.1", "waiver_of_remedies"),
        (GUARANTY_ZH, "保证人", "债权人", "1.2", "guarantee_unconsented_variation"),
        (GUARANTY_ZH, "保证人", "债权人", "1.3", "conclusive_certificate"),
    ],
)
def test_what_a_guarantors_lawyer_checks(
    text: str, guarantor: str, creditor: str, clause_id: str, position: str
) -> None:
    """A guarantee that survives unconsented variations, the creditor's certificate as
    conclusive proof, and a waiver of the debtor's defences ('保证人放弃…抗辩权': 放弃 is the
    guarantor's act) burden the guarantor, not the creditor; the creditor is a party by its
    role (债权人, in favor of)."""
    _burdens_only(text, clause_id, guarantor, creditor, position)
    assert _against(text, guarantor, "1.4" if "1.4" in text else "1.3") == []


@pytest.mark.parametrize(
    "sentence",
    [
        "2.1 The Reseller will receive payment of its invoices immediately following receipt of "
        "payment by the Vendor from the End Customer.",
        "2.1 The Reseller shall be paid within ten (10) days after receipt of the insurance "
        "proceeds by the Vendor.",
    ],
)
def test_payment_out_of_what_a_third_party_pays_is_pay_when_paid(sentence: str) -> None:
    """Paid only once the other side is paid by its own customer or insurer: the payee
    carries a third party's credit risk."""
    text = (
        'AGREEMENT\n\nThis Agreement is made between Alder Ltd (the "Reseller") and Birch Inc '
        '(the "Vendor").\n\n2. Payment\n' + sentence + "\n"
    )
    assert "pay_when_paid" in [p for p, _ in _against(text, "Reseller", "2.1")]
    assert "pay_when_paid" not in [p for p, _ in _against(text, "Vendor", "2.1")]


NAMED = """ENDORSEMENT AGREEMENT

This Agreement is made between Harlow Beverages Inc., a Delaware corporation, 5935 Airport \
Road, Suite 405, Mississauga, Ontario ("Harlow") and Dana Reyes Enterprises LLC, whose office \
is at 12 Bay Street, Vancouver, British Columbia ("Reyes").

1. Services and fees
1.1 Harlow shall pay Reyes a fee of $50,000 per year.
1.2 Harlow may terminate this Agreement by giving thirty (30) days written notice to Reyes.
1.3 Harlow may assign its rights hereunder, but shall furnish written notice of such assignment.
1.4 This Agreement and all rights hereunder are personal to Reyes and shall not be assigned by \
Reyes without the written consent of Harlow.

2. Indemnities
2.1 Reyes will have no liability whatsoever for (and Harlow shall indemnify and hold Reyes \
harmless for) any injuries to persons or damage to property arising out of the promotional events.
2.2 Reyes shall indemnify Harlow against third-party claims that the Reyes Marks infringe any \
trademark.

3. Disputes
3.1 The parties attorn to the exclusive jurisdiction of the courts located in Toronto, Ontario.
"""


def test_a_right_held_on_notice_alone_or_to_assign_freely_is_one_sided() -> None:
    """'may terminate … by giving thirty (30) days written notice', no ground stated, is a
    right to walk away; 'may assign its rights hereunder' with no consent asked, while the
    other side may not assign at all, is a free assignment right. Neither burdens the party
    that holds it."""
    _burdens_only(NAMED, "1.2", "Reyes", "Harlow", "one_sided_termination_for_convenience")
    _burdens_only(NAMED, "1.3", "Reyes", "Harlow", "one_sided_assignment")


def test_a_termination_right_on_notice_for_a_ground_is_not_for_convenience() -> None:
    text = NAMED.replace(
        "Harlow may terminate this Agreement by giving",
        "If Reyes breaches clause 1.4, Harlow may terminate this Agreement by giving",
    )
    assert "one_sided_termination_for_convenience" not in [
        p for p, _ in _against(text, "Reyes", "1.2")
    ]


def test_the_other_sides_narrower_indemnity_does_not_balance_ours() -> None:
    """Our indemnity for injuries and property damage is one way when theirs covers only the
    infringement of their own marks; their infringement indemnity, the deliverer's market
    practice, is balanced by any indemnity we give. 'will have no liability' exempts the party
    it names: it does not put a duty on it."""
    serious = [p for p, level in _against(NAMED, "Harlow", "2.1") if level != RiskLevel.LOW]
    assert "one_way_indemnity" in serious
    assert "one_way_indemnity" not in [p for p, _ in _against(NAMED, "Reyes", "2.2")]
    assert "one_way_indemnity" not in [p for p, _ in _against(NAMED, "Reyes", "2.1")]


def test_a_street_address_after_the_description_is_a_partys_seat() -> None:
    """', 5935 Airport Road, Suite 405, Mississauga, Ontario' with no 'office at' before it:
    the exclusive courts of Toronto, Ontario are Harlow's home ground."""
    structure = StructureParser().parse(NAMED, document_id="c")
    places = party_places(structure, party_roles(structure, "Reyes"))
    assert places.get("Ontario") == "them"
    assert places.get("Vancouver") == "us"
    _burdens_only(NAMED, "3.1", "Reyes", "Harlow", "one_sided_forum")


LIST = """DISTRIBUTION AGREEMENT

This Agreement is made between Wexford Gaming Technologies Inc. ("WGT") and Lisle Micro Ltd \
("Distributor").

NOW, THEREFORE, the parties agree as follows:

5. Term and termination
5.1 The Term is three (3) years.
5.2 Upon the occurrence of any of the following, WGT may terminate the Term by giving \
Distributor written notice of such termination for:
(a) any failure of Distributor to comply with the marketing requirements; or
(b) Distributor's insolvency.
5.3 Distributor may terminate this Agreement if WGT fails to deliver the Products and does not \
cure the failure within thirty (30) days of notice.
"""


def test_a_list_item_is_read_with_the_words_it_completes() -> None:
    """'(a) any failure of Distributor …' alone says nothing of who may do what; read with
    its lead-in ('WGT may terminate … by giving … notice for:') it is a right to end the
    contract at once for any failure, with no cure period — against the Distributor, while
    the contract's opening words ('the parties agree as follows:') are no lead-in of every
    clause. The quote stays the item's own words."""
    for clause_id in ("5.2", "5.2(a)"):
        findings = _findings(LIST, "Distributor", clause_id).findings
        cure = [f for f in findings if f.position_id == "one_sided_termination_without_cure"]
        assert cure
        assert cure[0].effect == "against_us"
        assert cure[0].quote.startswith("(a) any failure of Distributor")
    assert _against(LIST, "WGT", "5.2(a)") == []
    # insolvency: no cure to give (a right only WGT holds, one-way all the same)
    assert [p for p, _ in _against(LIST, "Distributor", "5.2(b)")] == ["one_way_termination"]
    assert "one_sided_termination_without_cure" not in [p for p, _ in _against(LIST, "WGT", "5.3")]


def test_a_cost_payable_by_a_party_is_borne_by_it_whoever_else_the_sentence_names() -> None:
    """'If WGT retains a collection agency …, all collection costs, including … attorney's
    fees, will be payable by Distributor': the Distributor bears them, not WGT, named first."""
    text = LIST.replace(
        "5.3 Distributor may",
        "5.4 If WGT retains a collection agency to collect overdue payments, all collection "
        "costs, including but not limited to reasonable attorney's fees, will be payable by "
        "Distributor.\n5.3 Distributor may",
    )
    _burdens_only(text, "5.4", "Distributor", "WGT", "shifted_taxes_and_costs")


def test_a_lists_first_mark_cut_off_with_its_lead_in_is_read_with_its_item() -> None:
    """'… notice for:   i. Any failure …' — the full stop after 'i' ends a sentence part: the
    mark goes with its item, and the item with the lead-in."""
    inline = LIST.replace(
        "for:\n(a) any failure of Distributor to comply with the marketing requirements; or\n"
        "(b) Distributor's insolvency.\n",
        "for:   i. Any failure of Distributor to comply with the marketing requirements;   ii. "
        "Distributor's insolvency.\n",
    )
    assert inline != LIST
    findings = _findings(inline, "Distributor", "5.2").findings
    cure = [f for f in findings if f.position_id == "one_sided_termination_without_cure"]
    assert [f.quote for f in cure] == [
        "i. Any failure of Distributor to comply with the marketing requirements;"
    ]


def test_a_lists_items_stating_one_term_give_one_finding() -> None:
    """'CEIS shall indemnify XFN against claims arising from: (a) …; (b) …; (c) …' is one
    indemnity: one finding, on its first item."""
    text = (
        'LICENCE\n\nThis Agreement is made between Orrin Media Ltd ("Orrin") and Castell Labs '
        'Inc. ("Castell").\n\n6. Indemnity\n6.1 Orrin shall indemnify Castell against all '
        "claims arising from:   (a) the use of the Content;   (b) the exercise of the rights "
        "granted herein;   (c) any breach of this Agreement.\n"
    )
    one_way = [p for p, _ in _against(text, "Orrin", "6.1") if p == "one_way_indemnity"]
    assert one_way == ["one_way_indemnity"]


MAKER = """MANUFACTURING AGREEMENT

This Agreement is made between Kestrel Works Sdn. Bhd., whose office is at 3 Jalan Ampang, \
Kuala Lumpur ("Maker") and Lumen Audio Ltd, whose office is at 9 Rose Lane, Norwich ("Buyer").

1. Payment
1.1 Buyer shall pay each invoice within thirty (30) days.
1.2 Buyer shall have no claim for any refund or credit in respect of Products it has accepted.
1.3 If a Change of Control of Buyer occurs, all instalments of the Price then unpaid shall \
immediately become due and payable to Maker without demand.
1.4 Upon termination, all fees on Products theretofore delivered shall become immediately due \
and payable.
1.5 Each party waives any claim against the other for loss of profit.

2. Term and termination
2.1 Buyer may at its option extend the Term for a further three (3) years.
2.2 Maker may terminate this Agreement by giving seven (7) days' written notice if Buyer fails \
to pay any sum by its due date.
2.3 If Maker commits a material breach, Buyer may terminate this Agreement only if Maker has \
failed to remedy that breach within ninety (90) days after receipt of written notice.
2.4 On expiry or termination of this Agreement for any reason, Buyer shall purchase from Maker \
all finished Products, work in progress and Components at cost plus fifteen per cent (15%).
2.5 Maker may sub-license the Buyer Designs to any third party without the consent of Buyer.
"""


@pytest.mark.parametrize(
    ("clause_id", "burdened", "position"),
    [
        ("1.2", "Buyer", "waiver_of_remedies"),  # a claim given up in advance
        ("1.3", "Buyer", "acceleration"),  # unpaid instalments all due at once
        ("2.1", "Maker", "one_sided_renewal_option"),  # only the Buyer may extend
        ("2.2", "Buyer", "asymmetric_cure_period"),  # seven days for us…
        ("2.3", "Buyer", "asymmetric_cure_period"),  # …ninety days for them
        ("2.4", "Buyer", "termination_buy_back"),  # all stock, on any ending
        ("2.5", "Buyer", "one_sided_assignment"),  # a sub-licence with no consent
    ],
)
def test_terms_one_sided_by_what_they_give_up_bring_forward_or_lock_in(
    clause_id: str, burdened: str, position: str
) -> None:
    """Waived claims, acceleration, a renewal one side calls, cure periods far apart across
    the contract, a buy-back on any termination and a free sub-licence burden one side: a
    medium risk for it, none for the other."""
    _burdens_only(MAKER, clause_id, burdened, "Maker" if burdened == "Buyer" else "Buyer", position)


@pytest.mark.parametrize("party", ["Maker", "Buyer"])
def test_accrued_sums_mutual_waivers_and_equal_cure_periods_are_nobodys(party: str) -> None:
    """Fees already earned falling due on termination are no acceleration; a waiver both
    parties give is balanced; cure periods of the same length are no asymmetry."""
    assert "acceleration" not in [p for p, _ in _against(MAKER, party, "1.4")]
    assert "waiver_of_remedies" not in [p for p, _ in _against(MAKER, party, "1.5")]
    even = MAKER.replace("seven (7) days' written notice", "ninety (90) days' written notice")
    for clause_id in ("2.2", "2.3"):
        assert "asymmetric_cure_period" not in [p for p, _ in _against(even, party, clause_id)]


def test_chinese_waivers_renewal_and_cure_periods_burden_one_side() -> None:
    text = (
        "商标使用许可合同\n\n许可方：甲方（北京星河品牌管理有限公司）\n被许可方：乙方（苏州明辉食品有限公司）\n\n"
        "第一条 期限\n1.1 许可期限届满前，乙方有权单方选择续期两次，每次续期三年。\n\n"
        "第二条 费用\n2.1 商标被宣告无效的，乙方放弃要求甲方返还已支付的入门费及提成费的权利。\n"
        "2.2 乙方不得以销量下降为由要求减免年度最低提成费。\n\n"
        "第三条 解除\n3.1 乙方违约，经甲方书面通知后三日内未予纠正的，甲方有权书面通知乙方解除本合同。\n"
        "3.2 甲方违约，经乙方书面催告后九十日内仍未纠正的，乙方有权书面通知甲方解除本合同。\n"
    )
    _burdens_only(text, "1.1", "甲方", "乙方", "one_sided_renewal_option")
    _burdens_only(text, "2.1", "乙方", "甲方", "waiver_of_remedies")
    _burdens_only(text, "2.2", "乙方", "甲方", "waiver_of_remedies")
    _burdens_only(text, "3.1", "乙方", "甲方", "asymmetric_cure_period")
    _burdens_only(text, "3.2", "乙方", "甲方", "asymmetric_cure_period")


def test_an_amount_a_cap_is_measured_by_is_no_cost_its_payer_bears() -> None:
    """'… shall in no event exceed the Fees actually paid by Client': the cap is the
    Provider's, whom the sentence names first; the Client only measures it."""
    structure = StructureParser().parse(
        'SERVICES\n\nThis Agreement is made between Sakura Ops K.K. ("Provider") and Harbour '
        'Retail Inc. ("Client").\n\n7. Liability\n7.1 Client shall pay the Fees monthly.\n7.2 '
        "Provider's aggregate liability shall in no event exceed the Fees actually paid by Client "
        "in the three (3) months before the claim.\n",
        document_id="c",
    )
    from contract_review.analysis.positions import term_sides
    from contract_review.plugins.generic import PLAYBOOK

    (cap,) = [p for p in PLAYBOOK.positions if p.id == "limitation_of_liability"]
    assert cap.present is not None
    assert term_sides(structure, cap.present.check, party_roles(structure, "Provider")) == {"us"}


def test_guarantees_bars_on_any_business_and_fees_kept_whatever_happens() -> None:
    """A guarantee by our officers personally or alongside a third party, a bar on being in any
    business of a kind, and a fee kept even when the other side ends the deal burden the side
    that gives them."""
    text = (
        "融资租赁合同\n\n出租人：甲方（津海恒信融资租赁有限公司）\n承租人：乙方（苏州明辉精密模塑有限公司）\n\n"
        "第一条 费用\n1.1 乙方的法定代表人对乙方在本合同项下的全部债务承担连带保证责任。\n"
        "1.2 乙方应向甲方支付服务费。该服务费一经支付，无论本合同因何种原因被解除（包括因甲方原因），"
        "甲方均不予退还。\n1.3 出卖人迟延交付的，甲方应与出卖人共同向乙方承担连带赔偿责任。\n"
        "1.4 本合同终止之日起三年内，乙方不得以任何方式从事、投资或参与任何租赁经营活动。\n"
    )
    _burdens_only(text, "1.1", "乙方", "甲方", "guarantee_of_others")
    _burdens_only(text, "1.2", "乙方", "甲方", "deposit_forfeiture")
    _burdens_only(text, "1.3", "甲方", "乙方", "guarantee_of_others")
    _burdens_only(text, "1.4", "乙方", "甲方", "one_sided_restrictive_covenant")
    english = MAKER.replace(
        "1.5 Each party waives",
        "1.6 The directors of Buyer shall be jointly and severally liable for all sums due.\n"
        "1.7 For five (5) years after the Term, Buyer shall not be engaged, concerned or "
        "interested in any business which makes speakers.\n1.5 Each party waives",
    )
    _burdens_only(english, "1.6", "Buyer", "Maker", "guarantee_of_others")
    # a bar that outlasts the term is read as the post-term exclusivity it is
    barred = {p for p, level in _against(english, "Buyer", "1.7") if level != RiskLevel.LOW}
    assert barred & {"one_sided_restrictive_covenant", "one_sided_exclusivity"}
    assert _against(english, "Maker", "1.7") == []


@pytest.mark.parametrize(
    ("ours", "theirs", "one_sided"),
    [
        ("within 30 days", "within 10 days", True),  # the same kind of breach, three times over
        ("within 30 days", "within 20 days", False),  # close enough
        (
            "within 30 days",
            "within 10 days of a failure to pay any sum",
            False,
        ),  # payment: ten days is the market's
    ],
)
def test_cure_periods_are_compared_like_with_like(ours: str, theirs: str, one_sided: bool) -> None:
    text = (
        'SERVICES\n\nThis Agreement is made between Dolphin Labs Ltd ("Dolphin") and DGT Corp. '
        '("DGT").\n\n6. Termination\n'
        f"6.1 DGT may terminate this Agreement if Dolphin fails to remedy a material breach {theirs} "
        "after notice.\n"
        f"6.2 Dolphin may terminate this Agreement if DGT fails to remedy a material breach {ours} "
        "after notice.\n"
    )
    for clause_id in ("6.1", "6.2"):
        against = [p for p, _ in _against(text, "Dolphin", clause_id)]
        assert ("asymmetric_cure_period" in against) is one_sided, (clause_id, against)
        assert "asymmetric_cure_period" not in [p for p, _ in _against(text, "DGT", clause_id)]


def test_a_supplier_keeping_direct_sales_in_our_territory_is_against_the_distributor() -> None:
    """The party paid (the supplier) keeping the right to sell to end users itself, or to
    appoint other distributors, takes what the distributor builds; the distributor's own right
    to sell is its grant, not a risk for the supplier."""
    text = (
        'DISTRIBUTION\n\nThis Agreement is made between Orrin Devices Inc. ("Supplier") and '
        'Castell Medical LLC ("Distributor").\n\n2. Appointment\n2.1 Distributor shall pay '
        "Supplier for each Product within thirty (30) days of invoice.\n2.2 Notwithstanding 2.1, "
        "Supplier may sell the Products to end users in the Territory at any time.\n2.3 Supplier "
        "may appoint other distributors of the Products in the Territory.\n2.4 Distributor may "
        "sell the Products directly to end users in the Territory.\n"
    )
    _burdens_only(text, "2.2", "Distributor", "Supplier", "reserved_direct_sales")
    _burdens_only(text, "2.3", "Distributor", "Supplier", "reserved_direct_sales")
    assert "reserved_direct_sales" not in [p for p, _ in _against(text, "Supplier", "2.4")]


def test_the_party_invoiced_pays_where_no_sentence_says_who_pays() -> None:
    """'Charity Tunes will invoice Sponsor', 'the fees paid by Sponsor': Sponsor pays."""
    structure = StructureParser().parse(
        'SPONSORSHIP\n\nThis Agreement is made between Charity Tunes Inc. ("Charity Tunes") and '
        'Delta Foods Ltd ("Sponsor").\n\n1. Codes\n1.1 Charity Tunes will invoice Sponsor for '
        "the codes on signing.\n1.2 In consideration of the fees paid by Sponsor, Charity Tunes "
        "shall deliver the codes.\n",
        document_id="c",
    )
    assert payer_of(structure, party_roles(structure, "Charity Tunes")) == ("them", "Sponsor")


def test_notice_to_end_the_contract_months_for_us_days_for_them_is_one_sided() -> None:
    text = (
        'AFFILIATE\n\nThis Agreement is made between Bracken Retail Ltd ("Merchant") and Tideline '
        'Media Ltd ("Publisher").\n\n12. Termination\n12.1 The Publisher may terminate this '
        "Agreement at any time by giving the Merchant thirty (30) days' written notice.\n12.2 The "
        "Merchant may not terminate this Agreement during the Initial Term, and may terminate it "
        "after the Initial Term only by giving six (6) months' written notice.\n"
    )
    for clause_id in ("12.1", "12.2"):
        _burdens_only(text, clause_id, "Merchant", "Publisher", "asymmetric_notice_period")
    even = text.replace("six (6) months'", "thirty (30) days'")
    for clause_id in ("12.1", "12.2"):
        assert "asymmetric_notice_period" not in [
            p for p, _ in _against(even, "Merchant", clause_id)
        ]
    zh = (
        "加盟合同\n\n特许人：甲方（南京渔舟餐饮管理有限公司）\n被特许人：乙方（苏州明辉餐饮有限公司）\n\n"
        "第九条 解除\n9.1 乙方可提前三十日书面通知甲方解除本合同。\n9.2 甲方可提前六个月书面通知乙方解除本合同。\n"
    )
    _burdens_only(zh, "9.2", "甲方", "乙方", "asymmetric_notice_period")
