"""The default policies never get stuck (issue 29): over a grid of fights in each system
(a shooter or a knife fighter against one or three foes of either kind, from arm's length
to 30 m), every simulated fight ends with a side standing or at the round cap, never with
a command the rules refuse. The grid found two ways an Aoristos reload could stall a
fight (no KP left to pay on it; a foe in melee, p. 10): this keeps them and their kind
out in all three systems."""

import random

import pytest

from rules import simulation as S
from rules.engine import engine_for
from tests.rules import test_simulation as T

AORISTOS = engine_for("aoristos")
CATALOGUE = AORISTOS.catalogue()
BLOCKS = {
    "aoristos": (T.GUNMAN | {"weapons": ["pistol"]}, T.KNIFE_FIGHTER),
    "t10": (T.T10_SOLDIER, T.T10_FIGHTER),
    "phobia": (T.PHOBIA_GUNMAN, T.PHOBIA_FIGHTER),
}


def fight(system: str, ours: dict, theirs: dict, foes: int, gap: float):
    engine = engine_for(system)
    extra = {"weapons": CATALOGUE["weapon"], "armour": CATALOGUE["armour"]} \
        if system == "aoristos" else {}
    state = engine.new_state({})
    for side, block, count, x in (("a", ours, 1, 0.0), ("b", theirs, foes, gap)):
        for i in range(count):
            command = engine.parse_command({"type": "add_combatant", "name": f"{side}{i}",
                                            "side": side, "npc": side == "b", "x": x,
                                            "y": 1.5 * i, **block}, **extra)
            state = engine.play(state, command, random.Random(0))[1]
    return engine, state


@pytest.mark.parametrize("system", ["aoristos", "t10", "phobia"])
@pytest.mark.parametrize("gap", [1.5, 5.0, 15.0, 30.0])
def test_no_simulated_fight_gets_stuck(system, gap):
    shooter, fighter = BLOCKS[system]
    for ours, theirs, foes in ((shooter, fighter, 1), (shooter, fighter, 3),
                               (fighter, shooter, 1), (shooter, shooter, 1)):
        engine, state = fight(system, ours, theirs, foes, gap)
        summary = S.simulate(engine, state, fights=40, seed=11)
        assert summary.stuck == 0, (system, gap, foes, summary)


def test_the_browser_tests_fight_does_not_stall_on_a_reload():
    """Albert (Skjutvapen 4, one pistol) against test_combat's guard with a knife at 5 m:
    three in five of its simulated fights stalled on a reload before the fix."""
    albert = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 5,
              "skills": {"firearms": 4, "evasion": 1}, "weapons": ["pistol"], "right": "pistol"}
    guard = {"physique": 6, "composure": 2, "agility": 5, "alertness": 1, "willpower": 7,
             "skills": {"melee_weapons": 2, "brawling": 1, "evasion": 3},
             "weapons": ["knife"], "right": "knife"}
    engine, state = fight("aoristos", albert, guard, 1, 5.0)
    summary = S.simulate(engine, state, fights=100, seed=3)
    assert summary.stuck == 0
    assert sum(summary.wins.values()) + summary.capped + summary.draws == 100


class Checked:
    """`engine`, whose `play` is checked at every command against `decide` with the same
    dice and its events folded one by one from the state before: the handlers that hand
    back the state they folded on their way (`combat_kit.Folded`: an attack, an
    activation's end, the start with its opening shared by every fight of a run) must
    give exactly the state the events make."""

    def __init__(self, engine):
        self.engine, self.policy, self.plays = engine, engine.policy, 0

    def play(self, state, command, rng):
        dice = rng.getstate()
        events, after = self.engine.play(state, command, rng)
        rng.setstate(dice)
        decided = self.engine.decide(state, command, rng)
        assert decided == events, command
        folded = state
        for event in decided:
            folded = self.engine.evolve(folded, event)
        assert folded == after, command
        self.plays += 1
        return events, after


@pytest.mark.parametrize("system", ["aoristos", "t10", "phobia"])
@pytest.mark.parametrize("gap", [1.5, 15.0])
def test_play_gives_the_state_its_events_make(system, gap):
    shooter, fighter = BLOCKS[system]
    engine, state = fight(system, shooter, fighter, 3, gap)
    checked = Checked(engine)
    summary = S.simulate(checked, state, fights=25, seed=5)
    assert summary.stuck == 0
    assert checked.plays > 25 * 5  # the start, attacks, answers and ends, each checked


def test_play_gives_the_state_its_events_make_after_a_surprise():
    """A surprise rolls dice in the opening (p. 6): it is not shared between fights."""
    shooter, fighter = BLOCKS["aoristos"]
    engine, state = fight("aoristos", shooter, fighter, 3, 15.0)
    state = engine.play(state, engine.parse_command({"type": "set_surprise", "side": "b",
                                                     "hand": "1B1F"}), random.Random(0))[1]
    checked = Checked(engine)
    summary = S.simulate(checked, state, fights=25, seed=6)
    assert summary.stuck == 0
    orders = {
        checked.engine.play(state, checked.policy.start_command(state), random.Random(s))[1].order
        for s in range(12)
    }
    assert len(orders) > 1  # the surprise dice order the fight differently from fight to fight
