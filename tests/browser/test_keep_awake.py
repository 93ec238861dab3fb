"""Phones at the table keep their screens awake (issue 47): the table, the sheet and the
fight page hold the screen on while they are open, with a toggle remembered on the
device. With the Screen Wake Lock API where it exists (a secure context: here
http://127.0.0.1), taken again when the system releases it and the page is shown; on a
LAN over plain HTTP, where the API does not exist (here http://table.test, mapped to
127.0.0.1 as TOOLCHAIN.md says), by nosleep.js's silent looping video, which the
autoplay rules let start at the first tap."""

import re
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from combat.models import Encounter
from tests.browser.conftest import CHROMIUM
from tests.browser.test_live_table import PASSWORD, table  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}
# Every wake lock the page takes, kept where the test can release it as the system does
# (hiding the page releases it; a headless browser never hides one).
RECORD_LOCKS = """
window.__locks = [];
if (navigator.wakeLock) {
  const request = navigator.wakeLock.request.bind(navigator.wakeLock);
  navigator.wakeLock.request = async (type) => {
    const lock = await request(type);
    window.__locks.push(lock);
    return lock;
  };
}
"""


@pytest.fixture
def places(request):
    """test_live_table's campaign (the GM, the player spelaren with Albert) and a fight."""
    campaign = request.getfixturevalue("table")
    encounter = Encounter.objects.create(campaign=campaign, name="Bakgården", system="aoristos")
    return campaign, campaign.characters.get(), encounter


def logged_in(context, base: str, next_path: str):
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/accounts/login/?next={next_path}")
    page.fill("#id_username", "spelaren")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    page.wait_for_url(f"{base}{next_path}")
    return page, errors


def test_over_plain_http_a_silent_video_keeps_the_screen_awake(playwright, site_server, places,
                                                                 shot):
    campaign, character, encounter = places
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP table.test 127.0.0.1"],
    )
    try:
        context = browser.new_context(viewport=PHONE)
        base = f"http://table.test:{urlparse(site_server.url).port}"
        page, errors = logged_in(context, base, f"/campaigns/{campaign.pk}/table/")
        # Not a secure context: no Wake Lock API here.
        assert page.evaluate("[window.isSecureContext, 'wakeLock' in navigator]") == [False,
                                                                                     False]
        control = page.get_by_test_id("keep-awake")
        # The autoplay rules hold the video back until the page has had a gesture.
        expect(control).to_have_attribute("data-awake", re.compile("^(video|tap)$"))
        page.locator("h1").click()
        expect(control).to_have_attribute("data-awake", "video")
        expect(control.get_by_test_id("keep-awake-toggle")).to_have_attribute(
            "aria-pressed", "true")
        expect(control).to_contain_text(re.compile("vaken|awake"))
        playing = "(() => { const v = document.querySelector('.keep-awake-video');" \
                  " return v !== null && !v.paused && v.currentTime >= 0; })()"
        page.wait_for_function(playing)
        shot(page, "table-http")
        # Off: the video stops, and the choice holds on the next page of this device.
        control.get_by_test_id("keep-awake-toggle").click()
        expect(control).to_have_attribute("data-awake", "off")
        assert page.evaluate("document.querySelector('.keep-awake-video').paused") is True
        page.goto(f"{base}/characters/{character.pk}/")
        # No service worker over plain HTTP: the own sheet says what HTTPS would add.
        assert page.evaluate("'serviceWorker' in navigator") is False
        expect(page.get_by_test_id("https-note")).to_be_visible()
        sheet_control = page.get_by_test_id("keep-awake")
        expect(sheet_control).to_have_attribute("data-awake", "off")
        expect(sheet_control.get_by_test_id("keep-awake-toggle")).to_have_attribute(
            "aria-pressed", "false")
        sheet_control.get_by_test_id("keep-awake-toggle").click()  # the tap it needs, too
        expect(sheet_control).to_have_attribute("data-awake", "video")
        page.wait_for_function(playing)
        # The fight's page has it too.
        page.goto(f"{base}/encounters/{encounter.pk}/")
        page.locator("h1").click()
        expect(page.get_by_test_id("keep-awake")).to_have_attribute("data-awake", "video")
        shot(page, "fight-http")
        assert errors == [], errors
        context.close()
    finally:
        browser.close()


def test_with_a_wake_lock_it_is_taken_again_when_the_page_is_shown(browser, site_server,
                                                                    places, shot):
    campaign, _character, _encounter = places
    context = browser.new_context(viewport=PHONE)
    context.add_init_script(RECORD_LOCKS)
    page, errors = logged_in(context, site_server.url, f"/campaigns/{campaign.pk}/table/")
    assert page.evaluate("[window.isSecureContext, 'wakeLock' in navigator]") == [True, True]
    control = page.get_by_test_id("keep-awake")
    expect(control).to_have_attribute("data-awake", "lock")  # at once: no gesture needed
    assert page.evaluate("window.__locks.map((lock) => lock.released)") == [False]
    assert page.evaluate("document.querySelector('.keep-awake-video')") is None
    # The page is hidden: the system releases the lock, and none is taken while hidden.
    page.evaluate("""() => {
        Object.defineProperty(document, 'visibilityState', {value: 'hidden',
                                                            configurable: true});
        window.__locks[0].release();
    }""")
    page.wait_for_function("window.__locks[0].released")
    page.wait_for_timeout(200)
    assert page.evaluate("window.__locks.length") == 1
    # Shown again: a new lock.
    page.evaluate("""() => {
        Object.defineProperty(document, 'visibilityState', {value: 'visible',
                                                            configurable: true});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    page.wait_for_function("window.__locks.length === 2 && !window.__locks[1].released")
    expect(control).to_have_attribute("data-awake", "lock")
    # Off releases it.
    control.get_by_test_id("keep-awake-toggle").click()
    expect(control).to_have_attribute("data-awake", "off")
    page.wait_for_function("window.__locks[1].released")
    shot(page, "table-lock-off")
    assert errors == [], errors
    context.close()
