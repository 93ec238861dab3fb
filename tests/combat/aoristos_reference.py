"""An independent reference for the Aoristos attack preview: the exact distribution of one
attack's outcome, written from the rule text (shared/rules/aoristos-grundregler.txt p. 4,
8-13), shared/rules/rulings.md (Dice hands, Success tests, Attacks, Strength) and the
readings the project documents where the text leaves a choice (docs/rules/aoristos.md,
Combat readings). It imports nothing of the project: the weapons' properties are copied
below from the catalogue (tests/combat/test_preview_reference.py checks them against the
catalogue page), everything else comes from the encounter's JSON state.

All chances are exact fractions (`fractions.Fraction`).
"""

from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from itertools import product

SIDES = 6
MAX_DICE = 6  # p. 4: "man slår aldrig fler än 6 tärningar åt gången"
VIGILANCE_MAX = 3  # p. 8: "bara tre egenskaper i taget"
NO_AREA_PROJECTILES = 4  # p. 9: "4 eller fler projektiler i samma anfall"

# p. 9, the hit-area table, and the order ties between areas are broken in.
AREA_TABLE = {6: "torso", 5: "torso", 4: "right_arm", 3: "left_arm", 2: "right_leg", 1: "left_leg"}
AREAS = ("head", "torso", "right_arm", "left_arm", "right_leg", "left_leg")


@dataclass(frozen=True)
class Weapon:
    """A catalogue weapon as far as an attack's odds need it.

    `melee`: a weapon held to strike with (not ranged, not thrown); `real`: an
    "egentligt vapen" (p. 8); `fys`: FYS adds to strength (contact, thrown, p. 12);
    `firearm`: "short", "long" or None; `categories`: the p. 10 range table's rows;
    `modes`: the Lägen text (p. 11); `max_shots`: the weapon's max a round (None: the
    default min(8, MS)); `magazine`: MS (None: 1); `ammo`: rounds are counted."""

    key: str
    skill: str
    strength: int
    hands: tuple[int, ...]
    melee: bool = False
    real: bool = True
    fys: bool = False
    thrown: bool = False
    firearm: str | None = None
    categories: tuple[str, ...] = ()
    modes: str = "1"
    max_shots: int | None = None
    magazine: int | None = None
    chambered: bool = False
    windup: int = 0
    explosive: bool = False
    bow: bool = False
    belt: bool = False  # MS "bälte": a belt of any length (p. 11)

    @property
    def two_handed(self) -> bool:
        """A two-handed melee weapon (p. 10)."""
        return self.melee and 2 in self.hands

    @property
    def ammo(self) -> bool:
        return self.firearm is not None or self.magazine is not None

    @property
    def max_per_round(self) -> int:
        """p. 11: "max", by default the lower of 8 and MS (MS 1 when none is given)."""
        if self.max_shots is not None:
            return self.max_shots
        return min(8, self.magazine or 1)

    def mode(self, text: str) -> tuple[bool, int, int]:
        """(auto, fixed projectiles, random dice) of a fire mode ("" = the first)."""
        parts = [p for p in self.modes.lower().split("/") if p]
        chosen = text.lower() if text else parts[0]
        if chosen not in parts:
            raise ValueError(f"{self.key} has no mode {text!r}")
        if chosen.startswith("auto"):
            base, _, dice = chosen.removeprefix("auto").partition("+")
            return True, int(base or 0), int(dice.removesuffix("n") or 0)
        return False, int(chosen), 0


def _melee(key, strength, hands=(1,)):
    return Weapon(key, "melee_weapons", strength, hands, melee=True, fys=True)


# The starter catalogue (rules/aoristos/equipment.py, as the catalogue page lists it).
WEAPONS: dict[str, Weapon] = {
    w.key: w
    for w in (
        Weapon("unarmed", "brawling", 0, (1,), melee=True, real=False, fys=True),
        Weapon("brass_knuckles", "brawling", 1, (1,), melee=True, real=False, fys=True),
        _melee("knife", 1),
        _melee("sword", 3),
        _melee("two_handed_sword", 5, (1, 2)),
        _melee("trench_spade", 3),
        _melee("bar_stool", 2, (1, 2)),
        _melee("rifle_butt", 2, (2,)),
        Weapon(
            "throwing_knife", "throwing", 1, (1,), fys=True, thrown=True, categories=("thrown",)
        ),
        Weapon(
            "cobblestone",
            "throwing",
            1,
            (1,),
            fys=True,
            thrown=True,
            categories=("improvised", "thrown"),
        ),
        Weapon(
            "hand_grenade",
            "throwing",
            10,
            (1,),
            fys=True,
            thrown=True,
            categories=("thrown",),
            windup=1,
            explosive=True,
        ),
        Weapon("sling", "sling", 5, (1,), windup=2),
        Weapon("bow", "bow", 4, (2,), windup=3, bow=True),
        Weapon("light_crossbow", "firearms", 5, (2,), firearm="long"),
        Weapon(
            "heavy_crossbow", "firearms", 7, (2,), firearm="long", categories=("heavy_or_long",)
        ),
        Weapon(
            "flintlock_rifle", "firearms", 7, (2,), firearm="long", categories=("heavy_or_long",)
        ),
        Weapon(
            "pistol",
            "firearms",
            4,
            (1, 2),
            firearm="short",
            categories=("rifled",),
            magazine=15,
            chambered=True,
        ),
        Weapon(
            "revolver", "firearms", 5, (1, 2), firearm="short", categories=("rifled",), magazine=6
        ),
        Weapon(
            "smg",
            "firearms",
            4,
            (2,),
            firearm="short",
            categories=("rifled",),
            modes="1/auto+2N",
            max_shots=14,
            magazine=32,
        ),
        Weapon(
            "carbine",
            "firearms",
            6,
            (2,),
            firearm="long",
            categories=("heavy_or_long", "rifled"),
            modes="1/3/auto+2N",
            max_shots=14,
            magazine=20,
            chambered=True,
        ),
        Weapon(
            "assault_carbine",
            "firearms",
            6,
            (2,),
            firearm="long",
            categories=("heavy_or_long", "rifled"),
            modes="1/auto+2N",
            max_shots=14,
            magazine=30,
            chambered=True,
        ),
        Weapon(
            "shotgun",
            "firearms",
            7,
            (2,),
            firearm="long",
            categories=("heavy_or_long",),
            modes="1/2",
            magazine=2,
        ),
        Weapon(
            "machine_gun",
            "firearms",
            7,
            (2,),
            firearm="long",
            categories=("heavy_or_long", "rifled"),
            modes="auto+3N",
            max_shots=20,
            belt=True,
        ),
    )
}

# Armour per area (p. 12) and the shield (a protective weapon, p. 8).
ARMOUR: dict[str, dict] = {
    "soft_vest": {"name": "Skyddsväst", "areas": {"torso": 12}},
    "helmet": {"name": "Hjälm", "areas": {"head": 6}},
    "leather_armour": {
        "name": "Läderrustning",
        "areas": {"torso": 3, "right_arm": 2, "left_arm": 2, "right_leg": 1, "left_leg": 1},
    },
    "mail_shirt": {
        "name": "Ringbrynja",
        "areas": {"torso": 6, "right_arm": 4, "left_arm": 4, "right_leg": 2, "left_leg": 2},
    },
    "spear_thrower_armour": {"name": "Spjutkastarens rustning", "areas": {"torso": 5}},
    "round_shield": {"name": "Rundsköld", "areas": {}, "shield": True},
}


# Dice hands (p. 4; rulings § Dice hands) ----------------------------------------------------


def hand_counts(base: int, free: int, forced: int) -> tuple[int, int, int]:
    """F and T cancel one for one, then at most 6 dice: F or T beyond 6 − B drop."""
    cancel = min(free, forced)
    free, forced = free - cancel, forced - cancel
    room = MAX_DICE - base
    return base, min(free, room), min(forced, room)


def hand_text(base: int, free: int, forced: int) -> str:
    return f"{base}B" + (f"{free}F" if free else "") + (f"{forced}T" if forced else "")


@cache
def hand_sums(base: int, free: int, forced: int) -> dict[int, Fraction]:
    """The counted dice's sum of a normalised hand: a forced hand counts its B lowest dice,
    a free hand (rolled for an attack) its B highest, a plain hand all of them."""
    n = base + free + forced
    counts: Counter[int] = Counter()
    for faces in product(range(1, SIDES + 1), repeat=n):
        ordered = sorted(faces)
        counted = ordered[:base] if forced else ordered[-base:]
        counts[sum(counted)] += 1
    whole = SIDES**n
    return {s: Fraction(c, whole) for s, c in sorted(counts.items())}


@cache
def area_choices(aim: int) -> tuple[tuple[frozenset, Fraction], ...]:
    """The areas the area roll (1B + 1F per aim level, p. 9) lets the attacker use: a
    plain 1B its table area; a free hand any of its dice's areas (p. 4), and with two
    matching dice any area, the head included (p. 9)."""
    n = 1 + min(aim, MAX_DICE - 1)
    counts: Counter[frozenset] = Counter()
    for faces in product(range(1, SIDES + 1), repeat=n):
        if n > 1 and len(set(faces)) < n:
            allowed = frozenset(AREAS)
        else:
            allowed = frozenset(AREA_TABLE[f] for f in faces)
        counts[allowed] += 1
    whole = SIDES**n
    return tuple((allowed, Fraction(c, whole)) for allowed, c in counts.items())


@cache
def sum_of_dice(n: int) -> dict[int, Fraction]:
    """The sum of n six-sided dice ("N" in auto+kN is one die, rulings § Attacks)."""
    counts: Counter[int] = Counter()
    for faces in product(range(1, SIDES + 1), repeat=n):
        counts[sum(faces)] += 1
    whole = SIDES**n
    return {s: Fraction(c, whole) for s, c in sorted(counts.items())}


# The situation, as read from the encounter -------------------------------------------------


@dataclass
class Body:
    """A combatant as the reference needs it (the GM's view of the state, plus the hands,
    which the test set up itself)."""

    id: str
    side: str
    x: float
    y: float
    posture: str = "standing"
    physique: int = 1
    agility: int = 1
    alertness: int = 1
    skills: dict = field(default_factory=dict)
    nerve_shock: int = 0
    movement: int = 6  # Förflyttning as given (nervchock not yet taken off)
    moved: float = 0.0
    vigilance_bonus: int = 0
    aware: bool = True
    acts: bool = True
    hidden: frozenset = frozenset()
    cover: dict = field(default_factory=dict)
    armour: tuple = ()  # catalogue keys
    armour_areas: tuple = ()  # per piece, {area: value} as the state shows it
    toughness: int = 2
    right: str | None = None
    left: str | None = None
    rounds: dict = field(default_factory=dict)
    range_aim: int = 0
    range_aim_target: str | None = None

    def skill(self, key: str) -> int:
        return int(self.skills.get(key, 0))

    @property
    def occupied_hands(self) -> int:
        return (self.right is not None) + (self.left is not None)

    def grip(self, key: str) -> int:
        return (self.right == key) + (self.left == key)

    @property
    def real_melee_weapon_in_hand(self) -> bool:
        return any(
            k is not None and WEAPONS[k].melee and WEAPONS[k].real for k in (self.right, self.left)
        )

    @property
    def shield(self) -> bool:
        return any(ARMOUR[k].get("shield") for k in self.armour)


@dataclass(frozen=True)
class Query:
    weapon: str
    aim: int = 0
    mode: str = ""
    shots: int | None = None
    area: str | None = None


def distance(a: Body, b: Body) -> float:
    return ((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5


def in_melee(c: Body, everyone: list[Body], reach: float) -> bool:
    """p. 10: foes close enough to reach each other (the campaign's melee reach)."""
    return any(
        o.side != c.side and o.acts and o.id != c.id and distance(c, o) <= reach for o in everyone
    )


def range_malus(metres: float, categories, aim_levels: int = 0) -> int:
    """p. 10: +1 ST per whole 10 m, then the table's rows in order, each step floored,
    then halved per level of distance aim."""
    malus = int(metres // 10)
    for row in ("improvised", "thrown", "heavy_or_long", "rifled"):
        if row in categories:
            malus = malus * 2 if row in ("improvised", "thrown") else malus // 2
    for _ in range(aim_levels):
        malus //= 2
    return malus


@dataclass
class Reference:
    test_base: int
    threshold: int
    vigilance: tuple[str, ...]
    hand: str
    p_miss: Fraction
    p_hidden: Fraction
    hits: dict  # (area or None, damage) -> chance
    shots: dict  # projectiles -> chance
    hands: dict  # projectiles -> the attack hand's text (p. 9: 1F per projectile past one)

    @property
    def p_hit(self) -> Fraction:
        return sum(self.hits.values(), Fraction(0))

    def damage(self) -> dict[int, Fraction]:
        out: dict[int, Fraction] = {}
        for (_area, dealt), p in self.hits.items():
            out[dealt] = out.get(dealt, Fraction(0)) + p
        return out

    def areas(self) -> dict:
        out: dict = {}
        for (area, dealt), p in self.hits.items():
            out.setdefault(area, {})
            out[area][dealt] = out[area].get(dealt, Fraction(0)) + p
        return out


def suggested_vigilance(candidates: list[tuple[str, int]], bonus: int) -> tuple[str, ...]:
    """The target's offer (project reading): its up to three best properties worth more
    than 0, ties in the candidates' order; when none is worth more than 0 but the best one
    with the bonus is, the best one alone."""
    ranked = sorted(candidates, key=lambda kv: -kv[1])
    chosen = tuple(k for k, v in ranked[:VIGILANCE_MAX] if v > 0)
    if not chosen and ranked and ranked[0][1] + bonus > 0:
        chosen = (ranked[0][0],)
    return chosen


def reference(
    attacker: Body,
    target: Body,
    everyone: list[Body],
    query: Query,
    *,
    round_: int,
    reach: float,
) -> Reference:
    weapon = WEAPONS[query.weapon]
    melee_attack = weapon.melee
    attacker_in_melee = in_melee(attacker, everyone, reach)
    target_in_melee = in_melee(target, everyone, reach)
    fired_in_melee = not melee_attack and attacker_in_melee and target_in_melee

    # Step 2 (p. 8-9): the target's vigilance.
    candidates: list[tuple[str, int]] = []
    effective_movement = max(0, target.movement - target.nerve_shock)
    room = effective_movement * (2 if target.posture == "standing" else 1)
    if target.cover or target.moved + 1 <= room:
        candidates.append(("agility", target.agility))
    candidates += [("alertness", target.alertness), ("evasion", target.skill("evasion"))]
    candidates.append((weapon.skill, target.skill(weapon.skill)))
    melee_context = melee_attack or fired_in_melee
    modified = {}
    if melee_context or (weapon.thrown and target.shield):
        modified["melee_weapons"] = (
            target.skill("melee_weapons")
            + (0 if target.real_melee_weapon_in_hand else -2)
            + (2 if target.shield else 0)
        )
    if melee_context:
        modified["brawling"] = target.skill("brawling") - target.occupied_hands
    for key, value in modified.items():  # a property counts once (p. 8)
        if any(k == key for k, _ in candidates):
            candidates = [(k, value if k == key else v) for k, v in candidates]
        else:
            candidates.append((key, value))
    bonus = target.alertness if round_ == 1 else target.vigilance_bonus
    chosen: tuple[str, ...] = ()
    threshold = 0
    if target.aware and target.acts:
        chosen = suggested_vigilance(candidates, bonus)
        values = dict(candidates)
        if chosen:
            threshold = sum(values[k] for k in chosen) + bonus

    # Step 3 (p. 10): melee and range.
    if attacker.posture != "standing" and (melee_attack or attacker_in_melee):
        threshold += 2
    if melee_attack:
        if weapon.two_handed and attacker.grip(weapon.key) == 1:
            threshold += max(0, 5 - attacker.physique)
    else:
        if fired_in_melee and target.posture == "standing":
            if weapon.firearm == "short":
                threshold += 1
            elif weapon.firearm == "long" or weapon.bow:
                threshold += 3
        aim_levels = attacker.range_aim if attacker.range_aim_target == target.id else 0
        threshold += range_malus(distance(attacker, target), weapon.categories, aim_levels)

    # p. 9: the attack test.
    test_base = attacker.skill(weapon.skill) + min(attacker.agility, attacker.alertness)
    auto, fixed, random_dice = weapon.mode(query.mode)
    aim = 0 if auto else query.aim
    shots: dict[int, Fraction] = {}
    if auto:
        base = fixed if query.shots is None else query.shots
        cap = None
        if weapon.ammo:
            cap = min(weapon.max_per_round, attacker.rounds.get(weapon.key, 0))
        for extra, p in sum_of_dice(random_dice).items() if random_dice else [(0, Fraction(1))]:
            n = base + extra
            if cap is not None:
                n = min(n, cap)
            n = max(1, n)
            shots[n] = shots.get(n, Fraction(0)) + p
    else:
        shots[fixed] = Fraction(1)
    shots = dict(sorted(shots.items()))

    def hand(n: int) -> tuple[int, int, int]:
        free = aim + (1 if weapon.two_handed and attacker.grip(weapon.key) == 2 else 0) + n - 1
        forced = 2 + (attacker.occupied_hands if weapon.key == "unarmed" else 0)
        forced += attacker.nerve_shock
        return hand_counts(2, free, forced)

    # p. 12-13: protection, strength and damage.
    area_armour = {
        area: sum(int(piece.get(area, 0)) for piece in target.armour_areas) for area in AREAS
    }
    weighted = sum(
        int(v) * (3 if a == "torso" else 1)
        for key, piece in zip(target.armour, target.armour_areas, strict=True)
        if not ARMOUR[key].get("shield")
        for a, v in piece.items()
    )
    total_armour = weighted // 10

    def damage(area: str | None, active: int) -> int:
        if area is None:
            protection = total_armour + len(target.cover)
            divisor = target.toughness
        else:
            protection = area_armour[area] + int(target.cover.get(area, 0))
            divisor = 2 if area == "head" else target.toughness
        return max(0, (active - protection) // divisor)

    p_miss = Fraction(0)
    p_hidden = Fraction(0)
    hits: dict = {}
    for n, p_n in shots.items():
        with_area = n < NO_AREA_PROJECTILES and not weapon.explosive
        for dice, p_dice in hand_sums(*hand(n)).items():
            p = p_n * p_dice
            margin = test_base + dice - threshold
            if margin < 0:
                p_miss += p
                continue
            active = margin + (dice if weapon.real else 0) + weapon.strength
            active += attacker.physique if weapon.fys else 0
            if not with_area:
                key = (None, damage(None, active))
                hits[key] = hits.get(key, Fraction(0)) + p
                continue
            for allowed, p_area in area_choices(aim):
                open_ = [a for a in AREAS if a in allowed and a not in target.hidden]
                if not open_:
                    p_hidden += p * p_area
                    continue
                if query.area in open_:
                    area = query.area
                else:
                    area = open_[0]
                    for other in open_[1:]:
                        if damage(other, active) > damage(area, active):
                            area = other
                key = (area, damage(area, active))
                hits[key] = hits.get(key, Fraction(0)) + p * p_area
    first = next(iter(shots))
    return Reference(
        test_base=test_base,
        threshold=threshold,
        vigilance=chosen,
        hand=hand_text(*hand(first)),
        p_miss=p_miss,
        p_hidden=p_hidden,
        hits=hits,
        shots=shots,
        hands={n: hand_text(*hand(n)) for n in shots},
    )
