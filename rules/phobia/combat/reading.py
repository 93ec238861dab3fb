"""What the chapters of Phobia combat read alike (phobia-utdrag.txt): whether the fight
waits for an attack's responses, whose turn it is and whether it has a declared action
left (lines 650-658, 695-705), what makes any action harder (moving, line 264; Smärta,
lines 1036-1045; the GM's modifier), and a test's difficulty kept within Ob0T6..Ob20T6
(lines 541-547) and rolled; a map point's bounds and a move's metres (the text counts
only metres, lines 261-271; the map's positions are the table's). No handler is here.
"""

import math

from rules.combat_kit import combatant, out_of_range, refuse, require_open
from rules.errors import gettext_noop as _
from rules.phobia.combat import events as E
from rules.phobia.combat.commands import MAX_COORD
from rules.phobia.combat.state import Combatant, Encounter
from rules.phobia.dice import ObDice, roll
from rules.phobia.injuries import skill_difficulty_added
from rules.phobia.success import modify_difficulty, odds, resolve_test
from rules.table_dice import chance_of


def require_quiet(state: Encounter) -> None:
    require_open(state)
    if state.pending is not None:
        refuse(_("an attack is waiting for its responses"), "attack_pending")
    if state.offer is not None:
        refuse(
            _("{name} may act before {target}: waiting for the answer"),
            "wait_offered",
            name=combatant(state, state.offer[0]).name,
            target=combatant(state, state.offer[1]).name,
        )


def require_turn(state: Encounter, cid: str) -> Combatant:
    require_quiet(state)
    if not state.round:
        refuse(_("the fight has not started"), "not_started")
    c = combatant(state, cid)
    if state.active != cid:
        refuse(_("it is not {name}'s turn"), "not_your_turn", name=c.name)
    return c


def require_action_left(c: Combatant) -> None:
    if c.declared is None:
        refuse(_("declare the turn's active actions first"), "not_declared")
    if c.actives >= c.declared:
        refuse(_("{name} has done every declared action"), "no_actions_left", name=c.name)
    if c.move_mode in ("run", "sprint"):
        refuse(_("running leaves no other action this round"), "running")


def common_parts(state: Encounter, c: Combatant) -> list[tuple[str, int]]:
    """What makes any action of `c` harder: moving up to FÖR (reading +Ob1T6, line 264),
    an overload (the weight "hindrar ... handlingar" above Bärförmåga, lines 274-283: the
    campaign's Ob dice per whole Bärförmåga, on every action), Smärta's rows (lines
    1036-1045), the GM's modifier."""
    house = state.house
    parts = []
    if c.move_mode == "move":
        parts.append(("moving", 1))
    if c.burden:
        parts.append(("burden", c.burden))
    pain = skill_difficulty_added(c.pain, house.damage_columns, house.row_difficulty)
    if pain:
        parts.append(("pain", pain))
    if c.modifier:
        parts.append(("gm", c.modifier))
    return parts


def skill_parts(state: Encounter, c: Combatant, base: int) -> tuple[tuple[str, int], ...]:
    """A skill test in combat (Använda färdighet, lines 761-765), an active action like an
    attack: its base, +Ob1T6 per action beyond the first (declared ones and responses made,
    lines 651-658, 681-691) and the common parts. Not declared yet: as one action."""
    parts = [("base", base)]
    extra = max(c.declared or 0, 1) + c.responses - 1
    if extra > 0:
        parts.append(("actions", extra))
    return tuple(parts + common_parts(state, c))


def difficulty_of(parts) -> int:
    """The parts summed first, then kept within Ob0T6..Ob20T6 (lines 541-547)."""
    return modify_difficulty(0, *(value for _key, value in parts))


def roll_test(rng, stat: str, chance: int, parts) -> tuple[E.Test, object]:
    """Roll a test: the event's record of it, and the success module's outcome. Rolled at
    the table, its prompt gives the exact chance (`rules.phobia.success.odds`)."""
    difficulty = difficulty_of(parts)
    chance_of(rng, lambda: odds(difficulty, chance).success)
    rolled = roll(ObDice(difficulty), rng)
    outcome = resolve_test(chance, rolled)
    test = E.Test(
        stat=stat,
        chance=chance,
        difficulty=rolled.dice.count,
        parts=tuple(parts),
        first=rolled.first,
        rerolls=rolled.rerolls,
        total=rolled.total,
        success=outcome.success,
        perfect=outcome.perfect,
        fumble=outcome.fumble,
    )
    return test, outcome


def require_coordinates(**values: float | None) -> None:
    """Refuse a map coordinate given (not None) that is not a finite number of metres
    within MAX_COORD of the origin, as a bad field."""
    for field, value in values.items():
        if value is not None and not -MAX_COORD <= value <= MAX_COORD:
            out_of_range(field, -int(MAX_COORD), int(MAX_COORD))


def move_distance(c: Combatant, x: float | None, y: float | None, metres: float | None):
    """A Move's metres and the point it goes to: to (x, y), the straight line from where
    `c` stands, to the centimetre (the point wins over typed metres); else the typed
    `metres` and no point (None, None). Refused without either, or with half a point."""
    if x is not None or y is not None:
        if x is None or y is None:
            refuse(_("give both x and y of the point to move to"), "bad_field",
                   field="x" if x is None else "y")
        require_coordinates(x=x, y=y)
        return round(math.hypot(x - c.x, y - c.y), 2), x, y
    if metres is None:
        refuse(_("give the metres to move, or a point (x and y)"), "bad_field", field="metres")
    return metres, None, None
