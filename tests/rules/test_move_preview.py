"""The battle map's reading of a move (issue 27): `move_preview` says what a Move to a point
would cost and meet, `move_bands` the cost by distance, a combatant's `path` the round's
trail. The preview must agree with the engine's own `decide` everywhere: these tests
sweep grids of destinations in the situations that change a move's price (p. 6, 7, 10,
11) and compare."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.aoristos.combat import ENGINE
from rules.aoristos.combat import commands as C
from rules.aoristos.combat import events as E
from rules.aoristos.combat import figures as F
from rules.aoristos.combat.movement import move_bands, move_plan
from rules.aoristos.combat.reading import effective_movement
from rules.aoristos.combat.state import Combatant, Encounter
from rules.aoristos.combat.view import move_preview
from rules.aoristos.equipment import WEAPONS
from rules.engine import Viewer, decode, encode
from rules.errors import RulesError
from rules.phobia.combat import ENGINE as PHOBIA
from rules.t10.combat import ENGINE as T10
from tests.rules.helpers import by_name, of, play


def add(state, name, **fields):
    fields.setdefault("npc", False)
    state, _ = play(ENGINE, state, C.AddCombatant(name=name, **fields), random.Random(0))
    return state


def fight(house=None, **mover):
    """Mover M (RÖR 2, FÖR 7, HK 20; SIN 3: acts first) and a foe F 30 m off; started."""
    state = ENGINE.new_state(house or {})
    fields = {"agility": 2, "alertness": 3, "drive": 20, "movement": 7, "composure": 4}
    state = add(state, "M", side="a", **{**fields, **mover})
    state = add(state, "F", side="b", alertness=1, agility=1, x=30.0, y=0.0)
    state, _ = play(ENGINE, state, C.StartCombat(), random.Random(1))
    assert state.active.name == "M"
    return state


def moved_once(house=None):
    state = fight(house)
    state, _ = play(ENGINE, state, C.Move(state.active.id, 3.0, 0.0), random.Random(0))
    return state


def with_mover(state, **changes):
    return state.put(state.active.with_(**changes))


def in_melee():
    """The foe F 1 m from M (within the 2 m reach): most moves away escape (p. 10)."""
    state = fight()
    return state.put(by_name(state, "F").with_(x=1.0))


def watched():
    """A watcher W (side b) keeps overwatch on the point (4, 0) (p. 11)."""
    state = fight()
    state = add(state, "W", side="b", alertness=1, x=-20.0, weapons=(WEAPONS["pistol"],),
                right="pistol")
    return state.put(by_name(state, "W").with_(overwatch=(4.0, 0.0), cp=5))


def melee_and_watched():
    state = watched()
    return state.put(by_name(state, "F").with_(x=-1.0))


SITUATIONS = {
    "standing fresh": lambda: fight(),
    "standing after moving 3 m": lambda: moved_once(),
    "by each move after 3 m": lambda: moved_once({"movement_by_round_total": False}),
    "by each move fresh": lambda: fight({"movement_by_round_total": False}),
    "sitting": lambda: with_mover(fight(), posture="sitting"),
    "lying": lambda: with_mover(fight(), posture="lying"),
    "standing on a broken leg": lambda: with_mover(
        fight(), limbs=(("right_leg", "broken"),)
    ),
    "in melee": in_melee,
    "overwatch ahead": watched,
    "in melee and overwatch ahead": melee_and_watched,
    "few KP": lambda: with_mover(fight(), cp=3),
    "no KP": lambda: with_mover(fight(), cp=0),
    "nervchock": lambda: with_mover(fight(), nerve_shock=3, cp=9),
    "RÖR 0": lambda: fight(agility=0),
    "RÖR past FÖR": lambda: fight(agility=6, movement=4),
    "the whole round moved": lambda: with_mover(fight(), moved=14.0),
}


def destinations(c: Combatant):
    """A grid around `c` out past its round's reach, with the spot it stands on."""
    steps = [i * 1.3 for i in range(-12, 13)]
    return [(round(c.x + dx, 2), round(c.y + dy, 2)) for dx in steps for dy in steps]


def decided(state, command, rng):
    """`decide`'s events, or its refusal: (events, None) or ((), the RulesError)."""
    try:
        return ENGINE.decide(state, command, rng), None
    except RulesError as error:
        return (), error


def kp_of(events):
    """The KP a Move's events take and owe: (paid now, still owed)."""
    started = [e for e in events if isinstance(e, E.ExtendedStarted)]
    if started:
        return started[0].paid, started[0].remaining
    escape = [e for e in events if isinstance(e, E.EscapeTested)]
    if escape:
        return escape[0].cost, 0
    return of(events, E.Moved).cost, 0


@pytest.mark.parametrize("situation", sorted(SITUATIONS))
def test_preview_agrees_with_decide(situation):
    """Everywhere on the grid, the preview is refused exactly when `decide` refuses the
    Move (same code), and otherwise its KP are those the events take: Moved's cost (p.
    7), the escape test's cost when leaving melee (p. 10), or an extended activity's
    paid part and remainder when the KP are short (p. 6); its escaping foes are the
    EscapeTested's and its watchers the overwatch reactions called (p. 11)."""
    state = SITUATIONS[situation]()
    c = state.active
    seen = {"ok": 0, "refused": 0, "escape": 0, "watched": 0, "extended": 0}
    for seed, (x, y) in enumerate(destinations(c)):
        preview = move_preview(state, c.id, x, y)
        json.dumps(preview)  # the endpoint sends it as it is
        events, error = decided(state, C.Move(c.id, x, y), random.Random(seed))
        if error is not None:
            assert preview["refused"] is not None, (x, y, str(error))
            assert preview["refused"]["code"] == error.code
            assert preview["refused"]["params"] == error.params
            assert preview["refused"]["message"] == error.template
            seen["refused"] += 1
            continue
        assert preview["refused"] is None, (x, y, preview["refused"])
        seen["ok"] += 1
        now, later = kp_of(events)
        assert (preview["now"], preview["later"]) == (now, later), (x, y)
        assert preview["cost"] == now + later
        assert preview["cp"] == c.cp
        assert preview["extended"] == (later > 0) == (preview["cost"] > c.cp)
        if later:
            seen["extended"] += 1
            continue  # the move, its escape and its watchers wait for the KP (p. 6)
        tested = [e for e in events if isinstance(e, E.EscapeTested)]
        assert preview["escape"] == (list(tested[0].foes) if tested else [])
        seen["escape"] += bool(tested)
        if tested and tested[0].dangerous:
            continue  # the watchers are called once the move is made
        called = [e.who for e in events if isinstance(e, E.ReactionCalled)]
        assert all(e.kind == "overwatch" for e in events if isinstance(e, E.ReactionCalled))
        assert preview["watchers"] == called
        seen["watched"] += bool(called)
        moved = of(events, E.Moved)
        assert moved.distance == preview["metres"]
    assert seen["ok"] and seen["refused"] or situation in ("no KP", "the whole round moved")
    if "melee" in situation:
        assert seen["escape"]
    if "overwatch" in situation:
        assert seen["watched"]
    if situation == "few KP":
        assert seen["extended"]


def test_preview_of_a_sitting_move_p7():
    """p. 7: sitting or lying, 1 KP per started metre, at most Förflyttning (7 m)."""
    state = with_mover(fight(), posture="sitting")
    c = state.active
    preview = move_preview(state, c.id, 2.5, 0.0)
    assert (preview["metres"], preview["cost"], preview["refused"]) == (2.5, 3, None)
    too_far = move_preview(state, c.id, 7.5, 0.0)
    assert too_far["cost"] is None
    assert too_far["refused"]["code"] == "too_far"
    assert too_far["refused"]["params"]["limit"] == 7


def test_preview_of_an_extended_move_p6():
    """p. 7: 13 m standing costs 1 + 2 + 3 = 6 KP (RÖR 2, FÖR 7: past RÖR, then 3 started
    RÖR past FÖR); p. 6: with 3 KP the move begins as an extended activity: 3 now, 3
    owed."""
    state = with_mover(fight(), cp=3)
    preview = move_preview(state, state.active.id, 0.0, 13.0)
    assert (preview["cost"], preview["now"], preview["later"]) == (6, 3, 3)
    assert preview["extended"]
    assert preview["refused"] is None


def test_preview_names_the_escape_and_the_watchers_p10_p11():
    """p. 10: leaving F's reach is an opposed RÖR test first; p. 11: the point (4, 0) is
    in W's watched sphere (2 m around it)."""
    state = in_melee()
    f = by_name(state, "F").id
    assert move_preview(state, state.active.id, -3.0, 0.0)["escape"] == [f]
    assert move_preview(state, state.active.id, 1.0, 1.0)["escape"] == []
    state = watched()
    w = by_name(state, "W").id
    assert move_preview(state, state.active.id, 5.5, 0.0)["watchers"] == [w]
    assert move_preview(state, state.active.id, 6.5, 0.0)["watchers"] == []


def test_preview_refuses_what_decide_refuses():
    """Out of turn, before the fight, on the spot, an unknown id: the engine's codes."""
    state = fight()
    other = by_name(state, "F")
    assert move_preview(state, other.id, 25.0, 0.0)["refused"]["code"] == "not_your_turn"
    assert move_preview(state, state.active.id, 0.0, 0.0)["refused"]["code"] == "no_move"
    assert move_preview(state, "c99", 1.0, 0.0)["refused"]["code"] == "no_combatant"
    setting_up = ENGINE.new_state({})
    setting_up = add(setting_up, "M")
    m = setting_up.combatants[0].id
    assert move_preview(setting_up, m, 1.0, 0.0)["refused"]["code"] == "not_started"


def test_the_engine_previews_a_move_to_a_point_in_every_system():
    """`preview` of an Aoristos Move is its `move_preview`; Phobia's and T10's Moves to a
    map point have their own (tests/rules/test_phobia_map.py, test_t10_map.py), and a
    Move in metres only, without a point, has none."""
    state = fight()
    move = C.Move(state.active.id, 2.0, 0.0)
    assert ENGINE.preview(state, move) == move_preview(state, move.id, 2.0, 0.0)
    for engine in (PHOBIA, T10):
        with pytest.raises(RulesError, match="point"):
            engine.preview(engine.new_state({}), engine._commands.Move("c1", 3.0))


# move_bands --------------------------------------------------------------------------------


def bands_agree(state: Encounter, c: Combatant) -> None:
    """The bands against movement_cost at each `upto`, just past the previous one and just
    past the last (p. 7), and against move_plan at every centimetre out past the reach."""
    bands = move_bands(state, c)

    def cost(d):
        return F.movement_cost(
            d,
            agility=c.agility,
            movement=effective_movement(c),
            moved_before=c.moved,
            by_round_total=state.house.movement_by_round_total,
            posture=move_plan(state, c, c.x + 1, c.y).posture,
        )

    previous = 0.0
    for band in bands:
        assert band["upto"] > previous
        assert cost(band["upto"]) == band["cost"]
        assert cost(round(previous + 0.01, 2)) == band["cost"]
        assert cost(round(band["upto"] + 0.01, 2)) != band["cost"]
        previous = band["upto"]
    if bands:
        assert cost(round(previous + 0.01, 2)) is None  # the round's reach
    for cm in range(1, int(previous * 100) + 30):
        d = cm / 100
        expected = next((b["cost"] for b in bands if d <= b["upto"]), None)
        assert move_plan(state, c, c.x + d, c.y).cost == expected, d


@pytest.mark.parametrize("situation", sorted(SITUATIONS))
def test_bands_are_the_costs_by_distance_p7(situation):
    """p. 7: the steps where the metres counted pass RÖR, FÖR and FÖR + k·RÖR (standing),
    or every started metre (sitting, lying), up to the round's reach."""
    state = SITUATIONS[situation]()
    bands_agree(state, state.active)


def test_bands_of_ansgar_p7():
    """p. 7's Ansgar (RÖR 2, FÖR 7): 1 KP to 2 m, 3 to 7 m, then +1 per started 2 m to
    14 m; after 2 m by the round's total the steps come 2 m sooner."""
    state = fight()
    assert move_bands(state, state.active) == [
        {"upto": 2, "cost": 1},
        {"upto": 7, "cost": 3},
        {"upto": 9, "cost": 4},
        {"upto": 11, "cost": 5},
        {"upto": 13, "cost": 6},
        {"upto": 14, "cost": 7},
    ]
    state = with_mover(state, moved=2.0)
    assert move_bands(state, state.active) == [
        {"upto": 5, "cost": 3},
        {"upto": 7, "cost": 4},
        {"upto": 9, "cost": 5},
        {"upto": 11, "cost": 6},
        {"upto": 12, "cost": 7},
    ]


def test_bands_sitting_and_spent():
    """Sitting: a band per started metre up to Förflyttning less what was moved; nothing
    when the round's reach is used up."""
    state = with_mover(fight(), posture="lying", moved=4.5)
    assert move_bands(state, state.active) == [
        {"upto": 1, "cost": 1},
        {"upto": 2, "cost": 2},
        {"upto": 2.5, "cost": 3},
    ]
    spent = with_mover(fight(), moved=14.0)
    assert move_bands(spent, spent.active) == []
    assert move_bands(state, state.active.with_(moved=7.0)) == []


@settings(max_examples=60, deadline=None)
@given(
    agility=st.integers(0, 8),
    movement=st.integers(0, 12),
    moved_cm=st.integers(0, 2500),
    posture=st.sampled_from(["standing", "sitting", "lying"]),
    by_total=st.booleans(),
)
def test_bands_match_the_cost_everywhere(agility, movement, moved_cm, posture, by_total):
    """Any RÖR, FÖR, metres moved, posture and house rule: the bands are move_plan's cost
    at every centimetre (p. 7)."""
    state = ENGINE.new_state({"movement_by_round_total": by_total})
    c = Combatant(id="c1", name="M", agility=agility, movement=movement, posture=posture,
                  moved=moved_cm / 100)
    state = state.joined(c)
    bands_agree(state, state.get("c1"))


# The round's path ----------------------------------------------------------------------------


def test_path_is_the_rounds_trail():
    """Each move adds its point to the path, from where M stood; a new round and the GM's
    placing empty it; it survives being stored."""
    state = fight()
    m = state.active.id
    assert state.active.path == ()
    state, _ = play(ENGINE, state, C.Move(m, 3.0, 0.0), random.Random(0))
    state, _ = play(ENGINE, state, C.Move(m, 3.0, 4.0), random.Random(0))
    assert state.get(m).path == ((0.0, 0.0), (3.0, 0.0), (3.0, 4.0))
    stored = json.loads(json.dumps(encode(state.get(m))))
    assert decode(stored, ENGINE.event_types) == state.get(m)
    placed, _ = play(ENGINE, state, C.UpdateCombatant(m, x=10.0), random.Random(0))
    assert placed.get(m).path == ()
    turned, _ = play(ENGINE, state, C.UpdateCombatant(m, aware=False), random.Random(0))
    assert turned.get(m).path == state.get(m).path  # not placed: the trail stays
    state, _ = play(ENGINE, state, C.EndActivation(m), random.Random(0))
    state, _ = play(ENGINE, state, C.EndActivation(state.active.id), random.Random(0))
    assert state.round == 2
    assert state.get(m).path == ()


def test_path_takes_an_escape_and_a_vigilance_move_p9_p10():
    """p. 10: a move out of melee moves along the path once the escape is through (at
    once, or after the foes' free attacks); p. 9: RÖR in vigilance moves 1 m, a move of
    the round too."""
    for seed in range(20):
        state = in_melee()
        m = state.active.id
        state, events = play(ENGINE, state, C.Move(m, -3.0, 0.0), random.Random(seed))
        if of(events, E.EscapeTested).dangerous:
            assert state.get(m).path == ()
            state, _ = play(ENGINE, state, C.Proceed(m), random.Random(seed))
            f = by_name(state, "F").id
            state, _ = play(ENGINE, state, C.Pass(f), random.Random(seed))
        assert state.get(m).path == ((0.0, 0.0), (-3.0, 0.0))
    state = fight()
    pistol = WEAPONS["pistol"]
    state = with_mover(state, weapons=(pistol,), right="pistol", loaded=(("pistol", 16),))
    f = by_name(state, "F")
    state, _ = play(ENGINE, state, C.Attack(state.active.id, f.id, "pistol"), random.Random(0))
    state, events = play(ENGINE, state, C.Vigilance(f.id, ("agility",)), random.Random(0))
    chosen = of(events, E.VigilanceChosen)
    assert chosen.move_to is not None
    assert state.get(f.id).path == ((30.0, 0.0), chosen.move_to)


# The view ------------------------------------------------------------------------------------


def test_view_shows_the_path_to_all_and_the_bands_to_who_commands():
    """Positions are public: every viewer sees the trail. The cost bands are for the GM
    and the player who commands the active combatant, not for others."""
    state = moved_once()
    m = state.active.id
    f = by_name(state, "F").id
    viewers = {
        "gm": Viewer(is_gm=True),
        "player": Viewer(is_gm=False, controls=frozenset({m})),
        "other": Viewer(is_gm=False, controls=frozenset({f})),
    }
    for who, viewer in viewers.items():
        data = ENGINE.view(state, viewer)
        cards = {card["id"]: card for card in data["combatants"]}
        json.dumps(data)
        assert cards[m]["path"] == [[0.0, 0.0], [3.0, 0.0]]
        assert cards[f]["path"] == []
        assert cards[f]["move_bands"] is None  # not the active one
        if who == "other":
            assert cards[m]["move_bands"] is None
        else:
            assert cards[m]["move_bands"] == move_bands(state, state.active)
            # 3 m moved already: up to FÖR 7 in all a move costs its base 1 KP (p. 7)
            assert cards[m]["move_bands"][0] == {"upto": 4.0, "cost": 1}
