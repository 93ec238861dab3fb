"""The campaign archive's format (docs/archive.md): a zip of JSON with a schema version.

::

    manifest.json            format, schema, audience ("gm" or "player"), counts
    campaign.json            the campaign, its house rules and members by username
    encounters.jsonl         fights and the chronicle, each with its map pictures' names
    records.jsonl            every encounter's log: one record a line, every die in it
    rolls.jsonl, membership_events.jsonl, notices.jsonl    the table's events
    journal.jsonl, catalogue.jsonl, npc_templates.jsonl, bring_requests.jsonl
    characters.jsonl         one character a line, with its items, UP ledger, favourites
                             (last: the log names which characters it holds); one the
                             history names but that is not the campaign's is only
                             {id, name, rule_system, in_campaign: false, history_only: true}
    pictures/<id>.<ext>      the map pictures (PNG, JPEG, WebP)
    handouts.jsonl           the GM's handouts (schema 3): title, text, to whom, on_screen,
                             its picture's name
    handouts/<id>.<ext>      the handouts' pictures

A player's archive holds campaign.json without GM notes, history.jsonl (the table's log
as the player reads it), fights.jsonl (each fight as the player's page shows it), the
journal, the catalogue, the player's own requests, the campaign's characters (the
player's own whole, the others' public sheets) and the handouts given to them, with their
pictures.

Rows name each other by the ids they had on the exporting server; users by username. An
importer gives every row a new id and refuses a row that names one the archive lacks.
This module reads an archive defensively (`Archive`): a zip whose members, sizes or
compression ratios are out of bounds is refused before anything is read, and every line
is parsed with its size capped.
"""

import json
import re
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

FORMAT = "aoristos-table-campaign"
CHARACTER_FORMAT = "aoristos-table-character"
SCHEMA = 3  # what this version writes; it reads 1 to 3 (`upgrade`)
CHARACTER_SCHEMA = 1

MANIFEST = "manifest.json"
CAMPAIGN = "campaign.json"
# The line files of the GM's archive (read by name: the importer's order is its own).
TABLES = (
    "characters", "catalogue", "npc_templates", "journal", "bring_requests",
    "encounters", "records", "rolls", "membership_events", "notices", "handouts",
)
PLAYER_TABLES = ("history", "fights")  # a player's archive: what the player's pages show
PICTURE_NAME = re.compile(r"pictures/([1-9][0-9]{0,17})\.(png|jpg|webp)")
HANDOUT_NAME = re.compile(r"handouts/([1-9][0-9]{0,17})\.(png|jpg|webp)")
PICTURE_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp"}

# Limits on what an importer reads: far above any real campaign (a year of weekly play is
# a few MB), far below what would hurt the server.
MAX_UPLOAD = 512 * 1024 * 1024  # bytes of the zip itself
# All members together, as declared: the site's IMPORT_MAX_BYTES (`max_unpacked`), 1 GiB
# unless it says otherwise. A decade of weekly play with a fight every evening is some
# 150 MB of rows; a hundred map pictures at the most (5 MB each) are 500 MB more.
MAX_UNCOMPRESSED = 1024 * 1024 * 1024
MAX_MEMBER = 1024 * 1024 * 1024  # one line file
MAX_SMALL = 4 * 1024 * 1024  # manifest.json, campaign.json
MAX_PICTURE = 5 * 1024 * 1024  # combat.models.MapPicture.MAX_BYTES
MAX_MEMBERS = 10_000
MAX_RATIO = 200  # uncompressed / compressed, for members over 1 MiB: a zip bomb's is ~1000
MAX_LINE = 16 * 1024 * 1024  # one row (a combat record's events are the largest)


class ArchiveError(Exception):
    """The archive is refused; the message says why, in words for the person importing."""


def jsonl(rows) -> Iterator[bytes]:
    for row in rows:
        yield json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def loads(text: bytes | str, where: str):
    """JSON read from an archive: every row, campaign.json, a character file. A string
    anywhere in it (a key or a value, however deep in house_rules, events or a roll's
    detail) that holds a NUL character refuses it here, once for every field: PostgreSQL
    cannot store one in text (the import would fail on the server instead of being
    refused), and other readers of the text stop at it (issue 42)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as error:  # also too many digits, too deep
        raise ArchiveError(f"{where}: not JSON ({str(error)[:80]})") from None
    # JSON can only spell a NUL as the escape \u0000 (a raw one is no JSON): a text
    # without it needs no walk.
    if (b"\\u0000" if isinstance(text, bytes) else "\\u0000") in text and holds_nul(value):
        raise ArchiveError(f"{where} holds a NUL character")
    return value


def holds_nul(value) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def max_unpacked() -> int:
    """The bytes an archive may unpack to on this site: IMPORT_MAX_BYTES."""
    from django.conf import settings

    return getattr(settings, "IMPORT_MAX_BYTES", MAX_UNCOMPRESSED)


class Archive:
    """A campaign archive opened for reading, its zip checked against the limits (the
    sizes it declares: zipfile reads no more of a member than its declared size)."""

    def __init__(self, path: Path | str, *, max_bytes: int | None = None):
        self.max_bytes = max_unpacked() if max_bytes is None else max_bytes
        self.read_bytes = 0  # of the line files, so far (what an importer holds unwritten)
        try:
            self.zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, zlib.error, OSError, ValueError, EOFError) as error:
            raise ArchiveError(f"not a zip file: {error}") from None
        try:
            self._check_members()
            self.manifest = self.json(MANIFEST)
            self._check_manifest()
        except BaseException:
            self.zip.close()
            raise

    def close(self) -> None:
        self.zip.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _check_members(self) -> None:
        infos = self.zip.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ArchiveError(f"the zip holds {len(infos)} files; an archive holds at most "
                               f"{MAX_MEMBERS}")
        names, total = set(), 0
        allowed = {MANIFEST, CAMPAIGN} | {f"{t}.jsonl" for t in TABLES + PLAYER_TABLES}
        for info in infos:
            name = info.filename
            if name in names:
                raise ArchiveError(f"the zip holds {name} twice")
            names.add(name)
            if name not in allowed and not PICTURE_NAME.fullmatch(name) \
                    and not HANDOUT_NAME.fullmatch(name):
                raise ArchiveError(f"the zip holds a file no campaign archive has: {name[:80]}")
            if info.flag_bits & 0x1:
                raise ArchiveError(f"{name} is encrypted")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise ArchiveError(f"{name} is compressed in a way archives are not")
            most = (MAX_SMALL if name in (MANIFEST, CAMPAIGN)
                    else MAX_PICTURE if name.startswith(("pictures/", "handouts/"))
                    else min(MAX_MEMBER, self.max_bytes))
            if info.file_size > most:
                raise ArchiveError(f"{name} is {info.file_size:,} bytes; at most {most:,}")
            if info.file_size > 1024 * 1024 and info.file_size > MAX_RATIO * max(
                    info.compress_size, 1):
                raise ArchiveError(f"{name} unpacks to {info.file_size:,} bytes from "
                                   f"{info.compress_size:,}: refused as a zip bomb")
            total += info.file_size
        if total > self.max_bytes:
            raise ArchiveError(f"the archive unpacks to {total:,} bytes: this server "
                               f"imports at most {self.max_bytes:,} (IMPORT_MAX_BYTES)")
        if MANIFEST not in names:
            raise ArchiveError("no manifest.json: not a campaign archive of Aoristos Table")
        self.names = names

    def _check_manifest(self) -> None:
        manifest = self.manifest
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise ArchiveError("not a campaign archive of Aoristos Table (manifest.json "
                               "names another format)")
        schema = manifest.get("schema")
        if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
            raise ArchiveError("manifest.json: the schema is not a version number")
        if schema > SCHEMA:
            raise ArchiveError(f"the archive's schema is version {schema}; this server reads "
                               f"versions 1 to {SCHEMA}: update Aoristos Table first")

    def read(self, name: str, most: int) -> bytes:
        if name not in self.names:
            raise ArchiveError(f"the archive lacks {name}")
        try:
            with self.zip.open(name) as f:
                data = f.read(most + 1)
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError,
                NotImplementedError) as error:  # a bad CRC, a truncated member
            raise ArchiveError(f"{name} is damaged: {error}") from None
        if len(data) > most:
            raise ArchiveError(f"{name} is larger than {most:,} bytes")
        return data

    def json(self, name: str):
        return loads(self.read(name, MAX_SMALL), name)

    def has(self, name: str) -> bool:
        return name in self.names

    def lines(self, table: str) -> Iterator[tuple[str, dict]]:
        """Each row of `table`'s line file with where it is ("records.jsonl line 3"); none
        when the archive has no such file."""
        name = f"{table}.jsonl"
        if name not in self.names:
            return
        try:
            with self.zip.open(name) as f:
                number = 0
                while True:
                    line = f.readline(MAX_LINE + 1)
                    if not line:
                        break
                    number += 1
                    self.read_bytes += len(line)
                    where = f"{name} line {number}"
                    if len(line) > MAX_LINE:
                        raise ArchiveError(f"{where} is longer than {MAX_LINE:,} bytes")
                    if not line.strip():
                        continue
                    row = loads(line, where)
                    if not isinstance(row, dict):
                        raise ArchiveError(f"{where}: a row is a JSON object")
                    yield where, row
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError,
                NotImplementedError) as error:
            raise ArchiveError(f"{name} is damaged: {error}") from None

    def picture(self, name: str) -> bytes:
        return self.read(name, MAX_PICTURE)


def upgrade(manifest: dict, campaign: dict) -> tuple[dict, dict]:
    """An archive of an older schema as the current one reads it. Schema 1 (the first
    layout) named the campaign's rule system "system" and had no audience: it was always
    the GM's whole campaign. Schema 3 added the handouts (a file an older archive lacks)."""
    schema = manifest["schema"]
    if schema == 1:
        manifest = {**manifest, "schema": 2, "audience": manifest.get("audience", "gm")}
        campaign = dict(campaign)
        if "system" in campaign and "rule_system" not in campaign:
            campaign["rule_system"] = campaign.pop("system")
    return manifest, campaign
