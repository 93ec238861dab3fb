"""`serve` with WORKERS and without its set-up (SERVE_SETUP=0 / --no-setup), checked
without starting a server: granian's command line is caught where `serve` would exec it.
The servers themselves run in test_two_processes.py."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError

from core.limits import max_streams
from core.management.commands import serve
from core.serving import PAGE_BACKPRESSURE, check_workers, granian_command, workers_from

REDIS = "redis://127.0.0.1:6379/0"


def option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


# --- core.serving ----------------------------------------------------------------------------


def test_granian_runs_one_worker_unless_asked():
    assert option(granian_command("0.0.0.0", 8000), "--workers") == "1"
    argv = granian_command("0.0.0.0", 8000, workers=4)
    assert option(argv, "--workers") == "4"
    # Backpressure and the stream cap both count per worker process: the same in each.
    assert option(argv, "--backpressure") == str(max_streams() + PAGE_BACKPRESSURE)
    assert argv[-1] == "aoristos_site.asgi:application"


@pytest.mark.parametrize("workers", [0, -1, 65])
def test_granian_command_refuses_a_worker_count_out_of_bounds(workers):
    with pytest.raises(ValueError):
        granian_command("0.0.0.0", 8000, workers=workers)


@pytest.mark.parametrize(
    ("value", "workers"), [(None, 1), ("", 1), ("  ", 1), ("1", 1), (" 8 ", 8), ("64", 64)]
)
def test_workers_from_reads_a_whole_number(value, workers):
    assert workers_from(value) == workers


@pytest.mark.parametrize("value", ["0", "65", "-1", "2.5", "two", "1e3", "٣", "+2", "0x2"])
def test_workers_from_refuses_anything_else(value):
    with pytest.raises(ValueError, match="WORKERS must be a whole number from 1 to 64"):
        workers_from(value)


def test_more_than_one_worker_needs_redis():
    check_workers(1, "")
    check_workers(4, REDIS)
    with pytest.raises(ValueError, match="WORKERS=2 needs REDIS_URL"):
        check_workers(2, "")


# --- serve: up to the exec -------------------------------------------------------------------


class Caught(Exception):
    """Raised where serve would exec granian."""


@pytest.fixture
def serve_run(monkeypatch, settings, tmp_path):
    """call_command("serve", ...) up to granian: the set-up steps are recorded, not run,
    and granian's command line is caught instead of exec'd. Returns (argv, steps, out)."""
    settings.DATA_DIR = tmp_path
    for name in ("WORKERS", "SERVE_SETUP", "SSL_CERTFILE", "SSL_KEYFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LISTEN_HOST", "")  # serve sets it; restored after the test
    # No daily-backup helper: serve never becomes granian here, so it would wait for the
    # test process to end (tests/core/test_backup.py tests it).
    monkeypatch.setenv("BACKUP_DAILY", "0")
    steps = []
    caught = {}

    def execv(path, argv):
        caught["argv"] = argv
        raise Caught

    monkeypatch.setattr(serve, "call_command", lambda name, **kw: steps.append(name))
    monkeypatch.setattr(serve, "load_demo", lambda path: steps.append("demo") or {})
    monkeypatch.setattr(serve.connections, "close_all", lambda: None)
    monkeypatch.setattr(serve.os, "chdir", lambda path: None)
    monkeypatch.setattr(serve.os, "execv", execv)

    def run(*argv):
        out, err = StringIO(), StringIO()
        with pytest.raises(Caught):
            call_command("serve", "--host", "127.0.0.1", *argv, stdout=out, stderr=err)
        return caught["argv"], steps, out.getvalue() + err.getvalue()

    return run


def test_serve_passes_workers_from_the_environment_to_granian(serve_run, monkeypatch, settings):
    settings.REDIS_URL = REDIS
    monkeypatch.setenv("WORKERS", "3")
    argv, steps, out = serve_run()
    assert option(argv, "--workers") == "3"
    assert steps == ["migrate", "collectstatic", "demo"]  # once, before granian's workers
    assert "3 worker processes share the live table through Redis." in out


def test_the_workers_option_wins_over_the_environment(serve_run, monkeypatch, settings):
    settings.REDIS_URL = REDIS
    monkeypatch.setenv("WORKERS", "3")
    argv, _steps, _out = serve_run("--workers", "2")
    assert option(argv, "--workers") == "2"


def test_serve_runs_one_worker_by_default(serve_run, settings):
    settings.REDIS_URL = ""
    argv, _steps, out = serve_run()
    assert option(argv, "--workers") == "1"
    assert "worker processes" not in out


@pytest.mark.parametrize("given", [("env", "2"), ("option", "5")])
def test_serve_refuses_several_workers_without_redis_before_doing_anything(
    given, monkeypatch, settings
):
    settings.REDIS_URL = ""
    for name in ("WORKERS", "SSL_CERTFILE", "SSL_KEYFILE"):
        monkeypatch.delenv(name, raising=False)
    steps = []
    monkeypatch.setattr(serve, "call_command", lambda name, **kw: steps.append(name))
    where, value = given
    argv = ["--workers", value] if where == "option" else []
    if where == "env":
        monkeypatch.setenv("WORKERS", value)
    with pytest.raises(CommandError) as refused:
        call_command("serve", *argv)
    message = str(refused.value)
    assert f"WORKERS={value} needs REDIS_URL" in message
    assert "Set REDIS_URL=redis://host:6379/0" in message
    assert "WORKERS=1" in message
    assert steps == []  # nothing migrated, nothing served


@pytest.mark.parametrize("value", ["0", "65", "zwei", "1.5", "-3"])
def test_serve_refuses_a_bad_worker_count(value, monkeypatch, settings):
    settings.REDIS_URL = REDIS
    monkeypatch.setenv("WORKERS", value)
    for name in ("SSL_CERTFILE", "SSL_KEYFILE"):
        monkeypatch.delenv(name, raising=False)
    steps = []
    monkeypatch.setattr(serve, "call_command", lambda name, **kw: steps.append(name))
    with pytest.raises(CommandError, match="WORKERS must be a whole number from 1 to 64"):
        call_command("serve")
    assert steps == []


# --- serve without its set-up ----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["flag", "env"])
def test_no_setup_only_serves(how, serve_run, monkeypatch, settings):
    settings.REDIS_URL = REDIS
    if how == "env":
        monkeypatch.setenv("SERVE_SETUP", "0")
    argv, steps, out = serve_run(*(["--no-setup"] if how == "flag" else []), "--workers", "2")
    assert steps == []  # no migrate, no collectstatic, no demo
    assert "Demo logins" not in out
    assert option(argv, "--workers") == "2"


@pytest.mark.parametrize("value", ["1", "yes", "true", "on"])
def test_serve_setup_1_is_the_default(value, serve_run, monkeypatch, settings):
    settings.REDIS_URL = ""
    monkeypatch.setenv("SERVE_SETUP", value)
    _argv, steps, _out = serve_run()
    assert steps == ["migrate", "collectstatic", "demo"]


def test_serve_refuses_an_unknown_serve_setup(monkeypatch):
    monkeypatch.setenv("SERVE_SETUP", "maybe")
    for name in ("WORKERS", "SSL_CERTFILE", "SSL_KEYFILE"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(CommandError, match="SERVE_SETUP must be 1 .* or 0"):
        call_command("serve")


@pytest.mark.django_db
def test_no_setup_refuses_a_database_that_lacks_migrations(serve_run, monkeypatch):
    from django.db.migrations.executor import MigrationExecutor

    class Missing:
        app_label, name = "table", "0099_later"

    monkeypatch.setattr(MigrationExecutor, "migration_plan", lambda self, targets: [(Missing, 0)])
    with pytest.raises(CommandError, match=r"lacks 1 migration\(s\) \(table.0099_later\)"):
        serve_run("--no-setup")


@pytest.mark.django_db
def test_no_setup_refuses_a_machine_without_collected_static_files(serve_run, settings, tmp_path):
    settings.STATIC_ROOT = tmp_path / "empty"
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    with pytest.raises(CommandError, match="collectstatic --noinput` on this machine"):
        serve_run("--no-setup")


def test_no_setup_serves_while_the_database_is_away(serve_run, monkeypatch):
    """A process started before its database answers serves (503 until it is back)."""
    from django.db.migrations.executor import MigrationExecutor

    def away(self, *args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(MigrationExecutor, "__init__", away)
    argv, steps, out = serve_run("--no-setup")
    assert steps == []
    assert "serving anyway" in out
    assert option(argv, "--workers") == "1"
