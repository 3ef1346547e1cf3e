"""Detect text in a contract that tries to instruct an AI reviewer (prompt injection).

`find_injections` returns the spans of such text, each widened to the whole sentence it sits
in, so the review can report the quote as an "embedded instruction" risk (and never obey it).
The patterns are data (`injection_patterns.yaml`): a short, documented list of
case-insensitive regexes in English and Chinese. Precision matters more than recall: ordinary
contract language such as "the Contractor shall ignore any instruction not given in writing"
or "承包商应遵守监理人的指示" must never fire, so every pattern needs a marker that only makes
sense when addressing a machine (previous/above instructions, an AI or model addressed with a
request about the review, a fake end of the document, a system prompt).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import resources

import yaml

from contract_review.analysis.cache import per_structure
from contract_review.models import DocumentStructure, ReviewChecklistItem
from contract_review.text import SEGMENT_END
from contract_review.text.literals import GatedPattern, fold
from contract_review.text.matching import MatchView, tag_runs

__all__ = [
    "INJECTION_PATTERNS",
    "document_injections",
    "find_injections",
    "injection_items",
    "injection_quotes",
]

_FLAGS = re.IGNORECASE
_PLACEHOLDER = re.compile(r"<(\w+)>")


def _load() -> tuple[tuple[tuple[str, re.Pattern[str]], ...], tuple[re.Pattern[str], ...]]:
    """The patterns and their gates, from `injection_patterns.yaml` (see its header)."""
    data = yaml.safe_load(
        resources.files(__package__).joinpath("injection_patterns.yaml").read_text("utf-8")
    )
    fragments: dict[str, str] = {}
    for name, alternatives in data["fragments"].items():
        fragments[name] = _PLACEHOLDER.sub(lambda m: fragments[m.group(1)], "|".join(alternatives))
        if len(alternatives) > 1:
            fragments[name] = f"(?:{fragments[name]})"
    patterns, gates = [], []
    for entry in data["patterns"]:
        source = "|".join(f"(?:{alt})" for alt in entry["any"])
        source = _PLACEHOLDER.sub(lambda m: fragments[m.group(1)], source)
        patterns.append((str(entry["label"]), re.compile(source, _FLAGS)))
        gates.append(re.compile(entry["gate"]))
    return tuple(patterns), tuple(gates)


INJECTION_PATTERNS, _GATES = _load()
"""(label, compiled regex) pairs used by `find_injections`, and the gate of each: words
without which the pattern cannot match, searched in the case-folded text first."""
_LITERALS = tuple(GatedPattern.of(pattern) for _label, pattern in INJECTION_PATTERNS)
"""Each pattern's literal pre-filter (`text.literals`): a text without the strings a pattern
needs is neither gated nor searched for it."""

# A sentence ends at 。！？；; and newline always, and at . ! ? when followed by whitespace
# or the end of the text (so "20.1" or "e.g" inside a sentence does not split it).
_SENTENCE_END = SEGMENT_END


def _sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen [start, end) to the whole sentence(s) it touches, terminator included."""
    sentence_start = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() >= start:
            break
        sentence_start = match.end()
    following = _SENTENCE_END.search(text, max(end, start))
    if following is None:
        sentence_end = len(text)
    elif following.group() == "\n":
        sentence_end = following.start()
    else:
        sentence_end = following.end()
    while sentence_start < start and text[sentence_start].isspace():
        sentence_start += 1
    while sentence_end > end and text[sentence_end - 1].isspace():
        sentence_end -= 1
    return sentence_start, sentence_end


_REACH = 600
"""The longest match a pattern may have: it is searched this far around what its gate found."""


def _regions(gate: re.Pattern[str], folded: str, size: int) -> list[tuple[int, int]]:
    """The stretches of a text (its lower case `folded`; empty: unknown) where a pattern whose
    gate is `gate` can match: around each gate hit, merged. Most contracts hold no gate word
    of most patterns, and the patterns, long alternations, are slow to try at every place."""
    if not folded:
        return [(0, size)]
    regions: list[tuple[int, int]] = []
    for hit in gate.finditer(folded):
        start, end = max(0, hit.start() - _REACH), min(size, hit.end() + _REACH)
        if regions and start <= regions[-1][1]:
            regions[-1] = (regions[-1][0], end)
        else:
            regions.append((start, end))
    return regions


def find_injections(text: str) -> list[tuple[int, int]]:
    """Spans (start, end) of `text` that try to instruct an AI, LLM, model or reviewer.

    The patterns read the text as a person sees it (`text.matching.MatchView`: look-alike
    letters, invisible characters, spaced letters and tag-character spelling folded away), and
    a run of invisible tag characters is such a span by itself. Each span is widened to the
    whole sentence it sits in (a sentence ends at . ! ? 。！？ ; ； or a newline); spans are
    sorted and non-overlapping, and neighbouring spans that only whitespace separates are
    merged into one. End offsets are exclusive and index `text`.
    """
    view = MatchView(text)
    seen = view.text
    raw: list[tuple[int, int]] = list(tag_runs(text))
    folded = fold(seen)
    if len(folded) != len(seen):  # a rare letter whose lower case is longer: no shortcuts
        folded = ""
    regions: dict[re.Pattern[str], list[tuple[int, int]]] = {}  # patterns share gates
    for literals, gate in zip(_LITERALS, _GATES, strict=True):
        if folded and not literals.may_match(folded):
            continue  # cheap test first: the gate's scan of the whole text is the cost
        if gate not in regions:
            regions[gate] = _regions(gate, folded, len(seen))
        for start, end in regions[gate]:
            for match in literals.pattern.finditer(seen, start, end):
                if match.end() > match.start():
                    raw.append(view.span(*_sentence_bounds(seen, match.start(), match.end())))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(raw):
        if merged and (start <= merged[-1][1] or not text[merged[-1][1] : start].strip()):
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def injection_quotes(text: str) -> list[str]:
    """The texts of the spans `find_injections` returns, in order."""
    return [text[start:end] for start, end in find_injections(text)]


@per_structure()
def document_injections(structure: DocumentStructure) -> list[tuple[int, int]]:
    """Absolute spans of text addressed to an AI in the whole document, found once: clause
    texts nest (a parent holds its sub-clauses), so scanning each item's clause would read
    the same text many times over."""
    return [
        (top.start_offset + start, top.start_offset + end)
        for top in structure.clauses
        for start, end in find_injections(top.text)
    ]


def injection_items(
    structure: DocumentStructure, items: Sequence[ReviewChecklistItem]
) -> list[ReviewChecklistItem]:
    """Checklist items for the clauses holding text addressed to an AI that no item reviews:
    such text is reported wherever it sits, not only in the clauses the plan picked."""
    covered = [
        (c.start_offset, c.start_offset + len(c.text))
        for item in items
        if (c := structure.get_clause(item.clause_id)) is not None
    ]
    extra: dict[str, ReviewChecklistItem] = {}
    for start, end in document_injections(structure):
        if any(a <= start and end <= b for a, b in covered):
            continue
        clause = structure.clause_at(start)
        if clause is None or clause.clause_id in extra:
            continue
        extra[clause.clause_id] = ReviewChecklistItem(
            clause_id=clause.clause_id,
            clause_name=clause.title,
            description="Text addressed to an AI reviewer",
        )
    return list(extra.values())
