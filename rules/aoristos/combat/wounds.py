"""Wounds (p. 12-14): one wound and its immediate effects (nervchock and the VIL test
against pain, p. 13; blödning; organtrauma and the survival roll, p. 14; broken limbs,
p. 14; unconsciousness, p. 13-14), the GM's hazards that deal them, and waking up.

Commands: Hazard, Wake.
"""

from rules.aoristos.combat import commands as C
from rules.aoristos.combat import events as E
from rules.aoristos.combat import figures as F
from rules.aoristos.combat.gear import LIMBS
from rules.aoristos.combat.reading import PAIN_THRESHOLD, extended_windup, windup_outcome
from rules.aoristos.combat.state import POSTURES, Combatant, Encounter
from rules.aoristos.dice import Hand, Purpose, parse_hand, roll
from rules.aoristos.success import p_success, test_hand
from rules.combat_kit import changed, combatant, refuse, require_open
from rules.errors import gettext_noop as _
from rules.table_dice import dice_of

SURVIVAL_HAND = Hand.of(2, forced=2)  # p. 14: 2B2T, no TB


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
        rolled = roll(SURVIVAL_HAND, dice_of(rng, target.id, "survival",
                                             lambda: p_success(SURVIVAL_HAND, 0, trauma)),
                      Purpose.TEST)
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
            pain_hand = test_hand(nerve_shock=nerve)
            rolled = roll(pain_hand, dice_of(rng, target.id, "pain", lambda h=pain_hand: p_success(
                h, target.willpower, PAIN_THRESHOLD)), Purpose.TEST)
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
    if (unconscious or not alive) and (posture or target.posture) != "lying":
        # p. 13 "förlorar personen omedelbart medvetandet": one who loses consciousness
        # (or dies) cannot stand or sit, and falls to lying (our reading, docs/rules/
        # aoristos.md "Unconscious lies"); waking, one is still lying (p. 7 to stand up).
        posture = "lying"
    cancelled = ""
    if added["nerve_shock"] and target.extended:
        cancelled = "extended"
    elif added["nerve_shock"] and target.overwatch:
        cancelled = "overwatch"
    # p. 7: a windup interrupted unplanned, by the hand letting go or the pain breaking
    # off a windup under way: the grenade stays armed (in the hand or on the ground),
    # the arrow is lost.
    windup = None
    if target.wound_up and target.wound_up in dropped:
        windup = (target.wound_up, windup_outcome(target, target.wound_up, True))
    elif cancelled == "extended" and (key := extended_windup(target)):
        windup = (key, windup_outcome(target, key, key in dropped))
    # Positional, in the fields' order: a class called with keywords costs twice as much
    # to make, and every hit makes one.
    return E.Wounded(
        target.id,
        area,
        damage,
        source,
        added["nerve_shock"],
        added["bleed_rate"],
        added["organ_trauma"],
        limb_state,
        survival,
        tuple(tests),  # vil_tests
        tuple(dict.fromkeys(dropped)),
        posture,
        unconscious,
        not alive,  # dead
        cancelled,
        windup,
    )


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
    rolled = roll(hand, dice_of(rng, c.id, "hazard"), Purpose.TEST)
    strength = rolled.result
    if cmd.area is None:
        protection = F.total_armour(c.armour)
    else:
        protection = sum(p.protection(cmd.area) for p in c.armour)
    dealt = F.damage(strength - protection, c.toughness, head=cmd.area == "head")
    source = f"{cmd.label or 'hazard'} {hand} = {strength}"
    wound = wound_event(state, c, cmd.area, dealt, rng, source)
    if cmd.burn:  # p. 14: a burn wounds as any hit; only care does not help it heal
        wound = changed(wound, burn=True)
    return [wound]


HANDLERS = {C.Wake: _wake, C.Hazard: _hazard}
