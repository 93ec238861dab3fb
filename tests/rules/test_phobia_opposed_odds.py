"""Exact odds of Phobia opposed tests (phobia-utdrag.txt lines 556-609): the distribution
of the key (rank, effect) that opposed() compares, one exchange of an opposed test, and a
later roll against a remembered one."""

import math
import random
import time
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from rules import PHOBIA, RulesError
from rules.phobia.dice import ObDice, ObRoll, distribution, p_at_most, p_rerolls_at_most, roll
from rules.phobia.success import (
    MAX_EXACT_CHANCE,
    delayed_odds,
    delayed_opposed,
    fumble_risk,
    odds,
    opposed,
    opposed_odds,
    outcome_distribution,
    perfect_pattern,
    resolve_test,
)
from rules.phobia.system import MAX_OPPOSED_ROUNDS


def outcome(chance, first, rerolls=()):
    return resolve_test(chance, ObRoll.of(first, rerolls))


def key_of(result):
    """The key opposed() compares: (2 perfect / 0 fumble / 1 otherwise, effect)."""
    return (2 if result.perfect else 0 if result.fumble else 1, result.effect)


def brute_force_keys(n, chance):
    """The keys of every total up to 200, by going through every first roll of n dice and
    ranking it as resolve_test does (lines 430-440, 481-496); the rerolls of its sixes
    enter through distribution(). Also P(two or more sixes and a total above 200)."""
    keys = Counter()
    many_sixes_within_table = Fraction(0)
    classes = Counter()
    for first in product(range(1, 7), repeat=n):
        sixes = first.count(6)
        others = sum(d for d in first if d != 6)
        classes[(sixes, others, perfect_pattern(first), fumble_risk(first))] += 1
    for (sixes, others, pattern, risk), count in classes.items():
        p_first = Fraction(count, 6**n)
        rerolls = distribution(ObDice(2 * sixes), MAX_EXACT_CHANCE - others)
        for rerolled, p in rerolls.items():
            total = others + rerolled
            within = total <= chance
            rank = 2 if pattern and within else 0 if risk and not within else 1
            keys[(rank, chance - total)] += p_first * p
            if risk:
                many_sixes_within_table += p_first * p
    p_many_sixes = 1 - Fraction(5**n + n * 5 ** (n - 1) if n else 6**n, 6**n)
    return dict(keys), p_many_sixes - many_sixes_within_table


# --- the distribution of one test's key ---------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("chance", [-3, 0, 1, 3, 5, 12, 40])
def test_outcome_distribution_matches_every_first_roll(n, chance):
    keys, tail_fumble = brute_force_keys(n, chance)
    result = outcome_distribution(n, chance)
    assert dict(result.outcomes) == keys
    assert result.tail_fumble == tail_fumble
    assert (result.difficulty, result.chance) == (n, chance)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 10])
@pytest.mark.parametrize("chance", [-2, 0, 5, 15, 40, MAX_EXACT_CHANCE])
def test_outcome_distribution_agrees_with_the_odds(n, chance):
    """Its perfect and fumble masses are odds()'s (lines 430-440, 481-496); a key with
    effect >= 0 is a total within the chance (lines 416, 46-49); it sums to exactly 1."""
    result = outcome_distribution(n, chance)
    exact = odds(n, chance)
    keys = list(result.outcomes)
    assert keys == sorted(keys)
    assert all(p > 0 for p in result.outcomes.values())
    assert sum(result.outcomes.values()) + result.tail == 1
    assert (result.perfect, result.fumble) == (exact.perfect, exact.fumble)
    within = sum(p for (rank, effect), p in result.outcomes.items() if effect >= 0)
    assert within == (p_at_most(ObDice(n), chance) if chance >= 0 else 0)
    assert all(effect >= 0 for (rank, effect) in keys if rank == 2)  # perfect is within
    assert all(effect < 0 for (rank, effect) in keys if rank == 0)  # a fumble is not
    assert all(effect >= chance - MAX_EXACT_CHANCE for _, effect in keys)
    assert 0 <= result.tail_fumble <= result.tail
    assert (result.tail > 0) == (n > 0)  # no highest total (line 22), but Ob0T6 is 0


@pytest.mark.parametrize("chance", [-4, 0, 3, 9])
def test_one_die_keys_carry_the_successes(chance):
    """One die never shows two sixes, so every key within the chance is a success and the
    odds' effects are the keys' masses, rank 1 and 2 together (lines 430-433, 481)."""
    result = outcome_distribution(1, chance)
    by_effect = Counter()
    for (_, effect), p in result.outcomes.items():
        if effect >= 0:
            by_effect[effect] += p
    assert dict(by_effect) == dict(odds(1, chance).effects)
    assert result.tail_fumble == 0


def test_ob0t6_has_one_key():
    """Ob0T6 totals 0 and is never perfect nor a fumble: its one key is (1, chance)."""
    result = outcome_distribution(0, 7)
    assert dict(result.outcomes) == {(1, 7): 1}
    assert result.tail == result.tail_fumble == 0


# --- one exchange of an opposed test ---------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [((1, 5), (2, 7)), ((2, 9), (3, 9)), ((3, 12), (3, 10)), ((0, 4), (3, 11)), ((4, 0), (1, 3))],
)
def test_opposed_odds_match_every_pair_of_keys(a, b):
    """Lines 556-578 over every pair of keys of the brute-force distributions. Those leave
    out the totals above 200, so A's wins lie between the pairs' and the pairs' plus both
    tails; a tie is exactly an equal key (lines 563-564) or an undecided tail."""
    keys_a, _ = brute_force_keys(*a)
    keys_b, _ = brute_force_keys(*b)
    a_wins = b_wins = tie = Fraction(0)
    for key_a, p_a in keys_a.items():
        for key_b, p_b in keys_b.items():
            if key_a > key_b:
                a_wins += p_a * p_b
            elif key_a < key_b:
                b_wins += p_a * p_b
            else:
                tie += p_a * p_b
    result = opposed_odds(*a, *b)
    tails = outcome_distribution(*a).tail + outcome_distribution(*b).tail
    assert a_wins <= result.a_wins <= a_wins + tails
    assert b_wins <= result.b_wins <= b_wins + tails
    assert result.tie == tie + result.undecided
    assert result.a_wins + result.b_wins + result.tie == 1
    assert result.undecided < tails


def exchanges(n_a, n_b, seed, count=200_000):
    """Counts of (A's roll, B's roll) classes from ``count`` seeded exchanges; a class is
    the total and the first roll's pattern and risk, all a test's outcome depends on."""
    rng = random.Random(seed)
    pairs = Counter()
    example = {}
    for _ in range(count):
        rolled = roll(ObDice(n_a), rng), roll(ObDice(n_b), rng)
        classes = tuple((r.total, perfect_pattern(r.first), fumble_risk(r.first)) for r in rolled)
        pairs[classes] += 1
        for rolled_one, cls in zip(rolled, classes, strict=True):
            example.setdefault(cls, rolled_one)
    return pairs, example


@pytest.mark.parametrize(
    ("n_a", "n_b", "chances"),
    [(3, 3, ((12, 10), (10, 10), (6, 14))), (2, 5, ((9, 16), (4, 20), (15, 12)))],
)
def test_opposed_odds_match_200_000_seeded_exchanges(n_a, n_b, chances):
    """The exact odds against 200,000 exchanges of real rolls resolved by resolve_test and
    opposed (lines 556-578). A share of N exchanges has standard error sqrt(p(1-p)/N),
    at most 0.0011; within 4 of them a correct implementation misses with chance 6e-5 per
    comparison, and the fixed seed makes the test deterministic."""
    total = 200_000
    pairs, example = exchanges(n_a, n_b, seed=2000 + 10 * n_a + n_b, count=total)
    for chance_a, chance_b in chances:
        seen = Counter()
        for (cls_a, cls_b), count in pairs.items():
            a = resolve_test(chance_a, example[cls_a])
            b = resolve_test(chance_b, example[cls_b])
            seen[opposed(a, b)] += count
        exact = opposed_odds(n_a, chance_a, n_b, chance_b)
        for winner, p in ((1, exact.a_wins), (-1, exact.b_wins), (0, exact.tie)):
            sigma = math.sqrt(p * (1 - p) / total)
            assert abs(seen[winner] / total - p) <= 4 * sigma, (chance_a, chance_b, winner)


@pytest.mark.parametrize(("n", "chance"), [(0, 5), (1, 0), (2, 7), (3, 12), (5, 16), (10, 40)])
def test_equal_sides_have_equal_odds(n, chance):
    """The same difficulty and chance on both sides: nobody is favoured (lines 556-564)."""
    result = opposed_odds(n, chance, n, chance)
    assert result.a_wins == result.b_wins
    assert result.a_wins + result.b_wins + result.tie == 1
    if n:
        assert result.a_wins_eventually == Fraction(1, 2)


@pytest.mark.parametrize(("a", "b"), [((3, 12), (3, 10)), ((2, 9), (5, 16)), ((1, 0), (4, 3))])
def test_swapping_the_sides_swaps_the_odds(a, b):
    forward, backward = opposed_odds(*a, *b), opposed_odds(*b, *a)
    assert (forward.a_wins, forward.b_wins) == (backward.b_wins, backward.a_wins)
    assert (forward.tie, forward.undecided) == (backward.tie, backward.undecided)
    assert forward.a_wins_eventually + backward.a_wins_eventually == 1
    assert forward.a_wins + forward.b_wins + forward.tie == 1


def test_a_higher_chance_wins_more():
    """Lines 561-563: the higher effect wins, and a higher chance is a higher effect."""
    lower, higher = opposed_odds(3, 10, 3, 12), opposed_odds(3, 11, 3, 12)
    assert higher.a_wins > lower.a_wins
    assert higher.b_wins < lower.b_wins
    assert opposed_odds(10, 15, 10, 12).a_wins_eventually > Fraction(1, 2)


def test_ob0t6_sides():
    """Ob0T6 totals 0, never perfect nor a fumble: the higher chance is the higher effect
    (lines 561-563), and equal chances tie for ever (lines 563-564): nobody can win."""
    result = opposed_odds(0, 5, 0, 3)
    assert (result.a_wins, result.b_wins, result.tie) == (1, 0, 0)
    assert result.a_wins_eventually == 1
    never = opposed_odds(0, 4, 0, 4)
    assert (never.a_wins, never.b_wins, never.tie) == (0, 0, 1)
    assert never.a_wins_eventually is None
    assert never.undecided == 0


def test_perfect_beats_any_effect():
    """Lines 573-574: a perfect roll beats the other whatever its effect. Ob1T6 against
    chance 3 is perfect exactly when its die shows 1-3 (lines 432-433), half the time;
    otherwise its effect is at most 3 - 4 = -1 or 3 - 2 = 1 (a six's two dice), and it
    can never fumble with one die. Against Ob0T6 with chance 100 (always effect 100, rank
    1) it wins exactly when perfect."""
    result = opposed_odds(1, 3, 0, 100)
    assert (result.a_wins, result.b_wins, result.tie) == (Fraction(1, 2), Fraction(1, 2), 0)
    assert result.undecided == 0


def test_a_success_above_the_chance_is_no_perfect():
    """Lines 438-440: a perfect pattern above the chance is a success but not a perfect
    roll, so it compares by its (negative) effect. Ob1T6 against chance 0 totals at least
    1, never perfect nor a fumble; Ob0T6 against chance 0 (effect 0) always wins."""
    result = opposed_odds(0, 0, 1, 0)
    assert (result.a_wins, result.b_wins, result.tie) == (1, 0, 0)
    assert result.undecided == 0


def test_a_fumble_always_loses():
    """Lines 496-498, 575-576: a fumble loses even to a hopeless failure. A is Ob0T6 with
    chance -50: always effect -50, rank 1. B is Ob2T6 with chance 0: never perfect (it
    totals at least 2), a fumble whenever both dice show 6 (1/36; the total is then at
    least 4 > 0), and otherwise the higher effect wins: B's total below 50 beats A, 50
    ties and above 50 loses. Without sixes B totals 2-10; with one six (first rolls
    (6, o) and (o, 6)) the other die o and the six's two new dice add up."""
    one_six = [(Fraction(2, 36), o) for o in range(1, 6)]
    b_below_50 = Fraction(25, 36) + sum(p * p_rerolls_at_most(1, 49 - o) for p, o in one_six)
    b_above_50 = sum(p * (1 - p_rerolls_at_most(1, 50 - o)) for p, o in one_six)
    result = opposed_odds(0, -50, 2, 0)
    assert result.a_wins == Fraction(1, 36) + b_above_50
    assert result.b_wins == b_below_50
    assert result.undecided == 0  # B's totals above 200 are all below A's effect


def test_opposed_odds_are_fast():
    """Ob10T6 against Ob10T6 reads integer tables: one exchange's odds is cheap once they
    are built (a loose bound here; about 1-2 ms measured)."""
    opposed_odds(10, 15, 10, 12)
    start = time.perf_counter()
    opposed_odds(10, 15, 10, 12)
    assert time.perf_counter() - start < 0.2


# --- a later roll against a remembered one ---------------------------------------------------


def guard_finds_sinclair(n, chance):
    """Lines 596-609, directly: Sinclair's hiding has effect 7 (rank 1), so the guard
    needs a perfect roll, or a total of at most chance - 7 (effect 7 or better; a two-six
    first roll within the chance is an ordinary failure, rank 1, and counts by its
    effect). Every first roll of n dice; the rerolls enter through p_rerolls_at_most."""
    found = Fraction(0)
    for first in product(range(1, 7), repeat=n):
        sixes, others = first.count(6), sum(d for d in first if d != 6)
        highest = chance if perfect_pattern(first) else chance - 7
        found += Fraction(1, 6**n) * p_rerolls_at_most(sixes, highest - others)
    return found


@pytest.mark.parametrize("n", [2, 3])
def test_sinclair_hides_from_the_guard(n):
    """Lines 596-609: Sinclair (Gömma 15, Ob2T6) rolls 8, effect 7; the guard (SYN 12)
    must reach effect "sju eller bättre". The text names no difficulty for the guard:
    Ob2T6 (the same "lätt") and Ob3T6 (normal)."""
    sinclair = outcome(15, (3, 5))
    assert (sinclair.effect, sinclair.perfect) == (7, False)
    found = delayed_odds(n, 12, sinclair)
    assert found == guard_finds_sinclair(n, 12)
    assert 0 < found < Fraction(1, 2)
    # The guard's roll of the example, 10 (effect 2), does not find him.
    assert not delayed_opposed(sinclair, outcome(12, (2, 3, 5)))


@pytest.mark.parametrize(("n", "chance"), [(1, 4), (2, 12), (3, 12), (5, 20)])
@pytest.mark.parametrize("earlier_effect", [-3, 0, 4, 7, 11])
def test_delayed_odds_give_ties_to_the_later_roll(n, chance, earlier_effect):
    """Lines 606-607: an equal result goes to the later roll. An earlier ordinary result
    of effect e has the key of Ob0T6 against chance e, so the later roll overcomes it in
    an opposed exchange's wins and ties, not only its wins."""
    earlier = resolve_test(earlier_effect + 5, ObRoll.of((3, 2)))  # total 5, rank 1
    assert key_of(earlier) == (1, earlier_effect)
    later = delayed_odds(n, chance, earlier)
    exchange = opposed_odds(n, chance, 0, earlier_effect)
    assert exchange.undecided == 0
    assert later == exchange.a_wins + exchange.tie
    assert later >= exchange.a_wins


@pytest.mark.parametrize(("n", "chance"), [(1, 4), (3, 12), (4, 9)])
def test_delayed_odds_keep_perfect_and_fumble(n, chance):
    """Lines 573-576: a remembered perfect roll is only overcome by a perfect one with an
    effect at least as high; a remembered fumble by anything but a worse fumble."""
    exact = outcome_distribution(n, chance)
    perfect = outcome(10, (1, 1, 2))  # effect 6
    assert perfect.perfect
    assert delayed_odds(n, chance, perfect) == sum(
        p for (rank, effect), p in exact.outcomes.items() if rank == 2 and effect >= 6
    )
    fumble = outcome(5, (6, 6, 1), (2, 2, 3, 1))  # total 9, effect -4
    assert fumble.fumble
    worse = sum(p for (rank, effect), p in exact.outcomes.items() if rank == 0 and effect < -4)
    assert delayed_odds(n, chance, fumble) == 1 - worse - exact.tail_fumble


# --- bad input --------------------------------------------------------------------------------

EARLIER = outcome(15, (3, 5))


@pytest.mark.parametrize(
    "call",
    [
        lambda: outcome_distribution(21, 10),
        lambda: outcome_distribution(-1, 10),
        lambda: outcome_distribution(3, MAX_EXACT_CHANCE + 1),
        lambda: outcome_distribution(3, True),
        lambda: outcome_distribution(3, 10.5),
        lambda: opposed_odds(21, 10, 3, 10),
        lambda: opposed_odds(3, 10, 3, MAX_EXACT_CHANCE + 1),
        lambda: opposed_odds(3, True, 3, 10),
        lambda: opposed_odds(3, 10, True, 10),
        lambda: delayed_odds(21, 10, EARLIER),
        lambda: delayed_odds(3, MAX_EXACT_CHANCE + 1, EARLIER),
        lambda: delayed_odds(3, True, EARLIER),
        lambda: delayed_odds(3, 10, 7),
    ],
)
def test_bad_input_is_rejected_as_odds_does(call):
    with pytest.raises(RulesError):
        call()


def test_the_chance_limit_is_reported_as_odds_does():
    for call in (
        lambda: outcome_distribution(3, 10**9),
        lambda: opposed_odds(3, 10, 3, 10**9),
        lambda: delayed_odds(3, 10**9, EARLIER),
    ):
        with pytest.raises(RulesError) as info:
            call()
        assert (info.value.code, info.value.params) == ("chance_too_large", {"limit": 200})


# --- through the rule-system interface (rules.system: the table's opposed tests) --------


class _Faces:
    def __init__(self, faces):
        self.faces = iter(faces)

    def randint(self, a, b):
        return next(self.faces)


def _plan(chance, difficulty):
    return PHOBIA.plan_test({"x": chance}, {"stat": "x", "difficulty": difficulty}, {})


def test_the_system_rolls_ties_again_until_one_side_wins():
    """Lines 563-564: 14 - 6 = 8 ties 13 - 5 = 8; then 14 - 9 = 5 loses to 13 - 6 = 7."""
    rolled = PHOBIA.roll_opposed(
        _plan(14, 3), _plan(13, 3), _Faces([2, 2, 2, 1, 2, 2, 3, 3, 3, 2, 2, 2])
    )
    assert [(a.total, b.total) for a, b in rolled.rounds] == [(6, 5), (9, 6)]
    assert (rolled.winner, rolled.relative_effect) == (-1, 2)


def test_an_exchange_nobody_can_win_stops_undecided():
    """Ob0T6 against Ob0T6 with equal chances ties every time: the exchange stops after
    MAX_OPPOSED_ROUNDS and nobody wins (the tray refuses to roll it: no odds)."""
    rolled = PHOBIA.roll_opposed(_plan(5, 0), _plan(5, 0), _Faces([]))
    assert (len(rolled.rounds), rolled.winner, rolled.relative_effect) == (
        MAX_OPPOSED_ROUNDS, 0, None)
    assert PHOBIA.opposed_odds(_plan(5, 0), _plan(5, 0)) is None


def test_the_system_remembers_sinclairs_effect():
    """Lines 596-609: Gömma 15 at Ob2T6 rolled 8 (effect 7). The guard's SYN 12 rolls 10:
    not found; a 5 (effect 7, equal) finds him."""
    hiding = PHOBIA.roll_test(_plan(15, 2), _Faces([4, 4]))
    assert hiding.marks["effect"] == 7
    guard = _plan(12, 3)
    assert not PHOBIA.overcomes(PHOBIA.roll_test(guard, _Faces([3, 3, 4])), hiding)
    assert PHOBIA.overcomes(PHOBIA.roll_test(guard, _Faces([1, 2, 2])), hiding)
    exact = PHOBIA.delayed_odds(guard, hiding)
    assert exact == delayed_odds(3, 12, PHOBIA._outcome(hiding))


def test_voluntary_levels_on_the_earlier_roll_are_added_to_the_later_one_lines_589_597():
    """Lines 589-594: "kan rollpersonen göra det svårare för motståndaren, genom att lägga
    till ett antal frivilliga svårighetsgrader till sitt slag. Lyckas rollpersonen trots
    detta, så tvingas den som försöker genomskåda rollpersonen att lägga till samma antal
    svårighetsgrader till sina slag." Sinclair hides at Ob2T6 with 2 voluntary levels: he
    rolls Ob4T6 (1, 2, 2, 3 = 8, effect 7, a success), so the guard's Ob3T6 becomes Ob5T6,
    its odds those of Ob5T6; a failed hiding imposes nothing."""
    values = {"hiding": 15, "sight": 12}
    hiding_plan = PHOBIA.plan_test(values, {"stat": "hiding", "difficulty": 2, "voluntary": 2},
                                   {})
    assert (hiding_plan.notation, hiding_plan.params["voluntary"]) == ("Ob4T6", 2)
    assert hiding_plan.p_success == odds(4, 15).success
    hiding = PHOBIA.roll_test(hiding_plan, _Faces([1, 2, 2, 3]))
    assert (hiding.success, hiding.marks["effect"]) == (True, 7)
    stored = PHOBIA.result_of(PHOBIA.stored(hiding))  # as the log reads it back
    guard = PHOBIA.plan_test(values, {"stat": "sight", "difficulty": 3}, {})
    later = PHOBIA.against_earlier(guard, stored)
    assert (later.notation, later.params["difficulty"], later.params["imposed"]) == (
        "Ob5T6", 5, 2
    )
    assert later.p_success == odds(5, 12).success
    assert PHOBIA.delayed_odds(later, stored) == delayed_odds(5, 12, PHOBIA._outcome(stored))
    assert len(PHOBIA.roll_test(later, _Faces([1, 1, 1, 1, 2])).first) == 5
    failed = PHOBIA.roll_test(hiding_plan, _Faces([5, 5, 4, 3]))  # 17 > 15
    assert PHOBIA.against_earlier(guard, failed) is guard
    with pytest.raises(RulesError):
        PHOBIA.plan_test(values, {"stat": "hiding", "voluntary": 11}, {})
