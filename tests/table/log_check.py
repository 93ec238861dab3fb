"""A check the tests of many kinds of event end with: the live stream's one-query reader
(`campaign_log.reading.log_rows`) reads each event as the message its own payload function made
when it was stored, and as the log's history reads it (`log_messages`)."""

import json

from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaign_log import audiences, lines, reading


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
    history = reading.log_messages(reading.log_numbers(campaign_id, after=0, limit=1000))
    with CaptureQueriesContext(connection) as queries:
        read = reading.log_rows(campaign_id, 0, 1000)
    assert len(queries) == 1, [q["sql"][:200] for q in queries]
    assert normal(read) == normal(history)
    assert kinds <= {message["kind"] for message in read}
    assert_one_rendering_serves_each_view(read)
    for after in (1, len(read) // 2):  # and from any point on, in order
        assert [m["seq"] for m in reading.log_rows(campaign_id, after, 1000)] == [
            m["seq"] for m in history if m["seq"] > after
        ]


def assert_one_rendering_serves_each_view(messages) -> None:
    """The stream renders an event once per view (`campaign_log.lines`): where the GM and the
    players share the view "all", their lines must be the same; and the lines the storing
    process sends with an event every member may see whole must be the ones each other
    process would render."""
    for message in messages:
        for language in ("sv", "en"):
            as_gm = lines.render_event(message, is_gm=True, language=language)
            as_player = lines.render_event(message, is_gm=False, language=language)
            if lines.view_of(message, is_gm=True) == "all":
                assert as_gm == as_player, message
            assert lines.view_of(message, is_gm=False) in ("all", "player")
            if audiences.whole_for_everyone(message):
                from django.utils import translation

                with translation.override(language):
                    carried = lines.prerender(message)[lines.RENDERED]
                for view in lines.views_of(message):
                    expected = as_gm if view == "gm" else as_player
                    assert carried[f"{view}:{language}"] == expected, (view, message)
            else:
                assert lines.prerender(message) is message
