"""Weapons, armour and shields as the combat engine reads them (p. 5, 7-13).

Plain immutable values. Where a number comes from is kept beside it in ``sources``
(field name -> "s. 10" for the rule text's page, or "house" for a house default the GM
can change per campaign): the catalogue (`rules.aoristos.equipment`) fills it, the pages
show it.
"""

from dataclasses import dataclass, field
from functools import lru_cache

from rules.combat_kit import slotted
from rules.errors import RulesError

__all__ = [
    "AREAS",
    "LIMBS",
    "RANGE_CATEGORIES",
    "SKILLS_FOR_ATTACKS",
    "Armour",
    "FireMode",
    "Weapon",
    "parse_fire_modes",
]

BELT_ROUNDS = 100  # p. 11: "Då anges MV för 100 patroner"

# Hit areas (p. 9): the four limbs, the torso and the head (reachable only by a free
# choice on matching area dice).
AREAS: tuple[str, ...] = ("head", "torso", "right_arm", "left_arm", "right_leg", "left_leg")
LIMBS: tuple[str, ...] = ("right_arm", "left_arm", "right_leg", "left_leg")

# The categories of the range-malus table (p. 10), in the table's order.
RANGE_CATEGORIES: tuple[str, ...] = ("improvised", "thrown", "heavy_or_long", "rifled")

# Skills an attack can be made with (p. 3, 8-9).
SKILLS_FOR_ATTACKS: tuple[str, ...] = (
    "brawling",
    "melee_weapons",
    "firearms",
    "bow",
    "sling",
    "throwing",
    "blowpipe",
)


@slotted  # read at every attack's plan (combat_kit.slotted)
@dataclass(frozen=True, slots=True)
class FireMode:
    """One of a weapon's "Lägen" (p. 10-11): `shots` fixed projectiles, plus `random_dice`
    six-sided dice more in auto mode ("auto+2N": N is one die, rulings.md)."""

    text: str
    shots: int
    auto: bool = False
    random_dice: int = 0


def parse_fire_modes(text: str) -> tuple[FireMode, ...]:
    """``1/3/auto+2N`` -> single shot, three-round burst, auto with base 0 + 2 dice.

    ``auto`` alone is auto with no random dice; ``max``/``m`` entries are not fire modes
    (the weapon's max is its own field) and are skipped; ``auto3+2N`` fires 3 + 2 dice.
    """
    return _fire_modes(str(text))


@lru_cache(maxsize=256)
def _fire_modes(text: str) -> tuple[FireMode, ...]:
    """`parse_fire_modes` of a text, read once (every attack asks its weapon's modes)."""
    modes = []
    for part in text.replace(" ", "").lower().split("/"):
        if not part or part in ("max", "m"):
            continue
        if part.startswith(("auto", "a")):
            rest = part.removeprefix("auto") if part.startswith("auto") else part[1:]
            base, _, dice = rest.partition("+")
            try:
                shots = int(base) if base else 0
                random_dice = int(dice.removesuffix("n")) if dice else 0
            except ValueError:
                raise RulesError(f"unrecognised fire mode {part!r}") from None
            modes.append(FireMode(part, shots, auto=True, random_dice=random_dice))
            continue
        try:
            shots = int(part)
        except ValueError:
            raise RulesError(f"unrecognised fire mode {part!r}") from None
        if shots < 1:
            raise RulesError(f"a fire mode fires at least 1 shot, got {part!r}")
        modes.append(FireMode(part, shots))
    if not modes:
        raise RulesError(f"no fire mode in {text!r}")
    return tuple(modes)


@slotted  # read at every attack (combat_kit.slotted)
@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon as the rules use it.

    * ``skill``: the attack skill (``brawling`` for unarmed attacks, p. 9).
    * ``real``: an "egentligt vapen" (p. 8): the attack costs 1 KP more and the dice
      count again in the strength (p. 12). Everything held to strike with, and every
      ranged weapon, is real; fists, brass knuckles and claws are not.
    * ``strength``: the item's own strength value (p. 12).
    * ``hands``: the grips it can be held with, e.g. ``(1,)``, ``(2,)``, ``(1, 2)``. A
      melee weapon whose grips include 2 is a two-handed weapon: 1F in both hands, +max(0,
      5 − FYS) ST in one (p. 10).
    * ``windup`` (UL), ``reload`` (OL; None = the firearm default 5), ``reload_each``
      ("(n)": KP per cartridge after 2 KP to open, p. 7), ``belt`` (MS "bälte": OL 10,
      5 with an assistant, p. 11).
    * ``fire_modes`` text like ``1/3/auto+2N``; ``max_shots`` (None = min(8, MS)),
      ``magazine`` (MS; None = 1), ``chambered`` ("+1" after MS).
    * ``ranged``, ``firearm`` ("short" or "long", None for other weapons; long includes
      bows when firing into melee, p. 10), ``range_categories`` (p. 10, in
      RANGE_CATEGORIES), ``contact`` / ``thrown`` (FYS adds to strength, p. 12).
    * ``bow_strength`` (a drawn bow's FYS test ST, p. 7), ``laser_sight``, ``scope``,
      ``explosive`` (no hit area, p. 9).
    """

    key: str
    name: str
    skill: str
    real: bool = True
    strength: int = 0
    hands: tuple[int, ...] = (1,)
    windup: int = 0
    reload: int | None = None
    reload_each: int | None = None
    belt: bool = False
    fire_modes: str = "1"
    max_shots: int | None = None
    magazine: int | None = None
    chambered: bool = False
    magazine_bulk: float = 0
    weapon_bulk: float = 0
    ranged: bool = False
    firearm: str | None = None
    range_categories: tuple[str, ...] = ()
    contact: bool = False
    thrown: bool = False
    bow_strength: int | None = None
    laser_sight: bool = False
    scope: bool = False
    explosive: bool = False  # p. 9: explosions have no hit area
    sources: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if self.skill not in SKILLS_FOR_ATTACKS:
            raise RulesError(f"{self.name}: no attacks are made with skill {self.skill!r}")
        if not self.hands or any(h not in (1, 2) for h in self.hands):
            raise RulesError(f"{self.name}: grips are 1 or 2 hands, got {self.hands!r}")
        for category in self.range_categories:
            if category not in RANGE_CATEGORIES:
                raise RulesError(f"{self.name}: unknown range category {category!r}")
        if self.firearm not in (None, "short", "long"):
            raise RulesError(f"{self.name}: a firearm is short or long, got {self.firearm!r}")
        parse_fire_modes(self.fire_modes)

    @property
    def modes(self) -> tuple[FireMode, ...]:
        return parse_fire_modes(self.fire_modes)

    @property
    def two_handed(self) -> bool:
        """A two-handed melee weapon (p. 10)."""
        return not self.ranged and 2 in self.hands

    @property
    def capacity(self) -> int:
        """Rounds a full weapon holds: MS (default 1) plus a chambered round; a belt of
        any length (p. 11) is read as the one of 100 its MV is given for."""
        if self.belt:
            return BELT_ROUNDS
        return (self.magazine or 1) + (1 if self.chambered else 0)

    @property
    def max_per_round(self) -> int:
        """The mechanical max of projectiles a round (p. 11): default min(8, MS)."""
        if self.max_shots is not None:
            return self.max_shots
        return min(8, self.magazine or 1)

    @property
    def reload_cost(self) -> int:
        """KP to change the magazine (p. 7, 11): OL, default 5 for firearms; a belt 10."""
        if self.reload is not None:
            return self.reload
        return 10 if self.belt else 5

    @property
    def assistant_reload_cost(self) -> int:
        """KP for an assistant to reload a belt-fed weapon (p. 11: "Med ett bälte är
        förvald OL 10 för skytten, 5 för en assistent"): 5 by default; a weapon that gives
        its own OL gives it for the assistant too (the text's 5 is only the default)."""
        if self.reload is not None:
            return self.reload
        return 5

    @property
    def long_in_melee(self) -> bool:
        """Firing into melee (p. 10): +3 ST for long firearms and bows, +1 for short."""
        return self.firearm == "long" or self.skill == "bow"

    def source(self, name: str) -> str:
        return dict(self.sources).get(name, "")


@slotted  # read at every attack (combat_kit.slotted)
@dataclass(frozen=True, slots=True)
class Armour:
    """Armour as protection values per area (p. 12); missing areas are 0. ``shield``
    marks a shield (a protective weapon, p. 8: +2 to vigilance with Närstridsvapen,
    and that vigilance also against throws, p. 8)."""

    key: str
    name: str
    areas: tuple[tuple[str, int], ...] = ()
    shield: bool = False
    bulk: float = 0
    sources: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        for area, value in self.areas:
            if area not in AREAS:
                raise RulesError(f"{self.name}: unknown area {area!r}")
            if value < 0:
                raise RulesError(f"{self.name}: protection cannot be negative")

    def protection(self, area: str) -> int:
        return dict(self.areas).get(area, 0)

    def source(self, name: str) -> str:
        return dict(self.sources).get(name, "")
