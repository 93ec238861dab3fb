"""Damage (t10-ap-utdrag.txt "Utmattning och skada", "Kroppsskydd"): Utmattning rises by
the whole damage, Skada by the damage less Kroppsskydd; a rise of Utmattning lowers the AP
left, then the saved; unconscious at Utmattning 10, dead at Skada 10. Also the GM's damage
and a body (Utmattning and Skada) carried from one fight to the next. The readings are in
`engine`'s docstring ("Damage").

Commands: Damage.
"""

from rules.combat_kit import MAX_TEXT, combatant, out_of_range, refuse
from rules.errors import gettext_noop as _
from rules.t10.combat import commands as C
from rules.t10.combat import events as E
from rules.t10.combat.reading import require_quiet
from rules.t10.combat.state import DEAD_AT, UNCONSCIOUS_AT, Combatant, Encounter

MAX_SCORE = 99  # Utmattning and Skada as entered


def damaged_event(
    target: Combatant, amount: int, *, protected: bool = True, source: str = "", weapon: str = ""
) -> E.Damaged:
    """`amount` of damage to `target` ("Utmattning och skada", "Kroppsskydd"): Utmattning
    + amount, Skada + amount − Kroppsskydd; the AP left, then the saved, lowered as much."""
    protection = target.protection if protected else 0
    taken = max(0, amount - protection)
    ap_lost = min(target.ap, amount)
    saved_lost = min(target.saved, amount - ap_lost)
    dead = target.alive and target.damage + taken >= DEAD_AT
    unconscious = target.conscious and not dead and target.fatigue + amount >= UNCONSCIOUS_AT
    return E.Damaged(
        id=target.id,
        source=source,
        weapon=weapon,
        amount=amount,
        protection=protection,
        damage=taken,
        fatigue=amount,
        ap_lost=ap_lost,
        saved_lost=saved_lost,
        dead=dead,
        unconscious=unconscious,
    )


def body_of(c: Combatant, encounter: str = "") -> dict:
    """A combatant's body as JSON data the next encounter's add_combatant takes
    (`carried`), or {} when it is unhurt: its Utmattning and Skada."""
    if not (c.fatigue or c.damage):
        return {}
    return {"encounter": encounter, "fatigue": c.fatigue, "damage": c.damage}


def carried_body(data) -> dict:
    """`body_of`'s data read back strictly, as Combatant fields."""
    if not isinstance(data, dict) or set(data) - {"encounter", "fatigue", "damage"}:
        refuse(_("{field} must be a body from an earlier fight"), "bad_field", field="carried")
    encounter = data.get("encounter", "")
    if not isinstance(encounter, str) or len(encounter) > MAX_TEXT:
        refuse(_("{field} must be a body from an earlier fight"), "bad_field", field="carried")
    out = {}
    for key in ("fatigue", "damage"):
        value = data.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SCORE:
            out_of_range(key, 0, MAX_SCORE)
        out[key] = value
    return out


def _damage(state: Encounter, cmd: C.Damage, rng):
    require_quiet(state)
    target = combatant(state, cmd.id)
    if not target.alive:
        refuse(_("{name} is dead"), "dead", name=target.name)
    if not 0 <= cmd.amount <= 100:
        out_of_range("amount", 0, 100)
    return [damaged_event(target, cmd.amount, protected=cmd.protected, weapon=cmd.label[:40])]


HANDLERS = {C.Damage: _damage}
