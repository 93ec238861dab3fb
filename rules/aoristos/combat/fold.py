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
    Encounter,
    Escape,
    Extended,
    PendingAttack,
    Reaction,
    changed,
    pairs_get,
    pairs_set,
)
from rules.combat_kit import combatant, copied, remembering, trail
from rules.errors import RulesError
from rules.scene import EVENT_CLASSES as SCENE_KINDS
from rules.scene import evolve_scene


def spend(state: Encounter, cid: str, cost: int, **changes) -> Encounter:
    c = combatant(state, cid)
    return state.put(c.with_(cp=max(0, c.cp - cost), **changes))


def fold(state: Encounter, event) -> Encounter:
    """`state` with `event` applied: the event's fold in `FOLDS`, by its type (one look-up:
    a chain of type tests cost a fight's hottest events, tested last, two of their ten
    microseconds). The handlers that hand back what they folded (`combat_kit.Folded`:
    an attack, an activation's end) call this; the others `evolve`."""
    folder = FOLDS.get(type(event))
    if folder is not None:
        return folder(state, event)
    if type(event) in SCENE_KINDS:
        return evolve_scene(state, event)
    raise RulesError(f"unknown event {type(event).__name__}")


# `fold`, remembering its last calls: a handler that folds its events to see what follows
# and does not hand the state back has them folded again by `play`, a look-up then.
evolve = remembering(fold)


# One fold per event type, in the order of the text's chapters.


def _combatant_added(state: Encounter, event: E.CombatantAdded) -> Encounter:
    return state.joined(event.combatant)


def _combatant_updated(state: Encounter, event: E.CombatantUpdated) -> Encounter:
    changes = dict(event.changes)
    if "x" in changes or "y" in changes:  # placed by the GM: no trail to it
        changes["path"] = ()
    return state.put(copied(combatant(state, event.id), changes))


def _combatant_removed(state: Encounter, event: E.CombatantRemoved) -> Encounter:
    return state.without(event.id)


def _surprise_set(state: Encounter, event: E.SurpriseSet) -> Encounter:
    surprise = tuple((s, h) for s, h in state.surprise if s != event.side)
    if event.hand:
        surprise += ((event.side, event.hand),)
    return changed(state, surprise=surprise)


def _combat_started(state: Encounter, event: E.CombatStarted) -> Encounter:
    bonus = {cid: b for cid, _dice, b in event.rolls}
    combatants = tuple(
        c.with_(
            cp=F.effective_drive(c.drive, c.nerve_shock),
            initiative=c.alertness + bonus.get(c.id, 0),
        )
        for c in state.combatants
    )
    return changed(state, combatants=combatants, order=event.order)


def _joined_fight(state: Encounter, event: E.JoinedFight) -> Encounter:
    order = (*state.order[: event.index], event.id, *state.order[event.index :])
    # The active combatant keeps its turn when the newcomer is placed before it.
    turn = state.turn + 1 if 0 <= event.index <= state.turn else state.turn
    state = state.put(combatant(state, event.id).with_(initiative=event.initiative))
    return changed(state, order=order, turn=turn)


def _single_attack_set(state: Encounter, event: E.SingleAttackSet) -> Encounter:
    state = state.put(combatant(state, event.attacker).with_(cp=event.cp))
    state = state.put(combatant(state, event.target).with_(vigilance_bonus=event.bonus))
    return changed(state, single=True, round=1, order=(event.attacker,), turn=0)


def _round_started(state: Encounter, event: E.RoundStarted) -> Encounter:
    # Nobody moved yet (the first round): the combatant as it is, not an equal copy.
    combatants = tuple(
        c if c.moved == 0.0 and not c.path else c.with_(moved=0.0, path=())
        for c in state.combatants
    )
    return changed(state, round=event.round, turn=-1, combatants=combatants)


def _activation_started(state: Encounter, event: E.ActivationStarted) -> Encounter:
    c = combatant(state, event.id)
    changes = {
        "cp": max(0, c.cp - event.loss),
        "moved_since_activation": False,
        "stress_dice": tuple(event.dice),
        "stress_loss": event.loss,
    }
    if event.bow_test is not None and not event.bow_test[3]:
        changes["wound_up"] = None  # p. 7: the arrow is spent
    return state.put(copied(c, changes), turn=event.turn)


def _moved(state: Encounter, event: E.Moved) -> Encounter:
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


def _kp_spent(state: Encounter, event: E.KpSpent) -> Encounter:
    changes = {"overwatch": None} if event.action == "scan" else {}
    return spend(state, event.id, event.cost, **changes)


def _scanned(state: Encounter, event: E.Scanned) -> Encounter:
    return state


def _posture_changed(state: Encounter, event: E.PostureChanged) -> Encounter:
    return spend(state, event.id, event.cost, posture=event.posture)


def _hands_changed(state: Encounter, event: E.HandsChanged) -> Encounter:
    c = combatant(state, event.id)
    if event.weapon in c.packed:  # taken out of the pack (p. 7): at hand from now on
        state = state.put(c.with_(packed=tuple(k for k in c.packed if k != event.weapon)))
    if event.windup:  # p. 7: a wound-up weapon let fall, or an armed grenade picked up
        c = combatant(state, event.id)
        on_ground = tuple(k for k in c.armed_on_ground if k != event.weapon)
        if event.windup == "armed_dropped":
            on_ground += (event.weapon,)
        return spend(
            state,
            event.id,
            event.cost,
            right=event.right,
            left=event.left,
            readied=event.readied,
            wound_up=event.weapon if event.windup == "armed" else None,
            armed_on_ground=on_ground,
        )
    return spend(
        state,
        event.id,
        event.cost,
        right=event.right,
        left=event.left,
        readied=event.readied,
    )


def _wound_up(state: Encounter, event: E.WoundUp) -> Encounter:
    return spend(state, event.id, event.cost, wound_up=None if event.aborted else event.weapon)


def _reloaded(state: Encounter, event: E.Reloaded) -> Encounter:
    if event.gunner is not None:  # p. 11: an assistant feeds another's belt
        gunner = combatant(state, event.gunner)
        state = state.put(gunner.with_(loaded=pairs_set(gunner.loaded, event.weapon, event.rounds)))
        return spend(state, event.id, event.cost)
    c = combatant(state, event.id)
    loaded = pairs_set(c.loaded, event.weapon, event.rounds)
    return spend(state, event.id, event.cost, loaded=loaded)


def _range_aimed(state: Encounter, event: E.RangeAimed) -> Encounter:
    return spend(state, event.id, event.cost, range_aim=event.levels, range_aim_target=event.target)


def _overwatch_started(state: Encounter, event: E.OverwatchStarted) -> Encounter:
    return spend(state, event.id, 1, overwatch=(event.x, event.y))


def _extended_started(state: Encounter, event: E.ExtendedStarted) -> Encounter:
    c = combatant(state, event.id)
    extended = Extended(event.label, event.command, event.remaining)
    return state.put(c.with_(cp=c.cp - event.paid, extended=extended))


def _extended_paid(state: Encounter, event: E.ExtendedPaid) -> Encounter:
    c = combatant(state, event.id)
    extended = changed(c.extended, remaining=event.remaining) if event.remaining else None
    return state.put(c.with_(cp=c.cp - event.paid, extended=extended))


def _extended_cancelled(state: Encounter, event: E.ExtendedCancelled) -> Encounter:
    c = combatant(state, event.id)
    if event.reason == "overwatch":
        return state.put(c.with_(overwatch=None))
    if event.windup is not None and event.windup[1] == "armed":  # p. 7: armed in the hand
        return state.put(c.with_(extended=None, wound_up=event.windup[0]))
    return state.put(c.with_(extended=None))


def _attack_declared(state: Encounter, event: E.AttackDeclared) -> Encounter:
    # Paid, reacting if passive, and pending: one copy of each (every attack folds it).
    c = combatant(state, event.attacker)
    paid = c.with_(cp=max(0, c.cp - event.cost), **({"reacting": True} if event.passive else {}))
    pending = PendingAttack(  # positional: a class called with keywords is slower to make
        event.attacker,
        event.target,
        event.weapon,
        event.aim,
        event.shots,
        event.auto,
        event.called_area,
        event.passive,
    )
    if event.limb is not None:  # an unarmed attack's striking limb (p. 8)
        pending = changed(pending, limb=event.limb)
    return state.put(paid, attack=pending)


def _vigilance_chosen(state: Encounter, event: E.VigilanceChosen) -> Encounter:
    attack = changed(
        state.attack,
        threshold=event.threshold,
        threshold_parts=event.parts,
        vigilance=event.properties,
        cover_after=event.cover_after,
    )
    if event.move_to is None:
        if event.prone:  # p. 9: the whole metre swapped for diving to the ground
            c = combatant(state, event.target)
            return state.put(c.with_(posture="lying"), attack=attack)
        return changed(state, attack=attack)
    c = combatant(state, event.target)
    x, y = event.move_to
    changes = {
        "x": x,
        "y": y,
        "moved": round(c.moved + event.moved, 2),
        "moved_since_activation": True,
        "path": trail(c, x, y),
    }
    if event.prone:  # p. 9: 1 m of the move swapped for diving to the ground
        changes["posture"] = "lying"
    dx, dy = x - c.x, y - c.y
    state = state.put(copied(c, changes), attack=changed(attack, step=(dx, dy, event.moved)))
    for fid in event.followers:  # p. 9: as far, the same way
        f = combatant(state, fid)
        fx, fy = round(f.x + dx, 2), round(f.y + dy, 2)
        state = state.put(
            f.with_(
                x=fx,
                y=fy,
                moved=round(f.moved + event.moved, 2),
                moved_since_activation=True,
                path=trail(f, fx, fy),
            )
        )
    return state


def _move_proposed(state: Encounter, event: E.MoveProposed) -> Encounter:
    proposal = (event.properties, event.to, event.prone)
    return changed(state, attack=changed(state.attack, stage="confirm", proposal=proposal))


def _move_confirmed(state: Encounter, event: E.MoveConfirmed) -> Encounter:
    if event.accepted:  # the roll follows at once (its events)
        return state
    return changed(state, attack=changed(state.attack, stage="vigilance", proposal=None))


def _situation_set(state: Encounter, event: E.SituationSet) -> Encounter:
    return changed(state, situation=event.modifier, situation_label=event.label)


def _attack_rolled(state: Encounter, event: E.AttackRolled) -> Encounter:
    return changed(state, attack=changed(state.attack, stage="abort", roll=event))


def _attack_aborted(state: Encounter, event: E.AttackAborted) -> Encounter:
    c = combatant(state, event.attacker)
    weapon = c.weapon(state.attack.weapon) if state.attack is not None else None
    if weapon is not None and weapon.explosive:  # p. 7: the grenade stays armed in the hand
        return state.put(c, attack=None)
    return state.put(c.with_(wound_up=None), attack=None)


def _attack_resolved(state: Encounter, event: E.AttackResolved) -> Encounter:
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
    if all(getattr(c, name) == value for name, value in changes.items()):
        return changed(state, attack=None)  # the attacker as it was: no copy of it
    return state.put(copied(c, changes), attack=None)


def _wounded(state: Encounter, event: E.Wounded) -> Encounter:
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
    if event.windup is not None:  # p. 7: an interrupted windup
        key, outcome = event.windup
        changes["wound_up"] = key if outcome == "armed" else None
        if outcome == "armed_dropped":
            changes["armed_on_ground"] = (*c.armed_on_ground, key)
    return state.put(copied(c, changes))


def _activation_ended(state: Encounter, event: E.ActivationEnded) -> Encounter:
    c = combatant(state, event.id)
    return state.put(
        c.with_(
            vigilance_bonus=event.vigilance_bonus,
            nerve_shock=event.nerve_shock,
            cp=event.cp,
        )
    )


def _escape_tested(state: Encounter, event: E.EscapeTested) -> Encounter:
    state = spend(state, event.mover, event.cost)
    if not event.dangerous:
        return state
    return changed(state, escape=Escape(event.mover, event.x, event.y, event.distance))


def _escape_decided(state: Encounter, event: E.EscapeDecided) -> Encounter:
    if not event.go_on:
        return changed(state, escape=None)
    return changed(state, escape=changed(state.escape, decided=True))


def _reaction_called(state: Encounter, event: E.ReactionCalled) -> Encounter:
    reaction = Reaction(event.kind, event.who, event.target)
    if event.kind == "follow" and state.attack is not None:
        # p. 9: the attack waits for them; they come before the reactions already waiting
        # (a free attack whose target moves in its vigilance: the attack is that reaction's).
        ahead = 0
        while ahead < len(state.reactions) and state.reactions[ahead].kind == "follow":
            ahead += 1
        reactions = (*state.reactions[:ahead], reaction, *state.reactions[ahead:])
        attack = changed(state.attack, stage="follow")
        return changed(state, reactions=reactions, attack=attack)
    return changed(state, reactions=(*state.reactions, reaction))


def _followed(state: Encounter, event: E.Followed) -> Encounter:
    """p. 9: as far the same way as the target, at no KP; the reaction answered."""
    f = combatant(state, event.who)
    moved = f.with_(
        x=event.x,
        y=event.y,
        moved=round(f.moved + event.metres, 2),
        moved_since_activation=True,
        path=trail(f, event.x, event.y),
    )
    return state.put(moved, reactions=state.reactions[1:])


def _reaction_done(state: Encounter, event: E.ReactionDone) -> Encounter:
    reaction = state.reactions[0]
    if reaction.kind == "follow":  # stayed, or could not: the one who reacts is not this
        return changed(state, reactions=state.reactions[1:])
    if event.how == "must_attack":
        return changed(state, reactions=(changed(reaction, must=True), *state.reactions[1:]))
    c = combatant(state, event.who)
    changes = {"reacting": False}
    if reaction.kind == "overwatch":
        changes["overwatch"] = None  # p. 11: once
    return state.put(copied(c, changes), reactions=state.reactions[1:])


def _woke(state: Encounter, event: E.Woke) -> Encounter:
    return state.put(combatant(state, event.id).with_(conscious=True))


def _encounter_ended(state: Encounter, event: E.EncounterEnded) -> Encounter:
    return changed(state, ended=True, attack=None)


FOLDS = {
    E.CombatantAdded: _combatant_added,
    E.CombatantUpdated: _combatant_updated,
    E.CombatantRemoved: _combatant_removed,
    E.SurpriseSet: _surprise_set,
    E.CombatStarted: _combat_started,
    E.JoinedFight: _joined_fight,
    E.SingleAttackSet: _single_attack_set,
    E.RoundStarted: _round_started,
    E.ActivationStarted: _activation_started,
    E.Moved: _moved,
    E.KpSpent: _kp_spent,
    E.Scanned: _scanned,
    E.PostureChanged: _posture_changed,
    E.HandsChanged: _hands_changed,
    E.WoundUp: _wound_up,
    E.Reloaded: _reloaded,
    E.RangeAimed: _range_aimed,
    E.OverwatchStarted: _overwatch_started,
    E.ExtendedStarted: _extended_started,
    E.ExtendedPaid: _extended_paid,
    E.ExtendedCancelled: _extended_cancelled,
    E.AttackDeclared: _attack_declared,
    E.VigilanceChosen: _vigilance_chosen,
    E.SituationSet: _situation_set,
    E.MoveProposed: _move_proposed,
    E.MoveConfirmed: _move_confirmed,
    E.AttackRolled: _attack_rolled,
    E.AttackAborted: _attack_aborted,
    E.AttackResolved: _attack_resolved,
    E.Wounded: _wounded,
    E.ActivationEnded: _activation_ended,
    E.EscapeTested: _escape_tested,
    E.EscapeDecided: _escape_decided,
    E.ReactionCalled: _reaction_called,
    E.Followed: _followed,
    E.ReactionDone: _reaction_done,
    E.Woke: _woke,
    E.EncounterEnded: _encounter_ended,
}
