"""Two people at one table, each on their own device, against the real server process."""

import re
import time

import pytest
from django.contrib.auth.hashers import make_password
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "hjortspår-i-frusen-mark"
ALBERT = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3}
LIVE = 2_000  # ms: a roll must show on the other page within a second; allow for CI noise


def real_user(django_user_model, username):
    """A user the server process can log in: hashed with the production hasher."""
    return django_user_model.objects.create(
        username=username, password=make_password(PASSWORD, hasher="pbkdf2_sha256")
    )


@pytest.fixture
def table(django_user_model):
    gm = real_user(django_user_model, "spelledaren")
    player = real_user(django_user_model, "spelaren")
    campaign = campaign_create(gm=gm, name="Nattens kant")
    # Seated directly: joining is an event of the log, and these tests count rolls from #1.
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    Character.objects.create(owner=player, campaign=campaign, name="Albert", attributes=ALBERT)
    return campaign


def open_table(browser, site_server, username, viewport, campaign):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(f"{site_server.url}/accounts/login/?next=/campaigns/{campaign.pk}/table/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    return context, page


def test_rolls_appear_live_on_every_page_and_secret_dice_stay_with_the_gm(
    browser, site_server, table, shot
):
    gm_context, gm = open_table(
        browser, site_server, "spelledaren", {"width": 1280, "height": 900}, table
    )
    player_context, player = open_table(
        browser, site_server, "spelaren", {"width": 390, "height": 844}, table
    )

    # The player picks a success test and sees GST and the chance before rolling (p. 5).
    # The chance requests carry the tray's fields and never the CSRF token or form key.
    odds_urls = []
    player.on("request", lambda r: "/odds/" in r.url and odds_urls.append(r.url))
    player.get_by_label(re.compile("Rollperson|Character")).select_option(label="Albert")
    player.locator('input[name="properties"][value="alertness"]').check()
    player.locator('input[name="properties"][value="wilderness"]').check()
    expect(player.get_by_test_id("odds-gst")).to_have_text("8")
    expect(player.get_by_test_id("odds-percent")).to_have_text("44,4 %")
    assert odds_urls, "no chance request was made"
    assert all("csrfmiddlewaretoken" not in url for url in odds_urls), odds_urls
    assert all("idempotency_key" not in url for url in odds_urls), odds_urls
    assert "properties=alertness" in odds_urls[-1]
    assert "properties=wilderness" in odds_urls[-1]
    shot(player, "1-player-before-rolling")
    started = time.monotonic()
    player.locator("#tray-form").get_by_role("button", name=re.compile("^(Slå|Roll)$")).click()

    # It appears on the GM's page without a reload, and on the player's own.
    expect(gm.locator("#roll-1")).to_contain_text("SIN + Vildmark", timeout=LIVE)
    print(f"roll seen on the GM's page {time.monotonic() - started:.3f} s after the click")
    expect(player.locator("#roll-1")).to_contain_text("Albert", timeout=LIVE)
    shot(gm, "2-gm-sees-player-roll")

    # A secret GM roll: the GM sees the dice, the player only that it happened.
    gm.get_by_label(re.compile("Tärningshand|Dice hand")).check()
    gm.locator('input[name="hand"]').fill("2B+1")
    gm.get_by_label(re.compile("Hemligt|Secret")).check()
    gm.locator("#tray-form").get_by_role("button", name=re.compile("^(Slå|Roll)$")).click()
    expect(gm.locator("#roll-2 .die")).to_have_count(2, timeout=LIVE)
    expect(player.locator("#roll-2")).to_be_visible(timeout=LIVE)
    expect(player.locator("#roll-2 .die")).to_have_count(0)
    expect(player.locator("#roll-2")).not_to_contain_text("2B+1")
    shot(gm, "3-gm-secret-roll")
    shot(player, "4-player-sees-only-that-a-secret-roll-happened")

    # The player's connection drops; what it missed arrives in order, once, on reconnect.
    player_context.set_offline(True)
    player.evaluate("document.getElementById('roll-log')._htmx.sse.reader.cancel()")
    expect(player.locator("#live-status")).to_have_attribute("data-state", "lost")
    gm.get_by_label(re.compile("Hemligt|Secret")).uncheck()
    for _ in range(2):
        gm.locator("#tray-form").get_by_role("button", name=re.compile("^(Slå|Roll)$")).click()
    expect(gm.locator("#roll-4")).to_be_visible(timeout=LIVE)
    player_context.set_offline(False)
    expect(player.locator("#roll-4")).to_be_visible(timeout=15_000)
    seqs = player.locator("#roll-log > li").evaluate_all("els => els.map(e => e.dataset.seq)")
    assert seqs == ["4", "3", "2", "1"]
    shot(player, "5-player-caught-up")

    gm_context.close()
    player_context.close()
