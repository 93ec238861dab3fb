"""A new group's first evening in every system, from nothing (issue 43): no demo data, no
rows made by the test. On the real server (granian, the live stream):

1. The GM signs up on a laptop through the header's link, is shown how to start a
   campaign, and starts one of the system.
2. A player on a 360 × 740 phone opens the invitation logged out, takes the header's
   "Sign up" (the link keeps the invitation) and lands in the campaign, seated.
3. The player builds a character in the campaign.
4. The GM opens a fight, adds the character and an NPC with what the new campaign's
   catalogue offers (the engine's starter set: nothing added by hand), and starts it.
5. On the phone the player moves and attacks from the map: what each tap offers is on the
   screen at once and does not hide the token it concerns, and a tap 15 px off the foe's
   centre chooses the foe. The attack resolves on both pages (the GM answers for the NPC).

Every page of the evening, and the map with what a tap offers, is checked as the sweep
checks a page (test_sweep.check: nothing wider than 360 px, controls of 44 px, axe-core).
"""

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_map import STILL, screen_point
from tests.browser.test_sweep import check
from tests.browser.watch import PageWatch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "hjortspår-i-frusen-mark"
LAPTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
LIVE = 10_000  # ms: what the stream brings to the other page
OFF = 15  # px off the foe's centre where the player taps it

# Per system: the character as typed in its builder, the NPC's form, the weapons chosen
# from the starter catalogue, where both stand, where the player moves to, and what the
# GM answers for the NPC once the attack is made.
SYSTEMS = {
    "aoristos": {
        # KAO 2: HK 8 (KAO + SIN/2 + 4, p. 2), so that the worst stress roll (6, p. 6) still
        # leaves the move's 1 KP and the attack's 1: with HK 7 one start in 36 left 1 KP and
        # the attack was refused (seen twice, on PostgreSQL, as a missing vigilance prompt).
        "character": {"#id_alertness": "5", "#id_agility": "3", "#id_melee_weapons": "2",
                      "#id_composure": "2"},
        "npc": {"name": "Rövaren", "alertness": "1"},
        "weapon": "knife", "npc_weapon": "knife",
        "at": (0, 0), "foe": (4, 0), "move": (2.5, 0),
    },
    "t10": {
        "character": {"#id_pistol": "2"},
        "npc": {"name": "Rövaren", "initiative": "-10"},
        "weapon": "pistol", "npc_weapon": "kniv",
        "at": (0, 0), "foe": (10, 0), "move": (2, 0),
    },
    "phobia": {
        "character": {},
        "npc": {"name": "Rövaren", "turn_order": "1"},
        "weapon": "kniv", "npc_weapon": "batong",
        "at": (0, 0), "foe": (6, 0), "move": (1.5, 0),
    },
}


def device(browser, kind):
    context = browser.new_context(**kind)
    page = context.new_page()
    return context, page, PageWatch(page)


def screen(page, name):
    """What the screen shows now (the viewport, as the phone shows it)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"test_first_evening-{name}.png"
    page.screenshot(path=str(path))
    return path


def sign_up(page, username):
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name=re.compile("Skapa konto|Create account")).click()


def checked(page, name, shot) -> list[str]:
    """test_sweep.check of the page as it is, the page left where it was (axe-core scrolls
    what it measures into view)."""
    x, y = page.evaluate("[window.scrollX, window.scrollY]")
    problems = check(page, name, shot)
    page.evaluate("([x, y]) => window.scrollTo(x, y)", [x, y])
    return problems


def as_phone(page, look):
    """`look()` with the laptop's page at a phone's size for a moment (the GM's pages are
    used on phones too)."""
    page.set_viewport_size(PHONE["viewport"])
    try:
        return look()
    finally:
        page.set_viewport_size(LAPTOP["viewport"])


def on_screen(page, locator):
    """Whether the element is wholly inside the viewport (no scrolling needed)."""
    box = locator.bounding_box()
    size = page.viewport_size
    return bool(box) and box["y"] >= 0 and box["x"] >= 0 and (
        box["y"] + box["height"] <= size["height"]) and box["x"] + box["width"] <= size["width"]


def not_under_the_sheet(page, x, y):
    """The map point (x, y) m is on the screen above the sheet of what the tap offers."""
    px, py = screen_point(page, x, y)
    top = page.get_by_test_id("map-sheet").bounding_box()["y"]
    return 0 <= py < top and 0 <= px <= page.viewport_size["width"]


def settle(gm, phone, system):
    """What the attack waits for, answered as the table would: the GM's NPC takes the
    suggested vigilance (Aoristos) or no response (Phobia); the player follows the NPC's
    vigilance move and goes on with a hit within 10 m (Aoristos' abort prompt). T10's
    waits for no one here."""
    gm_answer = {"aoristos": "vigilance-default", "phobia": "pass"}.get(system)
    if gm_answer:
        gm.get_by_test_id(gm_answer).click(timeout=LIVE)
    if system == "aoristos":
        # A vigilance move with RÖR in melee asks the attacker whether to follow (p. 9):
        # Lina follows, keeping the melee. Then a hit within 10 m may still be aborted.
        follow = phone.get_by_test_id("follow-go")
        proceed = phone.get_by_test_id("proceed")
        done = phone.locator("#encounter-state:not(:has([data-testid^=prompt-]))")
        expect(follow.or_(proceed).or_(done).first).to_be_visible(timeout=LIVE)
        if follow.is_visible():
            follow.click()
            expect(follow).to_have_count(0, timeout=LIVE)
            expect(proceed.or_(done).first).to_be_visible(timeout=LIVE)
        if proceed.is_visible():
            proceed.click()


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_a_new_group_plays_its_first_evening(browser, site_server, system, shot):
    plan = SYSTEMS[system]
    url = site_server.url
    problems = []

    # 1. The GM signs up through the header's link and starts a campaign.
    gm_context, gm, gm_watch = device(browser, LAPTOP)
    gm.goto(url + "/")
    gm.locator("header.site").get_by_role("link", name=re.compile("Registrera dig|Sign up")).click()
    sign_up(gm, f"ledaren-{system}")
    expect(gm.get_by_test_id("no-campaign")).to_be_visible()
    problems += as_phone(gm, lambda: checked(gm, f"{system}-00-gm-in-no-campaign", shot))
    gm.get_by_test_id("start-campaign").click()
    gm.fill("#id_name", f"Första kvällen ({system})")
    gm.select_option("#id_rule_system", system)
    gm.get_by_role("button", name=re.compile("Skapa kampanj|Create campaign")).click()
    expect(gm).to_have_url(re.compile(r"/campaigns/\d+/$"))
    campaign = Campaign.objects.get(gm__username=f"ledaren-{system}")
    assert campaign.rule_system == system
    invitation = urlsplit(gm.get_by_test_id("invite-url").input_value()).path

    # 2. The player opens the invitation logged out and signs up through the header.
    phone_context, phone, phone_watch = device(browser, PHONE)
    phone.goto(url + invitation)
    expect(phone).to_have_url(re.compile(r"/accounts/login/\?next=/campaigns/join/"))
    problems += checked(phone, f"{system}-01-invited-log-in", shot)
    phone.locator("header.site").get_by_role(
        "link", name=re.compile("Registrera dig|Sign up")).click()
    expect(phone.get_by_test_id("invited")).to_contain_text(campaign.name)
    problems += checked(phone, f"{system}-02-sign-up-joins", shot)
    sign_up(phone, f"spelaren-{system}")
    expect(phone).to_have_url(re.compile(rf"/campaigns/{campaign.pk}/$"))
    assert campaign.memberships.filter(user__username=f"spelaren-{system}").exists()
    problems += checked(phone, f"{system}-03-in-the-campaign", shot)

    # 3. The player builds a character in the campaign.
    phone.get_by_role("link", name=re.compile(
        "Skapa en rollperson i den här kampanjen|Create a character in this campaign")).click()
    phone.fill("#id_name", "Lina")
    for field, value in plan["character"].items():
        phone.fill(field, value)
    phone.wait_for_load_state("networkidle")
    problems += checked(phone, f"{system}-04-builder", shot)
    phone.get_by_role("button", name=re.compile("^(Spara|Save)$")).click()
    expect(phone).to_have_url(re.compile(r"/characters/\d+/$"))
    lina = campaign.characters.get(name="Lina")

    # 4. The GM opens a fight and adds Lina and an NPC from the starter catalogue.
    gm.goto(f"{url}/campaigns/{campaign.pk}/encounters/")
    gm.fill("#id_name", "Gränden")
    gm.get_by_role("button", name=re.compile("Skapa|Create")).first.click()
    expect(gm).to_have_url(re.compile(r"/encounters/\d+/$"))
    fight_path = urlsplit(gm.url).path
    problems += as_phone(gm, lambda: checked(gm, f"{system}-00-gm-new-fight", shot))
    add = gm.locator("form:has(input[name=source][value=character])")
    add.locator("select[name=character]").select_option(str(lina.pk))
    add.locator("select[name=weapons]").select_option(plan["weapon"])
    x, y = plan["at"]
    add.locator("input[name=x]").fill(str(x))
    add.locator("input[name=y]").fill(str(y))
    if system == "t10":  # the pistol drawn: from Normal no attack ("Ställningar")
        add.locator("select[name=stance]").select_option("ready")
    add.locator("button[type=submit]").click()
    expect(gm.get_by_test_id("combatants")).to_contain_text("Lina", timeout=LIVE)
    npc = gm.locator("form:has(input[name=source][value=block])")
    for name, value in plan["npc"].items():
        npc.locator(f"input[name={name}]").fill(value)
    npc.locator("select[name=weapons]").select_option(plan["npc_weapon"])
    fx, fy = plan["foe"]
    npc.locator("input[name=x]").fill(str(fx))
    npc.locator("input[name=y]").fill(str(fy))
    npc.locator("button[type=submit]").click()
    expect(gm.get_by_test_id("combatants")).to_contain_text("Rövaren", timeout=LIVE)
    expect(gm.get_by_test_id("weaponless")).to_have_count(0)
    gm.get_by_test_id("start-round" if system == "phobia" else "start").click()

    # 5. The player, on the phone, moves and attacks from the map.
    phone.goto(url + fight_path)
    expect(phone.locator("#live-status")).to_have_attribute("data-state", "live", timeout=LIVE)
    if system == "phobia":  # two active actions: a move, then the attack (lines 724-729)
        phone.get_by_test_id("declare-actions").fill("2")
        phone.get_by_test_id("declare").click()
        expect(phone.get_by_test_id("attack-options")).to_be_visible(timeout=LIVE)
    expect(phone.get_by_test_id("token-c1")).to_have_class(re.compile(r"\bactive\b"),
                                                          timeout=LIVE)
    problems += checked(phone, f"{system}-05-fight-on-the-phone", shot)
    phone.get_by_test_id("map-viewport").scroll_into_view_if_needed()
    phone.wait_for_function(STILL, polling="raf", timeout=LIVE)
    mx, my = plan["move"]
    phone.mouse.click(*screen_point(phone, mx, my))
    move = phone.get_by_test_id("map-move")
    expect(move).to_be_visible(timeout=LIVE)
    assert on_screen(phone, move), "the move is offered on the screen"
    assert not_under_the_sheet(phone, mx, my), "the point tapped stays in sight"
    screen(phone, f"{system}-06-move-offered")
    problems += checked(phone, f"{system}-06-move-offered", shot)
    move.click()
    for page in (gm, phone):
        expect(page.get_by_test_id("map-svg")).to_have_attribute(
            "data-positions", re.compile(rf"c1:{mx:g},{my:g}\b"), timeout=LIVE)

    # Scrolled down to the log, the turn finds the player: the banner says it and takes
    # the map back into sight.
    phone.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    turn = phone.get_by_test_id("prompt-banner-turn")
    expect(turn).to_be_visible(timeout=LIVE)
    expect(turn).to_contain_text(re.compile("Lina: (din tur|your turn)"))
    screen(phone, f"{system}-06b-your-turn-in-the-banner")
    turn.click()
    expect(phone.get_by_test_id("map-viewport")).to_be_in_viewport(timeout=LIVE)
    expect(turn).to_be_hidden(timeout=LIVE)

    # The foe, tapped 15 px beside its centre (a finger, not a pin).
    phone.wait_for_function(STILL, polling="raf", timeout=LIVE)
    px, py = screen_point(phone, fx, fy)
    phone.mouse.click(px, py + OFF)
    foe = phone.get_by_test_id("map-foe")
    expect(foe).to_contain_text("Rövaren", timeout=LIVE)
    expect(phone.get_by_test_id("map-move")).to_have_count(0)  # no move where a foe was meant
    attack = phone.get_by_test_id("map-attack")
    expect(attack).to_be_visible(timeout=LIVE)
    screen(phone, f"{system}-07-attack-offered")
    assert on_screen(phone, attack), "the attack is offered on the screen"
    assert not_under_the_sheet(phone, fx, fy), "the foe stays in sight above the sheet"
    problems += checked(phone, f"{system}-07-attack-offered", shot)
    attack.click()
    settle(gm, phone, system)

    # The attack resolves on both pages: the panel waits for nothing, and both logs tell it.
    for page in (gm, phone):
        expect(page.locator("#encounter-state [data-testid^=prompt-]")).to_have_count(
            0, timeout=LIVE)
        expect(page.locator("#roll-log li.combat-record").filter(
            has_text=re.compile("Rövaren")).first).to_be_visible(timeout=LIVE)
    screen(phone, f"{system}-08-after-the-attack")
    screen(gm, f"{system}-08-gm-after-the-attack")

    assert problems == [], "\n".join(problems)
    assert gm_watch.problems == []
    assert phone_watch.problems == []
    gm_context.close()
    phone_context.close()

