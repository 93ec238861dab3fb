"""Every event to every page, once and in order, whatever commits while the log is read.

The campaign's events live in four tables (rolls, membership changes, notices, combat
records) numbered in one sequence. A page's stream, its hub and a reconnecting page's
catch-up read them back; a roll that commits while that read is under way, followed by a
combat record, once came back as [..., N+1] without N, and the stream stepped over N for
good (issue 23). These tests force that interleaving: a writer commits between the
reads.
"""

import asyncio
import http.client
import json
import logging
import threading
import time
from urllib.parse import urlparse

import pytest
from asgiref.sync import sync_to_async
from django.db import connection, connections
from django.urls import reverse

from campaign_log import reading
from campaign_log import stream as stream_module
from campaigns.models import Campaign
from combat import services as combat_services
from combat.models import CombatRecord, Encounter
from rules.aoristos import dice as hands
from table import services
from tests.table.test_faults import CSRF_TOKEN, open_stream, post_roll, session_for
from tests.table.test_stream import Stream, roll, run, settled

pytestmark = pytest.mark.django_db(transaction=True)


def npc(name: str) -> dict:
    return {"type": "add_combatant", "name": name, "side": "b", "x": 5.0, "alertness": 2,
            "agility": 2, "physique": 3}


class Writer:
    """Commits a roll and then a combat record from a thread of its own (its own database
    connection, as another request would), when called."""

    def __init__(self, campaign, gm):
        self.campaign, self.gm = campaign, gm
        self.encounter = Encounter.objects.create(campaign=campaign, name="Gränden",
                                                  system="aoristos")
        self.membership = campaign.memberships.get(user=gm)
        self.seqs: list[int] = []

    def write(self) -> None:
        try:
            rolled = services.roll_record(campaign=self.campaign, actor=self.gm,
                                          hand=hands.Hand.of(1))
            self.encounter.refresh_from_db()
            _encounter, record, _after = combat_services.command_run(
                membership=self.membership, data=npc(f"Vakt {rolled.seq}"),
                version=self.encounter.version, encounter_id=self.encounter.pk,
            )
            self.seqs += [rolled.seq, record.seq]
        finally:
            connections.close_all()

    def __call__(self) -> None:
        thread = threading.Thread(target=self.write)
        thread.start()
        thread.join()


def between_reads(writer: Writer, after_query: int = 1):
    """An execute wrapper for the reading connection: after its `after_query`-th query,
    the writer commits (once)."""
    count = 0

    def wrapper(execute, sql, params, many, context):
        nonlocal count
        result = execute(sql, params, many, context)
        count += 1
        if count == after_query:
            writer()
        return result

    return wrapper


def test_a_read_of_the_log_never_skips_a_number_that_commits_during_it(campaign, gm):
    """events_after: one statement (one snapshot), so what it returns runs on without a
    hole, and what the writer commits after it comes with the next read."""
    writer = Writer(campaign, gm)
    first = services.roll_record(campaign=campaign, actor=gm, hand=hands.Hand.of(1))
    with connection.execute_wrapper(between_reads(writer)):
        read = [m["seq"] for m in reading.events_after(campaign.pk, 0, is_gm=True)]
    assert len(writer.seqs) == 2, "the writer did not commit between the reads"
    assert read == list(range(1, read[-1] + 1))
    assert read[0] == first.seq
    # The next read brings what committed during the first, in order.
    rest = [m["seq"] for m in reading.events_after(campaign.pk, read[-1], is_gm=True)]
    assert read + rest == list(range(1, writer.seqs[-1] + 1))


def test_a_page_of_the_log_never_skips_a_number_that_commits_during_it(campaign, gm):
    """events_page (the table's first page and older pages): the newest events it shows
    run down without a hole, so the stream that starts after the newest misses nothing."""
    writer = Writer(campaign, gm)
    for _ in range(3):
        services.roll_record(campaign=campaign, actor=gm, hand=hands.Hand.of(1))
    with connection.execute_wrapper(between_reads(writer)):
        page, _older = reading.events_page(campaign.pk, before=None, is_gm=True)
    assert len(writer.seqs) == 2
    shown = sorted(m["seq"] for m in page)
    assert shown == list(range(1, shown[-1] + 1))


def test_the_stream_delivers_a_number_that_commits_while_the_hub_reads(
    campaign, gm, alice, monkeypatch
):
    """On one process: the hub catches up (a broadcast missed) while a roll and a combat
    record commit between its reads; every page gets every event once, in order."""
    writer = Writer(campaign, gm)
    real = reading.events_after
    forced = []

    def reading_with_a_writer_between(campaign_id, after, **kwargs):
        if forced:
            return real(campaign_id, after, **kwargs)
        forced.append(after)
        with connection.execute_wrapper(between_reads(writer)):
            return real(campaign_id, after, **kwargs)

    async def scenario():
        pages = [await Stream(user, campaign.pk, after=0).open() for user in (gm, alice)]
        await pages[0].read_until(r"retry: ")
        monkeypatch.setattr(reading, "events_after", reading_with_a_writer_between)
        # Stored without a broadcast: the hub hears the next one and reads what it missed.
        await sync_to_async(quiet_roll)(campaign, gm)
        await roll(campaign, gm)
        # 1: the quiet roll, 2: the broadcast one, 3 and 4: the writer's roll and record.
        for page in pages:
            await page.read_until(r"id: 4\n")
        assert forced, "the hub never read from the database"
        assert writer.seqs == [3, 4]
        for page in pages:
            assert page.ids() == [1, 2, 3, 4]
            await page.close()

    run(scenario)


def quiet_roll(campaign, gm):
    """A roll stored as the table stores it, whose broadcast is lost."""
    event = services.RollEvent(
        campaign=campaign, actor=gm, kind="hand", hand="1B", dice=[3], counted=[3], result=3,
    )
    from django.utils import timezone

    event.created_at = timezone.now()
    assert services.insert(event)
    return event


def test_a_hole_in_a_read_is_read_again_not_stepped_over(campaign, gm, alice, monkeypatch):
    """Should a read ever come back with a hole (N missing, N+1 there), the hub holds at
    N-1 and reads again until N is there: no page steps over it."""
    real = reading.events_after
    holes = []

    def a_read_with_a_hole(campaign_id, after, **kwargs):
        found = real(campaign_id, after, **kwargs)
        if not holes and len(found) >= 2:
            holes.append(found[0]["seq"])
            return found[1:]
        return found

    async def scenario():
        pages = [await Stream(user, campaign.pk, after=0).open() for user in (gm, alice)]
        await pages[0].read_until(r"retry: ")
        await settled(campaign.pk)  # its head read before the quiet rolls (see below)
        monkeypatch.setattr(reading, "events_after", a_read_with_a_hole)
        await sync_to_async(quiet_roll)(campaign, gm)
        await sync_to_async(quiet_roll)(campaign, gm)
        await roll(campaign, gm)
        for page in pages:
            await page.read_until(r"id: 3\n")
        assert holes == [1]
        for page in pages:
            assert page.ids() == [1, 2, 3]
            await page.close()

    run(scenario)


def test_a_number_that_never_comes_is_logged_and_passed_after_a_bounded_wait(
    campaign, gm, alice, monkeypatch, caplog
):
    """A number missing for good (a row deleted by hand, say) holds the table no longer
    than GAP_WAIT_SECONDS; the log says which number and the pages go on."""
    monkeypatch.setattr(stream_module, "GAP_WAIT_SECONDS", 0.3)
    real = reading.events_after

    def number_two_is_gone(campaign_id, after, **kwargs):
        return [m for m in real(campaign_id, after, **kwargs) if m["seq"] != 2]

    async def scenario():
        page = await Stream(alice, campaign.pk, after=0).open()
        await page.read_until(r"retry: ")
        # The hub reads where the log ends as it starts, after the page has its first
        # bytes. On a loaded machine that read came after the quiet rolls: the hub began
        # at number 2, the page's catch-up up to it found nothing (number 2 is hidden
        # here, not gone), and 3 then followed 2 at once (it failed once, 3 arriving
        # 0.003 s after the roll). With number 2 really stored, the catch-up reads it.
        await settled(campaign.pk)
        monkeypatch.setattr(reading, "events_after", number_two_is_gone)
        await sync_to_async(quiet_roll)(campaign, gm)
        await sync_to_async(quiet_roll)(campaign, gm)
        started = asyncio.get_running_loop().time()
        await roll(campaign, gm)
        await page.read_until(r"id: 3\n")
        waited = asyncio.get_running_loop().time() - started
        assert page.ids() == [1, 3]
        assert 0.3 <= waited < 2.0, waited
        await page.close()

    with caplog.at_level(logging.WARNING, logger="campaign_log.stream"):
        run(scenario)
    lines = [r.getMessage() for r in caplog.records if r.name == "campaign_log.stream"]
    assert any("event 2" in line and f"campaign {campaign.pk}" in line for line in lines), lines


# Two server processes, Redis killed and restarted mid-run ------------------------------------


def post_command(server_url: str, encounter, session_key: str, version: int, command: dict):
    """The JSON API's command POST, as a client of the API makes it: (status, body)."""
    url = urlparse(server_url)
    client = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        client.request(
            "POST", reverse("combat:api_command", args=[encounter.pk]),
            body=json.dumps({"version": version, "command": command}),
            headers={"Cookie": f"csrftoken={CSRF_TOKEN}; sessionid={session_key}",
                     "X-CSRFToken": CSRF_TOKEN, "Content-Type": "application/json"},
        )
        response = client.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        client.close()


def test_every_page_on_two_processes_gets_every_event_once_through_a_redis_restart(
    servers, private_redis, campaign, gm, alice
):
    """Rolls on both processes and combat commands on one, all at once, while Redis is
    killed and started again: each of four pages (GM and player on each process) gets
    every number from 1 to the last, once and in order."""
    env = {"REDIS_URL": private_redis.url}
    first, second = servers.start(env), servers.start(env)
    gm_key, alice_key = session_for(gm), session_for(alice)
    encounter = Encounter.objects.create(campaign=campaign, name="Hamnen", system="aoristos")
    pages = [open_stream(server.url, campaign, key)
             for server in (first, second) for key in (gm_key, alice_key)]
    private_redis.wait_for_pattern_subscribers(2, seconds=10)
    stop = threading.Event()
    stored: list[int] = []
    failures: list[str] = []

    def rolls(server, key):
        while not stop.is_set():
            stored.append(post_roll(server.url, campaign, key).seq)

    def commands(server):
        version = 0
        while not stop.is_set():
            status, body = post_command(server.url, encounter, gm_key, version,
                                        npc(f"Vakt {version}"))
            if status != 200:
                failures.append(f"{status} {body}")
                return
            version = body["version"]

    workers = [threading.Thread(target=rolls, args=(first, alice_key)),
               threading.Thread(target=rolls, args=(second, gm_key)),
               threading.Thread(target=commands, args=(second,))]
    for worker in workers:
        worker.start()
    try:
        time.sleep(1.5)
        private_redis.kill()
        time.sleep(1.5)
        private_redis.start()
        private_redis.wait_for_pattern_subscribers(2, seconds=10)
        time.sleep(1.5)
    finally:
        stop.set()
        for worker in workers:
            worker.join(timeout=20)
    assert not failures, failures
    last = Campaign.objects.values_list("event_seq", flat=True).get(pk=campaign.pk)
    records = CombatRecord.objects.filter(campaign=campaign).count()
    print(f"\n{len(stored)} rolls and {records} combat records, numbers 1-{last}")
    assert len(stored) + records == last
    assert len(stored) >= 20
    assert records >= 10
    for page in pages:
        page.read_until(rf"^id: {last}$", seconds=15)
        assert page.ids() == list(range(1, last + 1))
        page.close()
