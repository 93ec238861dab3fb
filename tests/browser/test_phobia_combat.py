"""A Phobia campaign from character creation to a serious injury on a phone, against the
real server process (issue 10). The player builds Jace on a phone; the GM on a laptop
enters a knife in the campaign's catalogue (the excerpt lists no weapons), creates an
encounter with its house rules, adds Jace with the knife and a gunman, and starts the
round. The gunman acts first (TO 99, lines 631-636), declares one action and shoots Jace
in the chest; the phone is asked for Jace's response (lines 661-691) and answers "No
response". The wound reaches both pages without a reload: Trauma and Smärta split
(lines 843-849), a small bleed for a projectile (line 850), the serious-injury table's
row for the chest (lines 944-1004) and the death and shock rolls (lines 837-839).

The server's dice cannot be scripted, so the stats make the outcome certain: the gunman's
Skjutvapen 99 against Ob1T6 (the encounter's attack difficulty, a house rule) misses only
when one die and its rerolls pass 99 (checked below against the exact odds), and his
weapon's Ob13T6 deals at least 13, above Jace's Chockvärde (12+14+11)/3 = 12 with no
protection (line 830): a serious injury. Whether Jace lives is the dice's; both are
checked against what the page shows.
"""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat.models import CatalogueItem, CombatRecord, Encounter
from combat.services import engine_of, folded
from rules.phobia.success import odds
from tests.browser.test_campaign_flows import overflow
from tests.browser.test_live_table import LIVE, real_user
from tests.browser.test_phobia import LAPTOP, PHONE, SAVE, device, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

JACE = {
    "strength": 12, "endurance": 14, "agility": 10, "personality": 9, "psyche": 15,
    "will": 11, "education": 8, "sight": 15, "hearing": 7, "luck": 10,
}
SKILLS = {"combat_experience": 3}
SHOCK = (12 + 14 + 11) // 3  # Chockvärde (STY+TÅL+VIL)/3 = 12, line 181
GUN_DICE = 13  # Ob13T6: at least 13 > 12
AIM = 99  # the gunman's Skjutvapen


def test_from_the_phone_builder_to_a_serious_injury_on_the_phone(
    browser, site_server, django_user_model, shot
):
    # The gunman misses only if Ob1T6 and its rerolls pass 99.
    assert 1 - odds(1, AIM).success < 1e-9
    gm_user = real_user(django_user_model, "spelledaren")
    player_user = real_user(django_user_model, "spelaren")
    campaign = campaign_create(gm=gm_user, name="Skuggorna", rule_system="phobia")
    Membership.objects.create(campaign=campaign, user=player_user, seat=1)

    # 1. The player builds Jace on a phone.
    player_context, player, player_watch = device(browser, PHONE)
    log_in(player, site_server, "spelaren", f"/characters/new/?campaign={campaign.pk}")
    player.fill("#id_name", "Jace")
    for key, value in {**JACE, **SKILLS}.items():
        player.fill(f"#id_{key}", str(value))
    expect(player.get_by_test_id("derived-shock_value")).to_have_text(str(SHOCK))
    player.wait_for_load_state("networkidle")
    player.get_by_role("button", name=SAVE).click()
    expect(player).to_have_url(re.compile(r"/characters/\d+/$"))
    jace = Character.objects.get(name="Jace")
    assert jace.rule_system == "phobia"
    assert jace.campaign_id == campaign.pk

    # 2. The GM enters a knife in the campaign's catalogue.
    gm_context, gm, gm_watch = device(browser, LAPTOP)
    log_in(gm, site_server, "spelledaren", f"/campaigns/{campaign.pk}/")
    gm.get_by_test_id("encounters-link").click()
    expect(gm).to_have_url(re.compile(rf"/campaigns/{campaign.pk}/encounters/$"))
    gm.get_by_test_id("catalogue-link").click()
    form = gm.get_by_test_id("catalogue-form-weapon")
    form.locator("[name=weapon-key]").fill("kniv")
    form.locator("[name=weapon-name]").fill("Kniv")
    form.locator("[name=weapon-damage]").fill("2")
    form.locator("[name=weapon-damage_type]").select_option("H")
    form.locator("[name=weapon-skill]").select_option("combat_experience")
    form.get_by_role("button").click()
    weapons = gm.get_by_test_id("catalogue-weapons")
    expect(weapons).to_contain_text("Kniv")
    expect(weapons).to_contain_text("Ob2T6")
    expect(weapons).to_contain_text("Stridsvana")
    assert CatalogueItem.objects.get(campaign=campaign).data["damage"] == 2

    # 3. An encounter: the house rules are Phobia's, marked as such; attacks at Ob1T6.
    gm.goto(f"{site_server.url}/campaigns/{campaign.pk}/encounters/")
    expect(gm.locator("#id_house_damage_columns")).to_have_value("5")
    expect(gm.locator("#id_house_attack_difficulty")).to_have_value("3")
    gm.fill("#id_name", "Gränden")
    gm.fill("#id_house_attack_difficulty", "1")
    shot(gm, "1-gm-new-encounter-house-rules")
    gm.get_by_role("button", name=re.compile("^(Skapa|Create)$")).click()
    expect(gm).to_have_url(re.compile(r"/encounters/\d+/$"))
    encounter = Encounter.objects.get(campaign=campaign, name="Gränden")
    expect(gm.locator("#live-status")).to_have_attribute("data-state", "live")

    # Jace with the knife from the catalogue ...
    add = gm.locator("form.add-form").filter(has=gm.get_by_test_id("add-character"))
    add.get_by_test_id("add-character").select_option(label="Jace")
    add.locator("select[name=weapons]").select_option("kniv")
    add.get_by_test_id("add-character-submit").click()
    expect(gm.get_by_test_id("combatants")).to_contain_text("Jace")
    # ... and the gunman, a quick NPC.
    npc = gm.get_by_test_id("npc-form")
    npc.get_by_test_id("npc-name").fill("Revolvermannen")
    npc.locator("[name=turn_order]").fill("99")
    npc.locator("[name=weapon_name]").fill("Hagelbössa")
    npc.locator("[name=weapon_damage]").fill(str(GUN_DICE))
    npc.locator("[name=weapon_type]").select_option("P")
    npc.locator("[name=weapon_skill]").fill("Skjutvapen")
    npc.locator("[name=weapon_chance]").fill(str(AIM))
    npc.locator("[name=weapon_ranged]").check()
    npc.get_by_test_id("npc-submit").click()
    expect(gm.get_by_test_id("combatants")).to_contain_text("Revolvermannen")
    encounter.refresh_from_db()
    state = folded(encounter, engine_of(encounter)).state
    jace_c = next(c for c in state.combatants if c.name == "Jace")
    gunman = next(c for c in state.combatants if c.name == "Revolvermannen")
    assert jace_c.character_id == jace.pk
    assert jace_c.shock_value == SHOCK
    assert [w.key for w in jace_c.weapons] == ["kniv"]
    jace_row = gm.get_by_test_id(f"combatant-{jace_c.id}")
    expect(jace_row).to_contain_text(f"Chockvärde{SHOCK}")

    # 4. The player opens the encounter on the phone, from the campaign page.
    player.goto(f"{site_server.url}/campaigns/{campaign.pk}/")
    player.get_by_test_id("encounters-link").click()
    player.get_by_role("link", name="Gränden").click()
    expect(player).to_have_url(re.compile(rf"/encounters/{encounter.pk}/$"))
    expect(player.locator("#live-status")).to_have_attribute("data-state", "live")
    player.evaluate("() => { window.stillTheSamePage = true; }")

    # 5. The round: the gunman first; the GM declares one action and shoots Jace's chest.
    gm.get_by_test_id("start-round").click()
    expect(gm.get_by_test_id("initiative")).to_contain_text("Revolvermannen")
    first = player.get_by_test_id("initiative").locator("li.active")
    expect(first).to_contain_text("Revolvermannen", timeout=LIVE)
    expect(first).not_to_contain_text("TO 99")  # an NPC's numbers are the GM's
    gm.get_by_test_id("declare").click()
    options = gm.get_by_test_id("attack-options")
    expect(options).to_contain_text("Jace")
    row = options.locator("tr").filter(has_text="Jace")
    row.locator("select[name=area]").select_option("chest")
    row.get_by_role("button").click()

    # 6. The phone is asked for Jace's response, and answers none.
    prompt = player.get_by_test_id("prompt-response")
    expect(prompt).to_contain_text("Revolvermannen", timeout=LIVE)
    expect(prompt).to_contain_text("Hagelbössa")
    shot(player, "2-phone-response-prompt")
    assert overflow(player) == 0, f"the encounter is {overflow(player)} px wider than the phone"
    prompt.get_by_test_id("pass").click()

    # 7. The wound on the phone, without a reload: the serious injury and the rows.
    mine = player.get_by_test_id(f"combatant-{jace_c.id}")
    expect(mine.locator(".wound").first).to_be_visible(timeout=LIVE)
    encounter.refresh_from_db()
    state = folded(encounter, engine_of(encounter)).state
    hurt = state.get(jace_c.id)
    (wound,) = [event for record in CombatRecord.objects.filter(encounter=encounter)
                for event in record.events if event["_"] == "Wounded"]
    assert wound["damage"] == wound["rolled"] >= GUN_DICE  # no protection
    # The split (lines 843-849), then the table's Tx/Sx on top (lines 855-876).
    split = (wound["damage"] // 2, wound["damage"] - wound["damage"] // 2)
    assert (hurt.trauma, hurt.pain) == (wound["trauma"], wound["pain"])
    assert hurt.trauma >= split[0]
    assert hurt.pain >= split[1]
    assert len(hurt.injuries) == 1
    injury = hurt.injuries[0]
    assert (injury.area, injury.damage_type) == ("chest", "P")
    expect(mine).to_contain_text(f"Bröstkorg: {injury.name}")
    if not hurt.alive:
        expect(mine).to_contain_text(re.compile("död|dead"))
    elif not hurt.conscious:
        expect(mine).to_contain_text(re.compile("medvetslös|unconscious"))
    # Jace's own damage rows, one ☒ per box taken, as on the paper form (5 columns).
    trauma = player.get_by_test_id(f"trauma-{jace_c.id}")
    assert trauma.inner_text().count("☒") == min(hurt.trauma, 50)
    pain = player.get_by_test_id(f"pain-{jace_c.id}")
    assert pain.inner_text().count("☒") == min(hurt.pain, 50)
    first_row = trauma.inner_text().splitlines()[0]
    assert first_row.startswith("☒☒☒☒☒" if hurt.trauma >= 5 else "☒" * hurt.trauma)
    # A projectile's small bleed, plus whatever the table's row adds (line 850).
    bleed = int(player.get_by_test_id(f"bleed-{jace_c.id}").inner_text())
    assert bleed == hurt.bleeding.rate >= 1
    # The log line on both pages.
    for page in (player, gm):
        line = page.locator("#roll-log .combat-wounded").filter(has_text=injury.name)
        expect(line).to_have_count(1, timeout=LIVE)
        expect(line).to_contain_text(f"Trauma {split[0]}")
        expect(line).to_contain_text(f"Smärta {split[1]}")
        expect(line).to_contain_text("Dödsslag")
    assert player.evaluate("() => window.stillTheSamePage === true"), "the phone reloaded"
    player.get_by_test_id(f"combatant-{jace_c.id}").scroll_into_view_if_needed()
    shot(player, "3-phone-serious-injury")
    shot(gm, "4-gm-after-the-shot")

    # 8. Jace's sheet on the phone: the damage rows as the paper form draws them.
    player.goto(f"{site_server.url}/characters/{jace.pk}/")
    card = player.get_by_test_id("damage-sheet")
    expect(card.get_by_test_id("damage-source")).to_contain_text("Gränden")
    for key, boxes in (("trauma", hurt.trauma), ("pain", hurt.pain)):
        rows = card.get_by_test_id(f"damage-{key}").locator("ol.damage-rows > li")
        expect(rows).to_have_count(10)
        filled = [int(v) for v in rows.evaluate_all("rows => rows.map(r => r.dataset.filled)")]
        assert filled == [min(5, max(0, boxes - 5 * row)) for row in range(10)], (key, filled)
        assert rows.locator(".box.x").count() == min(boxes, 50)
    expect(card.get_by_test_id("damage-injuries")).to_contain_text(injury.name)
    expect(card.get_by_test_id("damage-bleed-rate")).to_have_text(str(hurt.bleeding.rate))
    if not hurt.alive:
        expect(card.get_by_test_id("damage-alert")).to_contain_text(re.compile("död|dead"))
    card.scroll_into_view_if_needed()
    shot(player, "5-phone-sheet-damage-rows")
    assert overflow(player) == 0, f"the sheet is {overflow(player)} px wider than the phone"
    assert gunman.turn_order == 99

    assert gm_watch.problems == [], gm_watch.problems
    assert player_watch.problems == [], player_watch.problems  # a page left is no fault
    gm_context.close()
    player_context.close()
