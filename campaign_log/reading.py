"""Reading the campaign's log: every kind of event (`campaign_log.kinds`) in the order of
its numbers, in one statement, so a read is one snapshot whatever kinds it holds.

Events are numbered under the campaign row's lock and commit in that order
(`campaign_log.numbering`), so a snapshot holds every number up to its newest: what
commits during a read is either all there or after the last event it returns.
"""

import datetime
import functools
import json

from django.db import connection
from django.utils import timezone

from campaign_log.audiences import visible
from campaign_log.kinds import COLUMN_NAMES, LOG_COLUMNS, kinds

NO_END = 2**63 - 1  # above every seq: "no bound" for `log_numbers`


def events_after(campaign_id: int, after: int, *, is_gm: bool, limit: int = 500) -> list[dict]:
    """Stored events (rolls, membership changes, notices, combat records) with seq > after,
    oldest first, at most `limit`, as this viewer may see them: one query (`log_rows`),
    one snapshot, so what commits during the read is either all there or after the last
    one returned: never a later number without an earlier one.

    What the live stream catches up with: a combat record comes as it was stored, not
    marked ``undone`` (the page greys it when the undo's own line arrives after it)."""
    return [visible(message, is_gm=is_gm) for message in log_rows(campaign_id, after, limit)]


def events_page(campaign_id: int, *, before: int | None, is_gm: bool, size: int = 30):
    """A page of the log (rolls, membership changes, notices, combat records), newest
    first, ending before `before`; and the seq to page on. One snapshot (`log_numbers`):
    the stream that a page opens after its newest event misses nothing below it."""
    numbers = log_numbers(campaign_id, before=before, limit=size + 1)
    older = numbers[size - 1][0] if len(numbers) > size else None
    messages = log_messages(numbers[:size])
    return [visible(message, is_gm=is_gm) for message in messages], older


@functools.cache
def _log_numbers_sql(vendor: str, newest_first: bool, arms: tuple[str, ...]) -> str:
    """One statement over the event tables: each table's `limit` next numbers (its
    (campaign, seq) index), merged and cut to `limit`. One statement is one snapshot on
    PostgreSQL and on SQLite, whatever transaction it runs in."""
    qn = connection.ops.quote_name
    compare, order = ("<", "DESC") if newest_first else (">", "ASC")
    tables = [kind.model._meta.db_table for kind in kinds()]
    union = " UNION ALL ".join(
        f"SELECT * FROM (SELECT {qn('seq')}, {source} AS source, {qn('id')} "
        f"FROM {qn(table)} "
        f"WHERE {qn('campaign_id')} = %s AND {qn('seq')} {compare} %s "
        f"ORDER BY {qn('seq')} {order} LIMIT %s) AS t{source}"
        for source, table in enumerate(tables)
    )
    return f"{union} ORDER BY 1 {order} LIMIT %s"


def log_numbers(campaign_id: int, *, after: int | None = None, before: int | None = None,
                limit: int) -> list[tuple[int, int, int]]:
    """The campaign's next `limit` events after `after` (oldest first) or, with `before`,
    its `limit` newest before it (newest first): (seq, source, pk) triples, read in one
    statement (source: the kind's place in `kinds()`)."""
    newest_first = after is None
    bound = (NO_END if before is None else before) if newest_first else after
    arms = tuple(kind.name for kind in kinds())
    params = [campaign_id, bound, limit] * len(arms) + [limit]
    with connection.cursor() as cursor:
        cursor.execute(_log_numbers_sql(connection.vendor, newest_first, arms), params)
        return [tuple(row) for row in cursor.fetchall()]


@functools.cache
def _log_rows_sql(vendor: str, arms: tuple[str, ...]) -> str:
    """One statement over the event tables, as `_log_numbers_sql`, that reads every column
    a log line needs (each kind's `read`), so a catch-up is one query whatever kinds of
    event it holds."""
    qn = connection.ops.quote_name
    selects = []
    for source, kind in enumerate(kinds()):
        columns, joins = kind.read(qn)
        values = ", ".join(
            "e.created_at" if column == "created_at"
            else columns.get(column, f"CAST(NULL AS {sql_type})")
            for column, sql_type in LOG_COLUMNS
        )
        selects.append(
            f"SELECT * FROM (SELECT e.seq, {source} AS source, e.id, {values} "
            f"FROM {qn(kind.model._meta.db_table)} e {joins} "
            f"WHERE e.campaign_id = %s AND e.seq > %s ORDER BY e.seq LIMIT %s) AS t{source}"
        )
    return " UNION ALL ".join(selects) + " ORDER BY 1 LIMIT %s"


def log_rows(campaign_id: int, after: int, limit: int) -> list[dict]:
    """The full messages (the GM's view) of the campaign's next `limit` events after
    `after`, oldest first, in one statement (one snapshot, as `log_numbers`)."""
    registered = kinds()
    arms = tuple(kind.name for kind in registered)
    with connection.cursor() as cursor:
        params = [campaign_id, after, limit] * len(arms) + [limit]
        cursor.execute(_log_rows_sql(connection.vendor, arms), params)
        rows = cursor.fetchall()
    cache: dict = {}
    messages = []
    for seq, source, pk, *values in rows:
        fields = dict(zip(COLUMN_NAMES, values, strict=True))
        common = {"pk": pk, "campaign_id": campaign_id, "seq": seq,
                  "created_at": moment(fields["created_at"])}
        messages.append(registered[source].from_row(common, fields, cache))
    return messages


def log_messages(numbers: list[tuple[int, int, int]]) -> list[dict]:
    """The full messages (the GM's view) of `log_numbers`' triples, in their order: one
    query per kind that has any of them. A row gone since (its campaign deleted) is
    left out."""
    registered = kinds()
    wanted: dict[int, list[int]] = {}
    for _seq, source, pk in numbers:
        wanted.setdefault(source, []).append(pk)
    rows: dict[tuple[int, int], dict] = {}
    for source, pks in wanted.items():
        rows.update(((source, pk), message) for pk, message in registered[source].messages(pks))
    return [rows[source, pk] for _seq, source, pk in numbers if (source, pk) in rows]


def json_column(text):
    """A JSON column as the log's statement reads it (text): its value."""
    return None if text is None else json.loads(text)


def json_text(column: str) -> str:
    """SQL that reads a JSON column as text in every database (for a kind's `read`)."""
    return f"CAST({column} AS TEXT)"


def moment(value) -> datetime.datetime:
    """A timestamp as the database gave it: aware (PostgreSQL) or text in UTC (SQLite)."""
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    if timezone.is_naive(value):
        value = timezone.make_aware(value, datetime.UTC)
    return value
