"""The house's layers (docs/architecture.md): which modules may import which.

Read from the source, imports inside functions included, so a lazy import cannot hide a
circle. Every package at the top of the repository is an app here (a new one joins with
no list to update); `tests` is not.

An import is an edge to the module it names: `from a.b import c` is an edge to ``a.b.c``
when that is a module, and to ``a.b`` (the package's ``__init__``) only when ``c`` is a
name defined there. Python runs ``a/b/__init__.py`` first either way, but a package that
lists its modules (``rules.aoristos.combat`` does) does not make each of them need the
others.
"""

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_APPS = {"tests"}


def apps() -> tuple[str, ...]:
    """Every top-level package of the repository but the tests."""
    return tuple(sorted(
        path.parent.name for path in ROOT.glob("*/__init__.py")
        if path.parent.name not in NOT_APPS
    ))


def modules() -> dict[str, Path]:
    found = {}
    for app in apps():
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The project modules `path` imports, anywhere in it (the edges of the module
    docstring)."""
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
            names = [f"{base}.{alias.name}" for alias in node.names]
            if any(name not in known for name in names):
                names.append(base)  # a name of the package itself, not one of its modules
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


@functools.cache
def graph() -> dict[str, frozenset[str]]:
    found = modules()
    return {
        name: frozenset(imports_of(path, set(found)) - {name}) for name, path in found.items()
    }


def app_of(module: str) -> str:
    return module.split(".")[0]


def circles(edges: dict[str, frozenset[str]]) -> list[list[str]]:
    """Each circle of imports, as the modules along one of its loops back to the first
    (``a -> b -> c -> a``): one per strongly connected part of the graph (Tarjan's
    algorithm, without recursion), the shortest loop through its smallest module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    parts: list[set[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.add(member)
                        if member == node:
                            break
                    if len(part) > 1:
                        parts.append(part)
    return sorted(shortest_loop(edges, part) for part in parts)


def shortest_loop(edges: dict[str, frozenset[str]], part: set[str]) -> list[str]:
    """The shortest way from the smallest module of `part` back to itself (breadth first)."""
    start = min(part)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(edges[node] & part):
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"{start} has no loop in {sorted(part)}")


def test_every_package_of_the_repository_is_read():
    assert {"archive", "campaign_log", "combat", "rules", "table"} <= set(apps())
    assert {app_of(name) for name in graph()} == set(apps())


def test_no_circle_of_imports_of_any_length():
    found = [" -> ".join(loop) for loop in circles(graph())]
    assert found == [], "import circles:\n" + "\n".join(found)


def test_the_circle_finder_names_a_long_circle_and_passes_a_tree():
    edges = {
        "a": frozenset({"b"}), "b": frozenset({"c", "d"}), "c": frozenset({"a"}),
        "d": frozenset(), "e": frozenset({"e2"}), "e2": frozenset({"e"}),
    }
    assert circles(edges) == [["a", "b", "c", "a"], ["e", "e2", "e"]]
    assert circles({"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset()}) == []


def test_the_rules_core_imports_no_django_and_nothing_of_the_apps():
    edges = graph()
    for name, path in modules().items():
        if app_of(name) != "rules":
            continue
        assert "django" not in path.read_text(), name
        assert {app_of(m) for m in edges[name]} <= {"rules"}, name


def test_the_campaigns_log_imports_no_app_above_it():
    """The log is under the table and the fights (docs/architecture.md): it knows
    campaigns and their members, and every kind of event registers with it."""
    edges = graph()
    for name, targets in edges.items():
        if app_of(name) == "campaign_log":
            above = {app_of(m) for m in targets} - {"campaign_log", "campaigns", "core", "rules"}
            assert above == set(), name


def test_the_table_and_the_fights_do_not_import_each_other():
    edges = graph()
    across = sorted(
        (name, target)
        for name, targets in edges.items()
        for target in targets
        if {app_of(name), app_of(target)} == {"table", "combat"}
    )
    assert across == []


def test_the_combat_pages_import_one_way():
    """Issue 44: the encounter panel needed the simulation section's context and the
    section's views the panel's `encounter_for`, a circle hidden in a lazy import. What the
    view modules share is combat.pages, below them; none of them imports another."""
    edges = graph()
    pages = ("combat.views", "combat.simulation_views", "combat.api")
    assert sorted((a, b) for a in pages for b in pages if b in edges[a]) == []
    assert not {m for m in edges["combat.pages"] if m in pages}
