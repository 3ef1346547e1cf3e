"""The FIDIC review checklist: key sub-clauses, their priority, skills and what to check.

`build_fidic_checklist(structure, subtype)` finds the checklist sub-clauses in a parsed
contract (Particular Conditions, a full FIDIC-based contract or a Chinese construction
contract) and returns one item per clause found, in document order, plus a low-priority generic
item for every other substantive clause.

A clause is matched to a checklist sub-clause

1. by its id, when the document is numbered like the 2017 books and the clause's title (if any)
   agrees with the sub-clause (a document on the 1999 books — detected from Clause 19 "Force
   Majeure" or Clause 20 "Claims, Disputes and Arbitration" — is first translated to 2017
   numbering through `NUMBERING_1999`);
2. otherwise by its title: similar to one of the sub-clause's English titles (2017 and 1999
   titles, common variants), or containing one of its Chinese keywords (索赔, 工期顺延,
   违约金, 质量保证金 ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from contract_review.models import ClauseKind, ClauseNode, DocumentStructure, Priority
from contract_review.models import ReviewChecklistItem as Item
from contract_review.text import HAN

from .baselines import ALL_BOOKS, NUMBERING_1999, RED, SILVER, YELLOW

__all__ = [
    "CHECKLIST",
    "GENERIC_SKILLS",
    "ChecklistEntry",
    "build_fidic_checklist",
    "checklist_entry",
    "match_clauses",
    "uses_1999_numbering",
]

CONTEXT = "get_clause_context"
DEFINITION = "resolve_definition"
COMPARE = "compare_with_baseline"
XREF = "cross_reference_check"
FINANCIAL = "extract_financial_terms"
DEVIATION = "assess_deviation"
REFERENCE = "search_reference_doc"
CRITERIA = "load_review_criteria"
MERGE = "fidic_merge_gc_pc"
TIME_BAR = "fidic_calculate_time_bar"
PC_CONSISTENCY = "fidic_check_pc_consistency"
SEARCH_ER = "fidic_search_er"

GENERIC_SKILLS: list[str] = [CONTEXT, MERGE, COMPARE]
"""Skills of the generic low-priority items."""

_GENERIC_DESCRIPTION = (
    "Read the sub-clause as amended by the Particular Conditions and note any departure from "
    "the General Conditions."
)
_SHORT = 40
"""Clauses with less text than this get no generic item."""
_SHORT_ZH = 15
"""The same for Chinese text (denser)."""


@dataclass(frozen=True)
class ChecklistEntry:
    """One checklist sub-clause (2017 numbering)."""

    key: str
    title: str
    topic: str
    priority: Priority
    skills: tuple[str, ...]
    description: str
    aliases: tuple[str, ...] = ()
    """Other English titles (other books, 1999 titles, common variants)."""
    zh: tuple[str, ...] = ()
    """Chinese title keywords."""
    by_book: dict[str, str] = field(default_factory=dict)
    """Book-specific description, replacing `description` for that subtype."""
    priority_by_book: dict[str, Priority] = field(default_factory=dict)
    """Book-specific priority."""

    def description_for(self, subtype: str | None) -> str:
        """What to check under `subtype`."""
        return self.by_book.get(subtype or "", self.description)

    def priority_for(self, subtype: str | None) -> Priority:
        """Priority under `subtype`."""
        return self.priority_by_book.get(subtype or "", self.priority)

    @property
    def titles(self) -> tuple[str, ...]:
        """All English titles of the sub-clause."""
        return (self.title, *self.aliases)


def _skills(*extra: str) -> tuple[str, ...]:
    """Context, GC/PC merge and baseline comparison for all, plus `extra`."""
    out = [CONTEXT, MERGE, COMPARE]
    out.extend(s for s in extra if s not in out)
    return tuple(out)


C, H, M, L = Priority.CRITICAL, Priority.HIGH, Priority.MEDIUM, Priority.LOW

_T_DEF = "Definitions and interpretation"
_T_LIAB = "Limitation of liability"
_T_EMP = "Employer's obligations"
_T_ADMIN = "Contract administration"
_T_OBL = "Contractor's obligations and design"
_T_SEC = "Performance security"
_T_SITE = "Site conditions risk"
_T_TIME = "Time and extension of time"
_T_LD = "Delay damages"
_T_COMP = "Taking over and defects"
_T_VAR = "Variations"
_T_PAY = "Price and payment"
_T_TERM = "Suspension and termination"
_T_RISK = "Care of the Works and indemnities"
_T_EXC = "Exceptional events"
_T_INS = "Insurance"
_T_CLAIM = "Claims and time bars"
_T_DISP = "Dispute resolution"

CHECKLIST: tuple[ChecklistEntry, ...] = (
    ChecklistEntry(
        "1.1",
        "Definitions",
        _T_DEF,
        M,
        _skills(DEFINITION, PC_CONSISTENCY),
        "Check the amended key definitions (Accepted Contract Amount, Commencement Date, Time "
        "for Completion, Works) and that they fit the Contract Data and other clauses.",
        ("Definitions and Interpretation", "Definition", "Defined Terms"),
        ("定义", "词语含义", "释义"),
        by_book={
            SILVER: "Check the amended key definitions, that the Employer's Representative (not "
            "an Engineer) is used consistently, and that Employer's Requirements and guarantees "
            "are defined as in the Silver Book.",
        },
    ),
    ChecklistEntry(
        "1.15",
        "Limitation of Liability",
        _T_LIAB,
        C,
        _skills(FINANCIAL, DEVIATION, XREF),
        "Check the total cap (amount per Contract Data), the mutual exclusion of indirect loss "
        "and that fraud, gross negligence, deliberate default and reckless misconduct are "
        "carved out.",
        ("Limitation of Liabilities", "Liability Cap", "Exclusion of Liability"),
        ("责任限制", "责任上限", "赔偿限额", "责任限额"),
    ),
    ChecklistEntry(
        "2.1",
        "Right of Access to the Site",
        _T_EMP,
        M,
        _skills(TIME_BAR, XREF),
        "Check when access and possession of the Site are given and that late access still "
        "gives time and Cost Plus Profit.",
        ("Access to the Site", "Access to Site", "Possession of the Site"),
        ("施工场地", "现场进入", "场地移交", "进场条件"),
    ),
    ChecklistEntry(
        "3.1",
        "The Engineer",
        _T_ADMIN,
        M,
        _skills(DEFINITION, PC_CONSISTENCY),
        "Check who administers the contract, the limits of the Engineer's authority and that "
        "determinations stay neutral.",
        (
            "The Employer's Representative",
            "Employer's Representative",
            "Engineer's Duties and Authority",
            "Engineer",
        ),
        ("监理人", "工程师", "发包人代表"),
        by_book={
            SILVER: "Check who acts as Employer's Representative, its authority and that its "
            "determinations stay neutral.",
        },
    ),
    ChecklistEntry(
        "4.1",
        "Contractor's General Obligations",
        _T_OBL,
        C,
        _skills(SEARCH_ER, DEVIATION, DEFINITION),
        "Check the scope of the Contractor's obligations and any fitness-for-purpose duty "
        "against the purposes defined in the Employer's Requirements.",
        ("General Obligations", "Contractor's Obligations", "Fitness for Purpose"),
        ("承包人的一般义务", "承包人义务", "一般义务"),
        by_book={
            RED: "Check that the Contractor is not made responsible for the Employer's design "
            "and that any fitness-for-purpose duty is limited to Contractor-designed parts.",
            YELLOW: "Check that fitness for purpose is tied to purposes defined in the "
            "Employer's Requirements and that risk for errors in them is not shifted.",
            SILVER: "Check fitness for purpose against the purposes defined in the contract, "
            "not open-ended purposes, and how performance guarantees are set.",
        },
    ),
    ChecklistEntry(
        "4.2",
        "Performance Security",
        _T_SEC,
        H,
        _skills(FINANCIAL, DEVIATION, PC_CONSISTENCY),
        "Check the amount, form, validity and return of the security and that calls are "
        "limited to amounts the Employer is entitled to.",
        ("Performance Bond", "Performance Guarantee", "Securities"),
        ("履约担保", "履约保函", "履约保证金"),
    ),
    ChecklistEntry(
        "4.12",
        "Unforeseeable Physical Conditions",
        _T_SITE,
        C,
        _skills(SEARCH_ER, DEVIATION, XREF),
        "Check who bears unforeseeable ground and physical conditions and whether the "
        "Contractor keeps its right to time and Cost.",
        ("Unforeseeable Difficulties", "Physical Conditions", "Site Conditions", "Ground Risk"),
        ("不可预见", "不利物质条件", "地质条件", "现场条件"),
        by_book={
            RED: "Check that the Employer keeps the risk of unforeseeable physical conditions "
            "(time and Cost) and what site data the Contractor relies on.",
            YELLOW: "Check that the Employer keeps the risk of unforeseeable physical "
            "conditions (time and Cost) and what site data the Contractor relies on.",
            SILVER: "Check how far the Contractor carries unforeseen difficulties and which "
            "Employer site data it may rely on (Silver allocates this risk to the Contractor).",
        },
    ),
    ChecklistEntry(
        "5.1",
        "General Design Obligations",
        _T_OBL,
        H,
        _skills(SEARCH_ER, DEVIATION),
        "Check design responsibility, responsibility for errors in the Employer's "
        "Requirements and the data the Employer remains responsible for.",
        (
            "Design",
            "Design Obligations",
            "Subcontractors",
            "Subcontracting",
            "Design Responsibility",
        ),
        ("设计",),
        by_book={
            RED: "Check subcontracting limits and that no general design duty has been added "
            "to a Red Book contract.",
        },
        priority_by_book={RED: M, SILVER: C},
    ),
    ChecklistEntry(
        "8.1",
        "Commencement of Works",
        _T_TIME,
        M,
        _skills(TIME_BAR, XREF),
        "Check the notice period for the Commencement Date and any conditions precedent to "
        "commencement.",
        ("Commencement", "Commencement Date", "Start of Works"),
        ("开工",),
    ),
    ChecklistEntry(
        "8.2",
        "Time for Completion",
        _T_TIME,
        H,
        _skills(TIME_BAR, SEARCH_ER, XREF),
        "Check the Time for Completion, milestones and Sections and what must be finished "
        "(tests, documents) by that time.",
        ("Completion Time", "Milestones", "Programme"),
        ("合同工期", "竣工日期", "工期"),
    ),
    ChecklistEntry(
        "8.5",
        "Extension of Time for Completion",
        _T_TIME,
        C,
        _skills(TIME_BAR, PC_CONSISTENCY, XREF, DEVIATION),
        "Check the grounds for extension of time, the notice conditions and the treatment of "
        "concurrent delay.",
        ("Extension of Time", "Extensions of Time", "EOT"),
        ("工期顺延", "工期延长", "延长工期", "顺延"),
    ),
    ChecklistEntry(
        "8.8",
        "Delay Damages",
        _T_LD,
        C,
        _skills(FINANCIAL, DEVIATION, XREF),
        "Check the daily rate and the maximum of delay damages and that they are the only "
        "damages for delay.",
        ("Liquidated Damages", "Delay Damages for Late Completion", "Liquidated Damages for Delay"),
        ("误期赔偿", "逾期竣工", "延误赔偿", "违约金", "违约责任"),
    ),
    ChecklistEntry(
        "10.1",
        "Taking Over the Works and Sections",
        _T_COMP,
        H,
        _skills(SEARCH_ER, TIME_BAR),
        "Check the taking-over procedure, response periods and deemed taking-over.",
        ("Taking Over", "Taking-Over", "Taking Over of the Works", "Employer's Taking Over"),
        ("竣工验收", "工程接收", "交工验收"),
    ),
    ChecklistEntry(
        "11.1",
        "Completion of Outstanding Work and Remedying Defects",
        _T_COMP,
        H,
        _skills(SEARCH_ER, TIME_BAR),
        "Check the Defects Notification Period, any extension and the Contractor's remedial "
        "obligations.",
        ("Remedying Defects", "Defects Liability", "Defects", "Defects Notification Period"),
        ("缺陷责任", "保修", "质量保修"),
    ),
    ChecklistEntry(
        "13.1",
        "Right to Vary",
        _T_VAR,
        H,
        _skills(FINANCIAL, XREF, DEVIATION),
        "Check who may instruct Variations, the Contractor's grounds to object, valuation and "
        "any threshold before adjustment.",
        ("Variations", "Variation", "Variations and Adjustments", "Changes", "Variation Procedure"),
        ("变更",),
    ),
    ChecklistEntry(
        "14.1",
        "The Contract Price",
        _T_PAY,
        M,
        _skills(FINANCIAL),
        "Check the pricing basis (lump sum or re-measured) and which adjustments are allowed.",
        ("Contract Price", "Price"),
        ("合同价款", "合同价格", "签约合同价"),
    ),
    ChecklistEntry(
        "14.2",
        "Advance Payment",
        _T_PAY,
        H,
        _skills(FINANCIAL, XREF),
        "Check the amount, conditions, guarantee and repayment schedule of the advance payment.",
        ("Advance Payments", "Mobilisation Advance", "Mobilization Advance"),
        ("预付款",),
    ),
    ChecklistEntry(
        "14.3",
        "Application for Interim Payment",
        _T_PAY,
        M,
        _skills(FINANCIAL, TIME_BAR),
        "Check the statement period, required contents and consequences of an incomplete "
        "statement.",
        (
            "Application for Interim Payment Certificates",
            "Application for Interim Payments",
            "Interim Payment Applications",
            "Interim Payments",
        ),
        ("支付申请", "期中支付申请"),
    ),
    ChecklistEntry(
        "14.7",
        "Payment",
        _T_PAY,
        H,
        _skills(FINANCIAL, TIME_BAR, XREF),
        "Check the payment periods (56 days after the Statement in the 2017 books), set-off "
        "and withholding rights.",
        ("Payments", "Timing of Payments", "Time for Payment"),
        ("进度款", "期中支付", "付款", "支付"),
    ),
    ChecklistEntry(
        "14.8",
        "Delayed Payment",
        _T_PAY,
        H,
        _skills(FINANCIAL),
        "Check the financing charges on late payment (rate, compounding, no claim needed).",
        ("Late Payment", "Interest on Late Payment", "Financing Charges"),
        ("逾期付款", "延期付款", "迟延付款", "逾期支付"),
    ),
    ChecklistEntry(
        "14.9",
        "Release of Retention Money",
        _T_PAY,
        H,
        _skills(FINANCIAL, TIME_BAR),
        "Check the retention rate and limit and when each part is released.",
        ("Retention Money", "Retention", "Release of Retention"),
        ("质量保证金", "保留金", "保修金"),
    ),
    ChecklistEntry(
        "15.2",
        "Termination for Contractor's Default",
        _T_TERM,
        H,
        _skills(TIME_BAR, XREF, DEVIATION),
        "Check the default grounds, notice and remedy periods and the Employer's recovery "
        "after termination.",
        ("Termination by Employer", "Termination", "Employer's Termination"),
        ("发包人解除", "甲方解除", "解除合同", "合同解除"),
    ),
    ChecklistEntry(
        "15.5",
        "Termination for Employer's Convenience",
        _T_TERM,
        H,
        _skills(FINANCIAL, DEVIATION),
        "Check whether termination for convenience is allowed, its notice period and what the "
        "Contractor is paid.",
        ("Employer's Entitlement to Termination", "Termination for Convenience"),
        ("便利终止", "任意解除"),
    ),
    ChecklistEntry(
        "16.1",
        "Suspension by Contractor",
        _T_TERM,
        M,
        _skills(TIME_BAR, XREF),
        "Check the Contractor's right to suspend or slow down for non-payment and its notice "
        "period.",
        ("Contractor's Entitlement to Suspend Work", "Suspension by the Contractor"),
        ("承包人暂停", "乙方暂停", "承包人停工"),
    ),
    ChecklistEntry(
        "16.2",
        "Termination by Contractor",
        _T_TERM,
        M,
        _skills(TIME_BAR, XREF, FINANCIAL),
        "Check the Contractor's termination grounds, notice periods and payment on termination.",
        ("Termination by the Contractor",),
        ("承包人解除", "乙方解除"),
    ),
    ChecklistEntry(
        "17.1",
        "Responsibility for Care of the Works",
        _T_RISK,
        H,
        _skills(DEVIATION, XREF),
        "Check the period of the Contractor's care of the Works and that Employer-risk events "
        "remain excepted.",
        ("Care of the Works", "Contractor's Care of the Works", "Risk of Loss"),
        ("照管", "工程照管", "成品保护"),
    ),
    ChecklistEntry(
        "17.4",
        "Indemnities by Contractor",
        _T_RISK,
        H,
        _skills(DEVIATION, XREF),
        "Check the scope of the Contractor's indemnities and that losses caused by the "
        "Employer's own fault are excluded.",
        ("Indemnities", "Indemnity", "Contractor's Indemnities", "Indemnification"),
        ("承包人的保障", "承包人赔偿", "保障"),
    ),
    ChecklistEntry(
        "17.5",
        "Indemnities by Employer",
        _T_RISK,
        M,
        _skills(DEVIATION, FINANCIAL),
        "Check that the Employer's indemnities mirror the Contractor's and are not capped or "
        "narrowed.",
        ("Employer's Indemnities",),
        ("发包人的保障", "发包人赔偿"),
    ),
    ChecklistEntry(
        "18.1",
        "Exceptional Events",
        _T_EXC,
        H,
        _skills(TIME_BAR, DEFINITION, XREF),
        "Check the definition of Exceptional Events, the 14-day notice, relief available and "
        "the termination right for prolonged events.",
        ("Exceptional Event", "Force Majeure", "Definition of Force Majeure"),
        ("不可抗力", "例外事件"),
    ),
    ChecklistEntry(
        "19.1",
        "General Requirements",
        _T_INS,
        M,
        _skills(FINANCIAL, SEARCH_ER),
        "Check which insurances are required, amounts and deductibles per Contract Data and "
        "professional liability for design.",
        (
            "General Requirements for Insurances",
            "Insurance",
            "Insurances",
            "Insurance Requirements",
        ),
        ("保险",),
    ),
    ChecklistEntry(
        "20.1",
        "Claims",
        _T_CLAIM,
        C,
        _skills(TIME_BAR, PC_CONSISTENCY, XREF, DEVIATION),
        "Check the 28-day notice and time bar, the 84-day fully detailed claim and that "
        "Employer and Contractor claims follow the same rules.",
        ("Contractor's Claims", "Claims Procedure", "Notice of Claim", "Notices of Claim"),
        ("索赔",),
    ),
    ChecklistEntry(
        "20.2",
        "Claims for Payment and/or Extension of Time",
        _T_CLAIM,
        C,
        _skills(TIME_BAR, PC_CONSISTENCY, XREF, DEVIATION),
        "Check notice periods, the time bar, the fully detailed claim and whether the "
        "Employer's claims are subject to the same notice and time bar.",
        ("Employer's Claims", "Claims for Payment", "Claims for Payment and/or EOT"),
        ("发包人的索赔", "发包人索赔", "甲方索赔"),
    ),
    ChecklistEntry(
        "21.1",
        "Constitution of the DAAB",
        _T_DISP,
        M,
        _skills(TIME_BAR, FINANCIAL),
        "Check DAAB appointment timing, members and that its fees are shared equally.",
        (
            "Appointment of the Dispute Adjudication Board",
            "Appointment of the DAAB",
            "Dispute Adjudication Board",
            "Dispute Board",
            "DAAB",
        ),
        ("争议评审", "争端裁决", "争议避免", "争议裁决委员会"),
    ),
    ChecklistEntry(
        "21.4",
        "Obtaining DAAB's Decision",
        _T_DISP,
        H,
        _skills(TIME_BAR, XREF),
        "Check referral and decision periods and the 28-day notice of dissatisfaction.",
        (
            "Obtaining Dispute Adjudication Board's Decision",
            "Obtaining the DAAB's Decision",
            "DAAB Decision",
        ),
        ("争议评审决定", "评审决定"),
    ),
    ChecklistEntry(
        "21.6",
        "Arbitration",
        _T_DISP,
        H,
        _skills(DEVIATION, XREF),
        "Check the arbitral rules, seat, language and that both Parties have the same right "
        "to arbitrate.",
        ("Disputes and Arbitration", "Dispute Resolution", "Settlement of Disputes"),
        ("仲裁", "争议解决", "争议的解决", "纠纷解决"),
    ),
)
"""The checklist sub-clauses, in 2017 numbering and document (clause) order."""

_BY_KEY: dict[str, ChecklistEntry] = {e.key: e for e in CHECKLIST}

FROM_1999: dict[str, str] = {}
"""1999 sub-clause id → 2017 id (the first 2017 id wins where several map to one)."""
_FROM_1999 = FROM_1999
for _new, _old in NUMBERING_1999.items():
    _FROM_1999.setdefault(_old, _new)
_FROM_1999["2.5"] = "20.2"  # 1999 Employer's Claims → 2017 unified claims procedure


def checklist_entry(key: str) -> ChecklistEntry | None:
    """The checklist entry of a 2017 sub-clause id, or None."""
    return _BY_KEY.get(key)


# --------------------------------------------------------------------------------------------
# Title similarity
# --------------------------------------------------------------------------------------------

_STOP = frozenset({"the", "of", "and", "for", "by", "to", "a", "an", "in", "on", "or", "s"})
_CJK = HAN
_CONSISTENT = 0.55
"""Least title similarity for a clause id's title to agree with the sub-clause of that id."""
_STRONG = 0.8
"""Least title similarity for matching a clause to a sub-clause by title alone."""


def _words(title: str) -> list[str]:
    t = title.lower().replace("\u2019", "'").replace("'s", " ")
    t = t.replace("/", " ").replace("-", " ")
    return [w for w in re.split(r"[^a-z0-9]+", t) if w and w not in _STOP]


def _similarity(a: str, b: str) -> float:
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return 0.0
    if wa == wb:
        return 1.0
    sa, sb = set(wa), set(wb)
    overlap = 2 * len(sa & sb) / (len(sa) + len(sb))
    ratio = SequenceMatcher(None, " ".join(wa), " ".join(wb)).ratio()
    return max(overlap, ratio)


def _title_score(title: str, entry: ChecklistEntry) -> float:
    if _CJK.search(title):
        return 1.0 if any(k in title for k in entry.zh) else 0.0
    return max(_similarity(title, t) for t in entry.titles)


def _best_by_title(title: str) -> tuple[ChecklistEntry | None, float]:
    """The checklist entry the title names best and its score (Chinese: first keyword hit)."""
    if not title.strip():
        return None, 0.0
    if _CJK.search(title):
        return _best_zh(title)
    best: ChecklistEntry | None = None
    score = 0.0
    for entry in CHECKLIST:
        s = _title_score(title, entry)
        if s > score:
            best, score = entry, s
    return best, score


def _best_zh(title: str) -> tuple[ChecklistEntry | None, float]:
    """Longest Chinese keyword contained in the title wins (质量保证金 over 保修...)."""
    best: ChecklistEntry | None = None
    length = 0
    for entry in CHECKLIST:
        for k in entry.zh:
            if k in title and len(k) > length:
                best, length = entry, len(k)
    return (best, 1.0) if best else (None, 0.0)


# --------------------------------------------------------------------------------------------
# Numbering
# --------------------------------------------------------------------------------------------

_FM = re.compile(r"force\s+majeure", re.IGNORECASE)
_DISPUTES = re.compile(r"disput|arbitrat|adjudication\s+board|\bDAB\b", re.IGNORECASE)


def uses_1999_numbering(structure: DocumentStructure) -> bool:
    """Whether the document follows the 1999 numbering: Clause 19 is Force Majeure, or Clause
    20 deals with disputes (titles of the clause or of its sub-clauses)."""
    for node in structure.iter_clauses():
        if node.kind is not ClauseKind.CLAUSE or not node.title:
            continue
        head = node.clause_id.split(".")[0]
        if head == "19" and _FM.search(node.title):
            return True
        if head == "20" and _DISPUTES.search(node.title):
            return True
    return False


def _substantive(node: ClauseNode) -> bool:
    return node.kind is ClauseKind.CLAUSE


# --------------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------------


def match_clauses(structure: DocumentStructure) -> dict[str, ChecklistEntry]:
    """Document clause id → checklist entry, for the clauses found (each entry at most once)."""
    is_1999 = uses_1999_numbering(structure)

    def id_key(node: ClauseNode) -> str | None:
        cid = node.clause_id
        key = _FROM_1999.get(cid) if is_1999 else cid
        return key if key in _BY_KEY else None

    clauses = [n for n in structure.iter_clauses() if _substantive(n)]
    # Is the document numbered like the FIDIC books? Then untitled sub-clauses match by id.
    agree = disagree = 0
    for node in clauses:
        key = id_key(node)
        if key is None or not node.title.strip():
            continue
        if _title_score(node.title, _BY_KEY[key]) >= _CONSISTENT:
            agree += 1
        else:
            disagree += 1
    fidic_numbered = agree >= 2 and agree >= disagree

    found: dict[str, ChecklistEntry] = {}
    claimed: set[str] = set()

    # Pass 1: by id, when the title agrees (or there is no strong reason to doubt it).
    for node in clauses:
        key = id_key(node)
        if key is None:
            continue
        entry = _BY_KEY[key]
        if node.title.strip():
            if _title_score(node.title, entry) < _CONSISTENT:
                other, score = _best_by_title(node.title)
                if (other is not None and score >= _STRONG) or not fidic_numbered:
                    continue
        elif not fidic_numbered:
            continue
        if key in claimed:
            continue
        found[node.clause_id] = entry
        claimed.add(key)

    # Pass 2: by title, for clauses in no matched clause's subtree; deepest first.
    matched_ids = set(found)

    def has_matched_ancestor(node: ClauseNode) -> bool:
        pid = node.parent_id
        while pid is not None:
            if pid in matched_ids:
                return True
            parent = structure.get_clause(pid)
            pid = parent.parent_id if parent is not None else None
        return False

    def walk(nodes: list[ClauseNode]) -> bool:
        """Match titles in `nodes` (children first); whether anything below matched."""
        any_match = False
        for node in nodes:
            below = walk(node.children)
            if node.clause_id in matched_ids:
                any_match = True
                continue
            if below:
                any_match = True
                continue
            if not _substantive(node) or not node.title.strip():
                continue
            if has_matched_ancestor(node):
                continue
            entry, score = _best_by_title(node.title)
            if entry is None or score < _STRONG or entry.key in claimed:
                continue
            found[node.clause_id] = entry
            matched_ids.add(node.clause_id)
            claimed.add(entry.key)
            any_match = True
        return any_match

    walk(structure.clauses)
    return found


# --------------------------------------------------------------------------------------------
# The checklist
# --------------------------------------------------------------------------------------------


def _item(node: ClauseNode, entry: ChecklistEntry, subtype: str | None) -> Item:
    description = entry.description_for(subtype)
    if node.clause_id != entry.key:
        description = f"[FIDIC 2017 Sub-Clause {entry.key} {entry.title}] {description}"
    return Item(
        clause_id=node.clause_id,
        clause_name=node.title or entry.title,
        priority=entry.priority_for(subtype),
        required_skills=list(entry.skills),
        description=description,
        topic=entry.topic,
    )


def _own_length(node: ClauseNode) -> int:
    text = node.text
    for child in node.children:
        text = text.replace(child.text, "")
    return len(text.strip())


def build_fidic_checklist(structure: DocumentStructure, subtype: str | None = None) -> list[Item]:
    """Checklist of a FIDIC-based (or Chinese construction) contract, in document order.

    One item per checklist sub-clause found (by id, 1999 numbering translated, else by
    title), then a low-priority generic item for each other substantive clause that is not a
    container of items. `subtype` ('silver_book', 'yellow_book', 'red_book') picks the
    book-specific descriptions and priorities.
    """
    if subtype is not None and subtype not in ALL_BOOKS:
        subtype = None
    found = match_clauses(structure)
    out: list[tuple[int, Item]] = []
    covered: set[str] = set(found)

    def under_covered(node: ClauseNode) -> bool:
        pid = node.parent_id
        while pid is not None:
            if pid in covered:
                return True
            parent = structure.get_clause(pid)
            pid = parent.parent_id if parent is not None else None
        return False

    for node in structure.iter_clauses():
        entry = found.get(node.clause_id)
        if entry is not None:
            out.append((node.start_offset, _item(node, entry, subtype)))
            continue
        if node.kind is not ClauseKind.CLAUSE or under_covered(node):
            continue
        # A container: its sub-clauses get the items, unless its own text is substantial.
        if (
            any(c.kind is ClauseKind.CLAUSE for c in node.children)
            and _own_length(node) - len(node.title) - len(node.number) < _SHORT * 3
        ):
            continue
        size = len(node.text.strip())
        if size < (_SHORT_ZH if _CJK.search(node.text) else _SHORT):
            continue
        out.append(
            (
                node.start_offset,
                Item(
                    clause_id=node.clause_id,
                    clause_name=node.title,
                    priority=Priority.LOW,
                    required_skills=list(GENERIC_SKILLS),
                    description=_GENERIC_DESCRIPTION,
                    topic=None,
                ),
            )
        )
    out.sort(key=lambda e: e[0])
    return [item for _, item in out]
