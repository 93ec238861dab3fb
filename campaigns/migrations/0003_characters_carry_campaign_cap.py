"""Every character in a campaign carries the campaign's level cap (issue 7).

Before, a character brought into a campaign kept its own cap. Each one now gets the
campaign's cap, or its own highest build level when that is higher (it joined before
bringing was checked): its builder keeps accepting the build it has, and raises through
the ledger stop at the campaign's cap. UP budgets are not changed. Characters outside
a campaign keep what they have. Reversing changes nothing back: the old caps are not kept.
"""

from django.db import migrations


def highest_build_level(character) -> int:
    levels = [0]
    for values in (character.attributes, character.skills):
        if isinstance(values, dict):
            levels += [v for v in values.values() if isinstance(v, int) and not isinstance(v, bool)]
    return max(levels)


def carry_campaign_cap(apps, schema_editor):
    Character = apps.get_model("characters", "Character")
    characters = Character.objects.filter(campaign__isnull=False).select_related("campaign")
    for character in characters.iterator():
        cap = max(character.campaign.level_cap, highest_build_level(character))
        if character.level_cap != cap:
            Character.objects.filter(pk=character.pk).update(level_cap=cap)


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0002_bringrequest"),
        ("characters", "0004_dpentry_idempotency_key"),
    ]

    operations = [migrations.RunPython(carry_campaign_cap, migrations.RunPython.noop)]
