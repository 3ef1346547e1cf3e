"""Per-document caches (public: skills, plugins and the graph share them): skills run once per
clause, but some work depends only on the document."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import wraps
from typing import TypeVar

from contract_review.models import DocumentStructure

__all__ = ["per_structure"]

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

        @wraps(fn)
        def cached(structure: DocumentStructure) -> T:
            key = id(structure)
            with lock:
                hit = entries.get(key)
                if hit is not None and hit[0] is structure:
                    entries.move_to_end(key)
                    return hit[1]
            value = fn(structure)
            with lock:
                entries[key] = (structure, value)
                entries.move_to_end(key)
                while len(entries) > size:
                    entries.popitem(last=False)
            return value

        return cached

    return decorate
