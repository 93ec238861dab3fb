"""The one command line that serves the site: `make serve`, the tests' real server and the
serving benchmark all start granian through it, so they measure and test what runs.

granian runs `workers` processes (WORKERS, default 1). Each is a whole server process of
its own: its own streams, page threads, database connections and stream cap
(`core.limits.max_streams()`, read in each process from the same open-file limit), and
granian's `--backpressure` counts per worker too, so the cap stays below it in every
worker. Several workers share the live table only through Redis (`campaign_log.broadcast`):
`check_workers` refuses more than one without REDIS_URL.
"""

import sys
from pathlib import Path

from core.limits import max_streams

# Requests in flight besides the streams: pages keep answering when every stream is open.
PAGE_BACKPRESSURE = 256
# A worker still busy this long after SIGTERM/SIGINT is stopped anyway (the streams end
# themselves at once: `campaign_log.stream`), so the server exits within 3 s.
KILL_TIMEOUT_SECONDS = 2

SITE = "aoristos_site.asgi:application"
MAX_WORKERS = 64


def workers_from(value: str | None) -> int:
    """WORKERS as given (the environment, `serve --workers`): a whole number from 1 to
    MAX_WORKERS; empty means 1. ValueError with a message for anything else."""
    text = (value or "").strip()
    if not text:
        return 1
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_WORKERS:
        raise ValueError(
            f"WORKERS must be a whole number from 1 to {MAX_WORKERS} "
            f"(server processes on this machine), not {value!r}."
        )
    return int(text)


def check_workers(workers: int, redis_url: str) -> None:
    """More than one worker needs Redis: without it each worker has its own in-process
    broadcaster, and a page served by one worker would never see the rolls and commands
    made on another."""
    if workers > 1 and not redis_url:
        raise ValueError(
            f"WORKERS={workers} needs REDIS_URL. Without Redis the live table's events stay "
            "in the worker process that stored them, so pages served by the other workers "
            "would miss them. Set REDIS_URL=redis://host:6379/0 (one Redis shared by every "
            "server process), or serve with WORKERS=1."
        )


def granian_command(
    host: str,
    port: int,
    *,
    workers: int = 1,
    interface: str = "asginl",
    target: str = SITE,
    log_level: str = "warning",
    ssl_certfile: str = "",
    ssl_keyfile: str = "",
) -> list[str]:
    """granian in this venv with `workers` worker processes (1 unless asked: more need
    REDIS_URL, see `check_workers`)."""
    if not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be from 1 to {MAX_WORKERS}, not {workers}")
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
        str(workers),
        "--log-level",
        log_level,
        # granian queues every request past its backpressure, /healthz included; open
        # streams count against it. Both count per worker process: the stream cap stays
        # below it in each.
        "--backpressure",
        str(max_streams() + PAGE_BACKPRESSURE),
        "--workers-kill-timeout",
        str(KILL_TIMEOUT_SECONDS),
        *tls,
        target,
    ]
