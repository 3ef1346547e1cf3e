"""Undefined terms on filing-like text: one risk per term where it is first used, and none for
names, bodies, statutes, headings, labels, running heads, plurals or parts of defined terms."""

from __future__ import annotations

from contract_review.models import ClauseNode, DocumentStructure
from contract_review.skills.local.resolve_definition import (
    ResolveDefinitionInput,
    ResolveDefinitionOutput,
    handle,
    risk_rule,
)
from contract_review.skills.risks import RiskFactory
from contract_review.structure_parser import StructureParser

HEAD = "Confidential - Execution Copy"

FILING = f"""MASTER SUPPLY AGREEMENT

This Master Supply Agreement is made by and between Northwind Traders, Inc. ("Northwind")
and Halvorsen Medical AB ("Halvorsen"). Both Parties agree as follows.

1. Definitions
"Deliverable" means each item listed in Exhibit A.
"Phase I Clinical Trial" means a first trial of the Product in humans.
"Product" means the catheter described in Exhibit A.

2. Supply
2.1 Limitation on Scope. Northwind shall supply the Deliverables and the Product. The
Service Credits set out below are Halvorsen's sole remedy for a late delivery.
2.2 Any Clinical Trial of the Product is run by Halvorsen. Both Parties shall report to the
Securities and Exchange Commission and the Food and Drug Administration as the law requires.
{HEAD}
3. Insolvency
3.1 Licences are licences of intellectual property for purposes of Section 365(n) of the
Bankruptcy Code. The [Redacted] schedule applies. Each Service Credit is capped.
{HEAD}
4. Notices
Notices go to Northwind at 1919 Interchange Tower, Minneapolis, Attention: General Counsel.
This Agreement is governed by the laws of the State of New York, and the Gold Star
programme of Halvorsen, known as the "Gold Star" programme, is not affected.
{HEAD}
5. Signatures
By: /s/ Jane Q. Public        By: /s/ Erik Lund
Name: Jane Q. Public          Name: Erik Lund
"""


def _structure(text: str) -> DocumentStructure:
    return StructureParser().parse(text, document_id="test")


def _all(structure: DocumentStructure) -> list[tuple[ClauseNode, ResolveDefinitionOutput]]:
    return [
        (c, handle(ResolveDefinitionInput(clause_id=c.clause_id, document_structure=structure)))
        for c in structure.iter_clauses()
    ]


def _risks(structure: DocumentStructure) -> list[tuple[str, str, str]]:
    """The risks of the innermost clauses (a review keeps a parent's risk on the same words
    once, on the sub-clause: `one_risk_per_quote`)."""
    return [
        (r.clause_id, r.risk_type, r.location.original_text if r.location else "")
        for clause, out in _all(structure)
        if not clause.children
        for r in risk_rule(RiskFactory(clause), out)
    ]


def test_a_term_used_undefined_is_one_risk_where_it_is_first_used() -> None:
    risks = _risks(_structure(FILING))
    assert risks == [("2.1", "undefined term", "Service Credits")]


def test_names_bodies_statutes_headings_labels_and_defined_forms_are_not_terms() -> None:
    structure = _structure(FILING)
    found = {u.term for _, out in _all(structure) for u in out.undefined_terms}
    assert found == {"Service Credits"}


def test_later_clauses_list_the_term_without_reporting_it_again() -> None:
    structure = _structure(FILING)
    later = handle(ResolveDefinitionInput(clause_id="3.1", document_structure=structure))
    assert [(u.term, u.occurrences, u.first_use) for u in later.undefined_terms] == [
        ("Service Credits", 1, False)
    ]
    assert "Each Service Credit is capped" in later.undefined_terms[0].quote
    clause = structure.get_clause("3.1")
    assert clause is not None
    assert risk_rule(RiskFactory(clause), later) == []


def test_terms_defined_in_another_document_are_noted_once() -> None:
    text = FILING.replace(
        "1. Definitions\n",
        "1. Definitions\nCapitalized terms used but not defined herein have the meanings given "
        "to them in the Framework Agreement.\n",
    )
    risks = _risks(_structure(text))
    assert [(c, t) for c, t, _ in risks] == [("1", "terms defined elsewhere")]
    assert risks[0][2].startswith("Capitalized terms used but not defined herein")


def test_a_word_the_contract_also_writes_in_lower_case_is_not_a_term() -> None:
    text = (
        "1. Supply\nThe Aircraft shall be serviced. Each Aircraft has a log. The Aircraft "
        "records are kept.\n2. Records\nEvery aircraft is insured.\n"
    )
    assert _risks(_structure(text)) == []
    defined = text.replace("Every aircraft", "Every plane")
    assert _risks(_structure(defined)) == [("1", "undefined term", "Aircraft")]


def test_chinese_quoted_term_is_reported_once() -> None:
    text = (
        "第一条 定义\n“工程”是指本合同项下的全部工作。\n"
        "第二条 验收\n承包人取得“竣工证书”后方可结算。\n"
        "第三条 付款\n“竣工证书”签发后三十日内付款。\n"
    )
    assert _risks(_structure(text)) == [("2", "undefined term", "竣工证书")]


def test_words_capitalised_by_convention_are_not_terms() -> None:
    # used as terms are ('the Internet', 'its Website'), several times each
    uses = " ".join(
        f"Northwind posts report {n} on the Internet and on its Website, and sends it by the "
        f"Email service."
        for n in range(1, 5)
    )
    text = FILING.replace("2.2 Any Clinical Trial", f"2.3 {uses}\n2.2 Any Clinical Trial")
    found = {u.term for _, out in _all(_structure(text)) for u in out.undefined_terms}
    assert not found & {"Internet", "Website", "Email"}
