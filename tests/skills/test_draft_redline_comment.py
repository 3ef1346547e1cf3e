"""draft_redline_comment: minimal, verbatim redlines and comments, English and Chinese."""

from __future__ import annotations

import asyncio
from functools import cache
from typing import Any

import pytest

from contract_review.analysis.drafting import RedlineStrategy
from contract_review.errors import SkillError
from contract_review.models import (
    ActionType,
    ClauseNode,
    DefinedTerm,
    DocumentDiff,
    DocumentStructure,
    RiskLevel,
    RiskPoint,
    TextLocation,
)
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.local import draft_redline_comment as drc
from contract_review.skills.local.draft_redline_comment import (
    DraftRedlineInput,
    DraftRedlineOutput,
)
from contract_review.skills.schema import SkillResult
from contract_review.skills.state import review_context
from contract_review.structure_parser import StructureParser
from tests.conftest import EXAMPLES

# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


@cache
def fidic() -> DocumentStructure:
    text = (EXAMPLES / "fidic" / "particular_conditions_en.txt").read_text(encoding="utf-8")
    return StructureParser().parse(text)


@cache
def cn() -> DocumentStructure:
    text = (EXAMPLES / "cn" / "construction_contract_zh.txt").read_text(encoding="utf-8")
    return StructureParser().parse(text)


def one_clause(
    heading: str,
    body: str,
    *,
    clause_id: str = "5.1",
    number: str = "Clause 5.1",
    offset: int = 100,
    definitions: dict[str, DefinedTerm] | None = None,
) -> DocumentStructure:
    """A structure with one clause starting at `offset` (so offsets are really absolute)."""
    text = f"{heading}\n{body}"
    clause = ClauseNode(
        clause_id=clause_id,
        number=number,
        text=text,
        start_offset=offset,
        end_offset=offset + len(text),
        body_offset=offset + len(heading) + 1,
    )
    return DocumentStructure(
        document_id="doc",
        clauses=[clause],
        total_clauses=1,
        text_length=offset + len(text),
        definitions=definitions or {},
    )


def make_risk(
    clause_id: str,
    quote: str,
    risk_type: str,
    description: str = "",
    reason: str = "",
    level: RiskLevel = RiskLevel.HIGH,
) -> RiskPoint:
    return RiskPoint(
        id="risk-1",
        clause_id=clause_id,
        risk_level=level,
        risk_type=risk_type,
        description=description,
        reason=reason,
        location=TextLocation(clause_id=clause_id, original_text=quote),
    )


def draft(
    structure: DocumentStructure,
    clause_id: str,
    quote: str,
    risk_type: str,
    *,
    description: str = "",
    reason: str = "",
    instruction: str = "",
    proposed_text: str | None = None,
    state: dict[str, Any] | None = None,
) -> DraftRedlineOutput:
    inp = DraftRedlineInput(
        clause_id=clause_id,
        risk=make_risk(clause_id, quote, risk_type, description, reason),
        instruction=instruction,
        proposed_text=proposed_text,
        document_structure=structure,
        review_context=review_context(
            state if state is not None else {"our_party": "Contractor"}, structure=structure
        ),
    )
    return drc.handle(inp)


def clause_of(structure: DocumentStructure, clause_id: str) -> ClauseNode:
    clause = structure.get_clause(clause_id)
    assert clause is not None
    return clause


def apply(clause: ClauseNode, diff: DocumentDiff) -> str:
    """The clause text after the diff (edit at start_offset, checked to be verbatim)."""
    i = diff.start_offset - clause.start_offset if diff.start_offset is not None else -1
    o = diff.original_text
    assert o
    assert clause.text[i : i + len(o)] == o, "original_text is not verbatim at start_offset"
    assert clause.text.find(o) >= 0
    assert diff.proposed_text != o
    if diff.action_type is ActionType.INSERT:
        return clause.text[: i + len(o)] + diff.proposed_text + clause.text[i + len(o) :]
    return clause.text[:i] + diff.proposed_text + clause.text[i + len(o) :]


def the_diff(out: DraftRedlineOutput) -> DocumentDiff:
    assert out.diff is not None, out.comment
    assert out.diff.risk_id == "risk-1"
    assert out.diff.reason == out.comment
    return out.diff


def dispatcher() -> SkillDispatcher:
    d = SkillDispatcher()
    d.register(drc.REGISTRATION)
    return d


def call(
    structure: DocumentStructure,
    clause_id: str,
    llm_arguments: dict[str, Any],
    state: dict[str, Any] | None = None,
) -> SkillResult:
    return asyncio.run(
        dispatcher().prepare_and_call(
            drc.SKILL_ID,
            clause_id,
            structure,
            state if state is not None else {"our_party": "Contractor", "language": "en"},
            llm_arguments=llm_arguments,
        )
    )


def risk_args(clause_id: str, quote: str, risk_type: str, description: str = "") -> dict[str, Any]:
    """A risk as an LLM passes it (JSON)."""
    return {
        "id": "risk-1",
        "clause_id": clause_id,
        "risk_level": "high",
        "risk_type": risk_type,
        "description": description,
        "location": {"original_text": quote},
    }


EN_NOTICE = "The Contractor shall give notice of a claim within 14 days after the event."
ZH_NOTICE = "承包人应在索赔事件发生后14天内向发包人发出索赔通知。"

# --------------------------------------------------------------------------------------------
# Periods: only the number changes
# --------------------------------------------------------------------------------------------


def test_period_default_changes_only_the_number_en() -> None:
    s = one_clause("Clause 5.1 Notices", EN_NOTICE)
    out = draft(
        s, "5.1", "within 14 days after the event", "notice period", description="Too short."
    )
    diff = the_diff(out)
    clause = clause_of(s, "5.1")
    assert out.strategy is RedlineStrategy.PERIOD
    assert (diff.action_type, diff.original_text, diff.proposed_text) == (
        ActionType.REPLACE,
        "14",
        "28",
    )
    assert diff.start_offset == 100 + clause.text.index("14")
    assert apply(clause, diff) == clause.text.replace("within 14 days", "within 28 days")
    assert 'change "14 days" to "28 days"' in out.comment
    assert "the Contractor" in out.comment
    assert out.language == "en"


def test_period_words_form_changes_words_and_figure() -> None:
    body = "Fourteen (14) days after the event, the Contractor shall give notice of it."
    s = one_clause("Clause 5.1 Notices", body)
    out = draft(s, "5.1", "Fourteen (14) days after the event", "time bar")
    diff = the_diff(out)
    assert (diff.original_text, diff.proposed_text) == ("Fourteen (14)", "Twenty-eight (28)")
    assert apply(clause_of(s, "5.1"), diff).endswith(
        "Twenty-eight (28) days after the event, the Contractor shall give notice of it."
    )


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        ("use 42 days", "42"),
        ("Rejected: 56 days is too long for the Employer, use 42 days", "42"),
        ("extend to 56 days", "56"),
        ("延长至35天", "35"),
    ],
)
def test_period_instruction_overrides_default(instruction: str, expected: str) -> None:
    s = one_clause("Clause 5.1 Notices", EN_NOTICE)
    out = draft(s, "5.1", EN_NOTICE, "notice period too short", instruction=instruction)
    diff = the_diff(out)
    assert (diff.original_text, diff.proposed_text) == ("14", expected)
    assert out.notes == []


def test_period_instruction_names_which_period() -> None:
    body = "Notice shall be given within 14 days, and particulars within 30 days, of the event."
    s = one_clause("Clause 5.1 Notices", body)
    out = draft(s, "5.1", body, "claims procedure", instruction="change 30 days to 60 days")
    diff = the_diff(out)
    assert (diff.original_text, diff.proposed_text) == ("30", "60")
    assert diff.start_offset == 100 + clause_of(s, "5.1").text.index("30")


def test_period_too_long_goes_down() -> None:
    s = fidic()
    quote = "no later than 56 days from the date on which the complete statement"
    out = draft(s, "14.7", quote, "payment period", description="The payment period is too long.")
    diff = the_diff(out)
    clause = clause_of(s, "14.7")
    assert (diff.original_text, diff.proposed_text) == ("56", "42")
    assert "no later than 42 days from the date" in apply(clause, diff)


def test_period_default_zh_digits_and_numerals() -> None:
    s = one_clause("第五条 索赔", ZH_NOTICE, clause_id="5", number="第五条")
    out = draft(s, "5", ZH_NOTICE, "索赔通知期限过短", state={"our_party": "承包人"})
    diff = the_diff(out)
    assert (diff.original_text, diff.proposed_text) == ("14", "28")
    assert apply(clause_of(s, "5"), diff).endswith(
        "承包人应在索赔事件发生后28天内向发包人发出索赔通知。"
    )
    assert out.language == "zh-CN"
    assert "将“14天”修改为“28天”" in out.comment
    assert "承包人" in out.comment

    body = "承包人应在索赔事件发生后十四日内发出索赔通知。"
    s2 = one_clause("第五条 索赔", body, clause_id="5", number="第五条")
    diff2 = the_diff(draft(s2, "5", body, "索赔时效", state={"our_party": "承包人"}))
    assert (diff2.original_text, diff2.proposed_text) == ("十四", "二十八")


def test_period_zh_skips_dates_and_follows_instruction() -> None:
    body = "乙方应于每月25日前提交报告，监理人应在收到报告后7天内完成审核。"
    s = one_clause("第五条 进度款", body, clause_id="5", number="第五条")
    out = draft(s, "5", body, "审核期限", instruction="改为5天", state={"our_party": "乙方"})
    diff = the_diff(out)
    assert (diff.original_text, diff.proposed_text) == ("7", "5")
    assert apply(clause_of(s, "5"), diff).endswith("监理人应在收到报告后5天内完成审核。")


# --------------------------------------------------------------------------------------------
# Caps
# --------------------------------------------------------------------------------------------

EN_INDEMNITY = (
    "The Contractor shall indemnify the Employer against all losses arising from the Works."
)
ZH_INDEMNITY = "承包人应赔偿发包人因此遭受的全部损失。"


@pytest.mark.parametrize(
    ("instruction", "cap"),
    [
        # no price term in the contract: plain words, no capitalised term it does not define
        ("", "[●]% of the contract price"),
        ("cap at 100% of the Contract Price", "100% of the Contract Price"),
    ],
)
def test_cap_inserted_after_last_sentence_en(instruction: str, cap: str) -> None:
    s = one_clause("Clause 9 Indemnity", EN_INDEMNITY, clause_id="9", number="Clause 9")
    out = draft(
        s,
        "9",
        "indemnify the Employer against all losses",
        "uncapped liability",
        instruction=instruction,
    )
    diff = the_diff(out)
    sentence = f" The Contractor's total liability under this Clause shall not exceed {cap}."
    assert out.strategy is RedlineStrategy.CAP
    assert (diff.action_type, diff.original_text, diff.proposed_text) == (
        ActionType.INSERT,
        EN_INDEMNITY,
        sentence,
    )
    assert apply(clause_of(s, "9"), diff) == f"Clause 9 Indemnity\n{EN_INDEMNITY}{sentence}"


@pytest.mark.parametrize(
    ("instruction", "cap"), [("", "合同价款的[●]%"), ("上限为合同价款的30%", "合同价款的30%")]
)
def test_cap_inserted_after_last_sentence_zh(instruction: str, cap: str) -> None:
    s = one_clause("第九条 赔偿", ZH_INDEMNITY, clause_id="9", number="第九条")
    out = draft(
        s,
        "9",
        ZH_INDEMNITY,
        "赔偿责任无上限",
        instruction=instruction,
        state={"our_party": "承包人"},
    )
    diff = the_diff(out)
    assert (diff.action_type, diff.original_text, diff.proposed_text) == (
        ActionType.INSERT,
        ZH_INDEMNITY,
        f"承包人在本条项下的累计责任不超过{cap}。",
    )
    assert "为承包人的责任设定上限" in out.comment


@pytest.mark.parametrize(
    ("instruction", "cap"),
    [
        ("Cap at 20% of the Accepted Contract Amount", "20% of the Accepted Contract Amount"),
        ("Rejected: the cap should be 50% of the Contract Price.", "50% of the Contract Price"),
        ("15%", "15% of the Accepted Contract Amount"),
    ],
)
def test_cap_value_from_reviewer_feedback(instruction: str, cap: str) -> None:
    s = fidic()
    quote = "The total amount of delay damages shall not be subject to any maximum."
    out = draft(s, "8.8", quote, "uncapped delay damages", instruction=instruction)
    diff = the_diff(out)
    assert (diff.original_text, diff.proposed_text) == (
        "be subject to any maximum",
        f"exceed {cap}",
    )
    assert out.notes == []


def test_cap_without_our_party_uses_a_placeholder() -> None:
    s = one_clause("Clause 9 Indemnity", EN_INDEMNITY, clause_id="9", number="Clause 9")
    out = draft(s, "9", EN_INDEMNITY, "uncapped liability", state={})
    assert the_diff(out).proposed_text == (
        " The [party]'s total liability under this Clause shall not exceed [●]% of the "
        "contract price."
    )
    assert "limits our party's exposure" in out.comment


def test_cap_replaces_no_maximum_wording_zh_sample() -> None:
    s = cn()
    out = draft(
        s,
        "16",
        "违约金总额不设上限",
        "逾期竣工违约金无上限",
        description="违约金总额不设上限",
        state={"our_party": "恒筑建设集团有限公司"},
    )
    diff = the_diff(out)
    assert (diff.action_type, diff.original_text, diff.proposed_text) == (
        ActionType.REPLACE,
        "设上限",
        "超过合同价款的[●]%",
    )
    assert "违约金总额不超过合同价款的[●]%。" in apply(clause_of(s, "16"), diff)
    # Our party is named by its company name; the definition of 承包人 says it is 乙方, which is
    # how clause 16 names it.
    assert "为乙方的责任设定上限" in out.comment


# --------------------------------------------------------------------------------------------
# Risk transfer → fault-based
# --------------------------------------------------------------------------------------------


def test_fault_based_qualifier_en_sample() -> None:
    s = fidic()
    clause = clause_of(s, "17.1")
    quote = "anything lost or damaged during that period, whatever the cause"
    out = draft(s, "17.1", quote, "risk transfer", description="All risk sits with us.")
    diff = the_diff(out)
    assert out.strategy is RedlineStrategy.FAULT_BASED
    assert (diff.original_text, diff.proposed_text) == (
        "whatever the cause",
        "to the extent caused by the Contractor's breach or negligence",
    )
    assert apply(clause, diff).endswith(
        "during that period, to the extent caused by the Contractor's breach or negligence."
    )
    [alt] = out.alternatives
    assert (alt.action_type, alt.original_text) == (ActionType.DELETE, ", whatever the cause")
    assert apply(clause, alt).endswith("anything lost or damaged during that period.")


def test_fault_based_qualifier_en_regardless_of_cause() -> None:
    body = "The Supplier shall bear all loss of the Goods in transit regardless of cause."
    s = one_clause("Clause 7 Risk", body, clause_id="7", number="Clause 7")
    out = draft(s, "7", body, "risk allocation", state={"our_party": "the Supplier"})
    diff = the_diff(out)
    assert (diff.original_text, diff.proposed_text) == (
        "regardless of cause",
        "to the extent caused by the Supplier's breach or negligence",
    )


def test_fault_based_qualifier_zh_sample() -> None:
    s = cn()
    quote = "施工期间发生的一切安全事故，无论因何原因造成，均由乙方承担全部责任。"
    out = draft(s, "12", quote, "安全责任风险转移", state={"our_party": "承包人"})
    diff = the_diff(out)
    clause = clause_of(s, "12")
    assert (diff.original_text, diff.proposed_text) == ("无论因何", "因乙方")
    assert apply(clause, diff).endswith(
        "施工期间发生的一切安全事故，因乙方原因造成，均由乙方承担全部责任。"
    )
    [alt] = out.alternatives
    assert apply(clause, alt).endswith("施工期间发生的一切安全事故，均由乙方承担全部责任。")


def test_delete_instruction_on_a_phrase_deletes_only_the_phrase() -> None:
    s = fidic()
    quote = "anything lost or damaged during that period, whatever the cause."
    out = draft(s, "17.1", quote, "risk transfer", instruction="delete the phrase")
    diff = the_diff(out)
    assert out.strategy is RedlineStrategy.DELETE
    assert (diff.action_type, diff.original_text, diff.proposed_text) == (
        ActionType.DELETE,
        ", whatever the cause",
        "",
    )


# --------------------------------------------------------------------------------------------
# Sole discretion → reasonableness
# --------------------------------------------------------------------------------------------


def test_sole_opinion_becomes_acting_reasonably_en_sample() -> None:
    s = fidic()
    clause = clause_of(s, "4.2(b)(ii)")
    quote = "for any amount which the Employer, in its sole opinion, considers to be due"
    out = draft(s, "4.2(b)(ii)", quote, "sole discretion on calls")
    diff = the_diff(out)
    assert out.strategy is RedlineStrategy.REASONABLENESS
    assert (diff.original_text, diff.proposed_text) == ("in its sole opinion", "acting reasonably")
    assert "which the Employer, acting reasonably, considers to be due" in apply(clause, diff)
    [alt] = out.alternatives
    assert "which the Employer considers to be due" in apply(clause, alt)


def test_unilateral_decision_zh() -> None:
    body = "甲方有权单方决定暂停支付进度款。"
    s = one_clause("第八条 付款", body, clause_id="8", number="第八条")
    out = draft(s, "8", body, "甲方单方决定", state={"our_party": "乙方"})
    diff = the_diff(out)
    assert (diff.original_text, diff.proposed_text) == ("单方", "合理")
    assert apply(clause_of(s, "8"), diff).endswith("甲方有权合理决定暂停支付进度款。")


def test_as_necessary_zh_sample_is_an_insert() -> None:
    s = cn()
    out = draft(
        s,
        "10",
        "甲方认为必要时，可书面通知乙方暂停施工",
        "甲方单方暂停施工",
        state={"our_party": "乙方"},
    )
    diff = the_diff(out)
    assert (diff.action_type, diff.original_text, diff.proposed_text) == (
        ActionType.INSERT,
        "甲方",
        "有合理理由",
    )
    assert "\n甲方有合理理由认为必要时，可书面通知乙方暂停施工" in apply(clause_of(s, "10"), diff)


# --------------------------------------------------------------------------------------------
# Percentages
# --------------------------------------------------------------------------------------------


def test_retention_cap_percentage_en_sample() -> None:
    s = fidic()
    clause = clause_of(s, "14.9")
    quote = (
        "The Employer shall retain 10% of each interim payment until the total amount retained "
        "reaches 5% of the Accepted Contract Amount."
    )
    out = draft(s, "14.9", quote, "retention too high")
    diff = the_diff(out)
    assert out.strategy is RedlineStrategy.PERCENTAGE
    assert (diff.original_text, diff.proposed_text) == ("5", "3")
    assert diff.start_offset == clause.start_offset + clause.text.index("5% of the Accepted")
    assert "reaches 3% of the Accepted Contract Amount" in apply(clause, diff)
    assert [(a.original_text, a.proposed_text) for a in out.alternatives] == [("10", "3")]


def test_percentage_instruction_en() -> None:
    s = fidic()
    quote = "until the total amount retained reaches 5% of the Accepted Contract Amount"
    out = draft(s, "14.9", quote, "retention", instruction="reduce to 2.5%")
    diff = the_diff(out)
    assert (diff.original_text, diff.proposed_text) == ("5", "2.5")


@pytest.mark.parametrize(("instruction", "expected"), [("", "0.05"), ("改为0.1%", "0.1")])
def test_delay_damages_rate_zh_sample(instruction: str, expected: str) -> None:
    s = cn()
    quote = "每逾期一天，应按合同价款的0.5%向甲方支付逾期竣工违约金"
    out = draft(
        s,
        "16",
        quote,
        "逾期竣工违约金比例过高",
        instruction=instruction,
        state={"our_party": "乙方"},
    )
    diff = the_diff(out)
    assert (diff.original_text, diff.proposed_text) == ("0.5", expected)
    assert f"应按合同价款的{expected}%向甲方支付" in apply(clause_of(s, "16"), diff)


def test_percentage_in_chinese_numerals() -> None:
    body = "发包人应按合同价款的百分之五预留质量保证金。"
    s = one_clause("第六条 质量保证金", body, clause_id="6", number="第六条")
    diff = the_diff(draft(s, "6", body, "质量保证金比例过高", state={"our_party": "承包人"}))
    assert (diff.original_text, diff.proposed_text) == ("五", "三")


# --------------------------------------------------------------------------------------------
# Deletion, explicit wording, instructions that quote the words
# --------------------------------------------------------------------------------------------


def test_delete_instruction_deletes_the_quoted_sentence_en() -> None:
    s = fidic()
    clause = clause_of(s, "8.8")
    quote = "The total amount of delay damages shall not be subject to any maximum."
    out = draft(s, "8.8", quote, "uncapped delay damages", instruction="delete")
    diff = the_diff(out)
    assert (diff.action_type, diff.original_text, diff.proposed_text) == (
        ActionType.DELETE,
        quote + " ",
        "",
    )
    assert apply(clause, diff) == clause.text.replace(quote + " ", "")


def test_delete_instruction_zh_keeps_the_full_stop() -> None:
    s = cn()
    quote = "乙方施工机械设备的损坏及停工损失，由乙方自行承担。"
    out = draft(
        s, "17.3", quote, "不可抗力损失分担", instruction="删除", state={"our_party": "乙方"}
    )
    diff = the_diff(out)
    assert diff.action_type is ActionType.DELETE
    assert diff.original_text == "；乙方施工机械设备的损坏及停工损失，由乙方自行承担"
    assert apply(clause_of(s, "17.3"), diff) == "17.3 因不可抗力造成的工期延误，工期相应顺延。"


def test_instruction_quoting_words_to_delete() -> None:
    s = fidic()
    quote = "for any amount which the Employer, in its sole opinion, considers to be due"
    out = draft(s, "4.2(b)(ii)", quote, "discretion", instruction='delete "in its sole opinion"')
    diff = the_diff(out)
    assert out.strategy is RedlineStrategy.INSTRUCTION_EDIT
    assert (diff.action_type, diff.original_text) == (ActionType.DELETE, ", in its sole opinion,")


def test_instruction_replace_and_insert() -> None:
    s = fidic()
    quote = "for any amount which the Employer, in its sole opinion, considers to be due"
    out = draft(
        s,
        "4.2(b)(ii)",
        quote,
        "discretion",
        instruction='replace "sole opinion" with "reasonable opinion"',
    )
    diff = the_diff(out)
    assert (diff.original_text, diff.proposed_text) == ("sole", "reasonable")

    out2 = draft(
        s,
        "4.2(b)(ii)",
        quote,
        "discretion",
        instruction='insert "acting in good faith," after "the Employer,"',
    )
    diff2 = the_diff(out2)
    assert (diff2.action_type, diff2.original_text, diff2.proposed_text) == (
        ActionType.INSERT,
        "the Employer,",
        " acting in good faith,",
    )

    zh = cn()
    out3 = draft(
        zh,
        "16",
        "违约金总额不设上限",
        "违约金",
        instruction="将“不设上限”改为“以合同价款的10%为上限”",
        state={"our_party": "乙方"},
    )
    diff3 = the_diff(out3)
    assert (diff3.original_text, diff3.proposed_text) == ("不设", "以合同价款的10%为")  # minimal
    assert "违约金总额以合同价款的10%为上限。" in apply(clause_of(zh, "16"), diff3)


def test_proposed_text_is_trimmed_to_the_smallest_span_en() -> None:
    s = one_clause("Clause 5.1 Notices", EN_NOTICE)
    clause = clause_of(s, "5.1")
    out = draft(
        s,
        "5.1",
        "give notice of a claim within 14 days after the event",
        "notice",
        proposed_text="give notice of a claim within 21 days after the event",
    )
    diff = the_diff(out)
    assert out.strategy is RedlineStrategy.PROPOSED_TEXT
    assert (diff.original_text, diff.proposed_text) == ("14", "21")

    ins = the_diff(
        draft(
            s,
            "5.1",
            "give notice of a claim within",
            "notice",
            proposed_text="give written notice of a claim within",
        )
    )
    assert (ins.action_type, ins.original_text, ins.proposed_text) == (
        ActionType.INSERT,
        "give",
        " written",
    )
    assert "shall give written notice of a claim" in apply(clause, ins)

    dele = the_diff(
        draft(s, "5.1", "notice of a claim within", "notice", proposed_text="notice within")
    )
    assert (dele.action_type, dele.original_text) == (ActionType.DELETE, "of a claim ")
    assert "shall give notice within 14 days" in apply(clause, dele)


def test_proposed_text_is_trimmed_by_characters_zh() -> None:
    s = cn()
    quote = "乙方施工机械设备的损坏及停工损失，由乙方自行承担。"
    out = draft(
        s, "17.3", quote, "损失分担", proposed_text="乙方施工机械设备的损坏及停工损失，由甲方承担。"
    )
    diff = the_diff(out)
    assert (diff.original_text, diff.proposed_text) == ("乙方自行", "甲方")
    assert apply(clause_of(s, "17.3"), diff).endswith("停工损失，由甲方承担。")


def test_proposed_text_insertion_zh_is_anchored_on_preceding_text() -> None:
    body = "甲方应支付进度款。乙方应继续施工。"
    s = one_clause("第五条 付款", body, clause_id="5", number="第五条")
    out = draft(s, "5", "乙方应继续施工", "停工权", proposed_text="如甲方按期付款，乙方应继续施工")
    diff = the_diff(out)
    assert (diff.action_type, diff.original_text, diff.proposed_text) == (
        ActionType.INSERT,
        "方应支付进度款。",
        "如甲方按期付款，",
    )
    assert apply(clause_of(s, "5"), diff).endswith(
        "甲方应支付进度款。如甲方按期付款，乙方应继续施工。"
    )


def test_proposed_text_identical_to_quote_is_an_error() -> None:
    s = one_clause("Clause 5.1 Notices", EN_NOTICE)
    with pytest.raises(SkillError, match="identical"):
        draft(s, "5.1", "within 14 days", "notice", proposed_text="within 14 days")


# --------------------------------------------------------------------------------------------
# Comment-only fallback, language, determinism
# --------------------------------------------------------------------------------------------


def test_no_rule_gives_a_comment_without_diff() -> None:
    s = fidic()
    quote = "fit for every purpose for which the Employer may wish to use them"
    out = draft(
        s,
        "4.1",
        quote,
        "fitness for purpose",
        description="The purpose is open-ended",
        instruction="make it mutual",
    )
    assert out.strategy is RedlineStrategy.COMMENT_ONLY
    assert out.diff is None
    assert out.alternatives == []
    assert "Reviewer's request: make it mutual." in out.comment
    assert "the Contractor should negotiate" in out.comment
    assert out.notes  # the instruction could not be applied
    clause = clause_of(s, "4.1")
    assert out.quote.original_text == quote
    assert out.quote.start_offset == clause.start_offset + clause.text.index(quote)

    zh = cn()
    out_zh = draft(
        zh,
        "19",
        "本合同自双方法定代表人或其委托代理人签字并加盖公章之日起生效",
        "生效条件",
        state={},
    )
    assert out_zh.diff is None
    assert out_zh.language == "zh-CN"
    assert "建议我方就此条款进行协商" in out_zh.comment


def test_without_limitation_is_not_a_missing_cap() -> None:
    s = fidic()
    quote = 'the word "including" is to be read as if it were followed by the words "without limitation"'
    out = draft(s, "1.2(b)", quote, "unclear wording")
    assert out.strategy is RedlineStrategy.COMMENT_ONLY
    assert out.diff is None


def test_comment_follows_review_language_when_set() -> None:
    s = fidic()
    out = draft(
        s,
        "14.7",
        "no later than 56 days",
        "payment period too long",
        state={"our_party": "Contractor", "language": "zh-CN"},
    )
    assert out.language == "zh-CN"
    assert "修改建议：将“56 days”修改为“42 days”" in out.comment
    assert the_diff(out).proposed_text == "42"  # the contract text stays English


def test_diff_id_is_deterministic() -> None:
    s = one_clause("Clause 5.1 Notices", EN_NOTICE)
    a = the_diff(draft(s, "5.1", EN_NOTICE, "notice period"))
    b = the_diff(draft(s, "5.1", EN_NOTICE, "notice period"))
    c = the_diff(draft(s, "5.1", EN_NOTICE, "notice period", instruction="use 42 days"))
    assert a.diff_id == b.diff_id
    assert a.diff_id != c.diff_id


def test_fuzzy_quote_whitespace_is_noted() -> None:
    s = one_clause("Clause 5.1 Notices", EN_NOTICE)
    out = draft(s, "5.1", "within  14\ndays after", "notice period")
    assert the_diff(out).original_text == "14"
    assert out.quote.original_text == "within 14 days after"
    assert out.notes == ["the quote matched the clause only when whitespace is ignored"]


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_errors() -> None:
    s = one_clause("Clause 5.1 Notices", EN_NOTICE)
    with pytest.raises(SkillError, match=r"^quote not found in clause 5\.1"):
        draft(s, "5.1", "within 21 days", "notice")
    with pytest.raises(SkillError, match=r"clause '9\.9' not found"):
        draft(s, "9.9", "within 14 days", "notice")
    with pytest.raises(SkillError, match="from the instruction"):
        draft(s, "5.1", "within 14 days", "notice", instruction='replace "30 days" with "60 days"')
    no_quote = RiskPoint(
        id="r", clause_id="5.1", risk_level=RiskLevel.LOW, risk_type="x", description="y"
    )
    with pytest.raises(SkillError, match="has no quote"):
        drc.handle(DraftRedlineInput(clause_id="5.1", risk=no_quote, document_structure=s))
    with pytest.raises(SkillError, match="no document structure"):
        drc.handle(DraftRedlineInput(clause_id="5.1", risk=no_quote))


# --------------------------------------------------------------------------------------------
# Through the dispatcher (risk comes in the LLM's arguments)
# --------------------------------------------------------------------------------------------


def test_dispatcher_fidic_20_1_time_bar_with_instruction() -> None:
    s = fidic()
    clause = clause_of(s, "20.1")
    quote = "If that notice is not sent within the 28-day period"
    result = call(
        s,
        "20.1",
        {
            "risk": risk_args("20.1", quote, "time bar", "Late notice bars the claim."),
            "instruction": "extend to 56 days",
        },
    )
    assert result.success, result.error
    diff = DocumentDiff.model_validate(result.data["diff"])
    assert result.data["strategy"] == "period"
    assert (diff.original_text, diff.proposed_text) == ("28", "56")
    assert diff.start_offset == clause.start_offset + clause.text.index("28-day period")
    assert "within the 56-day period" in apply(clause, diff)
    related = [DocumentDiff.model_validate(d) for d in result.data["related"]]
    assert [(d.original_text, d.proposed_text) for d in related] == [("28", "56")]
    assert "not later than 56 days after" in apply(clause, related[0])


def test_dispatcher_fidic_20_1_rejection_feedback() -> None:
    s = fidic()
    quote = "not later than 28 days after the Contractor first knew"
    result = call(
        s,
        "20.1",
        {
            "risk": risk_args("20.1", quote, "time bar"),
            "instruction": "Rejected: 56 days will not be accepted, use 42 days",
        },
    )
    assert result.success, result.error
    assert result.data["diff"]["original_text"] == "28"
    assert result.data["diff"]["proposed_text"] == "42"


def test_dispatcher_fidic_8_8_uncapped_delay_damages() -> None:
    s = fidic()
    clause = clause_of(s, "8.8")
    quote = "The total amount of delay damages shall not be subject to any maximum."
    result = call(s, "8.8", {"risk": risk_args("8.8", quote, "uncapped delay damages")})
    assert result.success, result.error
    diff = DocumentDiff.model_validate(result.data["diff"])
    assert result.data["strategy"] == "cap"
    assert (diff.original_text, diff.proposed_text) == (
        "be subject to any maximum",
        "exceed [●]% of the Accepted Contract Amount",
    )
    assert (
        "The total amount of delay damages shall not exceed [●]% of the Accepted Contract Amount."
        in apply(clause, diff)
    )


def test_dispatcher_cn_retention_5_percent() -> None:
    s = cn()
    clause = clause_of(s, "6.1")
    quote = "甲方应在每期进度款中按已完工程价款的5%预留质量保证金，累计预留至合同价款的5%为止"
    result = call(
        s,
        "6.1",
        {
            "risk": risk_args(
                "6.1", quote, "质量保证金比例过高", "质量保证金超过工程价款结算总额的3%"
            )
        },
        state={"our_party": "承包人"},
    )
    assert result.success, result.error
    diff = DocumentDiff.model_validate(result.data["diff"])
    assert (diff.original_text, diff.proposed_text) == ("5", "3")
    assert diff.start_offset == clause.start_offset + clause.text.index("5%为止")
    assert "累计预留至合同价款的3%为止" in apply(clause, diff)
    assert result.data["language"] == "zh-CN"
    assert result.data["comment"].startswith("高风险——质量保证金比例过高：")


def test_dispatcher_errors() -> None:
    s = fidic()
    bad = call(s, "8.8", {"risk": risk_args("8.8", "shall be subject to a maximum", "cap")})
    assert not bad.success
    assert bad.error is not None
    assert bad.error.startswith("quote not found in clause 8.8")

    no_risk = call(s, "8.8", {})
    assert not no_risk.success
    assert no_risk.error is not None
    assert "risk is required" in no_risk.error

    only_instruction = call(s, "8.8", {"instruction": "delete"})
    assert not only_instruction.success
    assert only_instruction.error is not None
    assert "risk" in only_instruction.error


def test_tool_definition_requires_risk_and_hides_internal_fields() -> None:
    params = drc.REGISTRATION.to_tool_definition()["function"]["parameters"]
    assert params["required"] == ["clause_id", "risk"]
    assert set(params["properties"]) == {"clause_id", "risk", "instruction", "proposed_text"}
    assert "ReviewContext" not in str(params)
    assert "DocumentStructure" not in str(params)


# --------------------------------------------------------------------------------------------
# Invariants over every clause of both samples
# --------------------------------------------------------------------------------------------

RISK_TYPES = (
    "uncapped liability",
    "notice period too short",
    "payment period too long",
    "retention too high",
    "sole discretion",
    "risk regardless of cause",
    "unclear wording",
)


@pytest.mark.parametrize("structure", [fidic, cn], ids=["fidic", "cn"])
def test_every_diff_is_verbatim_minimal_and_inside_the_clause(
    structure: Any,
) -> None:
    s: DocumentStructure = structure()
    produced = 0
    for clause in s.iter_clauses():
        quote = clause.body.strip()
        if not quote:
            continue
        for risk_type in RISK_TYPES:
            out = draft(s, clause.clause_id, quote, risk_type)
            for diff in [d for d in [out.diff] if d] + out.alternatives + out.related:
                produced += 1
                assert diff.clause_id == clause.clause_id
                assert diff.start_offset is not None
                local = diff.start_offset - clause.start_offset
                assert local >= 0
                assert local + len(diff.original_text) <= len(clause.text)
                apply(clause, diff)
                if diff.action_type is ActionType.DELETE:
                    assert diff.proposed_text == ""
                else:
                    assert diff.proposed_text.strip()
            assert out.comment
    assert produced > 20
