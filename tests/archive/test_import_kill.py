"""Issue 30: the server is killed (SIGKILL, as a power cut) half-way through an import.
The data is whole: the part of the campaign it had written (in short transactions, issue
42) is hidden, nobody who can log in is its member, the database passes its integrity
check, the job's page says the import was interrupted once the server is back, what was
written is then deleted, and the same archive then imports whole."""

import http.client
import io
import json
import os
import re
import signal
import time
import uuid
import zipfile
from urllib.parse import urlparse

import pytest
from django.db import connection
from django.urls import reverse

from archive import jobs
from archive.export import campaign_archive
from archive.models import ImportJob
from campaigns.models import Campaign
from characters.models import Character
from table.models import RollEvent
from tests.servers import child_pids, kill_leftover_workers, start_site_server
from tests.table.test_faults import CSRF_TOKEN, request, session_for

pytestmark = pytest.mark.django_db(transaction=True)

ROLLS = 30_000  # enough rows that the import takes a few seconds


def big_archive(campaign, gm) -> bytes:
    """The campaign's archive with ROLLS more rolls in its table's log."""
    membership = campaign.memberships.select_related("user").get(user=gm)
    small = b"".join(campaign_archive(campaign, membership))
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(small)) as source, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            content = source.read(name)
            if name == "rolls.jsonl":
                continue  # written below
            if name == "campaign.json":
                data = json.loads(content)
                first = data["event_seq"] + 1
                data["event_seq"] += ROLLS
                content = json.dumps(data).encode()
            target.writestr(name, content)
        rolls = b"".join(json.dumps({
            "seq": first + n, "actor": gm.username, "character": None, "kind": "hand",
            "label": "", "hand": "2B", "dice": [3, 5], "counted": [3, 5], "result": 8,
            "test_base": None, "threshold": None, "secret": n % 7 == 0, "detail": None,
            "created_at": "2026-11-20T19:30:00+00:00"}).encode() + b"\n" for n in range(ROLLS))
        target.writestr("rolls.jsonl", rolls)
    return out.getvalue()


def upload(server_url: str, session_key: str, data: bytes) -> str:
    """POST the import form as a browser does (multipart); the job page it sends to."""
    boundary = uuid.uuid4().hex
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrfmiddlewaretoken\"\r\n\r\n"
        f"{CSRF_TOKEN}\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"match_usernames\"\r\n\r\non\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"archive\"; "
        f"filename=\"big.zip\"\r\nContent-Type: application/zip\r\n\r\n"
    ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
    url = urlparse(server_url)
    client = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    try:
        client.request("POST", reverse("archive:import"), body=body, headers={
            "Cookie": f"csrftoken={CSRF_TOKEN}; sessionid={session_key}",
            "X-CSRFToken": CSRF_TOKEN, "Referer": server_url + "/",
            "Content-Type": f"multipart/form-data; boundary={boundary}"})
        answer = client.getresponse()
        answer.read()
        assert answer.status == 302, answer.status
        return answer.getheader("Location")
    finally:
        client.close()


def job_state(server_url: str, session_key: str, path: str) -> tuple[str, int]:
    page = request(server_url, "GET", path, session_key, htmx=True).text
    found = re.search(r'data-status="([a-z-]+)" data-done="(\d+)"', page)
    assert found, page[:500]
    return found[1], int(found[2])


def test_a_server_killed_during_an_import_leaves_nothing_and_the_next_import_is_whole(
        tmp_path, gm, alice, campaign):
    Character.objects.create(owner=alice, campaign=campaign, name="Albert")
    data = big_archive(campaign, gm)
    session = session_for(gm)
    before = (Campaign.objects.count(), RollEvent.objects.count())
    server = start_site_server(tmp_path)
    try:
        job = upload(server.url, session, data)
        deadline = time.monotonic() + 60
        while True:  # kill it once it has read a few thousand rows, before it is done
            status, done = job_state(server.url, session, job)
            assert status == "running", (status, done, ImportJob.objects.latest("pk").error)
            if done >= 2000:
                break
            assert time.monotonic() < deadline
            time.sleep(0.05)
        workers = child_pids(server.process.pid)
        os.kill(server.process.pid, signal.SIGKILL)
        kill_leftover_workers(workers)
        server.process.wait(timeout=10)
    finally:
        server.stop()
    # What it wrote is there, hidden: no member who can log in, no usable join code.
    left = Campaign.objects.exclude(pk=campaign.pk)
    assert left.exists()  # it had written rows when it was killed
    for made in left:
        assert not made.memberships.filter(user__is_active=True).exists()
        assert made.join_code != made.join_code.upper()
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA integrity_check")
            assert cursor.fetchall() == [("ok",)]

    server = start_site_server(tmp_path, collectstatic=False)
    try:
        # Once the job has been silent for STALLED seconds (its row says when it last
        # reported).
        deadline = time.monotonic() + jobs.STALLED + 10
        while job_state(server.url, session, job)[0] != "running-interrupted":
            assert time.monotonic() < deadline
            time.sleep(0.5)
        page = request(server.url, "GET", job, session).text
        assert "nothing was imported" in page.lower() or "inget importerades" in page.lower()
        # The page saw it interrupted: what it wrote is deleted on the import thread.
        deadline = time.monotonic() + 60
        while (Campaign.objects.count(), RollEvent.objects.count()) != before:
            assert time.monotonic() < deadline, "the hidden campaign was not deleted"
            time.sleep(0.2)
        assert ImportJob.objects.get(pk=int(job.rstrip("/").split("/")[-1])).campaign is None
        again = upload(server.url, session, data)
        deadline = time.monotonic() + 120
        while (state := job_state(server.url, session, again))[0] == "running":
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert state[0] == "done", state
    finally:
        server.stop()
    made = Campaign.objects.exclude(pk=campaign.pk).get()
    assert RollEvent.objects.filter(campaign=made).count() == ROLLS
    assert made.event_seq == campaign.event_seq + ROLLS
