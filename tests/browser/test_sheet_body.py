"""The sheet shows the body (issue 9) in a real browser: the figure, the numbers and the
timeline of a character with wounds and a disorder, and the whole sheet still prints on
one A4 page (the timeline cut to its newest 8 entries on paper)."""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character, Item
from combat import services
from tests.browser.conftest import SCREENSHOTS
from tests.conftest import ALBERT_ATTRIBUTES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "hjortspår-i-frusen-mark"


class SteadyDice:
    def randint(self, a, b):
        return min(b, 5)


@pytest.fixture
def albert(django_user_model, monkeypatch):
    """Albert, wounded and shaken in his campaign's chronicle, with 20+ lines in it."""
    monkeypatch.setattr(services, "rng", SteadyDice())
    services.forget()
    gm = django_user_model.objects.create_user("spelledaren", password=PASSWORD)
    player = django_user_model.objects.create_user("spelaren", password=PASSWORD)
    campaign = campaign_create(gm=gm, name="Nattens kant")
    Membership.objects.create(campaign=campaign, user=player, seat=1)
    albert = Character.objects.create(
        owner=player,
        campaign=campaign,
        name="Albert",
        concept="Hårdkokt livvakt",
        attributes=ALBERT_ATTRIBUTES,
        skills={"firearms": 2, "brawling": 2, "evasion": 1, "first_aid": 1},
        dp_budget=40,
        notes="Skyddar Miriam till varje pris.",
    )
    for name, catalogue in (
        ("Ringbrynja", "armour:mail_shirt"),
        ("Hjälm", "armour:helmet"),
        ("Pistol", "weapon:pistol"),
        ("Kniv", "weapon:knife"),
        ("Ryggsäck", ""),
        ("Ficklampa", ""),
    ):
        Item.objects.create(character=albert, name=name, catalogue=catalogue)
    gm_membership = campaign.memberships.get(user=gm)
    chronicle = services.chronicle_sync(services.chronicle_for(campaign), gm_membership)
    me = f"ch{albert.pk}"

    def run(data):
        nonlocal chronicle
        chronicle, _record, _after = services.command_run(
            encounter=chronicle, membership=gm_membership, data=data, version=chronicle.version
        )

    run(
        {
            "type": "add_wound",
            "id": me,
            "area": "torso",
            "damage": 2,
            "bleed_rate": 2,
            "organ_trauma": 3,
            "source": "Bakgården",
        }
    )
    run({"type": "advance", "amount": 10, "unit": "minutes"})
    run({"type": "set_circumstances", "ids": [me], "activity": "active"})
    for _ in range(3):
        run({"type": "advance", "amount": 10, "unit": "minutes"})
    run({"type": "set_circumstances", "ids": [me], "activity": "rest"})
    run({"type": "advance", "amount": 9, "unit": "hours"})
    run({"type": "gain_psych_trauma", "id": me, "amount": 12, "reason": "Källaren"})
    run(
        {
            "type": "take_disorder",
            "id": me,
            "kind": "lasting",
            "description": "Rädd för mörker",
            "effects": "nervchock i mörker",
        }
    )
    run({"type": "gain_psych_trauma", "id": me, "amount": 2, "reason": "Skottlossningen"})
    run(
        {
            "type": "take_disorder",
            "id": me,
            "kind": "temporary",
            "description": "Skakig och tyst till morgonen",
        }
    )
    run(
        {
            "type": "gain_psych_trauma",
            "id": me,
            "amount": 3,
            "permanent": True,
            "reason": "Det han såg i källaren",
        }
    )
    for number in range(6):
        run(
            {
                "type": "set_circumstances",
                "ids": [me],
                "activity": "active" if number % 2 else "rest",
            }
        )
        run({"type": "advance", "amount": 2, "unit": "hours"})
    run({"type": "set_circumstances", "ids": [me], "activity": "active"})
    run(
        {
            "type": "add_wound",
            "id": me,
            "area": "left_arm",
            "damage": 4,
            "bleed_rate": 3,
            "source": "Vaktens kniv",
        }
    )
    run({"type": "gain_psych_trauma", "id": me, "amount": 2, "reason": "Vakten dog"})
    return albert


def test_the_sheet_shows_the_body_and_prints_on_one_page(page, live_server, albert, shot):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/accounts/login/?next=/characters/{albert.pk}/")
    page.fill("#id_username", "spelaren")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    expect(page.get_by_role("heading", name="Albert")).to_be_visible()

    body = page.get_by_test_id("body")
    expect(body.get_by_test_id("state-left_arm")).to_have_text("Bruten")
    expect(body.get_by_test_id("armour-torso")).to_have_text("6")
    expect(body.get_by_test_id("body-bleed")).to_have_text("3")
    expect(body.get_by_test_id("body-disorders")).to_contain_text("Rädd för mörker")
    entries = body.get_by_test_id("timeline-entry")
    expect(entries).to_have_count(20)
    body.scroll_into_view_if_needed()
    shot(page, "1-screen")
    body.screenshot(path=str(SCREENSHOTS / "test_sheet_body-2-body.png"))  # the section alone

    # The newest entry links to its record in the table's history.
    href = entries.first.get_by_role("link").get_attribute("href")
    assert re.search(r"/table/history/\?before=\d+#roll-\d+$", href)

    page.emulate_media(media="print")
    expect(page.locator("#roller")).to_be_hidden()
    expect(entries.nth(7)).to_be_visible()
    expect(entries.nth(8)).to_be_hidden()
    page.set_viewport_size({"width": 703, "height": 1032})  # A4 within its 12 mm margins
    # Each date sits beside its line with room to spare, or above it (issue 26.9: the
    # dates ran into the text on paper).
    overlaps = page.evaluate("""() => [...document.querySelectorAll(
        "[data-testid=timeline-entry]")].filter((li) => li.offsetParent).flatMap((li) => {
          const date = li.querySelector("time");
          if (!date) return [];
          const ink = (element) => {  // where the text is drawn, overflow included
            const range = document.createRange();
            range.selectNodeContents(element);
            return range.getBoundingClientRect();
          };
          const d = ink(date);
          const t = ink(li.querySelector(".timeline-what"));
          // 2 mm (7.5 px) of paper between them: a printer's font runs a little wider.
          const apart = d.right + 7.5 <= t.left || d.bottom <= t.top;
          return apart ? [] : [`${date.textContent}: ${d.right} > ${t.left}`];
        })""")
    assert overlaps == [], overlaps
    assert entries.nth(0).locator("time").count() == 1  # dated entries were measured
    shot(page, "3-print")
    pdf = page.pdf(format="A4", print_background=True)
    (SCREENSHOTS / "test_sheet_body-print.pdf").write_bytes(pdf)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages == 1, f"the character sheet printed on {pages} A4 pages"
