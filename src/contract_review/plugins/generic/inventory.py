"""Clause inventory: the 41 CUAD categories of a commercial contract — present or not, the
clauses, and the value of the categories that have one.

Clause categories are found by the topic recogniser of `topics.py`: the checklist's topics
(`topics.yaml`) and the categories only the inventory needs (`inventory.yaml`) are one
catalogue read by one engine. Values are read from the clauses found (the governing law from
the Governing Law clause, the notice period from the renewal clause) and from the head of the
document (its name, parties and dates), and normalised: dates to ISO, periods to a number and a
unit ('90 days'), jurisdictions to their name ('California').
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path

from contract_review.models import (
    ClauseInventory,
    ClauseKind,
    ClauseNode,
    DocumentStructure,
    InventoryEntry,
)
from contract_review.parties import find_parties, is_pronoun
from contract_review.playbook.parse import read_yaml
from contract_review.text import repeated_lines
from contract_review.text.numerals import (
    ENGLISH_NUMBER_WORDS,
    chinese_to_int,
    english_words_to_int,
)

from .topics import Topic, detect_topics, load_topics

__all__ = [
    "CATEGORIES",
    "INVENTORY_TOPICS",
    "VALUE_CATEGORIES",
    "build_inventory",
    "category_title",
    "find_dates",
    "has_blank_date",
    "normalise_jurisdiction",
    "normalise_period",
]

CATEGORIES: tuple[str, ...] = (
    "Document Name",
    "Parties",
    "Agreement Date",
    "Effective Date",
    "Expiration Date",
    "Renewal Term",
    "Notice Period to Terminate Renewal",
    "Governing Law",
    "Most Favored Nation",
    "Competitive Restriction Exception",
    "Non-Compete",
    "Exclusivity",
    "No-Solicit of Customers",
    "No-Solicit of Employees",
    "Non-Disparagement",
    "Termination for Convenience",
    "Rofr/Rofo/Rofn",
    "Change of Control",
    "Anti-Assignment",
    "Revenue/Profit Sharing",
    "Price Restrictions",
    "Minimum Commitment",
    "Volume Restriction",
    "IP Ownership Assignment",
    "Joint IP Ownership",
    "License Grant",
    "Non-Transferable License",
    "Affiliate License-Licensor",
    "Affiliate License-Licensee",
    "Unlimited/All-You-Can-Eat-License",
    "Irrevocable or Perpetual License",
    "Source Code Escrow",
    "Post-Termination Services",
    "Audit Rights",
    "Uncapped Liability",
    "Cap on Liability",
    "Liquidated Damages",
    "Warranty Duration",
    "Insurance",
    "Covenant Not to Sue",
    "Third Party Beneficiary",
)
"""The 41 CUAD categories, in CUAD's order."""

VALUE_CATEGORIES: tuple[str, ...] = CATEGORIES[:8]
"""The categories whose entry carries a value (a name, a date, a period, a place)."""


_CATALOGUE = Path(__file__).with_name("inventory.yaml")

INVENTORY_TOPICS: tuple[Topic, ...] = load_topics(_CATALOGUE)
"""Recognisers of the categories the checklist does not review (`inventory.yaml`)."""


@cache
def _names_zh() -> dict[str, str]:
    """CUAD category → its Chinese name (`names_zh` of `inventory.yaml`; read when first
    asked, by a report on a Chinese contract)."""
    data = read_yaml(_CATALOGUE.read_text(encoding="utf-8"))
    return {str(k): str(v) for k, v in (data.get("names_zh") or {}).items()}


def category_title(category: str, language: str = "en") -> str:
    """How to show a CUAD category in `language` ('en' or 'zh…'): its CUAD name in English,
    its Chinese name in Chinese (the CUAD name for a category without one)."""
    if language.startswith("zh"):
        return _names_zh().get(category) or category
    return category


# --------------------------------------------------------------------------------------------
# Values: dates, periods, jurisdictions
# --------------------------------------------------------------------------------------------

_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        1,
    )
    for m in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
# the ordinal as filings write it, also broken by a space ('1s t', '24t h', '19 th')
_DAY = r"(?P<day>[0-3]?\d)(?:[ \t]?(?:st|nd|rd|th)\b|(?:s[ \t]t|n[ \t]d|r[ \t]d|t[ \t]h)\b)?"
# between the day or month and the year: 'June 1, 1999', 'June 1,1999', 'April 15 , 2010'
_TO_YEAR = r"(?:[ \t\n]*,[ \t\n]*|[ \t\n]+)"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DATE_FORMS = (
    # 'September 23, 2016', 'Sept. 23rd 2016'
    re.compile(r"\b" + _MONTH + r"[ \t\n]+" + _DAY + _TO_YEAR + _YEAR, re.IGNORECASE),
    # '23 September 2016', '23rd day of September, 2016', 'the 1st of May 2020'; run on to the
    # word before ('as of1 August 2019') or a rule after 'day of' ('1st day of --- May, 2003')
    re.compile(
        r"(?<![\d/.-])"
        + _DAY
        + r"[ \t\n]+(?:day[ \t\n]+)?(?:of[ \t\n]+)?(?:[-_]{2,}[ \t\n]+)?"
        + _MONTH
        + _TO_YEAR
        + r"(?:in[ \t\n]+the[ \t\n]+year[ \t\n]+)?"
        + _YEAR,
        re.IGNORECASE,
    ),
    # '9/23/2016', '09-23-2016' (US order, as EDGAR filings write them); '17/09/2024', a day
    # over 12 first, is read day first
    re.compile(r"\b(?P<month>[0-3]?\d)[/-](?P<day>[0-3]?\d)[/-]" + _YEAR + r"\b"),
    # '03.04.2024': dotted, day first (as European contracts write them)
    re.compile(r"\b(?P<day>[0-3]?\d)\.(?P<month>[01]?\d)\." + _YEAR + r"\b"),
    # '11/4/10': US order with a two-digit year (19xx from 50 on)
    re.compile(r"\b(?P<month>[01]?\d)/(?P<day>[0-3]?\d)/(?P<yy>\d\d)(?![\w/])"),
    # '29/3/18': a day over 12 first, day first
    re.compile(r"\b(?P<day>1[3-9]|2\d|3[01])/(?P<month>[01]?\d)/(?P<yy>\d\d)(?![\w/])"),
    # '2016-09-23'
    re.compile(r"\b" + _YEAR + r"-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b"),
    # '2016年9月23日', '二〇二五年一月八日'
    re.compile(_YEAR + r"\s*年\s*(?P<month>[01]?\d)\s*月\s*(?P<day>[0-3]?\d)\s*日"),
    re.compile(
        r"(?P<year>[一二〇零○][〇零○一二三四五六七八九]{3})\s*年\s*(?P<month>[一二三四五六七八九十]{1,3})"
        r"\s*月\s*(?P<day>[一二三四五六七八九十]{1,3})\s*日"
    ),
)


def _number(text: str) -> int:
    """An Arabic or a Chinese number ('2025', '二〇二五', '十二')."""
    if text.isdigit():
        return int(text)
    return chinese_to_int(text.replace("○", "〇")) or 0


@dataclass(frozen=True, slots=True)
class FoundDate:
    """A calendar date written in the text."""

    start: int
    end: int
    value: date


def find_dates(text: str) -> list[FoundDate]:
    """Every date written in `text`, in order ('September 23, 2016', '23rd day of September,
    2016', '9/23/2016', '2016-09-23', '2016年9月23日')."""
    found: dict[int, FoundDate] = {}
    for pattern in _DATE_FORMS:
        for m in pattern.finditer(text):
            month_text = m.group("month").lower().rstrip(".")
            month = _MONTHS.get(month_text) or _number(month_text)
            day = _number(m.group("day"))
            if month > 12 and day <= 12:
                month, day = day, month  # '17/09/2024': day first
            groups = m.groupdict()
            year = _number(groups["year"]) if groups.get("year") else int(groups["yy"])
            if year < 100:
                year += 1900 if year >= 50 else 2000
            try:
                value = date(year, month, day)
            except ValueError:
                continue
            if m.start() not in found:
                found[m.start()] = FoundDate(m.start(), m.end(), value)
    return [found[k] for k in sorted(found)]


_WORD_NUMBER = "|".join(
    sorted((w for w in ENGLISH_NUMBER_WORDS if w.isalpha()), key=len, reverse=True)
)
_NUMBER = r"(?P<num>\d{1,4}|(?:" + _WORD_NUMBER + r")(?:[- ](?:" + _WORD_NUMBER + r"))?|an?(?= ))\b"
# 'ten (10) Contract Years', 'twelve (12) full calendar months'
_UNIT = (
    r"(?P<unit>business[ \t\n]+days?|(?:(?:full|consecutive|contract|calendar)[ \t\n]+){0,2}"
    r"(?:days?|weeks?|months?|years?)|日|天|个月|月|年)"
)
_PERIOD = re.compile(
    r"(?:"
    + _NUMBER
    + r"[ \t\n]*(?:\([ \t]*(?P<paren>\d{1,4})[ \t]*\)[ \t\n]*)?[- ]?"
    + _UNIT
    + r"\b)",
    re.IGNORECASE,
)
_ZH_PERIOD = re.compile(r"(?P<num>[\d一二两三四五六七八九十百]+)\s*(?P<unit>个月|日|天|月|年)")
_UNIT_NAMES = {"日": "day", "天": "day", "个月": "month", "月": "month", "年": "year"}


def _period_value(num: str, paren: str | None) -> int | None:
    if paren:
        return int(paren)
    if num.isdigit():
        return int(num)
    if num.lower() in ("a", "an", "one"):
        return 1
    value = english_words_to_int(num.lower().replace("-", " "))
    if value is None:
        value = chinese_to_int(
            num, extended=False, digit_string=False, bare_units=True, arabic=True
        )
    return value


def _periods(text: str) -> list[str]:
    """Every period in `text`, in order, as 'N unit(s)'."""
    found: list[tuple[int, str]] = []
    for pattern in (_PERIOD, _ZH_PERIOD):
        for m in pattern.finditer(text):
            value = _period_value(m.group("num"), m.groupdict().get("paren"))
            if not value:
                continue
            raw = " ".join(m.group("unit").lower().split())
            if not raw.startswith("business"):
                raw = raw.split()[-1]  # 'full calendar months': months
            unit = _UNIT_NAMES.get(raw, raw.rstrip("s"))
            found.append((m.start(), f"{value} {unit}{'s' if value != 1 else ''}"))
    return [period for _, period in sorted(found)]


def normalise_period(text: str) -> str:
    """The first period in `text` as 'N unit(s)' ('ninety (90) days' → '90 days', 'one-year'
    → '1 year', '三十日' → '30 days'); '' when there is none."""
    periods = _periods(text)
    return periods[0] if periods else ""


# the words around the place in any case ('the Laws of the Netherlands', 'the laws of The State
# of Florida', 'the laws of the state of New York'); the place itself capitalised
_JURISDICTION = re.compile(
    r"(?i:laws?)[ \t\n]+(?i:and[ \t\n]+regulations[ \t\n]+)?(?i:in[ \t\n]+force[ \t\n]+)?(?i:of|in)[ \t\n]+"
    r"(?i:the[ \t\n]+)?(?:(?i:State|Commonwealth|Province|Republic)[ \t\n]+of[ \t\n]+)?"
    r"(?P<name>[A-Z][\w'-]*(?:[ \t\n]+(?:of[ \t\n]+|and[ \t\n]+)?[A-Z][\w'-]*){0,4})"
)
_GOVERNED = re.compile(
    r"govern(?:ed|s)\b|constru(?:ed|ction)\b|interpret|applicable[ \t\n]+law|适用|管辖", re.I
)
_ZH_JURISDICTION = re.compile(
    r"(?P<name>中华人民共和国|中国|香港特别行政区|香港|新加坡|英国|美国)[^，。；]{0,6}法律"
)
_ZH_NAMES = {
    "中华人民共和国": "People's Republic of China",
    "中国": "People's Republic of China",
    "香港特别行政区": "Hong Kong",
    "香港": "Hong Kong",
    "新加坡": "Singapore",
    "英国": "England and Wales",
    "美国": "United States",
}
_NOT_PLACES = frozenset(["the", "this", "such", "any", "applicable", "all", "each"])


def normalise_jurisdiction(name: str) -> str:
    """A governing law as its place's name: 'the State of New York, U.S.A.' → 'New York'."""
    name = re.sub(r"\s+", " ", name).strip(" .,;")
    name = re.sub(r"^(?:the )?(?:State|Commonwealth|Province|Republic) of ", "", name, flags=re.I)
    name = re.sub(
        r"(?:,? (?:U\.S\.A|USA|United States(?: of America)?)\.?|,? without .*)$", "", name
    )
    # 'governed by English law': the place
    places = dict(
        zip(_word_list_raw("demonyms")[::2], _word_list_raw("demonyms")[1::2], strict=True)
    )
    return _ZH_NAMES.get(name) or places.get(name, name)


_PLACE_NAME = r"(?P<name>[A-Z][\w'-]*(?:[ \t\n]+(?:of[ \t\n]+)?[A-Z][\w'-]*){0,3})"
_STATE_OF = re.compile(r"\b(?i:State|Commonwealth|Province)[ \t\n]+of[ \t\n]+" + _PLACE_NAME)
_NAME_LAW = re.compile(
    r"\b(?:by|under|with)[ \t\n]+(?:the[ \t\n]+)?" + _PLACE_NAME + r"[ \t\n]+law\b"
)


def _unshout(text: str) -> str:
    """A sentence in capitals in title case ('THE LAWS OF THE STATE OF NEW YORK' → 'the Laws
    of the State of New York'), so that a place reads as a name; other text as it is."""
    letters = [c for c in text if c.isalpha()]
    if not letters or sum(c.isupper() for c in letters) < 0.8 * len(letters):
        return text
    small = _words("title_small_words")
    return re.sub(
        r"[A-Za-z][\w'-]*",
        lambda m: m.group().lower() if m.group().lower() in small else m.group().capitalize(),
        text,
    )


def _governing_law(text: str) -> tuple[str, str]:
    text = "\n".join(_unshout(line) for line in text.split("\n"))
    zh = _ZH_JURISDICTION.search(text)
    if zh is not None:
        return _ZH_NAMES[zh.group("name")], zh.group()
    for pattern in (_STATE_OF, _NAME_LAW):
        m = pattern.search(text)
        if m is not None:
            return normalise_jurisdiction(m.group("name")), m.group()
    for m in _JURISDICTION.finditer(text):
        name = m.group("name")
        if name.split()[0].lower() in _NOT_PLACES:
            continue
        # 'the State of New York and the United States' keeps the state
        name = re.split(
            r"[ \t\n]+(?:and|without|excluding|including)[ \t\n]+(?:the[ \t\n]+)?(?:United|its|any|regard|conflict)",
            name,
        )[0]
        return normalise_jurisdiction(name), m.group()
    return "", ""


# --------------------------------------------------------------------------------------------
# The head of the document: name, parties, dates
# --------------------------------------------------------------------------------------------

_TITLE_WORDS = re.compile(
    r"\b(?:AGREEMENT|CONTRACT|LICEN[CS]E|LEASE|ADDENDUM|AMENDMENT|MEMORANDUM|DEED|"
    r"INDENTURE|TERMS|ORDER|PLAN|NOTE|协议|合同)\b|协议|合同",
    re.IGNORECASE,
)
_NOT_TITLE = re.compile(
    r"^\W*(?:exhibit|table of contents|execution|confidential|source:|page)\b", re.I
)
_THIS_NAME = re.compile(
    # a name may start as brands do ('This e-business Hosting Agreement')
    r"\b(?:This|THIS)[ \t\n]+(?P<name>(?:(?:[A-Z]|[a-z]{1,2}-)[\w&,'-]*[ \t\n]+){1,8}?"
    r"(?:Agreement|AGREEMENT|Contract|CONTRACT))\b"
)


def _head(structure: DocumentStructure, size: int = 3000) -> str:
    """The first `size` characters of the document (its title, preamble and first clause)."""
    parts: list[str] = []
    for c in structure.clauses:
        parts.append(c.text)
        if sum(len(p) for p in parts) >= size:
            break
    return "\n".join(parts)[:size]


_AMENDED = re.compile(
    r"(?:(?:FIRST|SECOND|THIRD|FOURTH|FIFTH)[ ])?(?:AMENDED(?:[ ]AND[ ]RESTATED)?|RESTATED)",
    re.IGNORECASE,
)


def _title_piece(piece: str) -> bool:
    """A heading that names a contract: title case or capitals (or a line in sentence case,
    'Distributorship agreement'), a contract word, not a bare 'AGREEMENT', not a numbered
    clause, not the start of a sentence."""
    if not piece or piece[-1] in ",;:" or re.match(r"\d", piece):
        return False
    if re.search(r"协议|合同", piece):
        return len(piece) <= 40
    words = piece.split()
    if not (_TITLE_WORDS.search(piece) and 2 <= len(words) <= 12):
        return False
    return (
        piece.isupper()
        or all(w[:1].isupper() or (w.islower() and len(w) <= 3) for w in words)
        or (
            len(words) <= 6
            and words[0][:1].isupper()
            and words[0].lower() not in _words("title_stops")
            and all(w.islower() for w in words[1:])
            and _TITLE_WORDS.fullmatch(words[-1]) is not None
        )
    )


@cache
def _word_list(key: str) -> tuple[str, ...]:
    """A word list of the value readers (`value_words` of `inventory.yaml`), lower case."""
    data = read_yaml(_CATALOGUE.read_text(encoding="utf-8"))
    return tuple(str(w).lower() for w in (data.get("value_words") or {}).get(key) or ())


@cache
def _word_list_raw(key: str) -> tuple[str, ...]:
    """A word list of the value readers as written (`value_words` of `inventory.yaml`)."""
    data = read_yaml(_CATALOGUE.read_text(encoding="utf-8"))
    return tuple(str(w) for w in (data.get("value_words") or {}).get(key) or ())


@cache
def _words(key: str) -> frozenset[str]:
    return frozenset(_word_list(key))


_EXHIBIT = re.compile(r"^\W*exhibit[ \t]+(?=\S*\d|\S{1,3}(?:\s|$))\S+[ \t]*", re.IGNORECASE)
_REFERENCE_NO = re.compile(r"[ \t]+(?:\w+[ \t]+)?(?:No|Number|Ref)\.?[ \t]*[:#].*$", re.IGNORECASE)


def _cut_title(piece: str) -> str:
    """`piece` up to where a title ends: before the words that start the preamble ('Promotion
    Agreement Between …') or a reference number ('Agreement No: 190305'), at its last contract
    word ('Collaboration Agreement, BII/ XENCOR'; 'Software License, Customization and
    Maintenance Agreement' is one title)."""
    kept: list[str] = []
    for word in _REFERENCE_NO.sub("", piece).split():
        if kept and word.lower().strip(",.:;") in _words("title_stops"):
            break
        kept.append(word)
    return " ".join(_to_last_title_word(kept))


def _to_last_title_word(words: list[str]) -> list[str]:
    """`words` up to their last contract word among the first twelve, unless what follows
    joins on ('… AGREEMENT FOR VARIABLE ANNUITY CONTRACTS'); none without a contract word."""
    ends = [
        i
        for i, w in enumerate(words[:12])
        if _TITLE_WORDS.fullmatch(w.strip(",.:;")) or re.search(r"(?:协议|合同)$", w)
    ]
    if not ends:
        return []
    last = ends[-1]
    if words[last + 1 : last + 2] and words[last + 1].lower() in _words("title_joins"):
        kept = words
    else:
        kept = words[: last + 1]
    return [*kept[:-1], kept[-1].rstrip(",.:;")]


def _capitals_title(text: str) -> str:
    """The title a run of capitals at the start of `text` gives ('WHOLESALE MARKETING AGREEMENT
    THIS AGREEMENT is …', 'ASIA PACIFIC CABLE NETWORK 2   CONSTRUCTION AND MAINTENANCE
    AGREEMENT'), '' when none: the run ends at its last contract word, unless what follows
    joins on ('… AGREEMENT FOR VARIABLE ANNUITY CONTRACTS')."""
    run: list[str] = []
    for word in text.split():
        bare = word.strip(",.:;")
        if (
            not bare
            or not (bare.isupper() or bare in ("&", "#") or bare.isdigit())
            or (run and bare.lower() in _words("title_stops"))
        ):
            break
        run.append(word)
        if word[-1] in ".:;":
            break
    if len(run) < 2 or any(w.lower().strip(",") in _words("sentence_words") for w in run):
        return ""
    run = _to_last_title_word(run)
    half = len(run) // 2
    if len(run) % 2 == 0 and [w.strip(",") for w in run[:half]] == run[half:]:
        run = run[:half]  # 'SERVICES AGREEMENT SERVICES AGREEMENT, dated …'
    return " ".join(run) if 2 <= len(run) <= 14 else ""


def _document_name(head: str) -> str:
    raw_lines = head.splitlines()[:40]
    lines = [re.sub(r"\s+", " ", line).strip(" *#_") for line in raw_lines]
    for i, raw in enumerate(raw_lines):
        body = _EXHIBIT.sub("", raw.strip(" *#_"))
        pieces = [
            re.sub(r"\s+", " ", re.sub(r"\[[^\]]*\]", " ", p)).strip(" *#_")
            for p in re.split(r" {3,}|\t", body)
        ]
        found = ""
        for j, piece in enumerate(pieces):
            if not piece or _NOT_TITLE.match(piece):
                continue
            found = _capitals_title(" ".join(pieces[j:]))
            if not found and len(piece) <= 120 and _title_piece(cut := _cut_title(piece)):
                found = cut
            if found:
                break
        if found:
            # 'AMENDED AND RESTATED' on the line above a title is part of it
            above = next((x for x in reversed(lines[:i]) if x), "")
            if _AMENDED.fullmatch(above):
                found = f"{above} {found}"
            return found
    m = _THIS_NAME.search(head)
    return re.sub(r"\s+", " ", m.group("name")) if m else ""


_DATED = re.compile(
    r"\b(?:dated|made|entered[ \t\n]+into|executed|as[ \t\n]+of|effective|signed|"
    r"day[ \t\n]+of)\b|签订|签署|订立|签约",
    re.IGNORECASE,
)
_EFFECTIVE = re.compile(
    r"\beffective\b|\btakes?[ \t\n]+effect\b|\bcomes?[ \t\n]+into[ \t\n]+(?:force|effect)\b|"
    r"\benters?[ \t\n]+into[ \t\n]+force\b|生效",
    re.IGNORECASE,
)
# '自双方签署之日起生效', 'effective on the date of its execution': it takes effect when signed
_ON_SIGNING = re.compile(
    r"(?:签署|签字|签章|盖章|签订)[^。；，]{0,12}之日起[^。；，]{0,4}生效|"
    r"\b(?:effective|take[s]?[ \t\n]+effect)[ \t\n]+(?:up)?on[ \t\n]+(?:the[ \t\n]+date[ \t\n]+of[ \t\n]+)?"
    r"(?:its[ \t\n]+)?(?:execution|signature|signing)\b",
    re.IGNORECASE,
)
# a definition that points elsewhere: 'has the meaning given in Clause 14.1'
_POINTER = re.compile(
    r"\b(?:set[ \t\n]+forth|given|defined|specified|stated|provided)[ \t\n]+(?:in|at|under)\b|"
    r"\bmeaning\b|\bpreamble\b|\babove\b|\bbelow\b",
    re.IGNORECASE,
)
# a Chinese date the signing words follow: '于2023年5月5日在深圳市签订'
_ZH_SIGNED_AFTER = re.compile(r"[^。；\n]{0,16}?(?:签订|签署|订立|签约)")
_AS_AGREED = re.compile(
    r"date[ \t\n]+(?:first[ \t\n]+)?(?:written|set[ \t\n]+forth|stated|above)|date[ \t\n]+hereof|"
    r"date[ \t\n]+of[ \t\n]+this[ \t\n]+agreement|execution[ \t\n]+date",
    re.IGNORECASE,
)


# A date left to be filled in when the contract is signed: '[ ] day of [ ], 2020',
# '____ day of __________, 20__', '[●], 2019'.
_BLANK = r"(?:\[[^\]\n]{0,8}\]|_{2,})"
_BLANK_DATE = re.compile(
    _BLANK
    + r"[ \t]*(?:(?:st|nd|rd|th)[ \t]+)?(?:day[ \t\n]+of[ \t\n]+)?(?:"
    + _BLANK
    + r"|"
    + _MONTH
    + r"(?:[ \t]+"
    + _BLANK
    + r")?)?,?[ \t\n]+(?:19|20)(?:\d\d|_{1,4}|\[[^\]\n]{0,4}\])"
    # '____年__月__日', '2024年   月   日'
    r"|(?:(?:19|20)\d\d|_{2,}|[ \t\u3000]{2,})[ \t\u3000]*年[ \t\u3000]*(?:_+|[ \t\u3000]{2,})"
    r"[ \t\u3000]*月[ \t\u3000]*(?:_+|[ \t\u3000]{2,})[ \t\u3000]*日",
    re.IGNORECASE,
)


def has_blank_date(text: str) -> bool:
    """Whether `text` holds a date left to be filled in ('____ day of ______, 2020')."""
    return _BLANK_DATE.search(text) is not None


def _agreement_date(
    head: str, repeated: frozenset[str], whole: str = ""
) -> tuple[date | None, str]:
    """The contract's date and the words that give it; a date left blank ('[ ] day of [ ],
    2020') is no date but still the contract's date line. With no date said to date it in the
    head, the contract's date is read on (`whole`: the contract's text): its opening past a
    table of contents, the sentence it is signed by, then the first date of the head, then the
    latest date of its signature blocks."""
    dates = [d for d in find_dates(head) if _line_of(head, d.start) not in repeated]
    written: list[tuple[int, int, date | None]] = sorted(
        [(d.start, d.end, d.value) for d in dates]
        + [(b.start(), b.end(), None) for b in _BLANK_DATE.finditer(head)]
    )
    for start, end, value in written:
        context = head[max(0, start - 120) : start]
        if _DATED.search(context) or _ZH_SIGNED_AFTER.match(head, end):
            return value, head[max(0, start - 40) : end]
    # 'This PROMOTION AGREEMENT … is entered into as of May 31, 2019' past a table of contents
    opening = whole[:_OPENING_SIZE]
    for d in find_dates(opening):
        context = opening[max(0, d.start - 200) : d.start]
        if d.start > len(head) // 2 and _SELF_DATED.search(context):
            return d.value, opening[max(0, d.start - 40) : d.end]
    executed = _execution_date(whole)
    if executed is not None:
        return executed
    if dates:
        d = dates[0]
        return d.value, head[max(0, d.start - 40) : d.end]
    signed = _signature_dates(whole)
    if signed:
        return max(signed), ""
    return None, ""


_OPENING_SIZE = 15_000
"""How far into a contract its preamble is looked for (past a table of contents)."""
# the contract dating itself: 'This … Agreement (the "Agreement") is entered into as of'
_SELF_DATED = re.compile(
    r"\bthis[ \t\n]+(?:[\w&,.'’-]+[ \t\n]+){0,8}?(?:agreement|contract)\b[^.;]{0,120}?"
    r"\b(?:dated|made|entered[ \t\n]+into|executed|as[ \t\n]+of|signed)\b[^.;]{0,40}$",
    re.IGNORECASE,
)
# the sentence a contract is signed by: 'IN WITNESS WHEREOF … executed this Agreement on',
# 'Signed and effective this 25th day of May, 1999'
_EXECUTION = re.compile(
    r"\bin[ \t\n]+witness[ \t\n]+where(?:of|to)\b|^\W*(?:signed|executed|dated)\b|"
    r"\b(?:signed|executed)[ \t\n]+(?:this|on|at|in)\b",
    re.IGNORECASE,
)
_SIGNATURE_MARK = re.compile(r"/s/|\bBy:|\bName:|\bTitle:|\bSignature\b", re.IGNORECASE)


def _execution_date(text: str) -> tuple[date, str] | None:
    """The date of the sentence the contract is signed by, or of a line holding a date alone
    ('Hamburg, November 19th, 2012') just above the signatures."""
    for sentence in _sentences(text):
        if len(sentence) > 600 or not _EXECUTION.search(sentence):
            continue
        found = find_dates(sentence)
        if found:
            return found[0].value, sentence.strip()[:300]
    for m in re.finditer(
        r"(?m)^[ \t]*(?:[A-Z][\w .'-]{1,30},[ \t]*)?(?P<date>[^\n]{6,30}?)[ \t]*$", text
    ):
        found = find_dates(m.group("date"))
        if (
            found
            and found[0].end - found[0].start >= len(m.group("date").strip()) - 1
            and _SIGNATURE_MARK.search(text, m.end(), m.end() + 300)
        ):
            return found[0].value, m.group().strip()
    return None


def _signature_dates(text: str) -> list[date]:
    """The dates of the 'Date:' lines of the signature blocks."""
    return [
        d.value
        for m in re.finditer(r"\b(?:date|dated)[ \t]*:", text, re.IGNORECASE)
        for d in find_dates(text[m.end() : m.end() + 40])[:1]
    ]


def _line_of(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start : end if end != -1 else len(text)].strip()


def _effective_date(
    structure: DocumentStructure,
    head: str,
    dated: tuple[date | None, str],
    repeated: frozenset[str],
) -> tuple[date | None, str]:
    """The date the contract takes effect and the words that give it; with no date of its
    own, the contract's date (`dated`: `_agreement_date`'s answer)."""
    agreed, agreed_quote = dated
    for term, defined in structure.definitions.items():
        if term.casefold() not in ("effective date", "commencement date", "生效日"):
            continue
        found = find_dates(defined.definition)
        if found:
            # a label after its date ('made March 14 but effective as of March 1 ("Effective
            # Date")') names the date nearest it
            nearest = found[-1] if defined.source == "inline" else found[0]
            return nearest.value, defined.definition[:200]
        # 'the date hereof', 'the date on which the Parties sign this Agreement': its date
        signing = re.search(r"\b(?:sign|execut)\w*", defined.definition, re.I)
        if (
            _AS_AGREED.search(defined.definition)
            or (signing and not _LAST_SIGNATURE.search(defined.definition))
        ) and agreed is not None:
            return agreed, defined.definition[:200]
        if defined.source != "inline" and not (
            _LAST_SIGNATURE.search(defined.definition) or _POINTER.search(defined.definition)
        ):
            # 'the date on which the first invoice is paid': an event, no date to give ('has
            # the meaning given in Clause 14.1' points elsewhere: read on)
            return None, defined.definition[:200]
    dates = [d for d in find_dates(head) if _line_of(head, d.start) not in repeated]
    for d in dates:
        # '自2024年1月1日起生效': the Chinese says it after the date
        if _ZH_TAKES_EFFECT.match(head, d.end):
            return d.value, head[max(0, d.start - 10) : d.end + 6]
    for d in dates:
        before = head[max(0, d.start - 80) : d.start]
        said = list(_EFFECTIVE.finditer(before))
        # not when an end comes between ('… 生效，有效期至2025年12月31日', 'effective until')
        if said and not _UNTIL_WORD.search(before[said[-1].end() :]):
            return d.value, head[max(0, d.start - 40) : d.end]
    whole = "\n".join(c.text for c in structure.clauses)
    signing = _ON_SIGNING.search(whole)
    if signing is not None and agreed is not None:
        # '本合同自双方签字盖章之日起生效': the contract's date, whenever its term starts
        return agreed, whole[max(0, signing.start() - 40) : signing.end()]
    # 'This Agreement will commence on November 1st, 2017', 'a fixed term beginning November
    # 27, 2018', '有效期自2024年1月1日起': the term starts on it
    for clause in structure.clauses:
        if not (
            _COMMENCE.search(clause.text) or _EFFECTIVE.search(clause.text) or "起" in clause.text
        ):
            continue
        for sentence in _sentences(clause.text):
            if len(sentence) > 1500 or not _TERM_WORDS.search(sentence):
                continue
            for d in find_dates(sentence):
                before = sentence[max(0, d.start - 40) : d.start]
                said = list(_COMMENCE.finditer(before)) or list(_EFFECTIVE.finditer(before))
                if _ZH_FROM_DATE.match(sentence, d.end) or (
                    said and not _UNTIL_WORD.search(before[said[-1].end() :])
                ):
                    return d.value, sentence.strip()
    # 'comes into force on the date on which it has been signed by the last of the Parties':
    # the latest date of the signature blocks
    signed = _last_signature(whole)
    if signed is not None:
        return signed
    # 'effective as of the date first written above', an 'Effective Date' used but dated only
    # in the heading: the contract takes effect on its date
    if re.search(r"Effective Date|effective (?:as of|on)|生效", whole):
        return agreed, agreed_quote if agreed is None else ""
    # a term whose start is not said runs from the contract's date, as does a contract its
    # date line says is effective ('Signed and effective this 25th day of May, 1999')
    if re.search(r"\bterm\b", whole, re.I) or re.search(r"\beffective\b", agreed_quote, re.I):
        return agreed, agreed_quote if agreed is None else ""
    return None, ""


_ZH_TAKES_EFFECT = re.compile(r"[ \t\u3000]*(?:起|开始)?[ \t\u3000]*(?:正式)?生效")
_UNTIL_WORD = re.compile(r"\b(?:until|through|to|expir\w*|end\w*)\b|至|止|到期|届满", re.IGNORECASE)
_COMMENCE = re.compile(r"\b(?:commenc|begin|beginning|start)\w*", re.IGNORECASE)
_ZH_FROM_DATE = re.compile(r"[ \t\u3000]*(?:起|开始)")
_LAST_SIGNATURE = re.compile(
    r"\blast[ \t\n]+(?:of[ \t\n]+the[ \t\n]+(?:parties|signatories)[ \t\n]+to[ \t\n]+sign|"
    r"signature|party[ \t\n]+to[ \t\n]+sign)|\b(?:both|all)[ \t\n]+(?:of[ \t\n]+the[ \t\n]+)?"
    r"parties[ \t\n]+have[ \t\n]+(?:signed|executed)|\bsigned[ \t\n]+by[ \t\n]+(?:both|all)[ \t\n]+"
    r"(?:of[ \t\n]+the[ \t\n]+)?parties|最后(?:一方)?签(?:字|署|章)|双方(?:均已)?签(?:字|署)(?:盖章)?之日",
    re.IGNORECASE,
)
_SIGNED_ON = re.compile(
    r"(?im)^[ \t]*(?:[\w ]{0,12}/[ \t]*)?(?:date|dated|signed on|日期|签署日期|签字日期)[ \t]*[:：]"
)


def _last_signature(text: str) -> tuple[date, str] | None:
    """The latest date of the signature blocks of the contract's `text`, when the contract
    takes effect on its last signature."""
    said = _LAST_SIGNATURE.search(text)
    if said is None:
        return None
    tail = text[len(text) * 2 // 3 :]
    dates = [
        d.value for line in tail.splitlines() if _SIGNED_ON.match(line) for d in find_dates(line)
    ]
    if not dates:
        return None
    return max(dates), text[max(0, said.start() - 80) : said.end() + 40]


# the preamble's list of parties ('by and between', 'B E T W E E N:', 'concluded between:')
# and where it ends (the recitals)
_BETWEEN_WORD = re.compile(
    r"\b(?:between|among(?:st)?)\b|\bB[ ]E[ ]T[ ]W[ ]E[ ]E[ ]N\b|\bby[ \t\n]+(?=[A-Z]{2})",
    re.IGNORECASE,
)
_RECITALS = re.compile(
    r"\bWHEREAS\b|\bRECITALS?\b|W[ ]?I[ ]?T[ ]?N[ ]?E[ ]?S[ ]?S[ ]?E[ ]?T[ ]?H|\bNOW,?[ \t\n]+THEREFORE\b|"
    r"\bBACKGROUND\b|TABLE[ \t\n]+OF[ \t\n]+CONTENTS|\bIntroduction\b|\n[ \t]*1\.[ \t]",
)
_NAME_WORD = re.compile(r"(?:[A-Z0-9][\w&'’.-]*|\([A-Z][\w.]*\)|&|of|de|du|la|del)$")


@cache
def _legal_form() -> re.Pattern[str]:
    """A company's legal form as written (`legal_forms` of `inventory.yaml`, or in capitals)."""
    forms = sorted(
        {f for w in _word_list_raw("legal_forms") for f in (w, w.upper())}, key=len, reverse=True
    )
    return re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, forms)) + r")(?![\w])")


def _preamble_companies(opening: str) -> list[str]:
    """The names with a legal form ('Fonterra (USA) Inc.', 'PAGEMASTER CORPORATION') that the
    preamble lists between its 'between' and its recitals."""
    at = _BETWEEN_WORD.search(opening)
    if at is None:
        return []
    end = _RECITALS.search(opening, at.end())
    segment = opening[at.end() : end.start() if end else at.end() + 2500][:2500]
    # a filing's page stamp ('Source: ACME INC., 10-K, 3/21/2019') names the filer, no party
    segment = re.sub(r"(?im)^[ \t]*source:.*$", "", segment)
    names: list[str] = []
    for form in _legal_form().finditer(segment):
        words: list[str] = []
        before = segment[max(0, form.start() - 120) : form.start()].rstrip(" ,\t")
        if "\n\n" in before:
            before = before.rsplit("\n\n", 1)[1]
        tokens = before.split()
        while tokens:
            bare = tokens[-1].rstrip(",")
            if (
                len(words) >= 7
                or not _NAME_WORD.match(bare)
                or bare.lower() == "and"  # 'X Inc. and Y LLC': two names
                or re.fullmatch(r"[\d.]*\d\.[\w.]*", bare)  # '2020.', '10.C.': no name's
            ):
                break
            words.insert(0, bare)
            if tokens.pop().endswith(","):
                break
        while words and words[0].lower() in ("&", "of", "de", "du", "la", "del", "and"):
            words.pop(0)
        if not words or not any(w[:1].isupper() for w in words):
            continue
        if tokens and tokens[-1].lower() in ("a", "an"):
            continue  # 'a Pennsylvania Corporation': a description, no name
        if {w.lower() for w in words} & _words("sentence_words") or ".." in " ".join(words):
            continue
        comma = "," if segment[: form.start()].rstrip(" \t").endswith(",") else ""
        names.append(" ".join(words) + comma + " " + form.group())
    return list(dict.fromkeys(names))


_WITNESS = re.compile(r"\bin[ \t\n]+witness[ \t\n]+where(?:of|to)\b", re.IGNORECASE)


def _signature_companies(whole: str) -> list[str]:
    """The names in capitals that head the signature blocks after 'IN WITNESS WHEREOF'
    ('NETZEE, INC.      THE BANKERS BANK, a Georgia banking corporation' above 'By:')."""
    said = list(_WITNESS.finditer(whole))
    if not said:
        return []
    lines = [x for x in whole[said[-1].end() : said[-1].end() + 3000].splitlines() if x.strip()]
    names: list[str] = []
    for i, line in enumerate(lines[1:-1], 1):
        if not any(re.match(r"\s*(?:By\b|/s/)", x) for x in lines[i + 1 : i + 3]):
            continue  # a name heads its block: 'By:' follows within two lines
        for column in re.split(r" {3,}|\t", line.strip()):
            name = re.split(r",[ \t]+(?:a|an)[ \t]", column)[0].strip(" ,:")
            letters = [c for c in name if c.isalpha()]
            if (
                len(letters) >= 3
                and sum(c.isupper() for c in letters) >= 0.8 * len(letters)
                and len(name.split()) <= 8
                and not re.match(r"(?:by|name|title|date|signature)\b", name, re.I)
            ):
                names.append(name)
    return names


def _bare_party(name: str) -> str:
    """A party's name without what a page layout ran into it: a signatory's title before it
    ('Chief Legal Officer BLACKSTONE CLARUS GP L.L.C.'), an item letter and a description
    ('(a) a contractual joint venture comprised of GA Retail, Inc.')."""
    words = name.split()
    titles = [
        i
        for i, w in enumerate(words[:-2])
        if i and w.lower().strip(".,") in _words("signatory_titles")
    ]
    if titles:
        words = words[titles[-1] + 1 :]
    while len(words) > 2 and (
        re.fullmatch(r"\(?[a-z0-9]{1,3}[.)]", words[0]) or words[0][:1].islower()
    ):
        words = words[1:]
    return " ".join(words) or name


def _not_a_party(name: str) -> bool:
    """A regulator or a company's organ a contract names ('Securities and Exchange
    Commission', 'the Board of Directors'): no party to it."""
    words = re.sub(r"[^\w ]+", " ", name).lower().split()
    # its head word: the last, or the one before 'of' ('Board of Directors of Acme, Inc.')
    head = words[words.index("of") - 1] if "of" in words[1:] else words[-1] if words else ""
    return bool(words) and (
        head in _words("not_party_heads")
        or words[-1] in _words("not_party_heads")
        or " ".join(words[-4:]) in _words("not_parties")
    )


_LABEL_AND = re.compile(r"\s*\((?:the\s+)?[\"“][^\"”]{1,40}[\"”]\)\s*,?\s*and\s+")


def _inventory_parties(structure: DocumentStructure, whole: str) -> list[str]:
    """The parties' names: those `find_parties` gives, without regulators and organs; with
    fewer than two, the companies the preamble lists added, or with none listed those that
    head the signature blocks."""
    names = [
        name
        for p in find_parties(structure)
        if not is_pronoun(p.name)
        # 'Clear Capital (the "Company") and RadialSpark, LLC': two names run together
        for part in _LABEL_AND.split(p.name)
        if part.strip() and not _not_a_party(name := _bare_party(part.strip(" ,")))
    ]
    # the same name twice, not two companies of one name ('Adaptimmune LLC', '… Limited')
    names = list({re.sub(r"[\W_]+", "", n.casefold()): n for n in reversed(names)}.values())[::-1]
    if len(names) < 2:
        keys = [_name_key(n) for n in names]
        listed = _preamble_companies(whole[:_OPENING_SIZE])
        for company in map(_bare_party, listed or _signature_companies(whole)):
            key = _name_key(company)
            if key and not any(key in k or k in key for k in keys) and not _not_a_party(company):
                names.append(company)
                keys.append(key)
    return list(dict.fromkeys(names))


def _name_key(name: str) -> str:
    return re.sub(r"[\W_]+", "", _legal_form().sub("", name).casefold())


# --------------------------------------------------------------------------------------------
# Term, renewal and notice
# --------------------------------------------------------------------------------------------

_PERPETUAL = re.compile(
    r"\bperpetu(?:al|ally|ity)\b|\bin[ \t\n]+(?:full[ \t\n]+)?force[ \t\n]+(?:and[ \t\n]+effect[ \t\n]+)?"
    r"until[ \t\n]+terminated\b|"
    r"\b(?:continue|remain)s?[ \t\n]+(?:in[ \t\n]+(?:full[ \t\n]+)?(?:force|effect)[ \t\n]+)?"
    r"(?:and[ \t\n]+effect[ \t\n]+)?until[ \t\n]+terminated\b|\bindefinite(?:ly)?\b|"
    r"\bno[ \t\n]+fixed[ \t\n]+(?:term|duration|(?:expiration|expiry|end|termination)[ \t\n]+date)\b|"
    r"长期有效|无固定期限",
    re.IGNORECASE,
)
_TERM_WORDS = re.compile(
    r"\bterm\b(?![ \t\n]+sheet)|\bexpire|\bterminates?[ \t\n]+on\b|\bremains?[ \t\n]+in[ \t\n]+(?:full[ \t\n]+)?(?:force|effect)|"
    r"\bcontinues?[ \t\n]+(?:in[ \t\n]+(?:full[ \t\n]+)?(?:force|effect)|for)|有效期|期限",
    re.IGNORECASE,
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.;])\s+|(?<=[。；！？])\s*|\n\s*\n")


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_SPLIT.split(text) if s.strip()]


# What comes just before the date a term ends on: 'until', 'through', 'expire on', 'and ending
# November 30th, 2019', 'November 01, 2014 to October 31, 2017', 'end the later of (i)'.
_UNTIL = re.compile(
    r"(?:\b(?:until|through|thru|to|expir(?:e[sd]?|ing|ation)(?:[ \t\n]+on)?|end(?:s|ing)?(?:[ \t\n]+on)?|"
    r"terminat(?:e[sd]?|ing)(?:[ \t\n]+on)?|later[ \t\n]+than)"
    r"\b[^,.;\d]{0,25}|至|止)$",
    re.IGNORECASE,
)
_FROM = re.compile(
    r"\b(?:from|after|following|commenc\w*|begin(?:s|ning)?|start(?:s|ing)?|of)\b|自|起", re.I
)


_OWN_TERM = re.compile(
    r"\b(?:this|the)[ \t\n]+(?:agreement|contract)\b.{0,80}\b(?:term|expire|continue|remain)|"
    r"\b(?:initial[ \t\n]+)?term[ \t\n]+of[ \t\n]+(?:this|the)[ \t\n]+(?:agreement|contract)\b|本(?:合同|协议)",
    re.IGNORECASE | re.DOTALL,
)


_SPAN = re.compile(r"\b(?:beginning|commencing|starting|from|effective)\b", re.IGNORECASE)
_TERM_LABEL = re.compile(r"\s*(?:initial[ \t]+)?term[ \t]*[:：]", re.IGNORECASE)


_AFTER_END = re.compile(
    r"\b(?:after|following|beyond|from)[ \t\n]+(?:the[ \t\n]+)?(?:date[ \t\n]+of[ \t\n]+)?"
    r"(?:any[ \t\n]+)?(?:termination|expiry|expiration|end)\b|(?:终止|届满|期满)(?:之?后)",
    re.IGNORECASE,
)


def _expiration(
    clause_texts: list[str],
    start: date | None,
    *,
    own_term_only: bool = False,
    titled: bool = False,
) -> tuple[str, str] | None:
    """(value, sentence) of the initial term's end: an ISO date or 'perpetual' (only when no
    sentence gives a date); None when no sentence says. `own_term_only`: read only sentences
    about the contract's own term; `titled`: the texts are the bodies of clauses headed 'Term',
    whose sentences need not say 'term' again ('TERM: November 1, 2014 to October 31, 2017')."""
    perpetual: tuple[str, str] | None = None
    for text in clause_texts:
        for sentence in _sentences(text):
            if len(sentence) > 1500:
                continue
            renew = next(
                (
                    m
                    for m in re.finditer(r"renew|extend|续", sentence, re.I)
                    # 'unless earlier terminated or extended': a caveat, the term goes on
                    if not _CAVEAT.search(sentence[max(0, m.start() - 30) : m.start()])
                ),
                None,
            )
            if renew and not re.search(r"initial", sentence, re.I):
                # '… twelve (12) months from the date hereof, and will be automatically
                # renewed …', '… unless extended': the term is what comes before
                sentence = sentence[: renew.start()]
            if not (titled or _TERM_WORDS.search(sentence)):
                continue
            defined = _DEFINES.match(sentence)
            if defined and not re.search(r"\bterm\b", defined.group(1), re.I):
                continue  # '"Calendar Quarter" means … ending on June 30': another term's
            if own_term_only and not (
                _OWN_TERM.search(sentence)
                or _TERM_LABEL.match(sentence)
                # 'a fixed term … beginning November 27, 2018 and ending November 30th, 2019'
                or (re.search(r"\bterm\b", sentence, re.I) and _SPAN.search(sentence))
                # '租赁期限自2024年3月1日起至2027年2月28日止'
                or re.search(r"(?:期限|有效期|租期)[^。；]{0,6}自", sentence)
            ):
                continue
            dates = find_dates(sentence)
            for d in dates:
                if _UNTIL.search(sentence[max(0, d.start - 40) : d.start].rstrip()):
                    return d.value.isoformat(), sentence.strip()
            # 'It shall be effective on 06 October 2000 and shall have a duration of two
            # years': the term starts on the date the sentence gives it
            begin = next(
                (
                    d.value
                    for d in dates
                    if re.search(
                        r"\b(?:commenc\w*|begin\w*|start\w*|effective|from)\b[^,.;\d]{0,20}$",
                        sentence[max(0, d.start - 40) : d.start],
                        re.I,
                    )
                ),
                start,
            )
            months = _term_months(sentence)
            if months is not None and begin is not None:
                # a term of N years from a date runs to its anniversary
                return _add_months(begin, months).isoformat(), sentence.strip()
            if perpetual is None and _PERPETUAL.search(sentence):
                perpetual = "perpetual", sentence.strip()
    return perpetual


_DEFINES = re.compile(
    r"\W*(?:\d+(?:\.\d+)*\W*)?[\"“]([^\"”]{1,40})[\"”][ \t\n]+"
    r"(?:means|shall[ \t\n]+mean|has[ \t\n]+the[ \t\n]+meaning)",
    re.IGNORECASE,
)
_CAVEAT = re.compile(r"\b(?:unless|or|if|except|without|nor)\b[^,.;]{0,25}$", re.IGNORECASE)
# what a contract's term is counted from: its own start, not an event ('five years following
# the date of launch of the first Website')
_TERM_ANCHOR = (
    r"(?:the[ \t\n]+)?(?:(?:effective|commencement|execution|start|signature)[ \t\n]+date|"
    r"date[ \t\n]+(?:hereof|of[ \t\n]+(?:this|the)[ \t\n]+(?:agreement|contract)|"
    r"of[ \t\n]+(?:its[ \t\n]+)?(?:execution|signature|signing)|first[ \t\n]+(?:above[ \t\n]+)?"
    r"(?:written|set[ \t\n]+forth))|execution|signing|(?:this|the)[ \t\n]+(?:agreement|contract))\b"
)
# the words before a term's length: 'continue for a period of', 'is', 'remain in effect for an
# initial period of', 'until', 'shall have a duration of'
_LENGTH_LEAD = re.compile(
    r"\b(?:for|of|until|is|be|last(?:s|ing)?|through|terminat\w*|expir\w*|end)[ \t\n]+"
    r"(?:(?:a|an|the|initial|minimum|maximum|fixed|further|period|term|of|at[ \t\n]+least)[ \t\n]+){0,5}$",
    re.IGNORECASE,
)
_FROM_WORD = re.compile(
    r"^[ \t\n]*\)?[ \t\n]*(?:(?:commencing|beginning|starting|running)[ \t\n]+(?:on|with|from|for)|"
    r"from(?:[ \t\n]+and[ \t\n]+(?:including|after))?|after|following|of)[ \t\n]+",
    re.IGNORECASE,
)
_ANNIVERSARY = re.compile(
    r"\b(?P<n>\w+)(?:[ \t\n]*\([ \t]*(?P<paren>\d{1,3})[ \t]*\))?(?:[- ]year)?[ \t\n]+anniversary"
    r"[ \t\n]+of[ \t\n]+" + _TERM_ANCHOR,
    re.IGNORECASE,
)
# '服务期限为二年', '有效期三年'
_ZH_TERM_LENGTH = re.compile(
    r"(?:期限|有效期|租期)[^。；，]{0,6}?(?P<num>[\d一二两三四五六七八九十百]+)\s*(?P<unit>个月|年)"
)


def _term_months(sentence: str) -> int | None:
    """How many months the contract's term runs from its start, by `sentence`: 'continue for a
    period of three (3) years (after the Effective Date)', 'until the first anniversary of the
    Effective Date'; None when it says no length, or counts it from an event."""
    m = _ANNIVERSARY.search(sentence)
    if m is not None:
        word = m.group("n").lower()
        ordinals = _word_list("ordinals")
        n = (
            int(m.group("paren"))
            if m.group("paren")
            else (ordinals.index(word) + 1 if word in ordinals else _period_value(word, None))
        )
        if n:
            return 12 * n
    zh = _ZH_TERM_LENGTH.search(sentence)
    if zh is not None:
        n = _period_value(zh.group("num"), None)
        if n:
            return n * (12 if zh.group("unit") == "年" else 1)
    for period in _PERIOD.finditer(sentence):
        lead = sentence[max(0, period.start() - 60) : period.start()]
        after = sentence[period.end() : period.end() + 80]
        if not _LENGTH_LEAD.search(lead) or re.search(
            r"notice|notif|\band[ \t\n]+for\b", lead[-40:], re.I
        ):
            continue  # a notice, or another duty's time: 'during the term and for three years'
        if _AFTER_END.search(after[:50]):
            continue  # 'five (5) years after termination': a survival period
        if re.match(
            r"[ \t\n]*(?:'s|’s|of)?[ \t\n]*(?:prior[ \t\n]+)?(?:written[ \t\n]+)?(?:notice|prior|before)",
            after,
            re.I,
        ):
            continue
        anchor = _FROM_WORD.match(after)
        if anchor is not None and not re.match(_TERM_ANCHOR, after[anchor.end() :], re.I):
            continue  # counted from an event, or after the term has ended
        value = _period_value(period.group("num"), period.group("paren"))
        unit = period.group("unit").lower().split()[-1]
        if value and unit.startswith("year"):
            return 12 * value
        if value and unit.startswith("month"):
            return value
    return None


# A sentence that says how long the contract itself lasts, whether or not a date can be worked
# out of it: 'shall remain in effect … until the expiration of the Royalty Term', 'shall
# expire upon completion of the Project', 'the term ("Term") of this Agreement shall be …'.
_TERM_STATED = re.compile(
    r"\b(?:initial[ \t\n]+)?term[ \t\n]+(?:\([^)]{0,20}\)[ \t\n]+)?of[ \t\n]+this[ \t\n]+"
    r"(?:agreement|contract)[ \t\n]+(?:shall|will|is|commences|begins|expires|ends)\b|"
    r"\bthis[ \t\n]+(?:agreement|contract)[ \t\n]+(?:shall|will)[ \t\n]+(?:\w+[ \t\n]+){0,10}?"
    r"(?:expire|end[ \t\n]+on|continue[ \t\n]+in[ \t\n]+(?:full[ \t\n]+)?(?:force|effect)|"
    r"continue[ \t\n]+(?:for|until|through)|remain[ \t\n]+in[ \t\n]+(?:full[ \t\n]+)?"
    r"(?:force|effect))\b|本(?:合同|协议)(?:的)?有效期",
    re.IGNORECASE,
)


_ENDS_ONLY_IF = re.compile(
    r"\b(?:expire|terminate|end|cease)s?[ \t\n]+(?:automatically[ \t\n]+)?(?:if|when|in[ \t\n]+the[ \t\n]+event|"
    r"upon[ \t\n]+(?:the[ \t\n]+)?(?:giving|delivery|receipt)[ \t\n]+of[ \t\n]+(?:a[ \t\n]+)?(?:written[ \t\n]+)?notice)\b|"
    r"\buntil\b[^.;]{0,300}\b(?:notice[ \t\n]+of[ \t\n]+termination|terminated[ \t\n]+by)\b",
    re.IGNORECASE,
)


def _term_stated(structure: DocumentStructure) -> str:
    """The first sentence stating the contract's own term, '' when none does."""
    for clause in structure.clauses:
        m = _TERM_STATED.search(clause.text)
        if m is not None:
            # the sentence as its own (sub-)clause holds it, not run on from a heading
            holder = structure.clause_at(clause.start_offset + m.start()) or clause
            return next((x for x in _sentences(holder.text) if m.group() in x), m.group()).strip()
    return ""


def _add_months(start: date, months: int) -> date:
    """`start` moved by whole months, on the same day or the month's last day."""
    index = start.year * 12 + start.month - 1 + months
    year, month = divmod(index, 12)
    for day in (start.day, 30, 29, 28):
        try:
            return date(year, month + 1, min(start.day, day))
        except ValueError:
            continue
    return date(year, month + 1, 28)


_RENEWAL = re.compile(r"renew|extend|extension|续期|续约|续展|续签|顺延|延续|延长", re.IGNORECASE)


_NO_RENEWAL = re.compile(
    r"不(?:自动)?(?:续期|续约|续签|延期)|\b(?:no|not|never)[ \t\n]+(?:be[ \t\n]+)?(?:automatically[ \t\n]+)?"
    r"(?:renew|extend)|\bno[ \t\n]+(?:automatic[ \t\n]+)?(?:renewal|extension)",
    re.IGNORECASE,
)


_EACH_UNIT = re.compile(
    r"\b(?:each|every)[ \t\n]+(?P<unit>year|month)\b|\b(?:from[ \t\n]+)?(?P<u2>year|month)[- ]to[- ](?:year|month)\b|"
    r"\b(?:an?|one)[ \t\n]+(?:additional|further|successive|subsequent|more)[ \t\n]+(?P<u3>year|month)\b",
    re.IGNORECASE,
)


def _renewal(texts: list[str]) -> tuple[str, str]:
    """The renewal period: the period that follows a renewal word ('renew … for successive
    one (1) year terms', '自动顺延一年'), not a notice period ('… 期满前一个月通知 …')."""
    for text in texts:
        for sentence in _sentences(text):
            for at in _RENEWAL.finditer(sentence):
                # '不自动续期', 'shall not renew automatically' — but not '… notice that it will
                # not be renewed' after a renewal the sentence grants
                if _NO_RENEWAL.search(sentence[max(0, at.start() - 30) : at.end() + 12]):
                    break
                window = sentence[at.start() : at.start() + 90]
                # 'renew automatically each year', 'from year to year', 'for an additional year'
                each = _EACH_UNIT.search(window)
                period = _PERIOD.search(window) or _ZH_PERIOD.search(window)
                if each is not None and (period is None or each.start() < period.start()):
                    unit = next(u for u in each.group("unit", "u2", "u3") if u)
                    return f"1 {unit.lower()}", sentence.strip()
                if period is None:
                    continue
                if re.search(r"notice|通知|prior|before|前", window[: period.start()], re.I):
                    continue  # the period of a notice, not of the renewal
                if re.match(
                    r"[ \t\n]*(?:\S+[ \t\n]+)?(?:prior|before|in[ \t\n]+advance|notice)\b",
                    window[period.end() :],
                    re.I,
                ):
                    continue  # '… at least 90 days prior to the expiration': a notice
                found = normalise_period(window[period.start() :])
                if found:
                    return found, sentence.strip()
    return "", ""


_NOT_RENEWING = re.compile(
    r"non-?renew|not[ \t\n]+(?:to[ \t\n]+)?(?:renew|extend)|terminat|不(?:再)?续|终止|expir", re.I
)


def _notice_period(texts: list[str]) -> tuple[str, str]:
    """The notice that stops a renewal: sentences about not renewing first (a fee increase
    for a renewal term also needs notice before it)."""
    sentences = [x for text in texts for x in _sentences(text)]
    sentences.sort(key=lambda x: _NOT_RENEWING.search(x) is None)
    for sentence in sentences:
        if not (_RENEWAL.search(sentence) or re.search(r"non-?renew|expir", sentence, re.I)):
            continue
        m = re.search(
            r"(?:(?:at[ \t\n]+least|not[ \t\n]+less[ \t\n]+than|no[ \t\n]+less[ \t\n]+than|"
            r"minimum[ \t\n]+of|within|提前)[ \t\n]*)?[^.;。；]{0,40}?"
            r"(?:prior|before|preceding|in[ \t\n]+advance|advance|前)",
            sentence,
            re.IGNORECASE,
        )
        if m is None:
            continue
        window = sentence[max(0, m.start() - 60) : m.end()]
        periods = _periods(window)  # the last: nearest the 'before' that follows it
        period = periods[-1] if periods else ""
        if m.group().endswith("前"):
            # '期满前三十日': Chinese gives the period after 前
            after = _periods(sentence[m.end() : m.end() + 12])
            period = after[0] if after else period
        if period and re.search(r"notice|notif|通知|written", sentence, re.I):
            return period, sentence.strip()
    # 'shall renew automatically … unless terminated by either party upon ninety (90) days
    # written notice': the notice that ends it before it renews
    for sentence in sentences:
        if not _RENEWAL.search(sentence):
            continue
        unless = _UNLESS_NOTICE.search(sentence)
        if unless is not None:
            periods = _periods(unless.group())
            if periods:
                return periods[-1], sentence.strip()
    return "", ""


_UNLESS_NOTICE = re.compile(
    r"\b(?:unless|until)\b[^.;]{0,40}?\b(?:terminat|cancel)\w*[^.;]{0,80}?"
    r"\b(?:\d{1,3}|[a-z]+(?:[- ][a-z]+)?)[ \t\n]*(?:\([ \t]*\d{1,3}[ \t]*\)[ \t\n]*)?"
    r"(?:calendar[ \t\n]+|business[ \t\n]+)?(?:days?|months?)['’]?[ \t\n]+(?:prior[ \t\n]+)?"
    r"(?:written[ \t\n]+)?notice",
    re.IGNORECASE,
)


# --------------------------------------------------------------------------------------------
# The inventory
# --------------------------------------------------------------------------------------------


def _body(clause: ClauseNode) -> str:
    """The clause's text after its number and heading."""
    return clause.text[clause.body_offset - clause.start_offset :]


def _clause_of(structure: DocumentStructure, quote: str) -> list[str]:
    """The clause whose text holds `quote` (a value read from the words of a clause: where
    the lawyer finds it), none for the preamble or a quote not found."""
    probe = quote.strip()[:80]
    if len(probe) < 8:
        return []
    for top in structure.clauses:
        at = top.text.find(probe)
        if at != -1:
            node = structure.clause_at(top.start_offset + at) or top
            return [] if node.kind is ClauseKind.PREAMBLE else [node.clause_id]
    return []


def build_inventory(structure: DocumentStructure) -> ClauseInventory:
    """Every CUAD category of the contract: present or not, the clauses, the value."""
    found: dict[str, list[str]] = {}
    for match in [*detect_topics(structure), *detect_topics(structure, INVENTORY_TOPICS)]:
        ids = found.setdefault(match.topic, [])
        if match.clause_id not in ids:
            ids.append(match.clause_id)
    texts = {
        name: [_body(c) for cid in ids if (c := structure.get_clause(cid)) is not None]
        for name, ids in found.items()
    }
    head = _head(structure)
    whole = "\n".join(c.text for c in structure.clauses)
    values: dict[str, tuple[str, str]] = {}
    # none in the head: the preamble past a table of contents ('This PROMOTION AGREEMENT')
    name = _document_name(head) or _document_name(whole[:_OPENING_SIZE])
    values["Document Name"] = (name, name)
    values["Parties"] = ("; ".join(_inventory_parties(structure, whole)), "")
    # running heads and footers ('Source: ACME, S-1, 1/12/2018'): their dates are not the
    # contract's
    repeated = repeated_lines((c.text for c in structure.clauses), longest=200)
    agreed, agreed_quote = _agreement_date(head, repeated, whole)
    values["Agreement Date"] = (agreed.isoformat() if agreed else "", agreed_quote)
    effective, effective_quote = _effective_date(structure, head, (agreed, agreed_quote), repeated)
    values["Effective Date"] = (effective.isoformat() if effective else "", effective_quote)
    term_texts = [
        _body(c)
        for c in structure.iter_clauses()
        if re.search(r"\bterm\b|期限|租期|有效期", c.title, re.I)
    ] + texts.get("Renewal Term", [])
    start = effective or agreed
    titled = _expiration(term_texts, start, titled=True)
    own = _expiration([c.text for c in structure.clauses], start, own_term_only=True)
    if titled and titled[0] == "perpetual" and own and own[0] != "perpetual":
        # 'This Agreement … shall terminate on July 31, 2009' elsewhere comes before 'until
        # terminated' in a clause headed 'Term' (not a statement of work's term)
        titled = own if _OWN_TERM.search(own[1]) else titled
    values["Expiration Date"] = titled or own or ("", "")
    if not values["Expiration Date"][0]:
        # the term is stated but ends on an event ('upon completion of the Project'): present,
        # with no date to give (its clause found by the quote, below); one that ends only if
        # something may happen ('shall expire if the Adviser ceases to serve', 'until … notice
        # of termination') has no end of its own: perpetual
        stated = _term_stated(structure)
        said = re.sub(r"^\W*\d+(?:\.\d+)*\W*", "", stated)  # after its clause number
        # a number in brackets is a length cut off ('for Thirty-six (36)'); 'Section 7(d)' none
        fixed = _periods(said) or find_dates(said) or re.search(r"\(\s*\d+\s*\)|\[|_{2,}", said)
        stated_value = "perpetual" if not fixed and _ENDS_ONLY_IF.search(said) else ""
        values["Expiration Date"] = (stated_value, stated)
    renewal_texts = texts.get("Renewal Term", []) + texts.get(
        "Notice Period to Terminate Renewal", []
    )
    values["Renewal Term"] = _renewal(renewal_texts)
    values["Notice Period to Terminate Renewal"] = _notice_period(renewal_texts)
    values["Governing Law"] = _governing_law("\n".join(texts.get("Governing Law", [])))
    if not values["Governing Law"][0]:
        # the clause was not recognised: a sentence anywhere that says which law governs
        governed = (
            sentence
            for c in structure.clauses
            for sentence in _sentences(c.text)
            if len(sentence) < 1500 and _GOVERNED.search(sentence)
        )
        values["Governing Law"] = _governing_law("\n".join(governed))
    entries = []
    for category in CATEGORIES:
        value, quote = values.get(category, ("", ""))
        ids = found.get(category, []) or _clause_of(structure, quote)
        present = bool(ids) or bool(value) or bool(quote)  # a quote: said, no value to give
        entries.append(
            InventoryEntry(
                category=category, present=present, clause_ids=ids, value=value, quote=quote
            )
        )
    return ClauseInventory(entries=entries)
