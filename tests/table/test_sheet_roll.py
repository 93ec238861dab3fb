"""Rolling from a character's sheet at its campaign's table (table.sheet)."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from campaign_log import broadcast
from characters.models import Character, Item
from table.models import RollEvent

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
KEY = "arket-nyckel-00001"  # 18 URL-safe characters


class Broadcasts:
    """Stands in for the broadcaster: what would have gone to the streams."""

    def __init__(self):
        self.sent = []

    def publish(self, campaign_id, message):
        self.sent.append((campaign_id, message))


@pytest.fixture
def broadcasts(monkeypatch):
    fake = Broadcasts()
    monkeypatch.setattr(broadcast, "get_broadcaster", lambda: fake)
    return fake


def roll_url(character) -> str:
    return reverse("table:sheet_roll", args=[character.pk])


def sheet_url(character) -> str:
    return reverse("characters:sheet", args=[character.pk])


def key_in(html: str) -> str:
    return re.search(r'name="idempotency_key" value="([^"]*)"', html).group(1)


@pytest.fixture
def bertil(bob, campaign):
    """Bob's character in the same campaign: Alice may see his sheet but not roll for him."""
    return Character.objects.create(owner=bob, campaign=campaign, name="Bertil")


def roll(client, character, data=None, *, key=KEY, htmx=True):
    data = {"properties": ["alertness", "wilderness"], "idempotency_key": key} | (data or {})
    return client.post(roll_url(character), data, headers=HTMX if htmx else {})


# The sheet


def test_the_owner_sees_a_roller_with_levels_and_zero_skills_behind_show_all(
    alice_client, albert_in_campaign
):
    albert_in_campaign.skills = {"firearms": 2}
    albert_in_campaign.save()
    response = alice_client.get(sheet_url(albert_in_campaign))
    assert response.context["can_roll"]
    html = response.content.decode()
    assert 'id="roll-form"' in html
    assert 'data-testid="level-alertness">5<' in html
    assert 'data-testid="level-firearms">2<' in html
    # Skills at level 0 are in the closed "show all" <details>, levels with them.
    zero = html[html.index('<details class="zero-skills"') : html.index("</details>")]
    assert 'value="wilderness"' in zero
    assert 'data-testid="level-wilderness">0<' in zero
    assert 'value="firearms"' not in zero
    assert '<details class="zero-skills">' in html  # closed: nothing chosen there
    assert 'name="idempotency_key"' in html
    assert 'id="favourite-form"' in html


def test_a_chosen_zero_skill_keeps_show_all_open(alice_client, albert_in_campaign):
    url = sheet_url(albert_in_campaign)
    html = alice_client.get(url, {"properties": ["wilderness"]}).content.decode()
    assert '<details class="zero-skills" open>' in html


def test_the_gm_sees_the_roller_and_another_player_the_plain_helper(
    client, gm, bob, albert_in_campaign
):
    client.force_login(gm)
    assert client.get(sheet_url(albert_in_campaign)).context["can_roll"]
    client.force_login(bob)
    response = client.get(sheet_url(albert_in_campaign))
    assert not response.context["can_roll"]
    html = response.content.decode()
    assert 'id="roll-form"' not in html
    assert 'class="helper no-print"' in html
    assert "roll-needs-campaign" not in html  # the character is in a campaign


def test_a_character_outside_a_campaign_keeps_the_odds_helper_and_says_why(alice_client, albert):
    html = alice_client.get(sheet_url(albert)).content.decode()
    assert 'id="roll-form"' not in html
    assert 'class="helper no-print"' in html
    assert 'data-testid="roll-needs-campaign"' in html
    assert "gå med i en kampanj" in html.lower() or "join a campaign" in html.lower()


def test_the_chance_of_the_roller_is_the_sheets_odds(alice_client, albert_in_campaign):
    """p. 5: SIN + Vildmark, GST 8, TB 5: 1B1T succeeds on a lower die of 3+, 16/36."""
    response = alice_client.get(
        sheet_url(albert_in_campaign),
        {"properties": ["alertness", "wilderness"]},
        headers=HTMX,
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="odds"')
    assert 'hx-sync="this:queue last"' in html
    assert 'data-testid="odds-gst">8<' in html
    assert 'data-testid="odds-percent">44,4 %<' in html


# Rolling


def test_a_roll_from_the_sheet_goes_to_the_table_and_shows_beside_the_button(
    alice_client,
    alice,
    campaign,
    albert_in_campaign,
    dice,
    broadcasts,
    django_capture_on_commit_callbacks,
):
    """p. 5: SIN + Vildmark has GST 8, Albert's TB is 5. 1B1T, dice 4 and 3: the 3
    counts, 5 + 3 = 8 against ST 8: a success by 0."""
    dice.queue = [4, 3]
    with django_capture_on_commit_callbacks(execute=True):
        response = roll(alice_client, albert_in_campaign)
    assert response.status_code == 200
    event = RollEvent.objects.get()
    assert (event.campaign_id, event.actor, event.character) == (
        campaign.pk,
        alice,
        albert_in_campaign,
    )
    assert (event.kind, event.label, event.hand) == ("test", "SIN + Vildmark", "1B1T")
    assert (event.test_base, event.threshold, event.total, event.success) == (5, 8, 8, True)
    assert event.idempotency_key == KEY
    # Broadcast to every open table page.
    assert [(c, m["seq"], m["character"]) for c, m in broadcasts.sent] == [
        (campaign.pk, 1, "Albert")
    ]
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="sheet-roll-result"')
    assert 'data-rolled="1"' in html
    assert 'data-testid="sheet-roll-total">8<' in html
    assert "lyckat" in html
    assert "mot ST 8" in html
    assert '<span class="die counted">3</span>' in html
    assert key_in(html) != KEY  # a fresh key for the next roll


def test_extra_dice_and_an_own_threshold_are_rolled_as_chosen(
    alice_client, albert_in_campaign, dice
):
    """p. 5: F and T cancel before the hand is rolled; 1B1T + 1F is 1B. SIN alone, TB 5,
    own ST 10: a 4 gives 9, a failure by 1."""
    dice.queue = [4]
    response = roll(
        alice_client,
        albert_in_campaign,
        {"properties": ["alertness"], "free": "1", "threshold": "10"},
    )
    assert response.status_code == 200
    event = RollEvent.objects.get()
    assert (event.hand, event.test_base, event.threshold, event.total) == ("1B", 5, 10, 9)
    assert event.success is False
    assert "misslyckat" in response.content.decode()


def test_a_roll_uses_the_effective_agility_under_load(alice_client, albert_in_campaign, dice):
    """p. 5: 13 FP against Bärförmåga 12 costs one RÖR: Albert's RÖR 2 tests as 1."""
    Item.objects.create(character=albert_in_campaign, name="Ryggsäck", bulk=13)
    dice.queue = [3, 3]
    roll(alice_client, albert_in_campaign, {"properties": ["agility"]})
    assert RollEvent.objects.get().test_base == 1


def test_the_same_roll_sent_twice_is_rolled_and_broadcast_once(
    alice_client, albert_in_campaign, dice, broadcasts, django_capture_on_commit_callbacks
):
    dice.queue = [4, 3, 1, 1]  # the retry's dice are thrown away
    with django_capture_on_commit_callbacks(execute=True):
        first = roll(alice_client, albert_in_campaign)
        again = roll(alice_client, albert_in_campaign)  # a retry after a lost answer
    assert RollEvent.objects.count() == 1
    assert len(broadcasts.sent) == 1
    for response in (first, again):
        assert response.status_code == 200
        assert 'data-rolled="1"' in response.content.decode()
        assert 'data-testid="sheet-roll-total">8<' in response.content.decode()


def test_without_javascript_a_roll_shows_the_sheet_with_the_result(
    alice_client, albert_in_campaign, dice
):
    dice.queue = [6, 5]
    response = roll(alice_client, albert_in_campaign, htmx=False)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html
    assert 'data-rolled="1"' in html
    assert 'data-testid="sheet-roll-total">10<' in html
    # The test stays chosen for the next roll.
    assert 'value="alertness" id="id_properties_3" checked' in html
    assert key_in(html) != KEY


def test_the_gm_rolls_for_a_players_character_as_the_gm(client, gm, albert_in_campaign, dice):
    client.force_login(gm)
    dice.queue = [2, 2]
    assert roll(client, albert_in_campaign).status_code == 200
    event = RollEvent.objects.get()
    assert (event.actor, event.character) == (gm, albert_in_campaign)


BAD_ROLLS = [
    {"properties": []},
    {"properties": ["nonsense"]},
    {"properties": ["secondary_drive"]},
    {"free": "many"},
    {"free": "²"},
    {"free": "-1"},
    {"forced": "6"},
    {"threshold": "1000"},
    {"threshold": "9" * 40},
    {"threshold": "٣"},
]


@pytest.mark.parametrize("data", BAD_ROLLS)
@pytest.mark.parametrize("htmx", [True, False])
def test_bad_rolls_are_refused_with_400_and_roll_nothing(
    alice_client, albert_in_campaign, data, htmx
):
    response = roll(alice_client, albert_in_campaign, data, htmx=htmx)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'class="error" role="alert"' in html
    assert key_in(html) == KEY  # nothing was rolled: the key is kept for the corrected roll
    assert not RollEvent.objects.exists()


def test_a_roll_without_properties_says_what_to_do(alice_client, albert_in_campaign):
    response = roll(alice_client, albert_in_campaign, {"properties": []})
    assert "Välj vilka egenskaper testet gäller." in response.content.decode()


@pytest.mark.parametrize("key", ["kort", "x" * 65, "inte/en/nyckel/alls!"])
def test_a_malformed_key_is_refused_with_400(alice_client, albert_in_campaign, key):
    response = roll(alice_client, albert_in_campaign, key=key)
    assert response.status_code == 400
    assert key_in(response.content.decode()) != key
    assert not RollEvent.objects.exists()


def test_a_character_outside_a_campaign_cannot_roll(alice_client, albert):
    response = roll(alice_client, albert)
    assert response.status_code == 400
    assert not RollEvent.objects.exists()


# Who may roll


@pytest.mark.parametrize(
    ("role", "expected"),
    [("anonymous", "login"), ("outsider", 404), ("other", 403), ("owner", 200), ("gm", 200)],
)
def test_only_the_owner_and_the_gm_roll_for_a_character(
    client, outsider, bob, alice, gm, albert_in_campaign, dice, role, expected
):
    users = {"outsider": outsider, "other": bob, "owner": alice, "gm": gm}
    if role in users:
        client.force_login(users[role])
    dice.queue = [3, 3]
    response = roll(client, albert_in_campaign)
    if expected == "login":
        assert response.status_code == 302
        assert response.url.startswith(reverse("login"))
    else:
        assert response.status_code == expected
    assert RollEvent.objects.count() == (1 if expected == 200 else 0)


def test_a_get_does_not_roll(alice_client, albert_in_campaign):
    assert alice_client.get(roll_url(albert_in_campaign)).status_code == 405
    assert not RollEvent.objects.exists()


# The table's own dice on the roller (issue 48)


def test_the_roller_takes_the_players_own_dice_where_the_campaign_says_so(
        alice_client, gm, albert_in_campaign, broadcasts):
    """With the players rolling their own dice the owner's roller has the keypad, told how
    many dice the test's hand rolls; the typed faces make the roll (p. 5: 1B1T keeps the
    worse die) and it is marked typed in. The GM's roller does not (the GM's dice are the
    server's here). Too few faces: the reason and how many more, nothing rolled."""
    from campaigns.models import Campaign

    campaign = albert_in_campaign.campaign
    Campaign.objects.filter(pk=campaign.pk).update(dice_source="players")
    page = alice_client.get(sheet_url(albert_in_campaign) + "?properties=alertness"
                            ).content.decode()
    assert 'data-testid="keypad"' in page
    assert 'data-keypad-dice="2"' in page  # 1B1T: two dice
    gm_client = Client()
    gm_client.force_login(gm)
    assert 'data-testid="keypad"' not in gm_client.get(sheet_url(albert_in_campaign)
                                                       ).content.decode()
    short = roll(alice_client, albert_in_campaign, {"properties": ["alertness"], "faces": "5"})
    assert short.status_code == 400
    assert 'data-more="1"' in short.content.decode()
    assert not RollEvent.objects.filter(campaign=campaign).exists()
    answer = roll(alice_client, albert_in_campaign, {"properties": ["alertness"],
                                                     "faces": "5 2"})
    assert answer.status_code == 200
    event = RollEvent.objects.get(campaign=campaign)
    assert (event.dice, event.counted, event.typed_in) == ([5, 2], [2], True)
    assert 'data-testid="sheet-roll-typed-in"' in answer.content.decode()
    # Where the server rolls the players' dice, typed faces are refused.
    Campaign.objects.filter(pk=campaign.pk).update(dice_source="server")
    refused = roll(alice_client, albert_in_campaign, {"properties": ["alertness"],
                                                      "faces": "5 2"}, key="arket-nyckel-00002")
    assert refused.status_code == 400
    assert RollEvent.objects.filter(campaign=campaign).count() == 1
