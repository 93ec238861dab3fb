"""The rules core as a package: system lookup, shared error, no Django."""

import ast
from pathlib import Path

import pytest

import rules
from rules import SYSTEMS, RulesError, get_system

RULES_DIR = Path(rules.__file__).parent


def test_get_system_returns_the_aoristos_package():
    system = get_system("aoristos")
    assert system is rules.aoristos
    assert {"aoristos": rules.aoristos} == SYSTEMS


@pytest.mark.parametrize("name", ["phobia", "", "Aoristos", None, ["aoristos"]])
def test_get_system_rejects_unknown_names(name):
    with pytest.raises(RulesError, match="unknown rule system"):
        get_system(name)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_every_system_has_the_same_shape(name):
    system = get_system(name)
    for module in ("dice", "character", "combat"):
        assert hasattr(system, module), f"{name} lacks {module}"


def test_rules_error_is_a_value_error():
    assert issubclass(RulesError, ValueError)


def test_rules_core_never_imports_django():
    """House style: the rules core is plain Python; Django depends on it, not back."""
    sources = sorted(RULES_DIR.rglob("*.py"))
    assert sources
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n.split(".")[0] == "django" for n in names), path
