"""The fight's story in numbers on the encounter page and in the API (issue 29): for
everyone once the fight is over, for the GM at any time; read from the stored records
that stay applied (an undone one does not count)."""

import pytest
from django.urls import reverse

from combat import fight_story, services
from rules import story as rules_story
from tests.combat.helpers import english

pytestmark = pytest.mark.django_db


def api(client, encounter):
    return client.get(reverse("combat:api_story", args=[encounter.pk]))


def test_the_story_is_everyones_once_the_fight_is_over(client, fight, gm, alice, run):
    english(client, alice)
    assert api(client, fight).status_code == 403
    assert 'data-testid="story"' not in client.get(fight.get_absolute_url()).content.decode()
    english(client, gm)
    assert api(client, fight).status_code == 200  # the GM's at any time
    run(fight, gm, {"type": "start"})
    run(fight, gm, {"type": "end"})
    fight.refresh_from_db()
    for user in (gm, alice):
        english(client, user)
        page = client.get(fight.get_absolute_url()).content.decode()
        assert 'data-testid="story"' in page
        assert "The fight in numbers" in page
        assert "Albert" in page.split('data-testid="story"')[1]
        told = api(client, fight).json()
        assert told["ended"] is True
        assert [row["name"] for row in told["story"]["rows"]] == ["Albert", "Vakten"]
        assert told["story"]["points_unit"] == "KP"


def test_the_story_reads_the_applied_records_only(fight, gm, run):
    run(fight, gm, {"type": "start"})
    fight.refresh_from_db()
    engine = services.engine_of(fight)
    active = services.folded(fight).state.active.id
    before = fight_story.story_of(fight)
    run(fight, gm, {"type": "end_activation", "id": active})
    fight.refresh_from_db()
    assert fight_story.story_of(fight) != before  # the next one's stress roll counts
    run(fight, gm, {"type": "undo", "to": 3})
    fight.refresh_from_db()
    assert fight_story.story_of(fight) == before
    applied = services.folded(fight).applied
    records = {r.version: r for r in services.records(fight.pk, engine)}
    expected = rules_story.tell(engine, services.initial_state(fight, engine),
                                [records[v].events for v in applied])
    assert fight_story.story_of(fight) == expected


def test_the_chronicle_has_no_story(client, gm, campaign):
    english(client, gm)
    chronicle = services.chronicle_for(campaign)
    assert api(client, chronicle).status_code == 404
