"""T10 through the rule-system interface (:mod:`rules.system`).

A test is a skill roll, 2T10 + bonuses against 11 (:mod:`rules.t10.rolls`). Beside what is
tested and a modifier, a test may **continue an earlier roll** (``request["after"]``):

* the same character's roll: a chain (Påföljande slag) or a social scene with the same
  person: its DoS added, its DoF subtracted;
* another's roll: a duel's previous roll of the opponent: +1 per DoF, −1 per DoS.

Either way within ±6. A chain counts its successes towards the ``goal`` the GM set.

An opposed test is a **duel** (Att använda DoS och DoF): both sides roll initiative
(1T10 + Initiativ, ties again), then take turns, each roll modified by the opponent's
previous one, until one side has ``goal`` successes (Johan and Henrik: 3).
"""

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rules.errors import RulesError
from rules.system import (
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
from rules.t10 import character
from rules.t10.rolls import (
    DICE,
    SUCCESS_AT,
    Outcome,
    carry,
    duel_carry,
    duel_odds,
    outcome,
    roll_2t10,
    roll_odds,
)

__all__ = ["SYSTEM", "T10System"]

MAX_MODIFIER = 10
MAX_GOAL = 10
MAX_FATIGUE = 10  # Utmattning 10: unconscious
MAX_DUEL_ROLLS = 200  # a duel both sides can win ends long before; this only bounds it
MAX_HAND_DICE = 20
MAX_HAND_MODIFIER = 99
HAND = re.compile(r"^(\d{1,2})T(\d{1,3})(?:([+\-−])(\d{1,3}))?$")


def _int(request: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = request.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{key} must be a whole number")
    if not low <= value <= high:
        raise RulesError(f"{key} must be {low} to {high}")
    return value


def body_fatigue(request: Mapping[str, Any]) -> tuple[int, str]:
    """The Utmattning the character's latest fight left on it, and that fight's name:
    while the fight goes on, what it has there; once it is over, what its Skada holds up
    (Utmattning falls 1 a round and never below Skada; painkillers are the fight's)."""
    body = request.get("body")
    if not isinstance(body, Mapping):
        return 0, ""
    value = body.get("fatigue" if request.get("in_fight") else "damage", 0)
    if isinstance(value, bool) or not isinstance(value, int):
        return 0, ""
    name = body.get("encounter")
    return max(0, min(value, MAX_FATIGUE)), name if isinstance(name, str) else ""


def signed(n: int) -> str:
    """+3, −2, ±0: how the text writes a bonus."""
    return f"+{n}" if n > 0 else f"−{-n}" if n < 0 else "±0"


class T10System:
    name = "t10"
    title = "T10"
    builder = "entered"
    template = "systems/t10"
    odds_template = "systems/t10/_odds.html"  # the tray's DoS and DoF odds, a duel's
    attributes: tuple[Stat, ...] = (*character.ABILITIES, character.INITIATIVE)
    skills: tuple[Stat, ...] = character.SKILLS
    house_rules: tuple[HouseRule, ...] = character.HOUSE_RULES
    test_params = (
        TestParam(
            "modifier",
            gettext_noop("Modifier"),
            -MAX_MODIFIER,
            MAX_MODIFIER,
            0,
            help=gettext_noop("Every other bonus or penalty the GM gives, summed."),
        ),
        TestParam(
            "goal",
            gettext_noop("Successes needed"),
            1,
            MAX_GOAL,
            1,
            help=gettext_noop("For a chain of rolls or a duel: the GM says how many."),
        ),
    )
    hand_examples = ("2T10", "1T10", "2T10+3")
    opposition = True  # duels
    rolled_at_creation = ""  # nothing is rolled when a character is made
    delayed_opposition = False  # no test against a roll made earlier: rolls continue them
    skill_values = gettext_noop("bonuses; 0: not learned, the ability is used")
    carries = True  # a test may continue an earlier roll (chains, social scenes, duels)
    reads_body = True  # Utmattning from the latest fight lowers every roll
    opposed_params = test_params[:1]  # the opponent's own modifier
    # Someone without a sheet is given a bonus (what their skill or ability gives).
    opponent_value = TestParam("bonus", gettext_noop("The opponent's bonus"), -10, 10, 0)

    def house(self, values: Mapping[str, Any] | None) -> dict:
        return read_house_rules(self.house_rules, values)

    def bounds(self, stat: Stat, house: Mapping[str, Any]) -> tuple[int, int]:
        return character.bounds(stat, house)

    def stats(self, house: Mapping[str, Any]) -> tuple[tuple[Stat, ...], tuple[Stat, ...]]:
        """The attributes and skills as this campaign names them (three abilities' names
        are house rules)."""
        terms = character.named_terms(house)
        abilities = tuple(
            Stat(terms[s.key], s.minimum, s.maximum, s.default, s.text)
            for s in character.ABILITIES
        )
        return (*abilities, character.INITIATIVE), self.skills

    def group_of(self, key: str) -> str:
        """The ability a skill sorts under (the sheet groups them)."""
        return character.ability_of(key)

    def check(self, values: Mapping[str, int], house: Mapping[str, Any]) -> tuple[Issue, ...]:
        return character.check(values, house)

    def creation_rolls(self, values: Mapping[str, int], rng) -> dict:
        return {}  # nothing is rolled when a T10 character is made

    def derived(
        self, values: Mapping[str, int], rolled: Mapping[str, Any], house: Mapping[str, Any]
    ) -> tuple[Derived, ...]:
        return character.derived(values)

    def testables(
        self, values: Mapping[str, int], rolled: Mapping[str, Any], house: Mapping[str, Any]
    ) -> tuple[tuple[Term, int], ...]:
        """Every ability and skill, each with the bonus a roll of it gets (a skill the
        character lacks rolls with its ability's)."""
        abilities, skills = self.stats(house)
        return tuple(
            (stat.term, character.bonus(values, stat.key))
            for stat in (*abilities[:4], *skills)
        )

    def carrying(self, values, rolled, house, carried) -> None:
        return None  # the excerpt has no load

    def is_social(self, key: str) -> bool:
        return character.is_social(key)

    # Tests ---------------------------------------------------------------------------------

    def plan_test(
        self, values: Mapping[str, int], request: Mapping[str, Any], house: Mapping[str, Any]
    ) -> TestPlan:
        """``request``: ``stat`` (a key of ``values``, e.g. a testable's bonus), ``modifier``
        (−10..+10), ``goal`` (successes a chain or duel needs, 1-10), ``fatigue``
        (Utmattning: −1 a point; without it, what ``body``, the character's latest fight,
        left on it: `body_fatigue`) and ``after``: an earlier roll this one continues, as
        ``{"result": TestResult, "same": bool}`` (same: the same character's roll)."""
        key = request.get("stat")
        if not isinstance(key, str) or key not in values:
            raise RulesError("choose what to test")
        own = values[key]
        modifier = _int(request, "modifier", 0, -MAX_MODIFIER, MAX_MODIFIER)
        goal = _int(request, "goal", 1, 1, MAX_GOAL)
        from_body, fight = body_fatigue(request)
        fatigue = _int(request, "fatigue", from_body, 0, MAX_FATIGUE)
        after = request.get("after")
        carried, before, after_seq = 0, 0, None
        if after is not None:
            try:
                earlier, same = after["result"], bool(after["same"])
                previous = self._outcome(earlier)
            except (KeyError, TypeError) as error:
                raise RulesError(f"cannot read the earlier roll: {error}") from None
            carried = carry(previous) if same else duel_carry(previous)
            after_seq = after.get("seq")
            if same and earlier.plan.params.get("goal") == goal:
                before = int(earlier.marks.get("successes", 0))
        bonus = own + modifier + carried - fatigue
        exact = roll_odds(bonus)
        params = {"stat": key, "own": own, "modifier": modifier, "goal": goal, "bonus": bonus}
        if after is not None:
            params |= {"carry": carried, "same": same, "before": before}
            if after_seq is not None:
                params["after"] = after_seq
        if fatigue:
            params["fatigue"] = fatigue
            if "fatigue" not in request and fight:
                params["fatigue_from"] = fight
        if "initiative" in values:
            params["initiative"] = values["initiative"]
        return TestPlan(
            label=request.get("label") or key,
            notation=f"{DICE}{signed(bonus)}" if bonus else DICE,
            target=SUCCESS_AT,
            p_success=exact.success,
            odds={f"degree:{d}": p for d, p in exact.degrees.items()},
            params=params,
        )

    def roll_test(self, plan: TestPlan, rng) -> TestResult:
        return self._result(plan, roll_2t10(plan.params["bonus"], rng))

    def situation_of(self, result: TestResult) -> str | None:
        return None

    def _result(self, plan: TestPlan, rolled: Outcome) -> TestResult:
        before = int(plan.params.get("before", 0))
        return TestResult(
            plan=plan,
            dice=rolled.dice,
            first=rolled.dice,
            total=rolled.total,
            success=rolled.success,
            marks={
                "dos": rolled.dos,
                "dof": rolled.dof,
                "degrees": rolled.degrees,
                "carry": carry(rolled),  # what it adds to the same character's next roll
                "successes": before + int(rolled.success),
                "done": before + int(rolled.success) >= plan.params.get("goal", 1),
            },
        )

    def _outcome(self, result: TestResult) -> Outcome:
        return outcome(tuple(result.dice), int(result.plan.params["bonus"]))

    def stored(self, result: TestResult) -> dict:
        return {
            "notation": result.plan.notation,
            "params": dict(result.plan.params),
            "first": list(result.dice),
            "total": result.total,
        }

    def luck_of(self, stored: Mapping[str, Any]) -> Fraction | None:
        """The higher 2T10, the luckier: the fight's story's own `outcome_luck`."""
        from rules.t10.combat.story import outcome_luck

        try:
            dice = tuple(int(d) for d in stored["first"])
        except (KeyError, TypeError, ValueError):
            return None
        if len(dice) != 2:
            return None
        return outcome_luck(outcome(dice, 0))

    def result_of(self, stored: Mapping[str, Any]) -> TestResult:
        try:
            params = dict(stored["params"])
            rolled = outcome(tuple(stored["first"]), int(params["bonus"]))
            if rolled.total != int(stored["total"]):
                raise ValueError(f"{stored['first']} do not make {stored['total']}")
        except (KeyError, TypeError, ValueError) as error:
            raise RulesError(f"not a stored T10 test: {error}") from None
        plan = TestPlan(
            label=params.get("stat", ""),
            notation=str(stored.get("notation", DICE)),
            target=SUCCESS_AT,
            p_success=None,
            params=params,
        )
        return self._result(plan, rolled)

    # Duels ---------------------------------------------------------------------------------

    def opposed_odds(self, a: TestPlan, b: TestPlan) -> Fraction | None:
        """P(side a wins the duel): initiative decides who rolls first (1T10 + Initiativ,
        ties again, so P(a first) is exact too), then the duel's exact odds."""
        goal = a.params.get("goal", 1)
        try:
            first = duel_odds(a.params["bonus"], b.params["bonus"], goal).first_wins
            second = 1 - duel_odds(b.params["bonus"], a.params["bonus"], goal).first_wins
        except RulesError:
            return None
        starts = initiative_odds(a.params.get("initiative", 0), b.params.get("initiative", 0))
        return starts * first + (1 - starts) * second

    def roll_opposed(self, a: TestPlan, b: TestPlan, rng) -> OpposedResult:
        """Initiative, then alternate rolls until one side has ``goal`` successes. The
        rounds are pairs in rolled order (side a's roll first in each pair where a
        started); ``marks`` keep who started and every initiative die."""
        goal = a.params.get("goal", 1)
        initiative = []
        while True:
            da, db = rng.randint(1, 10), rng.randint(1, 10)
            initiative.append((da, db))
            ia, ib = da + a.params.get("initiative", 0), db + b.params.get("initiative", 0)
            if ia != ib:
                break
        a_first = ia > ib
        plans = (a, b) if a_first else (b, a)
        sides = (1, -1) if a_first else (-1, 1)
        successes = {1: 0, -1: 0}
        sequence: list[tuple[int, TestResult]] = []
        last: Outcome | None = None
        winner = 0
        for turn in range(MAX_DUEL_ROLLS):
            plan, side = plans[turn % 2], sides[turn % 2]
            modified = _with_carry(plan, duel_carry(last), successes[side], goal)
            rolled = roll_2t10(modified.params["bonus"], rng)
            result = self._result(modified, rolled)
            sequence.append((side, result))
            successes[side] += int(rolled.success)
            last = rolled
            if successes[side] >= goal:
                winner = side
                break
        rounds = tuple(
            _pair(sequence[i : i + 2]) for i in range(0, len(sequence), 2)
        )
        return OpposedResult(
            rounds, winner, None,
            marks={
                "initiative": [list(pair) for pair in initiative],
                "a_first": a_first,
                "sequence": [side for side, _result in sequence],
                "successes": {"a": successes[1], "b": successes[-1]},
                "goal": goal,
            },
        )

    def delayed_odds(self, plan: TestPlan, earlier: TestResult) -> Fraction:
        raise RulesError("T10 has no test against an earlier roll: a roll continues it")

    def overcomes(self, later: TestResult, earlier: TestResult) -> bool:
        raise RulesError("T10 has no test against an earlier roll: a roll continues it")

    # Hands ---------------------------------------------------------------------------------

    def plan_hand(self, text: str) -> HandPlan:
        """A bare hand of plain dice: "2T10", "1T10", "2T10+3" (NTsides±k)."""
        if not isinstance(text, str):
            raise RulesError("not a dice hand", code="unrecognised")
        text = text.strip().replace(" ", "").upper().replace("D", "T")
        if len(text) > 12:
            raise RulesError("a dice hand is short", code="too_long", limit=12)
        match = HAND.match(text)
        if not match:
            raise RulesError(f"{text!r} is not a dice hand", code="unrecognised")
        count, sides = int(match[1]), int(match[2])
        modifier = int(match[4] or 0) * (-1 if match[3] in ("-", "−") else 1)
        if not 1 <= count <= MAX_HAND_DICE or sides < 2:
            raise RulesError(
                f"{text} has too many dice", code="too_many_dice", text=text, limit=MAX_HAND_DICE
            )
        if abs(modifier) > MAX_HAND_MODIFIER:
            raise RulesError(
                f"{text}: modifier too large", code="modifier_too_large", text=text,
                limit=MAX_HAND_MODIFIER,
            )
        notation = f"{count}T{sides}" + (signed(modifier) if modifier else "")
        return HandPlan(
            notation,
            count + modifier,
            count * sides + modifier,
            Fraction(count * (sides + 1), 2) + modifier,
            params={"count": count, "sides": sides, "modifier": modifier},
        )

    def roll_hand(self, plan: HandPlan, rng) -> HandResult:
        dice = tuple(rng.randint(1, plan.params["sides"]) for _ in range(plan.params["count"]))
        return HandResult(plan, dice, sum(dice) + plan.params["modifier"], first=dice)

    def stored_hand(self, result: HandResult) -> dict:
        return {
            "hand": True,
            "notation": result.plan.notation,
            "first": list(result.dice),
            "total": result.total,
        }

    def hand_of(self, stored: Mapping[str, Any]) -> HandResult:
        try:
            plan = self.plan_hand(str(stored["notation"]))
            dice = tuple(stored["first"])
            if len(dice) != plan.params["count"] or not all(
                isinstance(d, int) and 1 <= d <= plan.params["sides"] for d in dice
            ) or sum(dice) + plan.params["modifier"] != int(stored["total"]):
                raise ValueError(f"{dice} do not make {stored['total']}")
        except (KeyError, TypeError, ValueError, RulesError) as error:
            raise RulesError(f"not a stored T10 hand: {error}") from None
        return HandResult(plan, dice, int(stored["total"]), first=dice)


def _with_carry(plan: TestPlan, carried: int, successes: int, goal: int) -> TestPlan:
    """A duel side's plan for its next roll: its own bonus and the opponent's carry."""
    base = plan.params["bonus"]
    bonus = base + carried
    params = dict(plan.params) | {"bonus": bonus, "carry": carried, "same": False,
                                   "before": successes, "goal": goal}
    return TestPlan(
        label=plan.label,
        notation=f"{DICE}{signed(bonus)}" if bonus else DICE,
        target=SUCCESS_AT,
        p_success=roll_odds(bonus).success,
        params=params,
    )


def _pair(rolls) -> tuple[TestResult, TestResult | None]:
    first = rolls[0][1]
    second = rolls[1][1] if len(rolls) > 1 else None
    return (first, second)


def initiative_odds(a: int, b: int) -> Fraction:
    """P(side a acts first): 1T10 + Initiativ each, ties rolled again."""
    wins = ties = 0
    for da in range(1, 11):
        for db in range(1, 11):
            if da + a > db + b:
                wins += 1
            elif da + a == db + b:
                ties += 1
    if ties == 100:
        return Fraction(1, 2)
    return Fraction(wins, 100 - ties)


SYSTEM = T10System()
