"""The one command line that serves the site: `make serve`, the tests' real server and the
serving benchmark all start granian through it, so they measure and test what runs."""

import sys
from pathlib import Path

from core.limits import max_streams

# Requests in flight besides the streams: pages keep answering when every stream is open.
PAGE_BACKPRESSURE = 256
# A worker still busy this long after SIGTERM/SIGINT is stopped anyway (the streams end
# themselves at once: `table.stream`), so the server exits within 3 s.
KILL_TIMEOUT_SECONDS = 2

SITE = "aoristos_site.asgi:application"


def granian_command(
    host: str,
    port: int,
    *,
    interface: str = "asginl",
    target: str = SITE,
    log_level: str = "warning",
    ssl_certfile: str = "",
    ssl_keyfile: str = "",
) -> list[str]:
    """granian in this venv, one worker: the in-process broadcaster of the live table must
    reach every client, so they all live in one process."""
    granian = str(Path(sys.executable).parent / "granian")
    # HTTPS when given a certificate and its key (PKCS#8, as mkcert writes it).
    tls = ["--ssl-certificate", ssl_certfile, "--ssl-keyfile", ssl_keyfile] if ssl_certfile else []
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
        # granian queues every request past its backpressure, /healthz included; open
        # streams count against it. The stream cap stays below it.
        "--backpressure",
        str(max_streams() + PAGE_BACKPRESSURE),
        "--workers-kill-timeout",
        str(KILL_TIMEOUT_SECONDS),
        *tls,
        target,
    ]
