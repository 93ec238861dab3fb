"""Phobia's active actions Invänta mål, Ladda om and Använda färdighet (phobia-utdrag.txt
lines 745-765), an overload in a fight (lines 274-283) and a hit stopped by protection
(lines 850-852) through the app: each command posted to the JSON API, the fight page's
forms and what it says."""

import json
from decimal import Decimal

import pytest
from django.urls import reverse

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character, Item
from combat.models import Encounter
from rules.phobia.combat.view import percent
from rules.phobia.success import odds
from tests.combat.helpers import english, post, state_of

pytestmark = pytest.mark.django_db

ATTRIBUTES = {
    "strength": 12, "endurance": 14, "agility": 14, "personality": 9, "psyche": 13,
    "will": 11, "education": 8, "sight": 15, "hearing": 7, "luck": 10,
}
PISTOL = {"key": "pistol", "name": "Pistol", "damage": 3, "damage_type": "P",
          "skill": "combat_experience", "ranged": True}


@pytest.fixture
def phobia(gm, alice):
    campaign = campaign_create(gm=gm, name="Skuggorna", rule_system="phobia")
    Membership.objects.create(campaign=campaign, user=alice, seat=1)
    return campaign


def api(client, encounter, command):
    encounter.refresh_from_db()
    body = {"version": encounter.version, "command": command}
    return client.post(reverse("combat:api_command", args=[encounter.pk]), json.dumps(body),
                       content_type="application/json")


def fight(client, gm, phobia, **house):
    """Jace (TO 12, Stridsvana 12, a pistol) against a guard (TO 8), the round begun and
    Jace's turn declared with one action."""
    encounter = Encounter.objects.create(campaign=phobia, name="Gränden", system="phobia",
                                         house_rules=house)
    english(client, gm)
    for block in (
        {"name": "Jace", "turn_order": 12, "skills": {"combat_experience": 12},
         "weapons": [PISTOL], "right": "pistol"},
        {"name": "Vakten", "side": "b", "turn_order": 8, "skills": {"combat_experience": 9}},
    ):
        assert api(client, encounter, {"type": "add_combatant", **block}).status_code == 200
    assert api(client, encounter, {"type": "start_round"}).status_code == 200
    assert api(client, encounter, {"type": "declare", "id": "c1", "actions": 1}).status_code == 200
    return encounter


def test_wait_for_act_now_and_keep_waiting_through_the_api_lines_745_750(client, gm, phobia):
    """Lines 748-750: Jace waits for the guard; just before its turn the page asks whether
    to act now; keep_waiting lets the guard's turn come; the next round act_now."""
    encounter = fight(client, gm, phobia)
    waited = api(client, encounter, {"type": "wait_for", "id": "c1", "target": "c2"})
    assert waited.status_code == 200
    assert state_of(encounter).offer == ("c1", "c2")
    panel = client.get(reverse("combat:state", args=[encounter.pk])).content.decode()
    assert 'data-testid="act-now"' in panel
    assert 'data-testid="keep-waiting"' in panel
    assert "Jace waits for Vakten, whose turn is next" in panel
    refused = api(client, encounter, {"type": "act_now", "id": "c2"})
    assert refused.status_code == 400
    assert api(client, encounter, {"type": "keep_waiting", "id": "c1"}).status_code == 200
    assert state_of(encounter).active == "c2"
    log = client.get(encounter.get_absolute_url()).content.decode()
    assert "Jace waits for Vakten (Invänta mål)." in log
    assert "Jace lets Vakten act and goes on waiting." in log
    api(client, encounter, {"type": "declare", "id": "c2", "actions": 0})
    api(client, encounter, {"type": "start_round"})
    api(client, encounter, {"type": "declare", "id": "c1", "actions": 0})
    assert api(client, encounter, {"type": "act_now", "id": "c1"}).status_code == 200
    state = state_of(encounter)
    assert state.active == "c1"
    assert state.get("c1").waiting is None
    assert "Jace acts before Vakten." in client.get(encounter.get_absolute_url()).content.decode()


def test_reload_through_the_api_takes_the_round_lines_758_759(client, gm, phobia):
    encounter = fight(client, gm, phobia)
    panel = client.get(reverse("combat:state", args=[encounter.pk])).content.decode()
    assert 'data-testid="action-reload"' in panel
    assert "the whole round" in panel
    assert api(client, encounter, {"type": "reload", "id": "c1"}).status_code == 200
    state = state_of(encounter)
    assert state.get("c1").turn_over
    assert state.active == "c2"
    log = client.get(encounter.get_absolute_url()).content.decode()
    assert "Jace reloads Pistol (Ladda om): the whole round." in log


def test_use_skill_and_continue_skill_through_the_api_lines_761_765(client, gm, phobia, dice):
    """Lines 763-765: two rounds of Första hjälpen (Stridsvana standing in); the page shows
    the last round's exact chance, from the engine's parts; the test comes then."""
    encounter = fight(client, gm, phobia)
    page = client.get(reverse("combat:state", args=[encounter.pk])).content.decode()
    assert 'data-testid="use-skill-form"' in page
    assert f"({percent(odds(3, 12).success)} % Ob3T6)" in page
    made = api(client, encounter, {"type": "use_skill", "id": "c1", "skill": "combat_experience",
                                   "rounds": 2, "label": "Första hjälpen"})
    assert made.status_code == 200
    assert state_of(encounter).get("c1").skill_use.done == 1
    api(client, encounter, {"type": "declare", "id": "c2", "actions": 0})
    api(client, encounter, {"type": "start_round"})
    api(client, encounter, {"type": "declare", "id": "c1", "actions": 1})
    panel = client.get(reverse("combat:state", args=[encounter.pk])).content.decode()
    assert 'data-testid="action-continue_skill"' in panel
    assert f"round 2 of 2: 12, Ob3T6: {percent(odds(3, 12).success)} %" in panel
    dice.queue += [1, 2, 3]
    assert api(client, encounter, {"type": "continue_skill", "id": "c1"}).status_code == 200
    assert dice.queue == []
    assert state_of(encounter).get("c1").skill_use is None
    log = client.get(encounter.get_absolute_url()).content.decode()
    assert "Jace uses Stridsvana (Använda färdighet), 2 rounds." in log
    assert "Jace goes on with the skill: round 2." in log


def test_an_overloaded_character_brings_its_burden_into_the_fight_lines_274_283(
    client, gm, alice, phobia
):
    """Bärförmåga (12+14)/2 = 13; 27 kg is two whole Bärförmågor: +Ob2T6 by the campaign's
    default house rule, on every action in the fight, shown on the card."""
    jace = Character.objects.create(
        owner=alice, campaign=phobia, name="Jace", rule_system="phobia", attributes=ATTRIBUTES,
        skills={"combat_experience": 13}, rolled={"calm": [3, 5]},
    )
    Item.objects.create(character=jace, name="Rep", bulk=Decimal("4.5"), quantity=6)
    encounter = Encounter.objects.create(campaign=phobia, name="Gränden", system="phobia")
    english(client, gm)
    added = post(client, encounter, {"source": "character", "character": jace.pk, "side": "a"},
                 "combat:add")
    assert added.status_code == 200
    assert state_of(encounter).get("c1").burden == 2
    assert "+Ob2T6 on every action" in added.content.decode()
    changed = api(client, encounter, {"type": "update_combatant", "id": "c1", "burden": 0})
    assert changed.status_code == 200
    assert state_of(encounter).get("c1").burden == 0


@pytest.mark.parametrize(("house", "bleed", "words"), [
    ({}, 1, "a hit stopped by protection still bleeds (Småblödning)"),
    ({"stopped_hit_bleeds": False}, 0, "a hit stopped by protection does nothing"),
])
def test_a_stopped_hit_bleeds_by_the_house_rule_shown_on_the_page(
    client, gm, phobia, house, bleed, words
):
    encounter = fight(client, gm, phobia, **house)
    api(client, encounter, {"type": "update_combatant", "id": "c2", "protection": {"chest": 5}})
    hit = api(client, encounter, {"type": "damage", "id": "c2", "damage": 3, "damage_type": "H",
                                  "area": "chest"})
    assert hit.status_code == 200
    assert state_of(encounter).get("c2").bleeding.rate == bleed
    assert words in client.get(encounter.get_absolute_url()).content.decode()
