"""Issue 30: a damaged, foreign or hostile archive is refused with a reason and changes
nothing; the importer never fails any other way (which a page would show as "failed on
this server"), whatever the file holds. Hand-made hostile archives first, then
hypothesis's mutations of a real one."""

import io
import json
import os
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from archive import format as fmt
from archive.export import campaign_archive
from archive.importer import Importer
from campaigns.models import Campaign
from characters.models import Character, DpEntry
from combat import services
from combat.models import CombatRecord, Encounter, MapPicture
from tests.archive.test_roundtrip import PNG, play_to_the_end
from tests.archive.test_views import rezipped
from tests.combat import kinds

pytestmark = pytest.mark.django_db


@pytest.fixture
def whole(client, gm, alice, django_capture_on_commit_callbacks) -> bytes:
    """The GM's archive of an Aoristos campaign with a fight played to its end, a map
    picture, a ledger with an undo, a journal post and its notice, and the chronicle."""
    with django_capture_on_commit_callbacks(execute=True):
        one = kinds.make("aoristos", client, gm, alice)
        MapPicture.objects.create(encounter=one.encounter, content=PNG,
                                  content_type="image/png", width_px=4, height_px=3)
        play_to_the_end(one.encounter, gm)
        campaign = one.encounter.campaign
        spend = DpEntry.objects.create(character=one.character, kind="spend", amount=-2,
                                       key="firearms", dp_before=10, dp_after=8)
        DpEntry.objects.create(character=one.character, kind="undo", amount=2, undoes=spend,
                               dp_before=8, dp_after=10)
        client.post(f"/campaigns/{campaign.pk}/journal/", {"title": "Första", "body": "x"})
        client.post(f"/campaigns/{campaign.pk}/table/roll/", {"mode": "hand", "hand": "2B",
                                                              "purpose": "test"})
        services.chronicle_sync(services.chronicle_for(campaign),
                                campaign.memberships.get(user=gm))
    membership = campaign.memberships.select_related("user").get(user=gm)
    return b"".join(campaign_archive(campaign, membership))


def counts() -> tuple:
    return (Campaign.objects.count(), Character.objects.count(), Encounter.objects.count(),
            CombatRecord.objects.count(), get_user_model().objects.count())


def outcome(data: bytes, user, tmp_path) -> str | None:
    """The importer's refusal (None: imported). Anything but ArchiveError fails the test."""
    path = tmp_path / "fuzz.zip"
    path.write_bytes(data)
    before = counts()
    try:
        with fmt.Archive(path) as archive:
            made = Importer(archive, user).run()
    except fmt.ArchiveError as error:
        assert counts() == before  # nothing stayed
        services.forget()
        return str(error)
    made.delete()
    return None


def change_line(table: str, change):
    """A rezip change that rewrites each row of `table` with `change(row) -> row`."""
    def rewrite(name, content):
        if name != f"{table}.jsonl":
            return content
        rows = [json.loads(line) for line in content.splitlines() if line.strip()]
        return b"".join(json.dumps(change(row)).encode() + b"\n" for row in rows)
    return rewrite


def first_only(change):
    """`change` applied to the first row only."""
    done = []

    def once(row):
        if done:
            return row
        done.append(1)
        return change(row)
    return once


def with_events(change):
    def rewrite(row):
        row["events"] = change(row["events"])
        return row
    return rewrite


def set_character_ids(value, new):
    if isinstance(value, list):
        return [set_character_ids(v, new) for v in value]
    if isinstance(value, dict):
        return {k: (new if k == "character_id" and v is not None else set_character_ids(v, new))
                for k, v in value.items()}
    return value


def zip_of(members: dict[str, bytes], *, compression=zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=compression) as z:
        for name, content in members.items():
            z.writestr(name, content)
    return out.getvalue()


def test_hostile_archives_are_refused_with_their_reason(whole, gm, alice, tmp_path):
    other = Character.objects.create(owner=alice, name="Någon annans")  # on this server
    manifest = json.dumps({"format": fmt.FORMAT, "schema": 2, "audience": "gm"}).encode()
    bomb = zip_of({"manifest.json": manifest, "records.jsonl": b"\n" * (60 * 1024 * 1024)})
    cases = {
        "a zip bomb": (bomb, "zip bomb"),
        "a file outside the format": (zip_of({"manifest.json": manifest,
                                              "../../etc/passwd": b"x"}),
                                      "no campaign archive has"),
        "a huge picture": (zip_of({"manifest.json": manifest,
                                   "pictures/1.png": bytes(6 * 1024 * 1024)},
                                  compression=zipfile.ZIP_STORED), "at most"),
        "not JSON in a line": (rezipped(whole, lambda n, c: c + b"{nope\n"
                                        if n == "rolls.jsonl" else c), "not JSON"),
        "a line that is no object": (rezipped(whole, lambda n, c: c + b"[1, 2]\n"
                                              if n == "rolls.jsonl" else c), "JSON object"),
        "JSON nested too deep": (rezipped(whole, lambda n, c: c + b"[" * 100_000 + b"\n"
                                          if n == "notices.jsonl" else c), "not JSON"),
        "a number of ten thousand digits": (rezipped(
            whole, lambda n, c: c + b'{"seq": ' + b"9" * 10_000 + b"}\n"
            if n == "notices.jsonl" else c), "not JSON"),
        "a record of a fight it lacks": (rezipped(whole, change_line("records", first_only(
            lambda r: {**r, "encounter": 999_999}))), "fight the archive does not hold"),
        "a character of another campaign": (rezipped(whole, change_line("records", first_only(
            with_events(lambda e: set_character_ids(e, other.pk))))),
            "character the archive does not hold"),
        "a roll of a character it lacks": (rezipped(whole, change_line("rolls", lambda r: {
            **r, "character": other.pk})), "character the archive does not hold"),
        "a picture it lacks": (rezipped(whole, lambda n, c: None if n.startswith("pictures/")
                                        else c), "picture the archive does not hold"),
        "an undo of another ledger's spend": (rezipped(whole, change_line(
            "characters", lambda r: {**r, "ledger": [
                {**e, "undoes": 424242} if e["undoes"] else e for e in r["ledger"]]})),
            "undoes an entry"),
        "a notice linking a post it lacks": (rezipped(whole, change_line("notices", lambda r: {
            **r, "data": {**r["data"], "url": "/campaigns/1/journal/#entry-777"}}
            if "url" in r["data"] else r)), "journal post the archive does not hold"),
        "a version its log does not reach": (rezipped(whole, change_line(
            "encounters", lambda r: {**r, "version": r["version"] + 3})), "its log holds"),
        "events no engine can replay": (rezipped(whole, change_line("records", first_only(
            lambda r: {**r, "events": [{"_": "NoSuchEvent", "x": 1}]}))),
            "cannot be replayed"),
        "an event number used twice": (rezipped(whole, change_line(
            "notices", lambda r: {**r, "seq": 1})), "used twice"),
        "a time that is none": (rezipped(whole, change_line("journal", lambda r: {
            **r, "created_at": "igår"})), "created_at"),
        "a negative UP budget": (rezipped(whole, change_line("characters", lambda r: {
            **r, "dp_budget": -1})), "dp_budget"),
        "a username that is none": (rezipped(whole, change_line("characters", lambda r: {
            **r, "owner": "a b/c"})), "not a username"),
        "an unknown field": (rezipped(whole, change_line("journal", lambda r: {
            **r, "admin": True})), "unknown field"),
        "a rule system it does not have": (rezipped(whole, lambda n, c: c.replace(
            b'"aoristos"', b'"dnd"', 1) if n == "campaign.json" else c), "rule system"),
    }
    for label, case in cases.items():
        data, reason = case
        refused = outcome(data, gm, tmp_path)
        assert refused is not None, label
        assert reason in refused, (label, refused)
    # The archive itself imports: the refusals above are the changes', not the fixture's.
    assert outcome(whole, gm, tmp_path) is None
    assert connection.vendor in ("sqlite", "postgresql")


MUTATIONS = st.sampled_from(["flip", "truncate", "value", "drop-key", "swap-type"])


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "150")), deadline=None,
          derandomize=not os.environ.get("FUZZ_EXAMPLES"),
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_mutated_archive_is_imported_or_refused_never_a_crash(whole, gm, tmp_path, data):
    with zipfile.ZipFile(io.BytesIO(whole)) as z:
        names = sorted(n for n in z.namelist() if not n.startswith("pictures/"))
    member = data.draw(st.sampled_from(names), label="member")
    mutation = data.draw(MUTATIONS, label="mutation")

    def change(name, content):
        if name != member:
            return content
        if mutation == "flip":
            at = data.draw(st.integers(0, max(0, len(content) - 1)), label="at")
            byte = data.draw(st.integers(0, 255), label="byte")
            return content[:at] + bytes([byte]) + content[at + 1:]
        if mutation == "truncate":
            return content[:data.draw(st.integers(0, len(content)), label="cut")]
        lines = content.splitlines() if name.endswith(".jsonl") else [content]
        if not lines:
            return content
        n = data.draw(st.integers(0, len(lines) - 1), label="line")
        row = json.loads(lines[n])
        if not isinstance(row, dict) or not row:
            return content
        key = data.draw(st.sampled_from(sorted(row)), label="key")
        if mutation == "drop-key":
            del row[key]
        elif mutation == "swap-type":
            row[key] = data.draw(st.sampled_from([None, "", 0, -1, 2**63, [], {}, "x" * 300,
                                                  True, 1.5]), label="swapped")
        else:
            row[key] = data.draw(st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                lambda inner: st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8),
                label="value")
        lines[n] = json.dumps(row).encode()
        return b"\n".join(lines) + b"\n"

    outcome(rezipped(whole, change), gm, tmp_path)


def test_a_damaged_zip_is_refused(whole, gm, tmp_path):
    for cut in (10, len(whole) // 2, len(whole) - 30):
        refused = outcome(whole[:cut], gm, tmp_path)
        assert refused is not None
    flipped = bytearray(whole)
    at = whole.index(b"records.jsonl") + 200  # inside the compressed records
    flipped[at] ^= 0xFF
    assert outcome(bytes(flipped), gm, tmp_path) is not None
