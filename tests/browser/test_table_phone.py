"""The table in your hand (issue 7): a player on a phone (390 × 844) sees their own roll
without scrolling, a failed send says so and rolls once when tried again, a player with no
character gets dice hands and the way to a character, and the campaign's news (awards,
journal posts, members joining) arrives in the log live."""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from table.models import RollEvent
from tests.browser.test_live_table import LIVE, PASSWORD, real_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def table(django_user_model):
    gm = real_user(django_user_model, "spelledaren")
    player = real_user(django_user_model, "spelaren")
    campaign = campaign_create(gm=gm, name="Nattens kant")
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    Character.objects.create(owner=player, campaign=campaign, name="Albert")
    return campaign


def open_table(browser, site_server, username, campaign, viewport=PHONE):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site_server.url}/accounts/login/?next=/campaigns/{campaign.pk}/table/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    return context, page, errors


def in_view(page, locator) -> bool:
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def test_a_phone_sees_its_own_roll_where_the_thumb_is(browser, site_server, table, shot):
    context, page, errors = open_table(browser, site_server, "spelaren", table)
    # The header leads to the table from anywhere (one campaign: its table).
    expect(page.get_by_test_id("nav-table")).to_have_attribute(
        "href", f"/campaigns/{table.pk}/table/"
    )
    # Nothing has happened at this table yet: the log says so, and the bar is empty.
    expect(page.get_by_test_id("log-empty")).to_be_visible()
    expect(page.get_by_test_id("roll-bar").locator(".roll")).to_have_count(0)
    page.get_by_label(re.compile("Tärningshand|Dice hand")).check()
    page.locator('input[name="hand"]').fill("2B2T+1")
    # Scrolled down to the bottom of the tray, as a thumb would be after picking.
    page.locator("#tray-form button[type=submit]").scroll_into_view_if_needed()
    bar = page.get_by_test_id("roll-bar")
    roll = page.get_by_test_id("roll-bar-roll")
    assert in_view(page, roll), "the roll button is under the thumb"
    roll.click()
    expect(bar.locator(".roll")).to_contain_text("2B2T+1", timeout=LIVE)
    expect(bar.locator(".die")).to_have_count(4)
    assert in_view(page, bar.locator(".roll")), "the result shows without scrolling"
    shot(page, "1-own-roll-in-the-roll-bar")

    # The tray folds away; the log is reachable from the bar; the choice is remembered.
    page.locator("[data-fold-tray]").click()
    expect(page.locator("#tray-fold")).not_to_have_attribute("open", "")
    page.reload()
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    expect(page.locator("#tray-fold")).not_to_have_attribute("open", "")
    expect(page.get_by_test_id("roll-bar").locator(".roll")).to_contain_text("2B2T+1")
    shot(page, "2-tray-folded")
    # Rolling with the folded tray uses what it holds; a refusal opens it to say why.
    page.get_by_test_id("roll-bar-roll").click()  # a success test with no character chosen
    expect(page.locator("#tray-fold")).to_have_attribute("open", "")
    expect(page.locator("#tray-errors .error")).to_be_visible()
    expect(page.locator("#tray-errors .error")).to_be_in_viewport()
    shot(page, "3-refusal-opens-the-tray")
    page.get_by_label(re.compile("Rollperson|Character")).select_option(label="Albert")
    page.locator('input[name="properties"][value="alertness"]').check()
    page.locator("[data-fold-tray]").click()
    page.get_by_test_id("roll-bar-roll").click()
    expect(page.get_by_test_id("roll-bar").locator(".roll")).to_have_attribute(
        "data-seq", "2", timeout=LIVE
    )
    expect(page.get_by_test_id("roll-bar").locator(".roll")).to_contain_text("Albert")
    assert errors == [], errors
    context.close()


def test_a_failed_send_says_so_and_trying_again_rolls_once(browser, site_server, table, shot):
    context, page, errors = open_table(browser, site_server, "spelaren", table)
    page.get_by_label(re.compile("Tärningshand|Dice hand")).check()
    page.locator('input[name="hand"]').fill("1B")

    # The first send never reaches the server.
    page.route("**/table/roll/", lambda route: route.abort("internetdisconnected"))
    page.get_by_test_id("roll-bar-roll").click()
    failed = page.get_by_test_id("send-failed")
    expect(failed).to_be_visible()
    expect(failed).to_contain_text(re.compile("Inte skickat|Not sent"))
    expect(page.locator("#roll-bar-failed")).to_be_visible()
    shot(page, "1-send-failed")
    assert RollEvent.objects.count() == 0

    # The second reaches the server, but its answer is lost on the way back.
    page.unroute("**/table/roll/")

    def lose_the_answer(route):
        route.fetch()  # the server rolls
        route.abort("connectionreset")

    page.route("**/table/roll/", lose_the_answer)
    page.locator("#roll-bar-failed [data-retry-roll]").click()
    expect(failed).to_be_visible()
    expect(page.get_by_test_id("roll-bar").locator(".roll")).to_have_attribute(
        "data-seq", "1", timeout=LIVE
    )

    # Trying again with the same tray sends the same key: the server answers with the
    # roll it made, and no second roll happens.
    page.unroute("**/table/roll/")
    failed.get_by_role("button").click()
    expect(failed).to_be_hidden()
    expect(page.locator("#tray-errors")).to_have_attribute("data-rolled", "1")
    assert RollEvent.objects.count() == 1
    shot(page, "2-retried-once")
    # The network failures were logged by the browser; nothing else was.
    assert all("ERR_" in error or "Failed to fetch" in error for error in errors), errors
    context.close()


def test_an_error_page_is_never_swapped_into_the_tray(browser, site_server, table):
    context, page, _errors = open_table(browser, site_server, "spelaren", table)
    page.get_by_label(re.compile("Tärningshand|Dice hand")).check()
    page.route(
        "**/table/roll/",
        lambda route: route.fulfill(status=502, body="<html><body>Bad gateway</body></html>"),
    )
    page.get_by_test_id("roll-bar-roll").click()
    expect(page.get_by_test_id("send-failed")).to_be_visible()
    expect(page.locator("#tray-form")).not_to_contain_text("Bad gateway")
    expect(page.locator("#tray-errors input[name=idempotency_key]")).to_have_count(1)
    context.close()


def test_a_player_without_a_character_rolls_hands_and_is_shown_the_way(
    browser, site_server, table, django_user_model, shot
):
    newcomer = real_user(django_user_model, "nykomlingen")
    Membership.objects.create(campaign=table, user=newcomer, seat=2)
    context, page, errors = open_table(browser, site_server, "nykomlingen", table)
    notice = page.get_by_test_id("no-character")
    expect(notice).to_be_visible()
    expect(notice.get_by_role("link", name=re.compile("Skapa|Make"))).to_have_attribute(
        "href", f"/characters/new/?campaign={table.pk}"
    )
    expect(notice.get_by_role("link", name=re.compile("Ta med|Bring"))).to_be_visible()
    expect(page.locator('input[name="properties"]')).to_have_count(0)
    page.locator('input[name="hand"]').fill("1B1T")
    expect(page.locator("#odds")).to_contain_text("1B1T")
    page.get_by_test_id("roll-bar-roll").click()
    expect(page.get_by_test_id("roll-bar").locator(".roll")).to_contain_text("1B1T", timeout=LIVE)
    shot(page, "1-no-character")
    assert errors == [], errors
    context.close()


def test_the_campaigns_news_arrives_in_the_log_live(
    browser, site_server, table, django_user_model, shot
):
    context, page, errors = open_table(browser, site_server, "spelaren", table)
    log = page.locator("#roll-log")

    # The GM, on a laptop, awards UP to the group and writes in the journal.
    gm_context = browser.new_context(viewport={"width": 1280, "height": 900})
    gm = gm_context.new_page()
    gm.goto(f"{site_server.url}/accounts/login/?next=/campaigns/{table.pk}/awards/")
    gm.fill("#id_username", "spelledaren")
    gm.fill("#id_password", PASSWORD)
    gm.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    gm.fill("#id_amount", "5")
    gm.fill("#id_reason", "Resan över fjällen")
    gm.locator("form.award-form").get_by_role(
        "button", name=re.compile("^(Dela ut UP|Award UP)$")
    ).click()
    expect(log.locator(".notice-award")).to_contain_text("Albert", timeout=LIVE)
    expect(log.locator(".notice-award")).to_contain_text("Resan över fjällen")
    expect(log.locator(".notice-award")).to_contain_text("5 UP")

    gm.goto(f"{site_server.url}/campaigns/{table.pk}/journal/")
    gm.fill("#id_title", "Session 4: Vid forsen")
    gm.fill("#id_body", "Albert simmade.")
    gm.locator("#new-entry").get_by_role(
        "button", name=re.compile("Lägg till i journalen|Add to the journal")
    ).click()
    expect(log.locator(".notice-journal")).to_contain_text("Session 4: Vid forsen", timeout=LIVE)

    # A new player joins with the code, on their own phone.
    real_user(django_user_model, "tredje")
    table.refresh_from_db()
    third_context = browser.new_context(viewport=PHONE)
    third = third_context.new_page()
    third.goto(f"{site_server.url}/accounts/login/?next=/campaigns/join/{table.invite_token}/")
    third.fill("#id_username", "tredje")
    third.fill("#id_password", PASSWORD)
    third.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    third.get_by_role("button", name=re.compile("Gå med|Join")).click()
    expect(log.locator(".member-event").first).to_contain_text("tredje", timeout=LIVE)
    expect(page.get_by_test_id("roll-bar").locator(".roll")).to_contain_text("tredje")
    shot(page, "1-news-in-the-log")

    # The journal line links to the entry.
    log.locator(".notice-journal a").click()
    expect(page).to_have_url(re.compile(r"/journal/#entry-\d+$"))
    expect(page.get_by_text("Albert simmade.")).to_be_visible()
    assert errors == [], errors
    for each in (third_context, gm_context, context):
        each.close()
