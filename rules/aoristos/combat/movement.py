"""Movement and posture (p. 7, 10-11, 14): a move's KP by the round's distance (p. 7),
changes of posture (p. 7; not lying down in melee, p. 10; not standing on a broken leg,
p. 14), leaving melee and its escape test (p. 10), and a watched sphere's reflex attack
called by a move into it (overwatch, p. 11).

Commands: Move, ChangePosture (and an escape's Proceed or Abort: see `attacks`).
"""

import math
from dataclasses import dataclass

from rules.aoristos.combat import commands as C
from rules.aoristos.combat import events as E
from rules.aoristos.combat import figures as F
from rules.aoristos.combat.activation import passive_or_active, passive_spend, pay
from rules.aoristos.combat.fold import evolve
from rules.aoristos.combat.reading import (
    distance,
    effective_movement,
    foes,
    legs_ok,
    not_in_melee,
    require_active,
)
from rules.aoristos.combat.state import POSTURES, Combatant, Encounter
from rules.aoristos.dice import Purpose, roll
from rules.aoristos.success import test_hand
from rules.combat_kit import combatant, refuse
from rules.errors import gettext_noop as _
from rules.table_dice import dice_of


def posture_cost(old: str, new: str) -> int:
    """p. 7: a change costs 1 KP ("ducka ner eller frivilligt kasta sig till marken": from
    standing to lying is one change); only lying to standing "räknas dock som två
    ändringar (via "sittande") och kräver därför totalt 2 KP"."""
    return 2 if (old, new) == ("lying", "standing") else 1


def _move(state: Encounter, cmd: C.Move, rng):
    c = require_active(state, cmd.id)
    return move_events(state, c, cmd, rng)


@dataclass(frozen=True)
class MovePlan:
    """What a move of `c` to a point comes to before any die (p. 7, 10): its metres
    (rounded to the centimetre, as the engine counts them), the posture it is paid in
    (standing on a broken leg moves as sitting, p. 14), its KP (None: too far this
    round), the round's limit in metres (2 × Förflyttning standing, Förflyttning sitting
    or lying) and the foes in melee it escapes (p. 10)."""

    metres: float
    posture: str
    cost: int | None
    limit: int
    escaping: tuple[Combatant, ...]


def moving_posture(c: Combatant) -> str:
    """The posture a move is paid in: one cannot stand on a broken leg (p. 14)."""
    return c.posture if legs_ok(c) or c.posture != "standing" else "sitting"


def move_plan(state: Encounter, c: Combatant, x: float, y: float) -> MovePlan:
    """The arithmetic of a move of `c` to (x, y), shared by `move_events` and
    `move_preview`: nothing is refused here (a plan of 0 m or with no cost is)."""
    metres = round(math.hypot(x - c.x, y - c.y), 2)
    posture = moving_posture(c)
    cost = None
    if metres > 0:
        cost = F.movement_cost(
            metres,
            agility=c.agility,
            movement=effective_movement(c),
            moved_before=c.moved,
            by_round_total=state.house.movement_by_round_total,
            posture=posture,
        )
    limit = 2 * effective_movement(c) if posture == "standing" else effective_movement(c)
    return MovePlan(metres, posture, cost, limit, tuple(leaving_melee(state, c, x, y)))


def move_events(state: Encounter, c: Combatant, cmd: C.Move, rng, prepaid: bool = False):
    plan = move_plan(state, c, cmd.x, cmd.y)
    metres, cost = plan.metres, plan.cost
    if metres <= 0:
        refuse(_("that is where they already are"), "no_move")
    if cost is None:
        refuse(
            _("{name} can move at most {limit} m this round ({moved:g} m moved already)"),
            "too_far",
            name=c.name,
            limit=plan.limit,
            moved=c.moved,
        )
    escaping = list(plan.escaping)

    def done():
        paid = 0 if prepaid else cost
        before = []
        if escaping:
            tested = escape_test(state, c, escaping, cmd.x, cmd.y, metres, paid, rng)
            if tested.dangerous:
                return [tested]
            before, paid = [tested], 0
        moved = E.Moved(c.id, cmd.x, cmd.y, metres, paid)
        after = state
        for event in (*before, moved):
            after = evolve(after, event)
        return [*before, moved, *watch_triggers(after, c.id)]

    if prepaid:
        return done()
    return pay(state, c, cost, "move", cmd, done)


def leaving_melee(state: Encounter, c: Combatant, x: float, y: float) -> list[Combatant]:
    """The foes in melee with `c` when a move takes `c` out of reach of any of them."""
    reach = state.house.melee_reach
    near = [o for o in foes(state, c) if distance(c, o) <= reach]
    if any(math.hypot(o.x - x, o.y - y) > reach for o in near):
        return near
    return []


def escape_test(state, c, near, x, y, metres, cost, rng) -> E.EscapeTested:
    """p. 10: an opposed RÖR test; the mover's side sums all its RÖR in the fight, +2 per
    ally; the foes sum theirs. Only the representatives' F/T apply: the mover, and the
    foes' most agile."""
    reach = state.house.melee_reach
    allies = [
        a
        for a in state.combatants
        if a.side == c.side
        and a.id != c.id
        and a.acts
        and any(distance(a, o) <= reach for o in near)
    ]
    mover_base = c.agility + sum(a.agility + 2 for a in allies)
    foes_base = sum(o.agility for o in near)
    representative = max(near, key=lambda o: o.agility)
    mover_roll = roll(test_hand(nerve_shock=c.nerve_shock), dice_of(rng, c.id, "escape"),
                      Purpose.TEST)
    foes_roll = roll(test_hand(nerve_shock=representative.nerve_shock),
                     dice_of(rng, representative.id, "escape"), Purpose.TEST)
    mover_total = mover_base + mover_roll.result
    foes_total = foes_base + foes_roll.result
    return E.EscapeTested(
        mover=c.id,
        foes=tuple(o.id for o in near),
        allies=tuple(a.id for a in allies),
        mover_base=mover_base,
        mover_dice=mover_roll.dice,
        mover_total=mover_total,
        foes_base=foes_base,
        foes_dice=foes_roll.dice,
        foes_total=foes_total,
        dangerous=foes_total > mover_total,
        x=x,
        y=y,
        distance=metres,
        cost=cost,
    )


def watch_triggers(state: Encounter, mover_id: str) -> list:
    """p. 11: someone showing up in a watched sphere (4 m across) calls the watcher's
    reflex attack."""
    mover = combatant(state, mover_id)
    out = []
    for watcher in state.combatants:
        if (
            watcher.overwatch is not None
            and watcher.side != mover.side
            and watcher.acts
            and math.hypot(mover.x - watcher.overwatch[0], mover.y - watcher.overwatch[1]) <= 2
            and not any(r.who == watcher.id for r in state.reactions)
        ):
            out.append(E.ReactionCalled("overwatch", watcher.id, mover.id))
    return out


# What the map shows before a move (p. 6-7, 10-11) -----------------------------------------


# (A Move's preview asks the engine's own `decide`, which imports this module: it is
# `view.move_preview`, above the engine.)


def move_bands(state: Encounter, c: Combatant) -> list[dict]:
    """The KP of a move of `c` from where it stands, by its distance in metres (as the
    engine counts them, to the centimetre): ascending bands ``{"upto": m, "cost": kp}``,
    a move of d metres costing the first band's KP whose `upto` is at least d. The
    steps are exact: standing, where the metres counted (the round's total, or the move's
    own by the house rule) pass RÖR, FÖR and FÖR + k·RÖR (p. 7); sitting or lying, every
    started metre. The last `upto` is the farthest `c` can go this round (2 × FÖR
    standing, FÖR sitting or lying, less what it moved already). Empty when it cannot
    move at all. Escapes, overwatch and extended activities are not in it."""
    movement = effective_movement(c)
    agility = c.agility
    by_total = state.house.movement_by_round_total
    posture = moving_posture(c)
    if posture != "standing":
        farthest = round(movement - c.moved, 2)
        steps = list(range(1, math.ceil(farthest))) if farthest > 0 else []
    else:
        cap = 2 * movement if agility > 0 else movement  # the metres one move may count
        marks = [agility, movement]
        while agility > 0 and marks[-1] + agility < cap:
            marks.append(marks[-1] + agility)
        if by_total:
            farthest = round(cap - c.moved, 2)
            steps = [round(mark - c.moved, 2) for mark in marks]
        else:
            farthest = round(min(cap, 2 * movement - c.moved), 2)
            steps = marks
    if farthest < 0.01:
        return []
    bands: list[dict] = []
    for upto in (*sorted({s for s in steps if 0 < s < farthest}), farthest):
        cost = F.movement_cost(
            upto,
            agility=agility,
            movement=movement,
            moved_before=c.moved,
            by_round_total=by_total,
            posture=posture,
        )
        if cost is None:  # not reached: the limit above is the rule's
            break
        if bands and bands[-1]["cost"] == cost:
            bands[-1]["upto"] = upto
        else:
            bands.append({"upto": upto, "cost": cost})
    return bands


def _posture(state: Encounter, cmd: C.ChangePosture, rng):
    c, passive = passive_or_active(state, cmd.id)
    if cmd.posture not in POSTURES:
        refuse(_("unknown posture {posture!r}"), "bad_field", field="posture", posture=cmd.posture)
    if cmd.posture == c.posture:
        refuse(_("{name} is already {posture}"), "same_posture", name=c.name, posture=c.posture)
    if cmd.posture == "standing" and not legs_ok(c):
        refuse(_("{name} cannot stand on a broken leg"), "broken_leg", name=c.name)
    if cmd.posture == "lying":
        not_in_melee(state, c, _("Lying down cannot be started in melee (p. 10)"))
    cost = posture_cost(c.posture, cmd.posture)
    event = E.PostureChanged(c.id, cmd.posture, cost)
    if passive:
        return passive_spend(c, cost, [event])
    return pay(state, c, cost, "posture", cmd, lambda: [event])


def escape_decision(state: Encounter, cmd, go_on: bool):
    escape = state.escape
    if escape is None or escape.decided or escape.mover != cmd.id or state.attack is not None:
        return None
    out = [E.EscapeDecided(cmd.id, go_on)]
    if go_on:  # p. 10: everyone in the melee gets an immediate attack at her first
        mover = combatant(state, cmd.id)
        order = {cid: i for i, cid in enumerate(state.order)}
        near = sorted(
            (o for o in foes(state, mover) if distance(mover, o) <= state.house.melee_reach),
            key=lambda o: order.get(o.id, 99),
        )
        out += [E.ReactionCalled("free_attack", o.id, mover.id) for o in near]
    return out


HANDLERS = {C.Move: _move, C.ChangePosture: _posture}
