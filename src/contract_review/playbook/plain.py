"""Plain-language positions compiled into checks.

A lawyer's playbook row says in words what they want ("Payment within 30 days of a valid
invoice; interest on late payment at 1% per month", fallback "Payment within 45 days"). A row
with no checks of its own is compiled against the domain's built-in positions:

* it takes over each built-in position it is about: the same topic in its topic and keywords,
  or (half the topic's words and) the position's own term patterns found in its text;
* the compiled position keeps the built-in checks (who holds the right, who bears the duty)
  with the lawyer's words as its standard, fallback, rationale and severity;
* a number the lawyer gives for a measured term ("30 days", "1% per month", "fees of the
  12 months before the claim") becomes that check's standard or fallback tier, read from the
  part of the text about that term; numbers that run against the check's direction are not
  used (a cap on our own liability is not the cap we need from them).

A row that compiles into no check is kept as it is: located by its title and keywords, and
listed in the report as a point to check against the lawyer's playbook.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .measure import MEASURES
from .schema import NumberCheck, PartyCheck, Position, Recognition, Wording

__all__ = ["Compiled", "compile_plain", "compiled_positions"]


@dataclass(frozen=True)
class Compiled:
    """What one plain position became."""

    source: Position
    """The lawyer's position as written."""
    targets: tuple[Position, ...]
    """The built-in positions it took over, with its words and numbers (empty: none)."""
    lines: tuple[str, ...]
    """What was compiled, one line per check, for `playbook validate --explain`."""


_STOP = frozenset(
    [
        "of",
        "the",
        "and",
        "or",
        "a",
        "an",
        "to",
        "in",
        "on",
        "for",
        "by",
        "with",
        "any",
        "our",
        "we",
        "us",
        "its",
        "their",
        "other",
        "party",
        "parties",
        "each",
        "either",
        "no",
        "not",
        "at",
        "be",
        "is",
        "are",
        "as",
        "from",
        "this",
        "that",
        "than",
    ]
)
_PART = re.compile(r"[;；。\n]|\.\s")


def _stems(text: str) -> set[str]:
    """Content words, cut to a common stem ('indemnify', 'indemnity' → 'indemni')."""
    words = re.findall(r"[a-z]+|[\u4e00-\u9fff]{2,}", text.lower())
    return {w[:7] if len(w) > 7 else w.rstrip("s") for w in words if w not in _STOP and len(w) > 2}


def _patterns_hit(position: Position, text: str) -> bool:
    return any(re.search(p, text, re.IGNORECASE) for c in position.checks for p in c.patterns)


def _about(plain: Position, built_in: Position) -> bool:
    """Whether the plain position speaks of the built-in one's term: every word of its topic
    in the row's topic and keywords; or the row's topic is mostly the topic the built-in one
    is recognised by ('Limitation of liability'); or half its topic's words and its own term
    patterns in the row's text."""
    named = _stems(built_in.topic)
    if not named:
        return False
    said = _stems(" ".join([plain.topic, plain.title, *_keywords(plain)]))
    if named <= said:
        return True
    topic = _stems(plain.topic)
    for recognised in built_in.recognise.topics if built_in.recognise else []:
        words = _stems(recognised.replace("_", " "))
        if words and len(words & topic) / len(words | topic) > 0.5:
            return True
    text = " ".join(_words(w) for w in (plain.standard, plain.fallback))
    return len(named & said) / len(named) >= 0.5 and _patterns_hit(built_in, text)


def _keywords(position: Position) -> list[str]:
    return list(position.recognise.keywords) if position.recognise else []


def _number(check: NumberCheck, text: str, topic: str) -> float | None:
    """The check's number in the part of `text` about its term: the one its patterns find,
    else the one naming its `topic`, else the only part."""
    parts = [p.strip() for p in _PART.split(text) if p.strip()]
    about = [p for p in parts if any(re.search(x, p, re.IGNORECASE) for x in check.patterns)]
    if not about:
        about = [p for p in parts if _stems(p) & _stems(topic)]
    if not about and len(parts) == 1:
        about = parts
    measure = MEASURES.get(check.measure) or MEASURES["percent"]  # share_of_price: a percentage
    for part in about:
        value = measure(part)
        if value is not None:
            return value
    return None


def _ordered(worse: str, standard: float, fallback: float, walk_away: float) -> bool:
    """Whether the tiers run the check's way: each worse for the bearer than the one before."""
    if worse == "higher":
        return standard <= fallback <= walk_away
    return standard >= fallback >= walk_away


def _tiers(check: NumberCheck, plain: Position, topic: str) -> tuple[NumberCheck, str]:
    """The check with the lawyer's numbers as tiers where they fit, and what was done: both
    numbers, else the standard alone, else the fallback alone, as long as the tiers still run
    the check's way (each worse for the bearer than the one before)."""
    given = {
        "standard": _number(check, _words(plain.standard), topic),
        "fallback": _number(check, _words(plain.fallback), topic),
    }
    if all(v is None for v in given.values()):
        return check, f"{check.measure}: no number given; built-in tiers kept"
    built = {"standard": check.standard, "fallback": check.fallback, "walk_away": check.walk_away}
    for use in (("standard", "fallback"), ("standard",), ("fallback",)):
        tiers = dict(built)
        for name in use:
            value = given[name]
            if value is None:
                break
            tiers[name] = value
        else:
            if "fallback" not in use and not _ordered(check.worse, **tiers):
                tiers["fallback"] = tiers["standard"]  # nothing of ours between the two
            if _ordered(check.worse, **tiers):
                done = check.model_copy(update=tiers)
                said = ", ".join(f"{n} {tiers[n]:g} (built in {built[n]:g})" for n in use)
                return done, f"{check.measure}: {said}, walk-away {done.walk_away:g}"
    return check, f"{check.measure}: your numbers run the other way; built-in tiers kept"


def _words(wording: Wording | None) -> str:
    return wording.text() if wording is not None else ""


def _compiled(plain: Position, built_in: Position) -> tuple[Position, list[str]]:
    checks: list[PartyCheck | NumberCheck] = []
    lines = []
    for check in built_in.checks:
        if isinstance(check, NumberCheck):
            done, line = _tiers(check, plain, built_in.topic)
            checks.append(done)
            lines.append(f"  {built_in.id}: {line}")
        else:
            checks.append(check)
            who = "the other side holds the right" if check.kind == "their_right" else "we bear it"
            line = f"  {built_in.id}: one-sided when {who} alone"
            if line not in lines:
                lines.append(line)
    clauses = plain.recognise.clauses if plain.recognise else []
    recognise = built_in.recognise or Recognition()
    if clauses:
        recognise = recognise.model_copy(
            update={"clauses": list(dict.fromkeys([*recognise.clauses, *clauses]))}
        )
    update = {
        "checks": checks,
        "standard": plain.standard,
        "fallback": plain.fallback or built_in.fallback,
        "rationale": plain.rationale or built_in.rationale,
        "severity": plain.severity,
        "recognise": recognise,
        "source": plain.source or built_in.source,
    }
    return built_in.model_copy(update=update), lines


def compile_plain(user: Sequence[Position], built_in: Sequence[Position]) -> list[Compiled]:
    """Each of the `user` positions written in words only (no checks, an id of its own), with
    the built-in positions it compiles into. A built-in position goes to the first row about
    it."""
    own = {p.id for p in built_in}
    taken: set[str] = set()
    out = []
    for plain in user:
        if plain.checks or plain.id in own:
            continue
        targets, lines = [], []
        for candidate in built_in:
            if not candidate.checks or candidate.id in taken or not _about(plain, candidate):
                continue
            taken.add(candidate.id)
            position, said = _compiled(plain, candidate)
            targets.append(position)
            lines += said
        out.append(Compiled(plain, tuple(targets), tuple(lines)))
    return out


def compiled_positions(user: Sequence[Position], built_in: Sequence[Position]) -> list[Position]:
    """The `user` positions to merge over `built_in`: a plain one replaced by what it compiles
    into (kept as written when that is nothing)."""
    compiled = {c.source.id: c for c in compile_plain(user, built_in)}
    out: list[Position] = []
    for position in user:
        done = compiled.get(position.id)
        out += list(done.targets) if done is not None and done.targets else [position]
    return out
