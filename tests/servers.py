"""Start the real server (granian, as `make serve` runs it) on the test database."""

import os
import signal
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
        workers = child_pids(self.process.pid)
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        # granian's worker outlives a killed main process (it keeps serving the port and
        # its database connections): end it too.
        kill_leftover_workers(workers)


def server_environment(workdir: Path, env: dict[str, str | None] | None) -> dict[str, str]:
    """A server's environment on the test database, with the tests' secret key (so the
    sessions they make are valid on it); `env` adds or overrides variables, None removes
    one."""
    server_env = dict(
        os.environ,
        DATA_DIR=str(workdir),
        STATIC_ROOT=str(workdir / "static"),
        SECRET_KEY=settings.SECRET_KEY,
        **database_env(),
    )
    server_env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    for name, value in (env or {}).items():
        if value is None:
            server_env.pop(name, None)
        else:
            server_env[name] = value
    return server_env


def start_site_server(
    workdir: Path,
    env: dict[str, str] | None = None,
    *,
    port: int | None = None,
    collectstatic: bool = True,
) -> SiteServer:
    """Start granian on the test database. `env` adds or overrides environment variables
    (MAX_STREAMS, REDIS_URL, ...); a value of None removes one. `port` reuses a port (a
    restart); `collectstatic=False` skips the static files a previous start in the same
    `workdir` already collected."""
    port = port or free_port()
    env = server_environment(workdir, env)
    if collectstatic:
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
        stdout=log.open("a"),
        stderr=subprocess.STDOUT,
    )
    return answering(SiteServer(f"http://127.0.0.1:{port}", process, log))


def answering(server: SiteServer, seconds: float = 30) -> SiteServer:
    """`server` once its /healthz answers; stopped, and the reason raised, if it does not."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"the server exited: {server.log.read_text()}")
        try:
            urllib.request.urlopen(f"{server.url}/healthz", timeout=1).read()
            return server
        except OSError:
            time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"the server did not answer in {seconds:.0f} s: {server.log.read_text()}")


def child_pids(pid: int) -> list[int]:
    """The live child processes of `pid` (Linux /proc)."""
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            children.append(int(entry.name))
    return sorted(children)


def worker_pid(server: SiteServer, timeout: float = 10) -> int:
    """granian's worker: the child of the main process that serves the requests."""
    deadline = time.monotonic() + timeout
    while True:
        for child in child_pids(server.process.pid):
            command = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
            if b"resource_tracker" not in command:
                return child
        if time.monotonic() > deadline:
            raise RuntimeError(f"no granian worker under pid {server.process.pid}")
        time.sleep(0.1)


def thread_count(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


def kill_leftover_workers(pids: list[int]) -> None:
    """SIGKILL those of `pids` that are still granian processes (no other process that
    happens to reuse a number)."""
    for pid in pids:
        try:
            if b"granian" in Path(f"/proc/{pid}/cmdline").read_bytes():
                os.kill(pid, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass


class Servers:
    """Dedicated server processes for one test; every one (and its worker) is stopped at
    the end of the test."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.started = []  # (server, its worker's pid)

    def start(self, env: dict | None = None, **options):
        workdir = self.workdir / f"server-{len(self.started)}"
        workdir.mkdir(exist_ok=True)
        server = start_site_server(workdir, env, **options)
        self.started.append((server, worker_pid(server)))
        return server

    def stop_all(self) -> None:
        for server, worker in self.started:
            if server.process.poll() is None:
                server.stop()
            kill_leftover_workers([worker])


class PrivateRedis:
    """A redis-server of this test's own, on a free port, to freeze and kill."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        import redis

        self.workdir.mkdir(exist_ok=True)
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            cwd=self.workdir,
            stdout=(self.workdir / "redis.log").open("a"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                self.client().ping()
                return
            except redis.RedisError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((self.workdir / "redis.log").read_text()) from None
                time.sleep(0.05)

    def client(self):
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)

    def pattern_subscribers(self) -> int:
        """Clients subscribed to a pattern: the servers' listeners."""
        return sum(1 for client in self.client().client_list() if int(client["psub"]) > 0)

    def wait_for_pattern_subscribers(self, count: int, seconds: float) -> float:
        started = time.monotonic()
        while self.pattern_subscribers() < count:
            if time.monotonic() - started > seconds:
                raise AssertionError(f"fewer than {count} listeners subscribed in {seconds} s")
            time.sleep(0.05)
        return time.monotonic() - started

    def freeze(self) -> None:
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.thaw()
            self.process.kill()
            self.process.wait(timeout=10)


def start_serve_command(
    workdir: Path, env: dict[str, str | None] | None = None, *, args: tuple[str, ...] = ()
) -> SiteServer:
    """`manage.py serve` itself on the test database, as a hosted process runs it: `args`
    (e.g. "--no-setup") and `env` (WORKERS, REDIS_URL, SERVE_SETUP, STATIC_ROOT...; None
    removes a variable) added. The command execs granian, so the process is granian's main
    one and `stop()` ends it and its workers. With the set-up skipped, collect the static
    files into STATIC_ROOT first (`collect_static`)."""
    port = free_port()
    server_env = server_environment(workdir, env)
    log = workdir / "server.log"
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port), *args],
        cwd=ROOT,
        env=server_env,
        stdout=log.open("a"),
        stderr=subprocess.STDOUT,
    )
    return answering(SiteServer(f"http://127.0.0.1:{port}", process, log))


def collect_static(static_root: Path) -> None:
    """`manage.py collectstatic` into `static_root`, as a deploy runs it once per machine."""
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT,
        env=dict(
            os.environ,
            DATA_DIR=str(static_root.parent),
            STATIC_ROOT=str(static_root),
            SECRET_KEY=settings.SECRET_KEY,
        ),
        check=True,
    )


def worker_pids(server: SiteServer) -> list[int]:
    """granian's workers: the children of the main process that serve requests."""
    return [
        child
        for child in child_pids(server.process.pid)
        if b"resource_tracker" not in Path(f"/proc/{child}/cmdline").read_bytes()
    ]


def worker_of_connection(server: SiteServer, client_port: int) -> int | None:
    """The worker (pid) holding the server's end of the TCP connection made from
    127.0.0.1:`client_port` (Linux /proc: the socket's inode among the worker's files)."""
    server_port = int(server.url.rsplit(":", 1)[1])
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local_port = int(fields[1].split(":")[1], 16)
        remote_port = int(fields[2].split(":")[1], 16)
        if (local_port, remote_port) == (server_port, client_port):
            inode = fields[9]
    if inode is None:
        return None
    for pid in worker_pids(server):
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                if os.readlink(fd) == f"socket:[{inode}]":
                    return pid
        except OSError:
            continue
    return None
