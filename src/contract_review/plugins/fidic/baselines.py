"""Baseline positions of the FIDIC 2017 books (Red, Yellow, Silver), in our own words.

Every position is a short summary written by us of where the 2017 General Conditions leave a
point: clause numbers, titles, periods, percentages and which Party bears which risk. None of
it is FIDIC wording, and none of it replaces the licensed General Conditions: when the user
loads the licensed text as the BASELINE document, the comparison uses that text instead.

The positions are data (`playbook.yaml`, the FIDIC playbook): a position shared by the three
books names no subtype; where the books differ there is one position per book (or group). `NUMBERING_1999` maps 2017 sub-clause ids to the
1999 ids of the same subject, for contracts drafted on the 1999 books.
"""

from __future__ import annotations

from pathlib import Path

from contract_review.domains import Subtype
from contract_review.models import BaselinePosition
from contract_review.playbook import Playbook, packaged_playbook

__all__ = [
    "ALL_BOOKS",
    "BASELINES",
    "NUMBERING_1999",
    "PLAYBOOK",
    "RED",
    "SILVER",
    "YELLOW",
]

RED = Subtype.RED_BOOK.value
YELLOW = Subtype.YELLOW_BOOK.value
SILVER = Subtype.SILVER_BOOK.value
ALL_BOOKS: tuple[str, ...] = (SILVER, YELLOW, RED)

_BOOK_NAMES = {RED: "Red Book", YELLOW: "Yellow Book", SILVER: "Silver Book"}


PLAYBOOK: Playbook = packaged_playbook(Path(__file__).with_name("playbook.yaml"))
"""The FIDIC playbook (`playbook.yaml`): per key sub-clause, where the 2017 books leave it."""

BASELINES: list[BaselinePosition] = PLAYBOOK.baselines()
"""The positions as baselines, keyed by 2017 sub-clause id (book-specific ones by subtype)."""


NUMBERING_1999: dict[str, str] = {
    # Source: the clause structure of the FIDIC 1999 Red, Yellow and Silver Books compared
    # with the 2017 editions (facts: numbers only). The 2017 editions inserted Clause 21
    # (Disputes and Arbitration), swapped Insurance and Force Majeure (1999 Clause 18
    # Insurance / Clause 19 Force Majeure → 2017 Clause 19 / Clause 18 Exceptional Events),
    # moved Limitation of Liability from 17.6 to 1.15, inserted 8.4 Advance Warning (so 1999
    # 8.4-8.8 move up by one) and split the 1999 indemnity Sub-Clause 17.1 into 17.4 and
    # 17.5. Several 2017 ids may map to one 1999 id; the first listed wins when translating
    # back from 1999 numbering.
    "1": "1",
    "1.1": "1.1",
    "1.15": "17.6",
    "2.1": "2.1",
    "3.1": "3.1",
    "3.7": "3.5",
    "4.1": "4.1",
    "4.2": "4.2",
    "4.12": "4.12",
    "5.1": "5.1",
    "8.1": "8.1",
    "8.2": "8.2",
    "8.3": "8.3",
    "8.5": "8.4",
    "8.6": "8.5",
    "8.7": "8.6",
    "8.8": "8.7",
    "8.9": "8.8",
    "10.1": "10.1",
    "11.1": "11.1",
    "13.1": "13.1",
    "13.3": "13.3",
    "14.1": "14.1",
    "14.2": "14.2",
    "14.3": "14.3",
    "14.6": "14.6",
    "14.7": "14.7",
    "14.8": "14.8",
    "14.9": "14.9",
    "15.2": "15.2",
    "15.5": "15.5",
    "16.1": "16.1",
    "16.2": "16.2",
    "17": "17",
    "17.1": "17.2",
    "17.2": "17.3",
    "17.4": "17.1",
    "17.5": "17.1",
    "18": "19",
    "18.1": "19.1",
    "18.2": "19.2",
    "18.4": "19.4",
    "18.5": "19.6",
    "18.6": "19.7",
    "19": "18",
    "19.1": "18.1",
    "19.2": "18.2",
    "20": "20",
    "20.1": "20.1",
    "20.2": "20.1",
    "21": "20",
    "21.1": "20.2",
    "21.2": "20.3",
    "21.4": "20.4",
    "21.5": "20.5",
    "21.6": "20.6",
    "21.7": "20.7",
    "21.8": "20.8",
}
"""2017 clause / sub-clause id → id of the same subject in the 1999 books."""
