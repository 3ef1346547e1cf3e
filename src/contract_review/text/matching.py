"""A view of a text for matching what it *says*, whatever its characters look like.

Text written to fool a matcher looks the same to a reader and different to a regex: letters
from other scripts that look Latin (Cyrillic "о", Greek "ο"), full-width or mathematical
letters, invisible zero-width and format characters inside words, an instruction spelled in
invisible Unicode tag characters, or letters spaced out ("I g n o r e"). `MatchView` folds all
of these away — NFKC, look-alikes to Latin, format characters dropped, tag characters decoded
to the ASCII they encode, spaced letters re-joined, a line break inside a sentence dropped —
and maps every span found in the view back to the original text.

The view is for matching only: it is never shown, and quotes are always cut from the original.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable

from contract_review.text import CJK_WIDE

__all__ = ["CONFUSABLES", "TAG_CHARACTERS", "MatchView", "spelled_in_tags", "tag_runs"]

CONFUSABLES: dict[str, str] = {
    # Cyrillic letters a reader takes for Latin ones.
    **dict(zip("аеорсхуіјѕԁһԛԝӏ", "aeopcxyijsdhqwl", strict=True)),
    **dict(zip("АВЕКМНОРСТХУІЈЅ", "ABEKMHOPCTXYIJS", strict=True)),
    # Greek.
    **dict(zip("αβεικνορτυχ", "aBeikvoptux", strict=True)),
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)),
    # Latin letters of other alphabets.
    **dict(zip("ıɡɑʏ", "igay", strict=True)),
}
"""Look-alike letters and the Latin letter a reader sees (after NFKC, which already folds
full-width, mathematical and other compatibility letters)."""

# Characters the view may change: format characters (zero-width, joiners, bidi controls, the
# byte-order mark, soft hyphen), tag characters, the scripts of the look-alikes, and the
# blocks NFKC folds (spaces, letter-like symbols, enclosed forms, full-width letters and
# digits, ligatures, mathematical letters). Chinese full-width punctuation stays: it ends
# sentences ("！") where its ASCII form would not. Everything else is kept as is, so an
# ordinary text costs one search.
_SPECIAL = re.compile(
    "[\u00ad\u0250-\u02af\u0370-\u03ff\u0400-\u052f\u061c\u115f\u1160\u17b4\u17b5\u180e"
    "\u2000-\u200f\u2028-\u202f\u205f-\u206f\u2100-\u214f\u2460-\u24ff\u3164"
    "\ufb00-\ufb4f\ufe00-\ufe0f\ufeff\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\uff61-\uffef"
    "\U0001d400-\U0001d7ff\U000e0000-\U000e007f]+"
)
TAG_CHARACTERS = re.compile("[\U000e0000-\U000e007f]+")
"""Unicode tag characters: invisible to a person, read by a model."""
_TAG_FIRST, _TAG_LAST = 0xE0020, 0xE007E  # the tags that spell ASCII characters
_SPELLING_TAGS = re.compile("[\U000e0020-\U000e007e]+")

# Four or more one-character tokens separated by spaces ("I g n o r e", "忽 略 以 上").
_SPACED = re.compile(r"(?<!\S)(?:\S[ \t\u3000]{1,4}){3,}\S(?!\w)")
_GAP = re.compile(r"[ \t\u3000]+")
_WIDE = re.compile(f"[{CJK_WIDE}]")
# A line break inside a sentence: between two Chinese characters (unless the line ends a
# sentence or the next starts an item: （二）), after a word broken with a hyphen ("de-\nscribe"),
# or after a lower-case word or a comma before a lower-case word.
_CJK_BREAK = re.compile(
    rf"(?<=[{CJK_WIDE}])(?<![。！？；：）】])[ \t]*\n[ \t]*(?=[{CJK_WIDE}])(?![（(])"
)
_SOFT_BREAK = re.compile(r"(?<=[a-z,])[ \t]*\n[ \t]*(?=[a-z])")
_HYPHEN_BREAK = re.compile(r"(?<=[a-z])-[ \t]*\n[ \t]*(?=[a-z])")


def tag_runs(text: str) -> list[tuple[int, int]]:
    """Spans of four or more Unicode tag characters: text no reader can see (the one real use
    of tag characters, a subdivision flag after U+1F3F4, is left out)."""
    return [
        m.span()
        for m in _SPELLING_TAGS.finditer(text)
        if m.end() - m.start() >= 4 and text[max(0, m.start() - 1)] != "\U0001f3f4"
    ]


def spelled_in_tags(text: str) -> str:
    """What the tag characters in `text` spell (ASCII), runs joined by a space; '' if none."""
    return " ".join(_untagged(m.group()) for m in _SPELLING_TAGS.finditer(text))


def _untagged(run: str) -> str:
    return "".join(chr(ord(ch) - 0xE0000) for ch in run)


def _fold(ch: str) -> str:
    """What one special character reads as."""
    code = ord(ch)
    if _TAG_FIRST <= code <= _TAG_LAST:
        return _untagged(ch)
    if unicodedata.category(ch) == "Cf":
        return ""
    folded = unicodedata.normalize("NFKC", ch)
    return "".join(CONFUSABLES.get(c, c) for c in folded)


class _Map:
    """Offsets of a rewritten text back to the text it was made from: pieces that were
    replaced, with the unchanged stretches between them."""

    def __init__(self) -> None:
        self.view: list[int] = [0]  # where each piece starts in the rewritten text
        self.orig: list[int] = [0]  # ... and in the source
        self.length: list[int] = [-1]  # source length of a replaced piece; -1: unchanged stretch

    def replaced(self, view_at: int, orig_at: int, orig_len: int, view_len: int) -> None:
        self.view.append(view_at)
        self.orig.append(orig_at)
        self.length.append(orig_len)
        self.view.append(view_at + view_len)
        self.orig.append(orig_at + orig_len)
        self.length.append(-1)

    def start(self, at: int) -> int:
        i = bisect_right(self.view, at) - 1
        return self.orig[i] + (at - self.view[i] if self.length[i] < 0 else 0)

    def end(self, at: int) -> int:
        """The source offset just past view offset `at - 1`."""
        if at == 0:
            return 0
        i = bisect_right(self.view, at - 1) - 1
        if self.length[i] < 0:
            return self.orig[i] + (at - self.view[i])
        return self.orig[i] + self.length[i]


def _rewrite(
    text: str, pattern: re.Pattern[str], new: Callable[[str], str]
) -> tuple[str, _Map | None]:
    """`text` with every match of `pattern` replaced by `new(match)`, and the offset map (None,
    and `text` itself, when nothing changed)."""
    pieces: list[str] = []
    offsets = _Map()
    last = view_at = 0
    for m in pattern.finditer(text):
        replacement = new(m.group())
        if replacement == m.group():
            continue
        pieces.append(text[last : m.start()])
        view_at += m.start() - last
        offsets.replaced(view_at, m.start(), m.end() - m.start(), len(replacement))
        pieces.append(replacement)
        view_at += len(replacement)
        last = m.end()
    if not pieces:
        return text, None
    pieces.append(text[last:])
    return "".join(pieces), offsets


def _rejoin(run: str) -> str:
    """Spaced-out letters re-joined: one space inside a word, more between words; between
    Chinese characters every space goes."""
    out = []
    pos = 0
    for gap in _GAP.finditer(run):
        out.append(run[pos : gap.start()])
        pair = run[gap.start() - 1] + run[gap.end() : gap.end() + 1]
        if len(gap.group()) > 1 and _WIDE.search(pair) is None:
            out.append(" ")
        pos = gap.end()
    out.append(run[pos:])
    return "".join(out)


class MatchView:
    """`text` as a matcher should read it, with offsets back to `text`."""

    def __init__(self, text: str) -> None:
        """Build the view of `text` (an ordinary text is its own view: no copy is made)."""
        self._maps: list[_Map] = []
        view = text
        for pattern, new in (
            (_SPECIAL, _fold_run),
            (_SPACED, _rejoin),
            (_CJK_BREAK, lambda _: ""),
            (_HYPHEN_BREAK, lambda _: ""),
            (_SOFT_BREAK, lambda _: " "),
        ):
            view, offsets = _rewrite(view, pattern, new)
            if offsets is not None:
                self._maps.append(offsets)
        self.text = view

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The source span of view span [start, end)."""
        for offsets in reversed(self._maps):
            start, end = offsets.start(start), offsets.end(end)
        return start, end


def _fold_run(run: str) -> str:
    folded = "".join(_fold(ch) for ch in run)
    if _TAG_FIRST <= ord(run[0]) <= _TAG_LAST:
        folded = "\n" + folded  # hidden text is a sentence of its own, not the visible one's
    return folded
