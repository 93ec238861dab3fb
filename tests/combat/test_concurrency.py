"""Two commands never interleave: made against the same version at the same moment, one is
stored and the other answers "the situation changed" (409) and changes nothing."""

import json
import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from combat import services
from combat.models import CombatRecord, Encounter


def at_once(user, encounter, commands):
    """POST each command from its own logged-in client, all released together."""
    clients = []
    for _ in commands:
        client = Client()
        client.force_login(user)
        clients.append(client)
    barrier = threading.Barrier(len(commands))
    results: list = [None] * len(commands)
    url = reverse("combat:api_command", args=[encounter.pk])

    def run(index, client, command):
        try:
            barrier.wait(timeout=10)
            body = json.dumps({"version": encounter.version, "command": command})
            response = client.post(url, body, content_type="application/json")
            results[index] = (response.status_code, response.json())
        except BaseException as error:  # reported by the test
            results[index] = error
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=(i, c, command))
        for i, (c, command) in enumerate(zip(clients, commands, strict=True))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(3))
def test_simultaneous_commands_at_one_version_store_exactly_one(gm, campaign, round_):
    """The encounter's row lock (PostgreSQL) or the IMMEDIATE write lock (SQLite) and the
    unique (encounter, version) let one through; the others see a newer version."""
    encounter = Encounter.objects.create(campaign=campaign, name="Trängsel", system="aoristos")
    membership = campaign.memberships.get(user=gm)
    for version, name in enumerate(("A", "B")):
        services.command_run(encounter_id=encounter.pk, membership=membership, version=version,
                             data={"type": "add_combatant", "name": name, "side": name})
    encounter.refresh_from_db()
    commands = [
        {"type": "update_combatant", "id": "c1", "x": float(x)} for x in (1, 2, 3)
    ]
    results = at_once(gm, encounter, commands)
    assert all(isinstance(result, tuple) for result in results), results
    assert sorted(status for status, _body in results) == [200, 409, 409]
    for status, body in results:
        if status == 409:
            assert body == {"error": "the situation changed", "version": 3}
    assert list(CombatRecord.objects.filter(encounter=encounter).values_list(
        "version", flat=True)) == [1, 2, 3]
    services.forget()
    encounter.refresh_from_db()
    assert services.folded(encounter).state.get("c1").x in (1.0, 2.0, 3.0)
