"""Baseline positions of the FIDIC 2017 books (Red, Yellow, Silver), in our own words.

Every position is a short summary written by us of where the 2017 General Conditions leave a
point: clause numbers, titles, periods, percentages and which Party bears which risk. None of
it is FIDIC wording, and none of it replaces the licensed General Conditions: when the user
loads the licensed text as the BASELINE document, the comparison uses that text instead.

A position shared by the three books has `subtypes=[]`; where the books differ there is one
position per book (or per group of books). `NUMBERING_1999` maps 2017 sub-clause ids to the
1999 ids of the same subject, for contracts drafted on the 1999 books.
"""

from __future__ import annotations

from contract_review.models import BaselinePosition

__all__ = [
    "ALL_BOOKS",
    "BASELINES",
    "NUMBERING_1999",
    "RED",
    "SILVER",
    "YELLOW",
]

RED = "red_book"
YELLOW = "yellow_book"
SILVER = "silver_book"
ALL_BOOKS: tuple[str, ...] = (SILVER, YELLOW, RED)

_BOOK_NAMES = {RED: "Red Book", YELLOW: "Yellow Book", SILVER: "Silver Book"}


def _src(books: list[str], where: str, fact: str) -> str:
    names = " and ".join(_BOOK_NAMES[b] for b in books) if books else "Red, Yellow and Silver"
    books_word = "Book" if len(books) == 1 else "Books"
    if books and len(books) == 1:
        label = f"FIDIC 2017 {names}"
    else:
        label = f"FIDIC 2017 {names.replace(' Book', '')} {books_word}"
    return f"{label}, {where} — {fact}; summarised in our words"


def _p(
    key: str, title: str, text: str, where: str, fact: str, books: list[str] | None = None
) -> BaselinePosition:
    subtypes = list(books or [])
    return BaselinePosition(
        key=key, title=title, text=text, subtypes=subtypes, source=_src(subtypes, where, fact)
    )


BASELINES: list[BaselinePosition] = [
    # ---------------------------------------------------------------- 1 General Provisions
    _p(
        "1.1",
        "Definitions",
        "Red Book: the contract is administered by the Engineer; the Works are built to the "
        "Employer's design (Drawings, Specification) and priced on a Bill of Quantities. Key "
        "terms to check: Accepted Contract Amount, Base Date (28 days before the tender "
        "deadline), Commencement Date, Time for Completion, Contract Data (replaces the 1999 "
        "Appendix to Tender), Cost (no profit) and Cost Plus Profit (5% unless the Contract "
        "Data says otherwise), Unforeseeable (not reasonably foreseeable by an experienced "
        "contractor by the Base Date), Exceptional Event, Claim, Dispute and Notice.",
        "Sub-Clause 1.1",
        "defined terms, Base Date 28 days, profit 5% default",
        [RED],
    ),
    _p(
        "1.1",
        "Definitions",
        "Yellow Book: the contract is administered by the Engineer; the Contractor designs to "
        "the Employer's Requirements and the price is a lump sum. Key terms to check: Employer's "
        "Requirements, Schedule of Guarantees, Accepted Contract Amount, Base Date (28 days "
        "before the tender deadline), Commencement Date, Time for Completion, Contract Data, "
        "Cost and Cost Plus Profit (5% unless the Contract Data says otherwise), Unforeseeable, "
        "Exceptional Event, Claim, Dispute and Notice.",
        "Sub-Clause 1.1",
        "defined terms, Base Date 28 days, profit 5% default",
        [YELLOW],
    ),
    _p(
        "1.1",
        "Definitions",
        "Silver Book: there is no Engineer; the Employer administers the contract itself, "
        "optionally through an Employer's Representative. The Contractor designs to the "
        "Employer's Requirements for a lump sum and the Contract Agreement is the central "
        "document. Key terms to check: Employer's Representative, Employer's Requirements, "
        "Schedule of Guarantees, Contract Price, Base Date, Commencement Date, Time for "
        "Completion, Contract Data, Cost and Cost Plus Profit, Exceptional Event, Claim, "
        "Dispute and Notice.",
        "Sub-Clause 1.1",
        "defined terms; Employer's Representative instead of an Engineer",
        [SILVER],
    ),
    _p(
        "1.15",
        "Limitation of Liability",
        "Neither Party is liable to the other for loss of use, loss of profit, loss of contract "
        "or indirect or consequential loss, except for a short list of payments the contract "
        "itself provides for (such as delay damages and payments on termination). The "
        "Contractor's total liability to the Employer is capped at the amount in the Contract "
        "Data, or the Accepted Contract Amount if none is stated; a few listed obligations "
        "(e.g. utilities, Employer-supplied equipment, intellectual property indemnities) sit "
        "outside the cap. Neither the exclusion nor the cap protects a Party guilty of fraud, "
        "gross negligence, deliberate default or reckless misconduct.",
        "Sub-Clause 1.15 (1999: Sub-Clause 17.6)",
        "mutual exclusion of indirect loss, cap per Contract Data, carve-out for fraud and "
        "gross negligence",
    ),
    # ---------------------------------------------------------------- 2 The Employer
    _p(
        "2.1",
        "Right of Access to the Site",
        "The Employer must give the Contractor access to and possession of the Site by the "
        "time(s) stated in the Contract Data, or otherwise in time for the Contractor to work "
        "to its programme. If the Employer is late, the Contractor is entitled, through the "
        "claims procedure, to an extension of time and to Cost Plus Profit.",
        "Sub-Clause 2.1",
        "Employer bears late access to the Site (time, Cost and profit)",
    ),
    # ---------------------------------------------------------------- 3 Administration
    _p(
        "3.1",
        "The Engineer",
        "The Employer appoints an Engineer, a suitably qualified professional, to administer "
        "the contract. The Engineer generally acts for the Employer, but when agreeing or "
        "determining a matter under Sub-Clause 3.7 must act neutrally between the Parties. "
        "The Employer may not replace the Engineer without notice to the Contractor.",
        "Sub-Clauses 3.1, 3.2 and 3.6",
        "independent Engineer; neutral when determining",
        [RED, YELLOW],
    ),
    _p(
        "3.1",
        "The Employer's Representative",
        "There is no Engineer. The Employer may appoint an Employer's Representative to act "
        "for it with the authority stated; otherwise the Employer acts directly. Agreements and "
        "determinations are made by the Employer's Representative under Sub-Clause 3.5, "
        "neutrally between the Parties.",
        "Clause 3 (The Employer's Administration)",
        "Employer's Representative instead of Engineer",
        [SILVER],
    ),
    _p(
        "3.7",
        "Agreement or Determination",
        "The Engineer first consults the Parties to reach agreement; failing agreement within "
        "42 days it makes a fair determination within a further 42 days. A Party dissatisfied "
        "with a determination must give a notice of dissatisfaction within 28 days, or the "
        "determination becomes final and binding.",
        "Sub-Clause 3.7 (1999: Sub-Clause 3.5)",
        "42 + 42 days; 28-day notice of dissatisfaction",
        [RED, YELLOW],
    ),
    _p(
        "3.5",
        "Agreement or Determination",
        "The Employer's Representative first consults the Parties to reach agreement; failing "
        "agreement within 42 days it makes a fair determination within a further 42 days, "
        "acting neutrally. A Party dissatisfied with a determination must give a notice of "
        "dissatisfaction within 28 days, or the determination becomes final and binding.",
        "Sub-Clause 3.5",
        "42 + 42 days; 28-day notice of dissatisfaction",
        [SILVER],
    ),
    # ---------------------------------------------------------------- 4 The Contractor
    _p(
        "4.1",
        "Contractor's General Obligations",
        "The Contractor builds the Works to the Employer's design. It designs only the parts "
        "the Specification assigns to it, and only for those parts must they be fit for the "
        "purposes stated in the Contract. Otherwise the Employer bears the risk of its own "
        "design.",
        "Sub-Clause 4.1",
        "Employer designs; Contractor responsible only for any design it is given",
        [RED],
    ),
    _p(
        "4.1",
        "Contractor's General Obligations",
        "The Contractor designs, executes and completes the Works. When complete the Works must "
        "be fit for the purposes defined in the Employer's Requirements (or, where none are "
        "defined, their ordinary purposes). The purpose is the one described in the contract, "
        "not any purpose the Employer may later have in mind.",
        "Sub-Clause 4.1",
        "fitness for the purposes defined in the contract",
        [YELLOW],
    ),
    _p(
        "4.1",
        "Contractor's General Obligations",
        "The Contractor designs, executes and completes the Works on a turnkey basis. When "
        "complete the Works must be fit for the purposes defined in the contract. The purpose "
        "is the one described in the contract, not any purpose the Employer may later have in "
        "mind.",
        "Sub-Clause 4.1",
        "turnkey; fitness for the purposes defined in the contract",
        [SILVER],
    ),
    _p(
        "4.2",
        "Performance Security",
        "The Contractor provides a performance security for the amount and currencies stated "
        "in the Contract Data within 28 days after the Letter of Acceptance (Silver: after the "
        "contract is signed). It stays valid until the defects period ends and is returned "
        "within 21 days after the Performance Certificate. The Employer may call it only for "
        "amounts it is entitled to under the contract, and must compensate the Contractor for "
        "any call it was not entitled to make. The amount is adjusted if Variations change the "
        "price by more than 20%.",
        "Sub-Clause 4.2",
        "amount per Contract Data, 28 days to provide, calls limited to entitlements",
    ),
    _p(
        "4.12",
        "Unforeseeable Physical Conditions",
        "The Employer carries the risk of physical conditions at the Site (ground, water, "
        "man-made obstructions; climate excluded) that an experienced contractor could not "
        "have foreseen by the Base Date. After giving notice the Contractor is entitled, "
        "through the claims procedure, to an extension of time and Cost (not profit). The "
        "Engineer may take into account more favourable conditions met elsewhere, but the net "
        "effect cannot reduce the price.",
        "Sub-Clause 4.12",
        "Employer bears unforeseeable physical conditions (time and Cost)",
        [RED, YELLOW],
    ),
    _p(
        "4.12",
        "Unforeseeable Difficulties",
        "The Contractor carries the risk of unforeseen difficulties. It is taken to have "
        "obtained all information about risks and circumstances that could affect its tender, "
        "and by signing accepts full responsibility for foreseeing every difficulty and its "
        "cost. The Contract Price is not adjusted for unforeseen difficulties or costs unless "
        "the contract says otherwise.",
        "Sub-Clause 4.12 (Unforeseeable Difficulties)",
        "Contractor bears unforeseen difficulties and costs",
        [SILVER],
    ),
    # ---------------------------------------------------------------- 5 Design / Subcontracting
    _p(
        "5.1",
        "Subcontractors",
        "In the Red Book Clause 5 deals with subcontracting, not design: the Contractor may "
        "not subcontract the whole of the Works nor more than any limit in the Contract Data, "
        "and stays responsible for its subcontractors. Design by the Contractor arises only "
        "where the Specification requires it (see Sub-Clause 4.1).",
        "Sub-Clauses 4.1 and 5.1",
        "Employer's design; Contractor responsible for subcontractors",
        [RED],
    ),
    _p(
        "5.1",
        "General Design Obligations",
        "The Contractor carries out and is responsible for the design, using qualified "
        "designers. It must scrutinise the Employer's Requirements within the period in the "
        "Contract Data and report errors. Under Sub-Clause 1.9 the Employer stays responsible "
        "for errors in its Requirements that an experienced contractor exercising due care "
        "would not have found, with time and Cost Plus Profit for the Contractor.",
        "Sub-Clauses 1.9 and 5.1",
        "Contractor designs; Employer bears undiscoverable errors in its Requirements",
        [YELLOW],
    ),
    _p(
        "5.1",
        "General Design Obligations",
        "The Contractor carries out and is responsible for the design and is taken to have "
        "checked the Employer's Requirements before the Base Date. It is responsible for their "
        "accuracy too, except for the parts the Employer remains responsible for: data stated "
        "to be unchangeable or the Employer's responsibility, the definition of the intended "
        "purposes of the Works, the criteria for testing and performance, and data the "
        "Contractor could not verify.",
        "Sub-Clause 5.1",
        "Contractor bears errors in the Employer's Requirements save listed exceptions",
        [SILVER],
    ),
    # ---------------------------------------------------------------- 8 Time
    _p(
        "8.1",
        "Commencement of Works",
        "The Contractor is given at least 14 days' notice of the Commencement Date, which "
        "falls within 42 days after the Letter of Acceptance (Silver: after the contract comes "
        "into force) unless the Particular Conditions say otherwise. The Contractor then starts "
        "as soon as reasonably practicable and proceeds without delay.",
        "Sub-Clause 8.1",
        "14-day notice; Commencement Date within 42 days",
    ),
    _p(
        "8.2",
        "Time for Completion",
        "The Contractor must complete the whole of the Works, and each Section, within the "
        "Time for Completion in the Contract Data, including passing the Tests on Completion "
        "and finishing everything needed for taking over. The Time for Completion runs from "
        "the Commencement Date and is extended under Sub-Clause 8.5.",
        "Sub-Clause 8.2",
        "Time for Completion per Contract Data",
    ),
    _p(
        "8.5",
        "Extension of Time for Completion",
        "Subject to the claims procedure of Sub-Clause 20.2, the Contractor gets more time if "
        "completion is delayed by: a Variation (no claim notice needed); a cause that another "
        "Sub-Clause says gives an extension; exceptionally adverse climatic conditions; "
        "unforeseeable shortages of personnel or goods caused by epidemic or government "
        "action; or delay caused by the Employer, its personnel or its other contractors. "
        "Concurrent delay is dealt with by any rules in the Special Provisions, otherwise "
        "fairly on the circumstances.",
        "Sub-Clause 8.5 (1999: Sub-Clause 8.4)",
        "five grounds for extension incl. climate and shortages",
        [RED, YELLOW],
    ),
    _p(
        "8.5",
        "Extension of Time for Completion",
        "Subject to the claims procedure of Sub-Clause 20.2, the Contractor gets more time if "
        "completion is delayed by: a Variation (no claim notice needed); a cause that another "
        "Sub-Clause says gives an extension; or delay caused by the Employer, its personnel or "
        "its other contractors. Unlike the Red and Yellow Books, adverse climate and "
        "shortages of labour or goods are the Contractor's risk. Concurrent delay is dealt "
        "with by any rules in the Special Provisions, otherwise fairly on the circumstances.",
        "Sub-Clause 8.5 (1999: Sub-Clause 8.4)",
        "three grounds for extension; climate and shortages at Contractor's risk",
        [SILVER],
    ),
    _p(
        "8.8",
        "Delay Damages",
        "If the Contractor misses the Time for Completion, the Employer is entitled, through "
        "the claims procedure of Sub-Clause 20.2, to delay damages at the daily rate in the "
        "Contract Data, up to the maximum stated there. They are the only damages for that "
        "delay (other than on termination before completion) and do not release the "
        "Contractor from completing. The cap does not apply in case of fraud, gross "
        "negligence, deliberate default or reckless misconduct.",
        "Sub-Clause 8.8 (1999: Sub-Clause 8.7)",
        "daily rate and maximum per Contract Data; exclusive remedy for delay",
    ),
    # ---------------------------------------------------------------- 10-11 Completion, defects
    _p(
        "10.1",
        "Taking Over the Works and Sections",
        "The Works are taken over once complete (Tests on Completion passed) and a Taking-Over "
        "Certificate is issued. The Contractor may apply no earlier than 14 days before it "
        "expects to complete; within 28 days the certificate is issued or the application "
        "rejected with reasons. If nothing is done within the 28 days and the Works "
        "substantially comply, the certificate is treated as issued. Silver Book: the Employer "
        "issues it.",
        "Sub-Clause 10.1",
        "14-day application window, 28-day response, deemed taking-over",
    ),
    _p(
        "11.1",
        "Completion of Outstanding Work and Remedying Defects",
        "During the Defects Notification Period (per the Contract Data; 365 days if none is "
        "stated) the Contractor finishes outstanding work and repairs defects notified to it. "
        "Under Sub-Clause 11.3 the period can be extended for defects that stop the Works "
        "being used, but by no more than two years in total.",
        "Sub-Clauses 11.1 and 11.3",
        "Defects Notification Period per Contract Data (default 365 days), extension max 2 years",
    ),
    # ---------------------------------------------------------------- 13 Variations
    _p(
        "13.1",
        "Right to Vary",
        "Variations may be instructed at any time before taking over. The Contractor must carry "
        "them out unless it promptly objects on a listed ground (it cannot readily obtain the "
        "goods, the change would harm health and safety or the environment, or in the "
        "Yellow/Silver Books it would affect the performance guarantees). A Variation may not "
        "omit work so that the Employer or others can carry it out instead, unless agreed. "
        "Valuation follows Sub-Clause 13.3 with time and money.",
        "Sub-Clauses 13.1 and 13.3",
        "right to vary before taking over; Contractor's grounds to object; no omission to others",
    ),
    # ---------------------------------------------------------------- 14 Price and payment
    _p(
        "14.1",
        "The Contract Price",
        "Red Book: a re-measurement contract. The Contract Price is the value of the work "
        "actually done, measured under Clause 12 at the rates of the Bill of Quantities; the "
        "quantities in the Bill are estimates only.",
        "Sub-Clause 14.1 and Clause 12",
        "re-measured price",
        [RED],
    ),
    _p(
        "14.1",
        "The Contract Price",
        "A lump-sum contract: the Contract Price is the Accepted Contract Amount (Silver: the "
        "agreed Contract Price), adjusted only as the contract provides (Variations, changes in "
        "law, cost indexation if the Contract Data provides for it). The Contractor pays its "
        "own taxes and duties.",
        "Sub-Clause 14.1",
        "lump sum subject to contractual adjustment",
        [YELLOW, SILVER],
    ),
    _p(
        "14.2",
        "Advance Payment",
        "If the Contract Data provides one, the Employer pays an advance as an interest-free "
        "loan for mobilisation (and design, where the Contractor designs) once the Contractor "
        "has supplied the performance security and an advance payment guarantee. It is repaid "
        "by deductions from interim payments; unless the Contract Data says otherwise they "
        "start when certified payments exceed 10% of the Accepted Contract Amount and run at "
        "25% of each payment until repaid.",
        "Sub-Clause 14.2",
        "interest-free advance; repayment default 10% trigger and 25% rate",
    ),
    _p(
        "14.3",
        "Application for Interim Payment",
        "After the end of each payment period in the Contract Data (monthly if none is "
        "stated), the Contractor submits a Statement with supporting documents showing the "
        "value of work done, Variations and adjustments, retention, advance repayments and "
        "other additions and deductions. An incomplete statement is corrected in later "
        "payments; it does not forfeit payment.",
        "Sub-Clause 14.3",
        "monthly Statements; items to include",
    ),
    _p(
        "14.7",
        "Payment",
        "The Employer pays the amount of each Interim Payment Certificate within 56 days after "
        "the Engineer receives the Statement and supporting documents (the Engineer certifies "
        "within 28 days under Sub-Clause 14.6, and may not withhold certification for reasons "
        "other than those listed). Final payment falls due within 56 days after the Employer "
        "receives the Final Payment Certificate.",
        "Sub-Clauses 14.6 and 14.7",
        "certification 28 days; payment 56 days",
        [RED, YELLOW],
    ),
    _p(
        "14.7",
        "Payment",
        "There is no certification by an Engineer: the Employer pays the amount due under each "
        "interim Statement within 56 days after receiving the Statement and supporting "
        "documents, and may reduce it only for reasons it gives. Final payment follows the "
        "Final Statement and written discharge within the period in the General Conditions.",
        "Sub-Clause 14.7",
        "interim payment 56 days after receipt of the Statement",
        [SILVER],
    ),
    _p(
        "14.8",
        "Delayed Payment",
        "If the Employer pays late, the Contractor is automatically entitled to financing "
        "charges on the unpaid amount, compounded monthly, for the period of delay, without "
        "having to give notice or make a claim. Unless the Contract Data says otherwise the "
        "rate is 3 percentage points above the central bank discount rate of the currency of "
        "payment.",
        "Sub-Clause 14.8",
        "financing charges at discount rate + 3 points, no claim needed",
    ),
    _p(
        "14.9",
        "Release of Retention Money",
        "Retention is deducted from interim payments at the percentage and up to the limit in "
        "the Contract Data. Half of it is released once the Taking-Over Certificate for the "
        "Works is issued (proportionally for Sections) and the balance after the last Defects "
        "Notification Period has expired; only the cost of outstanding remedial work may be "
        "held back, not general claims.",
        "Sub-Clauses 14.3(c) and 14.9",
        "retention per Contract Data; half at taking over, balance after defects period",
    ),
    # ---------------------------------------------------------------- 15-16 Termination
    _p(
        "15.2",
        "Termination for Contractor's Default",
        "The Employer may terminate for serious default: failing to comply with a notice to "
        "correct, abandoning the Works, failing to proceed, exceeding the maximum delay "
        "damages, failing to comply with a binding decision, unauthorised subcontracting or "
        "assignment, insolvency, or corruption. It first gives notice of its intention; the "
        "Contractor has 14 days to remedy before a second notice terminates (immediately for "
        "insolvency or corruption). The Employer may then complete the Works and recover its "
        "extra costs.",
        "Sub-Clauses 15.1 to 15.4",
        "listed default grounds; notice of intention and 14-day remedy period",
    ),
    _p(
        "15.5",
        "Termination for Employer's Convenience",
        "The Employer may end the contract at any time for its convenience by notice, taking "
        "effect 28 days after the later of the Contractor receiving the notice or the return "
        "of the performance security. It may not terminate in order to do the Works itself or "
        "give them to another contractor. The Contractor is paid for work done, its costs of "
        "demobilisation and, in the 2017 books, loss of profit or other losses caused by the "
        "termination.",
        "Sub-Clauses 15.5 to 15.7",
        "convenience termination on 28 days; no re-letting; Contractor paid incl. lost profit",
    ),
    _p(
        "16.1",
        "Suspension by Contractor",
        "If the Employer does not certify, pay, show its financial arrangements or comply with "
        "a binding agreement, determination or DAAB decision, the Contractor may, on at least "
        "21 days' notice, suspend or slow down work until the failure is cured, and claim time "
        "and Cost Plus Profit for the consequences.",
        "Sub-Clause 16.1",
        "21-day notice; time and Cost Plus Profit",
    ),
    _p(
        "16.2",
        "Termination by Contractor",
        "The Contractor may terminate for serious Employer default: no evidence of financial "
        "arrangements, no certification or payment within set periods (e.g. payment more than "
        "42 days overdue), substantial failure to perform, failure to comply with a binding "
        "decision, prolonged suspension, insolvency or corruption. It gives notice of "
        "intention, then terminates if the failure is not cured within 14 days; it is paid "
        "for work done plus loss of profit or other losses (Sub-Clause 16.4).",
        "Sub-Clauses 16.2 and 16.4",
        "listed Employer defaults; 14-day remedy period; payment incl. lost profit",
    ),
    # ---------------------------------------------------------------- 17 Care and indemnities
    _p(
        "17.1",
        "Responsibility for Care of the Works",
        "The Contractor looks after the Works, Goods and its documents from the Commencement "
        "Date until taking over, and must make good loss or damage in that period at its own "
        "risk, except loss caused by the risks the Employer keeps under Sub-Clause 17.2 "
        "(Employer's use or interference, its own design, unforeseeable forces of nature, "
        "Exceptional Events), for which the Contractor recovers time and money.",
        "Sub-Clauses 17.1 and 17.2 (1999: Sub-Clauses 17.2 and 17.3)",
        "Contractor cares for the Works until taking over; Employer's risks excepted",
    ),
    _p(
        "17.4",
        "Indemnities by Contractor",
        "The Contractor indemnifies the Employer against claims for death or injury arising "
        "from the Contractor's work, unless caused by the Employer's negligence, wilful act or "
        "breach, and against property damage to the extent caused by the Contractor's "
        "negligence, wilful act or breach. A design indemnity applies only where the "
        "Contractor is responsible for part of the design.",
        "Sub-Clause 17.4 (1999: Sub-Clause 17.1)",
        "fault-based indemnities; design indemnity only for Contractor-designed parts",
        [RED],
    ),
    _p(
        "17.4",
        "Indemnities by Contractor",
        "The Contractor indemnifies the Employer against claims for death or injury arising "
        "from the Contractor's work, unless caused by the Employer's negligence, wilful act or "
        "breach, and against property damage to the extent caused by the Contractor's "
        "negligence, wilful act or breach. It also indemnifies the Employer where errors in "
        "the Contractor's design leave the Works unfit for their contractual purpose.",
        "Sub-Clause 17.4 (1999: Sub-Clause 17.1)",
        "fault-based indemnities plus design indemnity for fitness for purpose",
        [YELLOW, SILVER],
    ),
    _p(
        "17.5",
        "Indemnities by Employer",
        "The Employer indemnifies the Contractor against claims for death, injury or property "
        "damage caused by the negligence, wilful act or breach of the Employer or its "
        "personnel, and against loss from the risks the Employer keeps under Sub-Clause 17.2. "
        "The indemnities are mutual in structure and not capped separately.",
        "Sub-Clause 17.5 (1999: Sub-Clause 17.1)",
        "Employer indemnifies for its own fault and retained risks",
    ),
    # ---------------------------------------------------------------- 18 Exceptional Events
    _p(
        "18.1",
        "Exceptional Events",
        "An Exceptional Event is one beyond a Party's control, which it could not reasonably "
        "have provided against before contracting, could not reasonably avoid or overcome, and "
        "which is not substantially due to the other Party (e.g. war, riot, natural "
        "catastrophe). The affected Party gives notice within 14 days and is excused while "
        "prevented, but payment obligations continue. The Contractor gets time and, for some "
        "events, Cost. Either Party may terminate if the prevention lasts 84 days in a row or "
        "more than 140 days in total.",
        "Sub-Clauses 18.1 to 18.5 (1999: Clause 19 Force Majeure)",
        "four-part test, 14-day notice, 84/140-day termination right",
    ),
    # ---------------------------------------------------------------- 19 Insurance
    _p(
        "19.1",
        "General Requirements for Insurances",
        "The Contractor takes out the insurances on terms consistent with those agreed before "
        "the contract, with insurers acceptable to the Employer: the Works for full "
        "replacement value (plus demolition and professional fees), goods and equipment, "
        "third-party liability, workers, and professional liability for any design it does "
        "(in the Yellow and Silver Books, for its whole design). Amounts and deductibles are "
        "set in the Contract Data and evidence of cover is given before work starts.",
        "Sub-Clauses 19.1 and 19.2 (1999: Clause 18)",
        "Contractor insures Works, equipment, liability, workers and design",
    ),
    # ---------------------------------------------------------------- 20 Claims
    _p(
        "20.1",
        "Claims",
        "Claims by either Party for additional payment, a reduction of the price, an "
        "extension of the Defects Notification Period or an extension of time follow the "
        "procedure of Sub-Clause 20.2, and the same rules bind the Employer and the "
        "Contractor. The claiming Party must give notice within 28 days after it became aware, "
        "or should have become aware, of the event; a late notice loses the claim (time bar). "
        "A fully detailed claim follows within 84 days. Other entitlements are settled by "
        "agreement or determination.",
        "Sub-Clauses 20.1 and 20.2 (1999: Sub-Clauses 20.1 and 2.5)",
        "symmetrical claims; 28-day notice and time bar; 84-day fully detailed claim",
    ),
    _p(
        "20.2",
        "Claims for Payment and/or Extension of Time",
        "Notice of Claim within 28 days of awareness, or the claim is lost; the Engineer "
        "(Silver: the Employer's Representative) must say within 14 days if it thinks a notice "
        "is late, or the notice is treated as valid. A fully detailed claim, including its "
        "legal basis, is due within 84 days of awareness; if the legal basis is not given in "
        "time the notice lapses. Continuing claims are updated monthly, with a final claim "
        "within 28 days after the effects end. The claim is then agreed or determined, and "
        "the Employer's claims are subject to the same notice and time bar.",
        "Sub-Clause 20.2 (1999: Sub-Clause 20.1 for the Contractor, 2.5 for the Employer)",
        "28-day notice, 14-day objection, 84-day fully detailed claim, same rules both Parties",
    ),
    # ---------------------------------------------------------------- 21 Disputes
    _p(
        "21.1",
        "Constitution of the DAAB",
        "A standing Dispute Avoidance/Adjudication Board of one or three members (per the "
        "Contract Data) is appointed jointly by the Parties within the period in the Contract "
        "Data (28 days if none is stated) and stays in place for the whole project. Each "
        "Party pays half of the members' fees and expenses.",
        "Sub-Clause 21.1 (1999: Sub-Clause 20.2, ad hoc DAB in Yellow/Silver)",
        "standing DAAB; appointment within 28 days; fees shared equally",
    ),
    _p(
        "21.4",
        "Obtaining DAAB's Decision",
        "A dispute is referred to the DAAB (after a determination, within 42 days of the "
        "notice of dissatisfaction). The DAAB decides within 84 days; the decision binds both "
        "Parties at once. A Party that disagrees has 28 days from the decision to serve its "
        "notice of dissatisfaction, otherwise the decision becomes final and binding.",
        "Sub-Clause 21.4 (1999: Sub-Clause 20.4)",
        "42-day referral, 84-day decision, 28-day notice of dissatisfaction",
    ),
    _p(
        "21.6",
        "Arbitration",
        "Disputes not settled amicably (Sub-Clause 21.5 gives the Parties 28 days from the "
        "dissatisfaction notice to try) are finally settled by international "
        "arbitration under the ICC Rules by three arbitrators, in the contract language, "
        "unless the Parties agree otherwise. The tribunal may review any certificate, "
        "determination or DAAB decision. Both Parties have the same right to arbitrate.",
        "Sub-Clauses 21.5 and 21.6 (1999: Sub-Clauses 20.5 and 20.6; 56 days amicable "
        "settlement in 1999)",
        "ICC arbitration, three arbitrators, 28-day amicable settlement",
    ),
]
"""Baseline positions of the 2017 books; one per book where the books differ."""


NUMBERING_1999: dict[str, str] = {
    # Source: the clause structure of the FIDIC 1999 Red, Yellow and Silver Books compared
    # with the 2017 editions (facts: numbers only). The 2017 editions inserted Clause 21
    # (Disputes and Arbitration), swapped Insurance and Force Majeure (1999 Clause 18
    # Insurance / Clause 19 Force Majeure → 2017 Clause 19 / Clause 18 Exceptional Events),
    # moved Limitation of Liability from 17.6 to 1.15, inserted 8.4 Advance Warning (so 1999
    # 8.4-8.8 move up by one) and split the 1999 indemnity Sub-Clause 17.1 into 17.4 and
    # 17.5. Several 2017 ids may map to one 1999 id; the first listed wins when translating
    # back from 1999 numbering.
    "1": "1",
    "1.1": "1.1",
    "1.15": "17.6",
    "2.1": "2.1",
    "3.1": "3.1",
    "3.7": "3.5",
    "4.1": "4.1",
    "4.2": "4.2",
    "4.12": "4.12",
    "5.1": "5.1",
    "8.1": "8.1",
    "8.2": "8.2",
    "8.3": "8.3",
    "8.5": "8.4",
    "8.6": "8.5",
    "8.7": "8.6",
    "8.8": "8.7",
    "8.9": "8.8",
    "10.1": "10.1",
    "11.1": "11.1",
    "13.1": "13.1",
    "13.3": "13.3",
    "14.1": "14.1",
    "14.2": "14.2",
    "14.3": "14.3",
    "14.6": "14.6",
    "14.7": "14.7",
    "14.8": "14.8",
    "14.9": "14.9",
    "15.2": "15.2",
    "15.5": "15.5",
    "16.1": "16.1",
    "16.2": "16.2",
    "17": "17",
    "17.1": "17.2",
    "17.2": "17.3",
    "17.4": "17.1",
    "17.5": "17.1",
    "18": "19",
    "18.1": "19.1",
    "18.2": "19.2",
    "18.4": "19.4",
    "18.5": "19.6",
    "18.6": "19.7",
    "19": "18",
    "19.1": "18.1",
    "19.2": "18.2",
    "20": "20",
    "20.1": "20.1",
    "20.2": "20.1",
    "21": "20",
    "21.1": "20.2",
    "21.2": "20.3",
    "21.4": "20.4",
    "21.5": "20.5",
    "21.6": "20.6",
    "21.7": "20.7",
    "21.8": "20.8",
}
"""2017 clause / sub-clause id → id of the same subject in the 1999 books."""
