"""Checklists of the sha_spa plugin: share purchase (SPA) and shareholders' agreement (SHA).

Each `ChecklistSpec` names a topic, its priority, the skills to run, what to check, and
English and Chinese patterns that find its clause: a *title* pattern (matched against clause
headings, worth 3) and *body* patterns (matched against a clause's own text — its text before
its first sub-clause — worth 1 each). The clause with the highest score holds the topic; ties
go to the earlier, shallower clause.

Decision on topics not found: they are **skipped** as items of their own (there is no clause
to review), and listed in the description of one final "Missing protections" item, pinned to
the preamble (or the first clause), so the reviewer still sees — and can raise — every
protection the contract lacks.

What to check (and a topic's name where an item shows it) is written in the contract's
language: each spec carries its Chinese text (`topic_zh`, `description_zh`) for 'zh-CN'.

`detect_subtype` tells an SPA from an SHA by counting distinct markers of each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from contract_review.models import ClauseNode, DocumentStructure, Priority, ReviewChecklistItem

__all__ = [
    "MISSING_TOPIC",
    "MISSING_TOPIC_ZH",
    "SHA_CHECKLIST",
    "SPA_CHECKLIST",
    "ChecklistSpec",
    "build_sha_spa_checklist",
    "detect_subtype",
    "find_clause",
]

MISSING_TOPIC = "Missing protections"
MISSING_TOPIC_ZH = "缺失的保护条款"

_COND = "spa_extract_conditions"
_REPS = "spa_extract_reps_warranties"
_IND = "spa_indemnity_analysis"
_GOV = "sha_governance_check"
_CTX = "get_clause_context"
_FIN = "extract_financial_terms"


@dataclass(frozen=True)
class ChecklistSpec:
    """One checklist topic and how to find its clause."""

    topic: str
    priority: Priority
    skills: tuple[str, ...]
    description: str
    title: re.Pattern[str]
    body: tuple[re.Pattern[str], ...]
    topic_zh: str = ""
    """The topic in Chinese."""
    description_zh: str = ""
    """What to check, in Chinese."""

    def topic_for(self, language: str = "en") -> str:
        """The topic's name in `language` ('en' or 'zh…')."""
        return (self.topic_zh or self.topic) if language.startswith("zh") else self.topic

    def description_for(self, language: str = "en") -> str:
        """What to check, in `language` ('en' or 'zh…')."""
        if language.startswith("zh"):
            return self.description_zh or self.description
        return self.description


def _spec(
    topic: str,
    priority: Priority,
    skills: tuple[str, ...],
    description: str,
    title: str,
    *body: str,
    topic_zh: str,
    description_zh: str,
) -> ChecklistSpec:
    return ChecklistSpec(
        topic,
        priority,
        skills,
        description,
        re.compile(title, re.IGNORECASE),
        tuple(re.compile(b, re.IGNORECASE) for b in body),
        topic_zh,
        description_zh,
    )


C, H, M, L = Priority.CRITICAL, Priority.HIGH, Priority.MEDIUM, Priority.LOW

SPA_CHECKLIST: tuple[ChecklistSpec, ...] = (
    _spec(
        "Conditions Precedent",
        C,
        (_COND, _CTX),
        "List each condition, who must satisfy and who may waive it.",
        r"conditions?\s+precedent|^conditions$|先决条件|交割条件|前提条件",
        r"conditional\s+(?:up)?on",
        r"以下列条件",
        topic_zh="先决条件",
        description_zh="逐项列明先决条件，以及由谁负责满足、由谁有权豁免。",
    ),
    _spec(
        "Long-Stop Date",
        H,
        (_COND,),
        "Check a long-stop date exists, its length, who may extend it and who may terminate.",
        r"long[\s-]?stop|最终截止日",
        r"long[\s-]?stop\s+date",
        r"最终截止日|最后截止日",
        topic_zh="最终截止日",
        description_zh="核查是否设定最终截止日、期限长短、由谁有权延长以及由谁有权解除协议。",
    ),
    _spec(
        "Material Adverse Change",
        H,
        (_COND,),
        "Check the MAC condition or right, its definition and who may invoke or waive it.",
        r"material\s+adverse|重大不利",
        r"material\s+adverse\s+change",
        r"重大不利变化",
        topic_zh="重大不利变化",
        description_zh="核查重大不利变化条件或权利、其定义以及由谁有权主张或豁免。",
    ),
    _spec(
        "Purchase Price",
        H,
        (_FIN, _CTX),
        "Check the price, its payment, adjustments, escrow or deferred consideration.",
        r"price|consideration|价款|对价",
        r"purchase\s+price\s+shall\s+be\s+paid",
        r"转让价款|购买价款",
        topic_zh="转让价款",
        description_zh="核查转让价款、支付方式、价格调整以及托管或递延支付安排。",
    ),
    _spec(
        "Completion",
        M,
        (_CTX,),
        "Check completion timing, deliverables and payment mechanics.",
        r"^completion$|交割$|交割安排",
        r"completion\s+shall\s+take\s+place",
        r"交割日|于交割时",
        topic_zh="交割",
        description_zh="核查交割时间、交付文件和事项以及付款安排。",
    ),
    _spec(
        "Pre-Completion Conduct",
        M,
        (_CTX,),
        "Check the seller's ordinary-course undertakings between signing and completion.",
        r"pre-?completion|conduct\s+of\s+business|过渡期",
        r"ordinary\s+course",
        r"过渡期|正常经营",
        topic_zh="过渡期安排",
        description_zh="核查卖方在签约至交割期间关于正常经营的承诺。",
    ),
    _spec(
        "Title and Capacity Warranties",
        C,
        (_REPS,),
        "Title and capacity warranties must be unqualified and survive longest.",
        r"^title$|^capacity$|权属|主体资格",
        r"legal\s+and\s+beneficial\s+owner",
        r"合法持有|权利负担",
        topic_zh="权属与主体资格保证",
        description_zh="权属与主体资格保证不得附加限定，且存续期限应最长。",
    ),
    _spec(
        "Business Warranties",
        H,
        (_REPS,),
        "Check topics covered and knowledge/materiality qualifiers of the business warranties.",
        r"^warrant|陈述与保证|陈述和保证",
        r"\bwarrants\b",
        r"作出如下陈述",
        topic_zh="业务保证",
        description_zh="核查业务保证涵盖的事项以及知情、重大性限定。",
    ),
    _spec(
        "Disclosure",
        H,
        (_REPS,),
        "Check disclosure is specific and fair; no general data-room disclosure.",
        r"disclos|披露",
        r"save\s+as\s+disclosed|disclosure\s+letter",
        r"披露函",
        topic_zh="披露",
        description_zh="核查披露是否具体、公允；不得概括披露数据室的全部内容。",
    ),
    _spec(
        "Warranty Repetition",
        H,
        (_REPS,),
        "Check the warranties are repeated at completion.",
        r"repetition|重复",
        r"repeated\s+at\s+completion|not\s+be\s+deemed\s+repeated",
        r"交割日重复|于交割日重复",
        topic_zh="保证的重复作出",
        description_zh="核查陈述与保证是否于交割时重复作出。",
    ),
    _spec(
        "Liability Cap",
        C,
        (_IND, _FIN),
        "Compare the cap with 10-30% of the price (general warranties).",
        r"^cap$|limitation|责任限制|赔偿责任限制|上限",
        r"aggregate\s+liability",
        r"赔偿总额不超过",
        topic_zh="责任上限",
        description_zh="将责任上限与转让价款的10%至30%（一般保证）进行比较。",
    ),
    _spec(
        "Basket and De Minimis",
        H,
        (_IND,),
        "Check basket type (tipping/deductible), basket 0.5-1% of price, de minimis.",
        r"basket|de\s+minimis|threshold|起赔|免赔",
        r"unless\s+the\s+aggregate",
        r"de\s+minimis|individual\s+claim",
        r"累计金额超过|单项索赔",
        topic_zh="起赔额与最低索赔额",
        description_zh="核查起赔额的类型（全额起赔或免赔额）、起赔额是否为转让价款的0.5%至1%，以及单项最低索赔额。",
    ),
    _spec(
        "Claims Time Limits",
        H,
        (_IND,),
        "Compare claims periods with 18-24 months (general) and 4-7 years (tax).",
        r"time\s+limit|survival|索赔期",
        r"notice\s+of\s+the\s+claim",
        r"within\s+\w+\s+months\s+after\s+completion",
        r"个月内书面通知",
        topic_zh="索赔期限",
        description_zh="将索赔期限与18至24个月（一般保证）及4至7年（税务）进行比较。",
    ),
    _spec(
        "Specific Indemnities",
        H,
        (_IND,),
        "Check known risks (litigation, tax, environment) have specific indemnities outside the cap.",
        r"specific\s+indemnit|indemnit|特别赔偿|专项赔偿",
        r"shall\s+indemnify",
        r"全额赔偿",
        topic_zh="特别赔偿",
        description_zh="核查已知风险（诉讼、税务、环境）是否有不受责任上限限制的特别赔偿。",
    ),
    _spec(
        "Tax Covenant",
        H,
        (_IND,),
        "Check the tax covenant covers pre-completion tax and sits outside the general limits.",
        r"tax\s+covenant|tax\s+deed|税务赔偿",
        r"indemnify[^.]{0,40}tax",
        r"税[^。]{0,20}赔偿",
        topic_zh="税务承诺",
        description_zh="核查税务承诺是否涵盖交割前税款，且不受一般责任限制的约束。",
    ),
    _spec(
        "Restrictive Covenants",
        M,
        (_CTX,),
        "Check the seller's non-compete and non-solicit, their scope and duration.",
        r"restrictive\s+covenant|non-?compet|竞业",
        r"shall\s+not[^.]{0,60}compete",
        r"竞业禁止|不得从事竞争",
        topic_zh="限制性承诺",
        description_zh="核查卖方的竞业禁止和禁止招揽义务及其范围和期限。",
    ),
    _spec(
        "Termination",
        M,
        (_COND, _CTX),
        "Check both sides' termination rights before completion.",
        r"terminat|终止|解除",
        r"may\s+terminate\s+this\s+agreement",
        r"有权解除本协议",
        topic_zh="协议解除",
        description_zh="核查交割前双方的解除权。",
    ),
    _spec(
        "Governing Law and Disputes",
        M,
        (_CTX,),
        "Check governing law and forum are clear and consistent.",
        r"governing\s+law|适用法律|争议解决",
        r"governed\s+by\s+the\s+law",
        r"适用中华人民共和国法律",
        topic_zh="适用法律与争议解决",
        description_zh="核查适用法律和争议解决机构是否明确且相互一致。",
    ),
)
"""SPA checklist topics."""

SHA_CHECKLIST: tuple[ChecklistSpec, ...] = (
    _spec(
        "Board Composition",
        C,
        (_GOV,),
        "Check our right to appoint directors (not only an observer) and the chair.",
        r"board\s+composition|^board$|董事会组成|董事会$",
        r"board\s+shall\s+consist",
        r"董事会由\S{1,3}名董事组成",
        topic_zh="董事会组成",
        description_zh="核查我方委派董事（而非仅委派观察员）及董事长的权利。",
    ),
    _spec(
        "Board Meetings and Quorum",
        H,
        (_GOV,),
        "Check quorum needs a director of ours and notice periods.",
        r"board\s+meetings?|quorum|董事会会议|法定人数",
        r"\bquorum\b",
        r"法定人数|出席方可举行",
        topic_zh="董事会会议与法定人数",
        description_zh="核查法定人数是否须包括我方委派的董事，以及会议通知期限。",
    ),
    _spec(
        "Reserved Matters",
        C,
        (_GOV,),
        "Check our veto covers new issues, articles, liquidation, budget, M&A, related parties.",
        r"reserved\s+matters|protective\s+provisions|veto|保护性条款|一票否决",
        r"without\s+the\s+prior\s+written\s+consent\s+of\s+the\s+investor",
        r"须经投资方(?:书面)?同意",
        topic_zh="保护性条款",
        description_zh="核查我方否决权是否涵盖新增发股份、章程修改、清算、预算、并购及关联交易。",
    ),
    _spec(
        "Deadlock",
        H,
        (_GOV,),
        "Check deadlock resolution is neutral (no casting vote for the other side).",
        r"deadlock|僵局",
        r"casting\s+vote",
        r"决定票|僵局",
        topic_zh="僵局",
        description_zh="核查僵局解决机制是否中立（对方不享有决定票）。",
    ),
    _spec(
        "Pre-emption",
        H,
        (_GOV,),
        "Check our pro-rata pre-emption on new issues and its carve-outs.",
        r"pre-?emption|优先认购",
        r"pro\s+rata",
        r"优先认购",
        topic_zh="优先认购权",
        description_zh="核查我方对新增发股份按比例享有的优先认购权及其除外情形。",
    ),
    _spec(
        "Lock-up and Transfer Restrictions",
        H,
        (_GOV,),
        "Check the founder is locked up and we are free to transfer.",
        r"lock[\s-]?up|transfer\s+restrictions?|股权转让限制|限售",
        r"shall\s+not\s+transfer",
        r"不得转让",
        topic_zh="锁定期与股权转让限制",
        description_zh="核查创始人是否受锁定期限制，以及我方能否自由转让股权。",
    ),
    _spec(
        "Right of First Refusal",
        M,
        (_GOV,),
        "Check ROFR/ROFO mechanics and that it does not block our exit.",
        r"first\s+refusal|first\s+offer|优先购买",
        r"right\s+of\s+first\s+refusal",
        r"优先购买权",
        topic_zh="优先购买权",
        description_zh="核查优先购买权/优先协商权的行使机制，以及其是否妨碍我方退出。",
    ),
    _spec(
        "Tag-Along",
        H,
        (_GOV,),
        "Check we can sell alongside the founder, with a sensible threshold.",
        r"tag[\s-]?along|co-?sale|跟售|共同出售",
        r"tag[\s-]?along",
        r"共同出售|跟售",
        topic_zh="共同出售权",
        description_zh="核查我方能否与创始人一同出售股权，以及触发门槛是否合理。",
    ),
    _spec(
        "Drag-Along",
        C,
        (_GOV,),
        "Check drag threshold needs our consent or a high majority and a minimum price.",
        r"drag[\s-]?along|领售|拖售",
        r"drag[\s-]?along",
        r"领售",
        topic_zh="领售权",
        description_zh="核查领售权的触发是否须经我方同意或绝对多数通过，以及是否设有最低价格。",
    ),
    _spec(
        "Leaver Provisions",
        H,
        (_GOV,),
        "Check good/bad leaver definitions, vesting and pricing.",
        r"leaver|离职",
        r"bad\s+leaver",
        r"坏离职|好离职",
        topic_zh="离职条款",
        description_zh="核查善意离职与恶意离职的定义、股权归属安排和定价。",
    ),
    _spec(
        "Information Rights",
        M,
        (_CTX,),
        "Check audited accounts, management accounts and inspection rights.",
        r"information\s+rights?|信息权|知情权",
        r"financial\s+statements",
        r"财务报表",
        topic_zh="信息权",
        description_zh="核查经审计的财务报表、管理报表及查阅权。",
    ),
    _spec(
        "Anti-Dilution",
        H,
        (_CTX,),
        "Check price protection on down rounds (weighted average preferred).",
        r"anti-?dilution|反稀释",
        r"weighted\s+average|full\s+ratchet",
        r"反稀释",
        topic_zh="反稀释",
        description_zh="核查降价融资时的价格保护（以加权平均方式为宜）。",
    ),
    _spec(
        "Liquidation Preference",
        H,
        (_CTX,),
        "Check the investor's liquidation preference and its multiple.",
        r"liquidation\s+preference|优先清算|清算优先",
        r"liquidation\s+preference",
        r"优先清算",
        topic_zh="优先清算权",
        description_zh="核查投资方的优先清算权及其倍数。",
    ),
    _spec(
        "Redemption",
        M,
        (_CTX,),
        "Check the investor's redemption (put) right, triggers and price.",
        r"redemption|回购|赎回",
        r"redeem",
        r"回购|赎回",
        topic_zh="回购权",
        description_zh="核查投资方的回购（回售）权、触发条件及回购价格。",
    ),
    _spec(
        "Founder Non-Compete",
        M,
        (_CTX,),
        "Check the founder's non-compete and exclusivity of service.",
        r"non-?compet|竞业",
        r"shall\s+not[^.]{0,60}compete",
        r"竞业",
        topic_zh="创始人竞业禁止",
        description_zh="核查创始人的竞业禁止及全职服务义务。",
    ),
    _spec(
        "Governing Law and Disputes",
        M,
        (_CTX,),
        "Check governing law and forum are clear and consistent.",
        r"governing\s+law|适用法律|争议解决",
        r"governed\s+by\s+the\s+law",
        r"适用中华人民共和国法律",
        topic_zh="适用法律与争议解决",
        description_zh="核查适用法律和争议解决机构是否明确且相互一致。",
    ),
)
"""SHA checklist topics."""

_SPA_MARKERS = re.compile(
    r"share\s+purchase|sale\s+and\s+purchase|purchase\s+price|the\s+seller|the\s+buyer|disclosure\s+letter"
    r"|股权转让协议|股权收购|转让方|受让方|转让价款|披露函|卖方|买方",
    re.IGNORECASE,
)
_SHA_MARKERS = re.compile(
    r"shareholders['’]?\s+agreement|reserved\s+matters|drag[\s-]?along|tag[\s-]?along|pre-?emption"
    r"|deadlock|股东协议|保护性条款|领售|共同出售|跟售|优先认购|僵局|董事会组成",
    re.IGNORECASE,
)


def _whole_text(structure: DocumentStructure) -> str:
    return "\n".join(c.text for c in structure.clauses)


def detect_subtype(structure: DocumentStructure) -> str:
    """'spa' or 'sha', by the number of distinct markers of each in the text."""
    text = _whole_text(structure)[:200_000]
    spa = {m.group(0).lower() for m in _SPA_MARKERS.finditer(text)}
    sha = {m.group(0).lower() for m in _SHA_MARKERS.finditer(text)}
    return "sha" if len(sha) > len(spa) else "spa"


def _own(node: ClauseNode) -> str:
    if not node.children:
        return node.text
    return node.text[: node.children[0].start_offset - node.start_offset]


def find_clause(structure: DocumentStructure, spec: ChecklistSpec) -> ClauseNode | None:
    """The clause that best holds `spec`'s topic, or None."""
    best: tuple[float, ClauseNode] | None = None
    for node in structure.iter_clauses():
        if node.clause_id == "preamble":
            continue
        score = 3.0 if node.title and spec.title.search(node.title.strip()) else 0.0
        own = _own(node)
        score += sum(1.0 for rx in spec.body if rx.search(own))
        if score > 0 and (best is None or score > best[0]):
            best = (score, node)
    return best[1] if best else None


def build_sha_spa_checklist(
    structure: DocumentStructure, subtype: str | None
) -> list[ReviewChecklistItem]:
    """Checklist items of the SPA or SHA checklist found in `structure`, plus one final
    'Missing protections' item naming the topics no clause holds (see the module docstring);
    what to check is written in the contract's language (`structure.language`)."""
    kind = subtype if subtype in ("spa", "sha") else detect_subtype(structure)
    specs = SPA_CHECKLIST if kind == "spa" else SHA_CHECKLIST
    language = structure.language
    zh = language.startswith("zh")
    items: list[ReviewChecklistItem] = []
    missing: list[str] = []
    for spec in specs:
        node = find_clause(structure, spec)
        if node is None:
            missing.append(spec.topic_for(language))
            continue
        items.append(
            ReviewChecklistItem(
                clause_id=node.clause_id,
                clause_name=node.title or spec.topic_for(language),
                priority=spec.priority,
                required_skills=list(spec.skills),
                description=spec.description_for(language),
                topic=spec.topic,
            )
        )
    if missing:
        anchor = structure.get_clause("preamble") or (
            structure.clauses[0] if structure.clauses else None
        )
        description = (
            "未找到以下事项的条款："
            + "；".join(missing)
            + "。请核查是否需要这些保护，并提出相应条款。"
            if zh
            else "No clause was found for: "
            + "; ".join(missing)
            + ". Check whether these protections are needed and propose them."
        )
        items.append(
            ReviewChecklistItem(
                clause_id=anchor.clause_id if anchor else "preamble",
                clause_name=MISSING_TOPIC_ZH if zh else MISSING_TOPIC,
                priority=Priority.HIGH,
                required_skills=[],
                description=description,
                topic=MISSING_TOPIC,
            )
        )
    return items
