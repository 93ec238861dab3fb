"""After the fight, on two devices against the real server process (issue 9): the GM on a
laptop wounds Albert outside a fight, gives first aid and moves time to the first weekly
healing test; the player's phone shows every step live, and Albert's sheet shows the
body and the timeline.

The server's dice cannot be scripted, so the figures make the outcome certain where it
matters: a wound of 3 on the left arm breaks it and bleeds 2 (p. 13-14, no organtrauma
and no survival roll); first aid with Livräddning 1 takes 1 (p. 14); 5 minutes later the
last 1 turns into blood loss and the tick adds 1 organtrauma with a 2B2T survival roll
against 1, which cannot fail (the lowest two dice count at least 2), and the resting body
loses the blood loss again. The weekly healing test (GST 4, outdoors, thorough rest, no
care: ST 4) then falls on the night to Monday; its 1B1T is the one die left to chance,
and either outcome must show on both pages and the sheet.
"""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from tests.browser.test_combat import DESKTOP, LIVE, PASSWORD, PHONE, real_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def albert(django_user_model):
    gm = real_user(django_user_model, "spelledaren")
    player = real_user(django_user_model, "spelaren")
    campaign = campaign_create(gm=gm, name="Nattens kant")
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    return Character.objects.create(
        owner=player, campaign=campaign, name="Albert",
        attributes={"physique": 3, "composure": 3, "agility": 2, "alertness": 5,
                    "willpower": 5},
        skills={"first_aid": 1},
    )


def log_in(browser, site_server, username, viewport, path):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site_server.url}/accounts/login/?next={path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    return context, page, errors


def at_version(pages, number):
    for page in pages:
        expect(page.get_by_test_id("encounter-state")).to_have_attribute(
            "data-version", str(number), timeout=LIVE
        )


def test_a_wound_first_aid_and_the_first_healing_test_on_two_devices(
    browser, site_server, albert, shot
):
    path = f"/campaigns/{albert.campaign_id}/chronicle/"
    body = f"ch{albert.pk}"
    # The GM opens the chronicle first: Albert gets his body (version 1).
    gm_context, gm, gm_errors = log_in(browser, site_server, "spelledaren", DESKTOP, path)
    expect(gm.get_by_test_id(f"body-{body}")).to_be_visible()
    player_context, player, player_errors = log_in(
        browser, site_server, "spelaren", PHONE, path
    )
    for page in (gm, player):
        expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    at_version([gm, player], 1)
    expect(player.get_by_test_id("chronicle-gm")).to_have_count(0)
    panel = gm.get_by_test_id("chronicle-gm")

    # A wound outside a fight: 3 on the left arm (p. 13-14).
    wound = panel.locator('form:has(input[name="type"][value="add_wound"])')
    wound.locator('select[name="area"]').select_option("left_arm")
    wound.locator('input[name="damage"]').fill("3")
    wound.locator('input[name="source"]').fill("Taggtråden")
    wound.get_by_role("button").click()
    at_version([gm, player], 2)
    expect(player.get_by_test_id(f"bleed-{body}")).to_have_text("2")
    expect(player.get_by_test_id(f"body-{body}")).to_contain_text(re.compile("bruten|broken"))
    shot(player, "01-player-sees-the-wound")

    # First aid before the 5-minute mark: Albert helps himself with the Livräddning 1 of
    # his sheet (no level asked), no equipment judged.
    aid = gm.get_by_test_id("first-aid-form")
    aid.get_by_test_id("first-aid-helper").select_option(str(albert.pk))
    expect(aid.get_by_test_id("first-aid-level")).to_be_hidden()
    aid.get_by_test_id("first-aid-submit").click()
    at_version([gm, player], 3)
    expect(player.get_by_test_id(f"bleed-{body}")).to_have_text("1")

    # Five minutes: the bleeding turns into blood loss and the tick adds organtrauma;
    # Albert rests, so the blood loss falls to 0 at once.
    gm.get_by_test_id("advance-amount").fill("5")
    gm.get_by_test_id("advance-unit").select_option("minutes")
    gm.get_by_test_id("advance-submit").click()
    at_version([gm, player], 4)
    expect(player.get_by_test_id(f"trauma-{body}")).to_contain_text("1")
    expect(player.get_by_test_id(f"blood-loss-{body}")).to_have_text("0")
    expect(player.locator("#roll-log")).to_contain_text(re.compile("blodförlust|blood loss"))
    expect(player.get_by_test_id(f"body-{body}")).to_contain_text(
        re.compile("veckovisa läkningstest|weekly healing test", re.I)
    )
    shot(gm, "02-gm-after-five-minutes")

    # A week: the first healing test on the night to Monday 12 January.
    gm.get_by_test_id("advance-amount").fill("1")
    gm.get_by_test_id("advance-unit").select_option("weeks")
    gm.get_by_test_id("advance-submit").click()
    at_version([gm, player], 5)
    healing = player.locator("#roll-log .chronicle-healingtest").first
    expect(healing).to_contain_text(re.compile("1B1T"), timeout=LIVE)
    healed = bool(re.search("läker|heals", healing.inner_text()))
    trauma = "0" if healed else "1"
    expect(player.get_by_test_id(f"trauma-{body}")).to_contain_text(trauma)
    shot(player, "03-player-sees-the-healing-test")

    # The sheet shows the body and the timeline, its entries linked to the chronicle.
    player.goto(f"{site_server.url}/characters/{albert.pk}/")
    sheet = player.get_by_test_id("body")
    expect(sheet).to_contain_text(re.compile("bruten|broken", re.I))
    expect(sheet.get_by_test_id("body-trauma")).to_contain_text(trauma)
    timeline = player.get_by_test_id("timeline")
    newest = timeline.get_by_test_id("timeline-entry").first
    expect(newest).to_contain_text(re.compile("läkningstest|healing test", re.I))
    shot(player, "04-sheet-shows-the-body")
    # Each entry links to its record in the table's log, which shows the same test.
    newest.locator("a").click()
    expect(player.locator("main")).to_contain_text(re.compile("1B1T"))
    shot(player, "05-the-record-in-the-log")

    assert gm_errors == []
    assert player_errors == []
    gm_context.close()
    player_context.close()
