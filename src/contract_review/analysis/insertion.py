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
from contract_review.parties import PartyRoles
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


def _as_written(text: str, label: str) -> str:
    """A party's label as the contract writes it: 'the Provider' where it mostly takes the
    article, else 'Provider'."""
    bare = len(re.findall(rf"\b{re.escape(label)}\b", text))
    with_article = len(re.findall(rf"\b[Tt]he\s+{re.escape(label)}\b", text))
    return f"the {label}" if with_article * 2 > bare else label


def _numbered(clause: ClauseNode) -> int | None:
    found = _DIGITS.search(clause.clause_id)
    return int(found.group()) if found and found.group() == clause.clause_id else None


def _anchor(structure: DocumentStructure) -> tuple[ClauseNode, int] | None:
    """The highest-numbered clause of the contract's main numbering ('1', '2' … at the
    shallowest level they appear: articles under chapters too) before any schedule or
    signature block, and its number."""
    numbered = [(c, n) for c in structure.iter_clauses() if (n := _numbered(c)) is not None]
    if not numbered:
        return None
    top = min(c.level for c, _ in numbered)
    first = min(c.start_offset for c, _ in numbered)
    body_ends = next(
        (
            c.start_offset
            for c in structure.clauses
            if c.start_offset > first and _AFTER_BODY.match(c.title or c.text[:40])
        ),
        structure.text_length or max(c.end_offset for c, _ in numbered),
    )
    main = [(c, n) for c, n in numbered if c.level == top and c.start_offset < body_ends]
    return max(main, key=lambda cn: cn[1]) if main else None


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
) -> DocumentDiff | None:
    """Our standard clause for `position` as an insertion after the contract's last numbered
    clause (numbered after the `earlier` new clauses proposed before it), or None (no
    wording, no numbered clause to follow)."""
    wording = position.clause.text(language) if position.clause is not None else ""
    placed = _anchor(structure)
    if not wording.strip() or placed is None:
        return None
    anchor, last = placed
    n = last + 1 + earlier
    whole = "\n".join(c.text for c in structure.clauses)
    name = self_name(whole, language)
    them = _as_written(whole, roles.their_aliases[0]) if roles and roles.their_aliases else ""
    if "{them}" in wording and not them:
        return None  # a duty of the other side, and no other side to name
    filled = wording.format(contract=name, Contract=name[:1].upper() + name[1:], them=them)
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
        start_offset=anchor.end_offset,
        new_clause=True,
    )
