"""sha_governance_check: board, vetoes, quorum, deadlock and share-transfer rights of an SHA.

Sentence by sentence (English and Chinese): board size and who appoints how many directors,
observers or the chair; reserved matters (the items of a clause that needs a party's consent,
with the holder of the veto and their topics); quorum; deadlock and casting vote; pre-emption;
right of first refusal or offer; tag-along and drag-along (threshold, minimum price); lock-up;
good and bad leaver. Then the imbalances against our party — normally the minority investor
against the founder or majority — as coded gaps. Gaps of absence only with scope 'document'.
"""

from __future__ import annotations

import itertools
import re

from pydantic import BaseModel, Field

from contract_review.models import ClauseNode
from contract_review.parties import PartyRoles
from contract_review.skills.risks import Say
from contract_review.skills.state import input_preparer
from contract_review.text.numerals import chinese_to_int, english_words_to_int

from ._common import (
    Gap,
    Locator,
    Quote,
    Scope,
    ScopedInput,
    ScopedOutput,
    Sentence,
    SideOrNone,
    financial,
    months_of,
    our_roles,
    own_text,
    say_for,
    scoped_output,
    scoped_registration,
    sides_in,
    units,
)

SKILL_ID = "sha_governance_check"


class GovernanceInput(ScopedInput):
    """Input of sha_governance_check."""


class Appointment(BaseModel):
    """A right to appoint board members."""

    text: Quote = Field(description="The sentence, verbatim.")
    side: SideOrNone = Field(description="Who appoints: us, them, both, other, unspecified.")
    party: str = Field(description="The party word as written.")
    role: str = Field(description="director, observer or chair.")
    seats: int | None = Field(None, description="Number of seats, if stated.")


class ReservedMatters(BaseModel):
    """Matters needing a party's consent (a veto)."""

    text: Quote = Field(description="The lead sentence, verbatim.")
    holders: list[SideOrNone] = Field(description="Whose consent is needed.")
    matters: list[str] = Field(description="The matters, verbatim.")
    topics: list[str] = Field(description="Topics covered: issuance, articles, liquidation...")


class Right(BaseModel):
    """A shareholder right (pre-emption, ROFR, tag, drag, lock-up, leaver...)."""

    kind: str = Field(
        description="preemption, rofr, rofo, tag_along, drag_along, lock_up, leaver, quorum, deadlock."
    )
    text: Quote = Field(description="The sentence, verbatim.")
    holders: list[SideOrNone] = Field(description="Who holds the right (or is bound, for lock-up).")
    negated: bool = Field(False, description="Whether the sentence denies the right.")
    threshold_percent: float | None = Field(None, description="Percentage threshold, if any.")
    months: float | None = Field(None, description="Period in months, if any.")
    minimum_price: bool | None = Field(
        None, description="Drag-along: whether a floor price is set."
    )
    detail: str | None = Field(None, description="Casting vote, good/bad leaver... as written.")


class GovernanceOutput(ScopedOutput):
    """Output of sha_governance_check."""

    board_size: int | None = Field(description="Number of directors, if stated.")
    appointments: list[Appointment] = Field(description="Board appointment rights.")
    reserved_matters: list[ReservedMatters] = Field(description="Vetoes and reserved matters.")
    rights: list[Right] = Field(description="Other governance and transfer rights.")


DESCRIPTION = (
    "Check the governance and transfer terms of a shareholders' agreement (English or "
    "Chinese): board size and appointment rights (directors, observers, chair), reserved "
    "matters and vetoes (holder, topics), quorum, deadlock and casting vote, pre-emption, "
    "ROFR/ROFO, tag-along and drag-along (threshold, minimum price), lock-up, good/bad leaver. "
    "Gaps against our party (normally the minority investor): no_board_seat_for_us, "
    "no_veto_for_us, no_veto_new_issuance, quorum_without_us, casting_vote_other_side, "
    "drag_threshold_low, drag_no_minimum_price, no_tag_along_for_us, no_preemption_for_us, "
    "lock_up_binds_only_us, no_founder_lock_up, no_leaver_terms. Arguments: clause_id, scope "
    "('clause' or 'document'), our_party (optional)."
)


_I = re.IGNORECASE
_BOARD_SIZE = re.compile(
    r"board\s+(?:of\s+directors\s+)?(?:shall\s+)?(?:consist|comprise)s?\s+of\s+(?P<en>[\w-]+)"
    r"|董事会由(?P<zh>[一二三四五六七八九十两\d]+)\s*名董事组成",
    _I,
)
_APPOINT = re.compile(r"appoint|nominate|designate|委派|提名|任命|指派", _I)
_SEATS = re.compile(
    r"(?P<n>\d+|[一二三四五六七八九十两]+|one|two|three|four|five|six|seven|eight|nine|ten|an?)"
    r"\s*(?:\(\d+\)\s*)?(?:名|位)?\s*(?:non-executive\s+)?(?P<what>directors?|observers?|董事会观察员|观察员|董事)",
    _I,
)
_CHAIR = re.compile(r"chair(?:man|person)?|董事长", _I)
_SEGMENT = re.compile(r"[，；;]|,\s+and\s+")
_VETO_LEAD = re.compile(
    r"须经(?P<zh>[^，。；]{1,20}?)(?:书面|事先)*同意|(?:prior\s+)?(?:written\s+)?(?:consent|approval)\s+of"
    r"\s+(?:the\s+)?(?P<en>[A-Z][\w ]{1,30})|一票否决|\bveto\b|reserved\s+matters|保护性条款",
    _I,
)
_MATTER_TOPICS: list[tuple[str, re.Pattern[str]]] = [
    (
        "issuance",
        re.compile(
            r"增加注册资本|增资|发行|新股|新增注册资本|issu\w*\s+(?:of\s+)?(?:any\s+)?(?:new\s+)?shares|allot|share\s+capital",
            _I,
        ),
    ),
    ("articles", re.compile(r"章程|articles", _I)),
    ("liquidation", re.compile(r"解散|清算|破产|liquidat|wind(?:ing)?\s+up|dissol", _I)),
    ("business_change", re.compile(r"主营业务|nature\s+of\s+the\s+business", _I)),
    ("related_party", re.compile(r"关联|related\s+part", _I)),
    ("debt", re.compile(r"借款|担保|borrow|guarantee|indebtedness", _I)),
    ("dividend", re.compile(r"分红|利润分配|dividend", _I)),
    ("asset_sale", re.compile(r"出售[^，。]{0,10}资产|dispos", _I)),
    ("merger", re.compile(r"合并|分立|merger|amalgamat", _I)),
    ("budget", re.compile(r"预算|budget|business\s+plan", _I)),
]
_KINDS: list[tuple[str, re.Pattern[str]]] = [
    ("quorum", re.compile(r"quorum|法定人数", _I)),
    ("deadlock", re.compile(r"deadlock|僵局|casting\s+vote|决定票", _I)),
    ("preemption", re.compile(r"pre-?emption|pre-?emptive|优先认购", _I)),
    ("rofr", re.compile(r"right\s+of\s+first\s+refusal|\bROFR\b|优先购买权", _I)),
    ("rofo", re.compile(r"right\s+of\s+first\s+offer|\bROFO\b|优先协商", _I)),
    ("tag_along", re.compile(r"tag[\s-]?along|co-?sale|跟售|共同出售", _I)),
    ("drag_along", re.compile(r"drag[\s-]?along|领售|拖售|强制出售", _I)),
    ("lock_up", re.compile(r"lock[\s-]?up|限售期|锁定期", _I)),
    ("leaver", re.compile(r"good\s+leaver|bad\s+leaver|好离职|坏离职|离职", _I)),
]
_RIGHT_AFTER = re.compile(
    r"\s*(?:may|shall\s+(?:be\s+entitled|have\s+the\s+right)|(?:is|are)\s+entitled|ha(?:s|ve)\s+"
    r"(?:a|the)\s+right)|(?:均)?(?:有权|享有|可以|可)",
    _I,
)
_BOUND_AFTER = re.compile(r"\s*(?:shall\s+not|may\s+not|must\s+not)|(?:均)?不得", _I)
_NEGATED = re.compile(
    r"未赋予|不享有|无权|not\s+(?:be\s+)?entitled|no\s+right|shall\s+not\s+have", _I
)
_ALL = re.compile(
    r"each\s+(?:shareholder|party)|all\s+(?:the\s+)?shareholders|各(?:股东|方)|任何股东|其他股东",
    _I,
)
_MIN_PRICE = re.compile(
    r"不低于|最低价格|minimum\s+price|not\s+less\s+than|floor|at\s+least|保底|回报率|internal\s+rate",
    _I,
)
_MAJORITY = re.compile(
    r"过半数|半数以上|majority|三分之二|two[\s-]thirds|四分之三|three[\s-]quarters", _I
)
_OUR_CONSENT_WORDS = re.compile(
    r"须经(?:[^，。；]{0,10})同意|with\s+the\s+consent\s+of|approval\s+of", _I
)
_CASTING = re.compile(r"casting\s+vote|决定票|最终决定|deciding\s+vote", _I)


def _num(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    if word.lower() in ("a", "an"):
        return 1
    return english_words_to_int(word.lower()) if word.isascii() else chinese_to_int(word)


def _appointments(s: Sentence, roles: PartyRoles, loc: Locator) -> list[Appointment]:
    out: list[Appointment] = []
    pieces = [*_SEGMENT.finditer(s.text)]
    bounds = [0, *[m.end() for m in pieces], len(s.text)]
    for a, b in itertools.pairwise(bounds):
        seg = s.text[a:b]
        verb = _APPOINT.search(seg)
        if not verb:
            continue
        before = [h for h in sides_in(seg, roles) if h[0] < verb.start()]
        if not before:
            continue
        _, side, word = before[-1]
        seats = _SEATS.search(seg, verb.end())
        relative = seg[verb.end() : verb.end() + 1] == "的"
        if seats and not relative:
            what = seats.group("what").lower()
            role = "observer" if "observer" in what or "观察员" in what else "director"
            n = _num(seats.group("n")) or None
        elif _CHAIR.search(seg):
            role, n = "chair", 1
        else:
            continue
        out.append(
            Appointment(text=loc.quote(s.text, s.start), side=side, party=word, role=role, seats=n)
        )
    return out


def _holders(s: Sentence, roles: PartyRoles, rx: re.Pattern[str]) -> list[SideOrNone]:
    out: list[SideOrNone] = ["both"] if _ALL.search(s.text) else []
    for p, side, word in sides_in(s.text, roles):
        if rx.match(s.text, p + len(word)) and not (out and side == "other"):
            out.append(side)
    return list(dict.fromkeys(out))


def _veto_holders(s: Sentence, roles: PartyRoles) -> list[SideOrNone]:
    out: list[SideOrNone] = []
    for m in _VETO_LEAD.finditer(s.text):
        span = m.group("zh") or m.group("en")
        if span:
            out += [h[1] for h in sides_in(span, roles)]
    if not out:
        out += [h[1] for h in sides_in(s.text, roles)][:1]
    return list(dict.fromkeys(out))


def handle(inp: GovernanceInput) -> GovernanceOutput:
    """Extract the governance terms and the imbalances against our party."""
    structure = inp.document_structure
    roles = our_roles(inp, structure)
    loc = Locator(structure, inp.clause_id)
    board_size: int | None = None
    appointments: list[Appointment] = []
    reserved: list[ReservedMatters] = []
    rights: list[Right] = []
    nodes = {c.clause_id: c for c in structure.iter_clauses()} if structure else {}
    for unit in units(structure, inp.clause_id, inp.scope):
        for s in loc.sentences(unit):
            t = s.text
            m = _BOARD_SIZE.search(t)
            if m and board_size is None:
                board_size = _num(m.group("en") or m.group("zh") or "")
            if _APPOINT.search(t):
                appointments += _appointments(s, roles, loc)
            if _VETO_LEAD.search(t):
                node = nodes.get(loc.clause_at(s.start))
                items = _items(node)
                if items or re.search(r"一票否决|veto", t, _I):
                    topics = [n for n, rx in _MATTER_TOPICS if any(rx.search(i) for i in items)]
                    reserved.append(
                        ReservedMatters(
                            text=loc.quote(t, s.start),
                            holders=_veto_holders(s, roles),
                            matters=items,
                            topics=topics,
                        )
                    )
                    continue
            kind = next((k for k, rx in _KINDS if rx.search(t)), None)
            if kind is None:
                chain = loc.title_chain(loc.clause_at(s.start))
                kind = next((k for k, rx in _KINDS if chain and rx.search(chain)), None)
            if kind is not None:
                rights.append(_right(kind, s, roles, loc))
    chairs = [a.side for a in appointments if a.role == "chair"]
    for r in rights:
        if r.kind == "deadlock" and r.detail and _CHAIR.search(r.text.quote) and chairs:
            r.holders = chairs[-1:]
    found = _gaps(inp.scope, roles, appointments, reserved, rights, say_for(inp))
    gaps = list({g.key: g for g in reversed(found)}.values())[::-1]
    return GovernanceOutput(
        **scoped_output(inp, roles),
        board_size=board_size,
        appointments=appointments,
        reserved_matters=reserved,
        rights=rights,
        gaps=gaps,
    )


def _items(node: ClauseNode | None) -> list[str]:
    if node is None:
        return []
    if not node.children and node.parent_id is None:
        return []
    kids = node.children
    return [c.text.strip() for c in kids] if kids and own_text(node) else []


def _right(kind: str, s: Sentence, roles: PartyRoles, loc: Locator) -> Right:
    t = s.text
    terms = financial(t)
    pct = terms.percentages[0].value if terms.percentages else None
    if pct is None and kind == "drag_along" and _MAJORITY.search(t):
        pct = 50.0
    months = next(
        (months_of(p.value, p.unit) for p in terms.periods if p.unit in ("month", "year")), None
    )
    holders = _holders(s, roles, _BOUND_AFTER if kind == "lock_up" else _RIGHT_AFTER)
    detail: str | None = None
    if kind == "deadlock":
        cast = _CASTING.search(t)
        if cast:
            detail = cast.group(0)
            holders = [h[1] for h in sides_in(t, roles)][:1]
    if kind == "quorum":
        holders = [h[1] for h in sides_in(t, roles)]
    if kind == "drag_along":
        holders = [
            side
            for p, side, word in sides_in(t, roles)
            if side != "other" and _RIGHT_AFTER.match(t, p + len(word))
        ] or ["other"]
    if kind == "leaver":
        m = re.search(r"good\s+leaver|bad\s+leaver|好离职|坏离职", t, _I)
        detail = m.group(0) if m else None
    return Right(
        kind=kind,
        text=loc.quote(t, s.start),
        holders=list(dict.fromkeys(holders)),
        negated=bool(_NEGATED.search(t)),
        threshold_percent=pct,
        months=months,
        minimum_price=bool(_MIN_PRICE.search(t)) if kind == "drag_along" else None,
        detail=detail,
    )


def _g(code: str, sev: str, msg: str, ev: Quote | None = None, topic: str | None = None) -> Gap:
    return Gap.model_validate(
        {"code": code, "severity": sev, "message": msg, "evidence": ev, "topic": topic}
    )


_OURS = frozenset({"us", "both"})


def _gaps(
    scope: Scope,
    roles: PartyRoles,
    appointments: list[Appointment],
    reserved: list[ReservedMatters],
    rights: list[Right],
    say: Say,
) -> list[Gap]:
    """The governance gaps from our side: the investor's vetoes that bind us when we are the
    founder or the company; otherwise our board seat, vetoes and rights, and in a whole
    document the protections missing altogether."""
    if {"founder", "company"} & set(roles.our_roles):
        return _vetoes_over_us(reserved, say)
    by_kind: dict[str, list[Right]] = {}
    for r in rights:
        by_kind.setdefault(r.kind, []).append(r)
    our_vetoes = [r for r in reserved if set(r.holders) & _OURS]
    gaps = [*_board_and_vetoes(appointments, our_vetoes, say), *_rights_against_us(by_kind, say)]
    if scope == "document":
        gaps += _protections_missing(reserved, our_vetoes, by_kind, say)
    return gaps


def _vetoes_over_us(reserved: list[ReservedMatters], say: Say) -> list[Gap]:
    """Acting for the founder or the company: the investor's veto over new share issues."""
    return [
        _g(
            "minority_veto_over_issuance",
            "medium",
            say("The investor can block new share issues.", "投资方可否决新股发行。"),
            rm.text,
        )
        for rm in reserved
        if "them" in rm.holders and "issuance" in rm.topics
    ]


def _board_and_vetoes(
    appointments: list[Appointment], our_vetoes: list[ReservedMatters], say: Say
) -> list[Gap]:
    """No board seat of ours; vetoes of ours that leave new share issues out."""
    gaps: list[Gap] = []
    directors = [a for a in appointments if a.role == "director"]
    if directors and not any(a.side in _OURS for a in directors):
        gaps.append(
            _g(
                "no_board_seat_for_us",
                "high",
                say(
                    "Others appoint every director; we have no board seat (an observer has no "
                    "vote).",
                    "全部董事均由其他方委派，我方没有董事席位（观察员没有表决权）。",
                ),
                directors[0].text,
            )
        )
    if our_vetoes and not any("issuance" in r.topics for r in our_vetoes):
        gaps.append(
            _g(
                "no_veto_new_issuance",
                "high",
                say(
                    "Our vetoes do not cover new share issues: we can be diluted.",
                    "我方的否决权不涵盖新股发行，我方股权可能被稀释。",
                ),
                our_vetoes[0].text,
                "issuance",
            )
        )
    return gaps


def _rights_against_us(by_kind: dict[str, list[Right]], say: Say) -> list[Gap]:
    """Quorum, deadlock, drag-along and lock-up terms that work against us."""
    gaps: list[Gap] = []
    for r in by_kind.get("quorum", []):
        if r.holders and not set(r.holders) & _OURS:
            gaps.append(
                _g(
                    "quorum_without_us",
                    "medium",
                    say(
                        "A quorum can be formed without any director of ours.",
                        "即使我方委派的董事均未出席，董事会会议仍可达到法定人数。",
                    ),
                    r.text,
                )
            )
    for r in by_kind.get("deadlock", []):
        if r.detail and "them" in r.holders and not r.negated:
            gaps.append(
                _g(
                    "casting_vote_other_side",
                    "high",
                    say(
                        f"Deadlock is broken by a {r.detail} controlled by the other side.",
                        f"出现僵局时，由对方控制的“{r.detail}”打破僵局。",
                    ),
                    r.text,
                )
            )
    for r in by_kind.get("drag_along", []):
        if "us" in r.holders:
            continue
        if r.threshold_percent is not None and r.threshold_percent <= 50:
            gaps.append(
                _g(
                    "drag_threshold_low",
                    "high",
                    say(
                        f"Drag-along can be triggered by holders of {r.threshold_percent:g}% "
                        "without our consent.",
                        f"持股{r.threshold_percent:g}%的股东即可不经我方同意启动领售（拖售）。",
                    ),
                    r.text,
                )
            )
        if not r.minimum_price:
            gaps.append(
                _g(
                    "drag_no_minimum_price",
                    "high",
                    say(
                        "Drag-along sets no minimum price or return for us.",
                        "领售条款未为我方设定最低价格或最低回报。",
                    ),
                    r.text,
                )
            )
    for r in by_kind.get("lock_up", []):
        if "us" in r.holders and "them" not in r.holders:
            gaps.append(
                _g(
                    "lock_up_binds_only_us",
                    "medium",
                    say(
                        "The lock-up binds us but not the founder.",
                        "锁定期仅约束我方，不约束创始人。",
                    ),
                    r.text,
                )
            )
    return gaps


def _protections_missing(
    reserved: list[ReservedMatters],
    our_vetoes: list[ReservedMatters],
    by_kind: dict[str, list[Right]],
    say: Say,
) -> list[Gap]:
    """Across the whole document: no veto, tag-along, pre-emption, founder lock-up or leaver
    terms for us."""
    gaps: list[Gap] = []
    if reserved and not our_vetoes:
        gaps.append(
            _g(
                "no_veto_for_us",
                "high",
                say("No reserved matter needs our consent.", "所有保留事项均无需经我方同意。"),
                reserved[0].text,
            )
        )
    elif not reserved:
        gaps.append(
            _g(
                "no_veto_for_us",
                "high",
                say("No reserved matters or vetoes were found.", "未发现保留事项或否决权安排。"),
            )
        )
    tags = by_kind.get("tag_along", [])
    if not any(set(r.holders) & _OURS and not r.negated for r in tags):
        gaps.append(
            _g(
                "no_tag_along_for_us",
                "high",
                say(
                    "We cannot sell alongside the founder when control changes hands.",
                    "控制权变更时，我方无权随创始人共同出售股权。",
                ),
                tags[0].text if tags else None,
            )
        )
    pre = by_kind.get("preemption", [])
    if not any(set(r.holders) & _OURS for r in pre):
        gaps.append(
            _g(
                "no_preemption_for_us",
                "high",
                say(
                    "No pre-emption right protects us against dilution.",
                    "我方没有优先认购权，无法防止股权被稀释。",
                ),
            )
        )
    locks = by_kind.get("lock_up", [])
    if not any("them" in r.holders for r in locks):
        gaps.append(
            _g(
                "no_founder_lock_up",
                "medium",
                say("The founder is not locked up.", "创始人不受锁定期约束。"),
            )
        )
    if not by_kind.get("leaver"):
        gaps.append(
            _g(
                "no_leaver_terms",
                "medium",
                say(
                    "No good/bad leaver terms for the founder.",
                    "未就创始人约定好离职/坏离职条款。",
                ),
            )
        )
    return gaps


prepare_input = input_preparer(GovernanceInput)
"""Input for a clause of the primary document."""

REGISTRATION = scoped_registration(
    SKILL_ID,
    "SHA governance check",
    DESCRIPTION,
    (GovernanceInput, GovernanceOutput),
    handle,
    prepare_input,
    "analysis",
)
