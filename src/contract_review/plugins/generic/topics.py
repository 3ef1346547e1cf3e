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
from pathlib import Path
from typing import Any

from contract_review.analysis.cache import per_structure
from contract_review.models import (
    ClauseKind,
    ClauseNode,
    DocumentStructure,
    Priority,
    ReviewChecklistItem,
)
from contract_review.playbook.parse import read_yaml
from contract_review.text import has_cjk
from contract_review.text.literals import GatedPattern, fold

__all__ = [
    "CUAD_TOPICS",
    "TOPICS",
    "Topic",
    "TopicMatch",
    "build_generic_checklist",
    "detect_topics",
    "get_topic",
    "load_topics",
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
    def forced(self) -> bool:
        """Whether a rule of the topic counts even in a vetoed sentence."""
        return any(r.force for r in self.rules)

    @cached_property
    def gated_rules(self) -> tuple[GatedPattern, ...]:
        """The rules' patterns, each with its literal pre-filter (`text.literals`)."""
        return tuple(GatedPattern.of(r.pattern) for r in self.rules)

    @cached_property
    def gated_negatives(self) -> tuple[GatedPattern, ...]:
        """The negative patterns, each with its literal pre-filter."""
        return tuple(GatedPattern.of(n) for n in self.negatives)

    @cached_property
    def gated_context(self) -> GatedPattern | None:
        """The context pattern with its literal pre-filter."""
        return GatedPattern.of(self.context) if self.context is not None else None


_CONTEXT_SKILL = "get_clause_context"
"""What a clause no topic reached is reviewed with."""


class _TopicError(ValueError):
    """The packaged catalogue is malformed (a bug in the data file, found at import)."""


def _patterns(entry: dict[str, Any], key: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, _FLAGS) for p in entry.get(key) or ())


def _topic(entry: dict[str, Any]) -> Topic:
    """One catalogue entry as a `Topic`, its patterns compiled once."""
    try:
        context = entry.get("context")
        return Topic(
            topic_id=str(entry["id"]),
            name=str(entry["name"]),
            priority=Priority(entry["priority"]),
            skills=tuple(entry.get("skills") or ()),
            description=str(entry.get("description", "")),
            vocab=tuple(str(w).lower() for w in entry.get("vocab") or ()),
            titles=_patterns(entry, "titles"),
            rules=tuple(
                Rule(re.compile(r["pattern"], _FLAGS), float(r["weight"]), bool(r.get("force")))
                for r in entry["rules"]
            ),
            negatives=_patterns(entry, "negatives"),
            negated_vocab=tuple(entry.get("negated_vocab") or ()),
            context=re.compile(context, _FLAGS) if context else None,
            title_support=float(entry.get("title_support", 1.0)),
            threshold=float(entry.get("threshold", 3.0)),
            max_matches=int(entry.get("max_matches", 3)),
        )
    except (KeyError, TypeError, ValueError, re.error) as exc:
        raise _TopicError(f"topics.yaml, topic {entry.get('id')!r}: {exc}") from exc


def load_topics(path: Path) -> tuple[Topic, ...]:
    """The topics of a catalogue file in the format of `topics.yaml`."""
    data = read_yaml(path.read_text(encoding="utf-8"))
    return tuple(_topic(entry) for entry in data["topics"])


TOPICS: tuple[Topic, ...] = load_topics(Path(__file__).with_name("topics.yaml"))
"""The topic catalogue (`topics.yaml`), in a stable order."""

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
    parts: tuple[str, ...] = ()
    """For a clause that stands for the topic in all its sub-clauses ('12. Insurance'), the
    sub-clauses whose own words carry it: where the topic is written, for a reader or an
    inventory that points at the exact clause."""


_WS = re.compile(r"\s+")
_SURVIVAL = re.compile(
    r"\bsurviv\w*\b.{0,80}\b(?:termination|expiration|expiry)|(?:termination|expiration|expiry)\b.{0,80}"
    r"\bsurviv|(?:termination|expiration|expiry)\b.{0,120}\bshall not (?:relieve|affect|release|prejudice)|"
    r"continue in full force and effect",
    _FLAGS,
)
"""Survival clauses list other clauses by name; they are no evidence of those topics."""
_SURVIVAL_GATED = GatedPattern.of(_SURVIVAL)
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
_SHORT_ZH = 15
"""Shortest substantive clause, in characters: Chinese says in 15 what English says in 40."""
"""Clauses shorter than this get no generic checklist item."""


@dataclass
class _Scan:
    """A clause prepared for matching."""

    node: ClauseNode
    ancestors: tuple[str, ...]
    own_lower: str
    """The clause's own text (`_own_text`, whitespace normalised), lower case; the text itself
    is not kept (a large contract's scan would hold it once more)."""
    sentences: list[tuple[str, str]] = field(default_factory=list)
    """(sentence, its lower-case form) of the own text."""
    is_definition: bool = False
    in_annex: bool = False

    @property
    def body(self) -> str:
        """The clause text after its heading (read only for a clause whose title names a
        topic: not kept, it would hold every clause's text once more)."""
        return self.node.body


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
    """The sentences of `text`, each with its `fold` (the vocabulary and the literal
    pre-filters are tested on it)."""
    return [(s, fold(s)) for s in _SENTENCE_SPLIT.split(text) if s.strip()]


_NEGATION = re.compile(r"\bnot\b|n't\b")


def _contains_any(text: str, words: tuple[str, ...]) -> bool:
    # `map` over the bound test: called for every clause and sentence per topic, where a
    # generator's own steps cost as much as the substring tests.
    return any(map(text.__contains__, words))


def _has_vocab(topic: Topic, lower: str) -> bool:
    if _contains_any(lower, topic.vocab):
        return True
    return (
        bool(topic.negated_vocab)
        and _contains_any(lower, topic.negated_vocab)
        and bool(_NEGATION.search(lower))
    )


@per_structure()
def _scan(structure: DocumentStructure) -> list[_Scan]:
    """Every clause once, split into sentences (read by every topic: computed once per
    document)."""
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
                    own_lower=own.lower(),
                    sentences=_sentences(own),
                    is_definition=is_def,
                    in_annex=annex,
                )
            )
            walk(node.children, (*ancestors, node.clause_id), in_defs or defs_title, annex)

    walk(structure.clauses, (), False, False)
    return out


def _score_sentences(
    topic: Topic, sentences: list[tuple[str, str]], *, gated: bool = True
) -> tuple[float, str]:
    """Sum of the weights of the distinct rules found in non-vetoed sentences (`gated`: only
    sentences in the topic's context count)."""
    matched: set[int] = set()
    best_sentence = ""
    best_weight = 0.0
    rules, gates = topic.rules, topic.gated_rules
    context = topic.gated_context if gated else None
    for sentence, folded in sentences:
        if not _has_vocab(topic, folded):
            continue
        # The rules' literal tests before any regex (the context's included): most sentences
        # hold the topic's words but none of its rules' literals.
        live = [i for i, gate in enumerate(gates) if gate.may_match(folded)]
        if not live:
            continue
        if context is not None and not context.search(sentence, folded):
            continue
        hits = [i for i in live if gates[i].pattern.search(sentence)]
        if not hits:
            continue
        if _SURVIVAL_GATED.search(sentence, folded):
            continue  # a list of surviving clauses names topics without holding them
        if any(n.search(sentence, folded) for n in topic.gated_negatives):
            if not topic.forced:
                continue
            hits = [i for i in hits if rules[i].force]
        weight = sum(rules[i].weight for i in hits)
        matched.update(hits)
        if weight > best_weight:
            best_weight, best_sentence = weight, sentence
    score = sum(topic.rules[i].weight for i in matched)
    return score, best_sentence[:200]


def topics_anywhere(
    structure: DocumentStructure, topics: tuple[Topic, ...] = TOPICS
) -> frozenset[str]:
    """The topics (ids and names, lower case) a document deals with somewhere: a clause titled
    for one, or a clause whose own sentences reach the topic's threshold — wherever it sits,
    whether or not the checklist gave it the topic (a clause opening with a definition
    included), and without the topic's context gate ('Agreement shall be governed by … the
    laws of the State of New York' where a layout lost the 'This'). Read before calling a
    protection missing: a false absence costs more than a missed one."""
    scans = _scan(structure)
    found: set[str] = set()
    for topic in topics:
        if any(_title_hit(topic, sc.node.title) for sc in scans) or any(
            _score_sentences(topic, sc.sentences, gated=False)[0] >= topic.threshold for sc in scans
        ):
            found.update((topic.topic_id.casefold(), topic.name.casefold()))
    return frozenset(found)


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
        if not sc.is_definition and sc.own_lower and _has_vocab(topic, sc.own_lower):
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
    best_below: dict[str, float] = {}  # the best score among each clause's sub-clauses
    for o in cands:
        for a in o.scan.ancestors:
            if a not in best_below or o.score > best_below[a]:
                best_below[a] = o.score
    for c in kept:
        if c.covers:  # a clause standing for its sub-clauses is as strong as the best of them
            cid = c.scan.node.clause_id
            c.score = max(c.score, best_below.get(cid, c.score))
    # Schedules often hold ancillary instruments (a note, a bill of sale): the main body first.
    kept.sort(key=lambda c: (c.scan.in_annex, -c.score, c.scan.node.start_offset))
    kept = kept[: topic.max_matches]
    kept.sort(key=lambda c: c.scan.node.start_offset)
    return kept


def detect_topics(
    structure: DocumentStructure, topics: tuple[Topic, ...] = TOPICS
) -> list[TopicMatch]:
    """The clauses holding each topic, in document order (a clause may hold several topics).

    Each topic is read once per document: the checklist and the inventory share the matches."""
    memo = _matches_by_topic(structure)
    matches: list[TopicMatch] = []
    for topic in topics:
        found = memo.get(topic)
        if found is None:
            found = memo[topic] = _topic_matches(structure, topic)
        matches.extend(found)
    order = {t.topic_id: i for i, t in enumerate(topics)}
    matches.sort(key=lambda m: (m.start_offset, -m.end_offset, order[m.topic_id]))
    return matches


@per_structure()
def _matches_by_topic(structure: DocumentStructure) -> dict[Topic, tuple[TopicMatch, ...]]:
    """The matches found so far in a document, per topic (filled by `detect_topics`)."""
    return {}


def _topic_matches(structure: DocumentStructure, topic: Topic) -> tuple[TopicMatch, ...]:
    scans = _scan(structure)
    by_id = {sc.node.clause_id: sc for sc in scans}
    cands = _candidates(topic, scans)
    parts_of: dict[str, list[str]] = {}  # the sub-clauses with a score of their own, by clause
    for o in cands:
        if o.own_score > 0:
            for a in o.scan.ancestors:
                parts_of.setdefault(a, []).append(o.scan.node.clause_id)
    out = []
    for c in _select(topic, cands, by_id):
        node = c.scan.node
        parts = tuple(parts_of.get(node.clause_id, ()))
        out.append(
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
                parts=parts,
            )
        )
    return tuple(out)


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
            short = _SHORT_ZH if has_cjk(node.text) else _SHORT
            if len(node.text.strip()) < short or _is_definitions_only(node):
                continue
            out.append(
                (
                    node.start_offset,
                    ReviewChecklistItem(
                        clause_id=node.clause_id,
                        clause_name=node.title,
                        priority=Priority.LOW,
                        required_skills=[_CONTEXT_SKILL],
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
