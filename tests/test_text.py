"""contract_review.text: one meaning of "Chinese" and of "a sentence" for every stage."""

from __future__ import annotations

import re

import pytest

from contract_review.text import (
    CJK_TEXT,
    CJK_WIDE,
    SEGMENT_END,
    SENTENCE_END,
    SENTENCE_OR_LINE_END,
    clean_untrusted,
    has_cjk,
    is_cjk_char,
)


def _ends(pattern: re.Pattern[str], text: str) -> list[str]:
    return [text[: m.end()].rsplit(maxsplit=1)[-1] for m in pattern.finditer(text)]


def test_chinese_characters() -> None:
    assert has_cjk("The Contractor (承包人) shall")
    assert not has_cjk("The Contractor shall pay 5% — “net” of tax")
    assert all(is_cjk_char(ch) for ch in "包㐀豈")
    assert not any(is_cjk_char(ch) for ch in "。A")
    assert re.fullmatch(f"[{CJK_TEXT}]+", "合同，第一条。")
    assert not re.fullmatch(f"[{CJK_TEXT}]+", "합의")  # Hangul is not Chinese text
    assert re.fullmatch(f"[{CJK_WIDE}]+", "カタカナ漢字、")
    assert not re.search(f"[{CJK_WIDE}]", "한국어 계약")  # Korean keeps its spaces


def test_sentence_boundaries() -> None:
    text = "Sub-Clause 20.1 applies, e.g. to claims. Yahoo!Finance is a name! 乙方应付款。甲方验收；乙方交付"
    ends = [m.group() for m in SENTENCE_END.finditer(text)]
    # "claims." — not "e.g." (a lower-case word follows), "20.1" nor "Yahoo!Finance"
    assert ends == [".", "!", "。"]
    assert [m.group() for m in SEGMENT_END.finditer(text)] == [".", "!", "。", "；"]
    lines = "1. Payment\nThe Buyer shall pay"
    assert [m.group() for m in SENTENCE_OR_LINE_END.finditer(lines)] == [".", "\n"]
    assert not [m.group() for m in SENTENCE_END.finditer(lines) if m.group() == "\n"]
    assert _ends(SENTENCE_END, "It ends here. Next")[0] == "here."


@pytest.mark.parametrize(
    "text",
    [
        "KI, Inc. hereby indemnifies Diplomat. The end",
        "Acme Ltd. shall pay. The end",
        "Under U.S. law the Buyer pays. The end",
        "See Section No. 4 of the Schedule. The end",
        "Costs (e.g. fees, etc.) are borne by the Buyer. The end",
        "Signed by Mr. Smith and Dr. Jones. The end",
    ],
)
def test_abbreviations_do_not_end_a_sentence(text: str) -> None:
    """A company suffix, a title, 'No.' or an initialism is no sentence end: the party that
    acts stays in the sentence ('KI, Inc. hereby indemnifies …')."""
    (end,) = SENTENCE_END.finditer(text)
    assert text[: end.end()].endswith("Jones." if "Jones" in text else ".")
    assert text[end.end() :] == " The end"


def test_untrusted_text_is_made_writable() -> None:
    hostile = "a\x00b\x01\x07\x1b[0m\x7f\x85c\ud800d\ufffee\U000e0041f\tg\nh\r\n"
    assert clean_untrusted(hostile) == "ab[0mc\ufffdde" + "f\tg\nh\r\n"
    assert clean_untrusted("买方应在30日内付款。") == "买方应在30日内付款。"
    # what comes out can be encoded and written into XML
    clean_untrusted(hostile).encode("utf-8")


def test_a_reviewers_edit_is_cleaned_at_the_edge() -> None:
    from contract_review.models import ApprovalRequest

    request = ApprovalRequest(
        diff_id="d1", decision="approve", user_modified_text="within 30\x01 days\ud800"
    )
    assert request.user_modified_text == "within 30 days\ufffd"


def test_secrets_are_redacted_from_error_text() -> None:
    from contract_review.text import redact_secrets

    said = (
        "Incorrect API key provided: Bearer abc.def-123456; api_key=xyz98765 "
        "postgresql://admin:hunter22@db.local/reviews my-own-key-1"
    )
    out = redact_secrets(said, ["my-own-key-1"])
    for secret in ("abc.def-123456", "xyz98765", "hunter22", "my-own-key-1"):
        assert secret not in out
    assert "Incorrect API key provided" in out
    assert "db.local/reviews" in out
