"""Each numbering style, titles, tables of contents and false positives, on small texts."""

from __future__ import annotations

import pytest

from contract_review.models import ClauseKind, DocumentStructure
from contract_review.structure_parser import DocumentParserConfig, StructureParser


def _parse(text: str) -> DocumentStructure:
    structure = StructureParser().parse(text)
    for c in structure.iter_clauses():
        assert text[c.start_offset : c.end_offset] == c.text
    return structure


def _tree(structure: DocumentStructure) -> list[tuple[str, str | None, str]]:
    return [
        (c.clause_id, c.parent_id, c.title)
        for c in structure.iter_clauses()
        if c.kind is not ClauseKind.PREAMBLE
    ]


def test_decimal_numbering_nests_by_path() -> None:
    text = (
        "1. DEFINITIONS\n1.1 Terms. Words have meanings.\n1.1.1 First.\n1.1.1.1 Deep item here.\n"
        "1.2 Interpretation\nHeadings are for convenience.\n2. PAYMENT\n2.1 The Buyer pays.\n"
    )
    assert _tree(_parse(text)) == [
        ("1", None, "DEFINITIONS"),
        ("1.1", "1", "Terms"),
        ("1.1.1", "1.1", "First"),
        ("1.1.1.1", "1.1.1", ""),
        ("1.2", "1", "Interpretation"),
        ("2", None, "PAYMENT"),
        ("2.1", "2", ""),
    ]


def test_fidic_clause_and_sub_clause_with_gaps_and_items() -> None:
    text = (
        "Clause 4 The Contractor\nSub-Clause 4.1 General Obligations\nThe Contractor shall:\n"
        "(a) design the Works;\n(b) execute the Works, and\n(i) remedy defects;\n(ii) insure.\n"
        "Sub-Clause 4.12 Unforeseeable Conditions\nText.\nClause 20 Claims\n"
        "Sub-Clause 20.1 Notice\nWithin 28 days.\n"
    )
    structure = _parse(text)
    assert _tree(structure) == [
        ("4", None, "The Contractor"),
        ("4.1", "4", "General Obligations"),
        ("4.1(a)", "4.1", ""),
        ("4.1(b)", "4.1", ""),
        ("4.1(b)(i)", "4.1(b)", ""),
        ("4.1(b)(ii)", "4.1(b)", ""),
        ("4.12", "4", "Unforeseeable Conditions"),
        ("20", None, "Claims"),
        ("20.1", "20", "Notice"),
    ]
    clause = structure.get_clause("20.1")
    assert clause is not None
    assert clause.number == "Sub-Clause 20.1"
    assert clause.body == "Within 28 days."


def test_article_roman_and_sections() -> None:
    text = (
        "ARTICLE I\nDEFINITIONS\nSection 1.1 Defined Terms. The following apply.\n"
        "ARTICLE II PURCHASE\nSection 2.1 Orders. Buyer orders.\nSection 2.2 Delivery. Seller "
        "delivers.\nARTICLE ONE HUNDRED is not a heading\n"
    )
    assert _tree(_parse(text)) == [
        ("1", None, "DEFINITIONS"),
        ("1.1", "1", "Defined Terms"),
        ("2", None, "PURCHASE"),
        ("2.1", "2", "Orders"),
        ("2.2", "2", "Delivery"),
    ]


def test_section_numbers_restarting_inside_articles_get_prefixed_ids() -> None:
    text = (
        "Article 1 Scope\nSection 1 Goods. Text.\nSection 2 Services. Text.\n"
        "Article 2 Price\nSection 1 Fees. Text.\n"
    )
    assert [c.clause_id for c in _parse(text).iter_clauses()] == ["1", "1.1", "1.2", "2", "2.1"]


def test_chinese_chapters_articles_and_items() -> None:
    text = (
        "建设工程施工合同\n第一章 总则\n第一条 定义\n1.1 “发包人”是指甲方。\n1.2 工程指本合同项下的全部工程。\n"
        "第二条 工期\n本工程工期为365天。\n第二章 价款\n第三条 合同价款\n（一）基本价款；\n（二）调整价款。\n"
        "第4条 违约责任\n一、乙方逾期的，按日支付违约金。\n二、甲方逾期的，支付利息。\n"
    )
    structure = _parse(text)
    assert _tree(structure) == [
        ("第1章", None, "总则"),
        ("1", "第1章", "定义"),
        ("1.1", "1", ""),
        ("1.2", "1", ""),
        ("2", "第1章", "工期"),
        ("第2章", None, "价款"),
        ("3", "第2章", "合同价款"),
        ("3(1)", "3", ""),
        ("3(2)", "3", ""),
        ("4", "第2章", "违约责任"),
        ("4.1", "4", ""),
        ("4.2", "4", ""),
    ]
    assert structure.language == "zh-CN"
    assert structure.definitions["发包人"].definition == "甲方"
    assert structure.definitions["工程"].definition == "本合同项下的全部工程"
    assert structure.definitions["工程"].clause_id == "1.2"


def test_chinese_cross_references_and_validity() -> None:
    text = "第一条 总则\n详见本合同第三条及第1.2条。\n1.2 范围\n适用第二条，不适用第四十五条。\n第二条 其他\n"
    refs = [
        (r.reference_text, r.target_clause_id, r.is_valid) for r in _parse(text).cross_references
    ]
    assert refs == [
        ("第三条", "3", False),
        ("第1.2条", "1.2", True),
        ("第二条", "2", True),
        ("第四十五条", "45", False),
    ]


def test_table_of_contents_does_not_duplicate_clauses() -> None:
    text = (
        "TABLE OF CONTENTS\n1. Definitions ........ 1\n2. Payment ........ 3\n3. Term ........ 4\n\n"
        "This Agreement is made between A and B.\n"
        "1. Definitions\n“Fee” means the fee.\n2. Payment\nThe Buyer pays.\n3. Term\nOne year.\n"
    )
    structure = _parse(text)
    assert [c.clause_id for c in structure.iter_clauses()] == ["preamble", "1", "2", "3"]
    assert structure.get_clause("1") is not None
    assert structure.clauses[1].start_offset > text.index("This Agreement")
    assert len(structure.toc_ranges) == 1


def test_flattened_edgar_text_with_gaps() -> None:
    text = (
        "AGREEMENT   The parties agree as follows:   1. Services.   1.1. Supplier shall provide "
        "the Services.   1.2. Supplier shall be paid.   2. Term.   2.1. This Agreement lasts one"
        " year. The fee is 2.5 million dollars.   3. Governing Law. This Agreement is governed by "
        "the laws of New York."
    )
    assert _tree(_parse(text)) == [
        ("1", None, "Services"),
        ("1.1", "1", ""),
        ("1.2", "1", ""),
        ("2", None, "Term"),
        ("2.1", "2", ""),
        ("3", None, "Governing Law"),
    ]


@pytest.mark.parametrize(
    "line",
    [
        "2.5 million units shall be delivered",
        "30 days after notice",
        "Section 3 of the Act applies",
        "Exhibit A attached hereto",
        "(c) as stated above",
        "1990 was the year",
    ],
)
def test_numbers_that_are_not_headings(line: str) -> None:
    text = f"1. Scope\nThe Supplier shall deliver goods and the quantity below\n{line}\n2. Price\n"
    assert [c.clause_id for c in _parse(text).iter_clauses()] == ["1", "2"]


def test_definitions_glossary_table_and_quoted() -> None:
    text = (
        "1. Definitions\n| Term | Meaning |\n|---|---|\n| Works | all works to be executed |\n"
        '| "Site" | the place of the Works. |\n"Contract Price" shall mean the price stated. '
        'Other text.\n"Goods" includes equipment; and\n'
    )
    defs = _parse(text).definitions
    assert {k: (v.definition, v.source) for k, v in defs.items()} == {
        "Works": ("all works to be executed", "glossary_table"),
        "Site": ("the place of the Works", "glossary_table"),
        "Contract Price": ("the price stated", "quoted"),
        "Goods": ("equipment", "quoted"),
    }


def test_cross_references_english() -> None:
    text = (
        "1. Scope\nSee Sub-Clause 2.1 and Clause 9, Section 2(b) and Sections 2.1 and 2.2; "
        "Article II applies. Section 365(n) of the Bankruptcy Code is external.\n"
        "2. Price\n2.1 Fee\n(b) payable monthly.\n2.2 Tax\n"
    )
    refs = [
        (r.reference_text, r.target_clause_id, r.is_valid) for r in _parse(text).cross_references
    ]
    assert refs == [
        ("Sub-Clause 2.1", "2.1", True),
        ("Clause 9", "9", False),
        ("Section 2(b)", "2(b)", False),
        ("Sections 2.1", "2.1", True),
        ("2.2", "2.2", True),
        ("Article II", "2", True),
    ]


def test_annexes_restart_numbering_under_their_own_ids() -> None:
    text = (
        "1. Scope\nText.\n2. Price\nText.\nEXHIBIT A\nPRICING\n1. Unit prices\nText.\n"
        "2. Discounts\nText.\nSchedule 2 - Service Levels\n1. Availability\n"
    )
    ids = [c.clause_id for c in _parse(text).iter_clauses()]
    assert ids == [
        "1",
        "2",
        "Exhibit A",
        "Exhibit A/1",
        "Exhibit A/2",
        "Schedule 2",
        "Schedule 2/1",
    ]


def test_markdown_headings() -> None:
    text = "# Agreement\n\n## 1. Services\n\n1.1 The Supplier works.\n\n## 2. Fees\n\n**2.1 Fees.** Paid.\n"
    assert _tree(_parse(text)) == [
        ("1", None, "Services"),
        ("1.1", "1", ""),
        ("2", None, "Fees"),
        ("2.1", "2", "Fees"),
    ]


def test_config_can_switch_off_items_and_limit_depth() -> None:
    text = "1. Scope\n1.1 Goods\n(a) steel;\n(b) glass.\n1.1.1 Spares\n"
    no_items = StructureParser(DocumentParserConfig(parse_items=False)).parse(text)
    assert [c.clause_id for c in no_items.iter_clauses()] == ["1", "1.1", "1.1.1"]
    shallow = StructureParser(DocumentParserConfig(max_depth=2)).parse(text)
    assert [c.clause_id for c in shallow.iter_clauses()] == ["1", "1.1"]
    fidic = StructureParser(DocumentParserConfig(structure_type="fidic")).parse(text)
    assert fidic.structure_type == "fidic"


def test_unnumbered_text_is_one_body_node() -> None:
    structure = _parse("This letter agreement has no numbered clauses at all.\n")
    assert [(c.clause_id, c.kind) for c in structure.clauses] == [("body", ClauseKind.PREAMBLE)]


def test_amending_documents_skip_numbers_on_heading_lines() -> None:
    """Particular Conditions amend only some sub-clauses: "4.12" may follow "1.1"."""
    en = "1. General\n1.1 Definitions\nWords.\n4.12 Unforeseeable Physical Conditions\nDelete.\n14.7 Payment\nWithin 90 days.\n14.16 New Item\nAdded.\n"
    assert [c.clause_id for c in _parse(en).iter_clauses()] == ["1", "1.1", "4.12", "14.7", "14.16"]
    zh = "第一条 总则\n1.1 定义\n词语。\n4.12 不可预见的物质条件\n删除并替换。\n14.7 付款\n90天内。\n"
    assert [c.clause_id for c in _parse(zh).iter_clauses()] == ["1", "1.1", "4.12", "14.7"]
    # A jump inside running text is still not a heading.
    body = "1. Scope\n1.1 The Supplier delivers goods of the quantity stated\n7.5 tonnes of steel per month.\n"
    assert [c.clause_id for c in _parse(body).iter_clauses()] == ["1", "1.1"]


def test_definitions_a_parenthesis_gives_in_passing() -> None:
    """`(the "X")`, `("X")`, `(hereinafter referred to as "X"; each a "Party" …)` and
    （以下简称“X”） define X by the words before them; a '"means" definition wins; a parenthesis
    that only mentions a quoted word defines nothing."""
    text = (
        "SERVICES AGREEMENT\n\n"
        'This Agreement is made between Acme Ltd (the "Supplier") and Delta plc (hereinafter '
        'referred to as "Buyer"; each a "Party" and together the "Parties").\n\n'
        "1. Term\n"
        '1.1 The initial term of two years (the "Initial Term") starts on signature. Fees are '
        'listed in the schedule (see "Fees" below).\n'
        '1.2 "Supplier" means Acme Ltd and its permitted assigns.\n'
        "1.3 江临精工机械有限公司（以下简称“卖方”）应按期交货。\n"
    )
    defs = _parse(text).definitions
    assert defs["Initial Term"].definition == "The initial term of two years"
    assert defs["Initial Term"].source == "inline"
    assert defs["Initial Term"].clause_id == "1.1"
    assert defs["Buyer"].definition == "Delta plc"
    assert {"Party", "Parties"} <= set(defs)
    assert defs["Supplier"].source == "quoted"  # its "means" definition, not the parenthesis
    assert defs["卖方"].definition == "江临精工机械有限公司"
    assert "Fees" not in defs


def test_definitions_in_filing_glossaries() -> None:
    """EDGAR glossaries: a quoted term alone on its line above 'Means …' or a meaning of its
    own, 'Shall mean' in capitals, two quoted names for one meaning, and numbered lines with
    the term, a dash and the meaning in lower case; a heading followed by a sentence is not
    a definition."""
    text = (
        "ARTICLE 1\nDEFINITIONS\n\n"
        '"Affiliate"\n\n\nWith respect to any Party shall mean any entity which Controls that '
        "Party.\n\n"
        '"Calendar Year"    Shall mean the twelve months starting on 1 January.\n\n'
        '"Good Manufacturing Practices" or "GMP" means the current rules on manufacture.\n\n'
        "1.2 Acceptance Date - the first Business Day after the Buyer accepts the Software.\n"
        "1.3 Bank Security Requirements- all security requirements described in Schedule E.\n"
        "1.4 Territory: means the United States and Canada.\n"
        "1.5 Payment Terms - Buyer shall pay each invoice within thirty days.\n"
    )
    defs = _parse(text).definitions
    assert defs["Affiliate"].definition.startswith("With respect to any Party shall mean")
    assert defs["Calendar Year"].definition == "the twelve months starting on 1 January"
    assert defs["GMP"].definition == defs["Good Manufacturing Practices"].definition
    assert defs["Acceptance Date"].source == "glossary_line"
    assert defs["Acceptance Date"].definition.startswith("the first Business Day")
    assert defs["Bank Security Requirements"].definition.startswith("all security")
    assert defs["Territory"].definition == "the United States and Canada"
    assert "Payment Terms" not in defs  # a heading: its sentence starts with a capital


def test_a_wrapped_line_is_not_a_heading() -> None:
    """'… set forth in\nArticle 9. The Licensee …': the line runs on from the one before; a
    list item after '; and' still opens its own clause."""
    text = (
        'ARTICLE 1\nDEFINITIONS\n1.1 "Licensed Product" means any product subject to the rules '
        "set forth in\nArticle 9. The Licensee shall comply with them.\n"
        '1.2 "Territory" means Canada; and\n1.3 "Term" means five years.\n'
        "ARTICLE 2\nGRANT\n2.1 License. Licensor grants a licence.\n"
        "ARTICLE 9\nRULES\n9.1 Rules apply.\n"
    )
    ids = [c.clause_id for c in _parse(text).iter_clauses()]
    assert ids == ["1", "1.1", "1.2", "1.3", "2", "2.1", "9", "9.1"]


def test_look_alike_punctuation_is_read_as_punctuation_offsets_kept() -> None:
    """A Greek question mark (U+037E) reads as the semicolon it looks like; clause texts keep
    the characters the document has."""
    text = (
        '1. Definitions\n"Goods" means steel\u037e and\n"Site" means the yard.\n'
        "2. Price\nAs stated.\n"
    )
    structure = _parse(text)
    assert structure.definitions["Goods"].definition == "steel"
    clause = structure.get_clause("1")
    assert clause is not None
    assert clause.text == text[clause.start_offset : clause.end_offset]
    assert "\u037e" in clause.text


def test_a_contents_list_run_on_after_its_marker_is_not_the_contract() -> None:
    """'TABLE OF CONTENTS Page ARTICLE 1 Definitions 1' with entries ending in page numbers:
    the body's articles are the clauses, not the entries (nor an annex listed last)."""
    text = (
        "LICENSE AGREEMENT\n\nTABLE OF CONTENTS Page ARTICLE 1 Definitions 1\n\n"
        "ARTICLE 2 License 4\n\nARTICLE 3 Payments 6\n\nSchedule 1.1 Patents 9\n\n"
        "LICENSE AGREEMENT\n\nThis License Agreement is made between A and B.\n\n"
        'ARTICLE 1\nDEFINITIONS\n1.1 "Patents" means the patents in Schedule 1.1.\n'
        "ARTICLE 2\nLICENSE\n2.1 A grants B a licence.\n"
        "ARTICLE 3\nPAYMENTS\n3.1 B pays royalties.\n"
        "Schedule 1.1 Patents\nUS 1,234,567.\n"
    )
    structure = _parse(text)
    assert structure.toc_ranges
    tops = [(c.clause_id, c.title) for c in structure.clauses if c.clause_id != "preamble"]
    assert tops == [
        ("1", "DEFINITIONS"),
        ("2", "LICENSE"),
        ("3", "PAYMENTS"),
        ("Schedule 1.1", "Patents"),
    ]


def test_numbered_clauses_after_lettered_recitals_are_not_inside_the_last_recital() -> None:
    text = (
        "SPONSORSHIP AGREEMENT\n\nRECITALS\n\nA.  Excite operates the Excite Site.\n\n"
        "B.  NetGrocer wishes to promote its site to Excite's users.\n\n"
        "1.  SPONSORSHIP\n\n    a)  Excite will promote NetGrocer.\n\n"
        "2.  PAYMENT\n\n    NetGrocer will pay the fees.\n"
    )
    tops = [c.clause_id for c in _parse(text).clauses if c.clause_id != "preamble"]
    assert tops == ["A", "B", "1", "2"]
    # a lettered section with a heading still holds its numbered paragraphs
    sections = "A.  AUTHORITY OF AGENT\n\n  1.  Solicit business.\n\n  2.  Deliver binders.\n\nB.  BILLING\n\n  1.  Invoices.\n"
    ids = [c.clause_id for c in _parse(sections).iter_clauses()]
    assert ids == ["A", "A.1", "A.2", "B", "B.1"]


def test_a_flattened_line_break_inside_a_sentence_is_not_a_heading() -> None:
    """'… (User Data),<wide gap>Section 13 (Indemnity) … survive': one sentence wrapped into
    gaps; the exhibit number heading a filing is not an annex."""
    text = (
        "EXHIBIT 10.17\n\nAGREEMENT\n\n1.   TERM\n\n      The provisions of Section 12 "
        "(Confidentiality),             Section 13 (Indemnity) and             Section 15 "
        "(Disputes) will survive.\n\n2.   TRADEMARKS\n\nEach party owns its marks as set forth on"
        "       EXHIBIT A.\n\n3.   NOTICES\n\nIn writing.\n"
    )
    ids = [c.clause_id for c in _parse(text).iter_clauses()]
    assert ids == ["preamble", "1", "2", "3"]


def test_a_flattened_numbering_whose_first_heading_follows_the_title() -> None:
    # PDF text without line breaks: '1.0' follows the title with no stop before it, so only
    # 2.0, 3.0 … sit after sentence ends
    body = " ".join(
        f"{n}.0 {title} The parties agree on the {title.lower()} as set out in this part, "
        "which is written at length so that the paragraph runs on as flattened filings do, "
        "over many words and several lines of the original page."
        for n, title in enumerate(("Introduction", "Services", "Charges", "Term", "General"), 1)
    )
    text = "EXHIBIT 99.2\n\nHosting Agreement " + body + "\n"
    structure = StructureParser().parse(text)
    assert [c.clause_id for c in structure.clauses if c.clause_id != "preamble"] == [
        "1", "2", "3", "4", "5"
    ]  # fmt: skip
    # a '1' that is a reference is not taken for the missing heading
    referred = text.replace(
        "Hosting Agreement 1.0 Introduction", "Hosting Agreement under Section 1 Introduction"
    )
    ids = [c.clause_id for c in StructureParser().parse(referred).clauses]
    assert "1" not in ids


def test_a_page_number_before_the_exhibit_label_is_not_clause_one() -> None:
    text = (
        "1" + " " * 60 + "EXHIBIT 10.17\n\n    OUTSOURCING AGREEMENT\n\n"
        'This Agreement ("Agreement") is made between Alder Systems, Inc. and Birch Data LLC.\n\n'
        "1. LICENSE\n\n1.1 GRANT. Alder grants Birch a licence to use the Software.\n\n"
        "2. PAYMENT\n\n2.1 FEES. Birch shall pay the fees in Exhibit A.\n"
    )
    structure = StructureParser().parse(text)
    assert [c.clause_id for c in structure.clauses] == ["preamble", "1", "2"]
    one = structure.get_clause("1")
    assert one is not None
    assert one.text.startswith("1. LICENSE")


def test_chinese_definitions_with_a_colon_and_a_lead_in() -> None:
    text = (
        "技术服务合同\n\n第一条 定义\n1.1 “服务”是指乙方依本合同提供的数据处理服务。\n"
        '1.2 "交付物"：指乙方交付的报告及软件。\n1.3 本合同所称“保密信息”，是指一方披露的技术资料。\n'
        "第二条 联系\n联系人：指定专人负责。\n"
    )
    defs = StructureParser().parse(text).definitions
    assert defs["交付物"].definition == "乙方交付的报告及软件"
    assert {"服务", "交付物", "保密信息"} <= set(defs)
    assert "联系人" not in defs


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        (
            "SPONSORSHIP AGREEMENT\n\nRECITALS\n\n(A) The Owner holds the rights in the Event.\n\n"
            "(B) The Sponsor wishes to sponsor the Event.\n\nIT IS AGREED as follows:\n\n"
            "Clause 1. Definitions\n\n1.1 Terms have the meanings below.\n\n"
            "Clause 2. Grant\n\n2.1 The Owner grants the Sponsor the rights.\n",
            ["preamble", "(A)", "(B)", "1", "2"],
        ),
        (
            "区域经销协议\n\n鉴于：\n（1）甲方是产品的生产企业；\n（2）乙方拥有销售渠道；\n\n"
            "双方达成如下协议：\n\n1. 定义\n1.1 “产品”指附件一所列产品。\n\n2. 委任\n2.1 甲方委任乙方。\n",
            ["preamble", "1", "2"],
        ),
        (
            # the parties listed in brackets, the recitals lettered under the last of them
            "AFFILIATE AGREEMENT\n\nPARTIES\n\n(1) Bracken Retail Limited, of 4 Mill Road, "
            "Leeds (the Merchant).\n\n(2) Tideline Media Ltd, of 17 Harbour Way, Hull (the "
            "Publisher).\n\nBACKGROUND\n\n(A) The Merchant sells outdoor goods online.\n\n(B) The "
            "Merchant wishes to appoint the Publisher.\n\nAGREED TERMS\n\n1. DEFINITIONS\n\n1.1 "
            "Terms have the meanings below.\n\n2. APPOINTMENT\n\n2.1 The Merchant appoints the "
            "Publisher.\n",
            ["preamble", "(1)", "(2)", "1", "2"],
        ),
        (
            "采购合同\n\n鉴于：\n1. 甲方拟向乙方采购钢材；\n2. 乙方具备供货能力。\n\n"
            "第一条 采购标的\n1. 标的为圆钢。\n2. 数量见附件。\n\n第二条 订单\n1. 甲方按月下单。\n",
            ["preamble", "1", "2"],
        ),
    ],
)
def test_recitals_before_the_contracts_own_numbering(text: str, ids: list[str]) -> None:
    structure = StructureParser().parse(text)
    assert [c.clause_id for c in structure.clauses] == ids
    last = structure.clauses[-1]
    assert last.children  # the clauses hold their sub-clauses, not a recital


@pytest.mark.parametrize(
    ("text", "first"),
    [
        (
            "SERVICES AGREEMENT\n\nBETWEEN\n\n(1) Alder Freight PLC, a company registered in "
            'England (the "Company"); and\n\n(2) Jonas Berg, of 3 Mill Lane, Bath (the '
            '"Adviser").\n\nBACKGROUND\n\n(A) The Company runs a freight business.\n\n(B) The '
            "Adviser is an expert.\n\nSECTION 1 — DEFINITIONS\n\nSection 1.01 Words have these "
            "meanings.\n\nSECTION 2 — TERM\n\nSection 2.01 This Agreement runs for a year.\n",
            "1",
        ),
        (
            "软件许可合同\n\n甲方：海川数智科技有限公司\n乙方：星桥物流有限公司\n\n鉴于：\n"
            "1．甲方拥有软件著作权；\n2．乙方需要使用该软件。\n\n双方协商一致如下：\n\n"
            "一、许可内容\n（一）甲方许可乙方使用软件。\n\n二、费用\n（一）乙方支付许可费。\n",
            "1",
        ),
    ],
)
def test_the_first_heading_after_preamble_lists_is_top_level(text: str, first: str) -> None:
    structure = StructureParser().parse(text)
    tops = [c.clause_id for c in structure.clauses]
    assert first in tops
    assert "2" in tops
    heading = structure.get_clause(first)
    assert heading is not None
    assert heading.children


def test_a_term_with_the_comma_inside_its_quotes() -> None:
    text = (
        "1. Term\n1.1 This Agreement then renews for successive one (1) year periods (each, a "
        '"Renewal Term," and together with the initial term, the "Term").\n'
    )
    defs = StructureParser().parse(text).definitions
    assert {"Renewal Term", "Term"} <= set(defs)
