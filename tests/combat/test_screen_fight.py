"""The fight on the table screen (issue 47; combat/screen.py): who acts now and who is next,
as a player sees the fight, by the screen's token with no account."""

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Membership, TableScreen
from combat import services
from combat.models import Encounter
from rules.engine import Viewer
from tests.core.test_two_processes import GUARDS  # two NPCs, Vakten and Tjuven

pytestmark = pytest.mark.django_db


def fight_page(screen) -> str:
    answer = Client().get(reverse("combat:screen_fight", args=[screen.token]))
    assert answer.status_code == 200
    assert answer["Cache-Control"] == "no-store"
    return answer.content.decode()


def test_the_screen_shows_who_acts_and_who_is_next_in_the_running_fight(campaign, gm):
    screen = TableScreen.objects.create(campaign=campaign, name="TV", mode="fight")
    assert 'data-testid="screen-no-fight"' in fight_page(screen)
    encounter = Encounter.objects.create(campaign=campaign, name="Bakgården", system="aoristos")
    membership = Membership.objects.select_related("campaign", "user").get(
        campaign=campaign, user=gm)
    for command in GUARDS:
        encounter, _record, _after = services.command_run(
            encounter=encounter, membership=membership, data=command, version=encounter.version)
    assert 'data-testid="screen-no-fight"' in fight_page(screen)  # set up, not started
    encounter, _record, _after = services.command_run(
        encounter=encounter, membership=membership, data={"type": "start"},
        version=encounter.version)
    page = fight_page(screen)
    assert "Bakgården" in page
    engine = services.engine_of(encounter)
    state = services.folded(encounter, engine).state
    players = engine.view(state, Viewer(is_gm=False))
    names = {entry["id"]: entry["name"] for entry in players["order"]}
    active = names[players["active"]]
    assert active in {"Vakten", "Tjuven"}
    other = ({"Vakten", "Tjuven"} - {active}).pop()
    assert f'data-testid="screen-active">{active}<' in page
    assert f'data-testid="screen-next">{other}<' in page
    # The GM's numbers are not on it: the NPCs' initiatives are shown to nobody but the GM.
    for combatant in state.combatants:
        assert f">{combatant.initiative}<" not in page
    assert Client().get(reverse("combat:screen_fight", args=["x" * 32])).status_code == 404


def test_the_screens_map_shows_what_the_players_see_and_nothing_under_the_fog(campaign, gm):
    """Issue 47: the map mode draws the players' map on the server. Under fog, a guard in
    a hidden area is not in it (no token, no name), nor a wall there; the fog is drawn,
    and the picture is the players' painted copy."""
    screen = TableScreen.objects.create(campaign=campaign, name="TV", mode="map")
    answer = Client().get(reverse("combat:screen_map", args=[screen.token]))
    assert 'data-testid="screen-no-map"' in answer.content.decode()
    encounter = Encounter.objects.create(campaign=campaign, name="Bakgården", system="aoristos")
    membership = Membership.objects.select_related("campaign", "user").get(
        campaign=campaign, user=gm)
    commands = [
        {"type": "set_fog", "on": True},
        {"type": "mark_fog", "points": "-3,-3 3,3"},
        {"type": "add_combatant", "name": "Vakten", "x": 1.5, "y": 0.5},
        {"type": "add_combatant", "name": "Tjuven", "side": "b", "x": 8.0, "y": 1.0},
        {"type": "add_shape", "kind": "wall", "points": "-1,-1 2,-1"},
        {"type": "add_shape", "kind": "wall", "points": "7,-1 9,-1"},
    ]
    for command in commands:
        encounter, _record, _after = services.command_run(
            encounter=encounter, membership=membership, data=command, version=encounter.version)
    page = Client().get(reverse("combat:screen_map", args=[screen.token])).content.decode()
    assert "Vakten" in page
    assert 'data-testid="screen-token-c1"' in page
    assert "Tjuven" not in page
    assert "c2" not in page
    assert page.count('class="map-wall"') == 1  # the wall in the fog is not drawn
    assert 'data-testid="screen-map-fog"' in page
    assert 'data-fog="1"' in page
    # Revealed, the thief is on it.
    encounter, _record, _after = services.command_run(
        encounter=encounter, membership=membership,
        data={"type": "mark_fog", "points": "6,-2 10,3"}, version=encounter.version)
    page = Client().get(reverse("combat:screen_map", args=[screen.token])).content.decode()
    assert "Tjuven" in page
    assert page.count('class="map-wall"') == 2
    # In Swedish too the numbers are SVG's (a decimal comma would break the drawing).
    swedish = Client()
    swedish.cookies["django_language"] = "sv"
    page = swedish.get(reverse("combat:screen_map", args=[screen.token])).content.decode()
    assert 'translate(1.5 0.5)' in page


def test_the_turn_strip_names_whom_a_prompt_waits_for():
    from combat.screen import turns

    state = {"round": 1, "active": "c2",
             "order": [{"id": "c1", "name": "Albert"}, {"id": "c2", "name": "Torped"}],
             "combatants": [{"id": "c1", "name": "Albert"}, {"id": "c2", "name": "Torped"}],
             "prompts": [{"for": "c1", "kind": "vigilance"}, {"kind": "confirm_move"}]}
    strip = turns(state)
    assert strip["active"] == "Torped"
    assert strip["next"] == ["Albert"]
    assert strip["waiting"] == [{"gm": False, "who": "Albert"}, {"gm": True, "who": ""}]
