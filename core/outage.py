"""The database or Redis away: a 503 per request, one log line per outage.

While the database (or Redis) does not answer, every request that needs it fails the
same way, and a traceback per request buries the one fact worth knowing. So an error
that means "it is away" (`outage_of`) is noted here instead of being logged:

- the first failure of an outage logs one WARNING line, "database unavailable: <the
  error's first line>; answering 503 until it is back", without a traceback (the
  traceback of that first failure is logged at DEBUG, for LOG_LEVEL=DEBUG);
- later failures in the same outage log nothing above DEBUG, only count;
- the first success after it logs one WARNING line, "database back after 2.7 s (68
  requests answered 503)". WARNING rather than INFO: the default LOG_LEVEL is WARNING,
  and the end of an outage belongs beside its start.

The database is back when a query succeeds again (`core.middleware.OutageMiddleware`
watches the queries of requests while an outage lasts) or a new connection opens
(`connection_created`, connected in `core.apps`, which covers the live streams' own
database threads too). Redis is back when a request completes after a probe of the
cache answers (at most one probe per `PROBE_SECONDS` in a process).

The state is per process and thread-safe; pages (core.middleware, core.views) and the
live table's streams (campaign_log.stream) share it through `note()`.
"""

import logging
import sys
import threading
import time

from django.db import InterfaceError, OperationalError

log = logging.getLogger(__name__)

clock = time.monotonic  # patched by tests

# What a 503 asks the client to wait, in seconds: a database restart takes a few.
RETRY_AFTER_SECONDS = 5
PROBE_SECONDS = 1.0  # at most one Redis probe per this many seconds while Redis is away


def first_line(error: BaseException) -> str:
    """The error's first line, without a full stop (a clause of the log line)."""
    lines = str(error).strip().splitlines()
    return lines[0].strip().rstrip(".") if lines else type(error).__name__


class Outage:
    """One dependency (the database, Redis) as this process sees it: away since when, and
    how many requests were answered 503 since."""

    def __init__(self, name: str):
        self.name = name
        self._lock = threading.Lock()
        self.since: float | None = None
        self.answered = 0
        self.probed_at = 0.0

    @property
    def active(self) -> bool:
        return self.since is not None

    def failed(self, error: BaseException, *, answered: bool = True) -> None:
        """`error` showed the dependency away; `answered`: a request got a 503 for it (a
        live table's background read did not)."""
        with self._lock:
            first = self.since is None
            if first:
                self.since = clock()
                self.answered = 0
            if answered:
                self.answered += 1
        if first:
            log.warning(
                "%s unavailable: %s; answering 503 until it is back", self.name, first_line(error)
            )
            log.debug("%s unavailable: the first failure", self.name, exc_info=error)
        else:
            log.debug("%s still unavailable: %s", self.name, first_line(error))

    def back(self) -> None:
        """The dependency answered: ends the outage, if there is one (one line)."""
        if self.since is None:  # the usual case: no lock, nothing to say
            return
        with self._lock:
            if self.since is None:
                return
            seconds, answered = clock() - self.since, self.answered
            self.since, self.answered = None, 0
        log.warning("%s back after %.1f s (%d requests answered 503)", self.name, seconds, answered)

    def probe_due(self) -> bool:
        """True at most once per PROBE_SECONDS while the outage lasts."""
        if self.since is None:
            return False
        with self._lock:
            now = clock()
            if now - self.probed_at < PROBE_SECONDS:
                return False
            self.probed_at = now
            return True

    def forget(self) -> None:
        with self._lock:
            self.since, self.answered, self.probed_at = None, 0, 0.0


database = Outage("database")
redis = Outage("Redis")


def _database_errors() -> tuple[type[BaseException], ...]:
    """Django's wrapped errors, and the drivers' own for code that reaches them unwrapped
    (only drivers this process imported: one it never imported raised nothing).
    IntegrityError, ProgrammingError, DataError and the like are faults, not outages.
    SQLite's OperationalError includes "database is locked" (a writer waited the whole
    timeout): a busy database, answered 503 too."""
    errors: list[type[BaseException]] = [OperationalError, InterfaceError]
    if (sqlite3 := sys.modules.get("sqlite3")) is not None:
        errors.append(sqlite3.OperationalError)
    if (psycopg := sys.modules.get("psycopg")) is not None:
        errors += [psycopg.OperationalError, psycopg.InterfaceError]
    return tuple(errors)


def _redis_errors() -> tuple[type[BaseException], ...]:
    """The Redis client's errors for a server that does not answer, if the client was
    ever imported (it is optional; without it there is no Redis to be away)."""
    exceptions = sys.modules.get("redis.exceptions")
    if exceptions is None:
        return ()
    return (exceptions.ConnectionError, exceptions.TimeoutError)


def outage_of(error: BaseException | None) -> Outage | None:
    """The dependency whose absence `error` shows, or None for any other error."""
    if error is None:
        return None
    if isinstance(error, _database_errors()):
        return database
    if isinstance(error, _redis_errors()):
        return redis
    return None


def note(error: BaseException | None, *, answered: bool = True) -> Outage | None:
    """Note `error` if it shows the database or Redis away (see `Outage.failed`) and return
    that outage; None, noting nothing, for any other error (log that one as before)."""
    outage = outage_of(error)
    if outage is not None:
        outage.failed(error, answered=answered)
    return outage


def database_answered(*args, **kwargs) -> None:
    """A query succeeded or a connection opened: the database is back, if it was away.
    (A receiver for `connection_created`, and called by the middleware's query wrapper.)"""
    database.back()


def probe_redis() -> None:
    """While Redis is away, ask the cache (at most once per PROBE_SECONDS): an answer ends
    the outage. Called after a request's answer is ready; never raises."""
    if not redis.probe_due():
        return
    from django.core.cache import cache

    try:
        cache.get("outage-probe")
    except Exception as error:  # noqa: BLE001 - still away, or broken: not back either
        log.debug("Redis probe failed: %s", first_line(error))
        return
    redis.back()


def forget() -> None:
    """Tests: start without an outage."""
    database.forget()
    redis.forget()
