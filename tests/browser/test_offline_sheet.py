"""A player's own sheet stays readable offline (issue 47): in a secure context (here
http://127.0.0.1) the site's service worker keeps the sheet once it has been opened, shows
it with the network gone, marked as offline, and logging out empties what it kept. Over
plain HTTP (test_keep_awake.py opens http://table.test) there is no service worker, and the
sheet says what HTTPS would add."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_keep_awake import logged_in
from tests.browser.test_live_table import table  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_own_sheet_is_read_offline_and_logging_out_forgets_it(browser, site_server,
                                                                   request, shot):
    campaign = request.getfixturevalue("table")
    albert = campaign.characters.get()
    context = browser.new_context(viewport={"width": 390, "height": 844},
                                  service_workers="allow")
    sheet = f"/characters/{albert.pk}/"
    page, errors = logged_in(context, site_server.url, sheet)
    page.wait_for_function("navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    expect(page.get_by_test_id("https-note")).to_be_hidden()
    page.reload()  # through the worker now: it keeps the sheet
    page.wait_for_function("caches.open('aoristos-sheets-v1').then((c) => c.keys())"
                           ".then((keys) => keys.some((r) => /\\/characters\\/\\d+\\/$/"
                           ".test(r.url)))")
    expect(page.get_by_test_id("offline-note")).to_be_hidden()
    context.set_offline(True)
    page.reload()
    expect(page.locator("h1")).to_have_text("Albert")
    expect(page.get_by_test_id("offline-note")).to_be_visible()
    shot(page, "sheet-offline")
    # Another page than the own sheet is not kept.
    other = context.new_page()
    with pytest.raises(Exception, match=re.compile("ERR_INTERNET_DISCONNECTED|net::|failed",
                                                   re.I)):
        other.goto(f"{site_server.url}/campaigns/{campaign.pk}/")
    other.close()
    context.set_offline(False)
    page.reload()
    expect(page.get_by_test_id("offline-note")).to_be_hidden()
    page.get_by_role("button", name=re.compile("Logga ut|Log out")).click()
    page.wait_for_url(re.compile(r"^(?!.*/characters/)"))
    kept = page.evaluate("caches.open('aoristos-sheets-v1').then((c) => c.keys())"
                         ".then((keys) => keys.map((r) => r.url))")
    assert not [url for url in kept if "/characters/" in url], kept  # static files only
    # Offline, the page's own requests (the prompts, the check above) fail, as they must.
    assert [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e] == [], errors
    context.close()
