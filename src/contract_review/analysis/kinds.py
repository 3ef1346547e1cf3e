"""What kind of contract a document is — licence, lease, loan, supply, sponsorship, FIDIC
construction, share purchase … — in English and Chinese, with a confidence and the evidence.

Three signals, each weighed by how much it says (`kinds.yaml` holds the words and weights):

- the document's own title: its heading lines and the name it gives itself ("This Software
  Licence Agreement", "房屋租赁合同");
- the roles its parties are given (Licensor/Licensee, Franchisor, Landlord/Tenant,
  出租方/承租方, 甲方（委托方）…), from `parties.find_parties` or, failing that, role words
  the text uses as names;
- characteristic operative terms ('royalty' and 'licensed patents' for a licence; 'rent' and
  'premises' for a lease; 'events of default' and 'the facility' for a loan).

A title is strong but not the last word: a 'Services Agreement' whose text lends money, with
a Lender and a Borrower, is a loan. Several kinds may apply (a licence with development
work): `detect_kinds` ranks them, the first is the main kind. The file name is never used.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from contract_review.analysis.cache import parties_of, per_structure
from contract_review.errors import InputError
from contract_review.models import ClauseKind, DocumentStructure, KindEvidence, KindMatch
from contract_review.parties import Party
from contract_review.playbook.parse import read_yaml
from contract_review.text.literals import GatedPattern, fold

__all__ = [
    "check_kind",
    "detect_kinds",
    "given_kind",
    "kind_ids",
    "kind_name",
    "main_kind",
    "main_kind_of",
]


@dataclass(frozen=True, slots=True)
class _Kind:
    id: str
    en: str
    zh: str
    title: tuple[re.Pattern[str], ...]
    roles: frozenset[str]
    """Role words, casefolded."""
    role_words: tuple[str, ...]
    terms: tuple[tuple[re.Pattern[str], float], ...]
    dense: tuple[re.Pattern[str], ...]
    yields_to: frozenset[str] | None
    """Kinds its title word yields to when the title names them too ('Manufacturing and
    Supply': supply yields to manufacturing); None: to every kind (a generic word such as
    'services' in 'Logistics Services Agreement')."""


@dataclass(frozen=True, slots=True)
class _Table:
    kinds: tuple[_Kind, ...]
    weights: dict[str, float]


def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


@cache
def _table() -> _Table:
    """The kind table, read from the packaged YAML the first time a kind is asked for (the
    command line starts without it)."""
    data = read_yaml(Path(__file__).with_name("kinds.yaml").read_text("utf-8"))
    kinds = tuple(
        _Kind(
            id=k["id"],
            en=k["en"],
            zh=k["zh"],
            title=tuple(_compile(p) for p in k["title"]),
            roles=frozenset(r.casefold() for r in k.get("roles") or ()),
            role_words=tuple(k.get("roles") or ()),
            terms=tuple((_compile(p), float(w)) for p, w in k.get("terms") or ()),
            dense=tuple(_compile(p) for p in k.get("dense") or ()),
            yields_to=None if k.get("yields_to") == "all" else frozenset(k.get("yields_to") or ()),
        )
        for k in data["kinds"]
    )
    return _Table(kinds=kinds, weights={k: float(v) for k, v in data["weights"].items()})


def kind_ids() -> tuple[str, ...]:
    """Every kind's id, in the table's order."""
    return tuple(k.id for k in _table().kinds)


def _kind(kind_id: str) -> _Kind | None:
    return next((k for k in _table().kinds if k.id == kind_id), None)


def kind_name(kind_id: str, language: str = "en") -> str:
    """The kind's name in `language` ('en' or 'zh…'); an unknown id as given."""
    kind = _kind(kind_id)
    if kind is None:
        return kind_id
    return kind.zh if language.lower().startswith("zh") else kind.en


def check_kind(kind_id: str) -> None:
    """An InputError (one line, listing the kinds) unless `kind_id` is a known kind."""
    if _kind(kind_id) is None:
        raise InputError(f"--kind {kind_id} is not a known kind (choose: {', '.join(kind_ids())})")


def given_kind(kind_id: str) -> KindMatch:
    """The kind chosen by the user (`--kind`), as the main kind, sure."""
    kind = _kind(kind_id)
    if kind is None:
        check_kind(kind_id)  # raises: an unknown kind, one line listing the kinds
        raise InputError(f"--kind {kind_id} is not a known kind")
    evidence = [KindEvidence(source="given", words=kind_id)]
    return KindMatch(kind=kind.id, name=kind.en, name_zh=kind.zh, confidence=1.0, evidence=evidence)


def main_kind(matches: Sequence[KindMatch]) -> KindMatch | None:
    """The main kind of a ranked list (the first), or None."""
    return matches[0] if matches else None


# --------------------------------------------------------------------------------------------
# The title
# --------------------------------------------------------------------------------------------

_SEGMENT = re.compile(r"\n|\s{3,}")
"""Heading lines; filings flattened to one line keep them apart with runs of spaces."""
_OPENING = re.compile(
    r"\bby and (?:between|among)\b|\bmade and entered\b|\bis (?:made|entered)\b|\bentered into\b"
    r"|\bWHEREAS\b|\bRECITALS?\b|\bdated (?:as of )?\w|\bbetween\b|以下简称|鉴于|根据《|经友好协商"
    r"|双方|^\s*(?:甲方|乙方|出租方|承租方|委托方|受托方)",
    re.IGNORECASE,
)
"""Where the title ends and the preamble begins."""
_SELF_NAME = re.compile(
    r"\b[Tt]his\s+((?:[A-Z][\w&'’\-]*,?\s+(?:(?:and|of|for|&)\s+)?){1,8})(?:Agreement|Contract)\b"
    r"|\bTHIS\s+((?:[A-Z][A-Z&'’\-]*,?\s+(?:(?:AND|OF|FOR|&)\s+)?){1,8})(?:AGREEMENT|CONTRACT)\b"
)
"""The name an agreement gives itself: 'This Strategic Collaboration Agreement'."""
_CAPS_RUN = re.compile(r"[A-Z][A-Z0-9&'’\-]*(?:[ ,]+(?:[A-Z0-9&'’\-]+|\(\w+\)))+")
"""A run of capitalised words: a heading inside a flattened line."""
_DOC_WORD = re.compile(
    r"\b(?:AGREEMENTS?|(?:SUB)?CONTRACTS?|LEASE|GUARANT\w*|DEED|LETTER|TERMS|NOTE|ADDENDUM"
    r"|AMENDMENT|ORDER|CONDITIONS|UNDERTAKING|MEMORANDUM)\b"
    r"|合同|协议|契约",
    re.IGNORECASE,
)
"""A word that names a document."""
_BARE_DOC_WORD = re.compile(r"\s*(?:AGREEMENT|CONTRACT|合同|协议)\s*", re.IGNORECASE)
_NUMBERED = re.compile(
    r"(?:\d+(?:\.\d+)*\.?|(?:article|section|clause)\s+\w+|第.{1,4}[条章])\s", re.I
)
_KEY_VALUE = re.compile(r"^[^:：]{1,30}[:：]\s*\S")
"""'Date: 14 March 2025', '合同编号：…': a field, not a title."""
_REFERRED = re.compile(
    r"\b(?:(?:attachment|exhibit|schedule|annex|appendix|addendum)\s+[\w.]{1,6}\s+)?"
    r"(?:to|of|under|for)\s+((?:the\s+)?(?:[\w&'’\-]+\s+){0,6}(?:agreement|contract))\b",
    re.IGNORECASE,
)
_SELF_WORDS = frozenset({"amended", "restated", "the", "master", "first", "second", "agreement"})


def _title(text: str) -> str:
    """The document's title: its short heading lines before the preamble (in a filing
    flattened to one line, the runs of capitals that name a document), and the name it gives
    itself in its opening ('This Trademark License Agreement'). Lines that name a document
    ('… Agreement', '…合同') are the title when there are any: a cover page's party names and
    addresses are not."""
    lines: list[str] = []
    for segment in _SEGMENT.split(text[:2500]):
        piece = segment.strip()
        if not piece:
            continue
        titled = any(_DOC_WORD.search(line) for line in lines)
        if titled and _NUMBERED.match(piece):
            break  # the first clause: the title is behind us
        cut = _OPENING.search(piece)
        head = piece[: cut.start()].strip() if cut is not None else piece
        if len(head) <= 120 and not _KEY_VALUE.search(head):
            lines.append(head)
        else:
            runs = [m.group(0)[:120] for m in _CAPS_RUN.finditer(head)]
            headings = [r for r in runs if _DOC_WORD.search(r)]
            lines.extend(headings)
            if not headings and titled:
                break  # prose after a title
        preamble = cut is not None and any(_DOC_WORD.search(line) for line in lines)
        if preamble or len(lines) >= 12:
            break
    # 'CONSTRUCTION AND MAINTENANCE' over 'AGREEMENT': a title broken over two lines
    for n in range(len(lines) - 1, 0, -1):
        if _BARE_DOC_WORD.fullmatch(lines[n]):
            lines[n - 1 : n + 1] = [f"{lines[n - 1]} {lines[n]}"]
    documents = [line for line in lines if _DOC_WORD.search(line)]
    lines = documents or lines
    self_name = _SELF_NAME.search(text[:4000])
    if self_name is not None:
        words = (self_name.group(1) or self_name.group(2) or "").strip()
        if words.casefold() not in _SELF_WORDS:
            lines.append(words)
    return "\n".join(line for line in lines if line)


def _referred(title: str) -> list[tuple[int, int]]:
    """Spans of the title that name another agreement ('Attachment B to Master Franchise
    Agreement', 'Guarantees of Master Franchise Agreement'): a kind named there counts less."""
    return [m.span(1) for m in _REFERRED.finditer(title)]


# --------------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------------


@dataclass
class _Score:
    kind: _Kind
    total: float = 0.0
    evidence: list[KindEvidence] | None = None

    def add(self, source: str, words: str, weight: float, count: int = 1) -> None:
        if weight <= 0:
            return
        self.total += weight
        if self.evidence is None:
            self.evidence = []
        self.evidence.append(
            KindEvidence(source=source, words=words, count=count, weight=round(weight, 2))
        )


_READ = 40_000
"""Characters of the body read for terms (a quarter of that of the schedules): the kind shows
in the first pages, and a 300 KB filing would otherwise cost a second."""


def _lead_title(score: _Score, weight: float) -> None:
    """Raise the title evidence of the kind the title names first."""
    score.total += weight
    evidence = score.evidence or []
    for n, e in enumerate(evidence):
        if e.source == "title":
            evidence[n] = e.model_copy(update={"weight": round(e.weight + weight, 2)})
            return


def _texts(structure: DocumentStructure) -> tuple[str, str]:
    """The document's body (preamble and clauses) and its schedules, as text."""
    body = [c.text for c in structure.clauses if c.kind is not ClauseKind.ANNEX]
    annex = [c.text for c in structure.clauses if c.kind is ClauseKind.ANNEX]
    return "\n".join(body)[:_READ], "\n".join(annex)[: _READ // 4]


def _repeat(count: int) -> float:
    """What `count` occurrences of a term are worth against one: more says more, with a
    ceiling (a long contract repeats its words)."""
    return min(1.0 + math.log2(count), 4.0) if count > 0 else 0.0


def _label_words(parties: Iterable[Party]) -> dict[str, str]:
    """Every party label, casefolded (without a leading 'the'), → as written."""
    words: dict[str, str] = {}
    for party in parties:
        for label in party.labels:
            clean = re.sub(r"^the\s+", "", label.strip(), flags=re.IGNORECASE)
            words.setdefault(clean.casefold(), clean)
            # '甲方（委托方）': the role in brackets is a label too
            for inner in re.findall(r"[（(]([^）)]{1,12})[）)]", clean):
                words.setdefault(inner.casefold(), inner)
    return words


def _role_in_text(word: str, text: str, folded: str) -> int:
    """How often a role word is used as a name in the text: capitalised in English (`folded`:
    the text lower-cased, to skip the search when the word is nowhere)."""
    if re.search(r"[\u4e00-\u9fff]", word):
        return text.count(word)
    if word.casefold() not in folded:
        return 0
    return len(re.findall(rf"\b{re.escape(word)}\b", text))


@cache
def _gated(pattern: re.Pattern[str]) -> GatedPattern:
    """A term pattern with its literal pre-filter: most kinds' terms are absent from a given
    contract, and a substring test says so without running the pattern over 80 KB."""
    return GatedPattern.of(pattern)


def _findall(pattern: re.Pattern[str], text: str, folded: str) -> list[str]:
    return pattern.findall(text) if _gated(pattern).may_match(folded) else []


def _score(
    kind: _Kind,
    title: str,
    labels: dict[str, str],
    texts: tuple[str, str, str, str],
    w: dict[str, float],
    generic: bool,
) -> _Score:
    """The kind's score: title, roles and terms. `generic`: the title names the kind only by
    a word other kinds' titles qualify ('Logistics Services Agreement')."""
    body, annex, body_folded, annex_folded = texts
    score = _Score(kind)
    hits = [m for p in kind.title for m in p.finditer(title)]
    if hits:
        referred = _referred(title)
        own = [m for m in hits if not any(a <= m.start() < b for a, b in referred)]
        best = min(own or hits, key=lambda m: m.start())
        weight = w["title"] if own else w["title"] * w["title_referred"]
        score.add("title", best.group(0), weight * (w["title_generic"] if generic else 1.0))
    named = sorted({labels[word] for word in kind.roles if word in labels})
    if named:
        score.add("role", ", ".join(named), w["role"] * (1.0 + 0.5 * (len(named) - 1)))
    else:
        used = [(r, n) for r in kind.role_words if (n := _role_in_text(r, body, body_folded)) >= 3]
        if used:
            word, count = max(used, key=lambda u: u[1])
            score.add("role", word, w["role_text"], count)
    terms: list[tuple[str, float, int]] = []
    for pattern, weight in kind.terms:
        found = _findall(pattern, body, body_folded)
        if found:
            terms.append((_shown(pattern, body), weight * _repeat(len(found)), len(found)))
            continue
        later = _findall(pattern, annex, annex_folded)
        if later:
            weighed = weight * _repeat(len(later)) * w["annex"]
            terms.append((_shown(pattern, annex), weighed, len(later)))
    # Terms saturate: many of one kind's words say it is that kind, not that it outweighs
    # a title and roles that say otherwise.
    raw = sum(t[1] for t in terms)
    if raw > 0:
        scale = w["term_cap"] * (1.0 - math.exp(-raw / w["term_cap"])) / raw
        for words, weight, count in terms:
            score.add("term", words, weight * scale, count)
    for pattern in kind.dense:
        per_k = len(_findall(pattern, body, body_folded)) * 1000 / max(len(body), 1)
        share = min(max((per_k - 1.0) / 2.0, 0.0), 1.0)
        if share > 0:
            score.add(
                "term", f"{pattern.pattern.split('|')[0]} ({per_k:.1f}/1000 chars)", 6 * share
            )
    return score


def _shown(pattern: re.Pattern[str], text: str) -> str:
    """The words a pattern first matched, as written."""
    m = pattern.search(text)
    return " ".join(m.group(0).split()) if m else pattern.pattern


def _yields(kind: _Kind, others: set[str]) -> bool:
    """Whether `kind`'s title word yields to another kind the title names."""
    if kind.yields_to is None:
        return bool(others)
    return bool(kind.yields_to & others)


def detect_kinds(
    structure: DocumentStructure, parties: Sequence[Party] | None = None
) -> list[KindMatch]:
    """The kinds `structure` is, ranked, the main kind first; empty when nothing says enough.
    `parties`, when given, are those `find_parties(structure)` found already. Read once per
    document (the missing-protection checks and the outputs both ask)."""
    if parties is None:
        return [k.model_copy() for k in _detected(structure)]
    return _detect(structure, parties)


def main_kind_of(structure: DocumentStructure | None) -> str | None:
    """The id of the contract's main kind as detected, None when nothing says enough."""
    if structure is None:
        return None
    found = _detected(structure)
    return found[0].kind if found else None


@per_structure()
def _detected(structure: DocumentStructure) -> list[KindMatch]:
    return _detect(structure, parties_of(structure))


def _detect(structure: DocumentStructure, parties: Sequence[Party]) -> list[KindMatch]:
    table = _table()
    w = table.weights
    body, annex = _texts(structure)
    title = _title(body)
    labels = _label_words(parties)
    named = {k.id for k in table.kinds if any(p.search(title) for p in k.title)}
    texts = (body, annex, fold(body), fold(annex))
    scores = [_score(k, title, labels, texts, w, _yields(k, named - {k.id})) for k in table.kinds]
    # The kind the title names first leads when the title names several.
    referred = _referred(title)
    leads = [
        (m.start(), s)
        for s in scores
        for p in s.kind.title
        for m in p.finditer(title)
        if not any(a <= m.start() < b for a, b in referred)
    ]
    if leads:
        _lead_title(min(leads, key=lambda t: t[0])[1], w["title_lead"])
    ranked = sorted((s for s in scores if s.total > 0), key=lambda s: -s.total)
    if not ranked or ranked[0].total < w["min_score"]:
        return []
    top = ranked[0].total
    second = ranked[1].total if len(ranked) > 1 else 0.0
    margin = (top - second) / top
    out: list[KindMatch] = []
    for n, s in enumerate(ranked):
        strength = 1.0 - math.exp(-s.total / 12.0)
        if n == 0:
            confidence = strength * (0.6 + 0.4 * margin)
        else:
            confidence = out[0].confidence * s.total / top
            if s.total < w["also_ratio"] * top or confidence < w["also_confidence"]:
                break
        evidence = sorted(s.evidence or [], key=lambda e: -e.weight)[:8]
        out.append(
            KindMatch(
                kind=s.kind.id,
                name=s.kind.en,
                name_zh=s.kind.zh,
                confidence=round(confidence, 2),
                score=round(s.total, 2),
                evidence=evidence,
            )
        )
    return out
