"""The sha_spa plugin: checklists, subtype detection, baselines, skills."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from contract_review.models import DocumentStructure, Priority
from contract_review.plugins.registry import clear_plugins, get_baseline, get_plugin
from contract_review.plugins.sha_spa import (
    BASELINES,
    MISSING_TOPIC,
    SHA_CHECKLIST,
    SPA_CHECKLIST,
    build_sha_spa_checklist,
    detect_subtype,
    register_sha_spa_plugin,
)
from contract_review.structure_parser import StructureParser
from tests.conftest import EXAMPLES


def _parse(name: str) -> DocumentStructure:
    text = (EXAMPLES / "sha_spa" / name).read_text(encoding="utf-8")
    return StructureParser().parse(text, document_id=name)


@pytest.fixture(scope="module")
def spa() -> DocumentStructure:
    return _parse("spa_en.txt")


@pytest.fixture(scope="module")
def sha() -> DocumentStructure:
    return _parse("shareholders_agreement_zh.txt")


@pytest.fixture
def registered() -> Iterator[None]:
    clear_plugins()
    register_sha_spa_plugin()
    yield
    clear_plugins()


def test_checklist_sizes() -> None:
    assert len(SPA_CHECKLIST) >= 15
    assert len(SHA_CHECKLIST) >= 15
    assert len({s.topic for s in SPA_CHECKLIST}) == len(SPA_CHECKLIST)
    assert len({s.topic for s in SHA_CHECKLIST}) == len(SHA_CHECKLIST)


def test_detects_subtype(spa: DocumentStructure, sha: DocumentStructure) -> None:
    assert detect_subtype(spa) == "spa"
    assert detect_subtype(sha) == "sha"


def test_spa_checklist_on_sample(spa: DocumentStructure) -> None:
    items = build_sha_spa_checklist(spa, None)
    by_topic = {i.topic: i for i in items}
    assert by_topic["Conditions Precedent"].clause_id == "3"
    assert by_topic["Liability Cap"].clause_id == "7.1"
    assert by_topic["Basket and De Minimis"].clause_id == "7.2"
    assert by_topic["Warranty Repetition"].clause_id == "6.4"
    assert by_topic["Specific Indemnities"].clause_id == "8"
    assert by_topic["Governing Law and Disputes"].clause_id == "11"
    assert by_topic["Liability Cap"].priority is Priority.CRITICAL
    assert "spa_indemnity_analysis" in by_topic["Liability Cap"].required_skills
    missing = items[-1]
    assert missing.topic == MISSING_TOPIC
    assert missing.clause_id == "preamble"
    assert "Restrictive Covenants" in missing.description
    found = [i for i in items if i.topic != MISSING_TOPIC]
    assert len(found) == len(SPA_CHECKLIST) - 1


def test_sha_checklist_on_sample(sha: DocumentStructure) -> None:
    items = build_sha_spa_checklist(sha, "sha")
    by_topic = {i.topic: i for i in items}
    assert by_topic["Board Composition"].clause_id == "2"
    assert by_topic["Reserved Matters"].clause_id == "4"
    assert by_topic["Deadlock"].clause_id == "5"
    assert by_topic["Tag-Along"].clause_id == "8"
    assert by_topic["Drag-Along"].clause_id == "9"
    assert by_topic["Drag-Along"].required_skills == ["sha_governance_check"]
    missing = by_topic[MISSING_TOPIC]
    for topic in ("反稀释", "优先清算权", "回购权"):  # a Chinese contract's list is in Chinese
        assert topic in missing.description


def test_explicit_subtype_wins(sha: DocumentStructure) -> None:
    topics = {i.topic for i in build_sha_spa_checklist(sha, "spa")}
    assert "Board Composition" not in topics


@pytest.mark.usefixtures("registered")
def test_baselines_for_every_item(spa: DocumentStructure, sha: DocumentStructure) -> None:
    for structure, subtype in ((spa, "spa"), (sha, "sha")):
        for item in build_sha_spa_checklist(structure, subtype):
            assert item.topic is not None
            baseline = get_baseline("sha_spa", item.topic, subtype)
            assert baseline is not None, item.topic
            assert baseline.text
            assert baseline.source
    for spec in (*SPA_CHECKLIST, *SHA_CHECKLIST):
        assert any(b.key == spec.topic for b in BASELINES)
    law = get_baseline("sha_spa", "Governing Law and Disputes", "sha")
    assert law is not None
    assert law.subtypes == ["sha"]


@pytest.mark.usefixtures("registered")
def test_plugin_registration() -> None:
    plugin = get_plugin("sha_spa")
    assert plugin is not None
    assert plugin.subtypes == ["spa", "sha"]
    assert plugin.parser_config.structure_type == "sha_spa"
    assert [s.skill_id for s in plugin.skills] == [
        "spa_extract_conditions",
        "spa_extract_reps_warranties",
        "spa_indemnity_analysis",
        "sha_governance_check",
    ]
    assert all(s.domain == "sha_spa" for s in plugin.skills)
    assert plugin.build_checklist is build_sha_spa_checklist
