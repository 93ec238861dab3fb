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
    answer = post(client, fight, {"fights": 200, "wait": True})
    assert answer.status_code == 200
    run = answer.json()["simulation"]
    assert (run["status"], run["done"], run["total"], run["stale"]) == ("done", 400, 400, False)
    report = run["report"]
    assert report["fights"] == 200
    assert {side["side"] for side in report["sides"]} == {"a", "b"}
    assert set(report["combatants"][0]["fates"]) == {
        "wounded", "limb_broken", "limb_destroyed", "unconscious", "dead", "fled"}
    assert report["award"]["up"] in (0, 1, 2, 3)
    assert client.get(url).json()["simulation"]["id"] == run["id"]
    started = post(client, fight, {"fights": 5000})
    assert started.status_code == 202
    assert started.json()["simulation"]["status"] == "running"
    cancelled = post(client, fight, {}, "combat:api_simulation_cancel")
    assert cancelled.json()["simulation"]["status"] == "cancelled"


def test_only_the_gm_may_simulate(client, fight, alice, outsider):
    url = reverse("combat:api_simulation", args=[fight.pk])
    assert client.get(url).status_code == 401
    client.force_login(alice)
    assert client.get(url).status_code == 403
    assert post(client, fight, {"fights": 200}).status_code == 403
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    assert not Simulation.objects.exists()


@pytest.mark.parametrize("body", [
    {"fights": 7}, {"fights": "1000"}, {"fights": True}, {"flees": "Vakten"},
    {"flees": [1]}, {"wait": "yes"}, {"seed": 3}, [1000],
])
def test_a_bad_body_is_400_and_starts_nothing(client, fight, gm, body):
    client.force_login(gm)
    answer = post(client, fight, body)
    assert answer.status_code == 400
    assert answer.json()["error"]
    assert not Simulation.objects.exists()
