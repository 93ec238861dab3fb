"""The plumbing every rule system's combat engine is built from, so that a system's package
(`rules.<system>.combat`) holds only its own rules, state fields and commands.

What the engines share is the shape of an encounter, not its rules: a roster of
combatants with ids "c1", "c2", ... (values are frozen dataclasses whose mappings are
tuples of pairs), commands parsed strictly from JSON-like data, the GM's roster commands
(add, update, remove) and their refusals, the commands and events alike in several
systems (ending the encounter, a turn, a move by metres or to a point; their names and
fields are the log's encoded form), `decide` handing each command to its handler,
the per-viewer rule that an NPC's numbers are the GM's, and the engine object that hands
the calls of `rules.engine.CombatEngine` to the system's modules. What differs between the
systems (their bounds, their special fields, their wording) is passed in, never guessed
from the system's name. No Django here.
"""

import dataclasses
import functools
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import MISSING, dataclass
from fractions import Fraction
from types import ModuleType
from typing import Any, get_args, get_origin, get_type_hints

from rules import table_dice
from rules.engine import MAX_ID, Viewer
from rules.errors import RulesError
from rules.errors import gettext_noop as _
from rules.table_dice import TableDice

MAX_TEXT = 100  # a command's text field, in characters
MAX_ENTRIES = 40  # a dict field's items
MAX_ITEMS = 20  # a stat block's weapons or armour pieces
GM_VIEW = Viewer(is_gm=True)


# Values ----------------------------------------------------------------------------------


_COPIERS: dict[type, Callable] = {}  # a slotted value's class -> its copier (`slotted`)


def changed(value, **changes):
    """`value` (a frozen dataclass) with some fields changed: what ``dataclasses.replace``
    does, without running ``__init__`` again for every field. The fold applies hundreds of
    events, each changing a field or two of a combatant with dozens, so this is most of a
    replay's time (bench/live.py, rebuild) and of a simulated fight's (bench/simulate.py):
    the copy is one dict merge, given to the new object as its ``__dict__``; a `slotted`
    class (the combatant and the encounter, read far more often than copied) has its own
    copier instead.

    A frozen dataclass's ``__dict__`` holds its fields and nothing else (its ``__init__``,
    `quick_init`'s and this very copy set them all; no class here caches anything in it),
    so a name that is not a field is the one that makes the merge longer than the
    original: that is the check, one length comparison instead of a set's."""
    copier = _COPIERS.get(value.__class__)
    if copier is not None:
        return copier(value, changes)
    fields = value.__dict__
    merged = fields | changes
    if len(merged) != len(fields):
        _no_such_field(value, changes)
    new = _new_object(value.__class__)
    _set_attribute(new, "__dict__", merged)
    return new


def copied(value, changes: dict):
    """`changed(value, **changes)` of a dict the caller built (a fold's changes, `put`'s):
    handed on as it is, not unpacked into keywords and packed again. (The same lines as
    `changed`'s, not a call of it or from it: both are among a fold's hottest.)"""
    copier = _COPIERS.get(value.__class__)
    if copier is not None:
        return copier(value, changes)
    fields = value.__dict__
    merged = fields | changes
    if len(merged) != len(fields):
        _no_such_field(value, changes)
    new = _new_object(value.__class__)
    _set_attribute(new, "__dict__", merged)
    return new


def _no_such_field(value, changes: Mapping[str, Any]):
    unknown = sorted(changes.keys() - _field_names(type(value)))[0]
    raise TypeError(f"{type(value).__name__} has no field {unknown!r}")


_new_object = object.__new__
_set_attribute = object.__setattr__  # past a frozen dataclass's own __setattr__
_FIELD_NAMES: dict[type, frozenset[str]] = {}


def _field_names(cls: type) -> frozenset[str]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = frozenset(f.name for f in dataclasses.fields(cls))
    return names


def quick_init(cls: type) -> type:
    """`cls`, a frozen dataclass, with an ``__init__`` that gives the new object all its
    fields in one dict, as `changed` does. The one `dataclass` writes sets each field
    with ``object.__setattr__`` (past the frozen ``__setattr__``): seven times slower for
    a ten-field value, and every simulated attack makes a dozen (its events, setup, dice).
    The same parameters in the same order with the same defaults, and the same values;
    equality, hashing and repr stay the dataclass's. Only for a class without
    ``__post_init__``, default factories, keyword-only or non-init fields (refused)."""
    fields = dataclasses.fields(cls)
    if hasattr(cls, "__post_init__") or any(
        f.default_factory is not MISSING or f.kw_only or not f.init for f in fields
    ):
        raise TypeError(f"{cls.__name__}: quick_init takes plain fields only")
    params = ", ".join(f.name if f.default is MISSING else f"{f.name}=_{f.name}" for f in fields)
    values = ", ".join(f"{f.name!r}: {f.name}" for f in fields)
    namespace = {f"_{f.name}": f.default for f in fields if f.default is not MISSING}
    namespace["_set_attribute"] = _set_attribute
    source = f"def __init__(self, {params}):\n    _set_attribute(self, '__dict__', {{{values}}})"
    exec(source, namespace)  # as `dataclass` makes its own: a function of these fields
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init
    return cls


def slotted(cls: type) -> type:
    """`cls`, a frozen dataclass made with ``slots=True``, copied by `changed` and `copied`:
    its fields live in slots, which a fight reads thousands of times (a slot is read in a
    third of a dict-held attribute's time), and a copy is made as a twin class with the
    same slots, filled by plain assignments, that becomes `cls` once filled (the 49-field
    combatant: 1.3 µs, against 0.5 µs by a dict merge and 2.2 µs by the frozen class's
    ``object.__setattr__`` per field). For values read far more often than copied."""
    names = tuple(f.name for f in dataclasses.fields(cls))
    if getattr(cls, "__slots__", None) != names:
        raise TypeError(f"{cls.__name__}: slotted takes a dataclass made with slots=True")
    twin = type(f"_{cls.__name__}Copy", cls.__bases__, {"__slots__": names})  # its layout
    lines = [f"    new.{name} = value.{name}\n" for name in names]
    source = (
        "def copy(value, changes):\n    new = _new_object(twin)\n" + "".join(lines)
        + "    for name, item in changes.items():\n"
        + "        try:\n            setattr(new, name, item)\n"
        + "        except AttributeError:\n            _no_such_field(value, changes)\n"
        + "    new.__class__ = cls\n    return new\n"
    )
    namespace = {"_new_object": _new_object, "twin": twin, "cls": cls,
                 "_no_such_field": _no_such_field}  # fmt: skip
    exec(source, namespace)  # as `dataclass` makes its methods: a function of these fields
    _COPIERS[cls] = namespace["copy"]
    return cls


REMEMBERED = 16  # calls each `remembering` function keeps


def remembering(function: Callable) -> Callable:
    """`function` (pure, of immutable values, called with two or three positional
    arguments) that remembers its last few calls by the very objects passed (identity, not
    equality: comparing two encounters field by field would cost more than the call).

    A handler folds its own events to see what follows (an attack's roll, then its
    resolution), and `play` and `decide` fold the same events into the same states
    again; a policy checks the command it then gives, and its handler checks it again.
    The second call is a look-up. An entry holds the objects it is keyed by, so their ids
    cannot be another object's while it is kept; the result is shared (callers do not
    change it)."""
    remembered: dict[tuple[int, ...], tuple] = {}

    if function.__code__.co_argcount == 2:  # evolve(state, event), in_melee(state, c)

        @functools.wraps(function)
        def remembered_pair(first, second):
            key = (id(first), id(second))  # the same look-up for two: a fold's hottest call
            hit = remembered.get(key)
            if hit is not None:
                return hit[2]
            result = function(first, second)
            if len(remembered) >= REMEMBERED:
                remembered.clear()
            remembered[key] = (first, second, result)
            return result

        return remembered_pair

    @functools.wraps(function)
    def remembered_call(first, second, third=_ABSENT):
        key = (id(first), id(second), id(third))
        hit = remembered.get(key)
        if hit is not None:
            return hit[1]
        args = (first, second) if third is _ABSENT else (first, second, third)
        result = function(*args)
        if len(remembered) >= REMEMBERED:
            remembered.clear()
        remembered[key] = (args, result)
        return result

    return remembered_call


_ABSENT = object()


def trail(c, x: float, y: float) -> tuple[tuple[float, float], ...]:
    """The round's path on the map of `c` (a combatant with `x`, `y` and `path`) with the
    point it moves to: from where it stood first."""
    return (*(c.path or ((c.x, c.y),)), (x, y))


def pairs_get(pairs: tuple[tuple[str, Any], ...], key: str, default: Any = None) -> Any:
    """The value under `key` in a mapping kept as a tuple of pairs (hashable, and it
    compares by content)."""
    for name, value in pairs:
        if name == key:
            return value
    return default


class Roster:
    """The combatants of an encounter, by id: a base of each system's frozen `Encounter`
    dataclass (which has `combatants` and `next_id`). It adds no fields, so the encounter
    encodes as before."""

    __slots__ = ()  # no fields of its own: a system's slotted encounter stays slotted

    def get(self, cid):
        for combatant in self.combatants:
            if combatant.id == cid:
                return combatant
        return None

    def put(self, combatant, **changes):
        """The encounter with `combatant` in the place of the one with its id (and the
        encounter's own fields in `changes` changed too: one copy, not two)."""
        cid = combatant.id  # ids are unique: the one with it is replaced
        changes["combatants"] = tuple([combatant if c.id == cid else c for c in self.combatants])
        return copied(self, changes)

    def joined(self, combatant):
        """The encounter with `combatant` added last; `next_id` counts it, so an id is
        never given twice (not even after a removal)."""
        return changed(self, combatants=(*self.combatants, combatant), next_id=self.next_id + 1)

    def without(self, cid: str):
        return changed(self, combatants=tuple(c for c in self.combatants if c.id != cid))

    def of_character(self, character_id: int):
        """The combatant of a campaign character (its first), or None."""
        return next((c for c in self.combatants if c.character_id == character_id), None)


# The roster's command and events that are alike in every system (each system's
# AddCombatant, UpdateCombatant and CombatantAdded are its own: what they carry differs).


@dataclass(frozen=True)
class RemoveCombatant:
    id: str


@dataclass(frozen=True)
class CombatantUpdated:
    id: str
    changes: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class CombatantRemoved:
    id: str


# The commands and events alike in two or three systems: a class's name and fields are its
# encoded form in the log, so a system with the same command or event takes this one, and
# what it does there is the system's handler's and fold's.


@dataclass(frozen=True)
class EndEncounter:
    """The GM ends the encounter (every system; Phobia's and T10's by `end_encounter`)."""


@dataclass(frozen=True)
class EncounterEnded:
    pass


@dataclass(frozen=True)
class Wake:
    """The GM wakes an unconscious combatant (Aoristos, Phobia)."""

    id: str


@dataclass(frozen=True)
class Woke:
    id: str


@quick_init  # a simulated fight makes dozens (quick_init)
@dataclass(frozen=True)
class Move:
    """A move in Phobia and T10: to the map's point (`x`, `y`), its metres the straight line
    there to the centimetre; or `metres` typed without a point (old logs, the keyboard),
    the position unchanged. Given both, the point counts and `metres` is not read; one of
    `x` and `y` alone, or nothing, is refused. (Aoristos moves only to a point: its own.)"""

    id: str
    metres: float | None = None
    x: float | None = None
    y: float | None = None


@dataclass(frozen=True)
class EndTurn:
    """The combatant ends its turn (Phobia, T10)."""

    id: str


@dataclass(frozen=True)
class Pass:
    """No answer to the pending attack (Phobia: the target's, with no response; T10: no
    reaction with saved AP). Aoristos' Pass, letting a reaction go, is its own."""

    id: str


@dataclass(frozen=True)
class Acted:
    """Another action done, by its label (Phobia, T10)."""

    id: str
    label: str


# Commands from JSON-like data --------------------------------------------------------------


def bad(name: str, message: str) -> RulesError:
    """A field's refusal (the field named, so a form can show it at the field)."""
    return RulesError(message, code="bad_field", field=name)


@dataclass(frozen=True)
class FieldReader:
    """Reads a command field's JSON value by the field's annotation (bool, int, float, str,
    dict, a tuple of str, or one of them or None), refusing a bad one with `bad`. An int is
    -1000 to 1000 (a character id: a database id); a text at most `MAX_TEXT` characters.

    What the systems read differently is given: `max_number` bounds a float either way
    (metres, map coordinates); `entry(name, key, item)` checks one item of a dict field
    (the system's keys and numbers) and returns it as (key, value); `forms` also takes
    what a page's form or query string posts (1 or 0 for a yes/no, 2.0 for 2, a number
    for a text)."""

    max_number: float
    entry: Callable[[str, Any, Any], tuple[str, Any]]
    forms: bool = True

    def __call__(self, name: str, kind: Any, value: Any) -> Any:
        origin = get_origin(kind)
        args = get_args(kind)
        if origin is not None and type(None) in args:  # X | None
            if value is None:
                return None
            inner = [a for a in args if a is not type(None)]
            return self(name, inner[0], value)
        if kind is bool:
            numeric = isinstance(value, int) and not isinstance(value, bool)
            if self.forms and numeric and value in (0, 1):
                return bool(value)  # a query string's aim=1
            if not isinstance(value, bool):
                raise bad(name, f"{name} must be true or false")
            return value
        if kind is int:
            if self.forms and isinstance(value, float) and value.is_integer():
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, int):
                raise bad(name, f"{name} must be a whole number")
            low, high = (1, MAX_ID) if name == "character_id" else (-1000, 1000)
            if not low <= value <= high:
                raise bad(name, f"{name} is out of range")
            return value
        if kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise bad(name, f"{name} must be a number")
            if not math.isfinite(value) or abs(value) > self.max_number:
                raise bad(name, f"{name} is out of range")
            return round(float(value), 2)
        if kind is str:
            if self.forms and isinstance(value, (int, float)) and not isinstance(value, bool):
                value = str(value)  # a form's number-looking text
            if not isinstance(value, str) or len(value) > MAX_TEXT:
                raise bad(name, f"{name} must be text (at most {MAX_TEXT} characters)")
            return value.strip()
        if kind is dict:
            if not isinstance(value, dict) or len(value) > MAX_ENTRIES:
                raise bad(name, f"{name} must be an object")
            return dict(self.entry(name, key, item) for key, item in value.items())
        if origin is tuple and args and args[0] is str:
            if not isinstance(value, (list, tuple)) or len(value) > 10:
                raise bad(name, f"{name} must be a list")
            return tuple(self(name, str, item) for item in value)
        raise bad(name, f"{name} cannot be given here")


@functools.cache
def command_shape(cls: type) -> tuple[dict, tuple, frozenset]:
    """A command class's type hints, fields and the names a command may carry, worked out
    once per class (`get_type_hints` alone cost more than the rest of a command's reading)."""
    fields = dataclasses.fields(cls)
    return get_type_hints(cls), fields, frozenset(f.name for f in fields) | {"type"}


def read_command(
    data: Any,
    commands: Mapping[str, type],
    read: Callable[[str, Any, Any], Any],
    special: Mapping[str, Callable[[Any], Any]] | None = None,
) -> tuple[type, dict]:
    """A command's class and its fields' values from `{"type": "attack", "id": "c1", ...}`:
    the type looked up in `commands`, unknown fields and missing required ones refused,
    each given field read by `read(name, annotation, value)` (a `FieldReader`), or by
    `special[name](value)` for the fields a system reads its own way (a stat block's
    weapons from the catalogue). The system checks what the values mean, then makes it."""
    if not isinstance(data, dict):
        raise RulesError("a command is an object with a type", code="bad_command")
    kind = data.get("type")
    cls = commands.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise RulesError(f"unknown command type {kind!r}", code="unknown_command")
    hints, fields, names = command_shape(cls)
    unknown = set(data) - names
    if unknown:
        raise RulesError(
            f"unknown fields for {kind}: {', '.join(sorted(map(str, unknown)))}", code="bad_field"
        )
    special = special or {}
    values = {}
    for f in fields:
        if f.name not in data:
            if f.default is MISSING and f.default_factory is MISSING:
                raise RulesError(f"{kind} needs {f.name}", code="missing_field", field=f.name)
            continue
        if f.name in special:
            values[f.name] = special[f.name](data[f.name])
        else:
            values[f.name] = read(f.name, hints[f.name], data[f.name])
    return cls, values


def catalogue_items(
    name: str, raw: Any, catalogue: Mapping | None, from_dict: Callable, types: tuple[type, ...]
) -> tuple:
    """A stat block's weapons or armour (`name`): each entry an item already made (one of
    `types`), an item's data (read by `from_dict`), or a key of the campaign's `catalogue`
    (whose entries are items or their stored data)."""
    if not isinstance(raw, (list, tuple)) or len(raw) > MAX_ITEMS:
        raise bad(name, f"{name} must be a list")
    items = []
    for entry in raw:
        if isinstance(entry, types):
            items.append(entry)
        elif isinstance(entry, dict):
            items.append(from_dict(entry))
        elif isinstance(entry, str) and catalogue is not None and entry in catalogue:
            item = catalogue[entry]
            items.append(item if isinstance(item, types) else from_dict(item))
        else:
            raise bad(name, f"no {name} {entry!r} in the catalogue")
    return tuple(items)


def starter_items(
    weapons: Sequence[tuple[Mapping, Mapping[str, str]]],
    armour: Sequence[tuple[Mapping, Mapping[str, str]]],
    weapon_from_dict: Callable,
    armour_from_dict: Callable,
) -> dict[str, dict]:
    """A starter catalogue from its written data: {"weapon": {key: item}, "armour": ...},
    a new dict each call (the app lays the campaign's own entries over it). Each entry is
    (its data, the sources of its values): every value of the item gets a source, the one
    named (where the rule text gives it), else "house" (our default, the GM's to change)."""

    def sourced(item, sources: Mapping[str, str]):
        names = [f.name for f in dataclasses.fields(item) if f.name not in ("key", "sources")]
        return dataclasses.replace(
            item, sources=tuple((name, sources.get(name, "house")) for name in names))

    return {
        "weapon": {d["key"]: sourced(weapon_from_dict(d), s) for d, s in weapons},
        "armour": {d["key"]: sourced(armour_from_dict(d), s) for d, s in armour},
    }


def stat_block_fields(
    weapons: Mapping | None,
    armour: Mapping | None,
    weapon_from_dict: Callable,
    armour_from_dict: Callable,
    types: tuple[type, ...],
) -> dict[str, Callable[[Any], Any]]:
    """`read_command`'s special fields of an add_combatant that takes its gear as items,
    their data or keys of the campaign's catalogues (`catalogue_items`), and a body carried
    from an earlier fight (`carried`, read as is: the engine reads it strictly when the
    command is decided)."""
    return {
        "weapons": lambda raw: catalogue_items("weapons", raw, weapons, weapon_from_dict, types),
        "armour": lambda raw: catalogue_items("armour", raw, armour, armour_from_dict, types),
        "carried": lambda raw: raw,
    }


def weapon_names(data: Any, fields: Iterable[str], read: Callable) -> tuple[str, str]:
    """A weapon's data (a catalogue entry, a stat block's) read as far as Phobia's and
    T10's go alike: refused unless an object of the known `fields` only; its name and its
    key (the name where it gives none), each read by `read` (the system's `FieldReader`).
    The system checks them and reads the rest."""
    if not isinstance(data, dict):
        raise bad("weapons", "a weapon is an object")
    unknown = set(data) - set(fields)
    if unknown:
        raise bad("weapons", f"unknown weapon fields: {', '.join(sorted(map(str, unknown)))}")
    name = read("name", str, data.get("name", ""))
    return name, read("key", str, data.get("key") or name)


def armour_names(data: Any, field: str, read: Callable) -> tuple[str, str]:
    """Armour's data read as far as Phobia's and T10's go alike: refused unless an object
    of key, name, `field` (its protection: Phobia's areas, T10's Kroppsskydd) and the
    values' sources; its name and key, as `weapon_names` reads them."""
    if not isinstance(data, dict) or set(data) - {"key", "name", field, "sources"}:
        raise bad("armour", f"armour is an object with key, name and {field}")
    name = read("name", str, data.get("name", ""))
    return name, read("key", str, data.get("key") or name)


def add_inline_weapon(
    values: dict, weapon, field: str, low: int, high: int, range_text: str
) -> None:
    """An add_combatant's `values` with `weapon` (made from a form's flat `weapon_*`
    fields) added to its weapons, and the skill value the form gave with it (`field`,
    `low` to `high`; refused with `range_text`, a format with field, low and high) to its
    skills, where they do not give that skill already."""
    values["weapons"] = (*values.get("weapons", ()), weapon)
    value = values.get(field)
    if value is not None:
        if not low <= value <= high:
            raise bad(field, range_text.format(field=field, low=low, high=high))
        values["skills"] = {weapon.skill: value, **(values.get("skills") or {})}


def item_from_dict(kind: str, data: Any, weapon_from_dict: Callable, armour_from_dict: Callable):
    """A campaign's own catalogue entry of `kind` ("weapon" or "armour") from its stored
    JSON; RulesError if malformed."""
    if kind == "weapon":
        return weapon_from_dict(data)
    if kind == "armour":
        return armour_from_dict(data)
    raise RulesError(f"unknown catalogue kind {kind!r}")


def character_command(name: str, **fields) -> dict:
    """An add_combatant command's data for a campaign character (not an NPC), its name cut
    to a command's text."""
    return {"type": "add_combatant", "name": name[:MAX_TEXT], "npc": False, **fields}


# decide --------------------------------------------------------------------------------------


def refuse(template: str, code: str = "refused", **params):
    """Refuse a command: `template` (marked for translation, str.format placeholders) is
    filled with `params`; the app shows it translated (RulesError.template)."""
    raise RulesError(template.format(**params), code=code, template=template, **params)


def out_of_range(field: str, low, high):
    refuse(_("{field} must be {low} to {high}"), "bad_field", field=field, low=low, high=high)


def combatant(state, cid):
    """The combatant with id `cid`; refused when there is none. (`state.get` unrolled:
    a simulated fight looks combatants up two hundred times.)"""
    for found in state.combatants:
        if found.id == cid:
            return found
    refuse(_("no combatant {id!r} in this encounter"), "no_combatant", id=cid)


def require_open(state) -> None:
    if state.ended:
        refuse(_("the encounter has ended"), "ended")


def decide(
    state, command, rng, handlers: Mapping[type, Callable], evolve: Callable, settle: Callable
) -> tuple:
    """A command's events: its handler's (`handlers[type(command)](state, command, rng)`),
    then what follows by itself once they are in (`settle(state, rng)`). With the table's
    own dice (`rules.table_dice`), what waits for them."""

    def decided(state, command, rng):
        events, after = _handled(state, command, rng, handlers, evolve)
        return events + settle(after, rng)

    if type(rng) is not TableDice and getattr(state, "asked", None) is None:
        return tuple(decided(state, command, rng))
    return tuple(table_dice.run(state, command, rng, decided))


def play(
    state, command, rng, handlers: Mapping[type, Callable], evolve: Callable, settled: Callable
) -> tuple[tuple, Any]:
    """`decide` and the state after its events, folded once (a simulation plays thousands
    of commands: `decide` folds them to settle, and folding them again cost as much);
    `settled(state, rng)` gives what follows by itself and the state after it."""
    if type(rng) is TableDice or getattr(state, "asked", None) is not None:
        events = decide(state, command, rng, handlers, evolve, lambda s, r: settled(s, r)[0])
        for event in events:
            state = evolve(state, event)
        return events, state
    events, after = _handled(state, command, rng, handlers, evolve)
    more, after = settled(after, rng)
    return tuple(events + more), after


class Folded(list):
    """A handler's events with the state after them (`after`), when the handler folded
    them itself on its way (an attack folds each step to see what follows): `play` and
    `decide` take `after` instead of folding them again. `before` is the state they were
    folded from; a handler that hands on events folded from another state (an extended
    activity's completion) is folded again, not trusted."""

    __slots__ = ("before", "after")

    def __init__(self, before, events: list, after):
        list.__init__(self, events)
        self.before = before
        self.after = after


def _handled(state, command, rng, handlers: Mapping[type, Callable], evolve: Callable):
    """The handler's events and the state after them."""
    handler = handlers.get(type(command))
    if handler is None:
        refuse(_("unknown command {command}"), "unknown_command", command=type(command).__name__)
    events = handler(state, command, rng)
    if type(events) is Folded and events.before is state:
        return events, events.after
    events = list(events)
    after = state
    for event in events:
        after = evolve(after, event)
    return events, after


def settle(state, rng, next_settlement: Callable, evolve: Callable, limit: int) -> list:
    """What follows by itself: the events of `next_settlement(state, rng)`, folded in, until
    it has none. Still more after `limit` steps is a bug (the tests rule it out)."""
    return settled(state, rng, next_settlement, evolve, limit)[0]


def settled(state, rng, next_settlement: Callable, evolve: Callable, limit: int) -> tuple:
    """`settle`'s events and the state after them (for `play`)."""
    out = []
    for _step in range(limit):
        events = next_settlement(state, rng)
        if not events:
            return out, state
        for event in events:
            state = evolve(state, event)
        out += events
    raise AssertionError("the round does not settle")


def newcomer(state, cmd) -> dict:
    """The fields an add_combatant gives every system's new combatant: the next id and the
    command's name (refused when empty), side, npc, character and seat."""
    if not cmd.name:
        refuse(_("a combatant needs a name"), "bad_field", field="name")
    return {
        "id": f"c{state.next_id}",
        "name": cmd.name,
        "side": cmd.side or "a",
        "npc": cmd.npc,
        "character_id": cmd.character_id,
        "seat": cmd.seat,
    }


def check_weapons(weapons: Sequence, held: Iterable[str | None]) -> None:
    """Refuse a stat block that lists a weapon twice, or holds (`held`: weapon keys, None
    for an empty hand) one it does not list."""
    keys = [w.key for w in weapons]
    if len(set(keys)) != len(keys):
        refuse(_("a weapon is listed twice"), "bad_field", field="weapons")
    for key in held:
        if key is not None and key not in keys:
            refuse(_("{hand!r} is not among the combatant's weapons"), "bad_field", hand=key)


def updated(cid: str, changes: Sequence[tuple[str, Any]]) -> CombatantUpdated:
    """The GM's update of a combatant: refused when it changes nothing."""
    if not changes:
        refuse(_("nothing to change"), "nothing")
    return CombatantUpdated(cid, tuple(changes))


def remove_combatant(state, cmd: RemoveCombatant, rng) -> list:
    """The GM's RemoveCombatant, only before the fight starts: once it has, the
    log names everyone in it."""
    require_open(state)
    c = combatant(state, cmd.id)
    if state.round:
        refuse(
            _("{name} is in the fight: once it has started, nobody leaves the encounter's list"),
            "started",
            name=c.name,
        )
    return [CombatantRemoved(c.id)]


def end_encounter(state, cmd: EndEncounter, rng) -> list:
    """The GM's EndEncounter (Phobia's and T10's): refused once it has ended."""
    require_open(state)
    return [EncounterEnded()]


class LowestDice:
    """An rng whose every die shows its lowest face: for trying a command for whether it
    is allowed now, or what it costs, which no die decides."""

    def randint(self, a: int, b: int) -> int:
        return a


class _Rolled(Exception):
    """A command being probed has come to its first die."""


class UpToTheDice:
    """An rng that stops a command at its first die (`refused_before_dice`)."""

    def randint(self, a: int, b: int) -> int:
        raise _Rolled


def refused_before_dice(decide: Callable, state, command) -> RulesError | None:
    """Why the rules refuse `command` now, or None if they take it: `decide` with an rng
    that stops it at its first die. For a system whose handlers check a command before
    they roll for it, so the answer is the one `decide` with `LowestDice` gives; but what
    follows is not carried out (a policy that tries an answer to an attack would resolve
    the whole attack, wound and all, before the play does it again)."""
    try:
        decide(state, command, UpToTheDice())
    except _Rolled:
        return None
    except RulesError as error:
        return error
    return None


# What a viewer sees ------------------------------------------------------------------------


def decided(decide: Callable, state, command) -> tuple[tuple, dict | None]:
    """What the engine's own `decide` makes of `command` (with `random.Random(0)`, for the
    previews of the battle map): its events and None, or no events and the refusal (the
    error's code, untranslated template and params)."""
    try:
        return tuple(decide(state, command, random.Random(0))), None
    except RulesError as error:
        return (), {"code": error.code, "message": error.template or str(error),
                    "params": dict(error.params)}


def move_preview_base(cid: str, x: float, y: float, refused: dict | None, **values) -> dict:
    """A move preview's keys in every system (the map reads them), with `values` set: the
    metres, the cost in the system's `unit` or its `mode`, Aoristos' KP now and later, the
    foes escaped and the watchers."""
    return {"id": cid, "x": x, "y": y, "metres": 0.0, "cost": None, "unit": "", "mode": "",
            "cp": 0, "extended": False, "now": 0, "later": 0, "escape": [], "watchers": [],
            "refused": refused, **values}


def sees_numbers(c, viewer: Viewer) -> bool:
    """An NPC's numbers are the GM's; a character's are everyone's at the table."""
    return viewer.is_gm or (c is not None and not c.npc)


def mine(c, viewer: Viewer) -> bool:
    """Whether `viewer` commands `c` (the GM commands everyone)."""
    return viewer.is_gm or c.id in viewer.controls


def percent(p: Fraction) -> float:
    return round(float(p) * 100, 1)


def why_of(why) -> dict:
    """Why something cannot be done (a RulesError, English text or nothing): its English
    message, and its template and params for the page to translate."""
    if isinstance(why, RulesError):
        return {"why": str(why), "why_template": why.template, "why_params": why.params}
    return {"why": why or "", "why_template": "", "why_params": {}}


def combatant_basics(state, c, status: str) -> dict:
    """What a panel shows everyone of a combatant, in Phobia and T10 alike (`status`: the
    system's word for where it stands in the turn)."""
    return {
        "id": c.id,
        "name": c.name,
        "side": c.side,
        "npc": c.npc,
        "character_id": c.character_id,
        "alive": c.alive,
        "conscious": c.conscious,
        "active": state.active == c.id,
        "status": status,
        "in_cover": c.in_cover,
    }


def name_of(state, cid: str | None) -> str:
    c = state.get(cid)
    return c.name if c is not None else ""


def joined_line(c, carried: bool) -> dict:
    """The log line of a combatant added (`carried`: it brings a body from an earlier
    fight)."""
    return {"kind": "CombatantAdded", "id": c.id, "name": c.name, "npc": c.npc, "side": c.side,
            "carried": carried}


def event_line(state, event) -> dict:
    """A log line's start: the event's kind and the names of the combatants it names."""
    line: dict = {"kind": type(event).__name__}
    for field in ("id", "attacker", "target", "source"):
        value = getattr(event, field, None)
        if isinstance(value, str) and value:
            line[f"{field}_name"] = name_of(state, value)
    return line


def attack_parties(state, cmd) -> tuple:
    """An attack preview's attacker, target and weapon; a RulesError (with its template,
    so the page says it in its language) when one is not there."""
    attacker = combatant(state, cmd.id)
    target = combatant(state, cmd.target)
    weapon = attacker.weapon(cmd.weapon)
    if weapon is None:
        refuse(_("{name} has no weapon {weapon!r}"), "no_weapon", name=attacker.name,
               weapon=cmd.weapon)
    return attacker, target, weapon


# The engine object ---------------------------------------------------------------------------


def house_values(table: Sequence[Mapping], raw: Mapping | None, range_text: str) -> dict:
    """A campaign's house rule values that `table` (each rule's key, kind, bounds or
    choices) knows, read strictly; keys it does not know are left out (a rule since
    dropped). `range_text` is the system's refusal of a number out of bounds (a format
    with key, minimum and maximum)."""
    rules = {rule["key"]: rule for rule in table}
    return {
        key: _house_value(rules[key], value, range_text)
        for key, value in dict(raw or {}).items()
        if key in rules
    }


def _house_value(rule: Mapping, raw: Any, range_text: str) -> Any:
    key = rule["key"]
    if rule["kind"] == "bool":
        if not isinstance(raw, bool):
            raise RulesError(f"{key} must be yes or no")
        return raw
    if rule["kind"] == "choice":
        if raw not in {value for value, _label in rule["choices"]}:
            raise RulesError(f"{key} must be one of {', '.join(v for v, _ in rule['choices'])}")
        return raw
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)  # a form's number field
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise RulesError(f"{key} must be a whole number")
    low, high = rule["minimum"], rule["maximum"]
    if not low <= raw <= high:
        raise RulesError(range_text.format(key=key, minimum=low, maximum=high))
    return raw


class SystemCombat:
    """A rule system's engine object (its `ENGINE`, the shape of
    `rules.engine.CombatEngine`): the calls every system answers the same way are handed
    to its modules (`commands`: parse_command and Attack; `rules`: decide, evolve and
    actor_of; `views`: view, describe and attack_preview). A system's subclass names its
    `system`, `template` and `event_types` and adds what is its own (new_state, who may
    answer a prompt that waited, its catalogue fields and character blocks)."""

    system: str
    template: str
    event_types: Mapping[str, type]
    # The key of the starter catalogue's weapon a combatant added with none fights with
    # (its fists), in a system whose attacks are all made with a weapon; None: the system
    # has its own unarmed attack (Aoristos: Slagsmål) or none.
    unarmed: str | None = None

    def __init__(
        self,
        commands: ModuleType,
        rules: ModuleType,
        views: ModuleType,
        house_rules: Sequence[Mapping[str, Any]] = (),
        policy: ModuleType | None = None,
    ):
        self._commands = commands
        self._rules = rules
        self._views = views
        self._house_rules = house_rules
        self._policy = policy
        played = getattr(rules, "play", None)
        if played is not None:  # the system's own `play`, called with no layer between
            self.play = played  # (a simulation plays tens of thousands of commands)

    def house_rules(self):
        return self._house_rules

    def parse_command(self, data, *, weapons=None, armour=None):
        return self._commands.parse_command(data, weapons=weapons, armour=armour)

    def actor_of(self, state, command) -> str | None:
        return self._rules.actor_of(state, command)

    def decide(self, state, command, rng):
        return self._rules.decide(state, command, rng)

    def evolve(self, state, event):
        return self._rules.evolve(state, event)

    def play(self, state, command, rng) -> tuple[tuple, Any]:
        """`decide`'s events and the state after them: `decide` then `evolve` (a system
        whose rules have a `play` that folds them once has it instead, see `__init__`)."""
        events = self._rules.decide(state, command, rng)
        for event in events:
            state = self._rules.evolve(state, event)
        return events, state

    @property
    def policy(self) -> ModuleType:
        """The system's default policy for simulated fights (`rules.simulation`)."""
        if self._policy is None:
            raise RulesError("this system has no simulation policy yet")
        return self._policy

    # `names`: the campaign's own names for its system's stats, by key. A system whose
    # house rules name some (T10's abilities) sets `named_stats` and its views take them;
    # the others' names are fixed.
    named_stats = False

    def _named(self, names: Mapping[str, str] | None) -> dict:
        return {"names": names} if names and self.named_stats else {}

    def view(self, state, viewer: Viewer, names: Mapping[str, str] | None = None) -> dict:
        return self._views.view(state, viewer, **self._named(names))

    def describe(
        self, state, events, viewer: Viewer, names: Mapping[str, str] | None = None
    ) -> list[dict]:
        return self._views.describe(state, events, viewer, **self._named(names))

    def preview(
        self, state, command, viewer: Viewer = GM_VIEW, names: Mapping[str, str] | None = None
    ) -> dict:
        """An attack's odds and costs; a move's KP where the system previews moves (its
        views' `move_preview`: Aoristos, p. 6-7, 10-11). Anything else is refused."""
        move = getattr(self._commands, "Move", None)
        if move is not None and isinstance(command, move) and hasattr(self._views, "move_preview"):
            return self._views.move_preview(state, command.id, command.x, command.y)
        # Aoristos: where a vigilance move with RÖR would take the target (p. 9).
        vigil = getattr(self._commands, "Vigilance", None)
        if vigil is not None and isinstance(command, vigil) and hasattr(
            self._views, "vigilance_preview"
        ):
            return self._views.vigilance_preview(
                state, command.id, command.x, command.y, command.prone
            )
        if not isinstance(command, self._commands.Attack):
            raise RulesError("only attacks have a preview")
        return self._views.attack_preview(state, command, viewer, **self._named(names))

    def catalogue(self) -> dict[str, dict]:
        """No starter catalogue (the text lists no gear): the campaign's own entries only."""
        return {"weapon": {}, "armour": {}}

    def item_from_dict(self, kind: str, data):
        """A campaign's own catalogue entry from its stored JSON; RulesError if malformed."""
        commands = self._commands
        return item_from_dict(kind, data, commands.weapon_from_dict, commands.armour_from_dict)
