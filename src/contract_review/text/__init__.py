"""Text facilities every stage shares, defined once: what counts as Chinese (CJK) text and
where a sentence ends. Numbers and amounts are in `text.numerals`.

Three character sets, because three questions are asked:
* `CJK_IDEOGRAPHS` — Han characters: "is this Chinese?" (language detection, titles, word
  classes in patterns, tokens of one character each);
* `CJK_TEXT` — ideographs plus CJK punctuation and full-width forms: "is this byte sequence
  Chinese text?" when guessing a file's encoding;
* `CJK_WIDE` — every script written without spaces between words (ideographs, radicals,
  kana, bopomofo, CJK punctuation, full-width forms, supplementary ideographs): where a PDF's
  spaces between characters are artefacts, and where a word diff compares character by
  character. Hangul is left out on purpose: Korean separates words with spaces.

Three sentence boundaries, because a stage either needs whole sentences or smaller units:
* `SENTENCE_END` — 。！？ always, . ! ? when followed by whitespace or the end ("20.1" and
  "Yahoo!Finance" do not end a sentence; abbreviations such as "e.g." are the caller's call);
* `SENTENCE_OR_LINE_END` — the same, and a line break (clauses laid out line by line);
* `SEGMENT_END` — the same, and ；; too: the unit of one obligation or one amount.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = [
    "CJK_IDEOGRAPHS",
    "CJK_TEXT",
    "CJK_WIDE",
    "HAN",
    "PLACEHOLDER",
    "SEGMENT_END",
    "SENTENCE_END",
    "SENTENCE_OR_LINE_END",
    "ZH_SHORT_NAME",
    "clean_untrusted",
    "has_cjk",
    "has_placeholder",
    "is_cjk_char",
    "recital_headings",
    "redact_secrets",
    "repeated_lines",
]

_UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff\U000e0000-\U000e007f]")
"""Control characters (C0 but tab and line ends, DEL, C1), non-characters XML cannot hold, and
the invisible Unicode tag characters."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_untrusted(text: str) -> str:
    """Text from outside the document (a model's answer, an edit sent over HTTP) made safe to
    store, hash and write: lone surrogates become U+FFFD, control and non-XML characters and
    Unicode tag characters are dropped, everything else is kept as written."""
    return _UNWRITABLE.sub("", _SURROGATE.sub("\ufffd", text))


_SECRET_SHAPES = re.compile(
    r"(?i)\bbearer\s+[\w.~+/=-]{6,}|\bsk-[\w-]{6,}|"
    r"\b(?:api[_-]?key|access[_-]?token|token|password|passwd|secret)\b[\"']?\s*[:=]\s*[\"']?[^\s\"',;]{4,}|"
    r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"
)
REDACTED = "[redacted]"


def redact_secrets(text: str, secrets: Sequence[str] = ()) -> str:
    """`text` with the configured `secrets` and anything shaped like one (a bearer token, an
    'sk-…' key, 'api_key=…', the user:password of a URL) replaced by '[redacted]': an endpoint
    that echoes the key in its error must not put it in a log, a report or a checkpoint."""
    for secret in sorted((s for s in secrets if len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return _SECRET_SHAPES.sub(REDACTED, text)


CJK_IDEOGRAPHS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Han characters (Extension A, the unified block, compatibility ideographs), for a `[...]`."""

CJK_TEXT = CJK_IDEOGRAPHS + "\u3000-\u303f\uff00-\uffef"
"""Han characters, CJK punctuation and full-width forms, for a `[...]`."""

CJK_WIDE = (
    "\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u31a0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0003134f"
)
"""Scripts written without spaces between words (Hangul excluded), for a `[...]`."""

HAN = re.compile(f"[{CJK_IDEOGRAPHS}]")
"""One Han character."""

ZH_SHORT_NAME = r"(?:以下简称|以下称为|以下称|下称|简称)"
"""The words that give a short name in Chinese ('…公司（以下简称“甲方”）'), for a pattern."""

_ABBREVIATIONS = (
    "Inc",
    "Ltd",
    "Co",
    "Corp",
    "No",
    "Nos",
    "Art",
    "Sec",
    "Secs",
    "St",
    "Mr",
    "Mrs",
    "Ms",
    "Dr",
    "Jr",
    "Sr",
    "vs",
    "cf",
    "Pty",
    "Pte",
    "Bros",
    "Ave",
    "approx",
    "incl",
)
_FULL_STOP = (
    # not after an abbreviation ('KI, Inc. may terminate', 'Section No. 4') or an initial
    # ('U.S. law'), nor before a word in lower case ('e.g. the Supplier'); the lookbehinds
    # follow the full stop, so they are tried at full stops only
    r"(?:[!?]|\."
    + "".join(rf"(?<!\b{a}\.)" for a in ("e\\.g", "i\\.e", "etc", *_ABBREVIATIONS))
    + r"(?<!\.[A-Za-z]\.))(?=\s|$)(?!\s+[a-z])"
)

SENTENCE_END = re.compile(r"[。！？]|" + _FULL_STOP)
"""Where a sentence ends (see the module docstring)."""

SENTENCE_OR_LINE_END = re.compile(r"[。！？\n]|" + _FULL_STOP)
"""Where a sentence or a line ends."""

SEGMENT_END = re.compile(r"[。！？；;\n]|" + _FULL_STOP)
"""Where a sentence, a line or a semicolon-separated part of a sentence ends."""

_RECITALS_LINE = re.compile(
    r"[ \t\u3000]*(?:鉴于[：:]?|(?i:whereas|recitals|background|preliminary statements?))"
    r"[ \t\u3000:：]*"
)
_RECITALS_WORDS = (
    *dict.fromkeys(
        form
        for word in ("whereas", "recitals", "background", "preliminary statement")
        for form in (word, word.upper(), word.capitalize(), word.title())
    ),
    "鉴于",
)


def recital_headings(text: str, within: int = 30_000) -> list[tuple[int, int]]:
    """(start, end) of the lines that say only 'RECITALS', 'WHEREAS:', 'BACKGROUND', '鉴于：' …
    in the first `within` characters (recitals come before the clauses), in order. Found with
    str.find in the words' usual casings: a multi-line '^' pattern would be tried at every
    position of the text, and lower-casing a whole document costs more than the search."""
    lines: set[tuple[int, int]] = set()
    limit = min(len(text), within)
    for word in _RECITALS_WORDS:
        i = text.find(word, 0, limit)
        while i != -1:
            start = text.rfind("\n", 0, i) + 1
            end = text.find("\n", i)
            end = len(text) if end == -1 else end
            if _RECITALS_LINE.fullmatch(text, start, end):
                lines.add((start, end))
            i = text.find(word, end, limit)
    return sorted(lines)


LEADING_NUMBER = re.compile(
    r"^[ \t]*(?:(?:section|clause|article|sub-clause)[ \t]+)?(?:\d+(?:\.\d+)*\.?|\(\w{1,4}\))[ \t]+",
    re.IGNORECASE,
)
"""A clause number opening a sentence ('11.1 ', 'Section 4.2 ', '(b) '): patterns that read one
sentence ('no full stop before …') are tried on what follows it."""


def has_cjk(text: str) -> bool:
    """Whether `text` contains a Han character."""
    return HAN.search(text) is not None


def is_cjk_char(ch: str) -> bool:
    """Whether the one character `ch` is a Han character."""
    return HAN.fullmatch(ch) is not None


PLACEHOLDER = re.compile(
    r"\[\s*(?:[●•◆\u25cf*]+|[Xx]+|_+|\.{2,}|…+|\s*|[A-Za-z ]{1,30}|[\u4e00-\u9fff]{1,8})\s*\]"
    r"|【\s*[●•\u4e00-\u9fff]{0,8}\s*】|_{3,}|＿{2,}|[●•]{1,}"
)
"""A blank left for a lawyer to fill: [●], [X], [ ], [amount], [一方], 【】, ____."""


def has_placeholder(text: str) -> bool:
    """Whether `text` holds a blank to fill (`PLACEHOLDER`): such wording is a proposal for a
    lawyer, never contract text approved unattended."""
    return PLACEHOLDER.search(text) is not None


def repeated_lines(texts: Iterable[str], *, longest: int, times: int = 3) -> frozenset[str]:
    """Lines (stripped, 4 to `longest` - 1 characters) written `times` or more across `texts`:
    running heads, footers and legends, not the contract's own words."""
    counts = Counter(
        s for text in texts for line in text.splitlines() if 3 < len(s := line.strip()) < longest
    )
    return frozenset(line for line, n in counts.items() if n >= times)
