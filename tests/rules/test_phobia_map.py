"""Phobia on the battle map (issue 27): positions in metres, a Move to a point, the round's
trail, and what the map shows before a move (`move_preview`, `move_bands`). The text
counts only metres (phobia-utdrag.txt lines 261-271: 2 m free, up to FÖR with every
action harder, FÖR x 2 running, FÖR x 3 sprinting; Förflytta sig is the turn's first
active action, lines 724-729); a move to a point counts the straight line's metres, and
the map's preview and bands must agree with the engine's own `decide` everywhere: the
sweeps below compare them over grids of points and distances."""

import dataclasses
import json
import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.engine import Viewer, decode, encode
from rules.errors import RulesError
from rules.phobia.combat import ENGINE
from rules.phobia.combat import commands as C
from rules.phobia.combat import events as E
from rules.phobia.combat.movement import move_bands, move_preview
from tests.rules import helpers
from tests.rules import test_phobia_combat as base
from tests.rules.helpers import by_name, of, refold, strip_map

GM = Viewer(is_gm=True)
PLAYERS = Viewer(is_gm=False)
KNIFE = {"name": "Kniv", "damage": 1, "damage_type": "H", "skill": "knife"}


def run(state, command):
    """`command` (a dict is parsed as the app does) decided and folded; no dice needed."""
    return helpers.run(ENGINE, state, command)


def add(state, name, **fields):
    fields.setdefault("npc", False)
    fields.setdefault("turn_order", 10)
    state, _ = run(state, {"type": "add_combatant", "name": name, **fields})
    return state


def fight(movement=5, at=(3.0, -2.0)):
    """A (TO 12, FÖR `movement`, standing at `at`) acts before B (TO 8, side b); started,
    A's turn, nothing declared."""
    state = ENGINE.new_state({})
    state = add(state, "A", turn_order=12, movement=movement, x=at[0], y=at[1],
                skills={"knife": 12}, weapons=[KNIFE])
    state = add(state, "B", side="b", turn_order=8, skills={"knife": 12}, weapons=[KNIFE])
    state, _ = run(state, {"type": "start_round"})
    assert state.active == "c1"
    return state


def a_of(state):
    return by_name(state, "A")


def go(state, dx, dy):
    """A moves by (dx, dy) from where it stands."""
    a = a_of(state)
    return run(state, C.Move(a.id, x=a.x + dx, y=a.y + dy))[0]


def declared(state, actions):
    return run(state, C.Declare("c1", actions))[0]


# Positions and the trail (lines 261-271) -------------------------------------------------


def test_a_move_to_a_point_goes_there_and_counts_the_straight_line():
    """3-4-5: a move to a point 5 m off is a 5 m move (Förflyttning up to FÖR 5, lines
    263-264), the token goes there and the round's trail starts where it stood."""
    state = declared(fight(), 1)
    state, events = run(state, C.Move("c1", x=6.0, y=2.0))  # from (3, -2)
    assert of(events, E.Moved) == E.Moved("c1", 5.0, 5.0, "move", True, 6.0, 2.0)
    a = a_of(state)
    assert (a.x, a.y, a.path) == (6.0, 2.0, ((3.0, -2.0), (6.0, 2.0)))


def test_free_moves_build_the_trail_point_by_point_line_261():
    state = fight()
    state = go(state, 1.0, 0.0)
    state = go(state, 0.0, 0.5)
    a = a_of(state)
    assert a.moved == 1.5
    assert a.path == ((3.0, -2.0), (4.0, -2.0), (4.0, -1.5))


def test_a_new_round_clears_the_trail_not_the_place_line_619():
    state = go(fight(), 1.5, 0.0)
    state, _ = run(state, {"type": "start_round"})
    a = a_of(state)
    assert (a.x, a.y, a.path, a.moved) == (4.5, -2.0, (), 0.0)


def test_the_gm_places_a_token_with_no_trail_to_it():
    """update_combatant x/y sets the place and clears the round's trail; the change form
    posting the place as it is (with another change) is no placement: the trail stays."""
    state = go(fight(), 1.0, 0.0)
    same, _ = run(state, {"type": "update_combatant", "id": "c1", "x": 4.0, "y": -2.0,
                          "modifier": 1})
    assert a_of(same).path == a_of(state).path
    placed, events = run(state, {"type": "update_combatant", "id": "c1", "x": -7.5, "y": 3.0})
    a = a_of(placed)
    assert (a.x, a.y, a.path, a.moved) == (-7.5, 3.0, (), 1.0)
    placed = go(placed, 0.5, 0.0)
    assert a_of(placed).path == ((-7.5, 3.0), (-7.0, 3.0))
    before = ENGINE.new_state({})
    before = add(before, "C")
    before, _ = run(before, {"type": "update_combatant", "id": "c1", "x": 2.0})
    assert (before.combatants[0].x, before.combatants[0].y) == (2.0, 0.0)


def test_added_combatants_do_not_stack():
    """Side a at x 0, any other side at x 10, 1.5 m apart along y; given places are kept."""
    state = ENGINE.new_state({})
    for name, side in (("A1", "a"), ("B1", "b"), ("A2", "a"), ("C1", "c"), ("B2", "b")):
        state = add(state, name, side=side)
    state = add(state, "A3", x=-4.0)
    state = add(state, "B3", side="b", x=12.5, y=-1.0)
    places = {c.name: (c.x, c.y) for c in state.combatants}
    assert places == {"A1": (0.0, 0.0), "B1": (10.0, 0.0), "A2": (0.0, 1.5),
                      "C1": (10.0, 0.0), "B2": (10.0, 1.5), "A3": (-4.0, 3.0),
                      "B3": (12.5, -1.0)}


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 10000.5, -20000.0])
def test_a_place_off_the_map_is_a_bad_field(value):
    with pytest.raises(RulesError) as refused:
        run(ENGINE.new_state({}), C.AddCombatant(name="A", turn_order=10, x=value))
    assert (refused.value.code, refused.value.params["field"]) == ("bad_field", "x")
    for command in (C.UpdateCombatant("c1", y=value), C.Move("c1", x=0.0, y=value)):
        with pytest.raises(RulesError) as refused:
            ENGINE.decide(fight(), command, random.Random(0))
        assert refused.value.code == "bad_field"
    with pytest.raises(RulesError) as refused:  # as a page or the API posts it
        ENGINE.parse_command({"type": "add_combatant", "name": "A", "x": 20000})
    assert (refused.value.code, refused.value.params["field"]) == ("bad_field", "x")


def test_a_move_needs_metres_or_a_whole_point_and_the_point_wins():
    """Neither, or half a point, is a bad field; given both, the point's metres count (the
    keyboard form sends its metres too)."""
    state = fight()
    for command, field in ((C.Move("c1"), "metres"), (C.Move("c1", metres=1.0, x=4.0), "y"),
                           (C.Move("c1", y=4.0), "x")):
        with pytest.raises(RulesError) as refused:
            run(state, command)
        assert (refused.value.code, refused.value.params["field"]) == ("bad_field", field)
    _, events = run(state, {"type": "move", "id": "c1", "metres": 2, "x": 4.0, "y": -2.0})
    assert (of(events, E.Moved).metres, of(events, E.Moved).x) == (1.0, 4.0)


def test_a_point_under_half_a_metre_away_is_refused_as_typed_metres_are():
    state = fight()
    with pytest.raises(RulesError, match="metres must be 0.5 to 1000"):
        run(state, C.Move("c1", x=3.3, y=-2.3))  # 0.42 m
    with pytest.raises(RulesError, match="metres must be 0.5 to 1000"):
        run(state, C.Move("c1", metres=0.4))


# Old logs: metres without a point ----------------------------------------------------------


def test_metres_without_a_point_move_as_before_and_leave_the_token():
    state = fight()
    state, events = run(state, {"type": "move", "id": "c1", "metres": 1.5})
    assert of(events, E.Moved) == E.Moved("c1", 1.5, 1.5, "", False)
    assert of(events, E.Moved).x is None
    a = a_of(state)
    assert (a.x, a.y, a.path, a.moved) == (3.0, -2.0, (), 1.5)
    state = go(state, 0.5, 0.0)  # a point after typed metres: the trail starts here
    assert a_of(state).path == ((3.0, -2.0), (3.5, -2.0))
    assert a_of(state).moved == 2.0


def test_an_old_log_decodes_and_replays_as_before():
    """Events stored before the map (a Moved without x and y, a combatant without a
    place) decode with the defaults and fold to the state they made then: every other
    value the same, everyone at (0, 0) with no trail."""
    stored = {"_": "Moved", "id": "c1", "metres": 2.0, "total": 2.0, "mode": "",
              "action": False}
    assert decode(stored, ENGINE.event_types) == E.Moved("c1", 2.0, 2.0, "", False, None, None)
    old_move = {"_": "Move", "id": "c1", "metres": 3.5}
    assert decode(old_move, ENGINE.event_types) == C.Move("c1", 3.5)
    for seed in range(20):  # a game that moves someone
        initial, state, records = base.random_game(seed, 40)
        if any(isinstance(e, E.Moved) for r in records for e in r.events):
            break
    else:
        pytest.fail("no game moved anybody")
    log = strip_map(json.loads(json.dumps([[encode(e) for e in r.events] for r in records])))
    # The roster the game starts from, as it stood before the map: everyone at (0, 0).
    folded = dataclasses.replace(initial, combatants=tuple(
        c.with_(x=0.0, y=0.0) for c in initial.combatants))
    for events in log:
        for event in (decode(data, ENGINE.event_types) for data in events):
            folded = ENGINE.evolve(folded, event)
    then = dataclasses.replace(state, combatants=tuple(
        c.with_(x=0.0, y=0.0, path=()) for c in state.combatants))
    assert folded == then


# What the map shows before a move agrees with decide ----------------------------------------


def situations():
    """(name, state, mover id): A's turn in each situation that changes what a move may
    be (lines 261-271, 650-658, 724-729), and movers whose turn it is not."""
    out = [
        ("not declared", fight(), "c1"),
        ("declared 1", declared(fight(), 1), "c1"),
        ("declared 2", declared(fight(), 2), "c1"),
        ("declared 3", declared(fight(), 3), "c1"),
        ("moved 1 m free, declared 1", declared(go(fight(), 1.0, 0.0), 1), "c1"),
        ("moved 1 m free, not declared", go(fight(), 0.0, -1.0), "c1"),
        ("moved 1.7 m free, declared 1", declared(go(fight(), 1.7, 0.0), 1), "c1"),
        ("moved 1.7 m free, declared 2", declared(go(fight(), 0.0, 1.7), 2), "c1"),
        ("moved 2 m free, declared 2", declared(go(fight(), 2.0, 0.0), 2), "c1"),
        ("declared 2, moved with a mode", go(declared(fight(), 2), 3.0, 0.0), "c1"),
        ("declared 2, acted", run(declared(fight(), 2), C.Act("c1"))[0], "c1"),
        ("FÖR 1, declared 1", declared(fight(movement=1), 1), "c1"),
        ("FÖR 2, declared 2", declared(fight(movement=2), 2), "c1"),
        ("FÖR 0, declared 1", declared(fight(movement=0), 1), "c1"),
        ("not its turn", fight(), "c2"),
        ("round over", run(fight(), {"type": "end_round"})[0], "c1"),
        ("not started", add(ENGINE.new_state({}), "A"), "c1"),
    ]
    attacking = declared(fight(), 2)
    attacking, _ = run(attacking, C.Attack("c1", "c2", "Kniv", "arm"))
    out.append(("an attack pending", attacking, "c1"))
    ended, _ = run(fight(), {"type": "end"})
    out.append(("ended", ended, "c1"))
    return out


SITUATIONS = situations()


def decided(state, command):
    try:
        return ENGINE.decide(state, command, random.Random(0)), None
    except RulesError as error:
        return None, error


@pytest.mark.parametrize(("name", "state", "cid"), SITUATIONS, ids=[s[0] for s in SITUATIONS])
def test_the_preview_agrees_with_decide_on_a_grid_of_points(name, state, cid):
    """Every point −8..8 m (step 0.5) around the mover: refused exactly when `decide`
    refuses the Move there (same code), and otherwise the metres and mode of its Moved."""
    mover = state.get(cid)
    x0, y0 = (mover.x, mover.y) if mover else (0.0, 0.0)
    accepted = 0
    for i in range(-16, 17):
        for j in range(-16, 17):
            x, y = x0 + i / 2, y0 + j / 2
            events, error = decided(state, C.Move(cid, x=x, y=y))
            preview = move_preview(state, cid, x, y)
            assert (preview["id"], preview["x"], preview["y"]) == (cid, x, y)
            if error is not None:
                assert preview["refused"]["code"] == error.code, (x, y)
                assert preview["refused"]["params"] == dict(error.params)
                assert preview["mode"] == ""
                continue
            accepted += 1
            assert preview["refused"] is None, (x, y)
            moved = of(events, E.Moved)
            assert (preview["metres"], preview["mode"]) == (moved.metres, moved.mode), (x, y)
            assert preview["metres"] == round(math.hypot(x - x0, y - y0), 2)
    assert accepted or name in ("declared 2, moved with a mode", "not its turn", "round over",
                                "not started", "an attack pending", "ended")


@pytest.mark.parametrize(("name", "state", "cid"), SITUATIONS, ids=[s[0] for s in SITUATIONS])
def test_the_bands_agree_with_decide_at_every_centimetre(name, state, cid):
    """Along two directions, every centimetre out past FÖR x 3: `decide` accepts a move of
    d metres exactly when d lies in the bands (from the first's `from` to the last's
    `upto`), and its Moved records the mode of the first band whose `upto` is at least d."""
    mover = state.get(cid)
    bands = move_bands(state, mover) if mover is not None else []
    assert [b["upto"] for b in bands] == sorted({b["upto"] for b in bands})
    for band in bands:
        assert (band["cost"], band["unit"]) == (None, "")
        assert band["mode"] in ("", "move", "run", "sprint")
    if mover is None:
        return
    reach = 3 * mover.movement + 3
    for dx, dy in ((1.0, 0.0), (0.6, -0.8)):
        for cm in range(1, int(reach * 100)):
            d = cm / 100
            events, error = decided(state, C.Move(cid, x=mover.x + d * dx, y=mover.y + d * dy))
            inside = bool(bands) and bands[0]["from"] <= d <= bands[-1]["upto"]
            assert (error is None) == inside, (d, error)
            if inside:
                band = next(b for b in bands if b["upto"] >= d)
                assert d >= band["from"]
                moved = of(events, E.Moved)
                assert (moved.metres, moved.mode) == (d, band["mode"]), d


def test_the_bands_of_the_main_situations():
    """FÖR 5 from where A stands: 2 m free before declaring; declared 1, FÖR, x 2, x 3
    (lines 261-270); declared 2, no running; after 1 m free the rest counts the round's
    total; once moved with a mode, nothing (Förflytta sig once a round, line 726)."""

    def bands(state):
        return [(b["upto"], b["mode"]) for b in move_bands(state, a_of(state))]

    assert bands(fight()) == [(2.0, "")]
    assert bands(declared(fight(), 1)) == [(2.0, ""), (5.0, "move"), (10.0, "run"),
                                           (15.0, "sprint")]
    assert bands(declared(fight(), 2)) == [(2.0, ""), (5.0, "move")]
    assert bands(declared(go(fight(), 1.0, 0.0), 1)) == [(1.0, ""), (4.0, "move"),
                                                         (9.0, "run"), (14.0, "sprint")]
    assert bands(declared(go(fight(), 1.7, 0.0), 2)) == [(3.3, "move")]
    late = declared(go(fight(), 1.7, 0.0), 2)
    assert move_bands(late, a_of(late))[0]["from"] == 0.5  # the engine's least move
    assert bands(go(declared(fight(), 2), 3.0, 0.0)) == []
    assert bands(declared(fight(movement=1), 1)) == [(2.0, ""), (3.0, "sprint")]


def test_the_view_gives_places_trails_and_the_movers_bands_to_who_commands_it():
    state = go(declared(fight(), 2), 0.0, 3.0)
    mine = Viewer(is_gm=False, controls=frozenset({"c1"}))
    for viewer, sees in ((GM, True), (mine, True), (PLAYERS, False)):
        data = json.loads(json.dumps(ENGINE.view(state, viewer)))
        a, b = data["combatants"]
        assert (a["x"], a["y"], a["path"]) == (3.0, 1.0, [[3.0, -2.0], [3.0, 1.0]])
        assert (b["x"], b["y"], b["path"], b["move_bands"]) == (10.0, 0.0, [], None)
        assert a["move_bands"] == (move_bands(state, a_of(state)) if sees else None)
    assert ENGINE.view(state, GM)["combatants"][0]["move_bands"] == []  # moved with a mode


def test_the_engine_previews_a_move_to_a_point_and_refuses_one_without():
    """`preview` of a Move routes to `move_preview` (combat_kit.SystemCombat.preview); a
    Move in metres has no point to preview."""
    state = declared(fight(), 1)
    move = ENGINE.parse_command({"type": "move", "id": "c1", "x": 9.0, "y": -2.0})
    assert ENGINE.preview(state, move) == move_preview(state, "c1", 9.0, -2.0)
    assert ENGINE.preview(state, move)["mode"] == "run"  # 6 m with FÖR 5
    assert ENGINE.preview(state, move)["metres"] == 6.0
    with pytest.raises(RulesError) as refused:
        ENGINE.preview(state, C.Move("c1", 3.0))
    assert refused.value.code == "bad_field"
    far = move_preview(state, "c1", 30.0, -2.0)
    assert far["refused"]["code"] == "too_far"
    assert far["refused"]["params"] == {"metres": 15}
    assert far["metres"] == 27.0
    assert move_preview(state, "c99", 1.0, 0.0)["refused"]["code"] == "no_combatant"


# Random games with map moves replay to the state -----------------------------------------


def map_candidates(state, choose: random.Random) -> list:
    """The Phobia random game's commands, with moves to points and the GM's placements."""
    out = base.candidates(state, choose)
    ids = [c.id for c in state.combatants]
    out.append(C.UpdateCombatant(choose.choice(ids), x=float(choose.randint(-20, 20)),
                                 y=choose.randint(-40, 40) / 2))
    if state.active is not None and state.pending is None:
        actor = state.get(state.active)
        for _ in range(4):
            out.append(C.Move(actor.id, x=round(actor.x + choose.uniform(-12, 12), 2),
                              y=round(actor.y + choose.uniform(-12, 12), 2)))
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(1, 40))
def test_random_games_with_map_moves_replay_to_the_state(seed, steps):
    viewers = (GM, PLAYERS, Viewer(is_gm=False, controls=frozenset({"c1"})))
    initial, state, records = helpers.random_game(
        ENGINE, base.setup, map_candidates, seed, steps, viewers=viewers
    )
    assert refold(ENGINE, initial, records, (GM, PLAYERS)) == state
    for c in state.combatants:
        assert not c.path or c.path[-1] == (c.x, c.y)
