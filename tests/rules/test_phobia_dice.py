"""Phobia dice (phobia-utdrag.txt lines 3-26): ObnT6 notation, open-ended rolls, the plain
dice the text names, exact odds."""

import math
import random
from fractions import Fraction
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError
from rules.phobia import dice as dice_module
from rules.phobia.dice import (
    MAX_EXACT_TOTAL,
    MAX_ROLLED_DICE,
    DiceError,
    ObDice,
    ObRoll,
    PlainDice,
    PlainRoll,
    distribution,
    first_roll_distribution,
    p_at_most,
    p_rerolls_at_most,
    parse_dice,
    plain_distribution,
    roll,
)


@cache
def p_total(pending: int, total: int) -> Fraction:
    """P(``pending`` open-ended dice add up to exactly ``total``), by following the dice
    one at a time (a six leaves one more die pending): independent of the module's
    generating-function tables."""
    if pending == 0:
        return Fraction(int(total == 0))
    if pending > total:  # every die still to count adds at least 1
        return Fraction(0)
    faces = sum(p_total(pending - 1, total - face) for face in range(1, 6))
    return (faces + p_total(pending + 1, total)) / 6


# --- notation ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "formatted"),
    [
        ("Ob3T6", ObDice(3), "Ob3T6"),  # line 9-10: "Ob2T6" och "Ob3T6"
        ("Ob2T6", ObDice(2), "Ob2T6"),
        ("ob3t6", ObDice(3), "Ob3T6"),
        ("  OB5T6 ", ObDice(5), "Ob5T6"),
        ("Ob0T6", ObDice(0), "Ob0T6"),
        ("Ob20T6", ObDice(20), "Ob20T6"),
        ("Ob03T6", ObDice(3), "Ob3T6"),
        ("ObT6", ObDice(1), "Ob1T6"),  # line 812: "ett antal ObT6:or", one die each
        ("1T10", PlainDice(1, 10), "1T10"),  # lines 246, 833, 946
        ("1T6", PlainDice(1, 6), "1T6"),
        ("2T6", PlainDice(2, 6), "2T6"),  # line 231: Lugn (PSY+VIL)/5 + 2T6
        ("1T6-1", PlainDice(1, 6, modifier=-1), "1T6-1"),
        ("1T6–1", PlainDice(1, 6, modifier=-1), "1T6-1"),  # line 935 writes an en dash
        ("(1T6/2)-1", PlainDice(1, 6, halved=True, modifier=-1), "(1T6/2)-1"),
        ("(1T6/2)–1", PlainDice(1, 6, halved=True, modifier=-1), "(1T6/2)-1"),  # line 920
        ("( 1t6 / 2 ) − 1", PlainDice(1, 6, halved=True, modifier=-1), "(1T6/2)-1"),
        ("T6", PlainDice(1, 6), "1T6"),
        ("2T6 + 3", PlainDice(2, 6, modifier=3), "2T6+3"),
        ("1T10+0", PlainDice(1, 10), "1T10"),
        ("20T10-99", PlainDice(20, 10, modifier=-99), "20T10-99"),
    ],
)
def test_parse_dice(text, expected, formatted):
    dice = parse_dice(text)
    assert dice == expected
    assert str(dice) == formatted
    assert parse_dice(formatted) == dice


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "Ob",
        "ObT",
        "Ob3",
        "Ob3T",
        "Ob3T10",  # line 6-7: open-ended rolls are always six-sided
        "Ob3T6+1",
        "Ob 3T6",
        "Ob-1T6",
        "Ob3.0T6",
        "Ob٣T6",
        "٣T6",
        "1T8",
        "1T100",
        "1T6/2-1",  # halving is written in parentheses, as the text does
        "(1T6)/2",
        "(1T6/3)-1",
        "1T6+-1",
        "1T6--1",
        "1T6-",
        "1T6 1",
        "2B2T",  # an Aoristos hand
        "3d6",
        "+Ob1T6",  # a modifier, not dice (modify_difficulty takes those as numbers)
    ],
)
def test_parse_dice_rejects_garbage(text):
    with pytest.raises(DiceError, match="unrecognised dice") as info:
        parse_dice(text)
    assert info.value.code == "unrecognised"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Ob21T6", "too_many_dice"),
        ("Ob99T6", "too_many_dice"),
        ("21T6", "too_many_dice"),
        ("0T6", "too_many_dice"),
        ("(0T6/2)", "too_many_dice"),
        ("1T6+100", "modifier_too_large"),
        ("1T6-100", "modifier_too_large"),
        ("Ob3T6" + " " * 16, "too_long"),
        ("1" * 21, "too_long"),
    ],
)
def test_parse_dice_bounds_its_input(text, code):
    with pytest.raises(DiceError) as info:
        parse_dice(text)
    assert info.value.code == code


def test_parse_dice_reports_its_limits():
    with pytest.raises(DiceError) as info:
        parse_dice("Ob21T6")
    assert info.value.params == {"text": "Ob21T6", "limit": 20}


def test_parse_dice_accepts_exactly_20_characters():
    assert parse_dice("Ob3T6" + " " * 15) == ObDice(3)


@pytest.mark.parametrize("value", [None, 3, b"Ob3T6", ["Ob3T6"]])
def test_parse_dice_rejects_non_text(value):
    with pytest.raises(DiceError) as info:
        parse_dice(value)
    assert info.value.code == "not_text"


def test_dice_error_is_a_rules_error():
    assert issubclass(DiceError, RulesError)


@pytest.mark.parametrize("count", [-1, 21, True, 1.0, "3"])
def test_ob_dice_refuses_bad_counts(count):
    with pytest.raises(DiceError):
        ObDice(count)


@pytest.mark.parametrize(
    "fields",
    [(0, 6), (21, 6), (1, 8), (1, 6, 1), (1, 6, False, 100), (1, 6, False, 1.0), (True, 6)],
)
def test_plain_dice_refuses_bad_fields(fields):
    with pytest.raises(DiceError):
        PlainDice(*fields)


@given(st.text(max_size=30))
def test_parse_dice_gives_dice_or_a_dice_error(text):
    """Any text: dice that print back to themselves, or a DiceError, never a crash."""
    try:
        dice = parse_dice(text)
    except DiceError as error:
        code = error.code
    else:
        code = None
        assert parse_dice(str(dice)) == dice
    assert code in {None, "unrecognised", "too_long", "too_many_dice", "modifier_too_large"}


@given(st.from_regex(r"\s*[oO][bB][0-9]{0,3}[tT]6\s*", fullmatch=True))
def test_parse_dice_reads_ob_notation(text):
    try:
        dice = parse_dice(text)
    except DiceError as error:
        code = error.code
    else:
        code = None
        assert isinstance(dice, ObDice)
        assert str(dice).lower() == "ob" + str(dice.count) + "t6"
    assert code in {None, "too_long", "too_many_dice"}


# --- plain dice ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1T10", {k: Fraction(1, 10) for k in range(1, 11)}),
        ("1T6-1", {k: Fraction(1, 6) for k in range(6)}),  # line 935: lose 0-5 teeth
        ("2T6", {k: Fraction(6 - abs(k - 7), 36) for k in range(2, 13)}),
        # lines 920-929: floor(1T6/2) - 1 is -1, 0, 0, 1, 1, 2; the text counts results at
        # zero as losing nothing, and the caller floors the loss at 0 there.
        (
            "(1T6/2)-1",
            {-1: Fraction(1, 6), 0: Fraction(2, 6), 1: Fraction(2, 6), 2: Fraction(1, 6)},
        ),
    ],
)
def test_plain_distribution(text, expected):
    dice = parse_dice(text)
    assert plain_distribution(dice) == expected
    assert (dice.min_result, dice.max_result) == (min(expected), max(expected))


@pytest.mark.parametrize(
    ("text", "script", "result"),
    [
        ("1T10", (7,), 7),
        ("2T6", (6, 5), 11),
        ("1T6-1", (1,), 0),
        ("(1T6/2)-1", (1,), -1),
        ("(1T6/2)-1", (5,), 1),  # 5/2 rounds down to 2
        ("(1T6/2)-1", (6,), 2),
    ],
)
def test_roll_plain_dice(scripted, text, script, result):
    dice = parse_dice(text)
    rng = scripted(*script)
    assert roll(dice, rng) == PlainRoll(dice, script, result)
    assert rng.calls == [(1, dice.sides)] * dice.count


# --- rolling open-ended dice ---------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "script", "first", "rerolls", "total"),
    [
        (3, (2, 3, 5), (2, 3, 5), (), 10),
        # lines 461-466: 1, 1 and 6; the six is replaced by 3 and 5: 1+1+3+5 = 10
        (3, (1, 1, 6, 3, 5), (1, 1, 6), (3, 5), 10),
        # lines 504-507: 6, 6, 4 and 1; the sixes become 5, 3, 2 and 1: total 16
        (4, (6, 6, 4, 1, 5, 3, 2, 1), (6, 6, 4, 1), (5, 3, 2, 1), 16),
        # line 19-20: the new dice are open-ended too
        (1, (6, 6, 2, 3, 4), (6,), (6, 2, 3, 4), 9),
        (1, (6, 6, 6, 1, 1, 1, 1), (6,), (6, 6, 1, 1, 1, 1), 4),
        (2, (6, 5, 6, 1, 2, 2), (6, 5), (6, 1, 2, 2), 10),
        (0, (), (), (), 0),
    ],
)
def test_roll_ob_with_scripted_dice(scripted, count, script, first, rerolls, total):
    """Lines 12-17: every 6 is removed and replaced by two new dice, rolled at once."""
    rng = scripted(*script)
    rolled = roll(ObDice(count), rng)
    assert rolled == ObRoll(ObDice(count), first, rerolls, total)
    assert rolled.total == sum(rolled.counted) == total
    assert rng.calls == [(1, 6)] * len(script)
    assert rng.queue == []


def test_roll_ob_counted_dice_leave_out_the_replaced_sixes(scripted):
    rolled = roll(ObDice(3), scripted(1, 1, 6, 6, 5, 4, 5))
    assert rolled.counted == (1, 1, 5, 4, 5)
    assert rolled.sixes_first == 1


def test_roll_uses_system_random_by_default(monkeypatch, scripted):
    rng = scripted(2, 5, 4)
    monkeypatch.setattr(dice_module.secrets, "SystemRandom", lambda: rng)
    assert roll(ObDice(3)).first == (2, 5, 4)


@pytest.mark.parametrize("face", [0, 7, True])
def test_roll_rejects_impossible_dice(face):
    class Broken:
        def randint(self, a, b):
            return face

    with pytest.raises(DiceError):
        roll(ObDice(1), Broken())


def test_roll_rejects_what_is_not_dice():
    with pytest.raises(DiceError, match="parse it"):
        roll("Ob3T6")


class AlwaysSix:
    def __init__(self):
        self.calls = 0

    def randint(self, a, b):
        self.calls += 1
        return 6


@pytest.mark.parametrize(("count", "total"), [(1, 6 * 500), (20, 6 * 510)])
def test_roll_stops_at_the_dice_cap(count, total):
    """A source that only gives sixes stops after MAX_ROLLED_DICE dice; the sixes left
    unreplaced count 6 each (1 + 2·499 = 999 dice: 500 sixes unreplaced; 20 + 2·490 =
    1000 dice: 510 unreplaced)."""
    rng = AlwaysSix()
    rolled = roll(ObDice(count), rng)
    assert rolled.capped
    assert rng.calls == len(rolled.first) + len(rolled.rerolls) <= MAX_ROLLED_DICE
    assert rng.calls + 2 > MAX_ROLLED_DICE
    assert rolled.total == sum(rolled.counted) == total


@given(st.integers(0, 20), st.randoms(use_true_random=False))
def test_any_roll_totals_its_counted_dice(count, rng):
    rolled = roll(ObDice(count), rng)
    assert rolled.total == sum(rolled.counted)
    assert 6 not in rolled.counted
    assert len(rolled.rerolls) == 2 * (rolled.first.count(6) + rolled.rerolls.count(6))
    assert ObRoll.of(rolled.first, rolled.rerolls) == rolled


# --- dice typed in from a real table -------------------------------------------------


def test_roll_of_physical_dice():
    """Lines 461-466 typed in: first roll 1, 1, 6; the six rerolled as 3 and 5."""
    rolled = ObRoll.of((1, 1, 6), (3, 5))
    assert (rolled.dice, rolled.total, rolled.capped) == (ObDice(3), 10, False)


@pytest.mark.parametrize(
    ("first", "rerolls"),
    [
        ((1, 1, 6), ()),  # the six must be rerolled
        ((1, 1, 6), (3,)),
        ((1, 1, 6), (3, 5, 2)),
        ((1, 1, 1), (3, 5)),
        ((6, 6), (1, 1)),
        ((1, 7), ()),
        ((0,), ()),
        ((1,) * 21, ()),
    ],
)
def test_roll_of_refuses_dice_that_do_not_fit(first, rerolls):
    with pytest.raises(DiceError):
        ObRoll.of(first, rerolls)


@pytest.mark.parametrize(
    "fields",
    [
        (ObDice(3), (1, 1, 6), (3, 5), 11),  # wrong total
        (ObDice(2), (1, 1, 6), (3, 5), 10),  # wrong count
        (ObDice(1), (6,), (), 6, True),  # capped far below the cap
        (ObDice(1), [2], (), 2),  # not a tuple
    ],
)
def test_ob_roll_refuses_inconsistent_fields(fields):
    with pytest.raises(DiceError):
        ObRoll(*fields)


# --- exact probabilities ---------------------------------------------------------


def test_one_open_die_by_hand():
    """P(1) = 1/6; P(2) = 1/6 + (1/6)·P(1)² (a six, then 1 and 1); P(3) likewise."""
    dist = distribution(ObDice(1), 3)
    assert dist == {1: Fraction(1, 6), 2: Fraction(37, 216), 3: Fraction(685, 3888)}


@pytest.mark.parametrize("count", [0, 1, 2, 3, 5])
def test_distribution_matches_following_the_dice(count):
    assert distribution(ObDice(count), 40) == {
        t: p_total(count, t) for t in range(41) if p_total(count, t)
    }


def test_mean_of_ob1t6_is_3_75():
    """Line 26: "medelvärdet för Ob1T6 är 3,75" = 15/4. The totals never end, so the exact
    distribution up to 200 gives a partial mean that is below 15/4 by less than 1e-16
    (the tail shrinks about 1.2 times per step); the tail beyond is what is missing."""
    dist = distribution(ObDice(1), MAX_EXACT_TOTAL)
    partial = sum(t * p for t, p in dist.items())
    assert 0 < Fraction(15, 4) - partial < Fraction(1, 10**16)
    assert 0 < 1 - sum(dist.values()) < Fraction(1, 10**16)


def test_mean_of_ob3t6_is_three_times_3_75():
    dist = distribution(ObDice(3), MAX_EXACT_TOTAL)
    assert 0 < Fraction(45, 4) - sum(t * p for t, p in dist.items()) < Fraction(1, 10**12)


@pytest.mark.parametrize("count", [0, 1, 3, 10, 20])
def test_p_at_most_adds_up_the_distribution(count):
    dist = distribution(ObDice(count), 70)
    for value in (-1, 0, count, count + 5, 70):
        assert p_at_most(ObDice(count), value) == sum(
            (p for t, p in dist.items() if t <= value), Fraction(0)
        )


def test_p_at_most_small_cases():
    assert p_at_most(ObDice(0), 0) == 1
    assert p_at_most(ObDice(0), -1) == 0
    assert p_at_most(ObDice(3), 2) == 0  # every counted die adds at least 1
    assert p_at_most(ObDice(3), 3) == Fraction(1, 216)
    # A 1-5 directly, or a six whose two (open-ended) dice add up to at most 5.
    two_dice = sum(p_total(2, t) for t in range(6))
    assert p_at_most(ObDice(1), 5) == Fraction(5, 6) + Fraction(1, 6) * two_dice
    assert two_dice > Fraction(10, 36)  # 1+1+1+1 etc. after further sixes


def test_p_rerolls_at_most():
    """The two dice replacing one six add at least 2; 1+1 needs both to show 1."""
    assert p_rerolls_at_most(0, 0) == 1
    assert p_rerolls_at_most(1, 1) == 0
    assert p_rerolls_at_most(1, 2) == Fraction(1, 36)
    assert p_rerolls_at_most(3, 30) == p_at_most(ObDice(6), 30)


@pytest.mark.parametrize("count", [0, 1, 2, 4, 7])
def test_first_roll_distribution_splits_the_distribution(count):
    dice = ObDice(count)
    parts = [first_roll_distribution(dice, sixes, 45) for sixes in range(count + 1)]
    joined = {}
    for part in parts:
        for total, p in part.items():
            joined[total] = joined.get(total, 0) + p
    assert joined == distribution(dice, 45)
    # No six: the first roll is all there is, at most 5 per die.
    assert sum(parts[0].values()) == Fraction(5, 6) ** count


def test_first_roll_distribution_with_one_six_by_hand():
    """Ob2T6 with one six: the other die shows 1-5 and the six's two dice follow."""
    dist = first_roll_distribution(ObDice(2), 1, 5)
    expected = {
        t: 2 * Fraction(1, 36) * sum(p_total(2, t - other) for other in range(1, 6))
        for t in range(6)
    }
    assert dist == {t: p for t, p in expected.items() if p}
    assert first_roll_distribution(ObDice(2), 3, 5) == {}


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: p_at_most(ObDice(3), MAX_EXACT_TOTAL + 1), "value_too_large"),
        (lambda: distribution(ObDice(3), 10**9), "value_too_large"),
        (lambda: p_rerolls_at_most(21, 10), "too_many_dice"),
        (lambda: p_at_most(ObDice(3), 2.0), "not_integer"),
        (lambda: p_at_most(PlainDice(1, 6), 3), "invalid"),
        (lambda: plain_distribution(ObDice(1)), "invalid"),
    ],
)
def test_exact_odds_bound_their_work(call, code):
    with pytest.raises(DiceError) as info:
        call()
    assert info.value.code == code


def test_exact_odds_reach_200():
    assert 1 - p_at_most(ObDice(20), MAX_EXACT_TOTAL) < Fraction(1, 10**3)
    assert p_at_most(ObDice(20), MAX_EXACT_TOTAL) < 1


def test_ob2t6_totals_match_200_000_seeded_rolls():
    """The exact P(total <= c) against 200,000 rolls from a fixed seed. A share from N
    independent rolls has standard error sqrt(p(1-p)/N) (about 0.0011 at p = 1/2); 5 of
    them leave a correct implementation a 6e-7 chance per comparison of missing, and the
    fixed seed makes the test deterministic."""
    rng = random.Random(20240601)
    n = 200_000
    totals = [roll(ObDice(2), rng).total for _ in range(n)]
    for value in (3, 5, 7, 9, 12, 16):
        exact = p_at_most(ObDice(2), value)
        seen = sum(total <= value for total in totals) / n
        sigma = math.sqrt(exact * (1 - exact) / n)
        assert abs(seen - exact) <= 5 * sigma, (value, seen, float(exact))
