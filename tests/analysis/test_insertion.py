"""Our standard clause for a missing protection: placed after the contract's last numbered
clause, numbered in its style, naming the contract and the other side as it does."""

from __future__ import annotations

from contract_review.analysis.insertion import new_clause, self_name
from contract_review.models import ActionType
from contract_review.parties import party_roles
from contract_review.playbook import Position, Wording
from contract_review.structure_parser import StructureParser

EN = """MASTER SERVICES AGREEMENT

This Master Services Agreement is made between Kestrel Freight Ltd (the "Supplier") and Ardent \
Foods plc (the "Client").

1. Services
1.1 The Supplier shall carry the Client's goods.
1.2 The Supplier shall keep the goods insured.

2. Charges
2.1 The Client shall pay the Supplier's invoices within 30 days.

SCHEDULE 1 - RATES
1. Pallet rate: GBP 40.
"""

ZH = """仓储服务合同

甲方：华景物流有限公司
乙方：青禾食品有限公司

第一章 总则
第一条 服务内容
乙方委托甲方提供仓储服务。
第二条 期限
本协议期限为一年。
第二章 费用
第三条 费用支付
乙方应于每月十日前支付上月仓储费。
"""


def _position(en: str, zh: str = "") -> Position:
    return Position(
        id="confidentiality",
        topic="Confidentiality",
        standard=Wording(en="Mutual confidentiality."),
        missing="medium",
        clause=Wording(en=en, zh=zh),
    )


def test_the_clause_follows_the_last_numbered_clause_before_the_schedules() -> None:
    structure = StructureParser().parse(EN, document_id="c")
    position = _position(
        "Confidentiality\nEach party shall keep {contract} confidential.\n"
        "{them} shall return all papers."
    )
    diff = new_clause(structure, position, "en", party_roles(structure, "Client"))
    assert diff is not None
    assert diff.new_clause
    assert diff.action_type is ActionType.INSERT
    assert diff.original_text == ""
    assert diff.proposed_text.splitlines() == [
        "3. Confidentiality",
        "3.1 Each party shall keep this Master Services Agreement confidential.",
        "3.2 The Supplier shall return all papers.",
    ]
    charges = structure.get_clause("2")
    assert charges is not None
    assert diff.clause_id == "2"
    assert diff.start_offset == charges.end_offset
    assert "SCHEDULE" not in EN[: diff.start_offset]
    second = new_clause(structure, position, "en", party_roles(structure, "Client"), earlier=1)
    assert second is not None
    assert second.proposed_text.startswith("4. Confidentiality")
    assert second.diff_id != diff.diff_id or second.proposed_text != diff.proposed_text


def test_a_chinese_contract_gets_the_next_article_under_its_chapters() -> None:
    structure = StructureParser().parse(ZH, document_id="c")
    position = _position("Confidentiality\nx", "保密\n各方应对{contract}内容保密。")
    diff = new_clause(structure, position, "zh-CN", party_roles(structure, "甲方"))
    assert diff is not None
    assert diff.proposed_text.splitlines() == ["第四条 保密", "各方应对本协议内容保密。"]
    assert diff.clause_id == "3"


def test_no_clause_without_wording_or_without_another_side_to_name() -> None:
    structure = StructureParser().parse(EN, document_id="c")
    bare = Position(
        id="x", topic="Confidentiality", standard=Wording(en="Mutual."), missing="medium"
    )
    assert new_clause(structure, bare, "en", None) is None
    duty = _position("Warranties\n{them} warrants the goods.")
    assert new_clause(structure, duty, "en", None) is None


def test_the_contract_is_named_as_it_names_itself() -> None:
    assert self_name("This Lease is made … under this Lease …", "en") == "this Lease"
    assert self_name("nothing here", "en") == "this Agreement"
    assert self_name("本协议自签署之日起生效。本协议一式两份。本合同", "zh-CN") == "本协议"
    assert self_name("无", "zh-CN") == "本合同"


def test_a_contract_that_capitalises_party_gets_party() -> None:
    text = EN.replace(
        "1.2 The Supplier", "1.2 Each Party agrees that the other Party and the Supplier"
    )
    structure = StructureParser().parse(text, document_id="c")
    position = _position(
        "Indemnities\nEach party shall cover third-party claims against the other party."
    )
    diff = new_clause(structure, position, "en", party_roles(structure, "Client"))
    assert diff is not None
    assert diff.proposed_text.splitlines()[1] == (
        "Each Party shall cover third-party claims against the other Party."
    )


def test_the_clause_goes_before_a_signature_block_the_last_clause_runs_into() -> None:
    """Filings run the signature block and exhibits on inside the last clause: the new clause
    goes after its last line of terms, never after the signatures."""
    text = EN.replace(
        "SCHEDULE 1 - RATES\n1. Pallet rate: GBP 40.\n",
        "2.2 Invoices are sent monthly. (remainder of page intentionally left blank)\n\n"
        "IN WITNESS WHEREOF the parties have signed this Agreement.\nKestrel Freight Ltd\n\n"
        "EXHIBIT A\nRates\n",
    )
    structure = StructureParser().parse(text, document_id="c")
    position = _position("Confidentiality\nEach party shall keep {contract} confidential.")
    diff = new_clause(structure, position, "en", party_roles(structure, "Client"))
    assert diff is not None
    assert diff.start_offset is not None
    assert text[: diff.start_offset].endswith("Invoices are sent monthly.")
    assert diff.proposed_text.startswith("3. Confidentiality")


def test_an_amendment_gets_no_new_clause() -> None:
    text = EN.replace("This Master Services Agreement is made", "This Amendment No. 2 is made")
    text = text.replace(
        "1.1 The Supplier shall carry", "1.1 Under this Amendment the Supplier shall carry"
    )
    structure = StructureParser().parse(text, document_id="c")
    position = _position("Confidentiality\nEach party shall keep {contract} confidential.")
    assert new_clause(structure, position, "en", party_roles(structure, "Client")) is None
