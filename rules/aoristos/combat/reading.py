"""What every chapter of Aoristos combat reads of the encounter alike (p. 6-14): distances
and melee (p. 10), the limbs one stands and holds by (p. 14), whose activation it is
(p. 6), which weapons take ammunition (p. 7), and the one threshold of the SIN and VIL
tests against pain and sight (GST 6, p. 6-7, 11, 13). No handler is here.
"""

import math
from typing import NamedTuple

from rules.aoristos.combat import figures as F
from rules.aoristos.combat.state import UNARMED, Combatant, Encounter, PendingAttack
from rules.aoristos.success import base_threshold
from rules.combat_kit import combatant, refuse, require_open
from rules.errors import gettext_noop as _

PAIN_THRESHOLD = base_threshold(1)  # p. 13: VIL against GST (6)


def distance(a: Combatant, b: Combatant) -> float:
    return math.hypot(a.x - b.x, a.y - b.y)


def foes(state: Encounter, c: Combatant) -> list[Combatant]:
    return [o for o in state.combatants if o.side != c.side and o.acts]


def in_melee(state: Encounter, c: Combatant) -> bool:
    """Two foes close enough to reach each other are in melee (p. 10); how close is the
    campaign's `melee_reach` (house rule)."""
    reach, side, x, y = state.house.melee_reach, c.side, c.x, c.y
    for o in state.combatants:  # `foes`, unrolled: every attack asks it again and again
        if o.side != side and o.alive and o.conscious:
            dx, dy = x - o.x, y - o.y
            # A foe farther than `reach` along either axis is out of reach (the distance
            # is never less than either): no hypot for the foes across the field.
            if -reach <= dx <= reach and -reach <= dy <= reach and math.hypot(dx, dy) <= reach:
                return True
    return False


def fired_in_melee(state: Encounter, attacker: Combatant, target: Combatant) -> bool:
    """A ranged attack "i närstrid" (p. 8, 10): fired by one in melee at a target in a
    melee. A shot from a melee at someone outside it is a plain ranged attack (with its
    range malus, p. 10), whatever the attacker's posture adds (p. 10)."""
    return in_melee(state, attacker) and in_melee(state, target)


def effective_movement(c: Combatant) -> int:
    return F.effective_movement(c.movement, c.nerve_shock)


def legs_ok(c: Combatant) -> bool:
    """p. 14: one cannot stand on a broken or destroyed leg."""
    return c.limb("right_leg") == "ok" and c.limb("left_leg") == "ok"


def arm_ok(c: Combatant, hand: str) -> bool:
    return c.limb(f"{hand}_arm") == "ok"


def require_active(state: Encounter, cid: str) -> Combatant:
    require_open(state)
    if not state.round:
        refuse(_("the fight has not started"), "not_started")
    if state.attack is not None:
        refuse(_("an attack is waiting to be resolved first"), "attack_pending")
    if state.reactions or state.escape is not None:
        refuse(_("a reaction is waiting to be answered first"), "reaction_pending")
    c = combatant(state, cid)
    active = state.active
    if active is None or active.id != cid:
        refuse(_("it is not {name}'s activation"), "not_your_turn", name=c.name)
    return c


def not_in_melee(state: Encounter, c: Combatant, message: str) -> None:
    """p. 10: in melee only drawing or picking up, sitting or standing up, talking,
    throwing, scanning, stowing (at extra cost), attacking and moving may be started."""
    if in_melee(state, c):
        refuse(message, "in_melee")


def holds_real_melee_weapon(c: Combatant) -> bool:
    """A real melee weapon in hand (p. 8): for parrying with Närstridsvapen."""
    return any((w := c.weapon(k)) is not None and w.real and not w.ranged for k in c.held)


def windup_outcome(c: Combatant, key: str, dropped: bool) -> str:
    """What an unplanned interrupted windup leaves (p. 7: "Om man oplanerat avbryter en
    uppladdning innebär det att granaten förblir apterad i handen, att pilen förloras utan
    kraft att skada, eller dylikt"): an explosive stays armed, in the hand ("armed") or
    where it fell ("armed_dropped"); any other projectile is lost ("lost"). The text says
    nothing of a fuse: when an armed grenade goes off is the GM's (a hazard, p. 12)."""
    weapon = c.weapon(key)
    if weapon is not None and weapon.explosive:
        return "armed_dropped" if dropped else "armed"
    return "lost"


def extended_windup(c: Combatant) -> str | None:
    """The weapon of a windup begun as an extended activity and not yet paid up (p. 6-7)."""
    extended = c.extended
    if extended is None or extended.label != "windup":
        return None
    return getattr(extended.command, "weapon", None)


def needs_ammo(weapon) -> bool:
    return weapon.firearm is not None or weapon.magazine is not None


def attack_is_melee(state: Encounter, attack: PendingAttack) -> bool:
    attacker = combatant(state, attack.attacker)
    weapon = attacker.weapon(attack.weapon) or UNARMED
    return not weapon.ranged and not weapon.thrown


class AttackFacts(NamedTuple):
    """What every step of one attack reads of the encounter alike (p. 8-12): its attacker,
    target and weapon, whether it is a melee attack, whether the attacker is in melee, and
    whether it is fired in a melee (`fired_in_melee`); and where RÖR in vigilance moves
    the target (`vigilance.vigilance_move`, None in cover). The vigilance options, the
    threshold and the attack's setup each looked them all up again, and an attack asks
    them in one command (`attacks.roll_attack`): looked up once, they are handed down."""

    attacker: Combatant
    target: Combatant
    weapon: object
    melee_attack: bool
    attacker_in_melee: bool
    fired_in_melee: bool
    move_to: tuple[float, float] | None


def attack_facts(state: Encounter, attack: PendingAttack) -> AttackFacts:
    """`AttackFacts` of `attack` in `state` (as `attack_is_melee`, `in_melee`,
    `fired_in_melee` and `vigilance_move` say them, looked up once)."""
    attacker = combatant(state, attack.attacker)
    target = combatant(state, attack.target)
    weapon = attacker.weapon(attack.weapon) or UNARMED
    melee_attack = not weapon.ranged and not weapon.thrown
    melee = in_melee(state, attacker)
    move_to = None
    if not target.cover:  # p. 9: `vigilance.vigilance_move`, which reads these
        dx, dy = target.x - attacker.x, target.y - attacker.y
        length = math.hypot(dx, dy) or 1.0
        if melee_attack:
            move_to = round(target.x + dx / length, 2), round(target.y + dy / length, 2)
        else:
            move_to = round(target.x - dy / length, 2), round(target.y + dx / length, 2)
    return AttackFacts(
        attacker,
        target,
        weapon,
        melee_attack,
        melee,
        melee and in_melee(state, target),
        move_to,
    )
