"""Phobia combat through the app (phobia-utdrag.txt lines 613-804, damage 806-1130): the
encounter form's house rules, the campaign's own catalogue, a campaign character as a
combatant with its derived values, and forms posted by GM and player up to a serious
injury in the log and on the panel."""

import pytest
from django.urls import reverse

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat import services
from combat.models import CatalogueItem, CombatRecord, Encounter
from rules.phobia.combat.view import percent
from rules.phobia.success import odds
from tests.combat.helpers import english, post

pytestmark = pytest.mark.django_db

ATTRIBUTES = {
    "strength": 12, "endurance": 10, "agility": 14, "personality": 9, "psyche": 13,
    "will": 11, "education": 8, "sight": 15, "hearing": 7, "luck": 10,
}


@pytest.fixture
def phobia(gm, alice):
    campaign = campaign_create(gm=gm, name="Skuggorna", rule_system="phobia")
    Membership.objects.create(campaign=campaign, user=alice, seat=1)
    return campaign


@pytest.fixture
def jace(alice, phobia):
    return Character.objects.create(
        owner=alice, campaign=phobia, name="Jace", rule_system="phobia", attributes=ATTRIBUTES,
        skills={"combat_experience": 13}, rolled={"calm": [3, 5]},
    )

OWN = '<span class="badge">this campaign</span>'  # a catalogue row of the campaign's own


def test_the_encounter_form_offers_phobias_house_rules_with_the_campaigns_values(
    client, gm, phobia
):
    """Whole numbers and choices, not Aoristos's metres; the campaign's damage columns
    start the encounter's (lines 164-171)."""
    phobia.house_rules = {"damage_columns": 4}
    phobia.save()
    english(client, gm)
    url = reverse("combat:list", args=[phobia.pk])
    page = client.get(url).content.decode()
    assert 'name="house_attack_difficulty"' in page
    assert 'name="house_damage_columns" value="4"' in page
    assert '<option value="random">' in page
    assert "House rule; default 3" in page
    refused = client.post(url, {"name": "Gränden", "house_attack_difficulty": "2.5",
                                "house_hit_location": "attacker", "house_roll_base": "3",
                                "house_row_difficulty": "1", "house_damage_columns": "5",
                                "house_death_stat": "endurance",
                                "house_shock_stat": "shock_value"})
    assert refused.status_code == 400
    assert not Encounter.objects.exists()
    made = client.post(url, {"name": "Gränden", "house_attack_difficulty": "2",
                             "house_hit_location": "attacker", "house_roll_base": "3",
                             "house_row_difficulty": "1", "house_damage_columns": "4",
                             "house_death_stat": "endurance", "house_shock_stat": "shock_value"})
    assert made.status_code == 302
    house = services.folded(Encounter.objects.get()).state.house
    assert (house.attack_difficulty, house.damage_columns) == (2, 4)


def test_the_gm_fills_the_campaigns_catalogue(client, gm, alice, phobia):
    """The excerpt lists no weapons: a new campaign starts with the written default set,
    each value's source shown (fists and kicks, lines 291-292, K damage 296-297; the rest a
    house rule, issue 43); the GM adds or changes them (damage in ObT6, P/K/H, the skill
    attacks use); a bad entry is refused and keeps what was typed."""
    url = reverse("combat:catalogue", args=[phobia.pk])
    english(client, alice)
    assert client.post(url, {"kind": "weapon"}).status_code == 403
    english(client, gm)
    page = client.get(url).content.decode()
    assert "Knytnäve eller spark" in page
    assert "rad 291-292, rad 296-297" in page
    assert "Avsågat hagelgevär" in page
    assert "Skyddsväst" in page
    assert page.count("house rule") == 8
    assert OWN not in page
    assert 'name="weapon-damage"' in page
    knife = {"kind": "weapon", "weapon-key": "kniv", "weapon-name": "Kniv",
             "weapon-damage": "3", "weapon-damage_type": "H",
             "weapon-skill": "combat_experience"}
    bad = client.post(url, {**knife, "weapon-damage": "25"})
    assert bad.status_code == 400
    assert 'value="Kniv"' in bad.content.decode()
    assert not CatalogueItem.objects.exists()
    assert client.post(url, knife).status_code == 302
    vest = {"kind": "armour", "armour-key": "vast", "armour-name": "Skyddsväst",
            "armour-areas_chest": "4", "armour-areas_belly": "3"}
    assert client.post(url, vest).status_code == 302
    page = client.get(url).content.decode()
    assert "Ob3T6" in page
    assert "Stridsvana" in page
    assert "Bröstkorg 4" in page
    assert CatalogueItem.objects.get(key="vast").data["areas"] == [["chest", 4], ["belly", 3]]
    # The changed knife replaced the starter's; the vest is a new entry beside its own.
    assert page.count(OWN) == 2
    assert page.count("house rule") == 7


def test_a_player_wounds_an_npc_from_the_panel_to_a_serious_injury(
    client, gm, alice, phobia, jace, dice
):
    """Jace (TO (14+15)/2 + Lugn + 2·13) cuts a guard's arm with a knife: the player's
    forms declare and attack, the guard takes no response, 17 damage against Chockvärde
    12 gives 8 Trauma, 9 Smärta, a small bleed and Artärblödning (lines 818-852, 971);
    the panel shows the rows and the log the injury."""
    CatalogueItem.objects.create(campaign=phobia, kind="weapon", key="kniv", data={
        "key": "kniv", "name": "Kniv", "damage": 4, "damage_type": "H",
        "skill": "combat_experience", "ranged": False})
    encounter = Encounter.objects.create(campaign=phobia, name="Gränden", system="phobia")
    english(client, gm)
    page = client.get(encounter.get_absolute_url()).content.decode()
    assert 'data-testid="add-character"' in page
    added = post(client, encounter, {"source": "character", "character": jace.pk,
                                     "side": "a", "weapons": "kniv"}, "combat:add")
    assert added.status_code == 200
    state = services.folded(Encounter.objects.get()).state
    combatant = state.combatants[0]
    calm = (13 + 11) // 5 + 3 + 5
    assert combatant.turn_order == (14 + 15) // 2 + calm + 2 * 13
    assert combatant.shock_value == (12 + 10 + 11) // 3
    assert [w.key for w in combatant.weapons] == ["kniv"]
    assert Encounter.objects.get().controllers == {"c1": alice.pk}
    post(client, encounter, {"source": "block", "name": "Vakten", "side": "b",
                             "strength": "12", "endurance": "10", "agility": "10",
                             "will": "14", "turn_order": "5", "shock_value": "12"}, "combat:add")
    assert post(client, encounter, {"type": "start_round"}).status_code == 200

    english(client, alice)
    page = client.get(encounter.get_absolute_url()).content.decode()
    assert 'data-testid="declare"' in page
    declared = post(client, encounter, {"type": "declare", "id": "c1", "actions": "1"})
    assert declared.status_code == 200
    panel = client.get(reverse("combat:state", args=[encounter.pk])).content.decode()
    assert 'data-testid="attack-options"' in panel
    assert f"{percent(odds(3, 13).success)} % <span class=\"meta\">Ob3T6</span>" in panel
    attacked = post(client, encounter, {"type": "attack", "id": "c1", "target": "c2",
                                        "weapon": "kniv", "area": "arm"})
    assert attacked.status_code == 200
    # Alice may not answer for the guard.
    assert post(client, encounter, {"type": "pass", "id": "c2"}).status_code == 403

    english(client, gm)
    dice.queue += [2, 3, 4,  # the attack: 9 against Stridsvana 13, a hit
                   5, 5, 4, 3,  # Kniv Ob4T6: 17
                   3,  # 1T10 on the arm, H: Artärblödning (line 971)
                   1, 2, 1, 1,  # death roll Ob4T6 against TÅL 10: 5
                   2, 2, 2, 2, 2]  # shock roll Ob5T6 against 12: 10
    answered = post(client, encounter, {"type": "pass", "id": "c2"})
    assert answered.status_code == 200
    assert dice.queue == []
    guard = services.folded(Encounter.objects.get()).state.combatants[1]
    assert (guard.trauma, guard.pain) == (8, 9)
    assert guard.bleeding.rate == 1 + 8
    panel = answered.content.decode()
    assert "Artärblödning" in panel
    assert 'data-testid="pain-c2"' in panel
    assert "☒☒☒☒☒ +Ob1T6" in panel
    encounter.refresh_from_db()
    assert CombatRecord.objects.filter(encounter=encounter).count() == encounter.version
    log = client.get(encounter.get_absolute_url()).content.decode()
    assert "Artärblödning" in log

    # The player sees the guard's injury but not its numbers.
    english(client, alice)
    panel = client.get(reverse("combat:state", args=[encounter.pk])).content.decode()
    assert "Artärblödning" in panel
    assert 'data-testid="pain-c2"' not in panel


def test_the_next_fight_goes_on_from_the_wounds_of_the_last(
    client, gm, alice, phobia, jace, dice
):
    """Jace's arm cut in the first fight (8 Trauma, 9 Smärta, Artärblödning) is there when
    the GM adds Jace to the next: the rows, the injury and the bleeding go on, and the log
    says so. The rule text's bleeding runs on (lines 1072-1095): a minute bleeds 9 more."""
    first = Encounter.objects.create(campaign=phobia, name="Gränden", system="phobia")
    english(client, gm)
    post(client, first, {"source": "character", "character": jace.pk, "side": "a"},
         "combat:add")
    post(client, first, {"source": "block", "name": "Vakten", "side": "b", "turn_order": "99",
                         "weapon_name": "Yxa", "weapon_damage": "4", "weapon_type": "H",
                         "weapon_skill": "axe", "weapon_chance": "12"}, "combat:add")
    for command in ({"type": "start_round"}, {"type": "declare", "id": "c2", "actions": "1"},
                    {"type": "attack", "id": "c2", "target": "c1", "weapon": "Yxa",
                     "area": "arm"}):
        answer = post(client, first, command)
        assert answer.status_code == 200, answer.content.decode()[:300]
    english(client, alice)
    dice.queue += [2, 3, 4, 5, 5, 4, 3, 3, 1, 2, 1, 1, 2, 2, 2, 2, 2]
    assert post(client, first, {"type": "pass", "id": "c1"}).status_code == 200
    assert dice.queue == []
    first.refresh_from_db()
    hurt = services.folded(first).state.combatants[0]
    assert (hurt.trauma, hurt.pain, hurt.bleeding.rate) == (8, 9, 9)

    english(client, gm)
    second = Encounter.objects.create(campaign=phobia, name="Källaren", system="phobia")
    added = post(client, second, {"source": "character", "character": jace.pk, "side": "a"},
                 "combat:add")
    assert added.status_code == 200
    second.refresh_from_db()
    again = services.folded(second).state.combatants[0]
    assert (again.trauma, again.pain, again.bleeding) == (hurt.trauma, hurt.pain, hurt.bleeding)
    assert [i.name for i in again.injuries] == ["Artärblödning"]
    log = client.get(second.get_absolute_url()).content.decode()
    assert "Jace joins the encounter (side a) with the wounds of the last fight." in log
    dice.queue += [1, 1, 1, 1, 1, 1]  # the shock roll when the blood loss rises
    waited = post(client, second, {"type": "advance_time", "minutes": "1",
                                   "activity": "normal"})
    assert waited.status_code == 200
    assert dice.queue == []
    second.refresh_from_db()
    assert services.folded(second).state.combatants[0].bleeding.loss == 9
