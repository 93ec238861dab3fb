"""The table's own dice at the tray (issue 48), on a phone, with the GM's laptop beside
it: the player picks the test and sees its chance, taps the dice on the keypad (one tap a
die, the count told by the hand), rolls, and both pages show the roll with those faces,
marked as typed in. Aoristos: a 1B1T test; Phobia: a six that is rolled again, asked for
as it comes; T10: 2T10 with its ten typed as 10."""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from campaigns.services import campaign_create
from characters.models import Character
from table.models import RollEvent
from tests.browser.test_live_table import ALBERT, LIVE, real_user
from tests.browser.test_phobia import LAPTOP, PHONE, OddsRequests, device, log_in
from tests.browser.test_phobia_tray import english, in_view
from tests.conftest import PHOBIA_ATTRIBUTES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def table_of(browser, site_server, system, django_user_model):
    gm_user = real_user(django_user_model, "tarningsledaren")
    player_user = real_user(django_user_model, "tarningsspelaren")
    campaign = campaign_create(gm=gm_user, name=f"Egna tärningar {system}", rule_system=system)
    Campaign.objects.filter(pk=campaign.pk).update(dice_source="players")
    Membership.objects.create(campaign=campaign, user=player_user, seat=1)
    if system == "aoristos":
        Character.objects.create(owner=player_user, campaign=campaign, name="Albert",
                                 attributes=ALBERT)
    elif system == "phobia":
        Character.objects.create(owner=player_user, campaign=campaign, name="Jace",
                                 rule_system="phobia", attributes=PHOBIA_ATTRIBUTES,
                                 skills={"climbing": 14}, rolled={"calm": [3, 5]})
    else:
        from tests.browser.test_t10_combat import JOHAN_ATTRIBUTES, JOHAN_SKILLS

        Character.objects.create(owner=player_user, campaign=campaign, name="Johan",
                                 rule_system="t10", attributes=JOHAN_ATTRIBUTES,
                                 skills=JOHAN_SKILLS)
    pages = []
    for who, kind in (("tarningsledaren", LAPTOP), ("tarningsspelaren", PHONE)):
        context, page, _watch = device(browser, kind)
        english(context, site_server)
        log_in(page, site_server, who, f"/campaigns/{campaign.pk}/table/")
        expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
        pages.append(page)
    return campaign, pages[0], pages[1]


def tap(page, *faces):
    keypad = page.get_by_test_id("keypad")
    for face in faces:
        keypad.get_by_test_id(f"key-{face}").click()


def roll(page):
    page.locator("#tray-form").get_by_role("button", name=re.compile("^Roll$")).click()


def test_a_player_taps_an_aoristos_tests_dice_and_every_page_shows_them(
    browser, site_server, django_user_model, request, shot
):
    campaign, gm, player = table_of(browser, site_server, "aoristos", django_user_model)
    odds = OddsRequests(player)
    expect(gm.get_by_test_id("keypad")).to_have_count(0)  # the server rolls the GM's
    expect(player.get_by_test_id("dice-source")).to_contain_text("The players roll")
    player.locator('input[name="properties"][value="alertness"]').check()
    odds.settle()
    expect(player.get_by_test_id("odds-percent")).to_be_visible()
    need = player.get_by_test_id("keypad-need")
    expect(need).to_have_text("Tap each die as it lies: 0 of 2")
    tap(player, 5, 2)
    expect(need).to_have_text("All 2 dice typed: roll it.")
    expect(player.get_by_test_id("keypad-faces").locator("li")).to_have_text(["5", "2"])
    in_view(request, player, "1-aoristos-keypad")
    roll(player)
    for page in (gm, player):
        line = page.locator("#roll-log li.roll").first
        expect(line).to_contain_text("own dice, typed in by tarningsspelaren", timeout=LIVE)
        expect(line.locator(".faces .die")).to_have_text(["5", "2"])
        expect(line.locator(".faces .die.counted")).to_have_text(["2"])  # 1B1T: the lower
    expect(player.get_by_test_id("keypad-faces").locator("li")).to_have_count(0)
    event = RollEvent.objects.get(campaign=campaign)
    assert (event.dice, event.counted, event.typed_in) == ([5, 2], [2], True)
    shot(gm, "1-aoristos-gm")
    # The GM asks for it again (the site never claims the dice were rolled): only the
    # GM's page offers it; the table hears it.
    expect(player.get_by_test_id("ask-again")).to_have_count(0)
    gm.locator("#roll-log li.roll").first.get_by_test_id("ask-again").click()
    for page in (gm, player):
        expect(page.locator("#roll-log li").first).to_contain_text(
            f"The GM asks tarningsspelaren to roll #{event.seq} again", timeout=LIVE)
    in_view(request, player, "2-aoristos-rolled")


def test_a_phobia_six_is_rolled_again_and_asked_for_as_it_comes(
    browser, site_server, django_user_model, request, shot
):
    campaign, gm, player = table_of(browser, site_server, "phobia", django_user_model)
    odds = OddsRequests(player)
    player.locator("select[name=stat]").select_option("climbing")
    odds.settle()
    expect(player.get_by_test_id("odds-dice")).to_have_text("Ob3T6")
    need = player.get_by_test_id("keypad-need")
    expect(need).to_have_text("Tap each die as it lies: 0 of 3")
    tap(player, 6, 2, 4)
    roll(player)
    expect(player.locator("#tray-errors")).to_contain_text("2 more dice")
    expect(need).to_have_text("The roll takes more dice (sixes rolled again): tap 2 more")
    expect(player.get_by_test_id("keypad-faces").locator("li")).to_have_text(["6", "2", "4"])
    assert not RollEvent.objects.filter(campaign=campaign).exists()
    in_view(request, player, "3-phobia-more")
    tap(player, 1, 3)
    roll(player)
    line = gm.locator("#roll-log li.roll").first
    expect(line).to_contain_text("own dice, typed in by tarningsspelaren", timeout=LIVE)
    event = RollEvent.objects.get(campaign=campaign)
    assert (event.dice, event.result, event.detail["rerolls"]) == ([6, 2, 4, 1, 3], 10, [1, 3])
    shot(gm, "4-phobia-gm")


def test_a_t10_roll_takes_its_ten(browser, site_server, django_user_model, request, shot):
    campaign, gm, player = table_of(browser, site_server, "t10", django_user_model)
    odds = OddsRequests(player)
    player.locator("select[name=stat]").select_option("pistol")
    odds.settle()
    expect(player.get_by_test_id("keypad-need")).to_have_text("Tap each die as it lies: 0 of 2")
    tap(player, 10, 7)
    roll(player)
    line = gm.locator("#roll-log li.roll").first
    expect(line).to_contain_text("own dice, typed in by tarningsspelaren", timeout=LIVE)
    assert RollEvent.objects.get(campaign=campaign).dice == [10, 7]
    in_view(request, player, "5-t10-keypad")


def test_a_player_taps_the_sheets_test_on_its_keypad_and_the_table_shows_it(
    browser, site_server, django_user_model, request, shot
):
    """The sheet's roller takes the table's own dice as the tray does: the test built by
    tapping properties tells the keypad its dice (1B1T: two), a short entry asks for more,
    the typed faces make the roll, and the GM's table shows it typed in."""
    campaign, gm, player = table_of(browser, site_server, "aoristos", django_user_model)
    albert = Character.objects.get(campaign=campaign, name="Albert")
    player.goto(f"{site_server.url}/characters/{albert.pk}/")
    player.locator('#roll-form label.toggle:has(input[value="alertness"])').click()
    expect(player.get_by_test_id("odds-percent")).to_be_visible(timeout=LIVE)
    need = player.get_by_test_id("keypad-need")
    expect(need).to_have_text("Tap each die as it lies: 0 of 2")
    tap(player, 5)
    player.get_by_test_id("sheet-roll").click()
    result = player.get_by_test_id("sheet-roll-result")
    expect(result).to_have_attribute("data-more", "1")
    assert not RollEvent.objects.filter(campaign=campaign).exists()
    tap(player, 2)
    expect(need).to_have_text("All 2 dice typed: roll it.")
    in_view(request, player, "6-sheet-keypad")
    player.get_by_test_id("sheet-roll").click()
    expect(result.get_by_test_id("sheet-roll-typed-in")).to_be_visible(timeout=LIVE)
    expect(player.get_by_test_id("keypad-faces").locator("li")).to_have_count(0)
    line = gm.locator("#roll-log li.roll").first
    expect(line).to_contain_text("own dice, typed in by tarningsspelaren", timeout=LIVE)
    expect(line.locator(".faces .die")).to_have_text(["5", "2"])
    assert RollEvent.objects.get(campaign=campaign).typed_in
    shot(player, "6-sheet-rolled")
