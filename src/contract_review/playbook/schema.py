"""The playbook format: positions a lawyer can read, edit and validate.

A **position** says what our client wants on one point — a topic ("Cap on Liability") or a
sub-clause of a standard form ("20.1") — in our own words: the standard we want, the fallback
we accept without escalating, what we never accept (walk-away), why it matters, and the
redline language that moves a clause toward the standard. A **playbook** is a domain's list of
positions. Built-in playbooks ship with each domain plugin (`plugins/<domain>/playbook.yaml`);
users load their own with `--criteria`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from contract_review.models import BaselinePosition
from contract_review.text import LEADING_NUMBER, SEGMENT_END

__all__ = [
    "ANY_GROUND",
    "BREADTH",
    "Check",
    "Level",
    "NumberCheck",
    "PartyCheck",
    "Playbook",
    "Position",
    "Presence",
    "Recognition",
    "Remembered",
    "Wording",
    "any_of",
    "applicable",
    "merge_positions",
]

Level = Literal["low", "medium", "high"]
"""How much a departure from the position weighs."""

_ID = re.compile(r"^[A-Za-z0-9_.:\-]+$")


def _regexes(patterns: list[str]) -> list[str]:
    """`patterns`, checked to be regular expressions that also combine into one (`any_of`)."""
    try:
        any_of(tuple(patterns))
    except re.error as combined:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"not a regular expression: {pattern!r} ({exc})") from None
        raise ValueError(f"the patterns do not combine into one expression ({combined})") from None
    return patterns


@lru_cache(maxsize=1024)
def any_of(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """The patterns as one case-insensitive regular expression: a text is scanned once, not
    once per pattern; compiled once (validation and use share it)."""
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Wording(_Strict):
    """One text in English and/or Chinese (at least one)."""

    en: str = Field("", description="English.")
    zh: str = Field("", description="Chinese.")

    @model_validator(mode="after")
    def _not_empty(self) -> Wording:
        if not self.en.strip() and not self.zh.strip():
            raise ValueError("give the text in English (en) or Chinese (zh)")
        return self

    def text(self, language: str = "en") -> str:
        """The text in `language` ('en' or 'zh…'), else in the other language."""
        first, second = (self.zh, self.en) if language.startswith("zh") else (self.en, self.zh)
        return first or second


class Recognition(_Strict):
    """How a clause on the position's point is recognised."""

    topics: list[str] = Field(
        default_factory=list,
        description="Topic ids of the domain's topic recogniser ('limitation_of_liability').",
    )
    clauses: list[str] = Field(
        default_factory=list, description="Clause numbers of a standard form ('20.1')."
    )
    titles: list[str] = Field(
        default_factory=list, description="Regular expressions matched against clause titles."
    )
    keywords: list[str] = Field(
        default_factory=list,
        description="Words that find the position's clauses in their text (a plain playbook's "
        "keywords), matched case-insensitively.",
    )

    @field_validator("titles")
    @classmethod
    def _check_titles(cls, titles: list[str]) -> list[str]:
        return _regexes(titles)


BREADTH = (
    r"\bfor any reason\b|\bat any time\b|\bwithout (?:prior |any )?(?:written )?notice\b"
    r"|\bwithout (?:cause|reason|liability)\b|\b(?:sole|absolute|unfettered) discretion\b"
    r"|\bregardless of\b|\bwhether or not\b|\bhowsoever\b|\bperpetual\b|\birrevocabl"
    r"|\bimmediately\b|\bfor any purpose\b|\bunlimited\b"
    r"|\bin (?:all|every|any) circumstances?\b|\bunder any circumstances\b|\bfor whatever reason\b"
    r"|\beven (?:if|where|when|though)\b|\bwhatsoever\b|\bnon-?cancell?able\b"
    r"|\bnot (?:be )?subject to any (?:\w+ )?(?:limit|limitation|cap)\b|\bwithout limit\b"
    r"|任何时候|随时|无需|任何原因|无论|不论|永久|不可撤销|立即|不承担任何责任|不设上限"
    r"|任何情况|何种原因|任何(?:一次)?违约(?:情形|行为)"
    r"|\bany (?:breach|default)\b[^.;]{0,20}\bhowever (?:minor|trivial)"
)
"""Words that make a one-sided term worse — any reason, any time, no notice, sole
discretion, regardless of fault, perpetual, irrevocable (English and Chinese)."""


ANY_GROUND = "any_reason"
"""The kind of term that covers every other (`PartyCheck.grounds`): a right to terminate for
any reason balances a right to terminate for breach."""


class PartyCheck(_Strict):
    """A one-sided term, judged from our side: a right only the other side holds
    (`their_right`: they may terminate for convenience, amend by notice, suspend, assign…), or
    a duty only we bear (`our_duty`: we indemnify regardless of fault, we buy exclusively…).
    The same term held or borne by both sides is balanced; the mirror image favours us."""

    kind: Literal["their_right", "our_duty"] = Field(description="What makes it one-sided.")
    patterns: list[str] = Field(
        min_length=1, description="Regular expressions (case-insensitive) for the term, EN/ZH."
    )
    vocab: list[str] = Field(
        default_factory=list,
        description="Lower-case substrings one of which a sentence must contain before the "
        "patterns are tried (a fast pre-filter, as in the topic catalogue); empty: always tried.",
    )
    level: Level = Field("medium", description="Risk when the term is one-sided against us.")
    breadth_level: Level = Field(
        "high", description="Risk when it is also broad (any time, any reason, no notice…)."
    )
    holder_near: str | None = Field(
        None,
        description="Where the term names its holder when no party acts in it: a regular "
        "expression whose match the holder's name is next to ('vest in', '归', \"'s domicile\", "
        "'所在地').",
    )
    holder_side: Literal["after", "before", "either"] = Field(
        "after",
        description="Whether the holder is named just after or just before that match "
        "('either': after, else before — '视为甲方确认', '出借人收到通知即视为同意').",
    )
    subject_after: str | None = Field(
        None,
        description="Where the term names what it is about: a regular expression ('as to', "
        "'关于') after which, within a few words, our own name marks our own property ('makes "
        "no representation as to the King Trademarks', acting for King): a disclaimer of what "
        "is ours is no term against us.",
    )
    fair_from_days: float | None = Field(
        None,
        description="The term is fair when the sentence's period is at least this many days "
        "(deemed acceptance after 15 working days is market; after 48 hours it is not).",
    )
    only_if_caused_by_other: bool = Field(
        False,
        description="The term is one-sided only when the sentence puts the cause on the other "
        "party (an indemnity 'including losses caused by the negligence of the Supplier').",
    )
    owner: Literal["actor", "payer", "payee"] = Field(
        "actor",
        description="Whose term it is when `holder_near` names nobody: the party acting in the "
        "sentence ('actor'), or always the contract's payer or payee (a deposit is the payer's, "
        "whoever the sentence says may keep it).",
    )
    fair_if_caused_by_other: bool = Field(
        False,
        description="The term is not one-sided when the sentence puts its cause on the other "
        "party ('因甲方原因造成的延误，乙方不承担责任', 'not liable for delay caused by the "
        "Customer's failure'): an excuse for the other's own fault is fair.",
    )
    fair_if: str | None = Field(
        None,
        description="A pattern whose presence in the sentence makes the term fair as written: "
        "a qualifier the standard itself allows ('set off amounts agreed in writing or finally "
        "determined', '经双方书面确认的款项').",
    )
    beneficiary_near: str | None = Field(
        None,
        description="Where the term names the party it benefits, just before or after a match "
        "of this regular expression ('the Lessor may keep', '托运人有权没收', '由乙方没收'): the "
        "term then burdens the other side. Tried before `holder_near`.",
    )
    holder_at_seat: bool = Field(
        False,
        description="The holder is the party whose address (preamble or definitions) names "
        "a place the sentence names ('the courts of Munich' for a party seated in Munich): a "
        "forum at one side's home.",
    )
    mirror: Literal["sentence", "document"] = Field(
        "sentence",
        description="Where the other side's version of the term is looked for: in the same "
        "sentence ('Either party may…'), or anywhere in the contract ('document': an indemnity "
        "only we give, a termination right only they hold, is one-sided only when the contract "
        "gives the other side the same term nowhere).",
    )
    grounds: dict[str, str] = Field(
        default_factory=dict,
        description="With `mirror: document`: the kinds of the term, each a regular expression "
        "(a termination right for breach, for insolvency, for convenience); the other side's "
        "version balances the term only when it is of the same kind (a mutual right to end the "
        "contract on one narrow event does not balance their right to end it for any breach). "
        "A sentence matching none is of its own, unnamed kind. The kind named 'any_reason' "
        "(a right held for any reason or none) balances every kind.",
    )
    balanced_by_any: list[str] = Field(
        default_factory=list,
        description="With `grounds`: kinds of the term that any version the other side holds "
        "balances, whatever its kind (an indemnity against infringement, which the party "
        "delivering gives as market practice, against any indemnity the other side gives).",
    )
    unnamed: Literal["payer", "payee"] | None = Field(
        None,
        description="Who holds the term when the sentence names no party: the contract's payer "
        "or the party paid (an automatic price increase is the payee's); none: no judgement.",
    )
    period_ratio: float | None = Field(
        None,
        description="Judge the term by its period against the other side's version of it "
        "anywhere in the contract (a right to terminate for breach once a cure period has "
        "run): against us when the period we must wait before acting is at least this many "
        "times the other side's, or our time to put a breach right is that much shorter.",
    )
    holder_must_be: Literal["anyone", "payee"] = Field(
        "anyone",
        description="'payee': the term is one-sided only when held by the party being paid "
        "(results of work we pay for owned by the one we pay); the payer holding it is "
        "market standard.",
    )

    @field_validator("patterns")
    @classmethod
    def _check_patterns(cls, patterns: list[str]) -> list[str]:
        return _regexes(patterns)

    @field_validator("grounds")
    @classmethod
    def _check_grounds(cls, grounds: dict[str, str]) -> dict[str, str]:
        _regexes(list(grounds.values()))
        return grounds

    @field_validator("holder_near", "beneficiary_near")
    @classmethod
    def _check_holder(cls, pattern: str | None) -> str | None:
        return _regexes([pattern])[0] if pattern is not None else None


class NumberCheck(_Strict):
    """A number in a term, measured against the position's tiers: a late-payment rate per year,
    a period in days, a cap in months of fees. The term hurts us when `bearer` bears it —
    `us` (we pay the interest, we must give the notice) or `them` (it is their liability that
    the low cap limits). Within `standard`: no risk; within `fallback`: low; beyond it: medium;
    beyond `walk_away`: high."""

    kind: Literal["number"] = Field(description="A measured number.")
    patterns: list[str] = Field(
        min_length=1, description="Regular expressions (case-insensitive) for the term, EN/ZH."
    )
    vocab: list[str] = Field(
        default_factory=list,
        description="Lower-case substrings one of which a sentence must contain before the "
        "patterns are tried (a fast pre-filter, as in the topic catalogue); empty: always tried.",
    )
    measure: Literal["annual_rate", "days", "months_of_fees", "share_of_price", "percent"] = Field(
        description="What the number is: % a year (per day/month rates annualised), days, "
        "months of fees, an amount as % of the contract price, or a plain % of what the "
        "sentence names ('6% of the amount prepaid', '300% of the daily rent', 'twice')."
    )
    worse: Literal["higher", "lower"] = Field(description="Which way hurts the bearer.")
    bearer: Literal["us", "them"] = Field("us", description="Whom the term must burden to hurt us.")
    unnamed: Literal["payer", "payee"] | None = Field(
        None,
        description="Whose term it is when the sentence names no party: the contract's payer "
        "(interest on late payment) or the party paid (its warranty period); none: no "
        "judgement.",
    )
    standard: float = Field(description="Acceptable without comment up to (or from) this value.")
    fallback: float = Field(description="Acceptable with a low risk up to (or from) this value.")
    walk_away: float = Field(description="Beyond this value the risk is high.")

    @field_validator("patterns")
    @classmethod
    def _check_patterns(cls, patterns: list[str]) -> list[str]:
        return _regexes(patterns)

    def level(self, value: float) -> Level | None:
        """The risk of `value` for the bearer: None within the standard."""
        sign = 1.0 if self.worse == "higher" else -1.0
        if sign * value <= sign * self.standard:
            return None
        if sign * value <= sign * self.fallback:
            return "low"
        return "high" if sign * value > sign * self.walk_away else "medium"


Check = Annotated[PartyCheck | NumberCheck, Field(discriminator="kind")]
"""A deterministic check of a position."""


class Presence(_Strict):
    """How a protection is found for our side, not just on the page: a cap on the other side's
    liability alone, or a warranty only we give, leaves us without one."""

    holder: Literal["us", "them"] = Field(
        description="The side whose term protects us: 'us' for a limit on our own liability, "
        "'them' for a warranty or an indemnity the other side gives. A term both sides hold "
        "('each party's liability') counts, and so does one naming no party."
    )
    check: PartyCheck = Field(
        description="The sentences that state the term and how their holder is read (its "
        "`kind`, `patterns`, `unnamed`); the rest of the check is not used."
    )
    absent: Wording = Field(
        description="The finding when the contract deals with the point for the other side "
        "only; '{us}' and '{them}' stand for the parties' words."
    )
    whatever_role: bool = Field(
        False,
        description="The protection is owed to both sides alike: given to the other side "
        "alone, it is missing for us whatever our role — a customer whose supplier alone has "
        "a cap — even where `protects` would not ask for it.",
    )


class Remembered(_Strict):
    """A lawyer's decision on a redline, kept as part of a position (decisions that teach):
    where it was given and what it said."""

    task_id: str = Field(description="The review it was decided in.")
    clause_id: str = Field(description="The clause of that review.")
    decision: Literal["edit", "reject", "accept"] = Field(
        description="'edit': their wording replaced ours; 'reject': refused, with feedback; "
        "'accept': the contract's wording accepted as it stands (a rejection whose feedback "
        "accepts it, or the original kept as the approved wording)."
    )
    reviewer: str = Field("", description="Who decided.")
    decided_at: str = Field("", description="When (ISO 8601, UTC).")
    original_text: str = Field("", description="The contract's words the redline was on.")
    wording: str = Field("", description="Their wording (an edit), as given.")
    feedback: str = Field("", description="Their feedback, as given.")


class Position(_Strict):
    """What we want on one point, in tiers, with the reasons and the language to ask for it."""

    id: str = Field(description="Unique id within the playbook ('liability_cap', '20.1').")
    topic: str = Field(
        description="The point, e.g. a CUAD category name ('Cap on Liability'): what the position "
        "is looked up and recognised by. In a file also `{en: …, zh: …}` (see `title`)."
    )
    topic_zh: str = Field("", description="The topic in Chinese, for display ('责任上限').")
    title: str = Field(
        "",
        description="Short English title; defaults to the topic. In a file also `{en: …, zh: …}`, "
        "read as `title` and `title_zh`.",
    )
    title_zh: str = Field("", description="Short Chinese title; defaults to `topic_zh`.")
    recognise: Recognition = Field(
        default_factory=Recognition, description="How a clause on this point is recognised."
    )
    subtypes: list[str] = Field(
        default_factory=list, description="Contract subtypes it applies to; empty = all."
    )
    standard: Wording = Field(description="The position we want, in our own words.")
    fallback: Wording | None = Field(None, description="What we accept without escalating.")
    walk_away: Wording | None = Field(None, description="What we never accept.")
    severity: Level = Field("medium", description="Weight of a departure from the position.")
    rationale: Wording | None = Field(None, description="Why it matters, for the lawyer.")
    redline: Wording | None = Field(
        None, description="Language that moves a clause toward the standard."
    )
    checks: list[Check] = Field(
        default_factory=list, description="Deterministic checks of a clause against the position."
    )
    clause: Wording | None = Field(
        None,
        description="Our standard clause in words a contract can take, proposed as a new clause "
        "when the contract lacks the protection (`missing`). A line per paragraph; "
        "'{contract}' / '{Contract}' stand for the contract's name for itself ('this "
        "Agreement'), '{them}' for the other side, '{each}' / '{Each}' for 'each party' (our "
        "party alone where the other side already has the protection); a blank ([●]) is left "
        "for the lawyer.",
    )
    missing: Level | None = Field(
        None,
        description="Risk when the contract has no clause on this point at all (none: its "
        "absence is no finding).",
    )
    protects: list[str] = Field(
        default_factory=list,
        description="Party roles a clause on this point protects ('supplier', 'buyer' …); its "
        "absence is a finding for them only. Empty: both sides.",
    )
    protects_all_in_kinds: list[str] = Field(
        default_factory=list,
        description="Contract kinds in which the point protects every party, whatever `protects` "
        "says ('collaboration': both sides perform, so both want a cap) — asked for when our "
        "party's role cannot be read.",
    )
    present: Presence | None = Field(
        None,
        description="With `missing`: the protection is there for us only where the contract "
        "gives it to our side (`Presence`); a clause on the point that protects the other side "
        "alone is then a finding too. None: any clause on the point will do.",
    )
    missing_cross_border: bool = Field(
        False,
        description="Its absence is a finding only between parties of different countries: a "
        "contract between two Chinese companies in Chinese is governed by Chinese law without a "
        "clause saying so.",
    )
    except_kinds: list[str] = Field(
        default_factory=list,
        description="Contract kinds (ids of analysis/kinds.yaml) where the position's checks "
        "do not apply: what it calls one-sided is that kind's market standard (an employer "
        "indemnifies its officers; the officer gives nothing back).",
    )
    missing_except_kinds: list[str] = Field(
        default_factory=list,
        description="Contract kinds (ids of analysis/kinds.yaml) where its absence is no "
        "finding: a lease or a loan simply ends at its term, so no 'termination' clause is "
        "missing there.",
    )
    fix: Literal["mutual", "delete", "tiers", "cap", "forum", "consent"] | None = Field(
        None,
        description="How a redline moves a one-sided clause toward the standard: 'mutual' (the "
        "other side's right becomes either party's), 'delete' (the term is struck), 'tiers' "
        "(the number set to the standard; the default for number checks), 'cap' (unlimited "
        "liability capped with the `redline` wording), 'forum' (the other side's home courts "
        "become the defendant's), 'consent' (a transfer made subject to the other party's "
        "consent, else made mutual); none: the general drafting rules.",
    )
    catch_all: bool = Field(
        False,
        description="A general position (unbounded discretion, open-ended duty…) that judges a "
        "sentence only when no specific position has: one finding per term, the specific one.",
    )
    source: str = Field("", description="Where the position comes from (facts, not wording).")
    remembered: Remembered | None = Field(
        None,
        description="The lawyer's decision this position was amended from: their wording is "
        "the redline language, their feedback the rationale.",
    )

    @model_validator(mode="before")
    @classmethod
    def _names_in_two_languages(cls, data: Any) -> Any:
        """`topic` and `title` given as `{en: …, zh: …}` (or a `Wording`) become the English
        field and its `_zh` field: one representation, whichever way the file writes it."""
        if not isinstance(data, dict):
            return data
        for name in ("topic", "title"):
            value = data.get(name)
            if isinstance(value, Wording):
                value = value.model_dump()
            if not isinstance(value, dict):
                continue
            try:
                wording = Wording.model_validate(value)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in (name, *first["loc"]))
                message = str(first["msg"]).removeprefix("Value error, ")
                raise ValueError(f"{where}: {message}") from None
            zh_name = f"{name}_zh"
            given = data.get(zh_name)
            if given and wording.zh and given != wording.zh:
                raise ValueError(f"{name}: the Chinese is given twice ({name}.zh and {zh_name})")
            english = wording.en or (wording.zh if name == "topic" else "")
            data = {**data, name: english, zh_name: wording.zh or given or ""}
        return data

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError("use letters, digits and _ . : - only")
        return value

    def accepts(self, text: str) -> bool:
        """Whether the lawyer accepted this wording before: `text` holds the contract's words
        a remembered acceptance was given on (spacing aside)."""
        r = self.remembered
        if r is None or r.decision != "accept" or not r.original_text.strip():
            return False
        return " ".join(r.original_text.split()) in " ".join(text.split())

    def title_text(self, language: str = "en") -> str:
        """The title to show in `language` ('en' or 'zh…'): the title in that language, else
        the topic in it, else the title or topic in the other language."""
        zh = self.title_zh or self.topic_zh
        en = self.title or self.topic
        first, second = (zh, en) if language.startswith("zh") else (en, zh)
        return first or second

    def topic_text(self, language: str = "en") -> str:
        """The topic to show in `language` ('en' or 'zh…'), else in the other language."""
        if language.startswith("zh"):
            return self.topic_zh or self.topic
        return self.topic or self.topic_zh

    @property
    def key(self) -> str:
        """What the position is looked up by: its first clause number, else its topic."""
        return self.recognise.clauses[0] if self.recognise.clauses else self.topic

    def applies_to(self, text: str, title: str = "", topics: Sequence[str] = ()) -> bool:
        """Whether a clause with this text, title and detected topics is on the position's
        point: one of its topics, a title pattern, or a check's pattern matching the text."""
        mine = (self.topic.casefold(), *(t.casefold() for t in self.recognise.topics))
        if any(t.casefold() in mine for t in topics):
            return True
        if title and self.recognise.titles and any_of(tuple(self.recognise.titles)).search(title):
            return True
        if any(any_of(tuple(c.patterns)).search(text) for c in self.checks):
            return True
        # a pattern anchored on its sentence's start ('^(?!… force majeure)…') is tried on each
        # sentence, not only on the clause's first
        anchored = tuple(p for c in self.checks for p in c.patterns if p.startswith("^"))
        if not anchored:
            return False
        pattern = any_of(anchored)
        return any(
            pattern.search(LEADING_NUMBER.sub("", part.strip(), count=1))
            for part in SEGMENT_END.split(text)
        )

    def as_baseline(self) -> BaselinePosition:
        """The position as the baseline a clause is compared with."""
        return BaselinePosition(
            key=self.key,
            title=self.title or self.topic,
            text=self.standard.text("en"),
            subtypes=list(self.subtypes),
            source=self.source,
        )


def applicable(
    positions: list[Position], text: str, title: str = "", topics: Sequence[str] = ()
) -> list[Position]:
    """The positions on a clause's points; catch-all positions only when no specific one
    applies (the agent is asked about the specific point, as the checks judge it)."""
    on = [p for p in positions if p.applies_to(text, title, topics)]
    specific = [p for p in on if not p.catch_all]
    return specific or on


class Playbook(_Strict):
    """A domain's positions."""

    domain: str = Field(description="Domain id ('generic', 'fidic', 'sha_spa') or '*'.")
    name: str = Field("", description="What the playbook is, for a person.")
    positions: list[Position] = Field(description="The positions, in review order.")

    @model_validator(mode="after")
    def _unique_ids(self) -> Playbook:
        seen: set[str] = set()
        for position in self.positions:
            if position.id in seen:
                raise ValueError(f"position id {position.id!r} is used twice")
            seen.add(position.id)
        return self

    def topic_text(self, topic: str, language: str = "en") -> str:
        """How to show `topic` (a position's or a checklist's topic) in `language` ('en' or
        'zh…'): in Chinese, the `topic_zh` of the first position on it that has one."""
        if language.startswith("zh"):
            for position in self.positions:
                if position.topic == topic and position.topic_zh:
                    return position.topic_zh
        return topic

    def baselines(self) -> list[BaselinePosition]:
        """The positions a clause's wording is compared with, in order (positions judged by
        their checks are not wording baselines)."""
        return [p.as_baseline() for p in self.positions if not p.checks]


def merge_positions(built_in: list[Position], user: list[Position]) -> list[Position]:
    """`built_in` with each of the `user` positions replacing the one of the same id (in its
    place) or, for a new id, added at the end: a lawyer's playbook overrides ours."""
    by_id = {p.id: p for p in user}
    merged = [by_id.pop(p.id, p) for p in built_in]
    return merged + [p for p in user if p.id in by_id]
