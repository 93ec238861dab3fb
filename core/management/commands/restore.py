"""`manage.py restore FILE [--force]`: bring a backup of `manage.py backup` back
(core.backup.restore_backup)."""

from django.core.management.base import BaseCommand, CommandError

from core import backup


class Command(BaseCommand):
    # Django's checks open the database: a damaged one would stop the command that
    # is to save or replace it before it runs.
    requires_system_checks = []
    help = (
        "Replace the site's database with a backup (checked first). A database with user "
        "accounts is only replaced with --force, after a backup of it is taken. Stop the "
        "server first."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="a backup: .sqlite3 (SQLite) or .pgdump (PostgreSQL)")
        parser.add_argument(
            "--force",
            action="store_true",
            help="replace a database that holds data (a backup of it is taken first)",
        )

    def handle(self, *args, file, force, **options):
        try:
            restored = backup.restore_backup(file, force=force)
        except backup.BackupError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(self.style.SUCCESS(f"Restored {file} into {restored.database}."))
        if restored.safety:
            self.stdout.write(
                f"The database it replaced is kept in {restored.safety} "
                f"(`manage.py restore {restored.safety} --force` brings it back)."
            )
        try:
            pending = backup.pending_migrations()
        except Exception as error:  # noqa: BLE001 (the restore is done; say what is unknown)
            self.stdout.write(f"Could not read its migrations ({error}).")
            pending = []
        if pending:
            self.stdout.write(
                f"The backup is older than this version: it lacks {len(pending)} "
                f"migration(s) ({', '.join(pending[:3])}{', …' if len(pending) > 3 else ''}). "
                "`make serve` applies them when it starts (or run `manage.py migrate`)."
            )
        self.stdout.write("Start the server again: make serve.")
