"""The table's own dice in a fight through the app (issue 48): with the campaign's dice
rolled by the players, a roll of Alice's Albert waits for her faces; her page shows the
keypad, the GM's page the wait and the server's button, the banner calls her; the faces she
posts resolve it as the same dice would from the server, and the log marks them as typed
in by her. Refusals keep the page and change nothing; undo takes it back exactly. The rules'
part is tests/rules/test_table_dice.py."""

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from combat import services
from rules.table_dice import DiceEntered
from tests.combat.helpers import english, panel, post, state_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def players_roll(fight):
    Campaign.objects.filter(pk=fight.campaign_id).update(
        dice_source=Campaign.DiceSource.PLAYERS)
    fight.campaign.refresh_from_db()
    return fight


def test_the_start_waits_for_alices_stress_dice_and_her_faces_resolve_it(
        client, gm, alice, players_roll, run, dice):
    fight = players_roll
    dice.queue[:] = [1, 1]  # nobody else rolls at the start but the server's tie-breaks
    english(client, gm)
    assert post(client, fight, {"type": "start"}).status_code == 200
    state = state_of(fight)
    albert = next(c for c in state.combatants if c.name == "Albert")
    assert state.asked.who == albert.id
    assert state.asked.what == "stress"
    gm_page = panel(client, fight)
    assert 'data-testid="fight-dice-server"' in gm_page
    english(client, alice)
    page = panel(client, fight)
    assert 'data-testid="fight-keypad"' in page
    assert "Albert's dice: stress roll" in page
    assert "prompt-banner-dice" in client.get(
        reverse("combat:prompts", args=[fight.campaign_id])).content.decode()
    # A face the die does not have: refused, the typed faces kept, nothing changed.
    version = fight.version
    fight.refresh_from_db()
    answer = post(client, fight, {"type": "enter_dice", "id": albert.id, "faces": "7 2"})
    assert answer.status_code == 400
    assert "Die 1 shows 7: these dice show 1 to 6" in answer.content.decode()
    assert 'value="7 2"' in answer.content.decode()
    fight.refresh_from_db()
    assert fight.version >= version
    assert state_of(fight).asked is not None
    # Another player's command waits too: the fight waits for the dice first.
    english(client, gm)
    refused = post(client, fight, {"type": "end"})
    assert refused.status_code == 400
    assert "waits for Albert" in refused.content.decode()
    english(client, alice)
    assert post(client, fight, {"type": "enter_dice", "id": albert.id,
                                "faces": "5 2"}).status_code == 200
    after = state_of(fight)
    assert after.asked is None
    started = [r for r in fight.records.order_by("version")][-1]
    assert started.command == "enter_dice"
    assert started.actor == alice
    assert started.events[0]["_"] == DiceEntered.__name__
    assert started.events[0]["faces"] == [5, 2]
    history = client.get(reverse("table:history", args=[fight.campaign_id])).content.decode()
    assert "own dice 5 2, typed in" in history
    # Undone by the GM, the fight waits for the dice again: the log keeps them exactly.
    english(client, gm)
    fight.refresh_from_db()
    assert post(client, fight, {"type": "undo", "to": fight.version - 1}).status_code == 200
    assert state_of(fight).asked is not None
    fight.refresh_from_db()
    assert post(client, fight, {"type": "redo"}).status_code == 200
    assert state_of(fight).asked is None
    assert state_of(fight) == after


def test_the_gm_rolls_a_waiting_roll_on_the_server_and_a_player_may_not(
        client, gm, alice, players_roll, dice):
    fight = players_roll
    dice.queue[:] = [1, 1]
    english(client, gm)
    post(client, fight, {"type": "start"})
    assert state_of(fight).asked is not None  # Albert (SIN 3) acts first: his stress
    english(client, alice)
    assert post(client, fight, {"type": "server_dice"}).status_code == 403
    english(client, gm)
    dice.queue[:] = [4, 3]
    assert post(client, fight, {"type": "server_dice"}).status_code == 200
    assert state_of(fight).asked is None
    last = fight.records.order_by("-version").first()
    assert last.events[0]["_"] == "DiceServed"


def test_a_server_campaign_never_waits(client, gm, fight, dice):
    dice.queue[:] = [1, 1, 3, 4, 3, 4]
    english(client, gm)
    assert post(client, fight, {"type": "start"}).status_code == 200
    assert state_of(fight).asked is None
    assert services.dice_for(fight, fight.campaign, state_of(fight)) is services.rng


def test_the_gms_own_dice_for_an_npc_keep_its_numbers_from_the_players(
        client, gm, alice, fight, run, dice):
    """With the GM's dice at the table, the guard's attack waits for the GM's faces: the
    GM's prompt gives its exact chance, a player's only whose dice it waits for, and the
    players' log line says the GM typed them, not which (an NPC's numbers are the GM's)."""
    dice.queue[:] = [1, 1, 3, 4]  # the start (Albert's stress), then the guard's
    run(fight, gm, {"type": "update_combatant", "id": "c2", "x": 1.0, "y": 0.0})
    run(fight, gm, {"type": "start"})
    state = state_of(fight)
    albert = next(c for c in state.combatants if c.name == "Albert")
    guard = next(c for c in state.combatants if c.name == "Vakten")
    run(fight, gm, {"type": "end_activation", "id": albert.id})
    Campaign.objects.filter(pk=fight.campaign_id).update(dice_source=Campaign.DiceSource.GM)
    fight.campaign.refresh_from_db()
    run(fight, gm, {"type": "attack", "id": guard.id, "target": albert.id, "weapon": "knife"})
    run(fight, alice, {"type": "vigilance", "id": albert.id, "properties": []})
    waiting = state_of(fight).asked
    assert (waiting.who, waiting.what) == (guard.id, "attack")
    assert waiting.chance is not None
    english(client, gm)
    assert 'data-testid="fight-dice-chance"' in panel(client, fight)
    assert 'data-testid="fight-keypad"' in panel(client, fight)
    english(client, alice)
    page = panel(client, fight)
    assert 'data-testid="fight-dice-waiting"' in page
    assert 'data-testid="fight-dice-chance"' not in page
    assert 'data-testid="fight-keypad"' not in page
    english(client, gm)
    while (asked := state_of(fight).asked) is not None:  # the attack, then its hit area
        assert post(client, fight, {"type": "enter_dice", "id": asked.who,
                                    "faces": " ".join(["4"] * asked.needed)}).status_code == 200
    record = fight.records.order_by("-version").first()
    entered = next(line for line in record.public_lines if line["kind"] == "DiceEntered")
    assert entered["typed_hidden"] is True
    assert entered["typed"] == []
    mine = next(line for line in record.lines if line["kind"] == "DiceEntered")
    assert mine["typed"][0]["faces"] == [4] * waiting.needed
