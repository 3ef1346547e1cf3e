"""What a review could not check: structure the parser could not read, no party, lost pages.

A review that found nothing in a contract it read as one undivided clause has not shown the
contract clean; the report says so under "what could not be checked", and its verdict does not
claim a clean bill (`exports.issues`).
"""

from __future__ import annotations

from collections.abc import Iterable

from contract_review.analysis.cache import parties_of
from contract_review.models import (
    ClauseNode,
    CoverageGap,
    DocumentStructure,
    GapKind,
    LoadedText,
)

ONE_CLAUSE_MIN_CHARS = 1_000
"""A text shorter than this (a one-paragraph letter) may fairly be one clause."""
DOMINANT_MIN_CHARS = 2_500
"""A clause's own text must be at least this long to count as swallowing the contract."""
DOMINANT_SHARE = 0.5
"""Share of the text above which one clause's own text hides the clauses inside it."""

STRUCTURE_GAPS = frozenset({GapKind.ONE_CLAUSE, GapKind.DOMINANT_CLAUSE})
"""The gaps that mean the clause-by-clause review could not tell the terms apart."""


def own_length(clause: ClauseNode) -> int:
    """Characters of the clause before its first sub-clause (all of it when it has none)."""
    end = clause.children[0].start_offset if clause.children else clause.end_offset
    return end - clause.start_offset


def structure_gaps(structure: DocumentStructure) -> list[CoverageGap]:
    """The structure failures of one parse: read as one clause, or one clause covering most
    of the text."""
    length = structure.text_length
    clauses = list(structure.iter_clauses())
    if not length:
        return []
    if len(clauses) <= 1:
        if length >= ONE_CLAUSE_MIN_CHARS:
            return [CoverageGap(kind=GapKind.ONE_CLAUSE, share=1.0)]
        return []
    widest = max(clauses, key=own_length)
    own = own_length(widest)
    share = own / length
    if own >= DOMINANT_MIN_CHARS and share > DOMINANT_SHARE:
        return [
            CoverageGap(
                kind=GapKind.DOMINANT_CLAUSE, clause_id=widest.clause_id, share=round(share, 2)
            )
        ]
    return []


def coverage_gaps(
    structure: DocumentStructure | None, content: LoadedText | None, *, neutral: bool = True
) -> list[CoverageGap]:
    """Everything about the primary contract that kept it from being checked in full; `neutral`:
    the review acts for nobody (a party named and accepted was found somewhere)."""
    gaps: list[CoverageGap] = []
    if structure is not None:
        gaps.extend(structure_gaps(structure))
        if neutral and not parties_of(structure):
            gaps.append(CoverageGap(kind=GapKind.NO_PARTY))
    if content is not None and content.unread_pages:
        gaps.append(CoverageGap(kind=GapKind.UNREAD_PAGES, pages=list(content.unread_pages)))
    return gaps


def structure_failed(gaps: Iterable[CoverageGap]) -> bool:
    """Whether the clauses could not be told apart (the review cannot vouch for the rest)."""
    return any(g.kind in STRUCTURE_GAPS for g in gaps)
