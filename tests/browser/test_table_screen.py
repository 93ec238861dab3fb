"""The table screen (issue 47): the GM makes one on the campaign's page, a TV's browser
(1920 x 1080, no account) opens it by its code; a player's roll and the GM's secret roll
appear on it live, the secret one only as "the GM rolled in secret", and nothing of the
GM's is in its page or its stream at any time; blackout empties it; ending it closes it."""

import io
import re

import pytest
from playwright.sync_api import expect

from combat import services
from combat.models import Encounter
from tests.browser.test_fog import Listener, gm_command
from tests.browser.test_live_table import LIVE, open_table, table  # noqa: F401 (a fixture)
from tests.core.test_two_processes import GUARDS  # two NPCs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TV = {"width": 1920, "height": 1080}
# The GM's secret hand; the GM's notes; a wall only the GM sees.
SECRETS = ("2B+13", "Skatten under golvet", "Lönndörren")


def letter() -> bytes:
    """A picture of a letter, 160 × 100, for the handout."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (160, 100), (240, 228, 200))
    ImageDraw.Draw(image).rectangle((20, 20, 140, 30), fill=(60, 40, 20))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


LETTER = letter()


def shot_and_small(page, shot, name):
    """A screenshot, and a copy scaled to 480 px wide: what the TV reads like from across
    the room (issue 47), to look at."""
    from PIL import Image

    path = shot(page, name)
    with Image.open(path) as image:
        image.resize((480, round(image.height * 480 / image.width))).save(
            path.with_name(path.stem + "-480.png"))


def roll(page):
    page.locator("#tray-form").get_by_role("button", name=re.compile("^(Slå|Roll)$")).click()


def test_the_table_screen_shows_what_every_player_may_see_live(browser, site_server, request,
                                                                shot):
    campaign = request.getfixturevalue("table")
    campaign.gm_notes = SECRETS[1]
    campaign.save()
    gm_context, gm = open_table(browser, site_server, "spelledaren", {"width": 1280,
                                                                       "height": 900}, campaign)
    player_context, player = open_table(browser, site_server, "spelaren",
                                        {"width": 390, "height": 844}, campaign)
    # The GM makes a screen on the campaign's page.
    gm.goto(f"{site_server.url}/campaigns/{campaign.pk}/")
    screens = gm.get_by_test_id("screens")
    screens.locator('input[name="name"]').fill("TV:n")
    screens.get_by_role("button", name=re.compile("Ny bordsskärm|New table screen")).click()
    code = gm.get_by_test_id("screen-code").inner_text()
    assert re.fullmatch(r"[A-Z2-9]{8}", code)

    # The TV: no account, the code typed on /screen/.
    tv_context = browser.new_context(viewport=TV)
    tv = tv_context.new_page()
    tv_errors = []
    tv.on("pageerror", lambda e: tv_errors.append(str(e)))
    stream_text = []

    def keep_stream(response):
        if "/live/screens/" in response.url:
            # The body of a stream never ends: read what the page got from the DOM instead,
            # and record that the stream is the screen's own (its token, no session).
            stream_text.append(response.url)

    tv.on("response", keep_stream)
    tv.goto(f"{site_server.url}/screen/")
    tv.get_by_label(re.compile("Bordsskärmens kod|The table screen's code")).fill(
        f"{code[:4].lower()} {code[4:]}")
    tv.get_by_role("button", name=re.compile("^(Öppna|Open)$")).click()
    expect(tv.locator("#live-status")).to_have_attribute("data-state", "live")
    assert stream_text, "the screen opened no stream"
    # The screen's stream as a browser gets it, read beside the page to the end.
    token = tv.url.rstrip("/").rsplit("/", 1)[-1]
    stream = Listener(f"{site_server.url}/live/screens/{token}/events?after=0")
    stream.start()
    assert tv_context.cookies() == [] or all(c["name"] != "sessionid" for c in tv_context.cookies())

    # A player's test, then the GM's secret roll.
    player.get_by_label(re.compile("Rollperson|Character")).select_option(label="Albert")
    player.locator('input[name="properties"][value="alertness"]').check()
    player.locator('input[name="properties"][value="wilderness"]').check()
    roll(player)
    expect(tv.get_by_test_id("screen-log").locator("li").first).to_contain_text(
        "SIN + Vildmark", timeout=LIVE)
    # Large, with the exact chance it had (the tray's own figure: tests/table).
    expect(tv.get_by_test_id("screen-log").locator("li").first.get_by_test_id(
        "roll-chance")).to_have_text(re.compile(r"^(chans|chance) \d+[,.]\d %$"))
    gm.goto(f"{site_server.url}/campaigns/{campaign.pk}/table/")
    gm.get_by_label(re.compile("Tärningshand|Dice hand")).check()
    gm.locator('input[name="hand"]').fill(SECRETS[0])
    gm.get_by_label(re.compile("Hemligt|Secret")).check()
    roll(gm)
    expect(gm.locator("#roll-log li").first).to_contain_text(SECRETS[0], timeout=LIVE)
    newest = tv.get_by_test_id("screen-log").locator("li").first
    expect(newest).to_contain_text(re.compile("hemligt slag|in secret"), timeout=LIVE)
    expect(newest.locator(".die")).to_have_count(0)
    dom = tv.content()
    for secret in SECRETS:
        assert secret not in dom, secret
    shot(tv, "1-tv-rolls")

    # The fight: who acts now and who is next, as the fight moves on.
    fight = Encounter.objects.create(campaign=campaign, name="Bakgården", system="aoristos")
    membership = campaign.memberships.select_related("campaign", "user").get(
        user__username="spelledaren")
    # Handlingskraft 12: each activation loses 1B1F KP to stress (p. 6), and the knife's
    # attack below must not become an extended activity whatever the server's dice.
    for command in ({**guard, "drive": 12} for guard in GUARDS):
        fight, _record, _after = services.command_run(
            encounter=fight, membership=membership, data=command, version=fight.version)
    gm.goto(f"{site_server.url}/campaigns/{campaign.pk}/")
    mode = gm.get_by_test_id("screen-mode")
    mode.get_by_label(re.compile("Striden|The fight")).check()
    mode.get_by_role("button", name=re.compile("Visa det|Show it")).click()
    expect(tv.get_by_test_id("screen")).to_have_attribute("data-mode", "fight", timeout=LIVE)
    expect(tv.get_by_test_id("screen-no-fight")).to_be_visible()
    tv.evaluate("window.sameScreen = true")  # gone if the page loads again
    gm.goto(f"{site_server.url}/encounters/{fight.pk}/")
    gm.get_by_test_id("start").click()
    expect(tv.get_by_test_id("screen-active")).to_have_text(re.compile("^(Vakten|Tjuven)$"),
                                                            timeout=LIVE)
    # The fight's lines came live: the notice among its first lines reloads it no more.
    assert tv.evaluate("window.sameScreen === true")
    expect(tv.get_by_test_id("screen-next")).to_have_text(re.compile("^(Vakten|Tjuven)$"))
    shot(tv, "1b-tv-fight")

    # The battle map, full screen: a move on it and an attack's prompt come live; a wall
    # the GM keeps is not on it.
    gm.goto(f"{site_server.url}/campaigns/{campaign.pk}/")
    gm_command(gm, fight, {"type": "add_shape", "kind": "wall", "points": "0,-3 4,-3",
                           "shown": False, "label": SECRETS[2]})
    mode = gm.get_by_test_id("screen-mode")
    mode.get_by_label(re.compile("Stridskartan|The battle map")).check()
    mode.get_by_role("button", name=re.compile("Visa det|Show it")).click()
    expect(tv.get_by_test_id("screen")).to_have_attribute("data-mode", "map", timeout=LIVE)
    expect(tv.locator(".map-token")).to_have_count(2, timeout=LIVE)
    fight.refresh_from_db()
    state = services.folded(fight).state
    mover = state.active
    other = next(c for c in state.combatants if c.id != mover.id)
    # The GM places the other 1.5 m away, within the knife's reach: its token moves on
    # the screen.
    to_x = mover.x + 1.5
    gm_command(gm, fight, {"type": "update_combatant", "id": other.id, "x": to_x, "y": 0.0})
    expect(tv.get_by_test_id(f"screen-token-{other.id}")).to_have_attribute(
        "transform", f"translate({to_x} 0.0)", timeout=LIVE)
    gm_command(gm, fight, {"type": "attack", "id": mover.id, "target": other.id,
                           "weapon": "knife"})
    expect(tv.get_by_test_id("screen-map-now")).to_contain_text(
        re.compile(f"(Väntar på att {other.name}|Waiting for {other.name})"), timeout=LIVE)
    assert tv.locator(".map-wall").count() == 0
    shot_and_small(tv, shot, "1c-tv-map")

    # A handout on the table screen: every screen turns to it.
    gm.goto(f"{site_server.url}/campaigns/{campaign.pk}/handouts/")
    form = gm.get_by_test_id("handout-form")
    form.get_by_label(re.compile("^(Titel|Title)")).fill("Brevet från hertigen")
    form.get_by_label(re.compile("^(Text)")).fill("Kom ensam till bron vid midnatt.")
    form.get_by_label(re.compile("^(Bild|Picture)")).set_input_files(
        files=[{"name": "brev.png", "mimeType": "image/png", "buffer": LETTER}])
    form.get_by_label(re.compile("^(Till|To):?$")).select_option("screen")
    form.get_by_test_id("handout-give").click()
    expect(gm.locator(".messages")).to_contain_text(
        "Brevet från hertigen")
    expect(tv.get_by_test_id("screen")).to_have_attribute("data-mode", "handout",
                                                          timeout=LIVE)
    expect(tv.get_by_test_id("screen-handout")).to_contain_text("Brevet från hertigen")
    expect(tv.get_by_test_id("screen-handout")).to_contain_text("Kom ensam till bron")
    expect(tv.get_by_test_id("screen-handout-picture")).to_be_visible()
    assert tv.evaluate(
        "document.querySelector('[data-testid=screen-handout-picture]').naturalWidth") == 160
    # The player's phone got it too, live.
    expect(player.get_by_test_id("handouts")).to_contain_text("Brevet från hertigen",
                                                              timeout=LIVE)
    shot_and_small(tv, shot, "1d-tv-handout")

    # Blackout: nothing on it; then the rolls again.
    gm.goto(f"{site_server.url}/campaigns/{campaign.pk}/")
    mode = gm.get_by_test_id("screen-mode")
    mode.get_by_label(re.compile("Mörkläggning|Blackout")).check()
    mode.get_by_role("button", name=re.compile("Visa det|Show it")).click()
    expect(tv.get_by_test_id("screen")).to_have_attribute("data-mode", "blackout",
                                                          timeout=LIVE)
    expect(tv.get_by_test_id("screen-log")).to_be_hidden()
    expect(tv.locator("h1")).to_be_hidden()
    shot(tv, "2-tv-blackout")
    mode = gm.get_by_test_id("screen-mode")
    mode.get_by_label(re.compile("De senaste slagen|The latest rolls")).check()
    mode.get_by_role("button", name=re.compile("Visa det|Show it")).click()
    expect(tv.get_by_test_id("screen")).to_have_attribute("data-mode", "rolls", timeout=LIVE)
    expect(tv.get_by_test_id("screen-log").locator("li").first).to_contain_text(
        re.compile("senaste slagen|latest rolls"))  # the newest line: the GM's change
    dom = tv.content()
    for secret in SECRETS:
        assert secret not in dom, secret

    stream.done.set()
    assert "Brevet från hertigen" in stream.text  # it read the stream to here
    for secret in SECRETS:
        assert secret not in stream.text, secret

    # Ending it closes the open screen, and its code opens it no more.
    gm.once("dialog", lambda dialog: dialog.accept())
    gm.get_by_test_id("screen-end").click()
    expect(tv.get_by_test_id("screen-ended")).to_contain_text(
        re.compile("avslutade|ended"), timeout=LIVE)
    shot(tv, "3-tv-ended")
    again = tv_context.new_page()
    again.goto(f"{site_server.url}/screen/")
    again.get_by_label(re.compile("Bordsskärmens kod|The table screen's code")).fill(code)
    again.get_by_role("button", name=re.compile("^(Öppna|Open)$")).click()
    expect(again.get_by_role("alert")).to_contain_text(re.compile("Ingen bordsskärm|No table"))
    assert tv_errors == [], tv_errors
    for context in (tv_context, gm_context, player_context):
        context.close()
