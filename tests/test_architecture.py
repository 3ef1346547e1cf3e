"""The layout the design asks for, checked on the source: the graph and the task runner name no
domain, skills import no plugin, and no private module is imported from another package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "contract_review"
DOMAIN_WORDS = re.compile(r"fidic|sha_spa|\bspa_|\bsha_|generic")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return names


def _strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_graph_and_runner_name_no_domain() -> None:
    files = [*sorted((PACKAGE / "graph").glob("*.py")), PACKAGE / "review.py"]
    for path in files:
        named = [s for s in _strings(path) if DOMAIN_WORDS.search(s)]
        assert not named, f"{path.name} names a domain: {named[:3]}"
        assert not [
            m
            for m in _imports(path)
            if m.startswith("contract_review.plugins.") and m != "contract_review.plugins.registry"
        ], path.name


def test_skills_import_no_plugin() -> None:
    for path in sorted((PACKAGE / "skills").rglob("*.py")):
        plugins = [m for m in _imports(path) if m.startswith("contract_review.plugins")]
        assert not plugins, f"{path.relative_to(PACKAGE)} imports {plugins}"


def test_no_private_module_imported_across_packages() -> None:
    for path in sorted(PACKAGE.rglob("*.py")):
        package = ".".join(("contract_review", *path.relative_to(PACKAGE).parent.parts))
        for module in _imports(path):
            parts = module.split(".")
            private = next((i for i, p in enumerate(parts) if p.startswith("_")), None)
            if not module.startswith("contract_review.") or private is None:
                continue
            owner = ".".join(parts[:private])
            assert owner == package, f"{path.relative_to(PACKAGE)} imports {module}"


def test_risk_rules_live_with_their_skills() -> None:
    from contract_review.plugins import create_dispatcher

    with_rules = {r.skill_id for r in create_dispatcher().list_skills() if r.risk_rule}
    assert {"extract_financial_terms", "assess_deviation", "fidic_calculate_time_bar"} <= with_rules
    assert "get_clause_context" not in with_rules
