"""Aoristos advancement: UP awards after creation and the price of one more level
(p. 3, "Senare utveckling", the training table, the combat table at the top of p. 4;
prices p. 3 and 17).

Awards, all in UP ("dp" in code):

- travel: 1 UP per month of instructive travel in a new environment;
- hardship: up to 3 for truly challenging hardships (0..3);
- training: by instruction hours per day, per month: 2 h → 1, 4 h → 2, 8 h → 3 (needs
  Viljestyrka and a teacher always at hand), 12+ h → 4 (several teachers, small groups or
  private; gives psyktrauma, p. 15). Between rows the highest row not above the hours
  counts (6 h → 2); under 2 h gives nothing;
- combat: 0..3 by the challenge, whatever the outcome (the four rows of the table).

Raising a level costs what the rule text says on p. 3: a skill's next level costs its
current level; an attribute's next level costs as much as a skill from zero to that level.
"""

from dataclasses import dataclass

from rules.aoristos.character import (
    ATTRIBUTES,
    MAX_LEVEL,
    MIN_LEVEL,
    SKILLS,
    attribute_step_cost,
    skill_step_cost,
)
from rules.errors import RulesError

__all__ = [
    "AWARD_KINDS",
    "COMBAT_CHALLENGES",
    "MAX_HARDSHIP_DP",
    "MAX_HOURS_PER_DAY",
    "MAX_MONTHS",
    "PSYCH_TRAUMA_HOURS",
    "RAISE_KINDS",
    "TEACHER_HOURS",
    "TRAINING_TABLE",
    "TRAVEL_DP_PER_MONTH",
    "Award",
    "combat_dp",
    "hardship_dp",
    "raise_cost",
    "raise_kind",
    "table_award",
    "training_dp",
    "training_row",
    "travel_dp",
]

TRAVEL_DP_PER_MONTH = 1  # "1 UP per månad för lärorika resor i en ny miljö" (p. 3)
MAX_HARDSHIP_DP = 3  # "upp till 3 vid verkligt utmanande strapatser" (p. 3)

# Träning: (instruction hours per day, UP per month), p. 3.
TRAINING_TABLE: tuple[tuple[int, int], ...] = ((2, 1), (4, 2), (8, 3), (12, 4))
TEACHER_HOURS = 8  # "Kräver Viljestyrka och ständigt tillgänglig lärare."
PSYCH_TRAUMA_HOURS = 12  # "Ger psyktrauma (s. 15)."

# Strid, oavsett resultat (p. 4): challenge 0..3 gives as many UP.
# 0: no threat if taken seriously; 1: the average RP would win alone; 2: the average RP
# would lose alone; 3: the whole group is threatened.
COMBAT_CHALLENGES: tuple[int, ...] = (0, 1, 2, 3)

# Bounds on input, not rules: a day has 24 hours; ten years is a long time between sessions.
MAX_HOURS_PER_DAY = 24
MAX_MONTHS = 120

AWARD_KINDS: tuple[str, ...] = ("travel", "hardship", "training", "combat")
RAISE_KINDS: tuple[str, ...] = ("attribute", "skill")


@dataclass(frozen=True)
class Award:
    """UP from one of the book's award tables. ``reason`` is English (for logs and tools;
    pages word their own). ``needs_teacher`` marks the 8 h row and above, ``psych_trauma``
    the 12+ h row: the GM must also give psyktrauma (amount set by the GM, p. 15)."""

    amount: int
    reason: str
    psych_trauma: bool = False
    needs_teacher: bool = False


def _int(name: str, value: object, low: int, high: int) -> int:
    # bool is an int subclass but never a count.
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesError(f"{name} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise RulesError(f"{name} must be between {low} and {high}, got {value}")
    return value


def travel_dp(months: int) -> int:
    """UP for ``months`` (1..120) of instructive travel: 1 per month (p. 3)."""
    return TRAVEL_DP_PER_MONTH * _int("months", months, 1, MAX_MONTHS)


def hardship_dp(amount: int) -> int:
    """UP for a hardship: the GM's judgement, up to 3 (p. 3)."""
    return _int("hardship", amount, 0, MAX_HARDSHIP_DP)


def training_row(hours_per_day: int) -> tuple[int, int]:
    """The row of the training table that ``hours_per_day`` (0..24) falls in: the highest
    row not above the hours, as (row hours, UP per month); (0, 0) under 2 hours (p. 3)."""
    hours = _int("hours per day", hours_per_day, 0, MAX_HOURS_PER_DAY)
    row = (0, 0)
    for row_hours, dp in TRAINING_TABLE:
        if hours >= row_hours:
            row = (row_hours, dp)
    return row


def training_dp(hours_per_day: int, months: int) -> Award:
    """UP for ``months`` (1..120) of training ``hours_per_day`` (0..24) a day (p. 3)."""
    _row_hours, per_month = training_row(hours_per_day)
    months = _int("months", months, 1, MAX_MONTHS)
    return Award(
        amount=per_month * months,
        reason=f"training {hours_per_day} h/day for {months} months",
        psych_trauma=hours_per_day >= PSYCH_TRAUMA_HOURS,
        needs_teacher=hours_per_day >= TEACHER_HOURS,
    )


def combat_dp(challenge: int) -> int:
    """UP for a combat, whatever its outcome, by challenge 0..3 (table at the top of p. 4)."""
    return _int("combat challenge", challenge, 0, len(COMBAT_CHALLENGES) - 1)


def table_award(kind: str, **params: int) -> Award:
    """An award by one of the book's tables.

    ``table_award("travel", months=3)``, ``table_award("hardship", amount=2)``,
    ``table_award("training", hours_per_day=4, months=2)``,
    ``table_award("combat", challenge=1)``. Unknown kinds, missing or extra parameters
    and values out of range raise RulesError.
    """
    expected = {
        "travel": {"months"},
        "hardship": {"amount"},
        "training": {"hours_per_day", "months"},
        "combat": {"challenge"},
    }
    if kind not in expected:
        raise RulesError(f"unknown award kind {kind!r}; known: {', '.join(AWARD_KINDS)}")
    if set(params) != expected[kind]:
        wanted = ", ".join(sorted(expected[kind]))
        raise RulesError(
            f"a {kind} award takes {wanted}, got {', '.join(sorted(params)) or 'nothing'}"
        )
    if kind == "travel":
        months = params["months"]
        return Award(travel_dp(months), f"travel for {months} months")
    if kind == "hardship":
        return Award(hardship_dp(params["amount"]), "hardship")
    if kind == "training":
        return training_dp(params["hours_per_day"], params["months"])
    challenge = params["challenge"]
    return Award(combat_dp(challenge), f"combat, challenge {challenge}")


def raise_kind(key: str) -> str:
    """``"attribute"`` or ``"skill"`` for a code name (glossary.md); RulesError otherwise."""
    if key in ATTRIBUTES:
        return "attribute"
    if key in SKILLS:
        return "skill"
    raise RulesError(f"unknown attribute or skill {key!r}")


def raise_cost(kind: str, level_now: int) -> int:
    """UP to raise an attribute or a skill from ``level_now`` to the next level (p. 3, 17).

    A skill's next level costs its current level; an attribute's next level costs a skill
    from zero to that level. Level 30 is the highest; there is no next level.
    """
    if kind not in RAISE_KINDS:
        raise RulesError(f"kind must be 'attribute' or 'skill', got {kind!r}")
    level = _int("level", level_now, MIN_LEVEL, MAX_LEVEL)
    if level == MAX_LEVEL:
        raise RulesError(f"level {MAX_LEVEL} is the highest; there is no next level")
    step = attribute_step_cost if kind == "attribute" else skill_step_cost
    return step(level + 1)
