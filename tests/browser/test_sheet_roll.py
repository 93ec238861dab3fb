"""Rolling from the character sheet on a phone (390 × 844), against the real server
process: the test is built by tapping properties, its chance shown (p. 5), the roll made at
the campaign's table and seen on another member's open table page; a favourite test saved
and used again; a send that fails says so and its retry rolls once."""

import re
import time

import pytest
from django.contrib.auth.hashers import make_password
from playwright.sync_api import expect

from campaigns.services import campaign_create, campaign_join
from characters.models import Character
from table.models import FavouriteTest, RollEvent
from tests.browser.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "hjortspår-i-frusen-mark"
ALBERT = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3}
PHONE = {"width": 390, "height": 844}
LIVE = 3_000  # ms: a roll shows on the other page within a second; allow for CI noise
ROLL = re.compile("^(Slå|Roll)$")


def real_user(django_user_model, username):
    """A user the server process can log in: hashed with the production hasher."""
    return django_user_model.objects.create(
        username=username, password=make_password(PASSWORD, hasher="pbkdf2_sha256")
    )


@pytest.fixture
def albert(django_user_model):
    gm = real_user(django_user_model, "spelledaren")
    player = real_user(django_user_model, "spelaren")
    other = real_user(django_user_model, "tvåan")
    campaign = campaign_create(gm=gm, name="Nattens kant")
    campaign_join(campaign=campaign, user=player)
    campaign_join(campaign=campaign, user=other)
    return Character.objects.create(
        owner=player, campaign=campaign, name="Albert", attributes=ALBERT, skills={"firearms": 2}
    )


def log_in(browser, site_server, username, path):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{site_server.url}/accounts/login/?next={path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    expect(page).to_have_url(re.compile(re.escape(path) + "$"))
    return context, page


def in_view(page, name):
    """What the phone's screen shows (shot() takes the whole page, where the roll bar that
    sticks to the bottom of the screen is drawn wherever the page was scrolled to)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"test_sheet_roll-phone-{name}.png"))


def toggle(page, key):
    return page.locator(f'#roll-form label.toggle:has(input[value="{key}"])')


def test_a_player_rolls_from_the_sheet_on_a_phone(browser, site_server, albert, shot):
    campaign = albert.campaign
    campaign.refresh_from_db()
    seq = campaign.event_seq + 1  # the first roll's number (the joins were numbered too)
    table_path = f"/campaigns/{campaign.pk}/table/"
    other_context, other = log_in(browser, site_server, "tvåan", table_path)
    expect(other.locator("#live-status")).to_have_attribute("data-state", "live")
    context, page = log_in(browser, site_server, "spelaren", f"/characters/{albert.pk}/")

    # The levels are shown; Vildmark (level 0) waits behind "show all".
    expect(page.get_by_test_id("level-alertness")).to_have_text("5")
    expect(page.get_by_test_id("level-firearms")).to_have_text("2")
    expect(toggle(page, "wilderness")).to_be_hidden()
    box = toggle(page, "alertness").bounding_box()
    assert box["height"] >= 44, f"a toggle is {box['height']} px high: too small for a thumb"
    shot(page, "1-roller")
    in_view(page, "1-roller")

    # p. 5: SIN + Vildmark has GST 8; Albert's TB is 5 + 0; 1B1T succeeds on 3+: 44.4 %.
    toggle(page, "alertness").click()
    page.get_by_test_id("show-all-skills").click()
    toggle(page, "wilderness").click()
    expect(page.get_by_test_id("odds-gst")).to_have_text("8")
    expect(page.get_by_test_id("odds-tb")).to_have_text("5")
    expect(page.get_by_test_id("odds-percent")).to_have_text("44,4 %")
    # Keyboard: Space on a focused toggle takes it out of the test and back in.
    toggle(page, "wilderness").locator("input").focus()
    page.keyboard.press("Space")
    expect(page.get_by_test_id("odds-gst")).to_have_text("6")
    page.keyboard.press("Space")
    expect(page.get_by_test_id("odds-gst")).to_have_text("8")
    shot(page, "2-test-built")

    # Roll: the result shows by the button, in view, and at the table on the other phone.
    page.get_by_role("button", name=ROLL).click()
    result = page.get_by_test_id("sheet-roll-result")
    expect(result).to_have_attribute("data-rolled", str(seq))
    expect(result).to_contain_text("SIN + Vildmark")
    expect(result).to_contain_text(re.compile(r"(mot|vs) ST 8"))
    expect(result.get_by_test_id("sheet-roll-outcome")).to_have_text(
        re.compile("^(lyckat|misslyckat|success|failure)$")
    )
    expect(result).to_be_in_viewport()
    expect(page.get_by_role("button", name=ROLL)).to_be_in_viewport()
    shot(page, "3-rolled")
    in_view(page, "3-rolled")
    expect(other.locator(f"#roll-{seq}")).to_contain_text("SIN + Vildmark", timeout=LIVE)
    expect(other.locator(f"#roll-{seq}")).to_contain_text("Albert")
    shot(other, "4-other-member-sees-the-roll")
    event = RollEvent.objects.get()
    assert (event.character_id, event.actor.username, event.test_base, event.threshold) == (
        albert.pk,
        "spelaren",
        5,
        8,
    )

    # Save the test as a favourite, change the test, then load the favourite with one tap.
    page.get_by_label(re.compile("favorit|favourite", re.IGNORECASE)).fill("Spana")
    page.locator("#favourite-form").get_by_role("button", name=re.compile("^(Spara|Save)$")).click()
    favourite = page.locator("#favourites a[data-favourite]", has_text="Spana")
    expect(favourite).to_be_visible()
    expect(page.locator('#favourite-form input[name="favourite_name"]')).to_have_value("")
    saved = FavouriteTest.objects.get()
    assert (saved.character_id, saved.properties) == (albert.pk, ["alertness", "wilderness"])
    toggle(page, "alertness").click()
    toggle(page, "firearms").click()
    expect(page.get_by_test_id("odds-tb")).to_have_text("2")
    favourite.click()
    expect(page.get_by_test_id("odds-gst")).to_have_text("8")
    expect(page.get_by_test_id("odds-tb")).to_have_text("5")
    expect(toggle(page, "alertness").locator("input")).to_be_checked()
    expect(toggle(page, "firearms").locator("input")).not_to_be_checked()
    expect(toggle(page, "wilderness").locator("input")).to_be_checked()
    shot(page, "5-favourite-loaded")

    # The answer is lost on the way: the server rolled, the phone heard nothing. The page
    # says so; "Try again" sends the same key, and the server answers with that roll.
    def lose_the_answer(route):
        route.fetch()
        route.abort()

    page.route("**/roll/", lose_the_answer)
    page.get_by_role("button", name=ROLL).click()
    failed = page.get_by_test_id("roll-failed")
    expect(failed).to_be_visible()
    expect(failed).to_contain_text(re.compile("inte|not"))
    expect(result).to_have_attribute("data-rolled", str(seq))  # the old result stays as it was
    shot(page, "6-send-failed")
    in_view(page, "6-send-failed")
    assert RollEvent.objects.count() == 2
    page.unroute("**/roll/")
    failed.get_by_role("button", name=re.compile("Försök igen|Try again")).click()
    expect(result).to_have_attribute("data-rolled", str(seq + 1))
    expect(failed).to_be_hidden()
    assert RollEvent.objects.count() == 2, "the retry rolled a second time"
    expect(other.locator(f"#roll-{seq + 1}")).to_be_visible(timeout=LIVE)
    expect(other.locator(f"#roll-{seq + 2}")).to_have_count(0)
    shot(page, "7-retried-once")

    # Offline: nothing reaches the server; the retry once back online rolls once.
    context.set_offline(True)
    page.get_by_role("button", name=ROLL).click()
    expect(failed).to_be_visible()
    context.set_offline(False)
    failed.get_by_role("button", name=re.compile("Försök igen|Try again")).click()
    expect(result).to_have_attribute("data-rolled", str(seq + 2))
    assert RollEvent.objects.count() == 3

    # The printed sheet is unchanged: the roller stays off paper, one A4 page.
    page.emulate_media(media="print")
    expect(page.locator("#roller")).to_be_hidden()
    expect(page.get_by_test_id("attr-alertness")).to_be_visible()
    shot(page, "8-print")
    pdf = page.pdf(format="A4", print_background=True)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages == 1, f"the character sheet printed on {pages} A4 pages"

    other_context.close()
    context.close()


def test_the_last_tap_wins_while_an_earlier_chance_is_still_on_its_way(
    browser, site_server, albert
):
    """A slow network: the chance of the first tap is held back while the player taps
    again. htmx waits with the second request until the first answers; the screen must end
    on the second tap's chance, not the first's (the section the answers fill stays in the
    page; with an outerHTML swap the second answer went into the detached element)."""
    context, page = log_in(browser, site_server, "spelaren", f"/characters/{albert.pk}/")
    held = []

    def hold_the_first(route):
        if not held:
            held.append(route)  # answered below, after the second tap
        else:
            route.continue_()

    page.route(re.compile(rf"/characters/{albert.pk}/\?"), hold_the_first)
    toggle(page, "alertness").click()  # TB 5: its answer is held
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(20)
    assert len(held) == 1, "the first tap's request did not go out"
    toggle(page, "alertness").click()  # out again: its request waits in htmx's queue
    toggle(page, "firearms").click()  # TB 2 (firearms 2): the last tap
    expect(toggle(page, "firearms").locator("input")).to_be_checked()
    assert len(held) == 1, "a later tap's request went out before the first was answered"
    held[0].continue_()
    expect(page.get_by_test_id("odds-tb")).to_have_text("2")
    expect(page.locator("#odds")).to_have_count(1)
    expect(toggle(page, "firearms").locator("input")).to_be_checked()
    context.close()
