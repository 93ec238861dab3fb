"""The Phobia combat state machine (phobia-utdrag.txt lines 613-804, 806-1130): `decide`
and `evolve`.

`decide(state, command, rng)` refuses an illegal command with a RulesError whose message
says why, or returns the events it causes with every die rolled in them. `evolve(state,
event)` applies one event; it never rolls, so replaying events rebuilds the state exactly.

The round (lines 613-705). The GM starts each 4-second round; the combatants take their
turns by Turordning, highest first, ties by RÖR (then seat, then the order they joined);
with the house rule, each adds a 1T10 to TO for the round (lines 245-247). A combatant
whose TO is 0 or less takes no turn, but still responds (lines 638-641). On its turn a
combatant declares its active actions (0: Avvakta); each beyond the first makes all of
them +Ob1T6 (lines 651-658); the turn ends by itself once they are done. An attack opens
the responses: the target answers (a response, or none) and the others may declare
theirs meanwhile; then the attack is carried out and the responses after it, in falling
TO (lines 693-703). A response is +Ob1T6 per action made earlier in the round (lines
673-681), and every action made after a response counts it (lines 681-683).

Positions (the battle map, issue 27). Each combatant stands at x, y in metres, as in
Aoristos: the GM places it when adding it (by default side "a" at x 0, the others at
x 10, 1.5 m apart along y) or with update_combatant, and a Move to a point (x, y) goes
there. The text counts only metres (lines 261-271): a move to a point is the straight
line's metres to the centimetre, and every rule of a move reads only those, as it reads
metres typed without a point (the position then stays). A combatant's `path` is the
round's trail (from where it stood when the round's first move began), cleared by a new
round and by the GM's placing it. `movement.move_preview` and `movement.move_bands` tell
the map what a move would be before it is made, exact against `decide`.

This module is the front: the GM's roster commands, what follows by itself (`settle`) and
the table of which handler decides each command. The handlers are grouped by the text's
chapters: ``rounds`` (the round and the turns), ``attacks`` (attacks and responses) and
``damage`` (Skadesystem); ``reading`` (what they all read of the state) and ``fold``
(`evolve`) are below them all.

Readings where the excerpt is silent (the GM's table may differ; see also the house
rules in ``__init__``):

* Moving up to FÖR "makes all actions harder" (line 264): +Ob1T6 on every action of the
  round after the move. FÖR x 2 (run) and x 3 (sprint) leave no other action, response
  included (lines 265-270). Moving more than 2 m is the active action Förflytta sig,
  the turn's first and at most one a round (lines 724-729); the free 2 m are no action.
* Aim and shoot (lines 733-743) is the turn's one declared action with a ranged weapon:
  the shot waits for half the TO (rounded down, after the additions) and is fired then
  at −Ob1T6; a response meanwhile loses the −Ob1T6, not the shot. A TO whose half is 0
  cannot aim (line 638).
* Försvara sig (lines 796-799), only against a melee attack on oneself, is a test of the
  defender's skill (the ready melee weapon's, else Stridsvana, or one named) at Ob3T6,
  rolled with the attack as an active opposition (lines 556-578): the attack hits when it
  succeeds and wins; equal effects roll both again (at most ten times, then it misses).
* Skjuta tillbaka (lines 773-778) is an attack on the attacker with a ready ranged
  weapon, without aim, at the attack difficulty and the response's +Ob1T6s. Söka skydd
  (lines 780-794) marks the combatant in cover when its test succeeds (what cover does
  to later attacks is the GM's: protection per area). Fly (lines 801-804) ends the
  combatant's active actions for the round.
* Only the attack opens responses: a move or another action does not (the map's
  positions are the table's; the text counts only metres).
* Invänta mål (lines 745-750): on its turn a combatant keeps one of its declared active
  actions for a target (one named, or any foe) and its turn ends. The target "appears"
  when its turn is next: before its TurnStarted the waiter is offered to act (the fight
  waits for the answer). act_now gives it exactly one active action then (at its
  declared actions' difficulty; one action if it has declared none this round), after
  which its turn is over (a turn of its own still to come this round is spent with it)
  and the target's begins; keep_waiting lets the target's turn come. The waiting lasts
  into later rounds ("nästföljande rundor") until the waiter takes an active action;
  aim and shoot cannot be the action taken before the target.
* Ladda om "tar vanligtvis en hel runda" (line 759): the turn's only active action
  (declare one; none other before it); responses, which are not the turn's, stay
  allowed, as Avvakta's are (lines 752-756). Ammunition is not counted.
* Använda färdighet (lines 761-765): use_skill names the skill (any value), the rounds it
  covers and its base difficulty (the GM's, Ob3T6 by default); each round it is one
  active action (continue_skill, once a round), and the test is rolled in the last, with
  that round's modifiers (extra actions, moving, an overload, Smärta, the GM's). A round
  without it does not count and does not end it; a new use replaces it.
* An overload (lines 274-283: up to Bärförmåga the weight "hindrar inte ...
  rollpersonens handlingar") adds its Ob dice (the campaign's house rule per whole
  Bärförmåga, `burden`) to every action of the fight: attacks, responses, skills. Not to
  the death and shock rolls, which are no actions.
* The death roll (line 837-839) is rolled after a hit that gives Trauma ("not even
  necessary ... if only Smärta", lines 1039-1041), against TÅL (house rule); a failure
  is death. The shock roll is rolled after every hit that does damage, against
  Chockvärde (house rule); a failure is unconsciousness. The excerpt names the rolls
  and their difficulties, not what they decide: this is the reading.
* A rise of blood loss calls for a shock roll at the round's end (lines 1116-1117); a
  GM's time step is one such end (one roll, at the difficulty after it). A combat round
  bleeds at full activity's pace (lines 1091-1095). Ongoing effects add their boxes
  without rolls; losses (Permanent!, Öra!, ...) are recorded, not taken off the values.
"""

from rules import combat_kit as K
from rules import scene
from rules.combat_kit import check_weapons, combatant, out_of_range, refuse, require_open
from rules.errors import gettext_noop as _
from rules.phobia.combat import attacks, damage, rounds
from rules.phobia.combat import commands as C
from rules.phobia.combat import events as E
from rules.phobia.combat.attacks import declare_attack
from rules.phobia.combat.damage import carried_body
from rules.phobia.combat.fold import evolve
from rules.phobia.combat.reading import require_coordinates
from rules.phobia.combat.rounds import queue, waiters
from rules.phobia.combat.state import ATTRIBUTE_KEYS, Combatant, Encounter


def decide(state: Encounter, command, rng) -> tuple:
    return K.decide(state, command, rng, HANDLERS, evolve, settle)


def play(state: Encounter, command, rng) -> tuple:
    """`decide`'s events and the state after them, folded once (simulations)."""
    return K.play(state, command, rng, HANDLERS, evolve, settled)


def settle(state: Encounter, rng) -> list:
    """What follows by itself: a turn ends once its actions are done (or its maker is
    down), the next in order begins, an aimed shot is fired at its half TO."""
    return settled(state, rng)[0]


def settled(state: Encounter, rng) -> tuple[list, Encounter]:
    """`settle`'s events and the state after them."""
    return K.settled(state, rng, next_settlement, evolve, 500)


def next_settlement(state: Encounter, rng) -> list:
    if state.ended or not state.round or state.round_closed or state.pending is not None:
        return []
    if state.offer is not None:  # a waiter answers first (Invänta mål, lines 745-750)
        return []
    if state.active is not None:
        c = combatant(state, state.active)
        if not c.acts or c.fled or c.current_to <= 0:
            return [E.TurnEnded(c.id)]
        if c.interrupting is not None and c.actives > c.interrupting:
            return [E.TurnEnded(c.id)]  # its one action before the target's turn is done
        if c.aim is not None:
            target = state.get(c.aim.target)
            weapon = c.weapon(c.aim.weapon)
            if target is None or not target.alive or weapon is None:
                return [E.AimLost(c.id), E.TurnEnded(c.id)]
            return declare_attack(state, c, target, weapon, c.aim.area, True, rng)
        if c.declared is not None and c.actives >= c.declared:
            return [E.TurnEnded(c.id)]
        return []
    waiting = queue(state)
    if waiting:
        ahead = waiters(state, waiting[0])
        if ahead:  # one waits for it: it may act just before (lines 748-750)
            return [E.WaitOffered(ahead[0].id, waiting[0].id)]
        return [E.TurnStarted(waiting[0].id, waiting[0].order_to)]
    return []


def actor_of(state: Encounter, command) -> str | None:
    """The combatant a command acts for; None when only the GM may give it."""
    if isinstance(command, C.GM_ONLY):
        return None
    return getattr(command, "id", None)


def _add(state: Encounter, cmd: C.AddCombatant, rng):
    require_open(state)
    who = K.newcomer(state, cmd)
    values = {}
    for key in ATTRIBUTE_KEYS:
        value = getattr(cmd, key)
        value = 10 if value is None else value
        if not 0 <= value <= 99:
            out_of_range(key, 0, 99)
        values[key] = value
    for key, value in (cmd.skills or {}).items():
        if key in values:
            refuse(_("{field} is an attribute, not a skill"), "bad_field", field=key)
        values[key] = value
    turn_order = cmd.turn_order
    if turn_order is None:
        if cmd.calm is None:
            refuse(_("give Turordning (TO) or Lugn"), "bad_field", field="turn_order")
        turn_order = (
            (values["agility"] + values["sight"]) // 2
            + cmd.calm
            + 2 * values.get("combat_experience", 0)
        )
    shock_value = cmd.shock_value
    if shock_value is None:
        shock_value = (values["strength"] + values["endurance"] + values["will"]) // 3
    movement = cmd.movement
    if movement is None:
        movement = (values["agility"] + values["endurance"] + 10) // 4
    if not 0 <= shock_value <= 99:
        out_of_range("shock_value", 0, 99)
    if not 0 <= movement <= 99:
        out_of_range("movement", 0, 99)
    in_hand = tuple(dict.fromkeys(k for k in (cmd.right, cmd.left) if k))
    check_weapons(cmd.weapons, in_hand)
    if not in_hand and cmd.weapons:
        in_hand = (cmd.weapons[0].key,)
    protection: dict[str, int] = {}
    for piece in cmd.armour:
        for area, value in piece.areas:
            protection[area] = protection.get(area, 0) + value
    for area, value in (cmd.protection or {}).items():
        protection[area] = protection.get(area, 0) + value
    burden = cmd.burden or 0
    if not 0 <= burden <= 20:
        out_of_range("burden", 0, 20)
    body = carried_body(cmd.carried, state.seconds) if cmd.carried else {}
    require_coordinates(x=cmd.x, y=cmd.y)
    x, y = cmd.x, cmd.y
    if x is None:
        x = 0.0 if who["side"] == "a" else 10.0
    if y is None:  # 1.5 m apart along the side's column
        y = 1.5 * sum(1 for c in state.combatants if c.side == who["side"])
    new = Combatant(
        **body,
        **who,
        values=tuple(values.items()),
        turn_order=turn_order,
        shock_value=shock_value,
        movement=movement,
        weapons=tuple(cmd.weapons),
        in_hand=in_hand,
        protection=tuple(sorted(protection.items())),
        burden=burden,
        x=x,
        y=y,
    )
    return [E.CombatantAdded(new)]


def _update(state: Encounter, cmd: C.UpdateCombatant, rng):
    require_open(state)
    combatant(state, cmd.id)
    changes = []
    if cmd.side:
        changes.append(("side", cmd.side))
    if cmd.protection is not None:
        changes.append(("protection", tuple(sorted(cmd.protection.items()))))
    if cmd.turn_order_modifier is not None:
        if not -100 <= cmd.turn_order_modifier <= 100:
            out_of_range("turn_order_modifier", -100, 100)
        changes.append(("turn_order_modifier", cmd.turn_order_modifier))
    if cmd.modifier is not None:
        if not -10 <= cmd.modifier <= 10:
            out_of_range("modifier", -10, 10)
        changes.append(("modifier", cmd.modifier))
    if cmd.burden is not None:
        if not 0 <= cmd.burden <= 20:
            out_of_range("burden", 0, 20)
        changes.append(("burden", cmd.burden))
    require_coordinates(x=cmd.x, y=cmd.y)
    for name in ("x", "y"):  # the GM places it on the map (fold: no trail to a new place)
        if getattr(cmd, name) is not None:
            changes.append((name, getattr(cmd, name)))
    return [K.updated(cmd.id, changes)]


HANDLERS = {
    C.AddCombatant: _add,
    C.UpdateCombatant: _update,
    C.RemoveCombatant: K.remove_combatant,
    **scene.HANDLERS,
    C.EndEncounter: K.end_encounter,
    **rounds.HANDLERS,
    **attacks.HANDLERS,
    **damage.HANDLERS,
}


__all__ = ["actor_of", "decide", "evolve"]
