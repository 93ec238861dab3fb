"""The tray's odds box says why a roll cannot be made, field by field, as the roll's own
answer says it (issue 25, item 10): a bad difficulty, an unknown stat or property, numbers
out of bounds and an opponent out of range, in all three systems, in the page's language;
and nothing is rolled. An untouched tray still shows the hint."""

import re

import pytest
from django.urls import reverse

from characters.models import Character
from table.models import RollEvent

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def reasons(client, campaign, data) -> tuple[list[str], str]:
    """What the roll answers (its errors, one per line) and what the odds box says."""
    rolled = client.post(reverse("table:roll", args=[campaign.pk]), data, headers=HTMX)
    assert rolled.status_code == 200
    said = re.findall(r'<p class="error">(.*?)</p>', rolled.content.decode(), re.S)
    box = client.get(reverse("table:odds", args=[campaign.pk]), data)
    assert box.status_code == 200
    assert box.context["odds"] is None
    shown = re.findall(r'data-testid="odds-error">(.*?)</p>', box.content.decode(), re.S)
    return said, " ".join(shown)


@pytest.fixture
def johan(alice, t10):
    return Character.objects.create(
        owner=alice, campaign=t10, name="Johan", rule_system="t10",
        attributes={"body": 0, "combat": -1, "mind": 0, "social": -2, "initiative": 2},
        skills={"pistol": 2},
    )


AORISTOS = [
    ({"properties": ["flying"]}, "Select a valid choice. flying is not one of the available"),
    ({"properties": ["alertness"], "free": "9"}, "Ensure this value is less than or equal to 5."),
    ({"properties": ["alertness"], "threshold": "-1"},
     "Ensure this value is greater than or equal to 0."),
    ({"properties": ["alertness"], "character": "abc"}, "Choose a character to test."),
]


@pytest.mark.parametrize(("bad", "reason"), AORISTOS)
def test_aoristos_odds_say_what_the_roll_says(alice_client, campaign, albert_in_campaign,
                                              bad, reason):
    alice_client.cookies["django_language"] = "en"
    data = {"mode": "test", "character": albert_in_campaign.pk, **bad}
    said, shown = reasons(alice_client, campaign, data)
    assert any(reason in line for line in said)
    assert shown == " ".join(said)
    assert not RollEvent.objects.exists()


PHOBIA = [
    ({"difficulty": "21"}, "Select a valid choice. 21 is not one of the available choices."),
    ({"difficulty": "svår"}, "Select a valid choice. svår is not one of the available choices."),
    ({"stat": "flying"}, "Select a valid choice. flying is not one of the available choices."),
    ({"modifier": "99"}, "Ensure this value is less than or equal to"),
    ({"mode": "opposed", "opponent": "other", "opponent_name": "Vakten",
      "opponent_chance": "500"}, "Ensure this value is less than or equal to 200."),
    ({"mode": "opposed", "opponent": "character:999999"}, "That character does not play here."),
]


@pytest.mark.parametrize(("bad", "reason"), PHOBIA)
def test_phobia_odds_say_what_the_roll_says(alice_client, phobia, jace, bad, reason):
    alice_client.cookies["django_language"] = "en"
    data = {"mode": "test", "character": jace.pk, "stat": "climbing", "difficulty": "3",
            **bad}
    said, shown = reasons(alice_client, phobia, data)
    assert any(reason in line for line in said)
    assert shown == " ".join(said)
    assert not RollEvent.objects.exists()


T10 = [
    ({"stat": "flying"}, "Select a valid choice. flying is not one of the available choices."),
    ({"modifier": "-99"}, "Ensure this value is greater than or equal to"),
    ({"goal": "0"}, "Ensure this value is greater than or equal to 1."),
    ({"mode": "opposed", "opponent": "other", "opponent_name": "Vakten",
      "opponent_chance": "11"}, "Ensure this value is less than or equal to 10."),
    ({"mode": "opposed", "opponent": "other", "opponent_name": "Vakten",
      "opponent_chance": "-11"}, "Ensure this value is greater than or equal to -10."),
    ({"after": "roll:999999"}, "There is no such roll to continue."),
]


@pytest.mark.parametrize(("bad", "reason"), T10)
def test_t10_odds_say_what_the_roll_says(alice_client, t10, johan, bad, reason):
    alice_client.cookies["django_language"] = "en"
    data = {"mode": "test", "character": johan.pk, "stat": "pistol", **bad}
    said, shown = reasons(alice_client, t10, data)
    assert any(reason in line for line in said)
    assert shown == " ".join(said)
    assert not RollEvent.objects.exists()


def test_the_odds_box_says_it_in_swedish(alice_client, t10, johan):
    alice_client.cookies["django_language"] = "sv"
    data = {"mode": "opposed", "character": johan.pk, "stat": "pistol", "opponent": "other",
            "opponent_name": "Vakten", "opponent_chance": "11"}
    said, shown = reasons(alice_client, t10, data)
    assert "Kontrollera att detta värde är mindre än eller lika med 10." in said
    assert shown == " ".join(said)


def test_a_good_tray_shows_the_odds_and_an_empty_one_the_hint(alice_client, t10, johan):
    alice_client.cookies["django_language"] = "en"
    good = alice_client.get(reverse("table:odds", args=[t10.pk]),
                            {"mode": "test", "character": johan.pk, "stat": "pistol"})
    assert 'data-testid="odds-percent"' in good.content.decode()
    assert 'data-testid="odds-error"' not in good.content.decode()
    page = alice_client.get(reverse("table:page", args=[t10.pk])).content.decode()
    assert "Choose what to roll to see the chance first." in page
