"""Precision-driven runs (issue 46, `rules.simulation.Run`): a run plays a step of
batches at a time until every chance its report shows is known to the precision asked
for (Wilson intervals at 95 %), the award's row decided at 99 %, or a cap; it says which.
The same seed gives the same report whatever order its batches were played in."""

import os
import random
import subprocess
import sys

import pytest

from rules import simulation as S
from rules.aoristos.combat import ENGINE
from tests.rules.test_simulation import BRUTE, GUNMAN, KNIFE_FIGHTER, add, group_against


def played(state, *, seed=46, margin=5.0, setup=None, order=None):
    """A run played to its end; `order` shuffles each step's batches before they are
    played (as workers finishing in any order would)."""
    run = S.Run(state, seed=seed, precision=S.Precision(margin), setup=setup)
    while not run.finished:
        wanted = run.wanted()
        if order is not None:
            order.shuffle(wanted)
        run.add({(key, index): S.play_batch(ENGINE, run.parts[key].state, run.plan, seed,
                                            key, index) for key, index in wanted})
    return run


def mirror():
    state = ENGINE.new_state({})
    for side, x in (("a", 0.0), ("b", 1.5)):
        state = add(state, side, f"Tvilling {side}", x=x, **KNIFE_FIGHTER)
    return state


def test_wilson_intervals():
    assert S.wilson(0, 100) == (0.0, pytest.approx(0.03699, abs=1e-5))
    low, high = S.wilson(50, 100)
    assert (low, high) == (pytest.approx(0.40383, abs=1e-5), pytest.approx(0.59617, abs=1e-5))
    assert S.margin_of(50, 100) == pytest.approx(9.617, abs=1e-3)
    assert S.wilson(0, 0) == (0.0, 1.0)


def test_the_cap_is_where_a_chance_of_half_is_known_to_the_margin():
    # (1.96 / (2 × 0.05))² = 384.1: 385 fights, in whole steps of 100.
    assert [S.Precision(m).cap() for m in (5.0, 3.0, 1.0)] == [400, 1100, 9700]
    assert S.margin_of(200, 400) <= 5.0 < S.margin_of(150, 300)


def test_a_fight_whose_answer_is_clear_stops_after_one_step_and_a_close_one_runs_longer():
    """Every shown chance counts, each combatant's every fate too: in a fight of blows
    some fate (a broken limb) is near 50 %, so ± 5 points take some 385 fights. Two
    fighters 200 m apart who cannot meet within 3 rounds: every chance is 0 % or 100 %,
    known after the first step."""
    apart = ENGINE.new_state({})
    apart = add(apart, "a", "Väster", x=0.0, **{**GUNMAN, "weapons": [], "right": None})
    apart = add(apart, "b", "Öster", x=200.0, **{**GUNMAN, "weapons": [], "right": None})
    clear = S.Run(apart, seed=46, plan=S.Plan(round_cap=3))
    S.run_all(ENGINE, clear)
    close = played(mirror())
    for run in (clear, close):
        fight = run.parts["fight"]
        assert fight.stopped == "precise"
        assert S.widest(fight.summary, fight.sides, fight.ids) <= 5.0
    assert clear.parts["fight"].fights == 100
    assert clear.parts["fight"].summary.capped == 100
    assert 300 <= close.parts["fight"].fights <= S.Precision(5.0).cap() == 400
    finer = played(mirror(), margin=3.0)
    assert finer.parts["fight"].fights > close.parts["fight"].fights
    assert S.widest(finer.parts["fight"].summary, ("a", "b"), ("c1", "c2")) <= 3.0


def test_the_awards_runs_stop_once_the_row_is_decided_sooner_when_it_is_clear():
    """Against one knife fighter each character alone wins about 3 in 4 (1 UP), decided
    after one step; against two, about 1 in 5 (2 UP): closer to the 50 % line, decided
    after three."""
    one, two = group_against(1), group_against(2)
    clear, closer = played(one, setup=one), played(two, setup=two)
    assert (clear.award().award.row, clear.award().decided) == ("alone_wins", True)
    assert (closer.award().award.row, closer.award().decided) == ("alone_loses", True)
    alone = [f"alone:c{i}" for i in (1, 2, 3)]
    assert {clear.parts[k].fights for k in alone} == {100}
    assert {closer.parts[k].fights for k in alone} == {300}
    assert {clear.parts[k].stopped for k in alone} == {closer.parts[k].stopped for k in alone
                                                        } == {"decided"}


def test_the_same_seed_gives_the_same_report_whatever_order_the_batches_were_played_in():
    state = group_against(2)
    first = played(state, setup=state)
    again = played(state, setup=state, order=random.Random(1))
    assert {k: p.summary for k, p in first.parts.items()} == {
        k: p.summary for k, p in again.parts.items()}
    assert first.award() == again.award()
    other = played(state, seed=47, setup=state)
    assert other.parts["fight"].summary != first.parts["fight"].summary


def test_a_batch_is_the_same_in_every_process():
    """A batch's seed is made from a string, hashed with SHA-512, not with Python's
    per-process hash: a worker with another PYTHONHASHSEED plays the same fights."""
    code = "from rules.simulation import batch_seed; print(batch_seed(46, 'alone:c1', 3))"
    seeds = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       check=True, env={**os.environ, "PYTHONHASHSEED": hashseed}).stdout
        for hashseed in ("1", "2")
    }
    assert seeds == {f"{S.batch_seed(46, 'alone:c1', 3)}\n"}


def test_batches_merged_are_the_fights_counted_together():
    state = group_against(2)
    batches = [S.play_batch(ENGINE, state, S.Plan(), 5, "fight", i) for i in range(3)]
    merged = S.merge(batches, 5)
    assert merged.fights == 75
    assert merged.wins == {side: sum(b.wins.get(side, 0) for b in batches)
                           for side in merged.wins}
    assert sum(merged.rounds.values()) == 75


def test_a_surely_threatened_group_decides_the_award_at_once():
    state = group_against(6, npc_block=BRUTE, gap=12.0)
    run = played(state, setup=state)
    award = run.award()
    assert (award.award.up, award.award.row, award.decided) == (3, "group_threatened", True)
    assert award.group_interval[1] < 0.9  # the group wins under 90 % even at 99 %
    assert {k: (p.fights, p.stopped) for k, p in run.parts.items() if k != "fight"} == {
        f"alone:c{i}": (100, "decided") for i in (1, 2, 3)}


def test_an_award_too_close_to_its_threshold_is_said_undecided_not_played_to_the_cap():
    """Each character alone against a better knife fighter (melee weapons 4) wins about
    45 %, by the 50 % line between 1 UP and 2 UP (p. 4). After 200 fights of each the
    intervals it would have at the cap still cross the line: the run stops there and
    says the row is not decided."""
    state = group_against(1, npc_block={**KNIFE_FIGHTER,
                                        "skills": {"melee_weapons": 4, "evasion": 2}})
    run = played(state, setup=state)
    award = run.award()
    assert (award.award.row, award.decided) == ("alone_loses", False)
    assert award.alone_interval[0] < 0.5 < award.alone_interval[1]
    assert {p.stopped for k, p in run.parts.items() if k != "fight"} == {"undecided"}
    assert all(p.fights == S.FUTILE_AFTER for k, p in run.parts.items() if k != "fight")
