"""T10 characters (t10-ap-utdrag.txt, "Förmågor och färdigheter"; rulings.md § T10).

Every character has the same four abilities (förmågor). An ability gives at most ±0 on a
roll (line 4): its value is 0 or a penalty, used when no specific skill applies. Only
"Social Kompetens" is named (Johan's −2 in the charm example); the other three are house
rules with default names. Skills (färdigheter) are grouped under the abilities and give
up to +3.

Readings where the excerpt is terse or silent (written down in docs/rules/t10.md too):

* **A skill replaces its ability.** Johan charms with his Social Kompetens (−2) because he
  has no Charma; with his +3 in Hota "it would have gone much better": the skill's bonus
  is used instead of the ability's, not added to it. A skill at 0 is a skill the
  character does not have, so the ability is used.
* **How low an ability goes** is a house rule: by default −3 (mirroring the skills' +3).
* **The skill list** is not given. The excerpt names Charma, Hota, Övertyga, förhör
  (Förhöra) and Pistol; the list adds the skills its examples need (Kasta for the
  grenade, K-pist for the SMG, Sjukvård for medical care) and a few more, each under
  one of the four abilities.
* **Initiative** is a number added to 1T10 (the "Initiativ" section) whose source the
  excerpt does not give: entered like a skill, 0 to a house-rule maximum (default +3).
"""

from collections.abc import Mapping
from typing import Any

from rules.errors import RulesError
from rules.system import Derived, HouseRule, Issue, Stat, Term, gettext_noop

__all__ = [
    "ABILITIES",
    "AP_PER_ROUND",
    "HOUSE_RULES",
    "INITIATIVE",
    "SKILLS",
    "SOCIAL",
    "ability_of",
    "bonus",
    "check",
    "derived",
    "named_terms",
]

SOCIAL = "social"
AP_PER_ROUND = 10  # "Alla rollpersoner har 10 AP som de får lov att använda varje runda"
MAX_SKILL = 3  # "kan ge en bonus på upp till +3"
MAX_ABILITY = 0  # "kan som mest ge en bonus på ±0"
DEFAULT_ABILITY_MIN = -3
DEFAULT_INITIATIVE_MAX = 3

# The four abilities: key, the default Swedish name (a house rule but Social Kompetens),
# and the English gloss.
ABILITY_TERMS = (
    Term("body", "Kropp", "", "body"),
    Term("combat", "Strid", "", "combat"),
    Term("mind", "Intellekt", "", "mind"),
    Term(SOCIAL, "Social Kompetens", "", "social competence"),
)
ABILITIES = tuple(
    Stat(term, DEFAULT_ABILITY_MIN, MAX_ABILITY, 0, "Förmågor och färdigheter")
    for term in ABILITY_TERMS
)

# Skills by ability; "text" marks the excerpt's own (its line), the rest are this
# project's list (a reading, see the module docstring).
_SKILLS = (
    ("body", Term("climb", "Klättra", "", "climbing"), ""),
    ("body", Term("sneak", "Smyga", "", "sneaking"), ""),
    ("body", Term("athletics", "Springa", "", "running"), ""),
    ("body", Term("swim", "Simma", "", "swimming"), ""),
    ("combat", Term("pistol", "Pistol", "", "pistol"), "Färdighetsslag, Johan's pistol"),
    ("combat", Term("rifle", "Gevär", "", "rifle"), ""),
    ("combat", Term("smg", "K-pist", "", "submachine gun"), "Kroppsskydd (k-pist)"),
    ("combat", Term("throw", "Kasta", "", "throwing"), "Spara action points (handgranat)"),
    ("combat", Term("melee", "Närstrid", "", "melee"), ""),
    ("mind", Term("medicine", "Sjukvård", "", "medical care"), "Utmattning och skada"),
    ("mind", Term("perception", "Uppmärksamhet", "", "perception"), ""),
    ("mind", Term("technology", "Teknik", "", "technology"), ""),
    (SOCIAL, Term("charm", "Charma", "", "charm"), "Förmågor och färdigheter"),
    (SOCIAL, Term("intimidate", "Hota", "", "intimidate"), "Förmågor och färdigheter"),
    (SOCIAL, Term("persuade", "Övertyga", "", "persuade"), "Att använda DoS och DoF"),
    (SOCIAL, Term("interrogate", "Förhöra", "", "interrogate"), "Påföljande slag"),
)
SKILLS = tuple(Stat(term, 0, MAX_SKILL, 0, text, group) for group, term, text in _SKILLS)
SKILL_ABILITY = {term.key: group for group, term, _text in _SKILLS}

INITIATIVE = Stat(
    Term("initiative", "Initiativ", "", "initiative"), 0, DEFAULT_INITIATIVE_MAX, 0,
    "Initiativ",
)

HOUSE_RULES = (
    HouseRule(
        "ability_body",
        gettext_noop("Name of the first ability"),
        "Kropp",
        kind="text",
        text=gettext_noop("Förmågor och färdigheter: only Social Kompetens is named"),
        help=gettext_noop("The excerpt names only Social Kompetens of the four abilities."),
    ),
    HouseRule(
        "ability_combat",
        gettext_noop("Name of the second ability"),
        "Strid",
        kind="text",
        text=gettext_noop("Förmågor och färdigheter: only Social Kompetens is named"),
    ),
    HouseRule(
        "ability_mind",
        gettext_noop("Name of the third ability"),
        "Intellekt",
        kind="text",
        text=gettext_noop("Förmågor och färdigheter: only Social Kompetens is named"),
    ),
    HouseRule(
        "ability_min",
        gettext_noop("Lowest ability"),
        DEFAULT_ABILITY_MIN,
        minimum=-10,
        maximum=0,
        text=gettext_noop("Förmågor och färdigheter: at most ±0, no lowest value"),
        help=gettext_noop("Abilities give at most ±0; the excerpt gives no lowest value."),
    ),
    HouseRule(
        "initiative_max",
        gettext_noop("Highest Initiative"),
        DEFAULT_INITIATIVE_MAX,
        minimum=0,
        maximum=10,
        text=gettext_noop("Initiativ: 1T10 + Initiative, no source given"),
        help=gettext_noop(
            "The excerpt adds Initiative to 1T10 but does not say where it comes from: "
            "it is entered like a skill, 0 to this."
        ),
    ),
)

_NAME_RULES = {"body": "ability_body", "combat": "ability_combat", "mind": "ability_mind"}


def named_terms(house: Mapping[str, Any]) -> dict[str, Term]:
    """The abilities' terms as the campaign names them (house rules)."""
    terms = {}
    for stat in ABILITIES:
        name = house.get(_NAME_RULES.get(stat.key, ""), "") or stat.term.swedish
        terms[stat.key] = Term(stat.key, name, "", stat.term.gloss)
    return terms


def ability_of(key: str) -> str:
    """The ability a skill sorts under (an ability is its own)."""
    if key in SKILL_ABILITY:
        return SKILL_ABILITY[key]
    if key in {stat.key for stat in ABILITIES}:
        return key
    raise RulesError(f"no ability or skill {key!r}")


def bonus(values: Mapping[str, int], key: str) -> int:
    """The bonus a roll of ``key`` (a skill or an ability) gets from the character: the
    skill's when the character has it (1-3), else its ability's (0 or less)."""
    ability = ability_of(key)
    if key != ability and int(values.get(key, 0)) > 0:
        return int(values[key])
    return int(values.get(ability, 0))


def is_social(key: str) -> bool:
    """Whether a roll of ``key`` is social (Social Kompetens or a skill under it): its
    carry is kept per pair of people ("Att använda DoS och DoF")."""
    return ability_of(key) == SOCIAL


def bounds(stat: Stat, house: Mapping[str, Any]) -> tuple[int, int]:
    if stat in ABILITIES:
        return house["ability_min"], MAX_ABILITY
    if stat == INITIATIVE:
        return 0, house["initiative_max"]
    return stat.minimum, stat.maximum


def check(values: Mapping[str, int], house: Mapping[str, Any]) -> tuple[Issue, ...]:
    issues = []
    for stat in (*ABILITIES, INITIATIVE, *SKILLS):
        value = values.get(stat.key, stat.default)
        low, high = bounds(stat, house)
        if isinstance(value, bool) or not isinstance(value, int):
            issues.append(Issue(stat.key, "not_a_number", gettext_noop("Enter a whole number.")))
        elif not low <= value <= high:
            issues.append(
                Issue(
                    stat.key,
                    "out_of_bounds",
                    gettext_noop("%(name)s must be %(low)s to %(high)s."),
                    {"name": stat.term.swedish, "low": low, "high": high},
                )
            )
    return tuple(issues)


def derived(values: Mapping[str, int]) -> tuple[Derived, ...]:
    """What the sheet shows beside the entered values: AP per round."""
    return (
        Derived(
            Term("ap", "Action points", "AP", "action points"),  # the Swedish text's own words
            AP_PER_ROUND,
            "10",
            "Action points",
        ),
    )
