"""Contract kind detection (`analysis.kinds`) on contracts written for these tests — English
and Chinese, headed and flattened layouts, titles that say nothing ('AGREEMENT') or mislead —
and on every fixture contract and example (tests/fixtures/kinds.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from contract_review.analysis.kinds import check_kind, detect_kinds, given_kind, kind_ids
from contract_review.errors import InputError
from contract_review.playbook.parse import read_yaml
from contract_review.structure_parser import StructureParser

ROOT = Path(__file__).resolve().parents[2]


def _kinds(text: str, name: str = "contract.txt") -> list[tuple[str, float]]:
    structure = StructureParser().parse(text, document_id=name)
    return [(k.kind, k.confidence) for k in detect_kinds(structure)]


def _main(text: str, name: str = "contract.txt") -> str | None:
    kinds = _kinds(text, name)
    return kinds[0][0] if kinds else None


LICENCE_WITH_DEVELOPMENT = """SOFTWARE LICENCE AND DEVELOPMENT AGREEMENT

This Software Licence and Development Agreement is made on 3 March 2025 between Quillon Systems
Ltd ("Licensor") and Brantwood Retail plc ("Licensee").

1. Licence
1.1 Licensor grants to Licensee a non-exclusive, non-transferable licence to use the Licensed
Software in the Territory. Licensee shall not sublicense the Licensed Software.
1.2 Licensee shall pay Licensor a royalty of 4% of net sales made with the Licensed Software.

2. Development work
2.1 Licensor shall carry out the development work described in the development plan in
Schedule 1 and deliver each milestone on time.
2.2 Each milestone is accepted when the prototype passes the acceptance tests.

3. Royalties and reports
3.1 Royalties are paid quarterly with a report of net sales.
"""


def test_a_licence_with_development_work_ranks_both_the_licence_first() -> None:
    structure = StructureParser().parse(LICENCE_WITH_DEVELOPMENT, document_id="x")
    kinds = detect_kinds(structure)
    assert [k.kind for k in kinds][:2] == ["licence", "development"]
    main = kinds[0]
    assert main.confidence > kinds[1].confidence
    sources = {e.source for e in main.evidence}
    assert {"title", "role", "term"} <= sources
    words = " ".join(e.words for e in main.evidence)
    assert "Licensor" in words
    assert "royalty" in words.lower()


ZH_LEASE = """房屋租赁合同

出租方（甲方）：杭州明澜置业有限公司
承租方（乙方）：杭州青禾餐饮管理有限公司

第一条 租赁房屋
甲方将位于杭州市西湖区文三路88号的房屋出租给乙方使用，建筑面积为320平方米。

第二条 租金及押金
乙方每月向甲方支付租金人民币叁万元整，并于签约时支付押金人民币陆万元整。

第三条 物业费
物业费由乙方承担。
"""


def test_a_chinese_lease_from_its_title_roles_and_terms() -> None:
    structure = StructureParser().parse(ZH_LEASE, document_id="x")
    kinds = detect_kinds(structure)
    assert kinds[0].kind == "property_lease"
    assert kinds[0].name_zh == "房屋 / 场地租赁"
    assert any(e.source == "role" and "出租方" in e.words for e in kinds[0].evidence)


GENERIC_TITLE_LOAN = """AGREEMENT

This Agreement is made on 1 July 2025 between Harbourline Capital LLC (the "Lender") and Ostrava
Components s.r.o. (the "Borrower").

1. The Facility
1.1 The Lender makes available to the Borrower a term loan facility in a principal amount of
USD 5,000,000.
1.2 The Borrower may request a drawdown on any business day.

2. Interest and repayment
2.1 The outstanding principal bears interest at the interest rate of 7% per annum.
2.2 The Borrower shall repay the Loan in eight equal quarterly instalments.

3. Events of Default
3.1 Each of the following is an Event of Default: non-payment, insolvency, breach of covenant.
"""


def test_a_title_that_names_no_kind_leaves_it_to_the_roles_and_terms() -> None:
    assert _main(GENERIC_TITLE_LOAN) == "loan"


def test_a_misleading_title_yields_to_what_the_contract_does() -> None:
    misleading = GENERIC_TITLE_LOAN.replace("AGREEMENT\n", "CONSULTING SERVICES AGREEMENT\n", 1)
    assert _main(misleading) == "loan"
    kinds = [k for k, _ in _kinds(misleading)]
    assert "consulting" in kinds or "services" in kinds  # the title is not forgotten


ZH_COOPERATION_LOAN = """合作协议

出借人：宁波远航投资有限公司
借款人：宁波启明模具有限公司

第一条 借款金额
出借人向借款人提供借款人民币伍佰万元，借款期限十二个月。

第二条 利息
借款年利率为6%，利息按季支付。

第三条 还款
借款人应于借款期限届满之日一次性归还全部本金。
"""


def test_a_chinese_cooperation_agreement_that_lends_money_is_a_loan() -> None:
    assert _main(ZH_COOPERATION_LOAN) == "loan"


ZH_PROCESSING_NO_TITLE = """协议书

甲方（定作人）：苏州澄湖日化有限公司
乙方（承揽人）：昆山恒泰精细化工有限公司

一、甲方委托乙方加工洗发水产品，原材料由甲方提供（来料加工），乙方收取加工费。
二、乙方应按甲方的配方生产，原材料损耗率不得超过2%。
三、加工费按每件人民币1.2元计算。
"""


def test_a_chinese_agreement_titled_only_xieyishu_is_read_from_roles_and_terms() -> None:
    assert _main(ZH_PROCESSING_NO_TITLE) == "manufacturing"


FLATTENED_FILING = (
    "Exhibit 10.4   ***Certain portions of this exhibit have been omitted pursuant to a request "
    "for confidential treatment and filed separately with the Commission.   FRANCHISE "
    'AGREEMENT     This Franchise Agreement (the "Agreement") is entered into by and between '
    'Copper Kettle Restaurants, Inc. ("Franchisor") and Mesa Ridge Foods LLC ("Franchisee"). '
    "1. Grant. Franchisor grants Franchisee the right to operate one Franchised Restaurant "
    "under the System. 2. Fees. Franchisee shall pay an initial franchise fee of $35,000 and a "
    "royalty of 5% of Gross Sales. 3. Operations Manual. Franchisee shall follow the Operations "
    "Manual."
)


def test_a_filing_flattened_to_one_line_is_read_from_its_capitals() -> None:
    assert _main(FLATTENED_FILING) == "franchise"


NDA = """MUTUAL NON-DISCLOSURE AGREEMENT

Between Altamira Labs Inc. and Brightfold GmbH (each a "Disclosing Party" when it discloses and a
"Receiving Party" when it receives Confidential Information).

1. The Receiving Party shall keep the Confidential Information confidential and use it only for
the Purpose.
2. Confidential Information does not include information that is public.
3. On request the Receiving Party returns or destroys all confidential materials.
"""


def test_the_file_name_is_never_read() -> None:
    assert _main(NDA, name="loan_agreement.txt") == "nda"
    assert _main(NDA, name="nda.txt") == "nda"


def test_nothing_is_claimed_when_nothing_says_enough() -> None:
    assert _kinds("MINUTES OF THE MEETING\n\n1. Present: the members.\n2. The weather.\n") == []


def test_a_kind_given_by_the_user_is_the_main_kind_and_an_unknown_one_lists_the_kinds() -> None:
    given = given_kind("licence")
    assert (given.kind, given.confidence, given.evidence[0].source) == ("licence", 1.0, "given")
    with pytest.raises(InputError) as caught:
        check_kind("lease")
    message = str(caught.value)
    assert "\n" not in message
    assert "--kind lease" in message
    assert all(k in message for k in ("property_lease", "equipment_lease", "loan"))
    assert len(kind_ids()) >= 24


def test_every_fixture_contract_and_example_gets_its_kind() -> None:
    table: dict[str, str] = read_yaml((ROOT / "tests/fixtures/kinds.yaml").read_text("utf-8"))[
        "contracts"
    ]
    assert set(table.values()) <= set(kind_ids())
    parser = StructureParser()
    wrong = {}
    for rel, gold in table.items():
        path = ROOT / rel
        got = detect_kinds(parser.parse(path.read_text("utf-8"), document_id=path.name))
        if not got or got[0].kind != gold:
            wrong[rel] = got[0].kind if got else None
    assert not wrong
