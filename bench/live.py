"""Live-table benchmark over real HTTP: `make bench` (or `python bench/live.py [--quick]`).

Starts the real stack as `make serve` does (granian via core.serving.granian_command) on
a temporary SQLite database it seeds itself, plus a minimal stdlib-asyncio SSE server
(bench/minimal_sse.py) as the fan-out baseline, and drives them all with the same
asyncio raw-socket clients from this process (the servers are child processes):

1. fan-out: one roll POSTed, its arrival on every open page's stream (10/100/1,000
   pages): p50/p99/max from the POST being written to the event's arrival, and delivery
   (events received / expected; every stream got every roll, in order). One server
   process (in-process broadcaster), and two processes with Redis (pages split evenly,
   rolls posted to the first). Baseline: the minimal server, same client, same run.
2. roll POST req/s and latency with 16 keep-alive clients, beside GET /healthz.
3. 50 writers (rolls, UP spends and undos) for 20 s on SQLite: errors, lost writes
   (checked in the database afterwards) and p99.
4. opening 1,000 streams at once: time until all got their first body bytes, and the
   server's memory per open stream (VmRSS of granian's worker processes before, with
   1,000 open and after closing them).
5. a combat command beside a roll (goal: p50 and p99 within 2x the roll's): the GM ends
   the active NPC's activation in a seeded, started encounter (`Combat` tracks the
   encounter's version, which each command needs). Its fan-out to 10 pages, measured in
   phase 1 right after the roll's at 10 pages on the one-process server; and its answer
   under the roll-rate load of phase 2 (16 clients, each ending activations in an
   encounter of its own, right after the rolls), through the JSON API (the command and
   its state as data: the goal) and through the page's form (the same command answered
   with the re-rendered panel, 12 KB of HTML: information, no goal).
6. rebuilding an encounter's state from its log (goal: under 50 ms) with 500 events, and
   with 500 records, in a Django script (bench/live_db.py rebuild): forget the cached state,
   then fold the log (read, JSON decode, replay), beside reading the same rows undecoded.
7. the chronicle (issue 9: under 1 s): the GM advances the campaign's chronicle a week
   for six wounded characters (two unstable, 5 organtrauma, hourly healing tests) through
   the JSON API, with 10 of the campaign's pages open: from the POST until its answer
   (the advance decided and stored) and until every page got its stream event. Each
   advance in a chronicle of its own, seeded in the same state (bench/live_db.py); right
   before it, rolls to the same pages: the baseline. The events each advance stored are
   counted in the database afterwards.

Every measurement is repeated (3 times by default) and the table quotes medians; the
machine is shared and noisy, so only figures from the same run compare. The table is
printed and written to bench/results.md (with the machine it ran on).

--quick: tiny sizes for a smoke run (tests/bench runs it); Redis rows only when
REDIS_URL is set. Otherwise REDIS_URL (default redis://127.0.0.1:6379/0) is used for the
Redis rows if a Redis server answers there. DATABASE_URL is never used: the benchmark
always makes its own SQLite database.
"""

import argparse
import asyncio
import contextlib
import dataclasses
import datetime
import json
import os
import platform
import re
import resource
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
SECRET_KEY = "bench-" + "k" * 50  # fixed: sessions seeded by bench/live_db.py stay valid
CSRF_TOKEN = secrets.choice("abcdefgh") + secrets.token_hex(16)[:31]  # 32 alphanumerics


@dataclass
class Plan:
    sizes: tuple[int, ...]
    rolls: dict[int, int]  # rolls per fan-out run, by page count
    reps: int
    rate_clients: int
    rate_seconds: float
    writers: int
    writer_seconds: float
    writer_baseline_seconds: float
    open_streams: int
    warmup_seconds: float  # of each load before it is measured
    settle_open: float  # seconds between the last stream opening and reading RSS
    settle_close: float  # seconds between closing the streams and reading RSS
    pause: float  # seconds between two fan-out runs
    combat_pages: int  # page count of the combat command's fan-out (one of `sizes`)
    rebuild_samples: int  # timed rebuilds of an encounter's state, per repetition
    chronicle_pages: int  # pages open on the chronicle's campaign while it advances
    chronicle_rolls: int  # rolls to those pages before each advance (the baseline)
    chronicle_advances: int  # measured advances (each in a fresh chronicle), per repetition


FULL = Plan(
    sizes=(10, 100, 1000),
    # At 10 pages 200 rolls: p99 of 2,000 arrivals; with 50, each roll's 10 arrivals
    # together, p99 was the one slowest roll's (and the combat ratio swung ×1.0-×2.3).
    rolls={10: 200, 100: 30, 1000: 20},
    reps=3,
    rate_clients=16,
    rate_seconds=5,
    writers=50,
    writer_seconds=20,
    writer_baseline_seconds=5,
    open_streams=1000,
    warmup_seconds=1,
    settle_open=1,
    settle_close=3,
    pause=0.5,
    combat_pages=10,
    rebuild_samples=200,
    chronicle_pages=10,
    chronicle_rolls=20,
    chronicle_advances=3,
)
QUICK = Plan(
    sizes=(5, 20),
    rolls={5: 5, 20: 5},
    reps=1,
    rate_clients=16,
    rate_seconds=1,
    writers=8,
    writer_seconds=2,
    writer_baseline_seconds=1,
    open_streams=50,
    warmup_seconds=0.3,
    settle_open=0.3,
    settle_close=1,
    pause=0.1,
    combat_pages=5,
    rebuild_samples=20,
    chronicle_pages=5,
    chronicle_rolls=3,
    chronicle_advances=1,
)

# --- clients: asyncio protocols on raw sockets ----------------------------------------------


def parse_head(head: bytes) -> tuple[int, dict[bytes, bytes]]:
    lines = head.split(b"\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        status = -1
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    return status, headers


def dechunk(raw: bytes) -> tuple[list[bytes], bytes, bool]:
    """Complete chunks at the start of `raw`: (payloads, rest, ended)."""
    parts, pos = [], 0
    while True:
        line_end = raw.find(b"\r\n", pos)
        if line_end < 0:
            return parts, raw[pos:], False
        size = int(raw[pos:line_end].split(b";", 1)[0], 16)
        if size == 0:
            return parts, b"", True
        end = line_end + 2 + size
        if len(raw) < end + 2:
            return parts, raw[pos:], False
        parts.append(raw[line_end + 2 : end])
        pos = end + 2


class FanoutRun:
    """Counts, per event id, how many streams got it, and wakes whoever waits for all."""

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}
        self.opened = 0
        self.failed = 0  # streams refused or cut off before they opened
        self.ended = 0
        self.wanted: tuple[int, int] | None = None  # (seq, streams)
        self.wake = asyncio.Event()

    def check(self) -> None:
        if not self.wanted:
            return
        seq, streams = self.wanted
        got = self.opened + self.failed if seq == 0 else self.counts.get(seq, 0)
        if got >= streams:
            self.wake.set()

    def on_open(self) -> None:
        self.opened += 1
        self.check()

    def on_fail(self) -> None:
        self.failed += 1
        self.check()

    def on_event(self, seq: int) -> None:
        self.counts[seq] = self.counts.get(seq, 0) + 1
        if self.wanted and seq == self.wanted[0]:
            self.check()

    def on_end(self) -> None:
        self.ended += 1
        self.wake.set()

    async def wait(self, seq: int, streams: int, timeout: float) -> bool:
        """Until `streams` streams got event `seq` (seq 0: until they are open)."""
        deadline = perf_counter() + timeout
        self.wanted = (seq, streams)
        try:
            while True:
                got = self.opened + self.failed if seq == 0 else self.counts.get(seq, 0)
                if got >= streams:
                    return True
                left = deadline - perf_counter()
                if left <= 0:
                    return False
                self.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), left)
        finally:
            self.wanted = None


class Stream(asyncio.Protocol):
    """One open page: a GET that holds a Server-Sent Events stream on its own connection.

    Records when the first body bytes came (`opened_at`) and, for every event (a block
    with `data:` lines), its `id:` and the time its last byte arrived."""

    def __init__(self, run: FanoutRun, request: bytes) -> None:
        self.run = run
        self.request = request
        self.transport = None
        self.head = b""
        self.in_body = False
        self.chunked = False
        self.raw = b""
        self.sse = b""
        self.status = 0
        self.error = ""
        self.opened_at: float | None = None
        self.last_id = b""
        self.event_bytes = 0
        self.ids: list[int] = []
        self.times: list[float] = []
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport) -> None:
        self.transport = transport
        transport.write(self.request)

    def connection_lost(self, exc) -> None:
        if not self.error and self.opened_at is None:
            self.error = f"closed before the stream opened ({exc or 'EOF'})"
            self.run.on_fail()
        if not self.closed.done():
            self.closed.set_result(None)
        self.run.on_end()

    def data_received(self, data: bytes) -> None:
        now = perf_counter()
        if not self.in_body:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            data = self.head[end + 4 :]
            self.status, headers = parse_head(self.head[:end])
            self.head = b""
            self.in_body = True
            self.chunked = b"chunked" in headers.get(b"transfer-encoding", b"").lower()
            if self.status != 200:
                self.error = f"HTTP {self.status}"
                self.run.on_fail()
                self.transport.close()
                return
        if self.chunked:
            parts, self.raw, ended = dechunk(self.raw + data)
            data = b"".join(parts)
            if ended:
                self.transport.close()
        if not data:
            return
        if self.opened_at is None:
            self.opened_at = now
            self.run.on_open()
        sse = (self.sse + data).replace(b"\r\n", b"\n")
        pos = 0
        while (end := sse.find(b"\n\n", pos)) >= 0:
            self.dispatch(sse[pos:end], now)
            pos = end + 2
        self.sse = sse[pos:]

    def dispatch(self, block: bytes, now: float) -> None:
        has_data = False
        for line in block.split(b"\n"):
            if line.startswith(b"id:"):
                self.last_id = line[3:].strip()
            elif line.startswith(b"data"):
                has_data = True
        if has_data:
            self.event_bytes = len(block)
            try:
                seq = int(self.last_id)
            except ValueError:
                seq = -1
            self.ids.append(seq)
            self.times.append(now)
            self.run.on_event(seq)

    def close(self) -> None:
        if self.transport and not self.transport.is_closing():
            self.transport.close()


class HttpConnection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection; `request` sends raw bytes, returns (status, body)."""

    def __init__(self) -> None:
        self.transport = None
        self.buf = b""
        self.waiter: asyncio.Future | None = None
        self.head_end = -1
        self.status = 0
        self.length = 0
        self.chunked = False
        self.close_after = False
        self.lost = False

    def connection_made(self, transport) -> None:
        self.transport = transport

    def connection_lost(self, exc) -> None:
        self.lost = True
        if self.waiter and not self.waiter.done():
            self.waiter.set_exception(ConnectionError(f"connection closed ({exc or 'EOF'})"))

    async def request(self, raw: bytes, timeout: float) -> tuple[int, bytes]:
        self.waiter = asyncio.get_running_loop().create_future()
        self.buf, self.head_end = b"", -1
        self.transport.write(raw)
        return await asyncio.wait_for(self.waiter, timeout)

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if self.waiter is None or self.waiter.done():
            return
        if self.head_end < 0:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            self.status, headers = parse_head(self.buf[:end])
            self.head_end = end + 4
            self.chunked = b"chunked" in headers.get(b"transfer-encoding", b"").lower()
            self.length = int(headers.get(b"content-length", b"0") or 0)
            self.close_after = headers.get(b"connection", b"").lower() == b"close"
        body = self.buf[self.head_end :]
        if self.chunked:
            parts, _rest, ended = dechunk(body)
            if not ended:
                return
            body = b"".join(parts)
        elif len(body) < self.length:
            return
        self.waiter.set_result((self.status, body))


class Client:
    """A keep-alive client of one server; reconnects when the server closed the connection."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn: HttpConnection | None = None

    async def connect(self) -> None:
        if self.conn is None or self.conn.lost or self.conn.close_after:
            self.close()
            loop = asyncio.get_running_loop()
            _t, self.conn = await loop.create_connection(HttpConnection, "127.0.0.1", self.port)

    async def send(self, raw: bytes, timeout: float = 30) -> tuple[int, bytes]:
        await self.connect()
        try:
            return await self.conn.request(raw, timeout)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self.conn and self.conn.transport:
            self.conn.transport.close()
        self.conn = None


def cookie(session: str | None) -> str:
    if session is None:
        return f"csrftoken={CSRF_TOKEN}"
    return f"sessionid={session}; csrftoken={CSRF_TOKEN}"


def get(port: int, path: str, session: str | None = None) -> bytes:
    cookies = f"Cookie: {cookie(session)}\r\n" if session else ""
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{cookies}\r\n".encode()


def post(
    port: int, path: str, session: str | None, fields: dict[str, str], idempotency: bool = True
) -> bytes:
    """A POST as htmx sends it: form fields, CSRF cookie and header, HX-Request, and a fresh
    idempotency key (a later version of the server may require one; not for a combat
    command, whose form fields are the command's and whose version makes it idempotent)."""
    if idempotency:
        fields = fields | {"idempotency_key": secrets.token_urlsafe(16)}
    body = urllib.parse.urlencode(fields)
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie(session)}\r\n"
        f"X-CSRFToken: {CSRF_TOKEN}\r\nHX-Request: true\r\n"
        f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n"
        f"\r\n{body}"
    ).encode()


def post_json(port: int, path: str, session: str, data: dict) -> bytes:
    """A POST to the JSON API: session and CSRF cookies, the token in X-CSRFToken."""
    body = json.dumps(data).encode()
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie(session)}\r\n"
        f"X-CSRFToken: {CSRF_TOKEN}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


ROLL_FIELDS = {"mode": "hand", "hand": "1B", "purpose": "test"}


def refused_in_body(body: bytes) -> bool:
    """The roll view answers 200 with the form's errors when it refuses a roll."""
    return b'class="error"' in body


def roll_check(status: int, body: bytes):
    if status != 200:
        return f"HTTP {status}"
    if refused_in_body(body):
        return "refused (form error)"
    return None


# The goal compares the command (validated, stored, broadcast) with a roll: the fan-out row
# and the JSON API's answer. The form's answer adds rendering the GM's whole panel (about
# 12 KB of HTML, a roll's answer is under 1 KB): measured beside them, without a goal.
PANEL_NOTE = "none (the panel's rendering on top of the command; information)"
PANEL_VERSION = re.compile(rb'id="encounter-state"[^>]*?data-version="(\d+)"')


class Combat:
    """One encounter of two NPCs (seeded by bench/live_db.py) whose active combatant the GM
    keeps ending the activation of, each command made against the version the previous
    answer showed. Every command is an end_activation, so the active combatant follows
    from the version: the order, one step per version since the seeded start.

    `form()`/`form_answer()` are a phone's click (POST /encounters/<id>/command/ with
    HX-Request, answered with the re-rendered panel); `api()`/`api_answer()` the same
    command through the JSON API. An answer's check returns None when it was accepted and
    shows the next version, else the problem; a refused command's answer (409: the
    situation changed) tells the version to go on from."""

    def __init__(self, port: int, session: str, seeded: dict) -> None:
        self.port, self.session, self.id = port, session, seeded["id"]
        self.order = seeded["order"]
        self.start = (seeded["version"], self.order.index(seeded["active"]))
        self.version = seeded["version"]

    @property
    def active(self) -> str:
        version, index = self.start
        return self.order[(index + self.version - version) % len(self.order)]

    def command(self) -> dict:
        return {"type": "end_activation", "id": self.active}

    def form(self) -> bytes:
        fields = {"version": str(self.version)} | self.command()
        return post(self.port, f"/encounters/{self.id}/command/", self.session, fields, False)

    def form_answer(self, status: int, body: bytes) -> str | None:
        found = PANEL_VERSION.search(body)
        shown = int(found[1]) if found else None
        if status == 200 and shown == self.version + 1 and b"combat-error" not in body:
            self.version = shown
            return None
        if shown is not None:
            self.version = shown
        return f"HTTP {status}" + ("" if status != 200 else f", panel at v{shown}")

    def api(self) -> bytes:
        path = f"/api/v1/encounters/{self.id}/commands"
        return post_json(
            self.port, path, self.session, {"version": self.version, "command": self.command()}
        )

    def api_answer(self, status: int, body: bytes) -> str | None:
        try:
            data = json.loads(body)
        except ValueError:
            data = {}
        version = data.get("version") if isinstance(data, dict) else None
        if status == 200 and version == self.version + 1:
            self.version = version
            active = data.get("state", {}).get("active")
            return None if active == self.active else f"active {active}, not {self.active}"
        if isinstance(version, int):
            self.version = version
        return f"HTTP {status}"


@dataclass
class Action:
    """What a fan-out run posts, and how its answer is checked (None: accepted)."""

    request: Callable[[], bytes]
    check: Callable[[int, bytes], str | None]


ADVANCE_WEEK = {"type": "advance", "amount": 1, "unit": "weeks"}


class Advance:
    """The GM's "advance 1 week" in one seeded chronicle (bench/live_db.py
    `wounded_chronicle`), through the JSON API, made once against the seeded version; its
    answer must show the next version. `answer`: the answer's size and log lines."""

    def __init__(self, port: int, session: str, seeded: dict) -> None:
        self.port, self.session, self.seeded = port, session, seeded
        self.answer: dict = {}

    def request(self) -> bytes:
        path = f"/api/v1/encounters/{self.seeded['id']}/commands"
        body = {"version": self.seeded["version"], "command": ADVANCE_WEEK}
        return post_json(self.port, path, self.session, body)

    def check(self, status: int, body: bytes) -> str | None:
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        data = data if isinstance(data, dict) else {}
        self.answer = {"bytes": len(body), "lines": len(data.get("lines") or [])}
        if status == 200 and data.get("version") == self.seeded["version"] + 1:
            return None
        return f"HTTP {status}" + (f" ({data['error']})" if data.get("error") else "")


# --- servers ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> list[int]:
    """Every descendant of `pid` (granian's workers), from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        kids = [p for p, pp in parents.items() if pp == parent]
        found += kids
        frontier += kids
    return found


def rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


@dataclass
class Server:
    name: str
    port: int
    process: subprocess.Popen
    log: Path
    granian: bool

    def worker_rss_kib(self) -> int:
        """VmRSS of granian's worker processes (the minimal server: its one process)."""
        pids = children(self.process.pid) if self.granian else [self.process.pid]
        return sum(rss_kib(pid) for pid in pids)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)  # its own group (start_new_session)
                self.process.wait(timeout=5)


def wait_up(server: Server, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"{server.name} exited:\n{server.log.read_text()[-3000:]}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{server.port}/healthz", timeout=2).read()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{server.name} did not answer /healthz:\n{server.log.read_text()[-3000:]}")


def start(
    name: str, command: list[str], env: dict, cwd: Path, workdir: Path, port: int, granian: bool
) -> Server:
    log = workdir / f"{name}.log"
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    return Server(name, port, process, log, granian)


def site_env(site: Path, workdir: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}
        and not key.startswith("GRANIAN_")
    }
    return env | {
        "DJANGO_SETTINGS_MODULE": "aoristos_site.settings",
        "DATA_DIR": str(workdir / "data"),
        "SQLITE_PATH": str(workdir / "data" / "db.sqlite3"),
        "STATIC_ROOT": str(workdir / "static"),
        "SECRET_KEY": SECRET_KEY,
        "LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(site),
    }


def redis_answers(url: str) -> bool:
    parsed = urllib.parse.urlparse(url)
    try:
        with socket.create_connection((parsed.hostname, parsed.port or 6379), timeout=2) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def run_site_script(site: Path, env: dict, *args: str) -> None:
    subprocess.run([sys.executable, *args], cwd=site, env=env, check=True, timeout=300)


def db_script(site: Path, env: dict, workdir: Path, command: str, arguments: dict) -> dict:
    out = workdir / f"{command}-{secrets.token_hex(4)}.json"
    run_site_script(
        site, env, str(BENCH / "live_db.py"), command, json.dumps(arguments | {"out": str(out)})
    )
    return json.loads(out.read_text())


# --- measurements -------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Target:
    """Where pages open their streams and where rolls are posted."""

    name: str
    stream_ports: list[int]  # pages split evenly between these
    post_port: int
    stream_path: str  # with {after}
    roll_path: str
    roller: str | None  # session of whoever rolls
    counter: dict  # {"seq": last event number}, shared by targets on one database


async def open_streams(
    run: FanoutRun, target: Target, sessions: list[str], after: int
) -> list[Stream]:
    loop = asyncio.get_running_loop()
    path = target.stream_path.format(after=after)

    async def one(i: int, session: str) -> Stream:
        port = target.stream_ports[i % len(target.stream_ports)]
        request = get(port, path, session)
        request = request[:-2] + b"Accept: text/event-stream\r\n\r\n"
        try:
            _t, stream = await loop.create_connection(
                lambda: Stream(run, request), "127.0.0.1", port
            )
        except OSError as error:
            stream = Stream(run, request)
            stream.error = f"connect: {error}"
            run.on_fail()
        return stream

    return list(await asyncio.gather(*(one(i, s) for i, s in enumerate(sessions))))


async def close_streams(streams: list[Stream], timeout: float = 10) -> None:
    for stream in streams:
        stream.close()
    pending = [s.closed for s in streams if s.transport is not None]
    if pending:
        await asyncio.wait(pending, timeout=timeout)


async def fanout_once(
    target: Target,
    sessions: list[str],
    rolls: int,
    action: Action | None = None,
    timeout: float = 10,
) -> dict:
    """Open the pages' streams, post `rolls` rolls (or `action`s: each must make one event)
    one after the other, each once the previous reached every stream (or after `timeout`
    seconds)."""
    if action is None:
        action = Action(
            lambda: post(target.post_port, target.roll_path, target.roller, ROLL_FIELDS),
            roll_check,
        )
    run = FanoutRun()
    after = target.counter["seq"]
    streams = await open_streams(run, target, sessions, after)
    await run.wait(0, len(streams), timeout=60)
    live = [s for s in streams if s.opened_at is not None and not s.error]
    poster = Client(target.post_port)
    with contextlib.suppress(OSError):  # so that no roll's time includes connecting
        await poster.connect()
    posted: dict[int, float] = {}
    answers: list[float] = []
    post_errors = []
    seq = after
    for _ in range(rolls):
        seq += 1
        request = action.request()
        posted[seq] = perf_counter()
        try:
            status, body = await poster.send(request, timeout=max(30, timeout))
            answers.append((perf_counter() - posted[seq]) * 1000)
            problem = action.check(status, body)
            if problem:
                post_errors.append(problem)
        except (OSError, TimeoutError) as error:
            post_errors.append(repr(error))
        alive = sum(1 for s in live if not s.closed.done())
        await run.wait(seq, alive, timeout=timeout)
        await asyncio.sleep(0.01)
    poster.close()
    await close_streams(streams)
    target.counter["seq"] = max([seq] + [max(s.ids) for s in streams if s.ids])
    expected = list(posted)
    latencies = []
    delivered = incomplete = misordered = 0
    for stream in streams:
        seen = set()
        for seq_, at in zip(stream.ids, stream.times, strict=True):
            if seq_ in posted and seq_ not in seen:
                seen.add(seq_)
                latencies.append((at - posted[seq_]) * 1000)
        delivered += len(seen)
        if stream.ids != expected:
            incomplete += 1  # missed, repeated, foreign or reordered events, or refused
            ours = [seq_ for seq_ in stream.ids if seq_ in posted]
            if ours != sorted(set(ours)):
                misordered += 1
    errors = sorted({s.error for s in streams if s.error})
    return {
        "p50": pct(latencies, 0.50),
        "p99": pct(latencies, 0.99),
        "max": max(latencies, default=float("nan")),
        "delivered": delivered,
        "expected": len(sessions) * rolls,
        "incomplete": incomplete,
        "misordered": misordered,
        "stream_errors": errors,
        "refused": sum(1 for s in streams if s.error),
        "post_errors": post_errors,
        "event_bytes": max((s.event_bytes for s in streams), default=0),
        "answer_p50": pct(answers, 0.50),
        "answer_p99": pct(answers, 0.99),
    }


async def load(port: int, requests, clients: int, seconds: float, check=None) -> dict:
    """`clients` keep-alive connections each sending `requests(i)` back to back for
    `seconds`: completed requests, latencies and failures (`check(i, status, body)`: the
    problem with client i's answer, None when it is fine; default: not 200)."""
    latencies: list[float] = []
    failures: dict[str, int] = {}
    stop_at = perf_counter() + seconds

    async def worker(i: int) -> None:
        client = Client(port)
        try:
            with contextlib.suppress(OSError):  # else counted as a failure below
                await client.connect()
            while perf_counter() < stop_at:
                raw = requests(i)
                began = perf_counter()
                try:
                    status, body = await client.send(raw)
                except (OSError, TimeoutError) as error:
                    failures[type(error).__name__] = failures.get(type(error).__name__, 0) + 1
                    await asyncio.sleep(0.05)
                    continue
                latencies.append((perf_counter() - began) * 1000)
                problem = check(i, status, body) if check else (None if status == 200 else status)
                if problem:
                    failures[str(problem)] = failures.get(str(problem), 0) + 1
        finally:
            client.close()

    began = perf_counter()
    await asyncio.gather(*(worker(i) for i in range(clients)))
    elapsed = perf_counter() - began
    return {
        "count": len(latencies),
        "rate": len(latencies) / elapsed,
        "p50": pct(latencies, 0.50),
        "p99": pct(latencies, 0.99),
        "max": max(latencies, default=float("nan")),
        "failures": failures,
    }


async def writers_once(port: int, seed: dict, seconds: float) -> dict:
    """Every writer cycles roll, spend, roll, undo on its own keep-alive connection.
    A write is acknowledged when it answers 200 (and, for a roll, without a form error)."""
    campaign = seed["campaign"]
    key = seed["spend_key"]
    acked = {w["user"]: {"roll": 0, "spend": 0, "undo": 0} for w in seed["writers"]}
    sent = {w["user"]: {"roll": 0, "spend": 0, "undo": 0} for w in seed["writers"]}
    latencies: list[float] = []
    failures: dict[str, int] = {}
    stop_at = perf_counter() + seconds

    async def writer(w: dict) -> None:
        client = Client(port)
        step = 0
        pending_undo = False
        try:
            with contextlib.suppress(OSError):  # else counted as a failure below
                await client.connect()
            while perf_counter() < stop_at:
                if step % 2 == 0:
                    kind = "roll"
                    raw = post(
                        port, f"/campaigns/{campaign}/table/roll/", w["session"], ROLL_FIELDS
                    )
                else:
                    kind = "undo" if pending_undo else "spend"
                    path = f"/characters/{w['character']}/advancement/{kind}/"
                    raw = post(port, path, w["session"], {"key": key})
                step += 1
                sent[w["user"]][kind] += 1
                began = perf_counter()
                try:
                    status, body = await client.send(raw)
                except (OSError, TimeoutError) as error:
                    failures[type(error).__name__] = failures.get(type(error).__name__, 0) + 1
                    continue
                latencies.append((perf_counter() - began) * 1000)
                problem = (
                    roll_check(status, body)
                    if kind == "roll"
                    else (None if status == 200 else f"HTTP {status} on {kind}")
                )
                if problem:
                    failures[problem] = failures.get(problem, 0) + 1
                    continue
                acked[w["user"]][kind] += 1
                if kind != "roll":
                    pending_undo = kind == "spend"
        finally:
            client.close()

    began = perf_counter()
    await asyncio.gather(*(writer(w) for w in seed["writers"]))
    elapsed = perf_counter() - began
    return {
        "count": len(latencies),
        "rate": len(latencies) / elapsed,
        "p50": pct(latencies, 0.50),
        "p99": pct(latencies, 0.99),
        "max": max(latencies, default=float("nan")),
        "failures": failures,
        "acked": acked,
        "sent": sent,
    }


def lost_writes(result: dict, db: dict, before: dict) -> dict:
    """Compare what the server acknowledged with what the database holds (this run's
    share: the database's counts minus those before the run)."""
    lost = extra = ledger_mismatch = 0
    for user, acked in result["acked"].items():
        stored = db["rolls_per_actor"].get(user, 0) - before["rolls_per_actor"].get(user, 0)
        lost += max(0, acked["roll"] - stored)
        extra += max(0, stored - result["sent"][user]["roll"])
        ledger, old = db["ledgers"][user], before["ledgers"][user]
        for kind in ("spend", "undo"):
            stored = ledger[f"{kind}s"] - old[f"{kind}s"]
            if not acked[kind] <= stored <= result["sent"][user][kind]:
                ledger_mismatch += 1
    problems = [p for ledger in db["ledgers"].values() for p in ledger["problems"]]
    return {
        "lost": lost,
        "extra": extra,
        "ledger_mismatch": ledger_mismatch,
        "ledger_problems": problems,
        "seqs_ok": db["seqs_contiguous"] and db["event_seq_matches"],
        "rolls_in_db": db["rolls"],
    }


async def open_once(
    server: Server, target: Target, sessions: list[str], settle_open: float, settle_close: float
) -> dict:
    """Open all `sessions`' streams at once on a server that has just started."""
    target = dataclasses.replace(target, stream_ports=[server.port], post_port=server.port)
    warm = await open_streams(FanoutRun(), target, sessions[:1], target.counter["seq"])
    await asyncio.sleep(0.5)  # the first stream loads what every stream needs
    await close_streams(warm)
    await asyncio.sleep(0.5)
    run = FanoutRun()
    before = server.worker_rss_kib()
    began = perf_counter()
    streams = await open_streams(run, target, sessions, target.counter["seq"])
    await run.wait(0, len(streams), timeout=60)
    opened = [s for s in streams if s.opened_at is not None and not s.error]
    all_open = max((s.opened_at for s in opened), default=began) - began
    await asyncio.sleep(settle_open)
    during = server.worker_rss_kib()
    still_open = sum(1 for s in opened if not s.closed.done())
    await close_streams(streams)
    await asyncio.sleep(settle_close)  # time for the server to notice and let go
    after = server.worker_rss_kib()
    # A second round with the same pages: memory that was kept is reused, not grown.
    again = FanoutRun()
    streams = await open_streams(again, target, sessions, target.counter["seq"])
    await again.wait(0, len(streams), timeout=60)
    await asyncio.sleep(settle_open)
    await close_streams(streams)
    await asyncio.sleep(settle_close)
    after_again = server.worker_rss_kib()
    return {
        "rss_after_again": after_again,
        "regrown": after_again - after,
        "seconds": all_open,
        "opened": len(opened),
        "still_open": still_open,
        "wanted": len(sessions),
        "errors": sorted({s.error for s in streams if s.error}),
        "rss_before": before,
        "rss_open": during,
        "rss_after": after,
        "per_stream": (during - before) / max(1, len(opened)),
        "kept": after - before,
    }


# --- the run -------------------------------------------------------------------------------------


def med(results: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in results)


@dataclass
class Row:
    name: str
    value: str = ""
    p50: str = ""
    p99: str = ""
    max: str = ""
    delivered: str = ""
    baseline: str = ""
    ratio: str = ""
    goal: str = ""
    ok: str = ""


def ms(value: float) -> str:
    if value != value:  # nan
        return "–"
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def verdict(ok: bool | None) -> str:
    return {True: "yes", False: "**NO**", None: "–"}[ok]


@dataclass
class Bench:
    plan: Plan
    site: Path
    workdir: Path
    redis_note: str  # why the Redis rows were skipped, if they were
    fresh: Callable[[str, bool], Server]  # starts a server (granian or not) and waits for it
    # what the combat rows are made of, by the phases that measure it beside the roll
    combat: dict = dataclasses.field(default_factory=dict)

    def say(self, text: str) -> None:
        print(text, flush=True)

    async def fanout(self, seed: dict, baseline: Target, targets: list[Target]) -> list[Row]:
        plan = self.plan
        results: dict[tuple[str, int], list[dict]] = {}
        players = seed["fanout"]["players"]
        # A combat command on the one-process server, at one page count, right after the
        # roll there: the GM ends the active NPC's activation in the fan-out campaign.
        single = targets[0]
        fight = Combat(single.post_port, seed["fanout"]["gm"], seed["fanout"]["encounter"])
        command = Action(fight.form, fight.form_answer)
        combat_runs = self.combat.setdefault("fanout", [])
        for target in [baseline, *targets]:  # warm up: first requests, templates, threads
            await fanout_once(target, players[:4], 3)
        await fanout_once(single, players[:4], 3, command)
        for rep in range(plan.reps):
            for size in plan.sizes:
                for target in [baseline, *targets]:
                    result = await fanout_once(target, players[:size], plan.rolls[size])
                    results.setdefault((target.name, size), []).append(result)
                    self.say(
                        f"  fan-out rep {rep + 1}/{plan.reps}, {size} pages, {target.name}: "
                        f"p50 {ms(result['p50'])} ms, p99 {ms(result['p99'])} ms, "
                        f"{result['delivered']}/{result['expected']} delivered, "
                        f"{result['incomplete']} streams incomplete, "
                        f"events of {result['event_bytes']} bytes"
                        + (
                            f", streams refused: {result['stream_errors']}"
                            if result["stream_errors"]
                            else ""
                        )
                        + (
                            f", roll errors: {result['post_errors'][:3]}"
                            if result["post_errors"]
                            else ""
                        )
                    )
                    await asyncio.sleep(plan.pause)
                if size == plan.combat_pages:
                    first = fight.version
                    result = await fanout_once(single, players[:size], plan.rolls[size], command)
                    result["versions"] = (first, fight.version)
                    result["roll"] = results[(single.name, size)][-1]  # just before, same pages
                    combat_runs.append(result)
                    self.say(
                        f"  fan-out rep {rep + 1}/{plan.reps}, {size} pages, combat command: "
                        f"p50 {ms(result['p50'])} ms, p99 {ms(result['p99'])} ms, "
                        f"{result['delivered']}/{result['expected']} delivered, "
                        f"{result['incomplete']} streams incomplete, "
                        f"events of {result['event_bytes']} bytes"
                        + (
                            f", errors: {result['post_errors'][:3]}"
                            if result["post_errors"]
                            else ""
                        )
                    )
                    await asyncio.sleep(plan.pause)
        rows = []
        for target, factor in [(t, 1.5 if len(t.stream_ports) == 1 else 3.0) for t in targets]:
            for size in plan.sizes:
                got = results[(target.name, size)]
                base = results[(baseline.name, size)]
                p99, base_p99 = med(got, "p99"), med(base, "p99")
                delivered = sum(r["delivered"] for r in got)
                expected = sum(r["expected"] for r in got)
                incomplete = sum(r["incomplete"] for r in got)
                misordered = sum(r["misordered"] for r in got)
                ratio = p99 / base_p99 if base_p99 else float("inf")
                all_there = delivered == expected and not incomplete
                refused = sum(r["refused"] for r in got)
                errors = sorted({e for r in got for e in r["stream_errors"]})
                post_errors = sum(len(r["post_errors"]) for r in got)
                rows.append(
                    Row(
                        name=f"fan-out, {target.name}, {size:,} pages",
                        value=f"{plan.rolls[size]} rolls × {plan.reps}",
                        p50=ms(med(got, "p50")),
                        p99=ms(p99),
                        max=ms(med(got, "max")),
                        delivered=f"{delivered:,}/{expected:,}"
                        + (
                            "; every stream got every roll, in order"
                            if not incomplete
                            else f"; {incomplete} streams not all in order"
                        )
                        + (f" ({misordered} out of order or repeated)" if misordered else "")
                        + (f"; {refused} streams refused/cut: {errors[:2]}" if refused else "")
                        + (f"; {post_errors} roll POSTs failed" if post_errors else ""),
                        baseline=f"p99 {ms(base_p99)} ms (p50 {ms(med(base, 'p50'))})",
                        ratio=f"×{ratio:.2f}",
                        goal=f"p99 ≤ {factor}× baseline, all delivered in order",
                        ok=verdict(ratio <= factor and all_there),
                    )
                )
        if len(targets) == 1:  # no Redis
            rows += [
                Row(
                    name=f"fan-out, Redis, 2 processes, {size:,} pages",
                    value=self.redis_note,
                    goal="p99 ≤ 3.0× baseline, all delivered in order",
                    ok="skipped",
                )
                for size in plan.sizes
            ]
        return rows

    async def rate(self, server: Server, seed: dict) -> list[Row]:
        plan, port, campaign = self.plan, server.port, seed["rate"]["campaign"]
        sessions = seed["rate"]["players"]

        def health(i: int) -> bytes:
            return get(port, "/healthz")

        def roll(i: int) -> bytes:
            path = f"/campaigns/{campaign}/table/roll/"
            return post(port, path, sessions[i % len(sessions)], ROLL_FIELDS)

        # The same load of combat commands: client i is the GM (a session of its own) ending
        # activations in encounter i of the same campaign, so that no command is stale.
        n = plan.rate_clients
        fights = [
            Combat(port, seed["rate"]["gm"][i], seed["rate"]["encounters"][i]) for i in range(n)
        ]
        combat_loads = {
            "form": (lambda i: fights[i].form(), lambda i, s, b: fights[i].form_answer(s, b)),
            "api": (lambda i: fights[i].api(), lambda i, s, b: fights[i].api_answer(s, b)),
        }
        await load(port, health, n, plan.warmup_seconds)
        await load(port, roll, n, plan.warmup_seconds)
        for requests, check in combat_loads.values():
            await load(port, requests, n, plan.warmup_seconds, check)
        rolls, healths = [], []
        combats: dict[str, list[dict]] = {kind: [] for kind in combat_loads}
        for rep in range(plan.reps):
            healths.append(await load(port, health, n, plan.rate_seconds))
            rolls.append(
                await load(port, roll, n, plan.rate_seconds, lambda i, s, b: roll_check(s, b))
            )
            for kind, (requests, check) in combat_loads.items():
                first = min(f.version for f in fights)
                combats[kind].append(await load(port, requests, n, plan.rate_seconds, check))
                combats[kind][-1]["versions"] = (first, max(f.version for f in fights))
            self.say(
                f"  roll rate rep {rep + 1}/{plan.reps}: /healthz "
                f"{healths[-1]['rate']:.0f} req/s p99 {ms(healths[-1]['p99'])} ms; roll "
                f"{rolls[-1]['rate']:.0f} req/s p99 {ms(rolls[-1]['p99'])} ms"
                + (f"; failures {rolls[-1]['failures']}" if rolls[-1]["failures"] else "")
                + "".join(
                    f"; combat ({kind}) {got[-1]['rate']:.0f} req/s p50 {ms(got[-1]['p50'])} "
                    f"ms p99 {ms(got[-1]['p99'])} ms"
                    + (f", failures {got[-1]['failures']}" if got[-1]["failures"] else "")
                    for kind, got in combats.items()
                )
            )
        self.combat["rate"] = {"rolls": rolls, **combats}
        rate, base_rate = med(rolls, "rate"), med(healths, "rate")
        p99, base_p99 = med(rolls, "p99"), med(healths, "p99")
        failures = sum(sum(r["failures"].values()) for r in rolls + healths)
        count = sum(r["count"] for r in rolls)
        errors = f"{failures} errors" if failures else "0 errors"
        errors += f" in {count:,} rolls"
        return [
            Row(
                name=f"roll POST req/s, {n} clients",
                value=f"{rate:,.0f} req/s",
                p50=ms(med(rolls, "p50")),
                p99=ms(p99),
                max=ms(med(rolls, "max")),
                delivered=errors,
                baseline=f"/healthz {base_rate:,.0f} req/s",
                ratio=f"{rate / base_rate:.0%}",
                goal="≥ 50 % of /healthz req/s",
                ok=verdict(rate >= 0.5 * base_rate and not failures),
            ),
            Row(
                name=f"roll POST p99, {n} clients",
                value=f"{ms(p99)} ms",
                p50=ms(med(rolls, "p50")),
                p99=ms(p99),
                max=ms(med(rolls, "max")),
                delivered=errors,
                baseline=f"/healthz p99 {ms(base_p99)} ms",
                ratio=f"+{p99 - base_p99:.1f} ms",
                goal="≤ /healthz p99 + 10 ms",
                ok=verdict(p99 <= base_p99 + 10 and not failures),
            ),
        ]

    async def writers(self, server: Server, seed: dict, env: dict) -> list[Row]:
        plan, port = self.plan, server.port

        def health(i: int) -> bytes:
            return get(port, "/healthz")

        results, healths, checks = [], [], []
        campaign = seed["writers"]["campaign"]
        for rep in range(plan.reps):
            before = await asyncio.to_thread(
                db_script, self.site, env, self.workdir, "check", {"campaign": campaign}
            )
            healths.append(await load(port, health, plan.writers, plan.writer_baseline_seconds))
            result = await writers_once(port, seed["writers"], plan.writer_seconds)
            db = await asyncio.to_thread(
                db_script, self.site, env, self.workdir, "check", {"campaign": campaign}
            )
            checks.append(lost_writes(result, db, before))
            results.append(result)
            self.say(
                f"  writers rep {rep + 1}/{plan.reps}: {result['count']} writes, p99 "
                f"{ms(result['p99'])} ms, failures {result['failures'] or 0}, "
                f"check {checks[-1]}"
            )
        failures: dict[str, int] = {}
        for result in results:
            for key, count in result["failures"].items():
                failures[key] = failures.get(key, 0) + count
        count = sum(r["count"] for r in results)
        errors = sum(failures.values())
        p99 = med(results, "p99")
        lost = sum(c["lost"] for c in checks)
        extra = sum(c["extra"] for c in checks)
        mismatch = sum(c["ledger_mismatch"] for c in checks)
        problems = [p for c in checks for p in c["ledger_problems"]]
        seqs_ok = all(c["seqs_ok"] for c in checks)
        consistent = not (lost or extra or mismatch or problems) and seqs_ok
        n, seconds = plan.writers, f"{plan.writer_seconds:g} s"
        acked = sum(a["roll"] for r in results for a in r["acked"].values())
        return [
            Row(
                name=f"{n} writers, {seconds}: errors and p99",
                value=f"{med(results, 'rate'):,.0f} writes/s",
                p50=ms(med(results, "p50")),
                p99=ms(p99),
                max=ms(med(results, "max")),
                delivered=(f"{errors} errors: {failures}" if errors else "0 errors")
                + f" in {count:,} writes",
                baseline=f"/healthz, {n} clients: p99 {ms(med(healths, 'p99'))} ms, "
                f"{med(healths, 'rate'):,.0f} req/s",
                ratio=f"×{p99 / med(healths, 'p99'):.1f}",
                goal="0 errors (5xx, refused, dropped), p99 ≤ 100 ms",
                ok=verdict(errors == 0 and p99 <= 100),
            ),
            Row(
                name=f"{n} writers, {seconds}: lost writes",
                value=f"{lost} lost",
                delivered=f"{acked:,} acknowledged rolls; seqs "
                + ("contiguous" if seqs_ok else "NOT contiguous")
                + (
                    "; ledgers consistent"
                    if not (mismatch or problems)
                    else f"; ledger: {mismatch} count mismatches, problems {problems[:3]}"
                )
                + (f"; {extra} unacknowledged rolls stored" if extra else ""),
                goal="0 lost, seqs 1..n, ledger consistent",
                ok=verdict(consistent),
            ),
        ]

    async def rebuild(self, env: dict) -> None:
        """Rebuilding an encounter's state from its log, in a Django script (live_db.py)
        beside reading the same rows undecoded; the rows come in `combat_rows`."""
        arguments = {
            "events": REBUILD_EVENTS,
            "records": REBUILD_RECORDS,
            "samples": self.plan.rebuild_samples,
            "reps": self.plan.reps,
        }
        result = await asyncio.to_thread(
            db_script, self.site, env, self.workdir, "rebuild", arguments
        )
        self.combat["rebuild"] = result
        for goal in ("events", "records"):
            got = result[goal]
            self.say(
                f"  rebuild {got['records']} records / {got['events']} events: fold p50 "
                + ", ".join(ms(r["fold_p50"]) for r in got["reps"])
                + " ms; reading the rows p50 "
                + ", ".join(ms(r["raw_p50"]) for r in got["reps"])
                + " ms"
            )

    def combat_rows(self) -> list[Row]:
        """The combat command beside the roll measured in the same phase (its fan-out right
        after the roll's at the same page count, its load right after the roll's), and the
        rebuild beside reading its rows."""
        plan, rows = self.plan, []
        goal = "p50 and p99 ≤ 2× the roll's"

        def ratios(got: list[dict], roll: list[dict]) -> tuple[str, bool]:
            p50 = med(got, "p50") / med(roll, "p50")
            p99 = med(got, "p99") / med(roll, "p99")
            return f"p50 ×{p50:.2f}, p99 ×{p99:.2f}", p50 <= 2 and p99 <= 2

        fanout = self.combat.get("fanout")
        size = plan.combat_pages
        name = f"combat command, fan-out to {size:,} pages (1 process)"
        if fanout:
            rolls = [r["roll"] for r in fanout]
            delivered = sum(r["delivered"] for r in fanout)
            expected = sum(r["expected"] for r in fanout)
            incomplete = sum(r["incomplete"] for r in fanout)
            misordered = sum(r["misordered"] for r in fanout)
            refused = sum(r["refused"] for r in fanout)
            post_errors = [e for r in fanout for e in r["post_errors"]]
            all_there = delivered == expected and not incomplete and not post_errors
            ratio, within = ratios(fanout, rolls)
            rows.append(
                Row(
                    name=name,
                    value=f"{plan.rolls[size]} commands × {len(fanout)}",
                    p50=ms(med(fanout, "p50")),
                    p99=ms(med(fanout, "p99")),
                    max=ms(med(fanout, "max")),
                    delivered=f"{delivered:,}/{expected:,}"
                    + (
                        "; every stream got every command, in order"
                        if not incomplete
                        else f"; {incomplete} streams not all in order"
                    )
                    + (f" ({misordered} out of order or repeated)" if misordered else "")
                    + (f"; {refused} streams refused/cut" if refused else "")
                    + (f"; {len(post_errors)} POSTs failed: {post_errors[:2]}" * bool(post_errors))
                    + f"; encounter at v{fanout[0]['versions'][0]}–v{fanout[-1]['versions'][1]}"
                    + f"; own answer p50 {ms(med(fanout, 'answer_p50'))} ms "
                    f"(roll {ms(med(rolls, 'answer_p50'))})"
                    + f"; events of {max(r['event_bytes'] for r in fanout)} bytes "
                    f"(roll {max(r['event_bytes'] for r in rolls)})",
                    baseline=f"roll: p50 {ms(med(rolls, 'p50'))}, p99 {ms(med(rolls, 'p99'))} ms",
                    ratio=ratio,
                    goal=goal + ", all delivered in order",
                    ok=verdict(within and all_there),
                )
            )
        elif "fanout_skipped" in self.combat:
            rows.append(Row(name=name, value=self.combat["fanout_skipped"], ok="skipped"))
        rate = self.combat.get("rate")
        if rate:
            rolls = rate["rolls"]
            for kind, label in (("form", "panel answer"), ("api", "JSON API")):
                got = rate[kind]
                failures: dict[str, int] = {}
                for r in got:
                    for key, count in r["failures"].items():
                        failures[key] = failures.get(key, 0) + count
                errors = sum(failures.values())
                ratio, within = ratios(got, rolls)
                rows.append(
                    Row(
                        name=f"combat command POST ({label}), {plan.rate_clients} clients",
                        value=f"{med(got, 'rate'):,.0f} req/s",
                        p50=ms(med(got, "p50")),
                        p99=ms(med(got, "p99")),
                        max=ms(med(got, "max")),
                        delivered=(f"{errors} errors: {failures}" if errors else "0 errors")
                        + f" in {sum(r['count'] for r in got):,} commands; encounters at "
                        f"v{got[0]['versions'][0]}–v{got[-1]['versions'][1]}",
                        baseline=f"roll: p50 {ms(med(rolls, 'p50'))}, p99 "
                        f"{ms(med(rolls, 'p99'))} ms, {med(rolls, 'rate'):,.0f} req/s",
                        ratio=ratio,
                        goal=goal if kind == "api" else PANEL_NOTE,
                        # The panel's row is information: errors still fail it.
                        ok=verdict(within and not errors)
                        if kind == "api"
                        else verdict(False if errors else None),
                    )
                )
        rebuilt = self.combat.get("rebuild")
        if rebuilt:
            for goal_kind, what in (("events", "event"), ("records", "record")):
                got = rebuilt[goal_kind]
                reps = got["reps"]
                part = {key: med(reps, f"{key}_p50") for key in ("raw", "json", "records", "fold")}
                p50, p99 = part["fold"], med(reps, "fold_p99")
                target = REBUILD_EVENTS if goal_kind == "events" else REBUILD_RECORDS
                rows.append(
                    Row(
                        name=f"rebuild a {target}-{what} encounter from its log",
                        value=f"{p50:.1f} ms",
                        p50=ms(p50),
                        p99=ms(p99),
                        max=ms(med(reps, "fold_max")),
                        delivered=f"{got['records']:,} records, {got['events']:,} events, "
                        f"{got['json_bytes'] / 1024:.0f} KiB JSON; p50 parts: read "
                        f"{part['raw']:.1f} + JSON {part['json'] - part['raw']:.1f} + decode "
                        f"{part['records'] - part['json']:.1f} + replay "
                        f"{part['fold'] - part['records']:.1f} ms",
                        baseline=f"reading the rows undecoded: p50 {ms(part['raw'])}, "
                        f"p99 {ms(med(reps, 'raw_p99'))} ms",
                        ratio=f"×{p50 / part['raw']:.0f}" if part["raw"] else "–",
                        goal="< 50 ms (p50 and p99)",
                        ok=verdict(p50 < 50 and p99 < 50),
                    )
                )
        return rows

    async def opening(self, target: Target, baseline: Target, seed: dict) -> list[Row]:
        """Each repetition on a fresh server process (and a fresh minimal server): memory
        that an earlier phase left behind would hide what the streams cost."""
        plan = self.plan
        sessions = seed["fanout"]["players"][: plan.open_streams]
        results, bases = [], []
        for rep in range(plan.reps):
            settle = plan.settle_open, plan.settle_close
            server, baseline_server = await asyncio.gather(
                asyncio.to_thread(self.fresh, f"open-{rep + 1}", True),
                asyncio.to_thread(self.fresh, f"open-baseline-{rep + 1}", False),
            )
            try:
                bases.append(await open_once(baseline_server, baseline, sessions, *settle))
                results.append(await open_once(server, target, sessions, *settle))
            finally:
                await asyncio.gather(
                    asyncio.to_thread(server.stop), asyncio.to_thread(baseline_server.stop)
                )
            r = results[-1]
            self.say(
                f"  open rep {rep + 1}/{plan.reps}: {r['opened']}/{r['wanted']} in "
                f"{r['seconds']:.2f} s (baseline {bases[-1]['seconds']:.2f} s); RSS "
                f"{r['rss_before']} → {r['rss_open']} → {r['rss_after']} KiB"
                + (f"; errors {r['errors'][:3]}" if r["errors"] else "")
            )
        n = plan.open_streams
        seconds, base_seconds = med(results, "seconds"), med(bases, "seconds")
        opened = min(r["opened"] for r in results)
        per_stream = med(results, "per_stream")
        kept = med(results, "kept")
        grown = med(results, "rss_open") - med(results, "rss_before")
        errors = sorted({e for r in results for e in r["errors"]})
        return [
            Row(
                name=f"open {n:,} streams: all first bytes",
                value=f"{seconds:.2f} s",
                delivered=f"{opened:,}/{n:,} opened (worst rep)"
                + (f"; {errors[:2]}" if errors else ""),
                baseline=f"{base_seconds:.2f} s",
                ratio=f"×{seconds / base_seconds:.1f}" if base_seconds else "–",
                goal="≤ 3 s, all open",
                ok=verdict(seconds <= 3 and opened == n),
            ),
            Row(
                name=f"open {n:,} streams: memory per stream",
                value=f"{per_stream:.0f} KiB",
                delivered=f"worker RSS {med(results, 'rss_before') / 1024:.0f} → "
                f"{med(results, 'rss_open') / 1024:.0f} MiB",
                baseline=f"{med(bases, 'per_stream'):.0f} KiB",
                ratio=f"×{per_stream / med(bases, 'per_stream'):.0f}"
                if med(bases, "per_stream") > 0
                else "–",
                goal="≤ 100 KiB per stream",
                ok=verdict(per_stream <= 100),
            ),
            Row(
                name=f"open {n:,} streams: RSS after close − before",
                value=f"{kept / 1024:+.1f} MiB",
                delivered=f"worker RSS after close {med(results, 'rss_after') / 1024:.0f} MiB",
                baseline=f"{med(bases, 'kept') / 1024:+.1f} MiB",
                goal="given back: ≤ 10 % of the growth while open",
                ok=verdict(kept <= 0.1 * max(grown, 1)),
            ),
            Row(
                name=f"open {n:,} streams again: RSS growth after the 2nd close",
                value=f"{med(results, 'regrown') / 1024:+.1f} MiB",
                delivered=f"worker RSS {med(results, 'rss_after') / 1024:.0f} → "
                f"{med(results, 'rss_after_again') / 1024:.0f} MiB",
                baseline=f"{med(bases, 'regrown') / 1024:+.1f} MiB",
                goal="kept memory is reused: ≤ 10 % of the growth while open",
                ok=verdict(med(results, "regrown") <= 0.1 * max(grown, 1)),
            ),
        ]

    async def chronicle(self, server: Server, seed: dict, env: dict) -> list[Row]:
        """The GM advances the chronicle a week for six wounded characters (issue 9: under
        1 s, stored and broadcast), each time in a chronicle of its own seeded in the same
        state, with the campaign's pages open; right before, rolls to the same pages (the
        baseline). The first chronicle warms up (the engine's first command, its log
        lines' template) and is not counted."""
        plan, port = self.plan, server.port
        gm = seed["fanout"]["gm"]
        pages = seed["chronicle"]["players"]
        runs = []
        for i, seeded in enumerate(seed["chronicle"]["chronicles"]):
            cid = seeded["campaign"]
            target = Target(
                f"chronicle {i}",
                [port],
                port,
                f"/live/campaigns/{cid}/events?after={{after}}",
                f"/campaigns/{cid}/table/roll/",
                gm,
                {"seq": seeded["seq"]},
            )
            rolls = await fanout_once(target, pages, plan.chronicle_rolls)
            await asyncio.sleep(plan.pause)
            advance = Advance(port, gm, seeded)
            result = await fanout_once(
                target, pages, 1, Action(advance.request, advance.check), timeout=60
            )
            result |= {"roll": rolls, "answer": advance.answer, "id": seeded["id"]}
            if i:
                runs.append(result)
            self.say(
                f"  chronicle {i}"
                + (" (warm-up)" if not i else f"/{len(runs)}")
                + f": advance stored (answered) in {ms(result['answer_p50'])} ms, on all "
                f"{len(pages)} pages in {ms(result['max'])} ms "
                f"({result['delivered']}/{result['expected']} delivered, event of "
                f"{result['event_bytes']:,} bytes); rolls just before: p50 "
                f"{ms(rolls['p50'])} ms, answer {ms(rolls['answer_p50'])} ms"
                + (f"; errors {result['post_errors'][:2]}" if result["post_errors"] else "")
                + (f"; roll errors {rolls['post_errors'][:2]}" if rolls["post_errors"] else "")
            )
            await asyncio.sleep(plan.pause)
        name = f"chronicle: advance 1 week, 6 wounded, {len(pages)} pages (JSON API)"
        if not runs:
            return [Row(name=name, value="no chronicle seeded", ok="skipped")]
        stored = await asyncio.to_thread(
            db_script,
            self.site,
            env,
            self.workdir,
            "chronicle",
            {"encounters": [r["id"] for r in runs]},
        )
        for run in runs:
            run["stored"] = stored[str(run["id"])]
        counts = [r["stored"]["events"] for r in runs]
        kinds: dict[str, int] = {}
        for run in runs:
            for kind, count in run["stored"]["kinds"].items():
                kinds[kind] = kinds.get(kind, 0) + count
        self.say(
            "  chronicle: events per advance "
            + ", ".join(str(c) for c in counts)
            + f"; in all {kinds}; living bodies before → after: "
            + ", ".join(f"{r['stored']['alive_before']}→{r['stored']['alive_after']}" for r in runs)
        )
        errors = [e for r in runs for e in r["post_errors"]]
        delivered = sum(r["delivered"] for r in runs)
        expected = sum(r["expected"] for r in runs)
        incomplete = sum(r["incomplete"] for r in runs)
        all_there = delivered == expected and not incomplete and not errors
        # An advance is done when it is stored (its answer came) and on every page.
        done = [max(r["answer_p50"], r["max"]) for r in runs]
        done = [d for d in done if d == d]  # not nan: the POST failed or no page got it
        answers = [r["answer_p50"] for r in runs if r["answer_p50"] == r["answer_p50"]]
        everywhere = [r["max"] for r in runs if r["max"] == r["max"]]
        rolls = [r["roll"] for r in runs]
        median = statistics.median(done) if len(done) == len(runs) else float("nan")
        answered = statistics.median(answers) if answers else float("nan")
        arrived = statistics.median(everywhere) if everywhere else float("nan")
        roll_p50 = med(rolls, "p50")
        per_advance = ", ".join(
            f"{count / len(runs):.1f} {kind}"
            for kind, count in sorted(kinds.items(), key=lambda kv: -kv[1])
        )
        return [
            Row(
                name=name,
                value=f"{ms(median)} ms",
                p50=ms(median),
                max=ms(max(done, default=float("nan"))),
                delivered=f"{delivered:,}/{expected:,}"
                + (
                    "; every page got every advance"
                    if not incomplete
                    else f"; {incomplete} streams incomplete"
                )
                + (f"; {len(errors)} POSTs failed: {errors[:2]}" if errors else "")
                + f"; stored (the answer) p50 {ms(answered)}, "
                f"max {ms(max(answers, default=float('nan')))} ms; on the last page p50 "
                f"{ms(arrived)}, max {ms(max(everywhere, default=float('nan')))} ms"
                + f"; {statistics.median(counts):g} events per advance "
                f"({min(counts)}–{max(counts)}; per advance {per_advance}); living bodies "
                + ", ".join(
                    f"{r['stored']['alive_before']}→{r['stored']['alive_after']}" for r in runs
                )
                + f"; {len(runs)} advance{'s' * (len(runs) != 1)}; events of "
                f"{max(r['event_bytes'] for r in runs):,} bytes "
                f"(roll {max(r['event_bytes'] for r in rolls)})",
                baseline=f"roll to the same pages just before: p50 {ms(roll_p50)} ms, "
                f"answer p50 {ms(med(rolls, 'answer_p50'))} ms",
                ratio=f"×{median / roll_p50:.1f}" if roll_p50 else "–",
                goal="< 1 s stored and on every page (median)",
                ok=verdict(median < 1000 and all_there),  # nan < 1000 is False
            )
        ]


def machine(site: Path) -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for name in ("django", "granian"):
        try:
            from importlib.metadata import version

            versions[name] = version(name)
        except Exception:  # noqa: BLE001
            versions[name] = "?"
    try:
        commit = subprocess.run(
            ["git", "-C", str(site), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(site), "status", "--porcelain"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        commit += " (with uncommitted changes)" if dirty else ""
    except OSError:
        commit = "?"
    return {
        "CPU": cpu,
        "cores": f"{os.cpu_count()} ({len(os.sched_getaffinity(0))} usable)",
        "Python": platform.python_version(),
        "Django": versions["django"],
        "granian": versions["granian"],
        "OS": platform.platform(),
        "commit": commit,
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
    }


def table(rows: list[Row]) -> str:
    head = [
        "measurement",
        "result",
        "p50 ms",
        "p99 ms",
        "max ms",
        "delivered / errors",
        "baseline (same run)",
        "ratio",
        "goal",
        "ok?",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [
            r.name,
            r.value,
            r.p50,
            r.p99,
            r.max,
            r.delivered,
            r.baseline,
            r.ratio,
            r.goal,
            r.ok,
        ]
        lines.append("| " + " | ".join(c.replace("|", "/") or " " for c in cells) + " |")
    return "\n".join(lines)


def log_findings(servers: list[Server]) -> tuple[list[str], list[str]]:
    """What the servers logged (at WARNING and above): (errors, other lines), per server."""
    errors, others = [], []
    for server in servers:
        text = server.log.read_text(errors="replace") if server.log.exists() else ""
        lines = [line for line in text.splitlines() if line.strip()]
        bad = [
            line
            for line in lines
            if re.search(r"Traceback|ERROR|Error|Exception| 5\d\d |CRITICAL", line)
        ]
        found = bad or lines
        if found:
            examples = " / ".join(dict.fromkeys(line.strip()[:200] for line in found[:40]))
            kind = "error lines" if bad else "lines"
            (errors if bad else others).append(
                f"{server.name}: {len(found)} {kind} of {len(lines)}, e.g. {examples[:600]}"
            )
    return errors, others


PHASES = ("fanout", "rate", "writers", "open", "rebuild", "chronicle")
REBUILD_EVENTS = 500  # an encounter with at least this many events in its log
REBUILD_RECORDS = 500  # ... and one (the same, grown) with this many records


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
        if bench.plan.combat_pages not in bench.plan.sizes:
            note = f"skipped ({bench.plan.combat_pages} pages not among the sizes)"
            bench.combat["fanout_skipped"] = note
        rows += await bench.fanout(seed, baseline, targets)
    if "rate" in phases:
        bench.say(f"roll rate ... ({perf_counter() - began:.0f} s)")
        rows += await bench.rate(servers["single"], seed)
    if "writers" in phases:
        bench.say(f"writers ... ({perf_counter() - began:.0f} s)")
        rows += await bench.writers(servers["single"], seed, env)
    if "open" in phases:
        bench.say(f"opening streams ... ({perf_counter() - began:.0f} s)")
        rows += await bench.opening(single, baseline, seed)
    if "rebuild" in phases:
        bench.say(f"rebuilding encounters ... ({perf_counter() - began:.0f} s)")
        await bench.rebuild(env)
    chronicle_rows = []
    if "chronicle" in phases:
        bench.say(f"advancing chronicles ... ({perf_counter() - began:.0f} s)")
        chronicle_rows = await bench.chronicle(servers["single"], seed, env)
    rows += bench.combat_rows() + chronicle_rows
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
    phases = set(args.phases.split(","))
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


NOTES = """How it was measured (bench/live.py):

- Fan-out: every page is its own connection and user holding GET /live/campaigns/<id>/events;
  rolls (POST /campaigns/<id>/table/roll/, hand 1B, as the GM) are posted one at a time,
  each after the previous reached every stream; latency runs from writing the POST to the
  arrival of the event's last byte on each stream, timed in the one client process
  (perf_counter), so it includes the client's own work on up to 1,000 sockets, as the
  baseline's does. Baseline: bench/minimal_sse.py (stdlib asyncio, one loop, writes the
  same-size event to every stream). Delivered counts events received out of pages × rolls;
  a stream refused (429/503) or cut off counts as not delivered. "In order": every stream
  received exactly the rolls' sequence numbers, in order.
- Redis: two granian processes with REDIS_URL on the same SQLite database; pages split
  evenly, rolls posted to the first.
- Roll rate: 16 keep-alive connections posting rolls back to back (16 players of one
  campaign that has no open streams), against GET /healthz with the same client. Latency
  is from writing a request to reading the whole response.
- Writers: each writer cycles roll, spend, roll, undo (one skill) on its own connection;
  afterwards the database is checked: each writer's acknowledged rolls stored, the
  campaign's sequence numbers 1..n, each ledger's dp_before/dp_after chain, levels and
  spend/undo counts against what was acknowledged. Baseline: /healthz with as many clients.
- Opening: all streams connect at once; time from the first connect to the last stream's
  first body bytes. Memory: VmRSS of granian's worker process(es) before, 1 s after all are
  open, and 3 s after closing them; the baseline is the minimal server's process. "Given
  back" is read as: RSS after closing exceeds RSS before by at most 10 % of what the open
  streams took.
- Combat: two NPCs (same SIN, 5 m apart) that the GM commands; every command is the GM's
  "end activation" for the active one (validated, rolls the next one's stress dice, stored
  as a record with the campaign's next seq, broadcast like a roll), made against the
  version the previous answer showed. Its fan-out: the same pages and client as the
  roll's, POST /encounters/<id>/command/ (form fields version, type, id; HX-Request),
  right after the roll's run at that page count in each repetition; "own answer" is the
  POST's answer time there. Its load: 16 keep-alive clients, each the GM (own session) in
  an encounter of its own in the roll-rate campaign, right after the roll load of the same
  repetition; the form's answer is the re-rendered panel (checked to show the next
  version), the JSON API's (POST /api/v1/encounters/<id>/commands) the new version and
  state (checked: next version, the expected combatant active). Ratios are the combat
  command's p50 and p99 over the roll's of the same repetitions.
- Rebuild: an encounter of the same two NPCs grown by "end activation" until its log
  holds 500 events (then 500 records); in one process, `combat.services.forget()` then
  `folded(encounter)` (read, JSON decode, replay), timed 200 times per repetition,
  interleaved with reading the same rows through a cursor without decoding (the
  baseline), through the ORM (JSON decoded) and with `combat.services.records` (decoded
  into events): the "parts" are the differences of those medians.
- Chronicle: a campaign of its own per advance, with 10 players (one page each), six
  characters and its chronicle, seeded by the GM's commands (bench/live_db.py): a body
  per character, each wounded as a fight leaves it (torso 6, 6, 4, 3, left leg 5, right
  arm 3: bleeding, organtrauma, a broken leg; the fight's survival rolls survived), the
  two torso 6s bandaged at once (first aid: bleed rate 5 → 1; 5 organtrauma: unstable,
  a healing test every hour) and in hospital care. The GM posts "advance 1 week"
  (POST /api/v1/encounters/<id>/commands, session and CSRF token as the pages send them):
  the engine rolls every bleeding tick, survival roll and healing test in the week, the
  record is stored and broadcast like a roll. Timed from writing the POST to its answer
  ("stored") and to the event's arrival on the last of the pages (the result); the first
  chronicle warms up and is not counted. Baseline: rolls posted to the same pages right
  before each advance. The events each advance stored are counted in the database.
- A row's "ok?" compares the medians with the issue's goals; "**NO**" is a finding, not
  a failure of the benchmark (which exits 0 whenever it could measure)."""


if __name__ == "__main__":
    sys.exit(main())
