"""The story of a fight in numbers (issue 29): after a fight, per combatant, its attacks,
its hits against the hits the exact previews expected, the damage it dealt and took, the
points it spent on what, and how lucky its dice were. Everything is read from the stored
events only (every die is in them), folded from the start so that each system's reader
sees the encounter just before each event.

:func:`tell` is what the app calls::

    tell(engine, engine.new_state(house_rules), [record.events for the applied records])

`records` are the events of the records that stay applied (``rules.engine.Replay.applied``,
in order): an undone record is not in them, so nothing it rolled counts. Each system reads
its own events in ``rules.<system>.combat.story`` (its ``tell``, with this signature); what
they share is here: the :class:`Row` and :class:`Story` types, the :class:`Tally` they fill,
the fold that hands a reader each event with the state before it (:func:`fold`), and the
percentile arithmetic of luck (:func:`percentile`, :func:`percentile_in`).

**Luck.** A roll's luck is its *mid-percentile* under the exact distribution of what was
rolled, oriented so that higher is luckier for the combatant it counts for:

    luck(x) = 100 · (P(X worse than x) + ½ · P(X = x))

"worse" is lower where a high roll is good (an attack test in Aoristos or T10, a damage
roll, an initiative die) and higher where a low roll is good (Phobia's roll-under tests,
Aoristos' stress roll). The ½ · P(X = x) splits the roll's own mass evenly, so a roll at
the median of a symmetric distribution scores exactly 50, the mean over many rolls of
any distribution is 50 (it is the uniform "randomised PIT"), and only a roll that cannot be
bettered comes near 100 (a certain result scores 50: it says nothing of luck). A
combatant's luck is the mean over its rolls; None when it rolled nothing. A roll counts
for the combatant who makes it, including rolls it makes against what is done to it (its
own survival, shock and pain tests); which rolls each system counts, and which it leaves
out (a hit-area roll, whose better face depends on the armour), is in its module.
"""

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

from rules.errors import RulesError
from rules.table_dice import DiceEntered

__all__ = [
    "Row",
    "Story",
    "Tally",
    "fold",
    "percentile",
    "percentile_in",
    "tell",
]


@dataclass(frozen=True)
class Row:
    """One combatant's fight in numbers.

    * `attacks`: its attacks that rolled (the system's module says what one attack is);
      `hits`: how many of them hit, as the system calls a hit on the target.
    * `expected_hits`: the sum over those attacks of the exact chance to hit that the
      attack's preview showed, computed from the encounter just before the attack with
      the functions the preview and the engine use. `expected_hits_answered`: the same
      once the target had answered the attack before the dice (Aoristos' vigilance as
      chosen rather than as suggested, a Phobia defence, a T10 reaction that went
      first): the exact chance of the very hit `hits` counts. The two are equal when
      every target answered as the preview assumed.
    * `damage_dealt`, `damage_taken`: in the system's damage unit (`Story.damage_unit`);
      taken counts every source (the GM's hazards too), dealt only this combatant's.
    * `kp_spent`: what -> points, in the system's action points (`Story.points_unit`);
      empty where the system has none.
    * `luck`: the mean percentile (0-100, 50 average, higher luckier) of its `rolls`
      rolls; None when it rolled nothing. `roll_lucks`: each of those rolls' percentile,
      in order, and whether the table rolled it (typed in, issue 48: a roll counted in a
      record where this combatant's dice were typed in).
    * `approximate`: some figure of this row could not be recovered exactly from the
      events (the system's module says which case); False in every case known so far.
    """

    id: str
    name: str
    side: str
    npc: bool
    attacks: int = 0
    hits: int = 0
    expected_hits: float = 0.0
    expected_hits_answered: float = 0.0
    damage_dealt: int = 0
    damage_taken: int = 0
    kp_spent: dict[str, int] = field(default_factory=dict)
    luck: float | None = None
    rolls: int = 0
    approximate: bool = False
    roll_lucks: tuple[tuple[float, bool], ...] = ()


@dataclass(frozen=True)
class Story:
    """A fight's rows, one per combatant in the encounter's roster order."""

    system: str
    damage_unit: str  # what damage_dealt and damage_taken count, in the system's words
    points_unit: str  # what kp_spent counts ("KP", "AP"), "" when the system has none
    rows: tuple[Row, ...]

    def row(self, cid: str) -> Row:
        for row in self.rows:
            if row.id == cid:
                return row
        raise KeyError(cid)

    def as_dict(self) -> dict:
        """JSON-able data for the API."""
        return {
            "system": self.system,
            "damage_unit": self.damage_unit,
            "points_unit": self.points_unit,
            "rows": [asdict(row) for row in self.rows],
        }


def tell(engine, initial_state, records: Sequence[Sequence[Any]]) -> Story:
    """The story of the fight whose applied records' events are `records` (in order),
    from `initial_state` (``engine.new_state(house_rules)``): the reading of
    ``rules.<engine.system>.combat.story``."""
    system = engine.system
    if not isinstance(system, str) or not system.isidentifier():
        raise RulesError(f"no rule system {system!r}")
    try:
        module = importlib.import_module(f"rules.{system}.combat.story")
    except ImportError:
        raise RulesError(f"rule system {system!r} tells no story of its fights") from None
    return module.tell(engine, initial_state, records)


def fold(
    engine,
    initial_state,
    records: Iterable[Iterable[Any]],
    read: Callable[[Any, Any], None],
    tally: "Tally | None" = None,
) -> Any:
    """Fold the records' events from `initial_state`, calling ``read(state, event)`` with
    the state just before each event; the state after them all. `tally` learns whose dice
    each record's command had typed in."""
    state = initial_state
    evolve = engine.evolve
    for events in records:
        if tally is not None:
            tally.typed = typed_in(events)
        for event in events:
            read(state, event)
            state = evolve(state, event)
    return state


def typed_in(events) -> frozenset[str]:
    """The combatants whose dice were typed in for a record's command (issue 48)."""
    return frozenset(roll.who for event in events if type(event) is DiceEntered
                     for roll in event.rolls if roll.entered)


# Luck -----------------------------------------------------------------------------------


def percentile(p_worse: Fraction, p_same: Fraction) -> Fraction:
    """The mid-percentile of a roll: 100 · (P(a worse roll) + ½ · P(this very result))."""
    if p_worse < 0 or p_same < 0 or p_worse + p_same > 1:
        raise ValueError(f"not probabilities: {p_worse}, {p_same}")
    return 100 * (p_worse + p_same / 2)


def percentile_in(
    distribution: Mapping[int, Fraction], value: int, *, high_is_lucky: bool
) -> Fraction:
    """The mid-percentile of `value` under a finite `distribution` (value -> P)."""
    p_same = distribution.get(value)
    if not p_same:
        raise ValueError(f"{value} cannot be rolled here")
    if high_is_lucky:
        p_worse = sum((p for v, p in distribution.items() if v < value), Fraction(0))
    else:
        p_worse = sum((p for v, p in distribution.items() if v > value), Fraction(0))
    return percentile(p_worse, p_same)


# The tally a system's reader fills ---------------------------------------------------------


@dataclass
class _Counts:
    attacks: int = 0
    hits: int = 0
    expected: Fraction = Fraction(0)
    answered: Fraction = Fraction(0)
    dealt: int = 0
    taken: int = 0
    spent: dict[str, int] = field(default_factory=dict)
    luck: Fraction = Fraction(0)
    rolls: int = 0
    approximate: bool = False
    each: list = field(default_factory=list)


class Tally:
    """What a system's reader counts while it folds the events, per combatant id.
    `typed`: the combatants whose dice were typed in for the record being read (`fold`
    sets it)."""

    def __init__(self) -> None:
        self._counts: dict[str, _Counts] = {}
        self.typed: frozenset[str] = frozenset()

    def _of(self, cid: str) -> _Counts:
        found = self._counts.get(cid)
        if found is None:
            found = self._counts[cid] = _Counts()
        return found

    def attack(self, cid: str, *, chance: Fraction, answered: Fraction, hit: bool) -> None:
        """One attack of `cid`: the preview's chance to hit, the chance once the target
        answered, and whether it hit."""
        counts = self._of(cid)
        counts.attacks += 1
        counts.hits += bool(hit)
        counts.expected += chance
        counts.answered += answered

    def dealt(self, cid: str, amount: int) -> None:
        self._of(cid).dealt += amount

    def taken(self, cid: str, amount: int) -> None:
        self._of(cid).taken += amount

    def spent(self, cid: str, what: str, points: int) -> None:
        if points:
            spent = self._of(cid).spent
            spent[what] = spent.get(what, 0) + points

    def rolled(self, cid: str, luck: Fraction) -> None:
        """One roll of `cid`, its percentile (see :func:`percentile`)."""
        counts = self._of(cid)
        counts.luck += luck
        counts.rolls += 1
        counts.each.append((float(luck), cid in self.typed))

    def approximate(self, cid: str) -> None:
        self._of(cid).approximate = True

    def story(self, system: str, state, *, damage_unit: str, points_unit: str) -> Story:
        """The rows of the combatants of `state` (the encounter after the fight), in its
        roster order."""
        rows = []
        for c in state.combatants:
            counts = self._counts.get(c.id) or _Counts()
            rows.append(
                Row(
                    id=c.id,
                    name=c.name,
                    side=c.side,
                    npc=c.npc,
                    attacks=counts.attacks,
                    hits=counts.hits,
                    expected_hits=float(counts.expected),
                    expected_hits_answered=float(counts.answered),
                    damage_dealt=counts.dealt,
                    damage_taken=counts.taken,
                    kp_spent=dict(sorted(counts.spent.items())),
                    luck=float(counts.luck / counts.rolls) if counts.rolls else None,
                    rolls=counts.rolls,
                    approximate=counts.approximate,
                    roll_lucks=tuple(counts.each),
                )
            )
        return Story(system, damage_unit, points_unit, tuple(rows))
