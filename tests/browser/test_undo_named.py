"""Issue 26, item 3 in a real browser against the real server: the GM undoes a move named
by its log line and its maker; the log greys it at once on the GM's laptop and on the
player's phone (the stream's undo line says which move), and the phone shows no version
number anywhere."""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat import services
from combat.models import Encounter
from tests.browser.test_combat import ALBERT, DESKTOP, LIVE, PHONE, open_encounter, real_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VERSION = re.compile(r"\bv\d+\b")


@pytest.fixture
def bakgarden(django_user_model):
    """test_combat's encounter: the GM, the player and Albert, nobody in it yet."""
    gm = real_user(django_user_model, "spelledaren")
    player = real_user(django_user_model, "spelaren")
    campaign = campaign_create(gm=gm, name="Nattens kant")
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    Character.objects.create(owner=player, campaign=campaign, name="Albert",
                             attributes=ALBERT, skills={"firearms": 4, "evasion": 1})
    return Encounter.objects.create(campaign=campaign, name="Bakgården", system="aoristos")


def command(fight, username, data, **kwargs):
    fight.refresh_from_db()
    membership = Membership.objects.get(campaign=fight.campaign, user__username=username)
    return services.command_run(encounter=fight, membership=membership, data=data,
                                version=fight.version, **kwargs)


def test_gm_undoes_a_named_move_and_both_logs_grey_it(browser, site_server, bakgarden, shot):
    from rules.aoristos.combat import ENGINE

    encounter = bakgarden
    albert = encounter.campaign.characters.get(name="Albert")
    block = ENGINE.character_block(name="Albert", levels=albert.levels(),
                                   derived=albert.secondary().as_dict())
    block.update(character_id=albert.pk)
    command(encounter, "spelledaren", block, controller=albert.owner_id)
    command(encounter, "spelledaren", {"type": "add_combatant", "name": "Vakten", "side": "b",
                                      "x": 5.0, "alertness": 1})
    command(encounter, "spelledaren", {"type": "start"})  # Albert (SIN 5) acts first
    albert_id = next(iter(encounter.controllers))
    command(encounter, "spelaren", {"type": "move", "id": albert_id, "x": 2.0, "y": 0.0})
    moved = encounter.version

    gm_context, gm, gm_errors = open_encounter(browser, site_server, "spelledaren", DESKTOP,
                                               encounter)
    phone_context, phone, phone_errors = open_encounter(browser, site_server, "spelaren",
                                                        PHONE, encounter)
    try:
        menu = gm.get_by_test_id("undo-to")
        newest = menu.locator("option").first
        expect(newest).to_have_text(re.compile(rf"^v{moved} · Albert .*2,0 m.* — spelaren$"))
        menu.select_option(label=newest.inner_text())
        gm.get_by_test_id("undo").click()
        for page in (gm, phone):
            line = page.locator(f'#roll-log li[data-version="{moved}"]')
            expect(line).to_have_class(re.compile(r"\bundone\b"), timeout=LIVE)
            expect(line.locator("del.roll-what")).to_contain_text("Albert")
            expect(line.locator(".undone-mark")).to_have_text(re.compile(r"^\S+:$"))
        expect(gm.get_by_test_id("redo-move")).to_contain_text(f"v{moved} · Albert")
        shot(gm, "gm-after-undo")
        shot(phone, "phone-after-undo")
        # The phone: no version number in its text or its tooltips.
        text = phone.locator("body").inner_text()
        titles = phone.eval_on_selector_all("[title]", "els => els.map(e => e.title)")
        assert not VERSION.search(text), VERSION.search(text)
        assert not any(VERSION.search(t) for t in titles), titles
        # Redo: the line is live again on both.
        gm.get_by_test_id("redo").click()
        for page in (gm, phone):
            line = page.locator(f'#roll-log li[data-version="{moved}"]')
            expect(line).not_to_have_class(re.compile(r"\bundone\b"), timeout=LIVE)
            expect(line.locator("del")).to_have_count(0)
            expect(line.locator(".undone-mark")).to_have_count(0)
        shot(phone, "phone-after-redo")
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert not gm_errors, gm_errors
        assert not phone_errors, phone_errors
    finally:
        gm_context.close()
        phone_context.close()
