"""The vigilance move by RÖR (p. 9) and the GM's situational modifier through the JSON API
and the map's preview (issue 45): the target's side chooses the point, the engine checks
it as it resolves it, the preview's chances are the engine's."""

import pytest
from django.urls import reverse

from combat import services
from tests.combat.test_encounters import api_post

pytestmark = pytest.mark.django_db

MISS = [1, 1, 1, 1, 1]  # the pistol's attack test (2B2T) and the area die


def attacked(client, fight, gm, alice, run, dice):
    """Albert (c1, Alice's) shoots at the guard (c2, the GM's NPC, 5 m away, RÖR 2) with
    cover the GM keeps to itself 2 m beside it; the attack waits for the guard's
    vigilance."""
    run(fight, gm, {"type": "add_shape", "kind": "cover", "points": "4,2 7,2 7,4 4,4",
                    "shown": False})
    dice.queue += [1, 3]
    run(fight, gm, {"type": "start"})
    run(fight, alice, {"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol"})
    fight.refresh_from_db()
    return fight


def test_the_gm_moves_the_npc_toward_its_cover_through_the_api_p9(
    client, fight, gm, alice, run, dice
):
    """p. 9: "rörelsen minst 1 meter och upp till målets Rörlighet i meter mot valfritt
    känt skydd inom 10 meter": the guard (RÖR 2) goes 1.8 m to the cover the GM drew; the
    line says where, and that it ends in cover (3 areas, the house rule's default)."""
    attacked(client, fight, gm, alice, run, dice)
    client.force_login(gm)
    too_far = {"type": "vigilance", "id": "c2", "properties": ["agility"], "x": 5.0, "y": 3.5}
    refused = api_post(client, fight, too_far)
    assert refused.status_code == 400, refused.content
    dice.queue += MISS
    move = {"type": "vigilance", "id": "c2", "properties": ["agility"], "x": 5.0, "y": 1.8}
    response = api_post(client, fight, move)
    assert response.status_code == 200, response.content
    line = response.json()["lines"][0]
    assert line["kind"] == "VigilanceChosen"
    assert (line["move_to"], line["moved"], line["cover_after"]) == ([5.0, 1.8], 1.8, 3)
    fight.refresh_from_db()
    guard = services.folded(fight).state.get("c2")
    assert (guard.x, guard.y) == (5.0, 1.8)


def test_a_player_cannot_choose_the_npcs_move_p9(client, fight, gm, alice, run, dice):
    """The target's side chooses: Alice may neither move the GM's guard nor ask where it
    could go."""
    attacked(client, fight, gm, alice, run, dice)
    client.force_login(alice)
    move = {"type": "vigilance", "id": "c2", "properties": ["agility"], "x": 5.0, "y": 1.8}
    assert api_post(client, fight, move).status_code == 403
    url = reverse("combat:move_preview", args=[fight.pk])
    assert client.get(url, {"id": "c2", "x": 5.0, "y": 1.8}).status_code == 403


def test_the_maps_vigilance_preview_is_the_engines_p9(client, fight, gm, alice, run, dice):
    """The map's tap during the prompt: the engine's check (a dive and 1.8 m is more than
    RÖR 2) and the attacker's chance, which the engine's ST then gives."""
    attacked(client, fight, gm, alice, run, dice)
    client.force_login(gm)
    url = reverse("combat:move_preview", args=[fight.pk])
    preview = client.get(url, {"id": "c2", "x": 5.0, "y": 1.8}).json()
    assert preview["refused"] is None
    assert preview["vigilance"] is True
    assert preview["cover_after"] == 3
    assert set(preview["chances"]) >= {"agility", "agility+evasion"}
    refused = client.get(url, {"id": "c2", "x": 5.0, "y": 1.8, "prone": "1"}).json()
    assert refused["refused"]
    dice.queue += MISS
    response = api_post(client, fight, {"type": "vigilance", "id": "c2",
                                         "properties": ["agility"], "x": 5.0, "y": 1.8})
    assert response.status_code == 200
    assert response.json()["lines"][0]["threshold"] is not None


def test_the_gm_sets_a_situational_modifier_through_the_api(client, fight, gm, alice, run,
                                                            dice):
    """Issue 45: the GM's situational ST (fog +2) is in every attack's ST and shown in
    the encounter's view; a player cannot set it."""
    client.force_login(alice)
    assert api_post(client, fight, {"type": "set_situation", "modifier": 2}).status_code == 403
    client.force_login(gm)
    response = api_post(client, fight, {"type": "set_situation", "modifier": 2,
                                        "label": "dimma"})
    assert response.status_code == 200, response.content
    view = client.get(reverse("combat:api_encounter", args=[fight.pk])).json()
    state = view.get("state", view)
    assert state["situation"] == {"modifier": 2, "label": "dimma"}
    dice.queue += [1, 3]
    run(fight, gm, {"type": "start"})
    run(fight, alice, {"type": "attack", "id": "c1", "target": "c2", "weapon": "pistol"})
    dice.queue += MISS
    response = api_post(client, fight, {"type": "vigilance", "id": "c2", "default": True})
    assert response.status_code == 200
    parts = dict(response.json()["lines"][0]["parts"])
    assert parts["situation"] == 2


def test_a_players_move_toward_cover_not_drawn_waits_for_the_gm_p9(
    client, fight, gm, alice, run, dice
):
    """p. 9: "mot valfritt känt skydd": Albert (Alice's, RÖR 2) is shot at from 8 m and
    moves 2 m toward cover the map does not show; the GM confirms it (the player cannot),
    and the attack goes on from there."""
    run(fight, gm, {"type": "add_combatant", "name": "Skytten", "side": "b", "x": 8.0,
                    "alertness": 3, "drive": 14, "skills": {"firearms": 2},
                    "weapons": ["pistol"], "right": "pistol"})
    dice.queue += [1, 3]
    run(fight, gm, {"type": "start"})
    dice.queue += [1, 3]
    run(fight, alice, {"type": "end_activation", "id": "c1"})
    run(fight, gm, {"type": "attack", "id": "c3", "target": "c1", "weapon": "pistol"})
    client.force_login(alice)
    move = {"type": "vigilance", "id": "c1", "properties": ["agility"], "x": -1.5, "y": 0.0}
    response = api_post(client, fight, move)
    assert response.status_code == 200, response.content
    assert response.json()["lines"][0]["kind"] == "MoveProposed"
    assert api_post(client, fight, {"type": "confirm_move"}).status_code == 403
    assert 'data-testid="confirm-move"' not in client.get(fight.get_absolute_url()).content.decode()
    client.force_login(gm)
    page = client.get(fight.get_absolute_url()).content.decode()
    assert 'data-testid="confirm-move"' in page
    dice.queue += MISS
    response = api_post(client, fight, {"type": "confirm_move", "accept": True, "areas": 2})
    assert response.status_code == 200, response.content
    kinds = [line["kind"] for line in response.json()["lines"]]
    assert kinds[:2] == ["MoveConfirmed", "VigilanceChosen"]
    fight.refresh_from_db()
    albert = services.folded(fight).state.get("c1")
    assert (albert.x, albert.y) == (-1.5, 0.0)


def test_in_melee_the_targets_side_follows_through_the_page_and_the_api_p9(
    client, fight, gm, alice, run, dice
):
    """p. 9: "I närstrid är denna rörelse 1 meter bort från anfallaren. Alla andra i
    striden får hänga på": the guard stabs at Albert beside him; the prompt offers Albert's
    dog (his side, in the melee) to follow, and it moves the same metre with him."""
    run(fight, gm, {"type": "update_combatant", "id": "c2", "x": 1.0})
    run(fight, gm, {"type": "add_combatant", "name": "Hunden", "side": "a", "x": -0.5,
                    "y": 1.0, "alertness": 1})
    dice.queue += [1, 3]
    run(fight, gm, {"type": "start"})
    dice.queue += [1, 3]
    run(fight, alice, {"type": "end_activation", "id": "c1"})
    run(fight, gm, {"type": "attack", "id": "c2", "target": "c1", "weapon": "knife"})
    client.force_login(alice)
    page = client.get(fight.get_absolute_url()).content.decode()
    assert 'name="followers" value="c3"' in page
    assert 'data-vigil-prone' not in page  # the dive is a ranged attack's (p. 9)
    dice.queue += MISS
    move = {"type": "vigilance", "id": "c1", "properties": ["agility"], "followers": ["c3"]}
    response = api_post(client, fight, move)
    assert response.status_code == 200, response.content
    fight.refresh_from_db()
    state = services.folded(fight).state
    assert (state.get("c1").x, state.get("c3").x, state.get("c3").y) == (-1.0, -1.5, 1.0)


def test_in_melee_a_foe_follows_through_the_page_and_the_api_its_controller_only_p9(
    client, fight, gm, alice, run, dice
):
    """p. 9: "Alla andra i striden får hänga på och röra sig lika långt åt samma håll, om
    de vill": the guard (the GM's) stabs at Albert beside him, and Albert steps 1 m away.
    The guard, a foe in the melee, decides for himself: Alice may not answer for him (nor
    sees his buttons), the GM does, and he moves the same metre; then the attack goes on."""
    run(fight, gm, {"type": "update_combatant", "id": "c2", "x": 1.0})
    dice.queue += [1, 3]
    run(fight, gm, {"type": "start"})
    dice.queue += [1, 3]
    run(fight, alice, {"type": "end_activation", "id": "c1"})
    run(fight, gm, {"type": "attack", "id": "c2", "target": "c1", "weapon": "knife"})
    client.force_login(alice)
    move = {"type": "vigilance", "id": "c1", "properties": ["agility"]}
    response = api_post(client, fight, move)
    assert response.status_code == 200, response.content
    kinds = [line["kind"] for line in response.json()["lines"]]
    assert kinds == ["VigilanceChosen", "ReactionCalled"]  # no dice yet
    page = client.get(fight.get_absolute_url()).content.decode()
    assert 'data-testid="follow-go"' not in page
    assert api_post(client, fight, {"type": "follow", "id": "c2"}).status_code == 403
    assert api_post(client, fight, {"type": "pass", "id": "c2"}).status_code == 403
    client.force_login(gm)
    page = client.get(fight.get_absolute_url()).content.decode()
    assert 'data-testid="follow-go"' in page
    assert 'data-testid="follow-stay"' in page
    dice.queue += MISS
    response = api_post(client, fight, {"type": "follow", "id": "c2"})
    assert response.status_code == 200, response.content
    lines = response.json()["lines"]
    assert [line["kind"] for line in lines][:2] == ["Followed", "AttackRolled"]
    assert (lines[0]["who_name"], lines[0]["metres"]) == ("Vakten", 1.0)
    fight.refresh_from_db()
    state = services.folded(fight).state
    assert (state.get("c1").x, state.get("c2").x) == (-1.0, 0.0)


def test_a_player_follows_the_npcs_move_for_her_own_character_p9(
    client, fight, gm, alice, run, dice
):
    """p. 9: Albert (Alice's) punches the guard beside him, who steps away with RÖR (the
    GM's choice); Albert may follow, and Alice says so for him."""
    run(fight, gm, {"type": "update_combatant", "id": "c2", "x": 1.0})
    dice.queue += [1, 3]
    run(fight, gm, {"type": "start"})
    run(fight, alice, {"type": "attack", "id": "c1", "target": "c2", "weapon": "unarmed"})
    run(fight, gm, {"type": "vigilance", "id": "c2", "properties": ["agility"]})
    client.force_login(alice)
    page = client.get(fight.get_absolute_url()).content.decode()
    assert 'data-testid="follow-go"' in page
    dice.queue += [1] * 8
    response = api_post(client, fight, {"type": "follow", "id": "c1"})
    assert response.status_code == 200, response.content
    fight.refresh_from_db()
    state = services.folded(fight).state
    assert (state.get("c1").x, state.get("c2").x) == (1.0, 2.0)


def test_the_attack_preview_shows_the_gms_situational_modifier(client, fight, gm, alice,
                                                               run, dice):
    """Issue 45: the preview Alice sees before shooting at the GM's guard names the GM's
    modifier (the guard's own numbers stay the GM's)."""
    run(fight, gm, {"type": "set_situation", "modifier": 2, "label": "dimma"})
    dice.queue += [1, 3]
    run(fight, gm, {"type": "start"})
    client.force_login(alice)
    url = reverse("combat:preview", args=[fight.pk])
    page = client.get(url, {"id": "c1", "target": "c2", "weapon": "pistol"}).content.decode()
    assert 'data-testid="preview-situation"' in page
    assert "dimma" in page
