"""Tables: 100 campaigns playing at once on two server processes that share one PostgreSQL
database and one Redis, beside the minimal server; then 300 campaigns, to find where it
saturates.

Each campaign has a GM and 5 players, and each member one page holding the campaign's
stream (half of each campaign's pages on each process). Each table rolls about every 2 s
(a member's form POST, as the tray sends it) and the GM ends an activation in the
table's fight about every 3 s (the JSON API, each command against the version the
previous answer showed), each POST to a random process: 100 tables make 83 events/s and
500 deliveries/s, 300 tables 250 and 1,500.

Measured, per run: deliveries (every event on every page of its campaign, exactly once,
in order: lost, out of order, repeated), delivery latency (from writing the POST to the
event's last byte on each page), the POSTs' answer times (roll, command), errors (POSTs
not accepted, streams refused or cut; a stale command, 409, counted apart), CPU seconds
of both server processes' whole process trees per 1,000 events, and the most PostgreSQL
connections to the bench database (pg_stat_activity, polled). Baseline: the minimal
server (bench/minimal_sse.py) routing per campaign (GET /events?c=N, POST /roll?c=N),
the same streams, schedule and client (its one port stands for both processes), in the
same run, each of its runs right after the site's.

Runs only when DATABASE_URL and REDIS_URL are set and answer: it creates a PostgreSQL
database of its own beside the URL's (dropped at the end, also after a failure), migrates
and seeds it (bench/tables_db.py) and starts two granian processes on it with Redis, as
`make serve` starts one (core.serving.granian_command).
"""

import asyncio
import contextlib
import json
import os
import random
import re
import resource
import secrets
import statistics
import sys
import threading
import traceback
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter

from combat_command import Combat
from harness import (
    BENCH,
    QUICK,
    ROLL_FIELDS,
    Bench,
    Client,
    FanoutRun,
    Row,
    Server,
    Stream,
    close_streams,
    free_port,
    get,
    med,
    ms,
    pct,
    post,
    redis_answers,
    roll_check,
    run_site_script,
    start,
    verdict,
    wait_up,
)
from processes import cpu_seconds, server_pids, tree_cpu_seconds


@dataclass(frozen=True)
class Sizes:
    tables: int  # the load
    seconds: float  # each measured run of it (repeated plan.reps times)
    baseline_seconds: float  # each run of the minimal server
    big: int  # the saturation run's tables, on the same processes
    big_seconds: float
    warmup: float  # an unmeasured run before the first, on each server


FULL_SIZES = Sizes(tables=100, seconds=20, baseline_seconds=10, big=300, big_seconds=20, warmup=3)
QUICK_SIZES = Sizes(tables=4, seconds=2, baseline_seconds=1, big=8, big_seconds=1, warmup=0)
PLAYERS = 5  # and a GM: six pages per table
ROLL_EVERY = 2.0  # seconds, on average, between two rolls of a table
COMMAND_EVERY = 3.0  # and between two of its GM's commands
JITTER = 0.25  # each interval: the mean ± 25 %, uniformly; each table's first at random
POST_TIMEOUT = 30.0
DRAIN_SECONDS = 10.0  # after the last answer, how long the last deliveries may take
OPEN_SECONDS = 90.0  # for every page's stream to open
MINIMAL_EVENT_BYTES = 480  # as bench/live.py's baseline
GOAL_P99, GOAL_RATIO, GOAL_CPU, GOAL_BIG_P99 = 100.0, 20.0, 4.0, 250.0
SKIPPED = "skipped: needs DATABASE_URL and REDIS_URL (PostgreSQL and Redis)"
ROLLED = re.compile(rb'data-rolled="(\d+)"')
VERSION = re.compile(rb'data-version="(\d+)"')


def sizes_of(bench: Bench) -> Sizes:
    # --reps and --sizes make a new Plan: QUICK's stream count tells the quick run.
    quick = bench.plan is QUICK or bench.plan.open_streams == QUICK.open_streams
    return QUICK_SIZES if quick else FULL_SIZES


# --- the tables and the client --------------------------------------------------------------------


@dataclass(eq=False)
class Table:
    campaign: int
    sessions: list[str]  # the GM's first
    fight: Combat  # the GM's encounter: its version, its active NPC
    seq: int = 0  # the last event number before a run (the site's)
    minimal_seq: int = 0  # the same on the minimal server
    versions: dict[int, int] = field(default_factory=dict)  # command's version -> its seq


@dataclass
class Target:
    name: str
    ports: list[int]  # pages alternate between them; each POST goes to a random one
    servers: list[Server]
    minimal: bool


@dataclass(eq=False)
class Sent:
    """One POST: when it was written and answered, and what it made."""

    table: Table
    kind: str  # "roll" or "command"
    sent: float = 0.0
    answered: float = 0.0
    seq: int | None = None  # the event's number (a command's: from its version)
    version: int | None = None
    problem: str | None = "not sent"  # None: accepted
    stale: bool = False  # 409: the encounter's version had moved on
    late: float = 0.0  # seconds after its scheduled time (a command waits for the last)
    port: int = 0  # the process it went to


class TableStream(Stream):
    """A page's stream that also counts, for the run, the first arrival of each event after
    `after`, and learns which event number each combat record's version got."""

    def __init__(self, run: FanoutRun, request: bytes, table: Table, after: int, tally: list):
        super().__init__(run, request)
        self.table, self.after, self.tally = table, after, tally
        self.seen: set[int] = set()
        self.cut = False  # closed by the server during the run
        self.port = 0  # the process it is open on

    def dispatch(self, block: bytes, now: float) -> None:
        count = len(self.ids)
        super().dispatch(block, now)
        if len(self.ids) == count:
            return
        seq = self.ids[-1]
        if seq <= self.after or seq in self.seen:
            return
        self.seen.add(seq)
        self.tally[0] += 1
        if b"combat-record" in block and (found := VERSION.search(block)):
            self.table.versions.setdefault(int(found[1]), seq)


class Pool:
    """Keep-alive connections to one port: a POST takes an idle one or opens another."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.idle: list[Client] = []

    async def exchange(self, make: Callable[[int], bytes], record: Sent) -> tuple[int, bytes]:
        client = self.idle.pop() if self.idle else Client(self.port)
        await client.connect()  # not timed: a new connection's set-up is not the POST's
        raw = make(self.port)
        record.port = self.port
        record.sent = perf_counter()
        status, body = await client.send(raw, POST_TIMEOUT)  # closes itself on failure
        record.answered = perf_counter()
        self.idle.append(client)
        return status, body

    def close(self) -> None:
        for client in self.idle:
            client.close()
        self.idle.clear()


# --- CPU and PostgreSQL connections ---------------------------------------------------------------


def tree_cpu(server: Server) -> float:
    return tree_cpu_seconds(server_pids(server))


def processes(match: Callable[[bytes], bool]) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if match(Path(f"/proc/{entry}/cmdline").read_bytes()):
                    found.append(int(entry))
            except OSError:
                continue
    return found


class Others:
    """CPU of what serves both processes besides themselves (information): the
    PostgreSQL backends connected to the bench database, and the Redis server (shared
    with whatever else uses it); and this client."""

    def __init__(self, dbname: str | None) -> None:
        name = dbname.encode() if dbname else None
        self.pg = processes(lambda c: bool(name) and c.startswith(b"postgres:") and name in c)
        self.redis = processes(lambda c: c.startswith(b"redis-server"))
        self.pg_before = {pid: cpu_seconds(pid) for pid in self.pg}
        self.redis_before = sum(cpu_seconds(pid) for pid in self.redis)
        self.name = name
        usage = resource.getrusage(resource.RUSAGE_SELF)
        self.client_before = usage.ru_utime + usage.ru_stime
        self.machine_before = machine_ticks()

    def delta(self) -> dict:
        name = self.name
        pg = processes(lambda c: bool(name) and c.startswith(b"postgres:") and name in c)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        busy, total = (b - a for a, b in zip(self.machine_before, machine_ticks(), strict=True))
        return {
            "pg": sum(cpu_seconds(pid) - self.pg_before.get(pid, 0.0) for pid in pg),
            "redis": sum(cpu_seconds(pid) for pid in self.redis) - self.redis_before,
            "client": usage.ru_utime + usage.ru_stime - self.client_before,
            "machine_percent": busy / total * 100 if total else float("nan"),
        }


def machine_ticks() -> tuple[int, int]:
    """The whole machine's busy and total CPU time so far (/proc/stat; ticks): busy is
    everything but idle and I/O wait, whoever ran (the other users of a shared machine)."""
    try:
        fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    except (OSError, ValueError):
        return 0, 0
    return sum(fields) - fields[3] - fields[4], sum(fields)


async def lag_monitor(lags: list[float]) -> None:
    """How late this client's event loop wakes from a 10 ms sleep (ms): its own delays,
    which every latency it measures includes."""
    while True:
        began = perf_counter()
        await asyncio.sleep(0.01)
        lags.append((perf_counter() - began - 0.01) * 1000)


class ConnectionPoller:
    """The most connections pg_stat_activity shows for one database, polled every 0.2 s
    in a thread, through a connection to another database (not counted)."""

    def __init__(self, admin_url: str, dbname: str) -> None:
        self.admin_url, self.dbname = admin_url, dbname
        self.most = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.poll, daemon=True)

    def poll(self) -> None:
        import psycopg

        try:
            with psycopg.connect(self.admin_url, autocommit=True, connect_timeout=5) as conn:
                while True:
                    (count,) = conn.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
                        (self.dbname,),
                    ).fetchone()
                    self.most = max(self.most, count)
                    if self.stopping.wait(0.2):
                        return
        except Exception:  # noqa: BLE001  (information: the row says "–")
            self.most = -1

    def __enter__(self) -> "ConnectionPoller":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)


# --- one run --------------------------------------------------------------------------------------


async def run_tables(
    target: Target, tables: list[Table], seconds: float, watch: tuple[str, str] | None = None
) -> dict:
    """Open every member's page, post the tables' schedule for `seconds`, wait for the
    last deliveries, and count. `watch`: (an admin URL, the bench database's name) whose
    connections are polled and whose backends' CPU is shown."""
    loop = asyncio.get_running_loop()
    run, tally = FanoutRun(), [0]
    pools = [Pool(port) for port in dict.fromkeys(target.ports)]
    streams: list[TableStream] = []
    by_table: dict[Table, list[TableStream]] = {}
    afters: dict[Table, int] = {}

    async def open_one(k: int, i: int, table: Table, session: str) -> None:
        port = target.ports[(k + i) % len(target.ports)]
        if target.minimal:
            after = table.minimal_seq
            path = f"/events?c={table.campaign}"
        else:
            after = table.seq
            path = f"/live/campaigns/{table.campaign}/events?after={after}"
        request = get(port, path, session)[:-2] + b"Accept: text/event-stream\r\n\r\n"
        afters[table] = after
        try:
            _t, stream = await loop.create_connection(
                lambda: TableStream(run, request, table, after, tally), "127.0.0.1", port
            )
        except OSError as error:
            stream = TableStream(run, request, table, after, tally)
            stream.error = f"connect: {error}"
            run.on_fail()
        stream.port = port
        streams.append(stream)
        by_table.setdefault(table, []).append(stream)

    began_open = perf_counter()
    await asyncio.gather(
        *(
            open_one(k, i, table, session)
            for k, table in enumerate(tables)
            for i, session in enumerate(table.sessions)
        )
    )
    await run.wait(0, len(streams), timeout=OPEN_SECONDS)
    opened_in = perf_counter() - began_open
    await asyncio.sleep(0.2)  # the hubs read their campaigns' last numbers

    records: list[Sent] = []
    posts: set[asyncio.Task] = set()
    cpu_before = [tree_cpu(s) for s in target.servers]
    others = Others(watch[1] if watch else None)
    lags: list[float] = []
    lagging = loop.create_task(lag_monitor(lags))
    t0 = perf_counter()
    end = t0 + seconds

    async def send(table: Table, kind: str, scheduled: float) -> None:
        record = Sent(table, kind, late=max(0.0, perf_counter() - scheduled))
        records.append(record)
        pool = random.choice(pools)
        if target.minimal:

            def make(port: int) -> bytes:
                return post(port, f"/roll?c={table.campaign}", None, ROLL_FIELDS)

        elif kind == "roll":
            session = random.choice(table.sessions)

            def make(port: int) -> bytes:
                return post(port, f"/campaigns/{table.campaign}/table/roll/", session, ROLL_FIELDS)

        else:

            def make(port: int) -> bytes:
                table.fight.port = port
                return table.fight.api()

        try:
            status, body = await pool.exchange(make, record)
        except (OSError, TimeoutError) as error:
            record.problem = type(error).__name__
            return
        if target.minimal or kind == "roll":
            record.problem = roll_check(status, body)
            found = ROLLED.search(body)
            if record.problem is None and found is None:
                record.problem = "no data-rolled in the answer"
            if found:
                record.seq = int(found[1])
        else:
            record.problem = table.fight.api_answer(status, body)
            record.stale = status == 409
            if record.problem is None:
                record.version = table.fight.version

    def spawn(coroutine) -> None:
        task = loop.create_task(coroutine)
        posts.add(task)
        task.add_done_callback(posts.discard)

    async def roller(table: Table) -> None:
        due = t0 + random.uniform(0, ROLL_EVERY)
        while due < end:
            await asyncio.sleep(max(0.0, due - perf_counter()))
            spawn(send(table, "roll", due))
            due += ROLL_EVERY * random.uniform(1 - JITTER, 1 + JITTER)

    async def commander(table: Table) -> None:
        due = t0 + random.uniform(0, COMMAND_EVERY)
        while due < end:
            await asyncio.sleep(max(0.0, due - perf_counter()))
            await send(table, "command", due)  # the next one needs this one's version
            due += COMMAND_EVERY * random.uniform(1 - JITTER, 1 + JITTER)

    with ConnectionPoller(*watch) if watch else contextlib.nullcontext() as polling:
        await asyncio.gather(*(f(t) for t in tables for f in (roller, commander)))
        while posts:
            await asyncio.wait(set(posts))
        last_answer = max((r.answered for r in records), default=t0)
        # Every accepted POST made one event for each of its table's open pages.
        pages = {
            t: sum(1 for s in group if s.opened_at is not None) for t, group in by_table.items()
        }
        wanted = sum(pages[r.table] for r in records if r.problem is None)
        deadline = perf_counter() + DRAIN_SECONDS
        while tally[0] < wanted and perf_counter() < deadline:
            await asyncio.sleep(0.02)
        drained = perf_counter()
        cpu_after = [tree_cpu(s) for s in target.servers]
        other_cpu = others.delta()
        lagging.cancel()
        most_connections = polling.most if polling else None
    for stream in streams:
        stream.cut = stream.closed.done()
    await close_streams(streams)
    for pool in pools:
        pool.close()

    # What each table's pages should have got: the events its accepted POSTs made (a
    # command's number from its version, as the pages showed it), and any other event
    # after the run's start that a page got (a POST whose answer was lost).
    latencies: list[float] = []
    # the same, split: pages on the process the POST went to, and on the other one
    split: dict[bool, list[float]] = {True: [], False: []}
    delivered = expected = lost = disordered = repeated = unmatched = 0
    accepted_by: dict[Table, list[Sent]] = {table: [] for table in by_table}
    for record in records:
        if record.problem is None:
            accepted_by[record.table].append(record)
    for table, table_streams in by_table.items():
        after = afters[table]
        events: dict[int, float | None] = {}
        ports: dict[int, int] = {}
        unknown = 0
        for record in accepted_by[table]:
            if record.kind == "command" and not target.minimal:
                record.seq = table.versions.get(record.version)
            if record.seq is None:
                unknown += 1  # reached no page at all
            else:
                events[record.seq] = record.sent
                ports[record.seq] = record.port
        for stream in table_streams:
            for seq in stream.ids:
                if seq > after:
                    events.setdefault(seq, None)
        unmatched += sum(1 for sent in events.values() if sent is None)
        order = sorted(events)
        for stream in table_streams:
            got = [seq for seq in stream.ids if seq > after]
            times = [t for seq, t in zip(stream.ids, stream.times, strict=True) if seq > after]
            expected += len(order) + unknown
            first: dict[int, float] = {}
            for seq, at in zip(got, times, strict=True):
                first.setdefault(seq, at)
            delivered += len(first)
            lost += len(order) + unknown - len(first)
            repeated += len(got) - len(first)
            disordered += sum(1 for a, b in zip(got, got[1:], strict=False) if b < a)
            for seq, at in first.items():
                if events.get(seq) is not None:
                    latencies.append((at - events[seq]) * 1000)
                    split[ports[seq] == stream.port].append(latencies[-1])
        if target.minimal:
            table.minimal_seq = max([table.minimal_seq, *events])
        else:
            table.seq = max([table.seq, *events])

    def answers(kind: str) -> list[float]:
        return [(r.answered - r.sent) * 1000 for r in records if r.kind == kind and r.answered]

    problems: dict[str, int] = {}
    for record in records:
        if record.problem is not None and not record.stale:
            key = f"{record.kind}: {record.problem}"
            problems[key] = problems.get(key, 0) + 1
    refused = sorted({s.error for s in streams if s.error})
    cut = sum(1 for s in streams if s.cut and not s.error)
    accepted = sum(1 for r in records if r.problem is None)
    cpu = [after - before for before, after in zip(cpu_before, cpu_after, strict=True)]
    elapsed = drained - t0
    return {
        "tables": len(tables),
        "pages": len(streams),
        "opened_in": opened_in,
        "seconds": seconds,
        "posts": len(records),
        "events": accepted,
        "scheduled_rate": len(records) / seconds,
        "stored_rate": accepted / max(last_answer - t0, seconds),
        "late": sum(1 for r in records if r.kind == "command" and r.late > 0.05),
        "p50": pct(latencies, 0.50),
        "p99": pct(latencies, 0.99),
        "max": max(latencies, default=float("nan")),
        "same_p50": pct(split[True], 0.50),
        "same_p99": pct(split[True], 0.99),
        "other_p50": pct(split[False], 0.50),
        "other_p99": pct(split[False], 0.99),
        "delivered": delivered,
        "expected": expected,
        "lost": lost,
        "disordered": disordered,
        "repeated": repeated,
        "unmatched": unmatched,
        "stale": sum(1 for r in records if r.stale),
        "problems": problems,
        "post_errors": sum(problems.values()),
        "refused": sum(1 for s in streams if s.error),
        "refused_why": refused,
        "cut": cut,
        "errors": sum(problems.values()) + sum(1 for s in streams if s.error) + cut,
        "roll_p50": pct(answers("roll"), 0.50),
        "roll_p99": pct(answers("roll"), 0.99),
        "command_p50": pct(answers("command"), 0.50),
        "command_p99": pct(answers("command"), 0.99),
        "cpu": cpu,
        "cpu_total": sum(cpu),
        "cpu_per_1000": sum(cpu) / accepted * 1000 if accepted else float("nan"),
        "cpu_percent": sum(cpu) / elapsed / (os.cpu_count() or 1) * 100,
        "elapsed": elapsed,
        "other_cpu": other_cpu,
        "lag_p99": pct(lags, 0.99),
        "lag_max": max(lags, default=float("nan")),
        "connections": most_connections,
    }


def where(r: dict) -> str:
    """Delivery p50/p99 on the pages of the process the POST went to, and of the other."""
    if r["other_p50"] != r["other_p50"]:  # nan: one process
        return ""
    return (
        f" (its own process p50/p99 {ms(r['same_p50'])}/{ms(r['same_p99'])}, "
        f"the other {ms(r['other_p50'])}/{ms(r['other_p99'])})"
    )


def say_run(bench: Bench, label: str, r: dict) -> None:
    bench.say(
        f"  tables, {label}: {r['tables']} tables, {r['pages']} pages (open in "
        f"{r['opened_in']:.1f} s); {r['events']}/{r['posts']} POSTs accepted "
        f"({r['stored_rate']:.0f}/s of {r['scheduled_rate']:.0f}/s); delivery p50 "
        f"{ms(r['p50'])} p99 {ms(r['p99'])} max {ms(r['max'])} ms{where(r)}; "
        f"{r['delivered']}/{r['expected']} delivered, {r['lost']} lost, {r['disordered']} out "
        f"of order, {r['repeated']} repeated; answers roll p50 {ms(r['roll_p50'])} "
        f"command p50 {ms(r['command_p50'])} ms; CPU {r['cpu_total']:.1f} s "
        f"({r['cpu_per_1000']:.2f} s/1,000 events, {r['cpu_percent']:.0f}% of the cores; "
        f"machine {r['other_cpu']['machine_percent']:.0f}% busy; client loop lag p99 "
        f"{ms(r['lag_p99'])} max {ms(r['lag_max'])} ms)"
        + (f"; max {r['connections']} PostgreSQL connections" if r["connections"] else "")
        + (f"; errors {r['problems']}" if r["problems"] else "")
        + (f"; {r['stale']} stale" if r["stale"] else "")
        + (f"; streams refused {r['refused_why'][:2]}" if r["refused"] else "")
        + (f"; {r['cut']} streams cut" if r["cut"] else "")
    )


# --- the database and the servers -----------------------------------------------------------------


def postgres_answers(url: str) -> str | None:
    """None when PostgreSQL answers at `url`, else why not."""
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as error:  # noqa: BLE001
        return one_line(error)
    return None


def one_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {' '.join(str(error).split())[:160]}"


def with_database(url: str, name: str) -> str:
    parsed = urllib.parse.urlparse(url)
    return urllib.parse.urlunparse(parsed._replace(path="/" + name))


def admin(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql)


def drop_database(url: str, name: str) -> None:
    try:
        admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    except Exception:  # noqa: BLE001  (before PostgreSQL 13: no FORCE)
        admin(url, f'DROP DATABASE IF EXISTS "{name}"')


def current_seqs(url: str, tables: list[Table]) -> None:
    import psycopg

    with psycopg.connect(url, connect_timeout=5) as conn:
        rows = conn.execute(
            "SELECT id, event_seq FROM campaigns_campaign WHERE id = ANY(%s)",
            ([t.campaign for t in tables],),
        ).fetchall()
    seqs = dict(rows)
    for table in tables:
        table.seq = seqs[table.campaign]


def seed_tables(site: Path, env: dict, workdir: Path, count: int) -> list[Table]:
    out = workdir / f"tables-{secrets.token_hex(4)}.json"
    arguments = json.dumps({"tables": count, "players": PLAYERS, "out": str(out)})
    run_site_script(site, env, str(BENCH / "tables_db.py"), "seed", arguments)
    seeded = json.loads(out.read_text())["tables"]
    return [
        Table(
            campaign=t["campaign"],
            sessions=[t["gm"], *t["players"]],
            fight=Combat(0, t["gm"], t["encounter"]),
            seq=t["seq"],
        )
        for t in seeded
    ]


# --- the measurement ------------------------------------------------------------------------------


async def measure(bench: Bench, servers: dict[str, Server], env: dict) -> list[Row]:
    sizes = sizes_of(bench)
    name = f"tables: {sizes.tables} tables × 6 pages, 2 processes (PostgreSQL, Redis)"
    database_url = os.environ.get("DATABASE_URL", "")
    redis_url = os.environ.get("REDIS_URL", "")
    why = ""
    if not (database_url and redis_url):
        why = (
            " ("
            + " and ".join(
                n for n, v in (("DATABASE_URL", database_url), ("REDIS_URL", redis_url)) if not v
            )
            + " not set)"
        )
    elif problem := postgres_answers(database_url):
        why = f" (PostgreSQL does not answer: {problem})"
    elif not redis_answers(redis_url):
        why = " (Redis does not answer)"
    if why:
        bench.say(f"tables: {SKIPPED}{why}")
        return [Row(name=name, value=SKIPPED + why, ok="skipped")]
    try:
        return await measured(bench, servers, env, sizes, database_url, redis_url)
    except Exception as error:  # a failure of the set-up or the client: one row says so
        traceback.print_exc()
        return [Row(name=name, value=f"failed: {one_line(error)}", ok="**NO**")]


async def measured(
    bench: Bench,
    servers: dict[str, Server],
    env: dict,
    sizes: Sizes,
    database_url: str,
    redis_url: str,
) -> list[Row]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = sizes.big * (PLAYERS + 1) + 1000
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, need), hard))
    dbname = f"aoristos_bench_tables_{secrets.token_hex(4)}"
    bench_url = with_database(database_url, dbname)
    site_env = env | {"DATABASE_URL": bench_url, "REDIS_URL": redis_url}
    mine: list[Server] = []
    began = perf_counter()
    try:
        admin(database_url, f'CREATE DATABASE "{dbname}"')
        run_site_script(bench.site, site_env, "manage.py", "migrate", "-v0")
        tables = seed_tables(bench.site, site_env, bench.workdir, max(sizes.tables, sizes.big))
        bench.say(f"  tables: {dbname} migrated and seeded in {perf_counter() - began:.1f} s")
        from core.serving import granian_command

        for label in ("a", "b"):
            port = free_port()
            server = start(
                f"tables-{label}",
                granian_command("127.0.0.1", port),
                site_env,
                bench.site,
                bench.workdir,
                port,
                True,
            )
            mine.append(server)
        port = free_port()
        command = [sys.executable, str(BENCH / "minimal_sse.py"), str(port)]
        command.append(str(MINIMAL_EVENT_BYTES))
        minimal_server = start(
            "tables-minimal", command, env, bench.site, bench.workdir, port, False
        )
        mine.append(minimal_server)
        for server in mine:
            servers[server.name] = server  # bench/live.py reads their logs (and stops them)
            wait_up(server)
        site = Target("2 processes", [s.port for s in mine[:2]], mine[:2], minimal=False)
        minimal = Target("minimal server", [minimal_server.port], [minimal_server], minimal=True)

        async def site_run(count: int, seconds: float, label: str) -> dict:
            current_seqs(bench_url, tables[:count])
            result = await run_tables(site, tables[:count], seconds, (database_url, dbname))
            say_run(bench, label, result)
            await asyncio.sleep(0.5)
            return result

        async def minimal_run(count: int, seconds: float, label: str) -> dict:
            result = await run_tables(minimal, tables[:count], seconds)
            say_run(bench, label, result)
            await asyncio.sleep(0.5)
            return result

        if sizes.warmup:
            await site_run(sizes.tables, sizes.warmup, "warm-up, 2 processes")
            await minimal_run(sizes.tables, sizes.warmup, "warm-up, minimal server")
        got, base = [], []
        for rep in range(bench.plan.reps):
            got.append(await site_run(sizes.tables, sizes.seconds, f"rep {rep + 1}, 2 processes"))
            base.append(
                await minimal_run(sizes.tables, sizes.baseline_seconds, f"rep {rep + 1}, minimal")
            )
        big = await site_run(sizes.big, sizes.big_seconds, f"{sizes.big} tables, 2 processes")
        big_base = await minimal_run(
            sizes.big, sizes.baseline_seconds, f"{sizes.big} tables, minimal"
        )
    finally:
        for server in mine:
            server.stop()
        try:
            drop_database(database_url, dbname)
        except Exception as error:  # noqa: BLE001
            bench.say(f"  tables: could not drop database {dbname}: {error}")
    bench.say(f"  tables: measured in {perf_counter() - began:.0f} s")
    return rows_of(sizes, bench.plan.reps, got, base, big, big_base)


# --- the rows -------------------------------------------------------------------------------------


def deliveries(results: list[dict]) -> str:
    total = {
        k: sum(r[k] for r in results)
        for k in (
            "delivered",
            "expected",
            "lost",
            "disordered",
            "repeated",
            "post_errors",
            "refused",
            "cut",
            "stale",
            "events",
            "posts",
            "unmatched",
        )
    }
    problems: dict[str, int] = {}
    for r in results:
        for key, count in r["problems"].items():
            problems[key] = problems.get(key, 0) + count
    errors = total["post_errors"] + total["refused"] + total["cut"]
    return (
        f"{total['delivered']:,}/{total['expected']:,} deliveries of {total['events']:,} events; "
        f"{total['lost']} lost, {total['disordered']} out of order, "
        f"{total['repeated']} repeated; {errors} errors"
        + (f" ({problems})" if problems else "")
        + (f"; {total['refused']} streams refused" if total["refused"] else "")
        + (f"; {total['cut']} streams cut" if total["cut"] else "")
        + (f"; {total['stale']} stale commands (409)" if total["stale"] else "")
        + (f"; {total['unmatched']} events of no answered POST" if total["unmatched"] else "")
    )


def context(results: list[dict]) -> str:
    """What the latencies include (medians of the runs): the split by process, the
    client's own event-loop lag, and how busy the whole (shared) machine was."""
    machine = statistics.median(r["other_cpu"]["machine_percent"] for r in results)
    split = ""
    if all(r["other_p50"] == r["other_p50"] for r in results):  # two processes
        split = (
            f"p50/p99 on the POST's own process {ms(med(results, 'same_p50'))}/"
            f"{ms(med(results, 'same_p99'))} ms, on the other (Redis) "
            f"{ms(med(results, 'other_p50'))}/{ms(med(results, 'other_p99'))} ms; "
        )
    return (
        f"{split}client loop lag p99 {ms(med(results, 'lag_p99'))} ms; machine "
        f"{machine:.0f}% busy (all its users)"
    )


def all_there(results: list[dict]) -> bool:
    return all(
        r["lost"] == 0 and r["disordered"] == 0 and r["repeated"] == 0 and r["expected"]
        for r in results
    )


def others(results: list[dict]) -> str:
    events = sum(r["events"] for r in results) or 1
    pg = sum(r["other_cpu"]["pg"] for r in results) / events * 1000
    redis = sum(r["other_cpu"]["redis"] for r in results) / events * 1000
    client = sum(r["other_cpu"]["client"] for r in results) / events * 1000
    return (
        f"besides: PostgreSQL backends {pg:.2f}, Redis {redis:.2f}, this client {client:.2f} s "
        "per 1,000 events"
    )


def rows_of(
    sizes: Sizes, reps: int, got: list[dict], base: list[dict], big: dict, big_base: dict
) -> list[Row]:
    n, b = sizes.tables, sizes.big
    p99, base_p99 = med(got, "p99"), med(base, "p99")
    ratio = p99 / base_p99 if base_p99 else float("inf")
    rate = med(got, "scheduled_rate")
    cpu, base_cpu = med(got, "cpu_per_1000"), med(base, "cpu_per_1000")
    split = " + ".join(
        f"{statistics.median(r['cpu'][i] for r in got):.1f}" for i in range(len(got[0]["cpu"]))
    )
    rows = [
        Row(
            name=f"tables: {n} tables × 6 pages, 2 processes (PostgreSQL, Redis), delivery",
            value=f"{rate:.0f} events/s, {rate * 6:.0f} deliveries/s; "
            f"{sizes.seconds:.0f} s × {reps}",
            p50=ms(med(got, "p50")),
            p99=ms(p99),
            max=ms(med(got, "max")),
            delivered=f"{deliveries(got)}; {context(got)}",
            baseline=f"minimal: p99 {ms(base_p99)} ms (p50 {ms(med(base, 'p50'))}); "
            f"{deliveries(base)}; {context(base)}",
            ratio=f"×{ratio:.1f}",
            goal=f"p99 ≤ {GOAL_P99:.0f} ms and ≤ {GOAL_RATIO:.0f}× minimal; 0 lost, 0 out of order",
            ok=verdict(p99 <= GOAL_P99 and ratio <= GOAL_RATIO and all_there(got)),
        ),
        Row(
            name=f"tables: {n} tables, CPU per 1,000 events (both processes)",
            value=f"{cpu:.2f} s",
            delivered=f"{split} s of CPU in {med(got, 'elapsed'):.0f} s "
            f"({med(got, 'cpu_percent'):.0f}% of {os.cpu_count()} cores) for "
            f"{med(got, 'events'):,.0f} events; {others(got)}",
            baseline=f"minimal: {base_cpu:.2f} s per 1,000 events "
            f"({med(base, 'cpu_percent'):.0f}% of the cores)",
            ratio=f"×{cpu / base_cpu:.0f}" if base_cpu else "–",
            goal=f"≤ {GOAL_CPU:.0f} s per 1,000 events",
            ok=verdict(cpu <= GOAL_CPU),
        ),
        Row(
            name=f"tables: {n} tables, roll POST answer (form)",
            value=f"p50 {ms(med(got, 'roll_p50'))} ms",
            p50=ms(med(got, "roll_p50")),
            p99=ms(med(got, "roll_p99")),
            baseline=f"minimal: p50 {ms(med(base, 'roll_p50'))} ms",
            goal="none (information)",
            ok="–",
        ),
        Row(
            name=f"tables: {n} tables, combat command POST answer (JSON API)",
            value=f"p50 {ms(med(got, 'command_p50'))} ms",
            p50=ms(med(got, "command_p50")),
            p99=ms(med(got, "command_p99")),
            delivered=f"{sum(r['stale'] for r in got)} stale (409)",
            baseline=f"minimal: p50 {ms(med(base, 'command_p50'))} ms",
            goal="none (information)",
            ok="–",
        ),
        Row(
            name=f"tables: {n} tables, most PostgreSQL connections",
            value=str(max(r["connections"] for r in got)),
            delivered="pg_stat_activity of the bench database, polled every 0.2 s",
            goal="none (information)",
            ok="–",
        ),
    ]
    big_p99 = big["p99"]
    rows.append(
        Row(
            name=f"tables: {b} tables × 6 pages, same 2 processes, delivery",
            value=f"{big['scheduled_rate']:.0f} events/s scheduled, "
            f"{big['stored_rate']:.0f}/s stored; {sizes.big_seconds:.0f} s × 1",
            p50=ms(big["p50"]),
            p99=ms(big_p99),
            max=ms(big["max"]),
            delivered=f"{deliveries([big])}; {context([big])}",
            baseline=f"minimal: p99 {ms(big_base['p99'])} ms (p50 {ms(big_base['p50'])}); "
            f"{deliveries([big_base])}; {context([big_base])}",
            ratio=f"×{big_p99 / big_base['p99']:.1f}" if big_base["p99"] else "–",
            goal=f"0 errors, 0 lost, p99 ≤ {GOAL_BIG_P99:.0f} ms",
            ok=verdict(big["errors"] == 0 and all_there([big]) and big_p99 <= GOAL_BIG_P99),
        )
    )
    rows.append(
        Row(
            name=f"tables: {b} tables, where it saturates",
            value=f"{big['stored_rate']:.0f} of {big['scheduled_rate']:.0f} events/s; "
            f"servers' CPU {big['cpu_percent']:.0f}% of {os.cpu_count()} cores",
            p50=ms(big["roll_p50"]),
            p99=ms(big["roll_p99"]),
            delivered=f"POST answers: roll p50 {ms(big['roll_p50'])}, p99 {ms(big['roll_p99'])} "
            f"ms; command p50 {ms(big['command_p50'])}, p99 {ms(big['command_p99'])} ms; "
            f"{big['late']} commands sent late (the last still unanswered); CPU "
            + " + ".join(f"{c:.1f}" for c in big["cpu"])
            + f" s in {big['elapsed']:.0f} s, {big['cpu_per_1000']:.2f} s per 1,000 events; "
            f"{others([big])}; max {big['connections']} PostgreSQL connections; pages open in "
            f"{big['opened_in']:.1f} s",
            baseline=f"minimal: CPU {big_base['cpu_percent']:.0f}% of the cores, "
            f"{big_base['cpu_per_1000']:.2f} s per 1,000 events, roll p50 "
            f"{ms(big_base['roll_p50'])} ms",
            goal="none (where it saturates; p50/p99 here: the roll's answer)",
            ok="–",
        )
    )
    return rows


NOTES = """\
- Tables (bench/tables.py; only with DATABASE_URL and REDIS_URL): a PostgreSQL database
  of its own (created beside DATABASE_URL's, dropped after), 300 campaigns seeded
  (bench/tables_db.py: a GM and 5 players, a session each, one started Aoristos fight of
  two NPCs the GM commands), two granian processes on it with REDIS_URL (one worker
  each, as `make serve`). Every member holds its campaign's stream, members alternating
  between the processes (half of each campaign's pages on each). Each table rolls (hand
  1B, a random member, the tray's form POST) every 2 s and its GM ends an activation
  (POST /api/v1/encounters/<id>/commands with the version the previous answer gave: the
  next command waits for that answer) every 3 s, each interval ±25 % at random and the
  first at a random phase; each POST goes to a random process, on keep-alive connections
  of one asyncio client (this process, on the same 2 cores). Latency: from writing the
  POST to the event's last byte on each page; a roll's event is known by the number its
  answer carries (data-rolled), a command's by its version (data-version on the pages).
  Lost: an event of an accepted POST missing on a page of its table after the last answer
  and up to 10 s of waiting (a stream refused or cut loses the rest); out of order: an
  arrival after a higher number on the same page; errors: POSTs not accepted (a 409 stale
  command counted apart) and streams refused or cut. CPU: utime+stime from /proc of each
  server's process tree (granian and its worker), from the first POST to the last
  delivery, per 1,000 accepted POSTs (one event each); the bench database's PostgreSQL
  backends, the Redis server (all of it) and the client are shown beside it, not counted.
  Connections: pg_stat_activity for the bench database, polled every 0.2 s. Runs: a 3 s
  warm-up, 100 tables for 20 s × reps (medians; deliveries summed), then 300 tables for
  20 s; the minimal server (routing per campaign, ?c=N; every POST a 480-byte event) runs
  the same tables, pages and schedule for 10 s right after each. Quick run: 4 and 8
  tables for 2 and 1 s, no warm-up."""
