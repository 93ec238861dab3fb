"""An import is a job (its upload waits in `DATA_DIR/imports/` while a thread reads it),
and a member of an imported campaign that matched no account is a placeholder user
until the GM hands it to one (`archive.importer`, `archive.handover`)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ImportJob(models.Model):
    """One campaign archive being imported. Its progress lives in the cache while it runs
    (`archive.jobs`): the import is one transaction, which the job's own row cannot show
    from inside. The row says how it ended."""

    class Status(models.TextChoices):
        RUNNING = "running", _("Importing")
        DONE = "done", _("Imported")
        FAILED = "failed", _("Refused")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    filename = models.CharField(max_length=200)
    size = models.PositiveBigIntegerField()
    match_usernames = models.BooleanField(default=True)
    status = models.CharField(max_length=10, choices=Status, default=Status.RUNNING)
    error = models.TextField(blank=True)
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    summary = models.JSONField(default=dict, blank=True)  # what was imported, in numbers
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-pk"]

    def __str__(self):
        return f"import {self.pk} {self.filename} {self.status}"


class Placeholder(models.Model):
    """A member of an imported campaign whose username matched no account here: an
    inactive user that cannot log in, holding the member's seat, characters and rolls
    until the GM hands them to an account that has joined the campaign."""

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="placeholders"
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="placeholder"
    )
    name = models.CharField(max_length=150)  # the username in the archive
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self):
        return f"{self.name} (placeholder in {self.campaign_id})"
