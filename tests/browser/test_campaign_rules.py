"""The campaign's rules at the door and after (issue 7; p. 3: UP and the level cap), on
phones (390 × 844): a player's too-strong character is refused with the reasons and sent
to the GM, who lets it in with a note; the GM raises the campaign's cap and the player's
builder and advancement page use it at once; a lower cap that would cut levels is refused.

Data the flows start from is made through the services; what the flow is about happens
through the pages. Text is matched in either language, or by data-testid.
"""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import BringRequest
from campaigns.services import campaign_create, campaign_join
from characters.models import Character
from tests.browser.test_campaign_flows import (
    PASSWORD,
    PHONE,
    SAVE,
    device,
    log_in,
    overflow,
    user,
)
from tests.browser.watch import PageWatch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STRONG = {"physique": 3, "composure": 3, "agility": 3, "alertness": 3, "willpower": 3}
NOTE = "Vera var legosoldat i tio år; hon får komma med som hon är."


@pytest.fixture
def vardag(django_user_model):
    """Vardag (15 starting UP, level cap 5), run by spelledaren, with spelaren."""
    gm, player = (
        django_user_model.objects.create_user(name, password=PASSWORD)
        for name in ("spelledaren", "spelaren")
    )
    campaign = campaign_create(gm=gm, name="Vardag", starting_dp=15, level_cap=5)
    campaign_join(campaign=campaign, user=player)
    return campaign


def bring_form(page):
    return page.locator("form[action$='/characters/']")


def test_too_strong_character_refused_then_let_in_by_the_gm_with_a_note(
    browser, live_server, vardag, shot
):
    """p. 3: 500 UP and Skjutvapen 8 do not fit a 15 UP, cap 5 campaign; the GM may still
    let the character in, and says why."""
    Character.objects.create(
        owner=user("spelaren"),
        name="Vera",
        dp_budget=500,
        level_cap=30,
        attributes=STRONG,
        skills={"firearms": 8},
    )
    campaign_url = f"/campaigns/{vardag.pk}/"
    player_context, player = device(browser, PHONE)
    player_watch = PageWatch(player)
    log_in(player, live_server, "spelaren", campaign_url)

    bring_form(player).locator("select").select_option(label="Vera")
    bring_form(player).get_by_role("button").click()
    refusal = player.get_by_test_id("bring-refusal")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("Skjutvapen 8")  # above the cap 5
    expect(refusal).to_contain_text("485")  # 500 UP where 15 are allowed
    expect(refusal).to_contain_text(re.compile("15"))
    refusal.scroll_into_view_if_needed()
    shot(player, "1-refused-with-reasons")
    assert overflow(player) == 0, f"the page is {overflow(player)} px too wide"
    assert Character.objects.get(name="Vera").campaign_id is None

    player.get_by_test_id("bring-ask-gm").click()
    mine = player.get_by_test_id("my-bring-requests")
    expect(mine).to_contain_text("Vera")
    expect(mine).to_contain_text(re.compile("Väntar på SL|Waiting for the GM", re.I))
    shot(player, "2-sent-to-the-gm")

    gm_context, gm = device(browser, PHONE)
    gm_watch = PageWatch(gm)
    log_in(gm, live_server, "spelledaren", campaign_url)
    waiting = gm.get_by_test_id("bring-request").filter(has_text="Vera")
    expect(waiting).to_contain_text("Skjutvapen 8")
    waiting.locator("textarea").fill(NOTE)
    waiting.scroll_into_view_if_needed()
    shot(gm, "3-gm-sees-the-request")
    waiting.locator("button[value=accept]").click()

    note = gm.get_by_test_id("bring-note")
    expect(note).to_contain_text(NOTE)
    expect(gm.locator("#seats")).to_contain_text("Vera")
    expect(gm.get_by_test_id("bring-requests")).to_have_count(0)
    note.scroll_into_view_if_needed()
    shot(gm, "4-let-in-with-a-note")
    assert overflow(gm) == 0, f"the page is {overflow(gm)} px too wide"

    player.goto(f"{live_server.url}{campaign_url}")
    expect(player.get_by_test_id("bring-note")).to_contain_text(NOTE)
    shot(player, "5-player-reads-the-note")

    vera = Character.objects.get(name="Vera")
    assert vera.campaign_id == vardag.pk
    request = BringRequest.objects.get(character=vera)
    assert (request.status, request.note) == (BringRequest.Status.ACCEPTED, NOTE)
    assert player_watch.problems == [], player_watch.problems
    assert gm_watch.problems == [], gm_watch.problems
    assert player_watch.refusals == gm_watch.refusals == 0
    player_context.close()
    gm_context.close()


def test_gm_raises_the_cap_and_the_builder_and_advancement_use_it(
    browser, live_server, vardag, shot
):
    """p. 3: the campaign's level cap is every character's, and only the GM moves it."""
    stina = Character.objects.create(
        owner=user("spelaren"),
        name="Stina",
        campaign=vardag,
        dp_budget=15,
        level_cap=5,
        skills={"firearms": 5},  # 10 UP: 5 saved, and Skjutvapen 6 costs 5
    )
    player_context, player = device(browser, PHONE)
    player_watch = PageWatch(player)
    log_in(player, live_server, "spelaren", f"/characters/{stina.pk}/advancement/")
    expect(player.get_by_test_id("level-firearms")).to_have_text("5")
    expect(player.get_by_test_id("raise-firearms")).to_be_disabled()
    expect(player.get_by_test_id("blocked-firearms")).to_contain_text("5")
    shot(player, "1-advancement-at-cap-5")

    gm_context, gm = device(browser, PHONE)
    gm_watch = PageWatch(gm)
    log_in(gm, live_server, "spelledaren", f"/campaigns/{vardag.pk}/edit/")
    gm.fill("#id_level_cap", "6")
    gm.get_by_role("button", name=SAVE).click()
    expect(gm).to_have_url(re.compile(rf"/campaigns/{vardag.pk}/$"))
    expect(gm.locator("ul.messages")).to_contain_text("6")
    shot(gm, "2-gm-raised-the-cap")

    # The builder checks the new cap: 7 is refused with the cap 6 named, 6 is fine.
    player.goto(f"{live_server.url}/characters/{stina.pk}/edit/")
    expect(player.locator("#id_level_cap")).to_have_value("6")
    player.fill("#id_firearms", "7")
    expect(player.locator("#status-firearms .error")).to_contain_text("6")
    player.locator("#id_firearms").scroll_into_view_if_needed()
    shot(player, "3-builder-uses-cap-6")
    player.fill("#id_firearms", "5")
    expect(player.locator("#status-firearms .error")).to_have_count(0)

    # Advancement: Skjutvapen 6 is now within the cap.
    player.goto(f"{live_server.url}/characters/{stina.pk}/advancement/")
    expect(player.get_by_test_id("raise-firearms")).to_be_enabled()
    player.get_by_test_id("raise-firearms").click()
    expect(player.get_by_test_id("level-firearms")).to_have_text("6")
    shot(player, "4-raised-to-6")
    assert overflow(player) == 0, f"the page is {overflow(player)} px too wide"

    # A lower cap would cut Skjutvapen 6: refused, with what stops it, the form as typed.
    gm.goto(f"{live_server.url}/campaigns/{vardag.pk}/edit/")
    gm.fill("#id_level_cap", "5")
    with gm.expect_response(re.compile(r"/edit/$")) as answer:
        gm.get_by_role("button", name=SAVE).click()
    assert answer.value.status == 400
    expect(gm.locator(".field.invalid")).to_contain_text("Stina (Skjutvapen 6)")
    expect(gm.locator("#id_level_cap")).to_have_value("5")
    shot(gm, "5-lower-cap-refused")
    vardag.refresh_from_db()
    assert vardag.level_cap == 6

    assert player_watch.problems == [], player_watch.problems
    # The refused save answers 400 (as every refused form here): that one and nothing else.
    assert gm_watch.problems == [], gm_watch.problems
    assert (player_watch.refusals, gm_watch.refusals) == (0, 1)
    player_context.close()
    gm_context.close()
