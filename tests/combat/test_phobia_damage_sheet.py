"""A Phobia character's sheet shows its damage rows as the paper form has them
(phobia-utdrag.txt lines 164-172, 1017-1122): Trauma, Smärta and Blodförlust in ten rows
of the campaign's damage columns, the Ob dice each full row adds, and the wounds of the
latest fight of its campaign that has the character (characters/damage.py). The scripted
dice and `run` are tests/combat/conftest.py's."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters import views
from characters.damage import damage_context
from characters.models import Character
from combat import services
from combat.models import Encounter
from rules.engine import engine_for

pytestmark = pytest.mark.django_db

# Chockvärde (12+10+14)/3 = 12 and TÅL 10, as the guard of tests/combat/
# test_phobia_encounters.py whose dice give 8 Trauma, 9 Smärta and Artärblödning.
ATTRIBUTES = {
    "strength": 12, "endurance": 10, "agility": 14, "personality": 9, "psyche": 13,
    "will": 14, "education": 8, "sight": 15, "hearing": 7, "luck": 10,
}
KNIFE_HIT = [2, 3, 4,  # the attack: 9 against Stridsvana 13, a hit
             5, 5, 4, 3,  # Kniv Ob4T6: 17
             3,  # 1T10 on the arm, H: Artärblödning (line 971)
             1, 2, 1, 1,  # death roll Ob4T6 against TÅL 10: 5
             2, 2, 2, 2, 2]  # shock roll Ob5T6 against Chockvärde 12: 10


@pytest.fixture
def phobia(gm, alice):
    campaign = campaign_create(gm=gm, name="Skuggorna", rule_system="phobia")
    Membership.objects.create(campaign=campaign, user=alice, seat=1)
    return campaign


@pytest.fixture
def jace(alice, phobia):
    return Character.objects.create(
        owner=alice, campaign=phobia, name="Jace", rule_system="phobia", attributes=ATTRIBUTES,
        skills={"combat_experience": 13}, rolled={"calm": [3, 5]},
    )


@pytest.fixture
def fight(phobia, jace, gm, alice, run):
    """A fight that has Jace, who acts after the guard (TO 99)."""

    def make(name="Gränden"):
        encounter = Encounter.objects.create(campaign=phobia, name=name, system="phobia")
        engine = services.engine_of(encounter)
        levels, derived = jace.combat_stats(phobia.house_rules)
        block = engine.character_block(name=jace.name, levels=levels, derived=derived)
        run(encounter, gm, {**block, "character_id": jace.pk}, controller=alice.pk)
        run(encounter, gm, {"type": "add_combatant", "name": "Vakten", "side": "b",
                            "turn_order": 99, "weapon_name": "Kniv", "weapon_damage": 4,
                            "weapon_type": "H", "weapon_skill": "combat_experience",
                            "weapon_chance": 13})
        return encounter

    return make


@pytest.fixture
def cut(run, gm, dice):
    """The guard cuts Jace's arm: 8 Trauma, 9 Smärta, a bleed of 1 and Artärblödning's 8."""

    def attack(encounter):
        run(encounter, gm, {"type": "start_round"})
        run(encounter, gm, {"type": "declare", "id": "c2", "actions": 1})
        run(encounter, gm, {"type": "attack", "id": "c2", "target": "c1", "weapon": "Kniv",
                            "area": "arm"})
        dice.queue += KNIFE_HIT
        run(encounter, gm, {"type": "pass", "id": "c1"})
        assert dice.queue == []
        encounter.refresh_from_db()
        return encounter

    return attack


def sheet(client, user, character) -> str:
    client.force_login(user)
    client.cookies["django_language"] = "en"
    response = client.get(character.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def section(page: str, key: str) -> str:
    start = page.index(f'data-testid="damage-{key}"')
    return page[start:page.index("</div>", start)]


def rows(page: str, key: str) -> list[int]:
    """The boxes filled in each of a section's rows."""
    return [int(n) for n in re.findall(r'data-filled="(\d+)"', section(page, key))]


def boxes_per_row(page: str, key: str) -> set[int]:
    found = re.findall(r'<span class="boxes" aria-hidden="true">(.*?)</span><span class="vis',
                       section(page, key))
    return {row.count('<span class="box') for row in found}


def test_the_sheet_shows_the_latest_fights_rows_injury_and_bleeding(
    client, gm, alice, jace, fight, cut
):
    """Smärta 9 in 5 columns: the first row full with its +Ob1T6, the second 4 boxes;
    Trauma 8: 5 and 3; the arm's Artärblödning and its bleed (1 + 8, line 971)."""
    encounter = cut(fight())
    hurt = services.folded(encounter).state.combatants[0]
    assert (hurt.character_id, hurt.trauma, hurt.pain) == (jace.pk, 8, 9)

    page = sheet(client, alice, jace)
    assert 'data-testid="damage-sheet"' in page
    assert "<h2 id=\"damage-heading\">Skador</h2>" in page
    assert f'<a href="{encounter.get_absolute_url()}">Gränden</a>' in page
    assert "(in progress)" in page
    assert rows(page, "pain") == [5, 4] + [0] * 8
    assert rows(page, "trauma") == [5, 3] + [0] * 8
    assert rows(page, "blood_loss") == [0] * 10
    assert boxes_per_row(page, "pain") == {5}
    pain = section(page, "pain")
    assert "Smärta <span class=\"meta\">9</span>" in pain
    assert "<strong>+Ob1T6</strong> → Chockslag · Skills and attributes" in pain
    first = pain[pain.index("<li"):pain.index("</li>")]
    assert 'class="full"' in first
    assert "+Ob1T6" in first
    assert first.count('class="box x"') == 5
    assert "+Ob10T6" in pain  # the tenth row's
    assert "Arm: Artärblödning" in page
    assert 'data-testid="damage-bleed-rate">9<' in page
    assert 'data-testid="damage-blood-loss">0<' in page
    assert 'data-testid="damage-skill-adds">+Ob1T6<' in page
    assert 'data-testid="damage-none"' not in page
    assert 'data-testid="damage-alert"' not in page
    assert "carries these wounds into it" in page

    # The fight ends and the sheet says so; the GM sees the same rows.
    services.forget()
    encounter.refresh_from_db()
    encounter.ended = True
    encounter.save(update_fields=["ended"])
    page = sheet(client, gm, jace)
    assert "(ended)" in page
    assert rows(page, "pain") == [5, 4] + [0] * 8


def test_a_character_never_in_a_fight_has_empty_boxes(client, alice, jace, phobia, fight):
    """No fight has Jace (one has others only): ten empty rows per section, and a line
    saying nothing is recorded; a Phobia character in no campaign has the defaults'."""
    other = Encounter.objects.create(campaign=phobia, name="Utan Jace", system="phobia")
    page = sheet(client, alice, jace)
    assert 'data-testid="damage-none"' in page
    assert "No damage is recorded yet" in page
    assert "Utan Jace" not in page
    for key in ("trauma", "pain", "blood_loss"):
        assert rows(page, key) == [0] * 10
        assert boxes_per_row(page, key) == {5}
    assert 'class="box x"' not in page
    assert 'data-testid="damage-bleed-rate">0<' in page
    assert "Arm:" not in page
    assert other.pk

    free = Character.objects.create(owner=alice, name="Fri", rule_system="phobia",
                                    attributes=ATTRIBUTES, rolled={"calm": [3, 5]})
    page = sheet(client, alice, free)
    assert rows(page, "trauma") == [0] * 10
    assert boxes_per_row(page, "trauma") == {5}
    assert 'data-testid="damage-none"' in page


def test_the_campaigns_damage_columns_and_row_difficulty_draw_the_rows(
    client, alice, jace, phobia, fight, cut
):
    """4 columns and +Ob2T6 a row: Smärta 9 fills two rows and one box, and adds +Ob4T6."""
    cut(fight())
    phobia.house_rules = {"damage_columns": 4, "row_difficulty": 2}
    phobia.save()
    page = sheet(client, alice, jace)
    assert rows(page, "pain") == [4, 4, 1] + [0] * 7
    assert rows(page, "trauma") == [4, 4] + [0] * 8
    assert boxes_per_row(page, "pain") == {4}
    pain = section(page, "pain")
    assert "<strong>+Ob4T6</strong> → Chockslag" in pain
    assert "+Ob2T6" in pain
    assert "+Ob20T6" in pain


def test_the_newest_fight_with_the_character_is_read(client, gm, alice, jace, phobia,
                                                     fight, cut, run):
    """A newer fight without Jace is passed over; a newer one with Jace (unhurt) is read,
    and one it was taken out of again is passed over."""
    cut(fight("Gränden"))
    Encounter.objects.create(campaign=phobia, name="Utan Jace", system="phobia")
    page = sheet(client, alice, jace)
    assert ">Gränden</a>" in page
    assert rows(page, "pain") == [5, 4] + [0] * 8

    removed = fight("Borttagen")
    run(removed, gm, {"type": "remove_combatant", "id": "c1"})
    page = sheet(client, alice, jace)
    assert ">Gränden</a>" in page

    fight("Källaren")
    page = sheet(client, alice, jace)
    assert ">Källaren</a>" in page
    assert rows(page, "pain") == [0] * 10
    assert 'data-testid="damage-none"' not in page


def test_a_dead_or_unconscious_character_is_marked(client, gm, alice, jace, fight, run, dice):
    """The GM's damage: a failed shock roll leaves Jace unconscious, a failed death roll
    dead (lines 837-839)."""
    encounter = fight()
    dice.queue += [3,  # 1T10 on the arm, H: Artärblödning
                   1, 2, 1, 1,  # death roll: 5 against TÅL 10
                   5, 5, 5, 5, 5]  # shock roll: 25 against 12, failed
    run(encounter, gm, {"type": "damage", "id": "c1", "damage": 17, "damage_type": "H",
                        "area": "arm", "protected": False})
    page = sheet(client, alice, jace)
    assert 'data-testid="damage-alert"><strong>unconscious<' in page
    dice.queue += [5, 5, 5, 5, 5]  # death roll Ob5T6 (a second full Trauma row): 25
    run(encounter, gm, {"type": "damage", "id": "c1", "damage": 5, "damage_type": "K",
                        "area": "chest", "protected": False})
    assert dice.queue == []
    page = sheet(client, alice, jace)
    assert 'data-testid="damage-alert"><strong>dead<' in page


def sheet_queries(client, character) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(character.get_absolute_url()).status_code == 200
    return len(queries)


def test_the_sheets_queries_stay_flat_whatever_the_number_of_fights(
    client, gm, alice, jace, phobia, fight, cut, run, monkeypatch
):
    """One query for the newest fights with the character, and its log once per process:
    at most 2 more than the sheet without the card, with 1 fight as with 6 (the
    character's the oldest, the newer ones with a combatant each), cached or not."""
    client.force_login(alice)
    client.cookies["django_language"] = "en"
    sheet_queries(client, jace)  # the session's first reads
    with monkeypatch.context() as patched:
        patched.setattr(views, "damage_context", lambda character, house: None)
        without_card = sheet_queries(client, jace)
    none = sheet_queries(client, jace)

    cut(fight())
    services.forget()
    one_cold = sheet_queries(client, jace)
    one_warm = sheet_queries(client, jace)

    for n in range(5):
        later = Encounter.objects.create(campaign=phobia, name=f"Senare {n}", system="phobia")
        run(later, gm, {"type": "add_combatant", "name": "Vakten", "side": "b", "turn_order": 5})
    services.forget()
    six_cold = sheet_queries(client, jace)
    six_warm = sheet_queries(client, jace)
    assert (one_cold, one_warm) == (six_cold, six_warm)
    assert none == one_warm == without_card + 1
    assert one_cold == without_card + 2
    assert rows(sheet(client, alice, jace), "pain") == [5, 4] + [0] * 8


def test_a_fight_of_another_character_whose_id_starts_alike_is_not_the_characters(
    alice, gm, jace, phobia, run
):
    """The filter in the database matches the whole id (SQLite reads the JSON text)."""
    other = Character.objects.create(pk=int(f"{jace.pk}1"), owner=alice, campaign=phobia,
                                     name="Bo", rule_system="phobia", attributes=ATTRIBUTES,
                                     rolled={"calm": [3, 5]})
    encounter = Encounter.objects.create(campaign=phobia, name="Bos strid", system="phobia")
    run(encounter, gm, {"type": "add_combatant", "name": "Bo", "npc": False,
                        "character_id": other.pk, "turn_order": 5})
    assert services.fights_of(phobia.pk, jace.pk, system="phobia", limit=3) == []
    assert services.fights_of(phobia.pk, other.pk, system="phobia", limit=3) == [encounter]


def test_only_an_engine_that_draws_damage_rows_gives_the_card(albert):
    """Aoristos's engine has no damage_sheet: no card (its sheet has the body instead);
    Phobia's draws the house rules' columns, with what lies beyond the ten rows."""
    assert damage_context(albert, {}) is None
    drawn = engine_for("phobia").damage_sheet(None, 1, {"damage_columns": 3,
                                                        "row_difficulty": 2})
    assert not drawn["recorded"]
    assert [len(row["boxes"]) for row in drawn["sections"][0]["rows"]] == [3] * 10
    assert drawn["sections"][0]["rows"][9]["adds"] == 20
    assert (drawn["bleed_rate"], drawn["injuries"], drawn["alive"]) == (0, [], True)
