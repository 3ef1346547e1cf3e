"""Parties found up front and `--party` resolved against them: a name, a label, a role or
neutral; a missing or unknown party stops the review naming the parties found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contract_review.cli import app
from contract_review.models import DocumentStructure, ReviewResult
from contract_review.parties import (
    PartyNotFound,
    PartyRequired,
    find_parties,
    party_roles,
    resolve_party,
)
from contract_review.structure_parser import StructureParser
from tests.conftest import EXAMPLES

runner = CliRunner()

EN = """MASTER SERVICES AGREEMENT

This Master Services Agreement is entered into as of 1 May 2025 by and between Orbital Data \
Systems, Inc., a Delaware corporation with offices at 12 Harbor Road, Boston, MA ("Provider"), \
and Kestrel Foods Limited, a company incorporated in England and Wales (the "Customer").

1. Services
1.1 The Provider shall perform the Services described in each Statement of Work.

2. Fees
2.1 The Customer shall pay each undisputed invoice within 30 days.
"""

ZH = """设备采购合同

甲方（买方）：华东精密仪器有限公司
乙方（卖方）：北岭机电设备有限公司

第一条 货物
乙方应按附件一交付设备。

第二条 付款
甲方应在验收合格后30日内付款。
"""

NO_PREAMBLE = """1. Claims
1.1 The Contractor shall give notice of a claim within 28 days.

2. Payment
2.1 The Employer shall pay within 56 days.
"""


def _parse(text: str) -> DocumentStructure:
    return StructureParser().parse(text, document_id="doc")


def test_parties_of_an_english_preamble() -> None:
    parties = find_parties(_parse(EN))
    assert [(p.name, p.labels[0]) for p in parties] == [
        ("Orbital Data Systems, Inc.", "Provider"),
        ("Kestrel Foods Limited", "Customer"),
    ]
    assert parties[0].roles == ("provider",)


PARAGRAPHS = """SUBSCRIPTION AGREEMENT

This Agreement is entered into as of March 3, 2025 by and between:

COBALTLINE CLOUD SYSTEMS, INC., a Delaware corporation with offices at 400 Mission Street, San \
Francisco, California ("Provider"); and

Meridian Freight Partners LLC, a Texas limited liability company with offices at
12 Commerce Way, Houston, Texas ("Customer").

1. Services
1.1 The Provider shall provide the Services.
"""


def test_parties_each_in_its_own_paragraph() -> None:
    """'by and between:' then one paragraph per party, the name in capitals or wrapped."""
    parties = find_parties(_parse(PARAGRAPHS))
    assert [(p.name, p.labels[0]) for p in parties] == [
        ("COBALTLINE CLOUD SYSTEMS, INC.", "Provider"),
        ("Meridian Freight Partners LLC", "Customer"),
    ]


def test_parties_of_a_chinese_preamble() -> None:
    parties = find_parties(_parse(ZH))
    names = [p.name for p in parties]
    assert names == ["华东精密仪器有限公司", "北岭机电设备有限公司"]
    assert {"甲方", "买方"} <= set(parties[0].labels)
    assert "buyer" in parties[0].roles


@pytest.mark.parametrize(
    ("text", "query", "party", "our_party"),
    [
        (
            EN,
            "Orbital Data Systems, Inc.",
            "Orbital Data Systems, Inc.",
            "Orbital Data Systems, Inc.",
        ),
        (EN, "Customer", "Kestrel Foods Limited", "Customer"),
        (EN, "the Customer", "Kestrel Foods Limited", "Customer"),
        (EN, "client", "Kestrel Foods Limited", "Customer"),  # a synonym of the role
        (EN, "service provider", "Orbital Data Systems, Inc.", "Provider"),
        (ZH, "甲方", "华东精密仪器有限公司", "甲方"),
        (ZH, "卖方", "北岭机电设备有限公司", "卖方"),
        (ZH, "seller", "北岭机电设备有限公司", "卖方"),
        (ZH, "buyer", "华东精密仪器有限公司", "买方"),
        (ZH, "北岭机电设备有限公司", "北岭机电设备有限公司", "北岭机电设备有限公司"),
    ],
)
def test_party_by_name_label_or_role(text: str, query: str, party: str, our_party: str) -> None:
    side = resolve_party(_parse(text), query)
    assert side.party is not None
    assert side.party.name == party
    assert side.our_party == our_party
    assert not side.neutral


def test_neutral() -> None:
    for word in ("neutral", "Neutral", "中立"):
        side = resolve_party(_parse(EN), word)
        assert side.neutral
        assert side.party is None
        assert side.our_party == ""


def test_missing_party_names_the_parties() -> None:
    with pytest.raises(PartyRequired) as caught:
        resolve_party(_parse(EN), None)
    assert not isinstance(caught.value, PartyNotFound)
    message = str(caught.value)
    assert "Orbital Data Systems, Inc." in message
    assert '"Customer"' in message
    assert "\n" not in message
    assert [p.labels[0] for p in caught.value.parties] == ["Provider", "Customer"]


def test_unknown_party_names_the_parties() -> None:
    for query in ("Licensor", "Acme Corp", "承租方"):
        with pytest.raises(PartyNotFound) as caught:
            resolve_party(_parse(EN), query)
        assert "Kestrel Foods Limited" in str(caught.value)


def test_role_words_of_a_text_without_preamble() -> None:
    """General Conditions name no company: a role word the text uses is accepted, one it
    does not use is not."""
    structure = _parse(NO_PREAMBLE)
    assert find_parties(structure) == []
    assert resolve_party(structure, "Contractor").our_party == "Contractor"
    with pytest.raises(PartyNotFound):
        resolve_party(structure, "Licensee")


# --------------------------------------------------------------------------------------------
# The CLI: the four cases
# --------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_DIR", str(tmp_path / "state"))


SUPPLY = EXAMPLES / "generic" / "supply_agreement_en.txt"


def _review(tmp_path: Path, *args: str, stdin: str | None = None) -> tuple[int, str, Path]:
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["review", str(SUPPLY), *args, "--approve", "all", "--out", str(out)], input=stdin
    )
    return result.exit_code, result.output, out


@pytest.mark.parametrize("party", ["Buyer", "Lakeshore Instruments LLC", "purchaser"])
def test_cli_party_by_name_label_or_role(tmp_path: Path, party: str) -> None:
    code, output, out = _review(tmp_path, "--party", party)
    assert code == 0, output
    result = ReviewResult.model_validate_json((out / "findings.json").read_text())
    assert result.is_complete
    # the outputs name the party resolved, however the lawyer named it
    assert result.our_party == 'Lakeshore Instruments LLC ("Buyer")'


def test_cli_neutral_review(tmp_path: Path) -> None:
    code, output, out = _review(tmp_path, "--party", "neutral")
    assert code == 0, output
    result = json.loads((out / "findings.json").read_text())
    assert result["our_party"] == ""  # acting for nobody


def test_cli_missing_party_without_a_terminal(tmp_path: Path) -> None:
    code, output, out = _review(tmp_path)
    assert code == 2
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith("error: --party is required")
    assert "Lakeshore Instruments LLC" in lines[0]
    assert "Granite Peak Components" in lines[0]
    assert "Traceback" not in output
    assert not out.exists()
    assert not (tmp_path / "state" / "tasks").exists()


def test_cli_missing_party_at_a_terminal_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("contract_review.cli.review._interactive", lambda: True)
    code, output, out = _review(tmp_path, stdin="2\n")
    assert code == 0, output
    assert "Whom do we act for?" in output
    assert "1. Lakeshore Instruments LLC" in output
    result = json.loads((out / "findings.json").read_text())
    assert result["our_party"] == 'Granite Peak Components, Inc. ("Supplier")'  # as resolved


def test_cli_unknown_party(tmp_path: Path) -> None:
    code, output, out = _review(tmp_path, "--party", "Licensor")
    assert code == 2
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith("error: --party 'Licensor' matches no party of this contract")
    assert "Granite Peak Components, Inc." in lines[0]
    assert not out.exists()
    assert not (tmp_path / "state" / "tasks").exists()


def test_parties_whose_descriptions_hold_parentheses_or_capitals() -> None:
    """'(organisation number …)' inside a description, 'BETWEEN … AND …' in capitals,
    '(hereinafter referred to as the "Consultant")' and a lower-case 'plc'."""
    text = (
        "AGREEMENT\n\nThis Agreement is made on 2 June 2025 BETWEEN Fjordvik Marine AS, a "
        "Norwegian company (organisation number 921 334 872) having its registered office at "
        'Strandkaien 14, 5013 Bergen, Norway ("Fjordvik"), AND Castlegate Holdings plc, whose '
        "registered office is at 1 Quay Street, Manchester (hereinafter referred to as the "
        '"Consultant").\n\n1. Services\n1.1 The Consultant shall provide the Services.\n'
    )
    structure = StructureParser().parse(text, document_id="c")
    assert [(p.name, p.labels[0]) for p in find_parties(structure)] == [
        ("Fjordvik Marine AS", "Fjordvik"),
        ("Castlegate Holdings plc", "Consultant"),
    ]


def test_a_name_the_filing_spaces_unevenly() -> None:
    """Filings space words unevenly ('INSTITUTE OF  SOIL RESEARCH'): the name typed with single
    spaces is that party, named as the contract writes it, so its words resolve in the text."""
    text = (
        "RESEARCH AGREEMENT\n\nThis Agreement is made on 1 May 2020 between NORTHERN INSTITUTE "
        'OF  SOIL RESEARCH ("NISR"), of Aberdeen, Scotland, and CERES, INC. ("CERES"), a '
        "Delaware corporation.\n\n1. Research\n1.1 NISR may publish the results at any time.\n"
    )
    structure = _parse(text)
    side = resolve_party(structure, "Northern Institute of Soil Research")
    assert side.party is not None
    assert "NISR" in side.party.labels
    assert side.our_party == "NORTHERN INSTITUTE OF  SOIL RESEARCH"
    roles = party_roles(structure, side.our_party)
    assert "NISR" in roles.our_aliases
    assert "CERES" in roles.their_aliases
    with pytest.raises(PartyNotFound):
        resolve_party(structure, "Northern Institute of Marine Research")


@pytest.mark.parametrize("query", ["x-Press", "X-PRESS, INC.", "4Sight", "4SIGHT.NET, INC."])
def test_brand_labels_in_lower_case_or_digits(query: str) -> None:
    """Brands start in lower case or with a digit ('x-Press', '4Sight'); each party is found
    after its address, and each of its names and labels is accepted."""
    text = (
        "MARKETING AGREEMENT\n\nTHIS MARKETING AGREEMENT is made as of June 2, 2001 by and "
        "between X-PRESS, INC., with its principal place of business at 10 Main Street, "
        'Springfield, Illinois 62701 ("x-Press"), and 4SIGHT.NET, INC. having its principal '
        'place of business at 22 Oak Road, Austin, Texas 73301 ("4Sight").\n\n'
        "1. Marketing\n1.1 x-Press may change the fees at any time.\n"
    )
    structure = _parse(text)
    names = {p.name for p in find_parties(structure)}
    assert names == {"X-PRESS, INC.", "4SIGHT.NET, INC."}
    side = resolve_party(structure, query)
    assert side.party is not None
    assert side.party.name in names
    assert query.casefold() in {a.casefold() for a in (side.party.name, *side.party.labels)}


def test_a_word_after_a_digit_is_no_name() -> None:
    """'3rd' or '10 days' start no party name."""
    text = (
        "SERVICES AGREEMENT\n\nThis Agreement is made on the 3rd day of May 2020 between "
        'Orbital Data Systems, Inc. (the "Provider") and Kestrel Foods Limited (the '
        '"Customer").\n\n1. Services\n1.1 The Provider shall respond within 10 days.\n'
    )
    assert [p.name for p in find_parties(_parse(text))] == [
        "Orbital Data Systems, Inc.",
        "Kestrel Foods Limited",
    ]


def test_labels_set_off_by_dashes_or_commas() -> None:
    """Labels given without parentheses ('— hereinafter referred to as Nordwerk —', ',
    hereinafter referred to as: "BRIGHTLINE",'), after a description a page layout broke after
    a comma, name their parties."""
    text = (
        "SUPPLY AGREEMENT\n\nbetween\n\nNORDWERK CHEMIE GmbH & Co KG, Hafenstrasse 9, 28195 "
        "Bremen,\n\nGermany\n\n— hereinafter referred to as Nordwerk —\n\nand\n\nLumos "
        "Therapeutics Inc, 12 Harbor Way, Boston, Massachusetts 02110\n\n— hereinafter referred "
        "to as Lumos —\n\n1. Supply\n1.1 Nordwerk may change the price at any time.\n"
    )
    structure = _parse(text)
    parties = {p.name: p.labels for p in find_parties(structure)}
    assert "Nordwerk" in parties["NORDWERK CHEMIE GmbH"]  # the name ends at its company form
    assert "Lumos" in parties["Lumos Therapeutics Inc"]
    assert resolve_party(structure, "Lumos").party == find_parties(structure)[1]
    roles = party_roles(structure, "Lumos")
    assert "Nordwerk" in roles.their_aliases

    quoted = (
        "HOSTING AGREEMENT\n\nThis Agreement is entered into between Brightline Networks B.V., "
        'Keizersgracht 1, Amsterdam, hereinafter referred to as: "BRIGHTLINE", and Tallis '
        'Mobile Limited, 5 Quay Street, Dublin, hereinafter referred to as: "TALLIS".\n\n'
        "1. Hosting\n1.1 BRIGHTLINE shall host the platform.\n"
    )
    found = {p.name: p.labels for p in find_parties(_parse(quoted))}
    assert "BRIGHTLINE" in found["Brightline Networks B.V."]
    assert "TALLIS" in found["Tallis Mobile Limited"]


_TOC = "".join(f"{n}. Heading {n} ........ {n + 2}\n" for n in range(1, 9))


def test_a_party_labelled_past_a_long_cover_note_is_accepted() -> None:
    """#30: the parties are named past a table of contents and a long cover note, further
    than the preamble is read; a label the document gives a company anywhere is that party,
    and the other parties are the other side."""
    note = "The schedules to this agreement were omitted from the filing as immaterial. " * 90
    text = (
        "LICENCE AND SUPPLY AGREEMENT\n\nCONTENTS\n\n" + _TOC + "\n\n" + note + "\n\n"
        "This Agreement is made on 4 March 2021 between Halvard Biologics AG, a company "
        'organised under Swiss law ("Halvard"), and Penrose Cell Therapies, Inc., a Delaware '
        'corporation ("Penrose").\n\n2. Heading 2\n\n2.1 Halvard shall supply the reagent.\n'
        "2.2 Penrose shall pay each invoice within 30 days.\n"
    )
    structure = _parse(text)
    side = resolve_party(structure, "penrose")
    assert side.party is not None
    assert "Penrose Cell Therapies, Inc." in side.party.labels
    roles = party_roles(structure, side.our_party)
    assert roles.resolved
    assert "Penrose" in roles.our_aliases
    assert "Halvard" in roles.their_aliases
    assert resolve_party(structure, "Halvard Biologics AG").party is not None


def test_parties_named_only_where_they_sign_are_accepted() -> None:
    """A company and a person named only in the signature blocks: by name, by the first words
    of a company's name, and a person by a signature; a capitalised term the contract defines
    is no party."""
    text = (
        "SERVICES LETTER\n\n1. Services\n\n1.1 The consultant shall advise on the launch.\n\n"
        '1.2 Fees are payable on the fifth Business Day of each month ("Business Day" means a '
        "day banks open in London).\n\n2. Law\n\n2.1 English law governs this letter.\n\n"
        "Signed for and on behalf of Marlowe Retail Group plc\n\nBy: ______________\n\n"
        "Name: Alice Fenwick\n\nTitle: Director\n\n/s/ Tobias Renner\n\nTobias Renner\n"
    )
    structure = _parse(text)
    for query in ("Marlowe Retail Group plc", "Marlowe", "Tobias Renner"):
        side = resolve_party(structure, query)
        assert side.party is not None, query
    assert resolve_party(structure, "Marlowe").party.name == "Marlowe Retail Group plc"  # type: ignore[union-attr]
    with pytest.raises(PartyNotFound):
        resolve_party(structure, "Business Day")


def test_a_label_that_acts_as_a_party_is_accepted_and_a_thing_is_not() -> None:
    """A quoted label the preamble never tied to a name ('the "Operator"') is a party when
    the contract makes it act as parties do (agree, pay, indemnify, terminate); a defined
    thing ('the "Equipment"') is not."""
    text = (
        "OPERATING AGREEMENT\n\nThis agreement concerns the terminal at Kessock Quay (the "
        '"Terminal") and the plant installed there (the "Equipment").\n\n1. Operation\n\n'
        '1.1 The operator appointed under Schedule 2 (the "Operator") shall provide the '
        "services.\n1.2 The Operator agrees to keep the Equipment in good repair.\n"
        "1.3 The Operator shall indemnify the owner against third-party claims.\n"
        "1.4 The Equipment shall be insured.\n"
    )
    structure = _parse(text)
    side = resolve_party(structure, "Operator")
    assert side.party is not None
    with pytest.raises(PartyNotFound):
        resolve_party(structure, "Equipment")


def test_a_capitals_label_after_a_name_and_address_is_accepted() -> None:
    """'ACME FIELD SERVICES OF 12 HIGH STREET, LEEDS (ACME)': the label in capitals is a word
    of the name an address follows."""
    text = (
        "DISTRIBUTOR AGREEMENT\n\n1. IDENTIFICATION:\n\nBRAMBLE FIELD SERVICES OF 12 HIGH "
        "STREET, LEEDS LS1 4AB (BRAMBLE) certifies that the Products furnished under this "
        "agreement by NORTHGATE PROBE SYSTEMS, INC. OF 40 MILL LANE, AUSTIN, TEXAS 78701 "
        "(NPS) will be resold by BRAMBLE.\n\n2. PRICES:\n\nNPS may change its prices.\n"
    )
    structure = _parse(text)
    ours = resolve_party(structure, "BRAMBLE")
    assert ours.party is not None
    assert "BRAMBLE FIELD SERVICES" in ours.party.labels
    roles = party_roles(structure, "BRAMBLE")
    assert "BRAMBLE" in roles.our_aliases


def test_a_filing_page_stamp_is_no_party() -> None:
    """'Source: ACME CORP, 8-K, 10/1/2008' printed on each page names no party."""
    text = (
        "Source: HARTWELL MEDIA CORP, 8-K, 10/1/2008\n\nCONTENT LICENSE AGREEMENT\n\nThis "
        'Agreement is made between Hartwell Media Corp. ("Licensor") and Quinta Cable LLC '
        '("Licensee").\n\n1. Licence\n1.1 Licensor grants Licensee a licence.\n'
    )
    parties = find_parties(_parse(text))
    assert all("Source" not in p.labels for p in parties)
    assert {p.name for p in parties} == {"Hartwell Media Corp.", "Quinta Cable LLC"}


def test_a_person_who_is_a_party_is_accepted_by_name_and_surname() -> None:
    """'…, an individual': a person the preamble names without a label is a party, called by
    name or surname; the company is the other side."""
    text = (
        "ENDORSEMENT AGREEMENT\n\nThis Agreement is made as of 2 June 2004 by and between "
        'Larchmont Apparel Co., a Georgia corporation ("Company"), and Imogen Vasquez, an '
        "individual residing in Savannah, Georgia.\n\n1. Appearances\n1.1 Vasquez shall appear "
        "at three events.\n"
    )
    structure = _parse(text)
    for query in ("Imogen Vasquez", "vasquez"):
        side = resolve_party(structure, query)
        assert side.party is not None
        assert side.party.name == "Imogen Vasquez"
    roles = party_roles(structure, "Vasquez")
    assert "Larchmont Apparel Co." in roles.their_aliases


@pytest.mark.parametrize(
    "labels",
    [
        ('(hereafter referred to as "Professional")', '(hereinafter "Client")'),
        ('(the "Professional)', '("Client)'),
        ('(Professional")', '(the "Client")'),
    ],
    ids=["hereafter", "closing-quote-missing", "opening-quote-missing"],
)
def test_labels_in_every_style_go_to_their_own_party(labels: tuple[str, str]) -> None:
    """'hereafter' as 'hereinafter', and a label missing a quote mark, name the party they
    follow; a missed label must not hand the next one to the wrong company."""
    text = (
        f"SERVICES AGREEMENT\n\nThis Agreement is made between Quarry Lane Analytics LLC "
        f"{labels[0]} and Tidewater Clinics Inc. {labels[1]}.\n\n1. Services\n1.1 Professional "
        "shall perform the services for the Client.\n"
    )
    structure = _parse(text)
    named = {p.name: p.labels for p in find_parties(structure)}
    assert "Professional" in named["Quarry Lane Analytics LLC"]
    assert "Client" in named["Tidewater Clinics Inc."]
    assert resolve_party(structure, "professional").party.name == "Quarry Lane Analytics LLC"  # type: ignore[union-attr]


def test_companies_named_without_labels_face_each_other() -> None:
    """'by and between A Inc. and B LLC, each a "Party"': both are parties, each the other's
    other side."""
    text = (
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is made by and between Heron Bakeries Inc. "
        'and Cobalt Cartons LLC, each a "Party".\n\n1. Supply\n1.1 Cobalt Cartons LLC shall '
        "supply the cartons.\n"
    )
    structure = _parse(text)
    assert [p.name for p in find_parties(structure)] == [
        "Heron Bakeries Inc.",
        "Cobalt Cartons LLC",
    ]
    roles = party_roles(structure, "Heron Bakeries")
    assert "Cobalt Cartons LLC" in roles.their_aliases


ZH_MODEL = """建设工程勘察设计合同

第一部分 合同协议书

发包人（全称）：临江城市更新投资有限公司
设计人（全称）：远川建筑设计研究院有限公司

第二部分 通用合同条款

1. 一般约定
1.1 合同当事人
1.1.1 发包人：是指与设计人签订合同协议书的当事人。
1.1.2 分包人：是指按照法律规定和合同约定，承接部分设计工作的单位。

2. 发包人义务
2.1 发包人应当按期支付设计费。
"""


@pytest.mark.parametrize("query", ["设计人", "远川建筑设计研究院有限公司", "designer"])
def test_a_model_contract_names_its_parties_in_the_agreement_form(query: str) -> None:
    """A Chinese model contract names its parties in its 协议书 ('设计人（全称）：…'); its
    definitions ('分包人：是指按照…的单位') describe roles and name no party."""
    structure = _parse(ZH_MODEL)
    parties = find_parties(structure)
    assert [p.name for p in parties] == ["临江城市更新投资有限公司", "远川建筑设计研究院有限公司"]
    side = resolve_party(structure, query)
    assert side.party is not None
    assert side.party.name == "远川建筑设计研究院有限公司"
    assert "临江城市更新投资有限公司" in party_roles(structure, query).their_aliases


def test_a_third_party_label_is_accepted() -> None:
    text = (
        "借款担保合同\n\n甲方（出借人）：宁海商贸有限公司\n乙方（借款人）：甬江物流有限公司\n"
        "丙方（保证人）：东钱湖投资有限公司\n\n第一条 借款\n乙方应当按期还款。\n"
    )
    structure = _parse(text)
    for query in ("丙方", "保证人", "guarantor"):
        side = resolve_party(structure, query)
        assert side.party is not None
        assert side.party.name == "东钱湖投资有限公司"


def test_a_list_of_parties_and_labels_given_together() -> None:
    """Parties listed with commas ('…, Inc. (the "Adviser"), Harrow Securities, Inc. (the
    "Underwriter") and …') and a second label in the same parenthesis ('("Harrow" or the
    "Distributor")'), and a label given to the person a company furnishes ('… the services of
    Lena Marsh ("LM")'): each names its own party."""
    text = (
        "EXPENSE AGREEMENT\n\nThis Agreement is made by and among Wexford Capital Advisers, "
        'Inc. (the "Adviser"), Harrow Securities, Inc. ("Harrow" or the "Distributor") and '
        'Tamsin Funds Trust (the "Trust").\n\n1. Expenses\n1.1 The Distributor shall bear '
        "the marketing costs.\n"
    )
    structure = _parse(text)
    for query in ("Distributor", "Harrow"):
        side = resolve_party(structure, query)
        assert side.party is not None
        assert side.party.name == "Harrow Securities, Inc."
    endorse = (
        "ENDORSEMENT AGREEMENT\n\nThis Agreement is made by and among the following parties:\n\n"
        '(a) Marsh Media, Inc. ("MM Inc."), furnishing the services of Lena Marsh ("LM"), and\n\n'
        '(b) Corliss Optical Group ("Corliss").\n\n1. Services\n1.1 LM shall appear at two '
        "trade shows.\n"
    )
    side = resolve_party(_parse(endorse), "LM")
    assert side.party is not None
    assert "Lena Marsh" in side.party.labels


def test_a_name_another_party_name_holds_names_its_own_party() -> None:
    """'Corvane Asia Mask Corporation' is its own party, not 'Corvane, Inc.' whose name it
    holds: a word a party is called exactly wins over a part of another's name."""
    text = (
        'OUTSOURCING AGREEMENT\n\nThis Agreement is made among Corvane, Inc. ("Corvane"), '
        'Corvane Asia Mask Corporation ("CAMC") and Hollis Tech Ltd ("Hollis").\n\n1. Supply\n'
        "1.1 CAMC shall supply masks to Corvane.\n"
    )
    structure = _parse(text)
    side = resolve_party(structure, "Corvane Asia Mask Corporation")
    assert side.party is not None
    assert side.party.name == "Corvane Asia Mask Corporation"
    roles = party_roles(structure, "Corvane Asia Mask Corporation")
    assert "CAMC" in roles.our_aliases
    assert "CAMC" not in roles.their_aliases


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("Harbour Light Music", "HARBOUR LIGHT MEDIA, INC."),
        ("Quillon Nutrition™", "Quillon Nutrition, Inc."),
        ("Partnership", "Wexmoor"),
    ],
    ids=["d/b/a", "trade-mark", "described-partnership"],
)
def test_a_party_by_another_name_a_mark_or_its_description(query: str, name: str) -> None:
    """'… INC. d/b/a Harbour Light Music' is that party by another name; a trade mark sign is
    no part of a name; a label given after '…, a California general partnership' names an
    organisation though its name has no company form."""
    text = (
        "LICENSE AGREEMENT\n\nThis Agreement is made between Ridgeway Press, Inc. "
        '("Ridgeway") and HARBOUR LIGHT MEDIA, INC., a Delaware corporation d/b/a Harbour Light '
        'Music ("Harbour").\n\n1. Licence\n1.1 Ridgeway grants Harbour a licence.\n\n'
        "Schedule 1\n\nSupplement between Ridgeway Press, Inc. and Quillon Nutrition, Inc. / "
        "Quillon Nutrition™, a Nevada corporation.\n\nThis Memorandum is made among Wexmoor, a "
        'California general partnership ("Partnership"), and its partners.\n\n2. Partnership\n'
        "2.1 The "
        "Partnership shall remain bound.\n"
    )
    side = resolve_party(_parse(text), query)
    assert side.party is not None
    assert name in (side.party.name, *side.party.labels)


def test_a_deed_with_one_party_is_reviewed_for_it_or_neutral(tmp_path: Path) -> None:
    """A deed poll names one party: the review acts for it, by label or name, or for nobody."""
    deed = tmp_path / "deed.txt"
    deed.write_text(
        "DEED POLL\n\nThis Deed Poll is made on 1 June 2021 by Saltmarsh Holdings Limited (the "
        '"Guarantor").\n\n1. Guarantee\n1.1 The Guarantor guarantees the obligations of its '
        "subsidiary under the lease.\n\n2. Law\n2.1 This deed is governed by English law.\n",
        encoding="utf-8",
    )
    structure = _parse(deed.read_text(encoding="utf-8"))
    for query in ("Guarantor", "saltmarsh holdings limited"):
        side = resolve_party(structure, query)
        assert side.party is not None
        assert side.party.name == "Saltmarsh Holdings Limited"
    assert resolve_party(structure, "neutral").neutral
    for party in ("Guarantor", "neutral"):
        out = tmp_path / party
        result = runner.invoke(
            app, ["review", str(deed), "--party", party, "--approve", "none", "--out", str(out)]
        )
        assert result.exit_code == 0, result.output
        assert (out / "report.md").is_file()
