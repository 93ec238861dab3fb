"""The house's layers (docs/architecture.md): which modules may import which.

Read from the source, imports inside functions included, so a lazy import cannot hide a
circle.
"""

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("aoristos_site", "campaigns", "characters", "combat", "core", "rules", "table")


def modules() -> dict[str, Path]:
    found = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The project modules `path` imports, anywhere in it (`from a.b import c` names
    a.b.c when that is a module, else a.b)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(filter(None, [*parts, base]))
            names = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


@functools.cache
def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports_of(path, set(found)) - {name} for name, path in found.items()}


def app_of(module: str) -> str:
    return module.split(".")[0]


def test_no_two_modules_of_different_apps_import_each_other():
    edges = graph()
    circles = sorted(
        (a, b)
        for a, targets in edges.items()
        for b in targets
        if a < b and app_of(a) != app_of(b) and a in edges.get(b, set())
    )
    assert circles == []


def test_the_rules_core_imports_no_django_and_nothing_of_the_apps():
    edges = graph()
    for name, path in modules().items():
        if app_of(name) != "rules":
            continue
        assert "django" not in path.read_text(), name
        assert {app_of(m) for m in edges[name]} <= {"rules"}, name


def test_the_combat_pages_import_one_way():
    """Issue 44: the encounter panel needed the simulation section's context and the
    section's views the panel's `encounter_for`, a circle hidden in a lazy import. What the
    view modules share is combat.pages, below them; none of them imports another."""
    edges = graph()
    pages = ("combat.views", "combat.simulation_views", "combat.api")
    assert sorted((a, b) for a in pages for b in pages if b in edges[a]) == []
    assert not {m for m in edges["combat.pages"] if m in pages}
