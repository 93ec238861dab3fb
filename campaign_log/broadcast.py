"""Fan-out of the campaign log's events: from the thread that stored one to the event loop that
holds the open streams.

Two implementations with one interface, `publish(campaign_id, message)` and
`subscribe(campaign_id, callback)`:

- `LocalBroadcaster` (the default): in-process. `publish` may be called from any thread
  (pages run as WSGI in a thread pool) and never blocks: it schedules one call per event
  loop with `call_soon_threadsafe`, and the loop hands the message to each subscriber's
  callback. In a server process the subscriber is the campaign's hub (`campaign_log.stream`), one
  per campaign, however many pages are open.
- `RedisBroadcaster` (when REDIS_URL is set): the message is delivered in this process at
  once, and goes to the other processes through a Redis pub/sub channel: whole when every
  member may see all of it (`campaign_log.audiences.whole_for_everyone`), so their hubs need no
  database read; otherwise (a secret roll, a combat record whose GM lines hold what
  players may not see) only its number, so no secret ever leaves the database, and each
  other process reads that event once. Publishing to Redis happens in a background thread
  with short timeouts: a frozen or stopped Redis never slows the request that rolled.
  The channels are named after the database (`channel_prefix`), so sites that share one
  Redis never hear each other's tables.

Redis is a fast path, not the record: the hubs also poll the campaigns' last event number
every few seconds while Redis is configured (`campaign_log.stream.POLL_SECONDS`), and at once when
the listener reconnects, so events stored while Redis was away reach every page when it
returns without waiting for the next event.
"""

import asyncio
import contextlib
import functools
import hashlib
import hmac
import json
import logging
import os
import queue
import secrets
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from types import MappingProxyType

from django.conf import settings
from django.db import transaction

from campaign_log.audiences import whole_for_everyone
from campaign_log.lines import prerender

log = logging.getLogger(__name__)

# A message larger than this travels as its number only (the other processes read it).
WHOLE_MAX_BYTES = 64 * 1024
_TOKEN = secrets.token_hex(8)


def process_name() -> str:
    """This process's name on the channels (it skips its own messages): a worker forked
    after this module was imported shares the token, not the pid."""
    return f"{os.getpid()}-{_TOKEN}"
# Redis socket timeouts: a frozen Redis costs the publisher thread this much per try,
# never a request.
REDIS_TIMEOUT = 0.5
PUBLISH_QUEUE_SIZE = 10_000
SIGNATURE_LENGTH = 32  # hex digits of the HMAC-SHA256 (128 bits)


class Subscription:
    def __init__(self, broadcaster: "LocalBroadcaster", campaign_id: int, callback: Callable):
        self.broadcaster = broadcaster
        self.campaign_id = campaign_id
        self.callback = callback
        self.loop = asyncio.get_running_loop()

    def close(self) -> None:
        self.broadcaster.unsubscribe(self)


class LocalBroadcaster:
    remote = False

    def __init__(self):
        self._lock = threading.Lock()
        self._subscribers: dict[int, set[Subscription]] = defaultdict(set)
        self._reconnect_hooks: dict[asyncio.AbstractEventLoop, Callable] = {}

    def subscribe(self, campaign_id: int, callback: Callable) -> Subscription:
        """Call from a coroutine: `callback(message)` runs on the running loop."""
        subscription = Subscription(self, campaign_id, callback)
        with self._lock:
            self._subscribers[campaign_id].add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            subscribers = self._subscribers.get(subscription.campaign_id)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._subscribers[subscription.campaign_id]

    def subscriber_count(self, campaign_id: int) -> int:
        with self._lock:
            return len(self._subscribers.get(campaign_id, ()))

    def on_reconnect(self, callback: Callable) -> None:
        """`callback()` runs on the calling loop whenever the remote channel reconnects
        (events may have been missed while it was away)."""
        self._reconnect_hooks[asyncio.get_running_loop()] = callback

    def publish(self, campaign_id: int, message: dict) -> None:
        self.deliver(campaign_id, message)

    def deliver(self, campaign_id: int, message: dict) -> None:
        frozen = MappingProxyType(dict(message))
        with self._lock:
            subscribers = list(self._subscribers.get(campaign_id, ()))
        by_loop: dict[asyncio.AbstractEventLoop, list[Subscription]] = defaultdict(list)
        for subscription in subscribers:
            by_loop[subscription.loop].append(subscription)
        # One wake-up per event loop (one in a server process), not one per stream; none
        # when this is that loop (a message heard on Redis).
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        for loop, group in by_loop.items():
            try:
                if loop is running:
                    loop.call_soon(call_all, group, frozen)
                else:
                    loop.call_soon_threadsafe(call_all, group, frozen)
            except RuntimeError:  # that loop has closed: its streams are gone
                for subscription in group:
                    self.unsubscribe(subscription)


def call_all(subscriptions: list[Subscription], message) -> None:
    for subscription in subscriptions:
        try:
            subscription.callback(message)
        except Exception:
            log.exception("a live-table subscriber failed")


class RedisBroadcaster(LocalBroadcaster):
    """Shares every table's events with the other server processes through Redis."""

    remote = True

    def __init__(self, url: str):
        super().__init__()
        self.url = url
        self._outbox: queue.Queue = queue.Queue(maxsize=PUBLISH_QUEUE_SIZE)
        self._publisher: threading.Thread | None = None
        self._listeners: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}
        self._ready: dict[asyncio.AbstractEventLoop, asyncio.Event] = {}
        self._last_error_log = 0.0

    # Publishing: a background thread, so a request never waits on Redis.

    def publish(self, campaign_id: int, message: dict) -> None:
        try:  # rendered once here for every process (`campaign_log.lines`)
            message = prerender(message)
        except Exception:  # each hub renders it instead
            log.exception("could not render an event for the other processes")
        self.deliver(campaign_id, message)  # this process's pages need no round trip
        self._start_publisher()
        try:
            self._outbox.put_nowait((campaign_id, message))
        except queue.Full:  # Redis has been away a long time: the poll catches up
            self._log_error("Redis publish queue is full; dropping a notice")

    def _start_publisher(self) -> None:
        with self._lock:
            if self._publisher is None or not self._publisher.is_alive():
                self._publisher = threading.Thread(
                    target=self._publish_forever, name="redis-publisher", daemon=True
                )
                self._publisher.start()

    def _publish_forever(self) -> None:
        import redis

        client = redis.Redis.from_url(
            self.url, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT
        )
        prefix = channel_prefix()
        while True:
            campaign_id, message = self._outbox.get()
            try:
                client.publish(f"{prefix}{campaign_id}", wire(message))
            except Exception as error:  # stored already: other processes poll for it
                self._log_error(f"could not publish to Redis ({error}); other processes poll")

    def _log_error(self, text: str) -> None:
        now = time.monotonic()
        if now - self._last_error_log > 10:  # once per 10 s, not once per roll
            self._last_error_log = now
            log.warning(text)

    # Listening: one task per event loop relays what Redis hears to that loop's hubs.

    def subscribe(self, campaign_id: int, callback: Callable) -> Subscription:
        subscription = super().subscribe(campaign_id, callback)
        loop = asyncio.get_running_loop()
        task = self._listeners.get(loop)
        if task is None or task.done():
            self._ready[loop] = asyncio.Event()
            self._listeners[loop] = loop.create_task(self._listen(loop, self._ready[loop]))
        return subscription

    async def ready(self, timeout: float = REDIS_TIMEOUT * 2) -> None:
        """Wait (briefly) until this loop's listener is subscribed in Redis. A Redis that
        does not answer does not hold a stream up: the poll covers for it."""
        event = self._ready.get(asyncio.get_running_loop())
        if event is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), timeout)

    async def _listen(self, loop, ready: asyncio.Event) -> None:
        import redis.asyncio as aioredis

        while True:
            client = aioredis.Redis.from_url(
                self.url,
                socket_connect_timeout=REDIS_TIMEOUT,
                health_check_interval=5,
            )
            try:
                prefix = channel_prefix()
                async with client.pubsub() as pubsub:
                    await asyncio.wait_for(pubsub.psubscribe(f"{prefix}*"), 2)
                    ready.set()
                    hook = self._reconnect_hooks.get(loop)
                    if hook is not None:
                        hook()  # anything stored while we were away is fetched now
                    while True:
                        # A timeout turns a frozen Redis into a ping, and a failed ping
                        # into a reconnect.
                        message = await pubsub.get_message(
                            ignore_subscribe_messages=True, timeout=5
                        )
                        if message is None:
                            await asyncio.wait_for(pubsub.ping(), 2)
                            continue
                        if message.get("type") != "pmessage":
                            continue
                        heard = unwire(message["data"])
                        if heard is not None:
                            channel = message["channel"].decode()
                            self.deliver(int(channel.removeprefix(prefix)), heard)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis went away: the poll covers; retry in 1 s
                self._log_error(f"Redis listener lost its connection ({error}); retrying")
                ready.set()
                await asyncio.sleep(1)
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(client.aclose(), 1)


def channel_prefix() -> str:
    """The Redis channels' common name: REDIS_CHANNEL_PREFIX, or one made from the
    database's name, so two sites (or two test runs) on one Redis keep apart."""
    chosen = getattr(settings, "REDIS_CHANNEL_PREFIX", "")
    if chosen:
        return chosen
    name = os.path.basename(str(settings.DATABASES["default"]["NAME"]))
    return f"aoristos:{name}:campaign:"


def wire(message) -> str:
    """What goes on the channel: the whole message when every member may see all of it
    (and it is not large), with its rendered lines when it carries them, else its number
    only; both name this process, signed (`sign`)."""
    if whole_for_everyone(message):
        try:
            text = json.dumps({"from": process_name(), "message": dict(message)})
        except (TypeError, ValueError):
            text = ""
        if 0 < len(text) <= WHOLE_MAX_BYTES:
            return sign(text)
    return sign(json.dumps({"from": process_name(), "seq": int(message["seq"])}))


@functools.cache
def _signing_key(secret: str) -> bytes:
    return hashlib.sha256(b"aoristos-table.broadcast:" + secret.encode()).digest()


def signature(text: str) -> str:
    key = _signing_key(settings.SECRET_KEY)
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()[:SIGNATURE_LENGTH]


def sign(text: str) -> str:
    """`text` with an HMAC made from SECRET_KEY in front: a message carries lines of HTML
    that pages show as they are, so a process takes only what a process of this site
    (the same SECRET_KEY) sent, not what anyone else who can write to the Redis did."""
    return f"{signature(text)}.{text}"


_last_unsigned_warning = -1e9


def _warn_unsigned() -> None:
    global _last_unsigned_warning
    now = time.monotonic()
    if now - _last_unsigned_warning > 10:  # once per 10 s, not once per notice
        _last_unsigned_warning = now
        log.warning(
            "live table: notices on Redis without this site's signature are ignored "
            "(do all server processes share one SECRET_KEY?)"
        )


def unwire(data: bytes) -> dict | None:
    """A message heard on the channel: the whole message, or {"seq": n} (the hub reads
    that event); None for this process's own (its pages have it) or a garbled or
    unsigned one."""
    try:
        mark, _, text = data.decode().partition(".")
        # Every process hears its own notices too: those end here, unread (`wire` writes
        # "from" first), before the signature is checked or the JSON parsed.
        if text.startswith(f'{{"from": "{process_name()}"'):
            return None
        if not hmac.compare_digest(mark, signature(text)):
            _warn_unsigned()
            return None
        notice = json.loads(text)
        message = notice.get("message")
        if isinstance(message, dict) and "kind" in message:
            message["seq"] = int(message["seq"])
            return message
        return {"seq": int(notice["seq"])}
    except (ValueError, TypeError, KeyError, AttributeError, UnicodeDecodeError):
        log.warning("live table: a garbled notice on Redis was ignored")
        return None


_broadcaster: LocalBroadcaster | None = None
_broadcaster_lock = threading.Lock()


def get_broadcaster() -> LocalBroadcaster:
    global _broadcaster
    with _broadcaster_lock:
        if _broadcaster is None:
            url = getattr(settings, "REDIS_URL", "")
            _broadcaster = RedisBroadcaster(url) if url else LocalBroadcaster()
        return _broadcaster


def publish_on_commit(campaign_id: int, message: dict) -> None:
    """Send `message` to the campaign's open pages when the transaction that stored its
    event commits (at once outside one): never an event that was rolled back."""
    transaction.on_commit(lambda: get_broadcaster().publish(campaign_id, message))
