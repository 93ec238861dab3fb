"""The T10 combat engine (rules/t10/combat) against the excerpt's sections of
t10-ap-utdrag.txt ("Färdighetsslag", "Initiativ", "Action points", "Handlingar som går
över flera rundor", "Spara action points", "Utmattning och skada", "Kroppsskydd",
"Ställningar", "Vapen") and the readings of rules/t10/combat/engine.py. Dice are
scripted: each test lists them in the order the engine rolls them (1T10 per initiative
die, two T10 per skill roll)."""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.engine import Viewer, engine_for, replay
from rules.errors import RulesError
from rules.t10.combat import ENGINE, HOUSE_RULES
from rules.t10.combat import commands as C
from rules.t10.combat import events as E
from rules.t10.rolls import test_odds
from tests.rules import helpers
from tests.rules.conftest import ScriptedRng
from tests.rules.helpers import by_name, check_codec, of, refold

GM = Viewer(is_gm=True)
PLAYERS = Viewer(is_gm=False)
JOHANS = Viewer(is_gm=False, controls=frozenset({"c1"}))

PISTOL = {"key": "pistol", "name": "Pistol", "skill": "pistol", "close": 5, "normal": 25,
          "maximum": 50, "modes": [["E", 0]], "damage": 3, "attack_ap": 3, "reload_ap": 5,
          "stance_ap": 2, "magazine": 8}
SMG = {"key": "kpist", "name": "K-pist", "skill": "smg", "close": 5, "normal": 30,
       "maximum": 100, "modes": [["E", 0], ["A", -2]], "damage": 3, "attack_ap": 3,
       "reload_ap": 4, "stance_ap": 2, "magazine": 30}
GRENADE = {"key": "granat", "name": "Handgranat", "skill": "throw", "close": 5, "normal": 15,
           "maximum": 30, "modes": [["E", 0]], "damage": 6, "attack_ap": 3, "reload_ap": 0,
           "stance_ap": 1, "explosive": True}
SHOTGUN = {"key": "hagel", "name": "Hagelgevär", "skill": "rifle", "close": 5, "normal": 20,
           "maximum": 40, "modes": [["E", 0]], "damage": 5, "attack_ap": 4, "reload_ap": 6,
           "stance_ap": 2, "damage_on_miss": True}
VEST = {"key": "vast", "name": "Skyddsväst", "protection": 2}

SEEN: list = []  # every event the scripted tests made, for the codec test


def run(state, command, *dice):
    """`command` decided with these dice and folded (`helpers.run`); its events are SEEN."""
    return helpers.run(ENGINE, state, command, *dice, seen=SEEN)


def kinds(events):
    return [type(e).__name__ for e in events]


def add(state, name, **fields):
    fields.setdefault("npc", False)
    state, _ = run(state, {"type": "add_combatant", "name": name, **fields})
    return state


def active_name(state):
    return state.get(state.active).name if state.active else None


def fight(*, johan=None, soldier=None, dice=(8, 4), **house):
    """Johan (c1, a player's, Pistol +2) and a soldier (c2, an NPC); with the default
    dice Johan acts first."""
    state = ENGINE.new_state(house)
    state = add(state, "Johan", **{"skills": {"pistol": 2}, "weapons": [PISTOL],
                                   "stance": "aimed", **(johan or {})})
    state = add(state, "Soldat", **{"side": "b", "npc": True, "skills": {"throw": 1, "smg": 1},
                                    "weapons": [GRENADE, SMG], "stance": "aimed",
                                    **(soldier or {})})
    state, _ = run(state, {"type": "start"}, *dice)
    return state


def save_ap(state, cid, keep):
    """The active combatant spends all but `keep` AP on an act, then ends its turn."""
    c = state.get(cid)
    assert state.active == cid
    if c.ap > keep:
        state, _ = run(state, {"type": "act", "id": cid, "label": "Spana", "ap": c.ap - keep})
    state, _ = run(state, {"type": "end_turn", "id": cid})
    return state


# Färdighetsslag: Johan's pistol ----------------------------------------------------------


def test_johans_pistol_twelve_plus_two_is_fourteen_three_dos_three_more_damage():
    """Färdighetsslag: "Han slår 12 och lägger till +2 för ett slutligt resultat på 14.
    Johan träffar med skottet, och får dessutom 3 DoS som han använder för att öka skadan
    med +3." Anläggning (±0) at a normal distance: the bonus is the skill's alone."""
    state = fight()
    assert active_name(state) == "Johan"
    state, events = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol",
                "distance": 10}, 6, 6,
    )
    rolled = of(events, E.AttackRolled)
    assert rolled.parts == (("skill", 2),)
    [outcome] = rolled.rolls
    assert (outcome.dice, outcome.total, outcome.success, outcome.dos) == ((6, 6), 14, True, 3)
    wound = of(events, E.Damaged)
    assert (wound.amount, wound.damage, wound.fatigue) == (3 + 3, 6, 6)
    soldier = by_name(state, "Soldat")
    assert (soldier.fatigue, soldier.damage) == (6, 6)
    johan = by_name(state, "Johan")
    assert johan.ap == 10 - 3  # Anfall: the weapon's 3 AP
    assert johan.ammo_of(johan.weapon("pistol")) == 7


def test_a_total_of_eleven_hits_with_no_dos_and_ten_misses():
    """Färdighetsslag: 11 or more succeeds; 10 is a miss with no DoF."""
    state = fight()
    state, events = run(state, {"type": "attack", "id": "c1", "target": "c2",
                                "weapon": "pistol", "distance": 10}, 4, 5)
    assert of(events, E.AttackRolled).rolls[0].total == 11
    assert of(events, E.Damaged).amount == 3
    state, events = run(state, {"type": "attack", "id": "c1", "target": "c2",
                                "weapon": "pistol", "distance": 10}, 4, 4)
    assert not of(events, E.AttackRolled).rolls[0].success
    assert not [e for e in events if isinstance(e, E.Damaged)]


# Initiativ ---------------------------------------------------------------------------------


def test_initiative_is_1t10_plus_initiative_and_ties_roll_again_among_the_tied_only():
    """Initiativ: "Slår två eller flera spelare lika så får de slå igen för att avgöra sin
    inbördes turordning." A (Initiativ 2) rolls 3, B (0) rolls 5, C (0) rolls 4: A and B
    tie at 5 and roll again (4 and 4: again; 2 and 7), C is not rolled again."""
    state = ENGINE.new_state({})
    state = add(state, "A", initiative=2)
    state = add(state, "B", initiative=0)
    state = add(state, "C", initiative=0)
    state, events = run(state, {"type": "start"}, 3, 5, 4, 4, 4, 2, 7)
    rolled = of(events, E.InitiativeRolled)
    assert dict(rolled.rolls) == {"c1": (3, 4, 2), "c2": (5, 4, 7), "c3": (4,)}
    assert [c["name"] for c in ENGINE.view(state, GM)["order"]] == ["B", "A", "C"]
    assert active_name(state) == "B"


def test_the_order_is_kept_every_round():
    """Initiativ is rolled "då en actionsituation uppstår": once; round 2 needs no dice."""
    state = fight(dice=(2, 9))
    assert active_name(state) == "Soldat"
    state, _ = run(state, {"type": "end_turn", "id": "c2"})
    state, events = run(state, {"type": "end_turn", "id": "c1"})
    assert kinds(events)[-3:] == ["RoundEnded", "RoundStarted", "TurnStarted"]
    assert (state.round, active_name(state)) == (2, "Soldat")


def test_a_combatant_joining_a_started_fight_rolls_and_ties_break_against_it():
    """A newcomer rolls 1T10 + Initiativ; tied with Johan (8), both roll again (Johan's
    reroll orders only him against the newcomer)."""
    state = fight()
    state, events = run(state, {"type": "add_combatant", "name": "Lisa", "npc": False,
                                "initiative": 3}, 5, 4, 6)
    joined = of(events, E.InitiativeRolled)
    assert joined.reason == "join"
    assert dict(joined.rolls) == {"c1": (8, 4), "c3": (5, 6)}
    assert [c["name"] for c in ENGINE.view(state, GM)["order"]] == ["Lisa", "Johan", "Soldat"]
    assert by_name(state, "Lisa").ap == 10
    # Her place has passed (Johan acts): she goes right after the current turn.
    state, _ = run(state, {"type": "end_turn", "id": "c1"})
    assert active_name(state) == "Lisa"


def test_a_newcomer_tied_with_ordered_combatants_alone_rolls_again():
    """A and B tied at 5 and rerolled 6 and 2; C joins at 5 too: only C rolls again (4),
    and lands between them; A's and B's order stays."""
    state = ENGINE.new_state({})
    state = add(state, "A")
    state = add(state, "B")
    state, _ = run(state, {"type": "start"}, 5, 5, 6, 2)
    state, events = run(state, {"type": "add_combatant", "name": "C"}, 5, 4)
    assert dict(of(events, E.InitiativeRolled).rolls) == {"c3": (5, 4)}
    assert [c["name"] for c in ENGINE.view(state, GM)["order"]] == ["A", "C", "B"]


# Action points -------------------------------------------------------------------------------


def test_ten_ap_a_round_one_turn_each_and_spending_them_all_ends_the_turn():
    """Action points: "Alla rollpersoner har 10 AP ... När en rollperson har använt alla
    sina AP så är rundan slut för den rollpersonen"."""
    state = fight()
    assert by_name(state, "Johan").ap == 10
    state, events = run(state, {"type": "act", "id": "c1", "label": "Springa", "ap": 10})
    assert kinds(events)[-2:] == ["TurnEnded", "TurnStarted"]
    assert active_name(state) == "Soldat"
    assert by_name(state, "Johan").saved == 0
    with pytest.raises(RulesError, match="not Johan's turn"):
        run(state, {"type": "act", "id": "c1", "label": "Spana", "ap": 1})


def test_saved_ap_act_out_of_turn_and_vanish_when_the_round_ends():
    """Spara action points: saved AP are spent "när som helst under återstoden av rundan"
    and "När rundan är slut räknas samtliga sparade AP som förbrukade"."""
    state = fight()
    state = save_ap(state, "c1", 4)
    johan = by_name(state, "Johan")
    assert (johan.ap, johan.saved, johan.turn_done) == (0, 4, True)
    assert active_name(state) == "Soldat"
    state, events = run(state, {"type": "move", "id": "c1", "metres": 4.0})  # 2 m per AP
    assert of(events, E.APSpent).saved == 2
    assert by_name(state, "Johan").saved == 2
    with pytest.raises(RulesError, match="2 saved AP; this costs 3"):
        run(state, {"type": "cover", "id": "c1"})
    before = state
    state, events = run(state, {"type": "end_turn", "id": "c2"})
    assert of(events, E.RoundEnded).round == 1
    ended = before
    for event in events[: events.index(of(events, E.RoundEnded)) + 1]:
        ended = ENGINE.evolve(ended, event)
    assert by_name(ended, "Johan").saved == 0  # gone when the round ends
    johan = by_name(state, "Johan")
    assert (state.round, johan.saved, johan.ap) == (2, 0, 10)
    assert [o["status"] for o in ENGINE.view(state, GM)["order"]] == ["active", "waiting"]


def test_a_combatant_with_no_ap_has_no_turn():
    """Utmattning 10 leaves 0 AP: the turn is skipped with a log line."""
    state = fight(soldier={"fatigue": 10, "damage": 2}, dice=(8, 4))
    state, events = run(state, {"type": "end_turn", "id": "c1"})
    assert "TurnSkipped" in kinds(events)
    lines = ENGINE.describe(state, events, GM)
    assert any(line["kind"] == "TurnSkipped" and line["id_name"] == "Soldat" for line in lines)
    assert (state.round, active_name(state)) == (2, "Johan")
    assert by_name(state, "Soldat").fatigue == 9  # and awake again: 1 AP next round


# Handlingar som går över flera rundor: Johan's reload ----------------------------------------


def test_johans_reload_five_ap_with_two_left_is_finished_next_round_with_seven_left():
    """Handlingar som går över flera rundor: "Detta kostar 5 AP, men han har bara 2 kvar
    den här rundan. Han betalar sina 2 AP, och börjar ladda om. När det är Johans tur nästa
    runda betalar han de sista 3 AP. Han har nu laddat om pistolen, och har 7 AP kvar.\""""
    state = fight()
    for _shot in range(2):
        state, _ = run(state, {"type": "attack", "id": "c1", "target": "c2",
                               "weapon": "pistol", "distance": 10}, 1, 1)
    state, _ = run(state, {"type": "act", "id": "c1", "label": "Spana", "ap": 2})
    johan = by_name(state, "Johan")
    assert (johan.ap, johan.ammo_of(johan.weapon("pistol"))) == (2, 6)
    state, events = run(state, {"type": "reload", "id": "c1", "weapon": "pistol"})
    begun = of(events, E.ActionBegun)
    assert (begun.cost, begun.paid) == (5, 2)
    assert kinds(events)[1:] == ["TurnEnded", "TurnStarted"]  # no AP left: the turn ends
    johan = by_name(state, "Johan")
    assert (johan.ap, johan.saved, johan.begun.rest) == (0, 0, 3)
    shown = next(c for c in ENGINE.view(state, JOHANS)["combatants"] if c["id"] == "c1")
    assert shown["begun"]["action"] == "reload"
    assert (shown["begun"]["paid"], shown["begun"]["rest"]) == (2, 3)
    state, events = run(state, {"type": "end_turn", "id": "c2"})
    assert kinds(events)[-4:] == ["RoundStarted", "TurnStarted", "BegunContinued", "Reloaded"]
    assert of(events, E.BegunContinued).paid == 3
    johan = by_name(state, "Johan")
    assert (johan.ap, johan.begun, johan.ammo_of(johan.weapon("pistol"))) == (7, None, 8)


def test_only_ones_own_turn_begins_a_dearer_action_and_moves_are_never_begun():
    state = fight()
    state, _ = run(state, {"type": "act", "id": "c1", "label": "Spana", "ap": 9})
    with pytest.raises(RulesError, match="1 AP left; this costs 2"):
        run(state, {"type": "move", "id": "c1", "metres": 3.0})
    state, _ = run(state, {"type": "end_turn", "id": "c1"})
    with pytest.raises(RulesError, match="1 saved AP; this costs 3"):
        run(state, {"type": "cover", "id": "c1"})


def test_a_begun_action_that_can_no_longer_be_made_is_lost():
    """A begun attack whose target has died meanwhile: paid, and lost."""
    state = fight()
    state, _ = run(state, {"type": "add_combatant", "name": "Vakt", "side": "b"}, 1)
    state, _ = run(state, {"type": "act", "id": "c1", "label": "Spana", "ap": 8})
    state, events = run(state, {"type": "attack", "id": "c1", "target": "c3",
                                "weapon": "pistol", "distance": 10})
    assert of(events, E.ActionBegun).cost == 3
    state, _ = run(state, {"type": "damage", "id": "c3", "amount": 12})
    assert not by_name(state, "Vakt").alive
    state, events = run(state, {"type": "end_turn", "id": "c2"})
    lost = of(events, E.ActionLost)
    assert "dead" in lost.why
    assert by_name(state, "Johan").ap == 9


# Spara action points: the grenade --------------------------------------------------------


def grenade_thrown(keep=4):
    """Johan saves `keep` AP; the soldier (Kasta +1, Anläggning) throws a grenade at him."""
    state = fight()
    state = save_ap(state, "c1", keep)
    state, events = run(state, {"type": "attack", "id": "c2", "target": "c1",
                                "weapon": "granat", "distance": 10})
    return state, events


def test_johan_throws_himself_into_cover_with_saved_ap_and_escapes_the_grenade():
    """Spara action points: "Johan har sparat 4 AP ... En av soldaterna kastar en
    handgranat. Johan spenderar genast 3 av sina sparade AP på att kasta sig i skydd, och
    undkommer explosionen." The throw waits for Johan's answer; cover is 3 AP (house rule
    from the example); an explosive does nothing to a target in cover."""
    state, events = grenade_thrown()
    declared = of(events, E.AttackDeclared)
    assert declared.waiting == ("c1",)
    assert state.pending is not None
    [prompt] = ENGINE.view(state, JOHANS)["prompts"]
    assert (prompt["for"], prompt["saved"], prompt["mine"], prompt["target"]) == ("c1", 4, True,
                                                                                   True)
    assert ENGINE.timeout_actor(state, C.Pass("c1")) == "c2"
    assert ENGINE.timeout_actor(state, C.Cover("c1")) is None
    state, events = run(state, {"type": "cover", "id": "c1"})
    assert kinds(events)[:4] == ["ReactionDeclared", "ReactionsClosed", "APSpent", "CoverTaken"]
    rolled = of(events, E.AttackRolled)
    assert (rolled.covered, rolled.rolls) == (True, ())
    assert not [e for e in events if isinstance(e, E.Damaged)]
    johan = by_name(state, "Johan")
    assert (johan.saved, johan.in_cover, johan.fatigue, johan.damage) == (1, True, 0, 0)
    assert state.pending is None
    assert active_name(state) == "Soldat"


def test_without_cover_the_grenade_hits_and_the_fatigue_takes_the_saved_ap():
    """The same throw, Johan passing: 6 + 5 + 1 = 12, one DoS: 7 damage, 7 Utmattning;
    the fatigue's rise takes his saved AP ("Utmattning ... sänker AP")."""
    state, _ = grenade_thrown()
    state, events = run(state, {"type": "pass", "id": "c1"}, 6, 5)
    wound = of(events, E.Damaged)
    assert (wound.amount, wound.damage, wound.fatigue, wound.saved_lost) == (7, 7, 7, 4)
    assert by_name(state, "Johan").saved == 0


def test_cover_gives_a_direct_attack_the_house_modifier_and_lasts_until_one_moves():
    state, _ = grenade_thrown()
    state, _ = run(state, {"type": "cover", "id": "c1"})
    state, _ = run(state, {"type": "stance", "id": "c2", "stance": "normal"})
    state, _ = run(state, {"type": "stance", "id": "c2", "stance": "ready", "weapon": "kpist"})
    state, events = run(state, {"type": "attack", "id": "c2", "target": "c1", "weapon": "kpist",
                                "distance": 10})
    assert of(events, E.AttackDeclared).waiting == ("c1",)  # 1 saved AP: a prompt again
    state, events = run(state, {"type": "pass", "id": "c1"}, 5, 5)
    assert ("cover", -2) in of(events, E.AttackRolled).parts
    state, _ = run(state, {"type": "move", "id": "c1", "metres": 1.5})
    assert not by_name(state, "Johan").in_cover


# Kroppsskydd: the SMG ------------------------------------------------------------------------


def test_the_smg_against_armour_two_gives_one_damage_and_three_fatigue():
    """Kroppsskydd: "Johan blir skjuten av en k-pist som gör 3 i skada. Johan bär dock ett
    kroppsskydd med skydd 2. Han tar alltså bara 1 poäng skada, men tar fortfarande 3
    poäng i utmattning." The soldier acts first; 5 + 5 + 1 = 11, a hit with no DoS."""
    state = ENGINE.new_state({})
    state = add(state, "Johan", skills={"pistol": 2}, weapons=[PISTOL], armour=[VEST])
    state = add(state, "Soldat", side="b", npc=True, skills={"smg": 1}, weapons=[SMG],
                right="kpist", stance="aimed")
    assert by_name(state, "Johan").protection == 2
    state, _ = run(state, {"type": "start"}, 1, 9)
    state, events = run(state, {"type": "attack", "id": "c2", "target": "c1", "weapon": "kpist",
                                "distance": 20}, 5, 5)
    wound = of(events, E.Damaged)
    assert (wound.amount, wound.protection, wound.damage, wound.fatigue) == (3, 2, 1, 3)
    johan = by_name(state, "Johan")
    assert (johan.damage, johan.fatigue) == (1, 3)
    assert johan.ap == 7  # the rise lowers the AP he has left this round


# Utmattning och skada --------------------------------------------------------------------


def test_fatigue_lowers_ap_and_rolls_and_falls_each_round_never_below_damage():
    """Utmattning och skada: "Varje poäng utmattning sänker AP och samtliga färdighetsslag
    med 1 ... Utmattning minskas med 1 varje runda ... kan aldrig minskas under
    rollpersonens nuvarande skada, om man inte använder smärtstillande"."""
    state = fight(johan={"fatigue": 3, "damage": 2})
    assert by_name(state, "Johan").ap == 7
    state, events = run(state, {"type": "attack", "id": "c1", "target": "c2",
                                "weapon": "pistol", "distance": 10}, 5, 5)
    assert of(events, E.AttackRolled).parts == (("skill", 2), ("fatigue", -3))
    for expected in (2, 2):
        state, _ = run(state, {"type": "end_turn", "id": state.active})
        state, _ = run(state, {"type": "end_turn", "id": state.active})
        assert by_name(state, "Johan").fatigue == expected
    state, _ = run(state, {"type": "painkillers", "id": "c1"})
    assert by_name(state, "Johan").ap == 8 - 2
    state, _ = run(state, {"type": "end_turn", "id": "c1"})
    state, _ = run(state, {"type": "end_turn", "id": "c2"})
    assert by_name(state, "Johan").fatigue == 1


def test_spending_ap_lowers_fatigue_one_per_ap_but_not_below_damage():
    state = fight(johan={"fatigue": 5, "damage": 2})
    with pytest.raises(RulesError, match="no lower than 2"):
        run(state, {"type": "recover", "id": "c1", "points": 4})
    state, events = run(state, {"type": "recover", "id": "c1", "points": 3})
    assert of(events, E.APSpent).ap == 3
    johan = by_name(state, "Johan")
    assert (johan.fatigue, johan.ap) == (2, 5 - 3)  # the AP of the round stay as they were


def test_fatigue_ten_knocks_out_and_damage_ten_kills():
    """Utmattning och skada: "Om rollpersonen kommer upp i 10 poäng utmattning blir denne
    medvetslös ... Kommer rollpersonen upp i 10 poäng skada är denne död"."""
    state = fight(soldier={"fatigue": 4, "damage": 4, "protection": 0})
    state, events = run(state, {"type": "attack", "id": "c1", "target": "c2",
                                "weapon": "pistol", "distance": 10}, 6, 5)
    wound = of(events, E.Damaged)  # 13: 5 damage
    assert (wound.amount, wound.unconscious, wound.dead) == (5, False, False)
    state, events = run(state, {"type": "attack", "id": "c1", "target": "c2",
                                "weapon": "pistol", "distance": 10}, 1, 9)
    wound = of(events, E.Damaged)  # 12: 4 damage, fatigue 13, damage 13
    assert (wound.dead, wound.unconscious) == (True, False)
    soldier = by_name(state, "Soldat")
    assert (soldier.alive, soldier.conscious) == (False, False)
    state2 = fight(soldier={"fatigue": 8, "damage": 0, "protection": 5})
    state2, events = run(state2, {"type": "attack", "id": "c1", "target": "c2",
                                  "weapon": "pistol", "distance": 10}, 5, 5)
    wound = of(events, E.Damaged)
    assert (wound.damage, wound.fatigue, wound.unconscious, wound.dead) == (0, 4, True, False)
    assert [o["status"] for o in ENGINE.view(state2, GM)["order"]][-1] == "unconscious"
    with pytest.raises(RulesError, match="is dead"):
        run(state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol",
                    "distance": 10})
    for command in ({"type": "painkillers", "id": "c1", "target": "c2"},
                    {"type": "treat", "id": "c1", "target": "c2"},
                    {"type": "damage", "id": "c2", "amount": 1}):
        with pytest.raises(RulesError, match="is dead"):
            run(state, command)


def test_medical_care_heals_damage_across_rounds():
    """Skada "kan bara minskas genom sjukvård": 10 AP (house rule) begun with 7, done
    next turn; Sjukvård +1: 6 + 5 + 1 = 12, one DoS: 1 + 1 healed."""
    state = fight(johan={"skills": {"medicine": 1, "pistol": 2}, "damage": 3, "fatigue": 3})
    assert by_name(state, "Johan").ap == 7
    state, events = run(state, {"type": "treat", "id": "c1", "target": "c1"})
    assert of(events, E.ActionBegun).paid == 7
    state, events = run(state, {"type": "end_turn", "id": "c2"}, 6, 5)
    treated = of(events, E.Treated)
    # Anläggning: −4 on other rolls; Utmattning stays 3: it does not fall below Skada.
    assert treated.parts == (("skill", 1), ("stance", -4), ("fatigue", -3))
    assert (treated.outcome.total, treated.healed) == (6 + 5 - 6, 0)
    state = fight(johan={"skills": {"medicine": 2}, "damage": 3, "stance": "normal"})
    state, events = run(state, {"type": "treat", "id": "c1", "target": "c1"}, 6, 6)
    treated = of(events, E.Treated)
    assert (treated.outcome.total, treated.outcome.dos, treated.healed) == (14, 3, 3)
    assert by_name(state, "Johan").damage == 0


# Ställningar ---------------------------------------------------------------------------------


def test_going_up_pays_each_step_and_going_down_pays_once():
    """Ställningar: "från Normal till Anläggning måste man först betala AP för att gå från
    Normal till Färdigställning, och sedan ... från Färdigställning till Anläggning. Går
    man ner ... behöver man bara betala kostnaden för den ställning man går till"."""
    state = fight(johan={"stance": "normal"})
    with pytest.raises(RulesError, match="no attack from Normal"):
        run(state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol",
                    "distance": 10})
    state, events = run(state, {"type": "stance", "id": "c1", "stance": "aimed"})
    assert (of(events, E.APSpent).ap, of(events, E.StanceChanged).steps) == (4, 2)
    state, events = run(state, {"type": "stance", "id": "c1", "stance": "normal"})
    assert of(events, E.APSpent).ap == 2
    state, events = run(state, {"type": "stance", "id": "c1", "stance": "ready"})
    assert of(events, E.APSpent).ap == 2
    assert by_name(state, "Johan").ap == 2
    with pytest.raises(RulesError, match="in that stance already"):
        run(state, {"type": "stance", "id": "c1", "stance": "ready"})


def test_stances_change_attacks_and_other_rolls():
    """Färdigställning −2 on attacks and other rolls; Anläggning ±0 on attacks, −4 on
    other rolls; Normal ±0 on other rolls."""
    state = fight(johan={"stance": "ready"})
    state, events = run(state, {"type": "attack", "id": "c1", "target": "c2",
                                "weapon": "pistol", "distance": 10}, 5, 5)
    assert ("stance", -2) in of(events, E.AttackRolled).parts
    state, events = run(state, {"type": "test", "id": "c1", "skill": "perception"}, 5, 5)
    assert of(events, E.SkillRolled).parts == (("skill", 0), ("stance", -2))
    state, _ = run(state, {"type": "stance", "id": "c1", "stance": "aimed"})
    state, events = run(state, {"type": "test", "id": "c1", "skill": "perception",
                                "modifier": 1, "ap": 1}, 5, 5)
    assert of(events, E.SkillRolled).parts == (("skill", 0), ("stance", -4), ("roll_gm", 1))


def test_another_weapon_is_taken_up_from_normal():
    state = fight(soldier={"right": "granat", "stance": "aimed"}, dice=(1, 9))
    with pytest.raises(RulesError, match="lower Handgranat to Normal first"):
        run(state, {"type": "stance", "id": "c2", "stance": "ready", "weapon": "kpist"})
    state, events = run(state, {"type": "stance", "id": "c2", "stance": "normal"})
    assert of(events, E.APSpent).ap == 1  # the grenade's stance AP
    state, events = run(state, {"type": "stance", "id": "c2", "stance": "ready",
                                "weapon": "kpist"})
    assert of(events, E.APSpent).ap == 2
    assert by_name(state, "Soldat").wielded == "kpist"


# Vapen: ranges, fire modes, damage on a miss -----------------------------------------------


@pytest.mark.parametrize(("distance", "part"), [(5, ("range", 2)), (25, None),
                                                 (26, ("range", -2)), (50, ("range", -2))])
def test_range_close_plus_two_beyond_normal_minus_two(distance, part):
    """Vapen, Räckvidd: within close +2, beyond normal −2 (the pistol 5/25/50)."""
    state = fight()
    state, events = run(state, {"type": "attack", "id": "c1", "target": "c2",
                                "weapon": "pistol", "distance": distance}, 1, 1)
    parts = of(events, E.AttackRolled).parts
    assert parts == ((("skill", 2), part) if part else (("skill", 2),))


def test_beyond_maximum_range_there_is_no_attack():
    state = fight()
    with pytest.raises(RulesError, match="beyond Pistol's maximum range"):
        run(state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol",
                    "distance": 50.5})
    with pytest.raises(RulesError, match="distance"):
        run(state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol"})


def test_e_rolls_once_a_rolls_twice_each_on_its_own():
    """Eldgivningssätt: "E låter spelaren slå ett anfallsslag och A två anfallsslag";
    switching costs 2 AP; A's modifier (−2) on each roll; a burst uses 3 rounds."""
    state = fight(dice=(1, 9), soldier={"right": "kpist"})
    with pytest.raises(RulesError, match="switching the fire mode"):
        run(state, {"type": "attack", "id": "c2", "target": "c1", "weapon": "kpist",
                    "distance": 10, "mode": "A"})
    state, events = run(state, {"type": "fire_mode", "id": "c2", "weapon": "kpist",
                                "mode": "A"})
    assert of(events, E.APSpent).ap == 2
    state, events = run(state, {"type": "attack", "id": "c2", "target": "c1", "weapon": "kpist",
                                "distance": 10, "mode": "A"}, 6, 6, 3, 3)
    rolled = of(events, E.AttackRolled)
    assert rolled.parts == (("skill", 1), ("mode", -2))
    assert [(o.total, o.success) for o in rolled.rolls] == [(11, True), (5, False)]
    assert [e.amount for e in events if isinstance(e, E.Damaged)] == [3]
    soldier = by_name(state, "Soldat")
    assert soldier.ammo_of(soldier.weapon("kpist")) == 27
    state, events = run(state, {"type": "attack", "id": "c2", "target": "c1", "weapon": "kpist",
                                "distance": 10}, 6, 6, 6, 6)
    assert [e.amount for e in events if isinstance(e, E.Damaged)] == [3, 3]  # each on its own
    with pytest.raises(RulesError, match="fires A already"):
        run(state, {"type": "fire_mode", "id": "c2", "weapon": "kpist", "mode": "A"})


def test_an_empty_magazine_must_be_reloaded():
    small = {**PISTOL, "magazine": 1}
    state = fight(johan={"weapons": [small, GRENADE]})
    state, _ = run(state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol",
                           "distance": 10}, 1, 1)
    with pytest.raises(RulesError, match="must be reloaded"):
        run(state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol",
                    "distance": 10})
    with pytest.raises(RulesError, match="ammunition is not counted"):
        run(state, {"type": "reload", "id": "c1", "weapon": "granat"})
    state, _ = run(state, {"type": "reload", "id": "c1", "weapon": "pistol"})
    with pytest.raises(RulesError, match="fully loaded"):
        run(state, {"type": "reload", "id": "c1", "weapon": "pistol"})


def test_a_weapon_marked_damage_on_a_miss_deals_damage_less_dof():
    """Att använda DoS och DoF: "Vissa vapen låter spelaren dra ifrån DoF från skadan, och
    alltså göra viss skada fastän anfallet missade": 3 + 4 = 7, 3 DoF: 5 − 3 = 2; 2 + 1 =
    3, 7 DoF: nothing."""
    state = fight(johan={"weapons": [SHOTGUN], "skills": {}})
    state, events = run(state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "hagel",
                                "distance": 10}, 3, 4)
    assert of(events, E.AttackRolled).rolls[0].dof == 3
    assert of(events, E.Damaged).amount == 2
    state, events = run(state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "hagel",
                                "distance": 10}, 2, 1)
    assert not [e for e in events if isinstance(e, E.Damaged)]


# Simultaneous savers ---------------------------------------------------------------------------


def test_simultaneous_savers_are_ordered_by_a_new_initiative_roll():
    """Spara action points: "Om flera spelare har sparat AP och vill agera samtidigt så slår
    man ett nytt initiativslag för att avgöra vem som går först." Johan and Lisa have saved
    AP when the soldier shoots at Johan; both react (Johan first, then Lisa): the new roll
    ties at 3, then Lisa's 8 beats Johan's 2, and her shot drops the soldier before his
    attack resolves."""
    state = ENGINE.new_state({})
    state = add(state, "Johan", skills={"pistol": 2}, weapons=[PISTOL], stance="aimed")
    state = add(state, "Lisa", skills={"pistol": 3}, weapons=[PISTOL], stance="aimed")
    state = add(state, "Soldat", side="b", npc=True, skills={"smg": 1}, weapons=[SMG],
                stance="aimed", fatigue=6, damage=6)
    state, _ = run(state, {"type": "start"}, 9, 8, 1)
    state = save_ap(state, "c1", 5)
    state = save_ap(state, "c2", 4)
    assert active_name(state) == "Soldat"
    state, events = run(state, {"type": "attack", "id": "c3", "target": "c1", "weapon": "kpist",
                                "distance": 10})
    assert of(events, E.AttackDeclared).waiting == ("c1", "c2")
    assert {p["for"] for p in ENGINE.view(state, GM)["prompts"]} == {"c1", "c2"}
    with pytest.raises(RulesError, match="waiting for the reactions"):
        run(state, {"type": "end_turn", "id": "c3"})
    state, events = run(state, {"type": "cover", "id": "c1"})
    assert events == (E.ReactionDeclared("c1", C.Cover("c1"), 3),)
    with pytest.raises(RulesError, match="answered already"):
        run(state, {"type": "pass", "id": "c1"})
    state, events = run(state, {"type": "attack", "id": "c2", "target": "c3", "weapon": "pistol",
                                "distance": 10}, 3, 3, 2, 8, 6, 6)
    order = of(events, E.InitiativeRolled)
    assert order.reason == "react"
    assert dict(order.rolls) == {"c2": (3, 8), "c1": (3, 2)}
    assert kinds(events)[3:] == ["APSpent", "AttackRolled", "Damaged", "APSpent", "CoverTaken",
                                 "AttackLost", "TurnEnded", "RoundEnded", "RoundStarted",
                                 "TurnStarted"]
    assert of(events, E.AttackRolled).reaction
    assert of(events, E.AttackLost).why == "attacker_down"
    assert not by_name(state, "Soldat").conscious
    assert (by_name(state, "Johan").in_cover, state.round) == (True, 2)


def test_a_reaction_that_can_no_longer_be_made_is_lost():
    """Lisa's reaction goes first (2 against 9) and kills the soldier: Johan's shot at
    him, declared as a reaction, is lost and costs nothing."""
    state = ENGINE.new_state({})
    state = add(state, "Johan", skills={"pistol": 2}, weapons=[PISTOL], stance="aimed")
    state = add(state, "Lisa", skills={"pistol": 3}, weapons=[PISTOL], stance="aimed")
    state = add(state, "Soldat", side="b", npc=True, skills={"smg": 1}, weapons=[SMG],
                stance="aimed", damage=7, fatigue=7)
    state, _ = run(state, {"type": "start"}, 9, 8, 1)
    state = save_ap(state, "c1", 5)
    state = save_ap(state, "c2", 4)
    state, _ = run(state, {"type": "attack", "id": "c3", "target": "c2", "weapon": "kpist",
                           "distance": 10})
    state, _ = run(state, {"type": "attack", "id": "c1", "target": "c3", "weapon": "pistol",
                           "distance": 10})
    state, events = run(state, {"type": "attack", "id": "c2", "target": "c3", "weapon": "pistol",
                                "distance": 10}, 2, 9, 6, 6)
    lost = of(events, E.ReactionLost)
    assert (lost.id, "dead" in lost.why) == ("c1", True)
    assert [e.id for e in events if isinstance(e, E.APSpent)] == ["c2"]  # Johan paid nothing
    assert not by_name(state, "Soldat").alive


# GM commands -------------------------------------------------------------------------------


def test_the_gm_adds_updates_damages_and_ends():
    state = ENGINE.new_state({})
    state = add(state, "Vakt", npc=True, side="b", protection=3, armour=[VEST])
    assert by_name(state, "Vakt").protection == 5
    state, _ = run(state, {"type": "remove_combatant", "id": "c1"})
    assert state.combatants == ()
    state = fight()
    state, events = run(state, {"type": "update_combatant", "id": "c1", "fatigue": 4})
    assert dict(of(events, E.CombatantUpdated).changes)["ap"] == 6
    state, events = run(state, {"type": "damage", "id": "c2", "amount": 4, "protected": False,
                                "label": "Fall"})
    assert (of(events, E.Damaged).damage, by_name(state, "Soldat").fatigue) == (4, 4)
    with pytest.raises(RulesError, match="nobody leaves"):
        run(state, {"type": "remove_combatant", "id": "c1"})
    state, events = run(state, {"type": "end_round"})
    assert kinds(events)[:2] == ["RoundEnded", "RoundStarted"]
    state, _ = run(state, {"type": "end"})
    assert state.ended
    with pytest.raises(RulesError, match="ended"):
        run(state, {"type": "start"})


def test_a_round_nobody_can_act_in_waits_for_the_gm():
    state = ENGINE.new_state({})
    state = add(state, "A", fatigue=11, damage=3)
    state = add(state, "B", fatigue=12)
    state, events = run(state, {"type": "start"}, 2, 3)
    assert kinds(events) == ["InitiativeRolled", "RoundStarted", "TurnSkipped", "TurnSkipped",
                             "RoundEnded"]
    assert state.round_closed
    with pytest.raises(RulesError, match="the GM starts the next"):
        run(state, {"type": "act", "id": "c1", "label": "x", "ap": 1})
    state, events = run(state, {"type": "start"})
    assert kinds(events)[0] == "RoundStarted"
    assert by_name(state, "A").fatigue == 9  # 11, 10, 9: awake with 1 AP
    assert active_name(state) == "A"


# Refusals --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("data", "message"), [
    ([], "a command is an object"),
    ({"type": "shoot"}, "unknown command type"),
    ({"type": "attack", "id": "c1", "target": "c2", "weapon": "x", "area": "arm"},
     "unknown fields"),
    ({"type": "attack", "id": "c1", "target": "c2"}, "attack needs weapon"),
    ({"type": "attack", "id": "c1", "target": "c2", "weapon": "x", "mode": "S"}, "E or A"),
    ({"type": "attack", "id": "c1", "target": "c2", "weapon": "x", "distance": "far"},
     "must be a number"),
    ({"type": "attack", "id": "c1", "target": "c2", "weapon": "x", "distance": 1e9},
     "out of range"),
    ({"type": "stance", "id": "c1", "stance": "prone"}, "stance is one of"),
    ({"type": "test", "id": "c1", "skill": "juggling"}, "unknown skill"),
    ({"type": "act", "id": "c1", "label": "x", "ap": "two"}, "whole number"),
    ({"type": "cover", "id": 7}, None),  # a number-looking id is text
    ({"type": "damage", "id": "c1", "amount": 3, "protected": "yes"}, "true or false"),
    ({"type": "add_combatant", "name": "X", "skills": {"juggling": 2}}, "unknown skill"),
    ({"type": "add_combatant", "name": "X", "skills": {"pistol": 40}}, "-30 to 30"),
    ({"type": "add_combatant", "name": "X", "skills": [1]}, "must be an object"),
    ({"type": "add_combatant", "name": "X", "weapons": ["nope"]}, "in the catalogue"),
    ({"type": "add_combatant", "name": "X", "weapons": [{**PISTOL, "skill": "magic"}]},
     "skill is one of"),
    ({"type": "add_combatant", "name": "X", "weapons": [{**PISTOL, "close": 30}]},
     "close ≤ normal ≤ maximum"),
    ({"type": "add_combatant", "name": "X", "weapons": [{**PISTOL, "modes": []}]},
     "pairs of mode"),
    ({"type": "add_combatant", "name": "X", "weapons": [{**PISTOL, "modes": [["E", 0],
                                                                           ["E", 1]]}]},
     "E, A or both"),
    ({"type": "add_combatant", "name": "X", "weapons": [{**PISTOL, "modes": [["S", 0]]}]},
     "unknown fire mode"),
    ({"type": "add_combatant", "name": "X", "weapons": [{**PISTOL, "attack_ap": 0}]},
     "attack_ap is 1 to 30"),
    ({"type": "add_combatant", "name": "X", "weapons": [{**PISTOL, "colour": "red"}]},
     "unknown weapon fields"),
    ({"type": "add_combatant", "name": "X", "weapons": [{"name": "Kniv", "skill": "melee"}]},
     "needs close"),
    ({"type": "add_combatant", "name": "X", "weapons": "pistol"}, "must be a list"),
    ({"type": "add_combatant", "name": "X", "armour": [{"name": "V", "protection": 11}]},
     "0 to 10"),
    ({"type": "add_combatant", "name": "X", "armour": [{"name": "V", "areas": []}]},
     "key, name and protection"),
    ({"type": "add_combatant", "name": "X", "weapon_name": "Kniv", "weapon_skill": "melee",
      "weapon_damage": 2, "weapon_attack_ap": 2, "weapon_maximum": 2, "weapon_modes": "S"},
     "E, A or EA"),
    ({"type": "add_combatant", "name": "X", "weapon_name": "Kniv", "weapon_skill": "melee",
      "weapon_damage": 2, "weapon_maximum": 2}, "weapon_attack_ap"),
    ({"type": "add_combatant", "name": "X", "weapon_name": "Kniv", "weapon_skill": "melee",
      "weapon_damage": 2, "weapon_attack_ap": 2, "weapon_maximum": 2, "weapon_bonus": 40},
     "-30 to 30"),
    ({"type": "add_combatant", "name": "X", "character_id": 0}, "out of range"),
    ({"type": "act", "id": "c1", "label": "x" * 101, "ap": 1}, "at most 100 characters"),
    ({"type": "add_combatant", "name": "X", "weapons": [{**PISTOL, "name": ""}]},
     "a weapon needs a name"),
    ({"type": "add_combatant", "name": "X", "armour": [{"name": "", "protection": 1}]},
     "armour needs a name"),
])
def test_commands_are_parsed_strictly(data, message):
    if message is None:
        assert ENGINE.parse_command(data).id == "7"
        return
    with pytest.raises(RulesError, match=message):
        ENGINE.parse_command(data)


def test_flat_weapon_fields_and_catalogue_keys_make_weapons():
    parsed = ENGINE.parse_command({
        "type": "add_combatant", "name": "Vakt", "weapon_name": "Kniv", "weapon_skill": "melee",
        "weapon_damage": 2, "weapon_attack_ap": 2, "weapon_maximum": 2, "weapon_bonus": 2,
        "weapon_modes": "e",
    })
    [knife] = parsed.weapons
    assert (knife.key, knife.skill, knife.modes, knife.close, knife.normal, knife.maximum) == (
        "Kniv", "melee", (("E", 0),), 0, 2, 2)
    assert parsed.skills == {"melee": 2}
    pistol = C.weapon_from_dict(PISTOL)
    parsed = ENGINE.parse_command({"type": "add_combatant", "name": "X", "weapons": ["pistol"]},
                                  weapons={"pistol": pistol})
    assert parsed.weapons == (pistol,)
    form = C.weapon_from_dict({**{k: v for k, v in SMG.items() if k != "modes"}, "single": True,
                               "single_modifier": 0, "auto": True, "auto_modifier": -2})
    assert form.modes == (("E", 0), ("A", -2))


@pytest.mark.parametrize(("command", "message"), [
    ({"type": "attack", "id": "c9", "target": "c2", "weapon": "pistol", "distance": 5},
     "no combatant 'c9'"),
    ({"type": "attack", "id": "c1", "target": "c1", "weapon": "pistol", "distance": 5},
     "does not attack oneself"),
    ({"type": "attack", "id": "c1", "target": "c2", "weapon": "kpist", "distance": 5},
     "has no weapon"),
    ({"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol", "distance": -1},
     "distance must be 0 to 50"),
    ({"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol", "distance": 5,
      "modifier": 11}, "modifier must be -10 to 10"),
    ({"type": "attack", "id": "c2", "target": "c1", "weapon": "kpist", "distance": 5},
     "not Soldat's turn"),
    ({"type": "move", "id": "c1", "metres": 0}, "metres must be"),
    ({"type": "stance", "id": "c1", "stance": "normal", "weapon": "kpist"}, "has no weapon"),
    ({"type": "fire_mode", "id": "c1", "weapon": "pistol", "mode": "A"}, "does not fire A"),
    ({"type": "reload", "id": "c1", "weapon": "pistol"}, "fully loaded"),
    ({"type": "treat", "id": "c1", "target": "c2"}, "no Skada to treat"),
    ({"type": "recover", "id": "c1", "points": 0}, "points must be 1 to 30"),
    ({"type": "test", "id": "c1", "skill": "pistol", "ap": 31}, "ap must be 0 to 30"),
    ({"type": "test", "id": "c1", "skill": "pistol", "modifier": -11}, "modifier must be"),
    ({"type": "act", "id": "c1", "label": "", "ap": 2}, "say what the action is"),
    ({"type": "act", "id": "c1", "label": "Hoppa", "ap": 0}, "ap must be 1 to 30"),
    ({"type": "pass", "id": "c1"}, "no attack to react to"),
    ({"type": "end_turn", "id": "c2"}, "not Soldat's turn"),
    ({"type": "start"}, "the fight is on"),
    ({"type": "damage", "id": "c2", "amount": 101}, "amount must be 0 to 100"),
    ({"type": "update_combatant", "id": "c2"}, "nothing to change"),
    ({"type": "update_combatant", "id": "c2", "fatigue": 100}, "fatigue must be 0 to 99"),
    ({"type": "update_combatant", "id": "c2", "damage": -1}, "damage must be 0 to 99"),
    ({"type": "update_combatant", "id": "c2", "protection": 11}, "protection must be 0 to 10"),
    ({"type": "update_combatant", "id": "c2", "modifier": 20}, "modifier must be"),
    ({"type": "add_combatant", "name": ""}, "needs a name"),
    ({"type": "add_combatant", "name": "X", "combat": 1}, "combat must be -10 to 0"),
    ({"type": "add_combatant", "name": "X", "initiative": 30}, "initiative must be"),
    ({"type": "add_combatant", "name": "X", "protection": 11}, "protection must be 0 to 10"),
    ({"type": "add_combatant", "name": "X", "weapons": [PISTOL, PISTOL]}, "listed twice"),
    ({"type": "add_combatant", "name": "X", "weapons": [PISTOL], "right": "kpist"},
     "not among the combatant's weapons"),
    ({"type": "add_combatant", "name": "X", "stance": "ready"}, "needs a weapon"),
    ({"type": "add_combatant", "name": "X", "fatigue": 100}, "fatigue must be 0 to 99"),
    ({"type": "add_combatant", "name": "X", "carried": {"fatigue": "3"}}, "fatigue must be"),
    ({"type": "add_combatant", "name": "X", "carried": {"mood": 3}}, "a body from an earlier"),
    ({"type": "add_combatant", "name": "X", "carried": [1]}, "a body from an earlier"),
    ({"type": "add_combatant", "name": "X", "carried": {"encounter": 5}},
     "a body from an earlier"),
])
def test_every_refusal_of_decide(command, message):
    state = fight()
    with pytest.raises(RulesError, match=message) as refused:
        run(state, command)
    assert refused.value.template or refused.value.code == "bad_field"


def test_refusals_before_the_start_and_while_an_attack_waits():
    state = ENGINE.new_state({})
    with pytest.raises(RulesError, match="at least two"):
        run(state, {"type": "start"})
    state = add(state, "Johan", weapons=[PISTOL], stance="ready")
    with pytest.raises(RulesError, match="has not started"):
        run(state, {"type": "cover", "id": "c1"})
    with pytest.raises(RulesError, match="has not started"):
        run(state, {"type": "end_round"})
    state, _ = grenade_thrown()
    for command, message in (
        ({"type": "damage", "id": "c1", "amount": 1}, "waiting for the reactions"),
        ({"type": "start"}, "waiting for the reactions"),
        ({"type": "cover", "id": "c2"}, "waiting for the reactions"),
        ({"type": "pass", "id": "c2"}, "no saved AP to react with"),
        ({"type": "reload", "id": "c1", "weapon": "pistol"}, "fully loaded"),
        ({"type": "act", "id": "c1", "label": "Springa", "ap": 5}, "4 saved AP; this costs 5"),
    ):
        with pytest.raises(RulesError, match=message):
            run(state, command)
    state, _ = run(state, {"type": "update_combatant", "id": "c1", "fatigue": 12})
    with pytest.raises(RulesError, match="Johan cannot act"):
        run(state, {"type": "cover", "id": "c1"})
    state, events = run(state, {"type": "pass", "id": "c1"}, 1, 1)  # the GM goes on for him
    assert kinds(events)[:3] == ["Passed", "ReactionsClosed", "AttackRolled"]


# The engine interface ----------------------------------------------------------------------


def test_the_engine_is_found_by_its_system_and_answers_the_protocol():
    engine = engine_for("t10")
    assert engine is ENGINE
    assert (engine.system, engine.template) == ("t10", "combat/t10")
    assert [rule["key"] for rule in engine.house_rules()] == [
        "metres_per_ap", "cover_ap", "cover_modifier", "burst_shots", "treat_ap", "treat_heal",
        "painkiller_ap"]
    for rule in HOUSE_RULES:
        assert {"key", "label", "kind", "default", "minimum", "maximum", "rule", "help"} <= set(
            rule)
        assert rule["minimum"] <= rule["default"] <= rule["maximum"]
    state = engine.new_state({"cover_ap": 4.0, "cover_modifier": -3, "other": 1}, name="Bro")
    assert (state.house.cover_ap, state.house.cover_modifier, state.name) == (4, -3, "Bro")
    for bad in ({"cover_ap": 11}, {"cover_modifier": 1}, {"burst_shots": True},
                {"treat_ap": "10"}):
        with pytest.raises(RulesError):
            engine.new_state(bad)
    # The excerpt lists no weapons: a written default set, each value's source given.
    starter = engine.catalogue()
    assert {kind: sorted(items) for kind, items in starter.items()} == {
        "weapon": ["gevar", "granat", "kniv", "kpist", "pistol", "unarmed"], "armour": ["vast"]}
    assert dict(starter["weapon"]["pistol"].sources)["reload_ap"] == (
        "Handlingar som går över flera rundor")  # Johan's pistol: 5 AP
    assert starter["weapon"]["pistol"].reload_ap == 5
    assert starter["weapon"]["kpist"].damage == 3  # "en k-pist som gör 3 i skada"
    assert starter["armour"]["vast"].protection == 2  # "ett kroppsskydd med skydd 2"
    assert engine.unarmed == "unarmed"
    fields = engine.catalogue_fields()
    weapon = {field["key"]: field for field in fields["weapon"]}
    data = {key: field.get("initial", False if field["kind"] == "bool" else None)
            for key, field in weapon.items()}
    data.update(key="k", name="K-pist", auto=True, single=True)
    assert engine.item_from_dict("weapon", data).modes == (("E", 0), ("A", 0))
    assert engine.item_from_dict("armour", VEST).protection == 2
    with pytest.raises(RulesError):
        engine.item_from_dict("shield", {})
    with pytest.raises(RulesError, match="a weapon is an object"):
        engine.item_from_dict("weapon", [])
    with pytest.raises(RulesError, match="unknown command"):
        engine.decide(state, object(), ScriptedRng())
    with pytest.raises(RulesError, match="unknown event"):
        engine.evolve(state, object())
    unarmed = add(engine.new_state({}), "X")
    with pytest.raises(RulesError, match="needs a weapon"):
        run(unarmed, {"type": "update_combatant", "id": "c1", "stance": "aimed"})


def test_the_house_rules_change_what_actions_cost():
    state = fight(metres_per_ap=5, cover_ap=2, painkiller_ap=0, burst_shots=5)
    state, events = run(state, {"type": "move", "id": "c1", "metres": 10.0})
    assert of(events, E.APSpent).ap == 2
    state, events = run(state, {"type": "cover", "id": "c1"})
    assert of(events, E.APSpent).ap == 2
    state, events = run(state, {"type": "painkillers", "id": "c1"})
    assert "APSpent" not in kinds(events)
    assert by_name(state, "Johan").ap == 6


def test_who_acts_for_a_command():
    state = fight()
    assert ENGINE.actor_of(state, C.Start()) is None
    assert ENGINE.actor_of(state, C.Damage("c1", 2)) is None
    assert ENGINE.actor_of(state, C.Cover("c1")) == "c1"
    assert ENGINE.timeout_actor(state, C.Pass("c1")) is None


def test_a_character_block_gives_effective_bonuses():
    """Förmågor och färdigheter: a skill replaces its ability; without it the ability
    counts (Johan's charm: Social Kompetens −2; Hota +3)."""
    levels = {"body": 0, "combat": -1, "mind": 0, "social": -2, "pistol": 2, "intimidate": 3,
              "initiative": 2}
    block = ENGINE.character_block(name="Johan", levels=levels, derived={"ap": 10})
    assert (block["skills"]["pistol"], block["skills"]["smg"]) == (2, -1)
    assert (block["skills"]["charm"], block["skills"]["intimidate"]) == (-2, 3)
    assert (block["initiative"], block["social"], block["npc"]) == (2, -2, False)
    state, _ = run(ENGINE.new_state({}), {**block, "character_id": 7})
    johan = state.combatants[0]
    assert (johan.initiative, johan.character_id) == (2, 7)
    state = add(state, "Soldat", npc=True, side="b", combat=-1, skills={"pistol": 0})
    state, events = run(state, {"type": "start"}, 5, 5)
    state, events = run(state, {"type": "test", "id": "c1", "skill": "charm"}, 5, 5)
    assert of(events, E.SkillRolled).parts == (("skill", -2),)
    from rules.t10.combat.reading import roll_bonus

    assert roll_bonus(by_name(state, "Soldat"), "pistol") == -1  # its ability: no skill


def test_preview_gives_the_exact_chance_to_hit_and_the_damage():
    state = fight()
    preview = ENGINE.preview(state, C.Attack("c1", "c2", "pistol", 10.0), GM)
    assert preview["ok"]
    assert preview["allowed"]
    assert preview["p_hit"] == round(float(test_odds(2).success) * 100, 1)
    [row] = preview["bands"]
    assert row["parts"] == [["skill", 2]]
    # Damage 3 on 11, +1 per DoS; nothing on a miss.
    damage = {d["amount"]: d["percent"] for d in row["damage"]}
    assert damage[0] == round(float(1 - test_odds(2).success) * 100, 1)
    assert damage[3] == round(float(test_odds(2).zero_success) * 100, 1)
    assert "taken" in row
    bands = ENGINE.preview(state, C.Attack("c1", "c2", "pistol"), GM)["bands"]
    assert [b["band"] for b in bands] == ["close", "normal", "far"]
    assert [b["bonus"] for b in bands] == [4, 2, 0]
    soldier_view = ENGINE.preview(state, C.Attack("c2", "c1", "granat", 5.0), GM)
    assert soldier_view["ok"]
    assert not soldier_view["allowed"]
    assert "taken" not in ENGINE.preview(state, C.Attack("c1", "c2", "pistol", 10.0),
                                         JOHANS)["bands"][0]
    assert not ENGINE.preview(state, C.Attack("c1", "c2", "pistol", 60.0), GM)["ok"]
    assert not ENGINE.preview(state, C.Attack("c1", "c9", "pistol"), GM)["ok"]
    assert not ENGINE.preview(state, C.Attack("c1", "c2", "kpist"), GM)["ok"]
    assert not ENGINE.preview(state, C.Attack("c1", "c2", "pistol", mode="A"), GM)["ok"]
    with pytest.raises(RulesError):
        ENGINE.preview(state, C.Cover("c1"), GM)
    shotgun = fight(johan={"weapons": [SHOTGUN]})
    rows = ENGINE.preview(shotgun, C.Attack("c1", "c2", "hagel", 10.0), GM)["bands"]
    assert {d["amount"] for d in rows[0]["damage"]} >= {1, 2, 3, 4, 5, 6}


def test_the_view_offers_the_actions_with_their_costs():
    state = fight()
    seen = ENGINE.view(state, JOHANS)
    [acting] = seen["acting"]
    assert (acting["id"], acting["how"], acting["ap"]) == ("c1", "turn", 10)
    option = next(o for o in acting["attack_options"] if o["target"] == "c2")
    assert option["enabled"]
    assert option["cost"] == 3
    assert option["p_close"] > option["p_normal"] > option["p_far"]
    assert {a["key"] for a in seen["actions"]} == {"cover", "painkillers", "end_turn"}
    stances = {o["stance"]: o for o in acting["stance_options"]}
    assert (stances["normal"]["cost"], stances["aimed"]["enabled"]) == (2, False)
    assert ENGINE.view(state, Viewer(is_gm=False, controls=frozenset({"c2"})))["acting"] == []
    state = save_ap(state, "c1", 4)
    [acting] = ENGINE.view(state, JOHANS)["acting"]
    assert (acting["how"], acting["ap"]) == ("saved", 4)
    attack = next(o for o in acting["attack_options"] if o["target"] == "c2")
    assert attack["enabled"]  # out of turn with saved AP


def test_players_never_see_npc_numbers():
    state, events = grenade_thrown()
    before = state
    state, more = run(state, {"type": "pass", "id": "c1"}, 6, 5)
    seen = ENGINE.view(state, JOHANS)
    npc = next(c for c in seen["combatants"] if c["id"] == "c2")
    assert not npc["numbers"]
    assert "fatigue" not in npc
    assert "weapons" not in npc
    assert npc["stance_name"] == "Anläggning"
    mine = next(c for c in seen["combatants"] if c["id"] == "c1")
    assert mine["sections"][0]["boxes"][:8] == [True] * 7 + [False]
    lines = ENGINE.describe(before, more, JOHANS)
    rolled = next(line for line in lines if line["kind"] == "AttackRolled")
    assert rolled["rolls"][0]["success"]
    assert "total" not in rolled["rolls"][0]
    wound = next(line for line in lines if line["kind"] == "Damaged")
    assert wound["amount"] == 7  # Johan's own wound
    gm_rolled = next(line for line in ENGINE.describe(before, more, GM)
                     if line["kind"] == "AttackRolled")
    assert gm_rolled["rolls"][0]["total"] == 12
    # An NPC with saved AP is not shown to the players while an attack waits.
    state = fight(dice=(1, 9))
    state = save_ap(state, "c2", 5)
    state, _ = run(state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol",
                           "distance": 10})
    assert ENGINE.view(state, JOHANS)["prompts"] == []
    assert ENGINE.view(state, JOHANS)["pending"]["hidden_waiting"]
    assert ENGINE.view(state, GM)["prompts"][0]["for"] == "c2"


def test_a_characters_body_goes_on_into_the_next_fight():
    state = fight(johan={"character_id": 7})
    assert ENGINE.body_of(state, 7) == {}
    assert ENGINE.body_of(state, 8) is None
    state, _ = run(state, {"type": "damage", "id": "c1", "amount": 4})
    body = json.loads(json.dumps(ENGINE.body_of(state, 7)))
    assert body == {"encounter": "", "fatigue": 4, "damage": 4}
    later, events = run(ENGINE.new_state({}), {"type": "add_combatant", "name": "Johan",
                                               "character_id": 7, "carried": body})
    assert (by_name(later, "Johan").fatigue, by_name(later, "Johan").damage) == (4, 4)
    assert ENGINE.describe(ENGINE.new_state({}), events, GM)[0]["carried"]
    _, entered = run(ENGINE.new_state({}), {"type": "add_combatant", "name": "Vakt",
                                            "fatigue": 4})
    assert not ENGINE.describe(ENGINE.new_state({}), entered, GM)[0]["carried"]
    sheet = ENGINE.damage_sheet(state, 7, {})
    assert sheet["recorded"]
    assert sheet["ap"] == 6
    assert [s["boxes"].count(True) for s in sheet["sections"]] == [4, 4]
    blank = ENGINE.damage_sheet(None, 7, {})
    assert not blank["recorded"]
    assert blank["sections"][1]["value"] == 0


# The codec and random games --------------------------------------------------------------


def test_every_event_survives_the_json_codec():
    for scenario in (
        test_johans_pistol_twelve_plus_two_is_fourteen_three_dos_three_more_damage,
        test_johans_reload_five_ap_with_two_left_is_finished_next_round_with_seven_left,
        test_johan_throws_himself_into_cover_with_saved_ap_and_escapes_the_grenade,
        test_simultaneous_savers_are_ordered_by_a_new_initiative_roll,
        test_a_reaction_that_can_no_longer_be_made_is_lost,
        test_a_begun_action_that_can_no_longer_be_made_is_lost,
        test_medical_care_heals_damage_across_rounds,
        test_a_combatant_with_no_ap_has_no_turn,
        test_the_gm_adds_updates_damages_and_ends,
        test_e_rolls_once_a_rolls_twice_each_on_its_own,
        test_fatigue_lowers_ap_and_rolls_and_falls_each_round_never_below_damage,
        test_spending_ap_lowers_fatigue_one_per_ap_but_not_below_damage,
        test_stances_change_attacks_and_other_rolls,
        test_a_combatant_joining_a_started_fight_rolls_and_ties_break_against_it,
        test_refusals_before_the_start_and_while_an_attack_waits,
    ):
        scenario()
    random_game(3, 80)
    helpers.scene_scenario(run, ENGINE.new_state())
    helpers.dice_scenario(ENGINE, SEEN, fight(), ENGINE.parse_command(
        {"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol", "distance": 10}), "c1")
    check_codec(ENGINE, E.EVENT_TYPES, SEEN)


def setup():
    state = ENGINE.new_state({})
    blocks = [
        dict(name="Johan", npc=False, initiative=2, skills={"pistol": 2, "medicine": 1},
             weapons=[PISTOL], armour=[VEST]),
        dict(name="Lisa", npc=False, initiative=1, skills={"smg": 2, "throw": 1},
             weapons=[SMG, GRENADE], stance="ready"),
        dict(name="Soldat", side="b", initiative=1, skills={"smg": 1, "throw": 1},
             weapons=[SMG, GRENADE], stance="aimed"),
        dict(name="Hund", side="b", weapons=[SHOTGUN], fatigue=2),
    ]
    return helpers.with_blocks(ENGINE, state, blocks)


def candidates(state, choose: random.Random) -> list:
    """Commands worth trying now, weighted toward the fight (many are refused)."""
    ids = [c.id for c in state.combatants]
    cid = choose.choice(ids)
    other = choose.choice(ids)
    distance = float(choose.choice([1, 4, 12, 28, 60]))
    out = [
        C.Damage(cid, choose.randint(0, 8)),
        C.UpdateCombatant(cid, fatigue=choose.randint(0, 11)),
        C.Start(),
        C.EndRound(),
    ]
    if state.pending is not None:
        out += [C.Pass(w) for w in state.pending.waiting] * 3
        out += [C.Cover(w) for w in state.pending.waiting] * 2
        out += [C.Attack(w, state.pending.attacker, "kpist", distance) for w in ids]
    for actor in state.combatants:
        out += [
            C.Cover(actor.id),
            C.Move(actor.id, choose.choice([1.0, 3.0, 9.0])),
            C.Stance(actor.id, choose.choice(["normal", "ready", "aimed"])),
            C.Stance(actor.id, "ready", choose.choice([w.key for w in actor.weapons])),
            C.FireMode(actor.id, "kpist", choose.choice("EA")),
            C.Reload(actor.id, choose.choice(["kpist", "pistol"])),
            C.Treat(actor.id, other),
            C.Painkillers(actor.id),
            C.Recover(actor.id, choose.randint(1, 3)),
            C.SkillRoll(actor.id, "perception", ap=choose.randint(0, 12)),
            C.Act(actor.id, "Spana", choose.randint(1, 14)),
            C.EndTurn(actor.id),
            C.EndTurn(actor.id),
        ]
        for weapon in actor.weapons:
            out += [C.Attack(actor.id, other, weapon.key, distance)] * 4
    if choose.random() < 0.01:
        out.append(C.EndEncounter())
    return out


def random_game(seed: int, steps: int):
    return helpers.random_game(
        ENGINE, setup, candidates, seed, steps, seen=SEEN, viewers=(GM, PLAYERS, JOHANS)
    )


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(1, 50))
def test_random_games_never_crash_and_replay_to_the_state(seed, steps):
    initial, state, records = random_game(seed, steps)
    assert refold(ENGINE, initial, records, (GM, PLAYERS)) == state
    assert replay(ENGINE, initial, records).state == state
    for c in state.combatants:
        assert c.ap >= 0
        assert c.saved >= 0
        assert c.fatigue >= 0
        assert c.damage >= 0
