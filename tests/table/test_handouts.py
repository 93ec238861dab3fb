"""Handouts (issue 47, table/handouts.py): the GM gives a text or a picture to one player,
to every player, or to every player and the table screen; each member reads only what
was given to them; bad input changes nothing; the table is told."""

import io
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from PIL import Image

from campaigns.models import Membership, TableScreen
from table.models import Handout, NoticeEvent

pytestmark = pytest.mark.django_db


def picture(size=(30, 20), colour=(200, 30, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return out.getvalue()


def as_user(user) -> Client:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = "en"
    return client


def give(client, campaign, **fields):
    data = {"title": "Brevet från hertigen", "text": "", "to": "all", **fields}
    return client.post(reverse("table:handouts", args=[campaign.pk]), data)


def page(client, campaign) -> str:
    return client.get(reverse("table:handouts", args=[campaign.pk])).content.decode() + \
        client.get(reverse("table:handouts_list", args=[campaign.pk])).content.decode()


def history(client, campaign) -> str:
    return client.get(reverse("table:history", args=[campaign.pk])).content.decode()


def test_every_player_reads_a_handout_to_all_and_the_table_is_told(campaign, gm, alice, bob):
    answer = give(as_user(gm), campaign, text="Kom ensam till bron.\nBränn brevet.")
    assert answer.status_code == 302
    for user in (alice, bob, gm):
        seen = page(as_user(user), campaign)
        assert "Brevet från hertigen" in seen
        assert "Kom ensam till bron.<br>Bränn brevet." in seen
    notice = NoticeEvent.objects.get(kind=NoticeEvent.Kind.HANDOUT)
    assert notice.data["title"] == "Brevet från hertigen"
    assert "The GM gives every player a handout: Brevet från hertigen" in history(
        as_user(bob), campaign)


def test_a_handout_to_one_player_is_theirs_alone(campaign, gm, alice, bob, outsider):
    to_alice = Membership.objects.get(campaign=campaign, user=alice)
    answer = give(as_user(gm), campaign, to=f"m{to_alice.pk}", title="Kartan till skatten",
                  picture=SimpleUploadedFile("karta.png", picture()))
    assert answer.status_code == 302
    handout = Handout.objects.get()
    url = reverse("table:handout_picture", args=[campaign.pk, handout.pk])
    assert "Kartan till skatten" in page(as_user(alice), campaign)
    assert b"".join(as_user(alice).get(url)) == picture()
    assert as_user(gm).get(url).status_code == 200
    for user in (bob, outsider):
        assert "Kartan till skatten" not in page(as_user(bob), campaign)
        assert as_user(user).get(url).status_code == 404
    # The table hears that Alice got one, not what it is.
    told = history(as_user(bob), campaign)
    assert "The GM gives alice a handout." in told
    assert "Kartan till skatten" not in told
    assert NoticeEvent.objects.get().data["title"] == ""


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"title": "Tomt"}, "a text, a picture or both"),
        ({"title": "   ", "text": "x"}, "This field is required"),
        ({"text": "x", "to": "m999999"}, "Select a valid choice"),
        ({"picture": SimpleUploadedFile("a.png", b"not a picture")}, "not a picture"),
        ({"text": "x" * 4001}, "at most 4000 characters"),
    ],
)
def test_a_bad_handout_is_refused_with_its_reason_and_keeps_what_was_typed(
    campaign, gm, fields, says
):
    answer = give(as_user(gm), campaign, **fields)
    assert answer.status_code == 400
    content = answer.content.decode()
    assert says in content
    if fields.get("title", "").strip():
        assert f'value="{fields["title"]}"' in content
    assert Handout.objects.count() == 0
    assert NoticeEvent.objects.count() == 0


def test_only_the_gm_gives_or_takes_back(campaign, gm, alice, outsider):
    assert give(as_user(alice), campaign, text="x").status_code == 404
    assert give(as_user(outsider), campaign, text="x").status_code == 404
    assert Handout.objects.count() == 0
    give(as_user(gm), campaign, text="Ett rykte")
    handout = Handout.objects.get()
    take = reverse("table:handout_delete", args=[campaign.pk, handout.pk])
    assert as_user(alice).post(take).status_code == 403
    assert as_user(outsider).post(take).status_code == 404
    assert Handout.objects.count() == 1
    assert as_user(gm).post(take).status_code == 302
    assert Handout.objects.count() == 0
    assert "The GM takes back the handout Brevet från hertigen." in history(
        as_user(alice), campaign)


def test_a_handout_on_the_table_screen_turns_every_screen_to_it(campaign, gm):
    screens = [TableScreen.objects.create(campaign=campaign, name=name) for name in ("TV", "B")]
    give(as_user(gm), campaign, to="screen", title="Porträttet",
         picture=SimpleUploadedFile("p.png", picture(colour=(10, 10, 200))))
    first = Handout.objects.get()
    give(as_user(gm), campaign, to="screen", title="Dagboken", text="Den 3 maj: regn.")
    shown = Handout.objects.latest("pk")
    for screen in screens:
        screen.refresh_from_db()
        assert screen.mode == TableScreen.Mode.HANDOUT
    tv = Client().get(screens[0].get_absolute_url()).content.decode()
    shown_part = re.search(r'<section class="screen-handout-view".*?</section>', tv, re.S).group(0)
    assert "Dagboken" in shown_part
    assert "Den 3 maj: regn." in shown_part
    assert "Porträttet" not in shown_part
    # Only the handout it shows is the screen's to fetch.
    assert Client().get(reverse("table:screen_handout_picture",
                                args=[screens[0].token, first.pk])).status_code == 404
    assert Client().get(reverse("table:screen_handout_picture",
                                args=[screens[0].token, shown.pk])).status_code == 404  # text
    give(as_user(gm), campaign, to="screen", title="Kartan",
         picture=SimpleUploadedFile("k.png", picture()))
    latest = Handout.objects.latest("pk")
    url = reverse("table:screen_handout_picture", args=[screens[0].token, latest.pk])
    assert b"".join(Client().get(url)) == picture()
    assert 'data-testid="screen-handout-picture"' in Client().get(
        screens[0].get_absolute_url()).content.decode()
