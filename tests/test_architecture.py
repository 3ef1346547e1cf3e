"""The layout the design asks for, checked on the source: no import loop (function-level imports
counted), the analysis layer below skills, the graph and the interfaces; skills are adapters
that resolve no party and read no file; the graph and the task runner name no domain; skills
import no plugin; no private module is imported from another package."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from graphlib import CycleError, TopologicalSorter
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


def _module_name(path: Path) -> str:
    parts = ["contract_review", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> Iterator[str]:
    """The dotted names an import reaches: `from x import y` reaches the module x.y when there
    is one, else x (a package's own `__init__` running first is no design dependency)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = module.split(".")[: None if is_package else -1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, base] if base else package)
    yield from (f"{base}.{alias.name}" for alias in node.names)


@cache
def import_graph() -> dict[str, set[str]]:
    """Module → the package's modules it imports anywhere: at the top, inside functions or
    under TYPE_CHECKING (each couples the two, and a function-level import can close a loop at
    run time)."""
    files = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    edges: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for target in _targets(node, name, path.name == "__init__.py"):
                while target and target not in files:  # x.y.func → x.y
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges[name].add(target)
    return edges


def test_no_import_loop() -> None:
    edges = import_graph()
    assert len(edges) > 100  # the whole package was read
    try:
        TopologicalSorter(edges).prepare()
    except CycleError as exc:
        raise AssertionError(f"import loop: {' -> '.join(exc.args[1])}") from None


# The layers above the analysis: it serves them and imports none of them.
_ABOVE_ANALYSIS = re.compile(
    r"^contract_review\.(skills|graph|exports|plugins|cli|web|batch|jobs|review|"
    r"service|documents|testing)(\.|$)"
)


def test_analysis_imports_no_layer_above_it() -> None:
    edges = import_graph()
    analysis = [m for m in edges if m.startswith("contract_review.analysis")]
    assert len(analysis) > 3
    for module in analysis:
        above = sorted(t for t in edges[module] if _ABOVE_ANALYSIS.match(t))
        assert not above, f"{module} imports {above}"


def _skill_modules() -> list[Path]:
    """The skills themselves (adapters), not the framework that runs them."""
    return sorted(
        [*(PACKAGE / "skills" / "local").glob("*.py"), *PACKAGE.glob("plugins/*/skills/*.py")]
    )


# Resolving whom we act for (or finding the contract's parties to do so) belongs to the run:
# a skill reads the resolved side from its ReviewContext.
_PARTY_RESOLUTION = {"party_roles", "resolve_party", "find_parties", "contract_parties"}
_FILE_READS = {"open", "read_text", "read_bytes", "write_text", "write_bytes", "load_workbook"}


def test_skills_resolve_no_party_and_read_no_file() -> None:
    skills = _skill_modules()
    assert len(skills) > 10
    for path in skills:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(PACKAGE)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "contract_review.parties":
                resolving = {a.name for a in node.names} & _PARTY_RESOLUTION
                assert not resolving, f"{where} resolves the party: {sorted(resolving)}"
            if isinstance(node, ast.Call):
                called = node.func
                name = (
                    called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
                )
                assert name not in _FILE_READS, f"{where} reads a file: {name}"
