"""`evolve(state, event)`: what each event of an Aoristos encounter does to it (p. 6-14).

It never rolls (every die is in the event), so replaying the stored events rebuilds the
state exactly; the handlers of every chapter fold their own events in with it to see what
follows, and `engine` hands it to the engine object. Values are copied with
`combat_kit.changed` (`dataclasses.replace` without `__init__`: the fold is hot).
"""

from rules.aoristos.combat import events as E
from rules.aoristos.combat import figures as F
from rules.aoristos.combat.state import (
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
from rules.combat_kit import combatant, remembering
from rules.errors import RulesError
from rules.scene import EVENT_CLASSES as SCENE_KINDS
from rules.scene import evolve_scene


def spend(state: Encounter, cid: str, cost: int, **changes) -> Encounter:
    c = combatant(state, cid)
    return state.put(c.with_(cp=max(0, c.cp - cost), **changes))


def trail(c: Combatant, x: float, y: float) -> tuple[tuple[float, float], ...]:
    """The round's path of `c` with the point it moves to: from where it stood first."""
    return (*(c.path or ((c.x, c.y),)), (x, y))


@remembering  # handlers fold their events to see what follows; `play` folds them again
def evolve(state: Encounter, event) -> Encounter:
    kind = type(event)
    if kind is E.CombatantAdded:
        return state.joined(event.combatant)
    if kind is E.CombatantUpdated:
        changes = dict(event.changes)
        if "x" in changes or "y" in changes:  # placed by the GM: no trail to it
            changes["path"] = ()
        return state.put(combatant(state, event.id).with_(**changes))
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
    if kind is E.JoinedFight:
        order = (*state.order[: event.index], event.id, *state.order[event.index :])
        # The active combatant keeps its turn when the newcomer is placed before it.
        turn = state.turn + 1 if 0 <= event.index <= state.turn else state.turn
        state = state.put(combatant(state, event.id).with_(initiative=event.initiative))
        return changed(state, order=order, turn=turn)
    if kind is E.SingleAttackSet:
        state = state.put(combatant(state, event.attacker).with_(cp=event.cp))
        state = state.put(combatant(state, event.target).with_(vigilance_bonus=event.bonus))
        return changed(state, single=True, round=1, order=(event.attacker,), turn=0)
    if kind is E.RoundStarted:
        return changed(
            state,
            round=event.round,
            turn=-1,
            combatants=tuple(c.with_(moved=0.0, path=()) for c in state.combatants),
        )
    if kind is E.ActivationStarted:
        c = combatant(state, event.id)
        changes = {"cp": max(0, c.cp - event.loss), "moved_since_activation": False,
                   "stress_dice": tuple(event.dice), "stress_loss": event.loss}
        if event.bow_test is not None and not event.bow_test[3]:
            changes["wound_up"] = None  # p. 7: the arrow is spent
        return state.put(c.with_(**changes), turn=event.turn)
    if kind is E.Moved:
        c = combatant(state, event.id)
        changes = {
            "x": event.x,
            "y": event.y,
            "moved": round(c.moved + event.distance, 2),
            "moved_since_activation": True,
            "path": trail(c, event.x, event.y),
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
        extended = changed(c.extended, remaining=event.remaining) if event.remaining else None
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
        attack = changed(
            state.attack,
            threshold=event.threshold,
            threshold_parts=event.parts,
            vigilance=event.properties,
        )
        if event.move_to is None:
            return changed(state, attack=attack)
        c = combatant(state, event.target)
        return state.put(
            c.with_(
                x=event.move_to[0],
                y=event.move_to[1],
                moved=round(c.moved + event.moved, 2),
                moved_since_activation=True,
                path=trail(c, *event.move_to),
            ),
            attack=attack,
        )
    if kind is E.AttackRolled:
        return changed(state, attack=changed(state.attack, stage="abort", roll=event))
    if kind is E.AttackAborted:
        c = combatant(state, event.attacker)
        return state.put(c.with_(wound_up=None), attack=None)
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
        return state.put(c.with_(**changes), attack=None)
    if kind is E.Wounded:
        c = combatant(state, event.id)
        changes = {
            "nerve_shock": c.nerve_shock + event.nerve_shock,
            "bleed_rate": c.bleed_rate + event.bleed_rate,
            "organ_trauma": c.organ_trauma + event.organ_trauma,
        }
        if event.limb_state is not None:
            changes["limbs"] = pairs_set(c.limbs, event.area, event.limb_state)
        if event.area and event.damage > 0:
            taken = pairs_get(c.area_damage, event.area, 0) + event.damage
            changes["area_damage"] = pairs_set(c.area_damage, event.area, taken)
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
        return changed(state, escape=changed(state.escape, decided=True))
    if kind is E.ReactionCalled:
        reaction = Reaction(event.kind, event.who, event.target)
        return changed(state, reactions=(*state.reactions, reaction))
    if kind is E.ReactionDone:
        reaction = state.reactions[0]
        if event.how == "must_attack":
            return changed(state, reactions=(changed(reaction, must=True), *state.reactions[1:]))
        c = combatant(state, event.who)
        changes = {"reacting": False}
        if reaction.kind == "overwatch":
            changes["overwatch"] = None  # p. 11: once
        return state.put(c.with_(**changes), reactions=state.reactions[1:])
    if kind is E.Woke:
        return state.put(combatant(state, event.id).with_(conscious=True))
    if kind is E.EncounterEnded:
        return changed(state, ended=True, attack=None)
    if kind in SCENE_KINDS:
        return evolve_scene(state, event)
    raise RulesError(f"unknown event {kind.__name__}")
