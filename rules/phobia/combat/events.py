"""Events of a Phobia encounter: what happened, with every die already rolled in it.

`evolve` (fold.py) applies them and never rolls, so an encounter's state is the fold
of its events. Each event names its combatants by id.
"""

from dataclasses import dataclass

from rules import scene
from rules.combat_kit import (  # the roster's events and others alike in several systems
    Acted,
    CombatantRemoved,
    CombatantUpdated,
    EncounterEnded,
    Woke,
    quick_init,
)
from rules.phobia.combat.state import Combatant, Injury
from rules.phobia.injuries import Bleeding


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Test:
    """One success test (lines 30-65, 385-512): `chance` against Ob`difficulty`T6, the
    difficulty's parts (base and modifiers, summed first: lines 527-552), the dice of the
    first roll and the rerolls, the total and what the rules make of it."""

    stat: str
    chance: int
    difficulty: int
    parts: tuple[tuple[str, int], ...]
    first: tuple[int, ...]
    rerolls: tuple[int, ...]
    total: int
    success: bool
    perfect: bool = False
    fumble: bool = False

    @property
    def effect(self) -> int:
        return self.chance - self.total


@dataclass(frozen=True)
class CheckRolled:
    """A check of the serious-injury table (Bryt, Öga, Öra; lines 882-909), rolled at once."""

    code: str
    test: Test
    failed: bool
    side: str | None = None


@dataclass(frozen=True)
class LossRolled:
    """A rolled loss (Permanent!, Tänder!; lines 918-935): the dice and what is lost."""

    code: str
    dice: tuple[tuple[int, ...], ...]
    amounts: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class CombatantAdded:
    combatant: Combatant


@dataclass(frozen=True)
class RoundStarted:
    """A 4-second round (lines 619-623); `dice`: the 1T10 each adds to TO (house rule,
    lines 245-247)."""

    round: int
    dice: tuple[tuple[str, int], ...] = ()


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class TurnStarted:
    """Highest TO first, ties by RÖR (lines 631-636); `turn_order` is the TO it acts at."""

    id: str
    turn_order: int


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Declared:
    id: str
    actions: int


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Moved:
    """`mode`: "" within the free 2 m, "move" up to FÖR (all actions harder), "run" up to
    FÖR x 2, "sprint" up to FÖR x 3 (lines 261-271). `action`: it is the active action
    Förflytta sig (lines 724-729). `x`, `y`: the map's point it moved to; None for metres
    typed without one (and in logs from before the map), where the position stays."""

    id: str
    metres: float
    total: float
    mode: str
    action: bool
    x: float | None = None
    y: float | None = None


@dataclass(frozen=True)
class AimTaken:
    """Sikta och skjuta (lines 733-743): the shot waits for half the shooter's TO."""

    id: str
    target: str
    weapon: str
    area: str | None
    turn_order: int


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class AttackDeclared:
    """An attack revealed (lines 693-701), with its difficulty's parts; the responses
    may now be declared."""

    attacker: str
    target: str
    weapon: str
    area: str | None
    aimed: bool
    parts: tuple[tuple[str, int], ...]


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class ResponseDeclared:
    id: str
    kind: str
    skill: str = ""
    weapon: str = ""
    parts: tuple[tuple[str, int], ...] = ()
    area: str | None = None


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Answered:
    """The target answered the attack (`passed`: with no response), or cannot: it is
    carried out."""

    id: str
    passed: bool = False


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class AttackRolled:
    """The attack test; against a defence (Försvara sig, lines 796-799), both tests as an
    active opposition (lines 556-578), rolled again while the effects are equal."""

    attacker: str
    target: str
    weapon: str
    tests: tuple[Test, ...]
    defences: tuple[Test, ...] = ()
    hit: bool = False
    area: str | None = None
    area_roll: int | None = None
    response: bool = False  # a shot back (lines 773-778), not an active action


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class Wounded:
    """One hit applied (the flow chart, lines 818-839): the damage roll, protection,
    Trauma and Smärta, bleeding, the serious injury and its checks and losses, then the
    death and shock rolls. `source`: the attacker's id, or "" for the GM's damage."""

    id: str
    source: str
    weapon: str
    area: str
    damage_type: str
    dice: tuple[int, ...]
    rerolls: tuple[int, ...]
    rolled: int
    protection: int
    damage: int
    trauma: int
    pain: int
    bleed: int
    injury: Injury | None = None
    checks: tuple[CheckRolled, ...] = ()
    losses: tuple[LossRolled, ...] = ()
    ongoing: tuple[str, ...] = ()
    death: Test | None = None
    shock: Test | None = None
    dead: bool = False
    unconscious: bool = False


@dataclass(frozen=True)
class CoverSought:
    """Söka skydd (lines 780-794): Ob2T6 against Stridsvana, or Ob4T6 against RÖR without."""

    id: str
    test: Test


@dataclass(frozen=True)
class Fled:
    """Fly (lines 801-804): no more active actions this round."""

    id: str


@dataclass(frozen=True)
class ResponseLost:
    """A declared response that could not be made (its maker or target is down)."""

    id: str
    kind: str


@dataclass(frozen=True)
class AimLost:
    """The aimed shot's target is down or gone: the shot is not fired."""

    id: str


@dataclass(frozen=True)
class WaitBegun:
    """Invänta mål (lines 745-750): `id` waits for `target` ("" any foe) with one of its
    active actions, this round or the next."""

    id: str
    target: str = ""


@dataclass(frozen=True)
class WaitOffered:
    """The awaited `target` is about to take its turn: `id` may act just before it (line
    748-750)."""

    id: str
    target: str


@dataclass(frozen=True)
class WaitTaken:
    """`id` acts now, one active action before `target`'s turn (lines 748-750)."""

    id: str
    target: str


@dataclass(frozen=True)
class WaitKept:
    """`id` lets `target`'s turn come and goes on waiting."""

    id: str
    target: str


@dataclass(frozen=True)
class Reloaded:
    """Ladda om (lines 758-759): the whole round's active action, reloading `weapon`."""

    id: str
    weapon: str


@dataclass(frozen=True)
class SkillBegun:
    """Använda färdighet (lines 761-765): `skill` used over `rounds` rounds, this the
    first; the test (Ob`base`T6 and the modifiers) comes in the last."""

    id: str
    skill: str
    rounds: int
    base: int
    label: str = ""


@dataclass(frozen=True)
class SkillContinued:
    """Another round of the skill in use: `done` of its rounds."""

    id: str
    done: int


@dataclass(frozen=True)
class SkillRolled:
    """The skill's test, in the last round the use covers (lines 763-765)."""

    id: str
    test: Test
    label: str = ""


@quick_init  # a simulated fight makes dozens (combat_kit.quick_init)
@dataclass(frozen=True)
class TurnEnded:
    id: str


@dataclass(frozen=True)
class TimePassed:
    """Seconds pass for one combatant: its bleeding (lines 1056-1129), ongoing effects,
    and a shock roll when its blood loss rose (lines 1116-1117)."""

    id: str
    seconds: int
    activity: str
    bleeding: Bleeding
    gained: int = 0
    recovered: int = 0
    trauma: int = 0
    pain: int = 0
    shock: Test | None = None
    unconscious: bool = False


@dataclass(frozen=True)
class RoundEnded:
    round: int


@dataclass(frozen=True)
class TimeAdvanced:
    seconds: int
    activity: str


@dataclass(frozen=True)
class Treated:
    id: str
    code: str


EVENT_TYPES = {
    cls.__name__: cls
    for cls in (
        CombatantAdded,
        CombatantUpdated,
        CombatantRemoved,
        RoundStarted,
        TurnStarted,
        Declared,
        Moved,
        Acted,
        AimTaken,
        AttackDeclared,
        ResponseDeclared,
        Answered,
        AttackRolled,
        Wounded,
        CoverSought,
        Fled,
        ResponseLost,
        AimLost,
        WaitBegun,
        WaitOffered,
        WaitTaken,
        WaitKept,
        Reloaded,
        SkillBegun,
        SkillContinued,
        SkillRolled,
        TurnEnded,
        TimePassed,
        RoundEnded,
        TimeAdvanced,
        Treated,
        Woke,
        EncounterEnded,
    )
} | scene.EVENT_TYPES  # the battle map's walls, cover and picture
VALUE_TYPES = {cls.__name__: cls for cls in (Test, CheckRolled, LossRolled, Bleeding)}
# The active actions' events (lines 708-765; a Moved only as Förflytta sig): each ends the
# combatant's waiting for a target (Invänta mål, lines 745-750).
ACTION_EVENT_TYPES = (
    Acted, AimTaken, AttackDeclared, Moved, Reloaded, SkillBegun, SkillContinued
)
