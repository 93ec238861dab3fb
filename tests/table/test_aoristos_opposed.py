"""Opposed tests at an Aoristos table (p. 5): "Då lägger man ihop alla relevanta testbaser
på vardera sidan och låter en person representera varje sida i ett motståndstest. Endast
representanternas eventuella F och T gäller. Högst helt slag vinner. Lika slag räknas som
oavgjort, och har normalt sett ingen effekt."

The tray's side is the test it rolls (the representative, who the user may roll for, its
properties, constant, F and T) with the characters beside it; the other side is a
character of the campaign or someone without a sheet (a name and a TB), with characters
beside it, the properties they test and its representative's F and T. One POST rolls both
representatives' hands on the server; the exact chance of each outcome is shown first."""

from fractions import Fraction

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from campaign_log import audiences, reading
from campaigns.services import campaign_create
from characters.models import Character
from rules.aoristos.dice import parse_hand
from rules.aoristos.success import OpposedSide, opposed_odds
from table import services
from table.models import RollEvent
from tests.table.log_check import assert_one_query_reads_the_log

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def bertil(bob, campaign):
    """Bob's Bertil: RÖR 4, SIN 3, Vildmark 2."""
    return Character.objects.create(
        owner=bob, campaign=campaign, name="Bertil",
        attributes={"physique": 3, "composure": 3, "agility": 4, "alertness": 3,
                    "willpower": 2},
        skills={"wilderness": 2},
    )


@pytest.fixture
def vakten(gm, campaign):
    """The GM's guard: RÖR 3, SIN 4."""
    return Character.objects.create(
        owner=gm, campaign=campaign, name="Vakten",
        attributes={"physique": 4, "composure": 2, "agility": 3, "alertness": 4,
                    "willpower": 2},
    )


def roll_url(campaign):
    return reverse("table:roll", args=[campaign.pk])


def odds_url(campaign):
    return reverse("table:odds", args=[campaign.pk])


def opposed(albert, **extra):
    """Albert's RÖR (2) against someone without a sheet, "Hundarna" with TB 3."""
    return {"mode": "opposed", "character": albert.pk, "properties": ["agility"],
            "opponent": "other", "opponent_name": "Hundarna", "opponent_tb": 3} | extra


def summed(test_base, parts) -> str:
    """A side's TB in its log line, with what it was summed from."""
    return f'TB {test_base} <span class="meta" data-testid="opposed-tbs">({parts})</span>'


def english(client):
    client.cookies["django_language"] = "en"
    return client


def test_the_exact_chance_of_each_outcome_is_shown_before_the_roll(
    alice_client, campaign, albert_in_campaign, vakten
):
    """Albert's RÖR 2 (1B1T) against the GM's Vakten's RÖR 3 (1B1T): the chance that
    Albert wins, of a draw and that Vakten wins are the rules core's exact ones."""
    english(alice_client)
    data = opposed(albert_in_campaign, opponent=f"character:{vakten.pk}",
                   opponent_properties=["agility"])
    answer = alice_client.get(odds_url(campaign), data)
    odds = answer.context["odds"]
    exact = opposed_odds(OpposedSide(2, parse_hand("1B1T")), OpposedSide(3, parse_hand("1B1T")))
    assert odds["exact"] == exact
    assert exact.a_wins + exact.draw + exact.b_wins == 1
    page = answer.content.decode()
    assert f'data-testid="odds-a-wins">{float(exact.a_wins) * 100:.1f} %<' in page
    assert f'data-testid="odds-draw">{float(exact.draw) * 100:.1f} %<' in page
    assert f'data-testid="odds-b-wins">{float(exact.b_wins) * 100:.1f} %<' in page
    assert "Albert wins" in page
    assert "Vakten wins" in page
    assert 'data-testid="odds-tb-a">2<' in page
    assert 'data-testid="odds-tb-b">3<' in page
    # The other side's free die cancels its forced one: 1B, and the chance follows.
    freer = alice_client.get(odds_url(campaign), data | {"opponent_free": 1}).context["odds"]
    assert freer["exact"] == opposed_odds(OpposedSide(2, parse_hand("1B1T")),
                                          OpposedSide(3, parse_hand("1B")))
    assert freer["exact"].b_wins > exact.b_wins


def test_a_side_sums_everyone_on_it_and_only_the_representatives_dice_count(
    alice_client, campaign, albert_in_campaign, bertil, vakten, dice
):
    """p. 5: Albert (SIN 5 + Vildmark 0) with Bertil beside him (SIN 3 + Vildmark 2) sum
    TB 10; Vakten (SIN 4) and someone without a sheet... here Vakten alone, TB 4 + 0.
    Albert's hand 1B1T + 1F = 1B: one die, 3, total 13; Vakten's 1B1T rolls 6 and 5: the
    5 counts, total 9. Albert's side wins, and Bertil's F would not have counted."""
    english(alice_client)
    data = opposed(
        albert_in_campaign, properties=["alertness", "wilderness"], free=1,
        helpers=[bertil.pk], opponent=f"character:{vakten.pk}",
        opponent_properties=["alertness", "wilderness"],
    )
    dice.queue = [3, 6, 5]
    answer = alice_client.post(roll_url(campaign), data, headers=HTMX)
    assert answer.status_code == 200
    assert 'class="error"' not in answer.content.decode()
    assert dice.queue == []  # one die for Albert's 1B, two for Vakten's 1B1T
    event = RollEvent.objects.get()
    assert (event.character, event.kind, event.label) == (albert_in_campaign, "test",
                                                          "SIN + Vildmark")
    assert (event.hand, event.dice, event.result, event.test_base, event.threshold) == (
        "1B", [3], 3, 10, None)
    sides = event.detail["sides"]
    assert sides["a"]["participants"] == [
        {"character_id": albert_in_campaign.pk, "name": "Albert", "test_base": 5},
        {"character_id": bertil.pk, "name": "Bertil", "test_base": 5},
    ]
    assert sides["b"]["participants"] == [
        {"character_id": vakten.pk, "name": "Vakten", "test_base": 4}]
    assert (sides["b"]["hand"], sides["b"]["dice"], sides["b"]["counted"]) == (
        "1B1T", [6, 5], [5])
    message = services.payload(event)
    assert message["winner"] == 1
    assert message["success"] is True
    assert [side["total"] for side in message["sides"]] == [13, 9]
    for who in (alice_client, Client()):
        if who is not alice_client:
            who.force_login(vakten.owner)
        page = english(who).get(reverse("table:page", args=[campaign.pk])).content.decode()
        line = page.split(f'id="roll-{event.seq}"')[1].split("</li>")[0]
        assert 'data-testid="roll-winner">Albert wins<' in line
        assert "Albert, Bertil · SIN + Vildmark:" in line
        assert summed(10, "5 + 5") in line
        assert 'data-testid="opposed-total">13<' in line
        assert 'opposed-total">9<' in line
        assert line.count('class="die') == 3
        history = who.get(reverse("table:history", args=[campaign.pk])).content.decode()
        assert 'data-testid="roll-winner">Albert wins<' in history
    assert_one_query_reads_the_log(campaign.pk, kinds={"test"})


def test_equal_totals_are_a_draw_with_no_effect_and_not_rolled_again(
    alice_client, campaign, albert_in_campaign, dice
):
    """RÖR 2 + 4 = 6 against Hundarna's TB 3 + 3 = 6: a draw (p. 5: "Lika slag räknas som
    oavgjort"), unlike Phobia's tie nobody rolls again."""
    english(alice_client)
    dice.queue = [4, 5, 3, 3]
    alice_client.post(roll_url(campaign), opposed(albert_in_campaign), headers=HTMX)
    assert dice.queue == []
    message = services.payload(RollEvent.objects.get())
    assert message["winner"] == 0
    assert message["success"] is None  # the line is neither a hit nor a miss
    page = alice_client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    assert 'data-testid="roll-winner">a draw: no effect<' in page
    assert 'class="roll hit"' not in page
    assert 'class="roll miss"' not in page


def test_the_other_side_wins_and_its_named_someone_represents_it(
    alice_client, campaign, albert_in_campaign, bertil, dice
):
    """Hundarna (TB 3) with Bertil beside them (RÖR 4): TB 7; Albert's 1 against their 2."""
    english(alice_client)
    data = opposed(albert_in_campaign, opponent_helpers=[bertil.pk],
                   opponent_properties=["agility"], constant=-1)
    dice.queue = [1, 1, 2, 2]
    alice_client.post(roll_url(campaign), data, headers=HTMX)
    event = RollEvent.objects.get()
    assert (event.test_base, event.label) == (1, "RÖR \N{MINUS SIGN} 1")
    message = services.payload(event)
    assert message["winner"] == -1
    assert message["success"] is False
    assert [side["total"] for side in message["sides"]] == [2, 9]
    page = alice_client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    line = page.split('id="roll-1"')[1].split("</li>")[0]
    assert 'data-testid="roll-winner">Hundarna wins<' in line
    assert "Hundarna, Bertil · RÖR:" in line
    assert summed(7, "3 + 4") in line
    assert summed(1, "2 − 1") in line  # Albert's RÖR 2 and the constant −1
    assert 'class="roll miss"' in page


def test_a_player_rolls_only_for_their_own_side(
    client, alice, bob, gm, outsider, campaign, albert_in_campaign, bertil, vakten, dice
):
    """A player's side is represented by their own character; the other side may be
    anyone's, and another player's character may stand beside theirs. The GM represents
    a side with any character of the campaign; an outsider reaches nothing."""
    english(client).force_login(alice)
    refused = client.post(roll_url(campaign), opposed(albert_in_campaign, character=bertil.pk),
                          headers=HTMX).content.decode()
    assert ("Bertil is not your character: you roll for your own side. Put Bertil on the "
            "other side, or let their player roll.") in refused
    assert not RollEvent.objects.exists()
    dice.queue = [3, 3, 3, 3]
    data = opposed(albert_in_campaign, helpers=[bertil.pk], opponent=f"character:{vakten.pk}",
                   opponent_properties=["agility"])
    assert client.post(roll_url(campaign), data, headers=HTMX).status_code == 200
    client.force_login(gm)
    dice.queue = [3, 3, 3, 3]
    data = opposed(albert_in_campaign, character=bertil.pk,
                   opponent=f"character:{albert_in_campaign.pk}",
                   opponent_properties=["agility"])
    assert client.post(roll_url(campaign), data, headers=HTMX).status_code == 200
    assert [(e.actor, e.character) for e in RollEvent.objects.order_by("seq")] == [
        (alice, albert_in_campaign), (gm, bertil)]
    client.force_login(outsider)
    assert client.post(roll_url(campaign), data, headers=HTMX).status_code == 404
    assert client.get(odds_url(campaign), data).status_code == 404
    assert RollEvent.objects.count() == 2


def test_the_gms_secret_opposed_test_is_the_gms_alone(
    client, alice, gm, campaign, albert_in_campaign, vakten, dice
):
    """The GM rolls Vakten against Albert in secret: the GM's page shows both sides, the
    players learn only that the GM rolled in secret. A player's "secret" is not theirs to
    tick: their roll is public."""
    english(client).force_login(gm)
    dice.queue = [2, 2, 5, 5]
    data = {"mode": "opposed", "character": vakten.pk, "properties": ["alertness"],
            "opponent": f"character:{albert_in_campaign.pk}",
            "opponent_properties": ["alertness"], "secret": "on"}
    client.post(roll_url(campaign), data, headers=HTMX)
    event = RollEvent.objects.get()
    assert event.secret is True
    gm_page = client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    assert 'data-testid="roll-winner">Albert wins<' in gm_page
    assert "secret: only you see this" in gm_page
    message = reading.events_after(campaign.pk, 0, is_gm=False)[0]
    assert set(message) <= set(audiences.SECRET_FIELDS) | {"pk", "campaign_id"}
    client.force_login(alice)
    page = client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    line = page.split('id="roll-1"')[1].split("</li>")[0]
    assert "The GM rolled in secret." in line
    for leak in ("Vakten", "Albert", "SIN", "roll-winner", 'class="die'):
        assert leak not in line, leak
    dice.queue = [2, 2, 5, 5]
    client.post(roll_url(campaign), opposed(albert_in_campaign, secret="on"), headers=HTMX)
    assert RollEvent.objects.get(seq=2).secret is False
    assert_one_query_reads_the_log(campaign.pk, kinds={"test"})


@pytest.fixture
def elsewhere(gm):
    """A character of another campaign (the same GM's)."""
    return Character.objects.create(owner=gm, campaign=campaign_create(gm=gm, name="Annan"),
                                    name="Annanstans")


REFUSED = [
    ({"opponent": ""}, "Choose whom the test is against."),
    ({"opponent": "character:x"}, "Choose whom the test is against."),
    ({"opponent": "character:99999999"}, "That character does not play here."),
    ({"opponent": "other", "opponent_name": "  "}, "Name the opponent."),
    ({"opponent": "other", "opponent_tb": ""}, "Give the opponent's TB."),
    ({"opponent_tb": "-1"}, "Ensure this value is greater than or equal to 0."),
    ({"opponent_tb": "tre"}, "Enter a whole number."),
    ({"helpers": ["99999999"]}, "That character does not play here."),
    ({"helpers": ["x"]}, "That character does not play here."),
    ({"opponent_helpers": ["99999999"]}, "That character does not play here."),
    ({"properties": []}, "Choose the properties the test is of."),
    ({"character": ""}, "Choose a character to test."),
    ({"character": "99999999"}, "That character does not play here."),
    ({"opponent_properties": ["flying"]}, "Select a valid choice. flying is not one of"),
    ({"opponent_free": "6"}, "Ensure this value is less than or equal to 5."),
    ({"helpers": [str(n) for n in range(1, 40)]}, "At most 30 characters on a side."),
]


@pytest.mark.parametrize(("bad", "reason"), REFUSED)
def test_a_refused_opposed_test_says_why_keeps_the_tray_and_rolls_nothing(
    alice_client, campaign, albert_in_campaign, bad, reason
):
    english(alice_client)
    data = opposed(albert_in_campaign, **bad)
    answer = alice_client.post(roll_url(campaign), data, headers=HTMX)
    assert answer.status_code == 200
    said = answer.content.decode()
    assert escape(reason) in said, said
    form = answer.context["form"]
    assert form.data["opponent"] == data["opponent"]  # the bound form keeps what was typed
    box = alice_client.get(odds_url(campaign), data)
    assert box.status_code == 200
    assert box.context["odds"] is None
    assert escape(reason) in box.content.decode()
    assert not RollEvent.objects.exists()


def test_characters_of_other_campaigns_and_both_sides_at_once_are_refused(
    client, gm, campaign, albert_in_campaign, bertil, elsewhere, dice
):
    """Every id is read through the campaign (campaigns.scoped): a character of another
    campaign is named nowhere, as representative, opponent or beside either; a character
    on both sides, or another side of characters without properties, is refused too."""
    english(client).force_login(gm)
    cases = [
        ({"character": elsewhere.pk}, "That character does not play here."),
        ({"opponent": f"character:{elsewhere.pk}", "opponent_properties": ["agility"]},
         "That character does not play here."),
        ({"helpers": [elsewhere.pk]}, "That character does not play here."),
        ({"opponent_helpers": [elsewhere.pk], "opponent_properties": ["agility"]},
         "That character does not play here."),
        ({"opponent": f"character:{albert_in_campaign.pk}",
          "opponent_properties": ["agility"]}, "Albert cannot be on both sides."),
        ({"helpers": [bertil.pk], "opponent_helpers": [bertil.pk],
          "opponent_properties": ["agility"]}, "Bertil cannot be on both sides."),
        ({"opponent": f"character:{bertil.pk}"}, "Choose the properties the other side tests."),
        ({"opponent_helpers": [bertil.pk]}, "Choose the properties the other side tests."),
    ]
    for bad, reason in cases:
        answer = client.post(roll_url(campaign), opposed(albert_in_campaign, **bad),
                             headers=HTMX)
        assert answer.status_code == 200, bad
        assert escape(reason) in answer.content.decode(), (bad, reason)
        assert "Annanstans" not in answer.content.decode()
    # Without JavaScript the page says why too.
    answer = client.post(roll_url(campaign), opposed(albert_in_campaign, helpers=[
        elsewhere.pk]), follow=True)
    assert "That character does not play here." in answer.content.decode()
    assert not RollEvent.objects.exists()


def test_the_tray_offers_the_campaigns_characters_and_someone_else(
    alice_client, campaign, albert_in_campaign, bertil, vakten, elsewhere
):
    english(alice_client)
    page = alice_client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    assert 'name="mode" value="opposed"' in page
    assert 'data-testid="opposed-fields"' in page
    for character in (albert_in_campaign, bertil, vakten):
        assert f'<option value="character:{character.pk}">{character.name}</option>' in page
        assert f'name="helpers" value="{character.pk}"' in page
        assert f'name="opponent_helpers" value="{character.pk}"' in page
    assert "Annanstans" not in page
    assert '<option value="other">Someone else (a name and a TB)</option>' in page
    # The player's own side is represented by their own characters only.
    select = page.split('name="character"')[1].split("</select>")[0]
    assert "Albert" in select
    assert "Bertil" not in select


def test_an_opposed_test_is_rolled_once_for_a_resent_key(
    alice_client, campaign, albert_in_campaign, dice
):
    """A phone that resends after a lost answer gets the first roll back, not a second."""
    data = opposed(albert_in_campaign, idempotency_key="a" * 32)
    dice.queue = [4, 4, 4, 4, 1, 1, 1, 1]
    first = alice_client.post(roll_url(campaign), data, headers=HTMX)
    again = alice_client.post(roll_url(campaign), data, headers=HTMX)
    assert first.status_code == again.status_code == 200
    assert 'data-rolled="1"' in first.content.decode()
    assert 'data-rolled="1"' in again.content.decode()
    assert RollEvent.objects.get().dice == [4, 4]


def test_the_odds_and_the_roll_take_a_handful_of_queries(
    alice_client, campaign, albert_in_campaign, bertil, vakten, dice,
    django_assert_max_num_queries
):
    data = opposed(albert_in_campaign, helpers=[bertil.pk], opponent=f"character:{vakten.pk}",
                   opponent_properties=["agility"])
    with django_assert_max_num_queries(8):
        alice_client.get(odds_url(campaign), data)
    dice.queue = [1, 2, 3, 4]
    with django_assert_max_num_queries(8):
        alice_client.post(roll_url(campaign), data, headers=HTMX)
    assert RollEvent.objects.count() == 1


def test_the_exact_odds_of_a_fraction_are_shown_rounded_but_kept_exact(
    alice_client, campaign, albert_in_campaign
):
    """Equal sides (TB 2 against TB 2, 1B1T each): a draw is 286/1296 exactly."""
    data = opposed(albert_in_campaign, opponent_tb=2)
    odds = alice_client.get(odds_url(campaign), data).context["odds"]
    assert odds["exact"].draw == Fraction(286, 1296)
    assert odds["exact"].a_wins == odds["exact"].b_wins
