"""One account's simulations do not stall the site (issue 29, issue 42), on the real server
(granian and the router, as `make serve` runs it) over HTTP.

An attacker starts, again and again and from more concurrent requests than the server has
page threads, every 5,000-fight simulation it is allowed, each with "wait": true. Before,
each such request held a page thread for up to 120 s: with more of them than PAGE_THREADS
nothing else was served. Now a waiting request holds its thread at most
SIMULATION_WAIT_SECONDS, at most a quarter of the threads wait at once, the account has
its share of the queue (the rest is 429 at once), and the fights are played in a process
of their own (`simulations.Player`), so they do not take Python's turn from the pages.
The measured figures are printed (`pytest -s`).
"""

import http.client
import json
import math
import threading
import time
from urllib.parse import urlparse

import pytest
from django.urls import reverse

from campaigns.services import campaign_create
from combat.models import Simulation
from tests.combat.test_simulation_limits import npc_fight
from tests.servers import start_site_server
from tests.table.test_faults import CSRF_TOKEN, post_roll, session_for

pytestmark = pytest.mark.django_db(transaction=True)

PAGE_THREADS = 4
ATTACKERS = 2 * PAGE_THREADS  # concurrent requests of the attacking account
ROLLS = 300  # per measurement: the p99 of 300 is their third slowest
FLOOR_SECONDS = 0.15
PAUSE_SECONDS = 0.2  # the attacker's pause after a 429
POLL_SECONDS = 0.5  # how often the attacker reads the progress of a run it started


def simulation_api(server_url: str, session_key: str, encounter, body: dict | None = None):
    """The JSON API's POST of a simulation (session, CSRF), or its GET without a body:
    (status, JSON body)."""
    url = urlparse(server_url)
    client = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    try:
        client.request("GET" if body is None else "POST",
                       reverse("combat:api_simulation", args=[encounter.pk]),
                       body=None if body is None else json.dumps(body), headers={
                           "Cookie": f"csrftoken={CSRF_TOKEN}; sessionid={session_key}",
                           "X-CSRFToken": CSRF_TOKEN, "Content-Type": "application/json"})
        response = client.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        client.close()


def median(seconds: list[float]) -> float:
    return sorted(seconds)[len(seconds) // 2]


def p99(seconds: list[float]) -> float:
    ordered = sorted(seconds)
    return ordered[math.ceil(0.99 * len(ordered)) - 1]


def played() -> int:
    """Fights simulated so far, in every run."""
    return sum(Simulation.objects.values_list("done", flat=True))


def rolls(server_url, campaign, session_key, count) -> list[float]:
    return [post_roll(server_url, campaign, session_key).seconds for _ in range(count)]


def test_one_accounts_simulations_do_not_stall_another_tables_rolls(gm, make_user, tmp_path):
    """Rolls at another user's campaign, while the attack goes on, answer with a p99
    within max(2 x the idle p99, the idle p99 + 100 ms), both measured in this test on
    this server (ROLLS rolls each, one after another, after warming up).

    The floor keeps a small idle p99 (10-25 ms here) from making the bound a coin toss
    on a loaded 2-core machine, where three rolls of 300 slowed by another process's burst
    (100-500 ms, seen in idle measurements too) would fail 2 x 12 ms; a page thread held
    for minutes, as before, fails either bound by far (the rolls timed out at 10 s). Each
    measurement is taken once: a test that passes on one of several tries is a flaky one.
    Measured on that machine with the other core busy (6 runs): idle p99 10-69 ms, loaded
    17-70 ms; with the fights played in a thread of the server process instead of the
    simulation process, loaded 39-50 ms beside 12-16 ms idle (only the floor let that pass).

    The attacker keeps its runs playing (a new start on an encounter would replace its
    run) and starts again as soon as one ends, so it always has its share playing; it
    pauses PAUSE_SECONDS after a 429: a flood of requests at full speed is a load of its
    own whatever they ask for, and no page is rate-limited. On a busy machine the
    simulation process (nice 10) may play few fights while the rolls are measured:
    that is the design; the test checks that the runs go on afterwards."""
    roller = make_user("rolf")
    table = campaign_create(gm=roller, name="Rolfs bord")
    fights = [npc_fight(campaign_create(gm=gm, name=f"Bord {n}")) for n in range(ATTACKERS)]
    attacker, player = session_for(gm), session_for(roller)
    server = start_site_server(tmp_path, {"PAGE_THREADS": str(PAGE_THREADS),
                                          "SIMULATION_NICE": "10"})  # the default
    stop = threading.Event()
    answers: list[tuple[int, dict]] = []

    def attack(fight):
        while not stop.is_set():
            status, body = simulation_api(server.url, attacker, fight,
                                          {"precision": 1, "wait": True})
            answers.append((status, body))
            if status == 429:
                stop.wait(PAUSE_SECONDS)
                continue
            # Accepted: it plays to its end (another start would replace it), then again.
            while status in (200, 202) and body["simulation"]["status"] == "running":
                if stop.wait(POLL_SECONDS):
                    return
                status, body = simulation_api(server.url, attacker, fight)

    threads = [threading.Thread(target=attack, args=(fight,), daemon=True) for fight in fights]
    measured = []  # (p99, median, fights simulated meanwhile, seconds)
    try:
        rolls(server.url, table, player, 10)  # warm up: imports, templates, connections
        idle = rolls(server.url, table, player, ROLLS)
        bound = max(2 * p99(idle), p99(idle) + FLOOR_SECONDS)
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 30
        while not Simulation.objects.filter(done__gt=0, status="running").exists():
            assert time.monotonic() < deadline, "no simulation played"
            time.sleep(0.05)
        before, started = played(), time.monotonic()
        loaded = rolls(server.url, table, player, ROLLS)
        measured.append((p99(loaded), median(loaded), played() - before,
                         time.monotonic() - started))
        # The runs went on (a starved simulation process is no load on the pages).
        while played() == before:
            assert time.monotonic() < started + 30, "the simulations did not play"
            time.sleep(0.1)
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
        server.stop()
    print(f"\nidle p99 {p99(idle) * 1000:.1f} ms (median {median(idle) * 1000:.1f}), "
          f"bound {bound * 1000:.1f} ms; loaded: " + "; ".join(
              f"p99 {p * 1000:.1f} ms (median {m * 1000:.1f}), {n} fights simulated in "
              f"{t:.1f} s" for p, m, n, t in measured)
          + f"; answers to the attacker: {sorted({a[0] for a in answers})}")
    assert any(status == 429 and body["limit"] == "user" for status, body in answers)
    assert Simulation.objects.values("created_by").distinct().count() == 1
    assert measured[-1][0] <= bound, (p99(idle), measured)
