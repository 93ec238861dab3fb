"""The GM's simulation on the encounter page (issue 29): a run off the request thread
with its progress, cancel, stale marker and sharing; the award it finds (p. 4, "Strid,
oavsett resultat") pre-filling the campaign's award form. The runs here are real: the
simulation thread plays them against the test database."""

import re
import threading
import time

import pytest
from django.urls import reverse

from combat import simulations
from combat.models import Simulation
from tests.combat.helpers import english

pytestmark = pytest.mark.django_db(transaction=True)


def start(client, encounter, **data):
    return client.post(reverse("combat:simulate", args=[encounter.pk]),
                       {"precision": "5", **data}, headers={"HX-Request": "true"})


def section(client, encounter) -> str:
    return client.get(reverse("combat:simulate", args=[encounter.pk]),
                      headers={"HX-Request": "true"}).content.decode()


def finished(encounter) -> Simulation:
    run = simulations.latest(encounter)
    simulations.wait(run)
    run.refresh_from_db()
    return run


def test_the_gm_simulates_a_set_up_fight_and_sees_chances_fates_and_the_award(client, fight, gm):
    english(client, gm)
    answer = start(client, fight, flees=["npc-that-is-not-there"])
    assert answer.status_code == 200
    assert 'data-testid="simulation-progress"' in answer.content.decode()
    run = finished(fight)
    assert run.status == "done"
    # Up to 400 fights of the group and 400 of Albert alone (± 5 points: a chance of 50 %
    # is known so after 385), the group's the fight's own: it has not started.
    assert (run.total, run.fights, run.precision, run.flees) == (800, 400, 5, [])
    fights = run.result["fights"]
    assert run.done == fights + run.result["parts"]["alone:c1"]["fights"] <= 800
    page = section(client, fight)
    assert 'data-testid="simulation-progress"' not in page
    assert f"{fights} fights simulated from version 2" in page
    assert 'data-testid="simulation-precision"' in page
    assert page.count('data-testid="simulation-side"') == 2
    assert "Vakten" in page
    assert "Albert" in page
    report = simulations.report(run.result)
    wins = sum(side["wins"] for side in report["sides"])
    assert wins + report["draws"] + report["capped"] + report["stuck"] == fights
    award = run.result["award"]
    assert award["up"] in (0, 1, 2, 3)
    assert f"Award: {award['up']} UP" in page
    assert "The thresholds are house rules" in page
    # Alone is the whole group here: one character.
    assert award["group_chance"] == award["alone_chance"]


def test_a_player_sees_a_run_only_once_the_gm_shares_it_and_may_not_start_one(
        client, fight, gm, alice):
    english(client, gm)
    start(client, fight)
    finished(fight)
    english(client, alice)
    assert 'data-testid="simulation"' not in section(client, fight)
    assert 'data-testid="simulation"' not in client.get(fight.get_absolute_url()).content.decode()
    assert start(client, fight).status_code == 403
    assert client.post(reverse("combat:simulate_share", args=[fight.pk]),
                       {"shared": "true"}).status_code == 403
    english(client, gm)
    client.post(reverse("combat:simulate_share", args=[fight.pk]), {"shared": "true"})
    english(client, alice)
    page = client.get(fight.get_absolute_url()).content.decode()
    assert 'data-testid="simulation-result"' in page
    assert 'data-testid="simulation-form"' not in page  # the players cannot run one
    assert Simulation.objects.count() == 1


def test_a_result_is_marked_stale_once_the_fight_moves_on(client, fight, gm, run):
    english(client, gm)
    start(client, fight)
    finished(fight)
    assert 'data-testid="simulation-stale"' not in section(client, fight)
    run(fight, gm, {"type": "start"})
    page = section(client, fight)
    assert "Simulated at version 2; the fight has changed since (now 3)." in page


def test_a_started_fight_is_simulated_from_where_it_is_and_its_award_from_its_set_up(
        client, fight, gm, run):
    english(client, gm)
    run(fight, gm, {"type": "start"})
    start(client, fight)
    done = finished(fight)
    assert done.version == 3
    assert done.result["award"] is not None
    # The fights from the started state, then the group and Albert alone from the set-up,
    # each part at most 400 fights.
    assert done.total == 3 * 400
    assert set(done.result["parts"]) == {"fight", "group", "alone:c1"}


def test_the_gm_cancels_a_run_and_keeps_the_fights_played(client, fight, gm, monkeypatch):
    monkeypatch.setattr(simulations, "PROGRESS_SECONDS", 0)
    english(client, gm)
    answer = start(client, fight, precision="1")
    assert 'data-testid="simulation-cancel"' in answer.content.decode()
    run = simulations.latest(fight)
    while run.done == 0:  # playing (a run cancelled before its first fight counts none)
        time.sleep(0.01)
        run.refresh_from_db()
    cancelled = client.post(reverse("combat:simulate_cancel", args=[fight.pk]),
                            headers={"HX-Request": "true"})
    assert cancelled.status_code == 200
    run = finished(fight)
    assert run.status == "cancelled"
    assert run.result["fights"] < run.fights
    assert run.done < run.total
    page = section(client, fight)
    assert "Cancelled: the numbers are from the" in page


def test_a_bad_precision_is_refused_and_starts_nothing(client, fight, gm):
    english(client, gm)
    for precision in ("7", "-1", "5.0", "", "٥", "1e0"):
        answer = start(client, fight, precision=precision)
        assert answer.status_code == 400
        assert "Choose how precise the answer must be." in answer.content.decode()
    assert not Simulation.objects.exists()


def test_the_award_link_fills_in_the_campaigns_award_form(client, fight, gm, run):
    english(client, gm)
    start(client, fight)
    award = finished(fight).result["award"]
    run(fight, gm, {"type": "end"})
    page = section(client, fight)
    assert 'data-testid="simulation-award-link"' in page
    url = reverse("campaigns:awards", args=[fight.campaign_id])
    form = client.get(url, {"method": "combat", "challenge": str(award["up"]),
                            "reason": "The fight: Bakgården"}).content.decode()
    assert re.search(rf'name="challenge" value="{award["up"]}" id="id_challenge_\d" checked', form)
    assert re.search(r'name="method" value="combat" id="id_method_\d" required checked', form)
    assert 'value="The fight: Bakgården"' in form


def test_a_run_cancelled_before_it_began_says_so(client, fight, gm, monkeypatch):
    """The GM cancels while the run still waits for the simulation thread."""
    english(client, gm)
    hold = threading.Event()
    busy = simulations.executor().submit(hold.wait)  # the thread is taken
    start(client, fight)
    client.post(reverse("combat:simulate_cancel", args=[fight.pk]))
    hold.set()
    busy.result(5)
    run = finished(fight)
    assert (run.status, run.result, run.done) == ("cancelled", None, 0)
    assert "Cancelled before its first fights were counted." in section(client, fight)
