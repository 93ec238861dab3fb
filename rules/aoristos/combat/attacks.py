"""Attacks (p. 8-13): the attack's cost and aim (Sikte, p. 8), its declaration and the
six steps (Steg för steg, p. 9): the threshold from vigilance and melee or range (p. 8-11),
the attack test and the hit area (p. 9), the attacker's abort, and the resolution:
strength (p. 12), protection and cover (p. 12), damage (p. 12-13) and the wound
(`wounds`). Also melee and firing in it (p. 10), distance aim (p. 11), automatic fire
(p. 11), overwatch (p. 11), and the reactions: a free attack at one leaving melee (p. 10),
the watcher's reflex attack, or holding fire (p. 11), and a foe following a melee's
vigilance move (p. 9).

Commands: Attack, Vigilance, Proceed, Abort, Pass, Follow, RangeAim, Overwatch.
"""

import math

from rules.aoristos.combat import commands as C
from rules.aoristos.combat import events as E
from rules.aoristos.combat import figures as F
from rules.aoristos.combat.activation import cancel_extended, end_activation, pay
from rules.aoristos.combat.fold import fold
from rules.aoristos.combat.gear import AREAS, LIMBS
from rules.aoristos.combat.items import holding
from rules.aoristos.combat.movement import escape_decision
from rules.aoristos.combat.outcome import AttackSetup, strike
from rules.aoristos.combat.reading import (
    PAIN_THRESHOLD,
    AttackFacts,
    arm_ok,
    attack_facts,
    distance,
    holds_real_melee_weapon,
    in_melee,
    needs_ammo,
    not_in_melee,
    require_active,
)
from rules.aoristos.combat.state import UNARMED, Combatant, Encounter, PendingAttack, pairs_get
from rules.aoristos.combat.vigilance import (
    SLACK,
    STAY,
    VigilanceMove,
    default_vigilance,
    foes_who_may_follow,
    room_left,
    vigilance_bonus,
    vigilance_move_plan,
    vigilance_options,
)
from rules.aoristos.combat.wounds import wound_event
from rules.aoristos.dice import Hand, Purpose, roll
from rules.aoristos.success import p_success, test_hand
from rules.combat_kit import Folded, changed, combatant, refuse, remembering
from rules.errors import RulesError
from rules.errors import gettext_noop as _
from rules.table_dice import dice_of

VIGILANCE_RANGE = 10  # p. 9: the attacker within 10 m may abort a hit


# The attack's figures (p. 8-12) -----------------------------------------------------------


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


def attack_base(attacker: Combatant, weapon) -> int:
    return F.attack_test_base(attacker.skill(weapon.skill), attacker.agility, attacker.alertness)


def strength_physique(attacker: Combatant, weapon) -> int | None:
    """FYS adds to the strength of attacks by physical contact and throws (p. 12)."""
    contact = weapon.contact or weapon.thrown or not (weapon.ranged or weapon.thrown)
    return attacker.physique if contact else None


def protection_of(target: Combatant, area: str | None, cover_after: int | None = None) -> int:
    """Armour on the area hit, and cover there as armour (p. 12). With no area,
    Totalrustning, and −1 strength per area hidden "om målet efter eventuell förflyttning
    till följd av vaksamhet (s. 9) befinner sig i ett ordentligt skydd": `cover_after`,
    the areas hidden where its vigilance move ended (None: it did not move, and the
    cover is as the GM set it, one per covered area). "Om målet redan från början var helt
    dolt fungerar skyddet som rustning": a target whose every area was behind cover from
    the start and that did not move has its cover counted in Totalrustning as armour."""
    if area is None:
        if cover_after is not None:
            return F.total_armour(target.armour) + cover_after
        if target.cover and {a for a, _ in target.cover} >= set(AREAS):
            return F.total_armour_and_cover(target.armour, target.cover)
        return F.total_armour(target.armour) + len(target.cover)
    worn = sum(p.protection(area) for p in target.armour if not p.shield)  # p. 8: no shield
    return worn + pairs_get(target.cover, area, 0)


UNPROTECTED = tuple((area, 0) for area in AREAS)


def protection_table(target: Combatant) -> tuple[tuple[str, int], ...]:
    """`protection_of` each area, in the order of `AREAS` (none without armour or cover:
    the common case, not worked out area by area)."""
    if not target.armour and not target.cover:
        return UNPROTECTED
    return tuple((area, protection_of(target, area)) for area in AREAS)


def attack_cost(weapon, aim_levels: int, conditions: int, auto: bool) -> int:
    """p. 8: 1 KP, +1 for a real weapon; aim levels (p. 8); +1 KP in auto mode (p. 11)."""
    return (2 if weapon.real else 1) + F.aim_cost(aim_levels, conditions) + (1 if auto else 0)


def threshold_parts(
    state: Encounter,
    attack: PendingAttack,
    properties: tuple[str, ...],
    options: dict[str, int] | None = None,
    facts: AttackFacts | None = None,
    end: tuple[float, float] | None = None,
) -> list[tuple[str, int]]:
    """The attack's ST, part by part (p. 8-10): vigilance, then melee and range, then
    the GM's situational modifier.

    An attacker in melee who sits or lies has +2 ST on every attack, firing included
    (p. 10, "Alla anfall i närstrid"); a ranged attack always has its range malus (p. 10,
    "alltid"), also when fired from a melee, plus +1 or +3 when fired at a standing target
    in the melee with a short or long firearm or a bow (p. 10; throws and slings have no
    such malus). Aim of either kind is forbidden in melee (p. 10). Cover raises a ranged
    attack's ST "om skyddet faktiskt gör det svårt att veta var målet befinner sig"
    (p. 10): the GM marks such a target, and the campaign's `hard_to_locate` is added.
    The range is counted where the target ends up: step 3 follows the move of step 2
    (p. 9); `end`, the point the vigilance move takes it to (None: the engine's 1 m with
    RÖR named, else where it stands).

    `options`: the target's `vigilance_options` against this attack, and `facts` its
    `reading.AttackFacts`, when the caller has them already."""
    if facts is None:
        facts = attack_facts(state, attack)
    attacker, target, weapon = facts.attacker, facts.target, facts.weapon
    parts: list[tuple[str, int]] = []
    if target.aware and target.acts:
        if options is None:
            options = vigilance_options(state, attack, facts)
        parts += [(key, options[key]) for key in properties]
        if properties:  # p. 8: no vigilance used, ST 0; the bonus helps vigilance only
            parts.append(vigilance_bonus(state, target))
    melee = facts.attacker_in_melee
    melee_attack = facts.melee_attack
    if (melee_attack or melee) and attacker.posture != "standing":
        parts.append(("attacker_down", 2))  # p. 10
    if melee_attack:
        if weapon.two_handed and attacker.grip(weapon.key) == 1:
            parts.append(("one_hand_two_handed", max(0, 5 - attacker.physique)))  # p. 10
    else:
        firearm_or_bow = weapon.firearm is not None or weapon.skill == "bow"  # p. 10's words
        if firearm_or_bow and facts.fired_in_melee and target.posture == "standing":
            parts.append(("firing_in_melee", 3 if weapon.long_in_melee else 1))  # p. 10
        aim = attacker.range_aim if attacker.range_aim_target == target.id and not melee else 0
        if end is None:
            moves = "agility" in properties and facts.move_to is not None
            end = facts.move_to if moves else (target.x, target.y)
        metres = math.hypot(end[0] - attacker.x, end[1] - attacker.y)
        parts.append(("range", F.range_malus(metres, weapon.range_categories, aim)))
        if target.hard_to_locate:  # p. 10
            parts.append(("hard_to_locate", state.house.hard_to_locate))
    if state.situation:  # the GM's (issue 45)
        parts.append(("situation", state.situation))
    return parts


def attack_setup(
    state: Encounter,
    attack: PendingAttack,
    properties: tuple[str, ...],
    threshold: int | None = None,
    facts: AttackFacts | None = None,
    move: VigilanceMove | None = None,
) -> AttackSetup:
    """The attack's figures once the target has named `properties` as its vigilance
    (steps 2-3, p. 9): all the dice need to decide the outcome (`outcome.strike`).
    `threshold`: the ST already set (after the roll the vigilance move has happened,
    and the ST stays what it was when the dice were rolled). `facts`: the attack's
    `reading.AttackFacts` in `state`, when the caller has them. `move`: the vigilance
    move the target makes (None: the engine's own with RÖR named, or the one already
    made, `attack.cover_after`); where it ends sets the range and the cover against hits
    with no area (p. 9, 12)."""
    if facts is None:
        facts = attack_facts(state, attack)
    attacker, target, weapon = facts.attacker, facts.target, facts.weapon
    if move is None and attack.stage == "vigilance" and threshold is None:
        move = vigilance_move_plan(state, attack, facts) if "agility" in properties else STAY
    cover_after = attack.cover_after if move is None else move.cover_after
    mode = next((m for m in weapon.modes if m.auto), None) if attack.auto else None
    if threshold is None:
        end = None if move is None else (move.to or (target.x, target.y))
        parts = threshold_parts(state, attack, properties, None, facts, end)
        threshold = sum(value for _, value in parts)
    # Positional, in the fields' order (each named beside it): a class called with
    # keywords costs twice as much to make, and every attack makes one or two.
    return AttackSetup(
        attack_base(attacker, weapon),  # test_base
        threshold,
        attack.aim,
        attack.shots,
        mode.random_dice if mode else 0,  # random_dice
        min(weapon.max_per_round, attacker.rounds(weapon.key))  # shot_cap
        if needs_ammo(weapon)
        else None,
        attacker.occupied_hands if weapon is UNARMED else 0,  # occupied_hands
        weapon.two_handed and attacker.grip(weapon.key) == 2,  # two_handed_grip
        attacker.nerve_shock,
        weapon.explosive,
        weapon.real,  # real_weapon
        weapon.strength,  # weapon_strength
        strength_physique(attacker, weapon),  # physique
        attack.called_area,
        frozenset(target.hidden_areas),  # hidden
        protection_table(target),  # protection
        protection_of(target, None, cover_after),  # total_protection
        target.toughness,
    )


# Declaring, rolling and resolving (p. 8-13) -----------------------------------------------


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
    if not state.reactions or state.reactions[0].who != cmd.id:
        refuse(_("no reaction waits for this combatant"), "no_reaction")
    reaction = state.reactions[0]
    c = combatant(state, cmd.id)
    if reaction.kind == "follow":  # p. 9: "om de vill": it stays where it is
        return [E.ReactionDone(c.id, "stayed")]
    if state.attack is not None:
        refuse(_("no reaction waits for this combatant"), "no_reaction")
    if reaction.kind == "free_attack":
        return [E.ReactionDone(c.id, "passed")]
    if reaction.must:
        refuse(_("{name} failed to hold fire and must attack (p. 11)"), "must_attack", name=c.name)
    # p. 11: a voluntary SIN test to stop oneself.
    rolled = roll(test_hand(nerve_shock=c.nerve_shock), dice_of(rng, c.id, "hold_fire"),
                  Purpose.TEST)
    total = c.alertness + rolled.result
    ok = total >= PAIN_THRESHOLD
    return [
        E.ReactionDone(
            c.id, "held" if ok else "must_attack", (rolled.dice, total, PAIN_THRESHOLD, ok)
        )
    ]


def striking_limb(c: Combatant, named: str | None) -> str:
    """The limb an unarmed attack strikes with (p. 8, where a parry hits back "i använd
    lem"): the one named (a punch's arm, a kick's leg), or else the first free hand whose
    arm is whole, right before left, then any whole arm (a punch with something held; the
    occupied hand's 1T is the attack hand's, p. 9). A broken or destroyed limb strikes
    nothing (p. 14). Our reading (docs/rules/aoristos.md)."""
    if named is not None:
        if named not in LIMBS:
            refuse(_("unknown limb {limb!r}"), "bad_field", field="limb", limb=named)
        if c.limb(named) != "ok":
            refuse(_("{name} cannot strike with a broken limb (p. 14)"), "broken_arm", name=c.name)
        return named
    whole = [hand for hand in ("right", "left") if arm_ok(c, hand)]
    if not whole:
        refuse(_("{name} has no arm to strike with"), "broken_arm", name=c.name)
    free = [hand for hand in whole if getattr(c, hand) is None]
    return f"{(free or whole)[0]}_arm"


@remembering  # the policy checks the attack it gives, and the handler checks it again
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
    limb = striking_limb(c, cmd.limb) if weapon is UNARMED else None
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
        "limb": limb,
    }


def declaration(
    c: Combatant, cmd: C.Attack, plan: dict, *, cost: int, passive: bool = False
) -> E.AttackDeclared:
    """Step 1 (p. 9): the attack declared against its target, and paid."""
    return E.AttackDeclared(  # positional, as `attack_setup`'s: the fields' order
        c.id,  # attacker
        plan["target"].id,
        plan["weapon"].key,
        cmd.aim,
        plan["shots"],
        plan["mode"].auto,
        cmd.area,  # called_area
        cost,
        passive,
        plan["melee"],
        round(plan["distance"], 2),
        plan["limb"],
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
            after = fold(after, event)
        if not target.aware or not target.acts:
            rolled = roll_attack(after, after.attack, (), rng)
            out += rolled
            after = rolled.after
        return Folded(state, out, after)

    if prepaid or passive:
        return done()
    return pay(state, c, plan["cost"], "attack", cmd, done)


def _vigilance(state: Encounter, cmd: C.Vigilance, rng):
    attack = state.attack
    if attack is None or attack.stage != "vigilance" or attack.target != cmd.id:
        refuse(_("no attack waits for this combatant's vigilance"), "no_attack")
    facts = attack_facts(state, attack)  # looked up once for the whole attack
    options = vigilance_options(state, attack, facts)
    bonus = vigilance_bonus(state, facts.target)[1]
    chosen = default_vigilance(options, bonus) if cmd.default else tuple(cmd.properties)
    if len(chosen) > F.VIGILANCE_MAX:
        refuse(_("at most three properties in vigilance (p. 8)"), "too_many")
    if len(set(chosen)) != len(chosen):
        refuse(_("a property counts once against an attack (p. 8)"), "twice")
    for key in chosen:
        if key not in options:
            refuse(
                _("{field!r} cannot be used against this attack"), "not_allowed", key=key, field=key
            )
    moving = cmd.x is not None or cmd.y is not None or cmd.prone or cmd.followers
    if moving and "agility" not in chosen:
        refuse(_("only RÖR in vigilance moves the target (p. 9)"), "vigilance_move")
    move = None
    if "agility" in chosen:
        try:
            move = vigilance_move_plan(
                state, attack, facts, cmd.x, cmd.y, cmd.prone, tuple(cmd.followers)
            )
        except RulesError as error:
            if error.code != "toward_cover":
                raise
            # p. 9: toward cover the map does not show: the GM confirms it first.
            return [E.MoveProposed(cmd.id, chosen, (cmd.x, cmd.y), cmd.prone)]
    return roll_attack(state, attack, chosen, rng, options, facts, move)


def _confirm_move(state: Encounter, cmd: C.ConfirmMove, rng):
    """The GM on a proposed vigilance move (p. 9): accepted, the attack goes on from where
    it ends, the cover there hiding `areas` (p. 12; None: the house rule's); refused, the
    target chooses its vigilance again."""
    attack = state.attack
    if attack is None or attack.stage != "confirm":
        refuse(_("no vigilance move waits for the GM"), "no_attack")
    properties, (x, y), prone = attack.proposal
    if not cmd.accept:
        return [E.MoveConfirmed(attack.target, False)]
    if cmd.areas is not None and not 0 <= cmd.areas <= len(AREAS):
        refuse(_("cover hides 0-6 areas"), "bad_field", field="areas")
    areas = state.house.vigilance_cover_areas if cmd.areas is None else cmd.areas
    facts = attack_facts(state, attack)
    move = vigilance_move_plan(state, attack, facts, x, y, prone, (), trusted=True)
    move = move._replace(cover_after=areas)
    confirmed = E.MoveConfirmed(attack.target, True, areas)
    rolled = roll_attack(fold(state, confirmed), attack, properties, rng, None, None, move)
    return [confirmed, *rolled]


def roll_attack(
    state: Encounter,
    attack: PendingAttack,
    chosen: tuple,
    rng,
    options: dict[str, int] | None = None,
    facts: AttackFacts | None = None,
    move: VigilanceMove | None = None,
) -> list:
    """Steps 2-6 (p. 9): the ST, the vigilance move, the auto dice (p. 11), the attack test
    and the area roll; then the abort decision or the resolution. What the dice make of
    it is `outcome.strike`, the function the preview's odds are the distribution of. In
    melee the foes who may follow the move (p. 9) are asked first: the dice wait for
    their answers (`resume_attack`).
    `options`: the target's vigilance options, and `facts` the attack's
    `reading.AttackFacts`, when the caller has them; `move`, the vigilance move the
    target chose (`vigilance.vigilance_move_plan`; None: the engine's own)."""
    if facts is None:
        facts = attack_facts(state, attack)
    target = facts.target
    if move is None:
        move = vigilance_move_plan(state, attack, facts) if "agility" in chosen else STAY
    end = move.to or (target.x, target.y)
    parts = threshold_parts(state, attack, chosen, options, facts, end)
    setup = attack_setup(state, attack, chosen, sum(value for _, value in parts), facts, move)
    chose = E.VigilanceChosen(
        target.id,
        chosen,
        setup.threshold,
        tuple(parts),
        move.to,
        move.metres if move.to else 0.0,
        move.prone,
        move.followers,
        move.cover_after,
    )
    out = [chose]
    after = fold(state, chose)
    # p. 9: in melee the foes may follow the metre, each deciding for itself; the attack
    # waits for them (its "follow" reactions) and goes on once they are answered
    # (`resume_attack`, from `engine.settle`).
    offers = foes_who_may_follow(state, facts, move)
    for fid in offers:
        called = E.ReactionCalled("follow", fid, target.id)
        out.append(called)
        after = fold(after, called)
    if offers:
        return Folded(state, out, after)
    rolled = attack_dice(after, setup, rng)
    return Folded(state, out + rolled, rolled.after)


def resume_attack(state: Encounter, rng) -> list:
    """The attack once its "follow" reactions are answered (p. 9): the dice of steps 4-6
    from where everyone now stands, the ST as the vigilance set it."""
    attack = state.attack
    setup = attack_setup(state, attack, attack.vigilance, attack.threshold)
    return attack_dice(state, setup, rng)


def attack_dice(state: Encounter, setup: AttackSetup, rng) -> list:
    """Steps 4-6 (p. 9) of `state.attack`, its vigilance chosen and its moves made: the
    auto dice (p. 11), the attack test and the area roll; then the abort decision or the
    resolution (`outcome.strike`)."""
    attack = state.attack
    attacker = combatant(state, attack.attacker)
    target = combatant(state, attack.target)
    shooting = dice_of(rng, attacker.id, "shots")
    auto_dice = tuple([shooting.randint(1, 6) for _ in range(setup.random_dice)])
    shots = setup.projectiles(auto_dice)
    hand = setup.hand(shots)
    test_dice = dice_of(rng, attacker.id, "attack",
                        lambda: p_success(hand, setup.test_base, setup.threshold))
    rolled = roll(hand, test_dice, Purpose.TEST)
    options = None
    area_hand_text = ""
    area_dice: tuple[int, ...] = ()
    if setup.has_area(shots):  # p. 9: explosions and 4+ projectiles: no area
        ahand = F.area_hand(attack.aim)
        area_roll = roll(ahand, dice_of(rng, attacker.id, "area"), Purpose.TEST)
        area_hand_text, area_dice = str(ahand), area_roll.dice
        options = F.area_options(area_roll.dice, bool(ahand.free))
    struck = strike(setup, shots, sum(rolled.counted), options)
    distance_now = distance(attacker, target)
    abortable = struck.hit and distance_now <= VIGILANCE_RANGE
    rolled_event = E.AttackRolled(  # positional, as `attack_setup`'s: the fields' order
        attacker.id,
        target.id,
        str(hand),
        rolled.dice,
        rolled.counted,
        setup.test_base,
        setup.threshold,
        struck.total,
        struck.hit,
        shots,
        auto_dice,
        area_hand_text,
        area_dice,
        struck.area,
        abortable,
    )
    out = [rolled_event]
    after = fold(state, rolled_event)
    if not abortable:
        resolved = resolve_attack(after, rng, (setup, struck))
        out += resolved
        after = resolved.after
    return Folded(state, out, after)


def _follow(state: Encounter, cmd: C.Follow, rng):
    """p. 9: a foe in the melee follows the target's vigilance move, as far the same way,
    at no KP (vigilance is no action, p. 8); only its own "follow" reaction lets it."""
    reaction = state.reactions[0] if state.reactions else None
    if reaction is None or reaction.kind != "follow" or reaction.who != cmd.id:
        refuse(_("no vigilance move waits for this combatant to follow it"), "no_reaction")
    f = combatant(state, cmd.id)
    attack = state.attack
    dx, dy, metres = attack.step
    if room_left(f) < metres - SLACK:
        refuse(_("{name} has no metre left this round"), "vigilance_move", name=f.name)
    return [E.Followed(f.id, reaction.target, round(f.x + dx, 2), round(f.y + dy, 2), metres)]


def _proceed(state: Encounter, cmd: C.Proceed, rng):
    decided = escape_decision(state, cmd, True)
    if decided is not None:
        return decided
    attack = state.attack
    if attack is None or attack.stage != "abort" or attack.attacker != cmd.id:
        refuse(_("no attack waits for this decision"), "no_attack")
    return resolve_attack(state, rng)


def _abort(state: Encounter, cmd: C.Abort, rng):
    decided = escape_decision(state, cmd, False)
    if decided is not None:
        return decided
    attack = state.attack
    if attack is None or attack.stage != "abort" or attack.attacker != cmd.id:
        refuse(_("no attack waits for this decision"), "no_attack")
    return [E.AttackAborted(cmd.id)]


def resolve_attack(state: Encounter, rng, worked_out: tuple | None = None) -> list:
    """Step 6 (p. 9, 12-13): hit or miss, strength, protection, damage, the wound; the
    figures of `outcome.strike` on the rolled dice and the area they went to.

    `worked_out`: the attack's setup and strike as `roll_attack` has just made them, when
    the resolution follows the roll at once (no abort decision between): the vigilance
    move and the roll change nothing they read, so they are not worked out again."""
    attack = state.attack
    rolled: E.AttackRolled = attack.roll
    attacker = combatant(state, attack.attacker)
    target = combatant(state, attack.target)
    weapon = attacker.weapon(attack.weapon) or UNARMED
    used = rolled.shots if needs_ammo(weapon) else 0
    area = rolled.area
    dice_sum = sum(rolled.counted)
    if worked_out is not None:
        setup, struck = worked_out
    else:
        setup = changed(
            attack_setup(state, attack, attack.vigilance, rolled.threshold),
            test_base=rolled.test_base,
        )
        options = None if area is None else frozenset({area})
        struck = strike(setup, rolled.shots, dice_sum, options)
    if not struck.hit:
        out = [
            E.AttackResolved(attacker.id, target.id, weapon.key, False, struck.reason, area, used)
        ]
        if (
            struck.reason == "miss"
            and weapon is UNARMED
            and "melee_weapons" in attack.vigilance
            and holds_real_melee_weapon(target)
        ):
            # p. 8: an unarmed attack that misses a real melee weapon's parry: a hit of
            # strength 1B in the limb used, with no modifications.
            parry = roll(Hand.of(1), dice_of(rng, target.id, "parry"), Purpose.TEST)
            dealt = F.damage(parry.result, attacker.toughness)
            limb = attack.limb or "right_arm"  # a log from before the limb was kept
            out.append(wound_event(state, attacker, limb, dealt, rng, f"parry 1B = {parry.result}"))
        after = state
        for event in out:
            after = fold(after, event)
        return Folded(state, out, after)
    parts = [("margin", struck.margin)]
    if weapon.real:
        parts.append(("dice_again", dice_sum))
    if weapon.strength:
        parts.append(("weapon", weapon.strength))
    if setup.physique is not None:
        parts.append(("physique", setup.physique))
    resolved = E.AttackResolved(
        attacker.id,
        target.id,
        weapon.key,
        True,
        "hit",
        area,
        used,
        tuple(parts),
        struck.active,
        struck.protection,
        struck.final,
        struck.damage,
    )
    after = fold(state, resolved)
    wound = wound_event(after, combatant(after, target.id), area, struck.damage, rng, weapon.name)
    return Folded(state, [resolved, wound], fold(after, wound))


# Distance aim and overwatch (p. 11) -------------------------------------------------------


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
    after = fold(state, watched)
    return [
        *cancel_extended(c, "other_action"),
        watched,
        *end_activation(after, combatant(after, c.id), rng),
    ]


HANDLERS = {
    C.Attack: _attack,
    C.Vigilance: _vigilance,
    C.ConfirmMove: _confirm_move,
    C.Proceed: _proceed,
    C.Abort: _abort,
    C.Pass: _pass,
    C.Follow: _follow,
    C.RangeAim: _range_aim,
    C.Overwatch: _overwatch,
}
