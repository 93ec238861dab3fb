"""Throttles on guessing: passwords at login and campaign join codes.

Limits (also in docs/operations.md, "Limits"):

- login: 10 failed logins in any 10 minutes from one client address, and 5 failed logins
  in any 15 minutes for one username (whatever address they come from). A successful
  login clears that username's count.
- join codes: 10 wrong codes in any 10 minutes from one client address, and 10 in any 10
  minutes for one logged-in user.

Once a limit is reached every attempt it covers is refused, the right password or code
included (refused attempts are not counted), until enough of the failures have aged out
that the count is below the limit again: the page answers 429 and says when to try again.

The windows slide: each limit's window is cut into SUB_BUCKETS sub-buckets (a minute of
the 15, 40 seconds of the 10); a failure is counted in the sub-bucket it falls in, and a
check adds up every sub-bucket that may hold a failure from the last window length. A
sub-bucket's failures are taken to have happened at its end, so each one counts for
between one window and one window plus one sub-bucket: this errs on the strict side. No
burst, at a window's edge or anywhere, gets more than the limit's attempts within one
window length, and a lock ends when enough of the oldest failures have aged out: never
earlier than an exact count would end it, at most one sub-bucket later.

Counts live in Django's cache (LocMemCache in one process; Redis with REDIS_URL, shared by
every process), through its portable API only: add() then incr() count a failure, which
both caches do atomically, so failures in several processes at once are all counted; one
get_many() reads every sub-bucket a check needs, and delete_many() clears them. Each
sub-bucket's entry expires soon after it stops counting. A cache that fails (a stopped or
frozen Redis) must not stop anyone logging in, so the throttle fails open: it logs a
warning, allows the attempt, and leaves the cache alone for CACHE_PAUSE seconds, so at
most one call (bounded by the cache's socket timeout, 0.1 s) is spent on a broken cache in
that time.
"""

import hashlib
import ipaddress
import logging
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import ngettext

logger = logging.getLogger(__name__)

clock = time.time  # patched by tests

CACHE_PAUSE = 30.0  # seconds without cache calls after the cache failed
_cache_down_until = 0.0

SUB_BUCKETS = 15  # sub-buckets per window: a lock may run over by 1/15 of the window


@dataclass(frozen=True)
class Limit:
    name: str
    attempts: int
    seconds: int

    @property
    def bucket_seconds(self) -> int:
        """The width of one sub-bucket: how much longer than the window a failure may count."""
        return max(1, self.seconds // SUB_BUCKETS)


LOGIN_PER_ADDRESS = Limit("login-address", 10, 10 * 60)
LOGIN_PER_USERNAME = Limit("login-username", 5, 15 * 60)
JOIN_CODE_PER_ADDRESS = Limit("join-address", 10, 10 * 60)
JOIN_CODE_PER_USER = Limit("join-user", 10, 10 * 60)
SCREEN_CODE_PER_ADDRESS = Limit("screen-address", 10, 10 * 60)  # issue 47: no account


def client_address(request) -> str:
    """The client's address, as the throttle counts it. Behind a reverse proxy every
    request comes from the proxy: set CLIENT_ADDRESS_HEADER to the header in which the
    proxy passes the client's address (the last address in it is the one it added).
    IPv6 addresses count per /64, the block one household or phone is given."""
    address = request.META.get("REMOTE_ADDR", "")
    header = getattr(settings, "CLIENT_ADDRESS_HEADER", "")
    if header:
        forwarded = request.headers.get(header, "").split(",")[-1].strip()
        address = forwarded or address
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:100]
    if ip.version == 6:
        if ip.ipv4_mapped:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _bucket(limit: Limit, now: float) -> int:
    """The sub-bucket a failure at `now` is counted in: bucket b holds the failures after
    (b - 1) * width up to b * width, and they stop counting at b * width + window."""
    return math.ceil(now / limit.bucket_seconds)


def _counted_buckets(limit: Limit, now: float) -> range:
    """The sub-buckets, oldest first, that may hold a failure from the last window
    length: those that stop counting after `now`."""
    first = math.floor((now - limit.seconds) / limit.bucket_seconds) + 1
    return range(first, _bucket(limit, now) + 1)


def _stops_counting(limit: Limit, bucket: int) -> int:
    """When a sub-bucket's failures stop counting: a window after the bucket's end."""
    return bucket * limit.bucket_seconds + limit.seconds


def _key(limit: Limit, who: str, bucket: int) -> str:
    digest = hashlib.sha256(who.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"throttle:{limit.name}:{digest}:b{bucket}"


def _cache_usable() -> bool:
    return time.monotonic() >= _cache_down_until


def _cache_failed(error: Exception) -> None:
    global _cache_down_until
    _cache_down_until = time.monotonic() + CACHE_PAUSE
    logger.warning("Throttle cache unavailable (%s); allowing attempts for now.", error)


def _unlocked_at(limit: Limit, counts: list[tuple[int, int]]) -> int:
    """When a limit stops refusing, given its counted (sub-bucket, failures), oldest
    first: when the oldest sub-buckets that must go for the rest to be below the limit
    have stopped counting. 0 when the count is below the limit already."""
    remaining = sum(failures for _, failures in counts)
    unlocked_at = 0
    for bucket, failures in counts:
        if remaining < limit.attempts:
            break
        remaining -= failures
        unlocked_at = _stops_counting(limit, bucket)
    return unlocked_at


def retry_after(checks: list[tuple[Limit, str]]) -> int:
    """0 when an attempt may go ahead; else the seconds, rounded up, until every limit
    that is full has had enough of its oldest failures age out to take another."""
    if not _cache_usable():
        return 0
    now = clock()
    wanted = [
        (limit, [(bucket, _key(limit, who, bucket)) for bucket in _counted_buckets(limit, now)])
        for limit, who in checks
        if who
    ]
    try:
        found = cache.get_many([key for _, buckets in wanted for _, key in buckets])
    except Exception as error:  # noqa: BLE001 - any cache failure fails open
        _cache_failed(error)
        return 0
    waits = []
    for limit, buckets in wanted:
        unlocked_at = _unlocked_at(
            limit, [(bucket, found.get(key) or 0) for bucket, key in buckets]
        )
        if unlocked_at:
            waits.append(math.ceil(unlocked_at - now))
    return max(waits, default=0)


def record_failure(checks: list[tuple[Limit, str]]) -> None:
    """Count one failure against each check, in its limit's current sub-bucket."""
    now = clock()
    for limit, who in checks:
        if not who or not _cache_usable():
            continue
        key = _key(limit, who, _bucket(limit, now))
        # Long enough to outlive the bucket's counting, whenever in it the failure falls.
        timeout = limit.seconds + limit.bucket_seconds + 1
        try:
            # add() starts the count; incr() is atomic in LocMemCache and in Redis.
            if not cache.add(key, 1, timeout=timeout):
                try:
                    cache.incr(key)
                except ValueError:  # expired between add() and incr(): start again
                    cache.set(key, 1, timeout=timeout)
        except Exception as error:  # noqa: BLE001 - any cache failure fails open
            _cache_failed(error)


def throttled_message(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many failed attempts. Try again in %(minutes)s minute.",
        "Too many failed attempts. Try again in %(minutes)s minutes.",
        minutes,
    ) % {"minutes": minutes}


def clear(limit: Limit, who: str) -> None:
    """Forget who's counted failures against one limit (every sub-bucket still counted)."""
    if not who or not _cache_usable():
        return
    keys = [_key(limit, who, bucket) for bucket in _counted_buckets(limit, clock())]
    try:
        cache.delete_many(keys)
    except Exception as error:  # noqa: BLE001 - any cache failure fails open
        _cache_failed(error)


# --- the two guarded doors ---------------------------------------------------------------


def username_key(username: str) -> str:
    return username.strip().casefold()


def login_checks(request, username: str | None) -> list[tuple[Limit, str]]:
    return [
        (LOGIN_PER_ADDRESS, client_address(request)),
        (LOGIN_PER_USERNAME, username_key(username or "")),
    ]


def join_code_checks(request) -> list[tuple[Limit, str]]:
    return [
        (JOIN_CODE_PER_ADDRESS, client_address(request)),
        (JOIN_CODE_PER_USER, str(request.user.pk or "")),
    ]


def screen_code_checks(request) -> list[tuple[Limit, str]]:
    """A table screen's code is typed with no account: counted per address only."""
    return [(SCREEN_CODE_PER_ADDRESS, client_address(request))]


def guess(checks: list[tuple[Limit, str]], find):
    """One guess at a code behind its throttle: (what `find()` found, 0), a miss counted as
    a failure when it found nothing; (None, seconds to wait) when throttled, `find` not
    called at all."""
    waiting = retry_after(checks)
    if waiting:
        return None, waiting
    found = find()
    if found is None:
        record_failure(checks)
    return found, 0
