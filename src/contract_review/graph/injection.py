"""Detect text in a contract that tries to instruct an AI reviewer (prompt injection).

`find_injections` returns the spans of such text, each widened to the whole sentence it sits
in, so the review can report the quote as an "embedded instruction" risk (and never obey it).
The patterns are a short, documented list of compiled, case-insensitive regexes in English
and Chinese. Precision matters more than recall: ordinary contract language such as "the
Contractor shall ignore any instruction not given in writing" or "承包商应遵守监理人的指示"
must never fire, so every pattern needs a marker that only makes sense when addressing a
machine (previous/above instructions, an AI or model, an empty answer, a system prompt).
"""

from __future__ import annotations

import re

from contract_review.text import SEGMENT_END

__all__ = ["INJECTION_PATTERNS", "find_injections", "injection_quotes"]

_FLAGS = re.IGNORECASE

# Each entry: (what it catches, pattern). Kept small on purpose.
_PATTERN_SOURCES: tuple[tuple[str, str], ...] = (
    (
        # "ignore all previous instructions", "disregard your prior instructions",
        # "ignore the above instructions"; not "... previous instructions of the Engineer".
        "override earlier instructions (EN)",
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|of\s+)*"
        r"(?:the\s+|your\s+|my\s+|these\s+|those\s+)?"
        r"(?:previous|prior|above|preceding|earlier|foregoing|original|system)\s+"
        r"(?:instructions?|prompts?|directions|directives|rules|guidelines)\b"
        r"(?!\s+(?:of|from|given|issued|by)\b)",
    ),
    (
        # "AI reviewers: ...", "LLM assistant: ..." (not "AI models:", a heading in AI deals),
        # "Note to any AI: ...", "If you are an AI".
        "text addressed to an AI (EN)",
        r"\b(?:AI|LLM|GPT|ChatGPT|automated)[\s-]*"
        r"(?:reviewers?|review(?:ing)?\s+(?:tools?|systems?|assistants?)|assistants?|agents?)"
        r"\s*[:：,]"
        r"|\b(?:note\s+to|attention|message\s+(?:to|for)|instructions?\s+(?:to|for)|"
        r"if\s+you\s+are)\s+(?:an?\s+|any\s+|the\s+|all\s+)?"
        r"(?:AI|LLM|GPT|ChatGPT|(?:large\s+)?language\s+models?|automated\s+reviewers?)\b",
    ),
    (
        # "you are now a helpful assistant ...", "act as an AI that ...".
        "role reassignment (EN)",
        r"\byou\s+are\s+now\s+(?:an?|the|my|our)\s+(?:[\w-]+\s+){0,3}?"
        r"(?:assistant|AI|model|bot|chatbot|agent|lawyer|reviewer|system)\b"
        r"|\b(?:act|behave|pretend)\s+(?:as|like)\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+)?"
        r"(?:[\w-]+\s+){0,2}?(?:assistant|AI|chatbot|language\s+model)\b",
    ),
    (
        # "system prompt", "as a language model", "as an AI model".
        "talk about the model itself (EN)",
        r"\bsystem\s+prompts?\b"
        r"|\bas\s+an?\s+(?:AI\s+(?:language\s+)?model|AI\s+assistant|(?:large\s+)?language\s+model|"
        r"LLM)\b",
    ),
    (
        # "respond only with []", "return an empty list", "report no risks", "do not flag it".
        "dictate an empty answer (EN)",
        r"\b(?:respond|reply|answer|output|return)\s+(?:only\s+)?(?:with\s+)?(?:only\s+)?"
        r"(?:an?\s+)?(?:\[\s*\]|empty\s+(?:list|array|json|result|output|answer)|no\s+risks?)"
        r"|\breport\s+(?:no|zero)\s+(?:risks?|issues?|findings?)\b"
        r"|\b(?:do\s+not|don't|never)\s+(?:flag|report|mention|highlight|raise)\s+"
        r"(?:this\s+clause|this|it|any\s+(?:risks?|issues?|concerns?)|risks?|issues?)\b",
    ),
    (
        # 忽略之前的所有指令 / 忽略以上指示 / 请忽略上述所有说明; not 之前的所有协议.
        "override earlier instructions (ZH)",
        r"(?:忽略|无视|忽视|不要理会|不必理会|忘记|忘掉)(?:掉)?(?:所有|全部|一切)?(?:的)?"
        r"(?:之前|以前|此前|先前|上述|以上|前面|上面|前述|原有)(?:的)?(?:所有|全部|一切)?(?:的)?"
        r"(?:指令|指示|说明|提示词?|规则|命令|设定)",
    ),
    (
        # AI审查员请注意 / 致AI：/ 作为一个语言模型 / 你现在是 / 系统提示.
        "text addressed to an AI (ZH)",
        r"(?:AI|LLM|GPT|人工智能|大模型|语言模型|模型)\s*"
        r"(?:审查员|审阅者|审核员|审查人员|审阅人员|助手|审查系统|审阅系统|审查工具)"
        r"(?=\s*(?:请|：|:|，|,|应当?|必须|务必|注意))"
        r"|致\s*(?:AI|LLM|人工智能|大模型|语言模型)"
        r"|作为(?:一个|一名)?\s*(?:AI|人工智能|大?语言模型|大模型)"
        r"|(?:你|您)现在(?:是|扮演|作为)"
        r"|从现在(?:起|开始)[，,]?\s*(?:你|您)(?:是|扮演|作为)"
        r"|系统提示(?!信息|框|音|错误|窗)",
    ),
    (
        # 不要报告风险 / 不要报告任何风险 / 输出空列表 / 返回 [].
        "dictate an empty answer (ZH)",
        r"(?:不要|请勿|切勿)(?:再)?(?:报告|标记|提示|指出|输出|提及|列出)"
        r"(?:任何)?(?:的)?(?:风险|问题)"
        r"|(?:输出|返回|回复|回答)(?:一个)?\s*(?:空(?:的)?(?:列表|数组|结果|JSON)|\[\s*\])",
    ),
)

INJECTION_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(source, _FLAGS)) for label, source in _PATTERN_SOURCES
)
"""(label, compiled regex) pairs used by `find_injections`."""

# Words without which each pattern cannot match, looked for in the case-folded text (a plain
# search, several times faster than the case-insensitive patterns): a contract holding none of
# them is not scanned with the pattern. Each gate must be implied by its pattern.
_GATE_SOURCES: tuple[str, ...] = (
    r"ignore|disregard|forget|override|bypass",
    r"llm|gpt|automated|language|ai[\s-]*(?:review|assistant|agent)"
    r"|(?:to|attention|for|are)\s+(?:an?\s+|any\s+|the\s+|all\s+)?ai\b",
    r"you\s+are\s+now|(?:act|behave|pretend)\s+(?:as|like)",
    r"system\s+prompt|as\s+an?\s+(?:ai|large|language|llm)",
    r"\[\s*\]|empty\s+(?:list|array|json|result|output|answer)|(?:no|zero)\s+(?:risk|issue|finding)"
    r"|(?:not|n't|never)\s+(?:flag|report|mention|highlight|raise)\b",
    r"忽略|无视|忽视|不要理会|不必理会|忘记|忘掉",
    r"审查员|审阅者|审核员|审查人员|审阅人员|助手|审查系统|审阅系统|审查工具|致|作为|现在|系统提示",
    r"不要|请勿|切勿|输出|返回|回复|回答",
)
_GATES: tuple[re.Pattern[str], ...] = tuple(re.compile(g) for g in _GATE_SOURCES)

# A sentence ends at 。！？；; and newline always, and at . ! ? when followed by whitespace
# or the end of the text (so "20.1" or "e.g" inside a sentence does not split it).
_SENTENCE_END = SEGMENT_END


def _sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen [start, end) to the whole sentence(s) it touches, terminator included."""
    sentence_start = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() >= start:
            break
        sentence_start = match.end()
    following = _SENTENCE_END.search(text, max(end, start))
    if following is None:
        sentence_end = len(text)
    elif following.group() == "\n":
        sentence_end = following.start()
    else:
        sentence_end = following.end()
    while sentence_start < start and text[sentence_start].isspace():
        sentence_start += 1
    while sentence_end > end and text[sentence_end - 1].isspace():
        sentence_end -= 1
    return sentence_start, sentence_end


def find_injections(text: str) -> list[tuple[int, int]]:
    """Spans (start, end) of `text` that try to instruct an AI, LLM, model or reviewer.

    Each span is widened to the whole sentence it sits in (a sentence ends at . ! ? 。！？
    ; ； or a newline); spans are sorted and non-overlapping, and neighbouring spans that only
    whitespace separates are merged into one. End offsets are exclusive.
    """
    raw: list[tuple[int, int]] = []
    folded = text.casefold()
    for (_label, pattern), gate in zip(INJECTION_PATTERNS, _GATES, strict=True):
        if gate.search(folded) is None:
            continue
        for match in pattern.finditer(text):
            if match.end() > match.start():
                raw.append(_sentence_bounds(text, match.start(), match.end()))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(raw):
        if merged and (start <= merged[-1][1] or not text[merged[-1][1] : start].strip()):
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def injection_quotes(text: str) -> list[str]:
    """The texts of the spans `find_injections` returns, in order."""
    return [text[start:end] for start, end in find_injections(text)]
