"""contract_review.text.literals: a pattern's literal pre-filter never skips a text it matches."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from contract_review.playbook import packaged_playbook
from contract_review.playbook.schema import any_of
from contract_review.plugins.generic.topics import TOPICS
from contract_review.text import SENTENCE_OR_LINE_END
from contract_review.text.literals import GatedPattern, fold, required_literals

_SRC = Path(__file__).resolve().parents[1] / "src" / "contract_review" / "plugins"
_FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize(
    ("pattern", "literals"),
    [
        (r"\bterminat\w+ (?:this )?agreement", (("agreement",), ("terminat",), (" ",))),
        (
            r"(?:shall|will) not (?:be liable|exceed)",
            (("be liable", "exceed"), (" not ",), ("shall", "will")),
        ),
        (r"甲方(?:有权|可以)", (("甲方",), ("可以", "有权"))),
        (r"[Ll]imitation of", (("limitation of",),)),
        (r"(?<!not )liable(?= for)", (("liable",), (" for",))),
        (r"(?<=\bnot )\w+", (("not ",),)),
        (r"\d+ days", ((" days",),)),
        (r"(?:indemnif|hold harmless)", (("hold harmless", "indemnif"),)),
    ],
)
def test_required_literals(pattern: str, literals: tuple[tuple[str, ...], ...]) -> None:
    """Groups of strings, the most selective first: a match holds one string of each."""
    assert required_literals(pattern) == literals


@pytest.mark.parametrize("pattern", [r"(?:a|)b?", r"\d+\s*", r"\w+", r"(?:foo)?", r"[Éé][ée]"])
def test_no_filter_when_nothing_is_required(pattern: str) -> None:
    """An optional part, a class or a cased non-ASCII letter requires no literal."""
    gate = GatedPattern.of(re.compile(pattern, re.IGNORECASE))
    assert gate.literals is None
    assert gate.may_match("")


def test_a_gate_skips_only_texts_without_its_literals() -> None:
    gate = GatedPattern.of(re.compile(r"sole (?:and absolute )?discretion", re.IGNORECASE))
    assert gate.literals == (("discretion",), ("sole ",))
    text = "At the SOLE and absolute DISCRETION of the Supplier."
    match = gate.search(text, fold(text))
    assert match is not None
    assert match.group(0) == "SOLE and absolute DISCRETION"
    assert not gate.may_match(fold("At the Supplier's discretion."))  # no 'sole '
    assert not gate.may_match(fold("The sole supplier."))  # no 'discretion'


def test_fold_shows_every_letter_ignorecase_matches() -> None:
    """Each character IGNORECASE matches to an ASCII letter or digit folds to it (İ, ı, ſ
    included): a literal test on folded text is never stricter than the pattern."""
    alnum = re.compile("[a-z0-9]", re.IGNORECASE)
    for code in range(0x80, sys.maxunicode + 1):
        ch = chr(code)
        if 0xD800 <= code < 0xE000 or not alnum.fullmatch(ch):
            continue
        assert re.fullmatch("[a-z0-9]", fold(ch)), hex(code)
        assert re.fullmatch(re.escape(fold(ch)), ch, re.IGNORECASE), hex(code)


def _sentences() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(_FIXTURES.rglob("*.txt"))]
    texts.append("The Licensor's ſole diſcretion; İNDEMNIFY; ınsurance; K°")
    return [s for t in texts for s in SENTENCE_OR_LINE_END.split(t) if s.strip()]


def _catalogue_patterns() -> list[re.Pattern[str]]:
    out: list[re.Pattern[str]] = []
    for topic in TOPICS:
        out += [r.pattern for r in topic.rules] + list(topic.negatives)
        out += [topic.context] if topic.context is not None else []
    for path in sorted(_SRC.glob("*/playbook.yaml")):
        for position in packaged_playbook(path).positions:
            out += [any_of(tuple(c.patterns)) for c in position.checks if c.patterns]
    return out


def test_gated_search_equals_search_on_every_catalogue_pattern() -> None:
    """Every topic rule and playbook check, on every sentence of the test fixtures (English
    and Chinese): the gated search finds exactly what the plain search finds."""
    sentences = [(s, fold(s)) for s in _sentences()]
    patterns = _catalogue_patterns()
    assert len(patterns) > 250
    assert len(sentences) > 2000
    gated = 0
    for pattern in patterns:
        gate = GatedPattern.of(pattern)
        gated += gate.literals is not None
        for sentence, folded in sentences:
            expected = pattern.search(sentence)
            found = gate.search(sentence, folded)
            assert (found is None) == (expected is None), (pattern.pattern, sentence)
    assert gated > 0.9 * len(patterns)  # nearly every pattern has a filter
