"""Vigilance (vaksamhet, p. 8-9): the properties a target may set against an attack,
the offer of the three best, its bonus (left-over KP, or SIN in the first round), and
the move a target makes with RÖR in its vigilance (p. 9), where it chooses it
(`vigilance_move_plan`: toward known cover, a dive, melee followers), and the foes in a
melee who may follow it on their own (`foes_who_may_follow`). The attack's
threshold, of which vigilance is the larger part, is `attacks.threshold_parts`.
"""

import math
from operator import itemgetter
from typing import NamedTuple

from rules.aoristos.combat import figures as F
from rules.aoristos.combat.reading import (
    AttackFacts,
    attack_facts,
    effective_movement,
    holds_real_melee_weapon,
)
from rules.aoristos.combat.state import Combatant, Encounter, PendingAttack
from rules.combat_kit import combatant, refuse
from rules.errors import gettext_noop as _

COVER_WITHIN = 10  # p. 9: "valfritt känt skydd inom 10 meter"
IN_COVER = 0.5  # metres from a drawn cover's edge that count as being at it (a reading)
SQUARE = 0.26  # cos 75°: a move within 15° of square to the line of fire is square to it
SLACK = 0.01  # metres a typed or tapped point may be off (two decimals)


def vigilance_options(
    state: Encounter, attack: PendingAttack, facts: AttackFacts | None = None
) -> dict[str, int]:
    """The properties the target may use against this attack (p. 8), with their values.

    RÖR, SIN, Undvika and the target's own level in the attacker's skill always;
    Närstridsvapen against any melee attack (−2 without a real melee weapon in hand, +2
    with a shield, and with a shield against throws too); Slagsmål against any melee
    attack (−1 per occupied hand). A property counts once.

    `facts`: the attack's `reading.AttackFacts` in `state`, when the caller has them."""
    if facts is None:
        facts = attack_facts(state, attack)
    target, weapon = facts.target, facts.weapon
    melee_attack = facts.melee_attack or facts.fired_in_melee
    shield = any(piece.shield for piece in target.armour)
    options = {
        "agility": target.agility,
        "alertness": target.alertness,
        "evasion": target.skill("evasion"),
        weapon.skill: target.skill(weapon.skill),
    }
    if melee_attack or (weapon.thrown and shield):
        real = holds_real_melee_weapon(target)
        options["melee_weapons"] = (
            target.skill("melee_weapons") + (0 if real else -2) + (2 if shield else 0)
        )
    if melee_attack:
        options["brawling"] = target.skill("brawling") - target.occupied_hands
    if "agility" in options and not vigilance_move_possible(state, attack, facts):
        del options["agility"]
    return options


def vigilance_bonus(state: Encounter, target: Combatant) -> tuple[str, int]:
    """p. 8: the left-over KP; in the first round SIN instead (not in a single attack,
    where the target has a round's KP, p. 6)."""
    if state.round == 1 and not state.single:
        return "alertness_bonus", target.alertness
    return "cp_bonus", target.vigilance_bonus


def default_vigilance(options: dict[str, int], bonus: int = 0) -> tuple[str, ...]:
    """The offer: the three best properties worth more than 0 (ties in the text's order).
    Naming any property brings the vigilance bonus (p. 8: it helps "all vaksamhet, oavsett
    egenskaperna"), so when none is worth more than 0 the offer names the best one if it
    and the bonus together raise the ST: a positive bonus is never left unused."""
    # Highest first; equal values keep the text's order (a reversed sort stays stable).
    ranked = sorted(options.items(), key=itemgetter(1), reverse=True)
    chosen = tuple([key for key, value in ranked[: F.VIGILANCE_MAX] if value > 0])
    if not chosen and ranked and ranked[0][1] + bonus > 0:
        chosen = (ranked[0][0],)
    return chosen


def vigilance_move(state: Encounter, attack: PendingAttack) -> tuple[float, float] | None:
    """p. 9: with RÖR in vigilance and no cover, the target moves: in melee 1 m away from
    the attacker; at range at least 1 m, across the line of fire. This is the engine's
    own move when the target names no point (`vigilance_move_plan` checks a chosen one).
    Worked out with the attack's other facts (`reading.attack_facts`: `move_to`)."""
    return attack_facts(state, attack).move_to


def vigilance_move_possible(
    state: Encounter, attack: PendingAttack, facts: AttackFacts | None = None
) -> bool:
    """Whether the target can make the move RÖR in vigilance asks (p. 9). RÖR is always
    available (p. 8), also on the ground: a target sitting or lying rolls the metre aside
    in its posture, as its moves go there (1 m per KP, at most Förflyttning a round,
    p. 7), and the metre costs no KP (vigilance is no action, p. 8). It cannot be named
    only when that metre does not fit in the round (2 × Förflyttning standing,
    Förflyttning on the ground, nervchock counted) and the target is not in cover.
    `facts`: the attack's `reading.AttackFacts`, when the caller has them."""
    if facts is None:
        facts = attack_facts(state, attack)
    if facts.move_to is None:
        return True
    target = facts.target
    room = effective_movement(target) * (2 if target.posture == "standing" else 1)
    return target.moved + 1 <= room


# The vigilance move by RÖR (p. 9), where the target chooses it ----------------------------


class VigilanceMove(NamedTuple):
    """Where the RÖR in a vigilance takes the target (p. 9): the point (None: it stays),
    the metres it moves, whether it dives to the ground, who follows it (melee), and the
    areas proper cover hides where it ends (p. 12; None: it did not move)."""

    to: tuple[float, float] | None
    metres: float
    prone: bool
    followers: tuple[str, ...]
    cover_after: int | None


STAY = VigilanceMove(None, 0.0, False, (), None)


def polygon_distance(x: float, y: float, points) -> float:
    """Metres from (x, y) to a drawn cover (the area inside `points`): 0 inside it."""
    inside = False
    n = len(points)
    best = math.inf
    for i in range(n):
        (x1, y1), (x2, y2) = points[i], points[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
        dx, dy = x2 - x1, y2 - y1
        length = dx * dx + dy * dy
        t = 0.0 if not length else max(0.0, min(1.0, ((x - x1) * dx + (y - y1) * dy) / length))
        best = min(best, math.hypot(x - (x1 + t * dx), y - (y1 + t * dy)))
    return 0.0 if inside else best


def known_cover(state: Encounter, target: Combatant) -> list[tuple[int, object]]:
    """The drawn cover the target knows within 10 m (p. 9), with each shape's index: the
    cover shown to everyone; an NPC (the GM's) knows the GM's own too."""
    return [
        (index, shape)
        for index, shape in enumerate(state.scene.shapes)
        if shape.kind == "cover"
        and (shape.shown or target.npc)
        and polygon_distance(target.x, target.y, shape.points) <= COVER_WITHIN
    ]


def move_reach(target: Combatant, melee: bool) -> int:
    """The longest vigilance move (p. 9): 1 m in melee; at range the target's RÖR in
    metres, at least the 1 m the text asks."""
    return 1 if melee else max(1, target.agility)


def room_left(target: Combatant) -> float:
    """Metres still free in the round (p. 7: 2 × Förflyttning, on the ground Förflyttning)."""
    room = effective_movement(target) * (2 if target.posture == "standing" else 1)
    return room - target.moved


def vigilance_move_plan(
    state: Encounter,
    attack: PendingAttack,
    facts: AttackFacts,
    x: float | None = None,
    y: float | None = None,
    prone: bool = False,
    followers: tuple[str, ...] = (),
    trusted: bool = False,
) -> VigilanceMove:
    """The vigilance move (p. 9) the target chooses, checked, or a refusal.

    In melee: 1 m away from the attacker (`facts.move_to`), and "Alla andra i striden får
    hänga på och röra sig lika långt åt samma håll, om de vill": `followers`, others of
    the target's side in the melee (within melee reach of it) with the metre to spare.
    The foes in it decide for themselves once the move is made (`foes_who_may_follow`).
    At range: "minst 1 meter och upp till målets Rörlighet i meter mot valfritt känt
    skydd inom 10 meter. Om inget skydd finns är rörelsen vinkelrät mot anfallarens
    siktlinje. 1 meter av sådan förflyttning går att byta ut mot att målet kastar sig
    till marken": a point (x, y) at most RÖR m away less the metre of a dive, at least 1
    m less it, nearer to a drawn cover the target knows within 10 m (`known_cover`), or,
    with none, square to the line of fire. No point: the engine's 1 m square to the line
    of fire, or, with `prone`, the dive in place. A move that ends in or at drawn cover
    (`IN_COVER`) is in proper cover: the campaign's `vigilance_cover_areas` hidden for
    hits with no area (p. 12). In cover, nobody moves (`STAY`). A point toward neither
    is refused with the code "toward_cover": the GM may confirm it (`trusted`, cover
    the map does not show; `attacks._confirm_move`)."""
    if facts.move_to is None:
        return STAY
    target = facts.target
    melee = facts.melee_attack
    if melee:
        if x is not None or y is not None or prone:
            refuse(
                _("in melee the vigilance move is 1 m away from the attacker (p. 9)"),
                "vigilance_move",
            )
        seen = set()
        for fid in followers:
            f = combatant(state, fid)
            if fid in seen or fid == target.id or f.side != target.side or not f.acts:
                refuse(_("{name} cannot follow this move"), "vigilance_move", name=f.name)
            seen.add(fid)
            if math.hypot(f.x - target.x, f.y - target.y) > state.house.melee_reach:
                refuse(_("{name} is not in this melee"), "vigilance_move", name=f.name)
            if room_left(f) < 1 - SLACK:
                refuse(_("{name} has no metre left this round"), "vigilance_move", name=f.name)
        return VigilanceMove(facts.move_to, 1.0, False, tuple(followers), 0)
    if followers:
        refuse(_("only a melee moves along with the target (p. 9)"), "vigilance_move")
    if (x is None) != (y is None):
        refuse(_("the vigilance move needs both x and y"), "bad_field", field="x")
    if x is None:
        if prone:  # the whole metre swapped for the dive
            return VigilanceMove(None, 0.0, True, (), 0)
        to = facts.move_to
    else:
        to = (round(float(x), 2), round(float(y), 2))
    metres = round(math.hypot(to[0] - target.x, to[1] - target.y), 2)
    reach = move_reach(target, False) - (1 if prone else 0)
    least = 0 if prone else 1
    if metres < least - SLACK or metres > reach + SLACK:
        refuse(
            _("the vigilance move is {least} to {most} m here (p. 9)"),
            "vigilance_move",
            least=least,
            most=reach,
        )
    if metres > room_left(target) + SLACK:
        refuse(_("{name} has not so many metres left this round (p. 7)"), "vigilance_move",
               name=target.name)
    covers = known_cover(state, target)
    if x is not None and metres > SLACK and not trusted:
        if covers:
            toward = any(
                polygon_distance(*to, shape.points)
                < polygon_distance(target.x, target.y, shape.points) - SLACK
                for _index, shape in covers
            )
            if not toward:
                refuse(_("the move goes toward known cover within 10 m (p. 9)"),
                       "toward_cover")
        else:
            ax, ay = target.x - facts.attacker.x, target.y - facts.attacker.y
            line = math.hypot(ax, ay) or 1.0
            mx, my = to[0] - target.x, to[1] - target.y
            if abs(ax * mx + ay * my) / (line * metres) > SQUARE:
                refuse(
                    _("with no known cover the move is square to the line of fire (p. 9)"),
                    "toward_cover",
                )
    there = any(polygon_distance(*to, shape.points) <= IN_COVER for _i, shape in covers)
    cover_after = state.house.vigilance_cover_areas if there else 0
    return VigilanceMove(to if metres > SLACK else None, metres, prone, (), cover_after)


def foes_who_may_follow(state: Encounter, facts: AttackFacts, move: VigilanceMove) -> list[str]:
    """p. 9, in melee: "Alla andra i striden får hänga på och röra sig lika långt åt samma
    håll, om de vill": the foes of the target who may follow its metre, each deciding for
    itself (its "follow" reaction, answered by its player or the GM for an NPC): every
    combatant not of the target's side who was within melee reach of the target before
    the move, acts, and has the metre left in its round (`room_left`). The attacker first
    (the one the metre takes the target from), then the others in the roster's order.
    Nobody at range, nor when the target did not move. `state`: before the move."""
    if not facts.melee_attack or move.to is None:
        return []
    target, attacker = facts.target, facts.attacker
    reach = state.house.melee_reach
    out = [
        o.id
        for o in state.combatants
        if o.side != target.side
        and o.acts
        and math.hypot(o.x - target.x, o.y - target.y) <= reach
        and room_left(o) >= move.metres - SLACK
    ]
    return sorted(out, key=lambda cid: cid != attacker.id)  # stable: the attacker first
