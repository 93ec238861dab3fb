"""A fight at the table on two devices, against the real server process: the GM on a
laptop sets up an encounter and runs the NPC, the player on a phone runs Albert. An attack
exchange to a wound, a hazard that wounds Albert, a stale command, undo and redo; every
change shows on the other device without a reload.

The server runs in another process, so its dice cannot be scripted: the stats make the
outcomes certain instead. Albert (Skjutvapen 4, RÖR 2, SIN 5: TB 6) fires a pistol at a
guard 5 m away (SIN 1: Albert acts first). The GM is offered the guard's best vigilance
and sees the chance fall with each property, but defends with Undvika 3 alone, plus the
round-1 SIN bonus 1 (ST 4): a 2B2T counts at least 2, so the shot hits, within 10 m (the
abort prompt), with active strength 2 × the counted dice + 6, 10 to 30, against Härdighet 7:
a wound of 1 to 4, which leaves the guard (VIL 7, Chocktolerans 10) conscious and, but
for a chance of about 1 in 6,000 (4 on the torso, then a failed survival roll), alive.
A barbed-wire hazard 1B+11 on Albert's left leg (Härdighet 4) deals 3 or 4: the leg
breaks (3+), and with VIL 5 (Chocktolerans 8) Albert stays conscious.
"""

import json
import re

import pytest
from django.contrib.auth.hashers import make_password
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat.models import Encounter

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "hjortspår-i-frusen-mark"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
LIVE = 3_000  # ms: a change must show on the other device within a couple of seconds
ALBERT = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 5}
GUARD = {
    "physique": "6", "composure": "2", "agility": "5", "alertness": "1", "willpower": "7",
    "skill_melee_weapons": "2", "skill_firearms": "0", "skill_brawling": "1",
    "skill_evasion": "3", "x": "5",
}


def real_user(django_user_model, username):
    """A user the server process can log in: hashed with the production hasher."""
    return django_user_model.objects.create(
        username=username, password=make_password(PASSWORD, hasher="pbkdf2_sha256")
    )


@pytest.fixture
def encounter(django_user_model):
    gm = real_user(django_user_model, "spelledaren")
    player = real_user(django_user_model, "spelaren")
    campaign = campaign_create(gm=gm, name="Nattens kant")
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    Character.objects.create(
        owner=player, campaign=campaign, name="Albert", attributes=ALBERT,
        skills={"firearms": 4, "evasion": 1},
    )
    return Encounter.objects.create(campaign=campaign, name="Bakgården", system="aoristos")


def open_encounter(browser, site_server, username, viewport, encounter):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site_server.url}/accounts/login/?next=/encounters/{encounter.pk}/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    return context, page, errors


def panel(page):
    return page.get_by_test_id("encounter-state")


def at_version(pages, number, timeout=LIVE):
    """Every page shows the encounter at version `number` (the log's records counted),
    the other device's within `timeout` of the change."""
    for page in pages:
        expect(panel(page)).to_have_attribute("data-version", str(number), timeout=timeout)


def combatant_id(page, name) -> str:
    row = page.get_by_test_id("combatants").locator("li", has_text=name)
    return row.get_attribute("data-testid").removeprefix("combatant-")


def gm_form(gm, command):
    """One of the GM panel's forms, by the command it posts."""
    return gm.get_by_test_id("gm-panel").locator(
        f'form:has(input[name="type"][value="{command}"])'
    )


def percent(value: float) -> str:
    """A chance as the Swedish pages write it: one decimal, a decimal comma."""
    return f"{value:.1f} %".replace(".", ",")


def test_a_fight_on_two_devices_to_a_wound_and_back(browser, site_server, encounter, shot):
    player_context, player, player_errors = open_encounter(
        browser, site_server, "spelaren", PHONE, encounter
    )
    gm_context, gm, gm_errors = open_encounter(
        browser, site_server, "spelledaren", DESKTOP, encounter
    )

    # Setting up: the player waits; only the GM has the panel to add and start.
    expect(player.get_by_test_id("combat-status")).to_contain_text(
        re.compile("Setting up|Förbered|spelledaren|SL", re.I)
    )
    expect(player.get_by_test_id("gm-panel")).to_have_count(0)
    expect(gm.get_by_test_id("gm-panel")).to_be_visible()
    shot(player, "01-player-waits-for-the-gm")

    # 1. The GM adds the player's Albert with a pistol in the right hand...
    add = gm.locator("form.add-form", has=gm.get_by_test_id("add-character"))
    add.get_by_test_id("add-character").select_option(label="Albert")
    add.locator('select[name="weapons"]').select_option(["pistol"])
    add.locator('select[name="right"]').select_option("pistol")
    add.get_by_test_id("add-character-submit").click()
    expect(gm.get_by_test_id("combatants")).to_contain_text("Albert")
    expect(player.get_by_test_id("combatants")).to_contain_text("Albert", timeout=LIVE)
    albert = combatant_id(gm, "Albert")
    expect(gm.get_by_test_id(f"combatant-{albert}")).to_contain_text("Pistol")

    # ... and a guard with a knife, 5 m away, from the NPC quick form.
    npc = gm.get_by_test_id("npc-form")
    npc.get_by_test_id("npc-name").fill("Vakten")
    for name, value in GUARD.items():
        npc.locator(f'input[name="{name}"]').fill(value)
    npc.locator('select[name="weapons"]').select_option(["knife"])
    npc.locator('select[name="right"]').select_option("knife")
    npc.get_by_test_id("npc-submit").click()
    expect(gm.get_by_test_id("combatants")).to_contain_text("Vakten")
    guard = combatant_id(gm, "Vakten")
    expect(gm.get_by_test_id(f"combatant-{guard}")).to_contain_text("(5,0; 0,0)")
    expect(player.get_by_test_id(f"combatant-{guard}")).to_be_visible(timeout=LIVE)
    # The player sees their own numbers, never the NPC's.
    expect(player.get_by_test_id(f"nerve-{albert}")).to_have_text("0")
    expect(player.get_by_test_id(f"nerve-{guard}")).to_have_count(0)
    at_version((gm, player), 2)
    # The placing forms load when opened, each filled with its combatant's place.
    gm.locator(".place-fold summary").click()
    place = gm.get_by_test_id(f"place-{guard}")
    expect(place.locator('input[name="x"]')).to_have_value("5.0")
    shot(gm, "02-gm-set-up")

    # "Start the fight": initiative by SIN, Albert (5) before the guard (1).
    gm.get_by_test_id("start").click()
    for page in (gm, player):
        order = page.get_by_test_id("initiative").locator("li")
        expect(order).to_have_count(2, timeout=LIVE)
        expect(order.nth(0)).to_contain_text("Albert")
        expect(order.nth(1)).to_contain_text("Vakten")
        expect(page.get_by_test_id("initiative").locator("li.active")).to_contain_text("Albert")
        expect(page.get_by_test_id("combat-status")).to_contain_text("Albert")
    # SIN is a number of Albert's: the player sees it; the guard's stays the GM's.
    expect(order.nth(0)).to_contain_text("SIN 5")
    expect(order.nth(1)).not_to_contain_text("SIN")
    expect(gm.get_by_test_id("initiative").locator("li").nth(1)).to_contain_text("SIN 1")
    at_version((gm, player), 3)
    shot(gm, "03-gm-fight-started")

    # 2.-3. Albert's activation, on the phone: KP, the actions with their costs, and the
    # attack form whose preview gives the chance to hit.
    turn = player.get_by_test_id("your-turn")
    expect(turn).to_be_visible()
    kp = int(turn.get_by_test_id("kp").inner_text())
    assert 3 <= kp <= 8, kp  # Handlingskraft 9 − the 1B1F stress
    expect(turn.locator(".action-grid .cost").first).to_contain_text("KP")
    expect(turn.get_by_test_id("action-end_activation")).to_be_enabled()
    # The move form starts where Albert stands (a number input takes no decimal comma).
    expect(turn.locator('.move-form input[name="x"]')).to_have_value("0.0")
    expect(turn.get_by_test_id("attack-target")).to_have_value(guard)
    expect(turn.get_by_test_id("attack-weapon")).to_have_value("pistol")
    expect(turn.get_by_test_id("preview-hit")).to_have_text(re.compile(r"^\d+(,\d)? %$"))
    expect(turn.get_by_test_id("preview-ok")).to_contain_text("2 KP")
    expect(turn.get_by_test_id("preview-ok")).to_contain_text("TB 6")
    # The guard's vigilance values are the GM's: the player sees no ST.
    expect(turn.get_by_test_id("preview-ok")).not_to_contain_text("ST")
    # The phone shows its activation without sideways scrolling.
    assert player.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(player, "04-player-albert-activation")
    turn.get_by_test_id("attack-submit").click()

    # The GM commands the guard: the vigilance prompt, with the chance per choice.
    prompt = gm.get_by_test_id("prompt-vigilance")
    expect(prompt).to_be_visible(timeout=LIVE)
    expect(prompt).to_contain_text("Albert")
    chance = prompt.get_by_test_id("vigilance-chance")
    chances = json.loads(chance.get_attribute("data-chances"))
    offered = sorted(
        prompt.locator('input[type="checkbox"]:checked').evaluate_all(
            "boxes => boxes.map(b => b.value)"
        )
    )
    assert offered == ["agility", "alertness", "evasion"], offered
    expect(chance).to_have_text(percent(chances["agility+alertness+evasion"]))
    # At most three properties (p. 8): a fourth tick is taken back.
    prompt.locator('input[value="firearms"]').click()
    expect(prompt.locator('input[value="firearms"]')).not_to_be_checked()
    expect(prompt.locator('input[value="firearms"]')).to_be_disabled()
    prompt.locator('input[value="alertness"]').uncheck()
    expect(chance).to_have_text(percent(chances["agility+evasion"]))
    expect(prompt.locator('input[value="firearms"]')).to_be_enabled()
    prompt.locator('input[value="evasion"]').uncheck()
    prompt.locator('input[value="agility"]').uncheck()
    expect(chance).to_have_text(percent(chances[""]))
    # The GM, generous tonight, defends with Undvika alone: a sure hit.
    prompt.locator('input[value="evasion"]').check()
    expect(chance).to_have_text(percent(chances["evasion"]))
    assert chances["agility+alertness+evasion"] < chances["agility+evasion"] < 100.0, chances
    assert chances["evasion"] == 100.0, chances
    # The player waits for it, and cannot take the offer before its time.
    waiting = player.get_by_test_id("prompt-vigilance")
    expect(waiting).to_be_visible(timeout=LIVE)
    expect(waiting.locator("button")).to_be_disabled()
    expect(player.get_by_test_id("your-turn")).to_have_count(0)
    shot(gm, "05-gm-vigilance-prompt")
    shot(player, "06-player-waits-for-the-vigilance")
    prompt.get_by_test_id("vigilance-submit").click()

    # A hit within 10 m: Albert may still hold back. The player goes on.
    proceed = player.get_by_test_id("proceed")
    expect(proceed).to_be_visible(timeout=LIVE)
    expect(player.get_by_test_id("abort")).to_be_visible()
    expect(gm.get_by_test_id("prompt-abort")).to_be_visible()
    expect(gm.get_by_test_id("proceed")).to_have_count(0)
    # The player reads that the guard is on guard, not how (its numbers are the GM's).
    guarded = player.locator("#roll-log .combat-vigilancechosen")
    expect(guarded).to_contain_text("Vakten")
    expect(guarded).not_to_contain_text("Undvika")
    expect(guarded).not_to_contain_text("..")
    shot(player, "07-player-abort-prompt")
    proceed.click()

    # 4. The wound lands on the guard; the GM's page shows it without a reload, numbers
    # and all, and the player's shows that it happened.
    gm_wound = gm.locator("#roll-log .combat-wounded")
    expect(gm_wound).to_contain_text("Vakten", timeout=LIVE)
    expect(gm_wound).to_contain_text(re.compile("nervchock"))
    expect(gm.locator("#roll-log .combat-attackresolved")).to_contain_text("Vakten")
    at_version((gm, player), 6)  # attack, vigilance, go on: three records
    nerve = int(gm.get_by_test_id(f"nerve-{guard}").inner_text())
    assert 1 <= nerve <= 4, nerve
    player_wound = player.locator("#roll-log .combat-wounded")
    expect(player_wound).to_contain_text("Vakten", timeout=LIVE)
    expect(player_wound).not_to_contain_text("nervchock")
    shot(gm, "08-gm-guard-wounded")
    shot(player, "09-player-sees-the-guard-wounded")

    # Still Albert's activation: barbed wire tears his left leg (the GM's hazard).
    hazard = gm_form(gm, "hazard")
    hazard.locator('select[name="id"]').select_option(albert)
    hazard.locator('input[name="hand"]').fill("1B+11")
    hazard.locator('select[name="area"]').select_option("left_leg")
    hazard.locator('input[name="label"]').fill("Taggtråd")
    hazard.get_by_role("button").click()
    expect(gm.get_by_test_id(f"nerve-{albert}")).not_to_have_text("0")

    # The phone shows its own wound at once: nervchock 3 or 4, the leg broken, and the
    # log line with the VIL test against the pain.
    expect(player.get_by_test_id(f"nerve-{albert}")).to_have_text(
        re.compile("^[34]$"), timeout=LIVE
    )
    row = player.get_by_test_id(f"combatant-{albert}")
    expect(row.locator(".limbs")).to_contain_text("Vänster ben: bruten")
    own = player.locator("#roll-log .combat-wounded", has_text="Albert")
    expect(own).to_contain_text("Taggtråd 1B+11")
    expect(own).to_contain_text(re.compile(r"VIL \[[\d, ]+\] \d+/\d+"))
    expect(own).to_contain_text("Vänster ben bruten")
    at_version((gm, player), 7)
    shot(player, "10-player-own-wound")
    shot(gm, "11-gm-hazard-applied")

    # 5. A stale command: the phone's refresh is slow (held here), the GM ends Albert's
    # activation meanwhile, and the player's "End activation" was made against the old
    # version: the server refuses it (409) and the page shows how things stand now.
    held = []
    player.route("**/encounters/*/state/", lambda route: held.append(route))
    gm_form(gm, "skip").get_by_role("button").click()
    expect(gm.get_by_test_id("initiative").locator("li.active")).to_contain_text("Vakten")
    expect(player.locator("#roll-log .combat-activationended").first).to_be_visible(
        timeout=LIVE
    )
    expect(panel(gm)).to_have_attribute("data-version", "8")
    expect(panel(player)).to_have_attribute("data-version", "7")  # the old one
    player.get_by_test_id("action-end_activation").click()
    expect(player.get_by_test_id("combat-error")).to_be_visible(timeout=LIVE)
    expect(player.get_by_test_id("combat-error")).to_contain_text(
        re.compile("situation changed|Läget", re.I)
    )
    expect(panel(player)).to_have_attribute("data-version", "8")
    expect(player.get_by_test_id("your-turn")).to_have_count(0)
    expect(player.get_by_test_id("initiative").locator("li.active")).to_contain_text("Vakten")
    shot(player, "12-player-stale-command-refused")
    assert held, "the phone asked for the new state"
    for route in held:
        route.continue_()
    player.unroute("**/encounters/*/state/")
    at_version((gm, player), 8)

    # 6. The GM goes back to before the hazard: on both pages Albert is unhurt and it is
    # his activation again; redo brings the wound and the guard's activation back.
    undo = gm.get_by_test_id("undo-to")
    # The encounter's "Undo" is not the character builder's "Ångrad höjning".
    expect(gm.get_by_test_id("undo")).not_to_contain_text("höjning")
    undo.select_option("6")  # v7 was the hazard
    gm.get_by_test_id("undo").click()
    at_version((gm, player), 9)
    for page in (gm, player):
        expect(page.get_by_test_id(f"nerve-{albert}")).to_have_text("0")
        expect(page.get_by_test_id(f"combatant-{albert}").locator(".limbs")).to_have_count(0)
        expect(page.get_by_test_id("initiative").locator("li.active")).to_contain_text("Albert")
    expect(player.get_by_test_id("your-turn")).to_be_visible()
    expect(player.get_by_test_id("combat-error")).to_have_count(0)
    expect(gm.get_by_test_id(f"nerve-{guard}")).to_have_text(str(nerve))  # the shot stays
    shot(gm, "13-gm-after-undo")
    shot(player, "14-player-after-undo")

    # Redo brings back one record at a time: the wound first, then the GM's skip.
    gm.get_by_test_id("redo").click()
    at_version((gm, player), 10)
    for page in (gm, player):
        expect(page.get_by_test_id(f"combatant-{albert}").locator(".limbs")).to_contain_text(
            "Vänster ben: bruten"
        )
        expect(page.get_by_test_id(f"nerve-{albert}")).to_have_text(re.compile("^[34]$"))
        expect(page.get_by_test_id("initiative").locator("li.active")).to_contain_text("Albert")
    shot(player, "15-player-after-redo")
    gm.get_by_test_id("redo").click()
    at_version((gm, player), 11)
    for page in (gm, player):
        expect(page.get_by_test_id("initiative").locator("li.active")).to_contain_text("Vakten")
        expect(page.get_by_test_id(f"combatant-{albert}").locator(".limbs")).to_contain_text(
            "Vänster ben: bruten"
        )
    expect(player.get_by_test_id("your-turn")).to_have_count(0)
    expect(gm.get_by_test_id("redo")).to_have_count(0)
    shot(gm, "16-gm-after-redo")
    # With a wound, a log and a notice behind it, the phone still needs no sideways scroll.
    assert player.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    # 7. Nothing went wrong in either browser; the 409 the browser logged is the refusal
    # above, and it is the only one.
    refused = "the server responded with a status of 409 (Conflict)"
    assert [e for e in player_errors if refused in e] == [player_errors[0]], player_errors
    assert player_errors[1:] == [], player_errors
    assert gm_errors == [], gm_errors
    player_context.close()
    gm_context.close()
