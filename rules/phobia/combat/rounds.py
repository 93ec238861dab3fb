"""The round (phobia-utdrag.txt lines 613-729): the GM's 4-second rounds (Stridens
indelning, lines 613-631), the turns by Turordning (lines 632-649; the house rule's 1T10,
lines 245-247), declaring the turn's active actions (lines 650-662, 695-707), moving
(lines 261-270, Förflytta sig lines 724-729) and the other active actions, and the round's
end with its 4 seconds of bleeding. The readings are in `engine`'s docstring.

Also the active actions Invänta mål (lines 745-750), Ladda om (lines 758-759) and
Använda färdighet over several rounds (lines 761-765).

Commands: StartRound, EndRound, Declare, Move, Act, WaitFor, ActNow, KeepWaiting, Reload,
UseSkill, ContinueSkill, EndTurn.
"""

from rules.combat_kit import combatant, out_of_range, refuse, require_open
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
    roll_test,
    skill_parts,
)
from rules.phobia.combat.state import Combatant, Encounter
from rules.phobia.dice import PlainDice, roll
from rules.phobia.injuries import ROUND_SECONDS, Activity
from rules.table_dice import dice_of

FREE_METRES = 2.0  # lines 261-262
LEAST_METRES = 0.5  # a move shorter is refused (the engine's, not the text's)
MAX_ACTIONS = 10
MAX_SKILL_ROUNDS = 100  # Använda färdighet: "flera rundor" (line 763); a bound, not the text's
MAX_DIFFICULTY = 20  # Ob20T6, the dice module's bound
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
        dice = tuple((c.id, roll(TO_DIE, dice_of(rng, c.id, "initiative")).result)
                     for c in state.combatants if c.acts)
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


def waiters(state: Encounter, target: Combatant) -> list[Combatant]:
    """Who waits for `target` (Invänta mål, lines 745-750) and may act just before its
    turn: waiting for it by name, or for any foe of another side; able to take an active
    action (TO above 0, line 638; not running); not having let it pass this round. In
    turn order."""
    out = [
        c
        for c in state.combatants
        if c.waiting is not None
        and c.id != target.id
        and (c.waiting == target.id or (c.waiting == "" and c.side != target.side))
        and target.id not in c.passed_on
        and c.acts
        and not c.fled
        and c.current_to > 0
        and c.move_mode not in ("run", "sprint")
    ]
    return sorted(out, key=lambda c: order_key(state, c))


def _wait_for(state: Encounter, cmd: C.WaitFor, rng):
    """Invänta mål: one of the declared active actions is kept for the target; the turn
    ends (the kept action is taken, if ever, just before the target's turn)."""
    c = require_turn(state, cmd.id)
    require_action_left(c)
    if c.interrupting is not None:
        refuse(_("{name} is acting before its target now"), "interrupting", name=c.name)
    if cmd.target:
        target = combatant(state, cmd.target)
        if target.id == c.id:
            refuse(_("one does not wait for oneself"), "self")
        if not target.alive:
            refuse(_("{name} is dead"), "dead", name=target.name)
    return [E.WaitBegun(c.id, cmd.target), E.TurnEnded(c.id)]


def _offered(state: Encounter, cid: str) -> tuple[Combatant, Combatant]:
    require_open(state)
    if state.offer is None or state.offer[0] != cid:
        refuse(_("there is no target to act before"), "no_offer")
    return combatant(state, cid), combatant(state, state.offer[1])


def _act_now(state: Encounter, cmd: C.ActNow, rng):
    c, target = _offered(state, cmd.id)
    return [E.WaitTaken(c.id, target.id)]


def _keep_waiting(state: Encounter, cmd: C.KeepWaiting, rng):
    c, target = _offered(state, cmd.id)
    return [E.WaitKept(c.id, target.id)]


def _reload(state: Encounter, cmd: C.Reload, rng):
    """Ladda om "tar vanligtvis en hel runda" (line 759): the turn's one active action, none
    other before or after it (responses, which are not the turn's, stay allowed)."""
    c = require_turn(state, cmd.id)
    require_action_left(c)
    if c.declared != 1 or c.actives or c.interrupting is not None:
        refuse(_("reloading takes the whole round: declare one action"), "reload_alone")
    keys = (cmd.weapon,) if cmd.weapon else c.in_hand
    weapon = next((w for w in map(c.weapon, keys) if w is not None and w.ranged), None)
    if weapon is None:
        refuse(_("only a ranged weapon is reloaded"), "reload_weapon")
    return [E.Reloaded(c.id, weapon.key)]


def _skill_test(state: Encounter, c: Combatant, skill: str, base: int, label: str, rng):
    test, _outcome = roll_test(dice_of(rng, c.id, "skill"), skill, c.value(skill),
                               skill_parts(state, c, base))
    return E.SkillRolled(c.id, test, label)


def _use_skill(state: Encounter, cmd: C.UseSkill, rng):
    c = require_turn(state, cmd.id)
    require_action_left(c)
    if cmd.skill not in dict(c.values):
        refuse(_("{name} has no skill {skill!r}"), "bad_field", name=c.name, skill=cmd.skill)
    if not 1 <= cmd.rounds <= MAX_SKILL_ROUNDS:
        out_of_range("rounds", 1, MAX_SKILL_ROUNDS)
    if not 0 <= cmd.difficulty <= MAX_DIFFICULTY:
        out_of_range("difficulty", 0, MAX_DIFFICULTY)
    label = cmd.label[:40]
    out = [E.SkillBegun(c.id, cmd.skill, cmd.rounds, cmd.difficulty, label)]
    if cmd.rounds == 1:  # the test in the last round: this one
        out.append(_skill_test(state, c, cmd.skill, cmd.difficulty, label, rng))
    return out


def _continue_skill(state: Encounter, cmd: C.ContinueSkill, rng):
    c = require_turn(state, cmd.id)
    require_action_left(c)
    use = c.skill_use
    if use is None:
        refuse(_("{name} uses no skill over several rounds"), "no_skill", name=c.name)
    if use.round == state.round:
        refuse(_("one round of the skill a round"), "skill_round")
    out = [E.SkillContinued(c.id, use.done + 1)]
    if use.done + 1 >= use.rounds:
        out.append(_skill_test(state, c, use.skill, use.base, use.label, rng))
    return out


def _end_turn(state: Encounter, cmd: C.EndTurn, rng):
    c = require_turn(state, cmd.id)
    return [E.TurnEnded(c.id)]


HANDLERS = {
    C.StartRound: _start_round,
    C.EndRound: _end_round,
    C.Declare: _declare,
    C.Move: _move,
    C.Act: _act,
    C.WaitFor: _wait_for,
    C.ActNow: _act_now,
    C.KeepWaiting: _keep_waiting,
    C.Reload: _reload,
    C.UseSkill: _use_skill,
    C.ContinueSkill: _continue_skill,
    C.EndTurn: _end_turn,
}
