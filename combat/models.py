"""An encounter is its log: one `CombatRecord` per command, undo or redo, numbered 1, 2, 3,
... per encounter (its version) and in the campaign's event sequence (seq) with the rolls.

The state is the fold of the records' events (`rules.engine.replay`); it is never stored,
so it cannot drift from the log, and a server restart continues exactly where it was.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from core import pictures


class Encounter(models.Model):
    """A fight, or the campaign's chronicle (kind "chronicle": its clock and the bodies
    after the fights, one per campaign): a log of records run by the rule system's
    engine of that kind (`rules.engine.engine_for`)."""

    class Kind(models.TextChoices):
        COMBAT = "combat", _("Encounter")
        CHRONICLE = "chronicle", _("Chronicle")

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="encounters"
    )
    name = models.CharField(_("Name"), max_length=100)
    system = models.CharField(max_length=20)  # the campaign's rule system when created
    kind = models.CharField(max_length=10, choices=Kind, default=Kind.COMBAT)
    house_rules = models.JSONField(default=dict)
    version = models.PositiveIntegerField(default=0)  # records in the log
    ended = models.BooleanField(default=False)
    # Combatant id -> the user who commands it (a character's owner); the GM commands all.
    controllers = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign"],
                condition=models.Q(kind="chronicle"),
                name="one_chronicle_per_campaign",
            ),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        from django.urls import reverse

        if self.kind == self.Kind.CHRONICLE:
            return reverse("combat:chronicle", args=[self.campaign_id])
        return reverse("combat:page", args=[self.pk])

    def controls(self, user_id: int) -> frozenset[str]:
        return frozenset(cid for cid, owner in self.controllers.items() if owner == user_id)


class CombatRecord(models.Model):
    """One entry of an encounter's log: a command's events (every die in them), or an
    undo back to a version, or a redo; with its log lines for the GM and for players."""

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="combat_records"
    )
    seq = models.PositiveBigIntegerField()
    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="records")
    version = models.PositiveIntegerField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    actor_name = models.CharField(max_length=150, blank=True)
    command = models.CharField(max_length=30)
    events = models.JSONField(default=list)
    undo_to = models.PositiveIntegerField(null=True, blank=True)
    redo = models.BooleanField(default=False)
    lines = models.JSONField(default=list)  # as the GM reads them
    public_lines = models.JSONField(default=list)  # as players read them
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["version"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "seq"], name="one_combat_record_per_seq"),
            models.UniqueConstraint(
                fields=["encounter", "version"], name="one_combat_record_per_version"
            ),
        ]

    def __str__(self):
        return f"#{self.seq} {self.encounter_id} v{self.version} {self.command}"


class NpcTemplate(models.Model):
    """A campaign's saved NPC stat block, copied into encounters."""

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="npc_templates"
    )
    name = models.CharField(_("Name"), max_length=100)
    block = models.JSONField(default=dict)  # an add_combatant command's fields
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self):
        return self.name


class CatalogueItem(models.Model):
    """A weapon or armour the GM added to the campaign's catalogue (or a changed copy of a
    starter entry: the same key replaces it in this campaign)."""

    class Kind(models.TextChoices):
        WEAPON = "weapon", _("Weapon")
        ARMOUR = "armour", _("Armour or shield")

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="catalogue_items"
    )
    kind = models.CharField(max_length=10, choices=Kind)
    key = models.SlugField(max_length=40)
    data = models.JSONField(default=dict)

    class Meta:
        ordering = ["kind", "key"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "kind", "key"], name="one_catalogue_item_per_key"
            ),
        ]

    def __str__(self):
        return f"{self.kind} {self.key}"


class MapPicture(models.Model):
    """A picture the GM put under an encounter's battle map (issue 27): PNG, JPEG or WebP
    of at most `MAX_BYTES`, checked as an image when uploaded. Kept in the database with
    the encounter (so every process and machine serves it, and it leaves with the
    campaign's data); the scene names it by its pk (`rules.scene.Picture.key`). Never
    changed once stored: a new picture is a new row."""

    MAX_BYTES = pictures.MAX_BYTES
    TYPES = pictures.TYPES

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="pictures")
    content = models.BinaryField()
    content_type = models.CharField(max_length=20)
    width_px = models.PositiveIntegerField()
    height_px = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.encounter_id}/{self.pk} {self.content_type} {self.width_px}×{self.height_px}"


class Simulation(models.Model):
    """A run of simulated fights of an encounter (issue 29, `combat.simulations`): from
    the state of `version`, played off the request thread until its chances are known to
    ± `precision` points (issue 46), each part at most `fights` fights. The row is the
    job: its status and progress (`done` fights of at most `total`, the award's runs
    included), what the GM asked for, the running estimate while it plays and the result
    once it is counted. Any process reads the
    progress; a cancel is this row's status, which the job sees at its next progress.
    The row is the queue too: a running row that no process has claimed (`claimed_by`
    empty) waits, and whichever server process is free claims it and plays it."""

    class Status(models.TextChoices):
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        CANCELLED = "cancelled", _("Cancelled")
        FAILED = "failed", _("Failed")
        INTERRUPTED = "interrupted", _("Interrupted")  # a worker process stopped in it

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="simulations")
    version = models.PositiveIntegerField()  # the encounter's version it was played from
    fights = models.PositiveIntegerField()  # the most fights of one part (its cap)
    precision = models.FloatField(default=5.0)  # ± percentage points at 95 % asked for
    seed = models.BigIntegerField()
    flees = models.JSONField(default=list)  # combatant ids that flee when wounded
    status = models.CharField(max_length=12, choices=Status, default=Status.RUNNING)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField()
    result = models.JSONField(null=True, blank=True)
    estimate = models.JSONField(null=True, blank=True)  # the running estimate while it plays
    error = models.CharField(max_length=200, blank=True)
    shared = models.BooleanField(default=False)  # the players see it too
    claimed_by = models.CharField(max_length=80, blank=True, default="")  # "host:pid" playing it
    claimed_at = models.DateTimeField(null=True, blank=True)  # when (the queue's turns)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-pk"]
        indexes = [  # the queue: the running rows alone (every process asks it each second)
            models.Index(fields=["claimed_by", "created_by"], name="simulation_queue",
                         condition=models.Q(status="running")),
        ]

    def __str__(self):
        return f"{self.encounter_id} v{self.version} {self.status} {self.done}/{self.total}"
