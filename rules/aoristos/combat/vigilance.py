"""Vigilance (vaksamhet, p. 8-9): the properties a target may set against an attack,
the offer of the three best, its bonus (left-over KP, or SIN in the first round), and the
metre a target moves with RÖR in its vigilance (p. 9). The attack's threshold, of which
vigilance is the larger part, is `attacks.threshold_parts`.
"""

from operator import itemgetter

from rules.aoristos.combat import figures as F
from rules.aoristos.combat.reading import (
    AttackFacts,
    attack_facts,
    effective_movement,
    holds_real_melee_weapon,
)
from rules.aoristos.combat.state import Combatant, Encounter, PendingAttack


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
    the attacker; at range at least 1 m, across the line of fire (without a map of cover,
    the engine moves the 1 m the text requires, square to the line of fire). Worked out
    with the attack's other facts (`reading.attack_facts`: `move_to`)."""
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
