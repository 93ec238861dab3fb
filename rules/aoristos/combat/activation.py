"""Activations and KP (p. 6-7): initiative and surprise, the single attack, rounds and
activations (the stress roll at each start; a fully drawn bow's FYS test, p. 7; nervchock
falling by VIL at the end, p. 13), paying KP for an action or beginning it as an extended
activity (p. 6), passive actions (p. 6, 11), talking (p. 6) and scanning (p. 6-7).

Commands: SetSurprise, StartCombat, SingleAttack, Skip, Talk, Scan, EndActivation.
"""

import math

from rules.aoristos.combat import commands as C
from rules.aoristos.combat import events as E
from rules.aoristos.combat import figures as F
from rules.aoristos.combat.fold import fold
from rules.aoristos.combat.reading import (
    PAIN_THRESHOLD,
    extended_windup,
    require_active,
    windup_outcome,
)
from rules.aoristos.combat.state import Combatant, Encounter
from rules.aoristos.dice import Purpose, parse_hand, roll
from rules.aoristos.success import test_hand
from rules.combat_kit import Folded, combatant, refuse, require_open
from rules.errors import gettext_noop as _
from rules.table_dice import dice_of

# The fight begins (p. 6) ------------------------------------------------------------------


def _surprise(state: Encounter, cmd: C.SetSurprise, rng):
    require_open(state)
    if state.round:
        refuse(_("surprise is set before the fight starts"), "started")
    if cmd.hand:
        parse_hand(cmd.hand)
    return [E.SurpriseSet(cmd.side, cmd.hand)]


def _start(state: Encounter, cmd: C.StartCombat, rng):
    require_open(state)
    if state.round:
        refuse(_("the fight has already started"), "started")
    if len(state.combatants) < 2:
        refuse(_("a fight needs at least two combatants"), "too_few")
    opening = _OPENING
    if opening[0] is state:  # a simulation starts its thousand fights from one encounter
        started, first, after = opening[1]
    else:
        started, first, after = _opening(state, rng)
    out = [started, first]
    for index, cid in enumerate(after.order):
        if combatant(after, cid).acts:
            activation = start_activation(after, index, rng)
            out.append(activation)
            after = fold(after, activation)
            break
    return Folded(state, out, after)


# The last encounter started without dice in its opening (no surprise), with that opening:
# every fight a simulation plays from it starts the same until the first stress roll.
_OPENING: tuple = (None, None)


def _opening(state: Encounter, rng) -> tuple:
    """The fight's CombatStarted and first RoundStarted (p. 6), and the state after them."""
    global _OPENING
    surprise = dict(state.surprise)
    rolls = []
    scores = {}
    for c in state.combatants:
        bonus = 0
        if surprise.get(c.side):
            rolled = roll(parse_hand(surprise[c.side]), dice_of(rng, c.id, "surprise"),
                          Purpose.TEST)
            bonus = rolled.result
            rolls.append((c.id, rolled.dice, bonus))
        scores[c.id] = c.alertness + bonus
    # p. 6: highest SIN first; ties by seat order clockwise from the GM (seat 0), then
    # the order they were added in.
    position = {c.id: i for i, c in enumerate(state.combatants)}
    seats = {c.id: c.seat for c in state.combatants}
    order = tuple(sorted(scores, key=lambda cid: (-scores[cid], seats[cid], position[cid])))
    started = E.CombatStarted(order, tuple(rolls))
    first = E.RoundStarted(1)
    opening = started, first, fold(fold(state, started), first)
    if not rolls:
        _OPENING = (state, opening)
    return opening


def joins(state: Encounter, c) -> E.JoinedFight:
    """A combatant added once the fight has started (`c`, in `state` already) takes its
    place by the rule that ordered the others (p. 6: highest SIN first, ties by seat
    clockwise from the GM), after those it ties with: "the order decided in the first
    round holds for the whole fight", so nobody already placed moves. Its SIN gets no
    surprise bonus (that ordered the first round). It acts in the round it joins when its
    place is still to come, else from the next round."""
    mine = (-c.alertness, c.seat)
    index = next(
        (
            i
            for i, cid in enumerate(state.order)
            if (-combatant(state, cid).initiative, combatant(state, cid).seat) > mine
        ),
        len(state.order),
    )
    return E.JoinedFight(c.id, index, c.alertness)


def _single(state: Encounter, cmd: C.SingleAttack, rng):
    require_open(state)
    if state.round:
        refuse(_("a single attack is set up instead of a fight"), "started")
    attacker = combatant(state, cmd.attacker)
    target = combatant(state, cmd.target)
    if attacker.id == target.id:
        refuse(_("one does not attack oneself"), "self")
    return [
        E.SingleAttackSet(
            attacker.id,
            target.id,
            F.effective_drive(attacker.drive, attacker.nerve_shock),
            F.effective_drive(target.drive, target.nerve_shock),
        )
    ]


# Activations (p. 6-7, 13) -----------------------------------------------------------------


def start_activation(state: Encounter, index: int, rng) -> E.ActivationStarted:
    c = combatant(state, state.order[index])
    stress = roll(F.stress_hand(), dice_of(rng, c.id, "stress"), F.STRESS_PURPOSE)
    bow_test = None
    weapon = c.weapon(c.wound_up)
    if weapon is not None and weapon.bow_strength is not None:
        # p. 7: each activation begun with a fully drawn bow, FYS against its strength.
        rolled = roll(test_hand(nerve_shock=c.nerve_shock), dice_of(rng, c.id, "bow"), Purpose.TEST)
        total = c.physique + rolled.result
        bow_test = (rolled.dice, total, weapon.bow_strength, total >= weapon.bow_strength)
    return E.ActivationStarted(c.id, index, stress.dice, stress.result, bow_test)


def next_activation(state: Encounter, rng) -> Folded:
    """The events that hand the activation on: the next who acts this round, or a new
    round from the top of the order. Nothing when nobody can act."""
    for index in range(state.turn + 1, len(state.order)):
        if combatant(state, state.order[index]).acts:
            started = start_activation(state, index, rng)
            return Folded(state, [started], fold(state, started))
    if not any(c.acts for c in state.combatants if c.id in state.order):
        return Folded(state, [], state)
    new_round = E.RoundStarted(state.round + 1)
    out = [new_round]
    after = fold(state, new_round)
    for index in range(len(after.order)):
        if combatant(after, after.order[index]).acts:
            started = start_activation(after, index, rng)
            out.append(started)
            after = fold(after, started)
            break
    return Folded(state, out, after)


def end_activation(state: Encounter, c: Combatant, rng) -> list:
    if state.single:  # the single attack is over
        return [E.EncounterEnded()]
    nerve = max(c.lasting_nerve_shock, c.nerve_shock - c.willpower)
    ended = E.ActivationEnded(
        c.id,
        vigilance_bonus=c.cp,
        nerve_shock=min(c.nerve_shock, nerve),
        cp=F.effective_drive(c.drive, min(c.nerve_shock, nerve)),
    )
    handed_on = next_activation(fold(state, ended), rng)
    return Folded(state, [ended, *handed_on], handed_on.after)


def _skip(state: Encounter, cmd, rng):
    active = state.active
    if active is None or state.attack is not None:
        refuse(_("there is no activation to end"), "no_activation")
    return end_activation(state, active, rng)


def _end_activation(state: Encounter, cmd: C.EndActivation, rng):
    c = require_active(state, cmd.id)
    return end_activation(state, c, rng)


# Paying KP (p. 6, 11) ---------------------------------------------------------------------


def cancel_extended(c: Combatant, reason: str) -> list:
    """An extended activity broken off (p. 6); a windup under way broken off so is
    interrupted unplanned (p. 7): a grenade stays armed in the hand, an arrow is lost."""
    if not c.extended:
        return []
    key = extended_windup(c)
    windup = (key, windup_outcome(c, key, False)) if key else None
    return [E.ExtendedCancelled(c.id, reason, windup)]


def pay(state: Encounter, c: Combatant, cost: int, label: str, command, done) -> list:
    """Pay `cost` KP for an active action and do it (`done()` gives its events), or start
    it as an extended activity when the KP are not there (p. 6). Spending KP on anything
    else cancels an extended activity without refund."""
    out = cancel_extended(c, "other_action")
    if cost <= c.cp:
        return out + done() if out else done()  # done()'s events folded, when alone
    if c.cp <= 0:
        refuse(_("{name} has no KP left this activation"), "no_cp", name=c.name)
    return out + [E.ExtendedStarted(c.id, label, command, c.cp, cost - c.cp)]


def passive_or_active(state: Encounter, cid: str) -> tuple[Combatant, bool]:
    """Talk and posture changes can be passive (between one's activations) when paid in
    full (p. 6)."""
    if state.ended or not state.round:
        refuse(_("the fight has not started"), "not_started")
    c = combatant(state, cid)
    if not c.acts:
        refuse(_("{name} cannot act"), "cannot_act", name=c.name)
    active = state.active
    return c, active is None or active.id != cid or state.attack is not None


def passive_spend(c: Combatant, cost: int, events: list) -> list:
    if cost > c.cp:
        refuse(
            _("{name} has {cp} KP; a passive action must be paid in full"),
            "no_cp",
            name=c.name,
            cp=c.cp,
        )
    out = []
    if c.overwatch:  # p. 11: passive spending breaks overwatch
        out.append(E.ExtendedCancelled(c.id, "overwatch"))
    return out + events


# Talking and scanning (p. 6-7) ------------------------------------------------------------


def _talk(state: Encounter, cmd: C.Talk, rng):
    c, passive = passive_or_active(state, cmd.id)
    if not 1 <= cmd.syllables <= 12:
        refuse(_("one can say 1-12 syllables in a round's 2 seconds"), "bad_field")
    cost = math.ceil(cmd.syllables / 3)  # p. 6: 1 KP per 3 syllables
    event = E.KpSpent(c.id, "talk", cost, str(cmd.syllables), passive)
    if passive:
        return passive_spend(c, cost, [event])
    return pay(state, c, cost, "talk", cmd, lambda: [event])


def _scan(state: Encounter, cmd: C.Scan, rng):
    c = require_active(state, cmd.id)
    return pay(state, c, 1, "scan", cmd, lambda: [E.KpSpent(c.id, "scan", 1), scan(state, c, rng)])


def scan(state: Encounter, c: Combatant, rng) -> E.Scanned:
    """p. 6-7: a scan notices every fully visible person; a partly visible one (behind
    cover, or with areas hidden) takes a SIN test (GST 6). The site has no sight lines: it
    takes everyone in the fight to be within the scanned 180°, and the GM tells the rest."""
    seen, tests = [], []
    for other in state.combatants:
        if other.id == c.id or other.side == c.side or not other.alive:
            continue
        if not other.cover and not other.hidden_areas:
            seen.append(other.id)
            continue
        rolled = roll(test_hand(nerve_shock=c.nerve_shock), dice_of(rng, c.id, "scan"),
                      Purpose.TEST)
        total = c.alertness + rolled.result
        ok = total >= PAIN_THRESHOLD
        tests.append((other.id, rolled.dice, total, PAIN_THRESHOLD, ok))
        if ok:
            seen.append(other.id)
    return E.Scanned(c.id, tuple(seen), tuple(tests))


HANDLERS = {
    C.SetSurprise: _surprise,
    C.StartCombat: _start,
    C.SingleAttack: _single,
    C.Skip: _skip,
    C.Talk: _talk,
    C.Scan: _scan,
    C.EndActivation: _end_activation,
}
