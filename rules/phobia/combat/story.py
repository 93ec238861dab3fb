"""The story of a Phobia fight in numbers (issue 29; `rules.story`), read from its events
(phobia-utdrag.txt; lines cited as the engine cites them).

* **Attacks**: one per `AttackRolled`: an active attack (lines 651-701), an aimed shot
  (lines 733-743) and a shot back (a response, lines 773-778) alike, however many times
  an attack and its defence rolled again on equal effects. **A hit** is the system's:
  `AttackRolled.hit`, the attack test succeeded (lines 46-49, 430-440) and, against a
  defence (Försvara sig, lines 796-799), won the active opposition (lines 556-578) within
  the engine's `attacks.MAX_OPPOSED` exchanges.
* **Expected** (`expected_hits`): the preview's chance (`view.attack_preview`'s ``p_hit``):
  `success.odds(difficulty, chance).success` for the difficulty of the parts the attack
  was declared with (`AttackDeclared.parts`, the function the preview calls on the same
  state) and the attacker's value in the weapon's skill (at most 200, as the preview) just
  before the declaration. The preview cannot know a defence (the target declares it
  after, lines 693-701): it is the chance of the attack test alone. For a shot back, which
  no preview shows, the chance of its own test.
  `expected_hits_answered`: the exact chance of the hit as counted once the target has
  answered: against a defence, :func:`defended_hit_chance` (the attack succeeds and wins
  an exchange, every exchange tied before it, as `attacks.attack_events` plays it); else
  the attack test's `odds` as rolled (`Test.difficulty`, `Test.chance`).
* **Damage**: skadepoäng after protection (`Wounded.damage`, lines 818-839: what is split
  into Trauma and Smärta). Dealt: each `Wounded` whose source is the combatant; taken:
  every `Wounded` (the GM's too).
* **Points**: Phobia spends none: actions are counted per round (lines 641-660), so
  `kp_spent` stays empty.
* **Luck** (`rules.story.percentile`), under the exact open-ended distribution of the
  total (`dice.p_at_most`): every success test a combatant rolls, its attack tests (each
  exchange), its defence, cover, skill (Använda färdighet, lines 761-765) and
  serious-injury checks (Bryt, Öga, Öra), death and
  shock rolls: a low total is lucky (roll-under, lines 46-49); its damage rolls as an
  attacker: a high total is lucky; its 1T10 added to TO at a round's start (the house
  rule, lines 245-247): high is lucky. Left out: Ob0T6 (no dice), the hit-area 1T10, the
  serious-injury table's 1T10 and the losses' dice (which face is better depends on the
  table), and the GM's damage (its roll is not the combatant's).
  A total above 200, beyond the exact tables (`dice.MAX_EXACT_TOTAL`), is never rolled in
  practice; if one is, its roll is left out and the row marked `approximate`.
"""

from fractions import Fraction
from functools import lru_cache

from rules.phobia.combat import events as E
from rules.phobia.combat.attacks import MAX_OPPOSED
from rules.phobia.combat.reading import difficulty_of
from rules.phobia.dice import MAX_EXACT_TOTAL, SIDES, ObDice, p_at_most
from rules.phobia.success import MAX_EXACT_CHANCE, _keys, _pattern_rolls, _totals, odds
from rules.story import Story, Tally, fold, percentile, percentile_in

TO_DIE = {face: Fraction(1, 10) for face in range(1, 11)}  # the 1T10 added to TO


def tell(engine, initial_state, records) -> Story:
    reader = Reader()
    final = fold(engine, initial_state, records, reader.read, reader.tally)
    return reader.tally.story("phobia", final, damage_unit="skadepoäng", points_unit="")


# A defended attack's chance ----------------------------------------------------------------


@lru_cache(maxsize=256)
def exchange_odds(a_difficulty: int, a_chance: int, d_difficulty: int, d_chance: int):
    """One exchange of an attack against a defence (lines 556-578, 796-799): the exact
    P(the attack test succeeds and its key beats the defence's), P(it succeeds and the
    keys are equal: both roll again) and P(it fails yet its key is higher: no hit).

    The keys are `success.opposed`'s (rank, effect); `success.opposed_odds` gives who wins
    the comparison, not whether the attack succeeded, which the engine also asks. So the
    attacker's keys are split by success here, from the tables `opposed_odds` reads
    (`success._totals`, `success._keys`), total by total: a perfect pattern succeeds (rank 2
    within the chance, rank 1 above it, lines 430-440); otherwise a total within the
    chance succeeds unless two or more sixes came first (lines 481-482). Pairs with the
    defence's totals above 200 are counted as `opposed_odds` counts them (`_wins`); the
    pairs those tables cannot order at all (both totals above 200, or an equal key beyond
    them) are not counted as a win nor as a tie: below `OpposedOdds.undecided`, at most
    1e-9 and in practice under 1e-30. The first and third sum to `opposed_odds`'s
    ``a_wins`` but for those."""
    totals = _totals(a_difficulty)
    defence = _keys(d_difficulty, d_chance)
    succeeded: dict[tuple[int, int], int] = {}
    failed: dict[tuple[int, int], int] = {}

    def add(table: dict, key: tuple[int, int], mass: int) -> None:
        if mass:
            table[key] = table.get(key, 0) + mass

    for total in range(MAX_EXACT_TOTAL + 1):
        effect = a_chance - total
        pattern = totals.pattern[total]
        few = totals.few_sixes[total]
        many = totals.every[total] - few
        if total <= a_chance:
            add(succeeded, (2, effect), pattern)
            add(succeeded, (1, effect), few - pattern)
            add(failed, (1, effect), many)
        else:
            add(succeeded, (1, effect), pattern)
            add(failed, (1, effect), few - pattern)
            add(failed, (0, effect), many)
    patterns = sum(
        ways * totals.denominator // SIDES**a_difficulty
        for _sixes, _others, ways in _pattern_rolls(a_difficulty)
    )
    pattern_tail = patterns - sum(totals.pattern)  # perfect patterns above 200: rank 1
    tails = {True: (0, pattern_tail), False: (totals.tail[0], totals.tail[1] - pattern_tail)}

    def wins(keys: dict, tail: tuple[int, int]) -> int:
        won = sum(mass * defence.mass_below(key) for key, mass in keys.items())
        for rank in (0, 1):
            # The defence's totals above 200 of this rank: effects at most d_chance - 201.
            higher = sum(m for k, m in keys.items() if k >= (rank, d_chance - MAX_EXACT_TOTAL))
            won += defence.tail[rank] * higher
            won += tail[rank] * defence.mass_below((rank, float("-inf")))
        return won + tail[1] * defence.tail[0]

    masses = dict(zip(defence.keys, defence.masses, strict=True))
    scale = totals.denominator * defence.denominator
    hit = wins(succeeded, tails[True])
    tie = sum(mass * masses.get(key, 0) for key, mass in succeeded.items())
    return (
        Fraction(hit, scale),
        Fraction(tie, scale),
        Fraction(wins(failed, tails[False]), scale),
    )


def defended_hit_chance(
    a_difficulty: int,
    a_chance: int,
    d_difficulty: int,
    d_chance: int,
    exchanges: int = MAX_OPPOSED,
) -> Fraction:
    """The exact chance that an attack hits through a defence (lines 556-578, 796-799), as
    `attacks.attack_events` plays it: exchange after exchange while the attack succeeds
    with an effect equal to the defence's, at most `exchanges` of them (then no hit)."""
    hit, tie, _failed = exchange_odds(a_difficulty, a_chance, d_difficulty, d_chance)
    return hit * sum((tie**k for k in range(exchanges)), Fraction(0))


# Luck ----------------------------------------------------------------------------------------


def total_luck(difficulty: int, total: int, *, low_is_lucky: bool) -> Fraction | None:
    """The percentile of an open-ended `Ob<difficulty>T6` total; None with no dice, or for
    a total beyond the exact tables."""
    if difficulty <= 0 or total > MAX_EXACT_TOTAL:
        return None
    dice = ObDice(difficulty)
    at_most = p_at_most(dice, total)
    below = p_at_most(dice, total - 1)
    same = at_most - below
    return percentile(1 - at_most if low_is_lucky else below, same)


class Reader:
    """Reads one event at a time, with the encounter just before it, into a `Tally`."""

    def __init__(self) -> None:
        self.tally = Tally()
        self.declared: dict[str, Fraction] = {}  # attacker -> its declared attack's chance

    def test(self, cid: str, test: E.Test | None) -> None:
        if test is None:
            return
        luck = total_luck(test.difficulty, test.total, low_is_lucky=True)
        if luck is not None:
            self.tally.rolled(cid, luck)
        elif test.difficulty > 0:
            self.tally.approximate(cid)

    def read(self, state, event) -> None:
        tally = self.tally
        kind = type(event)
        if kind is E.RoundStarted:
            for cid, die in event.dice:
                tally.rolled(cid, percentile_in(TO_DIE, die, high_is_lucky=True))
        elif kind is E.AttackDeclared:
            attacker = state.get(event.attacker)
            skill = attacker.weapon(event.weapon).skill
            chance = min(attacker.value(skill), MAX_EXACT_CHANCE)  # as the preview
            self.declared[event.attacker] = odds(difficulty_of(event.parts), chance).success
        elif kind is E.AttackRolled:
            self.attack(event)
        elif kind is E.Wounded:
            tally.taken(event.id, event.damage)
            if event.source:
                tally.dealt(event.source, event.damage)
                if event.dice:
                    luck = total_luck(len(event.dice), event.rolled, low_is_lucky=False)
                    if luck is None:
                        tally.approximate(event.source)
                    else:
                        tally.rolled(event.source, luck)
            for check in event.checks:
                self.test(event.id, check.test)
            self.test(event.id, event.death)
            self.test(event.id, event.shock)
        elif kind in (E.CoverSought, E.SkillRolled):
            self.test(event.id, event.test)
        elif kind is E.TimePassed:
            self.test(event.id, event.shock)

    def attack(self, event: E.AttackRolled) -> None:
        first = event.tests[0]
        exact = first.chance <= MAX_EXACT_CHANCE
        own = odds(first.difficulty, min(first.chance, MAX_EXACT_CHANCE)).success
        chance = own if event.response else self.declared.pop(event.attacker, own)
        if event.defences:
            guard = event.defences[0]
            exact = exact and guard.chance <= MAX_EXACT_CHANCE
            answered = defended_hit_chance(
                first.difficulty,
                min(first.chance, MAX_EXACT_CHANCE),
                guard.difficulty,
                min(guard.chance, MAX_EXACT_CHANCE),
            )
        else:
            answered = own
        if not exact:
            self.tally.approximate(event.attacker)
        self.tally.attack(event.attacker, chance=chance, answered=answered, hit=event.hit)
        for test in event.tests:
            self.test(event.attacker, test)
        for test in event.defences:
            self.test(event.target, test)
