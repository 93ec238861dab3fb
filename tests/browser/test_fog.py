"""Fog on the battle map (issue 47): the GM covers the map with fog from the encounter
page and reveals an area by tapping two corners on the map. Until then the ambush (an NPC
and a wall in the fog) is in nothing a player or the table screen gets: not the player's
page, not the screen's map, not either live stream; once revealed it appears on both,
live.

The fight is set up in the test's process; the fog is put on and the area revealed
through the GM's page, on the real server process."""

import http.cookiejar
import re
import threading
import urllib.request

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership, TableScreen
from campaigns.services import campaign_create
from characters.models import Character
from combat import services
from combat.models import Encounter
from rules.aoristos.combat import ENGINE
from tests.browser.test_combat import real_user
from tests.browser.test_map import STILL, screen_point
from tests.browser.test_prompts import LAPTOP, LIVE, PHONE
from tests.browser.test_prompts import open_page as open_member_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TV = {"width": 1920, "height": 1080}
HIDDEN = ("Bakhållet", "Fallgropen")  # the NPC and the wall in the fog


class Listener(threading.Thread):
    """Reads a live stream as a browser would, keeping every byte, until stopped."""

    def __init__(self, url, cookies=()):
        super().__init__(daemon=True)
        jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        self.headers = {"Cookie": "; ".join(f"{c['name']}={c['value']}" for c in cookies)}
        self.url, self.chunks, self.done = url, [], threading.Event()

    def run(self):
        request = urllib.request.Request(self.url, headers=self.headers)
        with self.opener.open(request, timeout=30) as response:
            while not self.done.is_set():
                chunk = response.read1(4096)
                if not chunk:
                    return
                self.chunks.append(chunk)

    @property
    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", "replace")


@pytest.fixture
def ambush(django_user_model):
    gm = real_user(django_user_model, "dimledaren")
    player = real_user(django_user_model, "dimspelaren")
    campaign = campaign_create(gm=gm, name="Dimman")
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    encounter = Encounter.objects.create(campaign=campaign, name="Hålvägen", system="aoristos")
    albert = Character.objects.create(
        owner=player, campaign=campaign, name="Albert",
        attributes={"physique": 3, "composure": 3, "agility": 3, "alertness": 5,
                    "willpower": 4})
    block = ENGINE.character_block(name="Albert", levels=albert.levels(),
                                   derived=albert.secondary().as_dict())
    block.update(character_id=albert.pk, side="a", x=0.0, y=0.0, weapons=["knife"],
                 right="knife")
    run(encounter, gm, block, controller=player.pk)
    return campaign, encounter


def run(encounter, user, data, controller=None):
    encounter.refresh_from_db()
    membership = encounter.campaign.memberships.select_related("campaign", "user").get(user=user)
    services.command_run(membership=membership, data=data, version=encounter.version,
                         encounter_id=encounter.pk, controller=controller)


def gm_command(page, encounter, command):
    """A command sent by a member's page (the GM's, or a player's for their own
    combatant) to the JSON API, against the stored version; a refusal fails with the
    API's answer."""
    encounter.refresh_from_db()
    status, text = page.evaluate(
        """async ([url, version, command]) => {
            const token = document.querySelector('input[name=csrfmiddlewaretoken]').value;
            const answer = await fetch(url, {method: 'POST', headers: {
                'Content-Type': 'application/json', 'X-CSRFToken': token},
                body: JSON.stringify({version, command})});
            return [answer.status, await answer.text()];
        }""",
        [f"/api/v1/encounters/{encounter.pk}/commands", encounter.version, command],
    )
    assert status == 200, (status, text)


def test_what_the_fog_hides_reaches_no_player_nor_the_screen_until_revealed(
    browser, site_server, ambush, shot
):
    campaign, encounter = ambush
    path = f"/encounters/{encounter.pk}/"
    gm, gm_errors = open_member_page(browser, site_server, "dimledaren", LAPTOP, path)
    # The GM covers the map with fog and reveals Albert's corner by typing it.
    tools = gm.get_by_test_id("fog-tools")
    tools.locator("summary").click()
    tools.get_by_test_id("fog-on").click()
    expect(gm.get_by_test_id("map-svg")).to_have_attribute("data-fog", "0", timeout=LIVE)
    tools.get_by_test_id("fog-points").fill("-3,-3 3,3")
    tools.get_by_test_id("fog-submit").click()
    expect(gm.get_by_test_id("map-svg")).to_have_attribute("data-fog", "1", timeout=LIVE)

    player, player_errors = open_member_page(browser, site_server, "dimspelaren", PHONE, path)
    screen = TableScreen.objects.create(campaign=campaign, name="TV", mode="map")
    tv_context = browser.new_context(viewport=TV)
    tv = tv_context.new_page()
    tv_errors = []
    tv.on("pageerror", lambda e: tv_errors.append(str(e)))
    tv.goto(f"{site_server.url}/screen/{screen.token}/")
    expect(tv.locator("#live-status")).to_have_attribute("data-state", "live")
    expect(tv.get_by_test_id("screen-token-c1")).to_be_visible()

    # Both streams as a browser gets them, from before the ambush is set.
    streams = [
        Listener(f"{site_server.url}/live/campaigns/{campaign.pk}/events?after=0",
                 player.context.cookies()),
        Listener(f"{site_server.url}/live/screens/{screen.token}/events?after=0"),
    ]
    for stream in streams:
        stream.start()
    # The ambush: an NPC and a wall in the fog, placed by the GM (through the API, from
    # the GM's page, so the server process tells every page).
    gm_command(gm, encounter, {"type": "add_combatant", "name": HIDDEN[0], "side": "b",
                               "x": 8.0, "y": 0.0, "weapons": ["knife"], "right": "knife"})
    # The players' log says only that something happened out of sight, then that the
    # map changed (not what: a wall in the fog is the GM's).
    expect(player.locator("#roll-log li").first).to_contain_text(
        re.compile("utom synhåll|out of sight"), timeout=LIVE)
    gm_command(gm, encounter, {"type": "add_shape", "kind": "wall", "points": "7,-2 9,-2",
                               "label": HIDDEN[1]})
    expect(gm.get_by_test_id("token-c2")).to_be_visible(timeout=LIVE)  # the GM sees it
    expect(gm.get_by_test_id("map-svg").locator(".map-wall")).to_have_count(1)
    encounter.refresh_from_db()
    newest = player.locator("#roll-log li").first
    expect(newest).to_have_attribute("data-version", str(encounter.version), timeout=LIVE)
    expect(newest).not_to_contain_text(re.compile("vägg|wall"))
    expect(player.get_by_test_id("token-c1")).to_be_visible()
    for page in (player, tv):
        dom = page.content()
        for hidden in HIDDEN:
            assert hidden not in dom, hidden
    assert tv.get_by_test_id("screen-token-c2").count() == 0
    assert player.get_by_test_id("token-c2").count() == 0
    assert player.get_by_test_id("map-svg").locator(".map-wall").count() == 0
    assert tv.locator(".map-wall").count() == 0
    shot(player, "1-player-fog")
    shot(tv, "1-tv-fog")
    for stream in streams:
        stream.done.set()
    texts = [stream.text for stream in streams]
    for text in texts:
        assert re.search("utom synhåll|out of sight", text), text[-500:]
        for hidden in HIDDEN:
            assert hidden not in text, hidden

    # The GM reveals the ambush by tapping two corners on the map, then Done.
    tools.get_by_test_id("draw-reveal").click()
    gm.get_by_test_id("map-viewport").scroll_into_view_if_needed()
    gm.wait_for_function(STILL, polling="raf", timeout=LIVE)
    gm.mouse.click(*screen_point(gm, 5.5, -3.5))
    gm.mouse.click(*screen_point(gm, 10.5, 2.5))
    expect(gm.get_by_test_id("map-drawing-count")).to_contain_text("2")
    gm.get_by_test_id("map-draw-done").click()
    expect(gm.get_by_test_id("map-svg")).to_have_attribute("data-fog", "2", timeout=LIVE)
    expect(player.get_by_test_id("token-c2")).to_be_visible(timeout=LIVE)
    expect(player.get_by_test_id("map-svg").locator(".map-wall")).to_have_count(1)
    expect(tv.get_by_test_id("screen-token-c2")).to_be_visible(timeout=LIVE)
    expect(tv.locator(".map-wall")).to_have_count(1)
    assert HIDDEN[0] in tv.content()
    shot(player, "2-player-revealed")
    shot(tv, "2-tv-revealed")
    shot(gm, "2-gm")
    assert gm_errors == []
    assert player_errors == []
    assert tv_errors == []
    for context in (gm.context, player.context, tv_context):
        context.close()
