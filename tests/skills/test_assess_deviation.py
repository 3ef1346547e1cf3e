"""assess_deviation: deterministic rating of baseline deviations from our party's side."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from contract_review.models import (
    Deviation,
    DocumentRole,
    DocumentStructure,
    RiskLevel,
    TaskDocument,
)
from contract_review.plugins.registry import (
    BaselinePosition,
    DomainPlugin,
    get_plugin,
)
from contract_review.skills.context import prepare_context
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.local.assess_deviation import (
    REGISTRATION,
    AssessDeviationInput,
    AssessDeviationOutput,
    handle,
)
from contract_review.structure_parser import StructureParser
from tests.conftest import registered_plugin
from tests.skills.conditions_zh import GC_ZH, PC_ZH

PARSER = StructureParser()

GC_EN = """GENERAL CONDITIONS

Employer: Harbour Authority
Contractor: Meridian Build Ltd

Clause 14 Payment

Sub-Clause 14.2 Advance Payment
The Employer shall make an advance payment of 10% of the Accepted Contract Amount.

Sub-Clause 14.7 Payment
The Employer shall pay the amount certified within 56 days after receiving the Statement.

Sub-Clause 14.8 Delayed Payment
The Employer shall pay interest on late payments. The Contractor shall be entitled to payment of interest at 3% above the base rate.

Sub-Clause 14.9 Retention
The Employer may retain 5% of each interim payment.

Clause 17 Risk and Responsibility

Sub-Clause 17.1 Notice of Claims
The Contractor shall give notice to the Engineer within 28 days after becoming aware of the event.

Sub-Clause 17.2 Limitation of Liability
The total liability of the Contractor to the Employer shall not exceed the Accepted Contract Amount.

Sub-Clause 17.3 Delay Costs
The Contractor shall bear the cost of any delay caused by the Contractor.

Sub-Clause 17.4 Extension of Time
The Contractor shall be entitled to an extension of time for any delay caused by the Employer.

Sub-Clause 17.5 Site Access
The Employer shall give the Contractor access to the Site.

Sub-Clause 17.6 Delay Damages
The Contractor shall pay delay damages at 0.05% of the Contract Price per day.

Sub-Clause 17.7 Extension of Time for Employer Delay
The Contractor shall be entitled to an extension of time and to payment of Cost for any delay caused by the Employer.
"""

PC_EN = (
    GC_EN.replace("GENERAL", "PARTICULAR")
    .replace("advance payment of 10%", "advance payment of 5%")
    .replace("within 56 days", "within 84 days")
    .replace(
        "The Employer shall pay interest on late payments. The Contractor shall be entitled to "
        "payment of interest at 3% above the base rate.",
        "The Employer shall pay interest on late payments.",
    )
    .replace("retain 5%", "retain 10%")
    .replace("within 28 days", "within 14 days")
    .replace(
        "The total liability of the Contractor to the Employer shall not exceed the Accepted "
        "Contract Amount.",
        "The Contractor shall be liable to the Employer for all loss, without limit.",
    )
    .replace("caused by the Contractor.", "caused by the Contractor, regardless of cause.")
    .replace(
        "The Contractor shall be entitled to an extension of time for any delay caused by the "
        "Employer.",
        "The Contractor shall not be entitled to an extension of time for any delay.",
    )
    .replace(
        "The Employer shall give the Contractor access to the Site.",
        "The Employer shall give the Contractor access to the Site. The Contractor shall obtain "
        "all permits for the Site. The Employer may suspend access at any time.",
    )
    .replace("0.05% of the Contract Price", "0.1% of the Contract Price")
    .replace(
        "Sub-Clause 17.7 Extension of Time for Employer Delay\nThe Contractor shall be entitled "
        "to an extension of time and to payment of Cost for any delay caused by the Employer.",
        "Sub-Clause 17.7 [Deleted]\n\nSub-Clause 17.8 Ground Conditions\nThe Contractor shall "
        "bear all risk of ground conditions, regardless of cause.",
    )
)


GC = PARSER.parse(GC_EN, document_id="gc")
PC = PARSER.parse(PC_EN, document_id="pc")
GCZ = PARSER.parse(GC_ZH, document_id="gc-zh")
PCZ = PARSER.parse(PC_ZH, document_id="pc-zh")


def assess(
    clause_id: str,
    our_party: str,
    contract: DocumentStructure = PC,
    baseline: DocumentStructure | None = GC,
    criteria: list[dict[str, Any]] | None = None,
    **ctx: Any,
) -> AssessDeviationOutput:
    out = handle(
        AssessDeviationInput(
            clause_id=clause_id,
            document_structure=contract,
            baseline_structure=baseline,
            review_context=prepare_context(
                side=our_party,
                baselines=get_plugin(ctx.get("domain_id")),
                structure=contract,
                **ctx,
            ),
            criteria_data=criteria,
        )
    )
    text = PC_EN if contract is PC else PC_ZH if contract is PCZ else None
    for dev in out.deviations:
        clause = contract.get_clause(clause_id)
        if dev.quote is not None:
            assert clause is not None
            assert dev.quote in clause.text  # verbatim
            assert dev.actual_text == dev.quote
            if text is not None:
                assert dev.quote_offset is not None
                assert text[dev.quote_offset :].startswith(dev.quote)
    return out


def rules(out: AssessDeviationOutput) -> list[tuple[str, RiskLevel | None]]:
    return [(d.rule, d.severity) for d in out.deviations]


# --------------------------------------------------------------------------------------------
# English
# --------------------------------------------------------------------------------------------


def test_shortened_notice_period() -> None:
    ours = assess("17.1", "Contractor")
    assert rules(ours) == [("period_shortened_for_us", RiskLevel.HIGH)]
    dev = ours.deviations[0]
    assert dev.direction == "against_us"
    assert dev.deviation_type == "modified"
    assert "28 days → 14 days" in dev.reason
    assert dev.quote == (
        "The Contractor shall give notice to the Engineer within 14 days after becoming aware "
        "of the event."
    )
    assert dev.baseline_quote is not None
    assert "within 28 days" in dev.baseline_quote
    assert ours.max_severity is RiskLevel.HIGH
    assert ours.our_roles == ["contractor"]
    theirs = assess("17.1", "Employer")
    assert rules(theirs) == [("period_shortened_for_them", RiskLevel.LOW)]
    assert theirs.deviations[0].direction == "in_our_favour"
    assert theirs.max_severity is RiskLevel.LOW
    # By company name, resolved through the preamble.
    assert rules(assess("17.1", "Meridian Build Ltd")) == rules(ours)


def test_lengthened_payment_period_of_the_other_side() -> None:
    assert rules(assess("14.7", "Contractor")) == [("period_lengthened_for_them", RiskLevel.MEDIUM)]
    assert rules(assess("14.7", "Employer")) == [("period_lengthened_for_us", RiskLevel.LOW)]


def test_cap_removed() -> None:
    ours = assess("17.2", "Contractor")
    assert rules(ours) == [
        ("risk_shifted_to_us", RiskLevel.HIGH),
        ("cap_removed_on_us", RiskLevel.HIGH),
    ]
    cap = ours.deviations[1]
    assert (
        cap.quote == "The Contractor shall be liable to the Employer for all loss, without limit."
    )
    assert cap.baseline_text.startswith("The total liability of the Contractor")
    theirs = assess("17.2", "Employer")
    assert rules(theirs) == [
        ("risk_shifted_to_them", RiskLevel.LOW),
        ("cap_removed_on_them", RiskLevel.LOW),
    ]


def test_regardless_of_cause_added() -> None:
    ours = assess("17.3", "Contractor")
    assert rules(ours) == [("unconditional_risk", RiskLevel.HIGH)]
    assert ours.deviations[0].quote is not None
    assert ours.deviations[0].quote.endswith("regardless of cause.")
    assert rules(assess("17.3", "Employer")) == [("unconditional_risk_for_them", RiskLevel.LOW)]


def test_entitlement_excluded() -> None:
    ours = assess("17.4", "Contractor")
    assert rules(ours) == [("protection_removed", RiskLevel.HIGH)]
    assert "shall not be entitled" in ours.deviations[0].reason
    assert rules(assess("17.4", "Employer")) == [("right_removed_for_them", RiskLevel.LOW)]


def test_protective_duty_and_entitlement_deleted() -> None:
    ours = assess("14.8", "Contractor")
    assert rules(ours) == [("protection_removed", RiskLevel.HIGH)]
    dev = ours.deviations[0]
    assert dev.quote is None
    assert dev.baseline_quote == (
        "The Contractor shall be entitled to payment of interest at 3% above the base rate."
    )
    assert rules(assess("14.8", "Employer")) == [("right_removed_for_them", RiskLevel.LOW)]


def test_obligation_and_right_added() -> None:
    ours = assess("17.5", "Contractor")
    assert rules(ours) == [
        ("obligation_added_for_us", RiskLevel.MEDIUM),
        ("right_added_for_them", RiskLevel.MEDIUM),
    ]
    assert ours.deviations[0].quote == "The Contractor shall obtain all permits for the Site."
    assert ours.deviations[1].quote == "The Employer may suspend access at any time."
    assert ours.deviations[0].deviation_type == "modified"
    theirs = assess("17.5", "Employer")
    assert rules(theirs) == [
        ("obligation_added_for_them", RiskLevel.LOW),
        ("right_added_for_us", RiskLevel.LOW),
    ]


def test_figures_against_us() -> None:
    retention = assess("14.9", "Contractor")
    assert rules(retention) == [("amount_against_us", RiskLevel.HIGH)]
    assert "retention" in retention.deviations[0].reason
    assert "5% → 10%" in retention.deviations[0].reason
    assert rules(assess("14.9", "Employer")) == [("amount_in_our_favour", RiskLevel.LOW)]
    advance = assess("14.2", "Contractor")
    assert rules(advance) == [("amount_against_us", RiskLevel.HIGH)]
    assert "advance" in advance.deviations[0].reason
    damages = assess("17.6", "Contractor")
    assert rules(damages) == [("amount_against_us", RiskLevel.HIGH)]
    assert "delay damages" in damages.deviations[0].reason
    assert rules(assess("17.6", "Employer")) == [("amount_in_our_favour", RiskLevel.LOW)]


def test_deleted_and_added_clauses() -> None:
    deleted = assess("17.7", "Contractor")
    assert deleted.status == "deleted"
    assert rules(deleted) == [("protection_removed", RiskLevel.HIGH)]
    assert deleted.deviations[0].deviation_type == "deleted"
    assert deleted.deviations[0].quote is None
    assert rules(assess("17.7", "Employer")) == [("right_removed_for_them", RiskLevel.LOW)]
    added = assess("17.8", "Contractor")
    assert added.status == "added"
    assert rules(added) == [
        ("risk_shifted_to_us", RiskLevel.HIGH),
        ("unconditional_risk", RiskLevel.HIGH),
    ]
    assert added.deviations[0].deviation_type == "added"


def test_unmodified_clause_has_no_deviation() -> None:
    unchanged = PARSER.parse(GC_EN, document_id="same")
    out = assess("17.1", "Contractor", contract=unchanged)
    assert out.status == "unmodified"
    assert out.deviations == []
    assert out.max_severity is None


def test_unknown_party_gives_neutral_ratings() -> None:
    out = assess("17.1", "Acme Holdings")
    assert not out.party_resolved
    assert rules(out) == [("period_changed", RiskLevel.MEDIUM)]
    assert out.deviations[0].direction == "unclear"
    assert any("Our party is unknown" in n for n in out.notes)


def test_criteria_escalate_adverse_deviations() -> None:
    criteria = [
        {
            "topic": "Payment",
            "criterion": "Payment within 56 days",
            "preferred_position": "56 days",
            "fallback_position": "70 days",
            "risk_level": "high",
        },
        {"topic": "Unrelated topic", "criterion": "x", "risk_level": "high"},
    ]
    out = assess("14.7", "Contractor", criteria=criteria)
    assert rules(out) == [("period_lengthened_for_them", RiskLevel.HIGH)]
    dev = out.deviations[0]
    assert dev.criterion == "Payment within 56 days"
    assert "Preferred: 56 days. Fallback: 70 days." in dev.reason
    # Favourable deviations are not escalated.
    favourable = assess("14.7", "Employer", criteria=criteria)
    assert rules(favourable) == [("period_lengthened_for_us", RiskLevel.LOW)]


def test_rated_deviation_is_a_deviation() -> None:
    dev = assess("17.1", "Contractor").deviations[0]
    plain = dev.to_deviation()
    assert type(plain) is Deviation
    assert plain.severity is RiskLevel.HIGH
    assert plain.clause_id == "17.1"
    assert plain.actual_text == dev.quote


# --------------------------------------------------------------------------------------------
# Chinese
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("our_party", "expected"),
    [
        (
            "承包人",
            {
                "6": [("amount_against_us", RiskLevel.HIGH)],
                "7": [("period_shortened_for_us", RiskLevel.HIGH)],
                "8": [("risk_shifted_to_us", RiskLevel.HIGH)],
                "9": [("protection_removed", RiskLevel.HIGH)],
                "10": [],
            },
        ),
        (
            "发包人",
            {
                "6": [("amount_in_our_favour", RiskLevel.LOW)],
                "7": [("period_shortened_for_them", RiskLevel.LOW)],
                "8": [("risk_shifted_to_them", RiskLevel.LOW)],
                "9": [("right_removed_for_them", RiskLevel.LOW)],
                "10": [],
            },
        ),
    ],
)
def test_chinese(our_party: str, expected: dict[str, list[tuple[str, RiskLevel]]]) -> None:
    for clause_id, want in expected.items():
        out = assess(clause_id, our_party, contract=PCZ, baseline=GCZ)
        assert rules(out) == want, clause_id
    retention = assess("6", "乙方", contract=PCZ, baseline=GCZ).deviations[0]
    assert retention.quote == "发包人应在每期进度款中按已完工程价款的5%预留质量保证金。"
    assert "3% → 5%" in retention.reason
    period = assess("7", "恒筑建设集团有限公司", contract=PCZ, baseline=GCZ).deviations[0]
    assert "28天 → 14天" in period.reason
    risk = assess("8", "承包人", contract=PCZ, baseline=GCZ).deviations[0]
    assert risk.quote == "因不可抗力导致的工期延误和费用增加由承包人承担。"
    assert risk.baseline_quote == "因不可抗力导致的工期延误和费用增加由发包人承担。"


# --------------------------------------------------------------------------------------------
# Baseline positions and the dispatcher
# --------------------------------------------------------------------------------------------


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
                )
            ],
        )
    ):
        yield


CLAIMS = PARSER.parse(
    "Employer: Harbour Authority\nContractor: Meridian Build Ltd\n\n"
    "Clause 20 Claims\n\nSub-Clause 20.1 Contractor's Claims\n"
    "The Contractor shall give notice of a claim within 14 days after becoming aware of the "
    "event, failing which the Contractor shall not be entitled to any additional time.\n",
    document_id="claims",
)


def test_baseline_position(plugin: None) -> None:
    out = assess(
        "20.1", "Contractor", contract=CLAIMS, baseline=None, domain_id="test_construction"
    )
    assert out.baseline_kind == "position"
    assert rules(out) == [
        ("period_shortened_for_us", RiskLevel.HIGH),
        ("protection_removed", RiskLevel.HIGH),
    ]
    missing = out.deviations[1]
    assert missing.quote is None
    assert missing.baseline_quote is not None
    assert missing.baseline_quote.startswith("The Contractor is entitled to an extension")
    deleted = PARSER.parse(
        "Contractor: Meridian Build Ltd\n\nClause 20 Claims\n\nSub-Clause 20.1 Not used\n",
        document_id="deleted",
    )
    gone = assess(
        "20.1", "Contractor", contract=deleted, baseline=None, domain_id="test_construction"
    )
    assert gone.status == "deleted"
    assert rules(gone) == [
        ("obligation_removed_for_us", RiskLevel.LOW),
        ("protection_removed", RiskLevel.HIGH),
    ]
    assert gone.max_severity is RiskLevel.HIGH


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
    result = asyncio.run(_dispatcher().prepare_and_call("assess_deviation", "17.1", PC, _state()))
    assert result.success, result.error
    assert result.data["max_severity"] == "high"
    assert result.data["deviations"][0]["rule"] == "period_shortened_for_us"
    assert result.data["deviations"][0]["severity"] == "high"
    employer = asyncio.run(
        _dispatcher().prepare_and_call("assess_deviation", "17.1", PC, _state(our_party="Employer"))
    )
    assert employer.data["max_severity"] == "low"


def test_dispatcher_unmodified_and_missing_baseline() -> None:
    result = asyncio.run(_dispatcher().prepare_and_call("assess_deviation", "17.5", GC, _state()))
    assert result.success, result.error
    assert result.data["deviations"] == []
    assert result.data["max_severity"] is None
    missing = asyncio.run(
        _dispatcher().prepare_and_call("assess_deviation", "17.1", PC, {"our_party": "Contractor"})
    )
    assert not missing.success
    assert missing.error is not None
    assert missing.error.startswith("no baseline for clause 17.1")


def test_tool_definition_hides_internal_fields() -> None:
    params = REGISTRATION.to_tool_definition()["function"]["parameters"]
    assert set(params["properties"]) == {"clause_id", "baseline_text"}


def test_a_period_both_parties_have_is_a_low_note() -> None:
    """A cure period changed for either party alike burdens neither side more than the other."""
    base = PARSER.parse(
        "AGREEMENT\n\n1. Termination\nEither party may terminate this Agreement if the other "
        "fails to remedy a breach within 30 days of notice.\n",
        document_id="base",
    )
    mutual = PARSER.parse(
        "AGREEMENT\n\n1. Termination\nEither party may terminate this Agreement if the other "
        "fails to remedy a breach within 45 days of notice.\n",
        document_id="contract",
    )
    out = assess("1", "Contractor", contract=mutual, baseline=base)
    assert rules(out) == [("period_changed", RiskLevel.LOW)]
    assert "both parties alike" in out.deviations[0].reason
