"""`evolve(state, event)`: what each event of a T10 encounter does to it, and `fold`:
several in turn.

It never rolls (every die is in the event), so replaying the stored events rebuilds the
state exactly; the handlers fold their own events in with it to see what follows, and
`engine` hands it to the engine object.
"""

from rules.combat_kit import combatant, copied, remembering, trail
from rules.errors import RulesError
from rules.scene import EVENT_CLASSES as SCENE_KINDS
from rules.scene import evolve_scene
from rules.t10.combat import events as E
from rules.t10.combat.state import (
    Begun,
    Encounter,
    Pending,
    Reaction,
    changed,
    pairs_set,
)


def fold(state: Encounter, events) -> Encounter:
    for event in events:
        state = evolve(state, event)
    return state


def _put(state: Encounter, cid: str, **changes) -> Encounter:
    return state.put(copied(combatant(state, cid), changes))  # `changes` as it is


@remembering  # handlers fold their events to see what follows; `play` folds them again
def evolve(state: Encounter, event) -> Encounter:
    kind = type(event)
    if kind is E.CombatantAdded:
        return state.joined(event.combatant)
    if kind is E.CombatantUpdated:
        changes = dict(event.changes)
        if "x" in changes or "y" in changes:  # placed by the GM: no trail to it
            changes["path"] = ()
        return _put(state, event.id, **changes)
    if kind is E.CombatantRemoved:
        return state.without(event.id)
    if kind is E.InitiativeRolled:
        if event.reason == "react":
            return state
        for cid, rolled in event.rolls:
            state = _put(state, cid, rolls=tuple(rolled))
        return state
    if kind is E.RoundStarted:
        ap = dict(event.ap)
        combatants = tuple(
            c.with_(ap=ap.get(c.id, 0), saved=0, turn_done=False, path=())
            for c in state.combatants
        )
        return changed(
            state, round=event.round, active=None, round_closed=False, combatants=combatants
        )
    if kind is E.TurnStarted:
        return changed(state, active=event.id)
    if kind is E.TurnSkipped:
        return _put(state, event.id, turn_done=True)
    if kind is E.BegunContinued:
        c = combatant(state, event.id)
        begun = None
        if not event.done:
            begun = changed(c.begun, paid=c.begun.paid + event.paid)
        return state.put(c.with_(ap=c.ap - event.paid, begun=begun))
    if kind is E.ActionBegun:
        c = combatant(state, event.id)
        return state.put(c.with_(ap=c.ap - event.paid, begun=Begun(event.command, event.cost,
                                                                  event.paid)))
    if kind in (E.ActionLost, E.ReactionLost, E.Acted, E.SkillRolled, E.AttackLost):
        return state
    if kind is E.APSpent:
        c = combatant(state, event.id)
        return state.put(c.with_(ap=c.ap - event.ap, saved=c.saved - event.saved))
    if kind is E.Moved:
        if event.x is None:  # typed in metres (or from before the map): it stays put
            return _put(state, event.id, in_cover=False)
        c = combatant(state, event.id)
        return state.put(
            c.with_(in_cover=False, x=event.x, y=event.y, path=trail(c, event.x, event.y))
        )
    if kind is E.CoverTaken:
        return _put(state, event.id, in_cover=True)
    if kind is E.StanceChanged:
        return _put(state, event.id, stance=event.stance, wielded=event.weapon)
    if kind is E.ModeChanged:
        c = combatant(state, event.id)
        return state.put(c.with_(modes=pairs_set(c.modes, event.weapon, event.mode)))
    if kind is E.Reloaded:
        c = combatant(state, event.id)
        return state.put(c.with_(ammo=pairs_set(c.ammo, event.weapon, event.rounds)))
    if kind is E.Treated:
        target = combatant(state, event.target)
        return state.put(target.with_(damage=target.damage - event.healed))
    if kind is E.PainkillersTaken:
        return _put(state, event.target, painkillers=True)
    if kind is E.Recovered:
        c = combatant(state, event.id)
        return state.put(c.with_(fatigue=c.fatigue - event.points))
    if kind is E.AttackDeclared:
        pending = Pending(
            attacker=event.attacker,
            target=event.target,
            weapon=event.weapon,
            mode=event.mode,
            distance=event.distance,
            modifier=event.modifier,
            waiting=event.waiting,
        )
        return changed(state, pending=pending)
    if kind is E.ReactionDeclared:
        reaction = Reaction(event.id, event.command, event.cost)
        pending = changed(state.pending, reactions=(*state.pending.reactions, reaction))
        return changed(state, pending=pending)
    if kind is E.Passed:
        pending = changed(state.pending, passed=(*state.pending.passed, event.id))
        return changed(state, pending=pending)
    if kind is E.ReactionsClosed:
        return changed(state, pending=None)
    if kind is E.AttackRolled:
        if not event.ammo:
            return state
        c = combatant(state, event.attacker)
        weapon = c.weapon(event.weapon)
        left = max(0, c.ammo_of(weapon) - event.ammo)
        return state.put(c.with_(ammo=pairs_set(c.ammo, event.weapon, left)))
    if kind is E.Damaged:
        c = combatant(state, event.id)
        return state.put(
            c.with_(
                fatigue=c.fatigue + event.fatigue,
                damage=c.damage + event.damage,
                ap=c.ap - event.ap_lost,
                saved=c.saved - event.saved_lost,
            )
        )
    if kind is E.TurnEnded:
        state = _put(state, event.id, turn_done=True, saved=event.saved, ap=0)
        return changed(state, active=None) if state.active == event.id else state
    if kind is E.RoundEnded:
        fatigue = dict(event.fatigue)
        combatants = tuple(
            c.with_(ap=0, saved=0, fatigue=fatigue.get(c.id, c.fatigue))
            for c in state.combatants
        )
        return changed(state, combatants=combatants, active=None, round_closed=True)
    if kind is E.EncounterEnded:
        return changed(state, ended=True, pending=None, active=None)
    if kind in SCENE_KINDS:
        return evolve_scene(state, event)
    raise RulesError(f"unknown event {kind.__name__}")
