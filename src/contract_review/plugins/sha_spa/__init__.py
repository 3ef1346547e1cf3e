"""The sha_spa plugin: share purchase agreements (SPA) and shareholders' agreements (SHA).

`register_sha_spa_plugin()` registers a `DomainPlugin` with domain_id "sha_spa", subtypes
"spa" and "sha", a checklist per subtype (`checklists.py`; the subtype is detected from the
text when not given), one market-standard `BaselinePosition` per checklist topic — written in
our own words, with its `source` — and the four sha_spa skills.
"""

from __future__ import annotations

from contract_review.models import BaselinePosition
from contract_review.plugins.registry import DomainPlugin, register_plugin
from contract_review.plugins.rules import uncapped_liability_raises_indemnities
from contract_review.plugins.sha_spa.skills import (
    conditions,
    governance,
    indemnity,
    reps_warranties,
)
from contract_review.structure_parser import DocumentParserConfig

from .checklists import (
    MISSING_TOPIC,
    SHA_CHECKLIST,
    SPA_CHECKLIST,
    ChecklistSpec,
    build_sha_spa_checklist,
    detect_subtype,
    find_clause,
)
from .prompts import PROMPT_HINTS

__all__ = [
    "BASELINES",
    "MISSING_TOPIC",
    "SHA_CHECKLIST",
    "SPA_CHECKLIST",
    "ChecklistSpec",
    "build_sha_spa_checklist",
    "detect_subtype",
    "find_clause",
    "register_sha_spa_plugin",
    "sha_spa_plugin",
]

_SPA_SOURCE = (
    "Market practice summary, our words: negotiated private-company share purchases "
    "(English-law style and PRC equity transfers); no firm's or survey's wording."
)
_SHA_SOURCE = (
    "Market practice summary, our words: venture and growth minority investments "
    "(English-law style and PRC 股东协议); no firm's or survey's wording."
)
_GENERAL_SOURCE = "Review method of this plugin (our words)."

_SPA_POSITIONS: dict[str, str] = {
    "Conditions Precedent": "Conditions limited to what the deal needs (regulatory clearance, key consents); each side uses reasonable endeavours on the conditions in its control; a condition may be waived by the party it protects.",
    "Long-Stop Date": "A fixed long-stop date a few months after signing, extendable only by agreement; either party may terminate if conditions are unmet by then.",
    "Material Adverse Change": "A buyer's no-MAC condition or termination right, defined by reference to the target's business, waivable by the buyer only; sellers push for carve-outs of general economic and market changes.",
    "Purchase Price": "Price stated as a fixed sum or a formula (locked box or completion accounts), paid in cash at completion, with any deferred or escrowed part and its release conditions spelt out.",
    "Completion": "Completion a few business days after the last condition is met, with each side's deliverables listed and payment against delivery.",
    "Pre-Completion Conduct": "Between signing and completion the target runs in the ordinary course and needs the buyer's consent (not unreasonably withheld) for material actions.",
    "Title and Capacity Warranties": "Title and capacity warranties given without knowledge or materiality qualifiers, outside the general cap (up to the price) and with a longer claims period.",
    "Business Warranties": "Business warranties cover accounts, tax, litigation, IP, employees, contracts and compliance; knowledge qualifiers only on matters outside the seller's control (threatened claims, third-party infringement).",
    "Disclosure": "Disclosure against the warranties only by specific, fair disclosure in a disclosure letter; no general disclosure of a data room or deemed knowledge of the buyer.",
    "Warranty Repetition": "Buyer: warranties given at signing and repeated at completion by reference to the facts then; seller: given at signing only, or repeated subject to an updated disclosure.",
    "Liability Cap": "Cap for general warranty claims commonly 10-30% of the price (lower with W&I insurance); title, capacity and tax covenant claims capped at the price; no cap for fraud.",
    "Basket and De Minimis": "Basket commonly 0.5-1% of the price; buyers prefer a tipping basket (recovery from the first pound), sellers a deductible; de minimis commonly about 0.05-0.1% of the price.",
    "Claims Time Limits": "General warranty claims notified within 18-24 months of completion (buyers want at least 24); tax claims 4-7 years; title and capacity claims longer still.",
    "Specific Indemnities": "Known risks (identified litigation, environmental or tax exposures) covered by pound-for-pound specific indemnities outside the basket and de minimis and, ideally, outside the general cap.",
    "Tax Covenant": "Seller covenants to pay pre-completion tax of the target not provided for in the accounts, outside the basket and de minimis, with a 4-7 year claims period.",
    "Restrictive Covenants": "Seller's non-compete and non-solicit limited to the target's business and territory for 2-3 years after completion.",
    "Termination": "Termination before completion for either party if conditions are unmet by the long-stop date, and for the buyer on a material breach or MAC.",
    "Governing Law and Disputes": "One governing law and one forum (courts or institutional arbitration with a stated seat), consistent with each other and with the target's jurisdiction.",
}

_SHA_POSITIONS: dict[str, str] = {
    "Board Composition": "A significant minority investor appoints at least one voting director (often one per 10-20% held), can remove and replace its appointee, and has a director on key committees; an observer seat alone is not enough.",
    "Board Meetings and Quorum": "Quorum requires a director appointed by the investor, with an adjourned meeting able to proceed without them only after proper notice; reasonable notice of meetings with papers.",
    "Reserved Matters": "Investor consent needed for new share issues, changes to the articles, liquidation, sale of the business, mergers, related-party transactions, material borrowing and the budget.",
    "Deadlock": "Deadlock resolved neutrally: escalation, mediation, then an agreed exit mechanism; no casting vote for the chair appointed by one side.",
    "Pre-emption": "All shareholders have pro-rata pre-emption on new issues, with narrow carve-outs (approved employee option pool, conversions).",
    "Lock-up and Transfer Restrictions": "Founders are locked up for 3-5 years or until an exit; the investor may transfer freely to affiliates and, after a period, to third parties subject to ROFR.",
    "Right of First Refusal": "Existing shareholders have a ROFR (or ROFO) on transfers to third parties, on the same terms, within a short window, without blocking the investor's own exit.",
    "Tag-Along": "Minority holders may sell on the same terms when a founder or majority sells, at least on a change of control (commonly any transfer over 50%).",
    "Drag-Along": "Drag-along triggered only by a high majority (commonly 66-75%) including the investor, or after a period, with a minimum price or return for the investor and equal terms for all.",
    "Leaver Provisions": "Founder shares vest over about four years; a good leaver keeps vested shares (fair value for unvested), a bad leaver sells at the lower of cost and fair value; definitions clear and narrow.",
    "Information Rights": "Investor receives audited annual accounts within 120 days, quarterly or monthly management accounts, the budget, and inspection rights.",
    "Anti-Dilution": "Broad-based weighted-average anti-dilution protection for the investor on down rounds, with customary carve-outs.",
    "Liquidation Preference": "Investor receives its investment back (1x, non-participating, or participating with a cap) before ordinary shareholders on liquidation or sale.",
    "Redemption": "Investor may require redemption at cost plus a modest return if no exit occurs within 5-7 years or on a founder's material breach.",
    "Founder Non-Compete": "Founders work full time for the company and do not compete during their involvement and for 1-2 years after leaving.",
    "Governing Law and Disputes": "One governing law and one forum (courts or institutional arbitration with a stated seat), consistent with the company's articles.",
}


def _baselines() -> list[BaselinePosition]:
    out: list[BaselinePosition] = []
    for specs, positions, subtype, source in (
        (SPA_CHECKLIST, _SPA_POSITIONS, "spa", _SPA_SOURCE),
        (SHA_CHECKLIST, _SHA_POSITIONS, "sha", _SHA_SOURCE),
    ):
        for spec in specs:
            out.append(
                BaselinePosition(
                    key=spec.topic,
                    title=spec.topic,
                    text=positions[spec.topic],
                    subtypes=[subtype],
                    source=source,
                )
            )
    out.append(
        BaselinePosition(
            key=MISSING_TOPIC,
            title=MISSING_TOPIC,
            text="Every checklist protection should be addressed in the contract; a protection "
            "with no clause is either deliberately left out or should be proposed.",
            source=_GENERAL_SOURCE,
        )
    )
    return out


BASELINES: list[BaselinePosition] = _baselines()
"""One market-standard position per checklist topic (per subtype), plus the missing item."""


def sha_spa_plugin() -> DomainPlugin:
    """The SPA / SHA plugin."""
    return DomainPlugin(
        domain_id="sha_spa",
        name="Share purchase and shareholders' agreements",
        description=(
            "Share purchase agreements (SPA, 股权转让协议) and shareholders' agreements (SHA, "
            "股东协议), English or Chinese: conditions, warranties, limitations and "
            "indemnities; board, vetoes and transfer rights."
        ),
        subtypes=["spa", "sha"],
        parser_config=DocumentParserConfig(structure_type="sha_spa"),
        build_checklist=build_sha_spa_checklist,
        baselines=list(BASELINES),
        skills=[
            conditions.REGISTRATION,
            reps_warranties.REGISTRATION,
            indemnity.REGISTRATION,
            governance.REGISTRATION,
        ],
        cross_clause_rules=[uncapped_liability_raises_indemnities],
        prompt_hints=PROMPT_HINTS,
    )


def register_sha_spa_plugin() -> None:
    """Register (or replace) the sha_spa plugin in the plugin registry."""
    register_plugin(sha_spa_plugin())
