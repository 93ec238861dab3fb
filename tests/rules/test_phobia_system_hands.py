"""Phobia's bare dice hands through the rule-system interface (rules.system): the range
and exact mean before the roll, the roll, and the log's copy read back strictly."""

import random
from fractions import Fraction

import pytest

from rules import PHOBIA, RulesError, get_system
from rules.phobia.dice import ObDice, distribution


@pytest.mark.parametrize(
    ("text", "notation", "low", "high", "mean"),
    [
        ("Ob1T6", "Ob1T6", 1, None, Fraction(15, 4)),  # line 26: mean 3.75
        ("ObT6", "Ob1T6", 1, None, Fraction(15, 4)),  # "ObT6" is one die (line 812)
        ("ob0t6", "Ob0T6", 0, 0, Fraction(0)),
        ("1T10", "1T10", 1, 10, Fraction(11, 2)),  # lines 833, 946
        ("2T6", "2T6", 2, 12, Fraction(7)),  # Lugn's 2T6, line 231
        ("(1T6/2)-1", "(1T6/2)-1", -1, 2, Fraction(1, 2)),  # lines 920, 924; halves down
        ("1T6−1", "1T6-1", 0, 5, Fraction(5, 2)),  # line 935
    ],
)
def test_a_hands_range_and_exact_mean(text, notation, low, high, mean):
    plan = PHOBIA.plan_hand(text)
    assert (plan.notation, plan.low, plan.high, plan.mean) == (notation, low, high, mean)


def test_the_open_ended_mean_is_the_distributions():
    """3.75 a die (line 26), checked against the exact distribution's mass up to 200."""
    spread = distribution(ObDice(2), 200)
    assert float(sum(t * p for t, p in spread.items())) == pytest.approx(7.5, abs=1e-9)
    assert PHOBIA.plan_hand("Ob2T6").mean == Fraction(15, 2)


@pytest.mark.parametrize("text", ["Ob4T6", "1T10", "(1T6/2)-1", "2T6"])
def test_a_rolled_hand_comes_back_from_the_log(text):
    rng = random.Random(text)
    for _ in range(50):
        result = PHOBIA.roll_hand(PHOBIA.plan_hand(text), rng)
        assert PHOBIA.hand_of(PHOBIA.stored_hand(result)) == result
        plan = result.plan
        assert plan.low <= result.total
        assert plan.high is None or result.total <= plan.high


def test_an_open_ended_hand_keeps_its_first_roll_apart():
    """Lines 12-17: 6 and 2, the six replaced by 3 and 4: total 9."""
    faces = iter([6, 2, 3, 4])

    class Scripted:
        def randint(self, a, b):
            return next(faces)

    result = PHOBIA.roll_hand(PHOBIA.plan_hand("Ob2T6"), Scripted())
    assert (result.first, result.dice, result.total) == ((6, 2), (6, 2, 3, 4), 9)
    assert result.marks["counted"] == [2, 3, 4]


@pytest.mark.parametrize(
    "stored",
    [
        {"notation": "1T10", "first": [11], "total": 11},  # no face 11 on a T10
        {"notation": "1T10", "first": [3], "total": 4},  # the dice do not make the total
        {"notation": "2T6", "first": [3], "total": 3},  # one die short
        {"notation": "Ob1T6", "first": [6], "rerolls": [], "total": 0},  # a six unreplaced
        {"notation": "Ob9", "first": [], "total": 0},
        {"first": [1], "total": 1},
    ],
)
def test_a_broken_log_entry_is_refused(stored):
    with pytest.raises(RulesError):
        PHOBIA.hand_of(stored)


@pytest.mark.parametrize(
    ("text", "code"),
    [("2B2T", "unrecognised"), ("Ob21T6", "too_many_dice"), ("1T10+100", "modifier_too_large"),
     ("1" * 21, "too_long"), ("0T10", "too_many_dice")],
)
def test_what_is_no_hand_says_why(text, code):
    with pytest.raises(RulesError) as raised:
        PHOBIA.plan_hand(text)
    assert raised.value.code == code


def test_aoristos_hands_stay_the_tables_own():
    with pytest.raises(RulesError):
        get_system("aoristos").plan_hand("2B")
