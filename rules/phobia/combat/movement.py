"""What the battle map shows of a Phobia move before it is made (lines 261-271; Förflytta
sig, lines 724-729): `move_preview` of a tap on a point, and `move_bands`, the rings of
what a move from where the combatant stands would be.

The text counts only metres; the map's positions are the table's (a Move to a point
counts the straight line there, to the centimetre, and every rule of `rounds._move`
reads those metres). A move costs no points in Phobia, so the bands and the preview
carry no cost; they say which kind of move it is: "" (the free 2 m), "move" (up to FÖR:
all actions harder), "run" (FÖR x 2) or "sprint" (FÖR x 3), which leave nothing else.
"""

import math

from rules.combat_kit import decided, move_preview_base, refuse
from rules.errors import RulesError
from rules.errors import gettext_noop as _
from rules.phobia.combat import commands as C
from rules.phobia.combat import events as E
from rules.phobia.combat.commands import MAX_METRES
from rules.phobia.combat.engine import decide
from rules.phobia.combat.reading import require_turn
from rules.phobia.combat.rounds import FREE_METRES, LEAST_METRES
from rules.phobia.combat.state import Combatant, Encounter


def move_preview(state: Encounter, cid: str, x: float | None, y: float | None) -> dict:
    """What a Move of `cid` to (x, y) would come to, exact by construction: refused when
    the engine's own `decide` refuses it (`refused`: the error's code, untranslated
    template and params), else its metres and the mode the Moved event records (lines
    261-271). The metres are given for a refused move too, where they can be counted.
    The keys are the Aoristos preview's (rules/aoristos/combat/view.py); a Phobia move
    costs nothing, so `cost` is None and the points are 0. A Move without a point has
    no preview (a RulesError)."""
    if x is None or y is None:
        refuse(_("only attacks and moves to a map point (x and y) have a preview"), "bad_field",
               field="x")
    events, refused = decided(decide, state, C.Move(cid, x=x, y=y))
    mode = next((e.mode for e in events if isinstance(e, E.Moved)), "")
    c = state.get(cid)
    finite = all(math.isfinite(v) for v in (x, y))
    metres = round(math.hypot(x - c.x, y - c.y), 2) if c is not None and finite else 0.0
    return move_preview_base(cid, x, y, refused, metres=metres, mode=mode)


def move_bands(state: Encounter, c: Combatant) -> list[dict]:
    """The moves `c` may make now from where it stands, by their metres (as the engine
    counts them, to the centimetre): ascending bands ``{"upto": m, "from": m, "cost":
    None, "unit": "", "mode": mode}``, a move of d metres being of the first band's mode
    whose `upto` is at least d. `from` is the least a move in the band can be: the first
    band's is 0.5 (the engine's least move), a later one's its predecessor's `upto` and a
    centimetre. The bands are `rounds._move`'s rules as distances, on the round's total
    (lines 261-271, 724-729):

    * "" up to the free 2 m, with or without a declaration;
    * beyond them only as the action Förflytta sig: declared, the turn's first active
      action, once a round: "move" up to FÖR; with exactly one action declared also
      "run" up to FÖR x 2 and "sprint" up to FÖR x 3.

    Empty when it cannot move at all (not its turn, an attack pending, the free metres
    used and no Förflytta sig left)."""
    try:
        require_turn(state, c.id)
    except RulesError:
        return []
    bands: list[dict] = []

    def band(total: float, mode: str) -> None:
        upto = round(min(total - c.moved, MAX_METRES), 2)
        least = bands[-1]["upto"] + 0.01 if bands else LEAST_METRES
        if upto >= round(least, 2):
            bands.append(
                {"upto": upto, "from": round(least, 2), "cost": None, "unit": "", "mode": mode}
            )

    band(FREE_METRES, "")
    if not c.move_mode and c.declared is not None and c.declared >= 1 and not c.actives:
        band(c.movement, "move")
        if c.declared == 1:
            band(2 * c.movement, "run")
            band(3 * c.movement, "sprint")
    return bands
