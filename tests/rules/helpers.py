"""What the combat engines' tests do alike: scripted commands folded into a state, random
games of legal commands, and the log folded again as it is stored (JSON, the codec).
Each takes the engine under test (a `rules.engine.CombatEngine`)."""

import json
import random

from rules.engine import Record, decode, encode
from rules.errors import RulesError
from tests.rules.conftest import ScriptedRng


def run(engine, state, command, *dice, seen=None):
    """Decide `command` (a dict is parsed as the app does) with these dice, check every die
    was used, and fold the events; `seen` collects them (for a codec test)."""
    if isinstance(command, dict):
        command = engine.parse_command(command)
    rng = ScriptedRng(*dice)
    events = engine.decide(state, command, rng)
    assert rng.queue == [], f"dice left over: {rng.queue}"
    if seen is not None:
        seen.extend(events)
    for event in events:
        state = engine.evolve(state, event)
    return state, events


def play(engine, state, command, rng):
    events = engine.decide(state, command, rng)
    for event in events:
        state = engine.evolve(state, event)
    return state, events


def with_blocks(engine, state, blocks):
    """`state` with an add_combatant of each stat block (as the API posts it)."""
    for block in blocks:
        command = engine.parse_command({"type": "add_combatant", **block})
        state, _ = play(engine, state, command, random.Random(0))
    return state


def of(events, kind):
    found = [e for e in events if isinstance(e, kind)]
    assert found, f"no {kind.__name__} in {events}"
    return found[0]


def by_name(state, name):
    return next(c for c in state.combatants if c.name == name)


def random_game(engine, setup, candidates, seed: int, steps: int, *, seen=None, viewers=()):
    """Up to `steps` commands from `candidates(state, choose)`, each the first of them
    (shuffled) that is not refused, with random dice: the initial state, the last one and
    the records. `seen` collects the events; each state is viewed by `viewers` as the API
    serves it (JSON)."""
    choose = random.Random(seed)
    dice = random.Random(seed + 1)
    initial = setup()
    state = initial
    records = []
    for _ in range(steps):
        options = candidates(state, choose)
        choose.shuffle(options)
        for command in options:
            try:
                state, events = play(engine, state, command, dice)
            except RulesError:
                continue
            if seen is not None:
                seen.extend(events)
            records.append(Record(len(records) + 1, events))
            for viewer in viewers:
                json.dumps(engine.view(state, viewer))
            break
        if state.ended:
            break
    return initial, state, records


def refold(engine, initial, records, viewers=()):
    """The state folded again from the records' events as they are stored (JSON, through
    the codec), each record's log lines made for `viewers` on the way (stored with it)."""
    stored = json.loads(json.dumps([[encode(e) for e in r.events] for r in records]))
    state = initial
    for events in stored:
        decoded = [decode(data, engine.event_types) for data in events]
        for viewer in viewers:
            json.dumps(engine.describe(state, decoded, viewer))
        for event in decoded:
            state = engine.evolve(state, event)
    return state


def check_codec(engine, event_types, seen) -> None:
    """Every event type was made by some test, and each made event survives being stored."""
    missing = set(event_types) - {type(e).__name__ for e in seen}
    assert not missing, f"no test made {sorted(missing)}"
    for event in seen:
        stored = json.loads(json.dumps(encode(event)))
        assert decode(stored, engine.event_types) == event


def scene_scenario(run, state):
    """The battle map's scene commands (rules/scene.py), each event once: a wall drawn, a
    picture put under the map, the wall taken off again, fog put on and a cell revealed.
    `run` is a test module's own."""
    state, _ = run(state, {"type": "add_shape", "kind": "wall", "points": "0,0 4,0"})
    state, _ = run(state, {"type": "set_picture", "key": "1", "width": 20.0, "aspect": 0.5})
    state, _ = run(state, {"type": "remove_shape", "index": 0})
    state, _ = run(state, {"type": "set_fog", "on": True})
    state, _ = run(state, {"type": "mark_fog", "points": "1,1"})
    return state


def strip_map(data):
    """Stored data as it was before the map (issue 27): no x, y or path anywhere."""
    if isinstance(data, list):
        return [strip_map(item) for item in data]
    if isinstance(data, dict):
        return {k: strip_map(v) for k, v in data.items() if k not in ("x", "y", "path")}
    return data


def dice_scenario(engine, seen, state, command, who):
    """`command` waiting for `who`'s dice typed at the table (rules/table_dice.py), once
    typed in and once rolled on the server by the GM: each dice event, into `seen`."""
    from rules.table_dice import EnterDice, ServerDice, TableDice

    table = TableDice(random.Random(0), {who})
    for answer in ("enter", "server"):
        events = engine.decide(state, command, table)
        waiting = state
        while events and type(events[0]).__name__ == "DiceAsked":
            seen.extend(events)
            for event in events:
                waiting = engine.evolve(waiting, event)
            asked = waiting.asked
            given = (EnterDice(asked.who, " ".join(["1"] * asked.needed)) if answer == "enter"
                     else ServerDice())
            events = engine.decide(waiting, given, table)
        seen.extend(events)
