"""What could not be checked (#30): structure failures, no party, unread pages."""

from __future__ import annotations

from contract_review.analysis.coverage import coverage_gaps, structure_failed
from contract_review.models import DocumentFormat, GapKind, LoadedText
from contract_review.structure_parser import StructureParser

_SENTENCE = "The Supplier shall deliver the goods to the Buyer within thirty days of the order. "


def _parse(text: str):  # type: ignore[no-untyped-def]
    return StructureParser().parse(text)


def test_one_clause_contract_is_a_structure_gap() -> None:
    text = 'This agreement is between Alder Ltd ("Supplier") and Birch plc ("Buyer").\n\n'
    text += (_SENTENCE * 8 + "\n\n") * 3
    gaps = coverage_gaps(_parse(text), None)
    assert [g.kind for g in gaps] == [GapKind.ONE_CLAUSE]
    assert structure_failed(gaps)


def test_a_short_letter_may_be_one_clause() -> None:
    text = 'This letter is between Alder Ltd ("Supplier") and Birch plc ("Buyer"). ' + _SENTENCE
    assert coverage_gaps(_parse(text), None) == []


def test_one_clause_swallowing_most_of_the_text_is_named_with_its_share() -> None:
    text = (
        'This agreement is between Alder Ltd ("Supplier") and Birch plc ("Buyer").\n\n'
        "1. Term\n\nThis agreement lasts one year.\n\n"
        "2. Supply\n\n" + _SENTENCE * 60 + "\n\n3. Law\n\nEnglish law governs.\n"
    )
    gaps = coverage_gaps(_parse(text), None)
    assert [(g.kind, g.clause_id) for g in gaps] == [(GapKind.DOMINANT_CLAUSE, "2")]
    assert 0.5 < gaps[0].share <= 1


def test_balanced_clauses_are_no_gap() -> None:
    text = 'This agreement is between Alder Ltd ("Supplier") and Birch plc ("Buyer").\n\n'
    text += "".join(f"{n}. Heading\n\n{_SENTENCE * 5}\n\n" for n in range(1, 8))
    assert coverage_gaps(_parse(text), None) == []


def test_no_party_in_the_preamble_is_a_gap_but_not_a_structure_failure() -> None:
    text = "".join(f"{n}. Heading\n\n{_SENTENCE * 5}\n\n" for n in range(1, 8))
    gaps = coverage_gaps(_parse(text), None)
    assert [g.kind for g in gaps] == [GapKind.NO_PARTY]
    assert not structure_failed(gaps)
    # acting for a party found elsewhere (a role word the text uses): nothing to report
    assert coverage_gaps(_parse(text), None, neutral=False) == []


def test_unread_pages_are_a_gap() -> None:
    text = 'This agreement is between Alder Ltd ("Supplier") and Birch plc ("Buyer").\n\n'
    text += "".join(f"{n}. Heading\n\n{_SENTENCE * 5}\n\n" for n in range(1, 8))
    content = LoadedText(format=DocumentFormat.PDF, text=text, unread_pages=[3, 9])
    gaps = coverage_gaps(_parse(text), content)
    assert [(g.kind, g.pages) for g in gaps] == [(GapKind.UNREAD_PAGES, [3, 9])]


def test_numbers_run_into_their_heading_are_clause_numbers() -> None:
    """PDF extraction loses the tab after a number: '1.PROMOTION OFFER:', '11.1Warranty.'."""
    text = (
        "PROMOTION AGREEMENT\n\n1.PROMOTION OFFER: the offer runs for a year.\n\n"
        "2.FEE: the Sponsor pays the fee.\n\n2.1Warranty. The Company warrants the codes.\n\n"
        "2.2Indemnity. The Company indemnifies the Sponsor.\n"
    )
    ids = [c.clause_id for c in _parse(text).iter_clauses()]
    assert ids == ["preamble", "1", "2", "2.1", "2.2"]


def test_a_number_run_into_a_letter_or_digit_is_no_clause_number() -> None:
    text = "Price list\n\n1.5 million units at cost.\n\n2.B grade goods are excluded.\n"
    assert [c.clause_id for c in _parse(text).iter_clauses()] == ["body"]
