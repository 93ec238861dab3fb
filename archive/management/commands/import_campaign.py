"""`manage.py import_campaign FILE --gm USERNAME`: a campaign's archive made into a new
campaign that USERNAME runs, as the import page does (`archive.importer`), with its
progress. All or nothing: a refused archive changes nothing."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from archive import format as fmt
from archive.importer import Importer


class Command(BaseCommand):
    help = "Import a campaign archive as a new campaign run by --gm."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--gm", required=True, help="the username of the new campaign's GM")
        parser.add_argument("--no-match", action="store_true",
                            help="leave every member as a placeholder, even where an account "
                                 "of that username exists here")

    def handle(self, *args, file, gm, no_match, **options):
        user = get_user_model().objects.filter(username=gm, is_active=True).first()
        if user is None:
            raise CommandError(f"No active account {gm!r} here: create it first.")

        def progress(done, total):
            self.stderr.write(f"\r{done:,} of {total:,} rows", ending="")

        try:
            with fmt.Archive(file) as archive:
                importer = Importer(archive, user, match_usernames=not no_match,
                                    progress=progress)
                campaign = importer.run()
        except fmt.ArchiveError as error:
            raise CommandError(f"Refused, nothing was imported: {error}") from None
        except FileNotFoundError:
            raise CommandError(f"No such file: {file}") from None
        self.stderr.write("")
        self.stdout.write(
            f"Imported {campaign.name!r} as campaign {campaign.pk}: {importer.done:,} rows, "
            f"{len(importer.placeholders)} placeholder(s) for members without an account here.")
