"""A chronicle's `decide` and `evolve`: time, bleeding, first aid and healing (p. 13-14).

`decide(state, command, rng)` refuses an illegal command (RulesError) or returns its
events, every die rolled in them; `evolve(state, event)` applies one and never rolls.
Advancing the clock applies everything that falls inside the span in time order, each
body on its own: a wound's conversion and bleeding ticks, limb wounds coming of age, the
end of a rest, the 7+ organtrauma tests against unconsciousness and the healing tests
(weekly, or hourly while unstable). The dead take no more events; the unconscious rest
and take no tests against unconsciousness.
"""

from datetime import timedelta

from rules.aoristos.aftermath import commands as C
from rules.aoristos.aftermath import events as E
from rules.aoristos.aftermath import figures as F
from rules.aoristos.aftermath.state import Body, Chronicle, Disorder, Wound
from rules.aoristos.combat import figures as combat_figures
from rules.aoristos.dice import Purpose, roll
from rules.aoristos.success import test_hand
from rules.combat_kit import refuse
from rules.errors import RulesError
from rules.errors import gettext_noop as _

WORSE = {"ok": 0, "broken": 1, "destroyed": 2}
LAST_YEAR = 9000  # far from datetime's end, so a month or a week after never overflows


def _body(state: Chronicle, body_id: str) -> Body:
    body = state.body(body_id)
    if body is None:
        raise RulesError(f"nobody with the id {body_id!r} in the chronicle", code="unknown_body")
    return body


def _living(state: Chronicle, body_id: str) -> Body:
    body = _body(state, body_id)
    if not body.alive:
        raise RulesError(f"{body.name} is dead", code="dead")
    if body.broken:
        raise RulesError(f"{body.name} is broken by psychosis for good (p. 15)", code="broken")
    return body


def hit_shock(body: Body, wound: Wound) -> tuple[int, int, int]:
    """At a hit (p. 13): the bleed rate (what still bleeds, the new wound's with it) and the
    nervchock (what is in effect, plus the wound's damage) against Chocktolerans. Between
    fights the immediate nervchock counts at the hit only (docs: Chronicle readings)."""
    return (body.bleed_rate + wound.bleeding, body.nerve_shock + wound.damage, body.tolerance)


def survival(organ_trauma: int, rng) -> E.Survival:
    """The 2B2T roll when organtrauma rose (p. 14): under the total is death."""
    rolled = roll(F.SURVIVAL_HAND, rng, Purpose.TEST)
    return (rolled.dice, rolled.result, organ_trauma, rolled.result >= organ_trauma)


# decide -----------------------------------------------------------------------------------


def decide(state: Chronicle, command, rng) -> tuple:
    if isinstance(command, C.AddBody):
        if state.body(command.id) is not None:
            raise RulesError(f"{command.id!r} is in the chronicle already", code="duplicate")
        body = Body(
            id=command.id,
            name=command.name,
            clock=state.clock,
            character_id=command.character_id,
            willpower=command.willpower,
            shock_tolerance=command.shock_tolerance,
            rest_since=state.clock,
            recovery_from=state.clock,
        )
        return (E.BodyAdded(body),)
    if isinstance(command, C.AddWound):
        body = _living(state, command.id)
        if command.origin and any(w.origin == command.origin for w in body.wounds):
            raise RulesError("that wound is in the chronicle already", code="duplicate")
        dealt = body.clock - command.ago
        wound = Wound(
            id=f"w{sum(len(b.wounds) for b in state.bodies) + 1}",
            dealt=dealt,
            area=command.area,
            damage=command.damage,
            bleed_rate=command.bleed_rate,
            limb_state=command.limb_state if command.limb_state != "ok" else None,
            source=command.source,
            origin=command.origin,
            burn=command.burn,
        )
        rolled = command.survival
        if command.organ_trauma and rolled is None:
            rolled = survival(body.organ_trauma + command.organ_trauma, rng)
        alive = rolled is None or rolled[3]
        shock, knocked_out = None, False
        if command.unconscious is not None:  # a fight's wound: the fight tested at the hit
            knocked_out = alive and command.unconscious and body.conscious
        elif command.damage > 0 and body.conscious:
            shock = hit_shock(body, wound)
            knocked_out = alive and combat_figures.unconscious(*shock)
        return (E.WoundAdded(body.id, wound, command.organ_trauma, rolled, shock, knocked_out),)
    if isinstance(command, C.SetCircumstances):
        ids = command.ids or tuple(b.id for b in state.bodies if b.alive)
        out = []
        for body_id in ids:
            body = _living(state, body_id)
            activity = command.activity or body.activity
            rest = command.rest
            if rest is None:
                rest = (
                    body.rest
                    if activity == body.activity
                    else ("normal" if activity == "active" else "thorough")
                )
            out.append(
                E.CircumstancesSet(
                    body.id,
                    activity,
                    command.environment or body.environment,
                    rest,
                    command.care or body.care,
                    command.recovery or body.recovery,
                )
            )
        return tuple(out)
    if isinstance(command, C.FirstAid):
        body = _living(state, command.id)
        reduction = F.aid_reduction(command.levels, command.equipment, command.judged)
        recent = [w for w in body.wounds if not w.converted and body.clock < w.dealt + F.CONVERSION]
        open_wounds = [w for w in recent if w.bleeding and not w.first_aid]
        if not open_wounds and any(w.first_aid for w in recent):
            refuse(
                _(
                    "{name}'s bleeding has had its first aid: first aid is given once to a "
                    "wound, two helpers together count as one (p. 13)"
                ),
                "treated",
                name=body.name,
            )
        if not open_wounds:
            raise RulesError(
                f"{body.name} has no bleeding wound under 5 minutes old: first aid must "
                "start before the bleeding turns into blood loss (p. 13)",
                code="too_late",
            )
        left, applied = max(0, reduction), []
        for wound in sorted(open_wounds, key=lambda w: w.dealt):
            part = min(left, wound.bleeding)
            if part:
                applied.append((wound.id, part))
                left -= part
        return (
            E.FirstAidGiven(
                body.id,
                body.clock,
                command.levels,
                command.equipment,
                command.judged,
                reduction,
                tuple(applied),
                tuple(w.id for w in open_wounds),
            ),
        )
    if isinstance(command, C.Transfusion):
        body = _living(state, command.id)
        if not body.blood_loss:
            raise RulesError(f"{body.name} has no blood loss", code="nothing_to_do")
        return (E.Transfused(body.id, body.clock, body.blood_loss),)
    if isinstance(command, C.Wake):
        body = _living(state, command.id)
        if body.conscious:
            raise RulesError(f"{body.name} is awake", code="nothing_to_do")
        return (E.Woke(body.id, body.clock),)
    if isinstance(command, C.Advance):
        return advance(state, command, rng)
    if isinstance(command, C.GainPsychTrauma):
        return (gain(_living(state, command.id), command, rng),)
    if isinstance(command, C.TakeDisorder):
        return (disorder(state, _living(state, command.id), command),)
    if isinstance(command, C.CureDisorder):
        body = _living(state, command.id)
        found = body.disorder(command.disorder)
        if found is None or found.kind == "temporary" or found.cured_at is not None:
            raise RulesError(
                f"{body.name} has no lasting disorder {command.disorder!r} to cure",
                code="nothing_to_do",
            )
        if body.psych_trauma >= F.CURABLE_BELOW:
            raise RulesError(
                f"a lasting disorder can be cured only below {F.CURABLE_BELOW} psyktrauma "
                f"(p. 15); {body.name} has {body.psych_trauma}",
                code="too_much_trauma",
            )
        return (E.DisorderCured(body.id, found.id, body.clock),)
    raise RulesError(f"not a chronicle command: {type(command).__name__}", code="bad_type")


def gain(body: Body, command: C.GainPsychTrauma, rng) -> E.PsychTraumaGained:
    """A gain of psyktrauma (p. 15), with the psychosis test when it rises above 20."""
    if command.hand is not None:
        rolled = roll(command.hand, rng, Purpose.STRESS)  # the lowest dice count
        dice, amount, hand = rolled.dice, max(0, rolled.result), str(command.hand)
    else:
        dice, amount, hand = (), command.amount, None
    total = body.psych_trauma + amount
    test = None
    if amount and total > F.PSYCHOSIS:
        rolled = roll(test_hand(nerve_shock=body.nerve_shock), rng, Purpose.TEST)
        whole = body.willpower + F.PSYCHOSIS_TB + rolled.result
        test = (rolled.dice, whole, total, whole >= total)
    vent_until = body.vent_until
    if amount:  # new trauma ends the chance of the last one's temporary disorder
        vent_until = F.next_morning(body.clock) if command.source == "event" else None
    return E.PsychTraumaGained(
        body.id,
        body.clock,
        hand,
        dice,
        amount,
        total,
        command.source,
        command.permanent,
        command.reason,
        test,
        vent_until,
    )


def disorder(state: Chronicle, body: Body, command: C.TakeDisorder) -> E.DisorderTaken:
    """Venting psyktrauma with a disorder (p. 15). Readings: one temporary disorder per
    shocking gain, before the next morning and the next gain; a disorder takes at most
    what can be vented (never the permanent part)."""
    if body.ventable <= 0:
        raise RulesError(
            f"{body.name} has no psyktrauma a disorder can vent (p. 15)", code="nothing_to_do"
        )
    developed = None
    if command.kind == "temporary" and (body.vent_until is None or body.clock >= body.vent_until):
        raise RulesError(
            "a temporary disorder must follow a shocking event's psyktrauma, before the "
            "next morning and before the next gain (p. 15)",
            code="too_late",
        )
    if command.develops:
        developed = body.disorder(command.develops)
        if (
            command.kind != "diagnosable"
            or developed is None
            or developed.kind != "lasting"
            or developed.cured_at is not None
        ):
            raise RulesError(
                "only a lasting disorder develops into its diagnosable variant", code="bad_field"
            )
    most = F.DISORDER_REMOVES["lasting"] if developed else F.DISORDER_REMOVES[command.kind]
    removed = min(most, body.ventable)
    if developed is not None:
        taken = developed.with_(
            kind="diagnosable",
            removed=developed.removed + removed,
            description=command.description or developed.description,
            effects=command.effects or developed.effects,
        )
    else:
        taken = Disorder(
            id=f"d{sum(len(b.disorders) for b in state.bodies) + 1}",
            kind=command.kind,
            description=command.description,
            at=body.clock,
            removed=removed,
            effects=command.effects,
            until=body.vent_until if command.kind == "temporary" else None,
        )
    return E.DisorderTaken(
        body.id, taken, removed, body.psych_trauma - removed, developed.id if developed else None
    )


def advance(state: Chronicle, command: C.Advance, rng) -> tuple:
    for body_id in command.ids:
        _body(state, body_id)
    ids = command.ids or tuple(b.id for b in state.bodies)
    start = max([state.body(i).clock for i in ids], default=state.clock)
    if not command.ids:
        start = max(start, state.clock)
    target = command.to if command.to is not None else start + command.by
    if target.year > LAST_YEAR:
        raise RulesError(f"the chronicle ends in the year {LAST_YEAR}", code="too_late")
    if target < start:
        if any(b.wounds for b in state.bodies):
            raise RulesError("the clock only goes forward", code="backwards")
        return (E.ClockSet(target),)  # nothing has happened yet: the campaign's date
    if target - start > C.LONGEST:
        raise RulesError("advance at most 52 weeks at a time", code="too_long")
    events: list = []
    while True:
        due = None
        for index, body_id in enumerate(ids):
            body = state.body(body_id)
            if not body.in_play:
                continue
            for order, at, what in due_items(state, body):
                if at <= target and (due is None or (at, index, order) < due[0]):
                    due = ((at, index, order), body, what)
        if due is None:
            break
        (at, _index, _order), body, what = due
        for event in happen(state, body, what, at, rng):
            state = evolve(state, event)
            events.append(event)
    events.append(E.ClockMoved(target, tuple(i for i in ids if state.body(i).in_play)))
    return tuple(events)


def due_items(state: Chronicle, body: Body):
    """(order, time, what) of everything a living body has coming, in any order."""
    for wound in body.wounds:
        at = wound.next_tick()
        if at is not None:
            yield 0, at, ("bleed", wound.id)
        if wound.lasting_limb_shock:
            yield 1, wound.dealt + F.MONTH, ("month", wound.id)
    if not body.rested and body.rest_since is not None:
        yield 2, body.rest_since + timedelta(hours=state.rest_hours), ("rested",)
    if body.next_awake_test is not None and body.conscious:
        yield 3, body.next_awake_test, ("awake",)
    if body.next_healing is not None:
        yield 4, body.next_healing, ("heal",)
    at = next_recovery(body)
    if at is not None:
        yield 5, at, ("recover",)


def next_recovery(body: Body):
    """When psyktrauma next fades (p. 15), or None: also when a period would take nothing
    (at best with VIL 0)."""
    if body.recovery == "no_recovery" or body.ventable <= 0 or body.recovery_from is None:
        return None
    if F.recovered(body.recovery, body.willpower) <= 0:
        return None
    return body.recovery_from + F.RECOVERY_EVERY[body.recovery]


def happen(state: Chronicle, body: Body, what: tuple, at, rng) -> tuple:
    kind = what[0]
    if kind == "bleed":
        wound = body.wound(what[1])
        converted = not wound.converted
        blood_loss = wound.bleeding if converted else wound.blood_loss
        fell = body.resting
        trauma = body.organ_trauma + 1
        return (
            E.BleedTick(
                body.id,
                wound.id,
                at,
                converted,
                blood_loss - 1 if fell else blood_loss,
                fell,
                trauma,
                survival(trauma, rng),
            ),
        )
    if kind == "month":
        wound = body.wound(what[1])
        mended = "ok" if wound.limb_state == "broken" else wound.limb_state
        # p. 14: the limb mends unless another wound broke or destroyed it later.
        others = [
            w.limb_state
            for w in body.wounds
            if w.area == wound.area and w.id != wound.id and w.lasting_limb_shock
        ]
        limb_state = max([mended, *others], key=WORSE.get)
        return (E.LimbMended(body.id, wound.id, at, wound.area, limb_state),)
    if kind == "rested":
        return (E.Rested(body.id, at),)
    if kind == "awake":
        rolled = roll(test_hand(nerve_shock=body.nerve_shock), rng, Purpose.TEST)
        total = body.willpower + rolled.result
        return (E.AwakeTest(body.id, at, (rolled.dice, total, F.VIL_GST, total >= F.VIL_GST)),)
    if kind == "heal":
        hourly = body.hourly
        care = body.care if body.activity == "cared" else "stone_age"
        if body.only_burns:  # p. 14: "Vård av personen (påverkar ej brännsår)"
            care = "stone_age"
        threshold = F.healing_threshold(body.environment, body.rest, care, unstable=hourly)
        rolled = roll(test_hand(nerve_shock=body.nerve_shock), rng, Purpose.TEST)
        healed = rolled.result >= threshold
        harmed = hourly and rolled.result < F.UNSTABLE_HARM_UNDER
        trauma = body.organ_trauma - healed + harmed
        # p. 14: "ett resultat som både ger och tar trauma" provokes no test against death.
        rolled_survival = survival(trauma, rng) if harmed and not healed else None
        test = (rolled.dice, rolled.result, threshold, healed)
        return (
            E.HealingTest(
                body.id, at, hourly, test, rolled.result, healed, harmed, trauma, rolled_survival
            ),
        )
    if kind == "recover":
        removed = min(F.recovered(body.recovery, body.willpower), body.ventable)
        return (E.PsychRecovered(body.id, at, removed, body.psych_trauma - removed, body.recovery),)
    raise AssertionError(kind)


# evolve -----------------------------------------------------------------------------------


def evolve(state: Chronicle, event) -> Chronicle:
    if isinstance(event, E.BodyAdded):
        return state.with_body(event.body)
    if isinstance(event, E.ClockSet):
        bodies = tuple(
            b.with_(clock=event.to, rest_since=event.to if b.rest_since else None)
            for b in state.bodies
        )
        return state.with_(clock=event.to, bodies=bodies)
    if isinstance(event, E.ClockMoved):
        bodies = tuple(
            b.with_(clock=max(b.clock, event.to)) if b.id in event.ids else b for b in state.bodies
        )
        return state.with_(clock=max(state.clock, event.to), bodies=bodies)
    body = state.body(event.id)
    if isinstance(event, E.WoundAdded):
        wound = event.wound
        limbs = body.limbs
        if wound.area in dict(limbs) and wound.limb_state:
            limbs = tuple(
                (limb, max(now, wound.limb_state, key=WORSE.get) if limb == wound.area else now)
                for limb, now in limbs
            )
        body = body.with_(wounds=(*body.wounds, wound), limbs=limbs)
        if event.organ_trauma:
            if wound.burn:  # p. 14: the burn's organtrauma, which care does not help
                body = body.with_(burn_trauma=body.burn_trauma + event.organ_trauma)
            body = traumatised(
                body, body.organ_trauma + event.organ_trauma, event.survival, wound.dealt
            )
        if body.alive and (wound.damage > 0 or wound.lasting_limb_shock):
            body = shaken(body, body.clock)
        if body.alive and event.knocked_out:
            body = body.with_(
                conscious=False, next_awake_test=None, rest_since=body.rest_since or body.clock
            )
        return state.with_body(body)
    if isinstance(event, E.CircumstancesSet):
        resting = event.activity != "active"
        body = body.with_(
            activity=event.activity,
            environment=event.environment,
            rest=event.rest,
            care=event.care,
            rest_since=(body.rest_since or body.clock) if resting else None,
            rested=body.rested if resting else False,
        )
        if event.recovery and event.recovery != body.recovery:  # a new period from now
            body = body.with_(recovery=event.recovery, recovery_from=body.clock)
        return state.with_body(body)
    if isinstance(event, E.FirstAidGiven):
        parts = dict(event.applied)
        treated = {*event.treated, *parts}
        wounds = tuple(
            w.with_(aid=w.aid + parts.get(w.id, 0), first_aid=True) if w.id in treated else w
            for w in body.wounds
        )
        return state.with_body(body.with_(wounds=wounds))
    if isinstance(event, E.Transfused):
        wounds = tuple(w.with_(blood_loss=0) for w in body.wounds)
        return state.with_body(body.with_(wounds=wounds))
    if isinstance(event, E.BleedTick):
        wounds = tuple(
            w.with_(converted=True, blood_loss=event.blood_loss, last_tick=event.at)
            if w.id == event.wound
            else w
            for w in body.wounds
        )
        body = traumatised(body.with_(wounds=wounds), event.organ_trauma, event.survival, event.at)
        return state.with_body(body)
    if isinstance(event, E.LimbMended):
        wounds = tuple(w.with_(healed=True) if w.id == event.wound else w for w in body.wounds)
        limbs = tuple(
            (limb, event.limb_state if limb == event.area else now) for limb, now in body.limbs
        )
        return state.with_body(body.with_(wounds=wounds, limbs=limbs))
    if isinstance(event, E.Rested):
        return state.with_body(body.with_(rested=True))
    if isinstance(event, E.AwakeTest):
        ok = event.test[3]
        body = body.with_(
            conscious=ok,
            next_awake_test=event.at + F.AWAKE_TEST_EVERY if ok else None,
            rest_since=body.rest_since if ok else (body.rest_since or event.at),
        )
        return state.with_body(body)
    if isinstance(event, E.HealingTest):
        body = body.with_(next_healing=None)
        body = traumatised(body, event.organ_trauma, event.survival, event.at, tested=True)
        if body.burn_trauma > body.organ_trauma:  # the rest healed first: then the burns
            body = body.with_(burn_trauma=body.organ_trauma)
        return state.with_body(body)
    if isinstance(event, E.PsychTraumaGained):
        changes = {"psych_trauma": event.psych_trauma, "vent_until": event.vent_until}
        if event.permanent:
            changes["permanent_psych_trauma"] = body.permanent_psych_trauma + event.amount
        if body.ventable <= 0:  # recovery starts counting when there is something to lose
            changes["recovery_from"] = event.at
        if event.test is not None and not event.test[3]:
            changes.update(broken=True, broken_at=event.at)
        return state.with_body(body.with_(**changes))
    if isinstance(event, E.DisorderTaken):
        taken = event.disorder
        if event.develops:
            disorders = tuple(taken if d.id == taken.id else d for d in body.disorders)
        else:
            disorders = (*body.disorders, taken)
        vent_until = None if taken.kind == "temporary" else body.vent_until
        return state.with_body(
            body.with_(psych_trauma=event.psych_trauma, disorders=disorders, vent_until=vent_until)
        )
    if isinstance(event, E.DisorderCured):
        disorders = tuple(
            d.with_(cured_at=event.at) if d.id == event.disorder else d for d in body.disorders
        )
        return state.with_body(body.with_(disorders=disorders))
    if isinstance(event, E.PsychRecovered):
        return state.with_body(body.with_(psych_trauma=event.psych_trauma, recovery_from=event.at))
    if isinstance(event, E.Woke):
        body = body.with_(conscious=True)
        if body.activity == "active":  # back to what it was doing: no rest, shock back
            body = body.with_(rest_since=None, rested=False)
        return state.with_body(schedule(body, event.at))
    raise RulesError(f"not a chronicle event: {type(event).__name__}")


def traumatised(body: Body, organ_trauma: int, rolled, at, tested: bool = False) -> Body:
    """The body with its organtrauma at `organ_trauma` (after a survival roll, if any). A
    rise to 3+ is fresh shock: the lasting degree is in effect until rested (p. 14)."""
    rose = organ_trauma > body.organ_trauma and organ_trauma >= F.LASTING_SHOCK
    body = body.with_(organ_trauma=max(0, organ_trauma))
    if rolled is not None and not rolled[3]:
        return body.with_(
            alive=False, conscious=False, died_at=at, next_healing=None, next_awake_test=None
        )
    if rose:
        body = shaken(body, at)
    return schedule(body, at, tested)


def shaken(body: Body, at) -> Body:
    """Fresh shock (a wound, a broken limb, organtrauma rising to 3+): the lasting
    nervchock is in effect "tills personen fått vila ut" (p. 14), the rest counted from
    `at` for a resting body (an active one starts counting when it rests)."""
    return body.with_(rested=False, rest_since=at if body.rest_since is not None else None)


def schedule(body: Body, at, tested: bool = False) -> Body:
    """The next healing test and test against unconsciousness, after what happened at
    `at` (p. 14): weekly on the night to Monday, hourly while unstable; none without
    organtrauma. `tested`: a healing test just happened (the next one follows it)."""
    trauma = body.organ_trauma
    if trauma <= 0:
        body = body.with_(next_healing=None, hourly=False)
    elif body.unstable:
        if tested or not body.hourly or body.next_healing is None:
            body = body.with_(next_healing=at + F.UNSTABLE_TEST_EVERY, hourly=True)
    elif tested or body.hourly or body.next_healing is None:
        body = body.with_(next_healing=F.next_monday_night(at), hourly=False)
    if trauma >= F.AWAKE_TESTS and body.conscious:
        if body.next_awake_test is None:
            body = body.with_(next_awake_test=at + F.AWAKE_TEST_EVERY)
    else:
        body = body.with_(next_awake_test=None)
    return body
