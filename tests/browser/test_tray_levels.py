"""The Aoristos tray on a 360 × 740 phone (issue 26): each property shows the chosen
character's level, and the chance stays in sight while the 26 properties scroll by."""


import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from rules.aoristos.character import SKILLS
from tests.browser.test_live_table import real_user
from tests.browser.test_table_phone import in_view, open_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}


@pytest.fixture
def table(django_user_model):
    gm = real_user(django_user_model, "spelledaren")
    player = real_user(django_user_model, "spelaren")
    campaign = campaign_create(gm=gm, name="Nattens kant")
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    albert = Character.objects.create(owner=player, campaign=campaign, name="Albert",
                                      attributes={"alertness": 5}, skills={SKILLS[-1]: 2})
    berit = Character.objects.create(owner=player, campaign=campaign, name="Berit",
                                     attributes={"alertness": 2}, skills={SKILLS[-1]: 4})
    return campaign, albert, berit


def test_levels_beside_the_properties_and_the_chance_in_sight(
    browser, site_server, table, shot
):
    campaign, albert, berit = table
    context, page, errors = open_table(browser, site_server, "spelledaren", campaign,
                                       viewport=PHONE)
    last = SKILLS[-1]
    expect(page.get_by_test_id("level-alertness")).to_have_text("5")
    expect(page.get_by_test_id(f"level-{last}")).to_have_text("2")
    # The last property, at the bottom of the list: its tick shows the chance in sight.
    box = page.locator(f'input[name="properties"][value="{last}"]')
    box.scroll_into_view_if_needed()
    box.check()
    page.locator('input[name="properties"][value="alertness"]').check()
    box.scroll_into_view_if_needed()
    expect(page.get_by_test_id("odds-percent")).to_be_visible()
    assert in_view(page, page.get_by_test_id("odds-percent")), "the chance is in sight"
    shot(page, "1-chance-in-sight-at-the-last-property")
    # What the phone shows (the full-page shot above unrolls the sticky box).
    page.screenshot(path=f"test-artifacts/screenshots/{__name__.rsplit('.', 1)[-1]}-screen.png")
    # Another character: the levels follow (with the odds' answer).
    page.locator('select[name="character"]').select_option(str(berit.pk))
    expect(page.get_by_test_id(f"level-{last}")).to_have_text("4")
    expect(page.get_by_test_id("level-alertness")).to_have_text("2")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, width
    shot(page, "2-berits-levels")
    assert not errors, errors
    context.close()
