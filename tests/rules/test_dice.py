"""Aoristos dice hands (p. 4): notation, normalisation, counted dice, exact odds."""

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError
from rules.aoristos import dice as dice_module
from rules.aoristos.dice import (
    DiceError,
    Hand,
    Purpose,
    Roll,
    choose_counted,
    distribution,
    p_at_least,
    parse_hand,
    roll,
)

# Every normalised hand without a modifier: B 1..6 plus 0..6-B free or forced dice.
ALL_HANDS = (
    [Hand.of(b) for b in range(1, 7)]
    + [Hand.of(b, free=n) for b in range(1, 7) for n in range(1, 7 - b)]
    + [Hand.of(b, forced=n) for b in range(1, 7) for n in range(1, 7 - b)]
)

hands = st.builds(
    Hand.of,
    st.integers(-2, 9),
    st.integers(0, 9),
    st.integers(0, 9),
    st.integers(-50, 50),
)
purposes = st.sampled_from(Purpose)


def brute_force(hand, purpose):
    """Distribution by rolling every one of the 6**n ordered outcomes through
    choose_counted (independent of the multiset enumeration in the code)."""
    counts = Counter(
        sum(choose_counted(hand, faces, purpose)) + hand.modifier
        for faces in product(range(1, 7), repeat=hand.dice_count)
    )
    total = 6**hand.dice_count
    return {value: Fraction(n, total) for value, n in sorted(counts.items())}


# --- notation ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "formatted"),
    [
        ("2B2T+1", (2, 0, 2, 1), "2B2T+1"),
        ("1B1F", (1, 1, 0, 0), "1B1F"),
        ("3B-2", (3, 0, 0, -2), "3B-2"),
        ("1B", (1, 0, 0, 0), "1B"),
        ("1B1T", (1, 0, 1, 0), "1B1T"),
        # case, surrounding whitespace and spaces around the modifier's sign
        ("2b2t+1", (2, 0, 2, 1), "2B2T+1"),
        ("  2B2T + 1 ", (2, 0, 2, 1), "2B2T+1"),
        ("3B -  2", (3, 0, 0, -2), "3B-2"),
        ("3B+0", (3, 0, 0, 0), "3B"),
        ("1B1F+999", (1, 1, 0, 999), "1B1F+999"),
        ("1B1F-999", (1, 1, 0, -999), "1B1F-999"),
        ("01B", (1, 0, 0, 0), "1B"),
        # normalisation (p. 4): at least 1B, at most 6 dice, F and T cancel
        ("8B", (6, 0, 0, 0), "6B"),
        ("99B", (6, 0, 0, 0), "6B"),
        ("0B1T", (1, 0, 1, 0), "1B1T"),
        ("1B2F1T", (1, 1, 0, 0), "1B1F"),
        ("1B1T2F", (1, 1, 0, 0), "1B1F"),
        ("1B1F1T", (1, 0, 0, 0), "1B"),
        ("1B1F6T", (1, 0, 5, 0), "1B5T"),
        ("2B9F", (2, 4, 0, 0), "2B4F"),
        ("6B3T-1", (6, 0, 0, -1), "6B-1"),
    ],
)
def test_parse_hand(text, expected, formatted):
    """p. 4: hands are nB plus mF or mT plus a modifier, e.g. 2B+1, 2B2T, 1B1F."""
    hand = parse_hand(text)
    assert (hand.base, hand.free, hand.forced, hand.modifier) == expected
    assert str(hand) == formatted


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "x",
        "B",
        "2",
        "2B2",
        "2BT",
        "2B2X",
        "2B+",
        "2B++1",
        "2B+-1",
        "+2B",
        "-1B",
        "2.5B",
        "2B+1.5",
        "2 B",
        "2B 2T",
        "2B2T1",
        "2B1F1F",
        "2B1T1T",
        "2B1T1F1T",
        "2d6",
        "2B+1+1",
        "B2",
        "٣B",
        "2B+x",
    ],
)
def test_parse_hand_rejects_garbage(text):
    with pytest.raises(DiceError, match="unrecognised dice hand"):
        parse_hand(text)


def test_parse_hand_error_message_says_what_is_expected():
    with pytest.raises(DiceError) as info:
        parse_hand("x")
    assert str(info.value) == "unrecognised dice hand 'x'; expected e.g. 2B2T+1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("123B", "at most 2 digits"),
        ("1B100T", "at most 2 digits"),
        ("1B100F", "at most 2 digits"),
        ("1B+1000", "too large"),
        ("1B-1000", "too large"),
        ("1B" + " " * 39, "too long"),
        ("1" * 41, "too long"),
    ],
)
def test_parse_hand_bounds_its_input(text, message):
    with pytest.raises(DiceError, match=message):
        parse_hand(text)


def test_parse_hand_accepts_exactly_40_characters():
    assert parse_hand("1B" + " " * 38) == Hand.of(1)


@pytest.mark.parametrize("value", [None, 2, b"2B", ["2B"]])
def test_parse_hand_rejects_non_text(value):
    with pytest.raises(DiceError):
        parse_hand(value)


def test_dice_error_is_a_rules_error_and_a_value_error():
    assert issubclass(DiceError, RulesError)
    assert issubclass(DiceError, ValueError)


# --- normalisation -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ((2, 0, 2), (2, 0, 2)),
        ((0, 0, 0), (1, 0, 0)),  # p. 4: "Man har alltid minst 1B"
        ((-3, 1, 0), (1, 1, 0)),
        ((7, 0, 0), (6, 0, 0)),  # p. 4: never more than 6 dice
        ((1, 1, 1), (1, 0, 0)),  # p. 4: F and T cancel one for one
        ((2, 3, 1), (2, 2, 0)),
        ((2, 1, 3), (2, 0, 2)),
        ((2, 5, 0), (2, 4, 0)),  # extra F beyond 6 - B dropped
        ((1, 0, 9), (1, 0, 5)),
        ((1, 3, 8), (1, 0, 5)),  # cancel first (8-3 = 5T), then the cap
        ((6, 2, 0), (6, 0, 0)),
        ((6, 0, 6), (6, 0, 0)),
    ],
)
def test_hand_of_normalises(raw, normalised):
    """p. 4: normalisation of a hand."""
    hand = Hand.of(*raw, modifier=3)
    assert (hand.base, hand.free, hand.forced) == normalised
    assert hand.modifier == 3


@pytest.mark.parametrize(
    "raw", [(1, -1, 0), (1, 0, -1), (True, 0, 0), (1, 1.0, 0), (1, 0, "1"), (1.5, 0, 0)]
)
def test_hand_of_rejects_negative_or_non_integer_counts(raw):
    with pytest.raises(DiceError):
        Hand.of(*raw)


def test_hand_of_rejects_non_integer_modifier():
    with pytest.raises(DiceError):
        Hand.of(1, modifier=0.5)


@pytest.mark.parametrize("fields", [(0,), (7,), (1, 1, 1), (2, 5, 0), (1, 0, 6), (1, -1, 0)])
def test_direct_construction_refuses_unnormalised_hands(fields):
    with pytest.raises(DiceError, match="not normalised"):
        Hand(*fields)


def test_free_die_cancels_forced_die_page_4_example():
    """p. 4: 1F added to 1B1T gives 1B; another 1F gives 1B1F."""
    hand = parse_hand("1B1T")
    once = hand.add(free=1)
    assert once == Hand.of(1)
    assert str(once) == "1B"
    twice = once.add(free=1)
    assert str(twice) == "1B1F"


def test_add_nerve_shock_and_modifier():
    """p. 13 via rulings: +1T per degree of nervchock; modifiers add up."""
    hand = parse_hand("2B2T+1").add(forced=1, modifier=-3)
    assert str(hand) == "2B3T-2"
    assert str(hand.add(forced=5)) == "2B4T-2"  # capped at 6 dice
    assert str(Hand.of(1).add(base=2)) == "3B"
    assert str(Hand.of(2).add(base=-5)) == "1B"


@pytest.mark.parametrize("kwargs", [{"free": -1}, {"forced": -1}, {"free": True}])
def test_add_rejects_negative_dice(kwargs):
    with pytest.raises(DiceError):
        Hand.of(1, forced=1).add(**kwargs)


@pytest.mark.parametrize(
    ("hand", "text"),
    [
        (Hand.of(2, forced=2, modifier=1), "2B2T+1"),
        (Hand.of(1, free=1), "1B1F"),
        (Hand.of(3, modifier=-2), "3B-2"),
        (Hand.of(1, modifier=0), "1B"),
        (Hand.of(4, free=2, forced=1, modifier=12), "4B1F+12"),
    ],
)
def test_hand_str(hand, text):
    """p. 4 notation: no "+0", never both F and T."""
    assert str(hand) == text


@pytest.mark.parametrize(
    ("text", "dice_count", "low", "high"),
    [
        ("2B+1", 2, 3, 13),  # p. 4: "2B+1 ger ett värde mellan 3 och 13"
        ("2B2T", 4, 2, 12),  # p. 4: 2B2T is 4 physical dice, two of them count
        ("1B1F", 2, 1, 6),
        ("3B-2", 3, 1, 16),
        ("6B", 6, 6, 36),
        ("1B5T-4", 6, -3, 2),
    ],
)
def test_dice_count_and_result_range(text, dice_count, low, high):
    hand = parse_hand(text)
    assert hand.dice_count == dice_count
    assert (hand.min_result, hand.max_result) == (low, high)
    dist = distribution(hand)
    assert (min(dist), max(dist)) == (low, high)


# --- which dice count ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "dice", "purpose", "counted"),
    [
        # p. 4: "1B1F ... Slå två sexsidiga tärningar och använd vilken du vill"
        ("1B1F", (1, 3), Purpose.TEST, (3,)),
        ("1B1F", (1, 3), Purpose.STRESS, (1,)),
        # p. 4: a forced hand always counts the lowest, whatever the purpose
        ("1B1T", (1, 3), Purpose.TEST, (1,)),
        ("1B1T", (3, 1), Purpose.STRESS, (1,)),
        # p. 4: 2B2T rolls 4 dice and counts 2 (in rolled order)
        ("2B2T", (5, 2, 6, 1), Purpose.TEST, (2, 1)),
        ("2B2T", (5, 2, 6, 1), Purpose.STRESS, (2, 1)),
        ("2B2F", (5, 2, 6, 1), Purpose.TEST, (5, 6)),
        ("2B2F", (5, 2, 6, 1), Purpose.STRESS, (2, 1)),
        # a plain hand counts every die
        ("2B", (4, 6), Purpose.TEST, (4, 6)),
        ("2B", (6, 4), Purpose.STRESS, (6, 4)),
        # ties
        ("1B2F", (6, 1, 6), Purpose.TEST, (6,)),
        ("2B1F", (3, 3, 3), Purpose.STRESS, (3, 3)),
        ("2B1T", (4, 2, 2), Purpose.TEST, (2, 2)),
        ("3B3F", (1, 6, 2, 5, 3, 4), Purpose.TEST, (6, 5, 4)),
        ("3B3F", (1, 6, 2, 5, 3, 4), Purpose.STRESS, (1, 2, 3)),
        ("1B5T", (6, 5, 4, 3, 2, 2), Purpose.TEST, (2,)),
        # purpose given as text (e.g. from a form)
        ("1B1F", (1, 3), "stress", (1,)),
    ],
)
def test_choose_counted(text, dice, purpose, counted):
    """p. 4: free hands choose (best for the purpose), forced hands take the lowest."""
    assert choose_counted(parse_hand(text), dice, purpose) == counted


@pytest.mark.parametrize(
    ("text", "dice"),
    [
        ("2B2T", (1, 2, 3)),
        ("1B", ()),
        ("1B1F", (1, 7)),
        ("1B1F", (0, 3)),
        ("1B", (True,)),
        ("1B", (2.0,)),
    ],
)
def test_choose_counted_rejects_impossible_dice(text, dice):
    with pytest.raises(DiceError):
        choose_counted(parse_hand(text), dice, Purpose.TEST)


def test_choose_counted_rejects_unknown_purpose():
    with pytest.raises(DiceError, match="purpose"):
        choose_counted(parse_hand("1B1F"), (1, 3), "attack")


# --- rolling -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "script", "purpose", "counted", "result"),
    [
        ("1B1F", (1, 3), Purpose.TEST, (3,), 3),  # p. 4 free hand, test: the 3
        ("1B1F", (1, 3), Purpose.STRESS, (1,), 1),  # stress: the 1
        ("2B2T", (5, 2, 6, 1), Purpose.TEST, (2, 1), 3),  # p. 4: 4 dice, 2 count
        ("2B2T+1", (5, 2, 6, 1), Purpose.TEST, (2, 1), 4),
        ("2B+1", (6, 6), Purpose.TEST, (6, 6), 13),  # p. 4: max of 2B+1 is 13
        ("3B-2", (1, 1, 1), Purpose.TEST, (1, 1, 1), 1),
    ],
)
def test_roll_with_scripted_dice(scripted, text, script, purpose, counted, result):
    rng = scripted(*script)
    hand = parse_hand(text)
    rolled = roll(hand, rng, purpose)
    assert rolled == Roll(hand=hand, dice=script, counted=counted, result=result)
    assert rng.calls == [(1, 6)] * len(script)
    assert rng.queue == []


def test_roll_uses_system_random_by_default(monkeypatch, scripted):
    rng = scripted(2, 5)
    monkeypatch.setattr(dice_module.secrets, "SystemRandom", lambda: rng)
    assert roll(parse_hand("1B1T")).dice == (2, 5)
    assert rng.calls == [(1, 6), (1, 6)]


def test_roll_default_purpose_is_test(scripted):
    assert roll(parse_hand("1B1F"), scripted(1, 3)).result == 3


def test_roll_rejects_dice_outside_1_to_6():
    class Broken:
        def randint(self, a, b):
            return 7

    with pytest.raises(DiceError):
        roll(parse_hand("1B"), Broken())


def test_fair_dice_are_what_randint_gives():
    """`roll` draws a `random.Random`'s dice straight from its bits: the same dice, in the
    same order, as `randint(1, 6)` (else stored fights and seeded simulations change)."""
    fast, slow = random.Random(29), random.Random(29)
    for count in (1, 2, 6, 1000):
        assert dice_module.fair_dice(fast, count) == tuple(slow.randint(1, 6) for _ in range(count))
    assert fast.random() == slow.random()
    rolled, same = roll(parse_hand("2B2T"), random.Random(3)), random.Random(3)
    assert rolled.dice == tuple(same.randint(1, 6) for _ in range(4))


# --- exact probabilities ---------------------------------------------------------


def test_1b1t_distribution_by_hand():
    """p. 5 test hand 1B1T = the lower of two dice: P(k) = (13 - 2k)/36."""
    dist = distribution(parse_hand("1B1T"))
    assert dist[1] == Fraction(11, 36)
    assert dist[6] == Fraction(1, 36)
    assert dist == {k: Fraction(13 - 2 * k, 36) for k in range(1, 7)}


def test_1b1f_distribution_by_hand():
    """p. 4 free hand for a test = the higher of two dice: P(k) = (2k - 1)/36."""
    dist = distribution(parse_hand("1B1F"))
    assert dist[6] == Fraction(11, 36)
    assert dist == {k: Fraction(2 * k - 1, 36) for k in range(1, 7)}


def test_free_hand_for_stress_counts_like_a_forced_hand():
    """Rulings p. 4: stress counts the lowest dice of a free hand."""
    assert distribution(parse_hand("1B1F"), Purpose.STRESS) == distribution(parse_hand("1B1T"))
    assert distribution(parse_hand("2B3F"), "stress") == distribution(parse_hand("2B3T"))


def test_forced_and_plain_hands_ignore_the_purpose():
    for text in ("2B2T", "3B", "1B5T+2"):
        hand = parse_hand(text)
        assert distribution(hand, Purpose.TEST) == distribution(hand, Purpose.STRESS)


def test_2b_plus_1_distribution_by_hand():
    """p. 4: 2B+1 lies between 3 and 13; two dice form a triangle."""
    assert distribution(parse_hand("2B+1")) == {
        s + 1: Fraction(6 - abs(s - 7), 36) for s in range(2, 13)
    }


def test_six_dice_extremes():
    one_in = Fraction(1, 6**6)
    plain = distribution(parse_hand("6B"))
    assert plain[6] == plain[36] == one_in
    assert len(plain) == 31
    # 1B5T: the lowest of six dice; at least 2 only if all six are at least 2.
    assert p_at_least(parse_hand("1B5T"), 2) == Fraction(5, 6) ** 6
    assert distribution(parse_hand("1B5T"))[6] == one_in
    assert distribution(parse_hand("1B5F"))[1] == one_in


@pytest.mark.parametrize(
    ("text", "target", "expected"),
    [
        ("1B1T", 3, Fraction(4, 6) ** 2),
        ("1B1F", 3, 1 - Fraction(2, 6) ** 2),
        ("1B", 5, Fraction(2, 6)),
        ("1B", 1, Fraction(1)),
        ("1B", -10, Fraction(1)),
        ("1B", 7, Fraction(0)),
        ("2B+1", 13, Fraction(1, 36)),
        ("2B+1", 14, Fraction(0)),
    ],
)
def test_p_at_least(text, target, expected):
    assert p_at_least(parse_hand(text), target) == expected


def test_distribution_returns_a_fresh_dict():
    hand = parse_hand("2B2T")
    first = distribution(hand)
    first[2] = Fraction(1)
    first.clear()
    assert sum(distribution(hand).values()) == 1


@pytest.mark.parametrize("hand", [h for h in ALL_HANDS if h.dice_count <= 5], ids=str)
@pytest.mark.parametrize("purpose", list(Purpose))
def test_distribution_matches_brute_force(hand, purpose):
    """Every hand of up to 5 dice, both purposes, with a modifier: the multiset
    enumeration equals rolling all 6**n outcomes through choose_counted."""
    hand = hand.add(modifier=hand.base - 3)
    assert distribution(hand, purpose) == brute_force(hand, purpose)


@pytest.mark.parametrize("text", ["1B5T", "3B3F", "2B4F", "6B"])
def test_six_dice_distribution_matches_brute_force(text):
    hand = parse_hand(text)
    counts = Counter()
    for faces in product(range(1, 7), repeat=6):
        ordered = sorted(faces)
        counted = ordered[-hand.base :] if hand.free else ordered[: hand.base]
        counts[sum(counted)] += 1
    assert distribution(hand) == {k: Fraction(n, 6**6) for k, n in sorted(counts.items())}


def test_all_hands_cover_every_normalised_hand():
    """Guard for the exhaustive test above: 6 plain + 2 × 15 free/forced hands."""
    assert len(set(ALL_HANDS)) == 36


# --- properties ----------------------------------------------------------------------


@given(hands, purposes)
def test_distribution_sums_to_exactly_one(hand, purpose):
    assert sum(distribution(hand, purpose).values()) == 1


@given(hands, purposes)
def test_distribution_is_sorted_nonzero_and_within_the_range(hand, purpose):
    dist = distribution(hand, purpose)
    assert list(dist) == sorted(dist)
    assert all(p > 0 for p in dist.values())
    assert min(dist) == hand.min_result
    assert max(dist) == hand.max_result


@given(st.integers(-2, 9), st.integers(0, 12), st.integers(0, 12), st.integers(-9, 9))
def test_free_and_forced_cancel(base, free, forced, modifier):
    """p. 4: F and T cancel one for one."""
    both = min(free, forced)
    assert Hand.of(base, free, forced, modifier) == Hand.of(
        base, free - both, forced - both, modifier
    )


@given(st.integers(-5, 20), st.integers(0, 20), st.integers(0, 20))
def test_normalised_hand_invariants(base, free, forced):
    """p. 4: at least 1B, never more than 6 dice, never both F and T."""
    hand = Hand.of(base, free, forced)
    assert 1 <= hand.base <= 6
    assert hand.dice_count <= 6
    assert not (hand.free and hand.forced)
    # Net F or T is kept unless the cap drops it.
    net = free - forced
    assert hand.free - hand.forced == max(min(net, 6 - hand.base), -(6 - hand.base))


@given(hands)
def test_parse_str_round_trip(hand):
    assert parse_hand(str(hand)) == hand
    assert parse_hand(str(hand).lower()) == hand


@given(hands, purposes, st.lists(st.integers(1, 6), min_size=6, max_size=6))
def test_rolled_result_is_in_the_support(scripted, hand, purpose, faces):
    rolled = roll(hand, scripted(*faces), purpose)
    assert rolled.dice == tuple(faces[: hand.dice_count])
    assert len(rolled.counted) == hand.base
    assert not Counter(rolled.counted) - Counter(rolled.dice)  # counted ⊆ dice
    assert rolled.result == sum(rolled.counted) + hand.modifier
    assert rolled.result in distribution(hand, purpose)


@given(
    st.integers(1, 5),
    st.integers(1, 5),
    st.lists(st.integers(1, 6), min_size=6, max_size=6),
)
def test_free_dice_help_tests_and_hurt_stress(base, free, faces):
    """Rulings p. 4: the server picks the best dice for the purpose, so on the same dice
    a test never counts less, and stress never more, than the plain B dice would."""
    hand = Hand.of(base, free=free)
    faces = tuple(faces[: hand.dice_count])
    plain = sum(faces[: hand.base])
    assert sum(choose_counted(hand, faces, Purpose.TEST)) >= plain
    assert sum(choose_counted(hand, faces, Purpose.STRESS)) <= plain


@given(hands, purposes, st.integers(-60, 60))
def test_p_at_least_is_the_tail_of_the_distribution(hand, purpose, target):
    dist = distribution(hand, purpose)
    expected = sum((p for value, p in dist.items() if value >= target), Fraction(0))
    assert p_at_least(hand, target, purpose) == expected
    assert p_at_least(hand, target, purpose) >= p_at_least(hand, target + 1, purpose)


@pytest.mark.parametrize(
    ("text", "code", "params"),
    [
        ("2X", "unrecognised", {"text": "2X"}),
        ("2B1T1T", "given_twice", {"text": "2B1T1T", "kind": "T"}),
        ("100B", "too_many_dice", {"text": "100B"}),
        ("1B+1000", "modifier_too_large", {"text": "1B+1000", "limit": 999}),
        ("1B" + " " * 40, "too_long", {"limit": 40}),
    ],
)
def test_a_bad_hand_names_what_is_wrong_for_a_translator(text, code, params):
    """The message stays English; code and params let an interface say it in Swedish."""
    with pytest.raises(dice_module.DiceError) as raised:
        dice_module.parse_hand(text)
    assert (raised.value.code, raised.value.params) == (code, params)
