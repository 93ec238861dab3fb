"""The arithmetic of Aoristos combat (p. 6-13): pure functions of the rule text, each with
its page. The state machine (`engine`) calls them; the pages call them for the chances
they show before a roll. Rounding is always down (rulings.md).
"""

from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache
from math import ceil

from rules.aoristos.combat.gear import LIMBS, RANGE_CATEGORIES, Armour
from rules.aoristos.dice import Hand, Purpose
from rules.errors import RulesError

__all__ = [
    "AREA_TABLE",
    "MELEE_VIGILANCE",
    "VIGILANCE_MAX",
    "active_strength",
    "aim_cost",
    "area_hand",
    "area_options",
    "attack_hand",
    "attack_test_base",
    "damage",
    "effective_drive",
    "effective_movement",
    "limb_state_after",
    "movement_cost",
    "movement_extra",
    "range_aim_cost",
    "range_malus",
    "stress_hand",
    "total_armour",
    "unconscious",
    "wound",
]

# p. 9: "6-5 Bålen, 4 Höger arm, 3 Vänster arm, 2 Höger ben, 1 Vänster ben".
AREA_TABLE: Mapping[int, str] = {
    6: "torso",
    5: "torso",
    4: "right_arm",
    3: "left_arm",
    2: "right_leg",
    1: "left_leg",
}
VIGILANCE_MAX = 3  # p. 8: "bara tre egenskaper i taget"
MELEE_VIGILANCE = ("melee_weapons", "brawling")


def stress_hand() -> Hand:
    """p. 6: "Omedelbart inför varje egen aktivering förlorar man 1B1F KP" (the lowest die
    counts: low stress is good, Jakai's example)."""
    return Hand.of(1, free=1)


STRESS_PURPOSE = Purpose.STRESS


def effective_drive(drive: int, nerve_shock: int) -> int:
    """KP at the end of an activation (p. 6, 13): Handlingskraft − 1 per degree of
    nervchock, not below 0."""
    return max(0, drive - nerve_shock)


def effective_movement(movement: int, nerve_shock: int) -> int:
    """Förflyttning − 1 per degree of nervchock (p. 13), not below 0."""
    return max(0, movement - nerve_shock)


def movement_extra(distance: float, agility: int, movement: int) -> int | None:
    """The KP a round's distance adds to a movement action's base 1 KP (p. 7):
    2 KP once past Rörlighet, then 1 KP per started multiple of Rörlighet past
    Förflyttning. None when the distance cannot be moved at all (past 2 × Förflyttning,
    or past Förflyttning with Rörlighet 0)."""
    if distance < 0:
        raise RulesError("a distance cannot be negative")
    if distance > 2 * movement:
        return None
    extra = 0
    if distance > agility:
        extra += 2
    if distance > movement:
        if agility <= 0:
            return None
        extra += ceil((distance - movement) / agility)
    return extra


def movement_cost(
    distance: float,
    *,
    agility: int,
    movement: int,
    moved_before: float = 0,
    by_round_total: bool = True,
    posture: str = "standing",
) -> int | None:
    """KP for one movement action of `distance` metres (p. 7); None if not allowed.

    `moved_before` is what the mover moved earlier this round (vigilance moves
    included). The rule's sentence counts the round's total distance: the action pays 1
    plus what its metres add to the round's extra (the default, a house rule, rulings.md).
    The text's Ansgar example instead charges each move on its own distance
    (`by_round_total=False`). Either way the round's total stays within 2 × Förflyttning.
    Sitting or lying: 1 m per KP (started metres), at most Förflyttning a round.

    Worked (Ansgar, RÖR 2, FÖR 7): 2 m → 1; 7 m → 3; 9 m → 4; 11 m → 5; 2 m then
    8 m more → 1 + 5 = 6 KP by the round's total, 1 + 4 = 5 KP by each move.
    """
    if distance <= 0:
        raise RulesError("a move covers some distance")
    total = moved_before + distance
    if posture != "standing":
        if total > movement:
            return None
        return ceil(distance)
    if total > 2 * movement:
        return None
    if by_round_total:
        after = movement_extra(total, agility, movement)
        before = movement_extra(moved_before, agility, movement) if moved_before else 0
        if after is None or before is None:
            return None
        return 1 + after - before
    extra = movement_extra(distance, agility, movement)
    return None if extra is None else 1 + extra


def aim_cost(levels: int, conditions: int) -> int:
    """Säkerhetssikte (p. 8): one level per condition met costs 1 KP, further levels 2 KP
    each. Worked (Levi): one condition, so only one cheap level: 2 levels cost 3 KP."""
    if levels < 0 or conditions < 0:
        raise RulesError("aim levels and conditions cannot be negative")
    cheap = min(levels, conditions)
    return cheap + 2 * (levels - cheap)


def range_aim_cost(levels: int) -> int:
    """Avståndssikte (p. 10-11): 4 KP per level."""
    return 4 * levels


def range_malus(distance: float, categories: Iterable[str] = (), range_aim: int = 0) -> int:
    """Avståndsmalus (p. 10): +1 ST per whole 10 m, then the weapon's categories in the
    table's order (improvised ×2, thrown ×2, heavy crossbow or long firearm ×0.5, rifled
    ×0.5), rounding down after each step, then halved once per distance-aim level.

    Worked at 37 m: light crossbow +3, an improvised thrown stone +12, a modern SMG +1,
    an assault carbine ±0."""
    if distance < 0:
        raise RulesError("a distance cannot be negative")
    malus = int(distance // 10)
    for doubles in _range_steps(tuple(categories)):
        malus = malus * 2 if doubles else malus // 2
    for _ in range(range_aim):
        malus //= 2
    return malus


@lru_cache(maxsize=64)
def _range_steps(categories: tuple[str, ...]) -> tuple[bool, ...]:
    """`range_malus`'s steps for a weapon's categories, in the table's order (True:
    doubles, False: halves), checked once per weapon (every ranged attack asks)."""
    chosen = set(categories)
    unknown = chosen - set(RANGE_CATEGORIES)
    if unknown:
        raise RulesError(f"unknown range categories {sorted(unknown)}")
    return tuple(
        category in ("improvised", "thrown") for category in RANGE_CATEGORIES if category in chosen
    )


def attack_test_base(skill: int, agility: int, alertness: int) -> int:
    """Attack TB (p. 9): the weapon's skill + the lower of Rörlighet and Sinnesnärvaro."""
    return skill + min(agility, alertness)


def attack_hand(
    *,
    aim: int = 0,
    occupied_hands: int = 0,
    two_handed_grip: bool = False,
    projectiles: int = 1,
    nerve_shock: int = 0,
) -> Hand:
    """The attack test's hand (p. 9, 13): 2B2T, +1F per aim level, +1T per occupied hand
    in an unarmed attack, +1F for a two-handed weapon in both hands, +1F per projectile
    beyond the first, +1T per degree of nervchock; all cancel before the 6-dice cap."""
    free = aim + (1 if two_handed_grip else 0) + max(0, projectiles - 1)
    forced = 2 + occupied_hands + nerve_shock
    return Hand.of(2, free=free, forced=forced)


def area_hand(aim: int = 0) -> Hand:
    """The hit-area roll (p. 9): 1B plus 1F per aim level; not a success test."""
    return Hand.of(1, free=aim)


def area_options(dice: Iterable[int], free: bool) -> frozenset[str]:
    """The areas an area roll allows (p. 9). A plain 1B gives its table area. A free hand
    lets the attacker use any of its dice; any two matching dice allow every area,
    the head included."""
    dice = tuple(dice)
    if not free:
        return frozenset({AREA_TABLE[dice[0]]})
    if any(count >= 2 for count in Counter(dice).values()):
        return frozenset(AREA_TABLE.values()) | {"head"}
    return frozenset(AREA_TABLE[d] for d in dice)


def active_strength(
    *, margin: int, dice_sum: int, real_weapon: bool, weapon_strength: int, physique: int | None
) -> int:
    """Active strength (p. 12): the attack's margin (TB + counted dice − ST), + the counted
    dice again for a real weapon, + the item's strength value, + FYS for an attack by
    physical contact or a throw (`physique` None otherwise).

    Worked (Etka, sling): margin 6 + 4 − 9 = 1, dice 4 again, sling +5 → 10."""
    return margin + (dice_sum if real_weapon else 0) + weapon_strength + (physique or 0)


def total_armour(pieces: Iterable[Armour]) -> int:
    """Totalrustning (p. 12): every area's protection summed, the torso counted three
    times, divided by 10 (rounded down). Shields are weapons, not armour."""
    worn = [piece for piece in pieces if not piece.shield]
    total = 0
    for piece in worn:
        for area, value in piece.areas:
            total += value * (3 if area == "torso" else 1)
    return total // 10


def total_armour_and_cover(pieces: Iterable[Armour], cover: Iterable[tuple[str, int]]) -> int:
    """Totalrustning with the cover of a target hidden from the start counted as armour
    (p. 12: "Om målet redan från början var helt dolt fungerar skyddet som rustning"):
    armour and cover summed area by area, the torso three times, divided by 10."""
    total = 0
    for piece in pieces:
        if not piece.shield:
            for area, value in piece.areas:
                total += value * (3 if area == "torso" else 1)
    for area, value in cover:
        total += value * (3 if area == "torso" else 1)
    return total // 10


def damage(final_strength: int, toughness: int, *, head: bool = False) -> int:
    """Damage (p. 13): how many times Härdighet fits in the final strength; the head uses
    2 instead. Nothing below 0. Worked (Miriam): 23 − 4 = 19, Härdighet 3 → 6."""
    divisor = 2 if head else toughness
    if divisor <= 0:
        # Härdighet FYS + 1 is at least 1; a stat block typed by hand may say 0.
        divisor = 1
    return max(0, final_strength // divisor)


def limb_state_after(state: str, damage: int) -> str:
    """A limb is broken by a single hit of 3+ damage and destroyed by 5+ (p. 14); a limb
    never gets better from a hit."""
    order = ("ok", "broken", "destroyed")
    new = "destroyed" if damage >= 5 else "broken" if damage >= 3 else "ok"
    return max(state, new, key=order.index)


def wound(damage: int, area: str | None) -> dict:
    """What one wound adds (p. 13-14): nervchock = damage, bleed rate = damage − 1; a hit
    that is not on a limb (torso, head, or no area) adds damage − 1 organtrauma.
    Nothing for 0 damage."""
    if damage <= 0:
        return {"nerve_shock": 0, "bleed_rate": 0, "organ_trauma": 0}
    return {
        "nerve_shock": damage,
        "bleed_rate": damage - 1,
        "organ_trauma": 0 if area in LIMBS else damage - 1,
    }


def unconscious(bleed_rate: int, nerve_shock: int, shock_tolerance: int) -> bool:
    """p. 14: at a hit, bleed rate + nervchock reaching Chocktolerans knocks one out."""
    return bleed_rate + nerve_shock >= shock_tolerance
