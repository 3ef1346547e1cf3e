"""Review reports: findings as JSON, a Markdown report and a self-contained HTML page.

`write_reports(result, out_dir)` writes `findings.json` (the `ReviewResult` itself, which
round-trips with `ReviewResult.model_validate_json`), `report.md` and `report.html`, and returns
their paths by kind ("html", "md", "json"). `render_markdown` / `render_html` return the text.

Both reports hold the same content: a header (contract, our party, domain, date), an executive
summary (risk counts by severity, redline statuses, clauses reviewed, deterministic vs LLM
clauses, the model and its token usage, completeness), the key risks (high first), one section
per reviewed clause in checklist order (analysis mode and why the rules ran instead of the LLM,
what the LLM agent did, text addressed to an AI reviewer, risks with their verbatim quotes
(those the model found marked "(LLM)"), deviations, redlines, notes), and the warnings and
hidden text of the file (shown verbatim, flagged as possible prompt injection).

Contract text is untrusted. The HTML page escapes every piece of it with `html.escape`, and
loads nothing: CSS is inline, there are no scripts, fonts, images or external links. The
Markdown report keeps text verbatim except that `<` is written as `&lt;` and square brackets
are escaped, so that a Markdown viewer cannot be made to run markup or follow a link written
in the contract.

The output is deterministic: the only date shown is `result.created_at`.
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from contract_review.models import (
    ActionType,
    AgentRunInfo,
    ClauseFindings,
    Deviation,
    DiffStatus,
    DocumentDiff,
    FavourableTerm,
    HiddenTextSpan,
    ReviewedClause,
    ReviewResult,
    RiskLevel,
    RiskPoint,
)
from contract_review.text import CJK_WIDE

__all__ = ["REPORT_FILES", "render_html", "render_markdown", "word_diff_html", "write_reports"]

REPORT_FILES = {"html": "report.html", "md": "report.md", "json": "findings.json"}
"""File name written for each report kind."""

_SEVERITIES = (RiskLevel.HIGH, RiskLevel.MEDIUM, RiskLevel.LOW)
_STATUSES = (DiffStatus.APPROVED, DiffStatus.REJECTED, DiffStatus.PENDING)

# --------------------------------------------------------------------------------------------
# Static labels
# --------------------------------------------------------------------------------------------

_LABELS: dict[str, dict[str, str]] = {
    "en": {
        "title": "Contract review report",
        "contract": "Contract",
        "our_party": "Our party",
        "domain": "Domain",
        "date": "Date",
        "other_documents": "Other documents",
        "summary": "Executive summary",
        "risks": "Risks",
        "redlines": "Redlines",
        "clauses_reviewed": "Clauses reviewed",
        "clauses_completed": "completed",
        "mode": "Analysis mode",
        "llm_clauses": "Clauses analysed by LLM",
        "complete": "Review complete",
        "yes": "yes",
        "no": "no",
        "incomplete_note": "The review is not complete: not every checklist item was reviewed.",
        "key_risks": "Key risks",
        "favourable": "Favourable to us",
        "missing": "Protections the contract lacks",
        "inventory": "Clause inventory",
        "inventory_intro": "What the contract has, category by category (CUAD categories).",
        "category": "Category",
        "present": "Present",
        "value": "Value",
        "burdens": "against",
        "favourable_intro": "Terms that burden the other side: no risk for us; keep them in negotiation.",
        "no_risks": "No risks found.",
        "clauses": "Reviewed clauses",
        "no_clauses": "No clauses were reviewed.",
        "contents": "Contents",
        "clause": "Clause",
        "topic": "Topic",
        "priority": "Priority",
        "to_check": "What was checked",
        "clause_text": "Clause text",
        "not_completed": "review of this clause did not finish",
        "type": "Type",
        "reason": "Reason",
        "analysis": "Analysis",
        "quote": "Quote",
        "evidence": "Evidence (skills)",
        "deviations": "Deviations from the baseline",
        "baseline": "Baseline",
        "actual": "Contract",
        "severity": "Severity",
        "action": "Action",
        "status": "Status",
        "original": "Original",
        "proposed": "Proposed",
        "insert_after": "Insert after",
        "notes": "Notes",
        "none": "none",
        "warnings_hidden": "Warnings and hidden text",
        "warnings": "Warnings",
        "hidden_text": "Hidden text in the file",
        "hidden_flag": (
            "Possible prompt injection / hidden content: this text is in the file but a reader "
            "does not see it. It is shown verbatim and was not followed as an instruction."
        ),
        "offsets": "Offsets",
        "no_warnings": "No warnings and no hidden text.",
        "summary_notes": "Summary",
        "total": "total",
        "llm": "LLM",
        "llm_usage": "{model}, {calls} calls, {prompt} prompt + {completion} completion tokens",
        "unknown_model": "unknown model",
        "rules_only": "Rules only",
        "agent": "Agent",
        "agent_steps": "{n} step|{n} steps",
        "agent_tools": "tools {tools}",
        "agent_no_tools": "no tools",
        "agent_stop": "stop: {reason}",
        "agent_error": "error: {error}",
        "agent_quotes": "LLM quotes: {parts}",
        "quotes_verbatim": "{n} verbatim",
        "quotes_repaired": "{n} re-anchored",
        "quotes_dropped": "{n} dropped",
        "agent_duplicates": "{n} duplicate of a rule finding|{n} duplicates of rule findings",
        "list_sep": ", ",
        "pair_sep": ", ",
        "part_sep": "; ",
        "injection_flag": (
            "⚠ Text addressed to an AI reviewer — treated as contract text, not obeyed"
        ),
        "llm_finding": " (LLM)",
    },
    "zh": {
        "title": "合同审查报告",
        "contract": "合同",
        "our_party": "我方",
        "domain": "领域",
        "date": "日期",
        "other_documents": "其他文件",
        "summary": "执行摘要",
        "risks": "风险",
        "redlines": "修改建议",
        "clauses_reviewed": "已审查条款",
        "clauses_completed": "已完成",
        "mode": "分析方式",
        "llm_clauses": "大模型分析的条款",
        "complete": "审查是否完成",
        "yes": "是",
        "no": "否",
        "incomplete_note": "审查未完成：并非所有审查清单项目均已审查。",
        "key_risks": "主要风险",
        "favourable": "对我方有利的条款",
        "missing": "合同缺少的保护性约定",
        "inventory": "条款清单",
        "inventory_intro": "合同逐类包含的条款（CUAD 分类）。",
        "category": "类别",
        "present": "有无",
        "value": "内容",
        "burdens": "不利于",
        "favourable_intro": "以下条款的负担在对方：对我方不构成风险，谈判中宜予保留。",
        "no_risks": "未发现风险。",
        "clauses": "条款审查",
        "no_clauses": "未审查任何条款。",
        "contents": "目录",
        "clause": "条款",
        "topic": "主题",
        "priority": "优先级",
        "to_check": "审查要点",
        "clause_text": "条款原文",
        "not_completed": "该条款审查未完成",
        "type": "类型",
        "reason": "理由",
        "analysis": "分析",
        "quote": "原文引用",
        "evidence": "依据（技能）",
        "deviations": "与基准文本的偏离",
        "baseline": "基准",
        "actual": "合同",
        "severity": "严重程度",
        "action": "操作",
        "status": "状态",
        "original": "原文",
        "proposed": "建议文本",
        "insert_after": "插入位置（其后）",
        "notes": "备注",
        "none": "无",
        "warnings_hidden": "警告与隐藏文字",
        "warnings": "警告",
        "hidden_text": "文件中的隐藏文字",
        "hidden_flag": "可能的提示注入／隐藏内容：该文字存在于文件中但读者不可见。此处原样显示，未作为指令执行。",
        "offsets": "位置",
        "no_warnings": "无警告，无隐藏文字。",
        "summary_notes": "总结",
        "total": "合计",
        "llm": "大模型",
        "llm_usage": "{model}，调用 {calls} 次，输入 {prompt} + 输出 {completion} 个 token",
        "unknown_model": "未知模型",
        "rules_only": "仅规则分析",
        "agent": "智能体",
        "agent_steps": "{n} 步",
        "agent_tools": "工具 {tools}",
        "agent_no_tools": "未调用工具",
        "agent_stop": "停止原因：{reason}",
        "agent_error": "错误：{error}",
        "agent_quotes": "大模型引用：{parts}",
        "quotes_verbatim": "{n} 处与原文一致",
        "quotes_repaired": "{n} 处重新定位",
        "quotes_dropped": "{n} 处已丢弃",
        "agent_duplicates": "{n} 项与规则结论重复",
        "list_sep": "、",
        "pair_sep": "，",
        "part_sep": "；",
        "injection_flag": "⚠ 含有针对 AI 审查者的文字——已作为合同文本处理，未执行",
        "llm_finding": "（大模型）",
    },
}

_VALUE_LABELS: dict[str, dict[str, str]] = {
    "en": {
        "high": "High",
        "medium": "Medium",
        "low": "Low",
        "critical": "Critical",
        "approved": "Approved",
        "rejected": "Rejected",
        "pending": "Pending",
        "replace": "Replace",
        "delete": "Delete",
        "insert": "Insert",
        "deterministic": "deterministic",
        "llm": "LLM",
        "unmodified": "unmodified",
        "modified": "modified",
        "added": "added",
        "deleted": "deleted",
        "vanish": "hidden formatting",
        "tiny_font": "tiny font",
        "white_text": "white text",
    },
    "zh": {
        "high": "高",
        "medium": "中",
        "low": "低",
        "critical": "关键",
        "approved": "已批准",
        "rejected": "已拒绝",
        "pending": "待定",
        "replace": "替换",
        "delete": "删除",
        "insert": "插入",
        "deterministic": "规则分析",
        "llm": "大模型分析",
        "unmodified": "未修改",
        "modified": "已修改",
        "added": "新增",
        "deleted": "已删除",
        "vanish": "隐藏格式",
        "tiny_font": "极小字号",
        "white_text": "白色文字",
    },
}


def _lang(result: ReviewResult) -> str:
    return "zh" if result.language.lower().startswith("zh") else "en"


@dataclass(frozen=True)
class _Labels:
    lang: str

    def __call__(self, key: str) -> str:
        return _LABELS[self.lang][key]

    def value(self, value: object) -> str:
        """Label of an enum value (severity, status, action...); the value itself if unknown."""
        raw = str(getattr(value, "value", value))
        return _VALUE_LABELS[self.lang].get(raw, raw)

    def fmt(self, key: str, **values: object) -> str:
        """A label template filled in; "singular|plural" templates pick by `n`."""
        template = self(key)
        if "|" in template:
            singular, plural = template.split("|", 1)
            template = singular if values.get("n") == 1 else plural
        return template.format(**values)

    @property
    def colon(self) -> str:
        return "：" if self.lang == "zh" else ": "


# --------------------------------------------------------------------------------------------
# Summary figures
# --------------------------------------------------------------------------------------------


def _level(value: object) -> str:
    return str(getattr(value, "value", value))


@dataclass
class _Summary:
    risks: dict[str, int] = field(default_factory=dict)
    redlines: dict[str, int] = field(default_factory=dict)
    modes: dict[str, int] = field(default_factory=dict)
    clauses: int = 0
    completed: int = 0
    key_risks: list[tuple[int, RiskPoint]] = field(default_factory=list)
    """(index of the reviewed clause, risk), high first, then in checklist order."""
    mode_reason: str = ""
    """Why the whole review ran on the rules, said once ('' when LLM mode was on)."""

    @property
    def risk_total(self) -> int:
        return sum(self.risks.values())

    @property
    def redline_total(self) -> int:
        return sum(self.redlines.values())


def _severity_rank(level: object) -> int:
    raw = _level(level)
    order = [s.value for s in _SEVERITIES]
    return order.index(raw) if raw in order else len(order)


def _summarise(result: ReviewResult) -> _Summary:
    summary = _Summary(
        risks={s.value: 0 for s in _SEVERITIES},
        redlines={s.value: 0 for s in _STATUSES},
        modes={"deterministic": 0, "llm": 0},
    )
    keyed: list[tuple[int, int, int, RiskPoint]] = []
    for index, reviewed in enumerate(result.clauses):
        findings = reviewed.findings
        summary.clauses += 1
        summary.completed += int(findings.completed)
        mode = findings.analysis_mode or "deterministic"
        summary.modes[mode] = summary.modes.get(mode, 0) + 1
        for position, risk in enumerate(findings.risks):
            level = _level(risk.risk_level)
            summary.risks[level] = summary.risks.get(level, 0) + 1
            keyed.append((_severity_rank(level), index, position, risk))
        for diff in findings.diffs:
            status = _level(diff.status)
            summary.redlines[status] = summary.redlines.get(status, 0) + 1
    keyed.sort(key=lambda k: (k[0], k[1], k[2]))
    summary.key_risks = [(index, risk) for _, index, _, risk in keyed]
    summary.mode_reason = _review_mode_reason(result)
    return summary


def _favourable(result: ReviewResult) -> list[FavourableTerm]:
    """The terms in our favour over all clauses, once each (a clause and its sub-clause may
    both have been reviewed)."""
    seen: dict[tuple[str, str], FavourableTerm] = {}
    for reviewed in result.clauses:
        for term in reviewed.findings.favourable:
            quote = term.location.original_text if term.location else term.description
            seen.setdefault((term.position_id, quote), term)
    return list(seen.values())


def _clause_title(reviewed: ReviewedClause) -> str:
    return reviewed.clause_title or reviewed.item.clause_name


def _domain(result: ReviewResult) -> str:
    parts = [p for p in (result.domain_id, result.domain_subtype) if p]
    return " / ".join(parts)


# --------------------------------------------------------------------------------------------
# LLM mode: usage, per-clause mode and agent run, model findings (plain text; callers escape)
# --------------------------------------------------------------------------------------------

LLM_SKILL = "react_agent"
"""The source skill of risks the LLM agent found."""


def _usage_text(result: ReviewResult, t: _Labels) -> str | None:
    """'<model>, N calls, P prompt + C completion tokens' when the run used a model."""
    usage = result.llm_usage
    if usage is None:
        return None
    return t.fmt(
        "llm_usage",
        model=result.llm_model or t("unknown_model"),
        calls=usage.calls,
        prompt=usage.prompt_tokens,
        completion=usage.completion_tokens,
    )


def _review_mode_reason(result: ReviewResult) -> str:
    """Why the whole review ran on the rules ('' when LLM mode was on): said once in the summary
    instead of on every clause."""
    if result.llm_usage is not None:
        return ""
    reasons = {c.findings.mode_reason for c in result.clauses if c.findings.mode_reason}
    return " ".join(next(iter(reasons)).split()) if len(reasons) == 1 else ""


def _mode_text(findings: ClauseFindings, t: _Labels, review_reason: str = "") -> str:
    """The clause's analysis mode, with the reason when the rules ran instead of the LLM (unless
    the summary already gives it for the whole review)."""
    if (
        findings.analysis_mode != "llm"
        and findings.mode_reason
        and " ".join(findings.mode_reason.split()) != review_reason
    ):
        return f"{t('rules_only')} — {' '.join(findings.mode_reason.split())}"
    return t.value(findings.analysis_mode or "deterministic")


def _agent_text(agent: AgentRunInfo, t: _Labels) -> str:
    """One line on what the agent did: steps, tools, stop reason, quote checks, duplicates."""
    tools = (
        t.fmt("agent_tools", tools=t("list_sep").join(agent.tools_used))
        if agent.tools_used
        else t("agent_no_tools")
    )
    parts = [
        t.fmt("agent_steps", n=agent.steps_taken) + t("pair_sep") + tools,
        t.fmt("agent_stop", reason=agent.stop_reason),
    ]
    if agent.error:
        parts.append(t.fmt("agent_error", error=" ".join(agent.error.split())))
    quotes = [
        t.fmt(key, n=n)
        for key, n in (
            ("quotes_verbatim", agent.quotes_verbatim),
            ("quotes_repaired", agent.quotes_repaired),
            ("quotes_dropped", agent.quotes_dropped),
        )
        if n
    ]
    if quotes:
        parts.append(t.fmt("agent_quotes", parts=t("pair_sep").join(quotes)))
    if agent.duplicates:
        parts.append(t.fmt("agent_duplicates", n=agent.duplicates))
    return t("part_sep").join(parts)


def _llm_suffix(risk: RiskPoint, t: _Labels) -> str:
    """' (LLM)' after a risk the model found, so it reads apart from the rule findings."""
    return t("llm_finding") if LLM_SKILL in risk.source_skills else ""


# --------------------------------------------------------------------------------------------
# Word-level diff
# --------------------------------------------------------------------------------------------

_CJK = CJK_WIDE
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|\s+|[^\w\s]", re.UNICODE)


def _tokens(text: str) -> list[str]:
    """Words, whitespace runs and punctuation of English text; single characters of Chinese."""
    return _TOKEN.findall(text)


def word_diff_html(original: str, proposed: str) -> str:
    """HTML of the change from `original` to `proposed`: <del> for removed, <ins> for added.

    Works on words for English text and characters for Chinese; changes separated only by
    whitespace are shown as one change. All text is escaped.
    """
    old, new = _tokens(original), _tokens(proposed)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    # Segments [removed, added, is_equal]; an equal run of whitespace between two changes
    # joins them, so "be unlimited" -> "not exceed" reads as one replacement.
    segments: list[tuple[str, str, bool]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        removed, added = "".join(old[i1:i2]), "".join(new[j1:j2])
        segments.append((removed, added, tag == "equal"))
    merged: list[tuple[str, str, bool]] = []
    for index, (removed, added, equal) in enumerate(segments):
        between_changes = (
            equal
            and not removed.strip()
            and 0 < index < len(segments) - 1
            and not segments[index + 1][2]
            and bool(merged)
            and not merged[-1][2]
        )
        if merged and not merged[-1][2] and (not equal or between_changes):
            last_removed, last_added, _ = merged[-1]
            merged[-1] = (last_removed + removed, last_added + added, False)
        else:
            merged.append((removed, added, equal))
    out: list[str] = []
    for removed, added, equal in merged:
        if equal:
            out.append(html.escape(removed))
            continue
        if removed:
            out.append(f"<del>{html.escape(removed)}</del>")
        if added:
            out.append(f"<ins>{html.escape(added)}</ins>")
    return "".join(out)


def _diff_markup(diff: DocumentDiff) -> str:
    action = _level(diff.action_type)
    if action == ActionType.DELETE.value:
        return f"<del>{html.escape(diff.original_text)}</del>"
    if action == ActionType.INSERT.value:
        anchor = html.escape(diff.original_text)
        return f'<span class="anchor">{anchor}</span><ins>{html.escape(diff.proposed_text)}</ins>'
    return word_diff_html(diff.original_text, diff.proposed_text)


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------


def _md(text: str) -> str:
    """Contract text for Markdown: verbatim except `<` (raw HTML cannot take effect) and the
    brackets of links (`[x](javascript:…)` written in a contract must not become a live link
    or an image in the report)."""
    return text.replace("<", "&lt;").replace("[", "\\[").replace("]", "\\]")


def _md_inline(text: str) -> str:
    """Contract text on one line (a list item or a heading)."""
    return " ".join(_md(text).split())


def _md_quote(text: str, indent: str = "") -> list[str]:
    """A blockquote holding `text` verbatim, line by line."""
    return [f"{indent}> {line}".rstrip() for line in _md(text).split("\n")]


def _md_counts(counts: dict[str, int], order: Iterable[str], t: _Labels) -> str:
    return ", ".join(f"{t.value(key)} {counts.get(key, 0)}" for key in order)


def _md_risk(risk: RiskPoint, t: _Labels, indent: str = "") -> list[str]:
    level = t.value(risk.risk_level)
    lines = [
        f"{indent}- **[{level}] {_md_inline(risk.risk_type)}{_llm_suffix(risk, t)}**{t.colon}"
        f"{_md_inline(risk.description)}"
    ]
    sub = indent + "  "
    if risk.burdens:
        lines.append(f"{sub}- {t('burdens')}{t.colon}{_md_inline(risk.burdens)}")
    if risk.reason:
        lines.append(f"{sub}- {t('reason')}{t.colon}{_md_inline(risk.reason)}")
    if risk.analysis:
        lines.append(f"{sub}- {t('analysis')}{t.colon}{_md_inline(risk.analysis)}")
    if risk.source_skills:
        lines.append(f"{sub}- {t('evidence')}{t.colon}{', '.join(risk.source_skills)}")
    if risk.location is not None and risk.location.original_text:
        lines.append(f"{sub}- {t('quote')}{t.colon.strip()}")
        lines.append("")
        lines.extend(_md_quote(risk.location.original_text, sub + "  "))
        lines.append("")
    return lines


def _md_deviation(dev: Deviation, t: _Labels) -> list[str]:
    head = f"- **{t.value(dev.deviation_type)}**"
    if dev.severity is not None:
        head += f" [{t.value(dev.severity)}]"
    if dev.reason:
        head += f"{t.colon}{_md_inline(dev.reason)}"
    lines = [head]
    for key, text in (("baseline", dev.baseline_text), ("actual", dev.actual_text)):
        if text:
            lines.append(f"  - {t(key)}{t.colon.strip()}")
            lines.append("")
            lines.extend(_md_quote(text, "    "))
            lines.append("")
    return lines


def _md_diff(diff: DocumentDiff, t: _Labels) -> list[str]:
    action = _level(diff.action_type)
    head = f"- **{t.value(action)}** ({t('status')}{t.colon}{t.value(diff.status)})"
    if diff.risk_level is not None:
        head += f" [{t.value(diff.risk_level)}]"
    lines = [head]
    original_key = "insert_after" if action == ActionType.INSERT.value else "original"
    parts = [(original_key, diff.original_text)]
    if action != ActionType.DELETE.value:
        parts.append(("proposed", diff.proposed_text))
    for key, text in parts:
        lines.append(f"  - {t(key)}{t.colon.strip()}")
        lines.append("")
        lines.extend(_md_quote(text, "    "))
        lines.append("")
    if diff.reason:
        lines.append(f"  - {t('reason')}{t.colon}{_md_inline(diff.reason)}")
    return lines


def _md_hidden(span: HiddenTextSpan, t: _Labels) -> list[str]:
    lines = [f"- **{t.value(span.reason)}** ({t('offsets')} {span.start}–{span.end})", ""]
    lines.extend(_md_quote(span.text, "  "))
    lines.append("")
    return lines


def render_markdown(result: ReviewResult) -> str:
    """The review as a lawyer-readable Markdown report."""
    t = _Labels(_lang(result))
    s = _summarise(result)
    lines: list[str] = [f"# {t('title')}{t.colon}{_md_inline(result.primary_filename)}", ""]
    meta = [
        ("contract", result.primary_filename),
        ("our_party", result.our_party),
        ("domain", _domain(result)),
        ("date", result.created_at),
    ]
    lines.extend(f"- **{t(key)}**{t.colon}{_md_inline(value)}" for key, value in meta if value)
    if result.other_documents:
        docs = "; ".join(_md_inline(d) for d in result.other_documents)
        lines.append(f"- **{t('other_documents')}**{t.colon}{docs}")
    lines.append("")

    lines += [f"## {t('summary')}", ""]
    severities = [v.value for v in _SEVERITIES]
    statuses = [v.value for v in _STATUSES]
    lines += [
        f"- **{t('risks')}**{t.colon}{s.risk_total} ({_md_counts(s.risks, severities, t)})",
        f"- **{t('redlines')}**{t.colon}{s.redline_total} ({_md_counts(s.redlines, statuses, t)})",
        f"- **{t('clauses_reviewed')}**{t.colon}{s.clauses} "
        f"({t('clauses_completed')} {s.completed})",
        f"- **{t('mode')}**{t.colon}{_md_counts(s.modes, s.modes, t)}"
        + (f" — {_md_inline(s.mode_reason)}" if s.mode_reason else ""),
    ]
    usage = _usage_text(result, t)
    if usage is not None:
        lines.append(f"- **{t('llm')}**{t.colon}{_md_inline(usage)}")
    lines.append(f"- **{t('complete')}**{t.colon}{t('yes') if result.is_complete else t('no')}")
    if not result.is_complete:
        lines += ["", f"**{t('incomplete_note')}**"]
    if result.summary_notes:
        lines += ["", _md(result.summary_notes)]
    lines.append("")

    if result.missing:
        lines += [f"## {t('missing')}", ""]
        for risk in result.missing:
            lines.extend(_md_risk(risk, t))
        lines.append("")

    if result.inventory is not None:
        lines += [f"## {t('inventory')}", "", t("inventory_intro"), ""]
        lines += [f"| {t('category')} | {t('present')} | {t('clause')} | {t('value')} |"]
        lines += ["| --- | --- | --- | --- |"]
        for entry in result.inventory.entries:
            lines.append(
                f"| {_md_inline(entry.category)} | {t('yes') if entry.present else t('no')} | "
                f"{_md_inline(', '.join(entry.clause_ids[:3]))} | {_md_inline(entry.value)} |"
            )
        lines.append("")

    lines += [f"## {t('key_risks')}", ""]
    if not s.key_risks:
        lines += [t("no_risks"), ""]
    for index, risk in s.key_risks:
        reviewed = result.clauses[index]
        lines.append(
            f"- **[{t.value(risk.risk_level)}]** {t('clause')} {_md_inline(reviewed.item.clause_id)}"
            f" — {_md_inline(risk.risk_type)}{_llm_suffix(risk, t)}{t.colon}"
            f"{_md_inline(risk.description)}"
        )
    if s.key_risks:
        lines.append("")

    favourable = _favourable(result)
    if favourable:
        lines += [f"## {t('favourable')}", "", t("favourable_intro"), ""]
        for term in favourable:
            lines.append(
                f"- {t('clause')} {_md_inline(term.clause_id)} — {_md_inline(term.description)}"
            )
            if term.location is not None:
                lines.extend(_md_quote(term.location.original_text, "  "))
        lines.append("")

    lines += [f"## {t('clauses')}", ""]
    if not result.clauses:
        lines += [t("no_clauses"), ""]
    for reviewed in result.clauses:
        lines.extend(_md_clause(reviewed, t, s.mode_reason))

    lines += [f"## {t('warnings_hidden')}", ""]
    if not result.warnings and not result.hidden_text:
        lines += [t("no_warnings"), ""]
    if result.warnings:
        lines += [f"### {t('warnings')}", ""]
        lines.extend(f"- {_md_inline(w)}" for w in result.warnings)
        lines.append("")
    if result.hidden_text:
        lines += [f"### {t('hidden_text')}", "", f"**{t('hidden_flag')}**", ""]
        for span in result.hidden_text:
            lines.extend(_md_hidden(span, t))
    return _tidy("\n".join(lines))


def _md_clause(reviewed: ReviewedClause, t: _Labels, review_reason: str = "") -> list[str]:
    item, findings = reviewed.item, reviewed.findings
    title = _clause_title(reviewed)
    heading = f"### {t('clause')} {_md_inline(item.clause_id)}"
    if title:
        heading += f" — {_md_inline(title)}"
    lines = [heading, ""]
    if item.topics:
        lines.append(f"- **{t('topic')}**{t.colon}{_md_inline(', '.join(item.topics))}")
    lines.append(f"- **{t('priority')}**{t.colon}{t.value(item.priority)}")
    mode = _md_inline(_mode_text(findings, t, review_reason))
    if not findings.completed:
        mode += f" ({t('not_completed')})"
    lines.append(f"- **{t('mode')}**{t.colon}{mode}")
    if findings.agent is not None:
        lines.append(f"- **{t('agent')}**{t.colon}{_md_inline(_agent_text(findings.agent, t))}")
    if item.description:
        lines.append(f"- **{t('to_check')}**{t.colon}{_md_inline(item.description)}")
    lines.append("")
    if findings.injection_flags:
        lines += [f"**{t('injection_flag')}**", ""]
        for quote in findings.injection_flags:
            lines.extend(_md_quote(quote))
            lines.append("")
    if reviewed.clause_text:
        lines += [f"**{t('clause_text')}**", ""]
        lines.extend(_md_quote(reviewed.clause_text))
        lines.append("")
    if findings.risks:
        lines += [f"#### {t('risks')}", ""]
        for risk in sorted(findings.risks, key=lambda r: _severity_rank(r.risk_level)):
            lines.extend(_md_risk(risk, t))
        lines.append("")
    if findings.deviations:
        lines += [f"#### {t('deviations')}", ""]
        for dev in findings.deviations:
            lines.extend(_md_deviation(dev, t))
        lines.append("")
    if findings.diffs:
        lines += [f"#### {t('redlines')}", ""]
        for diff in findings.diffs:
            lines.extend(_md_diff(diff, t))
        lines.append("")
    if findings.notes:
        lines += [f"#### {t('notes')}", ""]
        lines.extend(f"- {_md_inline(note)}" for note in findings.notes)
        lines.append("")
    return lines


def _tidy(text: str) -> str:
    """Collapse runs of blank lines and end with one newline."""
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n") + "\n"


# --------------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------------

_CSS = """
:root { --high: #b42318; --medium: #b54708; --low: #067647; --muted: #667085;
  --line: #d0d5dd; --bg: #f9fafb; }
* { box-sizing: border-box; }
body { font-family: -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  "PingFang SC", "Microsoft YaHei", "Noto Sans CJK SC", sans-serif; color: #101828;
  line-height: 1.5; margin: 0 auto; max-width: 60rem; padding: 1.5rem; }
h1 { font-size: 1.6rem; margin-bottom: .25rem; }
h2 { border-bottom: 2px solid var(--line); padding-bottom: .25rem; margin-top: 2rem; }
h3 { margin-top: 1.5rem; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; }
dl.meta dt { font-weight: 600; color: var(--muted); }
dl.meta dd { margin: 0; }
.cards { display: flex; flex-wrap: wrap; gap: .75rem; }
.card { border: 1px solid var(--line); border-radius: .5rem; padding: .75rem 1rem;
  background: var(--bg); min-width: 10rem; flex: 1; }
.card .num { font-size: 1.8rem; font-weight: 700; }
.card .label { color: var(--muted); font-size: .85rem; }
.card .detail { font-size: .85rem; }
.badge { display: inline-block; border-radius: .25rem; padding: 0 .4rem; font-size: .8rem;
  font-weight: 600; color: #fff; background: var(--muted); white-space: nowrap; }
.badge.high { background: var(--high); }
.badge.medium { background: var(--medium); }
.badge.low { background: var(--low); }
.badge.approved { background: var(--low); }
.badge.rejected { background: #475467; }
.badge.pending { background: var(--medium); }
.badge.critical { background: #7a271a; }
.alert { border-left: 4px solid var(--high); background: #fef3f2; padding: .5rem .75rem; }
.risk, .redline, .deviation { border: 1px solid var(--line); border-left-width: 4px;
  border-radius: .25rem; padding: .5rem .75rem; margin: .5rem 0; }
.risk.high { border-left-color: var(--high); }
.risk.medium { border-left-color: var(--medium); }
.risk.low { border-left-color: var(--low); }
.redline.rejected { opacity: .6; }
blockquote, .text { margin: .4rem 0; padding: .4rem .75rem; border-left: 3px solid var(--line);
  background: var(--bg); white-space: pre-wrap; word-wrap: break-word; }
.clause-text { max-height: 18rem; overflow: auto; font-size: .9rem; }
del { color: var(--high); background: #fee4e2; text-decoration: line-through; }
ins { color: var(--low); background: #dcfae6; text-decoration: underline; }
.anchor { color: var(--muted); }
.llm-finding { color: #6941c6; font-weight: 600; }
.muted, .evidence { color: var(--muted); font-size: .85rem; }
ul.keyrisks li { margin: .2rem 0; }
nav.toc ol { columns: 2; }
a { color: #175cd3; }
@media print {
  body { max-width: none; padding: 0; font-size: 10.5pt; }
  nav.toc { break-after: page; }
  .clause { break-before: auto; }
  .risk, .redline, .deviation, .card, blockquote { break-inside: avoid; }
  .clause-text { max-height: none; overflow: visible; }
  a { color: inherit; text-decoration: none; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
"""


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _badge(value: object, t: _Labels) -> str:
    raw = _e(_level(value))
    return f'<span class="badge {raw}">{_e(t.value(value))}</span>'


def _html_llm_suffix(risk: RiskPoint, t: _Labels) -> str:
    suffix = _llm_suffix(risk, t)
    return f'<span class="llm-finding">{_e(suffix)}</span>' if suffix else ""


def _html_risk(risk: RiskPoint, t: _Labels) -> str:
    level = _e(_level(risk.risk_level))
    parts = [
        f'<div class="risk {level}">',
        f"<p>{_badge(risk.risk_level, t)} <strong>{_e(risk.risk_type)}</strong>"
        f"{_html_llm_suffix(risk, t)}{t.colon}{_e(risk.description)}</p>",
    ]
    if risk.burdens:
        parts.append(f"<p><strong>{_e(t('burdens'))}</strong>{t.colon}{_e(risk.burdens)}</p>")
    if risk.reason:
        parts.append(f"<p><strong>{_e(t('reason'))}</strong>{t.colon}{_e(risk.reason)}</p>")
    if risk.analysis:
        parts.append(f"<p><strong>{_e(t('analysis'))}</strong>{t.colon}{_e(risk.analysis)}</p>")
    if risk.location is not None and risk.location.original_text:
        parts.append(f'<p class="muted">{_e(t("quote"))}</p>')
        parts.append(f"<blockquote>{_e(risk.location.original_text)}</blockquote>")
    if risk.source_skills:
        skills = ", ".join(_e(s) for s in risk.source_skills)
        parts.append(f'<p class="evidence">{_e(t("evidence"))}{t.colon}{skills}</p>')
    parts.append("</div>")
    return "\n".join(parts)


def _html_deviation(dev: Deviation, t: _Labels) -> str:
    head = f"<strong>{_e(t.value(dev.deviation_type))}</strong>"
    if dev.severity is not None:
        head += " " + _badge(dev.severity, t)
    if dev.reason:
        head += f"{t.colon}{_e(dev.reason)}"
    parts = ['<div class="deviation">', f"<p>{head}</p>"]
    for key, text in (("baseline", dev.baseline_text), ("actual", dev.actual_text)):
        if text:
            parts.append(f'<p class="muted">{_e(t(key))}</p><div class="text">{_e(text)}</div>')
    parts.append("</div>")
    return "\n".join(parts)


def _html_diff(diff: DocumentDiff, t: _Labels) -> str:
    status = _e(_level(diff.status))
    head = f"<strong>{_e(t.value(diff.action_type))}</strong> {_badge(diff.status, t)}"
    if diff.risk_level is not None:
        head += " " + _badge(diff.risk_level, t)
    parts = [
        f'<div class="redline {status}">',
        f"<p>{head}</p>",
        f'<div class="text diff">{_diff_markup(diff)}</div>',
    ]
    if diff.reason:
        parts.append(f"<p><strong>{_e(t('reason'))}</strong>{t.colon}{_e(diff.reason)}</p>")
    parts.append("</div>")
    return "\n".join(parts)


def _html_clause(index: int, reviewed: ReviewedClause, t: _Labels, review_reason: str = "") -> str:
    item, findings = reviewed.item, reviewed.findings
    title = _clause_title(reviewed)
    heading = f"{_e(t('clause'))} {_e(item.clause_id)}" + (f" — {_e(title)}" if title else "")
    meta: list[tuple[str, str]] = []
    if item.topics:
        meta.append((t("topic"), _e(", ".join(item.topics))))
    meta.append((t("priority"), _badge(item.priority, t)))
    mode = _e(_mode_text(findings, t, review_reason))
    if not findings.completed:
        mode += f' <span class="muted">({_e(t("not_completed"))})</span>'
    meta.append((t("mode"), mode))
    if findings.agent is not None:
        meta.append((t("agent"), _e(_agent_text(findings.agent, t))))
    if item.description:
        meta.append((t("to_check"), _e(item.description)))
    parts = [
        f'<section class="clause" id="clause-{index + 1}">',
        f"<h3>{heading}</h3>",
        '<dl class="meta">',
        *(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in meta),
        "</dl>",
    ]
    if findings.injection_flags:
        parts.append('<div class="alert injection">')
        parts.append(f"<p><strong>{_e(t('injection_flag'))}</strong></p>")
        parts.extend(f"<blockquote>{_e(q)}</blockquote>" for q in findings.injection_flags)
        parts.append("</div>")
    if reviewed.clause_text:
        parts.append(f'<p class="muted">{_e(t("clause_text"))}</p>')
        parts.append(f'<div class="text clause-text">{_e(reviewed.clause_text)}</div>')
    if findings.risks:
        parts.append(f"<h4>{_e(t('risks'))}</h4>")
        risks = sorted(findings.risks, key=lambda r: _severity_rank(r.risk_level))
        parts.extend(_html_risk(r, t) for r in risks)
    if findings.deviations:
        parts.append(f"<h4>{_e(t('deviations'))}</h4>")
        parts.extend(_html_deviation(d, t) for d in findings.deviations)
    if findings.diffs:
        parts.append(f"<h4>{_e(t('redlines'))}</h4>")
        parts.extend(_html_diff(d, t) for d in findings.diffs)
    if findings.notes:
        parts.append(f"<h4>{_e(t('notes'))}</h4>")
        parts.append("<ul>" + "".join(f"<li>{_e(n)}</li>" for n in findings.notes) + "</ul>")
    parts.append("</section>")
    return "\n".join(parts)


def _card(number: int, label: str, detail: str) -> str:
    return (
        f'<div class="card"><div class="num">{number}</div>'
        f'<div class="label">{_e(label)}</div><div class="detail">{detail}</div></div>'
    )


def _html_counts(counts: dict[str, int], order: Iterable[str], t: _Labels) -> str:
    return " ".join(f"{_badge(key, t)} {counts.get(key, 0)}" for key in order)


def render_html(result: ReviewResult) -> str:
    """The review as one self-contained HTML page (inline CSS, nothing loaded)."""
    lang = _lang(result)
    t = _Labels(lang)
    s = _summarise(result)
    severities = [v.value for v in _SEVERITIES]
    statuses = [v.value for v in _STATUSES]
    title = f"{t('title')}{t.colon}{result.primary_filename}"
    out: list[str] = [
        "<!DOCTYPE html>",
        f'<html lang="{"zh-CN" if lang == "zh" else "en"}">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        f"<header><h1>{_e(t('title'))}</h1>",
        '<dl class="meta">',
    ]
    meta = [
        ("contract", result.primary_filename),
        ("our_party", result.our_party),
        ("domain", _domain(result)),
        ("date", result.created_at),
    ]
    out.extend(f"<dt>{_e(t(k))}</dt><dd>{_e(v)}</dd>" for k, v in meta if v)
    if result.other_documents:
        docs = "<br>".join(_e(d) for d in result.other_documents)
        out.append(f"<dt>{_e(t('other_documents'))}</dt><dd>{docs}</dd>")
    out += ["</dl>", "</header>"]

    # Table of contents
    toc = [
        f'<li><a href="#summary">{_e(t("summary"))}</a></li>',
        f'<li><a href="#key-risks">{_e(t("key_risks"))}</a></li>',
    ]
    for index, reviewed in enumerate(result.clauses):
        label = f"{reviewed.item.clause_id} {_clause_title(reviewed)}".strip()
        n = len(reviewed.findings.risks)
        count = f' <span class="muted">({n})</span>' if n else ""
        toc.append(f'<li><a href="#clause-{index + 1}">{_e(label)}</a>{count}</li>')
    toc.append(f'<li><a href="#warnings">{_e(t("warnings_hidden"))}</a></li>')
    out += [
        f'<nav class="toc"><h2>{_e(t("contents"))}</h2><ol>',
        *toc,
        "</ol></nav>",
    ]

    # Summary cards
    complete = t("yes") if result.is_complete else t("no")
    out += [
        f'<section id="summary"><h2>{_e(t("summary"))}</h2>',
        '<div class="cards">',
        _card(s.risk_total, t("risks"), _html_counts(s.risks, severities, t)),
        _card(s.redline_total, t("redlines"), _html_counts(s.redlines, statuses, t)),
        _card(
            s.clauses,
            t("clauses_reviewed"),
            f"{_e(t('clauses_completed'))} {s.completed}",
        ),
        _card(
            s.modes.get("llm", 0),
            t("llm_clauses"),
            _e(
                ", ".join(f"{t.value(k)} {v}" for k, v in s.modes.items())
                + (f" — {s.mode_reason}" if s.mode_reason else "")
            ),
        ),
        "</div>",
    ]
    usage = _usage_text(result, t)
    if usage is not None:
        out.append(f"<p><strong>{_e(t('llm'))}</strong>{t.colon}{_e(usage)}</p>")
    out.append(f"<p><strong>{_e(t('complete'))}</strong>{t.colon}{_e(complete)}</p>")
    if not result.is_complete:
        out.append(f'<p class="alert">{_e(t("incomplete_note"))}</p>')
    if result.summary_notes:
        out.append(f'<div class="text">{_e(result.summary_notes)}</div>')
    out.append("</section>")

    if result.missing:
        out.append(f'<section id="missing"><h2>{_e(t("missing"))}</h2>')
        out.extend(_html_risk(risk, t) for risk in result.missing)
        out.append("</section>")

    if result.inventory is not None:
        out.append(f'<section id="inventory"><h2>{_e(t("inventory"))}</h2>')
        out.append(f"<p>{_e(t('inventory_intro'))}</p><table>")
        out.append(
            f"<tr><th>{_e(t('category'))}</th><th>{_e(t('present'))}</th>"
            f"<th>{_e(t('clause'))}</th><th>{_e(t('value'))}</th></tr>"
        )
        for entry in result.inventory.entries:
            out.append(
                f"<tr><td>{_e(entry.category)}</td>"
                f"<td>{_e(t('yes') if entry.present else t('no'))}</td>"
                f"<td>{_e(', '.join(entry.clause_ids[:3]))}</td><td>{_e(entry.value)}</td></tr>"
            )
        out.append("</table></section>")

    # Key risks grouped by severity
    out.append(f'<section id="key-risks"><h2>{_e(t("key_risks"))}</h2>')
    if not s.key_risks:
        out.append(f"<p>{_e(t('no_risks'))}</p>")
    for level in severities:
        group = [(i, r) for i, r in s.key_risks if _level(r.risk_level) == level]
        if not group:
            continue
        out.append(f"<h3>{_badge(level, t)} {len(group)}</h3>")
        out.append('<ul class="keyrisks">')
        for index, risk in group:
            clause_id = result.clauses[index].item.clause_id
            out.append(
                f'<li><a href="#clause-{index + 1}">{_e(t("clause"))} {_e(clause_id)}</a> — '
                f"<strong>{_e(risk.risk_type)}</strong>{_html_llm_suffix(risk, t)}{t.colon}"
                f"{_e(risk.description)}</li>"
            )
        out.append("</ul>")
    other = [(i, r) for i, r in s.key_risks if _level(r.risk_level) not in severities]
    if other:  # a level outside high/medium/low (not expected from the models)
        out.append('<ul class="keyrisks">')
        out.extend(
            f"<li>{_badge(r.risk_level, t)} <strong>{_e(r.risk_type)}</strong>{t.colon}"
            f"{_e(r.description)}</li>"
            for _, r in other
        )
        out.append("</ul>")
    out.append("</section>")

    favourable = _favourable(result)
    if favourable:
        out.append(f'<section id="favourable"><h2>{_e(t("favourable"))}</h2>')
        out.append(f'<p class="muted">{_e(t("favourable_intro"))}</p><ul class="keyrisks">')
        for term in favourable:
            quote = (
                f"<blockquote>{_e(term.location.original_text)}</blockquote>"
                if term.location is not None
                else ""
            )
            out.append(
                f"<li>{_e(t('clause'))} {_e(term.clause_id)} — {_e(term.description)}{quote}</li>"
            )
        out.append("</ul></section>")

    # Clauses
    out.append(f'<section id="clauses"><h2>{_e(t("clauses"))}</h2>')
    if not result.clauses:
        out.append(f"<p>{_e(t('no_clauses'))}</p>")
    out.extend(_html_clause(i, rc, t, s.mode_reason) for i, rc in enumerate(result.clauses))
    out.append("</section>")

    # Warnings and hidden text
    out.append(f'<section id="warnings"><h2>{_e(t("warnings_hidden"))}</h2>')
    if not result.warnings and not result.hidden_text:
        out.append(f"<p>{_e(t('no_warnings'))}</p>")
    if result.warnings:
        out.append(f"<h3>{_e(t('warnings'))}</h3>")
        out.append("<ul>" + "".join(f"<li>{_e(w)}</li>" for w in result.warnings) + "</ul>")
    if result.hidden_text:
        out.append(f"<h3>{_e(t('hidden_text'))}</h3>")
        out.append(f'<p class="alert">{_e(t("hidden_flag"))}</p>')
        for span in result.hidden_text:
            out.append(
                f'<div class="deviation hidden"><p><span class="badge high">'
                f"{_e(t.value(span.reason))}</span> "
                f'<span class="muted">{_e(t("offsets"))} {span.start}–{span.end}</span></p>'
                f'<div class="text">{_e(span.text)}</div></div>'
            )
    out += ["</section>", "</body>", "</html>"]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------


def write_reports(result: ReviewResult, out_dir: Path) -> dict[str, Path]:
    """Write findings.json, report.md and report.html into `out_dir` (created if missing).

    Returns the paths by kind: {"html": ..., "md": ..., "json": ...}.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    renderers: dict[str, Callable[[ReviewResult], str]] = {
        "html": render_html,
        "md": render_markdown,
        "json": lambda r: r.model_dump_json(indent=2) + "\n",
    }
    paths: dict[str, Path] = {}
    for kind, render in renderers.items():
        # One report in memory at a time: those of a large contract run to hundreds of MB.
        path = out_dir / REPORT_FILES[kind]
        path.write_text(render(result), encoding="utf-8", newline="\n")
        paths[kind] = path
    return paths
