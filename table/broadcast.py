"""Fan-out of live-table events to the streams that pages hold open.

Two implementations with one interface, `publish(campaign_id, payload)` and
`subscribe(campaign_id)`:

- `LocalBroadcaster` (the default): in-process. `publish` may be called from any thread
  (pages run as WSGI in a thread pool); each subscriber's queue is fed on its own event
  loop with `call_soon_threadsafe`. No copies: a payload is an immutable mapping that every
  subscriber shares.
- `RedisBroadcaster` (when REDIS_URL is set): `publish` goes to a Redis pub/sub channel;
  one listener task per process relays what it hears to that process's local subscribers.
  Several server processes then share one table.

Queues are bounded. A subscriber that falls behind is not silently dropped: it is marked
`overflowed`, and its stream fills the gap from the database, which holds every event
with its per-campaign sequence number. The broadcaster is a fast path, not the record.
"""

import asyncio
import json
import logging
import threading
from collections import defaultdict
from types import MappingProxyType

from django.conf import settings

log = logging.getLogger(__name__)

QUEUE_SIZE = 100
CHANNEL_PREFIX = "aoristos:campaign:"


class Subscription:
    def __init__(self, broadcaster: "LocalBroadcaster", campaign_id: int):
        self.broadcaster = broadcaster
        self.campaign_id = campaign_id
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue = asyncio.Queue(maxsize=QUEUE_SIZE)
        self.overflowed = False

    def offer(self, payload) -> None:
        """Runs on the subscriber's loop."""
        try:
            self.queue.put_nowait(payload)
        except asyncio.QueueFull:
            self.overflowed = True

    async def get(self):
        return await self.queue.get()

    def close(self) -> None:
        self.broadcaster.unsubscribe(self)


class LocalBroadcaster:
    def __init__(self):
        self._lock = threading.Lock()
        self._subscribers: dict[int, set[Subscription]] = defaultdict(set)

    def subscribe(self, campaign_id: int) -> Subscription:
        """Call from a coroutine: events are delivered on the running loop."""
        subscription = Subscription(self, campaign_id)
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

    def publish(self, campaign_id: int, payload: dict) -> None:
        self.deliver(campaign_id, payload)

    def deliver(self, campaign_id: int, payload: dict) -> None:
        frozen = MappingProxyType(dict(payload))
        with self._lock:
            subscribers = list(self._subscribers.get(campaign_id, ()))
        by_loop: dict[asyncio.AbstractEventLoop, list[Subscription]] = defaultdict(list)
        for subscription in subscribers:
            by_loop[subscription.loop].append(subscription)
        # One wake-up per event loop (one in a server process), not one per stream.
        for loop, group in by_loop.items():
            try:
                loop.call_soon_threadsafe(offer_all, group, frozen)
            except RuntimeError:  # that loop has closed: its streams are gone
                for subscription in group:
                    self.unsubscribe(subscription)


def offer_all(subscriptions: list[Subscription], payload) -> None:
    for subscription in subscriptions:
        subscription.offer(payload)


class RedisBroadcaster(LocalBroadcaster):
    """Publishes through Redis so every server process hears every table."""

    def __init__(self, url: str):
        super().__init__()
        import redis

        self.url = url
        self._publisher = redis.Redis.from_url(url)
        self._listener: asyncio.Task | None = None
        self._listener_loop: asyncio.AbstractEventLoop | None = None
        self._ready: asyncio.Event | None = None

    def publish(self, campaign_id: int, payload: dict) -> None:
        try:
            self._publisher.publish(f"{CHANNEL_PREFIX}{campaign_id}", json.dumps(payload))
        except Exception:  # the roll is stored; pages get it on their next catch-up
            log.exception("could not publish to Redis; delivering in this process only")
            self.deliver(campaign_id, payload)

    def subscribe(self, campaign_id: int) -> Subscription:
        subscription = super().subscribe(campaign_id)
        loop = asyncio.get_running_loop()
        if self._listener is None or self._listener.done() or self._listener_loop is not loop:
            self._ready = asyncio.Event()
            self._listener_loop = loop
            self._listener = loop.create_task(self._listen(self._ready))
        return subscription

    async def ready(self) -> None:
        """Wait until the listener is subscribed in Redis (so nothing published after
        this returns can be missed)."""
        if self._ready is not None:
            await self._ready.wait()

    async def _listen(self, ready: asyncio.Event) -> None:
        import redis.asyncio as aioredis

        while True:
            client = aioredis.Redis.from_url(self.url)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.psubscribe(f"{CHANNEL_PREFIX}*")
                    ready.set()
                    async for message in pubsub.listen():
                        if message.get("type") != "pmessage":
                            continue
                        channel = message["channel"].decode()
                        campaign_id = int(channel.removeprefix(CHANNEL_PREFIX))
                        self.deliver(campaign_id, json.loads(message["data"]))
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis went away: streams catch up from the database
                log.exception("Redis listener failed; reconnecting in 1 s")
                ready.set()
                await asyncio.sleep(1)
            finally:
                await client.aclose()


_broadcaster: LocalBroadcaster | None = None
_broadcaster_lock = threading.Lock()


def get_broadcaster() -> LocalBroadcaster:
    global _broadcaster
    with _broadcaster_lock:
        if _broadcaster is None:
            url = getattr(settings, "REDIS_URL", "")
            _broadcaster = RedisBroadcaster(url) if url else LocalBroadcaster()
        return _broadcaster
