"""The Phobia combat state machine (phobia-utdrag.txt lines 613-804, 806-1130): `decide`
and `evolve`.

`decide(state, command, rng)` refuses an illegal command with a RulesError whose message
says why, or returns the events it causes with every die rolled in them. `evolve(state,
event)` applies one event; it never rolls, so replaying events rebuilds the state exactly.

The round (lines 613-705). The GM starts each 4-second round; the combatants take their
turns by Turordning, highest first, ties by RÖR (then seat, then the order they joined);
with the house rule, each adds a 1T10 to TO for the round (lines 245-247). A combatant
whose TO is 0 or less takes no turn, but still responds (lines 638-641). On its turn a
combatant declares its active actions (0: Avvakta); each beyond the first makes all of
them +Ob1T6 (lines 651-658); the turn ends by itself once they are done. An attack opens
the responses: the target answers (a response, or none) and the others may declare
theirs meanwhile; then the attack is carried out and the responses after it, in falling
TO (lines 693-703). A response is +Ob1T6 per action made earlier in the round (lines
673-681), and every action made after a response counts it (lines 681-683).

Readings where the excerpt is silent (the GM's table may differ; see also the house
rules in ``__init__``):

* Moving up to FÖR "makes all actions harder" (line 264): +Ob1T6 on every action of the
  round after the move. FÖR x 2 (run) and x 3 (sprint) leave no other action, response
  included (lines 265-270). Moving more than 2 m is the active action Förflytta sig,
  the turn's first and at most one a round (lines 724-729); the free 2 m are no action.
* Aim and shoot (lines 733-743) is the turn's one declared action with a ranged weapon:
  the shot waits for half the TO (rounded down, after the additions) and is fired then
  at −Ob1T6; a response meanwhile loses the −Ob1T6, not the shot. A TO whose half is 0
  cannot aim (line 638).
* Försvara sig (lines 796-799), only against a melee attack on oneself, is a test of the
  defender's skill (the ready melee weapon's, else Stridsvana, or one named) at Ob3T6,
  rolled with the attack as an active opposition (lines 556-578): the attack hits when it
  succeeds and wins; equal effects roll both again (at most ten times, then it misses).
* Skjuta tillbaka (lines 773-778) is an attack on the attacker with a ready ranged
  weapon, without aim, at the attack difficulty and the response's +Ob1T6s. Söka skydd
  (lines 780-794) marks the combatant in cover when its test succeeds (what cover does
  to later attacks is the GM's: protection per area). Fly (lines 801-804) ends the
  combatant's active actions for the round.
* Only the attack opens responses: a move or another action does not (the engine has
  no map to see it by).
* The death roll (line 837-839) is rolled after a hit that gives Trauma ("not even
  necessary ... if only Smärta", lines 1039-1041), against TÅL (house rule); a failure
  is death. The shock roll is rolled after every hit that does damage, against
  Chockvärde (house rule); a failure is unconsciousness. The excerpt names the rolls
  and their difficulties, not what they decide: this is the reading.
* A rise of blood loss calls for a shock roll at the round's end (lines 1116-1117); a
  GM's time step is one such end (one roll, at the difficulty after it). A combat round
  bleeds at full activity's pace (lines 1091-1095). Ongoing effects add their boxes
  without rolls; losses (Permanent!, Öra!, ...) are recorded, not taken off the values.
"""

from rules import combat_kit as K
from rules.combat_kit import check_weapons, combatant, out_of_range, refuse, require_open
from rules.errors import RulesError
from rules.errors import gettext_noop as _
from rules.phobia.combat import commands as C
from rules.phobia.combat import events as E
from rules.phobia.combat.state import (
    AREAS,
    ATTRIBUTE_KEYS,
    DAMAGE_TYPES,
    AimedShot,
    Combatant,
    Encounter,
    Injury,
    Ongoing,
    Pending,
    Response,
    changed,
    pairs_get,
)
from rules.phobia.dice import ObDice, PlainDice, roll
from rules.phobia.injuries import (
    EAR_LOSS,
    INJURY_DIE,
    ROUND_SECONDS,
    Activity,
    Bleeding,
    CheckKind,
    advance_bleeding,
    apply_hit,
    death_roll_difficulty,
    ongoing_boxes,
    parse_code,
    roll_check,
    roll_loss,
    row_difficulty,
    shock_roll_difficulty,
    skill_difficulty_added,
)
from rules.phobia.success import modify_difficulty, opposed, resolve_test

FREE_METRES = 2.0  # lines 261-262
DEFEND_DIFFICULTY = 3  # reading: a normal test (Ob3T6, table 1)
COVER_SKILL = ("combat_experience", 2)  # line 786: lätt (Ob2T6) against Stridsvana
COVER_ATTRIBUTE = ("agility", 4)  # line 787: svårt (Ob4T6) against RÖR without Stridsvana
MAX_OPPOSED = 10  # equal effects roll again (line 563); a bound on the rerolls
MAX_ACTIONS = 10
CHECK_STATS = {"STY": "strength", "Tur": "luck"}  # what the table's checks are against
# House rule "random" hit location: 1T10 (not the text's; it gives none).
HIT_TABLE = {
    1: "skull",
    2: "face",
    3: "neck",
    4: "chest",
    5: "belly",
    6: "groin",
    7: "arm",
    8: "arm",
    9: "leg",
    10: "leg",
}
TO_DIE = PlainDice(1, 10)  # lines 245-247


# Reading the state ---------------------------------------------------------------------------


def require_quiet(state: Encounter) -> None:
    require_open(state)
    if state.pending is not None:
        refuse(_("an attack is waiting for its responses"), "attack_pending")


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


def order_key(state: Encounter, c: Combatant) -> tuple:
    """Highest TO first, then RÖR (lines 631-636), then seat and the order joined."""
    index = next(i for i, o in enumerate(state.combatants) if o.id == c.id)
    return (-c.order_to, -c.value("agility"), c.seat, index)


def queue(state: Encounter) -> list[Combatant]:
    """Who still takes a turn this round, in order."""
    waiting = [
        c
        for c in state.combatants
        if c.acts and not c.fled and not c.turn_over and c.current_to > 0
    ]
    return sorted(waiting, key=lambda c: order_key(state, c))


def common_parts(state: Encounter, c: Combatant) -> list[tuple[str, int]]:
    """What makes any action of `c` harder: moving up to FÖR (reading +Ob1T6, line 264),
    Smärta's rows (lines 1036-1045), the GM's modifier."""
    house = state.house
    parts = []
    if c.move_mode == "move":
        parts.append(("moving", 1))
    pain = skill_difficulty_added(c.pain, house.damage_columns, house.row_difficulty)
    if pain:
        parts.append(("pain", pain))
    if c.modifier:
        parts.append(("gm", c.modifier))
    return parts


def attack_parts(state: Encounter, c: Combatant, aim_bonus: bool) -> tuple[tuple[str, int], ...]:
    """An active attack's difficulty: the base, +Ob1T6 per action beyond the first (the
    declared ones and the responses made, lines 651-658, 681-691), −Ob1T6 for an aimed
    shot that kept its aim (lines 738, 742-743), and the common parts. Not declared yet
    (a preview): as one action."""
    parts = [("base", state.house.attack_difficulty)]
    extra = max(c.declared or 0, 1) + c.responses - 1
    if extra > 0:
        parts.append(("actions", extra))
    if aim_bonus:
        parts.append(("aim", -1))
    return tuple(parts + common_parts(state, c))


def response_parts(state: Encounter, c: Combatant, base: int) -> tuple[tuple[str, int], ...]:
    """A response's difficulty: its base, +Ob1T6 per action made earlier this round
    (lines 673-677), and the common parts."""
    parts = [("base", base)]
    if c.actions_done:
        parts.append(("response", c.actions_done))
    return tuple(parts + common_parts(state, c))


def difficulty_of(parts) -> int:
    """The parts summed first, then kept within Ob0T6..Ob20T6 (lines 541-547)."""
    return modify_difficulty(0, *(value for _key, value in parts))


def roll_test(rng, stat: str, chance: int, parts) -> tuple[E.Test, object]:
    """Roll a test: the event's record of it, and the success module's outcome."""
    rolled = roll(ObDice(difficulty_of(parts)), rng)
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


def defend_skill(c: Combatant, named: str) -> str:
    if named:
        return named
    for key in c.in_hand:
        weapon = c.weapon(key)
        if weapon is not None and not weapon.ranged:
            return weapon.skill
    return "combat_experience"


def shoot_back_weapon(c: Combatant, named: str):
    keys = (named,) if named else c.in_hand
    for key in keys:
        weapon = c.weapon(key)
        if weapon is not None and weapon.ranged and key in c.in_hand:
            return weapon
    return None


# Damage ----------------------------------------------------------------------------------------


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
        rolled_dice = roll(ObDice(dice), rng)
        first, rerolls, rolled = rolled_dice.first, rolled_dice.rerolls, rolled_dice.total
    else:
        rolled = amount or 0
    protection = target.protection_of(area) if protected else 0
    hit = apply_hit(rolled, protection, damage_type, area, target.shock_value, rng=rng)
    checks = []
    outcomes = []
    for pending in hit.checks:
        stat = CHECK_STATS[pending.check.against]
        result = roll_check(pending, target.value(stat), rng)
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
            rng, stat, target.value(stat), death_parts(state, trauma, blood_loss)
        )
        dead = not death.success
    if hit.damage and target.alive and target.conscious and not dead:
        stat = state.house.shock_stat
        shock, _outcome = roll_test(
            rng, stat, target.value(stat), shock_parts(state, trauma, pain, blood_loss)
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
        shock, _outcome = roll_test(rng, stat, c.value(stat), parts)
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


# Attacks ---------------------------------------------------------------------------------------


def attack_events(
    state: Encounter,
    attacker: Combatant,
    target: Combatant,
    weapon,
    parts,
    area: str | None,
    rng,
    *,
    defence: Response | None = None,
    response: bool = False,
) -> list:
    """The attack test (with the defence, if any), the area and the hit."""
    tests, defences = [], []
    chance = attacker.value(weapon.skill)
    hit = False
    for _round in range(MAX_OPPOSED):
        test, outcome = roll_test(rng, weapon.skill, chance, parts)
        tests.append(test)
        if defence is None:
            hit = test.success
            break
        guard, guarded = roll_test(rng, defence.skill, target.value(defence.skill), defence.parts)
        defences.append(guard)
        if not test.success:
            break
        won = opposed(outcome, guarded)
        if won:
            hit = won > 0
            break
    area_roll = None
    if hit and (area is None or state.house.hit_location == "random"):  # house rule
        area_roll = roll(INJURY_DIE, rng).result
        area = HIT_TABLE[area_roll]
    rolled = E.AttackRolled(
        attacker=attacker.id,
        target=target.id,
        weapon=weapon.key,
        tests=tuple(tests),
        defences=tuple(defences),
        hit=hit,
        area=area if hit else None,
        area_roll=area_roll,
        response=response,
    )
    out = [rolled]
    if hit:
        out.append(
            wound_event(
                state,
                target,
                area=area,
                damage_type=weapon.damage_type,
                dice=weapon.damage,
                rng=rng,
                source=attacker.id,
                weapon=weapon.name,
            )
        )
    return out


def declare_attack(
    state: Encounter, c: Combatant, target: Combatant, weapon, area, aimed: bool, rng
) -> list:
    declared = E.AttackDeclared(
        attacker=c.id,
        target=target.id,
        weapon=weapon.key,
        area=area,
        aimed=aimed,
        parts=attack_parts(state, c, aimed and c.aim is not None and not c.aim.lost),
    )
    after = evolve(state, declared)
    if target.acts:
        return [declared]  # the responses come first (lines 693-701)
    return [declared, *resolve(after, rng)]


def resolve(state: Encounter, rng, passed: bool = False) -> list:
    """The pending attack carried out, then the responses in falling TO (lines 693-703;
    a defence goes with the attack, lines 798-799)."""
    pending = state.pending
    out: list = [E.Answered(pending.target, passed)]
    state = evolve(state, out[0])
    attacker = combatant(state, pending.attacker)
    target = combatant(state, pending.target)
    weapon = attacker.weapon(pending.weapon)
    defence = next((r for r in pending.responses if r.kind == "defend"), None)
    for event in attack_events(
        state, attacker, target, weapon, pending.parts, pending.area, rng, defence=defence
    ):
        out.append(event)
        state = evolve(state, event)
    others = [r for r in pending.responses if r.kind != "defend"]
    others.sort(key=lambda r: order_key(state, combatant(state, r.id)))
    for r in others:
        c = combatant(state, r.id)
        foe = combatant(state, pending.attacker)
        if not c.acts or (r.kind == "shoot_back" and not foe.alive):
            events = [E.ResponseLost(c.id, r.kind)]
        elif r.kind == "cover":
            test, _outcome = roll_test(rng, r.skill, c.value(r.skill), r.parts)
            events = [E.CoverSought(c.id, test)]
        elif r.kind == "flee":
            events = [E.Fled(c.id)]
        else:
            events = attack_events(
                state, c, foe, c.weapon(r.weapon), r.parts, r.area, rng, response=True
            )
        for event in events:
            out.append(event)
            state = evolve(state, event)
    return out


# decide ----------------------------------------------------------------------------------------


def decide(state: Encounter, command, rng) -> tuple:
    return K.decide(state, command, rng, HANDLERS, evolve, settle)


def settle(state: Encounter, rng) -> list:
    """What follows by itself: a turn ends once its actions are done (or its maker is
    down), the next in order begins, an aimed shot is fired at its half TO."""
    return K.settle(state, rng, next_settlement, evolve, 500)


def next_settlement(state: Encounter, rng) -> list:
    if state.ended or not state.round or state.round_closed or state.pending is not None:
        return []
    if state.active is not None:
        c = combatant(state, state.active)
        if not c.acts or c.fled or c.current_to <= 0:
            return [E.TurnEnded(c.id)]
        if c.aim is not None:
            target = state.get(c.aim.target)
            weapon = c.weapon(c.aim.weapon)
            if target is None or not target.alive or weapon is None:
                return [E.AimLost(c.id), E.TurnEnded(c.id)]
            return declare_attack(state, c, target, weapon, c.aim.area, True, rng)
        if c.declared is not None and c.actives >= c.declared:
            return [E.TurnEnded(c.id)]
        return []
    waiting = queue(state)
    if waiting:
        return [E.TurnStarted(waiting[0].id, waiting[0].order_to)]
    return []


def actor_of(state: Encounter, command) -> str | None:
    """The combatant a command acts for; None when only the GM may give it."""
    if isinstance(command, C.GM_ONLY):
        return None
    return getattr(command, "id", None)


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


def _add(state: Encounter, cmd: C.AddCombatant, rng):
    require_open(state)
    who = K.newcomer(state, cmd)
    values = {}
    for key in ATTRIBUTE_KEYS:
        value = getattr(cmd, key)
        value = 10 if value is None else value
        if not 0 <= value <= 99:
            out_of_range(key, 0, 99)
        values[key] = value
    for key, value in (cmd.skills or {}).items():
        if key in values:
            refuse(_("{field} is an attribute, not a skill"), "bad_field", field=key)
        values[key] = value
    turn_order = cmd.turn_order
    if turn_order is None:
        if cmd.calm is None:
            refuse(_("give Turordning (TO) or Lugn"), "bad_field", field="turn_order")
        turn_order = (
            (values["agility"] + values["sight"]) // 2
            + cmd.calm
            + 2 * values.get("combat_experience", 0)
        )
    shock_value = cmd.shock_value
    if shock_value is None:
        shock_value = (values["strength"] + values["endurance"] + values["will"]) // 3
    movement = cmd.movement
    if movement is None:
        movement = (values["agility"] + values["endurance"] + 10) // 4
    if not 0 <= shock_value <= 99:
        out_of_range("shock_value", 0, 99)
    if not 0 <= movement <= 99:
        out_of_range("movement", 0, 99)
    in_hand = tuple(dict.fromkeys(k for k in (cmd.right, cmd.left) if k))
    check_weapons(cmd.weapons, in_hand)
    if not in_hand and cmd.weapons:
        in_hand = (cmd.weapons[0].key,)
    protection: dict[str, int] = {}
    for piece in cmd.armour:
        for area, value in piece.areas:
            protection[area] = protection.get(area, 0) + value
    for area, value in (cmd.protection or {}).items():
        protection[area] = protection.get(area, 0) + value
    body = carried_body(cmd.carried, state.seconds) if cmd.carried else {}
    new = Combatant(
        **body,
        **who,
        values=tuple(values.items()),
        turn_order=turn_order,
        shock_value=shock_value,
        movement=movement,
        weapons=tuple(cmd.weapons),
        in_hand=in_hand,
        protection=tuple(sorted(protection.items())),
    )
    return [E.CombatantAdded(new)]


def _update(state: Encounter, cmd: C.UpdateCombatant, rng):
    require_open(state)
    combatant(state, cmd.id)
    changes = []
    if cmd.side:
        changes.append(("side", cmd.side))
    if cmd.protection is not None:
        changes.append(("protection", tuple(sorted(cmd.protection.items()))))
    if cmd.turn_order_modifier is not None:
        if not -100 <= cmd.turn_order_modifier <= 100:
            out_of_range("turn_order_modifier", -100, 100)
        changes.append(("turn_order_modifier", cmd.turn_order_modifier))
    if cmd.modifier is not None:
        if not -10 <= cmd.modifier <= 10:
            out_of_range("modifier", -10, 10)
        changes.append(("modifier", cmd.modifier))
    return [K.updated(cmd.id, changes)]


def end_of_round(state: Encounter, rng) -> list:
    """The round's 4 seconds (rulings: 15 rounds a minute) at full activity's pace."""
    out = time_events(state, ROUND_SECONDS, Activity.ACTIVE.value, rng)
    return [*out, E.RoundEnded(state.round)]


def _start_round(state: Encounter, cmd: C.StartRound, rng):
    require_quiet(state)
    if len(state.combatants) < 2:
        refuse(_("a fight needs at least two combatants"), "too_few")
    out = []
    if state.round and not state.round_closed:
        out += end_of_round(state, rng)
    dice = ()
    if state.house.turn_order_die:
        dice = tuple((c.id, roll(TO_DIE, rng).result) for c in state.combatants if c.acts)
    return [*out, E.RoundStarted(state.round + 1, dice)]


def _end_round(state: Encounter, cmd: C.EndRound, rng):
    require_quiet(state)
    if not state.round:
        refuse(_("the fight has not started"), "not_started")
    if state.round_closed:
        refuse(_("the round has ended already: start the next"), "round_closed")
    return end_of_round(state, rng)


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


def _end(state: Encounter, cmd, rng):
    require_open(state)
    return [E.EncounterEnded()]


def _declare(state: Encounter, cmd: C.Declare, rng):
    c = require_turn(state, cmd.id)
    if c.declared is not None:
        refuse(_("{name} has declared already"), "declared", name=c.name)
    if not 0 <= cmd.actions <= MAX_ACTIONS:
        out_of_range("actions", 0, MAX_ACTIONS)
    return [E.Declared(c.id, cmd.actions)]


def _attack(state: Encounter, cmd: C.Attack, rng):
    c = require_turn(state, cmd.id)
    require_action_left(c)
    target = combatant(state, cmd.target)
    if target.id == c.id:
        refuse(_("one does not attack oneself"), "self")
    if not target.alive:
        refuse(_("{name} is dead"), "dead", name=target.name)
    weapon = c.weapon(cmd.weapon)
    if weapon is None:
        refuse(_("{name} has no weapon {weapon!r}"), "bad_field", name=c.name, weapon=cmd.weapon)
    area = cmd.area
    if state.house.hit_location == "attacker" and area is None:
        refuse(_("name the area the attack is aimed at"), "bad_field", field="area")
    if state.house.hit_location == "random":
        area = None
    if cmd.aim:
        if not weapon.ranged:
            refuse(_("only a ranged weapon aims"), "melee_aim")
        if c.declared != 1 or c.actives:
            refuse(_("aiming leaves no other action: declare one action"), "aim_alone")
        if c.current_to // 2 <= 0:
            refuse(_("half of {name}'s TO is 0: no aimed shot"), "aim_to", name=c.name)
        return [E.AimTaken(c.id, target.id, weapon.key, area, c.current_to // 2)]
    return declare_attack(state, c, target, weapon, area, False, rng)


def _move(state: Encounter, cmd: C.Move, rng):
    c = require_turn(state, cmd.id)
    if not 0.5 <= cmd.metres <= 1000:
        out_of_range("metres", 0.5, 1000)
    total = round(c.moved + cmd.metres, 2)
    if total <= FREE_METRES:
        return [E.Moved(c.id, cmd.metres, total, "", False)]
    if c.move_mode:
        refuse(_("Förflytta sig is once a round"), "moved")
    if c.declared is None:
        refuse(_("declare the turn's active actions first"), "not_declared")
    if c.actives or c.declared < 1:
        refuse(_("Förflytta sig must be the turn's first active action"), "move_first")
    if total <= c.movement:
        mode = "move"
    elif total <= 3 * c.movement:
        mode = "run" if total <= 2 * c.movement else "sprint"
        if c.declared != 1:
            refuse(_("running leaves no other action: declare one action"), "run_alone")
    else:
        refuse(_("at most Förflyttning x 3 = {metres} m a round"), "too_far", metres=3 * c.movement)
    return [E.Moved(c.id, cmd.metres, total, mode, True)]


def _act(state: Encounter, cmd: C.Act, rng):
    c = require_turn(state, cmd.id)
    require_action_left(c)
    return [E.Acted(c.id, cmd.label[:40])]


def _end_turn(state: Encounter, cmd: C.EndTurn, rng):
    c = require_turn(state, cmd.id)
    return [E.TurnEnded(c.id)]


def _respond(state: Encounter, cmd: C.Respond, rng):
    require_open(state)
    pending = state.pending
    if pending is None:
        refuse(_("there is no attack to respond to"), "no_attack")
    c = combatant(state, cmd.id)
    if not c.acts:
        refuse(_("{name} cannot act"), "down", name=c.name)
    if c.id == pending.attacker:
        refuse(_("one does not respond to one's own action"), "self")
    if any(r.id == c.id for r in pending.responses):
        refuse(_("one response per active action"), "responded")
    if c.move_mode in ("run", "sprint"):
        refuse(_("running leaves no other action this round"), "running")
    attacker = combatant(state, pending.attacker)
    skill, weapon_key = "", ""
    if cmd.kind == "defend":
        if c.id != pending.target or attacker.weapon(pending.weapon).ranged:
            refuse(_("one defends only against a melee attack on oneself"), "defend")
        skill = defend_skill(c, cmd.skill)
        base = DEFEND_DIFFICULTY
    elif cmd.kind == "cover":
        skill, base = COVER_SKILL if c.value("combat_experience") > 0 else COVER_ATTRIBUTE
    elif cmd.kind == "flee":
        if c.actives:
            refuse(_("one flees only before any active action"), "flee")
        base = 0
    else:
        weapon = shoot_back_weapon(c, cmd.weapon)
        if weapon is None:
            refuse(_("shooting back needs a ranged weapon ready"), "shoot_back")
        if state.house.hit_location == "attacker" and cmd.area is None:
            refuse(_("name the area the attack is aimed at"), "bad_field", field="area")
        skill, weapon_key, base = weapon.skill, weapon.key, state.house.attack_difficulty
    area = cmd.area if cmd.kind == "shoot_back" and state.house.hit_location != "random" else None
    declared = E.ResponseDeclared(
        c.id, cmd.kind, skill, weapon_key, response_parts(state, c, base), area
    )
    if c.id != pending.target:
        return [declared]
    return [declared, *resolve(evolve(state, declared), rng)]


def _pass(state: Encounter, cmd: C.Pass, rng):
    require_open(state)
    pending = state.pending
    if pending is None:
        refuse(_("there is no attack to respond to"), "no_attack")
    if cmd.id != pending.target:
        refuse(_("only the target answers the attack"), "not_target")
    return resolve(state, rng, passed=True)


HANDLERS = {
    C.AddCombatant: _add,
    C.UpdateCombatant: _update,
    C.RemoveCombatant: K.remove_combatant,
    C.StartRound: _start_round,
    C.EndRound: _end_round,
    C.Damage: _damage,
    C.AdvanceTime: _advance,
    C.Treat: _treat,
    C.Wake: _wake,
    C.EndEncounter: _end,
    C.Declare: _declare,
    C.Attack: _attack,
    C.Move: _move,
    C.Act: _act,
    C.EndTurn: _end_turn,
    C.Respond: _respond,
    C.Pass: _pass,
}


# evolve ----------------------------------------------------------------------------------------

ROUND_RESET = dict(
    declared=None,
    actives=0,
    responses=0,
    moved=0.0,
    move_mode="",
    aim=None,
    turn_over=False,
    fled=False,
)


def wound(c: Combatant, event: E.Wounded, now: int) -> Combatant:
    losses = dict(c.losses)

    def lose(what: str, amount: int) -> None:
        if amount:
            losses[what] = losses.get(what, 0) + amount

    for check in event.checks:
        if not check.failed:
            continue
        kind = parse_code(check.code).kind
        if kind is CheckKind.BREAK:
            lose(f"broken:{event.area}", 1)
        elif kind is CheckKind.EYE:
            lose("eyes", 1)
        else:
            for what, amount in EAR_LOSS.items():
                lose(what, -amount)
    for loss in event.losses:
        for what, amount in loss.amounts:
            lose(what, amount)
    changes = {
        "trauma": c.trauma + event.trauma,
        "pain": c.pain + event.pain,
        "bleeding": c.bleeding.wounded(event.bleed),
        "losses": tuple(losses.items()),
    }
    if event.injury is not None:
        changes["injuries"] = (*c.injuries, event.injury)
    if event.ongoing:
        changes["ongoing"] = (*c.ongoing, *(Ongoing(code, now) for code in event.ongoing))
    if event.dead:
        changes["alive"] = False
        changes["conscious"] = False
    elif event.unconscious:
        changes["conscious"] = False
    return c.with_(**changes)


def evolve(state: Encounter, event) -> Encounter:
    kind = type(event)
    if kind is E.CombatantAdded:
        return state.joined(event.combatant)
    if kind is E.CombatantUpdated:
        return state.put(combatant(state, event.id).with_(**dict(event.changes)))
    if kind is E.CombatantRemoved:
        return state.without(event.id)
    if kind is E.RoundStarted:
        dice = dict(event.dice)
        combatants = tuple(c.with_(**ROUND_RESET, die=dice.get(c.id)) for c in state.combatants)
        return changed(
            state, round=event.round, active=None, round_closed=False, combatants=combatants
        )
    if kind is E.TurnStarted:
        return changed(state, active=event.id)
    if kind is E.Declared:
        return state.put(combatant(state, event.id).with_(declared=event.actions))
    if kind is E.Moved:
        c = combatant(state, event.id)
        changes = {"moved": event.total, "in_cover": False}
        if event.action:
            changes.update(move_mode=event.mode, actives=c.actives + 1)
        return state.put(c.with_(**changes))
    if kind is E.Acted:
        c = combatant(state, event.id)
        return state.put(c.with_(actives=c.actives + 1))
    if kind is E.AimTaken:
        c = combatant(state, event.id)
        aim = AimedShot(event.target, event.weapon, event.area)
        return changed(state.put(c.with_(aim=aim)), active=None)
    if kind is E.AttackDeclared:
        c = combatant(state, event.attacker)
        pending = Pending(
            attacker=event.attacker,
            target=event.target,
            weapon=event.weapon,
            area=event.area,
            aimed=event.aimed,
            parts=event.parts,
        )
        return changed(state.put(c.with_(actives=c.actives + 1, aim=None)), pending=pending)
    if kind is E.ResponseDeclared:
        c = combatant(state, event.id)
        aim = c.aim if c.aim is None else changed(c.aim, lost=True)  # line 742-743
        response = Response(
            event.id, event.kind, event.skill, event.weapon, event.parts, event.area
        )
        pending = changed(state.pending, responses=(*state.pending.responses, response))
        return changed(state.put(c.with_(responses=c.responses + 1, aim=aim)), pending=pending)
    if kind is E.Answered:
        return changed(state, pending=None)
    if kind is E.AttackRolled:
        return state
    if kind is E.Wounded:
        return state.put(wound(combatant(state, event.id), event, state.seconds))
    if kind is E.CoverSought:
        c = combatant(state, event.id)
        return state.put(c.with_(in_cover=c.in_cover or event.test.success))
    if kind is E.Fled:
        return state.put(combatant(state, event.id).with_(fled=True))
    if kind is E.ResponseLost:
        return state
    if kind is E.AimLost:
        return state.put(combatant(state, event.id).with_(aim=None))
    if kind is E.TurnEnded:
        c = combatant(state, event.id)
        state = state.put(c.with_(turn_over=True))
        return changed(state, active=None) if state.active == event.id else state
    if kind is E.TimePassed:
        c = combatant(state, event.id)
        changes = {
            "bleeding": event.bleeding,
            "trauma": c.trauma + event.trauma,
            "pain": c.pain + event.pain,
        }
        if event.unconscious:
            changes["conscious"] = False
        return state.put(c.with_(**changes))
    if kind is E.RoundEnded:
        return changed(state, seconds=state.seconds + ROUND_SECONDS, active=None, round_closed=True)
    if kind is E.TimeAdvanced:
        return changed(state, seconds=state.seconds + event.seconds)
    if kind is E.Treated:
        c = combatant(state, event.id)
        ongoing = list(c.ongoing)
        ongoing.remove(next(o for o in ongoing if o.code == event.code))
        return state.put(c.with_(ongoing=tuple(ongoing)))
    if kind is E.Woke:
        return state.put(combatant(state, event.id).with_(conscious=True))
    if kind is E.EncounterEnded:
        return changed(state, ended=True, pending=None, active=None)
    raise RulesError(f"unknown event {kind.__name__}")


__all__ = ["actor_of", "decide", "evolve", "pairs_get"]
