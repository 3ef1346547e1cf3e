"""Separating a clause's title from its body text."""

from __future__ import annotations

import re

from contract_review.text import HAN

_CJK = HAN
_SMALL_WORDS = frozenset(
    [
        "of",
        "and",
        "the",
        "to",
        "for",
        "in",
        "on",
        "a",
        "an",
        "or",
        "by",
        "with",
        "at",
        "from",
        "as",
        "its",
        "their",
        "his",
        "her",
        "under",
        "upon",
        "into",
        "between",
        "than",
        "other",
        "non",
        "de",
        "du",
        "la",
        "le",
    ]
)
_VERBS = re.compile(r"\b(shall|will|must|may|agrees?|hereby|is|are|was|were)\b")
# Punctuation and verbs that make Chinese text a sentence (or a definition), not a heading.
_CN_SENTENCE = re.compile(r"[。；，,;“”\"]|是指|系指|指|应当|必须|不得")
_UNDERLINE = re.compile(r"[-_=]{3,}")
_INLINE_EN = re.compile(
    r"(?P<title>[^.:;\n]{1,90}?)(?P<sep>\.(?:\*\*|__)?(?=[ \t\u00a0])|:|[ \t]+[-–—][ \t]+)"
)
_INLINE_CN = re.compile(r"(?P<title>[^。：:；;，,\s]{1,16})(?P<sep>[：:]|[ \t\u3000]+)")
_LEADING = " \t\u3000\u00a0.:：-–—)"


def _clean(s: str) -> str:
    if "--" in s or "__" in s or "==" in s:
        s = _UNDERLINE.sub(" ", s)
    return s.strip().strip("*_#").strip().rstrip(".:：;").strip()


_DEFINES_LABEL = re.compile(r"\(\s*(?:the\s+)?[\"“][^\"”]{1,40}[\"”]\s*\)")


def heading_like(s: str) -> bool:
    """Whether a short piece of text reads as a heading rather than a sentence."""
    s = _clean(s)
    if not s or len(s) > 100:
        return False
    if _CJK.search(s):
        return len(s) <= 30 and not _CN_SENTENCE.search(s)
    if s[-1] in ",;" or (not s[0].isalnum() and s[0] not in "\"'“("):
        return False
    if _DEFINES_LABEL.search(s):
        return False  # '… Houston, Texas ("Customer").': a party's description, not a title
    words = re.findall(r"[A-Za-z][A-Za-z'’\-]*", s)
    if not words or len(words) > 14:
        return False
    if words[-1].lower() in _SMALL_WORDS:
        return False
    if s.isupper():
        return True
    if _VERBS.search(s):
        return False
    significant = [w for w in words if w.lower() not in _SMALL_WORDS]
    if not significant:
        return False
    capitalised = sum(1 for w in significant if w[0].isupper())
    return capitalised / len(significant) >= 0.6


def _lead_in(s: str) -> bool:
    """'The Contractor shall:' / '变更工程的价款按下列原则确定：' introduce a list; not titles."""
    s = s.strip()
    if not s.endswith((":", "：")):
        return False
    return len(s) > 10 if _CJK.search(s) else len(s.split()) > 5


def split_title(text: str, pos: int, line_end: int, limit: int) -> tuple[str, int]:
    """Title and body offset of a clause whose number ends at `pos`.

    `line_end` ends the heading's line (or flattened block); `limit` is where the next clause
    starts. A title is the rest of a short heading line, a capitalised lead-in phrase ending in
    '.', ':' or a dash ("Governing Law. This Agreement..."), or, after a bare number line, the
    next line if it reads as a heading.
    """
    p = pos
    while p < line_end and text[p] in _LEADING:
        p += 1
    rest = text[p:line_end]
    if not _clean(rest):
        # "ARTICLE I" alone on its line: the title may be the next line.
        q = line_end
        while q < limit and text[q] in " \t\n\u3000\u00a0":
            q += 1
        nl = text.find("\n", q, limit)
        nxt_end = nl if nl != -1 else limit
        nxt = text[q:nxt_end]
        if q < limit and heading_like(nxt) and nxt_end < limit and len(nxt) <= 80:
            body = nxt_end
            while body < limit and text[body] in " \t\n\u3000\u00a0":
                body += 1
            return _clean(nxt), body
        return "", min(q, limit)
    has_more = text[line_end:limit].strip() != ""
    is_cjk = bool(_CJK.match(text, p))
    m = (_INLINE_CN if is_cjk else _INLINE_EN).match(text, p, line_end)
    if m and text[m.end() : line_end].strip():
        title = m.group("title")
        if heading_like(title) and (is_cjk or len(title.split()) <= 10):
            body = m.end()
            while body < limit and text[body] in " \t\u3000\u00a0":
                body += 1
            return _clean(title), body
    if has_more and heading_like(rest) and not _lead_in(rest):
        body = line_end
        while body < limit and text[body] in " \t\n\u3000\u00a0":
            body += 1
        return _clean(rest), body
    if not has_more and heading_like(rest) and len(rest) <= 60 and not _lead_in(rest):
        # A heading with nothing under it.
        return _clean(rest), line_end
    return "", p
