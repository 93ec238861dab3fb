"""The Aoristos combat state machine (p. 6-14): `decide` and `evolve`.

`decide(state, command, rng)` refuses an illegal command with a RulesError whose message
says why, or returns the events it causes with every die rolled in them. `evolve(state,
event)` applies one event; it never rolls, so replaying events rebuilds the state exactly.

This module is the front: the GM's roster commands, what follows by itself once a
command's events are in (`settle`), an extended activity completed (`Continue`), and the
table of which handler decides each command. The handlers are grouped by the chapter of
the text they rule, each module citing its pages:

* ``activation``: initiative, rounds, activations and KP, talk and scan (p. 6-7);
* ``movement``: moving, posture, leaving melee, watched spheres (p. 7, 10-11);
* ``items``: drawing, stowing, switching, winding up, reloading (p. 7);
* ``attacks``: aim, the attack's steps, melee and range, overwatch, reactions (p. 8-13);
* ``vigilance``: what a target sets against an attack (p. 8-9);
* ``wounds``: a wound's effects, hazards, waking (p. 12-14);
* ``reading`` (what they all read of the state) and ``fold`` (`evolve`) below them all.
"""

from dataclasses import replace

from rules import combat_kit as K
from rules import scene
from rules.aoristos.character import secondary
from rules.aoristos.combat import activation, attacks, items, movement, wounds
from rules.aoristos.combat import commands as C
from rules.aoristos.combat import events as E
from rules.aoristos.combat import figures as F
from rules.aoristos.combat.attacks import declare_attack
from rules.aoristos.combat.fold import evolve
from rules.aoristos.combat.movement import move_events, watch_triggers
from rules.aoristos.combat.reading import needs_ammo, require_active
from rules.aoristos.combat.state import POSTURES, Combatant, Encounter
from rules.aoristos.combat.vigilance import SLACK, room_left
from rules.combat_kit import check_weapons, combatant, refuse, require_open
from rules.errors import gettext_noop as _


def decide(state: Encounter, command, rng) -> tuple:
    return K.decide(state, command, rng, HANDLERS, evolve, settle)


def play(state: Encounter, command, rng) -> tuple:
    """`decide`'s events and the state after them, folded once (simulations)."""
    return K.play(state, command, rng, HANDLERS, evolve, settled)


def settle(state: Encounter, rng) -> list:
    """What follows by itself once a command's events are in: a passive attack that ended
    closes its reaction; a reaction nobody can take lapses; an escape whose free attacks
    are done completes its move (p. 10-11); an attack whose foes have answered whether
    they follow the target's vigilance move rolls on (p. 9)."""
    return settled(state, rng)[0]


def settled(state: Encounter, rng) -> tuple[list, Encounter]:
    """`settle`'s events and the state after them."""
    out = []
    for _step in range(50):
        event = next_settlement(state, rng)
        if event is None:
            return out, state
        events = event if isinstance(event, list) else [event]
        for one in events:
            state = evolve(state, one)  # an escape's move is folded already (a look-up)
        out += events
    return out, state


def next_settlement(state: Encounter, rng):
    if state.attack is not None:
        if state.attack.stage != "follow":
            return None
        # p. 9: the foes who may follow a melee's vigilance move, in turn; one who no
        # longer can lapses; once all are answered the attack goes on.
        if not state.reactions or state.reactions[0].kind != "follow":
            return list(attacks.resume_attack(state, rng))
        reaction = state.reactions[0]
        who = state.get(reaction.who)
        if who is None or not who.acts or room_left(who) < state.attack.step[2] - SLACK:
            return E.ReactionDone(reaction.who, "cannot")
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
    if state.single:
        refuse(_("a single attack takes nobody else"), "started")
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
    packed = check_packed(weapons, cmd.packed, (cmd.right, cmd.left))
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
        packed=packed,
        loaded=tuple((w.key, w.capacity) for w in weapons if needs_ammo(w)),
        **levels,
    )
    new = new.with_(cp=F.effective_drive(new.drive, 0))
    added = E.CombatantAdded(new)
    if not state.round:
        return [added]
    # Joining a started fight (p. 6): a place in the initiative order, with a round's KP.
    return [added, activation.joins(evolve(state, added), new)]


def _update(state: Encounter, cmd: C.UpdateCombatant, rng):
    require_open(state)
    combatant(state, cmd.id)  # refuses an unknown id
    changes = []
    for name in ("x", "y", "side", "aware", "hard_to_locate"):
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
    if cmd.packed is not None:
        c = combatant(state, cmd.id)
        changes.append(("packed", check_packed(c.weapons, cmd.packed, (c.right, c.left))))
    if cmd.cover is not None:
        bad = set(cmd.cover) - set(F.AREA_TABLE.values()) - {"head"}
        if bad:
            refuse(_("unknown areas {areas}"), "bad_field", field="cover", areas=sorted(bad))
        changes.append(("cover", tuple(sorted(cmd.cover.items()))))
    return [K.updated(cmd.id, changes)]


def _situation(state: Encounter, cmd: C.SetSituation, rng):
    """The GM's situational ST modifier (issue 45): on every attack while it is set."""
    require_open(state)
    if not -20 <= cmd.modifier <= 20:
        refuse(_("a situational modifier is -20 to +20"), "bad_field", field="modifier")
    return [E.SituationSet(cmd.modifier, cmd.label[:40] if cmd.modifier else "")]


def check_packed(weapons, packed, held) -> tuple[str, ...]:
    """The weapons packed away (p. 7): carried, and not in hand."""
    keys = {w.key for w in weapons}
    for key in packed:
        if key not in keys:
            refuse(_("no {item!r} is carried to pack away"), "bad_field", field="packed", item=key)
        if key in held:
            refuse(_("{item!r} is in hand, not packed away"), "bad_field", field="packed", item=key)
    return tuple(dict.fromkeys(packed))


def _end(state: Encounter, cmd, rng):
    if state.ended:
        refuse(_("the encounter has already ended"), "ended")
    return [E.EncounterEnded()]


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
    C.SetSituation,
    C.ConfirmMove,
    *scene.GM_ONLY,
)


HANDLERS = {
    C.AddCombatant: _add,
    C.UpdateCombatant: _update,
    C.RemoveCombatant: K.remove_combatant,
    C.EndEncounter: _end,
    C.Continue: _continue,
    C.SetSituation: _situation,
    **activation.HANDLERS,
    **movement.HANDLERS,
    **items.HANDLERS,
    **attacks.HANDLERS,
    **wounds.HANDLERS,
    **scene.HANDLERS,
}
