"""The values of a T10 encounter: weapons, armour, combatants, the pending attack and the
encounter itself. All frozen; mappings are tuples of pairs, so values compare by content
and survive the JSON codec of `rules.engine` unchanged.
"""

from dataclasses import dataclass, field
from typing import Any

from rules.combat_kit import Roster, changed, pairs_get, quick_init
from rules.scene import VALUE_TYPES as SCENE_VALUES
from rules.scene import Scene
from rules.t10.character import AP_PER_ROUND
from rules.table_dice import Asked

STANCES = ("normal", "ready", "aimed")  # Ställningar: Normal, Färdigställning, Anläggning
MODES = ("E", "A")  # Eldgivningssätt: enkelskott, automateld
DEAD_AT = 10  # "Kommer rollpersonen upp i 10 poäng skada är denne död"
UNCONSCIOUS_AT = 10  # "Om rollpersonen kommer upp i 10 poäng utmattning blir denne medvetslös"
MAX_PROTECTION = 10  # "Kroppsskydd har en skyddspoäng mellan 1 och 10"


def pairs_set(pairs, key, value) -> tuple:
    """`pairs` with `key` set to `value` (added at the end when new)."""
    out = [(k, value if k == key else v) for k, v in pairs]
    if not any(k == key for k, _v in pairs):
        out.append((key, value))
    return tuple(out)


@dataclass(frozen=True)
class HouseRules:
    """Where the excerpt gives no number (it lacks the sheet's action page, defence and
    medical care); ``HOUSE_RULES`` in ``__init__`` names what each stands in for."""

    metres_per_ap: int = 2  # Förflyttning: metres one AP moves
    cover_ap: int = 3  # kasta sig i skydd (the grenade example: 3 AP)
    cover_modifier: int = -2  # on a direct attack against a target in cover
    burst_shots: int = 3  # rounds an A burst uses from the magazine
    treat_ap: int = 10  # Sjukvård: AP of one treatment (paid across rounds if need be)
    treat_heal: int = 1  # Skada healed by a successful treatment, +1 per DoS
    painkiller_ap: int = 2  # smärtstillande: AP to take or give them


@dataclass(frozen=True)
class Weapon:
    """A weapon's values ("Vapen"): three ranges in metres (nära, normalt, maximalt),
    its fire modes with their modifiers (E, A), damage, and the AP of an attack, a reload
    and a change of stance. `magazine` 0: ammunition is not counted (our addition: E uses
    one round, A the house rule's burst). `explosive`: an area weapon (a hand grenade),
    harmless to a target in cover; `damage_on_miss`: "vissa vapen låter spelaren dra ifrån
    DoF från skadan"."""

    key: str
    name: str
    skill: str
    close: int
    normal: int
    maximum: int
    modes: tuple[tuple[str, int], ...]
    damage: int
    attack_ap: int
    reload_ap: int
    stance_ap: int
    magazine: int = 0
    explosive: bool = False
    damage_on_miss: bool = False
    sources: tuple[tuple[str, str], ...] = ()  # (field, where from), as the catalogue lists

    def modifier(self, mode: str) -> int | None:
        return pairs_get(self.modes, mode)

    @property
    def mode_names(self) -> str:
        return "/".join(mode for mode, _m in self.modes)


@dataclass(frozen=True)
class Armour:
    """Kroppsskydd: its protection (0-10) lowers damage, not the fatigue it causes."""

    key: str
    name: str
    protection: int
    sources: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Begun:
    """An action dearer than the AP left in the combatant's turn ("Handlingar som går
    över flera rundor"): `paid` of `cost` so far; the rest is paid first at the start of
    its next turn, and then the action (`command`) takes effect."""

    command: Any
    cost: int
    paid: int

    @property
    def rest(self) -> int:
        return self.cost - self.paid


@dataclass(frozen=True)
class Combatant:
    id: str
    name: str
    side: str = "a"
    npc: bool = True
    character_id: int | None = None
    seat: int = 0
    # The bonuses a roll gets: a skill's effective bonus as given (a character's block
    # gives every skill, `character.bonus`), else its ability's value.
    skills: tuple[tuple[str, int], ...] = ()
    abilities: tuple[tuple[str, int], ...] = ()
    initiative: int = 0  # Initiativ, added to 1T10
    protection: int = 0  # Kroppsskydd 0-10
    weapons: tuple[Weapon, ...] = ()
    wielded: str | None = None  # the weapon the stance is held with
    stance: str = "normal"
    modes: tuple[tuple[str, str], ...] = ()  # weapon key -> "E" or "A"
    ammo: tuple[tuple[str, int], ...] = ()  # weapon key -> rounds left (counted weapons)
    modifier: int = 0  # the GM's standing + or − on every roll of the combatant
    fatigue: int = 0  # Utmattning
    damage: int = 0  # Skada
    painkillers: bool = False  # smärtstillande: fatigue may fall below the damage
    in_cover: bool = False  # until it moves
    x: float = 0.0  # where it stands on the map, in metres
    y: float = 0.0
    rolls: tuple[int, ...] = ()  # the initiative 1T10, then the tie-breaking rerolls
    # This round.
    ap: int = 0  # AP left (in and before its turn)
    saved: int = 0  # sparade AP (after its turn, until the round ends)
    turn_done: bool = False
    begun: Begun | None = None
    # The round's trail on the map: where it stood when its first move began, then each
    # point it moved to (empty until it moves; a new round and the GM's placing clear it).
    path: tuple[tuple[float, float], ...] = ()

    @property
    def alive(self) -> bool:
        return self.damage < DEAD_AT

    @property
    def conscious(self) -> bool:
        return self.fatigue < UNCONSCIOUS_AT

    @property
    def acts(self) -> bool:
        return self.alive and self.conscious

    @property
    def round_ap(self) -> int:
        """AP a new round gives: 10, −1 per point of Utmattning, never below 0."""
        return max(0, AP_PER_ROUND - self.fatigue)

    @property
    def fatigue_floor(self) -> int:
        """How low Utmattning may fall: the damage, or 0 with painkillers."""
        return 0 if self.painkillers else self.damage

    @property
    def initiative_total(self) -> int | None:
        return self.initiative + self.rolls[0] if self.rolls else None

    def weapon(self, key: str | None) -> Weapon | None:
        for weapon in self.weapons:
            if weapon.key == key:
                return weapon
        return None

    def mode_of(self, weapon: Weapon) -> str:
        return pairs_get(self.modes, weapon.key) or weapon.modes[0][0]

    def ammo_of(self, weapon: Weapon) -> int | None:
        """Rounds left, or None when the weapon's ammunition is not counted."""
        if not weapon.magazine:
            return None
        return pairs_get(self.ammo, weapon.key, weapon.magazine)

    # `self` with some fields changed: `changed` itself, not a method that calls it (the
    # fold changes a combatant for nearly every event; the keywords are packed once).
    with_ = changed


@dataclass(frozen=True)
class Reaction:
    """An action declared with saved AP against the pending attack (a command of the
    combatant's, carried out once everyone has answered)."""

    id: str
    command: Any
    cost: int


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Pending:
    """An attack declared and waiting for the combatants with saved AP (`waiting`) to
    react or pass; then the reactions are carried out and the attack resolves."""

    attacker: str
    target: str
    weapon: str
    mode: str
    distance: float
    modifier: int = 0
    waiting: tuple[str, ...] = ()
    reactions: tuple[Reaction, ...] = ()
    passed: tuple[str, ...] = ()

    def answered(self, cid: str) -> bool:
        return cid in self.passed or any(r.id == cid for r in self.reactions)

    @property
    def unanswered(self) -> tuple[str, ...]:
        return tuple(cid for cid in self.waiting if not self.answered(cid))


@dataclass(frozen=True)
class Encounter(Roster):
    name: str = ""
    house: HouseRules = field(default_factory=HouseRules)
    combatants: tuple[Combatant, ...] = ()
    round: int = 0  # 0: setting up
    active: str | None = None  # whose turn it is
    pending: Pending | None = None
    round_closed: bool = False  # the round ended and nobody could act in the next
    ended: bool = False
    next_id: int = 1
    scene: Scene = Scene()  # walls, cover and a picture on the battle map (rules.scene)
    asked: Asked | None = None  # the table's dice it waits for (rules.table_dice)

    @property
    def started(self) -> bool:
        return self.round > 0


# The values a stored log holds inside events and commands, by name (for the codec).
VALUE_TYPES = {
    **{cls.__name__: cls for cls in (Combatant, Weapon, Armour, Begun, Reaction, Pending)},
    **SCENE_VALUES,
}
