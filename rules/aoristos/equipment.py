"""Aoristos starter equipment: weapons, armour and shields (p. 5, 7-13), plus their JSON form.

The rule text gives almost no item statistics; it names items in its examples and gives
rules for kinds of items. So every entry says where each of its values comes from, in
``sources``: a tuple of ``(field name, source)`` pairs where the source is

* ``"s. N"``: page N of aoristos-grundregler.txt gives that value for that kind of item
  (the sling's +5 strength is Etka's sling on p. 12; a kpist is a short firearm with a
  rifled barrel on p. 10; the spear thrower's torso armour 5 is on p. 12), or
* ``"house"``: our own default, shown to the GM as a house figure and editable per
  campaign (most strength values, UL/OL numbers, magazine sizes and FP).

Every field an entry sets away from the dataclass default has a source. A source may also
name a field left at its default when the text states the value for the item, e.g.
``("reload", "s. 7")`` for a magazine firearm using the default OL 5, or
``("laser_sight", "s. 8")`` for Levi's flintlock ("inget lasersikte"). ``name`` is cited
with the page where the text names the item.

Readings of the text made here:

* Unarmed attacks and their aids (knuckledusters, hard boots, claws) are not real weapons
  and use Slagsmål (p. 8, 9); everything held to strike with, bar stools and rifle butts
  included, is a real melee weapon, and every ranged weapon is real (p. 8).
* Melee and thrown attacks add FYS to strength (``contact`` / ``thrown``, p. 12); a sling
  is neither (p. 12). Thrown weapons are in the "Kastvapen" range category (p. 10).
* Short firearms are pistols and shorter; everything longer is long, crossbows included
  (p. 10). Crossbows use Skjutvapen (p. 3); the heavy crossbow and long firearms halve the
  range malus, the light crossbow, sling, bow and smoothbore short firearms use the plain
  formula (p. 10). Modern firearms except shotguns have rifled barrels (p. 10); the
  flintlock is not modern, so it is read as smoothbore.
* Weapons without a magazine whose loading is part of UL (bow, sling, p. 7), and thrown
  weapons (the next one is simply drawn, p. 7), get OL 0; magazine firearms keep the
  default OL 5 (p. 7), belt-fed ones OL 10 (p. 11).
* Fully automatic weapons get a ``max_shots`` of about twice the random element of their
  auto value (p. 11, with N one die, rulings.md): ``auto+2N`` -> max 14.
* Shields are protective weapons (p. 8), not armour: they carry no area values and never
  count toward protection or Totalrustning.

GM-added items are stored per campaign as plain JSON dicts: :func:`weapon_to_dict` /
:func:`weapon_from_dict` and :func:`armour_to_dict` / :func:`armour_from_dict`. The
``from_dict`` functions validate user input and raise only :class:`~rules.RulesError`.
"""

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from typing import Any, NoReturn

from rules.aoristos.combat.gear import (
    AREAS,
    RANGE_CATEGORIES,
    SKILLS_FOR_ATTACKS,
    Armour,
    Weapon,
    parse_fire_modes,
)
from rules.errors import RulesError

__all__ = [
    "ARMOUR",
    "HOUSE",
    "MAX_VALUE",
    "WEAPONS",
    "armour_from_dict",
    "armour_to_dict",
    "is_source",
    "protection",
    "total_armour",
    "weapon_from_dict",
    "weapon_to_dict",
]

HOUSE = "house"

# The largest number (strength, KP cost, magazine size, FP, ...) an item may carry; keeps
# GM input sane. Auto fire modes may add at most MAX_RANDOM_DICE dice.
MAX_VALUE = 9999
MAX_RANDOM_DICE = 99
MAX_NAME_LENGTH = 100
MAX_FIRE_MODES_LENGTH = 60

_KEY_RE = re.compile(r"[a-z][a-z0-9_]{0,63}")
_SOURCE_RE = re.compile(r"s\. [1-9][0-9]{0,2}|house")
_FIRE_MODES_RE = re.compile(r"[0-9A-Za-z+/ ]+")


def is_source(text: object) -> bool:
    """True for a valid source: ``"s. N"`` (a page of the rule text) or ``"house"``."""
    return isinstance(text, str) and _SOURCE_RE.fullmatch(text) is not None


# --------------------------------------------------------------------------- validation


def _show(value: object) -> str:
    """A short, safe repr of user input for an error message (never raises)."""
    try:
        text = repr(value)
    except Exception:  # e.g. a huge int or a very deep list
        return f"a value of type {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


class _Checker:
    """Validates one JSON dict field by field; every problem is a RulesError."""

    def __init__(self, kind: str, data: object, spec: Mapping[str, Callable]) -> None:
        self.kind = kind
        if not isinstance(data, Mapping):
            raise RulesError(
                f"a {kind} must be a JSON object, got {type(data).__name__}",
                code=f"invalid_{kind}",
            )
        key = data.get("key")
        self.label = f"{kind} {key!r}" if isinstance(key, str) and len(key) <= 64 else kind
        unknown = sorted(_show(k) for k in data if not isinstance(k, str) or k not in spec)
        if unknown:
            self.fail(None, f"unknown field(s) {', '.join(unknown)}")
        self.data = data
        self.spec = spec

    def fail(self, name: str | None, message: str) -> NoReturn:
        where = f"{self.label}: " if name is None else f"{self.label}: field {name!r} "
        raise RulesError(where + message, code=f"invalid_{self.kind}", field=name)

    def values(self, required: Iterable[str]) -> dict[str, Any]:
        for name in required:
            if name not in self.data:
                self.fail(name, "is required")
        return {
            name: check(self, name, self.data[name])
            for name, check in self.spec.items()
            if name in self.data
        }


def _key(c: _Checker, name: str, value: object) -> str:
    if not isinstance(value, str) or not _KEY_RE.fullmatch(value):
        c.fail(
            name,
            "must be snake_case: a lower-case letter, then up to 63 lower-case "
            f"letters, digits or underscores; got {_show(value)}",
        )
    return value


def _name(c: _Checker, name: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME_LENGTH:
        c.fail(name, f"must be a non-blank text of at most {MAX_NAME_LENGTH} characters")
    return value


def _bool(c: _Checker, name: str, value: object) -> bool:
    if not isinstance(value, bool):
        c.fail(name, f"must be true or false, got {_show(value)}")
    return value


def _int(minimum: int, optional: bool = False) -> Callable:
    def check(c: _Checker, name: str, value: object) -> int | None:
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            c.fail(name, f"must be a whole number, got {_show(value)}")
        if not minimum <= value <= MAX_VALUE:
            c.fail(name, f"must be between {minimum} and {MAX_VALUE}, got {_show(value)}")
        return value

    return check


def _bulk(c: _Checker, name: str, value: object) -> float:
    """FP (p. 5): a number >= 0, fractions allowed."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        c.fail(name, f"must be a number of FP, got {_show(value)}")
    if not 0 <= value <= MAX_VALUE:  # also false for NaN
        c.fail(name, f"must be between 0 and {MAX_VALUE} FP, got {_show(value)}")
    return value


def _sequence(c: _Checker, name: str, value: object) -> list:
    if not isinstance(value, list | tuple):
        c.fail(name, f"must be a list, got {type(value).__name__}")
    return list(value)


def _choice(choices: tuple[str, ...], optional: bool = False) -> Callable:
    def check(c: _Checker, name: str, value: object) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, str) or value not in choices:
            c.fail(name, f"must be one of {', '.join(choices)}; got {_show(value)}")
        return value

    return check


def _hands(c: _Checker, name: str, value: object) -> tuple[int, ...]:
    """Grips (p. 5): a non-empty list of distinct 1 and 2."""
    items = _sequence(c, name, value)
    if not items or any(
        isinstance(h, bool) or not isinstance(h, int) or h not in (1, 2) for h in items
    ):
        c.fail(name, f"must list the grips as 1 and/or 2 hands, got {_show(value)}")
    if len(set(items)) != len(items):
        c.fail(name, f"lists a grip twice: {_show(value)}")
    return tuple(items)


def _range_categories(c: _Checker, name: str, value: object) -> tuple[str, ...]:
    """Categories of the p. 10 range table, each at most once."""
    items = _sequence(c, name, value)
    for item in items:
        if not isinstance(item, str) or item not in RANGE_CATEGORIES:
            c.fail(name, f"must hold only {', '.join(RANGE_CATEGORIES)}; got {_show(item)}")
    if len(set(items)) != len(items):
        c.fail(name, f"lists a category twice: {_show(value)}")
    return tuple(items)


def _fire_modes(c: _Checker, name: str, value: object) -> str:
    """Lägen (p. 11), e.g. ``1/3/auto+2N``; the weapon's max is its own field."""
    if (
        not isinstance(value, str)
        or len(value) > MAX_FIRE_MODES_LENGTH
        or not _FIRE_MODES_RE.fullmatch(value)
    ):
        c.fail(
            name,
            f"must be a text like '1/3/auto+2N' of at most {MAX_FIRE_MODES_LENGTH} "
            f"characters (digits, letters, '+', '/'), got {_show(value)}",
        )
    try:
        modes = parse_fire_modes(value)
    except RulesError as error:
        c.fail(name, f"is not a fire mode text: {error}")
    for mode in modes:
        if not 0 <= mode.shots <= MAX_VALUE:
            c.fail(name, f"fires between 0 and {MAX_VALUE} shots a mode, got {mode.text!r}")
        if not 0 <= mode.random_dice <= MAX_RANDOM_DICE:
            c.fail(name, f"adds between 0 and {MAX_RANDOM_DICE} dice in auto, got {mode.text!r}")
    return value


def _sources(field_names: frozenset[str]) -> Callable:
    def check(c: _Checker, name: str, value: object) -> tuple[tuple[str, str], ...]:
        pairs = []
        for item in _sequence(c, name, value):
            if not isinstance(item, list | tuple) or len(item) != 2:
                c.fail(name, f"must be a list of [field, source] pairs, got {_show(item)}")
            field_name, source = item
            if not isinstance(field_name, str) or field_name not in field_names:
                c.fail(name, f"names an unknown field {_show(field_name)}")
            if not is_source(source):
                c.fail(
                    name,
                    f"gives {_show(field_name)} the source {_show(source)}; a source is "
                    "'s. N' (a page of the rule text) or 'house'",
                )
            pairs.append((field_name, source))
        if len({f for f, _ in pairs}) != len(pairs):
            c.fail(name, "names a field twice")
        return tuple(pairs)

    return check


_WEAPON_FIELDS = frozenset(f.name for f in fields(Weapon))
_ARMOUR_FIELDS = frozenset(f.name for f in fields(Armour))

_WEAPON_SPEC: dict[str, Callable] = {
    "key": _key,
    "name": _name,
    "skill": _choice(SKILLS_FOR_ATTACKS),
    "real": _bool,
    "strength": _int(0),
    "hands": _hands,
    "windup": _int(0),
    "reload": _int(0, optional=True),
    "reload_each": _int(1, optional=True),
    "belt": _bool,
    "fire_modes": _fire_modes,
    "max_shots": _int(1, optional=True),
    "magazine": _int(1, optional=True),
    "chambered": _bool,
    "magazine_bulk": _bulk,
    "weapon_bulk": _bulk,
    "ranged": _bool,
    "firearm": _choice(("short", "long"), optional=True),
    "range_categories": _range_categories,
    "contact": _bool,
    "thrown": _bool,
    "bow_strength": _int(0, optional=True),
    "laser_sight": _bool,
    "scope": _bool,
    "explosive": _bool,
    "sources": _sources(_WEAPON_FIELDS - {"key", "sources"}),
}


def _check_weapon(c: _Checker, v: dict[str, Any]) -> None:
    """Combinations the rule text rules out."""
    ranged = v.get("ranged", False)
    if not ranged:
        for name in (
            "firearm",
            "range_categories",
            "thrown",
            "belt",
            "reload_each",
            "magazine",
            "max_shots",
            "chambered",
            "bow_strength",
        ):
            if v.get(name):
                c.fail(name, "applies only to ranged weapons (set 'ranged': true)")
    if ranged and v.get("contact"):
        c.fail("contact", "cannot be true for a ranged weapon: contact is melee (p. 12)")
    if ranged and not v.get("real", True):
        c.fail("real", "must be true for a ranged weapon: every ranged weapon is real (p. 8)")
    if v.get("belt") and v.get("magazine") is not None:
        c.fail("magazine", "cannot be given with a belt: MS is a number or 'belt' (p. 11)")
    if v.get("bow_strength") is not None and v.get("skill") != "bow":
        c.fail("bow_strength", "belongs to bows (skill 'bow', p. 7)")
    max_shots = v.get("max_shots")
    if max_shots is not None:
        most = max(mode.shots for mode in parse_fire_modes(v.get("fire_modes", "1")))
        if most > max_shots:
            c.fail("max_shots", f"{max_shots} is below a fire mode of {most} shots (p. 11)")


def _areas(c: _Checker, name: str, value: object) -> tuple[tuple[str, int], ...]:
    """Protection per hit area (p. 9, 12): a list of [area, value] pairs."""
    pairs = []
    for item in _sequence(c, name, value):
        if not isinstance(item, list | tuple) or len(item) != 2:
            c.fail(name, f"must be a list of [area, protection] pairs, got {_show(item)}")
        area, protection_value = item
        if not isinstance(area, str) or area not in AREAS:
            c.fail(name, f"names an unknown area {_show(area)}; areas are {', '.join(AREAS)}")
        pairs.append((area, _int(0)(c, f"{name}.{area}", protection_value)))
    if len({a for a, _ in pairs}) != len(pairs):
        c.fail(name, "names an area twice")
    return tuple(pairs)


_ARMOUR_SPEC: dict[str, Callable] = {
    "key": _key,
    "name": _name,
    "areas": _areas,
    "shield": _bool,
    "bulk": _bulk,
    "sources": _sources(_ARMOUR_FIELDS - {"key", "sources"}),
}


def _build(cls: type, c: _Checker, values: dict[str, Any]) -> Any:
    try:
        return cls(**values)
    except RulesError:
        raise
    except (TypeError, ValueError) as error:  # defensive: the checks above should catch all
        raise RulesError(f"{c.label}: {error}", code=f"invalid_{c.kind}") from None


# ------------------------------------------------------------------------- JSON dicts


def weapon_from_dict(data: object) -> Weapon:
    """A :class:`Weapon` from its JSON dict (as :func:`weapon_to_dict` writes it).

    ``key``, ``name`` and ``skill`` are required; every other field defaults as in
    :class:`Weapon`. Lists stand for tuples. Anything malformed (an unknown field, a wrong
    type, a negative number, a bad fire mode, a contradiction) raises RulesError.
    """
    c = _Checker("weapon", data, _WEAPON_SPEC)
    values = c.values(("key", "name", "skill"))
    _check_weapon(c, values)
    return _build(Weapon, c, values)


def weapon_to_dict(weapon: Weapon) -> dict[str, Any]:
    """Every field of ``weapon`` as plain JSON-able values (tuples become lists)."""
    return _to_dict(weapon)


def armour_from_dict(data: object) -> Armour:
    """An :class:`Armour` (armour or shield) from its JSON dict; ``key`` and ``name`` are
    required, ``areas`` is a list of ``[area, protection]`` pairs. Malformed input raises
    RulesError; a shield may carry no area values (a protective weapon, p. 8)."""
    c = _Checker("armour", data, _ARMOUR_SPEC)
    values = c.values(("key", "name"))
    if values.get("shield") and values.get("areas"):
        c.fail(
            "areas",
            "must be empty for a shield: a shield is a protective weapon, not armour (p. 8)",
        )
    return _build(Armour, c, values)


def armour_to_dict(armour: Armour) -> dict[str, Any]:
    """Every field of ``armour`` as plain JSON-able values (tuples become lists)."""
    return _to_dict(armour)


def _to_dict(item: Weapon | Armour) -> dict[str, Any]:
    def plain(value: Any) -> Any:
        return [plain(v) for v in value] if isinstance(value, tuple) else value

    return {f.name: plain(getattr(item, f.name)) for f in fields(item)}


# --------------------------------------------------------------------------- protection


def _worn_armour(pieces: Iterable[Armour]) -> list[Armour]:
    try:
        items = list(pieces)
    except TypeError:
        raise RulesError(f"expected a list of armour pieces, got {_show(pieces)}") from None
    for piece in items:
        if not isinstance(piece, Armour):
            raise RulesError(f"not a piece of armour: {_show(piece)}")
    return [piece for piece in items if not piece.shield]


def protection(pieces: Iterable[Armour], area: str) -> int:
    """The summed protection of the worn ``pieces`` on one hit area (p. 12); shields give
    none (p. 8)."""
    if not isinstance(area, str) or area not in AREAS:
        raise RulesError(f"unknown area {_show(area)}; areas are {', '.join(AREAS)}")
    return sum(piece.protection(area) for piece in _worn_armour(pieces))


def total_armour(pieces: Iterable[Armour]) -> int:
    """Totalrustning (p. 12): every area's protection over the worn pieces, the torso
    counted three times, divided by 10 and rounded down. Shields do not count (p. 8)."""
    worn = _worn_armour(pieces)
    total = sum(
        value * (3 if area == "torso" else 1) for piece in worn for area, value in piece.areas
    )
    return total // 10


# ---------------------------------------------------------------------------- catalogue

_P3, _P7, _P8, _P9, _P10, _P11, _P12 = "s. 3", "s. 7", "s. 8", "s. 9", "s. 10", "s. 11", "s. 12"


def _weapon(key: str, name: str, skill: str, sources: dict[str, str], **values: Any) -> Weapon:
    data = {"key": key, "name": name, "skill": skill, **values, "sources": list(sources.items())}
    return weapon_from_dict(data)


def _armour(key: str, name: str, sources: dict[str, str], **values: Any) -> Armour:
    data = {"key": key, "name": name, **values, "sources": list(sources.items())}
    return armour_from_dict(data)


# Shared source sets. Skill: p. 3 lists what each skill covers (Skjutvapen "från armborst
# till nästan alla moderna handeldvapen"); Slagsmål for unarmed attacks is p. 9.
_MELEE = {"skill": _P3, "real": _P8, "contact": _P12}
_THROWN = {"skill": _P3, "ranged": _P10, "thrown": _P12, "range_categories": _P10, "reload": HOUSE}
_SHORT_GUN = {"skill": _P3, "ranged": _P10, "firearm": _P10, "range_categories": _P10}
_LONG_GUN = {"skill": _P3, "ranged": _P10, "firearm": _P10, "range_categories": _P10}

_WEAPON_LIST = (
    # Unarmed attacks and their aids: not real weapons, Slagsmål (p. 8, 9).
    _weapon(
        "unarmed",
        "Obeväpnad",
        "brawling",
        contact=True,
        real=False,
        sources={"skill": _P9, "real": _P8, "contact": _P12},
    ),
    _weapon(
        "brass_knuckles",
        "Knogjärn",
        "brawling",
        real=False,
        contact=True,
        strength=1,
        weapon_bulk=0.3,
        sources={
            "name": _P8,
            "skill": _P9,
            "real": _P8,
            "contact": _P12,
            "strength": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
    # Real melee weapons (p. 8): FYS adds to strength (p. 12).
    _weapon(
        "knife",
        "Kniv",
        "melee_weapons",
        contact=True,
        strength=1,
        weapon_bulk=0.5,
        sources={**_MELEE, "strength": HOUSE, "weapon_bulk": HOUSE},
    ),
    _weapon(
        "sword",
        "Svärd",
        "melee_weapons",
        contact=True,
        strength=3,
        weapon_bulk=2,
        sources={**_MELEE, "strength": HOUSE, "weapon_bulk": HOUSE},
    ),
    _weapon(
        "two_handed_sword",
        "Tvåhandssvärd",
        "melee_weapons",
        contact=True,
        strength=5,
        hands=(1, 2),
        weapon_bulk=4,
        sources={**_MELEE, "strength": HOUSE, "hands": HOUSE, "weapon_bulk": HOUSE},
    ),
    # Marx's trench spade (p. 9).
    _weapon(
        "trench_spade",
        "Skyttegravsspade",
        "melee_weapons",
        contact=True,
        strength=3,
        weapon_bulk=1.5,
        sources={"name": _P9, **_MELEE, "strength": HOUSE, "weapon_bulk": HOUSE},
    ),
    # Improvised, but "allt man håller i för att slå med" is a real weapon (p. 8).
    _weapon(
        "bar_stool",
        "Barstol",
        "melee_weapons",
        contact=True,
        strength=2,
        hands=(1, 2),
        weapon_bulk=4,
        sources={"name": _P8, **_MELEE, "strength": HOUSE, "hands": HOUSE, "weapon_bulk": HOUSE},
    ),
    _weapon(
        "rifle_butt",
        "Gevärskolv",
        "melee_weapons",
        contact=True,
        strength=2,
        hands=(2,),
        sources={"name": _P8, **_MELEE, "strength": HOUSE, "hands": HOUSE},
    ),
    # Thrown weapons: "Kastvapen" ×2 range malus (p. 10), FYS adds (p. 12), OL 0 (house:
    # the next one is drawn, p. 7).
    _weapon(
        "throwing_knife",
        "Kastkniv",
        "throwing",
        ranged=True,
        thrown=True,
        range_categories=("thrown",),
        strength=1,
        reload=0,
        weapon_bulk=0.5,
        sources={**_THROWN, "strength": HOUSE, "weapon_bulk": HOUSE},
    ),
    # The p. 10 example: a cobblestone is an improvised thrown weapon (×2 ×2).
    _weapon(
        "cobblestone",
        "Gatsten",
        "throwing",
        ranged=True,
        thrown=True,
        range_categories=("improvised", "thrown"),
        strength=1,
        reload=0,
        weapon_bulk=2,
        sources={"name": _P10, **_THROWN, "strength": HOUSE, "weapon_bulk": HOUSE},
    ),
    # UL is pulling the pin (p. 7); the numbers are ours. An explosion has no hit area
    # (p. 9).
    _weapon(
        "hand_grenade",
        "Handgranat",
        "throwing",
        ranged=True,
        thrown=True,
        range_categories=("thrown",),
        windup=1,
        strength=10,
        reload=0,
        weapon_bulk=0.5,
        explosive=True,
        sources={
            "name": _P7,
            **_THROWN,
            "windup": HOUSE,
            "strength": HOUSE,
            "weapon_bulk": HOUSE,
            "explosive": "s. 9",
        },
    ),
    # Etka's sling (p. 12): +5 strength, a real weapon, neither thrown nor contact; plain
    # range formula (p. 10). UL: put a stone in and swing (house, like the bow's p. 7).
    _weapon(
        "sling",
        "Slunga",
        "sling",
        ranged=True,
        strength=5,
        windup=2,
        reload=0,
        magazine_bulk=0.3,
        weapon_bulk=0.2,
        sources={
            "name": _P12,
            "skill": _P3,
            "ranged": _P10,
            "strength": _P12,
            "real": _P12,
            "contact": _P12,
            "thrown": _P12,
            "range_categories": _P10,
            "windup": HOUSE,
            "reload": HOUSE,
            "magazine_bulk": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
    # UL: draw an arrow, nock it and draw the bow (p. 7); a FYS test against the bow's
    # strength value each activation it stays drawn (p. 7). Plain range formula, and
    # long in melee (p. 10). MV is one arrow (p. 5).
    _weapon(
        "bow",
        "Pilbåge",
        "bow",
        ranged=True,
        hands=(2,),
        windup=3,
        bow_strength=6,
        strength=4,
        reload=0,
        magazine_bulk=0.1,
        weapon_bulk=1.5,
        sources={
            "name": _P10,
            "skill": _P3,
            "ranged": _P10,
            "range_categories": _P10,
            "hands": HOUSE,
            "windup": HOUSE,
            "bow_strength": HOUSE,
            "strength": HOUSE,
            "reload": HOUSE,
            "magazine_bulk": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
    # Crossbows: Skjutvapen (p. 3), longer than a pistol so long in melee (p. 10); only
    # the heavy one halves the range malus (p. 10). One bolt (MS 1, p. 11).
    _weapon(
        "light_crossbow",
        "Lätt armborst",
        "firearms",
        ranged=True,
        firearm="long",
        hands=(2,),
        strength=5,
        reload=10,
        magazine_bulk=0.1,
        weapon_bulk=3,
        sources={
            "name": _P10,
            **_LONG_GUN,
            "magazine": _P11,
            "hands": HOUSE,
            "strength": HOUSE,
            "reload": HOUSE,
            "magazine_bulk": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
    _weapon(
        "heavy_crossbow",
        "Tungt armborst",
        "firearms",
        ranged=True,
        firearm="long",
        range_categories=("heavy_or_long",),
        hands=(2,),
        strength=7,
        reload=30,
        magazine_bulk=0.2,
        weapon_bulk=7,
        sources={
            "name": _P10,
            **_LONG_GUN,
            "magazine": _P11,
            "hands": HOUSE,
            "strength": HOUSE,
            "reload": HOUSE,
            "magazine_bulk": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
    # Levi's flintlock (p. 8, no laser sight): a long firearm (p. 10), smoothbore (not
    # modern, p. 10), muzzle-loaded one shot at a time (MS 1, p. 11; OL house).
    _weapon(
        "flintlock_rifle",
        "Flintlåsgevär",
        "firearms",
        ranged=True,
        firearm="long",
        range_categories=("heavy_or_long",),
        hands=(2,),
        strength=7,
        reload=50,
        magazine_bulk=0.05,
        weapon_bulk=5,
        sources={
            "name": _P8,
            **_LONG_GUN,
            "ranged": _P8,
            "laser_sight": _P8,
            "magazine": _P11,
            "hands": HOUSE,
            "strength": HOUSE,
            "reload": HOUSE,
            "magazine_bulk": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
    # Modern short firearms (p. 10: "korta (pistol, kpist)", rifled). OL 5 (p. 7).
    _weapon(
        "pistol",
        "Pistol",
        "firearms",
        ranged=True,
        firearm="short",
        range_categories=("rifled",),
        hands=(1, 2),
        strength=4,
        magazine=15,
        chambered=True,
        magazine_bulk=0.3,
        weapon_bulk=1,
        sources={
            "name": _P10,
            **_SHORT_GUN,
            "reload": _P7,
            "hands": HOUSE,
            "strength": HOUSE,
            "magazine": HOUSE,
            "chambered": HOUSE,
            "magazine_bulk": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
    # "(1)": 2 KP to open, 1 KP a cartridge (p. 7); MV is a full speedloader (p. 5),
    # changed at the default OL 5 (p. 7).
    _weapon(
        "revolver",
        "Revolver",
        "firearms",
        ranged=True,
        firearm="short",
        range_categories=("rifled",),
        hands=(1, 2),
        strength=5,
        magazine=6,
        reload_each=1,
        magazine_bulk=0.2,
        weapon_bulk=1.2,
        sources={
            **_SHORT_GUN,
            "reload": _P7,
            "hands": HOUSE,
            "strength": HOUSE,
            "magazine": HOUSE,
            "reload_each": HOUSE,
            "magazine_bulk": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
    _weapon(
        "smg",
        "Kpist",
        "firearms",
        ranged=True,
        firearm="short",
        range_categories=("rifled",),
        hands=(2,),
        strength=4,
        fire_modes="1/auto+2N",
        max_shots=14,
        magazine=32,
        magazine_bulk=0.7,
        weapon_bulk=4,
        sources={
            "name": _P10,
            **_SHORT_GUN,
            "reload": _P7,
            "hands": HOUSE,
            "strength": HOUSE,
            "fire_modes": HOUSE,
            "max_shots": HOUSE,
            "magazine": HOUSE,
            "magazine_bulk": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
    # Modern long firearms (p. 10: "långa (karbin, gevär)", ×0.5 and rifled ×0.5).
    # Anna's carbine: "1/3/auto+2N" (p. 11).
    _weapon(
        "carbine",
        "Karbin",
        "firearms",
        ranged=True,
        firearm="long",
        range_categories=("heavy_or_long", "rifled"),
        hands=(2,),
        strength=6,
        fire_modes="1/3/auto+2N",
        max_shots=14,
        magazine=20,
        chambered=True,
        magazine_bulk=0.4,
        weapon_bulk=3.5,
        sources={
            "name": _P11,
            **_LONG_GUN,
            "fire_modes": _P11,
            "reload": _P7,
            "hands": HOUSE,
            "strength": HOUSE,
            "max_shots": HOUSE,
            "magazine": HOUSE,
            "chambered": HOUSE,
            "magazine_bulk": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
    _weapon(
        "assault_carbine",
        "Automatkarbin",
        "firearms",
        ranged=True,
        firearm="long",
        range_categories=("heavy_or_long", "rifled"),
        hands=(2,),
        strength=6,
        fire_modes="1/auto+2N",
        max_shots=14,
        magazine=30,
        chambered=True,
        magazine_bulk=0.6,
        weapon_bulk=3.5,
        sources={
            "name": _P10,
            **_LONG_GUN,
            "reload": _P7,
            "hands": HOUSE,
            "strength": HOUSE,
            "fire_modes": HOUSE,
            "max_shots": HOUSE,
            "magazine": HOUSE,
            "chambered": HOUSE,
            "magazine_bulk": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
    # Not rifled (p. 10). A double barrel: both at once, loaded a shell at a time; with
    # no magazine MV is one shell (p. 5).
    _weapon(
        "shotgun",
        "Hagelgevär",
        "firearms",
        ranged=True,
        firearm="long",
        range_categories=("heavy_or_long",),
        hands=(2,),
        strength=7,
        fire_modes="1/2",
        magazine=2,
        reload_each=1,
        magazine_bulk=0.05,
        weapon_bulk=3.5,
        sources={
            "name": _P10,
            **_LONG_GUN,
            "hands": HOUSE,
            "strength": HOUSE,
            "fire_modes": HOUSE,
            "magazine": HOUSE,
            "reload_each": HOUSE,
            "magazine_bulk": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
    # MS "bälte": OL 10 (5 with an assistant) and MV for 100 cartridges (p. 11).
    _weapon(
        "machine_gun",
        "Kulspruta",
        "firearms",
        ranged=True,
        firearm="long",
        range_categories=("heavy_or_long", "rifled"),
        hands=(2,),
        strength=7,
        fire_modes="auto+3N",
        max_shots=20,
        belt=True,
        magazine_bulk=3,
        weapon_bulk=12,
        sources={
            **_LONG_GUN,
            "belt": _P11,
            "reload": _P11,
            "hands": HOUSE,
            "strength": HOUSE,
            "fire_modes": HOUSE,
            "max_shots": HOUSE,
            "magazine_bulk": HOUSE,
            "weapon_bulk": HOUSE,
        },
    ),
)

WEAPONS: dict[str, Weapon] = {weapon.key: weapon for weapon in _WEAPON_LIST}

_ARMOUR_LIST = (
    # Soft vest + helmet: Totalrustning (12·3 + 6) // 10 = 4, a house set matching
    # Miriam's Totalrustning 4 (p. 13; the text does not say what she wore).
    _armour(
        "soft_vest",
        "Skyddsväst",
        areas=(("torso", 12),),
        bulk=3,
        sources={"areas": HOUSE, "bulk": HOUSE},
    ),
    _armour(
        "helmet", "Hjälm", areas=(("head", 6),), bulk=1.5, sources={"areas": HOUSE, "bulk": HOUSE}
    ),
    _armour(
        "leather_armour",
        "Läderrustning",
        areas=(("torso", 3), ("right_arm", 2), ("left_arm", 2), ("right_leg", 1), ("left_leg", 1)),
        bulk=6,
        sources={"areas": HOUSE, "bulk": HOUSE},
    ),
    _armour(
        "mail_shirt",
        "Ringbrynja",
        areas=(("torso", 6), ("right_arm", 4), ("left_arm", 4), ("right_leg", 2), ("left_leg", 2)),
        bulk=12,
        sources={"areas": HOUSE, "bulk": HOUSE},
    ),
    # The spear thrower in Etka's example: armour 5 on the torso (p. 12).
    _armour(
        "spear_thrower_armour",
        "Spjutkastarens rustning",
        areas=(("torso", 5),),
        bulk=8,
        sources={"name": _P12, "areas": _P12, "bulk": HOUSE},
    ),
    # A protective weapon (p. 8): +2 to vigilance with Närstridsvapen, also against throws.
    _armour(
        "round_shield", "Rundsköld", shield=True, bulk=5, sources={"shield": _P8, "bulk": HOUSE}
    ),
)

ARMOUR: dict[str, Armour] = {armour.key: armour for armour in _ARMOUR_LIST}
