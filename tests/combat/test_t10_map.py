"""A T10 fight on the battle map through the app (issue 27; rules/t10/combat/engine.py
"The map"): the map's tap asks the move preview (the engine's own reckoning of a Move to
a point), and the panel's move form moves to a point typed as x and y, or by metres as
before. `t10_fight` and `dice` are tests/combat/conftest.py's."""

import pytest
from django.urls import reverse

from tests.combat.helpers import english, panel, post, state_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def started(client, gm, t10_fight, dice):
    """Johan (c1, Alice's, at 0; 0) acts first; the soldier (c2) stands at 10; 0."""
    dice.queue += [8, 4]  # Initiativ: Johan 8 + 2, the soldier 4 + 0
    assert post(english(client, gm), t10_fight, {"type": "start"}).status_code == 200
    return t10_fight


def preview(client, encounter, **query):
    return client.get(reverse("combat:move_preview", args=[encounter.pk]), query)


def test_the_map_previews_a_t10_move_to_a_point(client, alice, bob, started):
    english(client, alice)
    answer = preview(client, started, id="c1", x="3", y="4")
    assert answer.status_code == 200
    data = answer.json()
    assert (data["metres"], data["cost"], data["unit"], data["cp"]) == (5.0, 3, "AP", 10)
    assert data["refused"] is None
    too_far = preview(client, started, id="c1", x="30", y="0").json()
    assert (too_far["metres"], too_far["cost"]) == (30.0, 15)
    assert too_far["refused"] == "Johan has 10 AP left; this costs 15"
    not_yet = preview(client, started, id="c2", x="9", y="0")
    assert not_yet.status_code == 403  # Alice does not command the soldier
    assert preview(english(client, bob), started, id="c1", x="1", y="0").status_code == 403


def test_the_move_form_moves_to_a_point_or_by_metres(client, gm, alice, started):
    english(client, alice)
    page = panel(client, started)
    assert 'data-testid="move-x-c1"' in page
    assert 'data-testid="place-c1">(0.0; 0.0)' in page
    # As the form posts it: the metres field as it came, the point typed.
    moved = post(client, started, {"type": "move", "id": "c1", "metres": "", "x": "3",
                                   "y": "4"})
    assert moved.status_code == 200, moved.content.decode()[:500]
    johan = state_of(started).get("c1")
    assert (johan.x, johan.y, johan.ap, johan.path) == (3.0, 4.0, 7, ((0.0, 0.0), (3.0, 4.0)))
    assert 'data-testid="place-c1">(3.0; 4.0)' in panel(client, started)
    # The point counts over the metres the field is filled with.
    post(client, started, {"type": "move", "id": "c1", "metres": "2", "x": "3", "y": "0"})
    assert (state_of(started).get("c1").y, state_of(started).get("c1").ap) == (0.0, 5)
    # Metres without a point: paid, and Johan stays where he is.
    post(client, started, {"type": "move", "id": "c1", "metres": "2", "x": "", "y": ""})
    johan = state_of(started).get("c1")
    assert (johan.x, johan.y, johan.ap) == (3.0, 0.0, 4)
    # Neither: the form's own refusal, not a crash.
    refused = post(client, started, {"type": "move", "id": "c1", "metres": "", "x": "",
                                     "y": ""})
    assert refused.status_code == 400
    assert "Say how many metres, or the point to move to (x and y)" in refused.content.decode()
    assert state_of(started).get("c1").ap == 4


def test_the_gm_places_combatants_by_the_forms(client, gm, started, dice):
    english(client, gm)
    dice.queue += [5, 3]  # each newcomer's Initiativ in the started fight
    page = panel(client, started)
    assert 'data-testid="npc-x"' in page
    added = post(client, started, {"source": "block", "name": "Vakt", "side": "b",
                                   "x": "", "y": ""}, "combat:add")
    assert added.status_code == 200, added.content.decode()[:500]
    added = post(client, started, {"source": "block", "name": "Hund", "side": "b",
                                   "x": "-4.5", "y": "2"}, "combat:add")
    assert added.status_code == 200, added.content.decode()[:500]
    places = {c.name: (c.x, c.y) for c in state_of(started).combatants}
    assert places == {"Johan": (0.0, 0.0), "Soldat": (10.0, 0.0), "Vakt": (10.0, 1.5),
                      "Hund": (-4.5, 2.0)}
    changed = post(client, started, {"type": "update_combatant", "id": "c2", "side": "b",
                                     "fatigue": "0", "damage": "0", "protection": "0",
                                     "modifier": "0", "in_cover": "false",
                                     "painkillers": "false", "x": "12.25", "y": "-1"})
    assert changed.status_code == 200, changed.content.decode()[:500]
    soldier = state_of(started).get("c2")
    assert (soldier.x, soldier.y) == (12.25, -1.0)
    assert 'name="x" step="any" value="12.25"' in panel(client, started)
