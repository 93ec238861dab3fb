"""Events of an Aoristos encounter: what happened, with every die already rolled in it.

`evolve` (fold.py) applies them and never rolls, so an encounter's state is the fold
of its events. Each event names its combatants by id.
"""

from dataclasses import dataclass
from typing import Any

from rules import scene
from rules.aoristos.combat.state import Combatant
from rules.combat_kit import (  # the roster's events and others alike in several systems
    CombatantRemoved,
    CombatantUpdated,
    EncounterEnded,
    Woke,
    quick_init,
)


@dataclass(frozen=True)
class CombatantAdded:
    combatant: Combatant


@dataclass(frozen=True)
class SurpriseSet:
    side: str
    hand: str  # "" clears it


@dataclass(frozen=True)
class CombatStarted:
    """Initiative (p. 6): SIN, plus the surprising side's rolled bonus; fixed for the
    whole combat; ties by seat order clockwise from the GM. Everyone starts with KP =
    Handlingskraft."""

    order: tuple[str, ...]
    rolls: tuple[tuple[str, tuple[int, ...], int], ...]  # (id, dice, bonus)


@dataclass(frozen=True)
class JoinedFight:
    """A combatant added to a started fight takes its place in the initiative order
    (p. 6: highest SIN first, the order kept for the whole fight): at `index` of the
    order, with `initiative` its SIN (no surprise bonus: that was the first round's)."""

    id: str
    index: int
    initiative: int


@dataclass(frozen=True)
class SingleAttackSet:
    """p. 6: a single attack: the attacker has a round's KP to aim with, the target a
    round's KP as its vigilance bonus."""

    attacker: str
    target: str
    cp: int
    bonus: int


@dataclass(frozen=True)
class RoundStarted:
    round: int


@quick_init  # one of a simulated fight's hottest values (combat_kit.quick_init)
@dataclass(frozen=True)
class ActivationStarted:
    """The stress roll 1B1F, the lowest die counts (p. 6); with a drawn bow, the FYS test
    against the bow's strength (p. 7)."""

    id: str
    turn: int
    dice: tuple[int, ...]
    loss: int
    bow_test: tuple[tuple[int, ...], int, int, bool] | None = None  # dice, total, ST, ok


@dataclass(frozen=True)
class Moved:
    id: str
    x: float
    y: float
    distance: float
    cost: int
    vigilance: bool = False


@dataclass(frozen=True)
class KpSpent:
    """An action that only costs KP: talk, scan, and the like (p. 6-7)."""

    id: str
    action: str
    cost: int
    detail: str = ""
    passive: bool = False


@dataclass(frozen=True)
class Scanned:
    """What a scan revealed (p. 6-7): who was seen; the SIN tests for the partly hidden."""

    id: str
    seen: tuple[str, ...]
    tests: tuple[tuple[str, tuple[int, ...], int, int, bool], ...] = ()


@dataclass(frozen=True)
class PostureChanged:
    id: str
    posture: str
    cost: int


@dataclass(frozen=True)
class HandsChanged:
    """Draw, ready, stow, switch hands, pick up, drop (p. 7)."""

    id: str
    action: str
    weapon: str
    right: str | None
    left: str | None
    readied: str | None
    cost: int
    # What became of the weapon's windup (p. 7, `items.windup_outcome`): "lost" (an arrow
    # let fall), "armed_dropped" (an armed grenade let fall), "armed" (one picked up).
    windup: str = ""


@dataclass(frozen=True)
class WoundUp:
    id: str
    weapon: str
    cost: int
    aborted: bool = False


@dataclass(frozen=True)
class Reloaded:
    """A reload (p. 7, 11): `id` pays `cost`; the rounds go into `gunner`'s weapon when an
    assistant reloads another's belt (p. 11), else into `id`'s own."""

    id: str
    weapon: str
    rounds: int
    cost: int
    gunner: str | None = None


@dataclass(frozen=True)
class RangeAimed:
    id: str
    target: str
    levels: int
    cost: int


@dataclass(frozen=True)
class OverwatchStarted:
    id: str
    x: float
    y: float


@dataclass(frozen=True)
class ExtendedStarted:
    id: str
    label: str
    command: Any
    paid: int
    remaining: int


@dataclass(frozen=True)
class ExtendedPaid:
    id: str
    paid: int
    remaining: int


@dataclass(frozen=True)
class ExtendedCancelled:
    id: str
    reason: str
    # An extended windup broken off unplanned (p. 7): (weapon, "armed") for a grenade
    # that stays armed in the hand, (weapon, "lost") for an arrow.
    windup: tuple[str, str] | None = None


@quick_init  # one of a simulated fight's hottest values (combat_kit.quick_init)
@dataclass(frozen=True)
class AttackDeclared:
    attacker: str
    target: str
    weapon: str
    aim: int
    shots: int
    auto: bool
    called_area: str | None
    cost: int
    passive: bool = False
    melee: bool = False
    distance: float = 0.0
    limb: str | None = None  # an unarmed attack's striking limb (p. 8; None in older logs)


@quick_init  # one of a simulated fight's hottest values (combat_kit.quick_init)
@dataclass(frozen=True)
class VigilanceChosen:
    """The target's vigilance (p. 8) and the attack's ST with its parts (p. 9-10)."""

    target: str
    properties: tuple[str, ...]
    threshold: int
    parts: tuple[tuple[str, int], ...]
    move_to: tuple[float, float] | None = None  # the vigilance move with RÖR (p. 9)
    moved: float = 0.0
    prone: bool = False  # 1 m of the move swapped for diving to the ground (p. 9)
    followers: tuple[str, ...] = ()  # in melee: those who move as far the same way (p. 9)
    # Areas hidden by proper cover where the move ends (p. 12: hits with no area).
    cover_after: int | None = None


@dataclass(frozen=True)
class MoveProposed:
    """The target's vigilance with a move toward cover the map does not show (p. 9):
    waiting for the GM to confirm it."""

    target: str
    properties: tuple[str, ...]
    to: tuple[float, float]
    prone: bool = False


@dataclass(frozen=True)
class MoveConfirmed:
    """The GM's answer to a proposed vigilance move: accepted (the roll follows) or not
    (the target chooses again)."""

    target: str
    accepted: bool
    areas: int | None = None


@dataclass(frozen=True)
class SituationSet:
    """The GM's situational ST modifier on every attack (0: none), and its label."""

    modifier: int
    label: str = ""


@quick_init  # one of a simulated fight's hottest values (combat_kit.quick_init)
@dataclass(frozen=True)
class AttackRolled:
    """The attack test and the area roll together (p. 9)."""

    attacker: str
    target: str
    hand: str
    dice: tuple[int, ...]
    counted: tuple[int, ...]
    test_base: int
    threshold: int
    total: int
    hit: bool
    shots: int
    auto_dice: tuple[int, ...] = ()
    area_hand: str = ""
    area_dice: tuple[int, ...] = ()
    area: str | None = None
    abortable: bool = False


@dataclass(frozen=True)
class AttackAborted:
    attacker: str


@quick_init  # one of a simulated fight's hottest values (combat_kit.quick_init)
@dataclass(frozen=True)
class AttackResolved:
    """Step 6 (p. 9, 12): the outcome, and the strength with its parts."""

    attacker: str
    target: str
    weapon: str
    hit: bool
    reason: str  # "hit", "miss", "hidden_area"
    area: str | None
    rounds_used: int
    strength_parts: tuple[tuple[str, int], ...] = ()
    active_strength: int = 0
    protection: int = 0
    final_strength: int = 0
    damage: int = 0


@quick_init  # one of a simulated fight's hottest values (combat_kit.quick_init)
@dataclass(frozen=True)
class Wounded:
    """One wound and everything it sets off at once (p. 13-14)."""

    id: str
    area: str | None
    damage: int
    source: str
    nerve_shock: int  # added
    bleed_rate: int  # added
    organ_trauma: int  # added
    limb_state: str | None = None
    survival: tuple[tuple[int, ...], int, int, bool] | None = None  # dice, result, OT, alive
    vil_tests: tuple[tuple[tuple[int, ...], int, int, bool], ...] = ()  # dice, total, ST, ok
    dropped: tuple[str, ...] = ()
    posture: str | None = None
    unconscious: bool = False
    dead: bool = False
    cancelled: str = ""  # an extended activity or overwatch this nervchock ended
    # An interrupted windup (p. 7): (weapon, "lost" / "armed" / "armed_dropped"), when the
    # wound drops the wound-up weapon or breaks off an extended windup.
    windup: tuple[str, str] | None = None
    burn: bool = False  # a burn (fire, heat): care does not help it heal (p. 14)


@dataclass(frozen=True)
class EscapeTested:
    """Leaving melee (p. 10): the mover's side sums its RÖR, +2 per ally; the foes sum
    theirs; each side's representative rolls. The foes higher: dangerous."""

    mover: str
    foes: tuple[str, ...]
    allies: tuple[str, ...]
    mover_base: int
    mover_dice: tuple[int, ...]
    mover_total: int
    foes_base: int
    foes_dice: tuple[int, ...]
    foes_total: int
    dangerous: bool
    x: float
    y: float
    distance: float
    cost: int


@dataclass(frozen=True)
class EscapeDecided:
    mover: str
    go_on: bool


@dataclass(frozen=True)
class ReactionCalled:
    kind: str
    who: str
    target: str


@dataclass(frozen=True)
class Followed:
    """A foe in the melee followed the target's vigilance move (p. 9): to (x, y), `metres`
    as far the same way, no KP; its "follow" reaction is answered."""

    who: str
    target: str
    x: float
    y: float
    metres: float


@dataclass(frozen=True)
class ReactionDone:
    """A reaction answered: attacked, let pass, held fire with a SIN test, stayed."""

    who: str
    how: str  # "attacked", "passed", "held", "must_attack", "cannot", "stayed"
    test: tuple[tuple[int, ...], int, int, bool] | None = None


@quick_init  # one of a simulated fight's hottest values (combat_kit.quick_init)
@dataclass(frozen=True)
class ActivationEnded:
    """p. 6, 13: left-over KP become the vigilance bonus, nervchock falls by VIL (not
    below its lasting degrees), KP = Handlingskraft − nervchock."""

    id: str
    vigilance_bonus: int
    nerve_shock: int
    cp: int


EVENT_TYPES = {
    cls.__name__: cls
    for cls in (
        CombatantAdded,
        CombatantUpdated,
        CombatantRemoved,
        SurpriseSet,
        CombatStarted,
        JoinedFight,
        SingleAttackSet,
        RoundStarted,
        ActivationStarted,
        Moved,
        KpSpent,
        Scanned,
        PostureChanged,
        HandsChanged,
        WoundUp,
        Reloaded,
        RangeAimed,
        OverwatchStarted,
        ExtendedStarted,
        ExtendedPaid,
        ExtendedCancelled,
        AttackDeclared,
        VigilanceChosen,
        MoveProposed,
        MoveConfirmed,
        SituationSet,
        AttackRolled,
        AttackAborted,
        AttackResolved,
        Wounded,
        ActivationEnded,
        EscapeTested,
        EscapeDecided,
        ReactionCalled,
        Followed,
        ReactionDone,
        Woke,
        EncounterEnded,
    )
} | scene.EVENT_TYPES  # the battle map's walls, cover and picture
