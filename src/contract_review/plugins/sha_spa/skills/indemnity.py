"""spa_indemnity_analysis: limitations of the seller's liability and specific indemnities.

Sentence by sentence: the cap (absolute or as a percentage of the price), the basket (tipping
or deductible, with its threshold), the de minimis, the time limits for claims (in months, per
kind of claim), specific indemnities (with their topic and any defined matter they name),
exclusions and the fraud carve-out. Figures come from `extract_financial_terms`. Gaps compare
the terms with `MARKET_STANDARDS` from our party's side (buyer or seller).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from contract_review.models import DocumentStructure
from contract_review.skills.risks import Say
from contract_review.skills.state import input_preparer

from ._common import (
    Gap,
    Locator,
    Quote,
    Scope,
    ScopedInput,
    ScopedOutput,
    financial,
    months_of,
    our_roles,
    say_for,
    scoped_output,
    scoped_registration,
    topic_in,
    units,
)

SKILL_ID = "spa_indemnity_analysis"

MARKET_STANDARDS: dict[str, Any] = {
    "source": "market practice summary, our words (typical negotiated private-company share "
    "purchases; not any firm's or survey's wording)",
    "cap_percent_of_price": {"low": 10.0, "high": 30.0},
    "claims_period_months": {"low": 18.0, "high": 24.0, "buyer_target": 24.0},
    "tax_claims_period_months": {"low": 48.0, "high": 84.0},
    "basket_percent_of_price": {"low": 0.5, "high": 1.0},
    "de_minimis_percent_of_price": {"low": 0.05, "high": 0.1},
    "basket_type": {"buyer": "tipping", "seller": "deductible"},
}
"""Market-standard ranges for general warranty claims (percent of price, months)."""

BasketType = Literal["tipping", "deductible", "unspecified"]


class IndemnityInput(ScopedInput):
    """Input of spa_indemnity_analysis."""

    purchase_price: float | None = Field(
        None,
        ge=0,
        description="Price, to convert amounts to percentages; read from the "
        "definitions when not given.",
    )


class Cap(BaseModel):
    """A cap on liability."""

    text: Quote = Field(description="The cap sentence, verbatim.")
    percent_of_price: float | None = Field(None, description="Cap as percent of the price.")
    amount: float | None = Field(None, description="Absolute cap, if an amount.")
    currency: str | None = Field(None, description="Currency of the amount.")


class Basket(BaseModel):
    """The claims threshold."""

    text: Quote = Field(description="The basket sentence, verbatim.")
    basket_type: BasketType = Field(
        description="tipping (all from the first), deductible or unspecified."
    )
    percent_of_price: float | None = Field(None, description="Threshold as percent of the price.")
    amount: float | None = Field(None, description="Threshold amount, if an amount.")


class DeMinimis(BaseModel):
    """The minimum single claim."""

    text: Quote = Field(description="The de minimis sentence, verbatim.")
    amount: float | None = Field(None, description="Amount.")
    percent_of_price: float | None = Field(None, description="As percent of the price.")


class TimeLimit(BaseModel):
    """A time limit for notifying claims."""

    text: Quote = Field(description="The period as written, verbatim.")
    months: float = Field(description="Length in months.")
    applies_to: Literal["general", "tax", "fundamental"] = Field(
        description="Kind of claims it limits."
    )


class SpecificIndemnity(BaseModel):
    """A specific indemnity."""

    text: Quote = Field(description="The indemnity sentence, verbatim.")
    topic: str = Field(description="tax, litigation, environment, employees, other.")
    named_matters: list[str] = Field(description="Defined matters it names (e.g. 'X Claim').")
    within_cap: bool = Field(description="Whether it counts towards the general cap.")


class IndemnityOutput(ScopedOutput):
    """Output of spa_indemnity_analysis."""

    purchase_price: float | None = Field(description="Price used for percentages.")
    caps: list[Cap] = Field(description="Caps on liability.")
    basket: Basket | None = Field(description="The basket, if any.")
    de_minimis: DeMinimis | None = Field(description="The de minimis, if any.")
    time_limits: list[TimeLimit] = Field(description="Claims periods.")
    specific_indemnities: list[SpecificIndemnity] = Field(description="Specific indemnities.")
    exclusions: list[Quote] = Field(description="Exclusions of liability.")
    fraud_carve_out: bool = Field(description="Whether limitations fall away for fraud.")
    known_litigation: list[str] = Field(description="Named litigation defined in the contract.")
    market_standards: dict[str, Any] = Field(description="The standards compared against.")


DESCRIPTION = (
    "Analyse the seller's liability limitations and indemnities in a share purchase (English "
    "or Chinese): cap (absolute or % of price), basket (tipping or deductible, threshold), de "
    "minimis, time limits for claims (months; general, tax, fundamental), specific indemnities "
    "(topic, named matters, inside the cap or not), exclusions and fraud carve-out, compared "
    "with market standards (cap 10-30% of price, claims 18-24 months, basket 0.5-1%). Gaps "
    "from our side: cap_below_market, short_claims_period, basket_above_market, "
    "deductible_basket, missing_specific_indemnity (topic), specific_indemnity_within_cap, "
    "no_fraud_carve_out; for a seller cap_above_market, long_claims_period, tipping_basket, "
    "no_cap. Arguments: clause_id, scope, our_party, purchase_price (optional)."
)


_I = re.IGNORECASE
_CAP = re.compile(
    r"shall\s+not\s+exceed|aggregate\s+liability|maximum\s+(?:aggregate\s+)?liability|capped|"
    r"limited\s+to|累计赔偿|赔偿总额|责任总额|上限|不超过|以[^，。]{0,20}为限",
    _I,
)
_BASKET = re.compile(
    r"basket|threshold(?!\s+in)|unless\s+the\s+aggregate|aggregate\s+amount\s+of\s+all|累计(?:金额)?超过|"
    r"起赔|免赔额|门槛",
    _I,
)
_TIPPING = re.compile(
    r"whole\s+amount|entire\s+amount|from\s+the\s+first|not\s+(?:only|merely)\s+the\s+excess|"
    r"全部金额|全部损失|全额|从第一元",
    _I,
)
_DEDUCTIBLE = re.compile(
    r"only\s+(?:for|to\s+the\s+extent\s+of)\s+the\s+excess|in\s+excess\s+of|excess\s+only|超出部分|超过部分",
    _I,
)
_DE_MINIMIS = re.compile(
    r"de\s+minimis|individual\s+claim|any\s+single\s+claim|单项索赔|单笔索赔|单个索赔|单项损失", _I
)
_TIME = re.compile(
    r"notice\s+of\s+the\s+claim|within\s+[\w()]+\s+(?:months|years)|surviv|索赔期|提出索赔|书面通知|"
    r"存续",
    _I,
)
_TAX = re.compile(r"\btax|税", _I)
_FUND = re.compile(r"\btitle\b|capacity|fundamental|基本保证|权属", _I)
_INDEMNIFY = re.compile(
    r"shall\s+indemnify|will\s+indemnify|indemnif(?:y|ies)\s+the|tax\s+covenant|"
    r"(?:应|须)(?:向[^，。]{1,10})?(?:全额)?(?:赔偿|补偿)|特别赔偿|专项赔偿",
    _I,
)
_LIMITATION = re.compile(r"shall\s+not\s+be\s+liable|no\s+liability|不承担|免于承担|不负", _I)
_FRAUD = re.compile(r"fraud|wilful|欺诈|故意", _I)
_WITHIN_CAP = re.compile(
    r"counts?\s+towards\s+the\s+cap|subject\s+to\s+the\s+cap|计入[^，。]{0,10}上限|受[^，。]{0,10}上限",
    _I,
)
_ITOPICS: list[tuple[str, re.Pattern[str]]] = [
    ("tax", _TAX),
    ("litigation", re.compile(r"litigation|proceedings|claim\s+number|诉讼|仲裁|案号", _I)),
    ("environment", re.compile(r"environment|环境|环保", _I)),
    ("employees", re.compile(r"employee|pension|员工|社保|社会保险", _I)),
]
_LITIGATION_DEF = re.compile(
    r"proceedings|litigation|lawsuit|arbitration|claim\s+number|诉讼|仲裁|案号", _I
)
_PRICE_TERM = re.compile(
    r"purchase\s+price|consideration|购买价款|转让价款|交易价款|股权转让款", _I
)


def _price(structure: DocumentStructure | None) -> float | None:
    if structure is None:
        return None
    for d in structure.definitions.values():
        if _PRICE_TERM.search(d.term):
            amounts = financial(d.definition).amounts
            if amounts:
                return amounts[0].value
    return None


def _pct_amount(text: str, price: float | None) -> tuple[float | None, float | None, str | None]:
    terms = financial(text)
    if terms.percentages:
        return terms.percentages[0].value, None, None
    if terms.amounts:
        a = terms.amounts[0]
        pct = round(a.value / price * 100, 4) if price else None
        return pct, a.value, a.currency
    return None, None, None


def handle(inp: IndemnityInput) -> IndemnityOutput:
    """Extract the limitations and indemnities and compare them with the market."""
    structure = inp.document_structure
    roles = our_roles(inp, structure)
    price = inp.purchase_price or _price(structure)
    loc = Locator(structure, inp.clause_id)
    caps: list[Cap] = []
    basket: Basket | None = None
    de_minimis: DeMinimis | None = None
    limits: list[TimeLimit] = []
    specifics: list[SpecificIndemnity] = []
    exclusions: list[Quote] = []
    fraud = False
    known = [
        d.term
        for d in (structure.definitions.values() if structure else [])
        if _LITIGATION_DEF.search(d.definition[:300])
    ]
    for unit in units(structure, inp.clause_id, inp.scope):
        for s in loc.sentences(unit):
            t = s.text
            q = loc.quote(t, s.start)
            if _FRAUD.search(t) and _LIMITATION.search(t) is None:
                fraud = True
            if _INDEMNIFY.search(t) and not _LIMITATION.search(t):
                topic = next((n for n, rx in _ITOPICS if rx.search(t)), "other")
                specifics.append(
                    SpecificIndemnity(
                        text=q,
                        topic=topic,
                        named_matters=[x for x in known if x in t],
                        within_cap=False,
                    )
                )
                continue
            if _WITHIN_CAP.search(t) and specifics:
                specifics[-1].within_cap = True
                continue
            if _DE_MINIMIS.search(t):
                pct, amount, _ = _pct_amount(t, price)
                de_minimis = DeMinimis(text=q, amount=amount, percent_of_price=pct)
            elif _BASKET.search(t):
                pct, amount, _ = _pct_amount(t, price)
                kind: BasketType = (
                    "tipping"
                    if _TIPPING.search(t)
                    else "deductible"
                    if _DEDUCTIBLE.search(t)
                    else "unspecified"
                )
                basket = Basket(text=q, basket_type=kind, percent_of_price=pct, amount=amount)
            elif _CAP.search(t) and re.search(r"liab|责任|赔偿", t, _I):
                pct, amount, cur = _pct_amount(t, price)
                if pct is not None or amount is not None:
                    caps.append(Cap(text=q, percent_of_price=pct, amount=amount, currency=cur))
            elif _TIME.search(t):
                limits += _limits(t, s.start, loc)
            elif _LIMITATION.search(t) and not _FRAUD.search(t):
                exclusions.append(q)
    buyer = "seller" not in roles.our_roles
    gaps = (_buyer_gaps if buyer else _seller_gaps)(
        inp.scope, caps, basket, limits, specifics, known, fraud, say_for(inp)
    )
    return IndemnityOutput(
        **scoped_output(inp, roles),
        purchase_price=price,
        caps=caps,
        basket=basket,
        de_minimis=de_minimis,
        time_limits=limits,
        specific_indemnities=specifics,
        exclusions=exclusions,
        fraud_carve_out=fraud,
        known_litigation=known,
        market_standards=MARKET_STANDARDS,
        gaps=gaps,
    )


def _limits(text: str, start: int, loc: Locator) -> list[TimeLimit]:
    out: list[TimeLimit] = []
    prev = 0
    for p in financial(text).periods:
        if p.unit not in ("month", "year"):
            continue
        window = text[prev : p.start]
        kind: Literal["general", "tax", "fundamental"] = (
            "tax" if _TAX.search(window) else "fundamental" if _FUND.search(window) else "general"
        )
        out.append(
            TimeLimit(
                text=loc.quote(p.quote, start + p.start),
                months=months_of(p.value, p.unit),
                applies_to=kind,
            )
        )
        prev = p.end
    return out


def _gap(
    code: str,
    sev: Literal["high", "medium", "low"],
    msg: str,
    ev: Quote | None = None,
    topic: str | None = None,
    number: tuple[float, float, Literal["higher", "lower"]] | None = None,
) -> Gap:
    """A gap; `number`: (the number it is about, the market's nearest edge, which way hurts)."""
    measured, target, worse = number if number is not None else (None, None, None)
    return Gap(
        code=code,
        topic=topic,
        severity=sev,
        message=msg,
        evidence=ev,
        measured=measured,
        target=target,
        worse=worse,
    )


def _buyer_gaps(
    scope: Scope,
    caps: list[Cap],
    basket: Basket | None,
    limits: list[TimeLimit],
    specifics: list[SpecificIndemnity],
    known: list[str],
    fraud: bool,
    say: Say,
) -> list[Gap]:
    """The buyer's gaps: limitations tighter than the market, specific indemnities inside the
    cap, and in a whole document the protections missing altogether."""
    gaps = [*_limitations_below_market(caps, basket, limits, say)]
    gaps += _specifics_within_cap(specifics, say)
    if scope == "document":
        gaps += _buyer_protections_missing(caps, basket, specifics, known, fraud, say)
    return gaps


def _limitations_below_market(
    caps: list[Cap], basket: Basket | None, limits: list[TimeLimit], say: Say
) -> list[Gap]:
    """A cap, claims period or basket that limits the buyer more than the market does."""
    m = MARKET_STANDARDS
    gaps: list[Gap] = []
    for c in caps:
        if c.percent_of_price is not None and c.percent_of_price < m["cap_percent_of_price"]["low"]:
            gaps.append(
                _gap(
                    "cap_below_market",
                    "high",
                    say(
                        f"Cap of {c.percent_of_price:g}% of the price is below the market range "
                        "of 10-30%.",
                        f"赔偿上限为交易价款的{c.percent_of_price:g}%，低于10%至30%的市场区间。",
                    ),
                    c.text,
                    number=(c.percent_of_price, m["cap_percent_of_price"]["low"], "lower"),
                )
            )
    for lim in limits:
        if lim.applies_to == "general" and lim.months < m["claims_period_months"]["buyer_target"]:
            gaps.append(
                _gap(
                    "short_claims_period",
                    "medium",
                    say(
                        f"General claims period of {lim.months:g} months is shorter than the 24 "
                        "months a buyer expects.",
                        f"一般索赔期限为{lim.months:g}个月，短于买方通常要求的24个月。",
                    ),
                    lim.text,
                    number=(lim.months, m["claims_period_months"]["buyer_target"], "lower"),
                )
            )
        if lim.applies_to == "tax" and lim.months < m["tax_claims_period_months"]["low"]:
            gaps.append(
                _gap(
                    "short_claims_period",
                    "medium",
                    say(
                        f"Tax claims period of {lim.months:g} months is below the usual 4-7 years.",
                        f"税务索赔期限为{lim.months:g}个月，短于通常的4至7年。",
                    ),
                    lim.text,
                    "tax",
                    number=(lim.months, m["tax_claims_period_months"]["low"], "lower"),
                )
            )
    if basket is not None:
        if (
            basket.percent_of_price is not None
            and basket.percent_of_price > m["basket_percent_of_price"]["high"]
        ):
            gaps.append(
                _gap(
                    "basket_above_market",
                    "medium",
                    say(
                        f"Basket of {basket.percent_of_price:g}% of the price is above the market "
                        "0.5-1%.",
                        f"起赔额为交易价款的{basket.percent_of_price:g}%，高于0.5%至1%的市场水平。",
                    ),
                    basket.text,
                    number=(
                        basket.percent_of_price,
                        m["basket_percent_of_price"]["high"],
                        "higher",
                    ),
                )
            )
        if basket.basket_type == "deductible":
            gaps.append(
                _gap(
                    "deductible_basket",
                    "medium",
                    say(
                        "Deductible basket: the buyer never recovers the first losses.",
                        "起赔额为免赔式：起赔额以内的损失买方始终无法获得赔偿。",
                    ),
                    basket.text,
                )
            )
    return gaps


def _specifics_within_cap(specifics: list[SpecificIndemnity], say: Say) -> list[Gap]:
    """Specific indemnities that count towards the general cap."""
    gaps: list[Gap] = []
    for sp in specifics:
        if sp.within_cap:
            gaps.append(
                _gap(
                    "specific_indemnity_within_cap",
                    "medium",
                    say(
                        f"The {sp.topic} indemnity counts towards the general cap.",
                        f"{topic_in(sp.topic, say)}专项赔偿计入一般赔偿上限。",
                    ),
                    sp.text,
                    sp.topic,
                )
            )
    return gaps


def _buyer_protections_missing(
    caps: list[Cap],
    basket: Basket | None,
    specifics: list[SpecificIndemnity],
    known: list[str],
    fraud: bool,
    say: Say,
) -> list[Gap]:
    """Across the whole document: known litigation or tax without a specific indemnity,
    limitations that do not fall away for fraud."""
    gaps: list[Gap] = []
    covered = {n for sp in specifics for n in sp.named_matters}
    lit = any(sp.topic == "litigation" for sp in specifics)
    for name in known:
        if name not in covered and not lit:
            gaps.append(
                _gap(
                    "missing_specific_indemnity",
                    "high",
                    say(
                        f"Known litigation '{name}' has no specific indemnity.",
                        f"已知诉讼“{name}”未设专项赔偿。",
                    ),
                    None,
                    "litigation",
                )
            )
    if not any(sp.topic == "tax" for sp in specifics):
        gaps.append(
            _gap(
                "missing_specific_indemnity",
                "high",
                say("No tax indemnity or tax covenant.", "未约定税务赔偿或税务承诺。"),
                None,
                "tax",
            )
        )
    if (caps or basket) and not fraud:
        gaps.append(
            _gap(
                "no_fraud_carve_out",
                "high",
                say("Limitations do not fall away for fraud.", "责任限制未排除欺诈情形。"),
            )
        )
    return gaps


def _seller_gaps(
    scope: Scope,
    caps: list[Cap],
    basket: Basket | None,
    limits: list[TimeLimit],
    specifics: list[SpecificIndemnity],
    known: list[str],
    fraud: bool,
    say: Say,
) -> list[Gap]:
    m = MARKET_STANDARDS
    gaps: list[Gap] = []
    for c in caps:
        if (
            c.percent_of_price is not None
            and c.percent_of_price > m["cap_percent_of_price"]["high"]
        ):
            gaps.append(
                _gap(
                    "cap_above_market",
                    "high",
                    say(
                        f"Cap of {c.percent_of_price:g}% of the price is above the market 10-30%.",
                        f"赔偿上限为交易价款的{c.percent_of_price:g}%，高于10%至30%的市场区间。",
                    ),
                    c.text,
                    number=(c.percent_of_price, m["cap_percent_of_price"]["high"], "higher"),
                )
            )
    for lim in limits:
        if lim.applies_to == "general" and lim.months > m["claims_period_months"]["high"]:
            gaps.append(
                _gap(
                    "long_claims_period",
                    "medium",
                    say(
                        f"General claims period of {lim.months:g} months exceeds 24 months.",
                        f"一般索赔期限为{lim.months:g}个月，超过24个月。",
                    ),
                    lim.text,
                    number=(lim.months, m["claims_period_months"]["high"], "higher"),
                )
            )
    if basket is not None:
        if basket.basket_type == "tipping":
            gaps.append(
                _gap(
                    "tipping_basket",
                    "low",
                    say(
                        "Tipping basket: once exceeded the seller pays from the first pound.",
                        "起赔额为门槛式：一旦超过起赔额，卖方须自第一笔损失起全额赔偿。",
                    ),
                    basket.text,
                )
            )
        if (
            basket.percent_of_price is not None
            and basket.percent_of_price < m["basket_percent_of_price"]["low"]
        ):
            gaps.append(
                _gap(
                    "basket_below_market",
                    "low",
                    say("Basket below 0.5% of the price.", "起赔额低于交易价款的0.5%。"),
                    basket.text,
                )
            )
    if scope == "document" and not caps:
        gaps.append(
            _gap(
                "no_cap",
                "high",
                say("No cap on the seller's liability was found.", "未发现卖方的责任上限。"),
            )
        )
    return gaps


prepare_input = input_preparer(IndemnityInput)
"""Input for a clause of the primary document."""

REGISTRATION = scoped_registration(
    SKILL_ID,
    "SPA indemnities and limitations",
    DESCRIPTION,
    (IndemnityInput, IndemnityOutput),
    handle,
    prepare_input,
    "analysis",
)
