"""What the chapters of T10 combat read alike (t10-ap-utdrag.txt): whether the fight is
running or waits for reactions, a roll's bonus from the combatant ("Färdighetsslag"; a
skill not given rolls with its ability), what every roll of it gets (−1 per Utmattning,
"Utmattning och skada"; the GM's standing modifier), the parts summed within the rolls
module's ±30, a weapon looked up, a GM's modifier checked. No handler is here.
"""

from rules.combat_kit import out_of_range, refuse, require_open
from rules.errors import gettext_noop as _
from rules.t10 import character
from rules.t10.combat.state import Combatant, Encounter
from rules.t10.rolls import MAX_BONUS

MAX_MODIFIER = 10


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
