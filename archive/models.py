"""An import is a job (its upload waits in `DATA_DIR/imports/` while a thread reads it),
and every member of an imported campaign but its GM is a placeholder user until the GM
hands it to an account that joined (`archive.importer`, `archive.handover`)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ImportJob(models.Model):
    """One campaign archive being imported (`archive.jobs`). The importer writes its rows
    in short transactions, and this row says how far it is (`done` of `total`, with the
    time of its last report, `beat_at`: a running job silent for `archive.jobs.STALLED`
    seconds died with its process), which campaign it is writing (hidden until it is
    done), and how it ended."""

    class Status(models.TextChoices):
        RUNNING = "running", _("Importing")
        DONE = "done", _("Imported")
        FAILED = "failed", _("Refused")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    filename = models.CharField(max_length=200)
    size = models.PositiveBigIntegerField()
    status = models.CharField(max_length=10, choices=Status, default=Status.RUNNING)
    error = models.TextField(blank=True)
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    summary = models.JSONField(default=dict, blank=True)  # what was imported, in numbers
    done = models.PositiveBigIntegerField(default=0)  # rows read so far
    total = models.PositiveBigIntegerField(default=0)  # rows in the archive, as it says
    beat_at = models.DateTimeField(null=True, blank=True)  # the last report of progress
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-pk"]

    def __str__(self):
        return f"import {self.pk} {self.filename} {self.status}"


class Placeholder(models.Model):
    """A member of an imported campaign (every one but its GM: an import attaches no
    account here, issue 42): an inactive user that cannot log in, holding the member's
    seat, characters and rolls until the GM hands them to an account that has joined the
    campaign. Its username is generated (`archive.importer.Importer.placeholder_user`);
    `name` is the member's as the archive gives it, which the pages show."""

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
