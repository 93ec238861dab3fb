"""Phobia dice (phobia-utdrag.txt): open-ended ``ObnT6`` rolls, the plain dice the text
names, parsing, rolling and exact probabilities.

Open-ended dice (lines 3-26): ``ObnT6`` rolls n six-sided dice; every die that shows 6 is
removed and replaced by two new dice, which are open-ended too, until no new die shows 6.
The total is the sum of the dice that were not replaced, so a 6 itself adds nothing: the
mean of Ob1T6 is E = (1+2+3+4+5)/6 + (1/6)·2E, E = 15/4 = 3.75, as line 26 says. The
dice of the first roll are kept apart from the rerolls ("Ob-omslag"), because the perfect
and fumble rules read the first roll only (lines 430-431, 481-482).

Plain dice (the fixed forms the text uses): ``1T10`` (lines 246, 833, 946), ``2T6``
(line 231), ``1T6-1`` (line 935) and ``(1T6/2)-1`` (lines 920, 924); a halved sum rounds
down (rulings: "Rounding is always down unless a ruling says otherwise").

A bound on work: a roll never rolls more than :data:`MAX_ROLLED_DICE` dice. A 6 is only
replaced when both of its new dice fit under the cap; once they do not, the remaining
sixes stay as they are, count 6 each, and the roll is marked ``capped``. Reaching the cap
needs (1000 - n)/2 sixes in one roll: about 1.2e-124 for Ob20T6, less for fewer dice, so
no table will ever see it; it only keeps a broken random source from looping forever.

Exact probabilities: every die that counts adds at least 1, so the chance of a total t is
a finite sum. A single open-ended die has P(t) = [1 <= t <= 5]/6 + (1/6)·sum P(a)P(t - a)
(a six is two more dice); n dice are the n-fold convolution. Totals above a value do not
matter for "at most", so the tables stop there (exact up to :data:`MAX_EXACT_TOTAL`).
"""

import re
import secrets
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from operator import mul
from typing import Protocol, overload

from rules.errors import RulesError

__all__ = [
    "MAX_EXACT_TOTAL",
    "MAX_OB_DICE",
    "MAX_ROLLED_DICE",
    "DiceError",
    "ObDice",
    "ObRoll",
    "PlainDice",
    "PlainRoll",
    "distribution",
    "first_roll_distribution",
    "p_at_most",
    "p_rerolls_at_most",
    "parse_dice",
    "plain_distribution",
    "roll",
]

SIDES = 6
MAX_OB_DICE = 20
MAX_PLAIN_DICE = 20
PLAIN_SIDES = (6, 10)
MAX_MODIFIER = 99
MAX_TEXT_LENGTH = 20
MAX_ROLLED_DICE = 1000
MAX_EXACT_TOTAL = 200


class DiceError(RulesError):
    """Dice notation, a dice count or rolled dice that the rules do not allow."""


class Roller(Protocol):
    """Anything with ``randint(a, b)`` like :class:`random.Random`."""

    def randint(self, a: int, b: int) -> int: ...


def _check_int(name: str, value: object) -> int:
    # bool is an int subclass, but True dice are a bug, not a count.
    if not isinstance(value, int) or isinstance(value, bool):
        raise DiceError(f"{name} must be an integer, got {value!r}", code="not_integer")
    return value


def _check_ob_count(count: object) -> int:
    if not 0 <= _check_int("count", count) <= MAX_OB_DICE:
        raise DiceError(
            f"an Ob roll has 0 to {MAX_OB_DICE} dice, got {count}",
            code="too_many_dice",
            limit=MAX_OB_DICE,
        )
    return count


@dataclass(frozen=True)
class ObDice:
    """An open-ended roll of ``count`` six-sided dice, ``ObnT6`` (0 <= n <= 20).

    The text's difficulties start at Ob1T6 (line 55); Ob0T6 is where easier-making
    modifiers stop (no dice, total 0)."""

    count: int

    def __post_init__(self) -> None:
        _check_ob_count(self.count)

    def __str__(self) -> str:
        return f"Ob{self.count}T6"


@dataclass(frozen=True)
class PlainDice:
    """A plain roll: ``count`` dice with ``sides`` sides summed, halved (rounded down)
    when ``halved``, plus ``modifier``: ``1T10``, ``2T6``, ``1T6-1``, ``(1T6/2)-1``."""

    count: int
    sides: int
    halved: bool = False
    modifier: int = 0

    def __post_init__(self) -> None:
        if not 1 <= _check_int("count", self.count) <= MAX_PLAIN_DICE:
            raise DiceError(
                f"a plain roll has 1 to {MAX_PLAIN_DICE} dice, got {self.count}",
                code="too_many_dice",
                limit=MAX_PLAIN_DICE,
            )
        if _check_int("sides", self.sides) not in PLAIN_SIDES:
            raise DiceError(f"dice have 6 or 10 sides, got {self.sides}", code="sides")
        if not isinstance(self.halved, bool):
            raise DiceError(f"halved must be True or False, got {self.halved!r}")
        if abs(_check_int("modifier", self.modifier)) > MAX_MODIFIER:
            raise DiceError(
                f"modifier {self.modifier} is too large (at most ±{MAX_MODIFIER})",
                code="modifier_too_large",
                limit=MAX_MODIFIER,
            )

    def result_of(self, dice_sum: int) -> int:
        return (dice_sum // 2 if self.halved else dice_sum) + self.modifier

    @property
    def min_result(self) -> int:
        return self.result_of(self.count)

    @property
    def max_result(self) -> int:
        return self.result_of(self.count * self.sides)

    def __str__(self) -> str:
        text = f"{self.count}T{self.sides}"
        if self.halved:
            text = f"({text}/2)"
        if self.modifier:
            text += f"{self.modifier:+d}"
        return text


_OB_RE = re.compile(r"ob([0-9]*)t6", re.IGNORECASE)
_PLAIN_RE = re.compile(
    r"(?:([0-9]*)t(6|10)|\(\s*([0-9]*)t(6|10)\s*/\s*2\s*\))"
    r"(?:\s*([-+\u2013\u2212])\s*([0-9]+))?",
    re.IGNORECASE,
)


def parse_dice(text: str) -> ObDice | PlainDice:
    """Parse dice notation: ``Ob3T6`` (open-ended) or one of the plain forms ``1T10``,
    ``2T6``, ``1T6-1``, ``(1T6/2)-1``.

    Case-insensitive; surrounding whitespace is ignored, and so are spaces around a
    modifier's sign and inside the parentheses. A missing count means one die (the text
    says "ObT6" for one open-ended die, line 812). The text's en dash (``–``) and the minus
    sign (``−``) are minus signs. Bounds: at most 20 characters, Ob0T6 to Ob20T6, 1 to 20
    plain dice of 6 or 10 sides, a modifier of at most ±99.
    """
    if not isinstance(text, str):
        raise DiceError(f"dice must be text, got {type(text).__name__}", code="not_text")
    if len(text) > MAX_TEXT_LENGTH:
        raise DiceError(
            f"dice text is too long ({len(text)} characters; at most {MAX_TEXT_LENGTH})",
            code="too_long",
            limit=MAX_TEXT_LENGTH,
        )
    stripped = text.strip()
    if match := _OB_RE.fullmatch(stripped):
        count = int(match.group(1) or "1")
        if count > MAX_OB_DICE:
            raise DiceError(
                f"too many dice in {text!r}: an Ob roll has at most {MAX_OB_DICE}",
                code="too_many_dice",
                text=text,
                limit=MAX_OB_DICE,
            )
        return ObDice(count)
    if match := _PLAIN_RE.fullmatch(stripped):
        count1, sides1, count2, sides2, sign, amount = match.groups()
        halved = sides2 is not None
        count = int((count2 if halved else count1) or "1")
        if not 1 <= count <= MAX_PLAIN_DICE:
            raise DiceError(
                f"{text!r} must roll 1 to {MAX_PLAIN_DICE} dice",
                code="too_many_dice",
                text=text,
                limit=MAX_PLAIN_DICE,
            )
        modifier = int(amount) if amount is not None else 0
        if modifier > MAX_MODIFIER:
            raise DiceError(
                f"modifier in {text!r} is too large (at most ±{MAX_MODIFIER})",
                code="modifier_too_large",
                text=text,
                limit=MAX_MODIFIER,
            )
        if sign is not None and sign != "+":
            modifier = -modifier
        return PlainDice(count, int(sides2 if halved else sides1), halved, modifier)
    raise DiceError(
        f"unrecognised dice {text!r}; expected e.g. Ob3T6 or 1T10",
        code="unrecognised",
        text=text,
    )


# --- rolling ------------------------------------------------------------------------


def _check_die(die: object, sides: int = SIDES) -> int:
    if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= sides:
        raise DiceError(f"a die shows 1 to {sides}, got {die!r}", code="bad_die")
    return die


def _unreplaced_sixes(first: tuple[int, ...], rerolls: tuple[int, ...]) -> int:
    return (first.count(SIDES) + rerolls.count(SIDES)) - len(rerolls) // 2


@dataclass(frozen=True)
class ObRoll:
    """One open-ended roll.

    ``first`` is the first roll (n dice, sixes included); ``rerolls`` are all later dice
    in rolled order, two for each six, first the first roll's sixes in order, then the
    sixes among the rerolls (as if each wave of new dice were rolled together). ``total``
    sums every die that was not replaced. ``capped`` is True only when the dice cap
    stopped the rerolls (see the module docstring); its unreplaced sixes count 6.

    Build one from physical dice with :meth:`of`; direct construction checks that the
    fields agree, so an impossible roll never exists.
    """

    dice: ObDice
    first: tuple[int, ...]
    rerolls: tuple[int, ...]
    total: int
    capped: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.dice, ObDice):
            raise DiceError(f"an Ob roll needs ObDice, got {self.dice!r}")
        if not isinstance(self.first, tuple) or not isinstance(self.rerolls, tuple):
            raise DiceError("first and rerolls must be tuples of dice")
        if len(self.first) != self.dice.count:
            raise DiceError(
                f"{self.dice} rolls {self.dice.count} dice first, got {len(self.first)}",
                code="wrong_dice_count",
            )
        for die in self.first + self.rerolls:
            _check_die(die)
        rolled = len(self.first) + len(self.rerolls)
        unreplaced = _unreplaced_sixes(self.first, self.rerolls)
        if self.capped:
            consistent = (
                len(self.rerolls) % 2 == 0 and unreplaced > 0 and rolled + 2 > MAX_ROLLED_DICE
            )
        else:
            consistent = len(self.rerolls) == 2 * (
                self.first.count(SIDES) + self.rerolls.count(SIDES)
            )
        if not consistent or rolled > MAX_ROLLED_DICE:
            raise DiceError(
                f"{self.dice}: {len(self.rerolls)} rerolled dice do not match the sixes "
                "(every 6 is replaced by exactly two new dice)",
                code="wrong_reroll_count",
            )
        expected = sum(d for d in self.first + self.rerolls if d != SIDES) + SIDES * (
            unreplaced if self.capped else 0
        )
        if _check_int("total", self.total) != expected:
            raise DiceError(f"total {self.total} does not match the dice ({expected})")

    @classmethod
    def of(cls, first: tuple[int, ...], rerolls: tuple[int, ...] = ()) -> "ObRoll":
        """The roll made of these dice (e.g. typed in from a real table): the first roll
        and the rerolls, two for each six (lines 12-17)."""
        first, rerolls = tuple(first), tuple(rerolls)
        for die in first + rerolls:
            _check_die(die)
        total = sum(d for d in first + rerolls if d != SIDES)
        return cls(ObDice(len(first)), first, rerolls, total)

    @property
    def counted(self) -> tuple[int, ...]:
        """The dice that make the total, in rolled order: every die but the replaced
        sixes (a capped roll's last sixes were not replaced and count)."""
        keep = _unreplaced_sixes(self.first, self.rerolls) if self.capped else 0
        sixes_seen = self.first.count(SIDES) + self.rerolls.count(SIDES)
        counted = []
        for die in self.first + self.rerolls:
            if die == SIDES:
                sixes_seen -= 1
                if sixes_seen >= keep:
                    continue
            counted.append(die)
        return tuple(counted)

    @property
    def sixes_first(self) -> int:
        """How many dice of the first roll showed 6 (the fumble rule, line 481)."""
        return self.first.count(SIDES)


@dataclass(frozen=True)
class PlainRoll:
    """One plain roll: the dice in rolled order and the result."""

    dice: PlainDice
    rolled: tuple[int, ...]
    result: int


def _roll_ob(dice: ObDice, rng: Roller) -> ObRoll:
    first = tuple(_check_die(rng.randint(1, SIDES)) for _ in range(dice.count))
    rerolls: list[int] = []
    pending = first.count(SIDES)
    rolled = dice.count
    capped = False
    while pending:
        if rolled + 2 > MAX_ROLLED_DICE:
            capped = True
            break
        pair = (_check_die(rng.randint(1, SIDES)), _check_die(rng.randint(1, SIDES)))
        rerolls.extend(pair)
        rolled += 2
        pending += pair.count(SIDES) - 1
    total = sum(d for d in first + tuple(rerolls) if d != SIDES) + SIDES * pending
    return ObRoll(dice, first, tuple(rerolls), total, capped)


@overload
def roll(dice: ObDice, rng: Roller | None = None) -> ObRoll: ...
@overload
def roll(dice: PlainDice, rng: Roller | None = None) -> PlainRoll: ...
def roll(dice, rng=None):
    """Roll ``dice`` with ``rng`` (default: ``secrets.SystemRandom()``); each die is one
    ``rng.randint(1, sides)`` call, in the order the dice are rolled."""
    if rng is None:
        rng = secrets.SystemRandom()
    if isinstance(dice, ObDice):
        return _roll_ob(dice, rng)
    if isinstance(dice, PlainDice):
        rolled = tuple(
            _check_die(rng.randint(1, dice.sides), dice.sides) for _ in range(dice.count)
        )
        return PlainRoll(dice, rolled, dice.result_of(sum(rolled)))
    raise DiceError(f"cannot roll {dice!r}; parse it with parse_dice()")


# --- exact probabilities --------------------------------------------------------------
#
# Integer tables. A path of open-ended dice that starts with m dice and ends at total t
# rolls at most 2t - m dice (each six adds one die and every counted die adds at least 1),
# so P(m dice total t) * 6**(2t - m) is an integer. The tables hold these integers; the
# scales line up under convolution (exponents add), so no fractions are made until the
# answer. Every table covers the totals 0..MAX_EXACT_TOTAL (one cache entry per dice
# count), built by recurrences of a few terms per total rather than by convolutions:
#
# * one die, F = sum P(t) x**t, satisfies F = u + F**2/6 with u = (x + ... + x**5)/6 (a
#   six is two more dice), so F = 3 - sqrt(w), w = 9 - x - ... - x**5; the square root
#   y = sqrt(w) satisfies 2 w y' = w' y, that is, for t >= 1,
#   18 t y[t] = sum over j = 1..5 of (2t - 3j) y[t - j], with y[0] = 3 and F[t] = -y[t];
# * m dice: F**2 = 6F - 6u, so F**m = 6 F**(m-1) - 6u F**(m-2);
# * the first roll's other dice (1-5 each) are a short polynomial: its products with a
#   table skip the zeros beyond it.

_TABLE_SIZE = MAX_EXACT_TOTAL + 1


def _check_value(name: str, value: object) -> int:
    if _check_int(name, value) > MAX_EXACT_TOTAL:
        raise DiceError(
            f"{name} {value} is above {MAX_EXACT_TOTAL}, the limit of the exact odds",
            code="value_too_large",
            limit=MAX_EXACT_TOTAL,
        )
    return value


@lru_cache(maxsize=1)
def _one_die() -> tuple[int, ...]:
    """Scaled P(one open-ended die totals t), by the square-root recurrence above. The
    table is S[t] = -y[t] * 6**(2t - 1); multiplying the recurrence by -6**(2t - 1)/18
    gives t * S[t] = sum over j = 1..5 of (2t - 3j) * 36**(j - 1) * 2 S[t - j], where
    2 S[0] stands for -2 y[0] / 6 = -1. The division by t is exact: S[t] is an integer."""
    scaled = [0] * _TABLE_SIZE
    for t in range(1, _TABLE_SIZE):
        weighted = sum(
            (2 * t - 3 * j) * 36 ** (j - 1) * (2 * scaled[t - j] if t > j else -1)
            for j in range(1, min(t, SIDES - 1) + 1)
        )
        scaled[t] = weighted // t
    return tuple(scaled)


def _multiply(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The first :data:`_TABLE_SIZE` coefficients of the product of two polynomials
    (coefficient tuples; ``b`` of at least that many entries, ``a`` of any length): a
    truncated convolution, whose work is the length of ``a`` times the table's."""
    size = _TABLE_SIZE
    reversed_b = b[size - 1 :: -1]  # reversed_b[size - 1 - j] == b[j]
    return tuple(sum(map(mul, a[: t + 1], reversed_b[size - 1 - t :])) for t in range(size))


@lru_cache(maxsize=2 * MAX_OB_DICE + 1)
def _dice_totals(m: int) -> tuple[int, ...]:
    """Scaled P(m open-ended dice total t), t <= MAX_EXACT_TOTAL (m <= 40: the rerolls
    of 20 sixes), by F**m = 6 F**(m-1) - 6u F**(m-2). Over 6**(2t - m), 6 F**(m-1) is the
    (m-1)-dice table itself, and 6u's face f is the (m-2)-dice table at t - f times
    36**(f - 1)."""
    if m == 0:
        return (1,) + (0,) * (_TABLE_SIZE - 1)
    if m == 1:
        return _one_die()
    fewer, fewest = _dice_totals(m - 1), _dice_totals(m - 2)
    scaled = list(fewer)
    for t in range(_TABLE_SIZE):
        for face in range(1, min(t, SIDES - 1) + 1):
            scaled[t] -= 36 ** (face - 1) * fewest[t - face]
    return tuple(scaled)


@lru_cache(maxsize=2 * MAX_OB_DICE + 1)
def _dice_at_most(m: int) -> tuple[int, ...]:
    """Scaled P(m open-ended dice total at most x) over 6**(2x - m), x <= MAX_EXACT_TOTAL."""
    at_most, running = [], 0
    for scaled in _dice_totals(m):
        running = 36 * running + scaled
        at_most.append(running)
    return tuple(at_most)


def _p_dice_at_most(m: int, value: int) -> Fraction:
    if value < 0:
        return Fraction(0)
    scaled = _dice_at_most(m)[value]
    return Fraction(scaled, 6 ** (2 * value - m)) if scaled else Fraction(0)


def p_at_most(dice: ObDice, value: int) -> Fraction:
    """Exact probability that the total of ``dice`` is at most ``value`` (<= 200)."""
    if not isinstance(dice, ObDice):
        raise DiceError(f"exact odds are for Ob dice, got {dice!r}")
    return _p_dice_at_most(dice.count, _check_value("value", value))


def p_rerolls_at_most(sixes: int, value: int) -> Fraction:
    """Exact probability that the dice replacing ``sixes`` sixes of the first roll (two
    new open-ended dice each) add up to at most ``value`` (<= 200)."""
    _check_ob_count(sixes)
    return _p_dice_at_most(2 * sixes, _check_value("value", value))


def distribution(dice: ObDice, up_to: int) -> dict[int, Fraction]:
    """Exact ``{total: probability}`` of ``dice`` for the totals up to ``up_to`` (<= 200).

    Keys ascending, only nonzero probabilities. Totals above ``up_to`` are left out, so
    the values sum to ``p_at_most(dice, up_to)``, not 1: an open-ended roll has no
    highest total (line 22)."""
    if not isinstance(dice, ObDice):
        raise DiceError(f"exact odds are for Ob dice, got {dice!r}")
    if _check_value("up_to", up_to) < 0:
        return {}
    totals = _dice_totals(dice.count)
    m = dice.count
    return {t: Fraction(totals[t], 6 ** (2 * t - m)) for t in range(up_to + 1) if totals[t]}


@lru_cache(maxsize=64)
def _five_sided_sums(count: int) -> tuple[int, ...]:
    """Ways for ``count`` dice showing 1-5 (a first roll's dice that are not sixes) to sum
    to s, s = 0..5·count."""
    ways = [1]
    for _ in range(count):
        longer = [0] * (len(ways) + 5)
        for s, w in enumerate(ways):
            if w:
                for face in range(1, SIDES):
                    longer[s + face] += w
        ways = longer
    return tuple(ways)


@lru_cache(maxsize=256)
def _first_roll_totals(n: int, sixes: int) -> tuple[int, ...]:
    """Scaled P(the first roll of n dice shows exactly ``sixes`` sixes and the total is
    t) over 6**(n + 2t): the first roll's other dice sum to s, the rerolls to t - s."""
    others = _five_sided_sums(n - sixes)[:_TABLE_SIZE]
    weighted = tuple(w * 36**s for s, w in enumerate(others))
    ways = comb(n, sixes) * 36**sixes
    product = _multiply(weighted, _dice_totals(2 * sixes))
    return tuple(ways * scaled for scaled in product)


def first_roll_distribution(dice: ObDice, sixes: int, up_to: int) -> dict[int, Fraction]:
    """Exact ``{total: P(the first roll shows exactly `sixes` sixes and the roll totals
    total)}`` for totals up to ``up_to`` (<= 200); the perfect and fumble rules read the
    first roll. Keys ascending, only nonzero probabilities; summed over ``sixes`` it is
    :func:`distribution`."""
    if not isinstance(dice, ObDice):
        raise DiceError(f"exact odds are for Ob dice, got {dice!r}")
    _check_int("sixes", sixes)
    if _check_value("up_to", up_to) < 0 or not 0 <= sixes <= dice.count:
        return {}
    scaled = _first_roll_totals(dice.count, sixes)
    n = dice.count
    return {t: Fraction(scaled[t], 6 ** (n + 2 * t)) for t in range(up_to + 1) if scaled[t]}


def plain_distribution(dice: PlainDice) -> dict[int, Fraction]:
    """Exact ``{result: probability}`` of a plain roll, keys ascending."""
    if not isinstance(dice, PlainDice):
        raise DiceError(f"plain_distribution is for plain dice, got {dice!r}")
    ways = {0: 1}
    for _ in range(dice.count):
        longer: dict[int, int] = {}
        for s, w in ways.items():
            for face in range(1, dice.sides + 1):
                longer[s + face] = longer.get(s + face, 0) + w
        ways = longer
    results: dict[int, int] = {}
    for s, w in ways.items():
        result = dice.result_of(s)
        results[result] = results.get(result, 0) + w
    total = dice.sides**dice.count
    return {r: Fraction(results[r], total) for r in sorted(results)}
