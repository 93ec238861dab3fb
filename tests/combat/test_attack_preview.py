"""The Aoristos attack preview through the app (issue 25): the page and the JSON API show
the exact distribution of the outcome, auto fire, areas and all; players preview only
what they command. Figures: rule text p. 9-13 (tests/rules/test_attack_outcome.py holds
them against the engine)."""

import re

from django.urls import reverse

from tests.combat.helpers import english


def carbine_fight(run, encounter, gm, alice):
    """Anna (Alice's, TB 6) with her carbine "1/3/auto+2N" 25 m from a guard with ST 11."""
    run(encounter, gm, {"type": "add_combatant", "name": "Anna", "npc": False, "side": "a",
                        "agility": 3, "alertness": 3, "skills": {"firearms": 3},
                        "weapons": ["carbine"], "right": "carbine", "left": "carbine"},
        controller=alice.pk)
    run(encounter, gm, {"type": "add_combatant", "name": "Vakten", "side": "b", "x": 25.0,
                        "agility": 4, "alertness": 4, "skills": {"evasion": 3},
                        "armour": ["spear_thrower_armour"]})
    encounter.refresh_from_db()
    return encounter


def test_the_page_shows_auto_fire_and_where_it_lands_p9_p11(client, encounter, gm, alice, run):
    fight = carbine_fight(run, encounter, gm, alice)
    english(client, alice)
    query = {"id": "c1", "target": "c2", "weapon": "carbine", "mode": "auto+2N", "shots": "0"}
    page = client.get(reverse("combat:preview", args=[fight.pk]), query).content.decode()
    hit = re.search(r'data-testid="preview-hit">([\d.]+) %', page).group(1)
    api = client.get(reverse("combat:api_preview", args=[fight.pk]), query).json()
    assert api["p_hit"] == float(hit) == 97.3  # p. 9, 11: 2T6 projectiles, 1F each past one
    assert "Where it lands" in page
    assert "Auto fire, projectiles" in page
    # Each projectile count with its own hand (p. 9, 11), and the range says which is which.
    assert "2 (2B1T):" in page
    assert "12 (2B4F):" in page
    assert "2B1T (fewest projectiles) to 2B4F (most)" in page
    assert [s["hand"] for s in api["shots"]][:3] == ["2B1T", "2B", "2B1F"]
    assert "4+ projectiles have no hit area" in page
    assert {a["area"] for a in api["areas"]} >= {None, "torso"}
    # Every figure adds up: the areas' chances are the chance to hit.
    assert abs(sum(a["percent"] for a in api["areas"]) - api["p_hit"]) < 0.1 * len(api["areas"])


def test_a_player_previews_only_what_they_command(client, encounter, gm, alice, run):
    fight = carbine_fight(run, encounter, gm, alice)
    english(client, alice)
    answers = set()
    for weapon in ("carbine", "sword", "knife", "unarmed"):
        query = {"id": "c2", "target": "c1", "weapon": weapon}
        page = client.get(reverse("combat:preview", args=[fight.pk]), query)
        api = client.get(reverse("combat:api_preview", args=[fight.pk]), query)
        answers.add((page.status_code, api.status_code, api.content))
    assert len(answers) == 1
    assert answers.pop()[:2] == (403, 403)
