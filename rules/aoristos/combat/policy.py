"""The default policy of a simulated Aoristos fight (`rules.simulation`, issue 29): what
every combatant does when it must decide, written down so a GM can judge the result.

Answers first, in the order the fight asks for them (`view.prompts`):

1. **Vigilance** (p. 8-9): the target takes the suggested vigilance (the three best
   properties, `default`), as the page suggests.
2. **An attacker's abort** (p. 9, a hit within 10 m): it goes on.
3. **A reaction** (a free attack at a foe leaving melee, p. 10; overwatch, p. 11): it
   attacks with the first weapon in hand the rules allow, else lets it pass. A foe
   offered to follow a melee's vigilance move (p. 9; offered only to those in melee with
   the target, the attacker first) follows it, staying in the melee it fights in, unless
   it holds a ranged weapon: a shooter keeps its range (as in 10 below) and stays.
4. **An escape from melee that went badly** (p. 10): the mover goes on.

Then the active combatant, once per step of its activation:

5. **Flees when wounded** (the GM marks it): at its first activation with a wound it leaves
   the fight (counted "fled"), and does nothing more.
6. **An extended activity** under way (p. 7): it goes on with it, with the KP it has
   (none left: it ends the activation and pays on in the next). Where the rules no longer
   allow it (a reload once a foe is in melee, p. 10) it lets it be and fights on below.
7. **Its target** is the nearest foe who can still act (the lower id on a tie).
8. **Attack** with a weapon in hand: in melee reach a melee weapon first, else a ranged one
   first (keeping its range: a shooter does not close in), no aim, each attack whose KP it
   still has; a firearm without rounds is reloaded (over two activations if need be).
9. **Draw** a weapon it carries that would serve (1 KP) when none in hand does.
10. **Close in** with melee weapons only: it moves toward the target, to 1 m from it, as
    far as its KP carry it.
11. Otherwise it **ends its activation**; the KP left become vigilance bonus (p. 8).
"""

from functools import lru_cache
from math import hypot

from rules.aoristos.combat import commands as C
from rules.aoristos.combat.attacks import attack_cost, attack_plan
from rules.aoristos.combat.movement import move_plan
from rules.aoristos.combat.reading import distance, needs_ammo
from rules.aoristos.combat.state import UNARMED, Combatant, Encounter
from rules.aoristos.combat.view import try_cost
from rules.errors import RulesError
from rules.simulation import Fate

CLOSE_TO = 1.0  # metres from the target a melee fighter walks to
STEPS = (1.0, 0.75, 0.5, 0.25)  # how much of the way it tries, if the whole is too dear


def start_command(state: Encounter):
    return C.StartCombat() if state.round == 0 else None


# Who can act: the combatant's own `acts`, its getter itself (the play's loop asks it of
# every combatant before every command: one call, not a function calling a property).
can_act = Combatant.acts.fget


def fate(c: Combatant) -> Fate:
    limbs = {state for _limb, state in c.limbs}
    return _fate(
        any(damage > 0 for _area, damage in c.area_damage),
        "broken" in limbs,
        "destroyed" in limbs,
        c.alive and not c.conscious,
        not c.alive,
    )


@lru_cache(maxsize=64)
def _fate(
    wounded: bool, limb_broken: bool, limb_destroyed: bool, unconscious: bool, dead: bool
) -> Fate:
    """One `Fate` per combination (a simulation asks every combatant's at every fight's
    end, and there are few: a frozen value serves them all)."""
    return Fate(
        wounded=wounded,
        limb_broken=limb_broken,
        limb_destroyed=limb_destroyed,
        unconscious=unconscious,
        dead=dead,
    )


def next_command(state: Encounter, plan, fight):
    """The command of whoever must decide now (None: nobody can)."""
    attack = state.attack
    if attack is not None:
        if attack.stage == "vigilance":
            return C.Vigilance(attack.target, (), True)  # the offer (`default`)
        if attack.stage == "follow":
            return _follow(state, state.reactions[0])
        return C.Proceed(attack.attacker)
    if state.reactions:
        return _reaction(state, state.reactions[0])
    if state.escape is not None and not state.escape.decided:
        return C.Proceed(state.escape.mover)
    c = state.active
    return None if c is None else _activation(state, c, plan, fight)


def _reaction(state: Encounter, reaction):
    who = state.get(reaction.who)
    for key in who.held:
        command = C.Attack(who.id, reaction.target, key)
        try:
            attack_plan(state, who, command)
        except RulesError:
            continue
        return command
    return C.Pass(who.id)


def _follow(state: Encounter, reaction):
    """p. 9: a foe in the melee follows the target's metre, unless it holds a ranged
    weapon (a shooter keeps its range, as `_close_in`)."""
    who = state.get(reaction.who)
    if any((w := who.weapon(k)) is not None and w.ranged for k in who.held):
        return C.Pass(who.id)
    return C.Follow(who.id)


def _activation(state: Encounter, c: Combatant, plan, fight):
    if c.id in fight.fled:
        return C.EndActivation(c.id)
    if c.id in plan.flees and fate(c).wounded:
        fight.fled.add(c.id)
        return C.EndActivation(c.id)
    if c.extended is not None:
        # Pay on with what is left (none left: in the next activation); where the rules
        # no longer allow it (a reload once a foe is in melee, p. 10) it lapses and the
        # combatant fights on as below.
        if c.cp <= 0:
            return C.EndActivation(c.id)
        if _allowed(state, C.Continue(c.id)) is not None:
            return C.Continue(c.id)
    # The nearest foe who can act, the lower id on a tie: `min` over them by (distance,
    # id), in one pass that keeps the distance (every decision of a fight asks it; its
    # `acts` and `distance` unrolled).
    target, gap = None, 0.0
    side, fled, x, y = c.side, fight.fled, c.x, c.y
    for o in state.combatants:
        if o.side != side and o.alive and o.conscious and o.id not in fled:
            d = hypot(x - o.x, y - o.y)
            if target is None or d < gap or (d == gap and o.id < target.id):
                target, gap = o, d
    if target is None:
        return C.EndActivation(c.id)
    reach = gap <= state.house.melee_reach
    return (
        _attack(state, c, target, c.held, reach)
        or _draw(state, c, target, reach)
        or _close_in(state, c, target)
        or C.EndActivation(c.id)
    )


def _by_preference(c: Combatant, keys, reach: bool) -> list:
    """The weapons of `keys` in the order the policy tries them, as (key, weapon): in
    reach melee first, else ranged (each group in the order given: what a stable sort by
    `ranged == reach` gives, in one pass, as every decision asks it)."""
    first, then = [], []
    for key in dict.fromkeys(keys):
        weapon = c.weapon(key)
        if weapon is not None:
            (then if weapon.ranged == reach else first).append((key, weapon))
    return first + then


def _attack(state: Encounter, c: Combatant, target: Combatant, keys, reach: bool):
    for key, weapon in _by_preference(c, (*keys, UNARMED.key) if reach else keys, reach):
        if not reach and not weapon.ranged and not weapon.thrown:
            continue  # out of reach: the rules refuse it (not asked: a refusal costs more)
        if c.cp < attack_cost(weapon, 0, 0, False) and (  # the least it costs (p. 8)
            not needs_ammo(weapon) or c.rounds(key) >= max(1, weapon.modes[0].shots)
        ):
            continue  # too dear whatever the plan says, and no reload it would call for
        command = C.Attack(c.id, target.id, key)
        try:
            cost = attack_plan(state, c, command)["cost"]
        except RulesError as refused:
            if refused.code == "no_ammo" and needs_ammo(weapon) and key in c.held:
                reload = _allowed(state, C.Reload(c.id, key))
                if reload is not None:
                    return reload
            continue
        if cost <= c.cp:
            return command
    return None


def _draw(state: Encounter, c: Combatant, target: Combatant, reach: bool):
    if c.cp < 1:
        return None
    for weapon in c.weapons:
        if weapon.key not in c.held and _serves(c, weapon, reach):
            draw = _allowed(state, C.Draw(c.id, weapon.key))
            if draw is not None:
                return draw
    return None


def _serves(c: Combatant, weapon, reach: bool) -> bool:
    """A melee weapon in reach; out of it a ranged one with rounds in it."""
    if reach:
        return not weapon.ranged and not weapon.thrown
    return weapon.ranged and (not needs_ammo(weapon) or c.rounds(weapon.key) > 0)


def _close_in(state: Encounter, c: Combatant, target: Combatant):
    if c.cp < 1:
        return None  # every move costs at least 1 KP (`figures.movement_cost`, p. 7)
    if any(c.weapon(k).ranged for k in c.held if c.weapon(k) is not None):
        return None  # a shooter keeps its range
    gap = distance(c, target)
    if gap <= state.house.melee_reach:
        return None
    for share in STEPS:
        go = (gap - CLOSE_TO) * share
        if go < 0.5:
            return None
        x = round(c.x + (target.x - c.x) / gap * go, 2)
        y = round(c.y + (target.y - c.y) / gap * go, 2)
        cost = move_plan(state, c, x, y).cost
        if cost is not None and cost <= c.cp:
            return C.Move(c.id, x, y)
    return None


def _allowed(state: Encounter, command):
    """`command` if the rules take it now (`view.try_cost`: checked without real dice),
    else None."""
    _cost, why = try_cost(state, command)
    return command if why is None else None
