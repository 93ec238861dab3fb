"""The trigger that numbers a combat record and moves its encounter's version.

A record is stored by one INSERT (`combat.services.insert_record`) whose ``seq`` is the
campaign's ``event_seq`` + 1 (read under FOR UPDATE on PostgreSQL; SQLite has one writer
at a time), like a roll (table migration 0002). The AFTER INSERT trigger created here
moves ``campaigns_campaign.event_seq`` up to the new ``seq`` and the encounter's
``version`` up to the record's, in the same statement: one round trip per command.

SQLite drops a table's triggers when a migration rebuilds the table (Django's
``_remake_table``: adding a column with a default, altering or removing one, most
constraints), and refuses to rebuild combat_encounter while the trigger names it. A
later migration that rebuilds either table must drop the trigger before and create it
again after (as 0003 does), e.g.::

    trigger = importlib.import_module("combat.migrations.0002_combatrecord_trigger")
    migrations.RunPython(trigger.create_trigger, trigger.drop_trigger)

tests/combat (test_concurrency.py first) fails without it.

Migration 0006 replaced this trigger (it writes only when a number moves up): create that
one, with 0006's ``create_trigger``.
"""

import importlib

from django.db import migrations

# The roll trigger's migration runs a vendor's statements the same way.
run = importlib.import_module("table.migrations.0002_rollevent_idempotency_key_seq_trigger").run

TRIGGER = "combat_combatrecord_bump_versions"

SQL = {
    "sqlite": [
        f"""
        CREATE TRIGGER IF NOT EXISTS {TRIGGER} AFTER INSERT ON combat_combatrecord
        BEGIN
            UPDATE campaigns_campaign SET event_seq = MAX(event_seq, NEW.seq)
            WHERE id = NEW.campaign_id;
            UPDATE combat_encounter SET version = MAX(version, NEW.version)
            WHERE id = NEW.encounter_id;
        END
        """
    ],
    "postgresql": [
        f"""
        CREATE OR REPLACE FUNCTION {TRIGGER}() RETURNS trigger AS $$
        BEGIN
            UPDATE campaigns_campaign SET event_seq = GREATEST(event_seq, NEW.seq)
            WHERE id = NEW.campaign_id;
            UPDATE combat_encounter SET version = GREATEST(version, NEW.version)
            WHERE id = NEW.encounter_id;
            RETURN NULL;
        END;
        $$ LANGUAGE plpgsql
        """,
        f"""
        CREATE OR REPLACE TRIGGER {TRIGGER} AFTER INSERT ON combat_combatrecord
        FOR EACH ROW EXECUTE FUNCTION {TRIGGER}()
        """,
    ],
}

DROP = {
    "sqlite": [f"DROP TRIGGER IF EXISTS {TRIGGER}"],
    "postgresql": [
        f"DROP TRIGGER IF EXISTS {TRIGGER} ON combat_combatrecord",
        f"DROP FUNCTION IF EXISTS {TRIGGER}()",
    ],
}


def create_trigger(apps, schema_editor):
    run(SQL, schema_editor)


def drop_trigger(apps, schema_editor):
    run(DROP, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("combat", "0001_initial"),
        ("table", "0002_rollevent_idempotency_key_seq_trigger"),
    ]

    operations = [migrations.RunPython(create_trigger, drop_trigger)]
