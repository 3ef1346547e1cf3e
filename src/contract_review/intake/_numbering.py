"""Word automatic numbering: the label ("1.1", "(a)", "第一条") Word draws before a paragraph.

Word does not store list numbers in the paragraph text; it computes them while laying out the
document from `word/numbering.xml`:

* a paragraph points at a *num* (`w:numId`) and a level (`w:ilvl`);
* the num points at an *abstractNum* (`w:abstractNumId`), possibly indirectly through a
  numbering style (`w:numStyleLink` -> style -> num -> abstractNum carrying `w:styleLink`), and
  may override levels (`w:lvlOverride`: `w:startOverride` and/or a whole `w:lvl`);
* each level has a start value, a number format, a template (`w:lvlText`, e.g. "%1.%2"), a
  legal-numbering flag (`w:isLgl`), a restart rule (`w:lvlRestart`) and a suffix (`w:suff`).

Counters follow Word: every num that resolves to the same abstractNum continues one list, except
that a num with a `w:startOverride` restarts the overridden levels the first time it is used.
Numbering a level resets the deeper levels (as `w:lvlRestart` allows). A level referenced by a
deeper template before it was ever used shows `start - 1` (Word's "1.0.1").

`NumberingResolver` must see the numbered paragraphs in document order: it is stateful.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from lxml import etree

from contract_review.text.numerals import (
    int_to_cjk_counting,
    int_to_english_ordinal,
    int_to_english_words,
    int_to_letters,
    int_to_roman,
)

__all__ = ["NumberLabel", "NumberingResolver", "format_number"]

_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_MAX_LEVELS = 9  # Word levels 0..8
_MAX_LINK_DEPTH = 8  # numStyleLink chains longer than this are treated as broken (cycles)


def _w(tag: str) -> str:
    """Clark name of a WordprocessingML element or attribute."""
    return f"{{{_W_NS}}}{tag}"


_VAL = _w("val")
_ABSTRACT_NUM = _w("abstractNum")
_ABSTRACT_NUM_ID = _w("abstractNumId")
_NUM = _w("num")
_NUM_ID = _w("numId")
_LVL = _w("lvl")
_ILVL = _w("ilvl")
_START = _w("start")
_NUM_FMT = _w("numFmt")
_FORMAT = _w("format")
_LVL_TEXT = _w("lvlText")
_IS_LGL = _w("isLgl")
_LVL_RESTART = _w("lvlRestart")
_SUFF = _w("suff")
_PSTYLE = _w("pStyle")
_NUM_STYLE_LINK = _w("numStyleLink")
_STYLE_LINK = _w("styleLink")
_LVL_OVERRIDE = _w("lvlOverride")
_START_OVERRIDE = _w("startOverride")

_SUFFIXES = {"tab": "\t", "space": " ", "nothing": ""}
_PLACEHOLDER = re.compile(r"%([1-9])")


@dataclass(frozen=True, slots=True)
class NumberLabel:
    """The number Word shows before a paragraph, and what separates it from the text."""

    text: str
    """The label itself, e.g. "1.1", "(a)", "第一条"."""
    suffix: str
    """"\\t" (Word's default), " " or ""."""


@dataclass(frozen=True, slots=True)
class _Level:
    """One `w:lvl` definition."""

    start: int = 1
    fmt: str = "decimal"
    custom_format: str | None = None  # w:numFmt/@w:format, used by fmt="custom"
    template: str | None = None  # w:lvlText/@w:val; None: the level has no lvlText
    # The template split into literal text and 0-based level references ("%2" -> 1).
    parts: tuple[str | int, ...] = ()
    is_lgl: bool = False
    restart: int | None = None  # w:lvlRestart/@w:val; None: restart after any higher level
    suffix: str = "\t"
    pstyle: str | None = None  # paragraph style linked to this level


@dataclass(frozen=True, slots=True)
class _ResolvedNum:
    """A num with its abstractNum resolved and its overrides applied."""

    list_key: int  # abstractNumId whose counters this num advances
    levels: Mapping[int, _Level]
    start_overrides: tuple[int, ...]  # levels restarted on the num's first use


@dataclass(slots=True)
class _AbstractNum:
    levels: dict[int, _Level] = field(default_factory=dict)
    num_style_link: str | None = None


@dataclass(slots=True)
class _Num:
    abstract_id: int | None
    overrides: dict[int, tuple[int | None, _Level | None]] = field(default_factory=dict)


def _int_attr(el: etree._Element | None, default: int | None = None) -> int | None:
    """`w:val` of `el` as an int; `default` when the element or a valid value is missing."""
    if el is None:
        return default
    raw = el.get(_VAL)
    if raw is None:
        return default
    try:
        return int(raw.strip())
    except ValueError:
        return default


def _on(el: etree._Element | None) -> bool:
    """Value of an OOXML on/off element: present without val, or val true/1/on."""
    if el is None:
        return False
    return el.get(_VAL, "true").strip().lower() not in {"false", "0", "off"}


def _parse_level(lvl: etree._Element) -> _Level:
    """Read a `w:lvl` element (an abstractNum level or a lvlOverride replacement)."""
    start = _int_attr(lvl.find(_START), 1)
    fmt_el = lvl.find(_NUM_FMT)
    fmt = "decimal"
    custom: str | None = None
    if fmt_el is not None:
        fmt = fmt_el.get(_VAL) or "decimal"
        custom = fmt_el.get(_FORMAT)
    text_el = lvl.find(_LVL_TEXT)
    template = text_el.get(_VAL) if text_el is not None else None
    if text_el is not None and template is None:
        template = ""  # an lvlText without val displays nothing
    suff_el = lvl.find(_SUFF)
    suffix = _SUFFIXES.get(suff_el.get(_VAL, "tab") if suff_el is not None else "tab", "\t")
    pstyle_el = lvl.find(_PSTYLE)
    return _Level(
        start=start if start is not None else 1,
        fmt=fmt,
        custom_format=custom,
        template=template,
        parts=_compile_template(template),
        is_lgl=_on(lvl.find(_IS_LGL)),
        restart=_int_attr(lvl.find(_LVL_RESTART)),
        suffix=suffix,
        pstyle=pstyle_el.get(_VAL) if pstyle_el is not None else None,
    )


def _compile_template(template: str | None) -> tuple[str | int, ...]:
    if not template:
        return ()
    parts: list[str | int] = []
    position = 0
    for match in _PLACEHOLDER.finditer(template):
        if match.start() > position:
            parts.append(template[position : match.start()])
        parts.append(int(match.group(1)) - 1)
        position = match.end()
    if position < len(template):
        parts.append(template[position:])
    return tuple(parts)


def _parse_levels(parent: etree._Element) -> dict[int, _Level]:
    levels: dict[int, _Level] = {}
    for lvl in parent.iterfind(_LVL):
        ilvl = _int_attr_named(lvl, _ILVL)
        if ilvl is not None and 0 <= ilvl < _MAX_LEVELS:
            levels[ilvl] = _parse_level(lvl)
    return levels


def _int_attr_named(el: etree._Element, attr: str) -> int | None:
    raw = el.get(attr)
    if raw is None:
        return None
    try:
        return int(raw.strip())
    except ValueError:
        return None


class NumberingResolver:
    """Computes Word's automatic paragraph numbers, one paragraph at a time, in document order.

    Build it once per document from the `w:numbering` root element (None when the document has
    no numbering part) and a map from style id to the `w:numId` in that style's own `w:numPr`
    (needed to follow `w:numStyleLink`). Then call `next_label` for every paragraph that has
    numbering, in document order.
    """

    def __init__(self, numbering: etree._Element | None, style_num_ids: Mapping[str, int]) -> None:
        """Index the numbering definitions; no counter is started yet."""
        self._abstracts: dict[int, _AbstractNum] = {}
        self._nums: dict[int, _Num] = {}
        self._style_num_ids = style_num_ids
        self._resolved: dict[int, _ResolvedNum | None] = {}
        self._counters: dict[int, list[int | None]] = {}
        self._used_nums: set[int] = set()
        if numbering is not None:
            self._index(numbering)

    def _index(self, numbering: etree._Element) -> None:
        for abstract in numbering.iterfind(_ABSTRACT_NUM):
            abstract_id = _int_attr_named(abstract, _ABSTRACT_NUM_ID)
            if abstract_id is None:
                continue
            link = abstract.find(_NUM_STYLE_LINK)
            self._abstracts[abstract_id] = _AbstractNum(
                levels=_parse_levels(abstract),
                num_style_link=link.get(_VAL) if link is not None else None,
            )
        for num in numbering.iterfind(_NUM):
            num_id = _int_attr_named(num, _NUM_ID)
            if num_id is None:
                continue
            entry = _Num(abstract_id=_int_attr(num.find(_ABSTRACT_NUM_ID)))
            for override in num.iterfind(_LVL_OVERRIDE):
                ilvl = _int_attr_named(override, _ILVL)
                if ilvl is None or not 0 <= ilvl < _MAX_LEVELS:
                    continue
                lvl_el = override.find(_LVL)
                entry.overrides[ilvl] = (
                    _int_attr(override.find(_START_OVERRIDE)),
                    _parse_level(lvl_el) if lvl_el is not None else None,
                )
            self._nums[num_id] = entry

    def _resolve(self, num_id: int) -> _ResolvedNum | None:
        """The num's effective levels and list identity (cached)."""
        if num_id in self._resolved:
            return self._resolved[num_id]
        resolved: _ResolvedNum | None = None
        num = self._nums.get(num_id)
        if num is not None and num.abstract_id is not None:
            found = self._follow_style_links(num.abstract_id)
            if found is not None:
                list_key, abstract = found
                levels = dict(abstract.levels)
                restarted: list[int] = []
                for ilvl, (start_override, lvl) in num.overrides.items():
                    # A whole w:lvl in the override replaces the abstract level (ECMA-376 17.9.9).
                    base = lvl if lvl is not None else levels.get(ilvl)
                    if start_override is not None:
                        base = _with_start(base or _Level(), start_override)
                        restarted.append(ilvl)
                    if base is not None:
                        levels[ilvl] = base
                resolved = _ResolvedNum(list_key, levels, tuple(sorted(restarted)))
        self._resolved[num_id] = resolved
        return resolved

    def _follow_style_links(self, abstract_id: int) -> tuple[int, _AbstractNum] | None:
        """Follow `w:numStyleLink` to the abstractNum that really holds the levels."""
        current_id = abstract_id
        for _ in range(_MAX_LINK_DEPTH):
            abstract = self._abstracts.get(current_id)
            if abstract is None:
                return None
            if abstract.num_style_link is None:
                return current_id, abstract
            linked_num_id = self._style_num_ids.get(abstract.num_style_link)
            linked = self._nums.get(linked_num_id) if linked_num_id is not None else None
            if linked is None or linked.abstract_id is None:
                # Broken link: fall back to whatever levels this abstractNum has itself.
                return (current_id, abstract) if abstract.levels else None
            current_id = linked.abstract_id
        return None

    def level_of_style(self, num_id: int, style_id: str) -> int | None:
        """The level of num `num_id` linked to paragraph style `style_id` (`w:lvl/w:pStyle`).

        Used when a paragraph gets its numId from its style but no level is given anywhere.
        """
        resolved = self._resolve(num_id)
        if resolved is None:
            return None
        for ilvl in sorted(resolved.levels):
            if resolved.levels[ilvl].pstyle == style_id:
                return ilvl
        return None

    def next_label(self, num_id: int, ilvl: int) -> NumberLabel | None:
        """Advance the counters for one paragraph numbered (`num_id`, `ilvl`); return its label.

        Returns None when Word shows no number: numId 0 or unknown, a level without definition
        or template, a bullet, or a template that renders to nothing.
        """
        if num_id == 0:
            return None
        resolved = self._resolve(num_id)
        if resolved is None:
            return None
        ilvl = min(max(ilvl, 0), _MAX_LEVELS - 1)
        level = resolved.levels.get(ilvl)
        if level is None:
            return None
        counters = self._counters.setdefault(resolved.list_key, [None] * _MAX_LEVELS)
        if num_id not in self._used_nums:
            self._used_nums.add(num_id)
            for restarted in resolved.start_overrides:
                counters[restarted] = None
        current = counters[ilvl]
        counters[ilvl] = level.start if current is None else current + 1
        for deeper in range(ilvl + 1, _MAX_LEVELS):
            if _restarts_after(resolved.levels.get(deeper), deeper, ilvl):
                counters[deeper] = None
        if level.fmt == "bullet" or level.template is None:
            return None
        label = "".join(
            part
            if isinstance(part, str)
            else self._render_level(resolved, counters, part, level.is_lgl)
            for part in level.parts
        )
        if not label.strip():
            return None
        return NumberLabel(text=label, suffix=level.suffix)

    @staticmethod
    def _render_level(
        resolved: _ResolvedNum, counters: list[int | None], index: int, legal: bool
    ) -> str:
        level = resolved.levels.get(index) or _Level()
        value = counters[index]
        if value is None:
            value = max(level.start - 1, 0)  # never used since its last reset: Word shows 0
        fmt = "decimal" if legal and level.fmt not in {"none", "bullet"} else level.fmt
        return format_number(value, fmt, level.custom_format)


def _with_start(level: _Level, start: int) -> _Level:
    return _Level(
        start=start,
        fmt=level.fmt,
        custom_format=level.custom_format,
        template=level.template,
        parts=level.parts,
        is_lgl=level.is_lgl,
        restart=level.restart,
        suffix=level.suffix,
        pstyle=level.pstyle,
    )


def _restarts_after(level: _Level | None, deeper: int, used: int) -> bool:
    """Whether numbering level `used` resets the counter of level `deeper` (> used).

    `w:lvlRestart` is 1-based: the deeper level restarts when a level with a 0-based index below
    its value is used; 0 means never; a value that names no higher level (> deeper) is ignored,
    as is a missing element: then any higher level restarts it (ECMA-376 17.9.10).
    """
    restart = level.restart if level is not None else None
    if restart is None or restart > deeper:
        return True
    if restart == 0:
        return False
    return used < restart


# ------------------------------------------------------------------------------------------
# Number formats
# ------------------------------------------------------------------------------------------

_ZH_DIGITS = "零一二三四五六七八九"
_ZH_LEGAL_DIGITS = "零壹贰叁肆伍陆柒捌玖"
_ZH_LEGAL_TRAD_DIGITS = "零壹貳參肆伍陸柒捌玖"
_IDEOGRAPH_DIGITS = "〇一二三四五六七八九"
_HEAVENLY_STEMS = "甲乙丙丁戊己庚辛壬癸"
_EARTHLY_BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
_CHICAGO = "*†‡§"


def _ordinal_suffix(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}" + {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _digit_by_digit(n: int, digits: str) -> str:
    return "".join(digits[int(d)] for d in str(n))


def _enclosed(n: int, first: int, last_n: int) -> str:
    return chr(first + n - 1) if 1 <= n <= last_n else str(n)


def _custom(n: int, pattern: str | None) -> str:
    # w:format like "001, 002, 003, ..." -> zero padding to the first item's width.
    if pattern:
        first = pattern.split(",")[0].strip()
        if first.isdigit():
            return str(n).zfill(len(first))
    return str(n)


def format_number(n: int, fmt: str, custom_format: str | None = None) -> str:
    """Render counter value `n` in Word number format `fmt` (the `w:numFmt` value).

    Unknown formats fall back to decimal; values a format cannot show (e.g. a letter for 0)
    fall back to decimal too. "bullet" and "none" render as "".
    """
    if fmt in {"none", "bullet"}:
        return ""
    if n <= 0 and fmt not in {"decimal", "decimalZero", "decimalFullWidth", "decimalHalfWidth"}:
        return str(n)
    max_cjk = 10**12 - 1
    match fmt:
        case "decimal" | "decimalHalfWidth":
            return str(n)
        case "decimalZero":
            return f"{n:02d}" if 0 <= n < 10 else str(n)
        case "upperRoman":
            return int_to_roman(n) if n < 4000 else str(n)
        case "lowerRoman":
            return int_to_roman(n).lower() if n < 4000 else str(n)
        case "upperLetter":
            return int_to_letters(n).upper()
        case "lowerLetter":
            return int_to_letters(n)
        case "ordinal":
            return _ordinal_suffix(n)
        case "cardinalText":
            return int_to_english_words(n).capitalize() if n < 1_000_000 else str(n)
        case "ordinalText":
            return int_to_english_ordinal(n).capitalize() if n < 1_000_000 else str(n)
        case "decimalFullWidth" | "decimalFullWidth2":
            return "".join(chr(0xFF10 + int(d)) if d.isdigit() else d for d in str(n))
        case "decimalEnclosedCircle" | "decimalEnclosedCircleChinese":
            return _enclosed(n, 0x2460, 20)
        case "decimalEnclosedFullstop":
            return _enclosed(n, 0x2488, 20)
        case "decimalEnclosedParen":
            return _enclosed(n, 0x2474, 20)
        case (
            "chineseCounting"
            | "chineseCountingThousand"
            | "taiwaneseCounting"
            | "taiwaneseCountingThousand"
        ) if n <= max_cjk:
            return int_to_cjk_counting(n, _ZH_DIGITS, "十百千", "万亿")
        case "chineseLegalSimplified" if n <= max_cjk:
            return int_to_cjk_counting(n, _ZH_LEGAL_DIGITS, "拾佰仟", "万亿")
        case "ideographLegalTraditional" if n <= max_cjk:
            return int_to_cjk_counting(n, _ZH_LEGAL_TRAD_DIGITS, "拾佰仟", "萬億")
        case "japaneseCounting" if n <= max_cjk:
            return int_to_cjk_counting(
                n, _ZH_DIGITS, "十百千", "万億", zero=False, one_before_units=False
            )
        case "ideographDigital" | "taiwaneseDigital" | "japaneseDigitalTenThousand":
            return _digit_by_digit(n, _IDEOGRAPH_DIGITS)
        case "ideographTraditional":
            return _HEAVENLY_STEMS[n - 1] if n <= 10 else str(n)
        case "ideographZodiac":
            return _EARTHLY_BRANCHES[n - 1] if n <= 12 else str(n)
        case "chicago":
            return _CHICAGO[(n - 1) % 4] * ((n - 1) // 4 + 1)
        case "custom":
            return _custom(n, custom_format)
        case _:
            return str(n)
