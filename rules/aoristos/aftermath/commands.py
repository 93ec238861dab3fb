"""What the GM (or the site, for a fight's wounds) asks of the chronicle, parsed strictly
from JSON-like data: a wrong type or a missing field is a RulesError, never a crash.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from rules.aoristos.aftermath import figures as F
from rules.aoristos.aftermath.state import ACTIVITIES, DISORDER_KINDS, RECOVERIES
from rules.aoristos.combat import figures as combat_figures
from rules.aoristos.combat.gear import AREAS, LIMBS
from rules.aoristos.dice import Hand, parse_hand
from rules.errors import RulesError

# p. 6: a round is two seconds.
UNITS = {
    "rounds": timedelta(seconds=2),
    "minutes": timedelta(minutes=1),
    "hours": timedelta(hours=1),
    "days": timedelta(days=1),
    "weeks": timedelta(weeks=1),
}
LONGEST = timedelta(weeks=52)  # one command's span at most (the GM advances again)


@dataclass(frozen=True)
class AddBody:
    id: str
    name: str
    character_id: int | None = None
    willpower: int = 1
    shock_tolerance: int | None = None  # Chocktolerans; None: VIL + 3


@dataclass(frozen=True)
class AddWound:
    """A wound dealt `ago` before the body's clock (a fight's wounds: their rounds), with
    what it did at once: its bleed rate, the organtrauma it added and the limb's state.
    `unconscious`: the fight's word on the body after its wounds (None: the chronicle
    tests bleed rate + nervchock against Chocktolerans itself, p. 13)."""

    id: str
    area: str | None
    damage: int
    bleed_rate: int
    organ_trauma: int = 0
    limb_state: str | None = None
    source: str = ""
    origin: str = ""
    ago: timedelta = timedelta(0)
    survival: tuple | None = None  # rolled already (a fight's), else rolled here
    unconscious: bool | None = None
    burn: bool = False  # a burn (fire, heat): care does not help its healing (p. 14)


@dataclass(frozen=True)
class SetCircumstances:
    ids: tuple[str, ...]
    activity: str | None = None
    environment: str | None = None
    rest: str | None = None
    care: str | None = None
    recovery: str | None = None


@dataclass(frozen=True)
class Advance:
    """Move the clock by `by` or to `to`, for `ids` (empty: everyone)."""

    by: timedelta | None = None
    to: datetime | None = None
    ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class FirstAid:
    id: str
    levels: tuple[int, ...]
    equipment: tuple[str, ...] = ()
    judged: int = 0


@dataclass(frozen=True)
class Transfusion:
    id: str


@dataclass(frozen=True)
class Wake:
    id: str


# p. 15: where a gain of psyktrauma comes from. Only a shocking event opens the chance
# of a temporary disorder; 12+ hours of training a day (p. 3) and lasting strain do not.
GAIN_SOURCES = ("event", "training", "other")


@dataclass(frozen=True)
class GainPsychTrauma:
    """The GM gives psyktrauma as a hand ("1B2F": the lowest dice count, rulings § Dice
    hands) or as a number; `permanent`: inborn, numbing or a genre's lesson (p. 15)."""

    id: str
    hand: Hand | None = None
    amount: int | None = None
    source: str = "event"
    permanent: bool = False
    reason: str = ""


@dataclass(frozen=True)
class TakeDisorder:
    """The player vents psyktrauma with a disorder (p. 15); `develops`: a lasting one
    of theirs becomes the diagnosable variant (10 more)."""

    id: str
    kind: str
    description: str
    effects: str = ""
    develops: str | None = None


@dataclass(frozen=True)
class CureDisorder:
    id: str
    disorder: str


COMMAND_TYPES = {
    cls.__name__: cls
    for cls in (
        AddBody,
        AddWound,
        SetCircumstances,
        Advance,
        FirstAid,
        Transfusion,
        Wake,
        GainPsychTrauma,
        TakeDisorder,
        CureDisorder,
    )
}


def _int(data: dict, key: str, default: Any = ..., low: int = 0, high: int = 999) -> Any:
    value = data.get(key, default)
    if value is ...:
        raise RulesError(f"{key} is missing", code="bad_field")
    if value is None and default is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RulesError(f"{key} must be a whole number from {low} to {high}", code="bad_field")
    return value


def _text(data: dict, key: str, default: Any = ..., choices=None, longest: int = 100) -> Any:
    value = data.get(key, default)
    if value is ...:
        raise RulesError(f"{key} is missing", code="bad_field")
    if value is None and default is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > longest:
        raise RulesError(f"{key} must be a text of at most {longest} characters", code="bad_field")
    if choices is not None and value not in choices:
        raise RulesError(f"{key} must be one of {', '.join(choices)}", code="bad_field")
    return value


def _ids(data: dict, key: str = "ids") -> tuple[str, ...]:
    value = data.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise RulesError(f"{key} must be a list of body ids", code="bad_field")
    return tuple(dict.fromkeys(value))


def _survival(value: Any) -> tuple | None:
    """A survival roll the fight made already: [dice, result, organtrauma, alive]."""
    if value is None:
        return None
    try:
        dice, result, trauma, alive = value
        dice = tuple(dice)
    except (TypeError, ValueError):
        dice = None
    if (
        dice is None
        or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in (result, trauma))
        or not isinstance(alive, bool)
    ):
        raise RulesError("survival: [dice, result, organtrauma, alive]", code="bad_field")
    return (dice, result, trauma, alive)


def _optional_text(data: dict, key: str, longest: int) -> str:
    value = data.get(key) or ""
    if not isinstance(value, str) or len(value) > longest:
        raise RulesError(f"{key} must be a text of at most {longest} characters", code="bad_field")
    return value.strip()


def _flag(data: dict, key: str) -> bool:
    value = data.get(key, False)
    if isinstance(value, str):  # a form's checkbox
        value = {"on": True, "true": True, "1": True, "": False, "false": False, "0": False}.get(
            value.lower(), value
        )
    if not isinstance(value, bool):
        raise RulesError(f"{key} must be true or false", code="bad_field")
    return value


def _gain(data: dict) -> GainPsychTrauma:
    text = data.get("hand")
    hand = amount = None
    if isinstance(text, str) and text.strip():
        try:
            hand = parse_hand(text.strip())
        except RulesError as error:
            raise RulesError(f"hand: {error}", code="bad_field") from None
    elif data.get("amount") not in (None, ""):
        amount = data.get("amount")
        # ASCII digits only: "²".isdigit() is true, and int("²") fails (found by
        # test_any_command_is_done_or_refused_never_a_crash).
        if isinstance(amount, str) and amount.strip().isascii() and amount.strip().isdigit():
            amount = int(amount)
        amount = _int({"amount": amount}, "amount", ..., 1, 99)
    else:
        raise RulesError("give the psyktrauma as a hand (e.g. 1B2F) or a number", code="bad_field")
    return GainPsychTrauma(
        id=_text(data, "id", longest=30),
        hand=hand,
        amount=amount,
        source=_text(data, "source", "event", choices=GAIN_SOURCES),
        permanent=_flag(data, "permanent"),
        reason=_optional_text(data, "reason", 200),
    )


def parse_command(data: Any):
    if not isinstance(data, dict):
        raise RulesError("a command is an object with a type", code="bad_field")
    kind = data.get("type")
    if kind == "add_body":
        return AddBody(
            id=_text(data, "id", longest=30),
            name=_text(data, "name"),
            character_id=_int(data, "character_id", None, 1, 2**62),
            willpower=_int(data, "willpower", 1, 0, 30),
            shock_tolerance=_int(data, "shock_tolerance", None, 0, 99),
        )
    if kind == "add_wound":
        area = data.get("area")
        if area is not None and area not in AREAS:
            raise RulesError(f"area must be one of {', '.join(AREAS)}", code="bad_field")
        damage = _int(data, "damage", 0, 0, 99)
        # A wound the GM gives by its damage (a fall, a fire): what it adds follows p. 13-14.
        added = combat_figures.wound(damage, area)
        limb_state = None
        if area in LIMBS:
            limb_state = combat_figures.limb_state_after("ok", damage)
        return AddWound(
            id=_text(data, "id", longest=30),
            area=area,
            damage=damage,
            bleed_rate=_int(data, "bleed_rate", added["bleed_rate"], 0, 99),
            organ_trauma=_int(data, "organ_trauma", added["organ_trauma"], 0, 99),
            limb_state=_text(data, "limb_state", limb_state, choices=("ok", "broken", "destroyed")),
            source=data.get("source", "")[:100] if isinstance(data.get("source"), str) else "",
            origin=_text(data, "origin", "", longest=40) if data.get("origin") else "",
            ago=timedelta(seconds=_int(data, "ago_seconds", 0, 0, 3600)),
            survival=_survival(data.get("survival")),
            unconscious=None
            if data.get("unconscious") in (None, "")
            else _flag(data, "unconscious"),
            burn=False if data.get("burn") in (None, "") else _flag(data, "burn"),
        )
    if kind == "set_circumstances":
        return SetCircumstances(
            ids=_ids(data),
            activity=_text(data, "activity", None, choices=ACTIVITIES),
            environment=_text(data, "environment", None, choices=tuple(F.ENVIRONMENT)),
            rest=_text(data, "rest", None, choices=tuple(F.REST)),
            care=_text(data, "care", None, choices=tuple(F.CARE)),
            recovery=_text(data, "recovery", None, choices=RECOVERIES),
        )
    if kind == "advance":
        to = data.get("to", data.get("until"))  # "until": the page's form (its "to" is undo's)
        if to is not None:
            try:
                to = datetime.fromisoformat(to) if isinstance(to, str) else None
            except ValueError:
                to = None
            if to is None:
                raise RulesError(
                    "to must be a date and time, e.g. 2026-03-02T08:00", code="bad_field"
                )
            to = to.replace(tzinfo=None, microsecond=0)
            if not 1 <= to.year <= 9000:
                raise RulesError("to: a year from 1 to 9000", code="bad_field")
            by = None
        else:
            unit = _text(data, "unit", "minutes", choices=tuple(UNITS))
            amount = _int(data, "amount", ..., 1, 100_000)
            by = amount * UNITS[unit]
            if by > LONGEST:
                raise RulesError("advance at most 52 weeks at a time", code="bad_field")
        return Advance(by=by, to=to, ids=_ids(data))
    if kind == "first_aid":
        levels = data.get("levels")
        if isinstance(levels, int) and not isinstance(levels, bool):
            levels = [levels]
        if not isinstance(levels, list) or not 1 <= len(levels) <= 2:
            raise RulesError("levels: the Livräddning of one or two helpers", code="bad_field")
        for level in levels:
            if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 30:
                raise RulesError(
                    "a Livräddning level is a whole number from 0 to 30", code="bad_field"
                )
        equipment = data.get("equipment", [])
        if isinstance(equipment, str):
            equipment = [equipment]
        if not isinstance(equipment, list) or any(e not in F.AID_EQUIPMENT for e in equipment):
            raise RulesError(f"equipment: any of {', '.join(F.AID_EQUIPMENT)}", code="bad_field")
        return FirstAid(
            id=_text(data, "id", longest=30),
            levels=tuple(levels),
            equipment=tuple(dict.fromkeys(equipment)),
            judged=_int(data, "judged", 0, -5, 5),
        )
    if kind == "transfusion":
        return Transfusion(id=_text(data, "id", longest=30))
    if kind == "wake":
        return Wake(id=_text(data, "id", longest=30))
    if kind == "gain_psych_trauma":
        return _gain(data)
    if kind == "take_disorder":
        develops = _text(data, "develops", None, longest=30) if data.get("develops") else None
        return TakeDisorder(
            id=_text(data, "id", longest=30),
            kind=_text(data, "kind", choices=DISORDER_KINDS),
            # A lasting disorder that develops keeps its words unless new ones are given.
            description=_optional_text(data, "description", 300)
            if develops
            else _text(data, "description", longest=300),
            effects=_optional_text(data, "effects", 300),
            develops=develops,
        )
    if kind == "cure_disorder":
        return CureDisorder(
            id=_text(data, "id", longest=30), disorder=_text(data, "disorder", longest=30)
        )
    raise RulesError(f"unknown command type {kind!r}", code="bad_type")
