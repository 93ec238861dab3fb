"""Aoristos through the rule-system interface (:mod:`rules.system`).

Aoristos characters are bought with UP (``builder = "points"``): the apps keep its own
builder, ledger and advancement (characters/), which call :mod:`rules.aoristos.character`.
What every system answers (terms, stats, derived values, tests, house rules) is here.
"""

from collections.abc import Mapping
from typing import Any

from rules.aoristos import character, dice, success
from rules.errors import RulesError
from rules.simulation import AWARD_DEFAULTS
from rules.system import (
    Derived,
    HouseRule,
    Issue,
    Stat,
    Term,
    TestPlan,
    TestResult,
    gettext_noop,
    read_house_rules,
)

__all__ = ["ATTRIBUTE_TERMS", "SECONDARY_TERMS", "SKILL_TERMS", "SYSTEM", "AoristosSystem"]

ATTRIBUTE_TERMS = (
    Term("physique", "Fysik", "FYS", "physique"),
    Term("composure", "Kaosvana", "KAO", "composure"),
    Term("agility", "Rörlighet", "RÖR", "agility"),
    Term("alertness", "Sinnesnärvaro", "SIN", "alertness"),
    Term("willpower", "Viljestyrka", "VIL", "willpower"),
)

SECONDARY_TERMS = (
    Term("carrying_capacity", "Bärförmåga", "", "carrying capacity"),
    Term("shock_tolerance", "Chocktolerans", "", "shock tolerance"),
    Term("movement", "Förflyttning", "", "movement"),
    Term("drive", "Handlingskraft", "", "drive"),
    Term("toughness", "Härdighet", "", "toughness"),
)

SKILL_TERMS = (
    Term("car", "Bil", "", "car"),
    Term("blowpipe", "Blåsrör", "", "blowpipe"),
    Term("airplane", "Flygplan", "", "airplane"),
    Term("mechanics", "Mekanik", "", "mechanics"),
    Term("helicopter", "Helikopter", "", "helicopter"),
    Term("throwing", "Kast", "", "throwing"),
    Term("climbing", "Klättring", "", "climbing"),
    Term("first_aid", "Livräddning", "", "first aid"),
    Term("motorboat", "Motorbåt", "", "motorboat"),
    Term("motorcycle", "Motorcykel", "", "motorcycle"),
    Term("melee_weapons", "Närstridsvapen", "", "melee weapons"),
    Term("bow", "Pilbåge", "", "bow"),
    Term("psychology", "Psykologi", "", "psychology"),
    Term("riding", "Ritt", "", "riding"),
    Term("sailboat", "Segelbåt", "", "sailboat"),
    Term("swimming", "Simning", "", "swimming"),
    Term("firearms", "Skjutvapen", "", "firearms"),
    Term("brawling", "Slagsmål", "", "brawling"),
    Term("sling", "Slunga", "", "sling"),
    Term("evasion", "Undvika", "", "evasion"),
    Term("wilderness", "Vildmark", "", "wilderness"),
)

# The award for a fight (p. 4, "Strid, oavsett resultat") is simulated (issue 29,
# rules.simulation.award): the table names its rows, not where they begin.
AWARD_HOUSE_RULES = (
    HouseRule(
        "award_group_threat_percent",
        gettext_noop("Group threatened when it fails to win this many % (3 UP)"),
        AWARD_DEFAULTS["award_group_threat_percent"],
        minimum=1,
        maximum=100,
        text="p. 4, Strid, oavsett resultat",
        help=gettext_noop(
            "The simulated award: the whole group is threatened (3 UP) when it fails to "
            "win at least this share of the simulated fights."
        ),
    ),
    HouseRule(
        "award_no_threat_percent",
        gettext_noop("No threat when one character alone wins this many % (0 UP)"),
        AWARD_DEFAULTS["award_no_threat_percent"],
        minimum=1,
        maximum=100,
        text="p. 4, Strid, oavsett resultat",
    ),
    HouseRule(
        "award_alone_wins_percent",
        gettext_noop("Would win alone from this many % (1 UP; else 2 UP)"),
        AWARD_DEFAULTS["award_alone_wins_percent"],
        minimum=1,
        maximum=100,
        text="p. 4, Strid, oavsett resultat",
    ),
)

FORMULAS = {  # p. 2, as the text writes them
    "carrying_capacity": "4 × FYS",
    "shock_tolerance": "VIL + 3",
    "movement": "RÖR + 5",
    "drive": "KAO + SIN/2 + 4",
    "toughness": "FYS + 1",
}


class AoristosSystem:
    name = "aoristos"
    title = "Aoristos"
    builder = "points"
    template = "systems/aoristos"
    attributes = tuple(
        Stat(t, character.MIN_LEVEL, character.MAX_LEVEL, character.DEFAULT_ATTRIBUTE, "p. 2")
        for t in ATTRIBUTE_TERMS
    )
    skills = tuple(
        Stat(t, character.MIN_LEVEL, character.MAX_LEVEL, character.DEFAULT_SKILL, "p. 3")
        for t in SKILL_TERMS
    )
    # The simulated award's thresholds; the combat and chronicle engines keep their own.
    house_rules: tuple[HouseRule, ...] = AWARD_HOUSE_RULES
    test_params = ()  # its tray is the live table's own (TB, F and T dice, ST: p. 5)
    hand_examples = ("2B2T+1",)  # its hands too (table.forms.HandForm: B, F and T dice)
    # Its opposed tests (each side sums the TBs of everyone on it, p. 5) are the live
    # table's own form's (table.forms.RollForm, over success.opposed_side and
    # opposed_odds), as its tests are: a TestPlan of one character a side cannot hold them.
    opposition = False
    opposed_params = ()
    opponent_value = None
    delayed_opposition = False
    carries = False
    reads_body = False  # its table tests take no wounds (the sheet's nervchock is combat's)
    skill_values = gettext_noop("levels")

    def house(self, values: Mapping[str, Any] | None) -> dict:
        return read_house_rules(self.house_rules, values)

    def is_social(self, key: str) -> bool:
        return False  # its tests carry nothing (carries is false)

    def stats(self, house: Mapping[str, Any]) -> tuple[tuple[Stat, ...], tuple[Stat, ...]]:
        return self.attributes, self.skills

    def bounds(self, stat: Stat, house: Mapping[str, Any]) -> tuple[int, int]:
        return stat.minimum, stat.maximum

    def check(self, values: Mapping[str, int], house: Mapping[str, Any]) -> tuple[Issue, ...]:
        """Levels out of 0-30 (the UP budget and level cap are the builder's: p. 2-3)."""
        return tuple(
            Issue(
                stat.key,
                "out_of_range",
                gettext_noop("Level %(minimum)s-%(maximum)s."),
                {"minimum": stat.minimum, "maximum": stat.maximum},
            )
            for stat in self.attributes + self.skills
            if not stat.minimum <= values.get(stat.key, stat.default) <= stat.maximum
        )

    def creation_rolls(self, values: Mapping[str, int], rng) -> dict:
        return {}  # an Aoristos character is bought, nothing is rolled (p. 2)

    def derived(
        self, values: Mapping[str, int], rolled: Mapping[str, Any], house: Mapping[str, Any]
    ) -> tuple[Derived, ...]:
        """The secondary attributes (p. 2), from the unmodified primaries."""
        secondary = character.secondary({key: values[key] for key in character.ATTRIBUTES})
        figures = secondary.as_dict()
        return tuple(
            Derived(term, figures[term.key], FORMULAS[term.key], "p. 2") for term in SECONDARY_TERMS
        )

    def testables(
        self, values: Mapping[str, int], rolled: Mapping[str, Any], house: Mapping[str, Any]
    ) -> tuple[tuple[Term, int], ...]:
        return tuple((stat.term, values[stat.key]) for stat in self.attributes + self.skills)

    def plan_test(
        self, values: Mapping[str, int], request: Mapping[str, Any], house: Mapping[str, Any]
    ) -> TestPlan:
        """``request``: ``keys`` (the properties in the TB), ``free``/``forced`` dice,
        ``threshold`` (None: the GST) and a ``constant`` in the TB (p. 5)."""
        keys = request.get("keys", [])
        if not isinstance(keys, list) or not all(k in values for k in keys):
            raise RulesError("choose what to test")
        planned = success.plan_test(
            dict(values),
            keys,
            free=request.get("free", 0),
            forced=request.get("forced", 0),
            threshold=request.get("threshold"),
            constant=request.get("constant", 0),
        )
        return TestPlan(
            label=request.get("label", ""),
            notation=str(planned.hand),
            target=planned.threshold,
            p_success=success.p_success(planned.hand, planned.test_base, planned.threshold),
            params={"test_base": planned.test_base, "gst": planned.gst},
        )

    def roll_test(self, plan: TestPlan, rng) -> TestResult:
        rolled = dice.roll(dice.parse_hand(plan.notation), rng)
        outcome = success.resolve_test(plan.params["test_base"], plan.target, rolled)
        return TestResult(
            plan=plan,
            dice=rolled.dice,
            total=outcome.total,
            success=outcome.success,
            marks={"counted": list(rolled.counted), "margin": outcome.margin},
        )

    def result_of(self, stored: Mapping[str, Any]) -> TestResult:
        raise RulesError("Aoristos rolls are stored in the roll's own columns")

    def situation_of(self, result: TestResult) -> str | None:
        return None  # no Aoristos test opens a situation

    def luck_of(self, stored: Mapping[str, Any]) -> None:
        raise RulesError("Aoristos rolls are stored in the roll's own columns "
                         "(table.services.luck_of reads them)")

    def carrying(self, values, rolled, house, carried) -> None:
        return None  # its sheet weighs FP against Bärförmåga itself (Character.load, p. 5)

    # Its hands count the highest or the lowest free dice (p. 5): the live table's own
    # form rolls them and keeps them in the roll's columns.
    def _table_hand(self, *args):
        raise RulesError("Aoristos hands are rolled by the table's own form")

    plan_hand = roll_hand = stored_hand = hand_of = _table_hand

    def _no_opposition(self, *args):
        raise RulesError("Aoristos's opposed tests are rolled by the table's own form")

    opposed_odds = roll_opposed = delayed_odds = overcomes = _no_opposition


SYSTEM = AoristosSystem()
