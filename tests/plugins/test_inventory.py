"""The clause inventory: every CUAD category present or not, its clauses, and the values
(dates to ISO, periods to a number and a unit, jurisdictions to their name)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.plugins.generic.inventory import (
    CATEGORIES,
    build_inventory,
    find_dates,
    has_blank_date,
    normalise_jurisdiction,
    normalise_period,
)
from contract_review.structure_parser import StructureParser
from tests.builders import review_findings

LICENCE = """Exhibit 10.7

SOFTWARE LICENSE AGREEMENT

This Software License Agreement (the "Agreement") is entered into as of the 23rd day of
September, 2016 (the "Effective Date") by and between Harbor Analytics, Inc., a Delaware
corporation ("Licensor"), and Meridian Foods LLC, an Ohio limited liability company
("Licensee").

1. License Grant
1.1 Licensor hereby grants to Licensee a non-exclusive, non-transferable license to use the
Software in the Territory. Licensee may not sublicense or assign the license.

2. Term and Renewal
2.1 This Agreement shall commence on the Effective Date and continue for a period of three (3)
years. Thereafter it shall automatically renew for successive one (1) year periods unless
either party gives written notice of non-renewal at least ninety (90) days prior to the end of
the then-current term.

3. Fees and Audit
3.1 Licensee shall pay the fees in Schedule A. Licensor may, upon thirty (30) days' notice,
audit Licensee's books and records once per calendar year.

4. Limitation of Liability
4.1 In no event shall either party's aggregate liability exceed the fees paid in the twelve
(12) months preceding the claim.

5. Assignment
5.1 Neither party may assign this Agreement without the prior written consent of the other
party.

6. Governing Law
6.1 This Agreement shall be governed by the laws of the State of New York, without regard to
its conflict of laws principles.
"""


def _inventory(text: str) -> dict[str, tuple[bool, list[str], str]]:
    inv = build_inventory(StructureParser().parse(text, document_id="t"))
    return {e.category: (e.present, e.clause_ids, e.value) for e in inv.entries}


def test_every_category_in_cuad_order() -> None:
    inv = build_inventory(StructureParser().parse(LICENCE))
    assert [e.category for e in inv.entries] == list(CATEGORIES)
    assert len(CATEGORIES) == 41


def test_values_of_a_licence() -> None:
    got = _inventory(LICENCE)
    assert got["Document Name"][2] == "SOFTWARE LICENSE AGREEMENT"
    assert got["Parties"][2] == "Harbor Analytics, Inc.; Meridian Foods LLC"
    assert got["Agreement Date"][2] == "2016-09-23"
    assert got["Effective Date"][2] == "2016-09-23"
    assert got["Expiration Date"][2] == "2019-09-23"
    assert got["Renewal Term"][2] == "1 year"
    assert got["Notice Period to Terminate Renewal"][2] == "90 days"
    assert got["Governing Law"][2] == "New York"


def test_clauses_present_and_absent() -> None:
    got = _inventory(LICENCE)
    for category, clause in [
        ("License Grant", "1.1"),
        ("Non-Transferable License", "1.1"),
        ("Audit Rights", "3.1"),
        ("Cap on Liability", "4.1"),
        ("Anti-Assignment", "5.1"),
        ("Governing Law", "6.1"),
    ]:
        present, ids, _ = got[category]
        assert present, category
        assert any(i == clause or clause.startswith(i) for i in ids), (category, ids)
    for category in ("Non-Compete", "Source Code Escrow", "Liquidated Damages", "Insurance"):
        assert got[category][0] is False, category


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("made as of September 23, 2016 between", date(2016, 9, 23)),
        ("dated this 1st day of May, 2020", date(2020, 5, 1)),
        ("signed on 9/23/2016 by", date(2016, 9, 23)),
        ("effective 2016-09-23", date(2016, 9, 23)),
        ("本合同于2016年9月23日签订", date(2016, 9, 23)),
        ("on 14 May 2016 the parties", date(2016, 5, 14)),
        ("dated 25/06/2023", date(2023, 6, 25)),  # a day over 12 first: day first
        ("signed 03.04.2024 in Munich", date(2024, 4, 3)),  # dotted: day first
        ("于二〇二三年十一月二十日签订", date(2023, 11, 20)),
    ],
)
def test_dates(text: str, value: date) -> None:
    assert [d.value for d in find_dates(text)] == [value]


@pytest.mark.parametrize(
    ("text", "period"),
    [
        ("at least ninety (90) days prior", "90 days"),
        ("for successive one-year terms", "1 year"),
        ("for additional periods of two (2) years", "2 years"),
        ("upon 3 months' notice", "3 months"),
        ("提前三十日书面通知", "30 days"),
        ("no period here", ""),
    ],
)
def test_periods(text: str, period: str) -> None:
    assert normalise_period(text) == period


def test_jurisdictions() -> None:
    assert normalise_jurisdiction("the State of New York, U.S.A.") == "New York"
    assert normalise_jurisdiction("Commonwealth of Pennsylvania") == "Pennsylvania"
    assert normalise_jurisdiction("中华人民共和国") == "People's Republic of China"
    wrapped = LICENCE.replace(
        "governed by the laws of the State of New York",
        "governed by the internal laws, and not by the laws regarding conflicts of laws, of "
        "the State of North Carolina",
    )
    assert _inventory(wrapped)["Governing Law"][2] == "North Carolina"


def test_a_running_footer_date_is_not_the_agreement_date() -> None:
    footer = "Source: HARBOR ANALYTICS, INC., S-1, 1/12/2018"
    text = LICENCE.replace("the 23rd day of\nSeptember, 2016 ", "the date below ")
    pages = text.split("\n\n")
    text = "\n\n".join(f"{page}\n{footer}" for page in pages)
    assert _inventory(text)["Agreement Date"][2] != "2018-01-12"


def test_chinese_governing_law_and_perpetual_term() -> None:
    text = (
        "技术服务合同\n\n甲方：华信科技有限公司\n乙方：远景数据有限公司\n\n"
        "第一条 服务内容\n乙方向甲方提供数据服务。\n"
        "第二条 合同期限\n本合同自双方签字之日起生效，长期有效，直至任何一方书面通知终止。\n"
        "第三条 法律适用\n本合同适用中华人民共和国法律。\n"
    )
    got = _inventory(text)
    assert got["Governing Law"][2] == "People's Republic of China"
    assert got["Expiration Date"][2] == "perpetual"
    assert got["Document Name"][2] == "技术服务合同"


def test_inventory_command(tmp_path: Path) -> None:
    contract = tmp_path / "licence.txt"
    contract.write_text(LICENCE, encoding="utf-8")
    runner = CliRunner()
    out = runner.invoke(app, ["inventory", str(contract), "--format", "json"])
    assert out.exit_code == 0, out.output
    rows = {r["category"]: r for r in json.loads(out.stdout)}
    assert rows["Governing Law"]["value"] == "New York"
    csv = runner.invoke(app, ["inventory", str(contract), "--format", "csv"])
    assert csv.stdout.splitlines()[0] == "category,present,clauses,value,quote"
    assert "Renewal Term,yes" in csv.stdout
    table = runner.invoke(app, ["inventory", str(contract)])
    assert "categories present" in table.stdout
    wrong = runner.invoke(app, ["inventory", str(contract), "--domain", "fidic"])
    assert wrong.exit_code == 2
    assert "no clause inventory" in wrong.output


def test_a_review_reports_the_inventory(tmp_path: Path) -> None:
    findings = review_findings(tmp_path, LICENCE, "Licensee")
    entries = {e["category"]: e for e in findings["inventory"]["entries"]}
    assert entries["Governing Law"]["value"] == "New York"
    assert "## Clause inventory" in (tmp_path / "out" / "report.md").read_text("utf-8")
    assert 'id="inventory"' in (tmp_path / "out" / "report.html").read_text("utf-8")


def test_a_period_of_another_obligation_is_not_the_term() -> None:
    text = LICENCE.replace(
        "2.1 This Agreement shall commence on the Effective Date and continue for a period of three (3)\nyears.",
        "2.1 Licensee shall keep insurance throughout the term of this Agreement and for three\nyears after it ends.",
    )
    got = _inventory(text)
    assert got["Expiration Date"][2] == ""
    assert got["Notice Period to Terminate Renewal"][2] == "90 days"


def test_a_two_digit_year() -> None:
    assert [d.value for d in find_dates("Effective Date:  11/4/10")] == [date(2010, 11, 4)]
    assert [d.value for d in find_dates("signed 3/2/98 in Austin")] == [date(1998, 3, 2)]
    assert find_dates("see Section 11/4/10a") == []


def _licence_term(term: str) -> str:
    start = LICENCE.index("2.1 This Agreement shall commence")
    end = LICENCE.index("3. Fees and Audit")
    return LICENCE[:start] + f"2.1 {term}\n\n" + LICENCE[end:]


@pytest.mark.parametrize(
    ("term", "value"),
    [
        # the renewal that follows does not hide the initial term
        (
            "The term of this Agreement is twelve (12) months from the date hereof, and will be "
            "automatically renewed for one (1) additional twelve month period unless either "
            "party gives notice.",
            "2017-09-23",
        ),
        (
            "The term of this Agreement shall be five (5) years following the Effective Date or "
            "until the Studies are completed, whichever is later, unless extended.",
            "2021-09-23",
        ),
        # a labelled line of a clause headed 'Term'
        ("TERM: November 01, 2014 to October 31, 2017", "2017-10-31"),
    ],
)
def test_the_expiration_of_the_initial_term(term: str, value: str) -> None:
    assert _inventory(_licence_term(term))["Expiration Date"][2] == value


def test_a_term_that_ends_on_an_event_is_present_without_a_date() -> None:
    text = _licence_term(
        "This Agreement shall take effect on the Effective Date and shall expire upon "
        "completion of the Project and payment of all sums due."
    )
    present, ids, value = _inventory(text)["Expiration Date"]
    assert present
    assert value == ""
    assert ids == ["2.1"]
    assert _inventory(_licence_term("Licensee shall pay the fees monthly."))["Expiration Date"] == (
        False,
        [],
        "",
    )


def test_a_date_left_blank_still_dates_the_contract() -> None:
    text = LICENCE.replace(
        "as of the 23rd day of\nSeptember, 2016", "as of the [ ] day of [ ], 2020"
    )
    present, _, value = _inventory(text)["Agreement Date"]
    assert present
    assert value == ""
    assert _inventory(text)["Effective Date"][0]


def test_the_day_the_term_commences_is_the_effective_date() -> None:
    text = LICENCE.replace(' (the "Effective Date")', "").replace(
        "shall commence on the Effective Date", "shall commence on November 1st, 2016"
    )
    assert _inventory(text)["Effective Date"][2] == "2016-11-01"


def test_parties_named_in_a_first_clause_after_a_bare_title() -> None:
    text = (
        "EXHIBIT 99.2\n\nHosting Agreement 1.0 Introduction This Hosting Agreement "
        '("Agreement") between Northwind Computing Corporation ("Northwind") and Lakeside '
        'Holdings Inc. ("Customer") sets out the terms of the hosting services. 2.0 Services '
        "Northwind will host the Customer's content. 3.0 Charges Customer will pay the "
        "charges monthly. 4.0 Term This Agreement will remain in effect for thirty-six (36) "
        "months. 5.0 General This Agreement is governed by the laws of the State of New York.\n"
    )
    structure = StructureParser().parse(text)
    assert [c.clause_id for c in structure.clauses][-5:] == ["1", "2", "3", "4", "5"]
    got = _inventory(text)
    assert got["Parties"][2] == "Northwind Computing Corporation; Lakeside Holdings Inc."


def _with_clause_5_2(sentence: str) -> str:
    end = LICENCE.index("6. Governing Law")
    return LICENCE[:end] + f"5.2 {sentence}\n\n" + LICENCE[end:]


@pytest.mark.parametrize(
    ("category", "sentence"),
    [
        (
            "Minimum Commitment",
            "The Publisher shall make available no less than sixteen thousand (16,000) articles "
            "in each language.",
        ),
        (
            "Minimum Commitment",
            "The Sponsor agrees to commit funding in an amount of at least two million dollars "
            "($2,000,000) for the Studies.",
        ),
        (
            "Rofr/Rofo/Rofn",
            "If the Licensee timely exercises its option, the terms of the licence shall be "
            "negotiated in good faith within six months.",
        ),
        (
            "Covenant Not to Sue",
            "Licensee agrees not to do anything inconsistent with such ownership, including "
            "filing to register any mark containing the Brand.",
        ),
        (
            "Post-Termination Services",
            "For twenty-four (24) months following termination of this Agreement, Licensee shall "
            "state on all public materials that it no longer uses the Licensed Mark.",
        ),
        (
            "Post-Termination Services",
            "All reasonable fees associated with the wind-down activities shall be paid by the "
            "Sponsor.",
        ),
        (
            "Uncapped Liability",
            "EXCEPT UNDER SECTION 9(a), IN NO EVENT WILL EITHER PARTY BE LIABLE TO THE OTHER FOR "
            "ANY INDIRECT OR CONSEQUENTIAL DAMAGES.",
        ),
    ],
)
def test_categories_written_in_other_words(category: str, sentence: str) -> None:
    text = _with_clause_5_2(sentence)
    assert _inventory(text)[category][0], category


@pytest.mark.parametrize(
    ("category", "sentence"),
    [
        (
            "Minimum Commitment",
            "The Committee shall meet at least once every calendar quarter, and a quorum "
            "requires at least one (1) representative of each party.",
        ),
        (
            "Minimum Commitment",
            "The Licensee shall give not less than thirty (30) days' notice of any audit.",
        ),
    ],
)
def test_categories_not_to_be_found(category: str, sentence: str) -> None:
    text = _with_clause_5_2(sentence)
    assert not _inventory(text)[category][0], category


def test_a_chinese_date_left_blank_still_dates_the_contract() -> None:
    text = (
        "技术服务合同\n\n甲方：华信科技有限公司\n乙方：远景数据有限公司\n"
        "签订日期：______年____月____日\n\n"
        "第一条 服务内容\n乙方向甲方提供数据服务。\n"
        "第二条 法律适用\n本合同适用中华人民共和国法律。\n"
    )
    present, _, value = _inventory(text)["Agreement Date"]
    assert present
    assert value == ""


def test_chinese_term_dates_and_renewal_notice() -> None:
    text = (
        "设备采购合同\n\n甲方：华信科技有限公司\n乙方：远景数据有限公司\n\n"
        "第一条 标的\n乙方向甲方供应设备。\n"
        "第二条 合同期限\n本合同自2024年1月1日起生效，有效期至2025年12月31日止。\n"
        "第三条 续约\n合同期满前三十日内任何一方未书面通知终止的，本合同自动续期一年。\n"
        "第四条 法律适用\n本合同适用中华人民共和国法律。\n"
    )
    got = _inventory(text)
    assert got["Effective Date"][2] == "2024-01-01"
    assert got["Expiration Date"][2] == "2025-12-31"
    assert got["Renewal Term"][2] == "1 year"
    assert got["Notice Period to Terminate Renewal"][2] == "30 days"


def test_the_end_of_the_term_is_not_the_effective_date() -> None:
    text = LICENCE.replace(' (the "Effective Date")', "").replace(
        "2.1 This Agreement shall commence on the Effective Date and continue for a period of "
        "three (3)\nyears.",
        "2.1 This Agreement is effective until December 31, 2019.",
    )
    assert _inventory(text)["Effective Date"][2] != "2019-12-31"


def test_a_blank_date_line_comes_before_a_date_in_the_recitals() -> None:
    text = LICENCE.replace(
        "as of the 23rd day of\nSeptember, 2016",
        "as of the ____ day of __________, 2016",
    ).replace(
        "1. License Grant",
        "WHEREAS the parties signed a letter of intent on March 2, 2015.\n\n1. License Grant",
    )
    present, _, value = _inventory(text)["Agreement Date"]
    assert present
    assert value == ""


@pytest.mark.parametrize(
    ("term", "value"),
    [
        # 'begins … continues for': the period runs from the start it names
        (
            "This Agreement begins on the Effective Date and, unless terminated earlier, "
            "continues for two (2) years.",
            "2018-09-23",
        ),
        (
            "This Agreement remains in full force and effect until terminated by either party "
            "on ninety (90) days' notice.",
            "perpetual",
        ),
        ("This Agreement has no fixed expiration date.", "perpetual"),
    ],
)
def test_more_ways_to_state_the_term(term: str, value: str) -> None:
    assert _inventory(_licence_term(term))["Expiration Date"][2] == value


def test_a_survival_period_is_not_the_term() -> None:
    text = _licence_term(
        "The confidentiality obligations of this Agreement continue for five (5) years after "
        "termination of this Agreement."
    )
    assert _inventory(text)["Expiration Date"][2] != "2021-09-23"


def test_renewal_notice_and_renewal_said_other_ways() -> None:
    # a fee increase also needs notice before a renewal term: the non-renewal notice is meant
    text = _licence_term(
        "Licensor may raise the fees for a renewal term on at least sixty (60) days' written "
        "notice before it starts. This Agreement renews automatically for successive one (1) "
        "year terms unless a party gives written notice of non-renewal at least ninety (90) "
        "days before the end of the then-current term."
    )
    got = _inventory(text)
    assert got["Notice Period to Terminate Renewal"][2] == "90 days"
    # 'notice that it will not be renewed' does not undo the renewal it follows
    text = _licence_term(
        "This Agreement will automatically renew for successive one-year terms unless either "
        "party gives thirty (30) days written notice that this Agreement will not be renewed."
    )
    assert _inventory(text)["Renewal Term"][2] == "1 year"


def _storage_zh(*articles: str) -> str:
    """A Chinese storage contract with these articles (第一条 …), PRC law last."""
    numbers = "一二三四五六七八九"
    body = [
        f"第{numbers[i]}条 {a}\n"
        for i, a in enumerate((*articles, "法律适用\n本合同适用中华人民共和国法律。"))
    ]
    return (
        "仓储服务合同\n\n甲方：嘉兴恒泰物流有限公司\n乙方：上海明川贸易有限公司\n"
        "签订日期：2023年10月9日\n\n" + "".join(body)
    )


def test_chinese_no_renewal_and_a_term_from_to() -> None:
    text = _storage_zh(
        "服务\n甲方为乙方提供仓储服务。",
        "期限\n本合同有效期自2023年11月1日起至2024年10月31日止。本合同期满即终止，不自动续期。"
        "期满前两个月内双方可另行协商。",
    )
    got = _inventory(text)
    assert got["Effective Date"][2] == "2023-11-01"
    assert got["Expiration Date"][2] == "2024-10-31"
    assert got["Renewal Term"][2] == ""


def _undated_licence(effect: str, signatures: str) -> str:
    """LICENCE without a date of its own, saying when it takes effect in a clause 2.0 and
    ending with `signatures`."""
    return (
        LICENCE.replace(' (the "Effective Date")', "")
        .replace("as of the 23rd day of\nSeptember, 2016 ", "")
        .replace(
            "2.1 This Agreement shall commence", f"2.0 {effect}\n2.1 This Agreement shall commence"
        )
        + signatures
    )


def test_effective_on_the_last_signature() -> None:
    # the later signature second: neither the first date written nor the first block's
    text = _undated_licence(
        "This Agreement takes effect on the date of the last signature below.",
        "\nHARBOR ANALYTICS, INC.\nBy: ____\nDate: 4 October 2016\n\n"
        "MERIDIAN FOODS LLC\nBy: ____\nDate: 12 October 2016\n",
    )
    assert _inventory(text)["Effective Date"][2] == "2016-10-12"


def test_a_value_names_the_clause_it_is_read_from() -> None:
    present, ids, value = _inventory(_licence_term("This Agreement has no fixed expiration date."))[
        "Expiration Date"
    ]
    assert (present, ids, value) == (True, ["2.1"], "perpetual")


def test_renewal_said_after_a_notice_period() -> None:
    text = _storage_zh(
        "期限\n本合同有效期二年。期限届满时，如任何一方未于期满前一个月书面通知对方终止的，"
        "本合同自动顺延一年。"
    )
    got = _inventory(text)
    assert got["Renewal Term"][2] == "1 year"
    assert got["Notice Period to Terminate Renewal"][2] == "1 month"


def test_effective_on_signing_and_signed_after_the_date() -> None:
    text = (
        "房屋租赁合同\n\n出租方：杭州云帆置业有限公司\n承租方：温州海澄建设工程有限公司\n\n"
        "双方于2023年12月8日在杭州市签订本合同。\n\n"
        "第一条 租期\n租赁期限自2024年3月1日起至2027年2月28日止。\n"
        "第二条 生效\n本合同自双方签字盖章之日起生效。\n"
    )
    got = _inventory(text)
    assert got["Agreement Date"][2] == "2023-12-08"
    assert got["Effective Date"][2] == "2023-12-08"
    assert got["Expiration Date"][2] == "2027-02-28"


def test_effective_when_both_parties_have_signed() -> None:
    text = _undated_licence(
        '"Effective Date" means the date on which both Parties have signed this Agreement.',
        "\nPlace / Date: Leeds, 3 May 2017\n\nPlace / Date: Dayton, 9 May 2017\n",
    )
    assert _inventory(text)["Effective Date"][2] == "2017-05-09"


def test_an_effective_date_on_an_event_has_no_date() -> None:
    text = LICENCE.replace(' (the "Effective Date")', "").replace(
        "2.1 This Agreement shall commence",
        '2.0 "Effective Date" means the date on which Licensee pays the first invoice.\n'
        "2.1 This Agreement shall commence",
    )
    present, _, value = _inventory(text)["Effective Date"]
    assert present
    assert value == ""


def test_a_blank_date_is_told_from_a_date() -> None:
    # the bench counts 'no date' right for a date CUAD gives as left blank only with it
    assert has_blank_date("effective as of the ____ day of __________, 2021, by")
    assert has_blank_date("dated as of [  ], 2019")
    assert not has_blank_date("dated as of the 4th day of March, 2021")


_BODY = (
    "\n\nThe parties agree as follows.\n\n1. Supply\n1.1 The supplier shall deliver the goods "
    "ordered.\n"
)


@pytest.mark.parametrize(
    ("heading", "name"),
    [
        # after an exhibit number, run on into the preamble
        (
            "Exhibit 10.3 ORCHARD GROOMING SERVICES AGREEMENT THIS AGREEMENT is made on "
            "1 March 2021 between Pomona Ltd and Grafton LLC.",
            "ORCHARD GROOMING SERVICES AGREEMENT",
        ),
        (
            "EXHIBIT 4.2 HARBOUR PILOTAGE AGREEMENT between Pomona Ltd and Grafton LLC",
            "HARBOUR PILOTAGE AGREEMENT",
        ),
        # capitals a page layout spread over one line
        (
            "NORTH SEA TIDAL ARRAY 3     OPERATION AND UPKEEP   AGREEMENT     Aberdeen  May 2021",
            "NORTH SEA TIDAL ARRAY 3 OPERATION AND UPKEEP AGREEMENT",
        ),
        (
            "SEED BANK   STORAGE AND RETRIEVAL AGREEMENT   FOR HERITAGE CULTIVARS      This Seed "
            "Bank Storage and Retrieval Agreement is made between Pomona Ltd and Grafton LLC.",
            "SEED BANK STORAGE AND RETRIEVAL AGREEMENT FOR HERITAGE CULTIVARS",
        ),
        (
            "Orchard Supply Agreement Between      Pomona Ltd and Grafton LLC",
            "Orchard Supply Agreement",
        ),
        ("Courier Agreement, POMONA/ GRAFTON", "Courier Agreement"),
        (
            "HOSTING, SUPPORT AND ESCROW AGREEMENT\nDATED AS OF MAY 3, 2021",
            "HOSTING, SUPPORT AND ESCROW AGREEMENT",
        ),
        ("Exhibit 99.1\nDealership agreement\nbetween\nPomona Ltd", "Dealership agreement"),
        ("Cold Storage Agreement Agreement No: CS/2021/044", "Cold Storage Agreement"),
        (
            "Exhibit 2 WAREHOUSING AGREEMENT WAREHOUSING AGREEMENT, dated May 3, 2021",
            "WAREHOUSING AGREEMENT",
        ),
        # a legend in capitals is no title
        (
            "CONFIDENTIAL PORTIONS OF THIS AGREEMENT HAVE BEEN OMITTED.   BARGE CHARTER AGREEMENT",
            "BARGE CHARTER AGREEMENT",
        ),
    ],
)
def test_the_document_name_from_headings_real_filings_write(heading: str, name: str) -> None:
    assert _inventory(heading + _BODY)["Document Name"][2] == name


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("effective as of2 October 2018 between", date(2018, 10, 2)),  # run on to 'of'
        ("made this 2n d day of October, 2018", date(2018, 10, 2)),  # an ordinal broken
        ("entered into the 21s t day of March 2011", date(2011, 3, 21)),
        ("made this 23 rd day of July, 2009", date(2009, 7, 23)),
        ("dated this 5th  day of APRIL , 2007", date(2007, 4, 5)),  # a space before the comma
        ("dated the 5th day of\n        ---- April, 2007", date(2007, 4, 5)),  # a rule
        ("signed on July 4 , 2012", date(2012, 7, 4)),
        ("commencing on July 4,2012", date(2012, 7, 4)),  # no space after the comma
        ("Signed 30/4/19", date(2019, 4, 30)),  # a day over 12 first, a two-digit year
    ],
)
def test_dates_as_filings_break_them(text: str, value: date) -> None:
    assert [d.value for d in find_dates(text)] == [value]


def test_a_term_without_a_start_runs_from_the_contracts_date() -> None:
    text = (
        "FREIGHT FORWARDING AGREEMENT\n\nThis Agreement is made on 7 February 2019 between "
        "Pomona Ltd and Grafton LLC.\n\n1. Duration\n1.1 The term of this Agreement is two "
        "years.\n\n2. Payment\n2.1 Grafton pays each invoice within 30 days.\n"
    )
    assert _inventory(text)["Effective Date"][2] == "2019-02-07"


def test_the_effective_date_label_names_the_date_nearest_it() -> None:
    text = LICENCE.replace(
        'entered into as of the 23rd day of\nSeptember, 2016 (the "Effective Date")',
        'signed on October 3, 2016 but effective as of September 1, 2016 (the "Effective Date")',
    )
    got = _inventory(text)
    assert got["Agreement Date"][2] == "2016-10-03"
    assert got["Effective Date"][2] == "2016-09-01"


_UNDATED = (
    "COLD CHAIN LOGISTICS AGREEMENT\n\nThis Agreement is between Pomona Ltd and Grafton LLC.\n\n"
    "1. Services\n1.1 Grafton shall store the goods at two to eight degrees.\n\n"
    "2. Governing Law\n2.1 This Agreement is governed by the laws of the State of Oregon.\n\n"
    + "".join(
        f"{n}. Handling\n{n}.1 Grafton shall keep a log of the temperature of each pallet.\n\n"
        for n in range(3, 60)
    )
)


@pytest.mark.parametrize(
    ("ending", "value"),
    [
        (
            "IN WITNESS WHEREOF the parties have executed this Agreement on the 9th day of "
            "March, 2017.\n\nPOMONA LTD\nBy: /s/ A. Reyes\n",
            "2017-03-09",
        ),
        ("Signed and agreed this 9th day of March, 2017.\n\nBy: /s/ A. Reyes\n", "2017-03-09"),
        ("Portland, March 9, 2017\n\n/s/ A. Reyes      /s/ B. Okafor\n", "2017-03-09"),
        # the blocks' dates: the later signature completes the contract
        (
            "POMONA LTD                GRAFTON LLC\nBy: /s/ A. Reyes          By: /s/ B. Okafor\n"
            "Date: 3/7/2017   Date: 3/9/2017\n",
            "2017-03-09",
        ),
    ],
)
def test_an_undated_opening_is_dated_where_it_is_signed(ending: str, value: str) -> None:
    assert _inventory(_UNDATED + ending)["Agreement Date"][2] == value


def test_the_preamble_past_a_table_of_contents_dates_the_contract() -> None:
    contents = "".join(f"{n}. Heading number {n} {'.' * 20} {n + 2}\n" for n in range(1, 90))
    text = (
        "Exhibit 10.4\n\nTABLE OF CONTENTS\n\n"
        + contents
        + "\nPage 2 of 40 printed 12/01/2016\n\nTIMBER SUPPLY AGREEMENT\n\nThis TIMBER SUPPLY "
        'AGREEMENT (the "Agreement") is entered into as of June 14, 2016 by and between '
        "Pomona Ltd and Grafton LLC.\n"
    )
    assert _inventory(text)["Agreement Date"][2] == "2016-06-14"


@pytest.mark.parametrize(
    ("term", "value"),
    [
        (
            "The term of this Agreement will commence on the Effective Date and continue for a "
            "period of two (2) years after the Effective Date.",
            "2018-09-23",
        ),
        ("This Agreement shall run for six (6) Contract Years.", "2022-09-23"),
        (
            "This Agreement shall remain in effect for eighteen (18) full calendar months.",
            "2018-03-23",
        ),
        (
            "This Agreement shall continue until the second anniversary of the Effective Date.",
            "2018-09-23",
        ),
        (
            "This Agreement shall continue until the four (4) year anniversary of the Effective "
            "Date.",
            "2020-09-23",
        ),
        (
            "It shall be effective on 6 May 2017 and shall have a duration of two years.",
            "2019-05-06",
        ),
        # a caveat before the date does not hide it
        (
            "The term of this Agreement, unless mutually extended in writing, shall expire on "
            "March 31, 2021.",
            "2021-03-31",
        ),
        ("This Agreement terminates on June 30, 2020 unless renewed.", "2020-06-30"),
        # counted from an event, not from the contract's start: no date to give
        (
            "The term of this Agreement shall continue for three (3) years following the first "
            "commercial shipment of the Software.",
            "",
        ),
        # it ends only if something may happen: no end of its own
        (
            "This Agreement shall expire if the Licensee ceases to hold a broadcasting permit.",
            "perpetual",
        ),
        (
            "This Agreement shall continue in force until the earlier of the sale of the "
            "Station and the delivery by the Licensor of a notice of termination.",
            "perpetual",
        ),
    ],
)
def test_the_end_of_a_term_as_contracts_count_it(term: str, value: str) -> None:
    assert _inventory(_licence_term(term))["Expiration Date"][2] == value


def test_another_term_defined_or_a_duty_after_the_term_is_not_the_contracts_end() -> None:
    text = _licence_term(
        '"Contract Quarter" means three months, except that the first Contract Quarter of the '
        "Term shall commence on the Effective Date and end on December 31, 2016. Each party "
        "shall keep records during the term of this Agreement and for a period of three (3) "
        "years thereafter. The term of this Agreement shall be five (5) years."
    )
    assert _inventory(text)["Expiration Date"][2] == "2021-09-23"


def test_a_date_is_preferred_to_until_terminated() -> None:
    text = _licence_term(
        "This Agreement shall remain in force until terminated by either party on notice."
    ).replace(
        "3. Fees and Audit",
        "3. Duration of Services\n3.0 This Agreement shall terminate on July 31, 2019 unless "
        "earlier terminated.\n\n3A. Fees and Audit",
    )
    assert _inventory(text)["Expiration Date"][2] == "2019-07-31"


def test_the_companies_the_preamble_lists_are_its_parties() -> None:
    text = (
        "Exhibit 10.2\n\nRIVER BARGE AGREEMENT\n\nThis Agreement dated March 3, 2015 is by and "
        'between Ohio Valley Towing, Inc. (herein "Towing") located at 12 Front Street, '
        "Marietta, Ohio, and Kanawha Grain Corporation, a West Virginia Corporation, located at "
        "4 Mill Road, Charleston.\n\nSource: OHIO VALLEY TOWING INC., 10-K, 3/1/2016\n\n"
        "WHEREAS Towing operates barges.\n\n1. Carriage\n1.1 Towing shall carry the grain.\n"
    )
    assert _inventory(text)["Parties"][2] == "Ohio Valley Towing, Inc.; Kanawha Grain Corporation"


def test_two_companies_listed_in_capitals_on_a_title_page() -> None:
    text = (
        "SUPPLY AGREEMENT\n\nDATED AS OF May 2, 2016\n\nBETWEEN\n\nHALDEN OPTICS, INC.\n\n"
        "AND\n\nVERRA LENTI S.p.A.\n\n\nTABLE OF CONTENTS\n\n1. Supply\n1.1 Verra shall supply "
        "the lenses.\n"
    )
    assert _inventory(text)["Parties"][2] == "HALDEN OPTICS, INC.; VERRA LENTI S.p.A."


def test_a_regulator_or_a_board_is_no_party() -> None:
    text = LICENCE.replace(
        "1. License Grant",
        "WHEREAS, the Software is sold through dealers registered with the Securities and "
        'Exchange Commission (the "SEC") and the Financial Industry Regulatory Authority '
        '("FINRA"), as the Board of Directors of Harbor (the "Board") approved.\n\n'
        "1. License Grant",
    )
    assert _inventory(text)["Parties"][2] == "Harbor Analytics, Inc.; Meridian Foods LLC"


@pytest.mark.parametrize(
    ("clause", "place"),
    [
        (
            "THIS AGREEMENT SHALL BE GOVERNED BY THE LAWS OF THE STATE OF RHODE ISLAND, WITHOUT "
            "REGARD TO ITS CONFLICT OF LAWS RULES.",
            "Rhode Island",
        ),
        ("This Agreement is governed by the Laws of Portugal.", "Portugal"),
        ("This Agreement is governed by the laws of the commonwealth of Virginia.", "Virginia"),
        ("This Agreement shall be construed under Scottish law.", "Scotland"),
    ],
)
def test_the_governing_law_however_cased(clause: str, place: str) -> None:
    text = LICENCE.replace(
        "6.1 This Agreement shall be governed by the laws of the State of New York, without "
        "regard to\nits conflict of laws principles.",
        f"6.1 {clause}",
    )
    assert _inventory(text)["Governing Law"][2] == place


@pytest.mark.parametrize(
    "term",
    [
        "This Agreement shall run for three (3) years and shall renew automatically each year "
        "thereafter, unless a party gives written notice of its intention not to renew, to the "
        "other at least 45 days prior to the end of the then current term.",
        "This Agreement shall run for three (3) years. The parties may extend the Term for an "
        "additional year by a written addendum.",
        "This Agreement shall run for three (3) years and shall be renewed from year to year "
        "thereafter unless either party objects.",
    ],
)
def test_a_renewal_by_the_year(term: str) -> None:
    assert _inventory(_licence_term(term))["Renewal Term"][2] == "1 year"


def test_parties_named_only_in_the_signature_blocks() -> None:
    text = (
        "SERVICE ADDENDUM\n\nThis addendum provides for the upkeep of the ledger system.\n\n"
        "1. Upkeep\n1.1 Upkeep covers patches and telephone support.\n\nIN WITNESS WHEREOF, the "
        "representatives of the parties have signed this addendum.\n\nLEDGERWORKS, INC."
        "                 THE FARMERS TRUST, a Kansas\n                       banking corporation"
        "\nBy:   /s/ J. Ames              By:   /s/ P. Lund\nName:  J. Ames             Name:  "
        "P. Lund\n"
    )
    assert _inventory(text)["Parties"][2] == "LEDGERWORKS, INC.; THE FARMERS TRUST"


def test_a_signatorys_title_or_an_item_letter_is_not_part_of_a_party() -> None:
    text = (
        "JOINT FILING AGREEMENT\n\nThe undersigned agree to file jointly.\n\nIN WITNESS WHEREOF "
        "the undersigned have signed.\n\n"
        "By: /s/ R. Vale\nTitle: Chief Compliance Officer MARLOW FUND II, L.P.\n"
        "By: /s/ R. Vale\nTitle: Managing Director MARLOW ADVISERS, LLC\n"
    )
    from contract_review.plugins.generic.inventory import _bare_party

    assert _bare_party("Chief Compliance Officer MARLOW FUND II, L.P.") == "MARLOW FUND II, L.P."
    assert _bare_party("(b) a trust organised by Marlow Advisers, LLC") == "Marlow Advisers, LLC"
    assert _bare_party("Officer Supplies Ltd.") == "Officer Supplies Ltd."
    assert "Officer" not in _inventory(text)["Parties"][2]


def test_an_effective_date_defined_as_the_signing_is_the_contracts_date() -> None:
    text = LICENCE.replace(' (the "Effective Date")', "").replace(
        "1. License Grant",
        '1. Definitions\n1.0 "Effective Date" means the date on which both parties sign and '
        "execute this Agreement.\n\n1A. License Grant",
    )
    assert _inventory(text)["Effective Date"][2] == "2016-09-23"


def test_a_date_line_that_says_effective_gives_the_effective_date() -> None:
    text = _UNDATED.replace("2. Governing Law", "2. Law") + (
        "Signed and effective this 9th day of March, 2017.\n\nBy: /s/ A. Reyes\n"
    )
    got = _inventory(text)
    assert got["Agreement Date"][2] == "2017-03-09"
    assert got["Effective Date"][2] == "2017-03-09"


def test_a_term_sheet_is_no_term() -> None:
    text = _licence_term(
        "This Agreement supersedes the term sheet the parties signed, under which their "
        "cooperation was to commence on July 17, 2015."
    ).replace("2. Term and Renewal", "2. Prior Dealings")
    assert _inventory(text)["Effective Date"][2] == "2016-09-23"


def test_a_clause_reference_is_no_length_of_the_term() -> None:
    text = _licence_term(
        "This Agreement shall continue in force until the earlier of the sale of the Station "
        "and, subject to Section 7(d), the delivery of a notice of termination."
    )
    assert _inventory(text)["Expiration Date"][2] == "perpetual"


def test_notice_that_stops_a_renewal_without_prior_to() -> None:
    term = (
        "This Agreement shall run for two (2) years and shall be automatically renewed for "
        "additional one year periods, unless terminated by either party upon sixty (60) days "
        "written notice to the other."
    )
    assert _inventory(_licence_term(term))["Notice Period to Terminate Renewal"][2] == "60 days"


def test_the_document_name_in_a_preamble_past_a_table_of_contents() -> None:
    contents = "".join(f"{n}. Heading number {n} {'.' * 20} {n + 2}\n" for n in range(1, 90))
    text = (
        "Exhibit 10.4\n\nCertain portions of this exhibit have been omitted.\n\nTABLE OF "
        "CONTENTS\n\n" + contents + '\nThis TIMBER SUPPLY AGREEMENT (the "Agreement") is '
        "entered into as of June 14, 2016 by and between Pomona Ltd and Grafton LLC.\n"
    )
    assert _inventory(text)["Document Name"][2] == "TIMBER SUPPLY AGREEMENT"
    brand = "Exhibit 99.2\n\nThis e-commerce Fulfilment Agreement is between Pomona Ltd and Grafton LLC."
    assert _inventory(brand + _BODY)["Document Name"][2] == "e-commerce Fulfilment Agreement"


def test_two_names_run_together_past_a_label_are_two_parties(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from contract_review.parties import Party
    from contract_review.plugins.generic import inventory

    found = [
        Party(name="Pomona Ltd", labels=("Pomona Ltd",), roles=()),
        Party(name='Pomona Ltd (the "Owner") and Grafton Mills, LLC', labels=("Owner",), roles=()),
        Party(name="Grafton Mills Limited", labels=("Grafton UK",), roles=()),
    ]
    monkeypatch.setattr(inventory, "find_parties", lambda structure: found)
    # the same name once; two companies of one name with different forms stay two
    assert _inventory(LICENCE)["Parties"][2] == (
        "Pomona Ltd; Grafton Mills, LLC; Grafton Mills Limited"
    )
