"""The values of a campaign's chronicle: its clock and each character's body.

All frozen (the fold replaces what changed, `rules.combat_kit.changed`).
"""

from dataclasses import dataclass
from datetime import datetime

from rules.aoristos.aftermath import figures as F
from rules.aoristos.combat.gear import LIMBS
from rules.combat_kit import changed

ACTIVITIES = ("rest", "active", "cared")  # what the GM says each character does
RECOVERIES = ("no_recovery", "ordinary", "best")  # how psyktrauma fades (p. 15)
DISORDER_KINDS = ("temporary", "lasting", "diagnosable")  # p. 15


@dataclass(frozen=True)
class Wound:
    """One wound as time sees it (p. 13-14). `bleed_rate` is what it bled at when dealt;
    `aid` what first aid took off before it turned into blood loss; `blood_loss` what is
    left of it after (falls by 1 per tick while the body rests)."""

    id: str
    dealt: datetime
    area: str | None
    damage: int
    bleed_rate: int
    limb_state: str | None = None  # "broken" / "destroyed" for a limb wound that did that
    source: str = ""  # what dealt it ("Bakgården", "fall")
    origin: str = ""  # the fight's record it came from ("e3v12.1"): carried over once
    aid: int = 0
    first_aid: bool = False  # it has had its one first aid (p. 13), whatever it took off
    converted: bool = False
    blood_loss: int = 0
    last_tick: datetime | None = None
    healed: bool = False  # a month old: its limb's nervchock no longer lasts (p. 14)
    burn: bool = False  # a burn (brännsår, fire or heat): care does not help it (p. 14)

    @property
    def bleeding(self) -> int:
        """What it still bleeds before turning into blood loss."""
        return 0 if self.converted else max(0, self.bleed_rate - self.aid)

    def next_tick(self):
        """When its bleeding next converts or ticks (p. 13), or None."""
        if not self.converted:
            return self.dealt + F.CONVERSION if self.bleeding else None
        return self.last_tick + F.BLEED_TICK if self.blood_loss > 0 else None

    def with_(self, **changes) -> "Wound":
        return changed(self, **changes)

    @property
    def lasting_limb_shock(self) -> bool:
        """Its degree of nervchock lasts until rested, while the wound is under a month
        old (p. 14): a broken or destroyed limb."""
        return self.limb_state in ("broken", "destroyed") and not self.healed


@dataclass(frozen=True)
class Disorder:
    """A psychic disorder the player took to vent psyktrauma (p. 15): "temporary" (1,
    taken before the next morning and the next gain, over by that morning), "lasting"
    (10) or "diagnosable" (10 more), with the player's own words and its side effects
    (a phobia's nervchock at contact, a drug's absence)."""

    id: str
    kind: str
    description: str
    at: datetime
    removed: int
    effects: str = ""
    until: datetime | None = None  # a temporary one's end (the next morning)
    cured_at: datetime | None = None

    def active(self, now: datetime) -> bool:
        if self.cured_at is not None:
            return False
        return self.until is None or now < self.until

    def with_(self, **changes) -> "Disorder":
        return changed(self, **changes)


@dataclass(frozen=True)
class Body:
    """A character's body between fights. `activity` and the healing circumstances are
    the GM's last word for it (p. 14: rest, environment, care)."""

    id: str  # "ch<character id>"
    name: str
    clock: datetime
    character_id: int | None = None  # None: the GM's, not a character (players see less)
    willpower: int = 1
    shock_tolerance: int | None = None  # Chocktolerans; None: VIL + 3 (p. 2)
    wounds: tuple[Wound, ...] = ()
    organ_trauma: int = 0
    # The part of `organ_trauma` that burns dealt (p. 14: "Vård av personen (påverkar ej
    # brännsår)"): the healing test takes the rest first, and care does not count for it.
    burn_trauma: int = 0
    limbs: tuple[tuple[str, str], ...] = tuple((limb, "ok") for limb in LIMBS)
    alive: bool = True
    conscious: bool = True
    activity: str = "rest"
    environment: str = "outdoors"
    rest: str = "thorough"
    care: str = "stone_age"
    # The lasting nervchock is away until activity brings it back. A fresh cause (a
    # wound, a rise of organtrauma to 3+) puts it in effect until rested out (p. 14).
    rested: bool = True
    rest_since: datetime | None = None  # resting since (None: active)
    next_healing: datetime | None = None  # the next healing test
    hourly: bool = False  # that test is an unstable one's (p. 14)
    next_awake_test: datetime | None = None  # 7+ organtrauma, awake
    died_at: datetime | None = None
    # p. 15: psyktrauma, the part of it that can never be vented, and the disorders taken
    psych_trauma: int = 0
    permanent_psych_trauma: int = 0
    disorders: tuple[Disorder, ...] = ()
    vent_until: datetime | None = None  # a temporary disorder may be taken until then
    recovery: str = "ordinary"  # the GM's word: none / ordinary life / the best case
    recovery_from: datetime | None = None  # the current recovery period started then
    broken: bool = False  # failed the psychosis test: out of play for good (p. 15)
    broken_at: datetime | None = None

    @property
    def npc(self) -> bool:
        """The GM's body, not a character's: players see its name and state only."""
        return self.character_id is None

    @property
    def tolerance(self) -> int:
        """Chocktolerans (p. 2: VIL + 3 unless the character's sheet says otherwise)."""
        if self.shock_tolerance is not None:
            return self.shock_tolerance
        return self.willpower + 3

    @property
    def in_play(self) -> bool:
        """Time still happens to it: neither dead nor broken by psychosis (p. 14-15)."""
        return self.alive and not self.broken

    @property
    def psychotic(self) -> bool:
        return self.psych_trauma >= F.PSYCHOSIS

    @property
    def ventable(self) -> int:
        """Psyktrauma a disorder or recovery can take away (not the permanent part)."""
        return max(0, self.psych_trauma - self.permanent_psych_trauma)

    def disorder(self, disorder_id: str) -> Disorder | None:
        return next((d for d in self.disorders if d.id == disorder_id), None)

    @property
    def blood_loss(self) -> int:
        return sum(w.blood_loss for w in self.wounds)

    @property
    def bleed_rate(self) -> int:
        """What still bleeds and has not turned into blood loss."""
        return sum(w.bleeding for w in self.wounds)

    @property
    def only_burns(self) -> bool:
        """All its organtrauma is from burns: care does not help its healing (p. 14)."""
        return self.organ_trauma > 0 and self.burn_trauma >= self.organ_trauma

    @property
    def unstable(self) -> bool:
        return self.organ_trauma >= F.UNSTABLE

    @property
    def resting(self) -> bool:
        """Bleeding falls only while resting (p. 13); the unconscious rest."""
        return self.activity != "active" or not self.conscious

    @property
    def lasting_shock_sources(self) -> tuple[str, ...]:
        """Where each lasting degree of nervchock comes from (p. 14)."""
        limbs = [w.area for w in self.wounds if w.lasting_limb_shock and w.area]
        trauma = ("organ_trauma",) if self.organ_trauma >= F.LASTING_SHOCK else ()
        return (*dict.fromkeys(limbs), *trauma)

    @property
    def lasting_nerve_shock(self) -> int:
        return len(self.lasting_shock_sources)

    @property
    def nerve_shock(self) -> int:
        """The degrees in effect now: the lasting ones come back with activity and stay
        away after rest (p. 14)."""
        return 0 if self.rested else self.lasting_nerve_shock

    def limb(self, limb: str) -> str:
        return dict(self.limbs).get(limb, "ok")

    def wound(self, wound_id: str) -> Wound | None:
        return next((w for w in self.wounds if w.id == wound_id), None)

    def with_(self, **changes) -> "Body":
        return changed(self, **changes)


@dataclass(frozen=True)
class Chronicle:
    """A campaign's time and its characters' bodies."""

    clock: datetime
    bodies: tuple[Body, ...] = ()
    rest_hours: int = 8  # house rule: the rest that makes the lasting nervchock go away

    def body(self, body_id: str) -> Body | None:
        return next((b for b in self.bodies if b.id == body_id), None)

    def with_body(self, body: Body) -> "Chronicle":
        if self.body(body.id) is None:
            return changed(self, bodies=(*self.bodies, body))
        return changed(self, bodies=tuple(body if b.id == body.id else b for b in self.bodies))

    def with_(self, **changes) -> "Chronicle":
        return changed(self, **changes)
