"""Aoristos success tests (p. 5).

Test base TB = the sum of the tested properties, plus any constant the rule names (the
psychosis test is VIL + 20, p. 15); a test of nothing has TB 0 (the weekly healing test,
p. 14). Roll 1B1T (+1T per degree of nervchock, then any F/T from circumstances). Total
("helt slag") = TB + result. Success when the total is at least the threshold ST;
margin = total - ST. The base threshold GST is 4 + 2 per property in TB (a constant is
no property: it leaves the GST alone). Opposed tests (p. 5): each side's TB is the sum
of the relevant TBs of everyone on it, one person represents each side and only the
representatives' F and T apply; the higher total wins, equal totals are a draw with no
effect.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from rules.aoristos.dice import Hand, Purpose, Roll, Roller, distribution, p_at_least, roll
from rules.errors import RulesError

__all__ = [
    "OpposedOdds",
    "OpposedOutcome",
    "OpposedSide",
    "TestOutcome",
    "base_threshold",
    "opposed",
    "opposed_odds",
    "opposed_side",
    "opposed_test",
    "p_success",
    "resolve_opposed",
    "resolve_test",
    "success_test",
    "test_hand",
]


def _check_int(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesError(f"{name} must be an integer, got {value!r}")
    return value


def base_threshold(property_count: int) -> int:
    """GST: 4, +2 for each property in the test base (p. 5)."""
    if _check_int("property_count", property_count) < 0:
        raise RulesError(f"property_count cannot be negative, got {property_count}")
    return 4 + 2 * property_count


@lru_cache(maxsize=64, typed=True)  # a fight asks for the same few hands again and again
def test_hand(nerve_shock: int = 0, free: int = 0, forced: int = 0) -> Hand:  # noqa: PT028
    """The success-test hand: 1B1T, +1T per degree of nervchock, plus circumstances.

    All F and T go into one normalisation, so they cancel before the 6-dice cap. (A hand
    is immutable: one value serves every test; `typed`, so True is refused, not taken
    for a 1 asked before.)
    """
    if (
        type(nerve_shock) is type(free) is type(forced) is int
        and nerve_shock >= 0
        and not (free or forced)
    ):
        return plain_test_hand(nerve_shock)  # the usual test: the checks below in one
    for name, value in (
        ("nerve_shock", nerve_shock),
        ("free", free),
        ("forced", forced),
    ):
        if _check_int(name, value) < 0:
            raise RulesError(f"{name} cannot be negative, got {value}")
    return Hand.of(1, free=free, forced=1 + nerve_shock + forced)


test_hand.__test__ = False  # not a pytest test, despite the name


@lru_cache(maxsize=64)
def plain_test_hand(nerve_shock: int) -> Hand:
    """`test_hand(nerve_shock)` with no circumstances, made once per degree (every VIL
    test against a wound's pain asks it)."""
    return Hand.of(1, forced=1 + nerve_shock)


@dataclass(frozen=True)
class PlannedTest:
    """A success test before it is rolled (p. 5): TB is the sum of the chosen properties'
    levels plus the constant (if any), GST 4 + 2 per property, ST the GST unless one is
    given, and the hand 1B1T with the extra F and T."""

    __test__ = False  # not a pytest test class, despite the name

    test_base: int
    gst: int
    threshold: int
    hand: Hand


def plan_test(
    levels: dict[str, int],
    keys: list[str],
    *,
    free: int = 0,
    forced: int = 0,
    threshold: int | None = None,
    constant: int = 0,
) -> PlannedTest:
    """The success test of properties `keys` at `levels` (p. 5), plus `constant` in the TB.

    No keys is a test of nothing: TB 0 (+ the constant), GST 4, as the weekly healing test
    (p. 14). The constant adds to the TB but is no property, so it leaves the GST as it
    is: the psychosis test VIL + 20 (p. 15) has GST 6.
    """
    gst = base_threshold(len(keys))
    return PlannedTest(
        test_base=sum(levels[key] for key in keys) + _check_int("constant", constant),
        gst=gst,
        threshold=gst if threshold is None else _check_int("threshold", threshold),
        hand=test_hand(free=free, forced=forced),
    )


@dataclass(frozen=True)
class TestOutcome:
    """A resolved success test: total = TB + roll result; success when total >= ST."""

    __test__ = False  # not a pytest test class, despite the name

    test_base: int
    threshold: int
    roll: Roll
    total: int
    success: bool
    margin: int


def resolve_test(test_base: int, threshold: int, roll: Roll) -> TestOutcome:
    """Resolve an already rolled success test."""
    _check_int("test_base", test_base)
    _check_int("threshold", threshold)
    total = test_base + roll.result
    return TestOutcome(test_base, threshold, roll, total, total >= threshold, total - threshold)


def success_test(
    test_base: int, threshold: int, hand: Hand | None = None, rng: Roller | None = None
) -> TestOutcome:
    """Roll and resolve a success test (hand defaults to :func:`test_hand`: 1B1T)."""
    if hand is None:
        hand = test_hand()
    return resolve_test(test_base, threshold, roll(hand, rng, Purpose.TEST))


def p_success(hand: Hand, test_base: int, threshold: int) -> Fraction:
    """Exact probability that TB + result >= ST."""
    _check_int("test_base", test_base)
    _check_int("threshold", threshold)
    return p_at_least(hand, threshold - test_base, Purpose.TEST)


def opposed(total_a: int, total_b: int) -> int:
    """Opposed test: 1 if A's total is higher, -1 if B's, 0 for a draw (no effect)."""
    _check_int("total_a", total_a)
    _check_int("total_b", total_b)
    return (total_a > total_b) - (total_a < total_b)


@dataclass(frozen=True)
class OpposedSide:
    """One side of an opposed test (p. 5): its TB, the sum of the relevant TBs of everyone
    on the side, and the hand its representative rolls, 1B1T with the representative's F
    and T alone ("Endast representanternas eventuella F och T gäller"). ``shares``: each
    participant's own TB, in order (what the TB was summed from, beside a constant)."""

    test_base: int
    hand: Hand
    shares: tuple[int, ...] = ()


def opposed_side(
    participants: Sequence[Mapping[str, int]],
    keys: Sequence[str],
    *,
    free: int = 0,
    forced: int = 0,
    constant: int = 0,
) -> OpposedSide:
    """The side of `participants` (each one's levels) testing properties `keys` (p. 5):
    "Då lägger man ihop alla relevanta testbaser på vardera sidan", so the side's TB is
    the sum of every participant's TB of `keys`, plus `constant` (what someone without
    levels brings: a TB the GM gives). `free` and `forced` are the representative's
    extra dice; nobody else's count."""
    for levels in participants:
        if missing := [key for key in keys if key not in levels]:
            raise RulesError(f"no level of {', '.join(missing)} to test")
    shares = tuple(sum(levels[key] for key in keys) for levels in participants)
    return OpposedSide(
        sum(shares) + _check_int("constant", constant), test_hand(free=free, forced=forced),
        shares,
    )


@dataclass(frozen=True)
class OpposedOdds:
    """The exact chance of each outcome of an opposed test: side A wins, a draw, side B
    wins (they sum to 1)."""

    a_wins: Fraction
    draw: Fraction
    b_wins: Fraction


def opposed_odds(a: OpposedSide, b: OpposedSide) -> OpposedOdds:
    """Exact odds of the opposed test of `a` against `b`, over every result of both hands
    (:func:`rules.aoristos.dice.distribution`, the dice that count as :func:`roll` counts
    them for a test), each pair of totals decided by :func:`opposed` as the roll is."""
    tally = {1: Fraction(0), 0: Fraction(0), -1: Fraction(0)}
    theirs = distribution(b.hand, Purpose.TEST)
    for result_a, p_a in distribution(a.hand, Purpose.TEST).items():
        for result_b, p_b in theirs.items():
            tally[opposed(a.test_base + result_a, b.test_base + result_b)] += p_a * p_b
    return OpposedOdds(tally[1], tally[0], tally[-1])


@dataclass(frozen=True)
class OpposedOutcome:
    """A resolved opposed test: each side's roll and total ("helt slag" = TB + result),
    and the winner as :func:`opposed` gives it (1: A, -1: B, 0: a draw, no effect)."""

    a: Roll
    b: Roll
    total_a: int
    total_b: int
    winner: int


def resolve_opposed(a: OpposedSide, b: OpposedSide, roll_a: Roll, roll_b: Roll) -> OpposedOutcome:
    """Resolve an opposed test already rolled: the higher total wins (p. 5)."""
    total_a = _check_int("test_base", a.test_base) + roll_a.result
    total_b = _check_int("test_base", b.test_base) + roll_b.result
    return OpposedOutcome(roll_a, roll_b, total_a, total_b, opposed(total_a, total_b))


def opposed_test(a: OpposedSide, b: OpposedSide, rng: Roller | None = None) -> OpposedOutcome:
    """Roll an opposed test: side A's representative's hand, then side B's, each once: a
    draw is a draw, not rolled again (p. 5: "Lika slag räknas som oavgjort")."""
    roll_a = roll(a.hand, rng, Purpose.TEST)
    roll_b = roll(b.hand, rng, Purpose.TEST)
    return resolve_opposed(a, b, roll_a, roll_b)
