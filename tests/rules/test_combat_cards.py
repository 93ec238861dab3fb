"""Issue 26, item 6: an Aoristos fight's cards agree with themselves, and a fight takes a
newcomer once started. Dice are scripted in the order the engine rolls them."""

import pytest

from rules.aoristos.combat import ENGINE
from rules.aoristos.combat import commands as C
from rules.aoristos.combat import events as E
from rules.aoristos.equipment import ARMOUR
from rules.engine import Viewer
from rules.errors import RulesError
from tests.rules import helpers
from tests.rules.helpers import by_name, of

GM = Viewer(is_gm=True)
PLAYERS = Viewer(is_gm=False)


def run(state, command, *dice):
    return helpers.run(ENGINE, state, command, *dice)


def add(state, name, **fields):
    fields.setdefault("npc", False)
    state, events = run(state, C.AddCombatant(name=name, **fields))
    return state, events


def card(state, name, viewer=GM):
    c = by_name(state, name)
    return next(x for x in ENGINE.view(state, viewer)["combatants"] if x["id"] == c.id)


def three_in_a_fight():
    """Hög (SIN 5), Mellan (SIN 3), Låg (SIN 1), started: Hög is activated first."""
    state = ENGINE.new_state({})
    for name, sin, side in (("Hög", 5, "a"), ("Mellan", 3, "b"), ("Låg", 1, "a")):
        state, _ = add(state, name, side=side, alertness=sin)
    state, _ = run(state, C.StartCombat(), 1, 1)
    assert [by_name(state, n).id for n in ("Hög", "Mellan", "Låg")] == list(state.order)
    return state


# --- a newcomer in a started fight (p. 6; rulings.md "Combat rounds") --------------------


def test_a_newcomer_takes_its_place_by_sin_in_a_started_fight_p6():
    """p. 6 "Den som har högst Sinnesnärvaro handlar först ... Den ordning som bestäms i
    första rundan gäller alltid": a newcomer with SIN 4 goes between Hög (5) and Mellan
    (3); nobody already placed moves, and the active combatant keeps its turn."""
    state = three_in_a_fight()
    active = state.active.id
    state, events = add(state, "Ny", side="b", alertness=4)
    joined = of(events, E.JoinedFight)
    new = by_name(state, "Ny")
    assert (joined.id, joined.index, joined.initiative) == (new.id, 1, 4)
    assert [state.get(cid).name for cid in state.order] == ["Hög", "Ny", "Mellan", "Låg"]
    assert state.active.id == active
    assert new.cp == new.drive  # a round's KP, as everyone had at the start (p. 6)
    # Hög's activation ends: the newcomer is next, with its stress roll.
    state, _ = run(state, C.EndActivation(active), 2, 2)
    assert state.active.name == "Ny"


def test_a_newcomer_placed_before_the_active_one_acts_from_the_next_round_p6():
    state = three_in_a_fight()
    state, _ = run(state, C.EndActivation(state.active.id), 2, 2)  # Mellan is activated
    assert state.active.name == "Mellan"
    state, _ = add(state, "Snabb", side="b", alertness=9)
    assert [state.get(cid).name for cid in state.order] == ["Snabb", "Hög", "Mellan", "Låg"]
    assert state.active.name == "Mellan"  # its turn, moved one place down the order
    state, _ = run(state, C.EndActivation(state.active.id), 2, 2)
    assert state.active.name == "Låg"
    state, events = run(state, C.EndActivation(state.active.id), 2, 2)
    assert of(events, E.RoundStarted).round == 2
    assert state.active.name == "Snabb"


def test_a_newcomer_tied_on_sin_comes_after_those_already_placed_p6():
    """Ties go by seat (p. 6); on the same seat the newcomer comes after: the order of the
    first round holds, so nobody already placed is pushed down by a tie."""
    state = three_in_a_fight()
    state, _ = add(state, "Lika", side="b", alertness=3)
    assert [state.get(cid).name for cid in state.order] == ["Hög", "Mellan", "Lika", "Låg"]


def test_the_join_is_in_the_log_and_replays():
    state = three_in_a_fight()
    before = state
    state, events = add(state, "Ny", side="b", alertness=4, npc=True)
    gm_lines = ENGINE.describe(before, events, GM)
    player_lines = ENGINE.describe(before, events, PLAYERS)
    assert gm_lines[-1]["kind"] == "JoinedFight"
    assert gm_lines[-1]["initiative"] == 4
    assert "initiative" not in player_lines[-1]
    assert player_lines[-1]["hidden"]
    assert gm_lines[-1]["id_name"] == "Ny"
    replayed = before
    for event in events:
        replayed = ENGINE.evolve(replayed, event)
    assert replayed == state


def test_a_single_attack_takes_no_newcomer():
    state = ENGINE.new_state({})
    state, _ = add(state, "A", alertness=2)
    state, _ = add(state, "B", side="b", alertness=2)
    state, _ = run(state, C.SingleAttack(by_name(state, "A").id, by_name(state, "B").id))
    with pytest.raises(RulesError, match="single attack"):
        add(state, "C", side="b")


# --- the cards --------------------------------------------------------------------------


def test_losing_consciousness_drops_one_to_lying_p13():
    """p. 13: "förlorar personen omedelbart medvetandet": an unconscious combatant lies
    (docs/rules/aoristos.md), and still lies when it comes to."""
    state = ENGINE.new_state({})
    state, _ = add(state, "Miriam", willpower=3, physique=2,
                   armour=(ARMOUR["soft_vest"], ARMOUR["helmet"]))
    miriam = by_name(state, "Miriam")
    assert miriam.posture == "standing"
    state, events = run(state, C.Hazard(miriam.id, "1B+17", None, "automateld"), 6, 3, 3, 4, 6)
    wound = of(events, E.Wounded)
    assert wound.unconscious
    assert wound.posture == "lying"
    assert card(state, "Miriam")["posture"] == "lying"
    state, _ = run(state, C.Wake(miriam.id))
    assert by_name(state, "Miriam").conscious
    assert by_name(state, "Miriam").posture == "lying"


def test_the_dead_lie_too_p14():
    state = ENGINE.new_state({})
    state, _ = add(state, "Offer", physique=2)
    victim = by_name(state, "Offer")
    state, events = run(state, C.Hazard(victim.id, "1B+17", "torso"), 6, 1, 2, 5, 6)
    assert of(events, E.Wounded).dead
    assert by_name(state, "Offer").posture == "lying"


def test_a_wounded_limb_that_is_not_broken_is_on_the_card_p14():
    """p. 14: a limb breaks at 3+ damage in one hit; 1 damage leaves it wounded, which the
    card shows (with the damage to whoever sees the numbers)."""
    state = ENGINE.new_state({})
    state, _ = add(state, "A", physique=2, willpower=2)
    a = by_name(state, "A")
    state, events = run(state, C.Hazard(a.id, "1B", "right_arm", "taggtråd"), 5, 6, 6, 6)
    assert of(events, E.Wounded).damage == 1
    assert by_name(state, "A").limb("right_arm") == "ok"
    assert card(state, "A")["wounds"] == [{"area": "right_arm", "state": "wounded", "damage": 1}]
    npc_state, _ = add(ENGINE.new_state({}), "N", npc=True, physique=2, willpower=2)
    n = by_name(npc_state, "N")
    npc_state, _ = run(npc_state, C.Hazard(n.id, "1B", "left_leg"), 5, 6, 6, 6)
    assert card(npc_state, "N", PLAYERS)["wounds"] == [
        {"area": "left_leg", "state": "wounded", "damage": None}]


def test_the_active_card_has_its_stress_roll_p6():
    """p. 6, Jakai: stress dice 1 and 3 cost 1 KP; the activated combatant's own numbers
    say so, not only the log."""
    state = ENGINE.new_state({})
    state, _ = add(state, "Jakai", alertness=3, composure=4, drive=7)
    state, _ = add(state, "Foe", side="b", alertness=2)
    state, _ = run(state, C.StartCombat(), 1, 3)
    jakai = card(state, "Jakai")
    assert (jakai["cp"], jakai["stress_dice"], jakai["stress_loss"]) == (6, (1, 3), 1)
