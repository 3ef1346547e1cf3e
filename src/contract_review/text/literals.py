r"""Literal pre-filters for regular expressions.

A catalogue pattern is searched in thousands of sentences, and most of them cannot match: the
pattern needs words they do not hold. `required_literals` reads off a pattern's parse tree
groups of lower-case strings such that every match contains a string of each group
(`terminat\w+ (?:for convenience|at will)`: 'terminat', and 'for convenience' or 'at will');
`GatedPattern.search` tests those with `in` (far cheaper than a search) and searches only the
sentences that hold them. The filter
only ever skips texts the pattern cannot match, so results are the same as searching
everywhere; a pattern whose parse we cannot read gets no filter and is always searched.

The parse tree is the standard library's own (`re._parser`, the parser `re.compile` uses);
it is private, so anything unexpected in it means "no filter", never a wrong one.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["GatedPattern", "fold", "required_literals"]

_parser: Any = importlib.import_module("re._parser")

_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})
"""The only characters that IGNORECASE matches to an ASCII letter or digit although their
`lower()` does not contain it: İ, ı (to i) and ſ (to s)."""

_REPEATS = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})


def fold(text: str) -> str:
    """`text` lower-cased the way `GatedPattern.search` compares it with its literals."""
    return text.translate(_FOLD).lower()


def _literal(code: int) -> str | None:
    """The character as a literal's lower-case letter, or None when case folding could make
    the character match something its `lower()` does not show (cased non-ASCII letters)."""
    ch = chr(code)
    if ch.isascii() or ch.lower() == ch.upper() == ch:
        return ch.lower()
    return None


def _one_char(items: list[tuple[Any, Any]]) -> str | None:
    """A character class standing for one letter in either case (`[Ss]`), as that letter."""
    if not items or any(str(op) != "LITERAL" for op, _ in items):
        return None
    chars = {_literal(code) for _, code in items}
    if len(chars) == 1:
        return chars.pop()
    return None


def _best(groups: list[frozenset[str]]) -> frozenset[str]:
    """The most selective of several groups: the longest shortest string, then the fewest."""
    return max(groups, key=lambda strings: (min(len(s) for s in strings), -len(strings)))


def _required(sub: Iterable[tuple[Any, Any]]) -> list[frozenset[str]]:
    """Groups of strings such that every match of the sequence `sub` contains a string of
    each group (none: nothing is known to be required)."""
    groups: list[frozenset[str]] = []
    run: list[str] = []

    def end_run() -> None:
        if run:
            groups.append(frozenset({"".join(run)}))
            run.clear()

    for op, av in sub:
        name = str(op)
        char = None
        if name == "LITERAL":
            char = _literal(av)
        elif name == "IN":
            char = _one_char(av)
        if char is not None:
            run.append(char)
            continue
        end_run()  # anything else may stand between two literals: the run stops here
        if name == "SUBPATTERN":
            groups += _required(av[3])
        elif name == "ATOMIC_GROUP":
            groups += _required(av)
        elif name in _REPEATS and av[0] >= 1:
            groups += _required(av[2])
        elif name == "ASSERT":  # a positive lookaround's text is in the string too
            groups += _required(av[1])
        elif name == "BRANCH":  # one group per option, the options' best groups joined
            options = [_required(option) for option in av[1]]
            if options and all(options):
                groups.append(frozenset().union(*(_best(o) for o in options)))
    end_run()
    return groups


@lru_cache(maxsize=4096)
def required_literals(
    pattern: str, flags: int = re.IGNORECASE
) -> tuple[tuple[str, ...], ...] | None:
    """Groups of lower-case strings (compare with `fold(text)`) such that every match of
    `pattern` contains a string of each group, the most selective group first; None when
    nothing is known to be required (the pattern must then always be searched)."""
    try:
        groups = _required(_parser.parse(pattern, flags))
    except Exception:  # a private parser's surprise means "no filter"
        return None
    groups = [g for g in dict.fromkeys(groups) if "" not in g]
    if not groups:
        return None
    groups.sort(key=lambda g: (-min(len(s) for s in g), len(g)))
    return tuple(tuple(sorted(g)) for g in groups)


@dataclass(frozen=True, eq=False)
class GatedPattern:
    """A compiled pattern with its literal pre-filter."""

    pattern: re.Pattern[str]
    literals: tuple[tuple[str, ...], ...] | None
    """Groups of strings: every match contains one string of each (None: always searched)."""

    @classmethod
    def of(cls, pattern: re.Pattern[str]) -> GatedPattern:
        """`pattern` with its literals (an alternation's are the union of its options')."""
        return cls(pattern, required_literals(pattern.pattern, pattern.flags))

    def may_match(self, folded: str) -> bool:
        """Whether a text whose `fold` is `folded` can match at all."""
        if self.literals is None:
            return True
        # Plain loops: this runs for every sentence and pattern, and nested generators cost
        # twice as much as the substring tests themselves.
        for group in self.literals:
            for string in group:
                if string in folded:
                    break
            else:
                return False
        return True

    def search(self, text: str, folded: str) -> re.Match[str] | None:
        """`pattern.search(text)`, skipped when `folded` (`fold(text)`) cannot match."""
        if not self.may_match(folded):
            return None
        return self.pattern.search(text)
