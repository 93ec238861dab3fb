"""The live stream while the database is away: 503 with Retry-After, one log line per
outage (core.outage), the stream's own database threads included."""

import asyncio
import logging

import pytest
from django.db import connections

from campaign_log import stream as stream_module
from core import outage
from tests.table.test_stream import Stream, run, session_cookie, settled

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_outage():
    outage.forget()
    yield
    outage.forget()


@pytest.fixture
def database_away(monkeypatch):
    """Every connection, in every thread, refused by the driver: the stream's database
    threads start over, and none of them can connect."""
    wrapper_class = type(connections["default"])
    driver_error = connections["default"].Database.OperationalError

    def refuse(self, conn_params):
        raise driver_error("connection refused")

    def away():
        stream_module.drain_db_pool()
        monkeypatch.setattr(wrapper_class, "get_new_connection", refuse)

    yield away
    monkeypatch.undo()


def open_stream(session_key: str, campaign_id: int) -> Stream:
    """A stream of a member whose session was stored before the database went away."""
    stream = Stream(None, campaign_id)
    stream.scope["headers"].append((b"cookie", f"sessionid={session_key}".encode()))
    return stream


def test_a_stream_answers_503_with_retry_after_and_logs_once(
    campaign, alice, database_away, caplog
):
    key = session_cookie(alice)
    answers = []

    async def open_three():
        for _ in range(3):
            opened = await open_stream(key, campaign.pk).open()
            answers.append((opened.status, opened.headers.get(b"retry-after")))

    database_away()
    with caplog.at_level(logging.WARNING):
        run(open_three)
    assert answers == [(503, b"5")] * 3
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in warnings] == [
        "database unavailable: connection refused; answering 503 until it is back"
    ]
    assert all(r.exc_info is None for r in warnings)


def test_the_stream_says_when_the_database_is_back(
    campaign, alice, database_away, monkeypatch, caplog
):
    key = session_cookie(alice)
    database_away()
    statuses = []

    async def one():
        opened = await open_stream(key, campaign.pk).open()
        statuses.append(opened.status)
        if opened.status == 200:
            await opened.close()

    run(one)
    monkeypatch.undo()  # the database is back
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        run(one)
    assert statuses == [503, 200]
    [back] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert back.getMessage().startswith("database back after ")
    assert back.getMessage().endswith("(1 requests answered 503)")


def test_events_heard_while_the_database_is_away_reach_the_page_when_it_is_back(
    campaign, gm, alice, database_away, monkeypatch
):
    """A process that loses the database: an event heard whole (Redis carries most) still
    reaches the page; one heard as a number alone (a secret roll of another process) is
    read once the database is back, at the next poll, in order, nothing lost."""
    from asgiref.sync import sync_to_async
    from django.utils import timezone

    from campaign_log.broadcast import get_broadcaster
    from table import services
    from table.models import RollEvent

    key = session_cookie(alice)

    def store(label: str, secret: bool) -> dict:
        event = RollEvent(
            campaign=campaign, actor=gm, kind="hand", label=label, hand="1B", dice=[4],
            counted=[4], result=4, secret=secret, created_at=timezone.now(),
        )
        services.insert(event)
        return services.payload(event)

    async def scenario():
        page = await open_stream(key, campaign.pk).open()
        await page.read_until(r"retry: ")
        table = stream_module.registry()
        await settled(campaign.pk)
        secret = await sync_to_async(store)("Fällan", True)
        shown = await sync_to_async(store)("Klättra", False)
        database_away()
        broadcaster = get_broadcaster()
        broadcaster.deliver(campaign.pk, {"seq": secret["seq"]})  # as Redis carries it
        broadcaster.deliver(campaign.pk, shown)
        await asyncio.sleep(0.3)  # the read fails; the whole one waits behind the hole
        assert page.communicator.output_queue.empty()  # nothing sent past the hole
        monkeypatch.undo()  # the database is back
        await table.poll()  # what the hubs do every POLL_SECONDS with Redis
        await page.read_until(r"id: 2\n")
        assert page.ids() == [1, 2]
        assert "Klättra" in page.text
        assert "Fällan" not in page.text
        await page.close()

    run(scenario)
