"""The builder's click-to-totals time, measured in the browser (issue 7).

Each stepper click is timed from the click (a capture listener's performance.now()) to the
moment the summary's "UP spent" shows the new figure (a MutationObserver in the page). The
p50 and p90 are printed, not asserted: the machine is shared, so a timing assertion would
fail for reasons that are not the code's. What is asserted is that every figure is right.
"""

import re
import statistics

import pytest
from playwright.sync_api import expect

from rules.aoristos.character import attribute_cost

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLICKS = 20

# Installed once per page: every click on a stepper stamps the time; every change in the
# DOM checks whether "UP spent" now shows the awaited figure and stamps that moment.
TIMER = """
() => {
  window.__timing = {clickAt: null, expect: null, done: null};
  document.addEventListener("click", (event) => {
    if (event.target.closest("button[data-step]")) window.__timing.clickAt = performance.now();
  }, true);
  const check = () => {
    const t = window.__timing;
    if (t.expect === null || t.done !== null) return;
    const spent = document.querySelector('[data-testid="dp-spent"]');
    if (spent && spent.textContent.trim() === t.expect) t.done = performance.now();
  };
  new MutationObserver(check).observe(document.body,
    {subtree: true, childList: true, characterData: true});
}
"""


def log_in(page, live_server, django_user_model, username="mätaren"):
    django_user_model.objects.create_user(username, password="hjortspår-i-frusen-mark")
    page.goto(f"{live_server.url}/accounts/login/?next=/characters/new/")
    page.fill("#id_username", username)
    page.fill("#id_password", "hjortspår-i-frusen-mark")
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    expect(page).to_have_url(re.compile(r"/characters/new/$"))


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def test_stepper_click_to_totals_time_is_measured(page, live_server, django_user_model, shot):
    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, live_server, django_user_model)
    page.fill("#id_dp_budget", "500")
    page.fill("#id_level_cap", "30")
    expect(page.get_by_test_id("dp-spent")).to_have_text("0")
    page.evaluate(TIMER)
    raise_fys = page.locator('button[data-for="id_physique"][data-step="1"]')
    lower_fys = page.locator('button[data-for="id_physique"][data-step="-1"]')
    level, times = 1, []
    for i in range(CLICKS):
        step = 1 if i < CLICKS // 2 else -1
        level += step
        expected = str(attribute_cost(level))
        page.evaluate(f"() => Object.assign(window.__timing, {{expect: '{expected}', done: null}})")
        (raise_fys if step > 0 else lower_fys).click()
        expect(page.get_by_test_id("dp-spent")).to_have_text(expected)
        page.wait_for_function("() => window.__timing.done !== null")
        times.append(page.evaluate("() => window.__timing.done - window.__timing.clickAt"))
        expect(page.locator("#id_physique")).to_have_value(str(level))
    p50, p90 = statistics.median(times), percentile(times, 0.9)
    print(
        f"\nbuilder click-to-totals over {CLICKS} clicks: p50 {p50:.1f} ms, p90 {p90:.1f} ms "
        f"(min {min(times):.1f}, max {max(times):.1f})"
    )
    shot(page, "after-clicks")
