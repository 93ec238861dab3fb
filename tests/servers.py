"""Start the real server (granian, as `make serve` runs it) on the test database."""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import connection

from core.serving import granian_command

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_env() -> dict[str, str]:
    """Point a server process at the database the tests use."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return {"SQLITE_PATH": str(db["NAME"])}
    url = f"postgresql://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or 'localhost'}"
    return {"DATABASE_URL": f"{url}:{db['PORT'] or 5432}/{db['NAME']}"}


@dataclass
class SiteServer:
    url: str
    process: subprocess.Popen
    log: Path

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_site_server(workdir: Path) -> SiteServer:
    port = free_port()
    # The same secret key, so sessions made by the tests are valid on the server.
    env = dict(
        os.environ,
        DATA_DIR=str(workdir),
        STATIC_ROOT=str(workdir / "static"),
        SECRET_KEY=settings.SECRET_KEY,
        **database_env(),
    )
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    # As `make serve` does: hashed, compressed static files for whitenoise.
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    log = workdir / "server.log"
    process = subprocess.Popen(
        granian_command("127.0.0.1", port),
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text()}")
        try:
            urllib.request.urlopen(f"{url}/healthz", timeout=1).read()
            return SiteServer(url, process, log)
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"the server did not answer in 30 s: {log.read_text()}")
