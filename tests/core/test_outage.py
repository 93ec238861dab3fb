"""The database or Redis away: 503 with Retry-After, one log line per outage (core.outage).

The database goes away as it does for a real server: its connection is closed and every
new one is refused by the driver (`get_new_connection` raises the driver's own
OperationalError, which Django wraps as it would a refused connection), so this runs the
same on SQLite and PostgreSQL. Redis fails for real: the site's Redis cache on a port
where nothing listens (no view needs Redis today, so a view's dependency is made to).
The real server's database goes away as a file or a port that is not there yet.
"""

import contextlib
import json
import logging
import socket
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from email.message import Message

import pytest
import redis
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.core.cache.backends.redis import RedisCache
from django.db import (
    IntegrityError,
    InterfaceError,
    OperationalError,
    ProgrammingError,
    connections,
)
from django.test import Client
from django.urls import reverse

from aoristos_site.settings import cache_from_url
from core import outage
from tests.servers import free_port, start_site_server

pytestmark = pytest.mark.django_db(transaction=True)

REFUSED = {
    "sqlite": "unable to open database file",
    "postgresql": 'connection failed: connection to server at "127.0.0.1", port 5432 failed: '
    "Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?",
}


@pytest.fixture(autouse=True)
def _no_outage():
    outage.forget()
    yield
    outage.forget()


class Database:
    """The test database, which a test can take away and bring back."""

    def __init__(self, monkeypatch):
        self.monkeypatch = monkeypatch
        self.wrapper = connections["default"]

    def away(self) -> None:
        wrapper = self.wrapper
        message = REFUSED.get(wrapper.vendor, "connection refused")

        def refuse(conn_params):
            raise wrapper.Database.OperationalError(message)

        wrapper.close()
        self.monkeypatch.setattr(wrapper, "get_new_connection", refuse)

    def back(self) -> None:
        self.monkeypatch.undo()


@pytest.fixture
def database(monkeypatch):
    database = Database(monkeypatch)
    yield database
    database.back()


def outage_records(caplog) -> list[logging.LogRecord]:
    """Every record at WARNING or above, whoever logged it."""
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


def printed(record: logging.LogRecord) -> str:
    """What the console handler of settings.LOGGING writes for a record."""
    [handler] = [h for h in logging.getLogger().handlers if type(h) is logging.StreamHandler]
    return handler.format(record)


# Pages and the API while the database is away ----------------------------------------------


def test_a_page_answers_503_with_retry_after_while_the_database_is_away(alice_client, database):
    database.away()
    response = alice_client.get(reverse("characters:list"))
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response["Content-Type"].startswith("text/html")
    assert response["Cache-Control"] == "no-store"
    page = response.content.decode()
    assert "Strax tillbaka" in page
    assert "Servern når inte sin databas just nu. Försök igen om några sekunder." in page
    assert "Sidan försöker igen av sig själv." in page
    assert '<meta http-equiv="refresh" content="5">' in page
    assert '<html lang="sv">' in page


def test_the_message_follows_the_chosen_language(alice_client, database):
    alice_client.cookies["django_language"] = "en"
    database.away()
    response = alice_client.get(reverse("characters:list"))
    assert response.status_code == 503
    assert response["Content-Language"] == "en"
    assert "The server cannot reach its database right now." in response.content.decode()


def test_a_form_post_is_not_sent_again_by_the_page(alice_client, database):
    database.away()
    response = alice_client.post(reverse("campaigns:create"), {"name": "Ny"})
    assert response.status_code == 503
    page = response.content.decode()
    assert "http-equiv" not in page
    assert "Försök igen om några sekunder." in page


def test_htmx_gets_the_message_alone(alice_client, database):
    database.away()
    response = alice_client.get(reverse("characters:list"), headers={"HX-Request": "true"})
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    text = response.content.decode()
    assert text.startswith('<p class="error notice" role="alert"')
    assert "<html" not in text


def test_a_client_that_asks_for_json_gets_json(alice_client, database):
    database.away()
    response = alice_client.get(reverse("characters:list"), headers={"Accept": "application/json"})
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"error": "database unavailable; try again in 5 s"}


@pytest.mark.parametrize(
    ("error", "name"),
    [
        (OperationalError("server closed the connection unexpectedly"), "database"),
        (redis.exceptions.TimeoutError("Timeout reading from socket"), "Redis"),
    ],
)
def test_the_api_answers_503_json(client, monkeypatch, error, name):
    """The API reads no database today: a dependency of its view fails as one would."""

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr("characters.api.dice.roll", fail)
    response = client.post(
        reverse("api:roll"), json.dumps({"hand": "2B"}), content_type="application/json"
    )
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json() == {"error": f"{name} unavailable; try again in 5 s"}


# The log: one line when it goes, one when it is back ---------------------------------------


def test_an_outage_is_one_line_in_the_log_and_its_end_another(alice_client, database, caplog):
    page = reverse("characters:list")
    assert alice_client.get(page).status_code == 200
    database.away()
    with caplog.at_level(logging.WARNING):
        answers = [alice_client.get(page) for _ in range(30)]
        assert {a.status_code for a in answers} == {503}
        [went] = outage_records(caplog)
        assert went.name == "core.outage"
        assert went.levelname == "WARNING"
        assert went.getMessage() == (
            f"database unavailable: {REFUSED.get(connections['default'].vendor).splitlines()[0]}; "
            "answering 503 until it is back"
        )
        assert went.exc_info is None
        # Neither django.request's "Service Unavailable: /characters/" nor a traceback.
        assert not [r for r in caplog.records if r.name.startswith("django")]
        assert all("Traceback" not in printed(r) for r in outage_records(caplog))
        caplog.clear()

        database.back()
        assert alice_client.get(page).status_code == 200
        [came_back] = outage_records(caplog)
    assert came_back.levelname == "WARNING"
    assert came_back.getMessage().startswith("database back after ")
    assert came_back.getMessage().endswith(" s (30 requests answered 503)")
    assert not outage.database.active


def test_a_second_outage_is_logged_again(alice_client, database, caplog):
    page = reverse("characters:list")
    with caplog.at_level(logging.WARNING):
        for _ in range(2):
            database.away()
            assert alice_client.get(page).status_code == 503
            database.back()
            assert alice_client.get(page).status_code == 200
    messages = [r.getMessage().split(":")[0].split(" after")[0] for r in outage_records(caplog)]
    assert messages == ["database unavailable", "database back"] * 2


def test_a_query_that_succeeds_ends_the_outage(alice_client, caplog):
    """SQLite's "database is locked" leaves the connection open: the next query that
    succeeds, not a new connection, says the database is back."""
    connections["default"].ensure_connection()
    outage.note(OperationalError("database is locked"))
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert alice_client.get(reverse("characters:list")).status_code == 200
    [record] = outage_records(caplog)
    assert record.getMessage().startswith("database back after ")
    assert record.getMessage().endswith("(1 requests answered 503)")


def test_a_page_without_the_database_does_not_end_the_outage(client, database, caplog):
    database.away()
    outage.note(OperationalError("unable to open database file"))
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert client.get(reverse("healthz")).status_code == 200
    assert outage.database.active
    assert outage_records(caplog) == []


def test_a_session_saved_on_the_way_out_answers_503(alice, monkeypatch, settings, caplog):
    """An error in another middleware (SessionMiddleware saving the session after the
    view) is turned into a response by Django before this middleware sees it: the 500
    handler answers 503 for it, and Django's traceback line is dropped."""
    settings.SESSION_SAVE_EVERY_REQUEST = True
    client = Client(raise_request_exception=False)
    client.force_login(alice)

    def save(self, must_create=False):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr("core.sessions.SessionStore.save", save)
    with caplog.at_level(logging.WARNING):
        response = client.get(reverse("characters:list"))
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "Servern når inte sin databas just nu." in response.content.decode()
    [record] = outage_records(caplog)
    assert record.getMessage() == (
        "database unavailable: server closed the connection unexpectedly; "
        "answering 503 until it is back"
    )
    assert record.exc_info is None


# Redis away -------------------------------------------------------------------------------


def test_a_redis_failure_in_a_view_answers_503_and_logs_once(
    client, alice, password, monkeypatch, caplog
):
    """Views reach Redis only through the login throttle, which fails open (a stopped
    Redis must lock nobody out), so nothing surfaces today. A dependency that does not
    catch: the throttle's clearing after a successful login, made to use the site's Redis
    cache (settings.cache_from_url) on a port where no Redis runs: the real client's
    ConnectionError. When the cache answers again, one line says so."""
    config = cache_from_url(f"redis://127.0.0.1:{free_port()}/0")
    stopped = RedisCache(config["LOCATION"], config)
    monkeypatch.setattr("core.throttle.clear", lambda limit, who: stopped.delete_many([who]))
    login = {"username": "alice", "password": password}
    with caplog.at_level(logging.WARNING):
        answers = [client.post(reverse("login"), login) for _ in range(5)]
        assert {a.status_code for a in answers} == {503}
        assert {a["Retry-After"] for a in answers} == {"5"}
        assert "Servern når inte sitt cacheminne just nu." in answers[0].content.decode()
        assert "http-equiv" not in answers[0].content.decode()  # a POST: not sent again
        [went] = outage_records(caplog)
        assert went.getMessage().startswith("Redis unavailable: Error 111 connecting to")
        assert went.getMessage().endswith(" Connection refused; answering 503 until it is back")
        assert went.exc_info is None
        caplog.clear()

        monkeypatch.undo()  # Redis is back (the tests' cache answers the probe)
        assert client.post(reverse("login"), login).status_code == 302  # logged in
        [came_back] = outage_records(caplog)
    assert came_back.getMessage().startswith("Redis back after ")
    assert came_back.getMessage().endswith("(5 requests answered 503)")


# What is not an outage ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "error", [IntegrityError("UNIQUE constraint failed"), ProgrammingError("no such function")]
)
def test_other_database_errors_stay_500_with_their_traceback(monkeypatch, caplog, error):
    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr("characters.api.dice.roll", fail)
    with caplog.at_level(logging.WARNING):
        response = Client(raise_request_exception=False).post(
            reverse("api:roll"), json.dumps({"hand": "2B"}), content_type="application/json"
        )
    assert response.status_code == 500
    assert response.json() == {"error": "internal error"}
    [record] = outage_records(caplog)
    assert record.name == "django.request"
    assert "Traceback" in printed(record)
    assert not outage.database.active


@pytest.mark.parametrize(
    ("error", "name"),
    [
        (OperationalError("x"), "database"),
        (InterfaceError("connection already closed"), "database"),
        (sqlite3.OperationalError("database is locked"), "database"),
        (redis.exceptions.ConnectionError("x"), "Redis"),
        (redis.exceptions.TimeoutError("x"), "Redis"),
        (redis.exceptions.BusyLoadingError("x"), "Redis"),  # a ConnectionError
        (IntegrityError("x"), None),
        (ProgrammingError("x"), None),
        (redis.exceptions.ResponseError("WRONGTYPE"), None),
        (TimeoutError("x"), None),
        (ConnectionResetError("x"), None),
        (ValueError("x"), None),
    ],
)
def test_which_errors_mean_an_outage(error, name):
    found = outage.outage_of(error)
    assert (found.name if found else None) == name


def test_psycopg_errors_mean_a_database_outage():
    psycopg = pytest.importorskip("psycopg")
    assert outage.outage_of(psycopg.OperationalError("x")) is outage.database
    assert outage.outage_of(psycopg.errors.AdminShutdown("x")) is outage.database
    assert outage.outage_of(psycopg.IntegrityError("x")) is None


def test_threads_failing_at_once_log_one_line(caplog):
    start = threading.Barrier(8)

    def fail():
        start.wait()
        for _ in range(50):
            outage.note(OperationalError("connection refused"))

    with caplog.at_level(logging.WARNING):
        threads = [threading.Thread(target=fail) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        outage.database_answered()
        outage.database_answered()
    assert [r.getMessage().split(":")[0].split(" after")[0] for r in caplog.records] == [
        "database unavailable",
        "database back",
    ]
    assert caplog.records[1].getMessage().endswith("(400 requests answered 503)")


# The real server ---------------------------------------------------------------------------


class Forwarder:
    """A TCP port that leads to the database while it is "up": PostgreSQL as the server
    process sees it, away (connections refused, open ones cut) and back on one address."""

    def __init__(self, port: int, target: tuple[str, int]):
        self.port, self.target = port, target
        self.listener: socket.socket | None = None
        self.sockets: list[socket.socket] = []

    def up(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self.listener.settimeout(0.2)
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def down(self) -> None:
        listener, self.listener = self.listener, None
        if listener is not None:
            listener.close()
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        self.sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while self.listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


class ServerDatabase:
    """The database as a real server process sees it, away and back: SQLite's file in a
    directory that does not exist yet, PostgreSQL behind a port nothing listens on yet."""

    def __init__(self, workdir):
        self.wrapper = connections["default"]
        self.vendor = self.wrapper.vendor
        self.path = workdir / "away" / "db.sqlite3"
        self.port = free_port()
        self.forwarder: Forwarder | None = None

    def env(self) -> dict[str, str]:
        db = self.wrapper.settings_dict
        if self.vendor == "sqlite":
            return {"SQLITE_PATH": str(self.path)}
        url = f"postgresql://{db['USER']}:{db['PASSWORD']}@127.0.0.1:{self.port}/{db['NAME']}"
        return {"DATABASE_URL": url}

    def back(self) -> None:
        if self.vendor == "sqlite":  # the test database, copied to where the server looks
            self.path.parent.mkdir()
            with (
                contextlib.closing(sqlite3.connect(self.wrapper.settings_dict["NAME"])) as source,
                contextlib.closing(sqlite3.connect(self.path)) as copy,
            ):
                source.backup(copy)
        else:
            db = self.wrapper.settings_dict
            target = (db["HOST"] or "localhost", int(db["PORT"] or 5432))
            self.forwarder = self.forwarder or Forwarder(self.port, target)
            self.forwarder.up()

    def away(self) -> None:
        if self.forwarder is not None:
            self.forwarder.down()


def get(url: str, session_key: str) -> tuple[int, Message, str]:
    """Status, headers (names in any case) and text of a page."""
    request = urllib.request.Request(url, headers={"Cookie": f"sessionid={session_key}"})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def wait_for_line(log, text: str, count: int = 1, seconds: float = 10) -> str:
    """The server's log once `text` is in it `count` times (or after `seconds`)."""
    deadline = time.monotonic() + seconds
    while log.read_text().count(text) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return log.read_text()


def session_for(user) -> str:
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session["_auth_user_hash"] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def test_the_real_server_answers_503_and_logs_one_line(alice, tmp_path):
    session_key = session_for(alice)
    database = ServerDatabase(tmp_path)
    server = start_site_server(tmp_path, database.env())
    try:
        page = f"{server.url}{reverse('characters:list')}"
        for _ in range(10):
            status, headers, text = get(page, session_key)
            assert status == 503, server.log.read_text()
            assert headers["Retry-After"] == "5"
            assert "Servern når inte sin databas just nu." in text
        log = wait_for_line(server.log, "database unavailable")
        assert log.count("database unavailable") == 1, log
        assert "answering 503 until it is back" in log, log

        database.back()
        status, _headers, text = get(page, session_key)
        assert status == 200, server.log.read_text()
        assert "alice" in text
        log = wait_for_line(server.log, "database back after")
        assert "(10 requests answered 503)" in log, log

        if database.vendor == "postgresql":  # a restart: the open connection is cut
            database.away()
            assert get(page, session_key)[0] == 503, server.log.read_text()
            database.back()
            assert get(page, session_key)[0] == 200, server.log.read_text()
            log = wait_for_line(server.log, "database back after", count=2)
            assert log.count("database unavailable") == 2, log
            assert log.count("database back after") == 2, log
    finally:
        server.stop()
        database.away()
    log = server.log.read_text()
    assert "Traceback" not in log, log
    assert "Service Unavailable" not in log, log
    assert "Internal Server Error" not in log, log
