"""Our standard clause for a protection the contract lacks, as a new clause in its place.

A position with `missing` and a `clause` (our own wording, EN/ZH) answers "the contract has no
clause on Confidentiality" with that clause: numbered after the contract's last numbered clause
(before schedules and signatures), in the contract's numbering style, naming the contract as it
names itself ('this Agreement', '本协议') and the other side by its label. `new_clause` drafts
it; the review graph verifies it like any change before it is proposed.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

from contract_review.models import ActionType, ClauseNode, DocumentDiff, DocumentStructure
from contract_review.parties import PartyRoles, as_written
from contract_review.playbook import Position
from contract_review.text.numerals import int_to_chinese

__all__ = ["new_clause", "self_name"]

_SELF_EN = re.compile(
    r"\b[Tt]his\s+((?:[A-Z][\w-]*\s+){0,3}?(?:Agreement|Contract|Licen[cs]e|Lease|Deed|Addendum"
    r"|Amendment|MSA|Terms))\b"
)
_SELF_ZH = re.compile(r"本(合同|协议书|协议|契约)")
_AFTER_BODY = re.compile(
    r"^\s*(?:schedule|exhibit|annex|appendix|attachment|signature|in witness|附件|附表|附录|签署|签字)",
    re.IGNORECASE,
)
"""A top-level part that follows the operative clauses: a new clause goes before it."""
_BODY_ENDS = re.compile(
    # a page note, wherever a filing's layout left it ('… by the Party. (remainder of page
    # intentionally left blank)')
    r"[\[(]\s*(?:the\s+)?(?:remainder\s+of\s+(?:this\s+)?page\s+(?:is\s+)?(?:intentionally\s+)?"
    r"left\s+blank|signature\s+pages?\s+(?:to\s+)?follows?)"
    r"|^[ \t*\[(]*(?:in\s+witness\s+where\w*|signed\s+for\s+and\s+on\s+behalf"
    r"|(?:the\s+)?(?:remainder\s+of\s+(?:this\s+)?page\s+(?:is\s+)?(?:intentionally\s+)?left\s+blank"
    r"|signature\s+page)"
    # a schedule's heading alone on its line ('EXHIBIT A', 'Schedule 2 – Prices'), not a
    # reference running on ('Exhibit B, which shall be updated …')
    r"|(?:schedule|exhibit|annex|appendix|attachment)\s+[\w.-]{1,6}[ \t]*(?:[-–—:.][^\n]{0,60})?$"
    r"|(?:甲方|乙方|发包人|承包人|出卖人|买受人|委托方|受托方)?\s*[（(]?(?:签字|签章|盖章)[）)]?[：:]"
    r"|(?:以下无正文|本页无正文)|附件[一二三四五六七八九十\d])",
    re.IGNORECASE | re.MULTILINE,
)
"""Where the operative text ends inside a clause, as filings run on: the signature block, a
'signature page follows' line, the first schedule or exhibit heading."""
_AMENDMENT = re.compile(
    r"\b(?:amendment|addendum|supplement(?:al)?|side\s+letter)\b|补充协议|变更协议", re.I
)
_DIGITS = re.compile(r"\d+")
_ZH_ARTICLE = re.compile(r"第[一二三四五六七八九十百零〇两]+条")


def self_name(text: str, language: str) -> str:
    """How the contract names itself, lower case after 'this': 'this Agreement', 'this
    Services Agreement', '本协议' (the commonest; else 'this Agreement' / '本合同')."""
    if language.startswith("zh"):
        found = Counter(m.group(0) for m in _SELF_ZH.finditer(text))
        return found.most_common(1)[0][0] if found else "本合同"
    names = Counter(m.group(1) for m in _SELF_EN.finditer(text))
    return f"this {names.most_common(1)[0][0]}" if names else "this Agreement"


_PARTY_WORD = re.compile(
    r"\b(?:either|each|other|neither|both|the)\s+(Part(?:y|ies)|part(?:y|ies))\b"
)


def _capital_party(text: str) -> bool:
    """Whether the contract writes 'Party' as a defined word ('the other Party')."""
    found = [m.group(1)[0] for m in _PARTY_WORD.finditer(text)]
    return found.count("P") > found.count("p")


def _text_of(structure: DocumentStructure) -> str:
    """The document text the top-level clauses hold, at their offsets from the first one (the
    gaps between them as spaces)."""
    if not structure.clauses:
        return ""
    base = structure.clauses[0].start_offset
    out: list[str] = []
    at = base
    for c in structure.clauses:
        out += [" " * max(0, c.start_offset - at), c.text]
        at = max(at, c.start_offset) + len(c.text)
    return "".join(out)


def _numbered(clause: ClauseNode) -> int | None:
    found = _DIGITS.search(clause.clause_id)
    return int(found.group()) if found and found.group() == clause.clause_id else None


def _anchor(structure: DocumentStructure, whole: str) -> tuple[ClauseNode, int, int] | None:
    """The highest-numbered clause of the contract's main numbering ('1', '2' … at the
    shallowest level they appear: articles under chapters too) before any schedule or
    signature block, its number, and the offset a new clause goes at: its end, or where the
    signature block or first schedule begins inside it. `whole` is the text the clauses
    hold, joined (offsets of the document)."""
    numbered = [(c, n) for c in structure.iter_clauses() if (n := _numbered(c)) is not None]
    if not numbered:
        return None
    top = min(c.level for c, _ in numbered)
    first = min(c.start_offset for c, _ in numbered)
    ends = [
        c.start_offset
        for c in structure.clauses
        if c.start_offset > first and _AFTER_BODY.match(c.title or c.text[:40])
    ]
    base = structure.clauses[0].start_offset if structure.clauses else 0
    block = _BODY_ENDS.search(whole, max(0, first - base) + 1)
    if block is not None:
        ends.append(base + block.start())
    body_ends = min(ends, default=structure.text_length or max(c.end_offset for c, _ in numbered))
    main = [(c, n) for c, n in numbered if c.level == top and c.start_offset < body_ends]
    if not main:
        return None
    anchor, n = max(main, key=lambda cn: cn[1])
    at = min(anchor.end_offset, body_ends)
    # after the last full line before the block, its line break left where it was
    text = whole[: at - base]
    at = base + len(text.rstrip())
    return anchor, n, at


def _heading(anchor: ClauseNode, n: int, title: str) -> str:
    """The new clause's heading, numbered as the anchor is ('12.' → '13.', 'Section 12' →
    'Section 13', '第十二条' → '第十三条')."""
    label = anchor.number.strip()
    if _ZH_ARTICLE.fullmatch(label):
        return f"第{int_to_chinese(n)}条 {title}"
    if _DIGITS.search(label):
        return f"{_DIGITS.sub(str(n), label, count=1)} {title}"
    return f"{n}. {title}"


def new_clause(
    structure: DocumentStructure,
    position: Position,
    language: str,
    roles: PartyRoles | None,
    earlier: int = 0,
    ours_only: bool = False,
) -> DocumentDiff | None:
    """Our standard clause for `position` as an insertion after the contract's last numbered
    clause (numbered after the `earlier` new clauses proposed before it), or None (no
    wording, no numbered clause to follow). `ours_only`: the other side already has the
    protection, so '{Each}' is our party alone ('The Customer's total liability'), not a
    second, mutual term beside theirs."""
    wording = position.clause.text(language) if position.clause is not None else ""
    whole = _text_of(structure)
    name = self_name(whole, language)
    if not wording.strip() or _AMENDMENT.search(name):
        return None  # an amendment's protections are the main agreement's
    placed = _anchor(structure, whole)
    if placed is None:
        return None
    anchor, last, at = placed
    n = last + 1 + earlier
    taken = {c.clause_id for c in structure.iter_clauses() if c.start_offset < at}
    while str(n) in taken:  # a number the contract already uses elsewhere
        n += 1
    them = as_written(whole, roles.their_aliases[0]) if roles and roles.their_aliases else ""
    if "{them}" in wording and not them:
        return None  # a duty of the other side, and no other side to name
    us = as_written(whole, roles.our_aliases[0]) if roles and roles.our_aliases else ""
    zh = language.startswith("zh")
    each = us if ours_only and us else ("任何一方" if zh else "each party")
    filled = wording.format(
        contract=name,
        Contract=name[:1].upper() + name[1:],
        them=them,
        each=each,
        Each=each[:1].upper() + each[1:],
    )
    if language.startswith("en") and _capital_party(whole):  # 'the other Party'
        filled = re.sub(
            r"(?<!third-)(?<!third )\bpart(y|ies)\b", lambda m: "Part" + m.group(1), filled
        )
    title, *rest = filled.splitlines()
    body = [line.strip()[:1].upper() + line.strip()[1:] for line in rest if line.strip()]
    numbered = any(c.clause_id.startswith(f"{anchor.clause_id}.") for c in anchor.children)
    if numbered and len(body) > 1:
        body = [f"{n}.{i} {line}" for i, line in enumerate(body, 1)]
    lines = [_heading(anchor, n, title.strip()), *body]
    key = f"{position.id}|{anchor.clause_id}|{lines[0]}"
    return DocumentDiff(
        diff_id="rl-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16],
        clause_id=anchor.clause_id,
        action_type=ActionType.INSERT,
        original_text="",
        proposed_text="\n".join(lines),
        start_offset=at,
        new_clause=True,
    )
