"""`manage.py backup`: a consistent copy of the site's database while the server runs
(core.backup), by hand, daily (`--daily`), or beside `make serve` (`--watch-parent`)."""

from django.core.management.base import BaseCommand, CommandError

from core import backup


class Command(BaseCommand):
    # Django's checks open the database: a damaged one would stop the command that
    # is to save or replace it before it runs.
    requires_system_checks = []
    help = (
        "Back up the site's database into DATA_DIR/backups/ (SQLite's online backup, or "
        "pg_dump with DATABASE_URL); the server may run meanwhile."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", metavar="PATH", help="write the backup to PATH instead")
        parser.add_argument(
            "--daily",
            action="store_true",
            help="a daily backup: named as one, and the old daily backups are rotated "
            "(e.g. from cron, once a day)",
        )
        parser.add_argument(
            "--watch-parent",
            type=int,
            metavar="PID",
            help="with --daily: run beside the server PID, taking the daily backup when it "
            "is due, until that process is gone (`make serve` starts this)",
        )
        parser.add_argument(
            "--interval",
            type=float,
            default=backup.WAKE_SECONDS,
            metavar="SECONDS",
            help=f"with --watch-parent: how often to see whether a backup is due "
            f"(default {backup.WAKE_SECONDS:.0f})",
        )

    def handle(self, *args, output, daily, watch_parent, interval, **options):
        if watch_parent is not None:
            if not daily or output:
                raise CommandError("--watch-parent goes with --daily, without --output.")
            backup.watch_and_back_up(
                watch_parent,
                wake_seconds=interval,
                poll_seconds=min(backup.PARENT_POLL_SECONDS, interval),
                say=self.say,
            )
            return
        try:
            if daily:
                if output:
                    raise CommandError("--daily backups go into DATA_DIR/backups: no --output.")
                path = backup.daily_backup(say=self.say)
            else:
                path = backup.take_backup(output=output)
        except backup.BackupError as error:
            raise CommandError(str(error)) from None
        if not daily:
            size = backup.describe_size(path.stat().st_size)
            self.stdout.write(self.style.SUCCESS(f"Backed up the database to {path} ({size})."))
        self.stdout.write(
            f"Restore it with: manage.py restore {path}\n"
            "It sits on the same disk as the database: copy it elsewhere too, with "
            "DATA_DIR's secret_key (without it every session ends)."
        )

    def say(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()
