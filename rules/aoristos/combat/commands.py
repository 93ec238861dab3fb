"""Commands to an Aoristos encounter, and `parse_command` from JSON-like data.

A command says what someone wants; `engine.decide` refuses it with a reason or returns
what happens. `parse_command` is strict: unknown types and fields, wrong types and values
out of range are refused with a RulesError naming the field.
"""

from dataclasses import dataclass
from typing import Any

from rules import scene
from rules.aoristos.combat.gear import AREAS, LIMBS, Armour, Weapon
from rules.combat_kit import (  # its end and wake: the kit's
    MAX_TEXT,
    EndEncounter,
    FieldReader,
    RemoveCombatant,
    Wake,
    bad,
    quick_init,
    read_command,
)
from rules.errors import RulesError

MAX_COORD = 10_000.0


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
    packed: tuple[str, ...] = ()  # weapon keys packed away (p. 7: taking them out costs more)


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
    hard_to_locate: bool | None = None  # cover makes it hard to locate (p. 10)
    packed: tuple[str, ...] | None = None  # weapons packed away, not in hand (p. 7)


@dataclass(frozen=True)
class SetSituation:
    """The GM's situational ST modifier on every attack from now on (issue 45; 0 takes it
    away), with what it stands for ("fog", "smoke")."""

    modifier: int = 0
    label: str = ""


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
class Hazard:
    """The GM applies a hazard's strength (e.g. barbed wire 1B, p. 12) to an area."""

    id: str
    hand: str
    area: str | None = None
    label: str = ""
    burn: bool = False  # fire or heat: a burn, which care does not heal (p. 14)


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
    # An assistant's reload of another's belt-fed weapon (p. 11: OL 5 for an assistant):
    # the gunner's id; `id` is the assistant, who acts and pays.
    gunner: str | None = None


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


@quick_init  # a simulated fight's policy makes one per attack (combat_kit.quick_init)
@dataclass(frozen=True)
class Attack:
    id: str
    target: str
    weapon: str = "unarmed"
    aim: int = 0
    mode: str = ""  # a fire mode's text, e.g. "3" or "auto+2N"; "" the first
    shots: int | None = None  # auto: the chosen base
    area: str | None = None  # the area wanted if the area dice allow a choice
    # An unarmed attack's limb (p. 8: a parry hits back "i använd lem"): a punch's arm or a
    # kick's leg; None: the striking hand the engine takes (`attacks.striking_limb`).
    limb: str | None = None


@quick_init  # a simulated fight's policy makes one per attack (combat_kit.quick_init)
@dataclass(frozen=True)
class Vigilance:
    """The target's choice (p. 8): at most three properties; `default` takes the offer.

    With RÖR, where its vigilance move (p. 9) goes: at range `x`, `y` (a point 1 m to its
    RÖR in metres away, toward known cover within 10 m or square to the line of fire;
    none: the engine's 1 m square to it), `prone` (1 m of it swapped for diving to the
    ground); in melee `followers`, the others in the melee on its side who move with it."""

    id: str
    properties: tuple[str, ...] = ()
    default: bool = False
    x: float | None = None
    y: float | None = None
    prone: bool = False
    followers: tuple[str, ...] = ()


@dataclass(frozen=True)
class ConfirmMove:
    """The GM on a vigilance move toward cover the map does not show (p. 9): `accept` it
    (the cover there hides `areas` against hits with no area, p. 12; None: the campaign's
    house rule) or not (the target chooses again)."""

    accept: bool = True
    areas: int | None = None


@dataclass(frozen=True)
class Proceed:
    id: str


@dataclass(frozen=True)
class Abort:
    id: str


@dataclass(frozen=True)
class Pass:
    """Let a reaction go (p. 9-11): no free attack on the one leaving melee; on overwatch,
    the voluntary SIN test to hold fire; not following a melee's vigilance move (stay)."""

    id: str


@dataclass(frozen=True)
class Follow:
    """Follow the target's vigilance move in a melee (p. 9: "Alla andra i striden får
    hänga på och röra sig lika långt åt samma håll, om de vill"): the foe whose "follow"
    reaction waits moves as far the same way, at no KP. `pass` stays."""

    id: str


@dataclass(frozen=True)
class Continue:
    """Pay on an extended activity (p. 6)."""

    id: str


@quick_init  # a simulated fight's policy makes one per activation
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
    "set_situation": SetSituation,
    "confirm_move": ConfirmMove,
    "proceed": Proceed,
    "abort": Abort,
    "pass": Pass,
    "follow": Follow,
    "continue": Continue,
    "end_activation": EndActivation,
    **scene.COMMANDS,  # the battle map's walls, cover and picture (GM)
}
COMMAND_NAMES = {cls: name for name, cls in COMMANDS.items()}
COMMAND_TYPES = {cls.__name__: cls for cls in COMMANDS.values()}


def _level_entry(name: str, key: Any, item: Any) -> tuple[str, int]:
    """One item of a dict field: a skill's level, an area's cover."""
    if isinstance(item, bool) or not isinstance(item, int) or not 0 <= item <= 100:
        raise bad(name, f"{name}.{key} must be a whole number 0-100")
    return str(key)[:MAX_TEXT], item


# Aoristos takes a value only as its own type (the app reads a form's text into numbers
# and yes/no before; the engines written later also take the form's shapes).
_convert = FieldReader(max_number=MAX_COORD, entry=_level_entry, forms=False)


def _catalogue_keys(name: str, raw: Any, catalogue) -> tuple:
    """A stat block's weapons or armour, by key in the campaign's catalogue."""
    catalogue = catalogue or {}
    if not isinstance(raw, list) or len(raw) > 20:
        raise RulesError(f"{name} must be a list of keys", code="bad_field")
    items = []
    for key in raw:
        if not isinstance(key, str) or key not in catalogue:
            raise RulesError(
                f"no {name[:-1] if name == 'weapons' else 'armour'} {key!r} in the catalogue",
                code="bad_field",
                field=name,
            )
        items.append(catalogue[key])
    return tuple(items)


def parse_command(data: Any, *, weapons=None, armour=None) -> Any:
    """A command from `{"type": "attack", "id": "c1", ...}`. Weapons and armour in an
    `add_combatant` are given by key and looked up in `weapons` / `armour` (dicts of the
    campaign's catalogue)."""
    special = {
        "weapons": lambda raw: _catalogue_keys("weapons", raw, weapons),
        "armour": lambda raw: _catalogue_keys("armour", raw, armour),
    }
    cls, values = read_command(data, COMMANDS, _convert, special)
    if "area" in values and values["area"] is not None and values["area"] not in AREAS:
        raise RulesError(f"unknown area {values['area']!r}", code="bad_field", field="area")
    if values.get("limb") is not None and values["limb"] not in LIMBS:
        raise RulesError(f"unknown limb {values['limb']!r}", code="bad_field", field="limb")
    return cls(**values)
