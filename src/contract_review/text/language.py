"""The review language: whether it is Chinese, and `Say`, the wording for it.

Shared by the analysis engines (which write their own messages) and the skills' risk rules.
"""

from __future__ import annotations

__all__ = ["Say", "is_chinese"]


def is_chinese(language: str) -> bool:
    """Whether a review language ('en', 'zh-CN', 'zh') is Chinese."""
    return language.lower().startswith("zh")


class Say:
    """Texts in one review language: `say(en, zh)` is the wording for it.

    Both wordings are written out where the text is made, so a rule reads as what it says in
    either language; numbers, quotes and party names go into both alike."""

    __slots__ = ("language", "zh")

    def __init__(self, language: str = "en") -> None:
        self.language = language
        self.zh = is_chinese(language)

    def __call__(self, en: str, zh: str) -> str:
        return zh if self.zh else en
