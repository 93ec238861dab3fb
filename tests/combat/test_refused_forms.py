"""A refused form in the fight panel keeps what the GM typed (issue 25, item 9): the 400
answer's panel shows the reason and the typed values in their fields, as htmx and without
JavaScript, and nothing is added or saved. And the T10 and Phobia previews say why an
attack cannot be previewed in the page's language."""

import re

import pytest
from django.urls import reverse

from combat import services
from combat.models import CombatRecord, NpcTemplate
from tests.combat.kinds import make

pytestmark = pytest.mark.django_db

# An NPC stat block with one bad value (and a negative stat), and what the panel must show
# of it again: each typed field's input, the chosen weapon, the ticked template box.
BLOCKS = {
    "aoristos": (
        {"name": "Hund", "side": "c", "x": "4", "y": "1.5", "physique": "-3",
         "agility": "snabb", "skill_brawling": "3", "weapons": ["knife"], "right": "knife"},
        "Agility must be a whole number",
        ['name="physique" min="0" max="30" value="-3"', 'name="agility" min="0" max="30" '
         'value="snabb"', 'name="skill_brawling" min="0" max="30" value="3"',
         'name="x" step="0.5" value="4"', 'name="y" step="0.5" value="1.5"',
         '<option value="knife" selected>'],
    ),
    "phobia": (
        {"name": "Hund", "side": "c", "strength": "-3", "endurance": "seg", "turn_order": "7",
         "weapons": ["kniv"], "weapon_type": "K", "cover_chest": "2"},
        "Endurance must be a whole number",
        ['name="strength" min="0" max="99" value="-3"', 'name="endurance" min="0" max="99" '
         'value="seg"', 'name="turn_order" min="-99" max="99" value="7"',
         '<option value="K" selected>K</option>', 'name="cover_chest" min="0" max="99" size="2" '
         'value="2"'],
    ),
    "t10": (
        {"name": "Hund", "side": "c", "initiative": "-3", "protection": "tjock",
         "stance": "aimed", "skill_smg": "2", "weapons": ["kpist"], "weapon_modes": "EA"},
        "Protection must be a whole number",
        ['name="initiative" min="-10" max="20" value="-3"', 'name="protection" min="0" '
         'max="10" value="tjock"', '<option value="aimed" selected>',
         'name="skill_smg" min="-10" max="3" size="2" value="2"',
         'name="weapon_modes" value="EA"', '<option value="kpist" selected>'],
    ),
}


def npc_form(page: str) -> str:
    """The NPC form of a panel, from its start to its end."""
    start = page.index('data-testid="npc-form"')
    return page[start:page.index("</form>", start)]


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "no-javascript"])
@pytest.mark.parametrize("kind", ["aoristos", "phobia", "t10"])
def test_a_refused_npc_keeps_what_the_gm_typed(client, gm, alice, kind, htmx):
    made = make(kind, client, gm, alice)
    encounter = made.encounter
    encounter.refresh_from_db()
    version = encounter.version
    typed, reason, shown = BLOCKS[kind]
    headers = {"HX-Request": "true"} if htmx else {}
    answer = client.post(reverse("combat:add", args=[encounter.pk]),
                         {"version": version, "source": "block", "save_template": "true",
                          **typed}, headers=headers)
    assert answer.status_code == 400
    page = answer.content.decode()
    assert re.search(rf'data-testid="combat-error">{reason}', page)
    form = npc_form(page)
    for field in ['name="name" maxlength="100" value="Hund"', 'name="side" value="c"',
                  'name="save_template" value="true" checked', *shown]:
        assert field in form, field
    # Nothing was added or saved.
    encounter.refresh_from_db()
    assert encounter.version == version
    assert len(services.folded(encounter).state.combatants) == 2
    assert not NpcTemplate.objects.exists()
    # The next panel (nothing refused) has the form's own defaults again.
    fresh = npc_form(client.get(reverse("combat:state", args=[encounter.pk])).content.decode())
    assert 'value="Hund"' not in fresh
    assert "checked" not in fresh


def test_a_refused_character_or_template_keeps_its_choices(client, gm, alice):
    made = make("t10", client, gm, alice)
    encounter = made.encounter
    encounter.refresh_from_db()
    refused = client.post(reverse("combat:add", args=[encounter.pk]),
                          {"version": encounter.version, "source": "character",
                           "character": made.character.pk, "side": "x" * 200,
                           "weapons": ["kpist"]}, headers={"HX-Request": "true"})
    assert refused.status_code == 400
    page = refused.content.decode()
    assert f'value="{"x" * 200}"' in page
    assert f'<option value="{made.character.pk}" selected>Johan</option>' in page


def test_a_refused_chronicle_advance_keeps_the_amount_and_unit(client, gm, alice):
    made = make("chronicle", client, gm, alice)
    chronicle = made.encounter
    for htmx in (True, False):
        answer = client.post(reverse("combat:command", args=[chronicle.pk]),
                             {"version": chronicle.version, "type": "advance",
                              "amount": "999999", "unit": "hours"},
                             headers={"HX-Request": "true"} if htmx else {})
        assert answer.status_code == 400
        page = answer.content.decode()
        assert 'data-testid="combat-error">Amount must be a whole number from 1 to 100000' in page
        assert 'name="amount" min="1" max="100000" value="999999"' in page
        assert '<option value="hours" selected>' in page
        assert '<option value="minutes" selected>' not in page
    assert CombatRecord.objects.filter(encounter=chronicle).count() == chronicle.version


def test_the_chronicle_takes_no_npcs_and_saves_no_templates(client, gm, alice):
    """Its bodies are the campaign's characters: a stat block, a template saved from it or
    a character added by hand is a clear 400 that changes nothing."""
    made = make("chronicle", client, gm, alice)
    chronicle = made.encounter
    url = reverse("combat:add", args=[chronicle.pk])
    for data in ({"source": "block", "save_template": "1", "name": "Hund"},
                 {"source": "block", "name": "Hund"},
                 {"source": "character", "character": made.character.pk}):
        answer = client.post(url, {"version": chronicle.version, **data},
                             headers={"HX-Request": "true"})
        assert answer.status_code == 400
        assert "The chronicle takes no combatants" in answer.content.decode()
    assert not NpcTemplate.objects.exists()
    assert CombatRecord.objects.filter(encounter=chronicle).count() == chronicle.version


def test_place_is_aoristos_own(client, gm, alice):
    """Only Aoristos places combatants on a map: the other systems and the chronicle have
    no such page (404), a player none at all (403)."""
    for kind, status in (("aoristos", 200), ("phobia", 404), ("t10", 404), ("chronicle", 404)):
        made = make(kind, client, gm, alice)
        url = reverse("combat:place", args=[made.encounter.pk])
        assert client.get(url).status_code == status, kind
        client.force_login(alice)
        assert client.get(url).status_code == 403
        client.force_login(gm)


# A preview the engine refuses, its reason in Swedish (the catalogue's own wording) and
# in English, as the API gives it.
REFUSALS = [
    ("t10", {"weapon": "sword", "distance": "10"}, "Johan har inget vapen &#x27;sword&#x27;",
     "Johan has no weapon 'sword'"),
    ("t10", {"weapon": "pistol", "mode": "A"}, "Pistol kan inte skjuta A",
     "Pistol does not fire A"),
    ("t10", {"weapon": "pistol", "distance": "51"},
     "Soldat är bortom maximalt avstånd för Pistol (50 m)",
     "Soldat is beyond Pistol's maximum range (50 m)"),
    ("t10", {"target": "c9", "weapon": "pistol"},
     "Ingen deltagare &#x27;c9&#x27; i den här striden", "no combatant 'c9' in this encounter"),
    ("phobia", {"weapon": "kniv", "aim": "1"}, "Bara ett avståndsvapen kan sikta",
     "only a ranged weapon aims"),
    ("phobia", {"weapon": "sword"}, "Jace har inget vapen &#x27;sword&#x27;",
     "Jace has no weapon 'sword'"),
]


@pytest.mark.parametrize(("kind", "query", "swedish", "english"), REFUSALS)
def test_a_refused_preview_is_said_in_swedish(client, gm, alice, kind, query, swedish, english):
    made = make(kind, client, gm, alice)
    client.force_login(alice)
    url = reverse("combat:preview", args=[made.encounter.pk])
    full = {"id": made.mine, "target": made.npc, **query}
    client.cookies["django_language"] = "sv"
    answer = client.get(url, full)
    assert answer.status_code == 200
    assert f'data-testid="preview-why">{swedish}<' in answer.content.decode()
    # By the browser's language as well, without the cookie.
    del client.cookies["django_language"]
    answer = client.get(url, full, headers={"Accept-Language": "sv"})
    assert f'data-testid="preview-why">{swedish}<' in answer.content.decode()
    # The API keeps the rules core's English.
    refused = client.get(reverse("combat:api_preview", args=[made.encounter.pk]), full)
    api = refused.json()
    assert (refused.status_code, api["ok"], api["why"], api["error"]) == (
        400, False, english, english)
