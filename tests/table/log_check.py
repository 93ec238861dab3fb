"""A check the tests of many kinds of event end with: the live stream's one-query reader
(`table.services.log_rows`) reads each event as the message its own payload function made
when it was stored, and as the log's history reads it (`log_messages`)."""

import json

from django.db import connection
from django.test.utils import CaptureQueriesContext

from table import services


def normal(messages) -> list:
    """JSON's view (tuples and lists alike), without the history's ``undone`` marks (the
    stream leaves greying an undone move to the undo's own line)."""
    return [
        {key: value for key, value in message.items() if key != "undone"}
        for message in json.loads(json.dumps(messages, sort_keys=True))
    ]


def assert_one_query_reads_the_log(campaign_id: int, *, kinds: set[str]) -> None:
    """Every event of the campaign read in one query, as the history reads it; `kinds`:
    the kinds of message the test made (so a check over nothing cannot pass)."""
    history = services.log_messages(services.log_numbers(campaign_id, after=0, limit=1000))
    with CaptureQueriesContext(connection) as queries:
        read = services.log_rows(campaign_id, 0, 1000)
    assert len(queries) == 1, [q["sql"][:200] for q in queries]
    assert normal(read) == normal(history)
    assert kinds <= {message["kind"] for message in read}
    for after in (1, len(read) // 2):  # and from any point on, in order
        assert [m["seq"] for m in services.log_rows(campaign_id, after, 1000)] == [
            m["seq"] for m in history if m["seq"] > after
        ]
