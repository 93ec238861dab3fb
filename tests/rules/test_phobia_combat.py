"""The Phobia combat engine (rules/phobia/combat) against the excerpt's combat rules
(phobia-utdrag.txt lines 613-804) and damage (lines 806-1130). Dice are scripted: each
test lists the dice in the order the engine rolls them (an ObnT6 rolls n dice, then two
for each six; a 1T10 one die of ten)."""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.engine import Viewer, engine_for, replay
from rules.errors import RulesError
from rules.phobia.combat import ENGINE
from rules.phobia.combat import commands as C
from rules.phobia.combat import events as E
from rules.phobia.combat.state import Weapon
from rules.phobia.combat.view import percent
from rules.phobia.injuries import advance_bleeding
from rules.phobia.success import odds
from tests.rules import helpers
from tests.rules.helpers import by_name, check_codec, of, refold

GM = Viewer(is_gm=True)
PLAYERS = Viewer(is_gm=False)

PISTOL = {"name": "Pistol", "damage": 3, "damage_type": "P", "skill": "pistol", "ranged": True}
KNIFE = {"name": "Kniv", "damage": 1, "damage_type": "H", "skill": "knife"}
AXE = {"name": "Yxa", "damage": 4, "damage_type": "H", "skill": "axe"}

SEEN: list = []  # every event the scripted tests made, for the codec test


def run(state, command, *dice):
    """`command` decided with these dice and folded (`helpers.run`); its events are SEEN."""
    return helpers.run(ENGINE, state, command, *dice, seen=SEEN)


def add(state, name, **fields):
    fields.setdefault("npc", False)
    fields.setdefault("turn_order", 10)
    state, _ = run(state, {"type": "add_combatant", "name": name, **fields})
    return state


def active_name(state):
    return by_name_id(state, state.active).name if state.active else None


def by_name_id(state, cid):
    return state.get(cid)


def duel(**house):
    """A (TO 12, pistol 12) acts before B (TO 8, knife 12, Chockvärde 12)."""
    state = ENGINE.new_state(house)
    state = add(
        state,
        "A",
        turn_order=12,
        skills={"pistol": 12, "knife": 12, "combat_experience": 2},
        weapons=[PISTOL, KNIFE],
        right="Pistol",
    )
    state = add(
        state,
        "B",
        side="b",
        turn_order=8,
        skills={"knife": 12, "axe": 12},
        weapons=[KNIFE, AXE],
        shock_value=12,
        npc=True,
    )
    return state


# The round and Turordning (lines 613-646) ------------------------------------------------


def test_highest_turn_order_first_and_ties_by_agility_lines_631_636():
    """Line 631-636: highest TO acts first, the next below it after; the same TO: the
    higher RÖR first."""
    state = ENGINE.new_state({})
    state = add(state, "Låg RÖR", turn_order=10, agility=12)
    state = add(state, "Hög TO", turn_order=12, agility=8)
    state = add(state, "Hög RÖR", turn_order=10, agility=14)
    state, events = run(state, {"type": "start_round"})
    order = []
    while state.active:
        order.append(active_name(state))
        state, _ = run(state, {"type": "declare", "id": state.active, "actions": 0})
    assert order == ["Hög TO", "Hög RÖR", "Låg RÖR"]
    assert ENGINE.view(state, GM)["round_over"]


def test_turn_order_zero_or_less_gives_no_active_actions_but_responses_lines_638_641():
    """Lines 638-641: TO 0 or lower: no active actions at all; responses as usual."""
    state = duel()
    state = add(state, "Chockad", side="b", turn_order=0, skills={"combat_experience": 5})
    state, events = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c1", "target": "c3", "weapon": "Pistol", "area": "chest"}
    )
    # Chockad seeks cover: Ob2T6 against Stridsvana 5 (line 786). The shot misses first.
    state, events = run(state, {"type": "respond", "id": "c3", "kind": "cover"}, 5, 5, 5, 1, 2)
    assert of(events, E.AttackRolled).hit is False
    cover = of(events, E.CoverSought)
    assert (cover.test.stat, cover.test.difficulty, cover.test.success) == (
        "combat_experience",
        2,
        True,
    )
    assert by_name(state, "Chockad").in_cover
    # B's turn (TO 8), then the round is over: Chockad never gets one.
    assert active_name(state) == "B"
    state, _ = run(state, {"type": "declare", "id": "c2", "actions": 0})
    assert state.active is None
    assert [o["status"] for o in ENGINE.view(state, GM)["order"]][-1] == "no_actions"
    with pytest.raises(RulesError, match="not Chockad's turn"):
        run(state, {"type": "declare", "id": "c3", "actions": 1})


def test_optional_turn_order_die_lines_245_247():
    """Lines 245-247: with the house rule each adds 1T10 to TO every round."""
    state = duel(turn_order_die=True)
    state, events = run(state, {"type": "start_round"}, 1, 9)
    assert of(events, E.RoundStarted).dice == (("c1", 1), ("c2", 9))
    assert active_name(state) == "B"  # 8 + 9 = 17 before 12 + 1 = 13
    assert by_name(state, "B").current_to == 17


def test_each_extra_action_makes_all_of_them_harder_lines_651_658():
    """Lines 651-658: each action beyond the first in a round: +Ob1T6 on all of them."""
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 3})
    state, events = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "chest"}
    )
    assert of(events, E.AttackDeclared).parts == (("base", 3), ("actions", 2))
    state, events = run(state, {"type": "pass", "id": "c2"}, 5, 5, 5, 5, 5)
    assert of(events, E.AttackRolled).tests[0].difficulty == 5
    state, events = run(state, {"type": "act", "id": "c1", "label": "Ladda om"})
    state, events = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "chest"}
    )
    assert of(events, E.AttackDeclared).parts == (("base", 3), ("actions", 2))
    state, events = run(state, {"type": "pass", "id": "c2"}, 5, 5, 5, 5, 5)
    assert active_name(state) == "B"  # A's three actions are done: the turn ends


def test_jason_responds_shoots_twice_and_responds_again_lines_684_691():
    """Lines 684-691: Jason's first response has no extra difficulty; his two shots then
    count as three actions, +Ob2T6 each; a response after them is his fourth action,
    +Ob3T6."""
    state = ENGINE.new_state({})
    state = add(
        state, "Vakt", side="b", turn_order=14, skills={"pistol": 5}, weapons=[PISTOL], npc=True
    )
    state = add(
        state,
        "Jason",
        turn_order=10,
        skills={"pistol": 14, "combat_experience": 3},
        weapons=[PISTOL],
    )
    state = add(
        state, "Vakt 2", side="b", turn_order=6, skills={"pistol": 5}, weapons=[PISTOL], npc=True
    )
    jason = by_name(state, "Jason").id
    state, _ = run(state, {"type": "start_round"})
    assert active_name(state) == "Vakt"
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c1", "target": jason, "weapon": "Pistol", "area": "chest"}
    )
    # The first response: no extra difficulty (Söka skydd: Ob2T6 against Stridsvana).
    state, events = run(state, {"type": "respond", "id": jason, "kind": "cover"}, 5, 5, 5, 1, 1)
    assert of(events, E.ResponseDeclared).parts == (("base", 2),)
    # His turn: two shots, counted as three actions: +Ob2T6 on both.
    assert active_name(state) == "Jason"
    state, _ = run(state, {"type": "declare", "id": jason, "actions": 2})
    for _shot in (1, 2):
        state, events = run(
            state,
            {"type": "attack", "id": jason, "target": "c1", "weapon": "Pistol", "area": "chest"},
        )
        assert of(events, E.AttackDeclared).parts == (("base", 3), ("actions", 2))
        state, events = run(state, {"type": "pass", "id": "c1"}, 5, 5, 5, 5, 5)
        assert of(events, E.AttackRolled).tests[0].difficulty == 5
    # Then a fourth action, a response: +Ob3T6.
    assert active_name(state) == "Vakt 2"
    state, _ = run(state, {"type": "declare", "id": "c3", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c3", "target": jason, "weapon": "Pistol", "area": "chest"}
    )
    state, events = run(
        state, {"type": "respond", "id": jason, "kind": "cover"}, 5, 5, 5, 1, 1, 1, 1, 1
    )
    assert of(events, E.ResponseDeclared).parts == (("base", 2), ("response", 3))
    assert of(events, E.CoverSought).test.difficulty == 5


# Aim and shoot (lines 733-743) ------------------------------------------------------------


def test_aim_and_shoot_halves_turn_order_and_eases_the_shot_lines_733_743():
    """Lines 733-743: the shot waits for half the shooter's TO and is one level easier."""
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, events = run(
        state,
        {
            "type": "attack",
            "id": "c1",
            "target": "c2",
            "weapon": "Pistol",
            "area": "chest",
            "aim": True,
        },
    )
    assert of(events, E.AimTaken).turn_order == 6
    assert active_name(state) == "B"  # TO 8 now goes before A's 12 / 2 = 6
    state, events = run(state, {"type": "declare", "id": "c2", "actions": 0})
    started = [e for e in events if isinstance(e, E.TurnStarted)]
    assert started[-1] == E.TurnStarted("c1", 6)
    declared = of(events, E.AttackDeclared)
    assert declared.aimed
    assert declared.parts == (("base", 3), ("aim", -1))
    state, events = run(state, {"type": "pass", "id": "c2"}, 6, 5, 5, 4)  # 5 + 5 + 4 = 14: a miss
    assert of(events, E.AttackRolled).tests[0].difficulty == 2
    assert state.active is None


def test_a_response_while_aiming_loses_the_aim_and_counts_lines_681_683_742_743():
    """Lines 742-743: a response while aiming loses the aim's −Ob1T6; lines 681-683: the
    shot after the response counts it as an action."""
    state = duel()
    state = add(state, "C", side="b", turn_order=10, skills={"knife": 8}, weapons=[KNIFE])
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state,
        {
            "type": "attack",
            "id": "c1",
            "target": "c2",
            "weapon": "Pistol",
            "area": "chest",
            "aim": True,
        },
    )
    assert active_name(state) == "C"
    state, _ = run(state, {"type": "declare", "id": "c3", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c3", "target": "c1", "weapon": "Kniv", "area": "arm"}
    )
    state, _ = run(state, {"type": "respond", "id": "c1", "kind": "cover"}, 5, 5, 5, 5, 5)
    assert by_name(state, "A").aim.lost
    state, events = run(state, {"type": "declare", "id": "c2", "actions": 0})
    declared = of(events, E.AttackDeclared)
    assert declared.parts == (("base", 3), ("actions", 1))  # no aim, and the response


def test_aim_needs_a_ranged_weapon_and_the_turn_alone():
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 2})
    with pytest.raises(RulesError, match="declare one action"):
        run(
            state,
            {
                "type": "attack",
                "id": "c1",
                "target": "c2",
                "weapon": "Pistol",
                "area": "chest",
                "aim": True,
            },
        )
    with pytest.raises(RulesError, match="only a ranged weapon aims"):
        run(
            state,
            {
                "type": "attack",
                "id": "c1",
                "target": "c2",
                "weapon": "Kniv",
                "area": "chest",
                "aim": True,
            },
        )


# Movement (lines 261-271, 724-729) -----------------------------------------------------------


def test_two_metres_are_free_and_fast_movement_makes_actions_harder_lines_261_264():
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    movement = by_name(state, "A").movement  # (10 + 10 + 10) / 4 = 7
    assert movement == 7
    state, events = run(state, {"type": "move", "id": "c1", "metres": 2})
    assert of(events, E.Moved).action is False  # no action, not declared yet
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 2})
    state, events = run(state, {"type": "move", "id": "c1", "metres": 5})
    assert of(events, E.Moved) == E.Moved("c1", 5.0, 7.0, "move", True)
    with pytest.raises(RulesError, match="once a round"):
        run(state, {"type": "move", "id": "c1", "metres": 1})
    state, events = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "chest"}
    )
    assert of(events, E.AttackDeclared).parts == (("base", 3), ("actions", 1), ("moving", 1))


def test_running_and_sprinting_leave_nothing_else_lines_265_270():
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 2})
    with pytest.raises(RulesError, match="declare one action"):
        run(state, {"type": "move", "id": "c1", "metres": 14})
    with pytest.raises(RulesError, match="at most Förflyttning x 3 = 21 m"):
        run(state, {"type": "move", "id": "c1", "metres": 21.5})
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, events = run(state, {"type": "move", "id": "c1", "metres": 21})
    assert of(events, E.Moved).mode == "sprint"
    assert active_name(state) == "B"  # the one action is done
    state, _ = run(state, {"type": "declare", "id": "c2", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c2", "target": "c1", "weapon": "Kniv", "area": "arm"}
    )
    with pytest.raises(RulesError, match="running leaves no other action"):
        run(state, {"type": "respond", "id": "c1", "kind": "cover"})


def test_moving_is_the_first_active_action_line_726():
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 2})
    state, _ = run(state, {"type": "act", "id": "c1"})
    with pytest.raises(RulesError, match="first active action"):
        run(state, {"type": "move", "id": "c1", "metres": 5})


# Responses (lines 667-691, 771-804) ------------------------------------------------------


def test_defending_is_an_opposed_test_rolled_again_on_equal_effects_lines_556_578_796():
    """Försvara sig (lines 796-799) with the attack as an active opposition: equal
    effects roll again (line 563); the higher effect wins."""
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Kniv", "area": "arm"}
    )
    state, events = run(
        state,
        {"type": "respond", "id": "c2", "kind": "defend"},
        2,
        2,
        2,  # attack 6 against 12: effect 6
        2,
        2,
        2,  # defence (knife 12) 6: effect 6, equal: again
        1,
        2,
        3,  # attack 6: effect 6
        4,
        4,
        3,  # defence 11: effect 1; the attack wins
        2,  # Kniv Ob1T6: 2 damage, 1 T 1 S and a small bleed
        1,
        1,
        1,  # death roll Ob3T6 against TÅL 10
        1,
        1,
        1,  # shock roll Ob3T6 against Chockvärde 12
    )
    rolled = of(events, E.AttackRolled)
    assert [t.total for t in rolled.tests] == [6, 6]
    assert [t.total for t in rolled.defences] == [6, 11]
    assert rolled.hit
    b = by_name(state, "B")
    assert (b.trauma, b.pain, b.bleeding.rate) == (1, 1, 1)


def test_defending_is_for_melee_only_line_796():
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "chest"}
    )
    with pytest.raises(RulesError, match="melee attack"):
        run(state, {"type": "respond", "id": "c2", "kind": "defend"})
    with pytest.raises(RulesError, match="ranged weapon ready"):
        run(state, {"type": "respond", "id": "c2", "kind": "shoot_back", "area": "arm"})
    with pytest.raises(RulesError, match="own action"):
        run(state, {"type": "respond", "id": "c1", "kind": "cover"})


def test_cover_without_stridsvana_is_hard_against_rör_line_787():
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "chest"}
    )
    state, events = run(
        state, {"type": "respond", "id": "c2", "kind": "cover"}, 5, 5, 5, 5, 5, 5, 5
    )
    assert of(events, E.ResponseDeclared).parts == (("base", 4),)
    assert of(events, E.CoverSought).test.stat == "agility"


def test_shooting_back_hits_the_attacker_after_the_attack_lines_773_778():
    state = duel()
    state = add(state, "C", side="b", turn_order=4, skills={"pistol": 12}, weapons=[PISTOL])
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "chest"}
    )
    # C, not the target, declares first; B then answers with none.
    state, events = run(state, {"type": "respond", "id": "c3", "kind": "shoot_back", "area": "leg"})
    assert of(events, E.ResponseDeclared).parts == (("base", 3),)
    state, events = run(
        state,
        {"type": "pass", "id": "c2"},
        5,
        5,
        5,  # A misses B
        1,
        1,
        2,  # C shoots back: 4 against 12
        1,
        1,
        1,  # Pistol Ob3T6: 3 damage on the leg, P: a small bleed
        1,
        1,
        1,  # A's death roll
        1,
        1,
        1,  # A's shock roll
    )
    rolled = [e for e in events if isinstance(e, E.AttackRolled)]
    assert [(r.attacker, r.hit, r.response) for r in rolled] == [
        ("c1", False, False),
        ("c3", True, True),
    ]
    wounded = of(events, E.Wounded)
    assert (wounded.id, wounded.area, wounded.damage) == ("c1", "leg", 3)


def test_fleeing_gives_up_the_rounds_active_actions_lines_801_804():
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "chest"}
    )
    state, events = run(state, {"type": "respond", "id": "c2", "kind": "flee"}, 5, 5, 5)
    assert of(events, E.Fled).id == "c2"
    assert state.active is None
    assert ENGINE.view(state, GM)["round_over"]


def test_one_response_per_active_action_line_671():
    state = duel()
    state = add(state, "C", side="b", turn_order=4)
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "chest"}
    )
    state, _ = run(state, {"type": "respond", "id": "c3", "kind": "flee"})
    with pytest.raises(RulesError, match="one response per active action"):
        run(state, {"type": "respond", "id": "c3", "kind": "cover"})
    with pytest.raises(RulesError, match="waiting for its responses"):
        run(state, {"type": "end_round"})


# Damage (lines 806-1130) ----------------------------------------------------------------


def test_a_cut_of_17_on_the_arm_from_start_round_to_the_serious_injury_lines_818_852():
    """A whole exchange: B hits A's arm with an axe for 17 against Chockvärde 12: 8
    Trauma, 9 Smärta (lines 843-849), a small bleed (line 850), a serious injury on the
    table (H, ARM, 1T10 3: Artärblödning, ABx1: as many bleed points as the attack's
    Trauma, lines 1068-1070), then the death and shock rolls (line 837-839). Blood loss
    follows at the text's rates (lines 1077-1085)."""
    state = duel()
    state = state.put(by_name(state, "A").with_(shock_value=12))
    state, events = run(state, {"type": "start_round"})
    assert events == (E.RoundStarted(1), E.TurnStarted("c1", 12))
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 0})
    assert active_name(state) == "B"
    state, _ = run(state, {"type": "declare", "id": "c2", "actions": 1})
    state, events = run(
        state, {"type": "attack", "id": "c2", "target": "c1", "weapon": "Yxa", "area": "arm"}
    )
    assert of(events, E.AttackDeclared).parts == (("base", 3),)
    state, events = run(
        state,
        {"type": "pass", "id": "c1"},
        2,
        3,
        4,  # the attack: 9 against axe 12, a hit
        5,
        5,
        4,
        3,  # Yxa Ob4T6: 17
        3,  # 1T10 on ARM, H: 3, Artärblödning
        1,
        2,
        1,
        1,  # death roll Ob3T6 + 1 Trauma row = Ob4T6 against TÅL 10: 5, perfect
        2,
        2,
        2,
        2,
        2,  # shock roll Ob3T6 + Trauma + Smärta rows: 10 against 12
    )
    wounded = of(events, E.Wounded)
    assert (wounded.rolled, wounded.damage, wounded.trauma, wounded.pain) == (17, 17, 8, 9)
    assert wounded.injury.name == "Artärblödning"
    assert wounded.injury.codes == ("ABx1",)
    assert wounded.injury.line == 971
    assert wounded.bleed == 1 + 8  # SB, and ABx1 of the attack's 8 Trauma
    assert wounded.death.parts == (("base", 3), ("trauma", 1))
    assert wounded.death.success
    assert wounded.shock.parts == (("base", 3), ("trauma", 1), ("pain", 1))
    assert wounded.shock.success
    assert not (wounded.dead)
    assert not (wounded.unconscious)
    a = by_name(state, "A")
    assert (a.trauma, a.pain, a.bleeding.rate, a.bleeding.loss) == (8, 9, 9, 0)
    # Smärta's full row makes A's skill tests +Ob1T6 (lines 1036-1045).
    view = ENGINE.view(state, GM)
    sections = next(c for c in view["combatants"] if c["id"] == "c1")["sections"]
    assert [(s["key"], s["boxes"], s["filled"], s["adds"]) for s in sections] == [
        ("trauma", 8, 1, 1),
        ("pain", 9, 1, 1),
        ("blood_loss", 0, 0, 0),
    ]
    assert sections[1]["rows"][0] == {"boxes": [True] * 5, "full": True, "adds": 1}
    assert sections[1]["rows"][1]["boxes"] == [True, True, True, True, False]
    # The round ends (4 s, full activity); a minute later the rate 9 has cost 9 boxes,
    # and the rise calls for a shock roll (lines 1116-1117).
    state, events = run(state, {"type": "end_round"})
    assert of(events, E.TimePassed).gained == 0
    state, events = run(state, {"type": "advance_time", "minutes": 1}, 1, 1, 1, 1, 1, 1)
    passed = of(events, E.TimePassed)
    assert (passed.gained, passed.bleeding.loss, passed.bleeding.rate) == (9, 9, 9)
    assert passed.shock.parts == (("base", 3), ("trauma", 1), ("pain", 1), ("blood_loss", 1))
    expected = advance_bleeding(advance_bleeding(a.bleeding, 4, "active").state, 60).state
    assert by_name(state, "A").bleeding == expected
    assert state.seconds == 64


def test_the_next_round_sees_the_pain_on_skill_tests_lines_1036_1045():
    state = duel()
    state, _ = run(
        state,
        {"type": "damage", "id": "c1", "damage": 10, "damage_type": "K", "area": "chest"},
        *[1] * 9,
    )
    assert by_name(state, "A").pain == 5
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, events = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "chest"}
    )
    assert of(events, E.AttackDeclared).parts == (("base", 3), ("pain", 1))


def test_a_broken_arm_check_and_protection_lines_822_882_889():
    """Protection comes off first (line 822); Bryt+2! is STY at Ob2T6 plus a tenth of
    the damage (lines 882-889)."""
    state = duel()
    state, _ = run(state, {"type": "update_combatant", "id": "c1", "protection": {"arm": 3}})
    state, events = run(
        state,
        {"type": "damage", "id": "c1", "damage": 24, "damage_type": "K", "area": "arm"},
        1,  # 1T10 on ARM, K: 1, Ben = Bryt+2!
        5,
        5,
        5,
        5,  # Bryt+2! Ob2T6 + 21 // 10 = Ob4T6 against STY 10: 20, broken
        1,
        1,
        1,
        1,
        1,  # death roll: 10 Trauma = 2 rows: Ob5T6
        1,
        1,
        1,
        1,
        1,
        1,
        1,  # shock roll: + 2 rows of Smärta (11): Ob7T6
    )
    wounded = of(events, E.Wounded)
    assert (wounded.protection, wounded.damage, wounded.trauma, wounded.pain) == (3, 21, 10, 11)
    assert wounded.bleed == 0  # crushing: no small bleed
    check = wounded.checks[0]
    assert (check.code, check.test.difficulty, check.failed) == ("Bryt+2!", 4, True)
    a = by_name(state, "A")
    assert a.injuries[0].outcomes == (("Bryt+2!", "failed"),)
    assert dict(a.losses) == {"broken:arm": 1}


def test_a_failed_death_roll_kills_and_a_failed_shock_roll_knocks_out():
    """The reading (engine docstring): death roll against TÅL, failure dead; shock roll
    against Chockvärde, failure unconscious."""
    state = duel()
    state, events = run(
        state,
        {"type": "damage", "id": "c1", "damage": 4, "damage_type": "K", "area": "leg"},
        1,
        1,
        1,
        5,
        5,
        5,
    )
    assert not of(events, E.Wounded).dead
    assert of(events, E.Wounded).unconscious
    a = by_name(state, "A")
    assert a.alive
    assert not a.conscious
    state, _ = run(state, {"type": "wake", "id": "c1"})
    state, events = run(
        state,
        {"type": "damage", "id": "c1", "damage": 4, "damage_type": "K", "area": "leg"},
        5,
        5,
        5,
    )
    assert of(events, E.Wounded).dead
    assert of(events, E.Wounded).shock is None
    assert not by_name(state, "A").alive
    with pytest.raises(RulesError, match="A is dead"):
        run(state, {"type": "damage", "id": "c1", "damage": 4, "damage_type": "K", "area": "leg"})


def test_only_pain_needs_no_death_roll_lines_1039_1041():
    state = duel()
    state, events = run(
        state,
        {"type": "damage", "id": "c1", "damage": 1, "damage_type": "K", "area": "leg"},
        1,
        1,
        1,
    )
    wounded = of(events, E.Wounded)
    assert (wounded.trauma, wounded.pain, wounded.death) == (0, 1, None)
    assert wounded.shock is not None


def test_suffocation_goes_on_each_round_until_treated_lines_911_916():
    """Strupe (HALS, H 1-2): Tx1 / AB / Kvävning!: 1 T and 1 S a round until help."""
    state = duel()
    state, events = run(
        state,
        {"type": "damage", "id": "c2", "damage": 14, "damage_type": "H", "area": "neck"},
        1,
        *[1] * 7,
        *[1] * 8,
    )  # 1T10, Ob7T6 death, Ob8T6 shock
    b = by_name(state, "B")
    assert b.ongoing[0].code == "Kvävning!"
    assert (b.trauma, b.pain) == (7 + 14, 7)
    state, _ = run(state, {"type": "start_round"})
    state, events = run(state, {"type": "end_round"})
    passed = of(events, E.TimePassed)
    assert (passed.trauma, passed.pain) == (1, 1)
    state, _ = run(state, {"type": "treat", "id": "c2", "code": "Kvävning!"})
    assert by_name(state, "B").ongoing == ()


def test_the_random_hit_location_house_rule():
    state = duel(hit_location="random")
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol"})
    state, events = run(
        state,
        {"type": "pass", "id": "c2"},
        1,
        1,
        2,  # a hit
        9,  # 1T10: 9, the leg
        1,
        1,
        1,  # 3 damage
        1,
        1,
        1,
        1,
        1,
        1,
    )
    assert of(events, E.AttackRolled).area == "leg"
    assert of(events, E.Wounded).area == "leg"


# The interface ------------------------------------------------------------------------------


def test_the_engine_is_found_by_its_system_and_answers_the_protocol():
    engine = engine_for("phobia")
    assert engine is ENGINE
    assert engine.template == "combat/phobia"
    keys = [rule["key"] for rule in engine.house_rules()]
    assert {
        "hit_location",
        "roll_base",
        "row_difficulty",
        "damage_columns",
        "turn_order_die",
        "death_stat",
        "shock_stat",
    } <= set(keys)
    state = engine.new_state({"damage_columns": 4.0, "turn_order_die": True}, name="Bro")
    assert (state.house.damage_columns, state.house.turn_order_die, state.name) == (4, True, "Bro")
    for bad in ({"damage_columns": 0}, {"hit_location": "dice"}, {"turn_order_die": 1}):
        with pytest.raises(RulesError):
            engine.new_state(bad)


def test_commands_are_parsed_strictly():
    with pytest.raises(RulesError, match="unknown fields"):
        ENGINE.parse_command(
            {"type": "attack", "id": "c1", "target": "c2", "weapon": "x", "mode": "auto"}
        )
    with pytest.raises(RulesError, match="unknown area"):
        ENGINE.parse_command(
            {"type": "attack", "id": "c1", "target": "c2", "weapon": "x", "area": "torso"}
        )
    with pytest.raises(RulesError, match="unknown response"):
        ENGINE.parse_command({"type": "respond", "id": "c1", "kind": "dodge"})
    with pytest.raises(RulesError, match="damage type"):
        ENGINE.parse_command(
            {"type": "add_combatant", "name": "X", "weapons": [{**AXE, "damage_type": "Q"}]}
        )
    weapon = Weapon("yxa", "Yxa", 4, "H", "axe")
    parsed = ENGINE.parse_command(
        {"type": "add_combatant", "name": "X", "weapons": ["yxa"]}, weapons={"yxa": weapon}
    )
    assert parsed.weapons == (weapon,)
    flat = ENGINE.parse_command(
        {
            "type": "add_combatant",
            "name": "X",
            "weapon_name": "Kniv",
            "weapon_damage": 2,
            "weapon_type": "h",
            "weapon_chance": 11,
            "cover": {"arm": 2},
        }
    )
    assert flat.weapons == (Weapon("Kniv", "Kniv", 2, "H", "Kniv"),)
    assert (flat.skills, flat.protection) == ({"Kniv": 11}, {"arm": 2})
    assert (
        ENGINE.parse_command(
            {"type": "attack", "id": "c1", "target": "c2", "weapon": "x", "aim": 1}
        ).aim
        is True
    )


def test_who_acts_and_who_may_answer_for_an_absent_target():
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    assert ENGINE.actor_of(state, C.StartRound()) is None
    assert ENGINE.actor_of(state, C.Declare("c1", 1)) == "c1"
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "chest"}
    )
    assert ENGINE.timeout_actor(state, C.Pass("c2")) == "c1"
    assert ENGINE.timeout_actor(state, C.Respond("c2", "cover")) is None
    # The prompt: the GM answers for the NPC target; a player sees the wait.
    [prompt] = ENGINE.view(state, GM)["prompts"]
    assert (prompt["for"], prompt["target"], prompt["mine"]) == ("c2", True, True)
    assert [o["kind"] for o in prompt["options"] if o["enabled"]] == ["cover", "flee"]
    [prompt] = ENGINE.view(state, Viewer(is_gm=False, controls=frozenset({"c1"})))["prompts"]
    assert (prompt["mine"], prompt["options"]) == (False, [])


def test_a_character_block_makes_a_combatant():
    block = ENGINE.character_block(
        name="Sinclair MacNeal",
        levels={
            "strength": 12,
            "endurance": 11,
            "agility": 13,
            "will": 14,
            "sight": 10,
            "hiding": 15,
            "combat_experience": 2,
            "climbing": 0,
        },
        derived={"shock_value": 12, "turn_order": 21, "movement": 8, "calm": 9, "mental_value": 11},
    )
    assert block["skills"] == {"hiding": 15, "combat_experience": 2}
    state, _ = run(ENGINE.new_state({}), {**block, "character_id": 7})
    c = state.combatants[0]
    assert (c.turn_order, c.shock_value, c.movement, c.npc, c.character_id) == (21, 12, 8, False, 7)
    with pytest.raises(RulesError, match="Turordning"):
        run(ENGINE.new_state({}), {"type": "add_combatant", "name": "Ny"})
    state, _ = run(
        ENGINE.new_state({}),
        {"type": "add_combatant", "name": "Ny", "calm": 9, "skills": {"combat_experience": 2}},
    )
    assert state.combatants[0].turn_order == 10 + 9 + 4  # (RÖR+SYN)/2 + Lugn + 2 Stridsvana


def test_preview_gives_the_exact_chance_to_hit():
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 2})
    preview = ENGINE.preview(state, C.Attack("c1", "c2", "Pistol", "arm"), GM)
    assert preview["difficulty"] == 4
    assert preview["p_hit"] == round(float(odds(4, 12).success) * 100, 1)
    assert "p_serious" in preview
    assert "p_serious" not in ENGINE.preview(
        state,
        C.Attack("c1", "c2", "Pistol", "arm"),
        Viewer(is_gm=False, controls=frozenset({"c1"})),
    )
    aimed = ENGINE.preview(state, C.Attack("c1", "c2", "Pistol", "arm", aim=True), GM)
    assert aimed["difficulty"] == 3
    with pytest.raises(RulesError):
        ENGINE.preview(state, C.Pass("c2"), GM)


def test_players_never_see_npc_numbers():
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 0})
    state, _ = run(state, {"type": "declare", "id": "c2", "actions": 1})
    before = state
    state, events = run(
        state, {"type": "attack", "id": "c2", "target": "c1", "weapon": "Kniv", "area": "arm"}
    )
    state, more = run(state, {"type": "pass", "id": "c1"}, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1)
    player = Viewer(is_gm=False, controls=frozenset({"c1"}))
    seen = ENGINE.view(state, player)
    npc = next(c for c in seen["combatants"] if c["id"] == "c2")
    assert not npc["numbers"]
    assert "sections" not in npc
    assert "weapons" not in npc
    mine = next(c for c in seen["combatants"] if c["id"] == "c1")
    assert mine["numbers"]
    assert mine["sections"][0]["boxes"] == 1
    lines = ENGINE.describe(before, events + more, player)
    declared = next(line for line in lines if line["kind"] == "AttackDeclared")
    assert "parts" not in declared
    rolled = next(line for line in lines if line["kind"] == "AttackRolled")
    assert rolled["hit"]
    assert "total" not in rolled["tests"][0]
    wounded = next(line for line in lines if line["kind"] == "Wounded")
    assert wounded["damage"] == 2  # A's own wound: A's player sees it
    gm_rolled = next(
        line
        for line in ENGINE.describe(before, events + more, GM)
        if line["kind"] == "AttackRolled"
    )
    assert gm_rolled["tests"][0]["dice_text"] == "Ob3T6 [1, 1, 2] = 4"


def test_every_event_survives_the_json_codec():
    """Every event type the engine has, through rules.engine.encode/decode as stored."""
    for scenario in (
        test_each_extra_action_makes_all_of_them_harder_lines_651_658,
        test_aim_and_shoot_halves_turn_order_and_eases_the_shot_lines_733_743,
        test_defending_is_an_opposed_test_rolled_again_on_equal_effects_lines_556_578_796,
        test_fleeing_gives_up_the_rounds_active_actions_lines_801_804,
        test_a_cut_of_17_on_the_arm_from_start_round_to_the_serious_injury_lines_818_852,
        test_a_broken_arm_check_and_protection_lines_822_882_889,
        test_a_failed_death_roll_kills_and_a_failed_shock_roll_knocks_out,
        test_suffocation_goes_on_each_round_until_treated_lines_911_916,
        test_turn_order_zero_or_less_gives_no_active_actions_but_responses_lines_638_641,
        test_shooting_back_hits_the_attacker_after_the_attack_lines_773_778,
        test_the_random_hit_location_house_rule,
        test_two_metres_are_free_and_fast_movement_makes_actions_harder_lines_261_264,
        test_waiting_for_a_target_acts_just_before_its_turn_lines_745_750,
        test_waiting_goes_on_into_the_next_round_and_may_let_a_target_pass_lines_746_747,
        test_reloading_takes_the_whole_round_line_758_759,
        test_a_skill_over_several_rounds_is_rolled_in_the_last_lines_761_765,
    ):
        scenario()
    # The rest: a removal, an aimed shot whose target dies, a response its maker cannot
    # make, and the end.
    state = duel()
    state = add(state, "Extra", side="b")
    state, _ = run(state, {"type": "remove_combatant", "id": "c3"})
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state,
        {
            "type": "attack",
            "id": "c1",
            "target": "c2",
            "weapon": "Pistol",
            "area": "chest",
            "aim": True,
        },
    )
    state, events = run(
        state,
        {"type": "damage", "id": "c2", "damage": 4, "damage_type": "K", "area": "leg"},
        5,
        5,
        5,
    )
    assert [type(e) for e in events][-3:] == [E.TurnStarted, E.AimLost, E.TurnEnded]
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "chest"}
    )
    state, events = run(
        state, {"type": "respond", "id": "c2", "kind": "cover"}, 1, 1, 2, 1, 1, 1, 1, 1, 1, 5, 5, 5
    )
    assert of(events, E.ResponseLost).kind == "cover"
    state, _ = run(state, {"type": "end"})
    assert state.ended
    random_game(3, 60)
    helpers.scene_scenario(run, ENGINE.new_state())
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, _ = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "chest"}
    )
    helpers.dice_scenario(ENGINE, SEEN, state, ENGINE.parse_command(
        {"type": "respond", "id": "c2", "kind": "cover"}), "c1")
    check_codec(ENGINE, E.EVENT_TYPES, SEEN)


# Random games: never a crash, and the log replays to the state ----------------------------


def setup():
    state = ENGINE.new_state({"turn_order_die": True})
    blocks = [
        dict(
            name="Jason",
            npc=False,
            turn_order=12,
            skills={"pistol": 14, "combat_experience": 2},
            weapons=[PISTOL, KNIFE],
            right="Pistol",
        ),
        dict(
            name="Ada",
            npc=False,
            turn_order=6,
            skills={"knife": 12},
            weapons=[KNIFE],
            protection={"chest": 2},
        ),
        dict(
            name="Vakt",
            side="b",
            turn_order=9,
            skills={"pistol": 10, "axe": 11},
            weapons=[PISTOL, AXE],
            right="Pistol",
        ),
        dict(
            name="Hund", side="b", turn_order=1, skills={"knife": 9}, weapons=[KNIFE], shock_value=6
        ),
    ]
    return helpers.with_blocks(ENGINE, state, blocks)


def candidates(state, choose: random.Random) -> list:
    """Commands worth trying now, weighted toward the fight (some are still refused)."""
    ids = [c.id for c in state.combatants]
    cid = choose.choice(ids)
    other = choose.choice(ids)
    area = choose.choice(["arm", "leg", "chest", "neck", "face", "skull", "belly", "groin"])
    kind = choose.choice(["defend", "cover", "flee", "shoot_back"])
    out = [
        C.Damage(cid, choose.choice("PKH"), area, damage=choose.randint(0, 30)),
        C.Wake(cid),
        C.UpdateCombatant(cid, turn_order_modifier=choose.randint(-12, 3)),
        C.Treat(cid, "Kvävning!"),
    ]
    if state.offer is not None:
        out += [C.ActNow(state.offer[0]), C.KeepWaiting(state.offer[0])] * 5
    if state.pending is not None:
        out += [C.Pass(state.pending.target)] * 3
        out += [
            C.Respond(c, choose.choice(["defend", "cover", "flee", "shoot_back"]), area=area)
            for c in ids
        ] * 3
    elif state.active is not None:
        actor = state.get(state.active)
        out += [C.Declare(actor.id, choose.randint(0, 3))] * 6
        out += [
            C.Move(actor.id, choose.choice([1.0, 2.5, 7.0, 12.0, 30.0])),
            C.Act(actor.id),
            C.WaitFor(actor.id, choose.choice(["", other])),
            C.Reload(actor.id),
            C.UseSkill(actor.id, "knife", rounds=choose.randint(1, 3)),
            C.ContinueSkill(actor.id),
            C.EndTurn(actor.id),
            C.StartRound(),
            C.Respond(cid, kind),
        ]
        for weapon in actor.weapons:
            out += [C.Attack(actor.id, other, weapon.key, area, aim=choose.random() < 0.3)] * 6
    else:
        out += [C.StartRound()] * 3 + [C.EndRound()] * 2
        out.append(
            C.AdvanceTime(
                minutes=choose.randint(1, 90), activity=choose.choice(["care", "normal", "active"])
            )
        )
    if choose.random() < 0.01:
        out.append(C.EndEncounter())
    return out


def random_game(seed: int, steps: int):
    viewers = (GM, PLAYERS, Viewer(is_gm=False, controls=frozenset({"c1"})))
    return helpers.random_game(ENGINE, setup, candidates, seed, steps, seen=SEEN, viewers=viewers)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(1, 40))
def test_random_games_never_crash_and_replay_to_the_state(seed, steps):
    initial, state, records = random_game(seed, steps)
    assert refold(ENGINE, initial, records, (GM, PLAYERS)) == state
    assert replay(ENGINE, initial, records).state == state


# A character's wounds go on into the next fight --------------------------------------------


def test_a_characters_wounds_go_on_into_the_next_encounter_lines_1072_1095():
    """A's arm cut (8 Trauma, 9 Smärta, Artärblödning, bleed rate 9) is carried into a new
    encounter as add_combatant's `carried`: the rows, the injury and the bleeding's clocks
    go on, so a minute there bleeds exactly as a minute more in the first would have."""
    state = duel()
    state = state.put(by_name(state, "A").with_(shock_value=12, character_id=7))
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 0})
    state, _ = run(state, {"type": "declare", "id": "c2", "actions": 1})
    state, _ = run(state, {"type": "attack", "id": "c2", "target": "c1", "weapon": "Yxa",
                           "area": "arm"})
    state, _ = run(state, {"type": "pass", "id": "c1"}, 2, 3, 4, 5, 5, 4, 3, 3,
                   1, 2, 1, 1, 2, 2, 2, 2, 2)
    state, _ = run(state, {"type": "end_round"})
    assert ENGINE.body_of(state, 8) is None  # nobody with that character here
    body = json.loads(json.dumps(ENGINE.body_of(state, 7)))  # as stored and posted
    assert body["trauma"] == 8
    assert body["pain"] == 9
    assert body["injuries"][0][3] == "Artärblödning"

    later = ENGINE.new_state({})
    later = add(later, "A", character_id=7, shock_value=12, carried=body)
    again = by_name(later, "A")
    first = by_name(state, "A")
    for field in ("trauma", "pain", "bleeding", "injuries", "losses", "alive", "conscious"):
        assert getattr(again, field) == getattr(first, field), field
    later, events = run(later, {"type": "advance_time", "minutes": 1}, 1, 1, 1, 1, 1, 1)
    state, _ = run(state, {"type": "advance_time", "minutes": 1}, 1, 1, 1, 1, 1, 1)
    assert by_name(later, "A").bleeding == by_name(state, "A").bleeding
    assert of(events, E.TimePassed).gained == 9
    # Not in an encounter: None; there but unhurt: nothing to carry.
    assert ENGINE.body_of(ENGINE.new_state({}), 7) is None
    assert ENGINE.body_of(add(ENGINE.new_state({}), "A", character_id=7), 7) == {}


@pytest.mark.parametrize("carried", [
    {"trauma": -1},
    {"trauma": "8"},
    {"bleeding": [0, 0, 5, 0, 0]},  # a clock that cannot run without bleeding
    {"injuries": [["tail", "H", 3, "Svans", [], 1, []]]},
    {"injuries": [["arm", "H", 3]]},
    {"ongoing": [["", 10]]},
    {"alive": "no"},
    {"mood": 3},
    [1, 2],
])
def test_a_carried_body_is_read_strictly(carried):
    with pytest.raises(RulesError):
        add(ENGINE.new_state({}), "A", character_id=7, carried=carried)


@pytest.mark.parametrize("character_id", [1, 1541, 10**12])
def test_a_character_of_any_database_id_can_join(character_id):
    state = add(ENGINE.new_state({}), "Jace", character_id=character_id)
    assert by_name(state, "Jace").character_id == character_id
    for bad in (0, -1, 2**63, True):
        with pytest.raises(RulesError):
            ENGINE.parse_command({"type": "add_combatant", "name": "Jace",
                                  "character_id": bad})


# A hit protection stops (lines 827-828, 850-852; the house rule stopped_hit_bleeds) --------


@pytest.mark.parametrize(("house", "bleed"), [({}, 1), ({"stopped_hit_bleeds": False}, 0)])
def test_a_hit_stopped_by_protection_still_bleeds_by_default_lines_850_852(house, bleed):
    """Lines 850-851: "Varje attack med ett projektil- eller huggvapen ger alltid ett kryss
    Småblödning". A shot of 4 on a vest of 6 gives no boxes, but its small bleed unless
    the campaign's house rule says a stopped hit does nothing; the page says which."""
    state = duel(**house)
    state, _ = run(state, {"type": "update_combatant", "id": "c2", "protection": {"chest": 6}})
    state, events = run(
        state, {"type": "damage", "id": "c2", "damage": 4, "damage_type": "P", "area": "chest"}
    )
    wounded = of(events, E.Wounded)
    assert (wounded.damage, wounded.trauma, wounded.pain, wounded.bleed) == (0, 0, 0, bleed)
    assert by_name(state, "B").bleeding.rate == bleed
    assert ENGINE.view(state, GM)["house"]["stopped_hit_bleeds"] is (bleed == 1)


# Invänta mål, Ladda om, Använda färdighet (lines 745-765); an overload (lines 274-283) -----


def test_waiting_for_a_target_acts_just_before_its_turn_lines_745_750():
    """Lines 745-750: "Om eller när målet väl uppenbarar sig har den som inväntar mål en
    möjlighet att utföra en av sina aktiva handlingar just innan målet utför sina aktiva
    handlingar." A (TO 12) keeps its one action for B; just before B's turn (TO 8) A is
    offered it, shoots (Ob3T6: 1, 1, 2 = 4 ≤ 12, hit; damage Ob3T6 of 1s, then the death and
    shock rolls), and only then does
    B take its turn."""
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    state, events = run(state, {"type": "wait_for", "id": "c1", "target": "c2"})
    assert [type(e) for e in events] == [E.WaitBegun, E.TurnEnded, E.WaitOffered]
    assert state.offer == ("c1", "c2")
    assert state.active is None
    with pytest.raises(RulesError) as refused:
        run(state, {"type": "declare", "id": "c2", "actions": 1})
    assert refused.value.code == "wait_offered"
    prompt = ENGINE.view(state, GM)["prompts"][0]
    assert (prompt["kind"], prompt["for"], prompt["target_name"]) == ("wait_offer", "c1", "B")
    state, events = run(state, {"type": "act_now", "id": "c1"})
    assert [type(e) for e in events] == [E.WaitTaken]
    assert state.active == "c1"
    state, _ = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "arm"}
    )
    state, events = run(state, {"type": "pass", "id": "c2"}, 1, 1, 2, 1, 1, 1, 3, 3, 3, 3, 3, 3)
    assert of(events, E.AttackRolled).hit
    assert [type(e) for e in events][-2:] == [E.TurnEnded, E.TurnStarted]
    assert state.active == "c2"
    assert by_name(state, "A").waiting is None


def test_waiting_goes_on_into_the_next_round_and_may_let_a_target_pass_lines_746_747():
    """Lines 746-747: the target may come "senare i rundan eller i nästföljande rundor". A
    waits for any foe; lets B pass this round (keep_waiting); in the next round A's own
    turn comes first: it declares Avvakta and keeps waiting, and is offered B again."""
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 2})
    state, _ = run(state, {"type": "wait_for", "id": "c1"})
    assert state.offer == ("c1", "c2")
    state, events = run(state, {"type": "keep_waiting", "id": "c1"})
    assert [type(e) for e in events] == [E.WaitKept, E.TurnStarted]
    assert state.active == "c2"
    state, _ = run(state, {"type": "declare", "id": "c2", "actions": 0})
    state, _ = run(state, {"type": "start_round"})
    assert state.active == "c1"
    assert by_name(state, "A").waiting == ""
    state, events = run(state, {"type": "declare", "id": "c1", "actions": 0})
    assert state.offer == ("c1", "c2")
    state, _ = run(state, {"type": "act_now", "id": "c1"})
    a = by_name(state, "A")
    assert (a.declared, a.actives, a.interrupting) == (1, 0, 0)
    state, events = run(state, {"type": "act", "id": "c1", "label": "dörren"})
    assert [type(e) for e in events] == [E.Acted, E.TurnEnded, E.TurnStarted]
    with pytest.raises(RulesError):
        run(state, {"type": "act_now", "id": "c1"})


def test_reloading_takes_the_whole_round_line_758_759():
    """Lines 758-759: "Ladda om ... tar vanligtvis en hel runda": the turn's one declared
    active action, with a ranged weapon; the turn ends with it."""
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 2})
    with pytest.raises(RulesError) as refused:
        run(state, {"type": "reload", "id": "c1"})
    assert refused.value.code == "reload_alone"
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    with pytest.raises(RulesError) as refused:
        run(state, {"type": "reload", "id": "c1", "weapon": "Kniv"})
    assert refused.value.code == "reload_weapon"
    state, events = run(state, {"type": "reload", "id": "c1"})
    assert [type(e) for e in events] == [E.Reloaded, E.TurnEnded, E.TurnStarted]
    assert of(events, E.Reloaded).weapon == "Pistol"


def test_a_skill_over_several_rounds_is_rolled_in_the_last_lines_761_765():
    """Lines 761-765: "Detta tar oftast flera rundor. Färdighetsslaget ... slås i den sista
    rundan som färdighetsutövandet täcker in." A binds a wound (Stridsvana 2 standing in
    for Första hjälpen) over 2 rounds: no roll in the first, one round's action in each,
    the test in the second, at Ob3T6 + 1 for its second declared action."""
    state = duel()
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    command = {"type": "use_skill", "id": "c1", "skill": "combat_experience", "rounds": 2,
               "label": "Första hjälpen"}
    state, events = run(state, command)
    assert [type(e) for e in events][:2] == [E.SkillBegun, E.TurnEnded]
    assert not any(isinstance(e, E.SkillRolled) for e in events)
    state, _ = run(state, {"type": "declare", "id": "c2", "actions": 0})
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 2})
    preview = ENGINE.view(state, GM)["skill"]
    assert (preview["difficulty"], preview["last"]) == (4, True)
    assert preview["p_success"] == percent(odds(4, 2).success)
    state, events = run(state, {"type": "continue_skill", "id": "c1"}, 3, 3, 1, 2)
    rolled = of(events, E.SkillRolled)
    assert (rolled.test.difficulty, rolled.test.total, rolled.test.success) == (4, 9, False)
    assert rolled.label == "Första hjälpen"
    assert by_name(state, "A").skill_use is None
    with pytest.raises(RulesError) as refused:
        run(state, {"type": "continue_skill", "id": "c1"})
    assert refused.value.code == "no_skill"
    # A use of one round rolls at once: Ob0T6 + 1 for the second declared action.
    state, events = run(state, {**command, "rounds": 1, "difficulty": 0}, 2)
    assert [type(e) for e in events][:2] == [E.SkillBegun, E.SkillRolled]
    assert (of(events, E.SkillRolled).test.difficulty, of(events, E.SkillRolled).test.success) == (
        1, True
    )


def test_an_overloaded_combatant_finds_every_action_harder_lines_274_283():
    """Lines 275-279: up to Bärförmåga the weight "hindrar inte ... rollpersonens
    handlingar"; above it the character is overloaded: its Ob dice (the campaign's house
    rule, per whole Bärförmåga) are on every action of the fight, the attack's preview
    and its test alike."""
    state = duel()
    state, _ = run(state, {"type": "update_combatant", "id": "c1", "burden": 2})
    state, _ = run(state, {"type": "start_round"})
    state, _ = run(state, {"type": "declare", "id": "c1", "actions": 1})
    preview = ENGINE.preview(state, C.Attack("c1", "c2", "Pistol", "arm"), GM)
    assert preview["difficulty"] == 5
    assert ["burden", 2] in preview["parts"]
    state, events = run(
        state, {"type": "attack", "id": "c1", "target": "c2", "weapon": "Pistol", "area": "arm"}
    )
    assert dict(of(events, E.AttackDeclared).parts)["burden"] == 2
    with pytest.raises(RulesError):
        run(state, {"type": "update_combatant", "id": "c1", "burden": 21})
