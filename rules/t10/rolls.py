"""T10 skill rolls, chains and duels (t10-ap-utdrag.txt, "Färdighetsslag" to "Notera att";
rulings.md § T10).

A skill roll is 2T10 plus every bonus that applies (line 15-16); a total of 11 or more
succeeds. Each point above 11 is a Degree of Success (DoS = total − 11) and each point
below 10 a Degree of Failure (DoF = 10 − total): a total of 11 succeeds with 0 DoS and a
total of 10 fails with 0 DoF (rulings). Worked figures: 12 + 2 = 14 → 3 DoS (Johan's
pistol), 7 → 3 DoF, 13 → 2 DoS (the interrogation), 8 → 2 DoF, 15 → 4 DoS (the duel).

The degrees carry to the next roll:

* **a chain** (Påföljande slag): each roll adds the previous roll's DoS or subtracts its
  DoF, until the action has the successes the GM asked for;
* **social skills**: the carry from the last roll with the same person modifies the next,
  however long ago it was (kept per pair of people by the apps);
* **a duel**: the two sides take turns, each adding +1 per DoF and −1 per DoS of the
  opponent's previous roll.

A carry never moves a roll by more than ±6 (:data:`MAX_CARRY`, "om inte annat anges").

Every probability here is exact (:class:`fractions.Fraction`). Randomness is injected:
``rng.randint(1, 10)``.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from rules.combat_kit import quick_init
from rules.errors import RulesError
from rules.table_dice import chance_of

__all__ = [
    "DICE",
    "MAX_CARRY",
    "SUCCESS_AT",
    "DuelOdds",
    "Outcome",
    "RollOdds",
    "carry",
    "clamp_carry",
    "degree_odds",
    "duel_carry",
    "duel_odds",
    "outcome",
    "roll_2t10",
    "sum_distribution",
    "roll_odds",
]

DICE = "2T10"
SUCCESS_AT = 11  # "Är resultatet 11 eller mer så har man lyckats"
MAX_CARRY = 6  # "DoS/DoF aldrig kan ge mer än ±6 på ett slag"
MAX_BONUS = 60  # bounds input only: beyond ±19 every roll is certain either way


@cache
def sum_distribution() -> Mapping[int, Fraction]:
    """P(2T10 = s) for s in 2..20: (10 − |s − 11|)/100."""
    return {s: Fraction(10 - abs(s - 11), 100) for s in range(2, 21)}


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Outcome:
    """A rolled skill roll: the dice, the bonus added, the total, and its degrees."""

    dice: tuple[int, int]
    bonus: int
    total: int

    @property
    def success(self) -> bool:
        return self.total >= SUCCESS_AT

    @property
    def dos(self) -> int:
        """Degrees of Success: points above 11 (0 on a failure)."""
        return max(0, self.total - SUCCESS_AT)

    @property
    def dof(self) -> int:
        """Degrees of Failure: points below 10 (0 on a success, and on a total of 10)."""
        return max(0, SUCCESS_AT - 1 - self.total)

    @property
    def degrees(self) -> int:
        """DoS as a positive number, DoF as a negative one: what the roll carries."""
        return self.dos - self.dof


def _bonus(bonus: int) -> int:
    if isinstance(bonus, bool) or not isinstance(bonus, int):
        raise RulesError("a bonus is a whole number")
    if abs(bonus) > MAX_BONUS:
        raise RulesError(f"bonuses add up to at most ±{MAX_BONUS}")
    return bonus


def outcome(dice: tuple[int, int], bonus: int) -> Outcome:
    """The outcome of two T10 ``dice`` with ``bonus`` (every modifier summed)."""
    if len(dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 10 for d in dice):
        raise RulesError(f"2T10 are two dice of 1-10, not {dice!r}")
    bonus = _bonus(bonus)
    return Outcome(tuple(dice), bonus, sum(dice) + bonus)


def roll_2t10(bonus: int, rng) -> Outcome:
    """Roll 2T10 on the server and add ``bonus``; rolled at the table, its prompt gives
    the exact chance (`roll_odds`)."""
    chance_of(rng, lambda: roll_odds(bonus).success)
    return outcome((rng.randint(1, 10), rng.randint(1, 10)), bonus)


@dataclass(frozen=True)
class RollOdds:
    """The exact odds of a roll with one bonus: success, and each degree (positive: DoS,
    negative: DoF; 0 is both "11, no DoS" and "10, no DoF", split in ``zero_success``)."""

    bonus: int
    success: Fraction
    degrees: Mapping[int, Fraction]  # degrees -> P, every reachable one
    zero_success: Fraction  # P(total == 11): success with 0 DoS

    @property
    def failure(self) -> Fraction:
        return 1 - self.success

    def at_least(self, dos: int) -> Fraction:
        """P(a success with ``dos`` or more DoS)."""
        if dos <= 0:
            return self.success
        return sum((p for d, p in self.degrees.items() if d >= dos), Fraction(0))

    def mean_degrees(self) -> Fraction:
        return sum((d * p for d, p in self.degrees.items()), Fraction(0))


@cache
def roll_odds(bonus: int) -> RollOdds:
    """The exact odds of 2T10 + ``bonus``."""
    bonus = _bonus(bonus)
    degrees: dict[int, Fraction] = {}
    success = zero_success = Fraction(0)
    for s, p in sum_distribution().items():
        result = Outcome((1, 1), bonus, s + bonus)  # the dice do not matter for degrees
        degrees[result.degrees] = degrees.get(result.degrees, Fraction(0)) + p
        if result.success:
            success += p
            if result.total == SUCCESS_AT:
                zero_success += p
    return RollOdds(bonus, success, dict(sorted(degrees.items())), zero_success)


roll_odds.__test__ = False  # not a test for pytest
test_odds = roll_odds  # the name the helper's first draft used


def degree_odds(bonus: int) -> Mapping[int, Fraction]:
    """P(each degree) of 2T10 + ``bonus``: DoS positive, DoF negative."""
    return roll_odds(bonus).degrees


def clamp_carry(value: int) -> int:
    """A carry as it modifies a roll: never beyond ±6."""
    return max(-MAX_CARRY, min(MAX_CARRY, value))


def carry(previous: Outcome | None) -> int:
    """What a chain's or a social scene's previous roll adds to the next: its DoS, or
    minus its DoF, within ±6 (lines 22-26, 34-37, 49)."""
    return 0 if previous is None else clamp_carry(previous.degrees)


def duel_carry(opponent_previous: Outcome | None) -> int:
    """What the opponent's previous roll in a duel adds: +1 per DoF, −1 per DoS, within
    ±6 (lines 43-47, 49)."""
    return 0 if opponent_previous is None else clamp_carry(-opponent_previous.degrees)


@dataclass(frozen=True)
class DuelOdds:
    """The exact chance that the side rolling first wins a duel, and the other's."""

    first_wins: Fraction

    @property
    def second_wins(self) -> Fraction:
        return 1 - self.first_wins


def _solve(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    """Solve ``matrix · x = rhs`` exactly (Gauss-Jordan on Fractions)."""
    n = len(rhs)
    rows = [row[:] + [value] for row, value in zip(matrix, rhs, strict=True)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if rows[r][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        rows[col] = [value / lead for value in rows[col]]
        for r in range(n):
            if r != col and rows[r][col] != 0:
                factor = rows[r][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[r][n] for r in range(n)]


@cache
def duel_odds(first_bonus: int, second_bonus: int, goal: int) -> DuelOdds:
    """P(the side that rolls first wins the duel): the sides take turns, each roll
    modified by the opponent's previous one (:func:`duel_carry`), and the first to
    ``goal`` successes wins (Johan and Henrik: 3, lines 51-58). ``first_bonus`` and
    ``second_bonus`` are each side's own bonuses (skill, fatigue...).

    Successes only grow, so the counts (first's, second's) are solved from the goal
    downwards: at each count the states differ only in whose turn it is and the carry
    (−6..+6), 26 linear equations solved exactly. A duel both sides can never win (every
    roll certain to fail) raises RulesError."""
    first_bonus, second_bonus = _bonus(first_bonus), _bonus(second_bonus)
    if not isinstance(goal, int) or isinstance(goal, bool) or not 1 <= goal <= 10:
        raise RulesError("a duel needs 1 to 10 successes")
    if roll_odds(first_bonus + MAX_CARRY).success == 0 and (
        roll_odds(second_bonus + MAX_CARRY).success == 0
    ):
        raise RulesError("neither side can ever succeed: the duel cannot be won")
    carries = range(-MAX_CARRY, MAX_CARRY + 1)
    # win[(a, b)][(turn, c)]: P(first wins) when first has a and second b successes, it is
    # `turn`'s roll (0: first, 1: second) and the roll gets carry c.
    win: dict[tuple[int, int], dict[tuple[int, int], Fraction]] = {}
    index = {(turn, c): i for i, (turn, c) in enumerate((t, c) for t in (0, 1) for c in carries)}
    for a in range(goal - 1, -1, -1):
        for b in range(goal - 1, -1, -1):
            size = len(index)
            matrix = [[Fraction(0)] * size for _ in range(size)]
            rhs = [Fraction(0)] * size
            for (turn, c), i in index.items():
                matrix[i][i] += 1
                bonus = (first_bonus if turn == 0 else second_bonus) + c
                for degrees, p in roll_odds(bonus).degrees.items():
                    success_ps = _split_zero(bonus, degrees, p)
                    for succeeded, q in success_ps:
                        if not q:
                            continue
                        nxt = (1 - turn, clamp_carry(-degrees))
                        na, nb = (a + succeeded, b) if turn == 0 else (a, b + succeeded)
                        if na >= goal:
                            rhs[i] += q
                        elif nb >= goal:
                            pass  # the second side has won
                        elif (na, nb) == (a, b):
                            matrix[i][index[nxt]] -= q
                        else:
                            rhs[i] += q * win[(na, nb)][nxt]
            solution = _solve(matrix, rhs)
            win[(a, b)] = {state: solution[i] for state, i in index.items()}
    return DuelOdds(win[(0, 0)][(0, 0)])


def _split_zero(bonus: int, degrees: int, p: Fraction) -> tuple[tuple[int, Fraction], ...]:
    """A degree's probability as (success 1 or 0, P): 0 degrees is a total of 11 (a
    success) or 10 (a failure)."""
    if degrees > 0:
        return ((1, p),)
    if degrees < 0:
        return ((0, p),)
    zero_success = roll_odds(bonus).zero_success
    return ((1, zero_success), (0, p - zero_success))
