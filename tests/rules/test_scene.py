"""The scene under the battle map (rules/scene.py, issue 27): walls, cover and a picture,
alike in every system, kept in the fight's log. The rule texts say nothing of maps: these
are the product's, and no engine reads the shapes (docs/playing.md)."""

import json
import random

import pytest

from rules.engine import Viewer, decode, encode, engine_for
from rules.errors import RulesError
from rules.scene import Picture, Scene, Shape, parse_points, visible

SYSTEMS = ("aoristos", "phobia", "t10")
GM = Viewer(True)
PLAYER = Viewer(False, frozenset())


def run(engine, state, data):
    events = engine.decide(state, engine.parse_command(data), random.Random(0))
    for event in events:
        state = engine.evolve(state, event)
    return state, events


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_system_keeps_walls_cover_and_a_picture_in_its_log(system):
    engine = engine_for(system, "combat")
    state = engine.new_state()
    assert state.scene == Scene()
    state, events = run(engine, state, {"type": "add_shape", "kind": "wall",
                                        "points": "0,0 5,0 5,5"})
    state, more = run(engine, state, {"type": "add_shape", "kind": "cover", "points":
                                      "1,1 2,1 2,2", "shown": False, "label": "Lådor"})
    state, pic = run(engine, state, {"type": "set_picture", "key": "7", "width": 30,
                                     "aspect": 0.5, "x": -5, "y": -5})
    assert state.scene == Scene(
        (Shape("wall", ((0.0, 0.0), (5.0, 0.0), (5.0, 5.0))),
         Shape("cover", ((1.0, 1.0), (2.0, 1.0), (2.0, 2.0)), False, "Lådor")),
        Picture("7", 30.0, 0.5, -5.0, -5.0, True),
    )
    # Stored as JSON and read back, the log replays to the same scene.
    stored = json.loads(json.dumps([encode(e) for e in (*events, *more, *pic)]))
    replayed = engine.new_state()
    for event in decode(stored, engine.event_types):
        replayed = engine.evolve(replayed, event)
    assert replayed.scene == state.scene
    # Only the GM gives the scene's commands.
    for data in ({"type": "add_shape", "kind": "wall", "points": "0,0 1,1"},
                 {"type": "remove_shape", "index": 0}, {"type": "set_picture"}):
        assert engine.actor_of(state, engine.parse_command(data)) is None
    state, _ = run(engine, state, {"type": "remove_shape", "index": 0})
    assert [s.kind for s in state.scene.shapes] == ["cover"]
    state, _ = run(engine, state, {"type": "set_picture", "key": ""})
    assert state.scene.picture is None


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_player_reads_no_line_of_what_the_gm_keeps_to_themselves(system):
    engine = engine_for(system, "combat")
    state = engine.new_state()
    _, events = run(engine, state, {"type": "add_shape", "kind": "cover",
                                    "points": "1,1 2,1 2,2", "shown": False})
    gm_line, = engine.describe(state, events, GM)
    player_line, = engine.describe(state, events, PLAYER)
    assert (gm_line["shape"], gm_line["shown"]) == ("cover", False)
    assert player_line["shape"] == ""  # "the GM changes the map", no more


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"kind": "door", "points": "0,0 1,1"}, "bad_field"),
        ({"kind": "wall", "points": "0,0"}, "bad_field"),  # a wall needs two points
        ({"kind": "cover", "points": "0,0 1,1"}, "bad_field"),  # cover three
        ({"kind": "wall", "points": "0,0 x,1"}, "bad_field"),
        ({"kind": "wall", "points": "0,0 1,2,3"}, "bad_field"),
        ({"kind": "wall", "points": "0,0 20000,1"}, "bad_field"),
        ({"kind": "wall", "points": "0,0 nan,1"}, "bad_field"),
        ({"kind": "wall", "points": " ".join(f"{i},0" for i in range(25))}, "bad_field"),
    ],
)
def test_a_bad_shape_is_refused_with_its_reason(data, code):
    engine = engine_for("aoristos", "combat")
    with pytest.raises(RulesError) as refused:
        run(engine, engine.new_state(), {"type": "add_shape", **data})
    assert refused.value.code == code


def test_the_picture_and_removal_are_checked():
    engine = engine_for("aoristos", "combat")
    state = engine.new_state()
    for data in ({"type": "remove_shape", "index": 0}, {"type": "set_picture", "key": ""},
                 {"type": "set_picture", "key": "3", "width": 0},
                 {"type": "set_picture", "key": "3", "width": 10, "aspect": 0}):
        with pytest.raises(RulesError):
            run(engine, state, data)
    ended, _ = run(engine, state, {"type": "end"})
    with pytest.raises(RulesError, match="ended"):
        run(engine, ended, {"type": "add_shape", "kind": "wall", "points": "0,0 1,1"})


def test_points_read_as_typed_and_the_players_see_what_is_shown():
    assert parse_points("1,2 3.5,-4;0,0") == ((1.0, 2.0), (3.5, -4.0), (0.0, 0.0))
    assert parse_points("-0,0")[0][0] == 0.0  # never −0 in the log
    scene = Scene((Shape("wall", ((0, 0), (1, 0))), Shape("cover", ((0, 0), (1, 0), (1, 1)),
                                                            False)),
                  Picture("4", 20.0, 0.5, shown=False))
    gm, player = visible(scene, True), visible(scene, False)
    assert [s["index"] for s in gm["shapes"]] == [0, 1]
    assert gm["picture"]["height"] == 10.0
    assert [s["index"] for s in player["shapes"]] == [0]
    assert player["picture"] is None
