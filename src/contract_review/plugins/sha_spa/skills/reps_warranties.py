"""spa_extract_reps_warranties: warranties by topic with their qualifiers, disclosure, repetition.

A warranty is a sub-clause (or, without sub-clauses, a sentence) of a clause that gives
warranties ("warrants", "represents", "陈述与保证", "保证"). Each gets a topic (from its heading,
else its text), its knowledge qualifier ("so far as the Seller is aware", "据…所知"), its
materiality qualifier ("in all material respects", "重大") and specific carve-outs ("save for",
"除…外"). The analysed text is also scanned for the general disclosure qualification
("save as Disclosed", "Disclosure Letter", "披露函") and for repetition at completion. Gaps are
judged for a buyer (qualified key warranties, no repetition) or a seller (the reverse).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from contract_review.models import ClauseNode, DocumentStructure
from contract_review.skills.risks import Say
from contract_review.skills.state import input_preparer

from ._common import (
    Gap,
    Locator,
    Quote,
    Scope,
    ScopedInput,
    ScopedOutput,
    our_roles,
    own_text,
    say_for,
    scoped_output,
    scoped_registration,
    topic_in,
    units,
)

SKILL_ID = "spa_extract_reps_warranties"

KEY_TOPICS: tuple[str, ...] = ("title", "capacity", "accounts", "tax")
"""Warranties a buyer expects unqualified by knowledge."""
CORE_TOPICS: tuple[str, ...] = ("title", "capacity", "accounts", "tax", "litigation")
"""Warranties a buyer expects in any share purchase."""


class WarrantiesInput(ScopedInput):
    """Input of spa_extract_reps_warranties."""


class Warranty(BaseModel):
    """One warranty."""

    clause_id: str = Field(description="Clause holding the warranty.")
    text: Quote = Field(description="The warranty, verbatim.")
    topic: str = Field(
        description="title, capacity, accounts, tax, litigation, ip, employees, compliance, "
        "environment, data, contracts, assets, insurance, property or other."
    )
    knowledge_qualifier: str | None = Field(None, description="Knowledge words, verbatim.")
    materiality_qualifier: str | None = Field(None, description="Materiality words, verbatim.")
    specific_exception: str | None = Field(
        None, description="A named carve-out ('save for the X Claim', '除…外'), verbatim."
    )


class WarrantiesOutput(ScopedOutput):
    """Output of spa_extract_reps_warranties."""

    warranties: list[Warranty] = Field(description="Warranties found, in order.")
    topics: list[str] = Field(description="Distinct topics covered.")
    disclosure: list[Quote] = Field(description="General disclosure qualifications.")
    repeated_at_completion: bool | None = Field(
        description="True if repeated at completion, False if expressly not, None if silent."
    )
    repetition_text: Quote | None = Field(None, description="The repetition sentence, if any.")


DESCRIPTION = (
    "Extract the seller's warranties of a share purchase (English or Chinese) by topic (title, "
    "capacity, accounts, tax, litigation, ip, employees, compliance, environment, data...), "
    "each with its knowledge qualifier ('so far as the Seller is aware', '据…所知'), materiality "
    "qualifier ('in all material respects', '重大') and named carve-outs; the general "
    "disclosure qualification ('save as Disclosed', 'Disclosure Letter', '披露函'); and whether "
    "the warranties are repeated at completion. Gaps carry codes such as "
    "knowledge_qualified_key_warranty (topic), warranties_not_repeated, "
    "missing_core_warranty (topic), broad_general_disclosure, warranties_repeated_at_completion. "
    "Arguments: clause_id, scope ('clause' or 'document'), our_party (optional)."
)


_I = re.IGNORECASE
_GIVES = re.compile(
    r"\bwarrants?\b|represents?\s+and\s+warrants?|following\s+warranties|gives\s+the\s+following"
    r"|陈述与保证|陈述和保证|作出如下(?:陈述|保证)|保证如下|下列(?:陈述|保证)",
    _I,
)
_TOPICS: list[tuple[str, re.Pattern[str]]] = [
    (
        "title",
        re.compile(r"\btitle\b|beneficial\s+owner|encumbrance|所有权|权属|合法(?:拥有|持有)", _I),
    ),
    (
        "capacity",
        re.compile(
            r"capacity|power\s+and\s+authority|binding\s+obligations|主体资格|签署和履行|授权|权利能力",
            _I,
        ),
    ),
    (
        "accounts",
        re.compile(
            r"\baccounts\b|financial\s+statements|true\s+and\s+fair|财务报表|财务报告|账目", _I
        ),
    ),
    ("tax", re.compile(r"\btax|税", _I)),
    ("litigation", re.compile(r"litigation|proceedings|arbitration|诉讼|仲裁", _I)),
    (
        "ip",
        re.compile(r"intellectual\s+property|patent|trade\s*mark|知识产权|专利|商标|著作权", _I),
    ),
    ("employees", re.compile(r"employee|employment|pension|员工|劳动|社会保险", _I)),
    ("compliance", re.compile(r"compliance|applicable\s+laws|permits|合规|遵守|资质|许可证", _I)),
    ("environment", re.compile(r"environment|环境|环保", _I)),
    ("data", re.compile(r"data\s+protection|personal\s+data|个人信息|数据", _I)),
    ("contracts", re.compile(r"material\s+contracts|重大合同", _I)),
    ("assets", re.compile(r"\bassets\b|资产", _I)),
    ("insurance", re.compile(r"insurance|保险", _I)),
    ("property", re.compile(r"real\s+estate|premises|property|不动产|房产|土地", _I)),
]
_KNOWLEDGE = re.compile(
    r"so\s+far\s+as\s+(?:the\s+)?[\w' ]{1,30}?\s+(?:is|are)\s+aware|to\s+the\s+best\s+of\s+(?:the\s+)?"
    r"[\w'’ ]{1,30}?(?:knowledge|belief)|to\s+(?:the\s+)?[\w'’]+\s+knowledge|within\s+the\s+"
    r"(?:actual\s+)?knowledge|据[^，。；,]{0,12}?所知|尽[^，。；,]{0,8}?所知|就[^，。；,]{0,10}?所知",
    _I,
)
_MATERIAL = re.compile(
    r"in\s+all\s+material\s+respects|\bmaterial(?:ly)?\b|重大方面|重大|实质性", _I
)
_EXCEPTION = re.compile(
    r"save\s+for\s+[^,;.]{3,60}|except\s+for\s+[^,;.]{3,60}|除[^，。；]{2,40}外", _I
)
_DISCLOSURE = re.compile(
    r"save\s+as\s+disclosed|except\s+as\s+disclosed|disclosure\s+letter|qualified\s+by\s+the\s+"
    r"matters|披露函|已披露|披露事项|除披露",
    _I,
)
_DATA_ROOM = re.compile(
    r"data\s+room|数据室|generally\s+disclosed|deemed\s+disclosed|视为已披露", _I
)
_NOT_REPEATED = re.compile(
    r"(?:shall|will)\s+not\s+be\s+(?:deemed\s+)?repeated|not\s+repeated|at\s+the\s+date\s+of\s+this"
    r"\s+agreement\s+only|only\s+(?:at|on)\s+the\s+date\s+of\s+this\s+agreement|仅于(?:本协议)?签署日"
    r"|不(?:视为)?(?:在|于)交割日(?:重复|再次)",
    _I,
)
_REPEATED = re.compile(
    r"(?:deemed\s+)?repeated\s+(?:at|on|immediately\s+before)|true\s+and\s+accurate\s+at\s+"
    r"completion|于交割日(?:重复|再次)|在交割日(?:重复|再次)|截至交割日(?:均)?(?:真实|准确)",
    _I,
)


def _topic(node: ClauseNode, text: str) -> str:
    for source in (node.title, text):
        for name, rx in _TOPICS:
            if source and rx.search(source):
                return name
    return "other"


def _groups(structure: DocumentStructure | None, ids: set[str]) -> list[ClauseNode]:
    if structure is None:
        return []
    out: list[ClauseNode] = []
    for node in structure.iter_clauses():
        if node.children and _GIVES.search(own_text(node)) and _under(structure, node, ids):
            out.append(node)
    return [
        n for n in out if not any(m is not n and _under(structure, m, {n.clause_id}) for m in out)
    ]


def _under(structure: DocumentStructure, node: ClauseNode, ids: set[str]) -> bool:
    cur: ClauseNode | None = node
    while cur is not None:
        if cur.clause_id in ids:
            return True
        cur = structure.get_clause(cur.parent_id) if cur.parent_id else None
    return False


def _q(rx: re.Pattern[str], text: str) -> str | None:
    m = rx.search(text)
    return m.group(0) if m else None


def handle(inp: WarrantiesInput) -> WarrantiesOutput:
    """Extract the warranties and their qualifiers."""
    structure = inp.document_structure
    roles = our_roles(inp, structure)
    us = units(structure, inp.clause_id, inp.scope)
    loc = Locator(structure, inp.clause_id)
    warranties: list[Warranty] = []
    for group in _groups(structure, {u.clause_id for u in us}):
        for child in group.children:
            text = child.text.strip()
            warranties.append(
                Warranty(
                    clause_id=child.clause_id,
                    text=loc.quote(text, child.start_offset + child.text.find(text[:20])),
                    topic=_topic(child, text),
                    knowledge_qualifier=_q(_KNOWLEDGE, text),
                    materiality_qualifier=_q(_MATERIAL, text),
                    specific_exception=_q(_EXCEPTION, text),
                )
            )
    disclosure: list[Quote] = []
    repeated: bool | None = None
    repetition: Quote | None = None
    broad: Quote | None = None
    for unit in us:
        for s in loc.sentences(unit):
            if _DISCLOSURE.search(s.text):
                disclosure.append(loc.quote(s.text, s.start))
            if broad is None and _DATA_ROOM.search(s.text):
                broad = loc.quote(s.text, s.start)
            if repeated is None and _NOT_REPEATED.search(s.text):
                repeated, repetition = False, loc.quote(s.text, s.start)
            elif repeated is None and _REPEATED.search(s.text):
                repeated, repetition = True, loc.quote(s.text, s.start)
    topics = list(dict.fromkeys(w.topic for w in warranties))
    seller = "seller" in roles.our_roles
    say = say_for(inp)
    gaps = (
        _seller_gaps(inp.scope, warranties, disclosure, repeated, repetition, say)
        if seller
        else _buyer_gaps(inp.scope, warranties, topics, repeated, repetition, broad, say)
    )
    return WarrantiesOutput(
        **scoped_output(inp, roles),
        warranties=warranties,
        topics=topics,
        disclosure=disclosure,
        repeated_at_completion=repeated,
        repetition_text=repetition,
        gaps=gaps,
    )


def _buyer_gaps(
    scope: Scope,
    warranties: list[Warranty],
    topics: list[str],
    repeated: bool | None,
    repetition: Quote | None,
    broad: Quote | None,
    say: Say,
) -> list[Gap]:
    gaps: list[Gap] = []
    for w in warranties:
        if w.topic in KEY_TOPICS and w.knowledge_qualifier:
            gaps.append(
                Gap(
                    code="knowledge_qualified_key_warranty",
                    topic=w.topic,
                    severity="high" if w.topic in ("title", "capacity", "tax") else "medium",
                    message=say(
                        f"The {w.topic} warranty is qualified by the seller's knowledge "
                        f"('{w.knowledge_qualifier}'); the buyer bears unknown risks.",
                        f"{topic_in(w.topic, say)}保证受卖方知悉范围的限定"
                        f"（“{w.knowledge_qualifier}”），买方须承担未知风险。",
                    ),
                    evidence=w.text,
                )
            )
    if repeated is False:
        gaps.append(
            Gap(
                code="warranties_not_repeated",
                severity="high",
                message=say(
                    "Warranties speak only at signing: changes before completion are the "
                    "buyer's risk.",
                    "陈述与保证仅于签署日作出，签署至交割期间发生的变化由买方承担风险。",
                ),
                evidence=repetition,
            )
        )
    if broad is not None:
        gaps.append(
            Gap(
                code="broad_general_disclosure",
                severity="medium",
                message=say(
                    "General disclosure of a data room or deemed knowledge empties the warranties.",
                    "以数据室概括披露或视为知悉的方式披露，使陈述与保证形同虚设。",
                ),
                evidence=broad,
            )
        )
    if scope == "document" and warranties:
        if repeated is None:
            gaps.append(
                Gap(
                    code="warranties_repetition_silent",
                    severity="medium",
                    message=say(
                        "The contract does not say the warranties are repeated at completion.",
                        "合同未约定陈述与保证于交割日重复作出。",
                    ),
                )
            )
        for t in CORE_TOPICS:
            if t not in topics:
                gaps.append(
                    Gap(
                        code="missing_core_warranty",
                        topic=t,
                        severity="medium",
                        message=say(
                            f"No {t} warranty was found.", f"未发现关于{topic_in(t, say)}的保证。"
                        ),
                    )
                )
    return gaps


def _seller_gaps(
    scope: Scope,
    warranties: list[Warranty],
    disclosure: list[Quote],
    repeated: bool | None,
    repetition: Quote | None,
    say: Say,
) -> list[Gap]:
    gaps: list[Gap] = []
    if repeated:
        gaps.append(
            Gap(
                code="warranties_repeated_at_completion",
                severity="medium",
                message=say(
                    "Warranties are repeated at completion: the seller warrants events it "
                    "may not control between signing and completion.",
                    "陈述与保证于交割日重复作出：卖方须对签署至交割期间其可能无法控制的事项作出保证。",
                ),
                evidence=repetition,
            )
        )
    for w in warranties:
        if w.topic not in ("title", "capacity") and not (
            w.knowledge_qualifier or w.materiality_qualifier
        ):
            gaps.append(
                Gap(
                    code="unqualified_business_warranty",
                    topic=w.topic,
                    severity="low",
                    message=say(
                        f"The {w.topic} warranty has no knowledge or materiality qualifier.",
                        f"{topic_in(w.topic, say)}保证未设知悉或重大性限定。",
                    ),
                    evidence=w.text,
                )
            )
    if scope == "document" and warranties and not disclosure:
        gaps.append(
            Gap(
                code="no_disclosure_qualification",
                severity="high",
                message=say(
                    "Warranties are not qualified by a disclosure letter.",
                    "陈述与保证未以披露函加以限定。",
                ),
            )
        )
    return gaps


prepare_input = input_preparer(WarrantiesInput)
"""Input for a clause of the primary document."""

REGISTRATION = scoped_registration(
    SKILL_ID,
    "SPA warranties",
    DESCRIPTION,
    (WarrantiesInput, WarrantiesOutput),
    handle,
    prepare_input,
    "extraction",
)
