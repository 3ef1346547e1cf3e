"""The plugin registry and domain filtering of skills."""

from __future__ import annotations

from contract_review.plugins import create_dispatcher, load_builtin_plugins
from contract_review.plugins.registry import (
    BaselinePosition,
    DomainPlugin,
    clear_plugins,
    get_baseline_text,
    get_plugin,
    list_plugins,
    register_plugin,
)
from tests.conftest import GENERIC_SKILLS

GENERIC = GENERIC_SKILLS
FIDIC = {
    "fidic_merge_gc_pc",
    "fidic_calculate_time_bar",
    "fidic_check_pc_consistency",
    "fidic_search_er",
}
SHA_SPA = {
    "spa_extract_conditions",
    "spa_extract_reps_warranties",
    "spa_indemnity_analysis",
    "sha_governance_check",
}


def test_all_skills_are_registered_with_descriptions() -> None:
    dispatcher = create_dispatcher()
    assert set(dispatcher.skill_ids) == GENERIC | FIDIC | SHA_SPA
    for reg in dispatcher.list_skills():
        assert len(reg.description) > 80, reg.skill_id
        expected = (
            "fidic" if reg.skill_id in FIDIC else "sha_spa" if reg.skill_id in SHA_SPA else "*"
        )
        assert reg.domain == expected


def test_domain_filter_gives_generic_plus_that_domain() -> None:
    dispatcher = create_dispatcher()
    fidic = {t["function"]["name"] for t in dispatcher.get_tool_definitions(domain_filter="fidic")}
    assert fidic == GENERIC | FIDIC
    spa = {t["function"]["name"] for t in dispatcher.get_tool_definitions(domain_filter="sha_spa")}
    assert spa == GENERIC | SHA_SPA


def test_builtin_plugins_register_and_can_be_cleared() -> None:
    load_builtin_plugins()
    assert {p.domain_id for p in list_plugins()} >= {"generic", "fidic", "sha_spa"}
    try:
        clear_plugins()
        assert list_plugins() == []
        assert get_plugin("fidic") is None
        assert get_baseline_text("fidic", "20.1") is None
        register_plugin(
            DomainPlugin(
                domain_id="test",
                name="Test",
                baselines=[
                    BaselinePosition(key="1.1", title="A", text="all books"),
                    BaselinePosition(key="1.1", title="A", text="silver", subtypes=["silver"]),
                ],
            )
        )
        assert get_baseline_text("test", "1.1") == "all books"
        assert get_baseline_text("test", "1.1", "silver") == "silver"
        assert get_baseline_text("test", "9.9") is None
    finally:
        clear_plugins()
        load_builtin_plugins()
