"""The vigilance move by RÖR on the map (p. 9, issue 45): a player on a 360 px phone is
shot at by an NPC; the map shows where RÖR may take Albert (the ring of his RÖR, the
known cover within 10 m marked); a tap beside the cover shows the attacker's chance from
there (the engine's preview); "Defend from here" fills the prompt's form, and defending
moves Albert there. Nothing is wider than the phone; the controls are 44 px or more.

The fight is set up in the test's process; everything after happens through the page."""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat import services
from combat.models import Encounter
from rules.aoristos.combat import ENGINE
from tests.browser.test_combat import real_user
from tests.browser.test_map import open_page, tap
from tests.browser.test_prompts import LIVE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NARROW = {"width": 360, "height": 780}


@pytest.fixture
def shot_at(django_user_model):
    gm = real_user(django_user_model, "vaktledaren")
    player = real_user(django_user_model, "vaktspelaren")
    campaign = campaign_create(gm=gm, name="Vaksamheten")
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    encounter = Encounter.objects.create(campaign=campaign, name="Muren", system="aoristos")
    gm_membership = campaign.memberships.get(user=gm)

    def run(data, controller=None):
        encounter.refresh_from_db()
        services.command_run(membership=gm_membership, data=data, version=encounter.version,
                             encounter_id=encounter.pk, controller=controller)

    albert = Character.objects.create(
        owner=player, campaign=campaign, name="Albert",
        attributes={"physique": 3, "composure": 3, "agility": 3, "alertness": 5,
                    "willpower": 4},
        skills={"evasion": 2},
    )
    block = ENGINE.character_block(name="Albert", levels=albert.levels(),
                                   derived=albert.secondary().as_dict())
    block.update(character_id=albert.pk, side="a", x=0.0, y=0.0)
    run(block, controller=player.pk)
    run({"type": "add_combatant", "name": "Rövaren Grim", "side": "b", "x": 8.0, "y": 0.0,
         "physique": 3, "composure": 3, "agility": 2, "alertness": 1, "willpower": 3,
         "drive": 14, "skills": {"firearms": 2}, "weapons": ["pistol"], "right": "pistol"})
    # A low wall 2 m beside Albert, drawn for everyone: known cover within 10 m (p. 9).
    run({"type": "add_shape", "kind": "cover", "points": "-2,2 2,2 2,3 -2,3",
         "label": "mur"})
    run({"type": "start"})
    run({"type": "end_activation", "id": "c1"})
    run({"type": "attack", "id": "c2", "target": "c1", "weapon": "pistol"})
    encounter.refresh_from_db()
    assert services.folded(encounter).state.attack.stage == "vigilance"
    return encounter


def test_the_target_chooses_its_vigilance_move_on_the_map_p9(browser, site_server, shot_at,
                                                            shot):
    path = f"/encounters/{shot_at.pk}/"
    phone, errors = open_page(browser, site_server, "vaktspelaren", NARROW, path)
    # The map shows Albert's reach (RÖR 3 m), the 10 m ring and the wall he knows.
    expect(phone.get_by_test_id("vigil-c1")).to_have_count(1, timeout=LIVE)
    expect(phone.get_by_test_id("vigil-cover-0")).to_have_count(1)
    expect(phone.get_by_test_id("vigilance-move")).to_be_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
    shot(phone, "01-prompt-and-reach")

    # A tap on the wall's near edge: the sheet says how far, and the chance from there.
    tap(phone, 0, 2)
    here = phone.get_by_test_id("map-vigil-here")
    expect(here).to_be_visible(timeout=LIVE)
    expect(phone.get_by_test_id("map-vigil-chance")).to_contain_text("%")
    expect(phone.locator(".map-sheet")).to_contain_text("2 m")
    assert here.bounding_box()["height"] >= 44
    assert phone.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
    shot(phone, "02-point-offered")

    # "Defend from here" fills the prompt; RÖR is ticked, the chance is from the wall.
    here.click()
    point = phone.get_by_test_id("vigilance-point")
    expect(point).to_be_visible(timeout=LIVE)
    expect(point).to_contain_text("(0; 2)")
    form = phone.locator(".vigilance-form")
    expect(form.locator('input[name="properties"][value="agility"]')).to_be_checked()
    expect(form.locator('input[name="x"]')).to_have_value("0")
    submit = phone.get_by_test_id("vigilance-submit")
    assert submit.bounding_box()["height"] >= 44
    shot(phone, "03-form-filled")

    submit.click()
    expect(phone.get_by_test_id("map-svg")).to_have_attribute(
        "data-positions", re.compile(r"c1:0,2\b"), timeout=LIVE)
    shot_at.refresh_from_db()
    albert = services.folded(shot_at).state.get("c1")
    assert (albert.x, albert.y) == (0.0, 2.0)
    expect(phone.get_by_test_id("trail-c1")).to_have_count(1)  # the vigilance move's trail
    phone.wait_for_timeout(800)  # the token glides to its new place (a CSS transition)
    assert phone.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
    shot(phone, "04-moved-to-the-wall")
    assert errors == []
