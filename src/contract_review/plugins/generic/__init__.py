"""The generic commercial-contract plugin: topic checklist and market-standard positions.

`register_generic_plugin()` registers a `DomainPlugin` with domain_id "generic" whose checklist
comes from topic detection (`topics.py`) and whose baselines are short market-standard positions
per topic, written in our own words.
"""

from __future__ import annotations

from contract_review.models import BaselinePosition
from contract_review.plugins.registry import DomainPlugin, register_plugin
from contract_review.plugins.rules import uncapped_liability_raises_indemnities

from .prompts import PROMPT_HINTS
from .topics import (
    CUAD_TOPICS,
    TOPICS,
    Topic,
    TopicMatch,
    build_generic_checklist,
    detect_topics,
    get_topic,
)

__all__ = [
    "BASELINES",
    "CUAD_TOPICS",
    "TOPICS",
    "Topic",
    "TopicMatch",
    "build_generic_checklist",
    "detect_topics",
    "generic_plugin",
    "get_topic",
    "register_generic_plugin",
]

_SOURCE = "Common market practice in negotiated commercial contracts (our summary)."

_POSITIONS: dict[str, str] = {
    "Cap on Liability": (
        "Mutual cap on each party's aggregate liability, typically the fees paid or payable in "
        "the 12 months before the claim. Indirect and consequential loss (lost profit, revenue, "
        "data, goodwill) excluded for both sides. Carve-outs from cap and exclusion: breach of "
        "confidentiality, infringement of the other's IP and IP indemnities, death or personal "
        "injury caused by negligence, fraud, wilful misconduct and gross negligence. Any time "
        "limit on claims no shorter than the statutory period unless clearly agreed."
    ),
    "Indemnity": (
        "Each party indemnifies the other for third-party claims arising from its own breach, "
        "negligence or IP infringement; the indemnified party gives prompt notice, hands over "
        "control of the defence and cooperates; no settlement admitting fault without consent. "
        "IP indemnity excludes combinations and modifications not made by the indemnifier."
    ),
    "Termination": (
        "Either party may terminate for material breach not cured within 30 days of notice, or "
        "immediately on the other's insolvency. Termination does not affect accrued rights; "
        "fees for work done are paid, data and confidential information are returned, and the "
        "clauses meant to survive are listed."
    ),
    "Termination for Convenience": (
        "If allowed at all, mutual or at least available to our side, on 30 to 90 days' written "
        "notice, with payment for work performed and committed costs up to the termination date "
        "and no penalty beyond an agreed, reasonable wind-down amount."
    ),
    "Anti-Assignment": (
        "Neither party may assign or transfer the contract without the other's prior written "
        "consent, not to be unreasonably withheld; assignment to an affiliate or to a successor "
        "of the whole business allowed on notice; subcontracting allowed with the assignor "
        "remaining responsible; transfers in breach are void."
    ),
    "Change of Control": (
        "A change of control of a party needs only notice, unless the acquirer is a competitor "
        "of the other party, in which case the other party may terminate within a set period; "
        "no automatic termination and no consent right over ordinary share transfers."
    ),
    "Governing Law": (
        "One clearly named governing law, usually that of our home jurisdiction or a neutral "
        "commercial law (e.g. England and Wales, New York, Singapore), excluding conflict-of-law "
        "rules and the UN Convention on the International Sale of Goods where goods are sold; "
        "consistent with the chosen forum."
    ),
    "Dispute Resolution": (
        "Escalation to senior management for a short period, then exclusive jurisdiction of the "
        "courts of the governing-law jurisdiction, or institutional arbitration (e.g. ICC, LCIA, "
        "SIAC, CIETAC) with a stated seat and language for cross-border deals; interim relief "
        "from courts always available."
    ),
    "Confidentiality": (
        "Mutual obligation to keep the other's confidential information secret and use it only "
        "for the contract; usual exclusions (public, already known, independently developed, "
        "received from a third party); disclosure allowed when required by law with notice; "
        "lasting 3 to 5 years after the end, trade secrets for as long as they stay secret; "
        "return or destruction on request."
    ),
    "IP Ownership Assignment": (
        "Each party keeps its background IP. Deliverables paid for by the customer are owned by "
        "it (or licensed perpetually if ownership stays with the supplier); the supplier keeps "
        "its tools and know-how and receives a licence back where needed. Assignments are "
        "present ('hereby assigns'), with further-assurance and moral-rights waiver clauses."
    ),
    "License Grant": (
        "Licence scope stated precisely: licensed subject matter, permitted use, field, "
        "territory, term, exclusivity, sublicensing rights and fees. Non-exclusive and "
        "non-transferable by default; no implied licences; licensor retains ownership and "
        "all rights not expressly granted."
    ),
    "Exclusivity": (
        "Exclusivity only where it is paid for: limited to defined products and territory, for "
        "a fixed term, tied to minimum purchase or performance targets, and falling away (or "
        "becoming non-exclusive) if the targets are missed."
    ),
    "Non-Compete": (
        "Restraints narrowly drawn: limited to the business actually covered by the contract, "
        "the agreed territory and the term plus at most 12 months; no restraint on passive "
        "investments or on businesses acquired as part of a larger acquisition."
    ),
    "Warranties": (
        "Supplier warrants conformity with specifications, performance with reasonable skill "
        "and care, compliance with law and non-infringement, for 12 months from delivery or "
        "acceptance; remedy is repair, replacement or refund; implied warranties disclaimed "
        "only as far as the law allows."
    ),
    "Payment": (
        "Invoices payable within 30 days of receipt; undisputed amounts paid on time while "
        "disputed amounts are resolved in good faith; late-payment interest at a moderate rate; "
        "prices fixed for the term or adjusted by an index; taxes stated separately."
    ),
    "Insurance": (
        "Each party keeps, with reputable insurers, commercial general liability, professional "
        "indemnity or E&O, and product liability cover where products are supplied, with limits "
        "proportionate to the risk (commonly USD/EUR 1-5 million per claim), for the term and a "
        "run-off period; certificates on request and notice of cancellation."
    ),
    "Audit Rights": (
        "Audit limited to records needed to verify payments and compliance, on reasonable "
        "notice (e.g. 30 days), in business hours, at most once a year, by an independent "
        "accountant bound by confidentiality; auditor's cost shifted only for a material "
        "discrepancy (e.g. over 5%); look-back of 2 to 3 years."
    ),
    "Force Majeure": (
        "Mutual relief for events beyond reasonable control that could not be avoided by "
        "reasonable precautions, with prompt notice and mitigation; payment obligations not "
        "excused; either party may terminate if the event lasts more than 60 to 90 days."
    ),
    "Liquidated Damages": (
        "Liquidated damages set at a genuine pre-estimate of loss, at a daily or weekly rate for "
        "delay, capped (commonly at 10% of the contract price), and stated as the sole remedy "
        "for the delay they cover; termination fees proportionate to unrecovered costs."
    ),
}

BASELINES: list[BaselinePosition] = [
    BaselinePosition(key=t.name, title=t.name, text=_POSITIONS[t.name], source=_SOURCE)
    for t in TOPICS
]
"""One market-standard position per topic, keyed by topic name."""


def generic_plugin() -> DomainPlugin:
    """The generic commercial-contract plugin."""
    return DomainPlugin(
        domain_id="generic",
        name="Generic commercial contract",
        description=(
            "Commercial contracts of any kind (supply, services, licence, distribution, "
            "collaboration), in English or Chinese: topic-based checklist and market-standard "
            "positions."
        ),
        build_checklist=build_generic_checklist,
        baselines=list(BASELINES),
        cross_clause_rules=[uncapped_liability_raises_indemnities],
        prompt_hints=PROMPT_HINTS,
    )


def register_generic_plugin() -> None:
    """Register (or replace) the generic plugin in the plugin registry."""
    register_plugin(generic_plugin())
