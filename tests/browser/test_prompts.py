"""A prompt finds its player, and a running fight is one tap away (issue 26): an Aoristos
fight with the GM on a laptop and two players on phones. Two NPCs act first (SIN 9 and 8)
and each attacks a player's character with a knife, 1 m away. The first player has
scrolled to the bottom of the encounter page: the vigilance prompt comes into view, the
tab's title changes, the phone vibrates and screen readers hear it. The second player is
on the table page: a banner "Du anfalls — svara" with the countdown links to the fight,
which opens with the prompt in view; the table page also shows the running fight and
links the fight's log lines to it.

The fight is set up and started in the test's process (the server reads it from the
database); everything after happens through the pages, on the real server process.
"""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat import services
from combat.models import Encounter
from rules.aoristos.combat import ENGINE
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_combat import PASSWORD, real_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
LIVE = 3_000  # ms
ATTACKED = re.compile("Du anfalls — svara|You are attacked — answer")
# navigator.vibrate, counted (a headless browser has nothing to vibrate).
COUNT_VIBRATIONS = (
    "window.__vibrations = [];"
    "navigator.vibrate = (p) => { window.__vibrations.push(p); return true; };"
)


def npc(name, x, alertness):
    return {"type": "add_combatant", "name": name, "side": "b", "x": x, "y": 0.0,
            "physique": 4, "composure": 3, "agility": 4, "alertness": alertness,
            "willpower": 4, "skills": {"melee_weapons": 3}, "drive": 14,
            "weapons": ["knife"], "right": "knife"}


@pytest.fixture
def fight(django_user_model):
    return make_fight(django_user_model, start=True)


@pytest.fixture
def unstarted(django_user_model):
    return make_fight(django_user_model, start=False)


def make_fight(django_user_model, start):
    gm = real_user(django_user_model, "spelledaren")
    players = [real_user(django_user_model, name) for name in ("albertsspelare", "beritsspelare")]
    campaign = campaign_create(gm=gm, name="Nattens kant")
    encounter = Encounter.objects.create(campaign=campaign, name="Bakgården", system="aoristos")
    gm_membership = campaign.memberships.get(user=gm)

    def run(data, controller=None):
        encounter.refresh_from_db()
        services.command_run(membership=gm_membership, data=data, version=encounter.version,
                             encounter_id=encounter.pk, controller=controller)

    for seat, (player, name, x) in enumerate(
            zip(players, ("Albert", "Berit"), (0.0, 10.0), strict=True), 1):
        Membership.objects.create(campaign=campaign, user=player, seat=seat)
        character = Character.objects.create(
            owner=player, campaign=campaign, name=name,
            attributes={"physique": 3, "composure": 3, "agility": 3, "alertness": seat,
                        "willpower": 4},
            skills={"evasion": 2, "melee_weapons": 1},
        )
        block = ENGINE.character_block(name=name, levels=character.levels(),
                                       derived=character.secondary().as_dict())
        block.update(character_id=character.pk, side="a", x=x, y=0.0)
        run(block, controller=player.pk)
    run(npc("Torped", 1.0, 9))  # attacks Albert
    run(npc("Vakten", 11.0, 8))  # attacks Berit
    if start:
        run({"type": "start"})
    encounter.refresh_from_db()
    return encounter


def open_page(browser, site_server, username, viewport, path):
    context = browser.new_context(viewport=viewport, has_touch=viewport is PHONE)
    context.add_init_script(COUNT_VIBRATIONS)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site_server.url}/accounts/login/?next={path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    return page, errors


def screen(page, name):
    """What the phone's screen shows now (the viewport, not the whole page)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"test_prompts-{name}.png"))


def attack(gm, target):
    """The GM's NPC attacks `target` with its knife from the activation's attack form."""
    turn = gm.get_by_test_id("your-turn")
    turn.get_by_test_id("attack-target").select_option(label=target)
    turn.get_by_test_id("attack-weapon").select_option("knife")
    turn.get_by_test_id("attack-submit").click()


def settle_attack(gm):
    """After the vigilance: the GM's NPC follows a vigilance move in the melee (p. 9), goes
    on with a hit within 10 m (the abort prompt), and ends the NPC's activation."""
    follow = gm.get_by_test_id("follow-go")
    proceed = gm.get_by_test_id("proceed")
    turn = gm.get_by_test_id("your-turn")
    expect(follow.or_(proceed).or_(turn).first).to_be_visible(timeout=LIVE)
    if follow.is_visible():
        follow.click()
        expect(follow).to_have_count(0, timeout=LIVE)
    expect(proceed.or_(turn).first).to_be_visible(timeout=LIVE)
    if proceed.is_visible():
        proceed.click()
    expect(gm.get_by_test_id("prompt-abort")).to_have_count(0)
    gm.get_by_test_id("your-turn").get_by_test_id("action-end_activation").click()


def test_a_prompt_finds_its_player_on_the_encounter_page_and_on_the_table(
    browser, site_server, fight, shot
):
    encounter_path = f"/encounters/{fight.pk}/"
    table_path = f"/campaigns/{fight.campaign_id}/table/"
    gm, gm_errors = open_page(browser, site_server, "spelledaren", LAPTOP, encounter_path)
    albert, albert_errors = open_page(browser, site_server, "albertsspelare", PHONE,
                                      encounter_path)
    berit, berit_errors = open_page(browser, site_server, "beritsspelare", PHONE, table_path)
    expect(gm.get_by_test_id("initiative").locator("li.active")).to_contain_text("Torped")

    # The table page: the fight is on, one tap away, and its log lines link to it.
    running = berit.get_by_test_id("running-fight")
    expect(running).to_have_text(re.compile("(Strid pågår|Fight on): Bakgården"))
    expect(running).to_have_attribute("href", encounter_path)
    expect(berit.locator("#roll-log a.fight-link").first).to_have_attribute("href",
                                                                            encounter_path)
    expect(berit.get_by_test_id("prompt-banner")).to_be_hidden()
    berit_title = berit.title()

    # A phone vibrates only for a page that has had a tap (browsers refuse it before,
    # issue 43): both players have touched their page, as a player at the table has.
    for page in (albert, berit):
        page.locator("main h1").first.click()
    # 1. Albert's player has scrolled to the bottom of the encounter page (the log).
    albert.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    prompt = albert.get_by_test_id("prompt-vigilance")
    expect(prompt).to_have_count(0)
    assert not albert.title().startswith("⚔")
    attack(gm, "Albert")

    # The prompt comes into view by itself, the title says so, the phone vibrates and
    # the alert region reads it out.
    expect(prompt).to_be_in_viewport(timeout=LIVE)
    expect(prompt.get_by_test_id("vigilance-submit")).to_be_in_viewport()
    expect(albert).to_have_title(re.compile("^⚔ Torped"))
    expect(albert.locator("#prompt-announce")).to_contain_text("Torped", timeout=LIVE)
    assert albert.evaluate("window.__vibrations.length") >= 1
    # Only the attacked player's page calls: the GM and the other player hear nothing.
    assert not gm.title().startswith("⚔")
    assert berit.title() == berit_title
    expect(berit.get_by_test_id("prompt-banner")).to_be_hidden()
    shot(albert, "01-albert-prompt-in-view")
    screen(albert, "01-albert-screen")
    prompt.get_by_test_id("vigilance-submit").click()
    expect(prompt).to_have_count(0, timeout=LIVE)
    expect(albert).not_to_have_title(re.compile("⚔"), timeout=LIVE)
    settle_attack(gm)

    # 2. Vakten attacks Berit, whose player is on the table page: the banner, with the
    # countdown to the offered default, links to the fight.
    expect(gm.get_by_test_id("initiative").locator("li.active")).to_contain_text("Vakten",
                                                                                 timeout=LIVE)
    attack(gm, "Berit")
    link = berit.get_by_test_id("prompt-banner-link")
    expect(link).to_be_visible(timeout=LIVE)
    expect(link).to_contain_text(ATTACKED)
    expect(link).to_contain_text("Bakgården")
    expect(link.get_by_test_id("prompt-banner-left")).to_have_text(re.compile(r"^(1\d|20) s$"))
    expect(link).to_be_in_viewport()
    expect(berit).to_have_title(re.compile("^⚔ "))
    expect(berit.locator("#prompt-announce")).to_contain_text(ATTACKED)
    assert berit.evaluate("window.__vibrations.length") >= 1
    # Albert's player hears nothing of Berit's prompt.
    expect(albert.get_by_test_id("prompt-vigilance")).to_be_visible(timeout=LIVE)
    expect(albert.get_by_test_id("vigilance-submit")).to_have_count(0)
    assert not albert.title().startswith("⚔")
    assert berit.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(berit, "02-berit-banner-on-the-table")
    screen(berit, "02-berit-screen")
    # Scrolled down the tray's properties, the tray's pinned chance sits below the
    # banner, not under it.
    odds = berit.locator(".tray .modes + .odds")
    berit.evaluate("""(odds) => window.scrollTo(0,
        odds.getBoundingClientRect().top + window.scrollY + 300)""", odds.element_handle())
    bar = berit.get_by_test_id("prompt-banner").bounding_box()
    pinned = odds.bounding_box()
    assert pinned["y"] >= bar["y"] + bar["height"] - 1, (bar, pinned)
    assert bar["y"] <= 1  # the banner is stuck at the top, the chance below it
    screen(berit, "02b-berit-tray-chance-below-the-banner")
    shot(gm, "03-gm-waits-for-berit")

    # Berit's player taps it: the fight opens with the prompt in view; they answer.
    link.tap()
    expect(berit).to_have_url(re.compile(f"{encounter_path}#prompt$"))
    berit_prompt = berit.get_by_test_id("prompt-vigilance")
    expect(berit_prompt.get_by_test_id("vigilance-submit")).to_be_in_viewport(timeout=LIVE)
    shot(berit, "04-berit-prompt-in-the-fight")
    screen(berit, "04-berit-screen")
    berit_prompt.get_by_test_id("vigilance-submit").tap()
    expect(gm.get_by_test_id("prompt-vigilance")).to_have_count(0, timeout=LIVE)
    expect(berit.get_by_test_id("prompt-vigilance")).to_have_count(0)
    shot(gm, "05-gm-after-berits-answer")

    assert not gm_errors, gm_errors
    assert not albert_errors, albert_errors
    assert not berit_errors, berit_errors


def test_a_fight_started_while_the_table_is_open_is_one_tap_away(
    browser, site_server, unstarted, shot
):
    """The running-fight link comes with the prompts' answer: the table page (which asks
    when a fight's record arrives) and the campaign page (which asks every few seconds)
    show a fight the GM starts while they are open, without a reload."""
    encounter_path = f"/encounters/{unstarted.pk}/"
    gm, gm_errors = open_page(browser, site_server, "spelledaren", LAPTOP, encounter_path)
    table, table_errors = open_page(browser, site_server, "beritsspelare", PHONE,
                                    f"/campaigns/{unstarted.campaign_id}/table/")
    campaign = table.context.new_page()
    campaign.goto(f"{site_server.url}/campaigns/{unstarted.campaign_id}/")
    for page in (table, campaign):
        expect(page.get_by_test_id("running-fight")).to_have_count(0)
    gm.get_by_test_id("start").click()
    expect(gm.get_by_test_id("initiative").locator("li.active")).to_contain_text("Torped")
    for page, wait in ((table, LIVE), (campaign, 6_000)):
        running = page.get_by_test_id("running-fight")
        expect(running).to_have_text(re.compile("(Strid pågår|Fight on): Bakgården"),
                                     timeout=wait)
        expect(running).to_have_attribute("href", encounter_path)
    shot(table, "table-shows-the-started-fight")
    assert table.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert gm_errors == table_errors == []
