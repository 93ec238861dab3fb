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


def test_a_player_reads_of_an_npc_only_what_the_encounter_page_showed(
        client, fight, gm, alice, run, dice):
    """Issue 42: an NPC's expected hits (its exact chances to hit: its skill) and its KP
    spent were on the player's story; the encounter page never showed them. The GM still
    reads them; a player's own character's row is whole."""
    dice.queue += [1, 3]  # Albert (SIN 5) acts first
    run(fight, gm, {"type": "start"})
    fight.refresh_from_db()
    state = services.folded(fight).state
    albert = next(c.id for c in state.combatants if not c.npc)
    guard = next(c for c in state.combatants if c.npc)
    run(fight, alice, {"type": "move", "id": albert, "x": 1.0, "y": 0.0})
    dice.queue += [2, 5]  # the guard's stress
    run(fight, gm, {"type": "end_activation", "id": albert})
    run(fight, gm, {"type": "move", "id": guard.id, "x": guard.x - 1, "y": guard.y})
    run(fight, gm, {"type": "end"})
    fight.refresh_from_db()
    english(client, gm)
    gm_rows = {row["name"]: row for row in api(client, fight).json()["story"]["rows"]}
    assert gm_rows["Vakten"]["kp_spent"], gm_rows  # the guard moved: KP the GM sees
    assert gm_rows["Vakten"]["expected_hits"] == 0.0
    english(client, alice)
    rows = {row["name"]: row for row in api(client, fight).json()["story"]["rows"]}
    assert rows["Vakten"]["kp_spent"] is None
    assert rows["Vakten"]["expected_hits"] is None
    assert rows["Vakten"]["expected_hits_answered"] is None
    assert rows["Albert"] == gm_rows["Albert"]
    assert rows["Albert"]["kp_spent"]
    page = client.get(fight.get_absolute_url()).content.decode()
    guard_row = page.split('data-testid="story-' + guard.id + '"')[1].split("</tr>")[0]
    assert "hidden" in guard_row
    assert "expected" not in guard_row
