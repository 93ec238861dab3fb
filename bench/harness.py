"""The live-table benchmark's harness, shared by its measurements (bench/live.py runs them).

- the sizes of a run (`Plan`: FULL, or QUICK for a smoke run);
- clients: asyncio protocols on raw sockets, the same for every server: `Stream` (one
  open page), `Client` (keep-alive requests), and the requests a page sends;
- servers: granian as `make serve` starts it and the baseline bench/minimal_sse.py, each a
  child process on a port of its own; their memory, their logs, and bench/live_db.py (the
  Django side: seeding and checking the database) run in the site's environment;
- timing: one fan-out run (`fanout_once`: pages open, events posted one after the other,
  each timed to its arrival on every page) and a load (`load`: clients sending back to
  back for some seconds);
- statistics and the results table (`Row`, `table`, `machine`);
- `Bench`: what every measurement gets (the plan, the site, where to say what it does).
"""

import asyncio
import contextlib
import dataclasses
import datetime
import json
import os
import platform
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SECRET_KEY = "bench-" + "k" * 50  # fixed: sessions seeded by bench/live_db.py stay valid
CSRF_TOKEN = secrets.choice("abcdefgh") + secrets.token_hex(16)[:31]  # 32 alphanumerics


# --- the sizes of a run ---------------------------------------------------------------------------


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

# --- clients: asyncio protocols on raw sockets ----------------------------------------------------


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


@dataclass
class Action:
    """What a fan-out run posts, and how its answer is checked (None: accepted)."""

    request: Callable[[], bytes]
    check: Callable[[int, bytes], str | None]


# --- servers --------------------------------------------------------------------------------------


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


# --- timing: a fan-out run and a load -------------------------------------------------------------


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
    return summary(latencies, elapsed) | {"failures": failures}


# --- statistics and the results table -------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def med(results: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in results)


def medians(results: list[dict]) -> dict[str, str]:
    """A row's p50, p99 and max cells: the medians of the repetitions' results."""
    return {key: ms(med(results, key)) for key in ("p50", "p99", "max")}


def summary(latencies: list[float], seconds: float) -> dict:
    """Requests answered in `seconds` (their latencies in ms): how many, per second, and
    p50, p99 and max."""
    return {
        "count": len(latencies),
        "rate": len(latencies) / seconds,
        "p50": pct(latencies, 0.50),
        "p99": pct(latencies, 0.99),
        "max": max(latencies, default=float("nan")),
    }


def delivery(runs: list[dict], what: str) -> tuple[str, bool]:
    """Fan-out runs added up: events delivered of those expected, and whether every stream
    got every `what` in order (as text); and whether all arrived, every stream in order."""
    delivered = sum(r["delivered"] for r in runs)
    expected = sum(r["expected"] for r in runs)
    incomplete = sum(r["incomplete"] for r in runs)
    misordered = sum(r["misordered"] for r in runs)
    text = (
        f"{delivered:,}/{expected:,}"
        + (
            f"; every stream got every {what}, in order"
            if not incomplete
            else f"; {incomplete} streams not all in order"
        )
        + (f" ({misordered} out of order or repeated)" if misordered else "")
    )
    return text, delivered == expected and not incomplete


@dataclass
class Row:
    """A line of the results table, cell by cell."""

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


# The columns: Row's fields, in order.
HEAD = (
    "| measurement | result | p50 ms | p99 ms | max ms | delivered / errors "
    "| baseline (same run) | ratio | goal | ok? |"
)


def table(rows: list[Row]) -> str:
    lines = [HEAD, "|" + "---|" * len(dataclasses.fields(Row))]
    for row in rows:
        cells = dataclasses.astuple(row)
        lines.append("| " + " | ".join(c.replace("|", "/") or " " for c in cells) + " |")
    return "\n".join(lines)


# --- what every measurement gets ------------------------------------------------------------------


@dataclass
class Bench:
    """The run, as each measurement gets it: `bench.say` prints what it is doing."""

    plan: Plan
    site: Path
    workdir: Path
    redis_note: str  # why the Redis rows were skipped, if they were
    fresh: Callable[[str, bool], Server]  # starts a server (granian or not) and waits for it
    # what the combat rows are made of, by the measurements that time it beside the roll
    combat: dict = dataclasses.field(default_factory=dict)

    def say(self, text: str) -> None:
        print(text, flush=True)
