"""The one command line that serves the site: `make serve`, the tests' real server and the
serving benchmark all start granian through it, so they measure and test what runs."""

import sys
from pathlib import Path

SITE = "aoristos_site.asgi:application"


def granian_command(
    host: str,
    port: int,
    *,
    interface: str = "asginl",
    target: str = SITE,
    log_level: str = "warning",
) -> list[str]:
    """granian in this venv, one worker: the in-process broadcaster of the live table must
    reach every client, so they all live in one process."""
    granian = str(Path(sys.executable).parent / "granian")
    return [
        granian,
        "--interface",
        interface,
        "--host",
        host,
        "--port",
        str(port),
        "--workers",
        "1",
        "--log-level",
        log_level,
        target,
    ]
