"""Risk texts in the review's language: a Chinese review writes every risk (description,
reason, analysis) and every redline comment in Chinese, an English review in English — the
contract's own words (quotes, party names, defined terms) excepted.

The bundled examples are reviewed once for the module (deterministic, all redlines approved);
then each rule family is checked on a Chinese clause of its own.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract_review.analysis.titles import has_title
from contract_review.config import Settings
from contract_review.models import (
    ClauseFindings,
    DocumentRole,
    DocumentStructure,
    ReviewResult,
    RiskLevel,
    RiskPoint,
    TaskDocument,
)
from contract_review.parties import find_parties
from contract_review.plugins import create_dispatcher, load_builtin_plugins
from contract_review.plugins.registry import get_plugin
from contract_review.plugins.rules import uncapped_liability_raises_indemnities
from contract_review.review import ReviewOptions, start_review
from contract_review.skills.context import prepare_context
from contract_review.skills.local.draft_redline_comment import DraftRedlineInput
from contract_review.skills.local.draft_redline_comment import handle as draft
from contract_review.skills.risks import risks_from_skill_outputs
from contract_review.structure_parser import StructureParser
from contract_review.text import has_cjk
from tests.conftest import EXAMPLES

ENGLISH_RUN = re.compile(r"(?:[A-Za-z][A-Za-z'’-]*[\s,;:()]+){4}[A-Za-z]")
"""Five English words in a row: English prose, not a name or a figure."""
CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]+")
QUOTED_ZH = re.compile(r"“[^”]*”|「[^」]*」")

SHA_ZH = EXAMPLES / "sha_spa" / "shareholders_agreement_zh.txt"
BUILD_ZH = EXAMPLES / "cn" / "construction_contract_zh.txt"
FIDIC = EXAMPLES / "fidic"

CASES: dict[str, dict[str, Any]] = {
    # Chinese reviews
    "sha_investor": {"file": SHA_ZH, "domain": "sha_spa", "party": "投资方"},
    "build_contractor": {"file": BUILD_ZH, "party": "乙方"},
    "build_employer": {"file": BUILD_ZH, "party": "甲方"},
    "build_fidic": {"file": BUILD_ZH, "domain": "fidic", "party": "承包人"},
    # English reviews (the last two of a Chinese contract, asked in English)
    "services": {"file": EXAMPLES / "generic" / "services_agreement_en.md", "party": "Customer"},
    "supply": {"file": EXAMPLES / "generic" / "supply_agreement_en.txt", "party": "Buyer"},
    "spa_buyer": {
        "file": EXAMPLES / "sha_spa" / "spa_en.txt",
        "domain": "sha_spa",
        "party": "Buyer",
    },
    "spa_seller": {
        "file": EXAMPLES / "sha_spa" / "spa_en.txt",
        "domain": "sha_spa",
        "party": "Seller",
    },
    "fidic": {
        "file": FIDIC / "particular_conditions_amending_en.txt",
        "domain": "fidic",
        "baseline": FIDIC / "general_conditions_en.txt",
        "references": [FIDIC / "employers_requirements_en.txt"],
        "party": "Contractor",
    },
    "build_in_english": {"file": BUILD_ZH, "party": "乙方", "language": "en"},
    "build_fidic_in_english": {
        "file": BUILD_ZH,
        "domain": "fidic",
        "party": "承包人",
        "language": "en",
    },
}
ZH_CASES = ("sha_investor", "build_contractor", "build_employer", "build_fidic")
EN_CASES = tuple(c for c in CASES if c not in ZH_CASES)


@pytest.fixture(scope="module")
def reviews(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ReviewResult]:
    """Each case reviewed once (deterministic: no LLM endpoint in the tests)."""
    root = tmp_path_factory.mktemp("language")

    async def review(name: str, case: dict[str, Any]) -> None:
        options = ReviewOptions(approve="all", out=root / name, **case)
        await start_review(options, settings=Settings(state_dir=root / f"{name}-state"))

    async def all_cases() -> None:
        await asyncio.gather(*(review(name, case) for name, case in CASES.items()))

    asyncio.run(all_cases())
    return {
        name: ReviewResult.model_validate_json((root / name / "findings.json").read_text())
        for name in CASES
    }


def _risks(result: ReviewResult) -> Iterator[RiskPoint]:
    """The clauses' risks (the protections the contract lacks come from playbook data)."""
    for clause in result.clauses:
        yield from clause.findings.risks


def _texts(risk: RiskPoint) -> Iterator[tuple[str, str]]:
    for field in ("description", "reason", "analysis"):
        yield field, getattr(risk, field)


def _names(path: Path) -> list[str]:
    """Words of the contract that stay as written: party names and labels, defined terms,
    and the playbook positions' topics (the domain's names for its points)."""
    structure = StructureParser().parse(path.read_text(encoding="utf-8"))
    names = [w for p in find_parties(structure) for w in (p.name, *p.labels)]
    names += list(structure.definitions)
    load_builtin_plugins()
    for domain in ("generic", "fidic", "sha_spa"):
        plugin = get_plugin(domain)
        playbook = plugin.playbook if plugin is not None else None
        for position in playbook.positions if playbook is not None else []:
            names += [position.topic, position.title]
    return sorted((n for n in names if n), key=len, reverse=True)


def _english_prose(text: str, quote: str, names: list[str]) -> list[str]:
    """Runs of English words left in a Chinese text once the contract's words are removed."""
    if quote:
        text = text.replace(quote, " ")
    text = QUOTED_ZH.sub(" ", text)
    for name in names:
        text = text.replace(name, " ")
    return [m.group() for m in ENGLISH_RUN.finditer(text)]


@pytest.mark.parametrize("case", ZH_CASES)
def test_a_chinese_review_writes_its_risks_in_chinese(
    reviews: dict[str, ReviewResult], case: str
) -> None:
    result = reviews[case]
    assert result.language == "zh-CN"
    names = _names(CASES[case]["file"])
    risks = list(_risks(result))
    assert risks, case
    for risk in risks:
        quote = risk.location.original_text if risk.location else ""
        assert has_cjk(risk.description), (risk.risk_type, risk.description)
        for field, text in _texts(risk):
            english = _english_prose(text, quote, names)
            assert not english, (case, risk.risk_type, field, text)
    for clause in result.clauses:
        for diff in clause.findings.diffs:
            english = _english_prose(diff.reason, diff.original_text, names)
            assert not english, (case, clause.findings.clause_id, diff.reason)
            assert "playbook:" not in diff.reason  # the risk type by its title


def _contract_words(case: dict[str, Any]) -> set[str]:
    files = [case["file"], case.get("baseline"), *case.get("references", [])]
    return {
        run
        for path in files
        if path is not None
        for run in CJK_RUN.findall(Path(path).read_text(encoding="utf-8"))
    }


@pytest.mark.parametrize("case", EN_CASES)
def test_an_english_review_writes_its_risks_in_english(
    reviews: dict[str, ReviewResult], case: str
) -> None:
    result = reviews[case]
    assert result.language == "en"
    contract = "".join(_contract_words(CASES[case]))
    for risk in _risks(result):
        for field, text in _texts(risk):
            # Chinese the engine wrote: any run of Chinese that is not the contract's words
            written = [run for run in CJK_RUN.findall(text) if run not in contract]
            assert not written, (case, risk.risk_type, field, text)


@pytest.mark.parametrize("case", list(CASES))
def test_every_risk_type_a_review_emits_has_a_title(
    reviews: dict[str, ReviewResult], case: str
) -> None:
    types = {r.risk_type for r in _risks(reviews[case])}
    types |= {r.risk_type for r in reviews[case].missing}
    assert types
    assert sorted(t for t in types if not has_title(t)) == []


def test_the_language_changes_no_finding(reviews: dict[str, ReviewResult]) -> None:
    """The same contract reviewed in Chinese and in English: the same risks, at the same levels,
    on the same words."""

    def found(result: ReviewResult) -> list[tuple[str, str, str, str]]:
        return sorted(
            (
                r.clause_id,
                r.risk_type,
                r.risk_level.value,
                r.location.original_text if r.location else "",
            )
            for r in _risks(result)
        )

    assert found(reviews["build_contractor"]) == found(reviews["build_in_english"])
    assert found(reviews["build_fidic"]) == found(reviews["build_fidic_in_english"])


# --------------------------------------------------------------------------------------------
# Each rule family on a Chinese clause
# --------------------------------------------------------------------------------------------

PARSER = StructureParser()


def _rule_risks(
    structure: DocumentStructure,
    clause_id: str,
    skill: str,
    language: str,
    *,
    party: str = "",
    domain: str = "generic",
    documents: list[TaskDocument] | None = None,
) -> list[RiskPoint]:
    """The risks one skill's rule finds on one clause, in `language`."""
    load_builtin_plugins()
    ctx = prepare_context(
        side=party,
        baselines=get_plugin(domain),
        structure=structure,
        language=language,
        domain_id=domain,
        documents=documents or [],
    )
    dispatcher = create_dispatcher()
    result = asyncio.run(dispatcher.prepare_and_call(skill, clause_id, structure, ctx))
    assert result.success, result.error
    registration = dispatcher.get_registration(skill)
    assert registration is not None
    clause = structure.get_clause(clause_id)
    assert clause is not None
    return risks_from_skill_outputs(clause, [(registration, result.data)], language)


def _assert_chinese(risks: list[RiskPoint], names: tuple[str, ...] = ()) -> None:
    assert risks
    for risk in risks:
        quote = risk.location.original_text if risk.location else ""
        assert has_cjk(risk.description), risk.description
        for field, text in _texts(risk):
            assert not _english_prose(text, quote, list(names)), (risk.risk_type, field, text)


def _same_findings(zh: list[RiskPoint], en: list[RiskPoint]) -> None:
    """Only the words differ between the languages."""

    def key(r: RiskPoint) -> tuple[str, str, str]:
        return (r.risk_type, r.risk_level.value, r.location.original_text if r.location else "")

    assert sorted(map(key, zh)) == sorted(map(key, en))


BUILD = PARSER.parse(BUILD_ZH.read_text(encoding="utf-8"), document_id="build")


@pytest.mark.parametrize(
    ("skill", "clause_id", "party", "domain"),
    [
        ("extract_financial_terms", "5", "乙方", "generic"),  # no interest on late payment
        ("extract_financial_terms", "6", "乙方", "generic"),  # retention above 3%
        ("extract_financial_terms", "16", "乙方", "generic"),  # uncapped delay damages
        ("check_positions", "12(4)", "乙方", "generic"),  # indemnity regardless of fault
        ("check_positions", "16", "乙方", "generic"),  # uncapped liability
        ("fidic_calculate_time_bar", "15", "乙方", "fidic"),  # time bar, deemed rejection
    ],
)
def test_rules_on_a_chinese_construction_contract(
    skill: str, clause_id: str, party: str, domain: str
) -> None:
    zh = _rule_risks(BUILD, clause_id, skill, "zh-CN", party=party, domain=domain)
    _assert_chinese(zh)
    en = _rule_risks(BUILD, clause_id, skill, "en", party=party, domain=domain)
    _same_findings(zh, en)


REFERENCES = PARSER.parse(
    """测试合同

甲方：宁波海曙智能科技有限公司
乙方：成都天府数码服务有限公司

第一条 定义
本合同所称“服务费”是指甲方应支付的全部费用。

第二条 付款
甲方应按第九条的约定支付“服务费”，并按第一条的约定开具发票。乙方应遵守“项目手册”的要求。
""",
    document_id="refs",
)


def test_references_and_undefined_terms_in_chinese() -> None:
    missing = _rule_risks(REFERENCES, "2", "cross_reference_check", "zh-CN")
    _assert_chinese(missing)
    assert "第9条" in missing[0].description or "第九条" in missing[0].description
    undefined = _rule_risks(REFERENCES, "2", "resolve_definition", "zh-CN")
    _assert_chinese(undefined)
    assert [r.risk_type for r in undefined] == ["undefined term"]


GC_ZH = PARSER.parse(
    """通用条件

第1条 付款
1.1 发包人应在收到付款申请后28天内向承包人支付进度款。

第2条 责任
2.1 承包人对发包人的赔偿责任总额不超过合同价格。

第3条 工期
3.1 因发包人原因造成工期延误的，承包人有权要求延长工期。
""",
    document_id="gc-zh",
)
PC_ZH = PARSER.parse(
    """合同条件

第1条 付款
1.1 发包人应在收到付款申请后56天内向承包人支付进度款。

第2条 责任
2.1 承包人应赔偿发包人的全部损失，无论何种原因造成，均不设上限。

第3条 工期
3.1 承包人无权要求延长工期。
""",
    document_id="pc-zh",
)


@pytest.mark.parametrize("clause_id", ["1.1", "2.1", "3.1"])
def test_deviations_from_a_chinese_baseline(clause_id: str) -> None:
    docs = [
        TaskDocument(
            document_id="gc-zh", role=DocumentRole.BASELINE, filename="gc.txt", structure=GC_ZH
        )
    ]
    zh = _rule_risks(PC_ZH, clause_id, "assess_deviation", "zh-CN", party="承包人", documents=docs)
    _assert_chinese(zh)
    en = _rule_risks(PC_ZH, clause_id, "assess_deviation", "en", party="承包人", documents=docs)
    _same_findings(zh, en)


PCZ_FIDIC = PARSER.parse(
    """专用条件

第4条 承包人

4.1 不可预见的物质条件
删除第4.1款并替换为：承包人承担全部物质条件的风险，无权获得工期延长或费用补偿。

4.2 变更程序
删除第4.2款。

4.3 现场协调
新增第4.3款：协调变更按第4.2款估价。

第8条 竣工

8.1 误期损害赔偿费
删除第8.1款并替换为：误期损害赔偿费不设上限。

8.2 工期延长
将“42天”改为“21天”。
""",
    document_id="pc-zh",
)
GCZ_FIDIC = PARSER.parse(
    """通用条件

第4条 承包人

4.1 不可预见的物质条件
承包人遇到不可预见的物质条件时，有权获得工期延长。发包人承担该风险。

4.2 变更程序
承包人有权就每项变更调整合同价格。

第8条 竣工

8.1 误期损害赔偿费
误期损害赔偿费总额不超过合同数据中规定的最高限额。

8.2 工期延长
承包人应在知道延误后28天内发出延误通知。
""",
    document_id="gc-zh",
)


@pytest.mark.parametrize("clause_id", ["4.1", "4.2", "4.3", "8.1", "8.2"])
def test_particular_conditions_checked_in_chinese(clause_id: str) -> None:
    docs = [
        TaskDocument(document_id=i, role=r, filename=i, structure=s)
        for i, r, s in (
            ("gc", DocumentRole.BASELINE, GCZ_FIDIC),
            ("pc", DocumentRole.SUPPLEMENT, PCZ_FIDIC),
        )
    ]
    skill = "fidic_check_pc_consistency"
    args: dict[str, Any] = {"party": "承包人", "domain": "fidic", "documents": docs}
    zh = _rule_risks(PCZ_FIDIC, clause_id, skill, "zh-CN", **args)
    _assert_chinese(zh)
    _same_findings(zh, _rule_risks(PCZ_FIDIC, clause_id, skill, "en", **args))


SHA = PARSER.parse(SHA_ZH.read_text(encoding="utf-8"), document_id="sha")
SPA = PARSER.parse(
    """股权转让协议

转让方：海澜控股有限公司（以下简称“卖方”）
受让方：北辰资本有限公司（以下简称“买方”）

第一条 定义
1.1 “转让价款”指人民币壹亿元整（¥100,000,000.00）。

第二条 交割先决条件
2.1 交割以下列条件全部满足（或被豁免）为前提：
（一）买方取得国家市场监督管理总局关于经营者集中的批准；
（二）目标公司未发生重大不利变化。
2.2 第2.1条第（二）项条件仅可由卖方书面豁免。

第三条 陈述与保证
3.1 卖方向买方作出如下陈述与保证：
（一）权属：卖方合法持有目标股权，不存在任何质押或其他权利负担；
（二）税务：据卖方所知，目标公司已依法缴纳全部税款。

第四条 赔偿责任限制
4.1 卖方就违反陈述与保证承担的赔偿总额不超过转让价款的百分之五。
4.2 买方应在交割日后十二个月内书面通知卖方提出索赔。
""",
    document_id="spa",
)


@pytest.mark.parametrize(
    ("structure", "skill", "clause_id", "party"),
    [
        (SHA, "sha_governance_check", "2", "投资方"),
        (SHA, "sha_governance_check", "3", "投资方"),
        (SHA, "sha_governance_check", "4", "投资方"),
        (SHA, "sha_governance_check", "5", "投资方"),
        (SHA, "sha_governance_check", "9", "投资方"),
        (SPA, "spa_extract_conditions", "2", "买方"),
        (SPA, "spa_extract_reps_warranties", "3", "买方"),
        (SPA, "spa_indemnity_analysis", "4", "买方"),
    ],
)
def test_sha_spa_gaps_in_chinese(
    structure: DocumentStructure, skill: str, clause_id: str, party: str
) -> None:
    zh = _rule_risks(structure, clause_id, skill, "zh-CN", party=party, domain="sha_spa")
    _assert_chinese(zh)
    en = _rule_risks(structure, clause_id, skill, "en", party=party, domain="sha_spa")
    _same_findings(zh, en)


def test_an_uncapped_liability_raises_indemnities_in_the_review_language() -> None:
    indemnity = RiskPoint(
        id="r1",
        clause_id="1",
        risk_level=RiskLevel.MEDIUM,
        risk_type="playbook: Indemnity Regardless of Fault",
        description="对我方不利的单方条款。",
        reason="无论对方有无过错均由我方赔偿。",
    )
    uncapped = indemnity.model_copy(update={"id": "r2", "risk_type": "uncapped damages"})
    findings = {"1": ClauseFindings(clause_id="1", risks=[indemnity, uncapped])}
    (raised, _) = uncapped_liability_raises_indemnities(findings, "zh-CN")["1"].risks
    assert raised.risk_level is RiskLevel.HIGH
    assert raised.reason.startswith("无论对方有无过错均由我方赔偿。风险等级已上调")
    (english, _) = uncapped_liability_raises_indemnities(findings, "en")["1"].risks
    assert english.reason.endswith("Raised: liability elsewhere in the contract is uncapped.")


def test_a_chinese_redline_comment_names_the_risk_by_its_title() -> None:
    (risk,) = _rule_risks(BUILD, "12(4)", "check_positions", "zh-CN", party="乙方")
    from contract_review.plugins import load_builtin_plugins
    from contract_review.plugins.registry import require_plugin

    load_builtin_plugins()
    ctx = prepare_context(
        side="乙方",
        baselines=require_plugin("generic"),
        structure=BUILD,
        language="zh-CN",
        domain_id="generic",
    )
    out = draft(
        DraftRedlineInput(
            clause_id="12(4)", risk=risk, document_structure=BUILD, review_context=ctx
        )
    )
    assert out.comment.startswith("高风险——无过错赔偿：对我方不利")
    assert "playbook:" not in out.comment
    assert "Indemnity Regardless of Fault" not in out.comment  # Chinese throughout
