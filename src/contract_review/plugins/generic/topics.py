"""Topic detection for commercial contracts: which clause deals with which legal topic.

A topic (limitation of liability, assignment, governing law...) is recognised in a clause by

- its **title**: a heading that names the topic ("Governing Law", "Assignment", "适用法律"),
  counted only when the clause's text also carries enough of the topic's drafting; and
- its **body**: drafting patterns of the topic ("governed by the laws of", "shall not assign
  ... without consent", "in no event shall ... be liable", "受中华人民共和国法律管辖"), each
  with a weight, matched sentence by sentence in the clause's own text (its text minus its
  sub-clauses), so each piece of evidence belongs to exactly one clause. A clause holds the
  topic when the weights of the distinct patterns it matches reach the topic's threshold.

Negative patterns veto a sentence for a topic (a company "organised under the laws of"
Delaware is not a choice of law; "nothing in this Agreement grants a licence" is not a licence
grant; a survival list naming "Limitation of Liability" is no cap). Definitions clauses never
count, and a preamble needs more evidence than a clause.

Per topic the smallest clauses holding it are kept: a clause whose title names the topic stands
for its sub-clauses (unless it is large or a chapter, when its sub-clauses are used instead);
otherwise the clauses whose own text scores; sibling sub-clauses that all hold the topic are
reported as their parent. At most `max_matches` per topic, main body before schedules, the
strongest first. The rules follow legal concepts and common drafting, in English and Chinese,
not the wording of particular contracts.

`build_generic_checklist` turns the matches into checklist items and adds a generic item for
each substantive clause no topic reached (never for the preamble, definitions-only or tiny
clauses), in document order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from contract_review.models import (
    ClauseKind,
    ClauseNode,
    DocumentStructure,
    Priority,
    ReviewChecklistItem,
)

__all__ = [
    "CUAD_TOPICS",
    "TOPICS",
    "Topic",
    "TopicMatch",
    "build_generic_checklist",
    "detect_topics",
    "get_topic",
]

# --------------------------------------------------------------------------------------------
# Catalogue types
# --------------------------------------------------------------------------------------------

_FLAGS = re.IGNORECASE


@dataclass(frozen=True)
class Rule:
    """One body pattern of a topic and its weight (3 = decisive on its own)."""

    pattern: re.Pattern[str]
    weight: float
    force: bool = False
    """Counts even in a sentence a negative pattern vetoes (explicit wording like 'for
    convenience' outweighs a nearby 'breach')."""


@dataclass(frozen=True)
class Topic:
    """One topic of the catalogue: what it is called, how important, how it is recognised."""

    topic_id: str
    name: str
    """The checklist topic (CUAD category name verbatim for the twelve CUAD topics)."""
    priority: Priority
    skills: tuple[str, ...]
    description: str
    """What to check, in one line."""
    vocab: tuple[str, ...]
    """Lower-case substrings one of which a sentence of the topic always contains (a cheap gate
    before the rules)."""
    titles: tuple[re.Pattern[str], ...]
    """Headings that name the topic (English and Chinese)."""
    rules: tuple[Rule, ...]
    """Body patterns with weights (English and Chinese)."""
    negatives: tuple[re.Pattern[str], ...] = ()
    """A sentence matching one of these is no evidence for the topic."""
    negated_vocab: tuple[str, ...] = ()
    """Further gate substrings that count only in a sentence that also holds a negation ('not',
    "n't"): a restriction's wording ('shall not ... develop') without its topic's own words."""
    context: re.Pattern[str] | None = None
    """When set, only sentences matching it count as evidence."""
    title_support: float = 1.0
    """Body evidence a clause titled for the topic needs (anywhere in its text)."""
    threshold: float = 3.0
    max_matches: int = 3
    """At most this many clauses per document (the strongest)."""

    @cached_property
    def any_rule(self) -> re.Pattern[str]:
        """All rules in one pattern: one scan tells whether a sentence can score at all."""
        return re.compile("|".join(f"(?:{r.pattern.pattern})" for r in self.rules), _FLAGS)


def _re(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{a})" for a in alternatives), _FLAGS)


def _words(*words: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in words)


def _rules(*pairs: tuple[str, float]) -> tuple[Rule, ...]:
    return tuple(Rule(re.compile(p, _FLAGS), w) for p, w in pairs)


def _forced(*pairs: tuple[str, float]) -> tuple[Rule, ...]:
    return tuple(Rule(re.compile(p, _FLAGS), w, force=True) for p, w in pairs)


def _titles(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, _FLAGS) for p in patterns)


# Skill ids (see contract_review.skills).
CONTEXT = "get_clause_context"
DEFINITION = "resolve_definition"
BASELINE = "compare_with_baseline"
XREF = "cross_reference_check"
FINANCIAL = "extract_financial_terms"
REFERENCE = "search_reference_doc"
CRITERIA = "load_review_criteria"
DEVIATION = "assess_deviation"

# Shared fragments (text is whitespace-normalised before matching).
_MODAL_NOT = r"(?:shall|will|may|must|can|could|should)(?: not|not|n't)"
_CONSENT = r"(?:consent|approval|permission|agreement)"
_NOTICE_PERIOD = r"(?:\S+ ){0,4}(?:calendar |business |working )?(?:days?|months?|weeks?)['’]?\)? (?:\w+ ){0,3}notice"
_NO_CONDITION = (
    r"(?!.*\b(?:if|in the event|in case|should|where|when|unless|upon the occurrence)\b)"
)

# --------------------------------------------------------------------------------------------
# The catalogue
# --------------------------------------------------------------------------------------------

LIMITATION_OF_LIABILITY = Topic(
    topic_id="limitation_of_liability",
    name="Cap on Liability",
    priority=Priority.CRITICAL,
    skills=(CONTEXT, DEFINITION, BASELINE, FINANCIAL, XREF, DEVIATION),
    description=(
        "Check the liability cap (amount, mutuality, basis), the exclusion of indirect and "
        "consequential loss, carve-outs, exclusive remedies and time limits for claims."
    ),
    vocab=_words("liab", "damages", "remed", "exceed", "action", "claim", "责任", "赔偿", "损失"),
    titles=_titles(
        r"limit\w* (?:of|on) (?:liabilit|damages|remed|actions|claims)",
        r"limited liability|liability limit|liability cap|cap on liability",
        r"(?:exclusion|disclaimer)s? of (?:certain )?(?:damages|liability)",
        r"consequential (?:loss|damages)|exclusive remed|sole remed|no liability",
        r"^\W*(?:liability|limitations?)\W*$",
        r"责任限制|责任限额|赔偿(?:上限|限额)|责任上限|免责|间接损失",
    ),
    rules=_rules(
        (r"(?:in no event|under no circumstances?)\b.{0,150}\b(?:liable|liability|responsible)", 3),
        (
            r"(?:shall|will|does|do)(?: not|n't) (?:be|have any) (?:held )?(?:liable|liability|"
            r"responsible)\b.{0,150}(?:indirect|special|incidental|consequential|punitive|exemplary|"
            r"lost profits?|loss of (?:profits?|revenues?|business|data|use|goodwill))",
            3,
        ),
        (
            r"\bno liability\b.{0,150}(?:indirect|special|incidental|consequential|punitive|"
            r"exemplary|lost profits?)",
            3,
        ),
        (
            r"(?:aggregate|total|cumulative|maximum|entire|collective) (?:\w+ ){0,3}liabilit.{0,250}"
            r"(?:exceed|limited to|capped|not be more than|no more than)",
            3,
        ),
        (r"liabilit\w*\b.{0,250}\b(?:shall|will|is|are) (?:be )?(?:limited\b|capped at)", 3),
        (
            r"(?:neither|no) (?:party|\w+)\b.{0,60}\b(?:shall|will|is|are) (?:be )?(?:held )?(?:liable|responsible)\b",
            2,
        ),
        (r"(?:shall|will)(?: not|n't) be (?:held )?liable\b|under no liability", 3),
        (r"(?:shall|will)(?: not|n't) be (?:held )?responsible\b", 2),
        (r"\bloss(?:es)? or damages?\b|\bdamages? or loss(?:es)?\b", 1),
        (r"liabilit\w*\b.{0,150}\b(?:shall|will|does|is) not (?:\w+ ){0,2}exceed", 3),
        (r"(?:is|are) (?:liable|responsible) for no more than|cumulative maximum", 3),
        (r"sole (?:and exclusive )?remed|exclusive remed|entire (?:liability|obligation)", 3),
        (
            r"no (?:action|claim|suit|proceeding)s?\b.{0,120}\bmay be (?:brought|commenced|filed)"
            r".{0,80}more than",
            3,
        ),
        (r"(?:bring|commence) (?:a |any )?(?:legal )?(?:action|claim|suit)s?\b.{0,80}more than", 3),
        (
            r"(?:indirect|special|incidental|consequential|punitive|exemplary)"
            r"(?:,? (?:or |and )?\w+)* (?:loss|damages)",
            1,
        ),
        (r"advised of the possibility|regardless of (?:the form|whether)", 1),
        (r"limitation of liability|limitations? (?:of|on) (?:damages|liability)", 1),
        (
            r"(?:累计|总|最高)?(?:赔偿|责任)(?:总额|金额|上限|限额|范围).{0,20}"
            r"(?:不(?:得)?超过|以.{0,25}为限|为限)",
            3,
        ),
        (
            r"(?:不(?:承担|负责)|免除).{0,25}(?:间接|附带|惩罚性|后果性|预期利[润益]|利润损失|可得利益)",
            3,
        ),
        (r"责任限额|赔偿上限|责任上限|最高赔偿", 3),
        (r"间接损失|可得利益|预期利润", 1),
    ),
    negatives=(
        _re(
            r"limited liability (?:company|partnership)",
            r"\binsur(?:ance|ed)\b",
            r"force majeure|acts? of god|(?:delay|failure) (?:or (?:delay|failure) )?(?:in|to) (?:the )?perform",
            r"保险|不可抗力",
        ),
    ),
    max_matches=6,
)

INDEMNITY = Topic(
    topic_id="indemnity",
    name="Indemnity",
    priority=Priority.HIGH,
    skills=(CONTEXT, DEFINITION, BASELINE, XREF, DEVIATION),
    description=(
        "Check who indemnifies whom for what (third-party claims, IP infringement, breach), "
        "the procedure (notice, control of defence) and whether the indemnity is capped."
    ),
    vocab=_words("indemn", "harmless", "赔偿", "补偿", "免受"),
    titles=_titles(r"indemn", r"hold harmless", r"赔偿|补偿"),
    rules=_rules(
        (r"(?:shall|will|agrees? to|undertakes? to) (?:\w+ ){0,3}(?:indemnify|defend)", 3),
        (r"\bhold (?:\w+ ){0,5}harmless", 3),
        (r"indemnif(?:y|ies|ied|ication)|indemnit(?:y|ies)", 1),
        (r"against (?:any and all|all|any) (?:third[- ]party )?(?:claims|losses|liabilities)", 1),
        (r"使.{0,15}免受.{0,25}(?:损害|损失|索赔|追索)", 3),
        (r"(?:赔偿|补偿).{0,30}(?:全部)?(?:损失|费用|索赔)", 2),
        (r"第三方.{0,30}(?:索赔|主张|诉讼|追索)", 1),
    ),
    max_matches=3,
)

TERMINATION = Topic(
    topic_id="termination",
    name="Termination",
    priority=Priority.HIGH,
    skills=(CONTEXT, DEFINITION, BASELINE, XREF, DEVIATION),
    description=(
        "Check the termination rights of each side (breach, cure period, insolvency), notice "
        "requirements and the consequences of termination (payments, survival, return of data)."
    ),
    vocab=_words("terminat", "cancel", "rescind", "解除", "终止"),
    titles=_titles(r"terminat", r"cancellation", r"解除|终止"),
    rules=_rules(
        (
            r"(?:may|shall have the right to|is entitled to|can|will have the right to) (?:\w+ ){0,3}terminate",
            2,
        ),
        (
            r"terminat\w*\b.{0,150}(?:material(?:ly)? breach|breach|default|insolven|bankrupt|"
            r"fail\w* to cure)",
            2,
        ),
        (
            r"(?:effect|consequences?) of (?:termination|expiration)|upon (?:any )?(?:termination|expiration)",
            1,
        ),
        (r"\bterminat", 1),
        (r"(?:有权|可以|可).{0,12}(?:解除|终止)(?:本)?(?:合同|协议)", 3),
        (r"(?:解除|终止).{0,15}(?:合同|协议)|(?:合同|协议).{0,6}(?:解除|终止)", 1),
    ),
    max_matches=3,
)

TERMINATION_FOR_CONVENIENCE = Topic(
    topic_id="termination_for_convenience",
    name="Termination for Convenience",
    priority=Priority.HIGH,
    skills=(CONTEXT, DEFINITION, BASELINE, FINANCIAL, DEVIATION),
    description=(
        "Check who may end the contract without cause, the notice period, and what is paid or "
        "recovered on such termination (fees, wind-down costs, refunds)."
    ),
    vocab=_words("terminat", "withdraw", "cancel", "revoke", "解除", "终止", "退出"),
    titles=_titles(
        r"(?:termination|terminate) (?:for|at) (?:convenience|will)|for convenience|without cause",
        r"voluntary (?:termination|withdrawal)",
        r"任意解除|单方解除|无理由解除|便利终止",
    ),
    rules=_forced(
        (r"terminat.{0,150}\bconvenience|\bconvenience\b.{0,100}terminat", 3),
        (r"terminat.{0,150}\bwithout (?:any )?cause|\bwithout cause\b.{0,100}terminat", 3),
    )
    + _rules(
        (
            r"(?:may|can|shall have the right to|is entitled to|reserves the right to|will have the "
            r"right to|has the right to|shall be entitled to) (?:\w+ ){0,6}terminat.{0,150}"
            r"(?:for any (?:or no )?reason|for no reason|at (?:its|their) (?:sole |absolute )?"
            r"(?:discretion|option)|in (?:its|their) (?:sole|absolute|own)(?: and (?:sole|absolute))? "
            r"discretion)",
            3,
        ),
        (
            r"^" + _NO_CONDITION + r".*?"
            r"(?:may|can|right to|entitled to|shall be|will be) (?:\w+ ){0,6}terminat\w*\b.{0,150}"
            r"(?:upon|by giving|on|with|giving|by providing|providing) (?:the other part\w* )?"
            r"(?:\w+ ){0,2}" + _NOTICE_PERIOD,
            3,
        ),
        (
            r"(?:right|entitled)\b.{0,20}\b(?:exercisable )?(?:upon|on|by giving|with) "
            + _NOTICE_PERIOD
            + r".{0,60}\bterminat",
            2,
        ),
        (r"terminable\b.{0,150}(?:at will|notice)", 2),
        (
            r"(?:terminat|withdraw|cancel).{0,120}\bat any time|\bat any time\b.{0,120}(?:terminat|withdraw|cancel)",
            1,
        ),
        (r"withdraw\b.{0,80}\bat any time|voluntarily withdraw", 2),
        (r"revoke\b.{0,60}\bat any time", 2),
        (
            r"(?:任何一方|任一方|双方均|甲方|乙方|一方).{0,10}(?:可|有权)(?:随时|提前).{0,25}(?:解除|终止)",
            3,
        ),
        (r"提前.{0,12}(?:日|天|个月|周).{0,8}(?:书面)?通知.{0,20}(?:解除|终止)", 2),
        (r"无需.{0,8}理由.{0,20}(?:解除|终止)|(?:解除|终止).{0,20}无需.{0,8}理由|任意解除", 3),
    ),
    negatives=(
        _re(
            r"breach",
            r"default",
            r"insolv",
            r"bankrupt",
            r"fail(?:s|ed|ure)? to (?:cure|perform|pay|comply|remedy|meet|deliver)",
            r"violat",
            r"force majeure",
            r"change (?:of|in) control",
            r"receiver",
            r"renew",
            r"expir",
            r"upon (?:the )?(?:expiration or )?termination of this",
            r"违约|破产|不可抗力|未能.{0,10}(?:履行|支付)|续约|续期|期满",
        ),
    ),
    max_matches=3,
)

ANTI_ASSIGNMENT = Topic(
    topic_id="assignment",
    name="Anti-Assignment",
    priority=Priority.MEDIUM,
    skills=(CONTEXT, DEFINITION, BASELINE, DEVIATION),
    description=(
        "Check whether assignment, transfer, delegation or subcontracting needs consent, the "
        "permitted transfers (affiliates, successors) and what happens to a transfer in breach."
    ),
    vocab=_words(
        "assign",
        "transfer",
        "delegat",
        "subcontract",
        "personal to",
        "转让",
        "转移",
        "分包",
        "转包",
    ),
    title_support=2.0,
    context=_re(
        r"(?:this|the) (?:agreement|contract)|rights?\b|obligations?|duties|hereunder|interests?\b|"
        r"benefits?\b|in whole or in part|personal to|delegat|subcontract|sub-?licen",
        r"合同|协议|权利|义务",
    ),
    titles=_titles(
        r"assign",
        r"transfer(?:s|ability)? (?:of|by) (?:this |the )?(?:agreement|rights|contract)",
        r"^\W*transfers?\W*$",
        r"delegation|subcontract",
        r"转让|权利义务的?转移|分包",
    ),
    rules=_rules(
        (_MODAL_NOT + r" (?:\w+ ){0,4}(?:assign|transfer|delegate)", 3),
        (r"neither party (?:may|shall|will|can) (?:\w+ ){0,4}(?:assign|transfer)", 3),
        (
            r"(?:agreement|rights?|obligations?|duties)\b.{0,80}\b(?:shall|may|will|is|are)(?: not|n't) "
            r"(?:be )?(?:assignable|transferable|assigned|transferred|delegated)",
            3,
        ),
        (r"\bnot (?:be )?assignable|non-?assignable", 3),
        (
            r"(?:assign|transfer|delegat)\w*\b.{0,200}\bwithout (?:first )?(?:obtaining )?(?:the )?"
            r"(?:\w+ ){0,4}(?:prior )?(?:express )?(?:written )?" + _CONSENT,
            3,
        ),
        (
            r"(?:assign|transfer)\w*\b.{0,120}\b(?:subject to|requires?|with) (?:the )?(?:\w+ ){0,4}"
            r"(?:prior )?(?:express )?(?:written )?" + _CONSENT,
            2,
        ),
        (
            r"(?:attempted|purported|attempt to|attempts to|any) (?:\w+ ){0,3}(?:assignment|transfer|"
            r"delegation)\b.{0,150}(?:null|void|no (?:force|effect)|invalid)",
            3,
        ),
        (
            r"(?:rights|agreement|obligations|guaranty)\b.{0,60}\b(?:are|is|shall (?:be|remain)) personal to",
            3,
        ),
        (
            r"(?:shall|will|may) not (?:\w+ ){0,3}(?:subcontract|sub-?license|sub-?licence)\w*\b.{0,150}"
            r"without\b.{0,60}" + _CONSENT,
            3,
        ),
        (
            r"\bmay assign\b.{0,200}\bwithout (?:the )?(?:\w+ ){0,4}" + _CONSENT,
            2,
        ),
        (r"\bassign(?:ment|ed|able)?\b|\btransfer\b", 1),
        (r"未经.{0,25}(?:书面)?同意.{0,30}(?:不得|无权|均不得).{0,25}(?:转让|转移|转包|分包)", 3),
        (r"(?:不得|无权).{0,20}(?:转让|转移|转包|分包).{0,25}(?:权利|义务|合同|协议)", 3),
        (r"(?:转让|转移).{0,30}(?:权利|义务).{0,30}(?:须|应|需|必须).{0,20}同意", 3),
        (r"转让|转包|分包", 1),
    ),
    negatives=(
        _re(
            r"hereby (?:irrevocably )?assigns?",
            r"agrees? to assign",
            r"(?:shall|will) (?:promptly )?assign (?:to|all|and)",
            r"assign(?:ment|s)? (?:of )?(?:all )?(?:its |their )?(?:right, title|intellectual|patent|copyright|invention)",
            r"assignment for the benefit of (?:its )?creditors",
            r"assign (?:\w+ )?(?:personnel|employees|staff|individuals|representatives)",
            r"work made for hire",
            r"title (?:to|in) .{0,40}(?:shall )?(?:transfer|pass)",
            r"risk of loss",
            r"wire transfer|electronic (?:funds )?transfer|bank transfer|transfer pricing",
            r"\bgrants?\b.{0,100}\blicen[cs]e|licen[cs]e\b.{0,60}\b(?:non-?)?transfer(?:r)?able",
            r"transfer (?:of|any) (?:\w+ ){0,2}(?:know-?how|technology|materials?|data|samples?|title|goods|products?|equipment|funds)",
            r"知识产权.{0,10}转让|技术转让",
        ),
    ),
    max_matches=4,
)

CHANGE_OF_CONTROL = Topic(
    topic_id="change_of_control",
    name="Change of Control",
    priority=Priority.HIGH,
    skills=(CONTEXT, DEFINITION, BASELINE, DEVIATION),
    description=(
        "Check what a change of control, merger or sale of the business triggers (consent, "
        "notice, termination right) and how control is defined."
    ),
    vocab=_words(
        "control",
        "merge",
        "acqui",
        "substantially all",
        "voting",
        "ownership",
        "majority",
        "capital stock",
        "equity",
        "控制",
        "合并",
        "收购",
        "股权",
    ),
    titles=_titles(r"change (?:of|in) (?:control|ownership)", r"merger", r"控制权"),
    rules=_forced(
        (r"change (?:of|in) (?:the )?(?:\w+ ){0,2}(?:or )?(?:control|ownership)\b", 3),
    )
    + _rules(
        (
            r"(?:merger|consolidation|acquisition|reorgani[sz]ation|change of control)\b.{0,200}"
            r"\bdeemed (?:to be )?(?:an? )?(?:assignment|transfer)",
            3,
        ),
        (
            r"deemed (?:to be )?an? (?:assignment|transfer)\b.{0,200}(?:merger|consolidation|"
            r"acquisition|control)",
            3,
        ),
        (
            r"(?:\d+|fifty|majority|more than half)\b.{0,40}\b(?:of )?(?:the |its |any class of (?:its )?)?"
            r"(?:outstanding |issued )?(?:(?:voting|equity|ownership) (?:securities|stock|shares|interests?|"
            r"power|rights)|capital stock)",
            2,
        ),
        (
            r"controlling (?:interest|shareholder|stake)|acquires? control|majority (?:ownership |equity |"
            r"voting )?interest",
            2,
        ),
        (
            r"(?:merger|consolidation|reorgani[sz]ation)\b.{0,150}\b(?:sale|transfer|acquisition|disposition) "
            r"of (?:all or )?(?:substantially all|a majority|more than (?:fifty|50))",
            2,
        ),
        (
            r"(?:transfer|sale|acquisition|acquires?|disposition)\w*\b.{0,80}\b(?:voting (?:power|control|"
            r"stock|securities|shares|interests?)|control of)",
            2,
        ),
        (
            r"(?:sale|transfer|disposition|disposal) of (?:all or )?substantially all (?:of )?"
            r"(?:its |the |such party's |their )?(?:assets|business|stock|shares)",
            1,
        ),
        (r"\bmerge[sd]?\b|\bmerger\b|\bconsolidat(?:es?|ed|ion) with\b", 1),
        (r"\bacquired by\b|\bacquisition of\b", 1),
        (
            r"(?:terminat|consent|notif|notice)\w*\b.{0,200}(?:merge|consolidat|acqui|substantially all"
            r"|controlling interest|voting)",
            1,
        ),
        (r"控制权.{0,8}(?:变更|变化|转移|发生变|易主)|实际控制人.{0,8}(?:变更|变化)", 3),
        (r"(?:合并|分立|被收购|重组|股权转让).{0,40}(?:解除|终止|同意|通知)", 2),
        (r"股权.{0,20}(?:转让|变更).{0,30}(?:\d+%|百分之|控股)", 2),
    ),
    negatives=(
        _re(
            r"(?:no|not|without) (?:\w+ ){0,3}(?:consent|approval)\b.{0,40}\b(?:required|necessary|needed)",
            r"(?:does not|shall not|will not) require (?:the )?(?:\w+ ){0,3}(?:consent|approval)",
            r"without (?:the )?(?:need|requirement) (?:for|of|to obtain)|without (?:\w+ ){0,3}consent",
        ),
    ),
    max_matches=4,
)

GOVERNING_LAW = Topic(
    topic_id="governing_law",
    name="Governing Law",
    priority=Priority.MEDIUM,
    skills=(CONTEXT, BASELINE, DEVIATION),
    description=(
        "Check which law governs the contract, whether conflict-of-law rules are excluded and "
        "whether it fits the forum chosen for disputes."
    ),
    vocab=_words("law", "governed", "法律", "管辖", "适用"),
    context=_re(
        r"this (?:\w+ ){0,2}(?:agreement|amendment|contract|note|instrument|bill of sale|guarant\w*|"
        r"licen[cs]e|lease|deed|order|schedule|exhibit)|hereunder|hereto|herein|the parties|disputes?|"
        r"controvers|claims?|construction|interpretation",
        r"本合同|本协议|合同|协议|争议",
    ),
    titles=_titles(
        r"governing law|choice of law|applicable law|law applicable|\blaws?\b",
        r"适用法律|法律适用|准据法|管辖法律",
    ),
    rules=_rules(
        (r"governed\b.{0,40}\b(?:by|under|pursuant to)\b.{0,150}\blaws?\b", 3),
        (
            r"(?:construed|interpreted|enforced|applied|determined|resolved|govern|construe|"
            r"interpret)\w*\b.{0,100}\b(?:in accordance with|under|pursuant to|according to)\b"
            r".{0,80}\blaws?\b",
            3,
        ),
        (r"\blaws? of\b.{0,80}\b(?:shall|will) (?:govern|apply|be applied)", 3),
        (r"\blaw (?:shall|will) (?:govern|apply)", 3),
        (r"in accordance with the (?:\w+ ){0,2}laws? of", 2),
        (
            r"\blaws? of (?:the )?(?:state|commonwealth|province|republic|kingdom|people's republic|federal)",
            2,
        ),
        (r"governing law|choice of law|conflicts? of laws?|conflict of law", 1),
        (r"without (?:regard|reference|giving effect) to\b.{0,60}\b(?:conflict|choice)", 1),
        (r"适用(?:于)?(?:中华人民共和国|中国|[^，。；]{1,12}?)(?:的)?法律(?!效力|责任)", 3),
        (
            r"(?:依照|依据|按照)(?:中华人民共和国|中国|[^，。；]{1,8}?)(?:的)?法律(?:进行)?(?:解释|订立|履行)",
            3,
        ),
        (r"受.{0,25}法律(?:的)?管辖", 3),
        (r"(?:订立|效力|解释|履行).{0,30}(?:适用|依据|按照).{0,20}法律", 3),
        (r"中华人民共和国法律", 1),
    ),
    negatives=(
        _re(
            r"(?:organi[sz]ed|incorporated|existing|formed|registered|established|chartered|"
            r"constituted) (?:and existing )?(?:under|pursuant to|in accordance with) the laws",
            r"comply with|compliance with|in violation of|violat",
            r"(?:permitted|required|prohibited|allowed) (?:by|under) (?:the )?(?:applicable )?laws?",
            r"invalid|unenforceable|illegal",
            r"依法(?:成立|设立|注册)|注册于|遵守.{0,10}法律法规|法律效力|法律责任",
        ),
    ),
    max_matches=2,
)

DISPUTE_RESOLUTION = Topic(
    topic_id="dispute_resolution",
    name="Dispute Resolution",
    priority=Priority.MEDIUM,
    skills=(CONTEXT, BASELINE, XREF, DEVIATION),
    description=(
        "Check the forum (courts or arbitration), seat, rules, language, escalation steps and "
        "whether interim relief remains available."
    ),
    vocab=_words(
        "arbitrat", "dispute", "jurisdiction", "venue", "court", "争议", "仲裁", "诉讼", "法院"
    ),
    titles=_titles(r"dispute|arbitration|jurisdiction|venue|forum", r"争议|仲裁|管辖|诉讼"),
    rules=_rules(
        (r"\barbitrat(?:ion|or|ors|ed|e)\b", 2),
        (r"(?:exclusive|non-exclusive) jurisdiction|submit\w* to the\b.{0,40}\bjurisdiction", 3),
        (
            r"disputes?\b.{0,150}\b(?:shall|will) be (?:finally )?(?:settled|resolved|referred|submitted|"
            r"determined|heard)",
            3,
        ),
        (r"\bvenue\b|\bforum\b|courts? (?:of|located in|sitting in)", 1),
        (r"mediat(?:ion|or)|escalat", 1),
        (r"(?:提交|提请).{0,25}仲裁委员会|仲裁", 3),
        (r"向.{0,25}人民法院.{0,10}(?:起诉|提起诉讼)|诉讼解决|法院管辖", 3),
        (r"争议.{0,20}协商", 1),
    ),
    max_matches=2,
)

CONFIDENTIALITY = Topic(
    topic_id="confidentiality",
    name="Confidentiality",
    priority=Priority.HIGH,
    skills=(CONTEXT, DEFINITION, BASELINE, DEVIATION),
    description=(
        "Check what is confidential, the permitted disclosures and uses, the duration of the "
        "obligation and the return or destruction of information."
    ),
    vocab=_words("confidential", "disclos", "trade secret", "保密", "秘密"),
    titles=_titles(r"confidential|non-?disclosure|secrecy", r"保密|商业秘密"),
    rules=_rules(
        (r"confidential information", 2),
        (r"(?:keep|hold|maintain|treat)\b.{0,80}\b(?:in (?:strict )?confidence|confidential)", 3),
        (_MODAL_NOT + r" (?:\w+ ){0,4}(?:disclose|divulge|reveal)", 2),
        (r"non-?disclosure", 2),
        (r"\bconfidential(?:ity)?\b|trade secrets?", 1),
        (r"保密(?:义务|信息|期限|责任|资料)", 3),
        (r"(?:不得|未经.{0,15}同意).{0,25}(?:披露|泄露|透露|公开)", 2),
        (r"商业秘密|保密", 1),
    ),
    max_matches=2,
)

IP_OWNERSHIP = Topic(
    topic_id="ip_ownership",
    name="IP Ownership Assignment",
    priority=Priority.HIGH,
    skills=(CONTEXT, DEFINITION, BASELINE, DEVIATION),
    description=(
        "Check who owns what is created under the contract (work product, inventions, "
        "improvements), any present assignment and what passes back on termination."
    ),
    vocab=_words(
        "own",
        "property",
        "title",
        "assign",
        "vest",
        "for hire",
        "inure",
        "enure",
        "所有",
        "归",
        "知识产权",
        "转让",
    ),
    titles=_titles(
        r"ownership|intellectual property|proprietary rights|work (?:made )?for hire|inventions?|"
        r"improvements|title to|derived works|work product",
        r"知识产权|成果归属|权属|所有权",
    ),
    rules=_rules(
        (
            r"hereby (?:irrevocably )?(?:[a-z]+,? (?:and )?){0,4}(?:assigns?|transfers?|conveys?)\b",
            3,
        ),
        (r"(?:agrees? to|shall|will)\b.{0,80}\b(?:assign|transfer|convey)\w*\b", 2),
        (r"(?:deemed|shall be) (?:to be )?(?:assigned|transferred) to and vest", 3),
        (r"deemed (?:to be )?assigned", 3),
        (
            r"(?:shall|will) (?:be|become) (?:the )?(?:sole (?:and exclusive )?|exclusive )?"
            r"(?:property|owner) of|(?:shall|will) (?:be|become) (?:the )?(?:our|its|their|your) "
            r"(?:sole (?:and exclusive )?|exclusive )?property\b",
            3,
        ),
        (r"work(?:s)? (?:made )?for hire", 3),
        (
            r"(?:shall|will) (?:solely |exclusively )?own (?:all|any|the|exclusively)\b.{0,80}"
            r"(?:right|title|interest|intellectual|invention|work|improvement|data|result|deliverable)",
            2,
        ),
        (r"(?:title|ownership)\b.{0,60}\b(?:shall |will )?(?:vest|vests|vested) (?:in|with)", 2),
        (r"goodwill\b.{0,100}\b(?:inure|enure)", 2),
        (r"right,? title,? and interest", 1),
        (
            r"(?:upon|on|following|after) (?:the )?(?:any )?(?:termination|expiration|expiry)\b.{0,150}"
            r"\b(?:assign|transfer|convey|return)\w*\b|\b(?:assign|transfer|convey)\w*\b.{0,80}\bback to\b",
            1,
        ),
        (r"知识产权.{0,30}(?:归|属于).{0,12}(?:所有|享有)", 3),
        (r"(?:成果|作品|发明|技术|改进|资料).{0,30}(?:归|属于).{0,15}所有", 3),
        (r"(?:著作权|专利权|专利申请权|所有权).{0,20}(?:归|属于|转让给)", 2),
        (r"知识产权", 1),
    ),
    context=_re(
        r"intellectual property|\bIP\b|invention|improvement|work product|deliverable|copyright|"
        r"patent|know-?how|trade ?marks?|\bmarks\b|goodwill|technology|software|source code|"
        r"\bdata\b|results|developments|modifications|enhancements|customi[sz]ations|derivative|"
        r"works? of authorship|works? (?:made )?for hire|domain names?|materials|designs?|"
        r"regulatory (?:filings|approvals?|documentation)|marketing authori[sz]ation|\bNDA\b|dossier",
        r"知识产权|专利|著作权|商标|技术|成果|发明|改进|作品|资料|数据|软件",
    ),
    title_support=2.0,
    negatives=(
        _re(
            r"(?:retains?|reserves?|remains?|retained by)\b.{0,80}(?:right|title|ownership|property)",
            r"(?:disclaims?|waives?) any (?:ownership|right)",
            r"assign (?:this|the) agreement|assignment of this agreement",
            r"assignment for the benefit of (?:its )?creditors",
            r"(?:may|shall|will) not (?:\w+ ){0,3}assign",
            r"\bIP address",
            r"title (?:to|in) (?:the )?(?:products?|goods|equipment|units)",
            r"risk of loss",
        ),
    ),
    max_matches=6,
)

LICENSE_GRANT = Topic(
    topic_id="license_grant",
    name="License Grant",
    priority=Priority.HIGH,
    skills=(CONTEXT, DEFINITION, BASELINE, DEVIATION),
    description=(
        "Check the scope of each licence (subject matter, field, territory, term, exclusivity, "
        "sublicensing, fees) and the restrictions on use."
    ),
    vocab=_words("licen", "grant", "right to use", "许可", "授权"),
    titles=_titles(
        r"\blicen[cs]es?\b(?! (?:fees?|restrictions?|terms?|term|period|payments?)\b)|licen[cs]e grant|"
        r"\blicensing\b",
        r"grant of (?:rights?|licen)|rights granted|^\W*grants?\W*$|grant to\b",
        r"许可|授权",
    ),
    title_support=2.0,
    max_matches=10,
    rules=_rules(
        (r"(?<!not )(?<!no )(?<!never )(?<!to )(?<!the )\bgrants?\b.{0,200}\blicen[cs]e", 3),
        (r"\bright and licen[cs]e|\blicen[cs]e and right", 3),
        (
            r"(?<!not )(?:agrees?|undertakes?|covenants?) to (?:grant|licen[cs]e)\b.{0,80}"
            r"\b(?:licen[cs]e|rights?)\b",
            3,
        ),
        (
            r"(?<!not )(?<!no )(?<!to )(?<!the )\bgrants?\b.{0,150}\bright(?:s)?\b.{0,40}\bto "
            r"(?:\(?[a-z0-9]{1,3}\) )?(?:use|reproduce|distribute|market|"
            r"sell|display|copy|modify|exploit|make|practi[cs]e|publish|access|promote|sub-?license)",
            3,
        ),
        (r"(?:is|are|shall be|will be) (?:hereby )?licen[cs]ed\b.{0,60}\bto\b", 3),
        (r"licen[cs]es?\b.{0,60}\b(?:shall |will )?include[s]? the right to", 3),
        (r"option to (?:obtain|acquire|negotiate) (?:an? )?(?:[\w-]+,? ){0,4}licen[cs]e", 3),
        (
            r"(?:may|is entitled to|shall have the right to|will have the right to|has the right to) "
            r"(?:[\w,]+ ){0,4}(?:install|copy|reproduce|display|perform|sublicense|exploit|practi[cs]e)\b",
            1,
        ),
        (r"(?:shall be|is|are) deemed (?:to be )?licen[cs]ed", 3),
        (
            r"(?:may|is entitled to|shall have the right to|will have the right to|has the right to) "
            r"use (?:the )?(?:[\w,]+ ){0,6}(?:trademarks?|marks|names?|logos?|software|content|"
            r"materials|technology|intellectual property|data)",
            2,
        ),
        (r"appoints?\b.{0,100}\b(?:distributor|reseller|agent|representative|dealer|licensee)", 2),
        (r"sub-?licen[cs]e|\blicen[cs](?:e|ed|or|ee)s?\b", 1),
        (r"royalty-?free|fully[- ]paid|perpetual|irrevocable|world-?wide", 1),
        (r"授予.{0,40}(?:许可|使用权|授权)", 3),
        (r"许可.{0,20}使用|(?:独占|排他|普通)(?:许可|使用)", 2),
        (r"许可|授权", 1),
    ),
    negatives=(
        _re(
            r"nothing (?:in|contained in|herein|in this)\b.{0,120}\b(?:grant|confer|construed|deemed|license)",
            r"no (?:other )?(?:rights?,? (?:or |and )?)?licen[cs]es?\b.{0,60}\b(?:is|are|shall be|will be|"
            r"has been|have been)? ?(?:granted|conferred|implied)",
            r"(?:shall|will) not be (?:construed|deemed|interpreted) (?:as|to)\b.{0,20}(?:grant|confer)",
            r"does not (?:grant|confer)|is not granted|not granted any|no implied licen",
            r"(?:right|power|authority)(?: and (?:authority|power|right))? to (?:enter into|license|make|"
            r"grant(?! (?:and authori[sz]e (?:the grant of )?)?(?:further )?sub-?licen))",
            r"owned or licensed|or otherwise controlled|licensed by (?:a )?third part",
            r"\bnor\b.{0,60}\bgrant|(?:shall|will|may) not\b.{0,80}\bgrant|not to grant",
            r"by implication,? estoppel",
            r"本合同.{0,10}不(?:构成|视为).{0,10}(?:许可|授权)|未授予",
        ),
    ),
)

EXCLUSIVITY = Topic(
    topic_id="exclusivity",
    name="Exclusivity",
    priority=Priority.HIGH,
    skills=(CONTEXT, DEFINITION, BASELINE, DEVIATION),
    description=(
        "Check who is bound to deal exclusively (territory, products, channel, duration), "
        "requirements commitments and the exceptions."
    ),
    vocab=_words(
        "exclusiv",
        "sole ",
        "only ",
        "requirements",
        "other than",
        "third part",
        "独家",
        "排他",
        "唯一",
        "专营",
        "第三方",
        "其他",
        "竞争对手",
    ),
    titles=_titles(
        r"(?<!non-)(?<!non)(?<!non )(?<!non- )(?<!co-)exclusiv",
        r"sole (?:source|supplier|distributor)|requirements",
        r"独家|排他|专营",
    ),
    rules=_rules(
        (
            r"(?<!non-)(?<!non)(?<!non )(?<!non- )(?<!co-)\bexclusive,? (?:[\w-]+,? (?:and )?){0,4}(?:licen[cs]e|rights?|distribut\w*|agen\w+|"
            r"representative|provider|supplier|reseller|dealer|basis|partner|sponsor|territory|"
            r"option|access|relationship|marketing|arrangement|manufacturer|source|vendor|seller)",
            3,
        ),
        (
            r"\bexclusively (?:through|with|from|by|to)\b|\bbe exclusively \w+ (?:by|through|with)\b",
            3,
        ),
        (
            r"(?:shall|will|agrees?(?: that it will)?|may)(?: not|n't) (?:\w+ ){0,4}(?:appoint|grant|"
            r"license|sell|supply|collaborate|engage|purchase|procure|authori[sz]e|partner|work|"
            r"enter into|display|place|publish|use)\w*\b.{0,150}(?:any (?:[\w-]+ ){0,2}(?:other|third)[ -]part|"
            r"anyone other than|any other (?:person|entity|distributor|supplier|company|provider))",
            2,
        ),
        (
            r"(?:purchase|buy|procure|obtain|order) (?:all|100%|one hundred percent) of (?:its|their) "
            r"(?:\w+ ){0,3}requirements",
            3,
        ),
        (
            r"\b(?:sole|only) (?:and exclusive )?(?:supplier|source|distributor|provider|reseller|representative)",
            2,
        ),
        (r"(?<!non-)(?<!non)(?<!non )(?<!non- )(?<!co-)\bexclusiv(?:e|ely|ity)\b", 1),
        (r"独家(?:代理|经销|销售|供应|合作|许可|授权)?|排他(?:性)?(?:许可|合作|经销|代理)?", 3),
        (
            r"(?:不得|不再).{0,30}(?:第三方|竞争对手|其他(?:任何)?(?:单位|公司|企业|供应商|经销商|个人|代理商))"
            r".{0,30}(?:合作|销售|授权|采购|签订|经销|代理)",
            2,
        ),
    ),
    negatives=(
        _re(
            r"sole (?:and exclusive )?remed|exclusive remed|exclusive (?:jurisdiction|venue|forum)",
            r"exclusive of\b|exclusive (?:property|owner)",
            r"exclusively (?:for|in) (?:connection with )?(?:the )?(?:purposes?|performance)",
            r"exclusive(?:ly)? (?:liability|obligation)|entire liability",
            r"exclusive (?:authority|responsibility|control|discretion)|exclusively responsib",
            r"(?:belong|vest|accrue|inure|owned)\w* exclusively|exclusively (?:own|owned|the property)",
            r"exclusive rights?,? (?:but not the obligation,? )?to (?:control|determine|decide|settle|"
            r"prosecute|enforce|defend|protect|file|maintain|bring|institute|conduct|manage)",
            r"(?:borne|paid|payable|incurred)\b.{0,20}\bexclusively|exclusively govern",
            r"not (?:be )?(?:considered|deemed|construed)\b.{0,60}\bexclusive",
            r"\bowner of\b|exclusive right to grant|unreasonably withh",
            r"(?:has|have) the (?:full |legal |sole )?(?:right|power|authority)\b.{0,30}\bto grant",
            r"confidential",
        ),
    ),
    max_matches=6,
)

NON_COMPETE = Topic(
    topic_id="non_compete",
    name="Non-Compete",
    priority=Priority.HIGH,
    skills=(CONTEXT, DEFINITION, BASELINE, DEVIATION),
    description=(
        "Check the scope of the restraint on competing (activities, products, territory, "
        "duration, post-term period) and whether it is reasonable and enforceable."
    ),
    vocab=_words(
        "compet",
        "similar",
        "same as",
        "竞业",
        "竞争",
        "同业",
        "同类",
    ),
    negated_vocab=_words(
        "covenant",
        "directly or indirectly",
        "engage in",
        "outside",
        "territor",
    ),
    titles=_titles(
        r"non-?compet|not to compete|competition|competing|competitive|restrictive covenant|"
        r"conflicts? of interest|negative covenant",
        r"竞业|竞争|同业",
    ),
    rules=_rules(
        (r"non-?compet(?:e|ition)|not (?:to )?compete|covenants? not to compete", 3),
        (
            r"(?:shall|will|may|agrees?(?: that it will| to)?|covenants? that it will)(?: not|n't),? "
            r"(?:[\w,()-]+ ){0,8}(?:engage|compete|market|sell|distribute|promote|develop|manufacture|"
            r"commerciali[sz]e|offer|operate|own|manage|provide|carry on|conduct|participate|invest|"
            r"license|acquire|research|make|solicit|represent|advertise|produce|display|place|"
            r"allow|permit|grant|enter into|endorse|collaborate|partner|support|work with)\w*\b.{0,300}"
            r"\b(?:compet(?:e|es|ing|itive|itor|itors)|similar (?:business|products?|services?))",
            3,
        ),
        (
            r"(?:shall|will|may|agrees?(?: that it will| to)?|covenants? that it will)(?: not|n't)\b.{0,300}"
            r"\b(?:compet(?:e|es|ing|itive|itor|itors)|similar (?:business|products?|services?))",
            2,
        ),
        (
            r"^(?=.*?(?:compet|similar|same as)).*?"
            r"\b(?:engage|participate|invest|interest|own|operate|manage|employed|involved)\w*\b.{0,300}"
            r"\b(?:business|activit\w*|venture|enterprise|establishment|store|outlet|restaurant|franchise)"
            r"\b.{0,300}\b(?:compet|similar to|same as|same or similar|substantially similar)",
            2,
        ),
        (
            r"\bdirectly or indirectly\b|for (?:a period of )?\S+ (?:\(\d+\) )?(?:years?|months?) (?:after|following)",
            1,
        ),
        (
            r"within (?:a )?(?:radius of )?\S+ (?:\(\d+\) )?(?:miles?|kilometers?|kilometres?|km)\b",
            1,
        ),
        (r"restrictive covenants?|covenants? (?:not to|against) (?:compet|engag)", 2),
        (
            r"^(?=.*?compet).*?"
            r"\b(?:products?|services?|business(?:es)?|activit\w+|programs?|technolog\w+)\b.{0,60}\b(?:which|"
            r"that) (?:are|is|would be|may be|could be) (?:directly )?(?:competitive|in competition|"
            r"competing) with",
            2,
        ),
        (
            r"(?:(?:shall|will|may|covenants? that it (?:shall|will))(?: not|n't)|agrees? not to),? "
            r"(?:[\w,()-]+ ){0,8}(?:engage|operate|sell|market|distribute|offer|solicit|advertise|promote|"
            r"conduct|develop|manufacture|commerciali[sz]e)\w*\b.{0,200}\b(?:(?:outside|beyond) (?:of )?"
            r"(?:the|its|such|any) (?:[\w-]+ ){0,2}(?:territory|territories|area|region|countr(?:y|ies)|"
            r"field)|(?:in|within) (?:the|its|such|any) (?:[\w-]+ ){0,2}(?:territory|territories|area|region)\b)",
            3,
        ),
        (
            r"(?:shall|will|agrees?(?: that it will| to)?|covenants?(?: and agrees?)? that it (?:shall|will))"
            r"(?: not|n't)\b.{0,120}\b(?:research|develop|manufacture|commerciali[sz]e|engage in|sell|"
            r"market|distribute|promote)\w*\b",
            1,
        ),
        (
            r"competing (?:products?|business|services?|programs?|technolog)|compet(?:e|es|itive) with",
            1,
        ),
        (r"竞业(?:禁止|限制)", 3),
        (
            r"(?:不得|不).{0,30}(?:从事|经营|参与|生产|销售|投资).{0,30}(?:竞争|同类|类似|相同|相竞争)",
            3,
        ),
        (r"竞争(?:性)?(?:产品|业务)|同类(?:产品|业务)", 1),
    ),
    negatives=(
        _re(
            r"competitive (?:pric|bid|rate|terms|basis|process)",
            r"competitive advantage|anti-?competitive|competition (?:law|authorit)|fair competition",
        ),
    ),
    max_matches=6,
)

WARRANTIES = Topic(
    topic_id="warranties",
    name="Warranties",
    priority=Priority.MEDIUM,
    skills=(CONTEXT, DEFINITION, BASELINE, DEVIATION),
    description=(
        "Check what each side warrants, the warranty period and remedies, and the scope of any "
        "disclaimer of implied warranties."
    ),
    vocab=_words("warrant", "represent", "guarant", "merchantab", "保证", "担保", "陈述", "保修"),
    titles=_titles(r"warrant|representations|guarantee", r"保证|担保|陈述|保修"),
    rules=_rules(
        (r"represents? and warrants?|representations and warranties", 3),
        (r"\bwarrants? (?:that|to)\b", 3),
        (r"(?:disclaims?|no other|makes no|without) (?:\w+ ){0,5}warrant", 3),
        (r"merchantability|fitness for (?:a )?particular purpose|non-?infringement", 2),
        (r"\bwarrant(?:y|ies)\b", 1),
        (r"陈述(?:与|和|及)保证", 3),
        (r"(?:保证|承诺).{0,30}(?:符合|不存在|具有|合法|无瑕疵|不侵犯)", 2),
        (r"质量保证|保修(?:期)?", 2),
        (r"保证", 1),
    ),
    negatives=(_re(r"warrants? (?:to purchase|holder|shares)|stock warrant|保证金"),),
    max_matches=3,
)

PAYMENT = Topic(
    topic_id="payment",
    name="Payment",
    priority=Priority.MEDIUM,
    skills=(CONTEXT, DEFINITION, FINANCIAL, BASELINE, DEVIATION),
    description=(
        "Check the price or fees, invoicing and payment terms, late-payment interest, set-off "
        "and tax treatment."
    ),
    vocab=_words(
        "pay",
        "paid",
        "fee",
        "invoice",
        "price",
        "remunerat",
        "compensat",
        "royalt",
        "付款",
        "支付",
        "价款",
        "费用",
        "报酬",
        "结算",
    ),
    titles=_titles(
        r"payment|fees|\bprices?\b|pricing|compensation|invoic|charges|royalt|consideration",
        r"付款|支付|价款|费用|结算|报酬|合同价",
    ),
    rules=_rules(
        (r"(?:shall|will|agrees? to) pay\b", 2),
        (r"(?:within|no later than)\b.{0,40}\bdays?\b.{0,40}\b(?:invoice|receipt)", 2),
        (
            r"(?:late|overdue|unpaid) (?:payments?|amounts?|sums?)\b.{0,80}\binterest|interest\b.{0,40}(?:per month|per annum|overdue)",
            2,
        ),
        (r"\binvoice", 1),
        (r"\bfees?\b|\bprices?\b|royalt(?:y|ies)", 1),
        (r"(?:应|须|应当).{0,30}(?:支付|付款)", 2),
        (r"(?:收到|开具).{0,10}发票", 2),
        (r"价款|费用|报酬", 1),
    ),
    max_matches=3,
)

INSURANCE = Topic(
    topic_id="insurance",
    name="Insurance",
    priority=Priority.MEDIUM,
    skills=(CONTEXT, DEFINITION, BASELINE, FINANCIAL, DEVIATION),
    description=(
        "Check the insurance each side must carry (types, minimum limits, duration), "
        "additional-insured status, certificates and notice of cancellation."
    ),
    vocab=_words("insur", "保险", "投保"),
    titles=_titles(r"insurance|insured", r"保险"),
    rules=_rules(
        (
            r"(?:maintain|procure|obtain|carry|keep|purchase|secure|have|provide)\b.{0,150}\binsurance",
            3,
        ),
        (
            r"insurance\b.{0,100}\b(?:coverage|polic(?:y|ies)|limits?|in (?:an )?amount|not less than|"
            r"per occurrence|aggregate|insurers?)",
            2,
        ),
        (
            r"(?:additional|named) insured|loss payee|certificates? (?:of|evidencing) (?:such )?insurance|self-?insur|insurance certificates?",
            3,
        ),
        (
            r"(?:general|products?|professional|public|employers'?|auto(?:mobile)?|errors and omissions|"
            r"cyber|property|casualty|fidelity|crime|clinical trials?|hull|aviation) (?:liability )?insurance"
            r"|workers'? compensation|umbrella (?:liability|policy)|excess (?:liability )?coverage",
            2,
        ),
        (r"\binsur(?:ance|ed|er|ers)\b|\bcoverage\b", 1),
        (r"(?:投保|购买|办理|维持|购置).{0,25}保险", 3),
        (r"保险(?:金额|单|费|期限|责任|公司)", 2),
        (r"保险", 1),
    ),
    title_support=2.0,
    negatives=(
        _re(
            r"insurance (?:center|products?|quotes?|agenc\w+|agents?|sales|marketplace|industry|"
            r"business|brokerage|carriers? (?:listed|offered))",
        ),
    ),
    max_matches=8,
)

AUDIT = Topic(
    topic_id="audit",
    name="Audit Rights",
    priority=Priority.MEDIUM,
    skills=(CONTEXT, DEFINITION, BASELINE, DEVIATION),
    description=(
        "Check who may audit or inspect what (books, records, premises), notice and frequency, "
        "who pays, the look-back period and the consequence of discrepancies."
    ),
    vocab=_words(
        "audit",
        "inspect",
        "examin",
        "books",
        "records",
        "verif",
        "visit",
        "access",
        "审计",
        "查账",
        "账簿",
        "检查",
        "查阅",
        "核查",
    ),
    titles=_titles(
        r"audit|inspection|\brecords\b|\bbooks\b|examination|verification|access to (?:records|premises)",
        r"审计|查账|账簿|检查权|查阅",
    ),
    rules=_rules(
        (
            r"(?:\bright\b|\bmay\b|entitled|permit|allow|authori[sz]e)\w*\b.{0,100}\b(?:audit|inspect|"
            r"examine|review|visit|verify)\w*\b.{0,120}(?:books|records|accounts|premises|facilities|"
            r"operations|compliance|locations?|offices|warehouse|sites?|systems|procedures|performance)",
            3,
        ),
        (
            r"access to\b.{0,80}\b(?:books|records|accounts|facilities|premises|locations?|sites?|offices|"
            r"systems|personnel)",
            2,
        ),
        (r"\b(?:books|records|accounts)\b", 1),
        (
            r"(?:books|records|accounts)\b.{0,150}\b(?:available|open|subject)\b.{0,60}\b(?:inspection|"
            r"audit|examination|review|copying)",
            3,
        ),
        (
            r"(?:independent|certified) (?:\w+ ){0,2}(?:public )?account(?:ant|ing firm)s?|independent auditors?",
            2,
        ),
        (r"\baudit(?:s|ed|ing|ors?)?\b(?! committee)", 2),
        (r"(?:keep|maintain)\b.{0,80}\b(?:books|records|accounts)", 1),
        (r"\binspect(?:ion|s)?\b|\bexamin(?:e|ation)\b", 1),
        (r"discrepanc|underpayment|overpayment", 1),
        (r"(?:审计|查账|查阅|检查|核查).{0,20}(?:账簿|账目|财务|记录|资料|凭证)", 3),
        (r"(?:有权|可以).{0,12}(?:审计|查账|核查)", 3),
        (r"审计", 2),
    ),
    title_support=2.0,
    negatives=(
        _re(r"audit committee", r"inspect (?:and accept|the products|the goods|each shipment)"),
    ),
    max_matches=10,
)

FORCE_MAJEURE = Topic(
    topic_id="force_majeure",
    name="Force Majeure",
    priority=Priority.MEDIUM,
    skills=(CONTEXT, DEFINITION, BASELINE, DEVIATION),
    description=(
        "Check the events covered, notice and mitigation duties, suspension of obligations and "
        "the right to terminate after a long force majeure."
    ),
    vocab=_words("force majeure", "act of god", "acts of god", "beyond", "不可抗力"),
    titles=_titles(r"force majeure|acts? of god|excused (?:performance|delay)", r"不可抗力"),
    rules=_rules(
        (r"force majeure|不可抗力", 2),
        (r"acts? of god", 2),
        (
            r"beyond (?:the )?(?:its |their |such party's |the affected party's )?(?:reasonable )?control",
            2,
        ),
        (
            r"\b(?:strikes?|floods?|earthquakes?|epidemics?|pandemics?|war|terroris\w*|riots?|fires?|"
            r"storms?|governmental action)\b|地震|台风|洪水|战争|疫情|罢工|火灾",
            1,
        ),
        (
            r"(?:not (?:be )?(?:liable|responsible|in breach|in default|deemed)|excused|relieved|"
            r"suspend\w*|delay\w*|prevented|hinder\w*|notif\w*|mitigat\w*)\b"
            r"|不承担|免除|免责|顺延|延期|通知|减轻",
            1,
        ),
    ),
    max_matches=2,
)

LIQUIDATED_DAMAGES = Topic(
    topic_id="liquidated_damages",
    name="Liquidated Damages",
    priority=Priority.HIGH,
    skills=(CONTEXT, DEFINITION, FINANCIAL, BASELINE, DEVIATION),
    description=(
        "Check the trigger and rate of liquidated damages or termination fees, any cap, and "
        "whether they are the exclusive remedy or a penalty risk."
    ),
    vocab=_words(
        "liquidated",
        "fee",
        "penalt",
        "charge",
        "pre-estimate",
        "per day",
        "each day",
        "per week",
        "违约金",
        "罚金",
        "滞纳金",
        "逾期",
    ),
    titles=_titles(
        r"liquidated damages|termination (?:fee|charge)|break(?:-?up)? fee|penalt",
        r"违约金|违约责任",
    ),
    rules=_rules(
        (r"liquidated damages", 3),
        (
            r"(?:early )?termination (?:fee|charge|payment)s?|exit fee|break(?:-?up)? fee|kill fee",
            3,
        ),
        (r"cancell?ation (?:fee|charge)s?", 2),
        (r"as (?:a )?(?:penalty|liquidated)|not (?:as )?a penalty|genuine pre-?estimate", 2),
        (
            r"(?:per day|for each day|each day of delay|per week|for each week)\b.{0,100}(?:delay|late)",
            1,
        ),
        (r"违约金", 3),
        (r"(?:每逾期|每延迟|逾期一?(?:日|天)).{0,30}(?:支付|按)", 2),
        (r"滞纳金|罚金", 2),
    ),
    negatives=(_re(r"late (?:payment )?(?:fee|charge)s?|interest on (?:late|overdue)"),),
    max_matches=3,
)

TOPICS: tuple[Topic, ...] = (
    LIMITATION_OF_LIABILITY,
    INDEMNITY,
    TERMINATION,
    TERMINATION_FOR_CONVENIENCE,
    ANTI_ASSIGNMENT,
    CHANGE_OF_CONTROL,
    GOVERNING_LAW,
    DISPUTE_RESOLUTION,
    CONFIDENTIALITY,
    IP_OWNERSHIP,
    LICENSE_GRANT,
    EXCLUSIVITY,
    NON_COMPETE,
    WARRANTIES,
    PAYMENT,
    INSURANCE,
    AUDIT,
    FORCE_MAJEURE,
    LIQUIDATED_DAMAGES,
)
"""The topic catalogue, in a stable order."""

CUAD_TOPICS: tuple[str, ...] = (
    "Governing Law",
    "Cap on Liability",
    "Anti-Assignment",
    "Termination for Convenience",
    "Non-Compete",
    "Exclusivity",
    "Insurance",
    "Audit Rights",
    "IP Ownership Assignment",
    "License Grant",
    "Liquidated Damages",
    "Change of Control",
)
"""Topic names that are CUAD category names, verbatim."""

_FORCED = frozenset(t.topic_id for t in TOPICS if any(r.force for r in t.rules))
"""Topics with rules that count even in vetoed sentences."""

_BY_KEY: dict[str, Topic] = {t.topic_id: t for t in TOPICS} | {t.name: t for t in TOPICS}


def get_topic(key: str) -> Topic | None:
    """The topic with this id ('governing_law') or name ('Governing Law'), or None."""
    return _BY_KEY.get(key)


# --------------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TopicMatch:
    """A clause found to hold a topic."""

    topic_id: str
    topic: str
    clause_id: str
    clause_title: str
    score: float
    via: str
    """'title' (the heading names the topic), 'body' (drafting patterns in the text) or 'block'
    (several sub-clauses of the clause hold the topic)."""
    start_offset: int
    end_offset: int
    evidence: str = ""
    """The sentence that weighed most, whitespace-normalised, cut to 200 characters."""


_WS = re.compile(r"\s+")
_SURVIVAL = re.compile(
    r"\bsurviv\w*\b.{0,80}\b(?:termination|expiration|expiry)|(?:termination|expiration|expiry)\b.{0,80}"
    r"\bsurviv|(?:termination|expiration|expiry)\b.{0,120}\bshall not (?:relieve|affect|release|prejudice)|"
    r"continue in full force and effect",
    _FLAGS,
)
"""Survival clauses list other clauses by name; they are no evidence of those topics."""
# Splits (rather than finds) sentences, keeping ";"-joined items apart and never splitting a
# number or an abbreviation followed by a lower-case word.
_SENTENCE_SPLIT = re.compile(r"(?<=[.;!?])\s+(?=[\"“(\[A-Z0-9])|(?<=[。；！？;])")
_PRESS_RELEASE = re.compile(r"press release|news release|for immediate release|新闻稿", _FLAGS)
"""A schedule that is a press release announces the deal; its wording is no evidence of terms."""
_RELEASE_HEAD = 400
_RELEASE_MAX = 20_000
"""A larger schedule is no press release (more likely the agreement itself, misparsed)."""
_DEFINITIONS_TITLE = re.compile(
    r"definition|interpretation|defined terms|glossary|定义|释义|词语含义|用语", _FLAGS
)
_DEFINITION_START = re.compile(
    r"""^\W{0,6}(?:\(?[a-z0-9]{1,4}[.)]\s*)?[“"'‘][^”"'’]{1,80}[”"'’]\s*(?:\([^)]{0,80}\)\s*)?"""
    r"""(?:,\s*)?(?:shall\s+)?(?:means?|has the meaning|have the meanings?|shall have the meaning|"""
    r"""refers? to|includes?|is defined)\b|^\W{0,6}[“"]?[^，。；“”"]{1,24}[”"]?\s*(?:是指|系指|指|意为)""",
    _FLAGS,
)
_LARGE = 4000
"""A body match in a clause longer than this does not hide matches in its sub-clauses."""
_SHORT = 40
"""Clauses shorter than this get no generic checklist item."""


@dataclass
class _Scan:
    """A clause prepared for matching."""

    node: ClauseNode
    ancestors: tuple[str, ...]
    own: str
    own_lower: str
    body: str
    sentences: list[tuple[str, str]] = field(default_factory=list)
    """(sentence, its lower-case form) of the own text."""
    is_definition: bool = False
    in_annex: bool = False


def _own_text(node: ClauseNode, skip: list[tuple[int, int]] | None = None) -> str:
    """The clause body without its sub-clauses' text (nor the `skip` ranges, e.g. a TOC)."""
    base = node.start_offset
    holes = sorted(
        [(c.start_offset, c.end_offset) for c in node.children]
        + [(s, e) for s, e in skip or () if s < node.end_offset and e > node.start_offset]
    )
    pos = max(node.body_offset, node.start_offset) - base
    parts: list[str] = []
    for hs, he in holes:
        s = hs - base
        if s > pos:
            parts.append(node.text[pos:s])
        pos = max(pos, he - base)
    parts.append(node.text[pos:])
    return " ".join(parts)


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _sentences(text: str) -> list[tuple[str, str]]:
    return [(s, s.lower()) for s in _SENTENCE_SPLIT.split(text) if s.strip()]


_NEGATION = re.compile(r"\bnot\b|n't\b")


def _has_vocab(topic: Topic, lower: str) -> bool:
    if any(w in lower for w in topic.vocab):
        return True
    return (
        bool(topic.negated_vocab)
        and any(w in lower for w in topic.negated_vocab)
        and bool(_NEGATION.search(lower))
    )


def _scan(structure: DocumentStructure) -> list[_Scan]:
    out: list[_Scan] = []
    tocs = structure.toc_ranges

    def walk(
        nodes: list[ClauseNode], ancestors: tuple[str, ...], in_defs: bool, in_annex: bool
    ) -> None:
        for node in nodes:
            annex = in_annex or node.kind is ClauseKind.ANNEX
            own = _norm(_own_text(node, tocs))
            defs_title = bool(node.title and _DEFINITIONS_TITLE.search(node.title))
            if annex and not defs_title and len(node.text) < _RELEASE_MAX:
                # a press release attached as a schedule announces the deal: no terms
                defs_title = bool(_PRESS_RELEASE.search(node.text[:_RELEASE_HEAD]))
            is_def = in_defs or defs_title or bool(_DEFINITION_START.match(own))
            out.append(
                _Scan(
                    node=node,
                    ancestors=ancestors,
                    own=own,
                    own_lower=own.lower(),
                    body=node.body,
                    sentences=_sentences(own),
                    is_definition=is_def,
                    in_annex=annex,
                )
            )
            walk(node.children, (*ancestors, node.clause_id), in_defs or defs_title, annex)

    walk(structure.clauses, (), False, False)
    return out


def _score_sentences(topic: Topic, sentences: list[tuple[str, str]]) -> tuple[float, str]:
    """Sum of the weights of the distinct rules found in non-vetoed sentences."""
    matched: set[int] = set()
    best_sentence = ""
    best_weight = 0.0
    for sentence, lower in sentences:
        if not _has_vocab(topic, lower):
            continue
        if topic.context is not None and not topic.context.search(sentence):
            continue
        if not topic.any_rule.search(sentence):
            continue
        vetoed = bool(_SURVIVAL.search(sentence)) or any(
            n.search(sentence) for n in topic.negatives
        )
        if vetoed and topic.topic_id not in _FORCED:
            continue
        weight = 0.0
        for i, rule in enumerate(topic.rules):
            if (not vetoed or rule.force) and rule.pattern.search(sentence):
                weight += rule.weight
                matched.add(i)
        if weight > best_weight:
            best_weight, best_sentence = weight, sentence
    score = sum(topic.rules[i].weight for i in matched)
    return score, best_sentence[:200]


def _title_hit(topic: Topic, title: str) -> bool:
    return bool(title) and any(p.search(title) for p in topic.titles)


@dataclass
class _Candidate:
    scan: _Scan
    score: float
    own_score: float
    via: str
    evidence: str

    @property
    def covers(self) -> bool:
        """Whether the clause stands for the topic in all its sub-clauses."""
        node = self.scan.node
        return node.kind is not ClauseKind.CHAPTER and len(node.text) <= _LARGE


def _candidates(topic: Topic, scans: list[_Scan]) -> list[_Candidate]:
    out: list[_Candidate] = []
    for sc in scans:
        node = sc.node
        title_hit = _title_hit(topic, node.title) and not sc.is_definition
        own_score = 0.0
        evidence = ""
        if not sc.is_definition and sc.own and _has_vocab(topic, sc.own_lower):
            own_score, evidence = _score_sentences(topic, sc.sentences)
        if title_hit:
            support = own_score
            if support < topic.title_support and _has_vocab(topic, sc.body.lower()):
                support, ev = _score_sentences(topic, _sentences(_norm(sc.body)))
                evidence = evidence or ev
            if support >= topic.title_support and (
                len(node.text) <= _LARGE or node.kind is ClauseKind.ANNEX
            ):
                score = topic.threshold + own_score
                out.append(_Candidate(sc, score, own_score, "title", evidence))
                continue
        threshold = topic.threshold
        if node.kind is ClauseKind.PREAMBLE and len(node.text) < _LARGE:
            threshold += 2  # recitals talk about the deal, not its terms
        if own_score >= threshold:
            out.append(_Candidate(sc, own_score, own_score, "body", evidence))
    return out


def _merge_siblings(kept: list[_Candidate], scans: dict[str, _Scan]) -> list[_Candidate]:
    """Sub-clauses of one (not large) clause that all hold the topic become that clause: the
    topic runs through it, so it is the smallest clause holding the topic."""
    while True:
        groups: dict[str, list[_Candidate]] = {}
        for c in kept:
            if c.scan.ancestors:
                groups.setdefault(c.scan.ancestors[-1], []).append(c)
        merged: list[_Candidate] = []
        done: set[int] = set()
        for parent_id, group in groups.items():
            parent = scans.get(parent_id)
            if (
                len(group) < 2
                or parent is None
                or parent.node.kind in (ClauseKind.CHAPTER, ClauseKind.PREAMBLE)
                or len(parent.node.text) > _LARGE
            ):
                continue
            best = max(group, key=lambda c: c.score)
            merged.append(_Candidate(parent, best.score, 0.0, "block", best.evidence))
            done.update(id(c) for c in group)
        if not merged:
            return kept
        kept = [c for c in kept if id(c) not in done] + merged


def _select(topic: Topic, cands: list[_Candidate], scans: dict[str, _Scan]) -> list[_Candidate]:
    """The smallest clauses holding the topic, the strongest first, at most max_matches."""
    by_id = {c.scan.node.clause_id: c for c in cands}
    inner: set[str] = set()
    for c in cands:
        inner.update(c.scan.ancestors)
    kept: list[_Candidate] = []
    for c in cands:
        if any(a in by_id and by_id[a].covers for a in c.scan.ancestors):
            continue  # a smaller clause inside a clause that already stands for the topic
        node = c.scan.node
        if not c.covers and node.clause_id in inner and c.own_score < topic.threshold:
            continue  # a large clause or chapter whose matches lie in its sub-clauses
        kept.append(c)
    kept = _merge_siblings(kept, scans)
    for c in kept:
        if c.covers:  # a clause standing for its sub-clauses is as strong as the best of them
            cid = c.scan.node.clause_id
            c.score = max([c.score] + [o.score for o in cands if cid in o.scan.ancestors])
    # Schedules often hold ancillary instruments (a note, a bill of sale): the main body first.
    kept.sort(key=lambda c: (c.scan.in_annex, -c.score, c.scan.node.start_offset))
    kept = kept[: topic.max_matches]
    kept.sort(key=lambda c: c.scan.node.start_offset)
    return kept


def detect_topics(
    structure: DocumentStructure, topics: tuple[Topic, ...] = TOPICS
) -> list[TopicMatch]:
    """The clauses holding each topic, in document order (a clause may hold several topics)."""
    scans = _scan(structure)
    by_id = {sc.node.clause_id: sc for sc in scans}
    matches: list[TopicMatch] = []
    for topic in topics:
        for c in _select(topic, _candidates(topic, scans), by_id):
            node = c.scan.node
            matches.append(
                TopicMatch(
                    topic_id=topic.topic_id,
                    topic=topic.name,
                    clause_id=node.clause_id,
                    clause_title=node.title,
                    score=c.score,
                    via=c.via,
                    start_offset=node.start_offset,
                    end_offset=node.end_offset,
                    evidence=c.evidence,
                )
            )
    order = {t.topic_id: i for i, t in enumerate(topics)}
    matches.sort(key=lambda m: (m.start_offset, -m.end_offset, order[m.topic_id]))
    return matches


# --------------------------------------------------------------------------------------------
# Checklist
# --------------------------------------------------------------------------------------------

_GENERIC_DESCRIPTION = "Read the clause for obligations, risks and deviations from market practice."


def _is_definitions_only(node: ClauseNode) -> bool:
    if node.title and _DEFINITIONS_TITLE.search(node.title):
        return True
    own = _norm(_own_text(node))
    if node.children:
        return (
            bool(own)
            and bool(_DEFINITION_START.match(own))
            and all(_is_definitions_only(c) for c in node.children)
        )
    return bool(_DEFINITION_START.match(own))


def _generic_items(
    structure: DocumentStructure, covered: set[str], holding: set[str]
) -> list[tuple[int, ReviewChecklistItem]]:
    """One item per substantive clause that no topic item covers, at the coarsest level."""
    out: list[tuple[int, ReviewChecklistItem]] = []

    def walk(nodes: list[ClauseNode]) -> None:
        for node in nodes:
            if node.clause_id in covered:
                continue  # reviewed under its topic(s), sub-clauses included
            if node.kind is ClauseKind.PREAMBLE:
                continue
            if node.kind is ClauseKind.CHAPTER or node.clause_id in holding:
                walk(node.children)
                continue
            if len(node.text.strip()) < _SHORT or _is_definitions_only(node):
                continue
            out.append(
                (
                    node.start_offset,
                    ReviewChecklistItem(
                        clause_id=node.clause_id,
                        clause_name=node.title,
                        priority=Priority.LOW,
                        required_skills=[CONTEXT],
                        description=_GENERIC_DESCRIPTION,
                        topic=None,
                    ),
                )
            )

    walk(structure.clauses)
    return out


def build_generic_checklist(
    structure: DocumentStructure, subtype: str | None = None
) -> list[ReviewChecklistItem]:
    """Checklist of a commercial contract: one item per detected topic clause, plus a generic
    item for each substantive clause no topic covers; in document order.

    `subtype` is accepted for the plugin interface; the generic catalogue has none.
    """
    del subtype
    matches = detect_topics(structure)
    entries: list[tuple[int, int, ReviewChecklistItem]] = []
    covered: set[str] = set()
    holding: set[str] = set()
    rank = {t.topic_id: i for i, t in enumerate(TOPICS)}
    for m in matches:
        topic = _BY_KEY[m.topic_id]
        covered.add(m.clause_id)
        node = structure.get_clause(m.clause_id)
        if node is not None and node.parent_id is not None:
            parent_id: str | None = node.parent_id
            while parent_id is not None:
                holding.add(parent_id)
                parent = structure.get_clause(parent_id)
                parent_id = parent.parent_id if parent is not None else None
        entries.append(
            (
                m.start_offset,
                rank[m.topic_id],
                ReviewChecklistItem(
                    clause_id=m.clause_id,
                    clause_name=m.clause_title or m.topic,
                    priority=topic.priority,
                    required_skills=list(topic.skills),
                    description=topic.description,
                    topic=topic.name,
                ),
            )
        )
    entries.extend(
        (pos, len(TOPICS), item) for pos, item in _generic_items(structure, covered, holding)
    )
    entries.sort(key=lambda e: (e[0], e[1]))
    return [item for _, _, item in entries]
