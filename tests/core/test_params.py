"""Strict integers from requests (core/params.py), <id:...> paths, the 400 page, NUL text."""

import json

import pytest
from django.urls import reverse
from django.utils import translation

from characters.models import Character
from core.params import MAX_ID, ParamError, saved_text, strict_id, strict_int


def swedish(msgid: str) -> str:
    """The Swedish text (the catalogue's, once the lead merged it; else the msgid)."""
    with translation.override("sv"):
        return translation.gettext(msgid)


# --- the parser ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "number"),
    [("0", 0), ("7", 7), ("007", 7), ("123456789012345678", 123456789012345678)],
)
def test_strict_int_reads_ascii_digits(text, number):
    assert strict_int(text, name="n") == number


@pytest.mark.parametrize(
    "text",
    [
        "²",
        "٣",
        "١٢",
        "７",
        "-1",
        "+1",
        " 1",
        "1 ",
        "1e5",
        "1.0",
        "0x10",
        "1_000",
        "\x00",
        "1\x00",
        "abc",
        "9" * 19,
        "9" * 40,
    ],
)
def test_strict_int_refuses_anything_else(text):
    with pytest.raises(ParamError):
        strict_int(text, name="n")


@pytest.mark.parametrize("text", [None, ""])
def test_strict_int_gives_the_default_when_missing(text):
    assert strict_int(text, name="n") is None
    assert strict_int(text, name="n", default=3) == 3


def test_strict_int_bounds_and_negatives():
    assert strict_int("-5", name="n", min_value=-10) == -5
    assert strict_int("--5".removeprefix("-"), name="n", min_value=-10) == -5
    with pytest.raises(ParamError):
        strict_int("--5", name="n", min_value=-10)
    with translation.override("en"), pytest.raises(ParamError, match="between 0 and 10"):
        strict_int("11", name="n", max_value=10)
    with translation.override("sv"), pytest.raises(ParamError, match="mellan 0 och 10"):
        strict_int("11", name="n", max_value=10)
    with pytest.raises(ParamError):
        strict_id("0", name="id")
    assert strict_id(str(MAX_ID), name="id") == MAX_ID
    assert MAX_ID < 2**63 - 1


def test_saved_text_drops_nul_and_cuts():
    assert saved_text("a\x00b\x00", max_length=10) == "ab"
    assert saved_text("abcdef", max_length=3) == "abc"
    assert saved_text(None, max_length=3) == ""


# --- views that read integers ---------------------------------------------------------------

ODD_INTEGERS = ["²", "٣", "-1", "1e5", "9" * 40, "\x00", "x"]


@pytest.mark.django_db
@pytest.mark.parametrize("value", ODD_INTEGERS)
def test_history_before_that_is_not_a_number_is_400(client, campaign, alice, value):
    client.force_login(alice)
    response = client.get(reverse("table:history", args=[campaign.pk]), {"before": value})
    assert response.status_code == 400
    page = response.content.decode()
    assert swedish("Bad request") in page
    assert swedish("%(name)s must be a whole number.") % {"name": "before"} in page


@pytest.mark.django_db
@pytest.mark.parametrize("value", ODD_INTEGERS)
def test_new_character_with_an_odd_campaign_is_400(client, campaign, alice, value):
    client.force_login(alice)
    response = client.get(reverse("characters:create"), {"campaign": value})
    assert response.status_code == 400
    assert client.get(reverse("characters:create"), {"campaign": ""}).status_code == 200
    ok = client.get(reverse("characters:create"), {"campaign": str(campaign.pk)})
    assert ok.status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("value", [*ODD_INTEGERS, ""])
def test_bringing_an_odd_character_is_400_and_changes_nothing(client, campaign, alice, value):
    character = Character.objects.create(owner=alice, name="Fri")
    client.force_login(alice)
    url = reverse("campaigns:character_bring", args=[campaign.pk])
    response = client.post(url, {"character": value})
    assert response.status_code == 400
    character.refresh_from_db()
    assert character.campaign_id is None
    assert client.post(url, {"character": str(character.pk)}).status_code == 302
    character.refresh_from_db()
    assert character.campaign_id == campaign.pk


# --- ids in paths ----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/characters/99999999999999999999/",
        "/characters/9223372036854775808/",
        "/campaigns/99999999999999999999/",
        "/campaigns/1/members/99999999999999999999/remove/",
        "/campaigns/99999999999999999999/table/history/",
        "/campaigns/1/journal/99999999999999999999/edit/",
        "/characters/1/items/99999999999999999999/delete/",
        "/characters/²/",
        "/campaigns/join/%00/",
        "/campaigns/join/a%20b/",
    ],
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_oversize_and_odd_path_ids_are_404(client, campaign, gm, path, method):
    client.force_login(gm)
    response = getattr(client, method)(path)
    assert response.status_code == 404


@pytest.mark.django_db
def test_largest_id_in_a_path_is_looked_up(client, gm, campaign):
    client.force_login(gm)
    assert client.get(f"/characters/{MAX_ID}/").status_code == 404
    assert client.get(f"/campaigns/{campaign.pk}/").status_code == 200


# --- the 400 page ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_400_page_is_translated_and_in_english_too(client, campaign, alice, settings):
    client.force_login(alice)
    url = reverse("table:history", args=[campaign.pk])
    page = client.get(url, {"before": "²"})
    assert page.status_code == 400
    assert page["Content-Type"].startswith("text/html")
    assert 'lang="sv"' in page.content.decode()
    assert swedish("Bad request") in page.content.decode()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    page = client.get(url, {"before": "²"})
    assert "Bad request" in page.content.decode()
    assert "before must be a whole number." in page.content.decode()


def test_400_under_the_api_is_json(rf):
    from core.views import bad_request

    response = bad_request(rf.get("/api/v1/aoristos/odds"), ParamError("tb must be a number"))
    assert response.status_code == 400
    assert json.loads(response.content) == {"error": "tb must be a number"}


def test_too_many_fields_is_a_400_json_error_under_the_api(client, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    query = "&".join(f"f{i}=1" for i in range(10))
    response = client.get(f"/api/v1/aoristos/odds?{query}")
    assert response.status_code == 400
    assert "error" in json.loads(response.content)


# --- NUL characters in saved text -------------------------------------------------------------


@pytest.mark.django_db
def test_gm_notes_with_nul_characters_are_saved_without_them(client, campaign, gm, alice):
    client.force_login(gm)
    response = client.post(
        reverse("campaigns:gm_notes", args=[campaign.pk]), {"gm_notes": "Fällan\x00 i norr"}
    )
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.gm_notes == "Fällan i norr"
    albert = Character.objects.create(owner=alice, name="Albert", campaign=campaign)
    response = client.post(
        reverse("characters:gm_notes", args=[albert.pk]), {"gm_notes": "\x00Ljuger\x00"}
    )
    assert response.status_code == 302
    albert.refresh_from_db()
    assert albert.gm_notes == "Ljuger"


@pytest.mark.django_db
def test_form_text_with_nul_is_refused_and_kept(client, gm, campaign):
    client.force_login(gm)
    response = client.post(
        reverse("campaigns:journal", args=[campaign.pk]), {"title": "Natt\x00", "body": "x"}
    )
    assert response.status_code == 400
    assert not campaign.journal.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("cookie", ['sessionid="abcdefgh\\000ijkl"', "sessionid=ABC\u00e9defghij"])
def test_an_odd_session_cookie_is_no_session(client, cookie):
    """A quoted "\\000" in a cookie becomes NUL, which PostgreSQL refused (500)."""
    response = client.get(reverse("characters:list"), HTTP_COOKIE=cookie)
    assert response.status_code == 302  # to the login page: not logged in, no error


@pytest.mark.django_db
def test_sessions_still_work(alice_client):
    assert alice_client.get(reverse("characters:list")).status_code == 200
