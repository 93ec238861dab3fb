"""Serving-stack benchmark: `make bench`.

Starts granian on loopback in three ways and loads each with wrk (Debian package `wrk`):

- baseline: granian `--interface wsgi` straight into Django (pages only, no streams)
- router:   granian `--interface asginl` with aoristos_site.asgi:application, the stack
            `make serve` runs (pages through WSGI in a thread pool, streams on the loop)
- django-asgi: granian `--interface asginl` with Django's own ASGI handler for everything

Each is measured on a tiny view (/healthz) and a real page (the login form: template,
session, CSRF). Runs alternate between stacks and repeat; the report gives median
requests/s and the ratio to the baseline measured in the same run, since this machine is
noisy. Traffic stays on 127.0.0.1 and every run is bounded in time.
"""

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.serving import granian_command  # noqa: E402

STACKS = {
    "baseline (granian wsgi)": ("wsgi", "aoristos_site.wsgi:application"),
    "router (make serve)": ("asginl", "aoristos_site.asgi:application"),
    "django asgi": ("asginl", "aoristos_site.asgi:django_asgi"),
}
PATHS = ("/healthz", "/accounts/login/")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_up(url: str, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"server did not answer {url}")


def wrk(url: str, seconds: int, connections: int) -> float:
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", url],
        capture_output=True,
        text=True,
        check=True,
        timeout=seconds + 30,
    ).stdout
    for line in out.splitlines():
        if line.startswith("Requests/sec:"):
            return float(line.split()[1])
    raise RuntimeError(f"wrk printed no rate:\n{out}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=4, help="length of one wrk run")
    parser.add_argument("--rounds", type=int, default=3, help="runs per stack and path")
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        print("wrk is not installed: apt-get install wrk (Debian/Ubuntu) or brew install wrk")
        return 2

    env = dict(os.environ, DATA_DIR=tempfile.mkdtemp(prefix="aoristos-bench-"))
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run(
        [python, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    servers, ports = {}, {}
    try:
        for name, (interface, target) in STACKS.items():
            ports[name] = free_port()
            servers[name] = subprocess.Popen(
                granian_command(
                    "127.0.0.1", ports[name], interface=interface, target=target, log_level="error"
                ),
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
            )
        for name in STACKS:
            wait_up(f"http://127.0.0.1:{ports[name]}/healthz")
        rates = {(name, path): [] for name in STACKS for path in PATHS}
        for _round in range(args.rounds):
            for path in PATHS:
                for name in STACKS:  # interleaved, so drift hits every stack alike
                    url = f"http://127.0.0.1:{ports[name]}{path}"
                    rates[name, path].append(wrk(url, args.seconds, args.connections))
    finally:
        for server in servers.values():
            server.terminate()
            server.wait(timeout=10)

    baseline = next(iter(STACKS))
    print(
        f"median requests/s over {args.rounds} runs of {args.seconds}s, "
        f"{args.connections} connections; ratio to {baseline}"
    )
    for path in PATHS:
        print(f"\n{path}")
        base = statistics.median(rates[baseline, path])
        for name in STACKS:
            median = statistics.median(rates[name, path])
            print(f"  {name:<26} {median:9.0f} req/s   x{median / base:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
