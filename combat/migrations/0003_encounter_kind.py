"""An encounter's kind: a fight, or the campaign's chronicle (issue 9).

SQLite rebuilds combat_encounter to add the column, and the combat record trigger of
migration 0002 names that table: it is dropped first and made again after (SQLite
refuses to rename a table under a trigger that names a missing one).
"""

import importlib

from django.db import migrations, models

trigger = importlib.import_module("combat.migrations.0002_combatrecord_trigger")


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0003_characters_carry_campaign_cap"),
        ("combat", "0002_combatrecord_trigger"),
    ]

    operations = [
        migrations.RunPython(trigger.drop_trigger, trigger.create_trigger),
        migrations.AddField(
            model_name="encounter",
            name="kind",
            field=models.CharField(
                choices=[("combat", "Encounter"), ("chronicle", "Chronicle")],
                default="combat",
                max_length=10,
            ),
        ),
        migrations.AddConstraint(
            model_name="encounter",
            constraint=models.UniqueConstraint(
                condition=models.Q(("kind", "chronicle")),
                fields=("campaign",),
                name="one_chronicle_per_campaign",
            ),
        ),
        migrations.RunPython(trigger.create_trigger, trigger.drop_trigger),
    ]
