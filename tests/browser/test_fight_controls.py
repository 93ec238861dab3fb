"""The fight's smaller controls on a 360 × 740 phone (issue 26.9): the Phobia GM in the
middle of a turn sees the turn's card and the round's early end folded away with what it
does; ending the fight takes a second step, which works with JavaScript off too. Each
step's screenshot is kept."""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat import services
from combat.models import Encounter
from tests.browser.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "hjortspår-i-frusen-mark"
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}


@pytest.fixture
def phobia_round(django_user_model):
    """Jace (the player's) against a guard (TO 99) in a Phobia fight's first round: the
    guard's turn is on."""
    services.forget()
    gm = django_user_model.objects.create_user("spelledaren", password=PASSWORD)
    player = django_user_model.objects.create_user("spelaren", password=PASSWORD)
    campaign = campaign_create(gm=gm, name="Skuggorna", rule_system="phobia")
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    jace = Character.objects.create(
        owner=player, campaign=campaign, name="Jace", rule_system="phobia",
        attributes={"strength": 12, "endurance": 10, "agility": 14, "personality": 9,
                    "psyche": 13, "will": 14, "education": 8, "sight": 15, "hearing": 7,
                    "luck": 10},
        skills={"combat_experience": 13}, rolled={"calm": [3, 5]},
    )
    encounter = Encounter.objects.create(campaign=campaign, name="Gränden", system="phobia")
    membership = campaign.memberships.get(user=gm)
    levels, derived = jace.combat_stats(campaign.house_rules)
    block = services.engine_of(encounter).character_block(name="Jace", levels=levels,
                                                          derived=derived)
    for data, controller in (
        ({**block, "character_id": jace.pk}, player.pk),
        ({"type": "add_combatant", "name": "Vakten", "side": "b", "turn_order": 99,
          "weapon_name": "Kniv", "weapon_damage": 4, "weapon_type": "H",
          "weapon_skill": "combat_experience", "weapon_chance": 13}, None),
        ({"type": "start_round"}, None),
    ):
        encounter, _record, _after = services.command_run(
            encounter=encounter, membership=membership, data=data, version=encounter.version,
            controller=controller)
    return encounter


def log_in(page, live_server, next_path):
    page.goto(f"{live_server.url}/accounts/login/?next={next_path}")
    page.fill("#id_username", "spelledaren")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("^(Logga in|Log in)$")).click()
    expect(page).to_have_url(re.compile(re.escape(next_path) + "$"))


def panel_shot(page, name):
    """The GM's panel alone (the page is long): what these steps change."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.get_by_test_id("gm-panel").screenshot(
        path=str(SCREENSHOTS / f"test_fight_controls-{name}.png"))


def too_small(page, root) -> list[str]:
    return root.evaluate("""(root) => [...root.querySelectorAll("button, summary")]
        .filter((el) => el.offsetParent)
        .map((el) => [el.textContent.trim(), el.getBoundingClientRect()])
        .filter(([, r]) => r.width < 43.5 || r.height < 43.5)
        .map(([text, r]) => `${text}: ${r.width}×${r.height}`)""")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_phobia_gm_ends_the_round_early_only_on_purpose_and_the_fight_in_two_steps(
    browser, live_server, phobia_round, javascript
):
    context = browser.new_context(**PHONE, java_script_enabled=javascript)
    # English: the Swedish of these new strings reaches the catalogue with its next merge.
    context.add_cookies([{"name": "django_language", "value": "en", "url": live_server.url}])
    page = context.new_page()
    path = phobia_round.get_absolute_url()
    log_in(page, live_server, path)

    controls = page.get_by_test_id("round-controls")
    expect(controls).to_contain_text("Vakten's turn: it ends by itself")
    early = page.get_by_test_id("round-early")
    expect(early.get_by_test_id("end-round")).to_be_hidden()  # folded away
    expect(page.get_by_test_id("your-turn").get_by_test_id("action-end_turn")).to_be_visible()
    early.locator("summary").click()
    expect(early.get_by_test_id("end-round")).to_be_visible()
    expect(early).to_contain_text("The turns not yet taken this round are lost")
    early.scroll_into_view_if_needed()
    panel_shot(page, f"{javascript and 'js' or 'no-js'}-1-round-early")

    fold = page.get_by_test_id("end-fold")
    expect(fold.get_by_test_id("end")).to_be_hidden()
    fold.locator("summary").click()
    expect(fold.get_by_test_id("end")).to_have_text("Yes, end the fight")
    fold.scroll_into_view_if_needed()
    panel_shot(page, f"{javascript and 'js' or 'no-js'}-2-end-fold")
    assert too_small(page, page.get_by_test_id("gm-panel")) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360

    fold.get_by_test_id("end").click()
    expect(page.get_by_test_id("combat-status")).to_contain_text("The encounter has ended.")
    expect(page.get_by_test_id("end-fold")).to_have_count(0)
    phobia_round.refresh_from_db()
    assert phobia_round.ended
    context.close()
