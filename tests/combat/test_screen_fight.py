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
