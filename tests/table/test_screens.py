"""The table screen (issue 47; table/screens.py): the GM's own, opened with no account by
its link or its code, an audience that gets what every player may see and never more, in
its page and in its live stream; ended by the GM, after which neither opens it."""

import re
import uuid

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from campaigns.models import SCREENS_PER_CAMPAIGN, TableScreen
from campaigns.services import campaign_create
from core import throttle
from table.models import NoticeEvent
from tests.table.test_stream import Stream, roll, run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def fresh_throttle(settings):
    """A throttle cache of this test's own (the guesses of one test count in no other)."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": f"screens-{uuid.uuid4()}"}}


def client_of(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def make_screen(campaign, gm, name="TV") -> TableScreen:
    answer = client_of(gm).post(reverse("table:screen_create", args=[campaign.pk]),
                                {"name": name})
    assert answer.status_code == 302
    return TableScreen.objects.filter(campaign=campaign).order_by("-pk").first()


class ScreenStream(Stream):
    """A table screen's stream: no session, its token in the path."""

    def __init__(self, token, *, after=0):
        super().__init__(None, 0, after=after)
        path = f"/live/screens/{token}/events"
        self.scope["path"], self.scope["raw_path"] = path, path.encode()


def test_only_the_gm_makes_a_screen_and_its_page_opens_with_no_account(
        campaign, gm, alice, outsider):
    screen = make_screen(campaign, gm, "  TV  i vardagsrummet ")
    assert screen.name == "TV i vardagsrummet"
    assert re.fullmatch(r"[A-Z2-9]{8}", screen.code)
    assert len(screen.token) >= 32
    url = reverse("table:screen_create", args=[campaign.pk])
    assert client_of(alice).post(url, {"name": "Min"}).status_code == 403
    assert client_of(outsider).post(url, {"name": "Min"}).status_code == 404
    assert TableScreen.objects.count() == 1
    page = client_of().get(screen.get_absolute_url())  # nobody logged in
    assert page.status_code == 200
    assert page["Cache-Control"] == "no-store"
    assert 'data-testid="screen-log"' in page.content.decode()
    # The GM's page lists it, with its code and its link.
    detail = client_of(gm).get(campaign.get_absolute_url()).content.decode()
    assert screen.code in detail
    assert screen.token in detail
    assert screen.token not in client_of(alice).get(campaign.get_absolute_url()).content.decode()


def test_a_campaign_has_at_most_its_screens_and_a_name_is_needed(campaign, gm):
    for n in range(SCREENS_PER_CAMPAIGN):
        make_screen(campaign, gm, f"Skärm {n}")
    client = client_of(gm)
    answer = client.post(reverse("table:screen_create", args=[campaign.pk]), {"name": "En till"},
                         follow=True)
    assert TableScreen.objects.count() == SCREENS_PER_CAMPAIGN
    assert "högst 4" in answer.content.decode() or "at most 4" in answer.content.decode()
    TableScreen.objects.all().delete()
    client.post(reverse("table:screen_create", args=[campaign.pk]), {"name": "   "})
    assert TableScreen.objects.count() == 0


def test_the_screens_page_shows_the_log_as_a_player_sees_it(campaign, gm, alice):
    """A secret roll of the GM's shows only that the GM rolled in secret; the GM's notes
    are nowhere on it."""
    campaign.gm_notes = "Skatten ligger under golvet"
    campaign.save()
    screen = make_screen(campaign, gm)
    from rules.aoristos import dice as hands
    from table import services

    services.roll_record(campaign=campaign, actor=gm, hand=hands.parse_hand("2B+13"),
                         label="Fällan", secret=True)
    services.roll_record(campaign=campaign, actor=alice, hand=hands.parse_hand("1B"),
                         label="Hoppet")
    page = client_of().get(screen.get_absolute_url()).content.decode()
    assert "Hoppet" in page
    assert "Fällan" not in page
    assert "2B+13" not in page
    assert "Skatten" not in page
    assert page.count('<li class="roll') == 2


def test_the_code_opens_the_screen_and_guessing_is_throttled(campaign, gm, monkeypatch):
    screen = make_screen(campaign, gm)
    client = client_of()
    url = reverse("table:screen_enter")
    spaced = f"{screen.code[:4].lower()} {screen.code[4:]}"  # as read aloud, typed on a remote
    answer = client.post(url, {"code": spaced})
    assert answer.status_code == 302
    assert answer["Location"] == screen.get_absolute_url()
    wrong = client.post(url, {"code": "ZZZZZZZZ"})
    assert wrong.status_code == 400
    assert screen.token not in wrong.content.decode()
    for _ in range(throttle.SCREEN_CODE_PER_ADDRESS.attempts):
        client.post(url, {"code": "ZZZZZZZZ"})
    throttled = client.post(url, {"code": screen.code})  # even the right one, for a while
    assert throttled.status_code == 429
    assert throttled["Retry-After"]


def test_the_gm_chooses_what_it_shows_and_ends_it(campaign, gm, alice, make_user):
    screen = make_screen(campaign, gm)
    mode = reverse("table:screen_mode", args=[campaign.pk, screen.pk])
    assert client_of(alice).post(mode, {"mode": "blackout"}).status_code == 403
    # Another GM cannot name this campaign's screen through a campaign of their own.
    other = make_user("ingrid")
    theirs = campaign_create(gm=other, name="Ingrids bord")
    across = reverse("table:screen_mode", args=[theirs.pk, screen.pk])
    assert client_of(other).post(across, {"mode": "blackout"}).status_code == 404
    client = client_of(gm)
    client.post(mode, {"mode": "nonsense"})
    screen.refresh_from_db()
    assert screen.mode == "rolls"
    client.post(mode, {"mode": "blackout"})
    screen.refresh_from_db()
    assert screen.mode == "blackout"
    notice = NoticeEvent.objects.get(kind="screen")
    assert notice.data == {"screen": screen.pk, "name": "TV", "mode": "blackout"}
    page = client_of().get(screen.get_absolute_url()).content.decode()
    assert 'data-testid="screen-blackout"' in page
    assert "screen-blackout" in page
    client.post(mode, {"mode": "blackout"})  # no change: no second notice
    assert NoticeEvent.objects.filter(kind="screen").count() == 1
    end = reverse("table:screen_end", args=[campaign.pk, screen.pk])
    assert client_of(alice).post(end).status_code == 403
    client.post(end)
    assert not TableScreen.objects.exists()
    assert client_of().get(screen.get_absolute_url()).status_code == 404
    assert client_of().post(reverse("table:screen_enter"), {"code": screen.code}
                            ).status_code == 400
    assert NoticeEvent.objects.filter(kind="screen").latest("seq").data["ended"] is True


def test_the_screens_stream_is_a_players_and_ends_with_the_screen(campaign, gm, alice):
    screen = make_screen(campaign, gm)

    async def scenario():
        shown = await ScreenStream(screen.token).open()
        assert shown.status == 200
        await roll(campaign, gm, "2B+13", label="Fällan", secret=True)
        await roll(campaign, alice, "1B", label="Hoppet")
        await shown.read_until(r"id: 2\n")
        assert "Hoppet" in shown.text
        assert "Fällan" not in shown.text
        assert "2B+13" not in shown.text
        end = reverse("table:screen_end", args=[campaign.pk, screen.pk])
        await sync_to_async(lambda: client_of(gm).post(end))()
        await roll(campaign, alice, "1B", label="Efteråt")
        ended = await shown.communicator.receive_output(timeout=5)
        while ended.get("more_body", False):
            shown.text += ended.get("body", b"").decode()
            ended = await shown.communicator.receive_output(timeout=5)
        assert "event: table-closed" in shown.text
        assert "Efteråt" not in shown.text
        await shown.close()
        gone = await ScreenStream(screen.token).open()
        assert gone.status == 404
        await gone.close()

    run(scenario)
