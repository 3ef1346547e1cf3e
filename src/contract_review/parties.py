"""Who is who in a contract: our party, the other side, and who must (or may) do what.

`party_roles(structure, our_party)` resolves the party we act for — given as a role ("Contractor",
"承包人", "乙方", "Buyer") or as a company name ("Meridian Build Ltd") — into the aliases the
contract uses for us and for the other side. It reads the preamble ("Employer: Coastal Water
Authority", "发包人（甲方）：…公司", `Acme Ltd (the "Supplier")`) and the definitions
(`"Contractor" means Meridian Build Ltd`, `"承包人"是指…公司，即本合同的乙方`), and completes them
with a built-in table of role synonyms (Contractor ≈ 承包人 ≈ 承包商; Employer ≈ 发包人 ≈ 业主...).

`party_actions(sentence, roles)` finds who is the subject of what in one sentence: "The
Contractor shall…" (obligation), "the Employer may…" (right), "…shall not be entitled…"
(denial), "at the Contractor's risk" / "由承包人承担" (bears), "shall not be liable" / "不承担"
(exempt). `obligor_of` sums that up as "us", "them", "both" or None.

Deliberately simple and explicit: regular expressions over single sentences, no parsing.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from contract_review.errors import InputError
from contract_review.models import ClauseKind, DocumentStructure
from contract_review.text import SEGMENT_END, ZH_SHORT_NAME, has_cjk, recital_headings

__all__ = [
    "AMOUNT_PAID_BY",
    "COUNTERPARTS",
    "GENERIC_LABELS",
    "NEUTRAL_WORDS",
    "ROLE_SYNONYMS",
    "ActionKind",
    "OurSide",
    "Party",
    "PartyAction",
    "PartyNotFound",
    "PartyRequired",
    "PartyRoles",
    "RoleAction",
    "Side",
    "as_written",
    "contract_parties",
    "find_parties",
    "is_pronoun",
    "obligor_of",
    "party_actions",
    "party_mentions",
    "party_places",
    "party_roles",
    "payer_of",
    "resolve_party",
    "role_actions",
    "role_key",
]

Side = Literal["us", "them", "both"]
ActionKind = Literal["obligation", "right", "denial", "bears", "exempt"]

ROLE_SYNONYMS: dict[str, tuple[str, ...]] = {
    "contractor": ("Contractor", "承包人", "承包商", "施工单位", "施工方", "总包方"),
    "subcontractor": ("Subcontractor", "分包人", "分包方", "分包商"),
    "employer": ("Employer", "Owner", "发包人", "业主", "建设单位", "业主方"),
    "buyer": ("Buyer", "Purchaser", "买方", "买受人", "采购方", "采购人", "购买方"),
    "seller": ("Seller", "Vendor", "卖方", "出卖人", "销售方"),
    "supplier": ("Supplier", "供应商", "供方", "供货方"),
    "customer": ("Customer", "Client", "客户", "需方", "委托方"),
    "provider": ("Provider", "Service Provider", "Consultant", "服务提供方", "服务方", "受托方"),
    "licensor": ("Licensor", "许可方", "许可人"),
    "licensee": ("Licensee", "被许可方", "被许可人"),
    "company": ("Company", "目标公司"),
    "shareholder": ("Shareholder", "Shareholders", "股东"),
    "investor": ("Investor", "Investors", "投资方", "投资人"),
    "founder": ("Founder", "Founders", "创始人", "创始股东"),
    "lessor": ("Lessor", "Landlord", "出租方", "出租人"),
    "lessee": ("Lessee", "Tenant", "承租方", "承租人"),
    "lender": ("Lender", "贷款人", "出借人"),
    "borrower": ("Borrower", "借款人"),
    "distributor": ("Distributor", "Reseller", "Dealer", "经销商", "分销商", "代理商"),
    "manufacturer": ("Manufacturer", "Producer", "制造商", "生产商", "生产方"),
    "principal": ("Principal", "委托人"),
    "agent": ("Agent", "代理人", "受托人"),
    "recipient": ("Recipient", "Receiving Party", "接收方", "接收人"),
    "discloser": ("Discloser", "Disclosing Party", "披露方", "披露人"),
    "shipper": ("Shipper", "Consignor", "托运人", "托运方", "发货人"),
    "carrier": ("Carrier", "Haulier", "Hauler", "承运人", "承运方"),
    "advertiser": ("Advertiser", "广告主"),
    "publisher": ("Publisher", "发布者", "发布方", "广告发布者"),
    "franchisor": ("Franchisor", "特许人", "特许方"),
    "franchisee": ("Franchisee", "被特许人", "被特许方"),
    "orderer": ("定作人", "定作方"),
    "processor": ("承揽人", "承揽方"),
    "designer": ("Designer", "设计人", "设计方", "设计单位"),
    "supervisor": ("Supervisor", "监理人", "监理方", "监理单位"),
    "guarantor": ("Guarantor", "Surety", "担保人", "担保方", "保证人"),
    "employee": ("Employee", "Executive", "劳动者", "员工", "雇员"),
    "creditor": ("Creditor", "Beneficiary", "债权人", "受益人"),
}
"""Canonical role → the words contracts use for it, English and Chinese."""

COUNTERPARTS: dict[str, tuple[str, ...]] = {
    "contractor": ("employer",),
    "employer": ("contractor", "designer", "supervisor", "employee"),
    "employee": ("employer",),
    "designer": ("employer",),
    "supervisor": ("employer",),
    "guarantor": ("lender", "buyer", "seller", "franchisor", "creditor", "lessor"),
    "creditor": ("guarantor",),
    "buyer": ("seller", "supplier"),
    "seller": ("buyer",),
    "supplier": ("customer", "buyer"),
    "customer": ("supplier", "provider"),
    "provider": ("customer",),
    "licensor": ("licensee",),
    "licensee": ("licensor",),
    "company": ("shareholder", "investor", "founder"),
    "shareholder": ("company",),
    "investor": ("company", "founder"),
    "founder": ("investor", "company"),
    "lessor": ("lessee",),
    "lessee": ("lessor",),
    "lender": ("borrower",),
    "borrower": ("lender",),
    "subcontractor": ("contractor",),
    "distributor": ("supplier", "seller", "manufacturer"),
    "manufacturer": ("distributor", "buyer", "customer"),
    "principal": ("agent",),
    "agent": ("principal",),
    "recipient": ("provider", "discloser"),
    "discloser": ("recipient",),
    "shipper": ("carrier",),
    "carrier": ("shipper",),
    "advertiser": ("publisher",),
    "publisher": ("advertiser",),
    "franchisor": ("franchisee",),
    "franchisee": ("franchisor",),
    "orderer": ("processor",),
    "processor": ("orderer",),
}
"""Canonical role → the roles on the other side of the deal."""

_RELATED: dict[str, tuple[str, ...]] = {
    "seller": ("supplier",),
    "supplier": ("seller", "provider"),
    "provider": ("supplier",),
    "buyer": ("customer",),
    "customer": ("buyer",),
    "shareholder": ("investor", "founder"),
}
"""Roles close enough to stand for each other when the contract uses the other word."""

GENERIC_LABELS: dict[str, str] = {
    "甲方": "employer",
    "乙方": "contractor",
    "Party A": "employer",
    "Party B": "contractor",
    "丙方": "",
    "丁方": "",
    "Party C": "",
    "Party D": "",
}
"""Positional labels; their role comes from the contract, else (construction) this default
('' for a third or fourth party: no default)."""

_BOTH_PHRASES = (
    "each Party",
    "either Party",
    "neither Party",
    "the Parties",
    "both Parties",
    "each party",
    "either party",
    "neither party",
    "the parties",
    "both parties",
    "双方",
    "各方",
    "任何一方",
    "任一方",
)

_WORD_TO_ROLE: dict[str, str] = {
    word.casefold(): key for key, words in ROLE_SYNONYMS.items() for word in words
}
_GENERIC_CF: dict[str, str] = {k.casefold(): k for k in GENERIC_LABELS}


def role_key(word: str) -> str | None:
    """Canonical role of a party word ('承包商' → 'contractor'), generic labels excluded."""
    return _WORD_TO_ROLE.get(_clean(word).casefold())


def _clean(text: str) -> str:
    text = text.strip().strip("\"'“”‘’「」《》 ")
    return re.sub(r"^(?:the|The|THE)\s+", "", text).strip()


_PRONOUNS: dict[str, str] = {"we": "We", "us": "Us", "you": "You", "our": "Our", "your": "Your"}
"""Pronouns a contract may name its parties by (`Acme Inc. ("we" or "us")`, `("you")`): labels
of the party they are given to, matched in any case but 'US' (the United States). The
possessive goes with them: 'our right of first refusal' is the right of the party called we."""
_POSSESSIVE = {"We": "Our", "Us": "Our", "You": "Your"}


def is_pronoun(word: str) -> bool:
    """Whether a party word is a pronoun the contract names a party by ('we', 'us', 'you'):
    a label, not a name to show ('We holds the right' reads badly)."""
    return _clean(word).casefold() in _PRONOUNS


def _is_label(word: str) -> bool:
    cf = _clean(word).casefold()
    return cf in _WORD_TO_ROLE or cf in _GENERIC_CF or cf in _PRONOUNS


# --------------------------------------------------------------------------------------------
# Parties named by the contract
# --------------------------------------------------------------------------------------------

_NAME_START = r"(?:[A-Z]|[a-z](?=-?[A-Z])|[0-9](?=[a-z]*[A-Z]))"
"""Where a name starts: a capital, a brand's lower-case first letter before one ('eGain
Communications Corporation', 'iMine Corporation', 'i-Escrow'), or a digit a capital follows
in the same word ('2TheMart', '3M'; not '3rd')."""
_EN_SUFFIX = (
    r"(?:Inc|Ltd|Limited\s+Partnership|Limited|Partnership|LLC|L\.L\.C|LLP|LP|plc|PLC|GmbH|AG|SA|S\.A|SAS|BV|B\.V|NV|N\.V|Corp"
    r"|Corporation|Company|Co|Pty\s+Ltd|Pte\.?\s+Ltd|KK|K\.K|Authority|Group"
    r"|Sdn\.?\s+Bhd|Berhad|Bhd|Pvt\.?\s+Ltd|Private\s+Limited|Ltda)\.?"
)
_ZH_REGION = r"[（(][\u4e00-\u9fff]{2,6}[）)]"
"""A place in brackets inside a Chinese company's name: '云栖数智科技（香港）有限公司'."""
_ZH_SUFFIX = r"(?:公司|集团|局|委员会|中心|医院|大学|学院|学校|银行|厂|研究所|研究院|设计院|事务所|政府|合伙企业)"
_NAME_CONNECTORS = frozenset({"of", "and", "for", "the", "de", "du", "la", "&"})

# "Employer: Coastal Water Authority", "发包人（甲方）：滨江…公司"
# Possessive, line-bound runs of spaces: with \s* that may cross lines, each long indented
# line of a filing backtracked quadratically (0.2 s on one 8 KB preamble). The name may still
# stand on the line after its label.
_LABEL_LINE = re.compile(
    r"^[ \t*#>-]*+([^\s:：（()*][^\n:：（()*]{0,29}?)[ \t]*+(?:[（(]([^\n）)]{1,20})[）)])?"
    r"[ \t]*+\**+[ \t]*+[:：]\**+[ \t]*+\n?[ \t]*+([^\n]{2,600}?)[ \t]*+$",
    re.MULTILINE,
)
# Acme Ltd (the "Supplier"), Acme Ltd (hereinafter referred to as "Supplier")
_EN_PAREN_LABEL = re.compile(
    r"\(\s*(?:here(?:in)?after\s+(?:referred\s+to\s+as\s+|called\s+)?|together\s+with[^()]{0,80}?,\s*)?"
    r"(?:the\s+)?[\"“]([^\"”\n()]{1,40})[\"”]?\s*\)"
)
# 某某公司（以下简称“甲方”）
_ZH_PAREN_LABEL = re.compile(
    r"([^\s：:，,。；;（()“”\"]{2,60}?)\s*[（(]\s*" + ZH_SHORT_NAME + r"\s*[：:]?\s*"
    r"[“\"]?([^”\"）)\n]{1,10}?)[”\"]?"
    # '（以下简称“甲方”或“供货方”）': further labels
    r"(?:\s*(?:或者?|、|，|,)\s*[“\"]?[^”\"）)\n]{1,10}?[”\"]?)*\s*[）)]"
)
# A company named at the start of its paragraph, its description and label after it:
# '深圳市华澜电子科技有限公司，一家依据……设立的公司……（以下简称“甲方”）'
_ZH_LEAD_COMPANY = re.compile(
    r"[ \t\u3000]*([^\s，,。；;：:（()“”\"]{2,40}?(?:"
    + _ZH_REGION
    + r"[^\s，,。；;：:（()“”\"]{0,20}?)?"
    + _ZH_SUFFIX
    + r")(?=[，,（(\s])"
)
_ZH_SHORT_NAME = re.compile(r"^\s*" + ZH_SHORT_NAME + r"\s*[：:]?\s*")
# "…公司，即本合同的甲方"
_ZH_IS_LABEL = re.compile(r"即(?:为)?(?:本合同|本协议)?(?:的|中的|项下的)?(甲方|乙方|丙方|丁方)")
_EN_AS_LABEL = re.compile(r"\b(?:as|being)\s+(Party\s+[A-D])\b")


_ROMAN = re.compile(r"[IVXLC]+|[ivxlc]+")
_SIGNING = re.compile(r"盖章|签字|签章|签名|印章|公章|\bseal\b|\bsign", re.IGNORECASE)
_ROLE_LIKE = re.compile(r"[\u4e00-\u9fff]{1,5}(?:方|人|商|者)|[A-Z][a-z]+(?:[ -][A-Z][a-z]+)?")
"""What a party's role word looks like ('保管人', 'Warehouseman', 'Service Recipient')."""


_FILING_STAMP = re.compile(r",\s*[A-Z0-9][\w./() -]{0,15},\s*\d{1,2}/\d{1,2}/\d{2,4}\s*$")
"""The stamp a filing service prints on each page: 'PARETEUM CORP, 8-K, 10/1/2008'."""
_ZH_COMPANY = re.compile(_ZH_SUFFIX + r"$")
_DOC_PARTS = re.compile(
    r"\b(?:conditions|schedules?|exhibits?|attachments?|annex(?:es)?|appendi(?:x|ces))\b", re.I
)
# 'Priya Okonkwo-Reid, of 7 Alder Mews, Harrogate': a person's address is not her name
_ADDRESS_TAIL = re.compile(
    r",?\s+(?:of|residing at|resident at|domiciled at|whose (?:address|residence) is)\s+"
    r"(?=\d|[A-Z][\w.-]*\s+\d).*$",
    re.DOTALL,
)
# '云栖数智科技（香港）有限公司': a place in brackets inside a Chinese company's name
_ZH_REGION_NAME = re.compile(
    r"([^\s（(,，;；]{2,40}?" + _ZH_REGION + r"[^\s（(,，;；]{0,20}?" + _ZH_SUFFIX + r")"
)
_EN_COMPANY = re.compile(r"(?<![A-Za-z])" + _EN_SUFFIX + r"$")


def _is_company(name: str) -> bool:
    """A company's name: ending in a company suffix ('…有限公司', '… Ltd')."""
    name = name.strip()
    return bool(_ZH_COMPANY.search(name) or _EN_COMPANY.search(name))


def _looks_like_name(text: str) -> bool:
    text = text.strip()
    if not 2 <= len(text) <= 80 or _is_label(text):
        return False
    if has_cjk(text):
        return bool(_ZH_COMPANY.search(text)) or (
            len(text) <= 30 and not re.search(r"[是指的为]", text)
        )
    if _EN_COMPANY.search(text):
        return True
    words = text.split()
    if not 1 <= len(words) <= 8:
        return False
    return _capitalised(words[0]) and all(
        _capitalised(w) or w[:1].isdigit() or w in _NAME_CONNECTORS for w in words
    )


def _capitalised(word: str) -> bool:
    """Whether `word` starts as a name does (`_NAME_START`): 'Acme', 'eGain', 'i-Escrow',
    '2TheMart'."""
    return bool(re.match(_NAME_START, word))


def _names(label: str, name: str) -> bool:
    """Whether `label` is made of words of `name` ('Bravatek' of 'Bravatek Solutions', 'Smith'
    of 'John Smith', 'BII' of 'Boehringer Ingelheim International')."""
    words = name.replace(",", " ").split()
    initials = "".join(w[0] for w in words if w[:1].isalpha()).casefold()
    return all(w.casefold() in {x.casefold() for x in words} for w in label.split()) or (
        label.isupper() and label.casefold() in initials
    )


def _prose(text: str) -> bool:
    """Whether `text` starts in lower case as prose does ('beneficial owner of …'), not as a
    brand does ('eGain', 'i-Escrow')."""
    return text[:1].islower() and not _capitalised(text)


def _leading_name(definition: str) -> str | None:
    """'Meridian Build Ltd, a company registered…' → 'Meridian Build Ltd'."""
    text = definition.strip()
    m = re.match(r"(.+?)(?=\s*[,，;；(（:：]|即|\s+(?:a|an|being|whose|which|who)\s|$)", text)
    if not m:
        return None
    name = m.group(1)
    rest = text[m.end() :]
    suffix = re.match(r",\s*" + _EN_SUFFIX, rest)
    if suffix:
        name += suffix.group(0)
    name = _clean(name)
    if has_cjk(name) and ("的" in name or not (_is_company(name) or len(name) <= 4)):
        # '分包人：是指按照法律规定和合同约定，分包…的单位', '监理人：受甲方委托…的…有限公司':
        # a description, not a name
        return None
    return name if _looks_like_name(name) else None


def _name_before(text: str, end: int) -> str | None:
    """The company name just before `end` ('…by and between Acme Ltd (the…' → 'Acme Ltd')."""
    head = text[max(0, end - 160) : end].rstrip(" ,")
    cut = max(
        (
            m.end()
            for m in re.finditer(
                r"\bbetween\s+|\band\s+(?![A-Z][\w.]*\s*(?:$|[,(]))|\bby\s+|[\n;:：]|^", head
            )
        ),
        default=0,
    )
    name = _clean(head[cut:])
    # 'Halden Biologics GmbH   Ringstrasse 4 80331 Munich': the address after the company form
    # is not its name
    form = _FORM_THEN_ADDRESS.search(name)
    if form is not None:
        name = name[: form.end()]
    return name if _looks_like_name(name) else None


def _merge(groups: list[list[str]]) -> list[list[str]]:
    """Merge groups that share an alias (case-insensitive), keeping first-seen order."""
    merged: list[list[str]] = []
    for group in groups:
        keys = {a.casefold() for a in group}
        hits = [g for g in merged if keys & {a.casefold() for a in g}]
        target: list[str] = hits[0] if hits else []
        if not hits:
            merged.append(target)
        for other in hits[1:]:
            target.extend(other)
            merged.remove(other)
        for alias in group:
            if alias.casefold() not in {a.casefold() for a in target}:
                target.append(alias)
    return merged


_BETWEEN = re.compile(
    r"\b(?:between|among|by and|(?:entered\s+into|made|executed)\s+by)\b|甲方|乙方|双方",
    re.IGNORECASE,
)


def _names_parties(text: str) -> bool:
    """Whether a text names parties as a preamble does: 'between A and B', or a label line
    with a company's name ('Employer: Coastal Water Authority', '设计人（全称）：…有限公司')."""
    if _BETWEEN.search(text[:1000]):
        return True
    return any(_is_company(_clean(m.group(3))) for m in _LABEL_LINE.finditer(text))


def _preamble_text(structure: DocumentStructure) -> str:
    parts = [c.text for c in structure.clauses if c.kind is ClauseKind.PREAMBLE]
    firsts = [c for c in structure.clauses if c.kind is not ClauseKind.PREAMBLE][:1]
    if not parts:
        parts = [c.text[:2000] for c in firsts]
    elif sum(map(len, parts)) < 300 and firsts and _names_parties(firsts[0].text[:2000]):
        # a title alone before '1. Introduction This Agreement … between A and B', or before
        # the 协议书 of a model contract ('发包人（全称）：…有限公司'): the parties are named in
        # the first clause or part
        parts.append(firsts[0].text[:2000])
    return "\n".join(parts)[:20_000]


_INLINE_LABEL = re.compile(r"(?<![\w:])([A-Z][a-z]{2,15}(?: [A-Z][a-z]{2,15})?):[ \t]+(?=[A-Z])")
_NOT_ROLES = frozenset(
    {"date", "reference", "address", "attention", "email", "tel", "telephone", "fax", "re",
     "subject", "note", "page", "title", "name", "by", "contact", "phone", "website",
     # a preamble's connecting words on their own line: 'Between: DGT Corp.', 'And: Dolphin'
     "between", "and", "among", "amongst", "with", "from", "to"}
)  # fmt: skip


def _inline_labels(text: str) -> list[list[str]]:
    """'… Provider: Northquill Software Corp., a corporation … Customer: Hanamura Shoji K.K.,
    …' in text flattened from a PDF: a role word and a colon before a company's name."""
    groups = []
    for m in _INLINE_LABEL.finditer(text):
        role = m.group(1)
        if role.casefold() in _NOT_ROLES:
            continue
        line_end = text.find("\n", m.end())
        if _FILING_STAMP.search(text[m.end() : line_end if line_end >= 0 else len(text)]):
            continue  # 'Source: PF HOSPITALITY GROUP INC., 10-12G, 9/23/2015': a page stamp
        run = _NAME_RUN.match(text, m.end())
        if run is None:
            continue
        name = re.sub(r"\s+", " ", run.group()).strip(" ,")
        form = _ANY_CASE_SUFFIX.search(name)
        if form is None:
            continue
        groups.append([role, name[: form.end()]])
    return groups


def contract_parties(structure: DocumentStructure | None) -> list[list[str]]:
    """Groups of names the contract gives each party: ['Contractor', 'Meridian Build Ltd'], …

    Only groups holding a party label (a role word, 甲方/乙方, 'Party A') or a short name given
    to a company are returned.
    """
    if structure is None:
        return []
    groups: list[list[str]] = []
    for d in structure.definitions.values():
        # a parenthesis naming a party ('Acme Ltd (the "Supplier")') is read with the preamble
        if not _is_label(d.term) or d.source == "inline":
            continue
        if _FILING_STAMP.search(d.definition.split("\n", 1)[0]):
            continue  # 'Source: PF HOSPITALITY GROUP INC., 10-12G, 9/23/2015': a page stamp
        group = [_clean(d.term)]
        name = _leading_name(d.definition)
        if name:
            group.append(name)
        head = d.definition[:200]
        group += [m.group(1) for m in _ZH_IS_LABEL.finditer(head)]
        group += [re.sub(r"\s+", " ", m.group(1)) for m in _EN_AS_LABEL.finditer(head)]
        if len(group) > 1:
            groups.append(group)
    text = _preamble_text(structure)
    for m in _LABEL_LINE.finditer(text):
        if _FILING_STAMP.search(m.group(3)):
            continue  # 'Source: PARETEUM CORP, 8-K, 10/1/2008': the filing's page stamp
        # "披露方（以下简称“甲方”）：…公司" names the short label inside the brackets
        second = m.group(2) and _ZH_SHORT_NAME.sub("", m.group(2)).strip("“”\"' ")
        labels = [lab for lab in (m.group(1), second) if lab and _is_label(lab)]
        name = _clean(m.group(3).strip("*").strip())
        region = _ZH_REGION_NAME.match(name)
        name = region.group(1) if region else re.split(r"\s*[（(,，;；]", name, maxsplit=1)[0]
        if (
            not labels
            and not second
            and _ROLE_LIKE.fullmatch(_clean(m.group(1)))
            and _clean(m.group(1)).casefold() not in _NOT_ROLES
        ):
            # a role word the table does not know ('保管人：…有限公司', 'Warehouseman: … Ltd')
            # names a party when a company's name follows
            if _is_company(name):
                groups.append([_clean(m.group(1)), name])
            continue
        if not labels or (second and _SIGNING.search(second)):
            continue  # '甲方（盖章）：' signs, it names no party
        if second and not _is_label(second) and _ROLE_LIKE.fullmatch(_clean(second)):
            labels.append(second)  # '乙方（供应方）：…' — a role the table does not know
        if _looks_like_name(name):
            groups.append([_clean(lab) for lab in labels] + [name])
    if not groups:
        groups += _inline_labels(text)
    for m in _EN_PAREN_LABEL.finditer(text):
        label = _clean(m.group(1))
        name = _name_before(text, m.start())
        if name and (_is_label(label) or _looks_like_name(label)):
            groups.append([label, name])
    for m in _ZH_PAREN_LABEL.finditer(text):
        label, name = _clean(m.group(2)), _clean(m.group(1))
        if not _ZH_COMPANY.search(name):
            lead = _ZH_LEAD_COMPANY.match(text, text.rfind("\n", 0, m.start()) + 1)
            if lead is not None:
                name = lead.group(1)
        if _looks_like_name(name):
            groups.append([label, name])
    return _merge(groups)


# --------------------------------------------------------------------------------------------
# Our party and the other side
# --------------------------------------------------------------------------------------------


class PartyRoles(BaseModel):
    """The names of our party and of the other side in one contract."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    our_party: str = Field(description="Our party as given by the user.")
    resolved: bool = Field(description="Whether our party was found in the contract or table.")
    our_roles: tuple[str, ...] = Field((), description="Canonical roles of our party.")
    their_roles: tuple[str, ...] = Field((), description="Canonical roles of the other side.")
    our_aliases: tuple[str, ...] = Field((), description="Names and role words meaning us.")
    their_aliases: tuple[str, ...] = Field((), description="Names and role words meaning them.")

    def side_of(self, name: str) -> Side | None:
        """'us', 'them', 'both' (e.g. 'each Party', '双方') or None for a party word or name."""
        cf = _clean(name).casefold()
        if cf in {p.casefold() for p in _BOTH_PHRASES} or cf in {"parties", "party"}:
            return "both"
        if cf in {a.casefold() for a in self.our_aliases}:
            return "us"
        if cf in {a.casefold() for a in self.their_aliases}:
            return "them"
        return None


def _group_roles(group: Iterable[str]) -> list[str]:
    keys = [_WORD_TO_ROLE[a.casefold()] for a in group if a.casefold() in _WORD_TO_ROLE]
    return list(dict.fromkeys(keys))


def _matches(alias: str, wanted: str) -> bool:
    a, w = alias.casefold(), wanted.casefold()
    if a == w:
        return True
    if _is_label(alias) or _is_label(wanted) or min(len(a), len(w)) < 4:
        return False
    return a in w or w in a


def _expand(roles: Iterable[str], linked_generic: set[str]) -> list[str]:
    words: list[str] = []
    for key in roles:
        words += ROLE_SYNONYMS.get(key, ())
        words += [g for g, r in GENERIC_LABELS.items() if r == key and g not in linked_generic]
    return words


_CACHE: dict[tuple[int, str], tuple[DocumentStructure | None, PartyRoles]] = {}
_CACHE_SIZE = 8
_CACHE_LOCK = threading.Lock()


def party_roles(structure: DocumentStructure | None, our_party: str) -> PartyRoles:
    """Resolve `our_party` (a role word or a company name) against the contract.

    Results are cached for the last few (structure, our_party) pairs: skills call this for
    every clause of the same contract.
    """
    structure = structure.basis if structure is not None else None  # see DocumentStructure
    key = (id(structure), our_party)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is not None and hit[0] is structure:
        return hit[1]
    roles = _resolve(structure, our_party)
    with _CACHE_LOCK:
        while len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = (structure, roles)
    return roles


def _resolve(structure: DocumentStructure | None, our_party: str) -> PartyRoles:
    wanted = _clean(our_party)
    if not wanted:
        return PartyRoles(our_party=our_party, resolved=False)
    groups = _party_groups(structure)
    linked_generic = {
        a for g in groups for a in g if a in GENERIC_LABELS and len(_group_roles(g)) > 0
    }
    wanted_role = role_key(wanted)
    if wanted_role is None and wanted in GENERIC_LABELS and wanted not in linked_generic:
        wanted_role = GENERIC_LABELS[wanted] or None
    ours = _our_group(groups, wanted, wanted_role)
    if ours is None and (named := _named_in_document(structure, " ".join(wanted.split()))):
        # the preamble named no one, or not us: the other side is every other party the
        # document labels
        few = structure is not None and len(groups) < 2
        labelled = _document_labels(_document_text(structure)) if structure and few else []
        ours = named
        known = {a.casefold() for g in groups for a in g} | {a.casefold() for a in named}
        groups = [
            *groups,
            *_merge([g for g in labelled if not {a.casefold() for a in g} & known]),
            named,
        ]
    our_roles = _group_roles(ours) if ours else []
    if wanted_role and wanted_role not in our_roles:
        our_roles.insert(0, wanted_role)
    if ours is None and not our_roles:
        return PartyRoles(our_party=our_party, resolved=False, our_aliases=(wanted,))
    theirs, their_roles = _other_side(groups, ours, our_roles)
    our_aliases = [*(ours or []), *_expand(our_roles, linked_generic), wanted]
    their_aliases = theirs + _expand(their_roles, linked_generic)
    # a word both sides answer to ('Party') names neither
    both = {a.casefold() for a in our_aliases} & {a.casefold() for a in their_aliases}
    return PartyRoles(
        our_party=our_party,
        resolved=True,
        our_roles=tuple(our_roles),
        their_roles=tuple(their_roles),
        our_aliases=_unique(a for a in our_aliases if a.casefold() not in both),
        their_aliases=_unique(a for a in their_aliases if a.casefold() not in both),
    )


def _our_group(groups: list[list[str]], wanted: str, wanted_role: str | None) -> list[str] | None:
    """The party group `wanted` names: by a name or label, else by its role (or a related
    one), else as the one unlabelled party facing the role's counterpart."""
    same = " ".join(wanted.split()).casefold()
    ours = next((g for g in groups if any(" ".join(a.split()).casefold() == same for a in g)), None)
    ours = ours or next((g for g in groups if any(_matches(a, wanted) for a in g)), None)
    if ours is not None or wanted_role is None:
        return ours
    for key in (wanted_role, *_RELATED.get(wanted_role, ())):
        ours = next((g for g in groups if key in _group_roles(g)), None)
        if ours is not None:
            return ours
    index = _unlabelled_counterpart([_group_roles(g) for g in groups], wanted_role)
    return groups[index] if index is not None else None


def _other_side(
    groups: list[list[str]], ours: list[str] | None, our_roles: list[str]
) -> tuple[list[str], list[str]]:
    """The other side's words (every group sharing no role with ours) and roles (our roles'
    counterparts first)."""
    their_roles = [r for key in our_roles for r in COUNTERPARTS.get(key, ()) if r not in our_roles]
    their_roles = list(dict.fromkeys(their_roles))
    theirs: list[str] = []
    for g in groups:
        if g is ours:
            continue
        roles = _group_roles(g)
        if not set(roles) & set(our_roles):
            theirs += g
            their_roles += [r for r in roles if r not in their_roles and r not in our_roles]
    return theirs, their_roles


def _unlabelled_counterpart(roles: Sequence[Sequence[str]], wanted_role: str) -> int | None:
    """Which party (by its index in `roles`, each party's roles) holds `wanted_role` when the
    contract never gives that role a word: the one party without a role, beside a party
    holding the role's counterpart (a franchise agreement between 'Acme Inc. ("we" or "us")'
    and 'The franchisee ("you")', read for the franchisor)."""
    counterparts = set(COUNTERPARTS.get(wanted_role, ()))
    if not any(counterparts & set(r) for r in roles):
        return None
    unlabelled = [i for i, r in enumerate(roles) if not r]
    return unlabelled[0] if len(unlabelled) == 1 else None


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for item in items:
        seen.setdefault(item.casefold(), item)
    return tuple(seen.values())


# --------------------------------------------------------------------------------------------
# Who must / may do what in a sentence
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PartyAction:
    """A party as the subject of a modal in one sentence."""

    side: Side
    kind: ActionKind
    alias: str
    start: int
    """Offset of the party word in the sentence."""
    end: int
    """Offset just past the modal words."""


@dataclass(frozen=True)
class RoleAction:
    """Like `PartyAction`, with the canonical role ('contractor', 'both') instead of a side."""

    role: str
    kind: ActionKind
    alias: str
    start: int
    end: int


_EN_MODALS: tuple[tuple[ActionKind, str], ...] = (
    (
        "denial",
        r"shall\s+not\s+be\s+entitled|(?:is|are)\s+not\s+entitled|will\s+not\s+be\s+entitled"
        r"|shall\s+have\s+no\s+(?:right|claim|entitlement)|waives?",
    ),
    (
        "exempt",
        r"shall\s+not\s+be\s+(?:liable|responsible)|(?:shall|will)\s+(?:have|bear|incur)\s+no\s+liability"
        # free of a duty the other side bears: 'the Employer shall have no reciprocal obligation'
        r"|(?:shall|will)\s+have\s+no\s+(?:\w+\s+)?(?:obligation|duty)"
        r"|(?:is|are|shall\s+be)\s+under\s+no\s+(?:\w+\s+)?(?:obligation|duty)"
        r"|(?:is|are)\s+not\s+(?:liable|responsible)|will\s+not\s+be\s+(?:liable|responsible)"
        r"|shall\s+bear\s+no|bears?\s+no",
    ),
    (
        "bears",
        r"shall\s+(?:solely\s+|fully\s+)?bear|bears?|will\s+bear|shall\s+assume|assumes?"
        r"|shall\s+be\s+(?:solely\s+|fully\s+)?(?:responsible|liable)"
        r"|(?:is|are)\s+(?:solely\s+|fully\s+)?(?:responsible|liable)",
    ),
    (
        "right",
        r"shall\s+be\s+entitled|(?:is|are)\s+entitled|will\s+be\s+entitled"
        # 'shall have the exclusive right', 'has a non-exclusive licence', 'shall have the option'
        r"|(?:shall|will)\s+have\s+(?:the|an?)\s+(?:[\w-]+\s+){0,3}?"
        r"(?:right|option|power|discretion|entitlement|licen[cs]e|privilege)s?\b"
        r"|ha(?:s|ve)\s+(?:the|an?)\s+(?:[\w-]+\s+){0,3}?"
        r"(?:right|option|power|discretion|entitlement|licen[cs]e|privilege)s?\b"
        r"|reserves?\s+the\s+right|(?:is|are|shall\s+be)\s+(?:hereby\s+)?granted"
        # 'Tenant shall have sixty (60) days within which to accept': time given is a right
        r"|shall\s+have(?=\s+(?:a\s+period\s+of\s+)?(?:[a-z-]+\s+)?\(?\d+\)?\s*"
        r"(?:calendar\s+|business\s+|working\s+)?(?:days?|weeks?|months?)\b)"
        r"|may(?!\s+not)",
    ),
    (
        "obligation",
        r"shall|must|will|agrees?\s+to|undertakes?|(?:is|are)\s+required\s+to"
        r"|(?:is|are)\s+obliged\s+to|may\s+not|covenants?"
        # a duty in the present tense: 'Diplomat hereby indemnifies KI'
        r"|indemnifies|holds\s+(?:\w+\s+)?harmless",
    ),
)
_EN_GAP = (
    # 'the Buyer and its nominees may', 'the Supplier alone may'
    # 'the Customer and any auditor it appoints may'
    r"\s*(?:(?:and|or)\s+(?:its|their|any)\s+(?:[\w-]+\s+){0,2}?(?:nominees?|affiliates?|agents?"
    r"|representatives?|employees?|sub-?contractors?|auditors?|personnel|officers?|contractors?"
    r"|successors?|assigns?|designees?)(?:\s+(?:it|they)\s+(?:appoints?|nominates?|designates?"
    r"|engages?|authori[sz]es?))?\s*)?"
    r"(?:,[^,;.]{0,80},\s*|\([^()]{0,80}\)\s*)?"
    r"(?:(?:also|further|hereby|then|thereupon|forthwith|not|alone|only|itself)\s+|[A-Za-z]+ly\s+)?"
)
_EN_MODAL = re.compile(_EN_GAP + "(?:" + "|".join(f"(?P<{k}>{p})" for k, p in _EN_MODALS) + r")\b")
_EN_OBJECT_OF = re.compile(
    r"\b(?:of|to|by|from|against|for|with|on|upon|towards|than|between|under)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
"""A party word after a preposition is not the subject ('liability of the Contractor shall')."""
_EN_RISK_AFTER = re.compile(
    r"(?:'|’)s\s+(?:own\s+|sole\s+)?(?:cost\s+and\s+)?(?:risk|cost|expense|account)\b"
)
_EN_RISK_BEFORE = re.compile(
    r"(?:\b(?:at|for)\s+(?:the\s+)?|\bborne\s+(?:solely\s+|entirely\s+)?by\s+(?:the\s+)?)$"
)

_ZH_MODALS: tuple[tuple[ActionKind, str], ...] = (
    ("denial", r"无权|不得要求|不能要求|不享有|丧失|(?<![不未视])(?:自愿|同意)?放弃"),
    ("exempt", r"不(?:再|必|需|须)?承担|无(?:需|须)承担|免于承担|不负责|不负|免除|免责|概不负责"),
    ("bears", r"(?:自行|全部|独自)?承担|负担"),
    ("right", r"有权|可以|享有|(?<![不许即])可(?!抗力|能|行|靠|供)"),  # 即可: 'suffices'
    (
        "obligation",
        r"应当|应该|必须|(?<![相对供响适反答回])应(?![付收得用])|须|不得|负责|确保"
        r"|保证(?![金期函书人])",
    ),
)
_ZH_MODAL = re.compile("|".join(f"(?P<{k}>{p})" for k, p in _ZH_MODALS))
_ZH_SEGMENT_BREAK = re.compile(r"[，,；;。：:！？!?\n]")
_ZH_MAX_GAP = 20


class _AliasMatcher:
    """One regex over all aliases, mapping each match back to its label."""

    def __init__(self, labelled: Mapping[str, str]) -> None:
        self.labels: dict[str, str] = {}
        for alias, label in labelled.items():
            for variant in _variants(alias):
                self.labels.setdefault(variant, label)
        ordered = sorted(self.labels, key=len, reverse=True)
        ascii_ = "|".join(re.escape(a) for a in ordered if a.isascii())
        other = "|".join(re.escape(a) for a in ordered if not a.isascii())
        parts = ([rf"(?<![A-Za-z0-9])(?:{ascii_})(?![A-Za-z0-9])"] if ascii_ else []) + (
            [other] if other else []
        )
        self.regex = re.compile("|".join(parts)) if parts else None


_LEGAL_SUFFIX = re.compile(r"(?<=\w) (?:Inc|Ltd|LLC|L\.L\.C|Corp|Co|LP|L\.P|plc|N\.V|B\.V)\.?$")


def _variants(alias: str) -> set[str]:
    if not alias.isascii():
        return {alias}
    if alias.casefold() in _PRONOUNS:  # 'you shall', 'You may', 'WE SHALL NOT'; never 'US'
        return {alias.lower(), alias.capitalize()} | ({alias.upper()} - {"US"})
    out = {alias, alias.upper()}
    if alias[:1].islower():  # a brand written in capitals keeps its first letter: 'iPASS'
        out.add(alias[:1] + alias[1:].upper())
    # 'KI Inc.' as the text writes it: 'KI, Inc.'
    if m := _LEGAL_SUFFIX.search(alias):
        out.add(alias[: m.start()] + "," + alias[m.start() :])
    if alias in _BOTH_PHRASES:
        out |= {alias[:1].upper() + alias[1:], alias[:1].lower() + alias[1:]}
    return out


@lru_cache(maxsize=64)
def _matcher(ours: tuple[str, ...], theirs: tuple[str, ...]) -> _AliasMatcher:
    labelled: dict[str, str] = dict.fromkeys(_BOTH_PHRASES, "both")
    for a in theirs:
        labelled.setdefault(a, "them")
    for a in ours:
        labelled[a] = "us"
    return _AliasMatcher(labelled)


@lru_cache(maxsize=1)
def _role_matcher() -> _AliasMatcher:
    labelled: dict[str, str] = dict.fromkeys(_BOTH_PHRASES, "both")
    for key, words in ROLE_SYNONYMS.items():
        for w in words:
            labelled[w] = key
    for label, key in GENERIC_LABELS.items():
        labelled[label] = key
    return _AliasMatcher(labelled)


def _actions(sentence: str, matcher: _AliasMatcher) -> list[tuple[str, ActionKind, str, int, int]]:
    if matcher.regex is None or not sentence:
        return []
    hits = list(matcher.regex.finditer(sentence))
    if not hits:
        return []
    out: list[tuple[str, ActionKind, str, int, int]] = []
    for hit in hits:
        label = matcher.labels[hit.group(0)]
        if hit.group(0).isascii():
            m = _EN_MODAL.match(sentence, hit.end())
            object_of = _EN_OBJECT_OF.search(sentence, max(0, hit.start() - 30), hit.start())
            if m and m.lastgroup and object_of is None:
                out.append((label, m.lastgroup, hit.group(0), hit.start(), m.end()))  # type: ignore[arg-type]
                continue
            if _EN_RISK_AFTER.match(sentence, hit.end()) and _EN_RISK_BEFORE.search(
                sentence[max(0, hit.start() - 40) : hit.start()]
            ):
                out.append((label, "bears", hit.group(0), hit.start(), hit.end()))
    if any(not h.group(0).isascii() for h in hits):
        out += _zh_actions(sentence, hits, matcher)
    out.sort(key=lambda a: a[3])
    return out


_ZH_OBJECT_MARK = frozenset("向给对")


def _zh_actions(
    sentence: str, hits: list[re.Match[str]], matcher: _AliasMatcher
) -> list[tuple[str, ActionKind, str, int, int]]:
    out: list[tuple[str, ActionKind, str, int, int]] = []
    # '向甲方承担', '给乙方造成', '对甲方负责': a party after 向/给/对 is the object, never the subject
    zh_hits = [
        h
        for h in hits
        if not h.group(0).isascii() and sentence[h.start() - 1 : h.start()] not in _ZH_OBJECT_MARK
    ]
    # Chinese drops a subject already given: "乙方逾期交货的，每逾期一日，应按…支付违约金" —
    # the modal of a part without a subject belongs to the last subject, or to the party the
    # sentence opens with ("借款人因…未能按期还款的，不承担…").
    opening = _ZH_OPENING.match(sentence)
    subject = next((h for h in zh_hits if opening and h.start() == opening.end()), None)
    for m in _ZH_MODAL.finditer(sentence):
        kind: ActionKind = m.lastgroup  # type: ignore[assignment]
        before = [h for h in zh_hits if h.end() <= m.start()]
        hit = before[-1] if before else None
        gap = sentence[hit.end() : m.start()] if hit else ""
        if hit and not (
            len(gap) > _ZH_MAX_GAP or _ZH_SEGMENT_BREAK.search(gap) or gap.startswith("的")
        ):
            out.append((matcher.labels[hit.group(0)], kind, hit.group(0), hit.start(), m.end()))
            subject = hit
            continue
        part_start = _last_break(sentence, m.start())
        if (
            subject is not None
            and not _ZH_NAMES_IN_PART.search(sentence, part_start, m.start())
            and not any(h.start() >= part_start for h in before)
        ):
            label = matcher.labels[subject.group(0)]
            out.append((label, kind, subject.group(0), subject.start(), m.end()))
    return out


_ZH_OPENING = re.compile(
    r"\s*(?:[（(]?[0-9一二三四五六七八九十]+(?:\.[0-9]+)*[）)、.．]?\s*)?(?:如果|如|若|倘若|凡)?"
)
"""Numbering and a conditional word a sentence may open with ('8.1 ', '（三）', '如')."""
_ZH_NAMES_IN_PART = re.compile(r"[“”\"]")
"""A part quoting a defined term names its own subject."""


def _last_break(sentence: str, end: int) -> int:
    """Where the part of `sentence` holding offset `end` starts (after the last ，；: …)."""
    starts = [m.end() for m in _ZH_SEGMENT_BREAK.finditer(sentence, 0, end)]
    return starts[-1] if starts else 0


def party_actions(sentence: str, roles: PartyRoles) -> list[PartyAction]:
    """Each party word that is the subject of a modal in `sentence`, with its side and kind
    ('both' for parties named together: 'Either the Reseller or the Vendor may', '供方、需方任何
    一方均不得')."""
    matcher = _matcher(roles.our_aliases, roles.their_aliases)
    actions = _actions(sentence, matcher)
    if not actions:
        return []
    mentions = party_mentions(sentence, roles)
    return [
        PartyAction(
            side="both" if coordinated(sentence, mentions, s, label) else label,  # type: ignore[arg-type]
            kind=kind,
            alias=alias,
            start=s,
            end=e,
        )
        for label, kind, alias, s, e in actions
    ]


_COORDINATION = re.compile(
    r"\s*(?:,|、|/|\bor\b|\band\b|\band/or\b|和|与|及|或者|或|以及)\s*(?:by\s+|to\s+|of\s+)?(?:the\s+)?",
    re.IGNORECASE,
)


def coordinated(sentence: str, mentions: list[tuple[int, Side, str]], at: int, side: str) -> bool:
    """Whether the party word at offset `at` is named together with the other side ('the
    Provider or the Subscriber', 'by the Provider or by the Subscriber', '甲方、乙方')."""
    if side not in ("us", "them"):
        return False
    own = next((w for start, _, w in mentions if start == at), "")
    return any(
        _COORDINATION.fullmatch(sentence, start + len(word), at)
        if start + len(word) <= at
        else _COORDINATION.fullmatch(sentence, at + len(own), start)
        for start, other, word in mentions
        if other in ("us", "them") and other != side
    )


_PAYS = re.compile(r"\b(?:re)?pays?\b|支付|付款|偿还|归还", re.I)
_NOT_THE_PRICE = re.compile(
    r"damages|penalt|interest|compensat|indemn|refund|credit|违约金|赔偿|利息|滞纳金|罚|退还|返还",
    re.I,
)
"""Payments that are not the price: damages, interest, refunds (the other side pays them)."""
_PART_BREAK = re.compile(r"[，,；;：:]|\band\b")
_PAID_PARTY_BEFORE = re.compile(r"(?:向|给|\bto\s+(?:the\s+)?|\bfrom\s+(?:the\s+)?)$")
_ZH_PAYS_AFTER = re.compile(r"[^，。；,;：:]{0,24}?(?:支付|付款|付清|缴纳)")


def payer_of(structure: DocumentStructure | None, roles: PartyRoles) -> tuple[Side, str] | None:
    """(side, party word) of the party that pays under the contract: the one most sentences
    about paying the price oblige (not damages or interest).

    Cached for the last few (structure, roles) pairs: skills ask it for every clause."""
    if structure is None:
        return None
    structure = structure.basis  # a contract amended for verification: its original's
    key = (id(structure), roles)
    with _CACHE_LOCK:
        hit = _PAYER_CACHE.get(key)
    if hit is not None and hit[0] is structure:
        return hit[1]
    payer = _payer(structure, roles)
    with _CACHE_LOCK:
        while len(_PAYER_CACHE) >= _CACHE_SIZE:
            _PAYER_CACHE.pop(next(iter(_PAYER_CACHE)))
        _PAYER_CACHE[key] = (structure, payer)
    return payer


_PAYER_CACHE: dict[tuple[int, PartyRoles], tuple[DocumentStructure, tuple[Side, str] | None]] = {}


def _payer(structure: DocumentStructure, roles: PartyRoles) -> tuple[Side, str] | None:
    counts: dict[tuple[Side, str], int] = {}
    for clause in structure.iter_clauses():
        if clause.children:
            continue
        for sentence in SEGMENT_END.split(clause.text):
            if not _PAYS.search(sentence) or _NOT_THE_PRICE.search(sentence):
                continue
            obliged = [
                a
                for a in party_actions(sentence, roles)
                if a.kind == "obligation" and a.side in ("us", "them")
            ]
            # 'Provider shall invoice …, and Client shall pay …': the subject nearest before
            # the paying verb pays; a party named in the paying verb's own part first of all
            # ('乙方应开具发票，甲方收到发票后方负付款义务').
            pay_at = _PAYS.search(sentence)
            before = [a for a in obliged if pay_at is not None and a.start < pay_at.start()]
            payers: list[tuple[Side, str]] = [
                (a.side, a.alias) for a in (before[-1:] or obliged[:1])
            ]
            if pay_at is not None:
                part = max(
                    (m.end() for m in _PART_BREAK.finditer(sentence, 0, pay_at.start())), default=0
                )
                named = [
                    (cast(Side, side), word)
                    for at, side, word in party_mentions(sentence[: pay_at.start()], roles)
                    if at >= part
                    and side in ("us", "them")
                    and not _PAID_PARTY_BEFORE.search(sentence, max(0, at - 8), at)
                ]
                payers = named[-1:] or payers
            if not payers:  # '甲方向乙方支付…', '甲方于验收后三十日内支付…': no modal
                payers = [
                    (cast(Side, side), word)
                    for at, side, word in party_mentions(sentence, roles)
                    if side in ("us", "them")
                    and sentence[at - 1 : at] not in ("向", "给")
                    and _ZH_PAYS_AFTER.match(sentence, at + len(word))
                ][:1]
            for key in payers:
                counts[key] = counts.get(key, 0) + 1
    if not counts:  # no sentence says who pays: who is invoiced, whose fees are paid
        counts = _paid_by_cues(structure, roles)
    return max(counts, key=lambda k: counts[k]) if counts else None


def _paid_by_cues(structure: DocumentStructure, roles: PartyRoles) -> dict[tuple[Side, str], int]:
    """The parties named as paying where no sentence obliges one to pay: 'Charity Tunes will
    invoice Sponsor', 'the fees paid by Sponsor', 'fees payable to Charity Tunes' (the other
    side pays)."""
    counts: dict[tuple[Side, str], int] = {}
    for clause in structure.iter_clauses():
        if clause.children:
            continue
        for sentence in SEGMENT_END.split(clause.text):
            if _NOT_THE_PRICE.search(sentence):
                continue
            for at, side, word in party_mentions(sentence, roles):
                if side not in ("us", "them"):
                    continue
                before = sentence[max(0, at - 40) : at]
                if _INVOICED.search(before) or AMOUNT_PAID_BY.search(before):
                    payer = (cast(Side, side), word)
                elif _PAYEE_CUE.search(before):
                    other: Side = "them" if side == "us" else "us"
                    aliases = roles.their_aliases if other == "them" else roles.our_aliases
                    payer = (other, aliases[0] if aliases else other)
                else:
                    continue
                counts[payer] = counts.get(payer, 0) + 1
    return counts


_AMOUNT = (
    r"\b(?:fees?|amounts?|sums?|charges|price|monies|moneys|consideration|royalt(?:y|ies))\s+"
    r"(?:\w+\s+){0,3}?"
)
AMOUNT_PAID_BY = re.compile(_AMOUNT + r"(?:paid|payable|owed|owing)\s+by\s+(?:the\s+)?$", re.I)
"""Words before a party that name it as the one paying an amount ('the Fees actually paid by
(Client)'): it pays the price — and the amount may only measure a term, not be a cost of it."""
_PAYEE_CUE = re.compile(_AMOUNT + r"(?:paid|payable|owed|owing|due)\s+to\s+(?:the\s+)?$", re.I)
_INVOICED = re.compile(r"\b(?:(?:shall|will|may)\s+invoice|invoiced?\s+to)\s+(?:the\s+)?$", re.I)


def role_actions(sentence: str) -> list[RoleAction]:
    """Like `party_actions`, by canonical role (any role word of the built-in table)."""
    return [
        RoleAction(role=label, kind=kind, alias=alias, start=s, end=e)
        for label, kind, alias, s, e in _actions(sentence, _role_matcher())
    ]


def party_mentions(text: str, roles: PartyRoles) -> list[tuple[int, Side, str]]:
    """(offset, side, word) of every party word or name in `text`, in order."""
    regex = _matcher(roles.our_aliases, roles.their_aliases).regex
    if regex is None:
        return []
    labels = _matcher(roles.our_aliases, roles.their_aliases).labels
    return [(m.start(), labels[m.group(0)], m.group(0)) for m in regex.finditer(text)]  # type: ignore[misc]


# Where a party's address starts in its description ("… whose registered office is at …",
# "… of Industriestrasse 17, …", "住所：上海市…"); its incorporation ("registered in England and
# Wales", "organised under the laws of Delaware") says nothing of where it sits.
_ADDRESS_AT = re.compile(
    r"\b(?:(?:office|address|place of business|establishment|premises|headquarters)\s+"
    r"(?:is\s+|are\s+)?(?:located\s+|situated\s+)?(?:at|in)|located\s+(?:at|in)|situated\s+(?:at|in)"
    # 'whose registered office is 1151 …', 'having a business address of 2100 …'
    r"|(?:office|address)\s+(?:is|of)(?=\s+\d)"
    r"|residing\s+(?:at|in)"
    # a street address straight after the description: '…, a Canada corporation, 5935 Airport
    # Rd, Suite 405, Mississauga, Ontario'
    r"|,(?=\s+\d{1,6}\s+(?:[A-Z][\w.'-]*\s+){1,4}(?:Road|Rd|Street|St|Avenue|Ave|Boulevard"
    r"|Blvd|Drive|Dr|Lane|Ln|Way|Place|Parkway|Pkwy|Court|Highway|Hwy|Square|Plaza)\b)"
    r"|of(?=\s+\d|\s+[A-Z][a-z]+(?:strasse|straße|weg|gasse|laan|straat|vej|gade)\b))\s+"
    r"|(?:住所|地址|住所地|注册地址|通讯地址|营业地址|所在地)\s*[:：]?\s*"
)
_US_STATES = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California",
    "CO": "Colorado", "CT": "Connecticut", "DE": "Delaware", "FL": "Florida", "GA": "Georgia",
    "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois", "IN": "Indiana", "IA": "Iowa",
    "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana", "ME": "Maine", "MD": "Maryland",
    "MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota", "MS": "Mississippi",
    "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire",
    "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York", "NC": "North Carolina",
    "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania",
    "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota", "TN": "Tennessee",
    "TX": "Texas", "UT": "Utah", "VT": "Vermont", "VA": "Virginia", "WA": "Washington",
    "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming",
}  # fmt: skip
"""US states by their postal codes, as addresses write them ('Palm City FL 34990')."""
_US_STATE_NAMES = frozenset(_US_STATES.values())
_ORGANISED_IN = re.compile(
    r"\b(?:a|an)\s+((?:[A-Z][a-z]+\s+){1,3})(?i:corporation|company|limited\s+(?:liability\s+)?"
    r"(?:company|partnership)|partnership|LLC|corp\.?|business\s+trust|statutory\s+trust)\b"
    r"|\b(?i:organi[sz]ed|incorporated|registered|formed|existing)\s+(?i:and\s+existing\s+)?"
    r"(?i:under\s+the\s+laws?\s+of\s+(?:the\s+)?(?:State\s+of\s+|Province\s+of\s+"
    r"|Commonwealth\s+of\s+)?)((?:[A-Z][a-z]+)(?:\s+(?:and\s+)?[A-Z][a-z]+){0,2})"
)
"""The jurisdiction a party is organised under, in its description."""
_PLACE_STOP = frozenset(
    {
        *("Street", "Road", "Way", "Avenue", "Place", "Lane", "Square", "Floor", "Building"),
        *("House", "Suite", "Unit", "Park", "Tower", "Court", "Centre", "Center", "Plaza"),
        *("Drive", "Boulevard", "Quay", "Business", "The", "And", "Of", "Limited", "Company"),
        *("North", "South", "East", "West", "Upper", "Lower", "Level", "Block", "Estate"),
        "Industrial",
    }
)
_ZH_PLACE = re.compile(
    r"([\u4e00-\u9fff]{2,3}?)(?:省|市|自治区|特别行政区)|([\u4e00-\u9fff]{2,3}?)(?:区|县)"
)


def _places(address: str) -> set[str]:
    """City, region and country words of an address ('Goeppingen', 'Germany', '上海')."""
    words = set(re.findall(r"\b[A-Z][a-zA-Z\u00c0-\u017f\-]{2,}\b", address))
    words |= {a or b for a, b in _ZH_PLACE.findall(address)}
    words |= {c for c in re.findall(r"\b[A-Z]{2}\b", address) if c in _US_STATES}
    return {w for w in words if w not in _PLACE_STOP}


def _address(text: str) -> str:
    """The address at the start of `text`, without its street ('Strandkaien 14, 5013 Bergen,
    Norway' → '5013 Bergen, Norway'): it ends at a bracket, a quote or a clause break."""
    address = re.split(
        # not at an abbreviation of the street ('100 E. Thousand Oaks Blvd. Suite 297')
        r"[（(\n;；\"“]|(?<!\b[A-Z])(?<!Blvd)(?<!Ave)(?<!\bSt)(?<!\bRd)(?<!Ste)(?<!\bNo)(?<!\bDr)"
        r"(?<!Pkwy)(?<!Hwy)\.\s|\s(?:and|which|who|whose|hereinafter|acting|represented)\s",
        text,
        maxsplit=1,
    )[0]
    parts = [p for p in re.split(r",|，", address) if p.strip()]
    if len(parts) > 1 and re.search(r"\d", parts[0]):
        parts = parts[1:]  # '1 Wharfside Way' is a street
    return ",".join(parts)


@lru_cache(maxsize=32)
def _described(text: str, names: tuple[tuple[str, ...], ...]) -> tuple[frozenset[str], ...]:
    places: list[frozenset[str]] = []
    for n, aliases in enumerate(names):
        others = [a for i, g in enumerate(names) if i != n for a in g]
        found: set[str] = set()
        organised: set[str] = set()
        for alias in aliases:
            if len(alias) < 3 or (_is_label(alias) and not has_cjk(alias)):
                continue
            spaced = r"\s+".join(re.escape(w) for w in alias.split())  # 'System  Associates'
            for n_match, m in enumerate(re.finditer(spaced, text)):
                tail = text[m.end() : m.end() + 400]
                # The description ends where the next party is named (or the paragraph ends).
                cut = min(
                    [i for o in others if len(o) >= 2 for i in [tail.find(o)] if i >= 0]
                    + [i for i in [tail.find("\n\n")] if i >= 0]
                    + [len(tail)]
                )
                at = _ADDRESS_AT.search(tail[:cut])
                # a one-word label named again later: only an address that describes it there
                if at is not None and (" " in alias.strip() or n_match == 0 or at.start() <= 80):
                    found |= _places(_address(tail[at.end() : cut]))
                # the law it is organised under, where the party is introduced: 'a Florida
                # corporation', 'a company registered under the laws of England and Wales'
                home = _ORGANISED_IN.search(tail[: min(cut, 160)]) if n_match == 0 else None
                if home is not None and home.start() <= 40:
                    organised |= _places(home.group(1) or home.group(2))
        # where it is organised counts unless its address names another state: a Delaware
        # corporation based in California is at home in California
        states = {_US_STATES.get(w, w) for w in found} & _US_STATE_NAMES
        if not states or organised <= states:
            found |= organised
        found |= {_US_STATES[w] for w in found if w in _US_STATES}  # 'Palm City FL'
        found -= set(_US_STATES)
        places.append(frozenset(found - {w for a in aliases for w in a.split()}))
    return tuple(places)


def party_places(structure: DocumentStructure | None, roles: PartyRoles) -> dict[str, Side]:
    """Place words of each side's address, as the preamble or the definitions give it
    ('Bergen', 'Norway', '上海'), mapped to that side — only places of one side (two parties
    in the same city share it, and it is nobody's home ground)."""
    if structure is None:
        return {}
    structure = structure.basis  # a contract amended for verification: its original's
    key = (id(structure), roles)
    with _CACHE_LOCK:
        hit = _PLACES_CACHE.get(key)
    if hit is not None and hit[0] is structure:
        return hit[1]
    found = _side_places(structure, roles)
    with _CACHE_LOCK:
        while len(_PLACES_CACHE) >= _CACHE_SIZE:
            _PLACES_CACHE.pop(next(iter(_PLACES_CACHE)))
        _PLACES_CACHE[key] = (structure, found)
    return found


_PLACES_CACHE: dict[tuple[int, PartyRoles], tuple[DocumentStructure, dict[str, Side]]] = {}


def _side_places(structure: DocumentStructure, roles: PartyRoles) -> dict[str, Side]:
    groups = _party_groups(structure)
    if not groups:
        return {}
    names = tuple(tuple(g) for g in groups)
    described = _described(_preamble_window(structure), names)
    # the definitions only for a party the preamble gives no place: a definition cut from the
    # preamble may carry the other party's address
    defined = _described(
        "\n\n".join(f"{d.term} {d.definition[:400]}" for d in structure.definitions.values()),
        names,
    )
    places = [own or other for own, other in zip(described, defined, strict=True)]
    sides: dict[str, Side] = {}
    seen: dict[str, int] = {}
    for group, found in zip(groups, places, strict=True):
        side = next((roles.side_of(a) for a in group if roles.side_of(a) in ("us", "them")), None)
        for place in found:
            seen[place] = seen.get(place, 0) + 1
            if side is not None:
                sides[place] = side
    sides = {p: side for p, side in sides.items() if seen[p] == 1}
    performed = _performance_places(structure, set(sides)) if sides else set()
    return {p: side for p, side in sides.items() if p not in performed}


_LOCATED = re.compile(
    r"\b(?:located|situated|site|premises|delivered|delivery|installed|performed)\b"
    r"|位于|坐落|地点|交付至|运抵|运至|送至|项目地址|工程地址|所在地址",
    re.IGNORECASE,
)
"""Words that place the contract's subject: the premises, the site, the delivery point."""


_CHOICE_OF_LAW = re.compile(
    r"\bgoverned\b|\blaws?\s+of\b|\bjurisdiction\b|\bcourts?\b|\barbitrat|适用.{0,6}法律|管辖|法院|仲裁",
    re.IGNORECASE,
)


def _performance_places(structure: DocumentStructure, places: set[str]) -> set[str]:
    """Those of `places` where the contract is performed ('厂房位于苏州市…', 'Premises situated
    at …, Leeds'): a forum there is the natural one, nobody's home ground."""
    found: set[str] = set()
    for clause in structure.iter_clauses():
        if clause.kind is ClauseKind.PREAMBLE or clause.children:
            continue
        text = clause.text
        for hit in _LOCATED.finditer(text):
            begin = max((m.end() for m in SEGMENT_END.finditer(text, 0, hit.start())), default=0)
            stop = SEGMENT_END.search(text, hit.end())
            sentence = text[begin : stop.start() if stop else len(text)]
            if _CHOICE_OF_LAW.search(sentence):
                continue  # 'the laws of Texas, applicable to contracts performed there'
            found |= {p for p in places if p in sentence}
    return found


def obligor_of(sentence: str, roles: PartyRoles) -> Side | None:
    """Who must act in `sentence`: 'us', 'them', 'both' or None (no obligation of a party).

    "shall"/"must"/"应"/"须" (and bearing a cost or risk) are obligations; "may"/"有权" are rights
    and make nobody an obligor.
    """
    sides = {a.side for a in party_actions(sentence, roles) if a.kind in ("obligation", "bears")}
    if not sides:
        return None
    if "both" in sides or {"us", "them"} <= sides:
        return "both"
    return "us" if "us" in sides else "them"


# --------------------------------------------------------------------------------------------
# The parties of a contract, and which one we act for (resolved once, before a review)
# --------------------------------------------------------------------------------------------


class Party(BaseModel):
    """One party of the contract as its preamble and definitions name it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="Its name ('Acme Ltd'); the label when no name is given.")
    labels: tuple[str, ...] = Field(
        (), description="What the contract calls it: 'Supplier', 'the Company', '甲方', 'MICOA'."
    )
    roles: tuple[str, ...] = Field(
        (), description="Canonical roles of its labels ('supplier', 'buyer', …)."
    )

    def describe(self) -> str:
        """'Acme Ltd ("Supplier")' — how a message names it."""
        others = [label for label in self.labels if label != self.name]
        return f"{self.name} ({', '.join(map(_quoted, others))})" if others else self.name


def _quoted(label: str) -> str:
    return label if has_cjk(label) else f'"{label}"'


class OurSide(BaseModel):
    """Whom a review acts for: one party of the contract, or nobody (neutral)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    party: Party | None = Field(None, description="The party we act for; None when neutral.")
    our_party: str = Field(
        "", description="How the skills name our party ('' when neutral): the user's word."
    )

    @property
    def neutral(self) -> bool:
        """A review that takes no side."""
        return self.party is None


class PartyRequired(InputError):
    """No party was named for a review; carries the parties found, to choose from."""

    def __init__(self, message: str, parties: list[Party]) -> None:
        super().__init__(message)
        self.parties = parties


class PartyNotFound(PartyRequired):
    """The party named for a review is none of the contract's."""


NEUTRAL_WORDS = frozenset({"neutral", "none", "中立", "中性"})
"""`--party` values for a review that acts for nobody."""

_DOC_WORDS = frozenset(
    {
        "agreement",
        "amendment",
        "contract",
        "effective date",
        "execution date",
        "party",
        "parties",
        "term",
        "territory",
        "recitals",
        "schedule",
        "exhibit",
        "annex",
        "system",
        "program",
        "affiliate program",
    }
)
"""Labels a preamble gives to things that are not parties ('the "Agreement"')."""

_LABEL_BODY = _NAME_START + r"[A-Za-z0-9&.'\- ]{0,38}[A-Za-z0-9.]"
"""A quoted label's words: 'Supplier', 'MD Anderson', 'i-Escrow', '2TheMart'."""

# A parenthesised short name after a party's description: ("MD Anderson"), (the "Supplier"),
# (hereinafter referred to as "CUTANEA"), ("Agency"; each a "Party"); unquoted only as an
# acronym, (MICOA), or after "as", (as Company).
_PREAMBLE_LABEL = re.compile(
    r"\(\s*(?:(?:the|here(?:in)?after(?:\s+(?:referred\s+to|called|named|defined))?(?:\s+as)?"
    # a closing quote may be missing before the parenthesis closes: '(the "Professional)'
    r"|herein)\s+)?(?:the\s+)?(?:[\"“”]\s*(?:the\s+)?(" + _LABEL_BODY + r")\s*(?:[\"“”]|(?=\)))"
    r"|([A-Z][A-Z0-9&\-]{1,11})(?=\s*\))|as\s+(?:the\s+)?([A-Z][A-Za-z]{2,30})(?=\s*\))"
    # '… Limited Partnership (Transporter)': a bare word, taken only straight after a company
    r"|([A-Z][a-z]{2,20})(?=\s*\))"
    # or the opening quote: '(Client")'
    r"|(" + _LABEL_BODY + r")\s*[\"”](?=\s*\)))"
)
# Where a party's description starts: after "between", "by", "and", "with", a line break (and
# its label: 'From:', 'To:', 'Client:').
# A party set out in its own paragraph ("by and between:\n\nACME, INC., a Delaware …")
# starts at its line.
_PARTY_START = re.compile(
    r"(?i:\bbetween|\bamong(?:st)?|\bby|\band|\bwith|\bin\s+favou?r\s+of|\bfor\s+the\s+benefit\s+of)"
    r"[\s,:]+(?=" + _NAME_START + ")"
    # a list of parties: '…, Inc. (the "Investment Adviser"), Securian Financial Services, …'
    r"|\)[ \t]*,[ \t]*(?:(?i:and|or)[ \t]+)?(?=" + _NAME_START + ")"
    r"|(?:^|\n)[ \t]*[A-Z][A-Za-z]{1,15}(?: [A-Za-z]{1,15})?:[ \t]*(?=[A-Z])"  # 'From: Acme LLP'
    r"|(?:^|\n)[ \t,:]*(?=[A-Z])"
)
_LIST_MARK = re.compile(
    r"(?:^|\n|[:;]|\b(?i:and|between))[ \t]*(?:\(\d{1,2}\)|\(?[a-z]\)|\d{1,2}\.)[ \t]+(?=[A-Z])"
)
_NAME_RUN = re.compile(
    r"(?:The\s+|the\s+)?" + _NAME_START + r"[\w.&'’\-]*(?:,?\s+(?:(?:of|for|the|de|du|la|&)\s+)?"
    r"(?:[0-9]|" + _NAME_START + r")[\w.&'’\-]*){0,9}"
)


_ORG_SUFFIX = re.compile(r"(?<![A-Za-z])" + _EN_SUFFIX + r"(?![A-Za-z])")
"""A company form ('Ltd', 'Inc.', 'GmbH') in a name."""
_ANY_CASE_SUFFIX = re.compile(_ORG_SUFFIX.pattern, re.IGNORECASE)  # 'ANR PIPELINE COMPANY'
# Where a company's name ends and what follows it is not: its address ('… GmbH   Ringstrasse
# 4'), its description ('…, Inc., the Affiliate Office')
_FORM_THEN_ADDRESS = re.compile(r"(?<![A-Za-z])" + _EN_SUFFIX + r"(?=\s{2,}|\s+\d)")
_FORM_THEN_DESCRIPTION = re.compile(r"(?<![A-Za-z])" + _EN_SUFFIX + r"(?=,?\s+(?:the|a|an)\s)")


def _preamble_window(structure: DocumentStructure) -> str:
    """The text before the first clause, or the document's opening when it has none, with the
    list items that follow it ("made between: (1) Acme S.p.A. …; and (2) …")."""
    text = _preamble_text(structure)
    after = structure.clauses[1:] if structure.clauses else []
    if structure.clauses and structure.clauses[0].kind is ClauseKind.PREAMBLE:
        for clause in after:
            if clause.kind is not ClauseKind.ITEM:
                break
            text += "\n\n" + clause.text
    # the parties are named before the recitals: a third party a recital names ('appointed by
    # Severn Vale Water plc (the "Employer")') is none of them
    recitals = recital_headings(text)
    if recitals and recitals[0][0] > 0:
        text = text[: recitals[0][0]]
    return text[:6000]


def _org_before(text: str, end: int, after: int = 0) -> str | None:
    """The party named by the description that a parenthesised label at `end` closes: the
    capitalised name where the description starts — the first 'between', 'and', … after the
    previous label, which ends at `after` (a description may itself say 'England and Wales'
    or hold parentheses: '(organisation number …)')."""
    head = text[max(0, end - 800, after) : end]
    # The description lies after the previous label and within the paragraph, or in the one
    # before when the label opens its own ('Xencor, Inc.  111 W. Lemon Ave. …\n\n(hereinafter
    # called "XENCOR")').
    base = head.rfind("\n\n") + 1
    if base and not head[base:].strip():
        base = head.rfind("\n\n", 0, base - 1) + 1
    # A description a page layout broke after a comma goes on ('… 20095 Hamburg,\n\nGermany')
    while base and (before := head[: base - 1].rstrip()).endswith(","):
        base = head.rfind("\n\n", 0, len(before)) + 1
    starts = [m.end() for m in _PARTY_START.finditer(head, base)]
    # A numbered list of parties: "(1) Acme S.p.A., a company … ("Manufacturer"); and (2) …"
    listed = [m.end() for m in _LIST_MARK.finditer(head, base)]
    if listed:
        starts.insert(0, listed[-1])
    for start in starts:
        run = _NAME_RUN.match(head, start)
        if run is None:
            continue
        name = re.sub(r"\s+", " ", run.group()).strip(" ,")
        # A company form in lower case ends the name too: 'Castellan Holdings plc'.
        form = _LOWER_FORM.match(head, run.end())
        name += form.group() if form else ""
        suffix = re.search(r"^(.*?(?<![A-Za-z])" + _EN_SUFFIX + r")(?![A-Za-z])", name)
        name = suffix.group(1) if suffix else name
        if 2 <= len(name) <= 90 and not _is_doc_phrase(name):
            return name
    return None


_LABEL_REACH = 200
"""How far after a company's name the label it is given may stand (its description between)."""
_CLOSING = 0.2
"""The share of a document at its end where its signature blocks are looked for."""


def _document_text(structure: DocumentStructure) -> str:
    return "\n\n".join(c.text for c in structure.clauses)


def _document_labels(text: str) -> list[list[str]]:
    """[label, name] of every party label the whole document gives a company or person —
    wherever its preamble is ('… Miltenyi Biotec GmbH ("Miltenyi") and Bellicum
    Pharmaceuticals, Inc. ("Bellicum")' past a table of contents): the label of a company
    named just before it, or made of its name's words; not a thing a company's clause defines
    ('About.com, Inc. … (the "About Content")')."""
    groups: list[list[str]] = []
    after = 0
    for start, end, raw, bare, more in _label_marks(text):
        previous, after = after, end
        label = _clean(raw)
        # '… furnishing the services of Kathy Ireland ("KI")': the name just before, when no
        # party's description starts there
        name = _org_before(text, start, previous) or _trailing_name(text, start)
        if name is not None:  # 'COMWARE TECHNICAL SERVICES OF 17922 SKY PARK …': no address
            name = re.split(r"\s+of\s+\d|,?\s+\d", name, maxsplit=1, flags=re.IGNORECASE)[0]
        if name is None or len(label) < 2 or not _looks_like_name(name):
            continue
        # in capitals, a word of the name ('… SERVICES OF <address> (COMWARE)')
        spelled = label.isupper() and all(w in name.split() for w in label.split())
        last = name.split()[-1]
        described = text[max(0, text.rfind(last, 0, start) + len(last)) : start]
        company = _ANY_CASE_SUFFIX.search(name) or (not bare and _DESCRIBED.search(described))
        if bare and not (company or spelled):
            continue
        close = text.rfind(name.split()[-1], 0, start)
        if (
            (
                company
                and (
                    _names(label, name)
                    or role_key(label) is not None
                    or 0 <= start - close < _LABEL_REACH
                )
            )
            or (_person(name) and _names(label, name))
            or spelled
        ):
            group = [label, name] if name.casefold() != label.casefold() else [label]
            groups.append(group + [_clean(m) for m in more if not _is_doc_phrase(m)])
    return groups


_TRAILING_NAME = re.compile(r"(?:[A-Z][\w.'’&-]*,?\s+){1,5}[A-Z][\w.'’-]*\s*$")


def _trailing_name(text: str, end: int) -> str | None:
    """The person named right before a label ('… the services of Lena Marsh ("LM")')."""
    m = _TRAILING_NAME.search(text, max(0, end - 120), end)
    name = " ".join(m.group().split()).strip(" ,") if m else ""
    return name if _person(name) else None


def _named_in_document(structure: DocumentStructure | None, wanted: str) -> list[str] | None:
    """A party the preamble did not name, found elsewhere in the document by the word a
    lawyer typed: a label the document gives a company or person anywhere
    (`_document_labels`), a quoted label that acts as parties do, or a company's or person's
    name in the opening or by a signature. The alias group found ([the word as written, its
    name]), or None."""
    if structure is None or not wanted or _is_doc_phrase(wanted) or is_pronoun(wanted):
        return None
    text = _document_text(structure)
    want = wanted.casefold()
    for group in _document_labels(text):
        if any(" ".join(a.split()).casefold() == want for a in group):
            return group
    if _acts_as_party(text, wanted):
        return [wanted]
    defined = {" ".join(d.split()).casefold() for d in structure.definitions}
    if not _capitalised(wanted) or want in defined:
        return None  # a term the contract defines ('Business Day') names no party
    # a name: in the opening (past a table of contents) or by a signature, followed by the
    # rest of a company's name when the lawyer typed its first words ('Bellicum')
    closing = int(len(text) * (1 - _CLOSING))
    words = r"\s+".join(map(re.escape, wanted.split()))
    for m in re.finditer(r"(?<![\w.])" + words + r"(?![\w])", text, re.IGNORECASE):
        signed = bool(_SIGNATURE.search(text, max(0, m.start() - 150), m.end() + 150))
        if _OPENING < m.start() < closing and not signed:
            continue
        run = _NAME_RUN.match(text, m.start())
        found = " ".join(m.group().split())
        longer = " ".join(run.group().split()).strip(" ,") if run else found
        if _ALSO_KNOWN_AS.search(text, max(0, m.start() - 30), m.start()):
            # 'TIME LIFE, INC. d/b/a Time Life Music': the party before, by another name
            before = _org_before(text, m.start()) or ""
            return [found, before] if before else [found]
        # 'Fonterra (USA) Inc.': a form a bracketed word away
        bracketed = re.match(
            r"\s*\([A-Z][\w. ]{0,20}\)\s+[A-Z][\w.]*", text[m.end() : m.end() + 40]
        )
        if bracketed and _ORG_FORM.search(bracketed.group()):
            longer = " ".join(text[m.start() : m.end() + bracketed.end()].split())
        lower = _LOWER_FORM.match(text, run.end()) if run else None
        longer += lower.group() if lower else ""  # 'Marlowe Retail Group plc'
        forms = list(_ORG_FORM.finditer(longer))  # 'Marlowe Retail Group plc': the last
        if forms:
            longer = longer[: forms[-1].end()]
        group = [found] if longer.casefold() == found.casefold() else [found, longer]
        if _ORG_FORM.search(" ".join(group)) or (
            _person(found) and (signed or _INDIVIDUAL.search(text, m.end(), m.end() + 120))
        ):
            return group
    return None


_AGENT_VERBS = (
    r"(?:agrees?|acknowledges?|represents?|warrants?|covenants?|undertakes?|hereby|"
    r"(?:shall|will|must)\s+(?:not\s+)?(?:pay|provide|indemnify|notify|use|maintain|deliver|"
    r"perform|obtain|purchase|sell|supply|keep|furnish|cooperate|assist|submit|promptly|"
    r"reimburse|procure|invoice|comply)|may\s+(?:terminate|request|elect|assign|require|audit|"
    r"inspect|cancel))\b"
)
"""What a party does and a thing does not: agree, warrant, pay, indemnify, terminate."""
_ACTS = 2
"""How often a quoted label must act as a party does ('the Operator shall provide …')."""


def _acts_as_party(text: str, wanted: str) -> bool:
    """Whether the document gives `wanted` as a quoted label and makes it act as parties
    do — agree, warrant, pay, indemnify, terminate (`_AGENT_VERBS`) — at least `_ACTS` times. 'Operator', 'Underwriter', 'Lenders':
    labels a preamble did not tie to a name."""
    if not wanted[:1].isupper() or len(wanted.split()) > 4:
        return False
    words = r"\s+".join(map(re.escape, wanted.split()))
    if not re.search(r"[\"“]\s*(?:the\s+)?" + words + r"\s*[\"”]", text):
        return False
    acting = re.findall(r"(?<![\w-])" + words + r"\s+" + _AGENT_VERBS, text)
    return len(acting) >= _ACTS


_ORG_FORM = re.compile(
    r"(?<![A-Za-z])(?:" + _EN_SUFFIX + r"|L\.?P|Incorporated|S\.?p\.?A|S\.?[àa]\.?\s?r\.?\s?l|"
    r"S\.?r\.?l|Sdn\.?\s+Bhd|Bhd|Berhad|AB|Tbk|Oy|ASA?|ApS|KG(?:aA)?|SE|N\.?A|FSB|a\.\s?s|"
    r"s\.\s?r\.\s?o|d\.\s?o\.\s?o|Kft|Zrt|A/S|S\.L|"
    r"National\s+Association|Bank|Trust|Fund|University|Foundation|Association)(?![A-Za-z])",
    re.IGNORECASE,
)
"""A company's or institution's form, wider than the preamble's (`_EN_SUFFIX`): a name the
lawyer typed that the document holds with one of these is an organisation."""
_LOWER_FORM = re.compile(r",?\s+(?:plc|ltd|llc|gmbh|inc)\.?(?![A-Za-z])")
"""A company form in lower case, which a name run (capitalised words) stops before."""
_SIGNATURE = re.compile(r"(?i)\bby\s*:|/s/|\bname\s*:|\bon\s+behalf\s+of\b")
"""The marks of a signature block, near a name that signs."""


_MARKS = re.compile(r"[™®©℠]")
"""Trade mark signs, no part of a name a lawyer types."""
_ALSO_KNOWN_AS = re.compile(
    r"(?:\bd/b/a|\bdoing\s+business\s+as|\btrading\s+as|\bt/a|\bf/k/a|\bformerly\s+known\s+as"
    r"|\ba/k/a|\balso\s+known\s+as)\s*$",
    re.IGNORECASE,
)
"""What makes the name after it another name of the party before: 'TIME LIFE, INC. d/b/a Time
Life Music'."""
_DESCRIBED = re.compile(
    r"^[^,()]{0,3}(?:\([^()]{1,20}\)\s*\S{0,12})?,\s+an?\s+(?:[\w-]+\s+){0,4}?"
    r"(?:corporation|company|partnership|association|trust"
    r"|bank|limited\s+liability\s+company|organi[sz]ation|institution|university|authority)\b",
    re.IGNORECASE,
)
"""A description that makes the name before it an organisation: '…, a California general
partnership ("Partnership")'."""

_INDIVIDUAL = re.compile(
    r"^[\s,(]*(?:an?\s+individual|an?\s+(?:resident|citizen)\b|residing\b)"
    r"|^[\s,]*(?:[A-Z][\w.]*\s*){0,3}(?:\n|\s{2,})\s*(?:title|date|its|name)\b",
    re.IGNORECASE,
)
"""What follows a person's name that is a party: ', an individual', or the lines of a
signature block ('Paul Silas\n Date: …')."""


def _person(name: str) -> bool:
    """A person's name as a party: two to four capitalised words ('Kathy Whitworth', 'Gregory
    P. Spivy'), or with a title ('Mr. Zheng')."""
    words = name.split()
    if re.match(r"(?i)(?:mr|mrs|ms|dr|prof)\.?\s", name):
        return True
    return 2 <= len(words) <= 4 and all(
        re.fullmatch(r"[A-Z][a-z'’\-]+|[A-Z]\.|[A-Z][a-z]*[A-Z][a-z]+", w) for w in words
    )


def _is_doc_phrase(text: str) -> bool:
    """Text that names the document or its parts, not a party ('This Supply Agreement')."""
    cf = text.casefold()
    return cf in _DOC_WORDS or bool(
        re.search(
            r"\bagreement\b|\bwhereas\b|^th(?:is|ese)\b|\bcontract\b|\bact\b|^(?:exhibit|schedule|"
            r"attachment|annex|section|article|between|in consideration|pursuant|synthetic)\b",
            cf,
        )
    )


_SET_OFF_LABEL = re.compile(
    r"[,—–]\s*here(?:in)?after\s+(?:(?:referred\s+to|called|named)\s+)?as\s*:?\s*(?:the\s+)?"
    r"(?:[\"“]\s*(" + _LABEL_BODY + r")\s*[\"”]"
    r"|(" + _NAME_START + r"[\w.&'\-]{1,30}))(?=\s*[,;.—–)]|\s*$)"
)
"""A label set off by commas or dashes instead of parentheses: '…, Germany — hereinafter
referred to as Cremer —', '…, hereinafter referred to as: "Acme",'."""


_MORE_LABELS = re.compile(
    r"\s*(?:,|;|\bor\b|\band\b|/)\s*(?:the\s+)?[\"“”]\s*(" + _LABEL_BODY + r")\s*[\"“”]"
)
"""A further label in the same parenthesis: '("Domini" or the "Sponsor")', '("Buyer" or "PNC")'."""


def _label_marks(text: str) -> list[tuple[int, int, str, bool, tuple[str, ...]]]:
    """(start, end, label, bare, more) of each label a preamble gives its parties, in text
    order; `bare`: a word in parentheses without quotes, a label only straight after a
    company; `more`: further labels in the same parenthesis ('("Domini" or the "Sponsor")')."""
    marks = []
    for m in _PREAMBLE_LABEL.finditer(text):
        more: list[str] = []
        end = m.end()
        while (extra := _MORE_LABELS.match(text, end)) is not None:
            more.append(extra.group(1))
            end = extra.end()
        label = next(g for g in m.groups() if g)
        marks.append((m.start(), end, label, m.group(4) is not None, tuple(more)))
    marks += [
        (m.start(), m.end(), next(g for g in m.groups() if g), False, ())
        for m in _SET_OFF_LABEL.finditer(text)
    ]
    return sorted(marks)


def _preamble_groups(structure: DocumentStructure) -> list[list[str]]:
    """[label, name] groups from the labels an English preamble gives its parties."""
    text = _preamble_window(structure)
    groups: list[list[str]] = []
    after = 0
    for start, end, raw, bare, more in _label_marks(text):
        label = _clean(raw)
        name = _org_before(text, start, after) if bare else None
        if bare and not (
            name
            and _ANY_CASE_SUFFIX.search(name)
            and re.search(re.escape(name) + r"\s*$", text[:start])
        ):
            # '(Delaware)', '(Amtsgericht)': a bare word in parentheses names a party only
            # straight after a company ('… Limited Partnership (Transporter)'); otherwise it is
            # part of a description, which goes on
            continue
        previous, after = after, end
        if len(label) < 2 or _is_doc_phrase(label) or _ROMAN.fullmatch(label):
            continue  # '(II) OF THE TYPE …': a numbered item, not a label
        if not bare:
            name = _org_before(text, start, previous)
        if name is None or not (
            _is_label(label)
            or (_looks_like_name(name) and (_ANY_CASE_SUFFIX.search(name) or _names(label, name)))
        ):
            # '… with Web-based access to the software ("Software")': a thing the contract
            # defines, not a party — a party is a company, has a role, or is called by its name
            continue
        group = [label, name] if label.casefold() != name.casefold() else [name]
        groups.append(group + [_clean(m) for m in more if not _is_doc_phrase(m)])
    return groups


_PRONOUN_WORD = r"[\"“]\s*(we|us|our|you|your)\s*,?\s*[\"”]"
_PRONOUN_LABEL = re.compile(
    r"\(\s*" + _PRONOUN_WORD + r"(?:\s*,?\s*(?:or|and)?\s*" + _PRONOUN_WORD + r")*\s*\)",
    re.IGNORECASE,
)
"""A party named by pronouns: `("we" or "us")`, `("you")`, `("We," "Us" or "Our")`."""
_ROLE_BEFORE = re.compile(r"\b([A-Za-z][a-z]+)\s*$")


_OPENING = 12_000
"""How far into a document its parties' pronouns are looked for (past a table of contents)."""


def _opening(structure: DocumentStructure) -> str:
    """The document's first `_OPENING` characters, whatever clauses they fell into."""
    parts: list[str] = []
    size = 0
    for clause in structure.clauses:
        if size >= _OPENING:
            break
        parts.append(clause.text)
        size += len(clause.text) + 1
    return "\n".join(parts)[:_OPENING]


def _pronouns(label: re.Match[str]) -> list[str]:
    """The pronouns a `_PRONOUN_LABEL` gives a party, with their possessive."""
    found = re.findall(_PRONOUN_WORD, label.group(0), re.IGNORECASE)
    words = [_PRONOUNS[w.casefold()] for w in found]
    words += [_POSSESSIVE[w] for w in words if w in _POSSESSIVE]
    return list(dict.fromkeys(words))


def _pronoun_groups(structure: DocumentStructure) -> list[list[str]]:
    """The parties a contract's opening names by pronouns, each with its company name when one
    stands before the label, and the role word the contract gives a pronoun anywhere ('The
    franchisee ("you") includes …'). Nothing when the opening names no party so: a 'you' in
    a warranty card attached as an exhibit is nobody's label."""
    text = _opening(structure)
    groups: list[list[str]] = []
    after = 0
    for m in _PRONOUN_LABEL.finditer(text):
        previous, after = after, m.end()
        words = _pronouns(m)
        name = _org_before(text, m.start(), previous)
        groups.append(words + ([name] if name else []))
    if not groups:
        return []
    for clause in structure.iter_clauses():
        if clause.children:
            continue
        for m in _PRONOUN_LABEL.finditer(clause.text):
            role = _ROLE_BEFORE.search(clause.text, max(0, m.start() - 40), m.start())
            if role is None or role_key(role.group(1)) is None:
                continue
            groups.append([*_pronouns(m), role.group(1).capitalize()])
    return groups


def _party_groups(structure: DocumentStructure | None) -> list[list[str]]:
    """The alias groups of the contract's parties: definitions and label lines, and the labels
    an English preamble gives in parentheses (`… Inc. ("King")`) or by pronouns."""
    if structure is None:
        return []
    pronouns = _pronoun_groups(structure)
    # A party called "we" or "you" has its label: another one its description gives names a
    # thing ('which operates the marketplace (the "Platform") ("we")'), unless it is a role.
    named = {a.casefold() for g in pronouns for a in g if not is_pronoun(a)}
    preamble = [
        g
        for g in _preamble_groups(structure)
        if not (len(g) == 2 and g[1].casefold() in named and not _is_label(g[0]))
    ]
    found = [*contract_parties(structure), *preamble, *pronouns]
    # A name starts with a capital (or is Chinese): 'beneficial owner of …' is prose.
    groups = _merge(
        [[a for a in g if a.strip() and not _is_doc_phrase(a) and not _prose(a)] for g in found]
    )
    if len(groups) < 2:
        # 'by and between Orchard Foods Inc. and Meadow Packaging LLC', '… and Kathy Whitworth,
        # an individual': parties the preamble names without a label
        known = {a.casefold() for g in groups for a in g}
        unlabelled = _unlabelled(_preamble_window(structure))
        groups += [g for g in unlabelled if not any(_matches(a, g[0]) for a in known)]
    return groups


_PERSON_MARK = re.compile(
    r"^,?\s*(?:an?\s+individual|an?\s+(?:natural\s+)?person|an?\s+(?:resident|citizen)\s+of"
    r"|residing\s+at|whose\s+address)\b",
    re.IGNORECASE,
)
"""What follows a person named as a party: ', an individual', ', residing at …'."""


def _unlabelled(text: str) -> list[list[str]]:
    """The parties the sentence naming them ('between … and …') gives no label: companies by
    their form ('Inc.', 'LLC'), persons by what follows their name (', an individual')."""
    between = _BETWEEN.search(text)
    if between is None:
        return []
    end = text.find(".\n", between.end())
    sentence_end = len(text) if end < 0 else end
    groups: list[list[str]] = []
    for m in _PARTY_START.finditer(text, between.start(), sentence_end):
        run = _NAME_RUN.match(text, m.end())
        if run is None:
            continue
        name = " ".join(run.group().split()).strip(" ,")
        lower = _LOWER_FORM.match(text, run.end())
        name += lower.group() if lower else ""
        forms = list(_ANY_CASE_SUFFIX.finditer(name))
        aliases = [name]
        if forms:
            aliases = [name[: forms[-1].end()]]
        elif _person(name) and _PERSON_MARK.match(text[run.end() :]):
            aliases.append(name.split()[-1])  # a person is called by surname: 'Whitworth'
        else:
            continue
        if not _is_doc_phrase(name) and aliases[0].casefold() not in {
            g[0].casefold() for g in groups
        }:
            groups.append(aliases)
    return groups


def find_parties(structure: DocumentStructure | None) -> list[Party]:
    """The contract's parties, each with its name, labels and roles (preamble and
    definitions, English and Chinese), in the order the contract names them."""
    groups = _party_groups(structure)
    parties = []
    for group in groups:
        labels = tuple(_unique(_clean(a) for a in group))
        if not labels:
            continue
        names = [a for a in labels if not _is_label(a) and _looks_like_name(a)]
        named = [a for a in names if _ORG_SUFFIX.search(a) or re.search(_ZH_SUFFIX, a)]
        words = [a for a in labels if not is_pronoun(a)] or labels[:1]  # 'We', not 'Our'
        name = _ADDRESS_TAIL.sub("", max(named or names or words, key=len))
        # 'Payment Data Systems, Inc., the Affiliate Office': the description after the form
        form = _FORM_THEN_DESCRIPTION.search(name)
        if form is not None:
            name = name[: form.end()]
        if _DOC_PARTS.search(name) and not (named or _is_label(name)):
            continue  # 'Conditions, Schedules': the parts of a document, not a party
        if len(labels) == 1 and not (_is_label(name) or named):
            continue  # a lone capitalised phrase is no party
        parties.append(Party(name=name, labels=labels, roles=tuple(_group_roles(labels))))
    return parties


def _document_mentions(structure: DocumentStructure, word: str) -> bool:
    """Whether `word` is used in the document as a party word (capitalised in English)."""
    pattern = re.escape(word) if has_cjk(word) else rf"\b{re.escape(word)}\b"
    texts = (c.text for c in structure.iter_clauses())
    return any(re.search(pattern, t) for t in texts)


def resolve_party(
    structure: DocumentStructure | None,
    query: str | None,
    parties: list[Party] | None = None,
) -> OurSide:
    """Whom a review acts for: `query` is a party's name, one of its labels ('Supplier',
    '甲方', 'the Company'), a role ('buyer', 'licensee', '承包人', a synonym such as
    'Purchaser' for a party labelled 'Buyer'), or 'neutral'.

    Raises `PartyRequired` without a query and `PartyNotFound` when it names none of the
    parties; both carry the parties found and say which they are. `parties`, when given, are
    those `find_parties(structure)` found already.
    """
    parties = find_parties(structure) if parties is None else parties
    listing = "; ".join(p.describe() for p in parties) or "none named in the preamble"
    wanted = _clean(_MARKS.sub("", query or ""))  # 'Gridiron BioNutrients™
    if not wanted:
        raise PartyRequired(
            f"--party is required: say whom we act for (parties found: {listing}; or neutral)",
            parties,
        )
    if wanted.casefold() in NEUTRAL_WORDS:
        return OurSide()
    # A word one party is called exactly first ('Photronics DNP Photomask Corporation' is not
    # 'Photronics, Inc.', whose name it holds), then a part of one. Filings space words
    # unevenly ('AFSALA  Bancorp,  Inc.'): matched with the spaces evened, our party is then
    # named as the contract writes it, so its aliases resolve.
    spaced = " ".join(wanted.split())
    for alike in (
        lambda a: a.casefold() == wanted.casefold(),
        lambda a: " ".join(a.split()).casefold() == spaced.casefold(),
        lambda a: _matches(a, wanted),
        lambda a: _matches(" ".join(a.split()), spaced),
    ):
        for party in parties:
            alias = next((a for a in (party.name, *party.labels) if alike(a)), None)
            if alias is not None:
                even = alias.split() == alias.split(" ")
                return OurSide(party=party, our_party=wanted if even else alias)
    role = role_key(wanted)
    if role is not None:
        for key in (role, *_RELATED.get(role, ())):
            by_role = [p for p in parties if key in p.roles]
            if len(by_role) == 1:
                label = next(a for a in by_role[0].labels if role_key(a) == key)
                return OurSide(party=by_role[0], our_party=label)
        index = _unlabelled_counterpart([p.roles for p in parties], role)
        if index is not None:
            return OurSide(party=parties[index], our_party=wanted)
    named = _named_in_document(structure, spaced)
    if named is not None:
        labels = tuple(_unique(named))
        names = [a for a in labels if _looks_like_name(a) or _ORG_FORM.search(a)]
        party = Party(
            name=max(names or labels, key=len), labels=labels, roles=tuple(_group_roles(labels))
        )
        return OurSide(party=party, our_party=labels[0])
    # A role word or label the document uses for a party its preamble does not introduce
    # (General Conditions, a contract without a preamble): accepted as written.
    known_word = role is not None or wanted in GENERIC_LABELS
    if known_word and structure is not None and _document_mentions(structure, wanted):
        roles = (role,) if role else ()
        return OurSide(party=Party(name=wanted, labels=(wanted,), roles=roles), our_party=wanted)
    raise PartyNotFound(
        f"--party '{query}' matches no party of this contract; parties found: {listing}; "
        "give a name, a label, a role or neutral",
        parties,
    )


def as_written(text: str, label: str) -> str:
    """A party's label as the contract writes it: 'the Provider' where it mostly takes the
    article, else 'Provider'."""
    bare = len(re.findall(rf"\b{re.escape(label)}\b", text))
    with_article = len(re.findall(rf"\b[Tt]he\s+{re.escape(label)}\b", text))
    return f"the {label}" if with_article and with_article * 2 >= bare else label
