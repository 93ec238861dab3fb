"""Phobia success tests (phobia-utdrag.txt lines 30-65, 354-609): chance against an
Ob difficulty, effect, perfect and fumble, modifiers, opposed tests, exact odds."""

import math
import random
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError
from rules.phobia import dice as dice_module
from rules.phobia import success as success_module
from rules.phobia.dice import ObDice, ObRoll, p_rerolls_at_most, roll
from rules.phobia.success import (
    MAX_EXACT_CHANCE,
    Difficulty,
    TestOutcome,
    delayed_difficulty,
    delayed_opposed,
    fumble_risk,
    modify_difficulty,
    odds,
    opposed,
    perfect_pattern,
    relative_effect,
    resolve_test,
    success_test,
    warm,
)


def outcome(chance, first, rerolls=()):
    return resolve_test(chance, ObRoll.of(first, rerolls))


# --- difficulties --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "dice", "name", "difficulty"),
    [
        (55, "Ob1T6", "Mycket lätt", Difficulty.VERY_EASY),
        (57, "Ob2T6", "Lätt", Difficulty.EASY),
        (59, "Ob3T6", "Normal svårt", Difficulty.NORMAL),
        (61, "Ob4T6", "Svårt", Difficulty.HARD),
        (63, "Ob5T6", "Mycket svårt", Difficulty.VERY_HARD),
    ],
)
def test_table_1_basic_difficulties(line, dice, name, difficulty):
    """Table 1 (lines 53-65): the five named difficulties are 1 to 5 Ob dice."""
    assert dice_module.parse_dice(dice).count == difficulty
    assert len(Difficulty) == 5


def test_normal_difficulty_is_ob3t6():
    """Lines 40-41 and 363-364: a normal difficulty is Ob3T6, the default of a test."""
    assert Difficulty.NORMAL == 3
    rolled = success_test(10, rng=random.Random(1))
    assert rolled.difficulty == 3


@pytest.mark.parametrize(
    ("difficulty", "levels", "expected"),
    [
        (3, (-1,), 2),  # lines 533-537: one level easier than normal is Ob2T6
        (3, (2, -1, 1, -1, 1), 5),  # lines 543-547: cumulative modifiers, Ob5T6
        (3, (1, 1, -1, -1, 2), 5),  # the order does not matter
        (3, (), 3),
        (1, (-1,), 0),  # never fewer than 0 dice
        (1, (-3,), 0),
        (1, (-2, 1), 0),  # the modifiers add up first, then the floor: not 1
        (2, (-3, 2), 1),
        (19, (5,), 20),  # the dice bound
    ],
)
def test_modify_difficulty(difficulty, levels, expected):
    assert modify_difficulty(difficulty, *levels) == expected


@pytest.mark.parametrize(("difficulty", "levels"), [(-1, ()), (21, ()), (3, (1.0,)), (True, ())])
def test_modify_difficulty_rejects_bad_input(difficulty, levels):
    with pytest.raises(RulesError):
        modify_difficulty(difficulty, *levels)


# --- first-roll patterns -------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "perfect"),
    [
        ((1,), True),  # lines 432-433: a single die shows 1, 2 or 3
        ((2,), True),
        ((3,), True),
        ((4,), False),
        ((6,), False),
        ((1, 1), True),
        ((1, 6), True),  # at most one die may show something else (line 430-431)
        ((5, 1), True),
        ((2, 2), False),
        ((1, 1, 6), True),  # lines 461-463: "finns det en klar möjlighet"
        ((1, 1, 1), True),
        ((1, 2, 2), False),
        ((), False),  # Ob0T6 rolls no dice
    ],
)
def test_perfect_pattern(first, perfect):
    assert perfect_pattern(first) is perfect


@pytest.mark.parametrize(
    ("first", "risk"),
    [((6, 6), True), ((6, 6, 4, 1), True), ((6, 1, 6), True), ((6,), False), ((6, 5), False)],
)
def test_fumble_risk(first, risk):
    """Lines 481-482, 504-505: two or more sixes in the first roll are a fumble risk."""
    assert fumble_risk(first) is risk


# --- the text's worked examples ---------------------------------------------------------

EXAMPLES = [
    # (lines, chance, difficulty, dice in rolled order, total, success, perfect, fumble, effect)
    # 406-408: Sprängteknik 16, Ob3T6 gives 10 (dice not given: 2, 3, 5), effect 6
    ("406-408", 16, 3, (2, 3, 5), 10, True, False, False, 6),
    # 408-410: the next roll shows 18 (dice not given: 6, 5, 4 and the six as 4, 5): -2
    ("408-410", 16, 3, (6, 5, 4, 4, 5), 18, False, False, False, -2),
    # 458-467: Klättra 14, Ob3T6 shows 1, 1, 6; the six becomes 3 and 5: 10, perfect
    ("458-467", 14, 3, (1, 1, 6, 3, 5), 10, True, True, False, 4),
    # 471-473: the same first roll totalling over 14 still succeeds, not perfect
    ("471-473", 14, 3, (1, 1, 6, 6, 5, 4, 5), 16, True, False, False, -2),
    # 500-508: Klättra 14, Ob4T6 shows 6, 6, 4, 1; the sixes give 5, 3, 2, 1: 16, a fumble
    ("500-508", 14, 4, (6, 6, 4, 1, 5, 3, 2, 1), 16, False, False, True, -2),
    # 510-513: 6, 6, 1, 1 with the same rerolls totals 13: an ordinary failure
    ("510-513", 14, 4, (6, 6, 1, 1, 5, 3, 2, 1), 13, False, False, False, 1),
    # 599-604: Gömma 15, Ob2T6 (easy), eight on the dice (dice not given: 3, 5): effect 7
    ("599-604", 15, 2, (3, 5), 8, True, False, False, 7),
    # 607-608: the guard's SYN 12 against 10 (difficulty and dice not given): effect 2
    ("607-608", 12, 3, (2, 3, 5), 10, True, False, False, 2),
]


@pytest.mark.parametrize(
    ("lines", "chance", "difficulty", "script", "total", "success", "perfect", "fumble", "effect"),
    EXAMPLES,
)
def test_worked_examples(
    scripted, lines, chance, difficulty, script, total, success, perfect, fumble, effect
):
    rng = scripted(*script)
    result = success_test(chance, difficulty, rng)
    assert rng.queue == []
    assert result.first == script[:difficulty]
    assert result.rerolls == script[difficulty:]
    assert (result.total, result.chance) == (total, chance)
    assert (result.success, result.perfect, result.fumble, result.effect) == (
        success,
        perfect,
        fumble,
        effect,
    )


def test_effect_is_chance_minus_roll():
    """Line 416: Effekt = Färdighetschans - Svårighetsslaget utfall, for any result."""
    result = outcome(16, (6, 5, 4), (4, 5))
    assert result.effect == 16 - 18 == -2
    assert not result.success


def test_lone_die_showing_1_to_3_succeeds_even_above_the_chance():
    """Lines 432-433 with 438-440 (rulings: the action still succeeds): Ob1T6 showing 3
    against chance 2 is a success, not perfect, with effect -1."""
    result = outcome(2, (3,))
    assert (result.success, result.perfect, result.fumble, result.effect) == (
        True,
        False,
        False,
        -1,
    )


def test_a_single_six_is_no_fumble():
    result = outcome(3, (6,), (5, 4))
    assert (result.success, result.fumble) == (False, False)


@pytest.mark.parametrize(("chance", "success"), [(0, True), (5, True), (-1, False)])
def test_ob0t6_rolls_nothing_and_is_never_special(scripted, chance, success):
    rng = scripted()
    result = success_test(chance, 0, rng)
    assert (result.total, result.success, result.perfect, result.fumble) == (
        0,
        success,
        False,
        False,
    )
    assert rng.calls == []


def test_success_test_rolls_with_system_random_by_default(monkeypatch, scripted):
    rng = scripted(2, 3, 5)
    monkeypatch.setattr(dice_module.secrets, "SystemRandom", lambda: rng)
    assert success_test(16).effect == 6


@pytest.mark.parametrize(
    "call",
    [
        lambda: success_test(10, 21),
        lambda: success_test(10, -1),
        lambda: success_test(10.0, 3),
        lambda: success_test(True, 3),
        lambda: resolve_test(10, (1, 2, 3)),
    ],
)
def test_success_test_rejects_bad_input(call):
    with pytest.raises(RulesError):
        call()


# --- opposed tests ---------------------------------------------------------------------

NORMAL_4 = outcome(14, (2, 3, 5))  # effect 4
NORMAL_2 = outcome(12, (2, 3, 5))  # effect 2
PERFECT_1 = outcome(5, (1, 1, 2))  # perfect, effect 1
PERFECT_3 = outcome(7, (1, 1, 2))  # perfect, effect 3
FAILED_MINUS_5 = outcome(5, (2, 3, 5))  # failure, effect -5
FUMBLE_MINUS_1 = outcome(10, (6, 6, 1), (2, 3, 4, 1))  # fumble, effect -1
FUMBLE_MINUS_3 = outcome(8, (6, 6, 1), (2, 3, 4, 1))  # fumble, effect -3


@pytest.mark.parametrize(
    ("a", "b", "winner"),
    [
        (NORMAL_4, NORMAL_2, 1),  # lines 561-563: the higher effect wins
        (NORMAL_2, NORMAL_4, -1),
        (NORMAL_4, outcome(9, (1, 2, 2)), 0),  # lines 563-564: equal, nobody wins, roll again
        (PERFECT_1, NORMAL_4, 1),  # lines 454-456, 573-574: perfect beats a higher effect
        (PERFECT_3, PERFECT_1, 1),  # lines 574-575: both perfect compare effects
        (FUMBLE_MINUS_1, FAILED_MINUS_5, -1),  # lines 575-576, 496-498: a fumble always loses
        (FUMBLE_MINUS_1, FUMBLE_MINUS_3, 1),  # both fumbled: effects, the mirror of perfect
        (PERFECT_1, FUMBLE_MINUS_1, 1),
    ],
)
def test_opposed(a, b, winner):
    assert opposed(a, b) == winner
    assert opposed(b, a) == -winner


def test_relative_effect():
    """Line 422: relative effect = active effect - opposing effect."""
    assert relative_effect(NORMAL_4, NORMAL_2) == 2
    assert relative_effect(NORMAL_2, NORMAL_4) == -2


def test_sinclair_hides_from_the_guard():
    """Lines 599-609: Sinclair's hiding (effect 7) was rolled first and remembered; the
    guard must reach effect seven or better, rolls effect 2 and does not find him."""
    sinclair = outcome(15, (3, 5))
    guard = outcome(12, (2, 3, 5))
    assert (sinclair.effect, guard.effect) == (7, 2)
    assert delayed_opposed(sinclair, guard) is False
    assert relative_effect(guard, sinclair) == -5


@pytest.mark.parametrize(("guard_chance", "found"), [(12, True), (13, True), (11, False)])
def test_delayed_opposition_needs_the_earlier_effect_or_better(guard_chance, found):
    """Line 606-607: "sju eller bättre", an equal effect is enough for the later roll."""
    sinclair = outcome(15, (3, 5))
    guard = outcome(guard_chance, (1, 2, 2))  # total 5: effect 7, 8 or 6
    assert delayed_opposed(sinclair, guard) is found


def test_delayed_opposition_keeps_perfect_and_fumble():
    assert delayed_opposed(PERFECT_1, NORMAL_4) is False
    assert delayed_opposed(FUMBLE_MINUS_1, FAILED_MINUS_5) is True


@pytest.mark.parametrize(
    ("earlier", "voluntary", "expected"),
    [(NORMAL_4, 2, 5), (FAILED_MINUS_5, 2, 3), (NORMAL_4, 0, 3), (PERFECT_1, 1, 4)],
)
def test_voluntary_levels_carry_over_to_the_later_roll(earlier, voluntary, expected):
    """Lines 589-594: a success despite voluntary extra levels makes the later roll add
    the same number of levels."""
    assert delayed_difficulty(3, voluntary, earlier) == expected


def test_delayed_difficulty_rejects_negative_levels():
    with pytest.raises(RulesError):
        delayed_difficulty(3, -1, NORMAL_4)


# --- exact odds ------------------------------------------------------------------------


def brute_force_odds(n, chance):
    """Odds by going through every first roll of n dice and resolving it as
    :func:`resolve_test` does; the rerolls enter through p_rerolls_at_most. Success and
    failure are counted by separate conditions, so together they must make 1."""
    success = failure = perfect = fumble = Fraction(0)
    for first in product(range(1, 7), repeat=n):
        p_first = Fraction(1, 6**n)
        sixes = first.count(6)
        others = sum(d for d in first if d != 6)
        within = p_rerolls_at_most(sixes, chance - others)
        pattern, risk = perfect_pattern(first), fumble_risk(first)
        if pattern:
            success += p_first
            perfect += p_first * within
        elif risk:
            failure += p_first
            fumble += p_first * (1 - within)
        else:
            success += p_first * within
            failure += p_first * (1 - within)
    return success, failure, perfect, fumble


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("chance", [-3, -1, 0, 1, 2, 3, 5, 8, 11, 14, 20, 33])
def test_odds_match_every_first_roll(n, chance):
    success, failure, perfect, fumble = brute_force_odds(n, chance)
    result = odds(n, chance)
    assert success + failure == 1
    assert (result.success, result.perfect, result.fumble) == (success, perfect, fumble)
    assert result.failure == failure


def test_ob1t6_odds_by_hand():
    """One die: 1-3 always succeed (perfect when within the chance), 4 and 5 against the
    chance, a six's two dice add up; one die never fumbles."""
    result = odds(1, 5)
    assert result.success == Fraction(5, 6) + Fraction(1, 6) * p_rerolls_at_most(1, 5)
    assert result.perfect == Fraction(1, 2)
    assert result.fumble == 0
    zero = odds(1, 0)
    assert (zero.success, zero.perfect, zero.fumble) == (Fraction(1, 2), 0, 0)
    assert zero.effects == {}
    assert zero.success_above_chance == Fraction(1, 2)


def test_ob2t6_patterns_by_hand():
    """Two dice: 11 of 36 first rolls have a 1 (perfect pattern), 1 has two sixes."""
    result = odds(2, -1)
    assert (result.success, result.fumble) == (Fraction(11, 36), Fraction(1, 36))
    high = odds(2, MAX_EXACT_CHANCE)
    # Two sixes never succeed; one six may (very rarely) pass even chance 200.
    assert 0 < Fraction(35, 36) - high.success < Fraction(1, 10**15)
    assert 0 < high.fumble < Fraction(1, 10**15)


@pytest.mark.parametrize(("chance", "success"), [(0, 1), (7, 1), (-1, 0)])
def test_ob0t6_odds(chance, success):
    result = odds(0, chance)
    assert (result.success, result.perfect, result.fumble) == (success, 0, 0)
    assert result.effects == ({chance: 1} if success else {})


def test_effects_of_jaces_demolition():
    """Lines 406-408: Sprängteknik 16 against Ob3T6; effect 6 means a total of 10."""
    result = odds(3, 16)
    assert sorted(result.effects) == list(range(14))  # totals 3..16
    first_roll = {
        first: Fraction(1, 216) for first in product(range(1, 6), repeat=3) if sum(first) == 10
    }
    # A total of 10 without sixes is 18 first rolls; with one six, the six's two dice
    # make up the rest.
    assert len(first_roll) == 18
    one_six = 3 * sum(
        Fraction(1, 216) * (p_rerolls_at_most(1, 10 - a - b) - p_rerolls_at_most(1, 9 - a - b))
        for a in range(1, 6)
        for b in range(1, 6)
    )
    assert result.effects[6] == sum(first_roll.values()) + one_six


@pytest.mark.parametrize(
    "call",
    [
        lambda: odds(3, MAX_EXACT_CHANCE + 1),
        lambda: odds(21, 10),
        lambda: odds(-1, 10),
        lambda: odds(3, 10.5),
        lambda: odds(3, True),
    ],
)
def test_odds_reject_bad_input(call):
    with pytest.raises(RulesError):
        call()


def test_odds_reports_its_limit():
    with pytest.raises(RulesError) as info:
        odds(3, 10**9)
    assert (info.value.code, info.value.params) == ("chance_too_large", {"limit": 200})


@given(st.integers(0, 12), st.integers(-5, 90))
def test_odds_are_probabilities(n, chance):
    result = odds(n, chance)
    assert 0 <= result.perfect <= result.success <= 1
    assert 0 <= result.fumble <= result.failure
    assert result.perfect + result.fumble <= 1
    assert result.success + result.failure == 1
    assert sum(result.effects.values()) + result.success_above_chance == result.success
    assert all(0 <= effect <= chance and p > 0 for effect, p in result.effects.items())
    easier = odds(n, chance + 1)  # a higher chance never hurts
    assert easier.success >= result.success
    assert easier.perfect >= result.perfect
    assert easier.fumble <= result.fumble


@given(st.integers(0, 20), st.integers(-5, 60), st.randoms(use_true_random=False))
def test_any_rolled_test_is_consistent(n, chance, rng):
    result = success_test(chance, n, rng)
    assert isinstance(result, TestOutcome)
    assert result.effect == chance - result.total == chance - sum(result.roll.counted)
    assert not (result.perfect and result.fumble)
    assert not result.perfect or result.success
    assert not result.fumble or not result.success
    assert result.success == (
        perfect_pattern(result.first) or (result.total <= chance and not fumble_risk(result.first))
    )


@pytest.mark.parametrize(("n", "chances"), [(3, (6, 10, 14, 18)), (5, (12, 16, 20, 26))])
def test_odds_match_200_000_seeded_tests(n, chances):
    """Exact success, perfect and fumble odds against 200,000 rolls from a fixed seed.
    A share from N independent rolls has standard error sqrt(p(1-p)/N), at most 0.0011;
    within 5 of them a correct implementation misses with chance 6e-7 per comparison,
    and the fixed seed makes the test deterministic.

    A test's outcome depends on the total and the first roll's pattern only, so the rolls
    are grouped by those and one roll of each group is resolved for each chance."""
    rng = random.Random(1000 + n)
    total = 200_000
    groups = Counter()
    example = {}
    for _ in range(total):
        rolled = roll(ObDice(n), rng)
        key = (rolled.total, perfect_pattern(rolled.first), fumble_risk(rolled.first))
        groups[key] += 1
        example.setdefault(key, rolled)
    for chance in chances:
        exact = odds(n, chance)
        results = [(resolve_test(chance, example[key]), count) for key, count in groups.items()]
        for name in ("success", "perfect", "fumble"):
            p = getattr(exact, name)
            seen = sum(count for result, count in results if getattr(result, name)) / total
            sigma = math.sqrt(p * (1 - p) / total)
            assert abs(seen - p) <= 5 * sigma, (n, chance, name, seen, float(p))
        p6 = exact.effects.get(6, Fraction(0))
        seen6 = sum(count for r, count in results if r.success and r.effect == 6) / total
        assert abs(seen6 - p6) <= 5 * math.sqrt(p6 * (1 - p6) / total)


# --- warming the exact odds -------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]

# Odds in a fresh process, every field (fractions as text), with or without warm() first.
ODDS_IN_A_FRESH_PROCESS = """
import sys
from rules.phobia.success import odds, warm
if sys.argv[1] == "warm":
    warm()
for n in (0, 1, 2, 3, 5, 8, 10, 11, 20):
    for chance in (-3, 0, 1, 2, 7, 14, 63, 64, 127, 128, 150, 199, 200):
        o = odds(n, chance)
        fields = (o.success, o.perfect, o.fumble, o.success_above_chance, dict(o.effects))
        print(n, chance, *map(str, fields))
"""


def odds_in_a_fresh_process(mode):
    done = subprocess.run(
        [sys.executable, "-c", ODDS_IN_A_FRESH_PROCESS, mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()


def test_warm_changes_no_odds():
    """The same odds, every field, from a process that warmed its tables first and from one
    that built them as the odds asked (difficulties inside and outside the warmed ones)."""
    cold, warmed = odds_in_a_fresh_process("cold"), odds_in_a_fresh_process("warm")
    assert len(cold) == 9 * 13
    assert warmed == cold


def test_warmed_odds_match_every_first_roll():
    warm()
    for n, chance in [(0, 5), (1, 0), (2, 7), (3, 14), (4, 20)]:
        success, failure, perfect, fumble = brute_force_odds(n, chance)
        result = odds(n, chance)
        assert (result.success, result.perfect, result.fumble) == (success, perfect, fumble)


def test_warm_builds_every_table_the_odds_read():
    """After warm(), odds up to Ob10T6 and chance 200 only read tables: no table cache
    misses (each would be a table built while a request waits)."""
    caches = [
        success_module._few_sixes,
        dice_module._one_die,
        dice_module._dice_totals,
        dice_module._dice_at_most,
        dice_module._first_roll_totals,
        dice_module._five_sided_sums,
    ]
    warm()
    before = [cache.cache_info().misses for cache in caches]
    for n in range(11):
        for chance in (-1, 0, 1, 5, 60, 64, 128, 199, MAX_EXACT_CHANCE):
            odds(n, chance)
    assert [cache.cache_info().misses for cache in caches] == before


def test_warm_rejects_bad_difficulties():
    with pytest.raises(RulesError):
        warm(21)
    with pytest.raises(RulesError):
        warm(-1)
