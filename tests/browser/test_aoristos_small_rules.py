"""Issue 45's smaller Aoristos rules, played on the fight page by the GM on a 360 px phone:

1. the pack house rule (p. 7): the house-rules line says "ur packning +1 KP"; an NPC added
   from the page's form with a hand grenade "Nedpackat" draws it for 2 KP;
5. auto fire (p. 9, 11): the attack preview gives one hand per projectile count, "(färst
   projektiler) till … (flest)", and the machine gun fires;
2. a belt-fed weapon (p. 11): the gunner's assistant, beside him, feeds the belt ("Mata
   bältet", 5 KP) and the log says whose belt;
3. an unarmed attack's limb (p. 8): a kick chosen in "Obeväpnad, slå med" misses a knife's
   parry, which hits back in the kicking leg;
4. an interrupted windup (p. 7): the grenade wound up, a hazard breaks the arm holding it:
   it falls and lies armed at the thrower's feet.

The server runs in another process, so its dice cannot be scripted: the stats make the
outcomes certain. The kick: Slagsmål 0 and RÖR 0 against the fencer's Närstridsvapen 20
cannot hit; the parry's 1B against Härdighet 1 deals 1 to 6, on the leg (VIL 9,
Chocktolerans 12: conscious). The hazard: 1B+11 against the packer's Härdighet 4 deals 3
or 4 to the right arm: broken (3+), so the hand lets go (p. 14). Every NPC added here has
Handlingskraft 20 (KP 14 or more after the stress roll); the packer, from the form, 13.

The fight is set up in the test's process (services); everything played happens through the
page's own forms and buttons. Each step's screenshot is kept (the `shot` fixture).
"""

import re

import pytest
from playwright.sync_api import expect

from campaigns.services import campaign_create
from combat import services
from combat.models import Encounter
from tests.browser.test_combat import gm_form, real_user
from tests.browser.test_fight_controls import too_small
from tests.browser.test_prompts import LIVE, open_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NARROW = {"width": 360, "height": 780}


def npc(name, side, x, y, alertness, **extra):
    return {"type": "add_combatant", "name": name, "side": side, "x": x, "y": y,
            "physique": 3, "composure": 3, "agility": 2, "alertness": alertness,
            "willpower": 5, "drive": 20, **extra}


@pytest.fixture
def setting_up(django_user_model):
    """An Aoristos fight not yet started, all NPCs (the GM's), in SIN order: Gustav with a
    machine gun and Hedda beside him (side a); Bruno, who kicks, 1 m from Fäktaren with a
    knife; the target far away. The packer is added on the page."""
    gm = real_user(django_user_model, "smaregler")
    campaign = campaign_create(gm=gm, name="Småreglerna")
    encounter = Encounter.objects.create(campaign=campaign, name="Fabriken", system="aoristos")
    membership = campaign.memberships.get(user=gm)
    for data in (
        npc("Gustav", "a", 0.0, 0.0, 10, skills={"firearms": 3},
            weapons=["machine_gun"], right="machine_gun", left="machine_gun"),
        npc("Hedda", "a", 1.0, 0.0, 9),
        npc("Bruno", "a", 0.0, 10.0, 8, physique=0, agility=0, willpower=9,
            skills={"brawling": 0}),
        npc("Fäktaren", "b", 1.0, 10.0, 2, skills={"melee_weapons": 20},
            weapons=["knife"], right="knife"),
        npc("Målet", "b", 25.0, 0.0, 1, physique=9),
    ):
        encounter.refresh_from_db()
        services.command_run(membership=membership, data=data, version=encounter.version,
                             encounter_id=encounter.pk)
    encounter.refresh_from_db()
    return encounter


def fits(page, root=None):
    """Nothing wider than the phone; every visible button in `root` 44 px or more."""
    assert page.evaluate("document.documentElement.scrollWidth") <= NARROW["width"], wide(page)
    if root is not None:
        assert too_small(page, root) == []


def wide(page) -> list[str]:
    """What sticks out past the phone's right edge (to say what a failure is)."""
    return page.evaluate("""(w) => [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > w + 0.5)
        .map((el) => `${el.tagName}.${el.className} ${el.getBoundingClientRect().right}`
                     + `: ${el.textContent.trim().slice(0, 40)}`)""", NARROW["width"])


@pytest.fixture
def snap(shot):
    """snap(page, name): the whole page (the `shot` fixture) and what the phone's screen
    shows now, scrolled to the step (name-screen)."""

    def take(page, name):
        whole = shot(page, name)
        page.screenshot(path=str(whole.with_name(whole.stem + "-screen.png")))

    return take


def labelled(root, selector):
    """The label in `root` around the field `selector`."""
    return root.locator("label").filter(has=root.page.locator(selector))


def show(locator, block="center"):
    """Scroll the page so the phone's screen shows `locator` (for the screenshot)."""
    locator.evaluate("(el, block) => el.scrollIntoView({block})", block)


def kp(turn) -> int:
    return int(turn.get_by_test_id("kp").inner_text())


def end_activation(page, next_name):
    page.get_by_test_id("your-turn").get_by_test_id("action-end_activation").click()
    expect(page.get_by_test_id("your-turn").locator("h2")).to_contain_text(next_name,
                                                                           timeout=LIVE)


def test_the_small_rules_of_issue_45_on_a_phone(browser, site_server, setting_up, snap):
    page, errors = open_page(browser, site_server, "smaregler", NARROW,
                             f"/encounters/{setting_up.pk}/")
    log = page.locator("#roll-log")
    gm = page.get_by_test_id("gm-panel")

    # 1. The house rules say what a pack costs; the packer comes from the NPC form with
    # his grenade packed away.
    expect(gm.locator("p.house")).to_contain_text(
        re.compile(r"ur packning \+1 KP|out of a pack \+1 KP"))
    form = page.get_by_test_id("npc-form")
    form.get_by_test_id("npc-name").fill("Packaren")
    for name, value in {"physique": "3", "composure": "6", "agility": "2", "alertness": "7",
                        "willpower": "5", "skill_throwing": "2", "side": "a", "x": "0",
                        "y": "-10"}.items():
        form.locator(f'input[name="{name}"]').fill(value)
    form.locator('select[name="weapons"]').select_option(["hand_grenade"])
    packed = form.locator('select[name="packed"]')
    expect(labelled(form, 'select[name="packed"]')).to_contain_text(
        re.compile("Nedpackat|Packed away"))
    packed.select_option(["hand_grenade"])
    show(packed)
    snap(page, "01-packer-added-with-the-grenade-packed")
    form.get_by_test_id("npc-submit").click()
    packer = page.get_by_test_id("combatant-c6")
    expect(packer).to_contain_text("Packaren")
    expect(packer).not_to_contain_text("Handgranat")  # not in hand
    fits(page)

    page.get_by_test_id("start").click()
    turn = page.get_by_test_id("your-turn")
    expect(turn.locator("h2")).to_contain_text("Gustav", timeout=LIVE)

    # 5. Auto fire: the preview names the attack hand at the fewest projectiles and at
    # the most, and each count's own hand.
    expect(turn.get_by_test_id("attack-weapon")).to_have_value("machine_gun")
    turn.get_by_test_id("attack-target").select_option(label="Målet")
    preview = turn.get_by_test_id("preview-ok")
    expect(preview).to_contain_text(re.compile(
        r"\S+ \((färst projektiler|fewest projectiles)\) (till|to) \S+ \((flest|most)\)"))
    shots = turn.get_by_test_id("preview-shots")
    expect(shots).to_contain_text(re.compile(r"\d+ \(\d+B[^)]*\): \d"))
    assert shots.locator(".pct").count() > 1
    show(preview, "start")
    fits(page, turn)
    snap(page, "02-auto-fire-hands")
    turn.get_by_test_id("attack-submit").click()
    prompt = page.get_by_test_id("prompt-vigilance")
    expect(prompt).to_be_visible(timeout=LIVE)
    prompt.get_by_test_id("vigilance-default").click()
    expect(prompt).to_have_count(0, timeout=LIVE)
    expect(log).to_contain_text(re.compile(r"skott avlossade|rounds fired"), timeout=LIVE)
    end_activation(page, "Hedda")

    # 2. Hedda feeds Gustav's belt: 5 KP, and the log says whose belt.
    feed = turn.get_by_test_id("action-reload_for")
    expect(feed).to_contain_text(re.compile(r"(Mata bältet|Feed the belt): Kulspruta \(Gustav\)"))
    expect(feed).to_contain_text("5 KP")
    before = kp(turn)
    feed.click()
    expect(log.locator("li").first).to_contain_text(re.compile(
        r"Hedda (träder in ett nytt bälte i Kulspruta åt Gustav|feeds a belt into Gustav's "
        r"Kulspruta) \(5 KP\)"), timeout=LIVE)
    expect(turn.get_by_test_id("kp")).to_have_text(str(before - 5))
    expect(turn.get_by_test_id("action-reload_for")).to_have_count(0)  # the belt is full
    fits(page, turn)
    show(log.locator("li").first)
    snap(page, "03-belt-fed-by-the-assistant")
    end_activation(page, "Bruno")

    # 3. Bruno kicks with his right leg; the knife's parry hits back in that leg.
    attack = turn.get_by_test_id("attack-form")
    turn.get_by_test_id("attack-target").select_option(label="Fäktaren")
    turn.get_by_test_id("attack-weapon").select_option("unarmed")
    limb = attack.locator('select[name="limb"]')
    expect(labelled(attack, 'select[name="limb"]')).to_contain_text(
        re.compile("Obeväpnad, slå med|Unarmed, strike with"))
    limb.select_option("right_leg")
    expect(turn.get_by_test_id("preview-hit")).to_have_text(re.compile(r"^0([,.]0)? %$"))
    limb.scroll_into_view_if_needed()
    snap(page, "04-kick-with-the-right-leg")
    turn.get_by_test_id("attack-submit").click()
    prompt = page.get_by_test_id("prompt-vigilance")
    expect(prompt).to_be_visible(timeout=LIVE)
    parry = prompt.locator('input[name="properties"][value="melee_weapons"]')
    expect(parry).to_be_checked()  # the suggestion: the fencer's Närstridsvapen 20
    prompt.get_by_test_id("vigilance-submit").click()
    # The fencer's RÖR steps 1 m away in the melee: Bruno, the attacker, may follow (p. 9).
    page.get_by_test_id("follow-stay").click(timeout=LIVE)
    expect(log).to_contain_text("parry 1B", timeout=LIVE)
    expect(log.locator("li", has_text="parry 1B")).to_contain_text(
        re.compile(r"Bruno \((Höger ben|Right leg)\)"))
    expect(page.get_by_test_id("wounds-c3")).to_contain_text(re.compile("Höger ben|Right leg"))
    page.get_by_test_id("wounds-c3").scroll_into_view_if_needed()
    fits(page)
    snap(page, "05-parried-in-the-kicking-leg")
    end_activation(page, "Packaren")

    # 1. (cont.) The packer draws the grenade out of his pack: 2 KP, by the house rule.
    draw = turn.get_by_test_id("action-draw").filter(has_text="Handgranat")
    expect(draw).to_contain_text("2 KP")
    before = kp(turn)
    draw.click()
    expect(log.locator("li").first).to_contain_text("Handgranat (2 KP)", timeout=LIVE)
    expect(turn.get_by_test_id("kp")).to_have_text(str(before - 2))
    expect(packer).to_contain_text("Handgranat")  # in hand now
    fits(page, turn)
    show(turn, "start")
    snap(page, "06-grenade-drawn-out-of-the-pack")

    # 4. He winds it up; a hazard breaks the arm that holds it: it falls, armed.
    turn.get_by_test_id("action-windup").filter(has_text="Handgranat").click()
    expect(page.get_by_test_id("armed-c6")).to_contain_text(
        re.compile("Handgranat (apterad i handen|armed in the hand)"), timeout=LIVE)
    hazard = gm_form(page, "hazard")
    hazard.locator('select[name="id"]').select_option(label="Packaren")
    hazard.locator('input[name="hand"]').fill("1B+11")
    hazard.locator('select[name="area"]').select_option("right_arm")
    hazard.locator('input[name="label"]').fill("Splitter")
    hazard.locator('button[type="submit"]').click()
    expect(page.get_by_test_id("armed-ground-c6")).to_contain_text(
        re.compile("Handgranat (ligger apterad vid fötterna|lies armed at the feet)"),
        timeout=LIVE)
    expect(page.get_by_test_id("armed-c6")).to_have_count(0)
    expect(log.locator("li").first).to_contain_text(
        re.compile(r"Handgranat (faller till marken, apterad|falls to the ground, armed)"))
    page.get_by_test_id("armed-ground-c6").scroll_into_view_if_needed()
    fits(page)
    snap(page, "07-grenade-lies-armed")
    assert errors == []
