"""The values of an Aoristos encounter: combatants, the encounter, commands and events.

All frozen. Mappings are kept as tuples of pairs so values stay hashable and compare by
content; `pairs_get` reads them.
"""

from dataclasses import dataclass, field
from typing import Any

from rules.aoristos.combat.gear import LIMBS, Armour, Weapon
from rules.combat_kit import Roster, changed, pairs_get, quick_init, slotted
from rules.scene import VALUE_TYPES as SCENE_VALUES
from rules.scene import Scene
from rules.table_dice import Asked

POSTURES = ("standing", "sitting", "lying")

UNARMED = Weapon(
    key="unarmed",
    name="Obeväpnad",
    skill="brawling",
    real=False,
    contact=True,
    sources=(("real", "s. 8"), ("skill", "s. 9")),
)


def pairs_set(pairs: tuple[tuple[str, Any], ...], key: str, value: Any) -> tuple:
    """`pairs` with `key`'s pair last, holding `value` (a list, not a generator: a wound
    sets two of them, and the fold is hot)."""
    return (*[pair for pair in pairs if pair[0] != key], (key, value))


@slotted  # read at every look at who is in melee (combat_kit.slotted)
@dataclass(frozen=True, slots=True)
class HouseRules:
    """Per-campaign readings where the text gives no number (rulings.md, docs/rules/aoristos.md).

    * `movement_by_round_total`: movement cost by the round's total distance (the rule's
      words, default) or by each move (the p. 7 example).
    * `melee_reach`: metres within which two foes are in melee (the text: "close enough
      to reach each other"); default 2.
    * `vigilance_cover_areas`: the areas a target hides when its vigilance move (p. 9)
      ends in drawn cover: "ordentligt skydd" for hits with no area (p. 12), which name
      no number; default 3 (the torso and both legs behind waist-high cover).
    * `hard_to_locate`: the ST a ranged attack gains when cover makes its target hard
      to locate (p. 10, no number given); default 2.
    * `pack_extra_cp`: the KP more than a draw's 1 to take out an item packed away (p. 7:
      "Att plocka fram saker som är nedstoppade i packning kostar mer", no number);
      default 1 (2 KP in all).
    """

    movement_by_round_total: bool = True
    melee_reach: float = 2.0
    vigilance_cover_areas: int = 3
    hard_to_locate: int = 2
    pack_extra_cp: int = 1


@dataclass(frozen=True)
class Extended:
    """An active action started without the KP for it (p. 6): `command` is what it
    completes as, `remaining` the KP still to pay."""

    label: str
    command: Any
    remaining: int


@slotted  # a fight reads a combatant's fields thousands of times (combat_kit.slotted)
@dataclass(frozen=True, slots=True)
class Combatant:
    id: str
    name: str
    side: str = "a"
    npc: bool = False
    character_id: int | None = None
    seat: int = 0
    # Primary attributes (p. 2) and skills (p. 3) as (key, level) pairs.
    physique: int = 1
    composure: int = 1
    agility: int = 1
    alertness: int = 1
    willpower: int = 1
    skills: tuple[tuple[str, int], ...] = ()
    # Secondary attributes (p. 2), as given (a stat block may differ from the formula).
    drive: int = 5
    toughness: int = 2
    shock_tolerance: int = 4
    movement: int = 6
    weapons: tuple[Weapon, ...] = ()
    armour: tuple[Armour, ...] = ()
    # Where and how.
    x: float = 0.0
    y: float = 0.0
    posture: str = "standing"
    hidden_areas: frozenset[str] = frozenset()  # hidden by the own body: hits there miss
    cover: tuple[tuple[str, int], ...] = ()  # areas behind cover, and its protection
    # Cover makes it hard to know where it is (p. 10, the GM's call): ranged attacks +ST.
    hard_to_locate: bool = False
    aware: bool = True
    right: str | None = None  # weapon key held in the right hand
    left: str | None = None
    readied: str | None = None  # drawing it is free with the next attack (p. 7)
    packed: tuple[str, ...] = ()  # weapons packed away: taking them out costs more (p. 7)
    loaded: tuple[tuple[str, int], ...] = ()  # weapon key -> rounds in it
    # The fight so far.
    cp: int = 0
    vigilance_bonus: int = 0
    nerve_shock: int = 0
    bleed_rate: int = 0
    organ_trauma: int = 0
    limbs: tuple[tuple[str, str], ...] = tuple((limb, "ok") for limb in LIMBS)
    # Damage taken per hit area in this fight: a limb hit below 3 is wounded, not broken
    # (p. 14), and the card says so.
    area_damage: tuple[tuple[str, int], ...] = ()
    conscious: bool = True
    alive: bool = True
    moved: float = 0.0  # metres this round, vigilance moves included
    # The points it moved through this round (the map's trail), from where it stood when it
    # first moved; vigilance moves included, emptied at a new round and when the GM places it.
    path: tuple[tuple[float, float], ...] = ()
    moved_since_activation: bool = False  # for "stationary" aim (p. 8)
    wound_up: str | None = None  # the weapon whose UL is paid for its next attack
    # Armed grenades it let fall (p. 7: an interrupted windup leaves the grenade armed):
    # they lie at its feet, still armed, until picked up; when they go off is the GM's.
    armed_on_ground: tuple[str, ...] = ()
    range_aim: int = 0
    range_aim_target: str | None = None
    overwatch: tuple[float, float] | None = None
    reacting: bool = False  # its reaction's attack is under way
    extended: Extended | None = None
    initiative: int = 0
    # The stress roll 1B1F at the start of its latest activation (p. 6): the dice, the KP lost.
    stress_dice: tuple[int, ...] = ()
    stress_loss: int = 0

    def skill(self, key: str) -> int:
        return pairs_get(self.skills, key, 0)

    def limb(self, limb: str) -> str:
        return pairs_get(self.limbs, limb, "ok")

    def weapon(self, key: str | None) -> Weapon | None:
        if key in (None, "unarmed"):
            return UNARMED if key == "unarmed" else None
        for weapon in self.weapons:
            if weapon.key == key:
                return weapon
        return None

    def rounds(self, key: str) -> int:
        return pairs_get(self.loaded, key, 0)

    @property
    def held(self) -> tuple[str, ...]:
        """The keys of the weapons in hand, the right hand's first, each once."""
        right, left = self.right, self.left
        if not right:
            return (left,) if left else ()
        return (right, left) if left and left != right else (right,)

    @property
    def occupied_hands(self) -> int:
        return (self.right is not None) + (self.left is not None)

    def grip(self, key: str) -> int:
        """Hands holding weapon `key` (0, 1 or 2)."""
        return (self.right == key) + (self.left == key)

    @property
    def lasting_nerve_shock(self) -> int:
        """Nervchock that does not fall at an activation's end (p. 14): one degree per
        broken or destroyed limb, and one at 3+ organtrauma."""
        broken = sum(1 for _, state in self.limbs if state != "ok")
        return broken + (1 if self.organ_trauma >= 3 else 0)

    @property
    def acts(self) -> bool:
        """Takes activations: alive and conscious."""
        return self.alive and self.conscious

    # `self` with some fields changed: `changed` itself, not a method that calls it (the
    # fold changes a combatant for nearly every event; the keywords are packed once).
    with_ = changed


@quick_init  # one of a simulated fight's hottest values (combat_kit.quick_init)
@dataclass(frozen=True)
class PendingAttack:
    """An attack between its declaration and its resolution (p. 9): waiting for the
    target's vigilance, then (after the roll) for the attacker's abort decision."""

    attacker: str
    target: str
    weapon: str
    aim: int
    shots: int
    auto: bool
    called_area: str | None
    passive: bool
    # "vigilance", "confirm" (a vigilance move toward cover the map does not show waits
    # for the GM), "follow" (the foes in a melee may follow the target's metre, p. 9: their
    # "follow" reactions wait), then "abort" (after the roll)
    stage: str = "vigilance"
    threshold: int = 0
    threshold_parts: tuple[tuple[str, int], ...] = ()
    vigilance: tuple[str, ...] = ()
    roll: Any = None  # the AttackRolled event, during "abort"
    # Areas hidden by proper cover after the vigilance move (p. 12, hits with no area);
    # None: the target did not move, and its cover is as the GM set it.
    cover_after: int | None = None
    # The vigilance the target proposed while the GM confirms its move (stage "confirm"):
    # (properties, (x, y), prone).
    proposal: Any = None
    limb: str | None = None  # an unarmed attack's striking limb (p. 8)
    # The target's vigilance move (dx, dy, metres), once made: who follows it moves as far
    # the same way (p. 9). None: it did not move.
    step: tuple[float, float, float] | None = None


@dataclass(frozen=True)
class Reaction:
    """A passive action the rules call for now, waiting for `who` (p. 10-11):

    * "free_attack": a foe in melee may attack `target`, who is leaving it (normal cost,
      aim allowed), or let it pass;
    * "overwatch": `who` must attack `target`, who showed up in the watched sphere
      (normal cost, no aim), unless a voluntary SIN test lets them hold fire (`must`
      once that test failed);
    * "follow": a foe in the melee may follow `target`'s vigilance move (p. 9: "Alla
      andra i striden får hänga på"), 1 m the same way at no KP, or stay; the attack
      waits for it (its stage "follow")."""

    kind: str
    who: str
    target: str
    must: bool = False


@dataclass(frozen=True)
class Escape:
    """A move out of melee that lost the opposed RÖR test (p. 10): the mover goes on (the
    foes' free attacks first, then the move) or aborts without a refund."""

    mover: str
    x: float
    y: float
    distance: float
    decided: bool = False


@slotted  # read at every step of a fight (combat_kit.slotted)
@dataclass(frozen=True, slots=True)
class Encounter(Roster):
    name: str = ""
    house: HouseRules = field(default_factory=HouseRules)
    combatants: tuple[Combatant, ...] = ()
    surprise: tuple[tuple[str, str], ...] = ()  # side -> hand text, e.g. ("b", "1B1T")
    round: int = 0  # 0: setting up
    order: tuple[str, ...] = ()
    turn: int = -1  # index in `order` of the active combatant
    attack: PendingAttack | None = None
    reactions: tuple[Reaction, ...] = ()
    escape: Escape | None = None
    single: bool = False  # a single attack (p. 6), not a fight
    ended: bool = False
    next_id: int = 1
    scene: Scene = Scene()  # walls, cover and a picture on the battle map (rules.scene)
    asked: Asked | None = None  # the table's dice it waits for (rules.table_dice)
    # The GM's situational ST modifier on every attack while it is set (issue 45), and
    # what it stands for.
    situation: int = 0
    situation_label: str = ""

    @property
    def waiting(self) -> bool:
        """Something must be answered before anyone acts on: an attack, a reaction, an
        escape from melee."""
        return self.attack is not None or bool(self.reactions) or self.escape is not None

    @property
    def active(self) -> Combatant | None:
        if self.round and 0 <= self.turn < len(self.order) and not self.ended:
            return self.get(self.order[self.turn])
        return None


# The values a stored log holds inside events and commands, by name (for the codec).
VALUE_TYPES = {
    **{cls.__name__: cls for cls in (Combatant, Extended, Reaction, Escape, Weapon, Armour)},
    **SCENE_VALUES,
}
