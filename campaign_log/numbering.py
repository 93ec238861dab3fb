"""The campaign's one sequence of event numbers, which every kind of event at the table
shares (rolls, membership changes, notices, combat records): how an event takes its
number, and the fields of a log line everyone may see.

The bottom of the log (`campaign_log`): every kind's app stores its events with these
(the table its rolls, memberships and notices, combat its records); it imports none.
"""

import functools

from django.db import connection
from django.utils import timezone

from campaigns.models import Campaign


def next_seq(campaign_id: int) -> int:
    """The campaign's next event number, for events other than rolls, in one statement.

    Call it in the transaction that stores the event. The UPDATE holds the campaign row
    (PostgreSQL) or the write lock (SQLite) until commit, so concurrent events get 1, 2,
    3, ... in commit order with no gaps or repeats; rolls (``roll_record``) take their
    numbers from the same counter.
    """
    campaigns = connection.ops.quote_name(Campaign._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {campaigns} SET event_seq = event_seq + 1 WHERE id = %s RETURNING event_seq",
            [campaign_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise Campaign.DoesNotExist(f"No campaign {campaign_id}.")
    return row[0]


@functools.cache
def _numbered_insert_sql(model, names: tuple, conflict: str, vendor: str) -> tuple[list, str]:
    """The fields and the statement of `insert_numbered`, built once per model and vendor."""
    qn = connection.ops.quote_name
    fields = [model._meta.get_field(name) for name in names]
    columns = ", ".join(qn(field.column) for field in fields)
    lock = " FOR UPDATE" if vendor == "postgresql" else ""
    sql = (
        f"INSERT INTO {qn(model._meta.db_table)} ({columns}, {qn('seq')}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}, "
        f"(SELECT event_seq + 1 FROM {qn(Campaign._meta.db_table)} WHERE id = %s{lock})) "
        f"ON CONFLICT {conflict} DO NOTHING "
        f"RETURNING {qn('id')}, {qn('seq')}"
    )
    return fields, sql


def insert_numbered(event, names: tuple, conflict: str) -> bool:
    """Store `event` (a model with ``campaign`` and ``seq``; `names`: the fields to store)
    as the campaign's next event, in one statement; set its pk and seq. False when the
    row would break the unique index `conflict` names (SQL: "(columns) [WHERE ...]"):
    nothing is stored.

    The INSERT reads the campaign's ``event_seq`` + 1 and a trigger of the event's table
    (rolls: table migration 0002, combat records: combat migration 0002) moves
    ``event_seq`` up to it, both inside the statement. On PostgreSQL the read locks the
    campaign row (FOR UPDATE) until commit: a concurrent event waits, then reads the
    number this one left. On SQLite the statement holds the write lock. Outside a
    transaction the statement is its own (autocommit): no BEGIN or COMMIT round trips.
    """
    fields, sql = _numbered_insert_sql(type(event), names, conflict, connection.vendor)
    values = [field.get_db_prep_save(getattr(event, field.attname), connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, event.campaign_id])
        row = cursor.fetchone()
    if row is None:
        return False
    event.pk, event.seq = row
    event._state.adding = False
    event._state.db = connection.alias
    return True


def public_payload(event, kind: str, actor: str, **fields) -> dict:
    """A log line everyone at the table may see (no secret): its number, kind and time."""
    return {
        **fields,
        "seq": event.seq,
        "kind": kind,
        "actor": actor,
        "secret": False,
        "created_at": event.created_at.isoformat(),
        "time": timezone.localtime(event.created_at).strftime("%H:%M"),
    }
