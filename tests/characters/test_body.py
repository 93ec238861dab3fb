"""The sheet shows the body (issue 9): the six areas with their state and armour, the
numbers of the character's body in the campaign's chronicle, and a timeline of what
happened to it, each entry linked to its record in the table's log."""

import re

import pytest
from django.urls import reverse

from characters.models import Character, Item
from combat import services
from combat.models import CombatRecord, Encounter
from tests.conftest import ALBERT_ATTRIBUTES

pytestmark = pytest.mark.django_db


class SteadyDice:
    """random.Random stand-in: every die shows 5 (survival rolls and tests pass)."""

    def randint(self, a, b):
        return min(b, 5)


@pytest.fixture(autouse=True)
def _steady(monkeypatch):
    services.forget()
    monkeypatch.setattr(services, "rng", SteadyDice())
    yield
    services.forget()


@pytest.fixture
def albert(alice, campaign):
    albert = Character.objects.create(
        owner=alice, campaign=campaign, name="Albert", attributes=ALBERT_ATTRIBUTES
    )
    # A mail shirt and a helmet from the catalogue; a rope from nowhere (no armour).
    Item.objects.create(character=albert, name="Ringbrynja", catalogue="armour:mail_shirt")
    Item.objects.create(character=albert, name="Hjälm", catalogue="armour:helmet")
    Item.objects.create(character=albert, name="Rep")
    return albert


@pytest.fixture
def berit(bob, campaign):
    return Character.objects.create(owner=bob, campaign=campaign, name="Berit")


@pytest.fixture
def command(gm, campaign, django_capture_on_commit_callbacks):
    """Run a chronicle command as the GM (the chronicle made and synced on first use)."""
    membership = campaign.memberships.get(user=gm)

    def run(data):
        chronicle = Encounter.objects.get(campaign=campaign, kind=Encounter.Kind.CHRONICLE)
        with django_capture_on_commit_callbacks(execute=True):
            services.command_run(
                encounter=chronicle, membership=membership, data=data, version=chronicle.version
            )

    with django_capture_on_commit_callbacks(execute=True):
        services.chronicle_sync(services.chronicle_for(campaign), membership)
    return run


@pytest.fixture
def hurt(albert, berit, command):
    """Albert: a torso wound turned into blood loss, a broken left arm still bleeding,
    psyktrauma with a permanent part and a lasting disorder, active; Berit wounded too."""
    me, her = f"ch{albert.pk}", f"ch{berit.pk}"
    command(
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
    command(
        {
            "type": "add_wound",
            "id": her,
            "area": "right_leg",
            "damage": 1,
            "bleed_rate": 1,
            "source": "Berits fall",
        }
    )
    command({"type": "advance", "amount": 10, "unit": "minutes"})
    command({"type": "add_wound", "id": me, "area": "left_arm", "damage": 4, "bleed_rate": 3})
    command({"type": "gain_psych_trauma", "id": me, "amount": 12, "reason": "Källaren"})
    command(
        {
            "type": "take_disorder",
            "id": me,
            "kind": "lasting",
            "description": "Rädd för mörker",
            "effects": "nervchock i mörker",
        }
    )
    command({"type": "gain_psych_trauma", "id": me, "amount": 3, "permanent": True})
    command({"type": "set_circumstances", "ids": [me], "activity": "active"})
    return albert


def page_of(client, user, character):
    client.force_login(user)
    response = client.get(reverse("characters:sheet", args=[character.pk]))
    assert response.status_code == 200
    return response.content.decode()


def text_of(page, testid):
    found = re.search(rf'data-testid="{testid}"[^>]*>(.*?)</(?:dd|strong|span|li)>', page, re.S)
    assert found, testid
    return re.sub(r"<[^>]+>", "", found.group(1))


def test_the_sheet_shows_the_body_figure_numbers_and_disorders(client, alice, hurt):
    body = services.folded(services.chronicle_of(hurt.campaign_id)).state.body(f"ch{hurt.pk}")
    page = page_of(client, alice, hurt)
    # The figure: the broken left arm, the other limbs OK; the armour on each area from
    # the mail shirt (torso 6, arms 4, legs 2) and the helmet (head 6).
    assert 'class="area area-left_arm state-broken"' in page
    assert text_of(page, "state-left_arm") == "Bruten"
    assert text_of(page, "state-right_arm") == "OK"
    armour = {
        area: text_of(page, f"armour-{area}")
        for area in ("head", "torso", "right_arm", "left_arm", "right_leg", "left_leg")
    }
    assert armour == {
        "head": "6",
        "torso": "6",
        "right_arm": "4",
        "left_arm": "4",
        "right_leg": "2",
        "left_leg": "2",
    }
    assert text_of(page, "armour-total") == "3"  # (6 + 3·6 + 4 + 4 + 2 + 2) // 10, p. 12
    # The numbers, as the chronicle has them.
    assert body.nerve_shock == 2
    assert body.lasting_nerve_shock == 2
    nerve = text_of(page, "body-nerve")
    assert nerve.startswith("2 ")
    assert "Vänster arm" in nerve
    assert "Organtrauma" in nerve
    assert text_of(page, "body-bleed") == str(body.bleed_rate) == "3"
    assert text_of(page, "body-blood-loss") == str(body.blood_loss)
    assert body.blood_loss > 0
    trauma = text_of(page, "body-trauma")
    assert trauma.startswith(str(body.organ_trauma))
    assert body.organ_trauma >= 3
    assert "3+" in trauma
    psych = text_of(page, "body-psych")
    assert psych.startswith("5")
    assert "(3 " in psych  # of which 3 permanent
    disorders = text_of(page, "body-disorders")
    assert "Rädd för mörker" in disorders
    assert "nervchock i mörker" in disorders
    assert "−10" in disorders


def test_the_timeline_is_this_characters_newest_first_and_links_to_the_records(client, bob, hurt):
    page = page_of(client, bob, hurt)  # another player of the campaign sees it too
    entries = re.findall(r'<li data-testid="timeline-entry">(.*?)</li>', page, re.S)
    assert entries
    # Berit's wound and fall are not Albert's; the clock's lines concern everybody.
    assert "Berits fall" not in page
    assert "Bakgården" in entries[-1]  # the oldest line: the torso wound
    assert "Rädd för mörker" in page
    assert "The clock stands at" not in page
    assert "Klockan" not in page
    # The newest first: the circumstances set last, then the permanent psyktrauma.
    chronicle = services.chronicle_of(hurt.campaign_id)
    last = CombatRecord.objects.get(encounter=chronicle, version=chronicle.version)
    history = reverse("table:history", args=[hurt.campaign_id])
    assert f'href="{history}?before={last.seq + 1}#roll-{last.seq}"' in entries[0]
    assert "chronicle-circumstancesset" in entries[0]
    assert "chronicle-psychtraumagained" in entries[1]
    assert reverse("combat:chronicle", args=[hurt.campaign_id]) in page
    # The link shows that record at the top of the table's history, under its anchor.
    client.force_login(bob)
    history_page = client.get(f"{history}?before={last.seq + 1}").content.decode()
    assert f'id="roll-{last.seq}"' in history_page


def test_the_database_picks_the_records_of_one_body(hurt, berit):
    chronicle = services.chronicle_of(hurt.campaign_id)
    commands = dict(
        CombatRecord.objects.filter(encounter=chronicle).values_list("version", "command")
    )
    hers = services.records_concerning(chronicle.pk, f"ch{berit.pk}", limit=40)
    # Her wound and the advance that ticked her bleeding, newest first; the clock's list
    # of bodies ("ids") and Albert's records are not hers. (SQLite's text match finds her
    # body's adding too, where its id is nested: it has no line.)
    found = [commands[version] for version, *_rest in hers]
    assert found in (["advance", "add_wound"], ["advance", "add_wound", "add_body"])
    assert services.records_concerning(chronicle.pk, "ch999999", limit=40) == []


def test_an_undone_record_leaves_the_timeline(client, gm, alice, hurt, command):
    chronicle = services.chronicle_of(hurt.campaign_id)
    command(
        {
            "type": "add_wound",
            "id": f"ch{hurt.pk}",
            "area": "head",
            "damage": 1,
            "bleed_rate": 0,
            "source": "Takbjälken",
        }
    )
    assert "Takbjälken" in page_of(client, alice, hurt)
    chronicle.refresh_from_db()
    command({"type": "undo", "to": chronicle.version - 1})
    assert "Takbjälken" not in page_of(client, alice, hurt)


def test_the_timeline_shows_the_newest_twenty(client, alice, hurt, command):
    for number in range(25):
        activity = "rest" if number % 2 else "active"
        command({"type": "set_circumstances", "ids": [f"ch{hurt.pk}"], "activity": activity})
    page = page_of(client, alice, hurt)
    assert page.count('data-testid="timeline-entry"') == 20
    assert "Bakgården" not in page  # too old for the sheet; the chronicle has it


def test_a_dead_character_is_shown_dead(client, alice, albert, command):
    command(
        {
            "type": "add_wound",
            "id": f"ch{albert.pk}",
            "area": "torso",
            "damage": 9,
            "bleed_rate": 0,
            "organ_trauma": 30,
            "source": "Granaten",
        }
    )
    page = page_of(client, alice, albert)
    assert text_of(page, "body-alert").strip().startswith(("död", "dead"))


def test_a_character_in_no_campaign_has_armour_and_a_word_on_the_body(client, alice, albert):
    albert.campaign = None
    albert.save()
    page = page_of(client, alice, albert)
    assert 'data-testid="body-none"' in page
    assert text_of(page, "armour-head") == "6"  # the starter catalogue's helmet
    assert 'data-testid="state-left_arm"' not in page
    assert not Encounter.objects.filter(kind=Encounter.Kind.CHRONICLE).exists()


def test_viewing_the_sheet_makes_no_chronicle(client, alice, bob, albert):
    for user in (alice, bob):
        page = page_of(client, user, albert)
        assert 'data-testid="body-none"' in page
    assert not Encounter.objects.filter(kind=Encounter.Kind.CHRONICLE).exists()


def test_a_character_without_a_body_yet_says_so(client, gm, alice, campaign, albert):
    services.chronicle_for(campaign)  # opened, but nobody added
    page = page_of(client, alice, albert)
    assert 'data-testid="body-none"' in page
    assert reverse("combat:chronicle", args=[campaign.pk]) in page
    assert services.chronicle_of(campaign.pk).version == 0


def test_an_outsider_sees_neither_sheet_nor_body(client, outsider, hurt):
    client.force_login(outsider)
    assert client.get(reverse("characters:sheet", args=[hurt.pk])).status_code == 404


def test_the_sheet_reads_the_body_in_a_flat_number_of_queries(
    client, alice, hurt, command, django_assert_max_num_queries
):
    client.force_login(alice)
    url = reverse("characters:sheet", args=[hurt.pk])
    client.get(url)
    for _ in range(15):  # a longer history costs no more queries
        command({"type": "gain_psych_trauma", "id": f"ch{hurt.pk}", "amount": 1})
    services.forget()  # and a cold cache: the chronicle's log read once
    with django_assert_max_num_queries(QUERIES) as counted:
        page = client.get(url).content.decode()
    assert page.count('data-testid="timeline-entry"') == 20
    records = [q["sql"] for q in counted.captured_queries if "combat_combatrecord" in q["sql"]]
    assert len(records) == 2, records  # the log to fold, and the timeline's records


# The sheet without the body reads 11 (the session, the user, the character, its raises,
# items twice, the catalogue, the ledger's sum, the favourites, the memberships, the
# owner); the body adds the chronicle's row, its log (a cold cache: else none) and the
# timeline's records, however long the history.
QUERIES = 14


def test_the_odds_helper_does_not_read_the_body(client, alice, hurt, django_assert_max_num_queries):
    client.force_login(alice)
    url = reverse("characters:sheet", args=[hurt.pk])
    with django_assert_max_num_queries(QUERIES - 3) as counted:
        client.get(url, {"properties": "alertness"}, HTTP_HX_REQUEST="true")
    read = [q["sql"] for q in counted.captured_queries]
    assert not [sql for sql in read if "combat_encounter" in sql or "combat_combatrecord" in sql]
