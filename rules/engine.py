"""The rule-system combat engine interface: what `combat/` (the Django app) may ask of a
rule system, and the system-free parts every engine shares (the command log with undo and
redo, and a JSON codec for events).

`combat/` knows no rule system. It stores each command's events as one *record* of the
encounter's log, numbered 1, 2, 3, ... (the encounter's version), checks the version a
command was made against, broadcasts, and renders what the engine gives it. An engine is
any object with the shape of :class:`CombatEngine`:

* **State** is an immutable value; **events** are immutable values with every die already
  rolled in them. ``decide(state, command, rng)`` refuses an illegal command with a
  :class:`~rules.RulesError` (its reason for the player) or returns the events the command
  causes; ``evolve(state, event)`` applies one event and never rolls. The state of an
  encounter is the fold of its events, so replaying them is exact and cheap.
* **Who acts.** ``actor_of(state, command)`` names the combatant a command acts for (None:
  the GM's alone). The app lets a member send it when they control that combatant.
* **Prompts.** ``view`` returns plain data for the pages and the API, with the prompts
  that wait for an answer (who must answer what, and the choices). This covers the three
  texts' shapes without the app knowing them: Aoristos' vigilance choice and abort
  decision, Phobia's declared actions for a 4-second round and its response actions, and
  T10's interrupts by saved AP (10 AP rounds, costs paid across rounds) are all commands,
  prompts and events of their engine.
* **Rendering.** ``template`` is the engine's template directory: its ``_line.html``
  renders one log record from ``describe``'s lines, its ``_state.html`` the encounter
  from ``view``'s data; both are the engine's own, translated with the site.
* **Finding an engine.** The engine of rule system ``name`` is ``ENGINE`` in
  ``rules.<name>.combat`` (:func:`engine_for`); its chronicle (the campaign's time and
  bodies after a fight, the same log and stream) is ``ENGINE`` in
  ``rules.<name>.aftermath``.
* **Building one.** What the systems' combat engines do alike (the roster, parsing
  commands, the GM's roster commands, what a viewer sees, the engine object's wiring) is
  :mod:`rules.combat_kit`'s; a system's package keeps its own rules.

Undo and redo are records too (`UNDO`, `REDO`): the GM goes back to any earlier version
and forward again without rolling anything twice; :func:`replay` folds a log with them.
"""

import dataclasses
import enum
import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from rules.errors import RulesError

__all__ = [
    "engine_for",
    "MAX_ID",
    "REDO",
    "UNDO",
    "CombatEngine",
    "Record",
    "Replay",
    "Viewer",
    "decode",
    "encode",
    "replay",
    "replay_step",
]

MAX_ID = 2**63 - 1  # a database id in a command (a character's), not a game number
UNDO = "undo"
REDO = "redo"


@dataclass(frozen=True)
class Viewer:
    """Who looks at or commands an encounter: the GM sees and commands everything; a
    player commands the combatants in `controls` (their characters)."""

    is_gm: bool
    controls: frozenset[str] = frozenset()


class CombatEngine(Protocol):
    system: str  # the campaign's rule_system value
    template: str  # template directory, e.g. "combat/aoristos"
    event_types: Mapping[str, type]  # name -> event class, for `decode`

    def new_state(self, house_rules: Mapping[str, Any]) -> Any: ...

    def house_rules(self) -> Sequence[Mapping[str, Any]]:
        """Each house rule: key, label, default, kind ("bool", "int", "choice"), choices,
        and the rule text it stands in for."""
        ...

    def parse_command(self, data: Mapping[str, Any]) -> Any:
        """A command from JSON-like data (the API's body, a form); RulesError if malformed."""
        ...

    def actor_of(self, state: Any, command: Any) -> str | None: ...

    def timeout_actor(self, state: Any, command: Any) -> str | None:
        """Who else may give `command` once the prompt it answers has waited too long
        (the default answer on an absent player's behalf), or None."""
        ...

    def decide(self, state: Any, command: Any, rng) -> tuple[Any, ...]: ...

    def evolve(self, state: Any, event: Any) -> Any: ...

    def view(self, state: Any, viewer: Viewer, names: Mapping[str, str] | None = None) -> dict:
        """The state as `viewer` may see it. `names`: the campaign's own names for the
        system's stats by key, where its house rules name them (T10's abilities)."""
        ...

    def describe(
        self,
        state: Any,
        events: Sequence[Any],
        viewer: Viewer,
        names: Mapping[str, str] | None = None,
    ) -> list[dict]:
        """The log lines of one record's events (`state`: before them), as `viewer` may
        read them."""
        ...

    def preview(
        self, state: Any, command: Any, viewer: Viewer, names: Mapping[str, str] | None = None
    ) -> dict:
        """What a command would do before it is sent (an attack's chance to hit and its
        damage distribution); RulesError for commands without one."""
        ...


# An engine kind -> its module under rules.<system>: a fight, or the campaign's chronicle
# (time and bodies after the fight).
KINDS = {"combat": "combat", "chronicle": "aftermath"}


def engine_for(system: str, kind: str = "combat") -> "CombatEngine":
    """The engine of a rule system (`kind`: "combat" or "chronicle"); RulesError when it
    has none (yet)."""
    if not isinstance(system, str) or not system.isidentifier():
        raise RulesError(f"no rule system {system!r}")
    if kind not in KINDS:
        raise RulesError(f"no engine kind {kind!r}")
    try:
        module = importlib.import_module(f"rules.{system}.{KINDS[kind]}")
    except ImportError:
        raise RulesError(f"rule system {system!r} has no {kind} engine yet") from None
    return module.ENGINE


# The log -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """One entry of an encounter's log: a command's events, or an undo to `target` (a
    version), or a redo of the last undone record."""

    version: int
    events: tuple[Any, ...] = ()
    undo_to: int | None = None
    redo: bool = False


@dataclass(frozen=True)
class Replay:
    """A folded log: the state, the versions whose events it holds (in order), and the
    records that a redo would bring back (the next one last)."""

    state: Any
    applied: tuple[int, ...] = ()
    redoable: tuple[Record, ...] = ()

    @property
    def can_undo(self) -> bool:
        return bool(self.applied)

    @property
    def can_redo(self) -> bool:
        return bool(self.redoable)


def replay_step(
    engine: CombatEngine,
    folded: Replay,
    record: Record,
    records: Callable[[Iterable[int]], Iterable[Record]],
    initial: Any,
    played: Any = None,
) -> Replay:
    """Fold one more record. An undo rebuilds the state from `initial` with the records
    (`records(versions)` returns them, in order) that stay applied; a redo applies the
    latest undone record again; anything else applies its events and forgets what could
    be redone (a new branch). `played`: for a new command's record, the state after its
    events as `engine.play` gave it with them (they are not folded again)."""
    if record.undo_to is not None:
        keep = tuple(v for v in folded.applied if v <= record.undo_to)
        dropped = [r for r in records(v for v in folded.applied if v > record.undo_to)]
        state = initial
        for kept in records(keep):
            for event in kept.events:
                state = engine.evolve(state, event)
        return Replay(state, keep, folded.redoable + tuple(reversed(dropped)))
    if record.redo:
        if not folded.redoable:
            raise RulesError("nothing to redo", code="nothing_to_redo")
        again = folded.redoable[-1]
        state = folded.state
        for event in again.events:
            state = engine.evolve(state, event)
        return Replay(state, (*folded.applied, again.version), folded.redoable[:-1])
    state = folded.state
    if played is not None:
        state = played
    else:
        for event in record.events:
            state = engine.evolve(state, event)
    return Replay(state, (*folded.applied, record.version), ())


def replay(engine: CombatEngine, initial: Any, records: Sequence[Record]) -> Replay:
    """Fold a whole log from the start (records in version order)."""
    by_version = {record.version: record for record in records}

    def lookup(versions):
        return [by_version[v] for v in versions]

    folded = Replay(initial)
    for record in records:
        folded = replay_step(engine, folded, record, lookup, initial)
    return folded


# A JSON codec for events -----------------------------------------------------------------


def encode(value: Any) -> Any:
    """Frozen dataclasses, enums, tuples, frozensets, datetimes and dicts to JSON-able
    data. A dataclass becomes a dict with its class name under "_"; a datetime
    {"_": "datetime", "iso": ...}."""
    if isinstance(value, datetime):
        return {"_": "datetime", "iso": value.isoformat()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {"_": type(value).__name__}
        for field in dataclasses.fields(value):
            data[field.name] = encode(getattr(value, field.name))
        return data
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [encode(item) for item in value]
    if isinstance(value, frozenset):
        return sorted(encode(item) for item in value)
    if isinstance(value, Mapping):
        return {str(key): encode(item) for key, item in value.items()}
    return value


def decode(data: Any, types: Mapping[str, type]) -> Any:
    """The inverse of :func:`encode` for classes named in `types`; lists become tuples."""
    if isinstance(data, list):
        return tuple(decode(item, types) for item in data)
    if isinstance(data, dict):
        name = data.get("_")
        if name is None:
            return {key: decode(item, types) for key, item in data.items()}
        if name == "datetime":
            try:
                return datetime.fromisoformat(data["iso"])
            except (KeyError, TypeError, ValueError):
                raise RulesError(f"unreadable stored time {data!r}") from None
        cls = types.get(name)
        if cls is None:
            raise RulesError(f"unknown stored type {name!r}")
        values = {}
        for field_name, is_set in _decoded_fields(cls):
            if field_name in data:
                value = decode(data[field_name], types)
                if is_set and isinstance(value, tuple):
                    value = frozenset(value)
                values[field_name] = value
        return cls(**values)
    return data


_DECODED_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _decoded_fields(cls: type) -> tuple[tuple[str, bool], ...]:
    """A class's field names, and which are frozensets (stored as lists): once per class."""
    found = _DECODED_FIELDS.get(cls)
    if found is None:
        found = _DECODED_FIELDS[cls] = tuple(
            (field.name, "frozenset" in str(field.type)) for field in dataclasses.fields(cls)
        )
    return found
