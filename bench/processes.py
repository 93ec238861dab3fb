"""Servers a measurement starts for itself, and the CPU a server spends (from /proc): what
a request costs it, whatever the machine's other load does to its latency.

- `launch`: granian as bench/live.py starts it (`core.serving.granian_command`, the
  site's environment), on the benchmark's database, serving the site or another ASGI
  target from bench/ (bench/floor_site.py); `stop` them all (each by its own process);

- `tree_cpu_seconds`: utime + stime of a process and its descendants (granian and its
  worker), in clock ticks (10 ms): for a load of thousands of requests;
- `tree_cpu_ns`: the same from each thread's schedstat, in nanoseconds: for one request
  at a time (a thread that ended is no longer counted, so compare only across a span in
  which the server's threads live on, as a server's page threads and granian's do).
"""

import asyncio
import contextlib
import os
from pathlib import Path

from harness import (
    BENCH,
    Bench,
    Server,
    children,
    free_port,
    log_findings,
    site_env,
    start,
    wait_up,
)

TICK = os.sysconf("SC_CLK_TCK")


def server_pids(server: Server) -> list[int]:
    """The server process and its descendants (granian's worker), once it is up."""
    return [server.process.pid, *children(server.process.pid)]


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def tree_cpu_seconds(pids: list[int]) -> float:
    return sum(cpu_seconds(pid) for pid in pids)


def tree_cpu_ns(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
    return total


async def launch(bench: Bench, names: list[str], target: str | None = None) -> list[Server]:
    """Start a granian server per name (in parallel) and wait until each answers; with
    `target`, that ASGI application of bench/ instead of the site's."""
    from core.serving import SITE, granian_command  # the site's (bench/live.py put it first)

    env = site_env(bench.site, bench.workdir)
    if target:
        env["PYTHONPATH"] = os.pathsep.join([str(bench.site), str(BENCH)])
    servers = []
    try:
        for name in names:
            port = free_port()
            command = granian_command("127.0.0.1", port, target=target or SITE)
            servers.append(start(name, command, env, bench.site, bench.workdir, port, True))
        for server in servers:
            await asyncio.to_thread(wait_up, server)
    except BaseException:
        stop(servers)
        raise
    return servers


def stop(servers: list[Server]) -> str:
    """Stop the servers; what they logged (errors first), or "" when nothing."""
    for server in servers:
        server.stop()
    errors, others = log_findings(servers)
    return "; ".join(errors + others)
