"""Simulated Phobia fights end before the round cap (issue 46; rules/phobia/combat/policy.py).

The demo's alley fight (core/demo.py's Gränden: Jace, Stridsvana 3 and a knife, against the
guard, Stridsvana 8 and a baton) ended at the 20-round cap in 201 of 1,000 fights (seed 0):
the guard, whose turn comes after Jace's (TO 33 against 5), defended against every blow
of Jace's, which hit once in 14 undefended (a perfect pattern, lines 430-440, Ob3T6 against
3: 2/27), and every action after a response is +Ob1T6 (phobia-utdrag.txt lines 680-682), so
his own blow went from Ob3T6 against 8 (28 %) to Ob4T6 (6 %). Round after round nobody hit.
The policy now defends while its own attack is still to come only when the defence spares
more than it costs (`policy.defence_pays`)."""

import random

from rules import get_system
from rules import simulation as S
from rules.engine import engine_for
from rules.phobia.combat import commands as C
from rules.phobia.combat import policy
from rules.phobia.success import odds

ENGINE = engine_for("phobia", "combat")
# core/demo.py's Phobia catalogue, Jace and the guard (copied: that module needs Django).
KNIFE = {"key": "kniv", "name": "Kniv", "damage": 4, "damage_type": "H",
         "skill": "combat_experience", "ranged": False}  # fmt: skip
BATON = {"key": "batong", "name": "Batong", "damage": 3, "damage_type": "K",
         "skill": "combat_experience", "ranged": False}  # fmt: skip
JACE = {"strength": 14, "endurance": 14, "agility": 13, "personality": 9, "psyche": 15,
        "will": 11, "education": 12, "sight": 15, "hearing": 10, "luck": 10,
        "demolitions": 16, "climbing": 12, "combat_experience": 3, "first_aid": 8}  # fmt: skip
GUARD = {"name": "Vakten", "strength": 12, "endurance": 10, "agility": 10, "will": 14,
         "turn_order": 5, "shock_value": 12, "skills": {"combat_experience": 8}}  # fmt: skip


def demo_fight(*, jace_x: float = 0.0):
    """Gränden as the demo sets it up (Jace's Lugn rolled with a fixed die)."""
    system = get_system("phobia")
    values = {s.key: JACE.get(s.key, s.default) for s in system.attributes + system.skills}
    rolled = system.creation_rolls(values, random.Random(0))
    derived = {d.key: d.value for d in system.derived(values, rolled, system.house({}))}
    jace = ENGINE.character_block(name="Jace", levels=values, derived=derived)
    jace.update(type="add_combatant", side="a", x=jace_x, y=0.0, weapons=["kniv"])
    guard = {"type": "add_combatant", "side": "b", "npc": True, "x": 10.0, "y": 0.0,
             "weapons": ["batong"], **GUARD}  # fmt: skip
    catalogue = {"kniv": ENGINE.item_from_dict("weapon", KNIFE),
                 "batong": ENGINE.item_from_dict("weapon", BATON)}  # fmt: skip
    state = ENGINE.new_state({})
    for data in (jace, guard):
        command = ENGINE.parse_command(data, weapons=catalogue, armour={})
        state = ENGINE.play(state, command, random.Random(0))[1]
    return state


def test_the_demo_fight_seldom_reaches_the_round_cap():
    """Before: 201 of 1,000 capped (seed 0), 62 of these 300, a mean of 10.8 rounds. Now
    none of 1,000 and a mean of 3.9: both strike every round at Ob3T6 (the guard hits 28 %
    of his blows, Jace 7 %), and 20 rounds of that without anybody falling is rare, well
    below 1 %. The bound, 3 of 300 (1 %), leaves room for the dice of a changed engine."""
    state = demo_fight()
    assert state.get("c1").turn_order > state.get("c2").turn_order
    summary = S.simulate(ENGINE, state, fights=300, seed=0)
    assert summary.stuck == 0
    assert summary.capped <= 3
    mean = sum(rounds * n for rounds, n in summary.rounds.items()) / summary.fights
    assert mean < 6


def _jace_attacks(state):
    """Round 1: Jace, 1 m from the guard, declares one action and strikes (pending)."""
    for command in (C.StartRound(), C.Declare("c1", 1), C.Attack("c1", "c2", "kniv", area="chest")):
        state = ENGINE.play(state, command, random.Random(0))[1]
    assert state.pending is not None
    assert state.pending.target == "c2"
    return state


def test_a_defence_that_costs_more_than_it_spares_is_not_made():
    """The guard's turn is still to come: a defence against Jace's weak blow (Stridsvana 3)
    would make his own Ob4T6 (lines 680-682) for little; he lets it come."""
    state = _jace_attacks(demo_fight(jace_x=9.0))
    assert not policy.defence_pays(state, state.pending)
    assert policy.next_command(state, S.Plan(), S.Fight()) == C.Pass("c2")


def test_a_defence_is_made_when_it_costs_nothing_or_spares_more():
    """Once its own attack is done, a defence costs nothing: Jace defends against the
    guard's blow. And a guard as good as a knife fighter of Stridsvana 16 defends against
    one: the blow hits 80 % undefended, the defence spares more than its +Ob1T6 costs."""
    state = _jace_attacks(demo_fight(jace_x=9.0))
    state = ENGINE.play(state, C.Pass("c2"), random.Random(0))[1]
    for command in (C.Declare("c2", 1), C.Attack("c2", "c1", "batong", area="chest")):
        state = ENGINE.play(state, command, random.Random(0))[1]
    assert state.pending is not None
    assert state.pending.target == "c1"
    assert policy.next_command(state, S.Plan(), S.Fight()) == C.Respond("c1", "defend")
    strong = demo_fight(jace_x=9.0)
    for c in strong.combatants:
        values = tuple((k, 16 if k == "combat_experience" else v) for k, v in c.values)
        strong = strong.put(c.with_(values=values))
    state = _jace_attacks(strong)
    assert policy.defence_pays(state, state.pending)
    assert policy.next_command(state, S.Plan(), S.Fight()) == C.Respond("c2", "defend")


def test_the_chance_to_hit():
    """Undefended: the test's exact odds (lines 40-45); a defence only lowers it."""
    assert policy.hit_chance(3, 3) == float(odds(3, 3).success) == 2 / 27
    assert policy.hit_chance(3, 8) > 0.28 > policy.hit_chance(4, 8) * 4
    for dice, chance in ((3, 3), (3, 8), (4, 16), (3, 16)):
        defended = policy.hit_chance(dice, chance, 3, 8)
        assert 0 <= defended < policy.hit_chance(dice, chance)
