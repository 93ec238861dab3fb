"""Opposed tests at a Phobia table (phobia-utdrag.txt lines 556-609): active opposition
(both sides roll, the higher effect wins, a perfect roll beats one that is not, a fumble
always loses, a tie is rolled again) and opposition to an earlier roll (its effect is
kept; an equal effect goes to the later roll), with the exact chance of winning shown
before the roll."""

import pytest
from django.test import Client
from django.urls import reverse

from campaign_log import reading
from characters.models import Character
from rules.phobia.success import opposed_odds
from table import services
from table.models import RollEvent
from tests.conftest import PHOBIA_ATTRIBUTES
from tests.table.log_check import assert_one_query_reads_the_log
from tests.table.test_phobia_table import roll_url

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def sinclair(bob, phobia):
    return Character.objects.create(
        owner=bob, campaign=phobia, name="Sinclair", rule_system="phobia",
        attributes=PHOBIA_ATTRIBUTES, skills={"hiding": 15}, rolled={"calm": [3, 4]},
    )


@pytest.fixture
def guard(gm, phobia):
    """The GM's guard, SYN 12 (line 605)."""
    return Character.objects.create(
        owner=gm, campaign=phobia, name="Vakten", rule_system="phobia",
        attributes=PHOBIA_ATTRIBUTES | {"sight": 12}, rolled={"calm": [1, 1]},
    )


def odds_page(client, campaign, data):
    client.cookies["django_language"] = "en"
    return client.get(reverse("table:odds", args=[campaign.pk]), data).content.decode()


def against_other(jace, **extra):
    return {"mode": "opposed", "character": jace.pk, "stat": "climbing", "difficulty": 3,
            "opponent": "other", "opponent_name": "Vakten", "opponent_chance": 12,
            "opponent_difficulty": 3} | extra


def test_the_chance_to_win_is_exact_before_the_roll(alice_client, phobia, jace):
    """Klättra 14 (Ob3T6) against someone's 12 (Ob3T6): P(win) with ties rolled again."""
    page = odds_page(alice_client, phobia, against_other(jace))
    exact = opposed_odds(3, 14, 3, 12).a_wins_eventually
    assert f'data-testid="odds-win">{float(exact) * 100:.1f} %<' in page
    assert 'data-testid="odds-opponent">Vakten 12<' in page
    # The GM may give each side its own difficulty (lines 566-569).
    harder = odds_page(alice_client, phobia, against_other(jace, opponent_difficulty=1))
    easier_for_them = opposed_odds(3, 14, 1, 12).a_wins_eventually
    assert f'data-testid="odds-win">{float(easier_for_them) * 100:.1f} %<' in harder


def test_the_tray_offers_characters_someone_else_and_earlier_rolls(
    alice_client, phobia, jace, sinclair, dice
):
    dice.queue = [4, 4]
    alice_client.post(roll_url(phobia), {"character": jace.pk, "stat": "climbing",
                                         "difficulty": 2})
    page = alice_client.get(reverse("table:page", args=[phobia.pk])).content.decode()
    assert f'<option value="character:{sinclair.pk}">Sinclair</option>' in page
    assert '<option value="other">' in page
    assert '<option value="roll:1">#1 Jace · Klättra 14</option>' in page


def test_jace_beats_sinclair_and_the_log_says_so(alice_client, phobia, jace, sinclair, dice):
    """Klättra 14 rolls 2+2+2 = 6 (effect 8); Sinclair's Gömma 15 rolls 3+3+3 = 9 (effect
    6): the higher effect wins, relative effect 8 - 6 = 2 (lines 561-563, 576-578)."""
    alice_client.cookies["django_language"] = "en"
    dice.queue = [2, 2, 2, 3, 3, 3]
    response = alice_client.post(roll_url(phobia), {
        "mode": "opposed", "character": jace.pk, "stat": "climbing", "difficulty": 3,
        "opponent": f"character:{sinclair.pk}", "opponent_stat": "hiding",
        "opponent_difficulty": 3,
    })
    assert response.status_code == 302
    event = RollEvent.objects.get()
    assert (event.result, event.test_base, event.character) == (6, 14, jace)
    message = services.payload(event)
    assert message["opposed"]["winner"] == 1
    assert message["opposed"]["relative_effect"] == 2
    assert (message["opposed"]["total"], message["opposed"]["chance"]) == (9, 15)
    assert message["success"] is True
    log = alice_client.get(reverse("table:page", args=[phobia.pk])).content.decode()
    assert 'data-testid="roll-winner">Jace wins<' in log
    assert "relative effect 2" in log
    assert_one_query_reads_the_log(phobia.pk, kinds={"test"})


def test_a_tie_is_rolled_again(alice_client, phobia, jace, dice):
    """Equal effects win nothing and both roll again (lines 563-564): 14 - 6 = 8 against
    13 - 5 = 8, then 14 - 9 = 5 against 13 - 6 = 7: Vakten wins by 2."""
    dice.queue = [2, 2, 2, 1, 2, 2, 3, 3, 3, 2, 2, 2]
    alice_client.post(roll_url(phobia), against_other(jace, opponent_chance=13), headers=HTMX)
    message = services.payload(RollEvent.objects.get())
    assert message["opposed"]["ties"] == 1
    assert message["opposed"]["winner"] == -1
    assert message["opposed"]["relative_effect"] == 2
    assert message["success"] is False


def test_a_perfect_roll_beats_a_higher_effect(alice_client, phobia, jace, dice):
    """Lines 573-575: Jace's 1, 1, 5 is a perfect pattern within his 14 (effect 7); the
    other side's plain 2, 2, 2 against 16 has the higher effect, 10, but the perfect roll
    wins "oavsett vem som får högst effekt". Its relative effect is 7 - 10 = -3 (line
    576-578 defines it as the difference, whoever won)."""
    dice.queue = [1, 1, 5, 2, 2, 2]
    alice_client.post(roll_url(phobia), against_other(jace, opponent_chance=16), headers=HTMX)
    message = services.payload(RollEvent.objects.get())
    assert message["marks"]["perfect"] is True
    assert message["opposed"]["marks"]["effect"] == 10
    assert message["opposed"]["winner"] == 1
    assert message["opposed"]["relative_effect"] == 7 - 10


def test_sinclair_hides_and_the_guard_does_not_see_him(
    client, gm, alice, phobia, sinclair, guard, dice
):
    """Lines 596-609: Gömma 15 at Ob2T6 rolls 8, effect 7. The guard's SYN 12 rolls 10,
    effect 2: he does not find Sinclair. A later 5 (effect 7, equal) would."""
    bobs = Client()
    bobs.force_login(sinclair.owner)
    dice.queue = [4, 4]
    bobs.post(roll_url(phobia), {"character": sinclair.pk, "stat": "hiding", "difficulty": 2})
    hiding = RollEvent.objects.get()
    client.force_login(gm)
    client.cookies["django_language"] = "en"
    data = {"mode": "opposed", "character": guard.pk, "stat": "sight", "difficulty": 3,
            "opponent": f"roll:{hiding.seq}", "secret": "on"}
    page = odds_page(client, phobia, data)
    assert 'data-testid="odds-opponent">#1 Sinclair · Gömma<' in page
    assert "(effect 7)" in page
    dice.queue = [3, 3, 4]
    client.post(roll_url(phobia), data, headers=HTMX)
    seen = RollEvent.objects.get(seq=2)
    assert seen.secret is True  # the GM rolls it hidden (lines 374-381)
    message = services.payload(seen)
    assert (message["marks"]["effect"], message["against"]["overcomes"]) == (2, False)
    dice.queue = [1, 2, 2]
    client.post(roll_url(phobia), data, headers=HTMX)
    assert services.payload(RollEvent.objects.get(seq=3))["against"]["overcomes"] is True
    # Sinclair's player sees neither of the GM's secret rolls.
    for_bob = reading.events_after(phobia.pk, 1, is_gm=False)
    assert all("against" not in line for line in for_bob)


def test_sinclairs_voluntary_levels_make_the_guards_roll_harder_lines_589_597(
    client, gm, alice, phobia, sinclair, guard, dice
):
    """Lines 589-594: Sinclair hides at Ob2T6 adding two voluntary levels (Ob4T6: 1, 2, 2,
    3 = 8, effect 7, a success); the guard who looks for him must add as many: Ob3T6 is
    Ob5T6, and the tray and the log say so."""
    bobs = Client()
    bobs.force_login(sinclair.owner)
    bobs.cookies["django_language"] = "en"
    hide = {"character": sinclair.pk, "stat": "hiding", "difficulty": 2, "voluntary": 2}
    tray = bobs.get(reverse("table:odds", args=[phobia.pk]), hide).content.decode()
    assert 'data-testid="odds-dice">Ob4T6<' in tray
    assert "voluntary levels: +Ob2T6 included" in tray
    dice.queue = [1, 2, 2, 3]
    bobs.post(roll_url(phobia), hide)
    hiding = RollEvent.objects.get()
    assert (hiding.hand, hiding.detail["params"]["voluntary"]) == ("Ob4T6", 2)
    client.force_login(gm)
    data = {"mode": "opposed", "character": guard.pk, "stat": "sight", "difficulty": 3,
            "opponent": f"roll:{hiding.seq}"}
    page = odds_page(client, phobia, data)
    assert 'data-testid="odds-dice">Ob5T6<' in page
    assert "the earlier roll's voluntary levels: +Ob2T6 included" in page
    dice.queue = [1, 1, 2, 2, 1]
    client.post(roll_url(phobia), data, headers=HTMX)
    assert dice.queue == []
    seen = RollEvent.objects.get(seq=2)
    assert (seen.hand, seen.detail["params"]["imposed"]) == ("Ob5T6", 2)
    # 7 on five dice: effect 5, short of Sinclair's 7 (three dice could have made 4).
    assert services.payload(seen)["against"]["overcomes"] is False
    log = client.get(reverse("table:page", args=[phobia.pk])).content.decode()
    assert 'data-testid="roll-voluntary">voluntary +Ob2T6<' in log
    assert 'data-testid="roll-imposed">the earlier roll\'s voluntary levels +Ob2T6<' in log


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"opponent": ""}, "Choose whom the test is against."),
        ({"opponent": "other", "opponent_name": ""}, "Name the opponent."),
        ({"opponent": "other", "opponent_chance": ""}, "Give the opponent"),
        ({"opponent": "other", "opponent_chance": 201}, "less than or equal to 200"),
        ({"opponent": "roll:999"}, "There is no such roll to oppose."),
        ({"opponent": "character:99999999999"}, "That character does not play here."),
        ({"opponent": "character:x"}, "Choose whom the test is against."),
        ({"opponent_difficulty": 21}, "Select a valid choice"),
    ],
)
def test_a_bad_opposition_says_why_and_rolls_nothing(alice_client, phobia, jace, extra,
                                                      message):
    alice_client.cookies["django_language"] = "en"
    response = alice_client.post(roll_url(phobia), against_other(jace, **extra), headers=HTMX)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not RollEvent.objects.exists()


def test_a_player_cannot_oppose_the_gms_secret_roll(client, alice_client, gm, phobia, jace,
                                                   guard, dice):
    gms = Client()
    gms.force_login(gm)
    dice.queue = [2, 2, 2]
    # No difficulty posted: the normal one, Ob3T6 (lines 53-65).
    gms.post(roll_url(phobia), {"character": guard.pk, "stat": "sight", "secret": "on"})
    page = alice_client.get(reverse("table:page", args=[phobia.pk])).content.decode()
    assert 'value="roll:1"' not in page
    alice_client.post(roll_url(phobia), against_other(jace, opponent="roll:1"), headers=HTMX)
    assert RollEvent.objects.count() == 1


def test_nobody_can_win_between_two_certain_equal_results(alice_client, phobia, jace):
    """Ob0T6 rolls no dice (total 0): equal chances tie for ever, so it is not rolled."""
    alice_client.cookies["django_language"] = "en"
    data = against_other(jace, difficulty=0, opponent_difficulty=0, opponent_chance=14)
    response = alice_client.post(roll_url(phobia), data, headers=HTMX)
    assert "Nobody can win this" in response.content.decode()
    assert not RollEvent.objects.exists()


def test_the_odds_of_an_opposed_test_cost_a_handful_of_queries(
    alice_client, phobia, jace, sinclair, django_assert_max_num_queries
):
    data = against_other(jace, opponent=f"character:{sinclair.pk}", opponent_stat="hiding")
    with django_assert_max_num_queries(10):
        odds_page(alice_client, phobia, data)
