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
from combat.models import CatalogueItem, Encounter
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


def tap_token(page, cid, x, y):
    """Tap the token of combatant `cid` at (x, y) metres once it is drawn there: a token
    glides to a new place (a CSS transition), and on a loaded machine it can still be on
    its way when the test would tap, where a player waits to see it arrive."""
    page.get_by_test_id("map-viewport").scroll_into_view_if_needed()
    page.wait_for_function(STILL, polling="raf", timeout=LIVE)
    page.wait_for_function(
        """([cid, x, y]) => {
            const svg = document.querySelector('[data-testid=map-svg]');
            const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
            const hit = document.elementFromPoint(p.x, p.y)?.closest?.('.map-token');
            return hit?.dataset.id === cid;
        }""",
        arg=[cid, x, y],
        timeout=LIVE,
    )
    page.mouse.click(*screen_point(page, x, y))


# The page is still: the log has the record of the panel's version (the stream brings it
# after the command's own answer), the prompt banner is not asking (each record makes it
# ask again, and its answer can grow or shrink it, moving the map), and the map has stood
# in the same place for three frames.
STILL = """() => {
    const panel = document.getElementById('encounter-state');
    const log = document.getElementById('roll-log');
    const version = panel?.dataset.version;
    if (log && version && version !== '0' && !log.querySelector(
        `li.combat-record[data-encounter="${panel.dataset.encounter}"][data-version="${version}"]`
    )) return false;
    if (document.querySelector('#prompt-banner[data-looking]')) return false;
    const r = document.querySelector('[data-testid=map-viewport]').getBoundingClientRect();
    const key = [r.x, r.y, r.width, r.height].join();
    if (window.stillKey !== key) { window.stillKey = key; window.stillFrames = 0; return false; }
    return ++window.stillFrames >= 3;
}"""


def tap(page, x, y):
    """Tap the map at (x, y) metres, the map scrolled into view first (as a thumb would),
    once its tokens are drawn (before the map's data has come the page ignores a tap) and
    the page has stopped moving: on a loaded machine the prompt banner's answer to the
    last record came between finding the point and tapping it, and the tap landed 3 m off."""
    page.locator(".map-token").first.wait_for(timeout=LIVE)
    page.get_by_test_id("map-viewport").scroll_into_view_if_needed()
    page.wait_for_function(STILL, polling="raf", timeout=LIVE)
    page.mouse.click(*screen_point(page, x, y))


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
    tap_token(phone, "c2", 4, 1)
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


def png(width=200, height=100) -> bytes:
    """A real picture for the map (Pillow writes it)."""
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (120, 160, 90)).save(out, format="PNG")
    return out.getvalue()


def test_the_gm_sets_the_scene_walls_cover_a_picture_and_an_npc_where_tapped(
    browser, site_server, fight, shot, tmp_path
):
    path = f"/encounters/{fight.pk}/"
    gm, gm_errors = open_page(browser, site_server, "kartledaren", LAPTOP, path)
    phone, phone_errors = open_page(browser, site_server, "kartspelaren", PHONE, path)
    expect(phone.get_by_test_id("scene-tools")).to_have_count(0)  # the GM's alone
    gm.get_by_test_id("scene-tools").locator("summary").click()

    # 1. A wall drawn with three taps: every map shows it.
    gm.get_by_test_id("draw-wall").click()
    for x, y in ((2, -3), (6, -3), (6, 3)):  # the map scrolled into view for the drawing
        gm.mouse.click(*screen_point(gm, x, y))
    expect(gm.get_by_test_id("map-drawing-count")).to_contain_text("3")
    shot(gm, "01-gm-draws-a-wall")
    gm.get_by_test_id("map-draw-done").click()
    for page in (gm, phone):
        expect(page.get_by_test_id("map-shape-0")).to_have_attribute(
            "points", "2,-3 6,-3 6,3", timeout=LIVE)
    # 2. Cover typed in the form, for the GM alone: the phone does not get it.
    form = gm.get_by_test_id("shape-form")
    form.locator("select[name=kind]").select_option("cover")
    form.get_by_test_id("shape-points").fill("-2,2 -1,2 -1,4 -2,4")
    form.locator("input[type=checkbox][name=shown]").uncheck()
    form.get_by_test_id("shape-submit").click()
    expect(gm.get_by_test_id("map-shape-1")).to_have_class(re.compile("gm-only"), timeout=LIVE)
    expect(phone.locator("#roll-log").get_by_text(
        re.compile("(ändrar kartan|changes the map)"))).to_have_count(1, timeout=LIVE)
    expect(phone.get_by_test_id("map-shape-1")).to_have_count(0)
    fight.refresh_from_db()
    state = services.folded(fight).state
    assert [s.kind for s in state.scene.shapes] == ["wall", "cover"]
    assert state.scene.shapes[1].shown is False

    # 3. A picture under the map, 20 m wide: the server checks it is one.
    picture = tmp_path / "glantan.png"
    picture.write_bytes(png())
    bad = tmp_path / "not-a-picture.png"
    bad.write_bytes(b"this is text, not a PNG")
    upload = gm.get_by_test_id("map-picture-form")
    upload.locator("input[name=picture]").set_input_files(str(bad))
    upload.locator("input[name=width]").fill("20")
    upload.get_by_test_id("map-picture-submit").click()
    expect(gm.get_by_test_id("map-picture-error")).to_be_visible(timeout=LIVE)
    upload = gm.get_by_test_id("map-picture-form")
    expect(upload.locator("input[name=width]")).to_have_value("20")  # kept as typed
    upload.locator("input[name=picture]").set_input_files(str(picture))
    upload.get_by_test_id("map-picture-submit").click()
    expect(gm.get_by_test_id("map-picture-saved")).to_be_visible(timeout=LIVE)
    for page in (gm, phone):
        image = page.get_by_test_id("map-picture")
        expect(image).to_have_attribute("width", "20", timeout=LIVE)
        expect(image).to_have_attribute("height", "10")
        status = page.evaluate(
            "async () => (await fetch(document.querySelector('[data-testid=map-picture]')"
            ".getAttribute('href'))).status")
        assert status == 200
    shot(phone, "02-phone-sees-the-wall-and-the-picture")

    # 4. The GM taps an empty point and adds an NPC there.
    gm.get_by_test_id("map-viewport").scroll_into_view_if_needed()
    gm.mouse.click(*screen_point(gm, 4, 5))
    gm.get_by_test_id("map-add-npc").click()
    npc = gm.locator("#encounter-state [data-testid=npc-form]")
    expect(npc.locator("input[name=x]")).to_have_value("4", timeout=LIVE)
    expect(npc.locator("input[name=y]")).to_have_value("5")
    npc.get_by_test_id("npc-name").fill("Vakten Ulf")
    npc.get_by_test_id("npc-submit").click()
    for page in (gm, phone):
        expect(page.get_by_test_id("map-svg")).to_have_attribute(
            "data-positions", re.compile(r"c3:4,5\b"), timeout=LIVE)
    shot(gm, "03-gm-scene-set")
    shot(phone, "04-phone-scene-set")
    refused = [e for e in gm_errors if "status of 400" in e]
    assert len(refused) == 1  # the text file, answered 400 with the form's reason
    assert [e for e in gm_errors if e not in refused] == []
    assert phone_errors == []


@pytest.fixture
def t10_fight(django_user_model):
    """Johan (the player's, Initiativ 2, a pistol in Färdigställning) at (0, 0) against a
    soldier (Initiativ −10: Johan always acts first) at (10, 0), started."""
    from django.test import Client

    from tests.browser.test_t10_combat import JOHAN_ATTRIBUTES, JOHAN_SKILLS, PISTOL
    from tests.combat.helpers import post

    gm = real_user(django_user_model, "t10ledaren")
    player = real_user(django_user_model, "t10spelaren")
    campaign = campaign_create(gm=gm, name="Staden", rule_system="t10")
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    CatalogueItem.objects.create(campaign=campaign, kind="weapon", key="pistol",
                                 data={**PISTOL, "single": True, "auto": False})
    johan = Character.objects.create(owner=player, campaign=campaign, name="Johan",
                                     rule_system="t10", attributes=JOHAN_ATTRIBUTES,
                                     skills=JOHAN_SKILLS)
    encounter = Encounter.objects.create(campaign=campaign, name="Hamnen", system="t10")
    client = Client()
    client.force_login(gm)
    for data in ({"source": "character", "character": johan.pk, "side": "a",
                  "weapons": "pistol", "stance": "ready", "x": "0", "y": "0"},
                 {"source": "block", "name": "Soldat", "side": "b", "initiative": "-10",
                  "weapons": "pistol", "x": "10", "y": "0"}):
        added = post(client, encounter, data, "combat:add")
        assert added.status_code == 200, added.content.decode()[:500]
    assert post(client, encounter, {"type": "start"}).status_code == 200
    encounter.refresh_from_db()
    return encounter


def test_t10_on_the_map_move_for_ap_and_shoot_at_a_range(browser, site_server, t10_fight,
                                                         shot):
    path = f"/encounters/{t10_fight.pk}/"
    gm, gm_errors = open_page(browser, site_server, "t10ledaren", LAPTOP, path)
    phone, phone_errors = open_page(browser, site_server, "t10spelaren", PHONE, path)
    state = services.folded(t10_fight).state
    assert (state.active, state.get("c1").stance) == ("c1", "ready")
    # The GM drags the soldier from (10, 0) to (12, 0).
    gx, gy = screen_point(gm, 10, 0)
    tx, ty = screen_point(gm, 12, 0)
    gm.mouse.move(gx, gy)
    gm.mouse.down()
    gm.mouse.move(tx, ty, steps=6)
    gm.mouse.up()
    for page in (gm, phone):
        expect(page.get_by_test_id("map-svg")).to_have_attribute(
            "data-positions", re.compile(r"c2:12,0\b"), timeout=LIVE)
    # The player taps (3, 4): 5 m, 3 AP at 2 m per AP (the house rule), the engine's.
    phone.mouse.click(*screen_point(phone, 3, 4))
    move = phone.get_by_test_id("map-move")
    expect(move).to_have_text(re.compile(r"\(3 AP\)$"), timeout=LIVE)
    shot(phone, "01-t10-move-offered")
    move.click()
    for page in (gm, phone):
        expect(page.get_by_test_id("map-svg")).to_have_attribute(
            "data-positions", re.compile(r"c1:3,4\b"), timeout=LIVE)
    t10_fight.refresh_from_db()
    johan = services.folded(t10_fight).state.get("c1")
    assert (johan.x, johan.y, johan.ap) == (3.0, 4.0, 7)
    # The player taps the soldier: the distance typed for the attack, the weapon's three
    # ranges drawn, the form's preview copied, and the shot from the map.
    tap_token(phone, "c2", 12, 0)
    foe = phone.get_by_test_id("map-foe")
    expect(foe).to_contain_text("Soldat", timeout=LIVE)
    expect(foe).to_contain_text(re.compile("9,9 m · (normalt|normal)"))  # hypot(9, 4) = 9.85
    distance = phone.get_by_test_id("attack-distance-c1")
    expect(distance).to_have_value("9.85")
    for key in ("close", "normal", "maximum"):
        expect(phone.get_by_test_id(f"range-{key}")).to_have_count(1)
    expect(phone.get_by_test_id("preview-band-normal")).to_be_visible(timeout=LIVE)
    chance = phone.locator("#attack-preview-c1 [data-testid=preview-hit]")
    copied = phone.get_by_test_id("map-preview").locator("[data-testid=map-preview-hit]")
    expect(copied).to_have_text(chance.inner_text(), timeout=LIVE)
    shot(phone, "02-t10-attack-offered")
    phone.get_by_test_id("map-attack").click()
    for page in (gm, phone):
        expect(page.locator("#roll-log .combat-attackdeclared, #roll-log .combat-attackrolled")
               .filter(has_text="Soldat").first).to_be_visible(timeout=LIVE)
    shot(gm, "03-t10-gm-after-the-shot")
    assert gm_errors == []
    assert phone_errors == []


@pytest.fixture
def phobia_fight(django_user_model):
    """Jace (the player's) at (0, 0) against the guard at (10, 0), the round started:
    Jace's turn (TO 53 before the guard's 5)."""
    from django.test import Client

    from tests.combat.helpers import post
    from tests.combat.kinds import make

    gm = real_user(django_user_model, "phobialedaren")
    player = real_user(django_user_model, "phobiaspelaren")
    client = Client()
    made = make("phobia", client, gm, player)
    assert post(client, made.encounter, {"type": "start_round"}).status_code == 200
    made.encounter.refresh_from_db()
    return made.encounter


def test_phobia_on_the_map_a_move_by_its_kind_and_an_attack_from_the_rows(
    browser, site_server, phobia_fight, shot
):
    path = f"/encounters/{phobia_fight.pk}/"
    gm, gm_errors = open_page(browser, site_server, "phobialedaren", LAPTOP, path)
    phone, phone_errors = open_page(browser, site_server, "phobiaspelaren", PHONE, path)
    # Before the declaration only the free 2 m (lines 261-262): 1.5 m is free.
    tap(phone, 1.5, 0)
    expect(phone.get_by_test_id("map-move")).to_have_text(
        re.compile(r"\((Fri förflyttning|Free move)\)$"), timeout=LIVE)
    tap(phone, 5, 0)
    expect(phone.get_by_test_id("map-refused")).to_be_visible(timeout=LIVE)
    # Two actions declared: Förflytta sig first (lines 724-729), 4 m in all.
    phone.get_by_test_id("declare-actions").fill("2")
    phone.get_by_test_id("declare").click()
    expect(phone.get_by_test_id("attack-options")).to_be_visible(timeout=LIVE)
    tap(phone, 4, 0)
    move = phone.get_by_test_id("map-move")
    expect(move).to_have_text(re.compile(r"\((Förflytta sig|Move)\)$"), timeout=LIVE)
    shot(phone, "01-phobia-move-offered")
    move.click()
    for page in (gm, phone):
        expect(page.get_by_test_id("map-svg")).to_have_attribute(
            "data-positions", re.compile(r"c1:4,0\b"), timeout=LIVE)
    jace = services.folded(Encounter.objects.get(pk=phobia_fight.pk)).state.get("c1")
    assert (jace.x, jace.y, jace.move_mode) == (4.0, 0.0, "move")
    # The guard tapped: its rows, each weapon's chance, and the attack from the map.
    tap_token(phone, "c2", 10, 0)
    expect(phone.get_by_test_id("map-foe")).to_contain_text("Vakten", timeout=LIVE)
    row = phone.get_by_test_id("attack-options").locator("tr").nth(1)
    chance = row.locator("td").nth(2).inner_text().strip()
    expect(phone.get_by_test_id("map-preview").first).to_contain_text(chance)
    shot(phone, "02-phobia-attack-offered")
    phone.get_by_test_id("map-attack").click()
    for page in (gm, phone):
        expect(page.locator("#roll-log").get_by_text(
            re.compile("Jace.*Vakten")).first).to_be_visible(timeout=LIVE)
    shot(gm, "03-phobia-gm-after-the-attack")
    assert gm_errors == []
    assert phone_errors == []
