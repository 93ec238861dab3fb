"""The table's own dice in a fight (issue 48), on two phones and the GM's laptop: where the
campaign's players roll their own dice, every roll of a player's combatant waits on that
player's phone as a prompt with a keypad. The player taps the faces; the GM's page and the
other phone show the roll resolved with exactly those faces, live; after the fight the
story gives each roll's luck, the typed ones marked. Aoristos: the attack rolled once the
target answered (p. 8-9); Phobia: an attack test with a six, rolled again as it comes
(lines 30-65); T10: the attack's 2T10 with a ten.

The fights are set up in the test's process with the server's dice; the table's dice are
turned on after the start, as a GM would in the campaign's settings."""

import re

import pytest
from django.test import Client
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat import services
from combat.models import CatalogueItem, Encounter
from tests.browser.test_combat import real_user
from tests.browser.test_fog import gm_command as command
from tests.browser.test_fog import run
from tests.browser.test_prompts import LAPTOP, LIVE, PHONE
from tests.browser.test_prompts import open_page as open_member_page
from tests.conftest import PHOBIA_ATTRIBUTES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def table(django_user_model, system, name):
    """A campaign of `system` with a GM and two players: the first plays in the fight,
    the second watches it on their phone."""
    gm = real_user(django_user_model, f"{name}gm")
    player = real_user(django_user_model, f"{name}spelare")
    watcher = real_user(django_user_model, f"{name}tittare")
    campaign = campaign_create(gm=gm, name=f"Egna tärningar {system}", rule_system=system)
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    Membership.objects.create(campaign=campaign, user=watcher, seat=2)
    return campaign, gm, player


def players_roll(campaign):
    Campaign.objects.filter(pk=campaign.pk).update(dice_source=Campaign.DiceSource.PLAYERS)


def open_three(browser, site_server, campaign, encounter):
    path = f"/encounters/{encounter.pk}/"
    names = [m.user.username for m in campaign.memberships.select_related("user")
             .order_by("seat")]
    gm_name = campaign.gm.username
    gm, gm_errors = open_member_page(browser, site_server, gm_name, LAPTOP, path)
    pages = [open_member_page(browser, site_server, name, PHONE, path)
             for name in names if name != gm_name]
    (player, player_errors), (watcher, watcher_errors) = pages
    return gm, player, watcher, gm_errors + player_errors + watcher_errors


def version_of(page) -> str:
    return page.locator("#encounter-state").get_attribute("data-version")


def answer_prompts(page, faces_for, shot, name, most=6):
    """Each dice prompt that comes to `page`, answered on its keypad: `faces_for(what,
    count, typed)` gives the faces to tap. The prompts answered, in order."""
    answered = []
    keypad = page.get_by_test_id("fight-keypad")
    expect(keypad).to_be_visible(timeout=LIVE)  # the first comes live
    for step in range(most):
        # The panel the answer swaps in holds the next prompt, if the roll has one.
        if keypad.count() == 0:
            break
        what, count = keypad.get_attribute("data-what"), int(keypad.get_attribute("data-count"))
        typed = keypad.get_attribute("data-typed") or ""
        faces = faces_for(what, count, typed)
        for face in faces:
            keypad.get_by_test_id(f"fight-key-{face}").click()
        expect(keypad.get_by_test_id("fight-keypad-faces").locator("li")).to_have_count(
            len(faces))
        if step == 0:
            shot(page, f"{name}-keypad")
        before = version_of(page)
        keypad.get_by_test_id("fight-dice-send").click()
        expect(page.locator("#encounter-state")).not_to_have_attribute(
            "data-version", before, timeout=LIVE)
        answered.append((what, tuple(faces), typed))
    return answered


def the_end_with_luck(gm, player, watcher, encounter, cid, shot, name):
    """The GM ends the fight: every page's story gives each roll's luck, the ones typed in
    at the table marked as the combatant's own dice."""
    command(gm, encounter, {"type": "end"})
    for page in (player, watcher):
        rolls = page.get_by_test_id(f"story-rolls-{cid}")
        expect(rolls).to_be_visible(timeout=LIVE)
        expect(rolls.locator(".roll-luck.typed-in").first).to_be_visible()
        lucks = [int(re.match(r"\d+", t).group()) for t in
                 rolls.locator(".roll-luck").all_inner_texts()]
        assert all(0 <= luck <= 100 for luck in lucks)
    rolls.scroll_into_view_if_needed()
    shot(watcher, f"{name}-story")


def test_an_aoristos_attack_typed_on_the_keypad_is_resolved_with_those_faces_everywhere(
        browser, site_server, django_user_model, shot):
    from rules.aoristos.combat import ENGINE

    campaign, gm_user, player_user = table(django_user_model, "aoristos", "aor")
    encounter = Encounter.objects.create(campaign=campaign, name="Gården", system="aoristos")
    albert = Character.objects.create(
        owner=player_user, campaign=campaign, name="Albert",
        attributes={"physique": 3, "composure": 3, "agility": 3, "alertness": 5,
                    "willpower": 4}, skills={"melee_weapons": 3})
    block = ENGINE.character_block(name="Albert", levels=albert.levels(),
                                   derived=albert.secondary().as_dict())
    block.update(character_id=albert.pk, side="a", x=0.0, y=0.0, weapons=["knife"],
                 right="knife")
    run(encounter, gm_user, block, controller=player_user.pk)
    run(encounter, gm_user, {"type": "add_combatant", "name": "Vakten", "side": "b",
                             "x": 1.0, "y": 0.0, "alertness": 1, "agility": 1,
                             "physique": 3, "composure": 2, "willpower": 2, "drive": 12})
    run(encounter, gm_user, {"type": "start"})
    encounter.refresh_from_db()
    state = services.folded(encounter).state
    albert_id = next(c.id for c in state.combatants if c.name == "Albert")
    guard_id = next(c.id for c in state.combatants if c.name == "Vakten")
    assert state.active.id == albert_id  # SIN 5 against 1
    players_roll(campaign)

    gm, player, watcher, errors = open_three(browser, site_server, campaign, encounter)
    command(player, encounter, {"type": "attack", "id": albert_id, "target": guard_id,
                                "weapon": "knife"})
    command(gm, encounter, {"type": "vigilance", "id": guard_id, "properties": []})
    # The dice are rolled once the target has answered: Albert's attack waits on his phone.
    expect(gm.get_by_test_id("fight-dice-server")).to_be_visible(timeout=LIVE)
    expect(watcher.get_by_test_id("fight-dice-waiting")).to_be_visible(timeout=LIVE)
    shot(gm, "aoristos-gm-waits")
    answered = answer_prompts(player, lambda what, count, typed: [6] * count, shot, "aoristos")
    assert answered[0][0] == "attack"
    attack_faces = answered[0][1]
    shown = "[" + ", ".join(map(str, attack_faces)) + "]"
    for page in (gm, watcher, player):
        line = page.locator("#roll-log .combat-attackrolled").filter(has_text=shown)
        expect(line.first).to_be_visible(timeout=LIVE)
        expect(page.locator("#roll-log [data-typed-in]").first).to_be_visible()
    expect(watcher.get_by_test_id("fight-keypad")).to_have_count(0)
    shot(watcher, "aoristos-watcher-resolved")
    the_end_with_luck(gm, player, watcher, encounter, albert_id, shot, "aoristos")
    assert errors == []


def test_a_phobia_attack_test_with_a_six_rolled_again_as_it_comes(
        browser, site_server, django_user_model, shot):
    campaign, gm_user, player_user = table(django_user_model, "phobia", "pho")
    jace = Character.objects.create(
        owner=player_user, campaign=campaign, name="Jace", rule_system="phobia",
        attributes=PHOBIA_ATTRIBUTES, skills={"combat_experience": 13},
        rolled={"calm": [3, 5]})
    encounter = Encounter.objects.create(campaign=campaign, name="Gränden", system="phobia")
    levels, derived = jace.combat_stats(campaign.house_rules)
    block = services.engine_of(encounter).character_block(name="Jace", levels=levels,
                                                          derived=derived)
    run(encounter, gm_user, {**block, "character_id": jace.pk, "turn_order": 90,
                             "weapon_name": "Kniv", "weapon_damage": 4, "weapon_type": "H",
                             "weapon_skill": "combat_experience", "weapon_chance": 13},
        controller=player_user.pk)
    run(encounter, gm_user, {"type": "add_combatant", "name": "Vakten", "side": "b",
                             "turn_order": 10, "weapon_name": "Kniv", "weapon_damage": 4,
                             "weapon_type": "H", "weapon_skill": "combat_experience",
                             "weapon_chance": 13})
    run(encounter, gm_user, {"type": "start_round"})
    encounter.refresh_from_db()
    state = services.folded(encounter).state
    jace_id = next(c.id for c in state.combatants if c.name == "Jace")
    guard_id = next(c.id for c in state.combatants if c.name == "Vakten")
    run(encounter, player_user, {"type": "declare", "id": jace_id, "actions": 1})
    players_roll(campaign)

    gm, player, watcher, errors = open_three(browser, site_server, campaign, encounter)
    command(player, encounter, {"type": "attack", "id": jace_id, "target": guard_id,
                                "weapon": "Kniv", "area": "chest"})
    command(gm, encounter, {"type": "pass", "id": guard_id})

    def faces(what, count, typed):
        if what == "attack" and not typed:
            return [6] + [1] * (count - 1)  # a six: rolled again as two more dice
        return [2] * count

    answered = answer_prompts(player, faces, shot, "phobia")
    attack = [a for a in answered if a[0] == "attack"]
    assert len(attack) >= 2  # the six asked for two more dice, the typed ones kept
    assert attack[1][2].startswith("6")
    assert len(attack[1][1]) == 2
    typed = " ".join(map(str, attack[0][1] + attack[1][1]))
    for page in (gm, watcher):
        expect(page.locator("#roll-log [data-typed-in]").filter(has_text=typed).first
               ).to_be_visible(timeout=LIVE)
    shot(watcher, "phobia-watcher-resolved")
    the_end_with_luck(gm, player, watcher, encounter, jace_id, shot, "phobia")
    assert errors == []


def test_a_t10_attacks_2t10_typed_with_a_ten(
        browser, site_server, django_user_model, shot):
    from tests.browser.test_t10_combat import JOHAN_ATTRIBUTES, JOHAN_SKILLS, PISTOL

    campaign, gm_user, player_user = table(django_user_model, "t10", "tio")
    CatalogueItem.objects.create(campaign=campaign, kind="weapon", key="pistol", data=PISTOL)
    johan = Character.objects.create(owner=player_user, campaign=campaign, name="Johan",
                                     rule_system="t10", attributes=JOHAN_ATTRIBUTES,
                                     skills=JOHAN_SKILLS)
    encounter = Encounter.objects.create(campaign=campaign, name="Hamnen", system="t10")
    client = Client()
    client.force_login(gm_user)
    for data in ({"source": "character", "character": johan.pk, "side": "a",
                  "weapons": "pistol"},
                 {"source": "block", "name": "Soldat", "side": "b", "initiative": "-5"}):
        encounter.refresh_from_db()
        added = client.post(f"/encounters/{encounter.pk}/add/",
                            {"version": encounter.version, **data})
        assert added.status_code in (200, 302), added.content.decode()[:300]
    run(encounter, gm_user, {"type": "start"})
    encounter.refresh_from_db()
    state = services.folded(encounter).state
    johan_id = next(c.id for c in state.combatants if c.name == "Johan")
    soldier_id = next(c.id for c in state.combatants if c.name == "Soldat")
    assert state.active == johan_id
    run(encounter, player_user, {"type": "stance", "id": johan_id, "stance": "aimed",
                                 "weapon": "pistol"})
    players_roll(campaign)

    gm, player, watcher, errors = open_three(browser, site_server, campaign, encounter)
    command(player, encounter, {"type": "attack", "id": johan_id, "target": soldier_id,
                                "weapon": "pistol", "distance": 10})
    answered = answer_prompts(player, lambda what, count, typed: [10, 4][:count], shot, "t10")
    assert answered[0][:2] == ("attack", (10, 4))
    for page in (gm, watcher):
        expect(page.locator("#roll-log .combat-attackrolled").filter(has_text="[10, 4]").first
               ).to_be_visible(timeout=LIVE)
    shot(watcher, "t10-watcher-resolved")
    the_end_with_luck(gm, player, watcher, encounter, johan_id, shot, "t10")
    assert errors == []
