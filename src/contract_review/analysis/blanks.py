"""Blanks left in a contract: terms a form leaves to be filled in ('a fee of $______', '[●]
months', '乙方应于____日内付款'), found in the clause that holds them.

A blank in a commercial term — an amount, a rate, a period, a date the term runs from, a party —
leaves the deal open; a lawyer asks for it to be filled before signing, whichever side they act
for. Blanks of the signing block ('By: ____', '签字：____') are where the parties sign, not open
terms. Pure: a structure in, the blanks out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from contract_review.models import DocumentStructure
from contract_review.text import SENTENCE_OR_LINE_END

__all__ = ["BLANK", "Blank", "BlankTerm", "find_blanks"]

BlankTerm = Literal["amount", "rate", "period", "date", "party", "other"]

_TERMS: tuple[tuple[BlankTerm, re.Pattern[str]], ...] = (
    (
        "amount",
        re.compile(
            r"[$€£¥]|\b(?:USD|EUR|GBP|RMB|CNY|dollars?|euros?|pounds?|fees?|price|payment|"
            r"royalt(?:y|ies)|compensation|amount|sum|rent|deposit|consideration|cap)\b"
            r"|人民币|元|价款|费用|金额|租金|报酬|押金|保证金|违约金|总价",
            re.IGNORECASE,
        ),
    ),
    ("rate", re.compile(r"%|\bper\s*cent\b|\bpercent(?:age)?\b|\brate\b|百分之|比例|利率", re.I)),
    (
        "period",
        re.compile(
            r"\b(?:days?|weeks?|months?|years?|term|period|notice)\b|日内|天内|个月|年内|期限|期间",
            re.IGNORECASE,
        ),
    ),
    ("date", re.compile(r"\b(?:dated?|effective|commenc\w*|as of)\b|年\s*月|日期|生效", re.I)),
    (
        "party",
        re.compile(
            r"\b(?:corporation|company|inc\b|llc|ltd|limited|name|address|party|licensee|"
            r"licensor|endorser|distributor|customer|supplier)\b|公司|名称|地址|住所",
            re.IGNORECASE,
        ),
    ),
)
"""What a blank leaves open, by the words next to it (tried in this order)."""

BLANK = re.compile(
    r"_{3,}|＿{2,}"
    r"|\[\s*(?:[●•◆\u25cf]+|[Xx]{1,3}|_+|\.{2,}|…+|(?i:date|name|amount|address|number|no\.|tbd|tbc"
    r"|to be (?:agreed|determined|confirmed)|party|price|fee|sum|percentage|blank|company"
    r"|insert\b[^\]]{0,40}))?\s*\]"
    r"|【\s*[●•]*\s*】|（\s{2,}）|\(\s{3,}\)"
    r"|(?<=\S )[●](?=[\s,.;)])"
)
"""A blank in a form: ____, [●], [ ], [X], [Date], [insert amount], 【 】, （  ）. Not the
'[***]' of a filing's confidential treatment: a term kept from the public, not left open."""

_SIGNING = re.compile(
    r"\b(?:by|name|title|signature|signed|date|witness|its|print(?:ed)?\s+name)\s*:"
    r"|\bby\s*$|/s/|\bsign(?:ed|ature)\b"
    r"|签字|签章|盖章|签署|签名|法定代表人|授权代表|委托代理人|日期\s*[:：]",
    re.IGNORECASE,
)
"""A line of the signing block: its blanks are for signatures, not terms."""

_CLOSE = 12
_NEAR = 60
"""Characters each side of a blank read for what it leaves open: close by, then near."""


@dataclass(frozen=True)
class Blank:
    """A blank in a clause, with the sentence that holds it."""

    clause_id: str
    """The deepest clause holding the blank."""
    sentence: str
    """The sentence (or line) holding it, verbatim."""
    term: BlankTerm
    """What it leaves open, by the words next to it."""
    start: int
    """Offset of the blank in the document text."""


def _term(text: str, start: int, end: int) -> BlankTerm:
    # the words right at the blank first ('[●]% of Net Sales' is a rate, though 'Royalties'
    # is near), then those of its part of the sentence
    for width in (_CLOSE, _NEAR):
        near = text[max(0, start - width) : end + width]
        found = next((term for term, words in _TERMS if words.search(near)), None)
        if found is not None:
            return found
    return "other"


def find_blanks(structure: DocumentStructure) -> list[Blank]:
    """The blanks of the contract's clauses, one per sentence, in document order; none in a
    signing block."""
    out: list[Blank] = []
    seen: set[tuple[str, str]] = set()
    for clause in structure.leaf_clauses():
        body = clause.text
        for m in BLANK.finditer(body):
            begin = max(
                (e.end() for e in SENTENCE_OR_LINE_END.finditer(body, 0, m.start())), default=0
            )
            stop = SENTENCE_OR_LINE_END.search(body, m.end())
            sentence = body[begin : stop.end() if stop else len(body)].strip()
            line_start = body.rfind("\n", 0, m.start()) + 1
            if _SIGNING.search(body, line_start, m.start()) or "/s/" in sentence or not sentence:
                continue
            key = (clause.clause_id, sentence)
            if key in seen:
                continue
            seen.add(key)
            out.append(
                Blank(
                    clause_id=clause.clause_id,
                    sentence=sentence,
                    term=_term(body, m.start(), m.end()),
                    start=clause.start_offset + m.start(),
                )
            )
    return out
