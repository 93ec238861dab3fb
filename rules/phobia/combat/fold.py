"""`evolve(state, event)`: what each event of a Phobia encounter does to it (lines
613-804, 806-1130), and `wound`: a hit's boxes, injury, ongoing effects and losses taken
onto a combatant (the round's path on the map is `combat_kit.trail`).

It never rolls (every die is in the event), so replaying the stored events rebuilds the
state exactly; the handlers fold their own events in with it to see what follows, and
`engine` hands it to the engine object.
"""

from rules.combat_kit import combatant, copied, remembering, trail
from rules.errors import RulesError
from rules.phobia.combat import events as E
from rules.phobia.combat.state import (
    AimedShot,
    Combatant,
    Encounter,
    Ongoing,
    Pending,
    Response,
    SkillUse,
    changed,
)
from rules.phobia.injuries import EAR_LOSS, ROUND_SECONDS, CheckKind, parse_code
from rules.scene import EVENT_CLASSES as SCENE_KINDS
from rules.scene import evolve_scene

ROUND_RESET = dict(
    declared=None,
    actives=0,
    responses=0,
    moved=0.0,
    move_mode="",
    aim=None,
    turn_over=False,
    fled=False,
    passed_on=(),
    interrupting=None,
    path=(),  # the map's trail is the round's
)


def wound(c: Combatant, event: E.Wounded, now: int) -> Combatant:
    losses = dict(c.losses)

    def lose(what: str, amount: int) -> None:
        if amount:
            losses[what] = losses.get(what, 0) + amount

    for check in event.checks:
        if not check.failed:
            continue
        kind = parse_code(check.code).kind
        if kind is CheckKind.BREAK:
            lose(f"broken:{event.area}", 1)
        elif kind is CheckKind.EYE:
            lose("eyes", 1)
        else:
            for what, amount in EAR_LOSS.items():
                lose(what, -amount)
    for loss in event.losses:
        for what, amount in loss.amounts:
            lose(what, amount)
    changes = {
        "trauma": c.trauma + event.trauma,
        "pain": c.pain + event.pain,
        "bleeding": c.bleeding.wounded(event.bleed),
        "losses": tuple(losses.items()),
    }
    if event.injury is not None:
        changes["injuries"] = (*c.injuries, event.injury)
    if event.ongoing:
        changes["ongoing"] = (*c.ongoing, *(Ongoing(code, now) for code in event.ongoing))
    if event.dead:
        changes["alive"] = False
        changes["conscious"] = False
    elif event.unconscious:
        changes["conscious"] = False
    return copied(c, changes)


@remembering  # handlers fold their events to see what follows; `play` folds them again
def evolve(state: Encounter, event) -> Encounter:
    kind = type(event)
    if kind in E.ACTION_EVENT_TYPES and (kind is not E.Moved or event.action):
        cid = event.attacker if kind is E.AttackDeclared else event.id
        c = combatant(state, cid)
        if c.waiting is not None:  # an active action ends the waiting (lines 745-750)
            state = state.put(c.with_(waiting=None))
    return _evolve(state, event)


def _evolve(state: Encounter, event) -> Encounter:
    kind = type(event)
    if kind is E.CombatantAdded:
        return state.joined(event.combatant)
    if kind is E.CombatantUpdated:
        c = combatant(state, event.id)
        changes = dict(event.changes)
        # Placed by the GM: no trail to it. The change form posts the position as it is
        # with every other change; that is no placement, and the trail stays.
        if changes.get("x", c.x) != c.x or changes.get("y", c.y) != c.y:
            changes["path"] = ()
        return state.put(copied(c, changes))
    if kind is E.CombatantRemoved:
        return state.without(event.id)
    if kind is E.RoundStarted:
        dice = dict(event.dice)
        combatants = tuple(c.with_(**ROUND_RESET, die=dice.get(c.id)) for c in state.combatants)
        return changed(
            state, round=event.round, active=None, round_closed=False, combatants=combatants
        )
    if kind is E.TurnStarted:
        return changed(state, active=event.id)
    if kind is E.Declared:
        return state.put(combatant(state, event.id).with_(declared=event.actions))
    if kind is E.Moved:
        c = combatant(state, event.id)
        changes = {"moved": event.total, "in_cover": False}
        if event.x is not None:  # to a map point (metres typed: the position stays)
            changes.update(x=event.x, y=event.y, path=trail(c, event.x, event.y))
        if event.action:
            changes.update(move_mode=event.mode, actives=c.actives + 1)
        return state.put(copied(c, changes))
    if kind is E.Acted:
        c = combatant(state, event.id)
        return state.put(c.with_(actives=c.actives + 1))
    if kind is E.AimTaken:
        c = combatant(state, event.id)
        aim = AimedShot(event.target, event.weapon, event.area)
        return changed(state.put(c.with_(aim=aim)), active=None)
    if kind is E.AttackDeclared:
        c = combatant(state, event.attacker)
        pending = Pending(
            attacker=event.attacker,
            target=event.target,
            weapon=event.weapon,
            area=event.area,
            aimed=event.aimed,
            parts=event.parts,
        )
        return changed(state.put(c.with_(actives=c.actives + 1, aim=None)), pending=pending)
    if kind is E.ResponseDeclared:
        c = combatant(state, event.id)
        aim = c.aim if c.aim is None else changed(c.aim, lost=True)  # line 742-743
        response = Response(
            event.id, event.kind, event.skill, event.weapon, event.parts, event.area
        )
        pending = changed(state.pending, responses=(*state.pending.responses, response))
        return changed(state.put(c.with_(responses=c.responses + 1, aim=aim)), pending=pending)
    if kind is E.Answered:
        return changed(state, pending=None)
    if kind is E.AttackRolled:
        return state
    if kind is E.Wounded:
        return state.put(wound(combatant(state, event.id), event, state.seconds))
    if kind is E.CoverSought:
        c = combatant(state, event.id)
        return state.put(c.with_(in_cover=c.in_cover or event.test.success))
    if kind is E.Fled:
        return state.put(combatant(state, event.id).with_(fled=True))
    if kind is E.ResponseLost:
        return state
    if kind is E.AimLost:
        return state.put(combatant(state, event.id).with_(aim=None))
    if kind is E.WaitBegun:
        return state.put(combatant(state, event.id).with_(waiting=event.target))
    if kind is E.WaitOffered:
        return changed(state, offer=(event.id, event.target))
    if kind is E.WaitTaken:
        c = combatant(state, event.id)
        declared = c.declared if c.declared is not None and c.declared > c.actives else None
        c = c.with_(
            waiting=None,
            interrupting=c.actives,
            declared=c.actives + 1 if declared is None else declared,
        )
        return changed(state.put(c), offer=None, active=c.id)
    if kind is E.WaitKept:
        c = combatant(state, event.id)
        c = c.with_(passed_on=(*c.passed_on, event.target))
        return changed(state.put(c), offer=None)
    if kind is E.Reloaded:
        c = combatant(state, event.id)
        return state.put(c.with_(actives=c.actives + 1))
    if kind is E.SkillBegun:
        c = combatant(state, event.id)
        use = SkillUse(event.skill, event.rounds, 1, event.base, event.label, state.round)
        return state.put(c.with_(actives=c.actives + 1, skill_use=use))
    if kind is E.SkillContinued:
        c = combatant(state, event.id)
        use = changed(c.skill_use, done=event.done, round=state.round)
        return state.put(c.with_(actives=c.actives + 1, skill_use=use))
    if kind is E.SkillRolled:
        return state.put(combatant(state, event.id).with_(skill_use=None))
    if kind is E.TurnEnded:
        c = combatant(state, event.id)
        state = state.put(c.with_(turn_over=True, interrupting=None))
        return changed(state, active=None) if state.active == event.id else state
    if kind is E.TimePassed:
        c = combatant(state, event.id)
        changes = {
            "bleeding": event.bleeding,
            "trauma": c.trauma + event.trauma,
            "pain": c.pain + event.pain,
        }
        if event.unconscious:
            changes["conscious"] = False
        return state.put(copied(c, changes))
    if kind is E.RoundEnded:
        return changed(state, seconds=state.seconds + ROUND_SECONDS, active=None, round_closed=True)
    if kind is E.TimeAdvanced:
        return changed(state, seconds=state.seconds + event.seconds)
    if kind is E.Treated:
        c = combatant(state, event.id)
        ongoing = list(c.ongoing)
        ongoing.remove(next(o for o in ongoing if o.code == event.code))
        return state.put(c.with_(ongoing=tuple(ongoing)))
    if kind is E.Woke:
        return state.put(combatant(state, event.id).with_(conscious=True))
    if kind is E.EncounterEnded:
        return changed(state, ended=True, pending=None, active=None, offer=None)
    if kind in SCENE_KINDS:
        return evolve_scene(state, event)
    raise RulesError(f"unknown event {kind.__name__}")
