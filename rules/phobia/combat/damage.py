"""Skadesystem (phobia-utdrag.txt lines 806-1130): a hit through the flow chart (lines
818-839): its serious injury with its checks and losses (lines 843-1006), the death roll
and the shock roll (lines 837-839); Trauma, Smärta, Blödning and Blodförlust (lines
1007-1130); time passing: bleeding at the activity's pace (lines 1091-1095), ongoing
effects, a shock roll when the blood loss rose (lines 1116-1117); and a body carried from
one fight to the next. The readings are in `engine`'s docstring.

Commands: Damage, AdvanceTime, Treat, Wake.
"""

from rules.combat_kit import combatant, out_of_range, refuse, require_open
from rules.errors import gettext_noop as _
from rules.phobia.combat import commands as C
from rules.phobia.combat import events as E
from rules.phobia.combat.reading import difficulty_of, require_quiet, roll_test
from rules.phobia.combat.state import AREAS, DAMAGE_TYPES, Combatant, Encounter, Injury, Ongoing
from rules.phobia.dice import ObDice, roll
from rules.phobia.injuries import (
    ROUND_SECONDS,
    Activity,
    Bleeding,
    advance_bleeding,
    apply_hit,
    death_roll_difficulty,
    ongoing_boxes,
    parse_code,
    roll_check,
    roll_loss,
    row_difficulty,
    shock_roll_difficulty,
)
from rules.table_dice import dice_of

CHECK_STATS = {"STY": "strength", "Tur": "luck"}  # what the table's checks are against


def death_parts(state: Encounter, trauma: int, blood_loss: int) -> tuple[tuple[str, int], ...]:
    house = state.house
    cols, per = house.damage_columns, house.row_difficulty
    parts = [("base", house.roll_base)]
    for key, boxes in (("trauma", trauma), ("blood_loss", blood_loss)):
        rows = row_difficulty(boxes, cols, per)
        if rows:
            parts.append((key, rows))
    assert difficulty_of(parts) == death_roll_difficulty(
        trauma, blood_loss, cols, per, house.roll_base
    )
    return tuple(parts)


def shock_parts(state: Encounter, trauma: int, pain: int, blood_loss: int) -> tuple:
    house = state.house
    cols, per = house.damage_columns, house.row_difficulty
    parts = [("base", house.roll_base)]
    for key, boxes in (("trauma", trauma), ("pain", pain), ("blood_loss", blood_loss)):
        rows = row_difficulty(boxes, cols, per)
        if rows:
            parts.append((key, rows))
    assert difficulty_of(parts) == shock_roll_difficulty(
        trauma, pain, blood_loss, cols, per, house.roll_base
    )
    return tuple(parts)


def wound_event(
    state: Encounter,
    target: Combatant,
    *,
    area: str,
    damage_type: str,
    rng,
    dice: int | None = None,
    amount: int | None = None,
    protected: bool = True,
    source: str = "",
    weapon: str = "",
) -> E.Wounded:
    """One hit through the flow chart (lines 818-839), every die rolled here in order: the
    damage ObT6s, the serious injury's 1T10, its checks and losses, the death roll, the
    shock roll."""
    first: tuple[int, ...] = ()
    rerolls: tuple[int, ...] = ()
    if dice is not None:
        rolled_dice = roll(ObDice(dice), dice_of(rng, source, "damage"))
        first, rerolls, rolled = rolled_dice.first, rolled_dice.rerolls, rolled_dice.total
    else:
        rolled = amount or 0
    protection = target.protection_of(area) if protected else 0
    hit = apply_hit(
        rolled, protection, damage_type, area, target.shock_value, rng=rng,
        stopped_hit_bleeds=state.house.stopped_hit_bleeds,
    )
    checks = []
    outcomes = []
    for pending in hit.checks:
        stat = CHECK_STATS[pending.check.against]
        result = roll_check(pending, target.value(stat), dice_of(rng, target.id, "check"),
                            side_rng=rng)
        outcome = result.outcome
        test = E.Test(
            stat=stat,
            chance=outcome.chance,
            difficulty=pending.difficulty,
            parts=(("base", pending.check.difficulty),)
            + (
                (("damage", pending.difficulty - pending.check.difficulty),)
                if pending.difficulty != pending.check.difficulty
                else ()
            ),
            first=outcome.first,
            rerolls=outcome.rerolls,
            total=outcome.total,
            success=outcome.success,
            perfect=outcome.perfect,
            fumble=outcome.fumble,
        )
        side = result.side.value if result.side is not None else None
        checks.append(E.CheckRolled(pending.check.code, test, result.failed, side))
        outcomes.append((pending.check.code, side or ("failed" if result.failed else "held")))
    losses = []
    for loss in hit.losses:
        result = roll_loss(loss, rng)
        losses.append(
            E.LossRolled(loss.code, tuple(r.rolled for r in result.rolls), result.amounts)
        )
    injury = None
    if hit.injury is not None:
        injury = Injury(
            area=area,
            damage_type=damage_type,
            roll=hit.injury_roll,
            name=hit.injury.name,
            codes=hit.injury.codes,
            line=hit.injury.line,
            outcomes=tuple(outcomes),
        )
    trauma = target.trauma + hit.trauma
    pain = target.pain + hit.pain
    blood_loss = target.bleeding.loss
    death = shock = None
    dead = unconscious = False
    if hit.trauma and target.alive:
        stat = state.house.death_stat
        death, _outcome = roll_test(
            dice_of(rng, target.id, "death"), stat, target.value(stat),
            death_parts(state, trauma, blood_loss)
        )
        dead = not death.success
    if hit.damage and target.alive and target.conscious and not dead:
        stat = state.house.shock_stat
        shock, _outcome = roll_test(
            dice_of(rng, target.id, "shock"), stat, target.value(stat),
            shock_parts(state, trauma, pain, blood_loss)
        )
        unconscious = not shock.success
    return E.Wounded(
        id=target.id,
        source=source,
        weapon=weapon,
        area=area,
        damage_type=damage_type,
        dice=first,
        rerolls=rerolls,
        rolled=rolled,
        protection=protection,
        damage=hit.damage,
        trauma=hit.trauma,
        pain=hit.pain,
        bleed=hit.bleed_rate,
        injury=injury,
        checks=tuple(checks),
        losses=tuple(losses),
        ongoing=tuple(o.code for o in hit.ongoing),
        death=death,
        shock=shock,
        dead=dead,
        unconscious=unconscious,
    )


def time_passed(state: Encounter, c: Combatant, seconds: int, activity: str, rng):
    """Seconds pass for `c`: bleeding, ongoing effects, and a shock roll when the blood
    loss rose (lines 1116-1117). None when nothing runs."""
    if not c.alive or not (c.bleeding.rate or c.bleeding.loss or c.ongoing):
        return None
    advanced = advance_bleeding(c.bleeding, seconds, activity)
    trauma = pain = 0
    for ongoing in c.ongoing:
        effect = parse_code(ongoing.code)
        before = ongoing_boxes(effect, state.seconds - ongoing.since)
        after = ongoing_boxes(effect, state.seconds + seconds - ongoing.since)
        trauma += after[0] - before[0]
        pain += after[1] - before[1]
    shock = None
    if advanced.rises and c.conscious:
        stat = state.house.shock_stat
        parts = shock_parts(state, c.trauma + trauma, c.pain + pain, advanced.state.loss)
        shock, _outcome = roll_test(dice_of(rng, c.id, "shock"), stat, c.value(stat), parts)
    return E.TimePassed(
        id=c.id,
        seconds=seconds,
        activity=str(activity),
        bleeding=advanced.state,
        gained=advanced.gained,
        recovered=advanced.recovered,
        trauma=trauma,
        pain=pain,
        shock=shock,
        unconscious=shock is not None and not shock.success,
    )


def time_events(state: Encounter, seconds: int, activity: str, rng) -> list:
    out = []
    for c in state.combatants:
        event = time_passed(state, c, seconds, activity, rng)
        if event is not None:
            out.append(event)
    return out


# A body from fight to fight --------------------------------------------------------------------


def body_of(c: Combatant, seconds: int, encounter: str = "") -> dict:
    """A combatant's body as JSON data another encounter's add_combatant takes
    (`carried`), or {} when it is unhurt: damage, bleeding with its clocks, serious
    injuries, ongoing codes with how long they have run, losses, alive and conscious."""
    bleeding = c.bleeding
    if not (c.trauma or c.pain or bleeding.rate or bleeding.loss or c.injuries or c.ongoing
            or c.losses or not c.alive or not c.conscious):
        return {}
    return {
        "encounter": encounter,
        "trauma": c.trauma,
        "pain": c.pain,
        "bleeding": [bleeding.rate, bleeding.loss, bleeding.clock, bleeding.decay,
                     bleeding.recovery],
        "injuries": [[i.area, i.damage_type, i.roll, i.name, list(i.codes), i.line,
                      [list(o) for o in i.outcomes]] for i in c.injuries],
        "ongoing": [[o.code, max(0, seconds - o.since)] for o in c.ongoing],
        "losses": [list(loss) for loss in c.losses],
        "alive": c.alive,
        "conscious": c.conscious,
    }


def carried_body(data, seconds: int) -> dict:
    """`body_of`'s data read back strictly, as Combatant fields (an ongoing code keeps
    how long it has run: its start moves to before this encounter's clock)."""

    def whole(value, field, high=100_000):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
            out_of_range(field, 0, high)
        return value

    def not_a_body(field="carried"):
        refuse(_("{field} must be a body from an earlier fight"), "bad_field", field=field)

    def text(value, field):
        if not isinstance(value, str) or not 0 < len(value) <= 100:
            refuse(_("{field} must be text"), "bad_field", field=field)
        return value

    known = {"encounter", "trauma", "pain", "bleeding", "injuries", "ongoing", "losses",
             "alive", "conscious"}
    if not isinstance(data, dict) or set(data) - known:
        not_a_body()
    try:
        rate, loss, clock, decay, recovery = (
            whole(v, "bleeding") for v in data.get("bleeding", [0, 0, 0, 0, 0])
        )
        bleeding = Bleeding(rate, loss, clock, decay, recovery)
        injuries = []
        for area, damage_type, die, name, codes, line, outcomes in data.get("injuries", []):
            if area not in AREAS or damage_type not in DAMAGE_TYPES:
                not_a_body("injuries")
            injuries.append(Injury(
                area, damage_type, whole(die, "injuries", 10), text(name, "injuries"),
                tuple(text(code, "injuries") for code in codes), whole(line, "injuries"),
                tuple((text(a, "injuries"), text(b, "injuries")) for a, b in outcomes),
            ))
        ongoing = tuple(Ongoing(text(code, "ongoing"), seconds - whole(ran, "ongoing"))
                        for code, ran in data.get("ongoing", []))
        losses = tuple((text(what, "losses"), whole(amount, "losses"))
                       for what, amount in data.get("losses", []))
    except (TypeError, ValueError):
        not_a_body()
    alive, conscious = data.get("alive", True), data.get("conscious", True)
    if not isinstance(alive, bool) or not isinstance(conscious, bool):
        not_a_body()
    return {
        "trauma": whole(data.get("trauma", 0), "trauma"),
        "pain": whole(data.get("pain", 0), "pain"),
        "bleeding": bleeding,
        "injuries": tuple(injuries),
        "ongoing": ongoing,
        "losses": losses,
        "alive": alive,
        "conscious": conscious,
    }


# The GM's commands -----------------------------------------------------------------------------


def _damage(state: Encounter, cmd: C.Damage, rng):
    require_quiet(state)
    target = combatant(state, cmd.id)
    if not target.alive:
        refuse(_("{name} is dead"), "dead", name=target.name)
    if (cmd.damage is None) == (cmd.dice is None):
        refuse(_("give the damage rolled or the ObT6s to roll"), "bad_field", field="damage")
    if cmd.dice is not None and not 1 <= cmd.dice <= 20:
        out_of_range("dice", 1, 20)
    if cmd.damage is not None and not 0 <= cmd.damage <= 200:
        out_of_range("damage", 0, 200)
    return [
        wound_event(
            state,
            target,
            area=cmd.area,
            damage_type=cmd.damage_type,
            rng=rng,
            dice=cmd.dice,
            amount=cmd.damage,
            protected=cmd.protected,
            weapon=cmd.label,
        )
    ]


def _advance(state: Encounter, cmd: C.AdvanceTime, rng):
    require_quiet(state)
    if state.round and not state.round_closed:
        refuse(_("end the round first"), "round_open")
    if cmd.activity not in {a.value for a in Activity}:
        refuse(_("activity is care, normal or active"), "bad_field", field="activity")
    if not 0 <= cmd.minutes <= 1000:
        out_of_range("minutes", 0, 1000)
    if not 0 <= cmd.rounds <= 1000:
        out_of_range("rounds", 0, 1000)
    seconds = cmd.minutes * 60 + cmd.rounds * ROUND_SECONDS
    if not seconds:
        refuse(_("no time to pass"), "bad_field", field="minutes")
    return [*time_events(state, seconds, cmd.activity, rng), E.TimeAdvanced(seconds, cmd.activity)]


def _treat(state: Encounter, cmd: C.Treat, rng):
    require_open(state)
    c = combatant(state, cmd.id)
    if not any(o.code == cmd.code for o in c.ongoing):
        refuse(_("{name} has no {effect}"), "bad_field", name=c.name, effect=cmd.code)
    return [E.Treated(c.id, cmd.code)]


def _wake(state: Encounter, cmd: C.Wake, rng):
    require_open(state)
    c = combatant(state, cmd.id)
    if not c.alive or c.conscious:
        refuse(_("{name} is not unconscious"), "not_unconscious", name=c.name)
    return [E.Woke(c.id)]


HANDLERS = {
    C.Damage: _damage,
    C.AdvanceTime: _advance,
    C.Treat: _treat,
    C.Wake: _wake,
}
