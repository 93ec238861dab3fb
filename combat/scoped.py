"""Every id a fight's command names, resolved through the encounter's campaign (issue 42).

`command_run` calls `command` on every parsed command, from a form, the JSON API, the
chronicle or the site itself, before anything is decided: each field of the command (and
of what it holds) that names a row of the database is looked up through the encounter
and refused (`campaigns.scoped.NotInCampaign`, a RulesError: 400) when it names a row of
another campaign, of another rule system, or none. The rules core only checks that such
an id is a whole number; which rows exist is this shell's to know.

What names a row, by field:

- `character_id` (a combatant's or a chronicle body's character): a character of the
  encounter's campaign and rule system (`campaigns.scoped.character`);
- `SetPicture.key` (the map's picture): a picture stored with this encounter ("" takes
  the picture away).

Everything else a command names is the fight's own (combatant ids, shape indexes) and
checked by the engine against its state, or a catalogue key looked up in the campaign's
catalogue when the command is parsed. `tests/combat/test_scoped.py` lists every field
of every command of the three engines and the chronicle, and fails on one that looks
like an id and is in neither list, so a new command cannot forget this.
"""

import dataclasses

from campaigns import scoped
from combat.models import Encounter, MapPicture

# Fields that name a row, resolved here: field name -> check(encounter, value).
ROW_FIELDS = {
    "character_id": lambda encounter, value: scoped.character(
        encounter.campaign_id, value, system=encounter.system),
}
# Fields of one command class (by class name) that name a row.
CLASS_FIELDS = {
    ("SetPicture", "key"): lambda encounter, value: value == "" or picture(encounter, value),
}


def picture(encounter: Encounter, value) -> MapPicture:
    if not isinstance(value, str) or not value.isascii() or not value.isdigit():
        raise scoped.NotInCampaign("picture", value)
    return scoped.one(MapPicture.objects.filter(encounter=encounter).defer("content"),
                      int(value), "picture")


def command(encounter: Encounter, parsed) -> None:
    """Refuse `parsed` (a command dataclass) if any row it names is not the encounter's."""
    _walk(encounter, parsed, depth=0)


def _walk(encounter: Encounter, value, depth: int) -> None:
    if depth > 8:  # commands are shallow; nothing the parser makes goes deeper
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value).__name__
        for field in dataclasses.fields(value):
            item = getattr(value, field.name)
            check = CLASS_FIELDS.get((kind, field.name)) or ROW_FIELDS.get(field.name)
            if check is not None:
                if item is not None:
                    check(encounter, item)
            else:
                _walk(encounter, item, depth + 1)
    elif isinstance(value, (list, tuple, frozenset, set)):
        for item in value:
            _walk(encounter, item, depth + 1)
    elif isinstance(value, dict):  # what a command carries as data (a body from the last fight)
        for key, item in value.items():
            check = ROW_FIELDS.get(key)
            if check is not None:
                if item is not None:
                    check(encounter, item)
            else:
                _walk(encounter, item, depth + 1)
