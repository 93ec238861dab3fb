"""The order and the rounds (t10-ap-utdrag.txt "Initiativ", "Action points"): 1T10 +
Initiativ rolled once when the fight starts, ties rolled again among themselves only
(and for a newcomer, against those placed); each round's AP (10 − Utmattning); the round's
end (saved AP vanish, Utmattning falls by 1, not below Skada without painkillers) and the
next round's start; a turn ended with its AP saved ("Spara action points"). The readings
are in `engine`'s docstring ("Initiativ", "Action points").

Commands: Start, EndRound, EndTurn.
"""

from rules.combat_kit import combatant, refuse
from rules.errors import gettext_noop as _
from rules.t10.combat import commands as C
from rules.t10.combat import events as E
from rules.t10.combat.fold import evolve
from rules.t10.combat.reading import require_quiet, require_running
from rules.t10.combat.state import Combatant, Encounter
from rules.table_dice import dice_of

INITIATIVE_DIE = 10  # "slår varje spelare 1T10 och lägger till sitt Initiativ"
MAX_TIE_ROLLS = 50  # ties roll again; a bound on the rerolls (then the order joined)


def tie_rolls(entries, rng) -> dict[str, tuple[int, ...]]:
    """Each (id, Initiativ, dice so far) ordered: those without dice roll 1T10; while
    some are tied (equal totals and rerolls as far as both go), the one with fewer dice
    rolls again (both, when equal). Dice are rolled in the entries' order."""
    ids = [cid for cid, _init, _dice in entries]
    init = {cid: value for cid, value, _dice in entries}
    dice = {cid: list(rolled) for cid, _init, rolled in entries}
    for cid in ids:
        if not dice[cid]:
            dice[cid].append(dice_of(rng, cid, "initiative").randint(1, INITIATIVE_DIE))
    for _attempt in range(MAX_TIE_ROLLS):
        keys = {cid: (init[cid] + dice[cid][0], *dice[cid][1:]) for cid in ids}
        need = set()
        for index, a in enumerate(ids):
            for b in ids[index + 1 :]:
                ka, kb = keys[a], keys[b]
                width = min(len(ka), len(kb))
                if ka[:width] == kb[:width]:
                    if len(ka) <= len(kb):
                        need.add(a)
                    if len(kb) <= len(ka):
                        need.add(b)
        if not need:
            break
        for cid in ids:
            if cid in need:
                dice[cid].append(dice_of(rng, cid, "initiative").randint(1, INITIATIVE_DIE))
    return {cid: tuple(rolled) for cid, rolled in dice.items()}


def dice_key(initiative: int, rolled: tuple[int, ...], width: int) -> tuple:
    """Highest total first, then the rerolls; a missing reroll counts below any."""
    padded = (*rolled[1:], *(0,) * (width - len(rolled)))
    return (-(initiative + rolled[0]), *(-r for r in padded))


def ordered(state: Encounter) -> list[Combatant]:
    """The combatants in initiative order (those not rolled yet last, as they joined)."""
    width = max((len(c.rolls) for c in state.combatants), default=1)
    index = {c.id: i for i, c in enumerate(state.combatants)}

    def key(c: Combatant):
        if not c.rolls:
            return (1, (), index[c.id])
        return (0, dice_key(c.initiative, c.rolls, width), index[c.id])

    return sorted(state.combatants, key=key)


def ap_pairs(state: Encounter) -> tuple[tuple[str, int], ...]:
    return tuple((c.id, c.round_ap if c.alive else 0) for c in state.combatants)


def end_of_round(state: Encounter) -> list:
    """Saved AP vanish; Utmattning falls by 1, never below Skada without painkillers; the
    next round starts if anyone will have AP in it."""
    fatigue = tuple(
        (c.id, c.fatigue - 1)
        for c in state.combatants
        if c.alive and c.fatigue > c.fatigue_floor
    )
    ended = E.RoundEnded(state.round, fatigue)
    after = evolve(state, ended)
    if any(c.alive and c.round_ap > 0 for c in after.combatants):
        return [ended, E.RoundStarted(state.round + 1, ap_pairs(after))]
    return [ended]


def _start(state: Encounter, cmd: C.Start, rng):
    require_quiet(state)
    if state.round_closed:
        return [E.RoundStarted(state.round + 1, ap_pairs(state))]
    if state.started:
        refuse(_("the fight is on: its rounds follow by themselves"), "started", name="")
    if len(state.combatants) < 2:
        refuse(_("a fight needs at least two combatants"), "too_few")
    entries = [(c.id, c.initiative, ()) for c in state.combatants]
    rolled = tie_rolls(entries, rng)
    return [
        E.InitiativeRolled(
            "start",
            tuple(rolled.items()),
            tuple((c.id, c.initiative) for c in state.combatants),
        ),
        E.RoundStarted(1, ap_pairs(state)),
    ]


def _end_round(state: Encounter, cmd: C.EndRound, rng):
    require_quiet(state)
    require_running(state)
    return end_of_round(state)


def _end_turn(state: Encounter, cmd: C.EndTurn, rng):
    require_running(state)
    if state.pending is not None:
        refuse(_("an attack is waiting for the reactions"), "attack_pending")
    c = combatant(state, cmd.id)
    if state.active != c.id:
        refuse(_("it is not {name}'s turn"), "not_your_turn", name=c.name)
    return [E.TurnEnded(c.id, c.ap)]


HANDLERS = {C.Start: _start, C.EndRound: _end_round, C.EndTurn: _end_turn}
