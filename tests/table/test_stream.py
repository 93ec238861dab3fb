"""The live stream, driven through the ASGI application that `make serve` runs.

Each test opens /live/campaigns/<id>/events as a member would (session cookie), makes
rolls from another thread as the page views do, and reads what the stream sends.
"""

import asyncio
import contextlib
import re

import pytest
from asgiref.sync import sync_to_async
from asgiref.testing import ApplicationCommunicator
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.db import connections, transaction
from django.utils import timezone

from aoristos_site.asgi import application
from campaign_log import reading
from campaign_log import stream as stream_module
from campaign_log.broadcast import get_broadcaster
from campaigns.models import Campaign
from rules.aoristos import dice as hands
from table import services
from table.models import RollEvent

pytestmark = pytest.mark.django_db(transaction=True)


def session_cookie(user) -> str:
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session["_auth_user_hash"] = user.get_session_auth_hash()
    session.create()
    return session.session_key


class Stream:
    """One open event stream, read chunk by chunk."""

    def __init__(self, user, campaign_id, *, after=None, last_event_id=None):
        self.user = user
        headers = [(b"host", b"testserver")]
        if last_event_id is not None:
            headers.append((b"last-event-id", str(last_event_id).encode()))
        path = f"/live/campaigns/{campaign_id}/events"
        query = f"after={after}" if after is not None else ""
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        self.text = ""
        self.status = None

    async def open(self):
        if self.user is not None:
            key = await sync_to_async(session_cookie)(self.user)
            self.scope["headers"].append((b"cookie", f"sessionid={key}".encode()))
        self.communicator = ApplicationCommunicator(application, self.scope)
        await self.communicator.send_input({"type": "http.request", "body": b""})
        start = await self.communicator.receive_output(timeout=10)
        self.status = start["status"]
        self.headers = {name.lower(): value for name, value in start["headers"]}
        return self

    async def read_until(self, pattern: str, timeout: float = 5) -> str:
        deadline = asyncio.get_running_loop().time() + timeout
        while not re.search(pattern, self.text):
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise AssertionError(f"stream never showed {pattern!r}; got:\n{self.text}")
            message = await self.communicator.receive_output(timeout=left)
            self.text += message.get("body", b"").decode()
            if not message.get("more_body", False):
                break
        return self.text

    async def close(self):
        await self.communicator.send_input({"type": "http.disconnect"})
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await self.communicator.wait(timeout=5)

    def ids(self) -> list[int]:
        return [int(x) for x in re.findall(r"^id: (\d+)$", self.text, re.M)]


def roll(campaign, actor, hand="1B", **kwargs):
    return sync_to_async(services.roll_record)(
        campaign=campaign, actor=actor, hand=hands.parse_hand(hand), **kwargs
    )


def run(scenario):
    async def scenario_then_close():
        try:
            await asyncio.wait_for(scenario(), timeout=30)
        finally:
            # The stream's database work ran in a worker thread; close its connection so
            # the test database can be dropped at the end (PostgreSQL refuses otherwise).
            await sync_to_async(connections.close_all)()

    try:
        asyncio.run(scenario_then_close())
    finally:
        # asyncio.run cancels what the streams left running, but a database read already
        # handed to the stream's pool runs on: wait for it before the test's tables go.
        stream_module.drain_db_pool()


def test_rolls_reach_an_open_stream_in_order(campaign, gm, alice):
    async def scenario():
        stream = await Stream(alice, campaign.pk, after=0).open()
        assert stream.status == 200
        assert stream.headers[b"content-type"] == b"text/event-stream"
        await stream.read_until(r"retry: ")
        await roll(campaign, gm, "2B")
        await roll(campaign, alice, "1B1F", label="Klättring")
        await stream.read_until(r"id: 2\n")
        assert stream.ids() == [1, 2]
        assert 'id="roll-1"' in stream.text
        assert "Klättring" in stream.text
        await stream.close()

    run(scenario)


def test_a_secret_roll_reaches_players_without_its_dice(campaign, gm, alice):
    async def scenario():
        player = await Stream(alice, campaign.pk, after=0).open()
        master = await Stream(gm, campaign.pk, after=0).open()
        await roll(campaign, gm, "2B+13", label="Fällan", secret=True)
        await player.read_until(r"id: 1\n")
        await master.read_until(r"id: 1\n")
        assert "Fällan" in master.text
        assert "2B+13" in master.text
        assert "Fällan" not in player.text
        assert "2B+13" not in player.text
        assert 'class="die' not in player.text
        assert 'id="roll-1"' in player.text
        await player.close()
        await master.close()

    run(scenario)


def test_a_reconnecting_page_catches_up_in_order_without_duplicates(campaign, gm, alice):
    async def scenario():
        for _ in range(4):
            await roll(campaign, gm)
        # The page had seen #2 when it lost the connection; htmx resends Last-Event-ID.
        stream = await Stream(alice, campaign.pk, after=0, last_event_id=2).open()
        await stream.read_until(r"id: 4\n")
        await roll(campaign, gm)
        await stream.read_until(r"id: 5\n")
        assert stream.ids() == [3, 4, 5]
        await stream.close()

    run(scenario)


def test_a_missed_broadcast_is_filled_from_the_database(campaign, gm, alice):
    """An event the broadcaster never delivered (here: stored without a publish) is still
    shown, in order, as soon as a later event reveals the gap."""

    def store_silently():
        # In one transaction, as `next_seq` asks: a number committed before its row let a
        # hub starting in between take it as stored and read nothing for it (a race).
        with transaction.atomic():
            store_numbered()

    def store_numbered():
        seq = services.next_seq(campaign.pk)
        RollEvent.objects.create(
            campaign=campaign,
            seq=seq,
            actor=gm,
            kind="hand",
            hand="1B",
            dice=[6],
            counted=[6],
            result=6,
        )

    async def scenario():
        stream = await Stream(alice, campaign.pk, after=0).open()
        await stream.read_until(r"retry: ")
        await sync_to_async(store_silently)()
        await roll(campaign, gm)
        await stream.read_until(r"id: 2\n")
        assert stream.ids() == [1, 2]
        await stream.close()

    run(scenario)


@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_non_members_get_no_stream(campaign, make_user, who):
    user = None if who == "anonymous" else make_user("utomstående")

    async def scenario():
        stream = await Stream(user, campaign.pk).open()
        assert stream.status == 404
        assert "roll-" not in await stream.read_until(r"", timeout=1)

    run(scenario)


def test_an_event_is_rendered_once_per_audience_not_once_per_page(
    campaign, gm, alice, bob, monkeypatch
):
    from campaign_log import lines

    rendered = []
    real_render = lines.render_event

    def counting_render(message, *, is_gm, language):
        rendered.append((message["seq"], is_gm, language))
        return real_render(message, is_gm=is_gm, language=language)

    monkeypatch.setattr(lines, "render_event", counting_render)

    async def scenario():
        pages = [await Stream(user, campaign.pk).open() for user in (alice, alice, bob, bob, gm)]
        for page in pages:
            await page.read_until(r"retry: ")
        await roll(campaign, gm, "2B")
        for page in pages:
            await page.read_until(r"id: 1\n")
        for page in pages:
            await page.close()

    run(scenario)
    # A public roll reads the same to the GM and the players: one rendering serves both.
    assert rendered == [(1, False, "sv")]


def test_campaign_sequence_survives_in_the_database(campaign, gm):
    async def scenario():
        await roll(campaign, gm)
        await roll(campaign, gm)

    run(scenario)
    assert Campaign.objects.get(pk=campaign.pk).event_seq == 2


def test_a_long_absence_is_caught_up_in_batches(campaign, gm, alice, monkeypatch):
    from campaign_log import stream as stream_module

    monkeypatch.setattr(stream_module, "CATCH_UP_BATCH", 3)

    async def scenario():
        for _ in range(7):
            await roll(campaign, gm)
        stream = await Stream(alice, campaign.pk, after=0).open()
        await stream.read_until(r"id: 7\n")
        assert stream.ids() == [1, 2, 3, 4, 5, 6, 7]
        await stream.close()

    run(scenario)


def test_the_stream_of_a_removed_player_ends(campaign, gm, alice, monkeypatch):
    from campaign_log import stream as stream_module
    from campaigns.models import Membership
    from campaigns.services import member_remove

    monkeypatch.setattr(stream_module, "KEEPALIVE_SECONDS", 0.2)

    async def scenario():
        stream = await Stream(alice, campaign.pk, after=0).open()
        await stream.read_until(r": keep-alive")
        seat = await Membership.objects.aget(campaign=campaign, user=alice)
        await sync_to_async(member_remove)(campaign=campaign, membership=seat)
        await roll(campaign, gm, label="Efter borttagningen")
        ended = await stream.communicator.receive_output(timeout=5)
        while ended.get("more_body", False):
            stream.text += ended.get("body", b"").decode()
            ended = await stream.communicator.receive_output(timeout=5)
        assert not ended.get("more_body", False)
        assert "event: table-closed" in stream.text
        assert "Efter borttagningen" not in stream.text
        await stream.close()

    run(scenario)


async def settled(campaign_id: int):
    """Once the campaign's hub knows where the log ends (and, with Redis in CI's second
    run, the listener subscribed and ran the poll it starts with), only what the test
    delivers reaches the hub."""
    await stream_module.registry().hubs[campaign_id].ready.wait()
    broadcaster = get_broadcaster()
    if broadcaster.remote:
        await broadcaster.ready()
        await asyncio.sleep(0.3)


@pytest.fixture
def reads(monkeypatch):
    """Each read of the log from the database (`reading.events_after`), its arguments."""
    found = []
    real = reading.events_after

    def counted(*args, **kwargs):
        found.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(reading, "events_after", counted)
    return found


def test_whole_messages_heard_out_of_order_are_shown_in_order_without_a_read(
    campaign, gm, alice, reads, monkeypatch
):
    """Two processes publish at once: #2 arrives before #1, both whole (as Redis carries
    them). The hub holds #2 until #1 arrives and reads nothing from the database."""
    monkeypatch.setattr(stream_module, "GAP_HOLD_SECONDS", 2.0)  # a loaded CI machine

    def store_silently():
        messages = []
        for label in ("Först", "Sedan"):
            event = RollEvent(
                campaign=campaign, actor=gm, kind="hand", label=label, hand="1B",
                dice=[6], counted=[6], result=6, created_at=timezone.now(),
            )
            services.insert(event)
            messages.append(services.payload(event))
        return messages

    async def scenario():
        stream = await Stream(alice, campaign.pk, after=0).open()
        await stream.read_until(r"retry: ")
        await settled(campaign.pk)
        first, second = await sync_to_async(store_silently)()
        broadcaster = get_broadcaster()
        broadcaster.deliver(campaign.pk, second)
        await asyncio.sleep(0.05)
        broadcaster.deliver(campaign.pk, first)
        await stream.read_until(r"id: 2\n")
        assert stream.ids() == [1, 2]
        assert stream.text.index("Först") < stream.text.index("Sedan")
        await stream.close()

    run(scenario)
    assert reads == []


def test_a_number_alone_is_read_from_the_database_once(campaign, gm, alice, reads):
    """A secret roll made by another process comes as its number only: the hub reads it
    (once, whatever the number of pages) and the player sees only its bare line."""

    def store_silently():
        event = RollEvent(
            campaign=campaign, actor=gm, kind="hand", label="Fällan", hand="2B", dice=[6, 5],
            counted=[6, 5], result=11, secret=True, created_at=timezone.now(),
        )
        services.insert(event)
        return event.seq

    async def scenario():
        pages = [await Stream(alice, campaign.pk, after=0).open() for _ in range(3)]
        for page in pages:
            await page.read_until(r"retry: ")
        await settled(campaign.pk)
        seq = await sync_to_async(store_silently)()
        get_broadcaster().deliver(campaign.pk, {"seq": seq})
        for page in pages:
            await page.read_until(r"id: 1\n")
            assert "Fällan" not in page.text
            await page.close()

    run(scenario)
    assert len(reads) == 1
