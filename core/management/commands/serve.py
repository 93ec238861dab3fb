"""`make serve`: prepare the database and static files, then run granian on HOST:PORT."""

import os
import sys

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from core.demo import load_demo
from core.network import lan_addresses
from core.serving import granian_command


class Command(BaseCommand):
    help = "Migrate, collect static files, load demo data and serve the table with granian."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "0.0.0.0"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--no-demo", action="store_true", help="skip the demo accounts")

    def handle(self, *args, host, port, no_demo, **options):
        certfile, keyfile = tls_files()
        scheme = "https" if certfile else "http"
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        out = self.stdout
        out.write(self.style.SUCCESS("Aoristos Table is starting."))
        if not no_demo:
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
        out.write("Stop with Ctrl+C.")
        sys.stdout.flush()
        # The served site learns where it listens (settings.LISTEN_HOST): the invitation
        # link names that address, not the LAN's, when it is 127.0.0.1 alone.
        os.environ["LISTEN_HOST"] = host
        argv = granian_command(host, port, ssl_certfile=certfile, ssl_keyfile=keyfile)
        os.chdir(settings.BASE_DIR)
        os.execv(argv[0], argv)


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
