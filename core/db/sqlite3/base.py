"""SQLite whose writers wait in line: ENGINE "core.db.sqlite3".

SQLite lets one connection write at a time. The others wait in its busy handler, which
sleeps and retries: under 50 writers that is not first come, first served, and the
unlucky ones waited until the lock timeout. This backend queues the writers of this
process on a first-come-first-served lock per database file (:class:`WriteQueue`):

- a transaction that takes SQLite's write lock at BEGIN (``transaction_mode``
  IMMEDIATE or EXCLUSIVE, as the settings use) takes its turn before the BEGIN and gives
  it up when the transaction ends: commit, rollback or close;
- outside a transaction, a write statement (anything but SELECT, PRAGMA, EXPLAIN, ...)
  takes its turn for that statement; one that leaves a transaction open (autocommit off,
  or a DEFERRED transaction's first write) keeps it until that transaction ends;
- reads never wait: WAL lets them run beside the writer.

A turn is awaited as long as SQLite's own ``timeout`` (the OPTIONS entry, 5 s by
default), then the same error SQLite would give, "database is locked", is raised. So a
test that holds a transaction open while another thread writes fails after the timeout,
as it would without this backend, instead of hanging. Between processes SQLite's busy
handler stays the last resort.
"""

import os
import sqlite3
import threading
import weakref
from collections import deque

from django.db.backends.sqlite3 import base

# Statements that do not write, by their first word (transaction control is handled
# apart). Anything else takes the turn: a WITH that only reads waits needlessly, but no
# write slips through.
READS = {"SELECT", "VALUES", "EXPLAIN", "PRAGMA"}
TRANSACTION_CONTROL = {"BEGIN", "SAVEPOINT", "RELEASE", "ROLLBACK", "COMMIT", "END"}
NOT_WRITES = frozenset(READS | TRANSACTION_CONTROL)


def is_write(query: str) -> bool:
    words = query.lstrip(" \t\r\n(").split(None, 1)
    return bool(words) and words[0].upper() not in NOT_WRITES


class WriteQueue:
    """A lock taken in the order it was asked for (a ticket lock): each waiter waits on its
    own turn, and releasing hands the lock straight to the longest waiter. It is not tied
    to a thread: a connection takes it and gives it back, whichever thread uses it."""

    def __init__(self):
        self._mutex = threading.Lock()
        self._held = False
        self._waiters: deque[threading.Lock] = deque()

    def acquire(self, timeout: float) -> bool:
        with self._mutex:
            if not self._held:
                self._held = True
                return True
            turn = threading.Lock()
            turn.acquire()
            self._waiters.append(turn)
        if turn.acquire(timeout=max(timeout, 0)):
            return True
        with self._mutex:
            try:
                self._waiters.remove(turn)
            except ValueError:  # handed over just as the wait ran out: it is ours
                return True
            return False

    def release(self) -> None:
        with self._mutex:
            if self._waiters:
                self._waiters.popleft().release()  # the next in line holds it now
            else:
                self._held = False

    @property
    def waiting(self) -> int:
        return len(self._waiters)


_queues: dict[str, WriteQueue] = {}
_queues_mutex = threading.Lock()


def queue_for(name) -> WriteQueue:
    """The one write queue of a database file in this process."""
    name = str(name)
    if not (name.startswith("file:") or name == ":memory:"):
        name = os.path.abspath(name)
    with _queues_mutex:
        return _queues.setdefault(name, WriteQueue())


class Turn:
    """One connection's place in its database's write queue."""

    def __init__(self):
        self.queue: WriteQueue | None = None
        self.timeout = 5.0
        self.held = False

    def take(self) -> None:
        if self.held or self.queue is None:
            return
        if not self.queue.acquire(self.timeout):
            raise sqlite3.OperationalError("database is locked")
        self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self.queue.release()


class QueuedCursor(base.SQLiteCursorWrapper):
    """Takes the connection's turn for a write outside a transaction."""

    turn: Turn

    def execute(self, query, params=None):
        return self._queued(super().execute, query, params)

    def executemany(self, query, param_list):
        return self._queued(super().executemany, query, param_list)

    def _queued(self, run, query, params):
        if not self.turn.held and is_write(query):
            self.turn.take()
        try:
            return run(query, params)
        finally:
            if self.turn.held and not self.connection.in_transaction:
                self.turn.release()


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._turn = Turn()
        # A connection dropped without being closed (its thread ended) gives its turn back.
        weakref.finalize(self, self._turn.release)

    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        self._turn.release()
        self._turn.queue = queue_for(conn_params["database"])
        self._turn.timeout = float(conn_params.get("timeout", 5.0))
        return connection

    def create_cursor(self, name=None):
        cursor = self.connection.cursor(factory=QueuedCursor)
        cursor.turn = self._turn
        return cursor

    def _start_transaction_under_autocommit(self):
        if self.transaction_mode not in ("IMMEDIATE", "EXCLUSIVE"):
            # DEFERRED: the first write statement takes the turn (QueuedCursor).
            return super()._start_transaction_under_autocommit()
        with self.wrap_database_errors:
            self._turn.take()
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._end_turn()
            raise

    def _commit(self):
        try:
            return super()._commit()
        finally:
            self._end_turn()

    def _rollback(self):
        try:
            return super()._rollback()
        finally:
            self._end_turn()

    def _close(self):
        try:
            return super()._close()
        finally:
            self._turn.release()

    def _end_turn(self):
        """Give the turn back once SQLite is out of the transaction (a failed COMMIT
        leaves it open until the rollback that follows)."""
        if self.connection is None or not self.connection.in_transaction:
            self._turn.release()
