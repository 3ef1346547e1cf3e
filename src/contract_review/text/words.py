"""Words of English and Chinese text: stop words, stems and Chinese word splitting.

English is lower-cased, stop words are dropped and words are stemmed (Snowball, PyStemmer);
Chinese is segmented with jieba, legal and construction terms added to its dictionary (with the
bilingual synonym table's Chinese terms, so they stay whole). `analyse` gives the searchable
terms of a text; `Phrase` and `Words` match phrases (stems in order, or a Chinese string)
against a text's stems, long stems also by prefix ('indemn' ~ 'indemnif').
"""

from __future__ import annotations

import bisect
import logging
import re
import threading
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

import Stemmer

from contract_review.text import CJK_IDEOGRAPHS, HAN

with warnings.catch_warnings():
    # jieba 0.42 has invalid escape sequences ('\.'): compiled without a .pyc (fresh install,
    # read-only site-packages) they warn, and under warnings-as-errors the import fails.
    warnings.simplefilter("ignore", DeprecationWarning)
    warnings.simplefilter("ignore", SyntaxWarning)
    import jieba

__all__ = [
    "EN_STOPWORDS",
    "LEGAL_TERMS_ZH",
    "MIN_PREFIX",
    "SYNONYM_GROUPS",
    "ZH_STOPWORDS",
    "Phrase",
    "Term",
    "Words",
    "analyse",
    "chinese_words",
    "covered",
    "english_stem_set",
    "english_stems",
    "phrase",
]

_CJK = CJK_IDEOGRAPHS
_WORD_RE = re.compile(rf"[{_CJK}]+|[A-Za-z][A-Za-z0-9]*")
_HAS_CJK_RE = re.compile(rf"[{_CJK}]")
_ENGLISH_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*")

_EN_STOP_TEXT = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each either else
    etc few for from further had has have having he her here hers herself him himself his how
    i if in into is it its itself just me more most my myself no nor not of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up upon
    us very was we were what when where which while who whom why will with would you your yours
    yourself shall may must might hereby herein hereof hereto hereunder hereinafter thereof
    therein thereto thereunder thereby whereas whereby said per via within without ie eg
"""
EN_STOPWORDS: frozenset[str] = frozenset(_EN_STOP_TEXT.split())
"""English words never searched for: function words and legal filler ('hereof', 'shall')."""

_ZH_STOP_TEXT = """
    之一 按照 根据 依据 以及 或者 并且 以上 以下 之内 之后 之前 应当 应该 可以 进行 有关 相关 其他 其它
    或其 以内 为止 如下 下列 上述 前述 所述 包括 但是 如果 因此 对于 关于 由于 除非 除外 该等 本合同
"""
ZH_STOPWORDS: frozenset[str] = frozenset(_ZH_STOP_TEXT.split())
"""Chinese function words never searched for (single characters are dropped anyway)."""

LEGAL_TERMS_ZH: tuple[str, ...] = (
    "发包人",
    "承包人",
    "分包人",
    "监理人",
    "违约金",
    "误期赔偿金",
    "逾期违约金",
    "延期违约金",
    "质量保证金",
    "保留金",
    "质保金",
    "预付款",
    "预付款保函",
    "履约保函",
    "履约担保",
    "履约保证金",
    "工程量清单",
    "竣工验收",
    "竣工检验",
    "竣工试验",
    "不可抗力",
    "缺陷责任期",
    "保修期",
    "进度款",
    "竣工结算",
    "工程变更",
    "索赔",
    "工期顺延",
    "暂列金额",
    "计日工",
    "发包人要求",
    "技术要求",
    "设计标准",
    "性能保证",
    "现场数据",
    "地质勘察",
    "争议解决",
)
"""Terms jieba must keep whole (added to its dictionary once)."""

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    (
        "误期赔偿金",
        "逾期违约金",
        "违约金",
        "延期违约金",
        "liquidated damages",
        "delay damages",
    ),
    ("质量保证金", "保留金", "质保金", "retention", "retention money"),
    (
        "履约保函",
        "履约担保",
        "履约保证金",
        "performance security",
        "performance bond",
    ),
    ("预付款", "advance payment", "mobilisation advance", "mobilization advance"),
    ("发包人", "业主", "建设单位", "employer", "owner"),
    ("承包人", "承包商", "施工单位", "contractor"),
    ("不可抗力", "force majeure", "exceptional event"),
    ("竣工检验", "竣工试验", "竣工验收", "tests on completion", "completion tests"),
    ("工程量清单", "bill of quantities", "boq"),
    ("工程变更", "变更", "variation", "change order"),
    (
        "缺陷责任期",
        "保修期",
        "defects notification period",
        "defects liability period",
        "warranty period",
    ),
    ("工期", "竣工时间", "time for completion"),
    ("索赔", "claim"),
    ("争议", "争端", "dispute"),
    ("仲裁", "arbitration"),
    ("设计标准", "设计准则", "design criteria", "design standards"),
    ("现场数据", "现场资料", "地质勘察", "site data", "ground conditions"),
    ("性能保证", "performance guarantees", "guaranteed performance"),
)
"""Query terms and what they also search for (bilingual)."""

_jieba_lock = threading.Lock()
_jieba_ready = False
_stemmers = threading.local()


def _init_jieba() -> None:
    """Quiet jieba and teach it the legal terms, once per process."""
    global _jieba_ready
    if _jieba_ready:
        return
    with _jieba_lock:
        if _jieba_ready:
            return
        jieba.setLogLevel(logging.WARNING)
        jieba.initialize()
        for group in SYNONYM_GROUPS:
            for term in group:
                if _HAS_CJK_RE.search(term):
                    jieba.add_word(term)
        for term in LEGAL_TERMS_ZH:
            jieba.add_word(term)
        _jieba_ready = True


def _stem_words(words: list[str]) -> list[str]:
    # PyStemmer objects are not thread-safe: one per thread.
    stemmer: Any = getattr(_stemmers, "stemmer", None)
    if stemmer is None:
        stemmer = Stemmer.Stemmer("english")
        _stemmers.stemmer = stemmer
    stems: list[str] = stemmer.stemWords(words)
    return stems


class Term(NamedTuple):
    """One searchable term: the normalised token and the word it came from."""

    token: str
    surface: str


_ZH_CLAUSE_REF_RE = re.compile(r"^第.{1,6}[条章款项节]$")
_ZH_SINGLE_KEEP = frozenset("税费罚息股债")


def _zh_keep(word: str) -> bool:
    """Whether a jieba word is worth searching: no function words, no single characters
    (bar a few), no clause numbers (第六条 — numbering differs between documents)."""
    if len(word) == 1:
        return word in _ZH_SINGLE_KEEP
    return word not in ZH_STOPWORDS and not _ZH_CLAUSE_REF_RE.match(word)


def analyse(text: str, *, search_mode: bool = False) -> list[Term]:
    """The terms of `text`, in order: stemmed English words without stop words, and jieba words
    without function words or single characters. `search_mode` also emits the sub-words of long
    Chinese words (used for indexing, so a query for 保证金 finds 质量保证金)."""
    if not _HAS_CJK_RE.search(text):
        low = [w for w in _ENGLISH_RE.findall(text.lower()) if len(w) > 1 and w not in EN_STOPWORDS]
        return list(map(Term, _stem_words(low), low)) if low else []
    pieces: list[tuple[bool, str]] = []
    english: list[str] = []
    for word in _WORD_RE.findall(text):
        if word[0].isascii():
            low = word.lower()
            if len(low) > 1 and low not in EN_STOPWORDS:
                pieces.append((True, low))
                english.append(low)
            continue
        if not _jieba_ready:
            _init_jieba()
        cut = jieba.lcut_for_search(word) if search_mode else jieba.lcut(word)
        pieces.extend((False, w) for w in cut if _zh_keep(w))
    stems = iter(_stem_words(english)) if english else iter(())
    return [Term(next(stems), w) if is_en else Term(w, w) for is_en, w in pieces]


def english_stems(text: str) -> list[str]:
    """Stems of the English words of `text` (stop words dropped), in order."""
    low = [w for w in _ENGLISH_RE.findall(text.lower()) if len(w) > 1 and w not in EN_STOPWORDS]
    return _stem_words(low) if low else []


def english_stem_set(text: str) -> frozenset[str]:
    """The distinct stems of the English words of `text` (stop words dropped); cheaper than
    `set(english_stems(text))` as each distinct word is stemmed once."""
    words = set(_ENGLISH_RE.findall(text.lower()))
    words -= EN_STOPWORDS
    kept = [w for w in words if len(w) > 1]
    return frozenset(_stem_words(kept)) if kept else frozenset()


def chinese_words(text: str) -> list[str]:
    """jieba words of the Chinese parts of `text`: two characters or more, no function words."""
    return [t.token for t in analyse(text) if _HAS_CJK_RE.match(t.token) and len(t.token) > 1]


_PHRASE_GAP = 2
"""Words of a phrase may be this many words apart in the text, plus two stop words."""
MIN_PREFIX = 5
"""Stems this long or longer match stems they begin ('indemn' ~ 'indemnif')."""


@dataclass(frozen=True)
class Phrase:
    """A topic alternative or keyword: English stems (all must occur) or a Chinese string."""

    text: str
    stems: tuple[str, ...]
    zh: str
    pattern: re.Pattern[str] | None = None
    """For several English words: the words in order, a few words apart at most (matched on
    lower-cased text; each stem is the start of its word, as in 'termin' → 'terminate')."""

    @property
    def strong(self) -> bool:
        """Specific enough to show the topic alone: several words, or 3+ Chinese characters."""
        return len(self.zh) >= 3 if self.zh else len(self.stems) >= 2


def phrase(text: str) -> Phrase | None:
    """The phrase of a topic alternative or keyword (None when it has no words)."""
    text = text.strip()
    if not text:
        return None
    if HAN.search(text):
        zh = re.sub(r"\s+", "", text)
        return Phrase(text, (), zh)
    stems = tuple(english_stems(text))
    if not stems:
        return None
    pattern = None
    if len(stems) > 1:
        # Snowball turns a final y into i ('liabil', 'compani'): match the letters before it.
        starts = [re.escape(st[:-1] if st.endswith("i") and len(st) > 3 else st) for st in stems]
        gap = rf"(?:[^a-z0-9]+[a-z0-9]+){{0,{_PHRASE_GAP + 2}}}?[^a-z0-9]+"
        # No leading \b: a pattern that starts with a literal is searched much faster; the
        # word start is checked on each hit instead.
        pattern = re.compile(gap.join(rf"{st}[a-z0-9]*" for st in starts))
    return Phrase(text, tuple(dict.fromkeys(stems)), "", pattern)


def covered(stem: str, stems: Iterable[str]) -> bool:
    """Whether `stem` is among `stems`, allowing long stems to match by prefix."""
    for other in stems:
        if other == stem:
            return True
        short, long_ = (stem, other) if len(stem) <= len(other) else (other, stem)
        if len(short) >= MIN_PREFIX and long_.startswith(short):
            return True
    return False


class Words:
    """A clause title or text, ready for look-ups: its stems and, when it has Chinese, the text
    without white space. Prefix look-ups and word pairs are worked out on first use."""

    def __init__(self, text: str, stems: frozenset[str] | None = None) -> None:
        self.raw = text.strip()
        self.zh = re.sub(r"\s+", "", text) if HAN.search(text) else ""
        self.stems = english_stem_set(text) if stems is None else stems
        self._text = text
        self._lower: str | None = None
        self._sorted: list[str] | None = None
        self._heads: frozenset[str] | None = None
        self._memo: dict[str, bool] = {}

    @property
    def heads(self) -> frozenset[str]:
        """First MIN_PREFIX letters of every stem."""
        if self._heads is None:
            self._heads = frozenset(st[:MIN_PREFIX] for st in self.stems)
        return self._heads

    def has(self, stem: str) -> bool:
        """Whether the stem occurs, or a longer one beginning with it, or a shorter one (at
        least MIN_PREFIX long) it begins with."""
        if stem in self.stems:
            return True
        if len(stem) < MIN_PREFIX:
            return False
        known = self._memo.get(stem)
        if known is None:
            if self._sorted is None:
                self._sorted = sorted(self.stems)
            i = bisect.bisect_left(self._sorted, stem)
            known = (i < len(self._sorted) and self._sorted[i].startswith(stem)) or any(
                stem[:n] in self.stems for n in range(MIN_PREFIX, len(stem))
            )
            self._memo[stem] = known
        return known

    def has_words(self, phrase: Phrase) -> bool:
        """Whether every word of the phrase occurs (anywhere: for titles)."""
        if phrase.zh:
            return bool(self.zh) and phrase.zh in self.zh
        return all(self.has(s) for s in phrase.stems)

    def hasphrase(self, phrase: Phrase) -> bool:
        """Whether the phrase occurs: each word followed by the next within a few words, stop
        words aside ('terminate for convenience' ~ 'terminate this Agreement for convenience')."""
        if phrase.zh:
            return bool(self.zh) and phrase.zh in self.zh
        stems = phrase.stems
        if len(stems) == 1:
            return self.has(stems[0])
        if not self.stems.issuperset(stems):
            return False
        if phrase.pattern is None:
            return True
        if self._lower is None:
            self._lower = self._text.lower()
        lower = self._lower
        return any(
            hit.start() == 0 or not lower[hit.start() - 1].isalnum()
            for hit in phrase.pattern.finditer(lower)
        )
