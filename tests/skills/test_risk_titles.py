"""risk_titles.yaml names every risk type the deterministic rules can emit, in English and
Chinese; `risk_title` reads it (exact keys, prefixes with their data, gaps with a topic)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest

from contract_review.analysis import financial, titles
from contract_review.analysis.titles import has_title, risk_title, topic_title
from contract_review.playbook.parse import read_yaml
from contract_review.plugins.fidic.skills import check_pc_consistency as pc_consistency
from contract_review.plugins.fidic.skills.merge_gc_pc import ProblemKind
from contract_review.plugins.sha_spa.skills import reps_warranties
from contract_review.skills.local import assess_deviation, extract_financial_terms
from contract_review.text import has_cjk

SRC = Path(__file__).resolve().parents[2] / "src" / "contract_review"
SHA_SPA_SKILLS = ("conditions", "governance", "indemnity", "reps_warranties")


def _gap_codes() -> set[str]:
    """The gap codes the sha_spa skills write: `Gap(code=…)`, `_g("…", …)`, `_gap("…", …)`."""
    codes: set[str] = set()
    for name in SHA_SPA_SKILLS:
        path = SRC / "plugins" / "sha_spa" / "skills" / f"{name}.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            if node.func.id in ("_g", "_gap") and node.args:
                arg: ast.expr | None = node.args[0]
            elif node.func.id == "Gap":
                arg = next((k.value for k in node.keywords if k.arg == "code"), None)
                if isinstance(arg, ast.Name):
                    continue  # the helpers' own `Gap(code=code, …)`
            else:
                continue
            assert isinstance(arg, ast.Constant), f"{name}: a gap code that is not a literal"
            codes.add(str(arg.value))
    return codes


def _emittable() -> set[str]:
    """Every risk type (or prefix) the deterministic code can emit."""
    keys = {
        # cross_reference_check, resolve_definition, the injection check
        "reference to a missing clause",
        "reference to a deleted clause",
        "undefined term",
        "terms defined elsewhere",
        "embedded instruction to AI reviewers",
        # time_bar's risk rule (its kinds are written in the rule)
        "time bar",
        "shortened period",
        "deemed rejection",
        "deemed approval",
        "final and binding",
        # prefixes whose rest is data
        "playbook: Cap on Liability",
        "missing: Cap on Liability",
        "缺少约定：Cap on Liability",
    }
    assert set(extract_financial_terms._FLAG_RISKS) == set(get_args(financial.FlagCode))
    keys |= {kind for _, kind in extract_financial_terms._FLAG_RISKS.values()}
    keys |= {f"deviation from baseline: {rule}" for rule in get_args(assess_deviation.Rule)}
    kinds = set(get_args(pc_consistency.Kind)) - {"risk_shift", "merge_error"}
    keys |= kinds | {f"risk_shift:{shift}" for shift in get_args(pc_consistency.Shift)}
    keys |= set(get_args(ProblemKind))
    codes = _gap_codes()
    assert {"no_board_seat_for_us", "cap_below_market", "no_mac_condition"} <= codes
    keys |= codes
    keys |= {f"missing_core_warranty:{topic}" for topic in reps_warranties.CORE_TOPICS}
    keys |= {"no_veto_new_issuance:issuance", "mac_waivable_only_by_other_side:no_mac"}
    return keys


_DATA_PREFIXES = ("playbook: ", "missing: ", "缺少约定：")
"""Risk types whose rest is data (a playbook topic): titled through a prefix."""


def _titled_exactly(key: str) -> bool:
    """Whether the table names `key` itself — a prefix would name any text after it — or,
    for a gap on one topic ('code:topic'), both its code and its topic."""
    table = titles._table()
    if key in table.titles:
        return True
    code, colon, topic = key.partition(":")
    return bool(colon) and code in table.titles and topic in table.topics


def test_every_risk_type_the_rules_emit_has_a_title() -> None:
    untitled = sorted(k for k in _emittable() if not has_title(k))
    assert not untitled, f"add to src/contract_review/analysis/risk_titles.yaml: {untitled}"
    # a closed set of types (rules, shifts, gap codes) is named one by one, not by a prefix
    closed = [k for k in _emittable() if not k.startswith(_DATA_PREFIXES)]
    loose = sorted(k for k in closed if not _titled_exactly(k))
    assert not loose, f"named only by a prefix or a bare code, add them: {loose}"


def test_the_table_is_complete_in_both_languages() -> None:
    data = read_yaml((SRC / "analysis" / "risk_titles.yaml").read_text(encoding="utf-8"))
    for section in ("titles", "prefixes", "topics"):
        for key, names in data[section].items():
            assert set(names) == {"en", "zh"}, key
            assert names["en"].strip(), key
            assert not has_cjk(names["en"]), key
            assert has_cjk(names["zh"]), key
    for prefix, names in data["prefixes"].items():
        assert "{}" in names["en"], prefix
        assert "{}" in names["zh"], prefix


@pytest.mark.parametrize(
    ("risk_type", "en", "zh"),
    [
        ("uncapped damages", "Uncapped damages", "违约金未设上限"),
        (
            "deviation from baseline: cap_removed_on_us",
            "Cap on our liability removed",
            "删除我方责任上限",
        ),
        ("risk_shift:cap_removed", "Liability cap removed", "删除责任上限"),
        (
            "playbook: Cap on Liability",
            "Against our position: Cap on Liability",
            "偏离我方立场：Cap on Liability",
        ),
        ("缺少约定：Governing Law", "Missing clause: Governing Law", "缺少约定：Governing Law"),
        (
            "no_veto_new_issuance:issuance",
            "No veto over new shares (new shares)",
            "无权否决新股发行（新股发行）",
        ),
        ("short_claims_period:tax", "Short claims period (tax)", "索赔期限过短（税务）"),
        (
            "deviation from baseline: some_new_rule",
            "Deviation from baseline: some_new_rule",
            "偏离基准文本：some_new_rule",
        ),
        ("some_new_rule:with_data", "some new rule with data", "some new rule with data"),
    ],
)
def test_risk_title(risk_type: str, en: str, zh: str) -> None:
    assert risk_title(risk_type, "en") == en
    assert risk_title(risk_type, "zh-CN") == zh


def test_unknown_types_and_topics_read_as_words() -> None:
    assert not has_title("some_new_rule")
    assert risk_title("some_new_rule") == "some new rule"
    assert topic_title("tax", "zh-CN") == "税务"
    assert topic_title("new_topic", "zh-CN") == "new topic"
