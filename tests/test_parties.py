"""contract_review.parties: our party and the other side, and who must or may do what."""

from __future__ import annotations

import pytest

from contract_review.parties import (
    contract_parties,
    find_parties,
    obligor_of,
    party_actions,
    party_mentions,
    party_roles,
    payer_of,
    resolve_party,
    role_actions,
    role_key,
)
from contract_review.structure_parser import StructureParser
from tests.conftest import EXAMPLES, example_structure

FIDIC = example_structure("fidic/particular_conditions_en.txt")
CN = example_structure("cn/construction_contract_zh.txt")
SUPPLY = StructureParser().parse(
    (EXAMPLES / "generic" / "supply_agreement_en.txt").read_text(encoding="utf-8")
)
SERVICES = StructureParser().parse(
    (EXAMPLES / "generic" / "services_agreement_en.md").read_text(encoding="utf-8")
)
PAREN = StructureParser().parse(
    "LICENCE AGREEMENT\n\n"
    'This Agreement is made between Orbit Software GmbH (the "Licensor") and '
    'Delta Freight plc (hereinafter referred to as "Licensee").\n\n'
    "1. Grant\nThe Licensor grants the Licensee a licence.\n"
)
ZH_SALE = StructureParser().parse(
    "买卖合同\n\n"
    "江临精工机械有限公司（以下简称“卖方”）\n"
    "滨海物流股份有限公司（以下简称“买方”）\n\n"
    "第一条 标的\n卖方应按期交付设备。\n"
)
# The role word leads the line and the short label stands in the brackets.
ZH_ROLE_LINE = StructureParser().parse(
    "保密协议\n\n"
    "披露方（以下简称“甲方”）：澜拓智能科技有限公司\n"
    "住所：上海市闵行区\n"
    "接收方（简称：乙方）：禾岳信息技术有限公司\n\n"
    "1. 保密义务\n乙方应对保密信息保密。\n"
)


def test_parties_named_in_preamble_and_definitions() -> None:
    assert contract_parties(FIDIC) == [
        ["Contractor", "Meridian Build Ltd"],
        ["Employer", "Coastal Water Authority"],
    ]
    assert contract_parties(CN) == [
        ["发包人", "滨江新城教育投资发展有限公司", "甲方"],
        ["承包人", "恒筑建设集团有限公司", "乙方"],
    ]
    assert contract_parties(SUPPLY) == [
        ["Buyer", "Lakeshore Instruments LLC"],
        ["Supplier", "Granite Peak Components, Inc."],
    ]
    assert contract_parties(SERVICES) == [
        ["Provider", "Northwind Analytics Pty Ltd"],
        ["Client", "Bluefin Retail Group Inc."],
    ]
    assert contract_parties(PAREN) == [
        ["Licensor", "Orbit Software GmbH"],
        ["Licensee", "Delta Freight plc"],
    ]
    assert contract_parties(ZH_SALE) == [
        ["卖方", "江临精工机械有限公司"],
        ["买方", "滨海物流股份有限公司"],
    ]
    assert [set(g) for g in contract_parties(ZH_ROLE_LINE)] == [
        {"披露方", "甲方", "澜拓智能科技有限公司"},
        {"接收方", "乙方", "禾岳信息技术有限公司"},
    ]
    assert "禾岳信息技术有限公司" in party_roles(ZH_ROLE_LINE, "甲方").their_aliases
    assert contract_parties(None) == []


@pytest.mark.parametrize("ours", ["Contractor", "contractor", "Meridian Build Ltd", "承包人"])
def test_our_party_as_role_or_name_english(ours: str) -> None:
    roles = party_roles(FIDIC, ours)
    assert roles.resolved
    assert roles.our_roles == ("contractor",)
    assert roles.their_roles == ("employer",)
    assert {"Contractor", "Meridian Build Ltd", "承包人", "承包商"} <= set(roles.our_aliases)
    assert {"Employer", "Coastal Water Authority", "发包人", "业主"} <= set(roles.their_aliases)
    assert not set(roles.our_aliases) & set(roles.their_aliases)


@pytest.mark.parametrize("ours", ["承包人", "乙方", "承包商", "恒筑建设集团", "Contractor"])
def test_our_party_as_role_or_name_chinese(ours: str) -> None:
    roles = party_roles(CN, ours)
    assert roles.our_roles == ("contractor",)
    assert {"承包人", "乙方", "恒筑建设集团有限公司"} <= set(roles.our_aliases)
    assert {"发包人", "甲方", "滨江新城教育投资发展有限公司"} <= set(roles.their_aliases)
    assert roles.side_of("甲方") == "them"
    assert roles.side_of("双方") == "both"


def test_generic_labels_follow_the_contract() -> None:
    employer = party_roles(CN, "甲方")
    assert employer.our_roles == ("employer",)
    assert "发包人" in employer.our_aliases
    assert "乙方" in employer.their_aliases
    seller = party_roles(ZH_SALE, "江临精工机械有限公司")
    assert seller.our_roles == ("seller",)
    assert seller.their_roles == ("buyer",)
    assert "滨海物流股份有限公司" in seller.their_aliases
    # Without a contract, 乙方 defaults to the construction reading.
    assert party_roles(None, "乙方").our_roles == ("contractor",)


def test_other_contract_families() -> None:
    buyer = party_roles(SUPPLY, "Lakeshore Instruments LLC")
    assert buyer.our_roles == ("buyer",)
    assert {"Supplier", "Granite Peak Components, Inc."} <= set(buyer.their_aliases)
    # "Seller" is not used by the contract: it stands for the Supplier.
    seller = party_roles(SUPPLY, "Seller")
    assert "Granite Peak Components, Inc." in seller.our_aliases
    assert "Supplier" in seller.our_aliases
    assert "Buyer" in seller.their_aliases
    client = party_roles(SERVICES, "Client")
    assert client.our_roles == ("customer",)
    assert "Northwind Analytics Pty Ltd" in client.their_aliases
    licensee = party_roles(PAREN, "Delta Freight")
    assert licensee.our_roles == ("licensee",)
    assert "Licensor" in licensee.their_aliases
    assert role_key("Purchaser") == "buyer"
    assert role_key("被许可方") == "licensee"
    assert role_key("Investor") == "investor"


def test_unknown_party_is_unresolved() -> None:
    roles = party_roles(FIDIC, "Acme Holdings")
    assert not roles.resolved
    assert roles.our_aliases == ("Acme Holdings",)
    assert roles.their_aliases == ()
    assert not party_roles(FIDIC, "").resolved


_ACTIONS_EN = {
    "The Contractor shall give notice within 28 days.": [("us", "obligation")],
    "The Employer may terminate the Contract.": [("them", "right")],
    "The Contractor shall be entitled to an extension of time.": [("us", "right")],
    "The Contractor shall not be entitled to any extension.": [("us", "denial")],
    "The Employer shall not be liable for any delay.": [("them", "exempt")],
    "The Contractor shall bear the cost.": [("us", "bears")],
    "All work is carried out at the Contractor's own risk.": [("us", "bears")],
    "The Contractor, at its own cost, shall promptly repair it.": [("us", "obligation")],
    "Each Party shall keep the terms confidential.": [("both", "obligation")],
    "The total liability of the Contractor shall not exceed USD 1.": [],
    "The Contractor's Personnel shall wear helmets.": [],
}
_ACTIONS_ZH = {
    "承包人应在28天内提交索赔报告。": [("us", "obligation")],
    "因不可抗力导致的费用增加由承包人承担。": [("us", "bears")],
    "发包人有权扣留质量保证金。": [("them", "right")],
    "甲方不承担逾期付款的利息。": [("them", "exempt")],
    "乙方无权要求顺延工期。": [("us", "denial")],
    "双方应友好协商。": [("both", "obligation")],
    "发包人的代表应到场。": [],
    "因不可抗力影响的一方可以解除合同。": [],
}


@pytest.mark.parametrize(
    ("sentence", "expected", "chinese"),
    [(k, v, False) for k, v in _ACTIONS_EN.items()]
    + [(k, v, True) for k, v in _ACTIONS_ZH.items()],
)
def test_actions(sentence: str, expected: list[tuple[str, str]], chinese: bool) -> None:
    roles = party_roles(CN, "承包人") if chinese else party_roles(FIDIC, "Contractor")
    assert [(a.side, a.kind) for a in party_actions(sentence, roles)] == expected


def test_obligor_of() -> None:
    en = party_roles(FIDIC, "Contractor")
    assert obligor_of("The Contractor shall give notice.", en) == "us"
    assert obligor_of("The Employer shall pay within 56 days.", en) == "them"
    assert obligor_of("The Employer may terminate.", en) is None
    assert obligor_of("The Contractor shall notify and the Employer shall respond.", en) == "both"
    assert obligor_of("Neither Party shall assign this Contract.", en) == "both"
    assert obligor_of("Time is of the essence.", en) is None
    employer = party_roles(FIDIC, "Employer")
    assert obligor_of("The Contractor shall give notice.", employer) == "them"
    zh = party_roles(CN, "发包人")
    assert obligor_of("承包人应在28天内递交索赔意向通知书。", zh) == "them"
    assert obligor_of("发包人应在收到后28天内支付。", zh) == "us"


def test_role_actions_and_mentions() -> None:
    assert [(a.role, a.kind) for a in role_actions("The Contractor must give notice.")] == [
        ("contractor", "obligation")
    ]
    assert [(a.role, a.kind) for a in role_actions("买方有权拒收。")] == [("buyer", "right")]
    roles = party_roles(FIDIC, "Employer")
    text = "The liability of the Contractor to Coastal Water Authority and of the Subcontractor"
    assert [(side, word) for _, side, word in party_mentions(text, roles)] == [
        ("them", "Contractor"),
        ("us", "Coastal Water Authority"),
    ]


def test_chinese_subject_carries_over_to_a_part_without_one() -> None:
    roles = party_roles(CN, "甲方")
    late = "8.1 乙方逾期交货的，每逾期一日，应按合同总价的千分之一向甲方支付违约金。"
    assert [(a.side, a.kind) for a in party_actions(late, roles)] == [("them", "obligation")]
    excuse = "借款人因经营困难未能按期还款的，不承担任何违约责任，出借人不得据此主张利息。"
    lender = party_roles(
        StructureParser().parse("借款合同\n\n出借人：甲公司有限公司\n借款人：乙公司有限公司\n"),
        "出借人",
    )
    assert [(a.side, a.kind) for a in party_actions(excuse, lender)] == [
        ("them", "exempt"),
        ("us", "obligation"),
    ]
    # the last subject, not the opening one: 乙方 holds the right, then must give notice
    both = "甲方逾期付款的，乙方有权暂停供货，并应书面通知甲方。"
    assert [(a.side, a.kind) for a in party_actions(both, roles)] == [
        ("them", "right"),
        ("them", "obligation"),
    ]
    # '即可' (it suffices) is no right of 甲方
    notice = "乙方可将本合同转让给其关联公司，仅需书面通知甲方即可。"
    assert [(a.side, a.kind) for a in party_actions(notice, roles)] == [("them", "right")]


def test_parties_named_together_act_together() -> None:
    roles = party_roles(CN, "甲方")
    both = "甲方、乙方任何一方均不得转让本合同。"
    assert {a.side for a in party_actions(both, roles)} == {"both"}
    roles_en = party_roles(SUPPLY, "Buyer")
    text = "Either the Buyer or the Supplier may terminate this Agreement on notice."
    assert {a.side for a in party_actions(text, roles_en)} == {"both"}


def test_a_role_word_the_table_does_not_know_names_a_party_before_a_company() -> None:
    structure = StructureParser().parse(
        "仓储合同\n\n存货人：江苏恒川化工有限公司\n保管人：上海通衡仓储有限公司\n"
        "地址：上海市浦东新区\n\n第一条 仓储\n保管人应妥善保管货物。\n"
    )
    assert contract_parties(structure) == [
        ["存货人", "江苏恒川化工有限公司"],
        ["保管人", "上海通衡仓储有限公司"],
    ]
    roles = party_roles(structure, "存货人")
    assert roles.resolved
    assert "上海通衡仓储有限公司" in roles.their_aliases


def test_the_payer_is_named_in_the_paying_verbs_own_part() -> None:
    structure = StructureParser().parse(
        "广告发布合同\n\n广告主（以下简称“甲方”）：武汉清泉饮品有限公司\n"
        "发布者（以下简称“乙方”）：湖北楚天传媒有限公司\n\n第一条 付款\n"
        "1.1 乙方应于每期收款前向甲方开具发票，甲方收到发票后方负付款义务。\n"
        "1.2 乙方应按期发布广告，并应在发布后十日内向甲方提交报告，甲方收到报告后支付尾款。\n"
    )
    roles = party_roles(structure, "乙方")
    assert payer_of(structure, roles) == ("them", "甲方")


PRONOUNS = StructureParser().parse(
    "CONTENTS\n1. Services ........ 1\n2. Fees ........ 2\n\n"
    'This Agreement is made between Brightwater Systems, Inc. ("we" or "us") and '
    '__________________________ ("you").\n\n'
    "1. Services\n1.1 We may vary the Services at any time. You shall pay every invoice.\n"
    '1.2 The licensee ("you") includes your permitted successors.\n'
    "1.3 Either party may terminate on notice. Payments to us are due monthly.\n"
)


@pytest.mark.parametrize("ours", ["you", "You", "licensee"])
def test_parties_named_by_pronouns_act_by_them(ours: str) -> None:
    """'("we" or "us")' and '("you")' name the parties; the role given to 'you' anywhere
    ('The licensee ("you")') names that party too."""
    roles = party_roles(PRONOUNS, ours)
    assert roles.resolved
    assert "licensee" in roles.our_roles
    assert {"We", "Us"} <= set(roles.their_aliases)
    actions = party_actions("We may vary the Services at any time.", roles)
    assert [(a.side, a.kind) for a in actions] == [("them", "right")]
    actions = party_actions("You shall pay every invoice, and we shall refund credits.", roles)
    assert [(a.side, a.kind) for a in actions] == [("us", "obligation"), ("them", "obligation")]
    # 'us' never acts, and 'US' is the United States, not a party
    assert party_actions("Payments to us shall be made in US dollars.", roles) == []
    assert party_actions("The US shall not be a party.", roles) == []


def test_the_party_without_a_role_is_the_counterpart_of_the_named_one() -> None:
    """Acting for the licensor of a contract that names only the licensee: the pronoun party
    beside it ('we') is ours."""
    roles = party_roles(PRONOUNS, "licensor")
    assert roles.resolved
    assert {"We", "Us"} <= set(roles.our_aliases)
    assert "You" in roles.their_aliases
    side = resolve_party(PRONOUNS, "licensor")
    assert side.party is not None
    assert "We" in side.party.labels


def test_a_you_outside_the_opening_is_nobodys_label() -> None:
    """A warranty card in an exhibit that calls the end user "You" names no party of the
    contract whose opening does not."""
    structure = StructureParser().parse(
        'SUPPLY AGREEMENT\n\nThis Agreement is between Acme Ltd (the "Supplier") and Delta plc '
        '(the "Buyer").\n\n1. Supply\nThe Supplier shall deliver.\n\n'
        + "2. Terms\n"
        + "The Supplier shall keep records. " * 500
        + '\n\nEXHIBIT A\nAcme warrants to the original purchaser ("You") that the goods work.\n'
    )
    assert all("You" not in p.labels for p in find_parties(structure))


@pytest.mark.parametrize(
    ("preamble", "names"),
    [
        # labels in parentheses without quotes, straight after a company
        (
            "This Gas Storage Agreement (Agreement) is entered into by Northern Lakes Storage "
            "Limited Partnership (Operator) and RIVERBEND GAS COMPANY (Customer).",
            ["Northern Lakes Storage Limited Partnership", "RIVERBEND GAS COMPANY"],
        ),
        # 'among', each party's address before its label on a line of its own
        (
            'This Development Agreement ("Agreement") is made by and among   Corvane, Inc.  12 '
            'Harbour Road, Leeds LS1 4AB\n\n(hereinafter called "CORVANE"),   and   Halden '
            'Biologics GmbH   Ringstrasse 4 80331 Munich   (hereinafter called "HALDEN").',
            ["Corvane, Inc.", "Halden Biologics GmbH"],
        ),
    ],
)
def test_preambles_of_filed_contracts(preamble: str, names: list[str]) -> None:
    text = f"{preamble}\n\n1. Services\nThe parties shall cooperate in good faith.\n"
    found = [p.name for p in find_parties(StructureParser().parse(text))]
    assert sorted(found) == sorted(names)


def test_a_bare_word_in_parentheses_names_no_party() -> None:
    text = (
        "This Agreement is made between Marlow Trading (Pty) Ltd, a company registered in "
        "South Africa (Gauteng), and Keel Logistics Ltd.\n\n1. Services\nThe parties shall "
        "cooperate.\n"
    )
    names = [p.name for p in find_parties(StructureParser().parse(text))]
    assert "Gauteng" not in " ".join(names)
    assert "Pty" not in names


@pytest.mark.parametrize(
    ("text", "names"),
    [
        # label lines whose description runs on, a role the table does not know
        (
            "MARKETING AGREEMENT\n\nPromoter: Kestrel Outdoor Media Pty Ltd, a company "
            "incorporated in Victoria, Australia, whose registered office is at 40 Flinders "
            "Lane, Melbourne VIC 3000, acting through its board of directors\n\nVenue: "
            "Harbourline Arenas Limited, a company incorporated in New Zealand with its office "
            "at 12 Quay Street, Auckland\n\n1. Services\nThe parties shall cooperate.\n",
            ["Kestrel Outdoor Media Pty Ltd", "Harbourline Arenas Limited"],
        ),
        (
            "设备租赁合同\n\n甲方（出租方）：杭州云帆设备租赁有限公司\n住所：杭州市西湖区\n\n"
            "乙方（承租方）：温州海澄建设工程有限公司\n住所：温州市鹿城区\n\n"
            "第一条 租赁物\n甲方将设备出租给乙方。\n",
            ["杭州云帆设备租赁有限公司", "温州海澄建设工程有限公司"],
        ),
        # the company at the start of its paragraph, the labels after its description
        (
            "合作协议\n\n本协议由以下双方签订：\n\n青岛蓝湾海洋科技有限公司，一家依法设立的公司，"
            "住所为青岛市崂山区，法定代表人：赵海（以下简称“甲方”或“技术方”）；\n\n"
            "厦门鹭岛贸易有限公司，一家依法设立的公司，住所为厦门市思明区（以下简称“乙方”）。\n\n"
            "第一条 合作内容\n双方合作开发产品。\n",
            ["青岛蓝湾海洋科技有限公司", "厦门鹭岛贸易有限公司"],
        ),
        # a bare word in parentheses inside a description, an item numbered (II) before it,
        # and a third company named only in the recitals
        (
            "CERTAIN INFORMATION (I) NOT MATERIAL AND (II) PRIVATE HAS BEEN OMITTED.\n\n"
            "THIS AGREEMENT is made by and between ALTMARK SENSORIK GMBH, registered with the "
            'local court (Amtsgericht) of Hamburg, Germany (hereinafter "Supplier"), and '
            'BLUE HERON LABS, INC., a Delaware corporation (hereinafter "Buyer").\n\n'
            'RECITALS\n\n(A) Supplier is appointed by Norvik Holdings plc (the "Employer") '
            "for the project.\n\n1. Supply\nSupplier shall supply the Products.\n",
            ["ALTMARK SENSORIK GMBH", "BLUE HERON LABS, INC."],
        ),
        # a person with an address, a company in a numbered list
        (
            "CONSULTANCY AGREEMENT\n\nBETWEEN\n\n(1) LARCHMONT ESTATES PLC, a company registered in "
            'England (the "Client"); and\n\n(2) Tomasz Adam Wierzbicki, of 14 Quarry Road, York '
            'YO1 7HH (hereinafter referred to as "the Consultant").\n\n1. Services\n'
            "The Consultant shall provide the services.\n",
            ["LARCHMONT ESTATES PLC", "Tomasz Adam Wierzbicki"],
        ),
        # flattened text: role labels inline before each company
        (
            "HOSTING AGREEMENT Agreement Date: 2024-02-01 Host: Pinecrest Data Corp., a company "
            "organized in Delaware, having offices in Austin Client: Matsukaze Trading K.K., a "
            "company organized in Japan, having offices in Osaka The parties agree as follows. "
            "1. SERVICES The Host shall host the Client's data.\n",
            ["Pinecrest Data Corp.", "Matsukaze Trading K.K."],
        ),
        # a place in brackets inside Chinese company names
        (
            "软件许可合同\n\n甲方：海川数智科技（香港）有限公司\n乙方：星桥物流（新加坡）私人有限公司\n\n"
            "一、许可\n甲方许可乙方使用软件。\n",
            ["海川数智科技（香港）有限公司", "星桥物流（新加坡）私人有限公司"],
        ),
    ],
)
def test_party_blocks_written_other_ways(text: str, names: list[str]) -> None:
    found = [p.name for p in find_parties(StructureParser().parse(text))]
    assert sorted(found) == sorted(names)


def test_document_parts_and_a_description_after_the_company_form() -> None:
    text = (
        "This SERVICES AGREEMENT is entered into by and between Northfield Bank, N.A. "
        '("Northfield"), and the above-named Vendor, and consists of this page and the attached '
        'Terms and Conditions, Schedules, and Exhibits ("Vendor").\n\n'
        'This Agreement is made by Orchard Payment Systems, Inc., the Reseller Office ("RESELLER").'
        "\n\n1. Services\nThe Vendor shall provide the services.\n"
    )
    names = [p.name for p in find_parties(StructureParser().parse(text))]
    assert "Orchard Payment Systems, Inc." in names
    assert not any("Schedules" in n or "Conditions" in n for n in names)


def test_a_brand_in_lower_case_first_and_a_defined_thing() -> None:
    text = (
        "Exhibit 10.8\n\nnFLOW SYSTEMS\n\nHOSTING AGREEMENT\n\n1. Hosting Agreement. This "
        'Agreement is entered into by nFlow Systems Corporation ("nFlow") and Ravenna Bay '
        'Corporation ("Customer") for providing Customer with Web-based access to nFlow\'s '
        'software ("Software").\n\n2. Services\nnFlow will host the Software.\n'
    )
    found = [(p.name, p.labels[0]) for p in find_parties(StructureParser().parse(text))]
    assert found == [
        ("nFlow Systems Corporation", "nFlow"),
        ("Ravenna Bay Corporation", "Customer"),
    ]


def test_a_brand_in_capitals_keeps_its_first_letter() -> None:
    """'iPass' is written 'iPASS' in a capitalised disclaimer: still our party."""
    from contract_review.parties import party_actions

    text = (
        'RESELLER AGREEMENT\n\nThis Agreement is made between iPass Inc. ("iPass") and Pareteum '
        'Corporation ("Channel Partner").\n\n6. DISCLAIMER. iPASS EXPRESSLY DISCLAIMS ALL '
        "WARRANTIES.\n"
    )
    structure = StructureParser().parse(text, document_id="c")
    roles = party_roles(structure, "iPass")
    sentence = "iPASS shall not be liable for any indirect loss."
    assert [(a.side, a.kind) for a in party_actions(sentence, roles)] == [("us", "exempt")]
