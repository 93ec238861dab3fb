"""The fights' rolls in a session's luck (issue 48, `campaign_log.luck`): each roll of a
player's character in a fight of the evening, with the luck the fight's story gives it
(`rules.story`, the exact distribution of its dice), counted for the player who commands
the character. A fight's rolls are dated by its latest record (the story does not date
each roll): a fight counts when it was played since `since`. NPCs' rolls count for
nobody (they are the GM's to make, and their numbers the GM's to know)."""

from django.contrib.auth import get_user_model
from django.db.models import Max

from combat import fight_story
from combat.models import Encounter


def fight_rolls(campaign_id: int, since) -> list[tuple]:
    fights = list(
        Encounter.objects.filter(campaign_id=campaign_id, kind=Encounter.Kind.COMBAT)
        .annotate(last=Max("records__created_at")).filter(last__gte=since)
    )
    owners = {owner for fight in fights for owner in fight.controllers.values()}
    names = dict(get_user_model().objects.filter(pk__in=owners).values_list("pk", "username"))
    out = []
    for fight in fights:
        story = fight_story.story_of(fight)
        for row in story.rows if story is not None else ():
            owner = fight.controllers.get(row.id)
            if owner in names:
                out += [(fight.last, names[owner], luck) for luck, _typed in row.roll_lucks]
    return out
