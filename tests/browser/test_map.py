"""The battle map (issue 27): an Aoristos fight with a player on a 390 × 844 phone and the
GM on a laptop. The GM drags the NPC to a new place (within a knife's reach of where
the player will move); the player taps a point, sees the
move's cost (the engine's own figure), moves there; taps the NPC, sees the attack's
chance (the form's exact preview) and attacks from the map. Both maps show the same
positions after each step; the round's movement shows as a trail.

The fight is set up and started in the test's process; everything after happens through
the pages, on the real server process.
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
from rules.aoristos.combat import figures as F
from tests.browser.test_combat import real_user
from tests.browser.test_prompts import open_page as open_prompts_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

from tests.browser.test_prompts import LAPTOP, LIVE, PHONE  # noqa: E402


@pytest.fixture
def fight(django_user_model):
    gm = real_user(django_user_model, "kartledaren")
    player = real_user(django_user_model, "kartspelaren")
    campaign = campaign_create(gm=gm, name="Kartan")
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    encounter = Encounter.objects.create(campaign=campaign, name="Gläntan", system="aoristos")
    gm_membership = campaign.memberships.get(user=gm)

    def run(data, controller=None):
        encounter.refresh_from_db()
        services.command_run(membership=gm_membership, data=data, version=encounter.version,
                             encounter_id=encounter.pk, controller=controller)

    albert = Character.objects.create(
        owner=player, campaign=campaign, name="Albert",
        attributes={"physique": 3, "composure": 3, "agility": 3, "alertness": 5,
                    "willpower": 4},
        skills={"evasion": 2, "melee_weapons": 2},
    )
    block = ENGINE.character_block(name="Albert", levels=albert.levels(),
                                   derived=albert.secondary().as_dict())
    block.update(character_id=albert.pk, side="a", x=0.0, y=0.0, weapons=["knife"],
                 right="knife")
    run(block, controller=player.pk)
    run({"type": "add_combatant", "name": "Rövaren Grim", "side": "b", "x": 8.0, "y": 0.0,
         "physique": 3, "composure": 3, "agility": 2, "alertness": 1, "willpower": 3,
         "skills": {"melee_weapons": 1}, "weapons": ["knife"], "right": "knife"})
    run({"type": "start"})
    encounter.refresh_from_db()
    return encounter


def open_page(browser, site_server, username, viewport, path):
    page, errors = open_prompts_page(browser, site_server, username, viewport, path)
    expect(page.get_by_test_id("map-svg").locator(".map-token")).to_have_count(2)
    return page, errors


def screen_point(page, x, y):
    """Where the map point (x, y) metres is on the screen now."""
    return page.evaluate(
        """([x, y]) => {
            const svg = document.querySelector('[data-testid=map-svg]');
            const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )


def token_at(page, cid):
    """A token's position in metres, as its transform puts it."""
    return page.evaluate(
        """(cid) => {
            const t = document.querySelector(`[data-testid=token-${cid}]`).style.transform;
            return t.match(/-?[\\d.]+/g).map(Number);
        }""",
        cid,
    )


def test_move_and_attack_on_the_map_and_the_gm_places_a_token(
    browser, site_server, fight, shot
):
    path = f"/encounters/{fight.pk}/"
    gm, gm_errors = open_page(browser, site_server, "kartledaren", LAPTOP, path)
    phone, phone_errors = open_page(browser, site_server, "kartspelaren", PHONE, path)
    # The map is at the top of the phone page, above the fight's panel.
    map_box = phone.get_by_test_id("battle-map").bounding_box()
    panel_box = phone.get_by_test_id("encounter-state").bounding_box()
    assert map_box["y"] < panel_box["y"]
    expect(phone.get_by_test_id("token-c1")).to_have_class(re.compile(r"\bactive\b"))
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, "01-phone-map")

    # 1. The GM drags Rövaren Grim from (8, 0) to (4, 1): both maps show it there.
    gx, gy = screen_point(gm, 8, 0)
    tx, ty = screen_point(gm, 4, 1)
    gm.mouse.move(gx, gy)
    gm.mouse.down()
    gm.mouse.move((gx + tx) / 2, (gy + ty) / 2, steps=4)
    gm.mouse.move(tx, ty, steps=4)
    gm.mouse.up()
    for page in (gm, phone):
        expect(page.get_by_test_id("map-svg")).to_have_attribute("data-positions",
                                                                re.compile(r"c2:4,1\b"),
                                                                timeout=LIVE)
    fight.refresh_from_db()
    grim = services.folded(fight).state.get("c2")
    assert (grim.x, grim.y) == (4.0, 1.0)

    # 2. The player taps (3, 0): the sheet offers the move with its cost, the engine's.
    albert = services.folded(fight).state.get("c1")
    cost = F.movement_cost(3.0, agility=albert.agility, movement=albert.movement,
                           moved_before=albert.moved)
    px, py = screen_point(phone, 3, 0)
    phone.mouse.click(px, py)
    move = phone.get_by_test_id("map-move")
    expect(move).to_have_text(re.compile(rf"\({cost} KP\)$"), timeout=LIVE)
    expect(phone.get_by_test_id("map-path")).to_have_count(1)
    shot(phone, "02-phone-move-offered")
    move.click()
    for page in (gm, phone):
        expect(page.get_by_test_id("map-svg")).to_have_attribute("data-positions",
                                                                re.compile(r"c1:3,0\b"),
                                                                timeout=LIVE)
        expect(page.get_by_test_id("trail-c1")).to_have_count(1)
    fight.refresh_from_db()
    after = services.folded(fight).state.get("c1")
    assert (after.x, after.y, albert.cp - after.cp) == (3.0, 0.0, cost)

    # 3. The player taps Rövaren Grim: distance, reach and the form's exact preview.
    gx, gy = screen_point(phone, 4, 1)
    phone.mouse.click(gx, gy)
    foe = phone.get_by_test_id("map-foe")
    expect(foe).to_contain_text("Rövaren Grim", timeout=LIVE)
    expect(foe).to_contain_text("1,4 m")  # hypot(1, 1), as the page writes it
    chance = phone.locator("#attack-preview [data-testid=preview-hit]")
    expect(chance).to_be_visible(timeout=LIVE)
    copied = phone.get_by_test_id("map-preview").locator("[data-testid=map-preview-hit]")
    expect(copied).to_have_text(chance.inner_text(), timeout=LIVE)
    shot(phone, "03-phone-attack-offered")
    phone.get_by_test_id("map-attack").click()
    for page in (gm, phone):
        expect(page.locator("#roll-log").get_by_text(
            re.compile("Albert (anfaller|attacks) Rövaren Grim"))).to_have_count(1, timeout=LIVE)
    shot(gm, "04-gm-after-the-attack")
    assert gm_errors == []
    assert phone_errors == []
