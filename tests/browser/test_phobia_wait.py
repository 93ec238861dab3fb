"""Invänta mål on the fight page (phobia-utdrag.txt lines 745-750), on a laptop: the
GM's guard (TO 99) keeps its one active action for Jace; just before Jace's turn the page
asks whether the guard acts now; it does (one active action), and then Jace's turn
begins. Each step's screenshot is kept."""

import re

import pytest
from playwright.sync_api import expect

from combat import services
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_fight_controls import log_in, phobia_round  # noqa: F401 (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"viewport": {"width": 1280, "height": 900}}


def panel_shot(page, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"test_phobia_wait-{name}.png"), full_page=True)


def test_the_guard_waits_for_jace_and_acts_just_before_his_turn_lines_745_750(
    browser, live_server, phobia_round  # noqa: F811
):
    context = browser.new_context(**LAPTOP)
    context.add_cookies([{"name": "django_language", "value": "en", "url": live_server.url}])
    page = context.new_page()
    log_in(page, live_server, phobia_round.get_absolute_url())

    page.get_by_test_id("declare-actions").fill("1")
    page.get_by_test_id("declare").click()
    turn = page.get_by_test_id("your-turn")
    expect(turn.get_by_test_id("action-wait_for")).to_be_enabled()
    expect(turn.get_by_test_id("action-reload")).to_be_disabled()  # a knife: nothing to load
    turn.get_by_test_id("wait-target").select_option(label="Jace")
    panel_shot(page, "1-turn")
    turn.get_by_test_id("action-wait_for").click()

    offer = page.get_by_test_id("prompt-wait_offer")
    expect(offer).to_contain_text("Vakten waits for Jace, whose turn is next")
    expect(page.get_by_test_id("combat-status")).to_contain_text("Vakten may act before Jace")
    panel_shot(page, "2-offer")
    offer.get_by_test_id("act-now").click()
    turn = page.get_by_test_id("your-turn")
    expect(turn).to_contain_text("Vakten's turn")
    turn.get_by_test_id("action-act").click()
    expect(page.get_by_test_id("combat-status")).to_contain_text(re.compile("Jace's turn"))
    expect(page.locator("body")).to_contain_text("Vakten acts before Jace.")
    panel_shot(page, "3-jaces-turn")
    state = services.folded(phobia_round.__class__.objects.get()).state
    guard = next(c for c in state.combatants if c.name == "Vakten")
    assert (guard.actives, guard.waiting, state.offer) == (1, None, None)
    context.close()
