"""search_reference_doc: BM25 search over the clauses of the review's reference documents.

Reference documents (Employer's Requirements, technical specifications, 发包人要求...) are split
into passages — every leaf clause, plus the lead-in text of a clause that has sub-clauses — and
indexed with BM25 (`bm25s`). Chinese is segmented with jieba (legal and construction terms added
to its dictionary), English is lower-cased, stop words are dropped and words are stemmed
(Snowball, PyStemmer). Query terms are expanded with a small bilingual synonym table
(违约金 ~ 误期赔偿金, retention ~ 质量保证金...).

Indexes are built once per reference document and kept in a small in-process cache keyed by the
document id and a hash of its passages, so searching for every clause of a contract indexes each
reference document once.

The text analysis helpers (`analyse`, `english_stems`, `chinese_words`) are shared with
`load_review_criteria`.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import bm25s
import numpy as np
import Stemmer
from numpy.typing import NDArray
from pydantic import BaseModel, Field

from contract_review.errors import SkillError
from contract_review.models import ClauseNode, DocumentRole, DocumentStructure, TaskDocument
from contract_review.skills.context import ReviewContext, SkillState, StructureInput, require_clause
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.text import CJK_IDEOGRAPHS

with warnings.catch_warnings():
    # jieba 0.42 has invalid escape sequences ('\.'): compiled without a .pyc (fresh install,
    # read-only site-packages) they warn, and under warnings-as-errors the import fails.
    warnings.simplefilter("ignore", DeprecationWarning)
    warnings.simplefilter("ignore", SyntaxWarning)
    import jieba

__all__ = [
    "REGISTRATION",
    "SKILL_ID",
    "ReferencePassage",
    "SearchReferenceDocInput",
    "SearchReferenceDocOutput",
    "Term",
    "analyse",
    "chinese_words",
    "clear_cache",
    "english_stem_set",
    "english_stems",
    "handle",
    "prepare_input",
]

SKILL_ID = "search_reference_doc"

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
# Text analysis
# --------------------------------------------------------------------------------------------

_CJK = CJK_IDEOGRAPHS
_WORD_RE = re.compile(rf"[{_CJK}]+|[A-Za-z][A-Za-z0-9]*")
_HAS_CJK_RE = re.compile(rf"[{_CJK}]")
_ENGLISH_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*")

_EN_STOP_TEXT = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each either else
    etc few for from further had has have having he her here hers herself him himself his how
    i if in into is it its itself just me more most my myself no nor not of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up upon
    us very was we were what when where which while who whom why will with would you your yours
    yourself shall may must might hereby herein hereof hereto hereunder hereinafter thereof
    therein thereto thereunder thereby whereas whereby said per via within without ie eg
"""
EN_STOPWORDS: frozenset[str] = frozenset(_EN_STOP_TEXT.split())
"""English words never searched for: function words and legal filler ('hereof', 'shall')."""

_ZH_STOP_TEXT = """
    之一 按照 根据 依据 以及 或者 并且 以上 以下 之内 之后 之前 应当 应该 可以 进行 有关 相关 其他 其它
    或其 以内 为止 如下 下列 上述 前述 所述 包括 但是 如果 因此 对于 关于 由于 除非 除外 该等 本合同
"""
ZH_STOPWORDS: frozenset[str] = frozenset(_ZH_STOP_TEXT.split())
"""Chinese function words never searched for (single characters are dropped anyway)."""

LEGAL_TERMS_ZH: tuple[str, ...] = (
    "发包人",
    "承包人",
    "分包人",
    "监理人",
    "违约金",
    "误期赔偿金",
    "逾期违约金",
    "延期违约金",
    "质量保证金",
    "保留金",
    "质保金",
    "预付款",
    "预付款保函",
    "履约保函",
    "履约担保",
    "履约保证金",
    "工程量清单",
    "竣工验收",
    "竣工检验",
    "竣工试验",
    "不可抗力",
    "缺陷责任期",
    "保修期",
    "进度款",
    "竣工结算",
    "工程变更",
    "索赔",
    "工期顺延",
    "暂列金额",
    "计日工",
    "发包人要求",
    "技术要求",
    "设计标准",
    "性能保证",
    "现场数据",
    "地质勘察",
    "争议解决",
)
"""Terms jieba must keep whole (added to its dictionary once)."""

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    (
        "误期赔偿金",
        "逾期违约金",
        "违约金",
        "延期违约金",
        "liquidated damages",
        "delay damages",
    ),
    ("质量保证金", "保留金", "质保金", "retention", "retention money"),
    (
        "履约保函",
        "履约担保",
        "履约保证金",
        "performance security",
        "performance bond",
    ),
    ("预付款", "advance payment", "mobilisation advance", "mobilization advance"),
    ("发包人", "业主", "建设单位", "employer", "owner"),
    ("承包人", "承包商", "施工单位", "contractor"),
    ("不可抗力", "force majeure", "exceptional event"),
    ("竣工检验", "竣工试验", "竣工验收", "tests on completion", "completion tests"),
    ("工程量清单", "bill of quantities", "boq"),
    ("工程变更", "变更", "variation", "change order"),
    (
        "缺陷责任期",
        "保修期",
        "defects notification period",
        "defects liability period",
        "warranty period",
    ),
    ("工期", "竣工时间", "time for completion"),
    ("索赔", "claim"),
    ("争议", "争端", "dispute"),
    ("仲裁", "arbitration"),
    ("设计标准", "设计准则", "design criteria", "design standards"),
    ("现场数据", "现场资料", "地质勘察", "site data", "ground conditions"),
    ("性能保证", "performance guarantees", "guaranteed performance"),
)
"""Query terms and what they also search for (bilingual)."""

_jieba_lock = threading.Lock()
_jieba_ready = False
_stemmers = threading.local()


def _init_jieba() -> None:
    """Quiet jieba and teach it the legal terms, once per process."""
    global _jieba_ready
    if _jieba_ready:
        return
    with _jieba_lock:
        if _jieba_ready:
            return
        jieba.setLogLevel(logging.WARNING)
        jieba.initialize()
        for group in SYNONYM_GROUPS:
            for term in group:
                if _HAS_CJK_RE.search(term):
                    jieba.add_word(term)
        for term in LEGAL_TERMS_ZH:
            jieba.add_word(term)
        _jieba_ready = True


def _stem_words(words: list[str]) -> list[str]:
    # PyStemmer objects are not thread-safe: one per thread.
    stemmer: Any = getattr(_stemmers, "stemmer", None)
    if stemmer is None:
        stemmer = Stemmer.Stemmer("english")
        _stemmers.stemmer = stemmer
    stems: list[str] = stemmer.stemWords(words)
    return stems


class Term(NamedTuple):
    """One searchable term: the normalised token and the word it came from."""

    token: str
    surface: str


_ZH_CLAUSE_REF_RE = re.compile(r"^第.{1,6}[条章款项节]$")
_ZH_SINGLE_KEEP = frozenset("税费罚息股债")


def _zh_keep(word: str) -> bool:
    """Whether a jieba word is worth searching: no function words, no single characters
    (bar a few), no clause numbers (第六条 — numbering differs between documents)."""
    if len(word) == 1:
        return word in _ZH_SINGLE_KEEP
    return word not in ZH_STOPWORDS and not _ZH_CLAUSE_REF_RE.match(word)


def analyse(text: str, *, search_mode: bool = False) -> list[Term]:
    """The terms of `text`, in order: stemmed English words without stop words, and jieba words
    without function words or single characters. `search_mode` also emits the sub-words of long
    Chinese words (used for indexing, so a query for 保证金 finds 质量保证金)."""
    if not _HAS_CJK_RE.search(text):
        low = [w for w in _ENGLISH_RE.findall(text.lower()) if len(w) > 1 and w not in EN_STOPWORDS]
        return list(map(Term, _stem_words(low), low)) if low else []
    pieces: list[tuple[bool, str]] = []
    english: list[str] = []
    for word in _WORD_RE.findall(text):
        if word[0].isascii():
            low = word.lower()
            if len(low) > 1 and low not in EN_STOPWORDS:
                pieces.append((True, low))
                english.append(low)
            continue
        if not _jieba_ready:
            _init_jieba()
        cut = jieba.lcut_for_search(word) if search_mode else jieba.lcut(word)
        pieces.extend((False, w) for w in cut if _zh_keep(w))
    stems = iter(_stem_words(english)) if english else iter(())
    return [Term(next(stems), w) if is_en else Term(w, w) for is_en, w in pieces]


def english_stems(text: str) -> list[str]:
    """Stems of the English words of `text` (stop words dropped), in order."""
    low = [w for w in _ENGLISH_RE.findall(text.lower()) if len(w) > 1 and w not in EN_STOPWORDS]
    return _stem_words(low) if low else []


def english_stem_set(text: str) -> frozenset[str]:
    """The distinct stems of the English words of `text` (stop words dropped); cheaper than
    `set(english_stems(text))` as each distinct word is stemmed once."""
    words = set(_ENGLISH_RE.findall(text.lower()))
    words -= EN_STOPWORDS
    kept = [w for w in words if len(w) > 1]
    return frozenset(_stem_words(kept)) if kept else frozenset()


def chinese_words(text: str) -> list[str]:
    """jieba words of the Chinese parts of `text`: two characters or more, no function words."""
    return [t.token for t in analyse(text) if _HAS_CJK_RE.match(t.token) and len(t.token) > 1]


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
                cjk = bool(_HAS_CJK_RE.search(text))
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


# --------------------------------------------------------------------------------------------
# The skill
# --------------------------------------------------------------------------------------------


class SearchReferenceDocInput(StructureInput):
    """Input of search_reference_doc."""

    query: str | None = Field(
        None,
        description="What to look for, in English or Chinese (e.g. 'tests on completion', "
        "'误期赔偿金'). Omit to search with the current clause's title and text.",
    )
    top_k: int = Field(5, ge=1, le=50, description="Most passages returned.")
    document_id: str | None = Field(
        None, description="Search only this reference document (its id); omit to search all."
    )
    clause_id: str = Field(
        "",
        description="Contract clause whose title and text form the query when no query is given.",
    )
    reference_documents: list[TaskDocument] = Field(
        default_factory=list, description="Reference documents (filled in by the system)."
    )


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


class SearchReferenceDocOutput(BaseModel):
    """Output of search_reference_doc."""

    query: str = Field(description="The query searched (cut when taken from a clause).")
    query_terms: list[str] = Field(
        description="Terms searched for, as written in the query (first 50)."
    )
    expanded_terms: list[str] = Field(description="Synonyms added to the query terms (first 50).")
    documents_searched: list[str] = Field(description="Ids of the reference documents searched.")
    passages: list[ReferencePassage] = Field(
        description="Best passages first; empty when nothing matches."
    )


DESCRIPTION = (
    "Search the review's reference documents (e.g. Employer's Requirements, technical "
    "specifications, 发包人要求/技术要求) for the passages most relevant to a query, ranked by "
    "BM25 with legal synonyms (违约金 ~ 误期赔偿金, retention ~ 质量保证金). Returns each "
    "passage's document, clause id, title, verbatim text (cut to 800 characters), score and the "
    "terms it matched. Call it to check what the reference documents require on a topic the "
    "contract clause deals with (standards, tests, guarantees, site data, payment, delay). "
    "Arguments: query (words or a phrase, English or Chinese; omit to search with the current "
    "clause's text), top_k (default 5), document_id (optional, to search one document)."
)


def prepare_input(
    clause_id: str, primary_structure: DocumentStructure | None, state: SkillState
) -> SearchReferenceDocInput:
    """Input searching the reference documents of the review with `clause_id`'s text."""
    context = ReviewContext.from_state(state)
    return SearchReferenceDocInput(
        clause_id=clause_id,
        document_structure=primary_structure,
        reference_documents=context.with_role(DocumentRole.REFERENCE),
    )


def _default_query(inp: SearchReferenceDocInput) -> tuple[str, list[Term], list[Term]]:
    """Query text, title terms and body terms of the current clause."""
    if not inp.clause_id:
        raise SkillError("give a query, or a clause_id whose text to search with")
    clause = require_clause(inp.document_structure, inp.clause_id)
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


def handle(inp: SearchReferenceDocInput) -> SearchReferenceDocOutput:
    """Rank the reference passages for the query."""
    docs = inp.reference_documents
    if not docs:
        raise SkillError("no reference documents in this review")
    if inp.document_id is not None:
        docs = [d for d in docs if d.document_id == inp.document_id]
        if not docs:
            known = ", ".join(d.document_id for d in inp.reference_documents)
            raise SkillError(
                f"no reference document '{inp.document_id}'; reference documents: {known}"
            )
    parsed = [d for d in docs if d.structure is not None]
    if not parsed:
        raise SkillError("the reference documents of this review have not been parsed")

    if inp.query is None:
        query, title_terms, body_terms = _default_query(inp)
    else:
        query = inp.query.strip()
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
    for doc_no, doc in enumerate(parsed):
        assert doc.structure is not None
        index = _index_for(doc.document_id, doc.structure)
        indexes.append((doc, index))
        if index.bm25 is None:
            continue
        weighted = [(t.token, w) for w, terms in groups for t in terms if t.token in index.vocab]
        scores = _weighted_scores(index.bm25, weighted)
        found = np.flatnonzero(scores > 0)
        if len(found) > inp.top_k:
            found = found[np.argpartition(-scores[found], inp.top_k - 1)[: inp.top_k]]
        hits.extend((float(scores[i]), doc_no, int(i)) for i in found)
    hits.sort(key=lambda h: (-h[0], h[1], h[2]))

    passages = []
    for score, doc_no, i in hits[: inp.top_k]:
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
    return SearchReferenceDocOutput(
        query=query[:_QUERY_SHOWN],
        query_terms=list(dict.fromkeys(t.surface for t in title_terms + body_terms))[:_SHOWN],
        expanded_terms=list(dict.fromkeys(t.surface for t in expanded))[:_SHOWN],
        documents_searched=[d.document_id for d in parsed],
        passages=passages,
    )


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Search reference documents",
    description=DESCRIPTION,
    input_schema=SearchReferenceDocInput,
    output_schema=SearchReferenceDocOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="*",
    category="retrieval",
)
