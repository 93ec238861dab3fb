"""Backups of the whole site: `manage.py backup`, `manage.py restore` and the daily backups
`make serve` keeps (docs/operations.md#backups).

A backup is written as `NAME.partial` beside its final name, checked, flushed to disk and
renamed in one step (`os.replace`): a process killed at any moment leaves either no file
under the final name or a whole one, and never touches the live database. The next backup
in that directory removes the stale `.partial`.

- SQLite: the online backup API into a fresh file (`sqlite_copy`), then
  `PRAGMA integrity_check` on the copy.
- PostgreSQL (DATABASE_URL): `pg_dump --format=custom`, then `pg_restore --list` on the
  dump; restored with `pg_restore --clean --if-exists --no-owner --single-transaction`.

Names sort by time (UTC): `aoristos-20261129T013000Z.sqlite3` by hand,
`aoristos-20261129T013000Z-daily.sqlite3` by the daily backups (the only ones `rotation`
deletes), `aoristos-20261129T013000Z-before-restore.sqlite3` taken by `restore --force`.
"""

import contextlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

DAILY = "daily"
BEFORE_RESTORE = "before-restore"
KINDS = ("", DAILY, BEFORE_RESTORE)
EXTENSIONS = {"sqlite": "sqlite3", "postgresql": "pgdump"}
NAME = re.compile(
    r"^aoristos-(?P<stamp>\d{8}T\d{6}Z)(?:-(?P<kind>daily|before-restore))?"
    r"\.(?P<ext>sqlite3|pgdump)$"
)
STAMP = "%Y%m%dT%H%M%SZ"

# Rotation of the daily backups: the 7 newest, and the newest of each of the 4 most recent
# weeks before them that hold one (see `rotation`).
KEEP_DAILY = 7
KEEP_WEEKLY = 4
DAILY_EVERY = timedelta(hours=24)
# The daily child wakes this often to see whether a backup is due, and checks this often
# whether the server is still there.
WAKE_SECONDS = 300.0
PARENT_POLL_SECONDS = 2.0
# A daily backup that failed (a full disk, the database away) is tried again this much later.
RETRY_SECONDS = 3600.0

SQLITE_MAGIC = b"SQLite format 3\x00"
PGDUMP_MAGIC = b"PGDMP"


class BackupError(Exception):
    """A backup or restore that could not be done; the message says why and what to do."""


@dataclass(frozen=True)
class Restored:
    database: str  # the live database: a file, or PostgreSQL's name
    safety: Path | None  # the backup of what was there before, when --force replaced data


# --- names, rotation and the daily decision: pure functions ----------------------------------


def backup_name(when: datetime, engine: str, kind: str = "") -> str:
    """The file name of a backup taken at `when` (any time zone; named in UTC)."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of backup: {kind!r}")
    stamp = when.astimezone(UTC).strftime(STAMP)
    return f"aoristos-{stamp}{'-' + kind if kind else ''}.{EXTENSIONS[engine]}"


def parse_name(name: str) -> tuple[datetime, str] | None:
    """(when, kind) of a backup's file name; None for any other file."""
    match = NAME.match(name)
    if match is None:
        return None
    when = datetime.strptime(match["stamp"], STAMP).replace(tzinfo=UTC)
    return when, match["kind"] or ""


def daily_backups(names) -> list[tuple[datetime, str]]:
    """The daily backups among `names`, newest first, as (when, name)."""
    found = []
    for name in names:
        parsed = parse_name(name)
        if parsed and parsed[1] == DAILY:
            found.append((parsed[0], name))
    return sorted(found, reverse=True)


def rotation(names, *, keep_daily: int = KEEP_DAILY, keep_weekly: int = KEEP_WEEKLY) -> list[str]:
    """The daily backups among `names` to delete, oldest first.

    Kept: the `keep_daily` newest daily backups, and of the older ones the newest of each
    of the `keep_weekly` most recent calendar weeks (Monday to Sunday, UTC) that hold one,
    counting only weeks before the week of the oldest backup kept by the first rule.
    It counts backups, not days, so a laptop that serves once a week keeps its last 7
    game nights, and one that was off for a year still has its last backups. Backups
    taken by hand or before a restore are never deleted.
    """
    daily = daily_backups(names)
    kept, older = daily[:keep_daily], daily[keep_daily:]
    if not kept:
        return []
    weeks_kept: list[tuple[int, int]] = []
    oldest_week = kept[-1][0].isocalendar()[:2]
    delete = []
    for when, name in older:  # newest first
        week = when.isocalendar()[:2]
        if week < oldest_week and week not in weeks_kept and len(weeks_kept) < keep_weekly:
            weeks_kept.append(week)
        else:
            delete.append(name)
    return sorted(delete)


def backup_due(names, now: datetime, every: timedelta = DAILY_EVERY) -> bool:
    """Whether the daily backup is due: no daily backup among `names`, or the newest one
    taken `every` (24 h) or longer before `now`."""
    daily = daily_backups(names)
    return not daily or now - daily[0][0] >= every


# --- where and what ----------------------------------------------------------------------------


def backup_directory() -> Path:
    return Path(settings.DATA_DIR) / "backups"


def engine() -> str:
    """'sqlite' or 'postgresql': the site's database."""
    vendor = connections[DEFAULT_DB_ALIAS].vendor
    if vendor not in EXTENSIONS:
        raise BackupError(f"Backups know SQLite and PostgreSQL, not {vendor}.")
    return vendor


def database_label() -> str:
    db = connections[DEFAULT_DB_ALIAS].settings_dict
    if engine() == "sqlite":
        return str(db["NAME"])
    return f"PostgreSQL database {db['NAME']!r} on {db['HOST'] or 'localhost'}"


def partial_path(target: Path) -> Path:
    return target.with_name(target.name + ".partial")


def new_private_file(path: Path) -> None:
    """An empty file only its owner can read: a backup holds password hashes and sessions."""
    path.unlink(missing_ok=True)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


@contextlib.contextmanager
def directory_lock(directory: Path):
    """One backup at a time per directory (the daily one and one by hand wait for each
    other): while it is held, any `.partial` there is left by a process that died, and is
    removed. The lock goes with the process that holds it, however it ends."""
    import fcntl

    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    with open(directory / ".backup.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for stale in directory.glob("aoristos-*.partial"):
            stale.unlink(missing_ok=True)
        yield


def fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish(partial: Path, target: Path) -> None:
    """Make the checked `partial` the backup `target`, whole, even across a power cut."""
    fsync_path(partial)
    os.replace(partial, target)
    with contextlib.suppress(OSError):  # some file systems cannot sync a directory
        fsync_path(target.parent)


# --- taking a backup ---------------------------------------------------------------------------


def take_backup(*, output: Path | None = None, kind: str = "") -> Path:
    """Back up the site's database into `output`, or into DATA_DIR/backups under a new
    name; returns the backup's path. BackupError when it cannot."""
    kind_of_database = engine()
    if output is not None:
        output = Path(output).absolute()
        if output.exists():
            raise BackupError(f"{output} exists already: choose another name, or remove it.")
        with directory_lock(output.parent):
            partial_path(output).unlink(missing_ok=True)
            _write_backup(kind_of_database, output)
        return output
    directory = backup_directory()
    with directory_lock(directory):
        target = directory / backup_name(datetime.now(UTC), kind_of_database, kind)
        while target.exists():  # names are to the second: the next one takes the next
            time.sleep(0.2)
            target = directory / backup_name(datetime.now(UTC), kind_of_database, kind)
        _write_backup(kind_of_database, target)
    return target


def _write_backup(kind_of_database: str, target: Path, *, verify: bool = True) -> None:
    if kind_of_database == "sqlite":
        source = Path(connections[DEFAULT_DB_ALIAS].settings_dict["NAME"])
        sqlite_copy(source, target, verify=verify)
    else:
        pg_dump(target)


def sqlite_copy(source: Path, target: Path, *, verify: bool = True) -> None:
    """Copy the SQLite database `source` into the new file `target`, whole or not at all.

    SQLite's online backup API in one step (`pages=-1`) runs inside one read transaction
    on `source`. In WAL mode (the site's) a reader sees the database as of the moment its
    transaction began, and neither blocks writers nor is blocked by them: the server's
    writes go on into the WAL while the copy is made, and the copy holds exactly the
    transactions committed before it started. (With several smaller steps the copy would
    start again whenever another connection wrote in between; `VACUUM INTO` would make the
    same snapshot but rebuilds every table and index on the way, more work than copying
    pages.) The source is opened read-only: nothing is ever written to it.
    """
    if not source.exists():
        raise BackupError(
            f"No database at {source} to back up. `make serve` (or `manage.py migrate`) creates it."
        )
    partial = partial_path(target)
    new_private_file(partial)  # an empty file is an empty database to SQLite
    try:
        src = sqlite3.connect(source.absolute().as_uri() + "?mode=ro", uri=True, timeout=20)
    except sqlite3.Error as error:
        raise BackupError(f"Could not open {source} to back it up: {error}") from None
    dst = sqlite3.connect(partial)
    try:
        try:
            src.backup(dst, pages=-1)
        except sqlite3.Error as error:
            raise BackupError(f"Backing up {source} failed: {error}") from None
        # The copy is one file, without a WAL beside it.
        dst.execute("PRAGMA journal_mode=DELETE")
        if verify:
            problems = integrity_problems(dst)
            if problems:
                raise BackupError(
                    f"The copy of {source} fails SQLite's integrity check ({problems[0]}): "
                    "the database itself is damaged. Nothing was written; restore the "
                    "newest good backup with `manage.py restore FILE --force`."
                )
    except BaseException:
        dst.close()
        partial.unlink(missing_ok=True)
        raise
    finally:
        src.close()
    dst.close()
    publish(partial, target)


def integrity_problems(connection: sqlite3.Connection) -> list[str]:
    """What `PRAGMA integrity_check` finds: [] when it says ok."""
    rows = [row[0] for row in connection.execute("PRAGMA integrity_check").fetchall()]
    return [] if rows == ["ok"] else rows


# --- PostgreSQL ----------------------------------------------------------------------------------


def pg_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackupError(
            f"{name} was not found on PATH. Backups of a PostgreSQL database use PostgreSQL's "
            "own client tools: install them in the server's major version or newer "
            "(Debian/Ubuntu: `apt-get install postgresql-client`; macOS: `brew install "
            "libpq` and put its bin directory on PATH)."
        )
    return path


def pg_environment() -> dict[str, str]:
    """libpq's variables for the site's database: the password travels in PGPASSWORD,
    never on a command line other users can read."""
    db = connections[DEFAULT_DB_ALIAS].settings_dict
    env = dict(os.environ)
    for variable, key in (
        ("PGHOST", "HOST"),
        ("PGPORT", "PORT"),
        ("PGUSER", "USER"),
        ("PGPASSWORD", "PASSWORD"),
        ("PGDATABASE", "NAME"),
    ):
        if db.get(key):
            env[variable] = str(db[key])
        else:
            env.pop(variable, None)
    return env


def run_pg(argv: list[str], what: str) -> subprocess.CompletedProcess:
    result = subprocess.run(argv, env=pg_environment(), capture_output=True, text=True)
    if result.returncode != 0:
        detail = result.stderr.strip() or f"exit status {result.returncode}"
        raise BackupError(f"{what} failed: {detail}")
    return result


def pg_dump(target: Path) -> None:
    """`pg_dump --format=custom` of the site's database into `target`, whole or not at all.
    pg_dump reads everything in one transaction, a snapshot as of its start, and takes
    only locks that let the server read and write meanwhile."""
    partial = partial_path(target)
    new_private_file(partial)  # pg_dump writes into it, keeping its mode
    try:
        run_pg(
            [pg_tool("pg_dump"), "--format=custom", "--no-password", "--file", str(partial)],
            "pg_dump",
        )
        run_pg([pg_tool("pg_restore"), "--list", str(partial)], "Reading the new dump back")
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    publish(partial, target)


def dump_tables(path: Path) -> set[str]:
    """The tables a custom-format dump holds (from `pg_restore --list`)."""
    listing = run_pg([pg_tool("pg_restore"), "--list", str(path)], "pg_restore --list").stdout
    tables = set()
    for line in listing.splitlines():
        # "215; 1259 16385 TABLE public auth_user aoristos"
        words = line.split()
        if not line.startswith(";") and "TABLE" in words:
            at = words.index("TABLE")
            if len(words) > at + 2 and words[at + 1] != "DATA":
                tables.add(words[at + 2])
    return tables


# --- restore ---------------------------------------------------------------------------------


def backup_format(path: Path) -> str:
    """'sqlite' or 'postgresql', from the file's first bytes; BackupError for anything else."""
    if not path.is_file():
        raise BackupError(f"No such file: {path}")
    with open(path, "rb") as f:
        head = f.read(len(SQLITE_MAGIC))
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head.startswith(PGDUMP_MAGIC):
        return "postgresql"
    raise BackupError(
        f"{path} is not a backup of this site: neither an SQLite database nor a pg_dump "
        "file in the custom format (`manage.py backup` writes one of those)."
    )


def check_backup(path: Path) -> None:
    """Refuse (BackupError) a file that is not a whole backup of this site's kind of
    database. Reads the file only."""
    path = Path(path)
    kind = backup_format(path)
    site = engine()
    if kind != site:
        other = {"sqlite": "an SQLite database", "postgresql": "a PostgreSQL dump"}
        here = (
            "this site uses PostgreSQL (DATABASE_URL)"
            if site == "postgresql"
            else "this site uses SQLite (DATABASE_URL is not set)"
        )
        raise BackupError(
            f"{path} is {other[kind]}, but {here}. Move data between the two with the "
            "campaign archives (docs/archive.md), not a backup."
        )
    if kind == "sqlite":
        check_sqlite_backup(path)
    else:
        tables = dump_tables(path)
        if "django_migrations" not in tables:
            raise BackupError(
                f"{path} is a PostgreSQL dump, but not of this site: it has no "
                "django_migrations table."
            )


def check_sqlite_backup(path: Path) -> None:
    try:
        con = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True)
        try:
            problems = integrity_problems(con)
            tables = {
                row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        finally:
            con.close()
    except sqlite3.DatabaseError as error:
        raise BackupError(
            f"{path} cannot be read as an SQLite database ({error}): it is damaged. "
            "Choose another backup."
        ) from None
    if problems:
        raise BackupError(
            f"{path} fails SQLite's integrity check ({problems[0]}): it is damaged. "
            "Choose another backup."
        )
    if "django_migrations" not in tables:
        raise BackupError(
            f"{path} is an SQLite database, but not of this site: it has no "
            "django_migrations table."
        )


def held_data() -> str | None:
    """What the site's database holds that a restore would replace ("holds 3 user
    accounts"), or why it cannot tell; None for a database that does not exist, was never
    migrated or has no user account. Every campaign, character and roll belongs to a user,
    so a database without any holds nothing worth keeping; one with an account is only
    replaced with `restore --force`."""
    from django.contrib.auth import get_user_model

    table = get_user_model()._meta.db_table
    if engine() == "sqlite":
        path = Path(connections[DEFAULT_DB_ALIAS].settings_dict["NAME"])
        if not path.exists():
            return None
        try:
            con = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True, timeout=20)
            try:
                found = con.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [table]
                ).fetchone()
                count = con.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] if found else 0
            finally:
                con.close()
        except sqlite3.DatabaseError as error:
            return f"cannot be read ({error}) and may still hold data"
    else:
        connection = connections[DEFAULT_DB_ALIAS]
        if table not in connection.introspection.table_names():
            return None
        with connection.cursor() as cursor:
            cursor.execute(f'SELECT count(*) FROM "{table}"')
            count = cursor.fetchone()[0]
    if not count:
        return None
    return f"holds {count} user account{'s' if count != 1 else ''}"


def restore_backup(path: Path, *, force: bool) -> Restored:
    """Replace the site's database with the backup at `path`.

    The backup is checked first (`check_backup`); a database that holds data (`held_data`)
    is only replaced with `force`, and then a backup of it is taken first
    (`Restored.safety`). BackupError, with nothing changed, when any of that refuses."""
    path = Path(path).absolute()
    check_backup(path)
    held = held_data()
    if held and not force:
        raise BackupError(
            f"The database ({database_label()}) {held}; restoring would replace all of "
            "it. Stop the server, then run the restore again with --force: a backup of "
            "the current database is taken first."
        )
    safety = safety_backup() if held else None
    connections.close_all()
    if engine() == "sqlite":
        live = Path(connections[DEFAULT_DB_ALIAS].settings_dict["NAME"])
        sqlite_restore(path, live)
    else:
        pg_restore(path)
    return Restored(database_label(), safety)


def safety_backup() -> Path:
    """A backup of the database about to be replaced. A database too damaged to pass its
    integrity check (the reason to restore, perhaps) is kept unchecked, or as a plain copy
    of its files when SQLite cannot read it at all."""
    directory = backup_directory()
    kind_of_database = engine()
    with directory_lock(directory):
        target = directory / backup_name(datetime.now(UTC), kind_of_database, BEFORE_RESTORE)
        while target.exists():
            time.sleep(0.2)
            target = directory / backup_name(datetime.now(UTC), kind_of_database, BEFORE_RESTORE)
        if kind_of_database != "sqlite":
            _write_backup(kind_of_database, target)
            return target
        try:
            _write_backup(kind_of_database, target)
        except BackupError:
            try:
                _write_backup(kind_of_database, target, verify=False)
            except BackupError:
                live = Path(connections[DEFAULT_DB_ALIAS].settings_dict["NAME"])
                for suffix in ("", "-wal"):
                    if Path(f"{live}{suffix}").exists():
                        partial = partial_path(Path(f"{target}{suffix}"))
                        new_private_file(partial)
                        shutil.copyfile(f"{live}{suffix}", partial)
                        publish(partial, Path(f"{target}{suffix}"))
    return target


def sqlite_restore(backup: Path, live: Path) -> None:
    """Copy the backup into the live database file with the backup API: one write
    transaction on `live`, so a server that still runs sees the old database or the
    restored one, never a mix (but stop it first: its pages would change under it).
    A file SQLite cannot open as a database is replaced by a checked copy instead."""
    live.parent.mkdir(parents=True, exist_ok=True)
    if live.exists() and not readable_database(live):
        sqlite_copy(backup, live.with_name(live.name + ".restoring"))
        for suffix in ("-wal", "-shm"):
            Path(f"{live}{suffix}").unlink(missing_ok=True)
        os.replace(live.with_name(live.name + ".restoring"), live)
        return
    src = sqlite3.connect(backup.as_uri() + "?mode=ro", uri=True)
    dst = sqlite3.connect(live, timeout=20)
    try:
        dst.execute("PRAGMA journal_mode=WAL")
        src.backup(dst, pages=-1)
        problems = integrity_problems(dst)
        if problems:
            raise BackupError(f"The restored database fails its integrity check: {problems[0]}")
    except sqlite3.Error as error:
        raise BackupError(f"Restoring into {live} failed: {error}") from None
    finally:
        src.close()
        dst.close()


def readable_database(path: Path) -> bool:
    try:
        con = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True, timeout=20)
        try:
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            con.close()
    except sqlite3.DatabaseError:
        return False
    return True


def pg_restore(backup: Path) -> None:
    """`pg_restore --clean --if-exists --no-owner --single-transaction`: every object of
    the dump is dropped and made again, in one transaction, so a failure changes nothing.
    Tables the dump lacks (made by migrations newer than the backup) are dropped first:
    `migrate` makes them again, and they would stand in its way."""
    db = connections[DEFAULT_DB_ALIAS]
    extra = set(db.introspection.table_names()) - dump_tables(backup)
    if extra:
        with db.cursor() as cursor:
            names = ", ".join(f'"{name}"' for name in sorted(extra))
            cursor.execute(f"DROP TABLE IF EXISTS {names} CASCADE")
    db.close()
    run_pg(
        [
            pg_tool("pg_restore"),
            "--clean",
            "--if-exists",
            "--no-owner",
            "--single-transaction",
            "--exit-on-error",
            "--no-password",
            "--dbname",
            db.settings_dict["NAME"],
            str(backup),
        ],
        "pg_restore",
    )


def pending_migrations() -> list[str]:
    """Migrations of this code the (restored) database lacks."""
    from django.db.migrations.executor import MigrationExecutor

    connections.close_all()
    executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _ in plan]


# --- the daily backups beside `make serve` -------------------------------------------------------


def daily_backup_state() -> tuple[bool, str]:
    """Whether `serve` keeps daily backups, and the line it prints about them."""
    value = os.environ.get("BACKUP_DAILY", "").strip().lower()
    if value in {"0", "false", "no", "off"}:
        return False, "Daily backups are off (BACKUP_DAILY=0)."
    try:
        kind_of_database = engine()
        if kind_of_database == "postgresql":
            pg_tool("pg_dump")
    except BackupError as error:
        return False, f"No daily backups: {error}"
    return True, (
        f"Daily backups: {backup_directory()}/ (the {KEEP_DAILY} newest and one a week for "
        f"{KEEP_WEEKLY} weeks before them; BACKUP_DAILY=0 turns them off)."
    )


# Run by `start_daily_backups` as `python -c`: leaves its parent at once (fork, new
# session), waits until `serve` has exec'd into the server (the pipe's write end closes
# on exec) and becomes the daily child. If `serve` dies before, its pid is gone: nothing.
_LAUNCHER = """
import os, sys, time
read_end, parent = int(sys.argv[1]), int(sys.argv[2])
if os.fork():
    os._exit(0)
os.setsid()
while os.read(read_end, 1):
    pass
os.close(read_end)
time.sleep(0.5)  # a process that is exiting, not exec'ing, is gone or a zombie by then
try:
    os.kill(parent, 0)
except ProcessLookupError:
    os._exit(0)
except PermissionError:
    pass
if os.path.exists("/proc/self/stat"):  # Linux: a zombie has exited too
    try:
        with open(f"/proc/{parent}/stat") as stat:
            if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                os._exit(0)
    except FileNotFoundError:
        os._exit(0)
os.chdir(sys.argv[3])
os.execv(sys.argv[4], sys.argv[4:])
"""


def start_daily_backups() -> None:
    """Start the daily child of `serve` (`manage.py backup --daily --watch-parent PID`):
    a process of its own, in its own session, not a child of the server. It starts its
    work only once this process has exec'd into granian (same pid), holds no connection
    or thread in the server, and exits when the server is gone. Returns at once."""
    db = connections[DEFAULT_DB_ALIAS].settings_dict
    env = dict(os.environ, DATA_DIR=str(settings.DATA_DIR))
    if engine() == "sqlite":
        env["SQLITE_PATH"] = str(db["NAME"])
        env.pop("DATABASE_URL", None)
    else:
        credentials = quote(db["USER"], safe="") + ":" + quote(db["PASSWORD"], safe="")
        host = f"{db['HOST'] or 'localhost'}:{db['PORT'] or 5432}"
        env["DATABASE_URL"] = f"postgresql://{credentials}@{host}/{quote(db['NAME'], safe='')}"
    read_end, write_end = os.pipe()  # both close on exec: the write end is the signal
    manage = str(Path(settings.BASE_DIR) / "manage.py")
    child = [sys.executable, manage, "backup", "--daily", "--watch-parent", str(os.getpid())]
    launcher = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(read_end), str(os.getpid())]
        + [str(settings.BASE_DIR), *child],
        pass_fds=(read_end,),
        stdin=subprocess.DEVNULL,
        env=env,
    )
    launcher.wait()
    os.close(read_end)
    _write_ends.append(write_end)  # kept open until the exec (or this process's end)


_write_ends: list[int] = []


def process_start(pid: int) -> str | None:
    """The start time of process `pid` (Linux), to tell it from a later process that
    reuses the number; None where /proc is not there."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return None if fields[0] == "Z" else fields[19]


def process_alive(pid: int, started: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    if Path("/proc/self/stat").exists():
        return process_start(pid) == started
    return True


def watch_and_back_up(
    parent: int,
    *,
    wake_seconds: float = WAKE_SECONDS,
    poll_seconds: float = PARENT_POLL_SECONDS,
    say=print,
) -> None:
    """The daily child: while process `parent` (the server) lives, take the daily backup
    whenever one is due (the first one at once, if the newest is 24 h old or more) and
    apply the rotation; wake every `wake_seconds`. Returns when the parent is gone."""
    started = process_start(parent)
    if started is None and Path("/proc/self/stat").exists():
        return  # gone already, or a zombie
    next_check = time.monotonic()
    while process_alive(parent, started):
        if time.monotonic() >= next_check:
            next_check = time.monotonic() + wake_seconds
            try:
                daily_backup_if_due(say=say)
            except Exception as error:  # noqa: BLE001 (the server goes on; say why, retry)
                say(f"The daily backup failed: {error} (trying again in an hour)")
                next_check = time.monotonic() + max(wake_seconds, RETRY_SECONDS)
        time.sleep(min(poll_seconds, max(next_check - time.monotonic(), 0.01)))


def daily_backup_if_due(*, say=print, now: datetime | None = None) -> Path | None:
    directory = backup_directory()
    names = os.listdir(directory) if directory.exists() else []
    if not backup_due(names, now or datetime.now(UTC)):
        return None
    return daily_backup(say=say)


def daily_backup(*, say=print) -> Path:
    """Take a daily backup and apply the rotation; says what it did."""
    path = take_backup(kind=DAILY)
    connections.close_all()  # no connection is kept between backups
    say(f"Daily backup: {path} ({describe_size(path.stat().st_size)}).")
    for name in rotation(os.listdir(path.parent)):
        (path.parent / name).unlink(missing_ok=True)
        say(f"Rotation: removed the old daily backup {name}.")
    return path


def describe_size(size: int) -> str:
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    return f"{size / 1000:.0f} kB" if size >= 1000 else f"{size} bytes"
