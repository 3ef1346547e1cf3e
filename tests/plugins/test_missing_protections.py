"""A protection is missing only when the contract's text deals with it nowhere (#31): a
governing-law sentence inside a miscellaneous clause, a confidentiality clause that opens with
its definition, count as present; a contract without them still gets the notes."""

from __future__ import annotations

from contract_review.graph._findings import missing_protections
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
