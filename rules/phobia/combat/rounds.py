"""The round (phobia-utdrag.txt lines 613-729): the GM's 4-second rounds (Stridens
indelning, lines 613-631), the turns by Turordning (lines 632-649; the house rule's 1T10,
lines 245-247), declaring the turn's active actions (lines 650-662, 695-707), moving
(lines 261-270, Förflytta sig lines 724-729) and the other active actions, and the round's
end with its 4 seconds of bleeding. The readings are in `engine`'s docstring.

Commands: StartRound, EndRound, Declare, Move, Act, EndTurn.
"""

from rules.combat_kit import out_of_range, refuse
from rules.errors import gettext_noop as _
from rules.phobia.combat import commands as C
from rules.phobia.combat import events as E
from rules.phobia.combat.commands import MAX_METRES
from rules.phobia.combat.damage import time_events
from rules.phobia.combat.reading import (
    move_distance,
    require_action_left,
    require_quiet,
    require_turn,
)
from rules.phobia.combat.state import Combatant, Encounter
from rules.phobia.dice import PlainDice, roll
from rules.phobia.injuries import ROUND_SECONDS, Activity

FREE_METRES = 2.0  # lines 261-262
LEAST_METRES = 0.5  # a move shorter is refused (the engine's, not the text's)
MAX_ACTIONS = 10
TO_DIE = PlainDice(1, 10)  # lines 245-247


def order_key(state: Encounter, c: Combatant) -> tuple:
    """Highest TO first, then RÖR (lines 631-636), then seat and the order joined."""
    index = next(i for i, o in enumerate(state.combatants) if o.id == c.id)
    return (-c.order_to, -c.value("agility"), c.seat, index)


def queue(state: Encounter) -> list[Combatant]:
    """Who still takes a turn this round, in order."""
    waiting = [
        c
        for c in state.combatants
        if c.acts and not c.fled and not c.turn_over and c.current_to > 0
    ]
    return sorted(waiting, key=lambda c: order_key(state, c))


def end_of_round(state: Encounter, rng) -> list:
    """The round's 4 seconds (rulings: 15 rounds a minute) at full activity's pace."""
    out = time_events(state, ROUND_SECONDS, Activity.ACTIVE.value, rng)
    return [*out, E.RoundEnded(state.round)]


def _start_round(state: Encounter, cmd: C.StartRound, rng):
    require_quiet(state)
    if len(state.combatants) < 2:
        refuse(_("a fight needs at least two combatants"), "too_few")
    out = []
    if state.round and not state.round_closed:
        out += end_of_round(state, rng)
    dice = ()
    if state.house.turn_order_die:
        dice = tuple((c.id, roll(TO_DIE, rng).result) for c in state.combatants if c.acts)
    return [*out, E.RoundStarted(state.round + 1, dice)]


def _end_round(state: Encounter, cmd: C.EndRound, rng):
    require_quiet(state)
    if not state.round:
        refuse(_("the fight has not started"), "not_started")
    if state.round_closed:
        refuse(_("the round has ended already: start the next"), "round_closed")
    return end_of_round(state, rng)


def _declare(state: Encounter, cmd: C.Declare, rng):
    c = require_turn(state, cmd.id)
    if c.declared is not None:
        refuse(_("{name} has declared already"), "declared", name=c.name)
    if not 0 <= cmd.actions <= MAX_ACTIONS:
        out_of_range("actions", 0, MAX_ACTIONS)
    return [E.Declared(c.id, cmd.actions)]


def _move(state: Encounter, cmd: C.Move, rng):
    """A move to a map point counts the metres there; every rule below reads only them.
    `move_bands` (movement.py) states these rules as distances: keep the two together."""
    c = require_turn(state, cmd.id)
    metres, x, y = move_distance(c, cmd.x, cmd.y, cmd.metres)
    if not LEAST_METRES <= metres <= MAX_METRES:
        out_of_range("metres", LEAST_METRES, int(MAX_METRES))
    total = round(c.moved + metres, 2)
    if total <= FREE_METRES:
        return [E.Moved(c.id, metres, total, "", False, x, y)]
    if c.move_mode:
        refuse(_("Förflytta sig is once a round"), "moved")
    if c.declared is None:
        refuse(_("declare the turn's active actions first"), "not_declared")
    if c.actives or c.declared < 1:
        refuse(_("Förflytta sig must be the turn's first active action"), "move_first")
    if total <= c.movement:
        mode = "move"
    elif total <= 3 * c.movement:
        mode = "run" if total <= 2 * c.movement else "sprint"
        if c.declared != 1:
            refuse(_("running leaves no other action: declare one action"), "run_alone")
    else:
        refuse(_("at most Förflyttning x 3 = {metres} m a round"), "too_far", metres=3 * c.movement)
    return [E.Moved(c.id, metres, total, mode, True, x, y)]


def _act(state: Encounter, cmd: C.Act, rng):
    c = require_turn(state, cmd.id)
    require_action_left(c)
    return [E.Acted(c.id, cmd.label[:40])]


def _end_turn(state: Encounter, cmd: C.EndTurn, rng):
    c = require_turn(state, cmd.id)
    return [E.TurnEnded(c.id)]


HANDLERS = {
    C.StartRound: _start_round,
    C.EndRound: _end_round,
    C.Declare: _declare,
    C.Move: _move,
    C.Act: _act,
    C.EndTurn: _end_turn,
}
