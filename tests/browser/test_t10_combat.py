"""The grenade example of T10 on two devices against the real server process
(t10-ap-utdrag.txt, "Spara action points": "Johan har sparat 4 AP ... En av soldaterna
kastar en handgranat. Johan spenderar genast 3 av sina sparade AP på att kasta sig i
skydd, och undkommer explosionen").

The GM on a laptop enters a pistol and a hand grenade in the campaign's catalogue ("Vapen":
the excerpt lists no weapons, only their values), creates an encounter (its house rule
Kasta sig i skydd 3 AP), adds Johan with the pistol and a soldier with the grenade in
Anläggning ("Ställningar") and starts the fight ("Initiativ"). On a phone, Johan's player
raises the pistol to Färdigställning (2 AP, "Ställningar"), spends 4 AP on Spana ("Action
points") and ends the turn: 4 AP saved. The soldier throws the grenade; the attack waits,
and the phone, without a reload, asks for Johan's reaction; the player throws him into
cover with 3 of the saved AP. Both pages then show the explosion doing no harm, Johan in
cover with no Utmattning or Skada ("Utmattning och skada") and 1 saved AP left.

The server's dice cannot be scripted, so the numbers make the outcome certain: Johan's
Initiativ 2 gives 3-12, the soldier's −10 (typed in the GM's form) gives −9-0, so Johan
always acts first and saves his AP before the soldier's turn (AP saved by the last in the
order would vanish with the round, engine.py "Action points"). An explosive against a
target in cover rolls no dice and deals no damage (engine.py "Cover"), and the reaction is
carried out before the attack ("Reactions"): the end is the same whatever the dice.
Text is matched in either language or by data-testid, as in test_phobia_combat.
"""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat.models import CatalogueItem, CombatRecord, Encounter
from combat.services import engine_of, folded
from rules.t10 import rolls
from rules.t10.combat.view import percent as t10_percent
from tests.browser.test_campaign_flows import overflow
from tests.browser.test_live_table import LIVE, real_user
from tests.browser.test_phobia import LAPTOP, PHONE, SAVE, device, log_in, percent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Johan of the rule text's examples: Strid −1, Social Kompetens −2, Pistol +2, Sjukvård +1.
JOHAN_ATTRIBUTES = {"body": 0, "combat": -1, "mind": 0, "social": -2, "initiative": 2}
JOHAN_SKILLS = {"pistol": 2, "medicine": 1}
SOLDIER_INITIATIVE = -10  # 1T10 − 10 ≤ 0 < 3 ≤ 1T10 + 2: Johan always first
# The catalogue as the GM types it (field: value; the rest keep the form's defaults).
PISTOL = {"key": "pistol", "name": "Pistol", "skill": "pistol", "close": 5, "normal": 25,
          "maximum": 50, "damage": 3, "attack_ap": 3, "reload_ap": 5, "stance_ap": 2,
          "magazine": 8}
GRENADE = {"key": "granat", "name": "Handgranat", "skill": "throw", "close": 5, "normal": 15,
           "maximum": 30, "damage": 6, "attack_ap": 3, "reload_ap": 0, "stance_ap": 1,
           "magazine": 0}
DISTANCE = 10  # within the grenade's normal range (15 m), beyond close (5 m)
STANCE_AP = PISTOL["stance_ap"]  # Normal → Färdigställning
SPANA_AP = 4
SAVED = 10 - STANCE_AP - SPANA_AP  # the example's 4
COVER_AP = 3  # the house rule's default, from the example
SAVED_WORD = "(sparade|saved)"


def either(swedish: str, english: str) -> re.Pattern:
    return re.compile(f"{swedish}|{english}")


def enter_weapon(page, values: dict, *, explosive: bool = False):
    form = page.get_by_test_id("catalogue-form-weapon")
    for field, value in values.items():
        if field == "skill":
            form.locator("[name=weapon-skill]").select_option(value)
        else:
            form.locator(f"[name=weapon-{field}]").fill(str(value))
    if explosive:
        form.locator("[name=weapon-explosive]").check()
    form.get_by_role("button", name=SAVE).click()
    expect(page.get_by_test_id("catalogue-weapons")).to_contain_text(values["name"])


def state_of(encounter):
    encounter.refresh_from_db()
    return folded(encounter, engine_of(encounter)).state


@pytest.fixture
def snap(shot):
    """`shot`, once the attack forms' previews (asked for as each panel loads) are in: a
    full-page shot taken before they arrive is cut at the height the page had without."""

    def take(page, name):
        page.wait_for_function(
            "() => [...document.querySelectorAll('.attack-form .preview')]"
            ".every(p => p.querySelector('[data-testid^=preview-]'))"
        )
        return shot(page, name)

    return take


def log_line(page, kind: str, text):
    """The log lines of event `kind` (the class combat-<kind>) containing `text`."""
    return page.locator(f"#roll-log .combat-{kind}").filter(has_text=text)


def test_johan_throws_himself_into_cover_from_the_phone_with_saved_ap(
    browser, site_server, django_user_model, snap
):
    # The construction that makes the order certain (see the docstring).
    assert 1 + JOHAN_ATTRIBUTES["initiative"] > 10 + SOLDIER_INITIATIVE
    gm_user = real_user(django_user_model, "spelledaren")
    player_user = real_user(django_user_model, "spelaren")
    campaign = campaign_create(gm=gm_user, name="Staden", rule_system="t10")
    Membership.objects.create(campaign=campaign, user=player_user, seat=1)
    johan = Character.objects.create(
        owner=player_user, campaign=campaign, name="Johan", rule_system="t10",
        attributes=JOHAN_ATTRIBUTES, skills=JOHAN_SKILLS,
    )

    # 1. The GM enters the pistol and the hand grenade in the campaign's catalogue.
    gm_context, gm, gm_watch = device(browser, LAPTOP)
    log_in(gm, site_server, "spelledaren", f"/campaigns/{campaign.pk}/")
    gm.get_by_test_id("encounters-link").click()
    expect(gm).to_have_url(re.compile(rf"/campaigns/{campaign.pk}/encounters/$"))
    gm.get_by_test_id("catalogue-link").click()
    enter_weapon(gm, PISTOL)
    enter_weapon(gm, GRENADE, explosive=True)
    weapons = gm.get_by_test_id("catalogue-weapons")
    grenade_row = weapons.locator("tr").filter(has_text="Handgranat")
    expect(grenade_row).to_contain_text("5/15/30 m")
    expect(grenade_row).to_contain_text(either("explosivt", "explosive"))
    expect(weapons.locator("tr").filter(has_text="Pistol")).to_contain_text("5/25/50 m")
    stored = {item.key: item.data for item in CatalogueItem.objects.filter(campaign=campaign)}
    assert stored["granat"]["explosive"] is True
    assert stored["pistol"]["explosive"] is False
    assert stored["pistol"]["magazine"] == 8

    # 2. An encounter; Kasta sig i skydd costs 3 AP (the house rule's default).
    gm.goto(f"{site_server.url}/campaigns/{campaign.pk}/encounters/")
    expect(gm.locator("#id_house_cover_ap")).to_have_value(str(COVER_AP))
    gm.fill("#id_name", "Hamnen")
    snap(gm, "1-gm-new-encounter-house-rules")
    gm.get_by_role("button", name=re.compile("^(Skapa|Create)$")).click()
    expect(gm).to_have_url(re.compile(r"/encounters/\d+/$"))
    encounter = Encounter.objects.get(campaign=campaign, name="Hamnen")
    assert encounter.system == "t10"
    expect(gm.locator("#live-status")).to_have_attribute("data-state", "live")

    # Johan with the pistol ...
    add = gm.locator("form.add-form").filter(has=gm.get_by_test_id("add-character"))
    add.get_by_test_id("add-character").select_option(label="Johan")
    add.locator("select[name=weapons]").select_option("pistol")
    add.get_by_test_id("add-character-submit").click()
    expect(gm.get_by_test_id("combatants")).to_contain_text("Johan")
    # ... and the soldier: Kasta +1, the grenade in Anläggning, Initiativ −10.
    npc = gm.get_by_test_id("npc-form")
    npc.get_by_test_id("npc-name").fill("Soldat")
    npc.locator("[name=initiative]").fill(str(SOLDIER_INITIATIVE))
    npc.locator("[name=stance]").select_option("aimed")
    npc.locator("[name=skill_throw]").fill("1")
    npc.locator("select[name=weapons]").select_option("granat")
    npc.get_by_test_id("npc-submit").click()
    expect(gm.get_by_test_id("combatants")).to_contain_text("Soldat")
    state = state_of(encounter)
    me = next(c for c in state.combatants if c.name == "Johan")
    soldier = next(c for c in state.combatants if c.name == "Soldat")
    assert (me.character_id, me.initiative, me.wielded, me.stance) == (
        johan.pk, 2, "pistol", "normal")
    assert (soldier.npc, soldier.initiative, soldier.wielded, soldier.stance) == (
        True, SOLDIER_INITIATIVE, "granat", "aimed")
    assert soldier.weapon("granat").explosive
    assert dict(soldier.skills)["throw"] == 1
    j, s = me.id, soldier.id
    expect(gm.get_by_test_id(f"combatant-{s}")).to_contain_text("Anläggning (Handgranat)")

    # 3. The player opens the encounter on the phone, from the campaign page.
    player_context, player, player_watch = device(browser, PHONE)
    log_in(player, site_server, "spelaren", f"/campaigns/{campaign.pk}/")
    player.get_by_test_id("encounters-link").click()
    player.get_by_role("link", name="Hamnen").click()
    expect(player).to_have_url(re.compile(rf"/encounters/{encounter.pk}/$"))
    expect(player.locator("#live-status")).to_have_attribute("data-state", "live")
    player.evaluate("() => { window.stillTheSamePage = true; }")

    # 4. The fight starts: Initiativ puts Johan first, on both pages.
    gm.get_by_test_id("start").click()
    for page in (gm, player):
        first = page.get_by_test_id("initiative").locator("li").first
        expect(first).to_contain_text("Johan", timeout=LIVE)
        expect(first).to_have_class(re.compile(r"\bactive\b"))
    state = state_of(encounter)
    assert state.get(j).initiative_total > state.get(s).initiative_total
    assert state.active == j
    turn = player.get_by_test_id(f"acting-{j}")
    expect(turn.get_by_test_id(f"ap-{j}")).to_have_text("10 AP", timeout=LIVE)
    # The soldier's numbers are the GM's: the phone shows its name, not its Initiativ.
    expect(player.get_by_test_id(f"combatant-{s}")).not_to_contain_text("Initiativ")
    snap(player, "2-phone-johans-turn")
    assert overflow(player) == 0, f"the encounter is {overflow(player)} px wider than the phone"

    # 5. On the phone: Färdigställning (2 AP), Spana (4 AP), end the turn: 4 AP saved.
    stance = turn.locator("form").filter(has=player.get_by_test_id(f"stance-{j}"))
    stance.locator("select[name=stance]").select_option("ready")
    stance.locator("select[name=weapon]").select_option("pistol")
    player.get_by_test_id(f"stance-{j}").click()
    expect(player.get_by_test_id(f"ap-{j}")).to_have_text(f"{10 - STANCE_AP} AP")
    expect(player.get_by_test_id(f"combatant-{j}")).to_contain_text("Färdigställning (Pistol)")
    act = player.get_by_test_id(f"acting-{j}").locator("form").filter(
        has=player.get_by_test_id(f"act-{j}"))
    act.locator("[name=label]").fill("Spana")
    act.locator("[name=ap]").fill(str(SPANA_AP))
    player.get_by_test_id(f"act-{j}").click()
    expect(player.get_by_test_id(f"ap-{j}")).to_have_text(f"{SAVED} AP")
    player.get_by_test_id(f"action-end_turn-{j}").click()
    # Johan may still act with the saved AP, out of his turn.
    saving = player.get_by_test_id(f"acting-{j}")
    expect(saving).to_have_class(re.compile(r"\bacting-saved\b"))
    expect(saving.get_by_test_id(f"ap-{j}")).to_have_text(f"{SAVED} AP")
    expect(saving).to_contain_text(either("sparade", "saved"))
    expect(player.get_by_test_id(f"ap-left-{j}")).to_have_text(
        re.compile(rf"^0 · {SAVED} {SAVED_WORD}$"))
    johan_order = player.get_by_test_id("initiative").locator("li").filter(has_text="Johan")
    expect(johan_order).to_contain_text(re.compile("· (sparade AP|saved AP)"))
    assert (state_of(encounter).get(j).saved, state_of(encounter).active) == (SAVED, s)
    for page in (player, gm):
        ended = log_line(page, "turnended", re.compile(rf"{SAVED} AP {SAVED_WORD}"))
        expect(ended).to_have_count(1, timeout=LIVE)
    snap(player, "3-phone-4-ap-saved")

    # 6. The laptop: the soldier's turn; the GM throws the grenade at Johan from 10 m.
    attack = gm.get_by_test_id(f"attack-form-{s}")
    expect(attack).to_be_visible(timeout=LIVE)
    expect(gm.get_by_test_id(f"ap-{s}")).to_have_text("10 AP")
    attack.get_by_test_id(f"attack-target-{s}").select_option(j)
    attack.locator("select[name=weapon]").select_option("granat")
    attack.get_by_test_id(f"attack-distance-{s}").fill(str(DISTANCE))
    attack.get_by_test_id(f"attack-distance-{s}").dispatch_event("change")
    hit = attack.get_by_test_id("preview-band-normal")  # Kasta +1, Anläggning ±0, normal ±0
    expect(hit).to_be_visible(timeout=LIVE)
    expect(attack.get_by_test_id("preview-band-close")).to_have_count(0)
    shown = percent(attack.get_by_test_id("preview-hit"))
    assert abs(shown - t10_percent(rolls.test_odds(1).success)) < 0.051, shown
    snap(gm, "4-gm-the-grenade-and-its-odds")
    gm.get_by_test_id(f"attack-submit-{s}").click()
    # The attack waits for Johan: on the laptop, "waiting for Johan's reaction".
    pending = gm.get_by_test_id("pending")
    expect(pending).to_contain_text("Handgranat", timeout=LIVE)
    expect(pending).to_contain_text(f"· {DISTANCE} m")
    gm_prompt = gm.get_by_test_id(f"prompt-react-{j}")
    expect(gm_prompt).to_contain_text(either("Väntar på reaktion från Johan", "Waiting for Johan"))
    expect(gm_prompt.get_by_test_id(f"react-cover-{j}")).to_have_count(0)  # Johan's player's
    waiting = state_of(encounter).pending
    assert waiting is not None
    assert tuple(waiting.waiting) == (j,)

    # 7. The phone, without a reload, asks for Johan's reaction; the player takes cover.
    prompt = player.get_by_test_id(f"prompt-react-{j}")
    expect(prompt).to_contain_text("Soldat", timeout=LIVE)
    expect(prompt).to_contain_text("Handgranat")
    expect(prompt).to_contain_text(either(f"Johan har {SAVED} sparade AP",
                                          f"Johan has {SAVED} saved AP"))
    cover = prompt.get_by_test_id(f"react-cover-{j}")
    expect(cover).to_be_enabled()
    expect(cover).to_contain_text(f"Kasta sig i skydd {COVER_AP} AP")
    expect(prompt.get_by_test_id(f"react-pass-{j}")).to_be_visible()
    prompt.scroll_into_view_if_needed()
    snap(player, "5-phone-reaction-prompt")
    assert overflow(player) == 0, f"the encounter is {overflow(player)} px wider than the phone"
    snap(gm, "6-gm-waits-for-johan")
    cover.click()

    # 8. Both pages, without a reload: cover taken, no harm, 1 saved AP left.
    left = SAVED - COVER_AP
    for page in (player, gm):
        expect(page.get_by_test_id(f"prompt-react-{j}")).to_have_count(0, timeout=LIVE)
        expect(page.get_by_test_id("pending")).to_have_count(0)
        expect(log_line(page, "reactiondeclared", "Kasta sig i skydd")).to_have_count(1)
        expect(log_line(page, "covertaken", "Johan")).to_have_count(1)
        no_harm = log_line(page, "attackrolled", either(
            "Johan är i skydd: explosionen gör ingen skada",
            "Johan is in cover: the explosion does no harm"))
        expect(no_harm).to_have_count(1)
        expect(no_harm).to_contain_text("Handgranat")
        expect(page.locator("#roll-log .combat-damaged")).to_have_count(0)
        mine = page.get_by_test_id(f"combatant-{j}")
        expect(mine).to_contain_text(either("i skydd", "in cover"))
        expect(page.get_by_test_id(f"ap-left-{j}")).to_have_text(
            re.compile(rf"^0 · {left} (sparad|saved)$"))  # one: singular
        expect(page.get_by_test_id(f"fatigue-{j}")).to_have_text("☐" * 10)
        expect(page.get_by_test_id(f"damage-{j}")).to_have_text("☐" * 10)
    # Johan may still spend his last saved AP; the soldier's turn goes on (7 AP left).
    expect(player.get_by_test_id(f"acting-{j}").get_by_test_id(f"ap-{j}")).to_have_text(
        f"{left} AP")
    expect(gm.get_by_test_id(f"ap-{s}")).to_have_text(f"{10 - GRENADE['attack_ap']} AP")
    expect(gm.get_by_test_id("combat-status")).to_contain_text("Soldat")
    # The attack form kept what the GM chose and typed across the shot and the panels
    # redrawn since (issue 26: the distance emptied after every shot).
    form = gm.get_by_test_id(f"attack-form-{s}")
    expect(form.get_by_test_id(f"attack-distance-{s}")).to_have_value(str(DISTANCE))
    expect(form.get_by_test_id(f"attack-target-{s}")).to_have_value(j)
    expect(form.locator("select[name=weapon]")).to_have_value("granat")
    # The soldier's options know it: a grenade at Johan now does no harm.
    at_johan = gm.get_by_test_id(f"attack-options-{s}").locator("tr").filter(has_text="Johan")
    expect(at_johan).to_contain_text("Handgranat E · 3 AP")
    expect(at_johan).to_contain_text(either("i skydd: en explosion gör ingen skada",
                                            "in cover: an explosion does no harm"))
    assert player.evaluate("() => window.stillTheSamePage === true"), "the phone reloaded"

    state = state_of(encounter)
    assert state.pending is None
    assert state.active == s
    after = state.get(j)
    assert (after.saved, after.in_cover, after.fatigue, after.damage) == (left, True, 0, 0)
    assert state.get(s).ap == 10 - GRENADE["attack_ap"]
    assert CombatRecord.objects.filter(encounter=encounter).count() == encounter.version
    rolled = [event for record in CombatRecord.objects.filter(encounter=encounter)
              for event in record.events if event["_"] == "AttackRolled"]
    assert len(rolled) == 1
    assert rolled[0]["covered"] is True

    player.get_by_test_id(f"combatant-{j}").scroll_into_view_if_needed()
    snap(player, "7-phone-in-cover-no-harm")
    assert overflow(player) == 0, f"the encounter is {overflow(player)} px wider than the phone"
    snap(gm, "8-gm-after-the-grenade")

    assert gm_watch.problems == [], gm_watch.problems
    assert player_watch.problems == [], player_watch.problems
    assert (gm_watch.refusals, player_watch.refusals) == (0, 0)
    gm_context.close()
    player_context.close()
