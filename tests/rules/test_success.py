"""Aoristos success tests (p. 5): GST, the test hand, totals, margins, opposed tests."""

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError
from rules.aoristos.dice import Hand, Purpose, parse_hand, roll
from rules.aoristos.success import (
    TestOutcome,
    base_threshold,
    opposed,
    p_success,
    plan_test,
    resolve_test,
    success_test,
    test_hand,
)


@pytest.mark.parametrize(("properties", "gst"), [(0, 4), (1, 6), (2, 8), (3, 10), (5, 14)])
def test_base_threshold(properties, gst):
    """p. 5: GST is 4, +2 for each property in TB (a test of nothing has GST 4)."""
    assert base_threshold(properties) == gst


def test_gst_for_alertness_and_wilderness_is_8():
    """p. 5 worked example: SIN + Vildmark to find a deer track, GST (4 + 2 + 2) 8."""
    assert base_threshold(len(["alertness", "wilderness"])) == 8


@pytest.mark.parametrize("count", [-1, True, 1.0, "2"])
def test_base_threshold_rejects_bad_counts(count):
    with pytest.raises(RulesError):
        base_threshold(count)


@pytest.mark.parametrize(
    ("kwargs", "hand"),
    [
        ({}, "1B1T"),  # p. 5: "Sedan slår man 1B1T"
        ({"nerve_shock": 1}, "1B2T"),  # +1T per degree of nervchock (p. 13)
        ({"nerve_shock": 2}, "1B3T"),
        ({"free": 1}, "1B"),  # p. 4: 1F cancels the 1T
        ({"free": 2}, "1B1F"),
        ({"nerve_shock": 1, "free": 1}, "1B1T"),
        ({"forced": 2}, "1B3T"),
        ({"nerve_shock": 10}, "1B5T"),  # never more than 6 dice
        ({"nerve_shock": 9, "free": 6}, "1B4T"),  # F and T cancel before the cap
        ({"free": 9}, "1B5F"),
    ],
)
def test_test_hand(kwargs, hand):
    """p. 5: the success-test hand is 1B1T plus nervchock and circumstances."""
    assert str(test_hand(**kwargs)) == hand


@pytest.mark.parametrize(
    "kwargs", [{"nerve_shock": -1}, {"free": -1}, {"forced": -1}, {"nerve_shock": True}]
)
def test_test_hand_rejects_negative_counts(kwargs):
    with pytest.raises(RulesError):
        test_hand(**kwargs)


@pytest.mark.parametrize(
    ("test_base", "threshold", "dice", "total", "success", "margin"),
    [
        # p. 5: 1B1T counts the lower die; total = TB + that die; success when >= ST.
        (6, 9, (3, 5), 9, True, 0),  # equal to ST succeeds
        (6, 9, (6, 2), 8, False, -1),
        (6, 9, (6, 6), 12, True, 3),
        (0, 4, (1, 1), 1, False, -3),
        (10, 0, (4, 4), 14, True, 14),
    ],
)
def test_resolve_test(scripted, test_base, threshold, dice, total, success, margin):
    rolled = roll(test_hand(), scripted(*dice), Purpose.TEST)
    outcome = resolve_test(test_base, threshold, rolled)
    assert outcome == TestOutcome(test_base, threshold, rolled, total, success, margin)


def test_success_test_rolls_1b1t_by_default(scripted):
    """p. 5 deer track: SIN 3 + Vildmark 3 against ST 9; dice 5 and 2 count the 2."""
    outcome = success_test(6, 9, rng=scripted(5, 2))
    assert outcome.roll.hand == parse_hand("1B1T")
    assert outcome.roll.counted == (2,)
    assert (outcome.total, outcome.success, outcome.margin) == (8, False, -1)


def test_success_test_with_a_free_hand_counts_the_highest(scripted):
    """p. 4: a free hand in a test counts the best die."""
    outcome = success_test(6, 9, hand=test_hand(free=2), rng=scripted(5, 2))
    assert outcome.roll.counted == (5,)
    assert (outcome.total, outcome.success, outcome.margin) == (11, True, 2)


@pytest.mark.parametrize("args", [(6.0, 9), (6, "9"), (True, 9), (6, None)])
def test_resolve_test_rejects_non_integers(scripted, args):
    with pytest.raises(RulesError):
        resolve_test(*args, roll(test_hand(), scripted(1, 1)))


@pytest.mark.parametrize(
    ("hand", "test_base", "threshold", "expected"),
    [
        # TB 6, ST 9 with 1B1T: the lower die must be at least 3: (4/6)².
        (test_hand(), 6, 9, Fraction(16, 36)),
        (test_hand(), 6, 9, Fraction(4, 9)),
        # 1B1F: at least one die of 3+: 1 - (2/6)².
        (test_hand(free=2), 6, 9, Fraction(8, 9)),
        (test_hand(free=1), 6, 9, Fraction(4, 6)),
        # 1B2T (one degree of nervchock): (4/6)³.
        (test_hand(nerve_shock=1), 6, 9, Fraction(8, 27)),
        (test_hand(), 6, 7, Fraction(1)),  # even a 1 reaches 7
        (test_hand(), 6, 12, Fraction(1, 36)),  # needs double six
        (test_hand(), 6, 13, Fraction(0)),
    ],
)
def test_p_success_by_hand(hand, test_base, threshold, expected):
    assert p_success(hand, test_base, threshold) == expected


@pytest.mark.parametrize("text", ["1B1T", "1B2T", "1B1F", "1B", "2B2T+1"])
@pytest.mark.parametrize("test_base", [0, 3, 6])
@pytest.mark.parametrize("threshold", [4, 8, 9, 12])
def test_p_success_counts_the_outcomes_resolve_test_calls_successes(
    scripted, text, test_base, threshold
):
    """p_success and resolve_test agree on every possible roll (e.g. on >= vs >)."""
    hand = parse_hand(text)
    outcomes = list(product(range(1, 7), repeat=hand.dice_count))
    wins = sum(
        resolve_test(test_base, threshold, roll(hand, scripted(*faces))).success
        for faces in outcomes
    )
    assert p_success(hand, test_base, threshold) == Fraction(wins, len(outcomes))


@pytest.mark.parametrize(("a", "b", "winner"), [(10, 8, 1), (8, 10, -1), (9, 9, 0), (0, 0, 0)])
def test_opposed(a, b, winner):
    """p. 5: the higher total wins; equal totals are a draw with no effect."""
    assert opposed(a, b) == winner


@given(st.integers(-100, 100), st.integers(-100, 100))
def test_opposed_is_antisymmetric(a, b):
    assert opposed(a, b) == -opposed(b, a)
    assert opposed(a, b) in (-1, 0, 1)


def test_opposed_rejects_non_integers():
    with pytest.raises(RulesError):
        opposed(1.5, 2)


hands = st.builds(
    Hand.of, st.integers(1, 6), st.integers(0, 6), st.integers(0, 6), st.integers(-5, 5)
)


@given(hands, st.integers(-10, 40), st.integers(-10, 50))
def test_p_success_is_a_probability_monotone_in_tb_and_st(hand, test_base, threshold):
    p = p_success(hand, test_base, threshold)
    assert 0 <= p <= 1
    assert p_success(hand, test_base + 1, threshold) >= p
    assert p_success(hand, test_base, threshold + 1) <= p


@given(st.integers(0, 6), st.integers(0, 6), st.integers(0, 20), st.integers(4, 30))
def test_more_free_dice_never_hurt_more_forced_dice_never_help(free, forced, tb, st_):
    """p. 4: F is a bonus and T a malus."""
    hand = test_hand(free=free, forced=forced)
    assert p_success(hand.add(free=1), tb, st_) >= p_success(hand, tb, st_)
    assert p_success(hand.add(forced=1), tb, st_) <= p_success(hand, tb, st_)


def test_a_planned_test_sums_its_properties_and_takes_the_gst_unless_an_st_is_given():
    """p. 5: Albert (p. 2) tests SIN 5 + Vildmark 0: TB 5, GST 4 + 2·2 = 8, ST the GST;
    an own ST replaces it; extra F and T go into the 1B1T hand; no property is GST 4."""
    levels = {"alertness": 5, "wilderness": 0, "physique": 3}
    planned = plan_test(levels, ["alertness", "wilderness"])
    assert (planned.test_base, planned.gst, planned.threshold) == (5, 8, 8)
    assert planned.hand == test_hand()
    harder = plan_test(levels, ["alertness", "wilderness"], free=2, forced=1, threshold=11)
    assert (harder.gst, harder.threshold) == (8, 11)
    assert harder.hand == test_hand(free=2, forced=1)
    assert plan_test(levels, []).gst == plan_test(levels, []).threshold == 4
    with pytest.raises(RulesError):
        plan_test(levels, ["physique"], threshold="9")


def test_a_constant_adds_to_the_tb_but_not_to_the_gst():
    """p. 15: the psychosis test is VIL + 20: TB VIL + 20, GST 4 + 2 (one property, p. 5).
    p. 14: the weekly healing test is a test of nothing: TB 0, GST 4."""
    levels = {"willpower": 3}
    psychosis = plan_test(levels, ["willpower"], constant=20, threshold=25)
    assert (psychosis.test_base, psychosis.gst, psychosis.threshold) == (23, 6, 25)
    assert plan_test(levels, ["willpower"], constant=-2).test_base == 1
    healing = plan_test(levels, [])
    assert (healing.test_base, healing.gst, healing.threshold) == (0, 4, 4)
    assert plan_test(levels, [], constant=20).gst == 4
    with pytest.raises(RulesError):
        plan_test(levels, ["willpower"], constant="20")
