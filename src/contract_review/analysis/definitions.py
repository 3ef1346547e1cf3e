"""Defined, undefined and incorporated terms: what a clause's terms mean in the contract.

The defined terms a text relies on are looked up in the contract's definitions. Terms a
contract uses as defined terms but never defines are found once per document.

A capitalised phrase reads as a defined term when the contract writes it that way every time
and uses it as a noun ('the Acceptance Date', 'any Main Elements'). It is not one when it is
a name — a party, a body or statute ('Securities and Exchange Commission', 'Bankruptcy
Code'), an office ('Chief Financial Officer'), an address — a heading or a label
('Attention:'), a line repeated on every page (running heads, redaction legends), a quoted
name, part of a defined term ('Clinical Trial' in 'Phase I Clinical Trial'), a plural or
possessive of one, or ordinary words the contract also writes in lower case. Each term is
reported once, where the document first uses it. A contract may say its undefined terms take
their meaning from another document (`incorporation`): then none are reported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from contract_review.analysis.cache import per_structure
from contract_review.models import ClauseNode, DocumentStructure
from contract_review.parties import contract_parties
from contract_review.playbook.parse import read_yaml
from contract_review.text import HAN, repeated_lines

__all__ = [
    "CAP_PHRASE",
    "COMMON",
    "INCORPORATED",
    "NAME_HEADS",
    "SMALL",
    "TermDefinition",
    "UndefinedTerm",
    "UndefinedUse",
    "defined_elsewhere",
    "defined_terms_used",
    "document_undefined",
    "incorporation",
    "undefined_terms_in",
]

_WORDS = read_yaml(Path(__file__).with_name("undefined_terms.yaml").read_text("utf-8"))
COMMON = frozenset(_WORDS["common"].split())
"""Words that start or fill a capitalised phrase without making it a term."""
SMALL = frozenset({"of", "for", "and", "the", "to", "in", "on", "de", "&"})

NAME_HEADS = frozenset(_WORDS["name_heads"].split())
"""Last words of names of bodies, laws, offices and places: not terms the contract defines."""
_BLOCK_LABEL = re.compile(
    r"(?:^|[ \t])(?:" + "|".join(re.escape(w) for w in _WORDS["block_labels"].split()) + r")"
    r"[ \t]*:|/s/",
    re.IGNORECASE,
)
_PLACE_OF = r"(?:State|Commonwealth|City|County|Province|Republic|Kingdom)"
"""Words before 'of' that make a place's name ('State of New York')."""
_NAME_OPENER = re.compile(
    r"(?:\b(?:" + "|".join(re.escape(w) for w in _WORDS["name_openers"].split()) + r")"
    r"|\b" + _PLACE_OF + r" of)[ \t]+$",
    re.IGNORECASE,
)
_PLACE = re.compile(_PLACE_OF + r"\s+of\s")
_IDENTIFIER = re.compile(r"^(?:[IVXL]+|[A-Z]|Nos?|\d+)$")

_WORD = r"[A-Z][\w'’-]*"
CAP_PHRASE = re.compile(
    r"(?<![\w.])([A-Z][a-z][\w'’-]*(?:[ \t]+(?:(?:of|for|and|the|&)[ \t]+)?" + _WORD + r")*)"
)
_POSSESSIVE = re.compile(r"['’]s?$")
_SPLIT = re.compile(r"\s+(?:and|or|&)\s+")
_DETERMINER = re.compile(
    r"(?:^|\W)(?:the|any|each|such|all|no|a|an|its|their|this|that|said|every|which|"
    r"our|your|other|same|relevant|applicable)\s+$",
    re.IGNORECASE,
)
_LINE_LEAD = re.compile(
    r"^[ \t]*(?:(?:section|article|clause|paragraph)[ \t]+)?(?-i:[A-Z]{2,}[ \t]+)?"
    r"(?:[(\[]?[0-9A-Za-z]{1,4}[.)\]]?(?:\.[0-9]{1,3})*\.?[ \t]+)?[ \t]*$",
    re.IGNORECASE,
)
_HEADING_END = re.compile(r"[ \t]*(?:[.:]|[ \t]-|;|\n)")
_QUOTES = "\"“”'‘"
_ZH_QUOTED = re.compile(r"[“\"「]([^”\"」\n]{1,20})[”\"」]")
_MIN_WORD_USES = 3
"""A one-word term must be used at least this often, twice after a determiner."""

# 'Capitalized terms used but not defined herein have the meanings given in the Supply
# Agreement': the terms are defined elsewhere, on purpose.
INCORPORATED = re.compile(
    r"(?:capitali[sz]ed|defined)\s+terms?\s+(?:used\s+)?(?:(?:herein|in\s+this\s+\w+)\s+)?"
    r"(?:(?:and|but|that\s+are)\s+)?not\s+(?:otherwise\s+)?defined\s+"
    r"(?:(?:herein|in\s+this\s+\w+|below|above)\s+)?(?:shall\s+)?ha(?:ve|s)\s+the\s+"
    r"(?:respective\s+)?meanings?\s+(?:given|ascribed|assigned|set\s+(?:forth|out)|"
    r"attributed)[^.;\n]{0,160}"
    r"|未(?:在本(?:合同|协议)中)?(?:另行|单独)?定义的(?:术语|词语|用语)[^。；\n]{0,80}",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class UndefinedUse:
    """A term used as defined but never defined: where the document first uses it."""

    term: str
    first: int
    forms: tuple[str, ...]
    """Every spelling used ('Service Credits', 'Service Credit'), the term's first."""


@dataclass(frozen=True, slots=True)
class _Known:
    defined: frozenset[str]
    parts: frozenset[str]
    names: frozenset[str]
    spaced: tuple[str, ...]
    """The defined terms longer than three characters, each between spaces: built once per
    document, not once per phrase tested."""


def _variants(term: str) -> set[str]:
    """The term, its plural or singular and its possessive, lower-cased."""
    t = term.casefold()
    out = {t, t + "s", t + "es", t + "'s", t + "’s"}
    if t.endswith("ies"):
        out.add(t[:-3] + "y")
    if t.endswith("y"):
        out.add(t[:-1] + "ies")
    if t.endswith("es"):
        out.add(t[:-2])
    if t.endswith("s"):
        out.add(t[:-1])
    return out


def _singular(term: str) -> str:
    """'Service Credits' and 'Service Credit' are one term."""
    t = term.casefold()
    if t.endswith("ies"):
        return t[:-3] + "y"
    if t.endswith("s") and not t.endswith("ss"):
        return t[:-1]
    return t


def _words(text: str) -> list[str]:
    return re.split(r"[\s/]+", text.casefold().strip())


@per_structure()
def _known(structure: DocumentStructure) -> _Known:
    defined: set[str] = set()
    parts: set[str] = set()
    for term in structure.definitions:
        defined |= _variants(term)
        words = _words(term)
        for i in range(len(words)):
            for j in range(i + 1, len(words) + 1):
                parts |= _variants(" ".join(words[i:j]))
    names: set[str] = set()
    for group in contract_parties(structure):
        for name in group:
            names |= _variants(name)
    for clause in structure.iter_clauses():
        if clause.title:
            names |= _variants(clause.title.strip(" .:"))
            names.update(p.strip().casefold() for p in re.split(r"[;/,]| and ", clause.title))
    spaced = tuple(f" {d} " for d in defined if len(d) > 3)
    return _Known(frozenset(defined), frozenset(parts), frozenset(names), spaced)


def _segments(structure: DocumentStructure) -> list[tuple[int, str]]:
    """The document's text as (offset, text) of its top-level clauses."""
    return [(c.start_offset, c.text) for c in structure.clauses]


def _is_heading(text: str, start: int, end: int) -> bool:
    """A run-in heading or a label: the phrase opens its line (after any number) and a full
    stop, colon, dash or the line end follows it."""
    line_start = text.rfind("\n", 0, start) + 1
    return bool(_LINE_LEAD.match(text[line_start:start])) and bool(
        _HEADING_END.match(text, end) or end == len(text)
    )


def _next_to_number(text: str, start: int, end: int) -> bool:
    """'1919 Interchange Tower', 'Highway 169': an address or a numbered thing."""
    before = text[max(0, start - 8) : start]
    return bool(re.search(r"\d[\w-]*[ \t]+$", before) or re.match(r"[ \t]+\d", text[end:]))


def _clean(phrase: str) -> list[str]:
    words = phrase.split()
    words[-1] = _POSSESSIVE.sub("", words[-1])
    while len(words) > 1 and words[0].casefold() in COMMON:
        words = words[1:]
    while len(words) > 1 and words[-1].casefold() in SMALL:
        words = words[:-1]
    return [w for w in words if w]


def _excluded(words: list[str], known: _Known) -> bool:
    key = " ".join(words).casefold()
    if key in known.defined or key in known.parts or key in known.names:
        return True
    if all(w.casefold() in COMMON or w.casefold() in SMALL for w in words):
        return True
    heads = {words[-1].casefold()}
    if "of" in words[1:]:
        heads.add(words[words.index("of", 1) - 1].casefold())
    if any(h in NAME_HEADS or h.rstrip("s") in NAME_HEADS for h in heads):
        return True
    if _IDENTIFIER.match(words[-1]):
        return True  # 'Amendment III', 'Phase IV', 'List A', 'Robert C.': a name or a number
    # a defined term inside the phrase, as whole words
    return any(map(f" {key} ".__contains__, known.spaced))


def _terms_in(
    text: str,
    offset: int,
    known: _Known,
    repeated: frozenset[str],
    preamble: str,
    lower_words: frozenset[str],
) -> list[tuple[str, int, bool]]:
    """(term, absolute offset, after a determiner) of each candidate use in `text`."""
    out: list[tuple[str, int, bool]] = []
    lines: dict[int, bool] = {}  # line start → whether the line's phrases are skipped
    for m in CAP_PHRASE.finditer(text):
        start, end = m.span(1)
        before = text[start - 1 : start]
        if before in _QUOTES or before == "[" or text[end : end + 1] in _QUOTES:
            continue  # a quoted name ('the "Small Business" channel') or a [Redacted] marker
        line_start = text.rfind("\n", 0, start) + 1
        skip_line = lines.get(line_start)
        if skip_line is None:
            # once per line: a flattened filing may hold a whole page on one line
            line_end = text.find("\n", line_start)
            line = text[line_start : line_end if line_end != -1 else len(text)].strip()
            skip_line = line in repeated or _BLOCK_LABEL.search(line) is not None
            lines[line_start] = skip_line
        if skip_line or _is_heading(text, start, end) or _next_to_number(text, start, end):
            continue  # a running head, a signature or notice block
        if _NAME_OPENER.search(text, max(0, start - 20), start):
            continue  # a person's title, a place's name
        if _PLACE.match(m.group(1)):
            continue
        words = _clean(m.group(1))
        if len(words) > 1 and _sentence_start(text, start) and words[0].lower() in lower_words:
            words = _clean(" ".join(words[1:]))  # 'Should the Company', 'Examples of Fees'
        if "of" in words[1:-1]:
            cut = words.index("of", 1)
            owner = " ".join(words[cut + 1 :])
            if owner.isupper() or owner.casefold() in known.names:
                words = words[:cut]  # 'Know-How of ACME': the owner is a party
        if not words:
            continue
        phrase = " ".join(words)
        if phrase in preamble:
            continue  # parties, places and the project are named in the preamble
        if _excluded(words, known):
            continue
        parts = _SPLIT.split(phrase) if len(words) > 2 else [phrase]
        for part in parts:
            pw = _clean(part)
            if len(parts) > 1 and (not pw or _excluded(pw, known)):
                continue
            at = start + max(0, m.group(1).find(pw[0]))
            if len(pw) == 1 and _sentence_start(text, at):
                continue
            determined = _DETERMINER.search(text, max(0, at - 30), at) is not None
            out.append((" ".join(pw), offset + at, determined))
    return out


def _sentence_start(text: str, pos: int) -> bool:
    j = pos - 1
    while j >= 0 and text[j] in ' \t"“(':
        j -= 1
    return j < 0 or text[j] in ".;:\n!?)"


@per_structure()
def document_undefined(structure: DocumentStructure) -> dict[str, UndefinedUse]:
    """Every term the document uses as defined but never defines, with its first use; none
    when the contract says its undefined terms are defined in another document."""
    if incorporation(structure) is not None:
        return {}
    segments = _segments(structure)
    known = _known(structure)
    repeated = repeated_lines((t for _, t in segments), longest=160)
    first = structure.clauses[0] if structure.clauses else None
    preamble = first.text if first is not None and first.kind.value == "preamble" else ""
    whole = "\n".join(t for _, t in segments)
    lower_words = frozenset(re.findall(r"\b[a-z][a-z'’-]*\b", whole))
    uses: dict[str, list[tuple[int, bool]]] = {}
    spelling: dict[str, list[str]] = {}  # a term's singular → its spellings, first first
    for offset, text in segments:
        for term, at, determined in _terms_in(text, offset, known, repeated, preamble, lower_words):
            key = _singular(term)
            forms = spelling.setdefault(key, [])
            if term not in forms:
                forms.append(term)
            uses.setdefault(key, []).append((at, determined))
    out: dict[str, UndefinedUse] = {}
    for key, found in uses.items():
        term = spelling[key][0]
        one_word = " " not in term
        if one_word and (
            len(found) < _MIN_WORD_USES or sum(d for _, d in found) < 2 or term.isupper()
        ):
            continue
        if not one_word and len(found) < 2:
            continue
        if _written_lower(term, whole):
            continue  # ordinary words the contract capitalises now and then
        out[term] = UndefinedUse(term, min(a for a, _ in found), tuple(spelling[key]))
    for offset, text in segments:
        for m in _ZH_QUOTED.finditer(text):
            term = m.group(1)
            if not HAN.search(term) or term.casefold() in known.defined:
                continue
            if term.casefold() in known.names or term in out:
                continue
            out[term] = UndefinedUse(term, offset + m.start(1), (term,))
    return out


def _written_lower(term: str, text: str) -> bool:
    """Whether the document also writes the term in lower case, as ordinary words."""
    needle = term.lower()
    if needle == term or needle not in text:
        return False  # the substring test first: the search below reads the whole document
    return re.search(r"(?<![\w-])" + re.escape(needle) + r"(?![\w-])", text) is not None


@per_structure()
def incorporation(structure: DocumentStructure) -> tuple[int, str] | None:
    """(offset, sentence) where the contract says its undefined terms take their meaning from
    another document, if it does."""
    for offset, text in _segments(structure):
        m = INCORPORATED.search(text)
        if m is not None:
            return offset + m.start(), m.group().rstrip()
    return None


# --------------------------------------------------------------------------------------------
# A clause's terms
# --------------------------------------------------------------------------------------------


class TermDefinition(BaseModel):
    """A defined term used in the clause."""

    term: str = Field(description="The defined term.")
    definition: str = Field(description="Its definition, as written.")
    defined_in: str | None = Field(description="Clause holding the definition.")
    occurrences: int = Field(description="Times the term appears in the clause.")


class UndefinedTerm(BaseModel):
    """A capitalised or quoted term the clause uses that the contract never defines."""

    term: str = Field(description="The term as written.")
    occurrences: int = Field(description="Times it appears in the clause.")
    quote: str = Field(description="Verbatim snippet around its first use.")
    first_use: bool = Field(
        False, description="Whether the contract uses the term here for the first time."
    )


def _count(text: str, term: str) -> int:
    n = 0
    i = text.find(term)
    while i != -1:
        before = text[i - 1 : i]
        after = text[i + len(term) : i + len(term) + 1]
        ascii_word = term[:1].isascii()
        if not ascii_word or (not before.isalnum() and not after.isalnum()):
            n += 1
        i = text.find(term, i + len(term))
    return n


def defined_terms_used(
    structure: DocumentStructure, text: str, terms: Sequence[str] = ()
) -> list[TermDefinition]:
    """The contract's defined terms `text` uses (only `terms`, when given), most used first."""
    defs = structure.definitions
    wanted = list(terms) or list(defs)
    used = [
        TermDefinition(term=d.term, definition=d.definition, defined_in=d.clause_id, occurrences=n)
        for term in wanted
        if (d := defs.get(term)) is not None and (n := _count(text, term)) > 0
    ]
    return sorted(used, key=lambda t: -t.occurrences)


def undefined_terms_in(structure: DocumentStructure, clause: ClauseNode) -> list[UndefinedTerm]:
    """The document's undefined terms this clause uses; `first_use` marks those it uses first."""
    out = []
    for use in document_undefined(structure).values():
        n = sum(_count(clause.text, form) for form in use.forms)
        if not n:
            continue
        here = clause.start_offset <= use.first < clause.end_offset
        p = (
            use.first - clause.start_offset
            if here
            else min(i for form in use.forms if (i := clause.text.find(form)) != -1)
        )
        out.append(
            UndefinedTerm(
                term=use.term,
                occurrences=n,
                quote=clause.text[max(0, p - 40) : p + len(use.term) + 40],
                first_use=here,
            )
        )
    return out


def defined_elsewhere(structure: DocumentStructure, clause: ClauseNode) -> str:
    """The clause's statement that terms the contract does not define take their meaning
    from another document, if it makes one ('' otherwise)."""
    found = incorporation(structure)
    if found is None or not clause.start_offset <= found[0] < clause.end_offset:
        return ""
    return found[1]
