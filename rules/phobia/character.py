"""Phobia characters (phobia-utdrag.txt lines 118-350; rulings.md § Phobia).

Attributes (lines 118-160): Styrka (STY), Tålighet (TÅL), Rörlighet (RÖR), Personlighet
(PER), Psyke (PSY), Vilja (VIL), Bildning (BIL), and the senses Syn (SYN) and Hörsel
(HÖR). The excerpt does not say how they are made: a house rule, by default entered
3-18 (rulings). Tur (lines 251-256) is rolled against but given no value: it is entered
like an attribute (a house rule, default 3-18 too).

Derived values (lines 175-280), rounded down:

* Chockvärde = (STY+TÅL+VIL)/3 (line 181), Mentalvärde = (PSY+VIL)/2 (line 192);
* Lugn = (PSY+VIL)/5 + 2T6 (line 231). The 2T6 is rolled once, on the server, when the
  character is made, and kept (rulings); the (PSY+VIL)/5 part follows the attributes;
* Turordning (TO) = (RÖR+SYN)/2 + Lugn + 2 x Stridsvana (line 243);
* Förflyttning (FÖR) = (RÖR+TÅL+10)/4 metres a round (line 271);
* Bärförmåga (BF) = (STY+TÅL)/2 kilograms (line 280).

Skills (lines 302-350) have chances. The excerpt has no skill list: by default (a house
rule) the skills it names, with Stridsvana (line 207), all starting at 0.
"""

from collections.abc import Mapping
from fractions import Fraction
from math import ceil, floor
from typing import Any

from rules.errors import RulesError
from rules.phobia.dice import PlainDice, Roller, roll
from rules.system import Carrying, Derived, HouseRule, Issue, Stat, Term, gettext_noop

__all__ = [
    "ATTRIBUTES",
    "CALM_DICE",
    "DERIVED_TERMS",
    "HOUSE_RULES",
    "MAX_SKILL",
    "OVERLOADED_TESTS",
    "load",
    "SKILLS",
    "check",
    "creation_rolls",
    "derived",
]

ATTRIBUTE_TERMS = (
    Term("strength", "Styrka", "STY", "strength"),
    Term("endurance", "Tålighet", "TÅL", "endurance"),
    Term("agility", "Rörlighet", "RÖR", "agility"),
    Term("personality", "Personlighet", "PER", "personality"),
    Term("psyche", "Psyke", "PSY", "psyche"),
    Term("will", "Vilja", "VIL", "will"),
    Term("education", "Bildning", "BIL", "education"),
    Term("sight", "Syn", "SYN", "sight"),
    Term("hearing", "Hörsel", "HÖR", "hearing"),
    Term("luck", "Tur", "", "luck"),
)

# The attributes' bounds are house rules (below); these are the defaults.
DEFAULT_ATTRIBUTE_MIN = 3
DEFAULT_ATTRIBUTE_MAX = 18
DEFAULT_ATTRIBUTE = 10
ATTRIBUTE_LIMIT = 99  # the house rules' own bounds

ATTRIBUTES = tuple(
    Stat(
        term,
        DEFAULT_ATTRIBUTE_MIN,
        DEFAULT_ATTRIBUTE_MAX,
        DEFAULT_ATTRIBUTE,
        "lines 251-256" if term.key == "luck" else "lines 118-160",
    )
    for term in ATTRIBUTE_TERMS
)

MAX_SKILL = 99  # chances above 60 are beyond Ob10T6's reach of doubt; this only bounds input

SKILL_TERMS = (
    Term("combat_experience", "Stridsvana", "", "combat experience"),  # lines 207, 243, 786
    Term("demolitions", "Sprängteknik", "", "demolitions"),  # line 406
    Term("climbing", "Klättra", "", "climbing"),  # line 459
    Term("hiding", "Gömma", "", "hiding"),  # line 603
    Term("first_aid", "Första hjälpen", "", "first aid"),  # line 762
    Term("surgery", "Kirurgi", "", "surgery"),  # lines 931, 941
    Term("history", "Historia", "", "history"),  # line 445
    Term("jumping", "Hoppa", "", "jumping"),  # line 447
    Term("persuasion", "Övertala", "", "persuasion"),  # line 516
)
SKILLS = tuple(Stat(term, 0, MAX_SKILL, 0, "lines 302-350") for term in SKILL_TERMS)

DERIVED_TERMS = {
    term.key: term
    for term in (
        Term("shock_value", "Chockvärde", "", "shock value"),
        Term("mental_value", "Mentalvärde", "", "mental value"),
        Term("calm", "Lugn", "", "calm"),
        Term("turn_order", "Turordning", "TO", "turn order"),
        Term("movement", "Förflyttning", "FÖR", "movement"),
        Term("carrying_capacity", "Bärförmåga", "BF", "carrying capacity"),
    )
}

CALM_DICE = PlainDice(2, 6)  # Lugn's 2T6 (line 231)

HOUSE_RULES = (
    HouseRule(
        "attribute_min",
        gettext_noop("Lowest attribute"),
        DEFAULT_ATTRIBUTE_MIN,
        minimum=0,
        maximum=ATTRIBUTE_LIMIT,
        text="lines 118-160",
        help=gettext_noop(
            "The excerpt does not say how attributes are made; by default they are entered, "
            "3-18. Tur is entered the same way."
        ),
    ),
    HouseRule(
        "attribute_max",
        gettext_noop("Highest attribute"),
        DEFAULT_ATTRIBUTE_MAX,
        minimum=1,
        maximum=ATTRIBUTE_LIMIT,
        text="lines 118-160",
    ),
    HouseRule(
        "damage_columns",
        gettext_noop("Damage columns"),
        5,
        minimum=1,
        maximum=10,
        text="lines 164-171",
        help=gettext_noop(
            "Boxes in each of the ten rows of Trauma, Smärta and Blodförlust; the excerpt "
            "gives no number."
        ),
    ),
    HouseRule(
        "overload_levels",
        gettext_noop("Overloaded: Ob dice per whole Bärförmåga carried"),
        1,
        minimum=0,
        maximum=5,
        text="lines 274-283",
        help=gettext_noop(
            "The excerpt says a load above Bärförmåga overloads, not what that does. By "
            "default each whole Bärförmåga in the load adds +Ob1T6 to tests of STY, TÅL, "
            "RÖR, Klättra, Hoppa and Gömma (13 kg on BF 12: +Ob1T6; 24 kg: +Ob2T6). 0: no "
            "effect."
        ),
    ),
    HouseRule(
        "stopped_hit_bleeds",
        gettext_noop("A hit stopped by protection still gives its small bleed"),
        True,
        kind="bool",
        text="lines 827-828, 850-852",
        help=gettext_noop(
            "The text: every attack with a projectile or cutting weapon always gives one "
            "small bleed. On by default, as the text says; off: a hit protection stops "
            "entirely does nothing at all."
        ),
    ),
    HouseRule(
        "row_difficulty",
        gettext_noop("Difficulty per filled row"),
        1,
        minimum=0,
        maximum=5,
        text="lines 1021-1027, 1044-1052, 1114-1122",
        help=gettext_noop(
            "Ob dice each full row of Trauma, Smärta or Blodförlust adds to the rolls it "
            "affects; the excerpt's sheet gives the figures, which it lacks."
        ),
    ),
)


# What an overloaded character's load hinders (a house rule's reading of lines 274-283,
# which name the state but not its effect): the tests of the body moving and straining,
# STY, TÅL and RÖR and the skills the excerpt names that are done with them.
OVERLOADED_TESTS = ("strength", "endurance", "agility", "climbing", "jumping", "hiding")


def load(carried, capacity: int, house: Mapping[str, Any]) -> Carrying:
    """What a character carries (Belastning, ``carried`` kg: an int, Fraction or Decimal)
    on Bärförmåga ``capacity`` (lines 274-283): overloaded above it (line 278), and then
    +``overload_levels`` Ob dice per whole Bärförmåga in the load on each of
    :data:`OVERLOADED_TESTS` (Belastning 13 on BF 12: 1; 24: 2; 12: 0). With Bärförmåga
    0 each started kg is one (as Aoristos's ruling for FYS 0)."""
    carried = Fraction(carried)
    if carried < 0:
        raise RulesError(f"a load cannot be negative, got {carried}")
    if carried <= capacity:
        multiples = 0
    elif capacity > 0:
        multiples = floor(carried / capacity)
    else:
        multiples = ceil(carried)
    levels = multiples * house["overload_levels"]
    return Carrying(carried, capacity, multiples, levels, "kg", OVERLOADED_TESTS)


def _value(values: Mapping[str, int], key: str) -> int:
    value = values.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesError(f"{key} must be a whole number, got {value!r}")
    return value


def check(values: Mapping[str, int], house: Mapping[str, Any]) -> tuple[Issue, ...]:
    """What is wrong with a character's values under the campaign's house rules: each
    attribute within the house rule's bounds, each skill chance 0-99."""
    issues = []
    low, high = house["attribute_min"], house["attribute_max"]
    bounded = [(stat, low, high) for stat in ATTRIBUTES]
    bounded += [(stat, stat.minimum, stat.maximum) for stat in SKILLS]
    for stat, minimum, maximum in bounded:
        value = _value(values, stat.key)
        if value < minimum:
            issues.append(
                Issue(
                    stat.key,
                    "below_minimum",
                    gettext_noop("At least %(minimum)s."),
                    {"minimum": minimum},
                )
            )
        elif value > maximum:
            issues.append(
                Issue(
                    stat.key,
                    "above_maximum",
                    gettext_noop("At most %(maximum)s."),
                    {"maximum": maximum},
                )
            )
    return tuple(issues)


def creation_rolls(rng: Roller | None = None) -> dict:
    """What is rolled once when a character is made: Lugn's 2T6 (line 231)."""
    return {"calm": list(roll(CALM_DICE, rng).rolled)}


def _calm_dice(rolled: Mapping[str, Any]) -> list[int] | None:
    """Lugn's stored 2T6, or None before the character is saved (nothing rolled yet)."""
    if "calm" not in rolled:
        return None
    dice = rolled["calm"]
    if (
        not isinstance(dice, list)
        or len(dice) != CALM_DICE.count
        or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice)
    ):
        raise RulesError(f"Lugn's 2T6 is two dice 1-6, not {dice!r}")
    return dice


def derived(values: Mapping[str, int], rolled: Mapping[str, Any]) -> tuple[Derived, ...]:
    """The derived values (lines 175-280), rounded down, in the text's order. Before Lugn's
    2T6 is rolled (a character being made), Lugn and Turordning are None."""
    sty, tal, rör = (
        _value(values, "strength"),
        _value(values, "endurance"),
        _value(values, "agility"),
    )
    psy, vil, syn = _value(values, "psyche"), _value(values, "will"), _value(values, "sight")
    dice = _calm_dice(rolled)
    calm = None if dice is None else (psy + vil) // 5 + sum(dice)
    turn_order = (
        None
        if calm is None
        else ((rör + syn) // 2 + calm + 2 * _value(values, "combat_experience"))
    )
    shown = "2T6" if dice is None else f"2T6 [{' + '.join(map(str, dice))}]"
    terms = DERIVED_TERMS
    return (
        Derived(terms["shock_value"], (sty + tal + vil) // 3, "(STY+TÅL+VIL)/3", "line 181"),
        Derived(terms["mental_value"], (psy + vil) // 2, "(PSY+VIL)/2", "line 192"),
        Derived(terms["calm"], calm, f"(PSY+VIL)/5 + {shown}", "line 231"),
        Derived(terms["turn_order"], turn_order, "(RÖR+SYN)/2 + Lugn + 2 × Stridsvana", "line 243"),
        Derived(terms["movement"], (rör + tal + 10) // 4, "(RÖR+TÅL+10)/4", "line 271", "m"),
        Derived(terms["carrying_capacity"], (sty + tal) // 2, "(STY+TÅL)/2", "line 280", "kg"),
    )
