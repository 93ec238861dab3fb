"""The simulation through the JSON API (issue 29): GM only; bad bodies are 400 with an
error and start nothing."""

import json

import pytest
from django.urls import reverse

from combat.models import Simulation

pytestmark = pytest.mark.django_db(transaction=True)


def post(client, encounter, body, name="combat:api_simulation"):
    return client.post(reverse(name, args=[encounter.pk]), json.dumps(body),
                       content_type="application/json")


def test_the_gm_runs_a_simulation_and_reads_its_report(client, fight, gm, settings):
    settings.SIMULATION_WAIT_SECONDS = 60  # the report is tested here, not the wait's bound
    client.force_login(gm)
    url = reverse("combat:api_simulation", args=[fight.pk])
    assert client.get(url).json() == {"simulation": None}
    answer = post(client, fight, {"precision": 5, "wait": True})
    assert answer.status_code == 200
    run = answer.json()["simulation"]
    assert (run["status"], run["precision"], run["stale"]) == ("done", 5, False)
    report = run["report"]
    # Played a step (100 fights of each part) at a time until every shown chance was known
    # to ± 5 points, the fight's own fights the group's too (it has not started).
    assert report["fights"] % 100 == 0
    assert 100 <= report["fights"] <= run["fights"] == 400
    assert report["stopped"] in ("precise", "cap")
    assert report["stopped"] == "cap" or report["widest"] <= 5
    assert run["done"] <= run["total"] == 2 * 400  # the fight, and Albert alone
    assert run["estimate"] is None  # once it is done, the report says it
    assert {side["side"] for side in report["sides"]} == {"a", "b"}
    assert set(report["combatants"][0]["fates"]) == {
        "wounded", "limb_broken", "limb_destroyed", "unconscious", "dead", "fled"}
    assert report["award"]["up"] in (0, 1, 2, 3)
    assert report["award"]["confidence"] == 0.99
    assert isinstance(report["award"]["decided"], bool)
    assert client.get(url).json()["simulation"]["id"] == run["id"]
    started = post(client, fight, {"precision": 1})
    assert started.status_code == 202
    assert started.json()["simulation"]["status"] == "running"
    cancelled = post(client, fight, {}, "combat:api_simulation_cancel")
    assert cancelled.json()["simulation"]["status"] == "cancelled"


def test_only_the_gm_may_simulate(client, fight, alice, outsider):
    url = reverse("combat:api_simulation", args=[fight.pk])
    assert client.get(url).status_code == 401
    client.force_login(alice)
    assert client.get(url).status_code == 403
    assert post(client, fight, {"precision": 5}).status_code == 403
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    assert not Simulation.objects.exists()


@pytest.mark.parametrize("body", [
    {"fights": 1000}, {"precision": 4}, {"precision": "5"}, {"precision": True},
    {"seed": -1}, {"seed": "3"}, {"seed": 2**62}, {"seed": 1.5}, {"flees": "Vakten"},
    {"flees": [1]}, {"wait": "yes"}, {"fast": True}, [1000],
])
def test_a_bad_body_is_400_and_starts_nothing(client, fight, gm, body):
    client.force_login(gm)
    answer = post(client, fight, body)
    assert answer.status_code == 400
    assert answer.json()["error"]
    assert not Simulation.objects.exists()
