"""Throttles on guessing: passwords at login and campaign join codes.

Limits (also in README.md):

- login: 10 failed logins per 10 minutes from one client address, and 5 failed logins per
  15 minutes for one username (whatever address they come from). A successful login
  clears that username's count.
- join codes: 10 wrong codes per 10 minutes from one client address, and 10 per 10
  minutes for one logged-in user.

Once a limit is reached every attempt it covers is refused, the right password or code
included, until its window ends: the page answers 429 and says when to try again.

Counts live in Django's cache (LocMemCache in one process; Redis with REDIS_URL, shared by
every process). Windows are fixed: a count belongs to the window `clock() // seconds`,
and its cache entry expires with it. A cache that fails (a stopped or frozen Redis) must
not stop anyone logging in, so the throttle fails open: it logs a warning, allows the
attempt, and leaves the cache alone for CACHE_PAUSE seconds, so at most one call (bounded
by the cache's socket timeout, 0.1 s) is spent on a broken cache in that time.
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


@dataclass(frozen=True)
class Limit:
    name: str
    attempts: int
    seconds: int


LOGIN_PER_ADDRESS = Limit("login-address", 10, 10 * 60)
LOGIN_PER_USERNAME = Limit("login-username", 5, 15 * 60)
JOIN_CODE_PER_ADDRESS = Limit("join-address", 10, 10 * 60)
JOIN_CODE_PER_USER = Limit("join-user", 10, 10 * 60)


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


def _key(limit: Limit, who: str, now: float) -> str:
    digest = hashlib.sha256(who.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"throttle:{limit.name}:{digest}:{int(now // limit.seconds)}"


def _cache_usable() -> bool:
    return time.monotonic() >= _cache_down_until


def _cache_failed(error: Exception) -> None:
    global _cache_down_until
    _cache_down_until = time.monotonic() + CACHE_PAUSE
    logger.warning("Throttle cache unavailable (%s); allowing attempts for now.", error)


def retry_after(checks: list[tuple[Limit, str]]) -> int:
    """0 when an attempt may go ahead; else the seconds until the first full limit's
    window ends."""
    if not _cache_usable():
        return 0
    now = clock()
    keys = {_key(limit, who, now): limit for limit, who in checks if who}
    try:
        counts = cache.get_many(list(keys))
    except Exception as error:  # noqa: BLE001 - any cache failure fails open
        _cache_failed(error)
        return 0
    waits = [
        math.ceil((int(now // limit.seconds) + 1) * limit.seconds - now)
        for key, limit in keys.items()
        if (counts.get(key) or 0) >= limit.attempts
    ]
    return max(waits, default=0)


def record_failure(checks: list[tuple[Limit, str]]) -> None:
    now = clock()
    for limit, who in checks:
        if not who or not _cache_usable():
            continue
        key = _key(limit, who, now)
        try:
            # add() starts the count; incr() is atomic in LocMemCache and in Redis.
            if not cache.add(key, 1, timeout=limit.seconds + 1):
                try:
                    cache.incr(key)
                except ValueError:  # expired between add() and incr(): start again
                    cache.set(key, 1, timeout=limit.seconds + 1)
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
    if not who or not _cache_usable():
        return
    try:
        cache.delete(_key(limit, who, clock()))
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
