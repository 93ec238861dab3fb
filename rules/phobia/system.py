"""Phobia through the rule-system interface (:mod:`rules.system`)."""

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from rules.errors import RulesError
from rules.phobia import character
from rules.phobia.dice import (
    MAX_OB_DICE,
    ObDice,
    ObRoll,
    PlainRoll,
    parse_dice,
    plain_distribution,
    roll,
)
from rules.phobia.success import (
    Difficulty,
    TestOutcome,
    delayed_difficulty,
    delayed_odds,
    delayed_opposed,
    modify_difficulty,
    odds,
    opposed,
    opposed_odds,
    relative_effect,
    resolve_test,
)
from rules.system import (
    Carrying,
    Derived,
    HandPlan,
    HandResult,
    HouseRule,
    Issue,
    OpposedResult,
    Stat,
    Term,
    TestParam,
    TestPlan,
    TestResult,
    gettext_noop,
    read_house_rules,
)

__all__ = ["SYSTEM", "PhobiaSystem"]

# The named difficulties of table 1 (lines 53-65), Swedish on every page.
DIFFICULTY_NAMES = {
    Difficulty.VERY_EASY: "Mycket lätt",
    Difficulty.EASY: "Lätt",
    Difficulty.NORMAL: "Normalsvårt",
    Difficulty.HARD: "Svårt",
    Difficulty.VERY_HARD: "Mycket svårt",
}

# A Lugn test's outcome for the rest of its situation (lines 210-229): the levels it adds
# to every other test then. Perfect makes them one level easier, but not below Ob2T6.
SITUATIONS = {"calm": 0, "nervous": 1, "breakdown": 1, "exemplary": -1}
SITUATION_FLOOR = Difficulty.EASY  # "dock lägst till svårighet lätt (Ob2T6)", line 229

MAX_MODIFIER = 10  # +-Ob10T6 of modifiers in one test is far beyond any the text names
MAX_VOLUNTARY = 10  # voluntary levels (lines 589-597): a bound, not the text's
# Ties are rolled again (line 563-564); a tie twenty times running has a chance below 1e-8
# for any pair the tray allows but Ob0T6 against Ob0T6, so the exchange then stops undecided.
MAX_OPPOSED_ROUNDS = 20


def _int(request: Mapping[str, Any], key: str, default: int) -> int:
    value = request.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{key} must be a whole number")
    return value


class PhobiaSystem:
    name = "phobia"
    title = "Phobia"
    builder = "entered"
    template = "systems/phobia"
    attributes: tuple[Stat, ...] = character.ATTRIBUTES
    skills: tuple[Stat, ...] = character.SKILLS
    house_rules: tuple[HouseRule, ...] = character.HOUSE_RULES
    test_params = (
        TestParam(
            "difficulty",
            gettext_noop("Difficulty"),
            0,
            MAX_OB_DICE,
            Difficulty.NORMAL,
            choices=tuple(
                (n, f"Ob{n}T6" + (f" {DIFFICULTY_NAMES[n]}" if n in DIFFICULTY_NAMES else ""))
                for n in range(MAX_OB_DICE + 1)
            ),
        ),
        TestParam(
            "modifier",
            gettext_noop("Modifiers (Ob dice + or −)"),
            -MAX_MODIFIER,
            MAX_MODIFIER,
            0,
            help=gettext_noop("Summed before the roll: +1 is one level harder (+Ob1T6)."),
        ),
        TestParam(
            "voluntary",
            gettext_noop("Voluntary difficulty levels"),
            0,
            MAX_VOLUNTARY,
            0,
            help=gettext_noop(
                "Levels added to your own roll (each +Ob1T6) to make it harder for whoever "
                "later tries to see through it: if the roll still succeeds, each later roll "
                "against it adds as many."
            ),
        ),
    )

    # The text's own hands: damage in Ob dice (line 812), the serious-injury table's 1T10
    # (lines 833, 946), Lugn's 2T6 (line 231), and the injury codes' (1T6/2)-1 and 1T6-1
    # (lines 920-935).
    hand_examples = ("Ob3T6", "1T10", "2T6", "(1T6/2)-1", "1T6-1")
    opposition = True  # active opposition and opposition to an earlier roll, lines 556-609
    # The GM may give each side its own difficulty (lines 566-569); modifiers are summed
    # into it.
    opposed_params = test_params[:1]
    # Someone without a sheet is given a chance (lines 556-578).
    opponent_value = TestParam("chance", gettext_noop("The opponent's chance"), 0, 200, 10)
    delayed_opposition = True  # lines 580-609
    carries = False
    reads_body = False
    skill_values = gettext_noop("chances")

    def house(self, values: Mapping[str, Any] | None) -> dict:
        house = read_house_rules(self.house_rules, values)
        if house["attribute_min"] > house["attribute_max"]:
            raise RulesError(gettext_noop("The lowest attribute must not be above the highest."))
        return house

    def is_social(self, key: str) -> bool:
        return False  # its tests carry nothing (carries is false)

    def stats(self, house: Mapping[str, Any]) -> tuple[tuple[Stat, ...], tuple[Stat, ...]]:
        return self.attributes, self.skills

    def bounds(self, stat: Stat, house: Mapping[str, Any]) -> tuple[int, int]:
        """A stat's bounds in a campaign: the attributes' are house rules."""
        if stat in self.attributes:
            return house["attribute_min"], house["attribute_max"]
        return stat.minimum, stat.maximum

    def check(self, values: Mapping[str, int], house: Mapping[str, Any]) -> tuple[Issue, ...]:
        return character.check(values, house)

    rolled_at_creation = "Lugn (2T6)"  # what the builder says is rolled when saved

    def creation_rolls(self, values: Mapping[str, int], rng) -> dict:
        return character.creation_rolls(rng)

    def derived(
        self, values: Mapping[str, int], rolled: Mapping[str, Any], house: Mapping[str, Any]
    ) -> tuple[Derived, ...]:
        return character.derived(values, rolled)

    def testables(
        self, values: Mapping[str, int], rolled: Mapping[str, Any], house: Mapping[str, Any]
    ) -> tuple[tuple[Term, int], ...]:
        """What a test may be rolled against: every attribute and skill (lines 329-350)
        and Lugn (lines 210-229)."""
        stats = [
            (stat.term, values.get(stat.key, stat.default))
            for stat in self.attributes + self.skills
        ]
        calm = next(d for d in self.derived(values, rolled, house) if d.key == "calm")
        return (*stats, (calm.term, calm.value))

    def carrying(
        self, values: Mapping[str, int], rolled: Mapping[str, Any], house: Mapping[str, Any],
        carried: Fraction,
    ) -> Carrying:
        """Belastning against Bärförmåga, (STY+TÅL)/2 kg (lines 274-283)."""
        capacity = next(d for d in self.derived(values, rolled, house)
                        if d.key == "carrying_capacity")
        return character.load(carried, capacity.value, house)

    def plan_test(
        self, values: Mapping[str, int], request: Mapping[str, Any], house: Mapping[str, Any]
    ) -> TestPlan:
        """``request``: ``stat`` (a key of ``testables``), ``difficulty`` (Ob dice, 0-20;
        default 3, normal) and ``modifier`` (levels added or removed, e.g. -1 for "en nivå
        enklare", summed first: lines 527-552); optionally ``carried``, the kg the
        character carries (an overloaded character's tests of :data:`OVERLOADED_TESTS` are
        harder, a house rule: ``character.load``) and ``situation`` (an open Lugn
        situation). ``values``: the testables' values, with ``carrying_capacity`` when
        ``carried`` is given."""
        key = request.get("stat")
        if not isinstance(key, str) or key not in values:
            raise RulesError("choose what to test")
        chance = values[key]
        base = _int(request, "difficulty", Difficulty.NORMAL)
        if not 0 <= base <= MAX_OB_DICE:
            raise RulesError(f"the difficulty is Ob0T6 to Ob{MAX_OB_DICE}T6")
        modifier = _int(request, "modifier", 0)
        if abs(modifier) > MAX_MODIFIER:
            raise RulesError(f"modifiers add or remove at most {MAX_MODIFIER} dice")
        voluntary = _int(request, "voluntary", 0)
        if not 0 <= voluntary <= MAX_VOLUNTARY:
            raise RulesError(f"voluntary levels are 0 to {MAX_VOLUNTARY}")
        dice = modify_difficulty(base, modifier, voluntary)  # lines 589-591: on one's own roll
        burden = 0
        if "carried" in request and key in character.OVERLOADED_TESTS:
            try:
                burden = character.load(
                    request["carried"], values["carrying_capacity"], house
                ).levels
            except (KeyError, TypeError, ValueError) as error:
                raise RulesError(f"cannot read the load: {error}") from None
            dice = modify_difficulty(dice, burden)
        situation = request.get("situation")
        if situation is not None and situation not in SITUATIONS:
            raise RulesError("unknown Lugn situation")
        if key == "calm":
            situation = None  # the situation is what this roll decides
        if situation:
            dice = with_situation(dice, situation)
        exact = odds(dice, chance)  # RulesError above the exact range (chance 200)
        return TestPlan(
            label=request.get("label") or key,
            notation=f"Ob{dice}T6",
            target=chance,
            p_success=exact.success,
            odds={"perfect": exact.perfect, "fumble": exact.fumble},
            params={"stat": key, "difficulty": dice, "base": base, "modifier": modifier}
            | ({"situation": situation} if situation else {})
            | ({"burden": burden} if burden else {})
            | ({"voluntary": voluntary} if voluntary else {}),
        )

    def roll_test(self, plan: TestPlan, rng) -> TestResult:
        rolled = roll(ObDice(plan.params["difficulty"]), rng)
        return self._result(plan, rolled)

    def situation_of(self, result: TestResult) -> str | None:
        """What a Lugn test makes of its situation (lines 218-229), None for other tests:
        "calm" (success), "nervous" (failure: +Ob1T6 on every other test in it),
        "breakdown" (fumble: breaks down until it is over; +Ob1T6 as nervous) or
        "exemplary" (perfect: every action one level easier, not below Ob2T6)."""
        if result.plan.params.get("stat") != "calm":
            return None
        if result.marks["perfect"]:
            return "exemplary"
        if result.marks["fumble"]:
            return "breakdown"
        return "calm" if result.success else "nervous"

    def _result(self, plan: TestPlan, rolled: ObRoll) -> TestResult:
        outcome = resolve_test(plan.target, rolled)
        return TestResult(
            plan=plan,
            dice=rolled.first + rolled.rerolls,
            first=rolled.first,
            total=rolled.total,
            success=outcome.success,
            marks={
                "effect": outcome.effect,
                "perfect": outcome.perfect,
                "fumble": outcome.fumble,
                "rerolls": list(rolled.rerolls),
                "counted": list(rolled.counted),  # every die but the replaced sixes
                "capped": rolled.capped,
            },
        )

    def stored(self, result: TestResult) -> dict:
        """What the log keeps of a rolled test (read back by :meth:`result_of`)."""
        return {
            "notation": result.plan.notation,
            "chance": result.plan.target,
            "params": dict(result.plan.params),
            "first": list(result.first),
            "rerolls": list(result.marks["rerolls"]),
            "total": result.total,
            "capped": result.marks["capped"],
        }

    def luck_of(self, stored: Mapping[str, Any]) -> Fraction | None:
        """The lower the Ob total, the luckier (a test succeeds within its chance, lines
        385-513): the fight's story's own `total_luck`."""
        from rules.phobia.combat.story import total_luck

        try:
            difficulty, total = int(stored["params"]["difficulty"]), int(stored["total"])
        except (KeyError, TypeError, ValueError):
            return None
        if stored.get("capped"):
            return None
        return total_luck(difficulty, total, low_is_lucky=True)

    def result_of(self, stored: Mapping[str, Any]) -> TestResult:
        try:
            params = dict(stored["params"])
            dice = ObDice(int(params["difficulty"]))
            rolled = ObRoll(
                dice,
                tuple(stored["first"]),
                tuple(stored["rerolls"]),
                int(stored["total"]),
                bool(stored.get("capped", False)),
            )
            chance = int(stored["chance"])
        except (KeyError, TypeError, ValueError) as error:
            raise RulesError(f"not a stored Phobia test: {error}") from None
        plan = TestPlan(
            label=params.get("stat", ""),
            notation=str(dice),
            target=chance,
            p_success=None,  # the log reads the roll, not its odds
            params=params,
        )
        return self._result(plan, rolled)


    def opposed_odds(self, a: TestPlan, b: TestPlan) -> Fraction | None:
        """Active opposition (lines 556-578): P(a wins) with ties rolled again until one
        side wins, exact (:func:`rules.phobia.success.opposed_odds`)."""
        exact = opposed_odds(a.params["difficulty"], a.target, b.params["difficulty"], b.target)
        return exact.a_wins_eventually

    def roll_opposed(self, a: TestPlan, b: TestPlan, rng) -> OpposedResult:
        """Both sides roll; the higher effect wins, a perfect roll beats one that is not
        and a fumble always loses (lines 561-576); a tie is rolled again."""
        rounds = []
        for _ in range(MAX_OPPOSED_ROUNDS):
            first, second = self.roll_test(a, rng), self.roll_test(b, rng)
            rounds.append((first, second))
            winner = opposed(self._outcome(first), self._outcome(second))
            if winner:
                won, lost = (first, second) if winner > 0 else (second, first)
                effect = relative_effect(self._outcome(won), self._outcome(lost))
                return OpposedResult(tuple(rounds), winner, effect)
        return OpposedResult(tuple(rounds), 0, None)

    def against_earlier(self, plan: TestPlan, earlier: TestResult) -> TestPlan:
        """``plan``, a later roll against ``earlier`` (lines 580-597), with the earlier
        roll's voluntary levels added when it succeeded all the same ("Lyckas rollpersonen
        trots detta, så tvingas den som försöker genomskåda rollpersonen att lägga till
        samma antal svårighetsgrader till sina slag", lines 591-594), its odds again."""
        levels = int(earlier.plan.params.get("voluntary", 0) or 0)
        before = plan.params["difficulty"]
        dice = delayed_difficulty(before, levels, self._outcome(earlier))
        if dice == before:
            return plan
        exact = odds(dice, plan.target)
        return replace(
            plan,
            notation=f"Ob{dice}T6",
            p_success=exact.success,
            odds={"perfect": exact.perfect, "fumble": exact.fumble},
            params={**plan.params, "difficulty": dice, "imposed": dice - before},
        )

    def delayed_odds(self, plan: TestPlan, earlier: TestResult) -> Fraction:
        """Opposition to an earlier roll (lines 580-609): P(a roll of ``plan`` now at least
        matches the remembered result; an equal one goes to the later roll)."""
        return delayed_odds(plan.params["difficulty"], plan.target, self._outcome(earlier))

    def overcomes(self, later: TestResult, earlier: TestResult) -> bool:
        return delayed_opposed(self._outcome(earlier), self._outcome(later))

    def _outcome(self, result: TestResult) -> TestOutcome:
        """The rules' outcome of a rolled test, for comparing it with another."""
        rolled = ObRoll(
            ObDice(len(result.first)),
            tuple(result.first),
            tuple(result.marks["rerolls"]),
            result.total,
            result.marks["capped"],
        )
        return resolve_test(result.plan.target, rolled)

    def plan_hand(self, text: str) -> HandPlan:
        """A bare hand (lines 3-26 and the plain forms the text uses): its range and exact
        mean. An open-ended ObnT6 has no highest result; its mean is 3.75 a die (line 26)."""
        dice = parse_dice(text)  # DiceError (a RulesError with a code) when it is no hand
        if isinstance(dice, ObDice):
            high = None if dice.count else 0  # Ob0T6 rolls no dice: always 0
            return HandPlan(str(dice), dice.count, high, Fraction(15, 4) * dice.count)
        spread = plain_distribution(dice)
        mean = sum((result * p for result, p in spread.items()), Fraction(0))
        return HandPlan(str(dice), dice.min_result, dice.max_result, mean)

    def roll_hand(self, plan: HandPlan, rng) -> HandResult:
        rolled = roll(parse_dice(plan.notation), rng)
        return self._hand(plan, rolled)

    def stored_hand(self, result: HandResult) -> dict:
        """The hand's notation, its dice (an Ob roll's first roll apart from its rerolls)
        and total."""
        return {
            "hand": True,
            "notation": result.plan.notation,
            "first": list(result.first),
            "rerolls": list(result.marks.get("rerolls", [])),
            "total": result.total,
            "capped": result.marks.get("capped", False),
        }

    def hand_of(self, stored: Mapping[str, Any]) -> HandResult:
        try:
            dice = parse_dice(str(stored["notation"]))
            first, total = tuple(stored["first"]), int(stored["total"])
            if isinstance(dice, ObDice):
                rolled = ObRoll(
                    dice, first, tuple(stored["rerolls"]), total, bool(stored.get("capped"))
                )
            elif (
                len(first) != dice.count
                or not all(isinstance(d, int) and 1 <= d <= dice.sides for d in first)
                or dice.result_of(sum(first)) != total
            ):
                raise ValueError(f"{first} do not make {total} on {dice}")
            else:
                rolled = PlainRoll(dice, first, total)
        except (KeyError, TypeError, ValueError, RulesError) as error:
            raise RulesError(f"not a stored Phobia hand: {error}") from None
        return self._hand(self.plan_hand(str(dice)), rolled)

    def _hand(self, plan: HandPlan, rolled: ObRoll | PlainRoll) -> HandResult:
        if isinstance(rolled, PlainRoll):
            return HandResult(plan, rolled.rolled, rolled.result, first=rolled.rolled)
        return HandResult(
            plan,
            rolled.first + rolled.rerolls,
            rolled.total,
            first=rolled.first,
            marks={
                "rerolls": list(rolled.rerolls),
                "counted": list(rolled.counted),
                "capped": rolled.capped,
            },
        )


def with_situation(dice: int, situation: str) -> int:
    """A test's Ob dice in an open Lugn situation (lines 218-229): nervous or broken down,
    one level harder; exemplary, one level easier but not below Ob2T6 (a test easier than
    that already stays as it is)."""
    level = SITUATIONS[situation]
    if level < 0:
        return max(min(dice, SITUATION_FLOOR), dice + level)
    return modify_difficulty(dice, level)


SYSTEM = PhobiaSystem()
