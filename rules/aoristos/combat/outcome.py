"""What the dice make of one attack (p. 9-13), once its threshold is known: how many
projectiles fly (automatic fire, p. 11), which hand rolls (p. 9), where it lands (the
area roll, hidden areas and the attacker's free choice, p. 4, 9), and the hit's strength
and damage on that area (p. 12-13).

The engine resolves an attack with `strike` on the dice it rolls; the preview and the
vigilance prompt show `odds`, the exact distribution of the same `strike` over every
die, so the chance a page shows is the chance the engine plays. Pure arithmetic: the
attack's fixed figures come in an `AttackSetup` (`attacks.attack_setup` builds it from
an encounter).

Where the attacker chooses the area (a free area hand, p. 4; matching dice, p. 9), the
server chooses for them (rulings § Dice hands: the best choice for the roll's purpose):
the wanted area when the dice allow it and it is not hidden, else the allowed area the
hit hurts most, at equal damage in the order head, torso, right arm, left arm, right
leg, left leg (docs/rules/aoristos.md, "The hit area").
"""

from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial, prod

from rules.aoristos.combat import figures as F
from rules.aoristos.combat.gear import AREAS
from rules.aoristos.dice import Hand, Purpose, distribution
from rules.combat_kit import quick_init

AREA_LIMIT = 4  # p. 9: 4 or more projectiles in one attack have no hit area
SIDES = 6


@quick_init  # one of a simulated fight's hottest values (combat_kit.quick_init)
@dataclass(frozen=True)
class AttackSetup:
    """The figures of one attack that the dice do not decide (p. 8-12).

    * `shots`: the projectiles chosen (in auto mode the fixed part), `random_dice` the
      six-sided dice auto fire adds (p. 11), `shot_cap` what the weapon can fire this
      round (its max and the rounds in it; None for weapons without ammunition).
    * `protection`: per area, the armour and the cover there (p. 12); `total_protection`
      for a hit with no area: Totalrustning and −1 strength per covered area (p. 12).
    * `hidden`: areas the target's own body hides (p. 9: a hit there misses).
    """

    test_base: int
    threshold: int
    aim: int = 0
    shots: int = 1
    random_dice: int = 0
    shot_cap: int | None = None
    occupied_hands: int = 0
    two_handed_grip: bool = False
    nerve_shock: int = 0
    explosive: bool = False
    real_weapon: bool = True
    weapon_strength: int = 0
    physique: int | None = None
    called_area: str | None = None
    hidden: frozenset[str] = frozenset()
    protection: tuple[tuple[str, int], ...] = ()
    total_protection: int = 0
    toughness: int = 2

    def projectiles(self, auto_dice: tuple[int, ...] = ()) -> int:
        """The projectiles fired (p. 11): the chosen ones plus the auto dice, no more than
        the weapon fires in a round or holds; an attack always has one."""
        shots = self.shots + sum(auto_dice)
        if self.shot_cap is not None:
            shots = min(shots, self.shot_cap)
        return max(1, shots)

    def hand(self, shots: int) -> Hand:
        """The attack test's hand for this many projectiles (p. 9, 13)."""
        return _attack_hand(
            self.aim, self.occupied_hands, self.two_handed_grip, shots, self.nerve_shock
        )

    def has_area(self, shots: int) -> bool:
        """p. 9: explosions and bursts of 4+ projectiles have no hit area."""
        return shots < AREA_LIMIT and not self.explosive

    def protection_on(self, area: str | None) -> int:
        if area is None:
            return self.total_protection
        for name, value in reversed(self.protection):  # as a dict of them: the last counts
            if name == area:
                return value
        return 0

    def active_strength(self, margin: int, dice_sum: int) -> int:
        """p. 12: the margin, the dice again for a real weapon, the item, FYS."""
        return F.active_strength(
            margin=margin,
            dice_sum=dice_sum,
            real_weapon=self.real_weapon,
            weapon_strength=self.weapon_strength,
            physique=self.physique,
        )

    def damage_on(self, area: str | None, active: int) -> int:
        """p. 12-13: the final strength on that area, divided by Härdighet (head: 2)."""
        return F.damage(active - self.protection_on(area), self.toughness, head=area == "head")


@lru_cache(maxsize=256)
def _attack_hand(aim: int, occupied: int, two_handed: bool, shots: int, nerve_shock: int) -> Hand:
    """`figures.attack_hand` of these figures, made once (every attack asks it)."""
    return F.attack_hand(
        aim=aim,
        occupied_hands=occupied,
        two_handed_grip=two_handed,
        projectiles=shots,
        nerve_shock=nerve_shock,
    )


@quick_init  # one of a simulated fight's hottest values (combat_kit.quick_init)
@dataclass(frozen=True)
class Struck:
    """One attack's outcome. `reason`: "hit", "miss" (total under ST) or "hidden_area"
    (the test succeeded, but every area the dice allowed is hidden, p. 9)."""

    shots: int
    total: int
    area: str | None
    reason: str
    margin: int = 0
    active: int = 0
    protection: int = 0
    final: int = 0
    damage: int = 0

    @property
    def hit(self) -> bool:
        return self.reason == "hit"


def choose_area(setup: AttackSetup, options: frozenset[str], active: int) -> str:
    """The area an attack goes to among those the area roll allows (p. 4, 9): the wanted
    one if allowed and not hidden, else the allowed area this hit hurts most (ties: the
    order of `AREAS`). When every allowed area is hidden, the one it goes to anyway."""
    open_ = options - setup.hidden or options
    if len(open_) == 1:  # a plain area roll (1B) allows one area: it goes there
        return next(iter(open_))
    if setup.called_area in open_:
        return setup.called_area
    ranked = [a for a in AREAS if a in open_]
    return max(ranked, key=lambda a: (setup.damage_on(a, active), -ranked.index(a)))


def strike(setup: AttackSetup, shots: int, dice_sum: int, options: frozenset[str] | None) -> Struck:
    """The outcome for these dice (p. 9-13): `dice_sum` is the attack test's counted dice,
    `options` the areas the area roll allows (None when the attack has no area)."""
    total = setup.test_base + dice_sum
    margin = total - setup.threshold
    active = setup.active_strength(margin, dice_sum)
    area = None if options is None else choose_area(setup, options, active)
    if margin < 0:
        return Struck(shots, total, area, "miss", margin)
    if area is not None and area in setup.hidden:
        return Struck(shots, total, area, "hidden_area", margin)
    protection = setup.protection_on(area)
    return Struck(
        shots,
        total,
        area,
        "hit",
        margin,
        active,
        protection,
        active - protection,
        setup.damage_on(area, active),
    )


# The exact distribution ---------------------------------------------------------------


@lru_cache(maxsize=16)
def sum_distribution(dice: int) -> tuple[tuple[int, Fraction], ...]:
    """The sum of `dice` six-sided dice (auto fire's "N", p. 11)."""
    if dice <= 0:
        return ((0, Fraction(1)),)
    counts: Counter[int] = Counter({0: 1})
    for _ in range(dice):
        nxt: Counter[int] = Counter()
        for total, ways in counts.items():
            for face in range(1, SIDES + 1):
                nxt[total + face] += ways
        counts = nxt
    whole = SIDES**dice
    return tuple((total, Fraction(ways, whole)) for total, ways in sorted(counts.items()))


@lru_cache(maxsize=16)
def area_option_distribution(aim: int) -> tuple[tuple[frozenset[str], Fraction], ...]:
    """What the area roll (1B + 1F per aim level, p. 9) allows, with its chance: the
    area of each die of a free hand (p. 4), every area on matching dice (p. 9)."""
    hand = F.area_hand(aim)
    n = hand.dice_count
    weights: Counter[frozenset[str]] = Counter()
    for faces in combinations_with_replacement(range(1, SIDES + 1), n):
        ways = factorial(n) // prod(factorial(k) for k in Counter(faces).values())
        weights[F.area_options(faces, bool(hand.free))] += ways
    whole = SIDES**n
    return tuple((options, Fraction(w, whole)) for options, w in weights.items())


def shot_distribution(setup: AttackSetup) -> dict[int, Fraction]:
    """The projectiles fired, with their chances (p. 11)."""
    out: dict[int, Fraction] = {}
    for extra, p in sum_distribution(setup.random_dice):
        shots = setup.projectiles((extra,))
        out[shots] = out.get(shots, Fraction(0)) + p
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class Odds:
    """The exact distribution of an attack's outcome: `miss` (total under ST), `hidden`
    (a hit on a hidden area, p. 9), and `hits`: (area or None, damage) → chance."""

    miss: Fraction
    hidden: Fraction
    hits: dict[tuple[str | None, int], Fraction] = field(default_factory=dict)
    shots: dict[int, Fraction] = field(default_factory=dict)

    @property
    def p_hit(self) -> Fraction:
        return sum(self.hits.values(), Fraction(0))

    def damage(self) -> dict[int, Fraction]:
        """Damage → chance, over every hit (misses left out)."""
        out: dict[int, Fraction] = {}
        for (_, dealt), p in self.hits.items():
            out[dealt] = out.get(dealt, Fraction(0)) + p
        return dict(sorted(out.items()))

    def areas(self) -> dict[str | None, dict[int, Fraction]]:
        """Area (None: no area) → damage → chance, in the order of `AREAS`."""
        out: dict[str | None, dict[int, Fraction]] = {}
        for area in (*AREAS, None):
            found = {d: p for (a, d), p in self.hits.items() if a == area}
            if found:
                out[area] = dict(sorted(found.items()))
        return out


def odds(setup: AttackSetup) -> Odds:
    """The exact distribution of `strike` over every die the attack rolls: the auto
    dice, the attack test and the area roll (p. 9-13)."""
    miss = hidden = Fraction(0)
    hits: dict[tuple[str | None, int], Fraction] = {}
    shots_p = shot_distribution(setup)
    areas = area_option_distribution(setup.aim)
    for shots, p_shots in shots_p.items():
        with_area = setup.has_area(shots)
        for dice_sum, p_sum in distribution(setup.hand(shots), Purpose.TEST).items():
            p = p_shots * p_sum
            if setup.test_base + dice_sum < setup.threshold:
                miss += p
                continue
            for options, p_area in areas if with_area else ((None, Fraction(1)),):
                struck = strike(setup, shots, dice_sum, options)
                if struck.reason == "hidden_area":
                    hidden += p * p_area
                else:
                    key = (struck.area, struck.damage)
                    hits[key] = hits.get(key, Fraction(0)) + p * p_area
    return Odds(miss, hidden, hits, shots_p)


def hit_chance(setup: AttackSetup) -> Fraction:
    """P(a hit): `odds(setup).p_hit`, without the damage (for the vigilance prompt,
    which weighs every choice of vigilance)."""
    areas = area_option_distribution(setup.aim)
    open_ = sum((p for options, p in areas if options - setup.hidden), Fraction(0))
    total = Fraction(0)
    for shots, p_shots in shot_distribution(setup).items():
        landing = open_ if setup.has_area(shots) else Fraction(1)
        dist = distribution(setup.hand(shots), Purpose.TEST)
        p_test = sum(
            (p for s, p in dist.items() if setup.test_base + s >= setup.threshold), Fraction(0)
        )
        total += p_shots * p_test * landing
    return total
