"""Pure Python rules core of Aoristos Table.

No Django here: the apps depend on this package, never the reverse. Each rule system is
a package with the same shape (modules ``dice``, ``character`` and ``combat``), so a
campaign picks one by name through :func:`get_system`.
"""

from types import ModuleType

from rules import aoristos
from rules.errors import RulesError

__all__ = ["SYSTEMS", "RulesError", "get_system"]

SYSTEMS: dict[str, ModuleType] = {"aoristos": aoristos}


def get_system(name: str) -> ModuleType:
    """Return the rule system package called ``name`` (e.g. ``"aoristos"``)."""
    try:
        return SYSTEMS[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(SYSTEMS))
        raise RulesError(f"unknown rule system {name!r}; known systems: {known}") from None
