"""Form errors look like errors: red and bold, not the grey of help text (issue 7)."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_up_errors_are_red_not_grey_help_text(page, live_server, shot):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/accounts/signup/")
    page.fill("#id_username", "ny-spelare")
    page.fill("#id_password1", "hjortspår-i-frusen-mark")
    page.fill("#id_password2", "något-helt-annat-lösen")
    page.get_by_role("button", name=re.compile("Skapa konto|Create account")).click()
    error = page.locator(".errorlist").first
    expect(error).to_be_visible()
    colour = error.evaluate("e => getComputedStyle(e).color")
    bad = page.evaluate(
        "() => { const p = document.createElement('p'); p.style.color = 'var(--bad)';"
        " document.body.append(p); const c = getComputedStyle(p).color; p.remove(); return c; }"
    )
    muted = page.evaluate(
        "() => { const p = document.createElement('p'); p.style.color = 'var(--muted)';"
        " document.body.append(p); const c = getComputedStyle(p).color; p.remove(); return c; }"
    )
    assert colour == bad != muted, (colour, bad, muted)
    help_text = page.locator(".helptext").first
    assert help_text.evaluate("e => getComputedStyle(e).color") == muted
    expect(page.locator("#id_username")).to_have_value("ny-spelare")
    shot(page, "sign-up-errors")
