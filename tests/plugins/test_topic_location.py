"""Topic location (#30): which clause holds which topic, on wordings found in real filings.

Each case is invented wording of a drafting habit; it fails without the rule it names."""

from __future__ import annotations

import pytest

from contract_review.models import DocumentStructure
from contract_review.plugins.generic import detect_topics
from contract_review.structure_parser import StructureParser


def _parse(text: str) -> DocumentStructure:
    return StructureParser().parse(text, document_id="test")


def _in_untitled(body: str, topic: str) -> list[str]:
    text = (
        "SUPPLY AGREEMENT\n\nThis Agreement is made between Northwind Ltd and Contoso Inc.\n\n"
        "1. Supply\nThe Seller shall deliver the Goods in accordance with each accepted order.\n\n"
        "2. General\n"
        "2.1 All notices under this Agreement shall be in writing and sent to the addresses "
        "set out above.\n"
        f"2.2 {body}\n"
        "2.3 This Agreement is the entire agreement of the parties on its subject matter.\n"
    )
    return [m.clause_id for m in detect_topics(_parse(text)) if m.topic == topic]


# --------------------------------------------------------------------------------------------
# Termination for Convenience
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        # passive, the notice far from the verb
        "This Agreement may be terminated at any time, without payment of any fee or penalty, "
        "as to any one or more of the Locations listed in Schedule 2 or added later by an order "
        "signed by both parties, by the Buyer or by the Seller, in each case on "
        "not less than ninety (90) days' prior written notice to the other.",
        # the discretion before the verb
        "The Buyer may, at its sole option, terminate this Agreement after the first Contract "
        "Year by sending written notice to the Seller.",
        "In its absolute discretion the Buyer may elect to terminate this Agreement on written "
        "notice to the Seller.",
        # a period in years, a redacted period
        "Each party may terminate its participation in this Agreement at the end of any Contract "
        "Year by giving not less than one (1) year's prior notice in writing to the other.",
        "The Buyer may terminate this Agreement in whole or for any Location by giving [***] "
        "written notice of termination to the Seller.",
        # no period at all
        "Either party may terminate this Agreement at any time upon prior written notice.",
        # after the first term has run out
        "The Seller may terminate this Agreement by giving the Buyer sixty (60) days' written "
        "notice at any time after the expiration of the Initial Term.",
    ],
)
def test_an_unconditional_right_to_end_the_contract_is_termination_for_convenience(
    body: str,
) -> None:
    assert _in_untitled(body, "Termination for Convenience") == ["2.2"]


@pytest.mark.parametrize(
    "body",
    [
        # a failure of the other side is a cause
        "If the Buyer fails to order the Minimum Quantity in a Contract Year, the Seller may, at "
        "its sole option, terminate this Agreement on written notice.",
        "Upon any failure by the Buyer to open the letter of credit, the Seller may terminate "
        "this Agreement by giving thirty (30) days' written notice.",
        # ending by agreement of both is no one-sided right
        "This Agreement may be terminated at any time by mutual written agreement of the parties "
        "on such notice as they agree.",
    ],
)
def test_a_right_to_end_the_contract_for_a_cause_is_not_termination_for_convenience(
    body: str,
) -> None:
    assert _in_untitled(body, "Termination for Convenience") == []


# --------------------------------------------------------------------------------------------
# Exclusivity
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        # the law, the terms or the forum that exclusively govern or decide
        "Each purchase order placed by the Buyer shall be subject exclusively to the terms of "
        "this Agreement.",
        "Any controversy between the parties shall be settled exclusively by arbitration in "
        "Geneva under the ICC Rules.",
        # a purpose, goodwill, a remedy that is the only one
        "The steering group is formed for the exclusive purpose of coordinating the supply plan.",
        "All goodwill from the Seller's use of the Buyer's marks inures solely and exclusively "
        "to the Buyer.",
        "THE WARRANTIES OF THE SELLER AND THE REMEDIES OF THE BUYER IN SECTION 6 ARE EXCLUSIVE "
        "AND IN LIEU OF ALL OTHERS.",
        # who prosecutes patents, a right of first refusal
        "The Seller has the sole and exclusive right [***] to prepare, file and maintain the "
        "Seller Patents.",
        "The Buyer has an exclusive right of first refusal over any sale of the Seller's plant.",
        # a statement that there is no exclusivity, a confidentiality duty
        "Nothing in this Agreement shall be construed as creating any exclusive arrangement "
        "between the parties.",
        "Each party agrees that it will not use or disclose to any third party any Confidential "
        "Information of the other party for any purpose other than this Agreement.",
    ],
)
def test_exclusive_as_the_manner_of_a_legal_mechanism_is_not_exclusivity(body: str) -> None:
    # with a weak sign of exclusivity beside it, as in a clause that says more than one thing
    weak = " The Seller is the only supplier named in the Specifications."
    assert _in_untitled(body + weak, "Exclusivity") == []


def test_an_exclusive_licence_covering_confidential_know_how_is_exclusivity() -> None:
    body = (
        "The Seller hereby grants the Buyer an exclusive, royalty-free license to use the "
        "Process and the related Seller Confidential Information in the Territory."
    )
    assert _in_untitled(body, "Exclusivity") == ["2.2"]


# --------------------------------------------------------------------------------------------
# Non-Compete
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "The Distributor's Non-Competition Agreement may not be enforceable in every province.",
        "The disclosure package lists the covenants not to compete that bind the Seller's "
        "directors after they leave.",
    ],
)
def test_a_reference_to_a_non_compete_is_not_one(body: str) -> None:
    assert _in_untitled(body, "Non-Compete") == []


@pytest.mark.parametrize(
    "body",
    [
        "The Seller agrees that during the Term it will not compete with the Buyer in Ontario.",
        "Each Founder covenants and agrees not to compete, directly or indirectly, in the Field.",
    ],
)
def test_a_promise_not_to_compete_is_non_compete(body: str) -> None:
    assert _in_untitled(body, "Non-Compete") == ["2.2"]


# --------------------------------------------------------------------------------------------
# Cap on Liability
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        # who pays once the indemnifier runs the defence or when a claim is settled
        "Once the Indemnitor has assumed the defence of a Claim, it shall not be liable to the "
        "Indemnitee for any legal fees the Indemnitee incurs afterwards.",
        "The Indemnitor will not be liable for any compromise of a Claim made without its "
        "written consent.",
        # an excuse for one event is no limit of liability
        "The Seller shall not be liable for late delivery caused by the Buyer's own instructions.",
    ],
)
def test_a_rule_on_who_pays_for_one_thing_is_not_a_cap_on_liability(body: str) -> None:
    assert _in_untitled(body, "Cap on Liability") == []


@pytest.mark.parametrize(
    "body",
    [
        "The Seller's liability under this Agreement shall in no event exceed the price of the "
        "Goods concerned.",
        "The Agent shall not be liable for any loss or expense which in the aggregate exceeds "
        "the commission paid to it under this Agreement.",
    ],
)
def test_a_ceiling_however_worded_is_a_cap_on_liability(body: str) -> None:
    assert _in_untitled(body, "Cap on Liability") == ["2.2"]


# --------------------------------------------------------------------------------------------
# Anti-Assignment
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        # a sublicence needing consent
        "The Reseller may not sublicense its rights in the Platform without the Vendor's prior "
        "written approval.",
        # a list of verbs with hyphens and commas before the transfer
        "The Reseller shall not sub-license, lend, transfer or otherwise deal in the rights of "
        "use granted to it.",
        # the promise as a missing right, or as an event that never happens
        "Neither party to this Agreement has the right to assign its rights or obligations "
        "hereunder save as this Section provides.",
        "The Reseller shall not have the right to appoint subcontractors to resell the Platform.",
        "In no event shall the Reseller transfer its rights under this Agreement to a competitor "
        "of the Vendor.",
        # a permitted transfer with its limits
        "Either party may, at its election, assign this Agreement to a successor acquiring the "
        "business to which it relates.",
        "Each party may transfer its rights under this Agreement to any of its Affiliates on "
        "prior written notice to the other.",
    ],
)
def test_a_limit_on_passing_the_contract_on_is_anti_assignment(body: str) -> None:
    assert _in_untitled(body, "Anti-Assignment") == ["2.2"]
