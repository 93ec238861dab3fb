"""Favourite tests on a character's sheet: saved, loaded with one tap, deleted."""

import pytest
from django.urls import reverse

from characters.models import Character
from table.models import FavouriteTest

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def save_url(character) -> str:
    return reverse("table:favourite_save", args=[character.pk])


def delete_url(favourite) -> str:
    return reverse("table:favourite_delete", args=[favourite.character_id, favourite.pk])


def save(client, character, data=None, *, htmx=True):
    data = {"favourite_name": "Spana", "properties": ["alertness", "wilderness"]} | (data or {})
    return client.post(save_url(character), data, headers=HTMX if htmx else {})


@pytest.fixture
def spana(albert_in_campaign):
    return FavouriteTest.objects.create(
        character=albert_in_campaign, name="Spana", properties=["alertness", "wilderness"]
    )


def test_a_favourite_is_saved_with_its_test_and_listed(alice_client, albert_in_campaign):
    response = save(
        alice_client,
        albert_in_campaign,
        {
            "favourite_name": "  Skjuta  ",
            "properties": ["agility", "firearms"],
            "free": "1",
            "forced": "",
            "threshold": "9",
        },
    )
    assert response.status_code == 200
    favourite = FavouriteTest.objects.get()
    assert (favourite.character, favourite.name) == (albert_in_campaign, "Skjuta")
    assert (favourite.properties, favourite.free, favourite.forced, favourite.threshold) == (
        ["agility", "firearms"],
        1,
        0,
        9,
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="favourites"')
    assert "Skjuta" in html
    assert "RÖR + Skjutvapen" in html
    assert 'data-properties="agility firearms"' in html


def test_the_same_name_again_replaces_the_favourite(alice_client, albert_in_campaign, spana):
    save(alice_client, albert_in_campaign, {"properties": ["alertness"], "threshold": "7"})
    spana.refresh_from_db()
    assert (spana.properties, spana.threshold) == (["alertness"], 7)
    assert FavouriteTest.objects.count() == 1


def test_the_sheet_lists_favourites_as_links_that_load_the_test(
    alice_client, albert_in_campaign, spana
):
    sheet = reverse("characters:sheet", args=[albert_in_campaign.pk])
    html = alice_client.get(sheet).content.decode()
    query = "properties=alertness&properties=wilderness&free=0&forced=0&threshold="
    link = f"{sheet}?{query}".replace("&", "&amp;")
    assert f'href="{link}#roller"' in html
    # Following the link (no JavaScript) shows the test chosen and its chance (p. 5: GST 8).
    response = alice_client.get(f"{sheet}?{spana.query()}")
    assert response.context["odds"]["gst"] == 8
    assert response.context["odds"]["percent"] == pytest.approx(16 / 36 * 100)
    assert '<details class="zero-skills" open>' in response.content.decode()


def test_a_favourite_is_deleted(alice_client, spana):
    response = alice_client.post(delete_url(spana), headers=HTMX)
    assert response.status_code == 200
    assert not FavouriteTest.objects.exists()
    assert "Spana" not in response.content.decode()


def test_without_javascript_saving_and_deleting_go_back_to_the_roller(
    alice_client, albert_in_campaign
):
    response = save(alice_client, albert_in_campaign, htmx=False)
    assert response.status_code == 302
    assert response.url.endswith("#roller")
    response = alice_client.post(delete_url(FavouriteTest.objects.get()))
    assert response.status_code == 302
    assert not FavouriteTest.objects.exists()


BAD_FAVOURITES = [
    {"favourite_name": ""},
    {"favourite_name": "   "},
    {"favourite_name": "x" * 41},
    {"favourite_name": "Noll\x00"},
    {"properties": []},
    {"properties": ["nonsense"]},
    {"free": "many"},
    {"threshold": "-3"},
]


@pytest.mark.parametrize("data", BAD_FAVOURITES)
@pytest.mark.parametrize("htmx", [True, False])
def test_bad_favourites_are_refused_with_400_and_save_nothing(
    alice_client, albert_in_campaign, data, htmx
):
    response = save(alice_client, albert_in_campaign, data, htmx=htmx)
    assert response.status_code == 400
    assert 'class="error" role="alert"' in response.content.decode()
    assert not FavouriteTest.objects.exists()


def test_a_character_keeps_a_bounded_number_of_favourites(alice_client, albert_in_campaign):
    FavouriteTest.objects.bulk_create(
        FavouriteTest(character=albert_in_campaign, name=f"T{n}", properties=["physique"])
        for n in range(FavouriteTest.MAX_PER_CHARACTER)
    )
    response = save(alice_client, albert_in_campaign)
    assert response.status_code == 400
    assert FavouriteTest.objects.count() == FavouriteTest.MAX_PER_CHARACTER
    # Replacing one by its name is still allowed.
    assert save(alice_client, albert_in_campaign, {"favourite_name": "T0"}).status_code == 200


def test_another_characters_favourite_is_not_found(alice_client, alice, spana):
    other = Character.objects.create(owner=alice, name="Annan")
    url = reverse("table:favourite_delete", args=[other.pk, spana.pk])
    assert alice_client.post(url).status_code == 404
    assert FavouriteTest.objects.exists()


ROLES = [("anonymous", "login"), ("outsider", 404), ("other", 403), ("owner", 200), ("gm", 200)]


def log_in_as(client, role, users):
    if role != "anonymous":
        client.force_login(users[role])


def outcome(response):
    if response.status_code == 302 and response.url.startswith(reverse("login")):
        return "login"
    return response.status_code


@pytest.mark.parametrize(("role", "expected"), ROLES)
def test_only_the_owner_and_the_gm_save_favourites(
    client, outsider, bob, alice, gm, albert_in_campaign, role, expected
):
    log_in_as(client, role, {"outsider": outsider, "other": bob, "owner": alice, "gm": gm})
    assert outcome(save(client, albert_in_campaign)) == expected
    assert FavouriteTest.objects.count() == (1 if expected == 200 else 0)


@pytest.mark.parametrize(("role", "expected"), ROLES)
def test_only_the_owner_and_the_gm_delete_favourites(
    client, outsider, bob, alice, gm, spana, role, expected
):
    log_in_as(client, role, {"outsider": outsider, "other": bob, "owner": alice, "gm": gm})
    assert outcome(client.post(delete_url(spana), headers=HTMX)) == expected
    assert FavouriteTest.objects.exists() == (expected != 200)


def test_other_members_do_not_see_the_favourites(client, bob, spana):
    client.force_login(bob)
    html = client.get(reverse("characters:sheet", args=[spana.character_id])).content.decode()
    assert "Spana" not in html
