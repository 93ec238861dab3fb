"""A UP spend, undo or award posted twice with its form's idempotency key happens once.

A phone that lost the answer sends the POST again. The repeat carries the same key: it
changes nothing and is answered as the first was, even when the first one's change would
now make it a refusal (the UP are already spent, the spend already undone).

Figures from the rules (p. 3, 17): Albert (p. 2) is a 33 UP build with 0 saved; SIN 5 → 6
costs 15 UP; a skill's next level costs its current level.
"""

import re
import threading

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters import services
from characters.models import Character, DpEntry
from tests.conftest import ALBERT_ATTRIBUTES

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
KEY = "up-nyckel-0000000001"


def english_client(user) -> Client:
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    client.force_login(user)
    return client


@pytest.fixture
def gunnar(make_user):
    return make_user("gunnar")


@pytest.fixture
def campaign(gunnar, alice, bob):
    campaign = Campaign.objects.create(name="Nordanvind", gm=gunnar, level_cap=6)
    Membership.objects.create(campaign=campaign, user=gunnar, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=alice, seat=1)
    Membership.objects.create(campaign=campaign, user=bob, seat=2)
    return campaign


@pytest.fixture
def albert(alice, campaign):
    return Character.objects.create(
        owner=alice, campaign=campaign, name="Albert", attributes=ALBERT_ATTRIBUTES
    )


@pytest.fixture
def berit(bob, campaign):
    return Character.objects.create(owner=bob, campaign=campaign, name="Berit")


@pytest.fixture
def owner(alice):
    return english_client(alice)


@pytest.fixture
def gm(gunnar):
    return english_client(gunnar)


def url(name, obj) -> str:
    return reverse(name, args=[obj.pk])


def give(character, amount):
    services.dp_award(character=character, amount=amount, reason="test", by=None)


def keys_in(html: str) -> list[str]:
    return re.findall(r'name="idempotency_key" value="([^"]*)"', html)


# --- spends and undos ----------------------------------------------------------------------


def test_a_spend_posted_twice_spends_once_and_answers_twice_alike(owner, albert):
    """15 UP saved, enough for SIN 5 → 6 once: the repeat is answered as the first, not
    refused for want of UP."""
    give(albert, 15)
    data = {"key": "alertness", "idempotency_key": KEY}
    first = owner.post(url("characters:spend", albert), data, headers=HTMX)
    again = owner.post(url("characters:spend", albert), data, headers=HTMX)
    assert first.status_code == again.status_code == 200
    for response in (first, again):
        assert "Sinnesnärvaro raised to 6 for 15 UP." in response.content.decode()
    assert albert.ledger.filter(kind="spend").count() == 1
    assert (albert.levels()["alertness"], albert.saved_dp()) == (6, 0)


def test_a_repeated_spend_that_could_be_paid_again_still_happens_once(owner, albert):
    """Enough UP for two raises: the repeat meets the key's constraint, not a refusal."""
    give(albert, 100)
    data = {"key": "wilderness", "idempotency_key": KEY}
    for _ in range(3):
        response = owner.post(url("characters:spend", albert), data)
        assert response.status_code == 302
    entry = albert.ledger.get(kind="spend")
    assert (entry.key, entry.level_after, entry.idempotency_key) == ("wilderness", 1, KEY)
    assert albert.levels()["wilderness"] == 1
    assert albert.saved_dp() == 100


def test_an_undo_posted_twice_undoes_once(owner, albert):
    give(albert, 100)
    services.dp_spend(character=albert, key="wilderness", by=None)
    services.dp_spend(character=albert, key="wilderness", by=None)  # 1 → 2 for 1 UP
    data = {"idempotency_key": KEY}
    first = owner.post(url("characters:undo", albert), data, headers=HTMX)
    again = owner.post(url("characters:undo", albert), data, headers=HTMX)
    assert first.status_code == again.status_code == 200
    for response in (first, again):
        assert "Undone: Vildmark is back at 1; 1 UP returned." in response.content.decode()
    assert albert.ledger.filter(kind="undo").count() == 1
    assert albert.levels()["wilderness"] == 1


def test_without_a_key_a_repeated_spend_spends_again_as_before(owner, albert):
    give(albert, 100)
    for data in ({"key": "wilderness"}, {"key": "wilderness", "idempotency_key": ""}):
        owner.post(url("characters:spend", albert), data)
    assert albert.levels()["wilderness"] == 2


def test_players_with_the_same_key_do_not_collide(alice, bob, albert, berit):
    give(albert, 10)
    give(berit, 10)
    for user, character in ((alice, albert), (bob, berit)):
        english_client(user).post(
            url("characters:spend", character), {"key": "wilderness", "idempotency_key": KEY}
        )
    assert albert.levels()["wilderness"] == berit.levels()["wilderness"] == 1


def test_the_gm_and_the_owner_with_the_same_key_do_not_collide(owner, gm, albert):
    gm.post(
        url("characters:award", albert),
        {"method": "free", "amount": 5, "reason": "Bra", "idempotency_key": KEY},
    )
    owner.post(url("characters:spend", albert), {"key": "wilderness", "idempotency_key": KEY})
    kinds = sorted(albert.ledger.values_list("kind", flat=True))
    assert kinds == ["award", "spend"]


def test_a_key_already_used_for_another_change_is_refused(owner, albert):
    """A spend's key posted to the undo (a form changed by hand): refused, not mixed up."""
    give(albert, 10)
    owner.post(url("characters:spend", albert), {"key": "wilderness", "idempotency_key": KEY})
    response = owner.post(url("characters:undo", albert), {"idempotency_key": KEY}, headers=HTMX)
    assert response.status_code == 400
    assert "This form was already used for another change." in response.content.decode()
    assert not albert.ledger.filter(kind="undo").exists()


def test_the_page_gives_every_form_its_own_key_and_a_fresh_set_after_a_spend(owner, albert):
    give(albert, 100)
    page = owner.get(url("characters:advancement", albert)).content.decode()
    keys = keys_in(page)
    assert len(keys) == len(set(keys)) > 20  # one per raise button, the undo, the award
    response = owner.post(
        url("characters:spend", albert),
        {"key": "wilderness", "idempotency_key": keys[0]},
        headers=HTMX,
    )
    fresh = keys_in(response.content.decode())
    assert fresh
    assert not set(fresh) & set(keys)


BAD_KEYS = ["short", "x" * 65, "x" * 20 + "!", "å" * 20, "x" * 20 + "\n"]


@pytest.mark.parametrize("key", BAD_KEYS)
def test_a_malformed_key_is_refused_with_400_and_changes_nothing(owner, gm, albert, campaign, key):
    give(albert, 100)
    services.dp_spend(character=albert, key="wilderness", by=None)
    before = list(DpEntry.objects.values_list("pk", flat=True))
    message = "This form has an invalid key. Reload the page and try again."
    posts = [
        (owner, url("characters:spend", albert), {"key": "firearms"}),
        (owner, url("characters:undo", albert), {}),
        (gm, url("characters:award", albert), {"method": "free", "amount": 3, "reason": "R"}),
        (
            gm,
            url("campaigns:awards", campaign),
            {"target": "all", "method": "free", "amount": 3, "reason": "R"},
        ),
    ]
    for client, address, data in posts:
        for headers in (HTMX, {}):
            response = client.post(address, data | {"idempotency_key": key}, headers=headers)
            assert response.status_code == 400, address
            assert message in response.content.decode(), address
    assert list(DpEntry.objects.values_list("pk", flat=True)) == before


# --- awards --------------------------------------------------------------------------------


def test_an_award_to_one_character_posted_twice_happens_once(gm, albert):
    data = {"method": "free", "amount": 20, "reason": "Räddade prinsessan", "idempotency_key": KEY}
    first = gm.post(url("characters:award", albert), data)
    again = gm.post(url("characters:award", albert), data)
    assert first.status_code == again.status_code == 302
    assert first.url == again.url
    assert albert.ledger.get().amount == 20
    assert albert.saved_dp() == 20
    page = gm.get(first.url).content.decode()
    assert page.count("20 UP were awarded to Albert.") == 2  # each answer says it


def test_a_group_award_retried_happens_once(gm, campaign, albert, berit, make_user):
    """Even when a character joined between the two POSTs: the repeat adds nothing."""
    data = {
        "target": "all",
        "method": "travel",
        "travel_months": 3,
        "reason": "",
        "idempotency_key": KEY,
    }
    first = gm.post(url("campaigns:awards", campaign), data)
    Character.objects.create(owner=make_user("nykomling"), campaign=campaign, name="Ny")
    again = gm.post(url("campaigns:awards", campaign), data)
    assert first.status_code == again.status_code == 302
    assert sorted(DpEntry.objects.values_list("character__name", "amount")) == [
        ("Albert", 3),
        ("Berit", 3),
    ]
    page = gm.get(first.url).content.decode()
    assert page.count("3 UP were awarded to each of 2 characters.") == 2


def test_the_awards_page_renders_a_key_and_a_new_one_after_each_award(gm, campaign, albert):
    key = keys_in(gm.get(url("campaigns:awards", campaign)).content.decode())[0]
    data = {
        "target": str(albert.pk),
        "method": "free",
        "amount": 2,
        "reason": "R",
        "idempotency_key": key,
    }
    response = gm.post(url("campaigns:awards", campaign), data, follow=True)
    assert keys_in(response.content.decode())[0] != key
    assert albert.saved_dp() == 2


# --- at the same moment --------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_spend_sent_four_times_at_once_spends_once(alice, campaign, albert):
    give(albert, 100)
    barrier = threading.Barrier(4)
    statuses: list = []

    def post():
        client = english_client(alice)
        try:
            barrier.wait(timeout=10)
            data = {"key": "physique", "idempotency_key": KEY}
            statuses.append(client.post(url("characters:spend", albert), data).status_code)
        except BaseException as error:  # reported by the test
            statuses.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=post) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert statuses == [302] * 4
    assert albert.ledger.filter(kind="spend").count() == 1
    assert (albert.levels()["physique"], albert.saved_dp()) == (4, 94)
