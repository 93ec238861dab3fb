"""What pages and the API show of a chronicle: plain data, and log lines per record.

Everyone at the table sees the characters' bodies (the sheet shows them to every member).
A body of the GM's that is no character (no character_id) shows players its name and
whether it is alive and conscious only: no wounds, no numbers, in the state and in the log
lines alike. The log lines name what happened, with its figures, for the template
`_line.html` to word.
"""

from rules.aoristos.aftermath import events as E
from rules.aoristos.aftermath import figures as F
from rules.aoristos.aftermath.engine import next_recovery
from rules.aoristos.aftermath.state import Body, Chronicle, Disorder, Wound
from rules.engine import Viewer


def _time(at) -> str | None:
    return at.isoformat(timespec="minutes") if at is not None else None


def wound_view(wound: Wound, body: Body) -> dict:
    return {
        "id": wound.id,
        "dealt": _time(wound.dealt),
        "area": wound.area,
        "damage": wound.damage,
        "bleed_rate": wound.bleed_rate,
        "aid": wound.aid,
        "bleeding": wound.bleeding,
        "converted": wound.converted,
        "blood_loss": wound.blood_loss,
        "limb_state": wound.limb_state,
        "lasting_shock": wound.lasting_limb_shock,
        "next_tick": _time(wound.next_tick()),
        "source": wound.source,
        "burn": wound.burn,
        "first_aid": wound.first_aid,
        "first_aid_until": _time(wound.dealt + F.CONVERSION)
        if wound.bleeding and not wound.first_aid and body.clock < wound.dealt + F.CONVERSION
        else None,
    }


def disorder_view(disorder: Disorder, body: Body) -> dict:
    return {
        "id": disorder.id,
        "kind": disorder.kind,
        "description": disorder.description,
        "effects": disorder.effects,
        "removed": disorder.removed,
        "at": _time(disorder.at),
        "until": _time(disorder.until),
        "cured_at": _time(disorder.cured_at),
        "active": disorder.active(body.clock),
        "curable": disorder.kind != "temporary"
        and disorder.cured_at is None
        and body.psych_trauma < F.CURABLE_BELOW,
    }


def hidden_body_view(body: Body) -> dict:
    """An NPC body as players see it: its name and state, nothing else."""
    return {
        "id": body.id,
        "name": body.name,
        "character_id": None,
        "hidden": True,
        "alive": body.alive,
        "conscious": body.conscious,
    }


def body_view(body: Body) -> dict:
    return {
        "id": body.id,
        "name": body.name,
        "character_id": body.character_id,
        "hidden": False,
        "willpower": body.willpower,
        "shock_tolerance": body.tolerance,
        "clock": _time(body.clock),
        "alive": body.alive,
        "conscious": body.conscious,
        "died_at": _time(body.died_at),
        "activity": body.activity,
        "environment": body.environment,
        "rest": body.rest,
        "care": body.care,
        "limbs": [{"area": area, "state": state} for area, state in body.limbs],
        "wounds": [wound_view(w, body) for w in body.wounds],
        "bleed_rate": body.bleed_rate,
        "blood_loss": body.blood_loss,
        "organ_trauma": body.organ_trauma,
        "burn_trauma": body.burn_trauma,  # p. 14: what care does not help
        "threshold": threshold_of(body.organ_trauma),
        "unstable": body.unstable,
        "nerve_shock": body.nerve_shock,
        "lasting_nerve_shock": body.lasting_nerve_shock,
        "lasting_shock_sources": list(body.lasting_shock_sources),
        "rested": body.rested,
        "next_healing": _time(body.next_healing),
        "hourly": body.hourly,
        "next_awake_test": _time(body.next_awake_test),
        "psych_trauma": body.psych_trauma,
        "permanent_psych_trauma": body.permanent_psych_trauma,
        "psychotic": body.psychotic,
        "broken": body.broken,
        "broken_at": _time(body.broken_at),
        "disorders": [disorder_view(d, body) for d in body.disorders],
        "lasting_disorders": [
            d.id for d in body.disorders if d.kind == "lasting" and d.cured_at is None
        ],
        "vent_until": _time(body.vent_until)
        if body.vent_until and body.clock < body.vent_until and body.ventable
        else None,
        "recovery": body.recovery,
        "next_recovery": _time(next_recovery(body)),
    }


def threshold_of(organ_trauma: int) -> str | None:
    """The organtrauma effect in force (p. 14): "lasting_shock" (3+), "unstable" (5+),
    "awake_tests" (7+), or None."""
    if organ_trauma >= F.AWAKE_TESTS:
        return "awake_tests"
    if organ_trauma >= F.UNSTABLE:
        return "unstable"
    if organ_trauma >= F.LASTING_SHOCK:
        return "lasting_shock"
    return None


def view(state: Chronicle, viewer: Viewer) -> dict:
    return {
        "clock": _time(state.clock),
        "weekday": state.clock.isoweekday(),
        "rest_hours": state.rest_hours,
        "bodies": [
            body_view(b) if _is_gm(viewer) or not b.npc else hidden_body_view(b)
            for b in state.bodies
        ],
    }


def _is_gm(viewer: Viewer | None) -> bool:
    return viewer is not None and viewer.is_gm


# A week of an unstable body is 168 hourly tests: the log shows the first few of each kind
# per body and sums up the rest in one line.
LINES_PER_KIND = 4
SUMMED = (E.HealingTest, E.AwakeTest, E.BleedTick)


def describe(state: Chronicle, events, viewer: Viewer) -> list[dict]:
    """One line per event worth a line, with its figures (the template words it)."""
    names = {b.id: b.name for b in state.bodies}
    hidden = set() if _is_gm(viewer) else {b.id for b in state.bodies if b.npc}
    lines = []
    seen: dict[tuple, int] = {}
    rest: dict[tuple, dict] = {}
    for event in events:
        if isinstance(event, E.BodyAdded):
            names[event.body.id] = event.body.name
            if not _is_gm(viewer) and event.body.npc:
                hidden.add(event.body.id)
            lines.append({"kind": "BodyAdded", "who": event.body.name})
            continue
        who = names.get(getattr(event, "id", None), "")
        if getattr(event, "id", None) in hidden:
            shown = npc_line(event, who)
            if shown is not None:
                lines.append(shown)
            continue
        if isinstance(event, SUMMED):
            key = (event.id, type(event).__name__)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > LINES_PER_KIND:
                summed = rest.setdefault(
                    key,
                    {
                        "kind": "More",
                        "who": who,
                        "of": key[1],
                        "count": 0,
                        "healed": 0,
                        "harmed": 0,
                        "failed": 0,
                        "last": None,
                    },
                )
                summed["count"] += 1
                summed["last"] = _time(event.at)
                summed["healed"] += bool(getattr(event, "healed", False))
                summed["harmed"] += bool(getattr(event, "harmed", False))
                if isinstance(event, E.AwakeTest) and not event.test[3]:
                    summed["failed"] += 1
                continue
        line = {"kind": type(event).__name__, "who": who}
        if isinstance(event, E.ClockMoved):
            line.update(to=_time(event.to), count=len(event.ids))
        elif isinstance(event, E.ClockSet):
            line.update(kind="ClockMoved", to=_time(event.to), count=len(state.bodies))
        elif isinstance(event, E.WoundAdded):
            w = event.wound
            line.update(
                at=_time(w.dealt),
                area=w.area,
                damage=w.damage,
                bleed_rate=w.bleed_rate,
                limb_state=w.limb_state,
                organ_trauma=event.organ_trauma,
                survival=_survival(event.survival),
                source=w.source,
                shock=list(event.shock) if event.shock else None,
                knocked_out=event.knocked_out,
            )
        elif isinstance(event, E.CircumstancesSet):
            line.update(
                activity=event.activity,
                environment=event.environment,
                rest=event.rest,
                care=event.care,
            )
        elif isinstance(event, E.FirstAidGiven):
            line.update(
                at=_time(event.at),
                levels=list(event.levels),
                equipment=list(event.equipment),
                judged=event.judged,
                reduction=event.reduction,
                applied=sum(part for _w, part in event.applied),
            )
        elif isinstance(event, E.Transfused):
            line.update(at=_time(event.at), removed=event.removed)
        elif isinstance(event, E.BleedTick):
            line.update(
                at=_time(event.at),
                converted=event.converted,
                blood_loss=event.blood_loss,
                fell=event.fell,
                organ_trauma=event.organ_trauma,
                survival=_survival(event.survival),
            )
        elif isinstance(event, E.HealingTest):
            line.update(
                at=_time(event.at),
                hourly=event.hourly,
                dice=list(event.test[0]),
                result=event.result,
                threshold=event.test[2],
                healed=event.healed,
                harmed=event.harmed,
                organ_trauma=event.organ_trauma,
                survival=_survival(event.survival),
            )
        elif isinstance(event, E.AwakeTest):
            dice, total, threshold, ok = event.test
            line.update(
                at=_time(event.at), dice=list(dice), total=total, threshold=threshold, ok=ok
            )
        elif isinstance(event, E.LimbMended):
            line.update(at=_time(event.at), area=event.area, limb_state=event.limb_state)
        elif isinstance(event, E.PsychTraumaGained):
            line.update(
                at=_time(event.at),
                hand=event.hand,
                dice=list(event.dice),
                amount=event.amount,
                psych_trauma=event.psych_trauma,
                source=event.source,
                permanent=event.permanent,
                reason=event.reason,
                test=_test(event.test),
                vent_until=_time(event.vent_until),
            )
        elif isinstance(event, E.DisorderTaken):
            d = event.disorder
            line.update(
                at=_time(d.at),
                disorder_kind=d.kind,
                description=d.description,
                effects=d.effects,
                removed=event.removed,
                psych_trauma=event.psych_trauma,
                develops=bool(event.develops),
            )
        elif isinstance(event, E.DisorderCured):
            body = state.body(event.id)
            found = body.disorder(event.disorder) if body else None
            line.update(at=_time(event.at), description=found.description if found else "")
        elif isinstance(event, E.PsychRecovered):
            line.update(
                at=_time(event.at),
                removed=event.removed,
                psych_trauma=event.psych_trauma,
                recovery=event.recovery,
            )
        elif isinstance(event, (E.Rested, E.Woke)):
            line.update(at=_time(event.at))
        if isinstance(event, E.ClockMoved):
            lines.extend(rest.values())  # the sums, before the clock's line
            rest = {}
        lines.append(line)
    return [*lines, *rest.values()]


def npc_line(event, who: str) -> dict | None:
    """What players learn of an event of an NPC body: that it died, fell unconscious or
    came to; nothing of the rest (its wounds, its numbers, its care)."""
    at = getattr(event, "at", None)
    died = getattr(event, "survival", None) is not None and not event.survival[3]
    if isinstance(event, E.WoundAdded):
        at = event.wound.dealt
        state = "dead" if died else "unconscious" if event.knocked_out else None
    elif isinstance(event, (E.BleedTick, E.HealingTest)):
        state = "dead" if died else None
    elif isinstance(event, E.AwakeTest):
        state = None if event.test[3] else "unconscious"
    elif isinstance(event, E.Woke):
        state = "conscious"
    else:
        state = None
    if state is None:
        return None
    return {"kind": "NpcState", "who": who, "at": _time(at), "state": state}


def _test(test) -> dict | None:
    if test is None:
        return None
    dice, total, threshold, ok = test
    return {"dice": list(dice), "total": total, "threshold": threshold, "ok": ok}


def _survival(rolled) -> dict | None:
    if rolled is None:
        return None
    dice, result, trauma, alive = rolled
    return {"dice": list(dice), "result": result, "organ_trauma": trauma, "alive": alive}
