import functools
import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from rules import SYSTEMS, RulesError, get_system
from rules.aoristos import character as rules
from rules.engine import KINDS, engine_for

# Join codes are read aloud and typed on phones: no 0/O, 1/I/L.
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 6


def new_join_code() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def new_invite_token() -> str:
    return secrets.token_urlsafe(24)


class RuleSystem(models.TextChoices):
    AORISTOS = "aoristos", "Aoristos"
    PHOBIA = "phobia", "Phobia"
    T10 = "t10", "T10"


# Systems a campaign can be created with: those the rules core has (rules.SYSTEMS).
AVAILABLE_SYSTEMS = tuple(system for system in RuleSystem if system.value in SYSTEMS)


@functools.cache
def engine_kinds(system: str) -> frozenset[str]:
    """The engine kinds rule system `system` has, looked up once per process: a module that
    does not exist is searched for again on every import attempt."""
    kinds = set()
    for kind in KINDS:
        try:
            engine_for(system, kind)
        except RulesError:
            continue
        kinds.add(kind)
    return frozenset(kinds)


class Campaign(models.Model):
    name = models.CharField(_("Name"), max_length=100)
    rule_system = models.CharField(
        _("Rule system"), max_length=20, choices=RuleSystem, default=RuleSystem.AORISTOS
    )
    starting_dp = models.PositiveSmallIntegerField(
        _("Starting UP"),
        default=rules.DEFAULT_DP_BUDGET,
        validators=[MinValueValidator(0), MaxValueValidator(rules.MAX_DP_BUDGET)],
    )
    level_cap = models.PositiveSmallIntegerField(
        _("Level cap"),
        default=rules.DEFAULT_LEVEL_CAP,
        validators=[MinValueValidator(0), MaxValueValidator(rules.MAX_LEVEL)],
    )
    gm = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="campaigns_run"
    )

    class DiceSource(models.TextChoices):
        """Who rolls the table's dice (issue 48): the server, or each of the table's own
        physical dice, typed in on the tray's keypad (rules/entered.py)."""

        SERVER = "server", _("The server rolls every die")
        PLAYERS = "players", _("The players roll their own dice; the server rolls the GM's")
        GM = "gm", _("The GM rolls their own dice; the server rolls the players'")
        ALL = "all", _("Everyone rolls their own dice")

    dice_source = models.CharField(
        _("Who rolls the dice"), max_length=10, choices=DiceSource,
        default=DiceSource.SERVER,
        help_text=_("Own dice are typed in on the tray's keypad: the site computes the "
                    "result with the same rules and marks the roll as typed in, by whom. "
                    "Anyone may still let the server roll one (a secret roll of the GM's, "
                    "a player without dice)."),
    )
    # The GM's values for the rule system's house rules (rules.system.HouseRule), by key;
    # a rule not stored here has its default.
    house_rules = models.JSONField(default=dict, blank=True)
    gm_notes = models.TextField(_("GM notes"), blank=True)
    join_code = models.CharField(max_length=JOIN_CODE_LENGTH, unique=True, default=new_join_code)
    invite_token = models.CharField(max_length=64, unique=True, default=new_invite_token)
    # The last sequence number given to a live-table event; events count 1, 2, 3, ...
    event_seq = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = _("campaign")
        verbose_name_plural = _("campaigns")

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("campaigns:detail", args=[self.pk])

    def rolls_own_dice(self, membership) -> bool:
        """Whether `membership`'s tray takes their own dice by default (issue 48)."""
        if membership is None:
            return False
        return self.own_dice_of(gm=membership.is_gm)

    def own_dice_of(self, *, gm: bool) -> bool:
        """Whether the GM's (`gm`) or a player's dice are their own at this table."""
        source = self.dice_source
        if gm:
            return source in (self.DiceSource.GM, self.DiceSource.ALL)
        return source in (self.DiceSource.PLAYERS, self.DiceSource.ALL)

    @property
    def system(self):
        """The campaign's rule system (rules.system.RuleSystem)."""
        return get_system(self.rule_system)

    @property
    def engine_kinds(self) -> frozenset[str]:
        """The engines the campaign's system has so far ("combat", "chronicle")."""
        return engine_kinds(self.rule_system)

    def house(self) -> dict:
        """Every house rule of the campaign's system: the GM's value or the default."""
        return self.system.house(self.house_rules)


class Membership(models.Model):
    class Role(models.TextChoices):
        GM = "gm", _("GM")
        PLAYER = "player", _("Player")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role, default=Role.PLAYER)
    # Seat order clockwise from the GM (seat 0); combat breaks initiative ties with it.
    seat = models.PositiveSmallIntegerField(default=0)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seat", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_user"),
        ]

    def __str__(self):
        return f"{self.user} in {self.campaign} ({self.role})"

    @property
    def is_gm(self) -> bool:
        return self.role == self.Role.GM


class JournalEntry(models.Model):
    """A session journal entry; the body is Markdown, rendered safely."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="journal")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    title = models.CharField(_("Title"), max_length=200)
    body = models.TextField(_("Text"), blank=True)
    pinned = models.BooleanField(_("Pinned recap"), default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("journal entry")
        verbose_name_plural = _("journal entries")

    def __str__(self):
        return self.title


class BringRequest(models.Model):
    """A player's request to bring a character the campaign's rules refuse (levels above
    the campaign's level cap, more UP than its starting UP). The GM accepts it with a note,
    which the GM and the player see on the campaign page, or declines it."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for the GM")
        ACCEPTED = "accepted", _("Accepted")
        DECLINED = "declined", _("Declined")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="bring_requests")
    character = models.ForeignKey(
        "characters.Character", on_delete=models.CASCADE, related_name="bring_requests"
    )
    status = models.CharField(max_length=10, choices=Status, default=Status.PENDING)
    note = models.TextField(_("Note"), blank=True)  # the GM's; required to accept
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        verbose_name = _("request to bring a character")
        verbose_name_plural = _("requests to bring characters")
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "character"],
                condition=models.Q(status="pending"),
                name="one_pending_bring_request",
            ),
        ]

    def __str__(self):
        return f"{self.character} to {self.campaign} ({self.status})"


SCREEN_CODE_LENGTH = 8  # 31^8 codes: guessed only behind the throttle (core.throttle)
SCREENS_PER_CAMPAIGN = 4


def new_screen_code() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(SCREEN_CODE_LENGTH))


class TableScreen(models.Model):
    """A table screen of a campaign (issue 47): a TV or a laptop in the middle of the
    table, opened by its link (`token`) or its short code with no account. It is an
    audience of its own, read-only: it gets what every player may see, never more
    (`campaign_log.audiences`; its live stream is `campaign_log.stream`'s, as a player's).
    The GM chooses what it shows (`mode`) and ends it by removing it: its link and code
    stop at once and an open screen is closed (a notice in the log says so)."""

    class Mode(models.TextChoices):
        ROLLS = "rolls", _("The latest rolls")
        FIGHT = "fight", _("The fight: who acts now, who is next, and the latest rolls")
        MAP = "map", _("The battle map, full screen, with who acts now")
        HANDOUT = "handout", _("The handout shown last")
        BLACKOUT = "blackout", _("Blackout")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="screens")
    name = models.CharField(_("name"), max_length=40)
    code = models.CharField(max_length=SCREEN_CODE_LENGTH, unique=True, default=new_screen_code)
    token = models.CharField(max_length=40, unique=True, default=new_invite_token)
    mode = models.CharField(max_length=10, choices=Mode, default=Mode.ROLLS)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]

    def __str__(self):
        return f"{self.campaign_id}: {self.name} ({self.mode})"

    def get_absolute_url(self):
        return reverse("table:screen", args=[self.token])
