"""What the battle map shows of a T10 move before it is made (issue 27; the map is our
addition, see `engine`'s docstring): `move_preview`, a Move to a point as `decide` would
take it, and `move_bands`, the AP of a move by its distance. Both read the move's metres
and AP as the action does (`reading.move_metres`, `reading.move_cost`: 1 AP per started
house-rule `metres_per_ap` metres), and ask the engine itself whether the move may be
made now, so they never disagree with it.
"""

import math

from rules.combat_kit import decided, move_preview_base, refuse
from rules.errors import RulesError
from rules.errors import gettext_noop as _
from rules.t10.combat import commands as C
from rules.t10.combat.actions import plan_action
from rules.t10.combat.engine import decide
from rules.t10.combat.reading import MAX_MOVE, move_cost
from rules.t10.combat.state import Combatant, Encounter

UNIT = "AP"


def paying_with(state: Encounter, c: Combatant) -> int:
    """The AP a move of `c` would be paid from now: its turn's, else its saved AP (out of
    turn, or as a reaction to the pending attack)."""
    if state.pending is None and state.active == c.id:
        return c.ap
    return c.saved


def move_preview(state: Encounter, cid: str, x: float | None, y: float | None) -> dict:
    """What a Move of `cid` to (x, y) would come to, exact by construction: refused when
    the engine's own `decide` refuses it (`refused`: the error's code, untranslated
    template and params), its metres (to the centimetre) and AP (`cost`, None where it
    cannot be counted: no such combatant, no distance, more than 1000 m) against the AP
    it would pay from (`cp`). A move is never begun across rounds (it is refused beyond
    the AP left), so `now` is the whole cost and `later` 0; T10 has no escape from melee
    and no overwatch. A Move without a point has no preview (RulesError)."""
    if x is None or y is None:
        refuse(_("a move's preview needs the point it goes to (x and y)"), "bad_field",
               field="x")
    _events, refused = decided(decide, state, C.Move(cid, x=x, y=y))
    out = move_preview_base(cid, x, y, refused, unit=UNIT)
    c = state.get(cid)
    if c is None:
        return out
    metres = round(math.hypot(x - c.x, y - c.y), 2)
    cost = move_cost(metres, state.house.metres_per_ap) if 0 < metres <= MAX_MOVE else None
    out.update(metres=metres, cost=cost, cp=paying_with(state, c), now=cost or 0)
    return out


def move_bands(state: Encounter, c: Combatant) -> list[dict]:
    """The AP of a move of `c` from where it stands by its distance in metres (as the
    engine counts them, to the centimetre): ascending bands ``{"upto": m, "cost": ap,
    "unit": "AP", "mode": ""}``, a move of d metres (0 < d ≤ the last `upto`) costing the
    first band's AP whose `upto` is at least d: one band per AP, `metres_per_ap` metres
    each. The last `upto` is the farthest `c` can go with the AP it would pay from (at
    most 1000 m, a move's limit). Empty when it may not move now (not its turn without
    saved AP, an attack waiting for others' reactions, no AP left...): the engine's own
    `plan_action` says so for the shortest move there is (1 cm)."""
    try:
        plan_action(state, C.Move(c.id, metres=0.01))
    except RulesError:
        return []
    per_ap = state.house.metres_per_ap
    bands = []
    for ap in range(1, paying_with(state, c) + 1):
        upto = float(min(ap * per_ap, MAX_MOVE))
        bands.append({"upto": upto, "cost": move_cost(upto, per_ap), "unit": UNIT, "mode": ""})
        if upto >= MAX_MOVE:
            break
    return bands
