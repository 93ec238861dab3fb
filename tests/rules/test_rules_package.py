"""The rules core as a package: system lookup, shared error, no Django."""

import ast
from pathlib import Path

import pytest

import rules
from rules import SYSTEMS, RulesError, get_system
from rules.system import RuleSystem

RULES_DIR = Path(rules.__file__).parent


def test_get_system_returns_each_system_by_its_campaign_name():
    assert get_system("aoristos") is rules.aoristos.system.SYSTEM
    assert get_system("phobia") is rules.phobia.system.SYSTEM
    assert get_system("t10") is rules.t10.system.SYSTEM
    assert set(SYSTEMS) == {"aoristos", "phobia", "t10"}
    assert all(system.name == name for name, system in SYSTEMS.items())


@pytest.mark.parametrize("name", ["t11", "", "Aoristos", None, ["aoristos"]])
def test_get_system_rejects_unknown_names(name):
    with pytest.raises(RulesError, match="unknown rule system"):
        get_system(name)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_every_system_answers_the_interface(name):
    """Everything rules.system.RuleSystem lists, so the apps need nothing else."""
    system = get_system(name)
    for member in RuleSystem.__protocol_attrs__:
        assert hasattr(system, member), f"{name} lacks {member}"
    assert system.builder in {"points", "entered"}
    keys = [stat.key for stat in system.attributes + system.skills]
    assert len(keys) == len(set(keys)), "a stat key is used twice"
    assert system.house(None) == {rule.key: rule.default for rule in system.house_rules}


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
