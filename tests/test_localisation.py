"""Both languages of the built-in data: every playbook text, checklist description and
inventory category with English has its Chinese (and no Chinese text is an English sentence);
a title or topic given as a plain string or as `{en, zh}` loads the same way; checklists say
what to check in the contract's language."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from contract_review.models import DocumentStructure, ReviewChecklistItem
from contract_review.playbook import (
    Playbook,
    PlaybookError,
    Position,
    dump_playbook,
    load_playbook,
    parse_playbook,
)
from contract_review.playbook.parse import read_yaml
from contract_review.plugins.fidic import CHECKLIST, build_fidic_checklist
from contract_review.plugins.fidic.baselines import PLAYBOOK as FIDIC_PLAYBOOK
from contract_review.plugins.generic import PLAYBOOK as GENERIC_PLAYBOOK
from contract_review.plugins.generic import build_localised_checklist
from contract_review.plugins.generic.inventory import CATEGORIES, category_title
from contract_review.plugins.sha_spa import (
    MISSING_TOPIC,
    SHA_CHECKLIST,
    SPA_CHECKLIST,
    build_sha_spa_checklist,
)
from contract_review.plugins.sha_spa import PLAYBOOK as SHA_SPA_PLAYBOOK
from contract_review.plugins.sha_spa.checklists import MISSING_TOPIC_ZH
from contract_review.structure_parser import StructureParser
from contract_review.text import has_cjk
from tests.conftest import FIXTURES, REPO, example_structure

PLAYBOOKS = {"generic": GENERIC_PLAYBOOK, "fidic": FIDIC_PLAYBOOK, "sha_spa": SHA_SPA_PLAYBOOK}
WORDINGS = ("standard", "fallback", "walk_away", "rationale", "redline")
PLUGINS = REPO / "src" / "contract_review" / "plugins"

ENGLISH_SENTENCE = re.compile(r"(?:[A-Za-z][A-Za-z'’-]*[\s,;:()]+){4}[A-Za-z]")
"""Five English words in a row: a Chinese report must not show an English sentence."""


def _positions() -> Iterator[tuple[str, Position]]:
    for domain, playbook in PLAYBOOKS.items():
        for position in playbook.positions:
            yield domain, position


def _chinese_texts() -> Iterator[tuple[str, str]]:
    """Every built-in Chinese text, with where it is."""
    for domain, p in _positions():
        yield f"{domain} {p.id} topic_zh", p.topic_zh
        yield f"{domain} {p.id} title_zh", p.title_zh
        for name in WORDINGS:
            wording = getattr(p, name)
            if wording is not None:
                yield f"{domain} {p.id} {name}", wording.zh
    for entry in CHECKLIST:
        yield f"fidic checklist {entry.key} title_zh", entry.title_zh
        yield f"fidic checklist {entry.key} description_zh", entry.description_zh
        for book, text in entry.by_book_zh.items():
            yield f"fidic checklist {entry.key} by_book_zh.{book}", text
    for spec in (*SPA_CHECKLIST, *SHA_CHECKLIST):
        yield f"sha_spa checklist {spec.topic} topic_zh", spec.topic_zh
        yield f"sha_spa checklist {spec.topic} description_zh", spec.description_zh
    for topic in _topics_yaml():
        yield f"topics.yaml {topic['id']} description_zh", str(topic.get("description_zh", ""))
    for category in CATEGORIES:
        yield f"inventory {category}", category_title(category, "zh-CN")


def _topics_yaml() -> list[dict[str, object]]:
    data = read_yaml((PLUGINS / "generic" / "topics.yaml").read_text(encoding="utf-8"))
    topics: list[dict[str, object]] = data["topics"]
    return topics


# --------------------------------------------------------------------------------------------
# The built-in data
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("domain", sorted(PLAYBOOKS))
def test_every_builtin_position_has_chinese_for_each_english_text(domain: str) -> None:
    missing = []
    for p in PLAYBOOKS[domain].positions:
        if not p.topic_zh.strip():
            missing.append(f"{p.id}: topic_zh")
        if p.title and not p.title_zh.strip():
            missing.append(f"{p.id}: title_zh")
        for name in WORDINGS:
            wording = getattr(p, name)
            if wording is not None and wording.en.strip() and not wording.zh.strip():
                missing.append(f"{p.id}: {name}.zh")
    assert not missing, missing


@pytest.mark.parametrize("domain", ["fidic", "sha_spa"])
def test_every_fidic_and_sha_spa_position_says_why_it_matters(domain: str) -> None:
    without = [
        p.id
        for p in PLAYBOOKS[domain].positions
        if p.rationale is None or not p.rationale.en.strip() or not p.rationale.zh.strip()
    ]
    assert not without, without


def test_every_checklist_says_what_to_check_in_chinese() -> None:
    for entry in CHECKLIST:
        assert entry.title_zh, entry.key
        assert entry.description_zh, entry.key
        assert set(entry.by_book_zh) == set(entry.by_book), entry.key
    for spec in (*SPA_CHECKLIST, *SHA_CHECKLIST):
        assert spec.topic_zh, spec.topic
        assert spec.description_zh, spec.topic
    for topic in _topics_yaml():
        assert topic.get("description_zh"), topic["id"]


def test_every_inventory_category_has_a_chinese_title() -> None:
    assert len(CATEGORIES) == 41
    for category in CATEGORIES:
        chinese = category_title(category, "zh-CN")
        assert has_cjk(chinese), category
        assert category_title(category, "en") == category
    assert category_title("Governing Law", "zh-CN") == "适用法律"
    assert category_title("Anti-Assignment", "zh-CN") == "禁止转让"
    assert category_title("Rofr/Rofo/Rofn", "zh-CN") == "优先购买/优先协商权"
    assert category_title("Not a category", "zh-CN") == "Not a category"
    names = read_yaml((PLUGINS / "generic" / "inventory.yaml").read_text(encoding="utf-8"))
    assert list(names["names_zh"]) == list(CATEGORIES)  # in CUAD's order, none extra


def test_no_chinese_text_holds_an_english_sentence() -> None:
    texts = list(_chinese_texts())
    assert len(texts) > 400
    english = [(where, m.group(0)) for where, text in texts if (m := ENGLISH_SENTENCE.search(text))]
    assert not english, english
    not_chinese = [where for where, text in texts if text and not has_cjk(text)]
    assert not not_chinese, not_chinese


def test_one_topic_has_one_chinese_name() -> None:
    """A topic shared by the playbook, a checklist and the inventory is named alike."""
    for spec in (*SPA_CHECKLIST, *SHA_CHECKLIST):
        assert SHA_SPA_PLAYBOOK.topic_text(spec.topic, "zh-CN") == spec.topic_zh, spec.topic
    assert SHA_SPA_PLAYBOOK.topic_text(MISSING_TOPIC, "zh-CN") == MISSING_TOPIC_ZH
    # every checklist item's topic can be shown in Chinese through its playbook
    for entry in CHECKLIST:
        assert has_cjk(FIDIC_PLAYBOOK.topic_text(entry.topic, "zh-CN")), entry.topic
    for topic in _topics_yaml():
        assert has_cjk(GENERIC_PLAYBOOK.topic_text(str(topic["name"]), "zh-CN")), topic["name"]
    for category in CATEGORIES:
        named = GENERIC_PLAYBOOK.topic_text(category, "zh-CN")
        if named != category:
            assert named == category_title(category, "zh-CN"), category
    for domain, p in _positions():
        assert PLAYBOOKS[domain].topic_text(p.topic, "zh-CN") == p.topic_zh, (domain, p.id)


# --------------------------------------------------------------------------------------------
# The schema: a title as a string or in two languages
# --------------------------------------------------------------------------------------------


def _playbook(**position: object) -> dict[str, object]:
    entry = {"id": "cap", "topic": "Cap on Liability", "standard": {"en": "Capped at fees."}}
    return {"domain": "generic", "positions": [{**entry, **position}]}


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_title_loads_as_a_string_and_in_two_languages(suffix: str, tmp_path: Path) -> None:
    def load(**position: object) -> Position:
        path = tmp_path / f"playbook{suffix}"
        data = _playbook(**position)
        text = json.dumps(data) if suffix == ".json" else yaml.safe_dump(data, allow_unicode=True)
        path.write_text(text, encoding="utf-8")
        return load_playbook(path).positions[0]

    plain = load(title="Limitation of Liability")
    assert (plain.title, plain.title_zh) == ("Limitation of Liability", "")
    assert plain.title_text("en") == plain.title_text("zh-CN") == "Limitation of Liability"

    both = load(title={"en": "Limitation of Liability", "zh": "责任限制"})
    assert (both.title, both.title_zh) == ("Limitation of Liability", "责任限制")
    assert both.title_text("en") == "Limitation of Liability"
    assert both.title_text("zh-CN") == "责任限制"
    assert load(title="Limitation of Liability", title_zh="责任限制") == both

    topic = load(topic={"en": "Cap on Liability", "zh": "责任上限"})
    assert (topic.topic, topic.topic_zh) == ("Cap on Liability", "责任上限")
    assert topic.title_text("en") == topic.topic_text("en") == "Cap on Liability"
    assert topic.title_text("zh-CN") == topic.topic_text("zh-CN") == "责任上限"

    untitled = load()
    assert untitled.title_text("zh-CN") == untitled.title_text("en") == "Cap on Liability"
    chinese_only = load(title={"zh": "责任限制"})
    assert chinese_only.title == ""
    assert chinese_only.title_text("en") == "Cap on Liability"  # the topic, before Chinese
    assert chinese_only.title_text("zh-CN") == "责任限制"


def test_title_text_falls_back_to_the_topic_then_the_other_language() -> None:
    def position(**fields: str) -> Position:
        return Position.model_validate({"id": "p", "standard": {"en": "x"}, **fields})

    only_zh_topic = position(topic="管辖")
    assert only_zh_topic.title_text("en") == only_zh_topic.title_text("zh-CN") == "管辖"
    english_title = position(topic="Jurisdiction", title="Forum", topic_zh="管辖")
    assert english_title.title_text("zh-CN") == "管辖"  # the topic in Chinese first
    assert english_title.title_text("en") == "Forum"
    no_chinese = position(topic="Jurisdiction", title="Forum")
    assert no_chinese.title_text("zh-CN") == "Forum"  # then the other language
    assert no_chinese.title_text("zh") == "Forum"


def test_a_flat_playbook_has_no_title_and_shows_its_topic() -> None:
    flat = load_playbook(REPO / "examples" / "criteria" / "generic_playbook.csv")
    assert flat.positions
    for p in flat.positions:
        assert p.title == p.title_zh == ""
        assert p.title_text("en") == p.title_text("zh-CN") == p.topic


@pytest.mark.parametrize(
    ("position", "expected"),
    [
        (
            {"title": {"en": "Cap", "zh": "上限"}, "title_zh": "限额"},
            "position 1 ('cap'): title: the Chinese is given twice (title.zh and title_zh)",
        ),
        ({"title": {"fr": "Plafond"}}, "position 1 ('cap'): title.fr: Extra inputs"),
        ({"title": {"en": " "}}, "position 1 ('cap'): title: give the text in English"),
        ({"topic": {"zh": ""}}, "position 1 ('cap'): topic: give the text in English"),
        ({"title": ["Cap"]}, "position 1 ('cap'): title: Input should be a valid string"),
    ],
)
def test_a_bad_title_is_one_line_naming_the_field(
    position: dict[str, object], expected: str
) -> None:
    with pytest.raises(PlaybookError) as exc:
        parse_playbook(_playbook(**position), "ours.yaml")
    assert str(exc.value).startswith(f"ours.yaml: {expected}")


@pytest.mark.parametrize("domain", sorted(PLAYBOOKS))
def test_an_exported_builtin_playbook_loads_back_the_same(domain: str, tmp_path: Path) -> None:
    path = tmp_path / "export.yaml"
    path.write_text(dump_playbook(PLAYBOOKS[domain]), encoding="utf-8")
    again = load_playbook(path)
    assert again == PLAYBOOKS[domain]
    exported = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert all(isinstance(p.get("title", ""), str) for p in exported["positions"])


def test_a_playbook_names_a_topic_in_either_language() -> None:
    playbook = Playbook.model_validate(
        _playbook(topic={"en": "Cap on Liability", "zh": "责任上限"})
    )
    assert playbook.topic_text("Cap on Liability", "zh-CN") == "责任上限"
    assert playbook.topic_text("Cap on Liability", "en") == "Cap on Liability"
    assert playbook.topic_text("Unknown", "zh-CN") == "Unknown"


# --------------------------------------------------------------------------------------------
# Checklists in the contract's language
# --------------------------------------------------------------------------------------------


def _in_english(structure: DocumentStructure) -> DocumentStructure:
    return structure.model_copy(update={"language": "en"})


def _assert_language(items: list[ReviewChecklistItem], zh: bool) -> None:
    assert items
    for item in items:
        if zh:
            assert has_cjk(item.description), item.description
            assert not ENGLISH_SENTENCE.search(item.description), item.description
        else:
            assert not has_cjk(item.description), item.description


def test_the_fidic_checklist_follows_the_contract_language() -> None:
    chinese = example_structure("cn/construction_contract_zh.txt")
    assert chinese.language == "zh-CN"
    items = build_fidic_checklist(chinese)
    _assert_language(items, zh=True)
    assert any(i.description.startswith("［FIDIC 2017 第") for i in items)
    assert any(i.description.startswith("审阅经专用条件修改后") for i in items)
    _assert_language(build_fidic_checklist(_in_english(chinese)), zh=False)
    english = example_structure("fidic/particular_conditions_amending_en.txt")
    _assert_language(build_fidic_checklist(english, "silver_book"), zh=False)
    silver = {i.clause_id: i for i in build_fidic_checklist(chinese, "silver_book")}
    red = {i.clause_id: i for i in build_fidic_checklist(chinese, "red_book")}
    assert any(silver[k].description != red[k].description for k in silver.keys() & red.keys())


def test_the_sha_spa_checklist_follows_the_contract_language() -> None:
    chinese = example_structure("sha_spa/shareholders_agreement_zh.txt")
    items = build_sha_spa_checklist(chinese, None)
    _assert_language(items, zh=True)
    _assert_language(build_sha_spa_checklist(_in_english(chinese), None), zh=False)
    _assert_language(build_sha_spa_checklist(example_structure("sha_spa/spa_en.txt"), None), False)
    # the protections no clause holds, listed by their Chinese names
    as_spa = build_sha_spa_checklist(chinese, "spa")
    missing = as_spa[-1]
    assert missing.clause_name == MISSING_TOPIC_ZH
    assert missing.topic == "Missing protections"
    assert missing.description.startswith("未找到以下事项的条款：")
    assert "最终截止日" in missing.description


def test_the_generic_checklist_follows_the_contract_language() -> None:
    path = FIXTURES / "playbook_eval" / "contracts" / "zh_equipment_purchase.txt"
    chinese = StructureParser().parse(path.read_text(encoding="utf-8"))
    assert chinese.language == "zh-CN"
    items = build_localised_checklist(chinese)
    _assert_language(items, zh=True)
    assert any(i.topic is None for i in items)
    assert any(i.topic for i in items)
    _assert_language(build_localised_checklist(_in_english(chinese)), zh=False)
    english = example_structure("generic/services_agreement_en.md")
    _assert_language(build_localised_checklist(english), zh=False)
