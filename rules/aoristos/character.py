"""Aoristos characters: attributes, skills, development costs, secondary attributes and
load (p. 2, 3, 5, 17).

Levels run 0..30 for the five primary attributes and the 21 skills. Costs in UP ("dp" in
code) from level 0 to L: skills (L-1)·L/2, attributes (L-1)·L·(L+1)/6; the same prices
apply at creation and later. Secondary attributes come from the base (unmodified)
primaries, rounded down. Rule violations of a build (over budget, above the campaign's
level cap) are reported as :class:`BuildIssue`; malformed input raises
:class:`~rules.RulesError`.
"""

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from decimal import Decimal
from fractions import Fraction
from math import ceil
from types import MappingProxyType

from rules.errors import RulesError

__all__ = [
    "ATTRIBUTES",
    "DEFAULT_ATTRIBUTE",
    "DEFAULT_DP_BUDGET",
    "DEFAULT_LEVEL_CAP",
    "DEFAULT_SKILL",
    "MAX_DP_BUDGET",
    "MAX_LEVEL",
    "MIN_LEVEL",
    "SECONDARY",
    "SKILLS",
    "BuildIssue",
    "BuildReport",
    "Secondary",
    "apply_encumbrance",
    "attribute_cost",
    "attribute_step_cost",
    "encumbrance_penalty",
    "evaluate_build",
    "secondary",
    "skill_cost",
    "skill_step_cost",
]

# FYS, KAO, RÖR, SIN, VIL (p. 2).
ATTRIBUTES: tuple[str, ...] = (
    "physique",
    "composure",
    "agility",
    "alertness",
    "willpower",
)

# The 21 skills in the order of the rule text (p. 3); keys from glossary.md.
SKILLS: tuple[str, ...] = (
    "car",
    "blowpipe",
    "airplane",
    "mechanics",
    "helicopter",
    "throwing",
    "climbing",
    "first_aid",
    "motorboat",
    "motorcycle",
    "melee_weapons",
    "bow",
    "psychology",
    "riding",
    "sailboat",
    "swimming",
    "firearms",
    "brawling",
    "sling",
    "evasion",
    "wilderness",
)

# Bärförmåga, Chocktolerans, Förflyttning, Handlingskraft, Härdighet (p. 2).
SECONDARY: tuple[str, ...] = (
    "carrying_capacity",
    "shock_tolerance",
    "movement",
    "drive",
    "toughness",
)

MIN_LEVEL = 0
MAX_LEVEL = 30
DEFAULT_ATTRIBUTE = 1
DEFAULT_SKILL = 0
DEFAULT_DP_BUDGET = 33
DEFAULT_LEVEL_CAP = 5  # "Nivå 5 är den högsta en vanlig människa kan uppnå" (p. 3)
MAX_DP_BUDGET = 500


def _check_int(name: str, value: object, low: int, high: int) -> int:
    # bool is an int subclass but never a level.
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesError(f"{name} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise RulesError(f"{name} must be between {low} and {high}, got {value}")
    return value


def _level(level: object) -> int:
    return _check_int("level", level, MIN_LEVEL, MAX_LEVEL)


def _step_level(level: object) -> int:
    return _check_int("level", level, MIN_LEVEL + 1, MAX_LEVEL)


def skill_cost(level: int) -> int:
    """UP to develop a skill from 0 to ``level``: (L-1)·L/2 (p. 3, 17)."""
    level = _level(level)
    return (level - 1) * level // 2 if level else 0


def attribute_cost(level: int) -> int:
    """UP to develop an attribute from 0 to ``level``: (L-1)·L·(L+1)/6 (p. 2, 17)."""
    level = _level(level)
    return (level - 1) * level * (level + 1) // 6


def skill_step_cost(level: int) -> int:
    """UP to raise a skill from ``level - 1`` to ``level``: the current level (p. 3)."""
    return _step_level(level) - 1


def attribute_step_cost(level: int) -> int:
    """UP to raise an attribute from ``level - 1`` to ``level``: the cost of a skill
    from zero to ``level`` (p. 3)."""
    level = _step_level(level)
    return (level - 1) * level // 2


@dataclass(frozen=True)
class Secondary:
    """Secondary attributes (p. 2)."""

    carrying_capacity: int  # Bärförmåga
    shock_tolerance: int  # Chocktolerans
    movement: int  # Förflyttning
    drive: int  # Handlingskraft (KP per activation)
    toughness: int  # Härdighet

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def _levels(
    values: Mapping[str, int], keys: tuple[str, ...], default: int, kind: str
) -> dict[str, int]:
    """Validate ``values``; return every level in ``keys`` order, with defaults."""
    if not isinstance(values, Mapping):
        raise RulesError(f"{kind} levels must be a mapping, got {type(values).__name__}")
    for key in values:
        if key not in keys:
            raise RulesError(f"unknown {kind} {key!r}")
    return {
        key: _check_int(f"{kind} {key!r}", values.get(key, default), MIN_LEVEL, MAX_LEVEL)
        for key in keys
    }


def _attributes(attributes: Mapping[str, int]) -> dict[str, int]:
    return _levels(attributes, ATTRIBUTES, DEFAULT_ATTRIBUTE, "attribute")


def _skills(skills: Mapping[str, int]) -> dict[str, int]:
    return _levels(skills, SKILLS, DEFAULT_SKILL, "skill")


def _secondary(a: Mapping[str, int]) -> Secondary:
    return Secondary(
        carrying_capacity=4 * a["physique"],
        shock_tolerance=a["willpower"] + 3,
        movement=a["agility"] + 5,
        drive=a["composure"] + a["alertness"] // 2 + 4,
        toughness=a["physique"] + 1,
    )


def secondary(attributes: Mapping[str, int]) -> Secondary:
    """Secondary attributes from the base primaries (p. 2); missing attributes are 1.

    Temporary changes (load, nervchock) never recompute these.
    """
    return _secondary(_attributes(attributes))


def encumbrance_penalty(bulk: int, carrying_capacity: int) -> int:
    """Penalty to RÖR and Förflyttning for carried FP (p. 5).

    Carrying more FP than Bärförmåga gives -1 per whole multiple of Bärförmåga in the FP
    sum: BF 12 with FP 12 → 0, FP 13 → 1, FP 24 → 2. ``bulk`` may be an int, Fraction or
    Decimal (item lists may give half FP); the penalty is an int.

    Ruling for Bärförmåga 0 (FYS 0): the FP sum holds unboundedly many multiples of 0,
    so we count every started FP as one multiple (penalty = ceil(bulk)); nothing carried
    means no penalty. Combined with :func:`apply_encumbrance` flooring at 0 this soon
    reaches RÖR 0 without dividing by zero.
    """
    if isinstance(bulk, bool) or not isinstance(bulk, int | Fraction | Decimal):
        raise RulesError(f"bulk must be a number of FP, got {bulk!r}")
    if isinstance(bulk, Decimal) and not bulk.is_finite():
        raise RulesError(f"bulk must be finite, got {bulk}")
    if bulk < 0:
        raise RulesError(f"bulk cannot be negative, got {bulk}")
    if isinstance(carrying_capacity, bool) or not isinstance(carrying_capacity, int):
        raise RulesError(f"carrying_capacity must be an integer, got {carrying_capacity!r}")
    if carrying_capacity < 0:
        raise RulesError(f"carrying_capacity cannot be negative, got {carrying_capacity}")
    if bulk <= carrying_capacity:
        return 0
    if carrying_capacity == 0:
        return ceil(bulk)
    return int(bulk // carrying_capacity)


def apply_encumbrance(agility: int, movement: int, penalty: int) -> tuple[int, int]:
    """Effective (RÖR, Förflyttning) under a load penalty, never below 0 (p. 5)."""
    for name, value in (
        ("agility", agility),
        ("movement", movement),
        ("penalty", penalty),
    ):
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(f"{name} must be an integer, got {value!r}")
        if value < 0:
            raise RulesError(f"{name} cannot be negative, got {value}")
    return max(agility - penalty, 0), max(movement - penalty, 0)


@dataclass(frozen=True)
class BuildIssue:
    """A rule the build breaks. ``code`` and ``params`` are stable (the UI translates
    them); ``message`` is English for logs and tools.

    Codes: ``"over_budget"`` (field ``"dp_budget"``, params spent and budget) and
    ``"above_level_cap"`` (field = the attribute or skill key, params level and cap).
    """

    field: str
    code: str
    message: str
    params: tuple[tuple[str, int | str], ...] = ()


@dataclass(frozen=True)
class BuildReport:
    """Cost and validity of a character build.

    ``attribute_costs`` / ``skill_costs`` map every key (in ATTRIBUTES / SKILLS order)
    to the UP its current level costs from zero; they are read-only mappings.
    """

    dp_spent: int
    dp_left: int
    secondary: Secondary
    issues: tuple[BuildIssue, ...]
    attribute_costs: Mapping[str, int]
    skill_costs: Mapping[str, int]

    @property
    def valid(self) -> bool:
        return not self.issues


def evaluate_build(
    attributes: Mapping[str, int],
    skills: Mapping[str, int],
    dp_budget: int,
    level_cap: int,
) -> BuildReport:
    """Price a build and list the rules it breaks (p. 2, 3).

    Missing attributes are 1 and missing skills 0. Unknown keys, non-integer levels
    (bool included) and levels outside 0..30, a budget outside 0..500 or a cap outside
    0..30 raise RulesError. Spending more than the budget or a level above the cap are
    issues, not errors; ``dp_left`` goes negative when over budget.
    """
    attribute_levels = _attributes(attributes)
    skill_levels = _skills(skills)
    _check_int("dp_budget", dp_budget, 0, MAX_DP_BUDGET)
    _check_int("level_cap", level_cap, MIN_LEVEL, MAX_LEVEL)

    attribute_costs = {key: attribute_cost(level) for key, level in attribute_levels.items()}
    skill_costs = {key: skill_cost(level) for key, level in skill_levels.items()}
    spent = sum(attribute_costs.values()) + sum(skill_costs.values())

    issues = []
    if spent > dp_budget:
        issues.append(
            BuildIssue(
                "dp_budget",
                "over_budget",
                f"the build costs {spent} DP but the budget is {dp_budget} DP",
                (("spent", spent), ("budget", dp_budget)),
            )
        )
    for kind, levels in (("attribute", attribute_levels), ("skill", skill_levels)):
        for key, level in levels.items():
            if level > level_cap:
                issues.append(
                    BuildIssue(
                        key,
                        "above_level_cap",
                        f"{kind} {key!r} is at level {level}, above the level cap {level_cap}",
                        (("level", level), ("cap", level_cap)),
                    )
                )

    return BuildReport(
        dp_spent=spent,
        dp_left=dp_budget - spent,
        secondary=_secondary(attribute_levels),
        issues=tuple(issues),
        attribute_costs=MappingProxyType(attribute_costs),
        skill_costs=MappingProxyType(skill_costs),
    )
