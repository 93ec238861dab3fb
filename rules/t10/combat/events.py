"""Events of a T10 encounter: what happened, with every die already rolled in it.

`evolve` (fold.py) applies them and never rolls, so an encounter's state is the fold of
its events. Each event names its combatants by id. A roll is a `rules.t10.rolls.Outcome`
(the two dice, the bonus added, the total) with the parts its bonus was summed from.
"""

from dataclasses import dataclass
from typing import Any

from rules import scene
from rules.combat_kit import (  # the roster's events and others alike in several systems
    Acted,
    CombatantRemoved,
    CombatantUpdated,
    EncounterEnded,
    quick_init,
)
from rules.t10.combat.state import Combatant
from rules.t10.rolls import Outcome


@dataclass(frozen=True)
class CombatantAdded:
    """`carried`: its Utmattning and Skada come from its last fight (`body_of`)."""

    combatant: Combatant
    carried: bool = False


@dataclass(frozen=True)
class InitiativeRolled:
    """1T10 + Initiativ ("Initiativ"); ties roll again among the tied only. `rolls`: each
    combatant's dice that changed (the first die, then the rerolls). `reason`: "start"
    (the fight begins), "join" (a combatant joins a started fight), "react" (several
    combatants with saved AP act at once: a new roll orders them, nothing is kept)."""

    reason: str
    rolls: tuple[tuple[str, tuple[int, ...]], ...]
    initiative: tuple[tuple[str, int], ...] = ()  # each one's Initiativ, for the log


@dataclass(frozen=True)
class RoundStarted:
    """A new round: each combatant's AP (10 − Utmattning, not below 0)."""

    round: int
    ap: tuple[tuple[str, int], ...]


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class TurnStarted:
    id: str
    ap: int


@dataclass(frozen=True)
class TurnSkipped:
    """No AP this round (Utmattning 10 or more, or as much as the AP): no turn."""

    id: str


@dataclass(frozen=True)
class BegunContinued:
    """An action begun in an earlier round: `paid` of the rest now; `done` when it is all
    paid (its effect follows)."""

    id: str
    command: Any
    paid: int
    done: bool


@dataclass(frozen=True)
class ActionBegun:
    """An action dearer than the AP left: all of them paid, the rest next turn."""

    id: str
    command: Any
    cost: int
    paid: int


@dataclass(frozen=True)
class ActionLost:
    """A begun or declared action that can no longer be made (`why`: the refusal)."""

    id: str
    command: Any
    why: str


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class APSpent:
    """AP paid for an action: `ap` from the turn's, `saved` from the saved ones;
    `action`: the command's type."""

    id: str
    ap: int
    saved: int
    action: str


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Moved:
    """`x`, `y`: the point moved to on the map; None for a move typed in metres only (and
    in logs from before the map), which leaves the position as it was."""

    id: str
    metres: float
    x: float | None = None
    y: float | None = None


@dataclass(frozen=True)
class CoverTaken:
    id: str


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class StanceChanged:
    id: str
    stance: str
    weapon: str | None
    steps: int


@dataclass(frozen=True)
class ModeChanged:
    id: str
    weapon: str
    mode: str


@dataclass(frozen=True)
class Reloaded:
    id: str
    weapon: str
    rounds: int


@dataclass(frozen=True)
class SkillRolled:
    id: str
    skill: str
    label: str
    parts: tuple[tuple[str, int], ...]
    outcome: Outcome


@dataclass(frozen=True)
class Treated:
    """Sjukvård: the roll and the Skada it heals."""

    id: str
    target: str
    parts: tuple[tuple[str, int], ...]
    outcome: Outcome
    healed: int


@dataclass(frozen=True)
class PainkillersTaken:
    id: str
    target: str


@dataclass(frozen=True)
class Recovered:
    """AP spent on lowering Utmattning."""

    id: str
    points: int


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class AttackDeclared:
    """An attack waits for the reactions of `waiting` (those with saved AP)."""

    attacker: str
    target: str
    weapon: str
    mode: str
    distance: float
    modifier: int
    waiting: tuple[str, ...]


@dataclass(frozen=True)
class ReactionDeclared:
    id: str
    command: Any
    cost: int


@dataclass(frozen=True)
class Passed:
    id: str


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class ReactionsClosed:
    """Everyone has answered: the reactions are carried out, then the attack."""

    reactions: tuple[str, ...]


@dataclass(frozen=True)
class ReactionLost:
    """A reaction that cannot be made when its turn comes (`why`: the refusal)."""

    id: str
    command: Any
    why: str


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class AttackRolled:
    """The attack rolls (E one, A two), each 2T10 + the sum of `parts`. `covered`: an
    explosive against a target in cover: no roll, no damage. `ammo`: rounds used."""

    attacker: str
    target: str
    weapon: str
    mode: str
    distance: float
    parts: tuple[tuple[str, int], ...]
    rolls: tuple[Outcome, ...]
    covered: bool = False
    ammo: int = 0
    reaction: bool = False


@dataclass(frozen=True)
class AttackLost:
    """The pending attack is not made: its attacker is down or its target dead."""

    attacker: str
    target: str
    weapon: str
    why: str


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Damaged:
    """Damage dealt (`amount`, before Kroppsskydd): Utmattning + amount, Skada + what
    passes the protection; the AP left (then saved) lowered as much as the fatigue rose.
    `source`: the attacker, or "" for the GM's."""

    id: str
    source: str
    weapon: str
    amount: int
    protection: int
    damage: int
    fatigue: int
    ap_lost: int
    saved_lost: int
    dead: bool = False
    unconscious: bool = False


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class TurnEnded:
    """The turn is over; `saved`: the AP left, saved until the round ends."""

    id: str
    saved: int


@dataclass(frozen=True)
class RoundEnded:
    """Saved AP vanish; Utmattning falls by 1 (never below Skada without painkillers):
    `fatigue` the new values."""

    round: int
    fatigue: tuple[tuple[str, int], ...]


EVENT_TYPES = {
    cls.__name__: cls
    for cls in (
        CombatantAdded,
        CombatantUpdated,
        CombatantRemoved,
        InitiativeRolled,
        RoundStarted,
        TurnStarted,
        TurnSkipped,
        BegunContinued,
        ActionBegun,
        ActionLost,
        APSpent,
        Moved,
        CoverTaken,
        StanceChanged,
        ModeChanged,
        Reloaded,
        Acted,
        SkillRolled,
        Treated,
        PainkillersTaken,
        Recovered,
        AttackDeclared,
        ReactionDeclared,
        Passed,
        ReactionsClosed,
        ReactionLost,
        AttackRolled,
        AttackLost,
        Damaged,
        TurnEnded,
        RoundEnded,
        EncounterEnded,
    )
} | scene.EVENT_TYPES  # the battle map's walls, cover and picture
VALUE_TYPES = {cls.__name__: cls for cls in (Outcome,)}
