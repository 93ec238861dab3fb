"""Plain words on the GM's pages (issue 26, item 7): a house rule's default is written as
the page says it (on/off, the choice's name, the number), never as code ("standard
False", "standard shock_value"); the catalogue names its entries and changes one by its
name; the state of a fight is English on an English page and Swedish on a Swedish one,
and the card says what the log says."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from campaigns.services import campaign_create
from combat.models import CatalogueItem
from combat.templatetags.aoristos_combat import GAME_TERMS, term, word
from tests.combat.helpers import english

pytestmark = pytest.mark.django_db


def help_texts(page: str) -> list[str]:
    """The help text under each house rule of the encounter form."""
    return re.findall(r'class="help"[^>]*>(.*?)</', page, flags=re.S)


@pytest.mark.parametrize("system", ["phobia", "t10"])
def test_the_new_encounter_form_writes_every_default_in_plain_words(client, gm, system):
    campaign = campaign_create(gm=gm, name="Ordet", rule_system=system)
    english(client, gm)
    page = client.get(reverse("combat:list", args=[campaign.pk])).content.decode()
    helps = [h for h in help_texts(page) if "House rule" in h]
    assert helps, "no house rule's help on the page"
    defaults = re.findall(r"House rule; default (.*?) \(", " ".join(helps))
    assert len(defaults) == len(helps)
    codes = {"attacker", "random", "False", "True", "shock_value", "endurance", "will"}
    assert not codes & set(defaults), defaults
    if system == "phobia":
        assert "House rule; default The attacker names the area (lines 830-835" in page
        assert "House rule; default off (lines 245-247)" in page  # 1T10 added to TO
        assert "House rule; default Chockvärde (lines 175-181" in page  # shock roll
        assert "House rule; default TÅL (lines 837-839)" in page  # death roll
    else:
        assert "House rule; default 3 (Spara action points)" in page


def test_the_catalogue_shows_names_and_changes_an_entry_by_its_name(client, gm):
    campaign = campaign_create(gm=gm, name="Förrådet")
    english(client, gm)
    url = reverse("combat:catalogue", args=[campaign.pk])
    page = client.get(url).content.decode()
    assert "Automatkarbin" in page
    assert "assault_carbine" not in page.split('data-testid="catalogue-form-weapon"')[0]
    # The weapon form's skills by their names, not their keys.
    assert '<option value="melee_weapons">Närstridsvapen</option>' in page
    assert ">melee_weapons<" not in page

    weapon = {"kind": "weapon", "weapon-name": "Automatkarbin", "weapon-skill": "firearms",
              "weapon-strength": "7", "weapon-hands": "2", "weapon-windup": "0",
              "weapon-fire_modes": "1", "weapon-weapon_bulk": "3", "weapon-magazine_bulk": "0"}
    assert client.post(url, weapon).status_code == 302
    changed = CatalogueItem.objects.get(campaign=campaign)
    assert (changed.key, changed.data["strength"]) == ("assault_carbine", 7)

    assert client.post(url, {**weapon, "weapon-name": "Kortkarbin Ö"}).status_code == 302
    new = CatalogueItem.objects.get(campaign=campaign, data__name="Kortkarbin Ö")
    assert new.key == "kortkarbin_o"


def test_a_phobia_entry_without_a_key_gets_one_from_its_name(client, gm):
    campaign = campaign_create(gm=gm, name="Skuggorna", rule_system="phobia")
    english(client, gm)
    url = reverse("combat:catalogue", args=[campaign.pk])
    armour = {"kind": "armour", "armour-name": "Läderjacka"}
    answer = client.post(url, armour)
    assert answer.status_code == 302, answer.content.decode()[-2000:]
    assert CatalogueItem.objects.get(campaign=campaign).key == "laderjacka"
    page = client.get(url).content.decode()
    assert "Läderjacka" in page
    assert "laderjacka" not in page


def test_game_state_is_english_on_an_english_page_and_swedish_on_a_swedish_one():
    with translation.override("en"):
        assert [term(k) for k in ("standing", "right_arm", "broken", "bleed_rate")] == [
            "Standing", "Right arm", "Broken", "Bleed rate"]
        assert str(term("firearms")) == "Skjutvapen"  # a property stays the game's term
    with translation.override("sv"):
        assert [term(k) for k in ("standing", "right_arm", "broken", "bleed_rate")] == [
            "Stående", "Höger arm", "Bruten", "Blödningstakt"]
    with translation.override("en"):
        assert all(term(key) != swedish for key, swedish in GAME_TERMS.items() if key != "ok")


def test_every_phobia_and_t10_state_word_has_its_english():
    """Each state or choice word Phobia's and T10's rules code writes (areas, responses,
    movement, sides; stances, actions) has an English word (issue 26): nothing of them
    stays Swedish on an English page by being forgotten."""
    from rules.phobia.combat import view as phobia
    from rules.t10.combat import view as t10

    written = {*phobia.AREA_NAMES.values(), *phobia.RESPONSE_NAMES.values(),
               *phobia.SIDE_NAMES.values(), *filter(None, phobia.MOVE_NAMES.values()),
               *t10.STANCE_NAMES.values(), *t10.ACTION_NAMES.values()}
    with translation.override("en"):
        missing = {w for w in written if word(w) == w and w not in ("Arm", "Normal")}
    assert not missing, missing
    with translation.override("sv"):
        assert {word(w) for w in written} == written


def test_a_phobia_fight_in_english_names_areas_and_responses_in_english(client, phobia_fight,
                                                                          alice, gm, run):
    run(phobia_fight, gm, {"type": "start_round"})
    run(phobia_fight, gm, {"type": "declare", "id": "c2", "actions": 1})
    run(phobia_fight, gm, {"type": "attack", "id": "c2", "target": "c1", "weapon": "Kniv",
                           "area": "chest"})
    page = reverse("combat:page", args=[phobia_fight.pk])
    text = english(client, alice).get(page).content.decode()
    assert "(Chest)" in text
    assert "Bröstkorg" not in text
    assert ">Defend" in text
    assert "Försvara sig" not in text
    client.cookies["django_language"] = "sv"
    text = client.get(page).content.decode()
    assert "(Bröstkorg)" in text
    assert ">Försvara sig" in text


def test_a_t10_fight_in_english_names_stances_and_actions_in_english(client, t10_fight):
    page = reverse("combat:page", args=[t10_fight.pk])
    text = client.get(page).content.decode()  # the fixture reads English as the GM
    assert "Aimed" in text
    assert "Anläggning" not in text
    client.cookies["django_language"] = "sv"
    assert "Anläggning" in client.get(page).content.decode()
