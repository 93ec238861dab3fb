"""The rule-system interface: what the apps may ask of a rule system, as plain data.

A campaign plays one rule system (its ``rule_system``, e.g. ``"phobia"``). The apps find
it with :func:`rules.get_system` and call only what :class:`RuleSystem` lists, so a new
system is a package under ``rules/`` with a ``SYSTEM`` object, its templates and its
translations, and no change to the apps:

* **Terms.** Every value a character has (attributes, skills, derived values) is a
  :class:`Term`: its code name, the game's Swedish name and abbreviation (shown in every
  language: they are what players read and say at the table) and an English gloss (shown
  beside them in English). Names for the interface itself (house rules, help) are English
  msgids marked with :func:`gettext_noop`, which the site translates.
* **The character's shape.** ``builder`` names how a character is made: ``"points"``
  (Aoristos: levels bought with UP, its own builder and ledger) or ``"entered"``
  (values typed within bounds and checked by ``check``). ``attributes`` and ``skills``
  are :class:`Stat` (a term with bounds and a default); ``derived`` computes the derived
  values from a character's values and what was rolled at creation
  (``creation_rolls``, rolled once on the server and kept).
* **House rules.** Where a text gives no number, ``house_rules`` lists a
  :class:`HouseRule` with its default and the place in the text it stands in for; the GM
  edits them per campaign and pages mark them as house rules. ``house(values)`` reads a
  campaign's stored values, filling defaults and refusing bad ones.
* **Dice hands.** ``plan_hand`` reads a bare hand the tray was given ("1T10", "Ob3T6")
  into a :class:`HandPlan` with its range and exact mean, ``roll_hand`` rolls it into a
  :class:`HandResult`; ``stored_hand`` and ``hand_of`` write it to the log and read it
  back. ``hand_examples`` are shown where a hand is typed.
* **Dice and tests.** ``plan_test`` turns a tray's request (what is tested, how hard) into
  a :class:`TestPlan` with the exact odds shown before the roll; ``roll_test`` rolls it
  with an injected ``rng`` into a :class:`TestResult`, every die kept. ``template`` is the
  directory of the system's own templates (sheet sections, tray, roll lines).
* **Opposed tests.** Where ``opposition`` is true, two tests meet: ``opposed_odds`` is
  the exact chance that the first side wins, ``roll_opposed`` rolls both until one wins
  into an :class:`OpposedResult` (Phobia: ties rolled again; T10: a duel of alternate
  rolls). Where ``delayed_opposition`` is true, a test against one made earlier (a hiding
  place, a disguise) reads the earlier roll back from the log: ``delayed_odds`` and
  ``overcomes``. Where ``carries`` is true, a test may continue an earlier roll
  (``plan_test``'s ``request["after"]``: T10's chains, social scenes and duels). Where
  ``reads_body`` is true, ``request["body"]`` is what the character's latest fight left on
  it (T10: Utmattning lowers every roll).
* **Combat and time.** The engines of :mod:`rules.engine` (``engine_for(name)``; the
  chronicle with ``kind="chronicle"``).

Everything here is plain Python: no Django.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

from rules.errors import RulesError

__all__ = [
    "Carrying",
    "Derived",
    "HandPlan",
    "HandResult",
    "HouseRule",
    "Issue",
    "OpposedResult",
    "RuleSystem",
    "Stat",
    "Term",
    "TestParam",
    "TestPlan",
    "TestResult",
    "gettext_noop",
    "read_house_rules",
]


def gettext_noop(message: str) -> str:
    """Mark an English msgid for the site's translation (``makemessages`` finds it); the
    apps translate it when they show it."""
    return message


@dataclass(frozen=True)
class Term:
    """A rule term: ``key`` in code, ``swedish`` and ``abbr`` on every page, ``gloss``
    (English) beside them in the English interface."""

    key: str
    swedish: str
    abbr: str = ""
    gloss: str = ""

    @property
    def label(self) -> str:
        """'Styrka (STY)' or 'Klättra': the term as the rule book writes it."""
        return f"{self.swedish} ({self.abbr})" if self.abbr else self.swedish

    @property
    def short(self) -> str:
        """'STY' or 'Klättra': how a test is named at the table."""
        return self.abbr or self.swedish


@dataclass(frozen=True)
class Stat:
    """A value a character has and a player enters or buys: an attribute or a skill."""

    term: Term
    minimum: int
    maximum: int
    default: int
    text: str = ""  # where the rule text describes it
    group: str = ""  # the attribute a skill sorts under (T10's abilities), for the sheet

    @property
    def key(self) -> str:
        return self.term.key


@dataclass(frozen=True)
class Derived:
    """A derived value of a character: its term, value and the formula it came from (as
    the text writes it, e.g. "(STY+TÅL+VIL)/3"), and where the text gives it."""

    term: Term
    value: int | None  # None: it needs a roll not made yet (a character being made)
    formula: str
    text: str = ""
    unit: str = ""  # "m", "kg", ...

    @property
    def key(self) -> str:
        return self.term.key


@dataclass(frozen=True)
class Carrying:
    """What a character carries against what it can carry: ``carried`` (in ``unit``),
    ``capacity``, the whole capacities in the load once it is over (``multiples``) and the
    difficulty that adds (``levels``) to the tests of ``hinders`` (stat keys)."""

    carried: Fraction
    capacity: int
    multiples: int
    levels: int
    unit: str = "kg"
    hinders: tuple[str, ...] = ()

    @property
    def overloaded(self) -> bool:
        return self.carried > self.capacity


@dataclass(frozen=True)
class Issue:
    """What is wrong with a character's values: ``field`` (a stat's key, or "" for the
    whole character), a code and an English message (a msgid) with its parameters."""

    field: str
    code: str
    message: str
    params: Mapping[str, Any] = field(default_factory=dict)


MAX_HOUSE_TEXT = 40  # a house rule's name (T10's abilities)


@dataclass(frozen=True)
class HouseRule:
    """A number or choice the rule text does not give: the campaign's GM sets it.

    ``kind``: "int" (``minimum``..``maximum``), "bool", "choice" (``choices``: value,
    English label) or "text" (a name, e.g. one of T10's abilities). ``text`` says what
    the rule text lacks and where; ``name`` and ``help`` are English msgids."""

    key: str
    name: str
    default: Any
    kind: str = "int"
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[tuple[str, str], ...] = ()
    text: str = ""
    help: str = ""

    def read(self, raw: Any) -> Any:
        """The house rule's value from stored or posted data; RulesError if it is bad."""
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            raise RulesError(f"{self.key} must be yes or no")
        if self.kind == "text":
            if isinstance(raw, str) and 0 < len(raw.strip()) <= MAX_HOUSE_TEXT:
                return raw.strip()
            raise RulesError(f"{self.key} must be a name of 1-{MAX_HOUSE_TEXT} characters")
        if self.kind == "choice":
            if raw in {value for value, _label in self.choices}:
                return raw
            raise RulesError(f"{self.key} must be one of {', '.join(v for v, _ in self.choices)}")
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise RulesError(f"{self.key} must be a whole number")
        if (self.minimum is not None and raw < self.minimum) or (
            self.maximum is not None and raw > self.maximum
        ):
            raise RulesError(f"{self.key} must be {self.minimum}-{self.maximum}")
        return raw


def read_house_rules(rules: Sequence[HouseRule], values: Mapping[str, Any] | None) -> dict:
    """Every house rule's value: the stored one, or its default when none is stored (a
    campaign made before the rule existed). Unknown keys are ignored; a bad value raises
    RulesError."""
    values = values or {}
    return {
        rule.key: rule.read(values[rule.key]) if rule.key in values else rule.default
        for rule in rules
    }


@dataclass(frozen=True)
class TestParam:
    """A number a test asks for beside what is tested (Phobia: the difficulty in Ob dice
    and the modifiers), as the tray shows it: ``name`` an English msgid, ``choices`` the
    values with names of their own (value, label as the game writes it)."""

    key: str
    name: str
    minimum: int
    maximum: int
    default: int
    choices: tuple[tuple[int, str], ...] = ()
    help: str = ""


@dataclass(frozen=True)
class TestPlan:
    """A test ready to roll, with its exact odds: ``label`` names what is tested (e.g.
    "Klättra" or "SIN + Vildmark"), ``notation`` the dice ("Ob3T6", "2B"), ``target`` the
    number the roll is measured against (a chance, a ST) and ``p_success`` the exact
    probability; ``odds`` holds the system's other exact figures (perfect, fumble, ...)."""

    label: str
    notation: str
    target: int
    p_success: Fraction | None  # None on a roll read back from the log (not kept)
    odds: Mapping[str, Fraction] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)  # what roll_test needs again


@dataclass(frozen=True)
class TestResult:
    """A rolled test: every die (``dice``; ``first`` the first roll where a system keeps
    it apart), the roll's ``total``, success and the system's own ``marks`` (perfect,
    fumble, effect, margin ...), plain JSON-able values for the log."""

    plan: TestPlan
    dice: tuple[int, ...]
    total: int
    success: bool
    first: tuple[int, ...] = ()
    marks: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HandPlan:
    """A bare dice hand ready to roll: ``notation`` as the game writes it ("1T10",
    "(1T6/2)-1", "Ob3T6"), its lowest and highest result (``high`` None: open-ended) and
    its exact mean; ``params`` what ``roll_hand`` needs again."""

    notation: str
    low: int
    high: int | None
    mean: Fraction
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HandResult:
    """A rolled hand: every die in rolled order (``first`` the first roll where a system
    keeps it apart), the ``total`` and the system's ``marks`` (plain JSON-able values)."""

    plan: HandPlan
    dice: tuple[int, ...]
    total: int
    first: tuple[int, ...] = ()
    marks: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class OpposedResult:
    """Two tests rolled against each other: every exchange in order (``rounds``: the first
    side's result, the second's; a tie is rolled again), ``winner`` 1 (the first side), -1
    (the second) or 0 (no exchange decided it: the rounds ran out) and the winner's
    relative effect."""

    rounds: tuple[tuple[TestResult, TestResult | None], ...]
    winner: int
    relative_effect: int | None
    # The system's own record of the exchange (T10's duel: who rolled first, the
    # initiative dice, the sides in rolled order); plain JSON-able values.
    marks: Mapping[str, Any] = field(default_factory=dict)


class RuleSystem(Protocol):
    """What a rule system gives the apps (see the module's docstring)."""

    name: str  # the campaign's rule_system value
    title: str  # shown on pages, e.g. "Phobia"
    builder: str  # "points" or "entered"
    template: str  # its templates' directory, e.g. "systems/phobia"
    attributes: tuple[Stat, ...]
    skills: tuple[Stat, ...]
    house_rules: tuple[HouseRule, ...]
    test_params: tuple[TestParam, ...]  # what plan_test's request holds beside "stat"
    hand_examples: tuple[str, ...]  # hands the tray offers as examples, e.g. ("1T10",)
    opposition: bool  # whether the tray offers opposed tests (opposed_odds and the rest)
    opposed_params: tuple[TestParam, ...]  # what the opponent's side sets of test_params
    # What someone without a sheet is given in an opposed test (Phobia: a chance 0-200;
    # T10: the bonus their skill gives).
    opponent_value: TestParam
    delayed_opposition: bool  # whether a test may be opposed to an earlier roll (Phobia)
    carries: bool  # whether a test may continue an earlier roll (T10's chains and duels)
    # Whether plan_test reads the character's body from its campaign's latest fight
    # (request["body"], the combat engine's body_of, and request["in_fight"]: whether that
    # fight goes on): T10's Utmattning lowers every roll.
    reads_body: bool
    skill_values: str  # what a skill's number is, an English msgid ("chances", "bonuses")

    def is_social(self, key: str) -> bool:
        """Where ``carries``: whether a roll of ``key`` is social (its carry is kept per
        pair of people, however long ago the last roll with them was)."""
        ...

    def stats(self, house: Mapping[str, Any]) -> tuple[tuple[Stat, ...], tuple[Stat, ...]]:
        """``attributes`` and ``skills`` as a campaign names them (T10's abilities' names
        are house rules); the pages label stats with these."""
        ...

    def house(self, values: Mapping[str, Any] | None) -> dict:
        """A campaign's house rules, defaults filled in; RulesError for bad values."""
        ...

    def check(self, values: Mapping[str, int], house: Mapping[str, Any]) -> tuple[Issue, ...]:
        """What is wrong with a character's values under the campaign's house rules."""
        ...

    def creation_rolls(self, values: Mapping[str, int], rng) -> dict:
        """What the text rolls once when a character is made (kept on the character)."""
        ...

    def derived(
        self, values: Mapping[str, int], rolled: Mapping[str, Any], house: Mapping[str, Any]
    ) -> tuple[Derived, ...]: ...

    def plan_test(
        self, values: Mapping[str, int], request: Mapping[str, Any], house: Mapping[str, Any]
    ) -> TestPlan:
        """A tray's request (what is tested and how hard, as plain data) as a plan with its
        exact odds; RulesError (a reason for the player) when it is not a test."""
        ...

    def roll_test(self, plan: TestPlan, rng) -> TestResult: ...

    def result_of(self, stored: Mapping[str, Any]) -> TestResult:
        """A stored roll (what ``TestResult`` wrote to the log) read back."""
        ...

    def carrying(
        self, values: Mapping[str, int], rolled: Mapping[str, Any], house: Mapping[str, Any],
        carried: Fraction,
    ) -> Carrying | None:
        """A character's load: ``carried`` (what its items weigh) against what it can
        carry; None where the system's own sheet weighs it (Aoristos)."""
        ...

    def situation_of(self, result: TestResult) -> str | None:
        """A situation the rolled test opens for its character (Phobia's Lugn: "nervous"
        and the like), which ``plan_test`` takes back as ``request["situation"]`` for the
        character's later tests until the table ends it; None: the test opens none."""
        ...

    def plan_hand(self, text: str) -> HandPlan:
        """A dice hand typed in the tray; RulesError with a ``code`` (``too_long``,
        ``unrecognised``, ``too_many_dice``, ``modifier_too_large``) when it is none."""
        ...

    def roll_hand(self, plan: HandPlan, rng) -> HandResult: ...

    def stored_hand(self, result: HandResult) -> dict:
        """What the log keeps of a rolled hand (read back by ``hand_of``)."""
        ...

    def luck_of(self, stored: Mapping[str, Any]) -> Fraction | None:
        """How lucky a stored test's dice were (issue 48): the mid-percentile of its
        total under the exact distribution of its dice, higher luckier, as the fight's
        story counts a roll's luck (`rules.story.percentile_in`); None where the tables
        stop."""
        ...

    def hand_of(self, stored: Mapping[str, Any]) -> HandResult: ...

    def opposed_odds(self, a: TestPlan, b: TestPlan) -> Fraction | None:
        """Exact P(side a wins) when ties are rolled again; None when no exchange can
        ever be won (both sides certain of the same result)."""
        ...

    def roll_opposed(self, a: TestPlan, b: TestPlan, rng) -> OpposedResult: ...

    def delayed_odds(self, plan: TestPlan, earlier: TestResult) -> Fraction:
        """Exact P(a roll of ``plan`` now overcomes ``earlier``, a result remembered)."""
        ...

    def overcomes(self, later: TestResult, earlier: TestResult) -> bool: ...
