"""Findings the graph makes itself: in LLM mode, the model's risks verified against the clause
text; the clause's own attempts to instruct an AI reviewer reported as risks; and, once every
clause is done, the protections the contract lacks (playbook positions no clause deals with)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from contract_review.analysis.blanks import find_blanks
from contract_review.analysis.cache import parties_of, per_structure
from contract_review.analysis.positions import term_held_by, term_sides
from contract_review.models import (
    LLM_SOURCE,
    AgentRunInfo,
    ClauseKind,
    ClauseNode,
    DocumentStructure,
    ReviewChecklistItem,
    RiskLevel,
    RiskPoint,
    TextLocation,
)
from contract_review.parties import OurSide, PartyRoles, Side, party_roles, payer_of
from contract_review.playbook import Position, Presence
from contract_review.skills.risks import SEVERITY_ORDER, anchor_quote, location_in, risk_id
from contract_review.text import has_cjk
from contract_review.text.matching import spelled_in_tags

from .injection import document_injections

__all__ = ["blank_risks", "checked_llm_risks", "injection_risks"]

_INJECTION_RISK_TYPE = "embedded instruction to AI reviewers"
_INJECTION_TEXT = {
    "en": (
        "The clause contains text addressed to an AI reviewer, apparently meant to steer an "
        "automated review. It was treated as contract text, not obeyed.",
        "Text written to manipulate a review is a red flag about the draft.",
        "Ask who inserted it and remove it; read this clause with extra care.",
    ),
    "zh": (
        "本条含有针对AI审查工具的指令性文字，似乎意在操纵自动审查；系统将其视为合同文本，未予执行。",
        "意图操纵审查的文字本身即是对该稿件的警示信号。",
        "请查明插入者并要求删除；对本条款应格外仔细审阅。",
    ),
}
_HIDDEN_TEXT = {
    "en": ' It is written in invisible Unicode tag characters, which read: "{}".',
    "zh": "该文字以不可见的 Unicode 标签字符写成，其内容为：“{}”。",
}
_MAX_LLM_RISKS = 40
"""Risks read from one answer about one clause: more is a runaway answer, not a review."""
_LEVELS = {
    "high": RiskLevel.HIGH,
    "critical": RiskLevel.HIGH,
    "高": RiskLevel.HIGH,
    "medium": RiskLevel.MEDIUM,
    "moderate": RiskLevel.MEDIUM,
    "中": RiskLevel.MEDIUM,
    "low": RiskLevel.LOW,
    "低": RiskLevel.LOW,
}


def injection_risks(
    clause: ClauseNode, language: str, structure: DocumentStructure
) -> tuple[list[RiskPoint], list[str]]:
    """A risk for each piece of the clause's text that tries to instruct an AI reviewer."""
    zh = "zh" if language.startswith("zh") else "en"
    description, reason, analysis = _INJECTION_TEXT[zh]
    risks, quotes = [], []
    for begin, finish in document_injections(structure):
        start, end = begin - clause.start_offset, finish - clause.start_offset
        if start < 0 or end > len(clause.text):
            continue
        quote = clause.text[start:end]
        quotes.append(quote)
        hidden = spelled_in_tags(quote)
        risks.append(
            RiskPoint(
                id=risk_id(clause.clause_id, "injection", _INJECTION_RISK_TYPE, quote),
                clause_id=clause.clause_id,
                risk_level=RiskLevel.HIGH,
                risk_type=_INJECTION_RISK_TYPE,
                description=description + (_HIDDEN_TEXT[zh].format(hidden) if hidden else ""),
                reason=reason,
                analysis=analysis,
                location=location_in(clause, quote, start),
                source_skills=["injection_check"],
            )
        )
    return risks, quotes


_BLANK_RISK_TYPE = {"en": "blank left in the contract", "zh": "合同留有空白"}
_BLANK_WHAT = {
    "amount": ("an amount", "金额"),
    "rate": ("a rate", "比例或费率"),
    "period": ("a period", "期限"),
    "date": ("a date", "日期"),
    "party": ("a party's particulars", "当事人信息"),
    "other": ("a term", "条款内容"),
}
_OPEN_TERMS = frozenset({"amount", "rate", "period"})
"""Blanks that leave the deal itself open (medium): a price, a rate, a period. A blank date, a
party's particulars (completed at signing) or another word is low, as is any blank of the
preamble or recitals (no operative term)."""

_document_blanks = per_structure()(find_blanks)


def blank_risks(clause: ClauseNode, language: str, structure: DocumentStructure) -> list[RiskPoint]:
    """One risk for a clause with blanks left to fill ('a fee of $____', '[●] months'), quoting
    the first of them that leaves the deal open: whichever side we act for, an open term is no
    agreement on it."""
    zh = "zh" if language.startswith("zh") else "en"
    end = clause.start_offset + len(clause.text)
    found = [
        (blank, anchored)
        for blank in _document_blanks(structure)
        if clause.start_offset <= blank.start < end
        and (anchored := anchor_quote(clause.text, blank.sentence)) is not None
    ]
    if not found:
        return []
    open_terms = [
        (b, a) for b, a in found if b.term in _OPEN_TERMS and clause.kind is not ClauseKind.PREAMBLE
    ]
    blank, anchored = (open_terms or found)[0]
    what = list(dict.fromkeys(_BLANK_WHAT[b.term][zh == "zh"] for b, _ in found))
    if zh == "zh":
        description = f"本条留有{len(found)}处空白（{'、'.join(what)}），尚未填写。"
        reason = "空白条款未达成合意：签署前应补全，否则该项约定不明，易生争议。"
    else:
        description = (
            f"The clause leaves {len(found)} blank{'s' if len(found) > 1 else ''} to be filled "
            f"in ({', '.join(what)})."
        )
        reason = (
            "A blank is a term not yet agreed: it must be filled in before signing, or the term "
            "is uncertain and open to dispute."
        )
    return [
        RiskPoint(
            id=risk_id(clause.clause_id, "blanks", _BLANK_RISK_TYPE[zh], blank.sentence),
            clause_id=clause.clause_id,
            risk_level=RiskLevel.MEDIUM if open_terms else RiskLevel.LOW,
            risk_type=_BLANK_RISK_TYPE[zh],
            description=description,
            reason=reason,
            location=location_in(clause, *anchored),
            source_skills=["blanks"],
        )
    ]


def _overlap(a: TextLocation | None, b: TextLocation | None) -> bool:
    """Whether two quotes share at least half of the shorter one."""
    if a is None or b is None or a.start_offset is None or b.start_offset is None:
        return False
    a_end, b_end = a.start_offset + len(a.original_text), b.start_offset + len(b.original_text)
    shared = min(a_end, b_end) - max(a.start_offset, b.start_offset)
    return shared > 0 and shared * 2 >= min(len(a.original_text), len(b.original_text))


def _text(item: dict[str, Any], key: str, limit: int) -> str:
    """A model-written field as text, cut to `limit` characters (model output is untrusted: a
    runaway answer must not flood the report)."""
    value = item.get(key)
    text = value.strip() if isinstance(value, str) else ""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def checked_llm_risks(
    clause: ClauseNode,
    raw: list[dict[str, Any]],
    existing: list[RiskPoint],
    info: AgentRunInfo,
    position_ids: frozenset[str] = frozenset(),
) -> tuple[list[RiskPoint], dict[str, str], AgentRunInfo]:
    """The model's risks checked against the clause: each quote verbatim, re-anchored on the
    nearest verbatim span, or the risk dropped; repeats of a finding already made dropped.

    Returns the risks kept, their suggested replacement texts (risk id → text; only for quotes
    found exactly, where the replacement was written for those very words) and the counts.
    A risk keeps the `position_id` the model gave only when it is one of `position_ids` (the
    positions its prompt carried).
    """
    kept: list[RiskPoint] = []
    suggestions: dict[str, str] = {}
    verbatim = repaired = dropped = duplicates = 0
    for item in raw[:_MAX_LLM_RISKS]:
        description = _text(item, "description", 1000)
        quote = str(item.get("original_text") or "").strip()
        anchored = anchor_quote(clause.text, quote) if quote and description else None
        if anchored is None:
            dropped += 1
            continue
        text, rel = anchored
        exact = text == quote
        verbatim += exact
        repaired += not exact
        level = _LEVELS.get(str(item.get("risk_level") or "").strip().lower(), RiskLevel.MEDIUM)
        risk_type = _text(item, "risk_type", 120) or "LLM finding"
        risk = RiskPoint(
            id=risk_id(clause.clause_id, LLM_SOURCE, risk_type, description),
            clause_id=clause.clause_id,
            risk_level=level,
            risk_type=risk_type,
            description=description,
            reason=_text(item, "reason", 1000),
            analysis=_text(item, "analysis", 4000),
            location=location_in(clause, text, rel),
            position_id=position
            if (position := _text(item, "position_id", 100)) in position_ids
            else "",
            source_skills=[LLM_SOURCE, *info.tools_used],
        )
        if any(
            _overlap(risk.location, r.location)
            and SEVERITY_ORDER[r.risk_level] <= SEVERITY_ORDER[level]
            for r in [*existing, *kept]
        ):
            duplicates += 1
            continue
        kept.append(risk)
        suggested = _text(item, "suggested_text", 1_000_000)
        # a replacement far longer than the words it replaces is a rewrite, not a minimal edit
        if exact and suggested and suggested != text and len(suggested) <= 2 * len(text) + 500:
            suggestions[risk.id] = suggested
    counts = info.model_copy(
        update={
            "risks_kept": len(kept),
            "quotes_verbatim": verbatim,
            "quotes_repaired": repaired,
            "quotes_dropped": dropped,
            "duplicates": duplicates,
        }
    )
    return kept, suggestions, counts


def deals_with(position: Position, topics: set[str], titles: Iterable[str]) -> bool:
    """Whether a text with these topics (lower case) and titles deals with `position`'s point."""
    if topics & {position.topic.casefold(), *(t.casefold() for t in position.recognise.topics)}:
        return True
    return any(re.search(t, title, re.I) for t in position.recognise.titles for title in titles)


_ABROAD = re.compile(r"[A-Za-z]{3,}|香港|澳门|澳門|台湾|台灣")
"""A party name that is not a mainland Chinese one: Latin letters, or a region with its own
law ('云栖数智科技（香港）有限公司')."""


def _domestic_chinese(structure: DocumentStructure, lang: str) -> bool:
    """A Chinese contract between parties named in Chinese only (two PRC companies): no
    choice of law is needed, PRC law governs it."""
    if lang != "zh":
        return False
    parties = parties_of(structure)
    return len(parties) >= 2 and all(
        has_cjk(p.name) and not _ABROAD.search(p.name) for p in parties
    )


def missing_protections(
    positions: Sequence[Position],
    items: Sequence[ReviewChecklistItem],
    structure: DocumentStructure | None,
    side: OurSide | None,
    language: str = "en",
    anywhere: frozenset[str] = frozenset(),
    kind: str | None = None,
) -> list[RiskPoint]:
    """A risk for each position whose point the contract never deals with ('no limitation of
    liability'), when its absence hurts our side: the positions marked `missing`, whose topic
    no clause was recognised for (`items`: the checklist's topics) and no title names, and
    that protect our party's role (or both sides). A position with `present` is also missing
    when the contract deals with its point for the other side only (a cap on their liability
    alone). Neutral: each absence names the parties it hurts. `anywhere`: the topics the text
    deals with somewhere (`DomainPlugin.topics_anywhere`), so a protection written where no
    clause was given its topic is not called missing. `kind`: the contract's kind — a position
    whose absence does not matter in it is skipped (no 'termination' missing in a lease that
    ends at its term)."""
    if structure is None:
        return []
    topics = {t.casefold() for i in items for t in i.topics} | anywhere
    titles = [c.title for c in structure.iter_clauses() if c.title]
    lang = "zh" if language.startswith("zh") else "en"
    roles = (
        party_roles(structure, side.our_party)
        if side is not None and side.party is not None
        else None
    )
    ours = _roles_played(structure, side, roles)
    parties = parties_of(structure) if ours is None else []
    out = []
    domestic = _domestic_chinese(structure, lang)
    for position in positions:
        if position.missing is None:
            continue
        dealt_with = deals_with(position, topics, titles)
        if dealt_with and (position.present is None or roles is None):
            continue
        if position.missing_cross_border and domestic:
            continue
        if kind is not None and kind in position.missing_except_kinds:
            continue
        location = None
        if position.present is not None and roles is not None:
            if term_sides(structure, position.present.check, roles) & {
                position.present.holder,
                "both",
            }:
                continue  # the contract gives it to our side
            location = _held_by_other(structure, position.present, roles)
        one_way = location is not None  # there, but for the other side only
        burdens = ""
        if position.protects:
            wanted = set(position.protects)
            # a protection owed to both sides alike is asked for whatever our role
            owed_anyway = (
                one_way and position.present is not None and position.present.whatever_role
            ) or (not ours and kind in position.protects_all_in_kinds)
            if ours is not None and not ours & wanted and not owed_anyway:
                continue
            if ours is None:
                hurt = [
                    p.labels[0] if p.labels else p.name for p in parties if set(p.roles) & wanted
                ]
                if parties and not hurt:
                    continue
                burdens = ", ".join(hurt)
        title = position.title or position.topic  # English: part of the risk type, a key
        shown = position.title_text(lang)
        # Our position is the position's own field: the outputs show it beside the finding.
        if lang == "zh":
            description = f"合同没有关于“{shown}”的约定。"
        else:
            description = f"The contract has no clause on {shown}."
        # there, but for the other side only
        if position.present is not None and roles is not None and (dealt_with or one_way):
            description = position.present.absent.text(lang).format(
                us=roles.our_aliases[0] if roles.our_aliases else side.our_party,  # type: ignore[union-attr]
                them=roles.their_aliases[0]
                if roles.their_aliases
                else ("对方" if lang == "zh" else "the other party"),
            )
        out.append(
            RiskPoint(
                id=risk_id("", "playbook", f"missing:{position.id}", description),
                clause_id="",
                risk_level=RiskLevel(position.missing),
                risk_type=f"missing: {title}" if lang == "en" else f"缺少约定：{title}",
                description=description,
                reason=position.rationale.text(lang) if position.rationale else "",
                position_id=position.id,
                burdens=burdens,
                location=location,
                source_skills=["playbook"],
            )
        )
    return out


def _held_by_other(
    structure: DocumentStructure, present: Presence, roles: PartyRoles
) -> TextLocation | None:
    """Where the contract gives the other side the protection ours lacks (the cap on their
    liability alone), quoted verbatim: the missing protection points at it."""
    other: Side = "them" if present.holder == "us" else "us"
    at = term_held_by(structure, present.check, roles, other)
    clause = structure.get_clause(at[0]) if at is not None else None
    anchored = anchor_quote(clause.text, at[1]) if clause is not None and at is not None else None
    return location_in(clause, *anchored) if clause is not None and anchored else None


def _roles_played(
    structure: DocumentStructure, side: OurSide | None, roles: PartyRoles | None
) -> set[str] | None:
    """Our party's roles; for a party the contract names by its name alone ('HDI', 'Dong-A'),
    the role its payments show: the party that pays is the customer, the one paid the
    provider. None: a neutral review."""
    if side is None or side.party is None:
        return None
    if side.party.roles or roles is None:
        return set(side.party.roles)
    payer = payer_of(structure, roles)
    if payer is None:
        return set()
    return {"customer"} if payer[0] == "us" else {"provider"}
