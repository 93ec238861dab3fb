"""The picture under the battle map (issue 27): only the GM puts one there; the server
checks it is a PNG, JPEG or WebP picture of at most 5 MB and changes nothing otherwise;
the members the scene shows it to get it, nobody else."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from combat.models import MapPicture
from tests.combat.helpers import english, state_of

pytestmark = pytest.mark.django_db


def picture(kind="PNG", size=(40, 20)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (90, 120, 60)).save(out, format=kind)
    return out.getvalue()


def upload(client, encounter, content, name="karta.png", **fields):
    data = {"width": "20", "x": "0", "y": "0", "shown": "on", **fields}
    if content is not None:
        data["picture"] = SimpleUploadedFile(name, content)
    return client.post(reverse("combat:map_picture_upload", args=[encounter.pk]), data,
                       headers={"HX-Request": "true"})


@pytest.mark.parametrize("kind", ["PNG", "JPEG", "WEBP"])
def test_the_gm_puts_a_picture_under_the_map(client, gm, fight, kind):
    english(client, gm)
    answer = upload(client, fight, picture(kind), width="24", x="-2", shown="on")
    assert answer.status_code == 200
    assert b"map-picture-saved" in answer.content
    stored = MapPicture.objects.get(encounter=fight)
    scene = state_of(fight).scene
    assert (scene.picture.key, scene.picture.width, scene.picture.aspect, scene.picture.x) == (
        str(stored.pk), 24.0, 0.5, -2.0)
    assert (stored.width_px, stored.height_px) == (40, 20)
    served = client.get(reverse("combat:map_picture", args=[fight.pk, stored.pk]))
    assert served.status_code == 200
    assert served["Content-Type"] == MapPicture.TYPES[kind]
    assert b"".join(served) == picture(kind)


@pytest.mark.parametrize(
    ("content", "name", "fields", "says"),
    [
        (b"just text", "karta.png", {}, "not a picture"),
        (picture("GIF"), "karta.gif", {}, "Only PNG, JPEG or WebP"),
        (None, "", {}, "required"),
        (picture(), "karta.png", {"width": "0"}, "greater than or equal to 1"),
        (picture(), "karta.png", {"width": "bred"}, "Enter a number"),
        (b"\x89PNG" + b"0" * (5 * 1024 * 1024), "stor.png", {}, "larger than 5 MB"),
    ],
)
def test_a_bad_picture_is_refused_with_its_reason_and_changes_nothing(
    client, gm, fight, content, name, fields, says
):
    english(client, gm)
    version = fight.version
    answer = upload(client, fight, content, name=name, **fields)
    assert answer.status_code == 400
    assert says in answer.content.decode()
    assert MapPicture.objects.count() == 0
    fight.refresh_from_db()
    assert fight.version == version


def test_a_picture_bomb_is_refused_unread(client, gm, fight, monkeypatch):
    from core import pictures

    monkeypatch.setattr(pictures, "MAX_PIXELS", 100)
    english(client, gm)
    answer = upload(client, fight, picture(size=(20, 20)))
    assert answer.status_code == 400
    assert "20 × 20 pixels: at most 16 megapixels" in answer.content.decode()


def test_a_picture_a_phone_could_not_decode_is_refused(client, gm, fight):
    """Issue 42: a 6000 × 6000 PNG of some 100 kB was taken, and every phone at the table
    decoded it to 144 MB. At most 16 megapixels: 4096 × 4096 is taken, 4097 × 4096 not."""
    english(client, gm)
    refused = upload(client, fight, picture(size=(6000, 6000)))
    assert refused.status_code == 400
    assert "6000 × 6000 pixels: at most 16 megapixels" in refused.content.decode()
    assert upload(client, fight, picture(size=(4097, 4096))).status_code == 400
    assert MapPicture.objects.count() == 0
    assert upload(client, fight, picture(size=(4096, 4096))).status_code in (200, 302)
    assert MapPicture.objects.get().width_px == 4096


def test_only_the_gm_puts_a_picture_and_players_see_only_what_is_shown(
    client, gm, alice, outsider, fight
):
    english(client, alice)
    assert upload(client, fight, picture()).status_code == 403
    english(client, gm)
    upload(client, fight, picture(), shown="")  # for the GM alone
    stored = MapPicture.objects.get()
    url = reverse("combat:map_picture", args=[fight.pk, stored.pk])
    assert client.get(url).status_code == 200
    english(client, alice)
    assert client.get(url).status_code == 404
    page = client.get(reverse("combat:page", args=[fight.pk])).content.decode()
    assert url not in page
    english(client, gm)
    upload(client, fight, picture())  # shown: a new picture, the old one no longer set
    shown = MapPicture.objects.latest("pk")
    english(client, alice)
    assert client.get(reverse("combat:map_picture", args=[fight.pk, shown.pk])).status_code == 200
    assert client.get(url).status_code == 404
    english(client, outsider)
    assert client.get(reverse("combat:map_picture", args=[fight.pk, shown.pk])).status_code == 404


def test_without_javascript_the_form_has_its_own_page(client, gm, fight):
    english(client, gm)
    url = reverse("combat:map_picture_upload", args=[fight.pk])
    assert b"map-picture-form" in client.get(url).content
    answer = client.post(url, {"width": "10", "picture": SimpleUploadedFile("a.png", picture())})
    assert answer.status_code == 302
    refused = client.post(url, {"width": "10", "picture": SimpleUploadedFile("a.png", b"x")})
    assert refused.status_code == 400
    assert b"<h1>" in refused.content
