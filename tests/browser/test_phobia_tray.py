"""The Phobia dice tray's three modes on two devices at once, against the real server
process: a player on a phone and the GM on a laptop, both at the same Phobia table.

1. The player picks "Opposed test": Jace's Klättra 14 against someone without a sheet,
   "Vakten" with chance 12 (both Ob3T6); the odds box shows the exact chance to win
   (rules.phobia's, ties rolled again) and Vakten's name before the roll, without a reload.
2. The player rolls; the opposed line, with its winner, reaches both pages live. Then a
   plain success test: an opposed test cannot itself be opposed later (lines 580-609), so
   this is the roll the GM opposes.
3. The GM opposes that earlier roll with a character of their own (SYN 12), in secret: the
   odds box shows the exact chance to overcome it; the GM's log shows the winner, the
   phone only that the GM rolled in secret.
4. The player rolls a bare hand, 1T10: "from 1 to 10" before the roll, the total (1-10)
   on both pages after it.
5. The phone never scrolls sideways; no console errors and no failed requests but the
   live stream a reload ends.

The server's dice cannot be scripted: who wins is the dice's. The test checks that each
page shows the winner the server stored, and the odds against rules.phobia's exact ones.
Both browsers read the site in English (the `django_language` cookie), so the texts are
asserted in English throughout.
"""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from rules.phobia.success import opposed_odds
from table import services
from table.models import RollEvent
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_campaign_flows import overflow
from tests.browser.test_live_table import LIVE, real_user
from tests.browser.test_phobia import LAPTOP, PHONE, OddsRequests, device, log_in, percent
from tests.conftest import PHOBIA_ATTRIBUTES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ATTRIBUTES = PHOBIA_ATTRIBUTES  # Jace: STY 12, TÅL 14, SYN 15
CLIMBING = 14  # Jace's Klättra
GUARD = 12  # Vakten's chance, typed in the tray
INSPECTOR_SIGHT = 12  # the GM's Kommissarien: SYN 12


def english(context, site_server):
    context.add_cookies([{"name": "django_language", "value": "en", "url": site_server.url}])


def in_view(request, page, name):
    """What the screen shows at once (a phone's thumb view), beside the full-page shots."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{request.node.name}-{name}-in-view.png"))


def roll(page, button, before):
    """Roll with `button`; the new roll's seq, from the tray's answer (data-rolled). A
    refusal (the tray's reason in #tray-errors) fails with that reason."""
    button.click()
    page.wait_for_function(
        """before => {
            const answer = document.getElementById("tray-errors");
            const rolled = answer.dataset.rolled;
            return answer.querySelector(".error") || (rolled !== undefined && rolled !== before);
        }""",
        arg=before,
        timeout=LIVE,
    )
    assert page.locator("#tray-errors .error").count() == 0, page.locator(
        "#tray-errors"
    ).inner_text()
    return int(page.locator("#tray-errors").get_attribute("data-rolled"))


def type_into(field, text, odds_requests):
    """Type `text` and leave the field, reading the odds after each: the typing asks for
    them (input), and so does leaving the field (change). A change that reaches the tray
    while an odds answer is on its way is lost when that answer replaces the box (see
    test_phobia.OddsRequests): a fill() right after leaving the previous field did lose
    the typed chance here, so each field is left before the next is typed into."""
    field.fill(text)
    odds_requests.settle()
    field.blur()
    odds_requests.settle()


def rolled(page):
    return page.locator("#tray-errors").get_attribute("data-rolled")


def test_opposed_tests_and_hands_in_the_phobia_tray_on_a_phone_and_a_laptop(
    browser, site_server, django_user_model, shot, request
):
    gm_user = real_user(django_user_model, "spelledaren")
    player_user = real_user(django_user_model, "spelaren")
    campaign = campaign_create(gm=gm_user, name="Skuggorna", rule_system="phobia")
    Membership.objects.create(campaign=campaign, user=player_user, seat=1)
    jace = Character.objects.create(
        owner=player_user,
        campaign=campaign,
        name="Jace",
        rule_system="phobia",
        attributes=ATTRIBUTES,
        skills={"climbing": CLIMBING},
        rolled={"calm": [3, 5]},
    )
    inspector = Character.objects.create(
        owner=gm_user,
        campaign=campaign,
        name="Kommissarien",
        rule_system="phobia",
        attributes=ATTRIBUTES | {"sight": INSPECTOR_SIGHT},
        rolled={"calm": [2, 2]},
    )

    # Both at the table: the GM on a laptop, the player on a phone.
    gm_context, gm, gm_watch = device(browser, LAPTOP)
    english(gm_context, site_server)
    log_in(gm, site_server, "spelledaren", f"/campaigns/{campaign.pk}/table/")
    expect(gm.locator("#live-status")).to_have_attribute("data-state", "live")
    player_context, player, player_watch = device(browser, PHONE)
    english(player_context, site_server)
    log_in(player, site_server, "spelaren", f"/campaigns/{campaign.pk}/table/")
    expect(player.locator("#live-status")).to_have_attribute("data-state", "live")
    player.evaluate("() => { window.stillTheSamePage = true; }")
    gm.evaluate("() => { window.stillTheSamePage = true; }")
    tray = player.locator("#tray-form")
    fields = tray.get_by_test_id("opposed-fields")
    odds_requests = OddsRequests(player)

    # 1. Opposed test: Jace's Klättra 14 (Ob3T6) against Vakten, chance 12 (Ob3T6).
    expect(fields).to_be_hidden()
    tray.locator("input[name=mode][value=opposed]").check()
    odds_requests.settle()
    expect(fields).to_be_visible()
    expect(tray.locator("select[name=character]")).to_have_value(str(jace.pk))
    tray.locator("select[name=stat]").select_option("climbing")
    odds_requests.settle()
    fields.locator("select[name=opponent]").select_option("other")
    odds_requests.settle()
    # Someone else needs a name and a chance; no sheet to test, no earlier roll's hint.
    expect(fields.locator("input[name=opponent_name]")).to_be_visible()
    expect(fields.locator("input[name=opponent_chance]")).to_be_visible()
    expect(fields.locator("select[name=opponent_difficulty]")).to_have_value("3")
    expect(fields.locator("select[name=opponent_stat]")).to_be_hidden()
    expect(fields.locator(".opponent-earlier")).to_be_hidden()
    type_into(fields.locator("input[name=opponent_name]"), "Vakten", odds_requests)
    type_into(fields.locator("input[name=opponent_chance]"), str(GUARD), odds_requests)
    expect(player.get_by_test_id("odds-opponent")).to_have_text(f"Vakten {GUARD}", timeout=LIVE)
    expect(player.get_by_test_id("odds-dice")).to_have_text("Ob3T6")
    win = float(opposed_odds(3, CLIMBING, 3, GUARD).a_wins_eventually) * 100
    assert abs(percent(player.get_by_test_id("odds-win")) - win) <= 0.051, win
    assert player.evaluate("() => window.stillTheSamePage === true"), "the phone reloaded"
    player.locator("#odds").evaluate("odds => odds.scrollIntoView({block: 'center'})")
    odds_box = player.locator("#odds").bounding_box()
    bar_box = player.get_by_test_id("roll-bar").bounding_box()
    assert odds_box["y"] + odds_box["height"] <= bar_box["y"], "the roll bar hides the odds"
    in_view(request, player, "1-phone-opposed-odds")
    shot(player, "1-phone-opposed-odds")
    assert overflow(player) == 0, f"{overflow(player)} px wider than the phone (1 opposed tray)"

    # 2. The player rolls from the roll bar, where the thumb is; the line reaches both
    # pages live.
    seq = roll(player, player.get_by_test_id("roll-bar-roll"), rolled(player))
    stored = services.payload(RollEvent.objects.get(campaign=campaign, seq=seq))
    assert (stored["character"], stored["test_base"]) == ("Jace", CLIMBING)
    winner = {1: "Jace wins", -1: "Vakten wins", 0: "nobody wins: tied every time"}[
        stored["opposed"]["winner"]
    ]
    for page in (player, gm):
        line = page.locator(f"#roll-log #roll-{seq}")
        expect(line.get_by_test_id("roll-opposed")).to_be_visible(timeout=LIVE)
        expect(line.get_by_test_id("roll-winner")).to_have_text(winner)
        expect(line).to_contain_text(f"against Vakten {GUARD}")
        # Both sides' dice: Jace's first roll at Ob3T6 and Vakten's.
        expect(line.locator(".opposed-side")).to_have_count(2)
    assert gm.evaluate("() => window.stillTheSamePage === true"), "the GM's page reloaded"
    player.locator(f"#roll-{seq}").scroll_into_view_if_needed()
    in_view(request, player, "2-phone-opposed-line")
    shot(player, "2-phone-opposed-line")
    shot(gm, "2-gm-opposed-line")
    assert overflow(player) == 0, f"{overflow(player)} px wider than the phone (2 opposed line)"

    # A plain success test of Klättra: the roll the GM will oppose (an opposed test is
    # never offered as an earlier roll).
    tray.locator("input[name=mode][value=test]").check()
    odds_requests.settle()
    expect(fields).to_be_hidden()
    expect(player.get_by_test_id("odds-dice")).to_have_text("Ob3T6", timeout=LIVE)
    earlier = roll(player, tray.locator("button[type=submit].primary"), str(seq))
    expect(gm.locator(f"#roll-log #roll-{earlier}")).to_contain_text("Jace", timeout=LIVE)
    expect(gm.locator(f"#roll-{earlier}").get_by_test_id("roll-opposed")).to_have_count(0)

    # 3. The GM opposes it in secret with Kommissarien's SYN 12. The tray lists the earlier
    # rolls when the page is made, so the GM loads the table again to see the new one.
    gm.reload()
    gm.wait_for_load_state("load")
    expect(gm.locator("#live-status")).to_have_attribute("data-state", "live")
    gm_tray = gm.locator("#tray-form")
    gm_fields = gm_tray.get_by_test_id("opposed-fields")
    gm_odds = OddsRequests(gm)
    gm_tray.locator("input[name=mode][value=opposed]").check()
    gm_odds.settle()
    gm_tray.locator("select[name=character]").select_option(str(inspector.pk))
    gm_odds.settle()
    gm_tray.locator("select[name=stat]").select_option("sight")
    gm_odds.settle()
    opponent = gm_fields.locator("select[name=opponent]")
    expect(opponent.locator(f"option[value='roll:{earlier}']")).to_have_text(
        re.compile(rf"^#{earlier} Jace · ")
    )
    # Jace's opposed roll is not offered: it was against Vakten already.
    expect(opponent.locator(f"option[value='roll:{seq}']")).to_have_count(0)
    opponent.select_option(f"roll:{earlier}")
    gm_odds.settle()
    expect(gm_fields.locator(".opponent-earlier")).to_be_visible()
    expect(gm_fields.locator("select[name=opponent_difficulty]")).to_be_hidden()
    expect(gm_fields.locator("input[name=opponent_name]")).to_be_hidden()
    gm_tray.locator("input[name=secret]").check()
    gm_odds.settle()
    expect(gm.get_by_test_id("odds-opponent")).to_contain_text(f"#{earlier} Jace", timeout=LIVE)
    system = campaign.system
    earlier_result = system.result_of(RollEvent.objects.get(campaign=campaign, seq=earlier).detail)
    inspector_plan = system.plan_test(
        {"chance": INSPECTOR_SIGHT},
        {"stat": "chance", "label": "SYN", "difficulty": 3},
        campaign.house(),
    )
    overcome = float(system.delayed_odds(inspector_plan, earlier_result)) * 100
    assert abs(percent(gm.get_by_test_id("odds-win")) - overcome) <= 0.051, overcome
    shot(gm, "3-gm-opposes-the-earlier-roll-in-secret")

    secret = roll(gm, gm_tray.locator("button[type=submit].primary"), None)
    stored = services.payload(RollEvent.objects.get(campaign=campaign, seq=secret))
    assert stored["secret"] is True
    assert (stored["character"], stored["against"]["seq"]) == ("Kommissarien", earlier)
    gm_line = gm.locator(f"#roll-log #roll-{secret}")
    expect(gm_line.get_by_test_id("roll-winner")).to_have_text(
        "overcomes it" if stored["against"]["overcomes"] else "does not overcome it",
        timeout=LIVE,
    )
    expect(gm_line).to_contain_text(f"#{earlier} Jace")
    expect(gm_line).to_contain_text("secret: only you see this")
    # The phone learns only that the GM rolled: no character, dice, test or winner.
    phone_line = player.locator(f"#roll-log #roll-{secret}")
    expect(phone_line).to_be_visible(timeout=LIVE)
    expect(phone_line.locator(".roll-what")).to_have_text("The GM rolled in secret.")
    expect(phone_line).to_contain_text("spelledaren")
    for leak in ("Kommissarien", "Jace", f"#{earlier}", "overcome", "effect"):
        expect(phone_line).not_to_contain_text(leak)
    for testid in ("roll-winner", "roll-opposed"):
        expect(phone_line.get_by_test_id(testid)).to_have_count(0)
    expect(phone_line.locator(".die")).to_have_count(0)
    shot(gm, "4-gm-secret-opposed-line")
    player.locator(f"#roll-{secret}").scroll_into_view_if_needed()
    in_view(request, player, "4-phone-sees-only-a-secret-roll")
    assert overflow(player) == 0, f"{overflow(player)} px wider than the phone (3 secret line)"

    # 4. A bare hand: 1T10, its range before the roll and its total after it.
    tray.locator("input[name=mode][value=hand]").check()
    odds_requests.settle()
    expect(tray.locator(".test-fields")).to_be_hidden()
    hand = tray.locator("input[name=hand]")
    expect(hand).to_be_visible()
    type_into(hand, "1T10", odds_requests)
    expect(player.get_by_test_id("odds-hand")).to_have_text("1T10", timeout=LIVE)
    expect(player.get_by_test_id("odds-range")).to_have_text("from 1 to 10")
    player.locator("#odds").evaluate("odds => odds.scrollIntoView({block: 'center'})")
    in_view(request, player, "5-phone-hand-odds")
    assert overflow(player) == 0, f"{overflow(player)} px wider than the phone (4 hand tray)"
    hand_seq = roll(player, player.get_by_test_id("roll-bar-roll"), str(earlier))
    totals = []
    for page in (player, gm):
        total = page.locator(f"#roll-log #roll-{hand_seq}").get_by_test_id("roll-hand-total")
        expect(total).to_have_text(re.compile(r"^(10|[1-9])$"), timeout=LIVE)
        totals.append(int(total.inner_text()))
    assert (
        totals[0] == totals[1] == RollEvent.objects.get(campaign=campaign, seq=hand_seq).result
    ), totals
    assert player.evaluate("() => window.stillTheSamePage === true"), "the phone reloaded"
    shot(player, "6-phone-after-the-hand")
    in_view(request, player, "6-phone-after-the-hand")
    shot(gm, "6-gm-after-the-hand")

    # 5. Nothing sideways on the phone (checked at each step above too), no errors on
    # either page. Measured against the layout's clientWidth: with is_mobile, Chromium
    # widens window.innerWidth with the page, so scrollWidth <= innerWidth always holds.
    assert overflow(player) == 0, f"{overflow(player)} px wider than the phone (end)"
    assert player_watch.problems == [], player_watch.problems
    assert gm_watch.problems == [], gm_watch.problems  # a page left is no fault
    assert player_watch.refusals == gm_watch.refusals == 0
    gm_context.close()
    player_context.close()
