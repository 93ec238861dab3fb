"""Live-table benchmark over real HTTP: `make bench` (or `python bench/live.py [--quick]`).

Starts the real stack as `make serve` does (granian via core.serving.granian_command) on
a temporary SQLite database it seeds itself, plus a minimal stdlib-asyncio SSE server
(bench/minimal_sse.py) as the fan-out baseline, and drives them all with the same
asyncio raw-socket clients from this process (the servers are child processes).

Each measurement is a module of its own whose docstring says what it measures; they
share bench/harness.py (the sizes of a run, the clients, the servers, timing, statistics
and the table), and bench/live_db.py seeds the database and checks it. In this order:

1. fanout (bench/fanout.py): one roll's arrival on 10/100/1,000 open pages, on one
   server process and on two with Redis, beside the minimal server.
2. rate (bench/roll_rate.py): roll POST req/s and latency with 16 keep-alive clients,
   beside GET /healthz.
3. writers (bench/writers.py): 50 writers (rolls, UP spends and undos) for 20 s on
   SQLite: errors, lost writes and p99.
4. open (bench/streams_open.py): opening 1,000 streams at once: the time until all got
   their first bytes, and the server's memory per open stream.
5. a combat command beside a roll (bench/combat_command.py): its fan-out, timed in 1,
   and its answer under load, timed in 2 (it has no run of its own).
6. rebuild (bench/rebuild.py): rebuilding an encounter's state from its log of 500
   events, and of 500 records.
7. chronicle (bench/chronicle.py): the GM advances the chronicle a week for six wounded
   characters, with 10 of the campaign's pages open.
8. preview (bench/preview.py): the Aoristos attack preview (JSON API) of four attacks,
   beside the same requests to the app at commit c9c59e5 (served from its tree, on a
   database of its own), interleaved.
9. tables (bench/tables.py): 100 campaigns of six pages each rolling and fighting at once
   on two processes sharing PostgreSQL and Redis, beside the minimal server; then 300.
   Only when DATABASE_URL and REDIS_URL are set (it makes a PostgreSQL database of its own).

Every measurement is repeated (3 times by default) and the table quotes medians; the
machine is shared and noisy, so only figures from the same run compare. The table is
printed and written to bench/results.md (with the machine it ran on), followed by how
each measurement was made (each module's NOTES).

One measurement or a few, by name: `python bench/live.py rebuild`, `python bench/live.py
fanout rate` (the same as --phases fanout,rate): the set-up is the same, the table has
only their rows. The combat command's rows come with fanout and rate.

--quick: tiny sizes for a smoke run (tests/bench runs it); Redis rows only when
REDIS_URL is set. Otherwise REDIS_URL (default redis://127.0.0.1:6379/0) is used for the
Redis rows if a Redis server answers there. DATABASE_URL is used only by the tables
measurement (a database of its own beside it); every other measurement makes its own
SQLite database.
"""

import argparse
import asyncio
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from time import perf_counter

import chronicle
import combat_command
import fanout
import preview
import rebuild
import roll_rate
import streams_open
import tables
import writers
from harness import (
    BENCH,
    FULL,
    QUICK,
    ROOT,
    Bench,
    Plan,
    Row,
    Server,
    Target,
    db_script,
    free_port,
    log_findings,
    machine,
    redis_answers,
    site_env,
    start,
    table,
    wait_up,
)

DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
PHASES = ("fanout", "rate", "writers", "open", "rebuild", "chronicle", "preview", "tables")


async def measure(
    bench: Bench, seed: dict, servers: dict[str, Server], env: dict, phases: set[str]
) -> list[Row]:
    fan = seed["fanout"]
    cid = fan["campaign"]
    stream_path = f"/live/campaigns/{cid}/events?after={{after}}"
    roll_path = f"/campaigns/{cid}/table/roll/"
    site_counter = {"seq": fan["seq"]}  # the seeded encounter's records are events already
    baseline = Target(
        "minimal server",
        [servers["baseline"].port],
        servers["baseline"].port,
        "/events",
        "/roll",
        None,
        {"seq": 0},
    )
    single = Target(
        "1 process",
        [servers["single"].port],
        servers["single"].port,
        stream_path,
        roll_path,
        fan["gm"],
        site_counter,
    )
    targets = [single]
    if "redis-a" in servers:
        targets.append(
            Target(
                "Redis, 2 processes",
                [servers["redis-a"].port, servers["redis-b"].port],
                servers["redis-a"].port,
                stream_path,
                roll_path,
                fan["gm"],
                site_counter,
            )
        )
    rows = []
    began = perf_counter()
    if "fanout" in phases:
        bench.say("fan-out ...")
        rows += await fanout.measure(bench, seed, baseline, targets)
    if "rate" in phases:
        bench.say(f"roll rate ... ({perf_counter() - began:.0f} s)")
        rows += await roll_rate.measure(bench, servers["single"], seed)
    if "writers" in phases:
        bench.say(f"writers ... ({perf_counter() - began:.0f} s)")
        rows += await writers.measure(bench, servers["single"], seed, env)
    if "open" in phases:
        bench.say(f"opening streams ... ({perf_counter() - began:.0f} s)")
        rows += await streams_open.measure(bench, single, baseline, seed)
    rows += combat_command.combat_rows(bench)  # of what fanout and rate measured
    if "rebuild" in phases:
        bench.say(f"rebuilding encounters ... ({perf_counter() - began:.0f} s)")
        rows += await rebuild.measure(bench, env)
    if "chronicle" in phases:
        bench.say(f"advancing chronicles ... ({perf_counter() - began:.0f} s)")
        rows += await chronicle.measure(bench, servers["single"], seed, env)
    if "preview" in phases:
        bench.say(f"attack previews ... ({perf_counter() - began:.0f} s)")
        rows += await preview.measure(bench, servers["single"], seed, env, servers)
    if "tables" in phases:
        bench.say(f"tables on two processes ... ({perf_counter() - began:.0f} s)")
        rows += await tables.measure(bench, servers, env)
    bench.say(f"measured in {perf_counter() - began:.0f} s")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        default=os.environ.get("BENCH_QUICK", "") not in ("", "0"),
        help="tiny sizes, one repetition (a smoke run); also BENCH_QUICK=1",
    )
    parser.add_argument("--reps", type=int, help="repetitions of each measurement")
    parser.add_argument(
        "--out",
        type=Path,
        help="where to write the table (default bench/results.md; "
        "--quick: only into the temporary directory)",
    )
    parser.add_argument(
        "--site",
        type=Path,
        default=ROOT,
        help="the checkout whose server to measure (default: this one)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--no-redis", action="store_true", help="skip the Redis rows")
    parser.add_argument(
        "--sizes", help="page counts of the fan-out, e.g. 10,100 (development; default 10,100,1000)"
    )
    parser.add_argument(
        "--phases",
        default=",".join(PHASES),
        help=f"which measurements to run (development; default all: {','.join(PHASES)})",
    )
    parser.add_argument(
        "measurements",
        nargs="*",
        metavar="measurement",
        help=f"run only these, as --phases does (one or more of {', '.join(PHASES)})",
    )
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    if args.reps:
        plan = Plan(**(plan.__dict__ | {"reps": args.reps}))
    if args.sizes:
        sizes = tuple(int(size) for size in args.sizes.split(","))
        rolls = {
            size: plan.rolls.get(size, 50 if size <= 10 else 30 if size <= 100 else 20)
            for size in sizes
        }
        plan = Plan(**(plan.__dict__ | {"sizes": sizes, "rolls": rolls}))
    phases = set(args.measurements or args.phases.split(","))
    if unknown := phases - set(PHASES):
        parser.error(f"no measurement {', '.join(sorted(unknown))} (there are {', '.join(PHASES)})")
    site = args.site.resolve()
    players = max(plan.sizes + (plan.open_streams,))
    chronicles = plan.reps * plan.chronicle_advances + 1 if "chronicle" in phases else 0

    redis_url = os.environ.get("REDIS_URL") or (None if args.quick else DEFAULT_REDIS)
    redis_note = ""
    if args.no_redis:
        redis_url, redis_note = None, "skipped (--no-redis)"
    elif redis_url is None:
        redis_note = "skipped (REDIS_URL not set, quick mode)"
    elif not redis_answers(redis_url):
        redis_note, redis_url = f"skipped (no Redis answers at {redis_url})", None

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 2 * max(plan.sizes + (plan.open_streams,)) + 500
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(need, soft)), hard))

    workdir = Path(tempfile.mkdtemp(prefix="aoristos-bench-"))
    (workdir / "data").mkdir()
    env = site_env(site, workdir)
    servers: dict[str, Server] = {}
    started = time.monotonic()
    try:
        print(
            f"bench: setting up in {workdir} ({'quick' if args.quick else 'full'} run)", flush=True
        )
        migrate = subprocess.Popen(
            [sys.executable, "manage.py", "migrate", "-v0"], cwd=site, env=env
        )
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
            cwd=site,
            env=env,
            check=True,
            timeout=300,
        )
        if migrate.wait(timeout=300):
            raise RuntimeError("migrate failed")
        seed = db_script(
            site,
            env,
            workdir,
            "seed",
            {
                "players": players,
                "rate_clients": plan.rate_clients,
                "writers": plan.writers,
                "chronicles": chronicles,  # the first one warms up
                "chronicle_pages": min(plan.chronicle_pages, players),
                "preview": "preview" in phases,
            },
        )
        sys.path.insert(0, str(site))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aoristos_site.settings")
        from core.serving import granian_command

        def launch(name: str, granian: bool, extra_env: dict | None = None) -> Server:
            port = free_port()
            if granian:
                command = granian_command("127.0.0.1", port)
            else:
                command = [sys.executable, str(BENCH / "minimal_sse.py"), str(port), "480"]
            servers[name] = start(
                name, command, env | (extra_env or {}), site, workdir, port, granian
            )
            return servers[name]

        def fresh(name: str, granian: bool) -> Server:
            server = launch(name, granian)
            wait_up(server)
            return server

        launch("baseline", granian=False)
        launch("single", granian=True)
        if redis_url and "fanout" in phases:
            for name in ("redis-a", "redis-b"):
                launch(name, granian=True, extra_env={"REDIS_URL": redis_url})
        for server in servers.values():
            wait_up(server)
        print(f"bench: servers up after {time.monotonic() - started:.1f} s", flush=True)
        bench = Bench(plan, site, workdir, redis_note, fresh)
        rows = asyncio.run(measure(bench, seed, servers, env, phases))
    finally:
        for server in servers.values():
            server.stop()
    findings, other_lines = log_findings(list(servers.values()))
    info = machine(site)
    text = "\n".join(
        [
            f"# Live-table benchmark ({'quick' if args.quick else 'full'} run)",
            "",
            "; ".join(f"{k}: {v}" for k, v in info.items()),
            "",
            f"Medians of {plan.reps} repetitions; every baseline was measured in the same run. "
            f"Took {time.monotonic() - started:.0f} s.",
            "",
            table(rows),
            "",
            "Server logs: "
            + ("; ".join(findings) if findings else "no errors logged.")
            + (" Other lines: " + "; ".join(other_lines) if other_lines else ""),
            "",
            NOTES,
        ]
    )
    print("\n" + text, flush=True)
    out = args.out or (None if args.quick else BENCH / "results.md")
    if out is None:
        out = workdir / "results.md"
        args.keep = True
    out.write_text(text + "\n")
    print(f"\nbench: table written to {out}", flush=True)
    if args.keep or findings:
        print(f"bench: server logs kept in {workdir}", flush=True)
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


# How each measurement was made, below the table: the modules' NOTES.
NOTES = "\n".join(
    [
        "How it was measured (bench/live.py):\n",
        fanout.NOTES,
        roll_rate.NOTES,
        writers.NOTES,
        streams_open.NOTES,
        combat_command.NOTES,
        rebuild.NOTES,
        chronicle.NOTES,
        preview.NOTES,
        tables.NOTES,
        """\
- A row's "ok?" compares the medians with the issue's goals; "**NO**" is a finding, not
  a failure of the benchmark (which exits 0 whenever it could measure).""",
    ]
)


if __name__ == "__main__":
    sys.exit(main())
