"""Verification of a change before it is proposed (#32): the contract as the change leaves it,
the clause's judgement compared, and the change's wording checked."""

from __future__ import annotations

from contract_review.analysis.verify import (
    Failure,
    Judgement,
    amend,
    amended_text,
    changed_node,
    for_the_lawyer,
    judgement_problems,
    strike_needs_lawyer,
    wording_problems,
)
from contract_review.models import (
    ActionType,
    DocumentDiff,
    DocumentStructure,
    FavourableTerm,
    RiskLevel,
    RiskPoint,
)
from contract_review.parties import party_roles
from contract_review.structure_parser import StructureParser

CONTRACT = """SUPPLY AGREEMENT

This Supply Agreement is made between Northwind Components Ltd (the "Supplier") and Harbour \
Retail plc (the "Buyer").

1. Definitions
1.1 "Contract Sum" means the total price payable under this Agreement.

2. Payment
2.1 The Buyer shall pay each invoice within thirty (30) days of receipt.
2.2 Late payments bear interest at 1 1/2% per month.

3. Termination
3.1 The Supplier may terminate this Agreement at any time by notice to the Buyer.
3.2 The Supplier's liability shall not exceed 10% of the Contract Sum.
"""


def _structure() -> DocumentStructure:
    return StructureParser().parse(CONTRACT, document_id="c")


def _diff(
    structure: DocumentStructure,
    clause_id: str,
    original: str,
    proposed: str,
    action: ActionType = ActionType.REPLACE,
) -> DocumentDiff:
    clause = structure.get_clause(clause_id)
    assert clause is not None
    at = clause.text.index(original)
    return DocumentDiff(
        diff_id="d1",
        clause_id=clause_id,
        action_type=action,
        original_text=original,
        proposed_text=proposed,
        start_offset=clause.start_offset + at,
    )


def _failures(clause_id: str, original: str, proposed: str, party: str = "Buyer") -> set[str]:
    structure = _structure()
    clause = structure.get_clause(clause_id)
    assert clause is not None
    roles = party_roles(structure, party)
    diff = _diff(structure, clause_id, original, proposed)
    return {p.failure.value for p in wording_problems(structure, clause, diff, roles)}


def test_amend_changes_the_clause_its_parents_and_shifts_what_follows() -> None:
    structure = _structure()
    clause = structure.get_clause("2.1")
    after = structure.get_clause("3.1")
    assert clause is not None
    assert after is not None
    diff = _diff(structure, "2.1", "thirty (30)", "sixty (60) calendar")
    amended = amend(structure, clause, diff)
    assert amended is not None
    new_structure, new_clause = amended
    assert "sixty (60) calendar days" in new_clause.text
    assert new_clause.text == amended_text(clause, diff)
    parent = new_structure.get_clause("2")
    assert parent is not None
    assert "sixty (60) calendar days" in parent.text
    moved = new_structure.get_clause("3.1")
    assert moved is not None
    delta = len("sixty (60) calendar") - len("thirty (30)")
    assert moved.start_offset == after.start_offset + delta
    assert moved.text == after.text
    # the original is untouched
    assert "thirty (30)" in clause.text
    assert structure.get_clause("2.1") is clause


def test_amend_an_insertion_and_a_text_not_in_the_clause() -> None:
    structure = _structure()
    clause = structure.get_clause("3.2")
    assert clause is not None
    insert = _diff(structure, "3.2", "Contract Sum.", " This cap applies to each party.")
    insert = insert.model_copy(update={"action_type": ActionType.INSERT})
    amended = amend(structure, clause, insert)
    assert amended is not None
    assert "Contract Sum. This cap applies to each party." in amended[1].text
    wrong = insert.model_copy(update={"original_text": "no such words", "start_offset": None})
    assert amend(structure, clause, wrong) is None
    problems = wording_problems(structure, clause, wrong, None)
    assert [p.failure for p in problems] == [Failure.NOT_APPLICABLE]


def test_a_fraction_cut_in_half_is_malformed() -> None:
    # "1 1/2% per month" is 1.5 %: editing its "2" alone gives "1 1/0.67%"
    assert "malformed_number" in _failures("2.2", "2", "0.67")
    assert "malformed_number" not in _failures("2.2", "1 1/2%", "1%")


def test_words_and_figures_must_agree() -> None:
    assert "malformed_number" in _failures("2.1", "30", "14")
    assert _failures("2.1", "thirty (30)", "fourteen (14)") == set()


def test_a_capitalised_term_the_contract_does_not_use_is_flagged() -> None:
    assert "undefined_term" in _failures("3.2", "10% of the Contract Sum", "the Contract Price")
    assert _failures("3.2", "10%", "100%") == set()
    assert _failures("3.2", "10% of the Contract Sum", "the Contract Sum") == set()


def test_a_right_made_mutual_must_not_still_name_a_party() -> None:
    # 'Either party may terminate … by notice to the Buyer': notice to ourselves
    assert "party_mixup" in _failures("3.1", "The Supplier", "Either party")
    structure = StructureParser().parse(
        CONTRACT.replace("at any time by notice to the Buyer", "at any time by written notice"),
        document_id="c",
    )
    clause = structure.get_clause("3.1")
    assert clause is not None
    diff = _diff(structure, "3.1", "The Supplier", "Either party")
    roles = party_roles(structure, "Buyer")
    assert wording_problems(structure, clause, diff, roles) == []


def _risk(key: str, level: RiskLevel, source: str = "check_positions") -> RiskPoint:
    return RiskPoint(
        id=f"r-{key}-{level.value}",
        clause_id="3",
        risk_level=level,
        risk_type=f"playbook: {key}",
        description="",
        position_id=key,
        source_skills=[source],
    )


def _favourable(key: str) -> FavourableTerm:
    return FavourableTerm(clause_id="3", position_id=key, topic=key, description="")


DIFF = DocumentDiff(
    diff_id="d", clause_id="3", action_type=ActionType.REPLACE, original_text="a", proposed_text="b"
)


def _judged(
    before: list[RiskPoint],
    after: list[RiskPoint],
    answered: RiskPoint | None,
    fav_before: tuple[str, ...] = (),
    fav_after: tuple[str, ...] = (),
    diff: DocumentDiff = DIFF,
) -> set[str]:
    problems = judgement_problems(
        Judgement(before, [_favourable(k) for k in fav_before]),
        Judgement(after, [_favourable(k) for k in fav_after]),
        answered,
        diff,
    )
    return {p.failure.value for p in problems}


def test_the_answered_risk_must_go_or_fall() -> None:
    high = _risk("termination", RiskLevel.HIGH)
    assert _judged([high], [], high) == set()
    assert _judged([high], [_risk("termination", RiskLevel.MEDIUM)], high) == set()
    assert _judged([high], [high], high) == {"risk_remains"}
    # still a time bar, but the cut period (another risk of the clause) is gone
    cut = _risk("notice_cut", RiskLevel.MEDIUM)
    assert _judged([high, cut], [high], high) == set()
    # a model's finding the rules never raised is not re-judged
    assert _judged([], [], _risk("llm", RiskLevel.HIGH)) == set()


def test_no_new_or_higher_risk_and_no_favourable_term_lost() -> None:
    high = _risk("termination", RiskLevel.HIGH)
    cap = _risk("cap", RiskLevel.MEDIUM)
    assert _judged([high], [cap], high) == set()  # a lesser term the high risk stood over
    assert _judged([cap], [high], cap) == {"new_risk"}
    assert _judged([cap], [_risk("other", RiskLevel.MEDIUM)], cap) == {"new_risk"}
    assert _judged([cap], [_risk("cap", RiskLevel.HIGH)], None) == {"new_risk"}
    assert _judged([], [_risk("cap", RiskLevel.LOW)], None) == set()  # low: noted, not a failure
    assert _judged([high], [], high, ("exclusivity",), ()) == {"favourable_lost"}
    assert _judged([high], [], high, ("exclusivity",), ("exclusivity",)) == set()


def test_a_blank_left_for_the_lawyer_is_no_new_risk() -> None:
    blank = _risk("blank", RiskLevel.MEDIUM, source="blanks")
    with_blank = DIFF.model_copy(update={"proposed_text": "[●]% of the fees"})
    assert _judged([], [blank], None, diff=with_blank) == set()
    assert _judged([], [blank], None) == {"new_risk"}


def _deleting(clause_id: str, words: str, party: str) -> set[str]:
    structure = _structure()
    clause = structure.get_clause(clause_id)
    assert clause is not None
    diff = _diff(structure, clause_id, words, "", ActionType.DELETE)
    roles = party_roles(structure, party)
    return {p.failure.value for p in wording_problems(structure, clause, diff, roles)}


def test_a_deletion_never_strikes_their_duty_or_half_a_sentence() -> None:
    pay = "The Buyer shall pay each invoice within thirty (30) days of receipt."
    # acting for the Supplier, the Buyer's duty to pay is ours to keep, whatever a rule says
    assert "favourable_lost" in _deleting("2.1", pay, "Supplier")
    assert _deleting("2.1", pay, "Buyer") == set()
    # words cut out of a sentence that runs on leave a fragment
    assert "fragment" in _deleting("2.1", "The Buyer shall pay each invoice", "Buyer")
    assert "fragment" not in _deleting("2.1", "each ", "Buyer")  # a word or two: an edit


def test_a_whole_term_struck_is_for_the_lawyer() -> None:
    structure = _structure()
    right = _diff(
        structure,
        "3.1",
        "The Supplier may terminate this Agreement at any time by notice to the Buyer.",
        "",
        ActionType.DELETE,
    )
    duty = _diff(
        structure,
        "2.1",
        "The Buyer shall pay each invoice within thirty (30) days of receipt.",
        "",
        ActionType.DELETE,
    )
    # the Supplier's right alone is part of a bargain too: the lawyer weighs every strike
    assert strike_needs_lawyer(right)
    assert strike_needs_lawyer(duty)  # our own words: what they bought is unknown
    phrase = _diff(structure, "3.1", "at any time ", "", ActionType.DELETE)
    assert not strike_needs_lawyer(phrase)
    assert for_the_lawyer(right.model_copy(update={"for_lawyer": True}))
    assert for_the_lawyer(DIFF.model_copy(update={"proposed_text": "[●] days"}))
    assert not for_the_lawyer(right)


def test_a_change_is_judged_in_the_sub_clause_that_holds_it() -> None:
    structure = _structure()
    article = structure.get_clause("2")
    assert article is not None
    diff = _diff(structure, "2.1", "thirty (30)", "fourteen (14)")
    assert changed_node(article, diff).clause_id == "2.1"
    amended = amend(structure, article, diff)
    assert amended is not None
    # the amended contract shares the original's document-wide facts
    assert amended[0].basis is structure
    assert structure.basis is structure


def test_a_period_of_one_takes_the_singular_and_a_name_of_no_party_is_not_made_mutual() -> None:
    assert "malformed_number" in _failures("2.1", "thirty (30) days", "one (1) days")
    assert "malformed_number" not in _failures("2.1", "thirty (30) days", "one (1) day")
    structure = StructureParser().parse(
        CONTRACT.replace(
            "3.1 The Supplier may terminate this Agreement at any time by notice to the Buyer.",
            "3.1 This Supplier may be terminated at any time.",
        ),
        document_id="c",
    )
    clause = structure.get_clause("3.1")
    assert clause is not None
    diff = _diff(structure, "3.1", "Supplier", "either party")
    problems = wording_problems(structure, clause, diff, party_roles(structure, "Buyer"))
    assert [p.failure for p in problems] == [Failure.PARTY_MIXUP]


LAWYER = """CAPACITY AGREEMENT

This Agreement is made between Teleport Cable Ltd (the "Operator") and Bayline Networks Ltd \
(the "Member").

7. Billing
7.1 The Member shall pay each invoice within sixty (60) days, and if day sixty (60) is not a \
working day, on the next working day.
7.2 The Member shall pay each invoice within sixty (60) days of receipt.

9. Termination
9.1 The Operator may terminate this Agreement if the Member is in material breach.
9.2 The Operator may terminate this Agreement at any time on ninety (90) days' notice.
"""


def test_a_number_stated_again_or_a_right_on_grounds_made_mutual_goes_to_the_lawyer() -> None:
    """From a reading of held-out filings: '60 → 30' left 'day sixty (60)' standing; 'The
    Owner may terminate if the Operator is in breach' made 'Either party' turns on one's own
    breach. Both pass verification, but neither is approved unattended."""
    from contract_review.analysis.verify import wording_needs_lawyer

    structure = StructureParser().parse(LAWYER, document_id="c")

    def needs(clause_id: str, original: str, proposed: str) -> bool:
        clause = structure.get_clause(clause_id)
        assert clause is not None
        return wording_needs_lawyer(clause, _diff(structure, clause_id, original, proposed))

    assert needs("7.1", "sixty (60)", "thirty (30)")
    assert not needs("7.2", "sixty (60)", "thirty (30)")
    assert needs("9.1", "The Operator", "Either party")
    assert needs("9.2", "The Operator", "Either party")  # every right made mutual


def test_a_number_no_party_acts_on_goes_to_the_lawyer() -> None:
    """From a reading of held-out filings: '(b) a copy of the auditors' report within thirty
    (30) days' names no one who acts; its 30 became 42 acting for the party it is owed to."""
    from contract_review.analysis.verify import wording_needs_lawyer

    text = LAWYER + (
        "\n10. Reports\n10.1 Audited accounts for each year within thirty (30) days of the "
        "audit.\n10.2 The Member shall deliver its accounts within thirty (30) days.\n"
    )
    structure = StructureParser().parse(text, document_id="c")
    roles = party_roles(structure, "Operator")

    def needs(clause_id: str) -> bool:
        clause = structure.get_clause(clause_id)
        assert clause is not None
        diff = _diff(structure, clause_id, "thirty (30)", "fourteen (14)")
        return wording_needs_lawyer(clause, diff, roles)

    assert needs("10.1")
    assert not needs("10.2")


def test_a_qualifier_beside_an_absolute_word_and_a_heading_strike() -> None:
    """From a fifth reading of filings: 'acting reasonably shall have the unconditional right'
    and 'may freely assign … with consent' contradict themselves (for the lawyer); striking a
    heading leaves the term it names standing (refused)."""
    from contract_review.analysis.verify import wording_needs_lawyer

    text = LAWYER + (
        "\n11. Approvals\n11.1 The Operator in its sole discretion shall have the unconditional "
        "right to approve the listing.\n\n12. Non-Compete Commitment\nThe Member will not "
        "compete with the Operator.\n"
    )
    structure = StructureParser().parse(text, document_id="c")
    roles = party_roles(structure, "Member")
    clause = structure.get_clause("11.1")
    assert clause is not None
    diff = _diff(structure, "11.1", "in its sole discretion", "acting reasonably")
    assert wording_needs_lawyer(clause, diff, roles)
    heading = structure.get_clause("12")
    assert heading is not None
    strike = _diff(structure, "12", "12. Non-Compete Commitment", "", ActionType.DELETE)
    failures = {p.failure.value for p in wording_problems(structure, heading, strike, roles)}
    assert "fragment" in failures
