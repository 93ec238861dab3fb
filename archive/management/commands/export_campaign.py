"""`manage.py export_campaign ID FILE`: the GM's archive of a campaign, as the campaign
page downloads it (`archive.export`), written as it is read, with its progress."""

import sys

from django.core.management.base import BaseCommand, CommandError

from archive.export import campaign_archive
from campaigns.models import Campaign


class Command(BaseCommand):
    help = "Write a campaign's archive (the GM's whole one) to FILE ('-': standard output)."

    def add_arguments(self, parser):
        parser.add_argument("campaign", type=int, help="the campaign's id")
        parser.add_argument("file")

    def handle(self, *args, campaign, file, **options):
        found = Campaign.objects.filter(pk=campaign).select_related("gm").first()
        if found is None:
            raise CommandError(f"No campaign {campaign}.")
        membership = found.memberships.select_related("user").get(user=found.gm)
        out = sys.stdout.buffer if file == "-" else open(file, "wb")  # noqa: SIM115
        written = 0
        try:
            for chunk in campaign_archive(found, membership):
                out.write(chunk)
                written += len(chunk)
                self.stderr.write(f"\r{written / 1e6:8.1f} MB", ending="")
        finally:
            if out is not sys.stdout.buffer:
                out.close()
        self.stderr.write("")
        if file != "-":
            self.stdout.write(f"Wrote {file}: {written:,} bytes.")
