"""The table page through a server restart, against the real stack (granian + the ASGI
router, started as `make serve` starts it): a stopped server shows *reconnecting…*, and
the restarted one brings the page what it missed, without a reload."""

import re
import signal
import time
from urllib.parse import urlparse

import pytest
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from rules.aoristos import dice as hands
from table import services
from tests.servers import start_site_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def session_for(user) -> str:
    """A logged-in session for `user`, stored where the server reads it: the browser gets
    it as its cookie instead of typing a password."""
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session["_auth_user_hash"] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def stream_answer(url: str, campaign_id: int, cookie: str) -> str:
    """The status line and first bytes the live stream answers this session, for a
    diagnosis."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        f"{url}/live/campaigns/{campaign_id}/events", headers={"Cookie": f"sessionid={cookie}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return f"{response.status} {response.readline()!r}"
    except urllib.error.HTTPError as error:
        return f"{error.code} {error.read(200)!r}"
    except OSError as error:
        return repr(error)


def roll(campaign, actor, label):
    """A roll stored (and broadcast) by this test process, as another server would."""
    return services.roll_record(
        campaign=campaign, actor=actor, hand=hands.parse_hand("2B"), label=label
    )


def test_the_table_reconnects_to_a_restarted_server_and_shows_what_it_missed(
    browser, django_user_model, tmp_path, shot
):
    gm = django_user_model.objects.create_user("spelledaren", password="!")
    player = django_user_model.objects.create_user("spelaren", password="!")
    campaign = campaign_create(gm=gm, name="Omstarten")
    # Seated directly: joining is an event of the log, and these tests count rolls from #1.
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    before = roll(campaign, gm, "Före omstarten")

    workdir = tmp_path / "server"
    workdir.mkdir()
    server = start_site_server(workdir)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        cookie = session_for(player)
        context.add_cookies([{"name": "sessionid", "value": cookie, "url": server.url}])
        page = context.new_page()
        opened = time.monotonic()
        page.goto(f"{server.url}/campaigns/{campaign.pk}/table/")
        status = page.locator("#live-status")
        # The first connection of a fresh server process: on a loaded CI machine this once
        # took over 5 s (the page retries a refused or failed first connection after 5 s).
        # What this test is about is the restart below; the time is printed.
        try:
            expect(status).to_have_attribute("data-state", "live", timeout=15_000)
        except AssertionError:
            # Seen twice on CI's PostgreSQL leg, never here: say what the stream answers,
            # then give the page one fresh load before failing.
            answer = stream_answer(server.url, campaign.pk, cookie)
            print(f"first connection not live after 15 s; the stream answers {answer}")
            page.reload()
            expect(status).to_have_attribute("data-state", "live", timeout=15_000)
        first_live = time.monotonic() - opened
        expect(page.locator(f"#roll-{before.seq}")).to_contain_text("Före omstarten")
        page.evaluate("window.notReloaded = true")  # gone if the page reloads
        # A roll from this page's tray comes back through the stream (so the page's
        # reconnect carries its Last-Event-ID, and the server's retry: applies).
        # (The player has no character yet, so the tray rolls dice hands only.)
        expect(page.get_by_test_id("no-character")).to_be_visible()
        page.locator('input[name="hand"]').fill("1B")
        page.locator("#tray-form").get_by_role("button", name=re.compile("^(Slå|Roll)$")).click()
        own = page.locator(f"#roll-{before.seq + 1}")
        expect(own).to_be_visible(timeout=2_000)
        shot(page, "1-live")

        # Stop the server as Ctrl+C or a service manager does.
        port = urlparse(server.url).port
        stopped = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        expect(status).to_have_attribute("data-state", "lost", timeout=2_000)
        lost = time.monotonic() - stopped
        server.process.wait(timeout=5)
        missed = roll(campaign, gm, "Medan servern var nere")
        shot(page, "2-reconnecting")
        expect(page.locator(f"#roll-{missed.seq}")).to_have_count(0)

        # The same server again, on the same port: the page catches up by itself.
        restarting = time.monotonic()
        server = start_site_server(workdir, port=port, collectstatic=False)
        up = time.monotonic() - restarting
        expect(status).to_have_attribute("data-state", "live", timeout=45_000)
        live_again = time.monotonic() - restarting
        expect(page.locator(f"#roll-{missed.seq}")).to_contain_text(
            "Medan servern var nere", timeout=5_000
        )
        caught_up = time.monotonic() - restarting
        shot(page, "3-caught-up")
        print(
            f"\nfirst live {first_live:.2f} s after opening the page;"
            f" 'reconnecting…' {lost:.2f} s after SIGTERM; the server answered again"
            f" {up:.2f} s after its restart began, the page was live after {live_again:.2f} s"
            f" and showed the missed roll after {caught_up:.2f} s"
        )

        assert page.evaluate("window.notReloaded === true"), "the page was reloaded"
        seqs = page.locator("#roll-log > li").evaluate_all("els => els.map(e => e.dataset.seq)")
        # Newest first, each once.
        assert seqs == [str(missed.seq), str(before.seq + 1), str(before.seq)]
    finally:
        context.close()
        server.stop()
