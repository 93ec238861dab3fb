"""What the chapters of T10 combat read alike (t10-ap-utdrag.txt): whether the fight is
running or waits for reactions, a roll's bonus from the combatant ("Färdighetsslag"; a
skill not given rolls with its ability), what every roll of it gets (−1 per Utmattning,
"Utmattning och skada"; the GM's standing modifier), the parts summed within the rolls
module's ±30, a weapon looked up, a GM's modifier checked, a point on the map checked,
and a move's metres and AP (read by the action and by the map's preview). No handler is
here.
"""

import math

from rules.combat_kit import out_of_range, refuse, require_open
from rules.errors import gettext_noop as _
from rules.t10 import character
from rules.t10.combat.state import Combatant, Encounter
from rules.t10.rolls import MAX_BONUS

MAX_MODIFIER = 10
MAX_COORDINATE = 10000  # metres from the origin a point on the map may lie
MAX_MOVE = 1000  # metres one move may go


def require_quiet(state: Encounter) -> None:
    require_open(state)
    if state.pending is not None:
        refuse(_("an attack is waiting for the reactions"), "attack_pending")


def require_running(state: Encounter) -> None:
    require_open(state)
    if not state.started:
        refuse(_("the fight has not started"), "not_started")
    if state.round_closed:
        refuse(_("the round has ended: the GM starts the next"), "round_closed")


def roll_bonus(c: Combatant, key: str) -> int:
    """A roll's bonus from the combatant: its skill's when given and above 0, else its
    ability's (`character.bonus`)."""
    return character.bonus({**dict(c.abilities), **dict(c.skills)}, key)


def common_parts(c: Combatant) -> list[tuple[str, int]]:
    """What every roll of `c` gets: −1 per point of Utmattning, the GM's standing modifier."""
    parts = []
    if c.fatigue:
        parts.append(("fatigue", -c.fatigue))
    if c.modifier:
        parts.append(("gm", c.modifier))
    return parts


def bonus_of(parts) -> int:
    """The parts summed, within the rolls module's ±30."""
    return max(-MAX_BONUS, min(MAX_BONUS, sum(value for _key, value in parts)))


def weapon_of(c: Combatant, key: str):
    weapon = c.weapon(key)
    if weapon is None:
        refuse(_("{name} has no weapon {weapon!r}"), "no_weapon", name=c.name, weapon=key)
    return weapon


def check_modifier(value: int, field: str = "modifier") -> None:
    if not -MAX_MODIFIER <= value <= MAX_MODIFIER:
        out_of_range(field, -MAX_MODIFIER, MAX_MODIFIER)


def check_point(field: str, value: float) -> None:
    """A map coordinate (metres): a finite number within ±10 000."""
    if not (math.isfinite(value) and abs(value) <= MAX_COORDINATE):
        out_of_range(field, -MAX_COORDINATE, MAX_COORDINATE)


def move_metres(c: Combatant, cmd) -> float:
    """The metres a Move counts: the straight line to its point (`x`, `y`), to the
    centimetre, when it names one (then a typed `metres` is ignored); else its `metres`.
    Refused: a point half named or off the map, no point and no metres, a move to where
    `c` stands, or 0 or more than 1000 m."""
    if cmd.x is not None or cmd.y is not None:
        if cmd.x is None or cmd.y is None:
            refuse(_("a point on the map needs both x and y"), "bad_field",
                   field="y" if cmd.y is None else "x")
        check_point("x", cmd.x)
        check_point("y", cmd.y)
        metres = round(math.hypot(cmd.x - c.x, cmd.y - c.y), 2)
        if metres <= 0:
            refuse(_("that is where they already are"), "no_move")
    elif cmd.metres is None:
        refuse(_("say how many metres, or the point to move to (x and y)"), "bad_field",
               field="metres")
    else:
        metres = cmd.metres
    if not 0 < metres <= MAX_MOVE:
        out_of_range("metres", 0.1, MAX_MOVE)
    return metres


def move_cost(metres: float, metres_per_ap: int) -> int:
    """AP of a move of `metres` (> 0): every started `metres_per_ap` metres (house rule)."""
    return max(1, math.ceil(metres / metres_per_ap - 1e-9))
