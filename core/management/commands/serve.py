"""`make serve`: prepare the database and static files, then run granian on HOST:PORT."""

import os
import shutil
import socket
import subprocess
import sys

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from core.demo import load_demo


def lan_addresses() -> list[str]:
    """IPv4 addresses other devices on the LAN can reach, without sending any packet."""
    found = []
    if shutil.which("ip"):
        out = subprocess.run(
            ["ip", "-o", "-4", "addr", "show", "up"], capture_output=True, text=True, check=False
        ).stdout
        found = [line.split()[3].split("/")[0] for line in out.splitlines() if " inet " in line]
    else:
        try:
            found = socket.gethostbyname_ex(socket.gethostname())[2]
        except OSError:
            found = []
    return [addr for addr in dict.fromkeys(found) if not addr.startswith("127.")]


class Command(BaseCommand):
    help = "Migrate, collect static files, load demo data and serve the table with granian."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "0.0.0.0"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--no-demo", action="store_true", help="skip the demo accounts")

    def handle(self, *args, host, port, no_demo, **options):
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        out = self.stdout
        out.write(self.style.SUCCESS("Aoristos Table is starting."))
        if not no_demo:
            logins = load_demo(settings.DATA_DIR / "demo-logins.json")
            out.write("Demo logins (the GM is demo-sl; Albert belongs to demo-spelare):")
            for username, password in logins.items():
                out.write(f"  {username:<14} {password}")
        out.write("Open on this computer:   " + f"http://localhost:{port}/")
        if host in ("0.0.0.0", "::"):
            for addr in lan_addresses():
                out.write(
                    "Open on phones (LAN):    " + self.style.SUCCESS(f"http://{addr}:{port}/")
                )
        else:
            out.write(f"Listening on {host}:{port} only.")
        out.write("Stop with Ctrl+C.")
        sys.stdout.flush()
        granian = os.path.join(os.path.dirname(sys.executable), "granian")
        # One process: the live table's in-process broadcaster needs every client in it.
        argv = [
            granian,
            "--interface",
            "asginl",
            "--host",
            host,
            "--port",
            str(port),
            "--workers",
            "1",
            "--log-level",
            "warning",
            "aoristos_site.asgi:application",
        ]
        os.chdir(settings.BASE_DIR)
        os.execv(granian, argv)
