"""The Aoristos combat state machine (p. 6-14): `decide` and `evolve`.

`decide(state, command, rng)` refuses an illegal command with a RulesError whose message
says why, or returns the events it causes with every die rolled in them. `evolve(state,
event)` applies one event; it never rolls, so replaying events rebuilds the state exactly.
"""

import math
from dataclasses import replace

from rules import combat_kit as K
from rules.aoristos.character import secondary
from rules.aoristos.combat import commands as C
from rules.aoristos.combat import events as E
from rules.aoristos.combat import figures as F
from rules.aoristos.combat.gear import LIMBS
from rules.aoristos.combat.state import (
    POSTURES,
    UNARMED,
    Combatant,
    Encounter,
    Escape,
    Extended,
    PendingAttack,
    Reaction,
    changed,
    pairs_get,
    pairs_set,
)
from rules.aoristos.dice import Hand, Purpose, parse_hand, roll
from rules.aoristos.success import base_threshold, test_hand
from rules.combat_kit import check_weapons, combatant, refuse, require_open
from rules.errors import RulesError
from rules.errors import gettext_noop as _

VIGILANCE_RANGE = 10  # p. 9: the attacker within 10 m may abort a hit
SURVIVAL_HAND = Hand.of(2, forced=2)  # p. 14: 2B2T, no TB
PAIN_THRESHOLD = base_threshold(1)  # p. 13: VIL against GST (6)


# Reading the state ------------------------------------------------------------------------


def distance(a: Combatant, b: Combatant) -> float:
    return math.hypot(a.x - b.x, a.y - b.y)


def foes(state: Encounter, c: Combatant) -> list[Combatant]:
    return [o for o in state.combatants if o.side != c.side and o.acts]


def in_melee(state: Encounter, c: Combatant) -> bool:
    """Two foes close enough to reach each other are in melee (p. 10); how close is the
    campaign's `melee_reach` (house rule)."""
    return any(distance(c, o) <= state.house.melee_reach for o in foes(state, c))


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


# Costs ------------------------------------------------------------------------------------


def posture_cost(old: str, new: str) -> int:
    """p. 7: a change costs 1 KP; lying to standing is two changes (via sitting)."""
    return abs(POSTURES.index(old) - POSTURES.index(new))


def aim_conditions(state: Encounter, attacker: Combatant, target: Combatant, weapon) -> int:
    """The säkerhetssikte conditions met (p. 8): the whole target clearly visible; the
    target stationary (not moved or in melee during or since its latest activation);
    the attacker sitting or otherwise stable; a laser sight or the like."""
    met = 0
    if not target.hidden_areas and not target.cover:
        met += 1
    if not target.moved_since_activation and not in_melee(state, target):
        met += 1
    if attacker.posture != "standing":
        met += 1
    if weapon.laser_sight:
        met += 1
    return met


def holds_real_melee_weapon(c: Combatant) -> bool:
    """A real melee weapon in hand (p. 8): for parrying with Närstridsvapen."""
    return any((w := c.weapon(k)) is not None and w.real and not w.ranged for k in c.held)


def needs_ammo(weapon) -> bool:
    return weapon.firearm is not None or weapon.magazine is not None


def attack_hand(attacker: Combatant, weapon, aim: int, shots: int) -> Hand:
    """The attack test's hand for this attacker and weapon (p. 9-10, 13)."""
    return F.attack_hand(
        aim=aim,
        occupied_hands=attacker.occupied_hands if weapon is UNARMED else 0,
        two_handed_grip=weapon.two_handed and attacker.grip(weapon.key) == 2,
        projectiles=max(1, shots),
        nerve_shock=attacker.nerve_shock,
    )


def attack_base(attacker: Combatant, weapon) -> int:
    return F.attack_test_base(attacker.skill(weapon.skill), attacker.agility, attacker.alertness)


def strength_physique(attacker: Combatant, weapon) -> int | None:
    """FYS adds to the strength of attacks by physical contact and throws (p. 12)."""
    contact = weapon.contact or weapon.thrown or not (weapon.ranged or weapon.thrown)
    return attacker.physique if contact else None


def protection_of(target: Combatant, area: str | None) -> int:
    """Armour on the area hit, and cover there as armour; with no area, Totalrustning
    and −1 strength per covered area (p. 12)."""
    if area is None:
        return F.total_armour(target.armour) + len(target.cover)
    return sum(p.protection(area) for p in target.armour) + pairs_get(target.cover, area, 0)


def attack_cost(weapon, aim_levels: int, conditions: int, auto: bool) -> int:
    """p. 8: 1 KP, +1 for a real weapon; aim levels (p. 8); +1 KP in auto mode (p. 11)."""
    return (2 if weapon.real else 1) + F.aim_cost(aim_levels, conditions) + (1 if auto else 0)


# Vigilance --------------------------------------------------------------------------------


def vigilance_options(state: Encounter, attack: PendingAttack) -> dict[str, int]:
    """The properties the target may use against this attack (p. 8), with their values.

    RÖR, SIN, Undvika and the target's own level in the attacker's skill always;
    Närstridsvapen against any melee attack (−2 without a real melee weapon in hand, +2
    with a shield, and with a shield against throws too); Slagsmål against any melee
    attack (−1 per occupied hand). A property counts once."""
    target = combatant(state, attack.target)
    attacker = combatant(state, attack.attacker)
    weapon = attacker.weapon(attack.weapon) or UNARMED
    melee_attack = not weapon.ranged and not weapon.thrown or in_melee(state, attacker)
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
    if "agility" in options and not vigilance_move_possible(state, attack):
        del options["agility"]
    return options


def vigilance_bonus(state: Encounter, target: Combatant) -> tuple[str, int]:
    """p. 8: the left-over KP; in the first round SIN instead (not in a single attack,
    where the target has a round's KP, p. 6)."""
    if state.round == 1 and not state.single:
        return "alertness_bonus", target.alertness
    return "cp_bonus", target.vigilance_bonus


def default_vigilance(options: dict[str, int]) -> tuple[str, ...]:
    """The offer: the three best properties (ties in the text's order)."""
    ranked = sorted(options.items(), key=lambda item: -item[1])
    return tuple(key for key, value in ranked[: F.VIGILANCE_MAX] if value > 0)


def vigilance_move(state: Encounter, attack: PendingAttack) -> tuple[float, float] | None:
    """p. 9: with RÖR in vigilance and no cover, the target moves: in melee 1 m away from
    the attacker; at range at least 1 m, across the line of fire (without a map of cover,
    the engine moves the 1 m the text requires, square to the line of fire)."""
    target = combatant(state, attack.target)
    attacker = combatant(state, attack.attacker)
    if target.cover:
        return None
    dx, dy = target.x - attacker.x, target.y - attacker.y
    length = math.hypot(dx, dy) or 1.0
    if attack_is_melee(state, attack):
        return round(target.x + dx / length, 2), round(target.y + dy / length, 2)
    return round(target.x - dy / length, 2), round(target.y + dx / length, 2)


def vigilance_move_possible(state: Encounter, attack: PendingAttack) -> bool:
    target = combatant(state, attack.target)
    if vigilance_move(state, attack) is None:
        return True
    return target.moved + 1 <= 2 * effective_movement(target) and target.posture == "standing"


def attack_is_melee(state: Encounter, attack: PendingAttack) -> bool:
    attacker = combatant(state, attack.attacker)
    weapon = attacker.weapon(attack.weapon) or UNARMED
    return not weapon.ranged and not weapon.thrown


def threshold_parts(
    state: Encounter, attack: PendingAttack, properties: tuple[str, ...]
) -> list[tuple[str, int]]:
    """The attack's ST, part by part (p. 8-10): vigilance, then melee and range."""
    target = combatant(state, attack.target)
    attacker = combatant(state, attack.attacker)
    weapon = attacker.weapon(attack.weapon) or UNARMED
    parts: list[tuple[str, int]] = []
    if target.aware and target.acts:
        options = vigilance_options(state, attack)
        parts += [(key, options[key]) for key in properties]
        if properties:  # p. 8: no vigilance used, ST 0; the bonus helps vigilance only
            parts.append(vigilance_bonus(state, target))
    melee = in_melee(state, attacker)
    if attack_is_melee(state, attack):
        if attacker.posture != "standing":
            parts.append(("attacker_down", 2))  # p. 10
        if weapon.two_handed and attacker.grip(weapon.key) == 1:
            parts.append(("one_hand_two_handed", max(0, 5 - attacker.physique)))  # p. 10
    elif melee:
        if target.posture == "standing":  # p. 10: firing in melee
            parts.append(("firing_in_melee", 3 if weapon.long_in_melee else 1))
    else:
        aim = attacker.range_aim if attacker.range_aim_target == target.id else 0
        parts.append(
            ("range", F.range_malus(distance(attacker, target), weapon.range_categories, aim))
        )
    return parts


# Wounds -----------------------------------------------------------------------------------


def wound_event(
    state: Encounter, target: Combatant, area: str | None, damage: int, rng, source: str
) -> E.Wounded:
    """One wound and its immediate effects (p. 13-14), every die rolled here."""
    added = F.wound(damage, area)
    nerve = target.nerve_shock + added["nerve_shock"]
    bleed = target.bleed_rate + added["bleed_rate"]
    trauma = target.organ_trauma + added["organ_trauma"]
    survival = None
    alive = True
    if added["organ_trauma"] > 0:  # p. 14: 2B2T, under the total organtrauma → death
        rolled = roll(SURVIVAL_HAND, rng, Purpose.TEST)
        alive = rolled.result >= trauma
        survival = (rolled.dice, rolled.result, trauma, alive)
    limb_state = F.limb_state_after(target.limb(area), damage) if area in LIMBS else None
    tests = []
    dropped: list[str] = []
    posture = None
    right, left = target.right, target.left
    if alive and area in LIMBS and added["nerve_shock"]:
        # p. 13: a VIL test against the pain; a failure has its effect and a second test.
        for step in (1, 2):
            rolled = roll(test_hand(nerve_shock=nerve), rng, Purpose.TEST)
            total = target.willpower + rolled.result
            ok = total >= PAIN_THRESHOLD
            tests.append((rolled.dice, total, PAIN_THRESHOLD, ok))
            if ok:
                break
            if area.endswith("_arm"):
                hand = area.removesuffix("_arm")
                held = right if hand == "right" else left
                other = left if hand == "right" else right
                if held and (step == 2 or held != other):
                    dropped.append(held)
                    right = None if right == held else right
                    left = None if left == held else left
            else:
                wanted = "sitting" if step == 1 else "lying"
                current = posture or target.posture
                if POSTURES.index(wanted) > POSTURES.index(current):
                    posture = wanted
    if limb_state in ("broken", "destroyed"):
        if area.endswith("_arm"):  # p. 14: nothing can be held with a broken arm
            hand = area.removesuffix("_arm")
            held = right if hand == "right" else left
            if held:
                dropped.append(held)
                right = None if right == held else right
                left = None if left == held else left
        elif (posture or target.posture) == "standing":  # nor stood on a broken leg
            posture = "sitting"
    unconscious = alive and damage > 0 and F.unconscious(bleed, nerve, target.shock_tolerance)
    cancelled = ""
    if added["nerve_shock"] and target.extended:
        cancelled = "extended"
    elif added["nerve_shock"] and target.overwatch:
        cancelled = "overwatch"
    return E.Wounded(
        id=target.id,
        area=area,
        damage=damage,
        source=source,
        nerve_shock=added["nerve_shock"],
        bleed_rate=added["bleed_rate"],
        organ_trauma=added["organ_trauma"],
        limb_state=limb_state,
        survival=survival,
        vil_tests=tuple(tests),
        dropped=tuple(dict.fromkeys(dropped)),
        posture=posture,
        unconscious=unconscious,
        dead=not alive,
        cancelled=cancelled,
    )


# Activations ------------------------------------------------------------------------------


def start_activation(state: Encounter, index: int, rng) -> E.ActivationStarted:
    c = combatant(state, state.order[index])
    stress = roll(F.stress_hand(), rng, F.STRESS_PURPOSE)
    bow_test = None
    weapon = c.weapon(c.wound_up)
    if weapon is not None and weapon.bow_strength is not None:
        # p. 7: each activation begun with a fully drawn bow, FYS against its strength.
        rolled = roll(test_hand(nerve_shock=c.nerve_shock), rng, Purpose.TEST)
        total = c.physique + rolled.result
        bow_test = (rolled.dice, total, weapon.bow_strength, total >= weapon.bow_strength)
    return E.ActivationStarted(c.id, index, stress.dice, stress.result, bow_test)


def next_activation(state: Encounter, rng) -> list:
    """The events that hand the activation on: the next who acts this round, or a new
    round from the top of the order. Nothing when nobody can act."""
    out = []
    for index in range(state.turn + 1, len(state.order)):
        if combatant(state, state.order[index]).acts:
            out.append(start_activation(state, index, rng))
            return out
    if not any(c.acts for c in state.combatants if c.id in state.order):
        return out
    new_round = E.RoundStarted(state.round + 1)
    out.append(new_round)
    after = evolve(state, new_round)
    for index in range(len(after.order)):
        if combatant(after, after.order[index]).acts:
            out.append(start_activation(after, index, rng))
            break
    return out


def end_activation(state: Encounter, c: Combatant, rng) -> list:
    if state.single:  # the single attack is over
        return [E.EncounterEnded()]
    nerve = max(c.lasting_nerve_shock, c.nerve_shock - c.willpower)
    ended = E.ActivationEnded(
        c.id,
        vigilance_bonus=c.cp,
        nerve_shock=min(c.nerve_shock, nerve),
        cp=F.effective_drive(c.drive, min(c.nerve_shock, nerve)),
    )
    return [ended, *next_activation(evolve(state, ended), rng)]


# decide -----------------------------------------------------------------------------------


def decide(state: Encounter, command, rng) -> tuple:
    return K.decide(state, command, rng, HANDLERS, evolve, settle)


def settle(state: Encounter, rng) -> list:
    """What follows by itself once a command's events are in: a passive attack that ended
    closes its reaction; a reaction nobody can take lapses; an escape whose free attacks
    are done completes its move (p. 10-11)."""
    out = []
    for _step in range(50):
        event = next_settlement(state, rng)
        if event is None:
            return out
        events = event if isinstance(event, list) else [event]
        for one in events:
            state = evolve(state, one)
        out += events
    return out


def next_settlement(state: Encounter, rng):
    if state.attack is not None:
        return None
    if state.reactions:
        reaction = state.reactions[0]
        who = state.get(reaction.who)
        target = state.get(reaction.target)
        if who is not None and who.reacting:
            return E.ReactionDone(who.id, "attacked")
        if who is None or not who.acts or target is None or not target.alive or who.cp < 1:
            return E.ReactionDone(reaction.who, "cannot")
        if reaction.kind == "overwatch" and not any(
            (w := who.weapon(k)) and w.ranged and (not needs_ammo(w) or who.rounds(k))
            for k in who.held
        ):
            return E.ReactionDone(reaction.who, "cannot")
        return None
    escape = state.escape
    if escape is not None and escape.decided:
        mover = state.get(escape.mover)
        if mover is None or not mover.acts:
            return E.EscapeDecided(escape.mover, False)
        moved = E.Moved(mover.id, escape.x, escape.y, escape.distance, 0)
        return [moved, *watch_triggers(evolve(state, moved), mover.id)]
    return None


def actor_of(state: Encounter, command) -> str | None:
    """The combatant a command acts for; None when only the GM may give it."""
    if isinstance(command, GM_ONLY):
        return None
    return getattr(command, "id", None)


def _add(state: Encounter, cmd: C.AddCombatant, rng):
    require_open(state)
    who = K.newcomer(state, cmd)
    levels = {
        "physique": cmd.physique,
        "composure": cmd.composure,
        "agility": cmd.agility,
        "alertness": cmd.alertness,
        "willpower": cmd.willpower,
    }
    for key, value in levels.items():
        if not 0 <= value <= 30:
            refuse(_("{field} must be 0-30"), "bad_field", field=key)
    derived = secondary(levels)
    skills = tuple(sorted((cmd.skills or {}).items()))
    if cmd.posture not in POSTURES:
        refuse(_("unknown posture {posture!r}"), "bad_field", field="posture", posture=cmd.posture)
    weapons = tuple(cmd.weapons)
    check_weapons(weapons, (cmd.right, cmd.left))
    new = Combatant(
        **who,
        skills=skills,
        drive=derived.drive if cmd.drive is None else cmd.drive,
        toughness=derived.toughness if cmd.toughness is None else cmd.toughness,
        shock_tolerance=(
            derived.shock_tolerance if cmd.shock_tolerance is None else cmd.shock_tolerance
        ),
        movement=derived.movement if cmd.movement is None else cmd.movement,
        weapons=weapons,
        armour=tuple(cmd.armour),
        x=cmd.x,
        y=cmd.y,
        posture=cmd.posture,
        right=cmd.right,
        left=cmd.left,
        loaded=tuple((w.key, w.capacity) for w in weapons if needs_ammo(w)),
        **levels,
    )
    new = new.with_(cp=F.effective_drive(new.drive, 0))
    return [E.CombatantAdded(new)]


def _update(state: Encounter, cmd: C.UpdateCombatant, rng):
    require_open(state)
    combatant(state, cmd.id)  # refuses an unknown id
    changes = []
    for name in ("x", "y", "side", "aware"):
        value = getattr(cmd, name)
        if value is not None:
            changes.append((name, value))
    if cmd.posture is not None:
        if cmd.posture not in POSTURES:
            refuse(
                _("unknown posture {posture!r}"), "bad_field", field="posture", posture=cmd.posture
            )
        changes.append(("posture", cmd.posture))
    if cmd.hidden_areas is not None:
        bad = set(cmd.hidden_areas) - set(F.AREA_TABLE.values()) - {"head"}
        if bad:
            refuse(_("unknown areas {areas}"), "bad_field", field="hidden_areas", areas=sorted(bad))
        changes.append(("hidden_areas", frozenset(cmd.hidden_areas)))
    if cmd.cover is not None:
        bad = set(cmd.cover) - set(F.AREA_TABLE.values()) - {"head"}
        if bad:
            refuse(_("unknown areas {areas}"), "bad_field", field="cover", areas=sorted(bad))
        changes.append(("cover", tuple(sorted(cmd.cover.items()))))
    return [K.updated(cmd.id, changes)]


def _surprise(state: Encounter, cmd: C.SetSurprise, rng):
    require_open(state)
    if state.round:
        refuse(_("surprise is set before the fight starts"), "started")
    if cmd.hand:
        parse_hand(cmd.hand)
    return [E.SurpriseSet(cmd.side, cmd.hand)]


def _start(state: Encounter, cmd: C.StartCombat, rng):
    require_open(state)
    if state.round:
        refuse(_("the fight has already started"), "started")
    if len(state.combatants) < 2:
        refuse(_("a fight needs at least two combatants"), "too_few")
    surprise = dict(state.surprise)
    rolls = []
    scores = {}
    for c in state.combatants:
        bonus = 0
        if surprise.get(c.side):
            rolled = roll(parse_hand(surprise[c.side]), rng, Purpose.TEST)
            bonus = rolled.result
            rolls.append((c.id, rolled.dice, bonus))
        scores[c.id] = c.alertness + bonus
    # p. 6: highest SIN first; ties by seat order clockwise from the GM (seat 0), then
    # the order they were added in.
    position = {c.id: i for i, c in enumerate(state.combatants)}
    seats = {c.id: c.seat for c in state.combatants}
    order = tuple(sorted(scores, key=lambda cid: (-scores[cid], seats[cid], position[cid])))
    started = E.CombatStarted(order, tuple(rolls))
    after = evolve(state, started)
    first = E.RoundStarted(1)
    after = evolve(after, first)
    out = [started, first]
    for index, cid in enumerate(order):
        if combatant(after, cid).acts:
            out.append(start_activation(after, index, rng))
            break
    return out


def _single(state: Encounter, cmd: C.SingleAttack, rng):
    require_open(state)
    if state.round:
        refuse(_("a single attack is set up instead of a fight"), "started")
    attacker = combatant(state, cmd.attacker)
    target = combatant(state, cmd.target)
    if attacker.id == target.id:
        refuse(_("one does not attack oneself"), "self")
    return [
        E.SingleAttackSet(
            attacker.id,
            target.id,
            F.effective_drive(attacker.drive, attacker.nerve_shock),
            F.effective_drive(target.drive, target.nerve_shock),
        )
    ]


def _end(state: Encounter, cmd, rng):
    if state.ended:
        refuse(_("the encounter has already ended"), "ended")
    return [E.EncounterEnded()]


def _wake(state: Encounter, cmd: C.Wake, rng):
    c = combatant(state, cmd.id)
    if not c.alive or c.conscious:
        refuse(_("{name} is not unconscious"), "not_unconscious", name=c.name)
    return [E.Woke(c.id)]


def _hazard(state: Encounter, cmd: C.Hazard, rng):
    require_open(state)
    c = combatant(state, cmd.id)
    if not c.alive:
        refuse(_("{name} is dead"), "dead", name=c.name)
    hand = parse_hand(cmd.hand)
    rolled = roll(hand, rng, Purpose.TEST)
    strength = rolled.result
    if cmd.area is None:
        protection = F.total_armour(c.armour)
    else:
        protection = sum(p.protection(cmd.area) for p in c.armour)
    dealt = F.damage(strength - protection, c.toughness, head=cmd.area == "head")
    source = f"{cmd.label or 'hazard'} {hand} = {strength}"
    return [wound_event(state, c, cmd.area, dealt, rng, source)]


def _skip(state: Encounter, cmd, rng):
    active = state.active
    if active is None or state.attack is not None:
        refuse(_("there is no activation to end"), "no_activation")
    return end_activation(state, active, rng)


def cancel_extended(c: Combatant, reason: str) -> list:
    return [E.ExtendedCancelled(c.id, reason)] if c.extended else []


def pay(state: Encounter, c: Combatant, cost: int, label: str, command, done) -> list:
    """Pay `cost` KP for an active action and do it (`done()` gives its events), or start
    it as an extended activity when the KP are not there (p. 6). Spending KP on anything
    else cancels an extended activity without refund."""
    out = cancel_extended(c, "other_action")
    if cost <= c.cp:
        return out + done()
    if c.cp <= 0:
        refuse(_("{name} has no KP left this activation"), "no_cp", name=c.name)
    return out + [E.ExtendedStarted(c.id, label, command, c.cp, cost - c.cp)]


def _move(state: Encounter, cmd: C.Move, rng):
    c = require_active(state, cmd.id)
    return move_events(state, c, cmd, rng)


def move_events(state: Encounter, c: Combatant, cmd: C.Move, rng, prepaid: bool = False):
    metres = round(math.hypot(cmd.x - c.x, cmd.y - c.y), 2)
    if metres <= 0:
        refuse(_("that is where they already are"), "no_move")
    posture = c.posture if legs_ok(c) or c.posture != "standing" else "sitting"
    cost = F.movement_cost(
        metres,
        agility=c.agility,
        movement=effective_movement(c),
        moved_before=c.moved,
        by_round_total=state.house.movement_by_round_total,
        posture=posture,
    )
    if cost is None:
        limit = 2 * effective_movement(c) if posture == "standing" else effective_movement(c)
        refuse(
            _("{name} can move at most {limit} m this round ({moved:g} m moved already)"),
            "too_far",
            name=c.name,
            limit=limit,
            moved=c.moved,
        )
    escaping = leaving_melee(state, c, cmd.x, cmd.y)

    def done():
        paid = 0 if prepaid else cost
        before = []
        if escaping:
            tested = escape_test(state, c, escaping, cmd.x, cmd.y, metres, paid, rng)
            if tested.dangerous:
                return [tested]
            before, paid = [tested], 0
        moved = E.Moved(c.id, cmd.x, cmd.y, metres, paid)
        after = state
        for event in (*before, moved):
            after = evolve(after, event)
        return [*before, moved, *watch_triggers(after, c.id)]

    if prepaid:
        return done()
    return pay(state, c, cost, "move", cmd, done)


def leaving_melee(state: Encounter, c: Combatant, x: float, y: float) -> list[Combatant]:
    """The foes in melee with `c` when a move takes `c` out of reach of any of them."""
    reach = state.house.melee_reach
    near = [o for o in foes(state, c) if distance(c, o) <= reach]
    if any(math.hypot(o.x - x, o.y - y) > reach for o in near):
        return near
    return []


def escape_test(state, c, near, x, y, metres, cost, rng) -> E.EscapeTested:
    """p. 10: an opposed RÖR test; the mover's side sums all its RÖR in the fight, +2 per
    ally; the foes sum theirs. Only the representatives' F/T apply: the mover, and the
    foes' most agile."""
    reach = state.house.melee_reach
    allies = [
        a
        for a in state.combatants
        if a.side == c.side
        and a.id != c.id
        and a.acts
        and any(distance(a, o) <= reach for o in near)
    ]
    mover_base = c.agility + sum(a.agility + 2 for a in allies)
    foes_base = sum(o.agility for o in near)
    representative = max(near, key=lambda o: o.agility)
    mover_roll = roll(test_hand(nerve_shock=c.nerve_shock), rng, Purpose.TEST)
    foes_roll = roll(test_hand(nerve_shock=representative.nerve_shock), rng, Purpose.TEST)
    mover_total = mover_base + mover_roll.result
    foes_total = foes_base + foes_roll.result
    return E.EscapeTested(
        mover=c.id,
        foes=tuple(o.id for o in near),
        allies=tuple(a.id for a in allies),
        mover_base=mover_base,
        mover_dice=mover_roll.dice,
        mover_total=mover_total,
        foes_base=foes_base,
        foes_dice=foes_roll.dice,
        foes_total=foes_total,
        dangerous=foes_total > mover_total,
        x=x,
        y=y,
        distance=metres,
        cost=cost,
    )


def watch_triggers(state: Encounter, mover_id: str) -> list:
    """p. 11: someone showing up in a watched sphere (4 m across) calls the watcher's
    reflex attack."""
    mover = combatant(state, mover_id)
    out = []
    for watcher in state.combatants:
        if (
            watcher.overwatch is not None
            and watcher.side != mover.side
            and watcher.acts
            and math.hypot(mover.x - watcher.overwatch[0], mover.y - watcher.overwatch[1]) <= 2
            and not any(r.who == watcher.id for r in state.reactions)
        ):
            out.append(E.ReactionCalled("overwatch", watcher.id, mover.id))
    return out


def passive_or_active(state: Encounter, cid: str) -> tuple[Combatant, bool]:
    """Talk and posture changes can be passive (between one's activations) when paid in
    full (p. 6)."""
    if state.ended or not state.round:
        refuse(_("the fight has not started"), "not_started")
    c = combatant(state, cid)
    if not c.acts:
        refuse(_("{name} cannot act"), "cannot_act", name=c.name)
    active = state.active
    return c, active is None or active.id != cid or state.attack is not None


def _posture(state: Encounter, cmd: C.ChangePosture, rng):
    c, passive = passive_or_active(state, cmd.id)
    if cmd.posture not in POSTURES:
        refuse(_("unknown posture {posture!r}"), "bad_field", field="posture", posture=cmd.posture)
    if cmd.posture == c.posture:
        refuse(_("{name} is already {posture}"), "same_posture", name=c.name, posture=c.posture)
    if cmd.posture == "standing" and not legs_ok(c):
        refuse(_("{name} cannot stand on a broken leg"), "broken_leg", name=c.name)
    if cmd.posture == "lying":
        not_in_melee(state, c, _("Lying down cannot be started in melee (p. 10)"))
    cost = posture_cost(c.posture, cmd.posture)
    event = E.PostureChanged(c.id, cmd.posture, cost)
    if passive:
        return passive_spend(c, cost, [event])
    return pay(state, c, cost, "posture", cmd, lambda: [event])


def passive_spend(c: Combatant, cost: int, events: list) -> list:
    if cost > c.cp:
        refuse(
            _("{name} has {cp} KP; a passive action must be paid in full"),
            "no_cp",
            name=c.name,
            cp=c.cp,
        )
    out = []
    if c.overwatch:  # p. 11: passive spending breaks overwatch
        out.append(E.ExtendedCancelled(c.id, "overwatch"))
    return out + events


def _talk(state: Encounter, cmd: C.Talk, rng):
    c, passive = passive_or_active(state, cmd.id)
    if not 1 <= cmd.syllables <= 12:
        refuse(_("one can say 1-12 syllables in a round's 2 seconds"), "bad_field")
    cost = math.ceil(cmd.syllables / 3)  # p. 6: 1 KP per 3 syllables
    event = E.KpSpent(c.id, "talk", cost, str(cmd.syllables), passive)
    if passive:
        return passive_spend(c, cost, [event])
    return pay(state, c, cost, "talk", cmd, lambda: [event])


def _scan(state: Encounter, cmd: C.Scan, rng):
    c = require_active(state, cmd.id)
    return pay(state, c, 1, "scan", cmd, lambda: [E.KpSpent(c.id, "scan", 1), scan(state, c, rng)])


def scan(state: Encounter, c: Combatant, rng) -> E.Scanned:
    """p. 6-7: a scan notices every fully visible person; a partly visible one (behind
    cover, or with areas hidden) takes a SIN test (GST 6). The site has no sight lines: it
    takes everyone in the fight to be within the scanned 180°, and the GM tells the rest."""
    seen, tests = [], []
    for other in state.combatants:
        if other.id == c.id or other.side == c.side or not other.alive:
            continue
        if not other.cover and not other.hidden_areas:
            seen.append(other.id)
            continue
        rolled = roll(test_hand(nerve_shock=c.nerve_shock), rng, Purpose.TEST)
        total = c.alertness + rolled.result
        ok = total >= PAIN_THRESHOLD
        tests.append((other.id, rolled.dice, total, PAIN_THRESHOLD, ok))
        if ok:
            seen.append(other.id)
    return E.Scanned(c.id, tuple(seen), tuple(tests))


def free_hand(c: Combatant, hand: str) -> None:
    if hand not in ("right", "left", "both"):
        refuse(_("unknown hand {hand!r}"), "bad_field", field="hand", hand=hand)
    hands = ("right", "left") if hand == "both" else (hand,)
    for h in hands:
        if not arm_ok(c, h):
            refuse(
                _("{name} cannot hold anything with a broken {hand} arm"),
                "broken_arm",
                name=c.name,
                hand=h,
            )
        if getattr(c, h) is not None:
            refuse(_("{name}'s {hand} hand is not free"), "hand_full", name=c.name, hand=h)


def holding(c: Combatant, weapon_key: str, hand: str) -> tuple[str | None, str | None]:
    right = weapon_key if hand in ("right", "both") else c.right
    left = weapon_key if hand in ("left", "both") else c.left
    return right, left


def _draw(state: Encounter, cmd: C.Draw, rng):
    c = require_active(state, cmd.id)
    weapon = c.weapon(cmd.weapon)
    if weapon is None or weapon is UNARMED:
        refuse(_("{name} carries no {item!r}"), "no_weapon", name=c.name, item=cmd.weapon)
    if cmd.weapon in c.held:
        refuse(_("{weapon} is already in hand"), "held", weapon=weapon.name)
    free_hand(c, cmd.hand)
    if cmd.hand == "both" and 2 not in weapon.hands:
        refuse(_("{weapon} is not held with two hands"), "grip", weapon=weapon.name)
    if cmd.hand != "both" and 1 not in weapon.hands:
        refuse(_("{weapon} needs both hands"), "grip", weapon=weapon.name)
    right, left = holding(c, cmd.weapon, cmd.hand)
    event = E.HandsChanged(c.id, "draw", cmd.weapon, right, left, None, 1)
    return pay(state, c, 1, "draw", cmd, lambda: [event])


def _ready(state: Encounter, cmd: C.Ready, rng):
    c = require_active(state, cmd.id)
    not_in_melee(state, c, _("Readying a weapon cannot be started in melee (p. 10)"))
    weapon = c.weapon(cmd.weapon)
    if weapon is None or weapon is UNARMED or cmd.weapon in c.held:
        refuse(_("{name} has no {item!r} to ready"), "no_weapon", name=c.name, item=cmd.weapon)
    event = E.HandsChanged(c.id, "ready", cmd.weapon, c.right, c.left, cmd.weapon, 1)
    return pay(state, c, 1, "ready", cmd, lambda: [event])


def _stow(state: Encounter, cmd: C.Stow, rng):
    c = require_active(state, cmd.id)
    key = getattr(c, cmd.hand, None) if cmd.hand in ("right", "left") else None
    if key is None:
        refuse(_("{name} holds nothing in that hand"), "hand_empty", name=c.name)
    cost = 2 if in_melee(state, c) else 1  # p. 7: +1 KP in melee, other than dropping
    right = None if c.right == key else c.right
    left = None if c.left == key else c.left
    event = E.HandsChanged(c.id, "stow", key, right, left, c.readied, cost)
    return pay(state, c, cost, "stow", cmd, lambda: [event])


def _drop(state: Encounter, cmd: C.Drop, rng):
    c, _passive = passive_or_active(state, cmd.id)
    key = getattr(c, cmd.hand, None) if cmd.hand in ("right", "left") else None
    if key is None:
        refuse(_("{name} holds nothing in that hand"), "hand_empty", name=c.name)
    right = None if c.right == key else c.right
    left = None if c.left == key else c.left
    return [E.HandsChanged(c.id, "drop", key, right, left, c.readied, 0)]


def _switch(state: Encounter, cmd: C.SwitchHands, rng):
    c = require_active(state, cmd.id)
    not_in_melee(state, c, _("Switching hands cannot be started in melee (p. 10)"))
    if c.right == c.left:
        refuse(_("nothing to move between hands"), "nothing")
    for hand in ("right", "left"):
        other = "left" if hand == "right" else "right"
        if getattr(c, hand) and not arm_ok(c, other):
            refuse(
                _("{name} cannot hold anything with a broken {hand} arm"),
                "broken_arm",
                name=c.name,
                hand=other,
            )
    event = E.HandsChanged(c.id, "switch", c.right or c.left, c.left, c.right, c.readied, 1)
    return pay(state, c, 1, "switch", cmd, lambda: [event])


def _pick_up(state: Encounter, cmd: C.PickUp, rng):
    c = require_active(state, cmd.id)
    if c.posture == "standing":
        refuse(_("to pick something up from the ground one must sit or lie (p. 7)"), "standing")
    weapon = c.weapon(cmd.weapon)
    if weapon is None or weapon is UNARMED or cmd.weapon in c.held:
        refuse(
            _("there is no {item!r} of {name}'s to pick up"),
            "no_weapon",
            item=cmd.weapon,
            name=c.name,
        )
    free_hand(c, cmd.hand)
    right, left = holding(c, cmd.weapon, cmd.hand)
    event = E.HandsChanged(c.id, "pick_up", cmd.weapon, right, left, c.readied, 1)
    return pay(state, c, 1, "pick_up", cmd, lambda: [event])


def _windup(state: Encounter, cmd: C.Windup, rng):
    c = require_active(state, cmd.id)
    weapon = c.weapon(cmd.weapon)
    if weapon is None or cmd.weapon not in c.held:
        refuse(
            _("{name} must hold {item!r} to wind it up"), "not_held", name=c.name, item=cmd.weapon
        )
    if not weapon.windup:
        refuse(_("{weapon} has no windup (UL)"), "no_windup", weapon=weapon.name)
    if not weapon.thrown:
        not_in_melee(state, c, _("Winding up cannot be started in melee (p. 10)"))
    if c.wound_up == weapon.key:
        refuse(_("{weapon} is already wound up"), "wound_up", weapon=weapon.name)
    event = E.WoundUp(c.id, weapon.key, weapon.windup)
    return pay(state, c, weapon.windup, "windup", cmd, lambda: [event])


def _abort_windup(state: Encounter, cmd: C.AbortWindup, rng):
    c = require_active(state, cmd.id)
    if not c.wound_up:
        refuse(_("nothing is wound up"), "not_wound_up")
    event = E.WoundUp(c.id, c.wound_up, 1, aborted=True)
    return pay(state, c, 1, "abort_windup", cmd, lambda: [event])


def _reload(state: Encounter, cmd: C.Reload, rng):
    c = require_active(state, cmd.id)
    not_in_melee(state, c, _("Reloading cannot be started in melee (p. 10)"))
    weapon = c.weapon(cmd.weapon)
    if weapon is None or not needs_ammo(weapon):
        refuse(_("{item!r} is not reloaded"), "no_reload", item=cmd.weapon)
    if cmd.weapon not in c.held:
        refuse(
            _("{name} must hold {weapon} to reload it"), "not_held", name=c.name, weapon=weapon.name
        )
    room = weapon.capacity - c.rounds(weapon.key)
    if room <= 0:
        refuse(_("{weapon} is full"), "full", weapon=weapon.name)
    if weapon.reload_each is not None:
        # p. 7: "(n)" KP per cartridge, after 2 KP to open the weapon.
        count = room if cmd.rounds is None else cmd.rounds
        if not 1 <= count <= room:
            refuse(
                _("{weapon} takes 1-{room} cartridges"),
                "bad_field",
                field="rounds",
                weapon=weapon.name,
                room=room,
            )
        cost = 2 + weapon.reload_each * count
        rounds = c.rounds(weapon.key) + count
    else:
        cost = weapon.reload_cost
        rounds = weapon.capacity
    event = E.Reloaded(c.id, weapon.key, rounds, cost)
    return pay(state, c, cost, "reload", cmd, lambda: [event])


def _range_aim(state: Encounter, cmd: C.RangeAim, rng):
    c = require_active(state, cmd.id)
    not_in_melee(state, c, _("Distance aim cannot be started in melee (p. 10)"))
    target = combatant(state, cmd.target)
    held = [w for k in c.held if (w := c.weapon(k)) and (w.ranged or w.thrown)]
    if not held:
        refuse(_("{name} holds no ranged weapon"), "no_ranged", name=c.name)
    if in_melee(state, c):
        refuse(_("no aiming in melee (p. 10)"), "aim_in_melee")
    weapon = held[0]
    allowed = int(weapon.scope) + int(c.posture != "standing")
    kept = c.range_aim if c.range_aim_target == target.id else 0
    if not cmd.levels >= 1 or kept + cmd.levels > allowed:
        refuse(
            _(
                "distance aim allows {allowed} level(s) here: one for a scope, one for "
                "stable support (p. 11)"
            ),
            "range_aim_levels",
            allowed=allowed,
        )
    cost = F.range_aim_cost(cmd.levels)
    event = E.RangeAimed(c.id, target.id, kept + cmd.levels, cost)
    return pay(state, c, cost, "range_aim", cmd, lambda: [event])


def _overwatch(state: Encounter, cmd: C.Overwatch, rng):
    c = require_active(state, cmd.id)
    not_in_melee(state, c, _("Overwatch cannot be started in melee (p. 10)"))
    if not any((w := c.weapon(k)) and w.ranged for k in c.held):
        refuse(_("{name} must be ready to shoot to keep watch (p. 11)"), "no_ranged", name=c.name)
    if c.cp < 1:
        refuse(_("{name} has no KP left"), "no_cp", name=c.name)
    watched = E.OverwatchStarted(c.id, cmd.x, cmd.y)
    after = evolve(state, watched)
    return [
        *cancel_extended(c, "other_action"),
        watched,
        *end_activation(after, combatant(after, c.id), rng),
    ]


def _continue(state: Encounter, cmd: C.Continue, rng):
    c = require_active(state, cmd.id)
    if c.extended is None:
        refuse(_("{name} has no extended activity"), "no_extended", name=c.name)
    if c.cp <= 0:
        refuse(_("{name} has no KP left"), "no_cp", name=c.name)
    paid = min(c.cp, c.extended.remaining)
    out = [E.ExtendedPaid(c.id, paid, c.extended.remaining - paid)]
    if paid == c.extended.remaining:
        after = evolve(state, out[0])
        out += complete(after, combatant(after, c.id), c.extended.command, rng)
    return out


def complete(state: Encounter, c: Combatant, command, rng) -> list:
    """The effect of a paid-up extended activity."""
    if isinstance(command, C.Move):
        return move_events(state, c, command, rng, prepaid=True)
    if isinstance(command, C.Attack):
        return declare_attack(state, c, command, rng, prepaid=True)
    # Everything else: decide it again with the KP restored, then take the KP back out.
    restored = state.put(c.with_(cp=c.cp + 99))
    events = decide(restored, command, rng)
    return [zero_cost(event) for event in events]


def zero_cost(event):
    return replace(event, cost=0) if hasattr(event, "cost") else event


def _end_activation(state: Encounter, cmd: C.EndActivation, rng):
    c = require_active(state, cmd.id)
    return end_activation(state, c, rng)


# Attacks ----------------------------------------------------------------------------------


def _attack(state: Encounter, cmd: C.Attack, rng):
    if state.reactions and state.reactions[0].who == cmd.id and state.attack is None:
        return passive_attack(state, cmd, rng)
    c = require_active(state, cmd.id)
    return declare_attack(state, c, cmd, rng)


def passive_attack(state: Encounter, cmd: C.Attack, rng):
    """A reaction's attack (p. 10-11): at the normal cost, paid in full now; aim allowed
    against one leaving melee, never on overwatch."""
    reaction = state.reactions[0]
    c = combatant(state, cmd.id)
    if cmd.target != reaction.target:
        refuse(
            _("the reaction is against {target}"),
            "target",
            target=combatant(state, reaction.target).name,
        )
    if reaction.kind == "overwatch" and cmd.aim:
        refuse(_("an overwatch attack is a reflex: no aim (p. 11)"), "aim_overwatch")
    plan = attack_plan(state, c, cmd)
    if plan["cost"] > c.cp:
        refuse(
            _("{name} has {cp} KP; the attack costs {cost}"),
            "no_cp",
            name=c.name,
            cp=c.cp,
            cost=plan["cost"],
        )
    return declare_attack(state, c, cmd, rng, passive=True)


def _pass(state: Encounter, cmd: C.Pass, rng):
    if not state.reactions or state.reactions[0].who != cmd.id or state.attack is not None:
        refuse(_("no reaction waits for this combatant"), "no_reaction")
    reaction = state.reactions[0]
    c = combatant(state, cmd.id)
    if reaction.kind == "free_attack":
        return [E.ReactionDone(c.id, "passed")]
    if reaction.must:
        refuse(_("{name} failed to hold fire and must attack (p. 11)"), "must_attack", name=c.name)
    # p. 11: a voluntary SIN test to stop oneself.
    rolled = roll(test_hand(nerve_shock=c.nerve_shock), rng, Purpose.TEST)
    total = c.alertness + rolled.result
    ok = total >= PAIN_THRESHOLD
    return [
        E.ReactionDone(
            c.id, "held" if ok else "must_attack", (rolled.dice, total, PAIN_THRESHOLD, ok)
        )
    ]


def attack_plan(state: Encounter, c: Combatant, cmd: C.Attack) -> dict:
    """Check an attack (p. 8-11) and work out its weapon, mode, shots and cost."""
    target = combatant(state, cmd.target)
    if target.id == c.id:
        refuse(_("one does not attack oneself"), "self")
    if not target.alive:
        refuse(_("{target} is dead"), "target_dead", target=target.name)
    weapon = c.weapon(cmd.weapon)
    if weapon is None:
        refuse(_("{name} carries no {item!r}"), "no_weapon", name=c.name, item=cmd.weapon)
    if weapon is not UNARMED and weapon.key not in c.held and c.readied != weapon.key:
        refuse(_("{name} must draw {weapon} first"), "not_held", name=c.name, weapon=weapon.name)
    if weapon is UNARMED and not (arm_ok(c, "right") or arm_ok(c, "left")):
        refuse(_("{name} has no arm to strike with"), "broken_arm", name=c.name)
    melee_weapon = not weapon.ranged and not weapon.thrown
    reach = distance(c, target)
    if melee_weapon and reach > state.house.melee_reach:
        refuse(
            _(
                "{target} is {distance:.1f} m away, out of reach (melee reach {reach:g} m, "
                "a house rule)"
            ),
            "out_of_reach",
            target=target.name,
            distance=reach,
            reach=state.house.melee_reach,
        )
    melee = in_melee(state, c)
    if cmd.aim < 0 or cmd.aim > 5:
        refuse(_("aim levels are 0-5"), "bad_field", field="aim")
    if cmd.aim and melee and not melee_weapon:
        refuse(_("aimed shots are forbidden in melee (p. 10)"), "aim_in_melee")
    if weapon.windup and c.wound_up != weapon.key:
        refuse(
            _("{weapon} must be wound up first (UL {windup})"),
            "windup",
            weapon=weapon.name,
            windup=weapon.windup,
        )
    modes = weapon.modes
    mode = modes[0]
    if cmd.mode:
        found = [m for m in modes if m.text == cmd.mode.lower()]
        if not found:
            refuse(
                _("{weapon} fires {modes}, not {mode!r}"),
                "bad_mode",
                weapon=weapon.name,
                modes=weapon.fire_modes,
                mode=cmd.mode,
            )
        mode = found[0]
    if mode.auto and cmd.aim:
        refuse(_("auto fire gets nothing from aim (p. 11)"), "aim_auto")
    shots = mode.shots
    if mode.auto and cmd.shots is not None:
        if not 0 <= cmd.shots <= weapon.max_per_round:
            refuse(_("choose 0-{max} shots"), "bad_field", field="shots", max=weapon.max_per_round)
        shots = cmd.shots
    if needs_ammo(weapon) and c.rounds(weapon.key) < max(1, shots):
        refuse(
            _("{weapon} has {rounds} rounds left"),
            "no_ammo",
            weapon=weapon.name,
            rounds=c.rounds(weapon.key),
        )
    conditions = aim_conditions(state, c, target, weapon)
    return {
        "target": target,
        "weapon": weapon,
        "mode": mode,
        "shots": shots,
        "melee": melee,
        "distance": reach,
        "conditions": conditions,
        "cost": attack_cost(weapon, cmd.aim, conditions, mode.auto),
    }


def declaration(
    c: Combatant, cmd: C.Attack, plan: dict, *, cost: int, passive: bool = False
) -> E.AttackDeclared:
    """Step 1 (p. 9): the attack declared against its target, and paid."""
    return E.AttackDeclared(
        attacker=c.id,
        target=plan["target"].id,
        weapon=plan["weapon"].key,
        aim=cmd.aim,
        shots=plan["shots"],
        auto=plan["mode"].auto,
        called_area=cmd.area,
        cost=cost,
        passive=passive,
        melee=plan["melee"],
        distance=round(plan["distance"], 2),
    )


def declare_attack(
    state: Encounter, c: Combatant, cmd: C.Attack, rng, prepaid=False, passive=False
):
    plan = attack_plan(state, c, cmd)
    target, weapon = plan["target"], plan["weapon"]
    declared = declaration(c, cmd, plan, cost=0 if prepaid else plan["cost"], passive=passive)

    def done():
        out = []
        if weapon is not UNARMED and weapon.key not in c.held:  # a readied weapon: drawn free
            right, left = holding(c, weapon.key, "right" if c.right is None else "left")
            out.append(E.HandsChanged(c.id, "draw", weapon.key, right, left, None, 0))
        out.append(declared)
        after = state
        for event in out:
            after = evolve(after, event)
        pending = after.attack
        if not target.aware or not target.acts:
            out += roll_attack(after, pending, (), rng)
        return out

    if prepaid or passive:
        return done()
    return pay(state, c, plan["cost"], "attack", cmd, done)


def _vigilance(state: Encounter, cmd: C.Vigilance, rng):
    attack = state.attack
    if attack is None or attack.stage != "vigilance" or attack.target != cmd.id:
        refuse(_("no attack waits for this combatant's vigilance"), "no_attack")
    options = vigilance_options(state, attack)
    chosen = default_vigilance(options) if cmd.default else tuple(cmd.properties)
    if len(chosen) > F.VIGILANCE_MAX:
        refuse(_("at most three properties in vigilance (p. 8)"), "too_many")
    if len(set(chosen)) != len(chosen):
        refuse(_("a property counts once against an attack (p. 8)"), "twice")
    for key in chosen:
        if key not in options:
            refuse(
                _("{field!r} cannot be used against this attack"), "not_allowed", key=key, field=key
            )
    return roll_attack(state, attack, chosen, rng)


def roll_attack(state: Encounter, attack: PendingAttack, chosen: tuple, rng) -> list:
    """Steps 2-6 (p. 9): the ST, the vigilance move, the attack test and the area roll;
    then the abort decision or the resolution."""
    attacker = combatant(state, attack.attacker)
    target = combatant(state, attack.target)
    weapon = attacker.weapon(attack.weapon) or UNARMED
    parts = threshold_parts(state, attack, chosen)
    threshold = sum(value for _, value in parts)
    move_to = vigilance_move(state, attack) if "agility" in chosen else None
    chose = E.VigilanceChosen(
        target.id, chosen, threshold, tuple(parts), move_to, 1.0 if move_to else 0.0
    )
    out = [chose]
    after = evolve(state, chose)
    shots = attack.shots
    auto_dice: tuple[int, ...] = ()
    mode = next((m for m in weapon.modes if m.auto), None) if attack.auto else None
    if mode is not None:
        auto_dice = tuple(rng.randint(1, 6) for _ in range(mode.random_dice))
        shots = attack.shots + sum(auto_dice)
    if needs_ammo(weapon):
        shots = min(shots, weapon.max_per_round, attacker.rounds(weapon.key))
    shots = max(1, shots)
    hand = attack_hand(attacker, weapon, attack.aim, shots)
    rolled = roll(hand, rng, Purpose.TEST)
    tb = attack_base(attacker, weapon)
    total = tb + rolled.result
    hit = total >= threshold
    area = None
    area_hand_text = ""
    area_dice: tuple[int, ...] = ()
    if shots < 4 and not weapon.explosive:  # p. 9: explosions and 4+ projectiles: no area
        ahand = F.area_hand(attack.aim)
        area_roll = roll(ahand, rng, Purpose.TEST)
        area_hand_text, area_dice = str(ahand), area_roll.dice
        options = F.area_options(area_roll.dice, bool(ahand.free))
        if attack.called_area in options:
            area = attack.called_area
        elif "torso" in options:
            area = "torso"
        else:
            area = F.AREA_TABLE[max(area_roll.dice)]
    distance_now = distance(attacker, combatant(after, target.id))
    abortable = hit and distance_now <= VIGILANCE_RANGE
    rolled_event = E.AttackRolled(
        attacker=attacker.id,
        target=target.id,
        hand=str(hand),
        dice=rolled.dice,
        counted=rolled.counted,
        test_base=tb,
        threshold=threshold,
        total=total,
        hit=hit,
        shots=shots,
        auto_dice=auto_dice,
        area_hand=area_hand_text,
        area_dice=area_dice,
        area=area,
        abortable=abortable,
    )
    out.append(rolled_event)
    after = evolve(after, rolled_event)
    if not abortable:
        out += resolve_attack(after, rng)
    return out


def _escape_decision(state: Encounter, cmd, go_on: bool):
    escape = state.escape
    if escape is None or escape.decided or escape.mover != cmd.id or state.attack is not None:
        return None
    out = [E.EscapeDecided(cmd.id, go_on)]
    if go_on:  # p. 10: everyone in the melee gets an immediate attack at her first
        mover = combatant(state, cmd.id)
        order = {cid: i for i, cid in enumerate(state.order)}
        near = sorted(
            (o for o in foes(state, mover) if distance(mover, o) <= state.house.melee_reach),
            key=lambda o: order.get(o.id, 99),
        )
        out += [E.ReactionCalled("free_attack", o.id, mover.id) for o in near]
    return out


def _proceed(state: Encounter, cmd: C.Proceed, rng):
    decided = _escape_decision(state, cmd, True)
    if decided is not None:
        return decided
    attack = state.attack
    if attack is None or attack.stage != "abort" or attack.attacker != cmd.id:
        refuse(_("no attack waits for this decision"), "no_attack")
    return resolve_attack(state, rng)


def _abort(state: Encounter, cmd: C.Abort, rng):
    decided = _escape_decision(state, cmd, False)
    if decided is not None:
        return decided
    attack = state.attack
    if attack is None or attack.stage != "abort" or attack.attacker != cmd.id:
        refuse(_("no attack waits for this decision"), "no_attack")
    return [E.AttackAborted(cmd.id)]


def resolve_attack(state: Encounter, rng) -> list:
    """Step 6 (p. 9, 12-13): hit or miss, strength, protection, damage, the wound."""
    attack = state.attack
    rolled: E.AttackRolled = attack.roll
    attacker = combatant(state, attack.attacker)
    target = combatant(state, attack.target)
    weapon = attacker.weapon(attack.weapon) or UNARMED
    used = rolled.shots if needs_ammo(weapon) else 0
    area = rolled.area
    out = []
    if not rolled.hit:
        out.append(E.AttackResolved(attacker.id, target.id, weapon.key, False, "miss", area, used))
        if (
            weapon is UNARMED
            and "melee_weapons" in attack.vigilance
            and holds_real_melee_weapon(target)
        ):
            # p. 8: an unarmed attack that misses a real melee weapon's parry: a hit of
            # strength 1B in the limb used, with no modifications.
            parry = roll(Hand.of(1), rng, Purpose.TEST)
            dealt = F.damage(parry.result, attacker.toughness)
            out.append(
                wound_event(state, attacker, "right_arm", dealt, rng, f"parry 1B = {parry.result}")
            )
        return out
    if area is not None and area in target.hidden_areas:
        # p. 9 (Duellanten): an area wholly hidden by the target's own body is a miss.
        out.append(
            E.AttackResolved(attacker.id, target.id, weapon.key, False, "hidden_area", area, used)
        )
        return out
    margin = rolled.total - rolled.threshold
    dice_sum = sum(rolled.counted)
    physique = strength_physique(attacker, weapon)
    parts = [("margin", margin)]
    if weapon.real:
        parts.append(("dice_again", dice_sum))
    if weapon.strength:
        parts.append(("weapon", weapon.strength))
    if physique is not None:
        parts.append(("physique", physique))
    active = F.active_strength(
        margin=margin,
        dice_sum=dice_sum,
        real_weapon=weapon.real,
        weapon_strength=weapon.strength,
        physique=physique,
    )
    protection = protection_of(target, area)
    final = active - protection
    dealt = F.damage(final, target.toughness, head=area == "head")
    out.append(
        E.AttackResolved(
            attacker.id,
            target.id,
            weapon.key,
            True,
            "hit",
            area,
            used,
            tuple(parts),
            active,
            protection,
            final,
            dealt,
        )
    )
    after = evolve(state, out[-1])
    out.append(wound_event(after, combatant(after, target.id), area, dealt, rng, weapon.name))
    return out


GM_ONLY = (
    C.AddCombatant,
    C.UpdateCombatant,
    C.RemoveCombatant,
    C.SetSurprise,
    C.StartCombat,
    C.SingleAttack,
    C.EndEncounter,
    C.Wake,
    C.Hazard,
    C.Skip,
)

HANDLERS = {
    C.AddCombatant: _add,
    C.UpdateCombatant: _update,
    C.RemoveCombatant: K.remove_combatant,
    C.SetSurprise: _surprise,
    C.StartCombat: _start,
    C.SingleAttack: _single,
    C.EndEncounter: _end,
    C.Wake: _wake,
    C.Hazard: _hazard,
    C.Skip: _skip,
    C.Move: _move,
    C.ChangePosture: _posture,
    C.Talk: _talk,
    C.Scan: _scan,
    C.Draw: _draw,
    C.Ready: _ready,
    C.Stow: _stow,
    C.Drop: _drop,
    C.SwitchHands: _switch,
    C.PickUp: _pick_up,
    C.Windup: _windup,
    C.AbortWindup: _abort_windup,
    C.Reload: _reload,
    C.RangeAim: _range_aim,
    C.Overwatch: _overwatch,
    C.Attack: _attack,
    C.Vigilance: _vigilance,
    C.Proceed: _proceed,
    C.Abort: _abort,
    C.Continue: _continue,
    C.EndActivation: _end_activation,
    C.Pass: _pass,
}


# evolve -----------------------------------------------------------------------------------


def spend(state: Encounter, cid: str, cost: int, **changes) -> Encounter:
    c = combatant(state, cid)
    return state.put(c.with_(cp=max(0, c.cp - cost), **changes))


def evolve(state: Encounter, event) -> Encounter:
    kind = type(event)
    if kind is E.CombatantAdded:
        return state.joined(event.combatant)
    if kind is E.CombatantUpdated:
        return state.put(combatant(state, event.id).with_(**dict(event.changes)))
    if kind is E.CombatantRemoved:
        return state.without(event.id)
    if kind is E.SurpriseSet:
        surprise = tuple((s, h) for s, h in state.surprise if s != event.side)
        if event.hand:
            surprise += ((event.side, event.hand),)
        return changed(state, surprise=surprise)
    if kind is E.CombatStarted:
        bonus = {cid: b for cid, _dice, b in event.rolls}
        combatants = tuple(
            c.with_(
                cp=F.effective_drive(c.drive, c.nerve_shock),
                initiative=c.alertness + bonus.get(c.id, 0),
            )
            for c in state.combatants
        )
        return changed(state, combatants=combatants, order=event.order)
    if kind is E.SingleAttackSet:
        state = state.put(combatant(state, event.attacker).with_(cp=event.cp))
        state = state.put(combatant(state, event.target).with_(vigilance_bonus=event.bonus))
        return changed(state, single=True, round=1, order=(event.attacker,), turn=0)
    if kind is E.RoundStarted:
        return changed(
            state,
            round=event.round,
            turn=-1,
            combatants=tuple(c.with_(moved=0.0) for c in state.combatants),
        )
    if kind is E.ActivationStarted:
        c = combatant(state, event.id)
        changes = {"cp": max(0, c.cp - event.loss), "moved_since_activation": False}
        if event.bow_test is not None and not event.bow_test[3]:
            changes["wound_up"] = None  # p. 7: the arrow is spent
        return changed(state.put(c.with_(**changes)), turn=event.turn)
    if kind is E.Moved:
        c = combatant(state, event.id)
        changes = {
            "x": event.x,
            "y": event.y,
            "moved": round(c.moved + event.distance, 2),
            "moved_since_activation": True,
        }
        if state.escape is not None and state.escape.mover == event.id:
            state = changed(state, escape=None)
        return spend(state, event.id, event.cost, **changes)
    if kind is E.KpSpent:
        changes = {"overwatch": None} if event.action == "scan" else {}
        return spend(state, event.id, event.cost, **changes)
    if kind is E.Scanned:
        return state
    if kind is E.PostureChanged:
        return spend(state, event.id, event.cost, posture=event.posture)
    if kind is E.HandsChanged:
        return spend(
            state,
            event.id,
            event.cost,
            right=event.right,
            left=event.left,
            readied=event.readied,
        )
    if kind is E.WoundUp:
        return spend(state, event.id, event.cost, wound_up=None if event.aborted else event.weapon)
    if kind is E.Reloaded:
        c = combatant(state, event.id)
        loaded = pairs_set(c.loaded, event.weapon, event.rounds)
        return spend(state, event.id, event.cost, loaded=loaded)
    if kind is E.RangeAimed:
        return spend(
            state, event.id, event.cost, range_aim=event.levels, range_aim_target=event.target
        )
    if kind is E.OverwatchStarted:
        return spend(state, event.id, 1, overwatch=(event.x, event.y))
    if kind is E.ExtendedStarted:
        c = combatant(state, event.id)
        extended = Extended(event.label, event.command, event.remaining)
        return state.put(c.with_(cp=c.cp - event.paid, extended=extended))
    if kind is E.ExtendedPaid:
        c = combatant(state, event.id)
        extended = replace(c.extended, remaining=event.remaining) if event.remaining else None
        return state.put(c.with_(cp=c.cp - event.paid, extended=extended))
    if kind is E.ExtendedCancelled:
        c = combatant(state, event.id)
        if event.reason == "overwatch":
            return state.put(c.with_(overwatch=None))
        return state.put(c.with_(extended=None))
    if kind is E.AttackDeclared:
        state = spend(state, event.attacker, event.cost)
        if event.passive:
            state = state.put(combatant(state, event.attacker).with_(reacting=True))
        pending = PendingAttack(
            attacker=event.attacker,
            target=event.target,
            weapon=event.weapon,
            aim=event.aim,
            shots=event.shots,
            auto=event.auto,
            called_area=event.called_area,
            passive=event.passive,
        )
        return changed(state, attack=pending)
    if kind is E.VigilanceChosen:
        attack = replace(
            state.attack,
            threshold=event.threshold,
            threshold_parts=event.parts,
            vigilance=event.properties,
        )
        state = changed(state, attack=attack)
        if event.move_to is not None:
            c = combatant(state, event.target)
            state = state.put(
                c.with_(
                    x=event.move_to[0],
                    y=event.move_to[1],
                    moved=round(c.moved + event.moved, 2),
                    moved_since_activation=True,
                )
            )
        return state
    if kind is E.AttackRolled:
        return changed(state, attack=replace(state.attack, stage="abort", roll=event))
    if kind is E.AttackAborted:
        c = combatant(state, event.attacker)
        return changed(state.put(c.with_(wound_up=None)), attack=None)
    if kind is E.AttackResolved:
        c = combatant(state, event.attacker)
        weapon = c.weapon(event.weapon) or UNARMED
        changes = {"wound_up": None}
        if event.rounds_used:
            changes["loaded"] = pairs_set(
                c.loaded, weapon.key, max(0, c.rounds(weapon.key) - event.rounds_used)
            )
        single = state.attack is not None and state.attack.shots <= 1 and not state.attack.auto
        if not single or c.range_aim_target != event.target:
            changes["range_aim"] = 0
            changes["range_aim_target"] = None
        if weapon.thrown:  # the thrown weapon leaves the hand
            changes["right"] = None if c.right == weapon.key else c.right
            changes["left"] = None if c.left == weapon.key else c.left
        return changed(state.put(c.with_(**changes)), attack=None)
    if kind is E.Wounded:
        c = combatant(state, event.id)
        changes = {
            "nerve_shock": c.nerve_shock + event.nerve_shock,
            "bleed_rate": c.bleed_rate + event.bleed_rate,
            "organ_trauma": c.organ_trauma + event.organ_trauma,
        }
        if event.limb_state is not None:
            changes["limbs"] = pairs_set(c.limbs, event.area, event.limb_state)
        if event.dropped:
            changes["right"] = None if c.right in event.dropped else c.right
            changes["left"] = None if c.left in event.dropped else c.left
        if event.posture:
            changes["posture"] = event.posture
        if event.unconscious:
            changes["conscious"] = False
        if event.dead:
            changes["alive"] = False
            changes["conscious"] = False
        if event.cancelled == "extended":
            changes["extended"] = None
        if event.cancelled == "overwatch" or event.nerve_shock:
            changes["overwatch"] = None
        return state.put(c.with_(**changes))
    if kind is E.ActivationEnded:
        c = combatant(state, event.id)
        return state.put(
            c.with_(
                vigilance_bonus=event.vigilance_bonus,
                nerve_shock=event.nerve_shock,
                cp=event.cp,
            )
        )
    if kind is E.EscapeTested:
        state = spend(state, event.mover, event.cost)
        if not event.dangerous:
            return state
        return changed(state, escape=Escape(event.mover, event.x, event.y, event.distance))
    if kind is E.EscapeDecided:
        if not event.go_on:
            return changed(state, escape=None)
        return changed(state, escape=replace(state.escape, decided=True))
    if kind is E.ReactionCalled:
        reaction = Reaction(event.kind, event.who, event.target)
        return changed(state, reactions=(*state.reactions, reaction))
    if kind is E.ReactionDone:
        reaction = state.reactions[0]
        if event.how == "must_attack":
            return changed(state, reactions=(replace(reaction, must=True), *state.reactions[1:]))
        c = combatant(state, event.who)
        changes = {"reacting": False}
        if reaction.kind == "overwatch":
            changes["overwatch"] = None  # p. 11: once
        return changed(state.put(c.with_(**changes)), reactions=state.reactions[1:])
    if kind is E.Woke:
        return state.put(combatant(state, event.id).with_(conscious=True))
    if kind is E.EncounterEnded:
        return changed(state, ended=True, attack=None)
    raise RulesError(f"unknown event {kind.__name__}")
