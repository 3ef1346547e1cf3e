"""The FIDIC plugin: checklist catalogue, baselines per book, matching by id, title and 1999
numbering, Chinese construction contracts and registration."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from contract_review.models import DocumentStructure, Priority, ReviewChecklistItem
from contract_review.plugins.fidic import (
    ALL_BOOKS,
    BASELINES,
    CHECKLIST,
    NUMBERING_1999,
    build_fidic_checklist,
    fidic_plugin,
    register_fidic_plugin,
    uses_1999_numbering,
)
from contract_review.plugins.fidic.checklist import GENERIC_SKILLS
from contract_review.plugins.registry import clear_plugins, get_baseline_text, get_plugin
from contract_review.structure_parser import DocumentParserConfig, StructureParser
from tests.conftest import EXAMPLES
from tests.conftest import GENERIC_SKILLS as SHIPPED_SKILLS

SKILLS = (SHIPPED_SKILLS - {"draft_redline_comment"}) | {
    "fidic_merge_gc_pc",
    "fidic_calculate_time_bar",
    "fidic_check_pc_consistency",
    "fidic_search_er",
}
PC = EXAMPLES / "fidic" / "particular_conditions_en.txt"
ZH = EXAMPLES / "cn" / "construction_contract_zh.txt"


def _parse(text: str) -> DocumentStructure:
    return StructureParser(DocumentParserConfig(structure_type="fidic")).parse(text, "test")


def _by_id(items: list[ReviewChecklistItem]) -> dict[str, ReviewChecklistItem]:
    return {i.clause_id: i for i in items}


@pytest.fixture
def _registered() -> Iterator[None]:
    clear_plugins()
    register_fidic_plugin()
    yield
    clear_plugins()


# --------------------------------------------------------------------------------------------
# Catalogue and baselines
# --------------------------------------------------------------------------------------------


def test_checklist_catalogue() -> None:
    assert len(CHECKLIST) >= 20
    keys = [e.key for e in CHECKLIST]
    assert len(keys) == len(set(keys))
    for required in ("1.15", "4.12", "8.5", "8.8", "14.2", "14.7", "14.9", "20.1", "21.6"):
        assert required in keys
    for entry in CHECKLIST:
        assert set(entry.skills) <= SKILLS, entry.key
        assert {"fidic_merge_gc_pc", "compare_with_baseline"} <= set(entry.skills)
        assert entry.description
        assert entry.topic
        for book in ALL_BOOKS:
            assert entry.description_for(book)
    by_key = {e.key: e for e in CHECKLIST}
    assert "fidic_calculate_time_bar" in by_key["20.1"].skills
    assert "fidic_calculate_time_bar" in by_key["8.5"].skills
    assert "fidic_search_er" in by_key["4.1"].skills
    assert "fidic_search_er" in by_key["5.1"].skills
    assert by_key["20.1"].priority is Priority.CRITICAL


@pytest.mark.parametrize("book", ALL_BOOKS)
def test_every_item_has_a_baseline_for_every_book(book: str) -> None:
    plugin = fidic_plugin()
    for entry in CHECKLIST:
        position = plugin.baseline(entry.key, book)
        assert position is not None, (entry.key, book)
        assert not position.subtypes or book in position.subtypes


def test_baselines_have_sources_and_valid_books() -> None:
    assert len({b.key for b in BASELINES}) >= 25
    for b in BASELINES:
        assert b.source.strip(), b.key
        assert "our words" in b.source
        assert set(b.subtypes) <= set(ALL_BOOKS)
        assert b.text.strip()
        assert b.title.strip()
    # no key has two positions for the same book
    seen: set[tuple[str, str]] = set()
    for b in BASELINES:
        for book in b.subtypes or list(ALL_BOOKS):
            assert (b.key, book) not in seen, (b.key, book)
            seen.add((b.key, book))


def _shingles(text: str, n: int) -> set[str]:
    words = re.findall(r"\w+", text.lower())
    return {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}


def test_baselines_do_not_copy_the_sample_contracts() -> None:
    sample = _shingles(PC.read_text(encoding="utf-8"), 8)
    zh = ZH.read_text(encoding="utf-8")
    for b in BASELINES:
        copied = _shingles(b.text, 8) & sample
        assert not copied, (b.key, copied)
        for i in range(len(b.text) - 12):
            assert b.text[i : i + 12] not in zh


def test_books_differ_where_the_risk_differs() -> None:
    plugin = fidic_plugin()

    def text(key: str, book: str) -> str:
        position = plugin.baseline(key, book)
        assert position is not None
        return position.text

    assert text("4.12", "silver_book") != text("4.12", "red_book")
    assert "Contractor carries" in text("4.12", "silver_book")
    assert "Employer carries" in text("4.12", "yellow_book")
    assert "Employer's design" in text("4.1", "red_book")
    assert "fit for" in text("4.1", "yellow_book")
    assert "Employer's Representative" in text("3.1", "silver_book")
    assert "Engineer" in text("3.1", "red_book")


def test_numbering_1999() -> None:
    assert NUMBERING_1999["18.1"] == "19.1"
    assert NUMBERING_1999["19.1"] == "18.1"
    assert NUMBERING_1999["20.2"] == "20.1"
    assert NUMBERING_1999["21.6"] == "20.6"
    assert NUMBERING_1999["1.15"] == "17.6"
    assert NUMBERING_1999["8.8"] == "8.7"


@pytest.mark.usefixtures("_registered")
def test_registry_lookup() -> None:
    plugin = get_plugin("fidic")
    assert plugin is not None
    assert plugin.subtypes == ["silver_book", "yellow_book", "red_book"]
    assert plugin.parser_config.structure_type == "fidic"
    assert plugin.build_checklist is build_fidic_checklist
    text = get_baseline_text("fidic", "20.1", "silver_book")
    assert text is not None
    assert "28 days" in text
    assert "84 days" in text
    silver = get_baseline_text("fidic", "4.12", "silver_book")
    red = get_baseline_text("fidic", "4.12", "red_book")
    assert silver
    assert red
    assert silver != red
    assert all(s.domain == "fidic" for s in plugin.skills)
    assert {s.skill_id for s in plugin.skills} <= SKILLS


# --------------------------------------------------------------------------------------------
# Checklist on the Particular Conditions sample
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("book", [*ALL_BOOKS, None])
def test_particular_conditions_checklist(book: str | None) -> None:
    structure = _parse(PC.read_text(encoding="utf-8"))
    items = build_fidic_checklist(structure, book)
    by_id = _by_id(items)
    assert len(by_id) == len(items)
    expected = {
        "20.1": "Claims and time bars",
        "20.2": "Claims and time bars",
        "8.8": "Delay damages",
        "8.5": "Time and extension of time",
        "14.2": "Price and payment",
        "14.9": "Price and payment",
        "4.12": "Site conditions risk",
        "4.1": "Contractor's obligations and design",
        "4.2": "Performance security",
        "17.4": "Care of the Works and indemnities",
        "21.6": "Dispute resolution",
    }
    for cid, topic in expected.items():
        assert by_id[cid].topic == topic, cid
        assert {"fidic_merge_gc_pc", "compare_with_baseline"} <= set(by_id[cid].required_skills)
    assert "fidic_calculate_time_bar" in by_id["20.1"].required_skills
    assert "fidic_search_er" in by_id["4.1"].required_skills
    assert "extract_financial_terms" in by_id["8.8"].required_skills
    assert by_id["20.1"].priority is Priority.CRITICAL
    # sub-clauses outside the checklist get generic low-priority items
    for cid in ("1.2", "21.7"):
        assert by_id[cid].topic is None
        assert by_id[cid].priority is Priority.LOW
        assert by_id[cid].required_skills == GENERIC_SKILLS
    # clause headings holding sub-clauses get none; document order
    assert "20" not in by_id
    assert "preamble" not in by_id
    order = [structure.get_clause(i.clause_id) for i in items]
    offsets = [c.start_offset for c in order if c is not None]
    assert offsets == sorted(offsets)


def test_book_specific_descriptions() -> None:
    structure = _parse(PC.read_text(encoding="utf-8"))
    silver = _by_id(build_fidic_checklist(structure, "silver_book"))["4.12"]
    red = _by_id(build_fidic_checklist(structure, "red_book"))["4.12"]
    assert silver.description != red.description


def test_title_match_when_numbered_differently() -> None:
    text = (
        "Clause 1 General\n\n"
        "Sub-Clause 1.1 Definitions\nWords have the meanings given in the General Conditions "
        "unless the context requires otherwise.\n\n"
        "Sub-Clause 1.2 Delay Damages\nThe Contractor shall pay delay damages of 0.1% of the "
        "contract price per day of delay, up to 10% of the contract price.\n\n"
        "Sub-Clause 1.3 Notice of Claim\nThe Contractor shall give notice of any claim within "
        "21 days after it became aware of the event, failing which the claim is barred.\n\n"
        "Sub-Clause 1.4 Retention Money\nRetention of 5% is held until the end of the defects "
        "period and then released in full.\n"
    )
    by_id = _by_id(build_fidic_checklist(_parse(text), "yellow_book"))
    assert by_id["1.2"].topic == "Delay damages"
    assert "8.8" in by_id["1.2"].description
    assert by_id["1.3"].topic == "Claims and time bars"
    assert by_id["1.4"].topic == "Price and payment"


def test_1999_numbering_is_translated() -> None:
    text = (
        "Clause 8 Commencement, Delays and Suspension\n\n"
        "Sub-Clause 8.4 Extension of Time for Completion\nThe Contractor is entitled to an "
        "extension where completion is delayed by a Variation or by the Employer.\n\n"
        "Sub-Clause 8.7 Delay Damages\nDelay damages are payable at the daily rate stated in "
        "the Appendix to Tender, capped at the stated maximum.\n\n"
        "Clause 17 Risk and Responsibility\n\n"
        "Sub-Clause 17.1 Indemnities\nEach Party indemnifies the other against claims arising "
        "from its own negligence or breach of contract.\n\n"
        "Sub-Clause 17.6 Limitation of Liability\nThe total liability of the Contractor shall "
        "not exceed the Accepted Contract Amount.\n\n"
        "Clause 18 Insurance\n\n"
        "Sub-Clause 18.1 General Requirements for Insurances\nThe Contractor shall effect the "
        "insurances listed below with insurers approved by the Employer.\n\n"
        "Clause 19 Force Majeure\n\n"
        "Sub-Clause 19.1 Definition of Force Majeure\nAn exceptional event beyond a Party's "
        "control which it could not reasonably have avoided or overcome.\n\n"
        "Clause 20 Claims, Disputes and Arbitration\n\n"
        "Sub-Clause 20.1 Contractor's Claims\nThe Contractor shall give notice of a claim "
        "within 28 days, failing which it is not entitled to additional time or payment.\n\n"
        "Sub-Clause 20.2 Appointment of the Dispute Adjudication Board\nThe DAB shall be "
        "appointed within 28 days after a Party gives notice of its intention to refer.\n\n"
        "Sub-Clause 20.6 Arbitration\nDisputes shall be finally settled by arbitration under "
        "the Rules of the ICC by three arbitrators.\n"
    )
    structure = _parse(text)
    assert uses_1999_numbering(structure)
    by_id = _by_id(build_fidic_checklist(structure, "red_book"))
    expected = {
        "8.4": ("8.5", "Time and extension of time"),
        "8.7": ("8.8", "Delay damages"),
        "17.1": ("17.4", "Care of the Works and indemnities"),
        "17.6": ("1.15", "Limitation of liability"),
        "18.1": ("19.1", "Insurance"),
        "19.1": ("18.1", "Exceptional events"),
        "20.1": ("20.1", "Claims and time bars"),
        "20.2": ("21.1", "Dispute resolution"),
        "20.6": ("21.6", "Dispute resolution"),
    }
    for cid, (key, topic) in expected.items():
        assert by_id[cid].topic == topic, cid
        if key != cid:
            assert f"Sub-Clause {key} " in by_id[cid].description, cid


def test_2017_document_is_not_taken_for_1999() -> None:
    assert not uses_1999_numbering(_parse(PC.read_text(encoding="utf-8")))


# --------------------------------------------------------------------------------------------
# Chinese construction contract
# --------------------------------------------------------------------------------------------


def test_chinese_contract_matches_by_title() -> None:
    structure = _parse(ZH.read_text(encoding="utf-8"))
    items = build_fidic_checklist(structure, "red_book")
    by_title = {i.clause_name: i for i in items}
    assert by_title["索赔"].topic == "Claims and time bars"
    assert by_title["违约责任"].topic == "Delay damages"
    assert by_title["质量保证金"].topic == "Price and payment"
    assert "14.9" in by_title["质量保证金"].description
    assert by_title["预付款"].topic == "Price and payment"
    assert by_title["工期顺延"].topic == "Time and extension of time"
    assert by_title["不可抗力"].topic == "Exceptional events"
    assert by_title["争议解决"].topic == "Dispute resolution"
    assert by_title["工程变更"].topic == "Variations"
    assert by_title["竣工验收"].topic == "Taking over and defects"
    assert "fidic_calculate_time_bar" in by_title["索赔"].required_skills
    # Chinese article numbers are not FIDIC ids: 14.2 here is variation pricing, not advance
    by_id = _by_id(items)
    assert by_id.get("14.2") is None or by_id["14.2"].topic != "Price and payment"
    assert by_id.get("17.1") is None or by_id["17.1"].topic is None
    # sub-clauses of a matched article are reviewed with it
    assert "15.1" not in by_id
    # other articles get generic items
    assert by_title["合同文件及解释顺序"].topic is None


def test_baseline_comparison_follows_1999_numbering() -> None:
    """A 1999-numbered '19.1 Force Majeure' is compared with the 2017 Exceptional Events
    position (18.1), not with the 2017 19.1 Insurance position."""
    from contract_review.plugins import load_builtin_plugins
    from contract_review.plugins.registry import get_baseline_for_clause

    load_builtin_plugins()
    text = (
        "Clause 19 Force Majeure\nSub-Clause 19.1 Definition of Force Majeure\n"
        "An exceptional event beyond a Party's control.\n"
        "Clause 20 Claims, Disputes and Arbitration\nSub-Clause 20.1 Contractor's Claims\n"
        "Notice within 28 days.\n"
    )
    structure = StructureParser().parse(text)
    position = get_baseline_for_clause("fidic", structure, "19.1", "red_book")
    assert position is not None
    assert position.key == "18.1"
    claims = get_baseline_for_clause("fidic", structure, "20.1", "red_book")
    assert claims is not None
    assert "28 days" in claims.text
