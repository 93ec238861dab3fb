"""The live stream of a campaign's table: server-sent events, served on the event loop.

An open page must cost almost nothing, so the stream is a plain ASGI application (the
router in `aoristos_site/asgi.py` sends `/live/` here) rather than a Django view:

- **No thread and no database connection per stream.** The few database reads a stream
  needs (its session and membership when it opens; a catch-up after a long absence) run
  in one small pool of `DB_THREADS` threads per process, each with its own connection, so
  the connections stay bounded however many pages are open.
- **One hub per campaign and process** (`Hub`) hears the broadcaster, keeps the campaign's
  recent events in order, and renders each event once per audience (GM or player, and
  language). A stream only copies the rendered bytes of what it has not sent yet.
- **Gap-free and in order.** Every event has the campaign's sequence number. The hub
  appends an event only when it is the next number. Most events arrive whole, from this
  process or through Redis from another (`campaign_log.broadcast`), and need no database read;
  one that arrives ahead of an earlier one waits a moment (`GAP_HOLD_SECONDS`) for it.
  Otherwise the hub reads what is missing from the database, once for the process, in
  one query (`reading.events_after`). A stream whose page is far behind catches up
  from the database in batches, then follows the hub. A read is one statement, one
  snapshot (`reading.log_rows`), and the hub and a catch-up advance only over a run
  without a hole: should a number be missing while later ones are there, they read again
  (`Hub.read_run`), and only after `GAP_WAIT_SECONDS` log it and go on without it.
- **Membership changes are events in the same order.** When the hub reaches the removal
  of a membership, that member's streams end there: they get nothing after it.
- **Limits with clear answers**: at most `STREAMS_PER_MEMBER` streams per member (a new one
  closes the oldest, which tells its page why and does not reconnect), and at most
  `max_streams()` in the process (503 with Retry-After), below what the file descriptors
  and the server's backpressure allow, so pages keep answering whatever the streams do.
- **Clean stop.** On SIGTERM or SIGINT every stream ends at once (the pages show
  *reconnecting…* and catch up from the restarted server), so the process can exit.
"""

import asyncio
import contextlib
import ctypes
import gc
import logging
import os
import re
import signal
import threading
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import import_module

from django.conf import settings
from django.db import close_old_connections
from django.http.cookie import parse_cookie
from django.utils import translation
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext

from campaign_log import lines, reading
from campaign_log.broadcast import get_broadcaster
from core import outage
from core.limits import max_streams

log = logging.getLogger(__name__)

KEEPALIVE_SECONDS = 15
CATCH_UP_BATCH = 200
BUFFER_SIZE = 256  # recent events a hub keeps, rendered, for streams to copy
STREAMS_PER_MEMBER = 4
DB_THREADS = 4
POLL_SECONDS = 2.0  # with Redis: how often hubs check the database for missed events
RETRY_AFTER_SECONDS = 10
GAP_WAIT_SECONDS = 2.0  # how long a missing number is read again for before it is passed
GAP_FIRST_RETRY = 0.02  # the first wait before reading a hole again; it doubles
GAP_HOLD_SECONDS = 0.05  # how long a message heard ahead of a missing one waits for it
TRIM_EVERY = 256  # streams closed between two memory trims

PATH = re.compile(r"^/live/campaigns/([0-9]{1,18})/events/?$")
SCREEN_PATH = re.compile(r"^/live/screens/([A-Za-z0-9_-]{16,40})/events/?$")  # issue 47
SEQ = re.compile(r"^[0-9]{1,18}$")

_db_pool: ThreadPoolExecutor | None = None
_db_pool_lock = threading.Lock()


def db_pool() -> ThreadPoolExecutor:
    global _db_pool
    with _db_pool_lock:
        if _db_pool is None:
            _db_pool = ThreadPoolExecutor(max_workers=DB_THREADS, thread_name_prefix="stream-db")
        return _db_pool


def drain_db_pool() -> None:
    """Wait for the database work in flight to end and let the pool's threads go (their
    connections close with them); the next stream starts a fresh pool. For the end of a
    test, whose database is emptied next: a stream's catch-up read still running then holds
    a lock the emptying needs while it waits for one the emptying took (PostgreSQL calls
    it a deadlock)."""
    global _db_pool
    with _db_pool_lock:
        pool, _db_pool = _db_pool, None
    if pool is not None:
        pool.shutdown(wait=True)


def _in_db_thread(function, *args):
    close_old_connections()  # drops a broken or expired connection, as a request would
    try:
        return function(*args)
    finally:
        close_old_connections()


async def run_db(function, *args):
    """Run `function(*args)` in the stream's database pool."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(db_pool(), _in_db_thread, function, *args)


# Who is asking ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Member:
    user_id: int
    membership_id: int
    is_gm: bool


def member_of(session_key: str, campaign_id: int) -> Member | None:
    """The logged-in member of the campaign behind a session key, checked as Django's
    `get_user` checks a session (its backend, an active user, the session's auth hash).
    Two queries, their SQL built once: the session, and the membership with its user.
    Opening a thousand pages at once runs this a thousand times."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.backends import ModelBackend

    from campaigns.access import membership_with_campaign_and_user

    if not session_key or len(session_key) > 64:
        return None
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    data = store.load()
    user_id = str(data.get(SESSION_KEY, ""))
    if not SEQ.match(user_id) or data.get(BACKEND_SESSION_KEY) not in (
        settings.AUTHENTICATION_BACKENDS
    ):
        return None
    membership = membership_with_campaign_and_user(campaign_id, int(user_id))
    if membership is None:
        return None
    user = membership.user
    session_hash = data.get(HASH_SESSION_KEY) or ""
    if not ModelBackend().user_can_authenticate(user) or not constant_time_compare(
        session_hash, user.get_session_auth_hash()
    ):
        return None
    return Member(user.pk, membership.pk, membership.is_gm)


def screen_of(token: str) -> tuple[int, Member] | None:
    """A table screen's campaign and the member it reads as (issue 47): a player, no more
    (`is_gm` False), its ids the screen's own, negative, so no member's ever matches."""
    from campaigns.models import TableScreen

    found = TableScreen.objects.filter(token=token).values_list("pk", "campaign_id").first()
    if found is None:
        return None
    pk, campaign_id = found
    return campaign_id, Member(-pk, -pk, False)


def language_of(cookies: dict) -> str:
    chosen = cookies.get(settings.LANGUAGE_COOKIE_NAME, "")
    return (
        chosen if chosen in {code for code, _name in settings.LANGUAGES} else settings.LANGUAGE_CODE
    )


# Events, rendered once per audience ---------------------------------------------------------


def sse_message(html: str, seq: int) -> str:
    data = "".join(f"data: {line}\n" for line in html.strip().splitlines() or [""])
    return f"id: {seq}\n{data}\n"


class Entry:
    """One stored event as the hub keeps it: its message (the GM's full view) and its
    rendering per view and language (`campaign_log.lines`), made on first use, or carried with
    the message from the process that stored it. The GM and the players share one
    rendering of an event they see alike."""

    __slots__ = ("seq", "message", "removed_membership", "rendered")

    def __init__(self, message):
        self.seq = int(message["seq"])
        self.message = message
        self.removed_membership = (
            message.get("membership_id") if message["kind"] == "member-removed"
            else -message["screen"] if message["kind"] == "notice-screen" and message.get("ended")
            else None  # a table screen ended: its stream (member id -pk) ends here
        )
        self.rendered: dict[tuple[bool, str], bytes] = {}

    def chunk(self, audience: tuple[bool, str]) -> bytes:
        chunk = self.rendered.get(audience)
        if chunk is None:
            is_gm, language = audience
            view = lines.view_of(self.message, is_gm=is_gm)
            shared = (not is_gm, language) if view == "all" else None
            chunk = self.rendered.get(shared) if shared else None
            if chunk is None:
                html = lines.render_view(self.message, view, language)
                chunk = sse_message(html, self.seq).encode()
            self.rendered[audience] = chunk
        return chunk


def closing_message(text: str) -> bytes:
    """A named event: the page shows `text` and does not reconnect (hx-sse:close)."""
    return f"event: table-closed\ndata: {text}\n\n".encode()


# Streams and hubs ---------------------------------------------------------------------------


@dataclass(eq=False)
class Stream:
    member: Member
    audience: tuple[bool, str]
    cursor: int  # the last seq this page has
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    closing: str = ""  # why the server ends it: "superseded" or "stop"
    keepalive_due: bool = False
    gone: bool = False


class Hub:
    """A campaign's events in one process: heard once, read once, rendered once per
    audience, copied to every open stream of the campaign."""

    def __init__(self, registry: "Registry", campaign_id: int):
        self.registry = registry
        self.campaign_id = campaign_id
        self.streams: set[Stream] = set()
        self.entries: deque[Entry] = deque(maxlen=BUFFER_SIZE)
        self.head = 0  # every event up to here is known
        self.base = 0  # the entries hold every event after this number
        self.ready = asyncio.Event()
        self.passed: set[int] = set()  # numbers given up on (`read_run`): nobody waits again
        self.pending: dict[int, dict] = {}  # whole messages heard ahead of a missing one
        self.hold: asyncio.TimerHandle | None = None
        self.fetching = False
        self.dirty = False
        self.subscription = get_broadcaster().subscribe(campaign_id, self.heard)
        self.task = asyncio.get_running_loop().create_task(self.start())

    async def start(self) -> None:
        from campaigns.models import Campaign

        def last_seq():
            return (
                Campaign.objects.filter(pk=self.campaign_id)
                .values_list("event_seq", flat=True)
                .first()
            )

        try:
            self.head = self.base = await run_db(last_seq) or 0
        except Exception as error:
            if not outage.note(error, answered=False):
                log.exception("live table: could not read campaign %s", self.campaign_id)
        self.ready.set()
        if self.dirty:
            self.fetch()
        else:
            self.settle()

    def heard(self, message) -> None:
        """The broadcaster's callback, on this loop: a whole message (from this process,
        or from another through Redis), or only a number (an event some members may not
        see all of, made by another process: read from the database).

        A whole message that arrives ahead of an earlier one (two processes published at
        once) waits in `pending` for up to GAP_HOLD_SECONDS for it, then the database
        is read."""
        seq = int(message["seq"])
        if seq <= self.head:
            return
        if "kind" not in message:
            if self.ready.is_set():
                self.fetch()
            else:
                self.dirty = True
            return
        if len(self.pending) < BUFFER_SIZE:
            self.pending[seq] = message
        else:
            self.dirty = True  # far ahead: the read brings it
        if self.ready.is_set() and not self.fetching:
            self.settle()

    def settle(self, then: str = "hold") -> None:
        """Append the pending messages that run on from the head. When one is missing
        before the rest: read it after GAP_HOLD_SECONDS unless it arrives first ("hold"),
        read it now ("fetch"), or leave it to the next event or poll (None: the last read
        failed, the database is away)."""
        for seq in [seq for seq in self.pending if seq <= self.head]:
            del self.pending[seq]
        while self.pending:
            seq = min(self.pending)
            if not self.follows(seq, self.head):
                break
            self.append([self.pending.pop(seq)])
        if not self.pending or then is None:
            return
        if then == "fetch":
            self.fetch()
        elif self.hold is None:
            self.hold = asyncio.get_running_loop().call_later(GAP_HOLD_SECONDS, self.held)

    def held(self) -> None:
        self.hold = None
        self.settle("fetch")

    def follows(self, seq: int, after: int) -> bool:
        """Whether `seq` comes right after `after`: every number between was passed."""
        return all(number in self.passed for number in range(after + 1, seq))

    def append(self, messages) -> None:
        """Keep the events that run on from the head, in order; stop at a hole."""
        for message in messages:
            entry = Entry(message)
            if entry.seq <= self.head:
                continue
            if not self.follows(entry.seq, self.head):
                break  # never step over a number (`read_run` passes one after a wait)
            if len(self.entries) == self.entries.maxlen:
                self.base = self.entries[0].seq
            self.entries.append(entry)
            self.head = entry.seq
        for stream in self.streams:
            stream.wake.set()

    def fetch(self) -> None:
        """Read what this process missed from the database: one reader at a time."""
        if self.fetching:
            self.dirty = True
            return
        self.fetching = True
        self.dirty = False
        self.registry.spawn(self._fetch())

    async def _fetch(self) -> None:
        then = "hold"
        try:
            while True:
                messages, more = await self.read_run(self.head)
                self.append(messages)
                if not more and not self.dirty:
                    break
                self.dirty = False
        except Exception as error:
            then = None  # the next event or poll (every POLL_SECONDS with Redis) reads again
            if not outage.note(error, answered=False):
                log.exception("live table: catching up campaign %s failed", self.campaign_id)
        finally:
            self.fetching = False
        self.settle(then)

    def read_after(self, after: int) -> list[dict]:
        return reading.events_after(self.campaign_id, after, is_gm=True, limit=CATCH_UP_BATCH)

    async def read_run(self, after: int) -> tuple[list[dict], bool]:
        """The stored events that run on from `after` without a hole, and whether more are
        stored beyond them (a full batch, or a hole after a run).

        One read is one snapshot, and events commit in the order of their numbers, so a
        hole should never show. Should one show all the same (a number missing, a later
        one there), it is read again, with growing waits, for up to GAP_WAIT_SECONDS;
        then the missing numbers are logged once and passed, for this hub's streams too."""
        waited, delay = 0.0, GAP_FIRST_RETRY
        while True:
            messages = await run_db(self.read_after, after)
            expected, count = after, 0
            for message in messages:
                seq = int(message["seq"])
                if not self.follows(seq, expected):
                    break
                expected, count = seq, count + 1
            if count == len(messages):
                return messages, len(messages) >= CATCH_UP_BATCH
            if count:
                return messages[:count], True  # the run now; the hole on the next read
            missing = range(expected + 1, int(messages[0]["seq"]))
            if waited >= GAP_WAIT_SECONDS:
                self.passed.update(missing)
                log.warning(
                    "live table: campaign %s has no event %s after %.1f s of reading again;"
                    " its pages go on without it",
                    self.campaign_id,
                    missing[0] if len(missing) == 1 else f"{missing[0]}-{missing[-1]}",
                    waited,
                )
                continue
            await asyncio.sleep(delay)
            waited += delay
            delay = min(delay * 2, GAP_WAIT_SECONDS / 4)

    def after(self, cursor: int) -> list[Entry]:
        """The kept entries after `cursor`, oldest first (the newest few, usually)."""
        found = []
        for entry in reversed(self.entries):
            if entry.seq <= cursor:
                break
            found.append(entry)
        found.reverse()
        return found

    def close(self) -> None:
        self.subscription.close()
        self.task.cancel()
        if self.hold is not None:
            self.hold.cancel()


class Registry:
    """Every hub and stream of one event loop (one per server process)."""

    def __init__(self, loop):
        self.loop = loop
        self.hubs: dict[int, Hub] = {}
        self.by_user: dict[int, list[Stream]] = {}
        self.count = 0
        self.stopping = False
        self.trimmed_at = 0  # the stream count at the last memory trim
        self.trim_handle: asyncio.TimerHandle | None = None
        self.tasks: set[asyncio.Task] = set()
        self.ticker = loop.create_task(self.tick())
        broadcaster = get_broadcaster()
        if broadcaster.remote:
            broadcaster.on_reconnect(self.poll_soon)

    def spawn(self, coroutine) -> None:
        task = self.loop.create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def hub(self, campaign_id: int) -> Hub:
        hub = self.hubs.get(campaign_id)
        if hub is None:
            hub = self.hubs[campaign_id] = Hub(self, campaign_id)
        return hub

    def add(self, hub: Hub, stream: Stream) -> None:
        hub.streams.add(stream)
        self.count += 1
        self.trimmed_at = max(self.trimmed_at, self.count)
        mine = self.by_user.setdefault(stream.member.user_id, [])
        mine.append(stream)
        while len(mine) > STREAMS_PER_MEMBER:
            oldest = mine.pop(0)
            oldest.closing = "superseded"
            oldest.wake.set()

    def remove(self, hub: Hub, stream: Stream) -> None:
        if stream in hub.streams:
            hub.streams.discard(stream)
            self.count -= 1
        mine = self.by_user.get(stream.member.user_id)
        if mine is not None:
            if stream in mine:
                mine.remove(stream)
            if not mine:
                del self.by_user[stream.member.user_id]
        if not hub.streams and self.hubs.get(hub.campaign_id) is hub:
            del self.hubs[hub.campaign_id]
            hub.close()
        if self.count <= self.trimmed_at - TRIM_EVERY or self.count == 0:
            self.trim_soon()

    def trim_soon(self) -> None:
        """After many streams closed, give their memory back to the system (glibc keeps
        freed heap otherwise): once, a second after the closing settles."""
        self.trimmed_at = self.count
        if self.trim_handle is not None:
            self.trim_handle.cancel()
        self.trim_handle = self.loop.call_later(1.0, release_memory)

    def stop(self) -> None:
        """Server shutdown: every stream ends now; new ones are refused."""
        self.stopping = True
        for hub in self.hubs.values():
            for stream in hub.streams:
                stream.closing = "stop"
                stream.wake.set()

    def poll_soon(self) -> None:
        self.spawn(self.poll())

    async def poll(self) -> None:
        """Compare each hub with its campaign's last number in one query; fetch what is
        missing. The safety net for notices lost while Redis was away."""
        from campaigns.models import Campaign

        hubs = {pk: hub for pk, hub in self.hubs.items() if hub.ready.is_set()}
        if not hubs:
            return

        def last_seqs():
            return dict(Campaign.objects.filter(pk__in=list(hubs)).values_list("pk", "event_seq"))

        try:
            latest = await run_db(last_seqs)
        except Exception as error:
            if not outage.note(error, answered=False):
                log.exception("live table: polling for missed events failed")
            return
        for pk, seq in latest.items():
            if pk in hubs and seq > hubs[pk].head:
                hubs[pk].fetch()

    async def tick(self) -> None:
        """Keep-alives for every stream from one timer; with Redis, the poll."""
        remote = get_broadcaster().remote
        elapsed = 0.0
        step = min(POLL_SECONDS, KEEPALIVE_SECONDS) if remote else KEEPALIVE_SECONDS
        while True:
            await asyncio.sleep(step)
            elapsed += step
            if remote:
                await self.poll()
            if elapsed >= KEEPALIVE_SECONDS:
                elapsed = 0.0
                for hub in self.hubs.values():
                    for stream in hub.streams:
                        stream.keepalive_due = True
                        stream.wake.set()


def release_memory() -> None:
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL("libc.so.6").malloc_trim(0)


_registries: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Registry]" = (
    weakref.WeakKeyDictionary()
)


def registry() -> Registry:
    loop = asyncio.get_running_loop()
    found = _registries.get(loop)
    if found is None:
        found = _registries[loop] = Registry(loop)
        install_signal_handlers(found)
    return found


_signals_installed = False


def install_signal_handlers(registry: Registry) -> None:
    """End every stream on SIGTERM/SIGINT, then let the server's own handler stop it.
    (granian forwards the signal to its worker; a stream it waited for would otherwise
    keep the process alive while any page is open.) Installed once per process."""
    global _signals_installed
    if _signals_installed or threading.current_thread() is not threading.main_thread():
        return
    _signals_installed = True
    for signum in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(signum)

        def handler(number, frame, previous=previous):
            for loop, found in list(_registries.items()):
                with contextlib.suppress(RuntimeError):  # a closed loop has no streams
                    loop.call_soon_threadsafe(found.stop)
            if callable(previous):
                previous(number, frame)
            elif previous == signal.SIG_DFL:
                signal.signal(number, signal.SIG_DFL)
                os.kill(os.getpid(), number)

        try:
            signal.signal(signum, handler)
        except (ValueError, OSError):  # not allowed here: the server's kill timeout applies
            log.debug("no stream signal handler for %s", signum)


# The ASGI application ---------------------------------------------------------------------


async def respond(send, status: int, text: str, headers=()) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": text.encode()})


def header(scope, name: bytes) -> str:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return value.decode("latin-1")
    return ""


def starting_seq(scope) -> int | None:
    """Where the page's history ends: Last-Event-ID on a reconnect, else ?after=.
    None when either is not a plain number."""
    value = header(scope, b"last-event-id").strip()
    if not value:
        query = scope.get("query_string", b"").decode("latin-1")
        for pair in query.split("&"):
            name, _, raw = pair.partition("=")
            if name == "after":
                value = raw
    if not value:
        return 0
    return int(value) if SEQ.match(value) else None


async def application(scope, receive, send) -> None:
    """GET /live/campaigns/<id>/events: the campaign's events for one member; GET
    /live/screens/<token>/events: for a table screen, as a player sees them."""
    match = PATH.match(scope["path"])
    screen = SCREEN_PATH.match(scope["path"]) if match is None else None
    if match is None and screen is None:
        await respond(send, 404, "Not found")
        return
    if scope["method"] not in ("GET", "HEAD"):
        await respond(send, 405, "Method not allowed", [(b"allow", b"GET")])
        return
    cookies = parse_cookie(header(scope, b"cookie"))
    with translation.override(language_of(cookies)):
        if screen is not None:
            await serve(scope, receive, send, None, cookies, screen=screen.group(1))
        else:
            await serve(scope, receive, send, int(match.group(1)), cookies)


async def reader_of(campaign_id: int | None, cookies: dict, screen: str | None):
    """(campaign id, member) of a stream, or None: a session's member of the campaign, or
    a table screen by its token."""
    if screen is not None:
        return await run_db(screen_of, screen)
    member = await run_db(member_of, cookies.get(settings.SESSION_COOKIE_NAME, ""), campaign_id)
    return None if member is None else (campaign_id, member)


async def serve(scope, receive, send, campaign_id: int | None, cookies: dict, *,
                screen: str | None = None) -> None:
    after = starting_seq(scope)
    if after is None:
        await respond(send, 400, gettext("Last-Event-ID and ?after= must be whole numbers."))
        return
    table = registry()
    if table.stopping or table.count >= max_streams():
        await respond(
            send,
            503,
            gettext("The server is busy; the table reconnects by itself shortly."),
            [(b"retry-after", str(RETRY_AFTER_SECONDS).encode())],
        )
        return
    try:
        reader = await reader_of(campaign_id, cookies, screen)
    except Exception as error:
        if not outage.note(error):
            log.exception("live table: could not check a stream's member")
        await respond(
            send,
            503,
            gettext("The table is not available right now."),
            [(b"retry-after", str(outage.RETRY_AFTER_SECONDS).encode())],
        )
        return
    if reader is None:
        await respond(send, 404, gettext("No such table, or you are not at it."))
        return
    campaign_id, member = reader

    hub = table.hub(campaign_id)
    stream = Stream(member, (member.is_gm, translation.get_language()), after)
    table.add(hub, stream)
    watcher = asyncio.get_running_loop().create_task(watch_disconnect(receive, stream))
    try:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream"),
                    (b"cache-control", b"no-cache"),
                    (b"x-accel-buffering", b"no"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b"retry: 1000\n\n", "more_body": True})
        if scope["method"] == "HEAD":
            return
        await follow(hub, stream, send)
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except (OSError, asyncio.CancelledError):
        pass  # the page went away
    except Exception as error:  # e.g. the server's "client disconnected" error
        if type(error).__name__ not in ("ClientDisconnected", "ProtocolError") and not (
            outage.note(error, answered=False)
        ):
            log.exception("live table: a stream failed")
    finally:
        watcher.cancel()
        table.remove(hub, stream)


async def watch_disconnect(receive, stream: Stream) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            stream.gone = True
            stream.wake.set()
            return


async def follow(hub: Hub, stream: Stream, send) -> None:
    """Send the page everything after its cursor, then each new event as the hub gets it,
    until the page leaves, its member is removed, or the server closes it."""
    await hub.ready.wait()
    while not stream.gone:
        stream.wake.clear()
        if stream.closing == "superseded":
            text = gettext(
                "The table is open in another window. Reload this page to follow it here."
            )
            await send_body(send, closing_message(text))
            return
        if stream.closing:  # the server stops: the page reconnects to the next one
            return
        while stream.cursor < hub.base:  # far behind: catch up from the database
            messages, more = await hub.read_run(stream.cursor)
            for entry in map(Entry, messages):
                if entry.seq > hub.base:
                    break
                if not await deliver(stream, entry, send):
                    return
            else:
                if more:
                    continue
            # Nothing else is stored up to the hub's base: follow the hub from there.
            stream.cursor = max(stream.cursor, hub.base)
        chunks = []
        for entry in hub.after(stream.cursor):
            if entry.removed_membership == stream.member.membership_id:
                if chunks:
                    await send_body(send, b"".join(chunks))
                await send_body(send, closing_message(removed_text(entry.removed_membership)))
                return
            chunks.append(entry.chunk(stream.audience))
            stream.cursor = entry.seq
        if chunks:
            await send_body(send, b"".join(chunks))
            stream.keepalive_due = False
            continue
        if stream.keepalive_due:
            stream.keepalive_due = False
            # The keep-alive carries the latest number: a page can tell it is current.
            await send_body(send, f": keep-alive {hub.head}\n\n".encode())
        await stream.wake.wait()


async def deliver(stream: Stream, entry: Entry, send) -> bool:
    """Send one event read for this stream alone (a catch-up). False if it ends the stream."""
    if entry.removed_membership == stream.member.membership_id:
        await send_body(send, closing_message(removed_text(entry.removed_membership)))
        return False
    await send_body(send, entry.chunk(stream.audience))
    stream.cursor = entry.seq
    return True


def removed_text(membership_id: int = 0) -> str:
    if membership_id < 0:  # a table screen's
        return gettext("The GM ended this table screen.")
    return gettext("You are no longer at this table: the GM removed you from the campaign.")


async def send_body(send, body: bytes) -> None:
    await send({"type": "http.response.body", "body": body, "more_body": True})


def events(request, pk: int = 0, token: str = ""):
    """The stream's URL for `reverse()`: the ASGI router serves it (`application`) before
    Django sees the request, so Django itself only answers when the router is bypassed
    (plain WSGI), where a never-ending stream cannot work."""
    from django.http import HttpResponse

    return HttpResponse(
        gettext("The live table needs the ASGI server (make serve)."),
        status=404,
        content_type="text/plain; charset=utf-8",
    )
