"""Pure Python rules core of Aoristos Table.

No Django here: the apps depend on this package, never the reverse. Each rule system is
a package under ``rules/`` whose ``SYSTEM`` answers the interface of :mod:`rules.system`
(terms, the character's shape, derived values, tests with exact odds, house rules); its
combat and chronicle engines are found by :func:`rules.engine.engine_for`. A campaign
picks its system by name through :func:`get_system`.
"""

from rules.aoristos.system import SYSTEM as AORISTOS
from rules.errors import RulesError
from rules.phobia.system import SYSTEM as PHOBIA
from rules.system import RuleSystem
from rules.t10.system import SYSTEM as T10

__all__ = ["SYSTEMS", "RuleSystem", "RulesError", "get_system"]

SYSTEMS: dict[str, RuleSystem] = {system.name: system for system in (AORISTOS, PHOBIA, T10)}


def get_system(name: str) -> RuleSystem:
    """The rule system called ``name`` (e.g. ``"phobia"``); RulesError if there is none."""
    try:
        return SYSTEMS[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(SYSTEMS))
        raise RulesError(f"unknown rule system {name!r}; known systems: {known}") from None
