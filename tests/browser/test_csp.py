"""The Content Security Policy holds in a real browser: no page, swap or stream breaks it.

Against the real server process (granian, the live stream included), the GM and a player
use the main pages: home, login, signup, the character builder with its live check, the
sheet with its odds helper, advancement (a spend through htmx), the campaign page with
the QR code, awards (the live preview), the journal (its preview), and the table, where a
roll arrives over the stream. Every `securitypolicyviolation` event and every console
message about the Content Security Policy is collected; there must be none.
"""

import re

import pytest
from django.contrib.auth.hashers import make_password
from playwright.sync_api import expect

from campaigns.models import JournalEntry, Membership
from campaigns.services import campaign_create
from characters.models import Character
from characters.services import dp_award

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "hjortspår-i-frusen-mark"
ALBERT = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3}
LIVE = 5_000  # ms

LISTEN = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolation(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`
    + ` at ${event.sourceFile || document.location.pathname}:${event.lineNumber}`);
});
"""


def real_user(django_user_model, username):
    """A user the server process can log in: hashed with the production hasher."""
    return django_user_model.objects.create(
        username=username, password=make_password(PASSWORD, hasher="pbkdf2_sha256")
    )


@pytest.fixture
def table(django_user_model):
    gm = real_user(django_user_model, "spelledaren")
    player = real_user(django_user_model, "spelaren")
    campaign = campaign_create(gm=gm, name="Nattens kant")
    # Seated directly: joining is a line of the table's log, and this test starts empty.
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    albert = Character.objects.create(
        owner=player, campaign=campaign, name="Albert", dp_budget=40, attributes=ALBERT
    )
    dp_award(character=albert, amount=10, reason="Resan norrut", by=gm)
    JournalEntry.objects.create(
        campaign=campaign, author=player, title="Första natten", body="**Mörkt.**"
    )
    return campaign, albert


class Watch:
    """A browser context that records CSP violations and CSP console messages."""

    def __init__(self, browser, viewport):
        self.problems: list[str] = []
        self.context = browser.new_context(viewport=viewport)
        self.context.expose_function("cspViolation", lambda text: self.problems.append(text))
        self.context.add_init_script(LISTEN)
        self.page = self.context.new_page()
        self.page.on("console", self.console)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))

    def console(self, message):
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            self.problems.append(f"console {message.type}: {message.text}")

    def settle(self):
        # Violation events are dispatched asynchronously. (Not "networkidle": the table's
        # stream keeps a request open.)
        self.page.wait_for_load_state("load")
        self.page.wait_for_timeout(300)


def log_in(watch: Watch, server, username, next_path):
    page = watch.page
    page.goto(f"{server.url}/accounts/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("^(Logga in|Log in)$")).click()
    expect(page.locator("#id_password")).to_have_count(0)


def test_the_listener_sees_a_violation(browser, site_server):
    """The check can fail: an inline event handler on one of our pages is reported."""
    watch = Watch(browser, {"width": 800, "height": 600})
    watch.page.goto(f"{site_server.url}/")
    watch.page.evaluate(
        """() => { const b = document.createElement("button");
        b.id = "bad"; b.setAttribute("onclick", "document.title = 'ran'");
        b.textContent = "x"; document.body.append(b); }"""
    )
    watch.page.click("#bad")
    watch.settle()
    assert watch.page.title() != "ran"
    assert any("script-src" in problem for problem in watch.problems), watch.problems
    watch.context.close()


def test_main_pages_keep_the_content_security_policy(browser, site_server, table, shot):
    campaign, albert = table
    base = site_server.url

    anonymous = Watch(browser, {"width": 1280, "height": 900})
    for path, name in (
        ("/", "home"),
        ("/accounts/login/", "login"),
        ("/accounts/signup/", "signup"),
    ):
        response = anonymous.page.goto(base + path)
        assert "default-src 'self'" in response.headers["content-security-policy"]
        anonymous.settle()
        shot(anonymous.page, f"anonymous-{name}")
    assert anonymous.problems == []
    anonymous.context.close()

    gm = Watch(browser, {"width": 1280, "height": 900})
    player = Watch(browser, {"width": 390, "height": 844})
    log_in(gm, site_server, "spelledaren", f"/campaigns/{campaign.pk}/")
    log_in(player, site_server, "spelaren", "/characters/new/")

    # The GM's campaign page with the QR code; the invitation link selects on a click.
    page = gm.page
    expect(page.locator("img.qr")).to_be_visible()
    assert page.locator("img.qr").evaluate("img => img.naturalWidth") > 0
    page.get_by_test_id("invite-url").click()
    selected = page.get_by_test_id("invite-url").evaluate(
        "input => input.selectionEnd - input.selectionStart"
    )
    assert selected == len(page.get_by_test_id("invite-url").input_value())
    gm.settle()
    shot(page, "gm-campaign")

    # Awards: the live preview is an htmx swap.
    page.goto(f"{base}/campaigns/{campaign.pk}/awards/")
    page.locator('input[name="amount"]').fill("3")
    expect(page.locator("#award-preview")).to_contain_text("3")
    gm.settle()
    shot(page, "gm-awards")

    # The player's builder: a stepper click runs the live rules check.
    page = player.page
    page.goto(f"{base}/characters/new/?campaign={campaign.pk}")
    spent = page.get_by_test_id("dp-spent")
    before = spent.inner_text()
    page.locator('button[data-step="1"][data-for="id_physique"]').click()
    expect(spent).not_to_have_text(before)
    player.settle()
    shot(page, "player-builder")

    # The sheet and its odds helper (an htmx GET), and the print button's script.
    page.goto(f"{base}/characters/{albert.pk}/")
    page.locator('#odds input[name="properties"], input[name="properties"]').first.check()
    expect(page.get_by_test_id("odds-tb")).to_be_visible()
    player.settle()
    shot(page, "player-sheet")

    # Advancement: a spend through htmx.
    page.goto(f"{base}/characters/{albert.pk}/advancement/")
    page.get_by_test_id("raise-physique").click()
    expect(page.get_by_test_id("level-physique")).to_have_text("4")
    expect(page.get_by_test_id("notice")).to_be_visible()
    player.settle()
    shot(page, "player-advancement")

    # The journal and its preview.
    page.goto(f"{base}/campaigns/{campaign.pk}/journal/")
    page.locator("textarea[name=body]").fill("*Kursivt* och **fett**")
    page.get_by_role("button", name=re.compile("^(Förhandsvisning|Preview)$")).click()
    expect(page.get_by_test_id("preview").locator("em")).to_have_text("Kursivt")
    player.settle()
    shot(page, "player-journal")

    # The table on both pages; the GM's roll arrives on the player's over the stream.
    for watch in (gm, player):
        watch.page.goto(f"{base}/campaigns/{campaign.pk}/table/")
        expect(watch.page.locator("#live-status")).to_have_attribute("data-state", "live")
    # The fixture's award is the log's first line (the table is the campaign's hub), so
    # the empty-log note is hidden; the GM's roll arrives above it.
    expect(player.page.locator("#roll-log > li.notice-award")).to_contain_text("Resan norrut")
    expect(player.page.get_by_test_id("log-empty")).to_be_hidden()
    shot(player.page, "player-table-before-roll")
    gm.page.get_by_label(re.compile("Tärningshand|Dice hand")).check()
    gm.page.locator('input[name="hand"]').fill("2B+1")
    gm.page.locator("#tray-form").get_by_role("button", name=re.compile("^(Slå|Roll)$")).click()
    expect(player.page.locator("#roll-log > li")).to_have_count(2, timeout=LIVE)
    expect(player.page.locator("#roll-log > li").first).to_contain_text("2B+1")
    gm.settle()
    player.settle()
    shot(gm.page, "gm-table")
    shot(player.page, "player-table-roll-arrived")

    assert gm.problems == [], gm.problems
    assert player.problems == [], player.problems
    gm.context.close()
    player.context.close()
