"""Commands to a T10 encounter, and `parse_command` from JSON-like data.

`parse_command` is strict: unknown types and fields, wrong types, unknown skills, stances
and fire modes are refused with a RulesError naming the field. Weapons and armour of an
`add_combatant` are catalogue keys (looked up in the campaign's catalogue) or objects;
one weapon may also come as flat `weapon_*` fields (a form's). Bounds that depend on
the state (AP, ranges, ammunition) are `decide`'s.
"""

from dataclasses import MISSING, dataclass
from typing import Any

from rules import scene
from rules.combat_kit import (  # its end, move, end_turn, pass: the kit's
    EndEncounter,
    EndTurn,
    FieldReader,
    Move,
    Pass,
    RemoveCombatant,
    add_inline_weapon,
    armour_names,
    bad,
    quick_init,
    read_command,
    stat_block_fields,
    weapon_names,
)
from rules.t10.character import ABILITIES, SKILLS
from rules.t10.combat.state import MAX_PROTECTION, MODES, STANCES, Armour, Weapon

MAX_KEY = 40
MAX_METRES = 10000.0
MAX_AP = 30  # an action's AP: three whole rounds
SKILL_KEYS = tuple(stat.key for stat in SKILLS)
ABILITY_KEYS = tuple(stat.key for stat in ABILITIES)
ROLL_KEYS = SKILL_KEYS + ABILITY_KEYS


# The GM's ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AddCombatant:
    """A combatant from a stat block (a character's, `T10Combat.character_block`, or an
    NPC's): abilities (0 or less), skills as the bonus each roll gets, Initiativ,
    Kroppsskydd (armour pieces and/or `protection`, at most 10 together), weapons, the
    weapon at hand (`right`) and its stance, and the fatigue and damage it starts with
    (`carried`: a character's body from its last fight, `T10Combat.body_of`), and where it
    stands on the map (`x`, `y` in metres; not given: side "a" at x 0, the others at x 10,
    1.5 m apart down y in the order they join)."""

    name: str
    side: str = "a"
    npc: bool = True
    character_id: int | None = None
    seat: int = 0
    initiative: int = 0
    body: int | None = None
    combat: int | None = None
    mind: int | None = None
    social: int | None = None
    skills: dict | None = None
    protection: int | None = None
    armour: tuple[Armour, ...] = ()
    weapons: tuple[Weapon, ...] = ()
    right: str | None = None
    stance: str = "normal"
    fatigue: int = 0
    damage: int = 0
    carried: dict | None = None
    x: float | None = None
    y: float | None = None
    # One weapon as a form's flat fields.
    weapon_name: str | None = None
    weapon_skill: str | None = None
    weapon_bonus: int | None = None  # the skill's bonus, when `skills` lacks it
    weapon_damage: int | None = None
    weapon_close: int | None = None
    weapon_normal: int | None = None
    weapon_maximum: int | None = None
    weapon_modes: str | None = None  # "E", "A" or "EA"
    weapon_attack_ap: int | None = None
    weapon_reload_ap: int | None = None
    weapon_stance_ap: int | None = None
    weapon_magazine: int | None = None
    weapon_explosive: bool = False
    weapon_damage_on_miss: bool = False


@dataclass(frozen=True)
class UpdateCombatant:
    """The GM sets what the table decides: side, Utmattning, Skada, Kroppsskydd, a
    standing + or − on every roll, cover, painkillers, the stance, and places the
    combatant on the map (`x`, `y`: its round's trail starts again there)."""

    id: str
    side: str | None = None
    fatigue: int | None = None
    damage: int | None = None
    protection: int | None = None
    modifier: int | None = None
    in_cover: bool | None = None
    painkillers: bool | None = None
    stance: str | None = None
    x: float | None = None
    y: float | None = None


@dataclass(frozen=True)
class Start:
    """Start the fight (initiative, round 1), or the next round after one nobody could
    act in."""


@dataclass(frozen=True)
class EndRound:
    """The GM ends the round now: the turns not taken are lost, saved AP vanish."""


@dataclass(frozen=True)
class Damage:
    """The GM deals damage (a fall, a fire): through Kroppsskydd unless `protected` is
    false; the fatigue is the whole amount."""

    id: str
    amount: int
    protected: bool = True
    label: str = ""


# A combatant's own: actions that cost AP ---------------------------------------------------


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Attack:
    """An attack roll with the weapon at hand against `target`, `distance` metres away;
    `mode` must be the weapon's current one when given (a switch is its own action);
    `modifier`: the GM's for this attack."""

    id: str
    target: str
    weapon: str
    distance: float | None = None
    mode: str | None = None
    modifier: int = 0


@dataclass(frozen=True)
class Cover:
    """Kasta sig i skydd (the grenade example)."""

    id: str


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Stance:
    """Change stance (Ställningar) with the weapon at hand, or with `weapon` from Normal."""

    id: str
    stance: str
    weapon: str | None = None


@dataclass(frozen=True)
class FireMode:
    """Byta eldgivningssätt: 2 AP."""

    id: str
    weapon: str
    mode: str


@dataclass(frozen=True)
class Reload:
    id: str
    weapon: str


@dataclass(frozen=True)
class Treat:
    """Sjukvård on `target` (oneself included): heals Skada."""

    id: str
    target: str


@dataclass(frozen=True)
class Painkillers:
    """Smärtstillande for `target` (oneself when not given)."""

    id: str
    target: str | None = None


@dataclass(frozen=True)
class Recover:
    """Spend AP to lower Utmattning, one point per AP."""

    id: str
    points: int


@dataclass(frozen=True)
class SkillRoll:
    """Another skill roll in combat (type "test"): 2T10 + the skill's bonus, the stance's
    modifier on other rolls, −Utmattning and the GM's `modifier`; `ap` what it costs."""

    id: str
    skill: str
    modifier: int = 0
    ap: int = 0
    label: str = ""


@dataclass(frozen=True)
class Act:
    """Anything on the sheet's action page the excerpt lacks: a label and its AP."""

    id: str
    label: str
    ap: int


COMMANDS: dict[str, type] = {
    "add_combatant": AddCombatant,
    "update_combatant": UpdateCombatant,
    "remove_combatant": RemoveCombatant,
    "start": Start,
    "end_round": EndRound,
    "damage": Damage,
    "end": EndEncounter,
    "attack": Attack,
    "move": Move,  # Förflyttning, paid per metre (house rule `metres_per_ap`)
    "cover": Cover,
    "stance": Stance,
    "fire_mode": FireMode,
    "reload": Reload,
    "treat": Treat,
    "painkillers": Painkillers,
    "recover": Recover,
    "test": SkillRoll,
    "act": Act,
    "end_turn": EndTurn,  # the AP left are saved (sparade AP) until the round ends
    "pass": Pass,  # no reaction to the pending attack
}
COMMAND_NAMES = {cls: name for name, cls in COMMANDS.items()}
COMMANDS.update(scene.COMMANDS)  # the battle map's walls, cover and picture (GM)
COMMAND_TYPES = {cls.__name__: cls for cls in COMMANDS.values()}
GM_ONLY = (AddCombatant, UpdateCombatant, RemoveCombatant, Start, EndRound, Damage, EndEncounter,
           *scene.GM_ONLY)
# What a combatant does with AP (in its turn, with saved AP, or as a reaction).
ACTIONS = (Attack, Move, Cover, Stance, FireMode, Reload, Treat, Painkillers, Recover, SkillRoll,
           Act)


def _skill_entry(name: str, key: Any, item: Any) -> tuple[str, int]:
    """One skill's bonus in a stat block's `skills`."""
    if isinstance(item, float) and item.is_integer():
        item = int(item)
    if isinstance(item, bool) or not isinstance(item, int) or not -30 <= item <= 30:
        raise bad(name, f"{name}.{key} must be a whole number -30 to 30")
    if not isinstance(key, str) or key.strip() not in ROLL_KEYS:
        raise bad(name, f"{name} has an unknown skill {key!r}")
    return key.strip(), item


_convert = FieldReader(max_number=MAX_METRES, entry=_skill_entry)


def _whole(data: dict, key: str, low: int, high: int, default: Any = MISSING) -> int:
    value = data.get(key, default)
    if value is MISSING:
        raise bad("weapons", f"a weapon needs {key}")
    value = _convert(key, int, value)
    if not low <= value <= high:
        raise bad("weapons", f"a weapon's {key} is {low} to {high}")
    return value


WEAPON_FIELDS = {
    "key", "name", "skill", "close", "normal", "maximum", "modes", "single", "single_modifier",
    "auto", "auto_modifier", "damage", "attack_ap", "reload_ap", "stance_ap", "magazine",
    "explosive", "damage_on_miss", "sources",
}


def weapon_from_dict(data: Any) -> Weapon:
    """A weapon from {"key", "name", "skill" (a skill key), "close", "normal", "maximum"
    (metres), the modes ("modes": [["E", 0], ["A", -2]], or "single"/"auto" with
    "single_modifier"/"auto_modifier" as the catalogue's form posts them), "damage",
    "attack_ap", "reload_ap", "stance_ap", "magazine" (0: not counted), "explosive",
    "damage_on_miss"}; RulesError if malformed."""
    name, key = weapon_names(data, WEAPON_FIELDS, _convert)
    if not name or not key or len(key) > MAX_KEY:
        raise bad("weapons", "a weapon needs a name (and a key of at most 40 characters)")
    skill = _convert("skill", str, data.get("skill", ""))
    if skill not in SKILL_KEYS:
        raise bad("weapons", f"a weapon's skill is one of {', '.join(SKILL_KEYS)}")
    close = _whole(data, "close", 0, int(MAX_METRES))
    normal = _whole(data, "normal", 0, int(MAX_METRES))
    maximum = _whole(data, "maximum", 0, int(MAX_METRES))
    if not close <= normal <= maximum or maximum < 1:
        raise bad("weapons", "a weapon's ranges go close ≤ normal ≤ maximum (metres)")
    modes = []
    if "modes" in data:
        raw = data["modes"]
        if not isinstance(raw, (list, tuple)) or not 1 <= len(raw) <= 2:
            raise bad("weapons", "a weapon's modes are pairs of mode (E, A) and modifier")
        for pair in raw:
            if not isinstance(pair, (list, tuple)) or len(pair) != 2 or pair[0] not in MODES:
                raise bad("weapons", f"unknown fire mode in {pair!r}")
            modes.append((pair[0], _whole({"modifier": pair[1]}, "modifier", -10, 10)))
    else:
        for mode, flag in (("E", "single"), ("A", "auto")):
            if _convert(flag, bool, data.get(flag, False)):
                modes.append((mode, _whole(data, f"{flag}_modifier", -10, 10, 0)))
    if not modes or len({m for m, _v in modes}) != len(modes):
        raise bad("weapons", "a weapon fires E, A or both (each once)")
    return Weapon(
        key=key,
        name=name,
        skill=skill,
        close=close,
        normal=normal,
        maximum=maximum,
        modes=tuple(sorted(modes, key=lambda pair: MODES.index(pair[0]))),
        damage=_whole(data, "damage", 0, 30),
        attack_ap=_whole(data, "attack_ap", 1, MAX_AP),
        reload_ap=_whole(data, "reload_ap", 0, MAX_AP, 0),
        stance_ap=_whole(data, "stance_ap", 0, MAX_AP, 0),
        magazine=_whole(data, "magazine", 0, 1000, 0),
        explosive=_convert("explosive", bool, data.get("explosive", False)),
        damage_on_miss=_convert("damage_on_miss", bool, data.get("damage_on_miss", False)),
    )


def armour_from_dict(data: Any) -> Armour:
    """Armour from {"key", "name", "protection" (0-10)}."""
    name, key = armour_names(data, "protection", _convert)
    if not name or not key or len(key) > MAX_KEY:
        raise bad("armour", "armour needs a name (and a key of at most 40 characters)")
    protection = _convert("protection", int, data.get("protection", 0))
    if not 0 <= protection <= MAX_PROTECTION:
        raise bad("armour", f"Kroppsskydd is 0 to {MAX_PROTECTION}")
    return Armour(key, name, protection)


def _inline_weapon(values: dict) -> Weapon:
    """The flat `weapon_*` fields of a form as one weapon (modes without modifiers)."""
    modes = (values.get("weapon_modes") or "E").upper()
    if not modes or set(modes) - set(MODES):
        raise bad("weapon_modes", "weapon_modes is E, A or EA")
    maximum = values.get("weapon_maximum")
    normal = values.get("weapon_normal")
    data = {
        "name": values["weapon_name"],
        "skill": values.get("weapon_skill") or "",
        "damage": values.get("weapon_damage"),
        "close": values.get("weapon_close") or 0,
        "normal": normal if normal is not None else maximum,
        "maximum": maximum if maximum is not None else normal,
        "modes": [[mode, 0] for mode in dict.fromkeys(modes)],
        "attack_ap": values.get("weapon_attack_ap"),
        "reload_ap": values.get("weapon_reload_ap") or 0,
        "stance_ap": values.get("weapon_stance_ap") or 0,
        "magazine": values.get("weapon_magazine") or 0,
        "explosive": values.get("weapon_explosive", False),
        "damage_on_miss": values.get("weapon_damage_on_miss", False),
    }
    for key in ("damage", "attack_ap", "normal", "maximum"):
        if data[key] is None:
            raise bad(f"weapon_{key}", f"a weapon needs weapon_{key}")
    return weapon_from_dict(data)


def parse_command(data: Any, *, weapons=None, armour=None) -> Any:
    """A command from `{"type": "attack", "id": "c1", ...}`."""
    gear = stat_block_fields(weapons, armour, weapon_from_dict, armour_from_dict, (Weapon, Armour))
    cls, values = read_command(data, COMMANDS, _convert, gear)
    if values.get("stance") is not None and values["stance"] not in STANCES:
        raise bad("stance", f"the stance is one of {', '.join(STANCES)}")
    if cls in (Attack, FireMode) and values.get("mode") is not None:
        values["mode"] = values["mode"].upper()
        if values["mode"] not in MODES:
            raise bad("mode", "the fire mode is E or A")
    if cls is SkillRoll and values["skill"] not in ROLL_KEYS:
        raise bad("skill", f"unknown skill {values['skill']!r}")
    if cls is AddCombatant and values.get("weapon_name"):
        inline = _inline_weapon(values)
        add_inline_weapon(
            values, inline, "weapon_bonus", -30, 30, "{field} must be {low} to {high}"
        )
    return cls(**values)
