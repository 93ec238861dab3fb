"""The combat record trigger (0002) writes the campaign row only when the record's
``seq`` is above its ``event_seq``, and the encounter row only when its ``version`` is
above the encounter's.

A command stored in a fight always moves both (nothing changes there). An import
(``archive.importer``) writes an encounter's records with the campaign's final
``event_seq`` and the encounter's final ``version`` already set: without the conditions
each record rewrote both rows, and on PostgreSQL each rewrite of one row in one
transaction walks every earlier version of it (quadratic in the log's length).

A later migration that rebuilds combat_combatrecord or combat_encounter on SQLite must
drop the trigger before and create it again after with this module's ``create_trigger``.
"""

import importlib

from django.db import migrations

first = importlib.import_module("combat.migrations.0002_combatrecord_trigger")
TRIGGER = first.TRIGGER

SQL = {
    "sqlite": [
        f"DROP TRIGGER IF EXISTS {TRIGGER}",
        f"""
        CREATE TRIGGER {TRIGGER} AFTER INSERT ON combat_combatrecord
        BEGIN
            UPDATE campaigns_campaign SET event_seq = NEW.seq
            WHERE id = NEW.campaign_id AND event_seq < NEW.seq;
            UPDATE combat_encounter SET version = NEW.version
            WHERE id = NEW.encounter_id AND version < NEW.version;
        END
        """,
    ],
    "postgresql": [
        f"""
        CREATE OR REPLACE FUNCTION {TRIGGER}() RETURNS trigger AS $$
        BEGIN
            UPDATE campaigns_campaign SET event_seq = NEW.seq
            WHERE id = NEW.campaign_id AND event_seq < NEW.seq;
            UPDATE combat_encounter SET version = NEW.version
            WHERE id = NEW.encounter_id AND version < NEW.version;
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
BEFORE = {  # 0002's trigger, for going back
    "sqlite": [f"DROP TRIGGER IF EXISTS {TRIGGER}", *first.SQL["sqlite"]],
    "postgresql": first.SQL["postgresql"],
}


def create_trigger(apps, schema_editor):
    first.run(SQL, schema_editor)


def back_to_0002(apps, schema_editor):
    first.run(BEFORE, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("combat", "0005_simulation"),
        ("table", "0009_seq_trigger_only_moves_up"),
    ]

    operations = [
        migrations.RunPython(create_trigger, back_to_0002),
    ]
