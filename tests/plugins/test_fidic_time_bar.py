"""fidic_calculate_time_bar: time limits, triggers, who acts, consequences, deadlines."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date

import pytest

from contract_review.errors import SkillError
from contract_review.models import DocumentStructure
from contract_review.parties import party_roles
from contract_review.plugins.fidic.skills.time_bar import (
    REGISTRATION,
    TimeBar,
    TimeBarInput,
    compute_deadline,
    handle,
    prepare_input,
    time_bars_for_document,
)
from contract_review.plugins.registry import (
    BaselinePosition,
    DomainPlugin,
    get_plugin,
)
from contract_review.skills.context import prepare_context
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.structure_parser import StructureParser
from tests.conftest import EXAMPLES, registered_plugin

PARSER = StructureParser()
FIDIC = PARSER.parse(
    (EXAMPLES / "fidic" / "particular_conditions_en.txt").read_text(encoding="utf-8")
)
ZH = PARSER.parse((EXAMPLES / "cn" / "construction_contract_zh.txt").read_text(encoding="utf-8"))

EN_TEXT = PARSER.parse(
    "Employer: Harbour Authority\nContractor: Meridian Build Ltd\n\n"
    "Clause 5 Design\n\n"
    "Sub-Clause 5.2 Contractor's Documents\n"
    "The Engineer shall review each Contractor's Document within 14 days after receiving it. "
    "If the Engineer fails to give notice within that period, the document shall be deemed "
    "to have been approved.\n\n"
    "Sub-Clause 5.3 Submittals\n"
    "The Contractor shall submit the inspection report within 5 working days after each "
    "inspection.\n\n"
    "Sub-Clause 5.4 Tests\n"
    "The Contractor shall give the Engineer notice at least 7 days before the start of any "
    "test.\n",
    document_id="en",
)

ZH_TEXT = PARSER.parse(
    "发包人：滨江建设集团\n承包人：宏达建筑有限公司\n\n"
    "第一条 变更\n"
    "1.1 监理人应在收到变更估价申请后14天内完成审核，逾期未完成审核的，视为认可承包人提交的变更估价申请。\n"
    "1.2 承包人应在变更指示发出后28天内提交变更估价申请，逾期未提交的，丧失要求追加付款的权利。\n"
    "1.3 承包人应在隐蔽工程覆盖前提前48小时通知监理人检查。\n",
    document_id="zh",
)


def run(
    structure: DocumentStructure,
    clause_id: str,
    *,
    party: str = "",
    trigger_date: date | None = None,
) -> list[TimeBar]:
    ctx = prepare_context(side=party, structure=structure)
    inp = TimeBarInput(
        clause_id=clause_id,
        document_structure=structure,
        review_context=ctx,
        trigger_date=trigger_date,
    )
    return handle(inp).time_bars


def test_fidic_20_1_notice_is_time_barred_and_contractor_acts() -> None:
    bars = run(FIDIC, "20.1", party="Contractor")
    notice = bars[0]
    assert notice.clause_id == "20.1(a)"
    assert notice.clause_label == "Sub-Clause 20.1(a)"
    assert notice.quote == "not later than 28 days"
    assert (notice.value, notice.unit, notice.day_type) == (28, "day", "unspecified")
    assert notice.limit_type == "not_later_than"
    assert notice.promptly is True
    assert notice.trigger == "after the Contractor first knew"
    assert notice.trigger_relation == "after"
    assert (notice.who, notice.who_role, notice.who_side) == ("Contractor", "contractor", "us")
    assert notice.consequence == "time_bar"
    assert notice.consequence_quote == "loses any right"
    clause = FIDIC.get_clause("20.1(a)")
    assert clause is not None
    assert clause.text[notice.start : notice.end] == notice.quote
    # the claim submission (42 days) and the Employer's response carry no time bar
    assert [(b.value, b.who_role, b.consequence) for b in bars[1:]] == [
        (42, "contractor", "none_stated"),
        (42, "employer", "none_stated"),
    ]
    assert bars[2].who_side == "them"


def test_sub_clause_lookup_keeps_only_its_own_limits() -> None:
    bars = run(FIDIC, "20.1(b)")
    assert [(b.quote, b.trigger) for b in bars] == [("within 42 days", "after that date")]
    assert bars[0].start == FIDIC.get_clause("20.1(b)").text.index("within 42 days")  # type: ignore[union-attr]


def test_deemed_approval_in_a_later_sentence() -> None:
    (bar,) = run(EN_TEXT, "5.2")
    assert (bar.quote, bar.value) == ("within 14 days", 14)
    assert bar.trigger == "after receiving it"
    assert bar.consequence == "deemed_approval"
    assert bar.consequence_quote == "deemed to have been approved"


def test_working_days_and_deadline_skipping_the_weekend() -> None:
    (bar,) = run(EN_TEXT, "5.3", trigger_date=date(2025, 3, 6))  # a Thursday
    assert (bar.value, bar.unit, bar.day_type) == (5, "day", "working")
    assert bar.quote == "within 5 working days"
    assert bar.deadline == date(2025, 3, 13)  # Fri, Mon, Tue, Wed, Thu


def test_at_least_days_before() -> None:
    (bar,) = run(EN_TEXT, "5.4", party="Meridian Build Ltd", trigger_date=date(2025, 3, 10))
    assert bar.quote == "at least 7 days"
    assert bar.limit_type == "in_advance"
    assert bar.trigger == "before the start of any test"
    assert bar.trigger_relation == "before"
    assert bar.who_side == "us"
    assert bar.deadline == date(2025, 3, 3)


def test_calendar_deadline_over_a_weekend() -> None:
    (bar,) = run(FIDIC, "20.1(a)", trigger_date=date(2025, 1, 3))
    assert bar.deadline == date(2025, 1, 31)
    assert compute_deadline(date(2025, 1, 3), 1, "day", "working") == date(2025, 1, 6)
    assert compute_deadline(date(2025, 1, 31), 1, "month") == date(2025, 2, 28)
    assert compute_deadline(date(2025, 1, 1), 2, "week") == date(2025, 1, 15)


def test_chinese_claims_clause() -> None:
    (bar,) = run(ZH, "15.1", party="乙方")
    assert bar.quote == "28天内"
    assert (bar.value, bar.unit, bar.limit_type) == (28, "day", "within")
    assert bar.trigger == "其知道或者应当知道相关事件之日起"
    assert (bar.who, bar.who_role, bar.who_side) == ("乙方", "contractor", "us")
    assert bar.consequence == "time_bar"
    (reply,) = run(ZH, "15.3", party="乙方")
    assert (reply.value, reply.who, reply.who_side) == (42, "甲方", "them")
    assert reply.trigger == "收到索赔报告后"
    assert reply.consequence == "deemed_rejection"


def test_chinese_deemed_approval_and_loss_of_right() -> None:
    (review,) = run(ZH_TEXT, "1.1")
    assert (review.quote, review.trigger) == ("14天内", "收到变更估价申请后")
    assert review.consequence == "deemed_approval"
    assert review.consequence_quote is not None
    assert review.consequence_quote.startswith("视为")
    (claim,) = run(ZH_TEXT, "1.2", party="承包人")
    assert claim.consequence == "time_bar"
    assert claim.consequence_quote == "丧失要求追加付款的权利"
    assert claim.who_side == "us"
    (notice,) = run(ZH_TEXT, "1.3", trigger_date=date(2025, 5, 10))
    assert (notice.quote, notice.unit, notice.limit_type) == ("提前48小时", "hour", "in_advance")
    assert notice.deadline == date(2025, 5, 8)


def test_negated_deemed_approval_is_not_a_consequence() -> None:
    bars = run(ZH, "7")
    ninety = next(b for b in bars if b.value == 90)
    assert ninety.consequence == "none_stated"  # 不视为认可


@pytest.fixture
def plugin() -> Iterator[None]:
    with registered_plugin(
        DomainPlugin(
            domain_id="test_time_bar",
            name="Test",
            baselines=[
                BaselinePosition(
                    key="20.1",
                    title="Claims",
                    text="The Contractor gives notice of a claim within 28 days after becoming "
                    "aware of the event.",
                )
            ],
        )
    ):
        yield


@pytest.mark.usefixtures("plugin")
def test_shorter_than_standard() -> None:
    claims = PARSER.parse(
        "Clause 20 Claims\n\nSub-Clause 20.1 Contractor's Claims\n"
        "The Contractor shall give notice of a claim within 14 days after becoming aware of "
        "the event, failing which the Contractor shall not be entitled to any additional "
        "time.\n",
        document_id="claims",
    )
    ctx = prepare_context(domain_id="test_time_bar", baselines=get_plugin("test_time_bar"))
    out = handle(TimeBarInput(clause_id="20.1", document_structure=claims, review_context=ctx))
    (bar,) = out.time_bars
    assert out.baseline_key == "20.1"
    assert (bar.standard_days, bar.standard_quote) == (28, "28 days")
    assert bar.shorter_than_standard is True
    assert bar.consequence == "time_bar"
    assert bar.consequence_quote == "shall not be entitled"
    # the sample's own 20.1: 28 days is not shorter; no plugin → None
    (notice, *_) = handle(
        TimeBarInput(clause_id="20.1", document_structure=FIDIC, review_context=ctx)
    ).time_bars
    assert notice.shorter_than_standard is False
    assert run(FIDIC, "20.1")[0].shorter_than_standard is None


def test_document_has_each_limit_once() -> None:
    bars = time_bars_for_document(FIDIC, roles=party_roles(FIDIC, "Contractor"))
    keys = [(b.clause_id, b.start) for b in bars]
    assert len(keys) == len(set(keys))
    by_clause = {b.clause_id: b for b in bars}
    assert by_clause["4.2"].quote == "Within 21 days"  # a lead-in, not a leaf
    assert by_clause["8.1"].quote == "at least 7 days in advance"
    assert by_clause["21.4"].consequence == "final_and_binding"
    assert "20.1(a)" in by_clause
    assert "20.1" not in by_clause
    dated = time_bars_for_document(FIDIC, trigger_dates={"20.1": date(2025, 1, 3)})
    assert [b.deadline for b in dated if b.clause_id == "20.1(a)"] == [date(2025, 1, 31)]
    zh = time_bars_for_document(ZH)
    assert {b.clause_id for b in zh} >= {"15.1", "15.2", "15.3", "17.2"}


def test_unknown_clause_raises() -> None:
    with pytest.raises(SkillError, match="not found"):
        run(FIDIC, "99.9")


def test_through_the_dispatcher() -> None:
    dispatcher = SkillDispatcher()
    dispatcher.register(REGISTRATION)
    state = {"our_party": "Contractor", "domain_id": "fidic"}
    result = asyncio.run(
        dispatcher.prepare_and_call(
            "fidic_calculate_time_bar",
            "20.1",
            FIDIC,
            state,
            llm_arguments={"trigger_date": "2025-01-03"},
        )
    )
    assert result.success, result.error
    first = result.data["time_bars"][0]
    assert first["deadline"] == "2025-01-31"
    assert first["who_side"] == "us"
    assert first["consequence"] == "time_bar"
    bad = asyncio.run(dispatcher.prepare_and_call("fidic_calculate_time_bar", "99", FIDIC, state))
    assert not bad.success
    assert bad.error is not None
    assert "not found" in bad.error
    assert prepare_input("20.1", FIDIC, state).review_context is not None
    tool = REGISTRATION.to_tool_definition()["function"]["parameters"]["properties"]
    assert set(tool) == {"clause_id", "trigger_date"}


def test_consequence_of_a_sibling_sub_clause_does_not_leak() -> None:
    """15.3's deemed rejection belongs to 15.3's own 42-day limit, not to 15.2's 28 days."""
    text = (
        "第十五条 索赔\n"
        "15.2 乙方应在发出通知后28天内提交完整的索赔报告。\n"
        "15.3 甲方应在收到索赔报告后42天内作出答复；甲方逾期未答复的，视为乙方的索赔要求已被拒绝。\n"
    )
    structure = StructureParser().parse(text)
    by_clause = {
        b.clause_id: b.consequence
        for b in time_bars_for_document(structure, roles=party_roles(structure, "乙方"))
    }
    assert by_clause == {"15.2": "none_stated", "15.3": "deemed_rejection"}
