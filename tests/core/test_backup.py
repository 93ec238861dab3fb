"""Backups of the whole site (issue 30): `manage.py backup`, `manage.py restore` and the
daily backups beside `make serve` (core.backup).

The SQLite tests run the commands as a user would, in their own processes, on scratch
databases (SQLITE_PATH, DATA_DIR): a backup killed at any moment, a backup under a steady
stream of writes, and restores that must refuse. The PostgreSQL tests run on CI's
PostgreSQL leg, where pg_dump is installed.
"""

import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from core import backup
from core.backup import backup_due, backup_name, parse_name, rotation

ROOT = Path(__file__).resolve().parent.parent.parent
ON_POSTGRESQL = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
sqlite_only = pytest.mark.skipif(
    ON_POSTGRESQL, reason="SQLite backups: CI's SQLite leg runs these on scratch files"
)
postgresql_only = pytest.mark.skipif(
    not ON_POSTGRESQL or shutil.which("pg_dump") is None,
    reason="needs the PostgreSQL test database and pg_dump",
)


def at(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


def daily(text: str) -> str:
    return backup_name(at(text), "sqlite", backup.DAILY)


# --- names, rotation, the daily decision ------------------------------------------------------


def test_backup_names_sort_by_time_and_say_their_kind():
    names = [
        backup_name(at("2026-11-29 01:30"), "sqlite", backup.DAILY),
        backup_name(at("2026-11-28 23:59"), "sqlite"),
        backup_name(at("2026-12-01 08:00"), "postgresql", backup.BEFORE_RESTORE),
    ]
    assert names == [
        "aoristos-20261129T013000Z-daily.sqlite3",
        "aoristos-20261128T235900Z.sqlite3",
        "aoristos-20261201T080000Z-before-restore.pgdump",
    ]
    assert sorted(names) == [names[1], names[0], names[2]]
    assert [parse_name(name) for name in names] == [
        (at("2026-11-29 01:30"), "daily"),
        (at("2026-11-28 23:59"), ""),
        (at("2026-12-01 08:00"), "before-restore"),
    ]
    # Local time is named in UTC: 02:30 in Stockholm's winter is 01:30Z.
    stockholm = datetime(2026, 11, 29, 2, 30, tzinfo=UTC).astimezone(
        __import__("zoneinfo").ZoneInfo("Europe/Stockholm")
    )
    assert backup_name(stockholm, "sqlite") == "aoristos-20261129T023000Z.sqlite3"
    for other in ("db.sqlite3", "aoristos-20261129T013000Z.sqlite3.partial", ".backup.lock"):
        assert parse_name(other) is None


def test_rotation_keeps_the_seven_newest_days_and_the_newest_of_four_weeks_before():
    """A server that ran every day from October 1 to Sunday November 29 (ISO week 48)."""
    days = [at("2026-10-01 01:30") + timedelta(days=n) for n in range(60)]
    names = [backup_name(day, "sqlite", backup.DAILY) for day in days]
    by_hand = [
        "aoristos-20261002T013000Z.sqlite3",
        "aoristos-20261003T013000Z-before-restore.sqlite3",
    ]
    others = ["db.sqlite3", ".backup.lock", *by_hand]
    deleted = rotation(names + others)
    kept = sorted(set(names) - set(deleted))
    assert kept == [
        daily("2026-11-01 01:30"),  # Sunday of week 44
        daily("2026-11-08 01:30"),  # week 45
        daily("2026-11-15 01:30"),  # week 46
        daily("2026-11-22 01:30"),  # week 47
        *(daily(f"2026-11-{day} 01:30") for day in range(23, 30)),  # the 7 newest: week 48
    ]
    assert set(deleted) <= set(names)  # by hand, before a restore, other files: never
    assert deleted == sorted(deleted)


def test_rotation_counts_backups_not_days_for_a_laptop_that_serves_once_a_week():
    """Twelve Wednesday game nights: the 7 newest and the 4 before them stay; the first goes.
    A year off changes nothing: no backup is deleted for its age alone."""
    nights = [daily("2026-09-02 19:00")]
    for week in range(1, 12):
        nights.append(
            backup_name(at("2026-09-02 19:00") + timedelta(weeks=week), "sqlite", "daily")
        )
    assert rotation(nights) == [nights[0]]
    assert rotation(nights[:7]) == []
    # Two older backups in one week (Wednesday and Thursday): the newer of them stays,
    # and the week counts once.
    thursday = daily("2026-09-10 19:00")
    assert rotation([*nights, thursday]) == [nights[0], nights[1]]


def test_a_daily_backup_is_due_after_24_hours_and_only_daily_ones_count():
    now = at("2026-11-29 12:00")
    assert backup_due([], now)
    assert backup_due(["db.sqlite3", backup_name(now, "sqlite")], now)  # one by hand: still due
    recent = backup_name(now - timedelta(hours=23, minutes=59), "sqlite", backup.DAILY)
    assert not backup_due([recent], now)
    day_old = backup_name(now - timedelta(hours=24), "sqlite", backup.DAILY)
    assert backup_due([day_old], now)
    assert not backup_due([day_old, recent], now)


def test_backup_daily_0_turns_the_daily_backups_off(monkeypatch):
    monkeypatch.setenv("BACKUP_DAILY", "0")
    assert backup.daily_backup_state() == (False, "Daily backups are off (BACKUP_DAILY=0).")
    monkeypatch.setenv("BACKUP_DAILY", "1")
    on, line = backup.daily_backup_state()
    if ON_POSTGRESQL and shutil.which("pg_dump") is None:
        assert not on
        assert "pg_dump was not found" in line
    else:
        assert on
        assert "BACKUP_DAILY=0 turns them off" in line


# --- helpers for the commands on scratch databases --------------------------------------------


def scratch_env(data_dir: Path, database: Path) -> dict[str, str]:
    env = dict(os.environ, DATA_DIR=str(data_dir), SQLITE_PATH=str(database), SECRET_KEY="k" * 50)
    for name in ("DATABASE_URL", "REDIS_URL", "BACKUP_DAILY", "DJANGO_ALLOW_ASYNC_UNSAFE"):
        env.pop(name, None)
    return env


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


DJANGO_MIGRATIONS = (
    "CREATE TABLE django_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, "
    "app VARCHAR(255) NOT NULL, name VARCHAR(255) NOT NULL, applied DATETIME NOT NULL)"
)


def site_like_database(path: Path, *, rows: int = 0, users: int = 0) -> None:
    """A WAL database with the tables `restore` looks at, and `rows` rows of 1 kB."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute(DJANGO_MIGRATIONS)
    con.execute("CREATE TABLE auth_user (id INTEGER PRIMARY KEY, username TEXT NOT NULL)")
    con.execute("CREATE TABLE ledger (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
    con.executemany(
        "INSERT INTO auth_user (username) VALUES (?)", [(f"u{n}",) for n in range(users)]
    )
    con.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
        "INSERT INTO ledger (body) SELECT randomblob(1000) FROM n WHERE ? > 0",
        [max(rows, 1), rows],
    )
    con.commit()
    con.close()


def summary(path: Path) -> tuple:
    """(integrity_check, rows, a checksum of every row) of an SQLite database."""
    con = sqlite3.connect(path)
    try:
        check = con.execute("PRAGMA integrity_check").fetchall()
        ledger = hashlib.sha256()
        for row_id, body in con.execute("SELECT id, body FROM ledger ORDER BY id"):
            ledger.update(row_id.to_bytes(8, "big") + body)
        count = con.execute("SELECT count(*) FROM ledger").fetchone()[0]
        return check, count, ledger.hexdigest()
    finally:
        con.close()


def file_state(path: Path) -> dict[str, str]:
    """The bytes of a database and of its WAL, hashed. (A reader may leave an empty WAL
    and the -shm index beside a database it opened: neither holds data.)"""
    state = {}
    for suffix in ("", "-wal"):
        file = Path(f"{path}{suffix}")
        if file.exists() and file.stat().st_size:
            state[suffix] = hashlib.sha256(file.read_bytes()).hexdigest()
    return state


# --- a backup killed at any moment ------------------------------------------------------------


@sqlite_only
def test_a_backup_killed_at_any_moment_leaves_the_database_whole_and_no_half_backup(tmp_path):
    """A 60 MB database; `manage.py backup` SIGKILLed before its copy starts, as the
    `.partial` appears, during the copy, the integrity check and the rename. Each time the
    live database passes its integrity check with every row, and every file under a final
    name is a whole backup; the next backup succeeds and removes the stale partial."""
    database = tmp_path / "db.sqlite3"
    site_like_database(database, rows=60_000, users=1)
    before = summary(database)
    assert before[0] == [("ok",)]
    assert before[1] == 60_000
    env = scratch_env(tmp_path, database)
    directory = tmp_path / "backups"
    partials_left = 0
    # Seconds after the .partial appears (None: 0.2 s after the start, before any copy).
    for delay in (None, 0.0, 0.03, 0.08, 0.15, 0.25):
        process = subprocess.Popen(
            [sys.executable, "manage.py", "backup"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if delay is None:
            time.sleep(0.2)
        else:
            deadline = time.monotonic() + 20
            while not list(directory.glob("*.partial")) and process.poll() is None:
                assert time.monotonic() < deadline, "no .partial appeared"
                time.sleep(0.002)
            time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        partials_left += bool(list(directory.glob("*.partial")))
        assert summary(database) == before, delay
        for final in directory.glob("aoristos-*.sqlite3"):
            assert summary(final) == before, (delay, final)
    assert partials_left >= 3, "the kills should land while a copy is being made"

    done = manage("backup", env=env)
    assert done.returncode == 0, done.stderr
    assert list(directory.glob("*.partial")) == []
    made = Path(done.stdout.split("Backed up the database to ", 1)[1].split(" (", 1)[0])
    assert summary(made) == before
    assert summary(database) == before
    assert "Restore it with: manage.py restore" in done.stdout


# --- a backup under write load ----------------------------------------------------------------


class Writer(threading.Thread):
    """Commits one row after another into `ledger`; `acknowledged` holds every id whose
    commit returned."""

    def __init__(self, path: Path):
        super().__init__(daemon=True)
        self.path = path
        self.acknowledged: list[int] = []
        self.stop = threading.Event()
        self.error: BaseException | None = None

    def run(self):
        try:
            con = sqlite3.connect(self.path, timeout=20, isolation_level=None)
            con.execute("PRAGMA synchronous=NORMAL")
            while not self.stop.is_set():
                con.execute("BEGIN IMMEDIATE")
                row = con.execute("INSERT INTO ledger (body) VALUES (randomblob(200))").lastrowid
                con.execute("COMMIT")
                self.acknowledged.append(row)
            con.close()
        except BaseException as error:  # noqa: BLE001 (reported by the test)
            self.error = error


@sqlite_only
def test_a_backup_under_write_load_restores_every_write_acknowledged_before_it_began(tmp_path):
    database = tmp_path / "db.sqlite3"
    site_like_database(database, rows=20_000)
    writer = Writer(database)
    writer.start()
    while len(writer.acknowledged) < 200:
        time.sleep(0.01)
    acknowledged = set(writer.acknowledged)  # right before the backup starts
    made = manage(
        "backup", "--output", str(tmp_path / "copy.sqlite3"), env=scratch_env(tmp_path, database)
    )
    during = len(writer.acknowledged) - len(acknowledged)
    writer.stop.set()
    writer.join(timeout=10)
    assert writer.error is None
    assert made.returncode == 0, made.stderr
    assert during > 50, "the writer should go on while the backup is made"

    target = tmp_path / "restored" / "db.sqlite3"
    restored = manage(
        "restore",
        str(tmp_path / "copy.sqlite3"),
        "--force",
        env=scratch_env(tmp_path / "restored", target),
    )
    assert restored.returncode == 0, restored.stderr
    assert "Restored" in restored.stdout
    check, count, _ = summary(target)
    assert check == [("ok",)]
    con = sqlite3.connect(target)
    ids = {row[0] for row in con.execute("SELECT id FROM ledger")}
    con.close()
    assert acknowledged <= ids
    # A snapshot: the rows up to some commit, with none missing before it.
    assert ids == set(range(1, max(ids) + 1))
    assert count == len(ids)


# --- restore refuses, and changes nothing -----------------------------------------------------


@sqlite_only
def test_restore_refuses_what_is_not_a_whole_backup_of_this_site(tmp_path):
    live = tmp_path / "db.sqlite3"
    site_like_database(live, rows=10)
    env = scratch_env(tmp_path, live)
    unchanged = file_state(live)

    text = tmp_path / "notes.txt"
    text.write_text("Kampanjen Mörkrets hjärta\n" * 100)
    stranger = tmp_path / "stranger.sqlite3"
    con = sqlite3.connect(stranger)
    con.execute("CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT)")
    con.commit()
    con.close()
    good = tmp_path / "good.sqlite3"
    site_like_database(good, rows=2000)
    damaged = tmp_path / "damaged.sqlite3"
    con = sqlite3.connect(good)
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()
    data = bytearray(good.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 8192] = os.urandom(8192)  # pages of the ledger
    data[4096 + 8 : 4096 + 16] = b"\xff" * 8  # and a page header
    damaged.write_bytes(bytes(data))

    cases = {
        text: "is not a backup of this site: neither an SQLite database nor a pg_dump",
        damaged: "is damaged. Choose another backup",
        stranger: "is an SQLite database, but not of this site: it has no django_migrations",
        tmp_path / "missing.sqlite3": "No such file",
    }
    for path, message in cases.items():
        refused = manage("restore", str(path), "--force", env=env)
        assert refused.returncode == 1, (path, refused.stdout)
        assert message in refused.stderr, refused.stderr
        assert file_state(live) == unchanged, path
    assert not (tmp_path / "backups").exists()  # not even a safety backup was taken


@sqlite_only
def test_restore_refuses_to_replace_a_database_with_user_accounts_without_force(tmp_path):
    live = tmp_path / "db.sqlite3"
    site_like_database(live, rows=10, users=2)
    other = tmp_path / "other.sqlite3"
    site_like_database(other, rows=30)
    env = scratch_env(tmp_path, live)
    unchanged = file_state(live)
    before = summary(live)

    refused = manage("restore", str(other), env=env)
    assert refused.returncode == 1
    assert "holds 2 user accounts; restoring would replace all of it" in refused.stderr
    assert "run the restore again with --force" in refused.stderr
    assert file_state(live) == unchanged

    forced = manage("restore", str(other), "--force", env=env)
    assert forced.returncode == 0, forced.stderr
    assert summary(live) == summary(other)
    safety = Path(
        forced.stdout.split("The database it replaced is kept in ", 1)[1].split(" ", 1)[0]
    )
    assert parse_name(safety.name)[1] == "before-restore"
    assert summary(safety) == before
    # This scratch database has none of the site's migrations: the command says so.
    assert "`make serve` applies them" in forced.stdout


@sqlite_only
def test_a_database_sqlite_cannot_read_is_replaced_only_with_force_and_kept(tmp_path):
    """The reason to restore, perhaps: the database file is garbage. Without --force it is
    left alone; with it, its bytes are kept as the safety backup, and the backup restored."""
    live = tmp_path / "db.sqlite3"
    garbage = os.urandom(100_000)
    live.write_bytes(garbage)
    good = tmp_path / "good.sqlite3"
    site_like_database(good, rows=50)
    env = scratch_env(tmp_path, live)

    refused = manage("restore", str(good), env=env)
    assert refused.returncode == 1
    assert "cannot be read (file is not a database) and may still hold data" in refused.stderr
    assert live.read_bytes() == garbage

    forced = manage("restore", str(good), "--force", env=env)
    assert forced.returncode == 0, forced.stderr
    assert summary(live) == summary(good)
    [safety] = (tmp_path / "backups").glob("*-before-restore.sqlite3")
    assert safety.read_bytes() == garbage


@sqlite_only
@pytest.mark.django_db(transaction=True)
def test_a_backup_of_the_site_restores_into_an_empty_data_directory(tmp_path, django_user_model):
    """The test database itself (every migration, a user): backed up while this process
    holds it open, restored where there is nothing yet, without --force."""
    django_user_model.objects.create_user(username="gunnar", password="x")
    connection.ensure_connection()
    copy = tmp_path / "site.sqlite3"
    backup.sqlite_copy(Path(connection.settings_dict["NAME"]), copy)
    target = tmp_path / "fresh" / "db.sqlite3"
    restored = manage("restore", str(copy), env=scratch_env(tmp_path / "fresh", target))
    assert restored.returncode == 0, restored.stderr
    assert "lacks" not in restored.stdout
    con = sqlite3.connect(target)
    assert con.execute("SELECT username FROM auth_user").fetchall() == [("gunnar",)]
    con.close()


# --- the daily child --------------------------------------------------------------------------


def children_watching(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if (
                b"--watch-parent" in command
                and command[command.index(b"--watch-parent") + 1] == str(pid).encode()
            ):
                found.append(int(entry.name))
    return found


def wait_for(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return value


@sqlite_only
def test_the_daily_child_backs_up_once_a_day_and_exits_when_its_parent_is_gone(tmp_path):
    live = tmp_path / "db.sqlite3"
    site_like_database(live, rows=100)
    directory = tmp_path / "backups"
    directory.mkdir()
    # Twelve weekly backups, the newest a week old: with the new one the rotation keeps
    # the 7 newest and 4 weeks before them, and removes the 2 oldest.
    for weeks in range(1, 13):
        old = datetime.now(UTC) - timedelta(weeks=weeks, minutes=1)
        shutil.copyfile(live, directory / backup_name(old, "sqlite", backup.DAILY))
    parent = subprocess.Popen(["sleep", "60"])
    child = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "backup",
            "--daily",
            "--watch-parent",
            str(parent.pid),
            "--interval",
            "0.2",
        ],
        cwd=ROOT,
        env=scratch_env(tmp_path, live),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(
            lambda: len(backup.daily_backups(os.listdir(directory))) == 11,
            20,
            "a daily backup taken and the rotation applied",
        )
        time.sleep(1)  # several wakes: no second backup within the day
        dailies = backup.daily_backups(os.listdir(directory))
        assert len(dailies) == 11
        assert datetime.now(UTC) - dailies[0][0] < timedelta(minutes=1)
        assert child.poll() is None
        parent.kill()
        parent.wait()
        child.wait(timeout=10)  # it notices within its 0.2 s
        out = child.stdout.read()
        assert "Daily backup: " in out
        assert out.count("Rotation: removed the old daily backup") == 2
    finally:
        for process in (parent, child):
            if process.poll() is None:
                process.kill()
                process.wait()


@sqlite_only
def test_serve_starts_the_daily_child_at_its_exec_and_it_ends_with_the_server(tmp_path):
    """What `serve` does, in a process that execs into `sleep` instead of granian: it
    returns at once, the child starts its work once the exec happened (as granian, the
    pid is the same), takes the first daily backup and exits when the process ends."""
    live = tmp_path / "db.sqlite3"
    site_like_database(live, rows=100)
    script = (
        "import os, time, django\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'aoristos_site.settings')\n"
        "django.setup()\n"
        "from core.backup import start_daily_backups\n"
        "started = time.monotonic()\n"
        "start_daily_backups()\n"
        "print(f'{time.monotonic() - started:.3f}', flush=True)\n"
        "os.execv('/bin/sleep', ['sleep', '3'])\n"
    )
    server = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=scratch_env(tmp_path, live),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        seconds = float(server.stdout.readline())
        assert seconds < 0.5, "serve must not wait for the backups"
        made = wait_for(
            lambda: list((tmp_path / "backups").glob("*-daily.sqlite3")),
            15,
            "the first daily backup",
        )
        assert summary(made[0]) == summary(live)
        watching = children_watching(server.pid)
        assert len(watching) == 1
        server.wait(timeout=10)
        wait_for(lambda: not children_watching(server.pid), 10, "the child to end with the server")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


# --- PostgreSQL -------------------------------------------------------------------------------


def pg_connect(dbname: str | None = None):
    import psycopg

    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"] or "localhost",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"],
        dbname=dbname or db["NAME"],
        autocommit=True,
    )


def pg_url(dbname: str) -> str:
    db = connection.settings_dict
    return (
        f"postgresql://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or 'localhost'}:"
        f"{db['PORT'] or 5432}/{dbname}"
    )


@postgresql_only
@pytest.mark.django_db
def test_a_pg_dump_under_write_load_restores_every_acknowledged_write(tmp_path):
    """pg_dump of the test database while a writer commits rows; `manage.py restore` into
    an empty scratch database; every row acknowledged before the backup began is there."""
    scratch = f"{connection.settings_dict['NAME']}_restore"
    with pg_connect() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{scratch}"')
        admin.execute(f'CREATE DATABASE "{scratch}"')
        admin.execute("CREATE TABLE backup_probe (id serial PRIMARY KEY, body text NOT NULL)")
    acknowledged: list[int] = []
    stop = threading.Event()

    def write():
        with pg_connect() as con:
            while not stop.is_set():
                acknowledged.append(
                    con.execute(
                        "INSERT INTO backup_probe (body) VALUES ('x') RETURNING id"
                    ).fetchone()[0]
                )

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        while len(acknowledged) < 100:
            time.sleep(0.01)
        before = set(acknowledged)
        env = dict(
            os.environ,
            DATA_DIR=str(tmp_path),
            DATABASE_URL=pg_url(connection.settings_dict["NAME"]),
        )
        made = manage("backup", env=env)
        stop.set()
        writer.join(timeout=10)
        assert made.returncode == 0, made.stderr
        dump = Path(made.stdout.split("Backed up the database to ", 1)[1].split(" (", 1)[0])
        assert dump.suffix == ".pgdump"
        assert dump.stat().st_mode & 0o077 == 0

        env["DATABASE_URL"] = pg_url(scratch)
        restored = manage("restore", str(dump), env=env)
        assert restored.returncode == 0, restored.stderr
        with pg_connect(scratch) as con:
            ids = {row[0] for row in con.execute("SELECT id FROM backup_probe")}
        assert before <= ids
        assert ids == set(range(min(ids), max(ids) + 1))

        # Now the scratch database holds a user account: refused without --force.
        with pg_connect(scratch) as con:
            con.execute(
                "INSERT INTO auth_user (username, password, is_superuser, first_name, "
                "last_name, email, is_staff, is_active, date_joined) VALUES "
                "('gunnar', '', false, '', '', '', false, true, now())"
            )
            con.execute("CREATE TABLE later_migration (id int)")  # newer than the dump
        refused = manage("restore", str(dump), env=env)
        assert refused.returncode == 1
        assert "holds 1 user account; restoring would replace all of it" in refused.stderr
        forced = manage("restore", str(dump), "--force", env=env)
        assert forced.returncode == 0, forced.stderr
        safety = Path(
            forced.stdout.split("The database it replaced is kept in ", 1)[1].split(" ", 1)[0]
        )
        assert safety.name.endswith("-before-restore.pgdump")
        with pg_connect(scratch) as con:
            assert con.execute(
                "SELECT count(*) FROM auth_user WHERE username = 'gunnar'"
            ).fetchone() == (0,)
            assert {row[0] for row in con.execute("SELECT id FROM backup_probe")} == ids
            assert con.execute("SELECT to_regclass('later_migration')").fetchone() == (None,)
    finally:
        stop.set()
        writer.join(timeout=10)
        with pg_connect() as admin:
            admin.execute("DROP TABLE IF EXISTS backup_probe")
            admin.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')


@postgresql_only
def test_restore_on_postgresql_refuses_an_sqlite_backup(tmp_path):
    copy = tmp_path / "site.sqlite3"
    site_like_database(copy)
    with pytest.raises(
        backup.BackupError, match="is an SQLite database, but this site uses PostgreSQL"
    ):
        backup.check_backup(copy)
