"""Phobia, the Ob-dice rule system (phobia-utdrag.txt, an excerpt).

Submodules: ``dice`` (open-ended ObnT6 rolls and the plain dice the text names, exact
odds, lines 3-26), ``success`` (success tests against a chance: effect, perfect, fumble,
difficulty modifiers, opposed tests, exact odds; lines 30-65, 354-609), ``character``
(attributes, derived values, skills, house rules; lines 118-350), ``injuries`` (damage,
the serious-injury table, damage rows and bleeding; lines 806-1130) and ``system`` (the
rule-system interface, :mod:`rules.system`).
"""

from rules.phobia import character, dice, injuries, success, system

__all__ = ["character", "dice", "injuries", "success", "system"]
