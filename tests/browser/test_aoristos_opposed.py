"""An Aoristos opposed test (p. 5) in the tray, on two phones at one table, against the real
server process: the GM's and the player's.

1. The player picks "Opposed test": Albert's SIN + Vildmark with Bertil beside him (the
   player's second character) against the GM's Vakten's SIN + Vildmark. The other side's fields show
   only in that mode (and the ST not at all); the odds box shows both sides' summed TBs and
   the exact chance of each outcome (rules.aoristos.success.opposed_odds) before the roll,
   without a reload.
2. The player rolls from the roll bar; the line, with both sides' dice, totals and who
   won, reaches the GM's phone live, and the player's own.
3. The GM rolls one in secret against someone without a sheet (a name and a TB): the GM's
   line shows both sides, the player's phone only that the GM rolled in secret.
4. Neither phone scrolls sideways; no console errors, no failed requests.

The server's dice cannot be scripted: the test checks that each page shows the winner and
the totals the server stored. Both phones read the site in English (the
`django_language` cookie), so the texts are asserted in English throughout.
"""

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from rules.aoristos.dice import parse_hand
from rules.aoristos.success import OpposedSide, opposed_odds
from table import services
from table.models import RollEvent
from tests.browser.test_campaign_flows import overflow
from tests.browser.test_live_table import LIVE, real_user
from tests.browser.test_phobia import PHONE, OddsRequests, device, log_in, percent
from tests.browser.test_phobia_tray import english, in_view, roll, rolled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ALBERT = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3}
BERTIL = {"physique": 3, "composure": 3, "agility": 4, "alertness": 3, "willpower": 2}
VAKTEN = {"physique": 4, "composure": 2, "agility": 3, "alertness": 4, "willpower": 2}
SMALL_PHONE = {**PHONE, "viewport": {"width": 360, "height": 740}}  # the sweep's phone


def winner_text(stored) -> str:
    a, b = stored["sides"]
    return {1: f"{a['representative']} wins", -1: f"{b['representative']} wins",
            0: "a draw: no effect"}[stored["winner"]]


def test_an_opposed_test_in_the_aoristos_tray_on_two_phones(
    browser, site_server, django_user_model, shot, request
):
    gm_user = real_user(django_user_model, "spelledaren")
    player_user = real_user(django_user_model, "spelaren")
    campaign = campaign_create(gm=gm_user, name="Nattens kant")
    Membership.objects.create(campaign=campaign, user=player_user, seat=1)
    albert = Character.objects.create(owner=player_user, campaign=campaign, name="Albert",
                                      attributes=ALBERT)
    bertil = Character.objects.create(owner=player_user, campaign=campaign, name="Bertil",
                                      attributes=BERTIL, skills={"wilderness": 2})
    vakten = Character.objects.create(owner=gm_user, campaign=campaign, name="Vakten",
                                      attributes=VAKTEN, skills={"wilderness": 4})

    gm_context, gm, gm_watch = device(browser, PHONE)
    english(gm_context, site_server)
    log_in(gm, site_server, "spelledaren", f"/campaigns/{campaign.pk}/table/")
    expect(gm.locator("#live-status")).to_have_attribute("data-state", "live")
    player_context, player, player_watch = device(browser, SMALL_PHONE)
    english(player_context, site_server)
    log_in(player, site_server, "spelaren", f"/campaigns/{campaign.pk}/table/")
    expect(player.locator("#live-status")).to_have_attribute("data-state", "live")
    for page in (gm, player):
        page.evaluate("() => { window.stillTheSamePage = true; }")
    tray = player.locator("#tray-form")
    fields = tray.get_by_test_id("opposed-fields")
    odds_requests = OddsRequests(player)

    # 1. The opposed test: Albert (SIN 5 + Vildmark 0) and Bertil (3 + 2) against Vakten's
    # SIN 4 + Vildmark 4: TB 10 against TB 8, 1B1T each.
    expect(fields).to_be_hidden()
    tray.locator("input[name=mode][value=opposed]").check()
    odds_requests.settle()
    expect(fields).to_be_visible()
    expect(tray.locator("input[name=threshold]")).to_be_hidden()
    tray.locator("select[name=character]").select_option(str(albert.pk))
    odds_requests.settle()
    for key in ("alertness", "wilderness"):
        tray.locator(f"input[name=properties][value={key}]").check()
        odds_requests.settle()
    fields.locator(f"input[name=helpers][value='{bertil.pk}']").check()
    odds_requests.settle()
    fields.locator("select[name=opponent]").select_option(f"character:{vakten.pk}")
    odds_requests.settle()
    expect(fields.locator("input[name=opponent_name]")).to_be_hidden()  # not someone else
    for key in ("alertness", "wilderness"):
        fields.locator(f"input[name=opponent_properties][value={key}]").check()
        odds_requests.settle()
    expect(player.get_by_test_id("odds-tb-a")).to_have_text("10", timeout=LIVE)
    expect(player.get_by_test_id("odds-tb-b")).to_have_text("8")
    expect(player.get_by_test_id("odds-side-a")).to_contain_text("Albert, Bertil · SIN + Vildmark")
    exact = opposed_odds(OpposedSide(10, parse_hand("1B1T")), OpposedSide(8, parse_hand("1B1T")))
    for testid, p in (("odds-a-wins", exact.a_wins), ("odds-draw", exact.draw),
                      ("odds-b-wins", exact.b_wins)):
        assert abs(percent(player.get_by_test_id(testid)) - float(p) * 100) <= 0.051, testid
    assert player.evaluate("() => window.stillTheSamePage === true"), "the phone reloaded"
    player.locator("#odds").evaluate("odds => odds.scrollIntoView({block: 'start'})")
    in_view(request, player, "1-phone-opposed-odds")
    shot(player, "1-phone-opposed-tray")
    assert overflow(player) == 0, f"{overflow(player)} px wider than the phone (opposed tray)"

    # 2. The player rolls from the roll bar; the line reaches both phones live.
    seq = roll(player, player.get_by_test_id("roll-bar-roll"), rolled(player))
    stored = services.payload(RollEvent.objects.get(campaign=campaign, seq=seq))
    assert (stored["character"], stored["test_base"], stored["secret"]) == ("Albert", 10, False)
    totals = [str(side["total"]) for side in stored["sides"]]
    for page in (player, gm):
        line = page.locator(f"#roll-log #roll-{seq}")
        expect(line.get_by_test_id("roll-winner")).to_have_text(winner_text(stored),
                                                                 timeout=LIVE)
        expect(line.get_by_test_id("opposed-side")).to_have_count(2)
        expect(line.get_by_test_id("opposed-total")).to_have_text(totals)
        expect(line).to_contain_text("against Vakten · SIN + Vildmark 8")
        expect(line).to_contain_text("TB 10 (5 + 5) + ")
        expect(line.locator(".die")).to_have_count(4)  # 1B1T on each side
    assert gm.evaluate("() => window.stillTheSamePage === true"), "the GM's page reloaded"
    gm.locator(f"#roll-{seq}").scroll_into_view_if_needed()
    in_view(request, gm, "2-gm-sees-the-players-opposed-test")
    shot(gm, "2-gm-opposed-line")
    player.locator(f"#roll-{seq}").scroll_into_view_if_needed()
    in_view(request, player, "2-phone-opposed-line")
    for page in (player, gm):
        assert overflow(page) == 0, f"{overflow(page)} px wider than the phone (opposed line)"

    # 3. The GM, in secret: Vakten's RÖR against someone without a sheet, Hundarna, TB 6,
    # whose representative has a free die (1B1T + 1F = 1B).
    gm_tray = gm.locator("#tray-form")
    gm_fields = gm_tray.get_by_test_id("opposed-fields")
    gm_odds = OddsRequests(gm)
    gm_tray.locator("input[name=mode][value=opposed]").check()
    gm_odds.settle()
    gm_tray.locator("select[name=character]").select_option(str(vakten.pk))
    gm_odds.settle()
    gm_tray.locator("input[name=properties][value=agility]").check()
    gm_odds.settle()
    gm_fields.locator("select[name=opponent]").select_option("other")
    gm_odds.settle()
    expect(gm_fields.locator("input[name=opponent_name]")).to_be_visible()
    gm_fields.locator("input[name=opponent_name]").fill("Hundarna")
    gm_odds.settle()
    gm_fields.locator("input[name=opponent_name]").blur()
    gm_fields.locator("input[name=opponent_tb]").fill("6")
    gm_odds.settle()
    gm_fields.locator("input[name=opponent_tb]").blur()
    gm_fields.locator("input[name=opponent_free]").fill("1")
    gm_odds.settle()
    gm_fields.locator("input[name=opponent_free]").blur()
    gm_tray.locator("input[name=secret]").check()
    gm_odds.settle()
    expect(gm.get_by_test_id("odds-side-b")).to_contain_text("Hundarna: TB 6 1B", timeout=LIVE)
    exact = opposed_odds(OpposedSide(3, parse_hand("1B1T")), OpposedSide(6, parse_hand("1B")))
    assert abs(percent(gm.get_by_test_id("odds-b-wins")) - float(exact.b_wins) * 100) <= 0.051
    gm.locator("#odds").evaluate("odds => odds.scrollIntoView({block: 'start'})")
    in_view(request, gm, "3-gm-secret-opposed-odds")
    secret = roll(gm, gm.get_by_test_id("roll-bar-roll"), str(seq))
    stored = services.payload(RollEvent.objects.get(campaign=campaign, seq=secret))
    assert stored["secret"] is True
    gm_line = gm.locator(f"#roll-log #roll-{secret}")
    expect(gm_line.get_by_test_id("roll-winner")).to_have_text(winner_text(stored),
                                                               timeout=LIVE)
    expect(gm_line).to_contain_text("secret: only you see this")
    expect(gm_line).to_contain_text("Hundarna")
    phone_line = player.locator(f"#roll-log #roll-{secret}")
    expect(phone_line).to_be_visible(timeout=LIVE)
    expect(phone_line.locator(".roll-what")).to_have_text("The GM rolled in secret.")
    for leak in ("Vakten", "Hundarna", "RÖR", "wins", "draw"):
        expect(phone_line).not_to_contain_text(leak)
    expect(phone_line.locator(".die")).to_have_count(0)
    gm.locator(f"#roll-{secret}").scroll_into_view_if_needed()
    in_view(request, gm, "4-gm-secret-opposed-line")
    player.locator(f"#roll-{secret}").scroll_into_view_if_needed()
    in_view(request, player, "4-phone-sees-only-a-secret-roll")
    shot(player, "4-phone-after-the-secret-roll")

    # 4. Nothing sideways, no errors on either phone.
    for page in (player, gm):
        assert overflow(page) == 0, f"{overflow(page)} px wider than the phone (end)"
    assert player_watch.problems == [], player_watch.problems
    assert gm_watch.problems == [], gm_watch.problems
    assert player_watch.refusals == gm_watch.refusals == 0
    gm_context.close()
    player_context.close()
