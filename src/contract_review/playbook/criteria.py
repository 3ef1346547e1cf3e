"""Review criteria files: a playbook kept as a table of criteria, read into `Criterion` rows.

A criteria table lists review criteria — topic and/or clause number, what to check, our
preferred and fallback positions, a risk level — kept as CSV, TSV, XLSX, YAML or JSON. Column
names are matched flexibly, in English and Chinese ("Topic"/"主题", "Clause"/"条款号",
"Criterion"/"审查要点", "Preferred position"/"首选立场", "Fallback"/"底线", "Risk level"/"风险等级").
A playbook in the full format (`positions:`) is read as criteria too.

`read_criteria_file(path)` reads (and caches) a file for any caller; `analysis.criteria` matches
the criteria to clauses.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from contract_review.errors import SkillError
from contract_review.models import RiskLevel
from contract_review.playbook.parse import PlaybookError, parse_playbook
from contract_review.text.numerals import chinese_to_int, roman_to_int

__all__ = ["SUPPORTED_EXTENSIONS", "Criterion", "load_criteria", "read_criteria_file"]

SUPPORTED_EXTENSIONS = (".csv", ".tsv", ".xlsx", ".xlsm", ".yaml", ".yml", ".json")
_MAX_BYTES = 10 * 1024 * 1024
_HEADER_SEARCH_ROWS = 10
"""A table's header may sit below a title row or two."""


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
        import openpyxl  # slow to import (~0.5 s): only for spreadsheets

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


_cache: OrderedDict[tuple[str, int, int], tuple[Criterion, ...]] = OrderedDict()
_cache_lock = threading.Lock()
_CACHE_SIZE = 32


def load_criteria(path: str | Path) -> tuple[Path, tuple[Criterion, ...]]:
    """The file's path and its criteria, in file order: `read_criteria_file`, and the same
    tuple for the same file version (callers may key caches on it)."""
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
    loaded = tuple(criteria)
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
    return list(load_criteria(path)[1])
