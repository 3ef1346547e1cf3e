"""load_review_criteria: playbooks in CSV, XLSX, YAML and JSON, matched to clauses."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from contract_review.errors import SkillError
from contract_review.models import RiskLevel
from contract_review.playbook.criteria import Criterion, read_criteria_file
from contract_review.skills.dispatcher import SkillDispatcher
from contract_review.skills.local.load_review_criteria import (
    REGISTRATION,
    LoadReviewCriteriaInput,
    LoadReviewCriteriaOutput,
    handle,
    prepare_input,
)
from contract_review.structure_parser import StructureParser
from tests.conftest import EXAMPLES

PARSER = StructureParser()
SUPPLY = PARSER.parse((EXAMPLES / "generic" / "supply_agreement_en.txt").read_text("utf-8"))
SERVICES = PARSER.parse((EXAMPLES / "generic" / "services_agreement_en.md").read_text("utf-8"))
CONSTRUCTION = PARSER.parse((EXAMPLES / "cn" / "construction_contract_zh.txt").read_text("utf-8"))
GENERIC_PLAYBOOK = EXAMPLES / "criteria" / "generic_playbook.csv"
ZH_PLAYBOOK = EXAMPLES / "criteria" / "construction_playbook_zh.yaml"

EN_CSV = """\
Topic,Clause,Criterion,Preferred position (ours),Fallback,Risk level
Limitation of liability,Section 5.4,Liability must be capped for both parties.,Cap at 12 months' fees.,Cap at 24 months' fees.,High
Termination,Article VI,Check termination rights and cure periods.,60-day cure period.,30-day cure period.,medium
Governing law,,Check governing law and forum.,New York law.,Delaware law.,Low
Indemnification,,Check indemnities are mutual and capped.,Mutual and capped.,Capped.,High
Warranty period,,Check the length of the warranty on products and defects in material or workmanship.,12 months.,18 months.,
,,,,,
Late payment interest,,Check interest on late payment of invoices.,1% per month.,Statutory rate.,M
"""


def load(structure: Any, clause_id: str, path: Path | str | None) -> LoadReviewCriteriaOutput:
    return handle(
        LoadReviewCriteriaInput(
            clause_id=clause_id,
            criteria_file_path=None if path is None else str(path),
            document_structure=structure,
        )
    )


def why(out: LoadReviewCriteriaOutput) -> list[tuple[str, str]]:
    """(topic, matched_by) of each match, in order."""
    return [(m.criterion.topic, m.matched_by) for m in out.matches]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- reading ---------------------------------------------------------------------------------


def test_read_csv_with_english_headers(tmp_path: Path) -> None:
    criteria = read_criteria_file(write(tmp_path, "playbook.csv", EN_CSV))
    assert [c.topic for c in criteria] == [
        "Limitation of liability",
        "Termination",
        "Governing law",
        "Indemnification",
        "Warranty period",
        "Late payment interest",
    ]
    first = criteria[0]
    assert isinstance(first, Criterion)
    assert first.criterion_id == "C1"
    assert first.clause_ref == "Section 5.4"
    assert first.clause_ids == ("5.4",)
    assert first.preferred_position == "Cap at 12 months' fees."
    assert first.fallback_position == "Cap at 24 months' fees."
    assert first.source == "playbook.csv row 2"
    assert criteria[1].clause_ids == ("6",)  # Article VI
    assert [c.risk_level for c in criteria] == [
        RiskLevel.HIGH,
        RiskLevel.MEDIUM,
        RiskLevel.LOW,
        RiskLevel.HIGH,
        None,
        RiskLevel.MEDIUM,
    ]
    assert criteria[-1].source == "playbook.csv row 8"  # the blank row is skipped


def test_read_sample_playbooks() -> None:
    generic = read_criteria_file(GENERIC_PLAYBOOK)
    assert len(generic) == 10
    assert generic[0].criterion_id == "G1"
    assert "liability cap" in generic[0].keywords
    assert all(c.preferred_position and c.fallback_position for c in generic)
    zh = read_criteria_file(ZH_PLAYBOOK)
    assert [c.topic for c in zh] == [
        "工期",
        "误期赔偿金",
        "质量保证金",
        "预付款",
        "索赔时效",
        "不可抗力",
        "变更",
        "争议解决",
    ]
    assert zh[7].clause_ids == ("18",)  # 第十八条
    assert zh[1].risk_level is RiskLevel.HIGH
    assert zh[2].risk_level is RiskLevel.MEDIUM
    assert zh[7].risk_level is RiskLevel.LOW
    assert zh[1].keywords == ("逾期竣工", "延误", "违约金")


@pytest.mark.parametrize(
    ("ref", "ids"),
    [
        ("14", ("14",)),
        ("Clause 14.2", ("14.2",)),
        ("Sub-Clause 4.1(a)", ("4.1(a)",)),
        ("14.1, 14.2 and 15", ("14.1", "14.2", "15")),
        ("第十四条", ("14",)),
        ("第十四条第2款", ("14.2",)),
        ("第6条、第7条", ("6", "7")),
        ("Article IV", ("4",)),
    ],
)
def test_clause_references_are_normalised(tmp_path: Path, ref: str, ids: tuple[str, ...]) -> None:
    path = write(tmp_path, "p.json", json.dumps([{"clause": ref, "criterion": "x"}]))
    assert read_criteria_file(path)[0].clause_ids == ids


def test_read_xlsx_with_chinese_headers_below_a_title_row(tmp_path: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "审查清单"
    sheet.append(["施工合同审查标准"])  # a title row above the header
    sheet.append(["序号", "主题", "条款号", "审查要点", "首选立场", "底线", "风险等级（高/中/低）"])
    sheet.append(
        [1, "质量保证金", None, "核查质量保证金比例及返还时间。", "不超过3%", "不超过5%", "高"]
    )
    sheet.append([2, "预付款", 4, "核查预付款比例与扣回方式。", "20%", "10%", "中"])
    sheet.append([None, None, None, None, None, None, None])
    sheet.append([3, "争议解决", "第十八条", "核查争议解决方式。", "仲裁", "诉讼", "低"])
    path = tmp_path / "清单.xlsx"
    book.save(path)
    criteria = read_criteria_file(path)
    assert [(c.criterion_id, c.topic, c.clause_ids, c.risk_level) for c in criteria] == [
        ("1", "质量保证金", (), RiskLevel.HIGH),
        ("2", "预付款", ("4",), RiskLevel.MEDIUM),
        ("3", "争议解决", ("18",), RiskLevel.LOW),
    ]
    assert criteria[0].preferred_position == "不超过3%"
    assert criteria[0].fallback_position == "不超过5%"
    assert criteria[0].source == "清单.xlsx [审查清单] row 3"
    out = load(CONSTRUCTION, "6.1", path)
    assert why(out) == [("质量保证金", "keywords")]
    assert load(CONSTRUCTION, "4", path).matches[0].matched_by == "clause_id"
    assert why(load(CONSTRUCTION, "18(2)", path)) == [("争议解决", "parent_clause_id")]


def test_read_yaml_mapping_and_json_list(tmp_path: Path) -> None:
    yaml_path = write(
        tmp_path,
        "p.yml",
        "criteria:\n"
        "  - topic: Assignment\n"
        "    criterion: Check assignment restrictions.\n"
        "    preferred: Consent required.\n"
        "    risk: H\n"
        "    keywords: [assign, change of control]\n",
    )
    [c] = read_criteria_file(yaml_path)
    assert (c.topic, c.preferred_position, c.risk_level) == (
        "Assignment",
        "Consent required.",
        RiskLevel.HIGH,
    )
    assert c.keywords == ("assign", "change of control")
    json_path = write(
        tmp_path,
        "p.json",
        json.dumps(
            [{"Risk Level": "low", "Criterion": "Check notice formalities.", "Topic": "Notices"}]
        ),
    )
    [c] = read_criteria_file(json_path)
    assert (c.topic, c.risk_level) == ("Notices", RiskLevel.LOW)


def test_semicolon_csv_in_gb18030(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_bytes("主题;审查要点;风险\n工期;核查工期顺延情形;高\n".encode("gb18030"))
    [c] = read_criteria_file(path)
    assert (c.topic, c.criterion, c.risk_level) == ("工期", "核查工期顺延情形", RiskLevel.HIGH)


def test_parsed_files_are_cached_until_they_change(tmp_path: Path) -> None:
    path = write(tmp_path, "p.csv", EN_CSV)
    first = read_criteria_file(path)
    again = read_criteria_file(path)
    assert again == first
    assert all(a is b for a, b in zip(first, again, strict=True))  # not parsed again
    path.write_text(EN_CSV + "Audit,,Check audit rights.,,,\n", encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert [c.topic for c in read_criteria_file(path)][-1] == "Audit"


# -- matching --------------------------------------------------------------------------------


def test_english_matches_by_clause_parent_title_and_keywords(tmp_path: Path) -> None:
    path = write(tmp_path, "playbook.csv", EN_CSV)
    out = load(SUPPLY, "5.4", path)
    assert out.clause_title == "Limitation of Liability"
    assert out.criteria_file == "playbook.csv"
    assert out.total_criteria == 6
    [top] = out.matches
    assert (top.criterion.topic, top.matched_by, top.score) == (
        "Limitation of liability",
        "clause_id",
        1.0,
    )
    assert top.evidence == ["clause 5.4"]
    # Article VI: the criterion applies to its sub-clauses, less the deeper they are.
    [m] = load(SUPPLY, "6.2", path).matches
    assert (m.matched_by, m.score, m.evidence) == ("parent_clause_id", 0.9, ["parent clause 6"])
    [m] = load(SUPPLY, "6.2(b)(i)", path).matches
    assert (m.matched_by, m.score) == ("parent_clause_id", 0.8)
    # Title: topic words in the clause title.
    assert why(load(SUPPLY, "7.3", path)) == [("Governing law", "title")]
    # Keywords: most of the criterion's words are in the text ("period" is not), stemming-
    # insensitive (the criterion's "products"/"defects" ~ "Products"/"defect").
    out = load(SUPPLY, "5.1", path)
    assert why(out) == [("Warranty period", "keywords")]
    assert set(out.matches[0].evidence) == {
        "warranty",
        "products",
        "defects",
        "material",
        "workmanship",
    }
    assert 0.3 < out.matches[0].score < 0.5  # weaker than a topic phrase in the text
    # A topic phrase in the text: "late payment" is not in 3.2, "indemnification" nowhere.
    assert load(SUPPLY, "3.2", path).matches == []
    # Nothing applies to the notices clause.
    assert load(SUPPLY, "7.1", path).matches == []


def test_specific_matches_come_first(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "p.csv",
        "Topic,Clause,Criterion\n"
        "Payment,,Check invoice payment period.\n"
        "Invoicing,3.2,Check invoicing triggers.\n"
        "Price and payment,3,Check price adjustment.\n",
    )
    out = load(SUPPLY, "3.2", path)
    assert why(out) == [
        ("Invoicing", "clause_id"),
        ("Price and payment", "parent_clause_id"),
        ("Payment", "title"),
    ]
    scores = [m.score for m in out.matches]
    assert scores == sorted(scores, reverse=True)
    out = handle(
        LoadReviewCriteriaInput(
            clause_id="3.2", criteria_file_path=str(path), document_structure=SUPPLY, max_results=1
        )
    )
    assert why(out) == [("Invoicing", "clause_id")]


def test_sample_generic_playbook_on_english_contracts() -> None:
    assert why(load(SUPPLY, "5.4", GENERIC_PLAYBOOK)) == [("Limitation of liability", "title")]
    assert why(load(SUPPLY, "7.2", GENERIC_PLAYBOOK)) == [
        ("Assignment / change of control", "title")
    ]
    assert why(load(SUPPLY, "7.3", GENERIC_PLAYBOOK)) == [("Governing law / jurisdiction", "title")]
    # "exclusive of taxes" is not about exclusivity: one word needs corroboration.
    assert load(SUPPLY, "3.3", GENERIC_PLAYBOOK).matches == []
    out = load(SERVICES, "3.2", GENERIC_PLAYBOOK)
    assert why(out) == [("Termination for convenience", "keywords")]
    assert out.matches[0].evidence[0] == "terminate for convenience"
    assert out.matches[0].criterion.risk_level is RiskLevel.MEDIUM
    out = load(SERVICES, "4.2", GENERIC_PLAYBOOK)
    assert why(out) == [("Confidentiality", "keywords")]
    assert "confidential information" in out.matches[0].evidence
    out = load(SERVICES, "5", GENERIC_PLAYBOOK)
    assert why(out)[0] == ("Limitation of liability", "title")  # 'Liability' in the topic


def test_chinese_playbook_on_chinese_contract() -> None:
    out = load(CONSTRUCTION, "6", ZH_PLAYBOOK)
    assert why(out) == [("质量保证金", "title")]
    assert out.matches[0].score == 0.8
    out = load(CONSTRUCTION, "18", ZH_PLAYBOOK)
    assert why(out) == [("争议解决", "clause_id")]
    assert why(load(CONSTRUCTION, "18(1)", ZH_PLAYBOOK)) == [("争议解决", "parent_clause_id")]
    # 第十五条 索赔: the title is part of the topic 索赔时效.
    out = load(CONSTRUCTION, "15", ZH_PLAYBOOK)
    assert why(out)[0] == ("索赔时效", "title")
    assert out.matches[0].score == 0.7
    # 16.1 (误期): keywords of 误期赔偿金 in the text.
    out = load(CONSTRUCTION, "16.1", ZH_PLAYBOOK)
    assert why(out)[0] == ("误期赔偿金", "keywords")
    assert {"逾期竣工", "违约金"} <= set(out.matches[0].evidence)
    # 14.1: 变更 in the text, corroborated by 变更指示.
    out = load(CONSTRUCTION, "14.1", ZH_PLAYBOOK)
    assert why(out) == [("变更", "keywords")]
    assert "变更指示" in out.matches[0].evidence
    # 12(3) (site management): nothing.
    assert load(CONSTRUCTION, "12(3)", ZH_PLAYBOOK).matches == []


# -- errors ----------------------------------------------------------------------------------


def test_no_criteria_file_configured() -> None:
    with pytest.raises(SkillError, match="no review criteria file is configured"):
        load(SUPPLY, "5.4", None)


def test_unknown_clause(tmp_path: Path) -> None:
    with pytest.raises(SkillError, match=r"clause '99\.9' not found"):
        load(SUPPLY, "99.9", write(tmp_path, "p.csv", EN_CSV))


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.csv", None, "criteria file not found: "),
        ("p.xls", "x", r"unsupported criteria file type '\.xls'"),
        ("p.txt", "x", r"unsupported criteria file type '\.txt'"),
        ("p.yaml", "criteria: [topic: a\n  - b", "malformed YAML in p.yaml: "),
        ("p.json", '{"criteria": [', r"malformed JSON in p\.json: .* \(line 1\)"),
        ("p.csv", "", r"p\.csv is empty"),
        ("p.yaml", "# nothing\n", r"p\.yaml is empty"),
        ("p.csv", "Topic,Position\nA,B\n", "missing required column 'criterion'.*Topic, Position"),
        ("p.json", '[{"topic": "A"}]', "item 1 has no 'criterion' field"),
        ("p.json", '"just text"', "expected a list of criteria"),
        ("p.csv", "Criterion\n\n", r"p\.csv holds no criteria"),
        ("p.csv", "Criterion,Risk\nCheck it,severe\n", "row 2: unknown risk level 'severe'"),
        ("p.xlsx", "this is not a workbook", r"p\.xlsx is not a readable \.xlsx workbook"),
    ],
)
def test_bad_files(tmp_path: Path, name: str, content: str | None, message: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(SkillError, match=message) as info:
        read_criteria_file(path)
    assert "\n" not in str(info.value)
    # The skill reports the same error.
    with pytest.raises(SkillError, match=message):
        load(SUPPLY, "5.4", path)


def test_xlsx_without_criterion_column(tmp_path: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Topic", "Notes"])
    sheet.append(["Liability", "cap it"])
    path = tmp_path / "p.xlsx"
    book.save(path)
    with pytest.raises(SkillError, match=r"missing required column 'criterion'.*Topic, Notes"):
        read_criteria_file(path)


# -- through the dispatcher -----------------------------------------------------------------


def test_through_the_dispatcher(tmp_path: Path) -> None:
    dispatcher = SkillDispatcher()
    dispatcher.register(REGISTRATION)
    path = write(tmp_path, "playbook.csv", EN_CSV)
    state = {"criteria_path": str(path)}
    result = asyncio.run(dispatcher.prepare_and_call("load_review_criteria", "5.4", SUPPLY, state))
    assert result.success, result.error
    [match] = result.data["matches"]
    assert match["matched_by"] == "clause_id"
    assert match["criterion"]["risk_level"] == "high"
    # The LLM can neither choose the file nor smuggle one in.
    other = write(tmp_path, "other.csv", "Topic,Criterion\nNotices,Check notices.\n")
    result = asyncio.run(
        dispatcher.prepare_and_call(
            "load_review_criteria",
            "7.3",
            SUPPLY,
            state,
            llm_arguments={"path": str(other), "criteria_file_path": str(other)},
        )
    )
    assert result.success, result.error
    assert result.data["criteria_file"] == "playbook.csv"
    assert [m["criterion"]["topic"] for m in result.data["matches"]] == ["Governing law"]
    tool = REGISTRATION.to_tool_definition()["function"]["parameters"]["properties"]
    assert set(tool) == {"clause_id", "max_results"}
    # No playbook in the review: a one-line failure.
    result = asyncio.run(dispatcher.prepare_and_call("load_review_criteria", "5.4", SUPPLY, {}))
    assert not result.success
    assert result.error == "no review criteria file is configured for this review"


def test_prepare_input_reads_the_criteria_path() -> None:
    inp = prepare_input("6", CONSTRUCTION, {"criteria_path": str(ZH_PLAYBOOK), "language": "zh-CN"})
    assert inp.criteria_file_path == str(ZH_PLAYBOOK)
    assert inp.document_structure is CONSTRUCTION
    assert prepare_input("6", CONSTRUCTION, {}).criteria_file_path is None


def test_exact_header_names_win_over_prefixes(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "p.csv",
        "Risk owner,Checked by,Criterion,Risk level,Preferred position (ours)\n"
        "Legal,AB,Check the cap.,high,Cap at fees paid.\n",
    )
    [c] = read_criteria_file(path)
    assert (c.criterion, c.risk_level, c.preferred_position) == (
        "Check the cap.",
        RiskLevel.HIGH,
        "Cap at fees paid.",
    )
