"""What travels on Redis between server processes (campaign_log.broadcast.wire): an event every
member may see all of goes whole, so other processes show it without reading the
database; a secret roll, or a combat record whose GM lines differ from the players', goes
as its number only, so no secret leaves the database."""

import json

import pytest

from campaign_log import broadcast
from rules.aoristos import dice as hands
from table import services

pytestmark = pytest.mark.django_db


def heard_elsewhere(message) -> dict | None:
    """What another process hears of `message` (as if this process had another name)."""
    mark, _, text = broadcast.wire(message).partition(".")
    assert mark == broadcast.signature(text)
    data = json.loads(text)
    data["from"] = "another process"
    return broadcast.unwire(broadcast.sign(json.dumps(data)).encode())


def test_a_roll_everyone_sees_travels_whole(campaign, gm):
    event = services.roll_record(
        campaign=campaign, actor=gm, hand=hands.parse_hand("2B"), label="Klättra"
    )
    message = services.payload(event)
    assert heard_elsewhere(message) == json.loads(json.dumps(message))


def test_a_secret_roll_travels_as_its_number_only(campaign, gm):
    event = services.roll_record(
        campaign=campaign, actor=gm, hand=hands.parse_hand("2B"), label="Fällan", secret=True
    )
    text = broadcast.wire(services.payload(event))
    assert "Fällan" not in text
    assert "2B" not in text
    assert heard_elsewhere(services.payload(event)) == {"seq": event.seq}


def test_a_record_whose_gm_lines_differ_travels_as_its_number_only():
    base = {"seq": 7, "kind": "combat", "secret": False, "lines": [{"kind": "Hit", "to": 3}]}
    hidden = base | {"players": {"lines": [{"kind": "Hit"}]}}
    shown = base | {"players": {"lines": [{"kind": "Hit", "to": 3}]}}
    assert heard_elsewhere(hidden) == {"seq": 7}
    assert heard_elsewhere(shown)["lines"] == [{"kind": "Hit", "to": 3}]


def test_a_large_message_travels_as_its_number_only():
    message = {"seq": 3, "kind": "notice-journal", "secret": False,
               "text": "x" * (broadcast.WHOLE_MAX_BYTES + 1)}
    assert heard_elsewhere(message) == {"seq": 3}


def test_a_process_skips_its_own_messages_and_garbled_ones():
    message = {"seq": 1, "kind": "member-joined", "secret": False}
    assert broadcast.unwire(broadcast.wire(message).encode()) is None
    assert broadcast.unwire(b"not json") is None
    assert broadcast.unwire(broadcast.sign("not json").encode()) is None
    assert broadcast.unwire(broadcast.sign('{"from": "x", "seq": "one"}').encode()) is None
    assert broadcast.unwire(b"\xff\xfe") is None


def test_only_what_this_site_signed_is_taken(settings):
    """A notice not signed with this site's SECRET_KEY (anyone else who can write to the
    Redis, or a process with another key) is ignored: the lines it carries are HTML the
    pages would show as they are."""
    forged = json.dumps({"from": "x", "message": {
        "seq": 4, "kind": "member-joined", "secret": False,
        "rendered": {"all:sv": "<li><script>alert(1)</script></li>"}}})
    assert broadcast.unwire(forged.encode()) is None
    assert broadcast.unwire(f"{'0' * 32}.{forged}".encode()) is None
    signed = broadcast.sign(forged).encode()
    assert broadcast.unwire(signed)["seq"] == 4
    settings.SECRET_KEY = "another site's key " * 3
    assert broadcast.unwire(signed) is None


def test_the_channels_are_named_after_the_database(settings):
    settings.REDIS_CHANNEL_PREFIX = ""
    name = str(settings.DATABASES["default"]["NAME"]).rsplit("/", 1)[-1]
    assert broadcast.channel_prefix() == f"aoristos:{name}:campaign:"
    settings.REDIS_CHANNEL_PREFIX = "site-b:"
    assert broadcast.channel_prefix() == "site-b:"
