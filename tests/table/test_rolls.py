"""Rolling at the table: server-side dice, numbered events, secret GM rolls, history."""

import pytest
from django.urls import reverse

from rules.aoristos import dice as hands
from table import services
from table.models import RollEvent

pytestmark = pytest.mark.django_db


def test_a_success_test_from_the_sheet_is_rolled_and_numbered(
    alice_client, campaign, albert_in_campaign, dice
):
    """p. 5: SIN + Vildmark has GST 8; Albert's TB is 5. Hand 1B1T, dice 4 and 2 → 2 counts,
    total 7 < 8: a failure by 1."""
    dice.queue = [4, 2]
    response = alice_client.post(
        reverse("table:roll", args=[campaign.pk]),
        {
            "mode": "test",
            "character": albert_in_campaign.pk,
            "properties": ["alertness", "wilderness"],
        },
    )
    assert response.status_code == 302
    event = RollEvent.objects.get()
    assert (event.seq, event.hand, event.dice, event.counted) == (1, "1B1T", [4, 2], [2])
    assert (event.test_base, event.threshold, event.total, event.success) == (5, 8, 7, False)
    assert event.label == "SIN + Vildmark"
    message = services.payload(event)
    assert message["margin"] == -1
    assert message["faces"] == [{"value": 4, "counted": False}, {"value": 2, "counted": True}]


def test_sequence_numbers_count_up_per_campaign(campaign, gm, dice):
    dice.queue = [1, 2, 3]
    seqs = [
        services.roll_record(campaign=campaign, actor=gm, hand=hands.parse_hand("1B")).seq
        for _ in range(3)
    ]
    assert seqs == [1, 2, 3]
    campaign.refresh_from_db()
    assert campaign.event_seq == 3


def test_a_bare_hand_counts_highest_for_tests_and_lowest_for_stress(alice_client, campaign, dice):
    url = reverse("table:roll", args=[campaign.pk])
    dice.queue = [2, 5]
    alice_client.post(url, {"mode": "hand", "hand": "1b1f", "purpose": "test"})
    dice.queue = [2, 5]
    alice_client.post(url, {"mode": "hand", "hand": "1B1F", "purpose": "stress"})
    results = list(RollEvent.objects.order_by("seq").values_list("hand", "result"))
    assert results == [("1B1F", 5), ("1B1F", 2)]


def test_bad_rolls_are_refused_and_change_nothing(alice_client, bob, campaign, albert_in_campaign):
    url = reverse("table:roll", args=[campaign.pk])
    cases = [
        {"mode": "hand", "hand": "zz"},
        {"mode": "hand", "hand": ""},
        {"mode": "test", "character": albert_in_campaign.pk},  # no properties
        {"mode": "test", "properties": ["alertness"]},  # no character
        {"mode": "test", "character": "x", "properties": ["alertness"]},
        {"mode": "test", "character": albert_in_campaign.pk, "properties": ["nonsense"]},
        {"mode": "sideways"},
    ]
    for data in cases:
        response = alice_client.post(url, data, headers={"HX-Request": "true"})
        assert response.status_code == 200, data
        assert 'class="error"' in response.content.decode(), data
    # Bob may not roll for Alice's character.
    alice_client.force_login(bob)
    alice_client.post(
        url, {"mode": "test", "character": albert_in_campaign.pk, "properties": ["alertness"]}
    )
    assert not RollEvent.objects.exists()


def test_only_the_gm_can_roll_secretly(client, alice, gm, campaign, dice):
    url = reverse("table:roll", args=[campaign.pk])
    client.force_login(alice)
    dice.queue = [3]
    client.post(url, {"mode": "hand", "hand": "1B", "secret": "on"})
    client.force_login(gm)
    dice.queue = [6]
    client.post(url, {"mode": "hand", "hand": "1B", "secret": "on"})
    assert list(RollEvent.objects.order_by("seq").values_list("secret", flat=True)) == [
        False,
        True,
    ]


def test_players_never_see_a_secret_roll_in_pages(client, alice, gm, campaign, dice):
    dice.queue = [4, 4]
    services.roll_record(
        campaign=campaign,
        actor=gm,
        hand=hands.parse_hand("2B+13"),
        label="Hemlig fälla",
        secret=True,
    )
    for url in (
        reverse("table:page", args=[campaign.pk]),
        reverse("table:history", args=[campaign.pk]),
    ):
        client.force_login(alice)
        page = client.get(url).content.decode()
        assert 'id="roll-1"' in page
        assert "Hemlig fälla" not in page
        assert "2B+13" not in page
        item = page.split('id="roll-1"')[1].split("</li>")[0]
        assert "<strong>21</strong>" not in item
        assert 'class="die' not in item
        client.force_login(gm)
        page = client.get(url).content.decode()
        assert "Hemlig fälla" in page
        assert "2B+13" in page


def test_visible_strips_everything_secret():
    message = {
        "seq": 3,
        "kind": "hand",
        "actor": "sl",
        "character": "",
        "label": "Fälla",
        "hand": "2B",
        "dice": [1, 2],
        "counted": [1, 2],
        "faces": [],
        "result": 3,
        "test_base": None,
        "threshold": None,
        "total": None,
        "success": None,
        "margin": None,
        "secret": True,
        "created_at": "2026-11-21T20:00:00+00:00",
        "time": "21:00",
    }
    assert services.visible(message, is_gm=True) == message
    assert services.visible(message, is_gm=False) == {
        "seq": 3,
        "kind": "hand",
        "actor": "sl",
        "secret": True,
        "created_at": "2026-11-21T20:00:00+00:00",
        "time": "21:00",
    }


def test_history_pages_back_through_every_roll(alice_client, campaign, gm, dice):
    dice.queue = [1] * 65
    for _ in range(65):
        services.roll_record(campaign=campaign, actor=gm, hand=hands.parse_hand("1B"))
    first = alice_client.get(reverse("table:history", args=[campaign.pk]))
    seqs = [roll["seq"] for roll in first.context["rolls"]]
    assert seqs == list(range(65, 35, -1))
    second = alice_client.get(
        reverse("table:history", args=[campaign.pk]), {"before": first.context["older"]}
    )
    third = alice_client.get(
        reverse("table:history", args=[campaign.pk]), {"before": second.context["older"]}
    )
    seen = seqs + [r["seq"] for r in second.context["rolls"] + third.context["rolls"]]
    assert seen == list(range(65, 0, -1))
    assert third.context["older"] is None
    assert (
        alice_client.get(reverse("table:history", args=[campaign.pk]), {"before": "x"}).status_code
        == 200
    )


def test_odds_before_rolling(alice_client, campaign, albert_in_campaign):
    url = reverse("table:odds", args=[campaign.pk])
    response = alice_client.get(
        url,
        {
            "mode": "test",
            "character": albert_in_campaign.pk,
            "properties": ["alertness", "wilderness"],
        },
    )
    odds = response.context["odds"]
    assert (odds["gst"], odds["test_base"]) == (8, 5)
    assert odds["percent"] == pytest.approx(100 * 16 / 36)
    response = alice_client.get(url, {"mode": "hand", "hand": "2B+1"})
    assert (response.context["odds"]["low"], response.context["odds"]["high"]) == (3, 13)
    assert response.context["odds"]["mean"] == pytest.approx(8.0)
    assert alice_client.get(url, {"mode": "hand", "hand": "??"}).status_code == 200


@pytest.mark.parametrize("name", ["table:page", "table:history", "table:odds"])
def test_outsiders_see_no_table(client, make_user, campaign, name):
    client.force_login(make_user("utomstående"))
    assert client.get(reverse(name, args=[campaign.pk])).status_code == 404
    response = client.post(
        reverse("table:roll", args=[campaign.pk]), {"mode": "hand", "hand": "1B"}
    )
    assert response.status_code == 404
    assert not RollEvent.objects.exists()
