"""A Phobia campaign and its characters through Django's test client: the campaign form,
house rules, the entered builder with Lugn's 2T6 rolled on the server, the sheet and the
table's log line (phobia-utdrag.txt lines 118-280; rulings.md § Phobia)."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from campaigns.models import Campaign, Membership
from campaigns.services import BringRefused, bring_check, character_bring
from characters import entered
from characters.models import Character
from rules import get_system
from table.models import NoticeEvent

pytestmark = pytest.mark.django_db

PHOBIA = get_system("phobia")

ATTRIBUTES = {
    "strength": 12, "endurance": 14, "agility": 10, "personality": 9, "psyche": 13,
    "will": 11, "education": 8, "sight": 15, "hearing": 7, "luck": 10,
}
SKILLS = {stat.key: 0 for stat in PHOBIA.skills} | {"combat_experience": 3, "climbing": 14}


class Dice:
    def __init__(self, *values):
        self.queue = list(values)

    def randint(self, a, b):
        value = self.queue.pop(0)
        assert a <= value <= b
        return value


@pytest.fixture
def dice(monkeypatch):
    def script(*values):
        monkeypatch.setattr(entered, "rng", Dice(*values))

    return script


@pytest.fixture
def phobia_campaign(gm, alice, bob):
    from campaigns.services import campaign_create

    campaign = campaign_create(gm=gm, name="Skuggorna", rule_system="phobia")
    Membership.objects.create(campaign=campaign, user=alice, seat=1)
    Membership.objects.create(campaign=campaign, user=bob, seat=2)
    return campaign


def post_data(name="Jace", **changes):
    return {"name": name, "concept": "Sprängexpert", "notes": ""} | ATTRIBUTES | SKILLS | changes


def test_a_gm_creates_a_phobia_campaign(client, gm):
    client.force_login(gm)
    page = client.get(reverse("campaigns:create")).content.decode()
    assert '<option value="phobia">Phobia</option>' in page
    response = client.post(
        reverse("campaigns:create"),
        {"name": "Skuggorna", "rule_system": "phobia", "starting_dp": "", "level_cap": ""},
    )
    campaign = Campaign.objects.get(name="Skuggorna")
    assert response.status_code == 302
    assert campaign.rule_system == "phobia"
    assert campaign.house() == PHOBIA.house(None)


def test_t10_can_be_picked_with_its_house_rules(client, gm):
    client.force_login(gm)
    response = client.post(reverse("campaigns:create"),
                           {"name": "X", "rule_system": "t10", "starting_dp": "", "level_cap": ""})
    assert response.status_code == 302
    campaign = Campaign.objects.get(name="X")
    assert campaign.rule_system == "t10"
    assert campaign.house()["ability_body"] == "Kropp"


def test_an_unknown_system_cannot_be_picked(client, gm):
    client.force_login(gm)
    response = client.post(reverse("campaigns:create"),
                           {"name": "X", "rule_system": "t11", "starting_dp": 15, "level_cap": 5})
    assert response.status_code == 400
    assert not Campaign.objects.filter(name="X").exists()


def test_the_campaign_page_marks_its_house_rules_with_their_defaults(client, gm, phobia_campaign):
    client.force_login(gm)
    client.cookies["django_language"] = "en"
    page = client.get(phobia_campaign.get_absolute_url()).content.decode()
    assert 'data-testid="house-rules"' in page
    assert "Damage columns" in page
    assert "house rule, default" in page
    assert "starting UP" not in page  # Aoristos's
    assert "Award UP" not in page


def test_the_gm_edits_the_house_rules_and_a_bad_value_changes_nothing(client, gm, phobia_campaign):
    client.force_login(gm)
    client.cookies["django_language"] = "en"
    url = reverse("campaigns:edit", args=[phobia_campaign.pk])
    page = client.get(url).content.decode()
    assert "House rule; default 5 (lines 164-171)." in page
    assert 'name="starting_dp"' not in page
    good = {"name": "Skuggorna", "house_attribute_min": 3, "house_attribute_max": 20,
            "house_damage_columns": 4, "house_row_difficulty": 1, "house_overload_levels": 2}
    bad = good | {"house_attribute_min": 21}
    response = client.post(url, bad)
    assert response.status_code == 400
    assert "The lowest attribute must not be above the highest." in response.content.decode()
    phobia_campaign.refresh_from_db()
    assert phobia_campaign.house_rules == {}
    assert client.post(url, good).status_code == 302
    phobia_campaign.refresh_from_db()
    assert phobia_campaign.house()["attribute_max"] == 20
    assert phobia_campaign.house()["damage_columns"] == 4
    assert phobia_campaign.house()["overload_levels"] == 2


def test_a_player_makes_a_phobia_character_and_lugn_is_rolled_once_on_the_server(
    client, alice, phobia_campaign, dice
):
    client.force_login(alice)
    client.cookies["django_language"] = "en"
    url = reverse("characters:create") + f"?campaign={phobia_campaign.pk}"
    page = client.get(url).content.decode()
    for term in ("Styrka", "STY", "Stridsvana"):
        assert term in page
    assert "rolled when saved" in page
    assert 'name="agility" value="10"' in page  # Phobia's default, not Aoristos's RÖR 1
    dice(3, 5)
    response = client.post(url, post_data())
    jace = Character.objects.get(name="Jace")
    assert response.status_code == 302
    assert (jace.rule_system, jace.campaign, jace.rolled) == ("phobia", phobia_campaign,
                                                               {"calm": [3, 5]})
    assert jace.values()["climbing"] == 14
    figures = {d.key: d.value for d in PHOBIA.derived(jace.values(), jace.rolled, {})}
    assert figures["calm"] == (13 + 11) // 5 + 8 == 12  # line 231
    # The table's log tells everyone what was rolled.
    notice = NoticeEvent.objects.get(campaign=phobia_campaign)
    assert notice.kind == "creation"
    assert notice.data["lines"][0] | {"formula": ""} == {
        "term": "Lugn", "dice": [3, 5], "sum": 8, "value": 12, "formula": ""}
    table = client.get(reverse("table:page", args=[phobia_campaign.pk])).content.decode()
    assert 'data-testid="creation-roll"' in table
    # Editing never rolls again.
    dice()  # no dice: a roll would fail the test
    assert client.post(reverse("characters:edit", args=[jace.pk]),
                       post_data(strength=14)).status_code == 302
    jace.refresh_from_db()
    assert jace.rolled == {"calm": [3, 5]}
    assert jace.values()["strength"] == 14


def test_the_sheet_shows_values_derived_figures_and_the_kept_roll(client, alice, phobia_campaign):
    jace = Character.objects.create(owner=alice, campaign=phobia_campaign, name="Jace",
                                    rule_system="phobia", attributes=ATTRIBUTES, skills=SKILLS,
                                    rolled={"calm": [3, 5]})
    client.force_login(alice)
    page = client.get(jace.get_absolute_url()).content.decode()
    assert 'data-testid="derived-shock_value">12<' in page  # (12+14+11)/3, line 181
    assert 'data-testid="derived-turn_order">30<' in page  # 12 + 12 + 2×3, line 243
    assert 'data-testid="derived-movement">8 m<' in page  # (10+14+10)/4, line 271
    assert "(PSY+VIL)/5 + 2T6 [3 + 5]" in page
    assert 'data-testid="creation-rolls"' in page
    # No Aoristos UP on a Phobia sheet: the word, in what the page shows (a random CSRF
    # token in an attribute may hold the letters).
    main = page.split("<main", 1)[-1].split("</main>")[0]
    shown = re.sub(r"<[^>]*>", " ", main)
    assert not re.search(r"\bUP\b", shown)


def test_values_outside_the_house_rules_are_refused_and_kept_on_the_page(
    client, alice, phobia_campaign, dice
):
    client.force_login(alice)
    client.cookies["django_language"] = "en"
    url = reverse("characters:create") + f"?campaign={phobia_campaign.pk}"
    response = client.post(url, post_data(strength=19, climbing="x"))
    page = response.content.decode()
    assert response.status_code == 400
    assert not Character.objects.filter(name="Jace").exists()
    assert 'value="19"' in page
    assert 'value="x"' in page
    assert 'data-testid="not-saved"' in page
    assert "Styrka is 3 to 18." in page  # the range, not one end of it (issue 43)


def test_the_live_check_shows_derived_values_and_marks_errors(client, alice, phobia_campaign):
    client.force_login(alice)
    client.cookies["django_language"] = "en"
    url = reverse("characters:preview") + f"?campaign={phobia_campaign.pk}"
    page = client.post(url, post_data(strength=30)).content.decode()
    assert 'data-testid="derived-mental_value">12<' in page
    assert 'id="status-strength"' in page
    assert "Styrka is 3 to 18." in page
    assert not Character.objects.exists()


@translation.override("en")
def test_a_character_of_another_system_cannot_be_brought(alice, albert, phobia_campaign):
    check = bring_check(campaign=phobia_campaign, character=albert)
    assert not check.fits
    assert "made for Aoristos; this campaign plays Phobia" in check.reasons()[0]
    with pytest.raises(BringRefused):
        character_bring(campaign=phobia_campaign, character=albert)
    albert.refresh_from_db()
    assert albert.campaign is None


@translation.override("en")
def test_a_free_phobia_character_is_brought_when_it_keeps_the_house_rules(alice, phobia_campaign):
    jace = Character.objects.create(owner=alice, name="Jace", rule_system="phobia",
                                    attributes=ATTRIBUTES | {"strength": 20}, skills=SKILLS,
                                    rolled={"calm": [3, 5]})
    check = bring_check(campaign=phobia_campaign, character=jace)
    assert check.reasons() == ["STY: At most 18."]
    phobia_campaign.house_rules = {"attribute_max": 20}
    phobia_campaign.save()
    character_bring(campaign=phobia_campaign, character=jace)
    jace.refresh_from_db()
    assert jace.campaign == phobia_campaign


def test_an_unknown_system_for_a_new_character_is_a_clear_400(client, alice):
    client.force_login(alice)
    response = client.get(reverse("characters:create") + "?system=gurps")
    assert response.status_code == 400
