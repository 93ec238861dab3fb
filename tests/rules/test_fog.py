"""Fog on the battle map (rules/scene.py, issue 47): the GM covers the map and reveals or
hides areas again; a viewer sees nothing in a hidden area they do not command. The rule
texts say nothing of maps: this is the product's (docs/playing.md)."""

import json
import random
from dataclasses import replace

import pytest

from rules.engine import Viewer, decode, encode, engine_for
from rules.errors import RulesError
from rules.scene import Fog, FogArea, Scene, Shape, fog_points, in_fog, inside, visible

SYSTEMS = ("aoristos", "phobia", "t10")
START = {"aoristos": "start", "phobia": "start_round", "t10": "start"}
GM = Viewer(True)
PLAYER = Viewer(False, frozenset({"c1"}))  # commands the hero
TABLE = Viewer(False)  # the table screen, and the players' log lines


def run(engine, state, data):
    events = engine.decide(state, engine.parse_command(data), random.Random(1))
    for event in events:
        state = engine.evolve(state, event)
    return state, events


def add(engine, state, name, x, y, **fields):
    if engine.system == "phobia":
        fields.setdefault("turn_order", 10)
    state, events = run(engine, state, {"type": "add_combatant", "name": name, "x": x, "y": y,
                                        **fields})
    return state, events


def ambush(system):
    """The hero (c1, a player's) at (1; 1); the ambush (c2, the GM's) at (10; 10); the
    fight started; fog on with (0; 0)-(5; 5) revealed."""
    engine = engine_for(system, "combat")
    state, _ = add(engine, engine.new_state(), "Hjälten", 1, 1, npc=False)
    state, _ = add(engine, state, "Bakhållet", 10, 10, side="b",
                   **({"turn_order": 12} if system == "phobia" else {}))
    state, _ = run(engine, state, {"type": START[system]})
    state, _ = run(engine, state, {"type": "set_fog", "on": True})
    state, _ = run(engine, state, {"type": "mark_fog", "points": "0,0 5,5"})
    return engine, state


def text(view) -> str:
    return json.dumps(view, ensure_ascii=False)


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_combatant_in_the_fog_is_nowhere_in_a_players_view_until_revealed(system):
    engine, state = ambush(system)
    for viewer in (PLAYER, TABLE):
        seen = engine.view(state, viewer)
        assert "Bakhållet" not in text(seen)  # no token, name, turn or attack of it
        assert "c2" not in [c["id"] for c in seen["combatants"]]
        assert all(entry["id"] != "c2" for entry in seen["order"])
    assert "Hjälten" in text(engine.view(state, PLAYER))
    assert "Bakhållet" in text(engine.view(state, GM))  # the GM sees everything
    revealed, _ = run(engine, state, {"type": "mark_fog", "points": "9.5,9.5"})  # its cell
    assert "Bakhållet" in text(engine.view(revealed, PLAYER))
    hidden, _ = run(engine, revealed, {"type": "mark_fog", "points": "8,8 12,12",
                                       "reveal": False})
    assert "Bakhållet" not in text(engine.view(hidden, PLAYER))
    gone, _ = run(engine, hidden, {"type": "set_fog", "on": False})
    assert "Bakhållet" in text(engine.view(gone, TABLE))


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_combatant_commanded_by_the_viewer_is_seen_in_the_fog(system):
    engine, state = ambush(system)
    state, _ = run(engine, state, {"type": "mark_fog", "points": "0,0 5,5", "reveal": False})
    assert "Hjälten" in text(engine.view(state, PLAYER))  # their own, where it stands
    assert "Hjälten" not in text(engine.view(state, TABLE))


@pytest.mark.parametrize("system", SYSTEMS)
def test_what_happens_in_the_fog_is_out_of_sight_in_the_players_log(system):
    engine, state = ambush(system)
    after, events = add(engine, state, "Prickskytten", 20, 20, side="b")
    lines = engine.describe(state, events, TABLE)  # T10 rolls its initiative too
    assert lines == [{"kind": "Unseen"}] * len(events)
    assert "Prickskytten" in text(engine.describe(state, events, GM))
    assert "Prickskytten" not in text(engine.view(after, PLAYER))
    # One placed where it is seen is in the log as before.
    _, events = add(engine, after, "Vakten", 2, 2, side="b")
    assert "Vakten" in text(engine.describe(after, events, TABLE))


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_fog_is_the_gms_and_kept_in_the_log(system):
    engine, state = ambush(system)
    for data in ({"type": "set_fog", "on": False}, {"type": "mark_fog", "points": "1,1"}):
        assert engine.actor_of(state, engine.parse_command(data)) is None
    engine = engine_for(system, "combat")
    state = engine.new_state()
    stored = []
    for data in ({"type": "set_fog", "on": True}, {"type": "mark_fog", "points": "2.5,3.5"},
                 {"type": "mark_fog", "points": "0,0 4,0 0,4", "reveal": False}):
        state, events = run(engine, state, data)
        stored += [encode(event) for event in events]
    assert state.scene.fog == Fog(True, (
        FogArea(True, ((2.0, 3.0), (3.0, 3.0), (3.0, 4.0), (2.0, 4.0))),
        FogArea(False, ((0.0, 0.0), (4.0, 0.0), (0.0, 4.0))),
    ))
    replayed = engine.new_state()
    for event in decode(json.loads(json.dumps(stored)), engine.event_types):
        replayed = engine.evolve(replayed, event)
    assert replayed.scene == state.scene
    lines = engine.describe(engine.new_state(), decode(stored[:1], engine.event_types), TABLE)
    assert lines == [{"kind": "FogSet", "on": True, "reset": False}]
    # Taken away and put back, the areas stay; a reset forgets them.
    state, _ = run(engine, state, {"type": "set_fog", "on": False})
    state, _ = run(engine, state, {"type": "set_fog", "on": True})
    assert len(state.scene.fog.areas) == 2
    state, _ = run(engine, state, {"type": "set_fog", "on": True, "reset": True})
    assert state.scene.fog == Fog(True, ())


@pytest.mark.parametrize(
    ("state_fog", "data", "code"),
    [
        (Fog(), {"type": "mark_fog", "points": "1,1"}, "nothing"),  # no fog to reveal
        (Fog(), {"type": "set_fog", "on": False}, "nothing"),
        (Fog(True), {"type": "set_fog", "on": True}, "nothing"),
        (Fog(True), {"type": "mark_fog", "points": "1,1 1,5"}, "bad_field"),  # no area
        (Fog(True), {"type": "mark_fog", "points": "x,1"}, "bad_field"),
        (Fog(True), {"type": "mark_fog", "points": ""}, "bad_field"),
        (Fog(True), {"type": "mark_fog", "points": " ".join(f"{i},{i * i}" for i in range(25))},
         "bad_field"),
        (Fog(True, (FogArea(True, ((0, 0), (1, 0), (1, 1))),) * 200),
         {"type": "mark_fog", "points": "1,1"}, "too_many"),
    ],
)
def test_a_bad_fog_command_is_refused_with_its_reason(state_fog, data, code):
    engine = engine_for("aoristos", "combat")
    state = engine.new_state()
    state = replace(state, scene=Scene(fog=state_fog))
    with pytest.raises(RulesError) as refused:
        run(engine, state, data)
    assert refused.value.code == code


def test_a_tap_is_its_cell_two_points_a_rectangle_and_edges_are_inside():
    assert fog_points("-0.5,2.9") == ((-1.0, 2.0), (0.0, 2.0), (0.0, 3.0), (-1.0, 3.0))
    assert fog_points("4,1 2,3") == ((4.0, 1.0), (2.0, 1.0), (2.0, 3.0), (4.0, 3.0))
    square = ((0, 0), (2, 0), (2, 2), (0, 2))
    assert inside(square, 1, 1)
    assert inside(square, 2, 1)
    assert inside(square, 0, 0)
    assert not inside(square, 2.01, 1)
    assert not inside(square, -0.01, 0)
    triangle = ((0, 0), (4, 0), (0, 4))
    assert inside(triangle, 1, 1)
    assert not inside(triangle, 3, 3)
    # Later areas lie over earlier ones; without fog nothing is hidden.
    fog = Fog(True, (FogArea(True, square), FogArea(False, ((1, 1), (3, 1), (3, 3), (1, 3)))))
    assert not in_fog(fog, 0.5, 0.5)
    assert in_fog(fog, 1.5, 1.5)
    assert in_fog(fog, 5, 5)
    assert not in_fog(Fog(False, fog.areas), 1.5, 1.5)


def test_a_shape_any_of_which_lies_in_the_fog_is_not_drawn_for_a_player():
    fog = Fog(True, (FogArea(True, ((0, 0), (10, 0), (10, 10), (0, 10))),))
    shapes = (
        Shape("wall", ((1, 1), (9, 1))),  # wholly revealed
        Shape("wall", ((1, 2), (15, 2))),  # runs into the fog
        Shape("wall", ((-5, 5), (15, 5))),  # both ends in the fog
        Shape("cover", ((2, 2), (4, 2), (4, 4))),
    )
    hole = Fog(True, (*fog.areas, FogArea(False, ((5, 5), (6, 5), (6, 6), (5, 6)))))
    big = Shape("cover", ((1, 1), (9, 1), (9, 9), (1, 9)))  # the hidden hole is inside it
    player = visible(Scene(shapes, fog=fog), False)
    assert [s["index"] for s in player["shapes"]] == [0, 3]
    assert player["fog"] == {"on": True, "areas": [
        {"reveal": True, "points": [[0, 0], [10, 0], [10, 10], [0, 10]]}]}
    assert [s["index"] for s in visible(Scene(shapes, fog=fog), True)["shapes"]] == [0, 1, 2, 3]
    assert visible(Scene((big,), fog=hole), False)["shapes"] == []
    assert len(visible(Scene((big,), fog=fog), False)["shapes"]) == 1


def test_a_shape_drawn_in_the_fog_is_only_a_change_of_the_map_in_the_players_log():
    engine = engine_for("t10", "combat")
    state, _ = run(engine, engine.new_state(), {"type": "set_fog", "on": True})
    state, _ = run(engine, state, {"type": "mark_fog", "points": "0,0 5,5"})
    _, events = run(engine, state, {"type": "add_shape", "kind": "wall", "points": "6,0 8,0"})
    assert engine.describe(state, events, TABLE)[0]["shape"] == ""
    assert engine.describe(state, events, GM)[0]["shape"] == "wall"
    _, events = run(engine, state, {"type": "add_shape", "kind": "wall", "points": "1,1 2,1"})
    assert engine.describe(state, events, TABLE)[0]["shape"] == "wall"


def test_the_shapes_work_is_bounded_and_what_it_did_not_look_at_stays_hidden(monkeypatch):
    """A map's shapes under fog are looked at once per scene (kept), within a budget of
    polygon tests: past it, the shapes left count as hidden, never as shown."""
    from rules import scene as scene_rules

    fog = Fog(True, (FogArea(True, ((0, 0), (100, 0), (100, 100), (0, 100))),))
    shapes = tuple(Shape("wall", ((i, 1), (i + 0.5, 1))) for i in range(1, 41))
    assert scene_rules.hidden_shapes(Scene(shapes, fog=fog)) == frozenset()
    monkeypatch.setattr(scene_rules, "BUDGET", 10)
    scene_rules.hidden_shapes.cache_clear()
    hidden = scene_rules.hidden_shapes(Scene(shapes, fog=fog))
    assert shapes[0] not in hidden  # looked at within the budget: revealed
    assert shapes[-1] in hidden  # past it: not shown
    shown = visible(Scene(shapes, fog=fog), False)["shapes"]
    assert 0 < len(shown) < len(shapes)
    scene_rules.hidden_shapes.cache_clear()  # the budget's answers go with the budget
