"""What a lawyer reads: a finished (or waiting) review as *issues*, in the contract's language.

Every output — the report, the Word comments, the issues list, the spreadsheet — is written
from one `ReviewView`. An issue is one point to raise: the risks found on one span of one clause
(several rules often flag the same change: they share the issue), with a readable title from the
playbook position or the risk catalogue, why it matters, our position and the fallback, the
proposed change with its decision, and the contract's words it rests on. A protection the
contract lacks is an issue without a clause. Text a model wrote is kept as written and marked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from contract_review.analysis.coverage import structure_failed
from contract_review.analysis.titles import risk_title
from contract_review.models import (
    LLM_SOURCE,
    AgentRunInfo,
    ClauseFindings,
    CoverageGap,
    DiffStatus,
    DocumentDiff,
    FavourableTerm,
    GapKind,
    ReviewResult,
    RiskLevel,
    RiskPoint,
)
from contract_review.playbook import Position
from contract_review.skills.risks import SEVERITY_ORDER, is_chinese
from contract_review.text import SEGMENT_END

__all__ = [
    "Finding",
    "Issue",
    "Messages",
    "Proposal",
    "ReviewView",
    "build_view",
    "messages",
]


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("messages.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


@dataclass(frozen=True)
class Messages:
    """The outputs' words in one language ('en' or 'zh')."""

    lang: str

    def __call__(self, key: str, **values: object) -> str:
        """The text of `key`, filled in; a "singular|plural" text picks by `n`."""
        template = str(_catalogue()[self.lang][key])
        if "|" in template:
            singular, plural = template.split("|", 1)
            template = singular if str(values.get("n")) == "1" else plural
        return template.format(**values) if values else template

    @property
    def colon(self) -> str:
        """The colon after a label."""
        return "：" if self.lang == "zh" else ": "


def messages(language: str) -> Messages:
    """The words for a review in `language` ('en', 'zh-CN' …)."""
    return Messages("zh" if is_chinese(language) else "en")


@dataclass
class Finding:
    """One risk behind an issue."""

    level: RiskLevel
    title: str
    detail: str
    by_model: bool
    """Whether a language model wrote it (shown as written, marked)."""


@dataclass
class Proposal:
    """A proposed change of the contract and what the reviewer decided."""

    diff_id: str
    action: str
    original: str
    proposed: str
    status: DiffStatus
    edited: bool
    feedback: str
    decided_by: str
    decided_at: str | None
    before: str
    """The sentence's words before the change (for showing it in context)."""
    after: str


@dataclass
class Issue:
    """One point to raise with the other side."""

    number: int
    clause_id: str | None
    clause_title: str
    level: RiskLevel
    title: str
    why: str
    position: str
    fallback: str
    quote: str
    start: int | None
    end: int | None
    findings: list[Finding] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)
    by_model: bool = False
    why_by_model: bool = False
    """Whether `why` is a model's finding (no playbook rationale): shown as the model's."""


@dataclass
class Favourable:
    """A term in our favour: keep it in negotiation."""

    clause_id: str
    title: str
    quote: str


@dataclass
class ClauseSection:
    """A reviewed clause and its issues."""

    clause_id: str
    title: str
    issues: list[Issue]
    completed: bool
    mode_line: str = ""
    """How the clause was analysed, said only when it differs from the review as a whole."""
    agent_line: str = ""
    """What the LLM agent did on the clause ('' when it did not run)."""
    injection: bool = False
    """Whether the clause holds text addressed to an AI reviewer."""


@dataclass
class ReviewView:
    """A review as the outputs show it."""

    language: str
    m: Messages
    title: str
    contract: str
    our_party: str
    domain: str
    kind: str
    """The contract's kind (main, how sure, the words that decided it; others that apply)."""
    date: str
    other_documents: list[str]
    issues: list[Issue]
    missing: list[Issue]
    sections: list[ClauseSection]
    favourable: list[Favourable]
    verdict: list[str]
    method: list[str]
    unchecked: list[str]
    counts: dict[str, int]
    redlines: dict[str, int]
    warnings: list[str]
    result: ReviewResult
    unplaced: list[tuple[str, str]] = field(default_factory=list)

    @property
    def all_issues(self) -> list[Issue]:
        """Clause issues and missing protections, in number order."""
        return sorted([*self.issues, *self.missing], key=lambda i: i.number)

    @property
    def top(self) -> list[Issue]:
        """The issues to lead with: high first, then medium (at most ten)."""
        ranked = sorted(self.all_issues, key=lambda i: (SEVERITY_ORDER[i.level], i.number))
        return [i for i in ranked if i.level is not RiskLevel.LOW][:10]


def _is_model(risk: RiskPoint) -> bool:
    return LLM_SOURCE in risk.source_skills


def _span(risk: RiskPoint) -> tuple[int, int] | None:
    loc = risk.location
    if loc is None or loc.start_offset is None or loc.end_offset is None:
        return None
    return loc.start_offset, loc.end_offset


def _sentence_around(text: str, start: int, end: int) -> tuple[str, str]:
    """The words of the sentence before `start` and after `end` in `text`."""
    head = text[:start]
    cut = max((m.end() for m in SEGMENT_END.finditer(head)), default=0)
    before = head[cut:].lstrip()
    tail = text[end:]
    stop = SEGMENT_END.search(tail)
    after = tail[: stop.end()] if stop else tail
    return before[-240:], after[:240]


def _proposal(diff: DocumentDiff, clause_text: str, clause_start: int) -> Proposal:
    before = after = ""
    if diff.original_text and clause_text:
        at = (
            diff.start_offset - clause_start
            if diff.start_offset is not None
            else clause_text.find(diff.original_text)
        )
        if at >= 0 and clause_text[at : at + len(diff.original_text)] == diff.original_text:
            before, after = _sentence_around(clause_text, at, at + len(diff.original_text))
    return Proposal(
        diff_id=diff.diff_id,
        action=diff.action_type.value,
        original=diff.original_text,
        proposed=diff.proposed_text,
        status=diff.status,
        edited=diff.edited,
        feedback=diff.feedback,
        decided_by=diff.decided_by,
        decided_at=diff.decided_at,
        before=before,
        after=after,
    )


class _Titles:
    """Readable titles and the position's words for risks, in one language."""

    def __init__(self, positions: Sequence[Position], language: str) -> None:
        self.by_id = {p.id: p for p in positions}
        self.by_clause: dict[str, Position] = {}
        for p in positions:
            for clause in p.recognise.clauses:
                self.by_clause.setdefault(clause, p)
        self.language = language

    def position(self, risk: RiskPoint) -> Position | None:
        """The playbook position the risk was measured against; else the position the
        playbook holds on its clause (a standard form's sub-clause)."""
        if risk.position_id and risk.position_id in self.by_id:
            return self.by_id[risk.position_id]
        return self.by_clause.get(risk.clause_id)

    def title(self, risk: RiskPoint) -> str:
        if _is_model(risk):
            return risk.risk_type  # the model's own words, shown as written
        position = self.position(risk)
        if risk.position_id and position is not None:
            return position.title_text(self.language)
        return risk_title(risk.risk_type, self.language)


def _group(risks: Sequence[RiskPoint]) -> list[list[RiskPoint]]:
    """Risks of one clause grouped into issues: risks on overlapping words share one (several
    rules often flag the same change); a risk quoting nothing joins the issue of its playbook
    position, else the clause's most severe quoted issue, else stands alone."""
    groups: list[tuple[tuple[int, int] | None, str, list[RiskPoint]]] = []
    ordered = sorted(risks, key=lambda r: (_span(r) is None, SEVERITY_ORDER[r.risk_level]))
    for risk in ordered:
        span = _span(risk)
        for index, (gspan, gpos, members) in enumerate(groups):
            if span is not None and gspan is not None and span[0] < gspan[1] and gspan[0] < span[1]:
                members.append(risk)
                groups[index] = ((min(span[0], gspan[0]), max(span[1], gspan[1])), gpos, members)
                break
            if span is None and risk.position_id and risk.position_id == gpos:
                members.append(risk)
                break
        else:
            quoted = [g for g in groups if g[0] is not None]
            if span is None and not risk.position_id and quoted:
                quoted[0][2].append(risk)
            else:
                groups.append((span, risk.position_id, [risk]))
    for _, _, members in groups:
        members.sort(key=lambda r: SEVERITY_ORDER[r.risk_level])
    groups.sort(key=lambda g: SEVERITY_ORDER[g[2][0].risk_level])
    return [members for _, _, members in groups]


def _issue(
    number: int,
    members: list[RiskPoint],
    diffs: Sequence[DocumentDiff],
    titles: _Titles,
    clause: tuple[str | None, str, str, int],
) -> Issue:
    clause_id, clause_title, clause_text, clause_start = clause
    lead = members[0]  # the most severe
    lang = titles.language
    position = next((p for r in members if (p := titles.position(r)) is not None), None)
    findings = [
        Finding(
            level=r.risk_level,
            title=titles.title(r),
            detail=" ".join(r.description.split()),
            by_model=_is_model(r),
        )
        for r in members
    ]
    rationale = position.rationale.text(lang) if position and position.rationale else ""
    spans = [s for r in members if (s := _span(r)) is not None]
    start = min(s[0] for s in spans) if spans else None
    end = max(s[1] for s in spans) if spans else None
    quote = ""
    if start is not None and end is not None and clause_text:
        rel = start - clause_start
        quote = clause_text[rel : rel + (end - start)] if rel >= 0 else ""
        if not quote:
            quote = lead.location.original_text if lead.location else ""
    elif lead.location is not None:
        quote = lead.location.original_text
    ids = {r.id for r in members}
    proposals = [_proposal(d, clause_text, clause_start) for d in diffs if d.risk_id in ids]
    return Issue(
        number=number,
        clause_id=clause_id,
        clause_title=clause_title,
        level=lead.risk_level,
        title=findings[0].title,
        why=rationale or findings[0].detail,
        position=position.standard.text(lang) if position else "",
        fallback=position.fallback.text(lang) if position and position.fallback else "",
        quote=quote,
        start=start,
        end=end,
        findings=findings,
        proposals=proposals,
        by_model=all(f.by_model for f in findings),
        why_by_model=not rationale and findings[0].by_model,
    )


def _mode_line(f: ClauseFindings, m: Messages, llm_on: bool) -> str:
    """How a clause was analysed, when LLM mode was on (a review without a model says so
    once, on its first page): the agent with the rules, or the rules alone and why."""
    if not llm_on:
        return ""
    if f.analysis_mode == "llm":
        return m("mode_llm")
    reason = _reason(" ".join(f.mode_reason.split()), m)
    return f"{m('mode_rules')} — {reason}" if reason else m("mode_rules")


_TIMEOUT = re.compile(r"^LLM agent timed out after ([\d.]+) s$")
_DOWN = re.compile(r"^LLM endpoint unusable: (.*)$")


def _reason(reason: str, m: Messages) -> str:
    """The engine's reason for a rules-only clause in the outputs' language (an error the
    endpoint sent is shown as sent)."""
    if match := _TIMEOUT.match(reason):
        return m("reason_timeout", s=match.group(1))
    if match := _DOWN.match(reason):
        return m("reason_down", detail=match.group(1))
    if reason.startswith("no LLM endpoint"):
        return m("mode_no_llm")
    return reason


def _agent_line(agent: AgentRunInfo, m: Messages) -> str:
    """One line on what the agent did: steps, tools, stop reason, quote checks, duplicates."""
    tools = (
        m("agent_tools", tools=m("list_sep").join(agent.tools_used))
        if agent.tools_used
        else m("agent_no_tools")
    )
    parts = [
        m("agent_steps", n=agent.steps_taken) + m("list_sep") + tools,
        m("agent_stop", reason=agent.stop_reason),
    ]
    if agent.error:
        parts.append(m("agent_error", error=" ".join(agent.error.split())))
    quotes = [
        m(key, n=n)
        for key, n in (
            ("quotes_verbatim", agent.quotes_verbatim),
            ("quotes_repaired", agent.quotes_repaired),
            ("quotes_dropped", agent.quotes_dropped),
        )
        if n
    ]
    if quotes:
        parts.append(m("agent_quotes", parts=m("list_sep").join(quotes)))
    if agent.duplicates:
        parts.append(m("agent_duplicates", n=agent.duplicates))
    return m("part_sep").join(parts)


def build_view(
    result: ReviewResult,
    positions: Sequence[Position] = (),
    *,
    playbook_name: str = "",
    user_playbook: str | None = None,
    has_baseline: bool = True,
    unplaced: Sequence[tuple[str, str]] = (),
) -> ReviewView:
    """The review as issues, in its language. `positions` are the playbook's (titles, why,
    our position, fallback); `has_baseline` says whether a baseline document was compared
    against; `unplaced` lists approved changes the Word file could not hold (id, reason)."""
    m = messages(result.language)
    titles = _Titles(positions, m.lang)
    number = 0
    issues: list[Issue] = []
    sections: list[ClauseSection] = []
    seen_risks: set[str] = set()
    # our standard clause for a missing protection is held by the clause it follows, and
    # shown with the missing protection
    for_missing = {r.id for r in result.missing}
    new_clauses = [
        (d, c.clause_text, c.start_offset)
        for c in result.clauses
        for d in c.findings.diffs
        if d.risk_id in for_missing
    ]
    for reviewed in result.clauses:
        f = reviewed.findings
        clause_start = reviewed.start_offset
        risks = [
            _located(r, reviewed.clause_text, clause_start)
            for r in f.risks
            if r.id not in seen_risks
        ]
        seen_risks.update(r.id for r in risks)
        clause_title = reviewed.clause_title or reviewed.item.clause_name
        clause = (reviewed.item.clause_id, clause_title, reviewed.clause_text, clause_start)
        own: list[Issue] = []
        for members in _group(risks):
            number += 1
            own.append(_issue(number, members, f.diffs, titles, clause))
        # A change proposed for no risk of the clause (a redraft, a model's edit) is shown with
        # the clause's leading issue, or as an issue of its own.
        placed = {p.diff_id for i in own for p in i.proposals}
        for diff in f.diffs:
            if diff.diff_id in placed or diff.risk_id in for_missing:
                continue
            proposal = _proposal(diff, reviewed.clause_text, clause_start)
            if own:
                own[0].proposals.append(proposal)
                continue
            number += 1
            own.append(
                Issue(
                    number=number,
                    clause_id=reviewed.item.clause_id,
                    clause_title=clause_title,
                    level=diff.risk_level or RiskLevel.LOW,
                    title=m("proposed"),
                    why=" ".join(diff.reason.split()),
                    position="",
                    fallback="",
                    quote=diff.original_text,
                    start=diff.start_offset,
                    end=(diff.start_offset + len(diff.original_text))
                    if diff.start_offset is not None
                    else None,
                    proposals=[proposal],
                )
            )
        issues.extend(own)
        sections.append(
            ClauseSection(
                clause_id=reviewed.item.clause_id,
                title=clause_title,
                issues=own,
                completed=f.completed,
                mode_line=_mode_line(f, m, result.llm_usage is not None),
                agent_line=_agent_line(f.agent, m) if f.agent else "",
                injection=bool(f.injection_flags),
            )
        )
    missing = []
    for risk in result.missing:
        number += 1
        issue = _issue(number, [risk], [], titles, (None, "", "", 0))
        issue.proposals = [_proposal(d, t, at) for d, t, at in new_clauses if d.risk_id == risk.id]
        missing.append(issue)
    favourable = [
        Favourable(
            clause_id=t.clause_id,
            title=(p.title_text(m.lang) if (p := titles.by_id.get(t.position_id)) else t.topic),
            quote=t.location.original_text if t.location else "",
        )
        for t in _favourable(result)
    ]
    counts = {level.value: 0 for level in SEVERITY_ORDER}
    for issue in [*issues, *missing]:
        counts[issue.level.value] += 1
    statuses = [d.status for c in result.clauses for d in c.findings.diffs]
    redlines = {s.value: statuses.count(s) for s in DiffStatus}
    view = ReviewView(
        language=result.language,
        m=m,
        title=m("title"),
        contract=result.primary_filename,
        our_party=result.our_party or m("neutral"),
        domain=_domain(result, m),
        kind=_kind_line(result, m),
        date=result.created_at[:16].replace("T", " "),
        other_documents=list(result.other_documents),
        issues=issues,
        missing=missing,
        sections=sections,
        favourable=favourable,
        verdict=[],
        method=[],
        unchecked=[],
        counts=counts,
        redlines=redlines,
        warnings=_warnings(result, m),
        result=result,
        unplaced=list(unplaced),
    )
    view.verdict = _verdict(view)
    view.method = _method(result, m, playbook_name, len(positions), user_playbook)
    view.method.extend(_remembered_lines(result, positions, m))
    view.method.extend(_to_check_lines(result, positions, m, user_playbook))
    view.unchecked = _unchecked(result, m, has_baseline, len(unplaced))
    return view


def _located(risk: RiskPoint, clause_text: str, clause_start: int) -> RiskPoint:
    """`risk` with the offsets of its quote, found in its clause when it has none."""
    loc = risk.location
    if loc is None or loc.start_offset is not None or not loc.original_text:
        return risk
    at = clause_text.find(loc.original_text)
    if at < 0:
        return risk
    start = clause_start + at
    moved = loc.model_copy(
        update={"start_offset": start, "end_offset": start + len(loc.original_text)}
    )
    return risk.model_copy(update={"location": moved})


def _domain(result: ReviewResult, m: Messages) -> str:
    """The domain by name (and its subtype), in the outputs' language."""
    domain = result.domain_id or ""
    try:
        name = m(f"domain_{domain}")
    except KeyError:
        name = domain
    return " / ".join(p for p in (name, result.domain_subtype) if p)


def _kind_line(result: ReviewResult, m: Messages) -> str:
    """The contract's kind for the report's header: the main kind with its confidence and
    evidence, then the other kinds that apply."""
    if not result.contract_kinds:
        return m("kind_none")
    main, *others = result.contract_kinds
    name = main.label(m.lang)
    if any(e.source == "given" for e in main.evidence):
        line = m("kind_given", name=name)
    else:
        parts: dict[str, list[str]] = {}
        for e in main.evidence:
            if e.source in ("title", "role", "term") and e.words != "named first":
                parts.setdefault(e.source, []).append(e.words)
        evidence = m("kind_sep").join(
            m(f"kind_{source}", words=m("list_sep").join(dict.fromkeys(words[:3])))
            for source, words in parts.items()
        )
        line = m("kind_line", name=name, confidence=f"{main.confidence:.2f}", evidence=evidence)
    if others:
        names = m("list_sep").join(f"{k.label(m.lang)} ({k.confidence:.2f})" for k in others)
        line += " " + m("kind_also", names=names)
    return line


def _playbook_name(domain: str | None, name: str, m: Messages) -> str:
    """The built-in playbook by name in the outputs' language (its own name otherwise)."""
    try:
        return m(f"playbook_{domain}")
    except KeyError:
        return name


def _favourable(result: ReviewResult) -> list[FavourableTerm]:
    seen: dict[tuple[str, str], FavourableTerm] = {}
    for reviewed in result.clauses:
        for term in reviewed.findings.favourable:
            quote = term.location.original_text if term.location else term.description
            seen.setdefault((term.position_id, quote), term)
    return list(seen.values())


def _verdict(view: ReviewView) -> list[str]:
    m, counts = view.m, view.counts
    unsure = structure_failed(view.result.coverage_gaps)
    lines = []
    if counts["high"]:
        lines.append(m("verdict_high", n=counts["high"]))
    elif counts["medium"]:
        lines.append(m("verdict_medium", n=counts["medium"]))
    elif counts["low"]:
        lines.append(m("verdict_low", n=counts["low"]))
    else:
        lines.append(m("verdict_none_unsure" if unsure else "verdict_none"))
    if unsure:
        lines.append(m("verdict_structure"))
    if view.redlines.get("pending"):
        lines.append(m("verdict_waiting", n=view.redlines["pending"]))
    unfinished = sum(1 for s in view.sections if not s.completed)
    if unfinished:
        lines.append(m("verdict_incomplete", n=unfinished))
    return lines


def _method(
    result: ReviewResult, m: Messages, playbook: str, positions: int, user: str | None
) -> list[str]:
    llm = sum(1 for c in result.clauses if c.findings.analysis_mode == "llm")
    lines = [m("method_rules")]
    if result.llm_usage is not None:
        lines.append(m("method_llm", model=result.llm_model or "?", n=llm))
        usage = result.llm_usage
        lines.append(
            m(
                "usage",
                model=result.llm_model or "?",
                calls=usage.calls,
                prompt=usage.prompt_tokens,
                completion=usage.completion_tokens,
            )
        )
        lines.extend(_plan_lines(result, m))
    else:
        lines.append(m("method_no_llm"))
    if playbook:
        name = _playbook_name(result.domain_id, playbook, m)
        lines.append(m("playbook", name=name, n=positions))
    if user:
        lines.append(m("playbook_user", file=user))
    done = sum(1 for c in result.clauses if c.findings.completed)
    lines.append(m("clauses_checked", done=done, total=len(result.clauses)))
    return lines


def _plan_lines(result: ReviewResult, m: Messages) -> list[str]:
    """How the orchestrator shared the model's work out (LLM mode only: without a model the
    depth changes nothing)."""
    plan = result.plan
    if plan is None or plan.source == "uniform":
        return []
    counts = plan.counts()
    key = "plan_model" if plan.source == "model" else "plan_playbook"
    lines = [m(key, **counts)]
    ids = {c.key: c.clause_id for c in plan.clauses}
    for replan in plan.replans:
        clause = ids.get(replan.trigger, replan.trigger)
        lines.append(m("replan", clause=clause, n=len(replan.raised)))
    return lines


def _remembered_lines(
    result: ReviewResult, positions: Sequence[Position], m: Messages
) -> list[str]:
    """The positions amended from a lawyer's earlier decisions that this review applied (a
    finding was measured against them)."""
    used = {r.position_id for c in result.clauses for r in c.findings.risks if r.position_id}
    used |= {r.position_id for r in result.missing if r.position_id}
    lines = []
    for p in positions:
        if p.remembered is None or p.id not in used:
            continue
        title = (p.title_zh or p.topic_zh) if m.lang == "zh" else (p.title or p.topic)
        when = (p.remembered.decided_at or "")[:10]
        lines.append(
            m(
                "remembered",
                title=title or p.id,
                who=p.remembered.reviewer or "?",
                when=when or "?",
                task=p.remembered.task_id,
            )
        )
    return lines


def _to_check_lines(
    result: ReviewResult, positions: Sequence[Position], m: Messages, user_playbook: str | None
) -> list[str]:
    """The lawyer's positions that compiled into no check, each with the clauses its title or
    keywords find: points to check by hand against their playbook."""
    if not user_playbook:
        return []
    file = Path(user_playbook).name
    lines = []
    compiled = sum(1 for p in positions if p.checks and p.source.startswith(file))
    if compiled:
        lines.append(m("playbook_compiled", file=file, n=compiled))
    for p in positions:
        if p.checks or not p.source.startswith(file):
            continue
        title = p.title_text(m.lang) or p.id
        standard = p.standard.text(m.lang) or p.standard.text("en") or p.standard.text("zh")
        found = _located_by_words(result, p)
        if found:
            lines.append(m("to_check", title=title, clauses=", ".join(found), standard=standard))
        else:
            lines.append(m("to_check_nowhere", title=title, standard=standard))
    return lines


def _located_by_words(result: ReviewResult, position: Position, most: int = 3) -> list[str]:
    """The reviewed clauses a position's titles name, else those holding its keywords."""
    recognise = position.recognise
    if recognise is None:
        return []
    titled = [
        c.item.clause_id
        for c in result.clauses
        if any(re.search(t, c.clause_title, re.IGNORECASE) for t in recognise.titles)
    ]
    if titled:
        return list(dict.fromkeys(titled))[:most]
    words = [w.casefold() for w in recognise.keywords if w.strip()]
    held = [
        c.item.clause_id
        for c in result.clauses
        if any(w in c.clause_text.casefold() for w in words)
    ]
    return list(dict.fromkeys(held))[:most]


def _unchecked(result: ReviewResult, m: Messages, has_baseline: bool, unplaced: int) -> list[str]:
    lines = []
    if not has_baseline:
        lines.append(m("no_baseline"))
    if result.llm_usage is not None:
        fallback = sum(
            1
            for c in result.clauses
            if c.findings.analysis_mode != "llm" and not c.findings.planned_rules_only
        )
        if fallback:
            lines.append(m("llm_fallback", n=fallback))
    unfinished = sum(1 for c in result.clauses if not c.findings.completed)
    if unfinished:
        lines.append(m("incomplete_clauses", n=unfinished))
    if unplaced:
        lines.append(m("unplaced", n=unplaced))
    lines.extend(_gap_line(gap, m) for gap in result.coverage_gaps)
    return lines


def _gap_line(gap: CoverageGap, m: Messages) -> str:
    """One part of the contract that could not be checked, in the outputs' language."""
    if gap.kind is GapKind.DOMINANT_CLAUSE:
        return m("gap_dominant_clause", clause=gap.clause_id, share=f"{gap.share:.0%}")
    if gap.kind is GapKind.UNREAD_PAGES:
        return m("gap_unread_pages", pages=", ".join(str(p) for p in gap.pages))
    return m(f"gap_{gap.kind.value}")


def _warnings(result: ReviewResult, m: Messages) -> list[str]:
    """The review's warnings for the reader; the engine's injection notes said in the
    outputs' language."""
    out = []
    flagged = {c.item.clause_id for c in result.clauses if c.findings.injection_flags}
    for clause_id in flagged:
        out.append(m("injection", id=clause_id))
    for warning in result.warnings:
        if warning.startswith("Clause ") and "addressed to an AI reviewer" in warning:
            continue  # said above in the outputs' language
        if "were analysed by the rules only (LLM fallback)" in warning:
            continue  # said on the first page, under what could not be checked
        out.append(_said(warning, m))
    return out


def _said(warning: str, m: Messages) -> str:
    """An engine warning in the outputs' language (as written when no pattern knows it)."""
    for item in _catalogue_warnings():
        match = re.match(item["pattern"], warning)
        if match:
            return m(item["key"], **match.groupdict())
    return warning


@lru_cache(maxsize=1)
def _catalogue_warnings() -> list[dict[str, str]]:
    return [{"pattern": str(i["pattern"]), "key": str(i["key"])} for i in _catalogue()["warnings"]]


def level_label(m: Messages, level: RiskLevel | str) -> str:
    """'High' / '高' for a level."""
    return m(str(getattr(level, "value", level)))


def proposal_text(m: Messages, p: Proposal) -> str:
    """A proposed change in words: replace "x" with "y" / delete "x" / after "x" insert "y"."""
    old = _short(p.original)
    if p.action == "delete" or not p.proposed:
        return m("delete_words", old=old)
    if p.action == "insert" and not p.original:  # a whole clause the contract lacks
        return m("insert_clause", new=" / ".join(p.proposed.splitlines()))
    if p.action == "insert":
        return m("insert_after", old=old, new=p.proposed)
    return m("replace_with", old=old, new=p.proposed)


def decision_text(m: Messages, p: Proposal) -> str:
    """'Approved by Jane Roe, 2026-11-26 10:02' / 'Pending'."""
    status = m(p.status.value)
    if p.decided_by or p.decided_at:
        when = (p.decided_at or "")[:16].replace("T", " ")
        return m("decided_by", status=status, who=p.decided_by or "?", when=when)
    return m("decided_plain", status=status)


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def as_rows(view: ReviewView) -> list[dict[str, Any]]:
    """One plain row per issue (the spreadsheet and the issues list)."""
    m = view.m
    rows = []
    for issue in view.all_issues:
        proposal = next(iter(issue.proposals), None)
        rows.append(
            {
                "number": issue.number,
                "clause": issue.clause_id or m("document"),
                "clause_title": issue.clause_title,
                "severity": level_label(m, issue.level),
                "issue": issue.title + (m("model_mark") if issue.by_model else ""),
                "why": issue.why,
                "quote": issue.quote,
                "position": issue.position,
                "fallback": issue.fallback,
                "proposed": proposal_text(m, proposal) if proposal else "",
                "status": m(proposal.status.value) if proposal else "",
                "feedback": proposal.feedback if proposal else "",
                "decided_by": proposal.decided_by if proposal else "",
                "decided_at": (proposal.decided_at or "") if proposal else "",
            }
        )
    return rows
