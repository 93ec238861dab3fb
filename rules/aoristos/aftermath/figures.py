"""The arithmetic of bleeding, first aid and healing (p. 13-14), each with its page.

Pure functions of numbers; `engine` applies them in time order.
"""

from datetime import datetime, timedelta

from rules.aoristos.dice import Hand
from rules.aoristos.success import base_threshold
from rules.errors import RulesError

# p. 13: "5 minuter efter att ett sår uppstod förvandlas blödningstakten ... till
# blodförlust. Då, och var tionde minut därefter ..."
CONVERSION = timedelta(minutes=5)
BLEED_TICK = timedelta(minutes=10)
# p. 14: 7+ organtrauma: a VIL test against unconsciousness every five minutes awake.
AWAKE_TEST_EVERY = timedelta(minutes=5)
# p. 14: unstable (5+): a healing test every hour instead of every week.
UNSTABLE_TEST_EVERY = timedelta(hours=1)
# p. 14: limb nervchock lasts, and broken limbs heal, when the wound is a month old. A
# month is 30 days here (rulings: the text names no calendar).
MONTH = timedelta(days=30)

UNSTABLE = 5  # p. 14, organtrauma 5+
LASTING_SHOCK = 3  # p. 14, organtrauma 3+
AWAKE_TESTS = 7  # p. 14, organtrauma 7+
SURVIVAL_HAND = Hand.of(2, forced=2)  # p. 14: 2B2T, no TB
HEALING_GST = base_threshold(0)  # p. 14: nothing in the TB, so GST 4
UNSTABLE_HARM_UNDER = 4  # p. 14: an unstable test's result under 4 adds organtrauma
VIL_GST = base_threshold(1)  # a VIL test: GST 6 (p. 5)

# p. 15, Psyktrauma: 20+ is psychosis; each rise to a sum above it calls the test of
# Viljestyrka + 20 against the sum (failure: broken for good).
PSYCHOSIS = 20
PSYCHOSIS_TB = 20
# p. 15: what a disorder takes away. A temporary one 1; a lasting one 10; a clearly
# diagnosable variant 10 more. Lasting ones can be cured only below 10.
DISORDER_REMOVES = {"temporary": 1, "lasting": 10, "diagnosable": 20}
CURABLE_BELOW = 10
# p. 15, Återhämtning: at best VIL points a month, 1 point a half year in ordinary life.
RECOVERY_EVERY = {"best": MONTH, "ordinary": 6 * MONTH}
# House rule (the text: "innan nästföljande morgon"): the morning begins at 06:00.
MORNING_HOUR = 6


def next_morning(after: datetime, hour: int = MORNING_HOUR) -> datetime:
    """The first `hour`:00 strictly after `after`: the end of the chance to take a
    temporary disorder (p. 15)."""
    morning = after.replace(hour=hour, minute=0, second=0, microsecond=0)
    return morning if morning > after else morning + timedelta(days=1)


def recovered(recovery: str, willpower: int) -> int:
    """What one recovery period takes away (p. 15): "upp till" VIL a month at best (VIL 0:
    nothing), else 1 a half year."""
    return max(0, willpower) if recovery == "best" else 1


# p. 14, "Effekter av utrustning vid stoppande av blödning".
AID_EQUIPMENT = {
    "immediate": 1,  # Omedelbar hjälp.
    "no_equipment": -1,  # Ingen utrustning.
    "modern_bandage": 1,  # Moderna bandage.
    "coagulant": 1,  # Koaguleringsmedel.
    "tight": 1,  # Farligt hårda förband (risk för kroniska skador).
}

# p. 14, Läkning 1-3: what each circumstance adds to the healing test's ST.
ENVIRONMENT = {"squalid": 2, "outdoors": 0, "clean": -1, "hospital": -2}  # Miljö
REST = {"none": 5, "normal": 3, "moving": 1, "thorough": 0}  # Personens vila
CARE = {"stone_age": 0, "basic": -1, "professional": -2}  # Vård av personen


def aid_reduction(levels: tuple[int, ...], equipment: tuple[str, ...], judged: int = 0) -> int:
    """How much first aid lowers a bleed rate (p. 13-14): the helper's Livräddning, or
    twice the lower level of two working together, plus the equipment table, plus what
    the GM judges other equipment worth (the Vårdare example: a half-empty kit, +1)."""
    if not 1 <= len(levels) <= 2:
        raise RulesError("first aid is given by one or two helpers")
    if any(not isinstance(level, int) or isinstance(level, bool) or level < 0 for level in levels):
        raise RulesError("a Livräddning level is a whole number, 0 or more")
    unknown = [item for item in equipment if item not in AID_EQUIPMENT]
    if unknown:
        raise RulesError(f"unknown first-aid circumstance {unknown[0]!r}")
    skill = levels[0] if len(levels) == 1 else 2 * min(levels)
    if not isinstance(judged, int) or isinstance(judged, bool) or not -5 <= judged <= 5:
        raise RulesError("the equipment's worth is a whole number from -5 to +5")
    return skill + sum(AID_EQUIPMENT[item] for item in dict.fromkeys(equipment)) + judged


def healing_threshold(environment: str, rest: str, care: str, *, unstable: bool) -> int:
    """The healing test's ST (p. 14): GST 4, plus the environment (not while unstable),
    the rest and the care."""
    for name, value, table in (
        ("environment", environment, ENVIRONMENT),
        ("rest", rest, REST),
        ("care", care, CARE),
    ):
        if value not in table:
            raise RulesError(f"unknown {name} {value!r}")
    threshold = HEALING_GST + REST[rest] + CARE[care]
    if not unstable:
        threshold += ENVIRONMENT[environment]
    return threshold


def next_monday_night(after: datetime) -> datetime:
    """The weekly healing test's time (p. 14: "natten till måndag"): the first Monday
    00:00 strictly after `after`."""
    midnight = after.replace(hour=0, minute=0, second=0, microsecond=0)
    days = (7 - midnight.weekday()) % 7 or 7
    return midnight + timedelta(days=days)
