"""A new campaign's first fight in every system (issue 43): its catalogue is the engine's
starter set, so the add form offers weapons at once; a combatant added with nothing to
attack with fights with its fists where the system attacks only with weapons (T10,
Phobia: "naturliga vapen såsom slag och sparkar", phobia-utdrag.txt lines 291-292); and a
combatant without a weapon is named on the page, the GM shown where it is fixed."""

import json

import pytest
from django.urls import reverse

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat.models import Encounter
from tests.combat.helpers import english, post, state_of

pytestmark = pytest.mark.django_db

# An NPC block each system's add form takes, without a weapon.
BLOCKS = {
    "t10": {"source": "block", "name": "Vakt", "side": "b", "initiative": "0"},
    "phobia": {"source": "block", "name": "Vakt", "side": "b", "strength": "12",
               "endurance": "10", "agility": "10", "will": "14", "turn_order": "5",
               "shock_value": "12"},
}


@pytest.fixture(params=["t10", "phobia"])
def fresh(request, gm, alice):
    """A new campaign of the system with nothing added to its catalogue, Alice a player."""
    campaign = campaign_create(gm=gm, name="Ny", rule_system=request.param)
    Membership.objects.create(campaign=campaign, user=alice, seat=1)
    fight = Encounter.objects.create(campaign=campaign, name="Första", system=request.param)
    return campaign, fight


def test_the_add_form_of_a_new_campaign_offers_the_starter_weapons(client, gm, fresh):
    campaign, fight = fresh
    english(client, gm)
    page = client.get(fight.get_absolute_url()).content.decode()
    assert 'name="weapons"' in page
    assert 'value="unarmed"' in page
    assert 'value="kniv"' in page


def test_an_npc_added_without_a_weapon_fights_with_its_fists(client, gm, fresh):
    campaign, fight = fresh
    english(client, gm)
    answer = post(client, fight, BLOCKS[campaign.rule_system], "combat:add")
    assert answer.status_code == 200, answer.content.decode()[:400]
    (npc,) = state_of(fight).combatants
    assert [w.key for w in npc.weapons] == ["unarmed"]
    assert 'data-testid="weaponless"' not in answer.content.decode()


def test_a_chosen_weapon_is_not_joined_by_fists(client, gm, fresh):
    campaign, fight = fresh
    english(client, gm)
    post(client, fight, {**BLOCKS[campaign.rule_system], "weapons": "kniv"}, "combat:add")
    (npc,) = state_of(fight).combatants
    assert [w.key for w in npc.weapons] == ["kniv"]


def test_a_character_with_nothing_on_its_sheet_fights_with_its_fists(client, gm, alice, fresh):
    campaign, fight = fresh
    system = campaign.rule_system
    values = ({"attributes": {"body": 0, "combat": 0, "mind": 0, "social": 0, "initiative": 1}}
              if system == "t10" else
              {"attributes": {key: 10 for key in ("strength", "endurance", "agility",
                                                  "personality", "psyche", "will",
                                                  "education", "sight", "hearing", "luck")},
               "rolled": {"calm": [3, 4]}})
    hero = Character.objects.create(owner=alice, campaign=campaign, name="Ny hjälte",
                                    rule_system=system, **values)
    english(client, gm)
    answer = post(client, fight, {"source": "character", "character": hero.pk, "side": "a"},
                  "combat:add")
    assert answer.status_code == 200, answer.content.decode()[:400]
    (c,) = state_of(fight).combatants
    assert [w.key for w in c.weapons] == ["unarmed"]


def test_a_combatant_without_a_weapon_is_named_and_the_gm_shown_the_catalogue(
    client, gm, alice, fresh
):
    """Added through the API with no weapon (the API adds what it is told): the page says
    who cannot attack; the GM's notice links the catalogue, the player's says who fixes it."""
    campaign, fight = fresh
    english(client, gm)
    block = {k: v for k, v in BLOCKS[campaign.rule_system].items() if k != "source"}
    block = {"type": "add_combatant", "npc": True,
             **{k: (int(v) if v.isdigit() else v) for k, v in block.items()}}
    added = client.post(reverse("combat:api_command", args=[fight.pk]),
                        json.dumps({"version": fight.version, "command": block}),
                        content_type="application/json")
    assert added.status_code == 200, added.content.decode()
    page = client.get(fight.get_absolute_url()).content.decode()
    catalogue = reverse("combat:catalogue", args=[campaign.pk])
    assert "Vakt has nothing to attack with." in page
    assert f'href="{catalogue}"' in page.split('data-testid="weaponless"')[1].split("</p>")[0]
    # A player hears of their own combatants only (an NPC's gear is the GM's to know).
    english(client, alice)
    page = client.get(fight.get_absolute_url()).content.decode()
    assert 'data-testid="weaponless"' not in page
    fight.refresh_from_db()
    fight.controllers = {**fight.controllers, "c1": alice.pk}
    fight.save(update_fields=["controllers"])
    page = client.get(fight.get_absolute_url()).content.decode()
    assert "Vakt has nothing to attack with." in page
    assert "The GM gives weapons." in page
    assert f'href="{catalogue}"' not in page.split('data-testid="weaponless"')[1]
