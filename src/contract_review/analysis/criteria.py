"""Criteria matching: which review criteria of a playbook apply to a clause, and why.

A criterion applies by clause number (the clause itself or a parent), by its topic matching the
clause title, or by its topic, keywords or own words in the clause text (English by stems,
Chinese by jieba words: `text.words`). Criteria come from `playbook.criteria`.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from contract_review.models import ClauseNode, DocumentStructure
from contract_review.playbook.criteria import Criterion
from contract_review.text import HAN
from contract_review.text.words import (
    EN_STOPWORDS,
    MIN_PREFIX,
    Phrase,
    Words,
    chinese_words,
    covered,
    english_stem_set,
    english_stems,
    phrase,
)

__all__ = ["CriterionMatch", "MatchKind", "match_criteria"]

MatchKind = Literal["clause_id", "parent_clause_id", "title", "keywords"]
_KIND_RANK: dict[str, int] = {"clause_id": 0, "parent_clause_id": 1, "title": 2, "keywords": 3}


class CriterionMatch(BaseModel):
    """A criterion that applies to the clause, and why."""

    criterion: Criterion = Field(description="The criterion.")
    matched_by: MatchKind = Field(
        description="'clause_id' (names this clause), 'parent_clause_id' (names a parent "
        "clause), 'title' (topic matches the clause title) or 'keywords' (topic or criterion "
        "words in the clause text)."
    )
    score: float = Field(description="Strength of the match, 0–1 (clause id 1.0 ... keywords).")
    evidence: list[str] = Field(description="What matched: the clause id or the words found.")


_ALT_SPLIT_RE = re.compile(r"\s*(?:/|\||;|；|,|，|、|\bor\b|或)\s*")

_GENERIC_EN = frozenset(
    english_stems(
        "check ensure verify confirm review whether clause clauses contract agreement party non "
        "parties provision provisions provide provided include including require required "
        "consider should must position preferred fallback acceptable reasonable any"
    )
)
_GENERIC_ZH_TEXT = """
    审查 是否 约定 合同 条款 明确 我方 对方 双方 甲方 乙方 要求 规定 需要 确保 检查 建议 不得 不应 应当
    情形 相关 确定 完整 原因 方式 内容 范围 情况
"""
_GENERIC_ZH = frozenset(_GENERIC_ZH_TEXT.split())
"""Words of a criterion too common in contracts to show it applies ('审查', '合同')."""


_GENERIC_TITLE_STEMS = frozenset(
    english_stems(
        "term terms general provisions miscellaneous other definitions interpretation schedule "
        "article section part conditions"
    )
)
"""Title words too vague to say a clause is about a topic that contains them ('Term' is not
'Payment terms')."""


@dataclass(frozen=True)
class _Matcher:
    clause_ids: frozenset[str]
    topics: tuple[Phrase, ...]
    keywords: tuple[Phrase, ...]
    en_terms: tuple[tuple[str, str], ...]
    """(stem, word) of the criterion's own content words."""
    en_set: frozenset[str]
    zh_terms: tuple[str, ...]
    heads: frozenset[str]
    """First five letters of each English phrase's first stem: a text without any of them
    cannot hold a phrase (exact or by prefix)."""
    zh_phrases: bool
    topic_heads: frozenset[str]
    """First five letters of every stem of the topics (title matches share one)."""

    @staticmethod
    def of(c: Criterion) -> _Matcher:
        topics = tuple(
            p for p in (phrase(t) for t in _ALT_SPLIT_RE.split(c.topic)) if p is not None
        )
        keywords = tuple(p for p in (phrase(k) for k in c.keywords) if p is not None)
        words = [
            w
            for w in (x.lower() for x in re.findall(r"[A-Za-z]+", c.criterion))
            if len(w) > 2 and w not in EN_STOPWORDS
        ]
        en: dict[str, str] = {}
        for stem, word in zip(english_stems(" ".join(words)), words, strict=True):
            if stem not in _GENERIC_EN and len(stem) > 2:
                en.setdefault(stem, word)
        zh = (
            tuple(dict.fromkeys(w for w in chinese_words(c.criterion) if w not in _GENERIC_ZH))
            if HAN.search(c.criterion)
            else ()
        )
        return _Matcher(
            clause_ids=frozenset(i.lower() for i in c.clause_ids),
            topics=topics,
            keywords=keywords,
            en_terms=tuple(en.items()),
            en_set=frozenset(en),
            zh_terms=zh,
            heads=frozenset(p.stems[0][:MIN_PREFIX] for p in topics + keywords if p.stems),
            zh_phrases=any(p.zh for p in topics + keywords),
            topic_heads=frozenset(st[:MIN_PREFIX] for p in topics for st in p.stems),
        )


@dataclass
class _TreeStems:
    structure: DocumentStructure
    stems: dict[str, frozenset[str]]


_tree_cache: OrderedDict[int, _TreeStems] = OrderedDict()
_tree_lock = threading.Lock()


def _clause_stems(structure: DocumentStructure) -> dict[str, frozenset[str]]:
    """English stems of every clause's text, by clause id, worked out once per structure: a
    clause's stems are its own text's plus its sub-clauses' (so a review of every clause reads
    the document once, not once per nesting level)."""
    with _tree_lock:
        entry = _tree_cache.get(id(structure))
        if entry is not None and entry.structure is structure:
            _tree_cache.move_to_end(id(structure))
            return entry.stems
    stems: dict[str, frozenset[str]] = {}

    def visit(node: ClauseNode) -> frozenset[str]:
        if not node.children:
            found = english_stem_set(node.text)
        else:
            parts: list[frozenset[str]] = []
            pos = node.start_offset
            for child in node.children:
                parts.append(visit(child))
                gap = node.text[pos - node.start_offset : child.start_offset - node.start_offset]
                parts.append(english_stem_set(gap))
                pos = max(pos, child.end_offset)
            parts.append(english_stem_set(node.text[pos - node.start_offset :]))
            found = frozenset().union(*parts)
        stems[node.clause_id] = found
        return found

    for top in structure.clauses:
        visit(top)
    with _tree_lock:
        _tree_cache[id(structure)] = _TreeStems(structure, stems)
        while len(_tree_cache) > 4:
            _tree_cache.popitem(last=False)
    return stems


def _ancestors(structure: DocumentStructure, clause: ClauseNode) -> list[str]:
    out: list[str] = []
    parent_id = clause.parent_id
    while parent_id is not None and len(out) < 20:
        out.append(parent_id)
        parent = structure.get_clause(parent_id)
        parent_id = parent.parent_id if parent is not None else None
    return out


_Found = tuple[MatchKind, float, list[str]]


def _match(
    m: _Matcher, clause_id: str, ancestors: Sequence[str], title: Words, text: Words
) -> _Found | None:
    """How criterion `m` applies to the clause, most specific way first; None if it does not."""
    if clause_id.lower() in m.clause_ids:
        return "clause_id", 1.0, [f"clause {clause_id}"]
    for distance, parent in enumerate(ancestors, start=1):
        if parent.lower() in m.clause_ids:
            score = round(max(0.6, 0.95 - 0.05 * distance), 3)
            return "parent_clause_id", score, [f"parent clause {parent}"]
    if (title.zh and m.zh_phrases) or not m.topic_heads.isdisjoint(title.heads):
        for topic in m.topics:
            if title.has_words(topic):
                return "title", 0.8, [topic.text]
        for topic in m.topics:
            if _title_inside(title, topic):
                return "title", 0.7, [title.raw]
    # The criterion's own words count exactly (their stems): they only support a match.
    exact = m.en_set & text.stems
    zh_hits = [w for w in m.zh_terms if w in text.zh] if text.zh else []
    if (
        len(exact) + len(zh_hits) < 3
        and m.heads.isdisjoint(text.heads)
        and not (m.zh_phrases and text.zh)
    ):
        return None  # no phrase can occur, too few words for a match on words alone
    en_hits = [(s, w) for s, w in m.en_terms if s in exact]
    hits = [w for _, w in en_hits] + zh_hits
    n_terms = len(m.en_terms) + len(m.zh_terms)
    share = len(hits) / n_terms if n_terms else 0.0

    def corroborated(phrase: Phrase) -> bool:
        # One word ('exclusivity' ~ 'exclusive of taxes'; 工期) is weak evidence on its own:
        # it needs another word of the criterion in the text too.
        if phrase.strong:
            return True
        return any(s not in phrase.stems for s, _ in en_hits) or any(
            w not in phrase.zh and phrase.zh not in w for w in zh_hits
        )

    for base, phrases in ((0.55, m.keywords), (0.5, m.topics)):
        found = [p.text for p in phrases if text.hasphrase(p) and corroborated(p)]
        if found:
            return "keywords", round(base + 0.1 * share, 3), found + hits
    if len(hits) >= 3 and share >= 0.5:
        return "keywords", round(0.3 + 0.1 * share, 3), hits
    return None


def _title_inside(title: Words, topic: Phrase) -> bool:
    """Whether the title is contained in the topic: '索赔' in '索赔时效', 'Payment' in
    'Payment terms'."""
    if topic.zh:
        return len(title.zh) >= 2 and title.zh in topic.zh
    if not title.stems or title.stems <= _GENERIC_TITLE_STEMS:
        return False
    return all(covered(s, topic.stems) for s in title.stems)


_matchers_cache: OrderedDict[int, tuple[Sequence[Criterion], tuple[_Matcher, ...]]] = OrderedDict()
_matchers_lock = threading.Lock()
_MATCHERS_SIZE = 32


def _matchers(criteria: Sequence[Criterion]) -> tuple[_Matcher, ...]:
    """The matchers of a playbook's criteria, worked out once per criteria sequence (by
    identity: `playbook.criteria.load_criteria` returns the same tuple for the same file)."""
    with _matchers_lock:
        hit = _matchers_cache.get(id(criteria))
        if hit is not None and hit[0] is criteria:
            _matchers_cache.move_to_end(id(criteria))
            return hit[1]
    matchers = tuple(_Matcher.of(c) for c in criteria)
    with _matchers_lock:
        _matchers_cache[id(criteria)] = (criteria, matchers)
        while len(_matchers_cache) > _MATCHERS_SIZE:
            _matchers_cache.popitem(last=False)
    return matchers


def match_criteria(
    criteria: Sequence[Criterion],
    structure: DocumentStructure,
    clause: ClauseNode,
    max_results: int | None = None,
) -> list[CriterionMatch]:
    """The criteria that apply to `clause` of `structure`, most specific first (clause id,
    parent clause id, title, keywords; then by score, then in file order), at most
    `max_results`."""
    ancestors = _ancestors(structure, clause)
    title = Words(clause.title)
    text = Words(clause.text, _clause_stems(structure).get(clause.clause_id))
    found: list[tuple[int, int, float, CriterionMatch]] = []
    for order, (criterion, matcher) in enumerate(zip(criteria, _matchers(criteria), strict=True)):
        hit = _match(matcher, clause.clause_id, ancestors, title, text)
        if hit is None:
            continue
        kind, score, evidence = hit
        match = CriterionMatch(
            criterion=criterion,
            matched_by=kind,
            score=score,
            evidence=list(dict.fromkeys(evidence)),
        )
        found.append((_KIND_RANK[kind], order, score, match))
    found.sort(key=lambda f: (f[0], -f[2], f[1]))
    return [f[3] for f in found[:max_results]]
