"""Attacks (t10-ap-utdrag.txt "Färdighetsslag", "Att använda DoS och DoF", "Ställningar",
"Vapen"): an attack checked (raised from Normal, its fire mode, in range, loaded), its
bonus part by part (skill, stance, range band, fire mode, cover, Utmattning, the GM's),
its rolls (E one, A two, each on its own), the damage each deals (+1 per DoS; damage on a
miss − DoF), the rounds it uses, and an explosive's nothing against a target in cover.
An attack is an action paid in AP like any other: see `actions`. The readings are in
`engine`'s docstring ("Attacks", "Cover").
"""

from rules.combat_kit import combatant, out_of_range, refuse
from rules.errors import gettext_noop as _
from rules.t10.combat import commands as C
from rules.t10.combat import events as E
from rules.t10.combat.damage import damaged_event
from rules.t10.combat.fold import evolve
from rules.t10.combat.reading import bonus_of, check_modifier, common_parts, roll_bonus, weapon_of
from rules.t10.combat.state import Combatant, Encounter
from rules.t10.rolls import roll_2t10
from rules.table_dice import dice_of

CLOSE_BONUS = 2  # "inom nära avstånd ger +2"
FAR_MALUS = -2  # "bortom normalt avstånd ger -2"
ATTACK_STANCE = {"ready": -2, "aimed": 0}  # Normal: "Kan ej anfalla med vapnet"
BAND_MODIFIER = {"close": CLOSE_BONUS, "normal": 0, "far": FAR_MALUS}


def range_band(weapon, distance: float) -> str:
    """"close" (+2), "normal", "far" (−2) or "out" (no attack)."""
    if distance > weapon.maximum:
        return "out"
    if distance <= weapon.close:
        return "close"
    if distance > weapon.normal:
        return "far"
    return "normal"


def attack_parts(
    state: Encounter, c: Combatant, target: Combatant, weapon, mode: str, band: str,
    modifier: int = 0,
) -> tuple[tuple[str, int], ...]:
    """An attack roll's bonus, part by part ("Färdighetsslag", "Ställningar", "Vapen",
    "Utmattning och skada"; cover and the GM's are readings)."""
    parts = [("skill", roll_bonus(c, weapon.skill))]
    stance = ATTACK_STANCE.get(c.stance, 0)
    if stance:
        parts.append(("stance", stance))
    if BAND_MODIFIER[band]:
        parts.append(("range", BAND_MODIFIER[band]))
    if weapon.modifier(mode):
        parts.append(("mode", weapon.modifier(mode)))
    if target.in_cover and not weapon.explosive and state.house.cover_modifier:
        parts.append(("cover", state.house.cover_modifier))
    parts += common_parts(c)
    if modifier:
        parts.append(("attack_gm", modifier))
    return tuple(parts)


def dealt_damage(weapon, outcome) -> int:
    """A roll's damage before Kroppsskydd: the weapon's + DoS on a hit; on a miss, the
    weapon's − DoF if it deals damage on a miss (and that is above 0)."""
    if outcome.success:
        return weapon.damage + outcome.dos
    if weapon.damage_on_miss:
        return max(0, weapon.damage - outcome.dof)
    return 0


def shots_of(state: Encounter, weapon, mode: str) -> int:
    """Rounds an attack uses: 0 when not counted; E one; A the burst (or the magazine)."""
    if not weapon.magazine:
        return 0
    return 1 if mode == "E" else min(state.house.burst_shots, weapon.magazine)


def check_attack(state: Encounter, c: Combatant, cmd: C.Attack) -> int:
    target = combatant(state, cmd.target)
    if target.id == c.id:
        refuse(_("one does not attack oneself"), "self")
    if not target.alive:
        refuse(_("{name} is dead"), "dead", name=target.name)
    weapon = weapon_of(c, cmd.weapon)
    if c.wielded != weapon.key or c.stance == "normal":
        refuse(
            _("{name} must raise {weapon} first: no attack from Normal"),
            "normal_stance",
            name=c.name,
            weapon=weapon.name,
        )
    mode = c.mode_of(weapon)
    if cmd.mode is not None and cmd.mode != mode:
        refuse(
            _("{weapon} fires {mode}: switching the fire mode is its own action (2 AP)"),
            "mode",
            weapon=weapon.name,
            mode=mode,
        )
    if cmd.distance is None:
        refuse(_("give the distance to the target in metres"), "bad_field", field="distance")
    if cmd.distance < 0:
        out_of_range("distance", 0, weapon.maximum)
    if range_band(weapon, cmd.distance) == "out":
        refuse(
            _("{target} is beyond {weapon}'s maximum range ({metres} m)"),
            "out_of_range",
            target=target.name,
            weapon=weapon.name,
            metres=weapon.maximum,
        )
    left = c.ammo_of(weapon)
    if left is not None and left < shots_of(state, weapon, mode):
        refuse(_("{weapon} must be reloaded"), "empty", weapon=weapon.name)
    check_modifier(cmd.modifier)
    return weapon.attack_ap


def attack_events(
    state: Encounter, attacker: Combatant, target: Combatant, weapon, mode: str,
    distance: float, modifier: int, rng, *, reaction: bool = False,
) -> list:
    """The attack rolls (E one, A two, each on its own) and the damage each deals."""
    parts = attack_parts(state, attacker, target, weapon, mode, range_band(weapon, distance),
                         modifier)
    covered = weapon.explosive and target.in_cover
    count = 1 if mode == "E" else 2
    rolls = () if covered else tuple(
        roll_2t10(bonus_of(parts), dice_of(rng, attacker.id, "attack")) for _ in range(count))
    rolled = E.AttackRolled(
        attacker=attacker.id,
        target=target.id,
        weapon=weapon.key,
        mode=mode,
        distance=distance,
        parts=parts,
        rolls=rolls,
        covered=covered,
        ammo=shots_of(state, weapon, mode),
        reaction=reaction,
    )
    out = [rolled]
    state = evolve(state, rolled)
    for outcome in rolls:
        amount = dealt_damage(weapon, outcome)
        victim = combatant(state, target.id)
        if amount > 0 and victim.alive:
            event = damaged_event(victim, amount, source=attacker.id, weapon=weapon.name)
            out.append(event)
            state = evolve(state, event)
    return out
