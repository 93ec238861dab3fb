"""Idempotency keys on rolls, and the trigger that numbers them.

A roll is stored by one INSERT whose ``seq`` is the campaign's ``event_seq`` + 1 (read
under FOR UPDATE on PostgreSQL; SQLite has one writer at a time); the AFTER INSERT trigger
created here moves ``campaigns_campaign.event_seq`` up to the new ``seq`` in the same
statement. ``table.numbering.next_seq`` still bumps ``event_seq`` for other kinds of events.

SQLite drops a table's triggers when a migration rebuilds the table (Django's
``_remake_table``: altering or removing a column, most constraints). A later migration
that rebuilds table_rollevent must create the trigger again, e.g.::

    seq_trigger = importlib.import_module("table.migrations.0002_rollevent_idempotency_key_seq_trigger")
    migrations.RunPython(seq_trigger.create_seq_trigger, seq_trigger.drop_seq_trigger)

tests/table/test_rolls.py (test_sequence_numbers_count_up_per_campaign) fails without it.

Migration 0009 replaced this trigger (it writes only when the number moves up): create
that one, with 0009's ``create_seq_trigger``.
"""

from django.conf import settings
from django.db import migrations, models

TRIGGER = "table_rollevent_bump_event_seq"

SQL = {
    "sqlite": [
        f"""
        CREATE TRIGGER IF NOT EXISTS {TRIGGER} AFTER INSERT ON table_rollevent
        BEGIN
            UPDATE campaigns_campaign SET event_seq = MAX(event_seq, NEW.seq)
            WHERE id = NEW.campaign_id;
        END
        """
    ],
    "postgresql": [
        f"""
        CREATE OR REPLACE FUNCTION {TRIGGER}() RETURNS trigger AS $$
        BEGIN
            UPDATE campaigns_campaign SET event_seq = GREATEST(event_seq, NEW.seq)
            WHERE id = NEW.campaign_id;
            RETURN NULL;
        END;
        $$ LANGUAGE plpgsql
        """,
        f"""
        CREATE OR REPLACE TRIGGER {TRIGGER} AFTER INSERT ON table_rollevent
        FOR EACH ROW EXECUTE FUNCTION {TRIGGER}()
        """,
    ],
}

DROP = {
    "sqlite": [f"DROP TRIGGER IF EXISTS {TRIGGER}"],
    "postgresql": [
        f"DROP TRIGGER IF EXISTS {TRIGGER} ON table_rollevent",
        f"DROP FUNCTION IF EXISTS {TRIGGER}()",
    ],
}


def run(statements: dict, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor not in statements:
        raise RuntimeError(f"No event_seq trigger for the {vendor} database.")
    for sql in statements[vendor]:
        schema_editor.execute(sql, params=None)


def create_seq_trigger(apps, schema_editor):
    run(SQL, schema_editor)


def drop_seq_trigger(apps, schema_editor):
    run(DROP, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0001_initial"),
        ("table", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="rollevent",
            name="idempotency_key",
            field=models.CharField(blank=True, editable=False, max_length=64, null=True),
        ),
        migrations.AddConstraint(
            model_name="rollevent",
            constraint=models.UniqueConstraint(
                condition=models.Q(("idempotency_key__isnull", False)),
                fields=("actor", "idempotency_key"),
                name="one_roll_per_idempotency_key",
            ),
        ),
        migrations.RunPython(create_seq_trigger, drop_seq_trigger),
    ]
