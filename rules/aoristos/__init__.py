"""Aoristos, the core rule system of the project (aoristos-grundregler.txt).

Submodules: ``dice`` (hands, rolls, exact odds, p. 4), ``success`` (success tests,
p. 5), ``character`` (attributes, skills, costs, secondary attributes, load; p. 2, 3, 5,
17) and ``combat`` (placeholder).
"""

from rules.aoristos import character, combat, dice, success

__all__ = ["character", "combat", "dice", "success"]
