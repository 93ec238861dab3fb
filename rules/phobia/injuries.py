"""Phobia damage: applying a hit, the serious-injury table, damage rows and bleeding
(phobia-utdrag.txt lines 806-1130; rulings.md, "Phobia (excerpt)").

Applying a hit (the flow chart, lines 818-839):

1. The weapon's damage ("skadeverkan", the rolled result of its ObT6s, lines 810-815)
   minus protection, never below 0 (:func:`damage_after_protection`).
2. Half of it, rounded down, becomes Trauma boxes and the rest Smärta (pain) boxes:
   17 gives 8 T and 9 S (lines 823-827, 843-849; :func:`split_damage`).
3. A projectile (P) or cutting (H) attack adds one small bleed, SB; crushing (K) does not
   (lines 827-828, 850-852).
4. Damage strictly above the target's Chockvärde ("högre än", line 830) is a serious
   injury: 1T10 on the table row of the hit area and damage type, whose codes apply on
   top of step 3 (lines 830-835; :data:`SERIOUS_INJURY_TABLE`, :func:`apply_hit`).
5. Death and shock rolls, harder by the filled rows of the sections (lines 837-839,
   1021-1052, 1114-1122; :func:`death_roll_difficulty`, :func:`shock_roll_difficulty`).

Readings where the text leaves a choice (each also said where it is used):

* "Skadeverkan" after step 2 is the damage after protection; the codes' "framslagna
  skadeverkan" (lines 857-876) and Bryt's "Skadeverkan x0.1" (lines 882-889) use it too,
  as does the Chockvärde comparison of step 4.
* Every product is rounded down (rulings: "Rounding is always down"): Tx0.5 of 7 is 3,
  Tx0.1 of 19 is 1, Bryt+1! at 19 damage is Ob2T6.
* A hit that protection stops completely (0 damage) gives no Trauma or Smärta, but a
  projectile or cut still gives its small bleed: "Varje attack med ett projektil- eller
  huggvapen ger alltid ett kryss Småblödning" (lines 850-851), and step 3's "Om attacken
  är av projektil- eller hugg-typ får offret ett kryss Småblödning" (lines 827-828) sets
  no condition on the damage. The other reading (a stopped hit does nothing at all) is
  the keyword ``stopped_hit_bleeds=False`` of :func:`apply_hit`, a campaign's house
  rule (``stopped_hit_bleeds``, default on).
* "T" and "S" alone (lines 855-856) name the sections; they are not codes of their own
  and never stand alone in the table.
* "AB" in the table is "ABx1" (lines 879, 963, 978). An AB box is as many bleed-rate
  points as "the attack's Trauma" (lines 1068-1070). By default that is the Trauma of
  step 3 (damage // 2), not including the table's Tx codes; the keyword
  ``ab_counts_table_trauma=True`` of :func:`apply_hit` takes the other reading.
* The table's "Öga � Sx1 / Blindrisk!" (line 949) is a PDF extraction fault for
  "Öga = Sx1 / Blindrisk!", and "Blindrisk!" is the eye check of the code list, "Öga!"
  (lines 891-903): Ob3T6 against Tur.
* "Permanent!" rolls ``(1T6/2)-1`` twice (lines 918-932); rounded down that is -1 on a 1,
  and "all results of zero count as zero": a result below zero loses nothing either.
* A check's difficulty is at most Ob20T6 (the dice module's bound): Bryt+2! needs 180
  damage to reach it.
* The third section is Blodförlust (lines 1096-1122); step 5's "Allvarliga Blödningar"
  (line 838-839) is read as that section.

Bleeding (lines 1056-1129) is in :func:`advance_bleeding`, whose docstring states its
timing readings; damage rows (lines 164-172, 1013-1052) in :func:`filled_rows` and the
difficulty functions.
"""

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType

from rules.combat_kit import quick_init
from rules.errors import RulesError
from rules.phobia.dice import (
    MAX_OB_DICE,
    ObDice,
    ObRoll,
    PlainDice,
    PlainRoll,
    Roller,
    parse_dice,
    roll,
)
from rules.phobia.success import Difficulty, TestOutcome, modify_difficulty, resolve_test

__all__ = [
    "DEFAULT_COLUMNS",
    "DEFAULT_PER_ROW",
    "EAR_LOSS",
    "INJURY_DIE",
    "ROUND_SECONDS",
    "ROWS",
    "SERIOUS_INJURY_TABLE",
    "Activity",
    "Area",
    "Bleed",
    "Bleeding",
    "BleedingAdvance",
    "Check",
    "CheckKind",
    "CheckResult",
    "DamageType",
    "Effect",
    "Hit",
    "Loss",
    "LossResult",
    "Multiply",
    "Ongoing",
    "PendingCheck",
    "Section",
    "SeriousInjury",
    "Side",
    "Treatment",
    "advance_bleeding",
    "apply_hit",
    "damage_after_protection",
    "death_roll_difficulty",
    "filled_rows",
    "ongoing_boxes",
    "overflow_boxes",
    "parse_code",
    "resolve_check",
    "resolve_loss",
    "roll_check",
    "roll_loss",
    "row_difficulty",
    "serious_injury",
    "shock_roll_difficulty",
    "skill_difficulty_added",
    "split_damage",
    "syn_after_eye_loss",
]

ROWS = 10  # each section has ten rows of boxes (line 167)
DEFAULT_COLUMNS = 5  # house rule (rulings): damage columns, boxes per row
DEFAULT_PER_ROW = 1  # house rule (rulings): +Ob1T6 per full row
ROUND_SECONDS = 4  # rulings: 4 s rounds, so 15 rounds a minute
MINUTE = 60
HOUR = 3600
INJURY_DIE = PlainDice(1, 10)  # the serious-injury roll, 1T10 (lines 832-833, 946)
NORMAL = int(Difficulty.NORMAL)  # Ob3T6, "ett normalt slag" (lines 891, 905, 930, 941)


def _check_int(name: str, value: object, minimum: int | None = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesError(f"{name} must be an integer, got {value!r}", code="not_integer")
    if minimum is not None and value < minimum:
        raise RulesError(
            f"{name} must be at least {minimum}, got {value}",
            code="too_small",
            limit=minimum,
        )
    return value


# --- vocabulary ------------------------------------------------------------------------


class DamageType(StrEnum):
    """Damage types by the text's letters (lines 68-90, 947)."""

    PROJECTILE = "P"  # Projektil(skada)
    CRUSHING = "K"  # Kross(skada)
    CUTTING = "H"  # Hugg(skada)

    @property
    def bleeds(self) -> bool:
        """Projectile and cutting attacks give one small bleed (lines 827-828, 850-852)."""
        return self is not DamageType.CRUSHING


class Area(StrEnum):
    """The table's areas (lines 947-1004); ``swedish`` is the name printed in the table."""

    FACE = "face"
    SKULL = "skull"
    NECK = "neck"
    ARM = "arm"
    CHEST = "chest"
    BELLY = "belly"
    GROIN = "groin"
    LEG = "leg"

    @property
    def swedish(self) -> str:
        return _AREA_SWEDISH[self]


_AREA_SWEDISH = {
    Area.FACE: "ANSIKTE",
    Area.SKULL: "SKALLE",
    Area.NECK: "HALS",
    Area.ARM: "ARM",
    Area.CHEST: "BRÖSTKORG",
    Area.BELLY: "MAGE",
    Area.GROIN: "UNDERLIV",
    Area.LEG: "BEN",
}


class Section(StrEnum):
    """The sheet's three damage sections (lines 164-167)."""

    TRAUMA = "trauma"  # T
    PAIN = "pain"  # S, Smärta
    BLOOD_LOSS = "blood_loss"  # Blodförlust


def _damage_type(value: object) -> DamageType:
    if isinstance(value, str):
        try:
            return DamageType(value.strip().upper())
        except ValueError:
            pass
    raise RulesError(
        f"damage type must be P, K or H, got {value!r}", code="damage_type", value=str(value)
    )


def _area(value: object) -> Area:
    if isinstance(value, str):
        key = value.strip().casefold()
        for area in Area:
            if key in (area.value, area.swedish.casefold()):
                return area
    raise RulesError(
        f"unknown area {value!r}; expected one of {', '.join(a.value for a in Area)}",
        code="area",
        value=str(value),
    )


# --- damage ----------------------------------------------------------------------------


def damage_after_protection(rolled: int, protection: int) -> int:
    """Step 2 (line 822): the rolled damage reduced by protection, never below 0."""
    _check_int("rolled damage", rolled)
    _check_int("protection", protection)
    return max(rolled - protection, 0)


def split_damage(damage: int) -> tuple[int, int]:
    """Step 3 (lines 823-827, 843-849): ``(trauma, pain)``, half (rounded down) to Trauma
    and the rest, the odd box included, to Smärta: 17 gives (8, 9)."""
    _check_int("damage", damage)
    return damage // 2, damage - damage // 2


# --- codes -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Multiply:
    """``Tx<f>`` / ``Sx<f>`` (lines 857-876): the damage times f, rounded down, as boxes
    in the section (f is 3, 2, 1, 1/2 or 1/10)."""

    code: str
    section: Section
    factor: Fraction

    def boxes(self, damage: int) -> int:
        return int(_check_int("damage", damage) * self.factor)  # floor: both are >= 0


@dataclass(frozen=True)
class Bleed:
    """``SB`` (one small bleed, line 878) or ``AB``/``ABx1``/``ABx2``/``ABx5`` (that many
    serious bleeds, lines 879-881)."""

    code: str
    serious: bool
    count: int


class CheckKind(StrEnum):
    BREAK = "break"  # Bryt+1! / Bryt+2!
    EYE = "eye"  # Öga! / Blindrisk!
    EAR = "ear"  # Öra!


class Side(StrEnum):
    """Which eye or ear ("slumpa vilket", lines 892-893, 906-907)."""

    LEFT = "left"
    RIGHT = "right"


@dataclass(frozen=True)
class Check:
    """A test the victim rolls at once: ``Ob<difficulty>T6`` against ``against`` (an
    attribute or Tur), plus a tenth of the damage (rounded down) in dice when
    ``per_ten_damage`` (Bryt, lines 882-889). ``failure`` says what a failure does."""

    code: str
    kind: CheckKind
    against: str
    difficulty: int
    failure: str
    per_ten_damage: bool = False

    @property
    def sided(self) -> bool:
        """A failure destroys one of two (an eye or an ear), picked at random."""
        return self.kind in (CheckKind.EYE, CheckKind.EAR)

    def difficulty_for(self, damage: int) -> int:
        """The number of Ob dice at this damage, at most Ob20T6."""
        extra = _check_int("damage", damage) // 10 if self.per_ten_damage else 0
        return min(self.difficulty + extra, MAX_OB_DICE)


@dataclass(frozen=True)
class Treatment:
    """A skill roll that ends or undoes an effect (Kirurgi Ob3T6, lines 930-932, 940-941),
    within ``within_seconds`` of the injury when the text sets a limit (24 h, line 932)."""

    skill: str
    difficulty: int
    within_seconds: int | None = None


@dataclass(frozen=True)
class Loss:
    """Rolled losses (no test): ``Permanent!`` rolls ``(1T6/2)-1`` for two attributes
    (lines 918-932), ``Tänder!`` ``1T6-1`` teeth (lines 934-935). Each pair is (what is
    lost, dice); a result below zero loses nothing. ``remedy`` undoes the loss."""

    code: str
    rolls: tuple[tuple[str, PlainDice], ...]
    remedy: Treatment | None = None


@dataclass(frozen=True)
class Ongoing:
    """Boxes every ``every_seconds`` until treated: ``Kvävning!`` 1 T + 1 S a round until
    medical help (lines 911-916; the text names no roll, so ``until`` is None),
    ``Inre Skada!`` 1 T + 10 S an hour until Kirurgi Ob3T6 succeeds (lines 937-941)."""

    code: str
    trauma: int
    pain: int
    every_seconds: int
    until: Treatment | None
    until_text: str


Effect = Multiply | Bleed | Check | Loss | Ongoing

_PERMANENT_DIE = parse_dice("(1T6/2)-1")
_SURGERY = Treatment("Kirurgi", NORMAL)
_EYE = (
    CheckKind.EYE,
    "Tur",
    NORMAL,
    "an eye is destroyed (random which): SYN halved, +Ob1T6 on actions needing precise "
    "coordination (not weapon use); both eyes destroyed: SYN 0, blind",
)
_FIXED_CODES: dict[str, tuple] = {
    "sb": (Bleed, False, 1),
    "ab": (Bleed, True, 1),
    "abx1": (Bleed, True, 1),
    "abx2": (Bleed, True, 2),
    "abx5": (Bleed, True, 5),
    "bryt+1!": (Check, CheckKind.BREAK, "STY", 1, "a bone in the area breaks", True),
    "bryt+2!": (Check, CheckKind.BREAK, "STY", 2, "a bone in the area breaks", True),
    "öga!": (Check, *_EYE),
    "blindrisk!": (Check, *_EYE),
    "öra!": (
        Check,
        CheckKind.EAR,
        "Tur",
        NORMAL,
        "an ear is destroyed (random which): HÖR -2, PER -1",
    ),
    "kvävning!": (Ongoing, 1, 1, ROUND_SECONDS, None, "medical help"),
    "inre skada!": (Ongoing, 1, 10, HOUR, _SURGERY, "Kirurgi Ob3T6 succeeds"),
    "tänder!": (Loss, (("teeth", parse_dice("1T6-1")),), None),
}
_PERMANENT = {
    Area.ARM: (("STY", _PERMANENT_DIE), ("RÖR", _PERMANENT_DIE)),
    Area.LEG: (("FÖR", _PERMANENT_DIE), ("RÖR", _PERMANENT_DIE)),
}
_FACTORS = {"3": Fraction(3), "2": Fraction(2), "1": Fraction(1)}
_FACTORS |= {"0.5": Fraction(1, 2), "0.1": Fraction(1, 10)}
_MULTIPLY_RE = re.compile(r"([TS])x(3|2|1|0\.5|0\.1)", re.IGNORECASE)

EAR_LOSS: Mapping[str, int] = MappingProxyType({"HÖR": -2, "PER": -1})  # lines 907-909


def parse_code(text: str, area: Area | str | None = None) -> Effect:
    """One code of the serious-injury table (lines 854-941), as a structured effect.

    Case and spacing are free (the text writes both ``BRYT+1!`` and ``Bryt+1!``).
    ``Permanent!`` needs the area, arm or leg, which decides what it lowers."""
    if not isinstance(text, str):
        raise RulesError(f"a code must be text, got {text!r}", code="not_text")
    written = " ".join(text.split())
    key = written.casefold()
    if match := _MULTIPLY_RE.fullmatch(written):
        section = Section.TRAUMA if match.group(1).upper() == "T" else Section.PAIN
        return Multiply(written, section, _FACTORS[match.group(2)])
    if key in ("t", "s"):
        raise RulesError(
            f"{written!r} names a section (lines 855-856); a code is Tx<factor> or Sx<factor>",
            code="bare_section",
        )
    if key == "permanent!":
        where = _area(area) if area is not None else None
        if where not in _PERMANENT:
            raise RulesError(
                f"Permanent! is defined for an arm or a leg (lines 918-929), not {area!r}",
                code="permanent_area",
            )
        return Loss(written, _PERMANENT[where], Treatment("Kirurgi", NORMAL, 24 * HOUR))
    if key not in _FIXED_CODES:
        raise RulesError(f"unknown serious-injury code {text!r}", code="unknown_code")
    kind, *args = _FIXED_CODES[key]
    return kind(written, *args)


# --- the serious-injury table ----------------------------------------------------------


@dataclass(frozen=True)
class SeriousInjury:
    """One row of the serious-injury table: its Swedish name as printed, its codes and
    their effects, and the 1T10 results that give it for P, K and H (an empty range is
    the table's "-": that type never gives the row). ``line`` is its line in the text."""

    area: Area
    name: str
    codes: tuple[str, ...]
    effects: tuple[Effect, ...]
    results: tuple[range, range, range]
    line: int

    def results_for(self, damage_type: DamageType | str) -> range:
        return self.results[_TYPE_COLUMN[_damage_type(damage_type)]]


_TYPE_COLUMN = {DamageType.PROJECTILE: 0, DamageType.CRUSHING: 1, DamageType.CUTTING: 2}

# The table as printed (lines 944-1004): line, Projektil, Kross, Hugg, entry. Line 949
# prints "Öga � Sx1"; the "=" of every other row is restored.
_TABLE_TEXT = {
    Area.FACE: (
        (948, "1", "1", "1", "Hjärna = Tx3"),
        (949, "2", "2", "2", "Öga = Sx1 / Blindrisk!"),
        (950, "3", "3", "3", "Öra = Sx0.5 / SB / Öra!"),
        (951, "4", "4", "4", "Mun = Sx0.5 / SB / Tänder!"),
        (952, "5", "5", "5", "Näsa = Sx0.5 / SB"),
        (953, "6-7", "6-8", "6", "Omtöckning = Sx1"),
        (954, "8", "9", "7-8", "Blödning = SB"),
        (955, "9-10", "10", "9-10", "Kött = Tx0.1 / Sx0.1"),
    ),
    Area.SKULL: (
        (957, "1-3", "1-2", "1-2", "Hjärna = Tx3"),
        (958, "4-5", "3-5", "3-4", "Skallben = Tx0.5 / Sx0.5"),
        (959, "6", "6-8", "5-6", "Omtöckning = Sx1"),
        (960, "7", "9", "7-8", "Blödning = SB"),
        (961, "8-10", "10", "9-10", "Kött = Tx0.1 / Sx0.1"),
    ),
    Area.NECK: (
        (963, "1", "1-2", "1-2", "Strupe = Tx1 / AB / Kvävning!"),
        (964, "2-3", "3", "3-4", "Pulsåder = ABx2"),
        (965, "4-5", "4-5", "5", "Nackkotor = Tx0.5 / Bryt+1!"),
        (966, "6", "6-7", "6", "Omtöckning = Sx1"),
        (967, "7-8", "8-9", "7-8", "Blödning = SB"),
        (968, "9-10", "10", "9-10", "Kött = Tx0.1 / Sx0.1"),
    ),
    Area.ARM: (
        (970, "1", "1-2", "1-2", "Ben = Bryt+2!"),
        (971, "2", "3", "3", "Artärblödning = ABx1"),
        (972, "3-4", "4", "4-5", "Muskel/Senor = Permanent!"),
        (973, "5-6", "5-8", "6", "Omtöckning = Sx1"),
        (974, "7-8", "9", "7-8", "Blödning = SB"),
        (975, "9-10", "10", "9-10", "Kött = Tx0.1 / Sx0.1"),
    ),
    Area.CHEST: (
        (977, "1-2", "1", "1", "Hjärta = Tx2 / ABx5"),
        (978, "3-4", "2", "2-3", "Lunga = Tx1 / Sx1 / AB / Inre Skada!"),
        (979, "5", "3", "4", "Pulsåder = ABx2"),
        (980, "6", "4", "5", "Ryggrad = Tx0.5 / Bryt+1!"),
        (981, "-", "5-6", "6", "Revben = Sx0.1 / Bryt+2!"),
        (982, "7", "7-8", "7", "Omtöckning = Sx1"),
        (983, "8", "9", "8-9", "Blödning = SB"),
        (984, "9-10", "10", "10", "Kött = Tx0.1 / Sx0.1"),
    ),
    Area.BELLY: (
        (986, "1-3", "1-2", "1-2", "Inälvor = Tx1 / Sx1 / ABx1 / Inre Skada!"),
        (987, "4", "3", "3", "Ryggrad = Tx0.5 / Bryt+1!"),
        (988, "5", "-", "4", "Pulsåder = ABx2"),
        (989, "6", "4", "5", "Artärblödning = ABx1"),
        (990, "7", "5-8", "6", "Omtöckning = Sx1"),
        (991, "8", "9", "7-8", "Blödning = SB"),
        (992, "9-10", "10", "9-10", "Kött = Tx0.1 / Sx0.1"),
    ),
    Area.GROIN: (
        (994, "1-2", "1-4", "1-2", "Könsorgan = Sx2 / SB"),
        (995, "3", "5-7", "3-4", "Omtöckning = Sx1"),
        (996, "4-6", "8", "5-8", "Blödning = SB"),
        (997, "7-10", "9-10", "9-10", "Kött = Tx0.1 / Sx0.1"),
    ),
    Area.LEG: (
        (999, "1", "1-2", "1-2", "Ben = Bryt+1!"),
        (1000, "2", "3", "3", "Artärblödning = ABx1"),
        (1001, "3-4", "4", "4-5", "Muskel/Senor = Permanent!"),
        (1002, "5-6", "5-8", "6", "Omtöckning = Sx1"),
        (1003, "7-8", "9", "7-8", "Blödning = SB"),
        (1004, "9-10", "10", "9-10", "Kött = Tx0.1 / Sx0.1"),
    ),
}


def _results(cell: str) -> range:
    if cell == "-":
        return range(0)
    low, _, high = cell.partition("-")
    return range(int(low), int(high or low) + 1)


def _row(area: Area, line: int, p: str, k: str, h: str, entry: str) -> SeriousInjury:
    name, _, codes_text = entry.partition(" = ")
    codes = tuple(code.strip() for code in codes_text.split("/"))
    return SeriousInjury(
        area=area,
        name=name,
        codes=codes,
        effects=tuple(parse_code(code, area) for code in codes),
        results=(_results(p), _results(k), _results(h)),
        line=line,
    )


SERIOUS_INJURY_TABLE: Mapping[Area, tuple[SeriousInjury, ...]] = MappingProxyType(
    {area: tuple(_row(area, *row) for row in rows) for area, rows in _TABLE_TEXT.items()}
)


def serious_injury(area: Area | str, damage_type: DamageType | str, result: int) -> SeriousInjury:
    """The table row that a 1T10 ``result`` gives for a hit of ``damage_type`` in
    ``area`` (lines 944-1004)."""
    where, kind = _area(area), _damage_type(damage_type)
    if not 1 <= _check_int("1T10 result", result) <= 10:
        raise RulesError(f"a 1T10 result is 1 to 10, got {result}", code="injury_roll")
    for injury in SERIOUS_INJURY_TABLE[where]:
        if result in injury.results_for(kind):
            return injury
    raise AssertionError(f"table gap: {where} {kind} {result}")  # the tests rule this out


# --- applying a hit --------------------------------------------------------------------


@dataclass(frozen=True)
class PendingCheck:
    """A check this hit calls for, with its difficulty at this hit's damage."""

    check: Check
    difficulty: int


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Hit:
    """A hit applied (lines 818-852). ``trauma``/``pain`` are all boxes the hit gives,
    ``base_trauma``/``base_pain`` those of step 3 alone. ``bleed_rate`` is what the hit
    adds to the bleed rate: one per small bleed plus, per serious bleed, the attack's
    Trauma (``ab_trauma``; lines 1066-1070). ``injury`` is the table row when the damage
    was above the Chockvärde; its checks, losses and ongoing effects are still to be
    rolled or tracked by the caller."""

    rolled: int
    protection: int
    damage: int
    damage_type: DamageType
    area: Area
    shock_value: int
    base_trauma: int
    base_pain: int
    trauma: int
    pain: int
    small_bleeds: int
    serious_bleeds: int
    ab_trauma: int
    bleed_rate: int
    serious: bool
    injury_roll: int | None = None
    injury: SeriousInjury | None = None
    checks: tuple[PendingCheck, ...] = ()
    losses: tuple[Loss, ...] = ()
    ongoing: tuple[Ongoing, ...] = ()


def apply_hit(
    rolled: int,
    protection: int,
    damage_type: DamageType | str,
    area: Area | str,
    shock_value: int,
    injury_roll: int | None = None,
    rng: Roller | None = None,
    *,
    ab_counts_table_trauma: bool = False,
    stopped_hit_bleeds: bool = True,
) -> Hit:
    """Apply a hit (the flow chart, lines 818-839): damage after protection, split to
    Trauma and Smärta, a small bleed for P and H, and, when the damage is strictly above
    ``shock_value`` (the Chockvärde), the serious injury of the 1T10 ``injury_roll`` (rolled
    with ``rng`` when None; no die is rolled without a serious injury).

    The area is the caller's (house-rule default: the attacker names it). An AB box counts
    the Trauma of step 3 (``damage // 2``) in bleed-rate points; with
    ``ab_counts_table_trauma`` it counts all Trauma of the hit, the table's Tx included.
    A projectile or cut that protection stops (rolled above 0, damage 0) still gives its
    small bleed ("alltid", lines 850-851) unless ``stopped_hit_bleeds`` is False."""
    damage = damage_after_protection(rolled, protection)
    kind, where = _damage_type(damage_type), _area(area)
    _check_int("shock value", shock_value)
    if injury_roll is not None and not 1 <= _check_int("1T10 result", injury_roll) <= 10:
        raise RulesError(f"a 1T10 result is 1 to 10, got {injury_roll}", code="injury_roll")
    if not isinstance(ab_counts_table_trauma, bool):
        raise RulesError("ab_counts_table_trauma must be True or False")
    if not isinstance(stopped_hit_bleeds, bool):
        raise RulesError("stopped_hit_bleeds must be True or False")
    base_trauma, base_pain = split_damage(damage)
    trauma, pain = base_trauma, base_pain
    stopped = not damage and rolled > 0 and stopped_hit_bleeds  # lines 850-851: "alltid"
    small = 1 if (damage or stopped) and kind.bleeds else 0
    serious_bleeds = 0
    checks: list[PendingCheck] = []
    losses: list[Loss] = []
    ongoing: list[Ongoing] = []
    injury = None
    serious = damage > shock_value
    if serious:
        if injury_roll is None:
            injury_roll = roll(INJURY_DIE, rng).result
        injury = serious_injury(where, kind, injury_roll)
        for effect in injury.effects:
            if isinstance(effect, Multiply):
                if effect.section is Section.TRAUMA:
                    trauma += effect.boxes(damage)
                else:
                    pain += effect.boxes(damage)
            elif isinstance(effect, Bleed):
                if effect.serious:
                    serious_bleeds += effect.count
                else:
                    small += effect.count
            elif isinstance(effect, Check):
                checks.append(PendingCheck(effect, effect.difficulty_for(damage)))
            elif isinstance(effect, Loss):
                losses.append(effect)
            else:
                ongoing.append(effect)
    else:
        injury_roll = None
    ab_trauma = trauma if ab_counts_table_trauma else base_trauma
    return Hit(
        rolled=rolled,
        protection=protection,
        damage=damage,
        damage_type=kind,
        area=where,
        shock_value=shock_value,
        base_trauma=base_trauma,
        base_pain=base_pain,
        trauma=trauma,
        pain=pain,
        small_bleeds=small,
        serious_bleeds=serious_bleeds,
        ab_trauma=ab_trauma,
        bleed_rate=small + serious_bleeds * ab_trauma,
        serious=serious,
        injury_roll=injury_roll,
        injury=injury,
        checks=tuple(checks),
        losses=tuple(losses),
        ongoing=tuple(ongoing),
    )


# --- resolving checks, losses and ongoing effects --------------------------------------


@dataclass(frozen=True)
class CheckResult:
    """A resolved check: the test, whether it failed, and for an eye or ear that failed,
    which side was lost."""

    pending: PendingCheck
    outcome: TestOutcome
    failed: bool
    side: Side | None = None


def resolve_check(
    pending: PendingCheck, chance: int, rolled: ObRoll, side: Side | str | None = None
) -> CheckResult:
    """Resolve a check with dice already rolled (``Ob<difficulty>T6`` against ``chance``,
    the victim's value of ``check.against``). A failed eye or ear check needs ``side``."""
    if not isinstance(pending, PendingCheck):
        raise RulesError(f"resolve_check needs a PendingCheck, got {pending!r}")
    if not isinstance(rolled, ObRoll) or rolled.dice.count != pending.difficulty:
        raise RulesError(
            f"{pending.check.code} rolls Ob{pending.difficulty}T6, got {rolled!r}",
            code="wrong_dice",
        )
    outcome = resolve_test(chance, rolled)
    failed = not outcome.success
    if failed and pending.check.sided:
        if side is None:
            raise RulesError(f"a failed {pending.check.code} needs the side that was lost")
        try:
            side = Side(side)
        except ValueError:
            raise RulesError(f"side must be left or right, got {side!r}") from None
    else:
        side = None
    return CheckResult(pending, outcome, failed, side)


def roll_check(pending: PendingCheck, chance: int, rng: Roller | None = None,
               side_rng: Roller | None = None) -> CheckResult:
    """Roll a check with ``rng``: the Ob dice, then, for a failed eye or ear check, one
    ``randint(1, 2)`` for the side (1 left, 2 right), from `side_rng` where it is given (a
    fight's: the check is the combatant's roll, the side the server's)."""
    if rng is None:
        rng = secrets.SystemRandom()
    if not isinstance(pending, PendingCheck):
        raise RulesError(f"roll_check needs a PendingCheck, got {pending!r}")
    rolled = roll(ObDice(pending.difficulty), rng)
    side = None
    if pending.check.sided and not resolve_test(chance, rolled).success:
        side = Side.LEFT if (side_rng or rng).randint(1, 2) == 1 else Side.RIGHT
    return resolve_check(pending, chance, rolled, side)


@dataclass(frozen=True)
class LossResult:
    """Rolled losses: the dice, and per item what is lost (never below zero)."""

    loss: Loss
    rolls: tuple[PlainRoll, ...]
    amounts: tuple[tuple[str, int], ...]


def resolve_loss(loss: Loss, rolls: tuple[PlainRoll, ...]) -> LossResult:
    """A loss with its dice already rolled, one roll per item, in order."""
    if not isinstance(loss, Loss):
        raise RulesError(f"resolve_loss needs a Loss, got {loss!r}")
    rolls = tuple(rolls)
    if len(rolls) != len(loss.rolls) or any(
        not isinstance(r, PlainRoll) or r.dice != dice
        for r, (_, dice) in zip(rolls, loss.rolls, strict=False)
    ):
        wanted = ", ".join(str(dice) for _, dice in loss.rolls)
        raise RulesError(f"{loss.code} rolls {wanted}, got {rolls!r}", code="wrong_dice")
    amounts = tuple(
        (what, max(r.result, 0)) for r, (what, _) in zip(rolls, loss.rolls, strict=True)
    )
    return LossResult(loss, rolls, amounts)


def roll_loss(loss: Loss, rng: Roller | None = None) -> LossResult:
    """Roll a loss's dice with ``rng`` (Permanent!: first STY or FÖR, then RÖR)."""
    if not isinstance(loss, Loss):
        raise RulesError(f"roll_loss needs a Loss, got {loss!r}")
    if rng is None:
        rng = secrets.SystemRandom()
    return resolve_loss(loss, tuple(roll(dice, rng) for _, dice in loss.rolls))


def ongoing_boxes(ongoing: Ongoing, seconds: int) -> tuple[int, int]:
    """``(trauma, pain)`` an untreated ongoing effect has given ``seconds`` after the
    injury: one lot per whole period (round or hour) that has passed."""
    if not isinstance(ongoing, Ongoing):
        raise RulesError(f"ongoing_boxes needs an Ongoing effect, got {ongoing!r}")
    periods = _check_int("seconds", seconds) // ongoing.every_seconds
    return periods * ongoing.trauma, periods * ongoing.pain


def syn_after_eye_loss(syn: int, eyes_lost: int) -> int:
    """SYN after losing eyes (lines 893, 901-903): one eye halves it (rounded down), both
    make it 0. ``syn`` is the value before any eye was lost."""
    _check_int("SYN", syn)
    if _check_int("eyes lost", eyes_lost) > 2:
        raise RulesError(f"there are two eyes, got {eyes_lost} lost", code="too_many_eyes")
    return (syn, syn // 2, 0)[eyes_lost]


# --- damage rows -----------------------------------------------------------------------


def _check_columns(columns: int) -> int:
    return _check_int("columns", columns, minimum=1)


def filled_rows(boxes: int, columns: int = DEFAULT_COLUMNS) -> int:
    """Full rows of a section (lines 164-172): ``boxes // columns``, at most ten. Boxes past
    the ten rows are :func:`overflow_boxes`; the text gives them no rule."""
    return min(_check_int("boxes", boxes) // _check_columns(columns), ROWS)


def overflow_boxes(boxes: int, columns: int = DEFAULT_COLUMNS) -> int:
    """Boxes that do not fit in a section's ten rows."""
    return max(_check_int("boxes", boxes) - ROWS * _check_columns(columns), 0)


def row_difficulty(
    boxes: int, columns: int = DEFAULT_COLUMNS, per_row: int = DEFAULT_PER_ROW
) -> int:
    """Ob dice a section adds: ``per_row`` per full row (house rule, default +Ob1T6; the
    text prints the increase beside each section, lines 1024-1026, 1043-1045, 1118-1122)."""
    return filled_rows(boxes, columns) * _check_int("per_row", per_row)


def skill_difficulty_added(
    pain: int, columns: int = DEFAULT_COLUMNS, per_row: int = DEFAULT_PER_ROW
) -> int:
    """Ob dice added to skill and attribute rolls: Smärta's rows only (lines 1036-1045);
    Trauma (lines 1019-1021) and Blodförlust (lines 1114-1115) add none."""
    return row_difficulty(pain, columns, per_row)


def death_roll_difficulty(
    trauma: int,
    blood_loss: int,
    columns: int = DEFAULT_COLUMNS,
    per_row: int = DEFAULT_PER_ROW,
    base: int = Difficulty.NORMAL,
) -> int:
    """The death roll's Ob dice: ``base`` (house rule, default Ob3T6, normal) plus the rows
    of Trauma (lines 1017-1024) and Blodförlust (lines 1113-1122); Smärta never counts
    (lines 1039-1041). Kept within Ob0T6..Ob20T6."""
    return modify_difficulty(
        base,
        row_difficulty(trauma, columns, per_row),
        row_difficulty(blood_loss, columns, per_row),
    )


def shock_roll_difficulty(
    trauma: int,
    pain: int,
    blood_loss: int,
    columns: int = DEFAULT_COLUMNS,
    per_row: int = DEFAULT_PER_ROW,
    base: int = Difficulty.NORMAL,
) -> int:
    """The shock roll's Ob dice: ``base`` (house rule, default Ob3T6, normal) plus the rows
    of all three sections (lines 1017-1024, 1034-1045, 1113-1122). Kept within
    Ob0T6..Ob20T6."""
    return modify_difficulty(
        base,
        row_difficulty(trauma, columns, per_row),
        row_difficulty(pain, columns, per_row),
        row_difficulty(blood_loss, columns, per_row),
    )


# --- bleeding --------------------------------------------------------------------------


class Activity(StrEnum):
    """How the bleeder spends the time (lines 1091-1095, 1124-1129)."""

    CARE = "care"  # resting and cared for ("vilar och får vård")
    NORMAL = "normal"
    ACTIVE = "active"  # full activity ("full aktivitet")


# Both clocks run at 4 / 2 / 1 units a second (care / normal / active): the rate falls
# every 1200 units (5 / 10 / 20 minutes) and a box of blood loss returns every 7200
# (30 minutes / 1 hour / 2 hours). Partial progress carries over when the activity
# changes, in proportion.
_PACE = {Activity.CARE: 4, Activity.NORMAL: 2, Activity.ACTIVE: 1}
FALL_UNITS = 1200
RECOVERY_UNITS = 7200
RATE_PER_ROUND = 10  # from 10 on, rate // 10 boxes a round (lines 1080-1085)


@dataclass(frozen=True)
class Bleeding:
    """A bleeder's state: bleed rate, blood loss and three clocks.

    ``clock`` is the seconds since the bleeding began, modulo a minute (0-59); ``decay``
    the progress toward the next fall of the rate (0-1199 units); ``recovery`` the
    progress toward the next box of blood loss recovered (0-7199 units). Clocks that do
    not run are 0: clock and decay while the rate is 0, recovery while bleeding or with
    no blood loss."""

    rate: int = 0
    loss: int = 0
    clock: int = 0
    decay: int = 0
    recovery: int = 0

    def __post_init__(self) -> None:
        for name in ("rate", "loss", "clock", "decay", "recovery"):
            _check_int(name, getattr(self, name))
        if self.clock >= MINUTE or self.decay >= FALL_UNITS or self.recovery >= RECOVERY_UNITS:
            raise RulesError(f"bleeding clocks out of range: {self!r}", code="bleeding_clock")
        if (self.rate == 0 and (self.clock or self.decay)) or (
            (self.rate or not self.loss) and self.recovery
        ):
            raise RulesError(f"bleeding clocks that cannot run: {self!r}", code="bleeding_clock")

    def wounded(self, points: int) -> "Bleeding":
        """The state after a hit adds ``points`` to the bleed rate (SB +1, AB the attack's
        Trauma, lines 1066-1070; :attr:`Hit.bleed_rate`). A bleeding that begins starts
        its clocks at 0; recovery progress is lost."""
        if not _check_int("bleed rate points", points):
            return self
        if self.rate:
            return Bleeding(self.rate + points, self.loss, self.clock, self.decay)
        return Bleeding(points, self.loss)


@dataclass(frozen=True)
class BleedingAdvance:
    """The result of :func:`advance_bleeding`: the new state, boxes of blood loss gained
    and recovered, and ``rises``, how many times the blood loss rose (each calls for a
    shock roll at the end of that round, lines 1116-1117)."""

    state: Bleeding
    gained: int = 0
    recovered: int = 0
    rises: int = 0


def advance_bleeding(
    state: Bleeding, seconds: int, activity: Activity | str = Activity.NORMAL
) -> BleedingAdvance:
    """Advance a bleeding by ``seconds`` under one activity (lines 1072-1095, 1124-1129).

    Timing readings (the text gives amounts per period, not when within it they land):

    * A bleeding's minute and its 4-second rounds are counted from its start (the hit
      that made the rate rise from 0). Below 10 the rate costs ``rate`` boxes at the end
      of each whole minute; from 10 on, ``rate // 10`` boxes at the end of each round.
      Either way each landing is one rise.
    * The rate falls by one every 10 minutes (5 resting with care, 20 in full activity),
      the first fall one period after the bleeding began. A landing and a fall at the
      same moment: the landing uses the rate before the fall.
    * Blood loss recovers (1 box an hour; 2 resting with care; 1 per 2 hours active)
      only while the rate is 0, from the moment it reaches 0: blood is not rebuilt while
      it still runs out.

    Exact in integers and cheap: one step per fall of the rate, closed forms in between,
    so a week costs about as much as an hour. Advancing in two steps gives the same
    state, and the same sums, as advancing in one.
    """
    if not isinstance(state, Bleeding):
        raise RulesError(f"advance_bleeding needs a Bleeding state, got {state!r}")
    _check_int("seconds", seconds)
    try:
        pace = _PACE[Activity(activity)]
    except ValueError:
        raise RulesError(
            f"activity must be care, normal or active, got {activity!r}", code="activity"
        ) from None
    rate, clock, decay, recovery = state.rate, state.clock, state.decay, state.recovery
    gained = rises = 0
    left = seconds
    while rate and left:
        step = min(-(-(FALL_UNITS - decay) // pace), left)  # seconds to the next fall
        period, boxes = (
            (ROUND_SECONDS, rate // RATE_PER_ROUND) if rate >= RATE_PER_ROUND else (MINUTE, rate)
        )
        landings = (clock + step) // period - clock // period
        gained += landings * boxes
        rises += landings
        clock = (clock + step) % MINUTE
        decay += pace * step
        left -= step
        if decay >= FALL_UNITS:
            decay -= FALL_UNITS
            rate -= 1
            if not rate:
                clock = decay = 0
    loss = state.loss + gained
    recovered = 0
    if loss and left:  # the rate is 0 here
        recovery += pace * left
        recovered = min(loss, recovery // RECOVERY_UNITS)
        loss -= recovered
        recovery = recovery - recovered * RECOVERY_UNITS if loss else 0
    return BleedingAdvance(Bleeding(rate, loss, clock, decay, recovery), gained, recovered, rises)
