"""Commands to a Phobia encounter, and `parse_command` from JSON-like data.

`parse_command` is strict: unknown types and fields, wrong types and values out of range
are refused with a RulesError naming the field. Weapons and armour of an
`add_combatant` are catalogue keys (looked up in the campaign's catalogue) or objects;
one weapon may also come as flat `weapon_*` fields (a form's).
"""

from dataclasses import dataclass
from typing import Any

from rules import scene
from rules.combat_kit import (  # its end, wake, move, end_turn, pass: the kit's
    EndEncounter,
    EndTurn,
    FieldReader,
    Move,
    Pass,
    RemoveCombatant,
    Wake,
    add_inline_weapon,
    armour_names,
    bad,
    quick_init,
    read_command,
    stat_block_fields,
    weapon_names,
)
from rules.phobia.combat.state import AREAS, DAMAGE_TYPES, RESPONSES, Armour, Weapon

MAX_KEY = 40
MAX_METRES = 1000.0  # a move's metres (the engine refuses more)
MAX_COORD = 10_000.0  # a map coordinate in metres from the origin; bounds every float read


# The GM's ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AddCombatant:
    """A combatant from a stat block (the app turns a character or an NPC into one).
    Attributes default to 10; Turordning is given, or made from Lugn (`calm`, line 243);
    Chockvärde and Förflyttning are made from the attributes unless given (lines 181,
    271)."""

    name: str
    side: str = "a"
    npc: bool = True
    character_id: int | None = None
    seat: int = 0
    strength: int | None = None
    endurance: int | None = None
    agility: int | None = None
    personality: int | None = None
    psyche: int | None = None
    will: int | None = None
    education: int | None = None
    sight: int | None = None
    hearing: int | None = None
    luck: int | None = None
    skills: dict | None = None
    turn_order: int | None = None
    calm: int | None = None
    shock_value: int | None = None
    movement: int | None = None
    weapons: tuple[Weapon, ...] = ()
    armour: tuple[Armour, ...] = ()
    protection: dict | None = None
    cover: dict | None = None  # protection per area as the pages' forms post it
    right: str | None = None
    left: str | None = None
    weapon_name: str | None = None
    weapon_damage: int | None = None
    weapon_type: str | None = None
    weapon_skill: str | None = None
    weapon_chance: int | None = None  # the skill's value, when `skills` lacks it
    weapon_ranged: bool = False
    # A character's body from an earlier fight (PhobiaCombat.body_of): its damage, bleeding,
    # serious injuries, ongoing codes and losses go on in this encounter.
    carried: dict | None = None
    # Ob dice its load adds to every action when overloaded (lines 274-283; a character's
    # from its sheet under the campaign's house rule overload_levels).
    burden: int | None = None
    # Where it stands on the map, in metres. Not given: side "a" at x 0, any other side at
    # x 10, 1.5 m apart along y in the order they join (so tokens do not stack).
    x: float | None = None
    y: float | None = None


@dataclass(frozen=True)
class UpdateCombatant:
    """The GM sets what the text leaves to the table: side, protection per area, a + or −
    to TO (line 235), Ob dice on all the combatant's tests (lines 527-552); and places it on
    the map (`x`, `y` in metres, before or during the fight: no trail to a placement)."""

    id: str
    side: str | None = None
    protection: dict | None = None
    cover: dict | None = None  # protection per area as the pages' forms post it (cover_<area>)
    turn_order_modifier: int | None = None
    modifier: int | None = None
    burden: int | None = None  # Ob dice of an overload on every action (lines 274-283)
    x: float | None = None
    y: float | None = None


@dataclass(frozen=True)
class StartRound:
    """A new 4-second round (lines 619-623): ends the current one first."""


@dataclass(frozen=True)
class EndRound:
    """The round's 4 seconds pass: bleeding, ongoing effects, shock rolls (line 1116)."""


@dataclass(frozen=True)
class Damage:
    """The GM applies damage: `damage` already rolled at the table, or `dice` ObT6s rolled
    here; less the area's protection unless `protected` is false."""

    id: str
    damage_type: str
    area: str
    damage: int | None = None
    dice: int | None = None
    protected: bool = True
    label: str = ""


@dataclass(frozen=True)
class AdvanceTime:
    """Time passes outside the rounds (15 rounds a minute): bleeding at `activity`'s pace
    (care, normal, active; lines 1091-1095, 1124-1129) and ongoing effects."""

    minutes: int = 0
    rounds: int = 0
    activity: str = "normal"


@dataclass(frozen=True)
class Treat:
    """Medical help ends an ongoing effect (Kvävning!, Inre Skada!: lines 911-916, 937-941);
    the GM judges the help and any roll for it."""

    id: str
    code: str


# A combatant's own ---------------------------------------------------------------------------


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Declare:
    """How many active actions the turn holds (lines 653-658, 693-701); 0 is Avvakta
    (lines 749-753)."""

    id: str
    actions: int


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Attack:
    """An active action against `target` (Skjuta, Kasta, Anfalla; lines 711-723); `aim`:
    Sikta och skjuta (lines 733-743)."""

    id: str
    target: str
    weapon: str
    area: str | None = None
    aim: bool = False


@dataclass(frozen=True)
class Act:
    """Another active action (Ladda om, Använda färdighet, ...: lines 755-766)."""

    id: str
    label: str = ""


@dataclass(frozen=True)
class WaitFor:
    """Invänta mål (lines 745-750): keep one of the turn's active actions for `target`
    (a combatant's id; "" any foe), to take it just before the target's turn, this
    round or a later one."""

    id: str
    target: str = ""


@dataclass(frozen=True)
class ActNow:
    """The awaited target's turn is about to begin: take the kept active action now."""

    id: str


@dataclass(frozen=True)
class KeepWaiting:
    """Let the awaited target's turn come, and go on waiting."""

    id: str


@dataclass(frozen=True)
class Reload:
    """Ladda om (lines 758-759): reload a ranged weapon (`weapon`, else the one in hand);
    it takes the whole round's active actions."""

    id: str
    weapon: str = ""


@dataclass(frozen=True)
class UseSkill:
    """Använda färdighet (lines 761-765): begin using `skill` (a key of the combatant's
    values) over `rounds` rounds, one active action in each; the test, at Ob`difficulty`T6
    and the action's modifiers, is rolled in the last."""

    id: str
    skill: str
    rounds: int = 1
    difficulty: int = 3
    label: str = ""


@dataclass(frozen=True)
class ContinueSkill:
    """Another round of the skill in use (one active action); the last rolls the test."""

    id: str


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Respond:
    """A response action to the pending attack (lines 667-691, 771-804)."""

    id: str
    kind: str
    skill: str = ""
    weapon: str = ""
    area: str | None = None  # a shot back's


COMMANDS: dict[str, type] = {
    "add_combatant": AddCombatant,
    "update_combatant": UpdateCombatant,
    "remove_combatant": RemoveCombatant,
    "start_round": StartRound,
    "end_round": EndRound,
    "damage": Damage,
    "advance_time": AdvanceTime,
    "treat": Treat,
    "wake": Wake,
    "end": EndEncounter,
    "declare": Declare,
    "attack": Attack,
    "move": Move,  # lines 261-271; Förflytta sig, lines 724-729 (rounds._move)
    "act": Act,
    "wait_for": WaitFor,  # Invänta mål, lines 745-750
    "act_now": ActNow,
    "keep_waiting": KeepWaiting,
    "reload": Reload,  # Ladda om, lines 758-759
    "use_skill": UseSkill,  # Använda färdighet, lines 761-765
    "continue_skill": ContinueSkill,
    "end_turn": EndTurn,
    "respond": Respond,
    "pass": Pass,  # the target answers the pending attack with no response
    **scene.COMMANDS,  # the battle map's walls, cover and picture (GM)
}
COMMAND_NAMES = {cls: name for name, cls in COMMANDS.items()}
COMMAND_TYPES = {cls.__name__: cls for cls in COMMANDS.values()}
GM_ONLY = (
    AddCombatant,
    UpdateCombatant,
    RemoveCombatant,
    StartRound,
    EndRound,
    Damage,
    AdvanceTime,
    Treat,
    Wake,
    EndEncounter,
    *scene.GM_ONLY,
)


def _value_entry(name: str, key: Any, item: Any) -> tuple[str, int]:
    """One item of a dict field: a skill's value, an area's protection."""
    if isinstance(item, float) and item.is_integer():
        item = int(item)
    if isinstance(item, bool) or not isinstance(item, int) or not 0 <= item <= 99:
        raise bad(name, f"{name}.{key} must be a whole number 0-99")
    if not isinstance(key, str) or not key.strip() or len(key) > MAX_KEY:
        raise bad(name, f"{name} has a bad key {key!r}")
    return key.strip(), item


_convert = FieldReader(max_number=MAX_COORD, entry=_value_entry)
WEAPON_FIELDS = {"key", "name", "damage", "damage_type", "skill", "ranged", "sources"}


def weapon_from_dict(data: Any) -> Weapon:
    """A weapon from {"key", "name", "damage" (ObT6s, 1-20), "damage_type" (P/K/H),
    "skill", "ranged"}; RulesError if malformed."""
    name, key = weapon_names(data, WEAPON_FIELDS, _convert)
    damage = _convert("damage", int, data.get("damage"))
    damage_type = _convert("damage_type", str, data.get("damage_type", "")).upper()
    skill = _convert("skill", str, data.get("skill", ""))
    ranged = _convert("ranged", bool, data.get("ranged", False))
    if not name or not key or len(key) > MAX_KEY:
        raise bad("weapons", "a weapon needs a name (and a key of at most 40 characters)")
    if not 1 <= damage <= 20:
        raise bad("weapons", "a weapon's damage is Ob1T6 to Ob20T6")
    if damage_type not in DAMAGE_TYPES:
        raise bad("weapons", "a weapon's damage type is P, K or H")
    if not skill or len(skill) > MAX_KEY:
        raise bad("weapons", "a weapon needs the skill its attacks use")
    return Weapon(key, name, damage, damage_type, skill, ranged)


def armour_from_dict(data: Any) -> Armour:
    """Armour from {"key", "name", "areas": [[area, protection], ...] or {area: n}}."""
    name, key = armour_names(data, "areas", _convert)
    raw = data.get("areas", ())
    pairs = list(raw.items()) if isinstance(raw, dict) else raw
    if not isinstance(pairs, (list, tuple)) or len(pairs) > len(AREAS):
        raise bad("armour", "armour's areas are pairs of area and protection")
    areas = []
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or pair[0] not in AREAS:
            raise bad("armour", f"unknown armour area in {pair!r}")
        value = _convert("areas", int, pair[1])
        if not 0 <= value <= 99:
            raise bad("armour", "protection is 0-99")
        areas.append((pair[0], value))
    if not name or not key:
        raise bad("armour", "armour needs a name")
    return Armour(key, name, tuple(sorted(dict(areas).items())))


def parse_command(data: Any, *, weapons=None, armour=None) -> Any:
    """A command from `{"type": "attack", "id": "c1", ...}`."""
    gear = stat_block_fields(weapons, armour, weapon_from_dict, armour_from_dict, (Weapon, Armour))
    cls, values = read_command(data, COMMANDS, _convert, gear)
    if values.get("area") is not None and values["area"] not in AREAS:
        raise bad("area", f"unknown area {values['area']!r}")
    for name in ("protection", "cover"):
        if isinstance(values.get(name), dict) and set(values[name]) - set(AREAS):
            raise bad(name, "unknown areas in protection")
    if cls in (AddCombatant, UpdateCombatant) and values.get("cover") is not None:
        values["protection"] = {**(values.get("protection") or {}), **values.pop("cover")}
    if cls is Respond and values["kind"] not in RESPONSES:
        raise bad("kind", f"unknown response {values['kind']!r}")
    if "damage_type" in values:
        values["damage_type"] = values["damage_type"].upper()
        if values["damage_type"] not in DAMAGE_TYPES:
            raise bad("damage_type", "the damage type is P, K or H")
    if cls is AddCombatant and values.get("weapon_name"):
        inline = weapon_from_dict(
            {
                "name": values["weapon_name"],
                "damage": values.get("weapon_damage"),
                "damage_type": values.get("weapon_type") or "",
                "skill": values.get("weapon_skill") or values["weapon_name"],
                "ranged": values.get("weapon_ranged", False),
            }
        )
        add_inline_weapon(values, inline, "weapon_chance", 0, 99, "{field} must be {low}-{high}")
    return cls(**values)
