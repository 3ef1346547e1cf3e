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
from pathlib import Path
from typing import Any

from contract_review.models import ClauseKind, ClauseNode, DocumentStructure, Priority
from contract_review.models import ReviewChecklistItem as Item
from contract_review.playbook.parse import read_yaml
from contract_review.text import HAN

from .baselines import ALL_BOOKS, NUMBERING_1999

__all__ = [
    "CHECKLIST",
    "GENERIC_SKILLS",
    "ChecklistEntry",
    "build_fidic_checklist",
    "checklist_entry",
    "match_clauses",
    "uses_1999_numbering",
]

GENERIC_SKILLS: list[str] = ["get_clause_context", "fidic_merge_gc_pc", "compare_with_baseline"]
"""Skills of the generic low-priority items."""

_GENERIC_DESCRIPTION = (
    "Read the sub-clause as amended by the Particular Conditions and note any departure from "
    "the General Conditions."
)
_GENERIC_DESCRIPTION_ZH = "审阅经专用条件修改后的本款内容，并记录与通用条件的任何差异。"
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
    title_zh: str = ""
    """The title in Chinese."""
    description_zh: str = ""
    """What to check, in Chinese."""
    by_book_zh: dict[str, str] = field(default_factory=dict)
    """Book-specific descriptions in Chinese."""

    def description_for(self, subtype: str | None, language: str = "en") -> str:
        """What to check under `subtype`, in `language` ('en' or 'zh…'; English where the
        Chinese is missing)."""
        english = self.by_book.get(subtype or "", self.description)
        if not language.startswith("zh"):
            return english
        chinese = self.by_book_zh.get(subtype or "", self.description_zh)
        return chinese or english

    def title_for(self, language: str = "en") -> str:
        """The sub-clause's title in `language` ('en' or 'zh…')."""
        return (self.title_zh or self.title) if language.startswith("zh") else self.title

    def priority_for(self, subtype: str | None) -> Priority:
        """Priority under `subtype`."""
        return self.priority_by_book.get(subtype or "", self.priority)

    @property
    def titles(self) -> tuple[str, ...]:
        """All English titles of the sub-clause."""
        return (self.title, *self.aliases)


_EVERY_ITEM = tuple(GENERIC_SKILLS)
"""Skills every checklist item gets (context, GC/PC merge, baseline comparison)."""


class _ChecklistError(ValueError):
    """The packaged checklist is malformed (a bug in the data file, found at import)."""


def _entry(raw: dict[str, Any]) -> ChecklistEntry:
    """One `checklist.yaml` entry."""
    try:
        extra = [str(s) for s in raw.get("skills") or ()]
        return ChecklistEntry(
            key=str(raw["key"]),
            title=str(raw["title"]),
            topic=str(raw["topic"]),
            priority=Priority(raw["priority"]),
            skills=(*_EVERY_ITEM, *(s for s in extra if s not in _EVERY_ITEM)),
            description=str(raw["description"]),
            aliases=tuple(raw.get("aliases") or ()),
            zh=tuple(raw.get("zh") or ()),
            by_book=dict(raw.get("by_book") or {}),
            priority_by_book={
                k: Priority(v) for k, v in (raw.get("priority_by_book") or {}).items()
            },
            title_zh=str(raw.get("title_zh") or ""),
            description_zh=str(raw.get("description_zh") or ""),
            by_book_zh=dict(raw.get("by_book_zh") or {}),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise _ChecklistError(f"checklist.yaml, sub-clause {raw.get('key')!r}: {exc}") from exc


def _load_checklist() -> tuple[ChecklistEntry, ...]:
    data = read_yaml(Path(__file__).with_name("checklist.yaml").read_text(encoding="utf-8"))
    return tuple(_entry(raw) for raw in data["checklist"])


CHECKLIST: tuple[ChecklistEntry, ...] = _load_checklist()
"""The checklist sub-clauses (`checklist.yaml`), in 2017 numbering and clause order."""

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


def _item(node: ClauseNode, entry: ChecklistEntry, subtype: str | None, language: str) -> Item:
    """The checklist item of a clause matched to `entry`, written in the contract's language."""
    description = entry.description_for(subtype, language)
    title = entry.title_for(language)
    if node.clause_id != entry.key:
        if language.startswith("zh"):
            description = f"［FIDIC 2017 第{entry.key}款 {title}］{description}"
        else:
            description = f"[FIDIC 2017 Sub-Clause {entry.key} {title}] {description}"
    return Item(
        clause_id=node.clause_id,
        clause_name=node.title or title,
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
    book-specific descriptions and priorities. What to check is written in the contract's
    language (`structure.language`: Chinese for 'zh-CN').
    """
    if subtype is not None and subtype not in ALL_BOOKS:
        subtype = None
    language = structure.language
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
            out.append((node.start_offset, _item(node, entry, subtype, language)))
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
                    description=(
                        _GENERIC_DESCRIPTION_ZH
                        if language.startswith("zh")
                        else _GENERIC_DESCRIPTION
                    ),
                    topic=None,
                ),
            )
        )
    out.sort(key=lambda e: e[0])
    return [item for _, item in out]
