"""With REDIS_URL set, several server processes share one table: a roll published by one
process reaches the streams held open by another. CI runs this against a real Redis."""

import re
import socket
import time
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore

from campaign_log.broadcast import LocalBroadcaster, RedisBroadcaster, get_broadcaster
from rules.aoristos import dice as hands
from table import services

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_broadcaster_follows_the_settings():
    expected = RedisBroadcaster if settings.REDIS_URL else LocalBroadcaster
    assert type(get_broadcaster()) is expected


def open_stream(server_url: str, path: str, session_key: str) -> socket.socket:
    """A raw HTTP/1.1 request, so the test reads the event stream as it arrives."""
    url = urlparse(server_url)
    sock = socket.create_connection((url.hostname, url.port), timeout=10)
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: {url.netloc}\r\nAccept: text/event-stream\r\n"
        f"Cookie: sessionid={session_key}\r\nConnection: close\r\n\r\n".encode()
    )
    return sock


def read_until(sock: socket.socket, pattern: str, seconds: float = 10) -> str:
    text, deadline = "", time.monotonic() + seconds
    while not re.search(pattern, text):
        if time.monotonic() > deadline:
            raise AssertionError(f"never saw {pattern!r} in:\n{text}")
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        if not chunk:
            break
        text += chunk.decode(errors="replace")
    return text


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL (CI starts a Redis)")
def test_a_roll_in_one_process_reaches_a_stream_held_by_another(site_server, campaign, gm, alice):
    session = SessionStore()
    session[SESSION_KEY] = str(alice.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session["_auth_user_hash"] = alice.get_session_auth_hash()
    session.create()
    sock = open_stream(
        site_server.url, f"/live/campaigns/{campaign.pk}/events?after=0", session.session_key
    )
    try:
        head = read_until(sock, r"retry: ")
        assert head.startswith("HTTP/1.1 200")
        # This test process is another "server": its roll goes out through Redis.
        services.roll_record(
            campaign=campaign, actor=gm, hand=hands.parse_hand("1B"), label="Över Redis"
        )
        text = read_until(sock, r"id: 1\n")
        assert "Över Redis" in text
    finally:
        sock.close()
