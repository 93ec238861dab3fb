"""The values of a Phobia encounter: weapons, combatants, the pending attack and the
encounter itself. All frozen; mappings are tuples of pairs, so values compare by content
and survive the JSON codec of `rules.engine` unchanged.
"""

from dataclasses import dataclass, field

from rules.combat_kit import Roster, changed, pairs_get, quick_init
from rules.phobia.injuries import DEFAULT_COLUMNS, DEFAULT_PER_ROW, Bleeding
from rules.scene import VALUE_TYPES as SCENE_VALUES
from rules.scene import Scene
from rules.table_dice import Asked

AREAS = ("face", "skull", "neck", "arm", "chest", "belly", "groin", "leg")  # lines 944-1004
DAMAGE_TYPES = ("P", "K", "H")  # lines 68-90
ATTRIBUTE_KEYS = (
    "strength",
    "endurance",
    "agility",
    "personality",
    "psyche",
    "will",
    "education",
    "sight",
    "hearing",
    "luck",
)
RESPONSES = ("defend", "cover", "flee", "shoot_back")  # lines 771-804
MOVE_MODES = ("", "move", "run", "sprint")  # lines 261-271


@dataclass(frozen=True)
class HouseRules:
    """Where the excerpt gives no number (rulings.md § Phobia; ``HOUSE_RULES`` in
    ``__init__`` names the lines each stands in for)."""

    hit_location: str = "attacker"  # "attacker": the attacker names the area; "random"
    attack_difficulty: int = 3  # Ob dice of an attack test before modifiers (normal)
    roll_base: int = 3  # the death and shock rolls' base difficulty (Ob3T6)
    row_difficulty: int = DEFAULT_PER_ROW  # Ob dice per full row of a section
    damage_columns: int = DEFAULT_COLUMNS  # boxes in each of a section's ten rows
    turn_order_die: bool = False  # 1T10 added to TO each round (lines 245-247)
    death_stat: str = "endurance"  # what the death roll is against (TÅL)
    shock_stat: str = "shock_value"  # what the shock roll is against (Chockvärde)
    stopped_hit_bleeds: bool = True  # a P/H hit protection stops still bleeds (line 850)


@dataclass(frozen=True)
class Weapon:
    """A weapon: its damage ("skadevärde", a number of ObT6s, lines 808-815), damage type
    (P, K or H), the skill its attacks are rolled against, and whether it shoots or is
    thrown (`ranged`: it may aim and shoot back; a weapon that is not is a melee weapon,
    against which one may defend)."""

    key: str
    name: str
    damage: int
    damage_type: str
    skill: str
    ranged: bool = False
    sources: tuple[tuple[str, str], ...] = ()  # (field, where from), as the catalogue lists


@dataclass(frozen=True)
class Armour:
    """Protection by area (line 822: the rolled damage is reduced by it)."""

    key: str
    name: str
    areas: tuple[tuple[str, int], ...] = ()
    sources: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class AimedShot:
    """Aim and shoot (lines 733-743): the shot waits for half the shooter's TO. `lost`:
    a response was made meanwhile, so the shot loses its −Ob1T6."""

    target: str
    weapon: str
    area: str | None = None
    lost: bool = False


@dataclass(frozen=True)
class SkillUse:
    """Använda färdighet (lines 761-765): a skill used over `rounds` rounds, `done` of
    them spent on it (the last at round `round`); the test, at Ob`base`T6 and the action's
    modifiers, is rolled in the last."""

    skill: str
    rounds: int
    done: int
    base: int
    label: str = ""
    round: int = 0


@dataclass(frozen=True)
class Injury:
    """A serious injury taken: the table row of its 1T10 (lines 944-1004) and what its
    checks came to: (code, "held" or "failed" or the side lost, "left"/"right")."""

    area: str
    damage_type: str
    roll: int
    name: str
    codes: tuple[str, ...]
    line: int
    outcomes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Ongoing:
    """An ongoing effect (Kvävning!, Inre Skada!) since the encounter's second `since`."""

    code: str
    since: int


@dataclass(frozen=True)
class Combatant:
    id: str
    name: str
    side: str = "a"
    npc: bool = True
    character_id: int | None = None
    seat: int = 0
    values: tuple[tuple[str, int], ...] = ()  # attributes and skills, by key
    turn_order: int = 0  # Turordning as given (line 243)
    shock_value: int = 10  # Chockvärde (line 181)
    movement: int = 5  # Förflyttning, metres a round (line 271)
    weapons: tuple[Weapon, ...] = ()
    in_hand: tuple[str, ...] = ()  # weapon keys ready ("framme och skjutklart", line 777)
    protection: tuple[tuple[str, int], ...] = ()  # area -> protection
    turn_order_modifier: int = 0  # the GM's + or − to TO (line 235: e.g. from injuries)
    modifier: int = 0  # the GM's Ob dice on all the combatant's tests (lines 527-552)
    burden: int = 0  # Ob dice its load adds to every action when overloaded (lines 274-283)
    # Damage (lines 164-172, 806-1130).
    trauma: int = 0
    pain: int = 0
    bleeding: Bleeding = field(default_factory=Bleeding)
    injuries: tuple[Injury, ...] = ()
    ongoing: tuple[Ongoing, ...] = ()
    losses: tuple[tuple[str, int], ...] = ()  # what checks and losses took, e.g. ("SYN", ...)
    alive: bool = True
    conscious: bool = True
    # This round (lines 613-804).
    die: int | None = None  # the round's 1T10 added to TO (house rule)
    declared: int | None = None  # active actions declared for the turn (0: Avvakta)
    actives: int = 0  # active actions done
    responses: int = 0  # response actions done
    moved: float = 0.0
    move_mode: str = ""
    aim: AimedShot | None = None
    turn_over: bool = False
    fled: bool = False
    in_cover: bool = False
    # Invänta mål (lines 745-750): the target awaited ("" any foe), kept across rounds
    # until the combatant takes an active action; the targets it let pass this round; and
    # while it acts before its target, its active actions when it began (one more ends it).
    waiting: str | None = None
    passed_on: tuple[str, ...] = ()
    interrupting: int | None = None
    skill_use: SkillUse | None = None  # Använda färdighet over several rounds (lines 761-765)
    # On the battle map (the text counts only metres, lines 261-271): where it stands, in
    # metres, and the round's trail (where it stood when the round's first move began,
    # then each point moved to; none after the GM places it).
    x: float = 0.0
    y: float = 0.0
    path: tuple[tuple[float, float], ...] = ()

    def value(self, key: str) -> int:
        if key == "shock_value":
            return self.shock_value
        return pairs_get(self.values, key, 0)

    @property
    def current_to(self) -> int:
        """TO this round: additions first (the die, the GM's modifier), line 235-237."""
        return self.turn_order + self.turn_order_modifier + (self.die or 0)

    @property
    def order_to(self) -> int:
        """Where it acts: aim and shoot halves TO, after the additions (lines 235-237)."""
        return self.current_to // 2 if self.aim is not None else self.current_to

    @property
    def acts(self) -> bool:
        return self.alive and self.conscious

    @property
    def actions_done(self) -> int:
        return self.actives + self.responses

    def weapon(self, key: str | None) -> Weapon | None:
        for weapon in self.weapons:
            if weapon.key == key:
                return weapon
        return None

    def protection_of(self, area: str) -> int:
        return pairs_get(self.protection, area, 0)

    # `self` with some fields changed: `changed` itself, not a method that calls it (the
    # fold changes a combatant for nearly every event; the keywords are packed once).
    with_ = changed


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Response:
    """A response action declared against the pending attack (lines 667-677, 771-804),
    with the difficulty it had when declared (the actions done before it)."""

    id: str
    kind: str
    skill: str = ""
    weapon: str = ""
    parts: tuple[tuple[str, int], ...] = ()
    area: str | None = None  # a shot back's area


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Pending:
    """An attack declared and waiting for the responses (lines 693-703): the target
    answers (a response, or none); the others may declare theirs meanwhile."""

    attacker: str
    target: str
    weapon: str
    area: str | None
    aimed: bool
    parts: tuple[tuple[str, int], ...]
    responses: tuple[Response, ...] = ()


@dataclass(frozen=True)
class Encounter(Roster):
    name: str = ""
    house: HouseRules = field(default_factory=HouseRules)
    combatants: tuple[Combatant, ...] = ()
    round: int = 0  # 0: setting up
    active: str | None = None  # whose turn it is
    pending: Pending | None = None
    offer: tuple[str, str] | None = None  # (waiter, target): may act before it (line 748)
    seconds: int = 0  # time since the fight began (4 s a round)
    round_closed: bool = False  # the round's end is done; the next one is not begun
    ended: bool = False
    next_id: int = 1
    scene: Scene = Scene()  # walls, cover and a picture on the battle map (rules.scene)
    asked: Asked | None = None  # the table's dice it waits for (rules.table_dice)


# The values a stored log holds inside events and commands, by name (for the codec).
VALUE_TYPES = {
    **{
        cls.__name__: cls
        for cls in (Combatant, Weapon, Armour, AimedShot, Injury, Ongoing, SkillUse)
    },
    **SCENE_VALUES,
}
