"""The live table of a Phobia campaign: Ob tests in the tray with their exact odds before
the roll, rolled on the server, numbered and shown in the log with perfect and fumble
(phobia-utdrag.txt lines 354-513)."""

import pytest
from django.test import Client
from django.urls import reverse

from campaign_log import reading
from rules.phobia.success import odds
from table import services
from table.models import RollEvent

pytestmark = pytest.mark.django_db

def roll_url(campaign):
    return reverse("table:roll", args=[campaign.pk])


def test_the_tray_asks_for_what_phobia_tests(alice_client, phobia, jace):
    page = alice_client.get(reverse("table:page", args=[phobia.pk])).content.decode()
    assert 'name="stat"' in page
    assert '<option value="3" selected>Ob3T6 Normalsvårt</option>' in page  # lines 53-65
    assert "Klättra" in page
    assert 'name="properties"' not in page  # Aoristos's TB
    # A hand is Phobia's own dice (lines 3-26), not Aoristos's B/F/T and what counts.
    assert 'name="hand" value="Ob3T6"' in page
    assert 'name="purpose"' not in page


def test_the_odds_before_the_roll_are_exact(alice_client, phobia, jace):
    """Klättra 14 against Ob3T6: P(success), P(perfect), P(fumble) from rules.phobia."""
    alice_client.cookies["django_language"] = "en"
    page = alice_client.get(
        reverse("table:odds", args=[phobia.pk]),
        {"character": jace.pk, "stat": "climbing", "difficulty": 3, "modifier": 0},
    ).content.decode()
    exact = odds(3, 14)
    assert f'data-testid="odds-percent">{float(exact.success) * 100:.1f} %' in page
    assert f'data-testid="odds-perfect">{float(exact.perfect) * 100:.1f} %' in page
    assert f'data-testid="odds-fumble">{float(exact.fumble) * 100:.1f} %' in page
    assert 'data-testid="odds-dice">Ob3T6<' in page
    # Modifiers change the dice (lines 527-537): one level easier is Ob2T6.
    easier = alice_client.get(
        reverse("table:odds", args=[phobia.pk]),
        {"character": jace.pk, "stat": "climbing", "difficulty": 3, "modifier": -1},
    ).content.decode()
    assert 'data-testid="odds-dice">Ob2T6<' in easier


def test_the_campaigns_house_rules_are_read_on_every_roll(alice_client, phobia, jace, dice):
    """A changed house rule is stored JSON the table's one-query membership read must
    parse (it once came back as text and every odds and roll failed)."""
    phobia.house_rules = {"attribute_max": 20, "damage_columns": 4}
    phobia.save()
    page = alice_client.get(
        reverse("table:odds", args=[phobia.pk]),
        {"character": jace.pk, "stat": "climbing", "difficulty": 3},
    )
    assert page.status_code == 200
    assert 'data-testid="odds-dice">Ob3T6<' in page.content.decode()
    dice.queue = [2, 2, 2]
    assert alice_client.post(roll_url(phobia), {"character": jace.pk, "stat": "climbing",
                                                "difficulty": 3}).status_code == 302
    assert RollEvent.objects.get().result == 6


def test_a_gm_without_characters_rolls_phobias_hands(client, gm, phobia):
    client.force_login(gm)
    page = client.get(reverse("table:page", args=[phobia.pk])).content.decode()
    assert 'data-testid="no-character"' in page
    assert '<input type="hidden" name="mode" value="hand">' in page
    assert 'name="hand" value="Ob3T6"' in page
    assert 'name="purpose"' not in page
    assert 'name="stat"' not in page


def test_jaces_perfect_climb_at_the_table(alice_client, phobia, jace, dice):
    """Lines 458-467: Klättra 14, Ob3T6 shows 1, 1, 6; the six rerolls 3 and 5: 10, perfect."""
    alice_client.cookies["django_language"] = "en"
    dice.queue = [1, 1, 6, 3, 5]
    response = alice_client.post(
        roll_url(phobia), {"character": jace.pk, "stat": "climbing", "difficulty": 3}
    )
    assert response.status_code == 302
    event = RollEvent.objects.get()
    assert (event.seq, event.hand, event.dice, event.result) == (1, "Ob3T6", [1, 1, 6, 3, 5], 10)
    assert (event.label, event.test_base, event.threshold) == ("Klättra", 14, None)
    message = services.payload(event)
    assert message["success"] is True
    assert message["marks"]["perfect"] is True
    assert message["marks"]["effect"] == 4
    assert [f["counted"] for f in message["faces"]] == [True, True, False, True, True]
    log = alice_client.get(reverse("table:page", args=[phobia.pk])).content.decode()
    assert 'data-testid="roll-perfect"' in log
    assert "rolled 10 against 14" in log


def test_jaces_fumble_and_the_ordinary_failure_of_6_6_1_1(alice_client, phobia, jace, dice):
    """Lines 500-513: Ob4T6 shows 6, 6, 4, 1 and the sixes reroll 5, 3, 2, 1: 16 > 14, a
    fumble; 6, 6, 1, 1 with the same rerolls is 13: an ordinary failure."""
    dice.queue = [6, 6, 4, 1, 5, 3, 2, 1, 6, 6, 1, 1, 5, 3, 2, 1]
    for _ in range(2):
        alice_client.post(roll_url(phobia), {"character": jace.pk, "stat": "climbing",
                                             "difficulty": 4})
    fumble, failure = (services.payload(e) for e in RollEvent.objects.order_by("seq"))
    assert (fumble["total"], fumble["success"], fumble["marks"]["fumble"]) == (16, False, True)
    assert (failure["total"], failure["success"], failure["marks"]["fumble"]) == (13, False, False)


def test_a_secret_gm_roll_is_the_gms_alone(client, gm, phobia, jace, dice):
    """Lines 374-381: the GM rolls hidden what the player must not learn."""
    client.force_login(gm)
    dice.queue = [2, 2, 2]
    client.post(roll_url(phobia), {"character": jace.pk, "stat": "sight", "difficulty": 3,
                                   "secret": "on"})
    [for_player] = reading.events_after(phobia.pk, 0, is_gm=False)
    [for_gm] = reading.events_after(phobia.pk, 0, is_gm=True)
    assert "hand" not in for_player
    assert "marks" not in for_player
    assert for_gm["total"] == 6


@pytest.mark.parametrize(
    "data",
    [
        {"stat": "flying", "difficulty": 3},
        {"stat": "climbing", "difficulty": 99},
        {"stat": "climbing", "difficulty": "tre"},
        {"stat": "climbing", "modifier": 11},
        {"stat": "", "difficulty": 3},
    ],
)
def test_bad_input_rolls_nothing_and_says_why(alice_client, phobia, jace, data):
    response = alice_client.post(roll_url(phobia), {"character": jace.pk, **data},
                                 headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert 'class="error"' in response.content.decode()
    assert not RollEvent.objects.exists()


def test_a_player_cannot_roll_for_anothers_character(client, bob, phobia, jace):
    client.force_login(bob)
    client.post(roll_url(phobia), {"character": jace.pk, "stat": "climbing", "difficulty": 3})
    assert not RollEvent.objects.exists()


def odds_page(client, campaign, character, stat, difficulty=3):
    return client.get(
        reverse("table:odds", args=[campaign.pk]),
        {"character": character.pk, "stat": stat, "difficulty": difficulty},
    ).content.decode()


def test_a_failed_lugn_roll_makes_the_situations_other_tests_harder_lines_210_229(
    alice_client, bob, phobia, jace, dice
):
    """Jace's Lugn 12 ((13+11)/5 + 3 + 5) fails at Ob3T6 (5, 5, 4 = 14): nervous, every
    other test in the situation is one level harder, shown before the roll and rolled so,
    until the player says the situation is over; then Klättra is Ob3T6 again."""
    alice_client.cookies["django_language"] = "en"
    dice.queue = [5, 5, 4]
    alice_client.post(roll_url(phobia), {"character": jace.pk, "stat": "calm", "difficulty": 3})
    lugn = RollEvent.objects.get()
    assert lugn.detail["situation"] == "nervous"
    log = alice_client.get(reverse("table:page", args=[phobia.pk])).content.decode()
    assert "nervous: +Ob1T6 on every other test in this situation" in log
    page = odds_page(alice_client, phobia, jace, "climbing")
    assert 'data-testid="odds-dice">Ob4T6<' in page
    assert 'data-testid="odds-situation"' in page
    assert f'data-testid="odds-percent">{float(odds(4, 14).success) * 100:.1f} %' in page
    # A new Lugn roll is not made harder by the situation it would replace.
    assert 'data-testid="odds-dice">Ob3T6<' in odds_page(alice_client, phobia, jace, "calm")
    dice.queue = [1, 2, 3, 4]
    alice_client.post(roll_url(phobia), {"character": jace.pk, "stat": "climbing",
                                         "difficulty": 3})
    climb = RollEvent.objects.order_by("-seq").first()
    assert climb.hand == "Ob4T6"
    assert 'data-testid="roll-in-situation">(Lugn +Ob1T6)' in alice_client.get(
        reverse("table:page", args=[phobia.pk])).content.decode()

    # Another player may not end Jace's situation; nothing is told.
    end = reverse("table:situation_end", args=[phobia.pk])
    bob_client = Client()
    bob_client.force_login(bob)
    assert bob_client.post(end, {"character": jace.pk, "stat": "climbing"}).status_code == 403
    assert 'data-testid="odds-dice">Ob4T6<' in odds_page(alice_client, phobia, jace, "climbing")
    # Jace's player ends it: the answer is the tray's odds as before; the table is told.
    answer = alice_client.post(end, {"character": jace.pk, "stat": "climbing", "difficulty": 3},
                               headers={"HX-Request": "true"})
    assert answer.status_code == 200
    assert 'data-testid="odds-dice">Ob3T6<' in answer.content.decode()
    assert 'data-testid="odds-situation"' not in answer.content.decode()
    told = reading.events_after(phobia.pk, climb.seq, is_gm=False)
    assert [m["kind"] for m in told] == ["notice-situation"]
    assert told[0]["character"] == "Jace"
    # No character: a clear refusal, nothing told.
    refused = alice_client.post(end, {"stat": "climbing"})
    assert refused.status_code == 400
    assert refused.content.decode() == "Choose a character."
    # Ending it twice tells nothing more.
    alice_client.post(end, {"character": jace.pk, "stat": "climbing"})
    assert len(reading.events_after(phobia.pk, climb.seq, is_gm=False)) == 1


def test_a_perfect_lugn_roll_makes_the_situation_easier_but_not_below_ob2t6(
    alice_client, phobia, jace, dice
):
    """Lines 224-229: 1, 1, 1 against Lugn 12 is perfect: −Ob1T6 on the situation's
    actions, 'dock lägst till svårighet lätt (Ob2T6)'."""
    dice.queue = [1, 1, 1]
    alice_client.post(roll_url(phobia), {"character": jace.pk, "stat": "calm", "difficulty": 3})
    assert RollEvent.objects.get().detail["situation"] == "exemplary"
    assert 'data-testid="odds-dice">Ob2T6<' in odds_page(alice_client, phobia, jace, "climbing")
    assert 'data-testid="odds-dice">Ob2T6<' in odds_page(alice_client, phobia, jace, "climbing", 2)
    assert 'data-testid="odds-dice">Ob1T6<' in odds_page(alice_client, phobia, jace, "climbing", 1)
