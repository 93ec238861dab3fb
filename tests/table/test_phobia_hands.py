"""Bare dice hands at a Phobia table: the text's own dice (open-ended ObnT6, lines 3-26;
1T10 of the serious-injury table, lines 833 and 946; 2T6, line 231; (1T6/2)-1 and 1T6-1
of the injury codes, lines 920-935), with their range and exact mean before the roll,
rolled on the server and shown in every page's log."""

import pytest
from django.test import Client
from django.urls import reverse

from campaign_log import reading
from table import services
from table.models import RollEvent
from tests.table.test_phobia_table import roll_url

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def hand_odds(client, campaign, hand):
    client.cookies["django_language"] = "en"
    return client.get(
        reverse("table:odds", args=[campaign.pk]), {"mode": "hand", "hand": hand}
    ).content.decode()


@pytest.mark.parametrize(
    ("hand", "shown", "range_", "mean"),
    [
        ("1T10", "1T10", "from 1 to 10", "5.5"),
        ("ob3t6", "Ob3T6", "from 3, open-ended", "11.3"),  # 3.75 a die (line 26): 11.25
        ("(1T6/2)−1", "(1T6/2)-1", "from -1 to 2", "0.5"),  # halves round down
        ("1T6–1", "1T6-1", "from 0 to 5", "2.5"),  # the text's en dash
        ("2T6", "2T6", "from 2 to 12", "7.0"),
    ],
)
def test_a_hands_range_and_mean_before_the_roll(
    alice_client, phobia, jace, hand, shown, range_, mean
):
    page = hand_odds(alice_client, phobia, hand)
    assert f'data-testid="odds-hand">{shown}<' in page
    assert f'data-testid="odds-range">{range_}<' in page
    assert f"<strong>{mean}</strong>" in page


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        ("2B2T+1", "That is not a dice hand. Write e.g. Ob3T6, 1T10"),
        ("Ob21T6", "“Ob21T6” has a number of dice the tray cannot roll (at most 20)."),
        ("1T10+100", "The modifier in “1T10+100” is too large: at most ±99."),
        ("", "Write a dice hand, e.g. Ob3T6"),
        ("x" * 30, "A dice hand has at most 20 characters."),
    ],
)
def test_a_bad_hand_says_why_and_rolls_nothing(alice_client, phobia, jace, hand, message):
    assert message in hand_odds(alice_client, phobia, hand)
    response = alice_client.post(roll_url(phobia), {"mode": "hand", "hand": hand}, headers=HTMX)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not RollEvent.objects.exists()


def test_a_serious_injury_roll_of_1t10_reaches_the_log(alice_client, phobia, jace, dice):
    alice_client.cookies["django_language"] = "en"
    dice.queue = [7]
    response = alice_client.post(roll_url(phobia), {"mode": "hand", "hand": "1T10"})
    assert response.status_code == 302
    event = RollEvent.objects.get()
    assert (event.kind, event.hand, event.dice, event.result) == ("hand", "1T10", [7], 7)
    assert event.character is None
    assert event.detail["system"] == "phobia"
    log = alice_client.get(reverse("table:page", args=[phobia.pk])).content.decode()
    assert 'data-testid="roll-hand-total">7<' in log


def test_an_open_ended_hand_replaces_its_sixes(alice_client, phobia, jace, dice):
    """Lines 12-17: Ob2T6 shows 6 and 2; the six is two new dice, 3 and 4: 2 + 3 + 4 = 9,
    the six itself counts nothing."""
    dice.queue = [6, 2, 3, 4]
    alice_client.post(roll_url(phobia), {"mode": "hand", "hand": "Ob2T6"}, headers=HTMX)
    message = services.payload(RollEvent.objects.get())
    assert (message["total"], message["first"]) == (9, [6, 2])
    assert [f["counted"] for f in message["faces"]] == [False, True, True, True]
    assert message["success"] is None


def test_the_gm_rolls_a_hand_in_secret_without_any_character(client, gm, phobia, dice):
    """Lines 374-381: the GM rolls hidden; the others learn only that a roll was made."""
    client.force_login(gm)
    dice.queue = [4, 5]
    client.post(roll_url(phobia), {"mode": "hand", "hand": "2T6", "secret": "on"}, headers=HTMX)
    [for_player] = reading.events_after(phobia.pk, 0, is_gm=False)
    [for_gm] = reading.events_after(phobia.pk, 0, is_gm=True)
    assert "hand" not in for_player
    assert "total" not in for_player
    assert for_gm["total"] == 9


def test_a_player_cannot_roll_in_secret(alice_client, phobia, jace, dice):
    dice.queue = [3]
    alice_client.post(roll_url(phobia), {"mode": "hand", "hand": "1T10", "secret": "on"})
    assert RollEvent.objects.get().secret is False


def test_someone_outside_the_campaign_rolls_nothing(phobia, dice, django_user_model):
    stranger = Client()
    stranger.force_login(django_user_model.objects.create_user("eve", password="x"))
    response = stranger.post(roll_url(phobia), {"mode": "hand", "hand": "1T10"})
    assert response.status_code == 404
    assert not RollEvent.objects.exists()
