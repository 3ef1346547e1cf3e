"""load_review_criteria: the review playbook's criteria that apply to a clause.

A playbook is a table of review criteria — topic and/or clause number, what to check, our
preferred and fallback positions, a risk level — kept as CSV, XLSX, YAML or JSON. Column names
are matched flexibly, in English and Chinese ("Topic"/"主题", "Clause"/"条款号",
"Criterion"/"审查要点", "Preferred position"/"首选立场", "Fallback"/"底线", "Risk level"/"风险等级").

`read_criteria_file(path)` reads (and caches) a playbook for any caller; the skill matches its
criteria to one clause: by clause number (the clause itself or a parent), by its title, or by
keywords in its text.
"""

from __future__ import annotations

import bisect
import csv
import io
import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

import openpyxl
import yaml
from pydantic import BaseModel, ConfigDict, Field

from contract_review.errors import SkillError
from contract_review.models import ClauseNode, DocumentStructure, RiskLevel
from contract_review.skills.context import ReviewContext, SkillState, StructureInput, require_clause
from contract_review.skills.local.search_reference_doc import (
    EN_STOPWORDS,
    chinese_words,
    english_stem_set,
    english_stems,
)
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.text import HAN
from contract_review.text.numerals import chinese_to_int, roman_to_int

__all__ = [
    "REGISTRATION",
    "SKILL_ID",
    "Criterion",
    "CriterionMatch",
    "LoadReviewCriteriaInput",
    "LoadReviewCriteriaOutput",
    "handle",
    "prepare_input",
    "read_criteria_file",
]

SKILL_ID = "load_review_criteria"

SUPPORTED_EXTENSIONS = (".csv", ".tsv", ".xlsx", ".xlsm", ".yaml", ".yml", ".json")
_MAX_BYTES = 10 * 1024 * 1024
_HEADER_SEARCH_ROWS = 10
"""A table's header may sit below a title row or two."""


# --------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------


class Criterion(BaseModel):
    """One review criterion of a playbook."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    criterion_id: str = Field(description="Id from the file's id column, else 'C<row order>'.")
    topic: str = Field("", description="Topic, e.g. 'Limitation of liability', '误期赔偿金'.")
    clause_ref: str = Field("", description="Clause number(s) as written in the file.")
    clause_ids: tuple[str, ...] = Field(
        (), description="Clause ids the criterion targets ('第十四条' → '14')."
    )
    criterion: str = Field(description="What to check.")
    preferred_position: str = Field("", description="Our preferred position.")
    fallback_position: str = Field("", description="The position we can accept at worst.")
    risk_level: RiskLevel | None = Field(None, description="Risk if the criterion is not met.")
    keywords: tuple[str, ...] = Field((), description="Extra search words from the file.")
    source: str = Field(description="Where it is in the file: 'playbook.csv row 4'.")


MatchKind = Literal["clause_id", "parent_clause_id", "title", "keywords"]
_KIND_RANK: dict[str, int] = {"clause_id": 0, "parent_clause_id": 1, "title": 2, "keywords": 3}


class CriterionMatch(BaseModel):
    """A criterion that applies to the clause, and why."""

    criterion: Criterion = Field(description="The criterion.")
    matched_by: MatchKind = Field(
        description="'clause_id' (names this clause), 'parent_clause_id' (names a parent "
        "clause), 'title' (topic matches the clause title) or 'keywords' (topic or criterion "
        "words in the clause text)."
    )
    score: float = Field(description="Strength of the match, 0–1 (clause id 1.0 ... keywords).")
    evidence: list[str] = Field(description="What matched: the clause id or the words found.")


class LoadReviewCriteriaInput(StructureInput):
    """Input of load_review_criteria."""

    clause_id: str = Field(description="Id of the clause, e.g. '14.2', '4.1(a)', '5(1)'.")
    max_results: int = Field(10, ge=1, le=100, description="Most criteria returned.")
    criteria_file_path: str | None = Field(
        None, description="Playbook file chosen by the user (filled in by the system)."
    )


class LoadReviewCriteriaOutput(BaseModel):
    """Output of load_review_criteria."""

    clause_id: str = Field(description="Clause id.")
    clause_title: str = Field(description="Its title ('' if none).")
    criteria_file: str = Field(description="File name of the playbook.")
    total_criteria: int = Field(description="Number of criteria in the playbook.")
    matches: list[CriterionMatch] = Field(
        description="Criteria that apply, most specific first (clause id, parent clause id, "
        "title, keywords); empty when none does."
    )


DESCRIPTION = (
    "Load the review criteria of the user's playbook that apply to a clause: what to check, "
    "our preferred position, the fallback we can accept and the risk level. A criterion applies "
    "when it names the clause (or a parent clause), when its topic matches the clause title, or "
    "when its topic or key words appear in the clause text; each result says which, with the "
    "evidence. Call it before judging a clause to know the client's positions. Arguments: "
    "clause_id, max_results (default 10). The playbook file is chosen by the user."
)


# --------------------------------------------------------------------------------------------
# Reading playbooks
# --------------------------------------------------------------------------------------------

Field_ = Literal["id", "topic", "clause", "criterion", "preferred", "fallback", "risk", "keywords"]

_ALIASES: dict[Field_, tuple[str, ...]] = {
    "id": ("id", "criterionid", "ruleid", "itemid", "编号", "序号"),
    "topic": (
        "topic",
        "subject",
        "issue",
        "area",
        "heading",
        "clausetopic",
        "clausetitle",
        "clausename",
        "主题",
        "议题",
        "事项",
        "审查事项",
        "审查主题",
        "条款",
        "条款名称",
        "条款主题",
    ),
    "clause": (
        "clause",
        "clauseid",
        "clauseno",
        "clausenumber",
        "clauseref",
        "clausereference",
        "section",
        "sectionno",
        "article",
        "subclause",
        "条款号",
        "条款编号",
        "条号",
        "条款序号",
    ),
    "criterion": (
        "criterion",
        "criteria",
        "check",
        "checkpoint",
        "reviewpoint",
        "requirement",
        "guidance",
        "question",
        "审查要点",
        "审查标准",
        "审查内容",
        "审查要求",
        "要点",
        "审查点",
    ),
    "preferred": (
        "preferredposition",
        "preferred",
        "standardposition",
        "idealposition",
        "ourposition",
        "position",
        "首选立场",
        "优选立场",
        "理想立场",
        "我方立场",
        "立场",
    ),
    "fallback": (
        "fallbackposition",
        "fallback",
        "acceptableposition",
        "minimumposition",
        "bottomline",
        "可接受立场",
        "底线",
        "退让立场",
        "备选立场",
        "最低要求",
    ),
    "risk": (
        "risklevel",
        "risk",
        "riskrating",
        "severity",
        "风险等级",
        "风险级别",
        "风险",
    ),
    "keywords": ("keywords", "keyword", "searchterms", "关键词", "关键字"),
}
_ALIAS_TO_FIELD: dict[str, Field_] = {a: f for f, aliases in _ALIASES.items() for a in aliases}
_ALIASES_LONGEST_FIRST = sorted(_ALIAS_TO_FIELD, key=len, reverse=True)
_HEADER_JUNK_RE = re.compile(r"[\s_\-:：/\\()（）\[\]【】.·*#]+")

_RISK_VALUES: dict[str, RiskLevel] = {
    **dict.fromkeys(["high", "h", "critical", "高", "高风险", "重大", "严重"], RiskLevel.HIGH),
    **dict.fromkeys(
        ["medium", "med", "m", "moderate", "中", "中等", "中风险", "一般"], RiskLevel.MEDIUM
    ),
    **dict.fromkeys(["low", "l", "minor", "低", "低风险", "轻微"], RiskLevel.LOW),
}


def _norm_header(text: str) -> str:
    return _HEADER_JUNK_RE.sub("", text.lower())


def _map_headers(names: Sequence[str]) -> dict[int, Field_]:
    """Which field each header names, by position. Exact names first ('Risk level'), then
    names that start with a known one ('Preferred position (ours)', '风险等级（高/中/低）');
    the first column naming a field wins."""
    keys = [_norm_header(n) for n in names]
    fields: dict[int, Field_] = {}
    for i, key in enumerate(keys):
        found = _ALIAS_TO_FIELD.get(key)
        if found is not None and found not in fields.values():
            fields[i] = found
    for i, key in enumerate(keys):
        if i in fields or not key:
            continue
        for alias in _ALIASES_LONGEST_FIRST:
            if (len(alias) >= 4 or not alias.isascii()) and key.startswith(alias):
                if _ALIAS_TO_FIELD[alias] not in fields.values():
                    fields[i] = _ALIAS_TO_FIELD[alias]
                break
    return fields


def _cell(value: Any) -> str:
    """A cell or YAML/JSON value as text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return ", ".join(_cell(v) for v in value if v is not None)
    return str(value).strip()


_CN_CLAUSE_RE = re.compile(
    r"^第([零〇一二两三四五六七八九十百千\d]+)条(?:第([零〇一二两三四五六七八九十百千\d]+)款)?$"
)
_CLAUSE_PREFIX_RE = re.compile(
    r"^(?:sub-?clause|clause|section|article|art\.|cl\.|para(?:graph)?\.?|§|条款)\s*",
    re.IGNORECASE,
)
_LIST_SPLIT_RE = re.compile(r"\s*(?:[,;，；、|]|/|\band\b|和|及)\s*")


def _clause_ids(ref: str) -> tuple[str, ...]:
    """Clause ids of a clause reference as written: 'Clause 14', '14.1, 14.2', '第十四条'."""
    out: list[str] = []
    for part in _LIST_SPLIT_RE.split(ref.strip()):
        part = _CLAUSE_PREFIX_RE.sub("", part.strip()).strip()
        if not part:
            continue
        m = _CN_CLAUSE_RE.match(part)
        if m:
            main = chinese_to_int(
                m.group(1), extended=False, digit_string=False, bare_units=True, arabic=True
            )
            sub = (
                chinese_to_int(
                    m.group(2), extended=False, digit_string=False, bare_units=True, arabic=True
                )
                if m.group(2)
                else None
            )
            if main is not None:
                out.append(f"{main}.{sub}" if sub is not None else str(main))
                continue
        roman = roman_to_int(part) if part.isalpha() and len(part) > 1 else None
        out.append(str(roman) if roman else part.lower())
    return tuple(dict.fromkeys(out))


def _keyword_list(text: str) -> tuple[str, ...]:
    return tuple(k for k in (p.strip() for p in re.split(r"[,;，；、|\n]", text)) if k)


def _risk(value: str, where: str) -> RiskLevel | None:
    key = value.strip().lower()
    if not key:
        return None
    if key in _RISK_VALUES:
        return _RISK_VALUES[key]
    raise SkillError(
        f"{where}: unknown risk level '{value}' (use high, medium or low / 高, 中, 低)"
    )


def _criteria_from_rows(
    rows: Iterable[Mapping[Field_, str]], name: str, locators: Iterable[str]
) -> list[Criterion]:
    out: list[Criterion] = []
    for row, where in zip(rows, locators, strict=False):
        text = row.get("criterion", "").strip()
        if not text:
            continue  # blank or section-heading rows
        source = f"{name} {where}"
        clause_ref = row.get("clause", "")
        out.append(
            Criterion(
                criterion_id=row.get("id", "") or f"C{len(out) + 1}",
                topic=row.get("topic", ""),
                clause_ref=clause_ref,
                clause_ids=_clause_ids(clause_ref),
                criterion=text,
                preferred_position=row.get("preferred", ""),
                fallback_position=row.get("fallback", ""),
                risk_level=_risk(row.get("risk", ""), source),
                keywords=_keyword_list(row.get("keywords", "")),
                source=source,
            )
        )
    return out


def _table(rows: Sequence[Sequence[Any]], name: str) -> list[Criterion] | None:
    """Criteria of a table whose header is among its first rows, or None without a header."""
    for h, header in enumerate(rows[:_HEADER_SEARCH_ROWS]):
        fields = _map_headers([_cell(cell) for cell in header])
        if "criterion" not in fields.values():
            continue
        records: list[dict[Field_, str]] = []
        where: list[str] = []
        for r, row in enumerate(rows[h + 1 :], start=h + 2):
            values = {f: _cell(row[i]) for i, f in fields.items() if i < len(row)}
            if any(values.values()):
                records.append(values)
                where.append(f"row {r}")
        return _criteria_from_rows(records, name, where)
    return None


def _no_criterion_column(name: str, rows: Sequence[Sequence[Any]]) -> SkillError:
    header = next((r for r in rows if any(_cell(c) for c in r)), [])
    found = ", ".join(_cell(c) for c in header if _cell(c)) or "none"
    return SkillError(
        f"{name}: missing required column 'criterion' (e.g. 'Criterion' or '审查要点'); "
        f"header found: {found}"
    )


def _read_csv(data: bytes, name: str, tab: bool) -> list[Criterion]:
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            text = data.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise SkillError(f"{name}: not UTF-8 or GB18030 text")
    if "\x00" in text:
        raise SkillError(f"{name}: malformed CSV (binary data)")
    first = next((line for line in text.splitlines() if line.strip()), "")
    delimiter = "\t" if tab else max((",", ";", "\t"), key=first.count)
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error as exc:
        raise SkillError(f"{name}: malformed CSV ({exc})") from None
    criteria = _table(rows, name)
    if criteria is None:
        raise _no_criterion_column(name, rows)
    return criteria


def _read_xlsx(path: Path, name: str) -> list[Criterion]:
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # BadZipFile, openpyxl's InvalidFileException, KeyError, XML errors
        raise SkillError(
            f"{name} is not a readable .xlsx workbook ({type(exc).__name__})"
        ) from None
    try:
        first_rows: list[list[Any]] = []
        for sheet in book.worksheets:
            rows = [list(r) for r in sheet.iter_rows(values_only=True)]
            criteria = _table(rows, f"{name} [{sheet.title}]")
            if criteria is not None:
                return criteria
            if not first_rows:
                first_rows = rows
    finally:
        book.close()
    raise _no_criterion_column(name, first_rows)


def _read_mapping_file(data: bytes, name: str, kind: str) -> list[Criterion]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SkillError(f"{name}: not UTF-8 text") from None
    doc: Any
    if kind == "json":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SkillError(f"malformed JSON in {name}: {exc.msg} (line {exc.lineno})") from None
    else:
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            line = f" (line {mark.line + 1})" if mark is not None else ""
            raise SkillError(f"malformed YAML in {name}: {problem}{line}") from None
    if doc is None or doc == [] or doc == {}:
        raise SkillError(f"{name} is empty")
    if isinstance(doc, Mapping) and "positions" in doc:
        return _criteria_from_playbook(doc, name)
    items = _items(doc)
    if items is None:
        raise SkillError(
            f"{name}: expected a list of criteria (or a 'criteria:' key holding one), "
            f"found {type(doc).__name__}"
        )
    records: list[dict[Field_, str]] = []
    where: list[str] = []
    for n, item in enumerate(items, start=1):
        if not isinstance(item, Mapping):
            raise SkillError(f"{name}: item {n} is not a mapping of fields")
        values = list(item.values())
        record: dict[Field_, str] = {
            field: _cell(values[i]) for i, field in _map_headers([str(k) for k in item]).items()
        }
        if "criterion" not in record:
            keys = ", ".join(str(k) for k in item) or "none"
            raise SkillError(
                f"{name}: item {n} has no 'criterion' field (e.g. 'criterion' or '审查要点'); "
                f"keys: {keys}"
            )
        records.append(record)
        where.append(f"item {n}")
    return _criteria_from_rows(records, name, where)


def _criteria_from_playbook(doc: Mapping[str, Any], name: str) -> list[Criterion]:
    """The positions of a playbook in the full format (`contract-review playbook export`) as
    criteria: the standard is the preferred position, the rationale (else the title) what to
    check."""
    from contract_review.playbook import PlaybookError, parse_playbook

    try:
        playbook = parse_playbook(dict(doc), name)
    except PlaybookError as exc:
        raise SkillError(str(exc)) from None
    records: list[dict[Field_, str]] = []
    for p in playbook.positions:
        language = "zh" if not p.standard.en else "en"
        record: dict[Field_, str] = {
            "id": p.id,
            "topic": p.topic,
            "clause": ", ".join(p.recognise.clauses),
            "criterion": p.rationale.text(language) if p.rationale else (p.title or p.topic),
            "preferred": p.standard.text(language),
            "risk": p.severity,
        }
        if p.fallback is not None:
            record["fallback"] = p.fallback.text(language)
        records.append(record)
    where = [f"position {n} ('{p.id}')" for n, p in enumerate(playbook.positions, start=1)]
    return _criteria_from_rows(records, name, where)


def _items(doc: Any) -> list[Any] | None:
    if isinstance(doc, list):
        return doc
    if isinstance(doc, Mapping):
        for key in ("criteria", "items", "rules", "checklist", "playbook", "审查标准", "审查要点"):
            value = doc.get(key)
            if isinstance(value, list):
                return value
        lists = [v for v in doc.values() if isinstance(v, list)]
        if len(lists) == 1:
            return lists[0]
    return None


def _parse(path: Path) -> list[Criterion]:
    name = path.name
    suffix = path.suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        criteria = _read_xlsx(path, name)
    else:
        data = path.read_bytes()
        if not data.strip():
            raise SkillError(f"{name} is empty")
        if suffix in (".csv", ".tsv"):
            criteria = _read_csv(data, name, tab=suffix == ".tsv")
        else:
            criteria = _read_mapping_file(data, name, "json" if suffix == ".json" else "yaml")
    if not criteria:
        raise SkillError(f"{name} holds no criteria")
    return criteria


@dataclass(frozen=True)
class _Loaded:
    criteria: tuple[Criterion, ...]
    matchers: tuple[_Matcher, ...]


_cache: OrderedDict[tuple[str, int, int], _Loaded] = OrderedDict()
_cache_lock = threading.Lock()
_CACHE_SIZE = 32


def _load(path: str | Path) -> tuple[Path, _Loaded]:
    p = Path(path).expanduser()
    if p.suffix.lower() not in SUPPORTED_EXTENSIONS:
        raise SkillError(
            f"unsupported criteria file type '{p.suffix or p.name}' "
            "(use .csv, .tsv, .xlsx, .yaml, .yml or .json)"
        )
    try:
        st = p.stat()
    except FileNotFoundError:
        raise SkillError(f"criteria file not found: {p}") from None
    except OSError as exc:
        raise SkillError(f"cannot read criteria file {p}: {exc.strerror}") from None
    if not p.is_file():
        raise SkillError(f"criteria file is not a file: {p}")
    if st.st_size > _MAX_BYTES:
        raise SkillError(f"criteria file too large: {p.name} ({st.st_size // 1024} KB)")
    key = (os.path.abspath(p), st.st_mtime_ns, st.st_size)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return p, hit
    try:
        criteria = _parse(p)
    except OSError as exc:
        raise SkillError(f"cannot read criteria file {p}: {exc.strerror}") from None
    loaded = _Loaded(tuple(criteria), tuple(_Matcher.of(c) for c in criteria))
    with _cache_lock:
        _cache[key] = loaded
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return p, loaded


def read_criteria_file(path: str | Path) -> list[Criterion]:
    """The criteria of a playbook file (.csv, .tsv, .xlsx, .yaml, .yml, .json), in file order.

    Parsed files are cached by (path, modification time, size). Raises `SkillError` with a
    one-line message when the file is missing, of an unsupported type or malformed.
    """
    return list(_load(path)[1].criteria)


# --------------------------------------------------------------------------------------------
# Matching criteria to a clause
# --------------------------------------------------------------------------------------------

_CJK_RE = HAN
_ALT_SPLIT_RE = re.compile(r"\s*(?:/|\||;|；|,|，|、|\bor\b|或)\s*")
_PHRASE_GAP = 2
"""Words of a phrase may be this many words apart in the text, plus two stop words."""
_MIN_PREFIX = 5
"""Stems this long or longer match stems they begin ('indemn' ~ 'indemnif')."""

_GENERIC_EN = frozenset(
    english_stems(
        "check ensure verify confirm review whether clause clauses contract agreement party non "
        "parties provision provisions provide provided include including require required "
        "consider should must position preferred fallback acceptable reasonable any"
    )
)
_GENERIC_ZH_TEXT = """
    审查 是否 约定 合同 条款 明确 我方 对方 双方 甲方 乙方 要求 规定 需要 确保 检查 建议 不得 不应 应当
    情形 相关 确定 完整 原因 方式 内容 范围 情况
"""
_GENERIC_ZH = frozenset(_GENERIC_ZH_TEXT.split())
"""Words of a criterion too common in contracts to show it applies ('审查', '合同')."""


_GENERIC_TITLE_STEMS = frozenset(
    english_stems(
        "term terms general provisions miscellaneous other definitions interpretation schedule "
        "article section part conditions"
    )
)
"""Title words too vague to say a clause is about a topic that contains them ('Term' is not
'Payment terms')."""


@dataclass(frozen=True)
class _Phrase:
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


def _phrase(text: str) -> _Phrase | None:
    text = text.strip()
    if not text:
        return None
    if _CJK_RE.search(text):
        zh = re.sub(r"\s+", "", text)
        return _Phrase(text, (), zh)
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
    return _Phrase(text, tuple(dict.fromkeys(stems)), "", pattern)


@dataclass(frozen=True)
class _Matcher:
    clause_ids: frozenset[str]
    topics: tuple[_Phrase, ...]
    keywords: tuple[_Phrase, ...]
    en_terms: tuple[tuple[str, str], ...]
    """(stem, word) of the criterion's own content words."""
    en_set: frozenset[str]
    zh_terms: tuple[str, ...]
    heads: frozenset[str]
    """First five letters of each English phrase's first stem: a text without any of them
    cannot hold a phrase (exact or by prefix)."""
    zh_phrases: bool
    topic_heads: frozenset[str]
    """First five letters of every stem of the topics (title matches share one)."""

    @staticmethod
    def of(c: Criterion) -> _Matcher:
        topics = tuple(
            p for p in (_phrase(t) for t in _ALT_SPLIT_RE.split(c.topic)) if p is not None
        )
        keywords = tuple(p for p in (_phrase(k) for k in c.keywords) if p is not None)
        words = [
            w
            for w in (x.lower() for x in re.findall(r"[A-Za-z]+", c.criterion))
            if len(w) > 2 and w not in EN_STOPWORDS
        ]
        en: dict[str, str] = {}
        for stem, word in zip(english_stems(" ".join(words)), words, strict=True):
            if stem not in _GENERIC_EN and len(stem) > 2:
                en.setdefault(stem, word)
        zh = (
            tuple(dict.fromkeys(w for w in chinese_words(c.criterion) if w not in _GENERIC_ZH))
            if _CJK_RE.search(c.criterion)
            else ()
        )
        return _Matcher(
            clause_ids=frozenset(i.lower() for i in c.clause_ids),
            topics=topics,
            keywords=keywords,
            en_terms=tuple(en.items()),
            en_set=frozenset(en),
            zh_terms=zh,
            heads=frozenset(p.stems[0][:_MIN_PREFIX] for p in topics + keywords if p.stems),
            zh_phrases=any(p.zh for p in topics + keywords),
            topic_heads=frozenset(st[:_MIN_PREFIX] for p in topics for st in p.stems),
        )


def _covered(stem: str, stems: Iterable[str]) -> bool:
    """Whether `stem` is among `stems`, allowing long stems to match by prefix."""
    for other in stems:
        if other == stem:
            return True
        short, long_ = (stem, other) if len(stem) <= len(other) else (other, stem)
        if len(short) >= _MIN_PREFIX and long_.startswith(short):
            return True
    return False


class _Words:
    """A clause title or text, ready for look-ups: its stems and, when it has Chinese, the text
    without white space. Prefix look-ups and word pairs are worked out on first use."""

    def __init__(self, text: str, stems: frozenset[str] | None = None) -> None:
        self.raw = text.strip()
        self.zh = re.sub(r"\s+", "", text) if _CJK_RE.search(text) else ""
        self.stems = english_stem_set(text) if stems is None else stems
        self._text = text
        self._lower: str | None = None
        self._sorted: list[str] | None = None
        self._heads: frozenset[str] | None = None
        self._memo: dict[str, bool] = {}

    @property
    def heads(self) -> frozenset[str]:
        """First _MIN_PREFIX letters of every stem."""
        if self._heads is None:
            self._heads = frozenset(st[:_MIN_PREFIX] for st in self.stems)
        return self._heads

    def has(self, stem: str) -> bool:
        """Whether the stem occurs, or a longer one beginning with it, or a shorter one (at
        least _MIN_PREFIX long) it begins with."""
        if stem in self.stems:
            return True
        if len(stem) < _MIN_PREFIX:
            return False
        known = self._memo.get(stem)
        if known is None:
            if self._sorted is None:
                self._sorted = sorted(self.stems)
            i = bisect.bisect_left(self._sorted, stem)
            known = (i < len(self._sorted) and self._sorted[i].startswith(stem)) or any(
                stem[:n] in self.stems for n in range(_MIN_PREFIX, len(stem))
            )
            self._memo[stem] = known
        return known

    def has_words(self, phrase: _Phrase) -> bool:
        """Whether every word of the phrase occurs (anywhere: for titles)."""
        if phrase.zh:
            return bool(self.zh) and phrase.zh in self.zh
        return all(self.has(s) for s in phrase.stems)

    def has_phrase(self, phrase: _Phrase) -> bool:
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

    def inside(self, phrase: _Phrase) -> bool:
        """Whether this (title) is contained in the phrase: '索赔' in '索赔时效', 'Payment' in
        'Payment terms'."""
        if phrase.zh:
            return len(self.zh) >= 2 and self.zh in phrase.zh
        if not self.stems or self.stems <= _GENERIC_TITLE_STEMS:
            return False
        return all(_covered(s, phrase.stems) for s in self.stems)


@dataclass
class _TreeStems:
    structure: DocumentStructure
    stems: dict[str, frozenset[str]]


_tree_cache: OrderedDict[int, _TreeStems] = OrderedDict()
_tree_lock = threading.Lock()


def _clause_stems(structure: DocumentStructure) -> dict[str, frozenset[str]]:
    """English stems of every clause's text, by clause id, worked out once per structure: a
    clause's stems are its own text's plus its sub-clauses' (so a review of every clause reads
    the document once, not once per nesting level)."""
    with _tree_lock:
        entry = _tree_cache.get(id(structure))
        if entry is not None and entry.structure is structure:
            _tree_cache.move_to_end(id(structure))
            return entry.stems
    stems: dict[str, frozenset[str]] = {}

    def visit(node: ClauseNode) -> frozenset[str]:
        if not node.children:
            found = english_stem_set(node.text)
        else:
            parts: list[frozenset[str]] = []
            pos = node.start_offset
            for child in node.children:
                parts.append(visit(child))
                gap = node.text[pos - node.start_offset : child.start_offset - node.start_offset]
                parts.append(english_stem_set(gap))
                pos = max(pos, child.end_offset)
            parts.append(english_stem_set(node.text[pos - node.start_offset :]))
            found = frozenset().union(*parts)
        stems[node.clause_id] = found
        return found

    for top in structure.clauses:
        visit(top)
    with _tree_lock:
        _tree_cache[id(structure)] = _TreeStems(structure, stems)
        while len(_tree_cache) > 4:
            _tree_cache.popitem(last=False)
    return stems


def _ancestors(structure: DocumentStructure, clause: ClauseNode) -> list[str]:
    out: list[str] = []
    parent_id = clause.parent_id
    while parent_id is not None and len(out) < 20:
        out.append(parent_id)
        parent = structure.get_clause(parent_id)
        parent_id = parent.parent_id if parent is not None else None
    return out


_Found = tuple[MatchKind, float, list[str]]


def _match(
    m: _Matcher, clause_id: str, ancestors: Sequence[str], title: _Words, text: _Words
) -> _Found | None:
    """How criterion `m` applies to the clause, most specific way first; None if it does not."""
    if clause_id.lower() in m.clause_ids:
        return "clause_id", 1.0, [f"clause {clause_id}"]
    for distance, parent in enumerate(ancestors, start=1):
        if parent.lower() in m.clause_ids:
            score = round(max(0.6, 0.95 - 0.05 * distance), 3)
            return "parent_clause_id", score, [f"parent clause {parent}"]
    if (title.zh and m.zh_phrases) or not m.topic_heads.isdisjoint(title.heads):
        for topic in m.topics:
            if title.has_words(topic):
                return "title", 0.8, [topic.text]
        for topic in m.topics:
            if title.inside(topic):
                return "title", 0.7, [title.raw]
    # The criterion's own words count exactly (their stems): they only support a match.
    exact = m.en_set & text.stems
    zh_hits = [w for w in m.zh_terms if w in text.zh] if text.zh else []
    if (
        len(exact) + len(zh_hits) < 3
        and m.heads.isdisjoint(text.heads)
        and not (m.zh_phrases and text.zh)
    ):
        return None  # no phrase can occur, too few words for a match on words alone
    en_hits = [(s, w) for s, w in m.en_terms if s in exact]
    hits = [w for _, w in en_hits] + zh_hits
    n_terms = len(m.en_terms) + len(m.zh_terms)
    share = len(hits) / n_terms if n_terms else 0.0

    def corroborated(phrase: _Phrase) -> bool:
        # One word ('exclusivity' ~ 'exclusive of taxes'; 工期) is weak evidence on its own:
        # it needs another word of the criterion in the text too.
        if phrase.strong:
            return True
        return any(s not in phrase.stems for s, _ in en_hits) or any(
            w not in phrase.zh and phrase.zh not in w for w in zh_hits
        )

    for base, phrases in ((0.55, m.keywords), (0.5, m.topics)):
        found = [p.text for p in phrases if text.has_phrase(p) and corroborated(p)]
        if found:
            return "keywords", round(base + 0.1 * share, 3), found + hits
    if len(hits) >= 3 and share >= 0.5:
        return "keywords", round(0.3 + 0.1 * share, 3), hits
    return None


# --------------------------------------------------------------------------------------------
# The skill
# --------------------------------------------------------------------------------------------


def prepare_input(
    clause_id: str, primary_structure: DocumentStructure | None, state: SkillState
) -> LoadReviewCriteriaInput:
    """Input for `clause_id`, with the playbook the user chose for the review."""
    context = ReviewContext.from_state(state)
    return LoadReviewCriteriaInput(
        clause_id=clause_id,
        criteria_file_path=context.criteria_path,
        document_structure=primary_structure,
    )


def handle(inp: LoadReviewCriteriaInput) -> LoadReviewCriteriaOutput:
    """The playbook's criteria that apply to the clause, most specific first."""
    if not inp.criteria_file_path:
        raise SkillError("no review criteria file is configured for this review")
    structure = inp.document_structure
    clause = require_clause(structure, inp.clause_id)
    assert structure is not None  # require_clause checked it
    path, loaded = _load(inp.criteria_file_path)
    ancestors = _ancestors(structure, clause)
    title = _Words(clause.title)
    text = _Words(clause.text, _clause_stems(structure).get(clause.clause_id))
    found: list[tuple[int, int, float, CriterionMatch]] = []
    for order, (criterion, matcher) in enumerate(
        zip(loaded.criteria, loaded.matchers, strict=True)
    ):
        hit = _match(matcher, clause.clause_id, ancestors, title, text)
        if hit is None:
            continue
        kind, score, evidence = hit
        match = CriterionMatch(
            criterion=criterion,
            matched_by=kind,
            score=score,
            evidence=list(dict.fromkeys(evidence)),
        )
        found.append((_KIND_RANK[kind], order, score, match))
    found.sort(key=lambda f: (f[0], -f[2], f[1]))
    return LoadReviewCriteriaOutput(
        clause_id=clause.clause_id,
        clause_title=clause.title,
        criteria_file=path.name,
        total_criteria=len(loaded.criteria),
        matches=[f[3] for f in found[: inp.max_results]],
    )


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Review criteria",
    description=DESCRIPTION,
    input_schema=LoadReviewCriteriaInput,
    output_schema=LoadReviewCriteriaOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="*",
    category="criteria",
)
