"""The simulation's limits (issue 29, issue 42: on a hosted server every account may be an
attacker of every other table): a request that waits for its run holds its page thread a
bounded time and answers a clear status whatever became of the run; one account and one
campaign get a share of the process's queue; waiting runs are played by turns of their
users. The runs are real: the simulation thread plays them against the test database.
The simulation thread is held (`held`) where a test needs its runs to stay queued."""

import json
import os
import signal
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Membership
from campaigns.services import campaign_create
from combat import services, simulations
from combat.models import Encounter, Simulation
from tests.core.test_two_processes import GUARDS  # two NPCs, sides a and b
from tests.servers import child_pids

pytestmark = pytest.mark.django_db(transaction=True)

def npc_fight(campaign, name="Bakgården") -> Encounter:
    """Two NPCs of the campaign's GM, set up but not started."""
    encounter = Encounter.objects.create(campaign=campaign, name=name, system="aoristos")
    membership = Membership.objects.select_related("campaign", "user").get(
        campaign=campaign, user=campaign.gm)
    for command in GUARDS:
        encounter, _record, _after = services.command_run(
            encounter=encounter, membership=membership, data=command,
            version=encounter.version)
    return encounter


def gm_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post(client, encounter, body):
    return client.post(reverse("combat:api_simulation", args=[encounter.pk]), json.dumps(body),
                       content_type="application/json")


def in_thread(call, *args):
    """Run `call(*args)` in a thread of its own, as another page thread would: join() it
    for its answer (or the exception it raised)."""
    outcome = {}

    def run():
        try:
            outcome["answer"] = call(*args)
        except BaseException as error:  # noqa: BLE001 (the test reports it)
            outcome["error"] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def join(timeout=30):
        thread.join(timeout)
        assert not thread.is_alive(), "the request did not answer"
        if "error" in outcome:
            raise AssertionError(f"the request raised {outcome['error']!r}")
        return outcome["answer"]

    return join


def until(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.01)


@pytest.fixture
def held():
    """The simulation thread is taken until the test calls release() (or ends): runs
    started meanwhile stay queued."""
    hold = threading.Event()
    busy = simulations.executor().submit(hold.wait)

    def release():
        hold.set()
        # The thread takes the hold once the last test's run has stopped: on a machine
        # whose cores are busy that run's fights can take a while to stop.
        busy.result(60)

    yield release
    hold.set()


@pytest.fixture
def other_gm(make_user):
    """Another account, GM of a campaign of its own with a fight."""
    user = make_user("ingrid")
    return user, npc_fight(campaign_create(gm=user, name="Ingrids bord"))


def test_a_waiter_whose_run_is_replaced_gets_a_clear_status_not_500(gm, campaign, held):
    """Two starts on one encounter: the first run, still queued, is replaced by the
    second, and its waiting request says so (it was a CancelledError and a 500)."""
    fight = npc_fight(campaign)
    waiting = in_thread(post, gm_client(gm), fight, {"precision": 1, "wait": True})
    until(Simulation.objects.exists)
    first = Simulation.objects.get()
    second = post(gm_client(gm), fight, {"precision": 5})
    assert second.status_code == 202
    answer = waiting()
    assert answer.status_code == 200, answer.content[:2000]
    run = answer.json()["simulation"]
    assert (run["id"], run["status"]) == (first.pk, "replaced")
    assert run["replaced_by"] == second.json()["simulation"]["id"]
    held()


def test_a_wait_is_bounded_and_answers_202_with_the_runs_progress(
        gm, campaign, held, settings):
    """A run that cannot end within SIMULATION_WAIT_SECONDS (here it stays queued) is
    answered 202 with its status and progress at the bound, not held for minutes."""
    settings.SIMULATION_WAIT_SECONDS = 1
    fight = npc_fight(campaign)
    release_late = threading.Timer(8, held)  # the code before this fix waited for it
    release_late.start()
    try:
        started = time.monotonic()
        answer = post(gm_client(gm), fight, {"precision": 1, "wait": True})
        took = time.monotonic() - started
    finally:
        release_late.cancel()
    assert answer.status_code == 202, answer.content[:2000]
    body = answer.json()
    assert (body["simulation"]["status"], body["simulation"]["done"]) == ("running", 0)
    assert "still running" in body["note"]
    assert 0.9 < took < 4, took
    held()


def test_a_wait_without_a_free_waiting_slot_answers_at_once(
        gm, campaign, other_gm, held, settings):
    """At most SIMULATION_WAITERS requests of a process wait: one more is answered 202 at
    once (its run still starts), so waiters never take the page threads."""
    settings.SIMULATION_WAITERS = 1
    settings.SIMULATION_WAIT_SECONDS = 30
    fight = npc_fight(campaign)
    waiting = in_thread(post, gm_client(gm), fight, {"precision": 5, "wait": True})
    until(lambda: simulations._waiting == 1)
    user, theirs = other_gm
    started = time.monotonic()
    answer = post(gm_client(user), theirs, {"precision": 5, "wait": True})
    assert time.monotonic() - started < 2
    assert answer.status_code == 202
    assert answer.json()["simulation"]["status"] == "running"
    assert "waiting" in answer.json()["note"]
    held()
    assert waiting().json()["simulation"]["status"] == "done"


def test_a_waiter_of_a_cancelled_run_gets_cancelled(gm, campaign, held):
    fight = npc_fight(campaign)
    waiting = in_thread(post, gm_client(gm), fight, {"precision": 1, "wait": True})
    until(Simulation.objects.exists)
    cancelled = gm_client(gm).post(reverse("combat:api_simulation_cancel", args=[fight.pk]))
    assert cancelled.json()["simulation"]["status"] == "cancelled"
    answer = waiting()
    assert answer.status_code == 200
    assert answer.json()["simulation"]["status"] == "cancelled"
    held()


def test_a_waiter_of_a_failed_run_gets_failed(gm, campaign, held, monkeypatch):
    """The rules fail in the simulation process (here: no such engine): the run is failed,
    its waiter says so, and the process plays the next run."""
    prepare = simulations.Job.prepare

    def no_such_engine(job, row):
        prepare(job, row)
        job.engine_key = ("nosuch", "combat")
        monkeypatch.setattr(simulations.Job, "prepare", prepare)  # the next run plays

    monkeypatch.setattr(simulations.Job, "prepare", no_such_engine)
    fight = npc_fight(campaign)
    waiting = in_thread(post, gm_client(gm), fight, {"precision": 5, "wait": True})
    until(Simulation.objects.exists)
    held()
    answer = waiting()
    assert answer.status_code == 200
    assert answer.json()["simulation"]["status"] == "failed"
    assert "RulesError" in Simulation.objects.get().error
    again = post(gm_client(gm), fight, {"precision": 5, "wait": True})
    assert again.json()["simulation"]["status"] == "done"


def simulation_processes() -> list[int]:
    """The simulation processes (`simulations.Player`) of this test process."""
    return [pid for pid in child_pids(os.getpid())
            if b"rules.simulation_player" in Path(f"/proc/{pid}/cmdline").read_bytes()]


@pytest.mark.parametrize("processes", [1, 2])
def test_a_worker_killed_mid_run_leaves_it_interrupted_with_no_half_result(
        gm, campaign, monkeypatch, settings, processes):
    """Issue 46: a worker process killed in the middle of a run (one of one, one of two)
    leaves the run "interrupted", its estimate and result gone: none of its fights is
    shown as an answer. The page says so; the next run gets new processes."""
    monkeypatch.setattr(simulations, "PROGRESS_SECONDS", 0)
    settings.SIMULATION_PROCESSES = processes
    fight = npc_fight(campaign)
    client = gm_client(gm)
    waiting = in_thread(post, client, fight, {"precision": 1, "wait": True})
    until(lambda: Simulation.objects.filter(estimate__isnull=False).exists(), seconds=30)
    until(lambda: len(simulation_processes()) == processes, seconds=30)
    pid = simulation_processes()[0]
    os.kill(pid, signal.SIGKILL)
    answer = waiting()
    assert answer.status_code == 200
    shown = answer.json()["simulation"]
    assert (shown["status"], shown["report"], shown["estimate"]) == ("interrupted", None, None)
    run = Simulation.objects.get()
    assert (run.status, run.result, run.estimate) == ("interrupted", None, None)
    assert "the simulation process stopped" in run.error
    page = client.get(reverse("combat:simulate", args=[fight.pk])).content.decode()
    assert 'data-testid="simulation-interrupted"' in page
    assert 'data-testid="simulation-result"' not in page
    again = post(client, fight, {"precision": 5, "wait": True})
    assert again.json()["simulation"]["status"] == "done"
    assert pid not in simulation_processes()


def test_one_account_gets_its_share_and_another_gm_is_still_served(
        gm, other_gm, held, settings):
    """One account with many campaigns of its own: past SIMULATION_RUNS_PER_USER runs
    queued or playing its starts are 429 naming the limit, and another GM's run is
    accepted (with one shared queue of 8 the first account took all of it)."""
    settings.SIMULATION_RUNS_PER_USER = 2
    fights = [npc_fight(campaign_create(gm=gm, name=f"Bord {n}")) for n in range(4)]
    client = gm_client(gm)
    assert [post(client, f, {"precision": 1}).status_code for f in fights[:2]] == [202, 202]
    for refused in fights[2:]:
        answer = post(client, refused, {"precision": 1})
        assert answer.status_code == 429
        assert answer.json()["limit"] == "user"
        assert "at most 2 per account" in answer.json()["error"]
    user, theirs = other_gm
    assert post(gm_client(user), theirs, {"precision": 1}).status_code == 202
    # A run replaced on one of its encounters takes no second share.
    assert post(client, fights[0], {"precision": 5}).status_code == 202
    # A cancelled run frees its share at once.
    client.post(reverse("combat:api_simulation_cancel", args=[fights[1].pk]))
    assert post(client, fights[2], {"precision": 5}).status_code == 202
    assert Simulation.objects.filter(encounter=fights[3]).count() == 0
    held()


def test_one_campaign_gets_its_share(gm, campaign, held, settings):
    settings.SIMULATION_RUNS_PER_USER = 5
    settings.SIMULATION_RUNS_PER_CAMPAIGN = 2
    fights = [npc_fight(campaign, f"Strid {n}") for n in range(3)]
    client = gm_client(gm)
    assert [post(client, f, {"precision": 5}).status_code for f in fights[:2]] == [202, 202]
    answer = post(client, fights[2], {"precision": 5})
    assert answer.status_code == 429
    assert answer.json()["limit"] == "campaign"
    assert "at most 2 per campaign" in answer.json()["error"]
    held()


def test_the_sites_queue_has_a_cap(gm, held, settings, make_user):
    settings.SIMULATION_QUEUE = 3
    users = [make_user(f"gm{n}") for n in range(4)]
    fights = [npc_fight(campaign_create(gm=user, name=f"Bord {n}"))
              for n, user in enumerate(users)]
    answers = [post(gm_client(user), fight, {"precision": 5})
               for user, fight in zip(users, fights, strict=True)]
    assert [a.status_code for a in answers] == [202, 202, 202, 429]
    assert answers[3].json()["limit"] == "process"
    held()


def test_the_page_names_the_share_it_refuses(gm, held, settings):
    settings.SIMULATION_RUNS_PER_USER = 1
    fights = [npc_fight(campaign_create(gm=gm, name=f"Bord {n}")) for n in range(2)]
    client = gm_client(gm)
    client.cookies["django_language"] = "en"
    for fight in fights:
        answer = client.post(reverse("combat:simulate", args=[fight.pk]), {"precision": "5"},
                             headers={"HX-Request": "true"})
    assert answer.status_code == 429
    assert "as many simulations queued or running as one account may (1)" in (
        answer.content.decode())
    held()


def test_waiting_runs_are_played_by_turns_of_their_users(gm, other_gm, held, monkeypatch):
    """One account's two queued runs do not both go before another GM's run queued after
    them: the queue is taken by turns of its users (it was first come, first served)."""
    played = []
    play = simulations.Job.play

    def recorded(job):
        played.append(job.pk)
        play(job)

    monkeypatch.setattr(simulations.Job, "play", recorded)
    mine = [npc_fight(campaign_create(gm=gm, name=f"Bord {n}")) for n in range(2)]
    client = gm_client(gm)
    first, second = (post(client, f, {"precision": 5}).json()["simulation"]["id"] for f in mine)
    user, theirs = other_gm
    other = post(gm_client(user), theirs, {"precision": 5}).json()["simulation"]["id"]
    held()
    for pk in (first, second, other):
        simulations.wait(Simulation(pk=pk), timeout=30)
    assert played == [first, other, second]


def test_runs_queued_behind_a_slow_run_are_not_taken_for_interrupted(
        gm, other_gm, monkeypatch):
    """A run that waits in the queue longer than STALLED (behind a long run, on a busy
    machine) is still running, not interrupted: the simulation thread marks the queued
    rows alive (before, a queued row kept the time it was stored)."""
    monkeypatch.setattr(simulations, "STALLED", timedelta(seconds=1))
    monkeypatch.setattr(simulations, "PLAYER_BEAT_SECONDS", 0.2, raising=False)
    client = gm_client(gm)
    long = npc_fight(campaign_create(gm=gm, name="Bord 1"))
    assert post(client, long, {"precision": 1}).status_code == 202
    user, theirs = other_gm
    other = gm_client(user)
    queued = post(other, theirs, {"precision": 5}).json()["simulation"]["id"]
    url = reverse("combat:api_simulation", args=[theirs.pk])
    until(lambda: Simulation.objects.get(pk=queued).created_at
          < timezone.now() - timedelta(seconds=2), seconds=5)
    run = other.get(url).json()["simulation"]
    assert (run["id"], run["status"], run["done"]) == (queued, "running", 0)


def test_the_same_seed_gives_the_same_report_with_one_worker_process_and_with_two(
        gm, campaign, settings):
    """Issue 46: a run's batches are seeded by (seed, part, index) and counted a whole step
    at a time in batch order, so two worker processes finishing in any order give the
    report one gives; another seed, another report."""
    settings.SIMULATION_WAIT_SECONDS = 60
    fight = npc_fight(campaign)
    client = gm_client(gm)
    reports = {}
    for processes, seed in ((1, 46), (2, 46), (2, 47)):
        settings.SIMULATION_PROCESSES = processes
        answer = post(client, fight, {"precision": 3, "seed": seed, "wait": True}).json()
        assert answer["simulation"]["status"] == "done"
        assert len(simulation_processes()) == processes
        reports[processes, seed] = answer["simulation"]["report"]
    assert reports[1, 46] == reports[2, 46]
    assert reports[1, 46]["stopped"] == "precise"
    assert reports[2, 47] != reports[2, 46]


def test_processes_claiming_at_once_each_get_another_row(gm, make_user, held):
    """The queue is the rows (issue 46): server processes claim a queued run with an
    UPDATE that only an unclaimed row takes, so of claims made at once no two get one
    row, and every row is claimed once. Here threads of this process claim as processes
    would (each on its own database connection)."""
    users = [make_user(f"gm{n}") for n in range(6)]
    fights = [npc_fight(campaign_create(gm=user, name=f"Bord {n}"))
              for n, user in enumerate(users)]
    queued = {simulations.start(fight, user, precision=5).pk
              for user, fight in zip(users, fights, strict=True)}
    start_together = threading.Barrier(3)

    def claim_all():
        start_together.wait()
        claimed = []
        while (row := simulations.claim()) is not None:
            claimed.append(row.pk)
        return claimed

    joins = [in_thread(claim_all) for _ in range(3)]
    claims = [join() for join in joins]
    everything = [pk for claimed in claims for pk in claimed]
    assert sorted(everything) == sorted(queued)  # each once
    rows = Simulation.objects.filter(pk__in=queued)
    assert all(row.claimed_by == simulations.process_name() and row.claimed_at for row in rows)
    Simulation.objects.update(status=Simulation.Status.CANCELLED)  # nobody plays them
    held()


def test_starts_at_once_cannot_both_take_the_last_share(gm, held, settings):
    """The shares are counted in the database under a lock (issue 46: runs are started
    on any process): one account's starts made at once on several page threads (or
    processes) get its share and no more."""
    settings.SIMULATION_RUNS_PER_USER = 1
    fights = [npc_fight(campaign_create(gm=gm, name=f"Bord {n}")) for n in range(4)]
    for fight in fights:
        services.folded(fight)  # what the GM's pages folded already
    start_together = threading.Barrier(len(fights))

    def ask(fight):
        start_together.wait()
        try:
            return simulations.start(fight, gm, precision=5).pk
        except simulations.Busy as refused:
            return refused.limit

    joins = [in_thread(ask, fight) for fight in fights]
    answers = [join() for join in joins]
    assert sorted(answers, key=str) == sorted([*(["user"] * 3), Simulation.objects.get().pk],
                                              key=str)
    held()
