"""`manage.py import_campaign FILE --gm USERNAME`: a campaign's archive made into a new
campaign that USERNAME runs, as the import page does (`archive.importer`), with its
progress. All or nothing: a refused archive changes nothing. Every member but the GM
waits as a placeholder, as on the page: an archive attaches no account (issue 42).

The import has a job row as the page's has (the GM's import page lists it): its progress
is there, so if this command is killed half-way the next import, or the job's page,
deletes what it had written (`archive.jobs.sweep`)."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from archive import format as fmt
from archive import jobs
from archive.importer import Importer
from archive.models import ImportJob


class Command(BaseCommand):
    help = "Import a campaign archive as a new campaign run by --gm."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--gm", required=True, help="the username of the new campaign's GM")

    def handle(self, *args, file, gm, **options):
        user = get_user_model().objects.filter(username=gm, is_active=True).first()
        if user is None:
            raise CommandError(f"No active account {gm!r} here: create it first.")
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"No such file: {file}")
        jobs.sweep()  # what an import killed half-way left

        def progress(done, total):
            self.stderr.write(f"\r{done:,} of {total:,} rows", ending="")

        job = ImportJob.objects.create(user=user, filename=path.name[:200],
                                       size=path.stat().st_size, beat_at=timezone.now())
        importer = None
        try:
            with fmt.Archive(path) as archive:
                importer = Importer(archive, user, job=job.pk, progress=progress)
                campaign = importer.run()
        except fmt.ArchiveError as error:
            jobs.failed(job.pk, importer, str(error)[:2000])
            raise CommandError(f"Refused, nothing was imported: {error}") from None
        except BaseException as error:
            jobs.failed(job.pk, importer, f"the import failed ({type(error).__name__}); "
                                          f"nothing was imported")
            raise
        self.stderr.write("")
        self.stdout.write(
            f"Imported {campaign.name!r} as campaign {campaign.pk}: {importer.done:,} rows, "
            f"{len(importer.placeholders)} member(s) wait as placeholders: "
            f"{', '.join(sorted(p.name for p in importer.placeholders)) or 'none'}.")
