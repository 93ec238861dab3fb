"""The p. 4 award ("Strid, oavsett resultat") as the GM's page runs it (issue 29): with
the group's fights it already has, with progress over all its fights, and cancelled."""

from rules import simulation as S
from rules.aoristos.combat import ENGINE
from tests.rules.test_simulation import group_against


def test_the_groups_fights_given_are_the_ones_it_would_play():
    state = group_against(2)
    group = S.simulate(ENGINE, state, fights=60, seed=4)
    assert S.award_for(ENGINE, state, fights=60, seed=4, group=group) == S.award_for(
        ENGINE, state, fights=60, seed=4)


def test_progress_counts_every_fight_of_the_award():
    state = group_against(2)
    assert S.award_fights(state, 50) == 50 * 4  # the group, then each of 3 alone
    assert S.award_fights(state, 50, group_known=True) == 50 * 3
    seen = []
    S.award_for(ENGINE, state, fights=50, seed=2, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (200, 200)
    assert all(t == 200 for _d, t in seen)
    assert seen == sorted(seen)


def test_a_cancelled_award_is_none():
    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) > 3

    assert S.award_for(ENGINE, group_against(2), fights=100, seed=2, cancelled=cancelled) is None


def test_no_award_without_characters_on_one_side():
    state = ENGINE.new_state({})
    assert S.characters_side(state) is None
    assert S.award_fights(state, 100) == 0
