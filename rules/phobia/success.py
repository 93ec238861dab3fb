"""Phobia success tests (phobia-utdrag.txt lines 30-65, 354-372, 385-609).

A test rolls the difficulty, an open-ended ``ObnT6`` (Ob3T6 is normal), against the
chance, a skill or attribute value: the roll succeeds when the total is at most the
chance (lines 46-49, 358-361). Effect = chance - total (line 416), also for failures,
perfect rolls and fumbles (lines 402-404).

Special results read the first roll, before any six is rerolled:

* Perfect pattern (lines 430-433): every die of the first roll shows 1 but at most one;
  a single die must show 1-3. The roll then succeeds whatever its total (lines 438-440):
  it is *perfect* when the total is also at most the chance, an ordinary success when it
  is not (its effect is then negative).
* Fumble risk (lines 481-482, 489-496): two or more sixes in the first roll. Such a roll
  never succeeds: it is a *fumble* when the total is above the chance and an ordinary
  failure when it is not (the 6, 6, 1, 1 example of lines 510-513 totals 13 against 14).

Ob0T6 (no dice, total 0; the text's table starts at Ob1T6) has no first roll to read, so
it is never perfect nor a fumble: it succeeds exactly when the chance is at least 0.

Opposed tests (lines 556-578): perfect beats non-perfect, a fumble always loses, and
otherwise the higher effect wins; equal effects win nothing and both roll again.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate
from types import MappingProxyType

from rules.errors import RulesError
from rules.phobia.dice import (
    MAX_EXACT_TOTAL,
    MAX_OB_DICE,
    SIDES,
    ObDice,
    ObRoll,
    Roller,
    first_roll_distribution,
    p_at_most,
    p_rerolls_at_most,
    roll,
)

__all__ = [
    "MAX_EXACT_CHANCE",
    "Difficulty",
    "Odds",
    "TestOutcome",
    "delayed_difficulty",
    "delayed_opposed",
    "fumble_risk",
    "modify_difficulty",
    "odds",
    "opposed",
    "perfect_pattern",
    "relative_effect",
    "resolve_test",
    "success_test",
    "warm",
]

MAX_EXACT_CHANCE = MAX_EXACT_TOTAL
WARM_DIFFICULTY = 10  # warm() covers Ob0T6..Ob10T6 (issue 10: "up to Ob10T6")


class Difficulty(IntEnum):
    """The basic difficulties of table 1 (lines 53-65), by their number of Ob dice.

    Harder ones exist (line 371: "Även ännu svårare handlingar kan förekomma") and have no
    name; so has Ob0T6."""

    VERY_EASY = 1  # Mycket lätt
    EASY = 2  # Lätt
    NORMAL = 3  # Normalsvårt (the table's "Normal svårt", line 59; "normalsvår", line 364)
    HARD = 4  # Svårt
    VERY_HARD = 5  # Mycket svårt


def _check_int(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesError(f"{name} must be an integer, got {value!r}", code="not_integer")
    return value


def _check_difficulty(difficulty: object) -> int:
    if not 0 <= _check_int("difficulty", difficulty) <= MAX_OB_DICE:
        raise RulesError(
            f"difficulty is Ob0T6 to Ob{MAX_OB_DICE}T6, got {difficulty} dice",
            code="difficulty_out_of_range",
            limit=MAX_OB_DICE,
        )
    return difficulty


def modify_difficulty(difficulty: int, *levels: int) -> int:
    """The difficulty after modifiers such as +Ob1T6 or -Ob1T6 (lines 527-552).

    A modifier changes the number of dice rolled, not the result (lines 529-537); the
    cumulative ones add up first (Ob3T6 with +2, -1, +1, -1, +1 is Ob5T6, lines 543-547),
    then the sum is kept within Ob0T6..Ob20T6 (the dice bound; Ob20T6 averages 75, far
    above any chance, so the upper clamp changes nothing at the table). Non-cumulative
    modifiers are not added: the GM picks one (lines 550-552), before calling this.
    """
    _check_difficulty(difficulty)
    for level in levels:
        _check_int("level", level)
    return min(max(difficulty + sum(levels), 0), MAX_OB_DICE)


def perfect_pattern(first: tuple[int, ...]) -> bool:
    """Lines 430-433: every die of the first roll shows 1 but at most one; a lone die
    shows 1, 2 or 3. No dice (Ob0T6) is no pattern."""
    if len(first) == 1:
        return first[0] <= 3
    return len(first) >= 2 and sum(die != 1 for die in first) <= 1


def fumble_risk(first: tuple[int, ...]) -> bool:
    """Lines 481-482: two or more dice of the first roll show 6 ("fummelrisk", line 505)."""
    return first.count(SIDES) >= 2


@dataclass(frozen=True)
class TestOutcome:
    """A resolved test: the roll, the chance, and what the rules make of them."""

    __test__ = False  # not a pytest test class, despite the name

    chance: int
    roll: ObRoll
    success: bool
    perfect: bool
    fumble: bool
    effect: int

    @property
    def difficulty(self) -> int:
        return self.roll.dice.count

    @property
    def first(self) -> tuple[int, ...]:
        return self.roll.first

    @property
    def rerolls(self) -> tuple[int, ...]:
        return self.roll.rerolls

    @property
    def total(self) -> int:
        return self.roll.total


def resolve_test(chance: int, rolled: ObRoll) -> TestOutcome:
    """Resolve an already rolled test against ``chance`` (see the module docstring)."""
    _check_int("chance", chance)
    if not isinstance(rolled, ObRoll):
        raise RulesError(f"a test resolves an ObRoll, got {rolled!r}")
    within = rolled.total <= chance
    pattern = perfect_pattern(rolled.first)
    risk = fumble_risk(rolled.first)
    return TestOutcome(
        chance=chance,
        roll=rolled,
        success=pattern or (within and not risk),
        perfect=pattern and within,
        fumble=risk and not within,
        effect=chance - rolled.total,
    )


def success_test(
    chance: int, difficulty: int = Difficulty.NORMAL, rng: Roller | None = None
) -> TestOutcome:
    """Roll ``Ob<difficulty>T6`` (default Ob3T6, normal) and resolve it against ``chance``."""
    _check_int("chance", chance)
    return resolve_test(chance, roll(ObDice(int(_check_difficulty(difficulty))), rng))


def _rank(outcome: TestOutcome) -> int:
    return 2 if outcome.perfect else 0 if outcome.fumble else 1


def opposed(a: TestOutcome, b: TestOutcome) -> int:
    """Active opposition (lines 556-578): 1 if A wins, -1 if B wins, 0 if nobody does and
    both roll again (line 563-564).

    A perfect roll beats one that is not, whatever the effects; both perfect compare
    effects (lines 573-575). A fumble always loses (lines 575-576, 496-498); both fumbled
    compare effects too ("på omvänt sätt", the mirror of the perfect rule). Otherwise the
    higher effect wins (lines 561-563)."""
    key_a, key_b = (_rank(a), a.effect), (_rank(b), b.effect)
    return (key_a > key_b) - (key_a < key_b)


def delayed_opposed(earlier: TestOutcome, later: TestOutcome) -> bool:
    """Opposition against a test made earlier (a disguise, a hiding place; lines 580-609):
    does the later roll overcome the earlier one, whose effect was remembered?

    The comparison is :func:`opposed`'s, but the earlier roll cannot be made again, so an
    equal result goes to the later roll: Sinclair's effect 7 is found by a guard whose
    effect is "sju eller bättre", seven or better (lines 606-607)."""
    return opposed(later, earlier) >= 0


def delayed_difficulty(difficulty: int, voluntary_levels: int, earlier: TestOutcome) -> int:
    """The later roll's difficulty (lines 589-594): whoever acted first may add voluntary
    levels to their own roll; if it still succeeded, the later roll adds as many."""
    _check_difficulty(difficulty)
    if _check_int("voluntary_levels", voluntary_levels) < 0:
        raise RulesError(f"voluntary levels cannot be negative, got {voluntary_levels}")
    return modify_difficulty(difficulty, voluntary_levels if earlier.success else 0)


def relative_effect(own: TestOutcome, opposing: TestOutcome) -> int:
    """Relative effect = active effect - opposing effect (lines 422, 576-578)."""
    return own.effect - opposing.effect


@dataclass(frozen=True)
class Odds:
    """Exact odds of a test of ``Ob<difficulty>T6`` against ``chance``.

    ``effects`` maps each effect 0..chance to P(success with that effect), i.e. totals at
    most the chance; ``success_above_chance`` is P(a perfect pattern whose total passed the
    chance), a success with a negative effect (lines 438-440). Together they make
    ``success``."""

    difficulty: int
    chance: int
    success: Fraction
    perfect: Fraction
    fumble: Fraction
    effects: Mapping[int, Fraction]
    success_above_chance: Fraction

    @property
    def failure(self) -> Fraction:
        return 1 - self.success


def _pattern_rolls(n: int) -> tuple[tuple[int, int, int], ...]:
    """The perfect patterns of n first-roll dice as (sixes, sum of the other dice, ways)."""
    if n == 0:
        return ()
    if n == 1:
        return ((0, 1, 1), (0, 2, 1), (0, 3, 1))
    odd_die = tuple((0, n - 1 + face, n) for face in range(2, SIDES))
    return ((0, n, 1), *odd_die, (1, n - 1, n))


@lru_cache(maxsize=MAX_OB_DICE + 1)
def _few_sixes(n: int) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """The first roll of n dice shows at most one six (the rolls that can succeed by their
    total): P(that and the total is t), and P(that and the total is at most t), for every
    t = 0..MAX_EXACT_CHANCE. The same for every chance, so a new chance only reads them."""
    dice = ObDice(n)
    exactly = [Fraction(0)] * (MAX_EXACT_CHANCE + 1)
    for sixes in (0, 1):
        for total, p in first_roll_distribution(dice, sixes, MAX_EXACT_CHANCE).items():
            exactly[total] += p
    return tuple(exactly), tuple(accumulate(exactly))


@lru_cache(maxsize=1024)
def _odds(n: int, chance: int) -> Odds:
    dice = ObDice(n)
    per_roll = Fraction(1, SIDES**n)
    patterns = _pattern_rolls(n)
    p_pattern = sum(ways for _, _, ways in patterns) * per_roll
    perfect = sum(
        (ways * per_roll * p_rerolls_at_most(sixes, chance - s) for sixes, s, ways in patterns),
        Fraction(0),
    )
    # At most one six on the first roll: the rolls that can succeed by their total.
    exactly, at_most = _few_sixes(n)
    effects = {chance - total: exactly[total] for total in range(chance, -1, -1) if exactly[total]}
    p_within_few_sixes = at_most[chance] if chance >= 0 else Fraction(0)
    p_few_sixes = Fraction(5**n + n * 5 ** (n - 1) if n else 1, SIDES**n)
    p_within = p_at_most(dice, chance)
    return Odds(
        difficulty=n,
        chance=chance,
        success=p_pattern + p_within_few_sixes - perfect,
        perfect=perfect,
        fumble=(1 - p_few_sixes) - (p_within - p_within_few_sixes),
        effects=MappingProxyType(effects),
        success_above_chance=p_pattern - perfect,
    )


def odds(difficulty: int, chance: int) -> Odds:
    """Exact odds of success, perfect and fumble, and the effects of the successes, for
    ``Ob<difficulty>T6`` (0-20 dice) against ``chance`` (any integer up to 200)."""
    _check_difficulty(difficulty)
    if _check_int("chance", chance) > MAX_EXACT_CHANCE:
        raise RulesError(
            f"chance {chance} is above {MAX_EXACT_CHANCE}, the limit of the exact odds",
            code="chance_too_large",
            limit=MAX_EXACT_CHANCE,
        )
    return _odds(int(difficulty), chance)


def warm(max_difficulty: int = WARM_DIFFICULTY) -> None:
    """Build the tables :func:`odds` reads for Ob0T6 to ``Ob<max_difficulty>T6`` and every
    chance up to :data:`MAX_EXACT_CHANCE`, so that no odds a process answers pays for them
    (a server calls this once at start). Changes no result, only what is cached; any
    other difficulty builds its tables on its first odds, as without it."""
    for n in range(_check_difficulty(max_difficulty) + 1):
        _few_sixes(n)
        p_at_most(ObDice(n), MAX_EXACT_TOTAL)
    p_rerolls_at_most(1, MAX_EXACT_TOTAL)  # the lone six of a perfect pattern
