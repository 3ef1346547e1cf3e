"""Per-document caches (public: analysis, skills, plugins and the graph share them): the
analysis runs once per clause, but some work depends only on the document."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import wraps
from typing import TypeVar, cast

from contract_review.models import DocumentStructure
from contract_review.parties import Party, find_parties

__all__ = ["parties_of", "per_structure"]

T = TypeVar("T")


def per_structure(
    size: int = 8,
) -> Callable[[Callable[[DocumentStructure], T]], Callable[[DocumentStructure], T]]:
    """Cache `fn(structure)` by the structure's identity (the models are not hashable).

    The cache holds the structure itself, so an id is never reused while its entry lives; it
    keeps at most `size` documents.
    """

    def decorate(fn: Callable[[DocumentStructure], T]) -> Callable[[DocumentStructure], T]:
        entries: OrderedDict[int, tuple[DocumentStructure, T]] = OrderedDict()
        lock = threading.Lock()
        computing: dict[int, threading.RLock] = {}

        def lookup(key: int, structure: DocumentStructure) -> tuple[bool, T | None]:
            with lock:
                hit = entries.get(key)
                if hit is not None and hit[0] is structure:
                    entries.move_to_end(key)
                    return True, hit[1]
            return False, None

        @wraps(fn)
        def cached(structure: DocumentStructure) -> T:
            structure = structure.basis  # a structure amended for verification shares these
            key = id(structure)
            found, value = lookup(key, structure)
            if found:
                return cast(T, value)
            with lock:
                key_lock = computing.setdefault(key, threading.RLock())
            # Clause branches ask for the same document at once: one computes, the others
            # wait for its result instead of computing it again beside it.
            with key_lock:
                found, value = lookup(key, structure)
                if found:
                    return cast(T, value)
                result = fn(structure)
                with lock:
                    entries[key] = (structure, result)
                    entries.move_to_end(key)
                    while len(entries) > size:
                        entries.popitem(last=False)
                    computing.pop(key, None)
            return result

        return cached

    return decorate


def parties_of(structure: DocumentStructure) -> list[Party]:
    """`find_parties(structure)`, read once per document: the coverage, the missing-protection
    checks, the kind and the neutral position checks all ask for them."""
    return _parties(structure)


_parties = per_structure()(find_parties)
