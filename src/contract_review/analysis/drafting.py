"""Redline drafting: the smallest sensible edit of a clause for one risk, toward our position.

Rules, not prose generation: every edit comes from a deterministic strategy chosen by the
reviewer's instruction and the risk's type and wording, and every edit stays inside the clause
(in practice inside the risk's quote, except a cap sentence inserted after the clause's last
sentence). Strategies, tried in this order:

1. ``proposed_text`` given: replace the quote with it, trimmed to the smallest differing span
   (common prefix/suffix removed on word boundaries in English, characters in Chinese).
2. The instruction quotes the words to change (``replace "A" with "B"``, ``将“A”改为“B”``,
   ``insert "B" after "A"``, ``delete "A"``): that exact edit.
3. The instruction asks for a deletion (``delete``, ``删除``): delete the quote (or, when it
   speaks of a phrase/wording, the risky phrase inside it).
4. Topic rules, instruction signals first (a duration, a cap, a percentage...), then risk
   keywords, then phrases found in the quote:
   ``cap`` (replace "shall not be subject to any maximum"/"不设上限", else insert a cap
   sentence), ``fault_based`` ("whatever the cause"/"无论因何原因造成"), ``reasonableness``
   ("in its sole opinion"/"单方决定"), ``period`` (only the number of "14 days"/"28天"),
   ``percentage`` (only the number of "5%").
5. ``comment_only``: no rule fits — no diff, only a comment. Deterministic code does not invent
   wording, and a placeholder sentence in the contract would be worse than a comment.

A diff is never a no-op and its ``original_text`` is always verbatim clause text at
``start_offset`` (the absolute document offset). The comment's text is `analysis.comments`'s;
the skill `draft_redline_comment` is the adapter over `draft_redline`.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from contract_review.analysis.cache import per_structure
from contract_review.analysis.comments import cap_first, change_text, redline_comment, short
from contract_review.analysis.positions import number_at
from contract_review.analysis.verify import contract_text
from contract_review.errors import SkillError
from contract_review.models import (
    ActionType,
    ClauseNode,
    DocumentDiff,
    DocumentStructure,
    RiskLevel,
    RiskPoint,
    TextLocation,
)
from contract_review.parties import (
    GENERIC_LABELS,
    PartyRoles,
    as_written,
    party_actions,
    party_mentions,
    role_key,
)
from contract_review.playbook import NumberCheck, Position
from contract_review.playbook.measure import annual_rate as _annual_rate
from contract_review.text import HAN
from contract_review.text.numerals import (
    CN_NUMERAL_CHARS,
    chinese_to_int,
    int_to_chinese,
    int_to_english_words,
)

__all__ = ["Redline", "RedlineStrategy", "draft_redline"]


class RedlineStrategy(StrEnum):
    """The rule that produced a redline."""

    PROPOSED_TEXT = "proposed_text"
    INSTRUCTION_EDIT = "instruction_edit"
    DELETE = "delete"
    CAP = "cap"
    FAULT_BASED = "fault_based"
    REASONABLENESS = "reasonableness"
    PERIOD = "period"
    PERCENTAGE = "percentage"
    POSITION = "position"
    COMMENT_ONLY = "comment_only"


@dataclass(frozen=True)
class Redline:
    """A drafted redline for one risk: the diff (None when no rule fits), its comment, and the
    other edits that address the same risk or the same value."""

    strategy: RedlineStrategy
    diff: DocumentDiff | None
    comment: str
    language: str
    """Language of the comment: 'en' or 'zh-CN'."""
    quote: TextLocation
    """The risk's quote as found in the clause (verbatim, absolute offsets)."""
    alternatives: list[DocumentDiff]
    related: list[DocumentDiff]
    notes: list[str]


# --------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------

_EN_PRICES = ("Accepted Contract Amount", "Contract Price", "Contract Sum", "Contract Amount")
_ZH_PRICES = ("合同价款", "签约合同价", "合同总价", "合同价格", "合同金额")

_CJK_RE = HAN
_LATIN_RE = re.compile(r"[A-Za-z]")

# Tokens for minimal diffs: numbers and words are atomic, every other character stands alone
# (so Chinese is compared character by character).
_TOKEN_RE = re.compile(
    r"\d+(?:[.,]\d+)*|[A-Za-z\u00c0-\u024f]+(?:['’-][A-Za-z\u00c0-\u024f]+)*|\s+|.", re.S
)

_CN_NUM = f"[{CN_NUMERAL_CHARS}]"

# Durations. English: "14 days", "28-day", "fourteen (14) days"; Chinese: "14天", "十四日".
_EN_UNIT = r"(?:calendar\s+|business\s+|working\s+|clear\s+)?(?:days?|weeks?|months?|years?|hours?)"
_EN_DUR_RE = re.compile(
    rf"(?<![\w.,])(?P<n>\d{{1,4}})(?P<close>\s*\))?(?P<sep>\s*-\s*|\s+)(?P<unit>{_EN_UNIT})\b",
    re.I,
)
_ZH_DUR_RE = re.compile(
    rf"(?P<n>\d{{1,4}}|{_CN_NUM}{{1,6}})\s*(?P<unit>个?(?:日历天|工作日|天|日|小时|周|星期|月|年))"
)
_DAY_STEPS = (7, 14, 21, 28, 42, 56, 84, 90, 120, 180, 365)

_PCT_RE = re.compile(
    rf"(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s*(?:%|％|per\s?cent\b|percent\b)|百分之(?P<cn>\d+(?:\.\d+)?|{_CN_NUM}{{1,4}})",
    re.I,
)
_PCT_FRACTION = re.compile(
    r"(?<![\d.])(?:(?P<w>\d+)\s+)?(?P<a>\d+)\s*/\s*(?P<b>\d+)\s*(?:%|％|per\s?cent\b|percent\b)",
    re.I,
)
_PCT_CAP_CTX = re.compile(
    r"total|aggregate|reach|maximum|up to|not exceed|limit|\bcap|累计|总额|不超过|最高|上限"
)
_PCT_DAY_CTX = re.compile(
    r"per (?:calendar )?day|a day|each day|every day|每逾期一?[天日]|每日|每天"
)

# Phrases the topic rules act on, longest first.
# ("without limitation" is not one: it follows "including".)
_NO_CAP_EN = (
    (
        re.compile(r"\b(shall|will) not be subject to any (?:maximum|limit(?:ation)?|cap)\b", re.I),
        "{modal} not exceed {cap}",
    ),
    (re.compile(r"\b(?:is|are|shall be) unlimited\b", re.I), "shall not exceed {cap}"),
    (
        re.compile(r"\bno (?:maximum|cap|limit) shall apply\b", re.I),
        "a maximum of {cap} shall apply",
    ),
)
_NO_CAP_ZH = (
    (re.compile(r"不设(?:置)?(?:上限|最高限额|封顶)"), "不超过{cap}"),
    (re.compile(r"不受(?:任何)?(?:上限|限额)?限制"), "不超过{cap}"),
    (re.compile(r"无(?:上限|最高限额|封顶)"), "以{cap}为上限"),
)
_TRANSFER_EN = re.compile(
    r"\bwhatever the cause(?:,?\s+and even (?:where|if) [^.;]*?(?:caused or contributed to it|"
    r"contributed to it|caused it))?|\bregardless of (?:the )?causes?\b|\birrespective of "
    r"(?:the )?causes?\b|\bhowsoever (?:caused|arising)\b|\bhowever caused\b|\bfor any reason "
    r"whatsoever\b",
    re.I,
)
_TRANSFER_ZH = re.compile(
    r"(?:无论|不论|不管)(?:是否)?(?:因|由于|基于)?(?:何种|何|任何)原因(?P<v>造成|导致|引起|所致)?(?P<de>的)?"
)
_DISCRETION_EN = (
    (
        re.compile(
            r"\b(?:in|at) (?:its|their|his|her|the \w+['’]s) (?:sole|absolute|own|unfettered)"
            r"(?: and (?:absolute|sole|unfettered))? (?:opinion|discretion|judge?ment)\b",
            re.I,
        ),
        "acting reasonably",
    ),
    (re.compile(r"\bas it (?:sees|deems|considers|thinks) fit\b", re.I), "as it reasonably considers appropriate"),
    (re.compile(r"\bwithout (?:giving|stating|providing) (?:any )?reasons?\b", re.I), "giving written reasons"),
    (re.compile(r"\b(?:sole|absolute|unfettered) discretion\b", re.I), "reasonable discretion"),
)  # fmt: skip
_DISCRETION_ZH = (
    (re.compile(r"(?:单方面?|自行|全权)(?=决定|认定|确定|判断|解释)"), "合理"),
    (re.compile(r"(?=认为必要时)"), "有合理理由"),
    (re.compile(r"无需(?:说明|给出|提供)(?:任何)?理由"), "应书面说明理由"),
)

# Risk wording → topic rules.
_KW_CAP = re.compile(
    r"uncapped|unlimited|no (?:cap|limit|maximum)|not capped|without (?:a )?(?:limit|cap)|"
    r"cap[_ ]removed|(?:removes?|deletes?) the cap|not subject to any (?:cap|limit|maximum)|"
    r"open[- ]ended liability|无上限|不设上限|未设上限|没有上限|无限责任|无限|不封顶"
)
"""Risks saying a liability has no cap — the one a cap sentence answers. A cap too low, an
indemnity inside the cap or a statutory cap on retention is no such risk: capping our own
liability does not answer it."""
_KW_TRANSFER = re.compile(
    r"regardless|whatever the cause|any cause|howsoever|irrespective|risk transfer|fault|"
    r"无论|不论|任何原因|风险转移|过错"
)
_KW_DISCRETION = re.compile(r"sole|discretion|opinion|unilateral|arbitrary|单方|自行|全权|任意")
_KW_PERIOD = re.compile(
    r"period|\bdays?\b|time[- ]?bar|time limit|deadline|notice|期限|时限|时效|天内|日内|通知"
)
_KW_PERCENT = re.compile(
    r"%|percent|per cent|\brate\b|retention|damages|比例|保证金|费率|违约金|利率|保留金"
)

# Instruction wording.
_Q_OPEN, _Q_CLOSE = '["“‘「]', '["”’」]'
_Q_BODY = '[^"“”‘’「」]'
_INST_REPLACE = (
    re.compile(
        rf"(?:replace|change|amend)\s+{_Q_OPEN}(?P<old>{_Q_BODY}+){_Q_CLOSE}\s+(?:with|by|to|into)\s+"
        rf"{_Q_OPEN}(?P<new>{_Q_BODY}*){_Q_CLOSE}",
        re.I,
    ),
    re.compile(
        rf"{_Q_OPEN}(?P<old>{_Q_BODY}+){_Q_CLOSE}\s*(?:修改为|改为|替换为|改成|换成|调整为)\s*"
        rf"{_Q_OPEN}(?P<new>{_Q_BODY}*){_Q_CLOSE}"
    ),
)
_INST_INSERT = (
    re.compile(
        rf"(?:insert|add)\s+{_Q_OPEN}(?P<new>{_Q_BODY}+){_Q_CLOSE}\s+after\s+"
        rf"{_Q_OPEN}(?P<old>{_Q_BODY}+){_Q_CLOSE}",
        re.I,
    ),
    re.compile(
        rf"在\s*{_Q_OPEN}(?P<old>{_Q_BODY}+){_Q_CLOSE}\s*(?:之后|后面|后)\s*(?:增加|加入|插入|添加)\s*"
        rf"{_Q_OPEN}(?P<new>{_Q_BODY}+){_Q_CLOSE}"
    ),
)
_INST_DELETE_QUOTED = re.compile(
    rf"(?:delete|remove|strike(?:\s+out)?|omit|删除|删去|删掉|去掉)\s*(?:the\s+(?:words?|phrase)\s+)?"
    rf"{_Q_OPEN}(?P<old>{_Q_BODY}+){_Q_CLOSE}",
    re.I,
)
_INST_DELETE = re.compile(
    r"(?<!not )(?<!n't )(?<!never )\b(?:delete|remove|strike|omit)\b|(?<!不要)(?<!不应)(?<!勿)(?:删除|删去|删掉|去掉)",
    re.I,
)
_INST_PHRASE = re.compile(r"phrase|words?\b|wording|表述|字样|措辞|用语", re.I)
_INST_CAP = re.compile(
    r"\bcap(?:ped)?\b|limit(?:ed)? (?:it )?to|not (?:to )?exceed|maximum|上限|封顶|不超过|不得超过|限额",
    re.I,
)
_INST_PCT_OF = re.compile(
    r"\d+(?:\.\d+)?\s*%\s+of\s+the\s+[A-Z][A-Za-z'’]*(?:\s+[A-Z][A-Za-z'’]*)*|"
    r"(?:" + "|".join(_ZH_PRICES) + r")的\d+(?:\.\d+)?[%％]"
)
"""A cap written out in the instruction: '50% of the Contract Price', '合同价款的30%'."""
_INST_CAP_VALUE = (
    re.compile(
        r"(?:cap(?:ped)?(?: it)? at|cap of|limit(?:ed)?(?: it)? to|not (?:to )?exceed|maximum of|up to)"
        r"\s+(?P<x>.+?)\s*[.;]?$",
        re.I,
    ),
    re.compile(r"(?:上限为|上限是|封顶为|不超过|不得超过|限于)(?P<x>.+?)[。；;.]?$"),
    re.compile(r"以(?P<x>.+?)为上限"),
)
_INST_FAULT = re.compile(r"fault|negligen|breach|to the extent caused|过错|原因导致|原因造成", re.I)
_INST_REASONABLE = re.compile(r"reasonabl|合理", re.I)
_NUMBER_RE = re.compile(rf"\d+(?:\.\d+)?|{_CN_NUM}+")


# --------------------------------------------------------------------------------------------
# Small text helpers
# --------------------------------------------------------------------------------------------


_CLAUSE_CACHE_LOCK = threading.Lock()
"""Held while a per-clause cache below is read or filled: the redlines of a clause are drafted
at once in worker threads, and one computes what the others then read instead of each
computing it beside it."""


def _is_zh(text: str) -> bool:
    """Whether `text` is Chinese (cached: every redline of a clause asks of its text)."""
    with _CLAUSE_CACHE_LOCK:
        return _is_zh_cached(text)


@lru_cache(maxsize=64)
def _is_zh_cached(text: str) -> bool:
    cjk = len(_CJK_RE.findall(text))
    return cjk > 0 and cjk * 2 >= len(_LATIN_RE.findall(text))


def _norm_words(text: str) -> str:
    return "".join(w for w in re.findall(r"[a-z]+", text.lower()) if w != "and")


def _number(text: str) -> float | None:
    if text and text[0].isdigit():
        try:
            return float(text)
        except ValueError:
            return None
    value = chinese_to_int(text, extended=False, digit_string=False, bare_units=True) if text else 0
    return float(value) if value is not None else None


def _fmt(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _match_case(template: str, original: str) -> str:
    if original.isupper():
        return template.upper()
    if original[:1].isupper():
        return template[:1].upper() + template[1:]
    return template


# --------------------------------------------------------------------------------------------
# Context of one call
# --------------------------------------------------------------------------------------------


@dataclass
class _Ctx:
    """Everything the strategies need, computed once."""

    clause: ClauseNode
    text: str
    qs: int
    qe: int
    zh: bool
    party: str
    """Our party as the contract names it (role word preferred); '' if unknown."""
    party_is_role: bool
    price: str
    risk_text: str
    instruction: str
    heading_end: int
    """Offset in `text` where the body starts (searches outside the quote start there)."""
    notes: list[str] = field(default_factory=list)
    position: Position | None = None
    """The playbook position the risk was measured against, if any."""
    roles: PartyRoles | None = None
    """Our party and theirs, resolved against the contract (position redlines need them)."""
    measured: tuple[float, float] | None = None
    """(the number the risk measured, the number our position asks for), when it says."""
    structure: DocumentStructure | None = None
    """The contract the clause is in (read only when a strategy needs the whole text)."""

    @property
    def quote(self) -> str:
        return self.text[self.qs : self.qe]

    def them(self) -> str:
        """The other side as the contract writes it ('the Provider', 'Landlord'); '' if
        unknown."""
        if self.roles is None or not self.roles.their_aliases or self.structure is None:
            return ""
        return as_written(contract_text(self.structure), self.roles.their_aliases[0])

    def draft_party(self) -> str:
        """Our party as it should appear in contract wording (placeholder if unknown)."""
        if not self.party:
            return "[一方]" if self.zh else "the [party]"
        if self.zh or not self.party_is_role:
            return self.party
        return f"the {self.party}"


def _locate_quote(clause: ClauseNode, risk: RiskPoint) -> tuple[int, int, bool]:
    """(start, end, fuzzy) of the risk's quote in the clause text."""
    loc = risk.location
    quote = loc.original_text if loc else ""
    if not quote.strip():
        raise SkillError(
            f"risk {risk.id} has no quote: set risk.location.original_text to the verbatim "
            f"words of clause {clause.clause_id} the risk is about"
        )
    text = clause.text
    hint = None
    if loc is not None and loc.start_offset is not None:
        hint = loc.start_offset - clause.start_offset
    for candidate in (quote, quote.strip()):
        hits: list[int] = []
        i = text.find(candidate)
        while i != -1 and len(hits) < 50:
            hits.append(i)
            i = text.find(candidate, i + 1)
        if hits:
            best = min(hits, key=lambda h: abs(h - hint)) if hint is not None else hits[0]
            return best, best + len(candidate), False
    parts = []
    for word in quote.split():
        esc = re.escape(word)
        esc = re.sub(r"(?:\\?['’‘])", "['’‘]", esc)
        esc = re.sub(r"(?:\\?[\"“”])", '["“”]', esc)
        parts.append(esc)
    m = re.search(r"\s+".join(parts), text) if parts else None
    if m is None:
        raise SkillError(
            f"quote not found in clause {clause.clause_id}: '{short(quote, 60)}' is not "
            "verbatim clause text"
        )
    return m.start(), m.end(), True


def _resolve_party(
    roles: PartyRoles | None, structure: DocumentStructure, clause_text: str, quote: str
) -> tuple[str, bool]:
    """Our party as the clause names it, and whether that is a role word."""
    raw = re.sub(r"^(?:the)\s+", "", roles.our_party.strip(), flags=re.I) if roles else ""
    if not raw or roles is None:
        return "", False
    # Who "we" are in this contract (names, role words EN/ZH, 甲方/乙方) comes from the shared
    # party analysis; a redline names us by a role word the clause itself uses.
    aliases = {raw, *roles.our_aliases}
    words = [a for a in aliases if role_key(a) is not None or a in GENERIC_LABELS]
    for scope in (quote, clause_text):
        found = [(scope.find(r), r) for r in words if r in scope]
        if found:
            return min(found)[1], True
    defined = [r for r in words if r in structure.definitions]
    if defined:
        return sorted(defined)[0], True
    if words and raw in words and _is_zh(raw) == _is_zh(clause_text):
        return raw, True
    same_language = sorted(r for r in words if _is_zh(r) == _is_zh(clause_text))
    if same_language:
        return same_language[0], True
    return raw, raw in words


_PRICE_WORDS = re.compile(r"\b(?:price|fees?|charges|consideration|sum|amount)\b", re.I)


def _price_term(structure: DocumentStructure, clause_text: str, zh: bool) -> str:
    """The contract's own word for its price: a standard term it uses, else a defined term
    about price or fees, else plain words — never a capitalised term the contract does not
    define ('Contract Price' in an SPA whose term is 'Purchase Price')."""
    names = _ZH_PRICES if zh else _EN_PRICES
    for name in names:
        if name in clause_text:
            return name
    for name in names:
        if name in structure.definitions:
            return name
    if zh:
        return "合同价款"
    defined = _price_definitions(structure)
    for term in defined:
        if term in clause_text:
            return term
    return defined[0] if defined else "contract price"


@per_structure()
def _price_definitions(structure: DocumentStructure) -> tuple[str, ...]:
    """The defined terms about price or fees, sorted (read once per document)."""
    return tuple(sorted(t for t in structure.definitions if _PRICE_WORDS.search(t)))


def _comment_zh(language: str | None, drafting_zh: bool) -> bool:
    if language is not None:
        return language.lower().startswith("zh")
    return drafting_zh


# --------------------------------------------------------------------------------------------
# Edits
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Edit:
    """One edit in clause-text coordinates: replace text[start:end] with `text`."""

    start: int
    end: int
    text: str
    minimize: bool = True
    anchor_start: int | None = None
    """For an insertion (start == end): where its anchor begins."""
    display: tuple[str, str] | None = None
    """(old, new) phrase to name in the comment instead of the raw diff."""


@dataclass(frozen=True)
class _Proposal:
    """What one strategy proposes."""

    strategy: RedlineStrategy
    edit: _Edit
    benefit: str = ""
    """Key of the benefit sentence of the comment."""
    alternatives: tuple[_Edit, ...] = ()
    related: tuple[_Edit, ...] = ()
    uses_instruction: bool = False


@dataclass(frozen=True)
class _Final:
    action: ActionType
    start: int
    original: str
    proposed: str


def _tokens(text: str) -> list[str]:
    return _TOKEN_RE.findall(text)


def _minimize(text: str, start: int, end: int, new: str) -> tuple[int, int, str]:
    """Trim the common token prefix/suffix of text[start:end] and `new`."""
    old_t, new_t = _tokens(text[start:end]), _tokens(new)
    p = 0
    while p < len(old_t) and p < len(new_t) and old_t[p] == new_t[p]:
        p += 1
    s = 0
    while s < len(old_t) - p and s < len(new_t) - p and old_t[len(old_t) - 1 - s] == new_t[-1 - s]:
        s += 1
    head = sum(len(t) for t in old_t[:p])
    tail = sum(len(t) for t in old_t[len(old_t) - s :])
    return start + head, end - tail, "".join(new_t[p : len(new_t) - s])


def _anchor_start(text: str, pos: int, zh: bool) -> int:
    """Start of a short anchor ending at `pos`: the previous word (English) or the characters
    back to the previous punctuation, at most 8 (Chinese)."""
    if zh and pos > 0:
        stops = "，。；：、！？,.;:\n（）()"
        a = pos if text[pos - 1] not in stops else pos - 1  # right after punctuation: keep it
        while a > 0 and pos - a < 8 and text[a - 1] not in stops:
            a -= 1
        return a
    a = pos
    while a > 0 and text[a - 1].isspace():
        a -= 1
    while a > 0 and not text[a - 1].isspace():
        a -= 1
    return a


def _finalize(ctx: _Ctx, edit: _Edit) -> _Final | None:
    """The edit as a verbatim, minimal, non-empty diff; None if it changes nothing."""
    text = ctx.text
    s, e, new = edit.start, edit.end, edit.text
    if edit.minimize:
        s, e, new = _minimize(text, s, e, new)
    if text[s:e] == new:
        return None
    if s < e:
        return _Final(ActionType.DELETE if not new else ActionType.REPLACE, s, text[s:e], new)
    a = edit.anchor_start if edit.anchor_start is not None else _anchor_start(text, s, ctx.zh)
    if a >= s:  # nothing to anchor on: replace the next token instead
        token = _TOKEN_RE.match(text, s)
        if token is None or not token.group():
            return None
        return _Final(ActionType.REPLACE, s, token.group(), new + token.group())
    anchor = text[a:s]
    ws = re.search(r"\s+$", anchor)
    if ws and new.endswith(ws.group()) and ws.start() > 0:
        anchor, new = anchor[: ws.start()], ws.group() + new[: -len(ws.group())]
    return _Final(ActionType.INSERT, a, anchor, new)


def _diff_id(clause_id: str, start: int, final: _Final) -> str:
    key = f"{clause_id}|{start}|{final.action.value}|{final.original}|{final.proposed}"
    return "rl-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def _to_diff(
    ctx: _Ctx, final: _Final, risk: RiskPoint, reason: str, level: RiskLevel | None
) -> DocumentDiff:
    start = ctx.clause.start_offset + final.start
    assert ctx.text[final.start : final.start + len(final.original)] == final.original
    return DocumentDiff(
        diff_id=_diff_id(ctx.clause.clause_id, start, final),
        risk_id=risk.id,
        clause_id=ctx.clause.clause_id,
        action_type=final.action,
        original_text=final.original,
        proposed_text=final.proposed,
        reason=reason,
        risk_level=level,
        start_offset=start,
    )


def _phrase_delete(text: str, s: int, e: int, zh: bool) -> _Edit:
    """Delete text[s:e] with the separator around it, so no doubled comma or space remains."""
    n = len(text)
    before, after = text[max(0, s - 2) : s], text[e : e + 2]
    # "A; B." → "A.": the sentence keeps its full stop.
    if zh and text[s - 1 : s] in ("，", "；") and text[e - 1 : e] == "。":
        return _Edit(s - 1, e - 1, "", minimize=False)
    if not zh and before in (", ", "; ") and text[e - 1 : e] == ".":
        return _Edit(s - 2, e - 1, "", minimize=False)
    if zh:
        if text[s - 1 : s] == "，" and after[:1] == "，":
            return _Edit(s, e + 1, "", minimize=False)
        if text[s - 1 : s] == "，" and after[:1] in ("。", "；", ""):
            return _Edit(s - 1, e, "", minimize=False)
        if after[:1] == "，":
            return _Edit(s, e + 1, "", minimize=False)
        return _Edit(s, e, "", minimize=False)
    if before == ", " and after[:1] == ",":
        return _Edit(s - 2, e + 1, "", minimize=False)
    if before == ", " and (after[:1] in (".", ";", ":") or e == n):
        return _Edit(s - 2, e, "", minimize=False)
    if after == ", " and (s == 0 or text[s - 1] in "\n("):
        return _Edit(s, e + 2, "", minimize=False)
    if after[:1] == " ":
        return _Edit(s, e + 1, "", minimize=False)
    if text[s - 1 : s] == " " and (e == n or after[:1] in "\n.,;:)"):
        return _Edit(s - 1, e, "", minimize=False)
    return _Edit(s, e, "", minimize=False)


def _find_in_clause(ctx: _Ctx, needle: str) -> int:
    """Offset of `needle` in the clause, preferring a hit inside the quote."""
    i = ctx.text.find(needle, ctx.qs)
    if i != -1 and i + len(needle) <= ctx.qe:
        return i
    i = ctx.text.find(needle, ctx.heading_end)
    if i == -1:
        i = ctx.text.find(needle)
    if i == -1:
        raise SkillError(
            f"'{short(needle, 60)}' (from the instruction) not found in clause "
            f"{ctx.clause.clause_id}"
        )
    return i


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------

Strategy = Callable[[_Ctx], _Proposal | None]


def _s_instruction_edit(ctx: _Ctx) -> _Proposal | None:
    for rx in _INST_REPLACE:
        m = rx.search(ctx.instruction)
        if m:
            old, new = m.group("old"), m.group("new")
            i = _find_in_clause(ctx, old)
            return _Proposal(
                RedlineStrategy.INSTRUCTION_EDIT,
                _Edit(i, i + len(old), new),
                "instruction",
                uses_instruction=True,
            )
    for rx in _INST_INSERT:
        m = rx.search(ctx.instruction)
        if m:
            old, new = m.group("old"), m.group("new")
            i = _find_in_clause(ctx, old) + len(old)
            sep = "" if ctx.zh or new[:1].isspace() or new[:1] in ",.;:" else " "
            return _Proposal(
                RedlineStrategy.INSTRUCTION_EDIT,
                _Edit(i, i, sep + new, minimize=False, anchor_start=i - len(old)),
                "instruction",
                uses_instruction=True,
            )
    m = _INST_DELETE_QUOTED.search(ctx.instruction)
    if m:
        old = m.group("old")
        i = _find_in_clause(ctx, old)
        return _Proposal(
            RedlineStrategy.INSTRUCTION_EDIT,
            _phrase_delete(ctx.text, i, i + len(old), ctx.zh),
            "delete",
            uses_instruction=True,
        )
    return None


def _risky_phrases(ctx: _Ctx) -> list[tuple[int, int]]:
    """Spans of no-cap, risk-transfer and sole-discretion phrases inside the quote."""
    quote, spans = ctx.quote, []
    rxs: list[re.Pattern[str]] = (
        [r for r, _ in _NO_CAP_ZH] + [_TRANSFER_ZH] + [r for r, _ in _DISCRETION_ZH]
        if ctx.zh
        else [r for r, _ in _NO_CAP_EN] + [_TRANSFER_EN] + [r for r, _ in _DISCRETION_EN]
    )
    for rx in rxs:
        for m in rx.finditer(quote):
            if m.end() > m.start():
                spans.append((ctx.qs + m.start(), ctx.qs + m.end()))
    return sorted(spans)


def _s_delete(ctx: _Ctx) -> _Proposal | None:
    if not _INST_DELETE.search(ctx.instruction):
        return None
    if _INST_PHRASE.search(ctx.instruction):
        phrases = _risky_phrases(ctx)
        if phrases:
            s, e = phrases[0]
            return _Proposal(
                RedlineStrategy.DELETE,
                _phrase_delete(ctx.text, s, e, ctx.zh),
                "delete",
                uses_instruction=True,
            )
    qs, qe = ctx.qs, ctx.qe
    while qs < qe and ctx.text[qs].isspace():
        qs += 1
    while qe > qs and ctx.text[qe - 1].isspace():
        qe -= 1
    return _Proposal(
        RedlineStrategy.DELETE,
        _phrase_delete(ctx.text, qs, qe, ctx.zh),
        "delete",
        uses_instruction=True,
    )


def _cap_value(ctx: _Ctx) -> tuple[str, bool]:
    """The cap wording (from the instruction, else a placeholder) and whether it came from it."""
    inst = ctx.instruction.strip()
    if inst and _INST_CAP.search(inst):
        for rx in _INST_CAP_VALUE:
            m = rx.search(inst)
            x = m.group("x").strip().strip("\"“”'‘’「」") if m else ""
            if x and not re.fullmatch(r"\d+(?:\.\d+)?\s*[%％]", x):
                return x, True
    written = _INST_PCT_OF.search(inst)
    if written:
        return written.group(), True
    pct = re.search(r"(\d+(?:\.\d+)?)\s*[%％]", inst)
    if pct:
        n = pct.group(1)
        return (f"{ctx.price}的{n}%" if ctx.zh else f"{n}% of the {ctx.price}"), True
    return (f"{ctx.price}的[●]%" if ctx.zh else f"[●]% of the {ctx.price}"), False


def _last_sentence_start(text: str, end: int, floor: int) -> int:
    """Where the last sentence of text[floor:end] starts (cached: every cap redline of a
    clause asks it of the whole clause)."""
    with _CLAUSE_CACHE_LOCK:
        return _last_sentence_start_cached(text, end, floor)


@lru_cache(maxsize=64)
def _last_sentence_start_cached(text: str, end: int, floor: int) -> int:
    start = floor
    for m in re.finditer(r"[.;!?](?=\s)|[。；！？]|\n", text[floor : end - 1]):
        start = floor + m.end()
    while start < end and text[start].isspace():
        start += 1
    return start


def _s_cap(ctx: _Ctx) -> _Proposal | None:
    cap, from_inst = _cap_value(ctx)
    table = _NO_CAP_ZH if ctx.zh else _NO_CAP_EN
    for rx, template in table:
        m = rx.search(ctx.quote)
        if m:
            modal = m.group(1) if rx.groups and not ctx.zh else "shall"
            new = template.format(cap=cap, modal=modal)
            s, e = ctx.qs + m.start(), ctx.qs + m.end()
            return _Proposal(
                RedlineStrategy.CAP,
                _Edit(s, e, _match_case(new, m.group())),
                "cap",
                uses_instruction=from_inst,
            )
    end = len(ctx.text.rstrip())
    if end <= ctx.heading_end:
        return None
    start = _last_sentence_start(ctx.text, end, ctx.heading_end)
    if start >= end:
        return None
    last_line = ctx.text[ctx.text.rfind("\n", 0, end) + 1 : end].strip()
    is_item = re.match(
        r"\(?[a-z0-9ivx]{1,4}\)|（[一二三四五六七八九十]+）|[一二三四五六七八九十]+、", last_line
    )
    scope = _scope_word(ctx.clause, ctx.zh)
    if ctx.zh:
        sentence = f"{ctx.draft_party()}在{scope}项下的累计责任不超过{cap}。"
        sep = "\n" if is_item else ""
    else:
        sentence = (
            f"{cap_first(_possessive(ctx.draft_party()))} total liability under this {scope} "
            "shall not "
            f"exceed {cap}."
        )
        sep = "\n" if is_item else " "
    return _Proposal(
        RedlineStrategy.CAP,
        _Edit(end, end, sep + sentence, minimize=False, anchor_start=start),
        "cap",
        uses_instruction=from_inst,
    )


def _scope_word(clause: ClauseNode, zh: bool) -> str:
    if zh:
        return "本条"
    m = re.match(r"\s*(Sub-Clause|Clause|Article|Section|Paragraph)\b", clause.number, re.I)
    return m.group(1) if m else "Clause"


_POSSESSIVES = {"we": "our", "us": "our", "you": "your", "i": "my", "they": "their"}


def _possessive(party: str) -> str:
    """'the Supplier' → "the Supplier's"; a party called 'We' or 'you' → 'our', 'your'; a
    name ending in s → "Ames Brothers'"."""
    word = _POSSESSIVES.get(party.casefold())
    if word is not None:
        return word
    return f"{party}'" if party.endswith("s") and not party.endswith("ss") else f"{party}'s"


def _s_fault(ctx: _Ctx) -> _Proposal | None:
    party = ctx.draft_party()
    if ctx.zh:
        mz = _TRANSFER_ZH.search(ctx.quote)
        if mz is None:
            return None
        new = f"因{party}原因{mz.group('v') or '导致'}{mz.group('de') or ''}"
        s, e = ctx.qs + mz.start(), ctx.qs + mz.end()
    else:
        me = _TRANSFER_EN.search(ctx.quote)
        if me is None:
            return None
        new = f"to the extent caused by {_possessive(party)} breach or negligence"
        s, e = ctx.qs + me.start(), ctx.qs + me.end()
    return _Proposal(
        RedlineStrategy.FAULT_BASED,
        _Edit(s, e, new),
        "fault",
        alternatives=(_phrase_delete(ctx.text, s, e, ctx.zh),),
    )


_WITHHOLD_CONSENT = re.compile(
    r"\b(?:may|can|shall\s+be\s+entitled\s+to)\s+(?:grant\s+or\s+withhold|withhold\s+or\s+grant"
    r"|give\s+or\s+withhold|withhold|refuse|deny)(?:\s+(?:such|its|the)\s+consent)?\s*,?\s*$",
    re.IGNORECASE,
)
"""A consent the discretion governs ('which consent Licensor may grant or withhold in its sole
discretion'): the market words are 'shall not unreasonably withhold, condition or delay'."""


def _s_reasonable(ctx: _Ctx) -> _Proposal | None:
    for rx, new in _DISCRETION_ZH if ctx.zh else _DISCRETION_EN:
        m = rx.search(ctx.quote)
        if m is None:
            continue
        s, e = ctx.qs + m.start(), ctx.qs + m.end()
        holder = _owner(ctx, s) or _actor(ctx, s, ("right", "obligation", "exempt"))
        if holder == "us":
            return None  # our own discretion ('eDiets may, in its sole discretion, …') stays
        if re.search(r"\btheir\b|\beach\s+party|\beither\s+party|双方|各方", ctx.text[s:e]):
            return None  # 'STAAR and Distributor agree … in their sole discretion': ours too
        withhold = None if ctx.zh else _WITHHOLD_CONSENT.search(ctx.text, max(0, s - 60), s)
        if withhold is not None:
            new_words = "shall not unreasonably withhold, condition or delay"
            edit = _Edit(withhold.start(), e, new_words)
            return _Proposal(RedlineStrategy.REASONABLENESS, edit, "reasonable")
        if s == e:  # pure insertion point (e.g. before 认为必要时)
            return _Proposal(RedlineStrategy.REASONABLENESS, _Edit(s, e, new), "reasonable")
        alts = (_phrase_delete(ctx.text, s, e, ctx.zh),) if new != "合理" else ()
        return _Proposal(
            RedlineStrategy.REASONABLENESS, _Edit(s, e, new), "reasonable", alternatives=alts
        )
    return None


# -- numbers: periods and percentages --------------------------------------------------------


@dataclass(frozen=True)
class _Num:
    """A number in the clause: the span to replace, its value and how it is written."""

    start: int
    end: int
    value: float
    style: str
    """'digits', 'words' (fourteen (14)) or 'cn' (十四)."""
    unit: str
    """Unit family: 'day', 'working day', 'week', 'month', 'year', 'hour', or '%'."""
    phrase_end: int
    """End of the number with its unit ('14 days', '28-day', '5%'), for the comment."""


def _unit_family(unit: str) -> str:
    u = unit.lower()
    if "business" in u or "working" in u or "工作日" in u:
        return "working day"
    for key, fam in (
        ("day", "day"),
        ("天", "day"),
        ("日", "day"),
        ("week", "week"),
        ("周", "week"),
    ):
        if key in u:
            return fam
    for key, fam in (("星期", "week"), ("month", "month"), ("月", "month"), ("year", "year")):
        if key in u:
            return fam
    return "year" if "年" in u else "hour"


def _durations(text: str, lo: int, hi: int, zh: bool) -> list[_Num]:
    out: list[_Num] = []
    seg = text[lo:hi]
    if zh:
        for m in _ZH_DUR_RE.finditer(seg):
            s = lo + m.start("n")
            prev = text[s - 1 : s]
            unit = m.group("unit")
            value = _number(m.group("n"))
            if value is None or prev in ("年", "月", "第") or (unit.endswith("年") and value > 100):
                continue
            style = "digits" if m.group("n")[0].isdigit() else "cn"
            out.append(_Num(s, lo + m.end("n"), value, style, _unit_family(unit), lo + m.end()))
        return out
    for m in _EN_DUR_RE.finditer(seg):
        s, e = lo + m.start("n"), lo + m.end("n")
        value = float(m.group("n"))
        style = "digits"
        k = s
        while k > 0 and text[k - 1] == " ":
            k -= 1
        if m.group("close") and text[k - 1 : k] == "(":
            # "fourteen (14) days": the words and the figure change together.
            base = max(0, k - 61)
            seg = text[base : k - 1]
            target = _norm_words(int_to_english_words(int(value), use_and=True))
            for word in re.finditer(r"[A-Za-z]+", seg):
                if _norm_words(seg[word.start() :]) == target:
                    s, e, style = base + word.start(), lo + m.end("close"), "words"
                    break
        out.append(_Num(s, e, value, style, _unit_family(m.group("unit")), lo + m.end()))
    return out


def _percentages(text: str, lo: int, hi: int) -> list[_Num]:
    out: list[_Num] = []
    # '1 1/2%' is one number, 1.5: its parts are never edited alone
    for m in _PCT_FRACTION.finditer(text[lo:hi]):
        den = float(m.group("b"))
        if den:
            mixed = float(m.group("a")) / den + (float(m.group("w")) if m.group("w") else 0.0)
            out.append(_Num(lo + m.start(), lo + m.end("b"), mixed, "digits", "%", lo + m.end()))
    for m in _PCT_RE.finditer(text[lo:hi]):
        if any(n.start <= lo + m.start() < n.phrase_end for n in out):
            continue
        group = "n" if m.group("n") else "cn"
        raw = m.group(group)
        value = _number(raw)
        if value is None:
            continue
        style = "digits" if raw[0].isdigit() else "cn"
        out.append(_Num(lo + m.start(group), lo + m.end(group), value, style, "%", lo + m.end()))
    return out


def _render(num: _Num, value: float, original: str) -> str:
    if num.style == "cn" and value == int(value) and 0 <= value < 10_000:
        return int_to_chinese(int(value))  # 10000 and up: figures, as _fmt writes them
    if num.style == "words" and value == int(value) and value >= 0:
        n = int(value)
        return f"{_match_case(int_to_english_words(n, use_and=True), original)} ({n})"
    return _fmt(value)


def _num_edit(ctx: _Ctx, num: _Num, value: float) -> _Edit:
    original = ctx.text[num.start : num.end]
    new = _render(num, value, original)
    old_phrase = ctx.text[num.start : num.phrase_end]
    return _Edit(
        num.start,
        num.end,
        new,
        minimize=False,
        display=(old_phrase, new + ctx.text[num.end : num.phrase_end]),
    )


def _direction(text: str, up: str, down: str) -> str | None:
    mu, md = re.search(up, text), re.search(down, text)
    if mu and md:
        return "up" if mu.start() < md.start() else "down"
    return "up" if mu else "down" if md else None


def _instruction_numbers(ctx: _Ctx, unit_rx: re.Pattern[str]) -> tuple[float | None, list[float]]:
    """(target, other numbers) of the instruction: the last number with a unit, else the last
    number."""
    inst = ctx.instruction
    with_unit = [_number(m.group("n")) for m in unit_rx.finditer(inst)]
    nums = [v for v in (_number(m.group()) for m in _NUMBER_RE.finditer(inst)) if v is not None]
    target = next((v for v in reversed(with_unit) if v is not None), None)
    if target is None and nums:
        target = nums[-1]
    return target, nums


_INST_DUR_RE = re.compile(
    rf"(?P<n>\d{{1,4}}|{_CN_NUM}{{1,6}})\s*(?:-\s*)?(?:{_EN_UNIT}|个?(?:日历天|工作日|天|日|周|月))",
    re.I,
)
_INST_PCT_RE = re.compile(
    rf"(?P<n>\d+(?:\.\d+)?)\s*(?:%|％|per\s?cent|percent)|百分之(?P<cn>{_CN_NUM}+)", re.I
)

_PERIOD_RULES: tuple[tuple[re.Pattern[str], float, str], ...] = (
    (re.compile(r"time[- ]?bar|notice|notif|claim|通知|索赔|失权|时效"), 28, "up"),
    (
        re.compile(r"review|approv|respon|certif|return|release|审核|审批|答复|确认|返还|退还"),
        28,
        "down",
    ),
    (re.compile(r"payment|\bpay\b|paid|付款|支付|结算"), 56, "down"),
)
_PCT_RULES: tuple[tuple[re.Pattern[str], float, str, re.Pattern[str] | None], ...] = (
    (re.compile(r"performance (?:security|bond|guarantee)|履约保证金|履约担保|履约保函"), 10, "down", None),
    (re.compile(r"retention|retain|质量保证金|保证金|保留金|保修金|质保金"), 3, "down", _PCT_CAP_CTX),
    (re.compile(r"delay damages|liquidated damages|penalt|逾期竣工|误期|违约金"), 0.05, "down", _PCT_DAY_CTX),
    (re.compile(r"进度款|interim payment|progress payment|支付比例|payment percentage"), 80, "up", None),
)  # fmt: skip


def _s_period(ctx: _Ctx) -> _Proposal | None:
    nums = _durations(ctx.text, ctx.qs, ctx.qe, ctx.zh)
    if not nums:
        return None
    target, inst_nums = _instruction_numbers(ctx, _INST_DUR_RE)
    if _INST_PCT_RE.search(ctx.instruction) and not _INST_DUR_RE.search(ctx.instruction):
        target = None  # the instruction is about a percentage, not this period
    if target is not None and (
        _INST_DUR_RE.search(ctx.instruction) or _KW_PERIOD.search(ctx.risk_text)
    ):
        chosen = _pick_source(nums, target, inst_nums)
        if chosen is None:
            return None
        return _Proposal(
            RedlineStrategy.PERIOD,
            _num_edit(ctx, chosen, target),
            "period_up" if target > chosen.value else "period_down",
            related=_related(ctx, chosen, target),
            uses_instruction=True,
        )
    default, direction = None, None
    for rx, value, way in _PERIOD_RULES:
        if rx.search(ctx.risk_text):
            default, direction = value, way
            break
    stated = _direction(
        ctx.risk_text,
        r"too short|\bshort|insufficient|tight|not enough|过短|太短|较短|不足|紧",
        r"too long|\blong|excessive|lengthy|过长|太长|较长",
    )
    direction = stated or direction
    if direction is None:
        return None
    for num in nums:
        if num.unit != "day" or not _ours_to_move(ctx, num, direction):
            continue
        goal = _period_goal(num.value, default, direction)
        if goal is not None:
            return _Proposal(
                RedlineStrategy.PERIOD,
                _num_edit(ctx, num, goal),
                f"period_{direction}",
                alternatives=_together(ctx, [num, *_same_durations(ctx, num)], goal),
                related=_related(ctx, num, goal),
            )
    return None


_SENTENCE_START = re.compile(r"(?:[.。]\s+(?=[A-Z(\"“])|[。；]|\n\s*\n)")
_BY_PARTY = re.compile(r"\bby\s+(?:the\s+)?$|由$", re.I)


def _actor(ctx: _Ctx, at: int, kinds: tuple[str, ...]) -> str | None:
    """'us' or 'them': the party whose duty (or right, per `kinds`) nearest before `at` in its
    sentence — a list's lead-in included ('EFS shall provide: … (b) its audited accounts within
    thirty (30) days') — the words at `at` belong to; also the agent of a passive ('shall be
    permitted by Licensee'). None when the words name no one."""
    if ctx.roles is None:
        return None
    starts = [m.end() for m in _SENTENCE_START.finditer(ctx.text, 0, at)]
    segment = ctx.text[starts[-1] if starts else 0 : at]
    sides = [
        (a.start, str(a.side))
        for a in party_actions(segment, ctx.roles)
        if a.side in ("us", "them") and a.kind in kinds
    ]
    mentions = party_mentions(segment, ctx.roles)
    sides += [
        (pos, str(side))
        for pos, side, _ in mentions
        if side in ("us", "them") and _BY_PARTY.search(segment[max(0, pos - 8) : pos])
    ]
    if not sides and mentions:
        # the party the sentence opens with ('乙方主张…的，应自…28天内通知', 'If the Contractor
        # considers …, it shall …'): its subject, the modal far behind
        pos, side, _ = mentions[0]
        lead = re.sub(
            r"^[\s(（]*(?:[0-9a-zA-Z.]{1,6}[.)）]\s*)?(?:if|where|when|如|若)?\s*",
            "",
            segment[:pos],
            flags=re.I,
        )
        if side in ("us", "them") and not lead.strip(' \t"“the').strip():
            sides.append((pos, str(side)))
    return max(sides)[1] if sides else None


def _owner(ctx: _Ctx, at: int) -> str | None:
    """'us' or 'them': the party named as owner just before `at` ("in Forty Niners SC's sole
    discretion", "甲方自行决定"); None when none is."""
    if ctx.roles is None:
        return None
    before = ctx.text[max(0, at - 60) : at]
    owned = [
        (pos, str(side))
        for pos, side, word in party_mentions(before, ctx.roles)
        if side in ("us", "them")
        # 'Forty Niners SC's sole discretion', "iPass' sole discretion"
        and re.match(r"\s*(?:['’](?:s\b)?|的|自行|单方)", before[pos + len(word) :])
        and not re.search(r"[.;。；]", before[pos + len(word) :])
    ]
    return max(owned)[1] if owned else None


def _ours_to_move(ctx: _Ctx, num: _Num, direction: str) -> bool:
    """Whether moving the period `direction` helps us, given who must act within it: more time
    for us, less for them ('any such audit shall be permitted by Licensee within 30 days' is
    the other side's time when we act for the Licensor: lengthening it hurts us). A period no
    one is named to act within moves as the risk asks."""
    acting = _actor(ctx, num.start, ("obligation",))
    return acting is None or (acting == "us") == (direction == "up")


def _period_goal(value: float, default: float | None, direction: str) -> float | None:
    if direction == "up":
        if default is not None and default > value:
            return default
        return next((float(s) for s in _DAY_STEPS if s > value), None)
    if default is not None and default < value:
        return default
    return next((float(s) for s in reversed(_DAY_STEPS) if s < value), None)


def _pick_source(nums: list[_Num], target: float, inst_nums: list[float]) -> _Num | None:
    sources = [v for v in inst_nums if v != target]
    for src in sources:
        for num in nums:
            if num.value == src:
                return num
    return next((n for n in nums if n.value != target), None)


def _together(ctx: _Ctx, nums: list[_Num], value: float) -> tuple[_Edit, ...]:
    """One edit setting every one of `nums` (the same term written more than once in the
    clause: '5% of each payment, up to 5% of the price') to `value`; () for fewer than two."""
    nums = sorted({n.start: n for n in nums}.values(), key=lambda n: n.start)
    if len(nums) < 2:
        return ()
    pieces, last = [], nums[0].start
    for n in nums:
        pieces += [ctx.text[last : n.start], _render(n, value, ctx.text[n.start : n.end])]
        last = n.end
    return (_Edit(nums[0].start, last, "".join(pieces)),)


def _same_percentages(ctx: _Ctx, chosen: _Num) -> list[_Num]:
    """The percentages of the clause (past its heading) written with `chosen`'s value."""
    return [
        n for n in _percentages(ctx.text, ctx.heading_end, len(ctx.text)) if n.value == chosen.value
    ]


def _same_durations(ctx: _Ctx, chosen: _Num) -> list[_Num]:
    """The periods of the clause (past its heading) written with `chosen`'s value and unit."""
    with _CLAUSE_CACHE_LOCK:
        by_value = _durations_by_value(ctx.text, ctx.heading_end, ctx.zh)
    return by_value.get((chosen.value, chosen.unit), [])


def _related(ctx: _Ctx, chosen: _Num, value: float) -> tuple[_Edit, ...]:
    others = _same_durations(ctx, chosen)
    return tuple(_num_edit(ctx, n, value) for n in others if n.start != chosen.start)


@lru_cache(maxsize=64)
def _durations_by_value(text: str, lo: int, zh: bool) -> dict[tuple[float, str], list[_Num]]:
    """The periods of text[lo:] by (value, unit), in text order (cached: every period redline
    of a clause looks for the same period elsewhere in the whole clause). Read only."""
    out: dict[tuple[float, str], list[_Num]] = {}
    for n in _durations(text, lo, len(text), zh):
        out.setdefault((n.value, n.unit), []).append(n)
    return out


def _s_percentage(ctx: _Ctx) -> _Proposal | None:
    nums = _percentages(ctx.text, ctx.qs, ctx.qe)
    if not nums:
        return None
    rule = next((r for r in _PCT_RULES if r[0].search(ctx.risk_text)), None)
    ctx_rx = rule[3] if rule else None

    def context_hit(num: _Num) -> bool:
        if ctx_rx is None:
            return False
        before = ctx.text[max(ctx.heading_end, num.start - 25) : num.start].lower()
        if ctx_rx.search(before):
            return True
        after = ctx.text[num.phrase_end : num.phrase_end + 60].lower()
        return ctx_rx is _PCT_DAY_CTX and bool(ctx_rx.search(after))

    target, inst_nums = _instruction_numbers(ctx, _INST_PCT_RE)
    if _INST_DUR_RE.search(ctx.instruction) and not _INST_PCT_RE.search(ctx.instruction):
        target = None  # the instruction is about a period, not this percentage
    if target is not None and (_INST_PCT_RE.search(ctx.instruction) or rule is not None):
        sources = [v for v in inst_nums if v != target]
        cands = [n for n in nums if n.value in sources] or [n for n in nums if n.value != target]
        if not cands:
            return None
        chosen = next((n for n in cands if context_hit(n)), cands[0])
        return _Proposal(
            RedlineStrategy.PERCENTAGE,
            _num_edit(ctx, chosen, target),
            "pct_down" if target < chosen.value else "pct_up",
            alternatives=(
                *(_num_edit(ctx, n, target) for n in cands if n is not chosen),
                *_together(ctx, _same_percentages(ctx, chosen), target),
            ),
            uses_instruction=True,
        )
    if rule is None:
        return None
    _, default, direction, _ = rule
    stated = _direction(
        ctx.risk_text,
        r"too low|\blow|insufficient|过低|太低|偏低",
        r"too high|\bhigh|excessive|过高|太高|偏高",
    )
    direction = stated or direction
    cands = [n for n in nums if (n.value > default if direction == "down" else n.value < default)]
    if ctx_rx is _PCT_DAY_CTX:
        cands = [n for n in cands if context_hit(n)]
    if not cands:
        return None
    chosen = next((n for n in cands if context_hit(n)), cands[0])
    return _Proposal(
        RedlineStrategy.PERCENTAGE,
        _num_edit(ctx, chosen, default),
        f"pct_{direction}",
        alternatives=(
            *(_num_edit(ctx, n, default) for n in cands if n is not chosen),
            *_together(ctx, _same_percentages(ctx, chosen), default),
        ),
    )


# --------------------------------------------------------------------------------------------
# Choosing a strategy
# --------------------------------------------------------------------------------------------


# -- playbook positions ------------------------------------------------------------------------

_LEADING_NUMBER = re.compile(
    r"\s*(?:(?:Section|Clause|Article)\s+)?(?:\d+(?:\.\d+)*\.?|\(?[a-z]{1,3}\)|\(?\d{1,3}\)"
    r"|第[一二三四五六七八九十百零〇\d]+条|[一二三四五六七八九十]+、|（[一二三四五六七八九十]+）)\s*",
    re.I,
)
_ZH_FRACTION = re.compile(r"(百分之|千分之|万分之)([零〇一二两三四五六七八九十百\d.]+)")
_ZH_BASE = {"百分之": 1.0, "千分之": 0.1, "万分之": 0.01}
_NUMBER_WORD = (
    r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    r"|eighty|ninety|hundred|and|point|half|a)"
)
_PCT_WORDS = re.compile(
    rf"\b{_NUMBER_WORD}(?:[\s-]+{_NUMBER_WORD})*\s+(?:per\s?cent|percent)\s*\(\s*$", re.I
)


def _s_position(ctx: _Ctx) -> _Proposal | None:
    """Toward the position's standard: the number set to it, the other side's right made
    either party's, the term struck, or unlimited liability capped with its wording."""
    position = ctx.position
    if position is None:
        return None
    remembered = position.remembered
    if remembered is not None and remembered.decision == "edit" and position.redline is not None:
        # the lawyer's own wording, from an earlier review
        wording = position.redline.text("zh" if ctx.zh else "en")
        lead = _LEADING_NUMBER.match(ctx.quote)  # the clause keeps its number
        s = ctx.qs + (lead.end() if lead and lead.end() < len(ctx.quote) else 0)
        return _Proposal(RedlineStrategy.POSITION, _Edit(s, ctx.qe, wording), "remembered")
    numbers = [c for c in position.checks if isinstance(c, NumberCheck)]
    fix = position.fix or ("tiers" if numbers else None)
    if fix == "tiers" and numbers:
        return _position_number(ctx, numbers[0])
    if fix == "mutual":
        return _position_mutual(ctx)
    if fix == "delete":
        return _position_delete(ctx)
    if fix == "forum":
        return _position_forum(ctx)
    if fix == "consent":  # a transfer subject to the other's consent, else made mutual
        return _s_consent(ctx) or _position_mutual(ctx)
    if fix == "cap" and position.redline is not None:
        cap = position.redline.text("zh" if ctx.zh else "en")
        table = _NO_CAP_ZH if ctx.zh else _NO_CAP_EN
        for rx, template in table:
            m = rx.search(ctx.quote)
            if m:
                modal = m.group(1) if rx.groups and not ctx.zh else "shall"
                new = _match_case(template.format(cap=cap, modal=modal), m.group())
                s, e = ctx.qs + m.start(), ctx.qs + m.end()
                return _Proposal(RedlineStrategy.POSITION, _Edit(s, e, new), "position")
    return None


_FORUM_PLACE_EN = re.compile(
    r"\b(?i:courts?\s+(?:located\s+|sitting\s+|situated\s+)?(?:of|in|at|for)\s+"
    r"(?:and\s+located\s+in\s+)?)(?P<place>(?i:the\s+(?:city|state|county|province|borough|"
    r"district|canton|country|commonwealth)\s+of\s+)?[A-Z][\w.'’-]*(?:(?:,\s*|\s+)(?:(?:and|of|"
    r"upon|on)\s+)?[A-Z][\w.'’-]*)*)(?=\s*(?:,|;|\(|shall|will|to\b|for\b|over\b|in\s+respect|with\b|"
    r"and\s+(?:the|each|any|both)\b|$))"
)
"""The place named for the courts ('the courts of the city of Madrid', 'courts located in
Denver, Colorado'): the words a forum fix replaces."""
_FORUM_SEAT_ZH = re.compile(r"所在地|住所地|注册地")


def _position_forum(ctx: _Ctx) -> _Proposal | None:
    """The other side's home courts become the defendant's: 'the courts of the city of Madrid'
    → 'the courts of the place where the defendant has its principal place of business',
    '提交乙方所在地人民法院' → '提交被告住所地人民法院'. Each side then sues at the other's home:
    the fallback every playbook accepts."""
    if ctx.roles is None:
        return None
    if ctx.zh:
        for seat in _FORUM_SEAT_ZH.finditer(ctx.quote):
            at = seat.start()
            for k in range(1, 9):  # the party word just before 所在地 ('应提交转让方所在地')
                if k > at or ctx.roles.side_of(ctx.quote[at - k : at]) != "them":
                    continue
                s, e = ctx.qs + at - k, ctx.qs + seat.end()
                return _Proposal(RedlineStrategy.POSITION, _Edit(s, e, "被告住所地"), "forum")
        return None
    place = _FORUM_PLACE_EN.search(ctx.quote)
    if place is None:
        return None
    s, e = ctx.qs + place.start("place"), ctx.qs + place.end("place")
    new = "the place where the defendant has its principal place of business"
    # '…, and the Licensee irrevocably waives any objection to those courts': the waiver,
    # ours alone, becomes each party's in the same edit
    stop = _sentence_end(ctx.text, e, ctx.zh)
    ours = "|".join(re.escape(a) for a in sorted(ctx.roles.our_aliases, key=len, reverse=True))
    waiver = (
        re.compile(
            rf"\b(?:the\s+)?(?:{ours})(?=\s+(?:hereby\s+)?(?:irrevocably\s+)?(?:and\s+"
            rf"unconditionally\s+)?(?:waives|submits|consents|agrees\s+not\s+to\s+"
            rf"(?:object|challenge|contest)))"
        ).search(ctx.text, e, stop)
        if ours
        else None
    )
    if waiver is not None:
        new += ctx.text[e : waiver.start()] + "each party"
        e = waiver.end()
    return _Proposal(RedlineStrategy.POSITION, _Edit(s, e, new), "forum")


def _position_mutual(ctx: _Ctx) -> _Proposal | None:
    """'The Supplier may terminate … by notice to the Buyer' → 'Either party may terminate …
    by notice to the other party' (乙方有权…通知甲方 → 任何一方有权…通知对方).

    The rest of the sentence must follow: each party it still names becomes 'the other
    party' (对方). A sentence in which another party is the subject of a duty or right ('… and
    the Buyer shall pay the fees to that date') cannot be made mutual by words: no change."""
    if ctx.roles is None:
        return None
    theirs = [
        a
        for a in party_actions(ctx.quote, ctx.roles)
        if a.side == "them" and a.kind in ("right", "exempt")
    ]
    if not theirs:
        return None
    s = ctx.qs + theirs[0].start
    e = s + len(theirs[0].alias)
    article = re.search(r"\b(?:the|The|THE)\s+$", ctx.text[max(0, s - 5) : s])
    if article is not None:
        s -= len(article.group())
    stop = _sentence_end(ctx.text, e, ctx.zh)
    rest = ctx.text[e:stop]
    if any(a.start > 0 for a in party_actions(rest, ctx.roles)):
        return None
    if ctx.zh:
        new, other = "任何一方", "对方"
    else:
        before = _LEADING_NUMBER.sub("", ctx.text[ctx.qs : s], count=1).strip()
        start_of_sentence = not before or before[-1] in ".;:"
        new, other = ("Either party" if start_of_sentence else "either party"), "the other party"
    named = [(at, side, word) for at, side, word in party_mentions(rest, ctx.roles)]
    if any(side == "them" for _, side, _ in named):
        return None  # the holder named again ('amounts owed IBM by MSL'): no words fit both
    mentions = [(at, word) for at, side, word in named if side == "us"]
    # the one notified, paid or consulted: 'notice to the Buyer', 'by giving the Caterer five
    # days' notice', 'notifying the Client', 'the Caterer's consent'
    object_of = re.compile(
        r"(?:\b(?:to|by|from|with|against|upon|on|of|for|giv(?:e|es|ing)|notif(?:y|ies|ying)"
        r"|inform(?:s|ing)?|pay(?:s|ing)?|reimburs(?:e|es|ing)|compensat(?:e|es|ing))\s+(?:the\s+)?"
        r"|[向给对与])$",
        re.I,
    )
    if any(
        not object_of.search(rest[max(0, at - 16) : at])
        and not re.match(r"['’]s\b", rest[at + len(word) : at + len(word) + 3])
        for at, word in mentions
    ):
        return None  # named otherwise than as the one notified or paid ('key MSL staff')
    if not mentions:
        return _Proposal(RedlineStrategy.POSITION, _Edit(s, e, new, minimize=False), "mutual")
    pieces, last = [new], 0
    for at, word in mentions:
        lead = at
        if not ctx.zh:
            article = re.search(r"\b(?:the|The)\s+$", rest[max(0, at - 5) : at])
            lead = at - len(article.group()) if article is not None else at
        pieces += [rest[last:lead], other]
        last = at + len(word)
    end = e + last
    return _Proposal(
        RedlineStrategy.POSITION, _Edit(s, end, "".join(pieces), minimize=True), "mutual"
    )


def _sentence_end(text: str, pos: int, zh: bool) -> int:
    """Where the sentence holding `pos` ends (its full stop, semicolon or line end)."""
    stops = "。；;\n" if zh else ".;\n"
    ends = [i for c in stops if (i := text.find(c, pos)) != -1]
    return min(ends) if ends else len(text)


def _position_delete(ctx: _Ctx) -> _Proposal | None:
    """The term struck: the quoted sentence without its clause number."""
    lead = _LEADING_NUMBER.match(ctx.quote)
    s = ctx.qs + (lead.end() if lead and lead.end() < len(ctx.quote) else 0)
    e = ctx.qe
    while e < len(ctx.text) and ctx.text[e] in " \t":
        e += 1
    if s >= ctx.qe:
        return None
    return _Proposal(RedlineStrategy.POSITION, _Edit(s, e, "", minimize=False), "delete")


def _position_number(ctx: _Ctx, check: NumberCheck) -> _Proposal | None:
    """The term's number set to the position's standard, in the term's own unit."""
    target = check.standard
    if check.measure == "annual_rate":
        return _position_rate(ctx, target)
    days_per = {"day": 1.0, "working day": 1.0, "week": 7.0, "month": 30.0, "year": 365.0}
    nums = [n for n in _durations(ctx.text, ctx.qs, ctx.qe, ctx.zh) if n.unit in days_per]
    # the number the check measured: the first at or after its term ('renews for 24 months
    # unless notice is given 180 days before': the notice period, not the renewal term)
    at = ctx.qs + number_at(check, ctx.quote)
    nums = [n for n in nums if n.end > at] or nums
    if not nums:
        return None
    num = nums[0]
    in_days = target * 30.0 if check.measure == "months_of_fees" else target
    value = in_days / days_per[num.unit]
    value = float(int(value)) if check.worse == "higher" else float(-int(-value // 1))
    value = max(value, 1.0)
    edit = _with_unit(ctx, num, _num_edit(ctx, num, value), value)
    return _Proposal(RedlineStrategy.POSITION, edit, "position")


def _with_unit(ctx: _Ctx, num: _Num, edit: _Edit, value: float) -> _Edit:
    """`edit` of a period's number with its unit agreeing: 'one (1) month' and '28 days',
    never 'one (1) months' or '28 day'."""
    unit = ctx.text[num.end : num.phrase_end]
    if ctx.zh:
        return edit
    if value != 1 and re.search(r"(?:day|week|month|year)$", unit, re.I):
        return _Edit(num.start, num.phrase_end, edit.text + unit + "s", minimize=False)
    if value == 1 and re.search(r"(?:day|week|month|year)s$", unit, re.I):
        return _Edit(num.start, num.phrase_end, edit.text + unit[:-1], minimize=False)
    return edit


def _position_rate(ctx: _Ctx, annual: float) -> _Proposal | None:
    """A late-payment rate brought to `annual` % a year, written per the term's own period."""
    measured = _annual_rate(ctx.quote)
    if ctx.zh:
        m = _ZH_FRACTION.search(ctx.quote)
        nominal = _number(m.group(2)) if m else None
        if m is None or not nominal or not measured:
            return None
        per_period = annual / (measured / (nominal * _ZH_BASE[m.group(1)]))
        base = "万分之" if per_period < 0.1 else "千分之" if per_period < 1 else "百分之"
        n = max(int(per_period / _ZH_BASE[base]), 1)
        s, e = ctx.qs + m.start(), ctx.qs + m.end()
        return _Proposal(
            RedlineStrategy.POSITION,
            _Edit(s, e, f"{base}{int_to_chinese(n)}", minimize=False),
            "position",
        )
    pcts = _percentages(ctx.text, ctx.qs, ctx.qe)
    if not pcts or not measured or not pcts[0].value:
        return None
    num = pcts[0]
    per_period = annual / (measured / num.value)
    value = float(f"{per_period:.2g}") if per_period < 1 else float(int(per_period))
    words = _PCT_WORDS.search(ctx.text[ctx.qs : num.start])
    if words is not None:  # "three per cent (3%)": words and figure together
        start = ctx.qs + words.start()
        close = ctx.text.find(")", num.end)
        end = close + 1 if close != -1 and close - num.end < 4 else num.phrase_end
        new = f"{_fmt(value)} per cent ({_fmt(value)}%)"
        return _Proposal(
            RedlineStrategy.POSITION, _Edit(start, end, new, minimize=False), "position"
        )
    return _Proposal(RedlineStrategy.POSITION, _num_edit(ctx, num, value), "position")


_UNIT_DAYS = {"day": 1.0, "working day": 1.4, "week": 7.0, "month": 30.0, "year": 365.0}


def _s_measured(ctx: _Ctx) -> _Proposal | None:
    """The number the risk measured set to the one our position asks for ('5% of the Purchase
    Price' → '10%', 'within 14 days' → '28 days'): the number of the quote written with the
    measured value, as such or in days."""
    if ctx.measured is None:
        return None
    value, target = ctx.measured
    for num in _percentages(ctx.text, ctx.qs, ctx.qe):
        if abs(num.value - value) < 1e-6:
            return _Proposal(
                RedlineStrategy.POSITION,
                _num_edit(ctx, num, target),
                "pct_up" if target > value else "pct_down",
            )
    for num in _durations(ctx.text, ctx.qs, ctx.qe, ctx.zh):
        per = _UNIT_DAYS.get(num.unit, 0.0)
        if abs(num.value - value) < 1e-6:
            goal = target  # measured in the term's own unit ('18 months')
        elif per and abs(num.value * per - value) < 0.5:
            goal = target / per  # measured in days ('two weeks' = 14)
        else:
            continue
        goal = float(round(goal)) if goal >= 1 else goal
        if goal == num.value:
            continue
        edit = _with_unit(ctx, num, _num_edit(ctx, num, goal), goal)
        return _Proposal(
            RedlineStrategy.POSITION, edit, "period_up" if goal > num.value else "period_down"
        )
    return None


_KW_SET_OFF = re.compile(r"set[- ]?off|withh|deduct|抵销|抵扣|扣减|扣除|扣留", re.I)
_OVERRIDE_EN = re.compile(
    r",?\s*whether\s+or\s+not\s+(?:that|such|the|any)\s+(?:claim|amount|sum)\b[^,;.]*", re.I
)
_CLAIMED_EN = re.compile(
    r"\b(?:claims?|considers?|believes?|alleges?|asserts?)\b[^,;.]{0,80}?"
    r"\b(?:owed|owes|owing|due|payable)\b(?:\s+(?:to\s+)?(?:it|you|us|him|her|them)\b)?"
    r"(?:\s+(?:by|from)\s+(?:the\s+)?(?:us|you|[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?))?",
    re.I,
)
_QUALIFIER_EN = ", to the extent agreed in writing or finally determined by a court"
_CLAIMED_ZH = re.compile(r"(?:其)?(?:单方|自行)(?:认定|确定|主张)的")
_WAIVED_CONSENT_ZH = re.compile(r"[，,]\s*(?:且|并)?无(?:需|须)[^，。；]{0,30}(?:确认|同意|认可)")
_QUALIFIER_ZH = "经双方书面确认或经生效裁判确定的"


def _s_set_off(ctx: _Ctx) -> _Proposal | None:
    """A set-off or withholding on the other side's say-so confined to what the standard
    allows: '…, whether or not that claim is admitted' → '…, to the extent agreed in writing or
    finally determined by a court'; '其单方认定的违约金' → '经双方书面确认或经生效裁判确定的违约金'
    (a '无需…确认' the qualifier contradicts goes in the same edit)."""
    if not _KW_SET_OFF.search(ctx.risk_text):
        return None
    quote = ctx.quote
    if ctx.zh:
        claimed = _CLAIMED_ZH.search(quote)
        if claimed is None:
            return None
        s, e, new = ctx.qs + claimed.start(), ctx.qs + claimed.end(), _QUALIFIER_ZH
        stop = _sentence_end(ctx.text, e, ctx.zh)
        waived = _WAIVED_CONSENT_ZH.search(ctx.text, e, stop)
        if waived is not None:  # '无需事先取得乙方确认' would contradict it
            new += ctx.text[e : waived.start()]
            e = waived.end()
        return _Proposal(RedlineStrategy.POSITION, _Edit(s, e, new), "position")
    override = _OVERRIDE_EN.search(quote)
    if override is not None:
        s, e = ctx.qs + override.start(), ctx.qs + override.end()
        return _Proposal(RedlineStrategy.POSITION, _Edit(s, e, _QUALIFIER_EN), "position")
    claimed = _CLAIMED_EN.search(quote)
    if claimed is None:
        return None
    at = ctx.qs + claimed.end()
    return _Proposal(RedlineStrategy.POSITION, _Edit(at, at, _QUALIFIER_EN), "position")


_KW_ASSIGN = re.compile(r"assign|transfer|novat|subcontract|转让|转移|分包", re.I)
_NO_CONSENT_EN = re.compile(
    r"\bwithout\s+(?:(?:the|any)\s+)?(?:prior\s+)?(?:written\s+)?(?:consent|approval)\s+of\s+"
    r"(?:the\s+)?(?P<party>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)"
    r"|\bwithout\s+(?:the\s+)?(?P<owner>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)['’]s?\s+"
    r"(?:prior\s+)?(?:written\s+)?(?:consent|approval)"
)
_NO_CONSENT_ZH = re.compile(
    r"(?:无需|无须|不需|不必)(?:事先)?(?:经|取得|征得|经过)?(?P<party>[\u4e00-\u9fff]{1,6}?)(?:的)?(?:书面)?同意"
)


_BARRED_EN = re.compile(
    r"\b(?:shall|may|must|will)\s+not\b[^.;]{0,30}\b(?:assign|sublet|sub-let|transfer|novate)\b"
    # the contract or its rights, not property ('shall not sell or transfer the Stock')
    r"(?=[^.;]{0,80}\b(?:this|the)\s+(?:Agreement|Contract|Lease|Licen[cs]e|Sub-?contract|Premises)"
    r"|[^.;]{0,40}\bits\s+rights\b)"
)
_BARRED_ZH = re.compile(r"不得(?:以任何方式)?(?:将[^。；，]{0,30})?(?:转让|转租|分租)")


def _barred_without_consent(ctx: _Ctx) -> _Proposal | None:
    """Our outright bar on transfer opened to the other side's consent: 'Tenant shall not
    assign … the Premises.' → '… the Premises without the prior written consent of the
    Landlord, not to be unreasonably withheld.' (不得转让… → …，但经甲方书面同意的除外)."""
    assert ctx.roles is not None
    quote = ctx.quote
    bar = (_BARRED_ZH if ctx.zh else _BARRED_EN).search(quote)
    if bar is None or re.search(r"consent|approval|同意|许可", quote):
        return None
    acting = _actor(ctx, ctx.qs + bar.end(), ("obligation", "denial"))
    them = ctx.them() if acting == "us" else ""
    if not them:
        return None
    stop = _sentence_end(ctx.text, ctx.qs + bar.end(), ctx.zh)
    end = stop
    while end > ctx.qs + bar.end() and ctx.text[end - 1] in " \t.。":
        end -= 1
    if ctx.zh:
        new = f"，但经{them}书面同意的除外"
    else:
        new = f" without the prior written consent of {them}, not to be unreasonably withheld"
    return _Proposal(RedlineStrategy.POSITION, _Edit(end, end, new), "position")


def _s_consent(ctx: _Ctx) -> _Proposal | None:
    """A transfer the other side may make without our consent made subject to it: 'without
    the consent of the Company' → 'with the prior written consent of the Company, not to be
    unreasonably withheld' (无需甲方同意 → 经甲方书面同意). Only our consent is asked for."""
    if ctx.roles is None or not _KW_ASSIGN.search(ctx.risk_text + ctx.quote):
        return None
    barred = _barred_without_consent(ctx)
    if barred is not None:
        return barred
    if ctx.zh:
        m = _NO_CONSENT_ZH.search(ctx.quote)
        if m is None or ctx.roles.side_of(m.group("party")) != "us":
            return None
        new = f"经{m.group('party')}书面同意"
    else:
        m = _NO_CONSENT_EN.search(ctx.quote)
        if m is None:
            return None
        party = m.group("party") or m.group("owner")
        if ctx.roles.side_of(party) != "us":
            return None
        if m.group("party"):
            article = "the " if re.search(r"\bof\s+the\s+", m.group()) else ""
            new = f"with the prior written consent of {article}{party}, not to be unreasonably withheld"
        else:
            article = "the " if re.match(r"without\s+the\s+", m.group()) else ""
            new = f"with {article}{_possessive(party)} prior written consent, not to be unreasonably withheld"
    s, e = ctx.qs + m.start(), ctx.qs + m.end()
    # 'may assign … at any time without the Customer's consent': with consent, not at any time
    any_time = re.search(r"\s+at\s+any\s+time\s+$", ctx.text[max(0, s - 20) : s])
    if not ctx.zh and any_time is not None:
        s -= len(any_time.group()) - 1
    return _Proposal(RedlineStrategy.POSITION, _Edit(s, e, new), "position")


def _order(ctx: _Ctx) -> list[Strategy]:
    """Topic strategies to try: instruction signals, then risk keywords, then quote phrases."""
    order: list[Strategy] = []
    inst, risk = ctx.instruction.lower(), ctx.risk_text
    if inst:
        if _INST_DUR_RE.search(inst):
            order.append(_s_period)
        if _INST_CAP.search(inst):
            order.append(_s_cap)
        if _INST_PCT_RE.search(inst):
            order.append(_s_percentage)
        if _INST_FAULT.search(inst):
            order.append(_s_fault)
        if _INST_REASONABLE.search(inst):
            order.append(_s_reasonable)
    for rx, strategy in (
        (_KW_SET_OFF, _s_set_off),
        (_KW_ASSIGN, _s_consent),
        (_KW_CAP, _s_cap),
        (_KW_TRANSFER, _s_fault),
        (_KW_DISCRETION, _s_reasonable),
        (_KW_PERIOD, _s_period),
        (_KW_PERCENT, _s_percentage),
    ):
        if rx.search(risk):
            order.append(strategy)
    quote = ctx.quote
    no_cap = _NO_CAP_ZH if ctx.zh else _NO_CAP_EN
    if any(rx.search(quote) for rx, _ in no_cap):
        order.append(_s_cap)
    order += [_s_fault, _s_reasonable]
    return list(dict.fromkeys(order))


def _choose(ctx: _Ctx, proposed_text: str | None) -> list[tuple[_Proposal, _Final]]:
    """The drafts for the risk, best first: the reviewer's wording or instruction alone, else
    what each strategy proposes in order (verification takes the first that passes)."""
    if proposed_text is not None:
        proposal = _Proposal(
            RedlineStrategy.PROPOSED_TEXT, _Edit(ctx.qs, ctx.qe, proposed_text), "instruction"
        )
        final = _finalize(ctx, proposal.edit)
        if final is None:
            raise SkillError("proposed_text is identical to the quoted text: nothing to change")
        return [(proposal, final)]
    if ctx.instruction:
        for explicit in (_s_instruction_edit, _s_delete):
            proposal_or_none = explicit(ctx)
            if proposal_or_none is not None:
                final = _finalize(ctx, proposal_or_none.edit)
                if final is None:
                    raise SkillError("the instruction asks for no change to the clause text")
                return [(proposal_or_none, final)]
    drafts: list[tuple[_Proposal, _Final]] = []
    for strategy in [_s_position, _s_measured, *_order(ctx)]:
        got = strategy(ctx)
        if got is None:
            continue
        final = _finalize(ctx, got.edit)
        if final is not None and final not in [f for _, f in drafts]:
            drafts.append((got, final))
    return drafts


# --------------------------------------------------------------------------------------------
# Drafting
# --------------------------------------------------------------------------------------------


def draft_redline(
    structure: DocumentStructure,
    clause: ClauseNode,
    risk: RiskPoint,
    roles: PartyRoles | None,
    *,
    instruction: str = "",
    proposed_text: str | None = None,
    position: Position | None = None,
    language: str | None = None,
) -> Redline:
    """Pick a strategy for `risk` in `clause` of `structure` and build its diff and comment.

    `roles` is our party resolved against the contract (None: neutral or unknown; the
    redline then names no party); `instruction` and `proposed_text` are the reviewer's;
    `position` is the playbook position the risk refers to (`risk.position_id`), if known —
    a redline moves toward it unless the review is neutral (`risk.burdens`); `language` is the
    review's language for the comment (None: the clause's). Raises `SkillError` when the
    risk's quote is not in the clause or the reviewer's wording changes nothing.
    """
    qs, qe, fuzzy = _locate_quote(clause, risk)
    text = clause.text
    zh = _is_zh(text)
    party, is_role = _resolve_party(roles, structure, text, text[qs:qe])
    ctx = _Ctx(
        clause=clause,
        text=text,
        qs=qs,
        qe=qe,
        zh=zh,
        party=party,
        party_is_role=is_role,
        price=_price_term(structure, text, zh),
        risk_text=" ".join((risk.risk_type, risk.description, risk.reason)).lower(),
        instruction=" ".join(instruction.split()),
        heading_end=min(max(0, clause.body_offset - clause.start_offset), qs),
        # a neutral review has no side to move a term toward
        position=position if risk.position_id and not risk.burdens else None,
        roles=roles,
        measured=(
            (risk.measured, risk.target)
            if risk.measured is not None and risk.target is not None and not risk.burdens
            else None
        ),
        structure=structure,
    )
    if fuzzy:
        ctx.notes.append("the quote matched the clause only when whitespace is ignored")
    if position is not None and position.accepts(ctx.quote) and proposed_text is None:
        # the client accepted these words in an earlier review: nothing to propose
        ctx.notes.append("the wording was accepted in an earlier review: no change proposed")
        drafts: list[tuple[_Proposal, _Final]] = []
    else:
        drafts = _choose(ctx, proposed_text)
    proposal, final = drafts[0] if drafts else (None, None)
    if ctx.instruction and not (
        proposal
        and (proposal.uses_instruction or proposal.strategy is RedlineStrategy.PROPOSED_TEXT)
    ):
        ctx.notes.append(
            "the instruction could not be applied by a rule; pass proposed_text with the exact "
            "wording"
            if proposal is None
            else "the instruction was not needed by the rule used"
        )
    comment_zh = _comment_zh(language, zh)

    def comment_on(benefit: str, final: _Final | None, display: tuple[str, str] | None) -> str:
        change = None
        if final is not None:
            change = change_text(final.action, final.original, final.proposed, display, comment_zh)
        return redline_comment(
            risk,
            zh=comment_zh,
            us=_us(ctx, comment_zh),
            benefit=benefit,
            change=change,
            instruction=ctx.instruction,
            position=position,
            stance=ctx.position,
        )

    comment = comment_on(
        proposal.benefit if proposal else "none", final, proposal.edit.display if proposal else None
    )
    diff = None
    alternatives: list[DocumentDiff] = []
    related: list[DocumentDiff] = []
    if proposal is not None and final is not None:
        diff = _to_diff(ctx, final, risk, comment, risk.risk_level)
        seen = {diff.diff_id}
        related = _extra(ctx, proposal.related, risk, seen, comment_on, proposal.benefit)
        # other drafts for the same risk, in order, for verification to fall back on
        alternatives = _extra(ctx, proposal.alternatives, risk, seen, comment_on, proposal.benefit)
        for other, _ in drafts[1:]:
            edits = (other.edit, *other.alternatives)
            alternatives += _extra(ctx, edits, risk, seen, comment_on, other.benefit)
    return Redline(
        strategy=proposal.strategy if proposal else RedlineStrategy.COMMENT_ONLY,
        diff=diff,
        comment=comment,
        language="zh-CN" if comment_zh else "en",
        quote=TextLocation(
            document_id=structure.document_id,
            clause_id=clause.clause_id,
            original_text=text[qs:qe],
            start_offset=clause.start_offset + qs,
            end_offset=clause.start_offset + qe,
        ),
        alternatives=alternatives or [],
        related=related or [],
        notes=ctx.notes,
    )


def _us(ctx: _Ctx, zh: bool) -> str:
    """Our party's word for the comment ('the Contractor', '承包人'; 'our party' if unknown)."""
    if ctx.party:
        if ctx.party_is_role and not zh and _LATIN_RE.match(ctx.party):
            return f"the {ctx.party}"
        return ctx.party
    return "我方" if zh else "our party"


def _extra(
    ctx: _Ctx,
    edits: tuple[_Edit, ...],
    risk: RiskPoint,
    seen: set[str],
    comment_on: Callable[[str, _Final | None, tuple[str, str] | None], str],
    benefit: str,
) -> list[DocumentDiff]:
    """The diffs of `edits` not in `seen` (which they join), each with its own comment."""
    out: list[DocumentDiff] = []
    for edit in edits:
        final = _finalize(ctx, edit)
        if final is None:
            continue
        comment = comment_on(benefit, final, edit.display)
        diff = _to_diff(ctx, final, risk, comment, risk.risk_level)
        if diff.diff_id not in seen:
            seen.add(diff.diff_id)
            out.append(diff)
    return out
