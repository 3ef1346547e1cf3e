"""Import cycles among the modules of `contract_review`, counting every import: at module level,
inside functions and under `TYPE_CHECKING` (any of them can close a loop at run time, or
couples the modules all the same).

Run: `python tools/import_cycles.py [src/contract_review]`. Prints each strongly connected
component of more than one module (a cycle) with the imports that close it; exits 1 when there
is one.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "contract_review"


def _module_name(path: Path, root: Path) -> str:
    """The dotted name of a source file under the package folder `root`."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> Iterator[str]:
    """The dotted names an import statement may load (a `from x import y` names module x.y
    when y is a submodule; resolved against the known modules later)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        # relative to the importing module's package (the module itself for an __init__)
        package = module.split(".")
        if not is_package:
            package = package[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, base] if base else package)
    yield base
    yield from (f"{base}.{alias.name}" for alias in node.names)


def graph(root: Path) -> dict[str, set[str]]:
    """Module → the modules of the package it imports anywhere in its source."""
    files = {_module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    edges: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for target in _targets(node, name, path.name == "__init__.py"):
                # the most specific module the name reaches (x.y.func → x.y)
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges[name].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def main(argv: list[str]) -> int:
    """Print the cycles of the package at argv[0] (default: src/contract_review)."""
    root = Path(argv[0]).resolve() if argv else ROOT
    edges = graph(root)
    found = cycles(edges)
    print(f"{len(edges)} modules, {sum(map(len, edges.values()))} imports")
    for component in found:
        members = set(component)
        print(f"cycle of {len(component)}:")
        for module in component:
            inside = sorted(edges[module] & members)
            print(f"  {module} -> {', '.join(inside)}")
    if not found:
        print("no cycle")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
