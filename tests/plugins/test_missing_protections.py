"""A protection is missing only when the contract's text deals with it nowhere (#31): a
governing-law sentence inside a miscellaneous clause, a confidentiality clause that opens with
its definition, count as present; a contract without them still gets the notes."""

from __future__ import annotations

from contract_review.graph._findings import missing_protections
from contract_review.models import TextLocation
from contract_review.parties import resolve_party
from contract_review.plugins.generic import PLAYBOOK, build_generic_checklist, topics_anywhere
from contract_review.structure_parser import StructureParser

_HEAD = (
    'DISTRIBUTION AGREEMENT\n\nThis Agreement is made between Pell Audio GmbH ("Supplier") '
    'and Granary Sound LLC ("Distributor").\n\n1. Appointment\n1.1 Supplier appoints '
    "Distributor as its distributor in Ireland.\n\n"
)
_MISC = (
    "9. Miscellaneous\n(a) Notices shall be given in writing to the addresses above.\n"
    "(b) Agreement shall be governed by, and construed in accordance with, the laws of the "
    "State of Delaware, without regard to its conflict of laws rules.\n\n"
    '10. Confidential Information\n"Confidential Information" means all technical and '
    "business information one party receives from the other. Each party shall keep the other's "
    "Confidential Information in strict confidence and shall not disclose it to any third "
    "party.\n"
)


def _missing(text: str) -> set[str]:
    structure = StructureParser().parse(text)
    side = resolve_party(structure, "Distributor")
    items = build_generic_checklist(structure)
    risks = missing_protections(
        PLAYBOOK.positions, items, structure, side, "en", topics_anywhere(structure)
    )
    return {r.position_id for r in risks}


def test_protections_written_in_odd_places_are_not_missing() -> None:
    missing = _missing(_HEAD + _MISC)
    assert "governing_law" not in missing
    assert "confidentiality" not in missing


def test_protections_the_text_lacks_are_missing() -> None:
    missing = _missing(_HEAD)
    assert {"governing_law", "confidentiality"} <= missing


_ZH = (
    "技术服务合同\n\n甲方（委托方）：{a}\n乙方（服务方）：{b}\n\n第一条 服务内容\n"
    "乙方应当按时提供数据维护服务。\n\n第二条 费用\n甲方应当在收到发票后三十日内付款。\n"
)


def _missing_zh(a: str, b: str) -> set[str]:
    structure = StructureParser().parse(_ZH.format(a=a, b=b))
    side = resolve_party(structure, "乙方")
    items = build_generic_checklist(structure)
    risks = missing_protections(
        PLAYBOOK.positions, items, structure, side, "zh-CN", topics_anywhere(structure)
    )
    return {r.position_id for r in risks}


def test_a_domestic_chinese_contract_needs_no_choice_of_law() -> None:
    """#31: between two mainland companies PRC law governs without a clause; with a party
    abroad (Hong Kong, a Latin name) the missing choice of law is a finding."""
    assert "governing_law" not in _missing_zh("上海云启科技有限公司", "杭州数联信息技术有限公司")
    assert "governing_law" in _missing_zh(
        "云栖数智科技（香港）有限公司", "杭州数联信息技术有限公司"
    )
    assert "governing_law" in _missing_zh("Northwind Data GmbH", "杭州数联信息技术有限公司")
    # the other missing protections are unchanged
    assert "confidentiality" in _missing_zh("上海云启科技有限公司", "杭州数联信息技术有限公司")


_NAMED = (
    'SERVICES AGREEMENT\n\nThis Agreement is made between Orrin Labs Inc. ("Orrin") and '
    'Castell Media LLC ("Castell").\n\n1. Services\n1.1 Castell shall design and host the '
    "Site.\n1.2 Orrin shall pay Castell a monthly fee of $8,000 within thirty (30) days of "
    "invoice.\n\n2. Liability\n{liability}\n\n3. Warranties and indemnities\n{warranty}\n"
)


def _missing_for(party: str, liability: str, warranty: str) -> dict[str, str]:
    text = _NAMED.format(liability=liability, warranty=warranty)
    structure = StructureParser().parse(text)
    side = resolve_party(structure, party)
    items = build_generic_checklist(structure)
    risks = missing_protections(
        PLAYBOOK.positions, items, structure, side, "en", topics_anywhere(structure)
    )
    return {r.position_id: r.description for r in risks}


_ONE_CAP = "2.1 In no event shall Orrin's total liability under this Agreement exceed $10,000."
_BOTH_CAP = (
    "2.1 Neither party's aggregate liability under this Agreement shall exceed the fees paid."
)
_DISCLAIMER = (
    "3.1 CASTELL MAKES NO WARRANTY OF ANY KIND AND DISCLAIMS ALL IMPLIED WARRANTIES.\n"
    "3.2 Orrin shall indemnify Castell against all third-party claims arising from Orrin's "
    "content."
)
_WARRANTED = (
    "3.1 Castell warrants that the Site will conform to the Specifications and be free from "
    "material defects.\n3.2 Each party shall indemnify the other against third-party claims "
    "arising from its breach."
)


def test_a_cap_on_the_other_sides_liability_alone_leaves_ours_uncapped() -> None:
    """#31: parties named by their names alone play the roles their payments show — Castell
    is paid (the provider a cap protects), Orrin pays (the customer a warranty protects). A
    cap on Orrin's liability only is no cap for Castell; a cap for both is."""
    missing = _missing_for("Castell", _ONE_CAP, _WARRANTED)
    assert "limitation_of_liability" in missing
    assert "Castell" in missing["limitation_of_liability"]
    assert "limitation_of_liability" not in _missing_for("Castell", _BOTH_CAP, _WARRANTED)
    # Orrin's own liability is capped: nothing missing for it
    assert "limitation_of_liability" not in _missing_for("Orrin", _ONE_CAP, _WARRANTED)


def test_a_disclaimer_is_no_warranty_and_an_indemnity_only_we_give_is_none_for_us() -> None:
    missing = _missing_for("Orrin", _BOTH_CAP, _DISCLAIMER)
    assert "warranties" in missing
    assert "indemnity" in missing
    assert missing["indemnity"].startswith("Castell gives no indemnity")
    balanced = _missing_for("Orrin", _BOTH_CAP, _WARRANTED)
    assert "warranties" not in balanced
    assert "indemnity" not in balanced
    # the warranty protects the party paying: Castell misses none
    assert "warranties" not in _missing_for("Castell", _BOTH_CAP, _DISCLAIMER)


def test_a_protection_the_other_side_alone_has_is_quoted_where_it_stands() -> None:
    """The missing cap points at the cap the contract gives the other side, verbatim: the
    lawyer sees which clause to make mutual. A protection nobody has quotes nothing."""
    text = _NAMED.format(liability=_ONE_CAP, warranty=_WARRANTED)
    structure = StructureParser().parse(text)
    items = build_generic_checklist(structure)

    def located(party: str) -> dict[str, TextLocation | None]:
        risks = missing_protections(
            PLAYBOOK.positions,
            items,
            structure,
            resolve_party(structure, party),
            "en",
            topics_anywhere(structure),
        )
        return {r.position_id: r.location for r in risks}

    cap = located("Castell")["limitation_of_liability"]
    assert isinstance(cap, TextLocation)
    assert cap.clause_id == "2.1"
    assert cap.original_text == _ONE_CAP
    assert cap.start_offset is not None
    assert text[cap.start_offset : cap.end_offset] == _ONE_CAP
    bare = _NAMED.format(liability="2.1 Each party is liable for its own breach.", warranty="")
    bare_structure = StructureParser().parse(bare)
    nothing = missing_protections(
        PLAYBOOK.positions,
        build_generic_checklist(bare_structure),
        bare_structure,
        resolve_party(bare_structure, "Castell"),
        "en",
        topics_anywhere(bare_structure),
    )
    assert [r.location for r in nothing if r.position_id == "limitation_of_liability"] == [None]


def test_a_cap_the_other_side_alone_has_is_missing_for_us_whatever_our_role() -> None:
    """A customer is not asked to have a cap of its own — but a cap on the supplier's liability
    alone, with ours unlimited, is one-way: a lawyer for the customer asks for it mutual."""
    theirs = "2.1 In no event shall Castell's total liability under this Agreement exceed $10,000."
    missing = _missing_for("Orrin", theirs, _WARRANTED)
    assert "limitation_of_liability" in missing
    assert missing["limitation_of_liability"].startswith("No clause caps the amount of Orrin")
    # with no cap anywhere, a customer misses none
    none = "2.1 Each party is liable for its own breach."
    assert "limitation_of_liability" not in _missing_for("Orrin", none, _WARRANTED)


def test_in_a_collaboration_a_party_whose_role_cannot_be_read_still_wants_a_cap() -> None:
    """Neither side pays the other: the roles cannot be read. In a collaboration both perform,
    so the missing cap is asked for; in a contract of no such kind it is not guessed."""
    text = (
        'COOPERATION AGREEMENT\n\nThis Agreement is made between ChipWorks Inc. ("ChipWorks") and '
        'Unigroup Ltd ("Unigroup").\n\n1. Cooperation\n1.1 The parties shall share resources '
        "and introduce customers to each other.\n1.2 Each party shall bear its own costs.\n"
    )
    structure = StructureParser().parse(text)
    items = build_generic_checklist(structure)

    def missing(kind: str | None) -> set[str]:
        risks = missing_protections(
            PLAYBOOK.positions,
            items,
            structure,
            resolve_party(structure, "ChipWorks"),
            "en",
            topics_anywhere(structure),
            kind,
        )
        return {r.position_id for r in risks}

    assert "limitation_of_liability" in missing("collaboration")
    assert "limitation_of_liability" not in missing("supply")


def test_caps_stated_for_each_side_in_turn_protect_both() -> None:
    """'The Architect's liability shall not exceed …, and the Owner's liability shall be limited
    to the same amount': each part is read for its own party — nothing is one-way."""
    both = (
        "2.1 Castell's liability shall not exceed the fees paid in the twelve (12) months "
        "preceding the claim, and Orrin's liability shall be limited to the same amount."
    )
    assert "limitation_of_liability" not in _missing_for("Orrin", both, _WARRANTED)
    assert "limitation_of_liability" not in _missing_for("Castell", both, _WARRANTED)
