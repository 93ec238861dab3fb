"""T10 on the battle map (issue 27; the map is our addition, rules/t10/combat/engine.py
"The map"): combatants stand at points, a Move to a point is as long as the straight line
there and costs 1 AP per started house-rule `metres_per_ap` metres, each round keeps its
trail. `move_preview` and `move_bands` must agree with the engine's own `decide`
everywhere: the sweeps below compare them in the situations that change whether and
from what a move is paid (the turn's AP, saved AP out of turn or as a reaction, cover)."""

import json
import math
import random

import pytest

from rules.engine import Viewer, decode, encode
from rules.errors import RulesError
from rules.t10.combat import ENGINE
from rules.t10.combat import commands as C
from rules.t10.combat import events as E
from rules.t10.combat.movement import move_bands, move_preview
from tests.rules.helpers import of, strip_map
from tests.rules.helpers import run as helpers_run

GM = Viewer(is_gm=True)
JOHANS = Viewer(is_gm=False, controls=frozenset({"c1"}))
OTHERS = Viewer(is_gm=False, controls=frozenset({"c9"}))

PISTOL = {"key": "pistol", "name": "Pistol", "skill": "pistol", "close": 5, "normal": 25,
          "maximum": 50, "modes": [["E", 0]], "damage": 3, "attack_ap": 3, "reload_ap": 5,
          "stance_ap": 2, "magazine": 8}
GRENADE = {"key": "granat", "name": "Handgranat", "skill": "throw", "close": 5, "normal": 15,
           "maximum": 30, "modes": [["E", 0]], "damage": 6, "attack_ap": 3, "reload_ap": 0,
           "stance_ap": 1, "explosive": True}
KNIFE = {"key": "kniv", "name": "Kniv", "skill": "melee", "close": 0, "normal": 1,
         "maximum": 1, "modes": [["E", 0]], "damage": 2, "attack_ap": 2}


def run(state, command, *dice):
    return helpers_run(ENGINE, state, command, *dice)


def new_fight(house=None, *, johan=None, soldier=None):
    """Johan (c1, a player's, side a) and a soldier (c2, an NPC, side b), not started."""
    state = ENGINE.new_state(house or {})
    state, _ = run(state, {"type": "add_combatant", "name": "Johan", "npc": False,
                           "skills": {"pistol": 2}, "weapons": [PISTOL, KNIFE],
                           "stance": "aimed", **(johan or {})})
    state, _ = run(state, {"type": "add_combatant", "name": "Soldat", "side": "b",
                           "skills": {"throw": 1}, "weapons": [GRENADE], "stance": "aimed",
                           **(soldier or {})})
    return state


def fight(house=None, **kwargs):
    """Started: Johan (Initiativ 8) acts first, 10 AP; the soldier (4) next."""
    state, _ = run(new_fight(house, **kwargs), {"type": "start"}, 8, 4)
    assert state.active == "c1"
    return state


def spend(state, cid, ap):
    state, _ = run(state, {"type": "act", "id": cid, "label": "Spana", "ap": ap})
    return state


def saved_out_of_turn():
    """Johan saved 4 AP; the soldier's turn: Johan may move with them out of turn."""
    state = spend(fight(), "c1", 6)
    state, _ = run(state, {"type": "end_turn", "id": "c1"})
    assert state.active == "c2"
    assert state.get("c1").saved == 4
    return state


def reacting():
    """The soldier throws at Johan (4 saved AP), who may react with a move."""
    state = saved_out_of_turn()
    state, _ = run(state, {"type": "attack", "id": "c2", "target": "c1", "weapon": "granat",
                           "distance": 10})
    assert state.pending is not None
    assert state.pending.unanswered == ("c1",)
    return state


def in_cover():
    state, _ = run(fight(), {"type": "cover", "id": "c1"})
    assert state.get("c1").in_cover
    assert state.get("c1").ap == 7
    return state


def moved_once(house=None):
    state, _ = run(fight(house), {"type": "move", "id": "c1", "x": 1.5, "y": -2.0})
    return state


SITUATIONS = {  # (state, the mover)
    "full AP": lambda: (fight(), "c1"),
    "3 AP left": lambda: (spend(fight(), "c1", 7), "c1"),
    "1 AP left": lambda: (spend(fight(), "c1", 9), "c1"),
    "not its turn": lambda: (fight(), "c2"),
    "in cover": lambda: (in_cover(), "c1"),
    "saved AP out of turn": lambda: (saved_out_of_turn(), "c1"),
    "the one in turn while another has saved AP": lambda: (saved_out_of_turn(), "c2"),
    "reacting to an attack": lambda: (reacting(), "c1"),
    "the attacker while reactions wait": lambda: (reacting(), "c2"),
    "after a move, 3 m per AP": lambda: (moved_once({"metres_per_ap": 3}), "c1"),
    "1 m per AP": lambda: (fight({"metres_per_ap": 1}), "c1"),
    "not started": lambda: (new_fight(), "c1"),
    "no such combatant": lambda: (fight(), "c9"),
}


def decided(state, cid, x, y):
    """The events of a Move of `cid` to (x, y), or the refusal."""
    try:
        return ENGINE.decide(state, C.Move(cid, x=x, y=y), random.Random(0)), None
    except RulesError as error:
        return None, error


def charged(events, cid) -> int:
    """The AP the events take from `cid` for moving (its turn's and its saved)."""
    return sum(e.ap + e.saved for e in events
               if isinstance(e, E.APSpent) and e.id == cid and e.action == "move")


def moved(events, cid) -> E.Moved:
    return next(e for e in events if isinstance(e, E.Moved) and e.id == cid)


# The map's state -----------------------------------------------------------------------------


def test_combatants_added_without_a_point_do_not_stack():
    """Side a at x 0, the others at x 10, 1.5 m apart down y per side; a point given is
    used as typed."""
    state = ENGINE.new_state({})
    for name, side, extra in (("A1", "a", {}), ("B1", "b", {}), ("A2", "a", {}),
                              ("C1", "c", {}), ("B2", "b", {}), ("A3", "", {}),
                              ("B3", "b", {"x": -3.25, "y": 7.0}), ("A4", "a", {"y": 40.5})):
        state, _ = run(state, {"type": "add_combatant", "name": name, "side": side, **extra})
    places = {c.name: (c.x, c.y) for c in state.combatants}
    assert places == {
        "A1": (0.0, 0.0), "A2": (0.0, 1.5), "A3": (0.0, 3.0), "A4": (0.0, 40.5),
        "B1": (10.0, 0.0), "B2": (10.0, 1.5), "B3": (-3.25, 7.0),
        "C1": (10.0, 0.0),
    }
    assert len({(c.x, c.y, c.side) for c in state.combatants}) == len(state.combatants)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, 10000.5, -20000.0])
def test_a_point_off_the_map_is_refused_as_a_bad_field(value):
    state = ENGINE.new_state({})
    for command in (C.AddCombatant(name="X", x=value), C.AddCombatant(name="X", y=value)):
        with pytest.raises(RulesError) as refused:
            ENGINE.decide(state, command, random.Random(0))
        assert refused.value.code == "bad_field"
    state = fight()
    for command in (C.UpdateCombatant("c1", x=value), C.Move("c1", x=value, y=0.0),
                    C.Move("c1", x=0.0, y=value)):
        with pytest.raises(RulesError) as refused:
            ENGINE.decide(state, command, random.Random(0))
        assert refused.value.code == "bad_field"
    if math.isfinite(value):  # the form's way in refuses it as a bad field too
        with pytest.raises(RulesError) as refused:
            ENGINE.parse_command({"type": "add_combatant", "name": "X", "x": value})
        assert refused.value.code == "bad_field"


def test_a_move_to_a_point_goes_there_pays_its_metres_and_leaves_its_trail():
    state = in_cover()  # Johan at (0, 0), in cover, 7 AP
    state, events = run(state, {"type": "move", "id": "c1", "x": 3.0, "y": 4.0})
    assert moved(events, "c1") == E.Moved("c1", 5.0, 3.0, 4.0)
    assert charged(events, "c1") == 3  # 5 m at 2 m per AP: three started AP
    johan = state.get("c1")
    assert (johan.x, johan.y, johan.ap, johan.in_cover) == (3.0, 4.0, 4, False)
    assert johan.path == ((0.0, 0.0), (3.0, 4.0))
    state, events = run(state, {"type": "move", "id": "c1", "x": 3.0, "y": 0.0})
    assert charged(events, "c1") == 2
    assert state.get("c1").path == ((0.0, 0.0), (3.0, 4.0), (3.0, 0.0))
    # A move typed in metres pays as before and leaves the point and the trail alone.
    state, events = run(state, {"type": "move", "id": "c1", "metres": 2.0})
    assert moved(events, "c1") == E.Moved("c1", 2.0)
    johan = state.get("c1")
    assert (johan.x, johan.y, johan.path) == (3.0, 0.0, ((0.0, 0.0), (3.0, 4.0), (3.0, 0.0)))


def test_a_point_counts_instead_of_metres_and_a_move_needs_one_or_the_other():
    state = fight()
    _state, events = run(state, C.Move("c1", metres=9.0, x=0.0, y=2.0))
    assert moved(events, "c1") == E.Moved("c1", 2.0, 0.0, 2.0)
    assert charged(events, "c1") == 1
    for command, field in ((C.Move("c1"), "metres"), (C.Move("c1", x=1.0), "y"),
                           (C.Move("c1", metres=2.0, y=1.0), "x")):
        with pytest.raises(RulesError) as refused:
            ENGINE.decide(state, command, random.Random(0))
        assert (refused.value.code, refused.value.params["field"]) == ("bad_field", field)
    with pytest.raises(RulesError) as refused:
        ENGINE.decide(state, C.Move("c1", x=0.001, y=0.0), random.Random(0))
    assert refused.value.code == "no_move"


def test_a_new_round_clears_the_trails_and_keeps_the_points():
    state = moved_once()
    assert state.get("c1").path == ((0.0, 0.0), (1.5, -2.0))
    state, events = run(state, {"type": "end_round"})
    assert any(isinstance(e, E.RoundStarted) for e in events)
    johan = state.get("c1")
    assert (johan.x, johan.y, johan.path) == (1.5, -2.0, ())
    state, _ = run(state, {"type": "move", "id": "c1", "x": 1.5, "y": 0.0})
    assert state.get("c1").path == ((1.5, -2.0), (1.5, 0.0))


def test_the_gm_places_a_combatant_and_its_trail_starts_again():
    state = moved_once()
    state, events = run(state, {"type": "update_combatant", "id": "c1", "x": 20.0, "y": 5.5})
    assert of(events, E.CombatantUpdated).changes == (("x", 20.0), ("y", 5.5))
    johan = state.get("c1")
    assert (johan.x, johan.y, johan.path) == (20.0, 5.5, ())
    # The GM's form posts the place with every change: an unchanged place is no change
    # and keeps the trail.
    state, _ = run(state, {"type": "move", "id": "c1", "x": 20.0, "y": 7.5})
    state, events = run(state, {"type": "update_combatant", "id": "c1", "x": 20.0,
                                "y": 7.5, "modifier": 1})
    assert of(events, E.CombatantUpdated).changes == (("modifier", 1),)
    assert state.get("c1").path == ((20.0, 5.5), (20.0, 7.5))
    with pytest.raises(RulesError) as refused:
        ENGINE.decide(state, C.UpdateCombatant("c1", x=20.0), random.Random(0))
    assert refused.value.code == "nothing"


def test_a_reaction_moves_to_its_point_with_saved_ap():
    """The grenade then misses (1 + 1): the saved AP left are what the move left."""
    state = reacting()
    state, events = run(state, {"type": "move", "id": "c1", "x": 0.0, "y": 6.0}, 1, 1)
    assert moved(events, "c1") == E.Moved("c1", 6.0, 0.0, 6.0)
    assert of(events, E.APSpent) == E.APSpent("c1", 0, 3, "move")
    johan = state.get("c1")
    assert (johan.x, johan.y, johan.saved) == (0.0, 6.0, 1)


# Old logs ------------------------------------------------------------------------------------


def test_a_log_from_before_the_map_replays_as_before():
    """Moves in metres only, stored without x, y or path: they decode to the same events
    and fold to the same state (everyone at the origin, no trails)."""
    state = ENGINE.new_state({})
    log = []
    for command, dice in (
        ({"type": "add_combatant", "name": "Johan", "npc": False, "x": 0.0, "y": 0.0}, ()),
        ({"type": "add_combatant", "name": "Soldat", "side": "b", "x": 0.0, "y": 0.0}, ()),
        ({"type": "start"}, (8, 4)),
        ({"type": "move", "id": "c1", "metres": 3.0}, ()),
        ({"type": "cover", "id": "c1"}, ()),
        ({"type": "end_turn", "id": "c1"}, ()),
        ({"type": "move", "id": "c2", "metres": 7.5}, ()),
    ):
        state, events = run(state, command, *dice)
        log.extend(events)
    old = json.loads(json.dumps(strip_map([encode(e) for e in log])))
    assert all("x" not in e for e in old if e["_"] == "Moved")
    decoded = [decode(e, ENGINE.event_types) for e in old]
    assert decoded == log
    folded = ENGINE.new_state({})
    for event in decoded:
        folded = ENGINE.evolve(folded, event)
    assert folded == state
    assert [(c.x, c.y, c.path) for c in folded.combatants] == [(0.0, 0.0, ())] * 2
    assert decode({"_": "Moved", "id": "c1", "metres": 4.0}, ENGINE.event_types) == E.Moved(
        "c1", 4.0, None, None)
    stored_move = {"_": "Move", "id": "c1", "metres": 4.0}
    assert decode(stored_move, ENGINE.event_types) == C.Move("c1", 4.0)


# The preview and the bands against decide ----------------------------------------------------


def grid(c):
    cx, cy = (c.x, c.y) if c is not None else (0.0, 0.0)
    steps = [i / 2 for i in range(-16, 17)]
    return [(round(cx + dx, 2), round(cy + dy, 2)) for dx in steps for dy in steps]


@pytest.mark.parametrize("situation", SITUATIONS)
def test_the_preview_agrees_with_decide_at_every_point_of_a_grid(situation):
    state, cid = SITUATIONS[situation]()
    c = state.get(cid)
    accepted = 0
    for x, y in grid(c):
        preview = move_preview(state, cid, x, y)
        events, error = decided(state, cid, x, y)
        assert (preview["refused"] is None) == (error is None), (situation, x, y, preview)
        assert (preview["id"], preview["x"], preview["y"]) == (cid, x, y)
        assert (preview["unit"], preview["mode"], preview["later"]) == ("AP", "", 0)
        assert (preview["extended"], preview["escape"], preview["watchers"]) == (False, [], [])
        if error is not None:
            assert preview["refused"] == {"code": error.code,
                                          "message": error.template or str(error),
                                          "params": dict(error.params)}
            continue
        accepted += 1
        assert preview["cost"] == charged(events, cid) == preview["now"]
        assert preview["metres"] == moved(events, cid).metres
        assert (moved(events, cid).x, moved(events, cid).y) == (x, y)
        assert preview["cost"] <= preview["cp"]
    json.dumps(move_preview(state, cid, 1.0, 1.0))
    # Bands exactly when it may move at all (half a metre always costs 1 AP).
    assert bool(c is not None and move_bands(state, c)) == (accepted > 0), situation


def test_the_preview_counts_what_it_can_for_a_refused_move():
    state = spend(fight(), "c1", 9)  # 1 AP left: 2 m
    preview = move_preview(state, "c1", 3.0, 4.0)
    assert (preview["metres"], preview["cost"], preview["cp"]) == (5.0, 3, 1)
    assert preview["refused"]["code"] == "ap"
    assert preview["refused"]["params"] == {"name": "Johan", "ap": 1, "cost": 3}
    assert move_preview(state, "c1", 0.0, 0.0)["refused"]["code"] == "no_move"
    far = move_preview(state, "c1", 1500.0, 0.0)
    assert (far["metres"], far["cost"], far["refused"]["code"]) == (1500.0, None, "bad_field")
    missing = move_preview(state, "c9", 1.0, 0.0)
    assert (missing["cost"], missing["refused"]["code"]) == (None, "no_combatant")


def test_the_engine_previews_a_move_to_a_point_and_refuses_one_without():
    state = fight()
    assert ENGINE.preview(state, C.Move("c1", x=2.0, y=0.0)) == move_preview(state, "c1",
                                                                               2.0, 0.0)
    with pytest.raises(RulesError):
        ENGINE.preview(state, C.Move("c1", 3.0))


BAND_SITUATIONS = {k: v for k, v in SITUATIONS.items()
                   if k not in ("not started", "no such combatant")}


@pytest.mark.parametrize("situation", BAND_SITUATIONS)
def test_the_bands_agree_with_decide_centimetre_by_centimetre(situation):
    """Along a slanted line from the mover (3-4-5: the metres are not the steps'), at
    every centimetre: accepted exactly up to the last band, and at the AP of the first
    band that reaches the distance."""
    state, cid = BAND_SITUATIONS[situation]()
    c = state.get(cid)
    bands = move_bands(state, c)
    assert [b["upto"] for b in bands] == sorted({b["upto"] for b in bands})
    assert all((b["unit"], b["mode"]) == ("AP", "") for b in bands)
    last = bands[-1]["upto"] if bands else 0.0
    for cm in range(1, int(last * 100) + 150):
        d = cm / 100
        x, y = round(c.x + 0.6 * d, 2), round(c.y + 0.8 * d, 2)
        events, error = decided(state, cid, x, y)
        metres = round(math.hypot(x - c.x, y - c.y), 2)
        assert (error is None) == (0 < metres <= last), (situation, d, metres, error)
        if error is None:
            band = next(b for b in bands if b["upto"] >= metres)
            assert band["cost"] == charged(events, cid), (situation, metres, bands)
            assert moved(events, cid).metres == metres


def test_the_bands_are_one_per_ap_to_the_farthest_it_can_go():
    state = spend(fight({"metres_per_ap": 3}), "c1", 6)  # 4 AP at 3 m each
    assert move_bands(state, state.get("c1")) == [
        {"upto": float(m), "cost": ap, "unit": "AP", "mode": ""}
        for ap, m in ((1, 3), (2, 6), (3, 9), (4, 12))
    ]
    assert move_bands(state, state.get("c2")) == []  # not its turn, no saved AP


# The view ------------------------------------------------------------------------------------


def test_the_view_gives_points_trails_bands_and_ranges_to_whom_commands():
    state = moved_once()
    for viewer, mine in ((GM, True), (JOHANS, True), (OTHERS, False)):
        view = ENGINE.view(state, viewer)
        json.dumps(view)
        johan, soldier = view["combatants"]
        assert (johan["x"], johan["y"]) == (1.5, -2.0)
        assert johan["path"] == [[0.0, 0.0], [1.5, -2.0]]
        assert (soldier["x"], soldier["y"], soldier["path"]) == (10.0, 0.0, [])
        assert soldier["move_bands"] is None  # not its turn
        if mine:
            assert johan["move_bands"] == move_bands(state, state.get("c1"))
            # 2.5 m moved for 2 AP: 8 left, 2 m each.
            assert johan["move_bands"][-1] == {"upto": 16.0, "cost": 8, "unit": "AP",
                                               "mode": ""}
            assert johan["ranges"] == [
                {"weapon": "pistol", "name": "Pistol", "close": 5, "normal": 25,
                 "maximum": 50},
                {"weapon": "kniv", "name": "Kniv", "close": 0, "normal": 1, "maximum": 1},
            ]
        else:
            assert johan["move_bands"] is None
            assert johan["ranges"] is None
        # The soldier's weapons are the GM's to see.
        assert (soldier["ranges"] is not None) == viewer.is_gm
    waiting = ENGINE.view(reacting(), GM)
    assert [c["move_bands"] for c in waiting["combatants"]] == [None, []]
