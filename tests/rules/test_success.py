"""Aoristos success tests (p. 5): GST, the test hand, totals, margins, opposed tests."""

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError
from rules.aoristos.dice import Hand, Purpose, choose_counted, parse_hand, roll
from rules.aoristos.success import (
    OpposedOdds,
    OpposedSide,
    TestOutcome,
    base_threshold,
    opposed,
    opposed_odds,
    opposed_side,
    opposed_test,
    p_success,
    plan_test,
    resolve_opposed,
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



# Opposed tests (p. 5): "Då lägger man ihop alla relevanta testbaser på vardera sidan och
# låter en person representera varje sida i ett motståndstest. Endast representanternas
# eventuella F och T gäller. Högst helt slag vinner. Lika slag räknas som oavgjort, och
# har normalt sett ingen effekt."

ALBERT = {"agility": 2, "alertness": 5, "wilderness": 0}
BERTIL = {"agility": 4, "alertness": 3, "wilderness": 2}
VAKTEN = {"agility": 3, "alertness": 4, "wilderness": 1}


def test_a_side_sums_the_relevant_tbs_of_everyone_on_it():
    """p. 5: each side adds up all relevant TBs: Albert's and Bertil's SIN + Vildmark,
    (5 + 0) + (3 + 2) = 10; a TB the GM gives someone without levels adds to it."""
    side = opposed_side([ALBERT, BERTIL], ["alertness", "wilderness"])
    assert (side.test_base, side.shares) == (10, (5, 5))
    assert opposed_side([ALBERT], ["alertness", "wilderness"]).test_base == 5
    assert opposed_side([ALBERT, BERTIL], ["agility"], constant=4).test_base == 2 + 4 + 4
    assert opposed_side([], [], constant=7).test_base == 7  # someone without a sheet alone


def test_only_the_representatives_f_and_t_apply():
    """p. 5: "Endast representanternas eventuella F och T gäller": the side rolls one hand,
    1B1T with its representative's F and T, however many stand on the side."""
    alone = opposed_side([ALBERT], ["agility"], free=1)
    together = opposed_side([ALBERT, BERTIL, VAKTEN], ["agility"], free=1)
    assert alone.hand == together.hand == test_hand(free=1) == parse_hand("1B")
    assert opposed_side([ALBERT, BERTIL], ["agility"], forced=2).hand == parse_hand("1B3T")
    assert opposed_side([ALBERT, BERTIL], ["agility"]).hand == parse_hand("1B1T")


def test_the_higher_total_wins_and_equal_totals_draw(scripted):
    """p. 5: "Högst helt slag vinner. Lika slag räknas som oavgjort": Albert and Bertil's
    RÖR 6 rolls 4 and 2 (the lower counts: 2), total 8; Vakten's RÖR 3 rolls 5 and 6
    (5), total 8: a draw, and nobody rolls again. Then 6 and 6 (6 + 6 = 12) beat Vakten's
    1 and 1 (3 + 1 = 4), and 1 and 3 (6 + 1 = 7) lose to 6 and 6 (3 + 6 = 9)."""
    ours = opposed_side([ALBERT, BERTIL], ["agility"])
    theirs = opposed_side([VAKTEN], ["agility"])
    draw = opposed_test(ours, theirs, scripted(4, 2, 5, 6))
    assert (draw.total_a, draw.total_b, draw.winner) == (8, 8, 0)
    assert (draw.a.counted, draw.b.counted) == ((2,), (5,))
    won = opposed_test(ours, theirs, scripted(6, 6, 1, 1))
    assert (won.total_a, won.total_b, won.winner) == (12, 4, 1)
    lost = opposed_test(ours, theirs, scripted(1, 3, 6, 6))
    assert (lost.total_a, lost.total_b, lost.winner) == (7, 9, -1)


def test_a_resolved_opposed_test_is_what_was_rolled(scripted):
    a, b = OpposedSide(3, parse_hand("1B1F")), OpposedSide(5, parse_hand("1B1T"))
    roll_a, roll_b = roll(a.hand, scripted(2, 6)), roll(b.hand, scripted(2, 6))
    outcome = resolve_opposed(a, b, roll_a, roll_b)
    assert (outcome.total_a, outcome.total_b, outcome.winner) == (3 + 6, 5 + 2, 1)
    with pytest.raises(RulesError):
        resolve_opposed(OpposedSide(True, a.hand), b, roll_a, roll_b)


def test_a_side_of_a_property_nobody_has_is_refused():
    with pytest.raises(RulesError):
        opposed_side([ALBERT], ["flying"])
    with pytest.raises(RulesError):
        opposed_side([ALBERT], ["agility"], constant="2")


def brute_force_odds(a: OpposedSide, b: OpposedSide) -> OpposedOdds:
    """Every die of both hands, in order: the dice that count as the rules choose them
    (p. 4: the lowest of a forced hand, the highest of a free one in a test)."""
    counts = {1: 0, 0: 0, -1: 0}
    outcomes_a = list(product(range(1, 7), repeat=a.hand.dice_count))
    outcomes_b = list(product(range(1, 7), repeat=b.hand.dice_count))
    for faces_a in outcomes_a:
        total_a = a.test_base + sum(choose_counted(a.hand, faces_a)) + a.hand.modifier
        for faces_b in outcomes_b:
            total_b = b.test_base + sum(choose_counted(b.hand, faces_b)) + b.hand.modifier
            counts[(total_a > total_b) - (total_a < total_b)] += 1
    n = len(outcomes_a) * len(outcomes_b)
    return OpposedOdds(Fraction(counts[1], n), Fraction(counts[0], n), Fraction(counts[-1], n))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (("1B1T", 6), ("1B1T", 6)),
        (("1B1T", 7), ("1B1T", 5)),
        (("1B", 4), ("1B2T", 5)),
        (("1B1F", 3), ("1B1T", 6)),
        (("1B2F", 0), ("1B3T", 8)),
        (("1B1T", 0), ("1B1T", 20)),  # B's worst beats A's best: certain
    ],
)
def test_the_exact_odds_are_every_pair_of_rolls_counted(a, b):
    """p. 5: the chance of each outcome, counted over every die of both hands, is what
    opposed_odds gives, exactly; the three sum to 1."""
    side_a, side_b = OpposedSide(a[1], parse_hand(a[0])), OpposedSide(b[1], parse_hand(b[0]))
    odds = opposed_odds(side_a, side_b)
    assert odds == brute_force_odds(side_a, side_b)
    assert odds.a_wins + odds.draw + odds.b_wins == 1


def test_equal_sides_are_even_and_a_draw_is_the_chance_of_equal_totals():
    """1B1T against 1B1T at the same TB: each die that counts is the lower of two, P(k) =
    (13 - 2k)/36; a draw is the sum of their squares, 286/1296; the rest is split evenly."""
    side = OpposedSide(5, test_hand())
    odds = opposed_odds(side, side)
    draw = sum(Fraction(13 - 2 * k, 36) ** 2 for k in range(1, 7))
    assert odds.draw == draw == Fraction(286, 1296)
    assert odds.a_wins == odds.b_wins == (1 - draw) / 2


@given(hands, hands, st.integers(-10, 30), st.integers(-10, 30))
def test_the_opposed_odds_mirror_and_sum_to_one(hand_a, hand_b, tb_a, tb_b):
    a, b = OpposedSide(tb_a, hand_a), OpposedSide(tb_b, hand_b)
    odds, mirrored = opposed_odds(a, b), opposed_odds(b, a)
    assert odds.a_wins + odds.draw + odds.b_wins == 1
    assert (mirrored.a_wins, mirrored.draw, mirrored.b_wins) == (odds.b_wins, odds.draw,
                                                                 odds.a_wins)
    assert opposed_odds(OpposedSide(tb_a + 1, hand_a), b).a_wins >= odds.a_wins


def test_the_odds_count_what_the_roll_decides(scripted):
    """The odds and the roll decide alike: over every pair of dice of 1B1F against 1B1T,
    the share that opposed_test calls a win, a draw or a loss is the exact odds."""
    a, b = OpposedSide(4, parse_hand("1B1F")), OpposedSide(5, parse_hand("1B1T"))
    counts = {1: 0, 0: 0, -1: 0}
    faces = list(product(range(1, 7), repeat=2))
    for faces_a in faces:
        for faces_b in faces:
            counts[opposed_test(a, b, scripted(*faces_a, *faces_b)).winner] += 1
    n = len(faces) ** 2
    assert opposed_odds(a, b) == OpposedOdds(
        Fraction(counts[1], n), Fraction(counts[0], n), Fraction(counts[-1], n)
    )
