"""Issue 26's done-when for Phobia and T10 (test_prompts plays Aoristos): a GM on a laptop
and two players on phones (360 × 740 and 390 × 844). One player has scrolled to the bottom
of the encounter page, the other is on the table page. An NPC attacks each player's
character in turn; each answers from the prompt that reached them: the first from the
in-page prompt brought into view, with the keyboard alone (Tab and Enter or Space), the
second by tapping the banner on the table page. Then the GM undoes a named move from the
undo menu and both phones show its log line undone. No phone scrolls sideways, no page
logs a script error.

Each fight is set up in the test's process (the server reads it from the database); the
attacks and the answers happen through the pages, on the real server process.
"""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from combat import services
from combat.models import Encounter
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_campaign_flows import overflow
from tests.browser.test_live_table import PASSWORD, real_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 800}
SMALL = {"width": 360, "height": 740}
PHONE = {"width": 390, "height": 844}
LIVE = 3_000  # ms
ATTACKED = re.compile("Du anfalls — svara|You are attacked — answer")

PHOBIA_ATTRIBUTES = {"strength": 12, "endurance": 10, "agility": 14, "personality": 9,
                     "psyche": 13, "will": 14, "education": 8, "sight": 15, "hearing": 7,
                     "luck": 10}
T10_ATTRIBUTES = {"body": 0, "combat": -1, "mind": 0, "social": -2, "initiative": 2}
PISTOL = {"key": "pistol", "name": "Pistol", "skill": "pistol", "close": 5, "normal": 25,
          "maximum": 50, "damage": 3, "attack_ap": 3, "reload_ap": 5, "stance_ap": 2,
          "magazine": 8, "modes": [["E", 0]]}


def setting(django_user_model, system, name, attributes, skills, **extra):
    """The GM, two players (seats 1 and 2) and their characters Jace and Kira in a fight
    of `system`, the characters in it; returns the encounter and a `run(data, user)`."""
    gm = real_user(django_user_model, "spelledaren")
    players = [real_user(django_user_model, n) for n in ("jacesspelare", "kirasspelare")]
    campaign = campaign_create(gm=gm, name="Skuggorna", rule_system=system)
    encounter = Encounter.objects.create(campaign=campaign, name=name, system=system)
    engine = services.engine_of(encounter)

    def run(data, user=gm, controller=None):
        encounter.refresh_from_db()
        membership = campaign.memberships.get(user=user)
        services.command_run(membership=membership, data=data, version=encounter.version,
                             encounter_id=encounter.pk, controller=controller)

    for seat, (player, character_name) in enumerate(zip(players, ("Jace", "Kira"),
                                                        strict=True), 1):
        Membership.objects.create(campaign=campaign, user=player, seat=seat)
        character = Character.objects.create(
            owner=player, campaign=campaign, name=character_name, rule_system=system,
            attributes=attributes, skills=skills, **extra,
        )
        levels, derived = character.combat_stats(campaign.house_rules)
        block = engine.character_block(name=character_name, levels=levels, derived=derived)
        run({**block, "character_id": character.pk, "side": "a"}, controller=player.pk)
    return encounter, run, players


def on(name):
    """An attack on `name`, as a prompt's heading says it."""
    return re.compile(f"(anfaller|attacks) {name}")


def open_page(browser, site_server, username, viewport, path):
    context = browser.new_context(viewport=viewport, has_touch=viewport is not LAPTOP)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site_server.url}/accounts/login/?next={path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    return page, errors


def screen(page, system, name):
    """What the screen shows now (the viewport, not the whole page)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"test_prompts_three-{system}-{name}.png"))


def keyboard_to(page, testid, key):
    """Tab from where the focus is to the control `testid` and press `key` on it: no
    click, no tap. The focus starts inside the prompt (its heading, as it came into view)."""
    assert page.evaluate("!!document.activeElement.closest('.prompt.mine')"), \
        page.evaluate("document.activeElement.outerHTML.slice(0, 200)")
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.testid") == testid:
            page.keyboard.press(key)
            return
    raise AssertionError(f"Tab never reached {testid}")


def play(browser, site_server, encounter, system, attack, answer, settle,
         bystander=lambda name: None):
    """The shared course of both systems. `attack(gm, target)` makes the GM's NPC attack,
    `answer(page, locator_of_prompt, keyboard)` answers on a phone, `settle(gm)` lets the
    fight go on to the next attack; `bystander(name)` lets the other character's own chance
    to answer go by (T10 waits for everyone with saved AP)."""
    encounter_path = f"/encounters/{encounter.pk}/"
    table_path = f"/campaigns/{encounter.campaign_id}/table/"
    gm, gm_errors = open_page(browser, site_server, "spelledaren", LAPTOP, encounter_path)
    jace, jace_errors = open_page(browser, site_server, "jacesspelare", SMALL, encounter_path)
    kira, kira_errors = open_page(browser, site_server, "kirasspelare", PHONE, table_path)
    phones = ((jace, SMALL), (kira, PHONE))

    # 1. Jace's player has scrolled to the bottom of the encounter page; the NPC attacks.
    jace.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    expect(jace.locator(".prompt.mine")).to_have_count(0)
    attack(gm, "Jace")
    prompt = jace.locator(".prompt.mine")
    expect(prompt.locator("h2").first).to_be_in_viewport(timeout=LIVE)
    expect(prompt).to_contain_text("Jace")
    expect(jace).to_have_title(re.compile("^⚔ "))
    # Only the attacked player is called: not the GM for Jace (a player's; the GM may be
    # called for an NPC's own chance to respond), not Kira's player.
    assert "Jace" not in gm.title(), gm.title()
    # (Phobia offers the bystanders their chance to respond: not an attack on them.)
    expect(kira.get_by_test_id("prompt-banner")).not_to_contain_text(ATTACKED)
    screen(kira, system, "00-kira-table-during-jaces-prompt")
    screen(jace, system, "01-jace-prompt-in-view")
    answer(jace, prompt, keyboard=True)
    expect(jace.locator(".prompt.mine", has_text=on("Jace"))).to_have_count(0, timeout=LIVE)
    bystander("Kira")
    expect(jace).not_to_have_title(re.compile("⚔"), timeout=LIVE)
    settle(gm)

    # 2. Kira's player is on the table page: the banner links to the fight; a tap, and
    # the fight opens with the prompt in view.
    attack(gm, "Kira")
    link = kira.get_by_test_id("prompt-banner-link")
    expect(link).to_be_visible(timeout=LIVE)
    expect(link).to_contain_text(ATTACKED)
    expect(link).to_be_in_viewport()
    expect(kira).to_have_title(re.compile("^⚔ "))
    bystander("Jace")
    screen(kira, system, "02-kira-banner-on-the-table")
    assert overflow(kira) == 0, f"the table is {overflow(kira)} px wider than the phone"
    link.tap()
    expect(kira).to_have_url(re.compile(f"{encounter_path}#prompt$"))
    kira_prompt = kira.locator(".prompt.mine")
    expect(kira_prompt.locator("h2").first).to_be_in_viewport(timeout=LIVE)
    expect(kira_prompt).to_contain_text("Kira")
    screen(kira, system, "03-kira-prompt-in-the-fight")
    answer(kira, kira_prompt, keyboard=False)
    expect(kira.locator(".prompt.mine", has_text=on("Kira"))).to_have_count(0, timeout=LIVE)
    expect(gm.locator(".prompt", has_text=on("Kira"))).to_have_count(0, timeout=LIVE)
    screen(gm, system, "04-gm-after-both-answers")

    # 3. The GM undoes a named move: the attack on Kira, by its log line.
    menu = gm.get_by_test_id("undo-to")
    names = menu.locator("option").all_inner_texts()
    # The newest of the GM's own moves that names Kira: the attack on her (undoing it takes
    # her answer back too).
    named = next(text for text in names if "Kira" in text
                 and text.endswith("— spelledaren") and re.match(r"^v\d+ · ", text))
    version = re.match(r"^v(\d+) · ", named).group(1)
    menu.select_option(label=named)
    gm.get_by_test_id("undo").click()
    for page, viewport in phones:
        line = page.locator(f'#roll-log li[data-version="{version}"]')
        expect(line).to_have_class(re.compile(r"\bundone\b"), timeout=LIVE)
        expect(line.locator("del").first).to_be_visible()
        line.scroll_into_view_if_needed()
        assert overflow(page) == 0, f"{overflow(page)} px wider than the phone"
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    screen(jace, system, "05-jace-undone-line")
    screen(kira, system, "06-kira-undone-line")
    screen(gm, system, "07-gm-after-undo")

    assert not gm_errors, gm_errors
    assert not jace_errors, jace_errors
    assert not kira_errors, kira_errors
    return named


def test_phobia_prompts_find_both_players_and_the_gm_undoes_a_named_move(
    browser, site_server, django_user_model
):
    encounter, run, _ = setting(django_user_model, "phobia", "Gränden", PHOBIA_ATTRIBUTES,
                                {"combat_experience": 13}, rolled={"calm": [3, 5]})
    for name, order in (("Vakten", 99), ("Hunden", 98)):  # both act before Jace and Kira
        run({"type": "add_combatant", "name": name, "side": "b", "turn_order": order,
             "weapon_name": "Kniv", "weapon_damage": 4, "weapon_type": "H",
             "weapon_skill": "combat_experience", "weapon_chance": 13})
    run({"type": "start_round"})

    def attack(gm, target):
        gm.get_by_test_id("declare").click()
        row = gm.get_by_test_id("attack-options").locator("tr").filter(has_text=target)
        row.locator("select[name=area]").select_option("arm")
        row.get_by_role("button").click()

    def answer(page, prompt, keyboard):
        expect(prompt.get_by_test_id("pass")).to_be_visible()
        if keyboard:
            keyboard_to(page, "pass", "Enter")
        else:
            prompt.get_by_test_id("pass").tap()

    def settle(gm):
        # The NPC's one action is done: its turn ends and the next NPC's comes.
        expect(gm.get_by_test_id("declare")).to_be_visible(timeout=LIVE)

    named = play(browser, site_server, encounter, "phobia", attack, answer, settle)
    assert re.match(r"^v\d+ · Hunden anfaller Kira med Kniv", named), named


def test_t10_prompts_find_both_players_and_the_gm_undoes_a_named_move(
    browser, site_server, django_user_model
):
    encounter, run, players = setting(django_user_model, "t10", "Hamnen", T10_ATTRIBUTES,
                                      {"pistol": 2})
    # Initiativ −10: 1T10 − 10 ≤ 0 < 3 ≤ 1T10 + 2, the soldier acts last.
    run({"type": "add_combatant", "name": "Soldat", "side": "b", "initiative": -10,
         "weapons": [PISTOL], "right": "pistol", "stance": "aimed", "skills": {"pistol": 1}})
    run({"type": "start"})
    # Jace and Kira save 4 AP each (a reaction needs saved AP), in the order they act.
    for _ in range(2):
        encounter.refresh_from_db()
        state = services.folded(encounter).state
        active = state.get(state.active)
        owner = players[0] if active.name == "Jace" else players[1]
        run({"type": "act", "id": active.id, "label": "Spana", "ap": 6}, user=owner)
        run({"type": "end_turn", "id": active.id}, user=owner)
    encounter.refresh_from_db()
    state = services.folded(encounter).state
    soldier = state.get(state.active)
    assert soldier.name == "Soldat"
    ids = {c.name: c.id for c in state.combatants}
    s = soldier.id

    def attack(gm, target):
        form = gm.get_by_test_id(f"attack-form-{s}")
        expect(form).to_be_visible(timeout=LIVE)
        form.get_by_test_id(f"attack-target-{s}").select_option(ids[target])
        form.locator("select[name=weapon]").select_option("pistol")
        form.get_by_test_id(f"attack-distance-{s}").fill("10")
        gm.get_by_test_id(f"attack-submit-{s}").click()
        expect(gm.get_by_test_id("pending")).to_contain_text("Pistol", timeout=LIVE)

    def answer(page, prompt, keyboard):
        text = prompt.inner_text()
        j = next(i for name, i in ids.items() if name != "Soldat" and name in text)
        button = prompt.get_by_test_id(f"react-pass-{j}")
        expect(button).to_be_visible()
        if keyboard:
            keyboard_to(page, f"react-pass-{j}", "Space")
        else:
            button.tap()

    def settle(gm):
        # The bystander's pass was stored by this process, which the stream does not
        # announce: the GM's page reads it anew.
        gm.reload()
        expect(gm.get_by_test_id("pending")).to_have_count(0, timeout=LIVE)

    def bystander(name):
        # The other player lets their own chance to react go by (from elsewhere).
        owner = players[0] if name == "Jace" else players[1]
        encounter.refresh_from_db()
        pending = services.folded(encounter).state.pending
        if pending is not None and ids[name] in pending.unanswered:
            run({"type": "pass", "id": ids[name]}, user=owner)

    named = play(browser, site_server, encounter, "t10", attack, answer, settle, bystander)
    assert "Soldat" in named
