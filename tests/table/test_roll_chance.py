"""Issue 47: every test in the table's log (and on the table screen) says the exact chance
it had, the same figure the tray showed before it was rolled, in all three systems."""

import re

import pytest
from django.urls import reverse

from table.models import RollEvent
from table.services import payload
from tests.table.test_secret_rolls import johan  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def shown_before(client, campaign, data) -> str:
    odds = client.get(reverse("table:odds", args=[campaign.pk]), data).content.decode()
    return re.search(r'data-testid="odds-percent">([\d.,]+) %', odds).group(1)


@pytest.mark.parametrize("system", ["aoristos", "phobia", "t10"])
def test_a_tests_line_says_the_chance_the_tray_showed(request, alice_client, system):
    alice_client.cookies["django_language"] = "en"
    if system == "aoristos":
        campaign = request.getfixturevalue("campaign")
        character = request.getfixturevalue("albert_in_campaign")
        data = {"mode": "test", "character": character.pk, "properties": ["alertness"],
                "free": "1"}
    elif system == "phobia":
        campaign = request.getfixturevalue("phobia")
        character = request.getfixturevalue("jace")
        data = {"mode": "test", "character": character.pk, "stat": "climbing",
                "difficulty": "3"}
    else:
        campaign = request.getfixturevalue("t10")
        character = request.getfixturevalue("johan")
        data = {"mode": "test", "character": character.pk, "stat": "pistol"}
    before = shown_before(alice_client, campaign, data)
    assert alice_client.post(reverse("table:roll", args=[campaign.pk]), data).status_code == 302
    event = RollEvent.objects.get(campaign=campaign)
    assert f"{payload(event)['chance']:.1f}" == before
    history = alice_client.get(reverse("table:history", args=[campaign.pk])).content.decode()
    assert f"chance {before} %" in history


def test_a_bare_hand_has_no_chance(alice_client, campaign):
    alice_client.post(reverse("table:roll", args=[campaign.pk]), {"mode": "hand", "hand": "2B"})
    assert payload(RollEvent.objects.get())["chance"] is None
