"""Phobia, the Ob-dice rule system (phobia-utdrag.txt, an excerpt).

Submodules so far: ``dice`` (open-ended ObnT6 rolls and the plain dice the text names,
exact odds, lines 3-26) and ``success`` (success tests against a chance: effect, perfect,
fumble, difficulty modifiers, opposed tests, exact odds; lines 30-65, 354-609). Character
and combat modules come later; until then the system is not registered in
``rules.SYSTEMS``.
"""

from rules.phobia import dice, success

__all__ = ["dice", "success"]
