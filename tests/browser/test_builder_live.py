"""The builder's live check in a real browser (issue 7): totals that never vanish, errors
marked on their own field and cleared when fixed, a refused save's "Not saved" list and
focus, one saved-UP figure, and a plain POST save without JavaScript."""

import re

import pytest
from playwright.sync_api import expect

from characters import services
from characters.models import Character
from rules.aoristos.character import attribute_cost
from tests.browser.conftest import SCREENSHOTS
from tests.browser.watch import PageWatch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "hjortspår-i-frusen-mark"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
SAVE = re.compile("^(Spara|Save)$")


def log_in(page, live_server, username, next_path):
    page.goto(f"{live_server.url}/accounts/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("^(Logga in|Log in)$")).click()
    expect(page).to_have_url(re.compile(re.escape(next_path) + "$"))
    # The URL changes before the page's deferred scripts run: a field filled before
    # builder.js listens would never ask for its totals.
    page.wait_for_load_state("load")


def save(page):
    """Save once the live checks on their way have answered: leaving the page aborts a
    check in flight, which the Watch would count as a failed request."""
    page.wait_for_load_state("networkidle")
    page.get_by_role("button", name=SAVE).click()


@pytest.fixture
def player(django_user_model):
    return django_user_model.objects.create_user("byggaren", password=PASSWORD)


@pytest.fixture
def view_shot(request):
    """Like shot, but only what is in view: where the focus and the thumb are."""

    def take(page, name):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{request.node.name}-{name}-in-view.png"
        page.screenshot(path=str(path))
        return path

    return take


def expect_marked(page, key):
    field = page.locator(f"#id_{key}")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_attribute("aria-describedby", re.compile(rf"\bid_{key}_error\b"))
    expect(page.locator(f"#id_{key}_error")).to_be_visible()
    expect(
        field.locator(
            "xpath=ancestor::*[contains(@class,'stepper') or contains(@class,'field')][1]"
        )
    ).to_have_class(re.compile(r"\binvalid\b"))


def expect_clear(page, key):
    field = page.locator(f"#id_{key}")
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator(f"#id_{key}_error")).to_have_count(0)
    expect(
        field.locator(
            "xpath=ancestor::*[contains(@class,'stepper') or contains(@class,'field')][1]"
        )
    ).not_to_have_class(re.compile(r"\binvalid\b"))


def test_rapid_stepper_clicks_end_on_the_newest_totals(page, live_server, player, shot):
    """Twelve clicks as fast as Playwright can: the last answer shown is the newest."""
    page.set_viewport_size(DESKTOP)
    watch = PageWatch(page)
    log_in(page, live_server, "byggaren", "/characters/new/")
    page.fill("#id_dp_budget", "500")
    page.fill("#id_level_cap", "30")
    expect(page.get_by_test_id("dp-spent")).to_have_text("0")
    raise_fys = page.locator('button[data-for="id_physique"][data-step="1"]')
    for _ in range(12):
        raise_fys.click(delay=0)
    expect(page.locator("#id_physique")).to_have_value("13")
    expect(page.get_by_test_id("dp-spent")).to_have_text(str(attribute_cost(13)))
    expect(page.locator("#status-physique .cost")).to_have_text(f"{attribute_cost(13)} UP")
    expect(page.get_by_test_id("secondary-carrying_capacity")).to_have_text("52")
    # Nothing later overwrites it with an older answer: every answer is in.
    watch.quiet()
    expect(page.get_by_test_id("dp-spent")).to_have_text(str(attribute_cost(13)))
    expect(page.locator("#status-physique .cost")).to_have_text(f"{attribute_cost(13)} UP")
    shot(page, "after-12-clicks")
    assert watch.problems == []


def test_totals_stay_while_a_field_is_empty_and_errors_mark_their_field(
    page, live_server, player, shot, view_shot
):
    page.set_viewport_size(PHONE)
    watch = PageWatch(page)
    log_in(page, live_server, "byggaren", "/characters/new/")
    page.fill("#id_alertness", "5")
    expect(page.get_by_test_id("dp-spent")).to_have_text("20")
    expect(page.get_by_test_id("saved-dp")).to_have_text("13")

    # Emptied while retyping: the totals and SIN's cost stay, from SIN 5; SIN is marked.
    page.fill("#id_alertness", "")
    expect_marked(page, "alertness")
    expect(page.get_by_test_id("dp-spent")).to_have_text("20")
    expect(page.locator("#status-alertness .cost")).to_have_text("20 UP")
    expect(page.get_by_test_id("secondary-drive")).to_have_text("7")
    shot(page, "1-empty-field-keeps-totals")
    page.locator("#id_alertness").evaluate("e => e.scrollIntoView({block: 'center'})")
    view_shot(page, "1-empty-field-keeps-totals")
    page.fill("#id_alertness", "4")
    expect_clear(page, "alertness")
    expect(page.get_by_test_id("dp-spent")).to_have_text("10")

    # Above the cap: marked live, beside SIN; one stepper click down clears it.
    page.fill("#id_alertness", "6")
    expect_marked(page, "alertness")
    expect(page.locator("#id_alertness_error")).to_contain_text("6")
    page.locator('button[data-for="id_alertness"][data-step="-1"]').click()
    expect_clear(page, "alertness")
    expect(page.get_by_test_id("dp-spent")).to_have_text("20")

    # Over budget is the build's problem: UP left in red in the totals, no mark on the
    # budget field.
    page.fill("#id_physique", "5")
    expect(page.get_by_test_id("dp-spent")).to_have_text("40")
    expect(page.get_by_test_id("saved-dp")).to_have_text("-7")
    expect(page.get_by_test_id("build-problems")).to_contain_text("40")
    expect_clear(page, "dp_budget")
    colour = page.get_by_test_id("saved-dp").evaluate("e => getComputedStyle(e).color")
    # On a phone the UP line is a dark bar; red there is a lighter red.
    assert colour != page.locator("#summary .dp").evaluate("e => getComputedStyle(e).color")
    shot(page, "2-over-budget")
    page.locator("#id_physique").evaluate("e => e.scrollIntoView({block: 'center'})")
    view_shot(page, "2-over-budget")
    assert watch.problems == []


def test_refused_save_shows_not_saved_focuses_the_first_wrong_field_and_keeps_input(
    page, live_server, player, shot, view_shot
):
    page.set_viewport_size(PHONE)
    watch = PageWatch(page)
    log_in(page, live_server, "byggaren", "/characters/new/")
    page.fill("#id_concept", "Hårdkokt modern livvakt")
    page.fill("#id_alertness", "6")
    page.fill("#id_physique", "31")
    save(page)

    not_saved = page.get_by_test_id("not-saved")
    expect(not_saved).to_be_visible()
    expect(not_saved).to_contain_text(re.compile("Inte sparad|Not saved"))
    links = not_saved.locator("a")
    expect(links).to_have_count(4)  # name, FYS, SIN, over budget
    expect(links.nth(0)).to_have_attribute("href", "#id_name")
    expect(links.nth(3)).to_have_attribute("href", "#summary")
    # The first wrong field has the focus; everything typed is still there.
    expect(page.locator("#id_name")).to_be_focused()
    expect_marked(page, "name")
    expect(page.locator("#id_concept")).to_have_value("Hårdkokt modern livvakt")
    expect(page.locator("#id_physique")).to_have_value("31")
    expect(page.locator("#id_alertness")).to_have_value("6")
    # The totals are there, FYS priced from its last valid level (1).
    expect(page.get_by_test_id("dp-spent")).to_have_text("35")
    shot(page, "1-not-saved")
    view_shot(page, "1-not-saved")
    assert watch.refusals == 1

    # A link takes the focus to its field.
    links.nth(2).click()
    expect(page.locator("#id_alertness")).to_be_focused()

    # Fixing the fields shrinks the list live; nothing stays red.
    page.fill("#id_name", "Albert")
    expect_clear(page, "name")
    expect(links).to_have_count(3)
    page.fill("#id_physique", "3")
    expect_clear(page, "physique")
    page.fill("#id_alertness", "5")
    expect_clear(page, "alertness")
    for key, level in (("composure", 3), ("agility", 2), ("willpower", 3)):
        page.fill(f"#id_{key}", str(level))
    expect(page.get_by_test_id("dp-spent")).to_have_text("33")
    expect(not_saved).to_be_hidden()
    expect(page.locator(".invalid")).to_have_count(0)
    expect(page.locator("[aria-invalid]")).to_have_count(0)
    shot(page, "2-all-fixed")
    save(page)
    expect(page).to_have_url(re.compile(r"/characters/\d+/$"))
    assert Character.objects.get(name="Albert").evaluate().dp_spent == 33
    assert watch.problems == []


def test_refused_save_over_budget_only_focuses_the_not_saved_list(page, live_server, player, shot):
    page.set_viewport_size(DESKTOP)
    watch = PageWatch(page)
    log_in(page, live_server, "byggaren", "/characters/new/")
    page.fill("#id_name", "Slösaren")
    page.fill("#id_physique", "6")  # 35 UP of 33, cap 5: SIN is fine, FYS 6 is not
    page.fill("#id_level_cap", "6")
    expect(page.get_by_test_id("dp-spent")).to_have_text("35")
    save(page)
    not_saved = page.get_by_test_id("not-saved")
    expect(not_saved).to_be_focused()
    expect(not_saved.locator("a")).to_have_count(1)
    expect(page.locator("#id_dp_budget")).not_to_have_attribute("aria-invalid", "true")
    expect(page.get_by_test_id("build-problems")).to_be_visible()
    shot(page, "not-saved-over-budget")
    assert not Character.objects.exists()
    assert watch.refusals == 1
    assert watch.problems == []


def test_builder_shows_the_saved_up_the_advancement_page_shows(page, live_server, player, shot):
    """Issue 7: after an award and an undone spend the builder said 25 UP left while the
    advancement page said 30 saved."""
    albert = Character.objects.create(
        owner=player,
        name="Albert",
        attributes={"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3},
    )
    services.dp_award(character=albert, amount=30, reason="Räddade prinsessan", by=player)
    services.dp_spend(character=albert, key="physique", by=player)
    services.dp_undo_last_spend(character=albert, by=player)
    page.set_viewport_size(DESKTOP)
    watch = PageWatch(page)
    log_in(page, live_server, "byggaren", f"/characters/{albert.pk}/advancement/")
    expect(page.get_by_test_id("saved-dp")).to_have_text("30")
    page.goto(f"{live_server.url}/characters/{albert.pk}/edit/")
    expect(page.get_by_test_id("dp-spent")).to_have_text("33")
    expect(page.get_by_test_id("saved-dp")).to_have_text("30")
    expect(page.get_by_test_id("dp-breakdown")).to_contain_text("+30")
    shot(page, "builder-saved-up")
    assert watch.problems == []


def test_without_javascript_the_builder_saves_by_plain_post(browser, live_server, player, shot):
    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    page = context.new_page()
    log_in(page, live_server, "byggaren", "/characters/new/")
    page.fill("#id_name", "Albert")
    page.fill("#id_alertness", "9")
    save(page)
    expect(page.get_by_test_id("not-saved")).to_be_visible()
    expect(page.locator("#id_alertness")).to_have_value("9")
    expect(page.locator("#id_alertness")).to_have_attribute("aria-invalid", "true")
    shot(page, "1-refused")
    for key, level in {"physique": 3, "composure": 3, "agility": 2, "alertness": 5}.items():
        page.fill(f"#id_{key}", str(level))
    page.fill("#id_willpower", "3")
    save(page)
    expect(page).to_have_url(re.compile(r"/characters/\d+/$"))
    assert Character.objects.get(name="Albert").evaluate().dp_spent == 33
    context.close()
