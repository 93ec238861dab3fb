"""Running wide, as README's "Running wide" describes it: server processes on one database
and one Redis, each started as a hosted process is (`manage.py serve --no-setup` after one
`migrate` and `collectstatic`), share every table. A roll POSTed to one process and a
combat command sent to another reach the open pages of both, in order, once.

Needs REDIS_URL (CI's second leg sets it, with DATABASE_URL); runs on SQLite too, whose
file the processes of one machine share.
"""

import http.client
import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.urls import reverse

from campaign_log.broadcast import signature
from campaigns.models import Campaign, Membership
from combat import services as combat_services
from combat import simulations
from combat.models import Encounter, Simulation
from tests.servers import collect_static, start_serve_command, worker_of_connection, worker_pids
from tests.table.test_faults import CSRF_TOKEN, open_stream, post_roll, session_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not settings.REDIS_URL,
        reason="needs REDIS_URL: several server processes share a table only through Redis "
        "(CI's second leg starts one)",
    ),
]

GUARDS = [
    {"type": "add_combatant", "name": name, "side": side, "x": x, "alertness": 2,
     "agility": 2, "physique": 3, "skills": {"evasion": 1}, "weapons": ["knife"],
     "right": "knife"}
    for name, side, x in (("Vakten", "a", 0.0), ("Tjuven", "b", 5.0))
]  # fmt: skip


@pytest.fixture(scope="module")
def static_root(tmp_path_factory):
    """The static files, collected once on this "machine" (the test database is migrated)."""
    root = tmp_path_factory.mktemp("collected") / "static"
    collect_static(root)
    return root


@pytest.fixture
def hosted(tmp_path, static_root):
    """start(count, **env): `count` hosted processes (`serve --no-setup`) started together,
    each with its own DATA_DIR, on REDIS_URL; `each` adds one environment per process.
    Every one is stopped (workers included) at the end of the test."""
    started = []

    def start_one(name, env):
        workdir = tmp_path / name
        workdir.mkdir()
        env = {"STATIC_ROOT": str(static_root), "SERVE_SETUP": "0", **env}
        server = start_serve_command(workdir, env)
        started.append(server)
        return server

    def start(count: int, each: tuple[dict, ...] = (), **env):
        envs = [{"REDIS_URL": settings.REDIS_URL, **env} for _ in range(count)]
        for common, extra in zip(envs, each, strict=False):
            common.update(extra)
        names = [f"server-{len(started) + n}" for n in range(count)]
        with ThreadPoolExecutor(count) as pool:
            return list(pool.map(start_one, names, envs))

    yield start
    for server in started:
        server.stop()


def started_encounter(campaign, gm) -> Encounter:
    """Two NPCs, the fight started (stored here: these events come before the streams')."""
    encounter = Encounter.objects.create(campaign=campaign, name="Bakgården", system="aoristos")
    membership = Membership.objects.select_related("campaign", "user").get(
        campaign=campaign, user=gm
    )
    for command in (*GUARDS, {"type": "start"}):
        encounter, _record, _after = combat_services.command_run(
            encounter=encounter, membership=membership, data=command, version=encounter.version
        )
    return encounter


def send_command(server_url: str, encounter: Encounter, session_key: str, command: dict):
    """The JSON API's POST of a command, as a bot or the page sends it (session, CSRF)."""
    url = urlparse(server_url)
    client = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        client.request(
            "POST",
            reverse("combat:api_command", args=[encounter.pk]),
            body=json.dumps({"version": encounter.version, "command": command}),
            headers={
                "Cookie": f"csrftoken={CSRF_TOKEN}; sessionid={session_key}",
                "X-CSRFToken": CSRF_TOKEN,
                "Content-Type": "application/json",
            },
        )
        response = client.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        client.close()


class RedisNotices:
    """What the servers publish on Redis for one campaign (its channel, named after the
    test database), heard by this test: the event numbers that travelled through Redis."""

    def __init__(self, campaign_id: int):
        import redis

        from campaign_log.broadcast import channel_prefix

        self.pubsub = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5).pubsub()
        self.pubsub.subscribe(f"{channel_prefix()}{campaign_id}")
        self.pubsub.get_message(timeout=2)  # the subscribe confirmation
        self.seqs: list[int] = []

    def read_until(self, seqs: set[int], seconds: float) -> list[int]:
        deadline = time.monotonic() + seconds
        while not seqs <= set(self.seqs) and (left := deadline - time.monotonic()) > 0:
            message = self.pubsub.get_message(ignore_subscribe_messages=True, timeout=left)
            if message is None:
                continue
            mark, _, text = message["data"].decode().partition(".")
            assert mark == signature(text)  # signed with the site's SECRET_KEY
            notice = json.loads(text)
            whole = notice.get("message")
            self.seqs.append(int(whole["seq"] if isinstance(whole, dict) else notice["seq"]))
        return self.seqs

    def close(self) -> None:
        self.pubsub.close()


def settle(pages) -> None:
    """Whatever else arrives in the next 0.3 s (nothing should: no event twice)."""
    time.sleep(0.3)
    for page in pages:
        page.read_for(0.01)


def test_a_roll_and_a_command_reach_the_pages_of_both_processes(hosted, campaign, gm, alice):
    first, second = hosted(2)
    encounter = started_encounter(campaign, gm)
    seq = Campaign.objects.get(pk=campaign.pk).event_seq
    gm_key, alice_key = session_for(gm), session_for(alice)
    pages = {
        (server_name, who): open_stream(server.url, campaign, key, after=seq)
        for server_name, server in (("first", first), ("second", second))
        for who, key in (("gm", gm_key), ("alice", alice_key))
    }
    notices = RedisNotices(campaign.pk)
    try:
        sent = time.monotonic()
        rolled = post_roll(first.url, campaign, alice_key)  # the table's form, htmx + CSRF
        assert rolled.seq == seq + 1
        status, answer = send_command(second.url, encounter, gm_key, {"type": "skip"})
        assert status == 200, answer
        assert answer["version"] == encounter.version + 1
        seen = {}
        for name, page in pages.items():
            page.read_until(rf"^id: {seq + 2}$", 10)
            seen[name] = time.monotonic() - sent
        published = notices.read_until({seq + 1, seq + 2}, 2)
        settle(pages.values())
    finally:
        notices.close()
        for page in pages.values():
            page.close()
    print(
        "\nboth events on every page after s: "
        + ", ".join(f"{server}/{who} {seconds:.2f}" for (server, who), seconds in seen.items())
    )
    for name, page in pages.items():
        assert page.ids() == [seq + 1, seq + 2], (name, page.text)
        roll, command = re.split(rf"^id: {seq + 1}$", page.text, flags=re.M)[1].split(
            f"id: {seq + 2}"
        )
        assert "alice" in roll, (name, roll)
        assert "gunnar" in command or "Vakten" in command or "Tjuven" in command, (name, command)
    # The processes told each other through Redis (the database poll is only the net).
    assert {seq + 1, seq + 2} <= set(published), published


def test_one_server_with_two_workers_shares_a_table_between_them(
    hosted, campaign, gm, alice, bob, django_user_model
):
    (server,) = hosted(1, WORKERS="2")
    deadline = time.monotonic() + 10
    while len(worker_pids(server)) < 2:
        assert time.monotonic() < deadline, "granian did not start two workers"
        time.sleep(0.1)
    players = [
        django_user_model.objects.create_user(username=f"spelare-{n}", password="!")
        for n in range(21)
    ]
    Membership.objects.bulk_create(
        Membership(campaign=campaign, user=player, seat=3 + n) for n, player in enumerate(players)
    )
    members = [gm, alice, bob, *players]
    pages, spread = [], {}  # the streams each worker holds
    # Eight pages, more while the kernel gave every connection to one worker.
    for member in members:
        if len(pages) >= 8 and len(spread) > 1:
            break
        page = open_stream(server.url, campaign, session_for(member))
        pages.append(page)
        worker = worker_of_connection(server, page.sock.getsockname()[1])
        if worker is not None:
            spread[worker] = spread.get(worker, 0) + 1
    print(f"\n{len(pages)} streams over the workers: {spread}")
    if len(spread) < 2:
        for page in pages:
            page.close()
        pytest.skip(f"every one of {len(pages)} connections went to one worker: {spread}")
    try:
        # Three rolls, each on its own connection (whichever worker takes it).
        rolls = [post_roll(server.url, campaign, session_for(alice)).seq for _ in range(3)]
        assert rolls == [1, 2, 3]
        for page in pages:
            page.read_until(r"^id: 3$", 10)
        settle(pages)
    finally:
        for page in pages:
            page.close()
    for page in pages:
        assert page.ids() == [1, 2, 3], page.text


def test_rolls_posted_at_once_to_two_processes_reach_every_page_in_order(
    hosted, campaign, gm, alice, bob
):
    """Rolls POSTed at the same moment to two processes: every page of both gets every
    roll, in the campaign's order, once."""
    first, second = hosted(2)
    keys = {user: session_for(user) for user in (gm, alice, bob)}
    pages = [
        open_stream(server.url, campaign, keys[user])
        for server in (first, second)
        for user in (gm, alice)
    ]
    answers, errors = [], []

    def roll(server, user):
        try:
            answers.append(post_roll(server.url, campaign, keys[user]).seq)
        except Exception as error:  # reported below, not lost in the thread
            errors.append(error)

    threads = [
        threading.Thread(target=roll, args=(server, user))
        for _ in range(3)
        for server, user in ((first, alice), (second, bob))
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
        assert not errors, errors
        assert sorted(answers) == list(range(1, 7))
        for page in pages:
            page.read_until(r"^id: 6$", 10)
        settle(pages)
    finally:
        for page in pages:
            page.close()
    for page in pages:
        assert page.ids() == [1, 2, 3, 4, 5, 6], page.text


def test_a_process_that_loses_its_database_catches_up_without_losing_an_event(
    hosted, tmp_path, campaign, gm, alice
):
    """The second process's database connection is cut (PostgreSQL behind a forwarder
    that goes down) while the first process goes on storing rolls, a secret one among
    them; when it is back, every open page of the second process has every event, in
    order, once, without reconnecting."""
    from django.db import connection

    from tests.core.test_outage import ServerDatabase

    if connection.vendor != "postgresql":
        pytest.skip("cuts the database's connection: PostgreSQL (SQLite is a file)")
    database = ServerDatabase(tmp_path)
    database.back()
    try:
        first, second = hosted(2, each=({}, database.env()))
        gm_key, alice_key = session_for(gm), session_for(alice)
        pages = [open_stream(second.url, campaign, key) for key in (gm_key, alice_key)]
        assert post_roll(first.url, campaign, alice_key).seq == 1
        for page in pages:
            page.read_until(r"^id: 1$", 10)

        database.away()
        cut = time.monotonic()
        assert post_roll(first.url, campaign, alice_key).seq == 2
        # The GM's secret roll: Redis carries its number only, so B reads it.
        assert post_roll(first.url, campaign, gm_key, secret=True).seq == 3
        assert post_roll(first.url, campaign, alice_key).seq == 4
        time.sleep(1.0)  # the second process hears of them while it cannot read them
        database.back()
        for page in pages:
            page.read_until(r"^id: 4$", 10)
        recovered = time.monotonic() - cut
        settle(pages)
    finally:
        database.away()
    print(f"\nevery event on the second process's pages {recovered:.2f} s after the cut")
    for page in pages:
        assert not page.ended, page.text  # the same stream all along
        assert page.ids() == [1, 2, 3, 4], page.text
        page.close()
    log = second.log.read_text()
    assert "database unavailable" in log, log  # the second process did feel the cut
    assert "database back after" in log, log
    assert "Traceback" not in log, log


def get_json(server_url: str, path: str, session_key: str):
    url = urlparse(server_url)
    client = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        client.request("GET", path, headers={"Cookie": f"sessionid={session_key}"})
        response = client.getresponse()
        return response.status, response.read()
    finally:
        client.close()


def guards_set_up(campaign, gm) -> Encounter:
    """Two NPCs of the GM, the fight not started."""
    encounter = Encounter.objects.create(campaign=campaign, name="Bakgården", system="aoristos")
    membership = Membership.objects.select_related("campaign", "user").get(
        campaign=campaign, user=gm)
    for command in GUARDS:
        encounter, _record, _after = combat_services.command_run(
            encounter=encounter, membership=membership, data=command, version=encounter.version)
    return encounter


def ended(run: Simulation, seconds: float = 60) -> Simulation:
    deadline = time.monotonic() + seconds
    while run.status == Simulation.Status.RUNNING and time.monotonic() < deadline:
        time.sleep(0.05)
        run.refresh_from_db()
    return run


def test_a_run_queued_by_a_busy_process_is_played_by_a_free_one(hosted, gm, campaign):
    """Issue 46, "a run started on one process may play anywhere": the process that
    started a run (here this test's, its simulation thread taken) is busy; a free server
    process claims the queued row, plays it and stores its result once, in the row. The
    same seed played here afterwards gives the same report."""
    encounter = guards_set_up(campaign, gm)
    servers = hosted(2)
    hold = threading.Event()
    busy = simulations.executor().submit(hold.wait)  # this process plays nothing
    try:
        run = ended(simulations.start(encounter, gm, precision=5, seed=4646))
    finally:
        hold.set()
        busy.result(60)
    assert run.status == Simulation.Status.DONE, (run.status, run.error)
    host, pid = run.claimed_by.rsplit(":", 1)
    assert int(pid) in [p for server in servers for p in worker_pids(server)], run.claimed_by
    assert run.result["stopped"] == "precise"
    again = ended(simulations.start(encounter, gm, precision=5, seed=4646))  # played anywhere
    assert again.status == Simulation.Status.DONE
    assert again.result == run.result
    assert encounter.simulations.count() == 2


def test_a_simulation_started_on_one_process_is_played_and_shown_on_both(
        hosted, gm, campaign):
    """Issue 46: the GM asks one server process how dangerous a fight is; its worker
    processes play the run, the row holds its progress and its result once, and the
    other process shows the same answer (the API and the page's section)."""
    encounter = guards_set_up(campaign, gm)
    first, second = hosted(2)
    session = session_for(gm)
    api = reverse("combat:api_simulation", args=[encounter.pk])
    url = urlparse(first.url)
    client = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    client.request("POST", api, body=json.dumps({"precision": 5, "seed": 46}), headers={
        "Cookie": f"csrftoken={CSRF_TOKEN}; sessionid={session}", "X-CSRFToken": CSRF_TOKEN,
        "Content-Type": "application/json"})
    started = client.getresponse()
    assert started.status == 202, started.read()
    run_id = json.loads(started.read())["simulation"]["id"]
    client.close()
    deadline = time.monotonic() + 60
    while True:
        status, body = get_json(second.url, api, session)
        assert status == 200
        shown = json.loads(body)["simulation"]
        if shown["status"] != "running" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert (shown["id"], shown["status"]) == (run_id, "done")
    assert json.loads(get_json(first.url, api, session)[1])["simulation"] == shown
    assert shown["report"]["stopped"] == "precise"
    section = reverse("combat:simulate", args=[encounter.pk])
    pages = [get_json(server.url, section, session)[1].decode() for server in (first, second)]
    for page in pages:  # in Swedish, the site's first language
        assert 'data-testid="simulation-result"' in page
        assert 'data-testid="simulation-precision"' in page
    token = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')  # each answer its own
    assert token.sub("", pages[0]) == token.sub("", pages[1])
    assert encounter.simulations.count() == 1
