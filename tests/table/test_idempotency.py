"""A roll posted twice with the tray's idempotency key is rolled once.

A phone that lost the answer to a roll sends it again: the second POST carries the same
key, changes nothing, sends nothing to the streams and gets the first answer.
"""

import re
import threading

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import reverse

from campaign_log import broadcast
from campaigns.models import Campaign
from core.db import idempotency
from table.models import RollEvent

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
KEY = "tarning-nyckel-0001"  # 19 URL-safe characters


class Broadcasts:
    """Stands in for the broadcaster: what would have gone to the streams."""

    def __init__(self):
        self.sent = []

    def publish(self, campaign_id, message):
        self.sent.append((campaign_id, message["seq"]))


@pytest.fixture
def broadcasts(monkeypatch):
    fake = Broadcasts()
    monkeypatch.setattr(broadcast, "get_broadcaster", lambda: fake)
    return fake


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def roll_url(campaign) -> str:
    return reverse("table:roll", args=[campaign.pk])


def key_in(html: str) -> str:
    return re.search(r'name="idempotency_key" value="([^"]*)"', html).group(1)


def test_the_same_roll_posted_twice_is_rolled_and_broadcast_once(
    alice_client, campaign, broadcasts, django_capture_on_commit_callbacks
):
    data = {"mode": "hand", "hand": "2B", "idempotency_key": KEY}
    with django_capture_on_commit_callbacks(execute=True):
        first = alice_client.post(roll_url(campaign), data, headers=HTMX)
        again = alice_client.post(roll_url(campaign), data, headers=HTMX)
    event = RollEvent.objects.get()
    assert (event.seq, event.idempotency_key) == (1, KEY)
    assert broadcasts.sent == [(campaign.pk, 1)]
    assert first.status_code == again.status_code == 200
    for response in (first, again):  # both answers name the one roll
        assert 'data-rolled="1"' in response.content.decode()
    assert Campaign.objects.get(pk=campaign.pk).event_seq == 1


def test_without_javascript_the_retry_redirects_like_the_first(alice_client, campaign, broadcasts):
    data = {"mode": "hand", "hand": "1B", "idempotency_key": KEY}
    first = alice_client.post(roll_url(campaign), data)
    again = alice_client.post(roll_url(campaign), data)
    assert first.status_code == again.status_code == 302
    assert first.url == again.url == reverse("table:page", args=[campaign.pk])
    assert RollEvent.objects.count() == 1


def test_a_success_test_retried_is_rolled_once(alice_client, campaign, albert_in_campaign):
    data = {
        "mode": "test",
        "character": albert_in_campaign.pk,
        "properties": ["alertness"],
        "idempotency_key": KEY,
    }
    for _ in range(3):
        alice_client.post(roll_url(campaign), data, headers=HTMX)
    assert RollEvent.objects.get().character == albert_in_campaign


def test_the_page_renders_a_key_and_each_roll_answers_with_a_fresh_one(alice_client, campaign):
    page = alice_client.get(reverse("table:page", args=[campaign.pk])).content.decode()
    key = key_in(page)
    assert idempotency.KEY.fullmatch(key)
    seen = {key}
    for _ in range(3):
        data = {"mode": "hand", "hand": "1B", "idempotency_key": key}
        key = key_in(alice_client.post(roll_url(campaign), data, headers=HTMX).content.decode())
        assert key not in seen
        seen.add(key)
    assert RollEvent.objects.count() == 3
    assert (
        alice_client.get(reverse("table:page", args=[campaign.pk]))
        .content.decode()
        .count('name="idempotency_key"')
        == 1
    )


def test_other_users_and_other_keys_do_not_collide(client, alice, bob, gm, campaign):
    for user, key in [(alice, KEY), (bob, KEY), (gm, KEY), (alice, KEY + "2"), (alice, None)]:
        client.force_login(user)
        data = {"mode": "hand", "hand": "1B"} | ({"idempotency_key": key} if key else {})
        client.post(roll_url(campaign), data, headers=HTMX)
    assert RollEvent.objects.count() == 5


def test_without_a_key_every_post_rolls_as_before(alice_client, campaign):
    for key in (None, ""):
        data = {"mode": "hand", "hand": "1B"} | ({} if key is None else {"idempotency_key": key})
        alice_client.post(roll_url(campaign), data, headers=HTMX)
        alice_client.post(roll_url(campaign), data, headers=HTMX)
    assert RollEvent.objects.count() == 4
    assert not RollEvent.objects.exclude(idempotency_key=None).exists()


BAD_KEYS = [
    "short",  # under 16
    "x" * 65,  # over 64
    "x" * 20 + " ",
    "x" * 20 + "/",
    "x" * 20 + "=",
    "ä" * 20,
    "٣" * 20,  # digits, but not ASCII
    "x" * 20 + "\n",
    "x" * 16 + "\x00",
    "'; DROP TABLE table_rollevent; --",
]


@pytest.mark.parametrize("key", BAD_KEYS)
@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "no-js"])
def test_a_malformed_key_is_refused_with_400_and_rolls_nothing(client, alice, campaign, key, htmx):
    english(client).force_login(alice)
    data = {"mode": "hand", "hand": "1B", "idempotency_key": key}
    response = client.post(roll_url(campaign), data, headers=HTMX if htmx else {})
    assert response.status_code == 400
    assert (
        "This form has an invalid key. Reload the page and try again." in response.content.decode()
    )
    assert not RollEvent.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_double_tap_at_the_same_moment_still_rolls_once(campaign, alice, broadcasts):
    """Six copies of one POST arrive together (a phone retrying over a bad connection)."""
    barrier = threading.Barrier(6)
    statuses: list = []

    def post():
        client = Client()
        client.force_login(alice)
        try:
            barrier.wait(timeout=10)
            data = {"mode": "hand", "hand": "1B", "idempotency_key": KEY}
            statuses.append(client.post(roll_url(campaign), data, headers=HTMX).status_code)
        except BaseException as error:  # reported by the test
            statuses.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=post) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert statuses == [200] * 6
    assert RollEvent.objects.count() == 1
    assert broadcasts.sent == [(campaign.pk, 1)]
    assert Campaign.objects.get(pk=campaign.pk).event_seq == 1
