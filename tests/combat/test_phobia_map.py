"""A Phobia fight on the battle map through the app (issue 27): the map's tap asks the
move preview (the engine's own, phobia-utdrag.txt lines 261-271), the player's move form
moves to a point or by metres, the GM's forms place tokens, and the panel shows where
everyone stands."""

import pytest
from django.urls import reverse

from tests.combat.helpers import english, panel, post, state_of
from tests.combat.kinds import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def fight(client, gm, alice):
    """Jace (Alice's, side a, c1) acts before the guard (side b, TO 5, c2); started."""
    made = make("phobia", client, gm, alice)
    assert post(client, made.encounter, {"type": "start_round"}).status_code == 200
    assert state_of(made.encounter).active == "c1"
    return made


def preview(client, encounter, **query):
    return client.get(reverse("combat:move_preview", args=[encounter.pk]), query)


def test_the_map_previews_a_phobia_move_as_the_engine_would_make_it(client, alice, fight):
    """Added without a place, Jace stands at (0, 0) and the guard at (10, 0). 1.5 m is in
    the free 2 m (line 261); 6 m needs the action Förflytta sig declared first (lines
    724-729): the preview says so in the page's language."""
    encounter = fight.encounter
    state = state_of(encounter)
    assert [(c.x, c.y) for c in state.combatants] == [(0.0, 0.0), (10.0, 0.0)]
    english(client, alice)
    free = preview(client, encounter, id="c1", x="1.5", y="0")
    assert free.status_code == 200
    data = free.json()
    assert (data["metres"], data["mode"], data["refused"], data["cost"]) == (1.5, "", None, None)
    far = preview(client, encounter, id="c1", x="6", y="0").json()
    assert (far["metres"], far["mode"]) == (6.0, "")
    assert far["refused"] == "declare the turn's active actions first"
    assert post(client, encounter, {"type": "declare", "id": "c1", "actions": "1"}).status_code \
        == 200
    run = preview(client, encounter, id="c1", x="0", y="-12").json()
    assert (run["metres"], run["mode"], run["refused"]) == (12.0, "run", None)
    assert preview(client, encounter, id="c2", x="9", y="0").status_code == 403
    assert preview(client, encounter, id="c1", x="north", y="0").status_code == 400


def test_the_move_form_moves_to_a_point_and_empty_fields_are_not_given(client, alice, fight):
    """The keyboard's form sends its metres (2 by default) with the point: the point wins;
    with the metres emptied the point alone moves; with nothing, the form's refusal."""
    encounter = fight.encounter
    english(client, alice)
    page = panel(client, encounter)
    assert 'name="x" step="0.5" inputmode="decimal" placeholder="0.0"' in page
    assert "required" not in page[page.index('name="metres"'):page.index('data-testid="move"')]
    moved = post(client, encounter, {"type": "move", "id": "c1", "metres": "2", "x": "1",
                                     "y": "0.5"})
    assert moved.status_code == 200, moved.content.decode()[:300]
    jace = state_of(encounter).get("c1")
    assert (jace.x, jace.y, jace.moved, jace.path) == (1.0, 0.5, 1.12, ((0.0, 0.0), (1.0, 0.5)))
    assert 'data-testid="position-c1">(1.0; 0.5)' in moved.content.decode()
    again = post(client, encounter, {"type": "move", "id": "c1", "metres": "", "x": "1",
                                     "y": "1"})
    assert again.status_code == 200
    jace = state_of(encounter).get("c1")
    assert (jace.x, jace.y, jace.moved) == (1.0, 1.0, 1.62)
    assert jace.path == ((0.0, 0.0), (1.0, 0.5), (1.0, 1.0))
    nothing = post(client, encounter, {"type": "move", "id": "c1", "metres": "", "x": "",
                                       "y": ""})
    assert nothing.status_code == 400
    assert "Give the metres to move, or a point (x and y)" in nothing.content.decode()
    # Metres typed without a point: counted, the token stays (lines 263-270).
    assert post(client, encounter, {"type": "declare", "id": "c1", "actions": "1"}).status_code \
        == 200
    typed = post(client, encounter, {"type": "move", "id": "c1", "metres": "3", "x": "",
                                     "y": ""})
    assert typed.status_code == 200
    jace = state_of(encounter).get("c1")
    assert (jace.x, jace.y, jace.moved, len(jace.path)) == (1.0, 1.0, 4.62, 3)


def test_the_npc_forms_place_is_optional(client, gm, alice):
    """Empty, a new NPC stands beside its side's others (1.5 m apart); typed, where the GM
    says."""
    encounter = make("phobia", client, gm, alice).encounter
    page = panel(client, encounter)
    form = page[page.index('data-testid="npc-form"'):]
    assert 'name="x" step="0.5" inputmode="decimal" value=""' in form
    for name, x, y in (("Hund", "", ""), ("Katt", "-2", "4.5")):
        added = post(client, encounter, {"source": "block", "name": name, "side": "b",
                                         "turn_order": "3", "x": x, "y": y}, "combat:add")
        assert added.status_code == 200, added.content.decode()[:300]
    places = {c.name: (c.x, c.y) for c in state_of(encounter).combatants}
    assert places == {"Jace": (0.0, 0.0), "Vakten": (10.0, 0.0), "Hund": (10.0, 1.5),
                      "Katt": (-2.0, 4.5)}


def test_the_gm_places_tokens_from_the_change_form(client, gm, fight):
    """The change form's x and y, filled with where it stands, place it elsewhere; a place
    off the map is refused."""
    encounter = fight.encounter
    english(client, gm)
    page = panel(client, encounter)
    assert 'name="x" step="any" inputmode="decimal" value="10.0"' in page
    placed = post(client, encounter, {"type": "update_combatant", "id": "c2", "side": "b",
                                      "turn_order_modifier": "0", "modifier": "0",
                                      "x": "4.5", "y": "-3"})
    assert placed.status_code == 200
    guard = state_of(encounter).get("c2")
    assert (guard.x, guard.y) == (4.5, -3.0)
    bad = post(client, encounter, {"type": "update_combatant", "id": "c2", "x": "20000"})
    assert bad.status_code == 400
