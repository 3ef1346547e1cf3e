"""compare_with_baseline: alignment, word diff, changed numbers, status, baseline sources."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from contract_review.analysis.baseline import diff_texts, numbers_in
from contract_review.errors import SkillError
from contract_review.models import DocumentRole, DocumentStructure, TaskDocument
from contract_review.plugins.registry import (
    BaselinePosition,
    DomainPlugin,
    get_plugin,
)
from contract_review.skills.context import prepare_context
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.local.compare_with_baseline import (
    REGISTRATION,
    CompareWithBaselineInput,
    CompareWithBaselineOutput,
    compare_cached,
    handle,
)
from contract_review.structure_parser import StructureParser
from tests.conftest import registered_plugin
from tests.skills.conditions_zh import GC_ZH, PC_ZH

PARSER = StructureParser()

GC_EN = """GENERAL CONDITIONS

Employer: Harbour Authority
Contractor: Meridian Build Ltd

Clause 8 Time

Sub-Clause 8.1 Commencement
The Engineer shall give the Contractor not less than 7 days' notice of the Commencement Date.

Sub-Clause 8.2 Time for Completion
The Contractor shall complete the Works within the Time for Completion.

Clause 14 Payment

Sub-Clause 14.2 Advance Payment
The Employer shall make an advance payment of 10% of the Accepted Contract Amount.

Sub-Clause 14.5 Plant and Materials
The Contractor shall be entitled to payment for Plant delivered to the Site.

Sub-Clause 14.9 Retention
The Employer may retain 5% of each interim payment, up to USD 1,000,000.

Clause 20 Claims

Sub-Clause 20.1 Contractor's Claims
If the Contractor considers himself entitled to an extension of the Time for Completion, the Contractor shall give notice to the Engineer within 28 days after becoming aware of the event. The Employer shall respond within 42 days.

Sub-Clause 20.2 Amicable Settlement
The Parties shall attempt to settle any dispute amicably.
"""

PC_EN = """PARTICULAR CONDITIONS

Employer: Harbour Authority
Contractor: Meridian Build Ltd

Clause 8 Time

Sub-Clause 8.1 Commencement
The Engineer shall give the Contractor not less than 7 days' notice of the Commencement Date.

Sub-Clause 8.2 Time for Completion
The Contractor shall complete the Works within the Time for Completion.

Sub-Clause 8.3 Programme
The Contractor shall submit a programme within 14 days.

Clause 14 Payment

Sub-Clause 14.2 Advance Payment
The Employer shall make an advance payment of 10% of the Accepted Contract Amount.

Sub-Clause 14.5 [Deleted]

Sub-Clause 14.9 Retention
The Employer may retain 10% of each interim payment, up to USD 2 million.

Clause 20 Claims

Sub-Clause 20.1 Contractor's Claims
If the Contractor considers himself entitled to an extension of the Time for Completion, the Contractor shall give notice to the Engineer within 14 days after becoming aware of the event, regardless of cause. The Employer shall respond within 6 weeks.

Sub-Clause 20.4 Amicable Settlement of Disputes
The Parties shall attempt to settle any dispute amicably.
"""


def parse(text: str, doc_id: str) -> DocumentStructure:
    return PARSER.parse(text, document_id=doc_id)


GC = parse(GC_EN, "gc")
PC = parse(PC_EN, "pc")
GCZ = parse(GC_ZH, "gc-zh")
PCZ = parse(PC_ZH, "pc-zh")


def compare(
    clause_id: str,
    contract: DocumentStructure = PC,
    baseline: DocumentStructure | None = GC,
    **ctx: Any,
) -> CompareWithBaselineOutput:
    text = ctx.pop("baseline_text", None)
    return handle(
        CompareWithBaselineInput(
            clause_id=clause_id,
            baseline_text=text,
            document_structure=contract,
            baseline_structure=baseline,
            review_context=prepare_context(
                baselines=get_plugin(ctx.get("domain_id")), structure=contract, **ctx
            ),
        )
    )


@pytest.fixture
def plugin() -> Iterator[None]:
    with registered_plugin(
        DomainPlugin(
            domain_id="test_construction",
            name="Test construction",
            baselines=[
                BaselinePosition(
                    key="20.1",
                    title="Contractor's Claims",
                    text="The Contractor must give notice of a claim within 28 days after "
                    "becoming aware of the event. The Contractor is entitled to an extension "
                    "of time and to payment of Cost for a valid claim.",
                ),
                BaselinePosition(
                    key="Amicable Settlement of Disputes",
                    title="Amicable settlement",
                    text="The Parties shall try to settle disputes amicably before arbitration.",
                ),
            ],
        )
    ):
        yield


# --------------------------------------------------------------------------------------------


def test_modified_clause_word_diff_and_period() -> None:
    out = compare("20.1")
    assert out.status == "modified"
    assert out.baseline_kind == "document"
    assert out.matched_by == "id"
    assert out.baseline_clause_id == "20.1"
    assert out.baseline_document_id == "gc"
    assert 0.8 < out.similarity < 1.0
    changes = [(op.op, op.baseline_text, op.contract_text) for op in out.diff if op.op != "equal"]
    assert changes == [
        ("replace", "28", "14"),
        ("insert", "", ", regardless of cause"),
        ("replace", "42 days", "6 weeks"),
    ]
    # Offsets index the contract document text.
    for op in out.diff:
        assert op.contract_offset is not None
        assert PC_EN[op.contract_offset : op.contract_offset + len(op.contract_text)] == (
            op.contract_text
        )
    # 42 days == 6 weeks: not a changed number.
    assert [(n.kind, n.baseline, n.contract, n.change) for n in out.changed_numbers] == [
        ("period", "28 days", "14 days", "decreased")
    ]
    number = out.changed_numbers[0]
    assert (number.baseline_value, number.contract_value, number.unit) == (28, 14, "days")
    assert number.context.startswith("If the Contractor considers himself entitled")
    assert number.baseline_context.endswith("within 28 days after becoming aware of the event.")
    assert number.contract_offset is not None
    assert PC_EN[number.contract_offset :].startswith("14 days")
    assert [s.change for s in out.changed_sentences] == ["modified", "modified"]
    assert all(s.contract_text in PC_EN for s in out.changed_sentences)


def test_percentage_and_amount_changes() -> None:
    out = compare("14.9")
    assert out.status == "modified"
    assert [(n.kind, n.baseline, n.contract, n.change, n.unit) for n in out.changed_numbers] == [
        ("percentage", "5%", "10%", "increased", "%"),
        ("amount", "USD 1,000,000", "USD 2 million", "increased", "USD"),
    ]
    assert out.changed_numbers[1].contract_value == 2_000_000


def test_unmodified_clause() -> None:
    out = compare("14.2")
    assert out.status == "unmodified"
    assert out.similarity == 1.0
    assert [op.op for op in out.diff] == ["equal"]
    assert out.changed_numbers == []
    assert out.changed_sentences == []


def test_alignment_by_title() -> None:
    out = compare("20.4")
    assert out.status == "unmodified"
    assert out.matched_by == "title"
    assert out.baseline_clause_id == "20.2"
    assert any("Aligned by title with baseline clause 20.2" in n for n in out.notes)


def test_same_id_with_unrelated_title_prefers_title_match() -> None:
    renumbered = parse(
        "Clause 20 Claims\n\nSub-Clause 20.1 Amicable Settlement\n"
        "The Parties shall attempt to settle any dispute amicably.\n",
        "pc2",
    )
    out = compare("20.1", contract=renumbered)
    assert out.matched_by == "title"
    assert out.baseline_clause_id == "20.2"
    assert out.status == "unmodified"


def test_deleted_clause_marked_in_contract() -> None:
    out = compare("14.5")
    assert out.status == "deleted"
    assert out.similarity == 0.0
    assert out.contract_text == ""
    assert out.baseline_text.startswith("The Contractor shall be entitled to payment")
    assert [op.op for op in out.diff] == ["delete"]
    assert "marks the clause as deleted" in out.notes[0]


def test_deleted_clause_absent_from_contract() -> None:
    out = compare("20.2")
    assert out.status == "deleted"
    assert out.title == "Amicable Settlement"
    assert all(op.contract_offset is None for op in out.diff)
    assert out.notes[0] == "The clause is not in the contract."


def test_added_clause() -> None:
    out = compare("8.3")
    assert out.status == "added"
    assert out.baseline_kind is None
    assert out.baseline_text == ""
    assert [op.op for op in out.diff] == ["insert"]
    assert out.diff[0].contract_text == "The Contractor shall submit a programme within 14 days."


def test_chinese_per_character_diff() -> None:
    out = compare("7", contract=PCZ, baseline=GCZ)
    assert out.status == "modified"
    assert [(o.op, o.baseline_text, o.contract_text) for o in out.diff if o.op != "equal"] == [
        ("replace", "28", "14")
    ]
    assert [(n.baseline, n.contract, n.change) for n in out.changed_numbers] == [
        ("28天", "14天", "decreased")
    ]
    risk = compare("8", contract=PCZ, baseline=GCZ)
    assert [(o.op, o.baseline_text, o.contract_text) for o in risk.diff if o.op != "equal"] == [
        ("replace", "发", "承")
    ]
    retention = compare("6", contract=PCZ, baseline=GCZ)
    assert [(n.kind, n.baseline, n.contract) for n in retention.changed_numbers] == [
        ("percentage", "3%", "5%")
    ]
    assert compare("10", contract=PCZ, baseline=GCZ).status == "unmodified"


def test_chinese_deleted_markers() -> None:
    assert compare("9", contract=PCZ, baseline=GCZ).status == "deleted"
    not_applicable = parse(GC_ZH.replace("双方应友好协商解决争议。", "不适用。"), "pc-na")
    assert compare("10", contract=not_applicable, baseline=GCZ).status == "deleted"


def test_explicit_baseline_text() -> None:
    out = compare(
        "8.3",
        baseline=None,
        baseline_text="The Contractor shall submit a programme within 28 days.",
    )
    assert out.matched_by == "provided"
    assert out.baseline_kind == "document"
    assert out.status == "modified"
    assert [(n.baseline, n.contract) for n in out.changed_numbers] == [("28 days", "14 days")]


def test_baseline_in_another_language_is_flagged() -> None:
    out = compare("8.3", baseline=None, baseline_text="承包人应在28天内提交进度计划。")
    assert any("different languages" in n for n in out.notes)
    assert [(n.baseline, n.contract) for n in out.changed_numbers] == [("28天", "14 days")]


def test_plugin_baseline_position(plugin: None) -> None:
    out = compare("20.1", baseline=None, domain_id="test_construction")
    assert out.baseline_kind == "position"
    assert out.matched_by == "position"
    assert out.baseline_clause_id == "20.1"
    assert out.status == "modified"
    assert [(n.baseline, n.contract, n.change) for n in out.changed_numbers] == [
        ("28 days", "14 days", "decreased")
    ]
    assert out.obligations_not_found == [
        "The Contractor is entitled to an extension of time and to payment of Cost for a valid "
        "claim."
    ]
    assert "indicative only" in out.notes[0]
    # A position keyed by topic (the clause title), consistent with the clause.
    topic = compare("20.4", baseline=None, domain_id="test_construction")
    assert topic.baseline_kind == "position"
    assert topic.baseline_clause_id == "Amicable Settlement of Disputes"
    assert topic.status == "unmodified"


def test_baseline_document_wins_over_position(plugin: None) -> None:
    out = compare("20.1", domain_id="test_construction")
    assert out.baseline_kind == "document"


def test_no_baseline_and_unknown_clause() -> None:
    with pytest.raises(SkillError, match=r"^no baseline for clause 20\.1: load a baseline"):
        compare("20.1", baseline=None)
    with pytest.raises(SkillError, match=r"clause '99\.9' not found"):
        compare("99.9")


def test_numbers_in_english_and_chinese() -> None:
    en = "within 28 days, (14) working days, a 28-day period, 10%, 5 per cent, US$2 million"
    assert [(n.kind, n.text, n.value) for n in numbers_in(en)] == [
        ("period", "28 days", 28),
        ("period", "(14) working days", 14),
        ("period", "28-day", 28),
        ("percentage", "10%", 10),
        ("percentage", "5 per cent", 5),
        ("amount", "US$2 million", 2_000_000),
    ]
    zh = "28天内，24个月，每月25日前，2024年6月18日，二十八天内，百分之五，人民币600万元，¥600,000.00"
    assert [(n.kind, n.text, n.value) for n in numbers_in(zh)] == [
        ("period", "28天", 28),
        ("period", "24个月", 720),
        ("period", "二十八天", 28),
        ("percentage", "百分之五", 5),
        ("amount", "人民币600万元", 6_000_000),
        ("amount", "¥600,000.00", 600_000),
    ]


def test_diff_is_sentence_aligned() -> None:
    base = "First sentence stays. Second sentence goes. Third stays too."
    new = "First sentence stays. Third stays too. A new fourth sentence."
    diff = diff_texts(base, new)
    ops = [(o.op, base[o.b0 : o.b1], new[o.c0 : o.c1]) for o in diff.ops if o.op != "equal"]
    assert ops == [
        ("delete", "Second sentence goes.", ""),
        ("insert", "", "A new fourth sentence."),
    ]
    assert len(diff.units) == 2


# --------------------------------------------------------------------------------------------
# Through the dispatcher
# --------------------------------------------------------------------------------------------


def _state(**extra: Any) -> dict[str, Any]:
    doc = TaskDocument(
        document_id="gc", role=DocumentRole.BASELINE, filename="gc.txt", structure=GC
    )
    return {"our_party": "Contractor", "documents": [doc], **extra}


def _dispatcher() -> SkillDispatcher:
    dispatcher = SkillDispatcher()
    dispatcher.register(REGISTRATION)
    return dispatcher


def test_dispatcher_call() -> None:
    result = asyncio.run(
        _dispatcher().prepare_and_call("compare_with_baseline", "20.1", PC, _state())
    )
    assert result.success, result.error
    assert result.data["status"] == "modified"
    assert result.data["changed_numbers"][0]["contract"] == "14 days"


def test_dispatcher_llm_baseline_text() -> None:
    result = asyncio.run(
        _dispatcher().prepare_and_call(
            "compare_with_baseline",
            "8.3",
            PC,
            _state(),
            llm_arguments={"baseline_text": "The Contractor shall submit a programme."},
        )
    )
    assert result.success, result.error
    assert result.data["matched_by"] == "provided"
    assert result.data["changed_numbers"][0]["change"] == "added"


def test_dispatcher_missing_baseline() -> None:
    result = asyncio.run(
        _dispatcher().prepare_and_call("compare_with_baseline", "20.1", PC, {"our_party": "x"})
    )
    assert not result.success
    assert result.error == (
        "no baseline for clause 20.1: load a baseline document or choose a domain with "
        "baseline positions"
    )


def test_tool_definition_hides_internal_fields() -> None:
    params = REGISTRATION.to_tool_definition()["function"]["parameters"]
    assert set(params["properties"]) == {"clause_id", "baseline_text"}
    assert params["required"] == ["clause_id"]


def test_comparison_reused_for_the_same_inputs() -> None:
    inp = CompareWithBaselineInput(clause_id="20.1", document_structure=PC, baseline_structure=GC)
    first = compare_cached(inp)
    assert compare_cached(inp.model_copy()) is first
    twin = parse(PC_EN, "pc")  # equal, but another object: compared afresh
    assert compare_cached(inp.model_copy(update={"document_structure": twin})) is not first
    assert compare_cached(inp.model_copy(update={"clause_id": "14.9"})) is not first
