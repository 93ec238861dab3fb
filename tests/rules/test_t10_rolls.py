"""T10 skill rolls, chains, social carries and duels (t10-ap-utdrag.txt: "Färdighetsslag",
"Påföljande slag", "Att använda DoS och DoF"; rulings.md § T10)."""

import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError, get_system
from rules.t10 import character
from rules.t10.rolls import (
    MAX_CARRY,
    carry,
    clamp_carry,
    duel_carry,
    duel_odds,
    outcome,
    roll_odds,
    sum_distribution,
)
from rules.t10.system import initiative_odds

T10 = get_system("t10")
HOUSE = T10.house(None)


class Dice:
    """randint answering the given dice in order (every die checked against its range)."""

    def __init__(self, *faces):
        self.faces = list(faces)

    def randint(self, low, high):
        face = self.faces.pop(0)
        assert low <= face <= high, (face, low, high)
        return face


def test_2t10_is_a_triangle_from_2_to_20():
    spread = sum_distribution()
    assert sum(spread.values()) == 1
    assert spread[11] == Fraction(10, 100)
    assert spread[2] == spread[20] == Fraction(1, 100)
    assert min(spread) == 2
    assert max(spread) == 20


def test_johans_pistol_12_plus_2_is_14_and_3_dos():
    """Färdighetsslag: "Han slår 12 och lägger till +2 för ett slutligt resultat på 14.
    Johan träffar med skottet, och får dessutom 3 DoS"."""
    rolled = outcome((5, 7), 2)
    assert rolled.total == 14
    assert rolled.success
    assert (rolled.dos, rolled.dof, rolled.degrees) == (3, 0, 3)


@pytest.mark.parametrize(
    ("total", "success", "dos", "dof"),
    [(11, True, 0, 0), (10, False, 0, 0), (7, False, 0, 3), (8, False, 0, 2), (15, True, 4, 0),
     (2, False, 0, 8), (20, True, 9, 0)],
)
def test_degrees_at_the_edges(total, success, dos, dof):
    """11 or more succeeds; DoS = total − 11, DoF = 10 − total (a total of 10 fails with
    no DoF: rulings). 7 → 3 DoF and 8 → 2 DoF are the text's own."""
    dice = (total // 2, total - total // 2)
    rolled = outcome(dice, 0)
    assert (rolled.success, rolled.dos, rolled.dof) == (success, dos, dof)


def test_the_interrogation_chain():
    """Påföljande slag: two successful interrogation rolls needed. 7 (3 DoF); the next roll
    −3 still reaches 13 (2 DoS); the next +2 makes 15: two successes, the prisoner breaks."""
    first = outcome((3, 4), 0)
    assert (first.total, first.dof) == (7, 3)
    second = outcome((8, 8), carry(first))
    assert (second.bonus, second.total, second.dos) == (-3, 13, 2)
    third = outcome((6, 7), carry(second))
    assert (third.bonus, third.total, third.success) == (2, 15, True)


def test_the_chain_through_the_system_counts_successes_to_the_goal():
    values = {"interrogate": 0}
    plan = T10.plan_test(values, {"stat": "interrogate", "goal": 2}, HOUSE)
    first = T10.roll_test(plan, Dice(3, 4))
    assert (first.total, first.marks["dof"], first.marks["successes"]) == (7, 3, 0)
    plan = T10.plan_test(
        values, {"stat": "interrogate", "goal": 2, "after": {"result": first, "same": True}},
        HOUSE,
    )
    assert plan.params["carry"] == -3
    assert plan.notation == "2T10−3"
    second = T10.roll_test(plan, Dice(8, 8))
    assert (second.total, second.marks["dos"], second.marks["successes"]) == (13, 2, 1)
    assert not second.marks["done"]
    plan = T10.plan_test(
        values, {"stat": "interrogate", "goal": 2, "after": {"result": second, "same": True}},
        HOUSE,
    )
    third = T10.roll_test(plan, Dice(6, 7))
    assert (third.total, third.marks["successes"], third.marks["done"]) == (15, 2, True)


def test_the_duel_carry_is_the_opponents_degrees_turned_round():
    """Att använda DoS och DoF: Henrik rolls 8 (2 DoF): Johan +2; Johan rolls 15 (4 DoS):
    Henrik −4 on his next."""
    henrik = outcome((4, 4), 0)
    assert duel_carry(henrik) == 2
    johan = outcome((6, 7), duel_carry(henrik))
    assert johan.total == 15
    assert johan.dos == 4
    assert duel_carry(johan) == -4


@given(st.integers(-40, 40))
def test_a_carry_never_moves_a_roll_more_than_6(degrees):
    """"DoS/DoF aldrig kan ge mer än ±6 på ett slag"."""
    assert abs(clamp_carry(degrees)) <= MAX_CARRY
    assert clamp_carry(degrees) == degrees or abs(degrees) > MAX_CARRY


def test_a_big_success_carries_only_6():
    rolled = outcome((10, 10), 5)  # 25: 14 DoS
    assert rolled.dos == 14
    assert carry(rolled) == 6
    assert duel_carry(rolled) == -6


@pytest.mark.parametrize("bonus", [-12, -6, -2, 0, 3, 9, 12])
def test_exact_odds_sum_to_one_and_match_counting(bonus):
    odds = roll_odds(bonus)
    assert sum(odds.degrees.values()) == 1
    hits = sum(1 for a in range(1, 11) for b in range(1, 11) if a + b + bonus >= 11)
    assert odds.success == Fraction(hits, 100)
    three = sum(1 for a in range(1, 11) for b in range(1, 11) if a + b + bonus - 11 == 3)
    assert odds.degrees.get(3, 0) == Fraction(three, 100)


def test_odds_of_johans_pistol():
    """+2: 2T10 ≥ 9 succeeds, 72 of 100; exactly 3 DoS is 2T10 = 12, 9 of 100."""
    odds = roll_odds(2)
    assert odds.success == Fraction(72, 100)
    assert odds.degrees[3] == Fraction(9, 100)
    assert odds.at_least(3) == sum(Fraction(10 - abs(s - 11), 100) for s in range(12, 21))


def _duel_by_simulation(first, second, goal, n, seed):
    rng = random.Random(seed)
    wins = 0
    for _ in range(n):
        successes, last, turn = [0, 0], None, 0
        while True:
            bonus = (first, second)[turn] + duel_carry(last)
            last = outcome((rng.randint(1, 10), rng.randint(1, 10)), bonus)
            successes[turn] += last.success
            if successes[turn] >= goal:
                wins += turn == 0
                break
            turn = 1 - turn
    return wins / n


@pytest.mark.parametrize(("first", "second", "goal"), [(0, 0, 3), (2, -1, 2), (-3, 1, 1)])
def test_duel_odds_agree_with_playing_the_duel(first, second, goal):
    exact = float(duel_odds(first, second, goal).first_wins)
    played = _duel_by_simulation(first, second, goal, 20000, seed=goal)
    assert abs(exact - played) < 0.015  # 4+ standard errors at n = 20000


def test_duel_of_one_success_by_hand():
    """Goal 1 with a side certain to succeed: the first roller wins at once."""
    assert duel_odds(10, 0, 1).first_wins == 1
    assert duel_odds(-30, 10, 1).first_wins == 0


def test_a_duel_nobody_can_win_is_refused():
    with pytest.raises(RulesError, match="neither side"):
        duel_odds(-30, -30, 1)


def test_initiative_odds_count_ties_again():
    assert initiative_odds(0, 0) == Fraction(1, 2)
    assert initiative_odds(10, 0) == 1
    # +1: wins 55 of 100, ties 9: 55/91.
    assert initiative_odds(1, 0) == Fraction(55, 91)


def test_the_johan_and_henrik_duel_rolled_through_the_system():
    """Three successes win. Initiative: Henrik 9, Johan 4: Henrik starts and rolls 8 (2 DoF):
    Johan +2 rolls 13 → 15 (4 DoS), Henrik −4 ... until one has three."""
    johan = T10.plan_test({"persuade": 0, "initiative": 0},
                          {"stat": "persuade", "goal": 3}, HOUSE)
    henrik = T10.plan_test({"persuade": 0, "initiative": 0},
                           {"stat": "persuade", "goal": 3}, HOUSE)
    dice = Dice(
        4, 9,  # initiative: Johan 4, Henrik 9
        4, 4,  # Henrik 8: 2 DoF
        6, 7,  # Johan 13 + 2 = 15: 4 DoS
        9, 9,  # Henrik 18 − 4 = 14: success
        6, 6,  # Johan 12 − 3 = 9: failure, 1 DoF
        5, 5,  # Henrik 10 + 1 = 11: success (2)
        10, 10,  # Johan 20: success (2), 9 DoS
        10, 10,  # Henrik 20 − 6 = 14: success (3): Henrik wins
    )
    result = T10.roll_opposed(johan, henrik, dice)
    assert result.marks["a_first"] is False
    assert result.winner == -1
    rolls = [r for pair in result.rounds for r in pair if r is not None]
    assert [r.total for r in rolls] == [8, 15, 14, 9, 11, 20, 14]
    assert [r.plan.params["carry"] for r in rolls] == [0, 2, -4, -3, 1, 0, -6]
    assert result.marks["successes"] == {"a": 2, "b": 3}
    assert result.marks["sequence"] == [-1, 1, -1, 1, -1, 1, -1]


def test_duel_odds_through_the_system_weigh_who_starts():
    johan = T10.plan_test({"persuade": 2, "initiative": 3}, {"stat": "persuade", "goal": 3},
                          HOUSE)
    henrik = T10.plan_test({"persuade": 2, "initiative": 0}, {"stat": "persuade", "goal": 3},
                           HOUSE)
    p = T10.opposed_odds(johan, henrik)
    starts = initiative_odds(3, 0)
    assert p == starts * duel_odds(2, 2, 3).first_wins + (1 - starts) * (
        1 - duel_odds(2, 2, 3).first_wins
    )
    assert Fraction(1, 2) < p < 1


def test_a_skill_replaces_its_ability():
    """Förmågor och färdigheter: without Charma, Johan charms with Social Kompetens −2; with
    his +3 in Hota he threatens much better (+3, not +1)."""
    johan = {"social": -2, "intimidate": 3}
    assert character.bonus(johan, "charm") == -2
    assert character.bonus(johan, "intimidate") == 3
    assert character.bonus(johan, "social") == -2
    assert character.is_social("intimidate")
    assert not character.is_social("pistol")


def test_testables_give_each_roll_its_bonus():
    johan = {"social": -2, "intimidate": 3, "combat": -1, "pistol": 2}
    bonuses = {term.key: value for term, value in T10.testables(johan, {}, HOUSE)}
    assert bonuses["charm"] == -2
    assert bonuses["intimidate"] == 3
    assert bonuses["pistol"] == 2
    assert bonuses["rifle"] == -1
    assert bonuses["body"] == 0
    assert "initiative" not in bonuses  # rolled on 1T10, not a skill roll


def test_abilities_are_at_most_0_and_skills_at_most_3():
    issues = T10.check({"social": 1, "pistol": 4, "body": -3, "initiative": 3}, HOUSE)
    assert {i.field for i in issues} == {"social", "pistol"}
    low = T10.check({"mind": -4}, HOUSE)
    assert [i.field for i in low] == ["mind"]  # below the house rule's −3
    assert not T10.check({"mind": -4}, T10.house({"ability_min": -5}))


def test_ability_names_are_house_rules():
    house = T10.house({"ability_body": "Fysik"})
    abilities, _skills = T10.stats(house)
    names = [stat.term.swedish for stat in abilities]
    assert names == ["Fysik", "Strid", "Intellekt", "Social Kompetens", "Initiativ"]
    with pytest.raises(RulesError):
        T10.house({"ability_body": "   "})


def test_fatigue_and_modifier_enter_the_plan():
    plan = T10.plan_test({"pistol": 2}, {"stat": "pistol", "modifier": 1, "fatigue": 3}, HOUSE)
    assert plan.params["bonus"] == 0
    assert plan.notation == "2T10"
    assert plan.p_success == Fraction(55, 100)
    assert sum(plan.odds.values()) == 1


@pytest.mark.parametrize(
    "request_",
    [{"stat": "nope"}, {"stat": "pistol", "modifier": 11}, {"stat": "pistol", "goal": 0},
     {"stat": "pistol", "modifier": "2"}, {"stat": "pistol", "after": {"same": True}}],
)
def test_bad_requests_are_refused(request_):
    with pytest.raises(RulesError):
        T10.plan_test({"pistol": 2}, request_, HOUSE)


def test_a_stored_roll_reads_back_and_a_tampered_one_is_refused():
    plan = T10.plan_test({"pistol": 2}, {"stat": "pistol"}, HOUSE)
    result = T10.roll_test(plan, Dice(5, 7))
    back = T10.result_of(T10.stored(result))
    assert (back.total, back.success, back.marks["dos"]) == (14, True, 3)
    stored = T10.stored(result) | {"total": 15}
    with pytest.raises(RulesError):
        T10.result_of(stored)


@pytest.mark.parametrize(
    ("text", "low", "high", "mean"),
    [("2T10", 2, 20, 11), ("1t10", 1, 10, Fraction(11, 2)), ("2T10+3", 5, 23, 14),
     ("1T6−1", 0, 5, Fraction(5, 2))],
)
def test_hands(text, low, high, mean):
    plan = T10.plan_hand(text)
    assert (plan.low, plan.high, plan.mean) == (low, high, mean)
    rolled = T10.roll_hand(plan, Dice(*([3] * plan.params["count"])))
    assert T10.hand_of(T10.stored_hand(rolled)).total == rolled.total


@pytest.mark.parametrize(("text", "code"), [("hello", "unrecognised"), ("99T10", "too_many_dice"),
                                            ("1T10+999", "modifier_too_large"),
                                            ("1T10+1+1+1+1+1", "too_long")])
def test_bad_hands(text, code):
    with pytest.raises(RulesError) as error:
        T10.plan_hand(text)
    assert error.value.code == code
