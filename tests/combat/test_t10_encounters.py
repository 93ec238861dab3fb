"""T10 combat through the app (t10-ap-utdrag.txt, "Initiativ" to "Vapen"): the encounter
form's house rules, the campaign's own catalogue of weapons and Kroppsskydd, a campaign
character as a combatant with its effective bonuses, and forms posted by GM and player:
Johan's saved AP against the grenade ("Spara action points"), the k-pist against his
armour ("Kroppsskydd") on the panel, in the log and on his sheet, and the next fight going
on from his Utmattning and Skada. The scripted dice (`dice`) are tests/combat/conftest.py's;
the campaign (`t10`) is tests/conftest.py's."""

import pytest
from django.urls import reverse

from characters.models import Character
from combat import services
from combat.models import CatalogueItem, CombatRecord, Encounter, NpcTemplate
from rules.t10.combat.view import percent
from rules.t10.rolls import test_odds
from tests.combat.conftest import GRENADE, PISTOL
from tests.combat.helpers import english, panel, post, state_of

pytestmark = pytest.mark.django_db

SMG = {**PISTOL, "key": "kpist", "name": "K-pist", "skill": "smg", "normal": 30,
       "maximum": 100, "auto": True, "auto_modifier": -2, "magazine": 30}
VEST = {"key": "vast", "name": "Skyddsväst", "protection": 2}


@pytest.fixture
def johan(alice, t10):
    """Johan: Strid −1, Social Kompetens −2, Pistol +2, Sjukvård +1, Initiativ 2."""
    return Character.objects.create(
        owner=alice, campaign=t10, name="Johan", rule_system="t10",
        attributes={"body": 0, "combat": -1, "mind": 0, "social": -2, "initiative": 2},
        skills={"pistol": 2, "medicine": 1},
    )


@pytest.fixture
def armoury(t10):
    for kind, item in (("weapon", PISTOL), ("weapon", GRENADE), ("weapon", SMG),
                       ("armour", VEST)):
        CatalogueItem.objects.create(campaign=t10, kind=kind, key=item["key"], data=item)

OWN = '<span class="badge">this campaign</span>'  # a catalogue row of the campaign's own


def add_johan_and_soldier(client, gm, encounter, johan, soldier_weapon, *, armour=""):
    """The GM adds Johan (Alice's) and a soldier NPC (Kasta +1, K-pist +1, Anläggning)."""
    english(client, gm)
    data = {"source": "character", "character": johan.pk, "side": "a", "weapons": "pistol"}
    if armour:
        data["armour"] = armour
    added = post(client, encounter, data, "combat:add")
    assert added.status_code == 200, added.content.decode()[:500]
    added = post(client, encounter, {"source": "block", "name": "Soldat", "side": "b",
                                     "initiative": "0", "stance": "aimed", "skill_throw": "1",
                                     "skill_smg": "1", "weapons": soldier_weapon}, "combat:add")
    assert added.status_code == 200, added.content.decode()[:500]


def test_the_encounter_form_offers_t10s_house_rules(client, gm, t10):
    english(client, gm)
    url = reverse("combat:list", args=[t10.pk])
    page = client.get(url).content.decode()
    assert 'name="house_cover_ap"' in page
    assert 'name="house_cover_modifier"' in page
    assert "House rule; default 3 (Spara action points)" in page
    fields = {"house_metres_per_ap": "2", "house_cover_ap": "3", "house_cover_modifier": "-2",
              "house_burst_shots": "3", "house_treat_ap": "10", "house_treat_heal": "1",
              "house_painkiller_ap": "2"}
    refused = client.post(url, {"name": "Gränden", **fields, "house_cover_modifier": "2"})
    assert refused.status_code == 400
    assert not Encounter.objects.exists()
    made = client.post(url, {"name": "Gränden", **fields, "house_cover_ap": "4"})
    assert made.status_code == 302
    house = services.folded(Encounter.objects.get()).state.house
    assert (house.cover_ap, house.cover_modifier) == (4, -2)


def test_the_gm_fills_the_campaigns_catalogue(client, gm, alice, t10):
    """The excerpt lists no weapons ("Vapen" names only their values): a new campaign
    starts with the written default set, each value's source shown (the pistol's reload,
    "Handlingar som går över flera rundor"; the rest a house rule, issue 43); the GM adds
    or changes them with three ranges, E and/or A with modifiers, damage and the AP of
    attack, reload and stance; a bad entry is refused and keeps what was typed."""
    url = reverse("combat:catalogue", args=[t10.pk])
    english(client, alice)
    assert client.post(url, {"kind": "weapon"}).status_code == 403
    english(client, gm)
    page = client.get(url).content.decode()
    assert "Färdighetsslag, Handlingar som går över flera rundor" in page  # the pistol
    assert "Obeväpnad" in page
    assert "Handgranat" in page
    assert page.count("house rule") == 7
    assert OWN not in page
    assert 'name="weapon-stance_ap"' in page
    smg = {"kind": "weapon", "weapon-key": "kpist", "weapon-name": "K-pist",
           "weapon-skill": "smg", "weapon-close": "5", "weapon-normal": "30",
           "weapon-maximum": "100", "weapon-single": "on", "weapon-single_modifier": "0",
           "weapon-auto": "on", "weapon-auto_modifier": "-2", "weapon-damage": "3",
           "weapon-attack_ap": "3", "weapon-reload_ap": "4", "weapon-stance_ap": "2",
           "weapon-magazine": "30"}
    bad = client.post(url, {**smg, "weapon-close": "50"})
    assert bad.status_code == 400
    assert 'value="K-pist"' in bad.content.decode()
    assert not CatalogueItem.objects.exists()
    assert client.post(url, smg).status_code == 302
    vest = {"kind": "armour", "armour-key": "vast", "armour-name": "Skyddsväst",
            "armour-protection": "2"}
    assert client.post(url, vest).status_code == 302
    page = client.get(url).content.decode()
    assert "5/30/100 m" in page
    assert "E +0, A -2" in page
    assert "K-pist" in page  # the skill's Swedish name
    assert CatalogueItem.objects.get(key="vast").data["protection"] == 2
    # The changed k-pist and vest replaced the starter's.
    assert page.count(OWN) == 2
    assert page.count("house rule") == 5


def test_johan_escapes_the_grenade_with_saved_ap_from_the_panel(
    client, gm, alice, t10, johan, armoury, dice
):
    """Spara action points: Johan saves 4 AP; the soldier throws a hand grenade; the
    attack waits for Johan, whose player throws him into cover with 3 of them: the
    explosion does no harm and 1 saved AP is left."""
    encounter = Encounter.objects.create(campaign=t10, name="Hamnen", system="t10")
    add_johan_and_soldier(client, gm, encounter, johan, "granat")
    state = state_of(encounter)
    me = state.combatants[0]
    assert (me.initiative, me.character_id, dict(me.skills)["pistol"]) == (2, johan.pk, 2)
    assert dict(me.skills)["smg"] == -1  # no K-pist: his Strid
    assert Encounter.objects.get().controllers == {"c1": alice.pk}
    dice.queue += [8, 4]  # Initiativ: Johan 8 + 2, the soldier 4 + 0
    assert post(client, encounter, {"type": "start"}).status_code == 200
    assert dice.queue == []

    english(client, alice)
    page = panel(client, encounter)
    assert 'data-testid="acting-c1"' in page
    assert 'data-testid="ap-c1">10 AP' in page
    assert post(client, encounter, {"type": "act", "id": "c1", "label": "Spana",
                                    "ap": "6"}).status_code == 200
    ended = post(client, encounter, {"type": "end_turn", "id": "c1"})
    assert ended.status_code == 200
    assert state_of(encounter).get("c1").saved == 4
    # Alice does not command the soldier.
    assert post(client, encounter, {"type": "end_turn", "id": "c2"}).status_code == 403

    english(client, gm)
    preview = client.get(reverse("combat:preview", args=[encounter.pk]),
                         {"id": "c2", "target": "c1", "weapon": "granat"}).content.decode()
    assert 'data-testid="preview-ok"' in preview
    assert f"{percent(test_odds(1 + 2).success)} %" in preview  # close: Kasta +1, +2
    thrown = post(client, encounter, {"type": "attack", "id": "c2", "target": "c1",
                                      "weapon": "granat", "distance": "10"})
    assert thrown.status_code == 200
    assert state_of(encounter).pending is not None

    english(client, alice)
    page = panel(client, encounter)
    assert 'data-testid="prompt-react-c1"' in page
    assert 'data-testid="react-cover-c1"' in page
    covered = post(client, encounter, {"type": "cover", "id": "c1"})
    assert covered.status_code == 200
    state = state_of(encounter)
    assert state.pending is None
    johan_now = state.get("c1")
    assert (johan_now.saved, johan_now.in_cover, johan_now.fatigue) == (1, True, 0)
    log = client.get(encounter.get_absolute_url()).content.decode()
    assert "Johan is in cover: the explosion does no harm" in log
    assert "Johan reacts: Kasta sig i skydd." in log
    assert CombatRecord.objects.filter(encounter=encounter).count() == encounter.version


def test_the_smg_against_johans_armour_on_the_panel_the_sheet_and_the_next_fight(
    client, gm, alice, t10, johan, armoury, dice
):
    """Kroppsskydd: a k-pist of 3 against Johan's armour 2: 1 Skada, 3 Utmattning; his
    AP left fall by 3. His sheet shows the boxes, and the next fight starts from them."""
    encounter = Encounter.objects.create(campaign=t10, name="Hamnen", system="t10")
    add_johan_and_soldier(client, gm, encounter, johan, "kpist", armour="vast")
    assert state_of(encounter).get("c1").protection == 2
    dice.queue += [1, 9]  # the soldier first
    post(client, encounter, {"type": "start"})
    dice.queue += [5, 5]  # 10 + K-pist 1 = 11: a hit with no DoS
    shot = post(client, encounter, {"type": "attack", "id": "c2", "target": "c1",
                                    "weapon": "kpist", "distance": "20"})
    assert shot.status_code == 200, shot.content.decode()[:500]
    assert dice.queue == []
    me = state_of(encounter).get("c1")
    assert (me.damage, me.fatigue, me.ap) == (1, 3, 7)
    page = shot.content.decode()
    assert 'data-testid="fatigue-c1">☒☒☒☐☐☐☐☐☐☐' in page
    assert 'data-testid="damage-c1">☒☐☐☐☐☐☐☐☐☐' in page
    log = client.get(encounter.get_absolute_url()).content.decode()
    assert "damage 3 − Kroppsskydd 2 → Skada +1 (1), Utmattning +3 (3)" in log

    english(client, alice)
    sheet = client.get(reverse("characters:sheet", args=[johan.pk])).content.decode()
    assert 'data-testid="damage-sheet"' in sheet
    assert 'data-testid="damage-fatigue"' in sheet
    assert 'data-filled="3"' in sheet
    assert 'data-testid="damage-ap">7<' in sheet

    english(client, gm)
    second = Encounter.objects.create(campaign=t10, name="Lagret", system="t10")
    added = post(client, second, {"source": "character", "character": johan.pk, "side": "a"},
                 "combat:add")
    assert added.status_code == 200
    again = state_of(second).get("c1")
    assert (again.fatigue, again.damage) == (3, 1)
    log = client.get(second.get_absolute_url()).content.decode()
    assert "Johan joins the encounter (side a) with the Utmattning and Skada of the last" in log


def test_johans_reload_is_begun_and_shown_until_the_next_round(
    client, gm, alice, t10, johan, armoury, dice
):
    """Handlingar som går över flera rundor: with 2 AP left the reload is begun; the panel
    says so; the next round pays the last 3 and leaves 7."""
    encounter = Encounter.objects.create(campaign=t10, name="Hamnen", system="t10")
    add_johan_and_soldier(client, gm, encounter, johan, "kpist")
    dice.queue += [8, 4]
    post(client, encounter, {"type": "start"})
    english(client, alice)
    raised = post(client, encounter, {"type": "stance", "id": "c1", "stance": "ready",
                                      "weapon": "pistol"})
    assert raised.status_code == 200
    dice.queue += [1, 1]
    assert post(client, encounter, {"type": "attack", "id": "c1", "target": "c2",
                                    "weapon": "pistol", "distance": "10"}).status_code == 200
    post(client, encounter, {"type": "act", "id": "c1", "label": "Spana", "ap": "3"})
    assert state_of(encounter).get("c1").ap == 2
    begun = post(client, encounter, {"type": "reload", "id": "c1", "weapon": "pistol"})
    assert begun.status_code == 200
    assert 'data-testid="begun-c1"' in begun.content.decode()
    english(client, gm)
    post(client, encounter, {"type": "end_turn", "id": "c2"})
    me = state_of(encounter).get("c1")
    assert (me.ap, me.begun, me.ammo_of(me.weapon("pistol"))) == (7, None, 8)
    refused = post(client, encounter, {"type": "end_turn", "id": "c2"})
    assert refused.status_code == 400
    assert "It is not Soldat&#x27;s turn" in refused.content.decode()


def test_the_preview_takes_the_attacks_distance_and_the_gms_modifier(
    client, gm, alice, t10, johan, armoury
):
    """The attack form's own fields reach the preview, on the page and through the API:
    at 20 m a grenade (normal 15 m) is beyond normal range, −2 ("Avstånd"), and the GM's
    −1 comes off too; beyond its maximum (30 m) the preview says why; a distance that is no
    number is a 400."""
    encounter = Encounter.objects.create(campaign=t10, name="Hamnen", system="t10")
    add_johan_and_soldier(client, gm, encounter, johan, "granat")
    query = {"id": "c2", "target": "c1", "weapon": "granat", "distance": "20",
             "modifier": "-1"}
    page = client.get(reverse("combat:preview", args=[encounter.pk]), query).content.decode()
    assert 'data-testid="preview-ok"' in page
    assert f"{percent(test_odds(1 - 2 - 1).success)} %" in page  # Kasta +1, far −2, GM −1
    assert f"{percent(test_odds(1 + 2).success)} %" not in page  # no close-range row

    api = reverse("combat:api_preview", args=[encounter.pk])
    answer = client.get(api, query)
    assert answer.status_code == 200
    [row] = answer.json()["bands"]
    assert (row["band"], row["bonus"]) == ("far", -2)
    assert row["p_hit"] == percent(test_odds(-2).success)
    beyond = client.get(api, {**query, "distance": "31"})  # the preview says why
    assert beyond.status_code == 400
    assert beyond.json()["ok"] is False
    assert "maximum range" in beyond.json()["why"] == beyond.json()["error"]
    assert client.get(api, {**query, "distance": "tjugo"}).status_code == 400

    english(client, alice)  # Alice commands Johan, not the soldier
    assert client.get(api, query).status_code == 403


def test_a_character_joins_the_started_fight_from_the_gms_panel(
    client, gm, alice, t10, johan, armoury, dice
):
    """T10 lets a combatant join a started fight (it rolls Initiativ as it joins): the
    GM's panel still offers the campaign's characters, NPC templates and catalogue after
    the start."""
    encounter = Encounter.objects.create(campaign=t10, name="Hamnen", system="t10")
    add_johan_and_soldier(client, gm, encounter, johan, "kpist")
    henrik = Character.objects.create(
        owner=alice, campaign=t10, name="Henrik", rule_system="t10",
        attributes={"body": 0, "combat": 0, "mind": 0, "social": 0, "initiative": 1},
        skills={"smg": 1},
    )
    dice.queue += [8, 4]
    post(client, encounter, {"type": "start"})
    page = panel(client, encounter)
    assert 'data-testid="add-character"' in page
    assert f'<option value="{henrik.pk}">Henrik</option>' in page
    assert '<option value="kpist">K-pist</option>' in page
    dice.queue += [6]  # Henrik's Initiativ: 6 + 1
    joined = post(client, encounter, {"source": "character", "character": henrik.pk,
                                      "side": "a", "weapons": "kpist"}, "combat:add")
    assert joined.status_code == 200, joined.content.decode()[:500]
    assert dice.queue == []
    state = state_of(encounter)
    assert [c.name for c in state.combatants] == ["Johan", "Soldat", "Henrik"]
    assert state.get("c3").initiative_total == 7

    # An NPC saved as a template joins from it too (the form shared by the systems).
    soldier = NpcTemplate.objects.create(campaign=t10, name="Soldat",
                                         block={"skills": {"smg": 1}, "weapons": ["kpist"]})
    page = panel(client, encounter)
    assert f'<option value="{soldier.pk}">Soldat</option>' in page
    dice.queue += [2]
    joined = post(client, encounter, {"source": "template", "template": soldier.pk,
                                      "name": "Soldat 2", "side": "b"}, "combat:add")
    assert joined.status_code == 200, joined.content.decode()[:500]
    second = state_of(encounter).get("c4")
    assert (second.name, dict(second.skills)["smg"], second.initiative_total) == ("Soldat 2", 1, 2)


def test_every_roll_in_the_fight_shows_its_chance_before_it_is_made(
    client, gm, alice, t10, johan, armoury, dice
):
    """Färdighetsslag in a fight: the skill roll's options and Sjukvård show the bonus as
    things stand (the stance's −2 on other rolls in Färdigställning, "Ställningar";
    Utmattning −1 a point) with the exact chance of 11 or more."""
    encounter = Encounter.objects.create(campaign=t10, name="Hamnen", system="t10")
    add_johan_and_soldier(client, gm, encounter, johan, "kpist")
    dice.queue += [8, 4]
    post(client, encounter, {"type": "start"})
    post(client, encounter, {"type": "update_combatant", "id": "c1", "damage": 1,
                             "fatigue": 3})
    english(client, alice)
    assert post(client, encounter, {"type": "stance", "id": "c1", "stance": "ready",
                                    "weapon": "pistol"}).status_code == 200
    page = panel(client, encounter)
    # Sjukvård +1, Färdigställning −2, Utmattning −3: −4.
    medicine = percent(test_odds(1 - 2 - 3).success)
    assert f'<option value="medicine">Sjukvård -4 · {medicine} %</option>' in page
    climb = percent(test_odds(0 - 2 - 3).success)  # no Klättra: Kropp 0
    assert f'<option value="climb">Klättra -5 · {climb} %</option>' in page
    assert f'data-testid="treat-odds-c1">Sjukvård -4 · {medicine} %' in page


def test_the_fight_names_the_abilities_as_the_campaign_does(
    client, gm, alice, t10, johan, armoury, dice
):
    """Only Social Kompetens is named in the excerpt ("Förmågor och färdigheter"); the GM
    names the other three (a house rule, rules.t10.character). The panel's roll options,
    the NPC form and the log use the campaign's names, not the defaults."""
    t10.house_rules = {**t10.house_rules, "ability_body": "Fysik"}
    t10.save()
    encounter = Encounter.objects.create(campaign=t10, name="Hamnen", system="t10")
    add_johan_and_soldier(client, gm, encounter, johan, "kpist")
    gm_panel = panel(client, encounter)
    assert '<input type="number" name="skill_body"' in gm_panel
    assert "Fysik <input" in gm_panel
    assert "Kropp <input" not in gm_panel
    dice.queue += [8, 4]
    post(client, encounter, {"type": "start"})
    english(client, alice)
    page = panel(client, encounter)
    body = percent(test_odds(0).success)
    assert f'<option value="body">Fysik +0 · {body} %</option>' in page
    assert ">Kropp " not in page
    dice.queue += [6, 5]
    rolled = post(client, encounter, {"type": "test", "id": "c1", "skill": "body",
                                      "label": "Hoppa"})
    assert rolled.status_code == 200, rolled.content.decode()[:500]
    line = CombatRecord.objects.filter(encounter=encounter).latest("version").public_lines
    assert any(entry.get("skill_name") == "Fysik" for entry in line), line
