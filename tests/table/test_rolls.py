"""Rolling at the table: server-side dice, numbered events, secret GM rolls, history."""

import threading
from decimal import Decimal

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from campaign_log import audiences, broadcast
from campaigns.models import Campaign
from campaigns.services import campaign_create
from characters import services as advancement
from characters.models import Character, Item
from rules.aoristos import dice as hands
from rules.aoristos.success import p_success, test_hand
from table import services
from table.models import RollEvent
from tests.conftest import ALBERT_ATTRIBUTES

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
    assert audiences.visible(message, is_gm=True) == message
    assert audiences.visible(message, is_gm=False) == {
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
    for bad in ("x", "²", "9" * 40):
        response = alice_client.get(reverse("table:history", args=[campaign.pk]), {"before": bad})
        assert response.status_code == 400


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


# --- a roll in a few queries ---------------------------------------------------------------

HTMX = {"HX-Request": "true"}


def roll_data(mode: str, character) -> dict:
    if mode == "hand":
        return {"mode": "hand", "hand": "2B1T+1", "purpose": "test"}
    return {
        "mode": "test",
        "character": character.pk,
        "properties": ["alertness", "wilderness"],
        "free": "1",
        "forced": "0",
        "threshold": "",
    }


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "no-js"])
@pytest.mark.parametrize("mode", ["hand", "test"])
def test_a_roll_takes_at_most_four_queries(alice_client, campaign, albert_in_campaign, mode, htmx):
    """The whole POST: session, user + campaign + membership, the character (a test only)
    with what its levels need, and the one INSERT that numbers and stores the roll."""
    url = reverse("table:roll", args=[campaign.pk])
    headers = {"HX-Request": "true"} if htmx else {}
    data = roll_data(mode, albert_in_campaign) | {"idempotency_key": "k" * 24}
    with CaptureQueriesContext(connection) as queries:
        response = alice_client.post(url, data, headers=headers)
    listing = "\n".join(f"{n}. {q['sql']}" for n, q in enumerate(queries.captured_queries, 1))
    assert len(queries) <= 4, f"{len(queries)} queries:\n{listing}"
    assert response.status_code == (200 if htmx else 302)
    event = RollEvent.objects.get()
    assert event.seq == 1
    assert event.character == (albert_in_campaign if mode == "test" else None)
    if htmx:  # the answer stays tiny: the tray's message region with a fresh key
        assert len(response.content) < 400, response.content


def test_a_player_rolls_tests_only_for_their_own_characters_in_the_campaign(
    client, alice, bob, gm, campaign, albert_in_campaign, make_user, dice
):
    url = reverse("table:roll", args=[campaign.pk])
    berit = Character.objects.create(owner=bob, campaign=campaign, name="Berit")
    outside = Character.objects.create(owner=alice, name="Utanför")  # in no campaign
    elsewhere = Character.objects.create(
        owner=gm, campaign=campaign_create(gm=gm, name="Annan"), name="Annanstans"
    )
    test = {"mode": "test", "properties": ["alertness"]}
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    client.force_login(alice)
    for character in (berit, outside, elsewhere):
        response = client.post(url, test | {"character": character.pk}, headers=HTMX)
        assert "Choose a character to test." in response.content.decode(), character
    assert not RollEvent.objects.exists()
    dice.queue = [3, 3, 3, 3]
    client.post(url, test | {"character": albert_in_campaign.pk}, headers=HTMX)
    client.force_login(gm)  # the GM rolls for any character in the campaign, not elsewhere
    client.post(url, test | {"character": berit.pk}, headers=HTMX)
    response = client.post(url, test | {"character": elsewhere.pk}, headers=HTMX)
    assert "Choose a character to test." in response.content.decode()
    assert [e.character for e in RollEvent.objects.order_by("seq")] == [albert_in_campaign, berit]


def test_a_bare_hand_neither_needs_nor_checks_a_character(alice_client, campaign, bob, dice):
    berit = Character.objects.create(owner=bob, campaign=campaign, name="Berit")
    url = reverse("table:roll", args=[campaign.pk])
    dice.queue = [4, 5]
    for character in ("", "inte-ett-id", berit.pk):
        dice.queue = [4]
        data = {"mode": "hand", "hand": "1B", "character": character}
        assert alice_client.post(url, data).status_code == 302
    assert list(RollEvent.objects.values_list("character", flat=True)) == [None] * 3


def test_a_test_counts_raised_levels_and_the_load(alice_client, campaign, albert_in_campaign, dice):
    """SIN raised 5 → 6 (a later raise undone) is tested at 6; FP over Bärförmåga lowers
    RÖR (p. 5). The one-query character gives what the model's own queries give."""
    albert = albert_in_campaign
    Campaign.objects.filter(pk=campaign.pk).update(level_cap=6)
    advancement.dp_award(character=albert, amount=40, reason="test", by=None)
    advancement.dp_spend(character=albert, key="alertness", by=None)
    advancement.dp_spend(character=albert, key="wilderness", by=None)
    advancement.dp_undo_last_spend(character=albert, by=None)
    capacity = albert.secondary().carrying_capacity  # FYS 3: 12
    Item.objects.create(character=albert, name="Sand", bulk=Decimal("0.1"), quantity=capacity * 10)
    annotated = Character.objects.with_levels().get(pk=albert.pk)
    assert annotated.levels() == albert.levels()
    assert annotated.load() == albert.load()
    assert albert.load()["penalty"] == 0  # exactly Bärförmåga: no penalty yet
    Item.objects.create(character=albert, name="Rep", bulk=Decimal("1.5"), quantity=1)
    annotated = Character.objects.with_levels().get(pk=albert.pk)
    assert annotated.load() == albert.load()
    assert albert.load()["penalty"] == 1
    url = reverse("table:roll", args=[campaign.pk])
    for keys in (["alertness"], ["agility"]):
        dice.queue = [1, 1]
        data = {"mode": "test", "character": albert.pk, "properties": keys}
        alice_client.post(url, data)
    tests = list(RollEvent.objects.order_by("seq").values_list("label", "test_base"))
    assert tests == [("SIN", 6), ("RÖR", 1)]


def test_next_seq_and_rolls_share_one_counter(campaign, gm, dice):
    """Other kinds of events take their number with next_seq, in one statement."""
    with CaptureQueriesContext(connection) as queries:
        first = services.next_seq(campaign.pk)
    assert len(queries) == 1
    dice.queue = [2]
    rolled = services.roll_record(campaign=campaign, actor=gm, hand=hands.parse_hand("1B"))
    assert (first, rolled.seq, services.next_seq(campaign.pk)) == (1, 2, 3)
    dice.queue = [2]
    assert services.roll_record(campaign=campaign, actor=gm, hand=hands.parse_hand("1B")).seq == 4
    with pytest.raises(Campaign.DoesNotExist):
        services.next_seq(999999)


@pytest.mark.django_db(transaction=True)
def test_rolls_posted_at_the_same_moment_get_consecutive_numbers(campaign, alice, bob, gm):
    """Twelve phones roll three times each at once: 36 rolls numbered 1..36, each once."""
    users = [alice, bob, gm] * 4
    barrier = threading.Barrier(len(users))
    statuses: list = []

    def run(user):
        client = Client()
        client.force_login(user)
        try:
            barrier.wait(timeout=10)
            for _ in range(3):
                response = client.post(
                    reverse("table:roll", args=[campaign.pk]),
                    {"mode": "hand", "hand": "1B"},
                    headers=HTMX,
                )
                statuses.append(response.status_code)
        except BaseException as error:  # reported by the test
            statuses.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(user,)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert statuses == [200] * 36
    seqs = sorted(RollEvent.objects.filter(campaign=campaign).values_list("seq", flat=True))
    assert seqs == list(range(1, 37))
    assert Campaign.objects.get(pk=campaign.pk).event_seq == 36


@pytest.mark.django_db(transaction=True)
def test_a_roll_outside_any_test_transaction_takes_four_queries_too(
    client, alice, campaign, albert_in_campaign
):
    """No BEGIN or COMMIT around the one INSERT: it is its own transaction."""
    client.force_login(alice)
    url = reverse("table:roll", args=[campaign.pk])
    with CaptureQueriesContext(connection) as queries:
        client.post(url, roll_data("test", albert_in_campaign), headers=HTMX)
    listing = "\n".join(f"{n}. {q['sql']}" for n, q in enumerate(queries.captured_queries, 1))
    assert len(queries) <= 4, f"{len(queries)} queries:\n{listing}"
    assert RollEvent.objects.get().seq == 1


# --- the one-query membership check keeps Django's session checks ---------------------------


def test_a_session_from_before_a_password_change_is_sent_to_log_in(client, alice, campaign):
    client.force_login(alice)
    alice.set_password("ett-helt-nytt-lösenord")
    alice.save()
    response = client.post(
        reverse("table:roll", args=[campaign.pk]), {"mode": "hand", "hand": "1B"}
    )
    assert response.status_code == 302
    assert "/accounts/login/" in response.url
    assert not RollEvent.objects.exists()
    assert not client.session.get("_auth_user_id")  # flushed, as django.contrib.auth does


def test_a_deactivated_member_is_sent_to_log_in(client, alice, campaign):
    client.force_login(alice)
    alice.is_active = False
    alice.save()
    for method, name in (("post", "table:roll"), ("get", "table:page"), ("get", "table:odds")):
        response = getattr(client, method)(reverse(name, args=[campaign.pk]), {"mode": "hand"})
        assert response.status_code == 302, name
        assert "/accounts/login/" in response.url
    assert not RollEvent.objects.exists()


def test_a_session_signed_with_a_fallback_secret_key_still_rolls(client, alice, campaign, settings):
    """After SECRET_KEY is rotated, sessions verified by SECRET_KEY_FALLBACKS stay logged
    in (Django renews their hash): the one-query path hands those to Django's own check."""
    client.force_login(alice)
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a-new-secret-key-for-this-test-only-0123456789"
    response = client.post(
        reverse("table:roll", args=[campaign.pk]), {"mode": "hand", "hand": "1B"}
    )
    assert response.status_code == 302
    assert response.url == reverse("table:page", args=[campaign.pk])
    assert RollEvent.objects.get().actor == alice


# --- the table page and the history ---------------------------------------------------------


def test_an_empty_log_says_so_until_the_first_roll(alice_client, campaign, dice):
    """The log is never a blank card; the note hides (CSS) once a roll is in the list."""
    alice_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "sv"
    page = alice_client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    assert 'data-testid="log-empty"' in page
    assert "Inga slag än." in page
    css = (settings.BASE_DIR / "static" / "css" / "site.css").read_text()
    assert ".log:has(.roll-log > li) .log-empty { display: none; }" in css


def test_the_history_page_has_a_title(alice_client, campaign):
    alice_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "sv"
    page = alice_client.get(reverse("table:history", args=[campaign.pk])).content.decode()
    title = page.split("<title>", 1)[1].split("</title>", 1)[0]
    assert campaign.name in title
    assert title != "Aoristos Table"


def test_the_gm_rolls_a_hand_whatever_the_tray_says_of_characters(
    client, gm, campaign, alice, albert_in_campaign, dice
):
    """A bare hand needs no character: a tray still naming the character of a player who
    has left (or any character) does not stop the GM's hand roll."""
    from campaigns.services import member_remove

    member_remove(campaign=campaign, membership=campaign.memberships.get(user=alice))
    client.force_login(gm)
    dice.queue = [5]
    response = client.post(
        reverse("table:roll", args=[campaign.pk]),
        {"mode": "hand", "hand": "1B", "purpose": "test", "character": albert_in_campaign.pk},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert b'class="error"' not in response.content
    assert RollEvent.objects.get().dice == [5]


# --- a wrong dice hand, said in the page's language ------------------------------------------


@pytest.mark.parametrize(
    ("hand", "swedish", "english"),
    [
        ("2X", "”2X” är ingen tärningshand", "“2X” is not a dice hand"),
        ("2B1F1F", "”2B1F1F” har F två gånger", "“2B1F1F” has F twice"),
        ("100B", "”100B” har för många tärningar", "“100B” has too many dice"),
        ("1B+1000", "Modifikationen i ”1B+1000” är för stor: högst ±999", "at most ±999"),
        # The form's own length check speaks first (Django's translated message).
        ("1B" + "1" * 40, "som mest 40 tecken", "at most 40 characters"),
    ],
)
@pytest.mark.parametrize("language", ["sv", "en"])
def test_a_wrong_hand_is_explained_in_the_trays_language_and_in_the_chance_box(
    alice_client, campaign, hand, swedish, english, language
):
    """The rules core says what is wrong in English (the API shows that); the tray and the
    chance box say it in the interface's language, and nothing is rolled."""
    alice_client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    expected = swedish if language == "sv" else english
    fields = {"mode": "hand", "hand": hand, "purpose": "test"}
    answer = alice_client.post(
        reverse("table:roll", args=[campaign.pk]), fields, HTTP_HX_REQUEST="true"
    )
    assert expected in answer.content.decode()
    odds = alice_client.get(reverse("table:odds", args=[campaign.pk]), fields)
    box = odds.content.decode()
    assert 'data-testid="odds-error"' in box
    assert expected in box
    assert not RollEvent.objects.exists()


def test_the_api_keeps_the_rules_cores_english_message(client):
    response = client.post("/api/v1/aoristos/roll", {"hand": "2X"}, content_type="application/json")
    assert response.status_code == 400
    assert "unrecognised dice hand" in response.json()["error"]


# --- an empty TB and a constant in the TB (p. 14, p. 15) -------------------------------------


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


def empty_tb(language: str) -> str:
    with translation.override(language):
        return translation.gettext("empty TB")


@pytest.mark.parametrize("language", ["sv", "en"])
def test_a_test_of_nothing_rolls_an_empty_tb_against_gst_4(
    alice_client,
    campaign,
    albert_in_campaign,
    dice,
    broadcasts,
    language,
    django_capture_on_commit_callbacks,
):
    """p. 14: the weekly healing test is a test of nothing, TB 0 and GST 4 (p. 5: GST
    4 + 2 per property); the ST defaults to the GST. It still needs a character, who
    rolls; it shows at the table and in the history as "tomt TB" ("empty TB")."""
    alice_client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    url = reverse("table:roll", args=[campaign.pk])
    data = {"mode": "test", "character": albert_in_campaign.pk, "threshold": "", "empty": "on"}
    odds = alice_client.get(reverse("table:odds", args=[campaign.pk]), data).context["odds"]
    assert (odds["test_base"], odds["gst"], odds["threshold"]) == (0, 4, 4)
    assert odds["percent"] == pytest.approx(100 * float(p_success(test_hand(), 0, 4)))
    assert odds["label"] == empty_tb(language)
    dice.queue = [5, 3]
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(url, data, headers=HTMX)
    assert b'class="error"' not in response.content
    event = RollEvent.objects.get()
    assert (event.kind, event.character, event.label) == (
        "test",
        albert_in_campaign,
        empty_tb(language),
    )
    assert (event.test_base, event.threshold, event.total, event.success) == (0, 4, 3, False)
    [(campaign_id, message)] = broadcasts.sent
    assert campaign_id == campaign.pk
    assert (message["label"], message["test_base"], message["threshold"]) == (
        empty_tb(language),
        0,
        4,
    )
    history = alice_client.get(reverse("table:history", args=[campaign.pk])).content.decode()
    assert empty_tb(language) in history.split('id="roll-1"')[1].split("</li>")[0]
    # Nothing ticked is a slip, not a test of nothing: the empty TB is said on purpose.
    slip = alice_client.post(url, data | {"empty": ""}, headers=HTMX).content.decode()
    assert 'class="error"' in slip
    assert RollEvent.objects.count() == 1
    # Without a character there is no one to roll: refused, nothing stored.
    response = alice_client.post(url, {"mode": "test"}, headers=HTMX)
    assert 'class="error"' in response.content.decode()
    assert RollEvent.objects.count() == 1


def test_the_psychosis_test_is_vil_plus_20_against_the_psyktrauma_sum(
    alice_client, campaign, albert_in_campaign, dice, broadcasts, django_capture_on_commit_callbacks
):
    """p. 15: the psychosis test is Viljestyrka + 20 against ST = the psyktrauma sum (the GM
    sets it, here 25). The constant adds to the TB but is no property: GST 4 + 2 = 6 (p. 5).
    The chance shown before rolling is that of TB VIL + 20 against ST 25."""
    url = reverse("table:roll", args=[campaign.pk])
    vil = ALBERT_ATTRIBUTES["willpower"]
    data = {
        "mode": "test",
        "character": albert_in_campaign.pk,
        "properties": ["willpower"],
        "constant": "20",
        "threshold": "25",
    }
    response = alice_client.get(reverse("table:odds", args=[campaign.pk]), data)
    odds = response.context["odds"]
    assert (odds["test_base"], odds["gst"], odds["threshold"]) == (vil + 20, 6, 25)
    assert odds["label"] == "VIL + 20"
    assert odds["percent"] == pytest.approx(100 * float(p_success(test_hand(), vil + 20, 25)))
    assert 'data-testid="odds-label">VIL + 20<' in response.content.decode()
    dice.queue = [1, 1]
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(url, data, headers=HTMX)
    event = RollEvent.objects.get()
    assert (event.label, event.test_base, event.threshold) == ("VIL + 20", vil + 20, 25)
    assert (event.total, event.success) == (vil + 21, False)
    assert broadcasts.sent[0][1]["label"] == "VIL + 20"


@pytest.mark.parametrize(
    ("keys", "constant", "label"),
    [
        (["willpower"], "-2", "VIL \N{MINUS SIGN} 2"),
        (["willpower"], "\N{MINUS SIGN}2", "VIL \N{MINUS SIGN} 2"),  # as the rule book writes it
        (["alertness", "wilderness"], "0", "SIN + Vildmark"),
        (["alertness", "wilderness"], "", "SIN + Vildmark"),
        ([], "20", "empty TB + 20"),
        ([], "-3", "empty TB \N{MINUS SIGN} 3"),
    ],
)
def test_a_constant_is_named_with_its_sign_after_the_properties(
    alice_client, campaign, albert_in_campaign, keys, constant, label
):
    """p. 5 and p. 15: the constant follows the properties in the test's name, a negative
    one with a real minus sign; with no property it follows "empty TB" (TB 0, GST 4, p. 14)."""
    alice_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    data = {"mode": "test", "character": albert_in_campaign.pk, "properties": keys,
            "empty": "on" if not keys else ""}
    odds = alice_client.get(
        reverse("table:odds", args=[campaign.pk]), data | {"constant": constant}
    )
    assert odds.context["odds"]["label"] == label
    levels = sum(albert_in_campaign.test_levels()[key] for key in keys)
    number = int(constant.replace("\N{MINUS SIGN}", "-") or 0)
    assert odds.context["odds"]["test_base"] == levels + number
    assert odds.context["odds"]["gst"] == 4 + 2 * len(keys)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("tjugo", "“tjugo” is not a whole number"),
        ("1000", "“1000” is too large: the constant in the TB is at most ±99."),
        ("-100", "“-100” is too large"),
        ("2.5", "“2.5” is not a whole number"),
    ],
)
def test_a_bad_constant_is_refused_with_what_was_typed(
    alice_client, campaign, albert_in_campaign, typed, message
):
    """p. 15: a constant in the TB is a whole number (here at most ±99). A wrong one is
    said in the tray and in the chance box, quoting what was typed, and nothing is rolled."""
    alice_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    data = {
        "mode": "test",
        "character": albert_in_campaign.pk,
        "properties": ["willpower"],
        "constant": typed,
    }
    response = alice_client.post(reverse("table:roll", args=[campaign.pk]), data, headers=HTMX)
    assert response.status_code == 200
    assert message in response.content.decode()
    form = response.context["form"]
    assert list(form.errors) == ["constant"]
    assert form.data["constant"] == typed  # the bound form keeps what was typed
    odds = alice_client.get(reverse("table:odds", args=[campaign.pk]), data)
    assert 'data-testid="odds-error"' in odds.content.decode()
    assert message in odds.content.decode()
    assert odds.context["odds"] is None
    # Without JavaScript the page says it too (the tray starts afresh, as for any error).
    response = alice_client.post(reverse("table:roll", args=[campaign.pk]), data, follow=True)
    assert message in response.content.decode()
    assert not RollEvent.objects.exists()


def test_the_api_takes_an_empty_tb_or_a_constant_as_the_tb_itself(client):
    """The JSON API's chance takes the TB as a number, not properties: an empty TB is tb=0
    against GST 4 (p. 14), VIL + 20 is tb = VIL + 20 against the psyktrauma sum (p. 15)."""
    response = client.get("/api/v1/aoristos/odds", {"hand": "1B1T", "tb": "0", "st": "4"})
    assert response.status_code == 200
    assert response.json()["p_success"] == pytest.approx(float(p_success(test_hand(), 0, 4)))
    response = client.get("/api/v1/aoristos/odds", {"hand": "1B1T", "tb": "23", "st": "25"})
    assert response.json()["p_success"] == pytest.approx(float(p_success(test_hand(), 23, 25)))


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ({"hand": "1B1T", "tb": "VIL+20", "st": "25"}, "tb must be an integer"),
        ({"hand": "1B1T", "tb": "", "st": "4"}, "tb must be an integer"),
        ({"hand": "1B1T", "st": "4"}, "missing query parameter 'tb'"),
        ({"hand": "1B1T", "tb": "0", "st": "4", "constant": "20"}, "unknown key 'constant'"),
        ({"hand": "1B1T", "tb": "99999", "st": "4"}, "tb must be between"),
    ],
)
def test_the_api_answers_a_tb_it_cannot_read_with_400(client, query, error):
    """p. 15: "VIL + 20" is the table's name for a TB, not a TB the API reads; a bad TB is
    400 {"error": ...}, never 500."""
    response = client.get("/api/v1/aoristos/odds", query)
    assert response.status_code == 400
    assert error in response.json()["error"]


def test_tray_shows_levels_beside_properties_and_the_chance_above_them(
    client, gm, bob, alice, campaign, albert_in_campaign
):
    """Issue 26: the chance sat below 26 checkboxes without levels. Each property shows
    the chosen character's level (RÖR under load), the odds box comes before the list,
    and choosing another character brings its levels (out of band with the odds)."""
    berit = Character.objects.create(
        owner=bob, campaign=campaign, name="Berit",
        attributes=ALBERT_ATTRIBUTES | {"alertness": 2}, skills={"wilderness": 4},
    )
    client.force_login(gm)
    page = client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    # Albert comes first in the list, so his levels are shown.
    assert 'data-testid="level-alertness">5</span>' in page
    assert 'data-testid="level-wilderness">0</span>' in page
    assert page.index('id="odds"') < page.index('name="properties"')
    url = reverse("table:odds", args=[campaign.pk])
    answer = client.get(url, {"mode": "test", "character": berit.pk}).content.decode()
    assert ('<span class="level" id="level-alertness" data-testid="level-alertness" '
            'hx-swap-oob="true">2</span>') in answer
    assert 'id="level-wilderness" data-testid="level-wilderness" hx-swap-oob="true">4<' in answer
    # A player sees no levels of a character they cannot roll for.
    client.force_login(alice)
    answer = client.get(url, {"mode": "test", "character": berit.pk}).content.decode()
    assert 'hx-swap-oob="true">4<' not in answer
    assert 'id="level-wilderness" data-testid="level-wilderness" hx-swap-oob="true"><' in answer


@pytest.mark.parametrize(
    ("typed", "hand", "mean", "rolled"),
    [("2T6", "2B", 7.0, [3, 4]), ("2d6+1", "2B+1", 8.0, [3, 4]), ("1t6 − 1", "1B-1", 2.5, [3])],
)
def test_a_plain_roll_of_six_sided_dice_is_the_hand_of_base_dice(
    alice_client, campaign, dice, typed, hand, mean, rolled
):
    """Issue 26: "2T6" was refused. Aoristos rolls only six-sided dice and a hand of base
    dice alone sums them (p. 4), so nT6 is rolled as nB: its odds first, then the roll."""
    alice_client.cookies["django_language"] = "en"
    odds = alice_client.get(reverse("table:odds", args=[campaign.pk]),
                            {"mode": "hand", "hand": typed}).context["odds"]
    assert (odds["hand"], odds["mean"]) == (hand, pytest.approx(mean))
    dice.queue = list(rolled)
    response = alice_client.post(reverse("table:roll", args=[campaign.pk]),
                                 {"mode": "hand", "hand": typed})
    assert response.status_code == 302
    event = RollEvent.objects.get()
    assert (event.hand, event.dice) == (hand, rolled)


def test_too_many_plain_dice_quote_what_was_typed(alice_client, campaign):
    alice_client.cookies["django_language"] = "en"
    response = alice_client.post(reverse("table:roll", args=[campaign.pk]),
                                 {"mode": "hand", "hand": "7T6"}, headers={"HX-Request": "true"})
    assert "“7T6” has too many dice: a hand rolls at most 6." in response.content.decode()
    assert not RollEvent.objects.exists()
