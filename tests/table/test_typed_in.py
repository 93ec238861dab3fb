"""The table's own dice at the tray (issue 48): a campaign chooses who rolls; a member
whose dice are their own types the faces in; the server checks them, computes the
result with the same functions as for its own dice (rules/entered.py) and marks the
roll as typed in, by whom. Refused faces change nothing and say why."""

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from table.models import RollEvent
from tests.table.test_secret_rolls import johan  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def own_dice(campaign, source="players"):
    Campaign.objects.filter(pk=campaign.pk).update(dice_source=source)


def roll(client, campaign, **data):
    return client.post(reverse("table:roll", args=[campaign.pk]), data, headers=HTMX)


def history(client, campaign) -> str:
    return client.get(reverse("table:history", args=[campaign.pk])).content.decode()


def test_an_aoristos_test_with_typed_faces_keeps_the_worse_forced_die_p5(
    alice_client, campaign, albert_in_campaign
):
    alice_client.cookies["django_language"] = "en"
    own_dice(campaign)
    # The test's hand is 1B1T (p. 5): of the two dice typed, the lower counts.
    answer = roll(alice_client, campaign, mode="test", character=albert_in_campaign.pk,
                  properties=["alertness"], faces="5 2")
    assert answer.status_code == 200
    assert "data-rolled" in answer.content.decode()
    event = RollEvent.objects.get()
    assert (event.hand, event.dice, event.counted, event.typed_in) == (
        "1B1T", [5, 2], [2], True)
    # Two free dice more (1B1F): the higher counts.
    roll(alice_client, campaign, mode="test", character=albert_in_campaign.pk,
         properties=["alertness"], free="2", faces="2 5")
    event = RollEvent.objects.latest("seq")
    assert (event.hand, event.counted) == ("1B1F", [5])
    line = history(alice_client, campaign)
    assert "own dice, typed in by alice" in line
    # The server's dice, as before, when the faces are left empty.
    roll(alice_client, campaign, mode="test", character=albert_in_campaign.pk,
         properties=["alertness"])
    assert RollEvent.objects.latest("seq").typed_in is None
    assert RollEvent.objects.count() == 3


@pytest.mark.parametrize(
    ("faces", "says", "more"),
    [
        ("7 2", "die 1 shows 7: these dice show 1 to 6", None),
        ("2 5 1", "1 dice too many: this roll takes 2", None),
        ("2", "1 more die: this roll takes more than the 1 typed", "1"),
        ("2 x", "a die&#x27;s face is a whole number", None),
    ],
)
def test_bad_faces_are_refused_with_their_reason_and_roll_nothing(
    alice_client, campaign, albert_in_campaign, faces, says, more
):
    alice_client.cookies["django_language"] = "en"
    own_dice(campaign)
    answer = roll(alice_client, campaign, mode="test", character=albert_in_campaign.pk,
                  properties=["alertness"], faces=faces)
    content = answer.content.decode()
    assert says in content
    assert (f'data-more="{more}"' in content) == bool(more)
    assert "data-rolled" not in content
    assert not RollEvent.objects.exists()


def test_a_campaign_that_has_the_server_roll_refuses_typed_faces(
    alice_client, gm, campaign, albert_in_campaign
):
    from django.test import Client

    alice_client.cookies["django_language"] = "en"
    answer = roll(alice_client, campaign, mode="hand", hand="2B", faces="3 4")
    assert "this campaign has the server roll your dice" in answer.content.decode()
    own_dice(campaign, "gm")  # the GM's own dice, the players' the server's
    answer = roll(alice_client, campaign, mode="hand", hand="2B", faces="3 4")
    assert "this campaign has the server roll your dice" in answer.content.decode()
    assert not RollEvent.objects.exists()
    client = Client()
    client.force_login(gm)
    assert "data-rolled" in roll(client, campaign, mode="hand", hand="2B",
                                 faces="3 4").content.decode()
    assert RollEvent.objects.get().result == 7


def test_a_phobia_test_asks_for_the_dice_its_sixes_bring_lines_30_65(alice_client, phobia,
                                                                      jace):
    alice_client.cookies["django_language"] = "en"
    own_dice(phobia)
    data = {"mode": "test", "character": jace.pk, "stat": "climbing", "difficulty": "3"}
    answer = roll(alice_client, phobia, **data, faces="6 2 4").content.decode()
    assert 'data-more="2"' in answer
    assert "2 more dice" in answer
    assert not RollEvent.objects.exists()
    answer = roll(alice_client, phobia, **data, faces="6 2 4 1 3").content.decode()
    assert "data-rolled" in answer
    event = RollEvent.objects.get()
    assert (event.dice, event.result, event.typed_in) == ([6, 2, 4, 1, 3], 10, True)
    assert event.detail["rerolls"] == [1, 3]


def test_a_t10_roll_takes_its_ten_as_0_or_10(alice_client, t10, johan):  # noqa: F811
    alice_client.cookies["django_language"] = "en"
    own_dice(t10, "all")
    data = {"mode": "test", "character": johan.pk, "stat": "pistol"}
    assert "data-rolled" in roll(alice_client, t10, **data, faces="0 7").content.decode()
    event = RollEvent.objects.get()
    assert event.dice == [10, 7]
    assert event.typed_in is True


def test_the_gm_chooses_who_rolls_and_the_table_says_so(gm, alice, campaign):
    from django.test import Client

    client, alice_client = Client(), Client()
    alice_client.force_login(alice)
    client.force_login(gm)
    client.cookies["django_language"] = "en"
    edit = reverse("campaigns:edit", args=[campaign.pk])
    page = client.get(edit).content.decode()
    assert "Who rolls the dice" in page
    answer = client.post(edit, {"name": campaign.name, "starting_dp": campaign.starting_dp,
                                "level_cap": campaign.level_cap, "dice_source": "players"})
    assert answer.status_code == 302
    campaign.refresh_from_db()
    assert campaign.dice_source == "players"
    alice_client.cookies["django_language"] = "en"
    table = alice_client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    assert "The players roll their own dice" in table
    assert 'data-testid="keypad"' in table
    gm_table = client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    assert 'data-testid="keypad"' not in gm_table  # the server rolls the GM's
    refused = client.post(edit, {"name": campaign.name, "starting_dp": campaign.starting_dp,
                                 "level_cap": campaign.level_cap, "dice_source": "dice"})
    assert refused.status_code == 400
    campaign.refresh_from_db()
    assert campaign.dice_source == "players"


def test_the_gm_asks_for_a_typed_in_roll_again(alice_client, gm, campaign, albert_in_campaign):
    """Honesty of the dice (issue 48): the site never claims the dice were rolled; the GM
    may ask for a typed-in roll again, told at the table. Only the GM, only a roll of
    typed-in dice of this campaign."""
    from django.test import Client

    from table.models import NoticeEvent

    own_dice(campaign)
    roll(alice_client, campaign, mode="hand", hand="2B", faces="6 6")
    typed = RollEvent.objects.get()
    roll(alice_client, campaign, mode="hand", hand="2B", faces="")
    server = RollEvent.objects.latest("seq")
    gm_client = Client()
    gm_client.force_login(gm)
    gm_client.cookies["django_language"] = "en"
    page = gm_client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    assert "data-ask-again=" in page
    assert f'data-seq="{typed.seq}" data-typed-in' in page
    again = reverse("table:again", args=[campaign.pk, typed.seq])
    assert alice_client.post(again, headers=HTMX).status_code == 403
    assert gm_client.post(reverse("table:again", args=[campaign.pk, server.seq]),
                          headers=HTMX).status_code == 400
    assert gm_client.post(reverse("table:again", args=[campaign.pk, 999]),
                          headers=HTMX).status_code == 404
    assert not NoticeEvent.objects.exists()
    assert gm_client.post(again, headers=HTMX).status_code == 204
    notice = NoticeEvent.objects.get()
    assert notice.data == {"roll_seq": typed.seq, "who": "alice", "label": "2B"}
    line = history(gm_client, campaign)
    assert f"The GM asks alice to roll #{typed.seq} again (2B)." in line
