"""What happens to bodies over time (p. 13-15): immutable values with every die in them.

`engine.evolve` applies them; nothing here rolls. A survival roll is stored as
(dice, result, organtrauma it was rolled against, alive); a test as (dice, total, ST, ok).
"""

from dataclasses import dataclass
from datetime import datetime

from rules.aoristos.aftermath.state import Body, Disorder, Wound

Survival = tuple[tuple[int, ...], int, int, bool]
Test = tuple[tuple[int, ...], int, int, bool]


@dataclass(frozen=True)
class BodyAdded:
    body: Body


@dataclass(frozen=True)
class WoundAdded:
    id: str  # the body's
    wound: Wound
    organ_trauma: int = 0  # what the wound added at once (a hit on no limb, p. 14)
    survival: Survival | None = None
    # p. 13, at the hit: (bleed rate, nervchock, Chocktolerans) compared; None when not
    # tested here (no damage, or a fight's wound, whose fight tested it at the hit).
    shock: tuple[int, int, int] | None = None
    knocked_out: bool = False  # the sum reached Chocktolerans (or the fight left it out)


@dataclass(frozen=True)
class CircumstancesSet:
    """The GM's word on what a character does from now on (p. 13-14)."""

    id: str
    activity: str
    environment: str
    rest: str
    care: str
    recovery: str | None = None  # how psyktrauma fades (p. 15); None: as it was


@dataclass(frozen=True)
class FirstAidGiven:
    """Livräddning before the bleeding turned into blood loss (p. 13-14): `reduction`
    from the helpers' levels and the equipment, spread over the body's wounds that
    still bleed, oldest first (`applied`: wound id -> the part it took). `treated`: the
    wounds it was given to, each once (those the reduction ran out before too)."""

    id: str
    at: datetime
    levels: tuple[int, ...]
    equipment: tuple[str, ...]
    judged: int
    reduction: int
    applied: tuple[tuple[str, int], ...]
    treated: tuple[str, ...] = ()


@dataclass(frozen=True)
class Transfused:
    """A blood transfusion: blood loss gone without turning into trauma (p. 13)."""

    id: str
    at: datetime
    removed: int


@dataclass(frozen=True)
class BleedTick:
    """A wound's bleeding 5 min after it was dealt (`converted`: its bleed rate became
    blood loss), and every 10 min after while blood loss is left (p. 13): blood loss −1
    if resting (`fell`) and organtrauma +1 regardless, with its survival roll (p. 14)."""

    id: str
    wound: str
    at: datetime
    converted: bool
    blood_loss: int  # the wound's, after the tick
    fell: bool
    organ_trauma: int  # the body's, after the tick
    survival: Survival | None = None


@dataclass(frozen=True)
class HealingTest:
    """The healing test (p. 14): weekly (the night to Monday, without risk) or hourly
    while unstable (a result under 4 adds organtrauma, and its survival roll unless the
    same result also healed)."""

    id: str
    at: datetime
    hourly: bool
    test: Test
    result: int  # the dice's result (the TB is empty)
    healed: bool
    harmed: bool
    organ_trauma: int  # after
    survival: Survival | None = None


@dataclass(frozen=True)
class AwakeTest:
    """Organtrauma 7+: a VIL test against unconsciousness every 5 min awake (p. 14)."""

    id: str
    at: datetime
    test: Test


@dataclass(frozen=True)
class LimbMended:
    """A limb wound a month old (p. 14): a broken limb heals; a destroyed one stays
    destroyed, but its nervchock no longer lasts."""

    id: str
    wound: str
    at: datetime
    area: str
    limb_state: str  # the limb's state after


@dataclass(frozen=True)
class Rested:
    """Rested out: the lasting nervchock is away until activity brings it back (p. 14)."""

    id: str
    at: datetime


@dataclass(frozen=True)
class Woke:
    id: str
    at: datetime


@dataclass(frozen=True)
class PsychTraumaGained:
    """Psyktrauma from a hand the GM gave (all its dice, the lowest counted) or a number
    (p. 15). A rise to a sum above 20 calls the test of VIL + 20 against the sum
    (`test`: failure breaks the character for good). A shocking event's gain opens the
    chance of a temporary disorder until `vent_until` (the next morning)."""

    id: str
    at: datetime
    hand: str | None
    dice: tuple[int, ...]
    amount: int
    psych_trauma: int  # after
    source: str
    permanent: bool
    reason: str = ""
    test: Test | None = None
    vent_until: datetime | None = None


@dataclass(frozen=True)
class DisorderTaken:
    """A disorder vented psyktrauma (p. 15); `develops`: the lasting disorder that became
    its diagnosable variant (then `disorder` is it, changed)."""

    id: str
    disorder: Disorder
    removed: int
    psych_trauma: int  # after
    develops: str | None = None


@dataclass(frozen=True)
class DisorderCured:
    """A lasting disorder cured, possible only below 10 psyktrauma (p. 15)."""

    id: str
    disorder: str
    at: datetime


@dataclass(frozen=True)
class PsychRecovered:
    """Talk, a change of scene and rest took psyktrauma away (p. 15): at best VIL points
    a month, 1 a half year in ordinary life."""

    id: str
    at: datetime
    removed: int
    psych_trauma: int  # after
    recovery: str


@dataclass(frozen=True)
class ClockMoved:
    """The campaign's clock (and the clocks of `ids`, the bodies that lived through the
    span) now stands at `to`."""

    to: datetime
    ids: tuple[str, ...]


@dataclass(frozen=True)
class ClockSet:
    """Before anything has happened to anybody, the GM sets the campaign's date (any,
    earlier too): every clock stands at `to`."""

    to: datetime


EVENT_TYPES = {
    cls.__name__: cls
    for cls in (
        BodyAdded,
        WoundAdded,
        CircumstancesSet,
        FirstAidGiven,
        Transfused,
        BleedTick,
        HealingTest,
        AwakeTest,
        LimbMended,
        Rested,
        Woke,
        PsychTraumaGained,
        DisorderTaken,
        DisorderCured,
        PsychRecovered,
        ClockMoved,
        ClockSet,
    )
}
