from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from rules.aoristos import dice, success


class RollEvent(models.Model):
    """A roll at the live table, numbered per campaign so every page can tell if it missed one.

    Every die is rolled on the server. A secret roll is the GM's alone: the others learn
    only that it happened.

    ``seq`` is given by the INSERT itself (``table.services.roll_record``): the campaign's
    ``event_seq`` + 1, and a trigger (migration 0002) moves ``event_seq`` up to it. A
    migration that rebuilds this table on SQLite drops that trigger: create it again
    (``create_seq_trigger`` in table/migrations/0009_seq_trigger_only_moves_up.py).
    """

    class Kind(models.TextChoices):
        HAND = "hand", _("Dice hand")
        TEST = "test", _("Success test")

    # A roll of the table's own physical dice, typed in by its actor (issue 48); None: the
    # server rolled it. Nullable with no default, so SQLite adds the column without
    # rebuilding the table (which would drop the seq trigger).
    typed_in = models.BooleanField(null=True, blank=True)

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="roll_events"
    )
    seq = models.PositiveBigIntegerField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    character = models.ForeignKey(
        "characters.Character",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    kind = models.CharField(max_length=10, choices=Kind)
    label = models.CharField(max_length=200, blank=True)  # what was tested, e.g. "SIN + Vildmark"
    hand = models.CharField(max_length=20)
    dice = models.JSONField()
    counted = models.JSONField()
    result = models.IntegerField()
    test_base = models.IntegerField(null=True, blank=True)
    threshold = models.IntegerField(null=True, blank=True)
    secret = models.BooleanField(default=False)
    # A test of a system other than Aoristos: what its rules keep of it (rules.system:
    # ``stored``, read back with ``result_of``), with "system" naming it. NULL for
    # Aoristos's hands and tests, which the columns above hold; an Aoristos opposed test
    # (p. 5) keeps its sides here, ``{"sides": {"a": ..., "b": ...}}`` with no "system"
    # (the columns hold the side that rolled: ``table.services.opposed_test_record``).
    detail = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The key of the tray form that rolled it (core.db.idempotency): a retried POST gets
    # this roll back instead of another. NULL (no key) is outside the constraint.
    idempotency_key = models.CharField(  # noqa: DJ001
        max_length=64, null=True, blank=True, editable=False
    )

    class Meta:
        ordering = ["-seq"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "seq"], name="one_event_per_seq"),
            models.UniqueConstraint(
                fields=["actor", "idempotency_key"],
                condition=models.Q(idempotency_key__isnull=False),
                name="one_roll_per_idempotency_key",
            ),
        ]

    def __str__(self):
        return f"#{self.seq} {self.hand} = {self.result}"

    def outcome(self) -> success.TestOutcome | None:
        """The Aoristos success test this roll was (p. 5), or None for a bare dice hand or
        another system's test (``table.services.system_fields`` reads those)."""
        if self.threshold is None or self.detail is not None:
            return None
        rolled = dice.Roll(
            dice.parse_hand(self.hand), tuple(self.dice), tuple(self.counted), self.result
        )
        return success.resolve_test(self.test_base, self.threshold, rolled)

    @property
    def total(self) -> int | None:
        outcome = self.outcome()
        return outcome.total if outcome else None

    @property
    def success(self) -> bool | None:
        outcome = self.outcome()
        return outcome.success if outcome else None


class MembershipEvent(models.Model):
    """A player joined or left the table, numbered in the same sequence as the rolls.

    Open streams read it in order with everything else: the stream of the membership that
    was removed ends at this event and gets nothing after it (`campaign_log.stream`).
    """

    class Kind(models.TextChoices):
        JOINED = "joined", _("Joined")
        REMOVED = "removed", _("Removed")

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="membership_events"
    )
    seq = models.PositiveBigIntegerField()
    kind = models.CharField(max_length=10, choices=Kind)
    # The membership's own id: a player removed and then invited back has a new one, so an
    # old removal never ends their new stream.
    membership_id = models.BigIntegerField()
    username = models.CharField(max_length=150)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-seq"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "seq"], name="one_member_event_per_seq"),
        ]

    def __str__(self):
        return f"#{self.seq} {self.username} {self.kind}"


class NoticeEvent(models.Model):
    """Something that happened in the campaign away from the dice, told at the table in the
    same numbered sequence as the rolls: a UP award, a journal post, a pinned recap.

    ``data`` holds what the log line shows, as it was when it happened (names, the amount,
    the title), so the line still reads right after a character is renamed or an entry is
    deleted.
    """

    class Kind(models.TextChoices):
        AWARD = "award", _("UP award")
        JOURNAL = "journal", _("Journal post")
        RECAP = "recap", _("Pinned recap")
        CREATION = "creation", _("Rolled for a new character")
        SITUATION = "situation", _("A situation is over")
        SCREEN = "screen", _("The table screen changed")  # what it shows, or it ended
        HANDOUT = "handout", _("A handout")  # given by the GM (table/handouts.py)
        AGAIN = "again", _("The GM asks for a roll again")  # one typed in (issue 48)

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="notice_events"
    )
    seq = models.PositiveBigIntegerField()
    kind = models.CharField(max_length=10, choices=Kind)
    actor = models.CharField(max_length=150, blank=True)  # the username, as it was then
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-seq"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "seq"], name="one_notice_event_per_seq"),
        ]

    def __str__(self):
        return f"#{self.seq} {self.kind}"


class FavouriteTest(models.Model):
    """A success test a player keeps on a character's sheet to roll again with one tap:
    the properties of the TB, extra F and T dice and an own ST (empty: the GST, p. 5).

    Changed by the character's owner and the GM of its campaign (``table.sheet``); the
    levels are read when it is rolled, so a favourite follows the character's growth.
    """

    MAX_PER_CHARACTER = 24

    character = models.ForeignKey(
        "characters.Character", on_delete=models.CASCADE, related_name="favourite_tests"
    )
    name = models.CharField(max_length=40)
    properties = models.JSONField()  # property keys, in the order they were chosen
    free = models.PositiveSmallIntegerField(default=0)
    forced = models.PositiveSmallIntegerField(default=0)
    threshold = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["character", "name"], name="one_favourite_test_per_name"
            ),
        ]

    def __str__(self):
        return f"{self.character_id}: {self.name}"

    @property
    def label(self) -> str:
        """How the test is named at the table: "SIN + Vildmark"."""
        from characters.terms import test_label

        return test_label(self.properties)

    def query(self) -> str:
        """The test as the sheet's query string: a link to it works without JavaScript."""
        from urllib.parse import urlencode

        data = [("properties", key) for key in self.properties]
        data += [("free", self.free), ("forced", self.forced)]
        data.append(("threshold", "" if self.threshold is None else self.threshold))
        return urlencode(data)


class Handout(models.Model):
    """A picture or a text the GM gives at the table (issue 47, table/handouts.py): to one
    player (`recipient`), or to every player (`recipient` empty), and perhaps shown on
    the campaign's table screens too (`on_screen`: the whole table sees it). Players keep
    theirs in the campaign; the picture is checked as a map picture is (PNG, JPEG or
    WebP, at most 5 MB and 16 megapixels) and kept in the row, so it leaves with the
    campaign's archive."""

    MAX_TEXT = 4000

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="handouts"
    )
    recipient = models.ForeignKey(
        "campaigns.Membership", on_delete=models.CASCADE, null=True, blank=True,
        related_name="handouts",
    )
    on_screen = models.BooleanField(default=False)
    title = models.CharField(_("Title"), max_length=100)
    text = models.TextField(_("Text"), blank=True, max_length=MAX_TEXT)
    picture = models.BinaryField(null=True, blank=True)
    content_type = models.CharField(max_length=20, blank=True)
    width_px = models.PositiveIntegerField(null=True, blank=True)
    height_px = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-pk"]

    def __str__(self):
        return f"{self.campaign_id}/{self.pk} {self.title}"

    @property
    def has_picture(self) -> bool:
        return bool(self.content_type)

    def for_member(self, membership) -> bool:
        """Whether `membership` may read it: the GM, its player, or any member of the
        campaign when it is every player's."""
        if membership.campaign_id != self.campaign_id:
            return False
        return membership.is_gm or self.recipient_id in (None, membership.pk)
