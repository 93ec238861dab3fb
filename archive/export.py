"""A campaign as one zip file, streamed as it is read (issue 30, docs/archive.md).

Two audiences:

- **The GM's archive** holds the whole campaign as it is stored: every row the importer
  needs to make it again (`archive.importer`), secret rolls and GM notes included and
  marked (`GM_ONLY` in the manifest names where they are).
- **A player's archive** holds what that player sees: the campaign without its GM notes,
  the table's log as the player reads it (a secret roll is only "the GM rolled in
  secret"), each fight as the player's page shows it, their own characters whole and the
  others' public sheets. It is for keeping and reading; it cannot be imported (it lacks
  what only the GM may see, which a fight's log needs).

The zip is written into a sink that the response drains after every few rows: the
archive is never whole in memory. Everything is read in one snapshot of the database
(`snapshot`), so a roll made during the download is either all there or not at all.
"""

import contextlib
import datetime
import json
import re
import zipfile
from collections.abc import Callable, Iterator

from django.contrib.auth import get_user_model
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone

from archive import format as fmt
from campaigns.models import BringRequest, Campaign, JournalEntry, Membership
from characters.models import Character, DpEntry
from combat.models import CatalogueItem, CombatRecord, Encounter, MapPicture, NpcTemplate
from table.models import Handout, MembershipEvent, NoticeEvent, RollEvent

TOWARD = re.compile(r"character:([1-9][0-9]{0,17})")  # whom a social roll was with (T10)
CHUNK = 64 * 1024  # bytes the sink gathers before the response sends them
BATCH = 500  # rows read per query

# Where the GM's archive keeps what players never see.
GM_ONLY = [
    "campaign.json: gm_notes",
    "characters.jsonl: gm_notes",
    "rolls.jsonl: rows with secret true",
    "records.jsonl: events and lines (players read public_lines)",
    "npc_templates.jsonl",
    "handouts.jsonl: rows with a 'to' (one player's; a player's archive holds their own)",
]


def when(value: datetime.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


class Sink:
    """A write-only file for zipfile: what is written waits here until `take`. zipfile
    sees no `tell` or `seek` and writes a streamable zip (sizes after each member)."""

    def __init__(self):
        self.parts: list[bytes] = []
        self.size = 0

    def write(self, data) -> int:
        self.parts.append(bytes(data))
        self.size += len(data)
        return len(data)

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        data = b"".join(self.parts)
        self.parts.clear()
        self.size = 0
        return data


@contextlib.contextmanager
def snapshot():
    """Read the whole campaign from one snapshot. PostgreSQL: a read-only REPEATABLE READ
    transaction. SQLite: a read transaction (BEGIN DEFERRED, then only SELECTs), which WAL
    lets run beside the writers; Django's atomic() would take the write lock here
    (IMMEDIATE, core.db.sqlite3) and stop every roll while the file downloads."""
    if connection.in_atomic_block:  # already one transaction (a test's, a command's)
        yield
        return
    if connection.vendor == "postgresql":
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield
        return
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("BEGIN DEFERRED")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("ROLLBACK")


def usernames() -> Callable[[int | None], str | None]:
    """A user's name by id, each read once when a row first names it (few per
    campaign)."""
    cache: dict[int, str] = {}
    User = get_user_model()

    def name(user_id: int | None) -> str | None:
        if user_id is None:
            return None
        if user_id not in cache:
            cache[user_id] = User.objects.filter(pk=user_id).values_list(
                "username", flat=True).first() or ""
        return cache[user_id]

    return name


def rows(queryset) -> Iterator:
    return queryset.iterator(chunk_size=BATCH)


def character_ids(events, found: set[int]) -> None:
    """Collect every character a stored JSON value names (a record's events, a roll's
    detail, a notice's data, a template's block): each "character_id", and a T10 social
    roll's "toward": "character:<pk>" (docs/archive.md lists where ids are stored)."""
    stack = [events]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            ref = value.get("character_id")
            if isinstance(ref, int) and not isinstance(ref, bool):
                found.add(ref)
            toward = value.get("toward")
            if isinstance(toward, str) and (named := TOWARD.fullmatch(toward)):
                found.add(int(named[1]))
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


class CampaignExport:
    """The members of one campaign's archive, for `audience` "gm" or "player"."""

    def __init__(self, campaign: Campaign, membership: Membership):
        self.campaign = campaign
        self.membership = membership
        self.gm = membership.is_gm
        self.name = usernames()

    # The GM's archive --------------------------------------------------------------------

    def manifest(self, counts: dict) -> dict:
        return {
            "format": fmt.FORMAT,
            "schema": fmt.SCHEMA,
            "audience": "gm" if self.gm else "player",
            "exported_by": self.membership.user.username,
            "exported_at": timezone.now().isoformat(),
            "application": "Aoristos Table",
            "campaign": self.campaign.name,
            "counts": counts,
            **({"gm_only": GM_ONLY} if self.gm else {
                "note": "What this player sees of the campaign. It cannot be imported: "
                        "ask the GM for the campaign's archive."}),
        }

    def counts(self) -> dict:
        c = self.campaign
        counts = {
            "characters": c.characters.count(),
            "journal": c.journal.count(),
            "encounters": c.encounters.count(),
            "records": CombatRecord.objects.filter(campaign=c).count(),
            "rolls": RollEvent.objects.filter(campaign=c).count(),
            "membership_events": MembershipEvent.objects.filter(campaign=c).count(),
            "notices": NoticeEvent.objects.filter(campaign=c).count(),
            "handouts": self.handouts().count(),
        }
        if self.gm:
            counts["pictures"] = MapPicture.objects.filter(encounter__campaign=c).count()
        return counts

    def campaign_row(self) -> dict:
        c = self.campaign
        row = {
            "name": c.name,
            "rule_system": c.rule_system,
            "starting_dp": c.starting_dp,
            "level_cap": c.level_cap,
            "house_rules": c.house_rules,
            "dice_source": c.dice_source,
            "event_seq": c.event_seq,
            "created_at": when(c.created_at),
            "gm": self.name(c.gm_id),
            "members": [
                {"id": m.pk, "user": m.user.username, "role": m.role, "seat": m.seat,
                 "joined_at": when(m.joined_at)}
                for m in c.memberships.select_related("user").order_by("pk")
            ],
        }
        if self.gm:
            row["gm_notes"] = c.gm_notes
        return row

    def character_row(self, ch: Character, *, whole: bool) -> dict:
        row = {
            "id": ch.pk, "owner": self.name(ch.owner_id),
            "in_campaign": ch.campaign_id == self.campaign.pk,
            "name": ch.name, "concept": ch.concept, "rule_system": ch.rule_system,
            "dp_budget": ch.dp_budget, "level_cap": ch.level_cap,
            "attributes": ch.attributes, "skills": ch.skills, "rolled": ch.rolled,
            "created_at": when(ch.created_at), "updated_at": when(ch.updated_at),
            "items": [
                {"name": i.name, "bulk": str(i.bulk), "quantity": i.quantity,
                 "catalogue": i.catalogue}
                for i in ch.items.order_by("pk")
            ],
        }
        if not whole:
            return row
        row["notes"] = ch.notes
        if self.gm:
            row["gm_notes"] = ch.gm_notes
        row["ledger"] = [ledger_row(e, self.name) for e in ch.ledger.order_by("pk")]
        row["favourites"] = [
            {"name": f.name, "properties": f.properties, "free": f.free, "forced": f.forced,
             "threshold": f.threshold, "created_at": when(f.created_at)}
            for f in ch.favourite_tests.order_by("pk")
        ]
        return row

    def gm_members(self) -> Iterator[tuple[str, Iterator[bytes]]]:
        c = self.campaign
        name = self.name
        referenced: set[int] = set()
        yield "encounters.jsonl", fmt.jsonl(self.encounter_rows())
        yield "records.jsonl", fmt.jsonl(self.record_rows(referenced))
        yield "rolls.jsonl", fmt.jsonl(self.roll_rows(referenced))
        yield "membership_events.jsonl", fmt.jsonl(
            {"seq": e.seq, "kind": e.kind, "membership": e.membership_id,
             "username": e.username, "created_at": when(e.created_at)}
            for e in rows(MembershipEvent.objects.filter(campaign=c).order_by("seq"))
        )
        yield "notices.jsonl", fmt.jsonl(self.notice_rows(referenced))
        yield "journal.jsonl", fmt.jsonl(self.journal_rows())
        yield "catalogue.jsonl", fmt.jsonl(self.catalogue_rows())
        yield "npc_templates.jsonl", fmt.jsonl(self.template_rows(referenced))
        requests = list(BringRequest.objects.filter(campaign=c).order_by("pk"))
        referenced.update(r.character_id for r in requests)
        yield "bring_requests.jsonl", fmt.jsonl(
            {"character": r.character_id, "status": r.status, "note": r.note,
             "decided_by": name(r.decided_by_id), "created_at": when(r.created_at),
             "decided_at": when(r.decided_at)}
            for r in requests
        )
        # Last: the campaign's characters and every other one its history names (a
        # character since removed from the campaign still rolled in it), that one by
        # its name only.
        yield "handouts.jsonl", fmt.jsonl(self.handout_rows())
        yield "characters.jsonl", fmt.jsonl(self.character_rows(referenced))

    def notice_rows(self, referenced: set[int]) -> Iterator[dict]:
        for e in rows(NoticeEvent.objects.filter(campaign=self.campaign).order_by("seq")):
            character_ids(e.data, referenced)  # a situation's character
            yield {"seq": e.seq, "kind": e.kind, "actor": e.actor, "data": e.data,
                   "created_at": when(e.created_at)}

    def template_rows(self, referenced: set[int]) -> Iterator[dict]:
        for t in NpcTemplate.objects.filter(campaign=self.campaign).order_by("pk"):
            character_ids(t.block, referenced)
            yield {"name": t.name, "block": t.block, "created_at": when(t.created_at)}

    def journal_rows(self) -> Iterator[dict]:
        """The journal: every member reads all of it."""
        for e in rows(JournalEntry.objects.filter(campaign=self.campaign).order_by("pk")):
            yield {"id": e.pk, "author": self.name(e.author_id), "title": e.title,
                   "body": e.body, "pinned": e.pinned, "created_at": when(e.created_at),
                   "updated_at": when(e.updated_at)}

    def catalogue_rows(self) -> Iterator[dict]:
        for i in CatalogueItem.objects.filter(campaign=self.campaign).order_by("pk"):
            yield {"kind": i.kind, "key": i.key, "data": i.data}

    def character_rows(self, referenced: set[int]) -> Iterator[dict]:
        """The campaign's characters whole, then each one only its history names (it left
        the campaign, or never was in it: anybody can add any character to a fight) as no
        more than the history needs: its id, name and rule system. Its notes, GM notes,
        ledger, items and owner are another campaign's or another account's, not this
        GM's to take away."""
        c = self.campaign
        seen = set()
        for ch in rows(Character.objects.filter(campaign=c).order_by("pk")):
            seen.add(ch.pk)
            yield self.character_row(ch, whole=True)
        others = sorted(referenced - seen)
        for start in range(0, len(others), BATCH):
            for ch in Character.objects.filter(pk__in=others[start:start + BATCH]).only(
                    "pk", "name", "rule_system").order_by("pk"):
                yield history_only_row(ch)

    def encounter_rows(self) -> Iterator[dict]:
        name = self.name
        pictures: dict[int, list] = {}
        for p in MapPicture.objects.filter(encounter__campaign=self.campaign).defer(
                "content").order_by("pk"):
            pictures.setdefault(p.encounter_id, []).append(
                {"id": p.pk, "file": picture_name(p), "content_type": p.content_type,
                 "width_px": p.width_px, "height_px": p.height_px,
                 "created_at": when(p.created_at)})
        for e in Encounter.objects.filter(campaign=self.campaign).order_by("pk"):
            yield {
                "id": e.pk, "name": e.name, "system": e.system, "kind": e.kind,
                "house_rules": e.house_rules, "version": e.version, "ended": e.ended,
                "controllers": {cid: name(uid) for cid, uid in e.controllers.items()},
                "created_at": when(e.created_at), "pictures": pictures.get(e.pk, []),
            }

    def record_rows(self, referenced: set[int]) -> Iterator[dict]:
        name = self.name
        records = CombatRecord.objects.filter(campaign=self.campaign).order_by("seq")
        for r in rows(records):
            character_ids(r.events, referenced)
            yield {
                "id": r.pk, "encounter": r.encounter_id, "seq": r.seq, "version": r.version,
                "actor": name(r.actor_id), "actor_name": r.actor_name, "command": r.command,
                "events": r.events, "undo_to": r.undo_to, "redo": r.redo, "lines": r.lines,
                "public_lines": r.public_lines, "created_at": when(r.created_at),
            }

    def roll_rows(self, referenced: set[int]) -> Iterator[dict]:
        name = self.name
        for e in rows(RollEvent.objects.filter(campaign=self.campaign).order_by("seq")):
            if e.character_id is not None:
                referenced.add(e.character_id)
            character_ids(e.detail, referenced)  # an opponent, whom a social roll was with
            yield {
                "seq": e.seq, "actor": name(e.actor_id), "character": e.character_id,
                "kind": e.kind, "label": e.label, "hand": e.hand, "dice": e.dice,
                "counted": e.counted, "result": e.result, "test_base": e.test_base,
                "threshold": e.threshold, "secret": e.secret, "detail": e.detail,
                "typed_in": e.typed_in, "created_at": when(e.created_at),
            }

    def pictures(self) -> Iterator[tuple[str, bytes]]:
        """The map pictures (the GM's archive) and the handouts' pictures (the archive's
        own handouts), one at a time: at most 5 MB in memory."""
        if self.gm:
            ids = list(MapPicture.objects.filter(encounter__campaign=self.campaign)
                       .order_by("pk").values_list("pk", flat=True))
            for pk in ids:
                p = MapPicture.objects.get(pk=pk)
                yield picture_name(p), bytes(p.content)
        pictured = self.handouts().exclude(content_type="").values_list("pk", "content_type")
        for pk, content_type in list(pictured):
            name = handout_picture_name(Handout(pk=pk, content_type=content_type))
            yield name, bytes(Handout.objects.values_list("picture", flat=True).get(pk=pk))

    def handouts(self):
        """The handouts this archive holds: the GM's all, a player's those given to them
        (issue 47)."""
        from table.handouts import mine

        return mine(self.campaign, self.membership).order_by("pk")

    def handout_rows(self) -> Iterator[dict]:
        for h in self.handouts():
            yield {
                "id": h.pk, "title": h.title, "text": h.text, "on_screen": h.on_screen,
                "to": h.recipient.user.username if h.recipient else None,
                "picture": handout_picture_name(h) if h.has_picture else None,
                "created_at": when(h.created_at),
            }

    # A player's archive -------------------------------------------------------------------

    def player_members(self) -> Iterator[tuple[str, Iterator[bytes]]]:
        from campaign_log.reading import events_after

        c = self.campaign
        me = self.membership.user_id

        def history():
            after = 0
            while True:
                page = events_after(c.pk, after, is_gm=False, limit=BATCH)
                if not page:
                    return
                for message in page:
                    yield {k: v for k, v in message.items() if k not in ("pk", "campaign_id")}
                after = page[-1]["seq"]

        yield "history.jsonl", fmt.jsonl(history())
        yield "fights.jsonl", fmt.jsonl(self.fight_views())
        yield "journal.jsonl", fmt.jsonl(self.journal_rows())
        yield "catalogue.jsonl", fmt.jsonl(self.catalogue_rows())
        yield "bring_requests.jsonl", fmt.jsonl(
            {"character": r.character_id, "status": r.status, "note": r.note,
             "created_at": when(r.created_at), "decided_at": when(r.decided_at)}
            for r in BringRequest.objects.filter(campaign=c, character__owner_id=me)
        )
        yield "handouts.jsonl", fmt.jsonl(self.handout_rows())
        yield "characters.jsonl", fmt.jsonl(
            self.character_row(ch, whole=ch.owner_id == me)
            for ch in rows(Character.objects.filter(campaign=c).order_by("pk"))
        )

    def fight_views(self) -> Iterator[dict]:
        from combat.api import state_data

        for e in Encounter.objects.filter(campaign=self.campaign).order_by("pk"):
            try:
                seen = state_data(e, self.membership)
            except Exception:  # noqa: BLE001 - one unreadable fight must not end the file
                seen = {"error": "this fight could not be read"}
            yield {
                "id": e.pk, "name": e.name, "kind": e.kind, "system": e.system,
                "ended": e.ended, "version": e.version, "view": seen,
                "log": [
                    {"version": r.version, "command": r.command, "actor": r.actor_name,
                     "lines": r.public_lines, "created_at": when(r.created_at)}
                    for r in rows(e.records.order_by("version"))
                ],
            }


def history_only_row(ch: Character) -> dict:
    """A character the campaign's history names but that is not the campaign's
    (`CampaignExport.character_rows`): what the importer needs to make a stand-in for it."""
    return {"id": ch.pk, "name": ch.name, "rule_system": ch.rule_system,
            "in_campaign": False, "history_only": True}


def picture_name(picture: MapPicture) -> str:
    return f"pictures/{picture.pk}.{fmt.PICTURE_EXTENSIONS.get(picture.content_type, 'png')}"


def handout_picture_name(handout: Handout) -> str:
    return f"handouts/{handout.pk}.{fmt.PICTURE_EXTENSIONS.get(handout.content_type, 'png')}"


def ledger_row(e: DpEntry, name) -> dict:
    return {
        "id": e.pk, "kind": e.kind, "amount": e.amount, "key": e.key,
        "level_before": e.level_before, "level_after": e.level_after, "reason": e.reason,
        "dp_before": e.dp_before, "dp_after": e.dp_after, "undoes": e.undoes_id,
        "created_by": name(e.created_by_id), "created_at": when(e.created_at),
    }


def _info(name: str, compress: bool) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=timezone.now().timetuple()[:6])
    info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    info.external_attr = 0o644 << 16
    return info


def dumps(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, indent=1, cls=DjangoJSONEncoder).encode()


def campaign_archive(campaign: Campaign, membership: Membership) -> Iterator[bytes]:
    """The archive of `campaign` for `membership` (the GM's whole one, or a player's),
    in chunks of about `CHUNK` bytes."""
    export = CampaignExport(campaign, membership)
    sink = Sink()
    with snapshot():
        campaign.refresh_from_db()
        with zipfile.ZipFile(sink, "w") as archive:
            with archive.open(_info(fmt.MANIFEST, True), "w") as f:
                f.write(dumps(export.manifest(export.counts())))
            with archive.open(_info(fmt.CAMPAIGN, True), "w") as f:
                f.write(dumps(export.campaign_row()))
            yield sink.take()
            members = export.gm_members() if export.gm else export.player_members()
            for name, chunks in members:
                with archive.open(_info(name, True), "w", force_zip64=True) as f:
                    for chunk in chunks:
                        f.write(chunk)
                        if sink.size >= CHUNK:
                            yield sink.take()
                yield sink.take()
            for name, content in export.pictures():
                with archive.open(_info(name, False), "w") as f:
                    f.write(content)
                yield sink.take()
    yield sink.take()


def archive_filename(campaign: Campaign, *, gm: bool) -> str:
    from django.utils.text import slugify

    stamp = timezone.localtime().strftime("%Y-%m-%d")
    who = "" if gm else "-spelare"
    return f"{slugify(campaign.name) or 'kampanj'}{who}-{stamp}.aoristos.zip"
