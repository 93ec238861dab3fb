"""`make serve`: prepare the database and static files, then run granian on HOST:PORT.

The set-up (migrate, collectstatic, the demo) runs once, in this command, before granian
starts its WORKERS processes. Hosted, with several `serve` processes or machines starting
together on one database, `--no-setup` (or SERVE_SETUP=0) skips it: `manage.py migrate`
then runs once per deploy and `manage.py collectstatic` once per machine, before the
servers start, and each server only checks that both were done.
"""

import os
import sys

from django.conf import settings
from django.core.files.storage import storages
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from core.backup import daily_backup_state, start_daily_backups
from core.demo import load_demo
from core.network import lan_addresses
from core.serving import check_workers, granian_command, workers_from


class Command(BaseCommand):
    help = (
        "Migrate, collect static files, load demo data and serve the table with granian "
        "(--no-setup: only serve)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "0.0.0.0"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument(
            "--workers",
            default=os.environ.get("WORKERS", ""),
            help="granian worker processes, 1-64 (default: WORKERS, else 1); more need REDIS_URL",
        )
        parser.add_argument("--no-demo", action="store_true", help="skip the demo accounts")
        parser.add_argument(
            "--no-setup",
            action="store_true",
            help="only serve: no migrate, collectstatic or demo (also SERVE_SETUP=0); "
            "they must have been run once before",
        )

    def handle(self, *args, host, port, workers, no_demo, no_setup, **options):
        # Everything that can be refused is checked before anything is done.
        certfile, keyfile = tls_files()
        try:
            workers = workers_from(workers)
            check_workers(workers, settings.REDIS_URL)
        except ValueError as error:
            raise CommandError(str(error)) from None
        setup = setup_wanted() and not no_setup
        scheme = "https" if certfile else "http"
        out = self.stdout
        if setup:
            call_command("migrate", interactive=False, verbosity=0)
            call_command("collectstatic", interactive=False, verbosity=0)
        else:
            self.check_set_up()
        out.write(self.style.SUCCESS("Aoristos Table is starting."))
        if workers > 1:
            out.write(f"{workers} worker processes share the live table through Redis.")
        if setup and not no_demo:
            logins = load_demo(settings.DATA_DIR / "demo-logins.json")
            out.write(
                "Demo logins (demo-sl is the GM of Demokampanjen, of the T10 campaign "
                "Staden and of the Phobia campaign Skuggorna; demo-spelare plays Albert, "
                "Johan and Jace):"
            )
            for username, password in logins.items():
                out.write(f"  {username:<14} {password}")
        out.write("Open on this computer:   " + f"{scheme}://localhost:{port}/")
        if host in ("0.0.0.0", "::"):
            for addr in lan_addresses():
                out.write(
                    "Open on phones (LAN):    " + self.style.SUCCESS(f"{scheme}://{addr}:{port}/")
                )
        else:
            out.write(f"Listening on {host}:{port} only.")
        # Daily backups (core.backup): a child of its own starts its work once this
        # process has become granian, and ends when granian does.
        daily, line = daily_backup_state()
        out.write(line)
        if daily:
            start_daily_backups()
        out.write("Stop with Ctrl+C.")
        sys.stdout.flush()
        # The served site learns where it listens (settings.LISTEN_HOST): the invitation
        # link names that address, not the LAN's, when it is 127.0.0.1 alone.
        os.environ["LISTEN_HOST"] = host
        # Each server process learns how many share the machine: their simulations'
        # worker processes share its spare cores (combat.simulations.processes).
        os.environ["SERVE_WORKERS"] = str(workers)
        argv = granian_command(
            host, port, workers=workers, ssl_certfile=certfile, ssl_keyfile=keyfile
        )
        connections.close_all()  # granian's workers open their own
        os.chdir(settings.BASE_DIR)
        os.execv(argv[0], argv)

    def check_set_up(self) -> None:
        """With the set-up skipped: refuse a database that lacks migrations, or a machine
        without collected static files. A database that does not answer yet is no reason
        to refuse: the server answers 503 until it is back (core.outage)."""
        from django.db.migrations.executor import MigrationExecutor

        try:
            executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
            plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
        except DatabaseError as error:
            self.stderr.write(
                f"Could not read the database's migrations ({error}); serving anyway: "
                "pages answer 503 until the database answers."
            )
            plan = []
        if plan:
            names = [f"{migration.app_label}.{migration.name}" for migration, _ in plan]
            raise CommandError(
                f"The database lacks {len(plan)} migration(s) ({', '.join(names[:3])}"
                f"{', …' if len(names) > 3 else ''}). With --no-setup "
                "(SERVE_SETUP=0) run `manage.py migrate` once for this deploy before "
                "starting the servers."
            )
        static = storages["staticfiles"]
        manifest = getattr(static, "manifest_name", None)
        if manifest and not static.manifest_storage.exists(manifest):
            raise CommandError(
                f"No collected static files in {settings.STATIC_ROOT}. With --no-setup "
                "(SERVE_SETUP=0) run `manage.py collectstatic --noinput` on this machine "
                "before starting the server."
            )


SETUP_VALUES = {"1": True, "true": True, "yes": True, "on": True}
SETUP_VALUES |= {"0": False, "false": False, "no": False, "off": False}


def setup_wanted() -> bool:
    """SERVE_SETUP: 1 (the default) migrates, collects static files and loads the demo
    before serving; 0 only serves, as `--no-setup` does."""
    value = os.environ.get("SERVE_SETUP", "").strip()
    if not value:
        return True
    if value.lower() not in SETUP_VALUES:
        raise CommandError(
            f"SERVE_SETUP must be 1 (migrate, collect static files and load the demo, then "
            f"serve: the default) or 0 (only serve), not {value!r}."
        )
    return SETUP_VALUES[value.lower()]


def tls_files() -> tuple[str, str]:
    """SSL_CERTFILE and SSL_KEYFILE: both (serve HTTPS) or neither (plain HTTP)."""
    certfile = os.environ.get("SSL_CERTFILE", "").strip()
    keyfile = os.environ.get("SSL_KEYFILE", "").strip()
    if bool(certfile) != bool(keyfile):
        raise CommandError("Set both SSL_CERTFILE and SSL_KEYFILE to serve HTTPS, or neither.")
    for name, path in (("SSL_CERTFILE", certfile), ("SSL_KEYFILE", keyfile)):
        if path and not os.path.isfile(path):
            raise CommandError(f"{name}: no such file: {path}")
    return certfile, keyfile
