"""The default policy of a simulated T10 fight (`rules.simulation`, issue 29): what every
combatant does when it must decide, written down so a GM can judge the result.

1. **A reaction** (saved AP while an attack is under way, "Sparade AP"): it lets the
   attack pass.
2. **Flees when wounded** (the GM marks it): on its first turn with Skada it leaves the
   fight (counted "fled").
3. **Its target** is the nearest foe who can still act (the lower id on a tie); without
   positions on the map the distance is taken as the weapon's normal range and nobody
   moves.
4. Each step of its turn, the first of these the rules take (checked without dice,
   `actions.plan_action`): raise the weapon to Anläggning from Normal (no attack is
   made from Normal); reload an empty magazine; attack when the target is within the
   weapon's maximum range; otherwise move toward the target, to 1 m from it, as far as
   the AP carry it; with Skada 5 or more, treat its own wounds (Sjukvård).
5. Otherwise it **ends its turn** (the AP left are saved for reactions).
"""

import math

from rules.errors import RulesError
from rules.simulation import Fate
from rules.t10.combat import commands as C
from rules.t10.combat.actions import plan_action
from rules.t10.combat.state import Combatant, Encounter

CLOSE_TO = 1.0  # metres from the target a fighter walks to
TREAT_AT = 5  # Skada from which a combatant treats itself when nothing else is to be done


def start_command(state: Encounter):
    return C.Start() if state.round == 0 else None


# Who can act: the combatant's own `acts`, its getter itself (the play's loop asks it of
# every combatant before every command: one call, not a function calling a property).
can_act = Combatant.acts.fget


def fate(c: Combatant) -> Fate:
    """T10 has no limbs: wounded is Skada, unconscious Utmattning 10, dead Skada 10."""
    return Fate(wounded=c.damage > 0, unconscious=c.alive and not c.conscious, dead=not c.alive)


def next_command(state: Encounter, plan, fight):
    if state.pending is not None:
        return C.Pass(state.pending.unanswered[0])
    if state.active is None:
        return C.Start() if state.round_closed else None
    c = state.get(state.active)
    if c.id in fight.fled:
        return C.EndTurn(c.id)
    if c.id in plan.flees and c.damage > 0:
        fight.fled.add(c.id)
        return C.EndTurn(c.id)
    foes = [o for o in state.combatants if o.side != c.side and o.acts and o.id not in fight.fled]
    weapon = c.weapon(c.wielded) or (c.weapons[0] if c.weapons else None)
    if not foes or weapon is None:
        return C.EndTurn(c.id)
    target = min(foes, key=lambda o: (gap(c, o, weapon), o.id))
    distance = gap(c, target, weapon)
    tries = []
    if c.stance == "normal":
        tries.append(C.Stance(c.id, "aimed"))
    if weapon.magazine and c.ammo_of(weapon) < 1:
        tries.append(C.Reload(c.id, weapon.key))
    if distance <= weapon.maximum:
        tries.append(C.Attack(c.id, target.id, weapon.key, distance=round(distance, 2)))
    elif placed(c) and placed(target):
        go = min(distance - CLOSE_TO, c.ap * state.house.metres_per_ap)
        if go > 0:
            x = round(c.x + (target.x - c.x) / distance * go, 2)
            y = round(c.y + (target.y - c.y) / distance * go, 2)
            tries.append(C.Move(c.id, x=x, y=y))
    if c.damage >= TREAT_AT:
        tries.append(C.Treat(c.id, c.id))
    for command in tries:
        try:
            plan_action(state, command)
        except RulesError:
            continue
        return command
    return C.EndTurn(c.id)


def placed(c: Combatant) -> bool:
    return c.x is not None and c.y is not None


def gap(c: Combatant, other: Combatant, weapon) -> float:
    if not (placed(c) and placed(other)):
        return float(weapon.normal)
    return math.hypot(c.x - other.x, c.y - other.y)
