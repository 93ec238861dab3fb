"""How dangerous is this fight? Play it to its end many times (issue 29).

A simulation starts from an encounter's state (before its start or at any point after)
and plays it out again and again with a seeded `random.Random`, every combatant choosing
by its system's default policy (the engine's `policy`: `next_command(state, plan)` for
whoever must decide now, and `fate(combatant)`, what the fight did to it). Each fight ends
when one side has nobody left who can act (unconscious, dead or fled), or at the round cap,
which the result counts apart (`capped`): a capped fight is won by nobody. A fight in
which the policy chose nothing, or what the rules refused, ends there too and is counted
`stuck`: a policy's mistake, which the tests rule out, never ends the whole run.

The GM may mark combatants that flee when wounded (`Plan.flees`): at their first
activation after a wound they leave the fight, counted `fled`, and their side stands only
if somebody else of it still can act.

Pure: no Django, no clock; the same seed gives the same summary. `progress(done, total)`
is called every `PROGRESS_EVERY` fights and `cancelled()` asked as often; a cancelled run
returns the fights played so far (`Summary.fights` says how many).
"""

import dataclasses
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from statistics import NormalDist

from rules.errors import RulesError

ROUND_CAP = 20
PROGRESS_EVERY = 25
MAX_COMMANDS_PER_ROUND = 400  # a policy that would loop for ever is a bug: the fight is capped
FATES = ("wounded", "limb_broken", "limb_destroyed", "unconscious", "dead", "fled")


@dataclass(frozen=True)
class Fate:
    """What one fight did to one combatant."""

    wounded: bool = False
    limb_broken: bool = False
    limb_destroyed: bool = False
    unconscious: bool = False
    dead: bool = False
    fled: bool = False


@dataclass(frozen=True)
class Plan:
    """How the fights are played: who flees when wounded, and the round cap."""

    flees: frozenset[str] = frozenset()
    round_cap: int = ROUND_CAP


@dataclass
class Fight:
    """One fight as it is played: who has fled so far."""

    fled: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Outcome:
    winner: str | None  # the side left standing; None: both fell, or the round cap
    rounds: int
    capped: bool
    fates: dict[str, Fate]
    stuck: bool = False  # the policy chose what the rules refused, or chose nothing


@dataclass(frozen=True)
class Summary:
    """Many fights, counted: per side its wins, per combatant how often each fate came."""

    fights: int
    seed: int
    wins: dict[str, int]
    draws: int  # both sides fell in the same exchange
    capped: int  # ended by the round cap, or stuck (counted in `stuck` too)
    rounds: dict[int, int]  # how many fights lasted so many rounds
    fates: dict[str, dict[str, int]]  # combatant id -> fate name -> fights
    stuck: int = 0  # fights where the policy had nothing the rules would take (a bug)

    def chance(self, side: str) -> float:
        return self.wins.get(side, 0) / self.fights if self.fights else 0.0

    def fate_chance(self, combatant_id: str, fate: str) -> float:
        counts = self.fates.get(combatant_id, {})
        return counts.get(fate, 0) / self.fights if self.fights else 0.0

    def rounds_percentile(self, q: float) -> int:
        """The number of rounds within which `q` (0-1) of the fights ended."""
        if not self.fights:
            return 0
        wanted, seen = q * self.fights, 0
        for rounds in sorted(self.rounds):
            seen += self.rounds[rounds]
            if seen >= wanted:
                return rounds
        return max(self.rounds)


def standing(state, policy, fight: Fight) -> set[str]:
    """The sides that still have somebody who can act and has not fled."""
    return {c.side for c in state.combatants if policy.can_act(c) and c.id not in fight.fled}


def _two_stand(state, policy, fight: Fight, sides: set[str]) -> bool:
    """Whether at least two of `sides` still stand (`standing`): the play's loop asks it
    before every command, so it stops at the second side found, not after every
    combatant (the first of each side is usually among the first few)."""
    first = None
    fled = fight.fled
    can_act = policy.can_act
    for c in state.combatants:
        side = c.side
        if side != first and side in sides and can_act(c) and c.id not in fled:
            if first is not None:
                return True
            first = side
    return False


def play_out(engine, state, rng: random.Random, plan: Plan = Plan()) -> Outcome:
    """One fight from `state` to its end, every die from `rng` (a command waiting for
    the table's dice, issue 48, is simulated from before it)."""
    if getattr(state, "asked", None) is not None:
        state = dataclasses.replace(state, asked=None)
    policy = engine.policy
    fight = Fight()
    first_round = max(state.round, 1)
    sides = {c.side for c in state.combatants}
    start = policy.start_command(state)
    if start is not None:  # set up, not started: the fight begins as the GM would start it
        state = engine.play(state, start, rng)[1]
    at_cap = stuck = False
    commands_this_round, this_round = 0, None
    last_round = first_round + plan.round_cap  # the cap's last round is over at this one
    next_command, play = policy.next_command, engine.play  # looked up once a fight
    while _two_stand(state, policy, fight, sides):  # len(standing(...) & sides) >= 2
        if state.round != this_round:
            this_round = state.round
            if this_round >= last_round:
                at_cap = True
                break
            commands_this_round = 0
        commands_this_round += 1
        command = next_command(state, plan, fight)
        if command is None or commands_this_round > MAX_COMMANDS_PER_ROUND:
            stuck = True  # nobody can do anything more: the policy is stuck
            break
        try:
            state = play(state, command, rng)[1]
        except RulesError:  # a policy's mistake ends this fight, not the whole run
            stuck = True
            break
    capped = at_cap or stuck
    left = standing(state, policy, fight) & sides
    winner = next(iter(left)) if len(left) == 1 and not capped else None
    fates = {
        c.id: replace(policy.fate(c), fled=True) if c.id in fight.fled else policy.fate(c)
        for c in state.combatants
    }
    rounds = plan.round_cap if at_cap else max(1, state.round - first_round + 1)
    return Outcome(winner, rounds, capped, fates, stuck)




def simulate(
    engine,
    state,
    *,
    fights: int,
    seed: int,
    plan: Plan = Plan(),
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Summary:
    """`fights` fights from `state`; fight i is played with the i-th seed drawn from
    `random.Random(seed)`, so the same seed gives the same summary."""
    seeds = random.Random(seed)
    outcomes = []
    for done in range(fights):
        if done and done % PROGRESS_EVERY == 0:
            if progress is not None:
                progress(done, fights)
            if cancelled is not None and cancelled():
                break
        outcomes.append(play_out(engine, state, random.Random(seeds.getrandbits(64)), plan))
    if progress is not None:
        progress(len(outcomes), fights)
    return summarise(outcomes, seed)


def summarise(outcomes: Iterable[Outcome], seed: int) -> Summary:
    outcomes = list(outcomes)
    wins = Counter(o.winner for o in outcomes if o.winner is not None)
    fates: dict[str, Counter] = {}
    for outcome in outcomes:
        for cid, fate in outcome.fates.items():
            counts = fates.setdefault(cid, Counter())
            for name in FATES:
                if getattr(fate, name):
                    counts[name] += 1
    return Summary(
        fights=len(outcomes),
        seed=seed,
        wins=dict(wins),
        draws=sum(1 for o in outcomes if o.winner is None and not o.capped),
        capped=sum(1 for o in outcomes if o.capped),
        rounds=dict(Counter(o.rounds for o in outcomes)),
        fates={cid: dict(counts) for cid, counts in fates.items()},
        stuck=sum(1 for o in outcomes if o.stuck),
    )


# The award for a fight (Aoristos p. 3, "Strid, oavsett resultat") ---------------------------

# The table's rows, by UP: no threat if taken seriously (0), the average character would
# win alone (1), would lose alone (2), the whole group is threatened (3). The text gives no
# numbers: these are house rules, their defaults here (percent of the simulated fights).
AWARD_DEFAULTS = {
    "award_group_threat_percent": 10,  # the group fails to win at least this often: 3 UP
    "award_no_threat_percent": 95,  # the average character alone wins this often: 0 UP
    "award_alone_wins_percent": 50,  # ... at least this often: 1 UP, else 2 UP
}


@dataclass(frozen=True)
class Award:
    up: int
    row: str  # "no_threat", "alone_wins", "alone_loses" or "group_threatened"
    group_chance: float  # the group's chance to win, all together
    alone_chance: float  # the average character's chance alone (the mean over the group)


def percent(chance: float) -> float:
    """A chance in percent, rounded past float's noise (1 - 0.9 is 0.0999...)."""
    return round(chance * 100, 9)


def award(group_chance: float, alone_chance: float, house: dict | None = None) -> Award:
    """The p. 3 award from the simulated chances: first whether the whole group is
    threatened, then how the average character would fare alone."""
    rules = {**AWARD_DEFAULTS, **(house or {})}
    if percent(1 - group_chance) >= rules["award_group_threat_percent"]:
        up, row = 3, "group_threatened"
    elif percent(alone_chance) >= rules["award_no_threat_percent"]:
        up, row = 0, "no_threat"
    elif percent(alone_chance) >= rules["award_alone_wins_percent"]:
        up, row = 1, "alone_wins"
    else:
        up, row = 2, "alone_loses"
    return Award(up, row, group_chance, alone_chance)


def award_for(
    engine,
    state,
    *,
    fights: int,
    seed: int,
    plan: Plan = Plan(),
    house: dict | None = None,
    group: Summary | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Award | None:
    """Simulate the opposition against the whole group (the characters' side) and against
    each character alone, from the encounter as it was set up (`state`, before its start:
    the award is for the fight, not for what is left of it); None when it has no
    characters, or characters on two sides, or no opposition, or when it was cancelled.

    `group`: the whole group's fights from this very state, when the caller has them
    already (they are not played again). `progress(done, total)` counts this award's
    fights alone (`award_fights` says how many before it starts)."""
    if engine.policy.start_command(state) is None:
        raise ValueError("the award is simulated from the encounter as set up, before its start")
    side = characters_side(state)
    if side is None:
        return None
    total = award_fights(state, fights, group_known=group is not None)
    done = 0

    def run(from_state) -> Summary:
        def step(played: int, _fights: int) -> None:
            if progress is not None:
                progress(done + played, total)

        return simulate(engine, from_state, fights=fights, seed=seed, plan=plan,
                        progress=step, cancelled=cancelled)

    if group is None:
        group = run(state)
        done += fights
    alone = []
    for character in (c for c in state.combatants if not c.npc):
        if cancelled is not None and cancelled():
            return None
        alone_state = state
        for other in state.combatants:
            if other.side == side and other.id != character.id:
                alone_state = alone_state.without(other.id)
        summary = run(alone_state)
        done += fights
        if summary.fights < fights:  # cancelled on the way
            return None
        alone.append(summary.chance(side))
    return award(group.chance(side), sum(alone) / len(alone), house)


def characters_side(state) -> str | None:
    """The side of the characters when an award can be simulated: characters on one side
    against somebody on another; else None."""
    sides = {c.side for c in state.combatants if not c.npc}
    if len(sides) != 1 or not any(c.side not in sides for c in state.combatants):
        return None
    return next(iter(sides))


def award_fights(state, fights: int, *, group_known: bool = False) -> int:
    """How many fights `award_for` plays from `state`: each character alone, and the
    whole group unless it is known already; 0 when no award can be simulated."""
    if characters_side(state) is None:
        return 0
    characters = sum(1 for c in state.combatants if not c.npc)
    return fights * (characters + (0 if group_known else 1))


# Precision-driven runs (issue 46) ------------------------------------------------------------
#
# A run no longer plays a fixed number of fights: it plays them in batches until every
# chance its page shows is known to the precision asked for, or to a cap, and says which.
#
# - **Batches.** Fight i of batch b of part p is played with dice drawn from a seed made of
#   (the run's seed, p, b) alone (`batch_seed`), so a batch is the same wherever and
#   whenever it is played: by one worker process or by several, in any order.
# - **Steps.** A run asks for a step at a time: the next `STEP_BATCHES` batches of every
#   part still open (`Run.wanted`), and decides only once the whole step is counted
#   (`Run.add`), in batch order. So what it decides, and its report, depend on the seed
#   alone, never on how many workers played the step or which finished first.
# - **The shown chances** (each side's win, both sides falling, the round cap, every
#   combatant's every fate) are known to ± `margin` percentage points at 95 % when the
#   Wilson interval of each is that narrow (`widest`). Each is its own interval, not a
#   joint one; and a run that looks at its interval after every step is a little less
#   sure than the 95 % of a fixed count (the page says "about").
# - **The award's row** (p. 4) is decided at 99 % when every corner of the group's and the
#   average character's intervals gives the same row (`Run.decided`); the characters'
#   intervals are each at 1 - 1 % / (characters + 1) (Bonferroni), so all of them hold
#   together at 99 %. A group surely threatened needs no character alone: their runs stop
#   then too. The award's runs stop as soon as the row is decided.
# - **The cap** of a part is the count at which a chance of 50 %, the widest, is known to
#   the margin (`Precision.cap`): the shown chances never need more, and an award still
#   undecided there is reported undecided, with its intervals.

BATCH = 25  # fights per batch
STEP_BATCHES = 4  # batches of every open part per step: 100 fights
FUTILE_AFTER = 2 * BATCH * STEP_BATCHES  # fights before an award may be found undecidable
PRECISIONS = (5.0, 3.0, 1.0)  # the margins a GM may ask for, percentage points at 95 %
DEFAULT_PRECISION = 5.0
Z95 = NormalDist().inv_cdf(0.975)
AWARD_CONFIDENCE = 0.99


@dataclass(frozen=True)
class Precision:
    """What a run must know: every shown chance to ± `margin` percentage points at 95 %,
    the award's row at `award_confidence`."""

    margin: float = DEFAULT_PRECISION
    award_confidence: float = AWARD_CONFIDENCE

    def cap(self) -> int:
        """The fights after which a chance of 50 % is known to the margin (whole steps)."""
        needed = math.ceil((Z95 / (2 * self.margin / 100)) ** 2)
        step = BATCH * STEP_BATCHES
        return step * math.ceil(needed / step)


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a chance seen `hits` times in `n` (0-1)."""
    if n <= 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def margin_of(hits: int, n: int, z: float = Z95) -> float:
    """Half the Wilson interval's width, in percentage points."""
    low, high = wilson(hits, n, z)
    return 100 * (high - low) / 2


def shown_counts(summary: Summary, sides: Iterable[str], ids: Iterable[str]) -> list[int]:
    """Every count whose chance a report shows: each side's wins, both falling, the cap,
    and each combatant's every fate."""
    counts = [summary.wins.get(side, 0) for side in sides]
    counts += [summary.draws, summary.capped]
    for cid in ids:
        fates = summary.fates.get(cid, {})
        counts += [fates.get(name, 0) for name in FATES]
    return counts


def widest(summary: Summary, sides: Iterable[str], ids: Iterable[str]) -> float:
    """The widest margin (pp at 95 %) of the chances a report of `summary` shows."""
    if not summary.fights:
        return 100.0
    return max(margin_of(k, summary.fights) for k in shown_counts(summary, sides, ids))


def batch_seed(seed: int, part: str, index: int) -> int:
    """The seed of batch `index` of part `part` (str seeds are hashed with SHA-512: the
    same in every process, whatever PYTHONHASHSEED)."""
    return random.Random(f"{seed}/{part}/{index}").getrandbits(64)


def play_batch(engine, state, plan: Plan, seed: int, part: str, index: int,
               size: int = BATCH) -> Summary:
    """Batch `index` of part `part`: `size` fights, each with its own seed."""
    seeds = random.Random(batch_seed(seed, part, index))
    return summarise(
        (play_out(engine, state, random.Random(seeds.getrandbits(64)), plan) for _ in range(size)),
        seed,
    )


def merge(summaries: Iterable[Summary], seed: int) -> Summary:
    """Summaries of disjoint fights, counted as one."""
    wins, rounds, fates = Counter(), Counter(), {}
    fights = draws = capped = stuck = 0
    for s in summaries:
        fights += s.fights
        draws += s.draws
        capped += s.capped
        stuck += s.stuck
        wins.update(s.wins)
        rounds.update(s.rounds)
        for cid, counts in s.fates.items():
            fates.setdefault(cid, Counter()).update(counts)
    return Summary(fights=fights, seed=seed, wins=dict(wins), draws=draws, capped=capped,
                   rounds=dict(rounds), fates={c: dict(f) for c, f in fates.items()},
                   stuck=stuck)


EMPTY = Summary(fights=0, seed=0, wins={}, draws=0, capped=0, rounds={}, fates={})


@dataclass
class Part:
    """One set of fights of a run: the fight itself ("fight"), the whole group from the
    set-up when that is not the fight's own state ("group"), a character alone
    ("alone:<id>")."""

    key: str
    state: object
    sides: tuple[str, ...]
    ids: tuple[str, ...]
    batches: list[Summary] = field(default_factory=list)
    summary: Summary = EMPTY
    open: bool = True
    stopped: str = ""  # "precise", "decided", "undecided", "cap"; "" while it is open

    @property
    def fights(self) -> int:
        return self.summary.fights


@dataclass(frozen=True)
class AwardEstimate:
    """The award as a run knows it: the row at the estimate, and whether the intervals
    decide it."""

    award: Award
    decided: bool
    group_interval: tuple[float, float]
    alone_interval: tuple[float, float]
    confidence: float


def _parts_of(state) -> tuple[tuple[str, ...], tuple[str, ...]]:
    sides = tuple(dict.fromkeys(c.side for c in state.combatants))
    return sides, tuple(c.id for c in state.combatants)


class Run:
    """A precision-driven run (see above): `wanted()` the batches of the next step,
    `add(results)` them once all are played, until `finished`. Pure: it plays nothing."""

    def __init__(self, state, *, seed: int, plan: Plan = Plan(),
                 precision: Precision = Precision(), setup=None, house: dict | None = None):
        self.seed, self.plan, self.precision = seed, plan, precision
        self.house = house or {}
        self.parts: dict[str, Part] = {}
        self._add_part("fight", state)
        self.side = characters_side(setup) if setup is not None else None
        self.characters: list[str] = []
        if self.side is not None:
            self.group_key = "fight" if setup is state else "group"
            if self.group_key == "group":
                self._add_part("group", setup)
            for character in (c for c in setup.combatants if not c.npc):
                alone = setup
                for other in setup.combatants:
                    if other.side == self.side and other.id != character.id:
                        alone = alone.without(other.id)
                self._add_part(f"alone:{character.id}", alone)
                self.characters.append(character.id)

    def _add_part(self, key: str, state) -> None:
        sides, ids = _parts_of(state)
        self.parts[key] = Part(key, state, sides, ids)

    @property
    def has_award(self) -> bool:
        return self.side is not None

    @property
    def finished(self) -> bool:
        return not any(p.open for p in self.parts.values())

    def cap(self) -> int:
        return self.precision.cap()

    def most(self) -> int:
        """The most fights the run may play, every part to its cap."""
        return self.cap() * len(self.parts)

    def played(self) -> int:
        return sum(p.fights for p in self.parts.values())

    def wanted(self) -> list[tuple[str, int]]:
        """The batches of the next step: (part, index), the fight's first."""
        return [(p.key, len(p.batches) + i)
                for p in self.parts.values() if p.open for i in range(STEP_BATCHES)]

    def add(self, results: dict[tuple[str, int], Summary]) -> None:
        """Count a whole step (every batch `wanted` asked for), then decide what is known."""
        for key, index in self.wanted():
            part = self.parts[key]
            assert index == len(part.batches)
            part.batches.append(results[(key, index)])
        for part in self.parts.values():
            part.summary = merge(part.batches, self.seed)
        self._decide()

    def _decide(self) -> None:
        """Close the parts whose answer is known: the fight's when its shown chances are
        precise (and, when it is the award's group too, the row decided), the award's
        others when the row is decided; any at its cap."""
        cap = self.cap()
        fight = self.parts["fight"]
        precise = widest(fight.summary, fight.sides, fight.ids) <= self.precision.margin
        estimate = self.award()
        decided = estimate is not None and estimate.decided
        settled = decided or self._futile(estimate)  # the award has its answer
        for part in self.parts.values():
            if not part.open:
                continue
            if part.key == "fight":
                done = precise and (not self.has_award or self.group_key != "fight" or settled)
                reason = "precise"
            else:
                done, reason = settled, "decided" if decided else "undecided"
            if done:
                part.open, part.stopped = False, reason
            elif part.fights >= cap:
                part.open, part.stopped = False, "cap"

    def _futile(self, estimate: "AwardEstimate | None") -> bool:
        """Whether the award's row cannot be decided by the cap: from `FUTILE_AFTER`
        fights of each part on, the intervals the estimates would have at the cap
        still straddle a threshold (the chance is too close to it)."""
        if estimate is None or any(
                p.fights < FUTILE_AFTER for p in self.parts.values() if p.open):
            return False
        return not self.award(at=self.cap()).decided

    def award(self, at: int | None = None) -> AwardEstimate | None:
        """The award at the estimate so far, and whether its row is decided."""
        if not self.has_award:
            return None
        group = self.parts[self.group_key].summary
        alone = [self.parts[f"alone:{cid}"].summary for cid in self.characters]
        if not group.fights or not all(s.fights for s in alone):
            return None
        confidence = self.precision.award_confidence
        z = NormalDist().inv_cdf(1 - (1 - confidence) / (len(alone) + 1) / 2)

        def interval(s: Summary) -> tuple[float, float]:
            if at is None:
                return wilson(s.wins.get(self.side, 0), s.fights, z)
            return wilson(round(s.chance(self.side) * at), at, z)  # as it would be at `at`

        g_low, g_high = interval(group)
        bounds = [interval(s) for s in alone]
        a_low = sum(b[0] for b in bounds) / len(bounds)
        a_high = sum(b[1] for b in bounds) / len(bounds)
        rows = {award(g, a, self.house).row for g in (g_low, g_high) for a in (a_low, a_high)}
        point = award(group.chance(self.side),
                      sum(s.chance(self.side) for s in alone) / len(alone), self.house)
        return AwardEstimate(point, len(rows) == 1, (g_low, g_high), (a_low, a_high),
                             confidence)

    def stopped(self) -> str:
        """Why the fight's own part stopped: "precise" or "cap" ("" while it plays)."""
        return self.parts["fight"].stopped


def run_all(engine, run: Run, *, on_step: Callable[[Run], None] | None = None,
            cancelled: Callable[[], bool] | None = None) -> Run:
    """Play `run` to its end in this process, a step at a time (tests, the bench's
    engine alone). False from `cancelled` stops it after the step it is asked in."""
    while not run.finished:
        results = {
            (key, index): play_batch(engine, run.parts[key].state, run.plan, run.seed, key, index)
            for key, index in run.wanted()
        }
        run.add(results)
        if on_step is not None:
            on_step(run)
        if cancelled is not None and cancelled():
            break
    return run
