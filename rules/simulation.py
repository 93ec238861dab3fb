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

import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

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
    """One fight from `state` to its end, every die from `rng`."""
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
