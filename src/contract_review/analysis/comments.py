"""Word comments of redlines: the risk, the change, and why it serves our party (EN/ZH).

Pure text: the drafting (`analysis.drafting`) decides the edit and our party's word; this module
writes the comment around them.
"""

from __future__ import annotations

from contract_review.analysis.titles import risk_title
from contract_review.models import ActionType, RiskLevel, RiskPoint
from contract_review.playbook import Position

__all__ = ["cap_first", "change_text", "redline_comment", "short"]

_LEVEL_EN = {RiskLevel.HIGH: "High", RiskLevel.MEDIUM: "Medium", RiskLevel.LOW: "Low"}
_LEVEL_ZH = {RiskLevel.HIGH: "高", RiskLevel.MEDIUM: "中", RiskLevel.LOW: "低"}

_BENEFIT_EN = {
    "period_up": "This gives {us} a realistic time to comply, so that {us} does not lose its "
    "rights through too short a deadline.",
    "period_down": "This shortens the time {us} has to wait, protecting {us}'s cash flow and "
    "position.",
    "pct_down": "This brings the figure down to a market-standard level and reduces {us}'s "
    "exposure.",
    "pct_up": "This brings the figure up to a market-standard level in {us}'s favour.",
    "cap": "This limits {us}'s exposure to a known maximum.",
    "fault": "{Us} then bears only losses caused by its own breach or negligence, not risks it "
    "cannot control.",
    "reasonable": "The other party must then act reasonably, so {us} can challenge an arbitrary "
    "decision.",
    "delete": "Deleting it removes a provision that works against {us}'s interest.",
    "instruction": "The change follows the reviewer's instruction and protects {us}'s interest.",
    "none": "No standard wording fits this risk; {us} should negotiate an amendment.",
    "position": "This brings the term to our standard position.",
    "remembered": "This is your own wording for this point, remembered from an earlier review.",
    "mutual": "The right then belongs to both parties alike, not to the other side alone.",
    "forum": "Each side then sues at the other's home, so neither forum is the other side's "
    "home ground alone.",
}
_BENEFIT_ZH = {
    "period_up": "给予{us}合理的履约时间，避免{us}因期限过短而丧失权利。",
    "period_down": "缩短{us}的等待期限，保障{us}的资金安排和合法权益。",
    "pct_down": "将该比例调整至行业通行水平，减轻{us}的负担。",
    "pct_up": "将该比例调整至行业通行水平，维护{us}的利益。",
    "cap": "为{us}的责任设定上限，使{us}的风险可控。",
    "fault": "{us}仅对因其自身原因造成的损失承担责任，不再承担其无法控制的风险。",
    "reasonable": "要求对方合理行使权利，{us}可对不合理的决定提出异议。",
    "delete": "删除后可消除对{us}不利的约定。",
    "instruction": "按审核意见修改，以维护{us}的利益。",
    "none": "暂无可直接适用的标准修改，建议{us}就此条款进行协商。",
    "position": "使该条款符合我方的标准立场。",
    "remembered": "采用您在以往审查中确定的措辞。",
    "mutual": "该权利由双方对等享有，而非仅由对方享有。",
    "forum": "由原告向被告住所地法院起诉，管辖不再偏向对方。",
}


def short(text: str, limit: int = 80) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def cap_first(text: str) -> str:
    """`text` with its first character in upper case."""
    return text[:1].upper() + text[1:]


def change_text(
    action: ActionType, original: str, proposed: str, display: tuple[str, str] | None, zh: bool
) -> str:
    """The change in words ('change "14 days" to "28 days"', '删除“…”'): `display` names the
    phrase instead of the raw diff when the edit gives one."""
    if display is not None and action is ActionType.REPLACE:
        old, new = (short(t) for t in display)
        return f"将“{old}”修改为“{new}”" if zh else f'change "{old}" to "{new}"'
    o, p = short(original), short(proposed.strip())
    if action is ActionType.DELETE:
        return f"删除“{o}”" if zh else f'delete "{o}"'
    if action is ActionType.INSERT:
        return f"在“{o}”之后增加“{p}”" if zh else f'insert "{p}" after "{o}"'
    return f"将“{o}”修改为“{p}”" if zh else f'replace "{o}" with "{p}"'


def _sentence(text: str, zh: bool) -> str:
    text = text.strip()
    if not text:
        return ""
    if text[-1] in ".!?。！？；;":
        return text
    return text + ("。" if zh else ".")


def redline_comment(
    risk: RiskPoint,
    *,
    zh: bool,
    us: str,
    benefit: str,
    change: str | None,
    instruction: str,
    position: Position | None,
    stance: Position | None,
) -> str:
    """The Word comment of a redline for `risk`, in Chinese if `zh`.

    `us` is our party's word, `benefit` the key of the sentence saying why the change serves
    it ('period_up', 'cap', 'none'...), `change` the change in words (`change_text`; None when
    there is no diff: the comment then repeats the reviewer's `instruction`, if any),
    `position` the playbook position the risk refers to (it titles the risk in Chinese) and
    `stance` the position whose standard and fallback the comment states (None in a neutral
    review).
    """
    description = risk.description
    if zh:
        # the risk type is a machine key: a Chinese comment names it by its Chinese title (and
        # says once what the title already names: 'Cap on Liability：…' after '偏离我方立场：Cap
        # on Liability')
        title = position.title_text("zh") if position else risk_title(risk.risk_type, "zh-CN")
        named, colon, rest = description.partition("：")
        if colon and named.strip() and title.endswith(named.strip()):
            description = rest
        head = f"{_LEVEL_ZH[risk.risk_level]}风险——{title}："
    else:
        head = f"{_LEVEL_EN[risk.risk_level]} risk – {risk.risk_type}: "
    parts = [p for p in (_sentence(description, zh), _sentence(risk.reason, zh)) if p]
    why = "".join(parts) if zh else "".join(f"{p} " for p in parts)
    stated = _stance(stance, zh)
    if zh:
        said = _BENEFIT_ZH[benefit].format(us=us)
        if change is None:
            asked = f"审核意见：{_sentence(instruction, True)}" if instruction else ""
            return f"{head}{why}{asked}{said}{stated}"
        return f"{head}{why}修改建议：{change}。{said}{stated}"
    said = _BENEFIT_EN[benefit].format(us=us, Us=cap_first(us))
    if change is None:
        asked = f"Reviewer's request: {_sentence(instruction, False)} " if instruction else ""
        return f"{head}{why}{asked}{said}{stated}"
    return f"{head}{why}Proposed change: {change}. {said}{stated}"


def _stance(position: Position | None, zh: bool) -> str:
    """Our standard position and the fallback we can offer in negotiation, for the comment."""
    if position is None:
        return ""
    lang = "zh" if zh else "en"
    standard = _sentence(position.standard.text(lang), zh)
    fallback = _sentence(position.fallback.text(lang), zh) if position.fallback else ""
    if zh:
        return f"我方立场：{standard}" + (f"可接受的退让方案：{fallback}" if fallback else "")
    return f" Our position: {standard}" + (
        f" Fallback we can accept: {fallback}" if fallback else ""
    )
