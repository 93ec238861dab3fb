"""Replay equals state: random legal command sequences through the Aoristos engine, folded
again from their events (as stored, through the JSON codec), and undone and redone
through the log (rules.engine.replay)."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.aoristos.combat import ENGINE
from rules.aoristos.combat import commands as C
from rules.aoristos.equipment import ARMOUR, WEAPONS
from rules.engine import Record, Viewer, replay
from tests.rules import helpers
from tests.rules.helpers import refold

GM = Viewer(is_gm=True)


def setup():
    state = ENGINE.new_state({})
    blocks = [
        dict(
            name="Ansgar",
            side="a",
            agility=2,
            alertness=3,
            physique=3,
            composure=3,
            willpower=2,
            skills={"firearms": 3, "brawling": 2, "evasion": 1},
            weapons=(WEAPONS["pistol"], WEAPONS["knife"]),
            right="pistol",
        ),
        dict(
            name="Bo",
            side="a",
            agility=3,
            alertness=2,
            physique=2,
            composure=2,
            willpower=3,
            skills={"melee_weapons": 2, "throwing": 2},
            weapons=(WEAPONS["two_handed_sword"], WEAPONS["cobblestone"]),
            x=2.0,
            armour=(ARMOUR["leather_armour"],),
        ),
        dict(
            name="Vakt",
            side="b",
            npc=True,
            agility=2,
            alertness=2,
            physique=3,
            composure=2,
            willpower=2,
            skills={"firearms": 2, "melee_weapons": 1},
            weapons=(WEAPONS["carbine"],),
            right="carbine",
            left="carbine",
            x=12.0,
            armour=(ARMOUR["soft_vest"], ARMOUR["helmet"]),
        ),
        dict(
            name="Hund",
            side="b",
            npc=True,
            agility=4,
            alertness=3,
            physique=1,
            composure=1,
            willpower=1,
            skills={"brawling": 3},
            x=6.0,
            y=3.0,
        ),
    ]
    for block in blocks:
        state, _ = helpers.play(ENGINE, state, C.AddCombatant(**block), random.Random(0))
    return state


def candidates(state, choose: random.Random) -> list:
    """Commands worth trying now (some may still be refused)."""
    if not state.round:
        return [C.StartCombat()]
    if state.reactions and state.attack is None:
        reaction = state.reactions[0]
        who = state.get(reaction.who)
        return [C.Pass(who.id)] + [
            C.Attack(who.id, reaction.target, key, aim=choose.randint(0, 1))
            for key in (*who.held, "unarmed")
        ]
    if state.escape is not None and not state.escape.decided and state.attack is None:
        return [C.Proceed(state.escape.mover), C.Abort(state.escape.mover)]
    attack = state.attack
    if attack is not None:
        if attack.stage == "vigilance":
            view = ENGINE.view(state, GM)
            keys = [o["key"] for o in view["prompts"][0]["options"]]
            chosen = tuple(choose.sample(keys, min(len(keys), choose.randint(0, 3))))
            return [C.Vigilance(attack.target, default=True), C.Vigilance(attack.target, chosen)]
        return [C.Proceed(attack.attacker), C.Abort(attack.attacker)]
    active = state.active
    if active is None:
        return [C.EndEncounter()]
    out = [C.EndActivation(active.id), C.Continue(active.id)]
    view = ENGINE.view(state, GM)
    out += [ENGINE.parse_command(a["command"]) for a in view["actions"] if a["enabled"]]
    for foe in state.combatants:
        if foe.side != active.side and foe.alive:
            for key in (*active.held, "unarmed"):
                out.append(C.Attack(active.id, foe.id, key, aim=choose.randint(0, 1)))
    out.append(
        C.Move(
            active.id,
            round(active.x + choose.uniform(-4, 4), 1),
            round(active.y + choose.uniform(-4, 4), 1),
        )
    )
    foe = choose.choice(state.combatants)
    out.append(C.Move(active.id, foe.x + 1.0, foe.y))  # into melee, and later out of it
    out.append(C.Overwatch(active.id, foe.x, foe.y))
    out.append(
        C.Hazard(
            choose.choice(state.combatants).id,
            "1B",
            choose.choice(["torso", "right_arm", "left_leg", "head", None]),
        )
    )
    return out


def random_game(seed: int, steps: int):
    return helpers.random_game(ENGINE, setup, candidates, seed, steps)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(1, 60))
def test_replay_of_stored_events_equals_state(seed, steps):
    initial, state, records = random_game(seed, steps)
    assert refold(ENGINE, initial, records) == state
    assert replay(ENGINE, initial, records).state == state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(2, 40), data=st.data())
def test_undo_to_any_point_and_redo_all(seed, steps, data):
    initial, state, records = random_game(seed, steps)
    if not records:
        return
    target = data.draw(st.integers(0, len(records)))
    log = [*records, Record(len(records) + 1, undo_to=target)]
    undone = replay(ENGINE, initial, log)
    expected = replay(ENGINE, initial, records[:target]).state
    assert undone.state == expected
    for _ in range(len(records) - target):
        log.append(Record(len(log) + 1, redo=True))
    assert replay(ENGINE, initial, log).state == state


def test_a_new_command_after_an_undo_forgets_the_redo():
    initial, state, records = random_game(7, 12)
    log = [*records, Record(len(records) + 1, undo_to=len(records) - 1)]
    folded = replay(ENGINE, initial, log)
    assert folded.can_redo
    log.append(Record(len(log) + 1, events=()))
    assert not replay(ENGINE, initial, log).can_redo


def test_times_survive_the_json_codec_and_bad_ones_are_refused():
    """The chronicle's events carry times (rules.aoristos.aftermath): stored as ISO text."""
    import json
    from datetime import datetime

    import pytest

    from rules.engine import decode, encode
    from rules.errors import RulesError

    at = datetime(2026, 3, 2, 0, 0, 5)
    stored = json.loads(json.dumps(encode({"at": at, "later": (at,)})))
    assert stored["at"] == {"_": "datetime", "iso": "2026-03-02T00:00:05"}
    assert decode(stored, {}) == {"at": at, "later": (at,)}
    with pytest.raises(RulesError):
        decode({"_": "datetime", "iso": "next tuesday"}, {})
