"""Reference search: BM25 over the clauses of the review's reference documents.

Reference documents (Employer's Requirements, technical specifications, 发包人要求...) are split
into passages — every leaf clause, plus the lead-in text of a clause that has sub-clauses — and
indexed with BM25 (`bm25s`) over the terms of `text.words.analyse` (jieba words, English
stems). Query terms are expanded with a small bilingual synonym table (违约金 ~ 误期赔偿金,
retention ~ 质量保证金...).

Indexes are built once per reference document and kept in a small in-process cache keyed by the
document id and a hash of its passages, so searching for every clause of a contract indexes each
reference document once.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import bm25s
import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, Field

from contract_review.errors import SkillError
from contract_review.models import ClauseNode, DocumentStructure, TaskDocument
from contract_review.text import HAN
from contract_review.text.words import SYNONYM_GROUPS, Term, analyse

__all__ = [
    "ReferencePassage",
    "ReferenceSearch",
    "clear_cache",
    "search_references",
    "searchable_documents",
]

_MAX_QUERY_TOKENS = 300
"""A default query (the clause's own text) is cut to this many terms."""
_MAX_QUERY_CHARS = 2000
"""...and only this much of the clause body is read to build it."""
_PASSAGE_CHARS = 800
_QUERY_SHOWN = 500
_SHOWN = 50
_TITLE_WEIGHT = 1.5
_SYNONYM_WEIGHT = 0.7
_TRANSLATION_WEIGHT = 0.4
_CACHE_SIZE = 16


# --------------------------------------------------------------------------------------------
# Synonyms
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Variant:
    text: str
    cjk: bool
    tokens: tuple[str, ...]
    terms: tuple[Term, ...]


_synonyms: list[list[_Variant]] | None = None


def _synonym_table() -> list[list[_Variant]]:
    global _synonyms
    if _synonyms is None:
        table: list[list[_Variant]] = []
        for group in SYNONYM_GROUPS:
            variants = []
            for text in group:
                # Chinese variants are jieba words of their own (see _init_jieba): no need to
                # load jieba for an English-only review.
                cjk = bool(HAN.search(text))
                terms = (Term(text, text),) if cjk else tuple(analyse(text))
                variants.append(
                    _Variant(
                        text=text,
                        cjk=cjk,
                        tokens=tuple(t.token for t in terms),
                        terms=terms,
                    )
                )
            table.append(variants)
        _synonyms = table
    return _synonyms


def _contains(
    positions: Mapping[str, list[int]], seq: Sequence[str], phrase: tuple[str, ...]
) -> bool:
    """Whether the terms of `phrase` occur in a row in `seq` (`positions`: where each term is)."""
    if not phrase or phrase[0] not in positions:
        return False
    n = len(phrase)
    return n == 1 or any(tuple(seq[i : i + n]) == phrase for i in positions[phrase[0]])


def _expand(query_text: str, tokens: Sequence[str]) -> tuple[list[Term], list[Term]]:
    """Terms the synonyms of the query's terms add: in the query's language, and in the other
    language (weighted less: a translation is a weaker match)."""
    positions: dict[str, list[int]] = {}
    for i, token in enumerate(tokens):
        positions.setdefault(token, []).append(i)
    present = positions.keys()
    same: list[Term] = []
    other: list[Term] = []
    for group in _synonym_table():
        hit_scripts = {
            v.cjk
            for v in group
            if (v.text in query_text if v.cjk else _contains(positions, tokens, v.tokens))
        }
        for variant in group if hit_scripts else ():
            into = same if variant.cjk in hit_scripts else other
            into.extend(t for t in variant.terms if t.token not in present)
    return same, other


# --------------------------------------------------------------------------------------------
# Passages and their index
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Passage:
    clause_id: str
    title: str
    text: str
    headings: str
    """Titles of the clauses above it (indexed with it, not shown)."""


@dataclass
class _Index:
    structure: DocumentStructure
    passages: list[_Passage]
    token_sets: list[frozenset[str]]
    bm25: Any
    vocab: frozenset[str]


def _passages(structure: DocumentStructure) -> list[_Passage]:
    out: list[_Passage] = []
    stack: list[tuple[ClauseNode, tuple[str, ...]]] = [(c, ()) for c in reversed(structure.clauses)]
    while stack:
        node, above = stack.pop()
        if node.children:
            lead = node.text[: max(0, node.children[0].start_offset - node.start_offset)]
            own_body = lead[max(0, node.body_offset - node.start_offset) :]
            if own_body.strip():
                out.append(_Passage(node.clause_id, node.title, lead.strip(), " ".join(above)))
            below = (*above, node.title) if node.title else above
            stack.extend((child, below) for child in reversed(node.children))
        elif node.text.strip():
            out.append(_Passage(node.clause_id, node.title, node.text.strip(), " ".join(above)))
    return out


def _digest(passages: Iterable[_Passage]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for p in passages:
        for part in (p.clause_id, p.title, p.headings, p.text):
            h.update(part.encode("utf-8", "surrogatepass"))
            h.update(b"\x00")
    return h.hexdigest()


def _build(structure: DocumentStructure, passages: list[_Passage]) -> _Index:
    corpus = [
        [t.token for t in analyse(f"{p.headings}\n{p.text}", search_mode=True)] for p in passages
    ]
    token_sets = [frozenset(tokens) for tokens in corpus]
    vocab = frozenset(tok for tokens in corpus for tok in tokens)
    bm25: Any = None
    if vocab:
        bm25 = bm25s.BM25()
        bm25.index(corpus, show_progress=False)
    return _Index(structure, passages, token_sets, bm25, vocab)


_cache: OrderedDict[tuple[str, str], _Index] = OrderedDict()
_by_identity: dict[tuple[str, int], tuple[str, str]] = {}
_cache_lock = threading.Lock()


def _index_for(document_id: str, structure: DocumentStructure) -> _Index:
    """The cached index of a reference document, built on first use."""
    with _cache_lock:
        # Fast path: the very same structure object as last time (the entry keeps it alive,
        # so its id cannot have been reused).
        key = _by_identity.get((document_id, id(structure)))
        if key is not None and key in _cache and _cache[key].structure is structure:
            _cache.move_to_end(key)
            return _cache[key]
        passages = _passages(structure)
        key = (document_id, _digest(passages))
        index = _cache.get(key)
        if index is None:
            index = _build(structure, passages)
            _cache[key] = index
        else:
            index.structure = structure
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
        live = set(_cache)
        for ident in [i for i, k in _by_identity.items() if k not in live]:
            del _by_identity[ident]
        for ident in [i for i in _by_identity if i[0] == document_id]:
            del _by_identity[ident]
        _by_identity[(document_id, id(structure))] = key
        return index


def _weighted_scores(bm25: Any, weighted: Sequence[tuple[str, float]]) -> NDArray[np.float64]:
    """Σ weight × BM25 score of each (term, weight), per passage: what `bm25.get_scores` computes
    term by term, in one pass over the index's term columns (one call however many terms a
    clause-length query has)."""
    matrix = bm25.scores
    num_docs = int(matrix["num_docs"])
    if not weighted:
        return np.zeros(num_docs, dtype=np.float64)
    ids = np.array([bm25.vocab_dict[t] for t, _ in weighted], dtype=np.int64)
    weights = np.array([w for _, w in weighted], dtype=np.float64)
    indptr = matrix["indptr"]
    starts = indptr[ids].astype(np.int64)
    lengths = indptr[ids + 1].astype(np.int64) - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(num_docs, dtype=np.float64)
    # Positions of every (term, passage) entry of the selected columns.
    first = np.cumsum(lengths) - lengths
    entries = np.repeat(starts - first, lengths) + np.arange(total)
    values = matrix["data"][entries].astype(np.float64) * np.repeat(weights, lengths)
    summed = np.bincount(matrix["indices"][entries], weights=values, minlength=num_docs)
    return summed.astype(np.float64, copy=False)


def clear_cache() -> None:
    """Forget every index (tests)."""
    with _cache_lock:
        _cache.clear()
        _by_identity.clear()


class ReferencePassage(BaseModel):
    """One passage of a reference document."""

    document_id: str = Field(description="Reference document the passage is in.")
    filename: str = Field(description="File name of that document.")
    clause_id: str = Field(description="Clause of the reference document.")
    title: str = Field(description="Clause title ('' if none).")
    text: str = Field(
        description="Clause text, verbatim (a clause with sub-clauses: its lead-in only)."
    )
    truncated: bool = Field(description="Whether the text was cut.")
    score: float = Field(description="BM25 score (higher is better; compare within one search).")
    matched_terms: list[str] = Field(
        description="Query terms (or their synonyms) found in the passage or its headings."
    )


class ReferenceSearch(BaseModel):
    """The passages of the reference documents found for a query, best first."""

    query: str = Field(description="The query searched (cut when taken from a clause).")
    query_terms: list[str] = Field(
        description="Terms searched for, as written in the query (first 50)."
    )
    expanded_terms: list[str] = Field(description="Synonyms added to the query terms (first 50).")
    documents_searched: list[str] = Field(description="Ids of the reference documents searched.")
    passages: list[ReferencePassage] = Field(
        description="Best passages first; empty when nothing matches."
    )


# --------------------------------------------------------------------------------------------
# The search
# --------------------------------------------------------------------------------------------


def searchable_documents(
    documents: Sequence[TaskDocument], document_id: str | None = None
) -> list[TaskDocument]:
    """The parsed reference documents to search: all of `documents`, or the one with
    `document_id`. Raises `SkillError` when there is none."""
    docs = list(documents)
    if not docs:
        raise SkillError("no reference documents in this review")
    if document_id is not None:
        docs = [d for d in docs if d.document_id == document_id]
        if not docs:
            known = ", ".join(d.document_id for d in documents)
            raise SkillError(f"no reference document '{document_id}'; reference documents: {known}")
    parsed = [d for d in docs if d.structure is not None]
    if not parsed:
        raise SkillError("the reference documents of this review have not been parsed")
    return parsed


def _clause_query(clause: ClauseNode) -> tuple[str, list[Term], list[Term]]:
    """Query text, title terms and body terms of a clause."""
    body = clause.body[:_MAX_QUERY_CHARS]
    title_terms = analyse(clause.title)[:_MAX_QUERY_TOKENS]
    body_terms = analyse(body)[: _MAX_QUERY_TOKENS - len(title_terms)]
    return f"{clause.title}\n{body}".strip(), title_terms, body_terms


def _unique(terms: Iterable[Term], seen: set[str]) -> list[Term]:
    out = []
    for t in terms:
        if t.token not in seen:
            seen.add(t.token)
            out.append(t)
    return out


def search_references(
    documents: Sequence[TaskDocument],
    query: str | None = None,
    *,
    clause: ClauseNode | None = None,
    top_k: int = 5,
) -> ReferenceSearch:
    """Rank the passages of the parsed reference `documents` (see `searchable_documents`) for
    `query`, or, without one, for the title and text of `clause` (one of the two is given)."""
    if query is None:
        if clause is None:
            raise SkillError("give a query, or a clause_id whose text to search with")
        query, title_terms, body_terms = _clause_query(clause)
    else:
        query = query.strip()
        title_terms, body_terms = [], analyse(query)
    seen: set[str] = set()
    groups: list[tuple[float, list[Term]]] = [
        (_TITLE_WEIGHT, _unique(title_terms, seen)),
        (1.0, _unique(body_terms, seen)),
    ]
    same, other = _expand(query, [t.token for t in title_terms + body_terms])
    same, other = _unique(same, seen), _unique(other, seen)
    groups += [(_SYNONYM_WEIGHT, same), (_TRANSLATION_WEIGHT, other)]
    expanded = same + other
    display = {t.token: t.surface for _, terms in groups for t in terms}
    order = {tok: n for n, tok in enumerate(display)}

    hits: list[tuple[float, int, int]] = []
    indexes: list[tuple[TaskDocument, _Index]] = []
    for doc_no, doc in enumerate(documents):
        assert doc.structure is not None
        index = _index_for(doc.document_id, doc.structure)
        indexes.append((doc, index))
        if index.bm25 is None:
            continue
        weighted = [(t.token, w) for w, terms in groups for t in terms if t.token in index.vocab]
        scores = _weighted_scores(index.bm25, weighted)
        found = np.flatnonzero(scores > 0)
        if len(found) > top_k:
            found = found[np.argpartition(-scores[found], top_k - 1)[:top_k]]
        hits.extend((float(scores[i]), doc_no, int(i)) for i in found)
    hits.sort(key=lambda h: (-h[0], h[1], h[2]))

    passages = []
    for score, doc_no, i in hits[:top_k]:
        doc, index = indexes[doc_no]
        p = index.passages[i]
        common = sorted(index.token_sets[i] & display.keys(), key=order.__getitem__)
        matched = list(dict.fromkeys(display[tok] for tok in common))
        passages.append(
            ReferencePassage(
                document_id=doc.document_id,
                filename=doc.filename,
                clause_id=p.clause_id,
                title=p.title,
                text=p.text[:_PASSAGE_CHARS],
                truncated=len(p.text) > _PASSAGE_CHARS,
                score=round(score, 4),
                matched_terms=matched,
            )
        )
    return ReferenceSearch(
        query=query[:_QUERY_SHOWN],
        query_terms=list(dict.fromkeys(t.surface for t in title_terms + body_terms))[:_SHOWN],
        expanded_terms=list(dict.fromkeys(t.surface for t in expanded))[:_SHOWN],
        documents_searched=[d.document_id for d in documents],
        passages=passages,
    )
