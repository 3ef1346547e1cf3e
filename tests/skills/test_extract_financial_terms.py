"""extract_financial_terms on English and Chinese clauses: values, words/figures checks,
categories, flags, the sample contracts, and the dispatcher path."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from contract_review.models import DocumentStructure
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.local.extract_financial_terms import (
    REGISTRATION,
    SKILL_ID,
    FinancialTermsInput,
    FinancialTermsOutput,
    handle,
)
from tests.conftest import example_structure

FIDIC = example_structure("fidic/particular_conditions_en.txt")
CN = example_structure("cn/construction_contract_zh.txt")


def check_quotes(out: FinancialTermsOutput, text: str) -> None:
    """Every quote is the verbatim slice its offsets name; every reference resolves."""
    terms = [*out.amounts, *out.percentages, *out.periods]
    for term in terms:
        assert text[term.start : term.end] == term.quote, term
    for flag in out.flags:
        assert text[flag.start : flag.end] == flag.quote, flag
    for pct in out.percentages:
        if pct.of is not None:
            assert pct.of in text
    refs = [r for refs in out.by_category.values() for r in refs]
    assert len(refs) == len(terms) == len(set(refs))
    for category, items in out.by_category.items():
        for ref in items:
            name, index = ref.rstrip("]").split("[")
            assert getattr(out, name)[int(index)].category == category


def run(text: str) -> FinancialTermsOutput:
    out = handle(FinancialTermsInput(clause_id="x", text=text))
    assert out.source == "text"
    assert out.clause_start_offset is None
    check_quotes(out, text)
    return out


def clause(structure: DocumentStructure, clause_id: str) -> FinancialTermsOutput:
    out = handle(FinancialTermsInput(clause_id=clause_id, document_structure=structure))
    node = structure.get_clause(clause_id)
    assert node is not None
    assert out.source == "clause"
    assert out.clause_start_offset == node.start_offset
    check_quotes(out, node.text)
    return out


def call(
    structure: DocumentStructure | None, clause_id: str, args: dict[str, Any] | None = None
) -> Any:
    dispatcher = SkillDispatcher()
    dispatcher.register(REGISTRATION)
    return asyncio.run(
        dispatcher.prepare_and_call(SKILL_ID, clause_id, structure, {}, llm_arguments=args)
    )


# -- amounts -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "quote", "value", "currency"),
    [
        ("a sum of USD 2,500,000 shall", "USD 2,500,000", 2_500_000, "USD"),
        ("a sum of $3.5 million shall", "$3.5 million", 3_500_000, "USD"),
        ("a sum of €10,000 shall", "€10,000", 10_000, "EUR"),
        ("a sum of £250 shall", "£250", 250, "GBP"),
        ("a sum of RMB 5,000 shall", "RMB 5,000", 5_000, "CNY"),
        ("a sum of U.S. $ 250,000 shall", "U.S. $ 250,000", 250_000, "USD"),
        ("a sum of US$1,000.50 shall", "US$1,000.50", 1_000.5, "USD"),
        ("a sum of 5,000 Hong Kong dollars", "5,000 Hong Kong dollars", 5_000, "HKD"),
        ("总额为¥12,000,000.00。", "¥12,000,000.00", 12_000_000, "CNY"),
        ("总额为10,000元。", "10,000元", 10_000, "CNY"),
        ("总额为50万元。", "50万元", 500_000, "CNY"),
        ("总额为1.2亿元。", "1.2亿元", 120_000_000, "CNY"),
        ("总额为人民币３０００元。", "人民币３０００元", 3_000, "CNY"),
        ("总额为两千万元。", "两千万元", 20_000_000, "CNY"),
        ("总额为100万美元。", "100万美元", 1_000_000, "USD"),
        (
            "人民币壹万贰仟叁佰肆拾伍元陆角柒分",
            "人民币壹万贰仟叁佰肆拾伍元陆角柒分",
            12_345.67,
            "CNY",
        ),
    ],
)
def test_amount_forms(text: str, quote: str, value: float, currency: str) -> None:
    out = run(text)
    assert [(a.quote, a.value, a.currency) for a in out.amounts] == [(quote, value, currency)]


def test_dollar_sign_follows_context() -> None:
    out = run("All sums are in Hong Kong dollars. The fee is $5,000.")
    assert [(a.value, a.currency) for a in out.amounts] == [(5_000, "HKD")]
    assert run("The fee is $5,000.").amounts[0].currency == "USD"
    assert run("费用为¥5,000，以日元支付。").amounts[0].currency == "JPY"


def test_english_words_and_figures_match() -> None:
    out = run("The Purchaser shall pay Ten Thousand Dollars (US$10,000) on signature.")
    (amount,) = out.amounts
    assert amount.quote == "Ten Thousand Dollars (US$10,000)"
    assert amount.written_as == "words_and_figures"
    assert (amount.value, amount.currency) == (10_000, "USD")
    assert (amount.words_value, amount.figures_value) == (10_000, 10_000)
    assert amount.words_match_figures is True
    assert out.flags == []


@pytest.mark.parametrize(
    "text",
    [
        "Liability shall not exceed ten\nmillion dollars ($10,000,000) in the aggregate.",
        "The fee is twenty-\nfive thousand dollars ($25,000).",
        "The fee is one hundred\nand fifty dollars ($150).",
    ],
)
def test_words_wrapped_over_a_line_still_match_their_figures(text: str) -> None:
    """A PDF wraps 'ten\nmillion dollars': the words run on across one line break."""
    out = run(text)
    (amount,) = out.amounts
    assert amount.words_match_figures is True
    assert out.flags == []


def test_english_words_and_figures_mismatch() -> None:
    out = run("The fee is Ten Thousand Dollars ($1,000), payable within 10 business days.")
    (amount,) = out.amounts
    assert (amount.words_value, amount.figures_value) == (10_000, 1_000)
    assert amount.words_match_figures is False
    assert amount.value == 10_000  # words usually prevail
    (flag,) = out.flags
    assert flag.code == "words_figures_mismatch"
    assert flag.quote == "Ten Thousand Dollars ($1,000)"
    assert "10,000" in flag.message
    assert "1,000" in flag.message


def test_english_figures_then_words_and_words_only() -> None:
    out = run(
        "The cap is USD 2,500,000 (two million five hundred thousand US dollars). "
        "The deposit is two million five hundred thousand dollars."
    )
    first, second = out.amounts
    assert first.written_as == "words_and_figures"
    assert first.words_match_figures is True
    assert second.quote == "two million five hundred thousand dollars"
    assert (second.written_as, second.value, second.currency) == ("words", 2_500_000, "USD")


def test_chinese_capital_numerals_match_figures() -> None:
    out = run("本合同签约合同价为人民币壹仟贰佰万元整（¥12,000,000.00）。")
    (amount,) = out.amounts
    assert amount.quote == "人民币壹仟贰佰万元整（¥12,000,000.00）"
    assert (amount.value, amount.currency, amount.written_as) == (
        12_000_000,
        "CNY",
        "words_and_figures",
    )
    assert amount.words_match_figures is True
    assert amount.category == "price"
    assert out.flags == []


def test_chinese_capital_numerals_mismatch() -> None:
    out = run("预付款为人民币壹佰贰拾万元整（¥1,020,000.00）。")
    (amount,) = out.amounts
    assert (amount.words_value, amount.figures_value) == (1_200_000, 1_020_000)
    assert amount.words_match_figures is False
    assert [f.code for f in out.flags] == ["words_figures_mismatch"]


def test_chinese_figures_then_capitals_in_brackets() -> None:
    out = run("合同价款为¥12,000,000.00（大写：人民币壹仟贰佰万元整）。")
    (amount,) = out.amounts
    assert amount.quote == "¥12,000,000.00（大写：人民币壹仟贰佰万元整）"
    assert amount.words_match_figures is True


def test_range_is_not_read_as_its_first_figure() -> None:
    assert run("This is budgeted at £30- 40K.").amounts == []


# -- percentages -------------------------------------------------------------------------------


def test_percentages_english() -> None:
    out = run(
        "The Contractor shall deliver a performance security of 10% of the Accepted Contract "
        "Amount. Of the royalty, twenty-five percent (25%) of Net Sales is due. Other rates "
        "are 10 % and 12.5 per cent."
    )
    values = [(p.quote, p.value, p.of) for p in out.percentages]
    assert values == [
        ("10%", 10.0, "the Accepted Contract Amount"),
        ("twenty-five percent (25%)", 25.0, "Net Sales"),
        ("10 %", 10.0, None),
        ("12.5 per cent", 12.5, None),
    ]
    assert out.percentages[1].words_match_figures is True
    assert out.percentages[0].category == "guarantee_security"


def test_percentages_chinese() -> None:
    out = run(
        "履约保证金为合同价款的百分之五。预付款按每期应付进度款的20％扣回。"
        "逾期付款的，按未付金额每日万分之五支付滞纳金，千分之三的手续费另计。"
    )
    values = [(p.quote, p.value, p.of, p.rate_period) for p in out.percentages]
    assert values == [
        ("百分之五", 5.0, "合同价款", None),
        ("20％", 20.0, "每期应付进度款", None),
        ("万分之五", 0.05, "未付金额", "day"),
        ("千分之三", 0.3, None, None),
    ]


def test_rate_periods() -> None:
    out = run(
        "Late payments bear interest at 1.5% per month. Overdue sums bear interest at a per "
        "annum rate of one percent (1%) above base. Damages are USD 5,000 per day of delay."
    )
    assert [p.rate_period for p in out.percentages] == ["month", "year"]
    assert out.amounts[0].rate_period == "day"
    zh = run("逾期付款按0.05%/天计收滞纳金，误期赔偿费按每日2,000元计算，年利率为4.35%。")
    assert [p.rate_period for p in zh.percentages] == ["day", "year"]
    assert [(a.value, a.rate_period) for a in zh.amounts] == [(2_000, "day")]


# -- periods -----------------------------------------------------------------------------------


def test_periods_english() -> None:
    out = run(
        "Notice within twenty-eight (28) days; payment within 30 calendar days; repair within "
        "5 business days or three (3) Working Days; reports every 2 weeks; a 28-day period; "
        "a warranty of 2 years and 18 months; access on 48 hours' notice."
    )
    got = [(p.quote, p.value, p.unit, p.calendar_or_working) for p in out.periods]
    assert got == [
        ("twenty-eight (28) days", 28, "day", "unspecified"),
        ("30 calendar days", 30, "day", "calendar"),
        ("5 business days", 5, "day", "working"),
        ("three (3) Working Days", 3, "day", "working"),
        ("2 weeks", 2, "week", None),
        ("28-day", 28, "day", "unspecified"),
        ("2 years", 2, "year", None),
        ("18 months", 18, "month", None),
        ("48 hours", 48, "hour", None),
    ]
    assert out.periods[0].written_as == "words_and_figures"
    assert out.periods[0].words_match_figures is True


def test_period_words_figures_mismatch() -> None:
    out = run("The dispute shall be settled within five (45) days.")
    (period,) = out.periods
    assert (period.words_value, period.figures_value, period.words_match_figures) == (5, 45, False)
    assert [f.code for f in out.flags] == ["words_figures_mismatch"]


def test_periods_chinese() -> None:
    out = run(
        "甲方应在收到发票后3个工作日内付款；工期为540日历天；缺陷责任期为24个月；保修期为两年；"
        "乙方应在30日内提交，并提前48小时通知；计划开工日期为2024年9月1日，每月25日前提交报告。"
    )
    got = [(p.quote, p.value, p.unit, p.calendar_or_working) for p in out.periods]
    assert got == [
        ("3个工作日", 3, "day", "working"),
        ("540日历天", 540, "day", "calendar"),
        ("24个月", 24, "month", None),
        ("两年", 2, "year", None),
        ("30日", 30, "day", "unspecified"),
        ("48小时", 48, "hour", None),
    ]  # dates (2024年9月1日, 每月25日) are not periods
    assert out.periods[0].category == "payment_period"


def test_no_false_positives() -> None:
    out = run(
        "Clause 14.2 applies. Dated 18 June 2024. Output is 120,000 cubic metres per day. "
        "The one-in-ten-year storm. One of the Parties. Ship 100 pounds of seed. 第三条 甲方。"
    )
    assert (out.amounts, out.percentages, out.periods) == ([], [], [])


# -- categories --------------------------------------------------------------------------------

CATEGORY_CASES = [
    ("The Contractor's total liability shall not exceed USD 2,500,000.", "amounts", "cap"),
    ("The Employer shall pay each invoice within 30 days of receipt.", "periods", "payment_period"),
    ("The advance bears interest at 4% per annum.", "percentages", "interest"),
    ("Late payments bear interest at 2% per month.", "percentages", "late_payment"),
    ("The Employer shall retain 5% of each interim payment.", "percentages", "retention"),
    ("An advance payment of USD 100,000 shall be made.", "amounts", "advance_payment"),
    ("A penalty of USD 1,000 applies to each defective unit.", "amounts", "liquidated_damages"),
    ("Delay damages are USD 5,000 per day.", "amounts", "delay_damages"),
    ("The performance bond shall be for USD 500,000.", "amounts", "guarantee_security"),
    ("The Contract Price is USD 8,000,000.", "amounts", "price"),
    ("The Works comprise 12 pumps delivered within 90 days.", "periods", "other"),
    ("最高赔偿额不超过合同价款的30%。", "percentages", "cap"),
    ("甲方应在收到发票后28天内支付。", "periods", "payment_period"),
    ("借款按年利率6%计息。", "percentages", "interest"),
    ("甲方逾期付款的，应按每日万分之五支付滞纳金。", "percentages", "late_payment"),
    ("甲方应按已完工程价款的5%预留质量保证金。", "percentages", "retention"),
    ("甲方应支付合同价款的10%作为预付款。", "percentages", "advance_payment"),
    ("质量不合格的，乙方应按合同价款的10%支付违约金。", "percentages", "liquidated_damages"),
    ("误期赔偿费为每天5,000元。", "amounts", "delay_damages"),
    ("乙方应提交金额为合同价款10%的履约保函。", "percentages", "guarantee_security"),
    ("本合同签约合同价为人民币1,000万元。", "amounts", "price"),
    ("总建筑面积约18,600平方米，工期540天。", "periods", "other"),
]


@pytest.mark.parametrize(("text", "kind", "category"), CATEGORY_CASES)
def test_categories(text: str, kind: str, category: str) -> None:
    out = run(text)
    terms = getattr(out, kind)
    assert len(terms) == 1
    assert terms[0].category == category
    assert out.by_category[category] == [f"{kind}[0]"]
    if category != "other":
        assert terms[0].category_cue
        assert terms[0].category_cue in text


def test_categories_from_nearest_words_in_sentence() -> None:
    out = run(
        "三、甲方无正当理由逾期支付结算价款超过90天的，应按未付金额每日万分之一向乙方支付违约金，"
        "但累计不超过未付金额的2%。"
    )
    rate, cap = out.percentages
    assert (rate.value, rate.category, rate.rate_period) == (0.01, "late_payment", "day")
    assert (cap.value, cap.category, cap.cap_applies_to) == (2.0, "cap", "late_payment")
    assert cap.category_cue == "不超过"
    assert out.periods[0].category == "late_payment"
    assert out.by_category == {
        "late_payment": ["periods[0]", "percentages[0]"],
        "cap": ["percentages[1]"],
    }
    assert out.flags == []  # a late-payment rate is not damages for delay


def test_amount_restating_a_percentage_takes_its_category() -> None:
    out = run(
        "甲方应预留质量保证金，累计预留至合同价款的5%为止，即人民币陆拾万元整（¥600,000.00）。"
    )
    assert out.amounts[0].category == "retention"
    assert out.percentages[0].category == "retention"


# -- flags -------------------------------------------------------------------------------------


def test_damages_rate_with_cap_is_not_flagged() -> None:
    out = run(
        "The Contractor shall pay liquidated damages of USD 10,000 for every day of delay, up "
        "to a maximum of 10% of the Contract Price."
    )
    assert out.amounts[0].category == "delay_damages"
    assert out.amounts[0].rate_period == "day"
    cap = out.percentages[0]
    assert (cap.category, cap.cap_applies_to, cap.of) == (
        "cap",
        "delay_damages",
        "the Contract Price",
    )
    assert out.flags == []


def test_chinese_retention_above_the_prc_three_percent_cap() -> None:
    out = run("发包人按每期进度款的5%预留质量保证金。")
    (flag,) = out.flags
    assert flag.code == "retention_above_cn_3_percent"
    assert flag.quote == "5%"
    assert "3%" in flag.message
    assert run("发包人按每期进度款的3%预留质量保证金。").flags == []


def test_retention_above_five_percent() -> None:
    out = run("The Employer shall retain 10% of each interim payment.")
    (flag,) = out.flags
    assert flag.code == "retention_above_5_percent"
    assert flag.quote == "10%"
    assert "10%" in flag.message
    assert run("The Employer shall retain 5% of each interim payment.").flags == []


def test_no_interest_on_late_payment_flag() -> None:
    en = run("No interest shall be payable on any payment made after the due date.")
    zh = run("甲方逾期支付进度款的，甲方不承担逾期付款的利息。")
    for out in (en, zh):
        assert [f.code for f in out.flags] == ["no_late_payment_interest"]
    assert run("The advance carries no interest.").flags == []


# -- sample contracts --------------------------------------------------------------------------


def test_fidic_delay_damages_via_dispatcher() -> None:
    result = call(FIDIC, "8.8")
    assert result.success, result.error
    out = FinancialTermsOutput.model_validate(result.data)
    check_quotes(out, FIDIC.get_clause("8.8").text)  # type: ignore[union-attr]
    (rate,) = out.percentages
    assert (rate.quote, rate.value, rate.rate_period) == ("0.2%", 0.2, "day")
    assert rate.of == "the Accepted Contract Amount"
    assert (rate.category, rate.category_cue) == ("delay_damages", "delay damages")
    (flag,) = out.flags
    assert flag.code == "uncapped_damages"
    assert "no cap" in flag.message
    assert "not be subject to any maximum" in flag.message


def test_fidic_advance_payment_via_dispatcher() -> None:
    result = call(FIDIC, "14.2")
    assert result.success, result.error
    out = FinancialTermsOutput.model_validate(result.data)
    check_quotes(out, FIDIC.get_clause("14.2").text)  # type: ignore[union-attr]
    assert [(p.value, p.of, p.category) for p in out.percentages] == [
        (10.0, "the Accepted Contract Amount", "advance_payment"),
        (20.0, "the amount of each interim payment", "advance_payment"),
    ]
    assert [(p.value, p.unit, p.category) for p in out.periods] == [(42, "day", "payment_period")]
    assert out.flags == []


def test_fidic_other_clauses() -> None:
    cap = clause(FIDIC, "17.5")
    assert [(a.value, a.currency, a.category) for a in cap.amounts] == [(2_500_000, "USD", "cap")]
    security = clause(FIDIC, "4.2")
    assert security.percentages[0].category == "guarantee_security"
    retention = clause(FIDIC, "14.9")
    assert [p.category for p in retention.percentages] == ["retention", "retention"]
    assert [f.code for f in retention.flags] == ["retention_above_5_percent"]
    assert [p.category for p in retention.periods] == ["retention"] * 3  # from the heading
    payment = clause(FIDIC, "14.7")
    assert [(p.value, p.category) for p in payment.periods] == [
        (56, "payment_period"),
        (84, "payment_period"),
    ]
    assert [f.code for f in payment.flags] == ["no_late_payment_interest"]
    price = clause(FIDIC, "1.1(a)")
    assert [(a.value, a.category) for a in price.amounts] == [(86_400_000, "price")]


def test_chinese_contract_price_clause() -> None:
    result = call(CN, "3")
    assert result.success, result.error
    out = FinancialTermsOutput.model_validate(result.data)
    check_quotes(out, CN.get_clause("3").text)  # type: ignore[union-attr]
    assert [(a.quote, a.value, a.words_match_figures, a.category) for a in out.amounts] == [
        ("人民币壹仟贰佰万元整（¥12,000,000.00）", 12_000_000, True, "price"),
        ("人民币叁拾陆万元整（¥360,000.00）", 360_000, True, "price"),
    ]


def test_chinese_sample_clauses() -> None:
    advance = clause(CN, "4")
    assert [(a.value, a.category) for a in advance.amounts] == [(1_200_000, "advance_payment")]
    assert [(p.value, p.of, p.category) for p in advance.percentages] == [
        (10.0, "合同价款", "advance_payment"),
        (20.0, "每期应付进度款", "advance_payment"),
    ]
    assert [(p.value, p.category) for p in advance.periods] == [(14, "payment_period")]
    damages = clause(CN, "16.1")
    (rate,) = damages.percentages
    assert (rate.value, rate.rate_period, rate.category) == (0.5, "day", "delay_damages")
    assert damages.periods == []  # 每逾期一天 is the unit of the rate
    assert [f.code for f in damages.flags] == ["uncapped_damages"]
    assert "不设上限" in damages.flags[0].message
    interim = clause(CN, "5")
    assert [f.code for f in interim.flags] == ["no_late_payment_interest"]


def test_every_clause_of_the_samples_has_verbatim_quotes() -> None:
    for structure in (FIDIC, CN):
        for node in structure.iter_clauses():
            clause(structure, node.clause_id)


# -- input handling and errors -----------------------------------------------------------------


def test_text_argument_through_dispatcher() -> None:
    result = call(FIDIC, "8.8", {"text": "The fee is EUR 1,000."})
    assert result.success, result.error
    out = FinancialTermsOutput.model_validate(result.data)
    assert out.source == "text"
    assert [(a.value, a.currency) for a in out.amounts] == [(1_000, "EUR")]


def test_unknown_clause_is_an_error_result() -> None:
    result = call(FIDIC, "99.9")
    assert not result.success
    assert result.error is not None
    assert "clause '99.9' not found" in result.error


def test_no_structure_is_an_error_result() -> None:
    result = call(None, "1")
    assert not result.success
    assert result.error == "no document structure is available"


def test_tool_definition_hides_internal_fields() -> None:
    params = REGISTRATION.to_tool_definition()["function"]["parameters"]
    assert set(params["properties"]) == {"clause_id", "text"}
    assert params["required"] == ["clause_id"]
