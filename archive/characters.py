"""A character on its own (issue 30): its owner downloads it with its UP ledger, items and
favourite tests as one JSON file, and imports it into their account on another server.
It arrives in no campaign: bringing it into one follows that campaign's rules as any
character's does (`campaigns.services.bring_check`). GM notes stay with the GM."""


from django.utils import timezone
from django.utils.text import slugify

from archive import format as fmt
from archive.export import ledger_row, usernames, when
from archive.importer import SYSTEMS, character_parts, checked, insert, one_of
from characters.models import Character

MAX_BYTES = 4 * 1024 * 1024
FIELDS = ("name", "concept", "notes", "rule_system", "dp_budget", "level_cap", "attributes",
          "skills", "rolled", "created_at", "updated_at")


def export(character: Character) -> dict:
    name = usernames()
    row = {key: getattr(character, key) for key in FIELDS}
    row["created_at"], row["updated_at"] = when(character.created_at), when(character.updated_at)
    row["items"] = [{"name": i.name, "bulk": str(i.bulk), "quantity": i.quantity,
                     "catalogue": i.catalogue} for i in character.items.order_by("pk")]
    row["ledger"] = [ledger_row(e, name) for e in character.ledger.order_by("pk")]
    row["favourites"] = [
        {"name": f.name, "properties": f.properties, "free": f.free, "forced": f.forced,
         "threshold": f.threshold, "created_at": when(f.created_at)}
        for f in character.favourite_tests.order_by("pk")]
    return {"format": fmt.CHARACTER_FORMAT, "schema": fmt.CHARACTER_SCHEMA,
            "exported_at": timezone.now().isoformat(), "application": "Aoristos Table",
            "character": row}


def filename(character: Character) -> str:
    return f"{slugify(character.name) or 'rollperson'}.aoristos-character.json"


def parse(data: bytes) -> dict:
    """The character of a file, checked as far as it can be without writing it."""
    document = fmt.loads(data, "the file")
    if not isinstance(document, dict) or document.get("format") != fmt.CHARACTER_FORMAT:
        if isinstance(document, dict) and document.get("format") == fmt.FORMAT:
            raise fmt.ArchiveError("this is a campaign's archive: import it under Campaigns")
        raise fmt.ArchiveError("not a character file of Aoristos Table")
    schema = document.get("schema")
    if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        raise fmt.ArchiveError("the file's schema is not a version number")
    if schema > fmt.CHARACTER_SCHEMA:
        raise fmt.ArchiveError(f"the file's schema is version {schema}; this server reads "
                               f"version {fmt.CHARACTER_SCHEMA}: update Aoristos Table first")
    row = document.get("character")
    if not isinstance(row, dict):
        raise fmt.ArchiveError("the file holds no character")
    return row


def create(row: dict, owner) -> Character:
    """The character of `row` made the user's own, with its ledger (call it in a
    transaction: a refused part leaves nothing)."""
    where = "the character"
    one_of(row.get("rule_system"), SYSTEMS, where, "the rule system")
    character = checked(Character, where, row, (*FIELDS, "items", "ledger", "favourites"),
                        owner=owner, campaign=None)
    insert([character])

    def user_of(entry, key, _where):  # who gave an award: the owner if it was them
        return owner if entry.get(key) == owner.username else None

    character_parts(character, row, where, user_of)
    return character
