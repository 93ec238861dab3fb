"""Commands to an Aoristos encounter, and `parse_command` from JSON-like data.

A command says what someone wants; `engine.decide` refuses it with a reason or returns
what happens. `parse_command` is strict: unknown types and fields, wrong types and values
out of range are refused with a RulesError naming the field.
"""

import math
from dataclasses import MISSING, dataclass, fields
from typing import Any, get_args, get_origin, get_type_hints

from rules.aoristos.combat.gear import AREAS, Armour, Weapon
from rules.engine import MAX_ID
from rules.errors import RulesError

MAX_COORD = 10_000.0
MAX_TEXT = 100


# Set-up, the GM's -------------------------------------------------------------------------


@dataclass(frozen=True)
class AddCombatant:
    """A combatant from a stat block (the app turns a character or an NPC template into
    one)."""

    name: str
    side: str = "a"
    npc: bool = True
    character_id: int | None = None
    seat: int = 0
    physique: int = 1
    composure: int = 1
    agility: int = 1
    alertness: int = 1
    willpower: int = 1
    skills: dict | None = None
    drive: int | None = None
    toughness: int | None = None
    shock_tolerance: int | None = None
    movement: int | None = None
    weapons: tuple[Weapon, ...] = ()
    armour: tuple[Armour, ...] = ()
    x: float = 0.0
    y: float = 0.0
    posture: str = "standing"
    right: str | None = None
    left: str | None = None


@dataclass(frozen=True)
class UpdateCombatant:
    """The GM places a combatant and sets what the text leaves to the table: position,
    posture, side, awareness, areas hidden by the body, cover per area."""

    id: str
    x: float | None = None
    y: float | None = None
    posture: str | None = None
    side: str | None = None
    aware: bool | None = None
    hidden_areas: tuple[str, ...] | None = None
    cover: dict | None = None


@dataclass(frozen=True)
class RemoveCombatant:
    id: str


@dataclass(frozen=True)
class SetSurprise:
    side: str
    hand: str = ""


@dataclass(frozen=True)
class StartCombat:
    pass


@dataclass(frozen=True)
class SingleAttack:
    """One attack with the combat rules, outside a fight (p. 6): the attacker may aim and
    the target keep vigilance with as much as a round's KP allows."""

    attacker: str
    target: str


@dataclass(frozen=True)
class EndEncounter:
    pass


@dataclass(frozen=True)
class Wake:
    id: str


@dataclass(frozen=True)
class Hazard:
    """The GM applies a hazard's strength (e.g. barbed wire 1B, p. 12) to an area."""

    id: str
    hand: str
    area: str | None = None
    label: str = ""


@dataclass(frozen=True)
class Skip:
    """The GM ends the active combatant's activation (an absent player)."""


# A combatant's own ------------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    id: str
    x: float
    y: float


@dataclass(frozen=True)
class ChangePosture:
    id: str
    posture: str


@dataclass(frozen=True)
class Talk:
    id: str
    syllables: int


@dataclass(frozen=True)
class Scan:
    id: str


@dataclass(frozen=True)
class Draw:
    """Take a weapon in hand (`hand` right/left/both)."""

    id: str
    weapon: str
    hand: str = "right"


@dataclass(frozen=True)
class Ready:
    id: str
    weapon: str


@dataclass(frozen=True)
class Stow:
    id: str
    hand: str = "right"


@dataclass(frozen=True)
class Drop:
    """Let go of what a hand holds: free (p. 7)."""

    id: str
    hand: str = "right"


@dataclass(frozen=True)
class SwitchHands:
    id: str


@dataclass(frozen=True)
class PickUp:
    id: str
    weapon: str
    hand: str = "right"


@dataclass(frozen=True)
class Windup:
    id: str
    weapon: str


@dataclass(frozen=True)
class AbortWindup:
    """For 1 KP the windup is undone and the projectile kept (p. 7)."""

    id: str


@dataclass(frozen=True)
class Reload:
    id: str
    weapon: str
    rounds: int | None = None  # for "(n)" weapons: cartridges to push in


@dataclass(frozen=True)
class RangeAim:
    id: str
    target: str
    levels: int = 1


@dataclass(frozen=True)
class Overwatch:
    id: str
    x: float
    y: float


@dataclass(frozen=True)
class Attack:
    id: str
    target: str
    weapon: str = "unarmed"
    aim: int = 0
    mode: str = ""  # a fire mode's text, e.g. "3" or "auto+2N"; "" the first
    shots: int | None = None  # auto: the chosen base
    area: str | None = None  # the area wanted if the area dice allow a choice


@dataclass(frozen=True)
class Vigilance:
    """The target's choice (p. 8): at most three properties; `default` takes the offer."""

    id: str
    properties: tuple[str, ...] = ()
    default: bool = False


@dataclass(frozen=True)
class Proceed:
    id: str


@dataclass(frozen=True)
class Abort:
    id: str


@dataclass(frozen=True)
class Pass:
    """Let a reaction go (p. 10-11): no free attack on the one leaving melee; on overwatch,
    the voluntary SIN test to hold fire."""

    id: str


@dataclass(frozen=True)
class Continue:
    """Pay on an extended activity (p. 6)."""

    id: str


@dataclass(frozen=True)
class EndActivation:
    id: str


COMMANDS: dict[str, type] = {
    "add_combatant": AddCombatant,
    "update_combatant": UpdateCombatant,
    "remove_combatant": RemoveCombatant,
    "set_surprise": SetSurprise,
    "start": StartCombat,
    "single_attack": SingleAttack,
    "end": EndEncounter,
    "wake": Wake,
    "hazard": Hazard,
    "skip": Skip,
    "move": Move,
    "posture": ChangePosture,
    "talk": Talk,
    "scan": Scan,
    "draw": Draw,
    "ready": Ready,
    "stow": Stow,
    "drop": Drop,
    "switch_hands": SwitchHands,
    "pick_up": PickUp,
    "windup": Windup,
    "abort_windup": AbortWindup,
    "reload": Reload,
    "range_aim": RangeAim,
    "overwatch": Overwatch,
    "attack": Attack,
    "vigilance": Vigilance,
    "proceed": Proceed,
    "abort": Abort,
    "pass": Pass,
    "continue": Continue,
    "end_activation": EndActivation,
}
COMMAND_NAMES = {cls: name for name, cls in COMMANDS.items()}
COMMAND_TYPES = {cls.__name__: cls for cls in COMMANDS.values()}



def _convert(name: str, kind: Any, value: Any) -> Any:
    origin = get_origin(kind)
    args = get_args(kind)
    if origin is not None and type(None) in args:  # X | None
        if value is None:
            return None
        inner = [a for a in args if a is not type(None)]
        return _convert(name, inner[0], value)
    if kind is bool:
        if not isinstance(value, bool):
            raise RulesError(f"{name} must be true or false", code="bad_field", field=name)
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(f"{name} must be a whole number", code="bad_field", field=name)
        low, high = (1, MAX_ID) if name == "character_id" else (-1000, 1000)
        if not low <= value <= high:
            raise RulesError(f"{name} is out of range", code="bad_field", field=name)
        return value
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RulesError(f"{name} must be a number", code="bad_field", field=name)
        if not math.isfinite(value) or abs(value) > MAX_COORD:
            raise RulesError(f"{name} is out of range", code="bad_field", field=name)
        return round(float(value), 2)
    if kind is str:
        if not isinstance(value, str) or len(value) > MAX_TEXT:
            raise RulesError(
                f"{name} must be text (at most {MAX_TEXT} characters)", code="bad_field", field=name
            )
        return value.strip()
    if kind is dict:
        if not isinstance(value, dict) or len(value) > 40:
            raise RulesError(f"{name} must be an object", code="bad_field", field=name)
        out = {}
        for key, item in value.items():
            if isinstance(item, bool) or not isinstance(item, int) or not 0 <= item <= 100:
                raise RulesError(
                    f"{name}.{key} must be a whole number 0-100", code="bad_field", field=name
                )
            out[str(key)[:MAX_TEXT]] = item
        return out
    if origin is tuple and args and args[0] is str:
        if not isinstance(value, (list, tuple)) or len(value) > 10:
            raise RulesError(f"{name} must be a list", code="bad_field", field=name)
        return tuple(_convert(name, str, item) for item in value)
    raise RulesError(f"{name} cannot be given here", code="bad_field", field=name)


def parse_command(data: Any, *, weapons=None, armour=None) -> Any:
    """A command from `{"type": "attack", "id": "c1", ...}`. Weapons and armour in an
    `add_combatant` are given by key and looked up in `weapons` / `armour` (dicts of the
    campaign's catalogue)."""
    if not isinstance(data, dict):
        raise RulesError("a command is an object with a type", code="bad_command")
    kind = data.get("type")
    cls = COMMANDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise RulesError(f"unknown command type {kind!r}", code="unknown_command")
    hints = get_type_hints(cls)
    known = {f.name for f in fields(cls)}
    unknown = set(data) - known - {"type"}
    if unknown:
        raise RulesError(
            f"unknown fields for {kind}: {', '.join(sorted(map(str, unknown)))}", code="bad_field"
        )
    values = {}
    for f in fields(cls):
        if f.name not in data:
            if f.default is MISSING and f.default_factory is MISSING:
                raise RulesError(f"{kind} needs {f.name}", code="missing_field", field=f.name)
            continue
        if f.name in ("weapons", "armour"):
            catalogue = (weapons if f.name == "weapons" else armour) or {}
            raw = data[f.name]
            if not isinstance(raw, list) or len(raw) > 20:
                raise RulesError(f"{f.name} must be a list of keys", code="bad_field")
            items = []
            for key in raw:
                if not isinstance(key, str) or key not in catalogue:
                    raise RulesError(
                        f"no {f.name[:-1] if f.name == 'weapons' else 'armour'} "
                        f"{key!r} in the catalogue",
                        code="bad_field",
                        field=f.name,
                    )
                items.append(catalogue[key])
            values[f.name] = tuple(items)
            continue
        values[f.name] = _convert(f.name, hints[f.name], data[f.name])
    if "area" in values and values["area"] is not None and values["area"] not in AREAS:
        raise RulesError(f"unknown area {values['area']!r}", code="bad_field", field="area")
    return cls(**values)
