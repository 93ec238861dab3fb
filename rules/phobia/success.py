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

from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate
from types import MappingProxyType

from rules.combat_kit import quick_init
from rules.errors import RulesError
from rules.phobia.dice import (
    MAX_EXACT_TOTAL,
    MAX_OB_DICE,
    SIDES,
    ObDice,
    ObRoll,
    Roller,
    distribution,
    first_roll_distribution,
    p_at_most,
    p_rerolls_at_most,
    roll,
)

__all__ = [
    "MAX_EXACT_CHANCE",
    "Difficulty",
    "Odds",
    "OpposedOdds",
    "OutcomeDistribution",
    "TestOutcome",
    "delayed_difficulty",
    "delayed_odds",
    "delayed_opposed",
    "fumble_risk",
    "modify_difficulty",
    "odds",
    "opposed",
    "opposed_odds",
    "outcome_distribution",
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


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
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


def _check_odds_input(difficulty: object, chance: object) -> tuple[int, int]:
    _check_difficulty(difficulty)
    if _check_int("chance", chance) > MAX_EXACT_CHANCE:
        raise RulesError(
            f"chance {chance} is above {MAX_EXACT_CHANCE}, the limit of the exact odds",
            code="chance_too_large",
            limit=MAX_EXACT_CHANCE,
        )
    return int(difficulty), chance


def odds(difficulty: int, chance: int) -> Odds:
    """Exact odds of success, perfect and fumble, and the effects of the successes, for
    ``Ob<difficulty>T6`` (0-20 dice) against ``chance`` (any integer up to 200)."""
    return _odds(*_check_odds_input(difficulty, chance))


# --- the odds of opposed tests ----------------------------------------------------------
#
# Opposed tests (lines 556-578) compare the keys (rank, effect) of two tests, rank 2 for a
# perfect roll, 0 for a fumble and 1 otherwise (see opposed()). A key follows from the
# total and the first roll's class (perfect pattern, at most one six, two or more sixes),
# so its distribution is read from the tables up to MAX_EXACT_TOTAL. The totals above it,
# the tail, are above every chance allowed: their effects are below chance - 200, their
# rank is 0 with two or more sixes first (a fumble, lines 481-482) and 1 otherwise (a
# failure, or a success above the chance, lines 438-440), and both parts are known exactly
# from the first roll alone. Every probability here has a denominator dividing
# 6**(n + 2 * MAX_EXACT_TOTAL) (see dice.py), so the tables hold integer numerators over
# it, and only the answers become fractions.

_LOWEST = float("-inf")  # below every effect: (rank, _LOWEST) starts a rank's keys


def _over(denominator: int, p: Fraction) -> int:
    """The numerator of ``p`` over ``denominator``, a multiple of its denominator."""
    return p.numerator * (denominator // p.denominator)


@dataclass(frozen=True)
class _Totals:
    """P(total t), P(at most one six first and total t), P(perfect pattern and total t)
    for t = 0..MAX_EXACT_TOTAL, and the tail's mass with at most one six / two or more
    sixes first; numerators over ``denominator``."""

    denominator: int
    every: tuple[int, ...]
    few_sixes: tuple[int, ...]
    pattern: tuple[int, ...]
    tail: tuple[int, int]  # (two or more sixes: rank 0, at most one six: rank 1)


@lru_cache(maxsize=MAX_OB_DICE + 1)
def _totals(n: int) -> _Totals:
    denominator = SIDES ** (n + 2 * MAX_EXACT_TOTAL)
    every = [0] * (MAX_EXACT_TOTAL + 1)
    for total, p in distribution(ObDice(n), MAX_EXACT_TOTAL).items():
        every[total] = _over(denominator, p)
    few_sixes = tuple(_over(denominator, p) for p in _few_sixes(n)[0])
    pattern = [0] * (MAX_EXACT_TOTAL + 1)
    for sixes, others, ways in _pattern_rolls(n):
        mass = ways * denominator // SIDES**n
        if not sixes:
            pattern[others] += mass
            continue
        # The pattern's lone six: two more open-ended dice (lines 12-17).
        for rerolled, p in distribution(ObDice(2), MAX_EXACT_TOTAL - others).items():
            pattern[others + rerolled] += _over(mass, p)
    p_few_sixes = Fraction(5**n + n * 5 ** (n - 1) if n else 1, SIDES**n)
    tail_few_sixes = _over(denominator, p_few_sixes) - sum(few_sixes)
    tail_many_sixes = denominator - sum(every) - tail_few_sixes
    return _Totals(
        denominator, tuple(every), few_sixes, tuple(pattern), (tail_many_sixes, tail_few_sixes)
    )


@dataclass(frozen=True)
class _Keys:
    """One test's keys up to MAX_EXACT_TOTAL, ascending, with their numerators over
    ``denominator`` and running sums (``below[i]`` = the mass of the first i keys), and
    the tail's mass by rank (0, 1)."""

    chance: int
    denominator: int
    keys: tuple[tuple[int, int], ...]
    masses: tuple[int, ...]
    below: tuple[int, ...]
    tail: tuple[int, int]

    def mass_below(self, key: tuple[int, float]) -> int:
        """The mass of the keys (up to MAX_EXACT_TOTAL) lower than ``key``."""
        return self.below[bisect_left(self.keys, key)]

    @property
    def table(self) -> int:
        return self.below[-1]


@lru_cache(maxsize=256)
def _keys(n: int, chance: int) -> _Keys:
    totals = _totals(n)
    ranked = []
    # Rank 0, lowest effect (highest total) first: two or more sixes above the chance.
    for total in range(MAX_EXACT_TOTAL, max(chance, -1), -1):
        ranked.append(((0, chance - total), totals.every[total] - totals.few_sixes[total]))
    # Rank 1: above the chance, at most one six (a failure, or a success above the chance
    # for a perfect pattern); within it, every roll but a perfect pattern.
    for total in range(MAX_EXACT_TOTAL, -1, -1):
        if total > chance:
            mass = totals.few_sixes[total]
        else:
            mass = totals.every[total] - totals.pattern[total]
        ranked.append(((1, chance - total), mass))
    # Rank 2: a perfect pattern within the chance.
    for total in range(min(chance, MAX_EXACT_TOTAL), -1, -1):
        ranked.append(((2, chance - total), totals.pattern[total]))
    kept = [(key, mass) for key, mass in ranked if mass]
    masses = tuple(mass for _, mass in kept)
    return _Keys(
        chance=chance,
        denominator=totals.denominator,
        keys=tuple(key for key, _ in kept),
        masses=masses,
        below=tuple(accumulate(masses, initial=0)),
        tail=totals.tail,
    )


@dataclass(frozen=True)
class OutcomeDistribution:
    """Exact distribution of the key ``(rank, effect)`` that :func:`opposed` compares, for
    ``Ob<difficulty>T6`` against ``chance``: rank 2 perfect, 0 fumble, 1 otherwise (lines
    430-440, 481-498, 573-576), effect = chance - total (line 416).

    ``outcomes`` holds every key of a total up to MAX_EXACT_TOTAL, ascending, nonzero
    probabilities only. ``tail`` is P(total above MAX_EXACT_TOTAL): those effects are below
    chance - 200 and their rank is 0 (``tail_fumble``, two or more sixes first) or 1 (the
    rest). It is tiny (Ob3T6 6e-18, Ob10T6 3e-14, Ob20T6 1e-9) but not 0 for one die or
    more: an open-ended roll has no highest total (line 22)."""

    difficulty: int
    chance: int
    outcomes: Mapping[tuple[int, int], Fraction]
    tail: Fraction
    tail_fumble: Fraction

    @property
    def perfect(self) -> Fraction:
        """P(perfect), as :attr:`Odds.perfect`."""
        return sum((p for (rank, _), p in self.outcomes.items() if rank == 2), Fraction(0))

    @property
    def fumble(self) -> Fraction:
        """P(fumble), as :attr:`Odds.fumble` (the tail included)."""
        table = sum((p for (rank, _), p in self.outcomes.items() if rank == 0), Fraction(0))
        return table + self.tail_fumble


@lru_cache(maxsize=256)
def _outcome_distribution(n: int, chance: int) -> OutcomeDistribution:
    keyed = _keys(n, chance)
    scale = keyed.denominator
    return OutcomeDistribution(
        difficulty=n,
        chance=chance,
        outcomes=MappingProxyType(
            {key: Fraction(mass, scale) for key, mass in zip(keyed.keys, keyed.masses, strict=True)}
        ),
        tail=Fraction(sum(keyed.tail), scale),
        tail_fumble=Fraction(keyed.tail[0], scale),
    )


def outcome_distribution(difficulty: int, chance: int) -> OutcomeDistribution:
    """Exact distribution of the opposed-test key (rank, effect) of ``Ob<difficulty>T6``
    (0-20 dice) against ``chance`` (any integer up to 200); see
    :class:`OutcomeDistribution`. Same bounds and errors as :func:`odds`."""
    return _outcome_distribution(*_check_odds_input(difficulty, chance))


@dataclass(frozen=True)
class OpposedOdds:
    """Exact odds of one exchange of an opposed test (lines 556-578), A's
    ``Ob<a_difficulty>T6`` against ``a_chance`` and B's likewise: ``a_wins``, ``b_wins``,
    and ``tie``, equal keys, after which both roll again (lines 563-564). The three make
    exactly 1.

    ``tie`` also holds ``undecided``: the pairs the tables cannot order because a total
    above MAX_EXACT_TOTAL meets the other side's key of the same rank with an effect that
    low (at most the tail's side's chance - 201), or two tails of the same rank. It is
    below tail_a + tail_b (:attr:`OutcomeDistribution.tail`; 7e-14 for two Ob10T6, 2e-9
    for two Ob20T6) and 0 whenever neither side can reach such effects.

    ``a_wins_eventually`` = a_wins / (a_wins + b_wins): ties roll again until someone wins.
    None when nobody can ever win (two Ob0T6 with equal chances)."""

    a_difficulty: int
    a_chance: int
    b_difficulty: int
    b_chance: int
    a_wins: Fraction
    b_wins: Fraction
    tie: Fraction
    undecided: Fraction
    a_wins_eventually: Fraction | None


def _wins(a: _Keys, b: _Keys) -> int:
    """P(A's key is higher than B's), numerator over a.denominator * b.denominator."""
    wins = sum(mass * b.mass_below(key) for key, mass in zip(a.keys, a.masses, strict=True))
    for rank in (0, 1):
        # B's tail of this rank has effects at most b.chance - 201: A's keys of a higher
        # rank, or of this rank with an effect of at least b.chance - 200, are higher.
        wins += b.tail[rank] * (a.table - a.mass_below((rank, b.chance - MAX_EXACT_TOTAL)))
        # A's tail of this rank beats every key of B of a lower rank.
        wins += a.tail[rank] * b.mass_below((rank, _LOWEST))
    return wins + a.tail[1] * b.tail[0]  # A's tail no fumble, B's tail a fumble


def _undecided(a: _Keys, b: _Keys) -> int:
    """The mass of the pairs whose order a tail leaves open (see :class:`OpposedOdds`)."""
    undecided = 0
    for rank in (0, 1):
        undecided += a.tail[rank] * (
            b.mass_below((rank, a.chance - MAX_EXACT_TOTAL)) - b.mass_below((rank, _LOWEST))
        )
        undecided += b.tail[rank] * (
            a.mass_below((rank, b.chance - MAX_EXACT_TOTAL)) - a.mass_below((rank, _LOWEST))
        )
        undecided += a.tail[rank] * b.tail[rank]
    return undecided


def opposed_odds(a_difficulty: int, a_chance: int, b_difficulty: int, b_chance: int) -> OpposedOdds:
    """Exact odds of an opposed test (lines 556-578) between A, ``Ob<a_difficulty>T6``
    against ``a_chance``, and B likewise; see :class:`OpposedOdds`. Each side has the
    bounds and errors of :func:`odds`. The GM may give the sides different difficulties
    (lines 566-568); perfect and fumble apply to each side (lines 569-576)."""
    a = _keys(*_check_odds_input(a_difficulty, a_chance))
    b = _keys(*_check_odds_input(b_difficulty, b_chance))
    scale = a.denominator * b.denominator
    a_wins, b_wins = _wins(a, b), _wins(b, a)
    return OpposedOdds(
        a_difficulty=int(a_difficulty),
        a_chance=a_chance,
        b_difficulty=int(b_difficulty),
        b_chance=b_chance,
        a_wins=Fraction(a_wins, scale),
        b_wins=Fraction(b_wins, scale),
        tie=Fraction(scale - a_wins - b_wins, scale),
        undecided=Fraction(_undecided(a, b), scale),
        a_wins_eventually=Fraction(a_wins, a_wins + b_wins) if a_wins + b_wins else None,
    )


def delayed_odds(difficulty: int, chance: int, earlier: TestOutcome) -> Fraction:
    """Exact P(a later ``Ob<difficulty>T6`` against ``chance`` overcomes ``earlier``), a
    test made before and remembered (lines 580-609): its key is at least the earlier one,
    as :func:`delayed_opposed` decides (ties go to the later roll, lines 606-607). Same
    bounds and errors as :func:`odds`; the difficulty is the later roll's, voluntary levels
    included (:func:`delayed_difficulty`).

    Exact whenever ``earlier.effect`` is at least chance - 200. Below that, the later
    totals above MAX_EXACT_TOTAL of the earlier roll's rank cannot be ordered against it
    and count as not overcoming: the answer is then low by less than
    :attr:`OutcomeDistribution.tail` of the later roll."""
    later = _keys(*_check_odds_input(difficulty, chance))
    if not isinstance(earlier, TestOutcome):
        raise RulesError(f"the earlier test must be a TestOutcome, got {earlier!r}")
    rank = _rank(earlier)
    at_least = later.table - later.mass_below((rank, earlier.effect))
    # The tail (effects at most chance - 201) of a higher rank overcomes the earlier roll;
    # of the same rank, it cannot when the earlier effect is higher than chance - 201.
    at_least += sum(later.tail[tail_rank] for tail_rank in (0, 1) if tail_rank > rank)
    return Fraction(at_least, later.denominator)


def warm(max_difficulty: int = WARM_DIFFICULTY) -> None:
    """Build the tables :func:`odds` reads for Ob0T6 to ``Ob<max_difficulty>T6`` and every
    chance up to :data:`MAX_EXACT_CHANCE`, so that no odds a process answers pays for them
    (a server calls this once at start). Changes no result, only what is cached; any
    other difficulty builds its tables on its first odds, as without it."""
    for n in range(_check_difficulty(max_difficulty) + 1):
        _few_sixes(n)
        _totals(n)  # the opposed odds' tables
        p_at_most(ObDice(n), MAX_EXACT_TOTAL)
    p_rerolls_at_most(1, MAX_EXACT_TOTAL)  # the lone six of a perfect pattern
