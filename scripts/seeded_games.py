"""Seeded games of every rule system, snapshotted: a behaviour-preserving refactor must
give a byte-identical snapshot before and after.

    git checkout OLD && nice python scripts/seeded_games.py /tmp/before.json
    git checkout NEW && nice python scripts/seeded_games.py /tmp/after.json
    cmp /tmp/before.json /tmp/after.json   # or diff them: the JSON is sorted, one value a line

The script stands alone (it imports the app, not the tests), so it can be copied into an
older checkout that lacks it; run it with the project's virtualenv's python.

What the snapshot holds (deterministic JSON: sorted keys, indent 1; every die from a
seeded ``random.Random``):

1. ``rules``: for each system (aoristos, phobia, t10) and seed, a whole fight played in
   the pure core (`rules.engine.engine_for`) by the system's simulation policy, mixed
   with commands picked from what the views offer (actions, prompt answers) and a few
   scripted extras (a wall, overwatch, GM damage, tests), so that attacks, damage, moves,
   prompts and reactions all come up. Every step: the command, its encoded events
   (`rules.engine.encode`), its log lines (`describe`) for the GM and each player, the
   views after it for the GM and each player, the previews of the attacks (and moves)
   open to whoever decides now, and the first refused try of the step with its reason.
   After the fight: the codec round trip (events stored as JSON, decoded and folded
   again), and a log with undo, redo and a new branch folded by `rules.engine.replay`.
   Aoristos also gets a chronicle (its `aftermath` engine) of bodies, wounds, first aid,
   time and healing, recorded the same way.
2. ``django``: per system a campaign on a throwaway SQLite database (a GM, two players,
   their characters, NPCs), table rolls posted as the tray posts them (public, the GM's
   secret one, a player's), and a fight played through `combat.services.command_run` as
   the pages do, with undo and redo, each command sent by the member who controls the
   combatant. Recorded: the fight's panel (`combat:state`) for the GM and a player after
   every command; at the end the fight page, the table page and (Aoristos) the
   chronicle page for both; every message published to the live stream with its lines
   as the stream renders them (`view_of` + `render_view`, GM and player, sv and en) and
   as `prerender` carries them; `events_after` and every page of `events_page` for the
   GM and a player. CSRF tokens, CSP nonces, idempotency keys, clock times and the like
   are normalised away.

Module paths move in refactors: every function of the app this script calls is looked
up in `LOOKUPS` below, the new place first. Which place was found goes to stderr, never
into the snapshot. Run it under ``nice``; it takes well under a minute.
"""

import contextlib
import datetime
import importlib
import json
import math
import os
import random
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Where each function (or module) lives: candidates "module:attribute" (or "module"),
# tried in order. Put the new location first when code moves.
LOOKUPS = {
    # The campaign's log: one event's line as the live stream renders it.
    "view_of": ("campaign_log.lines:view_of", "table.lines:view_of"),
    "views_of": ("campaign_log.lines:views_of", "table.lines:views_of"),
    "render_view": ("campaign_log.lines:render_view", "table.lines:render_view"),
    "prerender": ("campaign_log.lines:prerender", "table.lines:prerender"),
    # The log read back: a page of it (newest first), and a catch-up after a number.
    "events_page": ("campaign_log.reading:events_page", "table.services:events_page"),
    "events_after": ("campaign_log.reading:events_after", "table.services:events_after"),
    # The live stream's broadcaster (its `publish` is listened to).
    "get_broadcaster": ("campaign_log.broadcast:get_broadcaster",
                        "table.broadcast:get_broadcaster"),
    # Modules whose `rng` (the app's dice) gets a seeded one, by role: every module found
    # of a role gets the same seed, wherever its code moved.
    "combat_rng": ("combat.services",),
    "table_rng": ("table.services",),
    "character_rng": ("characters.entered",),
    # Encounters, as the pages run them.
    "encounter_create": ("combat.services:encounter_create",),
    "command_run": ("combat.services:command_run",),
    "Stale": ("combat.services:Stale",),  # what command_run raises besides RulesError
    "NotYours": ("combat.services:NotYours",),
    "folded": ("combat.services:folded",),
    "engine_of": ("combat.services:engine_of",),
    "forget": ("combat.services:forget",),
    "catalogue": ("combat.services:catalogue",),
    "character_gear": ("combat.services:character_gear",),
    "last_body": ("combat.services:last_body",),
    # Campaigns.
    "campaign_create": ("campaigns.services:campaign_create",),
    "campaign_join": ("campaigns.services:campaign_join",),
    # A command class -> its "type" in JSON, per system (when it is not found: the class
    # name in snake_case).
    "command_names": ("rules.{system}.combat.commands:COMMAND_NAMES",),
}

SYSTEMS = ("aoristos", "phobia", "t10")
SEEDS = (1, 2, 3, 4, 5, 6)
MAX_STEPS = 140  # commands of one rules-level fight at most (setup not counted)
DJANGO_SEED = 7
DJANGO_STEPS = 45  # commands of the Django-level fight at most
CLOCK = datetime.datetime(2026, 1, 9, 21, 0, tzinfo=datetime.UTC)  # the app's timezone.now
LANGUAGES = ("sv", "en")

_found: dict[str, object] = {}


def lookup(name: str, **fmt):
    """The first candidate of LOOKUPS[name] that imports (an attribute, or a module)."""
    key = name + repr(sorted(fmt.items()))
    if key in _found:
        return _found[key]
    errors = []
    for candidate in LOOKUPS[name]:
        module_name, _sep, attribute = candidate.format(**fmt).partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            if not module_name.startswith(error.name or "\0"):
                raise  # the module is there but broken: that is worth seeing
            errors.append(f"{module_name}: {error}")
            continue
        if attribute and not hasattr(module, attribute):
            errors.append(f"{module_name} has no {attribute}")
            continue
        value = getattr(module, attribute) if attribute else module
        print(f"seeded_games: {name} = {candidate.format(**fmt)}", file=sys.stderr)
        _found[key] = value
        return value
    raise LookupError(f"{name}: none of {LOOKUPS[name]} ({'; '.join(errors)})")


def lookup_all(name: str) -> list:
    """Every candidate module of LOOKUPS[name] that imports."""
    found = []
    for candidate in LOOKUPS[name]:
        try:
            found.append(importlib.import_module(candidate))
        except ImportError as error:
            if not candidate.startswith(error.name or "\0"):
                raise
            continue
        print(f"seeded_games: {name} includes {candidate}", file=sys.stderr)
    return found


# JSON-able values ---------------------------------------------------------------------------


def plain(value):
    """`value` as JSON would give it back (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(value, default=_default, sort_keys=True))


def _default(value):
    from rules.engine import encode

    encoded = encode(value)
    if encoded is value:
        return repr(value)
    return encoded


def refusal(error) -> dict:
    return plain({"error": str(error), "code": getattr(error, "code", ""),
                  "template": getattr(error, "template", ""),
                  "params": getattr(error, "params", {})})


# The rules level ----------------------------------------------------------------------------

# Stat blocks as the tests and the demo build them (tests/rules/test_simulation.py,
# core/demo.py), copied so that the snapshot does not move when the tests do.
AORISTOS_BLOCKS = {
    "knife": {"physique": 3, "agility": 3, "alertness": 3, "composure": 3, "willpower": 3,
              "skills": {"melee_weapons": 3, "evasion": 2}, "weapons": ["knife"],
              "right": "knife"},
    "gunman": {"physique": 3, "agility": 3, "alertness": 3, "composure": 3, "willpower": 3,
               "skills": {"firearms": 3, "melee_weapons": 2, "evasion": 2},
               "weapons": ["pistol", "knife"], "right": "pistol"},
    "brute": {"physique": 5, "agility": 4, "alertness": 4, "composure": 4, "willpower": 4,
              "skills": {"firearms": 5, "evasion": 4}, "weapons": ["carbine"],
              "right": "carbine", "armour": ["mail_shirt", "helmet"]},
    "thug": {"physique": 3, "composure": 2, "agility": 3, "alertness": 2, "willpower": 2,
             "skills": {"melee_weapons": 2, "brawling": 2, "evasion": 1},
             "weapons": ["knife"], "right": "knife", "armour": ["leather_armour"]},
}
T10_PISTOL = {"key": "pistol", "name": "Pistol", "skill": "pistol", "close": 5, "normal": 25,
              "maximum": 50, "modes": [["E", 0]], "damage": 3, "attack_ap": 3, "reload_ap": 5,
              "stance_ap": 2, "magazine": 8}
T10_KNIFE = {"key": "knife", "name": "Kniv", "skill": "melee", "close": 1, "normal": 2,
             "maximum": 2, "modes": [["E", 0]], "damage": 2, "attack_ap": 2, "reload_ap": 0,
             "stance_ap": 1}
T10_BLOCKS = {
    "knife": {"initiative": 1, "skills": {"melee": 2, "medicine": 1}, "weapons": [T10_KNIFE]},
    "gunman": {"initiative": 3, "skills": {"pistol": 3}, "weapons": [T10_PISTOL],
               "armour": [{"key": "vest", "name": "Väst", "protection": 3}]},
    "both": {"initiative": 2, "skills": {"pistol": 2, "melee": 1, "medicine": 2},
             "weapons": [T10_PISTOL, T10_KNIFE]},
}
PHOBIA_KNIFE = {"key": "knife", "name": "Kniv", "damage": 1, "damage_type": "H",
                "skill": "knife"}
PHOBIA_PISTOL = {"key": "pistol", "name": "Pistol", "damage": 3, "damage_type": "P",
                 "skill": "pistol", "ranged": True}
PHOBIA_BATON = {"key": "baton", "name": "Batong", "damage": 3, "damage_type": "K",
                "skill": "combat_experience"}
PHOBIA_BLOCKS = {
    "knife": {"turn_order": 10, "skills": {"knife": 10, "combat_experience": 1},
              "weapons": [PHOBIA_KNIFE]},
    "gunman": {"turn_order": 15, "skills": {"pistol": 16, "combat_experience": 4},
               "weapons": [PHOBIA_PISTOL], "protection": {"chest": 3}},
    "guard": {"strength": 12, "endurance": 10, "agility": 10, "will": 14, "turn_order": 5,
              "shock_value": 12, "skills": {"combat_experience": 8},
              "weapons": [PHOBIA_BATON]},
}
BLOCKS = {"aoristos": AORISTOS_BLOCKS, "phobia": PHOBIA_BLOCKS, "t10": T10_BLOCKS}

# Each seed's fight: side a (two characters, c1 and c2), side b (NPCs), the gap between
# them, and the house rules (the second of each pair differs from the defaults).
LINEUPS = {
    "aoristos": [
        (("gunman", "knife"), ("knife", "thug"), 3.0),
        (("knife", "knife"), ("gunman", "thug"), 1.5),
        (("gunman", "gunman"), ("knife", "knife", "thug"), 8.0),
        (("knife", "gunman"), ("brute",), 12.0),
        (("gunman", "knife"), ("thug", "thug"), 5.0),
        (("knife", "knife"), ("knife", "gunman"), 2.5),
    ],
    "phobia": [
        (("gunman", "knife"), ("knife", "guard"), 1.5),
        (("knife", "knife"), ("gunman", "guard"), 6.0),
        (("gunman", "gunman"), ("knife", "knife", "guard"), 10.0),
        (("knife", "gunman"), ("guard", "guard"), 3.0),
        (("gunman", "knife"), ("gunman", "knife"), 15.0),
        (("knife", "knife"), ("guard", "guard", "knife"), 1.5),
    ],
    "t10": [
        (("gunman", "knife"), ("knife", "both"), 5.0),
        (("knife", "knife"), ("gunman", "both"), 3.0),
        (("gunman", "gunman"), ("knife", "knife", "both"), 15.0),
        (("both", "gunman"), ("gunman", "gunman", "knife"), 20.0),
        (("gunman", "both"), ("knife", "knife"), 8.0),
        (("knife", "both"), ("both", "gunman"), 2.0),
    ],
}
HOUSE = {
    "aoristos": ({}, {"movement_by_round_total": False, "melee_reach": 1.5}),
    "phobia": ({}, {"hit_location": "random", "turn_order_die": True}),
    "t10": ({}, {"metres_per_ap": 3, "cover_ap": 2}),
}


def viewers():
    from rules.engine import Viewer

    return {
        "gm": Viewer(is_gm=True),
        "p1": Viewer(is_gm=False, controls=frozenset({"c1"})),
        "p2": Viewer(is_gm=False, controls=frozenset({"c2"})),
    }


def command_data(engine, system: str, command) -> dict:
    """`command` as the API posts it: `{"type": ..., its fields}`."""
    import dataclasses

    from rules.engine import encode

    names = None
    with contextlib.suppress(LookupError):
        names = lookup("command_names", system=system)
    cls = type(command)
    kind = names.get(cls) if names else None
    if kind is None:
        kind = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()
    data = {"type": kind}
    for field in dataclasses.fields(command):
        data[field.name] = plain(encode(getattr(command, field.name)))
    return data


def commands_offered(view) -> list[dict]:
    """Every command a view offers (its actions, its prompts' answers), enabled ones only,
    in the view's order."""
    found = []

    def walk(value):
        if isinstance(value, dict):
            command = value.get("command")
            if isinstance(command, dict) and "type" in command and value.get("enabled", True):
                found.append(command)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk({"actions": view.get("actions"), "prompts": view.get("prompts")})
    return found


def people(view) -> dict:
    return {c["id"]: c for c in view.get("combatants", [])}


def up(c) -> bool:
    return bool(c.get("alive", True)) and bool(c.get("conscious", True)) and not c.get("fled")


def nearest_foe(view, cid):
    everyone = people(view)
    me = everyone.get(cid)
    if me is None:
        return None, None
    foes = [c for c in everyone.values() if c["side"] != me["side"] and up(c)]
    if not foes:
        return me, None
    return me, min(foes, key=lambda o: (math.hypot(o["x"] - me["x"], o["y"] - me["y"]), o["id"]))


def extras(system: str, view, choose: random.Random) -> list[dict]:
    """Scripted commands beyond the policy's (a wall, overwatch, GM damage, tests, a step
    away from melee): tried now and then, refused ones are recorded as refused."""
    active = view.get("active")
    everyone = people(view)
    me, foe = nearest_foe(view, active) if active else (None, None)
    someone = choose.choice(sorted(everyone)) if everyone else "c1"
    out = [{"type": "add_shape", "kind": "wall", "points": "2,-4 2,-1"}]
    if me is not None and foe is not None:
        dx, dy = me["x"] - foe["x"], me["y"] - foe["y"]
        d = math.hypot(dx, dy) or 1.0
        away = {"type": "move", "id": active, "x": round(me["x"] + dx / d * 3, 2),
                "y": round(me["y"] + dy / d * 3, 2)}
        out.append(away)
        if system == "aoristos":
            out += [
                {"type": "overwatch", "id": active, "x": foe["x"], "y": foe["y"]},
                {"type": "range_aim", "id": active, "target": foe["id"], "levels": 1},
                {"type": "talk", "id": active, "syllables": 4},
                {"type": "switch_hands", "id": active},
            ]
        elif system == "phobia":
            out += [
                {"type": "damage", "id": someone, "damage_type": "K", "area": "chest",
                 "damage": 2},
                {"type": "act", "id": active, "label": "Ropar"},
                {"type": "advance_time", "rounds": 1},
            ]
        else:
            out += [
                {"type": "damage", "id": someone, "amount": 2},
                {"type": "test", "id": active, "skill": "medicine", "modifier": 0, "ap": 2,
                 "label": "Sjukvård"},
                {"type": "act", "id": active, "label": "Ropar", "ap": 1},
                {"type": "treat", "id": active, "target": someone},
            ]
    return out


def choose_command(engine, system, state, view, choose, plan, fight):
    """The next command and the tries the rules refused on the way: now and then one the
    view offers or a scripted extra, else the policy's."""
    from rules.errors import RulesError

    refused = []
    roll = choose.random()
    tries = []
    if roll < 0.18:
        tries = commands_offered(view)
        choose.shuffle(tries)
        tries = tries[:3]
    elif roll < 0.28:
        tries = [choose.choice(extras(system, view, choose))]
    for data in tries:
        try:
            command = engine.parse_command(data, **gear_of(engine, system))
            engine.decide(state, command, _NoDice())
        except _Rolled:
            return command, data, refused
        except RulesError as error:
            refused.append({"command": data, **refusal(error)})
            continue
        return command, data, refused
    command = engine.policy.next_command(state, plan, fight)
    if command is None:
        return None, None, refused
    return command, command_data(engine, system, command), refused


class _Rolled(Exception):
    pass


class _NoDice:
    """Dice that stop a decision at its first roll: a command checked without rolling."""

    def randint(self, a, b):
        raise _Rolled

    def random(self):
        raise _Rolled

    def choice(self, seq):
        raise _Rolled

    def shuffle(self, seq):
        raise _Rolled


def gear_of(engine, system):
    if system != "aoristos":
        return {}
    catalogue = engine.catalogue()
    return {"weapons": catalogue["weapon"], "armour": catalogue["armour"]}


def previews(engine, state, view, actor, vs) -> list[dict]:
    """The previews of every attack `actor` could make (each weapon at each foe, at most
    two of each), and of a move toward the nearest foe, for the GM and each player."""
    from rules.errors import RulesError

    everyone = people(view)
    me = everyone.get(actor)
    if me is None:
        return []
    foes = sorted((c for c in everyone.values() if c["side"] != me["side"] and up(c)),
                  key=lambda o: (math.hypot(o["x"] - me["x"], o["y"] - me["y"]), o["id"]))[:2]
    weapons = [w["key"] for w in me.get("weapons") or [] if "key" in w][:2]
    commands = [{"type": "attack", "id": actor, "target": foe["id"], "weapon": key}
                for foe in foes for key in weapons]
    if foes:
        foe = foes[0]
        d = math.hypot(foe["x"] - me["x"], foe["y"] - me["y"]) or 1.0
        go = min(2.0, d)
        commands.append({"type": "move", "id": actor,
                         "x": round(me["x"] + (foe["x"] - me["x"]) / d * go, 2),
                         "y": round(me["y"] + (foe["y"] - me["y"]) / d * go, 2)})
    out = []
    for data in commands:
        entry = {"command": data}
        try:
            command = engine.parse_command(data)
        except RulesError as error:
            entry["parse"] = refusal(error)
            out.append(entry)
            continue
        for name, viewer in vs.items():
            try:
                entry[name] = plain(engine.preview(state, command, viewer))
            except RulesError as error:
                entry[name] = refusal(error)
        out.append(entry)
    return out


def step(engine, state, data, command, rng, vs):
    """Play one command; its record (events, lines, views) and the state after it."""
    from rules.engine import encode

    play = getattr(engine, "play", None)
    if play is not None:
        events, after = play(state, command, rng)
    else:  # the chronicle's engine: decide, then fold
        events, after = engine.decide(state, command, rng), state
        for event in events:
            after = engine.evolve(after, event)
    record = {
        "command": data,
        "encoded": plain(encode(command)),
        "actor": engine.actor_of(state, command),
        "events": plain([encode(e) for e in events]),
        "lines": {name: plain(engine.describe(state, events, v)) for name, v in vs.items()},
        "views": {name: plain(engine.view(after, v)) for name, v in vs.items()},
    }
    return record, events, after


def rules_fight(system: str, index: int, seed: int) -> dict:
    from rules import simulation as S
    from rules.engine import Record, decode, encode, engine_for
    from rules.errors import RulesError

    engine = engine_for(system)
    vs = viewers()
    ours, theirs, gap = LINEUPS[system][index]
    house = HOUSE[system][index % 2]
    dice = random.Random(seed)
    choose = random.Random(seed + 10_000)
    state = engine.new_state(house)
    initial = state
    steps, records = [], []

    def play(data, command):
        nonlocal state
        record, events, after = step(engine, state, data, command, dice, vs)
        steps.append(record)
        records.append(Record(len(records) + 1, tuple(events)))
        state = after
        return record

    for side, names, x in (("a", ours, 0.0), ("b", theirs, gap)):
        for i, name in enumerate(names):
            data = {"type": "add_combatant", "name": f"{side.upper()}{i + 1} {name}",
                    "side": side, "npc": side == "b", "x": x, "y": 2.0 * i, **BLOCKS[system][name]}
            play(data, engine.parse_command(data, **gear_of(engine, system)))
    start = engine.policy.start_command(state)
    play(command_data(engine, system, start), start)
    plan, fight = S.Plan(), S.Fight()
    sides = {c.side for c in state.combatants}
    outcome = "steps"
    for _ in range(MAX_STEPS):
        if getattr(state, "ended", False):
            outcome = "ended"
            break
        if len(S.standing(state, engine.policy, fight) & sides) < 2:
            outcome = "decided"
            break
        view = steps[-1]["views"]["gm"]
        command, data, refused = choose_command(engine, system, state, view, choose, plan, fight)
        if command is None:
            outcome = "stuck"
            break
        actor = engine.actor_of(state, command) or view.get("active")
        shown = previews(engine, state, view, actor, vs) if actor else []
        try:
            record = play(data, command)
        except RulesError as error:  # the policy's mistake: recorded, and the fight ends
            steps.append({"command": data, "refused": refusal(error)})
            outcome = "refused"
            break
        record["previews"] = shown
        if refused:
            record["refused"] = refused[0]
    # The log as stored (JSON through the codec) folds to the same state.
    stored = json.loads(json.dumps([[encode(e) for e in r.events] for r in records]))
    decoded = [tuple(decode(d, engine.event_types) for d in events) for events in stored]
    refolded = initial
    for events in decoded:
        for event in events:
            refolded = engine.evolve(refolded, event)
    codec = {
        "events_equal": all(d == r.events for d, r in zip(decoded, records, strict=True)),
        "state_equal": refolded == state,
    }
    return {
        "lineup": {"a": list(ours), "b": list(theirs), "gap": gap, "house": house},
        "seed": seed,
        "outcome": outcome,
        "steps": steps,
        "codec": codec,
        "undo": rules_undo(engine, system, initial, records, dice, vs),
    }


def rules_undo(engine, system, initial, records, dice, vs) -> list[dict]:
    """The fight's log with undos and redos appended (and a new branch after an undo),
    folded by `replay` after each: what stays applied, what a redo brings back, the
    state's views."""
    from rules import simulation as S
    from rules.engine import Record, encode, replay
    from rules.errors import RulesError

    log = list(records)
    n = len(log)
    out = []

    def fold(label):
        folded = replay(engine, initial, log)
        out.append({
            "after": label,
            "applied": list(folded.applied),
            "redoable": [r.version for r in folded.redoable],
            "views": {name: plain(engine.view(folded.state, v)) for name, v in vs.items()},
        })
        return folded

    for label, undo_to, redo in ((f"undo to {n // 2}", n // 2, False), ("redo", None, True),
                                 (f"undo to {n // 3}", n // 3, False)):
        log.append(Record(len(log) + 1, undo_to=undo_to, redo=redo))
        folded = fold(label)
    command = engine.policy.next_command(folded.state, S.Plan(), S.Fight())
    if command is not None:
        try:
            events, _after = engine.play(folded.state, command, dice)
        except RulesError as error:
            out.append({"after": "new branch", "refused": refusal(error)})
        else:
            log.append(Record(len(log) + 1, tuple(events)))
            fold("new branch")
            out[-1]["command"] = command_data(engine, system, command)
            out[-1]["events"] = plain([encode(e) for e in events])
            out[-1]["lines"] = {name: plain(engine.describe(folded.state, events, v))
                                for name, v in vs.items()}
    log.append(Record(len(log) + 1, redo=True))
    try:
        fold("redo after a new branch")
    except RulesError as error:
        log.pop()
        out.append({"after": "redo after a new branch", "refused": refusal(error)})
    return out


def chronicle(seed: int) -> dict:
    """Aoristos' chronicle (`engine_for("aoristos", "chronicle")`): two bodies, seeded
    wounds, first aid, circumstances and time, each command recorded as a fight's."""
    from rules.engine import engine_for
    from rules.errors import RulesError

    engine = engine_for("aoristos", "chronicle")
    vs = viewers()
    dice = random.Random(seed)
    state = engine.new_state({"start": "2026-01-09T22:00"})
    areas = ("torso", "head", "right_arm", "left_leg")
    commands = [
        {"type": "add_body", "id": "c1", "name": "Miriam", "willpower": 3},
        {"type": "add_body", "id": "c2", "name": "Sture", "willpower": 2,
         "shock_tolerance": 5},
    ]
    for body in ("c1", "c2"):
        commands.append({"type": "add_wound", "id": body, "area": dice.choice(areas),
                         "damage": dice.randint(1, 6), "bleed_rate": dice.randint(0, 3),
                         "organ_trauma": dice.randint(0, 2)})
    commands += [
        {"type": "first_aid", "id": "c1", "levels": [dice.randint(1, 4)]},
        {"type": "first_aid", "id": "c2", "levels": [2, 3], "equipment": ["modern_bandage"]},
        {"type": "set_circumstances", "ids": ["c1", "c2"], "activity": "rest"},
        {"type": "advance", "amount": 20, "unit": "minutes"},
        {"type": "advance", "amount": 2, "unit": "hours"},
        {"type": "wake", "id": "c2"},
        {"type": "set_circumstances", "ids": ["c1"], "activity": "active",
         "environment": "squalid"},
        {"type": "advance", "amount": 1, "unit": "days", "ids": ["c1"]},
        {"type": "transfusion", "id": "c1"},
        {"type": "gain_psych_trauma", "id": "c2", "amount": 2},
        {"type": "set_circumstances", "ids": ["c1", "c2"], "activity": "cared",
         "recovery": "ordinary"},
        {"type": "advance", "amount": 1, "unit": "weeks"},
        {"type": "advance", "to": "2026-02-20T08:00"},
        {"type": "advance", "amount": 53, "unit": "weeks"},
    ]
    steps = []
    for data in commands:
        try:
            command = engine.parse_command(data)
            record, _events, state = step(engine, state, data, command, dice, vs)
        except RulesError as error:
            steps.append({"command": data, "refused": refusal(error)})
            continue
        steps.append(record)
    return {"seed": seed, "steps": steps}


def rules_level() -> dict:
    out = {}
    for system in SYSTEMS:
        out[system] = {f"seed {seed}": rules_fight(system, i, seed)
                       for i, seed in enumerate(SEEDS)}
    out["aoristos chronicle"] = {f"seed {seed}": chronicle(seed) for seed in SEEDS[:3]}
    return out


# The Django level ---------------------------------------------------------------------------


def django_setup(directory: str) -> None:
    for name in ("DATABASE_URL", "REDIS_URL", "REDIS_CHANNEL_PREFIX", "SECURE_COOKIES",
                 "ADMIN_ENABLED", "DEBUG"):
        os.environ.pop(name, None)
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "aoristos_site.settings",
        "DATA_DIR": directory,
        "SQLITE_PATH": str(Path(directory) / "golden.sqlite3"),
        "SECRET_KEY": "seeded-golden-games-not-a-secret",
        "TIME_ZONE": "Europe/Stockholm",
        "LOG_LEVEL": "ERROR",
        "STATIC_ROOT": str(Path(directory) / "static"),
    })
    (Path(directory) / "static").mkdir()
    import django
    from django.conf import settings

    django.setup()
    from django.utils import timezone

    timezone.now = lambda: CLOCK  # a stopped clock: stored times, countdowns, sessions
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.DATABASES["default"]["CONN_MAX_AGE"] = 0
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


# What differs from run to run in a page or a message, and what it becomes.
HTML_NOISE = [
    (re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*'), r"\1<csrf>"),
    (re.compile(r'("X-CSRFToken"\s*:\s*")[^"]*'), r"\1<csrf>"),
    (re.compile(r'(csrf[-_]?token[^=>]*=\s*")[^"]*', re.I), r"\1<csrf>"),
    (re.compile(r'(nonce=")[^"]*'), r"\1<nonce>"),
    (re.compile(r'(name="idempotency_key"[^>]*value=")[^"]*'), r"\1<key>"),
    (re.compile(r'(value=")[^"]*("[^>]*name="idempotency_key")'), r"\1<key>\2"),
    (re.compile(r'(datetime=")[^"]*'), r"\1<datetime>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+(?:[+-]\d\d:\d\d|Z)?"), "<iso>"),
    (re.compile(r"(<time[^>]*>)\s*\d{1,2}:\d\d\s*(</time>)"), r"\1<hh:mm>\2"),
    (re.compile(r'(data-prompt-left=")\d+'), r"\1<left>"),
    (re.compile(r'(data-left=")\d+'), r"\1<left>"),
]


def clean_html(html: str) -> list[str]:
    for pattern, replacement in HTML_NOISE:
        html = pattern.sub(replacement, html)
    return html.splitlines()


def clean_message(message):
    """A message without its clock: its stored time and its HH:MM."""
    if isinstance(message, dict):
        out = {}
        for key, value in message.items():
            if key == "created_at":
                out[key] = "<datetime>"
            elif key == "time" and isinstance(value, str) and re.fullmatch(r"\d\d:\d\d", value):
                out[key] = "<hh:mm>"
            else:
                out[key] = clean_message(value)
        return out
    if isinstance(message, (list, tuple)):
        return [clean_message(v) for v in message]
    return message


ALBERT = {"name": "Albert", "concept": "Hårdkokt modern livvakt",
          "notes": "Exemplet ur grundreglerna, sidan 2.", "dp_budget": 33, "level_cap": 5,
          "attributes": {"physique": 3, "composure": 3, "agility": 2, "alertness": 5,
                         "willpower": 3},
          "skills": {"firearms": 4, "evasion": 1}}
BERIT = {"name": "Berit", "dp_budget": 33, "level_cap": 5,
         "attributes": {"physique": 4, "composure": 3, "agility": 4, "alertness": 3,
                        "willpower": 3},
         "skills": {"melee_weapons": 3, "evasion": 2, "brawling": 1}}
JACE = {"name": "Jace", "rule_system": "phobia", "notes": "Exemplen ur Phobia-utdraget.",
        "attributes": {"strength": 14, "endurance": 14, "agility": 13, "personality": 9,
                       "psyche": 15, "will": 11, "education": 12, "sight": 15, "hearing": 10,
                       "luck": 10},
        "skills": {"demolitions": 16, "climbing": 12, "combat_experience": 3, "first_aid": 8}}
MARA = {"name": "Mara", "rule_system": "phobia",
        "attributes": {"strength": 11, "endurance": 12, "agility": 15, "personality": 12,
                       "psyche": 10, "will": 13, "education": 10, "sight": 12, "hearing": 14,
                       "luck": 11},
        "skills": {"pistol": 14, "combat_experience": 6, "climbing": 9}}
JOHAN = {"name": "Johan", "rule_system": "t10", "notes": "Exemplen ur T10-utdraget.",
         "attributes": {"body": 0, "combat": -1, "mind": 0, "social": -2, "initiative": 2},
         "skills": {"pistol": 2, "intimidate": 3, "medicine": 1}}
LISA = {"name": "Lisa", "rule_system": "t10",
        "attributes": {"body": 0, "combat": 0, "mind": -1, "social": -1, "initiative": 1},
        "skills": {"melee": 2, "medicine": 2}}
DJANGO_CAMPAIGNS = {
    # system: (characters with their gear by catalogue key, NPCs, table rolls)
    "aoristos": (
        ((ALBERT, ("weapon:pistol", "armour:soft_vest")), (BERIT, ("weapon:knife",))),
        ({"name": "Torped", **AORISTOS_BLOCKS["thug"]},
         {"name": "Skytt", **AORISTOS_BLOCKS["gunman"]}),
        ({"mode": "hand", "hand": "1B1F", "purpose": "test"},
         {"mode": "hand", "hand": "2B", "secret": "on"},
         {"mode": "test", "character": 0, "properties": ["alertness", "wilderness"]}),
    ),
    "phobia": (
        ((JACE, ("weapon:kniv",)), (MARA, ("weapon:pistol", "armour:skinnjacka"))),
        ({"name": "Vakten", **{k: v for k, v in PHOBIA_BLOCKS["guard"].items()
                               if k != "weapons"}, "weapons": ["batong"]},
         {"name": "Skytten", "turn_order": 12, "skills": {"pistol": 12}, "weapons": ["pistol"]},
         {"name": "Knivmannen", "turn_order": 9, "endurance": 15, "skills": {"knife": 11},
          "weapons": ["kniv"], "armour": ["skinnjacka"]}),
        ({"mode": "test", "character": 0, "stat": "climbing", "difficulty": 3},
         {"mode": "test", "character": 0, "stat": "sight", "difficulty": 3, "secret": "on"},
         {"mode": "test", "character": 0, "stat": "calm", "difficulty": 3}),
    ),
    "t10": (
        ((JOHAN, ("weapon:pistol", "armour:vast")), (LISA, ("weapon:kniv",))),
        ({"name": "Soldat", "stance": "aimed", "skills": {"smg": 1, "throw": 1},
          "weapons": ["kpist", "granat"]},
         {"name": "Vakt", "skills": {"melee": 1}, "weapons": ["kniv"]},
         {"name": "Sergeant", "initiative": 2, "skills": {"pistol": 2}, "weapons": ["pistol"],
          "armour": ["vast"]}),
        ({"mode": "test", "character": 0, "stat": "pistol"},
         {"mode": "test", "character": 0, "stat": "medicine", "secret": "on"},
         {"mode": "hand", "hand": "2T10+3"}),
    ),
}


class Published:
    """Every message the app publishes to the live stream, as it was sent."""

    def __init__(self):
        self.messages = []

    def attach(self):
        broadcaster = lookup("get_broadcaster")()
        original = broadcaster.publish

        def publish(campaign_id, message):
            self.messages.append((campaign_id, dict(message)))
            return original(campaign_id, message)

        broadcaster.publish = publish


def django_level() -> dict:
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    for offset, role in enumerate(("combat_rng", "table_rng", "character_rng")):
        for module in lookup_all(role):
            if hasattr(module, "rng"):
                module.rng = random.Random(DJANGO_SEED * 1000 + offset)
    lookup("forget")()
    published = Published()
    published.attach()
    User = get_user_model()
    out = {}
    for number, system in enumerate(SYSTEMS, start=1):
        gm = User.objects.create_user(username=f"sl-{system}")
        anna = User.objects.create_user(username=f"anna-{system}")
        bertil = User.objects.create_user(username=f"bertil-{system}")
        out[system] = django_campaign(system, number, gm, anna, bertil, published, Client,
                                      reverse)
    return out


def client_for(Client, user, language: str):
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


def get(client, url) -> dict:
    response = client.get(url)
    return {"status": response.status_code, "html": clean_html(response.content.decode())}


def django_campaign(system, number, gm, anna, bertil, published, Client, reverse) -> dict:
    from campaigns.models import Membership
    from characters.models import Character
    from rules.errors import RulesError
    from rules.simulation import Fight, Plan, standing

    characters_of, npcs, rolls = DJANGO_CAMPAIGNS[system]
    campaign = lookup("campaign_create")(
        gm=gm, name=f"Kampanj {system}", rule_system=system, join_code=f"GLDN{number:02d}",
        invite_token=f"seeded-golden-{system}",
    )
    for player in (anna, bertil):
        lookup("campaign_join")(campaign=campaign, user=player)
    dice = random.Random(DJANGO_SEED + number)
    heroes = []
    for owner, (fields, gear) in zip((anna, bertil), characters_of, strict=True):
        hero = Character(owner=owner, campaign=campaign, **fields)
        if hero.system.builder == "entered":
            hero.rolled = hero.system.creation_rolls(hero.values(), dice)
        hero.save()
        for entry in gear:
            hero.items.create(catalogue=entry, name=entry.partition(":")[2], bulk="1")
        heroes.append(hero)
    memberships = {m.user_id: m for m in Membership.objects.filter(campaign=campaign)
                   .select_related("user", "campaign")}
    gm_membership = memberships[gm.pk]
    out = {"rolls": [], "steps": [], "pages": {}}

    def roll(data, user):
        data = dict(data)
        if data.get("character") == 0:
            data["character"] = heroes[0].pk
        client = client_for(Client, user, "sv")
        response = client.post(reverse("table:roll", args=[campaign.pk]), data,
                               headers={"HX-Request": "true"})
        out["rolls"].append({"by": user.username, "data": data,
                             "status": response.status_code,
                             "html": clean_html(response.content.decode())})

    roll(rolls[0], gm)
    roll(rolls[1], gm)
    roll(rolls[2], anna)

    encounter = lookup("encounter_create")(campaign=campaign, name=f"Striden {system}",
                                           house_rules={})
    engine = lookup("engine_of")(encounter)
    command_run = lookup("command_run")
    items = lookup("catalogue")(campaign.pk, engine)
    for i, hero in enumerate(heroes):  # as the add form adds a character (combat/views.py)
        levels, derived = hero.combat_stats(campaign.house_rules)
        block = engine.character_block(name=hero.name, levels=levels, derived=derived)
        block["character_id"] = hero.pk
        body = lookup("last_body")(encounter, engine, hero.pk)
        if body:
            block["carried"] = body
        weapons, armour = lookup("character_gear")(hero, items)
        block.update(type="add_combatant", side="a", x=0.0, y=2.0 * i, weapons=weapons,
                     armour=armour)
        if weapons and system == "aoristos":
            block["right"] = weapons[0]
        encounter, _stored, _after = command_run(
            encounter=encounter, membership=gm_membership, data=block,
            version=encounter.version, controller=hero.owner_id)
    for i, npc in enumerate(npcs):
        data = {"type": "add_combatant", "side": "b", "npc": True, "x": 4.0, "y": 2.0 * i,
                **npc}
        encounter, _stored, _after = command_run(
            encounter=encounter, membership=gm_membership, data=data, version=encounter.version)

    clients = {(who, language): client_for(Client, user, language)
               for who, user in (("gm", gm), ("anna", anna)) for language in LANGUAGES}
    state_url = reverse("combat:state", args=[encounter.pk])
    folded = lookup("folded")
    choose = random.Random(DJANGO_SEED + 100 + number)
    plan, fight = Plan(), Fight()
    # Undo and redo at these commands (the GM's): back two, forward one, back three.
    undos = {8: "undo 2", 9: "redo", 16: "undo 3", 30: "undo 1", 31: "redo"}
    for n in range(DJANGO_STEPS):
        encounter.refresh_from_db()
        result = folded(encounter, engine)
        state = result.state
        entry = {"version": encounter.version}
        if n == 0:
            start = engine.policy.start_command(state)
            data, membership = command_data(engine, system, start), gm_membership
        elif n in undos:
            how = undos[n]
            if how == "redo":
                data = {"type": "redo"}
            else:
                back = int(how.split()[1])
                applied = list(result.applied)
                data = {"type": "undo", "to": applied[-back - 1] if len(applied) > back else 0}
            membership = gm_membership
        else:
            if getattr(state, "ended", False):
                break
            sides = {c.side for c in state.combatants}
            if len(standing(state, engine.policy, fight) & sides) < 2:
                break  # one side is left: the GM ends it below
            view = engine.view(state, viewers()["gm"])
            command, data, refused = choose_command(engine, system, state, view, choose,
                                                    plan, fight)
            if refused:
                entry["refused"] = refused[0]
            if command is None:
                break
            actor = engine.actor_of(state, command)
            owner = encounter.controllers.get(actor) if actor else None
            membership = memberships.get(owner, gm_membership)
        entry["by"] = membership.user.username
        entry["command"] = data
        try:
            encounter, stored, after = command_run(
                encounter=encounter, membership=membership, data=data,
                version=encounter.version)
        except RulesError as error:
            entry["error"] = refusal(error)
            out["steps"].append(entry)
            continue
        except (lookup("Stale"), lookup("NotYours")) as error:  # the app's answer, recorded
            entry["error"] = {"exception": type(error).__name__}
            out["steps"].append(entry)
            continue
        entry.update(stored_version=stored.version, seq=stored.seq,
                     lines=plain(stored.lines), public_lines=plain(stored.public_lines),
                     events=plain(stored.events), applied=list(after.applied),
                     redoable=[r.version for r in after.redoable])
        language = LANGUAGES[n % 2]
        entry["panel"] = {who: get(clients[(who, language)], state_url)
                          for who in ("gm", "anna")}
        entry["panel_language"] = language
        out["steps"].append(entry)
    if not encounter.ended:  # the GM ends it (an Aoristos fight's end fills the chronicle)
        data = {"type": "end"}
        try:
            encounter, stored, after = command_run(
                encounter=encounter, membership=gm_membership, data=data,
                version=encounter.version)
            out["steps"].append({"by": gm.username, "command": data, "seq": stored.seq,
                                 "lines": plain(stored.lines)})
        except RulesError as error:
            out["steps"].append({"by": gm.username, "command": data, "error": refusal(error)})
    roll({"mode": "hand", "hand": "1B" if system == "aoristos" else "1T6", "secret": "on"}, gm)

    pages = {"encounter": reverse("combat:page", args=[encounter.pk]),
             "state": state_url,
             "table": reverse("table:page", args=[campaign.pk])}
    if system == "aoristos":
        pages["chronicle"] = reverse("combat:chronicle", args=[campaign.pk])
    for page, url in pages.items():
        for who in ("gm", "anna"):  # the GM first: the chronicle is synced when the GM opens it
            for language in LANGUAGES:
                out["pages"][f"{page} {who} {language}"] = get(clients[(who, language)], url)

    out["log"] = log_of(campaign.pk, published)
    return out


def log_of(campaign_id: int, published: Published) -> dict:
    """The campaign's log as the live stream and the pages read it."""
    view_of, render_view = lookup("view_of"), lookup("render_view")
    views_of, prerender = lookup("views_of"), lookup("prerender")
    events_after, events_page = lookup("events_after"), lookup("events_page")
    sent = []
    for cid, message in published.messages:
        if cid != campaign_id:
            continue
        lines = {}
        for is_gm in (True, False):
            view = view_of(message, is_gm=is_gm)
            for language in LANGUAGES:
                lines[f"{'gm' if is_gm else 'player'} {language}"] = {
                    "view": view, "html": clean_html(render_view(message, view, language))}
        carried = prerender(message)  # what travels to the other processes with Redis
        added = {key: value for key, value in carried.items() if key not in message}
        prerendered = {}
        for value in added.values():
            if isinstance(value, dict):
                prerendered.update({k: clean_html(v) if isinstance(v, str) else plain(v)
                                    for k, v in value.items()})
        sent.append({"message": clean_message(plain(message)), "lines": lines,
                     "views": list(views_of(message)), "prerendered": prerendered})
    out = {"published": sent}
    for who, is_gm in (("gm", True), ("player", False)):
        out[f"events_after {who}"] = clean_message(plain(events_after(campaign_id, 0,
                                                                      is_gm=is_gm)))
        pages, before = [], None
        while True:
            messages, older = events_page(campaign_id, before=before, is_gm=is_gm, size=30)
            pages.append({"before": before, "older": older,
                          "messages": clean_message(plain(messages))})
            if older is None or len(pages) > 50:
                break
            before = older
        out[f"events_page {who}"] = pages
    return out


# --------------------------------------------------------------------------------------------


def main(argv) -> int:
    if len(argv) != 2:
        print(f"usage: {argv[0]} OUTPUT.json", file=sys.stderr)
        return 2
    target = Path(argv[1])
    snapshot = {"format": 1, "seeds": list(SEEDS), "rules": rules_level()}
    with tempfile.TemporaryDirectory(prefix="seeded-golden-") as directory:
        django_setup(directory)
        from django.db import connections

        try:
            snapshot["django"] = django_level()
        finally:
            connections.close_all()
    text = json.dumps(snapshot, sort_keys=True, indent=1, ensure_ascii=False)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text + "\n", encoding="utf-8")
    print(f"seeded_games: wrote {target} ({len(text)} characters)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
