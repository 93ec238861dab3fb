"""The live stream while the database is away: 503 with Retry-After, one log line per
outage (core.outage), the stream's own database threads included."""

import logging

import pytest
from django.db import connections

from core import outage
from table import stream as stream_module
from tests.table.test_stream import Stream, run, session_cookie

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
