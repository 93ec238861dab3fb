"""Aoristos dice hands (p. 4): parse, normalise, roll, and exact probabilities.

A hand is ``nB`` base dice plus either ``mF`` free or ``mT`` forced dice, plus an
optional integer modifier: ``2B2T+1``, ``1B1F``, ``3B-2``. Only six-sided dice are used.

* F and T cancel one for one (a hand never holds both).
* There is always at least 1B, and never more than 6 dice: B above 6 is capped at 6 and
  F or T beyond ``6 - B`` are dropped. Cancelling happens before the cap, so the order
  in which modifiers are collected does not matter as long as they go into one
  :meth:`Hand.of` call.
* Which dice count (``B`` of them): a plain hand counts all its dice; a forced hand
  always counts the lowest; a free hand lets the roller choose, and the server makes the
  best choice for the roll's :class:`Purpose` (highest for tests and attacks, lowest for
  stress and psyktrauma gains).
* Result = sum of the counted dice + modifier.
"""

import random
import re
import secrets
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial, prod
from typing import Protocol

from rules.combat_kit import quick_init, slotted
from rules.errors import RulesError

__all__ = [
    "MAX_DICE",
    "DiceError",
    "Hand",
    "Purpose",
    "Roll",
    "choose_counted",
    "distribution",
    "p_at_least",
    "parse_hand",
    "roll",
]

MAX_DICE = 6
SIDES = 6

MAX_TEXT_LENGTH = 40
MAX_COUNT_DIGITS = 2
MAX_MODIFIER = 999


class DiceError(RulesError):
    """A dice hand, dice notation or rolled dice that the rules do not allow."""


class Purpose(StrEnum):
    """Why a hand is rolled; decides which dice of a free hand count."""

    TEST = "test"  # success tests and attacks: the highest dice of a free hand
    STRESS = "stress"  # KP stress and psyktrauma gains: the lowest dice of a free hand


class Roller(Protocol):
    """Anything with ``randint(a, b)`` like :class:`random.Random`."""

    def randint(self, a: int, b: int) -> int: ...


def _check_int(name: str, value: object) -> int:
    # bool is an int subclass, but True dice are a bug, not a count.
    if not isinstance(value, int) or isinstance(value, bool):
        raise DiceError(f"{name} must be an integer, got {value!r}")
    return value


@slotted  # read at every roll (combat_kit.slotted)
@dataclass(frozen=True, slots=True)
class Hand:
    """A normalised dice hand. Build it with :meth:`Hand.of` or :func:`parse_hand`.

    Direct construction only accepts hands that are already normalised (1 <= base <= 6,
    not both free and forced, at most 6 dice), so an invalid hand never exists.
    """

    base: int
    free: int = 0
    forced: int = 0
    modifier: int = 0

    def __post_init__(self) -> None:
        for name in ("base", "free", "forced", "modifier"):
            _check_int(name, getattr(self, name))
        if (
            not 1 <= self.base <= MAX_DICE
            or self.free < 0
            or self.forced < 0
            or (self.free and self.forced)
            or self.base + self.free + self.forced > MAX_DICE
        ):
            raise DiceError(
                f"hand B={self.base} F={self.free} T={self.forced} is not normalised; "
                "build it with Hand.of()"
            )

    @classmethod
    def of(cls, base: int, free: int = 0, forced: int = 0, modifier: int = 0) -> "Hand":
        """Build a normalised hand from raw counts (p. 4).

        Base 0 or less becomes 1B ("man har alltid minst 1B"); negative F or T counts
        are errors. F and T cancel first, then B is capped at 6 and F/T beyond 6 - B
        are dropped.
        """
        if (
            type(base) is int
            and type(free) is int
            and type(forced) is int
            and type(modifier) is int
            and free >= 0
            and forced >= 0
            and cls is Hand
        ):  # plain counts, as the engine's own hands are: the checks below in one test
            return _normalised(base, free, forced, modifier)
        for name, value in (("base", base), ("free", free), ("forced", forced)):
            _check_int(name, value)
        _check_int("modifier", modifier)
        if free < 0 or forced < 0:
            raise DiceError(f"dice counts cannot be negative (F={free}, T={forced})")
        if cls is Hand:
            return _normalised(base, free, forced, modifier)
        return _normalise(cls, base, free, forced, modifier)

    def add(self, free: int = 0, forced: int = 0, modifier: int = 0, base: int = 0) -> "Hand":
        """Return this hand with more F, T, modifier (or B), normalised again.

        Used for "+1T per degree of nervchock" and the like. F and T amounts must not be
        negative (removing a T is adding an F). Note that a hand already at 6 dice has
        lost its dropped F/T: collect all modifiers into one :meth:`Hand.of` call when
        you have them.
        """
        _check_int("free", free)
        _check_int("forced", forced)
        if free < 0 or forced < 0:
            raise DiceError(f"cannot add a negative number of dice (F={free}, T={forced})")
        return Hand.of(
            _check_int("base", base) + self.base,
            self.free + free,
            self.forced + forced,
            self.modifier + _check_int("modifier", modifier),
        )

    @property
    def dice_count(self) -> int:
        """Number of physical dice rolled."""
        return self.base + self.free + self.forced

    @property
    def min_result(self) -> int:
        return self.base + self.modifier

    @property
    def max_result(self) -> int:
        return SIDES * self.base + self.modifier

    def __str__(self) -> str:
        return _hand_text(self.base, self.free, self.forced, self.modifier)


@lru_cache(maxsize=512)
def _hand_text(base: int, free: int, forced: int, modifier: int) -> str:
    """A hand's text, ``2B2T+1``: written once per hand (every attack's event holds the
    text of its hands, and formatting it cost more than the roll)."""
    text = f"{base}B"
    if free:
        text += f"{free}F"
    if forced:
        text += f"{forced}T"
    if modifier:
        text += f"{modifier:+d}"
    return text


def _normalise(cls, base: int, free: int, forced: int, modifier: int) -> Hand:
    base = min(max(base, 1), MAX_DICE)
    cancelled = min(free, forced)
    free, forced = free - cancelled, forced - cancelled
    room = MAX_DICE - base
    return cls(base, min(free, room), min(forced, room), modifier)


@lru_cache(maxsize=512)
def _normalised(base: int, free: int, forced: int, modifier: int) -> Hand:
    """The normalised hand of checked counts, made once: a fight rolls the same few hands
    thousands of times (a hand is immutable, so one value serves every roll)."""
    return _normalise(Hand, base, free, forced, modifier)


_HAND_RE = re.compile(
    r"([0-9]+)B"
    r"(?:([0-9]+)([FT]))?"
    r"(?:([0-9]+)([FT]))?"
    r"(?:\s*([+-])\s*([0-9]+))?",
    re.IGNORECASE,
)


def parse_hand(text: str) -> Hand:
    """Parse dice notation like ``2B2T+1``, ``1b1f``, ``3B - 2`` into a normalised hand.

    Grammar: ``<n>B`` then optionally ``<m>F`` and/or ``<m>T`` (either order; both are
    allowed and cancel), then an optional ``+k`` or ``-k`` (spaces allowed around the
    sign). Case-insensitive, surrounding whitespace ignored. Bounds: at most
    40 characters, counts of at most 2 digits, ``|k| <= 999``.
    """
    if not isinstance(text, str):
        raise DiceError(f"dice hand must be text, got {type(text).__name__}", code="not_text")
    if len(text) > MAX_TEXT_LENGTH:
        raise DiceError(
            f"dice hand is too long ({len(text)} characters; at most {MAX_TEXT_LENGTH})",
            code="too_long",
            limit=MAX_TEXT_LENGTH,
        )
    match = _HAND_RE.fullmatch(text.strip())
    if match is None:
        raise DiceError(
            f"unrecognised dice hand {text!r}; expected e.g. 2B2T+1", code="unrecognised", text=text
        )
    base, count1, kind1, count2, kind2, sign, amount = match.groups()
    if kind1 and kind2 and kind1.upper() == kind2.upper():
        raise DiceError(
            f"unrecognised dice hand {text!r}: {kind1.upper()} given twice; expected e.g. 2B2T+1",
            code="given_twice",
            text=text,
            kind=kind1.upper(),
        )
    for count in (base, count1, count2):
        if count is not None and len(count) > MAX_COUNT_DIGITS:
            raise DiceError(
                f"too many dice in {text!r}: counts have at most {MAX_COUNT_DIGITS} digits",
                code="too_many_dice",
                text=text,
            )
    modifier = 0
    if amount is not None:
        modifier = int(amount)
        if modifier > MAX_MODIFIER:
            raise DiceError(
                f"modifier in {text!r} is too large (at most ±{MAX_MODIFIER})",
                code="modifier_too_large",
                text=text,
                limit=MAX_MODIFIER,
            )
        if sign == "-":
            modifier = -modifier
    extra = {"F": 0, "T": 0}
    for count, kind in ((count1, kind1), (count2, kind2)):
        if kind:
            extra[kind.upper()] = int(count)
    return Hand.of(int(base), extra["F"], extra["T"], modifier)


@quick_init  # every test and attack rolls one: a simulated fight makes dozens
@dataclass(frozen=True)
class Roll:
    """One roll of a hand.

    ``dice`` are all physical dice in rolled order; ``counted`` are the dice that make
    the result, also in rolled order (a subsequence of ``dice``; among equal values the
    earlier die is taken). ``result`` = sum(counted) + modifier.
    """

    hand: Hand
    dice: tuple[int, ...]
    counted: tuple[int, ...]
    result: int


def _purpose(purpose: object) -> Purpose:
    if type(purpose) is Purpose:
        return purpose
    try:
        return Purpose(purpose)
    except ValueError:
        raise DiceError(f"unknown roll purpose {purpose!r}; expected 'test' or 'stress'") from None


def _counts_highest(hand: Hand, purpose: Purpose) -> bool:
    """True when the highest B dice count; only a free hand rolled for a test does."""
    return bool(hand.free) and purpose is Purpose.TEST


def choose_counted(
    hand: Hand, dice: tuple[int, ...], purpose: Purpose = Purpose.TEST
) -> tuple[int, ...]:
    """Pick the dice that count for ``hand`` rolled for ``purpose`` (p. 4).

    A plain hand counts every die; a forced hand the lowest B; a free hand the highest B
    for tests and attacks, the lowest B for stress and psyktrauma gains. The counted
    dice are returned in rolled order.
    """
    purpose = _purpose(purpose)
    dice = tuple(dice)
    if len(dice) != hand.dice_count:
        raise DiceError(f"hand {hand} rolls {hand.dice_count} dice, got {len(dice)}")
    _check_dice(dice)
    return _counted(hand, dice, _counts_highest(hand, purpose))


def _check_dice(dice: tuple[int, ...]) -> None:
    for die in dice:
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= SIDES:
            raise DiceError(f"a die shows 1 to {SIDES}, got {die!r}")


def _counted(hand: Hand, dice: tuple[int, ...], highest: bool) -> tuple[int, ...]:
    """`choose_counted` of checked dice, as many as the hand rolls."""
    if len(dice) == hand.base:
        return dice
    if hand.base == 1:  # most tests: the one die that counts
        return (max(dice) if highest else min(dice),)
    # The highest (or lowest) dice, the earlier of equal ones first: a stable sort by
    # face keeps equal faces in rolled order, reversed or not (the sort stays stable).
    order = sorted(range(len(dice)), key=dice.__getitem__, reverse=highest)
    return tuple([dice[i] for i in sorted(order[: hand.base])])


def roll(hand: Hand, rng: Roller | None = None, purpose: Purpose = Purpose.TEST) -> Roll:
    """Roll ``hand`` with ``rng`` (default: ``secrets.SystemRandom()``)."""
    if rng is None:
        rng = secrets.SystemRandom()
    if type(purpose) is not Purpose:  # `_purpose`, called only when there is work for it
        purpose = _purpose(purpose)
    base, free = hand.base, hand.free
    count = base + free + hand.forced
    if type(rng) is random.Random:
        dice = fair_dice(rng, count)  # a die of 1 to 6 by construction: nothing to check
    else:
        dice = tuple([rng.randint(1, SIDES) for _ in range(count)])
        _check_dice(dice)
    # `_counts_highest` and `_counted`'s first case inline: every die of a simulated
    # fight comes through here, and most hands are plain or roll one die more.
    if count == base:
        counted = dice
    else:
        counted = _counted(hand, dice, bool(free) and purpose is Purpose.TEST)
    return Roll(hand, dice, counted, sum(counted) + hand.modifier)


def fair_dice(rng: random.Random, count: int) -> tuple[int, ...]:
    """`count` dice from a `random.Random`: exactly what ``rng.randint(1, 6)`` gives each
    (CPython draws 3 random bits and draws again while they make 6 or 7), without its
    three Python calls per die; a simulated fight rolls a hundred dice
    (tests/rules/test_dice.py checks the two against each other)."""
    bits = rng.getrandbits
    dice = []
    for _ in range(count):
        r = bits(3)
        while r >= SIDES:
            r = bits(3)
        dice.append(r + 1)
    return tuple(dice)


@lru_cache(maxsize=64)
def _dice_sum_distribution(
    base: int, dice_count: int, highest: bool
) -> tuple[tuple[int, Fraction], ...]:
    """Distribution of the counted dice's sum (no modifier), as an immutable tuple."""
    # Enumerate sorted multisets of dice (at most 462 for 6 dice) with their multinomial
    # weights instead of all 6**n ordered outcomes.
    weights: Counter[int] = Counter()
    for faces in combinations_with_replacement(range(1, SIDES + 1), dice_count):
        ways = factorial(dice_count) // prod(factorial(n) for n in Counter(faces).values())
        counted = faces[-base:] if highest else faces[:base]
        weights[sum(counted)] += ways
    total = SIDES**dice_count
    return tuple((value, Fraction(weights[value], total)) for value in sorted(weights))


def distribution(hand: Hand, purpose: Purpose = Purpose.TEST) -> dict[int, Fraction]:
    """Exact distribution of the result: ``{result: probability}``.

    Keys ascending, only nonzero probabilities.

    Returns a fresh dict each call (the cache behind it cannot be changed by callers).
    """
    highest = _counts_highest(hand, _purpose(purpose))
    sums = _dice_sum_distribution(hand.base, hand.dice_count, highest)
    return {total + hand.modifier: p for total, p in sums}


def p_at_least(hand: Hand, target: int, purpose: Purpose = Purpose.TEST) -> Fraction:
    """Exact probability that the result of ``hand`` is at least ``target``."""
    _check_int("target", target)
    return sum(
        (p for value, p in distribution(hand, purpose).items() if value >= target),
        Fraction(0),
    )
