"""The roll trigger (0002) writes the campaign row only when the roll's ``seq`` is above
its ``event_seq``.

A roll stored at the table always is (its ``seq`` is ``event_seq`` + 1), so nothing
changes there. An import (``archive.importer``) writes a campaign's rows with the
campaign's final ``event_seq`` already set: without the condition every one of its rolls
still rewrote the campaign row, and on PostgreSQL each rewrite of one row in one
transaction walks every earlier version of it, so 30,000 rolls took 37 s (quadratic)
instead of a few.

A later migration that rebuilds table_rollevent on SQLite must create the trigger again
with this module's ``create_seq_trigger``.
"""

import importlib

from django.db import migrations

first = importlib.import_module("table.migrations.0002_rollevent_idempotency_key_seq_trigger")
TRIGGER = first.TRIGGER

SQL = {
    "sqlite": [
        f"DROP TRIGGER IF EXISTS {TRIGGER}",
        f"""
        CREATE TRIGGER {TRIGGER} AFTER INSERT ON table_rollevent
        BEGIN
            UPDATE campaigns_campaign SET event_seq = NEW.seq
            WHERE id = NEW.campaign_id AND event_seq < NEW.seq;
        END
        """,
    ],
    "postgresql": [
        f"""
        CREATE OR REPLACE FUNCTION {TRIGGER}() RETURNS trigger AS $$
        BEGIN
            UPDATE campaigns_campaign SET event_seq = NEW.seq
            WHERE id = NEW.campaign_id AND event_seq < NEW.seq;
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
BEFORE = {  # 0002's trigger, for going back
    "sqlite": [f"DROP TRIGGER IF EXISTS {TRIGGER}", *first.SQL["sqlite"]],
    "postgresql": first.SQL["postgresql"],
}


def create_seq_trigger(apps, schema_editor):
    first.run(SQL, schema_editor)


def back_to_0002(apps, schema_editor):
    first.run(BEFORE, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("table", "0008_notice_situation"),
    ]

    operations = [
        migrations.RunPython(create_seq_trigger, back_to_0002),
    ]
